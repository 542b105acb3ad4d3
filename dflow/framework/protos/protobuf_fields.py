"""The fields of ``dflow.framework.protos.protobuf``'s messages: ``Field`` (a message's schema entry),
``RepeatedField`` and ``MapField`` (the containers protobuf hands out), and protobuf's checks of
repeated values (``check_scalar``)."""

from __future__ import annotations

import math
import operator
import struct


class Field:
    """One field of a message: number, name, kind (a scalar kind or a Message class), label.

    ``label`` is ``"single"`` (proto3: omitted at its default), ``"oneof:<name>"``
    (written whenever set), ``"repeated"``, ``"packed"`` or ``"map"`` (string keys,
    ``kind`` the values' message class).
    """

    __slots__ = ("number", "name", "kind", "label", "oneof")

    def __init__(self, number: int, name: str, kind, label: str = "single"):
        self.number = number
        self.name = name
        self.kind = kind
        self.oneof = label[6:] if label.startswith("oneof:") else None
        self.label = "oneof" if self.oneof else label

    @property
    def is_message(self) -> bool:
        return isinstance(self.kind, type)

    @property
    def repeated(self) -> bool:
        return self.label in ("repeated", "packed")

    @property
    def is_map(self) -> bool:
        return self.label == "map"


_INT_RANGES = {"int64": (-(1 << 63), (1 << 63) - 1), "int32": (-(1 << 31), (1 << 31) - 1),
               "uint64": (0, (1 << 64) - 1), "uint32": (0, (1 << 32) - 1), "enum": (-(1 << 31), (1 << 31) - 1)}


def round_float32(v: float) -> float:
    return struct.unpack("<f", struct.pack("<f", v))[0]


def check_scalar(kind: str, v):
    """``v`` as a value of a repeated ``kind`` field, with protobuf's TypeError/ValueError otherwise."""
    if kind in _INT_RANGES:
        v = operator.index(v)
        lo, hi = _INT_RANGES[kind]
        if not lo <= v <= hi:
            raise ValueError(f"Value out of range: {v}")
        return v
    if kind in ("float", "double"):
        if isinstance(v, (str, bytes)):
            raise TypeError(f"must be real number, not {type(v).__name__}")
        v = float(v)
        if kind == "float" and math.isfinite(v) and abs(v) <= 3.4028234663852886e38:
            v = round_float32(v)
        return v
    if kind == "bytes":
        if not isinstance(v, (bytes, bytearray)):
            raise TypeError(f"expected bytes, {type(v).__name__} found")
        return bytes(v)
    if kind == "string":
        return v.decode("utf-8") if isinstance(v, bytes) else str(v)
    if kind == "bool":
        return bool(v)
    return v


class RepeatedField(list):
    """A repeated field: a list, with ``add(**fields)`` for repeated messages.

    Values are checked (and floats rounded to float32) as protobuf does;
    changing the list of an implicitly read sub-message sets it in its parent.
    """

    __slots__ = ("_cls", "_kind", "_owner")

    def __init__(self, cls=None, items=(), kind=None, owner=None):
        super().__init__()
        self._cls = cls
        self._kind = kind
        self._owner = owner
        if items:
            self.extend(items)

    def _check(self, v):
        if self._cls is not None:
            if not isinstance(v, self._cls):
                raise TypeError(f"Parameter to CopyFrom() must be instance of same class: expected "
                                f"{self._cls.__name__} got {type(v).__name__}.")
            return v
        return check_scalar(self._kind, v) if self._kind else v

    def _touch(self) -> None:
        if self._owner is not None:
            self._owner._touch()

    def append(self, v) -> None:
        super().append(self._check(v))
        self._touch()

    def extend(self, values) -> None:
        super().extend([self._check(v) for v in values])
        self._touch()

    def insert(self, i, v) -> None:
        super().insert(i, self._check(v))
        self._touch()

    def __setitem__(self, i, v) -> None:
        super().__setitem__(i, [self._check(x) for x in v] if isinstance(i, slice) else self._check(v))
        self._touch()

    def __iadd__(self, values):
        self.extend(values)
        return self

    def add(self, **kwargs):
        if self._cls is None:
            raise TypeError("add() is for repeated message fields; use append()")
        m = self._cls(**kwargs)
        self.append(m)
        return m


class MapField(dict):
    """A map field from strings to messages: reading a missing key creates its value, as protobuf does."""

    __slots__ = ("_cls", "_owner")

    def __init__(self, cls, owner):
        super().__init__()
        self._cls = cls
        self._owner = owner

    @staticmethod
    def _key(key) -> str:
        if isinstance(key, bytes):
            return key.decode("utf-8")
        if not isinstance(key, str):
            raise TypeError(f"map keys must be str, got {type(key).__name__}")
        return key

    def __missing__(self, key):
        m = self._cls()
        dict.__setitem__(self, self._key(key), m)
        self._owner._touch()
        return m

    def __getitem__(self, key):
        return super().__getitem__(self._key(key))

    def __contains__(self, key) -> bool:
        return isinstance(key, (str, bytes)) and super().__contains__(self._key(key))

    def __setitem__(self, key, value):
        raise ValueError("Message objects may not be assigned")

    def get_or_create(self, key):
        return self[key]

    def _merge(self, key, value) -> None:
        dict.__setitem__(self, self._key(key), value)
        self._owner._touch()
