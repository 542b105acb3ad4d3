"""``tf.io.RaggedFeature`` results: RaggedTensors built from a parse's values and row partitions,
as TF's ``parsing_config.py`` builds them on top of its kernel's outputs. The kernels
(``ParseExampleV2``, ``ParseSequenceExampleV2``) give each ragged key's flat values and the row
splits of each example; this module turns them, with the feature's partitions, into RaggedTensors.
"""

from __future__ import annotations

from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.ops.io.example_parsing import RaggedFeature


def _build_ragged(parsed: dict, batched: bool, inner: dict | None = None) -> dict:
    """TF's ``_build_ragged_tensors``: each ragged key's values split into rows by its inner splits (feature lists'
    steps) and, for a batch, by its per-example row splits."""
    from dflow.ops.ragged.ragged_tensor import RaggedTensor

    out = {}
    for key, (values, splits) in parsed.items():
        if inner is not None:
            values = RaggedTensor.from_row_splits(values, inner[key], validate=False)
        out[key] = RaggedTensor.from_row_splits(values, splits, validate=False) if batched else values
    return out


def _ragged_features(features: dict, parsed: dict) -> dict:
    """TF's ``_construct_tensors_for_composite_features`` for the RaggedFeatures: each one's values key split by
    its partitions, innermost first."""
    from dflow.ops.ragged.ragged_tensor import RaggedTensor

    result = {}
    for key in sorted(features):
        feature = features[key]
        if not isinstance(feature, RaggedFeature):
            continue
        rt = parsed[key if feature.value_key is None else feature.value_key]
        if isinstance(rt, RaggedTensor):  # a batch of examples, or a sequence example's steps
            outer_splits = None
            if rt.ragged_rank > 1:  # a batch of sequence examples: two batch dimensions, the outer one put back last
                outer_splits, rt = rt.row_splits, rt.values
            for partition in reversed(feature.partitions):
                rt = _add_batched_ragged_partition(rt, partition, parsed, key, feature.validate, outer_splits)
            if outer_splits is not None:
                rt = RaggedTensor.from_row_splits(rt, outer_splits, validate=feature.validate)
        else:  # one example
            for partition in reversed(feature.partitions):
                rt = _add_ragged_partition(rt, partition, parsed, feature.row_splits_dtype, feature.validate)
        result[key] = rt
    return result


def _reshape_rows(values: Tensor, length: int) -> Tensor:
    """``values`` reshaped to rows of ``length``: ``[-1, length] + shape(values)[1:]``."""
    from dflow.ops.array import array_ops

    return array_ops.reshape(values, array_ops.concat([[-1, length], array_ops.shape(values)[1:]], axis=0))


def _add_ragged_partition(values, partition, parsed: dict, row_splits_dtype, validate: bool):
    """TF's ``_add_ragged_partition``: one example's ``values`` split by one partition."""
    from dflow.ops.math import math_ops
    from dflow.ops.ragged.ragged_tensor import RaggedTensor

    if isinstance(partition, RaggedFeature.UniformRowLength):
        if isinstance(values, RaggedTensor):
            length = convert_to_tensor(partition.length, dtype=row_splits_dtype)
            return RaggedTensor.from_uniform_row_length(values, length, validate=validate)
        return _reshape_rows(values, partition.length)
    partition_t = math_ops.cast(parsed[partition.key], row_splits_dtype)
    factories = ((RaggedFeature.RowSplits, RaggedTensor.from_row_splits),
                 (RaggedFeature.RowLengths, RaggedTensor.from_row_lengths),
                 (RaggedFeature.RowStarts, RaggedTensor.from_row_starts),
                 (RaggedFeature.RowLimits, RaggedTensor.from_row_limits),
                 (RaggedFeature.ValueRowIds, RaggedTensor.from_value_rowids))
    for kind, factory in factories:
        if isinstance(partition, kind):
            return factory(values, partition_t, validate=validate)
    raise ValueError(f"Unhandled partition type {partition!r}")


def _add_batched_ragged_partition(rt, partition, parsed: dict, feature_key: str, validate: bool, outer_splits=None):
    """TF's ``_add_batched_ragged_partition``: each batch item ``rt[i]`` split by its own partition ``[i]``."""
    from dflow.ops.array.array_extras import repeat
    from dflow.ops.control_flow.control_flow_ops import control_dependencies
    from dflow.ops.debugging import check_ops
    from dflow.ops.math import math_ops, reduction_ops
    from dflow.ops.ragged import ragged_math
    from dflow.ops.ragged.ragged_tensor import RaggedTensor

    if isinstance(partition, RaggedFeature.UniformRowLength):
        if rt.ragged_rank > 1:
            length = convert_to_tensor(partition.length, rt.row_splits.dtype)
            return RaggedTensor.from_row_splits(
                RaggedTensor.from_uniform_row_length(rt.values, length, validate=validate),
                rt.row_splits // length, validate=validate)
        return RaggedTensor.from_row_splits(_reshape_rows(rt.values, partition.length),
                                            rt.row_splits // partition.length, validate=validate)
    partition_t = parsed[partition.key]
    if partition_t.dtype is not rt.row_splits.dtype:
        partition_t = partition_t.with_flat_values(math_ops.cast(partition_t.flat_values, rt.row_splits.dtype))
    checks = []
    if outer_splits is not None:
        if validate:
            checks.append(check_ops.assert_equal(outer_splits, partition_t.row_splits,
                                                 message=f"Feature {feature_key}: values and partitions are not "
                                                         f"aligned"))
        partition_t = partition_t.values
    with control_dependencies(checks):
        if isinstance(partition, (RaggedFeature.RowSplits, RaggedFeature.RowLimits, RaggedFeature.RowStarts)):
            if isinstance(partition, RaggedFeature.RowSplits):
                partition_t = partition_t[:, 1:]
            adjusted = partition_t.values + repeat(rt.row_starts(), partition_t.row_lengths())
            factory = (RaggedTensor.from_row_starts if isinstance(partition, RaggedFeature.RowStarts)
                       else RaggedTensor.from_row_limits)
            return partition_t.with_values(factory(rt.values, adjusted, validate=validate))
        if isinstance(partition, RaggedFeature.RowLengths):
            return partition_t.with_values(RaggedTensor.from_row_lengths(rt.values, partition_t.values,
                                                                         validate=validate))
        # ValueRowIds: each batch item has max(row id) + 1 rows
        nrows = math_ops.maximum(ragged_math.reduce_max(partition_t + 1, axis=1), 0)
        adjusted_rowids = partition_t.values + repeat(reduction_ops.cumsum(nrows, exclusive=True),
                                                                partition_t.row_lengths())
        return RaggedTensor.from_row_lengths(RaggedTensor.from_value_rowids(rt.values, adjusted_rowids,
                                                                            validate=validate),
                                             nrows, validate=validate)
