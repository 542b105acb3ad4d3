"""The row partitions of a ``RaggedTensor``: TF's ``RowPartition`` factories (splits from row
splits, lengths, value row ids or a uniform length), each validated on request, and the check that
a ``SparseTensor`` is right-ragged. ``RaggedTensor.from_*`` build on them."""

from __future__ import annotations

import numpy as np

from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import constant_value
from dflow.ops.array import array_ops, creation_ops
from dflow.ops.control_flow.control_flow_ops import with_dependencies
from dflow.ops.math import counting_ops, math_ops, reduction_ops

SPLITS_DTYPES = (dtypes.int32, dtypes.int64)  # the dtypes of a row partition


def convert_partition(partition, name: str, dtype=None, dtype_hint=None) -> Tensor:
    """A row-partition argument as an int32/int64 Tensor (int64 unless told or already int32), as TF's."""
    if dtype_hint is None:
        dtype_hint = dtypes.int64
    if isinstance(partition, np.ndarray) and partition.dtype == np.int32 and dtype is None:
        partition = convert_to_tensor(partition, name=name)
    elif isinstance(partition, Tensor):
        partition = convert_to_tensor(partition, dtype=dtype, name=name)
    else:
        try:
            partition = convert_to_tensor(partition, dtype=dtype, preferred_dtype=dtype_hint, name=name)
        except (TypeError, ValueError):
            partition = convert_to_tensor(partition, dtype=dtype, name=name)
    if partition.dtype not in SPLITS_DTYPES:
        raise ValueError(f"{name} must have dtype int32 or int64")
    return partition


def _assert_right_ragged(indices: Tensor):
    """TF's check that each row's column indices run 0, 1, 2, ... (a row-major, right-ragged SparseTensor)."""
    from dflow.ops.array import select_ops
    from dflow.ops.debugging.logging_ops import Assert

    prefix, suffix = indices[:, :-1], indices[:, -1]
    prefix_changed = reduction_ops.reduce_any(math_ops.not_equal(prefix[1:], prefix[:-1]), axis=1)
    index_ok = select_ops.where(prefix_changed, math_ops.equal(suffix[1:], 0),
                                math_ops.equal(suffix[1:], suffix[:-1] + 1))
    ok = math_ops.logical_and(reduction_ops.reduce_all(math_ops.equal(suffix[:1], 0)),
                              reduction_ops.reduce_all(index_ok))
    return Assert(ok, ["SparseTensor is not right-ragged", "SparseTensor.indices =", indices])


def _check_validate(validate) -> None:
    if not isinstance(validate, bool):
        raise TypeError(f"Argument `validate` must have type bool. Received {validate}.")


def _lengths_to_splits(lengths: Tensor) -> Tensor:
    return array_ops.concat([constant([0], lengths.dtype), reduction_ops.cumsum(lengths)], axis=0)


def _splits_from_row_splits(row_splits, validate: bool, dtype_hint) -> Tensor:
    with name_scope(None, "RowPartitionFromRowSplits", [row_splits]):
        splits = convert_partition(row_splits, "row_splits", dtype_hint=dtype_hint)
        splits.shape.with_rank(1)
        if splits.shape[0] is not None and getattr(splits.shape[0], "value", splits.shape[0]) == 0:
            raise ValueError("row_splits may not be empty")
        if validate:
            from dflow.ops.debugging import check_ops

            msg = "Arguments to from_row_splits do not form a valid RaggedTensor:"
            checks = [check_ops.assert_equal(splits[0], constant(0, splits.dtype), message=msg + "zero"),
                      check_ops.assert_non_negative(splits[1:] - splits[:-1], message=msg + "monotonic")]
            splits = with_dependencies(checks, splits)
        return splits


def _splits_from_value_rowids(value_rowids, nrows, validate: bool, dtype_hint) -> Tensor:
    with name_scope(None, "RowPartitionFromValueRowIds", [value_rowids, nrows]):
        rowids = convert_partition(value_rowids, "value_rowids", dtype_hint=dtype_hint)
        rowids.shape.with_rank(1)
        if nrows is None:
            known = constant_value(rowids)
            if known is None:
                nrows = array_ops.concat([rowids[-1:], constant([-1], rowids.dtype)], axis=0)[0] + 1
            else:
                nrows = convert_to_tensor(int(known[-1]) + 1 if known.size else 0, rowids.dtype, name="nrows")
        else:
            nrows = convert_to_tensor(nrows, rowids.dtype, name="nrows")
            known_nrows, known_ids = constant_value(nrows), constant_value(rowids)
            if known_nrows is not None:
                if known_nrows < 0:
                    raise ValueError(f"Expected nrows >= 0; got {int(known_nrows)}")
                if known_ids is not None and known_ids.size and not known_nrows >= known_ids[-1] + 1:
                    raise ValueError(f"Expected nrows >= value_rowids[-1] + 1; got nrows={int(known_nrows)}, "
                                     f"value_rowids[-1]={int(known_ids[-1])}")
        nrows.shape.with_rank(0)
        if validate:
            from dflow.ops.debugging import check_ops

            msg = "Arguments to from_value_rowids do not form a valid RowPartition"
            checks = [check_ops.assert_non_negative(rowids[:1], message=msg),
                      check_ops.assert_non_negative(rowids[1:] - rowids[:-1], message=msg),
                      check_ops.assert_less(rowids[-1:], nrows, message=msg)]
            rowids = with_dependencies(checks, rowids)
        nrows32 = math_ops.cast(nrows, dtypes.int32)
        lengths = counting_ops.bincount(math_ops.cast(rowids, dtypes.int32), minlength=nrows32, maxlength=nrows32,
                                        dtype=rowids.dtype)
        splits = _lengths_to_splits(lengths)
        known_nrows = constant_value(nrows)
        if known_nrows is not None:
            splits.set_shape([int(known_nrows) + 1])
        return splits, rowids


def _uniform_splits(length: Tensor, nvals: Tensor, nrows, validate: bool) -> Tensor:
    known_length = constant_value(length)
    if nrows is None:
        if known_length is None:
            nrows = nvals // math_ops.maximum(length, constant(1, length.dtype))
        elif known_length == 0:
            nrows = constant(0, length.dtype)
        else:
            nrows = nvals // int(known_length)
    else:
        nrows = convert_partition(nrows, "nrows", dtype=length.dtype)
    known_nrows = constant_value(nrows)
    if known_nrows is not None and known_length is not None:
        splits = constant([i * int(known_length) for i in range(int(known_nrows) + 1)], length.dtype)
    else:
        splits = creation_ops.range(nrows + 1, dtype=length.dtype) * length
    if known_length is not None and known_length < 0:
        raise ValueError("uniform_row_length must be >= 0.")
    if validate:
        from dflow.ops.debugging import check_ops

        check = check_ops.assert_equal(nrows * length, nvals,
                                       data=["uniform_row_length", length, "times nrows", nrows,
                                             "must equal nvals", nvals])
        splits = with_dependencies([check], splits)
    return splits
