"""``tf.train.Server``: this process joins a Dask cluster as one TF1 task.

In TF1 every task of a cluster runs a gRPC server; in dflow the tasks are
Dask workers around one Dask scheduler. ``tf.train.Server(cluster,
job_name="worker", task_index=3)`` starts an in-process ``distributed.Worker``
named ``/job:worker/task:3`` (the name is what makes it serve that task, see
``dflow.placement.device_map``) on an event loop in a background thread, so the
calling thread stays free, as with TF1's server.

The scheduler to join is task 0 of the cluster spec's ``scheduler`` job or,
without one, the ``DFLOW_SCHEDULER`` environment variable. A server whose
own job is ``scheduler`` runs the Dask scheduler itself, at its address, so a
TF1-style launch script where every process makes a ``Server`` works::

    cluster = tf.train.ClusterSpec({"scheduler": ["node0:8786"],
                                    "ps": ["node0:2222"], "worker": ["node1:2222", "node2:2222"]})
    server = tf.train.Server(cluster, job_name=JOB, task_index=TASK)
    if JOB != "worker":
        server.join()
    with tf.Session(server.target) as sess:
        ...

``server.target`` is the scheduler's address (``tcp://host:port``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import weakref
from dataclasses import dataclass, field, replace

from dflow._api import tf_export
from dflow.cluster.cluster_spec import SCHEDULER_JOB, ClusterDef, ClusterSpec, normalize_address
from dflow.framework import errors
from dflow.placement.device_map import worker_name

SCHEDULER_ENV = "DFLOW_SCHEDULER"
_START_TIMEOUT_S = 60.0
_STOP_TIMEOUT_S = 10.0


@tf_export("train.ServerDef")
@dataclass
class ServerDef:
    """TF1's ``ServerDef`` as plain data: the cluster, this task, the protocol, session defaults."""

    cluster: ClusterDef = field(default_factory=ClusterDef)
    job_name: str = ""
    task_index: int = 0
    protocol: str = ""
    default_session_config: object = None


def make_server_def(server_or_cluster_def, job_name=None, task_index=None, protocol=None, config=None) -> ServerDef:
    """Fills in a ``ServerDef`` as TF1 does: arguments override, single jobs and tasks are implied.

    The ``scheduler`` job does not count when implying the job: with only a
    ``scheduler`` job and one other, the other is this task's job.

    >>> make_server_def({"scheduler": ["h:8786"], "worker": ["h:2222"]}).job_name
    'worker'
    """
    if isinstance(server_or_cluster_def, ServerDef):
        out = replace(server_or_cluster_def)
        if job_name is not None:
            out.job_name = job_name
        if task_index is not None:
            out.task_index = task_index
        if protocol is not None:
            out.protocol = protocol
        if config is not None:
            out.default_session_config = config
        return out
    try:
        cluster = ClusterSpec(server_or_cluster_def)
    except TypeError:
        raise TypeError("Could not convert `server_or_cluster_def` to a `tf.train.ServerDef` or "
                        "`tf.train.ClusterSpec`.") from None
    if job_name is None:
        task_jobs = [j for j in cluster.jobs if j != SCHEDULER_JOB]
        if len(cluster.jobs) == 1:
            job_name = cluster.jobs[0]
        elif len(task_jobs) == 1:
            job_name = task_jobs[0]
        else:
            raise ValueError("Must specify an explicit `job_name`.")
    if task_index is None:
        indices = cluster.task_indices(job_name) if job_name in cluster.jobs else []
        if len(indices) != 1:
            raise ValueError("Must specify an explicit `task_index`.")
        task_index = indices[0]
    return ServerDef(cluster.as_cluster_def(), job_name, int(task_index), protocol or "grpc", config)


def find_scheduler(cluster: ClusterSpec, protocol: str = "tcp") -> str:
    """The Dask scheduler of ``cluster``: its ``scheduler`` address, else a ``scheduler`` job,
    else ``$DFLOW_SCHEDULER``.

    >>> find_scheduler(ClusterSpec({"scheduler": ["10.0.0.1:8786"]}))
    'tcp://10.0.0.1:8786'
    >>> find_scheduler(ClusterSpec({"ps": ["h:1"]}, scheduler="tcp://10.0.0.1:8786"))
    'tcp://10.0.0.1:8786'
    """
    if getattr(cluster, "scheduler", None):
        return normalize_address(cluster.scheduler, protocol)
    if SCHEDULER_JOB in cluster.jobs and cluster.task_indices(SCHEDULER_JOB):
        return normalize_address(cluster.task_address(SCHEDULER_JOB, cluster.task_indices(SCHEDULER_JOB)[0]),
                                 protocol)
    env = os.environ.get(SCHEDULER_ENV)
    if env:
        return normalize_address(env, protocol)
    raise ValueError(
        "tf.train.Server could not find the Dask scheduler to join. dflow's tasks are Dask workers around one "
        f"scheduler: add a {SCHEDULER_JOB!r} job to the cluster spec "
        f"(tf.train.ClusterSpec({{'{SCHEDULER_JOB}': ['host:8786'], 'ps': [...], 'worker': [...]}})), or set the "
        f"environment variable {SCHEDULER_ENV}=tcp://host:8786. Start a scheduler with `dflow cluster`, "
        f"`dask scheduler`, or a Server whose job_name is {SCHEDULER_JOB!r}.")


def _dask_protocol(protocol: str | None) -> str:
    # TF1 scripts say "grpc"; Dask's equivalent transport is TCP.
    if not protocol or protocol.startswith("grpc"):
        return "tcp"
    return protocol


def _host_port(address: str) -> tuple[str | None, int]:
    address = address.split("://", 1)[-1]
    host, _, port = address.rpartition(":")
    if not host:
        return address or None, 0
    return host.strip("[]") or None, int(port or 0)


def _start_error(e: BaseException, name: str, scheduler: str, own_address: str | None, timeout: float):
    """The TF1 error for a task that failed to start, saying what to do."""
    cause = e.__cause__ if isinstance(e, RuntimeError) and e.__cause__ is not None else e
    if "name taken" in str(cause):
        return errors.AlreadyExistsError(
            None, None, f"The Dask scheduler at {scheduler} already has a worker named {name}: each task runs "
                        f"once. Choose another task index, or stop the process that serves {name}.")
    if isinstance(cause, (asyncio.TimeoutError, TimeoutError)):
        return errors.UnavailableError(
            None, None, f"Could not start {name}: the Dask scheduler at {scheduler} did not answer within "
                        f"{timeout:g} s. Is it running? Start one with `dflow cluster` or `dask scheduler`.")
    if isinstance(cause, OSError):
        where = f"listen on {own_address} (this task's address in the cluster spec) or " if own_address else ""
        return errors.UnavailableError(None, None, f"Could not start {name}: could not {where}reach the "
                                                   f"Dask scheduler at {scheduler}: {cause}.")
    return e


@tf_export("train.Server", "distribute.Server")
class Server:
    """An in-process TF1 task: a Dask worker named ``/job:J/task:T`` (or the Dask scheduler).

    ``server_or_cluster_def`` is a ``ClusterSpec``, a dict for one, a
    ``ClusterDef`` or a ``ServerDef``; ``job_name``, ``task_index`` and
    ``protocol`` override it as in TF1. ``config`` (a ``ConfigProto``) is kept
    as the default session config; its ``inter_op_parallelism_threads``, when
    set, is the worker's thread count, and its ``intra_op_parallelism_threads``
    sizes this process's BLAS and OpenMP pools. Left at 0, the pools get this
    task's share of its host's cores: the cores divided by the spec's tasks
    outside the ``ps`` and ``scheduler`` jobs on the same host (a laptop running
    a ps and two workers gives each worker one thread per two cores), so that
    the tasks' BLAS threads do not fight over the cores.

    dflow's keyword-only extras: ``nthreads`` (worker threads; default the
    machine's cores), ``gpus`` (the worker's Dask ``GPU`` resource, so it
    serves ``.../device:GPU:0..gpus-1``), ``dashboard_address`` (for a server
    that runs the scheduler; ``None`` disables) and ``timeout`` (seconds to
    reach the scheduler on start), ``security`` (TLS: ``True`` or a
    ``distributed.Security``; by default the credentials registered for the
    scheduler's address, ``dflow.cluster.set_security``, so a server joins a
    ``LocalCluster(security=True)`` of its own process over ``tls://``).

    The worker listens on this task's address in the cluster spec when the
    spec lists it (port 0: any free port), else where Dask chooses.

    >>> server = tf.train.Server({"scheduler": ["127.0.0.1:8786"], "worker": ["127.0.0.1:0"]})  # doctest: +SKIP
    >>> server.target  # doctest: +SKIP
    'tcp://127.0.0.1:8786'
    """

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None, config=None,
                 start=True, *, nthreads: int | None = None, gpus: int = 0,
                 dashboard_address: str | None = ":8787", timeout: float = _START_TIMEOUT_S, security=None):
        from dflow.cluster.security import make_security, security_for

        self._server_def = make_server_def(server_or_cluster_def, job_name, task_index, protocol, config)
        cluster = ClusterSpec(self._server_def.cluster)
        job, task = self._server_def.job_name, self._server_def.task_index
        self._protocol = _dask_protocol(self._server_def.protocol)
        self._hosts_scheduler = job == SCHEDULER_JOB
        self._security = make_security(security)
        if self._security is not None and self._protocol == "tcp":
            self._protocol = "tls"
        self._scheduler_address = find_scheduler(cluster, self._protocol)
        if self._security is None and not self._hosts_scheduler:
            self._security = security_for(self._scheduler_address)
        if self._scheduler_address.startswith("tls://") and self._protocol == "tcp":
            self._protocol = "tls"
        self._own_address = None
        if job in cluster.jobs and task in cluster.task_indices(job):
            self._own_address = cluster.task_address(job, task)
        elif self._hosts_scheduler:
            raise ValueError(f"No task with index {task!r} in job {job!r}")
        if not nthreads and config is not None and getattr(config, "inter_op_parallelism_threads", 0) > 0:
            nthreads = config.inter_op_parallelism_threads
        self._nthreads = int(nthreads) if nthreads else None
        self._gpus = int(gpus)
        self._dashboard_address = dashboard_address
        self._timeout = timeout
        self._runtime: _Runtime | None = None
        self._finalizer = None
        self._thread_limits = None
        if start:
            self.start()

    # -- TF1 API ---------------------------------------------------------------------------
    @property
    def server_def(self) -> ServerDef:
        return self._server_def

    @property
    def target(self) -> str:
        """What ``tf.Session(target)`` needs to run on this cluster: the scheduler's address."""
        rt = self._runtime
        if rt is not None and rt.scheduler is not None:
            return rt.scheduler.address
        return self._scheduler_address

    def start(self) -> None:
        """Starts the worker (and the scheduler, for the ``scheduler`` task); a started server is left alone."""
        if self._runtime is not None and not self._runtime.done.is_set():
            return
        job, task = self._server_def.job_name, self._server_def.task_index
        host, port = _host_port(self._own_address) if self._own_address else (None, 0)
        rt = _Runtime(name=worker_name(job, task))
        try:
            rt.start(
                scheduler=dict(host=host, port=port, protocol=self._protocol,
                               dashboard=self._dashboard_address is not None,
                               dashboard_address=self._dashboard_address or ":0",
                               security=self._security) if self._hosts_scheduler else None,
                worker=None if self._hosts_scheduler else dict(
                    scheduler_address=self._scheduler_address, name=worker_name(job, task), host=host,
                    port=port or None, protocol=self._protocol, nthreads=self._nthreads,
                    resources={"GPU": self._gpus} if self._gpus > 0 else None, death_timeout=self._timeout,
                    security=self._security),
                timeout=self._timeout)
        except BaseException as e:
            rt.stop()
            raise _start_error(e, worker_name(job, task), self._scheduler_address, self._own_address,
                               self._timeout) from e
        self._runtime = rt
        self._finalizer = weakref.finalize(self, rt.stop)
        if not self._hosts_scheduler:
            self._size_compute_threads()

    def _size_compute_threads(self) -> None:
        """This process runs the task's kernels: its allocator and BLAS threads are set for it."""
        from dflow.cluster import process_tuning

        process_tuning.tune_allocator()
        config = self._server_def.default_session_config
        threads = getattr(config, "intra_op_parallelism_threads", 0) if config is not None else 0
        if not threads:
            threads = process_tuning.host_share(ClusterSpec(self._server_def.cluster), self._server_def.job_name,
                                                self._server_def.task_index)
        if threads:
            self._thread_limits = process_tuning.set_compute_threads(threads)

    def join(self) -> None:
        """Blocks until this task's worker (or scheduler) stops; Ctrl-C stops it and returns."""
        rt = self._runtime
        if rt is None:
            raise RuntimeError("This server was not started: call server.start() first.")
        try:
            while not rt.done.wait(0.5):
                pass
        except KeyboardInterrupt:
            self.stop()

    @staticmethod
    def create_local_server(config=None, start=True) -> Server:
        """A one-task cluster in this process: a scheduler and the worker ``/job:localhost/task:0``.

        ``tf.Session(server.target)`` then runs on it, as with TF1's local server.
        """
        return _LocalServer(config=config, start=start)

    # -- dflow extras ----------------------------------------------------------------------
    def stop(self, timeout: float = _STOP_TIMEOUT_S) -> None:
        """Closes the worker (and the scheduler it hosts); calling it again does nothing."""
        rt, self._runtime = self._runtime, None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if rt is not None:
            rt.stop(timeout)
        if self._thread_limits is not None:
            from dflow.cluster import process_tuning

            process_tuning.restore_compute_threads(self._thread_limits)
            self._thread_limits = None

    @property
    def is_running(self) -> bool:
        return self._runtime is not None and not self._runtime.done.is_set()

    @property
    def worker_address(self) -> str | None:
        """The address of this task's Dask worker (``None`` for the scheduler task, or when stopped)."""
        rt = self._runtime
        return rt.worker.address if rt is not None and rt.worker is not None else None

    @property
    def dashboard_link(self) -> str | None:
        """The dashboard of the scheduler this server runs, if it runs one with a dashboard."""
        rt = self._runtime
        if rt is None or rt.scheduler is None:
            return None
        port = rt.scheduler.services.get("dashboard")
        if port is None:
            return None
        from distributed.utils import format_dashboard_link

        return format_dashboard_link(_host_port(rt.scheduler.address)[0], port.port)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def __repr__(self):
        state = "running" if self.is_running else "stopped"
        return f"<tf.train.Server {worker_name(self._server_def.job_name, self._server_def.task_index)} " \
               f"of {self.target} ({state})>"


class _LocalServer(Server):
    """``create_local_server``: hosts the scheduler and the worker ``/job:localhost/task:0``."""

    def __init__(self, config=None, start=True):
        super().__init__({"localhost": ["127.0.0.1:0"], SCHEDULER_JOB: ["127.0.0.1:0"]}, job_name="localhost",
                         task_index=0, protocol="grpc", config=config, start=False, dashboard_address=None)
        if start:
            self.start()

    def start(self) -> None:
        if self._runtime is not None and not self._runtime.done.is_set():
            return
        rt = _Runtime(name="/job:localhost/task:0")
        try:
            rt.start(scheduler=dict(host="127.0.0.1", port=0, protocol="tcp", dashboard=False, dashboard_address=":0"),
                     worker=dict(name="/job:localhost/task:0", host="127.0.0.1", nthreads=self._nthreads,
                                 protocol="tcp"),
                     timeout=self._timeout)
        except BaseException:
            rt.stop()
            raise
        self._runtime = rt
        self._finalizer = weakref.finalize(self, rt.stop)
        self._size_compute_threads()


class _Runtime:
    """A scheduler and/or worker on an asyncio loop in a daemon thread.

    Kept apart from ``Server`` so that ``weakref.finalize`` can stop it when
    the server is dropped or the interpreter exits, without holding the server.
    """

    def __init__(self, name: str):
        self.loop = asyncio.new_event_loop()
        self.done = threading.Event()
        self.scheduler = None
        self.worker = None
        self._quiet = contextlib.ExitStack()
        self._thread = threading.Thread(target=self._run, name=f"dflow-server {name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()

    def start(self, scheduler: dict | None, worker: dict | None, timeout: float) -> None:
        from distributed.utils import silence_logging_cmgr

        # As Dask's LocalCluster: the in-process scheduler and worker log warnings and errors,
        # not their start-up and shutdown INFO lines, while the server lives.
        self._quiet.enter_context(silence_logging_cmgr(logging.WARN))
        asyncio.run_coroutine_threadsafe(self._start(scheduler, worker), self.loop).result(timeout + 5)

    async def _start(self, scheduler_opts, worker_opts) -> None:
        import dask
        from distributed import Scheduler, Worker

        from dflow.cluster.local_cluster import SCHEDULER_CONFIG

        if scheduler_opts is not None:
            from dflow.dashboard import install

            with dask.config.set(SCHEDULER_CONFIG):
                self.scheduler = Scheduler(**scheduler_opts)
            install(self.scheduler)
            await self.scheduler
        if worker_opts is not None:
            opts = {k: v for k, v in worker_opts.items() if v is not None}
            address = opts.pop("scheduler_address", None) or self.scheduler.address
            from dflow.cluster.local_cluster import quiet_worker_shutdown

            self.worker = Worker(address, **opts)
            quiet_worker_shutdown(self.worker)
            await self.worker
        asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        # The task is over when its worker (or scheduler) closes, e.g. when the
        # scheduler goes away and the worker, which has no nanny, shuts down.
        server = self.worker if self.worker is not None else self.scheduler
        await server.finished()
        self.done.set()

    async def _close(self) -> None:
        for server in (self.worker, self.scheduler):
            if server is not None:
                try:
                    await server.close()
                except Exception:  # noqa: BLE001 - closing is best effort; the loop stops anyway
                    pass

    def stop(self, timeout: float = _STOP_TIMEOUT_S) -> None:
        if self.loop.is_closed():
            return
        if threading.current_thread() is self._thread:  # dropped on its own loop: cannot wait here
            self.loop.create_task(self._close()).add_done_callback(lambda _: self.loop.stop())
            self.done.set()
            return
        if self._thread.is_alive():
            try:
                asyncio.run_coroutine_threadsafe(self._close(), self.loop).result(timeout)
            except Exception:  # noqa: BLE001 - a hung close must not hang the caller
                pass
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout)
        self.done.set()
        self._quiet.close()
