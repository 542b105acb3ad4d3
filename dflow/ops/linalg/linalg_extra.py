"""The rest of ``tf.linalg``: matrix functions (``expm``, ``logm``, ``sqrtm``), the LU family,
``pinv``, ``matrix_rank``, ``normalize`` and ``tensor_diag``/``tensor_diag_part``; the tridiagonal ops are in
``linalg_tridiagonal.py``.

Kernels are numpy (no SciPy): ``expm`` is Higham's scaling-and-squaring Padé 13
(TF's algorithm), its gradient the Fréchet derivative read off the exponential
of a 2n×2n block matrix; ``sqrtm`` and ``logm`` go through an eigendecomposition
(exact for the diagonalizable matrices TF's Schur method is used on), the
square root's gradient solves TF's Sylvester equation. ``lu`` is LAPACK's
partial pivoting (``getrf``). ``lu_solve``, ``lu_reconstruct``,
``lu_matrix_inverse``, ``pinv``, ``matrix_rank`` and ``normalize`` are built from other ops as in TF, so their
gradients are the composites'. TF has no gradient for ``Lu`` and
``MatrixLogarithm``; neither has dflow.

``tf.linalg.LinearOperator*`` are in ``dflow/ops/linear_operators/``.
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
