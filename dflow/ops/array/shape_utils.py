"""Shape checks and broadcasting of shapes: ``ensure_shape``, ``broadcast_dynamic_shape``,
``broadcast_static_shape`` and ``dimension_at_index``.

``ensure_shape(x, shape)`` refines ``x``'s static shape at graph build (a
clash is a ``ValueError`` there) and checks the value's shape when it runs
(``InvalidArgumentError`` naming the tensor, as TF's ``EnsureShape``).
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.framework.tensor_shape import Dimension, TensorShape, as_shape, broadcast_shapes
from dflow.ops._common import invalid_argument
from dflow.ops.array.index_args import host


def _shape_str(shape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


# -- EnsureShape ------------------------------------------------------------------------------------


def _ensure_shape_infer(op):
    (x,) = op._inputs
    want = op._attrs["shape"]
    try:
        merged = x.shape.merge_with(want)
    except ValueError:
        raise ValueError(f"Shapes {_shape_str(want.as_list()) if want.ndims is not None else '?'} and "
                         f"{_shape_str(x.shape.as_list()) if x.shape.ndims is not None else '?'} are "
                         f"incompatible") from None
    return [(x.dtype, merged)]


def _ensure_shape_kernel(x, shape, tensor_name):
    if shape.ndims is None:
        return x
    want = shape.as_list()
    if len(x.shape) != len(want) or any(w is not None and w != d for w, d in zip(want, x.shape)):
        raise invalid_argument(f"Shape of tensor {tensor_name} {_shape_str(x.shape)} is not compatible with "
                               f"expected shape {_shape_str(want)}.")
    return x


register("EnsureShape", infer=_ensure_shape_infer, kernel=_ensure_shape_kernel)


@gradient("EnsureShape")
def _ensure_shape_grad(op, grad):
    return [grad]


@tf_export("ensure_shape", "debugging.ensure_shape")
def ensure_shape(x, shape, name=None):
    """``x``, whose shape must be compatible with ``shape`` (None dimensions match anything).

    >>> tf.ensure_shape(tf.placeholder(tf.float32, [None, 3]), [2, None]).shape
    TensorShape([2, 3])
    """
    x = convert_to_tensor(x, name="x")
    shape = as_shape(shape)
    return apply_op("EnsureShape", [x], {"shape": shape, "tensor_name": x.op.name},
                    name=name or "EnsureShape").outputs[0]


# -- BroadcastArgs ------------------------------------------------------------------------------


def _broadcast_args_infer(op):
    a, b = op._inputs
    if a.dtype is not b.dtype or a.dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"BroadcastArgs: both shapes must be int32 or both int64, got {a.dtype.name} and "
                         f"{b.dtype.name}")
    na, nb = a.shape.num_elements(), b.shape.num_elements()
    return [(a.dtype, TensorShape([None if na is None or nb is None else max(na, nb)]))]


def _broadcast_args_kernel(s0, s1):
    a, b = np.asarray(host(s0)).tolist(), np.asarray(host(s1)).tolist()
    try:
        out = np.broadcast_shapes(tuple(a), tuple(b))
    except ValueError:
        raise invalid_argument(f"Incompatible shapes: {_shape_str(a)} vs. {_shape_str(b)}") from None
    return np.asarray(out, dtype=np.asarray(s0).dtype)


register("BroadcastArgs", infer=_broadcast_args_infer, kernel=_broadcast_args_kernel)
not_differentiable("BroadcastArgs")


@tf_export("broadcast_dynamic_shape", "math.broadcast_dynamic_shape")
def broadcast_dynamic_shape(shape_x, shape_y):
    """The shape (a 1-D int tensor) that ``shape_x`` and ``shape_y`` broadcast to (op ``BroadcastArgs``)."""
    with name_scope(None):
        x = convert_to_tensor(shape_x, name="shape_x")
        y = convert_to_tensor(shape_y, dtype=x.dtype, name="shape_y")
    return apply_op("BroadcastArgs", [x, y], name="BroadcastArgs").outputs[0]


@tf_export("broadcast_static_shape", "math.broadcast_static_shape")
def broadcast_static_shape(shape_x, shape_y) -> TensorShape:
    """The ``TensorShape`` two static shapes broadcast to; ``ValueError`` if they cannot."""
    shape_x, shape_y = as_shape(shape_x), as_shape(shape_y)
    try:
        return broadcast_shapes(shape_x, shape_y)
    except ValueError:
        raise ValueError("Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension "
                         "pair they are either equal or one of them is 1. "
                         f"Received: {shape_x} and {shape_y}.") from None


@tf_export("dimension_at_index", "compat.dimension_at_index")
def dimension_at_index(shape, index) -> Dimension:
    """``shape``'s dimension ``index`` as a ``Dimension`` (``Dimension(None)`` when the rank is unknown)."""
    shape = as_shape(shape)
    if shape.ndims is None:
        return Dimension(None)
    return shape.dims[index]
