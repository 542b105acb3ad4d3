"""Reading protobuf's text format into ``dflow.framework.protos.protobuf`` messages (``saved_model.pbtxt``).

A small parser of what ``str(message)`` writes: ``name: value`` scalars
(quoted strings with C escapes, numbers, ``true``/``false``, enum names such
as ``DT_FLOAT``), ``name { ... }`` sub-messages, and map entries
``name { key: "k" value { ... } }``.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r'\s*(?:(#[^\n]*)|("(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')|([{}:<>\[\],])|([^\s{}:<>\[\],"\']+))',
                    re.S)
_ESC = {"n": 10, "r": 13, "t": 9, '"': 34, "'": 39, "\\": 92, "a": 7, "b": 8, "f": 12, "v": 11, "?": 63}


def _unescape(body: str) -> bytes:
    out = bytearray()
    raw = body.encode("utf-8")
    i = 0
    while i < len(raw):
        c = raw[i]
        if c != 92:
            out.append(c)
            i += 1
            continue
        nxt = chr(raw[i + 1])
        if nxt in "01234567":
            j = i + 1
            while j < len(raw) and j < i + 4 and chr(raw[j]) in "01234567":
                j += 1
            out.append(int(raw[i + 1:j], 8) & 0xFF)
            i = j
        elif nxt == "x":
            j = i + 2
            while j < len(raw) and j < i + 4 and chr(raw[j]) in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(raw[i + 2:j], 16))
            i = j
        else:
            out.append(_ESC.get(nxt, ord(nxt)))
            i += 2
    return bytes(out)


def _tokens(text: str) -> list:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"text format: cannot read at offset {pos}: {text[pos:pos + 20]!r}")
        pos = m.end()
        if m.group(1):
            continue
        if m.group(2):
            out.append(("str", _unescape(m.group(2)[1:-1])))
        else:
            out.append(("tok", m.group(3) or m.group(4)))
    return out


def _scalar(kind: str, tok):
    typ, value = tok
    if kind in ("string", "bytes"):
        if typ != "str":
            raise ValueError(f"text format: expected a string, got {value!r}")
        return value.decode("utf-8") if kind == "string" else value
    if typ == "str":
        raise ValueError(f"text format: expected a {kind}, got a string")
    if kind == "bool":
        if value in ("true", "True", "t", "1"):
            return True
        if value in ("false", "False", "f", "0"):
            return False
        raise ValueError(f"text format: expected a bool, got {value!r}")
    if kind in ("float", "double"):
        return float(value.rstrip("fF")) if value.lower() not in ("inf", "-inf", "nan") else float(value)
    if kind == "enum" and not re.match(r"^-?\d", value):
        from dflow.framework import dtypes

        if value.startswith("DT_"):
            names = {"FLOAT": "float32", "DOUBLE": "float64", "HALF": "float16"}
            return dtypes.as_dtype(names.get(value[3:], value[3:].lower())).as_datatype_enum
        raise ValueError(f"text format: unknown enum value {value!r}")
    return int(value, 0)


class _Parser:
    def __init__(self, text: str):
        self.toks = _tokens(text)
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, expected=None):
        if self.i >= len(self.toks):
            raise ValueError("text format: unexpected end of input")
        tok = self.toks[self.i]
        self.i += 1
        if expected is not None and tok != ("tok", expected):
            raise ValueError(f"text format: expected {expected!r}, got {tok[1]!r}")
        return tok

    def message(self, msg, end=None) -> None:
        while True:
            tok = self.peek()
            if tok is None:
                if end is not None:
                    raise ValueError("text format: unexpected end of input")
                return
            if tok == ("tok", end):
                self.take()
                return
            self.field(msg)

    def block(self, msg) -> None:
        if self.peek() == ("tok", ":"):
            self.take()
        opener = self.take()[1]
        if opener not in ("{", "<"):
            raise ValueError(f"text format: expected '{{', got {opener!r}")
        self.message(msg, "}" if opener == "{" else ">")

    def field(self, msg) -> None:
        typ, name = self.take()
        f = type(msg)._BY_NAME.get(name) if typ == "tok" else None
        if f is None:
            raise ValueError(f"text format: message {type(msg).__name__} has no field {name!r}")
        if f.is_map:
            entry = _entry_class(f.kind)()
            self.block(entry)
            getattr(msg, name)[entry.key].CopyFrom(entry.value)
        elif f.is_message:
            sub = f.kind()
            self.block(sub)
            if f.repeated:
                getattr(msg, name).append(sub)
            else:
                setattr(msg, name, sub)
        else:
            self.take(":")
            values = []
            if self.peek() == ("tok", "["):
                self.take()
                while self.peek() != ("tok", "]"):
                    values.append(_scalar(f.kind, self.take()))
                    if self.peek() == ("tok", ","):
                        self.take()
                self.take()
            else:
                values.append(_scalar(f.kind, self.take()))
            if f.repeated:
                getattr(msg, name).extend(values)
            else:
                setattr(msg, name, values[-1])


_ENTRIES: dict = {}


def _entry_class(cls):
    """The message of one map entry: ``key`` (a string) and ``value`` (a ``cls``)."""
    from dflow.framework.protos.protobuf import Field, Message

    if cls not in _ENTRIES:
        _ENTRIES[cls] = type(f"{cls.__name__}Entry", (Message,),
                             {"FIELDS": (Field(1, "key", "string"), Field(2, "value", cls))})
    return _ENTRIES[cls]


def parse(text: str, cls):
    """A ``cls`` message read from its text format."""
    msg = cls()
    _Parser(text).message(msg)
    return msg
