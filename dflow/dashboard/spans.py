"""The worker side: one span per partition a direct run executes, sent to the scheduler in batches.

Recording costs one attribute check per run while nobody watches. A
periodic callback on the worker's event loop asks the scheduler whether the
task stream is watched (every second) and flushes recorded spans (every
100 ms, only when there are some). Sessions start the recorder only on
workers whose scheduler has dflow's extension; one that answers without it
switches the recorder off for good.
"""

from __future__ import annotations

import collections
import logging
import threading
import time

_log = logging.getLogger("dflow.dashboard")

FLUSH_S = 0.1
POLL_S = 1.0
_MAX_PENDING = 10_000


class SpanRecorder:
    """Spans of this worker's direct runs, pending until the next flush."""

    def __init__(self):
        self.watching = False
        self.disabled = False
        self.worker_address = None
        self._pending: collections.deque = collections.deque(maxlen=_MAX_PENDING)
        self._started = False
        self._lock = threading.Lock()

    def record(self, name: str, start: float, stop: float, ok: bool) -> None:
        """One finished partition named after its op: a tuple here (cheap to make and to send);
        the scheduler turns it into a task-stream record."""
        self._pending.append((name, start, stop, ok, threading.get_ident()))

    def start(self, dask_worker) -> None:
        """Starts polling and flushing on ``dask_worker``'s event loop (once per process)."""
        with self._lock:
            if self._started or dask_worker is None:
                return
            self._started = True
        self.worker_address = dask_worker.address
        from tornado.ioloop import PeriodicCallback

        state = {"last_poll": 0.0}

        async def tick():
            if self.disabled:
                callback.stop()
                return
            now = time.monotonic()
            try:
                if now - state["last_poll"] >= POLL_S:
                    state["last_poll"] = now
                    answer = await dask_worker.scheduler.dflow_watching()
                    if answer is None:  # no such handler: not a scheduler with dflow's extension
                        raise KeyError("dflow_watching")
                    self.watching = bool(answer)
                    if not self.watching:
                        self._pending.clear()
                if self._pending:
                    batch = list(self._pending)
                    self._pending.clear()
                    await dask_worker.scheduler.dflow_spans(worker=self.worker_address, spans=batch)
            except Exception as e:  # noqa: BLE001 - a scheduler without dflow's extension
                if "dflow_" in str(e) or isinstance(e, (KeyError, AttributeError)):
                    self.disabled = True
                    self.watching = False
                    _log.debug("dflow spans off: the scheduler has no dflow extension (%s)", e)

        callback = PeriodicCallback(tick, FLUSH_S * 1000)
        dask_worker.periodic_callbacks["dflow-spans"] = callback
        callback.start()


RECORDER = SpanRecorder()
