"""``tf.CriticalSection``: runs of a section's ops never overlap.

``cs.execute(fn)`` builds, as TF1 does:

* ``MutexLock`` (on the section's ``MutexV2`` resource): waits until the
  mutex is free and takes it; every op ``fn`` creates runs after it, and it
  runs after every outside value those ops read (so it never holds the mutex
  while waiting for inputs);
* ``ConsumeMutexLock``: releases the mutex once all ops ``fn`` created have run
  (TF1 waits only for ``fn``'s results; dflow also keeps side effects inside);
* the returned values: identities of ``fn``'s results that run after the release.

The lock waits with ``ctx.wait`` and honours deadlines. TF1 releases a mutex
when the last reference to its lock value dies, so a run that fails inside the
section still releases it; dflow gets the same by treating a mutex as free
once the run that took it is no longer executing (its partition program and
its session call have left every thread's stack).

Two executions of one section in one run take the mutex once (a run's
partition executes its ops in one thread, one after another).
"""

from __future__ import annotations

import collections
import gc
import sys
import threading
import time

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, nest
from dflow.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    get_default_graph,
    name_scope,
)
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.control_flow.control_flow_ops import group, identity
from dflow.ops.state.data_flow_ops import resource_handle, resource_key

CRITICAL_SECTION_EXECUTIONS = "critical_section_executions"

# Ops whose output names a resource (fn's ops that read one "access" it).
_RESOURCE_OPS = {"VariableV2", "MutexV2", "FIFOQueueV2", "RandomShuffleQueueV2", "PaddingFIFOQueueV2",
                 "PriorityQueueV2"}


class MutexState:
    """A mutex held by one run at a time; ``lock`` waits, ``unlock`` frees it.

    The holder is the run's ``RunContext``, the thread that took the mutex and
    the frame of the partition program that called the lock kernel.
    """

    def __init__(self, name: str):
        self.name = name
        self._cond = threading.Condition()
        self._owner = None  # (ctx, thread id, program frame)
        self._holds = 0
        self._generation = 0
        self._seen_alive = 0.0

    def lock(self, ctx, frame=None) -> int:
        """Takes the mutex for the run of ``ctx``; returns the acquisition's number."""
        me = threading.get_ident()
        with self._cond:
            owner = self._owner
            if owner is not None and owner[0] is ctx and owner[1] == me:
                self._holds += 1  # the same run, in the same thread: its ops run one after another
                return self._generation
            ctx.wait(self._cond, self._free, f"Mutex '{self.name}' (a CriticalSection) to be released")
            self._owner = (ctx, me, frame)
            self._holds = 1
            self._generation += 1
            return self._generation

    def unlock(self, generation: int) -> None:
        with self._cond:
            if generation != self._generation or self._owner is None:
                return  # freed already, because the run that took it had ended
            self._holds -= 1
            if self._holds <= 0:
                self._owner = None
                self._cond.notify_all()

    def _free(self) -> bool:
        owner = self._owner
        if owner is None:
            return True
        if owner[0].cancelled or not self._run_alive(*owner):
            self._owner = None  # the run that held it failed or ended without releasing it
            return True
        return False

    def _run_alive(self, ctx, thread: int, frame) -> bool:
        stacks = _current_frames()
        f = stacks.get(thread)
        while f is not None:  # the usual case: the locking program is still running
            if f is frame:
                return True
            f = f.f_back
        now = time.monotonic()
        if now - self._seen_alive < 0.1:
            return True
        # The locking partition is done; the run may still be going (several partitions):
        # does a frame of another thread hold its context (the session's run, a partition)?
        # Frames of this method in other waiting threads hold it too: they do not count.
        me = threading.get_ident()
        for tid, f in stacks.items():
            if tid == me:
                continue
            while f is not None:
                if f.f_code is not _RUN_ALIVE_CODE:
                    for v in f.f_locals.values():
                        if v is ctx:
                            self._seen_alive = now
                            return True
                f = f.f_back
        return False


_RUN_ALIVE_CODE = MutexState._run_alive.__code__


def _mutex_kernel(op, resources):
    a = op._attrs
    handle = []

    def kernel():
        if not handle:
            name = a["shared_name"] or f"_{op.name}"
            resources.resource(("mutex", a["container"], name), lambda: MutexState(name))
            handle.append(resource_handle(a["container"], name))
        return handle[0]

    return kernel


def _mutex(resources, handle) -> MutexState:
    return resources.resource(resource_key("mutex", handle))


def _lock_kernel(op, resources):
    def kernel(ctx, handle):
        # The caller is the partition program: the lock lives while that frame runs.
        return np.int64(_mutex(resources, handle).lock(ctx, sys._getframe(1)))

    return kernel


def _consume_kernel(op, resources):
    return lambda handle, lock: _mutex(resources, handle).unlock(int(lock))


register("MutexV2", infer=lambda op: [(dtypes.string, TensorShape([]))], make_kernel=_mutex_kernel, stateful=True,
         gpu=False)
register("MutexLock", infer=lambda op: [(dtypes.int64, TensorShape([]))], make_kernel=_lock_kernel, stateful=True,
         gpu=False, uses_context=True)
register("ConsumeMutexLock", infer=lambda op: [], make_kernel=_consume_kernel, stateful=True, gpu=False)
# Runs once its inputs exist (a NoOp with data inputs, so that fed values cut the graph).
register("_WaitForInputs", infer=lambda op: [], kernel=lambda *values: None, foldable=False)
for _t in ("MutexV2", "MutexLock", "ConsumeMutexLock", "_WaitForInputs"):
    not_differentiable(_t)


# -- the Python API ----------------------------------------------------------------------

_ExecutionSignature = collections.namedtuple("_ExecutionSignature",
                                             ("op", "handle", "resources", "exclusive_resource_access"))

def _current_frames() -> dict:
    """``sys._current_frames()`` with the garbage collector held off: CPython 3.11 holds its
    thread-list lock while building the result, and a collection started there that frees a
    ``threading.local`` (which walks the thread list too) deadlocks the process."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return sys._current_frames()
    finally:
        if enabled:
            gc.enable()


_running = threading.local()  # the sections whose fn is being built in this thread


def _identity(x):
    if isinstance(x, Operation):
        return group(x)
    return identity(x)


def _resources_used(ops) -> set:
    found = set()
    for op in ops:
        for t in op._inputs:
            if t._op._type in _RESOURCE_OPS:
                found.add(t._op)
        for v in op._attrs.values():  # variable updates name their variable by attr
            if isinstance(v, Operation) and v._type in _RESOURCE_OPS:
                found.add(v)
    return found


@tf_export("CriticalSection")
class CriticalSection:
    """A section of the graph that runs for one ``Session.run`` at a time.

    >>> import dflow as tf
    >>> v = tf.Variable(0)
    >>> cs = tf.CriticalSection(name="cs")
    >>> add = cs.execute(lambda: v.assign(v.read_value() + 1))
    >>> with tf.Session() as sess:
    ...     sess.run(v.initializer)
    ...     print(sess.run(add))
    1
    """

    def __init__(self, name=None, shared_name=None, critical_section_def=None, import_scope=None):
        if critical_section_def is not None:
            raise ValueError("Argument `critical_section_def` is not supported.")  # TF 2.15's own refusal
        with name_scope(name, "CriticalSection", []) as scope, control_dependencies(None):
            self._handle = apply_op("MutexV2", [], {"container": "", "shared_name": shared_name or ""},
                                    name=scope).outputs[0]
        self._shared_name = shared_name or ""

    @property
    def name(self) -> str:
        return self._handle.op.name

    def _is_self_handle(self, handle: Tensor) -> bool:
        if handle is self._handle:
            return True
        op = handle.op
        return (op._type == "MutexV2" and bool(self._shared_name)
                and op._attrs["shared_name"] == self._shared_name and op._graph is self._handle.graph)

    def execute(self, fn, exclusive_resource_access=True, name=None):
        """Builds ``fn()``'s ops inside the section; returns its results (same structure).

        Raises ValueError if ``fn`` executes this section again (it would wait for
        itself), or if it uses a resource that another section's execution also
        uses while either asked for ``exclusive_resource_access``.
        """
        stack = getattr(_running, "stack", None)
        if stack is None:
            stack = _running.stack = []
        if any(self._is_self_handle(h) for h in stack):
            raise ValueError(f"Attempting to lock a CriticalSection ({self.name}) in which we are already running. "
                             f"This is illegal and may cause deadlocks.")
        graph = get_default_graph()
        with name_scope(name, "critical_section_execute", []):
            stack.append(self._handle)
            try:
                with colocate_with(self._handle.op):
                    lock = apply_op("MutexLock", [self._handle], name="MutexLock").outputs[0]
                with graph._lock:  # ops other threads create meanwhile are not fn's
                    first = len(graph.get_operations())
                    with control_dependencies([lock]):
                        r = fn()
                    created = graph.get_operations()[first:]
            finally:
                stack.pop()
            self._order_lock_after_inputs(created, lock.op)
            used = _resources_used(created)
            if any(op is self._handle.op or self._is_self_handle(op.outputs[0]) for op in used
                   if op._type == "MutexV2"):
                raise ValueError(f"Attempting to lock a CriticalSection ({self.name}) in which we are already "
                                 f"running. This is illegal and may cause deadlocks.")
            self._check_multiple_access(used, exclusive_resource_access)

            flat = [_identity(x) for x in nest.flatten(r)]
            ran = [op for op in created if op._type != "Placeholder"]
            with control_dependencies(flat + ran), colocate_with(self._handle.op):
                release = apply_op("ConsumeMutexLock", [self._handle, lock], name="ConsumeMutexLock")
            with control_dependencies([release]):
                outputs = nest.pack_sequence_as(r, [_identity(x) for x in flat])
            graph.add_to_collection(CRITICAL_SECTION_EXECUTIONS, _ExecutionSignature(
                op=lock.op, handle=self._handle, resources=used,
                exclusive_resource_access=exclusive_resource_access))
        return outputs

    @staticmethod
    def _order_lock_after_inputs(created: list, lock_op: Operation) -> None:
        """Makes the lock wait for every outside value ``fn``'s ops read (TF1's rule: a
        run never holds the mutex while it computes the section's inputs).

        The values are inputs of a gate op the lock depends on, so a fed value
        cuts the graph there as it does anywhere (a control edge would not)."""
        inside = set(created) | {lock_op}
        values, ops = [], []
        for op in created:
            for t in op._inputs:
                if t._op not in inside and t not in values and t is not lock_op._inputs[0]:
                    values.append(t)
            for dep in op._control_inputs:
                if dep not in inside and dep not in ops and dep not in lock_op._control_inputs:
                    ops.append(dep)
        if values or ops:
            with control_dependencies(None), control_dependencies(ops):
                gate = apply_op("_WaitForInputs", values, name="group_deps")
            lock_op._add_control_input(gate)

    def _check_multiple_access(self, used: set, exclusive: bool) -> None:
        for sig in get_default_graph().get_collection(CRITICAL_SECTION_EXECUTIONS):
            if self._is_self_handle(sig.handle):
                continue
            if not (exclusive or sig.exclusive_resource_access):
                continue
            shared = used & sig.resources
            if shared:
                names = sorted(op.name for op in shared)
                raise ValueError(
                    f"This execution would access resources: {names}. Either this lock (CriticalSection: "
                    f"{self.name}) or lock '{sig.op.name}' (CriticalSection: {sig.handle.op.name}) requested "
                    f"exclusive resource access of this resource. Did you mean to call execute with keyword "
                    f"argument exclusive_resource_access=False?")
