"""Direct runs' transport on a real cluster: large arrays through shared memory, the plain
way for a worker that cannot share it, and the message size limit."""

import dask
import numpy as np
import pytest

import dflow as tf
from dflow.sessions import transport

pytestmark = pytest.mark.cluster

N = 300_000  # 1.2 MB of float32: through shared memory


@pytest.fixture(autouse=True)
def clean_state(local_cluster):
    yield
    tf.Session.reset(local_cluster.target)


def _model():
    g = tf.Graph()
    rng = np.random.RandomState(1)
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(rng.rand(N).astype(np.float32), name="transport_v")
        with tf.device("/job:worker/task:0"):
            x = tf.placeholder(tf.float32, [N])
            loss = tf.reduce_sum(tf.square(v * x - 1.0))
        train = tf.train.GradientDescentOptimizer(1e-3).minimize(loss)
        init = tf.global_variables_initializer()
    return g, x, v, loss, train, init


def _run(target, steps=4):
    g, x, v, loss, train, init = _model()
    xs = np.linspace(0, 1, N, dtype=np.float32)
    config = tf.ConfigProto(allow_soft_placement=not target)
    with tf.Session(target, graph=g, config=config) as s:
        s.run(init)
        losses = [s.run([loss, train], {x: xs})[0] for _ in range(steps)]
        final = s.run(v)
        caller = getattr(getattr(s._runtime, "_callers", None), "loop", None)
        segments = caller and caller.segments
        kept = segments and sum(len(leases) for leases in segments._free.values())
        return losses, final, segments and (set(segments.unshared), kept)


def test_large_arrays_go_through_shared_memory_and_train_as_embedded(local_cluster):
    losses, final, segments = _run(local_cluster.target)
    want_losses, want_final, _ = _run("")
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    np.testing.assert_allclose(final, want_final, rtol=1e-6)
    unshared, kept = segments
    assert not unshared and kept >= 1  # leased, given back, kept for reuse


def test_a_worker_that_cannot_attach_gets_the_values_the_plain_way(local_cluster, monkeypatch):
    real = transport.Lease.describe

    def foreign(self):  # a token the worker's segment of that name does not carry: as from another host
        described = real(self)
        described["req"] = (described["req"][0], b"\1" * 16)
        return described

    monkeypatch.setattr(transport.Lease, "describe", foreign)
    losses, final, segments = _run(local_cluster.target)
    want_losses, want_final, _ = _run("")
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    np.testing.assert_allclose(final, want_final, rtol=1e-6)
    assert segments[0]  # found out once; the other calls went the plain way at once


def test_values_over_the_size_limit_are_refused_and_nothing_is_half_done(local_cluster):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.zeros(5000, np.float32), name="transport_big")
            x = tf.placeholder(tf.float32, [None])
            add = v.assign_add(tf.fill([5000], tf.reduce_sum(x)))
        init = tf.global_variables_initializer()
    with dask.config.set({"dflow.cluster.max-message-size": "4KiB"}):
        s = tf.Session(local_cluster.target, graph=g)
    with s:
        s.run(init)
        # the feed is too large to send: refused before anything runs
        with pytest.raises(tf.errors.ResourceExhaustedError, match=r"sent to /job:ps/.* is 8000 bytes, more than "
                                                                   r"dflow.cluster.max-message-size"):
            s.run(add.op, {x: np.ones(2000, np.float32)})
        s.run(add.op, {x: np.ones(3, np.float32)})  # a small one goes
        # the value to fetch is too large to come back: the worker refuses to send it
        with pytest.raises(tf.errors.ResourceExhaustedError, match="transport_big.* on /job:ps/.* 20000 bytes"):
            s.run(v)
    with tf.Session(local_cluster.target, graph=g) as s:
        np.testing.assert_array_equal(s.run(v), np.full(5000, 3.0, np.float32))
