"""Sparse products: ``tf.sparse.sparse_dense_matmul`` (``SparseTensorDenseMatMul``, with
adjoint flags and TF1's gradient) and ``tf.sparse_matmul`` (``SparseMatMul``: a dense
float32 product whose sparsity flags are only hints).
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import SparseTensor, SparseTensorValue
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array import gather_ops, shape_ops
from dflow.ops.linalg import linalg_ops
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.sparse.sparse_ops import as_sparse, host_shape, index_str

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
    dims = None if known is None else [int(d) for d in np.asarray(known).reshape(-1)]
    rows = None if dims is None or len(dims) != 2 else dims[1 if adj_a else 0]
    inner = None if dims is None or len(dims) != 2 else dims[0 if adj_a else 1]
    b_dims = None if b.shape.ndims is None else b.shape.as_list()
    cols = None if b_dims is None else b_dims[0 if adj_b else 1]
    b_inner = None if b_dims is None else b_dims[1 if adj_b else 0]
    if inner is not None and b_inner is not None and inner != b_inner:
        raise ValueError(f"Dimensions must be equal, but are {inner} and {b_inner}")
    return [(values.dtype, TensorShape([rows, cols]))]


def _spmm_kernel(a_indices, a_values, a_shape, b, adjoint_a, adjoint_b):
    shape = host_shape(a_shape)
    if shape.size != 2 or a_indices.shape[1] != 2:
        raise _invalid(f"Tensor 'a_shape' is not a vector of length 2 (a must be a matrix), got {index_str(shape)}")
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


register("SparseTensorDenseMatMul", infer=_spmm_infer, kernel=_spmm_kernel, gpu=False, foldable=False)


@gradient("SparseTensorDenseMatMul")
def _spmm_grad(op, grad):
    a_indices, a_values, a_shape, b = op._inputs
    adj_a, adj_b = op._attrs["adjoint_a"], op._attrs["adjoint_b"]
    b_grad = apply_op("SparseTensorDenseMatMul", [a_indices, a_values, a_shape, grad],
                      {"adjoint_a": not adj_a, "adjoint_b": False}).outputs[0]
    if adj_b:
        b_grad = shape_ops.transpose(b_grad)
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    parts_a = gather_ops.gather(grad, cols if adj_a else rows)
    parts_b = gather_ops.gather(shape_ops.transpose(b) if adj_b else b, rows if adj_a else cols)
    a_values_grad = reduction_ops.reduce_sum(parts_a * parts_b, axis=1)
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
        return shape_ops.transpose(sparse_tensor_dense_matmul(b, sp_a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a,
                                                              name=name))
    sp = as_sparse(sp_a, "sp_a")
    with name_scope(name, "SparseTensorDenseMatMul", [sp.indices, sp.values, b]):
        b = convert_to_tensor(b, dtype=sp.dtype, name="b")
        return apply_op("SparseTensorDenseMatMul", [sp.indices, sp.values, sp.dense_shape, b],
                        {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b)}).outputs[0]


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


register("SparseMatMul", infer=_sparse_matmul_infer, kernel=_sparse_matmul_kernel, gpu=False, foldable=False)


@gradient("SparseMatMul")
def _sparse_matmul_grad(op, grad):
    a, b = op._inputs
    ta, tb = op._attrs["transpose_a"], op._attrs["transpose_b"]
    if not ta and not tb:
        ga, gb = linalg_ops.matmul(grad, math_ops.cast(b, grad.dtype), transpose_b=True), \
            linalg_ops.matmul(math_ops.cast(a, grad.dtype), grad, transpose_a=True)
    elif not ta and tb:
        ga, gb = linalg_ops.matmul(grad, math_ops.cast(b, grad.dtype)), \
            linalg_ops.matmul(grad, math_ops.cast(a, grad.dtype), transpose_a=True)
    elif ta and not tb:
        ga, gb = linalg_ops.matmul(math_ops.cast(b, grad.dtype), grad, transpose_b=True), \
            linalg_ops.matmul(math_ops.cast(a, grad.dtype), grad)
    else:
        ga, gb = linalg_ops.matmul(math_ops.cast(b, grad.dtype), grad, transpose_a=True, transpose_b=True), \
            linalg_ops.matmul(grad, math_ops.cast(a, grad.dtype), transpose_a=True, transpose_b=True)
    return [math_ops.cast(ga, a.dtype), math_ops.cast(gb, b.dtype)]


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
