"""The run-time values that flow through a TensorArray's ``flow`` tensor.

dflow's TensorArray is a value, not a resource: its ``flow`` tensor carries a
``TensorArrayValue`` (the elements written so far), each write op makes a
new one, and reads are ops on it. So a TensorArray passes through
``while_loop`` and ``cond`` as an ordinary tensor, and its gradient is an
ordinary chain of gradient ops whose own flow carries a
``TensorArrayGradient`` (the elements' gradients, by index).

A write does not copy the elements. The values of one array form a chain
(each the result of a write to the previous one) that shares one ``_Store``;
the last value of the chain, its *head*, appends to the store in place, and
each element records the version of the value that wrote it, so an older
value still sees only its own elements. A write to a value that is no
longer the head (two writes to one value) copies the elements it sees.

Messages are TF1's, prefixed by the array's name as TF1's kernels do.
"""

from __future__ import annotations

import numpy as np

from dflow.kernels import array_module
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array.index_args import dims_str


class TensorArraySpec:
    """What every value of one TensorArray shares: its name, dtype and rules."""

    __slots__ = ("name", "dtype", "dynamic_size", "clear_after_read", "identical_shapes", "element_shape")

    def __init__(self, name: str, dtype, dynamic_size: bool, clear_after_read: bool, identical_shapes: bool,
                 element_shape):
        self.name = name
        self.dtype = np.dtype(dtype)
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.identical_shapes = identical_shapes
        self.element_shape = element_shape  # a list with None for unknown dims, or None (unknown rank)


class _Store:
    __slots__ = ("items", "head", "cleared", "shape")

    def __init__(self, items: dict, head: int, cleared: set, shape):
        self.items = items  # index -> (element, version of the value that wrote it)
        self.head = head
        self.cleared = cleared
        self.shape = shape  # the element shape the first write fixed (identical_shapes), or None


def _shape_str(shape) -> str:
    return "<unknown>" if shape is None else dims_str(shape)


def _compatible(shape: tuple, want) -> bool:
    return want is None or (len(want) == len(shape) and all(w is None or w == s for w, s in zip(want, shape)))


class TensorArrayValue:
    """A TensorArray's contents at one point of its flow (see the module docstring)."""

    __slots__ = ("spec", "size", "_store", "_version")

    def __init__(self, spec: TensorArraySpec, size: int, store: _Store | None = None, version: int = 0):
        self.spec = spec
        self.size = size
        self._store = store if store is not None else _Store({}, 0, set(), None)
        self._version = version

    def __repr__(self):
        return f"<TensorArrayValue {self.spec.name} size={self.size} written={len(self._visible())}>"

    def _err(self, msg: str):
        return _invalid(f"TensorArray {self.spec.name}: {msg}")

    def _visible(self) -> dict:
        v = self._version
        return {i: e for i, (e, w) in self._store.items.items() if w <= v}

    def _element(self, i: int):
        item = self._store.items.get(i)
        return item[0] if item is not None and item[1] <= self._version else None

    def _known_shape(self):
        """The fully defined element shape, if the spec or a write fixed one."""
        shape = self._store.shape if self._store.shape is not None else self.spec.element_shape
        if shape is None or any(d is None for d in shape):
            return None
        return tuple(shape)

    # -- writing --------------------------------------------------------------------------

    def write_many(self, indices, elements) -> TensorArrayValue:
        """A new value with ``elements[k]`` written at ``indices[k]``."""
        spec = self.spec
        size = self.size
        for i, x in zip(indices, elements):
            if i < 0 or (i >= size and not spec.dynamic_size):
                raise self._err(f"Tried to write to index {i} but array is not resizeable and size is: {size}")
            if x.dtype != spec.dtype:
                raise _invalid(f"TensorArray dtype is {spec.dtype.name} but Op is trying to write dtype "
                               f"{x.dtype.name}.")
            if spec.identical_shapes:
                want = self._store.shape if self._store.shape is not None else spec.element_shape
                if not _compatible(x.shape, want):
                    raise self._err(f"Could not write to TensorArray index {i} because the value shape is "
                                    f"{dims_str(x.shape)} which is incompatible with the TensorArray's inferred "
                                    f"element shape: {dims_str(list(want))} (consider setting infer_shape=False).")
            size = max(size, i + 1)
        store, version = self._store, self._version
        if store.head != version:  # an older value: copy what it sees into a store of its own
            seen = self._visible()
            store = _Store({i: (e, 0) for i, e in seen.items()}, 0, {i for i in store.cleared if i in seen},
                           store.shape)
            version = 0
        for i, x in zip(indices, elements):
            if i in store.cleared:
                raise self._err(f"Could not write to TensorArray index {i} because it has already been read.")
            if i in store.items:  # the head store holds no element newer than ``version``
                raise self._err(f"Could not write to TensorArray index {i} because it has already been written to.")
            version += 1
            store.items[i] = (x, version)
            if spec.identical_shapes and store.shape is None:
                store.shape = tuple(x.shape)
        store.head = version
        return TensorArrayValue(spec, size, store, version)

    # -- reading --------------------------------------------------------------------------

    def read_many(self, indices) -> list:
        """The elements at ``indices``; an unwritten one reads as zeros when the element shape is known."""
        out = []
        for i in indices:
            if i < 0 or i >= self.size:
                raise _invalid(f"Tried to read from index {i} but array size is: {self.size}")
            if i in self._store.cleared:
                raise self._err(f"Could not read index {i} twice because it was cleared after a previous read "
                                f"(perhaps try setting clear_after_read = false?).")
            x = self._element(i)
            if x is None:
                shape = self._known_shape()
                if shape is None:
                    raise self._err(
                        f"Could not read from TensorArray index {i}.  Furthermore, the element shape is not fully "
                        f"defined: {_shape_str(self.spec.element_shape)}.  It is possible you are working "
                        f"with a resizeable TensorArray and stop_gradients is not allowing the gradients to be "
                        f"written.  If you set the full element_shape property on the forward TensorArray, the "
                        f"proper all-zeros tensor will be returned instead of incurring this error.")
                x = np.zeros(shape, self.spec.dtype)
            elif self.spec.clear_after_read:
                self._store.cleared.add(i)
            out.append(x)
        return out

    def stack(self, indices):
        """The elements at ``indices`` stacked along a new axis 0."""
        elements = self.read_many(indices)
        if not elements:
            shape = self._known_shape()
            if shape is None:
                raise self._err(f"TensorArray has size zero, but element shape {_shape_str(self.spec.element_shape)}"
                                " is not fully defined. Currently only static shapes are supported when packing "
                                "zero-size TensorArrays.")
            return np.zeros((0,) + shape, self.spec.dtype)
        first = elements[0].shape
        for k, x in enumerate(elements):
            if x.shape != first:
                raise self._err(f"Could not read from TensorArray index {indices[k]}: its shape "
                                f"{dims_str(x.shape)} differs from that of index {indices[0]}: {dims_str(first)}")
        return array_module(*elements).stack(elements)

    def concat(self):
        """All elements concatenated along axis 0, and their lengths (int64)."""
        elements = self.read_many(range(self.size))
        for i, x in enumerate(elements):
            if x.ndim == 0:
                raise self._err(f"Concat saw a scalar shape at index {i} but requires at least vectors.")
        if not elements:
            es = self.spec.element_shape
            rest = tuple(es[1:]) if es is not None and all(d is not None for d in es[1:]) else ()
            return np.zeros((0,) + rest, self.spec.dtype), np.zeros((0,), np.int64)
        lengths = np.array([x.shape[0] for x in elements], np.int64)
        return array_module(*elements).concatenate(elements), lengths


class TensorArrayGradient:
    """The gradients of a TensorArray's elements, by index; adding two sums them index by index.

    A plain zero (what ``zeros_like`` makes of a flow) stands for no gradients.
    """

    __slots__ = ("items",)

    def __init__(self, items: dict):
        self.items = items

    def __repr__(self):
        return f"<TensorArrayGradient at {sorted(self.items)}>"

    def __add__(self, other):
        if not isinstance(other, TensorArrayGradient):
            return self
        small, large = sorted((self.items, other.items), key=len)
        items = dict(large)
        for i, g in small.items():
            items[i] = items[i] + g if i in items else g
        return TensorArrayGradient(items)

    __radd__ = __add__


def grad_items(value) -> dict:
    """The gradients a flow's gradient value holds (none for a plain zero)."""
    return value.items if isinstance(value, TensorArrayGradient) else {}


def gradient_of(indices, elements) -> TensorArrayGradient:
    """The gradient value with ``elements[k]`` at ``indices[k]`` (repeated indices add up)."""
    items: dict = {}
    for i, g in zip(indices, elements):
        items[i] = items[i] + g if i in items else g
    return TensorArrayGradient(items)
