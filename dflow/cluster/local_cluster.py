"""``dflow.LocalCluster``: a Dask cluster on this machine whose workers are TF1 tasks.

It is a ``distributed.SpecCluster``: a scheduler in this process, on
127.0.0.1 and a free port, and one worker process (a ``Nanny``) per task,
named ``/job:ps/task:0``, ..., ``/job:worker/task:0``, ..., so that
``tf.Session(cluster.target)`` places ``/job:ps/task:0`` on the worker named
after it. ``distributed`` is imported only when a cluster is made.

The scheduler runs with ``distributed.scheduler.worker-saturation: inf``:
dflow sends a run as a few coarse device-partition tasks with explicit worker
restrictions, and queueing them on the scheduler only adds latency.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import shutil
import subprocess
import sys
import time

from dflow._api import tf_export
from dflow.cluster.cluster_spec import ClusterSpec, strip_protocol
from dflow.placement.device_map import worker_name

SCHEDULER_CONFIG = {"distributed.scheduler.worker-saturation": float("inf")}
SUPERVISE_S = 0.5
_log = logging.getLogger("dflow.cluster")

# Dask starts worker processes with MALLOC_TRIM_THRESHOLD_=65536, to hand freed
# memory back to the OS. Setting it also freezes glibc's mmap threshold at
# 128 KiB, so every large temporary a kernel makes is fresh pages from the OS:
# measured here, ``a - a * 0.05`` on 400k floats took 2.6 ms in such a worker
# against 0.14 ms without it. Training kernels make such temporaries every step,
# so dflow's worker processes start without it.
_DASK_MALLOC_TRIM = "65536"


def _worker_process_environ() -> dict:
    import dask

    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}) or {})
    if str(environ.get("MALLOC_TRIM_THRESHOLD_")) == _DASK_MALLOC_TRIM:
        del environ["MALLOC_TRIM_THRESHOLD_"]
    # A Nanny also copies its pre-spawn environment into this process's environment,
    # which later worker processes inherit: drop Dask's value from there too.
    if os.environ.get("MALLOC_TRIM_THRESHOLD_") == _DASK_MALLOC_TRIM:
        del os.environ["MALLOC_TRIM_THRESHOLD_"]
    return {"distributed.nanny.pre-spawn-environ": environ}

# A worker-process preload (Dask runs preload text as a script): Ctrl-C in a terminal
# reaches every process of its group, and worker processes would die printing
# KeyboardInterrupt tracebacks while their owner is already closing them cleanly.
_IGNORE_SIGINT_PRELOAD = """
import signal, threading
def dask_setup(worker):
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    from dflow.cluster.local_cluster import quiet_worker_shutdown
    quiet_worker_shutdown(worker)
"""


class _ShutdownRace(logging.Filter):
    """Drops what a worker logs about losing its scheduler connection while it is itself closing
    (a heartbeat in flight when the cluster shuts down on purpose, which Dask reports as an ERROR
    with a traceback); the same failure of a running worker still logs."""

    def __init__(self, worker):
        super().__init__()
        self.worker = worker

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(getattr(self.worker, "status", None), "name", "")
        if status not in ("closing", "closed", "closing_gracefully", "failed"):
            return True
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += f" {type(record.exc_info[1]).__name__}"
        return not any(s in text for s in ("heartbeat", "CommClosedError", "StreamClosedError",
                                           "Stream is closed"))


def quiet_worker_shutdown(worker) -> None:
    """Installs ``_ShutdownRace`` on the loggers a closing worker reports the race on."""
    race = _ShutdownRace(worker)
    for name in ("distributed.worker", "distributed.core", "distributed.comm", "distributed.batched"):
        logging.getLogger(name).addFilter(race)


def _compute_threads_preload(workers: int) -> str:
    """A worker-process preload giving a ``worker`` task its share of the cores for BLAS.

    Dask starts worker processes with one BLAS thread (``OPENBLAS_NUM_THREADS=1``
    and friends); dflow's worker tasks run the model's kernels, so each gets
    the machine's cores divided by the worker tasks (the ps tasks keep one)."""
    from dflow.cluster.process_tuning import cpu_count

    threads = max(1, cpu_count() // max(1, workers))
    return ("def dask_setup(worker):\n"
            "    from dflow.cluster.process_tuning import set_compute_threads\n"
            f"    set_compute_threads({threads})\n")


_UNGUARDED_SCRIPT = (
    "dflow.LocalCluster starts its tasks as worker processes, and each one imports the main script again "
    "(Python's 'spawn' start method): put the code that builds the cluster under "
    "`if __name__ == \"__main__\":`, or pass processes=False for in-process workers.")


def _in_a_starting_worker_process() -> bool:
    """True while a spawned process is importing the parent's main script (where a cluster must not start)."""
    import multiprocessing

    return bool(getattr(multiprocessing.current_process(), "_inheriting", False))


def _called_from_an_unguarded_script() -> bool:
    """True when the main script's top level, outside ``if __name__ == "__main__":``, is starting a cluster
    (its worker processes would run the script again and fail with pages of tracebacks)."""
    import ast
    import inspect

    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if not path or not path.endswith(".py"):
        return False
    frame = inspect.currentframe()
    while frame is not None and not (frame.f_code.co_name == "<module>" and frame.f_globals is vars(main)):
        frame = frame.f_back
    if frame is None:
        return False  # called from a function or an interactive session
    line = frame.f_lineno
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return False
    for node in tree.body:
        if isinstance(node, ast.If) and node.lineno <= line <= (node.end_lineno or node.lineno) and "__main__" in \
                ast.unparse(node.test) and "__name__" in ast.unparse(node.test):
            return False
    return True


@functools.cache
def _task_cluster_class():
    from distributed import SpecCluster
    from distributed.deploy.cluster import Cluster

    class TaskCluster(SpecCluster):
        """A ``SpecCluster`` that keeps the nanny of a task whose worker is away.

        ``SpecCluster`` closes and forgets a worker's nanny when no worker of that name has been
        back for ``distributed.deploy.lost-worker-timeout`` after a loss, which a task killed
        often meets while its nanny is restarting it. dflow's tasks are permanent: a nanny that
        did give up is replaced by ``LocalCluster``'s supervisor instead."""

        def _update_worker_status(self, op, msg):
            Cluster._update_worker_status(self, op, msg)

    return TaskCluster


@tf_export("LocalCluster")
class LocalCluster:
    """A local Dask cluster of named TF1 tasks: ``ps`` parameter servers and ``workers`` workers.

    Parameters
    ----------
    ps, workers : int
        How many tasks of the ``ps`` and ``worker`` jobs to start.
    gpus_per_worker : int
        Dask resource ``GPU`` of each ``worker`` task (``ps`` tasks get none:
        they hold variables, on their CPU). With processes and a known GPU
        count, each worker process sees its own GPUs through
        ``CUDA_VISIBLE_DEVICES``, dealt round-robin.
    threads_per_worker : int
        Threads of each worker process.
    dashboard_address : str or None
        Where the scheduler's dashboard listens (``":0"``: any free port);
        ``None`` disables it.
    processes : bool
        One process per task (``Nanny``), or in-process workers (``Worker``).
    security : bool or distributed.Security
        ``True``: TLS with a fresh self-signed certificate (``Security.temporary()``,
        needs ``cryptography``); a ``Security``: TLS with its credentials. Scheduler
        and workers then listen on ``tls://`` only, and sessions made in this
        process reach them with these credentials (``dflow.cluster.security``).
    **kwargs
        Passed to each worker's constructor (``memory_limit``, ...).

    Examples
    --------
    >>> import dflow as tf
    >>> with tf.LocalCluster(ps=1, workers=2, dashboard_address=None) as cluster:  # doctest: +SKIP
    ...     with tf.Session(cluster.target) as sess:
    ...         ...
    """

    def __init__(self, ps: int = 1, workers: int = 2, gpus_per_worker: int = 0, threads_per_worker: int = 1,
                 dashboard_address: str | None = ":8787", processes: bool = True, security=None, **kwargs):
        import dask
        from distributed import Nanny, Scheduler, Worker

        from dflow.cluster.security import make_security

        if ps < 0 or workers < 0 or ps + workers == 0:
            raise ValueError(f"A LocalCluster needs at least one task; got ps={ps}, workers={workers}.")
        self._cluster = None
        if processes and (_in_a_starting_worker_process() or _called_from_an_unguarded_script()):
            raise RuntimeError(_UNGUARDED_SCRIPT)
        self.ps, self.workers = int(ps), int(workers)
        self.gpus_per_worker = int(gpus_per_worker)
        self.processes = bool(processes)
        self._dashboard = dashboard_address is not None
        self.worker_names = ([worker_name("ps", i) for i in range(self.ps)]
                             + [worker_name("worker", i) for i in range(self.workers)])

        self.security = make_security(security)
        common = {"nthreads": int(threads_per_worker), "host": "127.0.0.1"}
        tls = {"protocol": "tls://", "security": self.security} if self.security is not None else {}
        common.update(tls)
        # As Dask's LocalCluster: the tasks share the machine's memory (a float is a fraction of it).
        common["memory_limit"] = kwargs.pop("memory_limit", 1.0 / len(self.worker_names))
        if self.processes:
            common["silence_logs"] = logging.WARN
            common["preload"] = [_IGNORE_SIGINT_PRELOAD]
        preload = kwargs.pop("preload", None)
        if preload:
            common["preload"] = common.get("preload", []) + ([preload] if isinstance(preload, str) else list(preload))
        common.update(kwargs)
        gpu_sets = _deal_gpus(self.workers, self.gpus_per_worker) if self.processes else None
        specs = {}
        for name in self.worker_names:
            opts = dict(common, name=name)
            if name.startswith("/job:worker/") and self.gpus_per_worker > 0:
                opts["resources"] = {**opts.get("resources", {}), "GPU": self.gpus_per_worker}
                if gpu_sets:
                    task = int(name.rsplit(":", 1)[1])
                    opts["env"] = {**opts.get("env", {}), "CUDA_VISIBLE_DEVICES": gpu_sets[task]}
            if self.processes and name.startswith("/job:worker/"):
                opts["preload"] = opts.get("preload", []) + [_compute_threads_preload(self.workers)]
            specs[name] = {"cls": Nanny if self.processes else Worker, "options": opts}
        scheduler = {"cls": Scheduler, "options": {
            "host": "127.0.0.1", "port": 0, "preload": ["dflow.dashboard"], **tls,
            # The scheduler always serves HTTP (health, metrics); without a dashboard, on
            # any free port rather than 8787, which another cluster may hold.
            "dashboard": self._dashboard, "dashboard_address": dashboard_address if self._dashboard else ":0"}}
        with dask.config.set({**SCHEDULER_CONFIG, **_worker_process_environ()}):
            self._cluster = _task_cluster_class()(workers=specs, scheduler=scheduler, silence_logs=logging.WARN,
                                        name="dflow.LocalCluster", security=self.security)
        if self.security is not None:
            from dflow.cluster.security import set_security

            set_security(self.security, self._cluster.scheduler_address)  # tf.Session(cluster.target) finds it
        self.restarted_tasks: list = []  # (time, task name) of each task the supervisor started again
        if self.processes:
            self._start_supervisor()

    # -- keeping every task up ------------------------------------------------------------
    def _start_supervisor(self) -> None:
        """Every ``SUPERVISE_S`` on the cluster's event loop: a task whose nanny gave up is started again.

        A nanny restarts a worker process that dies, except one killed between joining the
        scheduler and reporting to its nanny: then the nanny closes itself ("Worker failed to
        connect", Dask's ``Nanny.instantiate``), ``SpecCluster`` drops it, and the task would stay
        gone. Seen in the chaos drill (benchmarks/chaos_drill.py) about once in ten quick kills
        of one task."""
        from tornado.ioloop import PeriodicCallback

        cluster = self._cluster
        healing: set = set()

        async def heal(name):
            try:
                cluster.workers.pop(name, None)
                await cluster._correct_state()
                self.restarted_tasks.append((time.time(), name))
            except Exception as e:  # noqa: BLE001 - the next tick tries again
                _log.warning("dflow.LocalCluster could not start %s again: %s", name, e)
            finally:
                healing.discard(name)

        def tick():
            from distributed.core import Status

            if self._cluster is not cluster or cluster.status != Status.running:
                return
            for name in list(cluster.worker_spec):
                worker = cluster.workers.get(name)
                if name not in healing and (worker is None or worker.status in (Status.closed, Status.failed)):
                    healing.add(name)
                    _log.warning("dflow.LocalCluster: %s has no worker process and no nanny restarting one; "
                                 "starting the task again.", name)
                    asyncio.ensure_future(heal(name))

        self._supervisor = PeriodicCallback(tick, SUPERVISE_S * 1000)
        cluster.loop.add_callback(self._supervisor.start)

    # -- what sessions and users need ----------------------------------------------------
    @property
    def scheduler_address(self) -> str:
        """The scheduler's address, ``tcp://127.0.0.1:PORT`` (``tls://`` with ``security``)."""
        return self._live().scheduler_address

    @property
    def target(self) -> str:
        """What ``tf.Session(target)`` needs: the scheduler's address."""
        return self.scheduler_address

    @property
    def dashboard_link(self) -> str | None:
        """The dashboard's URL, or ``None`` when it is disabled."""
        return (self._live().dashboard_link or None) if self._dashboard else None

    @property
    def dflow_link(self) -> str | None:
        """The URL of the dashboard's ``/dflow`` page (sessions, placement, variables, queues,
        graph), or ``None`` when the dashboard is disabled."""
        link = self.dashboard_link
        if link is None:
            return None
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(link)
        return urlunsplit((parts.scheme, parts.netloc, "/dflow", "", ""))

    @property
    def worker_addresses(self) -> dict:
        """Worker name -> its current address (a restarted worker process has a new port)."""
        out = {}
        for name, w in self._live().workers.items():
            out[name] = getattr(w, "worker_address", None) or w.address
        return out

    @property
    def cluster_spec(self) -> ClusterSpec:
        """The tasks as a ``tf.train.ClusterSpec`` of ``host:port`` addresses.

        It lists the TF1 jobs only, ``ps`` and ``worker``, as TF1 users compare
        them (``jobs``, ``as_dict()``, ``num_tasks``); the Dask scheduler is no
        TF job and rides along as ``spec.scheduler``, so
        ``tf.train.Server(cluster.cluster_spec, job_name="worker", task_index=2)``
        joins this cluster as one more task.
        """
        addresses = self.worker_addresses
        spec: dict = {}
        for job, count in (("ps", self.ps), ("worker", self.workers)):
            if count:
                spec[job] = [strip_protocol(addresses[worker_name(job, i)]) for i in range(count)]
        return ClusterSpec(spec, scheduler=self.scheduler_address)

    def client(self, **kwargs):
        """A new ``distributed.Client`` connected to this cluster."""
        from distributed import Client

        kwargs.setdefault("security", self.security)
        return Client(self.scheduler_address, **kwargs)

    # -- lifetime -------------------------------------------------------------------------
    def close(self, timeout: float | None = None) -> None:
        """Stops the workers and the scheduler; calling it again does nothing."""
        cluster, self._cluster = self._cluster, None
        supervisor = getattr(self, "_supervisor", None)
        if cluster is not None and supervisor is not None:
            cluster.loop.add_callback(supervisor.stop)
        if cluster is not None:
            if self.security is not None:
                from dflow.cluster.security import set_security

                set_security(None, cluster.scheduler_address)
            cluster.close(timeout=timeout)

    @property
    def closed(self) -> bool:
        return self._cluster is None

    def _live(self):
        if self._cluster is None:
            raise RuntimeError("This LocalCluster is closed.")
        return self._cluster

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown: nothing left to report to
            pass

    def __repr__(self):
        where = "closed" if self._cluster is None else self._cluster.scheduler_address
        return (f"<dflow.LocalCluster {where}: ps={self.ps}, workers={self.workers}, "
                f"gpus_per_worker={self.gpus_per_worker}>")


@tf_export("cluster_target")
@contextlib.contextmanager
def cluster_target(scheduler: str | None = None, ps: int = 1, workers: int = 2, **kwargs):
    """A session target: ``scheduler`` (a running cluster's address) if given,
    else a ``LocalCluster(ps, workers, **kwargs)`` started here and closed on exit.

    What a script's ``--scheduler`` option wants::

        with dflow.cluster_target(args.scheduler, workers=2) as target:
            with tf.Session(target) as sess: ...
    """
    if scheduler:
        yield scheduler
        return
    kwargs.setdefault("dashboard_address", None)
    with LocalCluster(ps=ps, workers=workers, **kwargs) as cluster:
        yield cluster.target


def visible_gpus() -> list[str] | None:
    """The GPU ids this process may use, without importing CuPy; ``None`` when unknown.

    ``CUDA_VISIBLE_DEVICES`` when it is set, else the GPUs ``nvidia-smi -L`` lists.
    """
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return [d.strip() for d in env.split(",") if d.strip()]
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return [str(i) for i, _ in enumerate(line for line in out.splitlines() if line.startswith("GPU "))]


def _deal_gpus(workers: int, per_worker: int) -> list[str] | None:
    """``CUDA_VISIBLE_DEVICES`` of each worker task: the visible GPUs dealt round-robin.

    ``None`` (every worker sees every GPU) when the GPUs are unknown or fewer
    than one worker asks for.
    """
    if per_worker <= 0:
        return None
    gpus = visible_gpus()
    if not gpus or per_worker > len(gpus):
        return None
    return [",".join(gpus[(task * per_worker + j) % len(gpus)] for j in range(per_worker))
            for task in range(workers)]
