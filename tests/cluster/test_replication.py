"""Data-parallel training on real clusters (issue #6): in-graph towers,
between-graph asynchronous and synchronous replicas in separate processes,
a replica that dies, and a parameter server that is lost mid-training."""

import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import psutil
import pytest

import dflow as tf

pytestmark = pytest.mark.cluster

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# argv: mode (async | sync), cluster spec JSON, task, replicas, last step, checkpoint dir ("" for none), die_at
TRAINER = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    import dflow as tf
    mode, spec, task, n, last_step, ckpt, die_at = sys.argv[1:8]
    task, n, last_step, die_at = int(task), int(n), int(last_step), int(die_at)
    cluster = tf.train.ClusterSpec(json.loads(spec))
    server = tf.train.Server(cluster, job_name="worker", task_index=task)
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % task, cluster=cluster)):
        x = tf.constant(np.linspace(-1, 1, 8, dtype=np.float32).reshape(-1, 1))
        w = tf.get_variable("w", [1, 1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 2.0 * x))
        gs = tf.train.get_or_create_global_step()
        opt = tf.train.GradientDescentOptimizer(0.1)
        hooks = [tf.train.StopAtStepHook(last_step=last_step)]
        if mode == "sync":
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=n - 1, total_num_replicas=n)
            hooks.append(opt.make_session_run_hook(task == 0))
        train = opt.minimize(loss, global_step=gs)
    config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % task], operation_timeout_in_ms=20000)
    mine = 0
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=task == 0, hooks=hooks, config=config,
                                           checkpoint_dir=ckpt or None, save_checkpoint_steps=5 if ckpt else None,
                                           save_checkpoint_secs=None, save_summaries_steps=None,
                                           save_summaries_secs=None, log_step_count_steps=None,
                                           stop_grace_period_secs=2) as sess:
        while not sess.should_stop():
            _, step = sess.run([train, gs])
            mine += 1
            print("step", step, flush=True)
            if mine == die_at:
                os._exit(3)  # this replica dies, without a word to the others
    print(json.dumps({"mine": mine}), flush=True)
    os._exit(0)
""")


def _spawn(mode, spec, task, n, last_step, ckpt="", die_at=-1):
    return subprocess.Popen([sys.executable, "-c", TRAINER, mode, json.dumps(spec), str(task), str(n),
                             str(last_step), ckpt, str(die_at)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)


def _spec(cluster, workers):
    return {"scheduler": [cluster.target.replace("tcp://", "")], "ps": ["127.0.0.1:0"],
            "worker": ["127.0.0.1:0"] * workers}


def _final_global_step(cluster) -> int:
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            gs = tf.train.get_or_create_global_step()
        with tf.Session(cluster.target) as sess:
            return int(sess.run(gs))


@pytest.fixture(scope="module")
def ps_cluster():
    """A scheduler and one parameter server; the test's trainer processes join as workers."""
    with tf.LocalCluster(ps=1, workers=0, dashboard_address=None) as c:
        yield c


@pytest.fixture(autouse=True)
def clean_state(ps_cluster):
    yield
    tf.Session.reset(ps_cluster.target)


def test_in_graph_towers_equal_full_batch_training():
    """Two towers on two devices, each on half the batch, gradients averaged in
    the graph and applied once: the same trajectory as full-batch training."""
    rng = np.random.RandomState(0)
    xs = rng.randn(16, 3).astype(np.float32)
    ys = rng.randn(16, 1).astype(np.float32)
    w0 = rng.randn(3, 1).astype(np.float32)

    def build(towers):
        w = tf.Variable(w0, name="w")
        opt = tf.train.GradientDescentOptimizer(0.1)
        grads = []
        for i, (x, y) in enumerate(zip(np.split(xs, towers), np.split(ys, towers))):
            with tf.device(f"/job:worker/task:{i}" if towers > 1 else None):
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
                grads.append(opt.compute_gradients(loss, [w])[0][0])
        return w, opt.apply_gradients([(tf.add_n(grads) / float(towers), w)])

    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        w_full, step_full = build(1)
    with g2.as_default():
        w_tower, step_tower = build(2)
    with tf.Session(graph=g1) as s:
        s.run(w_full.initializer)
        for _ in range(5):
            s.run(step_full)
        want = s.run(w_full)
    with tf.LocalCluster(ps=0, workers=2, dashboard_address=None) as c, tf.Session(c.target, graph=g2) as s:
        s.run(w_tower.initializer)
        for _ in range(5):
            s.run(step_tower)
        np.testing.assert_allclose(s.run(w_tower), want, rtol=1e-5)


@pytest.mark.slow
def test_between_graph_async_counts_every_update(ps_cluster):
    procs = [_spawn("async", _spec(ps_cluster, 2), i, 2, last_step=40) for i in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
    mine = [json.loads(out.strip().splitlines()[-1])["mine"] for out, _ in outs]
    # Every worker's step is one update of the shared global step: nothing lost, nothing doubled.
    assert _final_global_step(ps_cluster) == sum(mine) >= 40
    assert all(m > 0 for m in mine)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_eight_clients_at_once_lose_no_update_and_none_starves(ps_cluster):
    """Eight between-graph client processes on the shared ps (issue 14): every acknowledged update is
    in the global step, and every client makes progress."""
    n = 8
    procs = [_spawn("async", _spec(ps_cluster, n), i, n, last_step=120) for i in range(n)]
    outs = [p.communicate(timeout=240) for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
    mine = [json.loads(out.strip().splitlines()[-1])["mine"] for out, _ in outs]
    assert _final_global_step(ps_cluster) == sum(mine) >= 120
    assert min(mine) > 0, mine  # nobody starved


@pytest.mark.slow
def test_sync_replicas_with_a_backup_finish_when_a_replica_dies(ps_cluster):
    """3 replicas, 2 gradients per step: replica 2 dies after its first step,
    the others finish (tensorflow#5022 hangs here)."""
    procs = [_spawn("sync", _spec(ps_cluster, 3), i, 3, last_step=30, die_at=1 if i == 2 else -1) for i in range(3)]
    start = time.monotonic()
    outs = [p.communicate(timeout=120) for p in procs]
    assert procs[2].returncode == 3, outs[2]
    for p, (_, err) in zip(procs[:2], outs[:2]):
        assert p.returncode == 0, err[-3000:]
    assert _final_global_step(ps_cluster) >= 30
    assert time.monotonic() - start < 90


@pytest.mark.slow
def test_a_lost_parameter_server_is_recovered_from_the_checkpoint(ps_cluster, tmp_path):
    """The ps worker is killed mid-training: the nanny restarts it empty, the
    monitored session re-creates itself, restores the latest checkpoint and
    finishes; the global step never goes below the checkpoint's."""
    trainer = _spawn("async", _spec(ps_cluster, 1), 0, 1, last_step=30, ckpt=str(tmp_path))
    steps = []
    for line in trainer.stdout:
        if line.startswith("step"):
            steps.append(int(line.split()[1]))
            if steps[-1] == 12:
                with ps_cluster.client() as client:
                    names = {a: w["name"] for a, w in client.scheduler_info(n_workers=-1)["workers"].items()}
                    pids = client.run(os.getpid)
                psutil.Process(next(p for a, p in pids.items() if names.get(a) == "/job:ps/task:0")).kill()
        if line.startswith("{"):
            break
    trainer.wait(120)
    assert trainer.returncode == 0, trainer.stderr.read()[-3000:]
    assert steps[-1] >= 29  # the step read in the same run as the last update
    after = steps[steps.index(12) + 1:]
    # Progress since the last checkpoint (step 10) is the only loss.
    assert min(after) >= 10 and after[0] <= 13
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("-30")
