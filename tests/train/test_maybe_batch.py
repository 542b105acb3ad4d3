"""tf.train.maybe_batch & co. (TF1's queue batching with ``keep_input``) and a TFRecord queue pipeline that
stops after exactly ``num_epochs``: graph names, queue runners and batches as TF 2.15 gives them
(/tmp/ref/tfdata/ref_pipeline.py)."""

import os

import numpy as np
import pytest

import dflow as tf
from tests.train.test_input import run_until_out_of_range, running_pipeline

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "io", "data")


def test_graph_names_and_queue_runners_match_tf1():
    x = tf.constant([1.0, 2.0])
    k = tf.placeholder(tf.bool, [])
    outs = [tf.train.maybe_batch([x], k, 2), tf.train.maybe_batch_join([[x], [x]], k, 2),
            tf.train.maybe_shuffle_batch([x], 2, 4, 1, k), tf.train.maybe_shuffle_batch_join([[x], [x]], 2, 4, 1, k),
            tf.train.maybe_batch({"a": x}, True, 2, name="named")]
    assert [o.name for o in outs[:4]] == ["batch:0", "batch_join:0", "shuffle_batch:0", "shuffle_batch_join:0"]
    assert outs[4]["a"].name == "named:0" and outs[0].shape.as_list() == [2, 2]
    assert [(qr.name, len(qr.enqueue_ops)) for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)] == [
        ("batch/fifo_queue", 1), ("batch_join/fifo_queue", 2), ("shuffle_batch/random_shuffle_queue", 1),
        ("shuffle_batch_join/random_shuffle_queue", 2), ("named/fifo_queue", 1)]
    # a scalar known at graph time: the enqueue op itself, or a NoOp that never enqueues
    ops = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    assert ops["named/Const"] == "Const" and ops["named/fifo_queue_enqueue"] == "QueueEnqueueV2"
    tf.reset_default_graph()
    tf.train.maybe_batch([tf.constant([1.0, 2.0])], False, 4)
    assert [e.name for e in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)[0].enqueue_ops] == ["batch/NoOp"]
    # a vector with enqueue_many: the kept rows, through DynamicPartition
    tf.reset_default_graph()
    tf.train.maybe_batch([tf.constant([[1.0, 2.0], [3.0, 4.0]])], [True, False], 4, enqueue_many=True)
    names = [(op.name, op.type) for op in tf.get_default_graph().get_operations()]
    assert names[1:6] == [("batch/Const", "Const"), ("batch/fifo_queue", "FIFOQueueV2"), ("batch/Cast", "Cast"),
                          ("batch/DynamicPartition", "DynamicPartition"),
                          ("batch/fifo_queue_EnqueueMany", "QueueEnqueueManyV2")]
    tf.reset_default_graph()
    tf.train.maybe_shuffle_batch([tf.constant([1.0, 2.0])], 2, 4, 1, True, num_threads=3)
    qr, = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
    assert [e.name for e in qr.enqueue_ops] == ["shuffle_batch/random_shuffle_queue_enqueue"] * 3


def test_keep_input_is_checked_as_tf1_checks_it():
    c = tf.constant([1, 2])
    with pytest.raises(ValueError, match="`keep_input` cannot be a vector when `enqueue_many=False`."):
        tf.train.maybe_batch([c], [True, False], 2)
    with pytest.raises(ValueError, match="`keep_input` must be 0 or 1 dimensions."):
        tf.train.maybe_batch([c], [[True]], 2, enqueue_many=True)
    with pytest.raises(ValueError, match="`keep_input` dimensions must be known at graph construction."):
        tf.train.maybe_batch([c], tf.placeholder(tf.bool), 2)
    with pytest.raises(ValueError, match="capacity 2 must be bigger than min_after_dequeue 2"):
        tf.train.maybe_shuffle_batch([c], 2, 2, 2, True)


@pytest.mark.parametrize("smaller,want", [(True, [[1, 2], [4, 5], [7, 8]]), (False, [[1, 2, 4, 5]])])
def test_maybe_batch_keeps_what_a_run_time_scalar_keeps(smaller, want):
    x = tf.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue()
    b = tf.train.maybe_batch([x], tf.not_equal(x % 3, 0), 2 if smaller else 4, allow_smaller_final_batch=smaller)
    with running_pipeline() as sess:
        assert [v.tolist() for v in run_until_out_of_range(sess, b)] == want


def test_maybe_batch_keeps_the_rows_a_vector_keeps():
    data = tf.train.limit_epochs(tf.reshape(tf.range(12), [6, 2]), num_epochs=2)
    lab = tf.train.limit_epochs(tf.range(6), num_epochs=2)
    b = tf.train.maybe_batch({"x": data, "y": lab}, [True, False, True, True, False, True], 3, enqueue_many=True)
    with running_pipeline() as sess:
        got = run_until_out_of_range(sess, b)
    assert [g["x"].tolist() for g in got] == [[[0, 1], [4, 5], [6, 7]], [[10, 11], [0, 1], [4, 5]]]
    assert [g["y"].tolist() for g in got] == [[0, 2, 3], [5, 0, 2]]


@pytest.mark.parametrize("keep", [True, False])
def test_maybe_batch_join_with_a_run_time_scalar(keep):
    a = tf.train.range_input_producer(6, num_epochs=1, shuffle=False).dequeue()
    c = tf.train.range_input_producer(6, num_epochs=1, shuffle=False).dequeue() + 100
    keep_input = tf.less(tf.random_uniform([]), 2.0 if keep else -1.0)  # known only when run
    b = tf.train.maybe_batch_join([[a], [c]], keep_input, 4, allow_smaller_final_batch=True)
    with running_pipeline() as sess:
        got = run_until_out_of_range(sess, b)
    assert sorted(np.concatenate(got or [[]]).tolist()) == ([0, 1, 2, 3, 4, 5, 100, 101, 102, 103, 104, 105]
                                                            if keep else [])


def test_runners_blocked_in_a_conditional_enqueue_stop_when_asked():
    x = tf.random_uniform([], maxval=10, dtype=tf.int32)  # an endless source
    b = tf.train.maybe_batch([x], x < 5, 3, capacity=4, num_threads=2)
    with running_pipeline() as sess:  # exits by coord.request_stop() and coord.join(threads, 5)
        got = [sess.run(b) for _ in range(3)]
    assert all((v < 5).all() for v in got)


def test_maybe_shuffle_batch_and_join():
    x = tf.train.range_input_producer(20, num_epochs=1, shuffle=False).dequeue()
    b = tf.train.maybe_shuffle_batch([x], 3, 10, 2, x < 15, seed=3, allow_smaller_final_batch=True)
    with running_pipeline() as sess:
        got = run_until_out_of_range(sess, b)
    assert [len(v) for v in got] == [3] * 5 and sorted(np.concatenate(got).tolist()) == list(range(15))
    tf.reset_default_graph()
    xa = tf.train.limit_epochs(tf.range(8), num_epochs=1)
    xb = tf.train.limit_epochs(tf.range(8), num_epochs=1) + 50
    keep = tf.range(8) >= 4
    b = tf.train.maybe_shuffle_batch_join([{"v": xa}, {"v": xb}], 4, 20, 1, keep, enqueue_many=True,
                                          allow_smaller_final_batch=True)
    with running_pipeline() as sess:
        got = run_until_out_of_range(sess, b)
    assert sorted(np.concatenate([g["v"] for g in got]).tolist()) == [4, 5, 6, 7, 54, 55, 56, 57]


# -- string_input_producer → TFRecordReader → parse_single_example → batch, over TF's file -------------------

RECORD_OFFSETS = [0, 133, 276]  # TF's TFRecordReader keys (offsets in the uncompressed stream)
IDS, LABELS = [0, 1, 2], [b"label-0", b"label-1", b"label-2"]
SCORES = [[0.0, -1.25], [0.5, -0.25], [1.0, 0.75]]


@pytest.mark.parametrize("fname,comp,batch_size,smaller,sizes", [
    ("examples.tfrecord", None, 2, False, [2, 2, 2]),
    ("examples.tfrecord", None, 4, True, [4, 2]),
    ("examples.tfrecord.gz", "GZIP", 4, False, [4]),  # the last 2 of 6 never make a batch
    ("examples.tfrecord.zz", "ZLIB", 3, False, [3, 3]),
])
def test_queue_reader_pipeline_ends_after_exactly_num_epochs(fname, comp, batch_size, smaller, sizes):
    path = os.path.join(DATA, fname)
    q = tf.train.string_input_producer([path], num_epochs=2, shuffle=False)
    assert [v.op.name for v in tf.local_variables()] == ["input_producer/limit_epochs/epochs"]
    key, ser = tf.TFRecordReader(options=tf.io.TFRecordOptions(comp)).read(q)
    feats = tf.parse_single_example(ser, {"id": tf.FixedLenFeature([], tf.int64),
                                          "label": tf.FixedLenFeature([], tf.string),
                                          "score": tf.FixedLenFeature([2], tf.float32)})
    b = tf.train.batch([key, feats["id"], feats["label"], feats["score"]], batch_size,
                       allow_smaller_final_batch=smaller)
    assert [t.name for t in b] == ["batch:0", "batch:1", "batch:2", "batch:3"]
    assert b[3].shape.as_list() == [None if smaller else batch_size, 2]
    with running_pipeline() as sess:
        got = run_until_out_of_range(sess, b)
    assert [len(g[0]) for g in got] == sizes
    keys, ids, labels, scores = (np.concatenate([g[i] for g in got]).tolist() for i in range(4))
    n = sum(sizes)
    assert keys == [f"{path}:{o}".encode() for o in RECORD_OFFSETS * 2][:n]
    assert ids == (IDS * 2)[:n] and labels == (LABELS * 2)[:n] and scores == (SCORES * 2)[:n]


# -- SparseTensors through the queue (a SparseTensorsMap holds them; the queue carries handles) ---------------


def sp(v):
    return ("SP", v.indices.tolist(), v.values.tolist(), v.dense_shape.tolist())


def test_var_len_features_are_batched_as_tf1_batches_them():
    q = tf.train.string_input_producer([os.path.join(DATA, "examples.tfrecord")], num_epochs=2, shuffle=False)
    _, ser = tf.TFRecordReader().read(q)
    feats = tf.parse_single_example(ser, {"id": tf.FixedLenFeature([], tf.int64), "tags": tf.VarLenFeature(tf.string),
                                          "vals": tf.VarLenFeature(tf.int64)})
    b = tf.train.batch(feats, 2, allow_smaller_final_batch=True)
    assert b["tags"].indices.shape.as_list() == [None, 2] and b["vals"].dense_shape.shape.as_list() == [2]
    ops = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    assert ops["batch/AddSparseToTensorsMap_1"] == "AddSparseToTensorsMap" and ops["batch"] == "QueueDequeueUpToV2"
    assert ops["batch/TakeManySparseFromTensorsMap_1"] == "TakeManySparseFromTensorsMap"
    assert ops["batch/control_dependency_6"] == "Identity"
    with running_pipeline() as sess:
        got = run_until_out_of_range(sess, b)
    big = -(2 ** 40)
    assert [(g["id"].tolist(), sp(g["tags"]), sp(g["vals"])) for g in got] == [
        ([0, 1], ("SP", [[1, 0]], [b"t0"], [2, 1]),
         ("SP", [[0, 0], [1, 0], [1, 1], [1, 2]], [big, 10, 11, big], [2, 3])),
        ([2, 0], ("SP", [[0, 0], [0, 1]], [b"t0", b"t1"], [2, 2]),
         ("SP", [[0, 0], [0, 1], [1, 0]], [20, big, big], [2, 2])),
        ([1, 2], ("SP", [[0, 0], [1, 0], [1, 1]], [b"t0", b"t0", b"t1"], [2, 2]),
         ("SP", [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], [10, 11, big, 20, big], [2, 3]))]


def test_maybe_batch_of_sparse_tensors():
    # TF 2.15 needs tf.disable_control_flow_v2() here, as TF1 ran it (its v2 cond hides the map op)
    x = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
    st = tf.SparseTensor(tf.reshape(tf.range(tf.cast(x, tf.int64)), [-1, 1]), tf.range(x),
                         tf.reshape(tf.cast(x, tf.int64), [1]))
    b = tf.train.maybe_batch([x, st], tf.not_equal(x, 2), 2, allow_smaller_final_batch=True)
    with running_pipeline() as sess:
        got = [(v.tolist(), sp(s)) for v, s in run_until_out_of_range(sess, b)]
    assert got == [([0, 1], ("SP", [[1, 0]], [0], [2, 1])),
                   ([3, 4], ("SP", [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [1, 3]], [0, 1, 2, 0, 1, 2, 3],
                             [2, 4]))]
    tf.reset_default_graph()
    st = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 2], [3, 1]], [1, 2, 3, 4, 5], [4, 3])
    d = tf.train.limit_epochs(tf.constant([10, 11, 12, 13]), num_epochs=1)
    b = tf.train.maybe_batch([d, st], [True, False, True, True], 2, enqueue_many=True, allow_smaller_final_batch=True)
    with running_pipeline() as sess:
        got = [(v.tolist(), sp(s)) for v, s in run_until_out_of_range(sess, b)]
    assert got == [([10, 12], ("SP", [[0, 0], [0, 1], [1, 2]], [1, 2, 4], [2, 3])),
                   ([13], ("SP", [[0, 1]], [5], [1, 3]))]


def test_enqueue_many_sparse_and_inconsistent_join():
    st = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 2], [3, 1]], [1.0, 2, 3, 4, 5], [4, 3])
    b = tf.train.batch([st], 3, enqueue_many=True)
    assert b.dense_shape.shape.as_list() == [2] and b.indices.shape.as_list() == [None, 2]
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        got = [sp(sess.run(b)) for _ in range(2)]
        coord.request_stop()
        sess.run(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)[0].cancel_op)
        coord.join(threads, stop_grace_period_secs=5)
    assert got == [("SP", [[0, 0], [0, 1], [1, 0], [2, 2]], [1.0, 2.0, 3.0, 4.0], [3, 3]),
                   ("SP", [[0, 1], [1, 0], [1, 1], [2, 0]], [5.0, 1.0, 2.0, 3.0], [3, 3])]
    with pytest.raises(ValueError, match="Inconsistent SparseTensors list"):
        tf.train.batch_join([[st], [tf.constant(1.0)]], 2)


def test_take_of_a_handle_not_in_the_map_is_an_invalid_argument_error():
    from dflow.ops.sparse.sparse_map_ops import add_sparse_to_tensors_map, take_many_sparse_from_tensors_map

    h = add_sparse_to_tensors_map(tf.SparseTensor([[0]], [1.0], [3]))
    taken = take_many_sparse_from_tensors_map(h.op, tf.stack([h]), rank=2)
    assert taken.indices.shape.as_list() == [None, 2]
    with tf.Session() as sess:
        assert sp(sess.run(taken)) == ("SP", [[0, 0]], [1.0], [1, 3])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Unable to find SparseTensor: 7 in map: "
                                                                  "AddSparseToTensorsMap"):
            sess.run(take_many_sparse_from_tensors_map(h.op, tf.constant([7], tf.int64)))
    with pytest.raises(TypeError, match="found `Const`"):
        take_many_sparse_from_tensors_map(tf.constant(1).op, [1])


def test_queues_report_how_full_they_are_in_tf1s_summaries():
    x = tf.constant([1.0, 2.0])
    tf.train.shuffle_batch([x], 4, 10, 3)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names[names.index("shuffle_batch/random_shuffle_queue_Size"):] == [
        "shuffle_batch/random_shuffle_queue_Size", "shuffle_batch/sub/y", "shuffle_batch/sub",
        "shuffle_batch/Maximum/x", "shuffle_batch/Maximum", "shuffle_batch/Cast", "shuffle_batch/mul/y",
        "shuffle_batch/mul", "shuffle_batch/fraction_over_3_of_7_full", "shuffle_batch/n", "shuffle_batch"]
    tf.reset_default_graph()
    q = tf.train.range_input_producer(5, num_epochs=1, shuffle=False)
    tf.train.input_producer([1, 2])  # no summary_name: no summary
    x = q.dequeue()
    tf.train.maybe_shuffle_batch_join([[x], [x]], 2, 10, 3, True)
    tf.train.batch_join([[x]], 3, capacity=7)
    summaries = tf.get_collection(tf.GraphKeys.SUMMARIES)
    assert [s.name for s in summaries] == ["input_producer/fraction_of_32_full:0",
                                           "shuffle_batch_join/fraction_over_3_of_7_full:0",
                                           "batch_join/fraction_of_7_full:0"]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(q.enqueue_many([[7, 8, 9, 10]]))
        merged = tf.Summary.FromString(sess.run(summaries[0]))
    assert [(v.tag, v.simple_value) for v in merged.value] == [("input_producer/fraction_of_32_full", 0.125)]
