"""Fake quantization (tf.fake_quant_with_min_max_args / _vars / _vars_per_channel, their gradient ops
and registered gradients) against TF 2.15 (compat.v1) figures; TF1's errors for bad arguments.

The functions are piecewise constant, so the gradients (TF's straight-through rule) are checked
against TF's figures, not against finite differences.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import dflow as tf
from dflow.ops.array import fake_quant_ops
from tests.ops.harness import check_kernel_dtypes, run

F32 = np.float32
# range edges (-6, 6, -1, 2), zero, steps and between-steps of the (-1, 2) grid, values outside the range
X = np.array([-7., -6., -1.0, -0.5, 0, 0.01, 0.3, 0.5, 2.0, 5.97, 6, 7], F32)

VALUE_CASES = [
    ("args_default", "args", {},
     [-6.023529529571533, -5.976470470428467, -0.9882352948188782, -0.5176470875740051, 0.0, 0.0, 0.2823529541492462,
      0.5176470875740051, 2.023529529571533, 5.976470470428467, 5.976470470428467, 5.976470470428467]),
    ("args_m1_2_b8", "args", {'min': -1.0, 'max': 2.0},
     [-1.0, -1.0, -1.0, -0.4941176474094391, 0.0, 0.0117647061124444, 0.29411765933036804, 0.5058823823928833, 2.0,
      2.0, 2.0, 2.0]),
    ("args_m1_2_b8_narrow", "args", {'min': -1.0, 'max': 2.0, 'narrow_range': True},
     [-1.003937005996704, -1.003937005996704, -1.003937005996704, -0.4960629940032959, 0.0, 0.011811023578047752,
      0.29527559876441956, 0.4960629940032959, 1.996062994003296, 1.996062994003296, 1.996062994003296,
      1.996062994003296]),
    ("args_b4", "args", {'min': -1.0, 'max': 2.0, 'num_bits': 4},
     [-1.0, -1.0, -1.0, -0.4000000059604645, 0.0, 0.0, 0.4000000059604645, 0.6000000238418579, 2.0, 2.0, 2.0, 2.0]),
    ("args_b4_narrow", "args", {'min': -1.0, 'max': 2.0, 'num_bits': 4, 'narrow_range': True},
     [-1.0714285373687744, -1.0714285373687744, -1.0714285373687744, -0.4285714328289032, 0.0, 0.0,
      0.2142857164144516, 0.4285714328289032, 1.9285714626312256, 1.9285714626312256, 1.9285714626312256,
      1.9285714626312256]),
    ("args_b16", "args", {'min': -1.0, 'max': 2.0, 'num_bits': 16},
     [-1.0, -1.0, -1.0, -0.49997711181640625, 0.0, 0.009979400783777237, 0.2999771237373352, 0.5000228881835938,
      2.0, 2.0, 2.0, 2.0]),
    ("args_positive_range", "args", {'min': 0.5, 'max': 3.0},
     [0.0, 0.0, 0.0, 0.0, 0.0, 0.009803921915590763, 0.30392158031463623, 0.5, 2.0, 2.5, 2.5, 2.5]),
    ("args_negative_range", "args", {'min': -3.0, 'max': -0.5, 'num_bits': 4},
     [-2.5, -2.5, -1.0, -0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ("args_zero_point_rounds", "args", {'min': -0.1, 'max': 0.25, 'num_bits': 3},
     [-0.10000000149011612, -0.10000000149011612, -0.10000000149011612, -0.10000000149011612, 0.0, 0.0, 0.25, 0.25,
      0.25, 0.25, 0.25, 0.25]),
    ("vars_m1_2_b8", "vars", {'min': -1.0, 'max': 2.0},
     [-1.0, -1.0, -1.0, -0.4941176474094391, 0.0, 0.0117647061124444, 0.29411765933036804, 0.5058823823928833, 2.0,
      2.0, 2.0, 2.0]),
    ("vars_b4_narrow", "vars", {'min': -1.0, 'max': 2.0, 'num_bits': 4, 'narrow_range': True},
     [-1.0714285373687744, -1.0714285373687744, -1.0714285373687744, -0.4285714328289032, 0.0, 0.0,
      0.2142857164144516, 0.4285714328289032, 1.9285714626312256, 1.9285714626312256, 1.9285714626312256,
      1.9285714626312256]),
    ("vars_b16", "vars", {'min': -1.0, 'max': 2.0, 'num_bits': 16},
     [-1.0, -1.0, -1.0, -0.49997711181640625, 0.0, 0.009979400783777237, 0.2999771237373352, 0.5000228881835938,
      2.0, 2.0, 2.0, 2.0]),
    ("vars_min_above_max", "vars", {'min': 3.0, 'max': 1.0}, [2.0] * 12),
    ("vars_zero_range", "vars", {'min': 0.0, 'max': 0.0}, [0.0] * 12),
]


def fake_quant(kind, x, kw):
    if kind == "args":
        return tf.fake_quant_with_min_max_args(x, **kw)
    kw = dict(kw)
    return tf.fake_quant_with_min_max_vars(x, kw.pop("min"), kw.pop("max"), **kw)


@pytest.mark.parametrize("kind,kw,want", [c[1:] for c in VALUE_CASES], ids=[c[0] for c in VALUE_CASES])
def test_values_match_tf(kind, kw, want):
    y = fake_quant(kind, X, kw)
    assert y.dtype == tf.float32 and y.shape.as_list() == [12]
    got = run(y)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.array(want, F32))  # TF's float32 arithmetic, bit for bit


def test_half_steps_round_up():
    """Values halfway between two levels of the (-1, 2) 8-bit grid go to the upper level, as TF's floor(x + 0.5)."""
    halves = np.array([-0.9941176176071167, -0.5588235259056091, -0.12352937459945679, 0.3117647171020508,
                       0.7470588684082031, 1.1823530197143555, 1.6176471710205078], F32)
    want = np.array([-0.9882352948188782, -0.5529412031173706, -0.11764705926179886, 0.3176470696926117,
                     0.7529411911964417, 1.1882352828979492, 1.6235294342041016], F32)
    got = run([tf.fake_quant_with_min_max_args(halves, min=-1.0, max=2.0),
               tf.fake_quant_with_min_max_vars(halves, -1.0, 2.0)])
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_array_equal(got[1], want)


def test_vars_divides_by_the_scale_where_args_and_per_channel_multiply():
    """TF's _vars kernel computes x / scale, the others x * (1 / scale): at a half step the two round apart."""
    x = np.array([2.0, -2.5714285373687744], F32)
    xn = np.array([-5.5714287757873535, 5.571428298950195], F32)
    got = run([tf.fake_quant_with_min_max_args(x, num_bits=4), tf.fake_quant_with_min_max_vars(x, -6., 6., num_bits=4),
               tf.fake_quant_with_min_max_vars_per_channel(x[:, None], [-6.], [6.], num_bits=4),
               tf.fake_quant_with_min_max_args(x, num_bits=3), tf.fake_quant_with_min_max_vars(x, -6., 6., num_bits=3),
               tf.fake_quant_with_min_max_args(xn, num_bits=4, narrow_range=True),
               tf.fake_quant_with_min_max_vars(xn, -6., 6., num_bits=4, narrow_range=True)])
    want = [[2.4000000953674316, -2.4000000953674316], [1.600000023841858, -2.4000000953674316],
            [2.4000000953674316, -2.4000000953674316], [1.7142857313156128, -3.4285714626312256],
            [1.7142857313156128, -1.7142857313156128], [-6.0, 5.142857074737549], [-5.142857074737549, 6.0]]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.ravel(), np.array(w, F32))


def test_zero_point_half_rounds_away_from_zero():
    """min=-2.5, max=4.5, 3 bits: scale 1 and zero point 2.5, which TF's std::round makes 3: range [-3, 4]."""
    x = np.array([-3., -2.5, -0.4, 0.5, 1.5, 4.5, 5.], F32)
    got = run([tf.fake_quant_with_min_max_args(x, min=-2.5, max=4.5, num_bits=3),
               tf.fake_quant_with_min_max_args_gradient(np.ones(7, F32), x, min=-2.5, max=4.5, num_bits=3)])
    np.testing.assert_array_equal(got[0], np.array([-3.0, -2.0, 0.0, 1.0, 2.0, 4.0, 4.0], F32))
    np.testing.assert_array_equal(got[1], np.array([1, 1, 1, 1, 1, 0, 0], F32))


def test_nan_and_infinities():
    x = np.array([np.nan, np.inf, -np.inf], F32)
    got = run(tf.fake_quant_with_min_max_args(x, min=-1.0, max=2.0))
    np.testing.assert_array_equal(got, np.array([np.nan, 2.0, -1.0], F32))
    assert np.isnan(run(tf.fake_quant_with_min_max_vars(x, 1.0, 1.0))).all()  # a zero-width range: TF gives NaN


XPC = np.array([[-7., -0.3, 0.2, 0.01], [0.5, 5.97, 7., -0.01], [0.3, -1.0, -0.05, 0.]], F32)
LO = np.array([-6., -1., 0., -0.1], F32)
HI = np.array([6., 1., 0., 0.25], F32)


def test_per_channel_values_match_tf():
    y = tf.fake_quant_with_min_max_vars_per_channel(XPC, LO, HI)
    assert y.name == "FakeQuantWithMinMaxVarsPerChannel:0" and y.shape.as_list() == [3, 4]
    np.testing.assert_array_equal(run(y), np.array(
        [[-6.023529529571533, -0.2980392277240753, 0.0, 0.00960784312337637],
         [0.5176470875740051, 1.003921627998352, 0.0, -0.00960784312337637],
         [0.2823529541492462, -0.9960784912109375, 0.0, 0.0]], F32))
    y = tf.quantization.fake_quant_with_min_max_vars_per_channel(XPC.reshape(3, 1, 4), LO, HI, num_bits=4,
                                                                  narrow_range=True)
    assert y.shape.as_list() == [3, 1, 4]
    np.testing.assert_array_equal(run(y), np.array(
        [[[-6.0, -0.2857142984867096, 0.0, 0.0]], [[0.8571428656578064, 1.0, 0.0, 0.0]], [[0.0, -1.0, 0.0, 0.0]]],
        F32))


def test_per_channel_is_vars_per_column():
    """Each channel of the per-channel op equals the per-tensor op with that channel's range."""
    rng = np.random.RandomState(0)
    x = rng.uniform(-8, 8, (2, 3, 5, 4)).astype(F32)
    lo, hi = np.array([-6., -0.7, -2., 0.3], F32), np.array([6., 1.3, -0.5, 1.], F32)
    pc = tf.fake_quant_with_min_max_vars_per_channel(x, lo, hi, num_bits=5)
    per = [tf.fake_quant_with_min_max_args(x[..., i], min=float(lo[i]), max=float(hi[i]), num_bits=5)
           for i in range(4)]
    got_pc, got_per = run([pc, per])
    np.testing.assert_array_equal(got_pc, np.stack(got_per, axis=-1))


W = np.linspace(-1, 1, X.size).astype(F32)


def test_registered_gradients_match_tf():
    x = tf.constant(X)
    ga = tf.gradients(tf.reduce_sum(tf.fake_quant_with_min_max_args(x, min=-1., max=2., num_bits=4) * W), x)[0]
    assert ga.name == "gradients/FakeQuantWithMinMaxArgs_grad/FakeQuantWithMinMaxArgsGradient:0"
    lo, hi = tf.constant(-1.), tf.constant(2.)
    gv = tf.gradients(tf.reduce_sum(tf.fake_quant_with_min_max_vars(x, lo, hi, narrow_range=True) * W), [x, lo, hi])
    assert [t.name for t in gv] == [f"gradients_1/FakeQuantWithMinMaxVars_grad/FakeQuantWithMinMaxVarsGradient:{i}"
                                    for i in range(3)]
    assert [t.shape.as_list() for t in gv] == [[12], [], []]
    got_a, got_v = run([ga, gv])
    inside = [-0.6363636255264282, -0.4545454680919647, -0.27272728085517883, -0.09090909361839294,
              0.09090909361839294, 0.27272728085517883]
    np.testing.assert_array_equal(got_a, np.array([0, 0] + inside + [0.4545454680919647, 0, 0, 0], F32))
    np.testing.assert_array_equal(got_v[0], np.array([0, 0] + inside + [0, 0, 0, 0], F32))
    np.testing.assert_allclose(got_v[1], -1.8181817531585693, rtol=1e-6)
    np.testing.assert_allclose(got_v[2], 2.909090995788574, rtol=1e-6)


def test_per_channel_registered_gradient_matches_tf():
    x, lo, hi = tf.constant(XPC), tf.constant(LO), tf.constant(HI)
    w = np.arange(12, dtype=F32).reshape(3, 4) - 5
    g = tf.gradients(tf.reduce_sum(tf.fake_quant_with_min_max_vars_per_channel(x, lo, hi) * w), [x, lo, hi])
    assert g[0].name == "gradients/FakeQuantWithMinMaxVarsPerChannel_grad/FakeQuantWithMinMaxVarsPerChannelGradient:0"
    assert [t.shape.as_list() for t in g] == [[3, 4], [4], [4]]
    got = run(g)
    # channel 2 has the range [0, 0]: its gradient passes untouched and min/max get none
    np.testing.assert_array_equal(got[0], np.array([[0, -4, -3, -2], [-1, 0, 1, 2], [3, 0, 5, 6]], F32))
    np.testing.assert_array_equal(got[1], np.array([-5, 4, 0, 0], F32))
    np.testing.assert_array_equal(got[2], np.array([0, 0, 0, 0], F32))


def test_gradient_ops_match_tf():
    x = np.array([-7., -6., -0.5, 0, 0.01, 0.5, 5.97, 6, 7], F32)
    g = np.arange(9, dtype=F32)
    a = tf.fake_quant_with_min_max_args_gradient(np.ones(9, F32), x)
    assert a.name == "FakeQuantWithMinMaxArgsGradient:0"
    v = tf.quantization.fake_quant_with_min_max_vars_gradient(g, x, -1., 3.)
    assert type(v).__name__ == "FakeQuantWithMinMaxVarsGradient" and v.backprop_wrt_min.shape.as_list() == []
    v0 = tf.fake_quant_with_min_max_vars_gradient(g, x, 0., 0.)
    p = tf.fake_quant_with_min_max_vars_per_channel_gradient(np.ones_like(XPC), XPC, LO, HI)
    assert type(p).__name__ == "FakeQuantWithMinMaxVarsPerChannelGradient"
    got_a, got_v, got_v0, got_p = run([a, v, v0, p])
    np.testing.assert_array_equal(got_a, np.array([0, 1, 1, 1, 1, 1, 1, 0, 0], F32))
    np.testing.assert_array_equal(got_v[0], np.array([0, 0, 2, 3, 4, 5, 0, 0, 0], F32))
    assert (got_v[1], got_v[2]) == (1.0, 21.0)
    np.testing.assert_array_equal(got_v0[0], g)  # min == max == 0: everything to the input
    assert (got_v0[1], got_v0[2]) == (0.0, 0.0)
    # -1.0 is below channel 1's nudged range (the zero point 127.49999 rounds down)
    np.testing.assert_array_equal(got_p[0], np.array([[0, 1, 1, 1], [1, 0, 1, 1], [1, 0, 1, 1]], F32))
    np.testing.assert_array_equal(got_p[1], np.array([1, 1, 0, 0], F32))
    np.testing.assert_array_equal(got_p[2], np.array([0, 1, 0, 0], F32))
    check_kernel_dtypes(p.backprop_wrt_max)


def test_gradient_op_of_empty_input():
    v = tf.fake_quant_with_min_max_vars_gradient(np.zeros((0, 3), F32), np.zeros((0, 3), F32), -1., 1.)
    got = run(v)
    assert got[0].shape == (0, 3) and (got[1], got[2]) == (0.0, 0.0)


def test_names_aliases_and_argument_conversion():
    y = tf.quantization.fake_quant_with_min_max_args(X, name="foo")
    assert y.name == "foo:0" and y.op.inputs[0].name == "foo/inputs:0"
    y = tf.fake_quant_with_min_max_vars([1.], -1., 1., name="fq")
    assert [t.name for t in y.op.inputs] == ["fq/inputs:0", "fq/min:0", "fq/max:0"]
    assert tf.quantization.fake_quant_with_min_max_vars is tf.fake_quant_with_min_max_vars
    assert tf.quantization.fake_quant_with_min_max_args_gradient is tf.fake_quant_with_min_max_args_gradient
    assert (tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient
            is tf.fake_quant_with_min_max_vars_per_channel_gradient)
    # numpy ints and float64 arrays become float32 constants; min/max None, num_bits 4.0 and np.int64 are accepted
    got = run([tf.fake_quant_with_min_max_args(np.array([1, 2], np.int32)),
               tf.fake_quant_with_min_max_args(np.array([1, 2], np.float64), min=None, num_bits=8.0),
               tf.fake_quant_with_min_max_args(X[:3], num_bits=np.int64(4)),
               tf.fake_quant_with_min_max_vars(X[:3], -1, np.float64(3))])
    np.testing.assert_array_equal(got[0], np.array([0.9882353, 2.0235295], F32))
    np.testing.assert_array_equal(got[1], np.array([0.9882353, 2.0235295], F32))
    np.testing.assert_array_equal(got[2], np.array([-6.4, -5.6, -0.8], F32))
    np.testing.assert_array_equal(got[3], np.array([-1.0039216, -1.0039216, -1.0039216], F32))


def test_static_shapes():
    ph = tf.placeholder
    assert tf.fake_quant_with_min_max_args_gradient(ph(tf.float32, [2, None]), ph(tf.float32, [None, 3])
                                                    ).shape.as_list() == [2, None]  # TF: the gradients' shape
    v = tf.fake_quant_with_min_max_vars_gradient(ph(tf.float32, [2, None]), ph(tf.float32, [None, 3]),
                                                 ph(tf.float32), ph(tf.float32))
    assert [t.shape.as_list() for t in v] == [[2, 3], [], []]
    p = tf.fake_quant_with_min_max_vars_per_channel_gradient(ph(tf.float32, [2, None]), ph(tf.float32, [None, 3]),
                                                             ph(tf.float32, [None]), ph(tf.float32))
    assert [t.shape.as_list() for t in p] == [[2, 3], [3], [3]]
    assert tf.fake_quant_with_min_max_vars_per_channel(ph(tf.float32, [2, None]), ph(tf.float32, [3]),
                                                       ph(tf.float32, [3])).shape.as_list() == [2, None]
    assert tf.fake_quant_with_min_max_vars_per_channel(ph(tf.float32), ph(tf.float32), ph(tf.float32)).shape.ndims \
        is None


def _ph(value):
    return tf.placeholder_with_default(np.asarray(value, F32), None)


@pytest.mark.parametrize("build,match", [
    (lambda: tf.fake_quant_with_min_max_args(X, min=1., max=1.), "min has to be smaller than max, was: 1 >= 1"),
    (lambda: tf.fake_quant_with_min_max_args_gradient(X, X, min=2., max=0.1),
     "min has to be smaller than max, was: 2 >= 0.1"),
    (lambda: tf.fake_quant_with_min_max_args(X, num_bits=1), "num_bits must be between 2 and 16, inclusive"),
    (lambda: tf.fake_quant_with_min_max_args_gradient(X, X, num_bits=17), "num_bits must be between 2 and 16"),
    (lambda: tf.fake_quant_with_min_max_vars(X, -1., 3., num_bits=1), "num_bits must be between 2 and 16"),
    (lambda: tf.fake_quant_with_min_max_vars_gradient(X, X, -1., 3., num_bits=17), "num_bits must be between"),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel(XPC, LO, HI, num_bits=0), "num_bits must be between"),
    (lambda: tf.fake_quant_with_min_max_args_gradient(np.ones(8, F32), X),
     r"must have the same size and shape.  Input 0: \[8\] != input 1: \[12\]"),
    (lambda: tf.fake_quant_with_min_max_vars(X, _ph([-1.]), 3.), "`min` must be rank 0 but is rank 1"),
    (lambda: tf.fake_quant_with_min_max_vars(X, -1., _ph([3.])), "`max` must be rank 0 but is rank 1"),
    (lambda: tf.fake_quant_with_min_max_vars_gradient(_ph(np.ones(8)), X, -1., 3.),
     "gradient and input must be the same size"),
    (lambda: tf.fake_quant_with_min_max_vars_gradient(X, X, _ph([-1.]), 3.), "`min` must be rank 0 but is rank 1"),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel(XPC, _ph(LO[:2]), _ph(HI[:2])),
     "min has incorrect size, expected 4 was 2"),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel(XPC, LO, _ph(HI[:2])),
     "max has incorrect size, expected 4 was 2"),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel(XPC, _ph(-6.), HI), "`min` must be rank 1 but is rank 0"),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel(XPC, _ph([LO]), HI), "`min` must be rank 1 but is rank 2"),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel_gradient(_ph(np.ones((4, 3))), XPC, LO, HI),
     "gradient and input must be the same size"),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel_gradient(XPC, XPC, _ph(LO[:2]), HI),
     "min has incorrect size, expected 4 was 2"),
])
def test_run_time_errors(build, match):
    t = build()
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        run(t)


@pytest.mark.parametrize("build,error,match", [
    (lambda: tf.fake_quant_with_min_max_vars(X, [-1.], 3.), ValueError, "Shape must be rank 0 but is rank 1"),
    (lambda: tf.fake_quant_with_min_max_vars_gradient(np.ones(8, F32), X, -1., 3.), ValueError,
     r"Dimension 0 in both shapes must be equal, but are 8 and 12. Shapes are \[8\] and \[12\]"),
    (lambda: tf.fake_quant_with_min_max_vars_gradient(X, X, -1., [3.]), ValueError,
     "Shapes must be equal rank, but are 0 and 1"),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel(1., [-6.], [6.]), ValueError,
     "Shape must be at least rank 1 but is rank 0"),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel(XPC, LO[:2], HI[:2]), ValueError,
     "Dimensions must be equal, but are 4 and 2"),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel(XPC, -6., HI), ValueError,
     "Shape must be rank 1 but is rank 0"),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel_gradient(XPC, XPC, LO, HI[:2]), ValueError,
     r"Dimension 0 in both shapes must be equal, but are 2 and 4. Shapes are \[2\] and \[4\]"),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel_gradient(np.ones((1, 1, 1, 1, 4), F32),
                                                                  np.ones((1, 1, 1, 1, 4), F32), LO, HI),
     ValueError, "Shape must be at most rank 4 but is rank 5"),
    (lambda: tf.fake_quant_with_min_max_args(tf.constant([1.], tf.float64)), TypeError,
     "Input 'inputs' of 'FakeQuantWithMinMaxArgs' Op has type float64 that does not match expected type of float32"),
    (lambda: tf.fake_quant_with_min_max_vars(X, tf.constant(-1., tf.float64), 3.), TypeError,
     "Input 'min' of 'FakeQuantWithMinMaxVars' Op has type float64"),
    (lambda: tf.fake_quant_with_min_max_args(X, min=tf.constant(-1.)), TypeError, "Expected float for argument 'min'"),
    (lambda: tf.fake_quant_with_min_max_args(X, num_bits="8"), TypeError, "Expected int for argument 'num_bits'"),
    (lambda: tf.fake_quant_with_min_max_vars(X, -1., 2., narrow_range=1), TypeError,
     "Expected bool for argument 'narrow_range' not 1"),
])
def test_graph_construction_errors(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_gradient_ops_have_no_gradient():
    x = tf.constant(X)
    y = tf.fake_quant_with_min_max_args_gradient(tf.ones_like(x), x)
    with pytest.raises(LookupError, match="No gradient defined"):
        tf.gradients(y, x)


def test_docstring_example():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for test in finder.find(fake_quant_ops.fake_quant_with_min_max_args, "fake_quant_with_min_max_args"):
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


# -- tf.quantization.quantize_and_dequantize (QuantizeAndDequantizeV2) ----------------

XQ = np.array([-1.3, -0.5, -0.0039, 0.0, 0.0039, 0.25, 0.7, 1.0, 2.0], F32)

QDQ_CASES = [
    ("own_range", {}, [-1.3070865869522095, -0.5039370059967041, -0.0, 0.0, 0.0, 0.25196850299835205,
                       0.6929134130477905, 1.0078740119934082, 2.0]),
    ("range_given", {"range_given": True}, [-1.0078740119934082, -0.5039370059967041, -0.0, 0.0, 0.0,
                                            0.25196850299835205, 0.7007874250411987, 1.0, 1.0]),
    ("range_given_unsigned", {"range_given": True, "signed_input": False},
     [0.0, 0.0, 0.0, 0.0, 0.003921568859368563, 0.250980406999588, 0.6980392336845398, 1.0, 1.0]),
    ("unsigned", {"signed_input": False}, [-1.301960825920105, -0.501960813999176, -0.0, 0.0, 0.0, 0.250980406999588,
                                           0.6980392336845398, 1.003921627998352, 2.0]),
    ("narrow_b4", {"range_given": True, "narrow_range": True, "num_bits": 4},
     [-1.0, -0.5714285969734192, -0.0, 0.0, 0.0, 0.2857142984867096, 0.7142857313156128, 1.0, 1.0]),
    ("half_up_b4", {"range_given": True, "num_bits": 4, "round_mode": "HALF_UP"},
     [-1.1428571939468384, -0.4285714626312256, 0.0, 0.0, 0.0, 0.2857142984867096, 0.7142857313156128, 1.0, 1.0]),
    ("half_even_b4", {"range_given": True, "num_bits": 4},
     [-1.1428571939468384, -0.5714285969734192, -0.0, 0.0, 0.0, 0.2857142984867096, 0.7142857313156128, 1.0, 1.0]),
    ("one_bit_signed", {"num_bits": 1}, [-1.2999999523162842, -0.0, -0.0, 0.0, 0.0, 0.0, 1.2999999523162842,
                                         1.2999999523162842, 2.5999999046325684]),
]


@pytest.mark.parametrize("kw,want", [c[1:] for c in QDQ_CASES], ids=[c[0] for c in QDQ_CASES])
def test_quantize_and_dequantize_matches_tf(kw, want):
    y = tf.quantization.quantize_and_dequantize(tf.constant(XQ), -1., 1., **kw)
    assert y.name == "QuantizeAndDequantizeV2:0" and y.dtype == tf.float32
    assert [t.name for t in y.op.inputs[1:]] == ["QuantizeAndDequantizeV2/input_min:0",
                                                 "QuantizeAndDequantizeV2/input_max:0"]
    np.testing.assert_array_equal(run(y), np.array(want, F32))


def test_quantize_and_dequantize_float64_per_axis_and_gradient():
    qdq = tf.quantization.quantize_and_dequantize
    x2 = XQ.reshape(3, 3)
    lo, hi = [-1., -0.5, -2.], [1., 0.5, 2.]
    ys = [qdq(tf.constant(XQ, tf.float64), -1., 1.), qdq(x2, lo, hi, range_given=True, axis=1),
          qdq(x2, lo, hi, axis=-1), qdq(x2, lo, hi, axis=0), qdq(np.array([0.5, 1.5, 3.], F32), -1., 1.),
          qdq(np.array([np.nan, 1., -2.], F32), -1., 1.)]
    assert ys[0].dtype == tf.float64 and ys[2].op._attrs["axis"] == 1
    got = run(ys)
    np.testing.assert_array_equal(got[0], [-1.3070866141732282, -0.5039370078740157, -0.0, 0.0, 0.0,
                                           0.25196850393700787, 0.6929133858267716, 1.0078740157480315, 2.0])
    np.testing.assert_array_equal(got[1], np.array([[-1.0078740119934082, -0.5, -0.0],
                                                    [0.0, 0.003937007859349251, 0.25196850299835205],
                                                    [0.7007874250411987, 0.5, 2.0]], F32))
    np.testing.assert_array_equal(got[2], np.array([[-1.2999999523162842, -0.5039370059967041, -0.0],
                                                    [0.0, 0.0, 0.25196850299835205],
                                                    [0.7007812261581421, 1.0, 2.0]], F32))
    np.testing.assert_array_equal(got[3], np.array([[-1.2999999523162842, -0.4976562261581421, -0.0],
                                                    [0.0, 0.003937007859349251, 0.25],
                                                    [0.6929134130477905, 1.0078740119934082, 2.0]], F32))
    np.testing.assert_array_equal(got[4], np.array([0.4960629940032959, 1.5118110179901123, 3.0], F32))
    np.testing.assert_array_equal(got[5], np.array([np.nan, 1.0, -2.0], F32))
    # TF1's gradient for V2 is the identity, also outside the given range
    c = tf.constant(XQ)
    g = tf.gradients(tf.reduce_sum(qdq(c, -1., 1., range_given=True) * np.arange(9, dtype=F32)), c)[0]
    np.testing.assert_array_equal(run(g), np.arange(9, dtype=F32))


@pytest.mark.parametrize("build,match", [
    (lambda: tf.quantization.quantize_and_dequantize(XQ, -1., 1., num_bits=0),
     "num_bits is out of range: 0 with signed_input_ 1"),
    (lambda: tf.quantization.quantize_and_dequantize(XQ, -1., 1., num_bits=62),
     "num_bits is out of range: 62 with signed_input_ 1"),
    (lambda: tf.quantization.quantize_and_dequantize(XQ, -1., 1., num_bits=63, signed_input=False),
     "num_bits is out of range: 63 with signed_input_ 0"),
    (lambda: tf.quantization.quantize_and_dequantize(XQ, 1., -1., range_given=True),
     "Invalid range: input_min 1 > input_max -1"),
    (lambda: tf.quantization.quantize_and_dequantize(XQ[:4].reshape(2, 2), _ph([-1., -1., -1.]), [1., 1.],
                                                     range_given=True, axis=1),
     r"input_min_tensor has incorrect size, was 3 expected 2 to match dim 1 of the input \[3\]"),
    (lambda: tf.quantization.quantize_and_dequantize(XQ.astype(np.float16), -1., 1.), "No OpKernel was registered"),
])
def test_quantize_and_dequantize_run_time_errors(build, match):
    t = build()
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        run(t)


@pytest.mark.parametrize("build,error,match", [
    (lambda: tf.quantization.quantize_and_dequantize(XQ, -1., 1., round_mode="UP"), ValueError,
     "Attr 'round_mode' of 'QuantizeAndDequantizeV2' Op passed string 'UP' not in"),
    (lambda: tf.quantization.quantize_and_dequantize(XQ.reshape(3, 3), [-1., -0.5], [1., 0.5], axis=0), ValueError,
     "Dimensions must be equal, but are 2 and 3"),
    (lambda: tf.quantization.quantize_and_dequantize(XQ.reshape(3, 3), [-1.] * 3, [1.] * 3, axis=2), ValueError,
     "Shape must be at least rank 3 but is rank 2"),
    (lambda: tf.quantization.quantize_and_dequantize(XQ.reshape(3, 3), -1., 1., axis=0), ValueError,
     "Shape must be rank 1 but is rank 0"),
    (lambda: tf.quantization.quantize_and_dequantize(XQ, [-1.], [1.]), ValueError,
     "Shape must be rank 0 but is rank 1"),
    (lambda: tf.quantization.quantize_and_dequantize(tf.placeholder(tf.float32), [-1.], [1.], axis=-1), ValueError,
     "input should have known rank to use negative axis"),
    (lambda: tf.quantization.quantize_and_dequantize(tf.constant([1, 2]), -1, 1), TypeError,
     "Value passed to parameter 'input' has DataType int32 not in list of allowed values"),
])
def test_quantize_and_dequantize_graph_errors(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_quantize_and_dequantize_v2_and_its_masked_gradient_as_tf():
    """TF2's QuantizeAndDequantizeV4: V2's values; the gradient passes only inside the given ranges."""
    x = tf.constant([-3.0, -1.0, -0.4, 0.0, 0.3, 0.77, 1.5, 2.5])
    w = tf.constant([1., 2., 3., 4., 5., 6., 7., 8.])
    lo, hi = tf.constant(-1.0), tf.constant(2.0)
    given = tf.quantization.quantize_and_dequantize_v2(x, lo, hi, range_given=True)
    taken = tf.quantization.quantize_and_dequantize_v2(x, -1.0, 2.0, num_bits=4)
    unsigned = tf.quantization.quantize_and_dequantize_v2(x, -1.0, 2.0, range_given=True, signed_input=False,
                                                          round_mode="HALF_UP", narrow_range=True)
    xm = tf.constant([[-3.0, 1.0], [0.5, 4.0], [2.0, -0.2]])
    per_axis = tf.quantization.quantize_and_dequantize_v2(xm, [-1.0, -2.0], [1.0, 3.0], range_given=True, axis=1)
    assert given.op.type == "QuantizeAndDequantizeV4"
    grads = tf.gradients(tf.reduce_sum(given * w), [x, lo, hi]) + tf.gradients(tf.reduce_sum(taken * w), [x]) + \
        tf.gradients(tf.reduce_sum(per_axis * tf.constant([[1., 2.], [3., 4.], [5., 6.]])), [xm])
    with tf.Session() as sess:
        got = sess.run([given, taken, unsigned, per_axis] + grads)
    np.testing.assert_allclose(got[0], [-2.015748, -1.007874, -0.3937008, 0.0, 0.2992126, 0.7716535, 1.496063, 2.0],
                               rtol=1e-6)
    np.testing.assert_allclose(got[1], [-3.0, -1.125, -0.375, 0.0, 0.375, 0.75, 1.5, 2.625])
    np.testing.assert_allclose(got[2], [0, 0, 0, 0, 0.29803923, 0.7686275, 1.4980392, 2.0], rtol=1e-6)
    np.testing.assert_allclose(got[3], [[-1.007874, 0.992126], [0.503937, 3.0], [1.0, -0.18897638]], rtol=1e-6)
    inside = [0, 2, 3, 4, 5, 6, 7, 0]
    assert got[4].tolist() == inside and got[5] == 0 and got[6] == 0 and got[7].tolist() == inside
    assert got[8].tolist() == [[0, 2], [3, 0], [0, 6]]
