"""Large independent ops run beside a loop (dflow.sessions.overlap)."""

import numpy as np
import pytest

import dflow as tf
from dflow.sessions import overlap
from dflow.sessions import plan as planning
from dflow.sessions.program import _statements

RNG = np.random.default_rng(11)


def _loop(n=300):
    """A while loop of ``n`` small steps (a few ms of Python), and its result."""
    i0 = tf.constant(0)
    x0 = tf.constant(np.ones((4, 4), np.float32))
    _, x = tf.while_loop(lambda i, x: i < n, lambda i, x: (i + 1, tf.tanh(x) * 1.01), [i0, x0], name="loop")
    return x


def _started(fetches, fed=()):
    """``{loop op name: [names of ops started before it]}`` of a one-partition plan."""
    tensors = [f for f in fetches if isinstance(f, tf.Tensor)]
    targets = [f for f in fetches if not isinstance(f, tf.Tensor)]
    ops = planning.prune_to_fetches(tensors, targets, set(fed))
    (part,) = planning.partition_by_device(ops, {op: "/device:CPU:0" for op in ops}, set(fed), tensors)
    plan = overlap.plan_overlap(part, _statements(part, {}), {})
    return {part.ops[loop].name: [part.ops[s].name for s in started] for loop, started in plan.items()}


def test_a_large_product_runs_beside_the_loop_and_gives_the_same_values(monkeypatch):
    a = tf.constant(RNG.normal(size=(1024, 1024)).astype(np.float32))  # LARGE: 1 M elements
    b = tf.constant(RNG.normal(size=(1024, 256)).astype(np.float32))
    x = _loop()
    matmul = tf.matmul(a, b, name="product")
    with tf.control_dependencies([x]):  # the program runs the loop first, then the product
        product = tf.identity(matmul)
    assert _started([x, product]) == {"loop/While": ["product"]}
    values = {}
    for on in ("1", "0"):
        monkeypatch.setenv("DFLOW_OVERLAP", on)
        md = tf.RunMetadata()
        with tf.Session() as s:
            values[on] = s.run([x, product], options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                               run_metadata=md)
        stats = {n.node_name: n for d in md.step_stats.dev_stats for n in d.node_stats}
        loop, prod = stats["loop/While"], stats["product"]
        started_first = prod.all_start_nanos < loop.all_start_nanos + loop.all_end_rel_nanos
        assert started_first == (on == "1")  # beside the loop, or after it
    for got, want in zip(values["1"], values["0"]):
        np.testing.assert_array_equal(got, want)


def test_what_does_not_run_beside_a_loop(monkeypatch):
    big = tf.constant(RNG.normal(size=(1024, 1024)).astype(np.float32))
    x = _loop()
    after_loop = tf.matmul(big, tf.tile(x, [256, 256]), name="reads_the_loop")
    small = tf.matmul(tf.constant(np.ones((3, 3), np.float32)), tf.constant(np.ones((3, 3), np.float32)),
                      name="small")
    late = tf.matmul(tf.identity(big, name="made_after"), big, name="reads_a_later_value")
    assert _started([after_loop, small]) == {}
    # made_after comes after the loop in program order (the fetches are walked in turn): its
    # reader is not started before the loop.
    assert _started([x, late]) == {}
    assert _started([late, x]) == {}  # here the product comes first: nothing to move
    monkeypatch.setenv("DFLOW_OVERLAP", "0")
    product = tf.matmul(big, big, name="product")
    assert _started([x, product]) == {}


def test_control_edges_and_stateful_ops_stay_in_order(monkeypatch):
    monkeypatch.setattr(overlap, "LARGE", 1)
    a = tf.constant(np.ones((2, 2), np.float32))
    x = _loop()
    with tf.control_dependencies([x]):
        waits = tf.matmul(a, a, name="waits_for_the_loop")
    assert _started([waits]) == {}
    v = tf.Variable(np.ones((2, 2), np.float32), name="v")
    with tf.control_dependencies([x]):
        update = tf.assign_add(v, a, name="update")  # stateful: never moved
    matmul = tf.matmul(a, a, name="product")
    with tf.control_dependencies([update]):
        product = tf.identity(matmul)
    assert _started([x, product, update]) == {"loop/While": ["product"]}  # not the update


def test_an_error_beside_the_loop_is_the_ops_own(monkeypatch):
    monkeypatch.setattr(overlap, "LARGE", 1)
    p = tf.placeholder(tf.float32, [None, None])
    x = _loop(20)
    product = tf.matmul(p, tf.constant(np.ones((3, 2), np.float32)), name="product")
    with tf.control_dependencies([x]):
        out = tf.identity(product)
    assert _started([x, out], fed=[p]) == {"loop/While": ["product"]}
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible") as info:
            s.run([x, out], {p: np.ones((2, 5), np.float32)})
        assert info.value.op.name == "product"
        np.testing.assert_array_equal(s.run(out, {p: np.ones((2, 3), np.float32)}), np.full((2, 2), 3.0))


def test_lstm_gradients_beside_the_loop_train_as_in_order(monkeypatch):
    tf.set_random_seed(2)
    inputs = tf.placeholder(tf.float32, [8, 5, 3])
    cell = tf.nn.rnn_cell.BasicLSTMCell(6)
    outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
    w = tf.get_variable("w", [6, 7])
    logits = tf.matmul(tf.reshape(outputs, [-1, 6]), w)
    loss = tf.reduce_mean(tf.square(logits))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feed = {inputs: RNG.normal(size=(8, 5, 3)).astype(np.float32)}
    monkeypatch.setattr(overlap, "LARGE", 1)  # the softmax-like weight's gradient goes beside WhileGrad
    losses = {}
    for on in ("1", "0"):
        monkeypatch.setenv("DFLOW_OVERLAP", on)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            losses[on] = [s.run([loss, train], feed)[0] for _ in range(4)]
            if on == "1":
                plan = list(s._plans.values())[-1]
                assert any("_bg.submit" in prog.source for prog in plan.programs)
    np.testing.assert_array_equal(losses["1"], losses["0"])
