"""Parsing ``tf.train.Example`` and ``SequenceExample`` protos: ``tf.io.parse_example`` and its kin.

A parse is one op, as in TF1: ``ParseExampleV2`` (``ParseExample/ParseExampleV2``)
or ``ParseSequenceExampleV2``, whose attrs hold the feature configs and whose
outputs come in TF's order (the sparse features' indices, values and dense
shapes, then the dense features, then the ragged keys' values and row splits).
Features are taken in sorted key order; a ``SparseFeature`` adds its index and
value keys to the sparse ones, and its merged ``SparseTensor`` is one more
triple at the end. A ``RaggedFeature`` adds its value key and partition keys to
the ragged ones; its ``RaggedTensor`` is then built from them with ragged ops,
as TF's Python layer does (``example_parsing_ragged.py``). A serialized scalar
parses one example: no batch dimension (``parse_single_example``). The
SequenceExample parsers are in ``sequence_example_parsing.py``.

>>> import dflow as tf
>>> ex = tf.train.Example()
>>> ex.features.feature["age"].int64_list.value.append(7)
>>> out = tf.io.parse_single_example(ex.SerializeToString(), {"age": tf.io.FixedLenFeature([], tf.int64)})
>>> with tf.Session() as sess:
...     int(sess.run(out["age"]))
7
"""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import SparseTensor
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, unknown_shape
from dflow.ops.io import example_decode as dec

_ALLOWED = (dtypes.float32, dtypes.int64, dtypes.string)


# -- feature configs -------------------------------------------------------------------------


@tf_export("io.FixedLenFeature", "FixedLenFeature")
class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of fixed ``shape`` per example; ``default_value`` (or an error) when it is missing."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


@tf_export("io.FixedLenSequenceFeature", "FixedLenSequenceFeature")
class FixedLenSequenceFeature(collections.namedtuple("FixedLenSequenceFeature",
                                                     ["shape", "dtype", "allow_missing", "default_value"])):
    """A feature of any number of rows of ``shape``: padded to the longest in ``parse_example`` (with
    ``default_value`` or zeros), one row per step in a ``SequenceExample``'s feature list."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


@tf_export("io.VarLenFeature", "VarLenFeature")
class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of any number of values, parsed to a ``SparseTensor``."""


@tf_export("io.SparseFeature", "SparseFeature")
class SparseFeature(collections.namedtuple("SparseFeature",
                                           ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A ``SparseTensor`` of dense shape ``size`` from an index feature (or several) and a value feature."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


@tf_export("io.RaggedFeature")
class RaggedFeature(collections.namedtuple("RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype",
                                                             "validate"])):
    """A feature parsed to a ``RaggedTensor``: the ``value_key`` feature's values split by ``partitions``.

    ``value_key`` defaults to the feature's own key. ``partitions`` (outermost
    first) are ``RaggedFeature.RowSplits(key)``, ``RowLengths(key)``,
    ``RowStarts(key)``, ``RowLimits(key)``, ``ValueRowIds(key)`` (each read from
    the int64 feature ``key`` of the example) or ``UniformRowLength(length)``.
    One example parses to a tensor of rank ``len(partitions) + 1`` (a plain
    Tensor when there are no partitions); a batch adds the batch as the
    outermost ragged dimension. ``row_splits_dtype`` is int32 or int64;
    ``validate`` adds TF's checks that the partitions fit the values.
    """

    RowSplits = collections.namedtuple("RowSplits", ["key"])
    RowLengths = collections.namedtuple("RowLengths", ["key"])
    RowStarts = collections.namedtuple("RowStarts", ["key"])
    RowLimits = collections.namedtuple("RowLimits", ["key"])
    ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])
    UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])

    _PARTITION_TYPES = (RowSplits, RowLengths, RowStarts, RowLimits, ValueRowIds, UniformRowLength)

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=dtypes.int32, validate=False):
        if value_key is not None:
            if not isinstance(value_key, str):
                raise ValueError(f"Argument `value_key` must be a string; got {value_key}")
            if not value_key:
                raise ValueError("Argument `value_key` must not be empty")
        dtype = dtypes.as_dtype(dtype)
        if dtype not in _ALLOWED:
            raise ValueError(f"Argument `dtype` must be int64, float32, or bytes; got {dtype!r}")
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if row_splits_dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"Argument `row_splits_dtype` must be int32 or int64; got{row_splits_dtype!r}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"Argument `partitions` must be a list or tuple. Received partitions={partitions} of "
                            f"type {type(partitions).__name__}.")
        for partition in partitions:
            if not isinstance(partition, cls._PARTITION_TYPES):
                raise TypeError(f"Argument `partitions` must be a list of partition objects {cls._PARTITION_TYPES}; "
                                f"got: {partition!r}")
        if not isinstance(validate, bool):
            raise TypeError(f"Argument `validate` must be a bool; got {validate!r}")
        return super().__new__(cls, dtype, value_key, partitions, row_splits_dtype, validate)


def _dtype(dtype, parameter: str):
    d = dtypes.as_dtype(dtype)
    if d not in _ALLOWED:
        raise TypeError(f"Value passed to parameter '{parameter}' has DataType {d.name} not in list of allowed "
                        f"values: float32, int64, string")
    return d


def _shape(config, key: str) -> tuple:
    if config.shape is None:
        raise ValueError(f"Missing shape for feature {key}. Received feature={config!r}.")
    shape = TensorShape(config.shape)
    if not shape.is_fully_defined():
        raise ValueError(f"All dimensions of shape for feature {key} need to be known but received {shape}.")
    return tuple(shape.as_list())


def _default_tensor(value, dtype, shape: tuple, key: str) -> Tensor:
    if isinstance(value, Tensor):
        return value
    arr = np.asarray(value, dtype=object if dtype is dtypes.string else dtype.as_numpy_dtype)
    if arr.size != int(np.prod(shape, dtype=np.int64)):
        raise ValueError(f"Cannot reshape a tensor with {arr.size} elements to shape "
                         f"[{','.join(str(d) for d in shape)}] ({int(np.prod(shape, dtype=np.int64))} elements) "
                         f"for default_value of feature {key}")
    return convert_to_tensor(arr.reshape(shape), dtype=dtype, name=f"key_{key}")


class _Plan:
    """The op's configuration: sparse keys, dense keys (with default inputs) and SparseFeature merges."""

    def __init__(self):
        self.sparse: list = []  # (key, dtype)
        self.dense: list = []  # (key, dtype, shape, kind, default input index or -1)
        self.merges: list = []  # (index keys, value key, dtype, size, already_sorted)
        self.ragged: list = []  # (key, value dtype, row splits dtype)
        self.defaults: list = []
        self.outputs: list = []  # (feature name, "dense" | "sparse" | "merge", position)

    def add_sparse(self, key: str, dtype) -> int:
        for i, (k, d) in enumerate(self.sparse):
            if k == key:
                if d is not dtype:
                    raise ValueError(f"Conflicting type for feature {key}: {d.name} vs {dtype.name}")
                return i
        self.sparse.append((key, dtype))
        return len(self.sparse) - 1

    def add_ragged(self, key: str, dtype, splits_dtype) -> None:
        """TF's ``_add_ragged_key``: a ragged key once, with one value dtype and one row-splits dtype."""
        for k, d, sd in self.ragged:
            if k == key:
                if d is not dtype:
                    raise ValueError(f"Conflicting type {_dtype_str(d)} vs {_dtype_str(dtype)} for feature {key}.")
                if sd is not splits_dtype:
                    raise ValueError(f"Conflicting partition type {_dtype_str(sd)} vs {_dtype_str(splits_dtype)} for "
                                     f"feature {key}.")
                return
        self.ragged.append((key, dtype, splits_dtype))

    def check_ragged_keys(self) -> None:
        """TF's ``_validate``: ragged keys may not also be dense or sparse keys."""
        ragged = [k for k, _, _ in self.ragged]
        dense = [k for k, *_ in self.dense]
        sparse = [k for k, _ in self.sparse]
        if set(dense) & set(ragged):
            # TF builds this message as a tuple of two strings (a bug in TF), and str() shows the tuple.
            raise ValueError("Dense and ragged keys must not intersect; dense_keys: ",
                             f"{dense}, ragged_keys: {ragged}, intersection: {set(dense) & set(ragged)}")
        if set(ragged) & set(sparse):
            raise ValueError(f"Ragged and sparse keys must not intersect; ragged_keys: {ragged}, sparse_keys: "
                             f"{sparse}, intersection: {set(ragged) & set(sparse)}")

    def add_default(self, tensor: Tensor) -> int:
        self.defaults.append(tensor)
        return len(self.defaults) - 1


def _dtype_str(dtype) -> str:
    """TF's ``str(dtype)``: ``<dtype: 'int64'>``."""
    return f"<dtype: '{dtype.name}'>"


def _example_plan(features: dict, allowed: tuple, sequence_context: bool = False) -> _Plan:
    plan = _Plan()
    for key in sorted(features):
        config = features[key]
        if not isinstance(config, allowed):
            raise ValueError(f"Unsupported {type(config).__name__} {config!r} for key '{key}'")
        if isinstance(config, RaggedFeature):
            plan.add_ragged(key if config.value_key is None else config.value_key, config.dtype,
                            config.row_splits_dtype)
            for partition in config.partitions:
                if not isinstance(partition, RaggedFeature.UniformRowLength):
                    plan.add_ragged(partition.key, dtypes.int64, config.row_splits_dtype)
        elif isinstance(config, VarLenFeature):
            plan.outputs.append((key, "sparse", plan.add_sparse(key, _dtype(config.dtype, "sparse_types"))))
        elif isinstance(config, SparseFeature):
            dtype = _dtype(config.dtype, "sparse_types")
            index_keys = [config.index_key] if isinstance(config.index_key, str) else list(config.index_key)
            size = [config.size] if isinstance(config.size, int) else [int(s) for s in config.size]
            if len(size) != len(index_keys):
                raise ValueError(f"SparseFeature {key}: size has {len(size)} entries but there are "
                                 f"{len(index_keys)} index keys")
            for k in index_keys:
                plan.add_sparse(k, dtypes.int64)
            plan.add_sparse(config.value_key, dtype)
            plan.merges.append((tuple(index_keys), config.value_key, dtype, tuple(size), bool(config.already_sorted)))
            plan.outputs.append((key, "merge", len(plan.merges) - 1))
        else:
            dtype = _dtype(config.dtype, "dense_defaults")
            shape = _shape(config, key)
            seq = isinstance(config, FixedLenSequenceFeature)
            if seq and not sequence_context and not config.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
            default = -1
            if config.default_value is not None:
                if sequence_context:
                    raise ValueError(f"Value feature_list.dense_defaults[{key}] must be None")
                default = plan.add_default(_default_tensor(config.default_value, dtype, () if seq else shape, key))
            kind = ("seq_missing_ok" if config.allow_missing else "seq") if seq else "fixed"
            plan.dense.append((key, dtype, shape, kind, default))
            plan.outputs.append((key, "dense", len(plan.dense) - 1))
    plan.check_ragged_keys()
    return plan


# -- the ops ----------------------------------------------------------------------------------------


def _records(serialized, names) -> tuple:
    recs = np.asarray(serialized, dtype=object).reshape(-1)
    recs = [r if isinstance(r, bytes) else str(r).encode() for r in recs.tolist()]
    if names is None or np.asarray(names).size == 0:
        labels = ["<unknown>"] * len(recs)
    else:
        labels = [n.decode() if isinstance(n, bytes) else str(n) for n in np.asarray(names, dtype=object).ravel()]
    return recs, labels


def _drop_batch(triple: tuple) -> tuple:
    indices, values, shape = triple
    return indices[:, 1:], values, shape[1:]


def _merge(parsed_sparse: dict, merge: tuple, batch: int) -> tuple:
    index_keys, value_key, dtype, size, already_sorted = merge
    rows, vals = [], []
    n_values = sum(len(v) for v in parsed_sparse[value_key])
    for k in index_keys:
        n_indices = sum(len(i) for i in parsed_sparse[k])
        if n_indices != n_values:
            raise dec._bad(f"Number of elements in indices ({n_indices}) and values ({n_values}) do not match")
    for b in range(batch):
        idx = [parsed_sparse[k][b] for k in index_keys]
        v = parsed_sparse[value_key][b]
        for k, i in zip(index_keys, idx):
            if len(i) != len(v):
                raise dec._bad(f"SparseFeature: the index feature {k} has {len(i)} values but the value feature "
                               f"{value_key} has {len(v)} in example {b}")
        rows.extend([b, *cols] for cols in zip(*idx))
        vals.extend(v.tolist())
    indices = np.array(rows, dtype=np.int64).reshape(-1, 1 + len(index_keys))
    values = dec.value_array(vals, dtype)
    if not already_sorted and len(indices):
        order = np.lexsort(indices.T[::-1])
        indices, values = indices[order], values[order]
    return indices, values, np.array([batch, *size], dtype=np.int64)


def _ragged_list(feature, key: str, dtype, name: str, index: int, single: bool) -> np.ndarray:
    """A ragged key's values in one example (empty when missing), with TF's type-mismatch messages."""
    if feature is not None and feature[0] is not dtype and single:
        raise dec._bad(f"Key: {key}.  Data types don't match. Expected type: {dec.TYPE_NAMES[dtype]}, Actual type: "
                       f"{dec.TYPE_NAMES[feature[0]]}")
    return dec.sparse_list(feature, key, dtype, name, index)


def _concat(lists: list, dtype) -> np.ndarray:
    """The values of several lists, one after another, as one 1-D array of ``dtype``."""
    if dtype is dtypes.string or not lists:
        return dec.value_array([x for v in lists for x in v], dtype)
    return np.concatenate(lists).astype(dtype.as_numpy_dtype)


def _splits(lengths, splits_dtype) -> np.ndarray:
    """Row splits ``[0, cumsum(lengths)]`` of ``splits_dtype``."""
    return np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(splits_dtype.as_numpy_dtype)


def _ragged_outputs(per_example: list, ragged, labels: list, single: bool) -> tuple:
    """``(values, row splits)`` per ragged key: the examples' values concatenated, split per example
    (one example: its values, and empty row splits, as TF's kernel)."""
    values, splits = [], []
    for key, dtype, splits_dtype in ragged:
        lists = [_ragged_list(feats.get(key), key, dtype, labels[b], b, single) for b, feats in enumerate(per_example)]
        values.append(_concat(lists, dtype))
        splits.append(np.zeros(0, splits_dtype.as_numpy_dtype) if single
                      else _splits([len(v) for v in lists], splits_dtype))
    return values, splits


def _parse_example_kernel(serialized, *inputs, sparse, dense, merges, ragged, single, has_names):
    single = np.ndim(serialized) == 0 if single is None else single
    names = inputs[0] if has_names else None
    defaults = inputs[1:] if has_names else inputs
    recs, labels = _records(serialized, names)
    parsed = []
    for r in recs:
        try:
            parsed.append(dec.example_features(r))
        except ValueError:
            raise dec._bad(f"Could not parse example input, value: '{r.decode('utf-8', errors='replace')}'") from None
    batch = len(recs)
    sparse_lists = {key: [dec.sparse_list(p.get(key), key, dtype, labels[b], b) for b, p in enumerate(parsed)]
                    for key, dtype in sparse}
    triples = [dec.sparse_components(sparse_lists[key], dtype) for key, dtype in sparse]
    merged = [_merge(sparse_lists, m, batch) for m in merges]
    if single:
        triples = [_drop_batch(t) for t in triples]
        merged = [_drop_batch(t) for t in merged]
    dense_out = []
    for key, dtype, shape, kind, d in dense:
        default = None if d < 0 else np.asarray(defaults[d])
        if kind == "fixed":
            rows = [dec.dense_values(p.get(key), key, dtype, shape, default, labels[b], b)
                    for b, p in enumerate(parsed)]
            np_dtype = object if dtype is dtypes.string else dtype.as_numpy_dtype
            out = np.stack(rows).astype(np_dtype) if rows else np.zeros((0, *shape), dtype=np_dtype)
        else:
            rows = [dec.sequence_rows(p.get(key), key, dtype, shape, labels[b], b) for b, p in enumerate(parsed)]
            out = dec.stack_padded(rows, dtype, shape, None if default is None else default.item())
        dense_out.append(out[0] if single else out)
    ragged_values, ragged_splits = _ragged_outputs(parsed, ragged, labels, single)
    return _outputs([t[0] for t in triples] + [t[1] for t in triples] + [t[2] for t in triples] + dense_out
                    + ragged_values + ragged_splits + [x for t in merged for x in t])


def _outputs(values: list):
    """A kernel's result: the one output, or a tuple of several."""
    return values[0] if len(values) == 1 else tuple(values)


def _batch_dims(op) -> tuple:
    """(single, the leading dims of per-example outputs: [] or [batch], None if unknown)."""
    serialized = op.inputs[0].shape
    single = op._attrs["single"]
    if single is None:  # serialized of unknown rank: a scalar or a batch
        return None, None
    return single, [] if single else [serialized[0]]


def _out_shape(batch, dims: list) -> TensorShape:
    return unknown_shape() if batch is None else TensorShape(batch + dims)


def _sparse_specs(dtypes_list, rank) -> list:
    return ([(dtypes.int64, TensorShape([None, rank]))] * len(dtypes_list) + [(d, TensorShape([None]))
            for d in dtypes_list] + [(dtypes.int64, TensorShape([rank]))] * len(dtypes_list))


def _ragged_specs(ragged, single, batch) -> list:
    """Ragged values ``[None]``; row splits ``[batch + 1]`` (``[None]`` for one example or an unknown batch)."""
    rows = None if single or batch is None else getattr(batch[0], "value", batch[0])
    n = None if rows is None else rows + 1
    return [(d, TensorShape([None])) for _, d, _ in ragged] + [(sd, TensorShape([n])) for _, _, sd in ragged]


def _parse_example_infer(op):
    a = op._attrs
    single, batch = _batch_dims(op)
    specs = _sparse_specs([d for _, d in a["sparse"]], None if single is None else 1 if single else 2)
    for _, dtype, shape, kind, _ in a["dense"]:
        specs.append((dtype, _out_shape(batch, ([] if kind == "fixed" else [None]) + list(shape))))
    specs += _ragged_specs(a["ragged"], single, batch)
    for index_keys, _, dtype, _, _ in a["merges"]:
        rank = None if single is None else len(index_keys) + (0 if single else 1)
        specs += [(dtypes.int64, TensorShape([None, rank])), (dtype, TensorShape([None])),
                  (dtypes.int64, TensorShape([rank]))]
    return specs


# Not folded: TF's Python layer never knows parsed values statically, so RaggedFeature's validate checks (and any
# other assertion on parsed values) fail at run time, as in TF, even for a constant serialized input.
register("ParseExampleV2", infer=_parse_example_infer, kernel=_parse_example_kernel, gpu=False, foldable=False)
not_differentiable("ParseExampleV2")


def _serialized(serialized, single: bool) -> Tensor:
    t = convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
    if single and t.shape.ndims not in (None, 0):
        raise ValueError("Input serialized must be a scalar")
    if not single and t.shape.ndims not in (None, 0, 1):
        raise ValueError(f"Input serialized must be a scalar or a vector, got shape {t.shape}")
    return t


def _assert_scalar(serialized, name: str = "serialized") -> Tensor:
    """TF's ``_assert_scalar``: a scalar as it is; a tensor of unknown rank behind a run-time check, then taken as a
    scalar; any other rank a ValueError."""
    from dflow.ops.array import array_ops
    from dflow.ops.control_flow.control_flow_ops import with_dependencies
    from dflow.ops.debugging.logging_ops import Assert
    from dflow.ops.math import math_ops

    value = convert_to_tensor(serialized, dtype=dtypes.string, name=name)
    if value.shape.ndims is None:
        check = Assert(math_ops.equal(array_ops.rank(value), 0), [f"Input {name} must be a scalar"],
                       name=f"{name.capitalize()}IsScalar")
        value = with_dependencies([check], value, name=f"{name}Dependencies")
        value.set_shape([])
        return value
    if value.shape.ndims != 0:
        raise ValueError(f"Input {name} must be a scalar")
    return value


def _single(serialized: Tensor):
    """Whether ``serialized`` is one example (a scalar): True, False, or None when its rank is unknown."""
    return None if serialized.shape.ndims is None else serialized.shape.ndims == 0


def _collect(outputs: list, plan: _Plan, ragged_after_dense: bool = True) -> tuple:
    """The op's outputs as ``(result, ragged)``: ``result`` maps each dense feature to a Tensor and each sparse one
    to a SparseTensor; ``ragged`` maps each ragged key to its ``(values, row splits)`` outputs when they follow the
    dense ones (a feature list's ragged outputs come last, after the lengths: the caller takes them)."""
    n_sparse, n_dense = len(plan.sparse), len(plan.dense)
    n_ragged = len(plan.ragged) if ragged_after_dense else 0
    result = {}
    for key, kind, i in plan.outputs:
        if kind == "dense":
            result[key] = outputs[3 * n_sparse + i]
        elif kind == "sparse":
            result[key] = SparseTensor(outputs[i], outputs[n_sparse + i], outputs[2 * n_sparse + i])
        else:
            j = 3 * n_sparse + n_dense + 2 * n_ragged + 3 * i
            result[key] = SparseTensor(*outputs[j:j + 3])
    start = 3 * n_sparse + n_dense
    ragged = {key: (outputs[start + i], outputs[start + n_ragged + i])
              for i, (key, _, _) in enumerate(plan.ragged[:n_ragged])}
    return result, ragged


def _check_ragged_rank(plans, serialized: Tensor) -> None:
    if any(p.ragged for p in plans) and serialized.shape.ndims is None:
        raise ValueError("serialized must have statically-known rank to parse ragged features.")


def _parse_example(serialized, features, name, example_names, single: bool) -> dict:
    if not features:
        raise ValueError("Argument `features` cannot be None.")
    with name_scope(name, "ParseExample", [serialized, example_names]):
        plan = _example_plan(features, (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, SparseFeature,
                                        RaggedFeature))
        serialized = _serialized(serialized, single)
        _check_ragged_rank([plan], serialized)
        inputs = [serialized]
        if example_names is not None:
            inputs.append(convert_to_tensor(example_names, dtype=dtypes.string, name="names"))
        attrs = {"sparse": tuple(plan.sparse), "dense": tuple(plan.dense), "merges": tuple(plan.merges),
                 "ragged": tuple(plan.ragged), "single": _single(serialized), "has_names": example_names is not None}
        op = apply_op("ParseExampleV2", inputs + plan.defaults, attrs, name="ParseExampleV2")
        result, ragged = _collect(list(op.outputs), plan)
        ragged = _build_ragged(ragged, batched=serialized.shape.ndims != 0)
    result.update(_ragged_features(features, ragged))
    return result


@tf_export("io.parse_example", "parse_example")
def parse_example(serialized, features, name=None, example_names=None) -> dict:
    """Parses a batch of serialized ``Example`` protos (a string vector) into a dict of tensors:
    ``[batch] + shape`` per ``FixedLenFeature``, ``[batch, longest] + shape`` per
    ``FixedLenSequenceFeature``, a ``SparseTensor`` per ``VarLenFeature`` / ``SparseFeature``,
    a ``RaggedTensor`` ``[batch, (values)]`` per ``RaggedFeature`` (then its partitions)."""
    return _parse_example(serialized, features, name, example_names, single=False)


@tf_export("io.parse_single_example", "parse_single_example")
def parse_single_example(serialized, features, name=None, example_names=None) -> dict:
    """``parse_example`` of one serialized ``Example`` (a scalar): results without the batch dimension."""
    with name_scope(name, "ParseSingleExample", [serialized, example_names]):
        serialized = _assert_scalar(serialized)
        return _parse_example(serialized, features, None, example_names, single=True)


# The Python layer of RaggedFeature results, and the SequenceExample parsers (which use this module's helpers).
from dflow.ops.io import sequence_example_parsing as _sequence  # noqa: E402, F401 - registers its op and names
from dflow.ops.io.example_parsing_ragged import _build_ragged, _ragged_features  # noqa: E402
