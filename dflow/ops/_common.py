"""Helpers shared by op blocks: common shape rules and the kernels' error (the array module: ``dflow.kernels``)."""

from __future__ import annotations

from dflow.framework import errors
from dflow.framework.tensor_shape import TensorShape, broadcast_shapes


def same_as_input(op):
    """Shape rule: one output with the dtype and shape of input 0."""
    x = op._inputs[0]
    return [(x.dtype, x.shape)]


def broadcast_binary(op):
    """Shape rule: two inputs of one dtype, numpy-broadcast to one output."""
    x, y = op._inputs
    return [(x.dtype, broadcast_shapes(x.shape, y.shape))]


def broadcast_to_dtype(dtype):
    """Shape rule factory: broadcast two inputs, output ``dtype`` (comparisons give bool)."""

    def infer(op):
        x, y = op._inputs
        return [(dtype, broadcast_shapes(x.shape, y.shape))]

    return infer


def scalar_shape() -> TensorShape:
    return TensorShape([])


def invalid_argument(msg: str) -> errors.InvalidArgumentError:
    """The run-time error of a kernel given bad values (the runtime adds the op)."""
    return errors.InvalidArgumentError(None, None, msg)
