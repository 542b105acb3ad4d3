"""Request batching, as TF Serving's: concurrent requests joined along axis 0 into one run, then split back.

A ``Batcher`` lives on the server's IOLoop. Each ``:predict`` job whose
inputs all have a leading batch dimension joins the open batch of its key
(version, signature, outputs, and each feed's dtype and trailing shape, so
the feeds concatenate). A batch is closed when it holds ``max_batch_size``
rows; ``num_batch_threads`` consumers take the closed batches first, then
any open batch that is ``batch_timeout_micros`` old. So with the timeout at
0 (TF Serving's default) an idle server runs a request at once, and requests
that arrive while every consumer is busy wait together in one batch.
``max_enqueued_batches`` bounds the batches waiting: beyond it a request is
refused with 503 (TF Serving: UNAVAILABLE). A job of more rows than
``max_batch_size``, or one without a batch dimension, runs alone.

The batch's outputs are split back by each job's rows when every output has
the batch's rows as its leading dimension; otherwise, and when the joined run
fails on a bad value, each job runs alone, so one bad request fails only
itself.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from dflow.serving.predictor import Job, RequestError


@dataclass(frozen=True)
class BatchingParameters:
    """TF Serving's batching parameters (its ``--batching_parameters_file`` fields, same names and meaning)."""

    max_batch_size: int
    batch_timeout_micros: int = 0
    num_batch_threads: int = field(default_factory=lambda: os.cpu_count() or 1)
    max_enqueued_batches: int = 100

    def __post_init__(self):
        for name, least in (("max_batch_size", 1), ("batch_timeout_micros", 0), ("num_batch_threads", 1),
                            ("max_enqueued_batches", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                flag = "--" + name.replace("_", "-")
                raise ValueError(f"dflow serve: {flag} must be an integer >= {least}, got {value!r}")


def deadline_exceeded(what: str) -> RequestError:
    """TF's DEADLINE_EXCEEDED as TF Serving's REST API answers it: HTTP 504."""
    return RequestError(f"DEADLINE_EXCEEDED: {what}", 504)


def run_jobs(servable, jobs: list[Job], deadline: float | None) -> list:
    """Runs ``jobs`` (of one batch key) on ``servable`` as one run; a list of outputs or exceptions, by job."""
    if deadline is not None and time.monotonic() >= deadline:
        return [deadline_exceeded("the request's deadline passed before it ran")] * len(jobs)
    first = jobs[0]
    if len(jobs) == 1:
        return [_run_alone(servable, first, deadline)]
    feeds = {k: np.concatenate([job.feeds[k] for job in jobs]) for k in first.feeds}
    total = sum(job.rows for job in jobs)
    try:
        out = servable.run(first.signature_key, feeds, first.output_keys, deadline)
    except RequestError as e:
        if e.status != 400:
            return [e] * len(jobs)
        out = None  # one job's value failed the run: find which by running each alone
    if out is None or not all(np.ndim(v) and np.shape(v)[0] == total for v in out.values()):
        return [_run_alone(servable, job, deadline) for job in jobs]
    ends = np.cumsum([job.rows for job in jobs])[:-1]
    pieces = {k: np.split(np.asarray(v), ends) for k, v in out.items()}
    return [{k: pieces[k][i] for k in out} for i in range(len(jobs))]


def _run_alone(servable, job: Job, deadline):
    try:
        return servable.run(job.signature_key, job.feeds, job.output_keys, deadline)
    except Exception as e:  # noqa: BLE001 - handed to the job's request, which answers with it
        return e


class _Batch:
    __slots__ = ("servable", "key", "tasks", "rows", "opened")

    def __init__(self, servable, key):
        self.servable, self.key, self.tasks, self.rows, self.opened = servable, key, [], 0, time.monotonic()


class Batcher:
    """Joins concurrent jobs into batches and runs them on ``executor``; use from the IOLoop's thread only."""

    def __init__(self, params: BatchingParameters, executor):
        self.params = params
        self.executor = executor
        self._open: dict = {}
        self._closed: deque = deque()
        self._wake: asyncio.Event | None = None
        self._consumers: list = []
        self.batches = 0  # batches run, for status and tests

    def start(self) -> None:
        self._wake = asyncio.Event()
        self._consumers = [asyncio.ensure_future(self._consume()) for _ in range(self.params.num_batch_threads)]

    async def stop(self) -> None:
        for consumer in self._consumers:
            consumer.cancel()
        await asyncio.gather(*self._consumers, return_exceptions=True)

    def accepts(self, job: Job) -> bool:
        return job.rows is not None and job.rows <= self.params.max_batch_size

    def submit(self, servable, job: Job, deadline: float | None) -> asyncio.Future:
        """A future of ``job``'s outputs once its batch has run (an exception set on it if it failed)."""
        key = (id(servable), job.signature_key, job.output_keys,
               tuple((k, a.dtype.str, a.shape[1:]) for k, a in sorted(job.feeds.items())))
        batch = self._open.get(key)
        if batch is not None and batch.rows + job.rows > self.params.max_batch_size:
            self._close(batch)
            batch = None
        if batch is None:
            if len(self._open) + len(self._closed) >= self.params.max_enqueued_batches:
                raise RequestError(f"UNAVAILABLE: the batch queue is full ({self.params.max_enqueued_batches} "
                                   f"batches waiting, --max-enqueued-batches); retry later", 503)
            batch = self._open[key] = _Batch(servable, key)
        future = asyncio.get_running_loop().create_future()
        batch.tasks.append((job, deadline, future))
        batch.rows += job.rows
        if batch.rows >= self.params.max_batch_size:
            self._close(batch)
        self._wake.set()
        return future

    def _close(self, batch: _Batch) -> None:
        del self._open[batch.key]
        self._closed.append(batch)

    def _take(self) -> tuple[_Batch | None, float | None]:
        """The next batch to run, else ``None`` and how long until an open one is due."""
        if self._closed:
            return self._closed.popleft(), None
        timeout = self.params.batch_timeout_micros / 1e6
        now = time.monotonic()
        due = None
        for batch in self._open.values():
            if now >= batch.opened + timeout:
                del self._open[batch.key]
                return batch, None
            due = min(due, batch.opened + timeout - now) if due is not None else batch.opened + timeout - now
        return None, due

    async def _consume(self) -> None:
        while True:
            batch, due = self._take()
            if batch is None:
                self._wake.clear()
                try:
                    await asyncio.wait_for(self._wake.wait(), due)
                except asyncio.TimeoutError:
                    pass
                continue
            await self._run(batch)

    async def _run(self, batch: _Batch) -> None:
        now = time.monotonic()
        live = []
        for job, deadline, future in batch.tasks:
            if future.done():  # its request gave up (deadline) while it waited
                continue
            if deadline is not None and now >= deadline:
                future.set_exception(deadline_exceeded("the request's deadline passed while it waited in a batch"))
                continue
            live.append((job, deadline, future))
        if not live:
            return
        deadlines = [d for _, d, _ in live]
        deadline = None if None in deadlines else max(deadlines)
        self.batches += 1
        try:
            results = await asyncio.get_running_loop().run_in_executor(
                self.executor, run_jobs, batch.servable, [job for job, _, _ in live], deadline)
        except Exception as e:  # noqa: BLE001 - every request of the batch gets the failure
            results = [e] * len(live)
        for (_, _, future), result in zip(live, results):
            if future.done():
                continue
            if isinstance(result, BaseException):
                future.set_exception(result)
            else:
                future.set_result(result)
