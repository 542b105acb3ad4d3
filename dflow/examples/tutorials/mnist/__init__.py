"""``tensorflow.examples.tutorials.mnist``: ``input_data.read_data_sets`` for TF1's MNIST tutorials."""

from dflow.examples.tutorials.mnist import input_data

__all__ = ["input_data"]
