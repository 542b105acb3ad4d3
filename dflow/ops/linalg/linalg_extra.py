"""The rest of ``tf.linalg``: matrix functions (``expm``, ``logm``, ``sqrtm``), the LU family,
``pinv``, ``matrix_rank``, ``normalize``, ``tensor_diag``/``tensor_diag_part``, tridiagonal
``matmul``/``solve`` and ``eigh_tridiagonal``.

Kernels are numpy (no SciPy): ``expm`` is Higham's scaling-and-squaring Padé 13
(TF's algorithm), its gradient the Fréchet derivative read off the exponential
of a 2n×2n block matrix; ``sqrtm`` and ``logm`` go through an eigendecomposition
(exact for the diagonalizable matrices TF's Schur method is used on), the
square root's gradient solves TF's Sylvester equation. ``lu`` is LAPACK's
partial pivoting (``getrf``), ``tridiagonal_solve`` LAPACK's ``gtsv`` (partial
pivoting; NaN for a singular system, as TF's CPU kernel) or, with ``perturb_singular``, TF's
LU with perturbed tiny pivots (LAPACK's ``lagtf``/``lagts``). ``lu_solve``, ``lu_reconstruct``,
``lu_matrix_inverse``, ``pinv``, ``matrix_rank`` and ``normalize`` are built from other ops as in TF, so their
gradients are the composites'. TF has no gradient for ``Lu`` and
``MatrixLogarithm``; neither has dflow.

``tf.linalg.LinearOperator*`` are not implemented (see docs/porting.md).
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, unknown_shape
from dflow.kernels import array_module
from dflow.ops.array import array_ops, gather_ops, partition_ops
from dflow.ops.linalg import diag_ops, linalg_ops
from dflow.ops.linalg._linalg_common import (
    COMPLEX,
    INEXACT,
    cast,
    check_dtype,
    check_square,
    invalid,
    lapack_ready,
    op_scope,
    square_infer,
    static_dims,
    unary_matrix_op,
)
from dflow.ops.math import math_ops, reduction_ops

# -- MatrixExponential --------------------------------------------------------------------

_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800., 129060195264000.,
           10559470521600., 670442572800., 33522128640., 1323241920., 40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


def _expm(a):
    """exp of each innermost square matrix: scaling and squaring with a [13/13] Padé approximant."""
    xp = array_module(a)
    work = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    norms = xp.abs(work).sum(axis=-2).max(axis=-1) if work.size else xp.zeros(work.shape[:-2])
    squarings = xp.maximum(0, xp.ceil(xp.log2(xp.maximum(norms, 1e-300) / _THETA13))).astype(np.int64)
    work = work / (2.0 ** squarings)[..., None, None]
    n = a.shape[-1]
    eye = xp.broadcast_to(xp.eye(n, dtype=work.dtype), work.shape)
    b = _PADE13
    a2 = work @ work
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = work @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    result = xp.linalg.solve(v - u, v + u)
    most = int(squarings.max()) if squarings.size else 0
    for k in range(most):
        todo = (squarings > k)[..., None, None]
        result = xp.where(todo, result @ result, result)
    return result


def _expm_kernel(x):
    check_square(x)
    return cast(_expm(x), x.dtype)


register("MatrixExponential", infer=square_infer, kernel=_expm_kernel)


def _expm_grad_kernel(x, grad):
    """The adjoint Fréchet derivative: the top-right block of exp([[Aᴴ, G], [0, Aᴴ]])."""
    xp = array_module(x)
    n = x.shape[-1]
    ah = x.swapaxes(-1, -2).conj() if x.dtype.kind == "c" else x.swapaxes(-1, -2)
    block = xp.zeros(x.shape[:-2] + (2 * n, 2 * n), dtype=np.result_type(x.dtype, grad.dtype))
    block[..., :n, :n] = ah
    block[..., n:, n:] = ah
    block[..., :n, n:] = grad
    return cast(_expm(block)[..., :n, n:], x.dtype)


def _gradient_by_kernel(op_type: str, grad_kernel, use_output: bool) -> None:
    """Registers ``op_type``'s gradient as the op ``_<op_type>Grad`` running ``grad_kernel(x, grad)``
    (``x`` the op's input, or its output when ``use_output``)."""
    grad_type = f"_{op_type}Grad"
    register(grad_type, infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], kernel=grad_kernel)
    not_differentiable(grad_type)

    @gradient(op_type)
    def _grad(op, grad):
        x = op.outputs[0] if use_output else op.inputs[0]
        return [apply_op(grad_type, [x, grad]).outputs[0]]


_gradient_by_kernel("MatrixExponential", _expm_grad_kernel, use_output=False)


@tf_export("linalg.expm")
def expm(input, name=None) -> Tensor:  # noqa: A002 - TF argument name
    """The matrix exponential of each innermost square matrix."""
    return unary_matrix_op("MatrixExponential", input, name).outputs[0]


# -- MatrixSquareRoot, MatrixLogarithm -------------------------------------------------------


def _eig_function(x, fn):
    """f(A) = V f(Λ) V⁻¹ through numpy's eigendecomposition (complex arithmetic)."""
    xp = array_module(x)
    w, v = xp.linalg.eig(lapack_ready(x))
    return (v * fn(w)[..., None, :]) @ xp.linalg.inv(v)


def _sqrtm_kernel(x):
    check_square(x)
    if x.dtype.kind != "c":
        xp = array_module(x)
        sym = bool((x == x.swapaxes(-1, -2)).all())
        if sym:  # symmetric: eigh keeps it real and exactly symmetric
            w, v = xp.linalg.eigh(lapack_ready(x))
            if (w < -1e-12 * max(1.0, float(xp.abs(w).max(initial=0.0)))).any():
                return xp.full_like(x, np.nan)
            return cast((v * xp.sqrt(xp.maximum(w, 0))[..., None, :]) @ v.swapaxes(-1, -2), x.dtype)
        out = _eig_function(x.astype(np.complex128), np.sqrt)
        return cast(out.real, x.dtype)
    return cast(_eig_function(x, np.sqrt), x.dtype)


register("MatrixSquareRoot", infer=square_infer, kernel=_sqrtm_kernel)


def _sylvester_grad_kernel(root, grad):
    """G_A solving Xᴴ G_A + G_A Xᴴ = G for X = sqrtm(A): TF's MatrixSquareRoot gradient."""
    xp = array_module(root)
    xh = root.swapaxes(-1, -2).conj()
    w, v = xp.linalg.eig(xh.astype(np.complex128))
    vinv = xp.linalg.inv(v)
    inner = (vinv @ grad @ v) / (w[..., :, None] + w[..., None, :])
    out = v @ inner @ vinv
    return cast(out if root.dtype.kind == "c" else out.real, root.dtype)


_gradient_by_kernel("MatrixSquareRoot", _sylvester_grad_kernel, use_output=True)


@tf_export("linalg.sqrtm", "matrix_square_root")
def sqrtm(input, name=None) -> Tensor:  # noqa: A002 - TF argument name
    """The principal square root of each innermost square matrix (NaN where it has no real one)."""
    return unary_matrix_op("MatrixSquareRoot", input, name).outputs[0]


def _logm_kernel(x):
    check_square(x)
    return cast(_eig_function(x, np.log), x.dtype)


register("MatrixLogarithm", infer=square_infer, kernel=_logm_kernel)
not_differentiable("MatrixLogarithm")


@tf_export("linalg.logm")
def logm(input, name=None) -> Tensor:  # noqa: A002 - TF argument name
    """The principal logarithm of each innermost square complex matrix (TF takes complex64/128 only)."""
    with op_scope(name, "MatrixLogarithm", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        check_dtype(x, COMPLEX, "input")
        return apply_op("MatrixLogarithm", [x], name=scope).outputs[0]


# -- Lu and what is built on it ---------------------------------------------------------------


def _lu_infer(op):
    x = op._inputs[0]
    dims = static_dims(x)
    index = op.get_attr("output_idx_type")
    if dims is None:
        return [(x.dtype, unknown_shape()), (index, unknown_shape())]
    return [(x.dtype, TensorShape(dims)), (index, TensorShape(dims[:-1]))]


def _lu_kernel(x, output_idx_type):
    check_square(x)
    xp = array_module(x)
    a = lapack_ready(x).copy()
    n = a.shape[-1]
    batch = a.shape[:-2]
    flat = a.reshape((-1, n, n))
    perm = xp.broadcast_to(xp.arange(n), (flat.shape[0], n)).copy()
    rows = xp.arange(flat.shape[0])
    for k in range(n):
        pivot = k + xp.abs(flat[:, k:, k]).argmax(axis=1)
        if (flat[rows, pivot, k] == 0).any():
            raise invalid("Input is not invertible.")
        swap = pivot != k
        if swap.any():
            top = flat[rows, k, :].copy()
            flat[rows, k, :] = flat[rows, pivot, :]
            flat[rows, pivot, :] = top
            pk = perm[rows, k].copy()
            perm[rows, k] = perm[rows, pivot]
            perm[rows, pivot] = pk
        flat[:, k + 1:, k] /= flat[:, k:k + 1, k]
        flat[:, k + 1:, k + 1:] -= flat[:, k + 1:, k:k + 1] * flat[:, k:k + 1, k + 1:]
    return cast(flat.reshape(a.shape), x.dtype), perm.reshape(batch + (n,)).astype(output_idx_type.as_numpy_dtype)


register("Lu", infer=_lu_infer, kernel=_lu_kernel)
not_differentiable("Lu")


class _LuResult(tuple):
    """``(lu, p)`` with TF's field names."""

    lu = property(lambda self: self[0])
    p = property(lambda self: self[1])


@tf_export("linalg.lu")
def lu(input, output_idx_type=dtypes.int32, name=None):  # noqa: A002 - TF argument name
    """``(lu, p)``: L (unit diagonal, below) and U (on and above) in one matrix, and the row
    permutation with ``input[..., p, :] = L @ U``, by partial pivoting."""
    op = unary_matrix_op("Lu", input, name, attrs={"output_idx_type": dtypes.as_dtype(output_idx_type)})
    return _LuResult(op.outputs)


def _lower_unit_and_upper(lower_upper):
    lower = linalg_ops.matrix_band_part(lower_upper, -1, 0)
    ones = array_ops.ones_like(diag_ops.matrix_diag_part(lower))
    return diag_ops.matrix_set_diag(lower, ones), linalg_ops.matrix_band_part(lower_upper, 0, -1)


def _batch_dims(t: Tensor) -> int:
    if t.shape.ndims is None:
        raise ValueError("lu functions need inputs of known rank")
    return t.shape.ndims - 1


@tf_export("linalg.lu_reconstruct")
def lu_reconstruct(lower_upper, perm, validate_args=False, name=None) -> Tensor:
    """The matrix ``lu`` factors: ``P⁻¹ L U``."""
    with op_scope(name, "lu_reconstruct", [lower_upper, perm]):
        lower_upper = convert_to_tensor(lower_upper, name="lower_upper")
        perm = convert_to_tensor(perm, name="perm")
        lower, upper = _lower_unit_and_upper(lower_upper)
        x = linalg_ops.matmul(lower, upper)
        return gather_ops.gather(x, partition_ops.invert_permutation(perm) if perm.shape.ndims == 1
                                else _batch_invert_permutation(perm), batch_dims=_batch_dims(perm))


def _batch_invert_permutation(perm):
    from dflow.ops.math.sort_ops import argsort

    return math_ops.cast(argsort(perm, axis=-1), perm.dtype)


@tf_export("linalg.lu_solve")
def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None) -> Tensor:
    """Solves ``A X = rhs`` from ``lu(A)``: permute, then two triangular solves."""
    from dflow.ops.linalg.linalg_solvers import matrix_triangular_solve

    with op_scope(name, "lu_solve", [lower_upper, perm, rhs]):
        lower_upper = convert_to_tensor(lower_upper, name="lower_upper")
        perm = convert_to_tensor(perm, name="perm")
        rhs = convert_to_tensor(rhs, name="rhs", dtype=lower_upper.dtype)
        permuted = gather_ops.gather(rhs, perm, batch_dims=_batch_dims(perm))
        lower, upper = _lower_unit_and_upper(lower_upper)
        y = matrix_triangular_solve(lower, permuted, lower=True)
        return matrix_triangular_solve(upper, y, lower=False)


@tf_export("linalg.lu_matrix_inverse")
def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None) -> Tensor:
    """The inverse of the matrix ``lu`` factors."""
    from dflow.ops.linalg.diag_ops import eye

    with op_scope(name, "lu_matrix_inverse", [lower_upper, perm]):
        lower_upper = convert_to_tensor(lower_upper, name="lower_upper")
        n = array_ops.shape(lower_upper)[-1]
        shape = array_ops.shape(lower_upper)[:-2]
        return lu_solve(lower_upper, perm, eye(n, batch_shape=shape, dtype=lower_upper.dtype))


# -- pinv, matrix_rank, normalize -------------------------------------------------------------


def _eps(dtype) -> float:
    return float(np.finfo(dtype.real_dtype.as_numpy_dtype if dtype.is_complex else dtype.as_numpy_dtype).eps)


@tf_export("linalg.pinv")
def pinv(a, rcond=None, validate_args=False, name=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse, from the SVD; singular values ≤ ``rcond·max(s)`` count as 0
    (``rcond`` defaults to ``10·max(rows, cols)·eps``)."""
    from dflow.ops.linalg.linalg_factorizations import svd

    with op_scope(name, "pinv", [a, rcond]):
        a = convert_to_tensor(a, name="a")
        check_dtype(a, INEXACT, "a")
        if rcond is None:
            dims = a.shape.as_list()[-2:] if a.shape.ndims else [None, None]
            if None in dims:
                m = math_ops.cast(reduction_ops.reduce_max(array_ops.shape(a)[-2:]), a.dtype.real_dtype)
                rcond = 10.0 * _eps(a.dtype) * m
            else:
                rcond = 10.0 * _eps(a.dtype) * max(dims)
        rcond = convert_to_tensor(rcond, dtype=a.dtype.real_dtype, name="rcond")
        s, u, v = svd(a, full_matrices=False, compute_uv=True)
        cutoff = rcond * reduction_ops.reduce_max(s, axis=-1)
        keep = math_ops.greater(s, array_ops.expand_dims(cutoff, -1))
        from dflow.ops.array.select_ops import where

        inv_s = where(keep, math_ops.reciprocal(s), array_ops.zeros_like(s))
        inv_s = math_ops.cast(inv_s, a.dtype)
        return linalg_ops.matmul(v * array_ops.expand_dims(inv_s, -2), u, adjoint_b=True)


@tf_export("linalg.matrix_rank")
def matrix_rank(a, tol=None, validate_args=False, name=None) -> Tensor:
    """The number of singular values above ``tol`` (default ``max(s)·max(rows, cols)·eps``), int32."""
    from dflow.ops.linalg.linalg_factorizations import svd

    with op_scope(name, "matrix_rank", [a, tol]):
        a = convert_to_tensor(a, name="a")
        s = svd(a, compute_uv=False)
        if tol is None:
            dims = a.shape.as_list()[-2:] if a.shape.ndims else [None, None]
            if None in dims:
                m = math_ops.cast(reduction_ops.reduce_max(array_ops.shape(a)[-2:]), s.dtype)
            else:
                m = float(max(dims))
            tol = reduction_ops.reduce_max(s, axis=-1, keepdims=True) * m * _eps(s.dtype)
        return reduction_ops.reduce_sum(math_ops.cast(math_ops.greater(s, tol), dtypes.int32), axis=-1)


@tf_export("linalg.normalize")
def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002 - TF argument name
    """``(tensor / norm, norm)`` with ``norm = tf.norm(tensor, ord, axis, keepdims=True)``."""
    from dflow.ops.linalg.linalg_norms import norm

    with op_scope(name, "normalize", [tensor]):
        tensor = convert_to_tensor(tensor, name="tensor")
        n = norm(tensor, ord=ord, axis=axis, keepdims=True)
        n = math_ops.cast(n, tensor.dtype)
        return math_ops.divide(tensor, n), n


# -- Diag, DiagPart ---------------------------------------------------------------------------


def _diag_infer(op):
    x = op._inputs[0]
    if x.shape.ndims is None:
        return [(x.dtype, unknown_shape())]
    return [(x.dtype, TensorShape(x.shape.as_list() * 2))]


def _diag_kernel(x):
    xp = array_module(x)
    flat = x.reshape(-1)
    out = xp.zeros((flat.size, flat.size), dtype=x.dtype)
    out[xp.arange(flat.size), xp.arange(flat.size)] = flat
    return out.reshape(x.shape * 2)


def _diag_part_infer(op):
    x = op._inputs[0]
    if x.shape.ndims is None:
        return [(x.dtype, unknown_shape())]
    dims = x.shape.as_list()
    if len(dims) % 2:
        raise ValueError(f"Input must have even rank <= 6, input rank is {len(dims)}")
    half = len(dims) // 2
    for a, b in zip(dims[:half], dims[half:]):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return [(x.dtype, TensorShape([a if a is not None else b for a, b in zip(dims[:half], dims[half:])]))]


def _diag_part_kernel(x):
    half = x.ndim // 2
    if x.ndim % 2 or x.shape[:half] != x.shape[half:]:
        raise invalid(f"Invalid shape {list(x.shape)}: dimensions i and i + rank/2 must be equal")
    size = int(np.prod(x.shape[:half], dtype=np.int64))
    return x.reshape(size, size).diagonal().reshape(x.shape[:half]).copy()


register("Diag", infer=_diag_infer, kernel=_diag_kernel)
register("DiagPart", infer=_diag_part_infer, kernel=_diag_part_kernel)


@gradient("Diag")
def _diag_grad(op, grad):
    return [tensor_diag_part(grad)]


@gradient("DiagPart")
def _diag_part_grad(op, grad):
    return [tensor_diag(grad)]


@tf_export("linalg.tensor_diag", "diag")
def tensor_diag(diagonal, name=None) -> Tensor:
    """A tensor of rank 2k with ``diagonal`` (rank k) on its diagonal and zeros elsewhere."""
    with op_scope(name, "Diag", [diagonal]) as scope:
        return apply_op("Diag", [convert_to_tensor(diagonal, name="diagonal")], name=scope).outputs[0]


@tf_export("linalg.tensor_diag_part", "diag_part")
def tensor_diag_part(input, name=None) -> Tensor:  # noqa: A002 - TF argument name
    """The diagonal of a tensor of rank 2k (the inverse of ``tensor_diag``)."""
    with op_scope(name, "DiagPart", [input]) as scope:
        return apply_op("DiagPart", [convert_to_tensor(input, name="input")], name=scope).outputs[0]


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
