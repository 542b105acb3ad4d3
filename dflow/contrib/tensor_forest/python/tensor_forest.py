"""``tf.contrib.tensor_forest.python.tensor_forest``: not built in dflow.

TF 1.15 grows its forests with its own stateful kernels (fertile statistics, online split
selection after ``split_after_samples`` examples, tree resources); dflow has none of them, so
``ForestHParams`` and ``RandomForestGraphs`` raise ``NotImplementedError`` naming themselves.
"""

from __future__ import annotations


def _not_built(name):
    raise NotImplementedError(f"tf.contrib.tensor_forest.python.tensor_forest.{name} is not implemented in dflow")


class ForestHParams:
    """Not built: raises ``NotImplementedError``."""

    def __init__(self, *args, **kwargs):
        _not_built("ForestHParams")


class RandomForestGraphs:
    """Not built: raises ``NotImplementedError``."""

    def __init__(self, *args, **kwargs):
        _not_built("RandomForestGraphs")
