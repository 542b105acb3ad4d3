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


def test_runs_go_on_the_workers_direct_streams(local_cluster):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(2.0, name="transport_stream_v")
        with tf.device("/job:worker/task:1"):
            y = v * 3.0
    with tf.Session(local_cluster.target, graph=g) as s:
        s.run(v.initializer)
        assert s.run(y) == 6.0
        streams = {w: a for w, a in s._runtime._streams.items() if a is not None}
        assert len(streams) == 2  # the ps and worker 1, each on its own host:port beside its Dask address
        idle = s._runtime._callers.loop.streams._idle
        assert sorted(idle) == sorted(streams.values()) and all(len(c) == 1 for c in idle.values())
    with dask.config.set({"dflow.cluster.runs": "scheduler"}), tf.Session(local_cluster.target, graph=g) as s:
        assert s.run(y) == 6.0  # the scheduler's way still works


class _BrokenPeer:
    """A stream server that reads a request and answers ``reply_bytes`` of a frame, then hangs up."""

    def __init__(self, reply_bytes: bytes):
        import asyncio
        import threading

        self.requests = 0
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        async def serve(reader, writer):
            await reader.read(1)
            self.requests += 1
            writer.write(reply_bytes)
            await writer.drain()
            writer.close()

        async def start():
            self.server = await asyncio.start_server(serve, "127.0.0.1", 0)
            self.address = f"127.0.0.1:{self.server.sockets[0].getsockname()[1]}"
            ready.set()

        self.thread = threading.Thread(target=lambda: (self.loop.run_until_complete(start()),
                                                       self.loop.run_forever()), daemon=True)
        self.thread.start()
        ready.wait(10)

    def close(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.mark.parametrize("reply", [b"", transport._HEAD.pack(100, 0) + b"\x80\x05 truncated"],
                         ids=["peer gone", "truncated reply"])
def test_a_broken_stream_is_unavailable_naming_the_device_and_applies_nothing(local_cluster, reply):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="transport_broken_v")
            add = v.assign_add(1.0)
    peer = _BrokenPeer(reply)
    try:
        with tf.Session(local_cluster.target, graph=g) as s:
            s.run(v.initializer)
            ps = next(w for w, a in s._runtime._streams.items() if a is not None)
            s._runtime._streams[ps] = peer.address  # the next call meets the broken peer
            with pytest.raises(tf.errors.UnavailableError, match="/job:ps/replica:0/task:0/device:CPU:0"):
                s.run(add)
            assert peer.requests == 1
            # the real ps never saw the update; the next run installs there again, on its stream
            assert s.run(v) == 1.0
            assert s._runtime._streams[ps] not in (None, peer.address)
    finally:
        peer.close()


def test_a_worker_stream_drops_a_request_cut_short_without_running_it():
    import asyncio

    calls = []

    async def handler(**request):
        calls.append(request)
        return {"out": 1}

    async def go():
        server = await asyncio.start_server(lambda r, w: transport.serve_stream(handler, r, w), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        pool = transport.StreamPool()
        assert await pool.call(f"127.0.0.1:{port}", key="k", payload=np.arange(200_000)) == {"out": 1}
        np.testing.assert_array_equal(calls[0]["payload"], np.arange(200_000))  # out of band, whole
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        frame = b"".join(bytes(part) for part in transport._frame({"op": "run", "key": "cut"}))
        writer.write(frame[:-3])
        await writer.drain()
        writer.close()
        await asyncio.sleep(0.2)
        pool.close()
        server.close()

    asyncio.run(go())
    assert [c["key"] for c in calls] == ["k"]


def test_a_stream_that_cannot_be_reached_leaves_the_runs_to_dasks_comm(local_cluster):
    """A firewall that lets the Dask port through but not the stream's: the run goes on through Dask."""
    import socket

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        nowhere = f"127.0.0.1:{closed.getsockname()[1]}"  # bound, not listening: connections are refused
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:ps/task:0"):
                v = tf.Variable(1.0, name="transport_unreachable_v")
                add = v.assign_add(1.0)
        with tf.Session(local_cluster.target, graph=g) as s:
            s.run(v.initializer)
            ps = next(w for w, a in s._runtime._streams.items() if a is not None)
            s._runtime._streams[ps] = nowhere
            assert s.run(add) == 2.0
            assert s._runtime._streams[ps] is None
            assert s.run(add) == 3.0
