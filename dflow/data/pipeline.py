"""The input pipeline at run time: Python iterators over numpy elements.

Initializing an iterator *builds* its dataset: each node of the dataset's
description (``dataset_ops``) turns into a *source*, a callable that makes
a fresh runtime iterator, given the values of the dataset's graph inputs
and the session's compiled functions (``BuildContext``). ``repeat`` calls
its upstream source once per epoch; ``flat_map`` builds the inner dataset
once per element.

A runtime iterator yields flat tuples of numpy values, one per component
(``structure``). It follows a few rules so that TF1's semantics hold:

* an error raised by one element (a failing ``map`` function) propagates
  from that ``next`` call and leaves the iterator usable: the next call
  moves on, as TF1's iterators do. So stages are classes, not generators,
  whose state survives an exception.
* once exhausted, ``next`` keeps raising ``StopIteration``.
* ``close()`` releases threads (``prefetch``, parallel ``map``); iterators
  dropped without it release them when garbage-collected.

Stages that can hand out many elements at once set ``batchable`` and
implement ``next_batch(n)``: up to ``n`` elements stacked along a new first
axis, fewer only when the iterator is then exhausted. ``batch`` uses it, so
``from_tensor_slices(x).batch(n)`` slices ``x`` instead of stacking ``n``
rows, and ``shuffle`` over slices shuffles indices and gathers rows.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import threading
import weakref
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from dflow.framework import errors


class BuildContext:
    """What building a dataset needs: values of its graph inputs, compiled functions."""

    def __init__(self, values: dict, functions: FunctionCache):
        self.values = values
        self.functions = functions

    def value(self, tensor):
        return self.values[tensor]

    def function(self, dataset_fn):
        """The session's compiled ``dataset_fn``, its captured values bound."""
        return dataset_fn.bind(self.functions.get(dataset_fn.graph), self.values)

    def child(self, values: dict) -> BuildContext:
        return BuildContext(values, self.functions)


class FunctionCache:
    """Dataset functions compiled once per session (``compile_function``)."""

    def __init__(self, resources, where: str):
        self.resources = resources
        self.where = where
        self._compiled: dict = {}
        self._lock = threading.Lock()

    def get(self, graph):
        fn = self._compiled.get(graph)
        if fn is None:
            from dflow.ops.control_flow.if_while_ops import compile_function

            with self._lock:
                fn = self._compiled.get(graph)
                if fn is None:
                    fn = self._compiled[graph] = _one_argument(compile_function(graph, self.resources, self.where))
        return fn


def _one_argument(compiled):
    """``compiled`` as a function of the input tuple alone.

    ``compile_function`` gives ``fn(ctx, args)``, where ``ctx`` is the run's
    RunContext. Pipeline functions run on behalf of no single run (prefetch
    and map threads serve many), so they get None.
    """
    try:
        n = len(inspect.signature(compiled).parameters)
    except (TypeError, ValueError):
        n = 2
    if n == 1:
        return compiled
    return functools.partial(compiled, None)


class Stage:
    """Base of runtime iterators: ``up`` is the upstream iterator, if any."""

    batchable = False
    up = None

    def __iter__(self):
        return self

    def __next__(self):  # pragma: no cover - every stage defines it
        raise NotImplementedError

    def close(self) -> None:
        close = getattr(self.up, "close", None)
        if close is not None:
            close()


def frozen(value):
    """``value`` as an array that nobody can change under the pipeline."""
    if isinstance(value, np.ndarray):
        if value.flags.writeable:
            value = value.copy()
            value.flags.writeable = False
        return value
    return np.asarray(value)


# -- sources ----------------------------------------------------------------------------


class SliceSource:
    """``from_tensor_slices``: element ``i`` is row ``i`` of every component."""

    def __init__(self, arrays: list):
        self.arrays = [frozen(a) for a in arrays]
        sizes = [a.shape[0] if a.ndim else None for a in self.arrays]
        if any(s is None for s in sizes):
            raise errors.InvalidArgumentError(None, None, "Cannot slice a scalar component: from_tensor_slices "
                                                          "needs components of rank at least 1.")
        if len(set(sizes)) > 1:
            raise errors.InvalidArgumentError(
                None, None, f"Dimension 0 in all components must be equal, got sizes {sizes} (from_tensor_slices).")
        self.n = sizes[0] if sizes else 0

    def __call__(self):
        return SliceIterator(self.arrays, self.n)


class SliceIterator(Stage):
    batchable = True

    def __init__(self, arrays, n):
        self.arrays = arrays
        self.n = n
        self.i = 0

    def __next__(self):
        i = self.i
        if i >= self.n:
            raise StopIteration
        self.i = i + 1
        return tuple([a[i] for a in self.arrays])

    def next_batch(self, k: int):
        i = self.i
        if i >= self.n:
            raise StopIteration
        j = min(i + k, self.n)
        self.i = j
        return tuple([a[i:j] for a in self.arrays])


class GatherIterator(Stage):
    """Rows of ``arrays`` in the order ``indices`` gives (a shuffled slice source)."""

    batchable = True

    def __init__(self, arrays, indices):
        self.arrays = arrays
        self.indices = indices

    def __next__(self):
        i = next(self.indices)
        return tuple([a[i] for a in self.arrays])

    def next_batch(self, k: int):
        idx = list(itertools.islice(self.indices, k))
        if not idx:
            raise StopIteration
        idx = np.asarray(idx, dtype=np.intp)
        return tuple([a.take(idx, axis=0) for a in self.arrays])


class ListIterator(Stage):
    """The elements of a list (``from_tensors``, a filled cache)."""

    def __init__(self, elements: list):
        self.elements = elements
        self.i = 0

    def __next__(self):
        i = self.i
        if i >= len(self.elements):
            raise StopIteration
        self.i = i + 1
        return self.elements[i]


class RangeIterator(Stage):
    batchable = True

    def __init__(self, start, stop, step, np_dtype):
        if step == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        self.r = range(int(start), int(stop), int(step))
        self.i = 0
        self.dtype = np_dtype

    def __next__(self):
        i = self.i
        if i >= len(self.r):
            raise StopIteration
        self.i = i + 1
        return (self.dtype(self.r[i]),)

    def next_batch(self, k: int):
        i = self.i
        if i >= len(self.r):
            raise StopIteration
        j = min(i + k, len(self.r))
        self.i = j
        return (np.asarray(self.r[i:j], dtype=self.dtype),)


class ZipIterator(Stage):
    def __init__(self, iterators: list):
        self.its = iterators

    def __next__(self):
        out: tuple = ()
        for it in self.its:
            out += next(it)
        return out

    def close(self) -> None:
        for it in self.its:
            it.close()


class ConcatenateIterator(Stage):
    def __init__(self, first, make_second):
        self.up = first
        self.make_second = make_second

    def __next__(self):
        try:
            return next(self.up)
        except StopIteration:
            if self.make_second is None:
                raise
        self.up.close()
        self.up, self.make_second = self.make_second(), None
        return next(self.up)


# -- element-wise transformations --------------------------------------------------------


class MapIterator(Stage):
    def __init__(self, up, fn):
        self.up = up
        self.fn = fn

    def __next__(self):
        return self.fn(next(self.up))


class _Failed:
    """A queued upstream error, re-raised in order."""

    def __init__(self, exc):
        self.exc = exc

    def result(self):
        raise self.exc


class ParallelMapIterator(Stage):
    """``map(num_parallel_calls=k)``: up to ``k`` calls in flight, results in order."""

    def __init__(self, up, fn, owner, k: int):
        self.up = up
        self.fn = fn
        self.owner = owner  # keeps the pool alive while this iterator is
        self.pool = owner.pool
        self.k = k
        self.pending: deque = deque()
        self.up_done = False

    def __next__(self):
        q = self.pending
        while not self.up_done and len(q) < self.k:
            try:
                element = next(self.up)
            except StopIteration:
                self.up_done = True
                break
            except Exception as e:  # keep the upstream error in its place in the order
                q.append(_Failed(e))
                continue
            q.append(self.pool.submit(self.fn, element))
        if not q:
            raise StopIteration
        return q.popleft().result()

    def close(self) -> None:
        for f in self.pending:
            if not isinstance(f, _Failed):
                f.cancel()
        self.pending.clear()
        super().close()


class MapSource:
    """Makes map iterators; a parallel map shares one thread pool per initialization."""

    def __init__(self, up_source, fn, parallel: int):
        self.up_source = up_source
        self.fn = fn
        self.parallel = parallel
        self.pool = None

    def __call__(self):
        up = self.up_source()
        if self.parallel <= 1:
            return MapIterator(up, self.fn)
        if self.pool is None:
            self.pool = ThreadPoolExecutor(max_workers=self.parallel, thread_name_prefix="dflow-map")
            weakref.finalize(self, self.pool.shutdown, wait=False)
        return ParallelMapIterator(up, self.fn, self, self.parallel)


class FilterIterator(Stage):
    def __init__(self, up, predicate):
        self.up = up
        self.predicate = predicate

    def __next__(self):
        while True:
            element = next(self.up)
            if self.predicate(element)[0]:
                return element


class TakeIterator(Stage):
    def __init__(self, up, count: int):
        self.up = up
        self.left = count  # negative: all
        self.batchable = up.batchable

    def __next__(self):
        if self.left == 0:
            raise StopIteration
        element = next(self.up)
        if self.left > 0:
            self.left -= 1
        return element

    def next_batch(self, k: int):
        if self.left == 0:
            raise StopIteration
        part = self.up.next_batch(k if self.left < 0 else min(k, self.left))
        if self.left > 0:
            self.left -= len(part[0])
        return part


class SkipIterator(Stage):
    def __init__(self, up, count: int):
        self.up = up
        self.to_skip = count  # negative: all
        self.batchable = up.batchable

    def _skip(self) -> None:
        while self.to_skip != 0:
            if self.to_skip > 0 and self.batchable:
                n = len(self.up.next_batch(self.to_skip)[0])
            else:
                next(self.up)
                n = 1
            if self.to_skip > 0:
                self.to_skip -= n

    def __next__(self):
        if self.to_skip:
            self._skip()
        return next(self.up)

    def next_batch(self, k: int):
        if self.to_skip:
            self._skip()
        return self.up.next_batch(k)


class RepeatIterator(Stage):
    """``count`` epochs of ``make()`` (forever if negative); an empty epoch ends it."""

    def __init__(self, make, count: int):
        self.make = make
        self.count = count
        self.epoch = 0
        self.produced = False
        self.up = make() if count != 0 else None
        self.batchable = self.up is not None and self.up.batchable

    def _next_epoch(self) -> None:
        self.up.close()
        self.epoch += 1
        if not self.produced or 0 <= self.count <= self.epoch:
            self.up = None
        else:
            self.up = self.make()
            self.produced = False

    def __next__(self):
        while self.up is not None:
            try:
                element = next(self.up)
            except StopIteration:
                self._next_epoch()
                continue
            self.produced = True
            return element
        raise StopIteration

    def next_batch(self, k: int):
        parts, got = [], 0
        while got < k and self.up is not None:
            try:
                part = self.up.next_batch(k - got)
            except StopIteration:
                self._next_epoch()
                continue
            self.produced = True
            parts.append(part)
            got += len(part[0])
        if not parts:
            raise StopIteration
        if len(parts) == 1:
            return parts[0]
        return tuple(np.concatenate(columns) for columns in zip(*parts))


class EnumerateIterator(Stage):
    def __init__(self, up, start: int):
        self.up = up
        self.i = start

    def __next__(self):
        element = next(self.up)
        i = self.i
        self.i = i + 1
        return (np.int64(i),) + element


class ShardIterator(Stage):
    def __init__(self, up, num_shards: int, index: int):
        self.up = up
        self.num_shards = num_shards
        self.index = index
        self.position = 0

    def __next__(self):
        while True:
            element = next(self.up)
            p = self.position
            self.position = p + 1
            if p % self.num_shards == self.index:
                return element


# -- shuffle ------------------------------------------------------------------------------


class ShuffleIterator(Stage):
    """A uniform pick from a buffer of up to ``size`` upstream items, refilled as it drains."""

    def __init__(self, up, size: int, rng: np.random.Generator):
        self.up = up
        self.size = max(int(size), 1)
        self.rng = rng
        self.buf: list = []
        self.exhausted = False
        self.uniform = np.empty(0)
        self.u = 0

    def _rand(self, n: int) -> int:
        u = self.u
        if u >= len(self.uniform):
            self.uniform = self.rng.random(1024).tolist()
            u = 0
        self.u = u + 1
        return int(self.uniform[u] * n)

    def __next__(self):
        buf = self.buf
        while not self.exhausted and len(buf) < self.size:
            try:
                buf.append(next(self.up))
            except StopIteration:
                self.exhausted = True
        if not buf:
            raise StopIteration
        j = self._rand(len(buf))
        out = buf[j]
        buf[j] = buf[-1]
        buf.pop()
        return out


class ShuffleSource:
    """Shuffle iterators of one initialization: each epoch (``make`` call) a new
    order when ``reshuffle``, else the same order every epoch."""

    def __init__(self, up_source, size: int, seed: int, seed2: int, reshuffle: bool):
        from dflow.ops.random.random_ops import new_generator

        self.up_source = up_source
        self.size = size
        self.reshuffle = reshuffle
        self.rng = new_generator(seed, seed2)
        self.key = int(self.rng.integers(1 << 62))

    def _epoch_rng(self) -> np.random.Generator:
        key = int(self.rng.integers(1 << 62)) if self.reshuffle else self.key
        return np.random.Generator(np.random.Philox(key=key))

    def __call__(self):
        rng = self._epoch_rng()
        if isinstance(self.up_source, SliceSource):
            src = self.up_source
            return GatherIterator(src.arrays, ShuffleIterator(iter(range(src.n)), self.size, rng))
        return ShuffleIterator(self.up_source(), self.size, rng)
