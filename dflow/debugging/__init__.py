"""``tf.debugging``: assertions, numeric checks and printing ops (``tf.Assert``, ``tf.assert_*``,
``tf.check_numerics``, ``tf.Print``, ``tf.print``)."""

# switches: tf.debugging.set_log_device_placement & co.; tfdbg: from tensorflow.python import debug
from dflow.debugging import switches, tfdbg  # noqa: F401
from dflow.ops.debugging import check_ops, logging_ops, numerics  # noqa: F401 - register ops and exports
