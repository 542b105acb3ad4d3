"""Gradients of the nn, conv, pool, loss, normalization, linalg, einsum and random ops.

``CASES`` is one table of (id, fn, inputs) run through ``check_gradients``:
a vector-Jacobian product against central finite differences, in float64,
at random inputs away from kinks, with static, partly unknown and broadcast
shapes; rows whose fn calls ``tf.gradients`` check the gradient ops' own
gradients. ``TF_GRADIENTS`` holds gradient values computed by TF 2.15 in
``compat.v1`` graph mode (``tf.gradients(reduce_sum(f(x) * w), x)`` with the
inputs and weights of ``lin``). The rest covers what finite differences
cannot: random ops, non-differentiable ops, names, dtypes, static shapes.
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from dflow.framework.op_registry import _OPS, apply_op, get_opdef
from tests.ops.gradcheck import check_gradients

rng = np.random.default_rng(20261122)


def normal(*shape):
    return rng.standard_normal(shape)


def away(*shape, gap=0.2):
    """Normal values at least ``gap`` from 0, where the piecewise ops have their kinks."""
    x = rng.standard_normal(shape)
    return x + np.sign(x) * gap


def positive(*shape):
    return rng.uniform(0.5, 1.5, shape)


def probs(*shape, axis=-1):
    p = rng.uniform(0.1, 1.0, shape)
    return p / p.sum(axis=axis, keepdims=True)


def spd(*shape):
    """Symmetric positive definite matrices with well-separated eigenvalues."""
    a = rng.standard_normal(shape)
    n = shape[-1]
    return a @ np.swapaxes(a, -1, -2) + np.diag(np.arange(1.0, n + 1)) * n


def well_conditioned(*shape):
    return rng.standard_normal(shape) + 3 * np.eye(shape[-1])


def sym(a):
    """Cholesky, logdet and eigh read one triangle: differentiate them along symmetric directions."""
    return (a + tf.linalg.adjoint(a)) * 0.5


def grad_of(f, x, u):
    """The gradient op(s) of ``f`` at ``x`` for output gradient ``u`` (for second derivatives)."""
    return tf.gradients(f(x), x, grad_ys=u)[0]


def conv(**kw):
    kw.setdefault("strides", 1)
    kw.setdefault("padding", "SAME")
    return lambda x, w: tf.nn.conv2d(x, w, **kw)


def nchw(x):
    return x.transpose(0, 3, 1, 2)


def case(id, fn, *inputs, **opts):  # noqa: A002 - pytest's name
    return pytest.param(fn, inputs, opts, id=id)


# -- the finite-difference table ---------------------------------------------------------------

ACTIVATIONS = [
    ("relu", tf.nn.relu, 1.0),
    ("relu6", tf.nn.relu6, 4.0),
    ("elu", tf.nn.elu, 1.0),
    ("selu", tf.nn.selu, 1.0),
    ("softplus", tf.nn.softplus, 3.0),
    ("softsign", tf.nn.softsign, 1.0),
    ("leaky_relu", tf.nn.leaky_relu, 1.0),
    ("leaky_relu_alpha", lambda x: tf.nn.leaky_relu(x, alpha=0.01), 1.0),
]

max_pool = lambda **kw: lambda x: tf.nn.max_pool(x, **kw)  # noqa: E731
avg_pool = lambda **kw: lambda x: tf.nn.avg_pool(x, **kw)  # noqa: E731
xent_v2 = lambda **kw: lambda lg, lb: tf.nn.softmax_cross_entropy_with_logits_v2(labels=lb, logits=lg, **kw)  # noqa: E731
sparse_xent = lambda lg, lb: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=lb, logits=lg)  # noqa: E731

CASES = [
    # nn_activations and nn_ops: activations, softmax, bias_add, xw_plus_b
    *[case(name, fn, away(3, 4) * scale) for name, fn, scale in ACTIVATIONS],
    *[case(f"{name}_grad", lambda x, u, fn=fn: grad_of(fn, x, u), away(3, 4) * scale, normal(3, 4))
      for name, fn, scale in ACTIVATIONS],
    case("relu_unknown_shape", tf.nn.relu, away(2, 3), shapes=[None]),
    case("softmax", tf.nn.softmax, normal(3, 5)),
    case("softmax_axis0", lambda x: tf.nn.softmax(x, axis=0), normal(3, 5)),
    case("softmax_3d_unknown", tf.nn.softmax, normal(2, 3, 4), shapes=[[None, None, 4]]),
    case("softmax_grad", lambda x, u: grad_of(tf.nn.softmax, x, u), normal(3, 5), normal(3, 5)),
    case("log_softmax", tf.nn.log_softmax, normal(3, 5)),
    case("log_softmax_axis_m2", lambda x: tf.nn.log_softmax(x, axis=-2), normal(2, 3, 4)),
    case("bias_add", tf.nn.bias_add, normal(3, 4), normal(4)),
    case("bias_add_4d", tf.nn.bias_add, normal(2, 3, 2, 4), normal(4)),
    case("bias_add_nchw", lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW"), normal(2, 3, 2, 4), normal(3)),
    case("bias_add_unknown", tf.nn.bias_add, normal(2, 3, 4), normal(4), shapes=[[None, None, 4], [None]]),
    case("bias_add_grad", lambda x, b, u: tf.gradients(tf.nn.bias_add(x, b), b, grad_ys=u)[0],
         normal(2, 3), normal(3), normal(2, 3)),
    case("bias_add_grad_nchw", lambda x, b, u: tf.gradients(tf.nn.bias_add(x, b, "NCHW"), b, grad_ys=u)[0],
         normal(2, 3, 2, 2), normal(3), normal(2, 3, 2, 2), shapes=[[None, 3, None, 2], [3], None]),
    case("xw_plus_b", tf.nn.xw_plus_b, normal(3, 4), normal(4, 2), normal(2)),
    # conv_ops: Conv2D and its backprops
    case("conv2d_same", conv(), normal(2, 5, 5, 3), normal(3, 3, 3, 4)),
    case("conv2d_valid_stride2", conv(strides=2, padding="VALID"), normal(2, 7, 6, 3), normal(3, 2, 3, 2)),
    case("conv2d_same_strides21", conv(strides=(2, 1)), normal(1, 6, 5, 2), normal(2, 3, 2, 3)),
    case("conv2d_dilated", conv(dilations=2), normal(1, 7, 7, 2), normal(3, 2, 2, 3)),
    case("conv2d_valid_dilated", conv(padding="VALID", dilations=(2, 1)), normal(1, 7, 6, 2), normal(2, 2, 2, 3)),
    case("conv2d_grouped", conv(strides=2), normal(2, 5, 5, 4), normal(3, 3, 2, 6)),
    case("conv2d_explicit_padding", conv(strides=2, padding=[[0, 0], [1, 2], [0, 1], [0, 0]]),
         normal(2, 5, 5, 3), normal(3, 3, 3, 2)),
    case("conv2d_nchw", conv(strides=2, data_format="NCHW"), nchw(normal(2, 5, 6, 3)), normal(3, 3, 3, 2)),
    case("conv2d_unknown_shapes", conv(strides=2), normal(2, 5, 5, 3), normal(3, 3, 3, 2),
         shapes=[[None, None, None, 3], None]),
    case("conv2d_backprop_input_grad", lambda x, w, u: tf.gradients(conv(strides=2)(x, w), x, grad_ys=u)[0],
         normal(1, 5, 5, 2), normal(3, 3, 2, 3), normal(1, 3, 3, 3)),
    case("conv2d_backprop_filter_grad",
         lambda x, w, u: tf.gradients(conv(padding="VALID", dilations=2)(x, w), w, grad_ys=u)[0],
         normal(1, 6, 6, 2), normal(2, 2, 2, 3), normal(1, 4, 4, 3)),
    # pool_ops: MaxPool, AvgPool and their gradient ops
    case("max_pool_valid", max_pool(ksize=2, strides=2, padding="VALID"), normal(2, 6, 5, 3)),
    case("max_pool_same_overlapping", max_pool(ksize=3, strides=2, padding="SAME"), normal(2, 6, 5, 3)),
    case("max_pool_same_rect", max_pool(ksize=(2, 3), strides=(1, 2), padding="SAME"), normal(1, 5, 6, 2)),
    case("max_pool_nchw", max_pool(ksize=3, strides=2, padding="SAME", data_format="NCHW"), normal(2, 3, 5, 5)),
    case("max_pool_unknown", max_pool(ksize=2, strides=1, padding="VALID"), normal(2, 4, 4, 2),
         shapes=[[None, None, None, 2]]),
    case("max_pool_grad", lambda x, u: grad_of(max_pool(ksize=3, strides=2, padding="SAME"), x, u),
         normal(1, 5, 5, 2), normal(1, 3, 3, 2)),
    case("max_pool_grad_grad", lambda x, u, v: tf.gradients(
        grad_of(max_pool(ksize=2, strides=1, padding="VALID"), x, u), u, grad_ys=v)[0],
         normal(1, 4, 4, 2), normal(1, 3, 3, 2), normal(1, 4, 4, 2)),
    case("avg_pool_valid", avg_pool(ksize=2, strides=2, padding="VALID"), normal(2, 6, 5, 3)),
    case("avg_pool_same_overlapping", avg_pool(ksize=3, strides=2, padding="SAME"), normal(2, 6, 5, 3)),
    case("avg_pool_same_rect", avg_pool(ksize=(2, 3), strides=(1, 2), padding="SAME"), normal(1, 5, 6, 2)),
    case("avg_pool_nchw", avg_pool(ksize=3, strides=2, padding="SAME", data_format="NCHW"), normal(2, 3, 5, 5),
         shapes=[[None, 3, None, None]]),
    case("avg_pool_grad", lambda x, u: grad_of(avg_pool(ksize=3, strides=2, padding="SAME"), x, u),
         normal(1, 5, 5, 2), normal(1, 3, 3, 2)),
    # nn_losses
    case("softmax_xent_v2", xent_v2(), normal(4, 5), probs(4, 5)),
    case("softmax_xent_v2_axis0", xent_v2(axis=0), normal(4, 5), probs(4, 5, axis=0)),
    case("softmax_xent_v2_broadcast_logits", xent_v2(), normal(1, 5), probs(4, 5)),
    case("softmax_xent_v2_broadcast_labels", xent_v2(), normal(4, 5), probs(1, 5)),
    case("softmax_xent_v2_unknown", xent_v2(), normal(4, 5), probs(4, 5), shapes=[[None, 5], [None, None]]),
    case("softmax_xent_v1", lambda lg, lb: tf.nn.softmax_cross_entropy_with_logits(labels=lb, logits=lg),
         normal(4, 5), probs(4, 5), wrt=[0]),
    case("softmax_xent_backprop_output", lambda lg, lb: xent_v2()(lg, lb).op.outputs[1], normal(3, 4), probs(3, 4)),
    case("sparse_softmax_xent", sparse_xent, normal(4, 5), np.array([0, 4, 2, 2])),
    case("sparse_softmax_xent_3d", sparse_xent, normal(2, 3, 5), np.array([[0, 4, 2], [1, 1, 3]])),
    case("sparse_softmax_xent_backprop_output", lambda lg, lb: sparse_xent(lg, lb).op.outputs[1],
         normal(3, 4), np.array([0, 3, 1])),
    case("sigmoid_xent", lambda lg, lb: tf.nn.sigmoid_cross_entropy_with_logits(labels=lb, logits=lg),
         normal(3, 4) * 3, rng.uniform(0, 1, (3, 4))),
    case("l2_loss", tf.nn.l2_loss, normal(3, 4)),
    # nn_norm_ops
    case("l2_normalize", lambda x: tf.nn.l2_normalize(x, axis=1), normal(3, 4, 5)),
    case("l2_normalize_axes", lambda x: tf.nn.l2_normalize(x, axis=[0, 2]), normal(3, 4, 5)),
    case("l2_normalize_all", tf.nn.l2_normalize, normal(3, 4)),
    case("l2_normalize_below_epsilon", lambda x: tf.nn.l2_normalize(x, axis=1, epsilon=100.0), normal(3, 4)),
    case("l2_normalize_grad", lambda x, u: grad_of(lambda t: tf.nn.l2_normalize(t, axis=1), x, u),
         normal(3, 4), normal(3, 4)),
    case("moments_mean", lambda x: tf.nn.moments(x, [0, 2])[0], normal(3, 4, 5)),
    case("moments_variance", lambda x: tf.nn.moments(x, [0, 2])[1], normal(3, 4, 5)),
    case("moments_keep_dims", lambda x: tf.nn.moments(x, [1], keep_dims=True)[1], normal(3, 4, 5)),
    case("moments_unknown_dims", lambda x: tf.nn.moments(x, [0])[1], normal(6, 3), shapes=[[None, 3]]),
    case("batch_norm", lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3),
         normal(3, 4, 5), normal(5), positive(5), normal(5), normal(5)),
    case("batch_norm_no_offset_scale", lambda x, m, v: tf.nn.batch_normalization(x, m, v, None, None, 1e-3),
         normal(3, 5), normal(5), positive(5)),
    case("batch_norm_scale_only", lambda x, m, v, s: tf.nn.batch_normalization(x, m, v, None, s, 1e-3),
         normal(3, 5), normal(5), positive(5), normal(5)),
    case("batch_norm_broadcast_params", lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 0.1),
         normal(3, 5), normal(3, 1), positive(1, 5), normal(1), normal(3, 5)),
    case("batch_norm_unknown", lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3),
         normal(3, 5), normal(5), positive(5), normal(5), normal(5), shapes=[[None, 5], None, [None], [5], [5]]),
    case("layer_norm_from_moments",
         lambda x: tf.nn.batch_normalization(x, *tf.nn.moments(x, [1], keep_dims=True), None, None, 1e-3),
         normal(3, 5)),
    case("batch_norm_grad", lambda x, m, v, u: tf.gradients(
        tf.nn.batch_normalization(x, m, v, None, None, 1e-3), x, grad_ys=u)[0],
         normal(3, 5), normal(5), positive(5), normal(3, 5)),
    # second derivatives through several rules: gradient penalties, as WGAN-GP computes them
    case("gradient_penalty_conv", lambda x, w: tf.norm(tf.gradients(
        tf.reduce_sum(tf.nn.softplus(conv(strides=2)(x, w))), x)[0]), normal(2, 5, 5, 2), normal(3, 3, 2, 3)),
    case("gradient_penalty_dense", lambda x, w: tf.norm(tf.gradients(
        tf.reduce_sum(tf.nn.elu(tf.matmul(x, w))), x)[0], axis=1), normal(3, 4), normal(4, 5)),
    # random_ops: the affine parts (the samplers are checked below, without finite differences)
    case("scale_shift", lambda x, a, b: apply_op("_ScaleShift", [x, a, b]).outputs[0],
         normal(3, 4), normal(4), normal(3, 1)),
    case("uniform_range", lambda x, lo, hi: apply_op("_UniformRange", [x, lo, hi]).outputs[0],
         rng.uniform(0, 1, (3, 4)), normal(4), normal(3, 1)),
    case("gamma_rate", lambda g, b: apply_op("_GammaRate", [g, b]).outputs[0], positive(2, 3), positive(3)),
    case("broadcast_like", lambda a, b: apply_op("_BroadcastLike", [a, b]).outputs[0], normal(1, 4), normal(3, 4),
         wrt=[0]),
    # linalg_ops
    case("matmul", tf.matmul, normal(3, 4), normal(4, 5)),
    case("matmul_transpose_a", lambda a, b: tf.matmul(a, b, transpose_a=True), normal(4, 3), normal(4, 5)),
    case("matmul_transpose_b", lambda a, b: tf.matmul(a, b, transpose_b=True), normal(3, 4), normal(5, 4)),
    case("matmul_transpose_ab", lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
         normal(4, 3), normal(5, 4)),
    case("matmul_unknown", tf.matmul, normal(3, 4), normal(4, 5), shapes=[[None, 4], [4, None]]),
    case("matmul_grad", lambda a, b, u: tf.gradients(tf.matmul(a, b), a, grad_ys=u)[0],
         normal(3, 4), normal(4, 5), normal(3, 5)),
    case("batch_matmul", tf.matmul, normal(2, 3, 4), normal(2, 4, 5)),
    case("batch_matmul_broadcast", tf.matmul, normal(2, 1, 3, 4), normal(3, 4, 5)),
    case("batch_matmul_rank2_rhs", tf.matmul, normal(2, 3, 4), normal(4, 5)),
    case("batch_matmul_rank2_lhs", tf.matmul, normal(3, 4), normal(2, 4, 5)),
    case("batch_matmul_adjoint_a", lambda a, b: tf.matmul(a, b, adjoint_a=True), normal(2, 1, 4, 3), normal(3, 4, 5)),
    case("batch_matmul_adjoint_b", lambda a, b: tf.matmul(a, b, adjoint_b=True), normal(2, 3, 4), normal(1, 5, 4)),
    case("batch_matmul_adjoint_ab", lambda a, b: tf.matmul(a, b, adjoint_a=True, adjoint_b=True),
         normal(1, 4, 3), normal(2, 5, 4)),
    case("batch_matmul_unknown_batch", tf.matmul, normal(2, 1, 3, 4), normal(3, 4, 5),
         shapes=[[None, None, 3, 4], [None, 4, 5]]),
    case("batch_matmul_unknown_rank", tf.matmul, normal(2, 3, 4), normal(1, 4, 5), shapes=[None, None]),
    case("matvec", tf.linalg.matvec, normal(2, 3, 4), normal(4)),
    case("matvec_transpose", lambda a, b: tf.linalg.matvec(a, b, transpose_a=True), normal(2, 4, 3), normal(2, 4)),
    case("matvec_adjoint", lambda a, b: tf.linalg.matvec(a, b, adjoint_a=True), normal(4, 3), normal(2, 4)),
    case("matvec_unknown", tf.linalg.matvec, normal(1, 3, 4), normal(2, 4), shapes=[[None, 3, 4], [None, 4]]),
    case("matrix_transpose", tf.linalg.matrix_transpose, normal(2, 3, 4)),
    case("adjoint", tf.linalg.adjoint, normal(3, 4)),
    case("band_part_lower", lambda x: tf.linalg.band_part(x, 1, 0), normal(2, 4, 4)),
    case("band_part_upper_all", lambda x: tf.linalg.band_part(x, -1, 1), normal(4, 5)),
    case("trace", tf.trace, normal(3, 3)),
    case("trace_batched_rectangular", tf.trace, normal(2, 3, 4), shapes=[[None, None, 4]]),
    case("cross", tf.cross, normal(2, 3), normal(2, 3)),
    case("tensordot_int", lambda a, b: tf.tensordot(a, b, 1), normal(2, 3, 4), normal(4, 5)),
    case("tensordot_axes", lambda a, b: tf.tensordot(a, b, [[0, 2], [2, 0]]), normal(2, 3, 4), normal(4, 5, 2)),
    case("tensordot_unordered", lambda a, b: tf.tensordot(a, b, [[2, 0], [2, 0]]), normal(2, 3, 4), normal(2, 5, 4)),
    case("tensordot_outer", lambda a, b: tf.tensordot(a, b, 0), normal(2, 3), normal(4)),
    case("tensordot_unknown_dims", lambda a, b: tf.tensordot(a, b, 1), normal(2, 3), normal(3, 4),
         shapes=[[None, None], [None, 4]]),
    *[case(f"norm_{k}_{a}{'_keepdims' if keep else ''}".replace(" ", ""),
           lambda x, o=o, a=a, keep=keep: tf.norm(x, ord=o, axis=a, keepdims=keep), away(3, 4))
      for k, o, a in [("euclidean", "euclidean", None), ("euclidean", "euclidean", 1), ("1", 1, 1),
                      ("inf", np.inf, 1), ("p3", 3.0, 0), ("p0.5", 0.5, 0), ("fro", "fro", (0, 1)),
                      ("1", 1, (0, 1)), ("inf", np.inf, (1, 0)), ("spectral", 2, (0, 1)), ("spectral", 2, (1, 0))]
      for keep in (False, True)],
    case("norm_spectral_batched", lambda x: tf.norm(x, ord=2, axis=(0, 2)), normal(3, 2, 4)),
    case("norm_unknown", lambda x: tf.norm(x, axis=-1), normal(3, 4), shapes=[[None, None]]),
    # einsum_ops
    case("einsum_matmul", lambda a, b: tf.einsum("ij,jk->ik", a, b), normal(2, 3), normal(3, 4)),
    case("einsum_implicit", lambda a, b: tf.einsum("ij,jk", a, b), normal(2, 3), normal(3, 4)),
    case("einsum_batched_transposed", lambda a, b: tf.einsum("bij,bkj->bki", a, b), normal(2, 2, 3), normal(2, 4, 3)),
    case("einsum_diagonal", lambda a: tf.einsum("ii->i", a), normal(3, 3)),
    case("einsum_trace", lambda a: tf.einsum("ii", a), normal(3, 3)),
    case("einsum_sum", lambda a: tf.einsum("ij->", a), normal(2, 3)),
    case("einsum_reduced_label", lambda a, b: tf.einsum("abc,cd->ad", a, b), normal(2, 3, 4), normal(4, 5)),
    case("einsum_repeated_and_reduced", lambda a, b: tf.einsum("iij,j->i", a, b), normal(3, 3, 2), normal(2)),
    case("einsum_three_operands", lambda a, b, c: tf.einsum("i,i,i->", a, b, c), normal(3), normal(3), normal(3)),
    case("einsum_ellipsis_broadcast", lambda a, b: tf.einsum("...ij,...jk->...ik", a, b),
         normal(2, 1, 2, 3), normal(5, 3, 4)),
    case("einsum_ellipsis_one_side", lambda a, b: tf.einsum("ij,...jk->...ik", a, b), normal(2, 3), normal(5, 3, 4)),
    case("einsum_ellipsis_middle", lambda a, b: tf.einsum("a...b,b...->a...", a, b), normal(2, 1, 3), normal(3, 5)),
    case("einsum_unknown_shapes", lambda a, b: tf.einsum("bij,jk->bik", a, b), normal(2, 2, 3), normal(3, 4),
         shapes=[[None, 2, 3], [3, None]]),
    # linalg_solvers
    case("matrix_inverse", tf.linalg.inv, well_conditioned(2, 3, 3)),
    case("matrix_inverse_adjoint", lambda a: tf.linalg.inv(a, adjoint=True), well_conditioned(3, 3)),
    case("matrix_determinant", tf.linalg.det, well_conditioned(2, 3, 3)),
    case("slogdet", lambda a: tf.linalg.slogdet(a)[1], well_conditioned(2, 3, 3)),
    case("logdet", lambda a: tf.linalg.logdet(sym(a)), spd(2, 3, 3)),
    case("solve", tf.linalg.solve, well_conditioned(2, 3, 3), normal(2, 3, 2)),
    case("solve_adjoint", lambda a, b: tf.linalg.solve(a, b, adjoint=True), well_conditioned(3, 3), normal(3, 2)),
    *[case(f"triangular_solve_{'lower' if lower else 'upper'}{'_adjoint' if adj else ''}",
           lambda a, b, lower=lower, adj=adj: tf.linalg.triangular_solve(a, b, lower=lower, adjoint=adj),
           well_conditioned(2, 3, 3), normal(2, 3, 2))
      for lower in (True, False) for adj in (False, True)],
    case("triangular_solve_broadcast_rhs", tf.linalg.triangular_solve, well_conditioned(2, 3, 3), normal(3, 2)),
    case("triangular_solve_broadcast_matrix", lambda a, b: tf.linalg.triangular_solve(a, b, lower=False),
         well_conditioned(3, 3), normal(2, 3, 2), shapes=[[None, 3], [None, 3, None]]),
    case("cholesky_solve", lambda c, b: tf.linalg.cholesky_solve(c, b), np.tril(well_conditioned(3, 3)), normal(3, 2)),
    case("lstsq_tall", tf.linalg.lstsq, normal(5, 3), normal(5, 2)),
    case("lstsq_tall_l2", lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.5), normal(2, 5, 3), normal(2, 5, 2)),
    case("lstsq_wide", tf.linalg.lstsq, normal(2, 5), normal(2, 2)),
    case("lstsq_wide_l2", lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.3), normal(2, 5), normal(2, 2)),
    # linalg_factorizations
    case("cholesky", lambda a: tf.cholesky(sym(a)), spd(2, 4, 4)),
    case("cholesky_unknown", lambda a: tf.cholesky(sym(a)), spd(4, 4), shapes=[[None, None]]),
    case("eigvalsh", lambda a: tf.linalg.eigvalsh(sym(a)), spd(2, 4, 4)),
    case("eigh_values", lambda a: tf.linalg.eigh(sym(a))[0], spd(4, 4)),
    case("eigh_vectors", lambda a: tf.linalg.eigh(sym(a))[1], spd(2, 4, 4)),
    *[case(f"qr_{name}_{i}", lambda a, i=i: tf.linalg.qr(a)[i], x)
      for name, x in [("tall", normal(5, 3)), ("square", normal(4, 4)), ("wide", normal(2, 3, 5))] for i in (0, 1)],
    case("qr_full_square", lambda a: tf.linalg.qr(a, full_matrices=True)[0], normal(3, 3)),
    case("svd_values", lambda a: tf.linalg.svd(a, compute_uv=False), normal(2, 4, 3)),
    *[case(f"svd_{name}_{out}", lambda a, i=i, full=full: tf.linalg.svd(a, full_matrices=full)[i], x)
      for name, x, full in [("tall", normal(4, 3), False), ("wide", normal(3, 4), False),
                            ("square", normal(3, 3), False), ("batched", normal(2, 4, 3), False),
                            ("tall_full", normal(4, 3), True), ("wide_full", normal(3, 4), True)]
      for i, out in enumerate("suv")],
]


@pytest.mark.parametrize("fn,inputs,opts", CASES)
def test_gradient_matches_finite_differences(fn, inputs, opts):
    check_gradients(fn, *inputs, **opts)


# -- gradient values computed by TF 2.15 (compat.v1 graph mode) ------------------------------------


def lin(shape, lo, hi):
    return np.linspace(lo, hi, int(np.prod(shape))).reshape(shape)


def lin_spd(n):
    a = lin((n, n), -1, 1) + np.eye(n) * 0.3
    return a @ a.T + n * np.eye(n)


REFERENCE_CASES = {
    "relu": (tf.nn.relu, [lin((2, 4), -2.9, 3.1)]),
    "relu6": (tf.nn.relu6, [lin((2, 4), -2.9, 7.1)]),
    "elu": (tf.nn.elu, [lin((2, 4), -2.9, 3.1)]),
    "selu": (tf.nn.selu, [lin((2, 4), -2.9, 3.1)]),
    "softplus": (tf.nn.softplus, [lin((2, 4), -2.9, 3.1)]),
    "softsign": (tf.nn.softsign, [lin((2, 4), -2.9, 3.1)]),
    "leaky_relu": (lambda x: tf.nn.leaky_relu(x, 0.1), [lin((2, 4), -2.9, 3.1)]),
    "softmax": (tf.nn.softmax, [lin((2, 4), -2.9, 3.1)]),
    "log_softmax": (tf.nn.log_softmax, [lin((2, 4), -2.9, 3.1)]),
    "bias_add": (tf.nn.bias_add, [lin((2, 3, 4), -1, 1), lin((4,), 0, 1)]),
    "softmax_xent_v2": (xent_v2(), [lin((2, 3), -1, 2), np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])]),
    "sigmoid_xent": (lambda lg, lb: tf.nn.sigmoid_cross_entropy_with_logits(labels=lb, logits=lg),
                     [lin((2, 3), -2, 2), lin((2, 3), 0, 1)]),
    "l2_normalize": (lambda x: tf.nn.l2_normalize(x, axis=1), [lin((2, 3), -1, 2)]),
    "moments_var": (lambda x: tf.nn.moments(x, [0])[1], [lin((3, 2), -1, 2) ** 2]),
    "batch_norm": (lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3),
                   [lin((2, 3), -1, 2), lin((3,), 0, 1), lin((3,), 0.5, 1.5), lin((3,), -1, 1), lin((3,), 1, 2)]),
    "conv2d_valid_s21": (conv(strides=(2, 1), padding="VALID"), [lin((1, 5, 6, 1), -1, 1), lin((2, 3, 1, 2), -1, 1)]),
    "max_pool_ties": (max_pool(ksize=2, strides=1, padding="VALID"),
                      [np.array([[1.0, 3, 3], [3, 2, 1], [0, 3, 3]]).reshape(1, 3, 3, 1)]),
    "max_pool_same": (max_pool(ksize=3, strides=2, padding="SAME"), [np.cos(lin((1, 5, 5, 1), 0, 9))]),
    "avg_pool_same": (avg_pool(ksize=3, strides=2, padding="SAME"), [lin((1, 5, 5, 1), -1, 1)]),
    "batch_matmul_bcast": (tf.matmul, [lin((2, 1, 2, 3), -1, 1), lin((3, 3, 2), -1, 2)]),
    "matmul_tt": (lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
                  [lin((3, 2), -1, 1), lin((4, 3), -1, 2)]),
    "inverse": (tf.linalg.inv, [lin_spd(3) + lin((3, 3), 0, 1)]),
    "det": (tf.linalg.det, [lin_spd(3) + lin((3, 3), 0, 1)]),
    "solve": (tf.linalg.solve, [lin_spd(3) + lin((3, 3), 0, 1), lin((3, 2), -1, 1)]),
    "triangular_solve": (lambda a, b: tf.linalg.triangular_solve(a, b, lower=False),
                         [lin_spd(3) + lin((3, 3), 0, 1), lin((3, 2), -1, 1)]),
    "cholesky": (tf.cholesky, [lin_spd(3)]),
    "logdet": (tf.linalg.logdet, [lin_spd(3)]),
    "eigvalsh": (tf.linalg.eigvalsh, [lin_spd(3)]),
    "svd_s": (lambda a: tf.linalg.svd(a, compute_uv=False), [lin((3, 2), -1, 2) + np.array([[3, 0], [0, 1], [0, 0]])]),
    "einsum_diag": (lambda a, b: tf.einsum("ii,ij->j", a, b), [lin((3, 3), -1, 1), lin((3, 2), 0, 1)]),
    "norm_1": (lambda x: tf.norm(x, ord=1, axis=1), [lin((2, 3), -1, 2)]),
    "norm_fro": (lambda x: tf.norm(x, ord="fro", axis=(0, 1)), [lin((2, 3), -1, 2)]),
    "tensordot": (lambda a, b: tf.tensordot(a, b, [[0, 2], [1, 0]]), [lin((2, 3, 4), -1, 1), lin((4, 2, 2), 0, 1)]),
}

# tf.gradients(tf.reduce_sum(f(*inputs) * lin(output shape, 0.5, 1.5)), inputs), per case.
TF_GRADIENTS = {
    'relu': [[[0.0, 0.0, 0.0, 0.0], [1.07142857, 1.21428571, 1.35714286, 1.5]]],
    'relu6': [[[0.0, 0.0, 0.0, 0.92857143], [1.07142857, 1.21428571, 1.35714286, 0.0]]],
    'elu': [[[0.02751161, 0.0833514, 0.24005761, 0.66852639], [1.07142857, 1.21428571, 1.35714286, 1.5]]],
    'selu': [[[0.04836814, 0.14654004, 0.42204513, 1.17533581], [1.12575106, 1.2758512, 1.42595134, 1.57605148]]],
    'softplus': [[[0.02607678, 0.07378465, 0.18387781, 0.3886891], [0.67408913, 0.97131585, 1.22690142, 1.43533912]]],
    'softsign': [[[0.03287311, 0.06943067, 0.16446666, 0.52607238], [0.45855533, 0.21334576, 0.12905354, 0.0892326]]],
    'leaky_relu': [[[0.05, 0.06428572, 0.07857143, 0.09285714], [1.07142857, 1.21428571, 1.35714286, 1.5]]],
    'softmax': [[[-0.01556844, -0.02137992, -0.01431304, 0.0512614], [-0.01556844, -0.02137992, -0.01431304,
        0.0512614]]],
    'log_softmax': [[[0.37009225, 0.33674013, 0.06437452, -0.7712069], [0.83759463, 0.6632751, 0.05873127,
        -1.559601]]],
    'bias_add': [[[[0.5, 0.54347826, 0.58695652, 0.63043478], [0.67391304, 0.7173913, 0.76086957, 0.80434783],
        [0.84782609, 0.89130435, 0.93478261, 0.97826087]], [[1.02173913, 1.06521739, 1.10869565, 1.15217391],
        [1.19565217, 1.23913043, 1.2826087, 1.32608696], [1.36956522, 1.41304348, 1.45652174, 1.5]]], [5.60869565,
        5.86956522, 6.13043478, 6.39130435]],
    'softmax_xent_v2': [[[-0.01859642, -0.001673, 0.02026942], [-0.65578925, 0.294981, 0.36080825]], [[0.9075944,
        0.6075944, 0.3075944], [2.7227832, 1.8227832, 0.9227832]]],
    'sigmoid_xent': [[[0.05960146, 0.02203265, 0.00118111], [-0.00144357, -0.04091778, -0.17880438]], [[1.0, 0.84,
        0.36], [-0.44, -1.56, -3.0]]],
    'l2_normalize': [[[-0.0, 0.45643546, 0.91287093], [0.15923842, 0.03538632, -0.08846579]]],
    'moments_var': [[[0.0, -1.44], [-0.32, -0.96], [0.32, 2.4]]],
    'batch_norm': [[[0.70640073, 1.04947539, 1.46920419], [1.55408161, 1.94902573, 2.44867365]], [-2.26048235,
        -2.99850112, -3.91787785], [-0.53579297, -0.40439326, -0.424154], [1.6, 2.0, 2.4], [0.53686456, 0.5397302,
        0.63665515]],
    'conv2d_valid_s21': [[[[[-0.96363636], [-1.78181818], [-2.35757576], [-2.79393939], [-1.2969697], [-0.33333333]],
        [[0.2], [0.83636364], [2.00606061], [2.44242424], [2.48484848], [1.7030303]], [[-1.93333333], [-3.33333333],
        [-4.1030303], [-4.53939394], [-2.07272727], [-0.52727273]], [[0.39393939], [1.61212121], [3.75151515],
        [4.18787879], [4.03636364], [2.67272727]], [[0.0], [0.0], [0.0], [0.0], [0.0], [0.0]]]], [[[[-2.75862069,
        -3.01609195]], [[-2.22528736, -2.44597701]], [[-1.69195402, -1.87586207]]], [[[0.44137931, 0.4045977]],
        [[0.97471264, 0.97471264]], [[1.50804598, 1.54482759]]]]],
    'max_pool_ties': [[[[[0.0], [1.33333333], [0.0]], [[1.16666667], [0.0], [0.0]], [[0.0], [1.5], [0.0]]]]],
    'max_pool_same': [[[[[0.5], [0.625], [0.0], [0.75], [0.0]], [[0.0], [0.0], [0.0], [0.0], [0.0]], [[0.0], [0.0],
        [0.0], [0.0], [0.0]], [[0.0], [2.125], [2.375], [2.625], [0.0]], [[0.0], [0.0], [0.0], [0.0], [0.0]]]]],
    'avg_pool_same': [[[[[0.125], [0.22916667], [0.10416667], [0.29166667], [0.1875]], [[0.27083333], [0.48611111],
        [0.21527778], [0.59027778], [0.375]], [[0.14583333], [0.25694444], [0.11111111], [0.29861111], [0.1875]],
        [[0.45833333], [0.79861111], [0.34027778], [0.90277778], [0.5625]], [[0.3125], [0.54166667], [0.22916667],
        [0.60416667], [0.375]]]]],
    'batch_matmul_bcast': [[[[[1.36189258, 2.83503836, 4.30818414], [1.43861893, 3.09590793, 4.75319693]]],
        [[[1.82225064, 4.40025575, 6.97826087], [1.89897698, 4.66112532, 7.42327366]]]], [[[0.03162055, 0.0],
        [0.61660079, 0.61660079], [1.20158103, 1.23320158]], [[-0.09486166, -0.12648221], [0.61660079, 0.61660079],
        [1.32806324, 1.35968379]], [[-0.22134387, -0.25296443], [0.61660079, 0.61660079], [1.45454545, 1.48616601]]]],
    'matmul_tt': [[[1.23376623, 1.75324675], [2.01298701, 3.15584416], [2.79220779, 4.55844156]], [[-1.14285714,
        0.11428571, 1.37142857], [-1.37142857, 0.11428571, 1.6], [-1.6, 0.11428571, 1.82857143], [-1.82857143,
        0.11428571, 2.05714286]]],
    'inverse': [[[-0.04332639, -0.03674375, -0.0301611], [-0.04973016, -0.04100215, -0.03227414], [-0.05613392,
        -0.04526055, -0.03438718]]],
    'det': [[[11.39589375, -1.0768125, 1.63921875], [-0.6905625, 13.4553, -2.7763125], [2.41171875, -2.3900625,
        7.99689375]]],
    'solve': [[[0.0497215, 0.00551531, -0.03869089], [0.05735934, 0.00692047, -0.0435184], [0.06499719, 0.00832564,
        -0.04834591]], [[0.14616093, 0.19711974], [0.17376362, 0.21632805], [0.20136631, 0.23553636]]],
    'triangular_solve': [[[0.03888336, 0.00759997, -0.03574364], [0.0, 0.01639223, -0.06837089], [0.0, 0.0,
        -0.05009742]], [[0.1162115, 0.16269611], [0.24382519, 0.29828662], [0.18400787, 0.21535374]]],
    'cholesky': [[[0.29384988, 0.34621853, 0.43848905], [0.34621853, 0.2402185, 0.34565375], [0.43848905, 0.34565375,
        0.33901149]]],
    'logdet': [[[0.12960478, 0.00221221, 0.03663194], [0.00221221, 0.15716305, -0.01151072], [0.03663194, -0.01151072,
        0.10215892]]],
    'eigvalsh': [[[1.07261512, 0.0, 0.0], [0.26052626, 0.67516446, 0.0], [-0.62417771, 0.44013157, 1.25222042]]],
    'svd_s': [[[1.16204011, -0.68686992], [-0.38073781, 0.60620555], [0.19765234, 0.35547094]]],
    'einsum_diag': [[[0.3, 0.0, 0.0], [0.0, 1.1, 0.0], [0.0, 0.0, 1.9]], [[-0.5, -1.5], [0.0, 0.0], [0.5, 1.5]]],
    'norm_1': [[[-0.5, -0.5, 0.5], [1.5, 1.5, 1.5]]],
    'norm_fro': [[[-0.17902872, -0.07161149, 0.03580574], [0.14322297, 0.25064021, 0.35805744]]],
    'tensordot': [[[[0.04666667, 0.36666667, 0.68666667, 1.00666667], [0.07333333, 0.60666667, 1.14, 1.67333333],
        [0.1, 0.84666667, 1.59333333, 2.34]], [[0.20666667, 0.52666667, 0.84666667, 1.16666667], [0.34, 0.87333333,
        1.40666667, 1.94], [0.47333333, 1.22, 1.96666667, 2.71333333]]], [[[-1.4826087, -1.87391304], [1.33478261,
        1.56956522]], [[-1.24782609, -1.58695652], [1.56956522, 1.85652174]], [[-1.01304348, -1.3], [1.80434783,
        2.14347826]], [[-0.77826087, -1.01304348], [2.03913043, 2.43043478]]]],
}


@pytest.mark.parametrize("name", sorted(REFERENCE_CASES))
def test_gradient_matches_tensorflow(name):
    fn, inputs = REFERENCE_CASES[name]
    with tf.Graph().as_default():
        xs = [tf.constant(x) for x in inputs]
        y = fn(*xs)
        grads = tf.gradients(tf.reduce_sum(y * lin(y.shape.as_list(), 0.5, 1.5)), xs)
        with tf.Session() as sess:
            got = sess.run([g for g in grads if g is not None])
    want = TF_GRADIENTS[name]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.array(w), rtol=1e-6, atol=1e-7)


# -- random ops: no finite differences through a sampler, so check against the sample -------------


def test_dropout_gradient_is_the_kept_mask_scaled():
    x, rate, u = tf.placeholder(tf.float64, [50, 40]), tf.placeholder(tf.float64, []), tf.placeholder(tf.float64)
    y = tf.nn.dropout(x, rate=rate)
    y_keep = tf.nn.dropout(x, keep_prob=rate, noise_shape=[50, 1])
    grads = tf.gradients(y, [x, rate], grad_ys=u) + tf.gradients(y_keep, [x, rate], grad_ys=u)
    xv, uv = away(50, 40), normal(50, 40)
    with tf.Session() as sess:
        yv, ykv, gx, g_rate, gx_keep, g_keep = sess.run([y, y_keep] + grads, {x: xv, rate: 0.3, u: uv})
    kept = yv != 0
    assert 0.2 < 1 - kept.mean() < 0.4
    np.testing.assert_allclose(gx, uv * kept / 0.7)
    np.testing.assert_allclose(g_rate, np.sum(uv * xv * kept) / 0.7 ** 2)  # d/d rate of x / (1 - rate)
    kept = ykv != 0
    assert (kept == kept[:, :1]).all()  # one decision per row: noise_shape [50, 1]
    np.testing.assert_allclose(gx_keep, uv * kept / 0.3)
    np.testing.assert_allclose(g_keep, -np.sum(uv * xv * kept) / 0.3 ** 2)  # d/d keep_prob of x / keep_prob


def test_random_distribution_parameters_get_gradients():
    mean, stddev = tf.placeholder(tf.float64, [3]), tf.placeholder(tf.float64, [])
    lo, hi = tf.placeholder(tf.float64, []), tf.placeholder(tf.float64, [])
    alpha, beta = tf.placeholder(tf.float64, []), tf.placeholder(tf.float64, [3])
    normal_ = tf.random_normal([2, 3], mean=mean, stddev=stddev, dtype=tf.float64)
    uniform = tf.random_uniform([4], lo, hi, dtype=tf.float64)
    gamma = tf.random_gamma([5], alpha, beta, dtype=tf.float64)
    u2, u4, u5 = normal(2, 3), normal(4), normal(5, 3)
    g_mean, g_stddev = tf.gradients(normal_, [mean, stddev], grad_ys=u2)
    g_lo, g_hi = tf.gradients(uniform, [lo, hi], grad_ys=u4)
    g_alpha, g_beta = tf.gradients(gamma, [alpha, beta], grad_ys=u5)
    assert g_alpha is not None  # TF's implicit reparameterisation (test_random_ops checks its figures)
    feed = {mean: [1.0, 2.0, 3.0], stddev: 2.0, lo: 1.0, hi: 3.0, alpha: 2.0, beta: [1.0, 2.0, 4.0]}
    with tf.Session() as sess:
        n, gm, gs, un, gl, gh, ga, gb = sess.run([normal_, g_mean, g_stddev, uniform, g_lo, g_hi, gamma, g_beta], feed)
    np.testing.assert_allclose(gm, u2.sum(axis=0))
    np.testing.assert_allclose(gs, np.sum(u2 * (n - [1.0, 2.0, 3.0]) / 2.0))
    t = (un - 1.0) / 2.0
    np.testing.assert_allclose(gl, np.sum(u4 * (1 - t)))
    np.testing.assert_allclose(gh, np.sum(u4 * t))
    np.testing.assert_allclose(gb, -np.sum(u5 * ga / [1.0, 2.0, 4.0], axis=0))


# -- what is not differentiable ---------------------------------------------------------------------

NOT_DIFFERENTIABLE = ["InTopKV2", "RandomStandardNormal", "RandomUniform", "TruncatedNormal", "RandomUniformInt",
                      "RandomShuffle", "Multinomial", "RandomPoissonV2"]


@pytest.mark.parametrize("op_type", NOT_DIFFERENTIABLE)
def test_declared_not_differentiable(op_type):
    assert get_opdef(op_type).not_differentiable


def test_not_differentiable_ops_give_none():
    x = tf.placeholder(tf.float32, [4, 3])
    targets = tf.constant([0, 1, 2, 0])
    assert tf.gradients(tf.random_shuffle(x), x) == [None]
    assert tf.gradients(tf.cast(tf.nn.in_top_k(x, targets, 2), tf.float32), x) == [None]
    assert tf.gradients(tf.cast(tf.multinomial(x, 2), tf.float32), x) == [None]
    assert tf.gradients(tf.random_poisson(x, [2]), x) == [None]
    # Labels of the v1 cross-entropy and of the sparse one get no gradient.
    labels = tf.placeholder(tf.float32, [4, 3])
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=x)
    assert tf.gradients(loss, labels) == [None]


# -- every differentiable op of these modules has a rule, and the tables exercise it ------------------

MODULES = {"dflow.ops.nn." + m for m in ("nn_ops", "nn_activations", "conv_ops", "pool_ops", "nn_losses",
                                         "nn_norm_ops")}
MODULES |= {"dflow.ops.linalg." + m for m in ("linalg_ops", "linalg_solvers", "linalg_factorizations", "linalg_norms",
                                              "einsum_ops")}
MODULES |= {"dflow.ops.random.random_ops"}
# Gradient-only kernels without second derivatives (they raise LookupError if asked for one).
FIRST_ORDER_ONLY = {"_NormGrad", "_EinsumGradExpand"}
CHECKED_ELSEWHERE = {"_Dropout"}  # test_dropout_gradient_is_the_kept_mask_scaled
CHECKED_ELSEWHERE |= {"RandomGamma"}  # tests/ops/test_random_ops.py (a statistical check)
# The 3-D and depthwise convolutions and pools: tests/ops/test_conv_variants.py.
CHECKED_ELSEWHERE |= {"Conv",  # tests/ops/test_misc_top_level.py
                      "Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", "DepthwiseConv2dNative",
                      "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter", "MaxPool3D",
                      "MaxPool3DGrad", "MaxPool3DGradGrad", "AvgPool3D", "AvgPool3DGrad"}


def _op_module(d) -> str:
    module = (d.make_kernel or d.kernel).__module__
    return module if module in MODULES else getattr(d.infer, "__module__", None)


def _module_op_types() -> set:
    found = {t: _op_module(d) for t, d in _OPS.items() if _op_module(d) in MODULES}
    assert set(found.values()) == MODULES, f"modules with no ops (moved?): {MODULES - set(found.values())}"
    return set(found)


def test_every_op_has_a_gradient_rule_or_is_declared_not_differentiable():
    missing = sorted(t for t in _module_op_types() - FIRST_ORDER_ONLY
                     if _OPS[t].grad is None and not _OPS[t].not_differentiable)
    assert not missing, f"no gradient rule and not declared not_differentiable: {missing}"


def test_the_tables_exercise_every_rule():
    exercised = set()
    for param in CASES:
        fn, inputs, opts = param.values
        with tf.Graph().as_default() as g:
            fn(*(tf.placeholder(tf.as_dtype(np.asarray(x).dtype), np.shape(x)) for x in inputs))
            exercised |= {op.type for op in g.get_operations()}
    with_rules = {t for t in _module_op_types() if _OPS[t].grad is not None}
    assert not sorted(with_rules - exercised - CHECKED_ELSEWHERE)


# -- names, dtypes and static shapes ----------------------------------------------------------------


def test_gradient_ops_are_named_under_gradients():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 6, 6, 3])
        w = tf.placeholder(tf.float32, [3, 3, 3, 4])
        y = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME")), 2, 2, "VALID")
        before = set(g.get_operations())
        gx, gw = tf.gradients(y, [x, w])
        new = [op.name for op in g.get_operations() if op not in before]
    assert new and all(name.startswith("gradients/") for name in new)
    assert gx.op.name == "gradients/Conv2D_grad/Conv2DBackpropInput"
    assert gw.op.name == "gradients/Conv2D_grad/Conv2DBackpropFilter"
    assert {"gradients/Relu_grad/ReluGrad", "gradients/MaxPool_grad/MaxPoolGrad"} <= set(new)


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32])
@pytest.mark.parametrize("fn,shapes", [
    (tf.nn.relu, [[None, 4]]),
    (tf.nn.softmax, [[None, 4]]),
    (tf.nn.bias_add, [[None, 4], [4]]),
    (lambda x, w: tf.nn.conv2d(x, w, 2, "SAME"), [[None, 5, 5, 3], [3, 3, 3, 2]]),
    (lambda x: tf.nn.max_pool(x, 2, 2, "SAME"), [[None, 5, 5, 3]]),
    (lambda x: tf.nn.avg_pool(x, 2, 2, "VALID"), [[2, None, 5, 3]]),
    (lambda x, m, v: tf.nn.batch_normalization(x, m, v, None, None, 1e-3), [[None, 4], [4], [4]]),
    (lambda x: tf.nn.l2_normalize(x, 1), [[None, 4]]),
    (lambda lg, lb: tf.nn.softmax_cross_entropy_with_logits_v2(labels=lb, logits=lg), [[None, 4], [None, 4]]),
], ids=["relu", "softmax", "bias_add", "conv2d", "max_pool", "avg_pool", "batch_norm", "l2_normalize", "xent"])
def test_gradients_have_the_inputs_dtype_and_static_shape(fn, shapes, dtype):
    xs = [tf.placeholder(dtype, s) for s in shapes]
    grads = tf.gradients(fn(*xs), xs)
    for x, g in zip(xs, grads):
        assert g.dtype == dtype
        assert g.shape.is_compatible_with(x.shape) and g.shape.ndims == x.shape.ndims
    values = [np.ones([2 if d is None else d for d in s], dtype.as_numpy_dtype) for s in shapes]
    with tf.Session() as sess:
        for v, g in zip(values, sess.run(grads, dict(zip(xs, values)))):
            assert g.dtype == dtype.as_numpy_dtype and g.shape == v.shape


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_linalg_gradients_have_the_inputs_dtype_and_static_shape(dtype):
    a = tf.placeholder(dtype, [None, 3, 3])
    b = tf.placeholder(dtype, [3, None])
    outs = [tf.matmul(a, b), tf.linalg.inv(a), tf.linalg.det(a), tf.linalg.triangular_solve(a, b),
            tf.einsum("bij,jk->bik", a, b), tf.tensordot(a, b, 1), tf.norm(a, axis=-1), tf.trace(a)]
    for out in outs:
        for x, g in zip([a, b], tf.gradients(out, [a, b])):
            if g is not None:
                assert g.dtype == dtype
                assert g.shape.is_compatible_with(x.shape)


def test_unknown_rank_tensordot_gradient_says_why():
    a = tf.placeholder(tf.float32, None)
    b = tf.placeholder(tf.float32, [3, 4])
    with pytest.raises(ValueError, match="known rank"):
        tf.gradients(tf.tensordot(a, b, 1), a)
