"""``tf.contrib.losses`` (``slim.losses``): TF 1.15's deprecated forms of ``tf.losses``.

They take the predictions or logits **first** (``softmax_cross_entropy(logits, onehot_labels)``,
``mean_squared_error(predictions, labels)``), average over the elements whose weight is not zero (core's
``SUM_BY_NONZERO_WEIGHTS``) and add the loss to ``LOSSES``; ``hinge_loss`` returns the unreduced
per-element losses and adds nothing, ``mean_pairwise_squared_error`` keeps contrib's own normalization
(``n`` and ``n²``, not core's ``n - 1``). ``get_total_loss`` is ``add_n`` of the losses (and the
regularization losses).
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import GraphKeys, get_default_graph, name_scope
from dflow.ops.nn import losses_ops as _core


@tf_export("contrib.losses.add_loss")
def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Adds ``loss`` to ``loss_collection``."""
    _core.add_loss(loss, loss_collection)


@tf_export("contrib.losses.get_losses")
def get_losses(scope=None, loss_collection=GraphKeys.LOSSES) -> list:
    return get_default_graph().get_collection(loss_collection, scope)


@tf_export("contrib.losses.get_regularization_losses")
def get_regularization_losses(scope=None) -> list:
    return get_default_graph().get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


@tf_export("contrib.losses.get_total_loss")
def get_total_loss(add_regularization_losses=True, name="total_loss"):
    """``add_n`` of ``get_losses()`` and, by default, ``get_regularization_losses()``."""
    from dflow.ops.math.math_ops import add_n

    losses = get_losses()
    if add_regularization_losses:
        losses += get_regularization_losses()
    return add_n(losses, name=name)


@tf_export("contrib.losses.compute_weighted_loss")
def compute_weighted_loss(losses, weights=1.0, scope=None):
    """The weighted mean of ``losses`` over the elements of non-zero weight, added to ``LOSSES``."""
    return _core.compute_weighted_loss(losses, weights, scope=scope)


@tf_export("contrib.losses.absolute_difference")
def absolute_difference(predictions, labels=None, weights=1.0, scope=None):
    return _core.absolute_difference(labels, predictions, weights, scope=scope)


@tf_export("contrib.losses.mean_squared_error")
def mean_squared_error(predictions, labels=None, weights=1.0, scope=None):
    return _core.mean_squared_error(labels, predictions, weights, scope=scope)


@tf_export("contrib.losses.log_loss")
def log_loss(predictions, labels=None, weights=1.0, epsilon=1e-7, scope=None):
    return _core.log_loss(labels, predictions, weights, epsilon=epsilon, scope=scope)


@tf_export("contrib.losses.hinge_loss")
def hinge_loss(logits, labels=None, scope=None):
    """The per-element ``relu(1 - (2 * labels - 1) * logits)`` (not reduced, not added to ``LOSSES``)."""
    return _core.hinge_loss(labels, logits, scope=scope, loss_collection=None, reduction=_core.Reduction.NONE)


@tf_export("contrib.losses.sigmoid_cross_entropy")
def sigmoid_cross_entropy(logits, multi_class_labels, weights=1.0, label_smoothing=0, scope=None):
    return _core.sigmoid_cross_entropy(multi_class_labels, logits, weights, label_smoothing=label_smoothing,
                                       scope=scope)


@tf_export("contrib.losses.softmax_cross_entropy")
def softmax_cross_entropy(logits, onehot_labels, weights=1.0, label_smoothing=0, scope=None):
    return _core.softmax_cross_entropy(onehot_labels, logits, weights, label_smoothing=label_smoothing, scope=scope)


@tf_export("contrib.losses.sparse_softmax_cross_entropy")
def sparse_softmax_cross_entropy(logits, labels, weights=1.0, scope=None):
    return _core.sparse_softmax_cross_entropy(labels, logits, weights, scope=scope)


@tf_export("contrib.losses.cosine_distance")
def cosine_distance(predictions, labels=None, axis=None, weights=1.0, scope=None, dim=None):
    return _core.cosine_distance(labels, predictions, axis=axis, weights=weights, scope=scope, dim=dim)


@tf_export("contrib.losses.mean_pairwise_squared_error")
def mean_pairwise_squared_error(predictions, labels=None, weights=1.0, scope=None):
    """contrib's pairwise loss: per batch entry ``2 * (sum d² / n - (sum d)² / n²)`` over its ``n`` weighted
    elements (``d = predictions - labels``), times the entry's weight, summed over the batch."""
    from dflow.ops.array.creation_ops import ones_like, zeros_like
    from dflow.ops.array.select_ops import where
    from dflow.ops.array.shape_ops import reshape
    from dflow.ops.math import math_ops, reduction_ops

    with name_scope(scope, "mean_pairwise_squared_error", [predictions, labels, weights]) as scope:
        predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
        labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
        predictions.shape.assert_is_compatible_with(labels.shape)
        weights = math_ops.cast(convert_to_tensor(weights), dtypes.float32)
        diffs = math_ops.subtract(predictions, labels)
        axes = list(range(1, diffs.shape.ndims))
        if weights.shape.ndims == 0:
            weights = reshape(weights, [1])
        # weights of shape [batch] (or a scalar), as contrib takes them; each counts a row's elements
        row_weights = reshape(weights, [-1] + [1] * len(axes))
        present = math_ops.cast(math_ops.not_equal(row_weights * ones_like(diffs), 0.0), dtypes.float32)
        num_present_per_batch = reduction_ops.reduce_sum(present, axes)
        sum_squares = reduction_ops.reduce_sum(math_ops.square(diffs), axes)
        term1 = 2.0 * math_ops.div_no_nan(sum_squares, num_present_per_batch)
        sum_diff = reduction_ops.reduce_sum(diffs, axes)
        term2 = 2.0 * math_ops.div_no_nan(math_ops.square(sum_diff), math_ops.square(num_present_per_batch))
        loss = reshape(weights, [-1]) * (term1 - term2)
        total = reduction_ops.reduce_sum(loss)
        mean_loss = where(reduction_ops.reduce_sum(num_present_per_batch) > 0, total, zeros_like(total),
                          name="value")
        _core.add_loss(mean_loss)
        return mean_loss
