"""tf.SparseConditionalAccumulator against TensorFlow 2.15's figures (/tmp/ref/sparse/q3.py)."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf


def _feeds():
    return tf.placeholder(tf.int64, [None]), tf.placeholder(tf.float32, [None, 2])


def test_mean_is_per_row_and_merge_order_is_tfs():
    with tf.Graph().as_default(), tf.Session() as sess:
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[5, 2])
        assert (acc.accumulator_ref.op.type, acc.name) == ("SparseConditionalAccumulator",
                                                            "sparse_conditional_accumulator")
        i, v = _feeds()
        apply = acc.apply_grad(i, v, grad_shape=[5, 2], local_step=0)
        apply_slices = acc.apply_indexed_slices_grad(tf.IndexedSlices(v, i, tf.constant([5, 2], tf.int64)))
        assert apply.type == apply_slices.type == "SparseAccumulatorApplyGradient"
        take = acc.take_grad(2)
        sess.run(apply, {i: [3, 0], v: [[1, 2], [3, 4]]})
        sess.run(apply_slices, {i: [1, 3], v: [[10, 20], [30, 40]]})
        assert sess.run(acc.num_accumulated()) == 2
        got = sess.run(take)
        assert got.indices.tolist() == [1, 3, 0] and got.shape.tolist() == [5, 2]
        assert got.values.tolist() == [[10., 20.], [15.5, 21.], [3., 4.]]
        # global step is now 1: a step-0 gradient is stale and dropped
        sess.run(apply, {i: [4], v: [[9, 9]]})
        assert sess.run(acc.num_accumulated()) == 0
        sess.run(acc.apply_grad(i, v, grad_shape=[5, 2], local_step=1), {i: [2], v: [[1, 1]]})
        slices = sess.run(acc.take_indexed_slices_grad(1))
        assert (slices.indices.tolist(), slices.values.tolist(), slices.dense_shape.tolist()) == \
            ([2], [[1., 1.]], [5, 2])


def test_sum_and_unknown_shapes():
    with tf.Graph().as_default(), tf.Session() as sess:
        i, v = _feeds()
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[None, 2], reduction_type="SUM")
        apply = acc.apply_grad(i, v)
        sess.run(apply, {i: [3, 0], v: [[1, 2], [3, 4]]})
        sess.run(apply, {i: [3, 1], v: [[1, 2], [3, 4]]})
        got = sess.run(acc.take_grad(1))
        assert (got.indices.tolist(), got.values.tolist(), got.shape.tolist()) == \
            ([3, 0, 1], [[2., 4.], [3., 4.], [3., 4.]], [-1, 2])
        unknown = tf.SparseConditionalAccumulator(tf.float32)
        sess.run(unknown.apply_grad(i, v), {i: [3, 0], v: [[1, 2], [3, 4]]})
        assert sess.run(unknown.take_grad(1)).shape.tolist() == [-1, 2]
        # the accumulator's shape is a prefix of the gradients' (TF1's figures)
        scalar = tf.SparseConditionalAccumulator(tf.float32, shape=())
        sess.run(scalar.apply_indexed_slices_grad(tf.IndexedSlices(v, i, tf.constant([5, 2], tf.int64))),
                 {i: [3, 0], v: [[1, 2], [3, 4]]})
        assert sess.run(scalar.take_indexed_slices_grad(1)).dense_shape.tolist() == [-1, 2]
        rows = tf.SparseConditionalAccumulator(tf.float32, shape=[5])
        sess.run(rows.apply_grad(i, v), {i: [3, 0], v: [[1, 2], [3, 4]]})
        assert sess.run(rows.take_grad(1)).shape.tolist() == [5, 2]
        deep = tf.SparseConditionalAccumulator(tf.float32, shape=[5, 2, 1])
        with pytest.raises(tf.errors.InvalidArgumentError, match="expected values rank at least 3, got 2"):
            sess.run(deep.apply_grad(i, v), {i: [3, 0], v: [[1, 2], [3, 4]]})


def test_bad_gradients_and_timeouts():
    with tf.Graph().as_default(), tf.Session() as sess:
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[3, 2])
        i = tf.placeholder(tf.int64, [None])
        v = tf.placeholder(tf.float32, None)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch"):
            sess.run(acc.apply_grad(i, v), {i: [0], v: np.ones((1, 3), np.float32)})
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
            sess.run(acc.apply_grad(i, v), {i: [7], v: np.ones((1, 2), np.float32)})
        with pytest.raises(tf.errors.DeadlineExceededError, match="0 of the 1 gradients"):
            sess.run(acc.take_grad(1), options=tf.RunOptions(timeout_in_ms=50))
    with tf.Graph().as_default(), pytest.raises(TypeError):
        tf.SparseConditionalAccumulator(tf.int32)
