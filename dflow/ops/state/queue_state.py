"""The state of a TF1 queue: elements, capacity, closing, and waiting ops.

A queue op's kernel (``dflow/ops/state/data_flow_ops.py``) finds its queue in the
session's resources and calls one of a small set of methods, each taking the
run's ``RunContext``::

    enqueue(ctx, components)            enqueue_many(ctx, components)
    dequeue(ctx) -> element             dequeue_many(ctx, n) -> batch
    dequeue_up_to(ctx, n) -> batch      close(ctx, cancel_pending_enqueues)
    size(ctx) -> int                    is_closed(ctx) -> bool

so the same object can later live in a Dask actor for cluster sessions.

Policy, as TF1's queues:

* Ops wait in arrival order: an enqueue waits behind earlier enqueues until
  there is room, a dequeue behind earlier dequeues until there are elements.
  An ``enqueue_many`` larger than the room left goes in piece by piece.
* A dequeue of ``n`` takes elements as they become available and keeps them
  to itself; if it then fails (deadline, cancellation, a closed queue) it puts
  them back, in order, at the front, in one step under the queue's lock. So
  no element is ever lost, and a timed-out op leaves the queue usable (the
  TF1 bug of tensorflow#5115 cannot happen).
* ``close()`` makes new enqueues fail (``CancelledError``); enqueues already
  waiting still complete unless ``cancel_pending_enqueues``. Dequeues drain
  what is left, then fail with ``OutOfRangeError`` once no waiting enqueue
  can fill them; ``dequeue_up_to`` returns a short final batch.

All waiting is ``ctx.wait`` on the queue's one ``threading.Condition``,
whose ``wait`` releases the lock, so a waiting op blocks nobody else.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from threading import Condition

import numpy as np

from dflow.framework import dtypes, errors
from dflow.framework.tensor_shape import TensorShape


def _dims(shape) -> str:
    if isinstance(shape, TensorShape):
        if shape.ndims is None:
            return "<unknown>"
        shape = shape.as_list()
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _context(ctx):
    if ctx is None:  # called outside a run (tests, an actor): no deadline
        from dflow.framework.run_context import RunContext

        return RunContext()
    return ctx


class _Attempt:
    """One waiting op; ``cancelled`` is set by ``close(cancel_pending_enqueues=True)``."""

    __slots__ = ("cancelled",)

    def __init__(self):
        self.cancelled = False


class QueueState:
    """A FIFO queue of elements (tuples of arrays), as TF1's ``FIFOQueue``.

    ``shapes`` is a list of ``TensorShape`` per component, or None when the
    queue was created without shapes; ``capacity < 0`` means unbounded.

    >>> from dflow.framework import dtypes
    >>> q = QueueState("q", [dtypes.int32], [TensorShape([])], capacity=2)
    >>> q.enqueue_many(None, [np.array([1, 2], np.int32)])
    >>> q.dequeue_many(None, 2)
    [array([1, 2], dtype=int32)]
    """

    kind = "FIFOQueue"

    def __init__(self, name: str, component_types, shapes, capacity: int = -1):
        self.name = name
        self.dtypes = list(component_types)
        self.shapes = None if not shapes else [TensorShape(s) for s in shapes]
        self.capacity = int(capacity)
        self._np_dtypes = [np.dtype(d.as_numpy_dtype) for d in self.dtypes]
        self._cond = Condition()
        self._closed = False
        self._enqueuers: deque = deque()
        self._dequeuers: deque = deque()
        self._init_storage()

    # -- storage: subclasses keep elements in other orders --------------------------------
    def _init_storage(self) -> None:
        self._items: deque = deque()

    def _count(self) -> int:
        return len(self._items)

    def _put(self, element: tuple) -> None:
        self._items.append(element)

    def _take(self):
        """Removes and returns one stored item (an element, or a subclass's wrapper of it)."""
        return self._items.popleft()

    def _element(self, item) -> tuple:
        return item

    def _restore(self, items: list) -> None:
        """Puts taken items back where they were (the front, for a FIFO queue)."""
        self._items.extendleft(reversed(items))

    def _available(self) -> int:
        """How many elements a dequeue may take now."""
        return len(self._items)

    # -- public interface ----------------------------------------------------------------
    @property
    def _what(self) -> str:
        return f"{self.kind} '{self.name}'"

    def size(self, ctx=None) -> int:
        with self._cond:
            return self._count()

    def is_closed(self, ctx=None) -> bool:
        return self._closed

    def describe(self) -> dict:
        """The dashboard's row: each field read once, without the queue's lock (a snapshot that a
        page request takes while runs enqueue and dequeue)."""
        return {"name": self.name, "kind": self.kind, "size": len(self._items), "capacity": self.capacity,
                "closed": self._closed, "blocked_consumers": len(self._dequeuers),
                "blocked_producers": len(self._enqueuers)}

    def close(self, ctx=None, cancel_pending_enqueues: bool = False) -> None:
        with self._cond:
            self._closed = True
            if cancel_pending_enqueues:
                for attempt in self._enqueuers:
                    attempt.cancelled = True
            self._cond.notify_all()

    def enqueue(self, ctx, components) -> None:
        """Adds one element; waits while the queue is full."""
        element = self._check_element(components)
        self._enqueue_elements(ctx, [element])

    def enqueue_many(self, ctx, components) -> None:
        """Adds the slices along dimension 0 of ``components``; waits for room."""
        self._enqueue_elements(ctx, self._split_batch(components))

    def dequeue(self, ctx) -> tuple:
        """Removes and returns one element; waits while the queue is empty."""
        return self._element(self._dequeue_items(ctx, 1, allow_smaller=False)[0])

    def dequeue_many(self, ctx, n: int) -> list:
        """Removes ``n`` elements and returns them batched, one array per component."""
        return self._dequeue_batch(ctx, n, allow_smaller=False)

    def dequeue_up_to(self, ctx, n: int) -> list:
        """As ``dequeue_many``, but a closed queue with 0 < size < n returns what is left."""
        return self._dequeue_batch(ctx, n, allow_smaller=True)

    # -- validation --------------------------------------------------------------------
    def _convert(self, i: int, value) -> np.ndarray:
        want = self.dtypes[i]
        arr = np.asarray(value)
        if want is dtypes.string:
            if arr.dtype.kind not in "OSU":
                raise errors.InvalidArgumentError(
                    None, None, f"{self._what}: Type mismatch in tuple component {i}. Expected string, got "
                                f"{arr.dtype.name}")
            arr = np.array([x.encode() if isinstance(x, str) else x for x in arr.ravel().tolist()],
                           dtype=object).reshape(arr.shape) if arr.dtype.kind != "O" else arr.copy()
        elif arr.dtype != self._np_dtypes[i]:
            raise errors.InvalidArgumentError(
                None, None, f"{self._what}: Type mismatch in tuple component {i}. Expected {want.name}, got "
                            f"{arr.dtype.name}")
        else:
            arr = arr.copy()
        # Stored elements are shared by everyone who dequeues them: never written.
        arr.flags.writeable = False
        return arr

    def _check_count(self, components) -> None:
        if len(components) != len(self.dtypes):
            raise errors.InvalidArgumentError(
                None, None, f"{self._what}: expected {len(self.dtypes)} components, got {len(components)}")

    def _check_shape(self, i: int, shape: tuple, batched: bool) -> None:
        if self.shapes is None:
            return
        want = self.shapes[i]
        if not want.is_compatible_with(TensorShape(shape)):
            expected = _dims(want) if not batched else _dims([None] + want.as_list())
            got = _dims(shape) if not batched else _dims([None] + list(shape))
            raise errors.InvalidArgumentError(
                None, None, f"{self._what}: Shape mismatch in tuple component {i}. Expected {expected}, got "
                            f"{got}")

    def _check_element(self, components) -> tuple:
        self._check_count(components)
        element = tuple(self._convert(i, c) for i, c in enumerate(components))
        for i, arr in enumerate(element):
            self._check_shape(i, arr.shape, batched=False)
        return element

    def _split_batch(self, components) -> list:
        self._check_count(components)
        arrays = [self._convert(i, c) for i, c in enumerate(components)]
        n = None
        for i, arr in enumerate(arrays):
            if arr.ndim == 0:
                raise errors.InvalidArgumentError(
                    None, None, f"{self._what}: EnqueueMany requires each component to have rank at least 1 "
                                f"(a batch), but component {i} is a scalar")
            if n is None:
                n = arr.shape[0]
            elif arr.shape[0] != n:
                raise errors.InvalidArgumentError(
                    None, None, f"{self._what}: EnqueueMany requires all components to have the same size in "
                                f"dimension 0, but component 0 has {n} and component {i} has {arr.shape[0]}")
            self._check_shape(i, arr.shape[1:], batched=True)
        return [tuple(a[j, ...] for a in arrays) for j in range(n or 0)]

    # -- waiting -------------------------------------------------------------------------
    def _has_room(self) -> bool:
        return self.capacity < 0 or self._count() < self.capacity

    def _enqueue_elements(self, ctx, elements: list) -> None:
        closed_msg = f"{self._what} is closed."
        with self._cond:
            if self._closed:
                raise errors.CancelledError(None, None, closed_msg)
            attempt = _Attempt()
            self._enqueuers.append(attempt)
            ctx = _context(ctx)
            what = f"room in {self._what} (capacity {self.capacity}, enqueueing {len(elements)})"

            def ready():
                return attempt.cancelled or (self._enqueuers[0] is attempt and self._has_room())

            try:
                i = 0
                while i < len(elements):
                    ctx.wait(self._cond, ready, what)
                    if attempt.cancelled:
                        raise errors.CancelledError(None, None, closed_msg)
                    while i < len(elements) and self._has_room():
                        self._put(elements[i])
                        i += 1
                    self._cond.notify_all()
            finally:
                self._enqueuers.remove(attempt)
                self._cond.notify_all()

    def _dequeue_items(self, ctx, n: int, allow_smaller: bool) -> list:
        """Takes ``n`` items (fewer only if ``allow_smaller`` and the queue is closed)."""
        with self._cond:
            attempt = _Attempt()
            self._dequeuers.append(attempt)
            ctx = _context(ctx)
            what = f"{n} element{'s' if n != 1 else ''} in {self._what}"

            def ready():
                return self._dequeuers[0] is attempt and (
                    self._available() > 0 or (self._closed and not self._enqueuers))

            taken: list = []
            try:
                while len(taken) < n:
                    ctx.wait(self._cond, ready, what)
                    while len(taken) < n and self._available() > 0:
                        taken.append(self._take())
                    if len(taken) < n and self._closed and not self._enqueuers and not self._available():
                        if allow_smaller and taken:
                            break
                        self._restore(taken)
                        taken = []
                        raise errors.OutOfRangeError(
                            None, None, f"{self._what} is closed and has insufficient elements (requested {n}, "
                                        f"current size {self._count()})")
                    self._cond.notify_all()  # room for waiting enqueues
            except BaseException:
                if taken:  # a failed dequeue gives back everything it took
                    self._restore(taken)
                raise
            finally:
                self._dequeuers.remove(attempt)
                self._cond.notify_all()
            return taken

    # -- batching ------------------------------------------------------------------------
    def _require_shapes(self) -> None:
        if self.shapes is None:
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind}'s DequeueMany and DequeueUpTo require the components to have specified "
                            f"shapes ({self._what} was created without shapes).")

    def _dequeue_batch(self, ctx, n: int, allow_smaller: bool) -> list:
        n = int(n)
        if n < 0:
            raise errors.InvalidArgumentError(None, None, f"{self._what}: requested {n} elements; n must be >= 0")
        self._require_shapes()
        items = self._dequeue_items(ctx, n, allow_smaller) if n else []
        return self._batch([self._element(it) for it in items])

    def _batch(self, elements: list) -> list:
        out = []
        for i, shape in enumerate(self.shapes):
            if elements:
                out.append(np.stack([e[i] for e in elements]))
            else:
                out.append(np.empty([0] + [d or 0 for d in shape.as_list()], dtype=self._np_dtypes[i]))
        return out


class RandomShuffleQueueState(QueueState):
    """Dequeues a uniformly random element, keeping ``min_after_dequeue`` elements
    in the queue until it is closed (TF1's ``RandomShuffleQueue``)."""

    kind = "RandomShuffleQueue"

    def __init__(self, name, component_types, shapes, capacity=-1, min_after_dequeue=0, rng=None):
        self.min_after_dequeue = int(min_after_dequeue)
        self._rng = rng if rng is not None else np.random.default_rng()
        super().__init__(name, component_types, shapes, capacity)

    def _init_storage(self) -> None:
        self._items: list = []

    def _take(self):
        items = self._items
        j = int(self._rng.integers(len(items)))
        items[j], items[-1] = items[-1], items[j]
        return items.pop()

    def _restore(self, items: list) -> None:
        self._items.extend(items)

    def _available(self) -> int:
        if self._closed:
            return len(self._items)
        return max(0, len(self._items) - self.min_after_dequeue)


class PaddingFIFOQueueState(QueueState):
    """A FIFO queue whose shapes may have unknown dimensions; ``dequeue_many``
    pads each component to the largest element with zeros (``b""`` for strings)."""

    kind = "PaddingFIFOQueue"

    def _batch(self, elements: list) -> list:
        out = []
        for i, shape in enumerate(self.shapes):
            dims = shape.as_list()
            if elements:
                parts = [e[i] for e in elements]
                size = [max(p.shape[k] for p in parts) if d is None else d for k, d in enumerate(dims)]
            else:
                parts, size = [], [d or 0 for d in dims]
            if self.dtypes[i] is dtypes.string:
                batch = np.full([len(parts)] + size, b"", dtype=object)
            else:
                batch = np.zeros([len(parts)] + size, dtype=self._np_dtypes[i])
            for j, p in enumerate(parts):
                batch[(j,) + tuple(slice(0, s) for s in p.shape)] = p
            out.append(batch)
        return out


class PriorityQueueState(QueueState):
    """Dequeues the element with the smallest int64 priority (component 0) first;
    equal priorities leave in arrival order (TF1's ``PriorityQueue``)."""

    kind = "PriorityQueue"

    def _init_storage(self) -> None:
        self._items: list = []
        self._arrivals = itertools.count()

    def _put(self, element: tuple) -> None:
        heapq.heappush(self._items, (int(element[0]), next(self._arrivals), element))

    def _take(self):
        return heapq.heappop(self._items)

    def _element(self, item) -> tuple:
        return item[2]

    def _restore(self, items: list) -> None:
        for item in items:  # items keep their arrival number: the order is unchanged
            heapq.heappush(self._items, item)

    def _available(self) -> int:
        return len(self._items)

    def _check_element(self, components) -> tuple:
        element = super()._check_element(components)
        if element[0].shape != ():
            raise errors.InvalidArgumentError(
                None, None, f"{self._what}: the priority (component 0) must be a scalar, got shape "
                            f"{_dims(element[0].shape)}")
        return element
