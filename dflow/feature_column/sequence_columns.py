"""TF1's sequence feature columns (``sequence_categorical_column_with_*``, ``sequence_numeric_column``):
columns of one value list per time step, their parse specs and dense per-step tensors."""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export
from dflow.feature_column.feature_column import (  # noqa: F401
    _CategoricalColumn,
    _check_numeric_args,
    _NumericBase,
    _sequence_length,
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_list,
    embedding_column,
)
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.ops.array import array_ops
from dflow.ops.array.select_ops import where_v2
from dflow.ops.math import math_ops

# -- sequence columns ---------------------------------------------------------------------------


class _SequenceCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "SequenceCategoricalColumn", ("categorical_column",))):
    """A categorical column over a sequence: ``[batch, time]`` ids, one per step (see
    ``sequence_categorical_column_with_*``). ``input_layer`` cannot read it (as in TF1)."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self.categorical_column.name

    @property
    def _num_buckets(self) -> int:
        return self.categorical_column._num_buckets

    def _transform_feature(self, builder):
        return self.categorical_column._get_ids(builder)

    def _get_sequence_ids(self, builder) -> tuple:
        """(ids ``[batch, time]``, sequence length ``[batch]`` int64): the length is one past the
        last step present in a row, as TF1's ``sequence_length_from_sparse_tensor``."""
        ids = self._get_ids(builder)
        return ids, _sequence_length(ids.present)


def _reject_sequence(column, kind: str = "embedding_column") -> None:
    if isinstance(column.categorical_column, _SequenceCategoricalColumn):
        raise ValueError(f"In {kind}: {column.name}. categorical_column must not be of type "
                         f"_SequenceCategoricalColumn. Suggested fix A: If you wish to use input_layer, use a "
                         f"non-sequence categorical_column_with_*. Suggested fix B: If you wish to create sequence "
                         f"input, use sequence_input_layer instead of input_layer. Given (type "
                         f"{type(column.categorical_column)}): {column.categorical_column}")


@tf_export("feature_column.sequence_categorical_column_with_identity")
def sequence_categorical_column_with_identity(key, num_buckets, default_value=None):
    """``categorical_column_with_identity`` over a sequence feature (one id per time step)."""
    return _SequenceCategoricalColumn(categorical_column_with_identity(key, num_buckets, default_value))


@tf_export("feature_column.sequence_categorical_column_with_hash_bucket")
def sequence_categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """``categorical_column_with_hash_bucket`` over a sequence feature (one id per time step)."""
    return _SequenceCategoricalColumn(categorical_column_with_hash_bucket(key, hash_bucket_size, dtype))


@tf_export("feature_column.sequence_categorical_column_with_vocabulary_list")
def sequence_categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1,
                                                     num_oov_buckets=0):
    """``categorical_column_with_vocabulary_list`` over a sequence feature (one id per time step)."""
    return _SequenceCategoricalColumn(categorical_column_with_vocabulary_list(
        key, vocabulary_list, dtype=dtype, default_value=default_value, num_oov_buckets=num_oov_buckets))


@tf_export("feature_column.sequence_categorical_column_with_vocabulary_file")
def sequence_categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None, num_oov_buckets=0,
                                                     default_value=None, dtype=dtypes.string):
    """``categorical_column_with_vocabulary_file`` over a sequence feature (one id per time step)."""
    from dflow.feature_column.vocabulary_file import categorical_column_with_vocabulary_file

    return _SequenceCategoricalColumn(categorical_column_with_vocabulary_file(
        key, vocabulary_file, vocabulary_size=vocabulary_size, num_oov_buckets=num_oov_buckets,
        default_value=default_value, dtype=dtype))


class _SequenceNumericColumn(_NumericBase, collections.namedtuple(
        "SequenceNumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """See ``sequence_numeric_column``."""

    __slots__ = ()

    def _transform_feature(self, builder):
        t = builder.get(self.key)
        if self.normalizer_fn is not None:
            t = self.normalizer_fn(t)
        return t

    def _get_sequence_dense_tensor(self, builder, weight_collections=None, trainable=None) -> tuple:
        """(float32 ``[batch, time, *shape]`` values, int64 ``[batch]`` sequence lengths), as TF1's
        ``SequenceNumericColumn.get_sequence_dense_tensor``: steps absent read ``default_value``."""
        values = builder.get(self)
        present = builder.present(self.key)
        if present is None:
            raise ValueError(f"sequence_numeric_column {self.key} needs a SparseTensor input (a VarLenFeature), "
                             f"got a dense tensor.")
        fill = convert_to_tensor(self.default_value, dtype=values.dtype)
        values = math_ops.cast(where_v2(present, values, fill), dtypes.float32)
        n = int(np.prod(self.shape))
        dense = array_ops.reshape(values, [array_ops.shape(values)[0], -1, *self.shape])
        length = _sequence_length(present)
        if n > 1:
            length = math_ops.floordiv(length + n - 1, convert_to_tensor(n, dtype=dtypes.int64))
        return dense, length


@tf_export("feature_column.sequence_numeric_column")
def sequence_numeric_column(key, shape=(1,), default_value=0.0, dtype=dtypes.float32, normalizer_fn=None):
    """A real-valued sequence feature: ``shape`` values per time step, read from a
    ``VarLenFeature`` (steps absent read ``default_value``)."""
    shape, dtype = _check_numeric_args(key, shape, dtype, normalizer_fn)
    return _SequenceNumericColumn(key, shape, default_value, dtype, normalizer_fn)
