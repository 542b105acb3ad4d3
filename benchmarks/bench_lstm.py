"""LSTM training speed: a ``tf.nn.dynamic_rnn`` over a ``BasicLSTMCell``.

Batch 32, 20 time steps, 16 input features, 64 units; softmax
cross-entropy over 10 classes from the last output; plain SGD. Prints
milliseconds per training step and steps per second, and the same for a
forward pass alone (the outputs of every step).

Run: ``python benchmarks/bench_lstm.py [--tf /path/to/tf/python]``.
"""

from __future__ import annotations

import numpy as np
from _harness import main, per_call_us

BATCH, STEPS, FEATURES, UNITS, CLASSES = 32, 20, 16, 64, 10


def lstm_model(tf):
    rng = np.random.default_rng(0)
    x = tf.placeholder(tf.float32, [BATCH, STEPS, FEATURES])
    y = tf.placeholder(tf.int32, [BATCH])
    with tf.variable_scope("bench", initializer=tf.random_uniform_initializer(-0.1, 0.1, seed=0)):
        cell = tf.nn.rnn_cell.BasicLSTMCell(UNITS)
        outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        w = tf.get_variable("w", [UNITS, CLASSES])
        logits = tf.matmul(outputs[:, -1], w)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feed = {x: rng.normal(size=(BATCH, STEPS, FEATURES)).astype(np.float32),
            y: rng.integers(0, CLASSES, BATCH).astype(np.int32)}
    return outputs, train, feed


def figures(tf) -> dict:
    with tf.Graph().as_default():
        outputs, train, feed = lstm_model(tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            train_us = per_call_us(lambda: sess.run(train, feed), number=5)
            forward_us = per_call_us(lambda: sess.run(outputs, feed), number=5)
    return {"train step (ms)": train_us / 1e3, "train steps/s": 1e6 / train_us,
            "forward (ms)": forward_us / 1e3, "forward runs/s": 1e6 / forward_us}


if __name__ == "__main__":
    main("bench_lstm", figures, __doc__)
