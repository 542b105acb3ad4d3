"""dilation2d / erosion2d and their gradients against TF 2.15 (compat.v1)
figures and finite differences; TF1's errors for bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.gradcheck import check_gradients
from tests.ops.harness import run

RNG = np.random.RandomState(5)
X = np.round(RNG.randn(1, 5, 6, 2), 1).astype(np.float32)
F = np.round(RNG.randn(2, 3, 2), 1).astype(np.float32)

CASES = [
    ("dilation_same", ([1, 1, 1, 1], [1, 1, 1, 1], "SAME", False), "Dilation2D:0",
     [3.0, 1.4000001, 2.2, 3.4, 2.0, 2.7, 2.4, 2.6, 0.0, 1.1, 0.2000001, 0.7, -0.6, 1.5, 2.2, 1.9, 1.3000001, 1.0999999,
      1.2, 2.9, 2.0, 1.7, 1.2, 1.0, 0.8, 3.1, 1.4000001, 2.4, 1.4000001, 1.9, 0.9, 2.8, 1.3000001, 2.1, 1.5, 1.3, 0.5,
      1.7, 0.9, 2.3, 2.6, 2.7, 0.9, 3.8, 1.7, 3.1, 1.1, 2.3, 2.0, 0.2, 1.1999999, 0.9, 1.0, 1.2, 0.5, 2.3, 1.3, 2.2,
      0.5, 3.3],
     30.50847489, [-0.1016949, 2.6271186, -0.7796609, -0.4237288, 2.4406781, 1.0338984, -2.0677967, 0.0, 0.0,
                   -1.8305085, 0.0, -0.898305]),
    ("dilation_valid_strided_rated", ([1, 2, 1, 1], [1, 1, 2, 1], "VALID", False), "Dilation2D:0",
     [0.8000001, 2.7, 2.0, 1.4000001, 1.4000001, 2.8, 1.1, 2.0],
     4.57142862, [-0.4285714, 0.0, 0.0, 0.0, 0.0, 0.0, -0.1428571, 0.0, 0.0, -0.8571429, 0.0, 1.4285715]),
    ("erosion_same_strided", ([1, 2, 2, 1], [1, 1, 1, 1], "SAME", True), "erosion2d/Neg_1:0",
     [-1.5, -1.8, -1.3, -1.9, -1.6, -1.8, -1.2, -1.5, -1.2, -1.6, -0.3, -1.6, -2.5, -1.6, -1.3000001, -2.2, 1.8, -0.7],
     9.52941197, [0.0, 0.8235294, 1.7647059, 0.0, 0.3529412, 0.0, -0.7058824, 0.0, 0.0, -1.0, -0.882353,
                  -0.3529413]),
]


def morph(x, f, strides, rates, padding, erosion):
    if erosion:
        return tf.nn.erosion2d(x, f, strides, rates, padding)
    return tf.nn.dilation2d(x, f, strides, rates, padding)


@pytest.mark.parametrize("args,name,y,abs_grad_x,grad_f", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_values_and_gradients_match_tf(args, name, y, abs_grad_x, grad_f):
    x, f = tf.constant(X), tf.constant(F)
    out = morph(x, f, *args)
    assert out.name == name
    weights = np.linspace(-1, 1, int(np.prod(out.shape.as_list()))).reshape(out.shape.as_list()).astype(np.float32)
    gx, gf = tf.gradients(tf.reduce_sum(out * weights), [x, f])
    got_y, got_gx, got_gf = run([out, gx, gf])
    np.testing.assert_allclose(got_y.ravel(), y, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.abs(got_gx).sum(), abs_grad_x, rtol=1e-6)
    np.testing.assert_allclose(got_gx.sum(), 0.0, atol=1e-5)  # the weights sum to 0; each reaches one input
    np.testing.assert_allclose(got_gf.ravel(), grad_f, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("args", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_gradients_match_finite_differences(args):
    rng = np.random.default_rng(0)
    x, f = rng.standard_normal((2, 5, 6, 2)), rng.standard_normal((2, 3, 2))
    check_gradients(lambda a, b: morph(a, b, *args), x, f)


def test_v2_argument_names_and_empty_output():
    y = tf.nn.dilation2d(X, filters=F, strides=[1, 1, 1, 1], dilations=[1, 1, 1, 1], padding="VALID")
    assert y.shape.as_list() == [1, 4, 4, 2]
    y = tf.nn.dilation2d(X, F, [1, 1, 1, 1], [1, 3, 3, 1], "VALID")
    assert y.shape.as_list() == [1, 2, 0, 2] and run(y).shape == (1, 2, 0, 2)


@pytest.mark.parametrize("build,error,match", [
    (lambda: tf.nn.dilation2d(X[0], F, [1, 1, 1, 1], [1, 1, 1, 1], "SAME"), ValueError,
     "Shape must be rank 4 but is rank 3"),
    (lambda: tf.nn.dilation2d(X, F[0], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"), ValueError,
     "Shape must be rank 3 but is rank 2"),
    (lambda: tf.nn.dilation2d(X, F[:, :, :1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"), ValueError,
     "Dimensions must be equal, but are 2 and 1"),
    (lambda: tf.nn.dilation2d(X, F, [1, 1, 1], [1, 1, 1, 1], "SAME"), ValueError,
     "Attr 'strides' of 'Dilation2D' Op passed list of length 3 less than minimum 4"),
    (lambda: tf.nn.dilation2d(X, F, [2, 1, 1, 1], [1, 1, 1, 1], "SAME"), tf.errors.UnimplementedError,
     "Stride is only supported across spatial dimensions"),
    (lambda: tf.nn.dilation2d(X, F, [1, 1, 1, 1], [1, 1, 1, 1], "FULL"), ValueError,
     "Attr 'padding' of 'Dilation2D' Op passed string 'FULL'"),
])
def test_bad_arguments(build, error, match):
    with pytest.raises(error, match=match):
        build()
