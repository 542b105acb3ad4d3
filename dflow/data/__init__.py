"""``tf.data``: input pipelines for TF1 graphs.

A ``Dataset`` is a Python description of a pipeline (``dataset_ops``,
``transformations``, ``readers``; functions traced by ``functions``); an
iterator (``iterator_ops``) is a session resource whose initializer builds
the pipeline (``pipeline``, ``batching``, ``nesting``, ``prefetch``,
``cache``, ``vectorize``) from the values of the dataset's tensors, and
whose ``get_next`` op pulls one element. See docs/data.md.
"""

from __future__ import annotations

import sys as _sys

from dflow import _api
from dflow.data import experimental  # noqa: F401
from dflow.data import options as _options  # noqa: F401 - tf.data.Options, NumpyIterator, DatasetSpec
from dflow.data.dataset_ops import AUTOTUNE, DatasetV1
from dflow.data.iterator_ops import (
    Iterator,
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from dflow.data.readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset
from dflow.ops.io import parsing_ops as _parsing_ops  # noqa: F401 - tf.io.decode_csv

Dataset = DatasetV1

__all__ = ["AUTOTUNE", "Dataset", "FixedLengthRecordDataset", "Iterator", "TFRecordDataset", "TextLineDataset",
           "get_output_classes", "get_output_shapes", "get_output_types", "make_initializable_iterator",
           "make_one_shot_iterator"]

# Imported after ``import dflow`` finished installing names: install ours now.
_root = _sys.modules.get("dflow")
if _root is not None and hasattr(_root, "compat"):
    _api.populate(_root)
del _root
