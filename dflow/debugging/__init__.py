"""``tf.debugging``: assertions, numeric checks and printing ops (``tf.Assert``, ``tf.assert_*``,
``tf.check_numerics``, ``tf.Print``, ``tf.print``)."""

from dflow.debugging import switches  # noqa: F401 - tf.debugging.set_log_device_placement & co.
from dflow.ops.debugging import check_ops, logging_ops, numerics  # noqa: F401 - register ops and exports
