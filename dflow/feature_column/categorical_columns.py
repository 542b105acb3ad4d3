"""TF1's categorical columns from raw features: ``categorical_column_with_hash_bucket``,
``_with_vocabulary_list``, ``_with_identity``, and ``crossed_column``."""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export
from dflow.feature_column.feature_column import (  # noqa: F401
    _categorical_input,
    _CategoricalColumn,
    _check_key,
    _check_string_or_int,
    _FeatureColumn,
    _flatten_2d,
    _Ids,
    _masked,
)
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.ops.array import array_ops
from dflow.ops.array.select_ops import where_v2
from dflow.ops.lookup.lookup_ops import vocabulary_lookup
from dflow.ops.math import math_ops
from dflow.ops.math.feature_ops import hashed_cross
from dflow.ops.strings.string_ops import as_string, string_to_hash_bucket_fast

# -- categorical columns ------------------------------------------------------------------------


def _dtype_compatible(column, t: Tensor) -> None:
    if column.dtype.is_integer != t.dtype.is_integer:
        raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: {column.key}, column dtype: "
                         f"{column.dtype!r}, tensor dtype: {t.dtype!r}")
    _check_string_or_int(t.dtype, f"column_name: {column.key} input_tensor")


class _HashedCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "HashedCategoricalColumn", ("key", "hash_bucket_size", "dtype"))):
    """See ``categorical_column_with_hash_bucket``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self.key

    @property
    def _num_buckets(self) -> int:
        return self.hash_bucket_size

    def _transform_feature(self, builder):
        t, present = _categorical_input(builder, self.key, lambda t: _dtype_compatible(self, t))
        strings = t if t.dtype is dtypes.string else as_string(t)
        return _masked(string_to_hash_bucket_fast(strings, self.hash_bucket_size, name="lookup"), present)


@tf_export("feature_column.categorical_column_with_hash_bucket")
def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """Ids by hashing: ``Fingerprint64(value) mod hash_bucket_size`` (integers hashed as their
    decimal strings), exactly TF1's bucket for each value."""
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}")
    _check_key(key)
    dtype = dtypes.as_dtype(dtype)
    _check_string_or_int(dtype, f"column_name: {key}")
    return _HashedCategoricalColumn(key, int(hash_bucket_size), dtype)


class _VocabularyListCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "VocabularyListCategoricalColumn", ("key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"))):
    """See ``categorical_column_with_vocabulary_list``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self.key

    @property
    def _num_buckets(self) -> int:
        return len(self.vocabulary_list) + self.num_oov_buckets

    def _transform_feature(self, builder):
        t, present = _categorical_input(builder, self.key, lambda t: _dtype_compatible(self, t))
        if t.dtype.is_integer:
            t = math_ops.cast(t, dtypes.int64)
        ids = vocabulary_lookup(t, self.vocabulary_list, default_value=self.default_value,
                                num_oov_buckets=self.num_oov_buckets, name=f"{self.key}_lookup")
        return _masked(ids, present)


@tf_export("feature_column.categorical_column_with_vocabulary_list")
def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1, num_oov_buckets=0):
    """Ids from an in-memory vocabulary (strings or integers): a value's index in
    ``vocabulary_list``; other values go to one of ``num_oov_buckets`` hash buckets after
    the vocabulary, or to ``default_value`` (-1: no id)."""
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: {key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: {key}")
    np_vocab = np.array(vocabulary_list)
    vocabulary_dtype = dtypes.string if np_vocab.dtype.kind in "USO" else dtypes.as_dtype(np_vocab.dtype)
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    _check_string_or_int(vocabulary_dtype, f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocabulary_dtype
    else:
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer != vocabulary_dtype.is_integer:
            raise ValueError(f"dtype {dtype!r} and vocabulary dtype {vocabulary_dtype!r} do not match, column_name: "
                             f"{key}")
    _check_string_or_int(dtype, f"column_name: {key}")
    _check_key(key)
    return _VocabularyListCategoricalColumn(key, tuple(vocabulary_list), dtype, default_value, num_oov_buckets)


class _IdentityCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "IdentityCategoricalColumn", ("key", "number_buckets", "default_value"))):
    """See ``categorical_column_with_identity``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self.key

    @property
    def num_buckets(self) -> int:
        return self.number_buckets

    @property
    def _num_buckets(self) -> int:
        return self.number_buckets

    def _transform_feature(self, builder):
        def check(t):
            if not t.dtype.is_integer:
                raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: {t.dtype!r}")

        t, present = _categorical_input(builder, self.key, check)
        values = math_ops.cast(t, dtypes.int64)
        if self.default_value is not None:
            out_of_range = math_ops.logical_or(
                math_ops.less(values, convert_to_tensor(0, dtype=dtypes.int64)),
                math_ops.greater_equal(values, convert_to_tensor(self.number_buckets, dtype=dtypes.int64)))
            values = where_v2(out_of_range, convert_to_tensor(self.default_value, dtype=dtypes.int64), values)
        return _masked(values, present)


@tf_export("feature_column.categorical_column_with_identity")
def categorical_column_with_identity(key, num_buckets, default_value=None):
    """Integer inputs used as ids in ``[0, num_buckets)``; values out of range become
    ``default_value`` when one is given (otherwise an embedding lookup of them fails at run
    time and an indicator ignores them, as in TF1)."""
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}")
    _check_key(key)
    return _IdentityCategoricalColumn(key, int(num_buckets), default_value)


# -- crossed_column -----------------------------------------------------------------------------


def _leaf_keys(cross) -> list:
    keys = []
    for k in cross.keys:
        keys.extend(_leaf_keys(k) if isinstance(k, _CrossedColumn) else [k])
    return keys


class _CrossedColumn(_CategoricalColumn, collections.namedtuple(
        "CrossedColumn", ("keys", "hash_bucket_size", "hash_key"))):
    """See ``crossed_column``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return "_X_".join(sorted(k.name if isinstance(k, _FeatureColumn) else k for k in _leaf_keys(self)))

    @property
    def _num_buckets(self) -> int:
        return self.hash_bucket_size

    def _transform_feature(self, builder):
        from dflow.ops.array.creation_ops import fill

        # TF1's sparse_cross takes its sparse inputs (categorical columns' ids) first, then
        # its dense ones (raw features), whatever the order of ``keys``; the hash depends on it.
        sparse_values, sparse_masks, dense_values, dense_masks = [], [], [], []
        for key in _leaf_keys(self):
            if isinstance(key, str):
                t = builder.get(key)
                if t.dtype is not dtypes.string:
                    t = math_ops.cast(t, dtypes.int64)
                present = builder.present(key)
                if present is None:  # a dense feature: every entry is crossed
                    dense_values.append(_flatten_2d(t))
                    dense_masks.append(fill(array_ops.shape(dense_values[-1]), True))
                else:  # a SparseTensor feature: a sparse input of the cross, in order of the keys
                    sparse_values.append(_flatten_2d(t))
                    sparse_masks.append(_flatten_2d(present))
            else:
                ids = key._get_ids(builder)
                sparse_values.append(ids.ids)
                sparse_masks.append(ids.present)
        ids = hashed_cross(sparse_values + dense_values, sparse_masks + dense_masks, self.hash_bucket_size,
                           self.hash_key)
        return _Ids(ids, math_ops.greater_equal(ids, convert_to_tensor(0, dtype=dtypes.int64)))


@tf_export("feature_column.crossed_column")
def crossed_column(keys, hash_bucket_size, hash_key=None):
    """Ids of feature combinations: every combination of the keys' values in a row, hashed
    with TF1's ``sparse_cross_hashed`` (FingerprintCat64) into ``hash_bucket_size`` buckets.
    ``keys`` are raw feature names (string or integer features) or categorical columns
    (not hashed ones)."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, _CategoricalColumn)):
            raise ValueError(f"Unsupported key type. All keys must be either string, or categorical column except "
                             f"HashedCategoricalColumn. Given: {key}")
        if isinstance(key, _HashedCategoricalColumn):
            raise ValueError(f"categorical_column_with_hash_bucket is not supported for crossing. Hashing before "
                             f"crossing will increase probability of collision. Instead, use the feature name as a "
                             f"string. Given: {key}")
    return _CrossedColumn(tuple(keys), int(hash_bucket_size), hash_key)
