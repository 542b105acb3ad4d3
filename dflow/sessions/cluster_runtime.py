"""Running plans on a Dask cluster (``tf.Session(target)``).

The cluster's workers serve TF1 tasks (``cluster_devices``: which worker
serves which device, and waiting for a lost one). Each partition
becomes one Dask task restricted to the worker of its device (and asking
for the ``GPU`` resource on GPU devices), keyed after its last op so the
dashboard reads as the user's graph.

What travels: the graph, as JSON (``graph_io``), once per worker and graph
version (``client.run(install_graph)``); then per run one small spec per
partition, the feeds, and the partitions' outputs between workers. Workers
compile and cache partition programs bound to their own resources
(``worker_state``), so variables and queues live on the worker of their
device and every session on the cluster shares them.

A run waits for its results with the run's deadline, and watches the
workers it uses: a lost worker fails the run promptly with
``UnavailableError`` naming its device, never a hang.
"""

from __future__ import annotations

import hashlib
import inspect
import pickle
import threading
import time

from dflow.framework import errors
from dflow.sessions import read_ahead, transport
from dflow.sessions.cluster_devices import POLL_S, ClusterDevices, _local_workers
from dflow.sessions.fusion import fusions_of

_CONNECT_TIMEOUT_S = 10.0
_LOOP_RENEW_S = 3.0  # worker_state._LOOP_LEASE_S is 15 s
_LIVENESS_AFTER_S = 1.0  # a call running longer than this checks, once per this, that its workers live


def _connect(target, timeout_s: float):
    """A ``distributed.Client`` for ``target``: an address, a Client, or an object with ``.target``."""
    import distributed

    if isinstance(target, distributed.Client):
        return target, False
    address = getattr(target, "target", target)
    if not isinstance(address, str):
        raise TypeError(f"A session target must be a scheduler address string, a distributed.Client or a "
                        f"dflow.LocalCluster, got {type(target).__name__}")
    if address.startswith("grpc://"):
        raise errors.UnavailableError(
            None, None, f"{address} is a TensorFlow gRPC address; dflow sessions connect to Dask schedulers "
                        f"(tcp://host:port). Start one with `dflow cluster` or use dflow.LocalCluster().target.")
    from dflow.cluster.security import connect_error, has_client_credentials, security_for

    # TLS: the LocalCluster's own Security, one registered with dflow.cluster.set_security, else
    # Dask's configuration. The client's connection_args then serve every connection of the
    # session, the direct runs' worker RPCs (_CallerLoop) included.
    security = security_for(target)
    if address.startswith("tls://") and security is None and not has_client_credentials():
        # Checked here: a Client that fails for want of an SSL context is left half made (Dask).
        raise connect_error(address, OSError("no TLS credentials for this client"), timeout_s)
    try:
        client = distributed.Client(address, timeout=timeout_s, set_as_default=False, security=security)
    except (OSError, TimeoutError) as e:
        raise connect_error(address, e, timeout_s) from None
    return client, True


class RemotePartition:
    """A partition to run on a worker: where, the spec the worker compiles,
    and which feeds and upstream outputs it reads (all that a direct run sends)."""

    __slots__ = ("partition", "device", "worker", "resources", "spec", "graph_key", "blocking", "feed_indices",
                 "up_needs", "key", "local", "sources", "program", "pure_read", "refreshes")

    def __init__(self, partition, sources, worker: str, graph_key: str, local: bool = False):
        self.partition = partition
        self.device = partition.device
        self.worker = worker
        self.resources = {"GPU": 1} if "device:GPU" in partition.device else {}
        self.graph_key = graph_key
        # The seventh field says whether the partition has fused ops (sessions.fusion): the worker then
        # finds the same ones, whatever its own DFLOW_FUSE_OPS, and the trace's labels are its ops'.
        # The last names the ref variables it reads again after its ops (plan.alias_fetches).
        self.spec = (partition.device, tuple(op.name for op in partition.ops),
                     tuple(t.name for t in partition.inputs), tuple(t.name for t in partition.outputs),
                     tuple(partition.upstream), tuple(tuple(s) for s in sources), bool(fusions_of(partition)),
                     tuple(op.name for op in partition.final_reads))
        self.key = hashlib.sha1(repr((graph_key, self.spec)).encode()).hexdigest()
        self.blocking = any(op._opdef.uses_context for op in partition.ops)
        # The worker lives in this process (a tf.train.Server): run here, as TF1's in-process master
        # does, compiled from the session's own graph (which holds the Python side of tf.data
        # pipelines) and bound to that worker's resources.
        self.local = local
        self.sources = sources
        self.program = None
        self.feed_indices = tuple(sorted({s[1] for s in sources if s[0] == "feed"}))
        # per upstream argument: the positions of its outputs this partition reads
        self.up_needs = tuple(tuple(sorted({s[2] for s in sources if s[0] == "up" and s[1] == j}))
                              for j in range(len(partition.upstream)))
        self.pure_read = not local and read_ahead.pure_read(partition)
        self.refreshes = None  # the index of the read partition whose outputs this one's reply brings (read-ahead)


def _has_dflow_extension(dask_scheduler=None) -> bool:
    return "dflow" in dask_scheduler.extensions


def graph_lineage(graph) -> str:
    """A token naming this client graph through all its versions (see ``resources._op_key``)."""
    import secrets

    from dflow.ops.state.resources import LINEAGE

    token = graph._attachments.get(LINEAGE)
    if token is None:
        token = graph._attachments.setdefault(LINEAGE, secrets.token_hex(8))
    return token


class ClusterRuntime(ClusterDevices):
    """How to run a plan's partitions on the devices of a Dask cluster (``ClusterDevices``)."""

    def __init__(self, target, config):
        timeout = config.operation_timeout_in_ms / 1000.0 if config.operation_timeout_in_ms else _CONNECT_TIMEOUT_S
        self.client, self._owns_client = _connect(target, timeout)
        self._lock = threading.Lock()
        self._installed: dict = {}  # worker address -> set of graph keys
        self._dashboard = None  # whether the scheduler has dflow's extension (asked on first install)
        self._incarnations: dict = {}  # worker address -> incarnation id seen at install
        self._streams: dict = {}  # worker address -> host:port of its direct stream (None: Dask's comm only)
        self._graph_docs: dict = {}  # (graph id, graph version) -> (key, payload)
        self._specs_sent: set = set()  # (worker, partition key): the worker has the spec
        self._callers = threading.local()  # .loop: the calling thread's _CallerLoop
        self._caller_loops: list = []  # (thread, _CallerLoop) of every thread that ran, closed with the runtime
        self.reporter = None  # the /dflow page's SessionReporter, once the scheduler is known to have dflow
        self.read_ahead = read_ahead.ReadAhead()
        self._reply_bytes: dict = {}  # partition key -> array bytes of its last reply (shared-memory sizing)
        self._max_bytes = transport.max_message_bytes()
        ClusterDevices.__init__(self, self.client, config)

    # -- compiling -----------------------------------------------------------------------
    def compile(self, partition, sources, partitions):
        graph = partition.ops[0].graph if partition.ops else None
        key = self._graph_doc(graph)[0]
        worker = self._address_of(partition.device)
        if worker is None:
            worker = self._wait_for_device(partition.device, partition.ops[-1])
        prog = RemotePartition(partition, sources, worker, key, local=worker in _local_workers())
        if not prog.local and partition.upstream:
            prog.refreshes = read_ahead.source(partitions, next(i for i, p in enumerate(partitions)
                                                                 if p is partition))
        return prog

    def _graph_doc(self, graph):
        cache_key = (id(graph), graph._version, graph._structure_version)
        doc = self._graph_docs.get(cache_key)
        if doc is None:
            from dflow.framework.graph_io import dumps, graph_to_dict

            payload = dumps(graph_to_dict(graph))
            lineage = graph_lineage(graph)
            doc = (hashlib.sha1(payload + lineage.encode()).hexdigest(), payload, lineage)
            with self._lock:
                self._graph_docs = {k: v for k, v in self._graph_docs.items() if k[0] != id(graph)}
                self._graph_docs[cache_key] = doc
        return doc

    def _install(self, graph, graph_key: str, workers: set, force: bool = False) -> None:
        from dflow.sessions import worker_state

        missing = [w for w in workers if force or graph_key not in self._installed.get(w, ())]
        if not missing:
            return
        self._check_alive(missing)
        key, payload, lineage = self._graph_doc(graph)
        assert key == graph_key
        try:
            if self._dashboard is None:
                self._dashboard = bool(self.client.run_on_scheduler(_has_dflow_extension))
                if self._dashboard:
                    from dflow.dashboard.report import SessionReporter

                    self.reporter = SessionReporter(self.client)
            seen = self._run_on_workers(worker_state.install_graph, missing, graph_key, payload, lineage=lineage,
                                        dashboard=self._dashboard)
        except errors.UnavailableError:
            raise
        except Exception as e:  # noqa: BLE001 - any failure to reach the workers
            raise errors.UnavailableError(None, None, f"Could not send the graph to workers {missing}: {e}") \
                from None
        with self._lock:
            for w, (inc, stream) in seen.items():
                self._installed.setdefault(w, set()).add(graph_key)
                self._incarnations.setdefault(w, inc)
                self._streams[w] = stream

    def _run_on_workers(self, function, workers: list, *args, **kwargs) -> dict:
        """``client.run(function, ..., workers=workers)``, watching the workers: a worker that dies
        under the call is ``UnavailableError`` within a poll, not after Dask's connect timeout (30 s
        of retrying a refused connection to its old address)."""
        import asyncio
        import concurrent.futures

        call = asyncio.run_coroutine_threadsafe(self.client._run(function, *args, workers=workers, **kwargs),
                                                self.client.loop.asyncio_loop)
        started = time.monotonic()
        while True:
            try:
                return call.result(timeout=POLL_S)
            except concurrent.futures.TimeoutError:
                if time.monotonic() - started > _LIVENESS_AFTER_S:
                    try:
                        self._check_alive(workers)
                    except errors.UnavailableError:
                        call.cancel()
                        raise

    # -- running -------------------------------------------------------------------------
    def run(self, partitions, programs, feeds: tuple, token: str, traced: bool = False, ctx=None) -> list:
        if self._dashboard is False:  # a scheduler without dflow's extension: nobody to report to
            return self._run(partitions, programs, feeds, token, traced, ctx)
        start = time.perf_counter()
        try:
            out = self._run(partitions, programs, feeds, token, traced, ctx)
        except BaseException as e:
            if self.reporter is not None:
                self.reporter.ran(partitions, time.perf_counter() - start, e)
            raise
        if self.reporter is not None:
            self.reporter.ran(partitions, time.perf_counter() - start, stats=[r[-1] for r in out] if traced else None)
        return out

    def _run(self, partitions, programs, feeds, token, traced, ctx) -> list:
        graph = partitions[0].ops[0].graph
        workers = {p.worker for p in programs}
        self._install(graph, programs[0].graph_key, workers)
        run_once = self._run_direct if _direct_runs() else self._run_scheduled
        seq = next(read_ahead.RUNS)
        try:
            return run_once(graph, partitions, programs, feeds, token, traced, ctx, seq)
        except _Reinstall:
            self._install(graph, programs[0].graph_key, workers, force=True)
            return run_once(graph, partitions, programs, feeds, token, traced, ctx, next(read_ahead.RUNS))

    # -- direct runs: the session calls each partition's worker ---------------------------
    def _run_direct(self, graph, partitions, programs, feeds, token, traced, ctx, seq) -> list:
        """Runs the partitions by calling the ``dflow_run`` handler of their
        workers, in dependency order, independent ones at once: one network
        round trip per partition and none through the scheduler.

        The calls go out from the calling thread, on an event loop and
        connections of its own (``_CallerLoop``), rather than through the
        Dask client's loop thread: the two thread handoffs that would cost
        about 0.3 ms each on a busy 2-core host, a sixth of a small training
        step. A thread already running an event loop goes through the client."""
        caller = self._caller_loop()
        try:
            if caller is None:
                return self.client.sync(self._direct, graph, programs, feeds, traced, ctx, self.client.rpc, seq)
            return caller.run(self._direct(graph, programs, feeds, traced, ctx, caller.pool, seq, caller))
        except OSError as e:  # CommClosedError: a worker went away mid-run
            self._raise_lost(programs, e)

    def run_loop(self, partitions, programs, ctx, should_stop) -> bool:
        """Runs a one-partition plan of a remote worker in a loop on that worker
        until ``should_stop()`` (polled every ``POLL_S``) or an error, which is
        raised; False (nothing run) when the plan is not that, or this thread
        cannot run a loop of its own."""
        import asyncio
        import secrets

        caller = self._caller_loop()
        if len(programs) != 1 or programs[0].local or caller is None:
            return False
        prog = programs[0]
        graph = partitions[0].ops[0].graph
        self._install(graph, prog.graph_key, {prog.worker})
        loop_id = secrets.token_hex(8)
        op_timeout_ms = int(ctx.op_timeout_s * 1000) if ctx.op_timeout_s else 0

        async def go():
            call = asyncio.ensure_future(caller.pool(prog.worker).dflow_loop(
                key=prog.key, graph_key=prog.graph_key, spec=prog.spec,
                incarnation=self._incarnations.get(prog.worker), loop_id=loop_id, op_timeout_ms=op_timeout_ms))
            stopping, renewed = False, time.monotonic()
            while True:
                done, _ = await asyncio.wait([call], timeout=POLL_S)
                if done:
                    return call.result(), stopping
                if not stopping and (should_stop() or ctx.cancelled):
                    stopping = True
                    await caller.pool(prog.worker).dflow_loop_stop(loop_id=loop_id)
                elif time.monotonic() - renewed > _LOOP_RENEW_S:  # the loop's lease on the worker
                    renewed = time.monotonic()
                    await caller.pool(prog.worker).dflow_loop_stop(loop_id=loop_id, renew=True)

        try:
            reply, stopped = caller.run(go())
        except OSError as e:
            self._raise_lost(programs, e)
        if reply.get("reinstall"):
            self._install(graph, prog.graph_key, {prog.worker}, force=True)
            return self.run_loop(partitions, programs, ctx, should_stop)
        if "error" in reply and not stopped:
            self._raise_error(graph, pickle.loads(reply["error"]))
        return True

    def _caller_loop(self):
        """This thread's ``_CallerLoop`` (made on first use), or None where it cannot have one."""
        import asyncio

        try:
            asyncio.get_running_loop()
            return None  # inside a running loop (the client's own thread, a notebook's): no nested loop
        except RuntimeError:
            pass
        caller = getattr(self._callers, "loop", None)
        if caller is not None and not caller.loop.is_closed():
            return caller
        caller = self._callers.loop = _CallerLoop(self.client)
        with self._lock:
            live = [(t, c) for t, c in self._caller_loops if t.is_alive()]
            dead = [c for t, c in self._caller_loops if not t.is_alive()]
            self._caller_loops = live + [(threading.current_thread(), caller)]
        for c in dead:  # threads that ran sessions and ended: their connections are closed here
            c.close()
        return caller

    async def _direct(self, graph, programs, feeds, traced, ctx, pool, seq, caller=None) -> list:
        import asyncio

        tasks: list = []
        ahead = self.read_ahead.window_s > 0 and not traced

        async def one(i, prog):
            ups = []
            for j, needs in zip(prog.partition.upstream, prog.up_needs):
                out = await tasks[j]
                ups.append(tuple(out[k] if k in needs else None for k in range(len(out))))
            fed = {k: feeds[k] for k in prog.feed_indices}
            if prog.local:
                return await self._run_here(prog, traced, ctx, fed, ups)
            if prog.pure_read and ahead:
                values = self.read_ahead.take(prog.key, seq)
                if values is not None:
                    return values
            then = None
            if ahead and prog.refreshes is not None and self.read_ahead.wants(programs[prog.refreshes].key, seq):
                source = programs[prog.refreshes]
                then = (source.key, None if (prog.worker, source.key) in self._specs_sent else source.spec)
            out, again = await self._call(graph, prog, (ctx, fed, tuple(ups)), traced, pool, caller, then)
            if again is not None:
                self.read_ahead.keep(then[0], again, seq)
            return out

        for i, prog in enumerate(programs):
            tasks.append(asyncio.ensure_future(one(i, prog)))
        started = checked = time.monotonic()
        try:
            while True:
                timeout = POLL_S
                if ctx is not None and ctx.deadline is not None:
                    timeout = min(timeout, max(ctx.deadline - time.time(), 0.0) + 0.05)
                done, pending = await asyncio.wait(tasks, timeout=timeout, return_when=asyncio.FIRST_EXCEPTION)
                for t in done:
                    if t.exception() is not None:
                        raise t.exception()
                if not pending:
                    return [t.result() for t in tasks]
                if ctx is not None and ctx.deadline is not None and time.time() >= ctx.deadline:
                    raise errors.DeadlineExceededError(None, None, "The run's deadline (RunOptions.timeout_in_ms) "
                                                                   "expired while its partitions ran on the cluster.")
                if ctx is not None and ctx.cancelled:
                    raise errors.CancelledError(None, None, ctx.reason)
                now = time.monotonic()
                if now - started > _LIVENESS_AFTER_S and now - checked > _LIVENESS_AFTER_S:
                    # A long run (a blocking dequeue, a big step) or a call stuck connecting to a worker that
                    # died: Dask retries a refused connection for its connect timeout (30 s), so ask the
                    # scheduler whether the run's workers are still there.
                    checked = now
                    remote = [p.worker for p in programs if not p.local]
                    await asyncio.get_running_loop().run_in_executor(None, self._check_alive, remote)
        finally:
            for t in tasks:
                if not t.done():
                    t.cancel()
                elif not t.cancelled():
                    t.exception()  # marks a partner partition's failure as seen (asyncio logs it otherwise)

    async def _call(self, graph, prog, values, traced, pool, caller, then) -> tuple:
        """Runs ``prog`` on its worker with ``values``, the ``(ctx, feeds, upstream)``, and returns
        its outputs and the read-ahead ``then`` asked for (None when it did not come).

        The call goes on the worker's direct stream where the calling thread has its own loop
        (``_CallerLoop``) and the worker one, else through Dask's comm (``pool``); large arrays
        go through shared memory when the worker shares this host's (``transport``)."""
        size = transport.nbytes(values)
        transport.check_size(size, self._max_bytes, f"The values sent to {prog.device} for {prog.partition.name}")
        segments = caller.segments if caller is not None else None
        stream = self._streams.get(prog.worker) if caller is not None else None
        lease = None
        if segments is not None:
            reply_size = self._reply_bytes.get(prog.key, 0)
            if max(size, reply_size) >= transport.SHARED_BYTES:
                lease = segments.lease(prog.worker, size, reply_size)
        spec = None if (prog.worker, prog.key) in self._specs_sent else prog.spec
        # Only the arguments in use travel: each costs on a small step's message.
        extra = {} if self._max_bytes == transport.DEFAULT_MAX_BYTES else {"max_bytes": self._max_bytes}
        if then is not None:
            extra["then"] = then
        done = False
        try:
            payload = transport.pack(values, size, lease.request.writer() if lease else None, stream is not None)
            while True:
                if lease is not None:
                    extra["shm"] = lease.describe()
                request = dict(key=prog.key, graph_key=prog.graph_key, spec=spec, incarnation=self._incarnations.get(
                    prog.worker), traced=traced, blocking=prog.blocking, payload=payload, **extra)
                try:
                    if stream is not None:
                        reply = await caller.streams.call(stream, **request)
                    else:
                        reply = await pool(prog.worker).dflow_run(**request)
                except transport.StreamUnreachable:
                    # A port the network does not let through, say: Dask's comm for this worker from now
                    # on (a worker that is gone fails there too, and the liveness check says so).
                    self._streams[prog.worker] = stream = None
                    if lease is None:  # values in shared memory travel alike either way
                        payload = transport.pack(values, size)
                    continue
                except OSError as e:
                    e.dflow_worker = prog.worker  # whose connection broke (see _raise_lost)
                    raise
                if "out" in reply:
                    self._specs_sent.add((prog.worker, prog.key))
                    where = lease.reply if lease else None
                    out = transport.unpack(reply["out"], where)
                    again = transport.unpack(reply["then"], where) if "then" in reply else None
                    if segments is not None:  # the next call's segments are sized from it
                        self._reply_bytes[prog.key] = transport.nbytes(out) + transport.nbytes(again)
                    done = True
                    return out, again
                if reply.get("no_shm"):  # the worker is on another host: the plain way from now on
                    segments.unshared.add(prog.worker)
                    segments.discard(lease)
                    lease = None
                    del extra["shm"]
                    payload = transport.pack(values, size, None, stream is not None)
                    continue
                if not reply.get("need_spec") or spec is not None:
                    break
                spec = prog.spec
            done = True
        finally:
            if lease is not None:
                # A call that did not finish (cancelled, its worker lost) may still write into its segments.
                segments.give_back(prog.worker, lease) if done else segments.discard(lease)
        if reply.get("reinstall"):
            raise _Reinstall()
        self._raise_error(graph, pickle.loads(reply["error"]))

    async def _run_here(self, prog, traced, ctx, fed, ups):
        """A partition of a worker in this process: no message, no copy."""
        from dflow.sessions import worker_state

        if prog.program is None:
            prog.program = worker_state.local_program(prog.partition, prog.sources)
        args = (prog.program, self._incarnations.get(prog.worker), traced, ctx, fed, ups)
        try:
            if prog.blocking:
                import asyncio

                return await asyncio.get_running_loop().run_in_executor(
                    worker_state._blocking_pool(), worker_state.run_here, *args)
            return worker_state.run_here(*args)
        except worker_state.GraphNotInstalled:
            raise _Reinstall() from None
        except errors.OpError as e:
            self._raise_error(prog.partition.ops[0].graph, e)

    def _raise_lost(self, programs, exc) -> None:
        """A direct call failed on its connection: name the devices whose workers are gone."""
        failed = getattr(exc, "dflow_worker", None)
        if failed is not None:
            self._broken[failed] = time.monotonic()
            with self._lock:  # a process restarted at that address has a new stream: install there again
                self._installed.pop(failed, None)
                self._streams.pop(failed, None)
        self._check_alive([prog.worker for prog in programs])
        devices = ", ".join(sorted({prog.device for prog in programs}))
        self.topology_version += 1
        raise errors.UnavailableError(None, None, f"Lost the connection to a Dask worker serving {devices}: "
                                                  f"{type(exc).__name__}: {exc}. Its variables and queues may be "
                                                  f"gone; the next run is planned on the workers serving those "
                                                  f"devices then.") from None

    # -- scheduled runs: one Dask task per partition, through the scheduler ---------------
    def _run_scheduled(self, graph, partitions, programs, feeds, token, traced, ctx, seq=None) -> list:
        from dask.highlevelgraph import HighLevelGraph, MaterializedLayer
        from dask.task_spec import DataNode, Task, TaskRef

        from dflow.sessions import worker_state

        feeds_key = f"feeds-{token}"
        layers = {feeds_key: MaterializedLayer({feeds_key: DataNode(feeds_key, feeds)})}
        deps = {feeds_key: set()}
        keys = []
        for p, prog in zip(partitions, programs):
            key = f"{p.name}-{token}"
            ups = [keys[j] for j in p.upstream]
            task = Task(key, worker_state.run_partition, prog.graph_key, prog.spec,
                        self._incarnations.get(prog.worker), traced, ctx, TaskRef(feeds_key),
                        *[TaskRef(u) for u in ups])
            annotations = {"workers": [prog.worker], "allow_other_workers": False}
            if prog.resources:
                annotations["resources"] = dict(prog.resources)
            layers[key] = MaterializedLayer({key: task}, annotations=annotations)
            deps[key] = {feeds_key, *ups}
            keys.append(key)
        hlg = HighLevelGraph(layers, deps)
        futures = self.client.get(hlg, keys, sync=False)
        try:
            return self._gather(graph, futures, programs, ctx)
        except BaseException:
            self.client.cancel(futures)
            raise

    def _gather(self, graph, futures, programs, ctx) -> list:
        from distributed import wait

        while True:
            timeout = POLL_S
            if ctx is not None and ctx.deadline is not None:
                timeout = min(timeout, max(ctx.deadline - time.time(), 0.0) + 0.05)
            timed_out = False
            try:
                with self.client.as_current():
                    wait(futures, timeout=timeout, return_when="ALL_COMPLETED")
            except TimeoutError:
                timed_out = True  # still running: look at the deadline and the workers
            for f in futures:
                if f.status == "error":
                    self._raise_remote(graph, f)
            if not timed_out and all(f.status == "finished" for f in futures):
                return self.client.gather(futures)
            if ctx is not None and ctx.deadline is not None and time.time() >= ctx.deadline:
                raise errors.DeadlineExceededError(None, None, "The run's deadline (RunOptions.timeout_in_ms) "
                                                               "expired while its tasks ran on the cluster.")
            if ctx is not None and ctx.cancelled:
                raise errors.CancelledError(None, None, ctx.reason)
            self._check_workers(programs)

    def _check_workers(self, programs) -> None:
        self._check_alive([prog.worker for prog in programs])

    def _raise_remote(self, graph, future) -> None:
        from dflow.sessions.worker_state import GraphNotInstalled

        exc = future.exception()
        if isinstance(exc, GraphNotInstalled):
            raise _Reinstall()
        self._raise_error(graph, exc)

    @staticmethod
    def _raise_error(graph, exc) -> None:
        """Re-raises a worker's exception: TF1 errors as they are (bound to this
        session's op of that name), anything else as UnavailableError."""
        if isinstance(exc, errors.OpError):
            name = getattr(exc, "op_name", None) or getattr(exc.op, "name", None)
            if name is not None and (exc.op is None or exc.op.graph is not graph):
                try:
                    exc._op = graph.get_operation_by_name(name)
                except (KeyError, ValueError):
                    pass
            raise exc
        raise errors.UnavailableError(None, None, f"A task of the run failed on the cluster: "
                                                  f"{type(exc).__name__}: {exc}") from exc

    def close(self) -> None:
        if self.reporter is not None:
            self.reporter.close()
        with self._lock:
            callers, self._caller_loops = self._caller_loops, []
        for _, caller in callers:
            caller.close()
        if self._owns_client:
            self.client.close()


class _CallerLoop:
    """An event loop and a Dask connection pool owned by one thread that runs sessions.

    The loop runs only inside ``run`` (a ``Session.run`` of that thread); its
    connections stay open between runs, as the client's would."""

    def __init__(self, client):
        import asyncio

        from distributed.core import ConnectionPool

        self.loop = asyncio.new_event_loop()
        self.pool = ConnectionPool(limit=64, serializers=client._serializers, deserializers=client._deserializers,
                                   deserialize=True, connection_args=client.connection_args,
                                   timeout=client.rpc.timeout)
        started = self.pool.start()
        if inspect.isawaitable(started):  # a coroutine in recent releases
            self.loop.run_until_complete(started)
        self.segments = transport.ClientSegments()
        self.streams = transport.StreamPool(_CONNECT_TIMEOUT_S)

    def run(self, coroutine):
        return self.loop.run_until_complete(coroutine)

    def close(self) -> None:
        """Closes the connections and the loop; for a loop that is running (its thread is
        mid-run while the session closes), leaves them to the garbage collector."""
        if self.loop.is_closed() or self.loop.is_running():
            return
        self.segments.close()
        self.streams.close()
        try:
            self.loop.run_until_complete(self.pool.close())
        except Exception:  # noqa: BLE001 - closing: a broken connection is closed enough
            pass
        self.loop.close()


def _direct_runs() -> bool:
    """Whether runs call workers directly (the default) or go through the
    scheduler as Dask tasks (``dask.config.set({"dflow.cluster.runs": "scheduler"})``),
    which shows every partition in the dashboard's task stream at the cost of
    a scheduler round trip per dependent partition."""
    import dask

    mode = dask.config.get("dflow.cluster.runs", "direct")
    if mode not in ("direct", "scheduler"):
        raise ValueError(f"dask config dflow.cluster.runs must be 'direct' or 'scheduler', got {mode!r}")
    return mode == "direct"


class _Reinstall(Exception):
    """A worker lost the graph (it restarted): install it again and retry once."""


def reset(target, containers=None, config=None) -> None:
    """``tf.Session.reset``: drops resource containers on every worker of the cluster."""
    from dflow.sessions.worker_state import reset_resources

    timeout = config.operation_timeout_in_ms / 1000.0 if config and config.operation_timeout_in_ms else \
        _CONNECT_TIMEOUT_S
    client, owns = _connect(target, timeout)
    try:
        client.run(reset_resources, list(containers) if containers else None)
    finally:
        if owns:
            client.close()
