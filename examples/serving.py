"""Serving: one trained model replicated on every worker, queries spread round-robin.

1. Train the seed network's architecture (1 input, ``--hidden`` tanh units,
   1 output; ``--hidden 5`` is exactly the seed net) for a few steps, its
   variables on ``/job:ps/task:0``.
2. Build one replica of the model per worker (``tf.device`` per worker), each
   with its own variables, and load them from the trained values with
   ``tf.assign`` (what a restore from a checkpoint does).
3. Check that every replica gives the trained model's predictions.
4. Serve: queries (batches of inputs) are dispatched round-robin over the
   first k replicas from a thread pool, for k = 1, 2, ..., --workers, and the
   queries per second are reported. With ``--sessions per-thread`` each
   thread opens its own session; by default the threads share one.

    python examples/serving.py --workers 2
    python examples/serving.py --scheduler tcp://HOST:PORT --workers 4
"""

import argparse
import concurrent.futures
import threading
import time

import numpy as np

import dflow as tf

SEED_W1 = np.array([[1.5, -1.2, 0.9, -0.6, 1.1]], dtype=np.float32)
SEED_B1 = np.array([0.5, -0.5, 0.3, 0.2, -0.4], dtype=np.float32)
SEED_W2 = np.array([[0.8], [0.7], [-0.6], [0.5], [0.9]], dtype=np.float32)
SEED_B2 = np.array([0.1], dtype=np.float32)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, default=2, help="replicas, one per worker task (default 2)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="use the cluster at this scheduler address instead of starting a LocalCluster")
    p.add_argument("--hidden", type=int, default=128, help="hidden units (default 128; 5 is the seed net)")
    p.add_argument("--learning-rate", type=float, default=None,
                   help="gradient-descent step (default 0.5 / hidden: 0.1 for the seed net; wider nets need less)")
    p.add_argument("--train-steps", type=int, default=300, help="training steps before serving (default 300)")
    p.add_argument("--queries", type=int, default=200, help="queries per measurement (default 200)")
    p.add_argument("--batch", type=int, default=8192, help="inputs per query (default 8192)")
    p.add_argument("--threads-per-replica", type=int, default=2, help="client threads per replica (default 2)")
    p.add_argument("--sessions", choices=["shared", "per-thread"], default="shared",
                   help="one session shared by the threads, or one per thread (default shared)")
    return p.parse_args(argv)


def initial_weights(hidden):
    if hidden == 5:
        return SEED_W1, SEED_B1, SEED_W2, SEED_B2
    rng = np.random.RandomState(hidden)
    return (rng.uniform(-1.5, 1.5, (1, hidden)).astype(np.float32),
            rng.uniform(-0.5, 0.5, (hidden,)).astype(np.float32),
            (rng.uniform(-1.0, 1.0, (hidden, 1)) * np.sqrt(5.0 / hidden)).astype(np.float32),
            np.array([0.1], dtype=np.float32))


def forward(x, w1, b1, w2, b2):
    return tf.matmul(tf.tanh(tf.matmul(x, w1) + b1), w2) + b2


def train(target, args):
    """Trains the model briefly on the cluster; returns its weights and its loss."""
    xs = np.linspace(-1.0, 1.0, 50, dtype=np.float32).reshape(-1, 1)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 1], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        with tf.device("/job:ps/task:0"), tf.variable_scope(f"serving_h{args.hidden}_trained"):
            params = [tf.Variable(v, name=n) for v, n in zip(initial_weights(args.hidden), ["w1", "b1", "w2", "b2"])]
        with tf.device("/job:worker/task:0"):
            loss = tf.reduce_mean(tf.square(forward(x, *params) - y))
            train_op = tf.train.GradientDescentOptimizer(args.learning_rate).minimize(loss)
        init = tf.variables_initializer(params)
    with tf.Session(target, graph=graph) as sess:
        sess.run(init)
        for _ in range(args.train_steps):
            sess.run(train_op, {x: xs, y: xs ** 2})
        return sess.run(params), float(sess.run(loss, {x: xs, y: xs ** 2}))


def build_replicas(args):
    """One replica per worker: its variables, an op loading them, its prediction.

    Variables on a cluster outlive the session and are shared by name (as on
    a TF1 cluster), so the names carry the hidden size: a rerun with another
    --hidden gets variables of its own."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 1], name="x")
        shapes = [w.shape for w in initial_weights(args.hidden)]
        # The trained values are fed once; each replica's assigns copy them onto its worker.
        trained = [tf.placeholder(tf.float32, s, name="trained_" + n) for s, n in zip(shapes, ["w1", "b1", "w2", "b2"])]
        loads, preds = [], []
        for i in range(args.workers):
            with tf.device(f"/job:worker/task:{i}"), tf.variable_scope(f"serving_h{args.hidden}_replica{i}"):
                params = [tf.Variable(tf.zeros(s), name=n) for s, n in zip(shapes, ["w1", "b1", "w2", "b2"])]
                loads.append(tf.group(*[tf.assign(p, t) for p, t in zip(params, trained)]))
                preds.append(forward(x, *params))
    return graph, x, trained, loads, preds


def serve(target, graph, x, preds, replicas, args, shared_sess):
    """Runs --queries queries round-robin over ``replicas`` replicas; returns queries/s."""
    rng = np.random.RandomState(0)
    queries = [rng.uniform(-1.0, 1.0, (args.batch, 1)).astype(np.float32) for _ in range(args.queries)]
    local = threading.local()
    opened = []

    def open_session():
        """Thread-pool initializer: this thread's session, with its plans built before the clock starts."""
        local.sess = shared_sess
        if local.sess is None:
            local.sess = tf.Session(target, graph=graph)
            opened.append(local.sess)
            for p in preds[:replicas]:
                local.sess.run(p, {x: queries[0]})

    def query(i):
        return local.sess.run(preds[i % replicas], {x: queries[i]})  # query i goes to replica i mod k

    threads = replicas * args.threads_per_replica
    with concurrent.futures.ThreadPoolExecutor(threads, initializer=open_session) as pool:
        barrier = threading.Barrier(threads)
        list(pool.map(lambda _: barrier.wait(), range(threads)))  # every thread started and initialized
        start = time.perf_counter()
        answers = list(pool.map(query, range(args.queries)))
        elapsed = time.perf_counter() - start
    for sess in opened:
        sess.close()
    assert all(a.shape == (args.batch, 1) for a in answers)
    return args.queries / elapsed


def main(argv=None):
    args = parse_args(argv)
    if args.learning_rate is None:
        args.learning_rate = 0.5 / args.hidden
    probe = np.linspace(-1.0, 1.0, 11, dtype=np.float32).reshape(-1, 1)
    with tf.cluster_target(args.scheduler, workers=args.workers) as target:
        weights, train_loss = train(target, args)
        print(f"trained 1-{args.hidden}-1 net for {args.train_steps} steps: loss {train_loss:.6f}")
        w1, b1, w2, b2 = weights
        expected = np.tanh(probe @ w1 + b1) @ w2 + b2

        graph, x, trained, loads, preds = build_replicas(args)
        with tf.Session(target, graph=graph) as sess:
            sess.run(loads, dict(zip(trained, weights)))
            # Every replica answers the probe in one run (all workers at once).
            answers = sess.run(preds, {x: probe})
            max_diff = max(float(np.max(np.abs(a - expected))) for a in answers)
            for i, a in enumerate(answers):
                print(f"replica {i} (/job:worker/task:{i}) probe:", np.array2string(a[::5, 0], precision=4))
            print(f"replicas agree with the trained model: max |difference| {max_diff:.2e}")

            for p in preds:
                sess.run(p, {x: probe})        # plans built before the clock starts
            qps = {}
            for k in range(1, args.workers + 1):
                qps[k] = serve(target, graph, x, preds, k, args, sess if args.sessions == "shared" else None)
                print(f"{k} worker(s), {k * args.threads_per_replica} threads: {qps[k]:8.1f} queries/s "
                      f"({qps[k] * args.batch:,.0f} predictions/s)")
    return {"train_loss": train_loss, "replica_predictions": answers, "expected": expected,
            "max_diff": max_diff, "qps": qps}


if __name__ == "__main__":
    main()
