"""dynamic_partition/stitch, invert_permutation, setdiff1d, unravel_index, roll, bincount,
histogram_fixed_width(_bins), searchsorted and cumulative_logsumexp against TF 2.15's figures."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.gradcheck import check_gradients
from tests.ops.harness import check_op, run

D = np.array([[1., 2.], [3., 4.], [5., 6.], [7., 8.]], np.float32)


def test_dynamic_partition_matches_tf():
    with tf.Graph().as_default():
        d = tf.constant(D)
        parts = tf.dynamic_partition(d, [1, 0, 1, 2], 3)
        assert [p.name for p in parts] == ["DynamicPartition:0", "DynamicPartition:1", "DynamicPartition:2"]
        assert all(p.shape.as_list() == [None, 2] for p in parts)
        y = tf.concat([parts[0] * 1., parts[1] * 2., parts[2] * 3.], 0)
        g1 = tf.gradients(tf.reduce_sum(y), [d])
        g2 = tf.gradients(tf.reduce_sum(parts[1] * [[1., 2.], [3., 4.]]), [d])
        got = run(parts + g1 + g2)
        two_d = run(tf.dynamic_partition(tf.constant([[1., 2., 3.], [4., 5., 6.]]), [[0, 1, 0], [1, 1, 0]], 2))
    np.testing.assert_array_equal(got[0], [[3., 4.]])
    np.testing.assert_array_equal(got[1], [[1., 2.], [5., 6.]])
    np.testing.assert_array_equal(got[2], [[7., 8.]])
    np.testing.assert_array_equal(got[3], [[2., 2.], [1., 1.], [2., 2.], [3., 3.]])
    np.testing.assert_array_equal(got[4], [[1., 2.], [0., 0.], [3., 4.], [0., 0.]])
    np.testing.assert_array_equal(two_d[0], [1., 3., 6.])
    np.testing.assert_array_equal(two_d[1], [2., 4., 5.])


def test_dynamic_stitch_matches_tf():
    with tf.Graph().as_default():
        a, b = tf.constant([[1., 2.], [3., 4.]]), tf.constant([[5., 6.]])
        st = tf.dynamic_stitch([[0, 2], [1]], [a, b])
        assert st.name == "DynamicStitch:0" and st.shape.as_list() == [3, 2]
        dup = tf.dynamic_stitch([[0, 2], [2]], [a, b])  # a later index wins; row 1 is never written
        w = tf.constant([[1., 2.], [3., 4.], [5., 6.]])
        scalar = tf.dynamic_stitch([[0, 1], 3], [[1., 2.], 9.])
        assert scalar.shape.as_list() == [4]
        got = run([st, dup, scalar] + tf.gradients(tf.reduce_sum(dup * w), [a, b]))
    np.testing.assert_array_equal(got[0], [[1., 2.], [5., 6.], [3., 4.]])
    np.testing.assert_array_equal(got[1][[0, 2]], [[1., 2.], [5., 6.]])
    np.testing.assert_array_equal(got[2][[0, 1, 3]], [1., 2., 9.])
    np.testing.assert_array_equal(got[3], [[1., 2.], [5., 6.]])  # TF's rule: a plain gather, overwrites ignored
    np.testing.assert_array_equal(got[4], [[5., 6.]])


def test_partition_and_stitch_gradients_match_finite_differences():
    x = D.astype(np.float64)
    check_gradients(lambda d: tf.dynamic_partition(d, [1, 0, 1, 2], 3)[1], x)
    check_gradients(lambda a, b: tf.dynamic_stitch([[0, 2], [1]], [a, b]), x[:2], x[2:3])
    check_gradients(lambda d: tf.roll(d, [1, -1], [0, 1]), x)


@pytest.mark.parametrize("build, want", [
    (lambda: tf.invert_permutation([3, 4, 0, 2, 1]), np.int32([2, 4, 3, 0, 1])),
    (lambda: tf.math.invert_permutation(np.int64([1, 0])), np.int64([1, 0])),
    (lambda: tf.setdiff1d([1, 2, 3, 4, 5, 6], [1, 3, 5]).out, np.int32([2, 4, 6])),
    (lambda: tf.setdiff1d([1, 2, 3, 4, 5, 6], [1, 3, 5]).idx, np.int32([1, 3, 5])),
    (lambda: tf.setdiff1d([4., 1., 4., 2.], [2.], index_dtype=tf.int64).idx, np.int64([0, 1, 2])),
    (lambda: tf.unravel_index([22, 41, 37], [7, 6]), np.int32([[3, 6, 6], [4, 5, 1]])),
    (lambda: tf.unravel_index(1621, [6, 7, 8, 9]), np.int32([3, 1, 4, 1])),
    (lambda: tf.roll([[1., 2., 3.], [4., 5., 6.]], shift=[1, -1], axis=[0, 1]), np.float32([[5, 6, 4], [2, 3, 1]])),
    (lambda: tf.manip.roll([0, 1, 2, 3, 4], 2, 0), np.int32([3, 4, 0, 1, 2])),
    (lambda: tf.roll([[1, 2], [3, 4]], [1, 1], [1, 1]), np.int32([[1, 2], [3, 4]])),
    (lambda: tf.bincount([1, 1, 2, 3, 2, 4, 4, 5]), np.int32([0, 2, 2, 1, 2, 1])),
    (lambda: tf.math.bincount([1, 1, 2], weights=[.5, 1., 2.], minlength=5), np.float32([0, 1.5, 2, 0, 0])),
    (lambda: tf.bincount([1, 5, 2], maxlength=3), np.int32([0, 1, 1])),
    (lambda: tf.bincount(tf.zeros([0], tf.int32), minlength=2), np.int32([0, 0])),
    (lambda: tf.bincount([3, 1], dtype=tf.float64), np.float64([0, 1, 0, 1])),
    (lambda: tf.histogram_fixed_width([-1.0, 0.0, 1.5, 2.0, 5.0, 15], [0.0, 5.0], nbins=5), np.int32([2, 1, 1, 0, 2])),
    (lambda: tf.histogram_fixed_width([1, 2, 3], [0, 4], nbins=2, dtype=tf.int64), np.int64([1, 2])),
    (lambda: tf.histogram_fixed_width_bins([-1.0, 0.0, 1.5, 2.0, 5.0, 15], [0.0, 5.0], nbins=5),
     np.int32([0, 0, 1, 2, 4, 4])),
    (lambda: tf.searchsorted([[0., 3., 9., 9., 10.], [1., 2., 3., 4., 5.]], [[2., 4., 9.], [0., 2., 6.]]),
     np.int32([[1, 2, 2], [0, 1, 5]])),
    (lambda: tf.searchsorted([[0., 3., 9., 9., 10.], [1., 2., 3., 4., 5.]], [[2., 4., 9.], [0., 2., 6.]],
                             side="right"), np.int32([[1, 2, 4], [0, 2, 5]])),
    (lambda: tf.searchsorted([1, 3, 5], [0, 3, 6], out_type=tf.int64), np.int64([0, 1, 3])),
    (lambda: tf.math.cumulative_logsumexp(tf.constant([[1., 2.], [3., 4.]], tf.float64), axis=1),
     np.array([[1.0, 2.313261687518223], [3.0, 4.313261687518223]])),
], ids=lambda v: "" if callable(v) else None)
def test_values_match_tf(build, want):
    with tf.Graph().as_default():
        check_op(build, want, shape=None)


CLS_X = np.float32([1., 2., 3., 4.])
CLS_W = np.float32([1., -2., 3., .5])


@pytest.mark.parametrize("kw, value, grad", [
    ({}, [1.0, 2.3132617473602295, 3.4076061248779297, 4.440189838409424],
     [0.7482380867004395, -0.6843596696853638, 2.114163875579834, 0.3219570815563202]),
    ({"exclusive": True}, [-np.inf, 1.0, 2.3132617473602295, 3.4076061248779297],
     [-1.148160457611084, 2.315539836883545, 0.33262041211128235, 0.0]),
    ({"reverse": True}, [4.440189361572266, 4.4076056480407715, 4.31326150894165, 4.0],
     [0.03205861523747444, -0.09291686117649078, 0.5542502403259277, 2.006608009338379]),
    ({"exclusive": True, "reverse": True}, [4.4076056480407715, 4.31326150894165, 4.0, -np.inf],
     [0.0, 0.09003060311079025, -0.29315435886383057, 2.2031238079071045]),
])
def test_cumulative_logsumexp_matches_tf(kw, value, grad):
    with tf.Graph().as_default():
        x = tf.constant(CLS_X)
        y = tf.math.cumulative_logsumexp(x, **kw)
        got, (g,) = run([y, tf.gradients(tf.reduce_sum(y * CLS_W), [x])])
    np.testing.assert_allclose(got, np.float32(value), rtol=1e-6)
    np.testing.assert_allclose(g, np.float32(grad), rtol=1e-5, atol=1e-6)
    check_gradients(lambda t: tf.math.cumulative_logsumexp(t, **kw)[1:3] if kw.get("exclusive") else
                    tf.math.cumulative_logsumexp(t, **kw), CLS_X.astype(np.float64))


def test_static_shapes():
    with tf.Graph().as_default():
        assert tf.unravel_index([22, 41, 37], [7, 6]).shape.as_list() == [2, 3]
        assert tf.bincount([1, 1, 2, 3, 2, 4, 4, 5]).shape.as_list() == [6]
        assert tf.bincount(tf.placeholder(tf.int32, [None])).shape.as_list() == [None]
        assert tf.histogram_fixed_width([1., 2.], [0., 5.], nbins=5).shape.as_list() == [5]
        assert tf.searchsorted([[1., 2.]], [[1., 2., 3.]]).shape.as_list() == [1, 3]
        assert tf.setdiff1d([1, 2], [1]).out.shape.as_list() == [None]


@pytest.mark.parametrize("build, message", [
    (lambda: tf.dynamic_partition([1., 2.], [0, 3], 2)[0], r"partitions\[1\] = 3 is not in \[0, 2\)"),
    (lambda: tf.dynamic_stitch([[0, -1]], [[1., 2.]]), r"indices\[1\] is out of range"),
    (lambda: tf.invert_permutation([0, 0, 1]), "is not a permutation"),
    (lambda: tf.unravel_index([50], [7, 6]), "index is out of bound as with dims"),
    (lambda: tf.bincount([1, -1]), "Input arr must be non-negative!"),
    (lambda: tf.histogram_fixed_width([1.], [5., 0.], nbins=2),
     r"value_range should satisfy value_range\[0\] < value_range\[1\]"),
    (lambda: tf.searchsorted([[1., 2.], [3., 4.]], [[1.]]), "Leading dim_size of both tensors must match"),
    (lambda: tf.roll([1, 2], 1, 1), "axis 1 is out of range"),
])
def test_bad_values_are_invalid_argument_naming_the_op(build, message):
    with tf.Graph().as_default():
        t = build()
        with pytest.raises(tf.errors.InvalidArgumentError, match=message) as info:
            run(t)
        assert t.op.name in str(info.value)


def test_bad_arguments_at_graph_time_match_tf():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 2 and 3"):
            tf.dynamic_partition([1., 2.], [0, 1, 1], 2)
        with pytest.raises(ValueError, match="Requires nbins > 0: 0"):
            tf.histogram_fixed_width([1.], [0., 5.], nbins=0)
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 2 and 1"):
            tf.roll([[1, 2]], [1, 1], [0])
        with pytest.raises(ValueError, match="side"):
            tf.searchsorted([1, 2], [1], side="middle")
