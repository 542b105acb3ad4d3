"""The state of a TF1 ``ConditionalAccumulator``: a running sum of gradients,
their count, the accumulator's global step, and the ``take_grad`` ops waiting.

An accumulator op's kernel (``dflow/ops/state/accumulator_ops.py``) finds its
accumulator in the session's resources (on a cluster, in the worker's
resource store that every session shares) and calls one of::

    apply_grad(ctx, local_step, grad)       take_grad(ctx, num_required) -> gradient
    num_accumulated(ctx) -> int             set_global_step(ctx, new_global_step)

Policy, as TF1's ``ConditionalAccumulator`` kernels:

* A gradient whose ``local_step`` is below the accumulator's global step is
  stale and dropped silently (its shape is not even checked). Others are
  added to the sum; a gradient whose shape differs from the ones already
  summed, or from the accumulator's (possibly partial) shape, is an
  ``InvalidArgumentError`` naming the accumulator and both shapes.
* ``take_grad(n)`` waits until ``n`` gradients are summed, then returns their
  mean (``reduction_type="MEAN"``) or sum, resets the sum and count and adds
  one to the global step. All summed gradients count, even more than ``n``.
  Takes are served in arrival order, and the one at the head completes inside
  the ``apply_grad`` that brings the count to ``n``, under the accumulator's
  lock: no later gradient can slip into a step that is already complete (with
  backup replicas, the gradients after the ``n``-th are stale and dropped).
* ``set_global_step`` moves the global step (down too, with a warning), and
  keeps what is summed.

A waiting ``take_grad`` waits with ``ctx.wait``: the run's deadline
(``RunOptions.timeout_in_ms``), the op's (``ConfigProto.operation_timeout_in_ms``)
or a cancellation ends it with the usual error, whose message then says how
many of the needed gradients had arrived. Nothing is taken from the
accumulator in that case: its gradients, count and step are unchanged, so a
later ``take_grad`` still gets them.
"""

from __future__ import annotations

import logging
from collections import deque
from threading import Condition

import numpy as np

from dflow.framework import errors
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.state.queue_state import _context, _dims

_log = logging.getLogger("dflow")

REDUCTION_TYPES = ("MEAN", "SUM")


class _Take:
    """One waiting ``take_grad``; ``result`` is set when its step completes."""

    __slots__ = ("num_required", "result")

    def __init__(self, num_required: int):
        self.num_required = num_required
        self.result = None


class AccumulatorState:
    """A conditional accumulator of dense gradients of one dtype.

    >>> from dflow.framework import dtypes
    >>> acc = AccumulatorState("acc", dtypes.float32, TensorShape([2]))
    >>> acc.apply_grad(None, 0, np.array([1.0, 2.0], np.float32))
    >>> acc.apply_grad(None, 0, np.array([3.0, 6.0], np.float32))
    >>> acc.take_grad(None, 2), acc.global_step
    (array([2., 4.], dtype=float32), 1)
    """

    kind = "ConditionalAccumulator"

    def __init__(self, name: str, dtype, shape, reduction_type: str = "MEAN"):
        if reduction_type not in REDUCTION_TYPES:
            raise errors.InvalidArgumentError(None, None, f"{self.kind} '{name}': reduction_type must be one of "
                                                          f"{', '.join(REDUCTION_TYPES)}, got {reduction_type!r}")
        self.name = name
        self.dtype = dtype
        self.shape = TensorShape(shape)
        self.reduction_type = reduction_type
        self._np_dtype = np.dtype(dtype.as_numpy_dtype)
        self._cond = Condition()
        self._global_step = 0
        self._count = 0
        self._sum = None
        self._takes: deque = deque()

    @property
    def _what(self) -> str:
        return f"{self.kind} '{self.name}'"

    @property
    def global_step(self) -> int:
        return self._global_step

    def describe(self) -> dict:
        """The dashboard's row (see ``QueueState.describe``): gradients accumulated, waiting takes."""
        return {"name": self.name, "kind": self.kind, "size": self._count, "capacity": None, "closed": False,
                "blocked_consumers": len(self._takes), "blocked_producers": 0, "global_step": self._global_step}

    # -- the four operations -------------------------------------------------------------
    def num_accumulated(self, ctx=None) -> int:
        with self._cond:
            return self._count

    def set_global_step(self, ctx, new_global_step) -> None:
        new_global_step = int(new_global_step)
        with self._cond:
            if new_global_step < self._global_step:
                _log.warning("%s: attempt to set the global step to a smaller value: current global step = %d "
                             ">= %d = new global step.", self._what, self._global_step, new_global_step)
            self._global_step = new_global_step

    def apply_grad(self, ctx, local_step, grad) -> None:
        """Adds ``grad`` unless ``local_step`` is stale; may complete a waiting take."""
        local_step = int(local_step)
        with self._cond:
            if local_step < self._global_step:
                return  # stale: dropped silently, as TF1
            grad = np.asarray(grad)
            self._check_shape(grad.shape)
            if self._count == 0:
                # Our own copy, in the accumulator's dtype: later gradients are added in place.
                self._sum = np.array(grad, dtype=self._np_dtype, copy=True)
            else:
                np.add(self._sum, grad, out=self._sum, casting="unsafe")
            self._count += 1
            if self._flush():
                self._cond.notify_all()

    def take_grad(self, ctx, num_required) -> np.ndarray:
        """Waits for ``num_required`` gradients; returns their mean (or sum) and starts the next step."""
        num_required = int(num_required)
        if num_required < 1:
            raise errors.InvalidArgumentError(
                None, None, f"{self._what}: Argument num_required must be positive, but was {num_required}")
        ctx = _context(ctx)
        with self._cond:
            take = _Take(num_required)
            self._takes.append(take)
            self._flush()
            what = f"{num_required} gradient{'s' if num_required != 1 else ''} in {self._what}"
            try:
                ctx.wait(self._cond, lambda: take.result is not None, what)
            except errors.OpError as e:
                # Not served: leave the line, taking nothing, and say how far the step got.
                self._takes.remove(take)
                if self._flush():
                    self._cond.notify_all()
                hint = (" The accumulator keeps them; a replica that stopped sending gradients is the usual "
                        "cause." if isinstance(e, errors.DeadlineExceededError) else "")
                raise type(e)(None, None, f"{self._what}: {self._count} of the {num_required} gradients needed "
                                          f"for step {self._global_step} arrived ({e.message}).{hint}") from None
            return take.result

    # -- internals ------------------------------------------------------------------------
    def _check_shape(self, shape: tuple) -> None:
        if self._count > 0 and self._sum.shape != shape:
            raise errors.InvalidArgumentError(
                None, None, f"{self._what}: Shape mismatch: expected {_dims(self._sum.shape)}, got {_dims(shape)}")
        if not self.shape.is_compatible_with(TensorShape(shape)):
            raise errors.InvalidArgumentError(
                None, None, f"{self._what}: Shape mismatch: expected {_dims(self.shape)}, got {_dims(shape)}")

    def _flush(self) -> bool:
        """Completes the take at the head of the line if enough gradients are summed (lock held)."""
        if not self._takes or self._count < self._takes[0].num_required:
            return False
        take = self._takes.popleft()
        total = self._sum  # the accumulator's own array: divided in place and handed over
        if self.reduction_type == "MEAN" and self._count > 1:
            np.divide(total, self._np_dtype.type(self._count), out=total, casting="unsafe")
        take.result = total
        self._sum = None
        self._count = 0
        self._global_step += 1
        return True
