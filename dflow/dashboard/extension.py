"""The scheduler side of dflow's monitoring: direct runs' spans into Dask's task stream,
and the state behind the ``/dflow`` page.

Workers ask ``dflow_watching`` about once a second (is Dask's task-stream
plugin installed, i.e. has a dashboard page or ``get_task_stream`` asked for
it?) and, while it is, send their spans with ``dflow_spans``. The spans go
into the plugin's buffer as the records of finished tasks Dask itself puts
there, so every consumer of the task stream (the dashboard's Task Stream and
Status pages, ``Client.get_task_stream``) shows them.

For the ``/dflow`` page (``http.py``) the extension keeps what cluster
sessions report (``dflow_session_report``, see ``report.py``), follows the
workers joining and leaving (a ``SchedulerPlugin``: a worker that leaves is
kept, shown lost, for ``LOST_KEEP_S``), and asks the workers for their
variables and queues (the ``dflow_resources`` handler) when a page asks.
"""

from __future__ import annotations

import asyncio
import collections
import time

from distributed.diagnostics.plugin import SchedulerPlugin
from distributed.diagnostics.task_stream import TaskStreamPlugin

SESSION_KEEP_S = 900.0  # sessions not heard of for this long leave the page
MAX_SESSIONS = 200  # and beyond this many, the ones heard of least recently
LOST_KEEP_S = 600.0
ACTIVE_S = 5.0  # a session that reported within this is running
_HISTORY = 300  # steps/s points per session (one a second: five minutes)
_STEP_TIMES = 256
_RESOURCES_TIMEOUT_S = 5.0


class DflowExtension:
    """Registered as ``scheduler.extensions["dflow"]``."""

    def __init__(self, scheduler):
        self.scheduler = scheduler
        self.spans_received = 0
        self._span_ids = 0
        scheduler.handlers["dflow_spans"] = self.add_spans
        scheduler.handlers["dflow_watching"] = self.watching
        scheduler.handlers["dflow_session_report"] = self.session_report
        scheduler.handlers["dflow_departed_devices"] = self.departed_devices
        scheduler.stream_handlers["dflow_resources_ready"] = self.resources_ready
        scheduler.extensions["dflow"] = self
        self.resource_workers: set = set()  # workers with the dflow_resources handler (they ran a dflow graph)
        self.sessions: dict = {}  # session id -> what it reported (see session_report)
        self.lost: dict = {}  # address -> the worker's row, with "lost_at"
        self._served: dict = {}  # address -> the worker's row as last seen (devices, name, host, ...)
        scheduler.add_plugin(_WorkerWatch(self), name="dflow-workers")
        self._refresh_workers()
        from dflow.dashboard import http

        http.add_routes(scheduler, self)

    def _plugin(self) -> TaskStreamPlugin | None:
        return self.scheduler.plugins.get(TaskStreamPlugin.name)

    def watching(self, comm=None) -> bool:
        """Whether anybody watches the task stream (its plugin exists)."""
        return self._plugin() is not None

    def add_spans(self, comm=None, worker=None, spans=()) -> int:
        """Appends ``worker``'s finished partitions, ``(op name, start, stop, ok, thread)`` each, to
        the task stream as the records Dask makes of finished tasks (keys ``<op name>-<n>``)."""
        plugin = self._plugin()
        if plugin is None:
            return 0
        buffer = plugin.buffer
        n = self._span_ids
        for name, start, stop, ok, thread in spans:
            buffer.append({"key": f"{name}-{n:x}", "worker": worker, "status": "OK" if ok else "error",
                           "thread": thread, "nbytes": 0, "type": None,
                           "startstops": ({"action": "compute", "start": start, "stop": stop},)})
            n += 1
        self._span_ids = n
        plugin.index += len(spans)
        self.spans_received += len(spans)
        return len(spans)

    # -- sessions ------------------------------------------------------------------------
    def session_report(self, comm=None, report=None) -> bool:
        """A cluster session's report (``report.SessionReporter.report``)."""
        now = time.time()
        sid = str(report["id"])
        entry = self.sessions.get(sid)
        if entry is None:
            entry = self.sessions[sid] = {
                "id": sid, "host": report.get("host"), "pid": report.get("pid"), "started": report.get("started"),
                "address": getattr(comm, "peer_address", None), "graph": None, "graph_version": 0,
                "history": collections.deque(maxlen=_HISTORY), "step_times": collections.deque(maxlen=_STEP_TIMES)}
        times = [(float(t), float(s)) for t, s in report.get("step_times", ())]
        entry["step_times"].extend(times)
        step_ms = 1000.0 * sum(s for _, s in times) / len(times) if times else None
        entry["history"].append((now, float(report.get("steps_per_s", 0.0)), step_ms))
        for k in ("runs", "errors", "last_error", "closed", "steps_per_s"):
            entry[k] = report.get(k)
        entry["last_seen"] = now
        if report.get("trace") is not None:
            entry["trace"] = report["trace"]
        if report.get("graph") is not None:
            entry["graph"] = report["graph"]
            entry["graph_version"] += 1
        stale = [k for k, v in self.sessions.items() if now - v["last_seen"] > SESSION_KEEP_S]
        if len(self.sessions) - len(stale) > MAX_SESSIONS:
            by_age = sorted(self.sessions, key=lambda k: self.sessions[k]["last_seen"])
            stale += by_age[:len(self.sessions) - MAX_SESSIONS]
        for old in set(stale):
            del self.sessions[old]
        return True

    def session_rows(self) -> list:
        now = time.time()
        rows = []
        for e in sorted(self.sessions.values(), key=lambda e: -e["last_seen"]):
            graph = e["graph"] or {}
            active = not e.get("closed") and now - e["last_seen"] < ACTIVE_S
            last_ms = [h[2] for h in e["history"] if h[2] is not None][-1:]
            rows.append({"id": e["id"], "host": e["host"], "pid": e["pid"], "address": e["address"],
                         "started": e["started"], "last_seen": e["last_seen"], "active": active,
                         "closed": bool(e.get("closed")), "runs": e.get("runs", 0), "errors": e.get("errors", 0),
                         "last_error": e.get("last_error"), "steps_per_s": e.get("steps_per_s", 0.0) if active else 0.0,
                         "step_ms": last_ms[0] if last_ms else None, "graph_ops": graph.get("ops", 0),
                         "partitions": len(graph.get("partitions", ())), "cut_edges": graph.get("cut_edges", 0),
                         "graph_version": e["graph_version"]})
        return rows

    def session_detail(self, sid: str) -> dict | None:
        e = self.sessions.get(sid)
        if e is None:
            return None
        row = next(r for r in self.session_rows() if r["id"] == sid)
        row["history"] = [{"time": t, "steps_per_s": v, "step_ms": ms} for t, v, ms in e["history"]]
        row["step_times"] = [{"time": t, "seconds": s} for t, s in e["step_times"]]
        graph = e["graph"] or {}
        row["partition_list"] = graph.get("partitions", [])
        row["trace"] = e.get("trace")  # the last RunOptions(FULL_TRACE) run's slowest ops, or None
        return row

    def graph(self, sid: str | None = None, search: str | None = None, limit: int = 2000) -> dict | None:
        """The graph of ``sid``'s last run (default: the session that reported one last),
        its ops filtered by ``search`` (a case-insensitive substring of op names)."""
        if sid is None:
            with_graph = [e for e in self.sessions.values() if e["graph"]]
            if not with_graph:
                return {"session": None, "ops": 0, "nodes": [], "edges": [], "partitions": [], "cut_edges": 0,
                        "matched": 0, "truncated": False, "devices": []}
            sid = max(with_graph, key=lambda e: e["last_seen"])["id"]
        e = self.sessions.get(sid)
        if e is None:
            return None
        graph = e["graph"] or {"ops": 0, "nodes": [], "edges": [], "partitions": [], "cut_edges": 0}
        nodes = graph["nodes"]
        if search:
            needle = search.lower()
            nodes = [n for n in nodes if needle in n["name"].lower()]
        matched = len(nodes)
        nodes = nodes[:limit]
        names = {n["name"] for n in nodes}
        edges = [{"from": a, "to": b, "cut": cut} for a, b, cut in graph["edges"] if a in names and b in names]
        return {"session": sid, "version": e["graph_version"], "ops": graph["ops"], "matched": matched,
                "truncated": matched > len(nodes) or bool(graph.get("truncated")), "nodes": nodes, "edges": edges,
                "cut_edges": graph["cut_edges"], "partitions": graph["partitions"],
                "devices": sorted({p["device"] for p in graph["partitions"]})}

    # -- placement -----------------------------------------------------------------------
    def _refresh_workers(self) -> None:
        from dflow.placement.device_map import full_device_names, map_devices, worker_for_device

        workers = dict(self.scheduler.workers)
        mapping = map_devices([(a, ws.name, dict(ws.resources or {})) for a, ws in workers.items()]) \
            if workers else None
        served: dict = {a: [] for a in workers}
        if mapping is not None:
            for device in full_device_names(mapping):
                served.setdefault(worker_for_device(mapping, device), []).append(device)
        self._served = {a: {"worker": a, "name": str(ws.name), "host": ws.host, "devices": served.get(a, []),
                            "memory_limit": ws.memory_limit, "nthreads": ws.nthreads}
                        for a, ws in workers.items()}

    def worker_added(self, address: str) -> None:
        self.lost.pop(address, None)
        self._refresh_workers()

    def resources_ready(self, worker=None) -> None:
        self.resource_workers.add(worker)

    def worker_removed(self, address: str) -> None:
        self.resource_workers.discard(address)
        row = self._served.get(address)
        if row is not None:
            self.lost[address] = dict(row, lost_at=time.time())
        self._refresh_workers()

    def departed_devices(self, comm=None) -> list:
        """The devices of workers lost in the last ``LOST_KEEP_S`` that no worker serves now:
        tasks a nanny is restarting, which a new session waits for rather than failing placement."""
        now = time.time()
        served = {d for row in self._served.values() for d in row["devices"]}
        return sorted({d for row in self.lost.values() if now - row["lost_at"] <= LOST_KEEP_S
                       for d in row["devices"] if d not in served})

    def placement_rows(self) -> list:
        """One row per device: its worker, host, memory, alive, and the ops and partitions
        the sessions' last runs put there."""
        self._refresh_workers()
        now = time.time()
        for a in [a for a, r in self.lost.items() if now - r["lost_at"] > LOST_KEEP_S]:
            del self.lost[a]
        load: dict = {}
        for e in self.sessions.values():
            for p in (e["graph"] or {}).get("partitions", ()):
                ops, parts = load.get(p["device"], (0, 0))
                load[p["device"]] = (ops + p["ops"], parts + 1)
        rows = []
        for address, info in self._served.items():
            ws = self.scheduler.workers.get(address)
            memory = (ws.metrics or {}).get("memory") if ws is not None else None
            for device in info["devices"]:
                ops, parts = load.get(device, (0, 0))
                rows.append({"device": device, "worker": address, "worker_name": info["name"], "host": info["host"],
                             "memory": memory, "memory_limit": info["memory_limit"], "nthreads": info["nthreads"],
                             "alive": ws is not None, "lost_at": None, "ops": ops, "partitions": parts})
        for address, info in self.lost.items():
            for device in info["devices"]:
                ops, parts = load.get(device, (0, 0))
                rows.append({"device": device, "worker": address, "worker_name": info["name"], "host": info["host"],
                             "memory": None, "memory_limit": info["memory_limit"], "nthreads": info["nthreads"],
                             "alive": False, "lost_at": info["lost_at"], "ops": ops, "partitions": parts})
        return sorted(rows, key=lambda r: (not r["alive"], r["device"].startswith("/job:worker"), r["device"]))

    def _task_of(self, address: str) -> str | None:
        info = self._served.get(address)
        if info is None or not info["devices"]:
            return None
        return info["devices"][0].rsplit("/device:", 1)[0]

    # -- variables and queues ------------------------------------------------------------
    async def resources(self) -> tuple[list, list]:
        """Every worker's variables and queues, each row with its device and worker."""
        try:
            replies = await asyncio.wait_for(
                self.scheduler.broadcast(msg={"op": "dflow_resources"}, on_error="ignore",
                                         workers=[w for w in self.resource_workers if w in self.scheduler.workers]),
                _RESOURCES_TIMEOUT_S)
        except asyncio.TimeoutError:
            replies = {}
        variables, queues = [], []
        for address, reply in replies.items():
            if not isinstance(reply, dict) or "dflow" not in reply:
                continue  # a worker that has run no dflow graph yet (no handler)
            task = self._task_of(address) or address
            for v in reply["variables"]:
                device = v["device"] or f"{task}/device:{'GPU' if v['gpu'] else 'CPU'}:0"
                variables.append(dict(v, device=device, worker=address))
            for q in reply["queues"]:
                queues.append(dict(q, device=q.get("device") or f"{task}/device:CPU:0", worker=address))
        variables.sort(key=lambda r: (r["name"], r["device"]))
        queues.sort(key=lambda r: (r["name"], r["device"]))
        return variables, queues


class _WorkerWatch(SchedulerPlugin):
    """Tells the extension when workers join and leave."""

    name = "dflow-workers"

    def __init__(self, ext: DflowExtension):
        self.ext = ext

    def add_worker(self, scheduler=None, worker=None, **kwargs) -> None:
        self.ext.worker_added(worker)

    def remove_worker(self, scheduler=None, worker=None, **kwargs) -> None:
        self.ext.worker_removed(worker)
