"""Training steps of two classic TF1 models (issue #18, "Figures").

* CNN: the TF1 MNIST tutorial's network. ``tf.layers.conv2d(32, 5, relu,
  same)`` → ``max_pooling2d(2, 2)`` → ``conv2d(64, 5, relu, same)`` →
  ``max_pooling2d(2, 2)`` → flatten → ``dense(1024, relu)`` → ``dense(10)``;
  softmax cross-entropy, Adam; batch 64 of random 28×28×1 inputs fed from numpy.
* LSTM language model: the PTB "small" model. Vocabulary 10 000, embedding
  128 (``tf.nn.embedding_lookup`` on a ``get_variable``), ``MultiRNNCell`` of
  two ``BasicLSTMCell(128)``, ``tf.nn.dynamic_rnn`` over 35 steps, batch 20,
  ``sparse_softmax_cross_entropy_with_logits`` over the vocabulary,
  ``GradientDescentOptimizer`` on ``clip_by_global_norm``-clipped gradients.

Both are written once as TF1 code: ``tf`` is dflow or ``tensorflow.compat.v1``.
Prints milliseconds per training step (median of 7 rounds of 3 steps after a
warm-up). With ``--alternate N`` the dflow and TF1 measurements alternate N
times in the one run (the machine's load drifts) and each figure is the median
over them, with the range. With ``--interleave N`` both sides build their models
once and run bursts of 5 steps alternately, N times each, TF1 in a process this
one drives: the closest pairing, for the ratios on a noisy machine.

Run: ``python benchmarks/bench_models.py [--tf /path/to/tf/python] [--alternate N | --interleave N]``
(``CNN_BATCH=8`` in the environment for another batch size; both sides read it).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np
from _harness import HERE, kernels, main, per_call_us

CNN_BATCH = int(os.environ.get("CNN_BATCH", "64"))  # the 64; smaller ones show fixed costs
VOCAB, EMBED, UNITS, LAYERS, STEPS, LM_BATCH = 10000, 128, 128, 2, 35, 20


def cnn(tf):
    rng = np.random.default_rng(0)
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    y = tf.placeholder(tf.int64, [None])
    h = tf.layers.conv2d(x, 32, 5, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.conv2d(h, 64, 5, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.flatten(h)
    h = tf.layers.dense(h, 1024, activation=tf.nn.relu)
    logits = tf.layers.dense(h, 10)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(1e-4).minimize(loss)
    feed = {x: rng.random((CNN_BATCH, 28, 28, 1), dtype=np.float32),
            y: rng.integers(0, 10, CNN_BATCH)}
    return train, feed


def lstm_lm(tf):
    rng = np.random.default_rng(0)
    tf.set_random_seed(0)
    inputs = tf.placeholder(tf.int32, [LM_BATCH, STEPS])
    targets = tf.placeholder(tf.int32, [LM_BATCH, STEPS])
    with tf.variable_scope("model", initializer=tf.random_uniform_initializer(-0.1, 0.1)):
        embedding = tf.get_variable("embedding", [VOCAB, EMBED])
        emb = tf.nn.embedding_lookup(embedding, inputs)
        cell = tf.nn.rnn_cell.MultiRNNCell(
            [tf.nn.rnn_cell.BasicLSTMCell(UNITS, forget_bias=0.0) for _ in range(LAYERS)])
        state = cell.zero_state(LM_BATCH, tf.float32)
        outputs, _ = tf.nn.dynamic_rnn(cell, emb, initial_state=state)
        output = tf.reshape(outputs, [-1, UNITS])
        w = tf.get_variable("softmax_w", [UNITS, VOCAB])
        b = tf.get_variable("softmax_b", [VOCAB])
        logits = tf.matmul(output, w) + b
    loss = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.reshape(targets, [-1]), logits=logits)) / LM_BATCH
    tvars = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
    train = tf.train.GradientDescentOptimizer(1.0).apply_gradients(zip(grads, tvars))
    feed = {inputs: rng.integers(0, VOCAB, (LM_BATCH, STEPS)).astype(np.int32),
            targets: rng.integers(0, VOCAB, (LM_BATCH, STEPS)).astype(np.int32)}
    return train, feed


def steppers(tf) -> dict:
    """Per figure, a function that runs one training step of its model (built, initialised)."""
    out = {}
    for label, build in (("cnn_step_ms", cnn), ("lstm_lm_step_ms", lstm_lm)):
        g = tf.Graph()
        with g.as_default():
            train, feed = build(tf)
            init = tf.global_variables_initializer()
        sess = tf.Session(graph=g)
        sess.run(init)
        out[label] = lambda sess=sess, train=train, feed=feed: sess.run(train, feed)
    return out


def figures(tf) -> dict:
    out = {}
    for label, step in steppers(tf).items():
        step()
        out[label] = per_call_us(step, 3) / 1e3
    return out


def alternate(python: str, rounds: int) -> None:
    """dflow's and TF1's figures ``rounds`` times, alternately; medians and ranges."""
    import dflow

    rows: dict = {"dflow": [], "tf1": []}
    for _ in range(rounds):
        rows["dflow"].append(figures(dflow))
        res = subprocess.run([python, str(HERE / "tf_reference.py"), "bench_models"], capture_output=True, text=True)
        if res.returncode:
            sys.exit("TF reference failed: " + res.stderr[-2000:])
        rows["tf1"].append(json.loads(res.stdout.strip().splitlines()[-1]))
    print(f"machine: {platform.node()} {platform.machine()} python {platform.python_version()}, "
          f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"kernels: {kernels()}")
    print(f"{'figure':18s}{'dflow':>22s}{'tf1':>22s}{'dflow / tf1':>22s}")
    for k in rows["dflow"][0]:
        d = [r[k] for r in rows["dflow"]]
        t = [r[k] for r in rows["tf1"]]
        q = [a / b for a, b in zip(d, t)]
        print(f"{k:18s}" + "".join(f"{np.median(v):8.2f} ({min(v):.2f}-{max(v):.2f})" for v in (d, t, q)))


def interleave(python: str, rounds: int, steps: int = 5) -> None:
    """dflow's and TF1's steps in bursts of ``steps``, alternately, ``rounds`` times, each model
    built once per side and warmed up: TF1 runs in a process of ``python`` that this one drives
    (``tf_reference.py --serve``), so the two sides' bursts are seconds apart and a drift of the
    machine's load hits both. Per figure: the medians, and the median ratio of the paired bursts
    with its quartiles."""
    import dflow

    server = subprocess.Popen([python, str(HERE / "tf_reference.py"), "bench_models", "--serve"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def tf_burst(label):
        server.stdin.write(f"{label} {steps}\n")
        server.stdin.flush()
        return float(server.stdout.readline()) / steps

    def dflow_burst(step):
        start = time.perf_counter()
        for _ in range(steps):
            step()
        return (time.perf_counter() - start) / steps

    ours = steppers(dflow)
    if server.stdout.readline().strip() != "ready":
        sys.exit("TF reference failed to start")
    times: dict = {label: ([], []) for label in ours}
    for label, step in ours.items():  # warm-up
        dflow_burst(step), tf_burst(label)
    for r in range(rounds):
        for label, step in ours.items():
            if r % 2:  # each side first in turn
                d, t = dflow_burst(step), tf_burst(label)
            else:
                t, d = tf_burst(label), dflow_burst(step)
            times[label][0].append(d * 1e3)
            times[label][1].append(t * 1e3)
    server.stdin.close()
    server.wait()
    print(f"machine: {platform.node()} {platform.machine()} python {platform.python_version()}, "
          f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"kernels: {kernels()}")
    print(f"{rounds} paired bursts of {steps} steps")
    print(f"{'figure':18s}{'dflow':>10s}{'tf1':>10s}{'dflow / tf1 (quartiles)':>30s}")
    for label, (d, t) in times.items():
        q = [a / b for a, b in zip(d, t)]
        print(f"{label:18s}{np.median(d):10.2f}{np.median(t):10.2f}"
              f"{np.median(q):12.3f} ({np.percentile(q, 25):.3f}-{np.percentile(q, 75):.3f})")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--alternate", type=int, default=0)
    ap.add_argument("--interleave", type=int, default=0)
    ap.add_argument("--tf")
    known, _ = ap.parse_known_args()
    if known.interleave and known.tf:
        interleave(known.tf, known.interleave)
    elif known.alternate and known.tf:
        alternate(known.tf, known.alternate)
    else:
        main("bench_models", figures, __doc__)
