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
Hash buckets use FarmHash ``Fingerprint64`` (``dflow.ops.strings.string_ops``), so a
string lands in the same bucket as in TF1.
"""

from __future__ import annotations

import collections
import math

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.array import array_ops
from dflow.ops.array.select_ops import where_v2
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.math.feature_ops import bucketize
from dflow.ops.state.variable_scope import get_variable

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
    from dflow.ops.sparse.sparse_ops import sparse_to_dense

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
        from dflow.ops.array.creation_ops import one_hot

        return one_hot(math_ops.cast(builder.get(self), dtypes.int64), len(self.boundaries) + 1, on_value=1.0,
                       off_value=0.0)

    def _get_ids(self, builder) -> _Ids:
        from dflow.ops.array.creation_ops import range as tf_range

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
        from dflow.ops.array.creation_ops import one_hot

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
    from dflow.ops.array.gather_ops import gather

    zero = convert_to_tensor(0, dtype=dtypes.int64)
    valid = math_ops.greater_equal(ids.ids, zero)
    emb = gather(params, where_v2(valid, ids.ids, zero))
    if max_norm is not None:  # each row read is clipped to L2 norm max_norm, as embedding_lookup does
        from dflow.ops.math.clip_ops import clip_by_norm

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
    from dflow.ops.array.creation_ops import range as tf_range

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
            from dflow.train.checkpoints.checkpoint_utils import init_from_checkpoint

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
        from dflow.ops.state.init_ops import truncated_normal_initializer

        initializer = truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))
    return initializer


# The categorical, sequence, weighted and shared-embedding columns live in modules of their own; their names
# stay reachable here (embedding and indicator columns refuse sequence columns by class).
# The layers that consume columns (``input_layer``, ``linear_model``) are in
# ``layers.py``; imported last, since they build on everything above.
from dflow.feature_column.categorical_columns import (  # noqa: E402, F401
    _CrossedColumn,
    _dtype_compatible,
    _HashedCategoricalColumn,
    _IdentityCategoricalColumn,
    _leaf_keys,
    _VocabularyListCategoricalColumn,
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_list,
    crossed_column,
)
from dflow.feature_column.layers import input_layer, linear_model  # noqa: E402, F401
from dflow.feature_column.sequence_columns import (  # noqa: E402, F401
    _reject_sequence,
    _SequenceCategoricalColumn,
    _SequenceNumericColumn,
    sequence_categorical_column_with_hash_bucket,
    sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list,
    sequence_numeric_column,
)
from dflow.feature_column.weighted_shared_columns import (  # noqa: E402, F401
    _base_type,
    _SharedEmbeddingColumn,
    _WeightedCategoricalColumn,
    shared_embedding_columns,
    weighted_categorical_column,
)
