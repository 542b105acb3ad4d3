"""TF1's tensor utilities: ``is_tensor``, ``get_static_value``, ``make_tensor_proto``/``make_ndarray``,
``init_scope``, ``container`` and ``op_scope``.

``make_tensor_proto`` writes TF's ``TensorProto`` with TF's rules (dense
numeric values as ``tensor_content`` bytes, one value for a filled shape in
the typed ``*_val`` field, strings as ``string_val``), so its
``SerializeToString()`` is byte-for-byte TF's::

    tf.make_tensor_proto([1, 2, 3]).SerializeToString().hex()
    # '0803120412020803220c010000000200000003000000'
"""

from __future__ import annotations

import contextlib

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import CompositeTensor
from dflow.framework.graph import Tensor, get_default_graph, name_scope
from dflow.framework.protos.summary_pb import TensorProto, TensorShapeProto
from dflow.framework.tensor_shape import as_shape

# Types ``tf.is_tensor`` accepts beyond graph tensors and composites: the ops layer adds ``tf.Variable``
# (dflow/ops/state/variables.py), which framework cannot import.
_tensor_like_types: tuple = (Tensor, CompositeTensor)


def register_tensor_like_type(cls: type) -> None:
    """Makes ``tf.is_tensor`` true for instances of ``cls``."""
    global _tensor_like_types
    _tensor_like_types = (*_tensor_like_types, cls)


@tf_export("is_tensor", "is_tf_type")
def is_tensor(x) -> bool:
    """True for graph values: ``Tensor``, ``Variable``, ``SparseTensor`` and ``IndexedSlices``."""
    return isinstance(x, _tensor_like_types) or bool(getattr(x, "is_tensor_like", False))


@tf_export("is_symbolic_tensor")
def is_symbolic_tensor(tensor) -> bool:
    """True for a graph ``Tensor`` (not a variable or composite), as TF."""
    return isinstance(tensor, Tensor)


@tf_export("get_static_value")
def get_static_value(tensor, partial=False):
    """The value of ``tensor`` when it is known at graph-build time (as a numpy array), else None.

    Non-tensors are returned as they are. dflow folds small computations of
    constants too (``tf.constant(1) + 1``), where TF gives up on some.
    """
    from dflow.framework.op_registry import constant_value

    if not is_tensor(tensor):
        return tensor
    if not isinstance(tensor, Tensor):
        return None
    value = constant_value(tensor)
    return None if value is None else np.asarray(value)


# -- TensorProto ------------------------------------------------------------------------------

# Dtypes TF writes as raw bytes (``tensor_content``) when the value fills its shape.
_TENSOR_CONTENT_TYPES = frozenset({dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint8,
                                   dtypes.int16, dtypes.int8, dtypes.int64, dtypes.uint16, dtypes.uint32,
                                   dtypes.uint64} | dtypes.QUANTIZED_DTYPES)
_VAL_FIELDS = {dtypes.float32: "float_val", dtypes.float64: "double_val", dtypes.int32: "int_val",
               dtypes.int16: "int_val", dtypes.int8: "int_val", dtypes.uint8: "int_val", dtypes.uint16: "int_val",
               dtypes.int64: "int64_val", dtypes.uint32: "uint32_val", dtypes.uint64: "uint64_val",
               dtypes.bool: "bool_val", dtypes.complex64: "scomplex_val", dtypes.complex128: "dcomplex_val",
               dtypes.float16: "half_val"}


def _shape_proto(shape) -> TensorShapeProto:
    if shape.ndims is None:
        return TensorShapeProto(unknown_rank=True)
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=-1 if d is None else d) for d in shape.as_list()])


def _to_numpy(values, dtype):
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        if dtype in dtypes.UNIMPLEMENTED and not dtype.is_quantized:
            raise NotImplementedError(f"make_tensor_proto: {dtype}: {dtypes.UNIMPLEMENTED_REASONS[dtype]}")
        if dtype is dtypes.string:
            return np.array(values, dtype=object), dtype
        arr = np.asarray(values)
        if dtype.is_quantized:
            return arr.astype(dtype.array_dtype), dtype
        if arr.dtype.kind in "fc" and dtype.is_integer:
            raise TypeError(f"Expected {dtype.name}, but got {values!r} of type '{type(values).__name__}'.")
        return arr.astype(dtype.as_numpy_dtype), dtype
    dtype = dtypes.dtype_of_value(values)
    if dtype is dtypes.string:
        return np.array(values, dtype=object), dtype
    return np.asarray(values, dtype=dtype.as_numpy_dtype), dtype


@tf_export("make_tensor_proto")
def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False) -> TensorProto:
    """A ``TensorProto`` holding ``values`` (of ``dtype``, reshaped to ``shape`` when given).

    A scalar fills any ``shape`` (stored once); fewer values than ``shape``
    are padded with the last one when read back, as in TF.
    """
    if isinstance(values, TensorProto):
        return values
    arr, dtype = _to_numpy(values, dtype)
    if shape is None:
        shape = arr.shape
        size = arr.size
    else:
        shape = tuple(as_shape(shape).as_list())
        size = int(np.prod(shape, dtype=np.int64))
        if allow_broadcast:
            if arr.shape not in ((1,), ()) and arr.size != size:
                raise TypeError(f"Expected Tensor's shape: {shape}, but got {arr.shape}.")
        else:
            if verify_shape and arr.shape != shape:
                raise TypeError(f"Expected Tensor's shape: {shape}, but got {arr.shape}.")
            if arr.size > size:
                raise ValueError(f"Too many elements provided. Takes at most {size}, but got {arr.size}.")
    proto = TensorProto(dtype=dtype.as_datatype_enum, tensor_shape=_shape_proto(as_shape(shape)))
    if arr.size == size and dtype in _TENSOR_CONTENT_TYPES and size > 1:
        proto.tensor_content = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
        return proto
    flat = arr.ravel()
    if dtype is dtypes.string:
        proto.string_val.extend(x if isinstance(x, bytes) else str(x).encode("utf-8") for x in flat)
    elif dtype.is_quantized:
        proto.int_val.extend(int(x) for x in flat)
    elif dtype is dtypes.float16:
        proto.half_val.extend(int(x) for x in flat.view(np.uint16))
    elif dtype.is_complex:
        getattr(proto, _VAL_FIELDS[dtype]).extend(float(p) for x in flat for p in (x.real, x.imag))
    else:
        getattr(proto, _VAL_FIELDS[dtype]).extend(x.item() for x in flat)
    return proto


@tf_export("make_ndarray")
def make_ndarray(tensor) -> np.ndarray:
    """The numpy array a ``TensorProto`` holds (a filled shape expanded; strings as ``bytes`` objects)."""
    shape = [d.size for d in tensor.tensor_shape.dim]
    n = int(np.prod(shape, dtype=np.int64))
    dtype = dtypes.as_dtype(tensor.dtype)
    if dtype is dtypes.string:
        values = np.array(list(tensor.string_val), dtype=object)
    elif tensor.tensor_content:
        npd = dtype.array_dtype
        return np.frombuffer(tensor.tensor_content, dtype=np.dtype(npd).newbyteorder("<")).astype(npd).reshape(shape)
    elif dtype is dtypes.float16:
        values = np.array(list(tensor.half_val), dtype=np.uint16).view(np.float16)
    elif dtype.is_complex:
        parts = np.array(list(getattr(tensor, _VAL_FIELDS[dtype])), dtype=dtype.real_dtype.as_numpy_dtype)
        values = parts[0::2] + 1j * parts[1::2]
    elif dtype.is_quantized:
        values = np.array(list(tensor.int_val), dtype=dtype.array_dtype)
    else:
        values = np.array(list(getattr(tensor, _VAL_FIELDS[dtype])), dtype=dtype.as_numpy_dtype)
    values = values.astype(object if dtype is dtypes.string else values.dtype)
    if values.size == n:
        return values.reshape(shape)
    if values.size == 0:
        return np.zeros(shape, dtype=values.dtype)
    return np.pad(values, (0, n - values.size), "edge").reshape(shape)


# -- scopes -------------------------------------------------------------------------------------


@tf_export("init_scope")
@contextlib.contextmanager
def init_scope():
    """Leaves control-flow and function graphs for the outermost graph, with no control dependencies.

    The name scope stays the caller's. Variables' initializers are built so
    (TF1 does the same), so that they run outside any loop or branch.
    """
    graph = get_default_graph()
    scope = graph.get_name_scope()
    outer = graph
    while getattr(outer, "outer_graph", None) is not None:
        outer = outer.outer_graph
    with outer.as_default(), outer.control_dependencies(None), outer.name_scope(f"{scope}/" if scope else ""):
        yield


@tf_export("container")
def container(container_name: str):
    """``with tf.container("name"):`` stateful ops made inside use resource container ``name``."""
    return get_default_graph().container(container_name)


@tf_export("op_scope")
def op_scope(values, name, default_name=None):
    """TF1's deprecated spelling of ``name_scope(name, default_name, values)``."""
    return name_scope(name, default_name, values)
