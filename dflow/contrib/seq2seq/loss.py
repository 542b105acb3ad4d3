"""``tf.contrib.seq2seq.sequence_loss``: weighted cross-entropy over ``[batch, time]`` logits, as TF 1.15's."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.graph import name_scope
from dflow.ops.array import shape_ops
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.nn.nn_losses import sparse_softmax_cross_entropy_with_logits

__all__ = ["sequence_loss"]


@tf_export("contrib.seq2seq.sequence_loss")
def sequence_loss(logits, targets, weights, average_across_timesteps=True, average_across_batch=True,
                  sum_over_timesteps=False, sum_over_batch=False, softmax_loss_function=None, name=None):
    """The weighted cross-entropy of ``logits`` ``[batch, time, classes]`` against ``targets``
    ``[batch, time]``.

    ``average_across_*`` sum the weighted losses over that axis and divide by the sum of the weights;
    ``sum_over_*`` divide instead by the number of nonzero weights. With neither for an axis it is kept,
    so the result is a scalar, ``[batch]``, ``[time]`` or ``[batch, time]``.
    """
    if logits.shape.ndims != 3:
        raise ValueError("Logits must be a [batch_size x sequence_length x num_decoder_symbols] tensor")
    if targets.shape.ndims != 2:
        raise ValueError("Targets must be a [batch_size x sequence_length] tensor")
    if weights.shape.ndims != 2:
        raise ValueError("Weights must be a [batch_size x sequence_length] tensor")
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to True at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at same time.")
    with name_scope(name, "sequence_loss"):
        num_classes = shape_ops.shape(logits)[2]
        logits_flat = shape_ops.reshape(logits, [-1, num_classes])
        targets = shape_ops.reshape(targets, [-1])
        if softmax_loss_function is None:
            crossent = sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits_flat)
        else:
            crossent = softmax_loss_function(labels=targets, logits=logits_flat)
        crossent *= shape_ops.reshape(weights, [-1])
        if average_across_timesteps and average_across_batch:
            crossent = reduction_ops.reduce_sum(crossent)
            total_size = reduction_ops.reduce_sum(weights) + 1e-12
            crossent /= total_size
        elif sum_over_timesteps and sum_over_batch:
            crossent = reduction_ops.reduce_sum(crossent)
            total_count = math_ops.cast(reduction_ops.count_nonzero(weights), crossent.dtype) + 1e-12
            crossent /= total_count
        else:
            crossent = shape_ops.reshape(crossent, shape_ops.shape(logits)[0:2])
            if average_across_timesteps or average_across_batch:
                axis = [0] if average_across_batch else [1]
                crossent = reduction_ops.reduce_sum(crossent, axis=axis)
                total_size = reduction_ops.reduce_sum(weights, axis=axis) + 1e-12
                crossent /= total_size
            elif sum_over_timesteps or sum_over_batch:
                axis = [0] if sum_over_batch else [1]
                crossent = reduction_ops.reduce_sum(crossent, axis=axis)
                total_count = math_ops.cast(reduction_ops.count_nonzero(weights, axis=axis), crossent.dtype)
                crossent /= total_count + 1e-12
        return crossent
