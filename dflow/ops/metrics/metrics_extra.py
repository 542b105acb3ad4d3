"""``tf.metrics``, continued: metrics at thresholds, per class and per element.

Each metric builds the graph TF1's ``metrics_impl`` builds, on the helpers of
``metrics_ops`` (local metric variables, ``broadcast_weights``, the
``_ConfusionAtThresholds`` counts), so variable and tensor names match TF1's:

* ``*_at_thresholds``, ``sensitivity_at_specificity`` and
  ``specificity_at_sensitivity`` keep float32 confusion counts of shape
  ``[len(thresholds)]`` (``precision_at_thresholds/true_positives``);
  a prediction ``> threshold`` counts as positive.
* ``mean_iou`` accumulates a float64 ``[num_classes, num_classes]``
  confusion matrix, ``mean_per_class_accuracy`` float32 per-class sums
  (``mean_accuracy/total``, ``mean_accuracy/count``), ``mean_tensor``
  element-wise sums of the shape of ``values``.

The ``*_at_k`` family lives in ``metrics_at_k``.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.ops.array import array_ops
from dflow.ops.array.select_ops import where
from dflow.ops.control_flow.control_flow_ops import identity
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.metrics.metrics_ops import (
    _add_to,
    _check_collections,
    _confusion_matrix_at_thresholds,
    _remove_squeezable_dimensions,
    broadcast_weights,
    mean,
    metric_variable,
)
from dflow.ops.state.variable_scope import variable_scope
from dflow.ops.state.variables import assign_add, scatter_add

# -- counts and ratios at thresholds --------------------------------------------------------


def _check_both(metrics_collections, updates_collections) -> None:
    _check_collections(metrics_collections, "metrics_collections")
    _check_collections(updates_collections, "updates_collections")


def _count_at_thresholds(key: str, default_name: str, what: str):
    def fn(labels, predictions, thresholds, weights=None, metrics_collections=None, updates_collections=None,
           name=None):
        _check_both(metrics_collections, updates_collections)
        with variable_scope(name, default_name, [predictions, labels, weights]):
            values, updates = _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights,
                                                              includes=(key,))
            value = identity(values[key])
            _add_to(metrics_collections, value)
            _add_to(updates_collections, updates[key])
            return value, updates[key]

    fn.__name__ = f"{default_name}_at_thresholds"
    fn.__doc__ = f"""The (weighted) number of {what} at each threshold: ``(counts, update_op)``, float32 ``[T]``.

    ``predictions`` must lie in [0, 1]; one above ``thresholds[i]`` counts as
    positive. The counts live in ``{default_name}/{default_name}``.
    """
    return tf_export(f"metrics.{default_name}_at_thresholds")(fn)


true_positives_at_thresholds = _count_at_thresholds("tp", "true_positives", "true positives")
false_positives_at_thresholds = _count_at_thresholds("fp", "false_positives", "false positives")
false_negatives_at_thresholds = _count_at_thresholds("fn", "false_negatives", "false negatives")
true_negatives_at_thresholds = _count_at_thresholds("tn", "true_negatives", "true negatives")


def _ratio_at_thresholds(default_name: str, other: str, short: str, doc: str):
    def fn(labels, predictions, thresholds, weights=None, metrics_collections=None, updates_collections=None,
           name=None):
        _check_both(metrics_collections, updates_collections)
        with variable_scope(name, default_name, [predictions, labels, weights]):
            values, updates = _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights,
                                                              includes=("tp", other))
            epsilon = 1e-7

            def ratio(tp, o, op_name):
                return math_ops.divide(tp, epsilon + tp + o, name=f"{short}_{op_name}")

            value = ratio(values["tp"], values[other], "value")
            _add_to(metrics_collections, value)
            update_op = ratio(updates["tp"], updates[other], "update_op")
            _add_to(updates_collections, update_op)
            return value, update_op

    fn.__name__ = default_name
    fn.__doc__ = doc
    return tf_export(f"metrics.{default_name}")(fn)


precision_at_thresholds = _ratio_at_thresholds("precision_at_thresholds", "fp", "precision", """\
``tp / (1e-7 + tp + fp)`` at each threshold: ``(precision, update_op)``, float32 ``[T]``.

    >>> import dflow as tf
    >>> p, update = tf.metrics.precision_at_thresholds([1, 0, 1], [0.9, 0.6, 0.3], [0.5])
    >>> with tf.Session() as s:
    ...     s.run(tf.local_variables_initializer())
    ...     print(s.run(update).round(4))
    [0.5]
    """)
recall_at_thresholds = _ratio_at_thresholds("recall_at_thresholds", "fn", "recall", """\
``tp / (1e-7 + tp + fn)`` at each threshold: ``(recall, update_op)``, float32 ``[T]``.""")


def _uniform_thresholds(num_thresholds: int, top: float) -> list:
    kepsilon = 1e-7
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - kepsilon] + inner + [top]


@tf_export("metrics.sensitivity_at_specificity")
def sensitivity_at_specificity(labels, predictions, specificity, weights=None, num_thresholds=200,
                               metrics_collections=None, updates_collections=None, name=None):
    """The sensitivity (recall) at the threshold whose specificity is closest to
    ``specificity``: ``(sensitivity, update_op)``, float32 scalars.

    The ``num_thresholds`` thresholds are spread uniformly over [0, 1]; the
    first threshold of the closest specificity wins ties, as TF1's ``argmin``.
    """
    if specificity < 0 or specificity > 1:
        raise ValueError(f"`specificity` must be in the range [0, 1]. Currently, `specificity` got {specificity}.")
    _check_both(metrics_collections, updates_collections)
    with variable_scope(name, "sensitivity_at_specificity", [predictions, labels, weights]):
        kepsilon = 1e-7
        values, updates = _confusion_matrix_at_thresholds(
            labels, predictions, _uniform_thresholds(num_thresholds, 1.0 + kepsilon), weights)

        def compute(d, op_name):
            tp, tn, fp, fn = d["tp"], d["tn"], d["fp"], d["fn"]
            specificities = math_ops.divide(tn, tn + fp + kepsilon)
            index = math_ops.cast(reduction_ops.argmin(math_ops.abs(specificities - specificity), 0), dtypes.int32)
            return math_ops.divide(tp[index], tp[index] + fn[index] + kepsilon, op_name)

        value = compute(values, "value")
        _add_to(metrics_collections, value)
        update_op = compute(updates, "update_op")
        _add_to(updates_collections, update_op)
        return value, update_op


@tf_export("metrics.specificity_at_sensitivity")
def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None, num_thresholds=200,
                               metrics_collections=None, updates_collections=None, name=None):
    """The specificity at the threshold whose sensitivity is closest to
    ``sensitivity``: ``(specificity, update_op)``, float32 scalars.

    Thresholds run uniformly from ``-1e-7`` to ``1 - 1e-7``; of equally close
    sensitivities the last threshold wins, as TF1's.
    """
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError(f"`sensitivity` must be in the range [0, 1]. Currently, `sensitivity` is {sensitivity}.")
    _check_both(metrics_collections, updates_collections)
    with variable_scope(name, "specificity_at_sensitivity", [predictions, labels, weights]):
        kepsilon = 1e-7
        values, updates = _confusion_matrix_at_thresholds(
            labels, predictions, _uniform_thresholds(num_thresholds, 1.0 - kepsilon), weights)

        def compute(d, op_name):
            tp, tn, fp, fn = d["tp"], d["tn"], d["fp"], d["fn"]
            distance = math_ops.abs(math_ops.divide(tp, tp + fn + kepsilon) - sensitivity)
            at_min = math_ops.cast(math_ops.equal(distance, reduction_ops.reduce_min(distance)), dtypes.int64)
            index = math_ops.cast(reduction_ops.argmax(reduction_ops.cumsum(at_min), 0), dtypes.int32)
            return math_ops.divide(tn[index], tn[index] + fp[index] + kepsilon, op_name)

        value = compute(values, "value")
        _add_to(metrics_collections, value)
        update_op = compute(updates, "update_op")
        _add_to(updates_collections, update_op)
        return value, update_op


# -- element-wise means ------------------------------------------------------------------------


@tf_export("metrics.mean_cosine_distance")
def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None, updates_collections=None,
                         name=None):
    """``1 - mean(sum(labels * predictions, dim))`` over all batches: ``(distance, update_op)``.

    ``labels`` and ``predictions`` should be unit-normalized along ``dim``;
    the variables are ``mean_cosine_distance/total`` and ``/count``, and
    the distance is 1 before any update.
    """
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    radial_diffs = reduction_ops.reduce_sum(math_ops.multiply(predictions, labels), axis=[dim], keepdims=True)
    mean_distance, update_op = mean(radial_diffs, weights, None, None, name or "mean_cosine_distance")
    mean_distance = math_ops.subtract(1.0, mean_distance)
    update_op = math_ops.subtract(1.0, update_op)
    _add_to(metrics_collections, mean_distance)
    _add_to(updates_collections, update_op)
    return mean_distance, update_op


@tf_export("metrics.mean_relative_error")
def mean_relative_error(labels, predictions, normalizer, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The (weighted) mean of ``|labels - predictions| / normalizer`` (0 where the normalizer is 0):
    ``(error, update_op)``."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    predictions, normalizer, _ = _remove_squeezable_dimensions(predictions, normalizer, None)
    relative_errors = where(math_ops.equal(normalizer, 0.0), array_ops.zeros_like(labels),
                            math_ops.divide(math_ops.abs(labels - predictions), normalizer))
    return mean(relative_errors, weights, metrics_collections, updates_collections, name or "mean_relative_error")


@tf_export("metrics.percentage_below")
def percentage_below(values, threshold, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) fraction of ``values`` below ``threshold``: ``(fraction, update_op)``.

    Variables ``percentage_below_threshold/total`` and ``/count``.
    """
    is_below = math_ops.cast(math_ops.less(values, threshold), dtypes.float32)
    return mean(is_below, weights, metrics_collections, updates_collections, name or "percentage_below_threshold")


@tf_export("metrics.mean_tensor")
def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The element-wise (weighted) mean of ``values`` over all batches: ``(mean, update_op)``.

    ``values`` needs a fully defined static shape: the sums
    ``mean/total_tensor`` and ``mean/count_tensor`` have that shape.

    >>> import dflow as tf
    >>> m, update = tf.metrics.mean_tensor(tf.constant([1.0, 4.0]))
    >>> with tf.Session() as s:
    ...     s.run(tf.local_variables_initializer())
    ...     print(s.run(update))
    [1. 4.]
    """
    _check_both(metrics_collections, updates_collections)
    with variable_scope(name, "mean", [values, weights]):
        values = math_ops.cast(values, dtypes.float32)
        if not values.shape.is_fully_defined():
            dims = tuple(values.shape.as_list()) if values.shape.ndims is not None else "<unknown>"
            raise ValueError(f"Cannot convert a partially known TensorShape {dims} to a Tensor.")
        total = metric_variable(values.shape, dtypes.float32, name="total_tensor")
        count = metric_variable(values.shape, dtypes.float32, name="count_tensor")
        num_values = array_ops.ones_like(values)
        if weights is not None:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.multiply(num_values, weights)
        update_total_op = assign_add(total, values)
        update_count_op = assign_add(count, num_values)
        mean_t = math_ops.div_no_nan(total, math_ops.maximum(count, 0.0), name="value")
        _add_to(metrics_collections, mean_t)
        update_op = math_ops.div_no_nan(update_total_op, math_ops.maximum(update_count_op, 0.0), name="update_op")
        _add_to(updates_collections, update_op)
        return mean_t, update_op


# -- per class: mean_per_class_accuracy, mean_iou ---------------------------------------------


def _flatten(t: Tensor) -> Tensor:
    return array_ops.reshape(t, [-1]) if t.shape.ndims is None or t.shape.ndims > 1 else t


def _check_num_classes(num_classes, fn_name: str) -> None:
    if num_classes is None:  # TF1 fails creating the [num_classes] variables, with this message
        raise TypeError(f"{fn_name}: num_classes: Expected int32, but got None of type 'NoneType'.")


@tf_export("metrics.mean_per_class_accuracy")
def mean_per_class_accuracy(labels, predictions, num_classes, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """The mean over classes of each class's accuracy: ``(mean_accuracy, update_op)``.

    ``labels`` and ``predictions`` are class ids in ``[0, num_classes)``
    (flattened); the per-class sums are ``mean_accuracy/total`` (weight of
    each label) and ``mean_accuracy/count`` (weight of correct ones), and
    ``update_op`` is the float32 ``[num_classes]`` per-class accuracy.
    """
    _check_num_classes(num_classes, "mean_per_class_accuracy")
    _check_both(metrics_collections, updates_collections)
    with variable_scope(name, "mean_accuracy", [predictions, labels, weights]):
        labels = _flatten(math_ops.cast(labels, dtypes.int64))
        predictions = _flatten(convert_to_tensor(predictions))
        predictions.shape.assert_is_compatible_with(labels.shape)
        total = metric_variable([num_classes], dtypes.float32, name="total")
        count = metric_variable([num_classes], dtypes.float32, name="count")
        ones = array_ops.ones(array_ops.stack([array_ops.size(labels)]), dtypes.float32)
        if labels.dtype is not predictions.dtype:
            predictions = math_ops.cast(predictions, labels.dtype)
        is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            weights = math_ops.cast(_flatten(convert_to_tensor(weights)), dtypes.float32)
            is_correct = is_correct * weights
            ones = ones * weights
        update_total_op = scatter_add(total, labels, ones)
        update_count_op = scatter_add(count, labels, is_correct)
        per_class = math_ops.div_no_nan(count, math_ops.maximum(total, 0.0))
        value = reduction_ops.reduce_mean(per_class, name="mean_accuracy")
        _add_to(metrics_collections, value)
        update_op = math_ops.div_no_nan(update_count_op, math_ops.maximum(update_total_op, 0.0), name="update_op")
        _add_to(updates_collections, update_op)
        return value, update_op


@tf_export("metrics.mean_iou")
def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None, updates_collections=None,
             name=None):
    """The mean intersection-over-union over the classes seen: ``(mean_iou, update_op)``.

    Accumulates the float64 confusion matrix ``mean_iou/total_confusion_matrix``
    (rows are labels); ``update_op`` returns that matrix, the value is the float32
    mean of ``tp / (tp + fp + fn)`` over classes whose denominator is not 0.

    >>> import dflow as tf
    >>> m, update = tf.metrics.mean_iou([0, 1, 1], [0, 1, 0], num_classes=2)
    >>> with tf.Session() as s:
    ...     s.run(tf.local_variables_initializer())
    ...     _ = s.run(update)
    ...     print(s.run(m))
    0.5
    """
    from dflow.ops.math.math_extra_ops import confusion_matrix

    _check_num_classes(num_classes, "mean_iou")
    _check_both(metrics_collections, updates_collections)
    with variable_scope(name, "mean_iou", [predictions, labels, weights]):
        labels, predictions = convert_to_tensor(labels), convert_to_tensor(predictions)
        predictions.shape.assert_is_compatible_with(labels.shape)
        total_cm = metric_variable([num_classes, num_classes], dtypes.float64, name="total_confusion_matrix")
        predictions = _flatten(math_ops.cast(predictions, dtypes.int64))
        labels = _flatten(math_ops.cast(labels, dtypes.int64))
        if weights is not None:
            weights = _flatten(convert_to_tensor(weights))
        current_cm = confusion_matrix(labels, predictions, math_ops.cast(num_classes, dtypes.int64),
                                      weights=weights, dtype=dtypes.float64)
        update_op = assign_add(total_cm, current_cm)

        sum_over_row = math_ops.cast(reduction_ops.reduce_sum(total_cm, 0), dtypes.float32)
        sum_over_col = math_ops.cast(reduction_ops.reduce_sum(total_cm, 1), dtypes.float32)
        cm_diag = math_ops.cast(array_ops.matrix_diag_part(total_cm), dtypes.float32)
        denominator = sum_over_row + sum_over_col - cm_diag
        num_valid = reduction_ops.reduce_sum(math_ops.cast(math_ops.not_equal(denominator, 0), dtypes.float32))
        denominator = where(math_ops.greater(denominator, 0), denominator, array_ops.ones_like(denominator))
        iou = math_ops.divide(cm_diag, denominator)
        value = where(math_ops.greater(num_valid, 0), reduction_ops.reduce_sum(iou, name="mean_iou") / num_valid,
                      convert_to_tensor(0.0))
        _add_to(metrics_collections, value)
        _add_to(updates_collections, update_op)
        return value, update_op
