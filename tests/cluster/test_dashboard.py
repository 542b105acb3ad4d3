"""Issue 12: direct runs appear on Dask's task stream under the user's op names."""

import time

import pytest
from dask.utils import key_split
from distributed import get_task_stream

import dflow as tf

pytestmark = pytest.mark.cluster


def _workers_on_the_task_stream(dask_scheduler=None) -> set:
    from distributed.diagnostics.task_stream import TaskStreamPlugin

    plugin = dask_scheduler.plugins.get(TaskStreamPlugin.name)
    return {r["worker"] for r in plugin.buffer} if plugin is not None else set()


def test_direct_between_graph_training_shows_its_ops_on_the_task_stream(local_cluster, cluster_client):
    assert "dflow" in cluster_client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.extensions))
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:1")):
            w = tf.Variable([[1.0], [2.0]], name="dash_w")
            x = tf.placeholder(tf.float32, [None, 2])
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="dash_train")
        with tf.Session(local_cluster.target) as sess:
            sess.run(w.initializer)
            sess.run(train, {x: [[1.0, 2.0]]})
            with get_task_stream(client=cluster_client) as stream:
                deadline = time.monotonic() + 10
                while True:  # each worker asks about once a second (each on its own phase) whether anybody watches
                    sess.run(train, {x: [[1.0, 2.0]]})
                    time.sleep(0.2)
                    seen = cluster_client.run_on_scheduler(_workers_on_the_task_stream)
                    if len(seen) >= 2 or time.monotonic() > deadline:
                        break
                time.sleep(0.4)  # the last batch (workers flush every 100 ms)
    workers = local_cluster.worker_addresses
    records = {(key_split(r["key"]), r["worker"]) for r in stream.data}
    assert ("dash_train", workers["/job:ps/task:0"]) in records
    assert ("gradients/MatMul_grad/MatMul_1", workers["/job:worker/task:1"]) in records
    for r in stream.data:
        (startstop,) = r["startstops"]
        assert startstop["action"] == "compute" and startstop["start"] <= startstop["stop"]
        assert r["status"] == "OK" and isinstance(r["thread"], int)
