"""State that a local session owns (TF1 DirectSession semantics).

Kernels of stateful ops keep their state here, so that every plan of one
session shares it and two sessions never do:

* ``op_state(op, factory)``: per-op kernel state (random generators);
* ``variable(key)``: the value of a variable, keyed by (container, shared
  name);
* ``resource(key, factory)``: any other named state (a queue, a mutex),
  created by ``factory()`` on first use.

On a cluster target the same interface is served by Dask actors.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time

import numpy as np

from dflow.framework import errors


class VariableState:
    """One variable's value. Values already returned to callers never change under them:
    updates replace the array, except that a training op may write into it when nothing but
    this state holds it (``sole_owner``), as TF1's kernels update in place.

    The in-place protocol: the writer, holding ``lock``, sets ``writing`` before it checks
    ``sole_owner`` and clears it when done; a reader takes its reference first and then looks
    at ``writing``. A reader whose reference the writer could have missed therefore sees the
    flag, and reads again under the lock, after the write."""

    __slots__ = ("name", "value", "lock", "spec", "updates", "updated", "device", "writing")

    def __init__(self, name: str):
        self.name = name
        self.value = None
        self.lock = threading.Lock()
        self.spec = None  # (dtype, static shape) of the variable op that created it
        self.updates = 0  # assignments and updates so far, and when the last one was (time.time): the dashboard's
        self.updated = None
        self.device = None  # the device of the first partition that bound it (see SessionResources.binding)
        self.writing = False

    def read(self):
        v = self.value
        if self.writing:  # an update may be writing into v: wait for it, and take what it wrote
            with self.lock:
                v = self.value
        if v is None:
            raise errors.FailedPreconditionError(
                None, None, f"Attempting to use uninitialized value {self.name}. Run its initializer first "
                            f"(e.g. sess.run(tf.global_variables_initializer())).")
        return v

    def assign(self, value, validate_shape: bool = True):
        value = _frozen(value)
        with self.lock:
            old = self.value
            if validate_shape and old is not None and old.shape != value.shape:
                raise errors.InvalidArgumentError(
                    None, None, f"Assign requires shapes of both tensors to match. lhs shape= {list(old.shape)} "
                                f"rhs shape= {list(value.shape)} (variable {self.name})")
            self.value = value
            self.updates += 1
            self.updated = _clock()
        return value

    def update(self, fn):
        """Atomically replaces the value with ``fn(value)``; returns the new value.

        ``fn`` must return a fresh array (as kernels do), which is then frozen
        without a copy."""
        with self.lock:
            value = self.value
            return self.replace(fn(value if value is not None else self.read()))

    def replace(self, new):
        """Makes the fresh array ``new`` the value, frozen without a copy (hold ``lock``)."""
        if isinstance(new, np.ndarray):
            new.flags.writeable = False
        elif isinstance(new, np.generic):
            new = np.asarray(new)
            new.flags.writeable = False
        self.value = new
        self.updates += 1
        self.updated = _clock()
        return new

    def _refs(self) -> int:
        return sys.getrefcount(self.value)

    def sole_owner(self) -> bool:
        """Whether the value is a numpy array that owns its memory and that nothing but this
        state refers to: no caller, run, view or buffer can see a write into it. Call holding
        ``lock``, with ``writing`` set."""
        return self._refs() <= _SOLE_REFS and type(self.value) is np.ndarray and self.value.base is None

    @property
    def initialized(self) -> bool:
        return self.value is not None


IN_PLACE_ELEMENTS = 1 << 16  # updates of smaller values replace them: allocation is cheap there


def update_in_place(states: list, write):
    """Holding each state's lock in order, calls ``write(*values)`` to update the values in place
    when every state is the sole owner of a numpy value of ``IN_PLACE_ELEMENTS`` or more;
    returns the first value, or None (nothing written) when any is shared or small.

    ``write`` checks its arguments before it writes, so an error from those checks leaves the
    values as they were (numpy arithmetic on valid arrays of the same shape does not fail
    midway, unless ``np.seterr`` asks it to raise)."""
    first = states[0].value
    if type(first) is not np.ndarray or first.size < IN_PLACE_ELEMENTS:
        return None
    del first
    locked = []
    try:
        for s in states:
            s.lock.acquire()
            locked.append(s)
            s.writing = True
        if not all(s.sole_owner() for s in states):
            return None
        values = [s.value for s in states]
        for v in values:
            v.flags.writeable = True
        try:
            write(*values)
        finally:
            for v in values:
                v.flags.writeable = False
        now = _clock()
        for s in states:
            s.updates += 1
            s.updated = now
        return values[0]
    finally:
        for s in reversed(locked):
            s.writing = False
            s.lock.release()


def _sole_refs() -> int:
    probe = VariableState("probe")
    probe.value = np.empty(1)
    return probe._refs()


_SOLE_REFS = _sole_refs()  # what _refs counts when only the state holds its value


_clock = time.time


def _frozen(value):
    if isinstance(value, np.ndarray):
        if value.flags.writeable:
            value = value.copy()
            value.flags.writeable = False
        return value
    if isinstance(value, np.generic):
        return np.asarray(value)
    return value  # device arrays (CuPy) are owned by their partition


def _op_key(op):
    """An op's kernel state is kept per op; on a worker, per (client graph, op name), so that it
    survives the client extending its graph (each version is imported anew, with new op objects,
    while TF1 keeps a session's stateful kernels: an anonymous queue, a random stream)."""
    lineage = op._graph._attachments.get(LINEAGE)
    return op if lineage is None else (lineage, op.name)


LINEAGE = "dflow_lineage"


class SessionResources:
    """Per-session kernel state and variables."""

    def __init__(self):
        self._op_state: dict = {}
        self._variables: dict = {}
        self._resources: dict = {}
        self._lock = threading.Lock()
        self._binding = threading.local()  # .device: the partition whose kernels this thread binds
        self._devices: dict = {}  # resource key -> the device of the partition that first bound it

    @contextlib.contextmanager
    def binding(self, device: str):
        """While a partition of ``device`` binds its kernels: variables made or found note the device."""
        self._binding.device = device
        try:
            yield
        finally:
            self._binding.device = None

    def op_state(self, op, factory):
        key = _op_key(op)
        state = self._op_state.get(key)
        if state is None:
            with self._lock:
                state = self._op_state.get(key)
                if state is None:
                    state = self._op_state[key] = factory()
        return state

    def variable(self, key: tuple, name: str, spec: tuple | None = None) -> VariableState:
        """The state of variable ``key`` = (container, shared name), created uninitialized.

        ``spec`` = (dtype, static shape) of the variable op asking; two ops sharing
        one name must agree on both (InvalidArgumentError naming them otherwise)."""
        var = self._variables.get(key)
        if var is None:
            with self._lock:
                var = self._variables.setdefault(key, VariableState(name))
                if var.spec is None:
                    var.spec = spec
        if var.device is None:
            var.device = self.bound_device()
        if spec is not None and var.spec is not None and var.spec != spec:
            (d0, s0), (d1, s1) = var.spec, spec
            if d0 is not d1 or not s0.is_compatible_with(s1):
                raise errors.InvalidArgumentError(
                    None, None, f"Variable '{key[1]}' (container '{key[0]}') is shared by ops of different "
                                f"types: {name} is {d1.name} {s1}, but it was created as {d0.name} {s0}. A "
                                f"shared_name must keep its dtype and shape.")
        return var

    def bound_device(self) -> str | None:
        """The device of the partition whose kernels this thread binds now (see ``binding``)."""
        return getattr(self._binding, "device", None)

    def resource(self, key, factory=None, device: str | None = None):
        """The resource named ``key`` (e.g. ``("queue", container, name)``), made by
        ``factory()`` on first use; without a factory, NotFoundError if it does not exist.
        ``device``: where the op making it was placed (shown by the dashboard)."""
        res = self._resources.get(key)
        if res is None:
            with self._lock:
                res = self._resources.get(key)
                if res is None:
                    if factory is None:
                        raise errors.NotFoundError(None, None, f"Resource {key} does not exist in this session.")
                    res = self._resources[key] = factory()
        if device is not None and key not in self._devices:
            self._devices[key] = device
        return res

    def snapshot(self) -> dict:
        """What the dashboard shows of this store: ``{"variables": [...], "queues": [...]}``.

        Reads copies of the dicts and one field at a time of each state, never a
        lock that a run holds (a row may be a moment older than its neighbour)."""
        variables = []
        for (container, shared), var in self._variables.copy().items():
            value, spec = var.value, var.spec
            if spec is not None:
                dtype = spec[0].name
                shape = spec[1].as_list() if spec[1].rank is not None else None
            else:
                dtype, shape = None, None
            if value is not None:
                dtype = dtype or str(value.dtype)
                shape = [int(d) for d in value.shape]
            variables.append({"name": var.name, "container": container, "shared_name": shared, "dtype": dtype,
                              "shape": shape, "bytes": int(getattr(value, "nbytes", 0) or 0),
                              "initialized": value is not None,
                              "gpu": value is not None and type(value).__module__.startswith("cupy"),
                              "updates": var.updates, "updated": var.updated, "device": var.device})
        queues = []
        for key, res in self._resources.copy().items():
            describe = getattr(res, "describe", None)
            if describe is not None:
                queues.append(dict(describe(), device=self._devices.get(key)))
        return {"variables": variables, "queues": queues}

    def clear(self) -> None:
        with self._lock:
            self._op_state.clear()
            self._variables.clear()
            self._resources.clear()
            self._devices.clear()

    def clear_containers(self, containers=None) -> int:
        """Drops variables and resources of ``containers`` (all of them when None);
        returns how many were dropped (``tf.Session.reset``).

        A dropped variable is emptied in place, not forgotten: compiled programs
        hold its state, and must see it uninitialized (and free to be
        re-created with another dtype or shape), not a stale copy."""
        with self._lock:
            drop_v = [k for k in self._variables if containers is None or k[0] in containers]
            drop_r = [k for k in self._resources
                      if containers is None or (isinstance(k, tuple) and len(k) > 1 and k[1] in containers)]
            for k in drop_v:
                state = self._variables[k]
                with state.lock:
                    state.value = None
                    state.spec = None
                    state.device = None
            for k in drop_r:
                del self._resources[k]
                self._devices.pop(k, None)
        return len(drop_v) + len(drop_r)
