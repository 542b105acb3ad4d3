"""Segment, scatter and partition ops: values and gradients against TF 2.15's figures,
gradients against finite differences, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.gradcheck import check_gradients
from tests.ops.harness import check_op, run

DATA = np.array([[1., 2, 3], [4, 5, 6], [-1, 7, 0], [3, 2, 1], [2, 2, 5]], np.float32)
IDS = np.array([0, 0, 2, 2, 3], np.int32)
UIDS = np.array([2, 0, 2, -1, 0], np.int32)
IDX, SIDS = np.array([0, 2, 2, 4], np.int32), np.array([0, 0, 1, 3], np.int32)
W = np.arange(1, 13, dtype=np.float32).reshape(4, 3)
LO, HI = -3.4028234663852886e+38, 3.4028234663852886e+38

# name -> (build(x), value, d(sum(y * W))/dx), all figures from TF 2.15.
SEGMENT_CASES = {
    "segment_sum": (lambda x: tf.math.segment_sum(x, IDS),
                    [[5, 7, 9], [0, 0, 0], [2, 9, 1], [2, 2, 5]],
                    [[1, 2, 3], [1, 2, 3], [7, 8, 9], [7, 8, 9], [10, 11, 12]]),
    "segment_mean": (lambda x: tf.segment_mean(x, IDS),
                     [[2.5, 3.5, 4.5], [0, 0, 0], [1, 4.5, 0.5], [2, 2, 5]],
                     [[.5, 1, 1.5], [.5, 1, 1.5], [3.5, 4, 4.5], [3.5, 4, 4.5], [10, 11, 12]]),
    "segment_max": (lambda x: tf.segment_max(x, IDS),
                    [[4, 5, 6], [0, 0, 0], [3, 7, 1], [2, 2, 5]],
                    [[0, 0, 0], [1, 2, 3], [0, 8, 0], [7, 0, 9], [10, 11, 12]]),
    "segment_min": (lambda x: tf.math.segment_min(x, IDS),
                    [[1, 2, 3], [0, 0, 0], [-1, 2, 0], [2, 2, 5]],
                    [[1, 2, 3], [0, 0, 0], [7, 0, 9], [0, 8, 0], [10, 11, 12]]),
    "segment_prod": (lambda x: tf.segment_prod(x, IDS),
                     [[4, 10, 18], [1, 1, 1], [-3, 14, 0], [2, 2, 5]],
                     [[4, 10, 18], [1, 4, 9], [21, 16, 9], [-7, 56, 0], [10, 11, 12]]),
    "unsorted_segment_sum": (lambda x: tf.math.unsorted_segment_sum(x, UIDS, 4),
                             [[6, 7, 11], [0, 0, 0], [0, 9, 3], [0, 0, 0]],
                             [[7, 8, 9], [1, 2, 3], [7, 8, 9], [0, 0, 0], [1, 2, 3]]),
    "unsorted_segment_mean": (lambda x: tf.unsorted_segment_mean(x, UIDS, 4),
                              [[3, 3.5, 5.5], [0, 0, 0], [0, 4.5, 1.5], [0, 0, 0]],
                              [[3.5, 4, 4.5], [.5, 1, 1.5], [3.5, 4, 4.5], [0, 0, 0], [.5, 1, 1.5]]),
    "unsorted_segment_max": (lambda x: tf.unsorted_segment_max(x, UIDS, 4),
                             [[4, 5, 6], [LO] * 3, [1, 7, 3], [LO] * 3],
                             [[7, 0, 9], [1, 2, 3], [0, 8, 0], [0, 0, 0], [0, 0, 0]]),
    "unsorted_segment_min": (lambda x: tf.math.unsorted_segment_min(x, UIDS, 4),
                             [[2, 2, 5], [HI] * 3, [-1, 2, 0], [HI] * 3],
                             [[0, 8, 0], [0, 0, 0], [7, 0, 9], [0, 0, 0], [1, 2, 3]]),
    "unsorted_segment_prod": (lambda x: tf.unsorted_segment_prod(x, UIDS, 4),
                              [[8, 10, 30], [1, 1, 1], [-1, 14, 0], [1, 1, 1]],
                              [[-7, 56, 0], [2, 4, 15], [7, 16, 27], [0, 0, 0], [4, 10, 18]]),
    "unsorted_segment_sqrt_n": (lambda x: tf.math.unsorted_segment_sqrt_n(x, UIDS, 4),
                                [[4.242640972137451, 4.949747562408447, 7.778174877166748], [0, 0, 0],
                                 [0, 6.363961219787598, 2.1213204860687256], [0, 0, 0]],
                                [[4.949747562408447, 5.656854152679443, 6.363961219787598],
                                 [0.7071067690849304, 1.4142135381698608, 2.1213204860687256],
                                 [4.949747562408447, 5.656854152679443, 6.363961219787598], [0, 0, 0],
                                 [0.7071067690849304, 1.4142135381698608, 2.1213204860687256]]),
    "sparse_segment_sum": (lambda x: tf.sparse.segment_sum(x, IDX, SIDS),
                           [[0, 9, 3], [-1, 7, 0], [0, 0, 0], [2, 2, 5]],
                           [[1, 2, 3], [0, 0, 0], [5, 7, 9], [0, 0, 0], [10, 11, 12]]),
    "sparse_segment_mean": (lambda x: tf.sparse_segment_mean(x, IDX, SIDS),
                            [[0, 4.5, 1.5], [-1, 7, 0], [0, 0, 0], [2, 2, 5]],
                            [[.5, 1, 1.5], [0, 0, 0], [4.5, 6, 7.5], [0, 0, 0], [10, 11, 12]]),
    "sparse_segment_sqrt_n": (lambda x: tf.sparse.segment_sqrt_n(x, IDX, SIDS),
                              [[0, 6.3639607429504395, 2.1213202476501465], [-1, 7, 0], [0, 0, 0], [2, 2, 5]],
                              [[0.7071067690849304, 1.4142135381698608, 2.1213202476501465], [0, 0, 0],
                               [4.707106590270996, 6.41421365737915, 8.121320724487305], [0, 0, 0],
                               [10, 11, 12]]),
}


@pytest.mark.parametrize("name", sorted(SEGMENT_CASES))
def test_segment_values_and_gradients_match_tf(name):
    build, value, grad = SEGMENT_CASES[name]
    with tf.Graph().as_default():
        x = tf.constant(DATA)
        y = build(x)
        (g,) = tf.gradients(tf.reduce_sum(y * W), [x])
        got, got_g = run([y, g])
    np.testing.assert_allclose(got, np.array(value, np.float32), rtol=1e-6)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got_g, np.array(grad, np.float32), rtol=1e-6)


# Empty unsorted max/min segments hold ±3.4e38, too large for finite differences.
FD_BUILDS = {
    "unsorted_segment_max": lambda x: tf.unsorted_segment_max(x, [2, 0, 1, -1, 0], 3),
    "unsorted_segment_min": lambda x: tf.unsorted_segment_min(x, [2, 0, 1, -1, 0], 3),
}


@pytest.mark.parametrize("name", sorted(SEGMENT_CASES))
def test_segment_gradients_match_finite_differences(name):
    build = FD_BUILDS.get(name, SEGMENT_CASES[name][0])
    x = DATA.astype(np.float64) + np.linspace(0, 0.3, DATA.size).reshape(DATA.shape)  # no ties, no zeros
    check_gradients(build, x)


def test_segment_static_shapes():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [5, 3])
        assert tf.segment_sum(x, IDS).shape.as_list() == [None, 3]
        assert tf.unsorted_segment_sum(x, UIDS, 4).shape.as_list() == [4, 3]
        assert tf.sparse.segment_sum(x, IDX, SIDS).shape.as_list() == [None, 3]
        assert tf.sparse.segment_sum(x, IDX, SIDS, num_segments=5).shape.as_list() == [5, 3]
        assert tf.unsorted_segment_sum(x, tf.placeholder(tf.int32, [5]), tf.placeholder(tf.int32, [])) \
            .shape.as_list() == [None, 3]
        with pytest.raises(ValueError):
            tf.segment_sum(x, [[0]])


def test_segment_int_and_empty_segments_match_tf():
    assert check_op(lambda: tf.segment_sum(np.array([1, 2, 3], np.int32), [0, 0, 1]), np.int32([3, 3]),
                    shape=None) is not None
    check_op(lambda: tf.segment_max(np.array([1, 2, 3], np.int32), [0, 0, 2]), np.int32([2, 0, 3]), shape=None)
    check_op(lambda: tf.unsorted_segment_max(np.array([1, 2, 3], np.int32), [0, 0, 2], 4),
             np.int32([2, -2147483648, 3, -2147483648]))
    check_op(lambda: tf.unsorted_segment_sum(np.arange(12.).reshape(2, 3, 2), [[0, 1, 0], [1, 1, 2]], 3),
             np.array([[4., 6.], [16., 19.], [10., 11.]]))


@pytest.mark.parametrize("build, message", [
    (lambda: tf.segment_sum(DATA, [0, 1, 0, 2, 2]), r"not increasing: segment_ids\[2\] = 0 follows 1"),
    (lambda: tf.segment_mean(DATA, [-1, 0, 0, 1, 1]), r"Segment id -1 out of range .*segment_ids\[0\] = -1"),
    (lambda: tf.segment_sum(DATA, [0, 0, 1]), "segment_ids should be the same size as dimension 0 of input"),
    (lambda: tf.unsorted_segment_sum(DATA, [0, 1, 5, 2, 2], 3), r"segment_ids\[2\] = 5 is out of range \[0, 3\)"),
    (lambda: tf.sparse.segment_sum(DATA, [0, 9], [0, 1]), r"indices\[1\] == 9 out of range \[0, 5\)"),
    (lambda: tf.sparse.segment_sum(DATA, [0, 1], [1, 0]), "segment ids are not increasing"),
])
def test_segment_bad_ids_are_invalid_argument_naming_op_and_index(build, message):
    with tf.Graph().as_default():
        t = build()
        with pytest.raises(tf.errors.InvalidArgumentError, match=message) as info:
            run(t)
        assert t.op.name in str(info.value)


# -- tensor_scatter_nd_* and the variable scatters ------------------------------------------------

T = np.array([[1., 2.], [3., 4.], [5., 6.], [7., 8.]], np.float32)
TI = np.array([[2], [0], [2]], np.int32)
TU = np.array([[10., 1.], [-1., 20.], [4., 7.]], np.float32)
TW = np.arange(1., 9.).reshape(4, 2).astype(np.float32)

# name -> (fn, indices, updates, value, d/dtensor, d/dupdates) of sum(y * TW), from TF 2.15.
TENSOR_SCATTER_CASES = {
    "update": (tf.tensor_scatter_nd_update, [[3], [0]], TU[:2],
               [[-1, 20], [3, 4], [5, 6], [10, 1]], [[0, 0], [3, 4], [5, 6], [0, 0]], [[7, 8], [1, 2]]),
    "add": (tf.tensor_scatter_nd_add, TI, TU, [[0, 22], [3, 4], [19, 14], [7, 8]],
            [[1, 2], [3, 4], [5, 6], [7, 8]], [[5, 6], [1, 2], [5, 6]]),
    "sub": (tf.tensor_scatter_sub, TI, TU, [[2, -18], [3, 4], [-9, -2], [7, 8]],
            [[1, 2], [3, 4], [5, 6], [7, 8]], [[-5, -6], [-1, -2], [-5, -6]]),
    "min": (tf.tensor_scatter_nd_min, TI, TU, [[-1, 2], [3, 4], [4, 1], [7, 8]],
            [[0, 2], [3, 4], [0, 0], [7, 8]], [[0, 6], [1, 0], [5, 0]]),
    "max": (tf.tensor_scatter_nd_max, TI, TU, [[1, 20], [3, 4], [10, 7], [7, 8]],
            [[1, 0], [3, 4], [0, 0], [7, 8]], [[5, 0], [0, 2], [0, 6]]),
}


@pytest.mark.parametrize("name", sorted(TENSOR_SCATTER_CASES))
def test_tensor_scatter_values_and_gradients_match_tf(name):
    fn, indices, updates, value, d_tensor, d_updates = TENSOR_SCATTER_CASES[name]
    with tf.Graph().as_default():
        x, u = tf.constant(T), tf.constant(updates)
        y = fn(x, indices, u)
        assert y.shape.as_list() == [4, 2]
        got, gx, gu = run([y] + tf.gradients(tf.reduce_sum(y * TW), [x, u]))
    np.testing.assert_array_equal(got, np.float32(value))
    np.testing.assert_array_equal(gx, np.float32(d_tensor))
    np.testing.assert_array_equal(gu, np.float32(d_updates))


@pytest.mark.parametrize("fn", [tf.tensor_scatter_update, tf.tensor_scatter_add, tf.tensor_scatter_nd_sub,
                                tf.tensor_scatter_nd_min, tf.tensor_scatter_nd_max])
def test_tensor_scatter_gradients_match_finite_differences(fn):
    x = T.astype(np.float64) + np.linspace(0, .1, 8).reshape(4, 2)
    u = np.array([[10., 1.], [-1., 20.]])  # distinct indices: update's winner is unambiguous
    check_gradients(lambda a, b: fn(a, [[2], [0]], b), x, u)


def test_tensor_scatter_nd_with_full_index_tuples():
    check_op(lambda: tf.tensor_scatter_nd_add(T, [[1, 1], [3, 0]], [100., 200.]),
             np.float32([[1, 2], [3, 104], [5, 6], [207, 8]]))


def test_tensor_scatter_bad_input():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions of updates"):
            tf.tensor_scatter_nd_update(T, [[1], [2]], TU)
        for t in (tf.tensor_scatter_nd_update(T, [[1], [4]], TU[:2]), tf.tensor_scatter_nd_add(T, [[-1]], TU[:1])):
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[\d\] = \[-?\d\] does not index into "
                                                                     r"shape \[4,2\]") as info:
                run(t)
            assert t.op.name in str(info.value)


def _run_var(init, update):
    with tf.Graph().as_default():
        v = tf.Variable(init)
        out = update(v)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run(out)


# name -> (initial value, update(v), value after, from TF 2.15)
VARIABLE_SCATTER_CASES = {
    "scatter_div_int": (np.int32([[6, -7], [8, 9], [10, 11]]), lambda v: tf.scatter_div(v, [0, 2], [[4, 4], [3, -3]]),
                        [[1, -1], [8, 9], [3, -3]]),
    "scatter_div": (T, lambda v: tf.scatter_div(v, [0, 0], [[2., 2.], [2., 4.]]),
                    [[.25, .25], [3, 4], [5, 6], [7, 8]]),
    "scatter_min": (T, lambda v: tf.scatter_min(v, [0, 3, 0], [[0., 5.], [9., 1.], [-1., 3.]]),
                    [[-1, 2], [3, 4], [5, 6], [7, 1]]),
    "scatter_max": (T, lambda v: tf.scatter_max(v, [0, 3, 0], [[0., 5.], [9., 1.], [-1., 3.]]),
                    [[1, 5], [3, 4], [5, 6], [9, 8]]),
    "scatter_nd_update": (T, lambda v: tf.scatter_nd_update(v, [[1, 1], [3, 0]], [100., 200.]),
                          [[1, 2], [3, 100], [5, 6], [200, 8]]),
    "scatter_nd_add": (T, lambda v: tf.scatter_nd_add(v, [[1], [1]], [[1., 1.], [2., 2.]]),
                       [[1, 2], [6, 7], [5, 6], [7, 8]]),
    "scatter_nd_sub": (T, lambda v: tf.scatter_nd_sub(v, [[0, 1]], [5.]), [[1, -3], [3, 4], [5, 6], [7, 8]]),
    "batch_scatter_update": (np.arange(12.).reshape(2, 3, 2).astype(np.float32),
                             lambda v: tf.batch_scatter_update(v, [[2, 0], [1, 1]], -np.ones((2, 2, 2), np.float32)),
                             [[[-1, -1], [2, 3], [-1, -1]], [[6, 7], [-1, -1], [10, 11]]]),
    "batch_scatter_update_1d": (np.arange(5.).astype(np.float32),
                                lambda v: tf.batch_scatter_update(v, [4, 0], [9., 8.]), [8, 1, 2, 3, 9]),
}


@pytest.mark.parametrize("name", sorted(VARIABLE_SCATTER_CASES))
def test_variable_scatters_match_tf(name):
    init, update, want = VARIABLE_SCATTER_CASES[name]
    got = _run_var(init, update)
    assert got.dtype == init.dtype
    np.testing.assert_array_equal(got, np.asarray(want, init.dtype))


def test_variable_scatter_out_of_range():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = \[4\] does not index into shape \[4,2\]"):
        _run_var(T, lambda v: tf.scatter_nd_update(v, [[1], [4]], TU[:2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"= 5 is not in \[0, 4\)"):
        _run_var(T, lambda v: tf.scatter_min(v, [5], TU[:1]))


def test_more_segment_gradients_match_finite_differences():
    x3 = np.arange(12.).reshape(2, 3, 2) / 7 + 1
    check_gradients(lambda x: tf.unsorted_segment_sum(x, [[0, 1, 0], [1, -1, 2]], 3), x3)
    check_gradients(lambda x: tf.unsorted_segment_prod(x, [[0, 1, 0], [1, -1, 2]], 3), x3)
    check_gradients(lambda x: tf.sparse.segment_mean(x, IDX, SIDS, num_segments=6), DATA.astype(np.float64))
    check_gradients(lambda x: tf.segment_prod(x, IDS), np.array([[0., 2.], [0., 5.], [3., 0.], [1., 1.], [2., 2.]]))


def test_fed_num_segments():
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int32, [])
        y = tf.unsorted_segment_max(DATA, UIDS, n)
        assert y.shape.as_list() == [None, 3]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {n: 3})[[0, 2]], [[4, 5, 6], [1, 7, 3]])
