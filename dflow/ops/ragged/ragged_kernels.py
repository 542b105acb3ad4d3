"""The ragged ops with kernels of their own: ``RaggedRange``, ``RaggedTensorToTensor`` and
``RaggedTensorToSparse`` (TF1's op names), with their gradients.

Everything else in ``dflow.ops.ragged`` is built from ordinary dflow ops. A
ragged value reaches these kernels as its ``nested_row_splits`` (outermost
first) and its ``flat_values``.
"""

from __future__ import annotations

import numpy as np

from dflow.framework import dtypes
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument


def value_positions(nested_splits) -> list:
    """For each flat value, its index along each ragged dimension: ``ragged_rank + 1`` int64 arrays."""
    first = np.asarray(nested_splits[0])
    pos = [np.arange(len(first) - 1, dtype=np.int64)]
    for s in nested_splits:
        s = np.asarray(s, dtype=np.int64)
        lengths = np.diff(s)
        if lengths.size and lengths.min() < 0:
            raise invalid_argument("Invalid row_splits: row_splits must be sorted in ascending order")
        rowids = np.repeat(np.arange(len(s) - 1, dtype=np.int64), lengths)
        cols = np.arange(s[0], s[-1], dtype=np.int64) - s[:-1][rowids] if len(s) > 1 else np.zeros(0, np.int64)
        pos = [p[rowids] for p in pos] + [cols]
    return pos


def _bounding(pos: list) -> list:
    return [int(p.max()) + 1 if p.size else 0 for p in pos]


# -- RaggedRange -----------------------------------------------------------------


def _range_infer(op):
    """Splits of ``nrows + 1`` entries, ``nrows`` the broadcast size of the (at most 1-D) inputs."""
    splits_dtype = op._attrs["Tsplits"]
    nrows = 1
    for t in op._inputs:
        if t.shape.ndims is None:
            nrows = None
            break
        if t.shape.ndims > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {t.shape.ndims}")
        if t.shape.ndims == 1:
            size = t.shape[0].value
            if size is None:
                nrows = None
                break
            if nrows not in (1, size) and size != 1:
                raise ValueError(f"starts, limits, and deltas must have the same shape: {nrows} vs {size}")
            nrows = size if size != 1 or nrows is None else nrows
    splits = TensorShape([None if nrows is None else nrows + 1])
    return [(splits_dtype, splits), (op._inputs[0].dtype, TensorShape([None]))]


def _range_kernel(starts, limits, deltas, Tsplits):  # noqa: N803 - TF attr name
    starts, limits, deltas = np.broadcast_arrays(starts, limits, deltas)
    starts, limits, deltas = starts.ravel(), limits.ravel(), deltas.ravel()
    if np.any(deltas == 0):
        raise invalid_argument("Requires delta != 0")
    sizes = np.where(deltas > 0, np.ceil((limits - starts) / np.where(deltas == 0, 1, deltas)),
                     np.ceil((starts - limits) / np.where(deltas == 0, 1, -deltas)))
    sizes = np.maximum(sizes, 0).astype(np.int64)
    splits = np.concatenate([[0], np.cumsum(sizes)]).astype(Tsplits.as_numpy_dtype)
    rowids = np.repeat(np.arange(len(sizes)), sizes)
    offsets = np.arange(splits[-1], dtype=np.int64) - splits[:-1][rowids]
    values = (starts[rowids] + offsets * deltas[rowids]).astype(starts.dtype)
    return splits, values


register("RaggedRange", infer=_range_infer, kernel=_range_kernel, gpu=False)
not_differentiable("RaggedRange")


def ragged_range_op(starts: Tensor, limits: Tensor, deltas: Tensor, splits_dtype, name=None):
    """``(row_splits, values)`` of the rows ``range(starts[i], limits[i], deltas[i])``."""
    op = apply_op("RaggedRange", [starts, limits, deltas], {"Tsplits": dtypes.as_dtype(splits_dtype)}, name=name)
    return op.outputs[0], op.outputs[1]


# -- RaggedTensorToTensor --------------------------------------------------------


def _to_tensor_infer(op):
    shape, values, _ = op._inputs[:3]
    rank = len(op._inputs) - 3 + values.shape.ndims if values.shape.ndims is not None else None
    known = constant_value(shape)
    if known is not None and np.ndim(known) == 1:
        dims = [int(d) if d >= 0 else None for d in np.asarray(known)]
    else:
        dims = [None] * rank if rank is not None else None
    out = TensorShape(dims)
    if rank is not None and dims is not None:
        out = TensorShape([d if d is not None else (values.shape[i - rank + values.shape.ndims]
                                                    if i >= rank - values.shape.ndims + 1 else None)
                           for i, d in enumerate(dims)])
    return [(values.dtype, out)]


def _to_tensor_kernel(shape, values, default_value, *nested_splits):
    pos = value_positions(nested_splits)
    inner = list(values.shape[1:])
    bound = _bounding(pos)
    bound[0] = len(nested_splits[0]) - 1
    shape = [int(d) for d in np.asarray(shape).ravel()]
    if len(shape) != len(pos) + len(inner):
        raise invalid_argument(f"rt_input.shape and shape={shape} are incompatible: rt_input.rank = "
                               f"{len(pos) + len(inner)} but shape.rank = {len(shape)}")
    for i, d in enumerate(inner):
        want = shape[len(pos) + i]
        if want >= 0 and want != d:
            raise invalid_argument(f"rt_input.shape and shape={shape} are incompatible: rt_input.shape[{len(pos) + i}] "
                                   f"= {d} but shape[{len(pos) + i}] = {want}")
    out_shape = [d if d >= 0 else b for d, b in zip(shape, bound + inner)]
    default_value = np.asarray(default_value, dtype=values.dtype)
    try:
        out = np.empty(out_shape, dtype=values.dtype)
        out[...] = default_value
    except ValueError:
        raise invalid_argument(f"default_value.shape={list(default_value.shape)} and rt_input.flat_values.shape="
                               f"{list(values.shape)} are incompatible: default_value.rank = "
                               f"{default_value.ndim}  must be less than rt_input.flat_values.rank = "
                               f"{values.ndim}") from None
    keep = np.ones(len(pos[-1]), dtype=bool)
    for p, d in zip(pos, out_shape):
        keep &= p < d
    out[tuple(p[keep] for p in pos)] = values[:len(keep)][keep]
    return out


register("RaggedTensorToTensor", infer=_to_tensor_infer, kernel=_to_tensor_kernel, gpu=False)


def ragged_to_tensor_op(shape: Tensor, flat_values: Tensor, default_value: Tensor, nested_splits, name=None):
    """The dense tensor of a ragged value (``shape`` entries ``-1`` take the bounding size)."""
    return apply_op("RaggedTensorToTensor", [shape, flat_values, default_value] + list(nested_splits),
                    name=name).outputs[0]


@gradient("RaggedTensorToTensor")
def _to_tensor_grad(op, grad):
    """As TF's: the dense gradient gathered back to the flat values, the rest summed into the default."""
    from dflow.ops.array import array_ops, creation_ops, gather_ops
    from dflow.ops.math import math_ops, reduction_ops, segment_ops

    flat_values, default_value = op.inputs[1], op.inputs[2]
    nested_splits = list(op.inputs[3:])
    ragged_rank = len(nested_splits)
    nvals = array_ops.shape(flat_values)[0]
    grad_shape = array_ops.shape(grad, out_type=dtypes.int64)
    indices = ragged_to_tensor_op(grad_shape[:1 + ragged_rank], creation_ops.range(nvals),
                                  _minus_one(), nested_splits)
    mask = math_ops.not_equal(indices, -1)
    values_grad = segment_ops.unsorted_segment_sum(gather_ops.boolean_mask(grad, mask),
                                                   gather_ops.boolean_mask(indices, mask), nvals)
    default_grads = gather_ops.boolean_mask(grad, math_ops.logical_not(mask))
    drop = (default_grads.shape.ndims or 0) - (default_value.shape.ndims or 0)
    default_grad = reduction_ops.reduce_sum(default_grads, axis=list(range(drop)))
    default_grad = array_ops.reshape(default_grad, array_ops.shape(default_value))
    return [None, values_grad, default_grad] + [None] * ragged_rank


def _minus_one() -> Tensor:
    from dflow.framework.constant_op import constant

    return constant(-1, dtypes.int32)


# -- RaggedTensorToSparse --------------------------------------------------------


def _to_sparse_infer(op):
    *splits, values = op._inputs
    rank = None if values.shape.ndims is None else len(splits) + values.shape.ndims
    return [(dtypes.int64, TensorShape([None, rank])), (values.dtype, TensorShape([None])),
            (dtypes.int64, TensorShape([rank]))]


def _to_sparse_kernel(*inputs):
    *nested_splits, values = inputs
    pos = value_positions(nested_splits)
    inner = list(values.shape[1:])
    bound = _bounding(pos)
    bound[0] = len(nested_splits[0]) - 1
    n = len(pos[-1])
    index = np.stack(pos, axis=1) if pos else np.zeros((n, 0), np.int64)
    if inner:
        grid = np.indices(inner).reshape(len(inner), -1).T
        index = np.concatenate([np.repeat(index, len(grid), axis=0), np.tile(grid, (n, 1))], axis=1)
    dense_shape = np.asarray(bound + inner, dtype=np.int64)
    return index.astype(np.int64), values[:n].reshape(-1), dense_shape


register("RaggedTensorToSparse", infer=_to_sparse_infer, kernel=_to_sparse_kernel, gpu=False, foldable=False)


def ragged_to_sparse_op(nested_splits, flat_values: Tensor, name=None):
    """``(indices, values, dense_shape)`` of the sparse tensor with a ragged value's entries."""
    op = apply_op("RaggedTensorToSparse", list(nested_splits) + [flat_values], name=name)
    return op.outputs[0], op.outputs[1], op.outputs[2]


@gradient("RaggedTensorToSparse")
def _to_sparse_grad(op, indices_grad, values_grad, shape_grad):
    """The sparse values' gradient, reshaped to the flat values (as TF's)."""
    from dflow.ops.array import array_ops

    flat_values = op.inputs[-1]
    return [None] * (len(op.inputs) - 1) + [array_ops.reshape(values_grad, array_ops.shape(flat_values))]
