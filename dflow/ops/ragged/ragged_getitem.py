"""``RaggedTensor.__getitem__``: TF1's indexing of ragged tensors.

Rows may be indexed (``rt[2]``, a Tensor or RaggedTensor row) or sliced
(``rt[1:3]``, ``rt[::2]``); an inner ragged dimension may be sliced
(``rt[:, 1:3]``, ``rt[:, -1:]``) but not indexed (``rt[:, 0]`` is a
ValueError, as in TF, unless that dimension has a uniform row length).
Inner dense dimensions take any Tensor index.
"""

from __future__ import annotations

from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.ops.array import array_ops, creation_ops, gather_ops, select_ops
from dflow.ops.control_flow.control_flow_ops import control_dependencies
from dflow.ops.math import math_ops


def _rt():
    from dflow.ops.ragged.ragged_tensor import RaggedTensor

    return RaggedTensor


def _tensors_in_key(key):
    keys = key if isinstance(key, (list, tuple)) else [key]
    for k in keys:
        if isinstance(k, Tensor):
            yield k
        if isinstance(k, slice):
            yield from (v for v in (k.start, k.stop, k.step) if isinstance(v, Tensor))


def ragged_tensor_getitem(rt_input, key):
    """``rt_input[key]``: a Tensor where no ragged dimension is left, else a RaggedTensor."""
    keys = list(key) if isinstance(key, (list, tuple)) else [key]
    with name_scope(None, "RaggedGetItem", [rt_input] + list(_tensors_in_key(key))):
        return _getitem(rt_input, keys)


def _dense_getitem(t, keys: list):
    return t[tuple(keys)] if keys else t


def _getitem(rt_input, keys: list):
    if not keys:
        return rt_input
    row_key, inner_keys = keys[0], keys[1:]
    if row_key is Ellipsis:
        return _getitem(rt_input, _expand_ellipsis(keys, rt_input.shape.ndims))
    if row_key is None:
        inner = _getitem(rt_input, inner_keys)
        nsplits = array_ops.shape(inner.row_splits, out_type=inner.row_splits.dtype)[0]
        return _rt().from_uniform_row_length(inner, nsplits - 1, nrows=1, validate=False)
    if isinstance(row_key, slice):
        sliced = _slice_rows(rt_input, row_key)
        if rt_input.uniform_row_length is not None:
            sliced = _rt().from_uniform_row_length(sliced.values, rt_input.uniform_row_length,
                                                   nrows=sliced.nrows())
        return _getitem_inner(sliced, inner_keys)
    starts, limits = rt_input.row_splits[:-1], rt_input.row_splits[1:]
    row = rt_input.values[starts[row_key]:limits[row_key]]
    if isinstance(row, Tensor):
        return _dense_getitem(row, inner_keys)
    return _getitem(row, inner_keys)


def _slice_rows(rt_input, row_key: slice):
    if row_key.start is None and row_key.stop is None and row_key.step is None:
        return rt_input
    new_starts = rt_input.row_splits[:-1][row_key]
    new_limits = rt_input.row_splits[1:][row_key]
    if row_key.step is None or (isinstance(row_key.step, int) and row_key.step == 1):
        zero_pad = array_ops.zeros([1], rt_input.row_splits.dtype)
        new_splits = array_ops.concat([zero_pad[array_ops.size(new_starts):], new_starts[:1], new_limits], axis=0)
        values_start, values_limit = new_splits[0], new_splits[-1]
        return _rt().from_row_splits(rt_input.values[values_start:values_limit], new_splits - values_start,
                                     validate=False)
    return _from_value_ranges(new_starts, new_limits, 1, rt_input.values)


def _if_ge_zero(value, true_fn, false_fn):
    if isinstance(value, Tensor):
        return select_ops.where(math_ops.greater_equal(value, 0), true_fn(), false_fn())
    return true_fn() if value >= 0 else false_fn()


def _getitem_inner(rt_input, keys: list):
    if not keys:
        return rt_input
    if not isinstance(rt_input, _rt()):
        return _dense_getitem(rt_input, [slice(None)] + keys)
    column_key = keys[0]
    if column_key is Ellipsis:
        return _getitem_inner(rt_input, _expand_ellipsis(keys, rt_input.values.shape.ndims))
    if column_key is None:
        inner = _getitem_inner(rt_input, keys[1:])
        nsplits = array_ops.shape(inner.row_splits, out_type=inner.row_splits.dtype)[0]
        return _rt().from_uniform_row_length(inner, 1, nrows=nsplits - 1, validate=False)
    if isinstance(column_key, slice):
        if column_key.start is None and column_key.stop is None and column_key.step is None:
            return rt_input.with_values(_getitem_inner(rt_input.values, keys[1:]))
        return _slice_columns(rt_input, column_key, keys[1:])
    if rt_input.uniform_row_length is None:
        raise ValueError("Cannot index into an inner ragged dimension.")
    return _index_uniform_column(rt_input, column_key, keys[1:])


def _slice_columns(rt_input, column_key: slice, rest: list):
    for v in (column_key.start, column_key.stop):
        if not isinstance(v, (Tensor, int, type(None))):
            raise TypeError("slice offsets must be integers or None")
    starts, limits = rt_input.row_splits[:-1], rt_input.row_splits[1:]
    step = 1 if column_key.step is None else column_key.step
    lower = _if_ge_zero(step, lambda: starts, lambda: starts - 1)
    upper = _if_ge_zero(step, lambda: limits, lambda: limits - 1)
    if column_key.start is None:
        inner_starts = _if_ge_zero(step, lambda: starts, lambda: limits - 1)
    else:
        offset = math_ops.cast(column_key.start, starts.dtype)
        inner_starts = _if_ge_zero(column_key.start, lambda: math_ops.minimum(starts + offset, upper),
                                   lambda: math_ops.maximum(limits + offset, lower))
    if column_key.stop is None:
        inner_limits = _if_ge_zero(step, lambda: limits, lambda: starts - 1)
    else:
        offset = math_ops.cast(column_key.stop, starts.dtype)
        inner_limits = _if_ge_zero(column_key.stop, lambda: math_ops.minimum(starts + offset, upper),
                                   lambda: math_ops.maximum(limits + offset, lower))
    inner = _from_value_ranges(inner_starts, inner_limits, column_key.step, rt_input.values)
    if rt_input.uniform_row_length is not None:
        length = _slice_length(rt_input.uniform_row_length, column_key)
        inner = _rt().from_uniform_row_length(inner.values, length, rt_input.nrows())
    return inner.with_values(_getitem_inner(inner.values, rest))


def _index_uniform_column(rt_input, column_key, rest: list):
    from dflow.ops.debugging import check_ops

    length = rt_input.uniform_row_length
    column_key = math_ops.cast(column_key, length.dtype)
    msg = "Index out of bounds when indexing into a ragged tensor"
    checks = [check_ops.assert_greater_equal(column_key, -length, message=msg),
              check_ops.assert_less(column_key, length, message=msg)]
    with control_dependencies(checks):
        offset = select_ops.where(math_ops.greater_equal(column_key, 0), column_key, length + column_key)
        nvals = _nrows_of_values(rt_input.values, length.dtype)
        picked = creation_ops.range(offset, nvals, length)
        return _getitem_inner(gather_rows(rt_input.values, picked), rest)


def _nrows_of_values(values, dtype):
    if isinstance(values, _rt()):
        return values.nrows(out_type=dtype)
    return array_ops.shape(values, out_type=dtype)[0]


def _slice_length(value_length, slice_key: slice):
    zeros = array_ops.zeros(value_length, dtype=dtypes.bool)
    return array_ops.size(zeros[slice_key], out_type=value_length.dtype)


def _expand_ellipsis(keys: list, num_remaining_dims) -> list:
    if num_remaining_dims is None:
        raise ValueError("Ellipsis not supported for unknown shape RaggedTensors")
    num_indices = sum(1 for idx in keys if idx is not None)
    if num_indices > num_remaining_dims + 1:
        raise IndexError("Too many indices for RaggedTensor")
    if num_indices == num_remaining_dims + 1:
        return keys[1:]
    return [slice(None, None, None)] + keys


def _from_value_ranges(starts, limits, step, values):
    """The RaggedTensor whose row ``i`` is ``values[starts[i]:limits[i]:step]`` (TF's value-range builder)."""
    from dflow.ops.ragged.ragged_ops import ragged_range

    step = convert_to_tensor(1 if step is None else step, name="step")
    if not step.dtype.is_integer:
        raise TypeError("slice strides must be integers or None")
    step = math_ops.cast(step, starts.dtype)
    value_indices = ragged_range(starts, limits, step, row_splits_dtype=starts.dtype)
    return value_indices.with_values(gather_rows(values, value_indices.values))


def gather_rows(values, indices: Tensor):
    """``values``' rows at ``indices`` (a 1-D Tensor); for a RaggedTensor, a RaggedTensor of those rows."""
    if not isinstance(values, _rt()):
        return gather_ops.gather(values, indices)
    from dflow.ops.ragged.ragged_ops import ragged_range

    indices = math_ops.cast(indices, values.row_splits.dtype)
    starts = gather_ops.gather(values.row_splits[:-1], indices)
    limits = gather_ops.gather(values.row_splits[1:], indices)
    ranges = ragged_range(starts, limits, row_splits_dtype=values.row_splits.dtype)
    return _rt().from_row_splits(gather_rows(values.values, ranges.values), ranges.row_splits, validate=False)
