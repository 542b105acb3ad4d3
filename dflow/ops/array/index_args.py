"""Index arguments of array ops: a shape, an axis, a permutation, paddings.

TF1 passes these as int32/int64 tensor inputs that it keeps in host memory.
dflow does the same when the argument is a Tensor (it may be computed, or
fed), but when it is a plain Python or numpy value at graph time it is stored
in the op's attrs instead: the kernel then gets it ready-made (a tuple of
ints), no Const op is created, and a GPU kernel never waits for a shape to
come back from the device. Both forms reach the kernel under one keyword::

    reshape(x, [2, -1])         # Reshape(x), attrs {"shape": (2, -1)}
    reshape(x, tf.shape(y))     # Reshape(x, shape), the shape as input 1

so one kernel ``_reshape_kernel(tensor, shape)`` serves both. All index
arguments of one op take the same form: if any is a Tensor they all become
trailing inputs, in the order the kernel names them. Shape rules read them
with ``index_arg``; gradient rules can do the same.
"""

from __future__ import annotations

import numpy as np

from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor, to_numpy
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import Dimension, TensorShape

INDEX_DTYPES = (dtypes.int32, dtypes.int64)


# -- graph time: splitting static values from tensors ----------------------------


def contains_tensor(value) -> bool:
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(contains_tensor(v) for v in value)
    return False


def static_ints(value, arg: str, allowed=INDEX_DTYPES):
    """A Python/numpy index value as an int or (nested) tuple of ints.

    TF1's conversion rules apply, so ``[2.5]`` is a TypeError naming ``arg``.
    A ``TensorShape`` must be fully defined (TF1 converts it to a tensor).
    """
    if isinstance(value, TensorShape):
        if not value.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape to a Tensor: {value}")
        value = value.as_list()
    elif isinstance(value, Dimension):
        value = value.value
    if isinstance(value, (list, tuple)):
        value = [d.value if isinstance(d, Dimension) else d for d in value]
        if any(d is None for d in value):
            raise ValueError(f"Cannot convert {value!r} to an index: it holds None (an unknown dimension).")
    arr = to_numpy(value)
    if arr.size == 0 and arr.dtype.kind == "f":
        arr = arr.astype(np.int32)  # [] is an empty shape, not a float tensor
    dt = dtypes.as_dtype(arr.dtype)
    if dt not in allowed:
        raise TypeError(f"Value passed to parameter '{arg}' has DataType {dt.name} not in list of allowed values: "
                        f"{', '.join(d.name for d in allowed)}")
    return to_tuple(arr)


def to_tuple(arr):
    """An int array as an int (0-d) or nested tuples of ints."""
    if arr.ndim == 0:
        return int(arr)
    return tuple(to_tuple(a) for a in arr) if arr.ndim > 1 else tuple(int(a) for a in arr.tolist())


def index_tensor(value, arg: str, allowed=INDEX_DTYPES) -> Tensor:
    """An index argument as an integer tensor named ``arg`` (in the caller's scope)."""
    if isinstance(value, Tensor):
        t = value
    else:
        empty = isinstance(value, (list, tuple)) and not value  # [] is an empty int list here
        t = convert_to_tensor(value, dtype=dtypes.int32 if empty else None, name=arg)
    if t.dtype not in allowed:
        raise TypeError(f"Value passed to parameter '{arg}' has DataType {t.dtype.name} not in list of allowed "
                        f"values: {', '.join(d.name for d in allowed)}")
    return t


def split_index_args(args: dict, allowed=INDEX_DTYPES, scalars=()) -> tuple[list, dict]:
    """``(inputs, attrs)`` for an op's index arguments (see the module docstring).

    Arguments named in ``scalars`` must be scalars. Call it inside the op's
    name scope: tensors made from Python lists that hold tensors are then
    named ``<op>/<arg>``, as TF1 names them.
    """
    if not any(contains_tensor(v) for v in args.values()):
        attrs = {k: static_ints(v, k, allowed) for k, v in args.items()}
        for k in scalars:
            if isinstance(attrs[k], tuple):
                raise ValueError(f"Shape must be rank 0 but is rank {np.ndim(attrs[k])} for argument '{k}'")
        return [], attrs
    inputs = [index_tensor(v, k, allowed) for k, v in args.items()]
    for k, t in zip(args, inputs):
        if k in scalars and t.shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims} for argument '{k}'")
    return inputs, {}


def convert_same_dtype(values, op_type: str, arg: str = "values", dtype=None) -> list:
    """A list input of one type attr, as TF1 converts it.

    The first Tensor in ``values`` gives the dtype that Python elements are
    converted to; tensors of different dtypes are a TypeError naming the op.
    """
    if dtype is None:
        dtype = next((v.dtype for v in values if isinstance(v, Tensor)), None)
    out = [convert_to_tensor(v, dtype=dtype) if not isinstance(v, Tensor) else v for v in values]
    kinds = [t.dtype for t in out]
    if len(set(kinds)) > 1:
        raise TypeError(f"Tensors in list passed to '{arg}' of '{op_type}' Op have types "
                        f"[{', '.join(d.name for d in kinds)}] that don't all match.")
    return out


# -- shape rules: reading index arguments back ------------------------------------------


def index_arg(op, name: str, position: int):
    """``(value, tensor)`` of index argument ``name`` of ``op``.

    ``value`` is a numpy array when the argument is known at graph time (an
    attr, or a constant input at ``position``), else None; ``tensor`` is the
    input tensor when the argument is one.
    """
    attrs = op._attrs
    if name in attrs:
        return np.asarray(attrs[name]), None
    t = op._inputs[position]
    return constant_value(t), t


def shape_from_tensor(t: Tensor) -> TensorShape:
    """The partial shape that a 1-D int tensor describes (TF1's ``constant_value_as_shape``).

    Entries of -1 and entries that are not constant are unknown dimensions;
    the shape of a ``tf.shape(x)`` tensor is ``x``'s static shape.
    """
    value = constant_value(t)
    if value is not None:
        check_shape_values(value)
        if value.ndim == 0:
            return TensorShape(None) if value == -1 else TensorShape([int(value)])
        return TensorShape([None if d == -1 else int(d) for d in value.tolist()])
    op = t.op
    if op.type == "Shape":
        return op.inputs[0].shape
    if op.type == "Pack" and t.shape.ndims == 1:
        dims = []
        for x in op.inputs:
            v = constant_value(x)
            dims.append(None if v is None or v.ndim != 0 or v == -1 else int(v))
        return TensorShape(dims)
    if op.type == "ConcatV2":
        axis, _ = index_arg(op, "axis", len(op.inputs) - 1)
        parts = op.inputs if "axis" in op._attrs else op.inputs[:-1]
        if axis is not None and int(axis) in (0, -1):
            out = TensorShape([])
            for p in parts:
                out = out.concatenate(shape_from_tensor(p))
            return out
    if op.type == "StridedSlice" and op.inputs[0].op.type == "Shape" and "begin" in op._attrs:
        sliced = _slice_of_shape(op)
        if sliced is not None:
            return sliced
    n = t.shape[0].value if t.shape.ndims == 1 else None
    return TensorShape(None) if n is None else TensorShape([None] * n)


def _slice_of_shape(op):
    """``tf.shape(x)[a:b]`` as a partial shape, when the slice is a plain range."""
    a = op._attrs
    if a["ellipsis_mask"] or a["new_axis_mask"] or a["shrink_axis_mask"] or len(a["begin"]) != 1:
        return None
    shape = op.inputs[0].op.inputs[0].shape
    if shape.ndims is None:
        return None
    begin = None if a["begin_mask"] & 1 else a["begin"][0]
    end = None if a["end_mask"] & 1 else a["end"][0]
    return TensorShape(shape.as_list()[begin:end:a["strides"][0]])


def check_shape_values(value) -> None:
    """Shape tensors may hold -1 (unknown) but no other negative value."""
    bad = [int(d) for d in np.ravel(value) if d < -1]
    if bad:
        raise ValueError(f"Invalid value in tensor used for shape: {bad[0]}")


# -- kernels: index arguments as host ints -------------------------------------------


def host(v):
    """``v`` as a host value: TF1 keeps index arguments in host memory."""
    return v.get() if type(v).__module__.startswith("cupy") else v


def kernel_ints(v) -> tuple:
    """An index argument as a tuple of Python ints (attr tuples pass through)."""
    if type(v) is tuple:
        return v
    return tuple(np.asarray(host(v)).reshape(-1).tolist())


def kernel_int(v) -> int:
    """A scalar index argument as a Python int."""
    if type(v) is int:
        return v
    arr = np.asarray(host(v))
    if arr.size != 1:
        raise errors.InvalidArgumentError(None, None, f"Expected a scalar index argument, got shape "
                                                      f"{dims_str(arr.shape)}")
    return int(arr.reshape(-1)[0])


# -- messages and shape merging, as TF1 words them -------------------------------------


def dims_str(shape) -> str:
    """``[2,3]``, ``[?,3]`` or ``?``: how TF1 error messages print shapes."""
    if isinstance(shape, TensorShape):
        if shape.ndims is None:
            return "?"
        shape = shape.as_list()
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def merge_shapes(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape compatible with both; ValueError worded as TF1's shape functions."""
    if a.ndims is None:
        return b
    if b.ndims is None:
        return a
    if a.ndims != b.ndims:
        raise ValueError(f"Shapes must be equal rank, but are {a.ndims} and {b.ndims}")
    dims = []
    for i, (x, y) in enumerate(zip(a.as_list(), b.as_list())):
        if x is not None and y is not None and x != y:
            raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}. "
                             f"Shapes are {dims_str(a)} and {dims_str(b)}.")
        dims.append(x if x is not None else y)
    return TensorShape(dims)


def with_rank(shape: TensorShape, rank: int) -> TensorShape:
    if shape.ndims is None:
        return TensorShape([None] * rank)
    if shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape


def with_rank_at_least(shape: TensorShape, rank: int) -> TensorShape:
    if shape.ndims is not None and shape.ndims < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {shape.ndims}")
    return shape
