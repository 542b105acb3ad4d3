"""The ``dflow`` command line: help and info in-process; cluster and worker as real processes."""

import os
import queue
import signal
import subprocess
import sys
import threading
import time

import psutil
import pytest

from dflow.cli import main

from .conftest import dask_cli_cluster

DFLOW = [sys.executable, "-m", "dflow.cli"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_help_lists_the_commands(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert all(command in out for command in ("cluster", "worker", "info"))


def test_info_reports_versions_without_importing_cupy(capsys):
    had_cupy = "cupy" in sys.modules
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    for name in ("dflow", "dask", "distributed", "numpy", "cupy", "GPUs"):
        assert f"\n{name} " in f"\n{out}"
    assert ("cupy" in sys.modules) == had_cupy  # only `dflow info --cupy` imports it


def test_the_cluster_package_and_cli_do_not_import_distributed():
    code = ("import sys, dflow, dflow.cluster, dflow.cli; "
            "print(sorted(m for m in ('distributed', 'cupy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def _lines(proc) -> queue.Queue:
    q: queue.Queue = queue.Queue()

    def pump():
        for line in proc.stdout:
            q.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return q


def _wait_for_line(q, prefix, timeout) -> str:
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        try:
            line = q.get(timeout=0.2)
        except queue.Empty:
            continue
        seen.append(line)
        if line.strip().startswith(prefix):
            return line
    raise AssertionError(f"no line starting {prefix!r} within {timeout} s; got {seen}")


@pytest.mark.cluster
def test_dflow_cluster_and_workers_from_the_command_line():
    from distributed import Client

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    procs = []

    def start(args):
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
        procs.append(p)
        return p

    try:
        cluster = start(DFLOW + ["cluster", "--ps", "1", "--workers", "1", "--dashboard-address", "none"])
        out = _lines(cluster)
        target = _wait_for_line(out, "target:", 90).split()[1]
        assert target.startswith("tcp://127.0.0.1:")
        cluster_children = psutil.Process(cluster.pid).children(recursive=True)

        worker = start(DFLOW + ["worker", target, "--job", "worker", "--task", "1", "--gpus", "1",
                                "--nthreads", "1"])
        start([sys.executable, "-m", "dask", "worker", target, "--name", "/job:ps/task:1",
                       "--nthreads", "1", "--no-nanny", "--no-dashboard"])
        expected = {"/job:ps/task:0": {}, "/job:worker/task:0": {}, "/job:worker/task:1": {"GPU": 1},
                    "/job:ps/task:1": {}}
        with Client(target, timeout=30) as client:
            deadline = time.monotonic() + 90
            while True:
                workers = {w["name"]: w.get("resources") or {}
                           for w in client.scheduler_info(n_workers=-1)["workers"].values()}
                if workers == expected or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
        assert workers == expected

        # A TF1 graph runs across them: a variable on the plain `dask worker`,
        # an op on the `dflow worker`.
        import dflow as tf

        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:ps/task:1"):
                v = tf.Variable([1.0, 2.0], name="cli_v")
            with tf.device("/job:worker/task:1"):
                doubled = v * 2.0
        md = tf.RunMetadata()
        with tf.Session(target, graph=g) as sess:
            sess.run(v.initializer)
            out_value = sess.run(doubled, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                                 run_metadata=md)
        assert out_value.tolist() == [2.0, 4.0]
        devices = {d.device for d in md.step_stats.dev_stats}
        assert "/job:worker/replica:0/task:1/device:CPU:0" in devices

        for p in (worker, cluster):
            p.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0
        assert cluster.wait(30) == 0
        _wait_for_line(out, "dflow cluster: stopping", 5)
        _, alive = psutil.wait_procs(cluster_children, timeout=10)
        assert alive == [], f"`dflow cluster` left processes behind: {alive}"
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(10)


@pytest.mark.cluster
@pytest.mark.slow
def test_a_plain_dask_scheduler_and_unnamed_dask_workers(tmp_path):
    """`dask scheduler` and two `dask worker`s with no dflow names: jobs and
    tasks map onto them in the documented order (ps:0 first), and a
    between-graph training step and a shared queue work across them."""
    import numpy as np

    import dflow as tf

    with dask_cli_cluster(tmp_path, [None, None]) as target:
        with tf.device(tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:0")):
            w = tf.Variable([1.0, -1.0], name="plain_w")
            loss = tf.reduce_sum(tf.square(w))
            train = tf.train.GradientDescentOptimizer(0.25).minimize(loss)
            q = tf.FIFOQueue(4, [tf.float32], shared_name="plain_q")
        with tf.Session(target) as sess:
            assert {"/job:ps/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0"} <= {
                d.name for d in sess.list_devices()}
            sess.run(w.initializer)
            sess.run(train)
            sess.run(q.enqueue([7.0]))
        with tf.Session(target) as other:
            np.testing.assert_allclose(other.run(w), [0.5, -0.5])
            assert other.run(q.dequeue()) == 7.0

