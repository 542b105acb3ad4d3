"""Chaos drill: between-graph training and an ensemble while a driver keeps breaking the cluster.

A ``dflow.LocalCluster(ps=1, workers=2)`` (worker processes under nannies) serves:

* **training** (``async`` and ``sync`` phases): two client processes train one model with
  ``MonitoredTrainingSession`` (the chief checkpoints every ``--ckpt-steps`` steps), each on
  its own worker task, the variables on the ps;
* **ensemble**: ``--members`` client processes enqueue predictions into a queue on the ps, and
  an aggregator (this process) dequeues them with a deadline.

Meanwhile the driver injects a fault every ``--fault-every`` seconds (jittered): ``SIGKILL``
of the ps or a worker process (its nanny restarts it under its task name), a stall
(``SIGSTOP``, then ``SIGCONT`` after up to ``--max-stall`` s), and in the ensemble phase
``SIGKILL`` of a member client (restarted by the driver). It reports:

* faults injected, by kind; recoveries and the longest time to recover (a killed process's
  clients run a step again);
* steps lost to a lost ps (the global step falls back to the last checkpoint, never below it:
  ``below_checkpoint`` counts the cases where it did) and lost acknowledged updates (the global
  step a client sees goes backwards without a ps loss);
* hangs (a client that does not finish within its bound, or an aggregator dequeue that
  outlives its deadline by more than ``HANG_SLACK_S``) and corrupt checkpoints (a checkpoint of
  the directory that does not restore, or whose global step is not its name's).

    python benchmarks/chaos_drill.py --minutes 6 --fault-every 1.5        # about 200 faults
    python benchmarks/chaos_drill.py --minutes 0.5 --phases async --json  # a quick look

The last line of the output is the report as JSON. The slow test
``tests/cluster/test_chaos_drill.py`` runs a short drill and checks the zeros.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

HANG_SLACK_S = 5.0
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# argv: target, task, replicas, mode (async | sync), checkpoint dir, checkpoint steps, seconds to train
TRAINER = textwrap.dedent("""
    import faulthandler, logging, sys, time
    import numpy as np
    import dflow as tf
    target, task, n, mode, ckpt, ckpt_steps, seconds = sys.argv[1:8]
    task, n, ckpt_steps, end = int(task), int(n), int(ckpt_steps), time.time() + float(seconds)
    faulthandler.dump_traceback_later(float(seconds) + 90, exit=True)  # a hang shows where it hangs
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("dflow").setLevel(logging.INFO)  # the recoveries, in the client's stderr file
    with tf.device(tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:%d" % task)):
        x = tf.constant(np.linspace(-1, 1, 64, dtype=np.float32).reshape(-1, 1))
        w = tf.get_variable("w", [1, 1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 2.0 * x))
        gs = tf.train.get_or_create_global_step()
        opt = tf.train.GradientDescentOptimizer(0.01)
        hooks = []
        if mode == "sync":
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=n, total_num_replicas=n)
            hooks.append(opt.make_session_run_hook(task == 0))
        train = opt.minimize(loss, global_step=gs)
    # Bounds every run and every wait for a lost task (a restart takes about 1.5 s here).
    config = tf.ConfigProto(operation_timeout_in_ms=10000)
    mine = 0
    try:
        with tf.train.MonitoredTrainingSession(master=target, is_chief=task == 0, hooks=hooks, config=config,
                                               checkpoint_dir=ckpt, save_checkpoint_steps=ckpt_steps,
                                               save_checkpoint_secs=None, save_summaries_steps=None,
                                               save_summaries_secs=None, log_step_count_steps=None,
                                               stop_grace_period_secs=2) as sess:
            while not sess.should_stop() and time.time() < end:
                t0 = time.time()
                _, step = sess.run([train, gs])
                mine += 1
                print("S %.4f %.4f %d" % (t0, time.time(), step), flush=True)
    except tf.errors.DeadlineExceededError:
        # sync: the other replica's time ran out first and its gradients never come (a run, or the
        # chief's queue runner, says so when the session closes); before the end it is a failure.
        if time.time() < end:
            raise
    print("DONE %d" % mine, flush=True)
""")

# argv: target, member id, queue capacity, queue shared name
MEMBER = textwrap.dedent("""
    import sys, time
    import numpy as np
    import dflow as tf
    target, k, capacity, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    with tf.device("/job:ps/task:0"):
        q = tf.FIFOQueue(capacity, [tf.int32, tf.int64, tf.float32], shapes=[[], [], [4]], shared_name=name,
                         name="ensemble_q")
    with tf.device("/job:worker/task:%d" % (k % 2)):
        seq = tf.placeholder(tf.int64, [])
        pred = tf.tanh(tf.cast(seq, tf.float32) * tf.constant([0.1, 0.2, 0.3, 0.4]) + float(k))
    enq = q.enqueue([tf.constant(k), seq, pred])
    opts = tf.RunOptions(timeout_in_ms=2000)
    sess, i = None, 0
    while True:
        try:
            if sess is None:
                sess = tf.Session(target, config=tf.ConfigProto(operation_timeout_in_ms=30000))
            sess.run(enq, {seq: i}, options=opts)
            i += 1
        except (tf.errors.UnavailableError, tf.errors.AbortedError, tf.errors.DeadlineExceededError,
                tf.errors.CancelledError):
            if sess is not None:
                sess.close()
            sess = None
            time.sleep(0.2)
        time.sleep(0.02)
""")


class Drill:
    def __init__(self, cluster, rng: random.Random, fault_every: float, max_stall: float):
        self.cluster = cluster
        self.rng = rng
        self.fault_every = fault_every
        self.max_stall = max_stall
        self.faults: list = []  # {"t", "kind", "task", "phase", "checkpoint_step"}
        self.env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
                        PYTHONUNBUFFERED="1")

    # -- processes ---------------------------------------------------------------------------
    def task_pids(self) -> dict:
        """Task name -> pid of each worker process the scheduler knows now."""
        with self.cluster.client() as client:
            names = {a: w["name"] for a, w in client.scheduler_info(n_workers=-1)["workers"].items()}
            try:
                pids = client.run(os.getpid, on_error="ignore")
            except Exception:  # noqa: BLE001 - a worker vanishing under the call
                return {}
        return {names[a]: p for a, p in pids.items() if a in names and isinstance(p, int)}

    def spawn(self, script: str, *args, stderr_path: str | None = None) -> subprocess.Popen:
        """A client process; its stderr goes to ``stderr_path`` (a pipe nobody reads would fill
        up and block the client: a hang of the drill's own making)."""
        err = open(stderr_path, "w") if stderr_path else subprocess.DEVNULL  # noqa: SIM115 - the child owns it
        try:
            return subprocess.Popen([sys.executable, "-c", script, *map(str, args)], stdout=subprocess.PIPE,
                                    stderr=err, text=True, cwd=ROOT, env=self.env)
        finally:
            if stderr_path:
                err.close()

    # -- faults ------------------------------------------------------------------------------
    def inject(self, phase: str, checkpoint_dir: str | None = None, members: dict | None = None) -> None:
        """One fault: kill or stall a task's worker process, or (ensemble) kill a member client."""
        choices = ["kill", "kill", "stall"] + (["member"] * 2 if members else [])
        kind = self.rng.choice(choices)
        t = time.time()
        if kind == "member":
            k = self.rng.choice(sorted(members))
            members[k].kill()
            self.faults.append({"t": t, "kind": "kill_member", "task": f"member:{k}", "phase": phase})
            return
        pids = self.task_pids()
        if not pids:
            return  # every task is restarting: nothing to hit this time
        task = self.rng.choice(sorted(pids))
        step = _checkpoint_step(checkpoint_dir) if checkpoint_dir else None
        t = time.time()  # the moment of the signal: runs that start later cannot have seen the old process
        try:
            if kind == "kill":
                os.kill(pids[task], signal.SIGKILL)
            else:
                os.kill(pids[task], signal.SIGSTOP)
                time.sleep(self.rng.uniform(0.1, self.max_stall))
                os.kill(pids[task], signal.SIGCONT)
        except ProcessLookupError:
            return
        self.faults.append({"t": t, "kind": kind, "task": task, "phase": phase, "checkpoint_step": step})

    def fault_loop(self, seconds: float, phase: str, **kw) -> None:
        end = time.monotonic() + seconds
        while True:
            pause = self.rng.uniform(0.5, 1.5) * self.fault_every
            if time.monotonic() + pause >= end:
                time.sleep(max(0.0, end - time.monotonic()))
                return
            time.sleep(pause)
            self.inject(phase, **kw)

    # -- training ----------------------------------------------------------------------------
    def training(self, mode: str, seconds: float, ckpt_steps: int, workdir: str) -> dict:
        ckpt = os.path.join(workdir, mode)
        os.makedirs(ckpt, exist_ok=True)
        start = time.time()
        err_paths = [os.path.join(workdir, f"{mode}-client-{task}.stderr") for task in range(2)]
        procs = [self.spawn(TRAINER, self.cluster.target, task, 2, mode, ckpt, ckpt_steps, seconds,
                            stderr_path=err_paths[task]) for task in range(2)]
        outputs = [[] for _ in procs]
        readers = [threading.Thread(target=_read_lines, args=(p.stdout, out), daemon=True)
                   for p, out in zip(procs, outputs)]
        for r in readers:
            r.start()
        # Faults start once both clients train (session start-up is not under test).
        deadline = time.monotonic() + 120
        while not all(any(line.startswith("S ") for line in out) for out in outputs):
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                break
            time.sleep(0.1)
        self.fault_loop(max(0.0, start + seconds - time.time() - 1.0), mode, checkpoint_dir=ckpt)
        hangs, stderr = 0, []
        bound = start + seconds + 120.0  # a client still running then is a hang
        for p in procs:
            try:
                p.wait(max(1.0, bound - time.time()))
            except subprocess.TimeoutExpired:
                hangs += 1
                p.kill()
                p.wait()
            with open(err_paths[len(stderr)]) as f:
                stderr.append(f.read())
            if "Timeout (" in stderr[-1]:  # the client's own faulthandler bound: a hang, with its stacks
                hangs += 1
        for r in readers:
            r.join(5)
        faults = [f for f in self.faults if f["phase"] == mode]
        with open(os.path.join(workdir, f"{mode}-faults.json"), "w") as f:
            json.dump([dict(x, t=round(x["t"] - start, 3)) for x in faults], f, indent=0)
        report = _training_report(faults, outputs, procs, stderr, ckpt, start)
        report["hangs"] = hangs
        return report

    # -- ensemble ----------------------------------------------------------------------------
    def ensemble(self, seconds: float, n_members: int, deadline_ms: int) -> dict:
        import dflow as tf

        name = f"chaos_ensemble_{os.getpid()}_{int(time.time())}"
        capacity = 64
        members = {k: self.spawn(MEMBER, self.cluster.target, k, capacity, name) for k in range(n_members)}
        restarts = 0
        stop = threading.Event()
        stats = {"dequeued": 0, "deadline_exceeded": 0, "unavailable": 0, "max_wait_s": 0.0, "hangs": 0,
                 "out_of_order": 0}

        def aggregate():
            last_seq: dict = {}
            graph = tf.Graph()
            with graph.as_default():
                with tf.device("/job:ps/task:0"):
                    q = tf.FIFOQueue(capacity, [tf.int32, tf.int64, tf.float32], shapes=[[], [], [4]],
                                     shared_name=name, name="ensemble_q")
                item = q.dequeue()
            opts = tf.RunOptions(timeout_in_ms=deadline_ms)
            sess = None
            while not stop.is_set():
                t0 = time.monotonic()
                try:
                    if sess is None:
                        sess = tf.Session(self.cluster.target, graph=graph,
                                          config=tf.ConfigProto(operation_timeout_in_ms=30000))
                    k, seq, _ = sess.run(item, options=opts)
                    stats["dequeued"] += 1
                    # A member restarts its sequence at 0; otherwise it only grows.
                    if seq != 0 and seq <= last_seq.get(int(k), -1):
                        stats["out_of_order"] += 1
                    last_seq[int(k)] = int(seq)
                except tf.errors.DeadlineExceededError:
                    stats["deadline_exceeded"] += 1
                except (tf.errors.UnavailableError, tf.errors.AbortedError, tf.errors.CancelledError):
                    stats["unavailable"] += 1
                    if sess is not None:
                        sess.close()
                    sess = None
                    time.sleep(0.1)
                waited = time.monotonic() - t0
                stats["max_wait_s"] = max(stats["max_wait_s"], waited)
                if waited > deadline_ms / 1000.0 + HANG_SLACK_S:
                    stats["hangs"] += 1
            if sess is not None:
                sess.close()

        aggregator = threading.Thread(target=aggregate, daemon=True)
        aggregator.start()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            time.sleep(self.rng.uniform(0.5, 1.5) * self.fault_every)
            self.inject("ensemble", members=members)
            for k, p in list(members.items()):  # the driver restarts crashed members
                if p.poll() is not None:
                    members[k] = self.spawn(MEMBER, self.cluster.target, k, capacity, name)
                    restarts += 1
        stop.set()
        aggregator.join(deadline_ms / 1000.0 + 60.0)
        if aggregator.is_alive():
            stats["hangs"] += 1
        for p in members.values():
            p.kill()
            p.wait()
        faults = [f for f in self.faults if f["phase"] == "ensemble"]
        return dict(stats, faults=len(faults), member_restarts=restarts, deadline_ms=deadline_ms)


def _read_lines(stream, out: list) -> None:
    for line in stream:
        out.append(line.rstrip("\n"))


def _checkpoint_step(directory: str) -> int | None:
    import dflow as tf

    try:
        latest = tf.train.latest_checkpoint(directory)
    except Exception:  # noqa: BLE001 - the state file being replaced: no answer this time
        return None
    return int(latest.rsplit("-", 1)[1]) if latest else None


def check_checkpoints(directory: str) -> tuple[int, int, list]:
    """(checkpoints, corrupt ones, leftover temporary files) of ``directory``: each checkpoint
    must restore, with a finite ``w`` and at least the global step its name says."""
    import numpy as np

    import dflow as tf

    good = corrupt = 0
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".index") or name.startswith("."):
            continue
        prefix = os.path.join(directory, name[:-len(".index")])
        try:
            reader = tf.train.NewCheckpointReader(prefix)
            # The saver names a checkpoint after the step it read before the save, and the other
            # client may step in between (TF1's CheckpointSaverHook too): the saved step is never less.
            ok = int(reader.get_tensor("global_step")) >= int(prefix.rsplit("-", 1)[1])
            ok = ok and bool(np.isfinite(reader.get_tensor("w")).all())
        except Exception:  # noqa: BLE001 - any failure to read is a corrupt checkpoint
            ok = False
        good += ok
        corrupt += not ok
    latest = _checkpoint_step(directory)
    if latest is None:
        corrupt += 1
    tmp = [n for n in os.listdir(directory) if n.endswith(".tmp")]
    return good + corrupt, corrupt, tmp


def _training_report(faults, outputs, procs, stderr, ckpt, start) -> dict:
    # (run started, run ended, global step it read), per client
    runs = [[(float(t0), float(t1), int(s)) for _, t0, t1, s in (line.split() for line in out if line.startswith("S "))]
            for out in outputs]
    steps = [[(t1, s) for _, t1, s in seq] for seq in runs]
    kills = [f for f in faults if f["kind"] == "kill"]
    ps_kills = sorted(f["t"] for f in kills if f["task"].startswith("/job:ps/"))
    recover_times, below, lost_updates, steps_lost, anomalies = [], 0, 0, 0, []
    for f in kills:
        affected = range(len(steps)) if f["task"].startswith("/job:ps/") else [int(f["task"].rsplit(":", 1)[1])]
        later = [next((t1 for t0, t1, _ in runs[i] if t0 > f["t"]), None) for i in affected]
        if all(t is not None for t in later):
            recover_times.append(max(later) - f["t"])
            if recover_times[-1] > 10.0:
                anomalies.append({"slow_recovery_s": round(recover_times[-1], 2), "fault_t": round(f["t"] - start, 3),
                                  "task": f["task"]})
    for f in kills:
        if not f["task"].startswith("/job:ps/"):
            continue
        before = max((s for seq in steps for t, s in seq if t < f["t"]), default=0)
        after = min((s for seq in runs for t0, _, s in seq if f["t"] < t0), default=None)  # runs begun after
        if after is None:
            continue
        steps_lost += max(0, before - after)
        if f["checkpoint_step"] is not None and after < f["checkpoint_step"]:
            below += 1
            anomalies.append({"below_checkpoint": True, "fault_t": round(f["t"] - start, 3),
                              "checkpoint_step": f["checkpoint_step"], "before": before, "after": after})
    for i, seq in enumerate(steps):  # a client's view of the global step goes back only across a ps loss
        for (t0, s0), (t1, s1) in zip(seq, seq[1:]):
            if s1 < s0 and not any(t0 - 1.0 <= k <= t1 for k in ps_kills):
                lost_updates += 1
                anomalies.append({"went_back": True, "client": i, "t0": round(t0 - start, 3), "s0": s0,
                                  "t1": round(t1 - start, 3), "s1": s1,
                                  "faults": [(round(f["t"] - start, 3), f["kind"], f["task"]) for f in faults
                                             if t0 - 5 <= f["t"] <= t1]})
    n_ckpt, corrupt, tmp = check_checkpoints(ckpt)
    finished = [p.returncode == 0 and any(line.startswith("DONE") for line in out)
                for p, out in zip(procs, outputs)]
    return {"faults": len(faults), "kills": len(kills), "ps_kills": len(ps_kills),
            "stalls": sum(f["kind"] == "stall" for f in faults), "recoveries": len(recover_times),
            "max_recover_s": round(max(recover_times, default=0.0), 2),
            "steps": sum(len(s) for s in steps), "final_step": max((s for seq in steps for _, s in seq), default=0),
            "steps_lost": steps_lost, "below_checkpoint": below, "lost_acknowledged_updates": lost_updates,
            "checkpoints": n_ckpt, "corrupt_checkpoints": corrupt, "leftover_tmp_files": len(tmp),
            "clients_finished": sum(finished), "clients": len(procs), "anomalies": anomalies[:10],
            "client_errors": [_last_error(e) for e, ok in zip(stderr, finished) if not ok and e.strip()]}


def _last_error(stderr: str) -> str:
    """The last line of a client's stderr that names an error (or its last line)."""
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    named = [line for line in lines if "Error" in line or "Timeout (" in line]
    return (named or lines)[-1][:400]


def run_drill(seconds_per_phase: float, phases=("async", "sync", "ensemble"), fault_every: float = 2.0,
              max_stall: float = 1.0, ckpt_steps: int = 20, members: int = 3, deadline_ms: int = 1000,
              seed: int = 15, workdir: str | None = None, log=print) -> dict:
    """Runs the drill's phases on one fresh ``LocalCluster`` and returns the report."""
    import dflow as tf

    rng = random.Random(seed)
    workdir = workdir or tempfile.mkdtemp(prefix="dflow-chaos-")
    report: dict = {"seconds_per_phase": seconds_per_phase, "fault_every_s": fault_every, "seed": seed}
    with tf.LocalCluster(ps=1, workers=2, dashboard_address=None) as cluster:
        drill = Drill(cluster, rng, fault_every, max_stall)
        for phase in phases:
            tf.Session.reset(cluster.target)  # each phase starts from an empty ps (the last one's model is there)
            t0 = time.monotonic()
            if phase == "ensemble":
                report[phase] = drill.ensemble(seconds_per_phase, members, deadline_ms)
            else:
                report[phase] = drill.training(phase, seconds_per_phase, ckpt_steps, workdir)
            report[phase]["wall_s"] = round(time.monotonic() - t0, 1)
            log(f"{phase}: {json.dumps(report[phase])}")
    phases_out = [report[p] for p in phases]
    report["total"] = {
        "faults": sum(r["faults"] for r in phases_out),
        "hangs": sum(r["hangs"] for r in phases_out),
        "corrupt_checkpoints": sum(r.get("corrupt_checkpoints", 0) for r in phases_out),
        "lost_acknowledged_updates": sum(r.get("lost_acknowledged_updates", 0) for r in phases_out),
        "below_checkpoint": sum(r.get("below_checkpoint", 0) for r in phases_out),
        "max_recover_s": max((r.get("max_recover_s", 0.0) for r in phases_out), default=0.0),
    }
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=6.0, help="length of the whole drill (default 6)")
    ap.add_argument("--phases", default="async,sync,ensemble", help="comma-separated: async, sync, ensemble")
    ap.add_argument("--fault-every", type=float, default=1.5, help="mean seconds between faults (default 1.5)")
    ap.add_argument("--max-stall", type=float, default=1.0, help="longest SIGSTOP stall in seconds (default 1)")
    ap.add_argument("--ckpt-steps", type=int, default=20, help="the chief checkpoints every N steps (default 20)")
    ap.add_argument("--members", type=int, default=3, help="ensemble members (default 3)")
    ap.add_argument("--deadline-ms", type=int, default=1000, help="the aggregator's dequeue deadline (default 1000)")
    ap.add_argument("--seed", type=int, default=15)
    args = ap.parse_args(argv)
    phases = [p.strip() for p in args.phases.split(",") if p.strip()]
    unknown = set(phases) - {"async", "sync", "ensemble"}
    if unknown:
        ap.error(f"unknown phases {sorted(unknown)}")
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    report = run_drill(args.minutes * 60.0 / len(phases), phases, args.fault_every, args.max_stall,
                       args.ckpt_steps, args.members, args.deadline_ms, args.seed,
                       log=lambda s: print(s, flush=True))
    print(json.dumps(report), flush=True)
    total = report["total"]
    bad = total["hangs"] or total["corrupt_checkpoints"] or total["lost_acknowledged_updates"] or \
        total["below_checkpoint"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
