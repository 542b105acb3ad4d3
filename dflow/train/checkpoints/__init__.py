"""Checkpoints: ``tf.train.Saver``, object-based ``tf.train.Checkpoint``, their file format and
``tf.train.warm_start``."""
