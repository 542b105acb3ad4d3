"""Hyperparameter search, one network per device.

Several copies of the seed network (a one-hidden-layer tanh net fitting
y = x², as in ``examples/seed_train.py``) with different learning rates and
hidden sizes are built in ONE graph, each model's variables and ops on its own
worker (``tf.device("/job:worker/task:%d")``). A single ``sess.run`` of all
the train ops per step trains every model at once: the run sends each worker
its own partition, and the workers compute in parallel. At the end the model
with the lowest final loss wins.

Written as TF1 code; only the import differs. Run it with::

    python examples/hyperparameter_search.py --workers 2 --steps 300
    python examples/hyperparameter_search.py --scheduler tcp://HOST:PORT   # an existing cluster
"""

import argparse
import itertools
import time

import numpy as np

import dflow as tf

# The seed network's fixed initial weights (hidden size 5), as in examples/seed_train.py.
SEED_W1 = np.array([[1.5, -1.2, 0.9, -0.6, 1.1]], dtype=np.float32)
SEED_B1 = np.array([0.5, -0.5, 0.3, 0.2, -0.4], dtype=np.float32)
SEED_W2 = np.array([[0.8], [0.7], [-0.6], [0.5], [0.9]], dtype=np.float32)
SEED_B2 = np.array([0.1], dtype=np.float32)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, default=2, help="worker tasks to spread the models over (default 2)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="use the cluster at this scheduler address instead of starting a LocalCluster")
    p.add_argument("--steps", type=int, default=300, help="training steps (default 300)")
    p.add_argument("--learning-rates", type=float, nargs="+", default=[0.3, 0.1, 0.03],
                   help="learning rates to try (default 0.3 0.1 0.03)")
    p.add_argument("--hidden", type=int, nargs="+", default=[5, 16], help="hidden sizes to try (default 5 16)")
    p.add_argument("--points", type=int, default=50, help="training points on [-1, 1] (default 50)")
    return p.parse_args(argv)


def data(n=50):
    xs = np.linspace(-1.0, 1.0, n, dtype=np.float32).reshape(-1, 1)
    return xs, xs ** 2


def initial_weights(hidden, seed=0):
    """The seed net's weights for 5 hidden units, else small random ones (fixed by ``seed``)."""
    if hidden == 5:
        return SEED_W1, SEED_B1, SEED_W2, SEED_B2
    rng = np.random.RandomState(seed + hidden)
    return (rng.uniform(-1.5, 1.5, (1, hidden)).astype(np.float32),
            rng.uniform(-0.5, 0.5, (hidden,)).astype(np.float32),
            rng.uniform(-1.0, 1.0, (hidden, 1)).astype(np.float32) / np.sqrt(hidden / 5.0).astype(np.float32),
            np.array([0.1], dtype=np.float32))


def build_model(x, y, learning_rate, hidden):
    """One copy of the seed network on the current device scope: (loss, train_op)."""
    w1_init, b1_init, w2_init, b2_init = initial_weights(hidden)
    w1 = tf.Variable(w1_init, name="w1")
    b1 = tf.Variable(b1_init, name="b1")
    w2 = tf.Variable(w2_init, name="w2")
    b2 = tf.Variable(b2_init, name="b2")
    h = tf.tanh(tf.matmul(x, w1) + b1)
    pred = tf.matmul(h, w2) + b2
    loss = tf.reduce_mean(tf.square(pred - y), name="loss")
    train_op = tf.train.GradientDescentOptimizer(learning_rate).minimize(loss)
    return loss, train_op


def main(argv=None):
    args = parse_args(argv)
    configs = list(itertools.product(args.learning_rates, args.hidden))
    xs, ys = data(args.points)

    graph = tf.Graph()
    with graph.as_default():
        # The data are fed once per step; each model's partition receives them.
        x = tf.placeholder(tf.float32, [None, 1], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        models = []
        for m, (lr, hidden) in enumerate(configs):
            device = f"/job:worker/task:{m % args.workers}"
            # Everything the model owns (variables, forward, gradients, updates) lives on its device.
            # (Variables on a cluster are shared by name and outlive the session, as in TF1: the
            # scope names the hidden size, so a rerun with other sizes gets variables of its own.)
            with tf.device(device), tf.variable_scope(f"hpsearch_model{m}_h{hidden}"):
                loss, train_op = build_model(x, y, lr, hidden)
            models.append({"model": m, "learning_rate": lr, "hidden": hidden, "device": device,
                           "loss_t": loss, "train_op": train_op})
        losses = [mdl["loss_t"] for mdl in models]
        train_ops = [mdl["train_op"] for mdl in models]
        init = tf.global_variables_initializer()

    feed = {x: xs, y: ys}
    with tf.cluster_target(args.scheduler, workers=args.workers) as target, tf.Session(target, graph=graph) as sess:
        sess.run(init)
        initial = sess.run(losses, feed)
        start = time.perf_counter()
        for _ in range(args.steps):
            sess.run(train_ops, feed)       # one run trains every model, each on its worker
        elapsed = time.perf_counter() - start
        # One traced step shows where each model's ops ran.
        md = tf.RunMetadata()
        final = sess.run(losses, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                         run_metadata=md)
    ran_on = {}
    for dev in md.step_stats.dev_stats:
        for node in dev.node_stats:
            if node.node_name.startswith("hpsearch_model"):
                m = int(node.node_name.split("/")[0][len("hpsearch_model"):].split("_")[0])
                ran_on.setdefault(m, set()).add(dev.device)

    results = []
    for mdl, l0, l1 in zip(models, initial, final):
        results.append({"model": mdl["model"], "learning_rate": mdl["learning_rate"], "hidden": mdl["hidden"],
                        "device": mdl["device"], "ran_on": sorted(ran_on.get(mdl["model"], ())),
                        "initial_loss": float(l0), "final_loss": float(l1)})
    best = min(results, key=lambda r: r["final_loss"])

    print(f"{'model':>5}  {'lr':>7}  {'hidden':>6}  {'device':<20}  {'loss@0':>10}  {'loss@' + str(args.steps):>10}")
    for r in results:
        mark = "  <- best" if r is best else ""
        print(f"{r['model']:>5}  {r['learning_rate']:>7g}  {r['hidden']:>6}  {r['device']:<20}  "
              f"{r['initial_loss']:>10.6f}  {r['final_loss']:>10.6f}{mark}")
    print(f"{len(results)} models on {args.workers} workers: {args.steps} steps in {elapsed:.2f} s "
          f"({args.steps / max(elapsed, 1e-9):.0f} steps/s)")
    print(f"best: model {best['model']} (learning rate {best['learning_rate']:g}, "
          f"{best['hidden']} hidden units), final loss {best['final_loss']:.6f}")
    return {"models": results, "best": best, "steps": args.steps, "seconds": elapsed}


if __name__ == "__main__":
    main()
