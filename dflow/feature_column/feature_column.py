"""``tf.feature_column``: TF1's feature columns, ``input_layer`` and ``linear_model``.

A feature column says how to turn one raw feature (an entry of the
``features`` dict: a Tensor, numpy array or list, keyed by name) into model
input. Dense columns (``numeric_column``, ``bucketized_column``,
``indicator_column``, ``embedding_column``) give a float32 ``[batch, n]``
tensor; ``input_layer`` concatenates them, sorted by column name, as TF1
does. Categorical columns (``categorical_column_with_*``,
``bucketized_column``, ``crossed_column``) give ids; ``linear_model`` learns
one weight per id (and per dense element) plus a bias.

Ids. dflow has no SparseTensor: a categorical column's ids are a dense
int64 ``[batch, n]`` tensor, with -1 where the input had no value (the entries
TF1 drops when it converts a dense input to sparse: ``''`` for strings, -1
for integers). Lookups, embeddings, indicators and crosses read them as TF1
reads its sparse ids, so values match TF1's; a SparseTensor-like input raises
NotImplementedError. Raw features of rank 1 are expanded to ``[batch, 1]`` as
TF1 does; rank 0 is a ValueError.

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

_Ids = collections.namedtuple("_Ids", ["ids", "present"])
_Ids.__doc__ = """A categorical column's ids: int64 ``[batch, n]`` (-1 where absent) and the bool
mask of entries present in the input (crosses hash present entries even if
their id is negative, as TF1's sparse crosses do)."""


def _is_sparse(value) -> bool:
    return all(hasattr(value, a) for a in ("indices", "values", "dense_shape"))


def _sparse_error(key) -> NotImplementedError:
    return NotImplementedError(
        f"Feature {key!r} is a SparseTensor; dflow has no SparseTensor. Pass a dense tensor or array, with -1 "
        f"(integers) or '' (strings) where a row has no value, as TF1 accepts for categorical columns.")


class _LazyBuilder:
    """Caches raw features as tensors and each column's transformation, as TF1's ``_LazyBuilder``."""

    def __init__(self, features):
        if not isinstance(features, dict):
            raise TypeError(f"features must be a dict of feature name to tensor, got {type(features).__name__}")
        self._features = dict(features)
        self._cache: dict = {}

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

    def _raw(self, key: str) -> Tensor:
        raw = self._features[key]
        if _is_sparse(raw):
            raise _sparse_error(key)
        t = convert_to_tensor(raw, name=key)
        rank = t.shape.ndims
        if rank == 0:
            raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {t}")
        if rank == 1:
            return array_ops.expand_dims(t, -1)
        return t


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
    present = math_ops.not_equal(t, convert_to_tensor(_ignore_value(t.dtype), dtype=t.dtype))
    return t, present


def _masked(ids: Tensor, present: Tensor) -> _Ids:
    ids = math_ops.cast(ids, dtypes.int64)
    return _Ids(_flatten_2d(where_v2(present, ids, convert_to_tensor(-1, dtype=dtypes.int64))), _flatten_2d(present))


# -- numeric_column ---------------------------------------------------------------------------


class _NumericColumn(_DenseColumn, collections.namedtuple(
        "NumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """See ``numeric_column``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self.key

    @property
    def _variable_shape(self) -> TensorShape:
        return TensorShape(self.shape)

    def _transform_feature(self, builder):
        t = builder.get(self.key)
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
    shape = _check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype!r}, key: {key}")
    default_value = _check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    _check_key(key)
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
        sparse_values, sparse_masks, dense_values = [], [], []
        for key in _leaf_keys(self):
            if isinstance(key, str):
                t = builder.get(key)
                if t.dtype is not dtypes.string:
                    t = math_ops.cast(t, dtypes.int64)
                dense_values.append(_flatten_2d(t))
            else:
                ids = key._get_ids(builder)
                sparse_values.append(ids.ids)
                sparse_masks.append(ids.present)
        dense_masks = [fill(array_ops.shape(t), True) for t in dense_values]
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

    def _transform_feature(self, builder):
        from dflow.ops.creation_ops import one_hot

        ids = self.categorical_column._get_ids(builder).ids
        hot = one_hot(ids, self.categorical_column._num_buckets, on_value=1.0, off_value=0.0)
        return reduction_ops.reduce_sum(hot, axis=[-2])

    def _get_dense_tensor(self, builder, weight_collections=None, trainable=None):
        return builder.get(self)


@tf_export("feature_column.indicator_column")
def indicator_column(categorical_column):
    """The multi-hot ``[batch, num_buckets]`` float32 encoding of a categorical column (a count per id)."""
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: {categorical_column}")
    return _IndicatorColumn(categorical_column)


def _combine_embeddings(params, ids: Tensor, combiner: str) -> Tensor:
    """TF1's ``safe_embedding_lookup_sparse`` on dense ids: negative ids are ignored, rows
    without ids give zeros, ``combiner`` is ``sum``, ``mean`` or ``sqrtn``."""
    from dflow.ops.gather_ops import gather

    zero = convert_to_tensor(0, dtype=dtypes.int64)
    valid = math_ops.greater_equal(ids, zero)
    emb = gather(params, where_v2(valid, ids, zero))
    w = math_ops.cast(valid, dtypes.float32)
    summed = reduction_ops.reduce_sum(emb * array_ops.expand_dims(w, -1), axis=1)
    if combiner == "sum":
        return summed
    count = math_ops.maximum(reduction_ops.reduce_sum(w, axis=1, keepdims=True), 1.0)
    if combiner == "mean":
        return summed / count
    return summed / math_ops.sqrt(count)


_COMBINERS = ("mean", "sqrtn", "sum")


class _EmbeddingColumn(_DenseColumn, collections.namedtuple(
        "EmbeddingColumn", ("categorical_column", "dimension", "combiner", "initializer", "ckpt_to_load_from",
                            "tensor_name_in_ckpt", "max_norm", "trainable"))):
    """See ``embedding_column``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_embedding"

    @property
    def _variable_shape(self) -> TensorShape:
        return TensorShape([self.dimension])

    def _transform_feature(self, builder):
        return self.categorical_column._get_ids(builder)

    def _get_dense_tensor(self, builder, weight_collections=None, trainable=None):
        ids = builder.get(self).ids
        weights = get_variable("embedding_weights", shape=(self.categorical_column._num_buckets, self.dimension),
                               dtype=dtypes.float32, initializer=self.initializer,
                               trainable=bool(self.trainable and trainable is not False),
                               collections=weight_collections)
        if self.ckpt_to_load_from is not None:
            from dflow.train.checkpoint_utils import init_from_checkpoint

            init_from_checkpoint(self.ckpt_to_load_from, {self.tensor_name_in_ckpt: weights})
        return _combine_embeddings(weights, ids, self.combiner)


@tf_export("feature_column.embedding_column")
def embedding_column(categorical_column, dimension, combiner="mean", initializer=None, ckpt_to_load_from=None,
                     tensor_name_in_ckpt=None, max_norm=None, trainable=True):
    """A dense ``[batch, dimension]`` embedding of a categorical column: the rows of
    ``embedding_weights`` (``num_buckets x dimension``, by default truncated normal with
    stddev ``1/sqrt(dimension)``) of a row's ids, combined by ``combiner``."""
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. Embedding of column_name: "
                         f"{categorical_column.name}")
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"categorical_column must be a categorical column, got {categorical_column}")
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}")
    if max_norm is not None:
        raise NotImplementedError("embedding_column(max_norm=...) is not supported by dflow")
    if initializer is None:
        from dflow.ops.init_ops import truncated_normal_initializer

        initializer = truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))
    return _EmbeddingColumn(categorical_column, int(dimension), combiner, initializer, ckpt_to_load_from,
                            tensor_name_in_ckpt, max_norm, trainable)


# The layers that consume columns (``input_layer``, ``linear_model``) are in
# ``layers.py``; imported last, since they build on everything above.
from dflow.feature_column.layers import input_layer, linear_model  # noqa: E402, F401

