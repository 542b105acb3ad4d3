"""``tf.linalg``'s tridiagonal matrices: ``tridiagonal_matmul``, ``tridiagonal_solve`` (LAPACK's ``gtsv``, partial
pivoting, NaN for a singular system as TF's CPU kernel; with ``perturb_singular``, TF's LU with perturbed tiny
pivots, LAPACK's ``lagtf``/``lagts``) and ``eigh_tridiagonal``, in numpy."""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops.array import array_ops
from dflow.ops.linalg import diag_ops, linalg_ops
from dflow.ops.linalg._linalg_common import (
    INEXACT,
    check_dtype,
    invalid,
    lapack_ready,
    op_scope,
)
from dflow.ops.math import math_ops

# -- MatrixExponential --------------------------------------------------------------------

_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800., 129060195264000.,
           10559470521600., 670442572800., 33522128640., 1323241920., 40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


# -- tridiagonal matrices ---------------------------------------------------------------------


def _compact_diagonals(diagonals, diagonals_format: str, what: str) -> Tensor:
    """The ``[..., 3, M]`` (superdiagonal, diagonal, subdiagonal) form of TF's three formats."""
    if diagonals_format == "compact":
        return convert_to_tensor(diagonals, name="diagonals")
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
            raise ValueError(f"Expected diagonals to be a sequence of length 3, got {diagonals!r}")
        sup, main, sub = (convert_to_tensor(d) for d in diagonals)
        if what == "tridiagonal_solve":  # TF's solve also takes off-diagonals of length M - 1
            m = main.shape[-1].value if main.shape.ndims else None
            sup = _pad_off_diagonal(sup, m, "superdiagonal", [0, 1])
            sub = _pad_off_diagonal(sub, m, "subdiagonal", [1, 0])
        return array_ops.stack([sup, main, sub], axis=-2)
    if diagonals_format == "matrix":
        m = convert_to_tensor(diagonals, name="diagonals")
        main = diag_ops.matrix_diag_part(m)
        sup = diag_ops.matrix_diag_part(m, k=1)
        sub = diag_ops.matrix_diag_part(m, k=-1)
        zero = array_ops.zeros_like(main[..., :1])
        return array_ops.stack([array_ops.concat([sup, zero], -1), main, array_ops.concat([zero, sub], -1)], -2)
    raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")


def _pad_off_diagonal(t: Tensor, m: int | None, name: str, padding: list) -> Tensor:
    """An off-diagonal of static length ``m - 1`` padded to ``m`` (at the end of the superdiagonal,
    the start of the subdiagonal), as TF's ``tridiagonal_solve`` does; other lengths are a ValueError."""
    n = t.shape[-1].value if t.shape.ndims else None
    if not n or n == m:
        return t
    if m is not None and n == m - 1:
        return array_ops.pad(t, [[0, 0]] * (t.shape.ndims - 1) + [padding])
    raise ValueError(f"Expected {name} to be have length {m} or {None if m is None else m - 1}, got {n}.")


def _tridiagonal_check(diagonals: Tensor, rhs: Tensor, what: str) -> None:
    d, r = diagonals.shape, rhs.shape
    if d.ndims is not None and d.ndims < 2:
        raise ValueError(f"{what}: diagonals must have rank >= 2, got shape {d}")
    if d.ndims is not None and d[-2].value not in (None, 3):
        raise ValueError(f"{what}: expected diagonals of shape [..., 3, M], got {d}")
    if d.ndims is not None and r.ndims is not None and r.ndims >= 2 and None not in (d[-1].value, r[-2].value) \
            and d[-1].value != r[-2].value:
        raise ValueError(f"{what}: the diagonals' length {d[-1].value} does not match the right-hand side's "
                         f"rows {r[-2].value}")


def _tridiagonal_infer(op):
    _, rhs = op._inputs
    return [(rhs.dtype, rhs.shape)]


def _dense_tridiagonal(diagonals):
    xp = array_module(diagonals)
    m = diagonals.shape[-1]
    out = xp.zeros(diagonals.shape[:-2] + (m, m), dtype=diagonals.dtype)
    i = xp.arange(m)
    out[..., i, i] = diagonals[..., 1, :]
    out[..., i[:-1], i[1:]] = diagonals[..., 0, :-1]
    out[..., i[1:], i[:-1]] = diagonals[..., 2, 1:]
    return out


def _tridiagonal_matmul_kernel(diagonals, rhs):
    sup, main, sub = diagonals[..., 0, :, None], diagonals[..., 1, :, None], diagonals[..., 2, :, None]
    out = main * rhs
    out[..., :-1, :] += sup[..., :-1, :] * rhs[..., 1:, :]
    out[..., 1:, :] += sub[..., 1:, :] * rhs[..., :-1, :]
    return out.astype(rhs.dtype, copy=False)


def _gtsv(diagonals, rhs, partial_pivoting):
    """LAPACK's gtsv: Gaussian elimination of a tridiagonal system, interchanging rows i and i+1
    where ``|dl[i]| > |d[i]|`` (partial pivoting); vectorized over the batch."""
    xp = array_module(rhs)
    work = np.result_type(diagonals.dtype, rhs.dtype, np.float64)
    m = diagonals.shape[-1]
    du = diagonals[..., 0, :-1].astype(work)  # du[i] = A[i, i+1]
    d = diagonals[..., 1, :].astype(work)
    dl = diagonals[..., 2, 1:].astype(work)  # dl[i] = A[i+1, i]
    du2 = xp.zeros(d.shape[:-1] + (max(m - 2, 0),), dtype=work)  # A[i, i+2] after interchanges
    b = rhs.astype(work)
    for i in range(m - 1):
        di, dli, dui = d[..., i], dl[..., i], du[..., i]
        swap = xp.abs(dli) > xp.abs(di) if partial_pivoting else xp.zeros(di.shape, dtype=bool)
        keep_fact = dli / xp.where(di == 0, 1, di)
        swap_fact = di / xp.where(dli == 0, 1, dli)
        d_next = xp.where(swap, dui - swap_fact * d[..., i + 1], d[..., i + 1] - keep_fact * dui)
        b_i = xp.where(swap[..., None], b[..., i + 1, :], b[..., i, :])
        b_next = xp.where(swap[..., None], b[..., i, :] - swap_fact[..., None] * b[..., i + 1, :],
                          b[..., i + 1, :] - keep_fact[..., None] * b[..., i, :])
        du_i = xp.where(swap, d[..., i + 1], dui)
        if i < m - 2:
            du2[..., i] = xp.where(swap, du[..., i + 1], 0)
            du[..., i + 1] = xp.where(swap, -swap_fact * du[..., i + 1], du[..., i + 1])
        d[..., i] = xp.where(swap, dli, di)
        d[..., i + 1] = d_next
        du[..., i] = du_i
        b[..., i, :] = b_i
        b[..., i + 1, :] = b_next
    singular = (d == 0).any(axis=-1)  # TF fills such a system's solution with NaN (and logs a warning)
    d = xp.where(d == 0, 1, d)
    x = b
    x[..., m - 1, :] /= d[..., m - 1, None]
    if m > 1:
        x[..., m - 2, :] = (x[..., m - 2, :] - du[..., m - 2, None] * x[..., m - 1, :]) / d[..., m - 2, None]
    for i in range(m - 3, -1, -1):
        x[..., i, :] = (x[..., i, :] - du[..., i, None] * x[..., i + 1, :]
                        - du2[..., i, None] * x[..., i + 2, :]) / d[..., i, None]
    x[singular] = np.nan
    return x


def _perturb_pivots(pivot, rows, perturb):
    """TF's ``MaybePerturbPivot`` (from LAPACK's xLAGTS), for a batch of pivots ``[B]`` and rows ``[B, K]``.

    A pivot under 1 in magnitude is moved away from 0 by ``perturb`` (at least the smallest normal
    number, with the pivot's sign, doubled at each step) until ``row / pivot`` cannot overflow; a
    pivot under the smallest normal number that needs no perturbation is scaled up with its row.
    Returns the new pivots and rows.
    """
    xp = array_module(rows)
    real = np.dtype(rows.dtype).type(0).real.dtype.type
    one, safemin = real(1), real(np.finfo(real).tiny)
    bignum = one / safemin
    abs_pivot = xp.abs(pivot)
    perturb = xp.copysign(xp.maximum(xp.abs(perturb), safemin), pivot.real)
    max_factor = xp.abs(rows).max(axis=-1) if rows.shape[-1] else xp.zeros(abs_pivot.shape, dtype=real)
    active = abs_pivot < one
    while active.any():
        tiny = abs_pivot < safemin
        with np.errstate(over="ignore"):  # both branches of each where are computed, for all pivots
            nudge = xp.where(tiny, (abs_pivot == 0) | (max_factor * safemin > abs_pivot),
                             max_factor > abs_pivot * bignum) & active
            scale = tiny & ~nudge & active
            pivot = xp.where(nudge, pivot + perturb, xp.where(scale, pivot * bignum, pivot))
            rows = xp.where(scale[:, None], rows * bignum, rows)
        perturb = xp.where(nudge, perturb * 2, perturb)
        abs_pivot = xp.abs(pivot)
        active = nudge & (abs_pivot < one)
    return pivot, rows


def _solve_perturbed(diagonals, rhs):
    """TF's ``SolveWithGaussianEliminationWithPivotingAndPerturbSingular`` (LAPACK's xLAGTF + xLAGTS).

    LU with row interchanges chosen on rows scaled by their 1-norms; the forward solve is done
    during the factorization. In the back substitution each pivot goes through
    ``_perturb_pivots`` with a perturbation of ``eps * max|U|``, so singular systems give finite
    results. Works in the input's own precision, as TF's kernel does; vectorized over the batch.
    """
    xp = array_module(rhs)
    batch, m, k = rhs.shape[:-2], rhs.shape[-2], rhs.shape[-1]
    sup = diagonals[..., 0, :].reshape((-1, m))
    diag = diagonals[..., 1, :].reshape((-1, m))
    sub = diagonals[..., 2, :].reshape((-1, m))
    b = rhs.reshape((-1, m, k))
    x = xp.zeros_like(b)
    if m == 0:
        return x.reshape(rhs.shape)
    real = np.dtype(rhs.dtype).type(0).real.dtype.type
    eps, one = real(np.finfo(real).eps), rhs.dtype.type(1)
    u0, u1, u2 = diag.copy(), xp.zeros_like(diag), xp.zeros_like(diag)
    u1[:, 0] = sup[:, 0]
    max_abs_u = xp.maximum(xp.abs(u0[:, 0]), xp.abs(u1[:, 0]))
    scale1 = xp.abs(u0[:, 0]) + xp.abs(u1[:, 0])
    x[:, 0] = b[:, 0]
    for i in range(m - 1):
        last = i == m - 2
        scale2 = xp.abs(sub[:, i + 1]) + xp.abs(diag[:, i + 1]) + (0 if last else xp.abs(sup[:, i + 1]))
        zero_sub = sub[:, i + 1] == 0
        with np.errstate(divide="ignore", invalid="ignore"):  # as in C++: x/0 is inf, and 0/0 is masked
            piv1 = xp.where(u0[:, i] == 0, real(0), xp.abs(u0[:, i]) / scale1)
            piv2 = xp.abs(sub[:, i + 1]) / scale2
        keep = zero_sub | (piv2 <= piv1)
        keep_fact = xp.where(zero_sub, 0, sub[:, i + 1] / xp.where(u0[:, i] == 0, one, u0[:, i]))
        swap_fact = u0[:, i] / xp.where(zero_sub, one, sub[:, i + 1])
        next_u0 = xp.where(keep, diag[:, i + 1] - keep_fact * u1[:, i], u1[:, i] - swap_fact * diag[:, i + 1])
        next_x = xp.where(keep[:, None], b[:, i + 1] - keep_fact[:, None] * x[:, i],
                          x[:, i] - swap_fact[:, None] * b[:, i + 1])
        x[:, i] = xp.where(keep[:, None], x[:, i], b[:, i + 1])
        x[:, i + 1] = xp.where(zero_sub[:, None], b[:, i + 1], next_x)
        u0[:, i] = xp.where(keep, u0[:, i], sub[:, i + 1])
        u1[:, i + 1] = xp.where(keep, sup[:, i + 1], 0 if last else -swap_fact * sup[:, i + 1])
        u1[:, i] = xp.where(keep, u1[:, i], diag[:, i + 1])
        u2[:, i] = xp.where(keep | last, 0, sup[:, i + 1])
        u0[:, i + 1] = xp.where(zero_sub, diag[:, i + 1], next_u0)
        scale1 = xp.where(keep, scale2, scale1)
        if not last:
            max_abs_u = xp.maximum(max_abs_u, xp.maximum(xp.abs(u0[:, i]), xp.maximum(xp.abs(u1[:, i]),
                                                                                     xp.abs(u2[:, i]))))
    max_abs_u = xp.maximum(max_abs_u, xp.abs(u0[:, m - 1]))
    tol = eps * max_abs_u if m > 1 else eps * xp.abs(diag[:, 0])
    for i in range(m - 1, -1, -1):
        row = x[:, i]
        if i + 1 < m:
            row = row - u1[:, i, None] * x[:, i + 1]
        if i + 2 < m:
            row = row - u2[:, i, None] * x[:, i + 2]
        pivot, row = _perturb_pivots(u0[:, i], row, tol)
        x[:, i] = row * (one / pivot)[:, None]
    return x.reshape(batch + (m, k))


def _tridiagonal_solve_kernel(diagonals, rhs, partial_pivoting, perturb_singular):
    if diagonals.shape[-1] != rhs.shape[-2]:
        raise invalid(f"The diagonals' length {diagonals.shape[-1]} does not match the right-hand side's rows "
                      f"{rhs.shape[-2]}")
    if perturb_singular:
        if not partial_pivoting:
            raise invalid("Setting perturb_singular requires also setting partial_pivoting.")
        return _solve_perturbed(diagonals, rhs)
    return _gtsv(diagonals, rhs, partial_pivoting).astype(rhs.dtype, copy=False)


register("TridiagonalMatMul", infer=_tridiagonal_infer, kernel=_tridiagonal_matmul_kernel)
register("TridiagonalSolve", infer=_tridiagonal_infer, kernel=_tridiagonal_solve_kernel)


def _transpose_tridiagonal(diagonals):
    xp = array_module(diagonals)
    out = xp.zeros_like(diagonals)
    out[..., 1, :] = diagonals[..., 1, :]
    out[..., 0, :-1] = diagonals[..., 2, 1:]
    out[..., 2, 1:] = diagonals[..., 0, :-1]
    return out.conj() if out.dtype.kind == "c" else out


def _three_diagonals_of_product(x, y):
    """The (super, main, sub) diagonals of ``x @ yᴴ`` as a ``[..., 3, M]`` array."""
    xp = array_module(x)
    y = y.conj() if y.dtype.kind == "c" else y
    out = xp.zeros(x.shape[:-2] + (3, x.shape[-2]), dtype=x.dtype)
    out[..., 1, :] = (x * y).sum(-1)
    out[..., 0, :-1] = (x[..., :-1, :] * y[..., 1:, :]).sum(-1)
    out[..., 2, 1:] = (x[..., 1:, :] * y[..., :-1, :]).sum(-1)
    return out


def _tridiagonal_solve_grad_kernel(diagonals, x, grad, partial_pivoting, perturb_singular=False):
    # TF's: the adjoint system is solved with the forward op's partial_pivoting and perturb_singular.
    grad_rhs = _tridiagonal_solve_kernel(_transpose_tridiagonal(diagonals), grad, partial_pivoting, perturb_singular)
    return -_three_diagonals_of_product(grad_rhs, x).astype(diagonals.dtype, copy=False), grad_rhs


def _tridiagonal_matmul_grad_kernel(diagonals, rhs, grad):
    grad_diags = _three_diagonals_of_product(grad, rhs).astype(diagonals.dtype, copy=False)
    grad_rhs = _tridiagonal_matmul_kernel(_transpose_tridiagonal(diagonals), grad)
    return grad_diags, grad_rhs


def _grads_infer(op):
    return [(t.dtype, t.shape) for t in (op._inputs[0], op._inputs[-1])]


register("_TridiagonalSolveGrad", infer=_grads_infer, kernel=_tridiagonal_solve_grad_kernel)
register("_TridiagonalMatMulGrad", infer=_grads_infer, kernel=_tridiagonal_matmul_grad_kernel)
not_differentiable("_TridiagonalSolveGrad")
not_differentiable("_TridiagonalMatMulGrad")


@gradient("TridiagonalSolve")
def _tridiagonal_solve_grad(op, grad):
    out = apply_op("_TridiagonalSolveGrad", [op.inputs[0], op.outputs[0], grad],
                   {"partial_pivoting": op.get_attr("partial_pivoting"),
                    "perturb_singular": op.get_attr("perturb_singular")}).outputs
    return [out[0], out[1]]


@gradient("TridiagonalMatMul")
def _tridiagonal_matmul_grad(op, grad):
    out = apply_op("_TridiagonalMatMulGrad", [op.inputs[0], op.inputs[1], grad]).outputs
    return [out[0], out[1]]


@tf_export("linalg.tridiagonal_matmul")
def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None) -> Tensor:
    """``A @ rhs`` for tridiagonal ``A`` given by its diagonals (``compact`` ``[..., 3, M]``,
    ``sequence`` of three ``[..., M]`` or the full ``matrix``)."""
    with op_scope(name, "TridiagonalMatMul", [rhs]) as scope:
        diagonals = _compact_diagonals(diagonals, diagonals_format, "tridiagonal_matmul")
        rhs = convert_to_tensor(rhs, name="rhs", dtype=diagonals.dtype)
        _tridiagonal_check(diagonals, rhs, "tridiagonal_matmul")
        return apply_op("TridiagonalMatMul", [diagonals, rhs], name=scope).outputs[0]


@tf_export("linalg.tridiagonal_solve")
def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False, conjugate_rhs=False,
                      name=None, partial_pivoting=True, perturb_singular=False) -> Tensor:
    """Solves ``A X = rhs`` for tridiagonal ``A`` (LAPACK's gtsv, partial pivoting by default).

    As TF's CPU kernel, a singular system gives NaN (for all of its right-hand sides); with
    ``perturb_singular`` (which needs ``partial_pivoting``) tiny pivots of the pivoted LU are
    perturbed by about ``eps * max|U|`` instead, so the result is finite (as for inverse iteration).
    """
    if perturb_singular and not partial_pivoting:
        raise ValueError("partial_pivoting must be True if perturb_singular is.")
    with op_scope(name, "TridiagonalSolve", [rhs]) as scope:
        diagonals = _compact_diagonals(diagonals, diagonals_format, "tridiagonal_solve")
        rhs = convert_to_tensor(rhs, name="rhs", dtype=diagonals.dtype)
        vector = rhs.shape.ndims is not None and diagonals.shape.ndims is not None and \
            rhs.shape.ndims == diagonals.shape.ndims - 1
        if transpose_rhs:
            rhs = linalg_ops.matrix_transpose(rhs) if not vector else rhs
        if conjugate_rhs:
            rhs = math_ops.conj(rhs)
        if vector:
            rhs = array_ops.expand_dims(rhs, -1)
        _tridiagonal_check(diagonals, rhs, "tridiagonal_solve")
        x = apply_op("TridiagonalSolve", [diagonals, rhs], {"partial_pivoting": bool(partial_pivoting),
                                                            "perturb_singular": bool(perturb_singular)},
                     name=scope).outputs[0]
        return array_ops.squeeze(x, [-1]) if vector else x


# -- eigh_tridiagonal ---------------------------------------------------------------------------


def _eigh_tridiagonal_kernel(alpha, beta, eigvals_only, select, lo, hi):
    xp = array_module(alpha)
    n = alpha.shape[-1]
    t = xp.zeros((n, n), dtype=np.result_type(alpha.dtype, beta.dtype))
    i = xp.arange(n)
    t[i, i] = alpha
    t[i[:-1], i[1:]] = beta.conj() if beta.dtype.kind == "c" else beta
    t[i[1:], i[:-1]] = beta
    w, v = xp.linalg.eigh(lapack_ready(t))
    if select == "i":
        keep = slice(int(lo), int(hi) + 1)
        w, v = w[keep], v[:, keep]
    elif select == "v":
        mask = (w > lo) & (w <= hi)
        w, v = w[mask], v[:, mask]
    w = w.astype(alpha.dtype.type(0).real.dtype, copy=False)
    if eigvals_only:
        return w
    return w, v.astype(t.dtype, copy=False)


def _eigh_tridiagonal_infer(op):
    alpha = op._inputs[0]
    real = alpha.dtype.real_dtype
    n = alpha.shape[-1].value if alpha.shape.ndims else None
    if op.get_attr("select") == "a":
        k = n
    elif op.get_attr("select") == "i":
        k = int(op.get_attr("hi")) - int(op.get_attr("lo")) + 1
    else:
        k = None
    if op.get_attr("eigvals_only"):
        return [(real, TensorShape([k]))]
    return [(real, TensorShape([k])), (alpha.dtype, TensorShape([n, k]))]


register("_EighTridiagonal", infer=_eigh_tridiagonal_infer, kernel=_eigh_tridiagonal_kernel)
not_differentiable("_EighTridiagonal")


@tf_export("linalg.eigh_tridiagonal")
def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None, name=None):
    """Eigenvalues (ascending), and with ``eigvals_only=False`` eigenvectors (columns), of the
    Hermitian tridiagonal matrix with diagonal ``alpha`` and off-diagonal ``beta``; ``select``
    ``"i"`` keeps indices ``select_range[0]..select_range[1]``, ``"v"`` values in ``(lo, hi]``."""
    if select not in ("a", "i", "v"):
        raise ValueError(f"'select' must have a value in {{'a', 'i', 'v'}}, got {select!r}")
    lo, hi = (0, 0) if select == "a" else select_range
    with op_scope(name, "eigh_tridiagonal", [alpha, beta]):
        alpha = convert_to_tensor(alpha, name="alpha")
        beta = convert_to_tensor(beta, name="beta", dtype=alpha.dtype)
        if alpha.shape.ndims not in (None, 1) or beta.shape.ndims not in (None, 1):
            raise ValueError("eigh_tridiagonal: alpha and beta must be vectors")
        if None not in (alpha.shape.ndims, beta.shape.ndims) and None not in (alpha.shape[0].value,
                                                                               beta.shape[0].value):
            if beta.shape[0].value != alpha.shape[0].value - 1:
                raise ValueError(f"eigh_tridiagonal: beta must have one element fewer than alpha, got "
                                 f"{beta.shape[0].value} and {alpha.shape[0].value}")
        check_dtype(alpha, INEXACT, "alpha")
        out = apply_op("_EighTridiagonal", [alpha, beta], {"eigvals_only": bool(eigvals_only), "select": select,
                                                           "lo": float(lo), "hi": float(hi)}).outputs
        return out[0] if eigvals_only else (out[0], out[1])
