"""tf.train.QueueRunner, start_queue_runners and tf.train.Coordinator."""

import threading
import time

import pytest

import dflow as tf


def source_queue(sess, n):
    """A closed queue holding 0 .. n-1."""
    src = tf.FIFOQueue(n, tf.int32, shapes=[[]], name="src")
    sess.run(src.enqueue_many([list(range(n))]))
    sess.run(src.close())
    return src


def drain(sess, tensor):
    out = []
    with pytest.raises(tf.errors.OutOfRangeError):
        while True:
            out.append(int(sess.run(tensor)))
    return out


# -- QueueRunner ----------------------------------------------------------------------------


def test_runner_threads_fill_a_queue_until_the_input_ends_then_close_it(sess):
    src = source_queue(sess, 50)
    dst = tf.FIFOQueue(4, tf.int32, shapes=[[]], name="dst")
    qr = tf.train.QueueRunner(dst, [dst.enqueue(src.dequeue())] * 3)
    assert qr.name == "dst" and qr.close_op.name == "dst_Close" and qr.cancel_op.name == "dst_Close_1"
    assert qr.queue_closed_exception_types == (tf.errors.OutOfRangeError,)
    coord = tf.train.Coordinator()
    threads = qr.create_threads(sess, coord=coord, start=True)
    assert len(threads) == 4 and all(not t.daemon for t in threads)
    assert [t.name for t in threads][-1] == "QueueRunnerThread-dst-close_on_stop"
    assert sorted(drain(sess, dst.dequeue())) == list(range(50))
    assert sess.run(dst.is_closed())
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=5)


def test_start_queue_runners_uses_the_collection_and_default_session(sess):
    src = source_queue(sess, 10)
    dst = tf.FIFOQueue(3, tf.int32, shapes=[[]])
    tf.train.add_queue_runner(tf.train.QueueRunner(dst, [dst.enqueue(src.dequeue())]))
    assert len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)) == 1
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(coord=coord)  # the sess fixture is the default session
    assert len(threads) == 2 and all(t.daemon for t in threads)
    assert drain(sess, dst.dequeue()) == list(range(10))
    coord.request_stop()
    coord.join(threads)
    assert tf.train.queue_runner.start_queue_runners is tf.train.start_queue_runners


def test_start_queue_runners_needs_a_session():
    with pytest.raises(ValueError, match="No default session"):
        tf.train.start_queue_runners()
    with pytest.raises(TypeError, match="must be a `tf.Session`"):
        tf.train.start_queue_runners(sess=object())


def test_a_runner_error_reaches_the_coordinator_and_join_reraises_it(sess):
    src = tf.FIFOQueue(5, tf.int32)  # no shapes: a bad element gets through
    dst = tf.FIFOQueue(5, tf.int32, shapes=[[2]], name="dst")
    sess.run(src.enqueue([[1, 2, 3]]))
    qr = tf.train.QueueRunner(dst, [dst.enqueue(src.dequeue())])
    coord = tf.train.Coordinator()
    threads = qr.create_threads(sess, coord=coord, start=True)
    assert coord.wait_for_stop(2.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch in tuple component 0"):
        coord.join(threads, stop_grace_period_secs=5)


def test_without_a_coordinator_errors_are_kept_in_exceptions_raised(sess, monkeypatch):
    monkeypatch.setattr(threading, "excepthook", lambda args: None)  # the thread re-raises, as in TF1
    src = tf.FIFOQueue(5, tf.int32)
    dst = tf.FIFOQueue(5, tf.int32, shapes=[[2]])
    sess.run(src.enqueue([[1, 2, 3]]))
    qr = tf.train.QueueRunner(dst, [dst.enqueue(src.dequeue())])
    threads = qr.create_threads(sess, start=True)
    for t in threads:
        t.join(2.0)
    assert len(qr.exceptions_raised) == 1
    assert isinstance(qr.exceptions_raised[0], tf.errors.InvalidArgumentError)


def test_a_stop_request_cancels_enqueues_blocked_on_a_full_queue(sess):
    q = tf.FIFOQueue(2, tf.float32, shapes=[[]])
    qr = tf.train.QueueRunner(q, [q.enqueue(1.0)] * 2)
    coord = tf.train.Coordinator()
    threads = qr.create_threads(sess, coord=coord, start=True)
    assert qr.create_threads(sess, coord=coord) == []  # still running for this session
    while sess.run(q.size()) < 2:
        time.sleep(0.005)
    time.sleep(0.02)  # both threads now wait for room
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=2)
    assert not any(t.is_alive() for t in threads) and sess.run(q.is_closed())
    assert len(qr.create_threads(sess)) == 2  # done: may start again


def test_queue_runner_argument_checks():
    q = tf.FIFOQueue(2, tf.float32)
    with pytest.raises(ValueError, match="Must provide queue and enqueue_ops"):
        tf.train.QueueRunner(q, [])
    with pytest.raises(TypeError, match="tuple of tf.error types"):
        tf.train.QueueRunner(q, [q.enqueue(1.0)], queue_closed_exception_types=[tf.errors.OutOfRangeError])
    qr = tf.train.QueueRunner(q, [q.enqueue(1.0)], queue_closed_exception_types=(tf.errors.OutOfRangeError,
                                                                                  tf.errors.CancelledError))
    assert qr.queue is q and len(qr.enqueue_ops) == 1


# -- Coordinator --------------------------------------------------------------------------------


def test_coordinator_stop_requests_and_waiting():
    coord = tf.train.Coordinator()
    assert not coord.should_stop() and not coord.wait_for_stop(0.01)
    threading.Timer(0.05, coord.request_stop).start()
    assert coord.wait_for_stop(2.0) and coord.should_stop()
    coord.clear_stop()
    assert not coord.should_stop()


def test_join_reraises_the_first_reported_exception():
    coord = tf.train.Coordinator()

    def fail(ex, delay):
        time.sleep(delay)
        with coord.stop_on_exception():
            raise ex

    threads = [threading.Thread(target=fail, args=(ValueError("first"), 0.0)),
               threading.Thread(target=fail, args=(RuntimeError("second"), 0.05))]
    for t in threads:
        t.start()
    with pytest.raises(ValueError, match="first"):
        coord.join(threads)
    assert coord.joined
    with pytest.raises(KeyError):  # a report after join raises at once
        coord.request_stop(KeyError("late"))
    with pytest.raises(ValueError, match="first"):
        coord.raise_requested_exception()
    coord.clear_stop()
    assert not coord.joined
    coord.raise_requested_exception()  # nothing left to raise


@pytest.mark.parametrize("clean, raised", [(None, False), ((), True), ((KeyError,), False)])
def test_clean_stop_exception_types(clean, raised):
    ex = tf.errors.OutOfRangeError(None, None, "end") if clean != (KeyError,) else KeyError("k")
    coord = tf.train.Coordinator(clean_stop_exception_types=clean)
    coord.request_stop(ex)
    assert coord.should_stop()
    if raised:
        with pytest.raises(type(ex)):
            coord.join([])
    else:
        coord.join([])


def test_join_reports_threads_that_outlive_the_grace_period():
    coord = tf.train.Coordinator()
    release = threading.Event()
    t = threading.Thread(target=release.wait, name="straggler")
    coord.register_thread(t)
    t.start()
    coord.request_stop()
    with pytest.raises(RuntimeError, match="threads still running: straggler"):
        coord.join(stop_grace_period_secs=0.05)
    coord.clear_stop()
    coord.request_stop()
    coord.join([t], stop_grace_period_secs=0.05, ignore_live_threads=True)
    release.set()
    t.join()


def test_looper_thread_calls_its_target_until_stopped():
    coord = tf.train.Coordinator()
    calls = []
    looper = tf.train.LooperThread.loop(coord, 0.01, target=calls.append, args=(1,))
    time.sleep(0.08)
    coord.request_stop()
    coord.join([looper])
    assert len(calls) >= 3 and not looper.is_alive()
    with pytest.raises(ValueError, match="must be a Coordinator"):
        tf.train.LooperThread(object(), 1.0)


def test_a_stop_caused_by_a_lost_task_leaves_the_queue_open_for_the_next_session():
    """A monitored session replaces a session that lost a task and feeds the same queues (on a cluster
    they outlive it): the runner's stop does not close its queue then, as it does on any other stop."""
    for cause, closed in ((tf.errors.UnavailableError(None, None, "lost"), False), (None, True)):
        with tf.Graph().as_default():
            q = tf.FIFOQueue(4, [tf.float32])
            qr = tf.train.QueueRunner(q, [q.enqueue([1.0])])
            size, is_closed = q.size(), q.is_closed()
            release = q.close(cancel_pending_enqueues=True)
            with tf.Session() as sess:
                coord = tf.train.Coordinator()
                threads = qr.create_threads(sess, coord=coord, start=True)
                while sess.run(size) < 4:
                    time.sleep(0.01)
                coord.request_stop(cause)
                closer = threads[-1]  # the thread that closes the queue on a stop, or leaves it open
                closer.join(10)
                assert not closer.is_alive()
                assert bool(sess.run(is_closed)) is closed
                sess.run(release)  # lets the enqueue thread, blocked on the full queue, finish
                for t in threads:
                    t.join(10)


# -- QueueRunnerDef: to_proto, from_proto and meta graphs (TF1's names and fields) --------------------------


def test_a_runner_round_trips_through_its_queue_runner_def(sess):
    src = source_queue(sess, 5)
    q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    qr = tf.train.QueueRunner(q, [q.enqueue(src.dequeue())], queue_closed_exception_types=(tf.errors.OutOfRangeError,))
    proto = qr.to_proto()
    assert proto.to_dict() == {"queue_name": "fifo_queue", "enqueue_op_name": ["fifo_queue_enqueue"],
                               "close_op_name": "fifo_queue_Close", "cancel_op_name": "fifo_queue_Close_1",
                               "queue_closed_exception_types": [11]}  # TF 2.15's names and code
    again = tf.train.QueueRunner.from_proto(proto)
    assert again.name == "fifo_queue" and again.enqueue_ops == qr.enqueue_ops
    assert again.queue_closed_exception_types == (tf.errors.OutOfRangeError,)
    for t in again.create_threads(sess, start=True):
        t.join()
    assert drain(sess, q.dequeue()) == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="mutually exclusive"):
        tf.train.QueueRunner(q, [q.enqueue(1)], queue_runner_def=proto)
    assert qr.to_proto(export_scope="elsewhere") is None


def test_bad_queue_runner_defs_are_value_errors():
    from dflow.train.queue_runner import QueueRunnerDef

    for bad, field in (({"queue_name": 3}, "queue_name"), ({"enqueue_op_name": "x"}, "enqueue_op_name"),
                       ({"queue_closed_exception_types": [999]}, "queue_closed_exception_types")):
        with pytest.raises(ValueError, match=field):
            QueueRunnerDef.from_dict(bad)
    with pytest.raises(ValueError, match="Not a QueueRunnerDef"):
        QueueRunnerDef.from_dict({"queue": "q"})


def test_an_imported_meta_graph_brings_its_queue_runners(tmp_path):
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, tf.float32, shapes=[[]], name="q")
        counter = tf.Variable(0.0, name="counter")
        tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(tf.assign_add(counter, 1.0))]))
        q.dequeue(name="next")
        tf.train.export_meta_graph(str(tmp_path / "model.meta"))
    with tf.Graph().as_default():
        tf.train.import_meta_graph(str(tmp_path / "model.meta"), import_scope="restored")
        (runner,) = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
        assert runner.name == "restored/q"
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(s, coord=coord)
            assert sorted(float(s.run("restored/next:0")) for _ in range(3)) == [1.0, 2.0, 3.0]
            coord.request_stop()
            coord.join(threads)
