"""Decompositions of (batches of) matrices: Cholesky, QR, SVD and the
self-adjoint eigendecomposition.

All work on batches of matrices ``[..., M, N]``. Kernels call
``numpy.linalg`` (or ``cupy.linalg``); a failed Cholesky factorisation is an
``InvalidArgumentError`` when the op runs, as in TF1. Gradient rules are
TF1's (``linalg_grad.py``); like TF1's, those of the eigendecomposition and
the SVD are not finite where eigen- or singular values repeat, and those of
Cholesky and the eigendecomposition are for symmetric perturbations of the
symmetric input (the kernels read its lower triangle only). The Qr and Svd
gradients cover complex inputs (TF's convention: ∂L/∂Re + i·∂L/∂Im of a real
loss) and raise TF's ``NotImplementedError`` where TF has none: inner
dimensions unknown at graph time (Svd with ``compute_uv=False`` aside), Qr with
``full_matrices=True`` and more rows than columns, Svd with
``full_matrices=True`` and ``abs(m - n) > 1``.
"""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import gradient, register
from dflow.framework.tensor_shape import TensorShape, unknown_shape
from dflow.kernels import array_module
from dflow.ops.array import array_ops
from dflow.ops.linalg import linalg_ops, linalg_solvers
from dflow.ops.linalg._linalg_common import (
    CHOLESKY_FAILED,
    adjoint_value,
    cast,
    check_square,
    invalid,
    lapack_ready,
    square_dims,
    square_infer,
    static_dims,
    unary_matrix_op,
)
from dflow.ops.math import math_extra_ops, math_ops

Qr = collections.namedtuple("Qr", ["q", "r"])


# -- Cholesky --------------------------------------------------------------------------


def _cholesky_kernel(x):
    check_square(x)
    try:
        # Like TF, numpy reads only the lower triangle.
        out = array_module(x).linalg.cholesky(lapack_ready(x))
    except np.linalg.LinAlgError:
        raise invalid(CHOLESKY_FAILED) from None
    return cast(out, x.dtype)


register("Cholesky", infer=square_infer, kernel=_cholesky_kernel)


@gradient("Cholesky")
def _cholesky_grad(op, grad):
    # TF1's: l⁻ᴴ (Φ(lᴴ grad)) l⁻¹, symmetrised; Φ keeps the lower triangle with half the diagonal.
    chol = op.outputs[0]
    n = array_ops.shape(chol)[-1]
    chol_inverse = linalg_solvers.matrix_triangular_solve(chol, array_ops.eye(n, dtype=chol.dtype))
    middle = linalg_ops.matmul(chol, grad, adjoint_a=True)
    middle = array_ops.matrix_set_diag(middle, 0.5 * array_ops.matrix_diag_part(middle))
    middle = linalg_ops.matrix_band_part(middle, -1, 0)
    grad_a = linalg_ops.matmul(linalg_ops.matmul(chol_inverse, middle, adjoint_a=True), chol_inverse)
    grad_a += linalg_ops.adjoint(grad_a)
    return [grad_a * 0.5]


@tf_export("cholesky", "linalg.cholesky")
def cholesky(input, name=None) -> Tensor:  # noqa: A002 - TF1 argument name
    """The lower-triangular ``L`` with ``L @ adjoint(L) == input`` for each
    Hermitian positive definite matrix; only the lower triangle is read."""
    return unary_matrix_op("Cholesky", input, name).outputs[0]


# -- Qr --------------------------------------------------------------------------------


def _qr_infer(op):
    x = op._inputs[0]
    dims = static_dims(x)
    if dims is None:
        return [(x.dtype, unknown_shape()), (x.dtype, unknown_shape())]
    *batch, m, n = dims
    if op._attrs["full_matrices"]:
        return [(x.dtype, TensorShape(batch + [m, m])), (x.dtype, TensorShape(batch + [m, n]))]
    k = None if m is None or n is None else min(m, n)
    return [(x.dtype, TensorShape(batch + [m, k])), (x.dtype, TensorShape(batch + [k, n]))]


def _qr_kernel(x, full_matrices):
    if x.ndim < 2:
        raise invalid(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    q, r = array_module(x).linalg.qr(lapack_ready(x), mode="complete" if full_matrices else "reduced")
    return cast(q, x.dtype), cast(r, x.dtype)


register("Qr", infer=_qr_infer, kernel=_qr_kernel)


def _right_triangular_solve(x: Tensor, r: Tensor) -> Tensor:
    """``x @ inverse(r)ᴴ`` for upper-triangular ``r``."""
    return linalg_ops.adjoint(linalg_solvers.matrix_triangular_solve(r, linalg_ops.adjoint(x), lower=False))


def _qr_grad_tall(q, r, dq, dr):
    """TF's QR backprop for rows >= columns (reduced q): arXiv:2009.10071.

    For complex inputs it adds TF's correction for the gauge of the factorization: ``r``'s
    diagonal is real, so the imaginary part of ``diag(rdrᴴ - dqᴴq)`` is put back through ``r⁻ᴴ``.
    """
    qdq = linalg_ops.matmul(q, dq, adjoint_a=True)
    rdr = linalg_ops.matmul(r, dr, adjoint_b=True)
    tril = linalg_ops.matrix_band_part(qdq - linalg_ops.adjoint(qdq) + rdr - linalg_ops.adjoint(rdr), -1, 0)
    grad_a = linalg_ops.matmul(q, dr + _right_triangular_solve(tril, r))
    grad_a += _right_triangular_solve(dq - linalg_ops.matmul(q, qdq), r)
    if q.dtype.is_complex:
        m_diag = array_ops.matrix_diag_part(rdr - linalg_ops.adjoint(qdq))
        correction = array_ops.matrix_diag(m_diag - math_ops.cast(math_extra_ops.real(m_diag), q.dtype))
        grad_a += _right_triangular_solve(linalg_ops.matmul(q, correction, adjoint_b=True), r)
    return grad_a


def _shape_text(shape: TensorShape) -> str:
    """A static shape as TF 2.15 prints it in messages: ``(None, 3)``, ``(3,)``, ``<unknown>``."""
    if shape.ndims is None:
        return "<unknown>"
    dims = ["None" if d is None else str(d) for d in shape.as_list()]
    return f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"


@gradient("Qr")
def _qr_grad(op, dq, dr):
    # TF1's checks and messages: no gradient without static inner dimensions of r, nor for
    # full_matrices=True with more rows than columns.
    q, r = op.outputs
    if r.shape.ndims is None or None in r.shape.as_list()[-2:]:
        raise NotImplementedError(f"QrGrad not implemented with dynamic shapes. Received r.shape: "
                                  f"{_shape_text(r.shape)}")
    r_rows, cols = r.shape.as_list()[-2:]
    rows, q_cols = q.shape.as_list()[-2:]
    if r_rows > cols and rows == q_cols:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and full_matrices is true. Received "
                                  f"r.shape={_shape_text(r.shape)} with nrows={r_rows}and ncols={cols}.")
    if rows >= cols:
        return [_qr_grad_tall(q, r, dq, dr)]
    # Wide: split a = [x, y] and r = [u, v], and reduce to the square case.
    y = op.inputs[0][..., :, rows:]
    u, du, dv = r[..., :, :rows], dr[..., :, :rows], dr[..., :, rows:]
    dx = _qr_grad_tall(q, u, dq + linalg_ops.matmul(y, dv, adjoint_b=True), du)
    return [array_ops.concat([dx, linalg_ops.matmul(q, dv)], axis=-1)]


@tf_export("qr", "linalg.qr")
def qr(input, full_matrices=False, name=None) -> Qr:  # noqa: A002 - TF1 argument name
    """``(q, r)`` with ``q`` orthonormal, ``r`` upper triangular and ``q @ r == input``."""
    op = unary_matrix_op("Qr", input, name, attrs={"full_matrices": bool(full_matrices)})
    return Qr(*op.outputs)


# -- Svd -------------------------------------------------------------------------------


def _svd_infer(op):
    x = op._inputs[0]
    compute_uv, full = op._attrs["compute_uv"], op._attrs["full_matrices"]
    empty = TensorShape([0])
    real = x.dtype.real_dtype  # singular values are real (TF1 returns real(s))
    dims = static_dims(x)
    if dims is None:
        uv = unknown_shape() if compute_uv else empty
        return [(real, unknown_shape()), (x.dtype, uv), (x.dtype, uv)]
    *batch, m, n = dims
    p = None if m is None or n is None else min(m, n)
    s = TensorShape(batch + [p])
    if not compute_uv:
        return [(real, s), (x.dtype, empty), (x.dtype, empty)]
    u = TensorShape(batch + [m, m if full else p])
    v = TensorShape(batch + [n, n if full else p])
    return [(real, s), (x.dtype, u), (x.dtype, v)]


def _svd_kernel(x, compute_uv, full_matrices):
    if x.ndim < 2:
        raise invalid(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    xp = array_module(x)
    a = lapack_ready(x)
    if not compute_uv:
        empty = xp.zeros((0,), dtype=x.dtype)
        return cast(xp.linalg.svd(a, compute_uv=False), x.real.dtype), empty, empty
    u, s, vh = xp.linalg.svd(a, full_matrices=full_matrices)
    # TF returns v itself (input == u @ diag(s) @ adjoint(v)); numpy returns adjoint(v).
    return cast(s, x.real.dtype), cast(u, x.dtype), cast(adjoint_value(vh), x.dtype)


register("Svd", infer=_svd_infer, kernel=_svd_kernel)


def _safe_reciprocal(x: Tensor, epsilon: float = 1e-20) -> Tensor:
    """``1 / x`` with a Lorentz broadening: finite where x is 0 (degenerate spectra)."""
    return x * math_ops.reciprocal(x * x + epsilon)


def _merged_dim(a, b):
    """The static size two dimensions agree on (TF's ``Dimension.merge_with``), None if neither knows it."""
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")
    return a if a is not None else b


def _svd_inner_dims(a: Tensor, grad_u: Tensor, grad_v: Tensor) -> tuple:
    """``(m, n)`` of the Svd input, merged with what the shapes of ``grad_u`` and ``grad_v`` know."""
    if a.shape.ndims is None:
        # TF1 subscripts the unknown dims here and fails with this TypeError.
        raise TypeError("'NoneType' object is not subscriptable (the Svd gradient needs the rank of its input)")
    if a.shape.ndims < 2:
        raise ValueError(f"Shape {a.shape} must have rank at least 2")
    m, n = a.shape.as_list()[-2:]
    if grad_u.shape.ndims is not None and grad_u.shape.ndims >= 2:
        m = _merged_dim(m, grad_u.shape.as_list()[-2])
    if grad_v.shape.ndims is not None and grad_v.shape.ndims >= 2:
        n = _merged_dim(n, grad_v.shape.as_list()[-2])
    return m, n


@gradient("Svd")
def _svd_grad(op, grad_s, grad_u, grad_v):
    # TF1's, after Giles (2008), Townsend's reduced-SVD derivation, and for complex inputs the
    # extra term of https://giggleliu.github.io/2019/04/02/einsumbp.html for the phase gauge.
    a = op.inputs[0]
    grad_s_mat = array_ops.matrix_diag(math_ops.cast(grad_s, a.dtype))
    if not op.get_attr("compute_uv"):
        _, u, v = svd(a, compute_uv=True)
        return [linalg_ops.matmul(u, linalg_ops.matmul(grad_s_mat, v, adjoint_b=True))]
    m, n = _svd_inner_dims(a, grad_u, grad_v)
    if m is None or n is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with unknown inner matrix shape.")
    s, u, v = op.outputs
    s = math_ops.cast(s, a.dtype)
    transposed = m > n
    if transposed:  # differentiate aᴴ = v s uᴴ instead, and take the adjoint at the end
        m, n, u, v, grad_u, grad_v = n, m, v, u, grad_v, grad_u
    full_matrices = op.get_attr("full_matrices")
    if full_matrices and abs(m - n) > 1:
        shape = a.shape[:-2].concatenate([n, m] if transposed else [m, n])
        raise NotImplementedError(f"svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. "
                                  f"Received: m={m} and n={n} from op input={a} with shape={_shape_text(shape)}.")
    s_mat = array_ops.matrix_diag(s)
    s2 = s * s
    f = array_ops.matrix_set_diag(_safe_reciprocal(array_ops.expand_dims(s2, -2) - array_ops.expand_dims(s2, -1)),
                                  array_ops.zeros_like(s))
    s_inv_mat = array_ops.matrix_diag(_safe_reciprocal(s))
    v1, grad_v1 = v[..., :, :m], grad_v[..., :, :m]
    v_gv = linalg_ops.matmul(v1, grad_v1, adjoint_a=True)
    f_u = f * linalg_ops.matmul(u, grad_u, adjoint_a=True)
    f_v = f * v_gv
    term1_nouv = (grad_s_mat + linalg_ops.matmul(f_u + linalg_ops.adjoint(f_u), s_mat)
                  + linalg_ops.matmul(s_mat, f_v + linalg_ops.adjoint(f_v)))
    grad_a = linalg_ops.matmul(u, linalg_ops.matmul(term1_nouv, v1, adjoint_b=True))
    if m != n:
        gv1t = linalg_ops.adjoint(grad_v1)
        term2_nous = gv1t - linalg_ops.matmul(linalg_ops.matmul(gv1t, v1), v1, adjoint_b=True)
        if full_matrices:
            v2, grad_v2 = v[..., :, m:n], grad_v[..., :, m:n]
            term2_nous -= linalg_ops.matmul(linalg_ops.matmul(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True)
        grad_a += linalg_ops.matmul(linalg_ops.matmul(u, s_inv_mat), term2_nous)
    if a.dtype.is_complex:
        # The phase of each pair of singular vectors is free: TF's term for the diagonal of vᴴ dv.
        l_mat = array_ops.matrix_diag(array_ops.matrix_diag_part(v_gv))
        term3_nouv = linalg_ops.matmul(s_inv_mat, linalg_ops.adjoint(l_mat) - l_mat)
        grad_a += 0.5 * linalg_ops.matmul(u, linalg_ops.matmul(term3_nouv, v1, adjoint_b=True))
    return [linalg_ops.adjoint(grad_a) if transposed else grad_a]


@tf_export("svd", "linalg.svd")
def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values ``s`` (descending) and, if ``compute_uv``, the ``(s, u, v)``
    with ``tensor == u @ diag(s) @ adjoint(v)``."""
    op = unary_matrix_op("Svd", tensor, name, param="tensor",
                          attrs={"compute_uv": bool(compute_uv), "full_matrices": bool(full_matrices)})
    return tuple(op.outputs) if compute_uv else op.outputs[0]


# -- SelfAdjointEigV2 ------------------------------------------------------------------


def _eigh_infer(op):
    x = op._inputs[0]
    dims = square_dims(x)
    if dims is None:
        e = v = unknown_shape()
    else:
        e, v = TensorShape(dims[:-1]), TensorShape(dims)
    return [(x.dtype, e), (x.dtype, v if op._attrs["compute_v"] else TensorShape([0]))]


def _eigh_kernel(x, compute_v):
    check_square(x)
    xp = array_module(x)
    # Like TF, numpy reads only the lower triangle.
    if compute_v:
        e, v = xp.linalg.eigh(lapack_ready(x))
        return cast(e, x.dtype), cast(v, x.dtype)
    return cast(xp.linalg.eigvalsh(lapack_ready(x)), x.dtype), xp.zeros((0,), dtype=x.dtype)


register("SelfAdjointEigV2", infer=_eigh_infer, kernel=_eigh_kernel)


@gradient("SelfAdjointEigV2")
def _eigh_grad(op, grad_e, grad_v):
    # TF1's: v (diag(grad_e) + f ∘ vᴴ grad_v) vᴴ with f_ij = 1 / (e_j - e_i) off the
    # diagonal; then symmetrised onto the lower triangle the kernel reads.
    e = op.outputs[0]
    if op.get_attr("compute_v"):
        v = op.outputs[1]
        f = array_ops.matrix_set_diag(_safe_reciprocal(array_ops.expand_dims(e, -2) - array_ops.expand_dims(e, -1)),
                                      array_ops.zeros_like(e))
        middle = array_ops.matrix_diag(grad_e) + f * linalg_ops.matmul(v, grad_v, adjoint_a=True)
    else:
        _, v = self_adjoint_eig(op.inputs[0])
        middle = array_ops.matrix_diag(grad_e)
    grad_a = linalg_ops.matmul(v, linalg_ops.matmul(middle, v, adjoint_b=True))
    grad_a = linalg_ops.matrix_band_part(grad_a + linalg_ops.adjoint(grad_a), -1, 0)
    return [array_ops.matrix_set_diag(grad_a, 0.5 * array_ops.matrix_diag_part(grad_a))]


@tf_export("self_adjoint_eig", "linalg.eigh")
def self_adjoint_eig(tensor, name=None) -> tuple:
    """``(e, v)``: ascending eigenvalues and eigenvectors (columns) of each
    self-adjoint matrix, reading its lower triangle."""
    op = unary_matrix_op("SelfAdjointEigV2", tensor, name, attrs={"compute_v": True})
    return op.outputs[0], op.outputs[1]


@tf_export("self_adjoint_eigvals", "linalg.eigvalsh")
def self_adjoint_eigvals(tensor, name=None) -> Tensor:
    """The ascending eigenvalues of each self-adjoint matrix."""
    return unary_matrix_op("SelfAdjointEigV2", tensor, name, attrs={"compute_v": False}).outputs[0]
