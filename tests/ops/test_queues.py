"""TF1 queues: graph structure, FIFO/shuffle/padding/priority semantics, closing,
deadlines, and concurrent producers and consumers on one session."""

import threading
import time

import numpy as np
import pytest

import dflow as tf
from dflow.framework.run_context import RunContext
from dflow.ops.state.queue_state import QueueState


def run_in_thread(fn):
    """Starts ``fn`` in a thread; returns (thread, list that gets its result or exception)."""
    out = []

    def target():
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - handed to the test
            out.append(e)

    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, out


def wait_until(condition, timeout=2.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the test's threads"
        time.sleep(0.005)


def timed(fn):
    start = time.monotonic()
    try:
        fn()
    finally:
        timed.elapsed = time.monotonic() - start


# -- graph structure ---------------------------------------------------------------------


@pytest.mark.parametrize("make, name, op_type", [
    (lambda: tf.FIFOQueue(3, [tf.float32, tf.int32], shapes=[[], [2]]), "fifo_queue", "FIFOQueueV2"),
    (lambda: tf.RandomShuffleQueue(3, 0, [tf.float32, tf.int32], shapes=[[], [2]]), "random_shuffle_queue",
     "RandomShuffleQueueV2"),
    (lambda: tf.PaddingFIFOQueue(3, [tf.float32, tf.int32], shapes=[[], [2]]), "padding_fifo_queue",
     "PaddingFIFOQueueV2"),
])
def test_queue_ops_have_tf1_types_names_shapes_and_colocation(make, name, op_type):
    q = make()
    q.enqueue([1.0, [1, 2]])
    q.enqueue_many([[1.0], [[1, 2]]])
    d = q.dequeue()
    dm = q.dequeue_many(3)
    du = q.dequeue_up_to(3)
    q.size(), q.close(), q.close(True), q.is_closed()
    ops = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    assert ops == {
        name: op_type,
        f"{name}_enqueue/component_0": "Const", f"{name}_enqueue/component_1": "Const",
        f"{name}_enqueue": "QueueEnqueueV2",
        f"{name}_EnqueueMany/component_0": "Const", f"{name}_EnqueueMany/component_1": "Const",
        f"{name}_EnqueueMany": "QueueEnqueueManyV2",
        f"{name}_Dequeue": "QueueDequeueV2",
        f"{name}_DequeueMany/n": "Const", f"{name}_DequeueMany": "QueueDequeueManyV2",
        f"{name}_DequeueUpTo/n": "Const", f"{name}_DequeueUpTo": "QueueDequeueUpToV2",
        f"{name}_Size": "QueueSizeV2", f"{name}_Close": "QueueCloseV2", f"{name}_Close_1": "QueueCloseV2",
        f"{name}_Is_Closed": "QueueIsClosedV2",
    }
    assert q.name == name and q.queue_ref.name == f"{name}:0"
    assert q.queue_ref.dtype == tf.string and q.queue_ref.shape.ndims == 0
    assert q.dtypes == [tf.float32, tf.int32] and [s.as_list() for s in q.shapes] == [[], [2]]
    assert [t.shape.as_list() for t in d] == [[], [2]]
    assert [t.shape.as_list() for t in dm] == [[3], [3, 2]]
    assert [t.shape.as_list() for t in du] == [[None], [None, 2]]
    for op in tf.get_default_graph().get_operations():
        if op.type.startswith("Queue"):
            assert op.colocation_groups() == [f"loc:@{name}".encode()]
            assert op.inputs[0] is q.queue_ref


def test_priority_queue_prepends_an_int64_priority():
    q = tf.PriorityQueue(5, [tf.string], shapes=[[]])
    assert q.name == "priority_queue" and q.queue_ref.op.type == "PriorityQueueV2"
    assert q.dtypes == [tf.int64, tf.string] and [s.as_list() for s in q.shapes] == [[], []]
    p, s = q.dequeue()
    assert p.dtype == tf.int64 and s.dtype == tf.string
    with pytest.raises(TypeError, match="shapes"):
        tf.PriorityQueue(5, [tf.string])


def test_queue_names_uniquify_and_queue_is_created_outside_control_dependencies():
    c = tf.constant(1.0)
    with tf.control_dependencies([c]):
        q1 = tf.FIFOQueue(1, tf.float32)
    q2 = tf.FIFOQueue(1, tf.float32)
    assert (q1.name, q2.name) == ("fifo_queue", "fifo_queue_1")
    assert q1.queue_ref.op.control_inputs == []
    assert q1.dequeue().name == "fifo_queue_Dequeue:0" and q1.dequeue().name == "fifo_queue_Dequeue_1:0"


def test_graph_time_shape_count_and_dtype_checks():
    q = tf.FIFOQueue(2, [tf.float32], shapes=[[2]])
    with pytest.raises(ValueError, match="incompatible"):
        q.enqueue([[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="incompatible"):
        q.enqueue_many([[1.0, 2.0]])
    q2 = tf.FIFOQueue(5, [tf.int32, tf.float32])
    with pytest.raises(ValueError, match="2 components"):
        q2.enqueue([1])
    with pytest.raises(TypeError, match="Expected int32"):
        q2.enqueue(["a", 1.0])
    with pytest.raises(ValueError, match="requested dtype int32"):
        q2.enqueue([tf.constant(1.0), 1.0])
    with pytest.raises(ValueError, match="rank at least 1"):
        q2.enqueue_many([1, 2.0])
    with pytest.raises(ValueError, match="must be >= 0"):
        q2.dequeue_many(-1)
    with pytest.raises(ValueError, match="fully defined"):
        tf.FIFOQueue(2, [tf.float32], shapes=[[None]])
    with pytest.raises(ValueError, match="same length"):
        tf.FIFOQueue(2, [tf.float32, tf.int32], shapes=[[1]])
    assert q2.enqueue([1, 2]).inputs[2].dtype == tf.float32  # Python values take the component dtype


def test_dict_components_with_names():
    q = tf.FIFOQueue(3, [tf.int32, tf.string], shapes=[[], []], names=["n", "s"])
    assert q.names == ["n", "s"]
    with pytest.raises(ValueError, match="must enqueue a dictionary"):
        q.enqueue([1, "a"])
    with pytest.raises(ValueError, match="do not match"):
        q.enqueue({"n": 1})
    with tf.Session() as sess:
        sess.run(q.enqueue({"s": "x", "n": 1}))
        sess.run(q.enqueue_many({"n": [2, 3], "s": ["y", "z"]}))
        assert sess.run(q.dequeue()) == {"n": 1, "s": b"x"}
        got = sess.run(q.dequeue_many(2))
        assert got["n"].tolist() == [2, 3] and got["s"].tolist() == [b"y", b"z"]


# -- FIFO semantics -----------------------------------------------------------------------


def test_fifo_order_several_components_and_size(sess):
    q = tf.FIFOQueue(10, [tf.float32, tf.int32], shapes=[[], [2]])
    sess.run(q.enqueue([1.0, [1, 2]]))
    sess.run(q.enqueue_many([[2.0, 3.0], [[3, 4], [5, 6]]]))
    assert sess.run(q.size()) == 3
    a, b = sess.run(q.dequeue())
    assert a == 1.0 and b.tolist() == [1, 2] and isinstance(a, np.float32)
    a, b = sess.run(q.dequeue_many(2))
    assert a.tolist() == [2.0, 3.0] and b.tolist() == [[3, 4], [5, 6]]
    assert sess.run(q.size()) == 0
    empty = sess.run(q.dequeue_many(0))
    assert empty[0].shape == (0,) and empty[1].shape == (0, 2) and empty[1].dtype == np.int32


def test_queue_copies_fed_values_and_returns_unshared_arrays(sess):
    q = tf.FIFOQueue(10, tf.float32, shapes=[[2]])
    p = tf.placeholder(tf.float32, [None, 2])
    value = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    sess.run(q.enqueue_many(p), {p: value})
    value[:] = 0.0
    first = sess.run(q.dequeue())
    first[0] = 99.0
    assert first.tolist() == [99.0, 2.0] and sess.run(q.dequeue()).tolist() == [3.0, 4.0]


def test_run_time_shape_mismatch_names_queue_and_component(sess):
    q = tf.FIFOQueue(5, [tf.int32, tf.float32], shapes=[[], [2]], shared_name="shapes_q")
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"FIFOQueue 'shapes_q': Shape mismatch in tuple component 1. Expected \[2\], got \[3\]"):
        sess.run(q.enqueue([1, p]), {p: [1.0, 2.0, 3.0]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"component 1. Expected \[\?,2\], got \[\?,3\]"):
        sess.run(q.enqueue_many([[1], p]), {p: [[1.0, 2.0, 3.0]]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="same size in dimension 0"):
        sess.run(q.enqueue_many([[1, 2], p]), {p: [[1.0, 2.0]]})
    assert sess.run(q.size()) == 0


def test_queue_without_shapes_holds_any_shape_but_cannot_dequeue_many(sess):
    q = tf.FIFOQueue(5, tf.int32)
    p = tf.placeholder(tf.int32)
    e = q.enqueue(p)
    sess.run(e, {p: [1, 2]})
    sess.run(e, {p: [[3]]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="DequeueMany and DequeueUpTo require the components"):
        sess.run(q.dequeue_many(2))
    assert sess.run(q.dequeue()).tolist() == [1, 2] and sess.run(q.dequeue()).tolist() == [[3]]


def test_string_components_round_trip(sess):
    q = tf.FIFOQueue(5, [tf.string], shapes=[[2]])
    sess.run(q.enqueue_many([[["a", "bb"], ["", "ccc"]]]))
    assert sess.run(q.dequeue_many(2)).tolist() == [[b"a", b"bb"], [b"", b"ccc"]]


def test_blocked_dequeue_gets_an_element_enqueued_by_another_thread(sess):
    q = tf.FIFOQueue(5, tf.int32, shapes=[[]])
    d, e = q.dequeue(), q.enqueue(7)
    t, out = run_in_thread(lambda: sess.run(d))
    time.sleep(0.05)
    assert t.is_alive()
    sess.run(e)
    t.join(2.0)
    assert out == [7]


def test_blocked_enqueue_on_full_queue_completes_after_a_dequeue(sess):
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    sess.run(q.enqueue_many([[1, 2]]))
    t, out = run_in_thread(lambda: sess.run(q.enqueue(3)))
    time.sleep(0.05)
    assert t.is_alive() and sess.run(q.size()) == 2
    assert sess.run(q.dequeue()) == 1
    t.join(2.0)
    assert out == [None] and sess.run(q.dequeue_many(2)).tolist() == [2, 3]


def test_enqueue_many_larger_than_capacity_goes_in_piece_by_piece(sess):
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    t, out = run_in_thread(lambda: sess.run(q.enqueue_many([[1, 2, 3, 4, 5]])))
    got = [sess.run(q.dequeue()) for _ in range(5)]
    t.join(2.0)
    assert got == [1, 2, 3, 4, 5] and out == [None]


def test_dequeue_many_larger_than_capacity_collects_as_elements_arrive(sess):
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    t, out = run_in_thread(lambda: sess.run(q.dequeue_many(5)))
    for i in range(5):
        sess.run(q.enqueue(i))
    t.join(2.0)
    assert out[0].tolist() == [0, 1, 2, 3, 4]


# -- deadlines -----------------------------------------------------------------------------


def _deadline_session(kind):
    if kind == "operation_timeout_in_ms":
        return tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=200)), None
    return tf.Session(), tf.RunOptions(timeout_in_ms=200)


@pytest.mark.parametrize("kind", ["timeout_in_ms", "operation_timeout_in_ms"])
def test_dequeue_on_empty_queue_times_out_promptly_and_queue_stays_usable(kind):
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    d = q.dequeue()
    sess, options = _deadline_session(kind)
    with sess:
        with pytest.raises(tf.errors.DeadlineExceededError, match=f"Timed out waiting for 1 element in FIFOQueue.*"
                                                                  f"{kind}"):
            timed(lambda: sess.run(d, options=options))
        assert 0.19 <= timed.elapsed < 1.0
        sess.run(q.enqueue(5))
        assert sess.run(d) == 5
        sess.run(q.enqueue(6))
        assert sess.run(q.size()) == 1 and sess.run(d) == 6


@pytest.mark.parametrize("kind", ["timeout_in_ms", "operation_timeout_in_ms"])
def test_enqueue_on_full_queue_times_out_promptly_and_queue_stays_usable(kind):
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    sess, options = _deadline_session(kind)
    with sess:
        sess.run(q.enqueue_many([[1, 2]]))
        with pytest.raises(tf.errors.DeadlineExceededError, match="room in FIFOQueue"):
            timed(lambda: sess.run(q.enqueue(3), options=options))
        assert 0.19 <= timed.elapsed < 1.0
        assert sess.run(q.size()) == 2 and sess.run(q.dequeue()) == 1
        sess.run(q.enqueue(4))
        assert sess.run(q.dequeue_many(2)).tolist() == [2, 4]


@pytest.mark.parametrize("method", ["dequeue_many", "dequeue_up_to"])
def test_timed_out_dequeue_many_loses_no_elements(sess, method):
    q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    sess.run(q.enqueue_many([[1, 2]]))
    take3 = getattr(q, method)(3)
    with pytest.raises(tf.errors.DeadlineExceededError):
        sess.run(take3, options=tf.RunOptions(timeout_in_ms=100))
    assert sess.run(q.size()) == 2
    sess.run(q.enqueue(3))
    assert sess.run(take3).tolist() == [1, 2, 3]


def test_timed_out_dequeue_behind_another_keeps_order_and_elements(sess):
    q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    sess.run(q.enqueue_many([[1, 2]]))
    t, out = run_in_thread(lambda: sess.run(q.dequeue_many(3)))
    wait_until(lambda: sess.run(q.size()) == 0)  # the first dequeue holds 1 and 2, waiting for a third
    with pytest.raises(tf.errors.DeadlineExceededError):
        sess.run(q.dequeue(), options=tf.RunOptions(timeout_in_ms=100))
    sess.run(q.enqueue_many([[3, 4]]))
    t.join(2.0)
    assert out[0].tolist() == [1, 2, 3] and sess.run(q.dequeue()) == 4


# -- close -----------------------------------------------------------------------------------


def test_close_drains_then_out_of_range_and_enqueue_is_cancelled(sess):
    q = tf.FIFOQueue(5, tf.int32, shapes=[[]])
    d = q.dequeue()
    sess.run(q.enqueue_many([[1, 2, 3]]))
    assert not sess.run(q.is_closed())
    sess.run(q.close())
    assert sess.run(q.is_closed())
    with pytest.raises(tf.errors.CancelledError, match=r"FIFOQueue '_\d+_fifo_queue' is closed\."):
        sess.run(q.enqueue(4))
    with pytest.raises(tf.errors.OutOfRangeError, match=r"FIFOQueue '_\d+_fifo_queue' is closed and has "
                                                        r"insufficient elements \(requested 5, current size 3\)"):
        sess.run(q.dequeue_many(5))
    assert sess.run(q.size()) == 3  # a failed dequeue_many takes nothing
    assert sess.run(d) == 1
    assert sess.run(q.dequeue_up_to(5)).tolist() == [2, 3]
    with pytest.raises(tf.errors.OutOfRangeError, match=r"\(requested 1, current size 0\)") as info:
        sess.run(d)
    assert info.value.op is d.op
    with pytest.raises(tf.errors.OutOfRangeError, match=r"\(requested 2, current size 0\)"):
        sess.run(q.dequeue_up_to(2))


def test_close_wakes_a_blocked_dequeue_with_out_of_range(sess):
    q = tf.FIFOQueue(5, tf.int32, shapes=[[]])
    t, out = run_in_thread(lambda: sess.run(q.dequeue_many(2)))
    sess.run(q.enqueue(1))
    time.sleep(0.05)
    sess.run(q.close())
    t.join(2.0)
    assert isinstance(out[0], tf.errors.OutOfRangeError)
    assert sess.run(q.dequeue()) == 1  # given back


@pytest.mark.parametrize("cancel", [False, True])
def test_close_keeps_or_cancels_pending_enqueues(sess, cancel):
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    sess.run(q.enqueue(1))
    t, out = run_in_thread(lambda: sess.run(q.enqueue(2)))
    time.sleep(0.1)  # let it block on the full queue
    sess.run(q.close(cancel_pending_enqueues=cancel))
    if cancel:
        t.join(2.0)
        assert isinstance(out[0], tf.errors.CancelledError) and "is closed" in str(out[0])
        assert sess.run(q.dequeue_up_to(5)).tolist() == [1]
    else:
        assert sess.run(q.dequeue()) == 1
        t.join(2.0)
        assert out == [None]
        assert sess.run(q.dequeue()) == 2


def test_dequeue_on_closed_queue_waits_for_pending_enqueue(sess):
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    t, out = run_in_thread(lambda: sess.run(q.enqueue_many([[1, 2, 3]])))
    wait_until(lambda: sess.run(q.size()) == 2)  # two in, the third waiting for room
    sess.run(q.close())
    assert sess.run(q.dequeue_many(3)).tolist() == [1, 2, 3]
    t.join(2.0)
    assert out == [None]


def test_closing_the_session_cancels_a_blocked_dequeue():
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    s = tf.Session()
    t, out = run_in_thread(lambda: s.run(q.dequeue()))
    time.sleep(0.1)  # let it block on the empty queue
    s.close()
    t.join(2.0)
    assert isinstance(out[0], tf.errors.CancelledError)


# -- concurrency ----------------------------------------------------------------------------------


def test_concurrent_producers_and_consumers_lose_and_duplicate_nothing(sess):
    q = tf.FIFOQueue(4, tf.int32, shapes=[[]])
    p = tf.placeholder(tf.int32, [None])
    enqueue, dequeue, dequeue3 = q.enqueue_many(p), q.dequeue(), q.dequeue_many(3)
    producers, per_producer, chunk = 4, 60, 5
    consumed, lock = [], threading.Lock()

    def produce(k):
        for start in range(0, per_producer, chunk):
            base = k * per_producer + start
            sess.run(enqueue, {p: np.arange(base, base + chunk, dtype=np.int32)})

    def consume(n_single, n_triple):
        got = [int(sess.run(dequeue)) for _ in range(n_single)]
        for _ in range(n_triple):
            got.extend(sess.run(dequeue3).tolist())
        with lock:
            consumed.extend(got)

    total = producers * per_producer
    threads = [threading.Thread(target=produce, args=(k,)) for k in range(producers)]
    threads += [threading.Thread(target=consume, args=(30, 10)) for _ in range(4)]  # 4 * 60 = total
    for t in threads:
        t.start()
    for t in threads:
        t.join(10.0)
    assert not any(t.is_alive() for t in threads)
    assert sorted(consumed) == list(range(total)) and sess.run(q.size()) == 0


# -- RandomShuffleQueue ---------------------------------------------------------------------------


def test_random_shuffle_queue_keeps_min_after_dequeue_until_closed(sess):
    q = tf.RandomShuffleQueue(10, 3, tf.int32, shapes=[[]])
    d = q.dequeue()
    sess.run(q.enqueue_many([[1, 2, 3, 4, 5]]))
    got = [sess.run(d), sess.run(d)]
    with pytest.raises(tf.errors.DeadlineExceededError):
        sess.run(d, options=tf.RunOptions(timeout_in_ms=50))
    with pytest.raises(tf.errors.DeadlineExceededError):  # 3 more would leave fewer than 3
        sess.run(q.dequeue_many(1), options=tf.RunOptions(timeout_in_ms=50))
    assert sess.run(q.size()) == 3
    sess.run(q.close())
    got += sess.run(q.dequeue_up_to(10)).tolist()
    assert sorted(got) == [1, 2, 3, 4, 5]
    with pytest.raises(tf.errors.OutOfRangeError, match=r"RandomShuffleQueue '_\d+_random_shuffle_queue' is "
                                                        r"closed and has insufficient elements"):
        sess.run(d)


def _shuffled_order(graph_seed, op_seed, n=20):
    g = tf.Graph()
    with g.as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        q = tf.RandomShuffleQueue(n, 0, tf.int32, shapes=[[]], seed=op_seed)
        fill, take = q.enqueue_many([list(range(n))]), q.dequeue_many(n)
        with tf.Session() as s:
            s.run(fill)
            return s.run(take).tolist()


def test_random_shuffle_queue_is_a_seeded_permutation():
    a, b = _shuffled_order(1, 2), _shuffled_order(1, 2)
    assert a == b and sorted(a) == list(range(20)) and a != list(range(20))
    assert _shuffled_order(1, 3) != a
    assert _shuffled_order(None, None) != _shuffled_order(None, None)  # fresh entropy (1 in 20! to fail)


def test_random_shuffle_queue_seed_attrs_follow_tf1():
    def seeds(q):
        return q.queue_ref.op.get_attr("seed"), q.queue_ref.op.get_attr("seed2")

    assert seeds(tf.RandomShuffleQueue(5, 0, tf.int32)) == (0, 0)
    assert seeds(tf.RandomShuffleQueue(5, 0, tf.int32, seed=3)) == (87654321, 3)
    tf.set_random_seed(5)
    # A graph seed and a shared name: seed2 comes from both (md5), not from the op count.
    assert seeds(tf.RandomShuffleQueue(5, 0, tf.int32, shared_name="sq")) == (5, 574945063)
    assert q_attr(tf.RandomShuffleQueue(5, 2, tf.int32), "min_after_dequeue") == 2


def q_attr(q, name):
    return q.queue_ref.op.get_attr(name)


# -- PaddingFIFOQueue -------------------------------------------------------------------------------


def test_padding_fifo_queue_pads_dequeue_many_only(sess):
    with pytest.raises(TypeError):
        tf.PaddingFIFOQueue(5, [tf.int32])  # shapes are required
    with pytest.raises(ValueError, match="partial shapes"):
        tf.PaddingFIFOQueue(5, [tf.int32], shapes=None)
    q = tf.PaddingFIFOQueue(5, [tf.int32, tf.string], shapes=[[None, 2], [None]])
    p1, p2 = tf.placeholder(tf.int32), tf.placeholder(tf.string)
    e = q.enqueue([p1, p2])
    sess.run(e, {p1: [[1, 2]], p2: ["a", "bb", "c"]})
    sess.run(e, {p1: [[1, 2], [3, 4], [5, 6]], p2: np.array([], object)})
    sess.run(e, {p1: [[7, 8]], p2: ["z"]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"PaddingFIFOQueue '.*': Shape mismatch in tuple "
                                                             r"component 0. Expected \[\?,2\], got \[1,3\]"):
        sess.run(e, {p1: [[1, 2, 3]], p2: ["x"]})
    dm = q.dequeue_many(2)
    assert [t.shape.as_list() for t in dm] == [[2, None, 2], [2, None]]
    ints, strs = sess.run(dm)
    assert ints.tolist() == [[[1, 2], [0, 0], [0, 0]], [[1, 2], [3, 4], [5, 6]]]
    assert strs.tolist() == [[b"a", b"bb", b"c"], [b"", b"", b""]]
    ints, strs = sess.run(q.dequeue())  # one element: not padded
    assert ints.tolist() == [[7, 8]] and strs.tolist() == [b"z"]
    empty = sess.run(q.dequeue_many(0))
    assert empty[0].shape == (0, 0, 2)


# -- PriorityQueue ---------------------------------------------------------------------------------


def test_priority_queue_dequeues_smallest_priority_first_ties_in_arrival_order(sess):
    q = tf.PriorityQueue(10, [tf.string, tf.int32], shapes=[[], [2]])
    sess.run(q.enqueue_many(([3, 1, 2, 1], ["c", "a1", "b", "a2"], [[3, 3], [1, 1], [2, 2], [1, 2]])))
    sess.run(q.enqueue((0, "z", [0, 0])))
    prio, s, v = sess.run(q.dequeue())
    assert (prio, s, v.tolist()) == (0, b"z", [0, 0]) and isinstance(prio, np.int64)
    prio, s, v = sess.run(q.dequeue_many(4))
    assert prio.tolist() == [1, 1, 2, 3] and s.tolist() == [b"a1", b"a2", b"b", b"c"]
    assert v.tolist() == [[1, 1], [1, 2], [2, 2], [3, 3]]


def test_priority_queue_gives_back_elements_of_a_timed_out_dequeue(sess):
    q = tf.PriorityQueue(10, [tf.int32], shapes=[[]])
    sess.run(q.enqueue_many(([5, 1], [50, 10])))
    with pytest.raises(tf.errors.DeadlineExceededError):
        sess.run(q.dequeue_many(3), options=tf.RunOptions(timeout_in_ms=50))
    assert sess.run(q.dequeue_many(2))[1].tolist() == [10, 50]


# -- sharing and selection --------------------------------------------------------------------------


def test_shared_name_shares_elements_and_checks_configuration(sess):
    q1 = tf.FIFOQueue(5, tf.int32, shapes=[[]], shared_name="shq")
    q2 = tf.FIFOQueue(5, tf.int32, shapes=[[]], shared_name="shq")
    sess.run(q1.enqueue(7))
    assert sess.run(q2.dequeue()) == 7
    assert sess.run(q1.queue_ref) == b":shq"
    with pytest.raises(tf.errors.InvalidArgumentError, match="Shared queue 'shq' has capacity 5 but requested "
                                                             "capacity was 6"):
        sess.run(tf.FIFOQueue(6, tf.int32, shapes=[[]], shared_name="shq").size())
    with pytest.raises(tf.errors.InvalidArgumentError, match="component types int32 but requested component types "
                                                             "was float32"):
        sess.run(tf.FIFOQueue(5, tf.float32, shapes=[[]], shared_name="shq").size())
    with pytest.raises(tf.errors.InvalidArgumentError, match="is a FIFOQueue"):
        sess.run(tf.RandomShuffleQueue(5, 0, tf.int32, shapes=[[]], shared_name="shq").size())


def test_sessions_do_not_share_queues():
    q = tf.FIFOQueue(5, tf.int32, shapes=[[]])
    with tf.Session() as a, tf.Session() as b:
        a.run(q.enqueue(1))
        assert a.run(q.size()) == 1 and b.run(q.size()) == 0


def test_from_list_selects_a_queue_at_run_time(sess):
    qs = [tf.FIFOQueue(5, tf.int32, shapes=[[]]), tf.FIFOQueue(5, tf.int32, shapes=[[]])]
    index = tf.placeholder(tf.int32, [])
    q = tf.QueueBase.from_list(index, qs)
    assert q.dtypes == [tf.int32] and q.shapes[0].as_list() == []
    e = q.enqueue(tf.constant(3) + index)
    sess.run(e, {index: 1})
    sess.run(e, {index: 0})
    assert sess.run(qs[0].dequeue()) == 3 and sess.run(qs[1].dequeue()) == 4
    with pytest.raises(TypeError, match="matching component dtypes"):
        tf.QueueBase.from_list(0, [qs[0], tf.FIFOQueue(5, tf.float32)])


def test_queue_state_interface_works_without_a_session():
    q = QueueState("q", [tf.int32, tf.float32], [tf.TensorShape([]), tf.TensorShape([2])], capacity=3)
    ctx = RunContext(timeout_ms=100)
    q.enqueue(ctx, [np.int32(1), np.array([1.0, 2.0], np.float32)])
    q.enqueue_many(ctx, [np.array([2, 3], np.int32), np.ones([2, 2], np.float32)])
    with pytest.raises(tf.errors.DeadlineExceededError):
        q.enqueue(ctx, [np.int32(4), np.zeros([2], np.float32)])
    assert q.size(ctx) == 3 and q.dequeue(ctx)[0] == 1
    assert q.dequeue_many(ctx, 1)[0].tolist() == [2]
    q.close(ctx)
    assert q.is_closed(ctx) and q.dequeue_up_to(ctx, 5)[0].tolist() == [3]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Type mismatch in tuple component 0"):
        QueueState("t", [tf.int32], None).enqueue(None, [np.float32(1.0)])
