"""Protocol buffers encoded by hand: the wire format and a generated-protobuf-like ``Message``.

dflow writes and reads TensorFlow's protocol buffers (event files'
``Summary`` and ``Event``, ``tf.train.Example``, ``TensorProto``, ...)
without depending on ``protobuf``: each message is a small ``Message``
subclass listing its ``Field``s, over an encoder and decoder of the wire
format (varints, fixed 32/64-bit values, length-delimited fields).
Fields serialize in field-number order with proto3 rules (a scalar at its
default is omitted; a ``oneof`` member is written whenever set), which gives
byte-for-byte TensorFlow output. Map fields serialize in insertion order,
or in key order with ``SerializeToString(deterministic=True)``, as protobuf
does. Unknown fields read are kept and written back.

The classes mimic the generated protobuf API that TF1 code uses::

    class Int64List(Message):
        FIELDS = (Field(1, "value", "int64", "packed"),)

    Int64List(value=[1, 2]).SerializeToString()   # b"\n\x02\x01\x02"
"""

from __future__ import annotations

import math
import struct

from dflow.framework.protos.protobuf_fields import (  # noqa: F401 - Field and RepeatedField are used from here too
    Field,
    MapField,
    RepeatedField,
    round_float32,
)

# -- wire format ---------------------------------------------------------------------

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


def encode_varint(value: int) -> bytes:
    """Base-128 varint; negative int64 values take ten bytes (two's complement)."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def decode_varint(data: bytes, pos: int) -> tuple[int, int]:
    """(value, new position) of the varint at ``data[pos]``."""
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint in protocol buffer")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise ValueError("varint too long in protocol buffer")


def _key(number: int, wire: int) -> bytes:
    return encode_varint((number << 3) | wire)


def iter_fields(data: bytes):
    """Yields ``(field number, wire type, value, raw bytes of the whole field)``.

    ``value`` is an int for varints, and bytes for the other wire types.
    """
    data = bytes(data)
    pos, n = 0, len(data)
    while pos < n:
        start = pos
        key, pos = decode_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            value, pos = decode_varint(data, pos)
        elif wire == _I64:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == _I32:
            value, pos = data[pos:pos + 4], pos + 4
        elif wire == _LEN:
            length, pos = decode_varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        else:
            raise ValueError(f"unsupported wire type {wire} in protocol buffer")
        if pos > n:
            raise ValueError("truncated protocol buffer")
        yield number, wire, value, data[start:pos]


# -- scalar kinds --------------------------------------------------------------------
# name -> (wire type, encode(value) -> bytes, decode(wire value) -> value, default, packed element size)

def _signed64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def _signed32(v: int) -> int:
    v &= (1 << 32) - 1
    return v - (1 << 32) if v >= 1 << 31 else v


_KINDS = {
    "double": (_I64, lambda v: struct.pack("<d", v), lambda b: struct.unpack("<d", b)[0], 0.0),
    "float": (_I32, lambda v: struct.pack("<f", v), lambda b: struct.unpack("<f", b)[0], 0.0),
    "int64": (_VARINT, lambda v: encode_varint(int(v)), _signed64, 0),
    "int32": (_VARINT, lambda v: encode_varint(int(v)), _signed32, 0),
    "uint64": (_VARINT, lambda v: encode_varint(int(v)), lambda v: v & ((1 << 64) - 1), 0),
    "uint32": (_VARINT, lambda v: encode_varint(int(v)), lambda v: v & ((1 << 32) - 1), 0),
    "enum": (_VARINT, lambda v: encode_varint(int(v)), _signed32, 0),
    "bool": (_VARINT, lambda v: encode_varint(1 if v else 0), bool, False),
    "string": (_LEN, lambda v: v.encode("utf-8") if isinstance(v, str) else bytes(v),
               lambda b: b.decode("utf-8", errors="replace"), ""),
    "bytes": (_LEN, lambda v: v.encode("utf-8") if isinstance(v, str) else bytes(v), bytes, b""),
}


def _is_default(kind: str, value) -> bool:
    if kind in ("double", "float"):
        return struct.pack("<d", value) == b"\x00" * 8  # -0.0 is written, as protobuf does
    return not value


class Message:
    """Base of the hand-written messages: the generated-protobuf API subset TF1 code uses."""

    FIELDS: tuple = ()
    _BY_NAME: dict = {}
    _BY_NUMBER: dict = {}
    _ORDERED: tuple = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fields = cls.__dict__.get("FIELDS")
        if fields is not None:
            cls._set_fields(fields)

    @classmethod
    def _set_fields(cls, fields) -> None:
        cls.FIELDS = tuple(fields)
        cls._BY_NAME = {f.name: f for f in cls.FIELDS}
        cls._BY_NUMBER = {f.number: f for f in cls.FIELDS}
        cls._ORDERED = tuple(sorted(cls.FIELDS, key=lambda f: f.number))

    def __init__(self, **kwargs):
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_unknown", [])
        for k, v in kwargs.items():
            if k not in self._BY_NAME:
                raise ValueError(f"Protocol message {type(self).__name__} has no \"{k}\" field.")
            f = self._BY_NAME[k]
            if f.is_map:
                target = getattr(self, k)
                for key, value in dict(v).items():
                    target[key].CopyFrom(value)
            elif f.repeated:
                getattr(self, k).extend(v)
            elif f.is_message and isinstance(v, dict):
                setattr(self, k, f.kind(**v))
            else:
                setattr(self, k, v)

    # -- attribute access ---------------------------------------------------------
    def __getattr__(self, name):
        f = type(self)._BY_NAME.get(name)
        if f is None:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        values = self._values
        if name in values:
            return values[name]
        if f.is_map:
            values[name] = MapField(f.kind, self)
            return values[name]
        if f.repeated:
            values[name] = RepeatedField(f.kind if f.is_message else None, kind=None if f.is_message else f.kind,
                                         owner=self)
            return values[name]
        if f.is_message:
            # Reading an unset sub-message gives an empty one; assigning into it sets it.
            sub = f.kind()
            object.__setattr__(sub, "_parent", (self, name))
            return sub
        return _KINDS[f.kind][3]

    def __setattr__(self, name, value):
        f = type(self)._BY_NAME.get(name)
        if f is None:
            raise AttributeError(f"Assignment not allowed (no field \"{name}\" in protocol message "
                                 f"{type(self).__name__}).")
        if f.repeated or f.is_map:
            raise AttributeError(f"Assignment not allowed to repeated field \"{name}\" in protocol message "
                                 f"object; use append/extend.")
        if f.is_message:
            if not isinstance(value, f.kind):
                raise TypeError(f"{name} must be a {f.kind.__name__}, got {type(value).__name__}")
        elif f.kind in ("double", "float"):
            value = float(value)
        elif f.kind in ("string",):
            if isinstance(value, bytes):
                value = value.decode("utf-8")
            elif not isinstance(value, str):
                raise TypeError(f"{name} must be a str, got {type(value).__name__}")
        elif f.kind == "bytes":
            if isinstance(value, str):
                value = value.encode("utf-8")
            value = bytes(value)
        elif f.kind == "bool":
            value = bool(value)
        else:
            value = int(value)
        self._set(f, value)

    def _set(self, f: Field, value) -> None:
        if f.oneof is not None:
            for other in self.FIELDS:
                if other.oneof == f.oneof and other is not f:
                    self._values.pop(other.name, None)
        self._values[f.name] = value
        self._touch()

    def _touch(self) -> None:
        """An implicitly read sub-message that changes becomes set in its parent."""
        parent = self.__dict__.get("_parent")
        if parent is not None:
            owner, attr = parent
            object.__setattr__(self, "_parent", None)
            owner._set(owner._BY_NAME[attr], self)

    def Clear(self) -> None:  # noqa: N802 - protobuf name
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_unknown", [])

    def MergeFrom(self, other) -> None:  # noqa: N802 - protobuf name
        if type(other) is not type(self):
            raise TypeError(f"Parameter to MergeFrom() must be instance of same class: expected "
                            f"{type(self).__name__} got {type(other).__name__}.")
        self.MergeFromString(other.SerializeToString())
        self._touch()

    def IsInitialized(self) -> bool:  # noqa: N802 - protobuf name
        return True  # proto3: no required fields

    def __reduce__(self):
        # pickle and copy.deepcopy go through the wire format, as protobuf's messages do
        return type(self).FromString, (self.SerializeToString(),)

    def SetInParent(self) -> None:  # noqa: N802 - protobuf name
        """Marks an implicitly read sub-message as set, even while empty."""
        self._touch()

    def HasField(self, name: str) -> bool:  # noqa: N802 - protobuf name
        f = self._BY_NAME.get(name)
        if f is None or f.repeated or f.is_map:
            raise ValueError(f"Protocol message {type(self).__name__} has no singular \"{name}\" field.")
        if name not in self._values:
            return False
        if f.is_message or f.oneof is not None:
            return True
        return not _is_default(f.kind, self._values[name])

    def ClearField(self, name: str) -> None:  # noqa: N802 - protobuf name
        if name not in self._BY_NAME:
            raise ValueError(f"Protocol message {type(self).__name__} has no \"{name}\" field.")
        self._values.pop(name, None)

    def WhichOneof(self, group: str):  # noqa: N802 - protobuf name
        members = [f for f in self.FIELDS if f.oneof == group]
        if not members:
            raise ValueError(f"Protocol message has no oneof \"{group}\" field.")
        for f in members:
            if f.name in self._values:
                return f.name
        return None

    def ListFields(self):  # noqa: N802 - protobuf name
        out = []
        for f in self._ORDERED:
            if f.name not in self._values:
                continue
            v = self._values[f.name]
            if (f.repeated or f.is_map) and not v:
                continue
            if f.label == "single" and not f.is_message and _is_default(f.kind, v):
                continue
            out.append((f, v))
        return out

    def CopyFrom(self, other) -> None:  # noqa: N802 - protobuf name
        if type(other) is not type(self):
            raise TypeError(f"Parameter to CopyFrom() must be instance of same class: expected "
                            f"{type(self).__name__} got {type(other).__name__}.")
        self.ParseFromString(other.SerializeToString())
        self._touch()

    # -- serialization --------------------------------------------------------------
    def SerializeToString(self, deterministic=None) -> bytes:  # noqa: N802 - protobuf name
        out = []
        for f in self._ORDERED:
            if f.name not in self._values:
                continue
            v = self._values[f.name]
            if f.is_map:
                for key in (sorted(v) if deterministic else v):
                    body = v[key].SerializeToString(deterministic)
                    entry = (_encode_scalar(1, _LEN, key.encode("utf-8"))
                             + _key(2, _LEN) + encode_varint(len(body)) + body)
                    out.append(_key(f.number, _LEN) + encode_varint(len(entry)) + entry)
                continue
            if f.is_message:
                items = v if f.repeated else [v]
                for m in items:
                    body = m.SerializeToString(deterministic)
                    out.append(_key(f.number, _LEN) + encode_varint(len(body)) + body)
                continue
            wire, enc, _, _ = _KINDS[f.kind]
            if f.label == "packed":
                if v:
                    body = b"".join(enc(x) for x in v)
                    out.append(_key(f.number, _LEN) + encode_varint(len(body)) + body)
            elif f.label == "repeated":
                for x in v:
                    out.append(_encode_scalar(f.number, wire, enc(x)))
            elif f.label == "oneof" or not _is_default(f.kind, v):
                out.append(_encode_scalar(f.number, wire, enc(v)))
        out.extend(self._unknown)
        return b"".join(out)

    def ByteSize(self) -> int:  # noqa: N802 - protobuf name
        return len(self.SerializeToString())

    def ParseFromString(self, data: bytes) -> int:  # noqa: N802 - protobuf name
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_unknown", [])
        self.MergeFromString(data)
        return len(data)

    def MergeFromString(self, data: bytes) -> int:  # noqa: N802 - protobuf name
        data = bytes(data)
        for number, wire, value, raw in iter_fields(data):
            f = self._BY_NUMBER.get(number)
            if f is None:
                self._unknown.append(raw)
                continue
            if f.is_map:
                if wire != _LEN:
                    raise ValueError(f"bad wire type for {type(self).__name__}.{f.name}")
                key, entry_value = "", b""
                for n, w, x, _ in iter_fields(value):
                    if n == 1 and w == _LEN:
                        key = x.decode("utf-8")
                    elif n == 2 and w == _LEN:
                        entry_value = x
                getattr(self, f.name)._merge(key, f.kind.FromString(entry_value))
                continue
            if f.is_message:
                if wire != _LEN:
                    raise ValueError(f"bad wire type for {type(self).__name__}.{f.name}")
                if f.repeated:
                    getattr(self, f.name).append(f.kind.FromString(value))
                else:
                    cur = self._values.get(f.name)
                    if cur is None:
                        self._set(f, f.kind.FromString(value))
                    else:
                        cur.MergeFromString(value)
                continue
            kind_wire, _, dec, _ = _KINDS[f.kind]
            if f.repeated and wire == _LEN and kind_wire != _LEN:
                getattr(self, f.name).extend(_decode_packed(f.kind, value))
            elif wire != kind_wire:
                raise ValueError(f"bad wire type for {type(self).__name__}.{f.name}")
            elif f.repeated:
                getattr(self, f.name).append(dec(value))
            else:
                self._set(f, dec(value))
        return len(data)

    @classmethod
    def FromString(cls, data: bytes):  # noqa: N802 - protobuf name
        m = cls()
        m.MergeFromString(data)
        return m

    # -- comparison and display -----------------------------------------------------
    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.SerializeToString(True) == self.SerializeToString(True)

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    __hash__ = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._text(0).strip()})" if self._values else f"{type(self).__name__}()"

    def __str__(self) -> str:
        return self._text(0)

    def _text(self, indent: int) -> str:
        pad = "  " * indent
        lines = []
        for f, v in self.ListFields():
            if f.is_map:
                inner = "  " * (indent + 1)
                for key in sorted(v):
                    lines.append(f"{pad}{f.name} {{\n{inner}key: \"{text_escape(key)}\"\n{inner}value {{\n"
                                 f"{v[key]._text(indent + 2)}{inner}}}\n{pad}}}\n")
                continue
            items = v if f.repeated else [v]
            for x in items:
                if f.is_message:
                    lines.append(f"{pad}{f.name} {{\n{x._text(indent + 1)}{pad}}}\n")
                else:
                    lines.append(f"{pad}{f.name}: {_text_value(f.kind, x)}\n")
        return "".join(lines)


_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"', ord("'"): "\\'",
            ord("\\"): "\\\\"}


def text_escape(value) -> str:
    """Protobuf's text-format escaping of a string or bytes (non-printable bytes in octal)."""
    data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    return "".join(_ESCAPES.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}") for b in data)


def _text_value(kind: str, x) -> str:
    if kind in ("string", "bytes"):
        return f'"{text_escape(x)}"'
    if kind == "bool":
        return "true" if x else "false"
    if kind in ("float", "double"):
        if not math.isfinite(x):
            return str(x)
        # upb's round-trip form: FLT_DIG (DBL_DIG) significant digits, or 3 (2) more if they do not read back
        short, long_ = (6, 9) if kind == "float" else (15, 17)
        text = f"{x:.{short}g}"
        back = float(text)
        return text if (round_float32(back) if kind == "float" else back) == x else f"{x:.{long_}g}"
    return repr(x)


def _encode_scalar(number: int, wire: int, body: bytes) -> bytes:
    if wire == _LEN:
        return _key(number, _LEN) + encode_varint(len(body)) + body
    return _key(number, wire) + body


def _decode_packed(kind: str, data: bytes) -> list:
    wire, _, dec, _ = _KINDS[kind]
    if wire == _I64:
        return [dec(data[i:i + 8]) for i in range(0, len(data), 8)]
    if wire == _I32:
        return [dec(data[i:i + 4]) for i in range(0, len(data), 4)]
    out, pos = [], 0
    while pos < len(data):
        v, pos = decode_varint(data, pos)
        out.append(dec(v))
    return out
