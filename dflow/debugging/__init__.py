"""``tf.debugging``: assertions, numeric checks and printing ops (``tf.Assert``, ``tf.assert_*``,
``tf.check_numerics``, ``tf.Print``, ``tf.print``)."""

from dflow.debugging import check_ops, logging_ops, numerics  # noqa: F401 - register ops and exports
