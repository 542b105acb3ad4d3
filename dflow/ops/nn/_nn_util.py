"""Argument checks shared by the nn and random op modules, with TF's messages."""

from __future__ import annotations

import numpy as np

from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import constant_value
from dflow.ops.array.index_args import with_rank, with_rank_at_least  # noqa: F401 - shared rank checks

FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
INTS = (dtypes.int32, dtypes.int64)
SIGNED = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
UNSIGNED = (dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64)
REALS = FLOATS + SIGNED + UNSIGNED


def check_dtype(t: Tensor, allowed, param: str) -> None:
    """TypeError unless ``t``'s dtype is one of ``allowed``."""
    if t.dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise TypeError(f"Value passed to parameter '{param}' has DataType {t.dtype.name} not in list of "
                        f"allowed values: {names}")


def as_tensor(value, param: str, allowed=None, dtype=None) -> Tensor:
    """Converts an op argument (named ``param``, as TF names its constants) and checks its dtype."""
    t = convert_to_tensor(value, dtype=dtype, name=param)
    if allowed is not None:
        check_dtype(t, allowed, param)
    return t


def is_zero(t: Tensor) -> bool:
    """TF1's ``nn_grad.IsZero``: ``t`` is zeros known at graph build (``ZerosLike``, or a ``Fill`` or
    constant of 0; ``tf.gradients`` fills an unused output's gradient so), and a rule may skip it."""
    op = t.op
    if op.type in ("ZerosLike", "Zeros"):
        return True
    value = constant_value(op.inputs[0] if op.type == "Fill" else t)
    return value is not None and not np.any(value)


def merge_dims(a, b):
    """Two static dimensions (int or None) that must agree; the known one wins."""
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


def resolve_axis(axis, dim, default=-1):
    """TF's ``deprecated_argument_lookup`` for the ``axis``/``dim`` pair."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    value = axis if axis is not None else dim
    if value is None:
        return default
    if isinstance(value, Tensor):
        v = constant_value(value)
        if v is None:
            raise ValueError(f"dflow needs a constant axis, got the tensor {value.name}")
        value = v
    return int(value)
