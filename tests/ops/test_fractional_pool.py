"""fractional_max_pool / fractional_avg_pool: values and gradients against
TF 2.15 (compat.v1) figures where the regions are deterministic, the
structure of random pooling sequences, finite-difference gradients, errors."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.gradcheck import check_gradients
from tests.ops.harness import run

X = np.round(np.random.RandomState(7).randn(1, 6, 4, 2), 1).astype(np.float32)

CASES = [
    ("max", tf.nn.fractional_max_pool, [1.0, 2.0, 2.0, 1.0], False, [0, 2, 4, 6], [0, 2, 4],
     [1.7, 0.6, 0.5, 0.0, 0.6, 0.1, 1.7, 2.0, 0.8, 0.5, 1.8, 2.2],
     [-1.0, 0.0, 0.0, 0.0, 0.0, -0.4545455, 0.0, 0.0, 0.0, -0.8181818, 0.0, 0.0, -0.6363636, 0.0, 0.0, 0.0,
      -0.2727273, -0.0909091, 0.0, 0.0, 0.0909091, 0.0, 0.0, 0.2727273, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      0.6363636, 0.0, 0.0, 0.0, 0.0, 0.8181818, 0.0, 0.4545455, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
    ("max_overlapping", tf.nn.fractional_max_pool, [1.0, 2.0, 2.0, 1.0], True, [0, 2, 4, 6], [0, 2, 4],
     [1.7, 0.6, 1.7, 2.0, 1.7, 1.5, 1.8, 2.0, 0.8, 1.5, 1.8, 2.2],
     [-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.8181818, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      -0.9090909, 0.0, 0.0, -0.1818182, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5454545,
      0.9090909, 0.0, 0.4545455, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
    ("avg_overlapping", tf.nn.fractional_avg_pool, [1.0, 3.0, 2.0, 1.0], True, [0, 3, 6], [0, 2, 4],
     [0.4166667, -0.45, 0.1375, -0.0875, -0.5222222, -0.6333333, -0.0666667, 0.3833334],
     [-0.0833333, -0.0595238, -0.0833333, -0.0595238, -0.1369048, -0.077381, -0.0535714, -0.0178571, -0.0833333,
      -0.0595238, -0.0833333, -0.0595238, -0.1369048, -0.077381, -0.0535714, -0.0178571, -0.0833333, -0.0595238,
      -0.0833333, -0.0595238, -0.1369048, -0.077381, -0.0535714, -0.0178571, -0.0674603, -0.0119048, -0.0674603,
      -0.0119048, -0.0019841, 0.1369048, 0.0654762, 0.1488095, 0.015873, 0.0476191, 0.015873, 0.0476191, 0.1349206,
      0.2142857, 0.1190476, 0.1666667, 0.015873, 0.0476191, 0.015873, 0.0476191, 0.1349206, 0.2142857, 0.1190476,
      0.1666667]),
    ("avg", tf.nn.fractional_avg_pool, [1.0, 3.0, 2.0, 1.0], False, [0, 3, 6], [0, 2, 4],
     [0.5, -0.1833333, 0.1333333, -0.2333333, -0.4666666, -0.8333333, -0.0666667, 0.3833334],
     [-0.1666667, -0.1190476, -0.1666667, -0.1190476, -0.0714286, -0.0238095, -0.0714286, -0.0238095, -0.1666667,
      -0.1190476, -0.1666667, -0.1190476, -0.0714286, -0.0238095, -0.0714286, -0.0238095, -0.1666667, -0.1190476,
      -0.1666667, -0.1190476, -0.0714286, -0.0238095, -0.0714286, -0.0238095, 0.0238095, 0.0714286, 0.0238095,
      0.0714286, 0.1190476, 0.1666667, 0.1190476, 0.1666667, 0.0238095, 0.0714286, 0.0238095, 0.0714286, 0.1190476,
      0.1666667, 0.1190476, 0.1666667, 0.0238095, 0.0714286, 0.0238095, 0.0714286, 0.1190476, 0.1666667, 0.1190476,
      0.1666667]),
]


@pytest.mark.parametrize("fn,ratio,overlapping,rows,cols,out,grad", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_even_regions_match_tf(fn, ratio, overlapping, rows, cols, out, grad):
    x = tf.constant(X)
    y, row_seq, col_seq = fn(x, ratio, overlapping=overlapping)
    assert row_seq.dtype == tf.int64 and y.shape.as_list() == [1, len(rows) - 1, len(cols) - 1, 2]
    weights = np.linspace(-1, 1, int(np.prod(y.shape.as_list()))).reshape(y.shape.as_list()).astype(np.float32)
    g = tf.gradients(tf.reduce_sum(y * weights), x)[0]
    got = run([y, row_seq, col_seq, g])
    np.testing.assert_allclose(got[0].ravel(), out, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got[1], rows)
    np.testing.assert_array_equal(got[2], cols)
    np.testing.assert_allclose(got[3].ravel(), grad, rtol=1e-5, atol=1e-6)


def test_integer_average_truncates_as_tf():
    y = tf.nn.fractional_avg_pool(X.astype(np.int32) * 3, [1.0, 2.0, 2.0, 1.0])[0]
    np.testing.assert_array_equal(run(y)[0, :, :, 0], [[1, 0], [0, 1], [-2, 0]])


@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_random_regions_are_valid_and_outputs_follow_them(pseudo_random, overlapping):
    x = np.random.default_rng(1).standard_normal((2, 10, 7, 3)).astype(np.float32)
    y, rows, cols = tf.nn.fractional_max_pool(x, [1.0, 1.44, 1.73, 1.0], pseudo_random=pseudo_random,
                                              overlapping=overlapping, seed=3, seed2=4)
    assert y.shape.as_list() == [2, 6, 4, 3]
    got_y, got_rows, got_cols = run([y, rows, cols])
    for seq, size, n in ((got_rows, 10, 6), (got_cols, 7, 4)):
        assert seq[0] == 0 and seq[-1] == size and len(seq) == n + 1
        assert set(np.diff(seq).tolist()) <= {size // n, size // n + 1}
    extra = 1 if overlapping else 0
    for i in range(6):
        for j in range(4):
            region = x[:, got_rows[i]:min(got_rows[i + 1] + extra, 10), got_cols[j]:min(got_cols[j + 1] + extra, 7)]
            np.testing.assert_array_equal(got_y[:, i, j], region.max(axis=(1, 2)))


def test_deterministic_regions_repeat_and_random_ones_vary():
    x = np.zeros((1, 50, 50, 1), np.float32)
    _, rows, _ = tf.nn.fractional_avg_pool(x, [1.0, 1.5, 1.5, 1.0], deterministic=True, seed=5, seed2=6)
    _, free_rows, _ = tf.nn.fractional_avg_pool(x, [1.0, 1.5, 1.5, 1.0])
    with tf.Session() as sess:
        fixed = {tuple(sess.run(rows)) for _ in range(3)}
        varying = {tuple(sess.run(free_rows)) for _ in range(5)}
    assert len(fixed) == 1 and len(varying) > 1


@pytest.mark.parametrize("fn", [tf.nn.fractional_max_pool, tf.nn.fractional_avg_pool])
@pytest.mark.parametrize("overlapping", [False, True])
def test_gradients_match_finite_differences(fn, overlapping):
    x = np.random.default_rng(2).standard_normal((1, 7, 5, 2))
    check_gradients(lambda t: fn(t, [1.0, 1.4, 1.6, 1.0], overlapping=overlapping, deterministic=True, seed=1,
                                 seed2=1)[0], x)


@pytest.mark.parametrize("build,error,match", [
    (lambda: tf.nn.fractional_max_pool(X, [2.0, 1.5, 1.5, 1.0]), tf.errors.UnimplementedError,
     "not yet supported on the batch nor channel dimension"),
    (lambda: tf.nn.fractional_max_pool(X, [1.0, 0.5, 1.5, 1.0]), ValueError,
     "pooling_ratio cannot be smaller than 1, got: 0.5"),
    (lambda: tf.nn.fractional_max_pool(X[0], [1.0, 1.5, 1.5, 1.0]), ValueError, "Shape must be rank 4 but is rank 3"),
    (lambda: tf.nn.fractional_max_pool(X, [1.0, 1.5, 1.5]), ValueError,
     "Attr 'pooling_ratio' of 'FractionalMaxPool' Op passed list of length 3 less than minimum 4"),
    (lambda: tf.nn.fractional_avg_pool(X.astype(np.float16), [1.0, 2.0, 2.0, 1.0]), TypeError,
     "'value' has DataType float16 not in list of allowed values"),
])
def test_bad_arguments(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_ratio_above_the_input_size_fails_at_run_time():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Pooling ratio is higher than input dimension size for "
                                                             "dimension 1. Input dim size: 6 pooling ratio: 8"):
        run(tf.nn.fractional_max_pool(X, [1.0, 8.0, 1.5, 1.0])[0])
