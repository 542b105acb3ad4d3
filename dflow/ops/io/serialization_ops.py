"""Bytes in and out of tensors: ``tf.io.decode_raw``, ``serialize_tensor`` / ``parse_tensor``,
``decode_json_example``, web-safe ``encode_base64`` / ``decode_base64``, ``decode_compressed``,
and ``serialize_sparse`` / ``serialize_many_sparse`` / ``deserialize_many_sparse``.

A serialized tensor is a ``TensorProto`` as TF's kernels write it (numbers
as raw little-endian ``tensor_content``, strings in ``string_val``), so
strings written by TF parse here and the other way round.

>>> import dflow as tf
>>> s = tf.io.serialize_tensor([[1, 2]])
>>> with tf.Session() as sess:
...     sess.run(tf.io.parse_tensor(s, tf.int32)).tolist()
[[1, 2]]
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import struct
import zlib

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.composite import SparseTensor
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.protos.protobuf import encode_varint
from dflow.framework.protos.summary_pb import TensorProto, TensorShapeProto
from dflow.framework.tensor_shape import TensorShape, unknown_shape
from dflow.kernels import to_host

_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def tensor_proto(value, dtype) -> TensorProto:
    """A ``TensorProto`` as TF's kernels make it: strings in ``string_val``, others as raw content."""
    arr = to_host(value)
    shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in arr.shape])
    t = TensorProto(dtype=dtype.as_datatype_enum, tensor_shape=shape)
    if dtype is dtypes.string:
        t.string_val.extend(x.encode("utf-8") if isinstance(x, str) else bytes(x) for x in arr.ravel().tolist())
    else:
        np_dtype = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
        t.tensor_content = np.ascontiguousarray(arr, dtype=np_dtype).tobytes()
    return t


def _bad(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _type_name(dtype) -> str:
    return _TF_TYPE_NAMES.get(dtype.name, dtype.name)


def _strings(values: list, shape) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(shape)


def _string_elements(x) -> list:
    return [v if isinstance(v, bytes) else str(v).encode() for v in np.asarray(x, dtype=object).ravel().tolist()]


def _elementwise(kernel):
    """A kernel over string tensors applying ``kernel(bytes) -> bytes`` to each element."""
    def run(x, **attrs):
        x = np.asarray(x, dtype=object)
        return _strings([kernel(v, **attrs) for v in _string_elements(x)], x.shape)
    return run


def _same_shape_string(op):
    return [(dtypes.string, op.inputs[0].shape)]


def _string_input(value, name: str) -> Tensor:
    return convert_to_tensor(value, dtype=dtypes.string, name=name)


# -- DecodeRaw ----------------------------------------------------------------------------------

_RAW_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint16, dtypes.uint8, dtypes.int16,
              dtypes.int8, dtypes.int64, dtypes.complex64, dtypes.complex128, dtypes.bool)


def _decode_raw_kernel(x, *, out_type, little_endian, fixed_length):
    x = np.asarray(x, dtype=object)
    items = _string_elements(x)
    np_dtype = np.dtype(out_type.as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    size = np_dtype.itemsize
    if fixed_length is not None:
        items = [v[:fixed_length].ljust(fixed_length, b"\0") for v in items]
    width = len(items[0]) if items else 0
    for i, v in enumerate(items):
        if len(v) != width:
            raise _bad(f"DecodeRaw requires input strings to all be the same size, but element {i} has size {width} "
                       f"!= {len(v)}")
    if width % size:
        raise _bad(f"Input to DecodeRaw has length {width} that is not a multiple of {size}, the size of "
                   f"{_type_name(out_type)}")
    flat = np.frombuffer(b"".join(items), dtype=np_dtype).astype(out_type.as_numpy_dtype)
    return flat.reshape((*x.shape, width // size))


def _decode_raw_infer(op):
    shape = op.inputs[0].shape
    fixed = op._attrs["fixed_length"]
    last = None if fixed is None else fixed // np.dtype(op._attrs["out_type"].as_numpy_dtype).itemsize
    return [(op._attrs["out_type"], unknown_shape() if shape.ndims is None else TensorShape(shape.as_list() + [last]))]


register("DecodeRaw", infer=_decode_raw_infer, kernel=_decode_raw_kernel, gpu=False)
not_differentiable("DecodeRaw")


@tf_export("io.decode_raw", "decode_raw")
def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None,  # noqa: A002
               fixed_length=None) -> Tensor:
    """The bytes of each string as numbers of ``out_type``: shape ``input.shape + [n]``.

    Every string must have the same length, a multiple of the type's size;
    with ``fixed_length`` (TF2's argument) each is cut or zero-padded to that
    many bytes first. ``little_endian=False`` reads big-endian numbers."""
    if bytes is not None:
        if input_bytes is not None:
            raise ValueError("Cannot specify both 'input_bytes' and 'bytes'")
        input_bytes = bytes
    out_type = dtypes.as_dtype(out_type)
    if out_type not in _RAW_TYPES:
        raise TypeError(f"Value passed to parameter 'out_type' has DataType {out_type.name} not in list of allowed "
                        f"values: float16, float32, float64, int32, uint16, uint8, int16, int8, int64, complex64, "
                        f"complex128, bool, bfloat16")
    if fixed_length is not None:
        fixed_length = int(fixed_length)
        if fixed_length % np.dtype(out_type.as_numpy_dtype).itemsize:
            raise ValueError(f"fixed_length ({fixed_length}) must be a multiple of the size of {out_type.name}")
    x = _string_input(input_bytes, "input_bytes")
    attrs = {"out_type": out_type, "little_endian": bool(little_endian), "fixed_length": fixed_length}
    return apply_op("DecodeRaw", [x], attrs, name=name or "DecodeRaw").outputs[0]


# -- SerializeTensor / ParseTensor ------------------------------------------------------------------------


def _serialize_tensor_kernel(x, *, dtype):
    return np.array(tensor_proto(x, dtype).SerializeToString(), dtype=object)


register("SerializeTensor", infer=lambda op: [(dtypes.string, TensorShape([]))], kernel=_serialize_tensor_kernel,
         gpu=False)
not_differentiable("SerializeTensor")


@tf_export("io.serialize_tensor", "serialize_tensor")
def serialize_tensor(tensor, name=None) -> Tensor:
    """``tensor`` as a serialized ``TensorProto`` (a scalar string), as TF writes it."""
    tensor = convert_to_tensor(tensor, name="tensor")
    return apply_op("SerializeTensor", [tensor], {"dtype": tensor.dtype}, name=name or "SerializeTensor").outputs[0]


_VAL_FIELDS = {"float32": "float_val", "float64": "double_val", "int32": "int_val", "int16": "int_val",
               "int8": "int_val", "uint8": "int_val", "uint16": "int_val", "int64": "int64_val", "bool": "bool_val",
               "uint32": "uint32_val", "uint64": "uint64_val", "float16": "half_val", "complex64": "scomplex_val",
               "complex128": "dcomplex_val"}


def tensor_from_proto(proto: TensorProto) -> np.ndarray:
    """The array a ``TensorProto`` holds (raw content, or ``*_val`` values with the last repeated)."""
    dtype = dtypes.as_dtype(proto.dtype)
    shape = tuple(int(d.size) for d in proto.tensor_shape.dim)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype is dtypes.string:
        vals = list(proto.string_val)
        vals = vals + vals[-1:] * (n - len(vals)) if vals else [b""] * n
        return _strings(vals[:n], shape)
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if proto.tensor_content:
        return np.frombuffer(proto.tensor_content, dtype=np_dtype.newbyteorder("<")).astype(np_dtype).reshape(shape)
    vals = list(getattr(proto, _VAL_FIELDS[dtype.name]))
    if dtype is dtypes.float16:
        arr = np.array(vals, dtype=np.uint16).view(np.float16)
    elif dtype.is_complex:
        arr = np.array(vals, dtype=np.float64).reshape(-1, 2) @ np.array([1, 1j])
    else:
        arr = np.array(vals, dtype=np_dtype)
    if arr.size < n:
        arr = np.concatenate([arr, np.repeat(arr[-1:] if arr.size else np.zeros(1, np_dtype), n - arr.size)])
    return arr[:n].astype(np_dtype).reshape(shape)


def _parse_tensor_kernel(serialized, *, out_type):
    data = np.asarray(serialized, dtype=object).item()
    data = data if isinstance(data, bytes) else str(data).encode()
    try:
        proto = TensorProto.FromString(data)
    except ValueError:
        raise _bad(f"Could not parse `serialized` as TensorProto, base64: {base64.b64encode(data).decode()}") from None
    if proto.dtype == 0:
        raise _bad(f"Cannot parse tensor from proto: {str(proto).strip()}")
    parsed = dtypes.as_dtype(proto.dtype)
    if parsed != out_type:
        raise _bad(f"Type mismatch between parsed tensor ({_type_name(parsed)}) and dtype ({_type_name(out_type)})")
    return tensor_from_proto(proto)


def _parse_tensor_infer(op):
    if op.inputs[0].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {op.inputs[0].shape.ndims}")
    return [(op._attrs["out_type"], unknown_shape())]


register("ParseTensor", infer=_parse_tensor_infer, kernel=_parse_tensor_kernel, gpu=False)
not_differentiable("ParseTensor")


@tf_export("io.parse_tensor", "parse_tensor")
def parse_tensor(serialized, out_type, name=None) -> Tensor:
    """The tensor a serialized ``TensorProto`` (a scalar string) holds; its dtype must be ``out_type``."""
    serialized = _string_input(serialized, "serialized")
    attrs = {"out_type": dtypes.as_dtype(out_type)}
    return apply_op("ParseTensor", [serialized], attrs, name=name or "ParseTensor").outputs[0]


# -- base64 ------------------------------------------------------------------------------------------------

_WEB_SAFE = re.compile(rb"[A-Za-z0-9_-]*\Z")


def _encode_base64(v: bytes, *, pad: bool) -> bytes:
    out = base64.urlsafe_b64encode(v)
    return out if pad else out.rstrip(b"=")


def _decode_base64(v: bytes) -> bytes:
    body = v[:-2].rstrip(b"=") + v[-2:].rstrip(b"=") if v.endswith(b"=") else v
    if not _WEB_SAFE.match(body):
        raise _bad("Invalid character found in base64.")
    if len(body) % 4 == 1:
        raise _bad("Base64 string length cannot be 1 modulo 4.")
    return base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4))


register("EncodeBase64", infer=_same_shape_string, kernel=_elementwise(_encode_base64), gpu=False)
register("DecodeBase64", infer=_same_shape_string, kernel=_elementwise(_decode_base64), gpu=False)
not_differentiable("EncodeBase64")
not_differentiable("DecodeBase64")


@tf_export("io.encode_base64", "encode_base64")
def encode_base64(input, pad=False, name=None) -> Tensor:  # noqa: A002 - TF1 argument name
    """Web-safe base64 (``-`` and ``_``) of each string; ``=`` padding only with ``pad``."""
    x = _string_input(input, "input")
    return apply_op("EncodeBase64", [x], {"pad": bool(pad)}, name=name or "EncodeBase64").outputs[0]


@tf_export("io.decode_base64", "decode_base64")
def decode_base64(input, name=None) -> Tensor:  # noqa: A002 - TF1 argument name
    """The bytes of web-safe base64 strings (padded or not)."""
    x = _string_input(input, "input")
    return apply_op("DecodeBase64", [x], name=name or "DecodeBase64").outputs[0]


# -- DecodeCompressed ---------------------------------------------------------------------------------------


def _decompress(v: bytes, *, compression_type: str) -> bytes:
    if compression_type == "":
        return v
    if compression_type not in ("ZLIB", "GZIP"):
        raise _bad("Only ZLIB, GZIP or NONE are supported compressions")
    try:
        return zlib.decompress(v, 31 if compression_type == "GZIP" else 15)
    except zlib.error as e:
        code, _, what = str(e).partition(" while decompressing data: ")
        raise errors.DataLossError(None, None, f"inflate() failed with {code.lower()}: {what}") from None


register("DecodeCompressed", infer=_same_shape_string, kernel=_elementwise(_decompress), gpu=False)
not_differentiable("DecodeCompressed")


@tf_export("io.decode_compressed", "decode_compressed")
def decode_compressed(bytes, compression_type="", name=None) -> Tensor:  # noqa: A002 - TF1 argument name
    """Each string decompressed: ``compression_type`` is ``""`` (as is), ``"ZLIB"`` or ``"GZIP"``."""
    x = _string_input(bytes, "bytes")
    attrs = {"compression_type": compression_type or ""}
    return apply_op("DecodeCompressed", [x], attrs, name=name or "DecodeCompressed").outputs[0]


# -- DecodeJSONExample --------------------------------------------------------------------------------------


def _json_field(obj: dict, names: tuple):
    for key in obj:
        if key not in names:
            raise ValueError(f"{key}: Cannot find field.")
    for n in names:
        if n in obj:
            return obj[n]
    return None


def _json_number(v, integer: bool):
    if integer:
        if isinstance(v, bool) or (isinstance(v, float) and not v.is_integer()):
            raise ValueError(f"value: Not an int64 value: {v}")
        return int(v)
    if isinstance(v, str):
        special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
        return special[v] if v in special else float(v)
    return float(v)


def _len_field(number: int, body: bytes) -> bytes:
    return encode_varint(number << 3 | 2) + encode_varint(len(body)) + body


def _json_list(kind: str, values: list) -> bytes:
    """A BytesList / FloatList / Int64List's bytes, its values unpacked as TF's JSON converter writes them."""
    if kind == "bytes_list":
        return b"".join(_len_field(1, base64.b64decode(v + "=" * (-len(v) % 4), altchars=b"-_" if "-" in v or "_" in v
                                                       else None)) for v in values)
    if kind == "float_list":
        return b"".join(b"\x0d" + struct.pack("<f", _json_number(v, False)) for v in values)
    return b"".join(b"\x08" + encode_varint(_json_number(v, True)) for v in values)


_JSON_KINDS = {"bytes_list": (1, "bytes_list"), "bytesList": (1, "bytes_list"), "float_list": (2, "float_list"),
               "floatList": (2, "float_list"), "int64_list": (3, "int64_list"), "int64List": (3, "int64_list")}


def _example_from_json(text: bytes) -> bytes:
    """The serialized ``Example`` of its JSON form, as TF's JSON-to-binary converter writes it: map entries in the
    JSON's order, repeated numbers unpacked."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    features = _json_field(data, ("features",))
    if features is None:
        return b""
    entries = []
    for key, feature in (_json_field(features, ("feature",)) or {}).items():
        if not isinstance(feature, dict):
            raise ValueError(f"{key}: expected an object")
        body = b""
        for name, lst in feature.items():
            if name not in _JSON_KINDS:
                raise ValueError(f"{name}: Cannot find field.")
            number, kind = _JSON_KINDS[name]
            body = _len_field(number, _json_list(kind, _json_field(lst or {}, ("value",)) or []))
        entries.append(_len_field(1, _len_field(1, key.encode("utf-8")) + _len_field(2, body)))
    return _len_field(1, b"".join(entries))


def _decode_json_example(v: bytes) -> bytes:
    try:
        return _example_from_json(v)
    except (ValueError, TypeError, KeyError, binascii.Error, AttributeError) as e:
        raise _bad(f"Error while parsing JSON: {e}") from None


register("DecodeJSONExample", infer=_same_shape_string, kernel=_elementwise(_decode_json_example), gpu=False)
not_differentiable("DecodeJSONExample")


@tf_export("io.decode_json_example", "decode_json_example")
def decode_json_example(json_examples, name=None) -> Tensor:
    """Serialized ``Example`` protos from their JSON form (protobuf's JSON mapping, camelCase or
    snake_case names, int64s as numbers or strings, bytes as base64)."""
    x = _string_input(json_examples, "json_examples")
    return apply_op("DecodeJSONExample", [x], name=name or "DecodeJSONExample").outputs[0]


# -- sparse tensors -------------------------------------------------------------------------------------------


def _serialized_triple(indices, values, shape, dtype) -> list:
    return [tensor_proto(indices, dtypes.int64).SerializeToString(), tensor_proto(values, dtype).SerializeToString(),
            tensor_proto(shape, dtypes.int64).SerializeToString()]


def _serialize_sparse_kernel(indices, values, shape, *, dtype):
    return _strings(_serialized_triple(np.asarray(indices, np.int64).reshape(-1, len(shape)), values,
                                       np.asarray(shape, np.int64), dtype), (3,))


def _serialize_many_sparse_kernel(indices, values, shape, *, dtype):
    indices = np.asarray(indices, dtype=np.int64).reshape(-1, len(shape))
    values, shape = np.asarray(values), np.asarray(shape, dtype=np.int64)
    if len(shape) < 2:
        raise _bad(f"SparseTensor must have rank at least 2, got {len(shape)}")
    rows = []
    for i in range(int(shape[0])):
        mask = indices[:, 0] == i
        rows += _serialized_triple(indices[mask, 1:], values[mask], shape[1:], dtype)
    return _strings(rows, (int(shape[0]), 3))


register("SerializeSparse", infer=lambda op: [(dtypes.string, TensorShape([3]))], kernel=_serialize_sparse_kernel,
         gpu=False)
register("SerializeManySparse", infer=lambda op: [(dtypes.string, TensorShape([None, 3]))],
         kernel=_serialize_many_sparse_kernel, gpu=False)
not_differentiable("SerializeSparse")
not_differentiable("SerializeManySparse")


def _sparse_input(sp_input) -> SparseTensor:
    sp = SparseTensor.from_value(sp_input)
    if not isinstance(sp, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(sp_input).__name__}")
    return sp


def _serialize(op_type: str, sp_input, name, out_type) -> Tensor:
    if dtypes.as_dtype(out_type) != dtypes.string:
        raise NotImplementedError(f"{op_type}: out_type={dtypes.as_dtype(out_type).name} (TF's variant) is not "
                                  f"supported; dflow serializes to tf.string")
    sp = _sparse_input(sp_input)
    return apply_op(op_type, [sp.indices, sp.values, sp.dense_shape], {"dtype": sp.dtype},
                    name=name or op_type).outputs[0]


@tf_export("io.serialize_sparse", "serialize_sparse")
def serialize_sparse(sp_input, name=None, out_type=dtypes.string) -> Tensor:
    """A ``[3]`` string vector: the serialized ``TensorProto``s of indices, values and dense shape."""
    return _serialize("SerializeSparse", sp_input, name, out_type)


@tf_export("io.serialize_many_sparse", "serialize_many_sparse")
def serialize_many_sparse(sp_input, name=None, out_type=dtypes.string) -> Tensor:
    """``[N, 3]`` strings: ``serialize_sparse`` of each of the ``N`` rows of a rank >= 2 SparseTensor."""
    return _serialize("SerializeManySparse", sp_input, name, out_type)


def _parse_proto(data) -> np.ndarray:
    try:
        return tensor_from_proto(TensorProto.FromString(data))
    except ValueError:
        raise _bad("Could not parse serialized sparse tensor") from None


def _deserialize_many_sparse_kernel(serialized, *, dtype, rank):
    rows = np.asarray(serialized, dtype=object)
    all_indices, all_values, shapes = [], [], []
    rank = None  # the rank of the SparseTensors read so far
    for i, (ind, val, shp) in enumerate(rows.reshape(-1, 3).tolist()):
        ind, val, shp = _parse_proto(ind), _parse_proto(val), _parse_proto(shp)
        if val.dtype != np.dtype(dtype.as_numpy_dtype):
            got = dtypes.as_dtype(val.dtype) if val.dtype != object else dtypes.string
            raise _bad(f"Requested SparseTensor of type {_type_name(dtype)} but SparseTensor[{i}].values.dtype() == "
                       f"{_type_name(got)}")
        if rank is not None and len(shp) != rank:
            raise _bad(f"Inconsistent shape across SparseTensors: rank prior to SparseTensor[{i}] was: {rank} but rank "
                       f"of SparseTensor[{i}] is: {len(shp)}")
        rank = len(shp)
        ind = ind.reshape(-1, rank)
        all_indices.append(np.concatenate([np.full((len(ind), 1), i, np.int64), ind], axis=1))
        all_values.append(val)
        shapes.append(shp)
    n = len(shapes)
    rank = rank or 0
    indices = np.concatenate(all_indices) if all_indices else np.zeros((0, rank + 1), np.int64)
    values = np.concatenate(all_values) if all_values else np.zeros(0, dtype.as_numpy_dtype)
    if len(indices):
        order = np.lexsort(indices.T[::-1])
        indices, values = indices[order], values[order]
    dense = np.max(np.stack(shapes), axis=0) if shapes else np.zeros(rank, np.int64)
    return indices, values, np.concatenate([[n], dense]).astype(np.int64)


def _deserialize_many_sparse_infer(op):
    shape = op.inputs[0].shape
    if shape.ndims not in (None, 2):
        raise ValueError(f"Shape must be rank 2 but is rank {shape.ndims}")
    dims = op._attrs["rank"]  # the rank of the result, its batch dimension included
    return [(dtypes.int64, TensorShape([None, dims])), (op._attrs["dtype"], TensorShape([None])),
            (dtypes.int64, TensorShape([dims]))]


register("DeserializeManySparse", infer=_deserialize_many_sparse_infer,
         kernel=_deserialize_many_sparse_kernel, gpu=False)
not_differentiable("DeserializeManySparse")


@tf_export("io.deserialize_many_sparse", "deserialize_many_sparse")
def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None) -> SparseTensor:
    """One SparseTensor from ``[N, 3]`` serialized ones: row ``i`` is the ``i``-th, the dense shape
    the largest of theirs; entries come out in row-major order."""
    serialized = _string_input(serialized_sparse, "serialized_sparse")
    attrs = {"dtype": dtypes.as_dtype(dtype), "rank": None if rank is None else int(rank)}
    op = apply_op("DeserializeManySparse", [serialized], attrs, name=name or "DeserializeManySparse")
    return SparseTensor(*op.outputs)


# -- protos by descriptor -----------------------------------------------------------------------------------


@tf_export("io.decode_proto")
def decode_proto(bytes, message_type, field_names, output_types, descriptor_source="local://",  # noqa: A002
                 message_format="binary", sanitize=False, name=None):
    """Not available: decoding an arbitrary message needs its protobuf descriptor."""
    raise NotImplementedError("io.decode_proto: decoding messages by descriptor needs protobuf's descriptor pool, "
                              "which dflow does not depend on")


@tf_export("io.encode_proto")
def encode_proto(sizes, values, field_names, message_type, descriptor_source="local://", name=None):
    """Not available: encoding an arbitrary message needs its protobuf descriptor."""
    raise NotImplementedError("io.encode_proto: encoding messages by descriptor needs protobuf's descriptor pool, "
                              "which dflow does not depend on")

