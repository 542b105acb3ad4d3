"""Sparse features and sequences: ``tf.sparse.bincount`` (``DenseCountSparseOutput``,
``SparseCountSparseOutput``), ``tf.sparse.cross`` / ``cross_hashed`` (``SparseCrossV2``,
``SparseCross``: TF1's string joins, and its FingerprintCat64 hashing) and
``tf.edit_distance`` (``EditDistance``). None is differentiable, as in TF1.
"""

from __future__ import annotations

import itertools

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import SparseTensor, SparseTensorValue
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, constant_value, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels.strings import as_bytes, fingerprint_cat64
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.math import math_ops
from dflow.ops.math.feature_ops import DEFAULT_HASH_KEY, _entry_hash
from dflow.ops.sparse.sparse_ops import as_sparse, host_shape, rank_of

_M64 = 0xFFFFFFFFFFFFFFFF


# -- DenseCountSparseOutput / SparseCountSparseOutput: tf.sparse.bincount -----------------------------


def _count(batch, values, weights, rows, minlength, maxlength, binary_output, out_dtype):
    if values.size and values.min() < 0:
        raise _invalid("Input values must all be non-negative")
    size = int(values.max()) + 1 if values.size else 0
    if maxlength >= 0:
        keep = values < maxlength
        batch, values = batch[keep], values[keep]
        weights = weights[keep] if weights is not None else None
    if minlength >= 0:
        size = max(size, minlength)
    if maxlength >= 0:
        size = min(size, maxlength)
    key = np.stack([batch, values.astype(np.int64)], axis=1) if rows is not None else values.reshape(-1, 1)
    if key.shape[0] == 0:
        ncol = 2 if rows is not None else 1
        shape = [rows, size] if rows is not None else [size]
        return np.zeros((0, ncol), np.int64), np.zeros(0, out_dtype), np.array(shape, np.int64)
    uniq, inv = np.unique(key, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    if binary_output:
        out = np.ones(uniq.shape[0], out_dtype)
    else:
        out = np.zeros(uniq.shape[0], out_dtype)
        np.add.at(out, inv, np.ones(inv.size, out_dtype) if weights is None else weights.astype(out_dtype))
    shape = [rows, size] if rows is not None else [size]
    return uniq.astype(np.int64), out, np.array(shape, np.int64)


def _dense_count_kernel(values, weights, minlength, maxlength, binary_output, axis):
    w = weights.reshape(-1) if weights.size else None
    if w is not None and weights.shape != values.shape:
        raise _invalid(f"Weights and values must have the same shape. Weight shape: {list(weights.shape)}; "
                       f"values shape: {list(values.shape)}")
    out_dtype = weights.dtype if w is not None else values.dtype
    if values.ndim == 2 and axis == -1:
        batch = np.repeat(np.arange(values.shape[0]), values.shape[1])
        return _count(batch, values.reshape(-1), w, values.shape[0], minlength, maxlength, binary_output, out_dtype)
    flat = values.reshape(-1)
    return _count(np.zeros(flat.size, np.int64), flat, w, None, minlength, maxlength, binary_output, out_dtype)


def _sparse_count_kernel(indices, values, dense_shape, weights, minlength, maxlength, binary_output, axis):
    w = weights if weights.size else None
    out_dtype = weights.dtype if w is not None else values.dtype
    shape = host_shape(dense_shape)
    if axis == -1 and shape.size == 2:
        return _count(indices[:, 0], values, w, int(shape[0]), minlength, maxlength, binary_output, out_dtype)
    return _count(np.zeros(values.size, np.int64), values, w, None, minlength, maxlength, binary_output, out_dtype)


def _count_infer(op):
    values = op._inputs[1] if op.type == "SparseCountSparseOutput" else op._inputs[0]
    weights = op._inputs[-1]
    rank = 2 if op._attrs["axis"] == -1 and (values.shape.ndims == 2 or op.type == "SparseCountSparseOutput"
                                             and rank_of(op._inputs[2]) == 2) else 1
    dt = weights.dtype if weights.shape.num_elements() != 0 else values.dtype
    return [(dtypes.int64, TensorShape([None, rank])), (dt, TensorShape([None])), (dtypes.int64, TensorShape([rank]))]


register("DenseCountSparseOutput", infer=_count_infer, kernel=_dense_count_kernel, gpu=False, foldable=False)
register("SparseCountSparseOutput", infer=_count_infer, kernel=_sparse_count_kernel, gpu=False, foldable=False)
not_differentiable("DenseCountSparseOutput")
not_differentiable("SparseCountSparseOutput")


@tf_export("sparse.bincount")
def sparse_bincount(values, weights=None, axis=0, minlength=None, maxlength=None, binary_output=False,
                    name=None) -> SparseTensor:
    """How often each value occurs (or the sum of its ``weights``), as a SparseTensor: over all of
    ``values`` (``axis=0``) or per row of a matrix (``axis=-1``).

    >>> import dflow as tf
    >>> tf.Session().run(tf.sparse.bincount([1, 2, 2]).values).tolist()
    [1, 2]
    """
    if axis is None:
        axis = 0
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported.")
    attrs = {"minlength": -1 if minlength is None else int(minlength),
             "maxlength": -1 if maxlength is None else int(maxlength),
             "binary_output": bool(binary_output), "axis": int(axis)}
    with name_scope(name, "count", [values, weights]):
        if isinstance(values, (SparseTensor, SparseTensorValue)):
            sp = as_sparse(values, "values")
            w = constant([], sp.dtype) if weights is None else convert_to_tensor(
                weights.values if isinstance(weights, SparseTensor) else weights, name="weights")
            op = apply_op("SparseCountSparseOutput", [sp.indices, sp.values, sp.dense_shape, w], attrs)
        else:
            v = convert_to_tensor(values, name="values")
            if v.dtype not in (dtypes.int32, dtypes.int64):
                raise TypeError(f"Value passed to parameter 'values' has DataType {v.dtype.name} not in list of "
                                f"allowed values: int32, int64")
            w = constant([], v.dtype) if weights is None else convert_to_tensor(weights, name="weights")
            op = apply_op("DenseCountSparseOutput", [v, w], attrs)
    return SparseTensor(*op.outputs)


# -- SparseCross / SparseCrossV2 / SparseCrossHashed -----------------------------------------------------


def _cross_rows(inputs, n_sparse):
    """Per batch row, the list of entries of each input (sparse first, then dense, as TF1 orders them)."""
    columns = []
    batch = None
    for i in range(n_sparse):
        ind, val, shape = inputs[3 * i:3 * i + 3]
        b = int(host_shape(shape)[0])
        rows = [[] for _ in range(b)]
        for r, v in zip(ind[:, 0].tolist(), val.tolist()):
            rows[r].append(v)
        columns.append(rows)
        batch = b if batch is None else batch
        if b != batch:
            raise _invalid(f"Expected batch size {batch} got {b}")
    for dense in inputs[3 * n_sparse:]:
        if dense.ndim != 2:
            raise _invalid(f"Dense inputs should be a matrix but received shape {list(dense.shape)}")
        if batch is not None and dense.shape[0] != batch:
            raise _invalid(f"Expected batch size {batch} got {dense.shape[0]}")
        batch = dense.shape[0]
        columns.append([list(r) for r in dense.tolist()])
    return columns, batch or 0


def _cross_output(columns, batch, combine, dtype):
    ind, vals = [], []
    width = 0
    for r in range(batch):
        combos = list(itertools.product(*[col[r] for col in columns]))
        width = max(width, len(combos))
        for c, combo in enumerate(combos):
            ind.append((r, c))
            vals.append(combine(combo))
    out_ind = np.array(ind, np.int64).reshape(-1, 2)
    out_val = np.array(vals, dtype=dtype) if vals else np.zeros(0, dtype)
    return out_ind, out_val, np.array([batch, width], np.int64)


def _string_of(v) -> bytes:
    return as_bytes(v) if isinstance(v, (bytes, str, np.bytes_)) else str(int(v)).encode()


def _cross_v2_kernel(*inputs, n_sparse, separator):
    columns, batch = _cross_rows(inputs, n_sparse)
    sep = separator.encode() if isinstance(separator, str) else separator
    return _cross_output(columns, batch, lambda combo: sep.join(_string_of(v) for v in combo), object)


def _cross_hashed_kernel(*inputs, n_sparse, num_buckets, hash_key):
    columns, batch = _cross_rows(inputs, n_sparse)

    def combine(combo):
        h = hash_key
        for v in combo:
            h = fingerprint_cat64(h, _entry_hash(v))
        return h % (num_buckets if num_buckets > 0 else (1 << 63) - 1)  # TF1: int64 max without buckets

    return _cross_output(columns, batch, combine, np.int64)


def _cross_infer(out_dtype):
    def infer(op):
        for t in op._inputs:
            if t.dtype not in (dtypes.int64, dtypes.string, dtypes.int32) and t.dtype is not dtypes.int64:
                raise TypeError(f"sparse cross inputs must be int64 or string, got {t.dtype.name}")
        return [(dtypes.int64, TensorShape([None, 2])), (out_dtype, TensorShape([None])),
                (dtypes.int64, TensorShape([2]))]

    return infer


register("SparseCrossV2", infer=_cross_infer(dtypes.string), kernel=_cross_v2_kernel, gpu=False, foldable=False)
register("SparseCross", infer=_cross_infer(dtypes.int64), kernel=_cross_hashed_kernel, gpu=False, foldable=False)
not_differentiable("SparseCrossV2")
not_differentiable("SparseCross")


def _cross_inputs(inputs) -> tuple[list, int]:
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    sparse, dense = [], []
    for x in inputs:
        if isinstance(x, (SparseTensor, SparseTensorValue)):
            sparse.append(as_sparse(x, "inputs"))
        else:
            dense.append(convert_to_tensor(x))
    flat = []
    for s in sparse:
        vals = s.values if s.dtype is not dtypes.int32 else math_ops.cast(s.values, dtypes.int64)
        flat += [s.indices, vals, s.dense_shape]
    flat += [d if d.dtype is not dtypes.int32 else math_ops.cast(d, dtypes.int64) for d in dense]
    return flat, len(sparse)


@tf_export("sparse.cross")
def sparse_cross(inputs, name=None, separator=None) -> SparseTensor:
    """The string cross of the ``[batch, ?]`` inputs (SparseTensors or dense matrices): per row, every
    combination of one entry of each input, joined with ``separator`` (``"_X_"``).

    >>> import dflow as tf
    >>> a = tf.SparseTensor([[0, 0]], ["a"], [1, 1])
    >>> tf.Session().run(tf.sparse.cross([a, [["b", "c"]]]).values).tolist()
    [b'a_X_b', b'a_X_c']
    """
    flat, n = _cross_inputs(inputs)
    with name_scope(name, "SparseCrossV2", flat) as scope:
        op = apply_op("SparseCrossV2", flat, {"n_sparse": n, "separator": "_X_" if separator is None else separator},
                      name=scope)
    return SparseTensor(*op.outputs)


@tf_export("sparse.cross_hashed")
def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None) -> SparseTensor:
    """``sparse.cross`` hashed as TF1 hashes it (FingerprintCat64 from ``hash_key`` over each entry's
    Fingerprint64, or the integer itself), modulo ``num_buckets`` when positive; int64 values.

    >>> import dflow as tf
    >>> a = tf.SparseTensor([[0, 0]], ["a"], [1, 1])
    >>> tf.sparse.cross_hashed([a, [["b"]]], num_buckets=10).values.dtype
    tf.int64
    """
    flat, n = _cross_inputs(inputs)
    with name_scope(name, "SparseCross", flat) as scope:
        op = apply_op("SparseCross", flat, {"n_sparse": n, "num_buckets": int(num_buckets),
                                                  "hash_key": int(DEFAULT_HASH_KEY if hash_key is None else hash_key)
                                                  & _M64}, name=scope)
    return SparseTensor(*op.outputs)


# -- EditDistance --------------------------------------------------------------------------------------


def _edit_infer(op):
    h_shape, t_shape = op._inputs[2], op._inputs[5]
    if op._inputs[1].dtype is not op._inputs[4].dtype:
        raise TypeError(f"Input 'truth_values' of 'EditDistance' Op has type {op._inputs[4].dtype.name} that does "
                        f"not match type {op._inputs[1].dtype.name} of argument 'hypothesis_values'.")
    hv, tv = constant_value(h_shape), constant_value(t_shape)
    if hv is not None and tv is not None and np.size(hv) == np.size(tv):
        return [(dtypes.float32, TensorShape(np.maximum(hv, tv).reshape(-1)[:-1].tolist()))]
    rank = rank_of(h_shape) if rank_of(h_shape) is not None else rank_of(t_shape)
    return [(dtypes.float32, TensorShape(None) if rank is None else TensorShape([None] * (rank - 1)))]


def _levenshtein(a, b) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return prev[-1]


def _sequences(indices, values) -> dict:
    seqs: dict = {}
    for row, v in zip(map(tuple, indices[:, :-1].tolist()), values.tolist()):
        seqs.setdefault(row, []).append(v)
    return seqs


def _edit_kernel(hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices, truth_values, truth_shape,
                 normalize):
    hs, ts = host_shape(hypothesis_shape), host_shape(truth_shape)
    if hs.size != ts.size:
        raise _invalid(f"hypothesis and truth must have the same rank: {hs.size} vs {ts.size}")
    if hypothesis_indices.shape[1] != hs.size or truth_indices.shape[1] != ts.size:
        raise _invalid("indices must have as many columns as the shape has dimensions")
    out_shape = np.maximum(hs, ts)[:-1]
    out = np.zeros(tuple(out_shape.tolist()), np.float32)
    hyp, truth = _sequences(hypothesis_indices, hypothesis_values), _sequences(truth_indices, truth_values)
    for key in set(hyp) | set(truth):
        h, t = hyp.get(key, []), truth.get(key, [])
        d = float(_levenshtein(h, t))
        if normalize:
            d = d / len(t) if t else np.inf
        out[key] = d
    return out


register("EditDistance", infer=_edit_infer, kernel=_edit_kernel, gpu=False, foldable=False)
not_differentiable("EditDistance")


@tf_export("edit_distance")
def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distance between the sequences (last dimension) of two SparseTensors,
    divided by the truth's length when ``normalize``; a float32 tensor of the leading dimensions.

    >>> import dflow as tf
    >>> h = tf.SparseTensor([[0, 0]], ["a"], [1, 1])
    >>> t = tf.SparseTensor([[0, 0], [0, 1]], ["a", "b"], [1, 2])
    >>> tf.Session().run(tf.edit_distance(h, t)).tolist()
    [0.5]
    """
    if not isinstance(hypothesis, (SparseTensor, SparseTensorValue)):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, (SparseTensor, SparseTensorValue)):
        raise TypeError("Truth must be a SparseTensor.")
    h, t = as_sparse(hypothesis, "hypothesis"), as_sparse(truth, "truth")
    return apply_op("EditDistance", [h.indices, h.values, h.dense_shape, t.indices, t.values, t.dense_shape],
                    {"normalize": bool(normalize)}, name=name).outputs[0]
