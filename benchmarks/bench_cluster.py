"""Cluster-session costs (issue #5): run latency, and between-graph training.

* ``run_latency_ms``: one ``Session.run`` of a small graph whose ops sit on
  /job:ps/task:0 and /job:worker/task:0, from a session on worker task 0's
  ``tf.train.Server`` (TF1's layout: the worker's ops run in the session's
  process, the ps is one network hop away);
* ``run_latency_ms_outside_client`` (dflow only): the same run from a client
  outside the cluster (a 1-ps/2-worker ``dflow.LocalCluster``): both
  partitions cross the network, one after the other;
* ``async_steps_per_s_servers``: between-graph asynchronous training of the
  seed network (1-5-1 tanh, batch 50, SGD) as TF1's book does it: one ps
  process and 2 worker processes, each worker a ``tf.train.Server`` running
  its own graph (``replica_device_setter``) through ``tf.Session(server.target)``;
* ``async_steps_per_s_clients`` (dflow only): the same training from 2
  client processes that are not part of the cluster (the workers are Dask
  worker processes of a 1-ps/2-worker ``dflow.LocalCluster``).

Steps per second are summed over the trainers, which start stepping at the
same moment and step for the same time.

Run: ``python benchmarks/bench_cluster.py [--tf /path/to/tf/python]``; with
``--tf`` the same layouts run under TF1 on localhost gRPC.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np
from _harness import main

SECONDS = 5.0

# argv: lib ("dflow" | "tf1"), mode ("server" | "client"), cluster JSON or target, task, start_at, seconds
TRAINER = textwrap.dedent("""
    import json, os, sys, time
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    lib, mode, where, task, start_at, seconds = sys.argv[1:7]
    task, start_at, seconds = int(task), float(start_at), float(seconds)
    if lib == "tf1":
        import tensorflow.compat.v1 as tf
        tf.disable_eager_execution()
    else:
        import dflow as tf
    server = None
    if mode == "server":
        cluster = tf.train.ClusterSpec(json.loads(where))
        server = tf.train.Server(cluster, job_name="worker", task_index=task)
        target, setter = server.target, tf.train.replica_device_setter(
            worker_device="/job:worker/task:%d" % task, cluster=cluster)
    else:
        target, setter = where, tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:%d" % task)
    with tf.device(setter):
        x = tf.placeholder(tf.float32, [None, 1]); y = tf.placeholder(tf.float32, [None, 1])
        w1 = tf.get_variable("w1", [1, 5]); b1 = tf.get_variable("b1", [5], initializer=tf.zeros_initializer())
        w2 = tf.get_variable("w2", [5, 1]); b2 = tf.get_variable("b2", [1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.tanh(tf.matmul(x, w1) + b1), w2) + b2 - y))
        gs = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=gs)
    xs = np.linspace(-1, 1, 50, dtype=np.float32).reshape(-1, 1)
    ys = xs ** 2
    config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % task])
    with tf.Session(target, config=config) as sess:
        if task == 0:
            sess.run(tf.global_variables_initializer())
        else:
            while sess.run(tf.report_uninitialized_variables()).size:
                time.sleep(0.05)
        step = sess.make_callable(train, [x, y])
        for _ in range(20):
            step(xs, ys)
        late = time.time() - start_at
        while time.time() < start_at:
            time.sleep(0.001)
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            step(xs, ys); n += 1
        elapsed = time.perf_counter() - start
        print(json.dumps({"steps": n, "seconds": elapsed, "late_s": max(late, 0.0),
                          "global_step": int(sess.run(gs))}), flush=True)
""")

PS_TF1 = textwrap.dedent("""
    import json, os, sys
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow.compat.v1 as tf
    tf.disable_eager_execution()
    server = tf.train.Server(tf.train.ClusterSpec(json.loads(sys.argv[1])), job_name="ps", task_index=0)
    print("ready", flush=True)
    server.join()
""")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _train(lib: str, mode: str, where: str, workers: int = 2) -> float:
    """Summed steps/s of ``workers`` trainer processes stepping together."""
    start_at = time.time() + (25.0 if lib == "tf1" else 15.0)
    procs = [subprocess.Popen([sys.executable, "-c", TRAINER, lib, mode, where, str(i), str(start_at), str(SECONDS)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(workers)]
    results = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=180)
        if p.returncode != 0 or not stdout.strip():
            raise RuntimeError(f"trainer failed:\n{stderr[-3000:]}")
        results.append(json.loads(stdout.strip().splitlines()[-1]))
    if any(r["late_s"] > 0 for r in results):
        print(f"warning: a trainer started late: {results}", file=sys.stderr)
    return sum(r["steps"] / r["seconds"] for r in results)


def _latency_ms(tf, target, config=None) -> float:
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.ones(4, np.float32))
        with tf.device("/job:worker/task:0"):
            y = v * 2.0 + 1.0
    with tf.Session(target, graph=g, config=config) as sess:
        sess.run(v.initializer)
        times = []
        for _ in range(300):
            t0 = time.perf_counter()
            sess.run(y)
            times.append(time.perf_counter() - t0)
    return float(np.median(times[30:]) * 1e3)


def _dflow_figures(tf) -> dict:
    out = {}
    with tf.LocalCluster(ps=1, workers=0, dashboard_address=None) as cluster:
        spec = {"scheduler": [cluster.target.replace("tcp://", "")], "ps": ["127.0.0.1:0"], "worker": ["127.0.0.1:0"]}
        with tf.train.Server(tf.train.ClusterSpec(spec), job_name="worker", task_index=0) as server:
            config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:0"])
            out["run_latency_ms"] = _latency_ms(tf, server.target, config)
    with tf.LocalCluster(ps=1, workers=2, dashboard_address=None) as cluster:
        out["run_latency_ms_outside_client"] = _latency_ms(tf, cluster.target)
        out["async_steps_per_s_clients"] = _train("dflow", "client", cluster.target)
    with tf.LocalCluster(ps=1, workers=0, dashboard_address=None) as cluster:
        spec = {"scheduler": [cluster.target.replace("tcp://", "")], "ps": ["127.0.0.1:0"],
                "worker": ["127.0.0.1:0", "127.0.0.1:0"]}
        out["async_steps_per_s_servers"] = _train("dflow", "server", json.dumps(spec))
    return out


def _tf1_spec() -> dict:
    return {"ps": [f"127.0.0.1:{_free_port()}"], "worker": [f"127.0.0.1:{_free_port()}" for _ in range(2)]}


def _tf1_ps(spec: dict) -> subprocess.Popen:
    ps = subprocess.Popen([sys.executable, "-c", PS_TF1, json.dumps(spec)], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
    ps.stdout.readline()
    return ps


def _tf1_figures(tf) -> dict:
    out = {}
    spec = _tf1_spec()
    ps = _tf1_ps(spec)
    try:
        out["async_steps_per_s_servers"] = _train("tf1", "server", json.dumps(spec))
    finally:
        ps.kill()
    # Latency: a session on worker task 0's server (in this process), ops on ps and worker 0.
    spec = _tf1_spec()
    ps = _tf1_ps(spec)
    try:
        server = tf.train.Server(tf.train.ClusterSpec(spec), job_name="worker", task_index=0)
        config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:0"])
        out["run_latency_ms"] = _latency_ms(tf, server.target, config)
    finally:
        ps.kill()
    return out


def figures(tf) -> dict:
    return _dflow_figures(tf) if hasattr(tf, "LocalCluster") else _tf1_figures(tf)


if __name__ == "__main__":
    main("bench_cluster", figures, __doc__)
