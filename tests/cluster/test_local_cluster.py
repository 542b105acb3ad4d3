"""dflow.LocalCluster: named worker processes, the target and cluster spec, clean shutdown."""

import time

import psutil
import pytest

from dflow.cluster import ClusterSpec, LocalCluster, process_tuning
from dflow.placement.device_map import full_device_names, map_devices

from .conftest import scheduler_workers


def _workers_of_this_process() -> set:
    """Child processes, less multiprocessing's resource tracker (one per parent, lives until it exits)."""
    return {p for p in psutil.Process().children(recursive=True)
            if not any("resource_tracker" in part for part in _cmdline(p))}


def _cmdline(p) -> list:
    try:
        return p.cmdline()
    except psutil.Error:
        return []


@pytest.mark.cluster
def test_workers_are_named_tasks_on_a_saturation_free_scheduler(local_cluster, cluster_client):
    workers = scheduler_workers(cluster_client)
    assert sorted(workers) == ["/job:ps/task:0", "/job:worker/task:0", "/job:worker/task:1"]
    assert local_cluster.worker_names == ["/job:ps/task:0", "/job:worker/task:0", "/job:worker/task:1"]
    assert all(resources == {} and nthreads == 1 for _, resources, nthreads in workers.values())
    assert local_cluster.target == local_cluster.scheduler_address == cluster_client.scheduler.address
    assert local_cluster.target.startswith("tcp://127.0.0.1:")
    assert local_cluster.dashboard_link is None
    assert cluster_client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.WORKER_SATURATION) == float("inf")
    # BLAS threads: the ps keeps Dask's one, the two worker tasks share the cores
    threads = cluster_client.run(process_tuning.compute_threads)
    addresses = {name: address for name, (address, _, _) in workers.items()}
    assert threads[addresses["/job:ps/task:0"]] == 1
    assert threads[addresses["/job:worker/task:1"]] == max(1, process_tuning.cpu_count() // 2)

    spec = local_cluster.cluster_spec
    addresses = {name: address for name, (address, _, _) in workers.items()}
    # TF1's jobs only (as TF1 users compare them); the scheduler rides along outside the jobs.
    assert spec == ClusterSpec({
        "ps": [addresses["/job:ps/task:0"][len("tcp://"):]],
        "worker": [addresses[f"/job:worker/task:{i}"][len("tcp://"):] for i in range(2)],
    })
    assert spec.jobs == ["ps", "worker"] and spec.num_tasks("ps") == 1 and spec.num_tasks("worker") == 2
    assert spec.scheduler == local_cluster.target
    infos = [(address, name, resources) for name, (address, resources, _) in workers.items()]
    assert full_device_names(map_devices(infos)) == [
        "/job:ps/replica:0/task:0/device:CPU:0",
        "/job:worker/replica:0/task:0/device:CPU:0",
        "/job:worker/replica:0/task:1/device:CPU:0"]


@pytest.mark.cluster
def test_gpu_resources_dashboard_and_close_leaves_no_processes(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4,6,7")
    before = _workers_of_this_process()
    t0 = time.perf_counter()
    cluster = LocalCluster(ps=1, workers=1, gpus_per_worker=2, threads_per_worker=2, dashboard_address=":0")
    started = time.perf_counter() - t0
    try:
        spawned = _workers_of_this_process() - before
        assert len(spawned) >= 2  # one process per task (spawn may add a helper)
        with cluster.client() as client:
            workers = scheduler_workers(client)
            visible = client.run(lambda: __import__("os").environ.get("CUDA_VISIBLE_DEVICES"))
        assert {name: (res, n) for name, (_, res, n) in workers.items()} == {
            "/job:ps/task:0": ({}, 2), "/job:worker/task:0": ({"GPU": 2}, 2)}
        # Each worker task gets its own share of the visible GPUs; ps tasks keep the parent's view.
        assert visible[workers["/job:worker/task:0"][0]] == "4,6"
        assert visible[workers["/job:ps/task:0"][0]] == "4,6,7"
        assert cluster.dashboard_link.startswith("http://127.0.0.1:")
        assert "ps=1, workers=1" in repr(cluster)
    finally:
        t1 = time.perf_counter()
        cluster.close()
        closed = time.perf_counter() - t1
    cluster.close()  # idempotent
    gone, alive = psutil.wait_procs(list(spawned), timeout=10)
    assert alive == [], f"processes left behind: {[p.cmdline() for p in alive]}"
    assert "closed" in repr(cluster)
    with pytest.raises(RuntimeError, match="closed"):
        cluster.target  # noqa: B018
    print(f"start {started:.2f} s, close {closed:.2f} s")


def test_gpus_are_dealt_round_robin_when_their_count_is_known(monkeypatch):
    from dflow.cluster.local_cluster import _deal_gpus

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,5,7")
    assert _deal_gpus(4, 1) == ["3", "5", "7", "3"]
    assert _deal_gpus(2, 2) == ["3,5", "7,3"]
    assert _deal_gpus(2, 4) is None  # more than there are: every worker sees them all
    assert _deal_gpus(2, 0) is None


def test_needs_a_task():
    with pytest.raises(ValueError, match="at least one task"):
        LocalCluster(ps=0, workers=0)


@pytest.mark.cluster
def test_worker_processes_keep_glibcs_dynamic_mmap_threshold(local_cluster, cluster_client):
    """Dask's MALLOC_TRIM_THRESHOLD_ makes every large temporary fresh pages (20x slower kernels)."""
    import os

    assert set(cluster_client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_")).values()) == {None}


@pytest.mark.cluster
def test_convolutions_on_a_worker_run_on_onednn(local_cluster, cluster_client):
    """A worker process loads oneDNN itself and sizes its teams as its BLAS pool."""
    import numpy as np

    import dflow as tf
    from dflow.kernels import onednn as _onednn

    if not _onednn.available():
        pytest.skip(f"oneDNN not used: {_onednn.why_not()}")
    rng = np.random.default_rng(0)
    x_value = rng.standard_normal((4, 12, 12, 3)).astype(np.float32)
    w_value = rng.standard_normal((3, 3, 3, 8)).astype(np.float32)
    def run(target, device):
        g = tf.Graph()
        with g.as_default(), tf.device(device):
            x, w = tf.constant(x_value), tf.constant(w_value)
            y = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME")), 2, 2, "VALID")
            fetches = [y, *tf.gradients(tf.reduce_sum(y * y), [x, w])]
        with tf.Session(target, graph=g) as sess:
            return sess.run(fetches)

    remote = run(local_cluster.target, "/job:worker/task:1")
    with _onednn.disabled():
        local = run("", None)
    for a, b in zip(remote, local):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5 * np.abs(b).max())

    def ran():
        from dflow.kernels import blas as _blas
        from dflow.kernels import onednn as _onednn

        return sorted({key[0] for key in _onednn._cache}), {key[-1] for key in _onednn._cache}, _blas._threads()

    kinds, teams, blas_threads = cluster_client.run(ran, workers=[local_cluster.worker_addresses["/job:worker/task:1"]]
                                                    ).popitem()[1]
    # the max pool's forward pass is its gradient's primitive ("pool_backward"), which keeps the workspace
    assert {"forward", "backward_data", "backward_weights", "pool_backward"} <= set(kinds)
    assert teams == {blas_threads}
