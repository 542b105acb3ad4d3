"""A Dask cluster from the command lines where one worker carries a TF task name and one does not.

`dask scheduler`, `dask worker --name /job:ps/task:0` and a plain `dask worker`:
the plain worker serves `/job:worker/task:0`, so TF1 scripts written for a ps
and a worker run; variable reads ordered by control dependencies see the updates
in direct cluster runs and in queue-runner loops on the ps, as TF1 (figures from
TF 2.15 compat.v1); and a graph naming a task nobody serves is a clear error.
"""

import logging

import numpy as np
import pytest

import dflow as tf

from .conftest import dask_cli_cluster

pytestmark = [pytest.mark.cluster, pytest.mark.slow]


@pytest.fixture(scope="module")
def mixed_target(tmp_path_factory):
    with dask_cli_cluster(tmp_path_factory.mktemp("mixed"), ["/job:ps/task:0", None]) as target:
        yield target


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default():
        yield


def test_replica_device_setter_script_runs_and_the_mapping_is_logged_once(mixed_target, caplog, capfd):
    with tf.device(tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:0")):
        w = tf.Variable([1.0, -1.0], name="mixed_w")
        loss = tf.reduce_sum(tf.square(w))
        train = tf.train.GradientDescentOptimizer(0.25).minimize(loss)
    from dflow.sessions import cluster_devices

    cluster_devices._logged_mappings.pop(mixed_target, None)
    config = tf.ConfigProto(log_device_placement=True)
    with caplog.at_level(logging.INFO, logger="dflow.cluster"):
        with tf.Session(mixed_target, config=config) as sess:
            sess.run(w.initializer)
            sess.run(train)
            np.testing.assert_allclose(sess.run(w), [0.5, -0.5])
        with tf.Session(mixed_target) as again:
            again.run(w)
    logged = [r.getMessage() for r in caplog.records if r.name == "dflow.cluster"]
    assert len(logged) == 1, logged  # once per process, not once per session
    assert "(named '/job:ps/task:0'): /job:ps/replica:0/task:0" in logged[0]
    assert "(unnamed): /job:worker/replica:0/task:0" in logged[0]
    err = capfd.readouterr().err
    assert "Device mapping:" in err and "(unnamed): /job:worker/replica:0/task:0" in err
    assert "mixed_w: (VariableV2): /job:ps/replica:0/task:0/device:CPU:0" in err


def test_control_dependency_reads_in_direct_runs_across_ps_and_worker(mixed_target):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0, name="cd_v")
        x = tf.Variable(2.0, name="cd_x")
    with tf.device("/job:worker/task:0"):
        with tf.control_dependencies([tf.assign_add(v, 1.0)]):
            y = tf.identity(v) * 1.0
        loss = tf.square(x)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.control_dependencies([train]):
            after = [tf.identity(loss), tf.identity(x)]
    with tf.Session(mixed_target) as sess:
        sess.run([v.initializer, x.initializer])
        assert [sess.run(y), sess.run(y)] == [2.0, 3.0]
        np.testing.assert_allclose(sess.run(after), [4.0, 1.6], rtol=1e-6)
        np.testing.assert_allclose(sess.run(after), [2.56, 1.28], rtol=1e-6)


def test_a_queue_runner_loop_on_the_ps_enqueues_values_read_after_each_increment(mixed_target):
    with tf.device("/job:ps/task:0"):
        counter = tf.Variable(0.0, name="loop_counter")
        q = tf.FIFOQueue(10, [tf.float32], shared_name="loop_q")
        with tf.control_dependencies([tf.assign_add(counter, 1.0)]):
            enqueue = q.enqueue([tf.identity(counter)])
    qr = tf.train.QueueRunner(q, [enqueue])
    with tf.Session(mixed_target) as sess:
        sess.run(counter.initializer)
        coord = tf.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, start=True)
        got = [sess.run(q.dequeue()) for _ in range(5)]
        coord.request_stop()
        sess.run(q.close(cancel_pending_enqueues=True))
        coord.join(threads)
    assert got == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_a_task_no_worker_serves_lists_what_the_graph_needs_and_what_the_cluster_has(mixed_target):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0, name="needs_v")
    with tf.device("/job:worker/task:3"):
        y = v * 2.0
    with tf.Session(mixed_target) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run([v.initializer, y])
        msg = str(e.value)
        assert "The graph names the tasks /job:ps/task:0, /job:worker/task:3" in msg
        assert "(named '/job:ps/task:0'): /job:ps/replica:0/task:0" in msg
        assert "(unnamed): /job:worker/replica:0/task:0" in msg
        # Nothing ran: the variable is still uninitialised, and the session goes on working.
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(v)
        sess.run(v.initializer)
        assert sess.run(v) == 1.0


def test_a_dask_scheduler_without_dflow_keeps_its_pages_and_workers_record_no_spans(mixed_target):
    import time

    from distributed import Client

    with tf.device("/job:worker/task:0"):
        y = tf.constant(2.0) * 3.0
    with tf.Session(mixed_target) as sess:
        assert sess.run(y) == 6.0
    with Client(mixed_target, timeout=30) as client:
        assert "dflow" not in client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.extensions))

        def recording(dask_worker=None):
            from dflow.dashboard.spans import RECORDER

            return RECORDER.watching, "dflow-spans" in dask_worker.periodic_callbacks

        time.sleep(1.5)
        assert set(client.run(recording).values()) == {(False, False)}  # never started, nothing recorded
