"""TF1 queues: ``tf.FIFOQueue``, ``tf.RandomShuffleQueue``, ``tf.PaddingFIFOQueue``,
``tf.PriorityQueue`` and their ops.

A queue is a resource of the session, as a variable is. The graph holds, as
in TF1 graph mode:

* ``fifo_queue`` (``FIFOQueueV2``, ``RandomShuffleQueueV2``, ...): creates the
  queue in the session's resources on its first run and outputs its handle,
  a scalar string ``b"<container>:<name>"`` (TF1's is a ``resource`` tensor);
* ``fifo_queue_enqueue`` (``QueueEnqueueV2``), ``fifo_queue_EnqueueMany``,
  ``fifo_queue_Dequeue``, ``fifo_queue_DequeueMany``, ``fifo_queue_DequeueUpTo``,
  ``fifo_queue_Close``, ``fifo_queue_Size``, ``fifo_queue_Is_Closed``: each
  takes the handle as its first input and is colocated with the queue.

The queue's state (``dflow/ops/state/queue_state.py``) is the session resource
``("queue", container, name)``, the name being the shared name or a
``_N_<op name>`` of its own: two queues with one ``shared_name`` share
their elements. Enqueue and dequeue kernels may block;
they get the run's ``RunContext`` and wait with ``ctx.wait``, so
``RunOptions.timeout_in_ms`` and ``ConfigProto.operation_timeout_in_ms``
end the wait with ``DeadlineExceededError`` and leave the queue usable.
"""

from __future__ import annotations

import functools
import hashlib
import itertools

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, colocate_with, control_dependencies, device, name_scope
from dflow.framework.op_registry import apply_op, constant_value, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from dflow.ops.random.random_ops import get_seed, new_generator
from dflow.ops.state.queue_state import (
    PaddingFIFOQueueState,
    PriorityQueueState,
    QueueState,
    RandomShuffleQueueState,
)

# -- the queue resource ops ---------------------------------------------------------------

_ANONYMOUS = itertools.count()  # TF1 names an unshared queue "_<n>_<op name>"

_STATES = {
    "FIFOQueueV2": QueueState,
    "RandomShuffleQueueV2": RandomShuffleQueueState,
    "PaddingFIFOQueueV2": PaddingFIFOQueueState,
    "PriorityQueueV2": PriorityQueueState,
}


def _new_state(op, name: str) -> QueueState:
    a = op._attrs
    types, shapes = list(a["component_types"]), list(a["shapes"])
    if op._type == "PriorityQueueV2":
        types, shapes = [dtypes.int64] + types, [TensorShape([])] + shapes
    if op._type == "RandomShuffleQueueV2":
        return RandomShuffleQueueState(name, types, shapes, a["capacity"], a["min_after_dequeue"],
                                       new_generator(a["seed"], a["seed2"]))
    return _STATES[op._type](name, types, shapes, a["capacity"])


def _check_shared(state: QueueState, op, name: str) -> None:
    """A queue op that finds an existing queue of its shared name must agree with it."""
    fresh = _new_state(op, name)

    def fail(what, have, want):
        raise errors.InvalidArgumentError(None, None, f"Shared queue '{name}' has {what} {have} but requested "
                                                      f"{what} was {want}")

    if type(state) is not type(fresh):
        raise errors.InvalidArgumentError(None, None, f"Shared queue '{name}' is a {state.kind}, but op {op.name} "
                                                      f"asks for a {fresh.kind} of that name")
    if state.dtypes != fresh.dtypes:
        fail("component types", ", ".join(d.name for d in state.dtypes), ", ".join(d.name for d in fresh.dtypes))
    if (state.shapes or []) != (fresh.shapes or []):
        fail("component shapes", [str(s) for s in state.shapes or []], [str(s) for s in fresh.shapes or []])
    if state.capacity != fresh.capacity:
        fail("capacity", state.capacity, fresh.capacity)
    if getattr(state, "min_after_dequeue", 0) != getattr(fresh, "min_after_dequeue", 0):
        fail("min_after_dequeue", state.min_after_dequeue, fresh.min_after_dequeue)


def named_resource_kernel(kind: str, new_state, check_shared):
    """The kernel of an op that creates (or finds) a named resource and outputs its handle.

    The resource is ``(kind, container, shared_name)`` in the session's (or, on a
    cluster, the worker's) resources; without a shared name it is TF1's
    ``_<n>_<op name>``, fixed per op. ``new_state(op, name)`` makes it;
    ``check_shared(state, op, name)`` refuses one made with other attributes."""

    def make_kernel(op, resources):
        a = op._attrs
        handle = []
        device = getattr(resources, "bound_device", lambda: None)()  # for the dashboard's queue table

        def kernel():
            if not handle:
                name = a["shared_name"] or resources.op_state(op, lambda: f"_{next(_ANONYMOUS)}_{op.name}")
                state = resources.resource((kind, a["container"], name), lambda: new_state(op, name), device)
                check_shared(state, op, name)
                handle.append(resource_handle(a["container"], name))
            return handle[0]

        return kernel

    return make_kernel


_queue_kernel = named_resource_kernel("queue", _new_state, _check_shared)


for _t in _STATES:
    register(_t, infer=lambda op: [(dtypes.string, TensorShape([]))], make_kernel=_queue_kernel, stateful=True,
             gpu=False)
    not_differentiable(_t)


# -- the ops that use a queue --------------------------------------------------------------


def resource_handle(container: str, name: str) -> np.ndarray:
    """The handle value of resource (container, name): ``b"container:name"`` (container
    names never hold a colon, so it parses back)."""
    return np.array(f"{container}:{name}".encode(), dtype=object)


def resource_key(kind: str, handle) -> tuple:
    """The session-resources key ``(kind, container, name)`` of a handle value."""
    container, name = (handle.item() if isinstance(handle, np.ndarray) else handle).decode().split(":", 1)
    return (kind, container, name)


def _queue_lookup(resources):
    """``handle value -> QueueState`` for this session, memoized."""

    @functools.lru_cache(maxsize=64)
    def find(ref: bytes) -> QueueState:
        return resources.resource(resource_key("queue", ref))

    return lambda handle: find(handle.item() if isinstance(handle, np.ndarray) else handle)


def _outputs(values):
    return values[0] if len(values) == 1 else tuple(values)


def _enqueue_kernel(method: str):
    def make(op, resources):
        queue = _queue_lookup(resources)
        return lambda ctx, handle, *components: getattr(queue(handle), method)(ctx, components)

    return make


def _dequeue_kernel(op, resources):
    queue = _queue_lookup(resources)
    return lambda ctx, handle: _outputs(queue(handle).dequeue(ctx))


def _dequeue_n_kernel(method: str):
    def make(op, resources):
        queue = _queue_lookup(resources)
        return lambda ctx, handle, n: _outputs(getattr(queue(handle), method)(ctx, int(n)))

    return make


def _close_kernel(op, resources):
    queue = _queue_lookup(resources)
    cancel = op._attrs["cancel_pending_enqueues"]
    return lambda handle: queue(handle).close(None, cancel)


def _size_kernel(op, resources):
    queue = _queue_lookup(resources)
    return lambda handle: np.int32(queue(handle).size(None))


def _is_closed_kernel(op, resources):
    queue = _queue_lookup(resources)
    return lambda handle: np.bool_(queue(handle).is_closed(None))


def _component_outputs(op):
    return [(dt, unknown_shape()) for dt in op._attrs["component_types"]]


register("QueueEnqueueV2", infer=lambda op: [], make_kernel=_enqueue_kernel("enqueue"), stateful=True, gpu=False,
         uses_context=True)
register("QueueEnqueueManyV2", infer=lambda op: [], make_kernel=_enqueue_kernel("enqueue_many"), stateful=True,
         gpu=False, uses_context=True)
register("QueueDequeueV2", infer=_component_outputs, make_kernel=_dequeue_kernel, stateful=True, gpu=False,
         uses_context=True)
register("QueueDequeueManyV2", infer=_component_outputs, make_kernel=_dequeue_n_kernel("dequeue_many"),
         stateful=True, gpu=False, uses_context=True)
register("QueueDequeueUpToV2", infer=_component_outputs, make_kernel=_dequeue_n_kernel("dequeue_up_to"),
         stateful=True, gpu=False, uses_context=True)
register("QueueCloseV2", infer=lambda op: [], make_kernel=_close_kernel, stateful=True, gpu=False)
register("QueueSizeV2", infer=lambda op: [(dtypes.int32, TensorShape([]))], make_kernel=_size_kernel,
         stateful=True, gpu=False)
register("QueueIsClosedV2", infer=lambda op: [(dtypes.bool, TensorShape([]))], make_kernel=_is_closed_kernel,
         stateful=True, gpu=False)
for _t in ("QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2", "QueueDequeueUpToV2",
           "QueueCloseV2", "QueueSizeV2", "QueueIsClosedV2"):
    not_differentiable(_t)


# -- the Python API --------------------------------------------------------------------------


def _as_type_list(types) -> list:
    if not isinstance(types, (list, tuple)):
        types = [types]
    return [dtypes.as_dtype(t) for t in types]


def _as_shape_list(shapes, types, unknown_dim_allowed: bool = False):
    if unknown_dim_allowed and (not isinstance(shapes, (list, tuple)) or not shapes
                                or any(s is None or isinstance(s, int) for s in shapes)):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (list, tuple)):
        raise TypeError(f"Shapes must be a TensorShape or a list or tuple of TensorShapes, got {type(shapes)} "
                        f"instead.")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]  # one shape, written as a list of dims
    shapes = [as_shape(s) for s in shapes]
    if len(shapes) != len(types):
        raise ValueError(f"Queue shapes must have the same length as dtypes, received len(shapes)={len(shapes)}, "
                         f"len(dtypes)={len(types)}")
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if any(s.ndims is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names, types):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(types):
        raise ValueError(f"List of names must have the same length as the list of dtypes, received "
                         f"len(names)={len(names)},len(dtypes)={len(types)}")
    return list(names)


def _shape_common(s1, s2) -> TensorShape:
    """The most specific shape both ``s1`` and ``s2`` satisfy."""
    s1, s2 = as_shape(s1), as_shape(s2)
    if s1.ndims is None or s2.ndims is None or s1.ndims != s2.ndims:
        return unknown_shape()
    return TensorShape([a if a is not None and a == b else None for a, b in zip(s1.as_list(), s2.as_list())])


def _create_queue(op_type: str, types, shapes, capacity, shared_name, name, **attrs) -> Tensor:
    # TF1 builds queues outside any control-dependency block (init_scope).
    with control_dependencies(None):
        return apply_op(op_type, [], {"component_types": list(types), "shapes": list(shapes or []),
                                      "capacity": -1 if capacity is None else int(capacity),
                                      "container": "", "shared_name": shared_name or "", **attrs},
                        name=name).outputs[0]


@tf_export("queue.QueueBase", "io.QueueBase", "QueueBase")
class QueueBase:
    """The base of the queues: elements are tuples of tensors of fixed dtypes.

    Subclasses create the queue; this class builds the ops that use it. Each
    component has a dtype and, optionally, a shape.

    >>> import dflow as tf
    >>> q = tf.FIFOQueue(3, tf.float32)
    >>> with tf.Session() as sess:
    ...     sess.run(q.enqueue_many([[1.0, 2.0]]))
    ...     print(sess.run(q.dequeue()), sess.run(q.size()))
    1.0 1
    """

    def __init__(self, dtypes, shapes, names, queue_ref):  # noqa: A002 - TF1 argument name
        self._dtypes = list(dtypes)
        if shapes is not None:
            if len(shapes) != len(self._dtypes):
                raise ValueError(f"Queue shapes must have the same length as dtypes, received "
                                 f"len(shapes)={len(shapes)}, len(dtypes)={len(self._dtypes)}")
            self._shapes = [as_shape(s) for s in shapes]
        else:
            self._shapes = [unknown_shape() for _ in self._dtypes]
        if names is not None and len(names) != len(self._dtypes):
            raise ValueError(f"Queue names must have the same length as dtypes,received len(names)={len(names)},"
                             f"len {len(self._dtypes)}")
        self._names = list(names) if names is not None else None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index, queues) -> QueueBase:
        """A queue that is ``queues[index]``, chosen when its ops run."""
        from dflow.ops.array.array_ops import stack
        from dflow.ops.array.gather_ops import gather

        if not queues or not isinstance(queues, list) or not all(isinstance(q, QueueBase) for q in queues):
            raise TypeError("A list of queues expected")
        types = queues[0].dtypes
        if not all(types == q.dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        names = queues[0].names
        if not all(names == q.names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        shapes = [functools.reduce(_shape_common, s) for s in zip(*[q.shapes for q in queues])]
        selected = gather(stack([q.queue_ref for q in queues]), index)
        return QueueBase(dtypes=types, shapes=shapes, names=names, queue_ref=selected)

    # -- properties ---------------------------------------------------------------------
    @property
    def queue_ref(self) -> Tensor:
        """The queue's handle (a scalar string tensor)."""
        return self._queue_ref

    @property
    def name(self) -> str:
        return self._queue_ref.op.name

    @property
    def dtypes(self) -> list:
        return self._dtypes

    @property
    def shapes(self) -> list:
        return self._shapes

    @property
    def names(self):
        return self._names

    # -- building ops ----------------------------------------------------------------------
    def _op(self, op_type: str, inputs, attrs: dict, name: str):
        with colocate_with(self._queue_ref.op):
            return apply_op(op_type, [self._queue_ref] + list(inputs), attrs, name=name)

    def _check_enqueue_dtypes(self, vals) -> list:
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(f"Keys in dictionary to enqueue do not match names of Queue.  Dictionary: "
                                 f"{sorted(vals.keys())},Queue: {sorted(self._names)}")
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError(f"Queue {self.name} has {len(self._dtypes)} components "
                             f"({', '.join(d.name for d in self._dtypes)}), but {len(vals)} values were given")
        return [convert_to_tensor(v, dtype=dt, name=f"component_{i}")
                for i, (v, dt) in enumerate(zip(vals, self._dtypes))]

    @staticmethod
    def _scope_vals(vals) -> list:
        if isinstance(vals, (list, tuple)):
            return list(vals)
        if isinstance(vals, dict):
            return list(vals.values())
        return [vals]

    def enqueue(self, vals, name=None):
        """An op that adds one element.

        It waits while the queue is full; ``CancelledError`` once the queue is closed."""
        with name_scope(name, f"{self._name}_enqueue", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                val.shape.assert_is_compatible_with(shape)
            return self._op("QueueEnqueueV2", vals, {"Tcomponents": [v.dtype for v in vals], "timeout_ms": -1},
                            scope)

    def enqueue_many(self, vals, name=None):
        """An op that adds the slices of ``vals`` along dimension 0 as elements."""
        with name_scope(name, f"{self._name}_EnqueueMany", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch_dim = vals[0].shape.with_rank_at_least(1)[0]
            for val, shape in zip(vals, self._shapes):
                batch_dim = batch_dim.merge_with(val.shape.with_rank_at_least(1)[0])
                val.shape[1:].assert_is_compatible_with(shape)
            return self._op("QueueEnqueueManyV2", vals,
                            {"Tcomponents": [v.dtype for v in vals], "timeout_ms": -1}, scope)

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def dequeue(self, name=None):
        """Removes one element.

        It waits while the queue is empty; ``OutOfRangeError`` once it is closed and empty."""
        op = self._op("QueueDequeueV2", [], {"component_types": self._dtypes, "timeout_ms": -1},
                      name or f"{self._name}_Dequeue")
        for output, shape in zip(op.outputs, self._shapes):
            output.set_shape(shape)
        return self._dequeue_return_value(op.outputs)

    def _dequeue_n(self, op_type: str, n, name, batch_dim):
        with name_scope(name) as scope:
            n = convert_to_tensor(n, dtype=dtypes.int32, name="n")
            value = constant_value(n)
            if value is not None and int(value) < 0:
                raise ValueError(f"Input 'n' must be >= 0, but is {int(value)} for '{scope.rstrip('/')}' "
                                 f"(op: '{op_type}')")
            op = self._op(op_type, [n], {"component_types": self._dtypes, "timeout_ms": -1}, scope)
        if batch_dim == "n":
            batch_dim = None if value is None else int(value)
        for output, shape in zip(op.outputs, self._shapes):
            output.set_shape(TensorShape([batch_dim]).concatenate(shape))
        return self._dequeue_return_value(op.outputs)

    def dequeue_many(self, n, name=None):
        """Removes ``n`` elements, batched along a new dimension 0.

        ``OutOfRangeError`` once the queue is closed with fewer than ``n`` left."""
        return self._dequeue_n("QueueDequeueManyV2", n, name or f"{self._name}_DequeueMany", "n")

    def dequeue_up_to(self, n, name=None):
        """As ``dequeue_many``, but a closed queue returns its last, smaller batch."""
        return self._dequeue_n("QueueDequeueUpToV2", n, name or f"{self._name}_DequeueUpTo", None)

    def close(self, cancel_pending_enqueues=False, name=None):
        """An op that closes the queue: later enqueues fail, dequeues drain what is left."""
        return self._op("QueueCloseV2", [], {"cancel_pending_enqueues": bool(cancel_pending_enqueues)},
                        name or f"{self._name}_Close")

    def is_closed(self, name=None) -> Tensor:
        return self._op("QueueIsClosedV2", [], {}, name or f"{self._name}_Is_Closed").outputs[0]

    def size(self, name=None) -> Tensor:
        """The number of elements in the queue (an int32 scalar)."""
        return self._op("QueueSizeV2", [], {}, name or f"{self._name}_Size").outputs[0]


@tf_export("queue.FIFOQueue", "FIFOQueue")
class FIFOQueue(QueueBase):
    """A queue that dequeues elements in the order they were enqueued.

    ``tf.FIFOQueue(capacity, dtypes, shapes=None, names=None, shared_name=None,
    name="fifo_queue")``; without ``shapes``, elements may have any shape but
    ``dequeue_many`` is not available.
    """

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,  # noqa: A002
                 name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        with device("CPU"):
            ref = _create_queue("FIFOQueueV2", dtypes, shapes, capacity, shared_name, name)
        super().__init__(dtypes, shapes, names, ref)


@tf_export("queue.PaddingFIFOQueue", "io.PaddingFIFOQueue", "PaddingFIFOQueue")
class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose ``dequeue_many`` pads components of unknown size.

    Shapes may have ``None`` dimensions; a batch pads each component to its
    largest element, with 0 (``b""`` for strings)."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,  # noqa: A002
                 name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        ref = _create_queue("PaddingFIFOQueueV2", dtypes, shapes, capacity, shared_name, name)
        super().__init__(dtypes, shapes, names, ref)


@tf_export("queue.RandomShuffleQueue", "io.RandomShuffleQueue", "RandomShuffleQueue")
class RandomShuffleQueue(QueueBase):
    """A queue that dequeues its elements in a random order.

    It keeps at least ``min_after_dequeue`` elements (for mixing) until it is
    closed; ``seed`` follows TF1's seeding rules."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None,  # noqa: A002
                 shared_name=None, name="random_shuffle_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            # A graph seed and a shared name: seed2 depends on them only (TF1's rule), so that
            # every graph sharing the queue shuffles it alike.
            seed2 = int(hashlib.md5((str(seed1) + shared_name).encode()).hexdigest()[:8], 16) & 0x7FFFFFFF
        ref = _create_queue("RandomShuffleQueueV2", dtypes, shapes, capacity, shared_name, name,
                            min_after_dequeue=int(min_after_dequeue), seed=int(seed1), seed2=int(seed2))
        super().__init__(dtypes, shapes, names, ref)


@tf_export("queue.PriorityQueue", "io.PriorityQueue", "PriorityQueue")
class PriorityQueue(QueueBase):
    """A queue that dequeues the element of smallest priority first.

    Elements are ``(priority, *components)``, the priority an int64 scalar;
    equal priorities leave in arrival order. ``shapes`` are required."""

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None, name="priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes, types)
        if shapes is None:
            raise TypeError(f"Expected list for 'shapes' argument to 'priority_queue_v2' Op, not {shapes}.")
        ref = _create_queue("PriorityQueueV2", types, shapes, capacity, shared_name, name)
        super().__init__([dtypes.int64] + types, [TensorShape([])] + shapes if shapes else shapes, names, ref)

