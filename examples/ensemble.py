"""Between-graph ensemble: K model clients, one aggregator, a shared queue.

Each of the K model clients is a separate TF1 program (a thread here, or a
process with ``--processes``) with its own graph and its own
``tf.Session(target)``. It computes its model's predictions for a batch on a
worker and enqueues ``(model id, predictions)`` into a FIFOQueue on
``/job:ps/task:0``. The queue is found by its ``shared_name``: every graph
that declares a queue with that shared name on that device gets the same
queue, as in TF1.

The aggregator, a program of its own, dequeues with
``RunOptions(timeout_in_ms=...)`` until all K models have reported or the
deadline passes, averages what arrived and closes the queue, so a model that
is still running is told its answer came too late. A model that crashes
(``--crash-model k``) or is slow (``--slow-model k``) therefore costs the
aggregator at most its deadline, never a hang.

    python examples/ensemble.py --models 4 --crash-model 2
    python examples/ensemble.py --models 3 --slow-model 1 --slow-ms 3000 --timeout-ms 1000
    python examples/ensemble.py --processes --scheduler tcp://HOST:PORT
"""

import argparse
import subprocess
import sys
import threading
import time
import uuid

import numpy as np

import dflow as tf

HIDDEN = 8


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", type=int, default=4, help="ensemble members K (default 4)")
    p.add_argument("--workers", type=int, default=2, help="worker tasks the models are spread over (default 2)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="use the cluster at this scheduler address instead of starting a LocalCluster")
    p.add_argument("--batch", type=int, default=16, help="rows in the batch to predict (default 16)")
    p.add_argument("--timeout-ms", type=int, default=None,
                   help="how long the aggregator waits for all models, in ms "
                        "(default 3000, or 20000 with --processes, which take a while to start)")
    p.add_argument("--crash-model", type=int, default=None, metavar="K", help="model K raises before enqueueing")
    p.add_argument("--slow-model", type=int, default=None, metavar="K", help="model K sleeps before enqueueing")
    p.add_argument("--slow-ms", type=int, default=5000, help="how long the slow model sleeps (default 5000)")
    p.add_argument("--processes", action="store_true", help="run each model client as its own process")
    p.add_argument("--queue-name", default=None, help="the queue's shared_name (default: a fresh one per run)")
    # Internal: what a model-client process runs (see --processes).
    p.add_argument("--model-client", type=int, default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def batch(n):
    """The batch every model predicts: n points on [-1, 1]."""
    return np.linspace(-1.0, 1.0, n, dtype=np.float32).reshape(-1, 1)


def model_weights(k):
    """Model k's weights: a 1-HIDDEN-1 tanh net, different for each member."""
    rng = np.random.RandomState(100 + k)
    return (rng.normal(0.0, 1.0, (1, HIDDEN)).astype(np.float32), rng.normal(0.0, 0.5, (HIDDEN,)).astype(np.float32),
            rng.normal(0.0, 0.5, (HIDDEN, 1)).astype(np.float32), rng.normal(0.0, 0.1, (1,)).astype(np.float32))


def numpy_predictions(k, xs):
    """Model k's predictions computed with NumPy, to check the ensemble against."""
    w1, b1, w2, b2 = model_weights(k)
    return np.tanh(xs @ w1 + b1) @ w2 + b2


def prediction_queue(args):
    """The shared queue, declared the same way in every program that uses it."""
    with tf.device("/job:ps/task:0"):
        return tf.FIFOQueue(args.models, [tf.int32, tf.float32], shapes=[[], [args.batch, 1]],
                            shared_name=args.queue_name, name="ensemble_predictions")


def run_model_client(k, target, args):
    """One ensemble member: its own graph and session; predicts, then enqueues.

    Returns a short status string (what the member would log)."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [args.batch, 1], name="x")
        w1, b1, w2, b2 = model_weights(k)
        with tf.device(f"/job:worker/task:{k % args.workers}"), tf.name_scope(f"ensemble_model{k}"):
            h = tf.tanh(tf.matmul(x, tf.constant(w1)) + tf.constant(b1))
            pred = tf.matmul(h, tf.constant(w2)) + tf.constant(b2)
        queue = prediction_queue(args)
        enqueue = queue.enqueue([tf.constant(k, tf.int32), pred])
    with tf.Session(target, graph=graph) as sess:
        if k == args.slow_model:
            time.sleep(args.slow_ms / 1000.0)
        if k == args.crash_model:
            raise RuntimeError(f"model {k} crashed (--crash-model {k})")
        try:
            # The prediction is computed on the model's worker and enqueued on the ps in one run.
            sess.run(enqueue, {x: batch(args.batch)}, options=tf.RunOptions(timeout_in_ms=args.timeout_ms))
        except (tf.errors.CancelledError, tf.errors.AbortedError) as e:
            return f"too late, the aggregator had closed the queue ({type(e).__name__})"
    return "enqueued"


def aggregate(target, args):
    """The aggregator: waits up to --timeout-ms for K predictions and averages those that came."""
    graph = tf.Graph()
    with graph.as_default():
        queue = prediction_queue(args)
        model_id, pred = queue.dequeue()
        close = queue.close(cancel_pending_enqueues=True)
    arrived = {}
    start = time.monotonic()
    deadline = start + args.timeout_ms / 1000.0
    with tf.Session(target, graph=graph) as sess:
        while len(arrived) < args.models:
            left_ms = int((deadline - time.monotonic()) * 1000)
            if left_ms <= 0:
                break
            try:
                k, p = sess.run([model_id, pred], options=tf.RunOptions(timeout_in_ms=left_ms))
            except tf.errors.DeadlineExceededError:
                break
            arrived[int(k)] = p
        sess.run(close)    # late members now fail fast instead of filling a queue nobody reads
    waited = time.monotonic() - start
    return arrived, waited


def main(argv=None):
    args = parse_args(argv)
    if args.timeout_ms is None:
        args.timeout_ms = 20000 if args.processes else 3000
    if args.queue_name is None:
        args.queue_name = "ensemble_" + uuid.uuid4().hex[:12]
    if args.model_client is not None:       # this process is one model client
        print(run_model_client(args.model_client, args.scheduler, args))
        return {"model": args.model_client}

    status = {}
    with tf.cluster_target(args.scheduler, workers=args.workers) as target:
        clients = []
        if args.processes:
            base = [sys.executable, __file__, "--scheduler", target, "--queue-name", args.queue_name,
                    "--models", str(args.models), "--workers", str(args.workers), "--batch", str(args.batch),
                    "--timeout-ms", str(args.timeout_ms), "--slow-ms", str(args.slow_ms)]
            for opt, value in (("--crash-model", args.crash_model), ("--slow-model", args.slow_model)):
                if value is not None:
                    base += [opt, str(value)]
            for k in range(args.models):
                clients.append(subprocess.Popen(base + ["--model-client", str(k)], stdout=subprocess.PIPE,
                                                stderr=subprocess.PIPE, text=True))
        else:
            def member(k):
                try:
                    status[k] = run_model_client(k, target, args)
                except Exception as e:  # noqa: BLE001 - a crashed member only reports it
                    status[k] = f"crashed: {e}"

            for k in range(args.models):
                t = threading.Thread(target=member, args=(k,), name=f"model-{k}", daemon=True)
                t.start()
                clients.append(t)

        arrived, waited = aggregate(target, args)

        # Wait for the members to end (a slow one finds the queue closed), then collect their status.
        for k, c in enumerate(clients):
            if args.processes:
                out, err = c.communicate(timeout=120)
                lines = (out.strip() or err.strip() or "").splitlines()
                status[k] = lines[-1] if c.returncode == 0 else f"crashed: {lines[-1] if lines else c.returncode}"
            else:
                c.join(timeout=120)

    contributed = sorted(arrived)
    mean = np.mean([arrived[k] for k in contributed], axis=0) if contributed else None
    xs = batch(args.batch)
    for k in range(args.models):
        mark = "contributed" if k in arrived else "missing"
        print(f"model {k} on /job:worker/task:{k % args.workers}: {mark:<11}  ({status.get(k, '?')})")
    print(f"aggregated {len(contributed)} of {args.models} models in {waited:.2f} s "
          f"(deadline {args.timeout_ms / 1000:.2f} s)")
    if mean is not None:
        print("x:        ", np.array2string(xs[::max(1, args.batch // 5), 0], precision=3))
        print("ensemble: ", np.array2string(mean[::max(1, args.batch // 5), 0], precision=3))
    return {"contributed": contributed, "missing": [k for k in range(args.models) if k not in arrived],
            "predictions": arrived, "mean": mean, "x": xs, "seconds": waited, "status": status}


if __name__ == "__main__":
    main()
