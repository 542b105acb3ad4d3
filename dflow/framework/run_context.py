"""The context of one ``Session.run``: its deadlines and its cancellation.

Kernels that may block (a dequeue on an empty queue, an enqueue on a full
one, a mutex) are registered with ``uses_context=True`` and receive the
run's ``RunContext`` as their first argument. They wait with
``ctx.wait(condition, ready, what)``, which returns once ``ready()`` holds and
raises ``DeadlineExceededError`` when the run's deadline
(``RunOptions.timeout_in_ms``) or the op's deadline
(``ConfigProto.operation_timeout_in_ms``) passes, or ``CancelledError`` when
the run is cancelled (another partition failed, or the session closed).
The waiting op changes nothing it guards, so the queue stays usable.

Deadlines are wall-clock times so that a context can travel to a Dask
worker with the task that needs it.
"""

from __future__ import annotations

import threading
import time

from dflow.framework import errors

# How often a waiting op wakes up to look for cancellation.
_POLL_S = 0.02


class RunContext:
    """Deadlines (epoch seconds, or None) and a cancellation flag for one run."""

    __slots__ = ("deadline", "op_timeout_s", "_cancelled", "reason", "seceding")

    def __init__(self, timeout_ms: int = 0, op_timeout_ms: int = 0):
        self.deadline = time.time() + timeout_ms / 1000.0 if timeout_ms and timeout_ms > 0 else None
        self.op_timeout_s = op_timeout_ms / 1000.0 if op_timeout_ms and op_timeout_ms > 0 else None
        # A plain flag: waiting ops poll it every _POLL_S, so no Event is needed
        # (creating one costs more than the rest of a short run's context).
        self._cancelled = False
        self.reason = ""
        # On a Dask worker, a blocked op secedes from the worker's thread pool
        # so that other tasks (the enqueue it waits for) can run.
        self.seceding = False

    def cancel(self, reason: str = "the run was cancelled") -> None:
        self.reason = reason
        self._cancelled = True

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def check(self, what: str) -> None:
        """Raises if the run was cancelled or its deadline passed."""
        if self._cancelled:
            raise errors.CancelledError(None, None, f"{what}: {self.reason}")
        if self.deadline is not None and time.time() >= self.deadline:
            raise errors.DeadlineExceededError(None, None, f"{what}: the run's deadline (RunOptions.timeout_in_ms) "
                                                           f"expired")

    def wait(self, condition: threading.Condition, ready, what: str) -> None:
        """Waits, holding ``condition``, until ``ready()``; raises on deadline or cancellation.

        ``condition`` must be held by the caller (``with condition:``), as for
        ``Condition.wait``; whoever makes ``ready()`` true must ``notify`` it.
        """
        if ready():
            return
        op_deadline = time.time() + self.op_timeout_s if self.op_timeout_s is not None else None
        if self.seceding:
            from distributed import rejoin, secede

            secede()
            try:
                self._wait(condition, ready, what, op_deadline)
            finally:
                # rejoin() may block until a thread is free: do not hold the condition meanwhile.
                condition.release()
                try:
                    rejoin()
                finally:
                    condition.acquire()
            return
        self._wait(condition, ready, what, op_deadline)

    def _wait(self, condition, ready, what, op_deadline) -> None:
        while not ready():
            if self._cancelled:
                raise errors.CancelledError(None, None, f"{what}: {self.reason}")
            now = time.time()
            if op_deadline is not None and now >= op_deadline:
                raise errors.DeadlineExceededError(
                    None, None, f"Timed out waiting for {what} (ConfigProto.operation_timeout_in_ms = "
                                f"{int(self.op_timeout_s * 1000)})")
            if self.deadline is not None and now >= self.deadline:
                raise errors.DeadlineExceededError(
                    None, None, f"Timed out waiting for {what} (the run's RunOptions.timeout_in_ms expired)")
            ends = [t for t in (op_deadline, self.deadline) if t is not None]
            timeout = min([_POLL_S] + [t - now for t in ends])
            condition.wait(max(timeout, 0.0))

    def __reduce__(self):
        # Travels to workers as its deadlines; cancellation is per process.
        return _rebuild, (self.deadline, self.op_timeout_s)


def _rebuild(deadline, op_timeout_s) -> RunContext:
    ctx = RunContext()
    ctx.deadline = deadline
    ctx.op_timeout_s = op_timeout_s
    return ctx
