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
over them, with the range.

Run: ``python benchmarks/bench_models.py [--tf /path/to/tf/python] [--alternate N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys

import numpy as np
from _harness import HERE, kernels, main, per_call_us

CNN_BATCH = 64
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


def figures(tf) -> dict:
    out = {}
    for label, build, n in (("cnn_step_ms", cnn, 3), ("lstm_lm_step_ms", lstm_lm, 3)):
        g = tf.Graph()
        with g.as_default():
            train, feed = build(tf)
            init = tf.global_variables_initializer()
        with tf.Session(graph=g) as sess:
            sess.run(init)
            sess.run(train, feed)
            out[label] = per_call_us(lambda train=train, feed=feed: sess.run(train, feed), n) / 1e3
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


if __name__ == "__main__":
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--alternate", type=int, default=0)
    ap.add_argument("--tf")
    known, _ = ap.parse_known_args()
    if known.alternate and known.tf:
        alternate(known.tf, known.alternate)
    else:
        main("bench_models", figures, __doc__)
