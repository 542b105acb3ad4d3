"""Linear algebra ops against numpy, with TF1's numbers where its semantics are its own.

One table of cases drives the value/dtype/static-shape test and the check
that every kernel returns exactly its static dtype. Expectations marked "TF"
were read from TensorFlow's ``compat.v1`` graph mode.
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from dflow.ops.linalg import linalg_ops
from tests.ops import harness

c = tf.constant
inf = np.inf
F16, F32, F64, C64, I32 = np.float16, np.float32, np.float64, np.complex64, np.int32

_rng = np.random.default_rng(7)


def rand(*shape, dtype=F32):
    if np.dtype(dtype).kind == "c":
        return (_rng.standard_normal(shape) + 1j * _rng.standard_normal(shape)).astype(dtype)
    return _rng.standard_normal(shape).astype(dtype)


def ct(x):
    """numpy's conjugate transpose of the innermost two dimensions."""
    return np.conj(np.swapaxes(x, -1, -2))


def spd(*batch, n=3, dtype=F64):
    """Well-conditioned Hermitian positive definite matrices."""
    a = rand(*batch, n, n, dtype=dtype)
    return (a @ ct(a) + n * np.eye(n)).astype(dtype)


A23, A32, B34, B43 = rand(2, 3), rand(3, 2), rand(3, 4), rand(4, 3)
X523, Y534, Y34 = rand(5, 2, 3), rand(5, 3, 4), rand(3, 4)
X5123, Y734 = rand(5, 1, 2, 3), rand(7, 3, 4)
CA, CB = rand(3, 2, dtype=C64), rand(3, 4, dtype=C64)
CX, CY = rand(2, 3, 2, dtype=C64), rand(2, 3, 4, dtype=C64)
V3 = rand(3)
S3 = spd(2).astype(F32)  # [2, 3, 3]
R2 = rand(2, 3, 2)
M44 = np.arange(16, dtype=F32).reshape(4, 4)
T3 = rand(2, 3, 4)
W435 = rand(4, 3, 5)
SPD64 = spd(2)
H2 = spd(2, dtype=np.complex128)  # Hermitian positive definite


def case(id, build, expected, **kw):
    """A table row: ``build()`` gives a tensor, or ``(tensor, feed_dict)``."""
    return pytest.param(build, expected, kw, id=id)


def with_feed(fn, dtype, shape, value):
    """``fn`` of a placeholder of ``shape`` (may hold None), and the feed that gives it ``value``."""
    ph = tf.placeholder(dtype, shape)
    return fn(ph), {ph: value}


CASES = [
    # -- matmul -----------------------------------------------------------------------
    case("matmul", lambda: tf.matmul(c(A23), c(B34)), A23 @ B34),
    case("matmul_transpose_a", lambda: tf.matmul(c(A32), c(B34), transpose_a=True), A32.T @ B34),
    case("matmul_transpose_b", lambda: tf.matmul(c(A23), c(B43), transpose_b=True), A23 @ B43.T),
    case("matmul_transpose_both", lambda: tf.matmul(c(A32), c(B43), transpose_a=True, transpose_b=True),
         A32.T @ B43.T),
    case("matmul_adjoint_real", lambda: tf.matmul(c(A32), c(B34), adjoint_a=True), A32.T @ B34),
    case("matmul_sparse_hints", lambda: tf.matmul(c(A23), c(B34), a_is_sparse=True, b_is_sparse=True), A23 @ B34),
    case("matmul_f64", lambda: tf.matmul(c(A23.astype(F64)), c(B34.astype(F64))), A23.astype(F64) @ B34),
    case("matmul_f16", lambda: tf.matmul(c(A23.astype(F16)), c(B34.astype(F16))),
         A23.astype(F16) @ B34.astype(F16), rtol=1e-2, atol=1e-2),
    case("matmul_int32", lambda: tf.matmul(c([[1, 2]]), c([[3], [4]])), I32([[11]])),  # TF
    case("matmul_python_lists", lambda: tf.matmul([[1.0, 2.0]], [[3.0], [4.0]]), F32([[11.0]])),
    case("matmul_python_rhs_takes_lhs_dtype", lambda: tf.matmul(c(A23.astype(F64)), [[1], [2], [3]]),
         A23.astype(F64) @ np.array([[1], [2], [3]], F64)),
    case("matmul_complex_adjoint_a", lambda: tf.matmul(c(CA), c(CB), adjoint_a=True), ct(CA) @ CB, rtol=1e-5),
    case("matmul_complex_transpose_a", lambda: tf.matmul(c(CA), c(CB), transpose_a=True), CA.T @ CB, rtol=1e-5),
    case("matmul_complex_adjoint_b", lambda: tf.matmul(c(CB.T.copy()), c(CB.T.copy()), adjoint_b=True),
         CB.T @ np.conj(CB), rtol=1e-5),
    case("batch_matmul", lambda: tf.matmul(c(X523), c(Y534)), X523 @ Y534, rtol=1e-5),
    case("batch_matmul_broadcast_rank2", lambda: tf.matmul(c(X523), c(Y34)), X523 @ Y34, rtol=1e-5),
    case("batch_matmul_broadcast_batch", lambda: tf.matmul(c(X5123), c(Y734)), X5123 @ Y734, rtol=1e-5),
    case("batch_matmul_adjoint_a", lambda: tf.matmul(c(R2), c(Y534[:2]), adjoint_a=True),
         np.swapaxes(R2, -1, -2) @ Y534[:2], rtol=1e-5),
    case("batch_matmul_transpose_b", lambda: tf.matmul(c(X523), c(np.swapaxes(Y534, 1, 2).copy()), transpose_b=True),
         X523 @ Y534, rtol=1e-5),
    case("batch_matmul_int32", lambda: tf.matmul(c(np.ones([2, 2, 3], I32)), c(np.ones([2, 3, 1], I32))),
         np.full([2, 2, 1], 3, I32)),
    case("batch_matmul_complex_transpose_a", lambda: tf.matmul(c(CX), c(CY), transpose_a=True),
         np.swapaxes(CX, -1, -2) @ CY, rtol=1e-5),
    case("batch_matmul_complex_adjoint_a", lambda: tf.matmul(c(CX), c(CY), adjoint_a=True), ct(CX) @ CY, rtol=1e-5),
    case("matmul_fed_unknown_dims", lambda: with_feed(lambda x: tf.matmul(x, c(B34)), tf.float32, [None, None], A23),
         A23 @ B34, shape=[None, 4]),
    case("matmul_fed_unknown_rank", lambda: with_feed(lambda x: tf.matmul(x, c(Y34)), tf.float32, None, X523),
         X523 @ Y34, shape=None, rtol=1e-5),
    case("matmul_operator", lambda: c(A23) @ c(B34), A23 @ B34),
    # -- matvec -----------------------------------------------------------------------
    case("matvec", lambda: tf.linalg.matvec(c(A23), c(V3)), A23 @ V3),
    case("matvec_batch_broadcast", lambda: tf.linalg.matvec(c(X523), c(V3)), X523 @ V3, rtol=1e-5),
    case("matvec_transpose_a", lambda: tf.linalg.matvec(c(A32), c(V3), transpose_a=True), A32.T @ V3),
    case("matvec_adjoint_complex", lambda: tf.linalg.matvec(c(CA), c(CA[:, 0].copy()), adjoint_a=True),
         ct(CA) @ CA[:, 0], rtol=1e-5),
    # -- matrix_transpose / adjoint ------------------------------------------------------
    case("matrix_transpose", lambda: tf.matrix_transpose(c(T3)), np.swapaxes(T3, 1, 2)),
    case("linalg_transpose_conjugate", lambda: tf.linalg.transpose(c(CX), conjugate=True), ct(CX)),
    case("linalg_transpose_keeps_complex", lambda: tf.linalg.transpose(c(CX)), np.swapaxes(CX, 1, 2)),
    case("adjoint", lambda: tf.linalg.adjoint(c(CX)), ct(CX)),
    case("matrix_transpose_fed", lambda: with_feed(tf.matrix_transpose, tf.float32, None, T3),
         np.swapaxes(T3, 1, 2), shape=None),
    # -- band_part --------------------------------------------------------------------
    case("band_part_lower1", lambda: tf.matrix_band_part(c(M44), 1, 0),  # TF
         F32([[0, 0, 0, 0], [4, 5, 0, 0], [0, 9, 10, 0], [0, 0, 14, 15]])),
    case("band_part_upper_triangle", lambda: tf.linalg.band_part(c(M44), 0, -1), np.triu(M44)),
    case("band_part_lower_triangle", lambda: tf.linalg.band_part(c(M44), -2, 0), np.tril(M44)),  # TF
    case("band_part_tridiagonal_int", lambda: tf.linalg.band_part(c(M44.astype(I32)), 1, 1),
         np.triu(np.tril(M44, 1), -1).astype(I32)),
    case("band_part_batch_rectangular", lambda: tf.linalg.band_part(c(T3), 0, 1), np.triu(np.tril(T3, 1))),
    case("band_part_bool", lambda: tf.linalg.band_part(c(np.ones([2, 2], bool)), 0, 0), np.eye(2, dtype=bool)),
    case("band_part_int64_bounds", lambda: tf.linalg.band_part(c(M44), c(np.int64(0)), -1), np.triu(M44)),
    case("band_part_keeps_nan_out", lambda: tf.linalg.band_part(c(F32([[1, np.nan], [2, 3]])), 0, 0),
         F32([[1, 0], [0, 3]])),
    # -- trace ------------------------------------------------------------------------
    case("trace_batch", lambda: tf.trace(c(S3)), np.trace(S3, axis1=1, axis2=2), rtol=1e-5),
    case("trace_rectangular", lambda: tf.linalg.trace(c(np.arange(6.0, dtype=F32).reshape(2, 3))), F32(4.0)),  # TF
    case("trace_int32", lambda: tf.trace(c(np.arange(9, dtype=I32).reshape(3, 3))), I32(12)),
    case("trace_python_list", lambda: tf.trace([[1.0, 2.0], [3.0, 4.0]]), F32(5.0)),
    # -- cross ------------------------------------------------------------------------
    case("cross_int32", lambda: tf.cross(c([1, 2, 3]), c([4, 5, 6])), I32([-3, 6, -3])),  # TF
    case("cross_batch", lambda: tf.linalg.cross(c(B43), c(B43[::-1].copy())), np.cross(B43, B43[::-1]), rtol=1e-5),
    # -- tensordot --------------------------------------------------------------------
    case("tensordot_int_axes", lambda: tf.tensordot(c(T3), c(B43), 1), np.tensordot(T3, B43, 1), rtol=1e-5),
    case("tensordot_axis_lists", lambda: tf.tensordot(c(T3), c(W435), [[1, 2], [1, 0]]),
         np.tensordot(T3, W435, [[1, 2], [1, 0]]), rtol=1e-5),
    case("tensordot_outer", lambda: tf.tensordot(c(V3), c(V3[:2]), 0), np.multiply.outer(V3, V3[:2])),
    case("tensordot_negative_axes", lambda: tf.tensordot(c(A23), c(B34), [[-1], [0]]), A23 @ B34),
    case("tensordot_pair_of_ints", lambda: tf.tensordot(c(A32), c(A23), [0, 1]), np.tensordot(A32, A23, [0, 1])),
    case("tensordot_full_contraction", lambda: tf.tensordot(c(A23), c(A23), 2), F32(np.sum(A23 * A23)), rtol=1e-5),
    case("tensordot_int32", lambda: tf.tensordot(c(np.ones([2, 3], I32)), c(np.ones([3, 5], I32)), 1),
         np.full([2, 5], 3, I32)),  # TF
    case("tensordot_fed", lambda: with_feed(lambda x: tf.tensordot(x, c(B34), [[1], [0]]), tf.float32,
                                            [None, 3], A23), A23 @ B34, shape=[None, 4]),
    # -- einsum -----------------------------------------------------------------------
    case("einsum_matmul", lambda: tf.einsum("ij,jk->ik", c(A23), c(B34)), A23 @ B34, rtol=1e-5),
    case("einsum_batch", lambda: tf.einsum("bij,bjk->bik", c(X523), c(Y534)), X523 @ Y534, rtol=1e-5),
    case("einsum_implicit_output", lambda: tf.einsum("ij,jk", c(A23), c(B34)), A23 @ B34, rtol=1e-5),
    case("einsum_transpose", lambda: tf.einsum("ij->ji", c(A23)), A23.T),
    case("einsum_diagonal_sum", lambda: tf.einsum("ii", c(M44)), F32(30.0)),
    case("einsum_sum_all", lambda: tf.einsum("ij->", c(M44)), F32(120.0)),
    case("einsum_outer", lambda: tf.einsum("i,j->ij", c(V3), c(V3)), np.outer(V3, V3)),
    case("einsum_ellipsis_broadcast", lambda: tf.einsum("...ij,...jk->...ik", c(X5123), c(Y734)),
         X5123 @ Y734, rtol=1e-5),
    case("einsum_three_operands", lambda: tf.einsum("ij,jk,kl->il", c(A23), c(B34), c(B43)),
         A23 @ B34 @ B43, rtol=1e-4),
    case("einsum_spaces_and_upper_case", lambda: tf.einsum("iJ, Jk -> ik", c(A23), c(B34)), A23 @ B34, rtol=1e-5),
    case("einsum_int32", lambda: tf.einsum("ij,jk->ik", c(np.ones([2, 3], I32)), c(np.ones([3, 5], I32))),
         np.full([2, 5], 3, I32)),  # TF
    case("einsum_fed", lambda: with_feed(lambda x: tf.einsum("ij,jk->ik", x, c(B34)), tf.float32, [None, 3], A23),
         A23 @ B34, shape=[None, 4], rtol=1e-5),
    # -- norm -------------------------------------------------------------------------
    case("norm_vector", lambda: tf.norm(c(F32([3, 4]))), F32(5.0)),
    case("norm_all_elements", lambda: tf.norm(c(T3)), np.linalg.norm(T3.ravel()), rtol=1e-5),
    case("norm_ord1", lambda: tf.norm(c(V3), ord=1), np.abs(V3).sum(), rtol=1e-5),
    case("norm_ord2", lambda: tf.norm(c(V3), ord=2), np.linalg.norm(V3), rtol=1e-5),
    case("norm_ord_inf", lambda: tf.norm(c(V3), ord=np.inf), np.abs(V3).max()),
    case("norm_ord3", lambda: tf.norm(c(F32([1, 2, 3])), ord=3.0), F32(3.3019273)),  # TF
    case("norm_ord_half", lambda: tf.norm(c(np.ones(3, F32)), ord=0.5), F32(9.0)),  # TF
    case("norm_axis", lambda: tf.norm(c(T3), axis=1), np.linalg.norm(T3, axis=1), rtol=1e-5),
    case("norm_axis_negative_keepdims", lambda: tf.norm(c(T3), axis=-1, keepdims=True),
         np.linalg.norm(T3, axis=-1, keepdims=True), rtol=1e-5),
    case("norm_keep_dims_tf1", lambda: tf.norm(c(T3), axis=1, keep_dims=True),
         np.linalg.norm(T3, axis=1, keepdims=True), rtol=1e-5),
    case("norm_keepdims_all", lambda: tf.norm(c(A23), keepdims=True), np.linalg.norm(A23).reshape(1, 1), rtol=1e-5),
    case("norm_fro", lambda: tf.norm(c(T3), ord="fro", axis=[1, 2]), np.linalg.norm(T3, "fro", axis=(1, 2)),
         rtol=1e-5),
    case("norm_matrix_1", lambda: tf.norm(c(T3), ord=1, axis=[-2, -1]), np.linalg.norm(T3, 1, axis=(1, 2)),
         rtol=1e-5),
    case("norm_matrix_1_axes_swapped", lambda: tf.norm(c(T3), ord=1, axis=(2, 1)), np.linalg.norm(T3, 1, axis=(2, 1)),
         rtol=1e-5),
    case("norm_matrix_inf", lambda: tf.norm(c(T3), ord=np.inf, axis=[1, 2]), np.linalg.norm(T3, inf, axis=(1, 2)),
         rtol=1e-5),
    case("norm_matrix_inf_keepdims", lambda: tf.norm(c(T3), ord=np.inf, axis=[0, 2], keepdims=True),
         np.linalg.norm(T3, inf, axis=(0, 2), keepdims=True), rtol=1e-5),
    case("norm_matrix_2", lambda: tf.norm(c(T3), ord=2, axis=[1, 2]), np.linalg.norm(T3, 2, axis=(1, 2)),
         rtol=1e-5),
    case("norm_complex_spectral_is_real", lambda: tf.norm(c(CX[0]), ord=2, axis=[0, 1]),
         F32(np.linalg.norm(CX[0], 2)), rtol=1e-5),  # TF
    case("norm_matrix_2_outer_axes_keepdims", lambda: tf.norm(c(T3), ord=2, axis=[2, 0], keepdims=True),
         np.linalg.norm(T3, 2, axis=(2, 0), keepdims=True), rtol=1e-5),
    case("norm_f64", lambda: tf.norm(c(F64([3, 4]))), F64(5.0)),
    case("norm_f16", lambda: tf.norm(c(F16([3, 4]))), F16(5.0)),
    case("norm_complex_stays_complex", lambda: tf.norm(c(C64([3 + 4j, 0]))), C64(5.0)),  # TF
    case("norm_complex_ord1_is_real", lambda: tf.norm(c(C64([3 + 4j, 0])), ord=1), F32(5.0)),  # TF
    case("norm_python_list", lambda: tf.norm([3.0, 4.0]), F32(5.0)),
    case("norm_fed_unknown_rank", lambda: with_feed(lambda x: tf.norm(x, axis=1), tf.float32, None, T3),
         np.linalg.norm(T3, axis=1), shape=None, rtol=1e-5),
    # -- inverse and determinants ------------------------------------------------------
    case("inv", lambda: tf.matrix_inverse(c(S3)), np.linalg.inv(S3), rtol=1e-4, atol=1e-5),
    case("inv_adjoint", lambda: tf.linalg.inv(c(R2[:, :2]), adjoint=True), np.linalg.inv(ct(R2[:, :2])),
         rtol=1e-4, atol=1e-4),
    case("inv_f64", lambda: tf.linalg.inv(c(SPD64)), np.linalg.inv(SPD64), rtol=1e-10),
    case("inv_f16", lambda: tf.linalg.inv(c(F16([[2, 1], [1, 2]]))), F16([[0.6665, -0.3333], [-0.3333, 0.6665]]),
         rtol=1e-3, atol=1e-3),  # TF
    case("inv_complex", lambda: tf.linalg.inv(c(CX[:, :2])), np.linalg.inv(CX[:, :2]), rtol=1e-4, atol=1e-5),
    case("inv_empty_batch", lambda: tf.linalg.inv(c(np.zeros([3, 0, 0], F32))), np.zeros([3, 0, 0], F32)),  # TF
    case("inv_fed", lambda: with_feed(tf.linalg.inv, tf.float32, [None, 3, None], S3), np.linalg.inv(S3),
         shape=[None, 3, 3], rtol=1e-4, atol=1e-5),
    case("det", lambda: tf.matrix_determinant(c(S3)), np.linalg.det(S3), rtol=1e-4),
    case("det_singular_is_zero", lambda: tf.linalg.det(c(np.zeros([2, 2], F32))), F32(0.0)),  # TF
    case("det_empty_matrix_is_one", lambda: tf.linalg.det(c(np.zeros([0, 0], F32))), F32(1.0)),  # TF
    case("det_f16", lambda: tf.linalg.det(c(F16([[2, 1], [1, 2]]))), F16(3.0)),
    case("slogdet_sign", lambda: tf.linalg.slogdet(c(F32([[0, 1], [1, 0]])))[0], F32(-1.0)),  # TF
    case("slogdet_log_abs", lambda: tf.linalg.slogdet(c(S3)).log_abs_determinant,
         np.linalg.slogdet(S3)[1], rtol=1e-4),
    case("slogdet_singular", lambda: tf.linalg.slogdet(c(np.zeros([2, 2], F32)))[1], F32(-inf)),  # TF
    case("logdet", lambda: tf.linalg.logdet(c(F32([[2, 1], [1, 2]]))), F32(1.0986123)),  # TF
    case("logdet_complex_is_real", lambda: tf.linalg.logdet(c(H2)), np.linalg.slogdet(H2)[1]),
    case("logdet_batch", lambda: tf.linalg.logdet(c(S3)), np.linalg.slogdet(S3)[1], rtol=1e-4),
    # -- solves -----------------------------------------------------------------------
    case("solve", lambda: tf.matrix_solve(c(S3), c(R2)), np.linalg.solve(S3, R2), rtol=1e-4, atol=1e-5),
    case("solve_adjoint", lambda: tf.linalg.solve(c(X523[:2, :, :2]), c(R2[:, :2]), adjoint=True),
         np.linalg.solve(ct(X523[:2, :, :2]), R2[:, :2]), rtol=1e-3, atol=1e-4),
    case("solve_fed", lambda: with_feed(lambda m: tf.linalg.solve(m, c(R2)), tf.float32, None, S3),
         np.linalg.solve(S3, R2), shape=[2, 3, 2], rtol=1e-4, atol=1e-5),
    case("cholesky", lambda: tf.cholesky(c(S3)), np.linalg.cholesky(S3), rtol=1e-4, atol=1e-5),
    case("cholesky_reads_lower_triangle", lambda: tf.linalg.cholesky(c(F32([[4, 100], [2, 3]]))),
         F32([[2, 0], [1, 1.4142135]])),  # TF
    case("cholesky_f16", lambda: tf.linalg.cholesky(c(F16([[4, 2], [2, 5]]))), F16([[2, 0], [1, 2]])),
    case("triangular_solve_lower", lambda: tf.matrix_triangular_solve(c(F32([[2, 100], [1, 4]])), c(F32([[2], [9]]))),
         F32([[1], [2]])),  # TF
    case("triangular_solve_upper_adjoint", lambda: tf.linalg.triangular_solve(c(S3), c(R2), lower=False, adjoint=True),
         np.linalg.solve(ct(np.triu(S3)), R2), rtol=1e-4, atol=1e-5),
    case("triangular_solve_broadcast_batch", lambda: tf.linalg.triangular_solve(c(S3[0]), c(R2)),
         np.linalg.solve(np.tril(S3[0]), R2), rtol=1e-4, atol=1e-5),
    case("triangular_solve_zero_pivot", lambda: tf.linalg.triangular_solve(c(F32([[0, 0], [1, 4]])),
                                                                          c(F32([[2], [9]]))),
         F32([[inf], [-inf]])),  # TF
    case("cholesky_solve", lambda: tf.cholesky_solve(tf.cholesky(c(S3)), c(R2)), np.linalg.solve(S3, R2),
         rtol=1e-4, atol=1e-5),
    case("lstsq_fast_regularised", lambda: tf.linalg.lstsq(c(F32([[1, 0], [0, 1], [1, 1]])), c(F32([[1], [2], [4]])),
                                                           l2_regularizer=0.5), F32([[1.2380953], [1.9047619]])),  # TF
    case("lstsq_exact_ignores_regulariser", lambda: tf.linalg.lstsq(c(F32([[1, 0], [0, 1], [1, 1]])),
                                                                    c(F32([[1], [2], [4]])), l2_regularizer=0.5,
                                                                    fast=False), F32([[4 / 3], [7 / 3]])),  # TF
    case("lstsq_underdetermined_min_norm", lambda: tf.matrix_solve_ls(c(F32([[1, 0, 1], [0, 1, 1]])),
                                                                      c(F32([[1], [2]]))), F32([[0], [1], [1]]),
         atol=1e-5),  # TF
    case("lstsq_underdetermined_regularised", lambda: tf.matrix_solve_ls(c(F32([[1, 0, 1], [0, 1, 1]])),
                                                                         c(F32([[1], [2]])), l2_regularizer=0.5),
         F32([[0.09523809], [0.7619048], [0.85714287]])),  # TF
    case("lstsq_batch_exact", lambda: tf.linalg.lstsq(c(R2), c(T3[:, :, :2]), fast=False),
         np.linalg.pinv(R2) @ T3[:, :, :2], rtol=1e-4, atol=1e-5),
    # -- decompositions: the parts that are unique ---------------------------------------
    case("svd_values", lambda: tf.svd(c(F32([[1, 2], [3, 4], [5, 6]])), compute_uv=False),
         F32([9.525518, 0.51429987])),  # TF
    case("svd_values_batch", lambda: tf.linalg.svd(c(T3))[0], np.linalg.svd(T3, compute_uv=False), rtol=1e-5),
    case("eigvalsh", lambda: tf.self_adjoint_eigvals(c(F32([[2, 1], [1, 2]]))), F32([1, 3])),  # TF
    case("eigh_values_reads_lower_triangle", lambda: tf.linalg.eigh(c(F32([[2, 100], [1, 2]])))[0],
         F32([1, 3]), rtol=1e-5),
    case("eigh_complex_values_are_complex", lambda: tf.linalg.eigvalsh(c(C64([[2, -1j], [1j, 2]]))),
         C64([1, 3]), rtol=1e-5),
]

def _build(build):
    out = build()
    return out if isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], dict) else (out, None)


@pytest.mark.parametrize("build, expected, kw", CASES)
def test_op_matches_numpy(build, expected, kw):
    t, feed = _build(build)
    harness.check_op(lambda: t, expected, feed_dict=feed, **kw)


@pytest.mark.parametrize("build, expected, kw", CASES)
def test_every_kernel_returns_its_static_dtype(build, expected, kw):
    """Runs the graph op by op, so an intermediate op's wrong dtype is caught too."""
    t, feed = _build(build)
    harness.check_kernel_dtypes(t, feed)


# -- decompositions: reconstruct the input -----------------------------------------------

QR_INPUTS = [rand(5, 3), rand(2, 3, 5), rand(4, 4).astype(F64), rand(3, 2, dtype=C64)]


@pytest.mark.parametrize("full_matrices", [False, True])
@pytest.mark.parametrize("x", QR_INPUTS, ids=["tall", "wide_batch", "square_f64", "complex"])
def test_qr_reconstructs_input(x, full_matrices):
    q, r = tf.qr(c(x), full_matrices=full_matrices)
    qv, rv = harness.run([q, r])
    assert q.dtype == r.dtype == tf.as_dtype(x.dtype)
    assert q.shape.as_list() == list(qv.shape) and r.shape.as_list() == list(rv.shape)
    m, n = x.shape[-2:]
    k = m if full_matrices else min(m, n)
    assert qv.shape == x.shape[:-2] + (m, k) and rv.shape == x.shape[:-2] + (k, n)
    np.testing.assert_allclose(qv @ rv, x, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ct(qv) @ qv, np.broadcast_to(np.eye(k), ct(qv).shape[:-1] + (k,)), atol=1e-5)
    np.testing.assert_allclose(np.tril(rv, -1), 0, atol=1e-6)


@pytest.mark.parametrize("full_matrices", [False, True])
@pytest.mark.parametrize("x", QR_INPUTS, ids=["tall", "wide_batch", "square_f64", "complex"])
def test_svd_reconstructs_input(x, full_matrices):
    s, u, v = tf.linalg.svd(c(x), full_matrices=full_matrices, compute_uv=True)
    sv, uv, vv = harness.run([s, u, v])
    for t, value in ((u, uv), (v, vv)):
        assert t.dtype == tf.as_dtype(x.dtype) and value.dtype == x.dtype
    assert s.dtype == tf.as_dtype(x.real.dtype) and sv.dtype == x.real.dtype  # TF: real singular values
    for t, value in ((s, sv), (u, uv), (v, vv)):
        assert t.shape.as_list() == list(value.shape)
    p = min(x.shape[-2:])
    np.testing.assert_allclose(sv, np.linalg.svd(x, compute_uv=False), rtol=1e-5)
    # tf.svd returns v, not its adjoint: x == u[..., :p] @ diag(s) @ adjoint(v[..., :p]).
    rebuilt = (uv[..., :p] * sv[..., None, :]) @ ct(vv[..., :p])
    np.testing.assert_allclose(rebuilt, x, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("x", [S3, SPD64, H2], ids=["f32_batch", "f64_batch", "complex128"])
def test_eigh_reconstructs_input(x):
    e, v = tf.self_adjoint_eig(c(x))
    ev, vv = harness.run([e, v])
    assert e.dtype == v.dtype == tf.as_dtype(x.dtype) and ev.dtype == vv.dtype == x.dtype
    assert e.shape.as_list() == list(ev.shape) and v.shape.as_list() == list(vv.shape)
    assert np.all(np.diff(ev.real, axis=-1) >= 0)
    np.testing.assert_allclose((vv * ev[..., None, :]) @ ct(vv), x, rtol=1e-4, atol=1e-4)


def test_decomposition_results_are_tf1_tuples():
    q_r = tf.qr(c(A23))
    assert q_r._fields == ("q", "r") and q_r.q is q_r[0]
    slog = tf.linalg.slogdet(c(S3))
    assert slog._fields == ("sign", "log_abs_determinant")
    assert [t.name for t in slog] == ["LogMatrixDeterminant:0", "LogMatrixDeterminant:1"]
    assert [t.name for t in tf.svd(c(A23))] == ["Svd:0", "Svd:1", "Svd:2"]  # TF: compute_uv defaults to True
    assert tf.svd(c(A23), compute_uv=False).name == "Svd_1:0"
    assert [t.name for t in tf.linalg.eigh(c(S3))] == ["SelfAdjointEigV2:0", "SelfAdjointEigV2:1"]


# -- static shapes -----------------------------------------------------------------------

ph = tf.placeholder


def shape_case(id, build, expected):
    return pytest.param(build, expected, id=id)


STATIC_SHAPES = [  # TF, all of them
    shape_case("matmul_unknown", lambda: tf.matmul(ph(tf.float32, [None, None]), ph(tf.float32, [None, 4])),
               [None, 4]),
    shape_case("batch_matmul_broadcast_one", lambda: tf.matmul(ph(tf.float32, [1, 2, 3]), ph(tf.float32, [None, 3, 4])),
               [None, 2, 4]),
    shape_case("batch_matmul_unknown_batch", lambda: tf.matmul(ph(tf.float32, [None, 2, 3]), ph(tf.float32, [3, 4])),
               [None, 2, 4]),
    shape_case("batch_matmul_merges_unknown", lambda: tf.matmul(ph(tf.float32, [None, 2, 3]),
                                                                ph(tf.float32, [5, None, 4])), [5, 2, 4]),
    shape_case("matmul_unknown_rank", lambda: tf.matmul(ph(tf.float32, [2, 3]), ph(tf.float32)), None),
    shape_case("batch_matmul_transpose_a", lambda: tf.matmul(ph(tf.float32, [2, 3, 4]), ph(tf.float32, [2, 3, 5]),
                                                             transpose_a=True), [2, 4, 5]),
    shape_case("inverse_merges_square", lambda: tf.linalg.inv(ph(tf.float32, [None, 3, None])), [None, 3, 3]),
    shape_case("inverse_unknown_rank", lambda: tf.linalg.inv(ph(tf.float32)), None),
    shape_case("det", lambda: tf.linalg.det(ph(tf.float32, [None, 3, None])), [None]),
    shape_case("solve", lambda: tf.linalg.solve(ph(tf.float32, [None, 3, None]), ph(tf.float32, [None, None, 2])),
               [None, 3, 2]),
    shape_case("solve_unknown_matrix", lambda: tf.linalg.solve(ph(tf.float32), ph(tf.float32, [None, None, 2])),
               [None, None, 2]),
    shape_case("solve_batch_merges", lambda: tf.linalg.solve(ph(tf.float32, [None, 3, 3]), ph(tf.float32, [4, 3, 2])),
               [4, 3, 2]),
    shape_case("trace", lambda: tf.trace(ph(tf.float32, [None, 3, None])), [None]),
    shape_case("trace_unknown_rank", lambda: tf.trace(ph(tf.float32)), None),
    shape_case("matrix_transpose_unknown_rank", lambda: tf.matrix_transpose(ph(tf.float32)), None),
    shape_case("qr_reduced", lambda: tf.qr(ph(tf.float32, [None, 5, None]))[1], [None, None, None]),
    shape_case("qr_full_q", lambda: tf.qr(ph(tf.float32, [None, 5, None]), full_matrices=True)[0], [None, 5, 5]),
    shape_case("qr_wide_r", lambda: tf.qr(ph(tf.float32, [3, 5]))[1], [3, 5]),
    shape_case("svd_u", lambda: tf.svd(ph(tf.float32, [3, 5]), compute_uv=True)[1], [3, 3]),
    shape_case("svd_v", lambda: tf.svd(ph(tf.float32, [3, 5]), compute_uv=True)[2], [5, 3]),
    shape_case("svd_v_unknown_rows", lambda: tf.svd(ph(tf.float32, [None, 5]), compute_uv=True)[2], [5, None]),
    shape_case("svd_v_full", lambda: tf.svd(ph(tf.float32, [None, 5]), compute_uv=True, full_matrices=True)[2],
               [5, 5]),
    shape_case("svd_unknown_rank", lambda: tf.svd(ph(tf.float32), compute_uv=True)[0], None),
    shape_case("eigvalsh", lambda: tf.linalg.eigvalsh(ph(tf.float32, [3, 3])), [3]),
    shape_case("cross_merges", lambda: tf.cross(ph(tf.float32), ph(tf.float32, [None, 3])), [None, 3]),
    shape_case("band_part_unknown_rank", lambda: tf.linalg.band_part(ph(tf.float32), 1, 1), None),
    shape_case("band_part_rank1_passes", lambda: tf.linalg.band_part(ph(tf.float32, [3]), 1, 1), [3]),
    shape_case("triangular_solve_broadcast", lambda: tf.linalg.triangular_solve(ph(tf.float32, [3, 3]),
                                                                                ph(tf.float32, [4, 3, 2])), [4, 3, 2]),
    shape_case("lstsq", lambda: tf.linalg.lstsq(ph(tf.float32, [None, 5, 3]), ph(tf.float32, [None, 5, 2]),
                                                fast=False), [None, 3, 2]),
    shape_case("einsum_ellipsis", lambda: tf.einsum("...ij,...jk->...ik", ph(tf.float32, [2, 1, 3, 4]),
                                                    ph(tf.float32, [5, 4, 6])), [2, 5, 3, 6]),
    shape_case("einsum_unknown", lambda: tf.einsum("ij,jk->ik", ph(tf.float32, [None, 3]), ph(tf.float32, [None, 5])),
               [None, 5]),
    shape_case("einsum_unknown_rank", lambda: tf.einsum("ij,jk->ik", ph(tf.float32), ph(tf.float32, [None, 5])),
               [None, 5]),
    shape_case("tensordot_unknown_rank", lambda: tf.tensordot(ph(tf.float32), ph(tf.float32, [3, 4]), 1), None),
    shape_case("tensordot_unknown_dim", lambda: tf.tensordot(ph(tf.float32, [None, 2, 3]), ph(tf.float32, [2, 3, 4]),
                                                             [[-2, -1], [0, 1]]), [None, 4]),
    shape_case("norm_unknown_rank", lambda: tf.norm(ph(tf.float32), axis=1), None),
    shape_case("norm_keepdims", lambda: tf.norm(ph(tf.float32, [2, 3]), ord=1, axis=[0, 1], keepdims=True), [1, 1]),
    shape_case("norm_matrix", lambda: tf.norm(ph(tf.float32, [4, 2, 3]), ord="fro", axis=[0, 1]), [3]),
    shape_case("matvec", lambda: tf.linalg.matvec(ph(tf.float32, [None, 2, 3]), ph(tf.float32, [4, 1, 3])),
               [4, None, 2]),
]


@pytest.mark.parametrize("build, expected", STATIC_SHAPES)
def test_static_shape(build, expected):
    t = build()
    assert t.shape == tf.TensorShape(expected)


# -- names -------------------------------------------------------------------------------


def _names(build):
    g = tf.get_default_graph()
    t = build()
    return t.name, [op.name for op in g.get_operations() if op.type not in ("Placeholder",)]


NAMES = [  # TF: the returned tensor's name, as TF1 graph mode gives it
    ("MatMul:0", lambda: tf.matmul(ph(tf.float32, [2, 2]), ph(tf.float32, [2, 2]))),
    ("MatMul:0", lambda: tf.matmul(ph(tf.float32, [5, 2, 2]), ph(tf.float32, [2, 2]))),
    ("foo:0", lambda: tf.matmul(ph(tf.float32, [2, 2]), ph(tf.float32, [2, 2]), name="foo")),
    ("matmul:0", lambda: ph(tf.float32, [2, 2]) @ ph(tf.float32, [2, 2])),
    ("MatrixInverse:0", lambda: tf.matrix_inverse(ph(tf.float32, [2, 2]))),
    ("MatrixDeterminant:0", lambda: tf.linalg.det(ph(tf.float32, [2, 2]))),
    ("MatrixSolve:0", lambda: tf.linalg.solve(ph(tf.float32, [2, 2]), ph(tf.float32, [2, 1]))),
    ("Cholesky:0", lambda: tf.cholesky(ph(tf.float32, [2, 2]))),
    ("Trace:0", lambda: tf.trace(ph(tf.float32, [2, 2]))),
    ("tr:0", lambda: tf.trace(ph(tf.float32, [2, 2]), name="tr")),
    ("matrix_transpose/transpose:0", lambda: tf.matrix_transpose(ph(tf.float32, [2, 2]))),
    ("mt/transpose:0", lambda: tf.linalg.transpose(ph(tf.float32, [2, 2]), name="mt")),
    ("adjoint/matrix_transpose/transpose:0", lambda: tf.linalg.adjoint(ph(tf.float32, [2, 2]))),
    ("Tensordot/MatMul:0", lambda: tf.tensordot(ph(tf.float32, [2, 3]), ph(tf.float32, [3, 5]), 1)),
    ("Tensordot:0", lambda: tf.tensordot(ph(tf.float32, [2, 3, 3]), ph(tf.float32, [3, 3]), 1)),
    ("Tensordot:0", lambda: tf.tensordot(ph(tf.float32, [None, 2]), ph(tf.float32, [2, 4]), 1)),
    ("Tensordot:0", lambda: tf.tensordot(ph(tf.float32, [2]), ph(tf.float32, [2]), 1)),
    ("einsum/Einsum:0", lambda: tf.einsum("ij,jk->ik", ph(tf.float32, [2, 2]), ph(tf.float32, [2, 2]))),
    ("es/Einsum:0", lambda: tf.einsum("ij->ji", ph(tf.float32, [2, 2]), name="es")),
    ("norm/Squeeze:0", lambda: tf.norm(ph(tf.float32, [2, 3]))),
    ("nn/Squeeze:0", lambda: tf.norm(ph(tf.float32, [2, 3]), name="nn")),
    ("norm/Sqrt:0", lambda: tf.norm(ph(tf.float32, [2, 3]), keepdims=True)),
    ("norm/Sum:0", lambda: tf.norm(ph(tf.float32, [2, 3]), ord=1, keepdims=True)),
    ("norm/Max:0", lambda: tf.norm(ph(tf.float32, [2, 3]), ord=np.inf, keepdims=True)),
    ("norm/Max:0", lambda: tf.norm(ph(tf.float32, [2, 3]), ord=1, axis=[0, 1], keepdims=True)),
    ("norm/Sqrt:0", lambda: tf.norm(ph(tf.float32, [2, 3]), ord="fro", axis=[0, 1], keepdims=True)),
    ("norm/Pow_1:0", lambda: tf.norm(ph(tf.float32, [2, 3]), ord=3, keepdims=True)),
    ("norm/transpose_1:0", lambda: tf.norm(ph(tf.float32, [4, 2, 3]), ord=2, axis=[1, 2], keepdims=True)),
    ("MatVec/Squeeze:0", lambda: tf.linalg.matvec(ph(tf.float32, [2, 3]), ph(tf.float32, [3]))),
    ("Cross:0", lambda: tf.cross(ph(tf.float32, [3]), ph(tf.float32, [3]))),
    ("MatrixBandPart:0", lambda: tf.linalg.band_part(ph(tf.float32, [3, 3]), 0, -1)),
    ("logdet/mul:0", lambda: tf.linalg.logdet(ph(tf.float32, [2, 2]))),
    ("MatrixTriangularSolve:0", lambda: tf.linalg.triangular_solve(ph(tf.float32, [2, 2]), ph(tf.float32, [2, 1]))),
    ("cholesky_solve/MatrixTriangularSolve_1:0", lambda: tf.cholesky_solve(ph(tf.float32, [2, 2]),
                                                                           ph(tf.float32, [2, 1]))),
    ("MatrixSolveLs:0", lambda: tf.linalg.lstsq(ph(tf.float32, [3, 2]), ph(tf.float32, [3, 1]), fast=False)),
    ("Qr:0", lambda: tf.qr(ph(tf.float32, [3, 2]))[0]),
    ("SelfAdjointEigV2:0", lambda: tf.self_adjoint_eigvals(ph(tf.float32, [2, 2]))),
]


@pytest.mark.parametrize("expected, build", NAMES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(NAMES)])
def test_default_names(expected, build):
    assert build().name == expected


def test_names_are_uniquified_and_python_operands_named_by_parameter():
    assert tf.matmul([[1.0]], [[2.0]]).name == "MatMul:0"
    t = tf.matmul([[1.0]], [[2.0]])
    assert t.name == "MatMul_1:0"
    assert [i.name for i in t.op.inputs] == ["MatMul_1/a:0", "MatMul_1/b:0"]  # TF
    assert tf.trace([[1.0]]).op.inputs[0].name == "Trace/x:0"  # TF
    band = tf.linalg.band_part(c(M44), 0, -1)
    assert [i.name for i in band.op.inputs[1:]] == ["MatrixBandPart/num_lower:0", "MatrixBandPart/num_upper:0"]  # TF
    assert [tf.norm(c(A23)).name, tf.norm(c(A23)).name] == ["norm/Squeeze:0", "norm_1/Squeeze:0"]


def test_op_types_and_attrs_follow_tf1():
    mm = tf.matmul(c(A23), c(B43), transpose_b=True).op
    assert (mm.type, mm.get_attr("transpose_a"), mm.get_attr("transpose_b")) == ("MatMul", False, True)
    bmm = tf.matmul(c(X523), c(Y34), adjoint_a=False, transpose_b=False).op
    assert (bmm.type, bmm.get_attr("adj_x"), bmm.get_attr("adj_y")) == ("BatchMatMulV2", False, False)
    unknown_rank = tf.matmul(ph(tf.float32), c(Y34)).op
    assert unknown_rank.type == "BatchMatMulV2"  # TF: unknown rank cannot be MatMul
    assert tf.einsum("ij,jk", c(A23), c(B34)).op.get_attr("equation") == "ij,jk->ik"  # TF resolves it


# -- errors --------------------------------------------------------------------------------

ERRORS_AT_CONSTRUCTION = [  # TF texts
    ("matmul_inner_mismatch", lambda: tf.matmul(c(A23), c(A23)), ValueError,
     r"Dimensions must be equal, but are 3 and 2 for 'MatMul' \(op: 'MatMul'\) with input shapes: \[2,3\], \[2,3\]"),
    ("batch_matmul_inner_mismatch", lambda: tf.matmul(ph(tf.float32, [5, 2, 3]), ph(tf.float32, [5, 4, 4])),
     ValueError, "Dimensions must be equal, but are 3 and 4"),
    ("batch_matmul_batch_mismatch", lambda: tf.matmul(ph(tf.float32, [5, 2, 3]), ph(tf.float32, [6, 3, 4])),
     ValueError, "Dimensions must be equal, but are 5 and 6"),
    ("matmul_rank1", lambda: tf.matmul(c(V3), c(B34)), ValueError, "Shape must be rank 2 but is rank 1"),
    ("batch_matmul_rank1", lambda: tf.matmul(c(T3), c(V3)), ValueError, "Shape must be at least rank 2 but is rank 1"),
    ("matmul_dtype_mismatch", lambda: tf.matmul(c(A23), c(B34.astype(F64))), TypeError,
     "Input 'b' of 'MatMul' Op has type float64 that does not match type float32 of argument 'a'."),
    ("batch_matmul_dtype_mismatch", lambda: tf.matmul(c(X523), c(Y534.astype(F64))), TypeError,
     "Input 'y' of 'BatchMatMulV2' Op has type float64 that does not match type float32 of argument 'x'."),
    ("matmul_int_then_float", lambda: tf.matmul([[3, 1, 1]], c(B34)), TypeError,
     "Input 'b' of 'MatMul' Op has type float32 that does not match type int32 of argument 'a'."),
    ("matmul_bool", lambda: tf.matmul(c([[True]]), c([[True]])), TypeError,
     "Value passed to parameter 'a' has DataType bool not in list of allowed values"),
    ("matmul_int8", lambda: tf.matmul(c(np.ones([2, 2], np.int8)), c(np.ones([2, 2], np.int8))), TypeError,
     "DataType int8 not in list"),
    ("matmul_transpose_and_adjoint", lambda: tf.matmul(c(A23), c(B34), transpose_a=True, adjoint_a=True),
     ValueError, "Only one of `transpose_a` and `adjoint_a` can be True."),
    ("inverse_not_square", lambda: tf.linalg.inv(c(A23)), ValueError, "Dimensions must be equal, but are 2 and 3"),
    ("inverse_rank1", lambda: tf.linalg.inv(c(V3)), ValueError, "Shape must be at least rank 2 but is rank 1"),
    ("inverse_int", lambda: tf.linalg.inv(c(np.eye(2, dtype=I32))), TypeError,
     "Value passed to parameter 'input' has DataType int32 not in list of allowed values"),
    ("det_not_square", lambda: tf.linalg.det(c(A23)), ValueError, "Dimensions must be equal"),
    ("cholesky_not_square", lambda: tf.cholesky(c(B34)), ValueError, "Dimensions must be equal, but are 3 and 4"),
    ("solve_mismatch", lambda: tf.linalg.solve(c(S3), ph(tf.float32, [2, 4, 5])), ValueError,
     "Dimensions must be equal, but are 3 and 4"),
    ("solve_rank_mismatch", lambda: tf.linalg.solve(c(S3), c(B34)), ValueError, "Shapes must be equal rank"),
    ("solve_batch_mismatch", lambda: tf.linalg.solve(ph(tf.float32, [2, 3, 3]), ph(tf.float32, [4, 3, 2])), ValueError,
     "Dimension 0 in both shapes must be equal, but are 2 and 4"),
    ("solve_int", lambda: tf.linalg.solve(c(np.eye(2, dtype=I32)), c(np.ones([2, 1], I32))), TypeError,
     "parameter 'matrix' has DataType int32"),
    ("solve_dtype_mismatch", lambda: tf.linalg.solve(c(S3), c(R2.astype(F64))), TypeError,
     "Input 'rhs' of 'MatrixSolve' Op has type float64"),
    ("trace_rank1", lambda: tf.trace(c(V3)), ValueError, "Shape must be at least rank 2 but is rank 1"),
    ("trace_bool", lambda: tf.trace(c(np.ones([2, 2], bool))), TypeError, "DataType bool not in list"),
    ("matrix_transpose_rank1", lambda: tf.matrix_transpose(c(V3)), ValueError,
     r"should be a \(batch\) matrix, with rank >= 2"),
    ("cross_not_3", lambda: tf.cross(ph(tf.float32, [4, 2]), ph(tf.float32, [4, 2])), ValueError,
     "Dimension must be 3 but is 2"),
    ("cross_shapes", lambda: tf.cross(ph(tf.float32, [2, 3]), ph(tf.float32, [4, 3])), ValueError,
     "Dimension 0 in both shapes must be equal, but are 2 and 4"),
    ("cross_no_broadcast", lambda: tf.cross(ph(tf.float32, [2, 3]), ph(tf.float32, [3])), ValueError,
     "Shapes must be equal rank"),
    ("cross_complex", lambda: tf.cross(ph(tf.complex64, [3]), ph(tf.complex64, [3])), TypeError,
     "Value passed to parameter 'a' has DataType complex64"),
    ("cross_dtype", lambda: tf.cross(ph(tf.float32, [3]), ph(tf.float64, [3])), TypeError,
     "Input 'b' of 'Cross' Op has type float64 that does not match type float32 of argument 'a'."),
    ("band_part_float_bounds", lambda: tf.linalg.band_part(c(M44), 1.0, 1), TypeError,
     "Value passed to parameter 'num_lower' has DataType float32 not in list of allowed values: int32, int64"),
    ("band_part_bounds_dtypes", lambda: tf.linalg.band_part(c(M44), c(1), c(np.int64(1))), TypeError,
     "Input 'num_upper' of 'MatrixBandPart' Op has type int64 that does not match type int32"),
    ("band_part_bounds_rank", lambda: tf.linalg.band_part(c(M44), [1], 1), ValueError, "Shape must be rank 0"),
    ("tensordot_mismatch", lambda: tf.tensordot(c(A23), c(B43), 1), ValueError,
     "Dimensions must be equal, but are 3 and 4"),
    ("tensordot_axes_lengths", lambda: tf.tensordot(c(A23), c(B34), [[1], [0, 1]]), ValueError,
     "Different number of contraction axes `a` and `b`, 1 != 2."),
    ("tensordot_negative_int", lambda: tf.tensordot(c(A23), c(B34), -1), ValueError, "`axes` must be at least 0."),
    ("tensordot_too_many", lambda: tf.tensordot(c(A23), c(B34), 3), ValueError,
     "`axes` must not be larger than the number of dimensions"),
    ("tensordot_bad_form", lambda: tf.tensordot(c(A23), c(B34), [[0], [0], [1]]), ValueError,
     "`axes` must be an integer or have length 2."),
    ("tensordot_axis_out_of_range", lambda: tf.tensordot(c(A23), c(B34), [[5], [0]]), ValueError, "Invalid axis 5"),
    ("tensordot_dtype", lambda: tf.tensordot(c(A23), c(B34.astype(F64)), 1), TypeError,
     "Input 'b' of 'MatMul' Op has type float64 that does not match type float32 of argument 'a'."),
    ("einsum_mismatch", lambda: tf.einsum("ij,jk->ik", c(A23), c(B43)), ValueError,
     r"Dimensions must be equal, but are 3 and 4 for 'einsum/Einsum'"),
    ("einsum_no_broadcast_of_labels", lambda: tf.einsum("ij,ij->ij", c(A23[:1]), c(A23)), ValueError,
     "Dimensions must be equal, but are 1 and 2"),
    ("einsum_rank", lambda: tf.einsum("ij,jk->ik", c(T3), c(B34)), ValueError,
     "Shape must be rank 2 but is rank 3 for 0th input and equation: ij,jk->ik"),
    ("einsum_input_count", lambda: tf.einsum("ij,jk->ik", c(A23)), ValueError,
     'Got 1 inputs for equation "ij,jk->ik", expecting 2'),
    ("einsum_unknown_output_label", lambda: tf.einsum("ij,jk->iz", c(A23), c(B34)), ValueError,
     "Output subscripts contain the label z not present in the input subscripts."),
    ("einsum_bad_character", lambda: tf.einsum("i1,jk->ik", c(A23), c(B34)), ValueError, "Invalid character"),
    ("einsum_dtypes", lambda: tf.einsum("ij,jk->ik", c(A23), c(B34.astype(F64))), TypeError,
     r"Tensors in list passed to 'inputs' of 'Einsum' Op have types \[float32, float64\] that don't all match."),
    ("einsum_unknown_kwarg", lambda: tf.einsum("ij->ji", c(A23), nam="x"), TypeError, "Invalid keyword arguments"),
    ("norm_int", lambda: tf.norm(c([3, 4])), TypeError,
     "Value passed to parameter 'x' has DataType int32 not in list of allowed values"),
    ("norm_ord0", lambda: tf.norm(c(V3), ord=0), ValueError, "'ord' must be a supported vector norm, got 0"),
    ("norm_ord_negative", lambda: tf.norm(c(V3), ord=-1), ValueError, "'ord' must be a supported vector norm, got -1"),
    ("norm_ord_minus_inf", lambda: tf.norm(c(V3), ord=-np.inf), ValueError, "got -inf"),
    ("norm_fro_on_vector", lambda: tf.norm(c(A23), ord="fro"), ValueError,
     "'ord' must be a supported vector norm, got fro"),
    ("norm_matrix_ord3", lambda: tf.norm(c(A23), ord=3, axis=[0, 1]), ValueError,
     r"'ord' must be a supported matrix norm in \['euclidean', 'fro', 1, 2, inf\], got 3"),
    ("norm_three_axes", lambda: tf.norm(c(T3), axis=[0, 1, 2]), ValueError,
     r"'axis' must be None, an integer, or a tuple of 2 unique integers, got \[0, 1, 2\]"),
    ("norm_same_axes", lambda: tf.norm(c(T3), axis=[1, 1]), ValueError, "tuple of 2 unique integers"),
    ("norm_float_axis", lambda: tf.norm(c(T3), axis=1.0), ValueError, "tuple of 2 unique integers, got 1.0"),
    ("norm_one_axis_list", lambda: tf.norm(c(T3), axis=[1]), ValueError, r"got \[1\]"),
    ("norm_axis_out_of_range", lambda: tf.norm(c(A23), axis=2), ValueError,
     "Invalid reduction dimension 2 for input with 2 dimensions."),
    ("norm_both_keepdims", lambda: tf.norm(c(V3), keepdims=True, keep_dims=False), ValueError,
     "Cannot specify both 'keep_dims' and 'keepdims'."),
    ("matvec_inner", lambda: tf.linalg.matvec(c(A23), c(B34[:, :1])), ValueError,
     "Dimensions must be equal, but are 3 and 1"),
    ("matvec_dtype", lambda: tf.linalg.matvec(c(A23), c(V3.astype(F64))), TypeError,
     "Input 'b' of 'MatMul' Op has type float64 that does not match type float32 of argument 'a'."),
    ("triangular_solve_mismatch", lambda: tf.linalg.triangular_solve(c(S3[0]), c(B43[:, :2])), ValueError,
     "Dimensions must be equal, but are 3 and 4"),
    ("lstsq_rows", lambda: tf.linalg.lstsq(ph(tf.float32, [5, 3]), ph(tf.float32, [4, 2]), fast=False), ValueError,
     "Dimensions must be equal, but are 5 and 4"),
    ("eigh_not_square", lambda: tf.linalg.eigh(c(A23)), ValueError, "Dimensions must be equal"),
    ("eigh_int", lambda: tf.linalg.eigh(c(np.eye(2, dtype=I32))), TypeError, "DataType int32 not in list"),
]


@pytest.mark.parametrize("build, exc, match", [pytest.param(*e[1:], id=e[0]) for e in ERRORS_AT_CONSTRUCTION])
def test_bad_input_fails_at_construction(build, exc, match):
    with pytest.raises(exc, match=match):
        build()


def _fed2(fn, a, b):
    x, y = tf.placeholder(tf.as_dtype(a.dtype)), tf.placeholder(tf.as_dtype(b.dtype))
    return fn(x, y), {x: a, y: b}


ERRORS_AT_RUN = [  # TF texts; TF1.15 failed Cholesky (TF2 fills NaN instead)
    ("inverse_singular", lambda: (tf.linalg.inv(c(np.zeros([2, 2], F32))), None), tf.errors.InvalidArgumentError,
     "Input is not invertible."),
    ("inverse_not_square", lambda: with_feed(tf.linalg.inv, tf.float32, None, A23), tf.errors.InvalidArgumentError,
     "Input matrix must be square."),
    ("inverse_rank1", lambda: with_feed(tf.linalg.inv, tf.float32, None, V3), tf.errors.InvalidArgumentError,
     "Input tensor 0 must have rank >= 2, got 1"),
    ("solve_singular", lambda: (tf.linalg.solve(c(np.zeros([2, 2], F32)), c(np.ones([2, 1], F32))), None),
     tf.errors.InvalidArgumentError, "Input matrix is not invertible."),
    ("solve_incompatible", lambda: _fed2(tf.linalg.solve, np.eye(2, dtype=F32), np.ones([3, 1], F32)),
     tf.errors.InvalidArgumentError, "Input matrix and rhs are incompatible."),
    ("cholesky_not_positive_definite", lambda: (tf.cholesky(c(F32([[1, 2], [2, 1]]))), None),
     tf.errors.InvalidArgumentError, "Cholesky decomposition was not successful"),
    ("cholesky_not_square", lambda: with_feed(tf.cholesky, tf.float32, [None, None], A23),
     tf.errors.InvalidArgumentError, "Input matrix must be square."),
    ("logdet_not_positive_definite", lambda: (tf.linalg.logdet(c(F32([[1, 2], [2, 1]]))), None),
     tf.errors.InvalidArgumentError, "Cholesky decomposition was not successful"),
    ("matmul_fed_mismatch", lambda: _fed2(tf.matmul, A23, A23), tf.errors.InvalidArgumentError,
     r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[2,3\]"),
    ("matmul_fed_2d_mismatch",
     lambda: with_feed(lambda x: tf.matmul(x, x), tf.float32, [None, None], A23),
     tf.errors.InvalidArgumentError, r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[2,3\]"),
    ("batch_matmul_fed_batches", lambda: _fed2(tf.matmul, np.ones([2, 2, 2], F32), np.ones([3, 2, 2], F32)),
     tf.errors.InvalidArgumentError, r"must have compatible batch dimensions: \[2,2,2\] vs. \[3,2,2\]"),
    ("batch_matmul_fed_rank1", lambda: _fed2(tf.matmul, V3, B34), tf.errors.InvalidArgumentError,
     "In\\[0\\] ndims must be >= 2: 1"),
    ("band_part_too_many_lower", lambda: (tf.linalg.band_part(c(M44), 5, 0), None), tf.errors.InvalidArgumentError,
     r"num_lower must be negative or less or equal to number of rows \(4\) got: 5"),
    ("band_part_rank1", lambda: with_feed(lambda x: tf.linalg.band_part(x, 0, 0), tf.float32, None, V3),
     tf.errors.InvalidArgumentError, r"input must be at least 2-dim, received shape: \[3\]"),
    ("cross_fed_not_3", lambda: _fed2(tf.cross, np.ones(2, F32), np.ones(2, F32)), tf.errors.FailedPreconditionError,
     "Cross-products are only defined for 3-element vectors."),
]


@pytest.mark.parametrize("build, exc, match", [pytest.param(*e[1:], id=e[0]) for e in ERRORS_AT_RUN])
def test_bad_value_fails_at_run(build, exc, match):
    t, feed = build()
    with pytest.raises(exc, match=match) as info:
        harness.run(t, feed)
    assert info.value.op is t.op  # the error names the failing op


# -- API surface -------------------------------------------------------------------------

EXPORTS = {  # as in TF1.15 (tf.compat.v1)
    "matmul": ["matmul", "linalg.matmul"],
    "matvec": ["linalg.matvec"],
    "matrix_inverse": ["matrix_inverse", "linalg.inv"],
    "matrix_determinant": ["matrix_determinant", "linalg.det"],
    "slogdet": ["linalg.slogdet"],
    "logdet": ["linalg.logdet"],
    "matrix_transpose": ["matrix_transpose", "linalg.transpose", "linalg.matrix_transpose"],
    "adjoint": ["linalg.adjoint"],
    "matrix_solve": ["matrix_solve", "linalg.solve"],
    "cholesky": ["cholesky", "linalg.cholesky"],
    "cholesky_solve": ["cholesky_solve", "linalg.cholesky_solve"],
    "matrix_triangular_solve": ["matrix_triangular_solve", "linalg.triangular_solve"],
    "matrix_solve_ls": ["matrix_solve_ls", "linalg.lstsq"],
    "trace": ["trace", "linalg.trace"],
    "tensordot": ["tensordot", "linalg.tensordot"],
    "einsum": ["einsum", "linalg.einsum"],
    "norm": ["norm", "linalg.norm"],
    "qr": ["qr", "linalg.qr"],
    "svd": ["svd", "linalg.svd"],
    "self_adjoint_eig": ["self_adjoint_eig", "linalg.eigh"],
    "self_adjoint_eigvals": ["self_adjoint_eigvals", "linalg.eigvalsh"],
    "cross": ["cross", "linalg.cross"],
    "matrix_band_part": ["matrix_band_part", "linalg.band_part"],
}


@pytest.mark.parametrize("fn_name, names", EXPORTS.items(), ids=list(EXPORTS))
def test_exported_where_tf1_has_them(fn_name, names):
    fn = getattr(tf.linalg, names[-1].split(".")[-1]) if names[-1].startswith("linalg.") else getattr(tf, names[-1])
    for dotted in names:
        obj = tf
        for part in dotted.split("."):
            obj = getattr(obj, part)
        assert obj is fn, dotted
    assert fn.__name__ == fn_name


def test_not_exported_where_tf1_lacks_them():
    assert not hasattr(tf.math, "matmul") and not hasattr(tf.math, "trace") and not hasattr(tf.math, "cross")


# -- the hot path ------------------------------------------------------------------------


def test_plain_matmul_kernel_is_the_bare_product():
    """A 2-D MatMul without transposes runs one ``a @ b``: no partial, no attrs."""
    t = tf.matmul(ph(tf.float32, [2, 3]), ph(tf.float32, [3, 4]))
    kernel = t.op._opdef.bind(t.op, None)
    assert kernel is linalg_ops._matmul_nn
    out = kernel(A23, B34)
    assert out.dtype == F32
    np.testing.assert_array_equal(out, A23 @ B34)


def test_matmul_constant_folds_for_shape_arguments():
    from dflow.framework.op_registry import constant_value

    np.testing.assert_array_equal(constant_value(tf.matmul(c([[1, 2]]), c([[3], [4]]))), [[11]])


# -- GPU ---------------------------------------------------------------------------------


def _have_gpu() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver
        return False


GPU_CASES = [
    "matmul", "matmul_transpose_both", "batch_matmul_broadcast_batch", "batch_matmul_complex_adjoint_a", "matvec",
    "matrix_transpose", "band_part_tridiagonal_int", "trace_batch", "cross_batch", "tensordot_axis_lists",
    "einsum_ellipsis_broadcast", "norm_all_elements", "norm_matrix_1", "norm_matrix_2", "norm_ord3", "inv",
    "inv_f16", "det", "slogdet_log_abs", "logdet_batch", "solve", "cholesky", "triangular_solve_upper_adjoint",
    "lstsq_fast_regularised", "svd_values_batch", "eigvalsh",
]


@pytest.mark.gpu
@pytest.mark.skipif(not _have_gpu(), reason="needs CuPy and a CUDA GPU")
@pytest.mark.parametrize("build, expected, kw", [p for p in CASES if p.id in GPU_CASES])
def test_op_on_gpu_matches_numpy(build, expected, kw):
    with tf.device("/device:GPU:0"):
        t, feed = _build(build)
    kw = dict(kw, rtol=max(kw.get("rtol", 1e-6), 1e-4), atol=max(kw.get("atol", 1e-6), 1e-5))
    harness.check_op(lambda: t, expected, feed_dict=feed, **kw)
