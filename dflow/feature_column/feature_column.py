"""``tf.feature_column``: TF1's feature columns, ``input_layer`` and ``linear_model``.

A feature column says how to turn one raw feature (an entry of the
``features`` dict: a Tensor, numpy array or list, keyed by name) into model
input. Dense columns (``numeric_column``, ``bucketized_column``,
``indicator_column``, ``embedding_column``) give a float32 ``[batch, n]``
tensor; ``input_layer`` concatenates them, sorted by column name, as TF1
does. Categorical columns (``categorical_column_with_*``,
``bucketized_column``, ``crossed_column``) give ids; ``linear_model`` learns
one weight per id (and per dense element) plus a bias.

Ids. A categorical column's ids are a dense int64 ``[batch, n]`` tensor,
with -1 where the input had no value, and a mask of the entries present. A
dense input is present where it is not the value TF1 drops when it converts
a dense input to sparse (``''`` for strings, -1 for integers); a
``SparseTensor`` input (as ``parse_example`` gives for a ``VarLenFeature``)
is made dense row by row, present exactly at its indices. Lookups,
embeddings, indicators and crosses read them as TF1 reads its sparse ids
(negative ids and, for ``mean``/``sqrtn``, non-positive weights are pruned,
as ``safe_embedding_lookup_sparse`` does), so values match TF1's. Raw
features of rank 1 are expanded to ``[batch, 1]`` as TF1 does; rank 0 is a
ValueError.

Names and variables follow TF1: ``input_layer/<column>/...``, embeddings in
``input_layer/<categorical>_embedding/embedding_weights``, linear weights in
``linear_model/<column>/weights`` and ``linear_model/bias_weights``, all in
GLOBAL_VARIABLES and MODEL_VARIABLES (and TRAINABLE_VARIABLES when trainable).
Hash buckets use FarmHash ``Fingerprint64`` (``dflow.ops.string_ops``), so a
string lands in the same bucket as in TF1.
"""

from __future__ import annotations

import collections
import math

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.graph import Tensor
from dflow.framework.tensor_shape import TensorShape
from dflow.ops import array_ops, math_ops, reduction_ops
from dflow.ops.constant_op import convert_to_tensor
from dflow.ops.feature_ops import bucketize, hashed_cross
from dflow.ops.lookup_ops import vocabulary_lookup
from dflow.ops.select_ops import where_v2
from dflow.ops.string_ops import as_string, string_to_hash_bucket_fast
from dflow.ops.variable_scope import get_variable

_Ids = collections.namedtuple("_Ids", ["ids", "present", "weights"], defaults=(None,))
_Ids.__doc__ = """A categorical column's ids: int64 ``[batch, n]`` (-1 where absent), the bool
mask of entries present in the input (crosses hash present entries even if
their id is negative, as TF1's sparse crosses do) and, for a
``weighted_categorical_column``, the float32 ``[batch, n]`` weight of each
entry (0 where absent)."""


def _is_sparse(value) -> bool:
    return all(hasattr(value, a) for a in ("indices", "values", "dense_shape"))


class _LazyBuilder:
    """Caches raw features as tensors and each column's transformation, as TF1's ``_LazyBuilder``."""

    def __init__(self, features):
        if not isinstance(features, dict):
            raise TypeError(f"features must be a dict of feature name to tensor, got {type(features).__name__}")
        self._features = dict(features)
        self._cache: dict = {}
        self._present: dict = {}  # raw feature name -> bool mask of the entries a SparseTensor input holds

    def get(self, key):
        if key in self._cache:
            return self._cache[key]
        if isinstance(key, str):
            if key not in self._features:
                raise ValueError(f"Feature {key} is not in features dictionary.")
            out = self._raw(key)
        elif isinstance(key, _FeatureColumn):
            out = key._transform_feature(self)
        else:
            raise TypeError(f'"key" must be either a "str" or "_FeatureColumn". Provided: {key}')
        self._cache[key] = out
        return out

    def present(self, key: str):
        """The mask of entries a SparseTensor feature ``key`` holds (None for a dense feature)."""
        self.get(key)
        return self._present.get(key)

    def _raw(self, key: str) -> Tensor:
        raw = self._features[key]
        present = None
        if _is_sparse(raw):
            t, present = _densify(raw, key)
        else:
            t = convert_to_tensor(raw, name=key)
        rank = t.shape.ndims
        if rank == 0:
            raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {t}")
        if rank == 1:
            t = array_ops.expand_dims(t, -1)
            present = None if present is None else array_ops.expand_dims(present, -1)
        if present is not None:
            self._present[key] = present
        return t


def _densify(raw, key: str) -> tuple:
    """A SparseTensor(Value) feature as (dense values, bool mask of its entries): ids absent from it
    read as TF1's ignored value ('' or -1, or 0 for other dtypes), present only at its indices."""
    from dflow.framework.composite import SparseTensor
    from dflow.ops.sparse_ops import sparse_to_dense

    sp = SparseTensor.from_value(raw)
    fill = _ignore_value(sp.dtype) if sp.dtype is dtypes.string or sp.dtype.is_integer else 0
    values = sparse_to_dense(sp.indices, sp.dense_shape, sp.values, default_value=fill, validate_indices=False,
                             name=f"{key}_to_dense")
    present = sparse_to_dense(sp.indices, sp.dense_shape, True, default_value=False, validate_indices=False,
                              name=f"{key}_present")
    return values, present


def _flatten_2d(t: Tensor) -> Tensor:
    if t.shape.ndims == 2:
        return t
    return array_ops.reshape(t, [-1, int(np.prod(t.shape.as_list()[1:]))] if t.shape[1:].is_fully_defined()
                             else [array_ops.shape(t)[0], -1])


def _ignore_value(dtype):
    return b"" if dtype is dtypes.string else -1


# -- base classes -------------------------------------------------------------------------------


class _FeatureColumn:
    """A feature column: ``name``, and ``_transform_feature(builder)``."""

    __slots__ = ()

    @property
    def _var_scope_name(self) -> str:
        return self.name

    def __lt__(self, other):
        return self.name < other.name

    def __repr__(self):
        fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__.lstrip('_')}({fields})"

    def __gt__(self, other):
        return self.name > other.name


class _DenseColumn(_FeatureColumn):
    """A column that yields a float32 ``[batch, ...]`` tensor of ``_variable_shape`` per example."""

    __slots__ = ()


class _CategoricalColumn(_FeatureColumn):
    """A column that yields ids in ``[0, _num_buckets)`` (see ``_Ids``)."""

    __slots__ = ()

    def _get_ids(self, builder) -> _Ids:
        return builder.get(self)


def _check_key(key) -> None:
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Got: type {type(key)}. Given key: {key}.")


def _check_string_or_int(dtype, prefix: str) -> None:
    if dtype is not dtypes.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype!r}.")


def _categorical_input(builder, key: str, dtype_check) -> tuple:
    t = builder.get(key)
    dtype_check(t)
    present = builder.present(key)
    if present is None:
        present = math_ops.not_equal(t, convert_to_tensor(_ignore_value(t.dtype), dtype=t.dtype))
    return t, present


def _masked(ids: Tensor, present: Tensor) -> _Ids:
    ids = math_ops.cast(ids, dtypes.int64)
    return _Ids(_flatten_2d(where_v2(present, ids, convert_to_tensor(-1, dtype=dtypes.int64))), _flatten_2d(present))


# -- numeric_column ---------------------------------------------------------------------------


class _NumericBase(_FeatureColumn):
    """A column of ``shape`` real values (per example or per time step) read from feature ``key``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self.key

    @property
    def _variable_shape(self) -> TensorShape:
        return TensorShape(self.shape)


def _check_numeric_args(key, shape, dtype, normalizer_fn) -> tuple:
    shape = _check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype!r}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    _check_key(key)
    return shape, dtype


class _NumericColumn(_NumericBase, _DenseColumn, collections.namedtuple(
        "NumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """See ``numeric_column``."""

    __slots__ = ()

    def _transform_feature(self, builder):
        t = builder.get(self.key)
        if builder.present(self.key) is not None:
            raise ValueError(f"The corresponding Tensor of numerical column must be a Tensor. SparseTensor is not "
                             f"supported. key: {self.key}")
        if self.normalizer_fn is not None:
            t = self.normalizer_fn(t)
        return math_ops.cast(t, dtypes.float32)

    def _get_dense_tensor(self, builder, weight_collections=None, trainable=None):
        return builder.get(self)


def _check_shape(shape, key) -> tuple:
    if shape is None:
        raise ValueError(f"shape must not be None. key: {key}")
    if isinstance(shape, int):
        shape = [shape]
    shape = tuple(shape)
    for d in shape:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if d < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    return tuple(int(d) for d in shape)


def _default_tuple(shape, value):
    return tuple(_default_tuple(shape[1:], value) for _ in range(shape[0])) if shape else value


def _nested_shape_ok(value, shape) -> bool:
    is_seq = isinstance(value, (list, tuple))
    if is_seq != bool(shape):
        return False
    if not shape:
        return True
    return len(value) == shape[0] and all(_nested_shape_ok(v, shape[1:]) for v in value)


def _flat(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _flat(v)
    else:
        yield value


def _as_tuple(value):
    return tuple(_as_tuple(v) for v in value) if isinstance(value, (list, tuple)) else value


def _check_default_value(shape, default_value, dtype, key):
    if default_value is None:
        return None
    if isinstance(default_value, int) and not isinstance(default_value, bool):
        return _default_tuple(shape, default_value)
    if isinstance(default_value, float) and dtype.is_floating:
        return _default_tuple(shape, default_value)
    if callable(getattr(default_value, "tolist", None)):
        default_value = default_value.tolist()
    if isinstance(default_value, (list, tuple)):
        if not _nested_shape_ok(default_value, shape):
            raise ValueError(f"The shape of default_value must be equal to given shape. default_value: "
                             f"{default_value}, shape: {shape}, key: {key}")
        flat = list(_flat(default_value))
        if all(isinstance(v, int) for v in flat):
            return _as_tuple(default_value)
        if any(isinstance(v, float) for v in flat) and dtype.is_floating:
            return _as_tuple(default_value)
    raise TypeError(f"default_value must be compatible with dtype. default_value: {default_value}, dtype: "
                    f"{dtype!r}, key: {key}")


@tf_export("feature_column.numeric_column")
def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32, normalizer_fn=None):
    """A real-valued feature of ``shape`` per example, cast to float32 after ``normalizer_fn``.

    >>> import dflow as tf
    >>> price = tf.feature_column.numeric_column("price")
    >>> net = tf.feature_column.input_layer({"price": [[1.0], [5.0]]}, [price])
    >>> with tf.Session() as s:
    ...     s.run(net).tolist()
    [[1.0], [5.0]]
    """
    shape, dtype = _check_numeric_args(key, shape, dtype, normalizer_fn)
    default_value = _check_default_value(shape, default_value, dtype, key)
    return _NumericColumn(key, shape, default_value, dtype, normalizer_fn)


# -- bucketized_column -------------------------------------------------------------------------


class _BucketizedColumn(_DenseColumn, _CategoricalColumn,
                        collections.namedtuple("BucketizedColumn", ("source_column", "boundaries"))):
    """See ``bucketized_column``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.source_column.name}_bucketized"

    @property
    def _variable_shape(self) -> TensorShape:
        return TensorShape(tuple(self.source_column.shape) + (len(self.boundaries) + 1,))

    @property
    def _num_buckets(self) -> int:
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def _transform_feature(self, builder):
        return bucketize(builder.get(self.source_column), self.boundaries)

    def _get_dense_tensor(self, builder, weight_collections=None, trainable=None):
        from dflow.ops.creation_ops import one_hot

        return one_hot(math_ops.cast(builder.get(self), dtypes.int64), len(self.boundaries) + 1, on_value=1.0,
                       off_value=0.0)

    def _get_ids(self, builder) -> _Ids:
        from dflow.ops.creation_ops import range as tf_range

        buckets = math_ops.cast(_flatten_2d(builder.get(self)), dtypes.int64)
        offsets = tf_range(0, self.source_column.shape[0], dtype=dtypes.int64) * (len(self.boundaries) + 1)
        ids = buckets + offsets
        return _Ids(ids, math_ops.greater_equal(ids, convert_to_tensor(0, dtype=dtypes.int64)))


@tf_export("feature_column.bucketized_column")
def bucketized_column(source_column, boundaries):
    """Discretizes a 1-D ``numeric_column`` by sorted ``boundaries``: bucket ``i`` holds
    ``boundaries[i-1] <= x < boundaries[i]``. Dense: one-hot per element; categorical:
    ``len(boundaries) + 1`` ids per element of the source."""
    if not isinstance(source_column, _NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries:
        raise ValueError("boundaries must not be empty.")
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return _BucketizedColumn(source_column, tuple(boundaries))


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
        from dflow.ops.creation_ops import fill

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


# -- indicator_column and embedding_column -----------------------------------------------------


class _IndicatorColumn(_DenseColumn, collections.namedtuple("IndicatorColumn", ("categorical_column",))):
    """See ``indicator_column``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_indicator"

    @property
    def _variable_shape(self) -> TensorShape:
        return TensorShape([1, self.categorical_column._num_buckets])

    def _one_hot(self, ids: _Ids) -> Tensor:
        """One-hot ids (times their weights: TF1 sums all the weights of an id, none is pruned)."""
        from dflow.ops.creation_ops import one_hot

        hot = one_hot(ids.ids, self.categorical_column._num_buckets, on_value=1.0, off_value=0.0)
        return hot if ids.weights is None else hot * array_ops.expand_dims(ids.weights, -1)

    def _transform_feature(self, builder):
        return reduction_ops.reduce_sum(self._one_hot(self.categorical_column._get_ids(builder)), axis=[-2])

    def _get_dense_tensor(self, builder, weight_collections=None, trainable=None):
        _reject_sequence(self, "indicator_column")
        return builder.get(self)

    def _get_sequence_dense_tensor(self, builder, weight_collections=None, trainable=None) -> tuple:
        """(float32 ``[batch, time, num_buckets]``, int64 ``[batch]`` sequence lengths) of a sequence
        column: each step's one-hot id (weighted, for a weighted column), as TF1's."""
        ids, length = _sequence_ids(self, "indicator_column", builder)
        return self._one_hot(ids), length


@tf_export("feature_column.indicator_column")
def indicator_column(categorical_column):
    """The multi-hot ``[batch, num_buckets]`` float32 encoding of a categorical column (a count per id)."""
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: {categorical_column}")
    return _IndicatorColumn(categorical_column)


def _combine_embeddings(params, ids: _Ids, combiner: str, max_norm=None) -> Tensor:
    """TF1's ``safe_embedding_lookup_sparse`` on dense ids: negative ids are ignored (and, unless
    ``combiner`` is ``sum``, entries of weight <= 0), rows without ids give zeros; ``combiner`` is
    ``sum`` (of weight x row), ``mean`` (divided by the sum of weights) or ``sqrtn`` (by the
    square root of the sum of squared weights)."""
    from dflow.ops.gather_ops import gather

    zero = convert_to_tensor(0, dtype=dtypes.int64)
    valid = math_ops.greater_equal(ids.ids, zero)
    emb = gather(params, where_v2(valid, ids.ids, zero))
    if max_norm is not None:  # each row read is clipped to L2 norm max_norm, as embedding_lookup does
        from dflow.ops.clip_ops import clip_by_norm

        emb = clip_by_norm(emb, max_norm, axes=[-1])
    w = math_ops.cast(valid, dtypes.float32)
    if ids.weights is not None:
        w = w * ids.weights
        if combiner != "sum":
            w = where_v2(math_ops.greater(w, 0.0), w, array_ops.zeros_like(w))
    summed = reduction_ops.reduce_sum(emb * array_ops.expand_dims(w, -1), axis=-2)
    if combiner == "sum":
        return summed
    if combiner == "mean":
        return math_ops.div_no_nan(summed, reduction_ops.reduce_sum(w, axis=-1, keepdims=True))
    return math_ops.div_no_nan(summed, math_ops.sqrt(reduction_ops.reduce_sum(w * w, axis=-1, keepdims=True)))


def _per_step(ids: _Ids) -> _Ids:
    """``[batch, time]`` ids as ``[batch, time, 1]``: one id to combine per time step."""
    return _Ids(*(None if t is None else array_ops.expand_dims(t, -1) for t in ids))


def _sequence_ids(column, kind: str, builder) -> tuple:
    """(ids, sequence length) of ``column.categorical_column``, which must be a sequence column."""
    if not isinstance(column.categorical_column, _SequenceCategoricalColumn):
        raise ValueError(f"In {kind}: {column.name}. categorical_column must be of type _SequenceCategoricalColumn "
                         f"to use sequence_input_layer. Suggested fix: Use one of sequence_categorical_column_with_*. "
                         f"Given (type {type(column.categorical_column)}): {column.categorical_column}")
    return column.categorical_column._get_sequence_ids(builder)


def _sequence_length(present: Tensor) -> Tensor:
    """One past the last time step present in each row (TF1's ``sequence_length_from_sparse_tensor``)."""
    from dflow.ops.creation_ops import range as tf_range

    steps = math_ops.cast(tf_range(1, array_ops.shape(present)[1] + 1), dtypes.int64)
    last = where_v2(present, steps, array_ops.zeros_like(steps))
    return reduction_ops.reduce_max(last, axis=1)


_COMBINERS = ("mean", "sqrtn", "sum")


class _EmbeddingBase(_DenseColumn):
    """A ``[batch, dimension]`` embedding of ``categorical_column``'s ids (own or shared weights)."""

    __slots__ = ()

    @property
    def _variable_shape(self) -> TensorShape:
        return TensorShape([self.dimension])

    @property
    def _weights_shape(self) -> tuple:
        return (self.categorical_column._num_buckets, self.dimension)

    def _transform_feature(self, builder):
        return self.categorical_column._get_ids(builder)

    def _get_sequence_dense_tensor(self, builder, weight_collections=None, trainable=None) -> tuple:
        """(float32 ``[batch, time, dimension]``, int64 ``[batch]`` sequence lengths) of a sequence
        column: each step's embedding (zeros where a row has no id), as TF1's."""
        ids, length = _sequence_ids(self, "embedding_column", builder)
        weights = self._embedding_weights(weight_collections, trainable)
        return _combine_embeddings(weights, _per_step(ids), self.combiner, self.max_norm), length

    def _get_dense_tensor(self, builder, weight_collections=None, trainable=None):
        _reject_sequence(self)
        weights = self._embedding_weights(weight_collections, trainable)
        return _combine_embeddings(weights, builder.get(self), self.combiner, self.max_norm)

    def _embedding_weights(self, weight_collections, trainable):
        return self._new_weights(weight_collections, trainable)

    def _new_weights(self, weight_collections, trainable):
        """A new ``embedding_weights`` variable in the current scope (restored from the checkpoint if given)."""
        weights = get_variable("embedding_weights", shape=self._weights_shape, dtype=dtypes.float32,
                               initializer=self.initializer,
                               trainable=bool(self.trainable and trainable is not False),
                               collections=weight_collections)
        if self.ckpt_to_load_from is not None:
            from dflow.train.checkpoint_utils import init_from_checkpoint

            init_from_checkpoint(self.ckpt_to_load_from, {self.tensor_name_in_ckpt: weights})
        return weights


class _EmbeddingColumn(_EmbeddingBase, collections.namedtuple(
        "EmbeddingColumn", ("categorical_column", "dimension", "combiner", "initializer", "ckpt_to_load_from",
                            "tensor_name_in_ckpt", "max_norm", "trainable"))):
    """See ``embedding_column``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_embedding"


@tf_export("feature_column.embedding_column")
def embedding_column(categorical_column, dimension, combiner="mean", initializer=None, ckpt_to_load_from=None,
                     tensor_name_in_ckpt=None, max_norm=None, trainable=True):
    """A dense ``[batch, dimension]`` embedding of a categorical column: the rows of
    ``embedding_weights`` (``num_buckets x dimension``, by default truncated normal with
    stddev ``1/sqrt(dimension)``) of a row's ids, combined by ``combiner``."""
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"categorical_column must be a categorical column, got {categorical_column}")
    initializer = _check_embedding_args(dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt,
                                        f"Embedding of column_name: {categorical_column.name}")
    return _EmbeddingColumn(categorical_column, int(dimension), combiner, initializer, ckpt_to_load_from,
                            tensor_name_in_ckpt, max_norm, trainable)


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


def _check_embedding_args(dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt, what):
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. {what}")
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}")
    if initializer is None:
        from dflow.ops.init_ops import truncated_normal_initializer

        initializer = truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))
    return initializer


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


# The layers that consume columns (``input_layer``, ``linear_model``) are in
# ``layers.py``; imported last, since they build on everything above.
from dflow.feature_column.layers import input_layer, linear_model  # noqa: E402, F401

