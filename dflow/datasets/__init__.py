"""Small data sets shipped with dflow for examples and tests (``dflow.datasets.iris``)."""

from dflow.datasets import iris  # noqa: F401

__all__ = ["iris"]
