"""Sessions on a real Dask cluster: placement, shared variables, errors.

One LocalCluster of worker processes (1 ps, 2 workers) serves the module.
"""

import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import dflow as tf

pytestmark = pytest.mark.cluster

CPU = "/job:{}/replica:0/task:{}/device:CPU:0"


@pytest.fixture(scope="module")
def cluster():
    import dflow.cluster  # noqa: F401 - registers tf.LocalCluster

    with tf.LocalCluster(ps=1, workers=2, dashboard_address=None) as c:
        yield c


@pytest.fixture(autouse=True)
def clean_cluster_state(cluster):
    yield
    tf.Session.reset(cluster.target)


def test_ops_run_where_tf_device_says_and_run_metadata_shows_it(cluster):
    with tf.device("/job:ps/task:0"):
        # (a bare constant read on another device would be copied there, not sent)
        a = tf.identity(tf.constant([1.0, 2.0]), name="a")
    with tf.device("/job:worker/task:1"):
        b = tf.multiply(a, 3.0, name="b")
    c = tf.add(b, 1.0, name="c")  # default device: /job:worker/task:0
    md = tf.RunMetadata()
    with tf.Session(cluster.target) as sess:
        out = sess.run(c, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
    np.testing.assert_allclose(out, [4.0, 7.0])
    ran = {d.device: sorted(n.node_name for n in d.node_stats) for d in md.step_stats.dev_stats}
    assert "a" in ran[CPU.format("ps", 0)]
    assert "b" in ran[CPU.format("worker", 1)]
    assert "c" in ran[CPU.format("worker", 0)]


@pytest.mark.parametrize("fuse", ["1", "0"])
def test_a_worker_fuses_the_ops_the_client_fuses(cluster, monkeypatch, fuse):
    # The worker processes started with fusion on; the client's DFLOW_FUSE_OPS decides for them
    # (the partition's spec says), so the trace's labels are the ops the worker ran.
    monkeypatch.setenv("DFLOW_FUSE_OPS", fuse)
    rng = np.random.default_rng(5)
    x, w, b = (rng.normal(size=s).astype(np.float32) for s in ((64, 32), (32, 64), (64,)))
    with tf.device("/job:worker/task:1"):
        y = tf.nn.relu(tf.nn.bias_add(tf.matmul(tf.constant(x), tf.constant(w)), tf.constant(b)), name="y")
    md = tf.RunMetadata()
    with tf.Session(cluster.target) as sess:
        out = sess.run(y, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
    np.testing.assert_allclose(out, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-5)
    labels = {n.node_name: n.timeline_label.split(" = ")[1].split("(")[0]
              for d in md.step_stats.dev_stats for n in d.node_stats}
    if fuse == "1":
        assert labels["y"] == "_FusedMatMul" and "MatMul" not in labels and "BiasAdd" not in labels
    else:
        assert labels["y"] == "Relu" and labels["MatMul"] == "MatMul" and labels["BiasAdd"] == "BiasAdd"


def test_a_partial_run_spans_the_cluster_and_runs_each_op_once(cluster):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(0.0, name="pr_v")
        inc = tf.assign_add(v, 1.0, name="pr_inc")
    a = tf.placeholder(tf.float32, [], name="pr_a")
    c = tf.placeholder(tf.float32, [], name="pr_c")
    with tf.device("/job:worker/task:1"):
        r1 = tf.add(inc, a, name="pr_r1")
    r2 = tf.multiply(inc, c, name="pr_r2")  # worker 0
    with tf.Session(cluster.target) as sess:
        sess.run(v.initializer)
        h = sess.partial_run_setup([r1, r2], [a, c])
        assert sess.partial_run(h, r1, {a: 10.0}) == 11.0
        assert sess.partial_run(h, r2, {c: 3.0}) == 3.0
        assert sess.run(v) == 1.0


def test_scheduled_runs_keep_their_worker_restrictions(cluster):
    """With runs as Dask tasks, each partition runs on its device's worker:
    the restrictions survive Dask's graph optimisation (dask/dask#7036)."""
    import dask
    from distributed import get_task_stream

    with tf.device("/job:ps/task:0"):
        a = tf.identity(tf.constant([1.0, 2.0]), name="on_ps")
    with tf.device("/job:worker/task:1"):
        b = tf.multiply(a, 3.0, name="on_w1")
    with tf.device("/job:worker/task:0"):
        c = tf.add(b, 1.0, name="on_w0")
    with cluster.client() as client, dask.config.set({"dflow.cluster.runs": "scheduler"}):
        names = {addr: w["name"] for addr, w in client.scheduler_info(n_workers=-1)["workers"].items()}
        with tf.Session(cluster.target) as sess, get_task_stream(client=client) as ts:
            np.testing.assert_allclose(sess.run(c), [4.0, 7.0])
        ran = {rec["key"].rsplit("-", 1)[0]: names[rec["worker"]] for rec in ts.data if "on_" in rec["key"]}
    assert ran == {"on_ps": "/job:ps/task:0", "on_w1": "/job:worker/task:1", "on_w0": "/job:worker/task:0"}


def test_direct_runs_send_each_partition_to_its_worker_only(cluster):
    """Direct runs (the default) bypass the scheduler: no task reaches it (what the task stream
    shows of them are the workers' reports of their partitions, named after the ops)."""
    from distributed import get_task_stream

    def transitions(dask_scheduler=None):
        return dask_scheduler.transition_counter

    with tf.device("/job:ps/task:0"):
        v = tf.Variable([1.0, 2.0], name="direct_v")
    with tf.device("/job:worker/task:1"):
        b = tf.multiply(v, 3.0)
    with tf.Session(cluster.target) as sess:
        sess.run(v.initializer)
        sess.run(b)  # installs the graph (one client.run) and warms the plan
        with cluster.client() as client, get_task_stream(client=client) as ts:
            before = client.run_on_scheduler(transitions)
            for _ in range(3):
                np.testing.assert_allclose(sess.run(b), [3.0, 6.0])
            assert client.run_on_scheduler(transitions) == before
    assert {r["key"].rsplit("-", 1)[0] for r in ts.data} <= {op.name for op in v.graph.get_operations()}


def test_runs_from_many_threads_and_from_inside_an_event_loop(cluster):
    """Each thread makes its calls on a loop and connections of its own; a
    thread already running an event loop goes through the Dask client."""
    import asyncio
    import threading

    with tf.device("/job:ps/task:0"):
        v = tf.Variable(0.0, name="threads_v")
        inc = v.assign_add(1.0)
    sess = tf.Session(cluster.target)
    sess.run(v.initializer)

    def work():
        for _ in range(25):
            sess.run(inc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sess.run(v) == 100.0
    runtime = sess._runtime
    callers = [c for _, c in runtime._caller_loops]
    assert len(callers) == 5  # this thread's and the four workers'

    async def inside_a_loop():
        return sess.run(inc)

    assert asyncio.run(inside_a_loop()) == 101.0
    assert len(runtime._caller_loops) == 5
    sess.close()
    assert runtime._caller_loops == [] and all(c.loop.is_closed() for c in callers)


def test_a_queue_runner_loops_on_its_queues_worker_and_stops_with_its_coordinator(cluster, monkeypatch):
    """The enqueue op of a queue runner whose run is one partition of a remote
    worker loops there; stopping the coordinator stops it, so does a lapsed
    lease, and a failing run reaches the coordinator."""
    from dflow.sessions import cluster_runtime, worker_state

    with tf.device("/job:ps/task:0"):
        counter = tf.Variable(0, name="qr_counter")
        q = tf.FIFOQueue(100, tf.int32, shapes=[], name="qr_q")
        enqueue = q.enqueue(counter.assign_add(1))
        # stopping the coordinator closes q (TF1: later enqueues to it are CancelledError), so the
        # other runners get queues of their own; the failing one reads past the end of [7, 8]
        q2 = tf.FIFOQueue(100, tf.int32, shapes=[], name="qr_q2")
        enqueue2 = q2.enqueue(counter.assign_add(1))
        q3 = tf.FIFOQueue(100, tf.int32, shapes=[], name="qr_q3")
        failing = q3.enqueue(tf.gather(tf.constant([7, 8]), counter.assign_add(1), name="too_many"))
        take = q.dequeue()
    with cluster.client() as client, tf.Session(cluster.target) as sess:
        sess.run(counter.initializer)
        coord = tf.train.Coordinator()
        threads = tf.train.QueueRunner(q, [enqueue]).create_threads(sess, coord=coord, start=True)
        assert [sess.run(take) for _ in range(5)] == [1, 2, 3, 4, 5]
        loops = client.run(lambda: len(worker_state._LOOPS))
        assert sorted(loops.values()) == [0, 0, 1]  # running on the ps, not through this process
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
        assert not any(t.is_alive() for t in threads)
        assert sum(client.run(lambda: len(worker_state._LOOPS)).values()) == 0

        # A loop whose session stops renewing it (its process died) stops by itself.
        monkeypatch.setattr(cluster_runtime, "_LOOP_RENEW_S", 3600.0)
        client.run(lambda: setattr(worker_state, "_LOOP_LEASE_S", 1.0))
        try:
            coord = tf.train.Coordinator()
            runner, closer = tf.train.QueueRunner(q2, [enqueue2]).create_threads(sess, coord=coord, start=True)
            runner.join(timeout=15)  # the enqueue loop; the closer waits for the coordinator, as in TF1
            assert not runner.is_alive()
            assert sum(client.run(lambda: len(worker_state._LOOPS)).values()) == 0
            coord.request_stop()
            coord.join([runner, closer], stop_grace_period_secs=10)
        finally:
            client.run(lambda: setattr(worker_state, "_LOOP_LEASE_S", 15.0))

        sess.run(counter.initializer)
        coord = tf.train.Coordinator()
        threads = tf.train.QueueRunner(q3, [failing]).create_threads(sess, coord=coord, start=True)
        with pytest.raises(tf.errors.InvalidArgumentError, match="too_many"):
            coord.join(threads, stop_grace_period_secs=10)


def test_variables_are_shared_by_sessions_on_the_cluster(cluster):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(10.0, name="shared_v")
    inc = v.assign_add(1.0)
    with tf.Session(cluster.target) as s1:
        s1.run(v.initializer)
        s1.run(inc)
    with tf.Session(cluster.target) as s2:
        assert s2.run(v) == 11.0
        assert s2.run(tf.report_uninitialized_variables()).tolist() == []


def test_variables_are_shared_with_another_process(cluster):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(0.0, name="xproc")
    with tf.Session(cluster.target) as sess:
        sess.run(v.initializer)
        sess.run(v.assign_add(5.0))
    script = textwrap.dedent(f"""
        import dflow as tf
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(0.0, name="xproc")
        with tf.Session({cluster.target!r}) as sess:
            print(float(sess.run(v.assign_add(2.0))))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "7.0"
    with tf.Session(cluster.target) as sess:
        assert sess.run(v) == 7.0


def test_concurrent_updates_from_many_processes_sum_exactly(cluster):
    with tf.device("/job:ps/task:0"):
        counter = tf.Variable(0, dtype=tf.int64, name="counter")
    with tf.Session(cluster.target) as sess:
        sess.run(counter.initializer)
    adder = textwrap.dedent("""
        import sys
        import dflow as tf
        with tf.device("/job:ps/task:0"):
            counter = tf.Variable(0, dtype=tf.int64, name="counter")
        inc = tf.assign_add(counter, tf.constant(1, tf.int64))
        with tf.Session(sys.argv[1]) as s:
            for _ in range(25):
                s.run(inc)
    """)
    procs = [subprocess.Popen([sys.executable, "-c", adder, cluster.target]) for _ in range(3)]
    inc = tf.assign_add(counter, tf.constant(1, tf.int64))
    with tf.Session(cluster.target) as sess:
        for _ in range(25):  # and this process too, at the same time
            sess.run(inc)
        assert all(p.wait(60) == 0 for p in procs)
        assert sess.run(counter) == 100


def test_training_step_on_the_cluster_matches_local(cluster):
    def build(ps_device):
        with tf.device(ps_device):
            w = tf.Variable([[0.5], [-0.3]], name="w")
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        loss = tf.reduce_sum(tf.square(tf.matmul(x, w) - 1.0))
        return w, tf.train.GradientDescentOptimizer(0.01).minimize(loss)

    g_local, g_cluster = tf.Graph(), tf.Graph()
    with g_local.as_default():
        w1, step1 = build(None)
    with g_cluster.as_default():
        w2, step2 = build("/job:ps/task:0")
    with tf.Session(graph=g_local) as s:
        s.run(w1.initializer)
        for _ in range(3):
            s.run(step1)
        want = s.run(w1)
    with tf.Session(cluster.target, graph=g_cluster) as s:
        s.run(w2.initializer)
        for _ in range(3):
            s.run(step2)
        np.testing.assert_allclose(s.run(w2), want, rtol=1e-6)


def test_fetched_ref_variables_on_a_parameter_server_are_their_values_after_the_step(cluster):
    # The weights and the step live on the ps; the gradient is computed on a worker, so the ps runs
    # one partition that reads w and a later one that updates it: the fetches come from the last.
    # TF 2.15 (ref variables) gives the same as a local run: [None, 1, [0.8, 1.6], [0.8, 1.6]].
    with tf.device("/job:ps/task:0"):
        w = tf.Variable([1.0, 2.0], name="w")
        gs = tf.train.get_or_create_global_step()
    with tf.device("/job:worker/task:1"):
        loss = tf.reduce_sum(w * w)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    with tf.Session(cluster.target) as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([train, gs, w, w.read_value()])
        assert got[0] is None and int(got[1]) == 1
        np.testing.assert_allclose(got[2], [0.8, 1.6], rtol=1e-6)
        np.testing.assert_allclose(got[3], [0.8, 1.6], rtol=1e-6)
        assert int(sess.run([train, gs])[1]) == 2


def test_kernel_error_on_a_worker_names_the_op(cluster):
    p = tf.placeholder(tf.float32, [None])
    with tf.device("/job:worker/task:1"):
        bad = tf.reshape(p, [4], name="bad_reshape")
    with tf.Session(cluster.target) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(bad, {p: [1.0, 2.0, 3.0]})
        assert info.value.op is bad.op
        assert sess.run(bad, {p: [1.0, 2.0, 3.0, 4.0]}).tolist() == [1.0, 2.0, 3.0, 4.0]


def test_unknown_job_is_a_placement_error(cluster):
    with tf.device("/job:nosuchjob/task:0"):
        c = tf.constant(1.0, name="lost")
    with tf.Session(cluster.target) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot assign a device for operation lost"):
            sess.run(c)


def test_unreachable_target_is_unavailable_quickly():
    start = time.monotonic()
    with pytest.raises(tf.errors.UnavailableError, match="127.0.0.1:9"):
        tf.Session("tcp://127.0.0.1:9", config=tf.ConfigProto(operation_timeout_in_ms=2000))
    assert time.monotonic() - start < 15


def test_dequeue_in_one_process_is_served_by_an_enqueue_from_another(cluster):
    with tf.device("/job:ps/task:0"):
        q = tf.FIFOQueue(5, [tf.float32], shapes=[[]], shared_name="handoff", name="handoff")
    item = q.dequeue()
    producer = textwrap.dedent("""
        import sys, time
        import dflow as tf
        with tf.device("/job:ps/task:0"):
            q = tf.FIFOQueue(5, [tf.float32], shapes=[[]], shared_name="handoff", name="handoff")
        put = q.enqueue([42.0])
        time.sleep(1.0)  # the consumer is blocked on the empty queue by then
        with tf.Session(sys.argv[1]) as s:
            s.run(put)
    """)
    proc = subprocess.Popen([sys.executable, "-c", producer, cluster.target])
    try:
        with tf.Session(cluster.target) as s:
            # Blocked on the empty queue, holding no worker thread: the other process's enqueue gets through.
            assert s.run(item, options=tf.RunOptions(timeout_in_ms=60000)) == 42.0
    finally:
        assert proc.wait(60) == 0


def test_deadline_on_a_cluster_leaves_the_queue_usable(cluster):
    with tf.device("/job:ps/task:0"):
        q = tf.FIFOQueue(5, [tf.float32], shapes=[[]], shared_name="slow", name="slow")
    item = q.dequeue()
    with tf.Session(cluster.target) as s:
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError):
            s.run(item, options=tf.RunOptions(timeout_in_ms=500))
        assert time.monotonic() - start < 5.0
        s.run(q.enqueue([1.0]))
        assert s.run(item) == 1.0


@pytest.mark.slow
def test_a_killed_worker_gives_a_clear_error_not_a_hang():
    import psutil

    with tf.LocalCluster(ps=1, workers=1, dashboard_address=None) as c:
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="doomed")
        step = v.assign_add(1.0)
        with tf.Session(c.target) as sess:
            sess.run(v.initializer)
            client = c.client()
            names = {addr: w["name"] for addr, w in client.scheduler_info()["workers"].items()}
            pids = client.run(lambda: __import__("os").getpid())
            psutil.Process(next(p for a, p in pids.items() if names[a] == "/job:ps/task:0")).kill()
            client.close()
            start = time.monotonic()
            with pytest.raises(tf.errors.UnavailableError, match=r"/job:ps/replica:0/task:0"):
                for _ in range(100):
                    sess.run(step)
                    time.sleep(0.05)
            assert time.monotonic() - start < 20
            # The nanny restarts the worker: the next runs are planned onto it, state re-initialized.
            deadline = time.monotonic() + 30
            while True:
                try:
                    sess.run(v.initializer)
                    break
                except tf.errors.UnavailableError:
                    assert time.monotonic() < deadline
                    time.sleep(0.5)
            assert sess.run(step) == 2.0


def test_session_reset_clears_variables_for_every_session(cluster):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(3.0, name="reset_me")
        q = tf.FIFOQueue(2, [tf.float32], shared_name="reset_q")
    with tf.Session(cluster.target) as sess:
        sess.run(v.initializer)
        sess.run(q.enqueue([1.0]))
        assert sess.run(v) == 3.0
        tf.Session.reset(cluster.target)
        # The same session, with its plans and the workers' programs cached, sees the reset.
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value reset_me"):
            sess.run(v)
        assert sess.run(tf.report_uninitialized_variables()).tolist() == [b"reset_me"]
        assert sess.run(q.size()) == 0


def test_large_values_cross_workers_intact(cluster):
    """Above 256 KiB, values travel as Dask frames rather than one pickle: both ways give the same."""
    big = np.arange(200_000, dtype=np.float32)
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(big, name="big_v")
    with tf.device("/job:worker/task:1"):
        twice = v * 2.0
        small = tf.reduce_sum(v[:10])
    with tf.Session(cluster.target) as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(twice), big * 2.0)
        assert sess.run(small) == 45.0
        np.testing.assert_array_equal(sess.run(twice, {v: big + 1.0}), (big + 1.0) * 2.0)
