"""tf.nn losses and helpers added beside the core ones: values against TF 2.15
(compat.v1) figures, finite-difference gradients, and TF1's errors."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.gradcheck import check_gradients
from tests.ops.harness import check_op, run

TARGETS = np.array([[0.0, 0.5, 1.0, 2.0, 3.5]], np.float32)
LOG_INPUT = np.array([[-1.0, 0.2, 0.5, 1.0, 1.3]], np.float32)
Z = np.array([[0.0, 1.0, 0.3, 1.0]], np.float32)
X = np.array([[-2.0, 0.5, 3.0, -40.0]], np.float32)
PEL = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
R64 = np.random.default_rng(2)

CASES = [
    ("log_poisson", lambda: tf.nn.log_poisson_loss(TARGETS, LOG_INPUT), "log_poisson_loss/sub:0",
     [[0.36787945, 1.1214027, 1.1487212, 0.71828175, -0.8807032]]),
    ("log_poisson_full", lambda: tf.nn.log_poisson_loss(TARGETS, LOG_INPUT, compute_full_loss=True),
     "log_poisson_loss/add_1:0", [[0.36787945, 1.1214027, 1.1487212, 1.3700882, 1.5492871]]),
    ("weighted_xent", lambda: tf.nn.weighted_cross_entropy_with_logits(labels=Z, logits=X, pos_weight=2.5),
     "logistic_loss:0", [[0.12692809, 1.1851925, 2.1704516, 100.0]]),
    ("weighted_xent_targets", lambda: tf.nn.weighted_cross_entropy_with_logits(targets=Z, logits=X, pos_weight=0.5),
     "logistic_loss:0", [[0.12692809, 0.2370385, 2.1412992, 20.0]]),
    ("average_loss", lambda: tf.nn.compute_average_loss(PEL), "div_no_nan:0", 7.0),
    ("average_loss_weighted", lambda: tf.nn.compute_average_loss(PEL, sample_weight=[[1.0], [0.5], [0.0]]),
     "div_no_nan:0", 2.1666667),
    ("average_loss_global", lambda: tf.nn.compute_average_loss(PEL[:, 0], global_batch_size=4), "div_no_nan:0", 2.25),
    ("scale_regularization", lambda: tf.nn.scale_regularization_loss([1.0, 2.5]), "truediv:0", 3.5),
    ("zero_fraction", lambda: tf.nn.zero_fraction([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]]), "zero_fraction/fraction:0",
     0.6666667),
    ("zero_fraction_int", lambda: tf.math.zero_fraction(np.array([1, 0, 3], np.int32)), "zero_fraction/fraction:0",
     0.33333334),
]


@pytest.mark.parametrize("build,name,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_values_and_names_match_tf(build, name, expected):
    t = build()
    assert t.name == name
    check_op(lambda: t, np.asarray(expected, np.float32), rtol=2e-6)


def test_weighted_cross_entropy_gradients_match_tf():
    a, b = tf.constant(X), tf.constant(Z)
    g = tf.gradients(tf.nn.weighted_cross_entropy_with_logits(labels=b, logits=a, pos_weight=2.5), [a, b])
    got = run(g)
    np.testing.assert_allclose(got[0], [[0.11920291, -0.9438517, 0.6312325, -2.5]], rtol=1e-6)
    np.testing.assert_allclose(got[1], [[5.190392, 0.21111548, -2.927119, 100.0]], rtol=1e-6)


def test_loss_gradients_match_finite_differences():
    x, z = R64.standard_normal((3, 4)), R64.uniform(0, 1, (3, 4))
    check_gradients(lambda a, b: tf.nn.weighted_cross_entropy_with_logits(labels=b, logits=a, pos_weight=1.7), x, z)
    check_gradients(lambda t, li: tf.nn.log_poisson_loss(t, li, compute_full_loss=True), z * 3, x)
    check_gradients(lambda p, w: tf.nn.compute_average_loss(p, sample_weight=w), x, z[:, :1])


def test_approx_top_k_is_exact_top_k():
    v = np.array([[3.0, 1.0, 4.0, 1.5], [9.0, 2.0, 6.0, 5.0]], np.float32)
    values, indices = tf.nn.approx_max_k(v, 2)  # TF 2.15: [[4, 3], [9, 6]], [[2, 0], [0, 2]]
    got = run([values, indices])
    np.testing.assert_array_equal(got[0], [[4.0, 3.0], [9.0, 6.0]])
    np.testing.assert_array_equal(got[1], [[2, 0], [0, 2]])
    values, indices = tf.math.approx_min_k(v, 1, reduction_dimension=0)
    got = run([values, indices])
    np.testing.assert_array_equal(got[0], [[3.0, 1.0, 4.0, 1.5]])
    np.testing.assert_array_equal(got[1], [[0, 0, 0, 0]])
    check_gradients(lambda t: tf.nn.approx_min_k(t, 2, reduction_dimension=0)[0], R64.standard_normal((4, 3)))


@pytest.mark.parametrize("build,error,match", [
    (lambda: tf.nn.log_poisson_loss(TARGETS[:, :3], LOG_INPUT), ValueError,
     r"`log_input` and `targets` must have the same shape, received \(\(1, 5\) vs \(1, 3\)\)"),
    (lambda: tf.nn.weighted_cross_entropy_with_logits(labels=Z[:, :2], logits=X, pos_weight=0.5), ValueError,
     r"`logits` and `labels` must have the same shape, received \(\(1, 4\) vs \(1, 2\)\)"),
    (lambda: tf.nn.compute_average_loss(3.0), ValueError, "Expected a tensor with at least rank 1"),
    (lambda: tf.nn.compute_average_loss(PEL[:, 0], global_batch_size=4.0), TypeError,
     "global_batch_size must be an integer"),
    (lambda: tf.nn.compute_average_loss(PEL[:, 0], global_batch_size=-4), tf.errors.InvalidArgumentError,
     "global_batch_size must be non-negative"),
    (lambda: tf.nn.quantized_relu_x(1, 2, 3, 4), NotImplementedError, "quantized_relu_x: quantized dtypes"),
    (lambda: tf.nn.quantized_conv2d(1, 2, 3, 4, 5, 6, [1] * 4, "SAME"), NotImplementedError, "quantized_conv2d"),
    (lambda: tf.nn.quantized_avg_pool(1, 2, 3, [1] * 4, [1] * 4, "SAME"), NotImplementedError, "quantized_avg_pool"),
    (lambda: tf.nn.quantized_max_pool(1, 2, 3, [1] * 4, [1] * 4, "SAME"), NotImplementedError, "quantized_max_pool"),
])
def test_bad_input(build, error, match):
    with pytest.raises(error, match=match):
        build()
