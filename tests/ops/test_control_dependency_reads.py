"""A variable read ordered by control dependencies sees the updates it is ordered after (TF1's ref reads).

Every figure below was printed by TF 2.15's ``tensorflow.compat.v1`` with eager
execution disabled, for the same graphs (ref and resource variables agree on
all of them).
"""

import numpy as np
import pytest

import dflow as tf


def _build(use_resource):
    t = {}
    v = tf.get_variable("v", initializer=1.0, use_resource=use_resource)
    with tf.control_dependencies([tf.assign_add(v, 1.0)]):
        t["identity"] = tf.identity(v) * 1.0
    w = tf.get_variable("w", initializer=10.0, use_resource=use_resource)
    with tf.control_dependencies([tf.assign_add(w, 1.0)]):
        t["reads"] = [w.read_value(), w.value() + 0.0, w + 0.0]
    u = tf.get_variable("u", initializer=100.0, use_resource=use_resource)
    with tf.control_dependencies([tf.group(tf.assign_add(u, 1.0), tf.assign_add(u, 2.0))]):
        t["group"] = tf.identity(u)
    s = tf.get_variable("s", initializer=5.0, use_resource=use_resource)
    with tf.control_dependencies(tf.tuple([tf.assign_add(s, 3.0)])):
        t["tuple"] = s * 1.0
    x = tf.get_variable("x", initializer=2.0, use_resource=use_resource)
    loss = tf.square(x)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.control_dependencies([train]):
        t["train"] = [tf.identity(loss), tf.identity(x)]
    return t


TF1 = [("identity", 2.0, 3.0), ("reads", [11.0, 11.0, 11.0], [12.0, 12.0, 12.0]), ("group", 103.0, 106.0),
       ("tuple", 8.0, 11.0), ("train", [4.0, 1.6], [2.56, 1.28])]


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
def test_reads_inside_a_block_see_its_updates_as_tf1(use_resource):
    t = _build(use_resource)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for key, first, second in TF1:
            np.testing.assert_allclose(sess.run(t[key]), first, rtol=1e-6, err_msg=key)
            np.testing.assert_allclose(sess.run(t[key]), second, rtol=1e-6, err_msg=key)


def test_a_ref_snapshot_made_before_the_block_still_reads_the_variable_when_used():
    # TF1: v/read aliases the variable's buffer, so identity(v.value()) after assign_add sees 2.0, then 3.0.
    v = tf.Variable(1.0)
    snapshot = v.value()
    with tf.control_dependencies([tf.assign_add(v, 1.0)]):
        y = tf.identity(snapshot)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert [sess.run(y), sess.run(y)] == [2.0, 3.0]


def test_resource_variables_from_a_scope_and_their_snapshots():
    with tf.variable_scope("scope", use_resource=True):
        with tf.variable_scope("inner"):
            r = tf.get_variable("r", initializer=1.0)
    graph = tf.get_default_graph()
    assert r.op in graph._attachments["resource_variables"]  # the inner scope inherits use_resource
    with tf.control_dependencies([tf.assign_add(r, 1.0)]):
        fresh = tf.identity(r)
    assert fresh.op.inputs[0] is not r.value()  # a ReadVariableOp made in the block, as TF1's value()
    with tf.Session() as sess:
        sess.run(r.initializer)
        assert [sess.run(fresh), sess.run(fresh)] == [2.0, 3.0]


def test_reads_outside_blocks_and_blocks_of_other_variables_add_no_ops():
    v = tf.Variable(1.0, name="v")
    other = tf.Variable(0.0, name="other")
    with tf.control_dependencies([tf.assign_add(other, 1.0)]):
        y = v * 2.0  # the block updates `other` only: v is read through v/read, as before
    assert y.op.inputs[0] is v.value()
    # A variable created inside a block takes none of its control inputs (TF1's init_scope).
    with tf.control_dependencies([y]):
        inner = tf.Variable(3.0, name="inner")
    assert inner.initializer.control_inputs == [] and inner.op.control_inputs == []


def test_a_queue_runner_loop_enqueues_values_read_after_each_increment():
    counter = tf.Variable(0.0, name="counter")
    q = tf.FIFOQueue(10, [tf.float32])
    with tf.control_dependencies([tf.assign_add(counter, 1.0)]):
        enqueue = q.enqueue([tf.identity(counter)])
    qr = tf.train.QueueRunner(q, [enqueue])
    with tf.Session() as sess:
        sess.run(counter.initializer)
        coord = tf.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, start=True)
        got = [sess.run(q.dequeue()) for _ in range(5)]
        coord.request_stop()
        sess.run(q.close(cancel_pending_enqueues=True))
        coord.join(threads)
    assert got == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_gradients_flow_through_a_fresh_read():
    x = tf.Variable(3.0)
    bump = tf.assign_add(x, 1.0)
    with tf.control_dependencies([bump]):
        y = tf.square(x)
    (g,) = tf.gradients(y, [x])
    with tf.Session() as sess:
        sess.run(x.initializer)
        assert sess.run([y, g]) == [16.0, 8.0]
