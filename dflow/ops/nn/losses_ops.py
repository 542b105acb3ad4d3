"""TF1's ``tf.losses`` (``tensorflow.compat.v1.losses``): weighted losses and the loss collections.

Every loss is built from existing differentiable ops (math, nn), weighted and
reduced by ``compute_weighted_loss`` and added to ``loss_collection``
(``GraphKeys.LOSSES`` by default), as TF1 does. The default reduction is
TF1's ``Reduction.SUM_BY_NONZERO_WEIGHTS``. Static shape mismatches between
labels and predictions, and weights that cannot broadcast to the losses, are a
``ValueError`` when the graph is built.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import GraphKeys, Tensor, get_collection, get_default_graph, name_scope
from dflow.ops.array import array_ops, shape_ops
from dflow.ops.array.creation_ops import ones_like, zeros_like
from dflow.ops.array.select_ops import where
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.nn import nn_losses
from dflow.ops.nn.nn_activations import relu


@tf_export("losses.Reduction")
class Reduction:
    """TF1's ``tf.losses.Reduction``: how ``compute_weighted_loss`` reduces weighted losses."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS,
                cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


# -- collections ---------------------------------------------------------------------------------


@tf_export("losses.add_loss")
def add_loss(loss, loss_collection=GraphKeys.LOSSES) -> None:
    """Adds ``loss`` to ``loss_collection`` (nothing when the collection is falsy)."""
    if loss_collection:
        get_default_graph().add_to_collection(loss_collection, loss)


@tf_export("losses.get_losses")
def get_losses(scope=None, loss_collection=GraphKeys.LOSSES) -> list:
    """The losses in ``loss_collection`` whose names match ``scope``."""
    return get_collection(loss_collection, scope)


@tf_export("losses.get_regularization_losses")
def get_regularization_losses(scope=None) -> list:
    """The ``GraphKeys.REGULARIZATION_LOSSES`` collection, filtered by ``scope``."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


@tf_export("losses.get_regularization_loss")
def get_regularization_loss(scope=None, name="total_regularization_loss") -> Tensor:
    """The sum of the regularization losses, or a constant ``0.0`` when there are none."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant(0.0)


@tf_export("losses.get_total_loss")
def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None) -> Tensor:
    """The sum of the losses (and, by default, the regularization losses); ``add_n`` of none raises."""
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return math_ops.add_n(losses, name=name)


# -- weighting and reduction ---------------------------------------------------------------------


def _assert_broadcastable(weights: Tensor, values: Tensor) -> None:
    """TF1's static ``weights_broadcast_ops.assert_broadcastable`` check (ValueError)."""
    ws, vs = weights.shape, values.shape
    if ws.ndims is None or vs.ndims is None or ws.ndims == 0:
        return
    if ws.ndims != vs.ndims:
        raise ValueError(f"weights can not be broadcast to values. values.rank={vs.ndims}. "
                         f"weights.rank={ws.ndims}. values.shape={vs}. weights.shape={ws}.")
    wd, vd = ws.as_list(), vs.as_list()
    for w, v in zip(wd, vd):
        if w is not None and v is not None and w not in (1, v):
            raise ValueError(f"weights can not be broadcast to values. values.shape={vs}. weights.shape={ws}.")


def _num_present(losses: Tensor, weights: Tensor, per_batch: bool = False) -> Tensor:
    """How many elements of ``losses`` have a non-zero (broadcast) weight."""
    with name_scope(None, "num_present", [losses, weights]) as scope:
        weights = math_ops.cast(weights, dtypes.float32)
        present = where(math_ops.equal(weights, 0.0), zeros_like(weights), ones_like(weights))
        present = present * ones_like(losses)
        if per_batch:
            axis = list(range(1, present.shape.ndims)) if present.shape.ndims is not None else None
            if axis is None:
                from dflow.ops.array.creation_ops import range as tf_range

                axis = tf_range(1, shape_ops.rank(present))
            return reduction_ops.reduce_sum(present, axis=axis, keepdims=True, name=scope)
        return reduction_ops.reduce_sum(present, name=scope)


def _safe_mean(losses: Tensor, num_present: Tensor) -> Tensor:
    return math_ops.div_no_nan(reduction_ops.reduce_sum(losses), num_present, name="value")


@tf_export("losses.compute_weighted_loss")
def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """``losses * weights`` reduced by ``reduction``, cast back to the losses' dtype and added to
    ``loss_collection``.

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     float(s.run(tf.losses.compute_weighted_loss([1.0, 3.0], [1.0, 0.0])))
    1.0
    """
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss", [losses, weights]):
        losses = convert_to_tensor(losses)
        weights = convert_to_tensor(weights)
        _assert_broadcastable(weights, losses)
        input_dtype = losses.dtype
        losses = math_ops.cast(losses, dtypes.float32)
        weights = math_ops.cast(weights, dtypes.float32)
        weighted = math_ops.multiply(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = reduction_ops.reduce_sum(weighted)
            if reduction == Reduction.MEAN:
                loss = _safe_mean(loss, reduction_ops.reduce_sum(ones_like(losses) * weights))
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                loss = _safe_mean(loss, _num_present(losses, weights))
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                with name_scope(None, "num_elements", [losses]) as ne:
                    count = math_ops.cast(shape_ops.size(losses, name=ne), dtypes.float32)
                loss = _safe_mean(loss, count)
        loss = math_ops.cast(loss, input_dtype)
        add_loss(loss, loss_collection)
        return loss


# -- the losses ------------------------------------------------------------------------------------


def _check_args(labels, predictions, what="predictions"):
    if labels is None:
        raise ValueError("labels must not be None.")
    if predictions is None:
        raise ValueError(f"{what} must not be None.")


def _float_pair(labels, predictions):
    predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
    labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
    predictions.shape.assert_is_compatible_with(labels.shape)
    return labels, predictions


@tf_export("losses.absolute_difference")
def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """Weighted ``|predictions - labels|``."""
    _check_args(labels, predictions)
    with name_scope(scope, "absolute_difference", [predictions, labels, weights]) as scope:
        labels, predictions = _float_pair(labels, predictions)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.mean_squared_error")
def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """Weighted ``(predictions - labels) ** 2``."""
    _check_args(labels, predictions)
    with name_scope(scope, "mean_squared_error", [predictions, labels, weights]) as scope:
        labels, predictions = _float_pair(labels, predictions)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.huber_loss")
def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """Weighted Huber loss: ``0.5 * x**2`` for ``|x| <= delta``, ``0.5 * delta**2 + delta * (|x| - delta)`` beyond."""
    _check_args(labels, predictions)
    with name_scope(scope, "huber_loss", [predictions, labels, weights]) as scope:
        labels, predictions = _float_pair(labels, predictions)
        abs_error = math_ops.abs(math_ops.subtract(predictions, labels))
        quadratic = math_ops.minimum(abs_error, delta)
        linear = math_ops.subtract(abs_error, quadratic)
        losses = math_ops.add(math_ops.multiply(convert_to_tensor(0.5, dtype=quadratic.dtype),
                                                math_ops.multiply(quadratic, quadratic)),
                              math_ops.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.log_loss")
def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None, loss_collection=GraphKeys.LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """Weighted ``-labels * log(p + eps) - (1 - labels) * log(1 - p + eps)``."""
    _check_args(labels, predictions)
    with name_scope(scope, "log_loss", [predictions, labels, weights]) as scope:
        labels, predictions = _float_pair(labels, predictions)
        losses = (-math_ops.multiply(labels, math_ops.log(predictions + epsilon))
                  - math_ops.multiply(1 - labels, math_ops.log(1 - predictions + epsilon)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.hinge_loss")
def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """Weighted ``relu(1 - (2 * labels - 1) * logits)`` for 0/1 labels."""
    _check_args(labels, logits, "logits")
    with name_scope(scope, "hinge_loss", [logits, labels, weights]) as scope:
        labels, logits = _float_pair(labels, logits)
        all_ones = ones_like(labels)
        labels = math_ops.subtract(2 * labels, all_ones)
        losses = relu(math_ops.subtract(all_ones, math_ops.multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.sigmoid_cross_entropy")
def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """Weighted sigmoid cross-entropy; ``label_smoothing`` moves the labels towards 1/2."""
    _check_args(multi_class_labels, logits, "logits")
    with name_scope(scope, "sigmoid_cross_entropy_loss", [logits, multi_class_labels, weights]) as scope:
        logits = convert_to_tensor(logits)
        multi_class_labels = math_ops.cast(multi_class_labels, logits.dtype)
        logits.shape.assert_is_compatible_with(multi_class_labels.shape)
        if label_smoothing > 0:
            multi_class_labels = multi_class_labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_losses.sigmoid_cross_entropy_with_logits(labels=multi_class_labels, logits=logits,
                                                             name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.softmax_cross_entropy")
def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """Weighted softmax cross-entropy of one-hot labels; ``label_smoothing`` spreads mass over the classes."""
    _check_args(onehot_labels, logits, "logits")
    with name_scope(scope, "softmax_cross_entropy_loss", [logits, onehot_labels, weights]) as scope:
        logits = convert_to_tensor(logits)
        onehot_labels = math_ops.cast(onehot_labels, logits.dtype)
        logits.shape.assert_is_compatible_with(onehot_labels.shape)
        if label_smoothing > 0:
            num_classes = math_ops.cast(shape_ops.shape(onehot_labels)[-1], logits.dtype)
            smooth_positives = 1.0 - label_smoothing
            smooth_negatives = label_smoothing / num_classes
            onehot_labels = onehot_labels * smooth_positives + smooth_negatives
        onehot_labels = array_ops.stop_gradient(onehot_labels, name="labels_stop_gradient")
        losses = nn_losses.softmax_cross_entropy_with_logits_v2(labels=onehot_labels, logits=logits,
                                                                name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def _remove_squeezable_dimensions(labels, predictions, weights, expected_rank_diff=0):
    """TF1's static squeeze of a trailing size-1 dimension of labels/predictions and weights."""
    labels = convert_to_tensor(labels)
    predictions = convert_to_tensor(predictions)
    lr, pr = labels.shape.ndims, predictions.shape.ndims
    if lr is not None and pr is not None:
        diff = pr - lr
        if diff == expected_rank_diff + 1 and predictions.shape.as_list()[-1] in (1, None):
            predictions = shape_ops.squeeze(predictions, [-1])
        elif diff == expected_rank_diff - 1 and labels.shape.as_list()[-1] in (1, None):
            labels = shape_ops.squeeze(labels, [-1])
    if weights is not None:
        weights = convert_to_tensor(weights)
        lr, wr = labels.shape.ndims, weights.shape.ndims
        if lr is not None and wr is not None and wr - lr == 1:
            weights = shape_ops.squeeze(weights, [-1])
    return labels, predictions, weights


@tf_export("losses.sparse_softmax_cross_entropy")
def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """Weighted softmax cross-entropy of integer class labels (``[N]`` or ``[N, 1]`` for ``[N, C]`` logits)."""
    _check_args(labels, logits, "logits")
    with name_scope(scope, "sparse_softmax_cross_entropy_loss", [logits, labels, weights]) as scope:
        labels, logits, weights = _remove_squeezable_dimensions(labels, logits, weights, expected_rank_diff=1)
        losses = nn_losses.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.cosine_distance")
def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None) -> Tensor:
    """Weighted ``1 - sum(labels * predictions, axis)`` of unit-normalized inputs (kept dims)."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    _check_args(labels, predictions)
    with name_scope(scope, "cosine_distance_loss", [predictions, labels, weights]) as scope:
        labels, predictions = _float_pair(labels, predictions)
        radial_diffs = math_ops.multiply(predictions, labels)
        losses = 1 - reduction_ops.reduce_sum(radial_diffs, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.mean_pairwise_squared_error")
def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None,
                                loss_collection=GraphKeys.LOSSES) -> Tensor:
    """Weighted mean of the squared differences between all pairs of per-example errors."""
    _check_args(labels, predictions)
    with name_scope(scope, "mean_pairwise_squared_error", [predictions, labels, weights]):
        weights = math_ops.cast(convert_to_tensor(weights), dtypes.float32)
        labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
        _assert_broadcastable(weights, labels)
        predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
        predictions.shape.assert_is_compatible_with(labels.shape)
        diffs = math_ops.subtract(predictions, labels)
        ndims = diffs.shape.ndims
        if ndims is None:
            from dflow.ops.array.creation_ops import range as tf_range

            axis = tf_range(1, shape_ops.rank(diffs))
        else:
            axis = list(range(1, ndims))
        sum_squares = reduction_ops.reduce_sum(math_ops.square(diffs), axis=axis, keepdims=True)
        num_present = _num_present(diffs, weights, per_batch=True)
        term1 = 2.0 * math_ops.div_no_nan(sum_squares, math_ops.maximum(num_present - 1, 0.0), name="value")
        sum_diff = reduction_ops.reduce_sum(diffs, axis=axis, keepdims=True)
        term2 = 2.0 * math_ops.div_no_nan(math_ops.square(sum_diff),
                                          math_ops.maximum(math_ops.multiply(num_present, num_present - 1), 0.0),
                                          name="value")
        loss = reduction_ops.reduce_sum(math_ops.multiply(term1 - term2, weights))
        mean_loss = where(reduction_ops.reduce_sum(num_present) > 0, loss, zeros_like(loss), name="value")
        add_loss(mean_loss, loss_collection)
        return mean_loss
