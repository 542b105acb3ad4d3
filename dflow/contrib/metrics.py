"""``tf.contrib.metrics`` (``slim.metrics``) as TF 1.15 defined it over ``tf.metrics``.

* the ``streaming_*`` metrics: ``tf.metrics``' functions with contrib's argument order (predictions
  first: ``streaming_accuracy(predictions, labels)``), each returning ``(value, update_op)`` with the
  same local variables (``accuracy/total``, ``accuracy/count``, ...);
  ``streaming_recall_at_k`` (``in_top_k`` averaged), ``streaming_false_positive_rate`` and
  ``streaming_false_negative_rate`` (and ``_at_thresholds``), ``streaming_covariance`` and
  ``streaming_pearson_correlation`` (TF's running co-moment update; NaN until two values),
  ``streaming_concat`` (the values seen so far, concatenated along ``axis``, at most ``max_size``);
* ``aggregate_metrics(*pairs)`` and ``aggregate_metric_map({name: pair})``: the values and update ops
  gathered into lists or dicts;
* ``accuracy(predictions, labels, weights=None)``: the (non-streaming) fraction of equal elements;
  ``confusion_matrix`` (``tf.confusion_matrix``); ``f1_score(labels, predictions)``: the best F1 over
  ``num_thresholds`` thresholds (contrib's ``classification.f1_score``); ``count``.

Other contrib.metrics names (``auc_using_histogram``, ``cohen_kappa``, ``streaming_dynamic_auc``,
``streaming_curve_points``, the set operations, ...) raise ``NotImplementedError`` naming them.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import control_dependencies, name_scope
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.math.math_extra_ops import confusion_matrix
from dflow.ops.metrics import metrics_at_k, metrics_extra, metrics_ops
from dflow.ops.metrics.metrics_ops import (
    _add_to,
    _confusion_matrix_at_thresholds,
    _remove_squeezable_dimensions,
    broadcast_weights,
    metric_variable,
)
from dflow.ops.state.variable_scope import variable_scope


def _export(name):
    return tf_export(f"contrib.metrics.{name}")


# -- tf.metrics with contrib's argument order --------------------------------------------------------


@_export("streaming_mean")
def streaming_mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    return metrics_ops.mean(values, weights=weights, metrics_collections=metrics_collections,
                            updates_collections=updates_collections, name=name)


@_export("streaming_mean_tensor")
def streaming_mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    return metrics_extra.mean_tensor(values, weights=weights, metrics_collections=metrics_collections,
                                     updates_collections=updates_collections, name=name)


def _pairwise(core, export_name, doc):
    def fn(predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None):
        return core(labels=labels, predictions=predictions, weights=weights, metrics_collections=metrics_collections,
                    updates_collections=updates_collections, name=name)

    fn.__name__ = fn.__qualname__ = export_name
    fn.__doc__ = doc
    return _export(export_name)(fn)


streaming_accuracy = _pairwise(metrics_ops.accuracy, "streaming_accuracy",
                               "``tf.metrics.accuracy(labels, predictions)``: the fraction of equal elements.")
streaming_precision = _pairwise(metrics_ops.precision, "streaming_precision", "``tf.metrics.precision``.")
streaming_recall = _pairwise(metrics_ops.recall, "streaming_recall", "``tf.metrics.recall``.")
streaming_true_positives = _pairwise(metrics_ops.true_positives, "streaming_true_positives",
                                     "``tf.metrics.true_positives``.")
streaming_true_negatives = _pairwise(metrics_ops.true_negatives, "streaming_true_negatives",
                                     "``tf.metrics.true_negatives``.")
streaming_false_positives = _pairwise(metrics_ops.false_positives, "streaming_false_positives",
                                      "``tf.metrics.false_positives``.")
streaming_false_negatives = _pairwise(metrics_ops.false_negatives, "streaming_false_negatives",
                                      "``tf.metrics.false_negatives``.")
streaming_mean_absolute_error = _pairwise(metrics_ops.mean_absolute_error, "streaming_mean_absolute_error",
                                          "``tf.metrics.mean_absolute_error``.")
streaming_mean_squared_error = _pairwise(metrics_ops.mean_squared_error, "streaming_mean_squared_error",
                                         "``tf.metrics.mean_squared_error``.")
streaming_root_mean_squared_error = _pairwise(metrics_ops.root_mean_squared_error,
                                              "streaming_root_mean_squared_error",
                                              "``tf.metrics.root_mean_squared_error``.")


def _at_thresholds(core, export_name):
    def fn(predictions, labels, thresholds, weights=None, metrics_collections=None, updates_collections=None,
           name=None):
        return core(labels=labels, predictions=predictions, thresholds=thresholds, weights=weights,
                    metrics_collections=metrics_collections, updates_collections=updates_collections, name=name)

    fn.__name__ = fn.__qualname__ = export_name
    fn.__doc__ = f"``tf.metrics.{core.__name__}`` with the predictions first."
    return _export(export_name)(fn)


streaming_true_positives_at_thresholds = _at_thresholds(metrics_extra.true_positives_at_thresholds,
                                                        "streaming_true_positives_at_thresholds")
streaming_false_positives_at_thresholds = _at_thresholds(metrics_extra.false_positives_at_thresholds,
                                                         "streaming_false_positives_at_thresholds")
streaming_false_negatives_at_thresholds = _at_thresholds(metrics_extra.false_negatives_at_thresholds,
                                                         "streaming_false_negatives_at_thresholds")
streaming_true_negatives_at_thresholds = _at_thresholds(metrics_extra.true_negatives_at_thresholds,
                                                        "streaming_true_negatives_at_thresholds")
streaming_precision_at_thresholds = _at_thresholds(metrics_extra.precision_at_thresholds,
                                                   "streaming_precision_at_thresholds")
streaming_recall_at_thresholds = _at_thresholds(metrics_extra.recall_at_thresholds,
                                                "streaming_recall_at_thresholds")


@_export("streaming_auc")
def streaming_auc(predictions, labels, weights=None, num_thresholds=200, metrics_collections=None,
                  updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal"):
    """``tf.metrics.auc`` (ROC or PR, ``num_thresholds`` thresholds)."""
    return metrics_ops.auc(labels=labels, predictions=predictions, weights=weights, num_thresholds=num_thresholds,
                           metrics_collections=metrics_collections, updates_collections=updates_collections,
                           curve=curve, name=name, summation_method=summation_method)


@_export("streaming_sensitivity_at_specificity")
def streaming_sensitivity_at_specificity(predictions, labels, specificity, weights=None, num_thresholds=200,
                                         metrics_collections=None, updates_collections=None, name=None):
    return metrics_extra.sensitivity_at_specificity(
        labels=labels, predictions=predictions, specificity=specificity, weights=weights,
        num_thresholds=num_thresholds, metrics_collections=metrics_collections,
        updates_collections=updates_collections, name=name)


@_export("streaming_specificity_at_sensitivity")
def streaming_specificity_at_sensitivity(predictions, labels, sensitivity, weights=None, num_thresholds=200,
                                         metrics_collections=None, updates_collections=None, name=None):
    return metrics_extra.specificity_at_sensitivity(
        labels=labels, predictions=predictions, sensitivity=sensitivity, weights=weights,
        num_thresholds=num_thresholds, metrics_collections=metrics_collections,
        updates_collections=updates_collections, name=name)


@_export("streaming_mean_relative_error")
def streaming_mean_relative_error(predictions, labels, normalizer, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    return metrics_extra.mean_relative_error(labels=labels, predictions=predictions, normalizer=normalizer,
                                             weights=weights, metrics_collections=metrics_collections,
                                             updates_collections=updates_collections, name=name)


@_export("streaming_mean_cosine_distance")
def streaming_mean_cosine_distance(predictions, labels, dim, weights=None, metrics_collections=None,
                                   updates_collections=None, name=None):
    return metrics_extra.mean_cosine_distance(labels=labels, predictions=predictions, dim=dim, weights=weights,
                                              metrics_collections=metrics_collections,
                                              updates_collections=updates_collections, name=name)


@_export("streaming_percentage_less")
def streaming_percentage_less(values, threshold, weights=None, metrics_collections=None, updates_collections=None,
                              name=None):
    return metrics_extra.percentage_below(values, threshold, weights=weights, metrics_collections=metrics_collections,
                                          updates_collections=updates_collections, name=name)


@_export("streaming_mean_iou")
def streaming_mean_iou(predictions, labels, num_classes, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    return metrics_extra.mean_iou(labels=labels, predictions=predictions, num_classes=num_classes, weights=weights,
                                  metrics_collections=metrics_collections, updates_collections=updates_collections,
                                  name=name)


@_export("streaming_recall_at_k")
def streaming_recall_at_k(predictions, labels, k, weights=None, metrics_collections=None, updates_collections=None,
                          name=None):
    """The mean of ``in_top_k(predictions, labels, k)`` (scope ``recall_at_<k>``)."""
    from dflow.ops.nn.nn_ops import in_top_k

    in_top = math_ops.cast(in_top_k(predictions, labels, k), dtypes.float32)
    return streaming_mean(in_top, weights=weights, metrics_collections=metrics_collections,
                          updates_collections=updates_collections, name=name or f"recall_at_{k}")


def _sparse_at_k(core, export_name, top_k_arg="predictions"):
    def fn(predictions, labels, k, class_id=None, weights=None, metrics_collections=None, updates_collections=None,
           name=None):
        kwargs = {"labels": labels, top_k_arg: predictions, "k": k, "weights": weights,
                  "metrics_collections": metrics_collections, "updates_collections": updates_collections,
                  "name": name}
        if class_id is not None:
            kwargs["class_id"] = class_id
        return core(**kwargs)

    fn.__name__ = fn.__qualname__ = export_name
    fn.__doc__ = f"``tf.metrics.{core.__name__}`` with the predictions first."
    return _export(export_name)(fn)


streaming_sparse_precision_at_k = _sparse_at_k(metrics_at_k.precision_at_k, "streaming_sparse_precision_at_k")
streaming_sparse_recall_at_k = _sparse_at_k(metrics_at_k.recall_at_k, "streaming_sparse_recall_at_k")
streaming_sparse_precision_at_top_k = _sparse_at_k(metrics_at_k.precision_at_top_k,
                                                   "streaming_sparse_precision_at_top_k", "predictions_idx")


@_export("streaming_sparse_average_precision_at_k")
def streaming_sparse_average_precision_at_k(predictions, labels, k, weights=None, metrics_collections=None,
                                            updates_collections=None, name=None):
    return metrics_at_k.average_precision_at_k(labels=labels, predictions=predictions, k=k, weights=weights,
                                               metrics_collections=metrics_collections,
                                               updates_collections=updates_collections, name=name)


# -- contrib's own metrics ---------------------------------------------------------------------------


def _rate(default_name, numerator_metric, other_metric):
    def fn(predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None):
        from dflow.ops.array.select_ops import where

        with variable_scope(name, default_name, (predictions, labels, weights)):
            predictions, labels, weights = _remove_squeezable_dimensions(
                math_ops.cast(convert_to_tensor(predictions), dtypes.bool),
                math_ops.cast(convert_to_tensor(labels), dtypes.bool), weights)
            a, a_update = numerator_metric(labels=labels, predictions=predictions, weights=weights)
            b, b_update = other_metric(labels=labels, predictions=predictions, weights=weights)

            def compute(x, y, op_name):
                denominator = x + y
                return where(math_ops.greater(denominator, 0), math_ops.div(x, denominator),
                             _zeros_like(denominator), name=op_name)

            value = compute(a, b, "value")
            update_op = compute(a_update, b_update, "update_op")
            _add_to(metrics_collections, value)
            _add_to(updates_collections, update_op)
            return value, update_op

    return fn


def _zeros_like(t):
    from dflow.ops.array.creation_ops import zeros_like

    return zeros_like(t)


def _thresholds_rate(default_name, key_a, key_b):
    def fn(predictions, labels, thresholds, weights=None, metrics_collections=None, updates_collections=None,
           name=None):
        with variable_scope(name, default_name, (predictions, labels, weights)):
            values, updates = _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights,
                                                              includes=(key_a, key_b))
            epsilon = 1e-7

            def compute(a, b, op_name):
                return math_ops.div(a, epsilon + a + b, name=op_name)

            value = compute(values[key_a], values[key_b], "value")
            update_op = compute(updates[key_a], updates[key_b], "update_op")
            _add_to(metrics_collections, value)
            _add_to(updates_collections, update_op)
            return value, update_op

    return fn


def _named(fn, export_name, doc):
    fn.__name__ = fn.__qualname__ = export_name
    fn.__doc__ = doc
    return _export(export_name)(fn)


streaming_false_positive_rate = _named(
    _rate("false_positive_rate", metrics_ops.false_positives, metrics_ops.true_negatives),
    "streaming_false_positive_rate", "``fp / (fp + tn)`` (0 while there is none).")
streaming_false_negative_rate = _named(
    _rate("false_negative_rate", metrics_ops.false_negatives, metrics_ops.true_positives),
    "streaming_false_negative_rate", "``fn / (fn + tp)`` (0 while there is none).")
streaming_false_positive_rate_at_thresholds = _named(
    _thresholds_rate("false_positive_rate_at_thresholds", "fp", "tn"),
    "streaming_false_positive_rate_at_thresholds", "``fp / (fp + tn + 1e-7)`` per threshold.")
streaming_false_negative_rate_at_thresholds = _named(
    _thresholds_rate("false_negative_rate_at_thresholds", "fn", "tp"),
    "streaming_false_negative_rate_at_thresholds", "``fn / (fn + tp + 1e-7)`` per threshold.")


@_export("count")
def count(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) number of values seen: ``(count, update_op)``."""
    from dflow.ops.state.variables import assign_add

    with variable_scope(name, "count", (values, weights)):
        count_ = metric_variable([], dtypes.float32, name="count")
        values = math_ops.cast(convert_to_tensor(values), dtypes.float32)
        if weights is None:
            num_values = math_ops.cast(_size(values), dtypes.float32)
        else:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), values)
            num_values = reduction_ops.reduce_sum(weights)
        with control_dependencies([values]):
            update_count_op = assign_add(count_, num_values)
        value = _identity(count_)
        _add_to(metrics_collections, value)
        _add_to(updates_collections, update_count_op)
        return value, update_count_op


def _size(t):
    from dflow.ops.array.shape_ops import size

    return size(t)


def _identity(t):
    from dflow.ops.control_flow.control_flow_ops import identity

    return identity(t)


@_export("streaming_covariance")
def streaming_covariance(predictions, labels, weights=None, metrics_collections=None, updates_collections=None,
                         name=None):
    """The unbiased (weighted) covariance of ``predictions`` and ``labels``, updated batch by batch with the
    co-moment ``C_AB = C_A + C_B + (mean_xA - mean_xB)(mean_yA - mean_yB) n_A n_B / n_AB``; NaN until more
    than one value (weight) was seen."""
    from dflow.ops.array.select_ops import where
    from dflow.ops.state.variables import assign_add

    with variable_scope(name, "covariance", (predictions, labels, weights)):
        predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
        labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
        predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
        predictions.shape.assert_is_compatible_with(labels.shape)
        count_ = metric_variable([], dtypes.float32, name="count")
        mean_prediction = metric_variable([], dtypes.float32, name="mean_prediction")
        mean_label = metric_variable([], dtypes.float32, name="mean_label")
        comoment = metric_variable([], dtypes.float32, name="comoment")
        if weights is None:
            batch_count = math_ops.cast(_size(labels), dtypes.float32)
            weighted_predictions, weighted_labels = predictions, labels
        else:
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), labels)
            batch_count = reduction_ops.reduce_sum(weights)
            weighted_predictions = math_ops.multiply(predictions, weights)
            weighted_labels = math_ops.multiply(labels, weights)
        update_count = assign_add(count_, batch_count)
        prev_count = update_count - batch_count
        batch_mean_prediction = math_ops.div_no_nan(reduction_ops.reduce_sum(weighted_predictions), batch_count)
        delta_mean_prediction = math_ops.div_no_nan((batch_mean_prediction - mean_prediction) * batch_count,
                                                    update_count)
        update_mean_prediction = assign_add(mean_prediction, delta_mean_prediction)
        prev_mean_prediction = update_mean_prediction - delta_mean_prediction
        batch_mean_label = math_ops.div_no_nan(reduction_ops.reduce_sum(weighted_labels), batch_count)
        delta_mean_label = math_ops.div_no_nan((batch_mean_label - mean_label) * batch_count, update_count)
        update_mean_label = assign_add(mean_label, delta_mean_label)
        prev_mean_label = update_mean_label - delta_mean_label
        coresiduals = (predictions - batch_mean_prediction) * (labels - batch_mean_label)
        if weights is None:
            batch_comoment = reduction_ops.reduce_sum(coresiduals)
        else:
            batch_comoment = reduction_ops.reduce_sum(coresiduals * weights)
        delta_comoment = batch_comoment + (prev_mean_prediction - batch_mean_prediction) * (
            prev_mean_label - batch_mean_label) * (prev_count * batch_count / update_count)
        update_comoment = assign_add(comoment, delta_comoment)
        nan = convert_to_tensor(float("nan"), dtype=dtypes.float32)
        covariance = where(math_ops.less_equal(count_, 1.0), nan, math_ops.truediv(comoment, count_ - 1),
                           name="covariance")
        with control_dependencies([update_comoment]):
            update_op = where(math_ops.less_equal(count_, 1.0), nan, math_ops.truediv(comoment, count_ - 1),
                              name="update_op")
        _add_to(metrics_collections, covariance)
        _add_to(updates_collections, update_op)
        return covariance, update_op


@_export("streaming_pearson_correlation")
def streaming_pearson_correlation(predictions, labels, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    """Pearson's r from three ``streaming_covariance``: ``cov(p, l) / sqrt(var(p) var(l))`` (scope
    ``pearson_r``)."""
    from dflow.ops.math.unary_math_ops import sqrt

    with variable_scope(name, "pearson_r", (predictions, labels, weights)):
        predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
        labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
        predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
        predictions.shape.assert_is_compatible_with(labels.shape)
        if weights is not None:
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), labels)
        cov, update_cov = streaming_covariance(predictions, labels, weights=weights, name="covariance")
        var_predictions, update_var_predictions = streaming_covariance(predictions, predictions, weights=weights,
                                                                       name="variance_predictions")
        var_labels, update_var_labels = streaming_covariance(labels, labels, weights=weights,
                                                             name="variance_labels")
        pearson_r = math_ops.truediv(cov, math_ops.multiply(sqrt(var_predictions), sqrt(var_labels)),
                                     name="pearson_r")
        update_op = math_ops.truediv(update_cov, math_ops.multiply(sqrt(update_var_predictions),
                                                                   sqrt(update_var_labels)), name="update_op")
        _add_to(metrics_collections, pearson_r)
        _add_to(updates_collections, update_op)
        return pearson_r, update_op


@_export("streaming_concat")
def streaming_concat(values, axis=0, max_size=None, metrics_collections=None, updates_collections=None, name=None):
    """The values seen so far concatenated along ``axis`` (the first ``max_size`` of them when given)."""
    from dflow.ops.array.array_ops import concat, transpose
    from dflow.ops.array.shape_ops import shape
    from dflow.ops.array.slicing_ops import slice as slice_op
    from dflow.ops.state.variables import assign

    with variable_scope(name, "streaming_concat", (values,)):
        values = convert_to_tensor(values)
        values_shape = values.shape
        if values_shape.ndims is None:
            raise ValueError("`values` must have known statically known rank")
        ndim = values_shape.ndims
        if axis < 0:
            axis += ndim
        if not 0 <= axis < ndim:
            raise ValueError(f"axis = {axis!r} not in [0, {ndim!r})")
        dims = values_shape.as_list()
        fixed_shape = [d for n, d in enumerate(dims) if n != axis]
        if any(d is None for d in fixed_shape):
            raise ValueError("all dimensions of `values` other than the dimension to concatenate along must have "
                             "statically known size")
        array = metric_variable([0] + fixed_shape, values.dtype.base_dtype, validate_shape=False, name="array")
        perm_in = [axis] + [n for n in range(ndim) if n != axis]
        perm_out = [0 if n == axis else n + 1 if n < axis else n for n in range(ndim)]
        batch_values = transpose(values, perm_in)
        stacked = concat([array, batch_values], 0)
        if max_size is not None:
            stacked = slice_op(stacked, [0] * ndim, [math_ops.minimum(shape(stacked)[0], max_size)] + [-1] * (ndim - 1))
        update = assign(array, stacked, validate_shape=False)
        valid = _identity(array)
        valid.set_shape([None] + fixed_shape)
        value = transpose(valid, perm_out, name="concat")
        with control_dependencies([update]):
            updated = _identity(array)
        updated.set_shape([None] + fixed_shape)
        update_op = transpose(updated, perm_out, name="update_op")
        _add_to(metrics_collections, value)
        _add_to(updates_collections, update_op)
        return value, update_op


# -- aggregation and the non-streaming helpers -------------------------------------------------------


@_export("aggregate_metrics")
def aggregate_metrics(*value_update_tuples):
    """``([value, ...], [update_op, ...])`` from ``(value, update_op)`` pairs."""
    if not value_update_tuples:
        raise ValueError("Expected at least one value_tensor/update_op pair")
    value_ops, update_ops = zip(*value_update_tuples)
    return list(value_ops), list(update_ops)


@_export("aggregate_metric_map")
def aggregate_metric_map(names_to_tuples):
    """``({name: value}, {name: update_op})`` from ``{name: (value, update_op)}``."""
    metric_names = names_to_tuples.keys()
    value_ops, update_ops = zip(*names_to_tuples.values())
    return dict(zip(metric_names, value_ops)), dict(zip(metric_names, update_ops))


@_export("accuracy")
def accuracy(predictions, labels, weights=None, name=None):
    """The fraction of ``predictions`` equal to ``labels`` in this batch (weighted when ``weights`` given)."""
    from dflow.ops.array.creation_ops import ones_like

    if not (labels.dtype.is_integer or labels.dtype in (dtypes.bool, dtypes.string)):
        raise ValueError(f"Labels should have bool, integer, or string dtype, not {labels.dtype}")
    if not labels.dtype.is_compatible_with(predictions.dtype):
        raise ValueError(f"Dtypes of predictions and labels should match. Given: predictions ({predictions.dtype}) "
                         f"and labels ({labels.dtype})")
    with name_scope(name, "accuracy", values=[predictions, labels]):
        is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            is_correct = math_ops.multiply(is_correct, weights)
            num_values = math_ops.multiply(weights, ones_like(is_correct))
            return math_ops.div(reduction_ops.reduce_sum(is_correct), reduction_ops.reduce_sum(num_values))
        return reduction_ops.reduce_mean(is_correct)


@_export("f1_score")
def f1_score(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
             updates_collections=None, name=None):
    """The best F1 score over ``num_thresholds`` thresholds in ``[0, 1]`` (scope ``f1``): ``(f1, update_op)``."""
    with variable_scope(name, "f1", (labels, predictions, weights)):
        epsilon = 1e-7
        thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        thresholds = [0.0 - epsilon] + thresholds + [1.0 + epsilon]
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights,
                                                             includes=("tp", "fp", "fn"))

        def best_f1(tp, fp, fn, op_name):
            precision_at_t = math_ops.div(tp, epsilon + tp + fp, name="precision_" + op_name)
            recall_at_t = math_ops.div(tp, epsilon + tp + fn, name="recall_" + op_name)
            f1_at_thresholds = 2.0 * precision_at_t * recall_at_t / (precision_at_t + recall_at_t + epsilon)
            return reduction_ops.reduce_max(f1_at_thresholds)

        value = best_f1(values["tp"], values["fp"], values["fn"], "value")
        update_op = best_f1(update_ops["tp"], update_ops["fp"], update_ops["fn"], "update")
        _add_to(metrics_collections, value)
        _add_to(updates_collections, update_op)
        return value, update_op


_NOT_PROVIDED = (
    "auc_using_histogram", "auc_with_confidence_intervals", "cohen_kappa", "precision_recall_at_equal_thresholds",
    "recall_at_precision", "precision_at_recall", "set_difference", "set_intersection", "set_size", "set_union",
    "streaming_curve_points", "streaming_dynamic_auc", "streaming_sparse_average_precision_at_top_k",
    "streaming_sparse_recall_at_top_k",
)


def _not_provided(metric_name):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"tf.contrib.metrics.{metric_name} is not implemented in dflow")

    fn.__name__ = fn.__qualname__ = metric_name
    fn.__doc__ = "Not provided by dflow: raises ``NotImplementedError``."
    return _export(metric_name)(fn)


for _name in _NOT_PROVIDED:
    _not_provided(_name)
del _name

_export("confusion_matrix")(confusion_matrix)
