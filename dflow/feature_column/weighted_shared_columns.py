"""``weighted_categorical_column`` and ``shared_embedding_columns``: categorical ids with weights, and
one embedding variable shared by several columns."""

from __future__ import annotations

import collections

from dflow._api import tf_export
from dflow.feature_column.feature_column import (  # noqa: F401
    _CategoricalColumn,
    _check_embedding_args,
    _EmbeddingBase,
    _flatten_2d,
    _Ids,
)
from dflow.feature_column.sequence_columns import _SequenceCategoricalColumn
from dflow.framework import dtypes
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.math import math_ops

# -- weighted_categorical_column -----------------------------------------------------------------


class _WeightedCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "WeightedCategoricalColumn", ("categorical_column", "weight_feature_key", "dtype"))):
    """See ``weighted_categorical_column``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def _num_buckets(self) -> int:
        return self.categorical_column._num_buckets

    def _transform_feature(self, builder):
        weights = builder.get(self.weight_feature_key)
        if weights.dtype.base_dtype is not self.dtype:
            raise ValueError(f"Bad dtype, expected {self.dtype!r}, but got {weights.dtype!r}.")
        ids = self.categorical_column._get_ids(builder)
        weights = _flatten_2d(math_ops.cast(weights, dtypes.float32))
        # A dense weight of 0 is an absent entry in TF1 (it drops them); here it weighs nothing.
        return _Ids(ids.ids, ids.present, weights)


@tf_export("feature_column.weighted_categorical_column")
def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    """A categorical column whose ids each carry a weight, read from the feature
    ``weight_feature_key`` (a SparseTensor with the ids' indices, or a dense tensor of their
    shape). Indicators sum the weights of an id; embeddings and ``linear_model`` weigh each
    id's row by it (``mean`` divides by the sum of weights)."""
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"categorical_column must be of type _CategoricalColumn. Given: {categorical_column}")
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype!r} is not convertible to float.")
    if not weight_feature_key:
        raise ValueError(f"weight_feature_key must be set. Given: {weight_feature_key!r}")
    return _WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)


# -- shared_embedding_columns -------------------------------------------------------------------


class _SharedEmbeddingColumn(_EmbeddingBase, collections.namedtuple(
        "SharedEmbeddingColumn", ("categorical_column", "dimension", "combiner", "initializer",
                                  "shared_embedding_collection_name", "ckpt_to_load_from", "tensor_name_in_ckpt",
                                  "max_norm", "trainable"))):
    """See ``shared_embedding_columns``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self) -> str:
        return self.shared_embedding_collection_name

    def _embedding_weights(self, weight_collections, trainable):
        """The collection's variable, or a new one (added to it) for the first column built."""
        from dflow.framework.graph import add_to_collection, get_collection

        shape = self._weights_shape
        shared = get_collection(self.shared_embedding_collection_name)
        if shared:
            if len(shared) > 1:
                raise ValueError(f"Collection {self.shared_embedding_collection_name} can only contain one variable. "
                                 f"Suggested fix A: Choose a unique name for this collection. Suggested fix B: "
                                 f"remove all other variables from this collection.")
            weights = shared[0]
            if weights.shape != TensorShape(shape):
                raise ValueError(f"Shared embedding collection {self.shared_embedding_collection_name} contains "
                                 f"variable {weights.name} of unexpected shape {weights.shape}. Expected shape "
                                 f"is {TensorShape(shape)}.")
        else:
            weights = self._new_weights(weight_collections, trainable)
            add_to_collection(self.shared_embedding_collection_name, weights)
        return weights


def _base_type(column) -> type:
    while isinstance(column, (_WeightedCategoricalColumn, _SequenceCategoricalColumn)):
        column = column.categorical_column
    return type(column)


@tf_export("feature_column.shared_embedding_columns")
def shared_embedding_columns(categorical_columns, dimension, combiner="mean", initializer=None,
                             shared_embedding_collection_name=None, ckpt_to_load_from=None,
                             tensor_name_in_ckpt=None, max_norm=None, trainable=True):
    """Embedding columns of several categorical columns (of one type and size) that share one
    ``embedding_weights`` variable, created by the first column built, in the scope (and graph
    collection) ``shared_embedding_collection_name``: by default the sorted column names joined
    by ``_`` plus ``_shared_embedding``, as TF1's ``a_b_shared_embedding/embedding_weights``."""
    initializer = _check_embedding_args(dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt,
                                        "Embedding of column_name: shared_embedding_columns")
    categorical_columns = list(categorical_columns)
    if not categorical_columns:
        raise ValueError("categorical_columns must not be empty.")
    for c in categorical_columns:
        if not isinstance(c, _CategoricalColumn):
            raise ValueError(f"All categorical_columns must be subclasses of _CategoricalColumn. Given: {c}, of "
                             f"type: {type(c)}")
    first = categorical_columns[0]
    for c in categorical_columns[1:]:
        if _base_type(c) is not _base_type(first):
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must have the same type, or "
                             f"be weighted_categorical_column or sequence column of the same type. Given column: "
                             f"{c} of type: {type(c)} does not match given column: {first} of type: {type(first)}")
        if c._num_buckets != first._num_buckets:
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must have the same number of "
                             f"buckets. Given column: {c} with buckets: {c._num_buckets} does not match column: "
                             f"{first} with buckets: {first._num_buckets}")
    if not shared_embedding_collection_name:
        shared_embedding_collection_name = "_".join(sorted(c.name for c in categorical_columns)) + \
            "_shared_embedding"
    return [_SharedEmbeddingColumn(c, int(dimension), combiner, initializer, shared_embedding_collection_name,
                                   ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable)
            for c in categorical_columns]


