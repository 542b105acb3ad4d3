"""Reading serialized ``Example`` and ``SequenceExample`` protos into numpy arrays, as TF1's parsers do.

The kernels of ``tf.io.parse_example`` and ``tf.io.parse_sequence_example``
(``dflow/ops/io/example_parsing.py``) are built from these functions. A
serialized proto is walked once at the wire level
(``dflow.framework.protos.protobuf.iter_fields``), without building message
objects: ``example_features`` maps each feature name to its ``(dtype,
payload)``, decoded to values only for the features asked for. Each feature
config then gives its arrays (``dense_values``, ``sequence_values``,
``sparse_values``), with TF's checks and TF's messages.
"""

from __future__ import annotations

import numpy as np

from dflow.framework import dtypes, errors
from dflow.framework.protos.protobuf import decode_varint

_KIND_DTYPE = {1: dtypes.string, 2: dtypes.float32, 3: dtypes.int64}  # Feature's oneof field numbers
TYPE_NAMES = {dtypes.string: "string", dtypes.float32: "float", dtypes.int64: "int64"}
_EMPTY = {dtypes.string: b"", dtypes.float32: 0.0, dtypes.int64: 0}


def _bad(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def iter_fields(data: bytes):
    """Yields ``(field number, wire type, value)`` of a serialized message (``ValueError`` if malformed).

    The wire-format walk of ``dflow.framework.protos.protobuf.iter_fields``, lean for the parsing kernels:
    one-byte keys and lengths read inline, no copy of each field's raw bytes."""
    pos, n = 0, len(data)
    while pos < n:
        key = data[pos]
        pos += 1
        if key & 0x80:
            key, pos = decode_varint(data, pos - 1)
        wire = key & 7
        if wire == 2:
            length = data[pos] if pos < n else 0x80
            pos += 1
            if length & 0x80:
                length, pos = decode_varint(data, pos - 1)
            end = pos + length
            if end > n:
                raise ValueError("truncated protocol buffer")
            yield key >> 3, 2, data[pos:end]
            pos = end
        elif wire == 0:
            value, pos = decode_varint(data, pos)
            yield key >> 3, 0, value
        elif wire in (1, 5):
            end = pos + (8 if wire == 1 else 4)
            if end > n:
                raise ValueError("truncated protocol buffer")
            yield key >> 3, wire, data[pos:end]
            pos = end
        else:
            raise ValueError(f"unsupported wire type {wire} in protocol buffer")


def _feature(data: bytes):
    """``(dtype, list payload)`` of a serialized ``Feature``, or None when no kind is set."""
    found = None
    for number, wire, value in iter_fields(data):
        if number in _KIND_DTYPE and wire == 2:
            found = (_KIND_DTYPE[number], value)
    return found


def _map_entries(data: bytes, number: int):
    """``(key, value bytes)`` of the map field ``number`` of a message (``Features.feature``, ...)."""
    for n, wire, entry in iter_fields(data):
        if n == number and wire == 2:
            key, value = "", b""
            for en, ew, ev in iter_fields(entry):
                if en == 1 and ew == 2:
                    key = ev.decode("utf-8", errors="replace")
                elif en == 2 and ew == 2:
                    value = ev
            yield key, value


def features_map(features: bytes) -> dict:
    """``{name: (dtype, payload) or None}`` of a serialized ``Features`` (the last entry of a name wins)."""
    return {key: _feature(value) for key, value in _map_entries(features, 1)}


def example_features(serialized: bytes) -> dict:
    """The features of a serialized ``Example`` (``ValueError`` if it is not a valid proto)."""
    out: dict = {}
    for number, wire, value in iter_fields(serialized):
        if number == 1 and wire == 2:
            out.update(features_map(value))
    return out


def sequence_example_parts(serialized: bytes) -> tuple:
    """``(context features, {name: [feature per step]})`` of a serialized ``SequenceExample``."""
    context, lists = {}, {}
    for number, wire, value in iter_fields(serialized):
        if number == 1 and wire == 2:
            context.update(features_map(value))
        elif number == 2 and wire == 2:
            for key, feature_list in _map_entries(value, 1):
                lists[key] = [_feature(v) for n, w, v in iter_fields(feature_list) if n == 1 and w == 2]
    return context, lists


def values(feature) -> np.ndarray:
    """The values of a ``(dtype, payload)`` feature: bytes objects, float32 or int64."""
    dtype, payload = feature
    if dtype is dtypes.string:
        out = [v for n, w, v in iter_fields(payload) if n == 1 and w == 2]
        arr = np.empty(len(out), dtype=object)
        arr[:] = out
        return arr
    parts = []
    for n, w, v in iter_fields(payload):
        if n != 1:
            continue
        if dtype is dtypes.float32:
            parts.append(np.frombuffer(v, dtype="<f4") if w in (2, 5) else np.zeros(0, np.float32))
        elif w == 2:
            ints, pos = [], 0
            while pos < len(v):
                x, pos = decode_varint(v, pos)
                ints.append(x)
            parts.append(np.array(ints, dtype=np.uint64).view(np.int64))
        else:
            parts.append(np.array([v], dtype=np.uint64).view(np.int64))
    if not parts:
        return np.zeros(0, dtype=dtype.as_numpy_dtype)
    return np.concatenate(parts).astype(dtype.as_numpy_dtype)


def _where(name: str, key: str, index: int) -> str:
    return f"Name: {name}, Key: {key}, Index: {index}."


def dense_values(feature, key: str, dtype, shape: tuple, default, name: str, index: int) -> np.ndarray:
    """A ``FixedLenFeature``'s array of ``shape`` for one example."""
    if feature is None:
        if default is None:
            raise _bad(f"Name: {name}, Feature: {key} (data type: {TYPE_NAMES[dtype]}) is required but could not "
                       f"be found.")
        return default
    if feature[0] is not dtype:
        raise _bad(f"{_where(name, key, index)}  Data types don't match. Data type: {TYPE_NAMES[feature[0]]} but "
                   f"expected type: {TYPE_NAMES[dtype]}")
    v = values(feature)
    if v.size != int(np.prod(shape, dtype=np.int64)):
        raise _bad(f"{_where(name, key, index)}  Number of {TYPE_NAMES[dtype]} values != expected.  Values size: "
                   f"{v.size} but output shape: [{','.join(str(d) for d in shape)}]")
    return v.reshape(shape)


def sequence_rows(feature, key: str, dtype, shape: tuple, name: str, index: int) -> np.ndarray:
    """A ``FixedLenSequenceFeature`` of ``parse_example``: the feature's values as rows of ``shape``."""
    if feature is None:
        return np.zeros((0, *shape), dtype=dtype.as_numpy_dtype)
    if feature[0] is not dtype:
        raise _bad(f"{_where(name, key, index)}  Data types don't match. Data type: {TYPE_NAMES[feature[0]]} but "
                   f"expected type: {TYPE_NAMES[dtype]}")
    v = values(feature)
    stride = int(np.prod(shape, dtype=np.int64))
    if stride == 0 or v.size % stride:
        raise _bad(f"{_where(name, key, index)}  Number of {TYPE_NAMES[dtype]} values is not a multiple of stride "
                   f"length. Saw {v.size} values but output shape is: [?,{','.join(str(d) for d in shape)}]")
    return v.reshape((-1, *shape))


def sparse_list(feature, key: str, dtype, name: str, index: int, where: str | None = None) -> np.ndarray:
    """A ``VarLenFeature``'s values for one example (empty when missing)."""
    if feature is None:
        return np.zeros(0, dtype=dtype.as_numpy_dtype) if dtype is not dtypes.string else np.empty(0, dtype=object)
    if feature[0] is not dtype:
        if where is not None:  # a feature list's step
            raise _bad(f"Name: {name}, Feature list: {where}, Index: {index}.  Data types don't match. Expected type: "
                       f"{TYPE_NAMES[dtype]}")
        raise _bad(f"{_where(name, key, index)}  Data types don't match. Expected type: {TYPE_NAMES[dtype]}, Actual "
                   f"type: {TYPE_NAMES[feature[0]]}")
    return values(feature)


def stack_padded(rows: list, dtype, shape: tuple, fill) -> np.ndarray:
    """``[len(rows), max rows] + shape``: each example's rows, padded with ``fill``."""
    longest = max((len(r) for r in rows), default=0)
    out = np.full((len(rows), longest, *shape), fill if fill is not None else _EMPTY[dtype],
                  dtype=object if dtype is dtypes.string else dtype.as_numpy_dtype)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


def sparse_components(lists: list, dtype) -> tuple:
    """``(indices, values, dense_shape)`` of a batch of value lists (one per row of the batch)."""
    lengths = [len(v) for v in lists]
    n = sum(lengths)
    indices = np.zeros((n, 2), dtype=np.int64)
    if n:
        indices[:, 0] = np.repeat(np.arange(len(lists)), lengths)
        indices[:, 1] = np.concatenate([np.arange(k) for k in lengths])
    if dtype is dtypes.string or not lists:
        vals = value_array([x for v in lists for x in v], dtype)
    else:
        vals = np.concatenate(lists).astype(dtype.as_numpy_dtype)
    return indices, vals, np.array([len(lists), max(lengths, default=0)], dtype=np.int64)


def value_array(vals: list, dtype) -> np.ndarray:
    """A 1-D array of ``dtype`` (bytes objects for strings) holding ``vals``."""
    if dtype is dtypes.string:
        out = np.empty(len(vals), dtype=object)
        out[:] = vals
        return out
    return np.array(vals, dtype=dtype.as_numpy_dtype).reshape(-1)
