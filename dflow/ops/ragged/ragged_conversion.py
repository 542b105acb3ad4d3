"""``RaggedTensor.from_tensor`` and ``RaggedTensor.merge_dims``, ported from TF's ops-level definitions.

``from_tensor`` cuts each row of a dense tensor to ``lengths`` (or to where
trailing ``padding`` starts) and keeps the kept values with a boolean mask,
so gradients reach the dense tensor. Without either, every row keeps all
its values and the ragged dimension has a uniform row length.
"""

from __future__ import annotations

import numpy as np

from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.ops.array import array_ops, creation_ops, gather_ops
from dflow.ops.math import math_ops, reduction_ops


def from_tensor(cls, tensor, lengths, padding, ragged_rank: int, name, row_splits_dtype):
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
    if lengths is not None and padding is not None:
        raise ValueError("Specify argument `lengths` or `padding`, but not both.")
    if not isinstance(ragged_rank, int):
        raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
    if ragged_rank <= 0:
        raise ValueError(f"Argument `ragged_rank` must be greater than 0. Received {ragged_rank}.")
    with name_scope(name, "RaggedFromTensor", [tensor, lengths, padding]):
        tensor = convert_to_tensor(tensor, name="tensor")
        tensor.shape.with_rank_at_least(ragged_rank + 1)
        if ragged_rank > 1:
            return _from_tensor_nested(cls, tensor, lengths, padding, ragged_rank, row_splits_dtype)
        input_shape = array_ops.shape(tensor, out_type=row_splits_dtype)
        ncols = input_shape[1]
        if padding is not None:
            lengths = _lengths_from_padding(tensor, padding, ncols, row_splits_dtype)
        if lengths is not None:
            lengths = math_ops.cast(convert_to_tensor(lengths, name="lengths", preferred_dtype=row_splits_dtype),
                                    row_splits_dtype)
            lengths.shape.with_rank(1)
            lengths = math_ops.maximum(math_ops.minimum(lengths, ncols), constant(0, row_splits_dtype))
            splits = array_ops.concat([array_ops.zeros([1], row_splits_dtype), reduction_ops.cumsum(lengths)], axis=0)
            mask = array_ops.sequence_mask(lengths, maxlen=ncols)
            values = gather_ops.boolean_mask(tensor, mask)
            return cls.from_row_splits(values, splits, validate=False)
        values_shape = array_ops.concat([array_ops.reshape(input_shape[0] * input_shape[1], [1]), input_shape[2:]],
                                        axis=0)
        values = array_ops.reshape(tensor, values_shape)
        dims = tensor.shape.as_list() if tensor.shape.ndims is not None else [None, None]
        nrows = constant(dims[0], row_splits_dtype) if dims[0] is not None else input_shape[0]
        ncols = constant(dims[1], row_splits_dtype) if dims[1] is not None else input_shape[1]
        return cls.from_uniform_row_length(values, ncols, nrows=nrows, validate=False)


def _lengths_from_padding(tensor, padding, ncols, row_splits_dtype):
    padding = convert_to_tensor(padding, name="padding", dtype=tensor.dtype)
    padding.shape.assert_is_compatible_with(tensor.shape[2:])
    has_default = math_ops.equal(padding, tensor)
    if tensor.shape.ndims is not None and tensor.shape.ndims > 2:
        has_default = reduction_ops.reduce_all(has_default, axis=list(range(2, tensor.shape.ndims)))
    has_nondefault = math_ops.cast(math_ops.logical_not(has_default), row_splits_dtype)
    length_for_nondefault = has_nondefault * array_ops.expand_dims(
        creation_ops.range(constant(1, row_splits_dtype), ncols + 1), 0)
    return reduction_ops.reduce_max(length_for_nondefault, axis=1)


def _from_tensor_nested(cls, tensor, lengths, padding, ragged_rank, row_splits_dtype):
    dims = tensor.shape.as_list()
    if tensor.shape.is_fully_defined():
        dim_size = np.cumprod(dims)
        new_shape = [int(dim_size[ragged_rank - 1])] + dims[ragged_rank:]
    else:
        shape = array_ops.shape(tensor, out_type=row_splits_dtype)
        dim_size = reduction_ops.cumprod(shape)
        new_shape = array_ops.concat([array_ops.reshape(dim_size[ragged_rank - 1], [1]), shape[ragged_rank:]],
                                     axis=0)
    flattened = array_ops.reshape(tensor, new_shape)
    result = cls.from_tensor(flattened, lengths, padding, row_splits_dtype=row_splits_dtype)
    for axis in range(ragged_rank - 1, 0, -1):
        dim_len = dims[axis]
        if dim_len is None:
            dim_len = array_ops.shape(tensor, out_type=row_splits_dtype)[axis]
        else:
            dim_len = constant(dim_len, row_splits_dtype)
        nrows = dim_size[axis - 1]
        nrows = constant(int(nrows), row_splits_dtype) if isinstance(nrows, (np.integer, int)) else nrows
        result = cls.from_uniform_row_length(result, dim_len, nrows=nrows, validate=False)
    return result


def merge_dims(value, outer_axis: int, inner_axis: int):
    """TF's ``merge_dims``: axes already normalized, ``outer_axis <= inner_axis``."""
    from dflow.ops.ragged.ragged_tensor import RaggedTensor

    if outer_axis == inner_axis:
        return value
    while outer_axis == 0 and isinstance(value, RaggedTensor):
        value = value.values
        inner_axis -= 1
        if inner_axis == 0:
            return value
    if not isinstance(value, RaggedTensor):
        if value.shape.is_fully_defined():
            old = value.shape.as_list()
            new_shape = old[:outer_axis] + [-1] + old[inner_axis + 1:]
        else:
            old = array_ops.shape(value)
            new_shape = array_ops.concat([old[:outer_axis], [-1], old[inner_axis + 1:]], axis=0)
        return array_ops.reshape(value, new_shape)
    if outer_axis > 1:
        return value.with_values(merge_dims(value.values, outer_axis - 1, inner_axis - 1))
    new_values, new_splits = value.values, value.row_splits
    for axis in range(outer_axis, inner_axis):
        if isinstance(new_values, RaggedTensor):
            new_splits = gather_ops.gather(new_values.row_splits, new_splits)
            new_values = new_values.values
        else:
            shape_split = inner_axis - axis + 1
            if new_values.shape.is_fully_defined():
                old = new_values.shape.as_list()
                new_shape = [-1] + old[shape_split:]
                flat_size = int(np.prod(old[1:shape_split]))
            else:
                old = array_ops.shape(new_values)
                new_shape = array_ops.concat([[-1], old[shape_split:]], axis=0)
                flat_size = math_ops.cast(reduction_ops.reduce_prod(old[1:shape_split]), new_splits.dtype)
            new_values = array_ops.reshape(new_values, new_shape)
            new_splits = new_splits * flat_size
            break
    return RaggedTensor.from_row_splits(new_values, new_splits)
