"""``tf.sparse`` arithmetic: add, maximum/minimum, reductions, softmax, products, counts,
crosses and ``tf.edit_distance``.

The ops are TF1's (``SparseAdd``, ``SparseReduceSum``, ``SparseTensorDenseMatMul``,
``DenseCountSparseOutput``, ``SparseCrossV2``, ``EditDistance`` ...), taking and
returning the (indices, values, dense_shape) components, with TF1's gradients
where TF1 has them. Inputs are expected in row-major order of their indices,
as TF1's kernels expect (``tf.sparse.reorder`` sorts); outputs are in that
order. See ``sparse_ops`` for the ops that build and rearrange SparseTensors.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

import dflow as tf  # the public ops, used by gradient rules
from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import SparseTensor, SparseTensorValue
from dflow.framework.graph import name_scope
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.constant_op import constant, convert_to_tensor
from dflow.ops.feature_ops import DEFAULT_HASH_KEY, _entry_hash
from dflow.ops.index_args import host
from dflow.ops.registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.ops.sparse_ops import _host_shape, _index_str, as_sparse, lex_order, match_rows, rank_of
from dflow.ops.string_ops import as_bytes, fingerprint_cat64

_M64 = 0xFFFFFFFFFFFFFFFF


def _check_same_shape(a_shape, b_shape) -> np.ndarray:
    a, b = _host_shape(a_shape), _host_shape(b_shape)
    if a.size != b.size:
        raise _invalid(f"Operands do not have the same ranks; got shapes: {_index_str(a)} and {_index_str(b)}")
    bad = np.flatnonzero(a != b)
    if bad.size:
        d = int(bad[0])
        raise _invalid(f"Operands' shapes do not match: got {a[d]} and {b[d]} for dimension {d}")
    return a


def _linear(indices, shape):
    """Row-major positions of ``indices`` in a ``shape`` tensor (the merge key of two sparse operands)."""
    if shape.size == 0:
        return np.zeros(indices.shape[0], np.int64)
    strides = np.concatenate([np.cumprod(shape[::-1])[::-1][1:], [1]]).astype(np.int64)
    return indices @ strides


# -- SparseAdd, SparseAddGrad, SparseTensorDenseAdd -----------------------------------------------------


def _add_infer(op):
    a_ind, a_val, a_shape, b_ind, b_val, b_shape, thresh = op._inputs
    if a_val.dtype is not b_val.dtype:
        raise TypeError(f"Input 'b_values' of 'SparseAdd' Op has type {b_val.dtype.name} that does not match type "
                        f"{a_val.dtype.name} of argument 'a_values'.")
    rank = rank_of(a_shape) if rank_of(a_shape) is not None else rank_of(b_shape)
    return [(dtypes.int64, TensorShape([None, rank])), (a_val.dtype, TensorShape([None])),
            (dtypes.int64, TensorShape([rank]))]


def _add_kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    shape = _check_same_shape(a_shape, b_shape)
    if np.ndim(thresh) != 0:
        raise _invalid(f"The magnitude threshold must be a scalar: got shape {list(np.shape(thresh))}")
    keys = np.concatenate([_linear(a_indices, shape), _linear(b_indices, shape)])
    ind = np.concatenate([a_indices, b_indices]).reshape(-1, shape.size)
    val = np.concatenate([a_values, b_values])
    order = np.argsort(keys, kind="stable")
    keys, ind, val = keys[order], ind[order], val[order]
    if keys.size == 0:
        return ind, val, shape
    first = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    sums = np.add.reduceat(val, first).astype(val.dtype)
    counts = np.diff(np.concatenate([first, [keys.size]]))
    keep = (counts == 1) | (np.abs(sums) >= thresh)
    return ind[first][keep], sums[keep], shape


register("SparseAdd", infer=_add_infer, kernel=_add_kernel, gpu=False)


def _add_grad_kernel(backprop_val_grad, a_indices, b_indices, sum_indices):
    out = []
    for ind in (a_indices, b_indices):
        pos = match_rows(ind, sum_indices)
        g = np.zeros(ind.shape[0], backprop_val_grad.dtype)
        g[pos >= 0] = backprop_val_grad[pos[pos >= 0]]
        out.append(g)
    return tuple(out)


register("SparseAddGrad", infer=lambda op: [(op._inputs[0].dtype, TensorShape([op._inputs[1].shape[0]])),
                                            (op._inputs[0].dtype, TensorShape([op._inputs[2].shape[0]]))],
         kernel=_add_grad_kernel, gpu=False)
not_differentiable("SparseAddGrad")


@gradient("SparseAdd")
def _add_grad(op, _, val_grad, __):
    a_ind, b_ind = op._inputs[0], op._inputs[3]
    a_grad, b_grad = apply_op("SparseAddGrad", [val_grad, a_ind, b_ind, op._outputs[0]]).outputs
    return [None, a_grad, None, None, b_grad, None, None]


def _dense_add_infer(op):
    return [(op._inputs[3].dtype, op._inputs[3].shape)]


def _dense_add_kernel(a_indices, a_values, a_shape, b):
    shape = _host_shape(a_shape)
    if shape.size != b.ndim:
        raise _invalid(f"Dimension mismatch: sparse rank {shape.size} vs dense rank {b.ndim}")
    for d in range(b.ndim):
        if shape[d] != b.shape[d]:
            raise _invalid(f"Dimension {d} does not equal (no broadcasting is supported): sparse side {shape[d]} "
                           f"vs dense side {b.shape[d]}")
    out = np.array(b, copy=True)
    if a_indices.shape[0]:
        bad = np.any((a_indices < 0) | (a_indices >= shape), axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise _invalid(f"Index {_index_str(a_indices[i])} is out of bounds of {_index_str(shape)}")
        np.add.at(out, tuple(a_indices.T), a_values)
    return out


register("SparseTensorDenseAdd", infer=_dense_add_infer, kernel=_dense_add_kernel, gpu=False)


@gradient("SparseTensorDenseAdd")
def _dense_add_grad(op, grad):
    return [None, tf.gather_nd(grad, op._inputs[0]), None, grad]


@tf_export("sparse.add", "sparse_add")
def sparse_add(a, b, threshold=None, thresh=None):
    """``a + b`` with at least one SparseTensor: sparse + sparse is sparse (sums whose magnitude is
    below ``threshold`` dropped), sparse + dense is dense.

    >>> import dflow as tf
    >>> a = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    >>> tf.Session().run(tf.sparse.add(a, tf.ones([2, 2]))).tolist()
    [[2.0, 1.0], [1.0, 1.0]]
    """
    if thresh is not None:
        if threshold is not None:
            raise ValueError("Cannot specify both 'threshold' and 'thresh'")
        threshold = thresh
    threshold = 0 if threshold is None else threshold
    sparse_a = isinstance(a, (SparseTensor, SparseTensorValue))
    sparse_b = isinstance(b, (SparseTensor, SparseTensorValue))
    if not (sparse_a or sparse_b):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if sparse_a and sparse_b:
        a, b = as_sparse(a, "a"), as_sparse(b, "b")
        with name_scope(None, "SparseAdd", [a.indices, a.values, b.indices, b.values, threshold]) as scope:
            t = convert_to_tensor(threshold, dtype=a.values.dtype.real_dtype, name="threshold")
            op = apply_op("SparseAdd", [a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape, t],
                          name=scope)
        out = SparseTensor(*op.outputs)
        out._static_shape = a._static_shape
        return out
    if sparse_b:
        a, b = b, a
    a = as_sparse(a, "a")
    with name_scope(None, "SparseTensorDenseAdd", [a.indices, a.values, b]) as scope:
        b = convert_to_tensor(b, dtype=a.dtype, name="b")
        return apply_op("SparseTensorDenseAdd", [a.indices, a.values, a.dense_shape, b], name=scope).outputs[0]


# -- SparseSparseMaximum, SparseSparseMinimum -----------------------------------------------------------


def _minmax_kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape, kind):
    shape = _check_same_shape(a_shape, b_shape)
    ind = np.concatenate([a_indices, b_indices]).reshape(-1, shape.size)
    if ind.shape[0] == 0:
        return ind, a_values[:0]
    union = np.unique(ind, axis=0)
    union = union[lex_order(union)]
    zero = np.zeros(union.shape[0], a_values.dtype)
    va, vb = zero.copy(), zero.copy()
    pa, pb = match_rows(a_indices, union), match_rows(b_indices, union)
    va[pa] = a_values
    vb[pb] = b_values
    fn = np.maximum if kind == "max" else np.minimum
    return union.astype(np.int64), fn(va, vb)


def _minmax_api(kind: str, op_type: str):
    register(op_type, infer=lambda op: [(dtypes.int64, TensorShape([None, rank_of(op._inputs[2])])),
                                        (op._inputs[1].dtype, TensorShape([None]))],
             kernel=functools.partial(_minmax_kernel, kind=kind), gpu=False)

    @gradient(op_type)
    def _grad(op, *grads):
        raise NotImplementedError(f"Gradient for {op_type} is not implemented.")

    def fn(sp_a, sp_b, name=None):
        a, b = as_sparse(sp_a, "sp_a"), as_sparse(sp_b, "sp_b")
        with name_scope(name, op_type, [a.indices, a.values, b.indices, b.values]) as scope:
            op = apply_op(op_type, [a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape],
                          name=scope)
        return SparseTensor(op.outputs[0], op.outputs[1], a.dense_shape)

    fn.__name__ = f"sparse_{kind}imum"
    fn.__doc__ = (f"The element-wise {kind}imum of two SparseTensors of one shape (a missing entry counts as 0).\n\n"
                  f"    >>> import dflow as tf\n"
                  f"    >>> a = tf.SparseTensor([[0]], [-1.0], [2])\n"
                  f"    >>> tf.sparse.{kind}imum(a, tf.SparseTensor([[1]], [2.0], [2])).shape\n"
                  f"    TensorShape([2])\n")
    return tf_export(f"sparse.{kind}imum", f"sparse_{kind}imum")(fn)


sparse_maximum = _minmax_api("max", "SparseSparseMaximum")
sparse_minimum = _minmax_api("min", "SparseSparseMinimum")


# -- SparseReduceSum / Max (dense and sparse outputs) ---------------------------------------------------


def _axes(axes, rank: int) -> list:
    out = []
    for a in np.asarray(axes).reshape(-1).tolist():
        if not -rank <= a < rank:
            raise _invalid(f"Invalid reduction dimension {a}, for input with {rank} dimensions.")
        out.append(a + rank if a < 0 else a)
    return sorted(set(out))


def _reduce_groups(indices, values, shape, reduction_axes, keep_dims, kind):
    """``(group index rows (reduced dims 0 with keep_dims), group values, output shape)``."""
    shape = _host_shape(shape)
    axes = _axes(host(reduction_axes), shape.size)
    kept = [d for d in range(shape.size) if d not in axes]
    out_shape = np.array([1 if d in axes else shape[d] for d in range(shape.size)] if keep_dims else shape[kept],
                         np.int64)
    key = indices[:, kept]
    if indices.shape[0] == 0:
        return np.zeros((0, out_shape.size), np.int64), values[:0], out_shape
    groups, inv = np.unique(key, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    if kind == "sum":
        red = np.zeros(groups.shape[0], values.dtype)
        np.add.at(red, inv, values)
    else:
        info = np.finfo(values.dtype) if values.dtype.kind == "f" else np.iinfo(values.dtype)
        red = np.full(groups.shape[0], info.min, values.dtype)
        np.maximum.at(red, inv, values)
    if keep_dims:
        rows = np.zeros((groups.shape[0], shape.size), np.int64)
        rows[:, kept] = groups
    else:
        rows = groups.astype(np.int64)
    return rows, red, out_shape


def _reduce_dense_kernel(input_indices, input_values, input_shape, reduction_axes, keep_dims, kind):
    rows, red, out_shape = _reduce_groups(input_indices, input_values, input_shape, reduction_axes, keep_dims, kind)
    out = np.zeros(tuple(out_shape.tolist()), input_values.dtype)
    if rows.shape[0]:
        if rows.shape[1]:
            out[tuple(rows.T)] = red
        else:
            out[...] = red[0]
    return out


def _reduce_sparse_kernel(input_indices, input_values, input_shape, reduction_axes, keep_dims, kind):
    return _reduce_groups(input_indices, input_values, input_shape, reduction_axes, keep_dims, kind)


def _reduced_static(op) -> TensorShape:
    _, values, shape, axes = op._inputs
    keep = op._attrs["keep_dims"]
    shape_v, axes_v, rank = constant_value(shape), constant_value(axes), rank_of(shape)
    if rank is None or axes_v is None:
        return TensorShape(None)
    try:
        red = _axes(axes_v, rank)
    except Exception as e:  # noqa: BLE001 - reported as TF1 reports it, at graph time
        raise ValueError(str(getattr(e, "message", e))) from None
    dims = [None] * rank if shape_v is None else [int(d) for d in np.asarray(shape_v).reshape(-1)]
    if keep:
        return TensorShape([1 if d in red else dims[d] for d in range(rank)])
    return TensorShape([dims[d] for d in range(rank) if d not in red])


def _reduce_dense_infer(op):
    return [(op._inputs[1].dtype, _reduced_static(op))]


def _reduce_sparse_infer(op):
    s = _reduced_static(op)
    r = s.ndims
    return [(dtypes.int64, TensorShape([None, r])), (op._inputs[1].dtype, TensorShape([None])),
            (dtypes.int64, TensorShape([r]))]


def _reduce_sum_grad_kernel(indices, shape, reduction_axes, grad):
    shape = _host_shape(shape)
    axes = _axes(host(reduction_axes), shape.size)
    kept_shape = tuple(1 if d in axes else int(shape[d]) for d in range(shape.size))
    g = grad.reshape(kept_shape)
    idx = indices.copy()
    idx[:, axes] = 0
    return g[tuple(idx.T)] if idx.shape[0] else g.reshape(-1)[:0]


register("SparseReduceSumGrad", infer=lambda op: [(op._inputs[3].dtype, TensorShape([op._inputs[0].shape[0]]))],
         kernel=_reduce_sum_grad_kernel, gpu=False)
not_differentiable("SparseReduceSumGrad")

for _type, _kind in (("SparseReduceSum", "sum"), ("SparseReduceMax", "max")):
    register(_type, infer=_reduce_dense_infer, kernel=functools.partial(_reduce_dense_kernel, kind=_kind), gpu=False)
    register(_type + "Sparse", infer=_reduce_sparse_infer, kernel=functools.partial(_reduce_sparse_kernel, kind=_kind),
             gpu=False)
not_differentiable("SparseReduceSumSparse")


@gradient("SparseReduceSum")
def _reduce_sum_grad(op, grad):
    indices, _, shape, axes = op._inputs
    return [None, apply_op("SparseReduceSumGrad", [indices, shape, axes, grad]).outputs[0], None, None]


def _reduce_api(op_type: str, sparse_output: bool, doc: str):
    def fn(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
        if reduction_axes is not None:
            if axis is not None:
                raise ValueError("Cannot specify both 'axis' and 'reduction_axes'")
            axis = reduction_axes
        if keep_dims is not None:
            if keepdims is not None:
                raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
            keepdims = keep_dims
        sp = as_sparse(sp_input)
        with name_scope(None, op_type, [sp.indices, sp.values]) as scope:
            if axis is None:
                rank = rank_of(sp.dense_shape)
                axes = constant(np.arange(rank, dtype=np.int32), name="reduction_axes") if rank is not None \
                    else tf.range(0, tf.shape(sp.dense_shape)[0])
            else:
                axes = convert_to_tensor(axis, dtype=dtypes.int32, name="reduction_axes")
            op = apply_op(op_type, [sp.indices, sp.values, sp.dense_shape, axes], {"keep_dims": bool(keepdims)},
                          name=scope)
        return SparseTensor(*op.outputs) if sparse_output else op.outputs[0]

    fn.__doc__ = doc
    return fn


sparse_reduce_sum = tf_export("sparse.reduce_sum", "sparse_reduce_sum")(_reduce_api(
    "SparseReduceSum", False, """The sum of ``sp_input``'s entries over ``axis`` (all by default), a dense tensor.

    >>> import dflow as tf
    >>> st = tf.SparseTensor([[0, 0], [0, 2], [1, 1]], [1.0, 2.0, 3.0], [2, 3])
    >>> tf.Session().run(tf.sparse.reduce_sum(st, 1)).tolist()
    [3.0, 3.0]
    """))
sparse_reduce_sum_sparse = tf_export("sparse.reduce_sum_sparse", "sparse_reduce_sum_sparse")(_reduce_api(
    "SparseReduceSumSparse", True, """``sparse.reduce_sum`` as a SparseTensor (only the sums of present entries)."""))
sparse_reduce_max = tf_export("sparse.reduce_max", "sparse_reduce_max")(_reduce_api(
    "SparseReduceMax", False, """The max of ``sp_input``'s present entries over ``axis``, a dense tensor
    (0 where no entry is present).

    >>> import dflow as tf
    >>> st = tf.SparseTensor([[0, 0], [0, 2]], [-1.0, -2.0], [2, 3])
    >>> tf.Session().run(tf.sparse.reduce_max(st, 1)).tolist()
    [-1.0, 0.0]
    """))
sparse_reduce_max_sparse = tf_export("sparse.reduce_max_sparse", "sparse_reduce_max_sparse")(_reduce_api(
    "SparseReduceMaxSparse", True, """``sparse.reduce_max`` as a SparseTensor (only the maxima of present entries)."""))


# -- SparseSoftmax -------------------------------------------------------------------------------------


def _softmax_groups(indices):
    _, inv = np.unique(indices[:, :-1], axis=0, return_inverse=True)
    return inv.reshape(-1)


def _softmax_kernel(sp_indices, sp_values, sp_shape):
    if sp_indices.shape[1] < 2:
        raise _invalid(f"Input should have rank >= 2, but received shape: {_index_str(_host_shape(sp_shape))}")
    if sp_values.size == 0:
        return sp_values.copy()
    g = _softmax_groups(sp_indices)
    n = g.max() + 1
    mx = np.full(n, -np.inf, sp_values.dtype)
    np.maximum.at(mx, g, sp_values)
    e = np.exp(sp_values - mx[g])
    total = np.zeros(n, sp_values.dtype)
    np.add.at(total, g, e)
    return (e / total[g]).astype(sp_values.dtype)


def _softmax_grad_kernel(sp_indices, out_values, grad):
    if grad.size == 0:
        return grad.copy()
    g = _softmax_groups(sp_indices)
    dot = np.zeros(g.max() + 1, grad.dtype)
    np.add.at(dot, g, out_values * grad)
    return (out_values * (grad - dot[g])).astype(grad.dtype)


register("SparseSoftmax", infer=lambda op: [(op._inputs[1].dtype, TensorShape([op._inputs[1].shape[0]]))],
         kernel=_softmax_kernel, gpu=False)
register("SparseSoftmaxGrad", infer=lambda op: [(op._inputs[2].dtype, op._inputs[2].shape)],
         kernel=_softmax_grad_kernel, gpu=False)
not_differentiable("SparseSoftmaxGrad")


@gradient("SparseSoftmax")
def _softmax_grad(op, grad):
    return [None, apply_op("SparseSoftmaxGrad", [op._inputs[0], op._outputs[0], grad]).outputs[0], None]


@tf_export("sparse.softmax", "sparse_softmax")
def sparse_softmax(sp_input, name=None) -> SparseTensor:
    """Softmax over the present entries of each innermost row (rank >= 2), as a SparseTensor.

    >>> import dflow as tf
    >>> st = tf.sparse.softmax(tf.SparseTensor([[0, 0], [0, 3]], [1.0, 1.0], [1, 4]))
    >>> tf.Session().run(st.values).tolist()
    [0.5, 0.5]
    """
    sp = as_sparse(sp_input)
    if not sp.dtype.is_floating:
        raise TypeError(f"Value passed to parameter 'sp_values' has DataType {sp.dtype.name} not in list of "
                        f"allowed values: float16, float32, float64")
    with name_scope(name, "SparseSoftmax", [sp.indices, sp.values]) as scope:
        out = apply_op("SparseSoftmax", [sp.indices, sp.values, sp.dense_shape], name=scope).outputs[0]
    st = SparseTensor(sp.indices, out, sp.dense_shape)
    st._static_shape = sp._static_shape
    return st


# -- SparseTensorDenseMatMul ---------------------------------------------------------------------------


def _spmm_infer(op):
    _, values, shape, b = op._inputs
    adj_a, adj_b = op._attrs["adjoint_a"], op._attrs["adjoint_b"]
    if values.dtype is not b.dtype:
        raise TypeError(f"Input 'b' of 'SparseTensorDenseMatMul' Op has type {b.dtype.name} that does not match "
                        f"type {values.dtype.name} of argument 'a_values'.")
    known = constant_value(shape)
    if b.shape.ndims is not None and b.shape.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {b.shape.ndims}")
    rows = None if known is None else int(np.asarray(known).reshape(-1)[0 if not adj_a else 1])
    cols = None if b.shape.ndims is None else b.shape.as_list()[0 if adj_b else 1]
    return [(values.dtype, TensorShape([rows, cols]))]


def _spmm_kernel(a_indices, a_values, a_shape, b, adjoint_a, adjoint_b):
    shape = _host_shape(a_shape)
    if shape.size != 2 or a_indices.shape[1] != 2:
        raise _invalid(f"Tensor 'a_shape' is not a vector of length 2 (a must be a matrix), got {_index_str(shape)}")
    if b.ndim != 2:
        raise _invalid(f"Tensor 'b' is not a matrix, got shape {list(b.shape)}")
    rows_i, cols_i = (1, 0) if adjoint_a else (0, 1)
    out_rows, inner = int(shape[rows_i]), int(shape[cols_i])
    bb = b.conj().T if adjoint_b else b
    if bb.shape[0] != inner:
        raise _invalid(f"Cannot multiply A and B because inner dimension does not match: {inner} vs. "
                       f"{bb.shape[0]}.  Did you forget a transpose?  Dimensions of A: [{shape[0]}, {shape[1]}).  "
                       f"Dimensions of B: {list(b.shape)}")
    r, k = a_indices[:, rows_i], a_indices[:, cols_i]
    for name, v, lim, col in (("i", r, out_rows, rows_i), ("k", k, inner, cols_i)):
        bad = np.flatnonzero((v < 0) | (v >= lim))
        if bad.size:
            i = int(bad[0])
            raise _invalid(f"{name} ({v[i]}) from index[{i},{col}] out of bounds (>={lim})")
    vals = a_values.conj() if adjoint_a else a_values
    out = np.zeros((out_rows, bb.shape[1]), np.result_type(a_values, b))
    np.add.at(out, r, vals[:, None] * bb[k])
    return out


register("SparseTensorDenseMatMul", infer=_spmm_infer, kernel=_spmm_kernel, gpu=False)


@gradient("SparseTensorDenseMatMul")
def _spmm_grad(op, grad):
    a_indices, a_values, a_shape, b = op._inputs
    adj_a, adj_b = op._attrs["adjoint_a"], op._attrs["adjoint_b"]
    b_grad = apply_op("SparseTensorDenseMatMul", [a_indices, a_values, a_shape, grad],
                      {"adjoint_a": not adj_a, "adjoint_b": False}).outputs[0]
    if adj_b:
        b_grad = tf.transpose(b_grad)
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    parts_a = tf.gather(grad, cols if adj_a else rows)
    parts_b = tf.gather(tf.transpose(b) if adj_b else b, rows if adj_a else cols)
    a_values_grad = tf.reduce_sum(parts_a * parts_b, axis=1)
    return [None, a_values_grad, None, b_grad]


@tf_export("sparse.sparse_dense_matmul", "sparse.matmul", "sparse_tensor_dense_matmul")
def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """The dense product ``op(sp_a) @ op(b)`` of a rank-2 SparseTensor and a matrix (``op``: adjoint
    when asked); with ``sp_a`` dense and ``b`` sparse, ``op(sp_a) @ op(b)`` too.

    >>> import dflow as tf
    >>> a = tf.SparseTensor([[0, 1]], [2.0], [2, 2])
    >>> tf.Session().run(tf.sparse.sparse_dense_matmul(a, [[1.0], [3.0]])).tolist()
    [[6.0], [0.0]]
    """
    if isinstance(b, (SparseTensor, SparseTensorValue)) and not isinstance(sp_a, (SparseTensor, SparseTensorValue)):
        # A @ B = (B' @ A')'
        return tf.transpose(sparse_tensor_dense_matmul(b, sp_a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a,
                                                       name=name))
    sp = as_sparse(sp_a, "sp_a")
    with name_scope(name, "SparseTensorDenseMatMul", [sp.indices, sp.values, b]) as scope:
        b = convert_to_tensor(b, dtype=sp.dtype, name="b")
        return apply_op("SparseTensorDenseMatMul", [sp.indices, sp.values, sp.dense_shape, b],
                        {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b)}, name=scope).outputs[0]


# -- SparseMatMul: a dense matmul with sparsity hints ---------------------------------------------------


def _sparse_matmul_infer(op):
    a, b = op._inputs
    for t, arg in ((a, "a"), (b, "b")):
        if t.dtype is not dtypes.float32:  # TF1 also takes bfloat16, which dflow lacks
            raise TypeError(f"Value passed to parameter '{arg}' has DataType {t.dtype.name} not in list of allowed "
                            f"values: float32, bfloat16")
    ta, tb = op._attrs["transpose_a"], op._attrs["transpose_b"]
    sa, sb = a.shape.with_rank(2) if a.shape.ndims is not None else TensorShape([None, None]), \
        b.shape.with_rank(2) if b.shape.ndims is not None else TensorShape([None, None])
    m, k1 = (sa[1], sa[0]) if ta else (sa[0], sa[1])
    k2, n = (sb[1], sb[0]) if tb else (sb[0], sb[1])
    k1.assert_is_compatible_with(k2)
    return [(dtypes.float32, TensorShape([m, n]))]


def _sparse_matmul_kernel(a, b, transpose_a, transpose_b, a_is_sparse, b_is_sparse):
    del a_is_sparse, b_is_sparse  # hints for TF's kernel choice; the product is the same
    x = a.T if transpose_a else a
    y = b.T if transpose_b else b
    if x.shape[1] != y.shape[0]:
        raise _invalid(f"Matrix size-incompatible: In[0]: {list(a.shape)}, In[1]: {list(b.shape)}")
    return (x.astype(np.float32) @ y.astype(np.float32)).astype(np.float32)


register("SparseMatMul", infer=_sparse_matmul_infer, kernel=_sparse_matmul_kernel, gpu=False)


@gradient("SparseMatMul")
def _sparse_matmul_grad(op, grad):
    a, b = op._inputs
    ta, tb = op._attrs["transpose_a"], op._attrs["transpose_b"]
    if not ta and not tb:
        ga, gb = tf.matmul(grad, tf.cast(b, grad.dtype), transpose_b=True), \
            tf.matmul(tf.cast(a, grad.dtype), grad, transpose_a=True)
    elif not ta and tb:
        ga, gb = tf.matmul(grad, tf.cast(b, grad.dtype)), tf.matmul(grad, tf.cast(a, grad.dtype), transpose_a=True)
    elif ta and not tb:
        ga, gb = tf.matmul(tf.cast(b, grad.dtype), grad, transpose_b=True), tf.matmul(tf.cast(a, grad.dtype), grad)
    else:
        ga, gb = tf.matmul(tf.cast(b, grad.dtype), grad, transpose_a=True, transpose_b=True), \
            tf.matmul(grad, tf.cast(a, grad.dtype), transpose_a=True, transpose_b=True)
    return [tf.cast(ga, a.dtype), tf.cast(gb, b.dtype)]


@tf_export("sparse_matmul")
def sparse_matmul(a, b, transpose_a=False, transpose_b=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """``a @ b`` of dense float32 (or bfloat16) matrices, float32; the ``*_is_sparse`` flags are hints.

    >>> import dflow as tf
    >>> tf.sparse_matmul(tf.ones([2, 3]), tf.ones([3, 4]), a_is_sparse=True).shape
    TensorShape([2, 4])
    """
    with name_scope(name, "SparseMatMul", [a, b]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        return apply_op("SparseMatMul", [a, b], {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b),
                                                 "a_is_sparse": bool(a_is_sparse), "b_is_sparse": bool(b_is_sparse)},
                        name=scope).outputs[0]


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
    shape = _host_shape(dense_shape)
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


register("DenseCountSparseOutput", infer=_count_infer, kernel=_dense_count_kernel, gpu=False)
register("SparseCountSparseOutput", infer=_count_infer, kernel=_sparse_count_kernel, gpu=False)
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
        b = int(_host_shape(shape)[0])
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


register("SparseCrossV2", infer=_cross_infer(dtypes.string), kernel=_cross_v2_kernel, gpu=False)
register("SparseCrossHashed", infer=_cross_infer(dtypes.int64), kernel=_cross_hashed_kernel, gpu=False)
not_differentiable("SparseCrossV2")
not_differentiable("SparseCrossHashed")


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
        vals = s.values if s.dtype is not dtypes.int32 else tf.cast(s.values, dtypes.int64)
        flat += [s.indices, vals, s.dense_shape]
    flat += [d if d.dtype is not dtypes.int32 else tf.cast(d, dtypes.int64) for d in dense]
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
    with name_scope(name, "SparseCrossHashed", flat) as scope:
        op = apply_op("SparseCrossHashed", flat, {"n_sparse": n, "num_buckets": int(num_buckets),
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
    hs, ts = _host_shape(hypothesis_shape), _host_shape(truth_shape)
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


register("EditDistance", infer=_edit_infer, kernel=_edit_kernel, gpu=False)
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
