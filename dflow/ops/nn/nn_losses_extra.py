"""More ``tf.nn`` losses: ``log_poisson_loss``, ``weighted_cross_entropy_with_logits``,
``compute_average_loss``, ``scale_regularization_loss``; and ``zero_fraction``.

Each is TF1's composite of math ops, with TF1's scope and result names
(``log_poisson_loss/sub``, ``logistic_loss``, ``div_no_nan``, ``truediv``,
``zero_fraction/fraction``), so gradients come from the ops' own rules.
dflow has no distribution strategy: the number of replicas in sync is 1.
"""

from __future__ import annotations

import math

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import constant_value
from dflow.ops.array import array_ops, select_ops
from dflow.ops.math import math_ops, reduction_ops


@tf_export("nn.log_poisson_loss")
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None) -> Tensor:
    """``exp(log_input) - log_input * targets``, plus Stirling's term when ``compute_full_loss``.

    >>> import dflow as tf
    >>> tf.nn.log_poisson_loss([1.0], [0.0]).name
    'log_poisson_loss/sub:0'
    """
    with name_scope(name, "log_poisson_loss", [log_input, targets]):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, name="targets")
        if not targets.shape.is_compatible_with(log_input.shape):
            raise ValueError(f"`log_input` and `targets` must have the same shape, received "
                             f"({_shape_tuple(log_input)} vs {_shape_tuple(targets)}).")
        result = math_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            point_five = constant(0.5, dtype=targets.dtype)
            two_pi = constant(2 * math.pi, dtype=targets.dtype)
            stirling_approx = ((targets * math_ops.log(targets)) - targets
                               + (point_five * math_ops.log(two_pi * targets)))
            zeros = array_ops.zeros_like(targets, dtype=targets.dtype)
            ones = array_ops.ones_like(targets, dtype=targets.dtype)
            cond = math_ops.logical_and(targets >= zeros, targets <= ones)
            result += select_ops.where(cond, zeros, stirling_approx)
        return result


def _shape_tuple(t: Tensor) -> str:
    if t.shape.ndims is None:
        return "<unknown>"
    dims = t.shape.as_list()
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


@tf_export("nn.weighted_cross_entropy_with_logits")
def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None, targets=None) -> Tensor:
    """Sigmoid cross-entropy with the positive term weighted by ``pos_weight``.

    ``(1 - z) * x + (1 + (pos_weight - 1) * z) * (log1p(exp(-|x|)) + max(-x, 0))``,
    computed stably. ``targets`` is TF1's older name for ``labels``.
    """
    if labels is not None and targets is not None:
        raise ValueError("Cannot specify both 'labels' and 'targets'")
    labels = labels if labels is not None else targets
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        if not labels.shape.is_compatible_with(logits.shape):
            raise ValueError(f"`logits` and `labels` must have the same shape, received "
                             f"({_shape_tuple(logits)} vs {_shape_tuple(labels)}).")
        log_weight = 1 + (pos_weight - 1) * labels
        from dflow.ops.nn.nn_activations import relu

        return math_ops.add((1 - labels) * logits,
                            log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits))) + relu(-logits)),
                            name=scope)


@tf_export("nn.compute_average_loss")
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None) -> Tensor:
    """``sum(per_example_loss * sample_weight) / global_batch_size`` (default: the batch size).

    >>> import dflow as tf
    >>> tf.nn.compute_average_loss([1.0, 3.0]).name
    'div_no_nan:0'
    """
    per_example_loss = convert_to_tensor(per_example_loss)
    input_dtype = per_example_loss.dtype
    if per_example_loss.shape.ndims is not None and per_example_loss.shape.ndims < 1:
        raise ValueError(f"Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. "
                         f"Received per_example_loss={per_example_loss} with rank {per_example_loss.shape.ndims}")
    if sample_weight is not None:
        sample_weight = convert_to_tensor(sample_weight)
        per_example_loss = _scale_losses_by_sample_weight(per_example_loss, sample_weight)
    per_example_loss = math_ops.cast(per_example_loss, input_dtype)
    if global_batch_size is None:
        global_batch_size = array_ops.shape(per_example_loss)[0]
    else:
        global_batch_size = convert_to_tensor(global_batch_size)
        if not global_batch_size.dtype.is_integer:
            raise TypeError(f"global_batch_size must be an integer..  Expected \"x\" to be integer type.  Found: "
                            f"{global_batch_size.name} of dtype {global_batch_size.dtype!r}")
        if global_batch_size.shape.ndims not in (None, 0):
            raise ValueError(f"global_batch_size must be scalar. Received rank {global_batch_size.shape.ndims}")
        value = constant_value(global_batch_size)
        if value is not None and int(value) < 0:
            raise errors.InvalidArgumentError(None, None, "global_batch_size must be non-negative.")
    global_batch_size = math_ops.cast(global_batch_size, input_dtype)
    return math_ops.div_no_nan(reduction_ops.reduce_sum(per_example_loss), global_batch_size)


def _scale_losses_by_sample_weight(losses: Tensor, sample_weight: Tensor) -> Tensor:
    """TF1's losses_util: weights broadcast to the losses (rank-matched by squeezing/expanding), multiplied in."""
    sample_weight = math_ops.cast(sample_weight, losses.dtype)
    lr, wr = losses.shape.ndims, sample_weight.shape.ndims
    if lr is not None and wr is not None:
        if wr == lr + 1 and sample_weight.shape.as_list()[-1] == 1:
            sample_weight = array_ops.squeeze(sample_weight, [-1])
        elif lr == wr + 1 and losses.shape.as_list()[-1] == 1:
            losses = array_ops.squeeze(losses, [-1])
        while sample_weight.shape.ndims < losses.shape.ndims:
            sample_weight = array_ops.expand_dims(sample_weight, -1)
    return math_ops.multiply(losses, sample_weight)


@tf_export("nn.scale_regularization_loss")
def scale_regularization_loss(regularization_loss) -> Tensor:
    """``sum(regularization_loss) / num_replicas_in_sync`` (1 in dflow)."""
    return reduction_ops.reduce_sum(regularization_loss) / 1


@tf_export("math.zero_fraction", "nn.zero_fraction")
def zero_fraction(value, name=None) -> Tensor:
    """The fraction of zeros in ``value``, as float32.

    >>> import dflow as tf
    >>> tf.nn.zero_fraction([0.0, 1.0]).name
    'zero_fraction/fraction:0'
    """
    with name_scope(name, "zero_fraction", [value]):
        value = convert_to_tensor(value, name="value")
        size = array_ops.size(value, out_type=dtypes.int64)
        zero = constant(np.zeros((), value.dtype.as_numpy_dtype), name="zero")
        num_nonzero = reduction_ops.reduce_sum(math_ops.cast(math_ops.not_equal(value, zero), dtypes.int64))
        with name_scope("counts_to_fraction"):
            num_zero = size - num_nonzero
            num_zero_float32 = math_ops.cast(num_zero, dtype=dtypes.float32)
            size_float32 = math_ops.cast(size, dtype=dtypes.float32)
            zero_fraction_float32 = num_zero_float32 / size_float32
        return array_ops.identity(zero_fraction_float32, "fraction")
