"""dflow.sessions.transport: how a direct run's values travel (pickle, shared memory, Dask frames)."""

import numpy as np
import pytest

from dflow.framework import errors
from dflow.sessions import transport, worker_state


@pytest.fixture
def new_lease():
    """Makes leases with segments of the given sizes; unlinks them (and drops a worker's
    attachments of their slots) after the test."""
    made = []

    def make(slot, request_bytes=10, reply_bytes=10):
        lease = transport.Lease(slot)
        made.append(lease)
        lease.ensure(request_bytes, reply_bytes)
        return lease

    yield make
    for lease in made:
        transport._ATTACHED.pop(lease.slot, None)
        lease.close()


def _values(n):
    rng = np.random.RandomState(0)
    return (None, {0: rng.rand(n).astype(np.float32), 1: np.arange(3)}, ((rng.rand(7, 5), None),))


def _equal(a, b):
    if isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _equal(x, y)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _equal(a[k], b[k])
    else:
        assert a == b


def test_small_values_are_one_pickle_and_large_ones_go_to_the_segment(new_lease):
    small = _values(10)
    packed = transport.pack(small)
    assert isinstance(packed, bytes)
    _equal(transport.unpack(packed), small)

    large = _values(100_000)
    lease = new_lease("t-0", transport.nbytes(large), 0)
    packed = transport.pack(large, segment=lease.request.writer())
    assert set(packed) == {"shm", "at"} and len(packed["shm"]) < 1000  # the arrays are out of band
    got = transport.unpack(packed, lease.request)
    _equal(got, large)
    # the arrays own their memory: the segment's next use does not change them
    lease.request.buf[transport._HEADER:transport._HEADER + 400] = bytes(400)
    _equal(got, large)
    assert got[1][0].flags.writeable and got[1][0].flags.aligned


def test_a_segment_too_small_falls_back_to_frames(new_lease):
    lease = new_lease("t-1", 0, 0)
    writer = lease.reply.writer()
    big = [np.zeros(2 << 20, np.uint8)]
    packed = transport.pack(big, segment=writer)
    assert not isinstance(packed, (bytes, dict))  # Dask-serialized frames
    first = transport.pack([np.ones(100_000, np.float32)], segment=writer)  # what fits still goes in
    _equal(transport.unpack(first, lease.reply), [np.ones(100_000, np.float32)])


def test_a_worker_attaches_a_slot_once_and_follows_a_replaced_segment(new_lease):
    lease = new_lease("t-2", 1000, 1000)
    req, rep = transport.attach(lease.describe())
    assert (req.name, rep.name) == (lease.request.name, lease.reply.name)
    assert transport.attach(lease.describe())[0] is req  # cached
    lease.ensure(3 << 20, 1000)  # the session grew the request segment: a new one
    req2, rep2 = transport.attach(lease.describe())
    assert req2.name == lease.request.name != req.name and rep2 is rep
    # the worker writes the reply, the session reads it
    packed = transport.pack([np.full(50_000, 7.0)], segment=rep2.writer())
    _equal(transport.unpack(packed, lease.reply), [np.full(50_000, 7.0)])


def test_a_worker_lets_go_of_idle_slots_but_never_of_one_in_use(monkeypatch, new_lease):
    leases = [new_lease(f"t-idle-{i}") for i in range(3)]
    busy = transport.attach(leases[0].describe())  # a call still running (a long dequeue)
    transport.attach(leases[1].describe())
    transport.release(leases[1].describe())
    monkeypatch.setattr(transport, "_IDLE_S", 0.0)
    transport.attach(leases[2].describe())  # the next attach sweeps
    assert "t-idle-0" in transport._ATTACHED and "t-idle-1" not in transport._ATTACHED
    assert bytes(busy[0].buf[:16]) == leases[0].request.token  # still mapped
    transport.release(leases[0].describe())
    transport.release(leases[2].describe())
    monkeypatch.setattr(transport, "_MAX_ATTACHED", 0)
    transport.attach(leases[1].describe())
    transport.release(leases[1].describe())
    transport.attach(leases[1].describe())  # every slot over the limit and not in use goes
    assert set(transport._ATTACHED) == {"t-idle-1"}


def test_a_segment_with_another_token_is_not_attached(new_lease):
    described = new_lease("t-3").describe()
    described["req"] = (described["req"][0], b"\0" * 16)
    with pytest.raises(OSError, match="not the session's"):
        transport.attach(described)
    with pytest.raises(OSError):
        transport.attach({"slot": "t-4", "req": ("dflow-no-such-segment", b"x" * 16), "rep": described["rep"]})
    # the worker's handler answers so, and the session sends the values the plain way
    assert worker_state._run_direct("k", "g", None, None, False, b"", shm=described) == {"no_shm": True}


def test_client_segments_lease_per_call_and_unlink_what_they_drop():
    segments = transport.ClientSegments()
    a = segments.lease("w", 10, 10)
    b = segments.lease("w", 10, 10)
    assert a.slot != b.slot  # two calls in flight never share a segment
    segments.give_back("w", a)
    assert segments.lease("w", 10, 10) is a
    name = b.request.name
    segments.discard(b)  # its call may still be writing: never reused
    from multiprocessing import shared_memory

    with pytest.raises(FileNotFoundError):
        shared_memory.SharedMemory(name=name)
    segments.unshared.add("far")
    assert segments.lease("far", 10, 10) is None
    segments.close()
    with pytest.raises(FileNotFoundError):
        shared_memory.SharedMemory(name=a.request.name)


def test_sizes_above_the_limit_are_resource_exhausted():
    import dask

    with dask.config.set({"dflow.cluster.max-message-size": "1KiB"}):
        assert transport.max_message_bytes() == 1024
    with dask.config.set({"dflow.cluster.max-message-size": "lots"}):
        with pytest.raises(ValueError, match="max-message-size"):
            transport.max_message_bytes()
    transport.check_size(1024, 1024, "x")
    with pytest.raises(errors.ResourceExhaustedError, match="The feed of w is 1025 bytes"):
        transport.check_size(1025, 1024, "The feed of w")


def test_a_full_dev_shm_means_the_plain_way_not_a_crash(monkeypatch):
    import os

    if not hasattr(os, "posix_fallocate"):
        pytest.skip("no posix_fallocate here")

    def full(fd, offset, length):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", full)
    segments = transport.ClientSegments()
    assert segments.lease("w", 10 << 20, 0) is None
    assert segments.unshared == {"w"} and not segments._leased


def test_no_stream_for_tls_workers_or_a_contact_address_not_of_this_host():
    async def handler(**request):
        return {}

    assert transport.start_stream_server("tls://127.0.0.1:8786", handler) is None  # Dask's comm carries TLS
    assert transport.start_stream_server("tcp://203.0.113.7:8786", handler) is None  # TEST-NET-3: not ours
