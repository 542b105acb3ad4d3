"""Parsing ``tf.train.Example`` and ``SequenceExample`` protos: ``tf.io.parse_example`` and its kin.

A parse is one op, as in TF1: ``ParseExampleV2`` (``ParseExample/ParseExampleV2``)
or ``ParseSequenceExampleV2``, whose attrs hold the feature configs and whose
outputs come in TF's order (the sparse features' indices, values and dense
shapes, then the dense features). Features are taken in sorted key order; a
``SparseFeature`` adds its index and value keys to the sparse ones, and its
merged ``SparseTensor`` is one more triple at the end. A serialized scalar
parses one example: no batch dimension (``parse_single_example``).

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
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.tensor_shape import TensorShape, unknown_shape
from dflow.ops import example_decode as dec
from dflow.ops.constant_op import convert_to_tensor
from dflow.ops.registry import apply_op, not_differentiable, register

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
    """TF's ragged feature config; parsing one raises ``NotImplementedError`` (dflow has no RaggedTensor)."""

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=dtypes.int32, validate=False):
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

    def add_default(self, tensor: Tensor) -> int:
        self.defaults.append(tensor)
        return len(self.defaults) - 1


def _example_plan(features: dict, allowed: tuple, what: str, sequence_context: bool = False) -> _Plan:
    plan = _Plan()
    for key in sorted(features):
        config = features[key]
        if isinstance(config, RaggedFeature):
            raise NotImplementedError(f"{what}: RaggedFeature '{key}' needs a RaggedTensor, which dflow does not "
                                      f"have; use a VarLenFeature (a SparseTensor) instead")
        if not isinstance(config, allowed):
            raise ValueError(f"Unsupported {type(config).__name__} {config!r} for key '{key}'")
        if isinstance(config, VarLenFeature):
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


def _parse_example_kernel(serialized, *inputs, sparse, dense, merges, single, has_names):
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
    return _outputs([t[0] for t in triples] + [t[1] for t in triples] + [t[2] for t in triples] + dense_out
                    + [x for t in merged for x in t])


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


def _parse_example_infer(op):
    a = op._attrs
    single, batch = _batch_dims(op)
    specs = _sparse_specs([d for _, d in a["sparse"]], None if single is None else 1 if single else 2)
    for _, dtype, shape, kind, _ in a["dense"]:
        specs.append((dtype, _out_shape(batch, ([] if kind == "fixed" else [None]) + list(shape))))
    for index_keys, _, dtype, _, _ in a["merges"]:
        rank = None if single is None else len(index_keys) + (0 if single else 1)
        specs += [(dtypes.int64, TensorShape([None, rank])), (dtype, TensorShape([None])),
                  (dtypes.int64, TensorShape([rank]))]
    return specs


register("ParseExampleV2", infer=_parse_example_infer, kernel=_parse_example_kernel, gpu=False)
not_differentiable("ParseExampleV2")


def _serialized(serialized, single: bool) -> Tensor:
    t = convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
    if single and t.shape.ndims not in (None, 0):
        raise ValueError("Input serialized must be a scalar")
    if not single and t.shape.ndims not in (None, 0, 1):
        raise ValueError(f"Input serialized must be a scalar or a vector, got shape {t.shape}")
    return t


def _single(serialized: Tensor):
    """Whether ``serialized`` is one example (a scalar): True, False, or None when its rank is unknown."""
    return None if serialized.shape.ndims is None else serialized.shape.ndims == 0


def _collect(outputs: list, plan: _Plan, n_dense: int) -> dict:
    """The result dict: a Tensor per dense feature, a SparseTensor per sparse one."""
    n_sparse = len(plan.sparse)
    result = {}
    for key, kind, i in plan.outputs:
        if kind == "dense":
            result[key] = outputs[3 * n_sparse + i]
        elif kind == "sparse":
            result[key] = SparseTensor(outputs[i], outputs[n_sparse + i], outputs[2 * n_sparse + i])
        else:
            j = 3 * n_sparse + n_dense + 3 * i
            result[key] = SparseTensor(*outputs[j:j + 3])
    return result


def _parse_example(serialized, features, name, example_names, single: bool) -> dict:
    if not features:
        raise ValueError("Argument `features` cannot be None.")
    with name_scope(name, "ParseExample", [serialized, example_names]):
        plan = _example_plan(features, (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, SparseFeature),
                             "parse_example")
        serialized = _serialized(serialized, single)
        inputs = [serialized]
        if example_names is not None:
            inputs.append(convert_to_tensor(example_names, dtype=dtypes.string, name="names"))
        attrs = {"sparse": tuple(plan.sparse), "dense": tuple(plan.dense), "merges": tuple(plan.merges),
                 "single": _single(serialized), "has_names": example_names is not None}
        op = apply_op("ParseExampleV2", inputs + plan.defaults, attrs, name="ParseExampleV2")
        return _collect(list(op.outputs), plan, len(plan.dense))


@tf_export("io.parse_example", "parse_example")
def parse_example(serialized, features, name=None, example_names=None) -> dict:
    """Parses a batch of serialized ``Example`` protos (a string vector) into a dict of tensors:
    ``[batch] + shape`` per ``FixedLenFeature``, ``[batch, longest] + shape`` per
    ``FixedLenSequenceFeature``, a ``SparseTensor`` per ``VarLenFeature`` / ``SparseFeature``."""
    return _parse_example(serialized, features, name, example_names, single=False)


@tf_export("io.parse_single_example", "parse_single_example")
def parse_single_example(serialized, features, name=None, example_names=None) -> dict:
    """``parse_example`` of one serialized ``Example`` (a scalar): results without the batch dimension."""
    with name_scope(name, "ParseSingleExample", [serialized, example_names]):
        serialized = _serialized(serialized, single=True)
        return _parse_example(serialized, features, None, example_names, single=True)


# -- SequenceExample ------------------------------------------------------------------------------


def _feature_list_dense(steps, key: str, dtype, shape: tuple, allow_missing: bool, name: str, index: int):
    """A ``FixedLenSequenceFeature``'s ``[steps] + shape`` array from one example's feature list."""
    if steps is None:
        if not allow_missing:
            raise dec._bad(f"Name: {name}, Feature list '{key}' is required but could not be found.  Did you mean to "
                           f"include it in feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?")
        steps = []
    size = int(np.prod(shape, dtype=np.int64))
    rows = []
    for feature in steps:
        v = dec.sparse_list(feature, key, dtype, name, index, where=key)
        if v.size != size:
            raise dec._bad(f"Name: {name}, Key: {key}, Index: {index}.  Number of values != expected.  values size: "
                           f"{v.size} but output shape: [{','.join(str(d) for d in shape)}]")
        rows.append(v.reshape(shape))
    np_dtype = object if dtype is dtypes.string else dtype.as_numpy_dtype
    return np.stack(rows).astype(np_dtype) if rows else np.zeros((0, *shape), dtype=np_dtype)


def _context_dense(feature, key: str, dtype, shape: tuple, default, name: str, index: int):
    if feature is None and default is None:  # TF's words for a missing required context feature
        raise dec._bad(f"Inconsistent max number of elements for feature {key}: expected "
                       f"{int(np.prod(shape, dtype=np.int64))}, but found 0")
    return dec.dense_values(feature, key, dtype, shape, default, name, index)


def _parse_sequence_example_kernel(serialized, *inputs, context_sparse, context_dense, list_sparse, list_dense,
                                   single, has_names):
    single = np.ndim(serialized) == 0 if single is None else single
    names = inputs[0] if has_names else None
    defaults = inputs[1:] if has_names else inputs
    recs, labels = _records(serialized, names)
    parsed = []
    for r, label in zip(recs, labels):
        try:
            parsed.append(dec.sequence_example_parts(r))
        except ValueError:
            raise dec._bad(f"Invalid protocol message input, example id: {label}") from None
    out_sparse = []
    for key, dtype in context_sparse:
        lists = [dec.sparse_list(ctx.get(key), key, dtype, labels[b], b) for b, (ctx, _) in enumerate(parsed)]
        t = dec.sparse_components(lists, dtype)
        out_sparse.append(_drop_batch(t) if single else t)
    out_dense = []
    for key, dtype, shape, _, d in context_dense:
        default = None if d < 0 else np.asarray(defaults[d])
        rows = [_context_dense(ctx.get(key), key, dtype, shape, default, labels[b], b)
                for b, (ctx, _) in enumerate(parsed)]
        np_dtype = object if dtype is dtypes.string else dtype.as_numpy_dtype
        out = np.stack(rows).astype(np_dtype) if rows else np.zeros((0, *shape), dtype=np_dtype)
        out_dense.append(out[0] if single else out)
    list_sparse_out = []
    for key, dtype in list_sparse:
        per_example = []
        for b, (_, lists) in enumerate(parsed):
            steps = lists.get(key) or []
            per_example.append([dec.sparse_list(f, key, dtype, labels[b], b, where=key) for f in steps])
        list_sparse_out.append(_step_sparse(per_example, dtype, single))
    list_dense_out, lengths = [], []
    for key, dtype, shape, kind, _ in list_dense:
        rows = [_feature_list_dense(lists.get(key), key, dtype, shape, kind == "seq_missing_ok", labels[b], b)
                for b, (_, lists) in enumerate(parsed)]
        lengths.append(np.array([len(r) for r in rows], dtype=np.int64))
        out = dec.stack_padded(rows, dtype, shape, None)
        list_dense_out.append(out[0] if single else out)
    if single:
        lengths = [x[0] for x in lengths]
    return _outputs([t[0] for t in out_sparse] + [t[1] for t in out_sparse] + [t[2] for t in out_sparse]
                    + out_dense + [t[0] for t in list_sparse_out] + [t[1] for t in list_sparse_out]
                    + [t[2] for t in list_sparse_out] + list_dense_out + lengths)


def _step_sparse(per_example: list, dtype, single: bool) -> tuple:
    """``(indices, values, dense_shape)`` of a VarLen feature list: ``[batch, step, j]`` (``[step, j]`` single)."""
    steps = max((len(e) for e in per_example), default=0)
    width = max((len(v) for e in per_example for v in e), default=0)
    rows, vals = [], []
    for b, example in enumerate(per_example):
        for t, v in enumerate(example):
            rows.extend([b, t, j] for j in range(len(v)))
            vals.extend(v.tolist())
    indices = np.array(rows, dtype=np.int64).reshape(-1, 3)
    values = dec.value_array(vals, dtype)
    shape = np.array([len(per_example), steps, width], dtype=np.int64)
    return (indices[:, 1:], values, shape[1:]) if single else (indices, values, shape)


def _parse_sequence_example_infer(op):
    a = op._attrs
    single, batch = _batch_dims(op)
    specs = _sparse_specs([d for _, d in a["context_sparse"]], None if single is None else 1 if single else 2)
    specs += [(dtype, _out_shape(batch, list(shape))) for _, dtype, shape, _, _ in a["context_dense"]]
    specs += _sparse_specs([d for _, d in a["list_sparse"]], None if single is None else 2 if single else 3)
    specs += [(dtype, _out_shape(batch, [None] + list(shape))) for _, dtype, shape, _, _ in a["list_dense"]]
    specs += [(dtypes.int64, _out_shape(batch, []))] * len(a["list_dense"])
    return specs


register("ParseSequenceExampleV2", infer=_parse_sequence_example_infer, kernel=_parse_sequence_example_kernel,
         gpu=False)
not_differentiable("ParseSequenceExampleV2")


def _parse_sequence_example(serialized, context_features, sequence_features, example_names, single: bool):
    if not context_features and not sequence_features:
        raise ValueError("Both context_features and sequence_features are None, but at least one should have "
                         "values.")
    with name_scope(None, "ParseSequenceExample", [serialized, example_names]):
        context = _example_plan(context_features or {}, (FixedLenFeature, VarLenFeature), "parse_sequence_example")
        lists = _example_plan(sequence_features or {}, (FixedLenSequenceFeature, VarLenFeature),
                              "parse_sequence_example", sequence_context=True)
        serialized = _serialized(serialized, single)
        inputs = [serialized]
        if example_names is not None:
            inputs.append(convert_to_tensor(example_names, dtype=dtypes.string, name="names"))
        attrs = {"context_sparse": tuple(context.sparse), "context_dense": tuple(context.dense),
                 "list_sparse": tuple(lists.sparse), "list_dense": tuple(lists.dense),
                 "single": _single(serialized), "has_names": example_names is not None}
        op = apply_op("ParseSequenceExampleV2", inputs + context.defaults, attrs, name="ParseSequenceExampleV2")
        outputs = list(op.outputs)
        n_context = 3 * len(context.sparse) + len(context.dense)
        n_lists = 3 * len(lists.sparse) + len(lists.dense)
        context_out = _collect(outputs[:n_context], context, len(context.dense))
        lists_out = _collect(outputs[n_context:n_context + n_lists], lists, len(lists.dense))
        lengths = {key: outputs[n_context + n_lists + i] for key, kind, i in lists.outputs if kind == "dense"}
        return context_out, lists_out, lengths


@tf_export("io.parse_sequence_example")
def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None,
                           name=None) -> tuple:
    """Parses a batch of serialized ``SequenceExample`` protos: ``(context, feature_lists, lengths)``.

    Context features are ``FixedLenFeature`` / ``VarLenFeature``; sequence features
    ``FixedLenSequenceFeature`` (``[batch, longest] + shape``, zero-padded, with each
    example's number of steps in ``lengths``) or ``VarLenFeature`` (a SparseTensor
    ``[batch, step, j]``)."""
    with name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        return _parse_sequence_example(serialized, context_features, sequence_features, example_names, single=False)


@tf_export("io.parse_single_sequence_example", "parse_single_sequence_example")
def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None) -> tuple:
    """Parses one serialized ``SequenceExample`` (a scalar): ``(context, feature_lists)``."""
    with name_scope(name, "ParseSingleSequenceExample", [serialized, example_name]):
        context, lists, _ = _parse_sequence_example(serialized, context_features, sequence_features, example_name,
                                                    single=True)
        return context, lists
