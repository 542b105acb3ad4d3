"""Session.partial_run: one step in several calls. Expected values and error messages are
TF 2.15's (compat.v1, graph mode: /tmp/ref/prun.py)."""

import numpy as np
import pytest

import dflow as tf


@pytest.fixture
def graph():
    a = tf.placeholder(tf.float32, shape=[], name="a")
    b = tf.placeholder(tf.float32, shape=[], name="b")
    c = tf.placeholder(tf.float32, shape=[], name="c")
    r1 = tf.add(a, b, name="r1")
    r2 = tf.multiply(r1, c, name="r2")
    return a, b, c, r1, r2


def test_fetches_come_as_their_feeds_arrive(sess, graph):
    a, b, c, r1, r2 = graph
    h = sess.partial_run_setup([r1, r2], [a, b, c])
    assert isinstance(h, str)
    assert sess.partial_run(h, r1, feed_dict={a: 1, b: 2}) == 3.0
    assert sess.partial_run(h, r2, feed_dict={c: 3}) == 9.0
    h = sess.partial_run_setup([r1, r2], [a, b, c])
    assert sess.partial_run(h, [], feed_dict={a: 1}) == []  # feeds alone
    assert sess.partial_run(h, {"x": r1}, feed_dict={b: 4}) == {"x": 5.0}
    np.testing.assert_array_equal(sess.partial_run(h, [r2], feed_dict={c: 2}), [10.0])
    h = sess.partial_run_setup([r1, r2], [a, b, c])
    assert sess.partial_run(h, [r1, r2], feed_dict={a: 1, b: 2, c: 2}) == [3.0, 6.0]


def test_no_op_of_the_step_runs_twice(sess, graph):
    a, _, c, _, _ = graph
    rnd = tf.random_uniform([], name="rnd")
    r3, r4 = tf.add(rnd, a, name="r3"), tf.add(rnd, c, name="r4")
    h = sess.partial_run_setup([r3, r4], [a, c])
    assert sess.partial_run(h, r3, {a: 0.0}) == sess.partial_run(h, r4, {c: 0.0})  # one draw
    v = tf.Variable(0.0, name="v")
    sess.run(v.initializer)
    inc = tf.assign_add(v, 1.0, name="inc")
    r5, r6 = tf.add(inc, a, name="r5"), tf.add(inc, c, name="r6")
    with tf.control_dependencies([inc]):
        r7 = tf.multiply(c, 2.0, name="r7")  # waits for inc by a control edge only
    h = sess.partial_run_setup([r5, r6, r7], [a, c])
    assert sess.partial_run(h, r5, {a: 0.0}) == 1.0
    assert sess.partial_run(h, [r6, r7], {c: 0.0}) == [1.0, 0.0]
    assert sess.run(v) == 1.0  # TF 2.15: inc steps 1.0 1.0, v 1.0
    h = sess.partial_run_setup([r5, inc], [a])
    assert sess.partial_run(h, [r5, inc], {a: 1.0}) == [3.0, 2.0]
    assert sess.run(v) == 2.0


def test_errors_are_tfs(sess, graph):
    a, b, c, r1, r2 = graph
    r3 = tf.add(a, 1.0, name="r3")
    v = tf.Variable(0.0, name="v")
    h = sess.partial_run_setup([r1, r2], [a, b, c])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^The fetch r3:0 was not specified in partial_run_setup"):
        sess.partial_run(h, r3, feed_dict={a: 1})
    with pytest.raises(tf.errors.InvalidArgumentError, match="The feed v:0 was not specified in partial_run_setup"):
        sess.partial_run(h, r1, feed_dict={a: 1, b: 2, v: 3.0})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Fetch b:0 can't be computed from the feeds that have been fed so far"):
        sess.partial_run(h, r1, feed_dict={a: 1})
    h = sess.partial_run_setup([r1, r2], [a, b, c])
    assert sess.partial_run(h, r1, feed_dict={a: 1, b: 2}) == 3.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="The fetch r1:0 has already been fetched"):
        sess.partial_run(h, r1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="The feed a:0 has already been fed"):
        sess.partial_run(h, r2, feed_dict={a: 5, c: 1})
    assert sess.partial_run(h, r2, feed_dict={c: 1}) == 3.0  # a failed call changes nothing
    with pytest.raises(tf.errors.InvalidArgumentError, match="Must run 'setup' before performing partial runs!"):
        sess.partial_run("nonsense", r1, feed_dict={a: 1, b: 2})
    with pytest.raises(tf.errors.InvalidArgumentError, match="a:0 is both fed and fetched"):
        sess.partial_run_setup([a], [a])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Must run 'setup'"):
        sess.partial_run(h, r2)  # every fetch fetched: the step is over


def test_a_partial_run_after_close_is_refused(graph):
    a, b, _, r1, _ = graph
    s = tf.Session()
    h = s.partial_run_setup([r1], [a, b])
    s.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        s.partial_run(h, r1, {a: 1, b: 2})
