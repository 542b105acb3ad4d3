"""Math ops against numpy, with TF1's numbers where its semantics are its own.

One table of cases drives two tests: the session's result (value, dtype,
static shape) and, op by op, that every kernel returns exactly the dtype its
shape rule promised. Expectations marked "TF" were read from TensorFlow's
``compat.v1`` graph mode.
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from dflow.framework.op_registry import get_opdef
from tests.ops import harness

# inf and NaN results are TF semantics here, not accidents: numpy's warnings about them are noise.
pytestmark = pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")

c = tf.constant
nan, inf = np.nan, np.inf

A = np.array([[1.5, -2.0, 3.0], [0.25, 4.0, -0.5]], np.float32)
B = np.array([2.0, -1.0, 0.5], np.float32)
P = np.array([[0.5, 1.0, 2.0], [3.0, 0.1, 4.0]], np.float32)  # positive
I32 = np.array([[7, -7, 3], [-4, 5, 0]], np.int32)
J32 = np.array([2, -2, 5], np.int32)
BOOL = np.array([[True, False, True], [False, False, True]])


def case(id, build, expected, **kw):
    """A table row: ``build()`` gives a tensor, or ``(tensor, feed_dict)``."""
    return pytest.param(build, expected, kw, id=id)


def fed(dtype, shape, value):
    """A placeholder of ``shape`` (may hold None) and the feed that gives it ``value``."""
    ph = tf.placeholder(dtype, shape)
    return ph, {ph: value}


def with_feed(fn, dtype, shape, value):
    ph, feed = fed(dtype, shape, value)
    return fn(ph), feed


def sig(x):
    return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype)


F32, F64, I64 = np.float32, np.float64, np.int64

CASES = [
    # -- binary arithmetic ------------------------------------------------------------
    case("add_f32_broadcast", lambda: tf.add(c(A), c(B)), A + B),
    case("add_f64", lambda: tf.add(c(A.astype(F64)), 1.5), A.astype(F64) + 1.5),
    case("add_i32_python_scalar", lambda: tf.add(c(I32), 2), I32 + 2),
    case("add_python_scalar_first", lambda: tf.add(2.0, c(A)), 2 + A),
    case("add_both_python", lambda: tf.add(1, 2), np.int32(3)),
    case("add_i64", lambda: tf.add(c(I32.astype(I64)), c(J32.astype(I64))), I32.astype(I64) + J32),
    case("add_string", lambda: tf.add(c([b"a", b"b"]), b"c"), np.array([b"ac", b"bc"], object)),
    case("subtract", lambda: tf.subtract(c(A), c(B)), A - B),
    case("subtract_uint8", lambda: tf.subtract(c(np.uint8([5])), c(np.uint8([2]))), np.uint8([3])),
    case("multiply_i64", lambda: tf.multiply(c(I32.astype(I64)), 3), I32.astype(I64) * 3),
    case("multiply_complex", lambda: tf.multiply(c([1 + 2j]), c([3 - 1j])), np.array([5 + 5j])),
    case("divide_f32", lambda: tf.divide(c(A), c(B)), A / B),
    case("truediv_f64", lambda: tf.truediv(c(A.astype(F64)), 4.0), A.astype(F64) / 4),
    # TF: int32/int64 true-divide in float64; 8/16-bit ints in float32.
    case("truediv_i32_gives_f64", lambda: tf.truediv(c(I32), c(J32)), I32 / J32),
    case("truediv_i64_gives_f64", lambda: tf.truediv(c(I32.astype(I64)), 2), I32 / 2),
    case("truediv_i16_gives_f32", lambda: tf.truediv(c(np.int16([7])), c(np.int16([2]))), F32([3.5])),
    case("truediv_u8_gives_f32", lambda: tf.truediv(c(np.uint8([7])), c(np.uint8([2]))), F32([3.5])),
    case("truediv_int_by_zero_is_inf", lambda: tf.truediv(c([7, 0, -1]), 0), np.array([inf, nan, -inf])),
    case("realdiv", lambda: tf.realdiv(c(A), c(B)), A / B),
    case("div_float_is_real", lambda: tf.div(c([-7.0]), 2.0), F32([-3.5])),  # TF
    case("div_int_is_floor", lambda: tf.div(c([-7]), 2), np.int32([-4])),  # TF
    case("floordiv_int_negative", lambda: tf.floordiv(c([-7, 7, -7, 7]), c([2, 2, -2, -2])),
         np.int32([-4, 3, 3, -4])),  # TF
    case("floordiv_float_is_floor_of_quotient", lambda: tf.floordiv(c(1.0), c(0.1)), F32(10.0)),  # TF
    case("floordiv_float_by_zero", lambda: tf.floordiv(c([1.0, -1.0, 0.0]), 0.0), F32([inf, -inf, nan])),  # TF
    case("floor_div", lambda: tf.floor_div(c(I32), c(J32)), I32 // J32),
    case("floormod_int_sign_of_divisor", lambda: tf.floormod(c([-7, 7, -7, 7]), c([3, 3, -3, -3])),
         np.int32([2, 1, -1, -2])),  # TF
    case("floormod_float", lambda: tf.floormod(c([-7.0, 7.0, -7.0, 7.0, -0.5]), c([3.0, 3.0, -3.0, -3.0, 1.0])),
         F32([2, 1, -1, -2, 0.5])),  # TF
    case("mod_alias", lambda: tf.mod(c([-7]), 3), np.int32([2])),  # TF
    case("math_floormod", lambda: tf.math.floormod(c(A), c(B)), np.remainder(A, B)),
    case("truncatediv_int", lambda: tf.truncatediv(c([-7, 7, -7, 7]), c([2, 2, -2, -2])),
         np.int32([-3, 3, 3, -3])),  # TF
    case("truncatediv_int64_exact", lambda: tf.truncatediv(c(I64([2**62 + 1, -(2**62) - 1])), c(I64([3, 3]))),
         I64([(2**62 + 1) // 3, -((2**62 + 1) // 3)])),
    case("truncatediv_float", lambda: tf.truncatediv(c([-7.0, 7.0]), c([2.0, 2.0])), F32([-3, 3])),  # TF
    case("truncatemod_int", lambda: tf.truncatemod(c([-7, 7, -7, 7]), c([3, 3, -3, -3])),
         np.int32([-1, 1, -1, 1])),  # TF
    case("truncatemod_float", lambda: tf.truncatemod(c([-7.0, 7.0]), c([3.0, 3.0])), F32([-1, 1])),  # TF
    case("pow_int", lambda: tf.pow(c([2, -3]), c([3, 3])), np.int32([8, -27])),  # TF
    case("pow_float", lambda: tf.pow(c(P), 1.5), P**1.5, rtol=1e-5),
    case("pow_float_negative_exponent", lambda: tf.pow(c([2.0]), -1.0), F32([0.5])),
    case("maximum_nan_propagates", lambda: tf.maximum(c([nan, 1.0, 2.0]), c([1.0, nan, 1.0])),
         F32([nan, nan, 2.0])),  # TF
    case("minimum_i32_broadcast", lambda: tf.minimum(c(I32), c(J32)), np.minimum(I32, J32)),
    case("squared_difference_int", lambda: tf.squared_difference(c([1, 5]), 3), np.int32([4, 4])),  # TF
    case("squared_difference_f32", lambda: tf.squared_difference(c(A), c(B)), (A - B) ** 2),
    case("atan2_keywords", lambda: tf.atan2(x=c(B), y=c(A)), np.arctan2(A, B)),
    case("div_no_nan", lambda: tf.div_no_nan(c([1.0, 2.0]), c([0.0, 4.0])), F32([0.0, 0.5])),  # TF
    case("scalar_mul", lambda: tf.scalar_mul(2.0, c(A)), 2 * A),
    case("add_n", lambda: tf.add_n([c(A), c(A), c(P)]), A + A + P),
    case("add_n_int_python", lambda: tf.add_n([1, 2]), np.int32(3)),  # TF
    case("add_n_scalars", lambda: tf.add_n([c(1.0), c(2.0), c(3.0)]), F32(6.0)),
    case("add_n_single", lambda: tf.add_n([c(A)]), A),
    # -- unary ------------------------------------------------------------------------
    case("negative", lambda: tf.negative(c(A)), -A),
    case("negative_i64", lambda: tf.negative(c(I32.astype(I64))), -I32.astype(I64)),
    case("abs_f32", lambda: tf.abs(c(A)), np.abs(A)),
    case("abs_i32", lambda: tf.abs(c(I32)), np.abs(I32)),
    case("abs_complex_is_real", lambda: tf.abs(c(np.complex64([3 + 4j]))), F32([5.0])),
    case("sign_float", lambda: tf.sign(c([nan, -0.0, 2.0, -3.0])), F32([nan, 0, 1, -1])),  # TF
    case("sign_int", lambda: tf.sign(c([0, -5, 2])), np.int32([0, -1, 1])),  # TF
    case("exp", lambda: tf.exp(c(A)), np.exp(A)),
    case("exp_f64", lambda: tf.exp(c(A.astype(F64))), np.exp(A.astype(F64))),
    case("exp_python", lambda: tf.exp(1.0), F32(np.e)),
    case("expm1", lambda: tf.expm1(c(A)), np.expm1(A)),
    case("log", lambda: tf.log(c(P)), np.log(P)),
    case("log_nonpositive", lambda: tf.log(c([-1.0, 0.0])), F32([nan, -inf])),  # TF
    case("log1p", lambda: tf.log1p(c(P)), np.log1p(P)),
    case("sqrt", lambda: tf.sqrt(c(P)), np.sqrt(P)),
    case("rsqrt", lambda: tf.rsqrt(c([4.0, 0.25])), F32([0.5, 2.0])),
    case("square_int", lambda: tf.square(c(I32)), I32 * I32),
    case("square_f32", lambda: tf.square(c(A)), A * A),
    case("reciprocal", lambda: tf.reciprocal(c(P)), 1 / P),
    case("sin", lambda: tf.sin(c(A)), np.sin(A)),
    case("cos", lambda: tf.cos(c(A)), np.cos(A)),
    case("tan", lambda: tf.tan(c(A)), np.tan(A)),
    case("tanh", lambda: tf.tanh(c(A)), np.tanh(A)),
    case("sinh", lambda: tf.sinh(c(A)), np.sinh(A)),
    case("atan", lambda: tf.atan(c(A)), np.arctan(A)),
    case("sigmoid", lambda: tf.sigmoid(c(A)), sig(A)),
    case("sigmoid_extremes", lambda: tf.sigmoid(c([-100.0, 0.0, 100.0, -20.0])),
         F32([0.0, 0.5, 1.0, 2.0611537e-09]), atol=1e-30),  # TF (which flushes e-44 to 0)
    case("sigmoid_f64", lambda: tf.sigmoid(c(A.astype(F64))), sig(A.astype(F64))),
    case("round_half_to_even", lambda: tf.round(c([0.5, 1.5, 2.5, -0.5, -1.5, 2.4])),
         F32([0.0, 2.0, 2.0, -0.0, -2.0, 2.0])),  # TF
    case("round_int_is_identity", lambda: tf.round(c(I32)), I32),
    case("rint", lambda: tf.rint(c([0.5, 1.5, -2.5])), F32([0.0, 2.0, -2.0])),
    case("floor", lambda: tf.floor(c(A)), np.floor(A)),
    case("ceil", lambda: tf.ceil(c(A)), np.ceil(A)),
    case("is_nan", lambda: tf.is_nan(c([nan, inf, 1.0])), np.array([True, False, False])),
    case("is_inf", lambda: tf.is_inf(c([nan, -inf, 1.0])), np.array([False, True, False])),
    case("is_finite", lambda: tf.is_finite(c([nan, inf, 1.0])), np.array([False, False, True])),
    case("erf", lambda: tf.erf(c(F64([0.5, -1.0]))), F64([0.52049988, -0.84270079]), rtol=1e-7),  # TF
    case("clip_by_value", lambda: tf.clip_by_value(c(A), -1.0, 2.0), np.clip(A, -1, 2)),
    case("clip_by_value_int", lambda: tf.clip_by_value(c([1, 5, 9]), 2, 7), np.int32([2, 5, 7])),  # TF
    case("clip_by_value_tensor_bounds", lambda: tf.clip_by_value(c(A), c(-B), c(np.abs(B))),
         np.minimum(np.maximum(A, -B), np.abs(B))),
    # -- comparisons and logic ----------------------------------------------------------
    case("equal_f32", lambda: tf.equal(c(A), c(B)), A == B),
    case("equal_bool", lambda: tf.equal(c([True, False]), False), np.array([False, True])),
    case("equal_string", lambda: tf.equal(c(["a", "b"]), "a"), np.array([True, False])),  # TF
    case("not_equal_i32", lambda: tf.not_equal(c(I32), 0), I32 != 0),
    case("greater", lambda: tf.greater(c(A), c(B)), A > B),
    case("greater_equal_i64", lambda: tf.greater_equal(c(I32.astype(I64)), c(J32.astype(I64))), I32 >= J32),
    case("less", lambda: tf.less(c(A), 0.5), A < 0.5),
    case("less_equal_i32", lambda: tf.less_equal(c(I32), c(J32)), I32 <= J32),
    case("logical_and", lambda: tf.logical_and(c(BOOL), c([True, False, True])), BOOL & [True, False, True]),
    case("logical_or", lambda: tf.logical_or(c(BOOL), False), BOOL),
    case("logical_not", lambda: tf.logical_not(c(BOOL)), ~BOOL),
    case("logical_xor", lambda: tf.logical_xor(c(BOOL), c([True, True, False])), BOOL ^ [True, True, False]),
    # -- where ------------------------------------------------------------------------
    case("where_coordinates_bool", lambda: tf.where(c(BOOL)), np.argwhere(BOOL), shape=[None, 2]),
    case("where_coordinates_int", lambda: tf.where(c([[0, 3], [2, 0]])), I64([[0, 1], [1, 0]]),
         shape=[None, 2]),  # TF
    case("where_coordinates_float", lambda: tf.where(c([0.0, 3.0])), I64([[1]]), shape=[None, 1]),  # TF
    case("where_select_same_shape", lambda: tf.where(c(BOOL), c(A), c(P)), np.where(BOOL, A, P)),
    case("where_select_rank1_picks_rows", lambda: tf.where(c([True, False]), c([[1, 2], [3, 4]]),
                                                           c([[5, 6], [7, 8]])), np.int32([[1, 2], [7, 8]])),  # TF
    case("where_select_scalar_condition", lambda: tf.where(c(True), c([1, 2]), c([3, 4])), np.int32([1, 2])),
    case("where_select_python", lambda: tf.where([True, False], [1, 2], [3, 4]), np.int32([1, 4])),
    case("where_v2_broadcasts", lambda: tf.where_v2(c([[True], [False]]), c([1, 2]), 0),
         np.int32([[1, 2], [0, 0]])),  # TF
    case("where_v2_coordinates", lambda: tf.where_v2(c([False, True])), I64([[1]]), shape=[None, 1]),
    # -- cast ---------------------------------------------------------------------------
    case("cast_truncates_toward_zero", lambda: tf.cast(c([1.7, -1.7, 2.5, -2.5]), tf.int32),
         np.int32([1, -1, 2, -2])),  # TF
    case("cast_to_bool", lambda: tf.cast(c([0.0, 0.5, -1.0]), tf.bool), np.array([False, True, True])),  # TF
    case("cast_from_bool", lambda: tf.cast(c([True, False]), tf.float32), F32([1, 0])),
    case("cast_complex_keeps_real", lambda: tf.cast(c(np.complex64([1.5 + 2j])), tf.float32), F32([1.5])),  # TF
    case("cast_int_to_f16", lambda: tf.cast(c(I32), tf.float16), I32.astype(np.float16)),
    case("cast_python", lambda: tf.cast(1.5, tf.int32), np.int32(1)),
    case("to_float", lambda: tf.to_float(c(I32)), I32.astype(F32)),
    case("to_double", lambda: tf.to_double(c(I32)), I32.astype(F64)),
    case("to_int32", lambda: tf.to_int32(c(A)), A.astype(np.int32)),
    case("to_int64", lambda: tf.to_int64(c(A)), A.astype(I64)),
    case("saturate_cast_uint8", lambda: tf.saturate_cast(c([-5.0, 300.0, 3e10, 2.5]), tf.uint8),
         np.uint8([0, 255, 255, 2])),  # TF
    case("saturate_cast_int32", lambda: tf.saturate_cast(c([-5e10, 3e10, 2.5]), tf.int32),
         np.int32([-2147483648, 2147483520, 2])),  # TF
    # -- reductions: every axis spelling ------------------------------------------------
    case("sum_all", lambda: tf.reduce_sum(c(A)), A.sum()),
    case("sum_axis0", lambda: tf.reduce_sum(c(A), 0), A.sum(0)),
    case("sum_axis_negative", lambda: tf.reduce_sum(c(A), -1), A.sum(-1)),
    case("sum_axis_list", lambda: tf.reduce_sum(c(A), [0, 1]), A.sum((0, 1))),
    case("sum_axis_empty_list", lambda: tf.reduce_sum(c(A), []), A),  # TF: no reduction
    case("sum_axis_numpy_int64", lambda: tf.reduce_sum(c(A), np.int64(1)), A.sum(1)),
    case("sum_axis_tensor", lambda: tf.reduce_sum(c(A), c(1)), A.sum(1)),
    case("sum_axis_int64_tensor", lambda: tf.reduce_sum(c(A), c(I64([0]))), A.sum(0)),
    case("sum_reduction_indices", lambda: tf.reduce_sum(c(A), reduction_indices=[1]), A.sum(1)),
    case("sum_keepdims", lambda: tf.reduce_sum(c(A), 1, keepdims=True), A.sum(1, keepdims=True)),
    case("sum_keep_dims", lambda: tf.reduce_sum(c(A), 0, keep_dims=True), A.sum(0, keepdims=True)),
    case("sum_all_keepdims", lambda: tf.reduce_sum(c(A), keepdims=True), A.sum(keepdims=True)),
    case("sum_i32_stays_i32", lambda: tf.reduce_sum(c(I32), 1), I32.sum(1).astype(np.int32)),
    case("sum_scalar", lambda: tf.reduce_sum(c(3.0)), F32(3.0)),
    case("sum_python_list", lambda: tf.reduce_sum([[1, 2], [3, 4]], 0), np.int32([4, 6])),
    case("sum_fed_axis", lambda: with_feed(lambda ax: tf.reduce_sum(c(A), ax), tf.int32, [None], [1]),
         A.sum(1), shape=None),
    case("sum_fed_axis_keepdims",
         lambda: with_feed(lambda ax: tf.reduce_sum(c(A), ax, keepdims=True), tf.int32, [], 0),
         A.sum(0, keepdims=True), shape=[None, None]),
    case("sum_unknown_dim", lambda: with_feed(lambda x: tf.reduce_sum(x, 1), tf.float32, [None, 3], A),
         A.sum(1), shape=[None]),
    case("sum_unknown_dim_axis0", lambda: with_feed(lambda x: tf.reduce_sum(x, 0), tf.float32, [None, 3], A),
         A.sum(0), shape=[3]),
    case("sum_unknown_rank", lambda: with_feed(tf.reduce_sum, tf.float32, None, A), A.sum(), shape=[]),
    case("sum_unknown_rank_axis", lambda: with_feed(lambda x: tf.reduce_sum(x, 1), tf.float32, None, A),
         A.sum(1), shape=None),
    case("mean_f32", lambda: tf.reduce_mean(c(A), 0), A.mean(0)),
    case("mean_f64_all", lambda: tf.reduce_mean(c(A.astype(F64))), A.astype(F64).mean()),
    case("mean_f16", lambda: tf.reduce_mean(c(np.float16([1, 2, 4]))), np.float16(2.334), rtol=1e-3),  # TF
    case("mean_int_truncates", lambda: tf.reduce_mean(c([1, 2, 2, 2])), np.int32(1)),  # TF
    case("mean_int_truncates_toward_zero", lambda: tf.reduce_mean(c([-1, -2, -2, -2])), np.int32(-1)),  # TF
    case("mean_int_axis", lambda: tf.reduce_mean(c(I32), 1), np.int32([1, 0])),
    case("mean_int_empty", lambda: tf.reduce_mean(c(np.zeros([0], np.int32))), np.int32(0)),  # TF
    case("max", lambda: tf.reduce_max(c(A), 0), A.max(0)),
    case("max_i64", lambda: tf.reduce_max(c(I32.astype(I64)), [0, 1]), I64(7)),
    case("max_empty_is_lowest", lambda: tf.reduce_max(c(np.zeros([0], F32))), F32(-inf)),  # TF
    case("max_empty_int", lambda: tf.reduce_max(c(np.zeros([0], np.int32))), np.int32(-2147483648)),  # TF
    case("min_empty_int", lambda: tf.reduce_min(c(np.zeros([0], np.int32))), np.int32(2147483647)),  # TF
    case("min_keepdims", lambda: tf.reduce_min(c(A), 1, keepdims=True), A.min(1, keepdims=True)),
    case("prod_int", lambda: tf.reduce_prod(c([[1, 2], [3, 4]]), 0), np.int32([3, 8])),  # TF
    case("prod_f32", lambda: tf.reduce_prod(c(A)), A.prod()),
    case("any", lambda: tf.reduce_any(c(BOOL), 0), BOOL.any(0)),
    case("all", lambda: tf.reduce_all(c(BOOL), 1), BOOL.all(1)),
    case("all_empty", lambda: tf.reduce_all(c(np.zeros([0], bool))), np.bool_(True)),
    case("logsumexp", lambda: tf.reduce_logsumexp(c([[0.0, 1.0], [-inf, -inf]]), 1),
         F32([1.3132616, -inf])),  # TF
    case("logsumexp_keepdims", lambda: tf.reduce_logsumexp(c([[0.0, 1.0], [2.0, 3.0]]), 1, keepdims=True),
         F32([[1.3132616], [3.3132617]])),  # TF
    case("logsumexp_all", lambda: tf.reduce_logsumexp(c([[0.0, 1.0], [2.0, 3.0]])), F32(3.4401896)),  # TF
    case("logsumexp_large", lambda: tf.reduce_logsumexp(c([1000.0, 1000.0])), F32(1000 + np.log(2))),
    case("reduce_variance", lambda: tf.math.reduce_variance(c([[1.0, 2.0], [3.0, 5.0]]), 0),
         F32([1.0, 2.25])),  # TF
    case("reduce_std", lambda: tf.math.reduce_std(c([[1.0, 2.0], [3.0, 5.0]])), F32(1.47902)),  # TF
    case("count_nonzero", lambda: tf.count_nonzero(c(A * (A > 0))), I64(4)),
    case("count_nonzero_axis", lambda: tf.count_nonzero(c(I32), 1), I64([3, 2])),
    case("count_nonzero_bool_keepdims", lambda: tf.count_nonzero(c(BOOL), 0, keepdims=True), I64([[1, 0, 2]])),
    case("count_nonzero_strings", lambda: tf.count_nonzero(c([b"", b"a"])), I64(1)),  # TF
    case("count_nonzero_dtype", lambda: tf.count_nonzero(c([0, 1, 2]), dtype=tf.int32), np.int32(2)),  # TF
    # -- argmax / cumulative -----------------------------------------------------------
    case("argmax_default_axis0", lambda: tf.argmax(c(A)), A.argmax(0)),
    case("argmax_axis1", lambda: tf.argmax(c([[1, 5, 5], [7, 0, 7]]), 1), I64([1, 0])),  # TF: first of ties
    case("argmax_dimension", lambda: tf.argmax(c(A), dimension=1), A.argmax(1)),
    case("argmax_negative_axis", lambda: tf.argmax(c(A), -1), A.argmax(-1)),
    case("argmax_bool", lambda: tf.argmax(c([False, True])), I64(1)),
    case("argmin_int32_output", lambda: tf.argmin(c([[3, 1, 2], [0, 5, -1]]), 1, output_type=tf.int32),
         np.int32([1, 2])),  # TF
    case("cumsum", lambda: tf.cumsum(c(A)), A.cumsum(0)),
    case("cumsum_axis1_i32", lambda: tf.cumsum(c(I32), 1), I32.cumsum(1).astype(np.int32)),
    case("cumsum_exclusive_reverse", lambda: tf.cumsum(c([1, 2, 3]), exclusive=True, reverse=True),
         np.int32([5, 3, 0])),  # TF
    case("cumsum_exclusive", lambda: tf.cumsum(c(A), 1, exclusive=True),
         np.concatenate([np.zeros((2, 1), F32), A.cumsum(1)[:, :-1]], 1)),
    case("cumprod_exclusive", lambda: tf.cumprod(c([1, 2, 3]), exclusive=True), np.int32([1, 1, 2])),  # TF
    case("cumprod_reverse", lambda: tf.cumprod(c([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), 1, reverse=True),
         F32([[6, 6, 3], [120, 30, 6]])),  # TF
    # -- unknown dims (fed placeholders) ------------------------------------------------
    case("add_unknown_dim", lambda: with_feed(lambda x: x + c(B), tf.float32, [None, 3], A), A + B,
         shape=[None, 3]),
    case("multiply_unknown_rank", lambda: with_feed(lambda x: tf.multiply(x, 2.0), tf.float32, None, A), A * 2,
         shape=None),
    case("where_unknown_rank", lambda: with_feed(tf.where, tf.bool, None, BOOL), np.argwhere(BOOL),
         shape=[None, None]),
    case("argmax_unknown_dim", lambda: with_feed(lambda x: tf.argmax(x, 1), tf.float32, [None, 3], A),
         A.argmax(1), shape=[None]),
    case("cast_unknown_dim", lambda: with_feed(lambda x: tf.cast(x, tf.int64), tf.float32, [None, 3], A),
         A.astype(I64), shape=[None, 3]),
]


def _build(build):
    out = build()
    return out if isinstance(out, tuple) else (out, None)


@pytest.mark.parametrize("build, expected, kw", CASES)
def test_op_matches_numpy(build, expected, kw):
    t, feed = _build(build)
    harness.check_op(lambda: t, expected, feed_dict=feed, **kw)


@pytest.mark.parametrize("build, expected, kw", CASES)
def test_every_kernel_returns_its_static_dtype(build, expected, kw):
    """Runs the graph op by op, so an intermediate op's wrong dtype is caught too."""
    t, feed = _build(build)
    harness.check_kernel_dtypes(t, feed)


# -- errors ----------------------------------------------------------------------------

ERRORS_AT_CONSTRUCTION = [
    ("dtype_mismatch", lambda: tf.add(c([1, 2]), c([1.0, 2.0])), TypeError,
     "Input 'y' of 'Add' Op has type float32 that does not match type int32 of argument 'x'"),
    ("dtype_mismatch_operator", lambda: c([1, 2]) - c([1.0, 2.0]), TypeError, "'Sub' Op has type float32"),
    ("bool_add", lambda: tf.add(c([True]), c([True])), TypeError, "not in list of allowed values"),
    ("float_into_int", lambda: tf.multiply(c([1]), 1.5), TypeError,
     "Expected int32 passed to parameter 'y' of op 'Mul'"),
    ("exp_int", lambda: tf.exp(c([1])), TypeError, "'Exp'"),
    ("is_nan_int", lambda: tf.is_nan(c([1])), TypeError, "DataType int32 not in list"),
    ("logical_and_int", lambda: tf.logical_and(c([1]), c([1])), TypeError, "LogicalAnd"),
    ("greater_bool", lambda: tf.greater(c([True]), c([True])), TypeError, "Greater"),
    ("neg_uint", lambda: tf.negative(c(np.uint8([1]))), TypeError, "uint8"),
    ("shape_mismatch", lambda: tf.add(c([1, 2]), c([1, 2, 3])), ValueError,
     "Dimensions must be equal, but are 2 and 3"),
    ("shape_mismatch_placeholders", lambda: tf.placeholder(tf.float32, [None, 2]) * tf.placeholder(tf.float32, [3]),
     ValueError, "Dimensions must be equal"),
    ("reduce_sum_bool", lambda: tf.reduce_sum(c([True])), TypeError, "'Sum'"),
    ("reduce_any_float", lambda: tf.reduce_any(c([1.0])), TypeError, "'Any'"),
    ("reduce_axis_float", lambda: tf.reduce_sum(c([[1, 2]]), 1.0), TypeError, "reduction_indices"),
    ("reduce_axis_out_of_range", lambda: tf.reduce_sum(c([[1, 2]]), [2]), ValueError,
     "Invalid reduction dimension 2 for input with 2 dimensions"),
    ("reduce_axis_negative_out_of_range", lambda: tf.reduce_sum(c([[1, 2]]), -3), ValueError,
     "Invalid reduction dimension -3"),
    ("reduce_scalar_axis0", lambda: tf.reduce_sum(c(3.0), 0), ValueError, "Invalid reduction dimension 0"),
    ("reduce_axis_rank2", lambda: tf.reduce_sum(c([[1, 2]]), [[1]]), ValueError, "at most rank 1"),
    ("axis_and_reduction_indices", lambda: tf.reduce_sum(c([[1, 2]]), axis=1, reduction_indices=1), ValueError,
     "Cannot specify both 'reduction_indices' and 'axis'"),
    ("keepdims_and_keep_dims", lambda: tf.reduce_mean(c([1.0]), keepdims=True, keep_dims=True), ValueError,
     "Cannot specify both 'keep_dims' and 'keepdims'"),
    ("argmax_axis_and_dimension", lambda: tf.argmax(c([1.0]), axis=0, dimension=0), ValueError,
     "Cannot specify both 'dimension' and 'axis'"),
    ("argmax_output_float", lambda: tf.argmax(c([1.0]), output_type=tf.float32), TypeError, "output_type"),
    ("argmax_axis_out_of_range", lambda: tf.argmax(c([1.0]), 1), ValueError, "dimension"),
    ("cumsum_bool", lambda: tf.cumsum(c([True])), TypeError, "Cumsum"),
    ("where_only_x", lambda: tf.where(c([True]), c([1])), ValueError, "x and y must both be non-None"),
    ("select_rows_mismatch", lambda: tf.where(c([True, False, True]), c([[1, 2], [3, 4]]), c([[5, 6], [7, 8]])),
     ValueError, "Dimension 0 in both shapes must be equal, but are 3 and 2"),
    ("select_xy_mismatch", lambda: tf.where(c([True, False]), c([1, 2]), c([1, 2, 3])), ValueError,
     "must be equal"),
    ("select_no_broadcast", lambda: tf.where(c([[True, False]]), c([[1, 2], [3, 4]]), c([[5, 6], [7, 8]])),
     ValueError, "must be equal"),
    ("select_int_condition", lambda: tf.where(c([1, 0]), c([1, 2]), c([3, 4])), TypeError, "bool"),
    ("select_xy_dtypes", lambda: tf.where(c([True]), c([1]), c([1.0])), TypeError, "'e' of 'Select'"),
    ("clip_broadcasts_up", lambda: tf.clip_by_value(c([1.0, 2.0]), c([[0.0], [1.0]]), 5.0), ValueError,
     "incompatible"),
    ("add_n_shapes", lambda: tf.add_n([c([1, 2]), c([1])]), ValueError, "not compatible"),
    ("add_n_dtypes", lambda: tf.add_n([c([1, 2]), c([1.0, 2.0])]), TypeError, "don't all match"),
    ("add_n_empty", lambda: tf.add_n([]), ValueError, "at least one"),
    ("scalar_mul_vector", lambda: tf.scalar_mul(c([2.0]), c([1.0])), ValueError, "Only scalar multiply"),
    ("reduce_logsumexp_int", lambda: tf.reduce_logsumexp(c([1, 2])), TypeError, "float"),
    ("reduce_variance_int", lambda: tf.math.reduce_variance(c([1, 2])), TypeError, "float"),
]


@pytest.mark.parametrize("build, exc, match", [pytest.param(*e[1:], id=e[0]) for e in ERRORS_AT_CONSTRUCTION])
def test_bad_input_fails_at_construction(build, exc, match):
    with pytest.raises(exc, match=match):
        build()


ERRORS_AT_RUN = [
    ("floordiv_int_by_zero", lambda: tf.floordiv(c([1, 2]), c([1, 0])), tf.errors.InvalidArgumentError,
     "Integer division by zero"),
    ("floormod_int_by_zero", lambda: tf.floormod(c([1]), 0), tf.errors.InvalidArgumentError,
     "Integer division by zero"),
    ("truncatediv_int_by_zero", lambda: tf.truncatediv(c(I64([1])), c(I64([0]))), tf.errors.InvalidArgumentError,
     "Integer division by zero"),
    ("truncatemod_int_by_zero", lambda: tf.truncatemod(c([1]), 0), tf.errors.InvalidArgumentError,
     "Integer division by zero"),
    ("div_int_by_zero", lambda: tf.div(c([1]), 0), tf.errors.InvalidArgumentError, "Integer division by zero"),
    ("operator_floordiv_by_zero", lambda: c([1]) // 0, tf.errors.InvalidArgumentError, "Integer division by zero"),
    ("pow_int_negative", lambda: tf.pow(c([2]), c([-1])), tf.errors.InvalidArgumentError,
     "Integers to negative integer powers are not allowed"),
    ("reduce_duplicate_axes", lambda: tf.reduce_sum(c([[1, 2]]), [1, 1]), tf.errors.InvalidArgumentError, "axis"),
    ("reduce_fed_axis_out_of_range",
     lambda: tf.reduce_sum(c([[1, 2]]), tf.placeholder_with_default(2, [])), tf.errors.InvalidArgumentError, "axis"),
    ("argmax_empty", lambda: tf.argmax(c(np.zeros([0], F32))), tf.errors.InvalidArgumentError, "empty"),
    ("cast_string", lambda: tf.cast(c(["a"]), tf.float32), tf.errors.UnimplementedError,
     "Cast string to float32 is not supported"),
]


@pytest.mark.parametrize("build, exc, match", [pytest.param(*e[1:], id=e[0]) for e in ERRORS_AT_RUN])
def test_bad_values_fail_at_run_with_tf_error(build, exc, match):
    t = build()
    with pytest.raises(exc, match=match) as info:
        harness.run(t)
    assert info.value.op is not None and info.value.op.name == t.op.name


# -- names -----------------------------------------------------------------------------


def x_f32():
    return tf.placeholder(tf.float32, [2, 3], name="x")


def x_i32():
    return tf.placeholder(tf.int32, [2, 3], name="i")


def x_bool():
    return tf.placeholder(tf.bool, [2, 3], name="b")


# (build, name of the returned tensor, [(op name, op type)] of the ops it created), read from TF
# (TF 1.15 op types: "Add" where TF2's compat.v1 says "AddV2").
NAMES = [
    ("add", lambda: tf.add(x_f32(), 2.0), "Add:0", [("Add/y", "Const"), ("Add", "Add")]),
    ("add_tensors", lambda: tf.add(x_f32(), x_f32()), "Add:0", [("Add", "Add")]),
    ("add_python", lambda: tf.add(1, 2), "Add:0", [("Add/x", "Const"), ("Add/y", "Const"), ("Add", "Add")]),
    ("add_named_twice", lambda: [tf.add(x_f32(), 1.0, name="a"), tf.add(x_f32(), 1.0, name="a")][1], "a_1:0",
     [("a/y", "Const"), ("a", "Add"), ("a_1/y", "Const"), ("a_1", "Add")]),
    ("operator_add", lambda: x_f32() + 2.0, "add:0", [("add/y", "Const"), ("add", "Add")]),
    ("subtract", lambda: tf.subtract(x_f32(), 2.0), "Sub:0", [("Sub/y", "Const"), ("Sub", "Sub")]),
    ("multiply", lambda: tf.multiply(x_f32(), 2.0), "Mul:0", [("Mul/y", "Const"), ("Mul", "Mul")]),
    ("divide", lambda: tf.divide(x_f32(), 2.0), "truediv:0", [("truediv/y", "Const"), ("truediv", "RealDiv")]),
    ("divide_named", lambda: tf.divide(x_f32(), 2.0, name="dd"), "dd:0", [("dd/y", "Const"), ("dd", "RealDiv")]),
    ("truediv_int", lambda: tf.truediv(x_i32(), 2), "truediv:0",
     [("truediv/y", "Const"), ("truediv/Cast", "Cast"), ("truediv/Cast_1", "Cast"), ("truediv", "RealDiv")]),
    ("div_float", lambda: tf.div(x_f32(), 2.0), "div:0", [("div/y", "Const"), ("div", "RealDiv")]),
    ("div_int", lambda: tf.div(x_i32(), 2), "div:0", [("div/y", "Const"), ("div", "FloorDiv")]),
    ("floordiv", lambda: tf.floordiv(x_f32(), 2.0), "floordiv:0",
     [("floordiv/y", "Const"), ("floordiv", "FloorDiv")]),
    ("floor_div", lambda: tf.floor_div(x_f32(), 2.0), "FloorDiv:0",
     [("FloorDiv/y", "Const"), ("FloorDiv", "FloorDiv")]),
    ("mod", lambda: tf.mod(x_f32(), 2.0), "FloorMod:0", [("FloorMod/y", "Const"), ("FloorMod", "FloorMod")]),
    ("truncatediv", lambda: tf.truncatediv(x_i32(), 2), "TruncateDiv:0",
     [("TruncateDiv/y", "Const"), ("TruncateDiv", "TruncateDiv")]),
    ("truncatemod", lambda: tf.truncatemod(x_i32(), 2), "TruncateMod:0",
     [("TruncateMod/y", "Const"), ("TruncateMod", "TruncateMod")]),
    ("pow", lambda: tf.pow(x_f32(), 2.0), "Pow:0", [("Pow/y", "Const"), ("Pow", "Pow")]),
    ("realdiv", lambda: tf.realdiv(x_f32(), 2.0), "RealDiv:0", [("RealDiv/y", "Const"), ("RealDiv", "RealDiv")]),
    ("maximum", lambda: tf.maximum(x_f32(), 2.0), "Maximum:0", [("Maximum/y", "Const"), ("Maximum", "Maximum")]),
    ("squared_difference", lambda: tf.squared_difference(x_f32(), 2.0), "SquaredDifference:0",
     [("SquaredDifference/y", "Const"), ("SquaredDifference", "SquaredDifference")]),
    ("add_n", lambda: tf.add_n([x_f32(), x_f32(), x_f32()]), "AddN:0", [("AddN", "AddN")]),
    ("add_n_single", lambda: tf.add_n([x_f32()]), "x:0", []),
    ("add_n_single_named", lambda: tf.add_n([x_f32()], name="s"), "s:0", [("s", "Identity")]),
    ("exp_python", lambda: tf.exp(1.0), "Exp:0", [("Exp/x", "Const"), ("Exp", "Exp")]),
    ("sigmoid", lambda: tf.sigmoid(x_f32()), "Sigmoid:0", [("Sigmoid", "Sigmoid")]),
    ("atan2", lambda: tf.atan2(x_f32(), 1.0), "Atan2:0", [("Atan2/x", "Const"), ("Atan2", "Atan2")]),
    ("abs_complex", lambda: tf.abs(c([1 + 1j])), "Abs:0", [("Const", "Const"), ("Abs", "ComplexAbs")]),
    ("round_int", lambda: tf.round(x_i32()), "i:0", []),
    ("clip_by_value", lambda: tf.clip_by_value(x_f32(), 0.0, 1.0), "clip_by_value:0",
     [("clip_by_value/Minimum/y", "Const"), ("clip_by_value/Minimum", "Minimum"), ("clip_by_value/y", "Const"),
      ("clip_by_value", "Maximum")]),
    ("equal", lambda: tf.equal(x_f32(), 1.0), "Equal:0", [("Equal/y", "Const"), ("Equal", "Equal")]),
    ("less_equal", lambda: tf.less_equal(x_f32(), 1.0), "LessEqual:0",
     [("LessEqual/y", "Const"), ("LessEqual", "LessEqual")]),
    ("logical_xor", lambda: tf.logical_xor(x_bool(), x_bool()), "LogicalXor:0",
     [("LogicalOr", "LogicalOr"), ("LogicalAnd", "LogicalAnd"), ("LogicalNot", "LogicalNot"),
      ("LogicalXor", "LogicalAnd")]),
    ("where_coordinates", lambda: tf.where(x_bool()), "Where:0", [("Where", "Where")]),
    ("where_python", lambda: tf.where([True, False], [1, 2], [3, 4]), "Select:0",
     [("Select/condition", "Const"), ("Select/t", "Const"), ("Select/e", "Const"), ("Select", "Select")]),
    ("where_v2", lambda: tf.where_v2(x_bool(), x_f32(), 0.0), "SelectV2:0",
     [("SelectV2/e", "Const"), ("SelectV2", "SelectV2")]),
    ("cast", lambda: tf.cast(x_f32(), tf.int32), "Cast:0", [("Cast", "Cast")]),
    ("cast_same_dtype", lambda: tf.cast(x_f32(), tf.float32), "x:0", []),
    ("cast_python_named", lambda: tf.cast(1.5, tf.int32, name="c"), "c:0", [("c/x", "Const"), ("c", "Cast")]),
    ("to_float", lambda: tf.to_float(x_i32()), "ToFloat:0", [("ToFloat", "Cast")]),
    ("to_int64", lambda: tf.to_int64(x_f32()), "ToInt64:0", [("ToInt64", "Cast")]),
    ("saturate_cast", lambda: tf.saturate_cast(x_f32(), tf.uint8), "saturate_cast:0", None),
    ("scalar_mul", lambda: tf.scalar_mul(2.0, x_f32()), "Mul:0", [("scalar", "Const"), ("Mul", "Mul")]),
    ("reduce_sum", lambda: tf.reduce_sum(x_f32()), "Sum:0", [("Const", "Const"), ("Sum", "Sum")]),
    ("reduce_sum_axis", lambda: tf.reduce_sum(x_f32(), 1), "Sum:0",
     [("Sum/reduction_indices", "Const"), ("Sum", "Sum")]),
    ("reduce_sum_named", lambda: tf.reduce_sum(x_f32(), 0, name="s"), "s:0",
     [("s/reduction_indices", "Const"), ("s", "Sum")]),
    ("reduce_mean", lambda: tf.reduce_mean(x_f32()), "Mean:0", [("Const", "Const"), ("Mean", "Mean")]),
    ("reduce_max", lambda: tf.reduce_max(x_f32(), 0), "Max:0", [("Max/reduction_indices", "Const"), ("Max", "Max")]),
    ("reduce_min", lambda: tf.reduce_min(x_f32(), 0), "Min:0", [("Min/reduction_indices", "Const"), ("Min", "Min")]),
    ("reduce_prod", lambda: tf.reduce_prod(x_f32(), 0), "Prod:0",
     [("Prod/reduction_indices", "Const"), ("Prod", "Prod")]),
    ("reduce_any", lambda: tf.reduce_any(x_bool(), 0), "Any:0", [("Any/reduction_indices", "Const"), ("Any", "Any")]),
    ("reduce_all", lambda: tf.reduce_all(x_bool(), 0), "All:0", [("All/reduction_indices", "Const"), ("All", "All")]),
    ("reduce_logsumexp", lambda: tf.reduce_logsumexp(x_f32(), 0), "ReduceLogSumExp:0", None),
    ("reduce_variance", lambda: tf.math.reduce_variance(x_f32(), 1), "reduce_variance/Mean_1:0",
     [("reduce_variance/Mean/reduction_indices", "Const"), ("reduce_variance/Mean", "Mean"),
      ("reduce_variance/sub", "Sub"), ("reduce_variance/Square", "Square"),
      ("reduce_variance/Mean_1/reduction_indices", "Const"), ("reduce_variance/Mean_1", "Mean")]),
    ("reduce_std", lambda: tf.math.reduce_std(x_f32(), 1), "reduce_std/Sqrt:0", None),
    ("argmax", lambda: tf.argmax(x_f32()), "ArgMax:0", [("ArgMax/dimension", "Const"), ("ArgMax", "ArgMax")]),
    ("argmin", lambda: tf.argmin(x_f32(), 1, output_type=tf.int32), "ArgMin:0",
     [("ArgMin/dimension", "Const"), ("ArgMin", "ArgMin")]),
    ("cumsum", lambda: tf.cumsum(x_f32()), "Cumsum:0", [("Cumsum/axis", "Const"), ("Cumsum", "Cumsum")]),
    ("cumprod_python", lambda: tf.cumprod([1, 2]), "Cumprod:0",
     [("Cumprod/x", "Const"), ("Cumprod/axis", "Const"), ("Cumprod", "Cumprod")]),
    ("count_nonzero", lambda: tf.count_nonzero(x_f32()), "count_nonzero/Sum:0",
     [("count_nonzero/zeros", "Const"), ("count_nonzero/NotEqual", "NotEqual"), ("count_nonzero/Cast", "Cast"),
      ("count_nonzero/Const", "Const"), ("count_nonzero/Sum", "Sum")]),
    ("count_nonzero_int32", lambda: tf.count_nonzero(x_f32(), 1, dtype=tf.int32), "count_nonzero/Cast_1:0", None),
]


@pytest.mark.parametrize("build, tensor_name, ops", [pytest.param(*n[1:], id=n[0]) for n in NAMES])
def test_default_names_match_tf1(build, tensor_name, ops):
    t = build()
    assert t.name == tensor_name
    if ops is not None:
        created = [(op.name, op.type) for op in tf.get_default_graph().get_operations() if op.type != "Placeholder"]
        assert created == ops


OPERATOR_HELPERS = ["add", "subtract", "multiply", "truediv", "floordiv", "floormod", "pow", "logical_and",
                    "logical_or", "logical_xor", "less", "less_equal", "greater", "greater_equal"]


@pytest.mark.parametrize("fn_name", OPERATOR_HELPERS)
def test_operator_helpers_take_a_name(fn_name):
    dtype = tf.bool if fn_name.startswith("logical") else tf.float32
    x = tf.placeholder(dtype, [2])
    assert getattr(tf, fn_name)(x, x, name="op").name == "op:0"
    with tf.name_scope("scope") as scope:  # operators pass the scope string itself as the name
        assert getattr(tf, fn_name)(x, x, name=scope).name == "scope:0"


@pytest.mark.parametrize("fn_name", ["negative", "abs", "logical_not"])
def test_unary_operator_helpers_take_a_name(fn_name):
    x = tf.placeholder(tf.bool if fn_name == "logical_not" else tf.float32, [2])
    assert getattr(tf, fn_name)(x, name="op").name == "op:0"


def test_operator_results_match_functions():
    x = c(np.float32([-3.5, 2.0]))
    b = c([True, False])
    got = harness.run([x + 1, 1 - x, x * x, x / 2, x // 2, x % 2, x**2, -x, abs(x), x < 0, b & True, b | False,
                       b ^ True, ~b])
    want = [[-2.5, 3.0], [4.5, -1.0], [12.25, 4.0], [-1.75, 1.0], [-2.0, 1.0], [0.5, 0.0], [12.25, 4.0],
            [3.5, -2.0], [3.5, 2.0], [True, False], [True, False], [True, False], [False, True], [False, True]]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


# -- public names and the run-loop contract ---------------------------------------------

TF_AND_MATH = """add subtract multiply divide truediv floordiv mod floormod pow maximum minimum squared_difference
    add_n negative abs sign exp expm1 log log1p sqrt rsqrt square reciprocal sin cos tan tanh sigmoid round floor
    ceil equal not_equal greater greater_equal less less_equal logical_and logical_or logical_not logical_xor
    scalar_mul is_nan is_inf is_finite erf reduce_sum reduce_mean reduce_max reduce_min reduce_prod reduce_any
    reduce_all reduce_logsumexp argmax argmin cumsum cumprod count_nonzero""".split()
TF_ONLY = """floor_div truncatediv truncatemod clip_by_value where where_v2 cast to_float to_int32 to_int64 to_double
    saturate_cast div realdiv""".split()


@pytest.mark.parametrize("name", TF_AND_MATH + TF_ONLY)
def test_exported_like_tf1(name):
    assert callable(getattr(tf, name))
    assert hasattr(tf.math, name) == (name in TF_AND_MATH)
    assert getattr(tf.compat.v1, name) is getattr(tf, name)


def test_extra_exports():
    assert tf.math.reduce_variance and tf.math.reduce_std and tf.math.divide_no_nan is tf.div_no_nan
    assert tf.dtypes.cast is tf.cast and tf.dtypes.saturate_cast is tf.saturate_cast
    assert not hasattr(tf, "reduce_variance")


@pytest.mark.parametrize("op_type, ufunc", [("Exp", np.exp), ("Less", np.less), ("LogicalNot", np.logical_not)])
def test_attrless_ops_run_the_ufunc_itself(op_type, ufunc):
    # The run loop calls kernels directly: no Python wrapper between it and numpy.
    assert get_opdef(op_type).kernel is ufunc


@pytest.mark.parametrize("op_type, ufunc", [("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply)])
def test_small_arithmetic_runs_the_ufunc_itself_and_large_goes_in_shares(op_type, ufunc):
    from dflow.framework.op_registry import apply_op
    from dflow.kernels import blas as _blas

    small = apply_op(op_type, [c(np.ones((3, 4))), c(np.ones(4))], {}).outputs[0]
    assert small.op._opdef.bind(small.op, None) is ufunc  # no Python wrapper between the run loop and numpy
    big = apply_op(op_type, [c(np.ones((1024, 1024), np.float32)), c(np.float32(2))], {}).outputs[0]
    unknown = apply_op(op_type, [tf.placeholder(tf.float32), c(np.float32(2))], {}).outputs[0]
    for t in (big, unknown):
        kernel = t.op._opdef.bind(t.op, None)
        assert kernel.func is _blas.in_shares and kernel.args == (ufunc,)


def test_dtype_dispatched_kernel_is_chosen_once_per_op():
    f = tf.floordiv(c([1.0]), c([2.0]))
    i = tf.floordiv(c([1]), c([2]))
    assert f.op._opdef.bind(f.op, None) is not i.op._opdef.bind(i.op, None)


def test_constant_axis_folds_into_static_shape():
    x = tf.placeholder(tf.float32, [4, None, 6])
    assert tf.reduce_sum(x, c(1) + 1).shape.as_list() == [4, None]
    assert tf.reduce_mean(x, [0, -1], keepdims=True).shape.as_list() == [1, None, 1]
    assert tf.reduce_max(x, tf.placeholder(tf.int32, [None])).shape.ndims is None


def test_int_mean_of_large_values_does_not_overflow():
    big = np.int32([2**31 - 1, 2**31 - 1])
    assert harness.run(tf.reduce_mean(c(big))) == 2**31 - 1


def test_sigmoid_keeps_relative_precision_far_out_and_takes_scalars():
    x = np.array([-100.0, -90.0, -50.0, -20.0, -1.0, 0.0, 1.0, 20.0, 100.0, np.inf, -np.inf, np.nan], np.float32)
    with tf.Session() as sess:
        got, scalar, half, double = sess.run([tf.sigmoid(x), tf.sigmoid(tf.reduce_sum(tf.constant([1.0, -2.0]))),
                                              tf.sigmoid(tf.constant([-1e4, 1e4, -10.0], tf.float16)),
                                              tf.sigmoid(tf.constant(-3.0, tf.float64))])
    want = 1 / (1 + np.exp(-x.astype(np.float64)))
    np.testing.assert_allclose(got[2:-1], want[2:-1], rtol=2e-7)
    np.testing.assert_allclose(got[:2], want[:2], rtol=0.02)  # float32 subnormals, not flushed to 0
    assert np.isnan(got[-1])
    assert got.dtype == np.float32 and np.asarray(scalar).dtype == np.float32
    np.testing.assert_allclose(scalar, 1 / (1 + np.exp(1.0)), rtol=1e-6)
    np.testing.assert_allclose(half.astype(np.float32), [0.0, 1.0, 4.54e-05], rtol=1e-3)
    np.testing.assert_allclose(double, 1 / (1 + np.exp(3.0)), rtol=1e-15)


def test_exclusive_cumsum_and_repeat_of_empty_inputs_are_empty():
    """Both once failed on empty inputs (an empty batch of parsed ragged features builds them)."""
    with tf.Graph().as_default(), tf.Session() as sess:
        out = sess.run([tf.cumsum(tf.zeros([0]), exclusive=True), tf.cumprod(tf.zeros([2, 0]), 1, exclusive=True),
                        tf.repeat(tf.zeros([0]), tf.zeros([0], tf.int32))])
    assert [o.shape for o in out] == [(0,), (2, 0), (0,)]
