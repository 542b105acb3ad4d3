"""How arrays become bytes and JSON, without pickle: shared by graphs and checkpoints.

* Numbers, booleans and complex values: their raw little-endian bytes in C
  order, rebuilt with ``np.frombuffer`` and a dtype from a fixed set of kinds.
* Strings (``tf.string`` values, object arrays of ``bytes``): per element an
  unsigned 64-bit little-endian length, then the bytes (``pack_strings``).
* In JSON (graph attrs): ``{"dtype": "<f4", "shape": [2], "data": <base64>}``,
  with dtype ``"bytes"`` or ``"str"`` for string arrays.

>>> decode_array(encode_array(np.array([[1, 2]], np.int16)))
array([[1, 2]], dtype=int16)
>>> unpack_strings(pack_strings([b"a", "é"]), 2)
[b'a', b'\\xc3\\xa9']
"""

from __future__ import annotations

import base64
import struct

import numpy as np

from dflow.framework import dtypes as _dtypes
from dflow.framework.tensor_shape import TensorShape

NUMERIC_KINDS = "biufcSU"  # raw-byte dtypes numpy can rebuild without executing anything


# -- length-prefixed strings ----------------------------------------------------------------


def pack_strings(values) -> bytes:
    """``values`` (bytes or str) as ``<uint64 little-endian length><bytes>`` records."""
    parts = []
    for v in values:
        b = as_bytes(v)
        parts.append(struct.pack("<Q", len(b)))
        parts.append(b)
    return b"".join(parts)


def unpack_strings(buf, count: int) -> list:
    """The ``count`` byte strings of ``pack_strings``; ValueError if ``buf`` is malformed."""
    out = []
    pos, end = 0, len(buf)
    mv = memoryview(buf)
    for _ in range(count):
        if pos + 8 > end:
            raise ValueError("string data ends inside a length prefix")
        (n,) = struct.unpack_from("<Q", mv, pos)
        pos += 8
        if n > end - pos:
            raise ValueError("string data ends inside a string")
        out.append(bytes(mv[pos:pos + n]))
        pos += n
    if pos != end:
        raise ValueError(f"{end - pos} bytes left over after {count} strings")
    return out


def as_bytes(v) -> bytes:
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v)
    if isinstance(v, (str, np.str_)):
        return str(v).encode("utf-8")
    raise TypeError(f"string tensors hold bytes or str, not {type(v).__name__}")


def string_array(values: list, shape) -> np.ndarray:
    """An object array of ``bytes`` (dflow's ``tf.string`` values) with ``shape``."""
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr.reshape(shape)


def dtype_from_name(name: str):
    """The DType named ``name``, including the internal ``variant`` of loop traces."""
    try:
        return _dtypes.as_dtype(name)
    except TypeError:
        if name == "variant":
            return _dtypes.trace_variant
        raise


# -- arrays as JSON --------------------------------------------------------------------------


def b64(data) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


def encode_array(arr: np.ndarray) -> dict:
    """An ndarray as JSON: dtype, shape and the base64 of its bytes (no pickle)."""
    if arr.dtype.kind == "O":
        flat = arr.reshape(-1).tolist()
        kind = "str" if flat and all(isinstance(x, str) for x in flat) else "bytes"
        return {"dtype": kind, "shape": list(arr.shape), "data": b64(pack_strings(flat))}
    if arr.dtype.kind not in NUMERIC_KINDS:
        raise TypeError(f"arrays of dtype {arr.dtype} cannot be serialized")
    le = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))
    return {"dtype": le.dtype.str, "shape": list(arr.shape), "data": b64(le.tobytes())}


def decode_array(rec: dict) -> np.ndarray:
    shape = tuple(int(d) for d in rec["shape"])
    data = unb64(rec["data"])
    if rec["dtype"] in ("bytes", "str"):
        values = unpack_strings(data, int(np.prod(shape, dtype=np.int64)))
        if rec["dtype"] == "str":
            values = [v.decode("utf-8") for v in values]
        return string_array(values, shape)
    dt = np.dtype(rec["dtype"])
    if dt.kind not in NUMERIC_KINDS or dt.hasobject:
        raise ValueError(f"refusing array dtype {rec['dtype']!r}")
    return np.frombuffer(data, dtype=dt).reshape(shape).astype(dt.newbyteorder("="))


def encode_shape(shape: TensorShape):
    return None if shape.ndims is None else shape.as_list()


def decode_shape(value) -> TensorShape:
    return TensorShape(None if value is None else [None if d is None else int(d) for d in value])
