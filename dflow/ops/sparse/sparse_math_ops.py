"""``tf.sparse`` arithmetic: add, maximum/minimum, reductions and softmax.

The ops are TF1's (``SparseAdd``, ``SparseSparseMaximum``, ``SparseReduceSum``,
``SparseSoftmax`` ...), taking and returning the (indices, values, dense_shape)
components, with TF1's gradients where TF1 has them. Inputs are expected in
row-major order of their indices, as TF1's kernels expect
(``tf.sparse.reorder`` sorts); outputs are in that order. Products are in
``sparse_matmul_ops``; counts, crosses and ``edit_distance`` in
``sparse_feature_ops``; the ops that build and rearrange SparseTensors in
``sparse_ops``.
"""

from __future__ import annotations

import functools

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.composite import SparseTensor, SparseTensorValue
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array import creation_ops, gather_ops, shape_ops
from dflow.ops.array.index_args import host
from dflow.ops.sparse.sparse_ops import as_sparse, host_shape, index_str, lex_order, match_rows, rank_of


def _check_same_shape(a_shape, b_shape) -> np.ndarray:
    a, b = host_shape(a_shape), host_shape(b_shape)
    if a.size != b.size:
        raise _invalid(f"Operands do not have the same ranks; got shapes: {index_str(a)} and {index_str(b)}")
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


register("SparseAdd", infer=_add_infer, kernel=_add_kernel, gpu=False, foldable=False)


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
         kernel=_add_grad_kernel, gpu=False, foldable=False)
not_differentiable("SparseAddGrad")


@gradient("SparseAdd")
def _add_grad(op, _, val_grad, __):
    a_ind, b_ind = op._inputs[0], op._inputs[3]
    a_grad, b_grad = apply_op("SparseAddGrad", [val_grad, a_ind, b_ind, op._outputs[0]]).outputs
    return [None, a_grad, None, None, b_grad, None, None]


def _dense_add_infer(op):
    return [(op._inputs[3].dtype, op._inputs[3].shape)]


def _dense_add_kernel(a_indices, a_values, a_shape, b):
    shape = host_shape(a_shape)
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
            raise _invalid(f"Index {index_str(a_indices[i])} is out of bounds of {index_str(shape)}")
        np.add.at(out, tuple(a_indices.T), a_values)
    return out


register("SparseTensorDenseAdd", infer=_dense_add_infer, kernel=_dense_add_kernel, gpu=False, foldable=False)


@gradient("SparseTensorDenseAdd")
def _dense_add_grad(op, grad):
    return [None, gather_ops.gather_nd(grad, op._inputs[0]), None, grad]


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
        a.shape.merge_with(b.shape)  # a static mismatch is TF1's graph-time ValueError
        with name_scope(None, "SparseAdd", [a.indices, a.values, b.indices, b.values, threshold]) as scope:
            t = convert_to_tensor(threshold, dtype=a.values.dtype.real_dtype, name="threshold")
            op = apply_op("SparseAdd", [a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape, t],
                          name=scope)
        static = a.shape.merge_with(b.shape)
        # TF1 gives the result a constant dense shape when both static shapes are known.
        return SparseTensor(op.outputs[0], op.outputs[1],
                            static.as_list() if static.is_fully_defined() else op.outputs[2])
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
             kernel=functools.partial(_minmax_kernel, kind=kind), gpu=False, foldable=False)

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
    shape = host_shape(shape)
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
    except errors.InvalidArgumentError:
        return TensorShape(None)  # TF1 reports a bad axis when the op runs
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
    shape = host_shape(shape)
    axes = _axes(host(reduction_axes), shape.size)
    kept_shape = tuple(1 if d in axes else int(shape[d]) for d in range(shape.size))
    g = grad.reshape(kept_shape)
    idx = indices.copy()
    idx[:, axes] = 0
    return g[tuple(idx.T)] if idx.shape[0] else g.reshape(-1)[:0]


register("SparseReduceSumGrad", infer=lambda op: [(op._inputs[3].dtype, TensorShape([op._inputs[0].shape[0]]))],
         kernel=_reduce_sum_grad_kernel, gpu=False, foldable=False)
not_differentiable("SparseReduceSumGrad")

for _type, _kind in (("SparseReduceSum", "sum"), ("SparseReduceMax", "max")):
    register(_type, infer=_reduce_dense_infer, kernel=functools.partial(_reduce_dense_kernel, kind=_kind), gpu=False,
             foldable=False)
    register(_type + "Sparse", infer=_reduce_sparse_infer, kernel=functools.partial(_reduce_sparse_kernel, kind=_kind),
             gpu=False, foldable=False)
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
                    else creation_ops.range(0, shape_ops.shape(sp.dense_shape)[0])
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
        raise _invalid(f"Input should have rank >= 2, but received shape: {index_str(host_shape(sp_shape))}")
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
         kernel=_softmax_kernel, gpu=False, foldable=False)
register("SparseSoftmaxGrad", infer=lambda op: [(op._inputs[2].dtype, op._inputs[2].shape)],
         kernel=_softmax_grad_kernel, gpu=False, foldable=False)
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
    with name_scope(name, "SparseSoftmax", [sp.indices, sp.values]):
        out = apply_op("SparseSoftmax", [sp.indices, sp.values, sp.dense_shape]).outputs[0]
    st = SparseTensor(sp.indices, out, sp.dense_shape)
    st._static_shape = sp._static_shape
    return st


# -- SparseDenseCwiseMul / Div: ``sp * dense`` and ``sp / dense`` -------------------------------------


def _dense_positions(x_indices, x_shape, y):
    """For each sparse entry, its index into ``y`` broadcast to the sparse tensor's shape."""
    shape = host_shape(x_shape)
    added = shape.size - y.ndim
    if added < 0 or any(d != 1 and d != s for d, s in zip(y.shape, shape[added:])):
        raise _invalid(f"SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: "
                       f"[{','.join(map(str, shape))}] vs. {list(y.shape)}")
    cols = x_indices[:, added:]
    return tuple(np.where(np.array(y.shape) == 1, 0, cols).T) if cols.shape[0] else \
        tuple(np.zeros((y.ndim, 0), np.int64))


def _cwise_kernel(x_indices, x_values, x_shape, y, kind):
    dense = y[_dense_positions(x_indices, x_shape, y)] if y.ndim else np.full(x_values.shape, y)
    return (x_values * dense if kind == "mul" else x_values / dense).astype(x_values.dtype)


def _cwise_grad_kernel(x_indices, x_values, x_shape, y, grad, kind):
    pos = _dense_positions(x_indices, x_shape, y)
    dense = y[pos] if y.ndim else np.full(x_values.shape, y)
    if kind == "mul":
        dx, dy_val = grad * dense, grad * x_values
    else:
        dx, dy_val = grad / dense, grad * (-x_values / (dense * dense))
    dy = np.zeros_like(y)
    if y.ndim:
        np.add.at(dy, pos, dy_val)
    else:
        dy = np.asarray(dy_val.sum(), y.dtype)
    return dx.astype(x_values.dtype), dy.astype(y.dtype)


register("SparseDenseCwiseGrad", infer=lambda op: [(op._inputs[1].dtype, op._inputs[1].shape),
                                                   (op._inputs[3].dtype, op._inputs[3].shape)],
         kernel=_cwise_grad_kernel, gpu=False, foldable=False)
not_differentiable("SparseDenseCwiseGrad")


def _cwise_api(kind: str, op_type: str):
    register(op_type, infer=lambda op: [(op._inputs[1].dtype, TensorShape([op._inputs[1].shape[0]]))],
             kernel=functools.partial(_cwise_kernel, kind=kind), gpu=False, foldable=False)

    @gradient(op_type)
    def _grad(op, grad):
        x_indices, x_values, x_shape, y = op._inputs
        dx, dy = apply_op("SparseDenseCwiseGrad", [x_indices, x_values, x_shape, y, grad], {"kind": kind}).outputs
        return [None, dx, None, dy]

    def fn(sp_x, y):
        sp = as_sparse(sp_x, "sp_x")
        with name_scope(None, kind, [sp.indices, sp.values, y]) as scope:
            y = convert_to_tensor(y, dtype=sp.dtype, name="y")
            out = apply_op(op_type, [sp.indices, sp.values, sp.dense_shape, y], name=scope).outputs[0]
        st = SparseTensor(sp.indices, out, sp.dense_shape)
        st._static_shape = sp._static_shape
        return st

    return fn


# TF1's SparseTensor operators: ``sp * dense``, ``sp / dense`` (the dense side broadcast to the sparse shape).
SparseTensor.__mul__ = _cwise_api("mul", "SparseDenseCwiseMul")
SparseTensor.__truediv__ = SparseTensor.__div__ = _cwise_api("truediv", "SparseDenseCwiseDiv")
