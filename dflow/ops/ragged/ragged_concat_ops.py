"""``tf.ragged.stack``, and ``tf.concat`` / ``tf.stack`` of RaggedTensors (TF's ``ragged_concat_ops``).

Both join ragged or dense tensors of one rank along any axis: along axis 0
the rows (and the row splits of every ragged dimension) are joined; along
axis 1 each row of the result joins the same row of every input (a ragged
gather of the rows joined along axis 0, then adjacent rows merged or grouped);
deeper axes recurse into the values, the inputs' row splits checked to match
at run time. Dense inputs become RaggedTensors first, so the result is ragged,
except when every input is dense and the axis is the last one (then it is
``tf.concat``'s / ``tf.stack``'s Tensor).
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.graph import name_scope
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.array import array_ops, creation_ops
from dflow.ops.control_flow.control_flow_ops import control_dependencies
from dflow.ops.debugging import check_ops
from dflow.ops.math import reduction_ops
from dflow.ops.ragged.ragged_ops import assert_splits_match, convert_to_tensor_or_ragged_tensor
from dflow.ops.ragged.ragged_tensor import RaggedTensor


def concat(values, axis, name=None):
    """Concatenates ragged (or dense) tensors of one rank along ``axis`` (``tf.concat`` for RaggedTensors).

    Unlike ``tf.concat``, the inputs may differ in any dimension size, and
    ``axis`` must be a Python int; the result has ragged rank
    ``max(axis, max(rt.ragged_rank for rt in values))``.
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    with name_scope(name, "RaggedConcat", values):
        return _ragged_stack_concat_helper(values, axis, stack_values=False)


@tf_export("ragged.stack")
def stack(values, axis=0, name=None):
    """Stacks rank-R ragged (or dense) tensors into one rank-(R+1) RaggedTensor along ``axis``.

    Unlike ``tf.stack``, the inputs may differ in any dimension size, and
    ``axis`` must be a Python int. Stacking scalars gives a 1-D Tensor.
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    with name_scope(name, "RaggedConcat", values):
        return _ragged_stack_concat_helper(values, axis, stack_values=True)


def _match_row_splits_dtypes(values):
    """TF's ``match_row_splits_dtypes``: one row-splits dtype for all (int64 if none is ragged)."""
    from dflow.ops.ragged.ragged_ops import _match_splits_dtypes

    return _match_splits_dtypes(*values)


def get_positive_axis(axis, ndims, axis_name: str = "axis", ndims_name: str = "ndims") -> int:
    """``axis`` in ``[0, ndims)``, as TF's ``array_ops.get_positive_axis`` (same errors)."""
    if not isinstance(axis, int):
        raise TypeError(f"{axis_name} must be an int; got {type(axis).__name__}")
    if ndims is not None:
        if 0 <= axis < ndims:
            return axis
        if -ndims <= axis < 0:
            return axis + ndims
        raise ValueError(f"{axis_name}={axis} out of bounds: expected {-ndims}<={axis_name}<{ndims}")
    if axis < 0:
        raise ValueError(f"{axis_name}={axis} may only be negative if {ndims_name} is statically known.")
    return axis


def _ragged_stack_concat_helper(rt_inputs, axis, stack_values: bool):
    """TF's helper: concatenates (or stacks) ``rt_inputs`` along ``axis``."""
    if not rt_inputs:
        raise ValueError("rt_inputs may not be empty.")
    rt_inputs = [convert_to_tensor_or_ragged_tensor(rt, name="rt_input") for rt in rt_inputs]
    row_splits_dtype = _match_row_splits_dtypes(rt_inputs)
    if len(rt_inputs) == 1 and not stack_values:
        return rt_inputs[0]
    ndims = None
    for rt in rt_inputs:
        if ndims is None:
            ndims = rt.shape.ndims
        else:
            rt.shape.with_rank(ndims)
    out_ndims = ndims if (ndims is None or not stack_values) else ndims + 1
    axis = get_positive_axis(axis, out_ndims)
    if stack_values and ndims == 1 and axis == 0:
        return RaggedTensor.from_row_lengths(array_ops.concat(rt_inputs, axis=0),
                                             array_ops.concat([array_ops.shape(r) for r in rt_inputs], axis=0))
    if not any(isinstance(rt, RaggedTensor) for rt in rt_inputs):
        if ndims is not None and (axis == out_ndims - 1 or axis == ndims - 1):
            if stack_values:
                return array_ops.stack(rt_inputs, axis)
            return array_ops.concat(rt_inputs, axis)
    rt_inputs = [rt if isinstance(rt, RaggedTensor) else
                 RaggedTensor.from_tensor(rt, ragged_rank=1, row_splits_dtype=row_splits_dtype) for rt in rt_inputs]
    ragged_rank = max(max(rt.ragged_rank for rt in rt_inputs), 1)
    rt_inputs = [_increase_ragged_rank_to(rt, ragged_rank, row_splits_dtype) for rt in rt_inputs]
    if axis == 0:
        return _ragged_stack_concat_axis_0(rt_inputs, stack_values)
    if axis == 1:
        return _ragged_stack_concat_axis_1(rt_inputs, stack_values)
    values = [rt.values for rt in rt_inputs]
    splits = [[rt.row_splits] for rt in rt_inputs]
    with control_dependencies(assert_splits_match(splits)):
        return RaggedTensor.from_row_splits(_ragged_stack_concat_helper(values, axis - 1, stack_values),
                                            splits[0][0], validate=False)


def _ragged_stack_concat_axis_0(rt_inputs: list, stack_values: bool) -> RaggedTensor:
    """The rows of every input, in order (stacking adds a dimension grouping each input's rows)."""
    flat_values = array_ops.concat([rt.flat_values for rt in rt_inputs], axis=0)
    nested_splits = [rt.nested_row_splits for rt in rt_inputs]
    splits = [_concat_ragged_splits([ns[dim] for ns in nested_splits]) for dim in range(rt_inputs[0].ragged_rank)]
    if stack_values:
        stack_lengths = array_ops.stack([rt.nrows() for rt in rt_inputs])
        splits.insert(0, array_ops.concat([array_ops.zeros([1], stack_lengths.dtype),
                                           reduction_ops.cumsum(stack_lengths)], axis=0))
    return RaggedTensor.from_nested_row_splits(flat_values, splits, validate=False)


def _ragged_stack_concat_axis_1(rt_inputs: list, stack_values: bool) -> RaggedTensor:
    """Row ``i`` of the result joins row ``i`` of every input (all must have as many rows)."""
    from dflow.ops.ragged.ragged_getitem import gather_rows

    num_inputs = len(rt_inputs)
    rt_nrows = rt_inputs[0].nrows()
    nrows_checks = [check_ops.assert_equal(rt_nrows, rt.nrows(),
                                           message=f"Input tensors at index 0 (=x) and {index + 1} (=y) have "
                                                   f"incompatible shapes.")
                    for index, rt in enumerate(rt_inputs[1:])]
    with control_dependencies(nrows_checks):
        concatenated = _ragged_stack_concat_axis_0(rt_inputs, stack_values=False)
        row_indices = creation_ops.range(rt_nrows * num_inputs)
        row_index_matrix = array_ops.reshape(row_indices, [num_inputs, -1])
        row_permutation = array_ops.reshape(array_ops.transpose(row_index_matrix), [-1])
        with name_scope(None, "RaggedGather", [concatenated, row_permutation]):
            permuted = gather_rows(concatenated, row_permutation)
        if stack_values:
            stack_splits = creation_ops.range(0, rt_nrows * num_inputs + 1, num_inputs)
            _copy_row_shape(rt_inputs, stack_splits)
            return RaggedTensor.from_row_splits(permuted, stack_splits, validate=False)
        concat_splits = permuted.row_splits[::num_inputs]
        _copy_row_shape(rt_inputs, concat_splits)
        return RaggedTensor.from_row_splits(permuted.values, concat_splits, validate=False)


def _copy_row_shape(rt_inputs: list, splits) -> None:
    """Gives ``splits`` the static length ``nrows + 1`` of an input whose row count is known."""
    for rt in rt_inputs:
        nrows = rt.shape[0].value if rt.shape.ndims else None
        if nrows is not None:
            splits.set_shape(TensorShape([nrows + 1]))


def _increase_ragged_rank_to(rt_input, ragged_rank: int, row_splits_dtype):
    """``rt_input`` with uniform dimensions made ragged until it has ``ragged_rank`` ragged dimensions."""
    if ragged_rank > 0:
        if not isinstance(rt_input, RaggedTensor):
            rt_input = RaggedTensor.from_tensor(rt_input, row_splits_dtype=row_splits_dtype)
        if rt_input.ragged_rank < ragged_rank:
            rt_input = rt_input.with_values(_increase_ragged_rank_to(rt_input.values, ragged_rank - 1,
                                                                     row_splits_dtype))
    return rt_input


def _concat_ragged_splits(splits_list: list):
    """One row-splits vector for the rows of each of ``splits_list``, one after the other."""
    pieces = [splits_list[0]]
    splits_offset = splits_list[0][-1]
    for splits in splits_list[1:]:
        pieces.append(splits[1:] + splits_offset)
        splits_offset = splits_offset + splits[-1]
    return array_ops.concat(pieces, axis=0)

