"""``tf.contrib.tensorboard.plugins``: ``projector``."""

from dflow.contrib.tensorboard.plugins import projector as projector  # noqa: F401
