"""tf.train.Server: this process joins a Dask scheduler as a named task."""

import threading
import time

import pytest

import dflow as tf
from dflow.cluster import Server, process_tuning
from dflow.framework import errors
from dflow.placement.device_map import full_device_names, map_devices

from .conftest import scheduler_workers


def test_no_scheduler_is_a_value_error_that_says_where_to_put_one(monkeypatch):
    monkeypatch.delenv("DFLOW_SCHEDULER", raising=False)
    with pytest.raises(ValueError, match="'scheduler' job.*DFLOW_SCHEDULER"):
        Server({"ps": ["127.0.0.1:0"], "worker": ["127.0.0.1:0"]}, job_name="worker", task_index=0)


@pytest.mark.cluster
def test_server_joins_a_running_cluster_as_a_named_task(local_cluster, cluster_client, monkeypatch):
    # The LocalCluster's spec lists TF1's jobs only; the scheduler rides along outside them.
    cluster_spec = local_cluster.cluster_spec
    assert cluster_spec.jobs == ["ps", "worker"] and cluster_spec.num_tasks("worker") == 2
    assert set(cluster_spec.as_dict()) == {"ps", "worker"} and cluster_spec.scheduler == local_cluster.target
    assert tf.train.ClusterSpec(cluster_spec).scheduler == local_cluster.target
    # Through a scheduler job in a user's spec, listening on the port the spec gives (0: any).
    spec = cluster_spec.as_dict()
    spec["worker"].append("127.0.0.1:0")
    spec["scheduler"] = [local_cluster.target[len("tcp://"):]]
    threads_before = process_tuning.compute_threads()
    with Server(spec, job_name="worker", task_index=2, gpus=1, nthreads=2) as server:
        # three worker tasks on this host: the server's process takes a third of the cores for BLAS
        assert process_tuning.compute_threads() == max(1, process_tuning.cpu_count() // 3)
        assert server.target == local_cluster.target
        assert server.is_running
        workers = scheduler_workers(cluster_client)
        assert workers["/job:worker/task:2"] == (server.worker_address, {"GPU": 1}, 2)
        infos = [(address, name, resources) for name, (address, resources, _) in workers.items()]
        assert "/job:worker/replica:0/task:2/device:GPU:0" in full_device_names(map_devices(infos))
    assert not server.is_running
    assert process_tuning.compute_threads() == threads_before
    deadline = time.monotonic() + 10
    while "/job:worker/task:2" in scheduler_workers(cluster_client) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "/job:worker/task:2" not in scheduler_workers(cluster_client)

    # Through $DFLOW_SCHEDULER, with a bare host:port.
    monkeypatch.setenv("DFLOW_SCHEDULER", local_cluster.target[len("tcp://"):])
    server = Server({"ps": {1: "127.0.0.1:0"}}, job_name="ps", task_index=1, start=False)
    assert not server.is_running and server.worker_address is None
    server.start()
    try:
        assert scheduler_workers(cluster_client)["/job:ps/task:1"][0] == server.worker_address
    finally:
        server.stop()
        server.stop()


@pytest.mark.cluster
def test_a_session_on_a_server_runs_its_own_task_in_process(local_cluster, monkeypatch):
    """Between-graph replication as in TF1: the worker process is a Server;
    partitions of its own task run in the process, those of the ps remotely."""
    import numpy as np

    import dflow as tf
    from dflow.sessions import worker_state

    spec = local_cluster.cluster_spec.as_dict()
    spec["worker"] = spec["worker"] + ["127.0.0.1:0"] * 2
    spec = tf.train.ClusterSpec(spec, scheduler=local_cluster.target)
    ran_here = []
    run_here = worker_state.run_here
    monkeypatch.setattr(worker_state, "run_here", lambda *a: ran_here.append(a[0].device) or run_here(*a))
    g = tf.Graph()
    with g.as_default(), Server(spec, job_name="worker", task_index=3) as server:
        with tf.device(tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:3")):
            w = tf.Variable([1.0, 2.0], name="in_process_w")
            loss = tf.reduce_sum(tf.square(w))
            train = tf.train.GradientDescentOptimizer(0.25).minimize(loss)
            # tf.data on the cluster: the pipeline is Python, built in the process of its task.
            ds = tf.data.Dataset.from_tensor_slices(np.arange(5.0, dtype=np.float32)).map(lambda x: x * 2).batch(2)
            it = ds.make_initializable_iterator()
            nxt = it.get_next()
        with tf.device("/job:worker/task:0"):  # a task of another process
            remote_it = ds.make_initializable_iterator()
        with tf.Session(server.target) as sess:
            sess.run(w.initializer)
            sess.run(train)
            np.testing.assert_allclose(sess.run(w), [0.5, 1.0])
            sess.run(it.initializer)
            np.testing.assert_allclose(sess.run(nxt), [0.0, 2.0])
            np.testing.assert_allclose(sess.run(nxt), [4.0, 6.0])
            np.testing.assert_allclose(sess.run(nxt), [8.0])
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)
            with pytest.raises(tf.errors.UnimplementedError, match="tf.train.Server"):
                sess.run(remote_it.initializer)
    assert "/job:worker/replica:0/task:3/device:CPU:0" in ran_here
    assert not any("/job:ps" in d for d in ran_here)


@pytest.mark.cluster
def test_scheduler_task_and_join_returning_when_the_scheduler_goes():
    from distributed import Client

    scheduler = Server({"scheduler": ["127.0.0.1:0"]}, dashboard_address=None)
    address = scheduler.target[len("tcp://"):]
    worker = Server({"scheduler": [address], "worker": ["127.0.0.1:0"]})
    try:
        with Client(scheduler.target, timeout=10) as client:
            names = [w["name"] for w in client.scheduler_info(n_workers=-1)["workers"].values()]
            assert names == ["/job:worker/task:0"]
            assert client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.WORKER_SATURATION) == float("inf")
        with pytest.raises(errors.AlreadyExistsError, match="already has a worker named /job:worker/task:0"):
            Server({"scheduler": [address], "worker": ["127.0.0.1:0"]}, timeout=10)
        joined = threading.Thread(target=worker.join, daemon=True)
        joined.start()
        scheduler.stop()
        joined.join(15)  # a worker without a nanny closes when its scheduler goes
        assert not joined.is_alive() and not worker.is_running
    finally:
        worker.stop()
        scheduler.stop()


@pytest.mark.cluster
def test_create_local_server_runs_tasks_in_process():
    from distributed import Client

    server = Server.create_local_server()
    try:
        assert server.target.startswith("tcp://127.0.0.1:")
        assert server.server_def.job_name == "localhost"
        with Client(server.target, timeout=10) as client:
            names = [w["name"] for w in client.scheduler_info(n_workers=-1)["workers"].values()]
            assert names == ["/job:localhost/task:0"]
            assert client.submit(lambda x: x + 1, 41, pure=False).result(timeout=10) == 42
    finally:
        server.stop()
    assert not server.is_running
