"""``tf.debugging``: assertions, numeric checks and printing ops (``tf.Assert``, ``tf.assert_*``,
``tf.check_numerics``, ``tf.Print``, ``tf.print``)."""

from dflow.debugging import (  # noqa: F401 - register ops and exports
    check_ops,
    logging_ops,
    numerics,
    switches,  # noqa: F401 - tf.debugging.set_log_device_placement & co.
)
