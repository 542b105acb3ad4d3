"""tf.train.ExponentialMovingAverage against TF 2.15 compat.v1 (/tmp/ref/utils/ema_ref.py)."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _averaged():
    """TF's script: two variables averaged with num_updates, a tensor zero-debiased."""
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(5.0, name="w")
    t = tf.placeholder(tf.float32, [], name="t")
    step = tf.Variable(0, name="step", trainable=False)
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
    op = ema.apply([v, w])
    ema2 = tf.train.ExponentialMovingAverage(0.5, zero_debias=True, name="Zd")
    tsq = tf.square(t, name="tsq")
    return v, w, t, step, ema, op, ema2, tsq, ema2.apply([tsq])


def test_names_collections_and_restore_map_as_tf():
    v, w, t, step, ema, op, ema2, tsq, _ = _averaged()
    assert (op.name, op.type, ema.average(v).name, ema.average_name(v), ema.average_name(t),
            ema2.average(tsq).name, ema.name) == ("ExponentialMovingAverage", "NoOp", "v/ExponentialMovingAverage:0",
                                                  "v/ExponentialMovingAverage", "t/ExponentialMovingAverage",
                                                  "tsq/Zd:0", "ExponentialMovingAverage")
    assert [x.op.name for x in tf.global_variables()] == ["v", "w", "step", "v/ExponentialMovingAverage",
                                                          "w/ExponentialMovingAverage", "tsq/Zd", "tsq/Zd/biased",
                                                          "tsq/Zd/local_step"]
    assert [x.op.name for x in tf.moving_average_variables()] == ["v", "w"]
    assert ema.average(v) not in tf.trainable_variables()
    assert sorted((k, x.op.name) for k, x in ema.variables_to_restore().items()) == [
        ("step", "step"), ("tsq/Zd", "tsq/Zd"), ("tsq/Zd/biased", "tsq/Zd/biased"),
        ("tsq/Zd/local_step", "tsq/Zd/local_step"), ("v/ExponentialMovingAverage", "v"),
        ("w/ExponentialMovingAverage", "w")]
    ops = [o.name for o in tf.get_default_graph().get_operations() if o.name.startswith("ExponentialMovingAverage")]
    assert ops == ["ExponentialMovingAverage/decay", "ExponentialMovingAverage/num_updates",
                   "ExponentialMovingAverage/add/x", "ExponentialMovingAverage/add", "ExponentialMovingAverage/add_1/x",
                   "ExponentialMovingAverage/add_1", "ExponentialMovingAverage/truediv",
                   "ExponentialMovingAverage/Minimum"] + [
        f"ExponentialMovingAverage/AssignMovingAvg{s}{o}" for s in ("", "_1")
        for o in ("/sub/x", "/sub", "/sub_1", "/mul", "")] + ["ExponentialMovingAverage"]
    with pytest.raises(TypeError, match="The variables must be half, float, or double: iv:0"):
        ema.apply([tf.Variable(1, name="iv")])
    assert ema.apply([v]).type == "NoOp"  # TF 2.15 reuses an existing average


def test_values_with_num_updates_and_zero_debias_as_tf():
    v, w, t, step, ema, op, ema2, tsq, op2 = _averaged()
    tf_steps = [([1.8181818, 2.8181818], 5.0), ([2.7045455, 3.7045455], 4.25), ([3.6013987, 4.6013985], 3.3846154)]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for i, (want_v, want_w) in enumerate(tf_steps):
            s.run(tf.assign_add(v, [1.0, 1.0]))
            s.run(tf.assign(w, 5.0 - i))
            s.run(tf.assign_add(step, 1))
            s.run(op)
            got_v, got_w = s.run([ema.average(v), ema.average(w)])
            np.testing.assert_allclose(got_v, want_v, rtol=1e-6)
            np.testing.assert_allclose(got_w, want_w, rtol=1e-6)
        got = []
        for val in (2.0, 3.0, 4.0):
            s.run(op2, {t: val})
            got.append(s.run(ema2.average(tsq)))
        np.testing.assert_allclose(got, [4.0, 7.3333335, 12.285714], rtol=1e-6)


def test_apply_after_train_op_and_restore_averages_for_eval(tmp_path):
    x = tf.constant([1.0, 2.0])
    w = tf.Variable(0.0, name="w")
    loss = tf.reduce_sum(tf.square(w * x - 3.0))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    ema = tf.train.ExponentialMovingAverage(0.5)
    with tf.control_dependencies([train]):
        train_op = ema.apply()  # the shadow is made outside the control dependencies
    assert ema.average(w).initializer.control_inputs == []
    saver = tf.train.Saver()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(train_op)
        w_now, avg = s.run([w, ema.average(w)])
        path = saver.save(s, str(tmp_path / "model"))
    assert avg != w_now
    with tf.Session() as s:
        tf.train.Saver(ema.variables_to_restore()).restore(s, path)
        assert s.run(w) == pytest.approx(avg)
