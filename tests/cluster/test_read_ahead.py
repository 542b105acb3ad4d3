"""Read-ahead: a training step's variable reads come back with the previous step's update.

The ps runs a step's apply partition, then reads the variables the next step
reads, and returns them in the same reply: one round trip a step instead of
two. The values must be those a fresh read would give: the tests compare
every trajectory with the embedded session's."""

import threading

import dask
import numpy as np
import pytest

import dflow as tf
from dflow.sessions.plan import Partition
from dflow.sessions.read_ahead import source, window

pytestmark = pytest.mark.cluster

@pytest.fixture(autouse=True)
def clean_state(local_cluster):
    yield
    tf.Session.reset(local_cluster.target)


XS = np.linspace(-1, 1, 8, dtype=np.float32).reshape(-1, 1)


def _model(graph):
    with graph.as_default():
        with tf.device("/job:ps/task:0"):
            w = tf.Variable([[0.5, -0.25]], name="read_ahead_w")
            b = tf.Variable([0.1, 0.2], name="read_ahead_b")
        with tf.device("/job:worker/task:0"):
            x = tf.placeholder(tf.float32, [None, 1])
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - x * x))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        reset = w.assign([[2.0, 3.0]])
        init = tf.global_variables_initializer()
    return x, w, b, loss, train, reset, init


def _trajectory(target, steps=6, between=None):
    """The loss and w of every step (fetched in the training run itself), then the final w and b."""
    g = tf.Graph()
    x, w, b, loss, train, reset, init = _model(g)
    config = tf.ConfigProto(allow_soft_placement=not target)  # the embedded session has one CPU
    with tf.Session(target, graph=g, config=config) as s:
        s.run(init)
        seen = []
        for i in range(steps):
            seen.append(s.run([loss, w, train], {x: XS})[:2])
            if between is not None:
                between(i, s, reset)
        final = s.run([w, b])
        used = s._runtime.read_ahead.used if target else None
    return seen, final, used


def _assert_same(got, want):
    for (l1, w1), (l2, w2) in zip(got[0], want[0]):
        np.testing.assert_allclose(l1, l2, rtol=1e-6)
        np.testing.assert_allclose(w1, w2, rtol=1e-6)
    for a, e in zip(got[1], want[1]):
        np.testing.assert_allclose(a, e, rtol=1e-6)


def test_steps_use_the_read_ahead_and_train_as_the_embedded_session(local_cluster):
    got = _trajectory(local_cluster.target)
    _assert_same(got, _trajectory(""))
    assert got[2] == 5  # every step after the first reads w and b from the previous step's reply


def test_another_run_between_steps_is_seen_by_the_next_step(local_cluster):
    """A write between two steps (here an assign from the same session; any run of this process
    counts) voids the read-ahead: the next step reads the assigned value, as TF1 would."""
    def assign_at_3(i, s, reset):
        if i == 3:
            s.run(reset)

    got = _trajectory(local_cluster.target, between=assign_at_3)
    want = _trajectory("", between=assign_at_3)
    _assert_same(got, want)
    # w fetched in step 4's run is its value after that step (a ref variable, as in TF1): one small
    # gradient step from the assigned [[2, 3]]
    np.testing.assert_allclose(got[0][4][1], [[2.0, 3.0]], atol=0.2)
    assert got[2] == 4  # not after the assign


def test_a_run_of_another_session_in_another_thread_voids_the_read_ahead(local_cluster):
    """The other session's run (a different runtime, another thread) assigns between two steps."""
    def assign_elsewhere(i, s, reset):
        if i == 2:
            def other():
                with tf.Session(local_cluster.target, graph=reset.graph) as s2:
                    s2.run(reset)
            t = threading.Thread(target=other)
            t.start()
            t.join()

    got = _trajectory(local_cluster.target, between=assign_elsewhere)
    _assert_same(got, _trajectory("", between=lambda i, s, reset: s.run(reset) if i == 2 else None))
    np.testing.assert_allclose(got[0][3][1], [[2.0, 3.0]], atol=0.2)  # one step after the assign


def test_a_pause_longer_than_the_window_reads_afresh(local_cluster):
    with dask.config.set({"dflow.cluster.read-ahead": "1us"}):
        got = _trajectory(local_cluster.target)
    _assert_same(got, _trajectory(""))
    assert got[2] == 0


def test_read_ahead_can_be_turned_off_and_bad_settings_are_named(local_cluster):
    with dask.config.set({"dflow.cluster.read-ahead": False}):
        assert window() == 0.0
    with dask.config.set({"dflow.cluster.read-ahead": "25ms"}):
        assert window() == pytest.approx(0.025)
    with dask.config.set({"dflow.cluster.read-ahead": "soon"}):
        with pytest.raises(ValueError, match="dflow.cluster.read-ahead"):
            window()


def test_only_the_last_partition_of_the_device_that_depends_on_a_pure_read_reads_ahead(local_cluster):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0, name="v")
        read = v.read_value()
        dq = tf.FIFOQueue(2, tf.float32).dequeue()

    def part(device, ops, inputs=(), upstream=()):
        return Partition(device, list(ops), list(inputs), [read] if not inputs else [], list(upstream))

    ps, wk = "/job:ps/task:0", "/job:worker/task:0"
    reads = part(ps, [v.op, read.op])
    compute = Partition(wk, [], [read], [], [0])
    apply = Partition(ps, [], [], [], [1])
    assert source([reads, compute, apply], 2) == 0
    assert source([reads, compute, apply], 1) is None  # another device
    after = Partition(ps, [], [], [], [2])
    assert source([reads, compute, apply, after], 2) is None  # `after` comes later and depends on it
    assert source([reads, compute, apply, after], 3) == 0
    stateful = part(ps, [v.op, read.op, dq.op])  # a dequeue is not a read: reading it twice changes the queue
    assert source([stateful, compute, apply], 2) is None


def _large_trajectory(target, steps=5):
    """Adam on a ps variable large enough to be updated in place (resources.update_in_place),
    read ahead by every step: the loss and a corner of w each step, then all of w."""
    g = tf.Graph()
    rng = np.random.default_rng(0)
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(rng.normal(size=(256, 512)).astype(np.float32) * 0.05, name="in_place_w")
        with tf.device("/job:worker/task:0"):
            x = tf.constant(rng.normal(size=(16, 256)).astype(np.float32))
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
        train = tf.train.AdamOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()
    config = tf.ConfigProto(allow_soft_placement=not target)
    with tf.Session(target, graph=g, config=config) as s:
        s.run(init)
        seen = [s.run([loss, w[:2, :4], train])[:2] for _ in range(steps)]
        return seen, s.run(w)


def test_large_variables_updated_in_place_on_the_ps_train_as_the_embedded_session(local_cluster):
    (got, got_w), (want, want_w) = _large_trajectory(local_cluster.target), _large_trajectory("")
    for (l1, w1), (l2, w2) in zip(got, want):
        np.testing.assert_allclose(l1, l2, rtol=1e-5)
        np.testing.assert_allclose(w1, w2, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got_w, want_w, rtol=1e-5, atol=1e-7)
    assert not np.allclose(got[0][1], got[-1][1])  # it trained
