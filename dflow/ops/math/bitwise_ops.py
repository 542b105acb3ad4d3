"""``tf.bitwise``: ``bitwise_and``/``or``/``xor``, ``invert``, ``left_shift``, ``right_shift``.

Integers only, with broadcasting. Shifts follow TF's kernels: the shift
amount is clamped to ``[0, bits - 1]`` (so ``x << 40`` on int32 is ``x << 31``
and a negative amount shifts by 0), left shifts wrap around in two's
complement, and right shifts of signed integers are arithmetic.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import binary_inputs, convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.kernels import array_module
from dflow.ops._common import broadcast_binary, same_as_input

_INTEGERS = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.uint32,
             dtypes.uint64)


def _check_integer(x, arg: str = "x") -> None:
    if x.dtype not in _INTEGERS:
        raise TypeError(f"Value passed to parameter '{arg}' has DataType {x.dtype.name} not in list of allowed "
                        f"values: int8, int16, int32, int64, uint8, uint16, uint32, uint64")


def _clamped(y, dtype):
    xp = array_module(y)
    bits = np.dtype(dtype).itemsize * 8
    return xp.clip(y, 0, bits - 1).astype(dtype)


def _left_shift(x, y):
    xp = array_module(x, y)
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    # Shift the unsigned bits so that overflow wraps around, as TF's kernel does.
    return xp.left_shift(x.astype(unsigned), _clamped(y, unsigned)).astype(x.dtype)


def _right_shift(x, y):
    return array_module(x, y).right_shift(x, _clamped(y, x.dtype))


for _type, _kernel in (("BitwiseAnd", np.bitwise_and), ("BitwiseOr", np.bitwise_or), ("BitwiseXor", np.bitwise_xor),
                       ("LeftShift", _left_shift), ("RightShift", _right_shift)):
    register(_type, infer=broadcast_binary, kernel=_kernel)
    not_differentiable(_type)
register("Invert", infer=same_as_input, kernel=np.invert)
not_differentiable("Invert")


def _binary(op_type: str, x, y, name):
    with name_scope(name, op_type, [x, y]) as scope:
        x, y = binary_inputs(x, y, op_type)
        _check_integer(x)
        return apply_op(op_type, [x, y], name=scope).outputs[0]


@tf_export("bitwise.bitwise_and")
def bitwise_and(x, y, name=None):
    """Element-wise ``x & y`` of two integer tensors (broadcasting)."""
    return _binary("BitwiseAnd", x, y, name)


@tf_export("bitwise.bitwise_or")
def bitwise_or(x, y, name=None):
    """Element-wise ``x | y`` of two integer tensors (broadcasting)."""
    return _binary("BitwiseOr", x, y, name)


@tf_export("bitwise.bitwise_xor")
def bitwise_xor(x, y, name=None):
    """Element-wise ``x ^ y`` of two integer tensors (broadcasting)."""
    return _binary("BitwiseXor", x, y, name)


@tf_export("bitwise.left_shift")
def left_shift(x, y, name=None):
    """Element-wise ``x << y``; ``y`` is clamped to ``[0, bits - 1]`` and the result wraps, as TF's.

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.bitwise.left_shift(tf.constant([1, 3], tf.int8), tf.constant([7, 9], tf.int8))).tolist()
    [-128, -128]
    """
    return _binary("LeftShift", x, y, name)


@tf_export("bitwise.right_shift")
def right_shift(x, y, name=None):
    """Element-wise ``x >> y`` (arithmetic for signed types); ``y`` clamped to ``[0, bits - 1]``."""
    return _binary("RightShift", x, y, name)


@tf_export("bitwise.invert")
def invert(x, name=None):
    """Element-wise bitwise NOT: ``~x``."""
    with name_scope(name, "Invert", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        _check_integer(x)
        return apply_op("Invert", [x], name=scope).outputs[0]
