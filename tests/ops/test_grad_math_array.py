"""Gradient rules of the math, reduction, select and array ops.

One table of cases, each run through ``check_gradients`` (a vector-Jacobian
product against central finite differences, float64) and through a static
check (each gradient has its input's dtype and, for a fully known input, its
static shape). Values are away from kinks and ties; the tricky points (ties,
zeros, masks) are checked against figures read from TensorFlow 2.15's
``compat.v1`` graph mode, marked "TF".
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from dflow.framework.op_registry import get_opdef, register, registered_op_types
from tests.ops.gradcheck import check_gradients

pytestmark = pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")

_rng = np.random.default_rng(42)


def _normal(*shape):
    return _rng.standard_normal(shape)


def _uniform(lo, hi, *shape):
    return _rng.uniform(lo, hi, shape)


A = _normal(3, 4)
A2 = _normal(3, 4)
ROW = _normal(4)
COL = _normal(3, 1)
S = np.float64(0.7)
POS = _uniform(0.5, 2.0, 3, 4)
POS_ROW = _uniform(0.5, 2.0, 4)
UNIT = _uniform(-0.8, 0.8, 3, 4)  # inside (-1, 1), for asin, acos, atanh
BIG = _uniform(1.5, 3.0, 3, 4)  # > 1, for acosh
X3 = _normal(2, 3, 4)
SQ = _normal(2, 3, 3)
ZEROS = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.5, 2.0, -3.0]])  # Prod with one and two zeros
I32 = np.int32


def case(id, fn, *inputs, **kw):
    """A table row: ``fn(*placeholders)`` at ``inputs``; ``kw`` goes to ``check_gradients``."""
    return pytest.param(fn, inputs, kw, id=id)


def unknown(*inputs):
    """Placeholder shapes with every dimension unknown (rank kept)."""
    return [[None] * np.ndim(x) for x in inputs]


CASES = [
    # -- broadcasting binary arithmetic -------------------------------------------------------
    case("add_same_shape", tf.add, A, A2),
    case("add_row", tf.add, A, ROW),
    case("add_column", tf.add, A, COL),
    case("add_scalar", tf.add, A, S),
    case("add_scalar_first", tf.add, S, A),
    case("add_column_row", tf.add, COL, ROW),
    case("add_unknown_dims", tf.add, A, ROW, shapes=unknown(A, ROW)),
    case("add_unknown_rank", tf.add, A, COL, shapes=[None, None]),
    case("add_batch_dim_unknown", tf.add, A, ROW, shapes=[[None, 4], [4]]),
    case("add_operator", lambda x, y: x + y, A, COL),
    case("sub_row", tf.subtract, A, ROW),
    case("sub_unknown_dims", tf.subtract, COL, A, shapes=unknown(COL, A)),
    case("mul_same_shape", tf.multiply, A, A2),
    case("mul_column", tf.multiply, A, COL),
    case("mul_scalar", lambda x: x * 3.0, A),
    case("mul_batch_dim_unknown", tf.multiply, A, ROW, shapes=[[None, 4], [4]]),
    case("truediv", tf.truediv, A, POS),
    case("truediv_row", tf.truediv, A, POS_ROW),
    case("truediv_operator_scalar", lambda x: 1.0 / x, POS),
    case("realdiv", tf.realdiv, A, POS),
    case("div_no_nan", tf.div_no_nan, A, POS),
    case("floormod", tf.floormod, np.array([7.3, -7.3, 5.6, 1.1]), np.array([2.1, 2.1, -2.3, 0.7])),
    case("truncatemod", tf.truncatemod, np.array([7.3, -7.3, 5.6, 1.1]), np.array([2.1, 2.1, -2.3, 0.7])),
    case("pow", tf.pow, POS, A),
    case("pow_scalar_exponent", lambda x: x ** 2.5, POS),
    case("pow_row_base", tf.pow, POS_ROW, A),
    case("maximum", tf.maximum, A, A2),
    case("maximum_scalar", lambda x: tf.maximum(x, 0.1), A),
    case("minimum_row", tf.minimum, A, ROW),
    case("squared_difference", tf.squared_difference, A, ROW),
    case("atan2", tf.atan2, A, A2),
    case("atan2_column", tf.atan2, A, COL),
    case("clip_by_value", lambda x: tf.clip_by_value(x, -0.5, 0.6), A),
    case("clip_by_value_tensor_bounds", tf.clip_by_value, A, np.float64(-0.5), np.float64(0.6)),
    case("add_n", lambda x, y: tf.add_n([x, y, x]), A, A2),
    case("cast_roundtrip", lambda x: tf.cast(tf.cast(x, tf.float32), tf.float64), A, eps=1e-2, rtol=1e-4),
    # -- unary math -----------------------------------------------------------------------------
    case("neg", tf.negative, A),
    case("abs", tf.abs, A),
    case("sign", lambda x: tf.sign(x) * x, A),
    case("exp", tf.exp, A),
    case("expm1", tf.expm1, A),
    case("log", tf.log, POS),
    case("log1p", tf.log1p, POS),
    case("sqrt", tf.sqrt, POS),
    case("rsqrt", tf.rsqrt, POS),
    case("square", tf.square, A),
    case("reciprocal", tf.reciprocal, POS),
    case("sin", tf.sin, A),
    case("cos", tf.cos, A),
    case("tan", tf.tan, UNIT),
    case("tanh", tf.tanh, A),
    case("sinh", tf.sinh, A),
    case("cosh", tf.cosh, A),
    case("asin", tf.asin, UNIT),
    case("acos", tf.acos, UNIT),
    case("atan", tf.atan, A),
    case("asinh", tf.asinh, A),
    case("acosh", tf.acosh, BIG),
    case("atanh", tf.atanh, UNIT),
    case("sigmoid", tf.sigmoid, A),
    case("erf", tf.erf, A),
    case("floor_plus_x", lambda x: tf.floor(x) + x * x, A),
    case("identity", tf.identity, A),
    # -- second order: the gradient ops' own gradients -------------------------------------------
    case("tanh_second_order", lambda x: tf.gradients(tf.tanh(x) * x, x)[0], A),
    case("sigmoid_second_order", lambda x: tf.gradients(tf.sigmoid(x) * x, x)[0], A),
    case("sqrt_second_order", lambda x: tf.gradients(tf.sqrt(x) * x, x)[0], POS),
    case("rsqrt_second_order", lambda x: tf.gradients(tf.rsqrt(x) * x, x)[0], POS),
    case("reciprocal_second_order", lambda x: tf.gradients(tf.reciprocal(x) * x, x)[0], POS),
    case("broadcast_second_order", lambda x, y: tf.gradients(x * y * y, y)[0] * x, A, ROW),
    case("slice_second_order", lambda x: tf.gradients(tf.square(x[1:, ::2]), x)[0] * x, A),
    case("gather_second_order", lambda x: tf.gradients(tf.square(tf.gather(x, [2, 0, 2])), x)[0] * x, A),
    case("gather_nd_second_order", lambda x: tf.gradients(tf.square(tf.gather_nd(x, [[1], [1]])), x)[0] * x, A),
    case("mirror_pad_second_order", lambda x: tf.gradients(tf.square(tf.pad(x, [[1, 1], [2, 0]], "REFLECT")),
                                                           x)[0] * x, A),
    case("boolean_mask_second_order",
         lambda x: tf.gradients(tf.square(tf.boolean_mask(x, [True, False, True])), x)[0] * x, A),
    # -- reductions: every axis spelling, keepdims, unknown shapes --------------------------------
    case("sum_all", tf.reduce_sum, X3),
    case("sum_axis0", lambda x: tf.reduce_sum(x, 0), X3),
    case("sum_axis1", lambda x: tf.reduce_sum(x, 1), X3),
    case("sum_axis_neg1_keepdims", lambda x: tf.reduce_sum(x, -1, keepdims=True), X3),
    case("sum_axes_list", lambda x: tf.reduce_sum(x, [0, 2]), X3),
    case("sum_axes_unsorted_negative", lambda x: tf.reduce_sum(x, [2, -3]), X3),
    case("sum_no_axes", lambda x: tf.reduce_sum(x, []), X3),
    case("sum_reduction_indices_keep_dims", lambda x: tf.reduce_sum(x, reduction_indices=[1], keep_dims=True), X3),
    case("sum_tensor_axis", lambda x: tf.reduce_sum(x, tf.constant(1)), X3),
    case("sum_fed_axes", tf.reduce_sum, X3, np.array([0, 2], I32), shapes=[[2, 3, 4], [None]]),
    case("sum_unknown_dims_middle_axis", lambda x: tf.reduce_sum(x, 1), X3, shapes=unknown(X3)),
    case("sum_unknown_rank", lambda x: tf.reduce_sum(x, 1), X3, shapes=[None]),
    case("sum_unknown_rank_all_keepdims", lambda x: tf.reduce_sum(x, keepdims=True), X3, shapes=[None]),
    case("sum_scalar", lambda x: tf.reduce_sum(x), S),
    case("mean_all", tf.reduce_mean, X3),
    case("mean_axis1", lambda x: tf.reduce_mean(x, 1), X3),
    case("mean_axes_keepdims", lambda x: tf.reduce_mean(x, [0, 2], keepdims=True), X3),
    case("mean_unknown_dims", lambda x: tf.reduce_mean(x, [0, 2]), X3, shapes=[[None, 3, None]]),
    case("mean_unknown_rank", lambda x: tf.reduce_mean(x, -1), X3, shapes=[None]),
    case("mean_fed_axis", tf.reduce_mean, X3, I32(1), shapes=[[2, 3, 4], []]),
    case("prod_all", tf.reduce_prod, A),
    case("prod_axis1", lambda x: tf.reduce_prod(x, 1), X3),
    case("prod_axes_keepdims", lambda x: tf.reduce_prod(x, [0, 2], keepdims=True), X3),
    case("prod_with_zeros_axis0", lambda x: tf.reduce_prod(x, 0), ZEROS),
    case("prod_with_zeros_axis1", lambda x: tf.reduce_prod(x, 1), ZEROS),
    case("prod_with_zeros_all", tf.reduce_prod, ZEROS),
    case("prod_unknown_dims", lambda x: tf.reduce_prod(x, [2, 0]), X3, shapes=unknown(X3)),
    case("prod_unknown_rank", lambda x: tf.reduce_prod(x, 1), X3, shapes=[None]),
    case("prod_fed_axes", tf.reduce_prod, X3, np.array([-1, 0], I32), shapes=[[2, 3, 4], [None]]),
    case("max_axis1", lambda x: tf.reduce_max(x, 1), X3),
    case("max_all", tf.reduce_max, X3),
    case("max_keepdims_unknown_rank", lambda x: tf.reduce_max(x, [0, 2], keepdims=True), X3, shapes=[None]),
    case("min_axis_neg1", lambda x: tf.reduce_min(x, -1), X3),
    case("min_unknown_dims", lambda x: tf.reduce_min(x, 1), X3, shapes=unknown(X3)),
    case("logsumexp", lambda x: tf.reduce_logsumexp(x, 1), A),
    case("logsumexp_all", tf.reduce_logsumexp, A),
    case("variance", lambda x: tf.math.reduce_variance(x, 0), A),
    case("std", lambda x: tf.math.reduce_std(x, 1, keepdims=True), A),
    case("cumsum", lambda x: tf.cumsum(x, 1), X3),
    case("cumsum_exclusive", lambda x: tf.cumsum(x, 0, exclusive=True), A),
    case("cumsum_reverse", lambda x: tf.cumsum(x, -1, reverse=True), A),
    case("cumsum_exclusive_reverse", lambda x: tf.cumsum(x, 1, exclusive=True, reverse=True), A),
    case("cumsum_fed_axis", tf.cumsum, X3, I32(-2), shapes=[[2, 3, 4], []]),
    case("cumprod", lambda x: tf.cumprod(x, 1), A),
    case("cumprod_exclusive_reverse", lambda x: tf.cumprod(x, 0, exclusive=True, reverse=True), A),
    # -- select -----------------------------------------------------------------------------------
    case("where", lambda x, y: tf.where(x > y, x, y * y), A, A2),
    case("where_vector_condition", lambda x, y: tf.where([True, False, True], x, y), A, A2),
    case("where_v2_broadcast", lambda x, y: tf.where_v2(tf.constant(A > 0), x, y), COL, ROW),
    case("where_v2_scalar_branch", lambda x: tf.where_v2(x > 0, x, 0.5), A),
    case("where_v2_unknown_dims", lambda c, x, y: tf.where_v2(c > 0, x, y), A, COL, ROW,
         shapes=unknown(A, COL, ROW)),
    # -- shapes -----------------------------------------------------------------------------------
    case("reshape", lambda x: tf.reshape(x, [2, -1, 2]), A),
    case("reshape_unknown_dims", lambda x: tf.reshape(x, [-1]), X3, shapes=[[None, 3, None]]),
    case("reshape_fed_shape", tf.reshape, A, np.array([4, 3], I32), shapes=[[3, 4], [2]]),
    case("expand_dims", lambda x: tf.expand_dims(x, 1), A),
    case("expand_dims_negative", lambda x: tf.expand_dims(x, -1), A, shapes=[[None, 4]]),
    case("expand_dims_fed_axis", tf.expand_dims, A, I32(1), shapes=[[3, 4], []]),
    case("squeeze_all", tf.squeeze, COL),
    case("squeeze_axis", lambda x: tf.squeeze(x, [1]), COL, shapes=[[None, 1]]),
    case("transpose_default", tf.transpose, X3),
    case("transpose_perm", lambda x: tf.transpose(x, [1, 2, 0]), X3),
    case("transpose_unknown_rank", tf.transpose, X3, shapes=[None]),
    case("transpose_fed_perm", tf.transpose, X3, np.array([2, 0, 1], I32), shapes=[[2, 3, 4], [3]]),
    # -- join and split ---------------------------------------------------------------------------
    case("concat_axis0", lambda x, y: tf.concat([x, y, x], 0), A, ROW[None, :]),
    case("concat_axis1", lambda x, y: tf.concat([x, y], 1), A, COL),
    case("concat_axis_neg1_unknown_dims", lambda x, y: tf.concat([x, y], -1), A, COL, shapes=unknown(A, COL)),
    case("concat_one_unknown_size", lambda x, y: tf.concat([x, y], 1), A, COL, shapes=[[3, None], [3, 1]]),
    case("concat_fed_axis", lambda x, y, a: tf.concat([x, y], a), A, COL, I32(1), shapes=[[3, 4], [3, 1], []]),
    case("stack", lambda x, y: tf.stack([x, y]), A, A2),
    case("stack_axis1", lambda x, y: tf.stack([x, y], axis=1), A, A2),
    case("stack_axis_neg1", lambda x: tf.stack([x, x * x], axis=-1), A),
    case("autopack", lambda x, y: tf.convert_to_tensor([x, y]), S, np.float64(-1.3)),
    case("unstack", lambda x: tf.unstack(x)[1] * tf.unstack(x)[2], A),
    case("unstack_axis1_partly_used", lambda x: tf.unstack(x, axis=1)[3], A),
    case("split", lambda x: tf.split(x, 2, axis=1)[1], A),
    case("split_sizes", lambda x: tf.split(x, [1, -1], 1)[0] * 2.0, A),
    case("split_fed_axis", lambda x, a: tf.split(x, 3, a)[2], A, I32(0), shapes=[[3, 4], []]),
    case("split_fed_sizes", lambda x, n: tf.split(x, n, 1, num=2)[1], A, np.array([3, 1], I32), shapes=[[3, 4], [2]]),
    case("identity_n", lambda x, y: tf.identity_n([x, y])[1], A, A2),
    # -- slicing ----------------------------------------------------------------------------------
    case("getitem", lambda x: x[1:, ::2], A),
    case("getitem_negative_stride", lambda x: x[::-1, 3:0:-2], A),
    case("getitem_ellipsis_newaxis_shrink", lambda x: x[..., tf.newaxis, 1, ::-2], X3),
    case("getitem_unknown_dims", lambda x: x[:, 1], X3, shapes=unknown(X3)),
    case("getitem_tensor_index", lambda x, i: x[i:, i], A, I32(1), shapes=[[3, 4], []]),
    case("strided_slice_masks", lambda x: tf.strided_slice(x, [1, 0, 1], [2, 3, 4], [1, 2, 2], begin_mask=2,
                                                           end_mask=1, shrink_axis_mask=1), X3),
    case("slice", lambda x: tf.slice(x, [1, 0], [2, 3]), A),
    case("slice_to_end", lambda x: tf.slice(x, [1, 2], [-1, -1]), A),
    case("slice_unknown_dims", lambda x: tf.slice(x, [1, 0, 1], [1, 2, 2]), X3, shapes=unknown(X3)),
    case("slice_fed_begin", lambda x, b: tf.slice(x, b, [2, 2]), A, np.array([1, 1], I32), shapes=[[3, 4], [2]]),
    case("reverse", lambda x: tf.reverse(x, [1]), A),
    case("reverse_two_axes", lambda x: tf.reverse(x, [0, -1]), X3),
    case("reverse_fed_axis", tf.reverse, X3, np.array([1], I32), shapes=[[2, 3, 4], [1]]),
    case("reverse_sequence", lambda x: tf.reverse_sequence(x, [1, 3, 4], seq_axis=1, batch_axis=0), A),
    # -- gathering --------------------------------------------------------------------------------
    case("gather", lambda x: tf.gather(x, [2, 0, 2]), A),
    case("gather_axis1_matrix_indices", lambda x: tf.gather(x, [[0, 3], [3, 3]], axis=1), A),
    case("gather_axis_neg1_unknown_dims", lambda x: tf.gather(x, [1, 1, 0], axis=-1), X3, shapes=unknown(X3)),
    case("gather_batch_dims", lambda x: tf.gather(x, [[1, 1], [2, 0]], axis=2, batch_dims=1), X3),
    case("gather_fed_indices", tf.gather, A, np.array([1, 1, 0], I32), shapes=[[3, 4], [None]]),
    case("gather_fed_axis", lambda x, a: tf.gather(x, [1, 0, 1], axis=a), X3, I32(1), shapes=[[2, 3, 4], []]),
    case("gather_nd_elements", lambda x: tf.gather_nd(x, [[0, 1], [2, 3], [0, 1]]), A),
    case("gather_nd_slices", lambda x: tf.gather_nd(x, [[1], [0], [1]]), X3),
    case("gather_nd_batch_dims", lambda x: tf.gather_nd(x, [[[1], [1]], [[0], [2]]], batch_dims=1), X3),
    case("gather_nd_unknown_dims", lambda x: tf.gather_nd(x, [[1, 2]]), X3, shapes=unknown(X3)),
    case("boolean_mask", lambda x: tf.boolean_mask(x, [True, False, True]), A),
    case("boolean_mask_axis1", lambda x: tf.boolean_mask(x, [False, True, True, False], axis=1), A),
    case("boolean_mask_2d_mask", lambda x: tf.boolean_mask(x, A > 0), A, shapes=unknown(A)),
    case("getitem_bool_mask", lambda x: x[tf.constant([True, True, False])], A),
    # -- tiling and padding -----------------------------------------------------------------------
    case("tile", lambda x: tf.tile(x, [2, 3]), A),
    case("tile_untiled_dims", lambda x: tf.tile(x, [1, 2, 1]), X3),
    case("tile_unknown_dims", lambda x: tf.tile(x, [2, 1, 3]), X3, shapes=unknown(X3)),
    case("tile_fed_multiples", tf.tile, A, np.array([2, 2], I32), shapes=[[3, 4], [2]]),
    case("pad", lambda x: tf.pad(x, [[1, 2], [0, 3]]), A),
    case("pad_unknown_dims", lambda x: tf.pad(x, [[0, 1], [2, 0], [1, 1]]), X3, shapes=unknown(X3)),
    case("pad_constant_values", lambda x: tf.pad(x, [[1, 1], [1, 1]], constant_values=2.0), A),
    case("pad_fed_paddings", tf.pad, A, np.array([[1, 0], [2, 1]], I32), shapes=[[3, 4], [2, 2]]),
    case("pad_reflect", lambda x: tf.pad(x, [[2, 1], [3, 3]], mode="REFLECT"), A),
    case("pad_symmetric", lambda x: tf.pad(x, [[3, 1], [0, 4]], mode="symmetric"), A),
    case("pad_reflect_fed_paddings", lambda x, p: tf.pad(x, p, "REFLECT"), A, np.array([[1, 2], [3, 0]], I32),
         shapes=[[3, 4], [2, 2]]),
    case("broadcast_to", lambda x: tf.broadcast_to(x, [2, 3, 4]), ROW),
    case("broadcast_to_column", lambda x: tf.broadcast_to(x, [3, 5]), COL),
    case("broadcast_to_unknown", lambda x: tf.broadcast_to(x, [3, 4]), COL, shapes=unknown(COL)),
    case("broadcast_to_fed_shape", tf.broadcast_to, ROW, np.array([2, 3, 4], I32), shapes=[[4], [3]]),
    case("meshgrid", lambda x, y: tf.meshgrid(x, y)[0] * tf.meshgrid(x, y)[1], ROW, COL[:, 0]),
    case("fill", lambda v: tf.fill([2, 3], v), S),
    case("fill_fed_dims", lambda d, v: tf.fill(d, v), np.array([2, 3], I32), S, shapes=[[2], []]),
    # -- diagonals ----------------------------------------------------------------------------------
    case("matrix_diag", tf.matrix_diag, A),
    case("matrix_diag_k", lambda x: tf.linalg.diag(x, k=1), A),
    case("matrix_diag_fed_k", lambda x, k: tf.linalg.diag(x, k=k), A, I32(-1), shapes=[[3, 4], []]),
    case("matrix_diag_part", tf.matrix_diag_part, SQ),
    case("matrix_diag_part_wide_k", lambda x: tf.linalg.diag_part(x, k=1), X3),
    case("matrix_diag_part_unknown_dims", lambda x: tf.linalg.diag_part(x, k=-1), X3, shapes=unknown(X3)),
    case("matrix_diag_part_fed_k", lambda x, k: tf.linalg.diag_part(x, k=k), X3, I32(1), shapes=[[2, 3, 4], []]),
    case("matrix_set_diag", tf.matrix_set_diag, X3, _normal(2, 3)),
    case("matrix_set_diag_k", lambda x, d: tf.linalg.set_diag(x, d, k=1), X3, _normal(2, 3)),
    case("matrix_set_diag_fed_k", lambda x, d, k: tf.linalg.set_diag(x, d, k=k), X3, _normal(2, 3), I32(1),
         shapes=[[2, 3, 4], [2, 3], []]),
    # -- ordering ---------------------------------------------------------------------------------
    case("sort", tf.sort, A),
    case("sort_descending_axis0", lambda x: tf.sort(x, axis=0, direction="DESCENDING"), A),
    case("sort_unknown_rank", lambda x: tf.sort(x, axis=1), X3, shapes=[None]),
    case("top_k", lambda x: tf.nn.top_k(x, 2).values, X3),
    case("top_k_fed_k", lambda x, k: tf.nn.top_k(x, k).values, A, I32(3), shapes=[[3, 4], []]),
    case("top_k_unknown_dims", lambda x: tf.nn.top_k(x, 3).values, A, shapes=unknown(A)),
]


@pytest.mark.parametrize("fn, inputs, kw", CASES)
def test_gradient_matches_finite_differences(fn, inputs, kw):
    check_gradients(fn, *inputs, **kw)


@pytest.mark.parametrize("fn, inputs, kw", CASES)
def test_gradient_has_input_dtype_and_static_shape(fn, inputs, kw):
    with tf.Graph().as_default():
        phs = [tf.placeholder(tf.as_dtype(np.asarray(x).dtype), s) for x, s in
               zip(inputs, kw.get("shapes") or [np.shape(x) for x in inputs])]
        y = fn(*phs)
        floats = [p for p in phs if p.dtype.is_floating]
        for p, g in zip(floats, tf.gradients(y, floats)):
            if g is None:  # an input only compared, say: the finite differences check that it is right
                continue
            assert g.dtype == p.dtype
            assert g.shape.is_compatible_with(p.shape)
            if p.shape.is_fully_defined():
                assert g.shape == p.shape, f"static shape {g.shape} of the gradient, want {p.shape}"


@pytest.mark.parametrize("fn, inputs, kw", CASES)
def test_float32_gradients_keep_dtype_and_shape_at_run_time(fn, inputs, kw):
    inputs = [np.asarray(x, np.float32) if np.asarray(x).dtype == np.float64 else np.asarray(x) for x in inputs]
    with tf.Graph().as_default():
        phs = [tf.placeholder(tf.as_dtype(x.dtype), s) for x, s in
               zip(inputs, kw.get("shapes") or [x.shape for x in inputs])]
        y = fn(*phs)
        pairs = [(x, g) for x, p, g in zip(inputs, phs, tf.gradients(y, phs)) if g is not None]
        with tf.Session() as sess:
            values = sess.run([g for _, g in pairs], dict(zip(phs, inputs)))
    for (x, _), v in zip(pairs, values):
        assert np.asarray(v).dtype == np.float32 and np.shape(v) == x.shape


# -- every op of these modules has a rule or is declared non-differentiable --------------------

DIFFERENTIABLE = """
Add Sub Mul RealDiv DivNoNan FloorMod TruncateMod Pow Maximum Minimum SquaredDifference Atan2 AddN Cast Conj
Neg Abs ComplexAbs Sign Exp Expm1 Log Log1p Sqrt Rsqrt Square Reciprocal Sin Cos Tan Tanh Sinh Cosh Asin Acos Atan
Asinh Acosh Atanh Sigmoid Erf TanhGrad SigmoidGrad SqrtGrad RsqrtGrad ReciprocalGrad
Sum Mean Prod Max Min Cumsum Cumprod Select SelectV2
Pack Unpack ConcatV2 Split SplitV IdentityN Reshape ExpandDims Squeeze Transpose ConjugateTranspose
Tile Pad PadV2 MirrorPad MirrorPadGrad BroadcastTo SumToShape Slice StridedSlice StridedSliceGrad ReverseV2
ReverseSequence GatherV2 GatherV2Grad GatherNd ScatterNd BooleanMask BooleanMaskGrad Fill
MatrixDiagV2 MatrixDiagPartV2 MatrixSetDiagV2 TopKV2 Sort
""".split()

# FloorDiv/TruncateDiv have rules that return None, as TF1's.
NOT_DIFFERENTIABLE = """
Equal NotEqual Less LessEqual Greater GreaterEqual LogicalAnd LogicalOr LogicalNot IsNan IsInf IsFinite
Round Rint Floor Ceil Any All ArgMax ArgMin Where ReducedShape Shape ShapeN Size Rank InvertPermutation
StopGradient ZerosLike Range LinSpace OneHot SequenceMask Eye Unique UniqueWithCounts
""".split()


@pytest.mark.parametrize("op_type", DIFFERENTIABLE)
def test_op_has_a_gradient_rule(op_type):
    assert get_opdef(op_type).grad is not None


@pytest.mark.parametrize("op_type", NOT_DIFFERENTIABLE)
def test_op_is_declared_not_differentiable(op_type):
    assert get_opdef(op_type).not_differentiable


def test_the_table_exercises_every_forward_rule():
    seen = set()
    for param in CASES:
        fn, inputs, kw = param.values
        with tf.Graph().as_default() as g:
            phs = [tf.placeholder(tf.as_dtype(np.asarray(x).dtype), s) for x, s in
                   zip(inputs, kw.get("shapes") or [np.shape(x) for x in inputs])]
            fn(*phs)
            seen |= {op.type for op in g.get_operations()}
    second_order = {"TanhGrad", "SigmoidGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad", "SumToShape",
                    "StridedSliceGrad", "GatherV2Grad", "ScatterNd", "MirrorPadGrad", "BooleanMaskGrad"}
    complex_only = {"Conj", "ComplexAbs", "ConjugateTranspose"}  # tested with TF's figures below
    untested = set(DIFFERENTIABLE) - seen - second_order - complex_only
    assert not untested


# -- values TF1 computes at ties, zeros and masks (figures from TF, graph mode) -------------------


def _grads(build, *values, grad_ys=None):
    with tf.Graph().as_default():
        phs = [tf.placeholder(tf.float64, np.shape(v)) for v in values]
        gs = tf.gradients(build(*phs), phs, grad_ys=None if grad_ys is None else [np.asarray(grad_ys)])
        with tf.Session() as sess:
            return sess.run(gs, dict(zip(phs, values)))


TIES = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
X24 = np.arange(24.0).reshape(2, 3, 4)
Z_TF = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.0, 2.0, 3.0]])


def _ramp(*shape):
    return np.arange(1.0, np.prod(shape) + 1).reshape(shape)


TF_CASES = [
    ("max_ties_split_equally", lambda x: tf.reduce_max(x, 1), [TIES], [[1.0, 6.0]],
     [[[0.0, 0.5, 0.5], [2.0, 2.0, 2.0]]]),
    ("max_ties_all", tf.reduce_max, [TIES], None, [[[0.0, 0.5, 0.5], [0.0, 0.0, 0.0]]]),
    ("max_all_equal", tf.reduce_max, [np.full(4, 5.0)], None, [[0.25] * 4]),
    ("min_ties_keepdims", lambda x: tf.reduce_min(x, 0, keepdims=True), [TIES], [[1.0, 2.0, 4.0]],
     [[[1.0, 0.0, 0.0], [0.0, 2.0, 4.0]]]),
    ("prod_zeros_axis1", lambda x: tf.reduce_prod(x, 1), [Z_TF], None,
     [[[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [6.0, 3.0, 2.0]]]),
    ("prod_zeros_axis0", lambda x: tf.reduce_prod(x, 0), [Z_TF], None,
     [[[0.0, 0.0, 15.0], [2.0, 0.0, 9.0], [0.0, 0.0, 15.0]]]),
    ("prod_one_zero_all", tf.reduce_prod, [np.array([[2.0, 0.0], [3.0, 4.0]])], None, [[[0.0, 24.0], [0.0, 0.0]]]),
    ("pow_at_zero", tf.pow, [np.array([0.0, 0.0, 0.0, 2.0, -2.0]), np.array([2.0, 0.5, 0.0, 0.0, 3.0])], None,
     [[0.0, np.inf, np.nan, 0.0, 12.0], [0.0, 0.0, 0.0, np.log(2.0), -0.0]]),
    ("strided_slice_ellipsis_newaxis_shrink", lambda x: x[..., tf.newaxis, 1, ::-2], [X24], _ramp(2, 1, 2),
     [[[[0, 0, 0, 0], [0, 2, 0, 1], [0, 0, 0, 0]], [[0, 0, 0, 0], [0, 4, 0, 3], [0, 0, 0, 0]]]]),
    ("strided_slice_masks", lambda x: tf.strided_slice(x, [1, 0, 1], [2, 3, 4], [1, 2, 2], begin_mask=2,
                                                       end_mask=1, shrink_axis_mask=1), [X24], _ramp(2, 2),
     [[[[0] * 4] * 3, [[0, 1, 0, 2], [0, 0, 0, 0], [0, 3, 0, 4]]]]),
    ("select_vector_condition", lambda x, y: tf.where([True, False, True], x, y),
     [np.arange(12.0).reshape(3, 4), -np.arange(12.0).reshape(3, 4)], _ramp(3, 4),
     [[[1, 2, 3, 4], [0, 0, 0, 0], [9, 10, 11, 12]], [[0, 0, 0, 0], [5, 6, 7, 8], [0, 0, 0, 0]]]),
    ("select_v2_broadcast", lambda x, y: tf.where_v2(np.array([[True], [False], [True]]), x, y),
     [np.ones((1, 4)), np.ones(4)], _ramp(3, 4), [[[10, 12, 14, 16]], [5, 6, 7, 8]]),
    ("maximum_ties_go_to_x", tf.maximum, [np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, 0.0])], None,
     [[1, 0, 1], [0, 1, 0]]),
    ("minimum_ties_go_to_x", tf.minimum, [np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, 0.0])], None,
     [[1, 1, 0], [0, 0, 1]]),
    ("clip_at_bounds", lambda x: tf.clip_by_value(x, -1.0, 1.0), [np.array([-2.0, -1.0, 0.0, 1.0, 2.0])], None,
     [[0, 1, 1, 1, 0]]),
    ("cumprod_zero", tf.cumprod, [np.array([2.0, 0.0, 3.0])], None, [[1.0, 0.0, 0.0]]),
    ("sign_is_zero", tf.sign, [np.array([-1.0, 0.0, 2.0])], None, [[0.0, 0.0, 0.0]]),
    ("abs_at_zero", tf.abs, [np.array([-1.0, 0.0, 2.0])], None, [[-1.0, 0.0, 1.0]]),
    ("sqrt_at_zero", tf.sqrt, [np.array([0.0, 4.0])], None, [[np.inf, 0.25]]),
    ("floormod", tf.floormod, [np.array([7.0, -7.0, 5.5]), np.array([2.0, 2.0, -2.0])], None,
     [[1, 1, 1], [-3, 4, 3]]),
    ("divide_by_zero", tf.truediv, [np.array([1.0, 0.0]), np.array([0.0, 0.0])], None,
     [[np.inf, np.inf], [-np.inf, np.nan]]),
    ("logsumexp_minus_inf", lambda x: tf.reduce_logsumexp(x, 1), [np.array([[0.0, -np.inf], [1.0, 2.0]])], None,
     [[[1.0, 0.0], [0.2689414213699951, 0.7310585786300049]]]),
    ("top_k_ties", lambda x: tf.nn.top_k(x, 2).values, [np.array([[1.0, 4.0, 2.0, 4.0]])], [[10.0, 20.0]],
     [[[0, 10, 0, 20]]]),
    ("sort_descending", lambda x: tf.sort(x, direction="DESCENDING"), [np.array([[3.0, 1.0, 2.0]])],
     [[10.0, 20.0, 30.0]], [[[10, 30, 20]]]),
]


@pytest.mark.parametrize("build, values, grad_ys, expected", [pytest.param(*c[1:], id=c[0]) for c in TF_CASES])
def test_gradient_values_match_tf(build, values, grad_ys, expected):
    got = _grads(build, *values, grad_ys=grad_ys)
    for g, want in zip(got, expected):
        np.testing.assert_allclose(g, np.asarray(want, np.float64), rtol=1e-12, atol=0)
        want = np.asarray(want, np.float64)
        signed = ~np.isnan(want)  # TF's -0.0 too; a NaN's sign means nothing
        np.testing.assert_array_equal(np.signbit(g[signed]), np.signbit(want[signed]))


# -- complex ----------------------------------------------------------------------------------------


Z = np.array([[3 + 4j, -1 + 0j], [0.5 - 2j, 1j]])
W = np.array([[1 - 2j, 0.5j], [2 + 0j, -1 - 1j]])
GY = np.array([[1 + 1j, 2 - 1j], [0.5j, -1 + 0j]])

COMPLEX_TF = [  # d/dz with grad_ys GY (TF: a complex y needs grad_ys; abs is real-valued)
    ("abs", lambda z, w: tf.abs(z), None, [[0.6 + 0.8j, -1 + 0j], [0.24253562503633297 - 0.9701425001453319j, 1j]]),
    ("mul", lambda z, w: z * w, GY, [[-1 + 3j, -0.5 - 1j], [1j, 1 - 1j]]),
    ("exp", lambda z, w: tf.exp(z), GY, [[-28.329567544530114 + 2.072001381605796j,
                                          0.7357588823428847 - 0.36787944117144233j],
                                         [-0.7495890045001974 - 0.3430550705749216j,
                                          -0.5403023058681398 + 0.8414709848078965j]]),
    ("conjugate_transpose", lambda z, w: tf.transpose(z, conjugate=True), GY, [[1 - 1j, -0.5j], [2 + 1j, -1 - 0j]]),
    ("sqrt", lambda z, w: tf.sqrt(z), GY, [[0.1 + 0.3j, 0.5 + 1j], [0.1071541225363519 + 0.1372404719935271j,
                                                                    -0.35355339059327384 - 0.35355339059327373j]]),
    ("tanh", lambda z, w: tf.tanh(z), GY, [[-0.011218965885883942 + 0.008427996728604998j,
                                           0.8399486832280523 - 0.41997434161402614j],
                                          [-1.124253845893245 - 0.01090232970530336j, -3.425518820814759 + 0j]]),
    ("divide_wrt_denominator", lambda z, w: w / z, GY, [[0.10400000000000001 + 0.07200000000000001j, 0.5 + 1j],
                                                        [-0.11072664359861592 + 0.20761245674740483j, 1 - 1j]]),
    ("prod", lambda z, w: tf.reduce_prod(z, 0), GY[0], [[-1.5 + 2.5j, -1 - 2j], [7 - 1j, -2 + 1j]]),
]


@pytest.mark.parametrize("build, grad_ys, expected", [pytest.param(*c[1:], id=c[0]) for c in COMPLEX_TF])
def test_complex_gradients_match_tf(build, grad_ys, expected):
    with tf.Graph().as_default():
        z, w = tf.constant(Z), tf.constant(W)
        g, = tf.gradients(build(z, w), z, grad_ys=None if grad_ys is None else [tf.constant(grad_ys)])
        np.testing.assert_allclose(tf.Session().run(g), expected, rtol=1e-12)


# -- what has no gradient ------------------------------------------------------------------------------


@pytest.mark.parametrize("build", [
    pytest.param(tf.floor, id="floor"),
    pytest.param(tf.ceil, id="ceil"),
    pytest.param(tf.round, id="round"),
    pytest.param(tf.rint, id="rint"),
    pytest.param(lambda x: tf.floordiv(x, 2.0), id="floordiv"),
    pytest.param(lambda x: tf.truncatediv(x, 2.0), id="truncatediv"),
    pytest.param(lambda x: tf.cast(tf.argmax(x, 1), tf.float64), id="argmax"),
    pytest.param(lambda x: tf.cast(tf.argmin(x), tf.float64), id="argmin"),
    pytest.param(lambda x: tf.cast(x > 0, tf.float64), id="greater"),
    pytest.param(lambda x: tf.cast(tf.equal(x, x), tf.float64), id="equal"),
    pytest.param(lambda x: tf.cast(tf.is_nan(x), tf.float64), id="is_nan"),
    pytest.param(lambda x: tf.cast(tf.cast(x, tf.int32), tf.float64), id="cast_through_int"),
    pytest.param(lambda x: tf.zeros_like(x), id="zeros_like"),
    pytest.param(lambda x: tf.ones_like(x, optimize=False), id="ones_like"),
    pytest.param(lambda x: tf.cast(tf.shape(x), tf.float64), id="shape"),
    pytest.param(lambda x: tf.one_hot(tf.argmax(x, 1), 3, dtype=tf.float64), id="one_hot"),
    pytest.param(lambda x: tf.cast(tf.nn.top_k(x, 2).indices, tf.float64), id="top_k_indices"),
    pytest.param(lambda x: tf.cast(tf.argsort(x), tf.float64), id="argsort"),
    pytest.param(lambda x: tf.cast(tf.unique(tf.reshape(x, [-1])).idx, tf.float64), id="unique"),
    pytest.param(lambda x: tf.stop_gradient(x), id="stop_gradient"),
])
def test_non_differentiable_ops_give_none(build):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None, 4])
        assert tf.gradients(build(x), x) == [None]


def test_sign_gradient_is_zeros_as_tf():
    with tf.Graph().as_default():
        x = tf.constant([-1.0, 0.0, 2.0])
        g, = tf.gradients(tf.sign(x), x)
        assert g is not None
        np.testing.assert_array_equal(tf.Session().run(g), [0.0, 0.0, 0.0])


def test_unconnected_gradient_is_none():
    with tf.Graph().as_default():
        x, z = tf.placeholder(tf.float64, [3]), tf.placeholder(tf.float64, [3])
        y = tf.reduce_sum(tf.square(x))
        assert tf.gradients(y, [x, z])[1] is None
        assert tf.gradients(tf.cast(tf.cast(x, tf.int32), tf.float64) * z, x) == [None]


def test_integer_inputs_get_no_gradient():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        i = tf.placeholder(tf.int32, [3])
        y = tf.gather(x, i) * tf.cast(tf.reduce_sum(i), tf.float64)
        gx, gi = tf.gradients(y, [x, i])
        assert gx is not None and gi is None


def test_cast_gradient_casts_back():
    with tf.Graph().as_default():
        x = tf.constant([1.5, -2.0], tf.float64)
        g, = tf.gradients(tf.cast(x, tf.float32) * 3.0, x)
        assert g.dtype == tf.float64
        np.testing.assert_array_equal(tf.Session().run(g), [3.0, 3.0])


def test_missing_rule_raises_lookup_error_naming_the_op():
    if "GradTestOpWithoutRule" not in registered_op_types():
        register("GradTestOpWithoutRule", infer=lambda op: [(op.inputs[0].dtype, op.inputs[0].shape)],
                 kernel=lambda x: x)
    from dflow.framework.op_registry import apply_op

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        y = apply_op("GradTestOpWithoutRule", [x], name="mystery").outputs[0]
        with pytest.raises(LookupError, match="'mystery'.*GradTestOpWithoutRule"):
            tf.gradients(y, x)


# -- graph structure: names and the lean paths -----------------------------------------------------


def _grad_ops(g, before):
    return [op for op in g.get_operations() if op not in before]


def test_gradient_ops_live_under_gradients_scope():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [3, 4])
        b = tf.placeholder(tf.float32, [4])
        y = tf.reduce_mean(tf.tanh(tf.add(x, b)) * tf.gather(x, [0, 2])[0])
        before = set(g.get_operations())
        tf.gradients(y, [x, b])
        new = _grad_ops(g, before)
        assert new and all(op.name.startswith("gradients/") for op in new)
        names = {op.name for op in new}
        assert "gradients/Add_grad/SumToShape" in names
        assert "gradients/Tanh_grad/TanhGrad" in names
        assert any(n.startswith("gradients/GatherV2_grad/") for n in names)


def test_add_of_equal_static_shapes_adds_no_ops():
    with tf.Graph().as_default() as g:
        x, y = tf.placeholder(tf.float32, [3, 4]), tf.placeholder(tf.float32, [3, 4])
        z = tf.add(x, y)
        before = set(g.get_operations())
        gz = tf.ones([3, 4])
        gx, gy = tf.gradients(z, [x, y], grad_ys=gz)
        assert gx is gz and gy is gz
        assert [op.type for op in _grad_ops(g, before)] == ["Const"]  # gz itself


def test_static_broadcast_needs_one_op_and_no_shape_op():
    with tf.Graph().as_default() as g:
        x, b = tf.placeholder(tf.float32, [None, 4]), tf.placeholder(tf.float32, [4])
        z = x * b
        before = set(g.get_operations())
        gx, gb = tf.gradients(z, [x, b], grad_ys=tf.ones_like(z))
        types = [op.type for op in _grad_ops(g, before) if not op.name.startswith("ones_like")]
        assert sorted(types) == ["Mul", "Mul", "SumToShape"]
        assert gx.shape.as_list() == [None, 4] and gb.shape.as_list() == [4]


def test_full_reduction_gradient_is_one_broadcast():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [3, 4])
        y = tf.reduce_sum(x)
        before = set(g.get_operations())
        gx, = tf.gradients(y, x)
        assert gx.op.type == "BroadcastTo" and gx.op.inputs[0].op.name == "gradients/grad_ys_0"
        assert sorted(op.type for op in _grad_ops(g, before)) == ["BroadcastTo", "Const", "Fill"]  # Fill: grad_ys
