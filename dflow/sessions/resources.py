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

import threading

import numpy as np

from dflow.framework import errors


class VariableState:
    """One variable's value. Updates replace the array (never write in place),
    so values already returned to callers never change under them."""

    __slots__ = ("name", "value", "lock", "spec")

    def __init__(self, name: str):
        self.name = name
        self.value = None
        self.lock = threading.Lock()
        self.spec = None  # (dtype, static shape) of the variable op that created it

    def read(self):
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
        return value

    def update(self, fn):
        """Atomically replaces the value with ``fn(value)``; returns the new value.

        ``fn`` must return a fresh array (as kernels do), which is then frozen
        without a copy."""
        with self.lock:
            value = self.value
            new = fn(value if value is not None else self.read())
            if type(new) is np.ndarray:
                new.flags.writeable = False
            elif isinstance(new, np.ndarray):
                new.flags.writeable = False
            elif isinstance(new, np.generic):
                new = np.asarray(new)
                new.flags.writeable = False
            self.value = new
        return new

    @property
    def initialized(self) -> bool:
        return self.value is not None


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
        if spec is not None and var.spec is not None and var.spec != spec:
            (d0, s0), (d1, s1) = var.spec, spec
            if d0 is not d1 or not s0.is_compatible_with(s1):
                raise errors.InvalidArgumentError(
                    None, None, f"Variable '{key[1]}' (container '{key[0]}') is shared by ops of different "
                                f"types: {name} is {d1.name} {s1}, but it was created as {d0.name} {s0}. A "
                                f"shared_name must keep its dtype and shape.")
        return var

    def resource(self, key, factory=None):
        """The resource named ``key`` (e.g. ``("queue", container, name)``), made by
        ``factory()`` on first use; without a factory, NotFoundError if it does not exist."""
        res = self._resources.get(key)
        if res is None:
            with self._lock:
                res = self._resources.get(key)
                if res is None:
                    if factory is None:
                        raise errors.NotFoundError(None, None, f"Resource {key} does not exist in this session.")
                    res = self._resources[key] = factory()
        return res

    def clear(self) -> None:
        with self._lock:
            self._op_state.clear()
            self._variables.clear()
            self._resources.clear()

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
            for k in drop_r:
                del self._resources[k]
        return len(drop_v) + len(drop_r)
