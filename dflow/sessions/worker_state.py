"""What a Dask worker keeps for dflow: imported graphs, compiled partitions,
and the resources (variables, queues, ...) of the devices it serves.

A cluster session ships its graph to each worker it uses once (as the JSON
of ``dflow.framework.graph_io``, keyed by a hash of that JSON), then every
run sends only small partition specs: op names, input and output tensor
names. The worker imports the graph once, compiles each partition once into
a ``PartitionProgram`` bound to this worker's resources, and runs it.

Resources live here, one store per worker process, shared by every session
on the cluster: two clients that build the same graph and run it against the
same cluster see the same variables (between-graph replication). Ops that
use a resource are colocated with it, so they run in this process and reach
it directly, without a network round trip. The store has an incarnation id;
a worker that was restarted has a new one and no resources, and runs that
expected the old one fail with ``AbortedError`` instead of reading
uninitialized state.
"""

from __future__ import annotations

import secrets
import threading
import time

from dflow.dashboard.spans import RECORDER
from dflow.framework import errors
from dflow.ops.state.resources import SessionResources
from dflow.sessions import transport

INCARNATION = secrets.token_hex(8)
_now = time.time  # the task stream's clock (distributed.metrics.time is time.time)
_RESOURCES = SessionResources()
_GRAPHS: dict = {}
_PROGRAMS: dict = {}
_LOCK = threading.Lock()


class GraphNotInstalled(Exception):
    """This worker does not hold the graph a task needs (it restarted, or evicted it)."""

    def __init__(self, graph_key: str):
        super().__init__(graph_key)
        self.graph_key = graph_key


def install_graph(graph_key: str, payload: bytes, dask_worker=None, lineage: str | None = None,
                  dashboard: bool = False) -> tuple:
    """Imports the graph ``payload`` under ``graph_key``; returns this worker's incarnation and
    the host:port of its direct stream (None without one).

    Also installs the ``dflow_run`` handler on the worker's server, through
    which sessions run partitions directly (``handle_run``), and the direct
    stream that serves the same requests without Dask's message layer
    (``transport.start_stream_server``)."""
    stream = _stream_address(dask_worker) if dask_worker is not None else None
    if dask_worker is not None and "dflow_run" not in dask_worker.handlers:
        dask_worker.handlers["dflow_run"] = handle_run
        dask_worker.handlers["dflow_loop"] = handle_loop
        dask_worker.handlers["dflow_loop_stop"] = handle_loop_stop
        dask_worker.handlers["dflow_resources"] = handle_resources
        from dflow.cluster.process_tuning import tune_allocator

        tune_allocator()
    if dashboard and dask_worker is not None:
        RECORDER.start(dask_worker)  # the scheduler has dflow's extension: report direct runs to it
        dask_worker.batched_stream.send({"op": "dflow_resources_ready"})  # the /dflow page may ask this worker
    if graph_key not in _GRAPHS:
        # Every op type is registered already: a worker imports this module as dflow.sessions.worker_state,
        # and importing it ran dflow/__init__.py, which imports every op module, first.
        from dflow.framework.graph import Graph
        from dflow.framework.graph_io import import_graph, loads
        from dflow.ops.state.resources import LINEAGE

        graph = Graph()
        if lineage is not None:
            graph._attachments[LINEAGE] = lineage
        import_graph(loads(payload), graph)
        with _LOCK:
            _GRAPHS.setdefault(graph_key, graph)
    return INCARNATION, stream


_STREAM: list = [None, None]  # [the event loop it listens on, its host:port]


def _stream_address(dask_worker):
    """This process's direct stream, started on first use on the running (the worker's) loop."""
    import asyncio

    loop = asyncio.get_running_loop()
    if _STREAM[0] is not loop:
        _STREAM[:] = [loop, transport.start_stream_server(dask_worker.address, _handle_stream_run)]
    return _STREAM[1]


async def _handle_stream_run(**request):
    return await handle_run(stream=True, **request)


def incarnation() -> str:
    return INCARNATION


def reset_resources(containers=None) -> int:
    """Drops the resources of ``containers`` (all when None); returns how many."""
    return _RESOURCES.clear_containers(containers)


def _program(graph_key: str, spec: tuple):
    key = (graph_key, spec)
    program = _PROGRAMS.get(key)
    if program is not None:
        return program
    graph = _GRAPHS.get(graph_key)
    if graph is None:
        raise GraphNotInstalled(graph_key)
    from dflow.sessions.fusion import find_fusions
    from dflow.sessions.plan import Partition
    from dflow.sessions.program import PartitionProgram

    device, op_names, input_names, output_names, upstream, sources, fused, final_reads = spec
    partition = Partition(device, [graph.get_operation_by_name(n) for n in op_names],
                          [graph.get_tensor_by_name(n) for n in input_names],
                          [graph.get_tensor_by_name(n) for n in output_names], list(upstream),
                          final_reads=[graph.get_operation_by_name(n) for n in final_reads])
    partition.fusions = find_fusions(partition) if fused else {}  # the client's decision (cluster_runtime)
    program = PartitionProgram(partition, list(sources), _RESOURCES, _converter(device))
    with _LOCK:
        return _PROGRAMS.setdefault(key, program)


def _converter(device: str):
    if "GPU" in device:
        from dflow.sessions.program import to_gpu

        return to_gpu
    from dflow.sessions.program import to_host

    return to_host


def _check_incarnation(expected, device: str) -> None:
    if expected is not None and expected != INCARNATION:
        raise errors.AbortedError(
            None, None, f"The worker serving {device} was restarted since this session last used it: the "
                        f"variables and queues it held are lost. Re-initialize them or restore from a checkpoint.")


def run_partition(graph_key: str, spec: tuple, expected_incarnation, traced: bool, ctx, feeds, *upstream):
    """The Dask task of one partition: checks the worker, then runs its program."""
    _check_incarnation(expected_incarnation, spec[0])
    program = _program(graph_key, spec)
    if ctx is not None:
        ctx.seceding = True  # blocking ops hand their worker thread back while they wait
    return program.traced(ctx, feeds, *upstream) if traced else program(ctx, feeds, *upstream)


# Partitions with an op that may block (a dequeue, a mutex) run in these
# threads, so that a waiting op never holds the worker's event loop: the
# enqueue it waits for arrives through that loop.
_BLOCKING_POOL = None


def _blocking_pool():
    global _BLOCKING_POOL
    if _BLOCKING_POOL is None:
        from concurrent.futures import ThreadPoolExecutor

        with _LOCK:
            if _BLOCKING_POOL is None:
                _BLOCKING_POOL = ThreadPoolExecutor(max_workers=256, thread_name_prefix="dflow-blocking")
    return _BLOCKING_POOL


_SPECS: dict = {}  # spec key -> (graph key, spec), for direct runs


def _keyed_program(key, graph_key, spec, expected_incarnation):
    """The program of the partition named ``key`` (its spec is remembered when given),
    on a worker of the expected incarnation; None when the spec is needed again."""
    if spec is None:
        known = _SPECS.get(key)
        if known is None:
            return None
        graph_key, spec = known
    else:
        _SPECS[key] = (graph_key, spec)
    _check_incarnation(expected_incarnation, spec[0])
    return _program(graph_key, spec)


def _run_direct(key, graph_key, spec, expected_incarnation, traced, payload, then=None, shm=None, max_bytes=None,
                stream=False):
    if shm is None:
        return _run_with(None, key, graph_key, spec, expected_incarnation, traced, payload, then, max_bytes, stream)
    try:
        segments = transport.attach(shm)
    except OSError:  # not this host's shared memory: the session sends the values again
        return {"no_shm": True}
    try:
        return _run_with(segments, key, graph_key, spec, expected_incarnation, traced, payload, then, max_bytes,
                         stream)
    finally:
        transport.release(shm)


def _run_with(segments, key, graph_key, spec, expected_incarnation, traced, payload, then, max_bytes, stream):
    program = _keyed_program(key, graph_key, spec, expected_incarnation)
    if program is None:
        return {"need_spec": True}
    ctx, feeds, upstream = transport.unpack(payload, segments and segments[0])
    out = _recorded(program, traced, ctx, feeds, upstream)
    size = transport.nbytes(out)
    max_bytes = transport.DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    transport.check_size(size, max_bytes, f"The output of {program.partition.name} on {program.device}")
    writer = segments[1].writer() if segments is not None else None
    reply = {"out": transport.pack(out, size, writer, stream)}
    if then is not None:
        ahead = _read_ahead(then, graph_key, expected_incarnation, writer, max_bytes, stream)
        if ahead is not None:
            reply["then"] = ahead
    return reply


def _recorded(program, traced, ctx, feeds, upstream):
    """Runs ``program``, in the dashboard's task stream when the scheduler watches."""
    if not RECORDER.watching:
        return program.traced(ctx, feeds, *upstream) if traced else program(ctx, feeds, *upstream)
    start, ok = _now(), False
    try:
        out = program.traced(ctx, feeds, *upstream) if traced else program(ctx, feeds, *upstream)
        ok = True
    finally:
        RECORDER.record(program.partition.name, start, _now(), ok)
    return out


def _read_ahead(then, graph_key, expected_incarnation, writer, max_bytes: int, stream: bool):
    """The packed outputs of the read partition ``then = (key, spec or None)``, run right after
    the partition it follows (the session's next run may use them, see ``ClusterRuntime``);
    None when this worker does not know it or it fails (the next run then reads for itself)."""
    key, spec = then
    try:
        program = _keyed_program(key, graph_key, spec, expected_incarnation)
        if program is None:
            return None
        out = _recorded(program, False, None, {}, ())
        size = transport.nbytes(out)
        if size > max_bytes:
            return None
        return transport.pack(out, size, writer, stream)
    except Exception:  # noqa: BLE001 - an uninitialized variable, a reset: the next run's own read reports it
        return None


def local_program(partition, sources):
    """The program of a partition of a worker in this process, from the session's own graph."""
    from dflow.sessions.program import PartitionProgram

    return PartitionProgram(partition, list(sources), _RESOURCES, _converter(partition.device))


def run_here(program, expected_incarnation, traced, ctx, feeds, upstream):
    """Runs a partition of a worker of this process for a session of this process."""
    _check_incarnation(expected_incarnation, program.device)
    return program.traced(ctx, feeds, *upstream) if traced else program(ctx, feeds, *upstream)


async def handle_run(key=None, graph_key=None, spec=None, incarnation=None, traced=False, blocking=False,
                     payload=None, then=None, shm=None, max_bytes=None, stream=False):
    """The ``dflow_run`` handler: runs one partition for a session, without the scheduler.

    The partition is named by ``key``; its ``spec`` comes with the first call
    (the reply ``{"need_spec": True}`` asks for it again, after a restart).
    ``payload`` is the packed ``(ctx, feeds, upstream)`` (``transport``: a
    pickle; or, with ``shm`` naming the session's shared-memory segments,
    arrays in shared memory, and ``{"no_shm": True}`` answers a session whose
    segments this host does not have). Partitions that cannot block run on
    the event loop (microseconds to milliseconds of numpy: a thread hop
    would cost more); the others in ``_BLOCKING_POOL``. The reply is
    ``{"out": packed outputs}``, ``{"error": pickled exception}`` (a TF1
    error, re-raised as it is by the session) or ``{"reinstall": True}``
    when this worker lacks the graph. ``then``, ``(key, spec or None)`` of a
    partition that only reads variables, asks for its outputs as well, read
    after this partition ran: the reply's ``"then"`` (the read-ahead).
    ``max_bytes`` bounds the reply (``ResourceExhaustedError``). ``stream``: the
    request came on the direct stream, where values travel as they are."""
    try:
        if blocking:
            import asyncio

            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(_blocking_pool(), _run_direct, key, graph_key, spec, incarnation,
                                              traced, payload, then, shm, max_bytes, stream)
        return _run_direct(key, graph_key, spec, incarnation, traced, payload, then, shm, max_bytes, stream)
    except GraphNotInstalled:
        return {"reinstall": True}
    except Exception as e:  # noqa: BLE001 - every failure goes back to the session that asked
        return {"error": transport.dumps(e)}


# Partitions that run in a loop here until their session stops them (queue runners):
# loop id -> [the RunContext that stopping cancels, when the session last renewed it].
# A session renews its loops every few seconds; a loop not renewed for _LOOP_LEASE_S
# (its session's process died) stops, so no loop outlives its session.
_LOOPS: dict = {}
_LOOP_LEASE_S = 15.0


def _run_loop(key, graph_key, spec, expected_incarnation, loop_id):
    program = _keyed_program(key, graph_key, spec, expected_incarnation)  # a loop always brings its spec
    with _LOCK:
        ctx = _LOOPS[loop_id][0]
    try:
        while not ctx.cancelled:
            program(ctx, {})
    except Exception as e:  # noqa: BLE001 - the loop's end goes back to the session that started it
        if ctx.cancelled:  # stopped mid-run: the error is the stop's
            return {"stopped": True}
        return {"error": transport.dumps(e)}
    finally:
        with _LOCK:
            _LOOPS.pop(loop_id, None)
    return {"stopped": True}


async def handle_loop(key=None, graph_key=None, spec=None, incarnation=None, loop_id=None, op_timeout_ms=0):
    """The ``dflow_loop`` handler: runs one partition (no feeds, no outputs) again and
    again in ``_BLOCKING_POOL`` until ``dflow_loop_stop`` names ``loop_id``, a run
    fails, or the session stops renewing the loop's lease (``_LOOP_LEASE_S``).
    The reply is ``{"stopped": True}``, ``{"error": pickled exception}`` or
    ``{"reinstall": True}``. This is how a queue runner's loop runs where its
    queue lives: no round trip per iteration."""
    import asyncio
    import time

    from dflow.framework.run_context import RunContext

    with _LOCK:
        _LOOPS[loop_id] = entry = [RunContext(0, op_timeout_ms), time.monotonic()]
    try:
        running = asyncio.get_running_loop().run_in_executor(
            _blocking_pool(), _run_loop, key, graph_key, spec, incarnation, loop_id)
        while True:
            done, _ = await asyncio.wait([running], timeout=1.0)
            if done:
                return running.result()
            if time.monotonic() - entry[1] > _LOOP_LEASE_S:
                entry[0].cancel("the session running this loop stopped renewing it")
    except GraphNotInstalled:
        return {"reinstall": True}
    except Exception as e:  # noqa: BLE001
        return {"error": transport.dumps(e)}


async def handle_loop_stop(loop_id=None, renew=False):
    """The ``dflow_loop_stop`` handler: ends the loop ``loop_id`` (cancelling a blocked
    op), or with ``renew`` extends its lease; whether the loop is running."""
    import time

    entry = _LOOPS.get(loop_id)
    if entry is not None:
        if renew:
            entry[1] = time.monotonic()
        else:
            entry[0].cancel("the loop was stopped by its session")
    return {"running": entry is not None}


async def handle_resources():
    """The ``dflow_resources`` handler, which the scheduler's dashboard broadcasts to: this
    worker's variables and queues (``SessionResources.snapshot``), never waiting for a run."""
    return {"dflow": 1, "incarnation": INCARNATION, **_RESOURCES.snapshot()}
