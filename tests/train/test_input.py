"""Queue-based input pipelines: tf.train.batch & co., the producers, limit_epochs."""

import contextlib

import numpy as np
import pytest

import dflow as tf


@contextlib.contextmanager
def running_pipeline():
    """A session with local variables initialized and queue runners started."""
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            yield sess
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)


def run_until_out_of_range(sess, fetch) -> list:
    out = []
    with pytest.raises(tf.errors.OutOfRangeError):
        while True:
            out.append(sess.run(fetch))
    return out


def test_limit_epochs_counts_evaluations_in_a_local_variable(sess):
    x = tf.train.limit_epochs(tf.constant([1, 2]), num_epochs=2)
    assert x.op.name == "limit_epochs" and x.op.type == "Identity"
    epochs = tf.local_variables()
    assert [v.op.name for v in epochs] == ["limit_epochs/epochs"] and epochs[0].dtype == tf.int64
    assert tf.get_default_graph().get_operation_by_name("limit_epochs/CountUpTo").type == "CountUpTo"
    sess.run(tf.local_variables_initializer())
    assert sess.run(x).tolist() == [1, 2] and sess.run(x).tolist() == [1, 2]
    with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 2"):
        sess.run(x)
    c = tf.constant(1)
    assert tf.train.limit_epochs(c) is c
    with pytest.raises(ValueError, match="num_epochs must be > 0"):
        tf.train.limit_epochs(c, 0)


def test_batch_graph_structure_matches_tf1():
    x = tf.constant([1.0, 2.0])
    b = tf.train.batch([x], 4)
    assert b.name == "batch:0" and b.shape.as_list() == [4, 2] and b.op.type == "QueueDequeueManyV2"
    names = [op.name for op in tf.get_default_graph().get_operations()]
    # TF1's, but for its ScalarSummary's tags input (batch/fraction_of_32_full/tags): dflow's tag is an attr
    assert names[1:] == ["batch/Const", "batch/fifo_queue", "batch/fifo_queue_enqueue", "batch/fifo_queue_Close",
                         "batch/fifo_queue_Close_1", "batch/fifo_queue_Size", "batch/Cast", "batch/mul/y",
                         "batch/mul", "batch/fraction_of_32_full", "batch/n", "batch"]
    qr, = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
    assert qr.name == "batch/fifo_queue"
    d = tf.train.shuffle_batch({"a": x, "b": tf.constant(1)}, 4, 10, 2)
    assert set(d) == {"a", "b"} and d["a"].name == "shuffle_batch:0" and d["b"].shape.as_list() == [4]
    assert d["a"].op.inputs[0].op.type == "RandomShuffleQueueV2"


@pytest.mark.parametrize("smaller", [True, False])
def test_batch_of_a_range_producer_over_epochs(smaller):
    x = tf.train.range_input_producer(5, num_epochs=2, shuffle=False).dequeue()
    b = tf.train.batch([x], 4, allow_smaller_final_batch=smaller)
    with running_pipeline() as sess:
        got = [v.tolist() for v in run_until_out_of_range(sess, b)]
    assert got == [[0, 1, 2, 3], [4, 0, 1, 2]] + ([[3, 4]] if smaller else [])


def test_batch_enqueue_many_with_several_threads_and_dict_structure():
    data = tf.train.limit_epochs(tf.reshape(tf.range(12), [6, 2]), num_epochs=1)
    labels = tf.train.limit_epochs(tf.range(6), num_epochs=1)
    b = tf.train.batch({"x": data, "y": labels}, 3, num_threads=2, enqueue_many=True)
    assert b["x"].shape.as_list() == [3, 2] and b["y"].shape.as_list() == [3]
    with running_pipeline() as sess:
        got = run_until_out_of_range(sess, b)
    rows = sorted(map(tuple, np.concatenate([g["x"] for g in got]).tolist()))
    assert len(got) == 2 and rows == [(2 * i, 2 * i + 1) for i in range(6)]
    assert sorted(np.concatenate([g["y"] for g in got]).tolist()) == list(range(6))


def test_batch_requires_fully_defined_shapes_unless_dynamic_pad():
    p = tf.placeholder(tf.int32, [None])
    with pytest.raises(ValueError, match="fully defined"):
        tf.train.batch([p], 2)
    with pytest.raises(ValueError, match="Cannot infer Tensor's rank"):
        tf.train.batch([tf.placeholder(tf.int32)], 2)
    padded = tf.train.batch([p], 2, dynamic_pad=True)
    assert padded.shape.as_list() == [2, None]
    assert padded.op.inputs[0].op.type == "PaddingFIFOQueueV2"


def test_dynamic_pad_batches_pad_to_the_longest_element():
    seqs = tf.train.slice_input_producer([tf.constant([0, 1, 2, 3])], num_epochs=1, shuffle=False)[0]
    row = tf.range(seqs + 1)  # lengths 1, 2, 3, 4
    b = tf.train.batch([row], 2, dynamic_pad=True)
    with running_pipeline() as sess:
        got = [v.tolist() for v in run_until_out_of_range(sess, b)]
    assert got == [[[0, 0], [0, 1]], [[0, 1, 2, 0], [0, 1, 2, 3]]]


def test_shuffle_batch_yields_every_element_once_per_epoch():
    x = tf.train.range_input_producer(20, num_epochs=1, shuffle=False).dequeue()
    b = tf.train.shuffle_batch([x], 5, capacity=12, min_after_dequeue=4, seed=1, allow_smaller_final_batch=True)
    with running_pipeline() as sess:
        got = np.concatenate(run_until_out_of_range(sess, b)).tolist()
    assert sorted(got) == list(range(20)) and got != list(range(20))
    with pytest.raises(ValueError, match="capacity 4 must be bigger than min_after_dequeue 4"):
        tf.train.shuffle_batch([x], 2, capacity=4, min_after_dequeue=4)


def test_batch_join_and_shuffle_batch_join_merge_several_sources():
    a = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue()
    b = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue() + 100
    joined = tf.train.batch_join([[a], [b]], 2)
    assert len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)[-1].enqueue_ops) == 2
    with running_pipeline() as sess:
        got = sorted(np.concatenate(run_until_out_of_range(sess, joined)).tolist())
    assert got == [0, 1, 2, 3, 100, 101, 102, 103]
    tf.reset_default_graph()
    a = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue()
    b = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue() + 100
    shuffled = tf.train.shuffle_batch_join([{"v": a}, {"v": b}], 3, capacity=8, min_after_dequeue=2,
                                           allow_smaller_final_batch=True)
    with running_pipeline() as sess:
        got = sorted(np.concatenate([d["v"] for d in run_until_out_of_range(sess, shuffled)]).tolist())
    assert got == [0, 1, 2, 3, 100, 101, 102, 103]
    with pytest.raises(TypeError, match="consistent"):
        tf.train.batch_join([[a], [tf.constant(1.0)]], 2)


def test_string_input_producer_gives_each_string_once_per_epoch():
    q = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=True, seed=3)
    assert q.name == "input_producer" and q.dtypes == [tf.string]
    with running_pipeline() as sess:
        got = run_until_out_of_range(sess, q.dequeue())
    assert sorted(got) == [b"a", b"a", b"b", b"b", b"c", b"c"]
    assert sorted(got[:3]) == [b"a", b"b", b"c"]  # one whole epoch before the next
    with pytest.raises(ValueError, match="non-null input tensor"):
        tf.train.string_input_producer([])


def test_slice_input_producer_keeps_rows_together():
    xs, ys = tf.train.slice_input_producer([tf.constant([1, 2, 3]), tf.constant(["a", "b", "c"])],
                                           num_epochs=1, seed=2)
    with running_pipeline() as sess:
        got = run_until_out_of_range(sess, [xs, ys])
    assert sorted((int(x), y) for x, y in got) == [(1, b"a"), (2, b"b"), (3, b"c")]


def test_input_producer_needs_a_known_element_shape():
    with pytest.raises(ValueError, match="fully defined shape"):
        tf.train.input_producer(tf.placeholder(tf.float32, [None, None]))
    q = tf.train.input_producer(tf.placeholder(tf.float32, [None, None]), element_shape=[2], shuffle=False)
    assert q.shapes[0].as_list() == [2]
