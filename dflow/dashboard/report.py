"""The client side of the ``/dflow`` page: what a cluster session tells the scheduler.

A ``SessionReporter`` belongs to one ``ClusterRuntime`` (one ``tf.Session``
on a cluster). Each run adds its duration to a small ring (and its error, if
it failed); at most once a second a report goes to the scheduler's dflow
extension (``dflow_session_report``). The report is sent from the Dask
client's own event loop (``IOLoop.add_callback``, fire and forget): a run
never waits for it, and no thread is started. A run that comes while a
report is on its way only adds to the ring; a report that is due later is
sent from the loop after the rest of the second, so the last runs of a
session always arrive.

The graph of the last run (its ops, devices, edges and partitions) travels
only when the plan changes.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import secrets
import socket
import threading
import time

REPORT_S = 1.0
_MAX_GRAPH_OPS = 20_000
_log = logging.getLogger("dflow.dashboard")


def graph_doc(partitions) -> dict:
    """The page's view of a plan: ops (name, type, device, partition), edges between
    them (``cut`` when their ends are on different devices) and partitions."""
    device_of, nodes = {}, []
    for i, p in enumerate(partitions):
        for op in p.ops:
            device_of[op.name] = p.device
            if len(nodes) < _MAX_GRAPH_OPS:
                nodes.append({"name": op.name, "type": op.type, "device": p.device, "partition": i})
    edges = []
    for p in partitions:
        for op in p.ops:
            for src in [t.op.name for t in op.inputs] + [c.name for c in op.control_inputs]:
                if src in device_of:
                    edges.append([src, op.name, device_of[src] != p.device])
    return {"ops": len(device_of), "truncated": len(device_of) > len(nodes), "nodes": nodes,
            "edges": edges, "cut_edges": sum(e[2] for e in edges),
            "partitions": [{"name": p.name, "device": p.device, "ops": len(p.ops), "upstream": list(p.upstream)}
                           for p in partitions]}


def trace_doc(when: float, partitions, stats, top: int = 50) -> dict:
    """The slowest ops of a traced run (``RunOptions(trace_level=FULL_TRACE)``): name, type,
    device and milliseconds, slowest first, and the run's span from first start to last end.
    ``stats``: per partition, ``(op position, start_ns, end_ns[, outputs])`` records (the
    outputs' descriptions, ``program.describe``, are not shown here)."""
    ops, first, last = [], None, None
    for p, part_stats in zip(partitions, stats):
        for i, t0, t1, *_ in part_stats:
            op = p.ops[i]
            ops.append({"name": op.name, "type": op.type, "device": p.device, "ms": (t1 - t0) / 1e6})
            first = t0 if first is None else min(first, t0)
            last = t1 if last is None else max(last, t1)
    ops.sort(key=lambda o: -o["ms"])
    return {"time": when, "ops_traced": len(ops), "span_ms": (last - first) / 1e6 if ops else 0.0,
            "slowest": ops[:top]}


class SessionReporter:
    """One cluster session's runs, reported to the scheduler at most every ``REPORT_S``."""

    def __init__(self, client, session_id: str | None = None):
        self.client = client
        self.id = session_id or secrets.token_hex(6)
        self.enabled = True
        self.runs = 0
        self.errors = 0
        self.last_error = None
        self.sent = 0  # reports that reached the scheduler
        self._started = time.time()
        self._times: collections.deque = collections.deque(maxlen=256)  # (end time, seconds) since the last report
        self._lock = threading.Lock()
        self._pending = False  # a report is on its way (scheduled on the client's loop)
        self._next_at = 0.0  # monotonic time the next report may go
        self._plan = None  # the partitions of the last run
        self._graph_plan = None  # the partitions whose graph the scheduler has
        self._last = (self._started, 0)  # (time, runs) of the last report
        self._trace = None  # (time, partitions, step stats) of the last traced run, until reported

    def ran(self, partitions, seconds: float, error: BaseException | None = None, stats=None) -> None:
        """Records one run (called by the session's thread after each run); ``stats``: a traced
        run's ``(op position, start_ns, end_ns, outputs)`` lists, one per partition (``RunOptions(FULL_TRACE)``)."""
        if stats is not None:
            self._trace = (time.time(), partitions, stats)
        with self._lock:
            self.runs += 1
            self._times.append((time.time(), seconds))
            if error is not None:
                self.errors += 1
                self.last_error = f"{type(error).__name__}: {error}"[:2000]
        self._plan = partitions
        if self._pending or not self.enabled:
            return
        self._pending = True
        try:
            self.client.loop.add_callback(self._send, self._next_at - time.monotonic())
        except Exception:  # noqa: BLE001 - a closing client: nothing more to report
            self._pending = False

    def report(self, closed: bool = False) -> dict:
        """The report as it stands now (and resets the ring of step times)."""
        now = time.time()
        with self._lock:
            times, runs = list(self._times), self.runs
            self._times.clear()
            errors, last_error = self.errors, self.last_error
        t0, runs0 = self._last
        self._last = (now, runs)
        out = {"id": self.id, "host": socket.gethostname(), "pid": os.getpid(), "started": self._started,
               "time": now, "runs": runs, "errors": errors, "last_error": last_error, "closed": closed,
               "steps_per_s": (runs - runs0) / max(now - t0, 1e-6), "step_times": times}
        trace, self._trace = self._trace, None
        if trace is not None:
            out["trace"] = trace_doc(*trace)
        plan = self._plan
        if plan is not None and plan is not self._graph_plan:
            out["graph"] = graph_doc(plan)
            self._graph_plan = plan
        return out

    async def _send(self, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        self._pending = False
        self._next_at = time.monotonic() + REPORT_S
        await self._deliver(self.report())

    async def _deliver(self, report: dict) -> None:
        try:
            answer = await self.client.scheduler.dflow_session_report(report=report)
        except Exception as e:  # noqa: BLE001 - monitoring never fails a session
            answer = None
            _log.debug("dflow session report not delivered: %s", e)
        if answer is None:  # a scheduler without dflow's extension (or gone): stop reporting
            self.enabled = False
            if report.get("graph") is not None:
                self._graph_plan = None
        else:
            self.sent += 1

    def close(self) -> None:
        """Sends the last report (marked closed), waiting at most a second; for ``Session.close``."""
        if not self.enabled or self.client.status not in ("running", "connecting"):
            return
        try:
            self.client.sync(self._deliver, self.report(closed=True), callback_timeout=1.0)
        except Exception as e:  # noqa: BLE001
            _log.debug("dflow session report not delivered at close: %s", e)
