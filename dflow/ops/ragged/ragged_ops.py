"""The ``tf.ragged`` functions: ``constant``, ``constant_value``, ``placeholder``, ``range``,
``row_splits_to_segment_ids``, ``segment_ids_to_row_splits``, ``map_flat_values``,
``boolean_mask``, ``stack_dynamic_partitions``, ``cross`` and ``cross_hashed``.

Each follows TF1's definition in ``tensorflow/python/ops/ragged`` (same name
scopes, same dtype rules, same errors), built from dflow ops.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import SparseTensor
from dflow.framework.constant_op import constant as dense_constant
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.constant_op import placeholder as dense_placeholder
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.array import array_ops, gather_ops
from dflow.ops.control_flow.control_flow_ops import control_dependencies
from dflow.ops.math import counting_ops, math_ops, reduction_ops, sort_ops
from dflow.ops.ragged import ragged_kernels
from dflow.ops.ragged.ragged_tensor import RaggedTensor, convert_partition, is_ragged
from dflow.ops.ragged.ragged_tensor_value import RaggedTensorValue
from dflow.ops.ragged.row_partition import _lengths_to_splits


def convert_to_tensor_or_ragged_tensor(value, dtype=None, preferred_dtype=None, name=None):
    """``value`` as a RaggedTensor (from a RaggedTensorValue or as is) or else as a Tensor."""
    if isinstance(value, RaggedTensor):
        if dtype is not None and dtypes.as_dtype(dtype) is not value.dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for RaggedTensor "
                             f"with dtype {value.dtype.name}: {value!r}")
        return value
    if isinstance(value, RaggedTensorValue):
        with name_scope(name, "ConvertToTensorOrRaggedTensor", []):
            flat = convert_to_tensor(value.flat_values, dtype=dtype, name="flat_values")
            return RaggedTensor.from_nested_row_splits(flat, [dense_constant(s) for s in value.nested_row_splits],
                                                       validate=False)
    return convert_to_tensor(value, dtype=dtype, preferred_dtype=preferred_dtype, name=name)


# -- constant / constant_value / placeholder ------------------------------------------


def _find_scalar_and_max_depth(pylist):
    if isinstance(pylist, (list, tuple)) or np.ndim(pylist) != 0:
        scalar_depth, max_depth = None, 1
        for child in pylist:
            child_scalar, child_max = _find_scalar_and_max_depth(child)
            if child_scalar is not None:
                if scalar_depth is not None and scalar_depth != child_scalar + 1:
                    raise ValueError("all scalar values must have the same nesting depth")
                scalar_depth = child_scalar + 1
            max_depth = max(max_depth, child_max + 1)
        return scalar_depth, max_depth
    return 0, 0


def _default_inner_shape(pylist, ragged_rank: int) -> tuple:
    def inner_shape(item):
        if not isinstance(item, (list, tuple)) and np.ndim(item) == 0:
            return ()
        if len(item) > 0:
            return (len(item),) + inner_shape(item[0])
        return (0,)

    def check(item, shape):
        nested = isinstance(item, (list, tuple)) or np.ndim(item) != 0
        if nested != bool(shape):
            raise ValueError("inner values have inconsistent shape")
        if nested:
            if shape[0] != len(item):
                raise ValueError("inner values have inconsistent shape")
            for child in item:
                check(child, shape[1:])

    flat = pylist
    for dim in range(ragged_rank):
        if not all(isinstance(v, (list, tuple)) or np.ndim(v) != 0 for v in flat):
            raise ValueError(f"pylist has scalar values depth {dim + 1}, but ragged_rank={ragged_rank} requires "
                             f"scalar value depth greater than {ragged_rank}")
        flat = sum((list(v) for v in flat), [])
    shape = inner_shape(flat)
    check(flat, shape)
    return shape[1:]


def _constant_value(ragged_factory, inner_factory, pylist, dtype, ragged_rank, inner_shape):
    """TF's ``_constant_value``: the nested row splits of ``pylist``, then the factories."""
    if is_ragged(pylist):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    if not isinstance(pylist, (list, tuple)) and np.ndim(pylist) == 0:
        if ragged_rank is not None and ragged_rank != 0:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank}")
        if inner_shape is not None and inner_shape:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with dim(inner_shape)={len(inner_shape)}")
        return inner_factory(pylist, dtype, ())
    if ragged_rank is not None and ragged_rank < 0:
        raise ValueError(f"Invalid ragged_rank={ragged_rank!r}: must be nonnegative")
    scalar_depth, max_depth = _find_scalar_and_max_depth(pylist)
    if scalar_depth is not None:
        if max_depth > scalar_depth:
            raise ValueError(f"Invalid pylist={pylist!r}: empty list nesting is greater than scalar value nesting")
        if ragged_rank is not None and max_depth < ragged_rank:
            raise ValueError(f"Invalid pylist={pylist}, max depth smaller than ragged_rank={ragged_rank}")
    if inner_shape is not None and ragged_rank is not None:
        expected = ragged_rank + len(inner_shape) + 1
        if (scalar_depth is not None and expected != scalar_depth) or (scalar_depth is None and expected < max_depth):
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank} and "
                             f"dim(inner_shape)={len(inner_shape)}")
    if ragged_rank == 0 or (ragged_rank is None and (max_depth < 2 or (
            inner_shape is not None and max_depth - len(inner_shape) < 2))):
        return inner_factory(pylist, dtype, inner_shape)
    if inner_shape is None:
        inner_shape = () if ragged_rank is None else _default_inner_shape(pylist, ragged_rank)
    inner_shape = tuple(inner_shape)
    if ragged_rank is None:
        ragged_rank = max(1, max_depth - 1) if scalar_depth is None else max(1, scalar_depth - 1 - len(inner_shape))
    nested_splits = []
    values = pylist
    for dim in range(ragged_rank):
        nested_splits.append([0])
        flat = []
        for row in values:
            nested_splits[dim].append(nested_splits[dim][-1] + len(row))
            flat.extend(row)
        values = flat
    values = inner_factory(values, dtype, (len(values),) + inner_shape, "values")
    for splits in reversed(nested_splits):
        values = ragged_factory(values, splits)
    return values


@tf_export("ragged.constant")
def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=dtypes.int64):
    """A constant RaggedTensor from a nested Python list (rows of different lengths)."""
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)

    def ragged_factory(values, row_splits):
        return RaggedTensor.from_row_splits(values, dense_constant(row_splits, dtype=row_splits_dtype),
                                            validate=False)

    def inner_factory(pylist, dtype, shape, name=None):
        return dense_constant(pylist, dtype=dtype, shape=shape, name=name or "Const")

    with name_scope(name, "RaggedConstant"):
        return _constant_value(ragged_factory, inner_factory, pylist, dtype, ragged_rank, inner_shape)


@tf_export("ragged.constant_value")
def constant_value(pylist, dtype=None, ragged_rank=None, inner_shape=None, row_splits_dtype="int64"):
    """A ``tf.ragged.RaggedTensorValue`` (numpy arrays) from a nested Python list."""
    if dtype is not None and isinstance(dtype, dtypes.DType):
        dtype = dtype.as_numpy_dtype
    row_splits_dtype = np.dtype(dtypes.as_dtype(row_splits_dtype).as_numpy_dtype)

    def ragged_factory(values, row_splits):
        return RaggedTensorValue(values, np.array(row_splits, dtype=row_splits_dtype))

    def inner_factory(pylist, dtype, shape, name=None):
        if dtype is object or dtype is None:
            return np.reshape(np.array(pylist, dtype=dtype), shape)
        return np.reshape(np.array(pylist, dtype=dtype), shape)

    return _constant_value(ragged_factory, inner_factory, pylist, dtype, ragged_rank, inner_shape)


@tf_export("ragged.placeholder")
def placeholder(dtype, ragged_rank, value_shape=None, name=None):
    """A RaggedTensor of placeholders (``row_splits_i``, ``flat_values``), fed with a RaggedTensorValue."""
    if ragged_rank == 0:
        return dense_placeholder(dtype, value_shape, name)
    with name_scope(name, "RaggedPlaceholder", []):
        flat_shape = TensorShape([None]).concatenate(TensorShape(value_shape))
        result = dense_placeholder(dtype, flat_shape, "flat_values")
        for i in reversed(range(ragged_rank)):
            splits = dense_placeholder(dtypes.int64, [None], f"row_splits_{i}")
            result = RaggedTensor.from_row_splits(result, splits, validate=False)
        return result


# -- range and segment ids -----------------------------------------------------------


def _infer_matching_dtype(tensors, dtype_hierarchy):
    inferred = max((dtype_hierarchy.index(t.dtype) for t in tensors), default=0)
    return [math_ops.cast(t, dtype_hierarchy[inferred]) for t in tensors]


@tf_export("ragged.range")
def ragged_range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=dtypes.int64):
    """A RaggedTensor whose row ``i`` is ``range(starts[i], limits[i], deltas[i])`` (scalars broadcast)."""
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
    if limits is None:
        starts, limits = 0, starts
    with name_scope(name, "RaggedRange", [starts, limits, deltas]) as scope:
        starts = convert_to_tensor(starts, dtype=dtype, name="starts")
        limits = convert_to_tensor(limits, dtype=dtype, name="limits")
        deltas = convert_to_tensor(deltas, dtype=dtype, name="deltas")
        if dtype is None:
            hierarchy = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
            for t in (starts, limits, deltas):
                if t.dtype not in hierarchy:
                    raise TypeError(f"Value for attr 'T' of {t.dtype.name} is not in the list of allowed values: "
                                    f"bfloat16, float, double, int32, int64")
            starts, limits, deltas = _infer_matching_dtype([starts, limits, deltas], hierarchy)
        for t in (starts, limits, deltas):
            if t.shape.ndims is not None and t.shape.ndims > 1:
                raise ValueError(f"Shape must be at most rank 1 but is rank {t.shape.ndims}")
        splits, values = ragged_kernels.ragged_range_op(starts, limits, deltas, row_splits_dtype, name=scope)
        return RaggedTensor.from_row_splits(values, splits, validate=False)


@tf_export("ragged.row_splits_to_segment_ids")
def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row index of each value: ``[0, 2, 2, 5]`` gives ``[0, 0, 2, 2, 2]``."""
    from dflow.ops.array.array_extras import repeat
    from dflow.ops.array.creation_ops import range as dense_range

    with name_scope(name, "RaggedSplitsToSegmentIds", [splits]):
        splits = convert_to_tensor(splits, name="splits", preferred_dtype=dtypes.int64)
        if splits.dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError("splits must have dtype int32 or int64")
        splits.shape.with_rank(1)
        if splits.shape[0] is not None and getattr(splits.shape[0], "value", splits.shape[0]) == 0:
            raise ValueError("Invalid row_splits: []")
        out_type = splits.dtype if out_type is None else dtypes.as_dtype(out_type)
        if out_type is not splits.dtype:
            splits = math_ops.cast(splits, out_type)
        row_lengths = splits[1:] - splits[:-1]
        nrows = array_ops.shape(splits, out_type=splits.dtype)[-1] - 1
        indices = dense_range(nrows)
        return repeat(indices, repeats=row_lengths, axis=0)


@tf_export("ragged.segment_ids_to_row_splits")
def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """The row splits of sorted segment ids: ``[0, 0, 2, 2, 2]`` gives ``[0, 2, 2, 5]``."""
    if out_type is None:
        out_type = segment_ids.dtype if isinstance(segment_ids, Tensor) else dtypes.int64
    out_type = dtypes.as_dtype(out_type)
    if out_type not in (dtypes.int32, dtypes.int64):
        raise ValueError("out_type must be int32 or int64")
    with name_scope(name, "SegmentIdsToRaggedSplits", [segment_ids]):
        segment_ids = convert_partition(segment_ids, "segment_ids", dtype_hint=dtypes.int64)
        if num_segments is not None:
            num_segments = math_ops.cast(convert_to_tensor(num_segments, name="num_segments"), dtypes.int32)
            num_segments.shape.with_rank(0)
        row_lengths = counting_ops.bincount(math_ops.cast(segment_ids, dtypes.int32), minlength=num_segments,
                                            maxlength=num_segments, dtype=out_type)
        return array_ops.concat([dense_constant([0], out_type), reduction_ops.cumsum(row_lengths)], axis=0)


# -- map_flat_values ------------------------------------------------------------------


def assert_splits_match(nested_splits_lists) -> list:
    """Assertions that every list of nested row splits equals the first (TF's message)."""
    from dflow.ops.debugging import check_ops

    error_msg = "Inputs must have identical ragged splits"
    for splits_list in nested_splits_lists:
        if len(splits_list) != len(nested_splits_lists[0]):
            raise ValueError(error_msg)
    return [check_ops.assert_equal(s1, s2, message=error_msg)
            for splits_list in nested_splits_lists[1:]
            for s1, s2 in zip(nested_splits_lists[0], splits_list) if s1 is not s2]


def _replace_ragged(value, partitions: list, nrows: list):
    if isinstance(value, RaggedTensor):
        partitions.append(value)
        n = value.flat_values.shape[0] if value.flat_values.shape.ndims else None
        n = getattr(n, "value", n)
        if n is not None:
            nrows.append(n)
        return value.flat_values
    if isinstance(value, RaggedTensorValue):
        return _replace_ragged(convert_to_tensor_or_ragged_tensor(value), partitions, nrows)
    if isinstance(value, (list, tuple)):
        items = [_replace_ragged(v, partitions, nrows) for v in value]
        return type(value)(items) if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: _replace_ragged(v, partitions, nrows) for k, v in value.items()}
    return value


@tf_export("ragged.map_flat_values")
def map_flat_values(op, *args, **kwargs):
    """Applies ``op`` to the ``flat_values`` of the RaggedTensor arguments, keeping their row partitions."""
    partitions, nrows = [], []
    inner_args = _replace_ragged(list(args), partitions, nrows)
    inner_kwargs = _replace_ragged(dict(kwargs), partitions, nrows)
    if not partitions:
        return op(*args, **kwargs)
    if len(set(nrows)) > 1:
        raise ValueError(f"Input RaggedTensors' flat_values must all have the same outer-dimension size.  Got "
                         f"sizes: {set(nrows)}")
    if len({rt.row_splits.dtype for rt in partitions}) > 1:
        raise ValueError("Input RaggedTensors have mismatched row partition dtypes; use "
                         "RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes.")
    with control_dependencies(assert_splits_match([rt.nested_row_splits for rt in partitions])):
        output = op(*inner_args, **inner_kwargs)
        if nrows and isinstance(output, Tensor) and not output.shape[:1].is_compatible_with([nrows[0]]):
            raise ValueError(f"tf.ragged.map_flat_values requires that the output of `op` have the outermost "
                             f"dimension size as the input RaggedTensors' flat_values.  Expected {nrows[0]} but "
                             f"got {output.shape[:1]}.")
        return partitions[0].with_flat_values(output)


# -- boolean_mask -----------------------------------------------------------------------


def _match_splits_dtypes(*values):
    kinds = {v.row_splits.dtype for v in values if isinstance(v, RaggedTensor)}
    if len(kinds) > 1:
        raise ValueError("Input RaggedTensors have mismatched row_splits dtypes; use "
                         "RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes.")
    return kinds.pop() if kinds else dtypes.int64


@tf_export("ragged.boolean_mask")
def boolean_mask(data, mask, name=None):
    """The values of ``data`` where ``mask`` is true, keeping the rows of every dimension of ``mask`` but the last."""
    with name_scope(name, "RaggedMask", [data, mask]):
        data = convert_to_tensor_or_ragged_tensor(data, name="data")
        mask = convert_to_tensor_or_ragged_tensor(mask, dtypes.bool, name="mask")
        splits_dtype = _match_splits_dtypes(data, mask)
        if mask.shape.ndims is None:
            raise ValueError("mask.shape.ndims must be known statically.")
        if mask.shape.ndims == 0:
            raise ValueError("mask cannot be scalar.")
        if isinstance(mask, RaggedTensor):
            return _mask_with_ragged_mask(data, mask, splits_dtype)
        if isinstance(data, RaggedTensor) and mask.shape.ndims == 1:
            masked_lengths = gather_ops.boolean_mask(data.row_lengths(), mask)
            segment_mask = gather_ops.gather(mask, row_splits_to_segment_ids(data.row_splits))
            masked_values = boolean_mask(data.values, segment_mask)
            return RaggedTensor.from_row_splits(masked_values, _lengths_to_splits(masked_lengths), validate=False)
        if isinstance(data, RaggedTensor):
            mask = RaggedTensor.from_tensor(mask, ragged_rank=min(data.ragged_rank, mask.shape.ndims - 1),
                                            row_splits_dtype=data.row_splits.dtype)
            return boolean_mask(data, mask)
        masked_values = gather_ops.boolean_mask(data, mask)
        if mask.shape.ndims >= 2:
            from dflow.ops.array.creation_ops import range as dense_range

            lengths = reduction_ops.count_nonzero(mask, axis=-1, dtype=splits_dtype)
            masked_values = RaggedTensor.from_row_lengths(masked_values, array_ops.reshape(lengths, [-1]),
                                                          validate=False)
            if mask.shape.ndims > 2:
                mask_shape = array_ops.shape(mask, out_type=splits_dtype)
                split_size = reduction_ops.cumprod(mask_shape) + 1
                for dim in range(mask.shape.ndims - 3, -1, -1):
                    masked_splits = dense_range(split_size[dim]) * mask_shape[dim + 1]
                    masked_values = RaggedTensor.from_row_splits(masked_values, masked_splits, validate=False)
        return masked_values


def _mask_with_ragged_mask(data, mask, splits_dtype):
    if not isinstance(data, RaggedTensor):
        data = RaggedTensor.from_tensor(data, ragged_rank=mask.ragged_rank, row_splits_dtype=mask.row_splits.dtype)
    checks = assert_splits_match([mask.nested_row_splits, data.nested_row_splits[:mask.ragged_rank]])
    with control_dependencies(checks):
        splits = []
        while isinstance(mask, RaggedTensor):
            if mask.shape.ndims > 2:
                splits.append(mask.row_splits)
            else:
                int_mask = map_flat_values(math_ops.cast, mask, dtype=splits_dtype)
                from dflow.ops.ragged.ragged_math import reduce_sum

                splits.append(_lengths_to_splits(reduce_sum(int_mask, axis=1)))
            mask, data = mask.values, data.values
        masked_values = boolean_mask(data, mask)
        return RaggedTensor.from_nested_row_splits(masked_values, splits, validate=False)


# -- stack_dynamic_partitions --------------------------------------------------


@tf_export("ragged.stack_dynamic_partitions")
def stack_dynamic_partitions(data, partitions, num_partitions, name=None):
    """A RaggedTensor whose row ``i`` holds the items of ``data`` with ``partitions == i``, in order."""
    from dflow.ops.debugging import check_ops
    from dflow.ops.ragged.ragged_getitem import gather_rows

    with name_scope(name, "SegmentStack", [data, partitions, num_partitions]):
        data = convert_to_tensor_or_ragged_tensor(data, name="data")
        splits_dtype = data.row_splits.dtype if isinstance(data, RaggedTensor) else None
        partitions = convert_to_tensor_or_ragged_tensor(partitions, name="partitions", preferred_dtype=splits_dtype)
        num_partitions = convert_to_tensor(num_partitions, name="num_partitions", preferred_dtype=partitions.dtype)
        if splits_dtype is not None:
            partitions = _cast_partitions(partitions, splits_dtype)
        num_partitions = math_ops.cast(num_partitions, partitions.dtype)
        rank = partitions.shape.ndims
        if rank is None:
            raise ValueError("partitions must have known rank.")
        num_partitions.shape.with_rank(0)
        partitions.shape.assert_is_compatible_with(data.shape[:rank])
        if rank == 0:
            return RaggedTensor.from_value_rowids(_stack1(data), array_ops.reshape(partitions, [1]),
                                                  nrows=num_partitions, validate=False)
        if rank == 1:
            permutation = sort_ops.argsort(partitions, stable=True)
            value_rowids = gather_ops.gather(partitions, permutation)
            values = gather_rows(data, permutation)
            checks = [check_ops.assert_less(value_rowids[-1:], num_partitions,
                                            message="partitions must be less than num_partitions"),
                      check_ops.assert_non_negative(partitions, message="partitions must be non-negative.")]
            with control_dependencies(checks):
                return RaggedTensor.from_value_rowids(values, value_rowids, nrows=num_partitions, validate=False)
        if not isinstance(partitions, RaggedTensor):
            partitions = RaggedTensor.from_tensor(partitions, ragged_rank=rank - 1)
        if not isinstance(data, RaggedTensor):
            data = RaggedTensor.from_tensor(data, row_splits_dtype=partitions.row_splits.dtype,
                                            ragged_rank=rank - 1)
        else:
            data = data.with_row_splits_dtype(partitions.row_splits.dtype)
        return stack_dynamic_partitions(data.flat_values, partitions.flat_values, num_partitions)


def _cast_partitions(partitions, dtype):
    if isinstance(partitions, RaggedTensor):
        return partitions.with_flat_values(math_ops.cast(partitions.flat_values, dtype))
    return math_ops.cast(partitions, dtype)


def _stack1(data):
    if isinstance(data, RaggedTensor):
        return RaggedTensor.from_row_lengths(data, array_ops.reshape(data.nrows(), [1]), validate=False)
    return array_ops.expand_dims(data, 0)


# -- cross, cross_hashed ----------------------------------------------------------------


def _cross_inputs(inputs, name: str) -> list:
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    out = []
    for value in inputs:
        value = convert_to_tensor_or_ragged_tensor(value) if not isinstance(value, SparseTensor) else value
        if isinstance(value, RaggedTensor):
            if value.ragged_rank != 1 or value.shape.ndims != 2:
                raise ValueError(f"tf.ragged.{name} only supports inputs with rank=2")
            value = value.to_sparse()
        elif isinstance(value, Tensor) and value.shape.ndims not in (None, 2):
            raise ValueError(f"tf.ragged.{name} only supports inputs with rank=2")
        out.append(value)
    return out


@tf_export("ragged.cross")
def cross(inputs, name=None):
    """Feature crosses of 2-D ragged, dense or sparse inputs, row by row (``"a_X_b"`` strings)."""
    from dflow.ops.sparse.sparse_feature_ops import sparse_cross

    with name_scope(name, "RaggedCross", [t for t in inputs if not isinstance(t, SparseTensor)]):
        crossed = sparse_cross(_cross_inputs(inputs, "cross"))
        return _with_static_nrows(RaggedTensor.from_sparse(crossed), inputs)


@tf_export("ragged.cross_hashed")
def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """Hashed feature crosses of 2-D ragged, dense or sparse inputs, row by row (int64 ids)."""
    from dflow.ops.sparse.sparse_feature_ops import sparse_cross_hashed

    with name_scope(name, "RaggedCross", [t for t in inputs if not isinstance(t, SparseTensor)]):
        crossed = sparse_cross_hashed(_cross_inputs(inputs, "cross_hashed"), num_buckets=num_buckets,
                                      hash_key=hash_key)
        return _with_static_nrows(RaggedTensor.from_sparse(crossed), inputs)


def _with_static_nrows(rt: RaggedTensor, inputs) -> RaggedTensor:
    """Sets the crossed rows' count where an input knows its rows statically (as TF's RaggedCross op does)."""
    for value in inputs:
        nrows = value.shape[0].value if value.shape.ndims else None
        if nrows is not None:
            rt.row_splits.set_shape([nrows + 1])
            break
    return rt
