"""Inverses, determinants and solves of (batches of) matrices: ``matrix_inverse``,
``det``, ``slogdet``, ``logdet``, ``solve``, ``triangular_solve``,
``cholesky_solve`` and ``lstsq``.

All work on batches of matrices ``[..., M, N]``. Kernels call
``numpy.linalg`` (or ``cupy.linalg``) and report what TF1 reports: a singular
matrix or a failed Cholesky factorisation is an ``InvalidArgumentError`` when
the op runs. CuPy does not detect singular matrices, so on a GPU those give
inf/nan instead. Gradient rules are TF1's (``linalg_grad.py``), built from
these ops and ``matmul``.
"""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape, broadcast_shapes, unknown_shape
from dflow.kernels import array_module
from dflow.ops.array import array_ops, tiling_ops
from dflow.ops.linalg import linalg_ops
from dflow.ops.linalg._linalg_common import (
    CHOLESKY_FAILED,
    INEXACT,
    adjoint_value,
    batch_shape,
    cast,
    check_dtype,
    check_square,
    convert_same_type,
    invalid,
    lapack_ready,
    merge_batch,
    merge_dim,
    op_scope,
    square_dims,
    square_infer,
    static_dims,
    unary_matrix_op,
)
from dflow.ops.math import math_ops

LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


# -- MatrixInverse ---------------------------------------------------------------------


def _inverse_kernel(x, adjoint):
    check_square(x)
    try:
        out = array_module(x).linalg.inv(lapack_ready(adjoint_value(x) if adjoint else x))
    except np.linalg.LinAlgError:
        raise invalid("Input is not invertible.") from None
    return cast(out, x.dtype)


register("MatrixInverse", infer=square_infer, kernel=_inverse_kernel)


@gradient("MatrixInverse")
def _inverse_grad(op, grad):
    ainv = op.outputs[0]
    adj = op.get_attr("adjoint")
    return [-linalg_ops.matmul(ainv, linalg_ops.matmul(grad, ainv, adjoint_a=adj, adjoint_b=not adj),
                               adjoint_a=not adj)]


@tf_export("matrix_inverse", "linalg.inv")
def matrix_inverse(input, adjoint=False, name=None) -> Tensor:  # noqa: A002 - TF1 argument name
    """The inverse of each innermost square matrix (of its adjoint if ``adjoint``).

    A singular matrix is an ``InvalidArgumentError`` when the op runs.

    >>> import dflow as tf
    >>> tf.linalg.inv(tf.placeholder(tf.float64, [None, 3, 3])).shape
    TensorShape([None, 3, 3])
    """
    return unary_matrix_op("MatrixInverse", input, name, attrs={"adjoint": bool(adjoint)}).outputs[0]


# -- determinants ----------------------------------------------------------------------


def _determinant_infer(op):
    x = op._inputs[0]
    return [(x.dtype, batch_shape(x))]


def _determinant_kernel(x):
    check_square(x)
    return cast(array_module(x).linalg.det(lapack_ready(x)), x.dtype)


register("MatrixDeterminant", infer=_determinant_infer, kernel=_determinant_kernel)


def _per_matrix(t: Tensor) -> Tensor:
    """A batch of scalars as a batch of 1x1 matrices, to scale a batch of matrices."""
    return array_ops.expand_dims(array_ops.expand_dims(t, -1), -1)


@gradient("MatrixDeterminant")
def _determinant_grad(op, grad):
    return [_per_matrix(grad * op.outputs[0]) * matrix_inverse(op.inputs[0], adjoint=True)]


@tf_export("matrix_determinant", "linalg.det")
def matrix_determinant(input, name=None) -> Tensor:  # noqa: A002 - TF1 argument name
    """The determinant of each innermost square matrix."""
    return unary_matrix_op("MatrixDeterminant", input, name).outputs[0]


def _slogdet_infer(op):
    x = op._inputs[0]
    batch = batch_shape(x)
    return [(x.dtype, batch), (x.dtype, batch)]


def _slogdet_kernel(x):
    check_square(x)
    sign, log_abs = array_module(x).linalg.slogdet(lapack_ready(x))
    return cast(sign, x.dtype), cast(log_abs, x.dtype)


register("LogMatrixDeterminant", infer=_slogdet_infer, kernel=_slogdet_kernel)


@gradient("LogMatrixDeterminant")
def _slogdet_grad(op, grad_sign, grad_log_abs):
    return [_per_matrix(grad_log_abs) * matrix_inverse(op.inputs[0], adjoint=True)]


@tf_export("linalg.slogdet")
def slogdet(input, name=None) -> LogMatrixDeterminant:  # noqa: A002 - TF1 argument name
    """``(sign, log_abs_determinant)`` of each innermost square matrix: the
    determinant is ``sign * exp(log_abs_determinant)``, without overflow."""
    op = unary_matrix_op("LogMatrixDeterminant", input, name)
    return LogMatrixDeterminant(*op.outputs)


def _logdet_infer(op):
    x = op._inputs[0]
    return [(x.dtype.real_dtype, batch_shape(x))]


def _logdet_kernel(x):
    check_square(x)
    xp = array_module(x)
    try:
        chol = xp.linalg.cholesky(lapack_ready(x))
    except np.linalg.LinAlgError:
        raise invalid(CHOLESKY_FAILED) from None
    diagonal = xp.diagonal(chol, axis1=-2, axis2=-1).real
    return cast(xp.asarray(2.0 * xp.sum(xp.log(diagonal), axis=-1)), x.dtype.type(0).real.dtype)


register("LogDet", infer=_logdet_infer, kernel=_logdet_kernel)


@gradient("LogDet")
def _logdet_grad(op, grad):
    # TF1's logdet is 2 * sum(log(diag(cholesky(x)))): through Cholesky's gradient
    # that is (L Lᴴ)⁻¹, the inverse of the matrix the lower triangle describes.
    x = op.inputs[0]
    chol = apply_op("Cholesky", [x]).outputs[0]
    inverse = matrix_inverse(linalg_ops.matmul(chol, chol, adjoint_b=True))
    if grad.dtype != x.dtype:
        grad = math_ops.cast(grad, x.dtype)
    return [_per_matrix(grad) * inverse]


@tf_export("linalg.logdet")
def logdet(matrix, name=None) -> Tensor:
    """The log-determinant of each Hermitian positive definite matrix (through
    its Cholesky factor, as TF1; other matrices fail when the op runs)."""
    with op_scope(name, "logdet", [matrix]):
        x = convert_to_tensor(matrix, name="matrix")
        check_dtype(x, INEXACT, "input")
        return apply_op("LogDet", [x], name="mul").outputs[0]


# -- MatrixSolve -----------------------------------------------------------------------


def _solve_infer(op):
    matrix, rhs = op._inputs
    m, r = square_dims(matrix), static_dims(rhs)
    if r is None:
        return [(matrix.dtype, unknown_shape() if m is None else TensorShape(m[:-1] + [None]))]
    if m is None:
        return [(matrix.dtype, TensorShape(r))]
    n = merge_dim(m[-1], r[-2])
    return [(matrix.dtype, TensorShape(merge_batch(m[:-2], r[:-2]) + [n, r[-1]]))]


def _solve_kernel(matrix, rhs, adjoint):
    check_square(matrix)
    if rhs.ndim != matrix.ndim or rhs.shape[:-2] != matrix.shape[:-2] or rhs.shape[-2] != matrix.shape[-1]:
        raise invalid("Input matrix and rhs are incompatible.")
    a = adjoint_value(matrix) if adjoint else matrix
    try:
        out = array_module(matrix).linalg.solve(lapack_ready(a), lapack_ready(rhs))
    except np.linalg.LinAlgError:
        raise invalid("Input matrix is not invertible.") from None
    return cast(out, matrix.dtype)


register("MatrixSolve", infer=_solve_infer, kernel=_solve_kernel)


@gradient("MatrixSolve")
def _solve_grad(op, grad):
    a, c = op.inputs[0], op.outputs[0]
    adj = op.get_attr("adjoint")
    grad_b = matrix_solve(a, grad, adjoint=not adj)
    grad_a = linalg_ops.matmul(c, grad_b, adjoint_b=True) if adj else linalg_ops.matmul(grad_b, c, adjoint_b=True)
    return [-grad_a, grad_b]


@tf_export("matrix_solve", "linalg.solve")
def matrix_solve(matrix, rhs, adjoint=False, name=None) -> Tensor:
    """Solves ``matrix @ x = rhs`` (``adjoint(matrix) @ x = rhs``) for each
    matrix of a batch; batch dimensions must be equal.

    >>> import dflow as tf
    >>> tf.linalg.solve(tf.placeholder(tf.float32, [3, 3]), tf.placeholder(tf.float32, [3, 2])).shape
    TensorShape([3, 2])
    """
    with op_scope(name, "MatrixSolve", [matrix, rhs]) as scope:
        matrix, rhs = convert_same_type("MatrixSolve", ("matrix", matrix), ("rhs", rhs), allowed=INEXACT)
        return apply_op("MatrixSolve", [matrix, rhs], {"adjoint": bool(adjoint)}, name=scope).outputs[0]


# -- MatrixTriangularSolve -------------------------------------------------------------


def _triangular_solve_infer(op):
    matrix, rhs = op._inputs
    m, r = square_dims(matrix), static_dims(rhs)
    if m is None or r is None:
        return [(matrix.dtype, unknown_shape())]
    n = merge_dim(m[-1], r[-2])
    batch = broadcast_shapes(TensorShape(m[:-2]), TensorShape(r[:-2]))
    return [(matrix.dtype, batch.concatenate([n, r[-1]]))]


def _substitute(tri, rhs, lower: bool):
    """Forward (``lower``) or back substitution: a zero on the diagonal gives
    inf/nan as in TF, where LAPACK's solver refuses singular matrices."""
    n = tri.shape[-1]
    x = np.zeros(rhs.shape, dtype=np.result_type(tri, rhs))
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(n) if lower else range(n - 1, -1, -1):
            partial = np.einsum("...j,...jk->...k", tri[..., i, :], x)
            x[..., i, :] = (rhs[..., i, :] - partial) / tri[..., i, i][..., None]
    return x


def _triangular_solve_kernel(matrix, rhs, lower, adjoint):
    check_square(matrix)
    if rhs.ndim < 2 or rhs.shape[-2] != matrix.shape[-1]:
        raise invalid("Input matrix and rhs are incompatible.")
    xp = array_module(matrix, rhs)
    try:
        batch = np.broadcast_shapes(matrix.shape[:-2], rhs.shape[:-2])
    except ValueError:
        raise invalid(f"Incompatible batch shapes: {matrix.shape[:-2]} vs. {rhs.shape[:-2]}") from None
    tri = xp.tril(matrix) if lower else xp.triu(matrix)
    if adjoint:
        tri = adjoint_value(tri)
    tri = xp.broadcast_to(lapack_ready(tri), batch + tri.shape[-2:])
    rhs_b = xp.broadcast_to(lapack_ready(rhs), batch + rhs.shape[-2:])
    try:
        out = xp.linalg.solve(tri, rhs_b)
    except np.linalg.LinAlgError:
        out = _substitute(tri, rhs_b, lower != bool(adjoint))
    return cast(out, matrix.dtype)


register("MatrixTriangularSolve", infer=_triangular_solve_infer, kernel=_triangular_solve_kernel)


@gradient("MatrixTriangularSolve")
def _triangular_solve_grad(op, grad):
    a, b = op.inputs
    c = op.outputs[0]
    adj, lower = op.get_attr("adjoint"), op.get_attr("lower")
    grad_b = _triangular_solve_op(a, grad, lower, not adj, "MatrixTriangularSolve")
    grad_a = linalg_ops.matmul(c, grad_b, adjoint_b=True) if adj else linalg_ops.matmul(grad_b, c, adjoint_b=True)
    grad_a = linalg_ops.matrix_band_part(-grad_a, -1, 0) if lower else linalg_ops.matrix_band_part(-grad_a, 0, -1)
    # Batch dimensions broadcast: sum each gradient over those its input was broadcast along.
    return [tiling_ops.unbroadcast(grad_a, a, (b,)), tiling_ops.unbroadcast(grad_b, b, (a,))]


def _triangular_solve_op(matrix: Tensor, rhs: Tensor, lower: bool, adjoint: bool, name) -> Tensor:
    attrs = {"lower": bool(lower), "adjoint": bool(adjoint)}
    return apply_op("MatrixTriangularSolve", [matrix, rhs], attrs, name=name).outputs[0]


@tf_export("matrix_triangular_solve", "linalg.triangular_solve")
def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None) -> Tensor:
    """Solves ``matrix @ x = rhs`` reading only the lower (``lower``) or upper
    triangle of ``matrix``; batch dimensions broadcast. A zero on the diagonal
    gives inf/nan, as TF, not an error.

    >>> import dflow as tf
    >>> tf.linalg.triangular_solve(tf.constant([[2.0, 0.0], [1.0, 1.0]]), tf.constant([[2.0], [3.0]])).shape
    TensorShape([2, 1])
    """
    with op_scope(name, "MatrixTriangularSolve", [matrix, rhs]) as scope:
        matrix, rhs = convert_same_type("MatrixTriangularSolve", ("matrix", matrix), ("rhs", rhs), allowed=INEXACT)
        return _triangular_solve_op(matrix, rhs, lower, adjoint, scope)


@tf_export("cholesky_solve", "linalg.cholesky_solve")
def cholesky_solve(chol, rhs, name=None) -> Tensor:
    """Solves ``A @ x = rhs`` given ``chol = tf.cholesky(A)``: two triangular solves."""
    with op_scope(name, "cholesky_solve", [chol, rhs]):
        chol, rhs = convert_same_type("MatrixTriangularSolve", ("matrix", chol), ("rhs", rhs), allowed=INEXACT)
        y = _triangular_solve_op(chol, rhs, True, False, "MatrixTriangularSolve")
        return _triangular_solve_op(chol, y, True, True, "MatrixTriangularSolve")


# -- MatrixSolveLs ---------------------------------------------------------------------


def _solve_ls_infer(op):
    matrix, rhs, l2 = op._inputs
    static_dims(l2, min_rank=0, rank=0)
    m, r = static_dims(matrix), static_dims(rhs)
    if m is None or r is None:
        return [(matrix.dtype, unknown_shape())]
    merge_dim(m[-2], r[-2])
    return [(matrix.dtype, TensorShape(merge_batch(m[:-2], r[:-2]) + [m[-1], r[-1]]))]


def _cholesky_solve_value(gram, rhs):
    xp = array_module(gram)
    try:
        chol = xp.linalg.cholesky(gram)
    except np.linalg.LinAlgError:
        raise invalid(CHOLESKY_FAILED) from None
    return xp.linalg.solve(adjoint_value(chol), xp.linalg.solve(chol, rhs))


def _solve_ls_kernel(matrix, rhs, l2_regularizer, fast):
    if matrix.ndim < 2 or rhs.ndim != matrix.ndim or rhs.shape[:-2] != matrix.shape[:-2] \
            or rhs.shape[-2] != matrix.shape[-2]:
        raise invalid("Input matrix and rhs are incompatible.")
    xp = array_module(matrix, rhs)
    a, b = lapack_ready(matrix), lapack_ready(rhs)
    if not fast:
        # Minimum-norm least squares, as TF's complete orthogonal decomposition
        # (which also ignores the regulariser).
        return cast(xp.linalg.pinv(a) @ b, matrix.dtype)
    # TF's fast path: regularised normal equations through a Cholesky factor.
    l2 = float(l2_regularizer)
    rows, cols = a.shape[-2:]
    a_h = adjoint_value(a)
    if rows >= cols:
        out = _cholesky_solve_value(a_h @ a + l2 * xp.eye(cols, dtype=a.dtype), a_h @ b)
    else:
        out = a_h @ _cholesky_solve_value(a @ a_h + l2 * xp.eye(rows, dtype=a.dtype), b)
    return cast(out, matrix.dtype)


register("MatrixSolveLs", infer=_solve_ls_infer, kernel=_solve_ls_kernel)


@gradient("MatrixSolveLs")
def _solve_ls_grad(op, grad):
    # TF1's: the backprop of the regularised normal equations, of the first kind
    # (x = (AᴴA + λI)⁻¹ Aᴴ b) for tall matrices, of the second (x = Aᴴ (AAᴴ + λI)⁻¹ b) for wide ones.
    if not op.get_attr("fast"):
        raise ValueError("Gradient not defined for fast=False")
    a, b, l2 = op.inputs
    rows, cols = a.shape.as_list()[-2:] if a.shape.ndims is not None else (None, None)
    if rows is None or cols is None:
        raise ValueError(f"The gradient of MatrixSolveLs needs a matrix of known inner dimensions (op {op.name}).")
    l2 = math_ops.cast(l2, a.dtype)
    first_kind = rows >= cols
    gramian = linalg_ops.matmul(a, a, adjoint_a=first_kind, adjoint_b=not first_kind)
    chol = apply_op("Cholesky", [gramian + l2 * array_ops.eye(cols if first_kind else rows, dtype=a.dtype)]).outputs[0]
    if first_kind:
        x = op.outputs[0]
        z = cholesky_solve(chol, grad)
        xzt = linalg_ops.matmul(x, z, adjoint_b=True)
        zx_sym = xzt + linalg_ops.matrix_transpose(xzt)
        grad_a = linalg_ops.matmul(b, z, adjoint_b=True) - linalg_ops.matmul(a, zx_sym)
        return [grad_a, linalg_ops.matmul(a, z), None]
    grad_b = cholesky_solve(chol, linalg_ops.matmul(a, grad))
    tmp = cholesky_solve(chol, b)
    a1 = -linalg_ops.matmul(grad_b, linalg_ops.matmul(tmp, a, adjoint_a=True))
    a2 = linalg_ops.matmul(tmp, grad - linalg_ops.matmul(a, grad_b, adjoint_a=True), adjoint_b=True)
    return [a1 + a2, grad_b, None]


@tf_export("matrix_solve_ls", "linalg.lstsq")
def matrix_solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True, name=None) -> Tensor:
    """The least-squares solution ``x`` of ``matrix @ x ≈ rhs`` for each matrix.

    ``fast`` solves the normal equations (with ``l2_regularizer`` added); else
    the minimum-norm solution, robust to rank deficiency (regulariser ignored).
    """
    with op_scope(name, "matrix_solve_ls" if fast else "MatrixSolveLs", [matrix, rhs]) as scope:
        matrix, rhs = convert_same_type("MatrixSolveLs", ("matrix", matrix), ("rhs", rhs), allowed=INEXACT)
        l2 = convert_to_tensor(l2_regularizer, dtype=dtypes.float64, name="l2_regularizer")
        return apply_op("MatrixSolveLs", [matrix, rhs, l2], {"fast": bool(fast)},
                        name="MatrixSolveLs" if fast else scope).outputs[0]
