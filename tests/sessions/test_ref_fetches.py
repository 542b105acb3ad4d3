"""A fetched ref variable is its value after the run's updates, as TF1's aliasing buffers give.

Every expected value is what TF 2.15's ``compat.v1`` gives with ``disable_v2_behavior()`` (ref
variables); the cluster case is in test_cluster_session.py.
"""

import numpy as np
import pytest

import dflow as tf


def _run(fetches, init=True):
    with tf.Session() as s:
        if init:
            s.run(tf.global_variables_initializer())
        return s.run(fetches)


def _gd_step(read):
    w = tf.Variable([1.0, 2.0], name="w")
    loss = tf.reduce_sum(w * w)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return train, loss, read(w)


@pytest.mark.parametrize("order", ["update first", "variable first"])
def test_an_assign_and_its_variable_in_one_run_give_the_new_value(order):
    with tf.Graph().as_default():
        v = tf.Variable(0)
        inc = tf.assign_add(v, 1)
        got = _run([inc, v] if order == "update first" else [v, inc])
    assert [int(x) for x in got] == [1, 1]


@pytest.mark.parametrize("read", [lambda w: w, lambda w: w.read_value(), lambda w: tf.identity(w),
                                  lambda w: tf.identity(tf.identity(w))],
                         ids=["variable", "read_value", "identity", "identity of identity"])
def test_train_op_and_weights_give_the_weights_after_the_step(read):
    with tf.Graph().as_default():
        train, loss, w = _gd_step(read)
        got = _run([train, loss, w])
    assert got[0] is None
    assert float(got[1]) == 5.0  # the loss is computed before the update
    np.testing.assert_allclose(got[2], [0.8, 1.6], rtol=1e-6)


def test_a_computed_value_of_the_weights_stays_a_snapshot():
    with tf.Graph().as_default():
        train, _, w = _gd_step(lambda w: w * 1.0)
        got = _run([train, w])
    np.testing.assert_allclose(got[1], [1.0, 2.0])


def test_a_resource_variable_stays_a_snapshot():
    with tf.Graph().as_default():
        w = tf.get_variable("w", initializer=tf.constant([1.0, 2.0]), use_resource=True)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(w * w))
        got = _run([train, w])
    np.testing.assert_allclose(got[1], [1.0, 2.0])


def test_the_global_step_idiom_logs_the_step_just_taken():
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        x = tf.Variable(1.0)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(x * x, global_step=gs)
        steps = []
        with tf.train.MonitoredTrainingSession(hooks=[tf.train.StopAtStepHook(last_step=5)]) as sess:
            while not sess.should_stop():
                _, step = sess.run([train, gs])
                steps.append(int(step))
    assert steps == [1, 2, 3, 4, 5]


def test_each_run_gives_its_own_value():
    with tf.Graph().as_default():
        v = tf.Variable(0)
        inc = tf.assign_add(v, 1)
        with tf.Session() as s:
            s.run(v.initializer)
            got = [s.run([inc, v])[1] for _ in range(3)]
            assert [int(x) for x in got] == [1, 2, 3]
            assert int(s.run(v)) == 3


def test_a_fed_variable_is_its_fed_value():
    with tf.Graph().as_default():
        v = tf.Variable(0)
        inc = tf.assign_add(v, 1)
        with tf.Session() as s:
            s.run(v.initializer)
            assert int(s.run([inc, v.value()], {v.value(): 7})[1]) == 7
