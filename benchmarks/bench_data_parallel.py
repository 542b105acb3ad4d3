"""Data-parallel training on a cluster (issue #6): steps per second.

Between-graph replication as TF1's book does it: one ps process and 1, 2 or
3 worker processes, each a ``tf.train.Server`` running its own graph
(``replica_device_setter``) through ``MonitoredTrainingSession``.

* ``async``: every worker applies its own gradients (plain SGD); the figure
  is the updates per second summed over the workers;
* ``sync``: ``SyncReplicasOptimizer`` aggregating one gradient per worker
  per step; the figure is global steps per second.

Two models: the seed network (1-5-1 tanh, batch 50) and the
784-512-512-10 MLP (ReLU, softmax cross-entropy, batch 100). The workers
start together, when all have joined, and after five warm-up steps each
steps for the same time.

A last row runs the seed network asynchronously from ``--clients`` (8) trainer
processes at once: steps/s in all and per client (min, max), and for dflow a
check that the ps's global step is the sum of the clients' updates.

Run: ``python benchmarks/bench_data_parallel.py [--tf /path/to/tf/python] [--workers 1,2,3]
[--models seed,mlp] [--modes async,sync] [--clients 8]``; with ``--tf`` the same runs under TF1
on localhost gRPC, and the output ends with one JSON line ``{"ratios": {"<row>": dflow/TF1}}``.
"""

from __future__ import annotations

import argparse
import json
import platform
import socket
import subprocess
import sys
import tempfile
import textwrap
import time

SECONDS = 5.0
_START_TIMEOUT_S = 180.0

# argv: lib, model, mode (async | sync), cluster JSON, task, n_workers, seconds
TRAINER = textwrap.dedent("""
    import json, os, sys, time
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    lib, model, mode, spec, task, n, seconds = sys.argv[1:8]
    task, n, seconds = int(task), int(n), float(seconds)
    if lib == "tf1":
        import tensorflow.compat.v1 as tf
        tf.disable_eager_execution()
        tf.logging.set_verbosity(tf.logging.ERROR)
    else:
        import dflow as tf
    cluster = tf.train.ClusterSpec(json.loads(spec))
    server = tf.train.Server(cluster, job_name="worker", task_index=task)
    rng = np.random.RandomState(task)
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % task, cluster=cluster)):
        if model == "seed":
            x = tf.placeholder(tf.float32, [None, 1]); y = tf.placeholder(tf.float32, [None, 1])
            w1 = tf.get_variable("w1", [1, 5]); b1 = tf.get_variable("b1", [5], initializer=tf.zeros_initializer())
            w2 = tf.get_variable("w2", [5, 1]); b2 = tf.get_variable("b2", [1], initializer=tf.zeros_initializer())
            loss = tf.reduce_mean(tf.square(tf.matmul(tf.tanh(tf.matmul(x, w1) + b1), w2) + b2 - y))
            xs = np.linspace(-1, 1, 50, dtype=np.float32).reshape(-1, 1); ys = xs ** 2
            lr = 0.01
        else:
            x = tf.placeholder(tf.float32, [None, 784]); y = tf.placeholder(tf.int64, [None])
            h = x
            for i, units in enumerate([512, 512]):
                w = tf.get_variable("w%d" % i, [h.shape[1], units])
                b = tf.get_variable("b%d" % i, [units], initializer=tf.zeros_initializer())
                h = tf.nn.relu(tf.matmul(h, w) + b)
            w = tf.get_variable("w_out", [512, 10])
            b = tf.get_variable("b_out", [10], initializer=tf.zeros_initializer())
            logits = tf.matmul(h, w) + b
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
            xs = rng.rand(100, 784).astype(np.float32); ys = rng.randint(0, 10, 100).astype(np.int64)
            lr = 0.05
        gs = tf.train.get_or_create_global_step()
        opt = tf.train.GradientDescentOptimizer(lr)
        hooks = []
        if mode == "sync":
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=n, total_num_replicas=n)
            hooks.append(opt.make_session_run_hook(task == 0))
        train = opt.minimize(loss, global_step=gs)
    config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % task])
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=task == 0, hooks=hooks, config=config,
                                           save_checkpoint_secs=None, save_summaries_steps=None,
                                           save_summaries_secs=None, log_step_count_steps=None) as sess:
        feed = {x: xs, y: ys}
        # The bench says go when every trainer has joined (a synchronous step needs them all,
        # so the barrier comes before the warm-up steps).
        print("ready", flush=True)
        sys.stdin.readline()
        for _ in range(5):
            sess.run(train, feed)
        g0 = sess.run(gs)
        k, start = 0, time.perf_counter()
        reported = False
        while True:  # sync: until the bench kills it (the others need this one's gradients)
            sess.run(train, feed); k += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds and not reported:
                g1 = sess.run(gs)
                # updates: every train run of this trainer, warm-up included (async: one global step each)
                print(json.dumps({"steps": k, "seconds": elapsed, "global_steps": int(g1 - g0),
                                  "updates": k + 5}), flush=True)
                reported = True
                if mode == "async":
                    break
""")

PS = textwrap.dedent("""
    import json, os, sys
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if sys.argv[1] == "tf1":
        import tensorflow.compat.v1 as tf
        tf.disable_eager_execution()
        server = tf.train.Server(tf.train.ClusterSpec(json.loads(sys.argv[2])), job_name="ps", task_index=0)
        print("ready", flush=True)
        server.join()
    else:
        import dflow as tf
        if __name__ == "__main__":
            with tf.LocalCluster(ps=1, workers=0, dashboard_address=None) as cluster:
                print(cluster.target, flush=True)
                sys.stdin.read()
""")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _first_line(proc, prefix: str, timeout: float):
    """The first line starting with ``prefix`` that ``proc`` prints within ``timeout`` seconds, or None."""
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not sel.select(timeout=max(deadline - time.time(), 0.0)):
            break
        line = proc.stdout.readline()
        if not line:
            return None
        if line.startswith(prefix):
            return line
    return None


def run(python: str, lib: str, model: str, mode: str, workers: int) -> float:
    """Steps per second of one configuration (its own fresh ps)."""
    results = run_trainers(python, lib, model, mode, workers)
    if mode == "sync":
        return max(r["global_steps"] / r["seconds"] for r in results)
    return sum(r["steps"] / r["seconds"] for r in results)


def run_trainers(python: str, lib: str, model: str, mode: str, workers: int, check_updates: bool = False) -> list:
    """Each trainer's report (steps, seconds, global_steps, updates) for one configuration on a fresh ps.

    ``check_updates`` (dflow, async): reads the ps's global step after the trainers have stopped and
    raises unless it is the sum of their updates (nothing lost, nothing doubled)."""
    if check_updates and (lib != "dflow" or mode != "async"):
        raise ValueError("check_updates: dflow's async runs only")
    if lib == "tf1":
        spec = {"ps": [f"127.0.0.1:{_free_port()}"], "worker": [f"127.0.0.1:{_free_port()}" for _ in range(workers)]}
        ps = subprocess.Popen([python, "-c", PS, lib, json.dumps(spec)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ps.stdout.readline()
    else:
        ps = subprocess.Popen([python, "-c", PS, lib], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
        target = ps.stdout.readline().strip()
        spec = {"scheduler": [target.replace("tcp://", "")], "ps": ["127.0.0.1:0"],
                "worker": ["127.0.0.1:0"] * workers}
    try:
        logs = [tempfile.TemporaryFile(mode="w+") for _ in range(workers)]
        procs = [subprocess.Popen([python, "-c", TRAINER, lib, model, mode, json.dumps(spec), str(i), str(workers),
                                   str(SECONDS)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=logs[i],
                                  text=True) for i in range(workers)]
        # Every trainer builds its graph, joins and warms up; then all start stepping at once.
        ready = [_first_line(p, "ready", timeout=_START_TIMEOUT_S) for p in procs]
        if all(ready):
            for p in procs:
                p.stdin.write("go\n")
                p.stdin.flush()
            results = [_first_line(p, "{", timeout=SECONDS + 60) for p in procs]
        else:
            results = [None] * workers
        codes = [p.poll() for p in procs]
        for p in procs:
            p.kill()
        for i, (log, r) in enumerate(zip(logs, results)):
            if r is None:
                log.seek(0)
                stage = "stepping" if ready[i] else "starting"
                raise RuntimeError(f"{lib} {model} {mode} trainer {i} failed while {stage} (exit code {codes[i]}; "
                                   f"ready: {ready}):\n{log.read()[-3000:]}")
        results = [json.loads(r) for r in results]
        if check_updates:
            for p in procs:
                p.wait(60)  # async trainers stop by themselves once they have reported
            final = _global_step(target)
            if final != sum(r["updates"] for r in results):
                raise RuntimeError(f"lost or doubled updates: the global step is {final}, the trainers made "
                                   f"{sum(r['updates'] for r in results)} updates ({[r['updates'] for r in results]})")
        return results
    finally:
        ps.kill()


def _global_step(target: str) -> int:
    import dflow as tf

    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            gs = tf.train.get_or_create_global_step()
        with tf.Session(target) as sess:
            return int(sess.run(gs))


def many_clients(libs, clients: int) -> dict:
    """The seed network, async, from ``clients`` trainer processes at once: steps/s per client (min,
    max) and in all, per library; dflow's run also checks that no update is lost."""
    out = {}
    for lib, python in libs:
        results = run_trainers(python, lib, "seed", "async", clients, check_updates=lib == "dflow")
        rates = [r["steps"] / r["seconds"] for r in results]
        out[lib] = {"total": sum(rates), "min": min(rates), "max": max(rates)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tf", help="python of a virtualenv with tensorflow-cpu (prints TF1's figures beside)")
    ap.add_argument("--workers", default="1,2,3")
    ap.add_argument("--models", default="seed,mlp")
    ap.add_argument("--modes", default="async,sync")
    ap.add_argument("--clients", type=int, default=8,
                    help="the many-clients row: seed async from this many trainers at once (0: no such row)")
    args = ap.parse_args()
    print(f"machine: {platform.node()} {platform.machine()} python {platform.python_version()}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    libs = [("dflow", sys.executable)] + ([("tf1", args.tf)] if args.tf else [])
    print(f"{'figure (steps/s)':28s}" + "".join(f"{lib:>10s}" for lib, _ in libs))
    ratios = {}
    for model in args.models.split(","):
        for mode in args.modes.split(","):
            for n in map(int, args.workers.split(",")):
                row, figures = [], {}
                for lib, python in libs:
                    try:
                        figures[lib] = run(python, lib, model, mode, n)
                        row.append(f"{figures[lib]:10.1f}")
                    except Exception as e:  # noqa: BLE001 - print the row, report the failure
                        print(f"{lib} {model} {mode} x{n}: {e}", file=sys.stderr)
                        row.append(f"{'failed':>10s}")
                name = f"{model} {mode} x{n}"
                print(f"{name:28s}" + "".join(row), flush=True)
                if figures.get("tf1"):
                    ratios[name] = round(figures["dflow"] / figures["tf1"], 3) if "dflow" in figures else None
    if args.clients:
        name = f"seed async {args.clients} clients"
        try:
            many = many_clients(libs, args.clients)
        except Exception as e:  # noqa: BLE001 - print the row, report the failure
            print(f"{name}: {e}", file=sys.stderr)
        else:
            print(f"{name + ' (all)':28s}" + "".join(f"{many[lib]['total']:10.1f}" for lib, _ in libs))
            print(f"{'  per client, min':28s}" + "".join(f"{many[lib]['min']:10.1f}" for lib, _ in libs))
            print(f"{'  per client, max':28s}" + "".join(f"{many[lib]['max']:10.1f}" for lib, _ in libs))
            print("  (dflow: the global step equals the sum of the clients' updates: none lost)", flush=True)
            if "tf1" in many:
                ratios[name] = round(many["dflow"]["total"] / many["tf1"]["total"], 3)
    if args.tf:
        print(json.dumps({"ratios": ratios}), flush=True)


if __name__ == "__main__":
    main()
