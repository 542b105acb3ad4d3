"""``tf.layers``: TF1's layers (``tf.compat.v1.layers``), objects and functions, on dflow's
variable scopes. See ``base.py`` for the naming, scoping and collection rules they share."""

from dflow.layers import base, convolutional, core, normalization, pooling  # noqa: F401 - register tf.layers.*
