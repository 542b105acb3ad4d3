"""How a direct run's values travel between a session and a worker.

Three ways, picked per call by size and by where the worker is:

* **small values** (under ``SHARED_BYTES`` of array data in all): one pickle
  inside the Dask message, a tenth of the cost of Dask's serialization for
  the small tensors of a training step;
* **large values, worker on this host**: pickle protocol 5 with the arrays'
  buffers out of band, written into a shared-memory segment that the
  session owns and reuses call after call (a request segment and a reply
  segment per call in flight); the Dask message carries only the pickle's
  small main part and the buffers' offsets. Each side copies an array once
  (into the segment, out of it), against the several copies and the kernel
  work of a loopback socket (measured 0.2 ms against about 2 ms for 2.7 MB);
* **large values, worker on another host**: from ``BULK_BYTES``, Dask's
  serialization (frames, array buffers sent without copies).

Whether a worker shares this host's shared memory is found out by using it:
a segment starts with a random token that the worker checks when it first
attaches, so a same-named segment of another host is never mistaken for
ours; a worker that cannot attach answers ``{"no_shm": True}`` and the call
goes again the plain way (once per worker).

The segments belong to the session's calling thread (``ClientSegments``); it
unlinks them when it grows one or closes, and Python's resource tracker
unlinks them if the process dies. A worker keeps its attachments per slot
and drops one when the session replaces it (``attach``).

A value larger than ``dflow.cluster.max-message-size`` (default 2 GiB, the
protobuf limit of TF1's gRPC messages) is refused with
``ResourceExhaustedError`` naming the device, on either side.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import pickle
import secrets
import struct
import threading
import time

import numpy as np

from dflow.framework import errors

SHARED_BYTES = 1 << 16  # array data at or above this goes through shared memory, where the worker shares it
BULK_BYTES = 1 << 18  # and else, at or above this, as Dask frames
_HEADER = 64  # a segment's first bytes: its token
_ALIGN = 64
_MIN_SEGMENT = 1 << 20
_MAX_ATTACHED = 256  # slots a worker keeps attached; the oldest go first


def nbytes(obj) -> int:
    """Bytes of array data in ``obj`` (arrays in nested tuples, lists and dicts)."""
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, (tuple, list)):
        return sum(nbytes(x) for x in obj)
    if isinstance(obj, dict):
        return sum(nbytes(x) for x in obj.values())
    return 0


DEFAULT_MAX_BYTES = 2 << 30


def max_message_bytes() -> int:
    """``dflow.cluster.max-message-size`` in bytes (a size such as "2GiB", or a number)."""
    import dask
    from dask.utils import parse_bytes

    limit = dask.config.get("dflow.cluster.max-message-size", DEFAULT_MAX_BYTES)
    try:
        return int(parse_bytes(limit))
    except (TypeError, ValueError):
        raise ValueError(f"dask config dflow.cluster.max-message-size must be a size such as '2GiB', "
                         f"got {limit!r}") from None


def check_size(n: int, limit: int, what: str) -> None:
    if n > limit:
        raise errors.ResourceExhaustedError(
            None, None, f"{what} is {n} bytes, more than dflow.cluster.max-message-size allows ({limit} bytes). "
                        f"Raise that limit (dask config) or split the value.")


def dumps(obj) -> bytes:
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def pack(obj, size: int | None = None, segment=None, stream: bool = False):
    """What a direct run sends of ``obj``: ``{"shm": ..}`` (written into ``segment``, a
    ``Writer``, when given and there is room), else ``obj`` itself on a direct
    stream (pickled with the message, arrays out of band), else a pickle (small) or Dask-serialized
    frames."""
    size = nbytes(obj) if size is None else size
    if segment is not None and size >= SHARED_BYTES:
        packed = segment.write(obj)
        if packed is not None:
            return packed
    if stream:
        return obj
    if size < BULK_BYTES:
        return dumps(obj)
    from distributed.protocol import to_serialize

    return to_serialize(obj)


def unpack(x, segment=None):
    """The value ``pack`` made; ``segment`` (a ``Segment``) is where ``{"shm": ..}`` values lie."""
    if isinstance(x, bytes):
        return pickle.loads(x)
    if isinstance(x, dict) and "shm" in x:
        buf = segment.buf
        # One copy out of the segment: the arrays outlive the call (fetched, kept in variables).
        return pickle.loads(x["shm"], buffers=[bytearray(buf[o:o + n]) for o, n in x["at"]])
    return x


class Segment:
    """A shared-memory segment: made by a session (``create``) or attached by a worker."""

    def __init__(self, shm, token: bytes):
        self.shm = shm
        self.token = token
        self.name = shm.name
        self.size = shm.size

    @property
    def buf(self):
        return self.shm.buf

    @classmethod
    def create(cls, size: int) -> Segment:
        from multiprocessing import shared_memory

        token = secrets.token_bytes(16)
        shm = shared_memory.SharedMemory(create=True, size=max(size, _MIN_SEGMENT) + _HEADER)
        fd = getattr(shm, "_fd", -1)
        if fd >= 0 and hasattr(os, "posix_fallocate"):
            # Reserve the pages now: a full /dev/shm (64 MiB in a default container) is then an
            # OSError here, and the values go the plain way, instead of SIGBUS on a later write.
            try:
                os.posix_fallocate(fd, 0, shm.size)
            except OSError:
                shm.close()
                shm.unlink()
                raise
        shm.buf[:16] = token
        return cls(shm, token)

    @classmethod
    def attach(cls, name: str, token: bytes) -> Segment:
        """The session's segment ``name``; OSError when this host has none of that name and token."""
        shm = _Mapping(name)
        if bytes(shm.buf[:16]) != token:
            shm.close()
            raise OSError(f"shared memory {name} is not the session's (another host's segment of that name)")
        return cls(shm, token)

    def close(self, unlink: bool = False) -> None:
        try:
            self.shm.close()
        except BufferError:  # a view still exported (an error mid-copy): the mapping goes with the process
            pass
        if unlink:
            try:
                self.shm.unlink()
            except FileNotFoundError:
                pass

    def writer(self) -> Writer:
        return Writer(self)


class _Mapping:
    """Another process's POSIX shared-memory segment, mapped here. Not through
    ``multiprocessing.shared_memory``: attaching there registers the name with this
    process's resource tracker (CPython < 3.13), which would unlink the session's
    segment when this worker exits."""

    def __init__(self, name: str):
        import mmap

        try:
            import _posixshmem
        except ImportError:  # Windows: named mappings, no resource tracker
            from multiprocessing import shared_memory

            self._shm = shared_memory.SharedMemory(name=name)
            self.name, self.size, self.buf = name, self._shm.size, self._shm.buf
            return
        self._shm = None
        fd = _posixshmem.shm_open("/" + name.lstrip("/"), os.O_RDWR, mode=0o600)
        try:
            self.size = os.fstat(fd).st_size
            self._mmap = mmap.mmap(fd, self.size)
        finally:
            os.close(fd)
        self.name = name
        self.buf = memoryview(self._mmap)

    def close(self) -> None:
        if self._shm is not None:
            self._shm.close()
            return
        self.buf.release()
        self._mmap.close()


class Writer:
    """Writes pickles' out-of-band buffers one after another into a segment."""

    def __init__(self, segment: Segment):
        self.segment = segment
        self.at = _HEADER

    def write(self, obj):
        """``{"shm": main pickle, "at": [(offset, size)]}``, or None when the buffers do not fit
        (the session sizes the segment from the reply it then gets)."""
        main, views = _out_of_band(obj)
        if self.at + sum(_aligned(v.nbytes) for v in views) > self.segment.size:
            return None
        buf, at = self.segment.buf, []
        for v in views:
            n = v.nbytes
            buf[self.at:self.at + n] = v
            at.append((self.at, n))
            self.at += _aligned(n)
        return {"shm": main, "at": at}


def _aligned(n: int) -> int:
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def _out_of_band(obj) -> tuple:
    """``obj``'s pickle (protocol 5) without its contiguous array buffers, and those buffers."""
    buffers: list = []
    main = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    return main, [b.raw() for b in buffers]


# -- the session's side ----------------------------------------------------------------
class Lease:
    """One call's request and reply segments, and the slot that names them to the worker."""

    __slots__ = ("slot", "request", "reply")

    def __init__(self, slot: str):
        self.slot = slot
        self.request = None
        self.reply = None

    def ensure(self, request_bytes: int, reply_bytes: int) -> None:
        """Segments at least this big (a bigger one replaces a small one, under the same slot)."""
        self.request = _at_least(self.request, request_bytes)
        self.reply = _at_least(self.reply, reply_bytes)

    def describe(self) -> dict:
        """What the worker needs to find the segments."""
        return {"slot": self.slot, "req": (self.request.name, self.request.token),
                "rep": (self.reply.name, self.reply.token)}

    def close(self) -> None:
        for seg in (self.request, self.reply):
            if seg is not None:
                seg.close(unlink=True)


def _at_least(segment, n: int) -> Segment:
    """``segment`` when it holds ``n`` bytes, else a new one with room to grow (the old one unlinked)."""
    if segment is not None and segment.size - _HEADER >= n:
        return segment
    if segment is not None:
        segment.close(unlink=True)
    return Segment.create(n + n // 4)


class ClientSegments:
    """The shared-memory segments of one calling thread, per worker: leased to a call and given back
    after its reply is read, so calls in flight at once never share one."""

    def __init__(self):
        self._token = secrets.token_hex(6)
        self._slots = itertools.count()
        self._free: dict = {}  # worker address -> [Lease]
        self._leased: list = []
        self.unshared: set = set()  # workers that cannot attach this host's shared memory

    def lease(self, worker: str, request_bytes: int, reply_bytes: int) -> Lease | None:
        if worker in self.unshared:
            return None
        free = self._free.setdefault(worker, [])
        lease = free.pop() if free else Lease(f"{self._token}-{next(self._slots)}")
        try:
            lease.ensure(request_bytes, reply_bytes)
        except OSError:  # no /dev/shm, or it is full: the plain way
            lease.close()
            self.unshared.add(worker)
            return None
        self._leased.append(lease)
        return lease

    def give_back(self, worker: str, lease: Lease) -> None:
        self._leased.remove(lease)
        self._free.setdefault(worker, []).append(lease)

    def discard(self, lease: Lease) -> None:
        """Unlinks a lease's segments instead of reusing them (its call may not be over)."""
        self._leased.remove(lease)
        lease.close()

    def close(self) -> None:
        for leases in self._free.values():
            for lease in leases:
                lease.close()
        for lease in self._leased:
            lease.close()
        self._free, self._leased = {}, []


# -- the worker's side -----------------------------------------------------------------
_ATTACHED: dict = {}  # slot -> [{"req": Segment, "rep": Segment}, calls using it, when last used]
_ATTACH_LOCK = threading.Lock()
_IDLE_S = 30.0  # a slot no call used for this long is let go (its session may have closed)


def attach(described: dict) -> tuple:
    """The request and reply segments a call names (attached on first use, replaced when the
    session made new ones for the slot); OSError when this host does not have them. The call
    hands the slot back with ``release`` once its reply is written.

    Slots that no call has used for ``_IDLE_S`` are let go, and the oldest beyond
    ``_MAX_ATTACHED``: a session unlinks its segments when it closes, but their memory stays
    until every process that maps them lets go."""
    slot = described["slot"]
    with _ATTACH_LOCK:
        entry = _ATTACHED.pop(slot, None) or [{}, 0, 0.0]
        held = entry[0]
        try:
            for part in ("req", "rep"):
                name, token = described[part]
                seg = held.get(part)
                if seg is None or seg.name != name:
                    if seg is not None:
                        seg.close()
                    held[part] = Segment.attach(name, bytes(token))
        except OSError:
            for seg in held.values():
                seg.close()
            raise
        now = time.monotonic()
        entry[1] += 1
        entry[2] = now
        _ATTACHED[slot] = entry  # most recent last
        free = [s for s, (_, busy, _) in _ATTACHED.items() if not busy]
        gone = {s for s in free if now - _ATTACHED[s][2] > _IDLE_S}
        gone.update(free[:max(0, len(_ATTACHED) - _MAX_ATTACHED)])
        for s in gone:
            for seg in _ATTACHED.pop(s)[0].values():
                seg.close()
    return held["req"], held["rep"]


def release(described: dict) -> None:
    """The call that attached ``described``'s slot is done with it."""
    with _ATTACH_LOCK:
        entry = _ATTACHED.get(described["slot"])
        if entry is not None:
            entry[1] -= 1
            entry[2] = time.monotonic()


# -- the direct stream: dflow_run without Dask's message layer -------------------------
# A frame: "<IIQ..." (main pickle length, buffer count, each buffer's length), the pickle
# (protocol 5), then its out-of-band buffers. Dask's comm costs about 0.19 ms more per
# small round trip on a 2-core host (msgpack, frames, sizeof, tornado's stream and the
# handler's bookkeeping), a fifth of a small training step.
_HEAD = struct.Struct("<II")


def _frame(obj) -> list:
    main, views = _out_of_band(obj)
    head = _HEAD.pack(len(main), len(views)) + struct.pack(f"<{len(views)}Q", *(v.nbytes for v in views))
    return [head, main, *views]


async def _read_frame(reader):
    try:
        n_main, n_buffers = _HEAD.unpack(await reader.readexactly(_HEAD.size))
        sizes = struct.unpack(f"<{n_buffers}Q", await reader.readexactly(8 * n_buffers)) if n_buffers else ()
        main = await reader.readexactly(n_main)
        buffers = [bytearray(await reader.readexactly(n)) if n else bytearray() for n in sizes]
    except asyncio.IncompleteReadError as e:  # the peer went away mid-message: a broken connection
        raise ConnectionResetError(f"connection closed after {len(e.partial)} bytes of a message") from None
    return pickle.loads(main, buffers=buffers)


async def serve_stream(handler, reader, writer) -> None:
    """One session connection of a worker's direct stream: requests (keyword arguments) one after
    another, each answered with ``await handler(**request)``, until the session hangs up."""
    try:
        while True:
            reply = await handler(**await _read_frame(reader))
            writer.writelines(_frame(reply))
            await writer.drain()
    except (ConnectionError, OSError):  # the session went away, or cut a request short: nothing runs
        return
    finally:
        writer.close()


def start_stream_server(address: str, handler) -> str | None:
    """Listens for direct streams beside a worker whose address is ``address`` (plain TCP only: a
    TLS cluster keeps Dask's comm, which carries its certificates); the stream's host:port.
    Called on the worker's event loop."""
    import socket

    if not address.startswith("tcp://"):
        return None
    host = address[len("tcp://"):].rsplit(":", 1)[0].strip("[]")
    try:
        sock = socket.create_server((host, 0), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError:  # a contact address that is not this host's (NAT, a container): Dask's comm only
        return None
    sock.setblocking(False)
    port = sock.getsockname()[1]
    loop = asyncio.get_running_loop()
    server = loop.create_task(asyncio.start_server(lambda r, w: serve_stream(handler, r, w), sock=sock))
    # held: a task only weakly referenced may be collected (those of closed loops go)
    _STREAM_SERVERS[:] = [t for t in _STREAM_SERVERS if not t.get_loop().is_closed()] + [server]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


_STREAM_SERVERS: list = []


class StreamUnreachable(ConnectionError):
    """No connection to a worker's direct stream could be made (nothing was sent)."""


class StreamPool:
    """The session thread's direct-stream connections, per worker stream address: one per call
    in flight, kept open between calls."""

    def __init__(self, connect_timeout: float = 10.0):
        self._idle: dict = {}  # address -> [(reader, writer)]
        self._timeout = connect_timeout

    async def call(self, address: str, **request):
        idle = self._idle.setdefault(address, [])
        if idle:
            reader, writer = idle.pop()
        else:
            host, port = address.rsplit(":", 1)
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(host.strip("[]"), int(port)),
                                                        self._timeout)
            except OSError as e:  # nothing sent: the caller may go another way
                raise StreamUnreachable(f"cannot reach the direct stream at {address}: {e}") from e
        try:
            writer.writelines(_frame(request))
            await writer.drain()
            reply = await _read_frame(reader)
        except BaseException:
            writer.close()  # mid-call (a broken connection, a cancelled run): never reused
            raise
        idle.append((reader, writer))
        return reply

    def close(self) -> None:
        for conns in self._idle.values():
            for _, writer in conns:
                writer.close()
        self._idle = {}
