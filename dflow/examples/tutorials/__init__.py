"""``tensorflow.examples.tutorials``."""
