"""``tf.contrib.tensorboard``: its ``plugins.projector`` (the embedding projector's configuration)."""

from dflow.contrib.tensorboard import plugins as plugins  # noqa: F401 - tf.contrib.tensorboard.plugins.projector
