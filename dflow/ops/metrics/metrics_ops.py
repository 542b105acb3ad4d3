"""``tf.metrics``: streaming evaluation metrics, as TF1's ``metrics_impl``.

Each metric returns ``(value, update_op)``. It keeps its running sums in
LOCAL variables (collections ``LOCAL_VARIABLES`` and ``METRIC_VARIABLES``,
so ``tf.local_variables_initializer()`` resets them) created under a
variable scope named after the metric: ``accuracy/total``,
``accuracy/count``, ``auc/true_positives``, ``precision/true_positives/count``.
``update_op`` adds one batch to the sums and returns the metric over
everything seen so far; ``value`` reads the sums without changing them.
Before any update every metric is 0 (divisions are ``div_no_nan``).

The graph follows TF1's: ``accuracy`` is ``mean`` of ``equal``, ``precision``
and ``recall`` are built from ``true_positives``/``false_*`` counters, ``auc``
accumulates a confusion matrix at ``num_thresholds`` thresholds and
integrates it with TF1's trapezoidal (or careful-interpolation, minoring,
majoring) rule. Three internal ops carry what TF1 builds from asserts and
tiling: ``_MetricWeights`` (TF1's ``broadcast_weights`` with its rank and
shape checks), ``_ConfusionAtThresholds`` and ``_AucFromConfusion``.

Labels and predictions of unknown rank are used as given: TF1's dynamic
squeeze of a trailing dimension of size 1 happens only where ranks are
known when the graph is built.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import GraphKeys, Tensor, control_dependencies, get_default_graph, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.array import array_ops
from dflow.ops.array.select_ops import where
from dflow.ops.control_flow.control_flow_ops import identity
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.state.variable_scope import variable_scope
from dflow.ops.state.variables import Variable, assign_add

# -- helpers ------------------------------------------------------------------------------


def metric_variable(shape, dtype, validate_shape=True, name=None) -> Variable:
    """A zero-initialized, non-trainable variable in LOCAL_VARIABLES and METRIC_VARIABLES."""
    from dflow.ops.array.creation_ops import zeros

    return Variable(lambda: zeros(shape, dtype), trainable=False,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
                    validate_shape=validate_shape, name=name)


def _check_collections(collections, what: str) -> None:
    if collections is not None and not isinstance(collections, (str, list, tuple)):
        # TF1 fails iterating them when it adds the metric: TypeError "'int' object is not iterable"
        raise TypeError(f"{what} should be a list or tuple of collection names, got {collections!r}: "
                        f"'{type(collections).__name__}' object is not iterable")


def _add_to(collections, value) -> None:
    if collections:
        get_default_graph().add_to_collections(collections, value)


def _squeeze_last(t: Tensor) -> Tensor:
    return array_ops.squeeze(t, [-1])


def _remove_squeezable_dimensions(predictions, labels, weights):
    """TF1's rule: squeeze a trailing size-1 dimension of ``predictions`` or ``labels``
    where their ranks differ by one; squeeze or expand ``weights`` to the rank of
    ``predictions`` where they differ by one (scalar weights stay scalar)."""
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels = convert_to_tensor(labels)
        p_rank, l_rank = predictions.shape.ndims, labels.shape.ndims
        if p_rank is not None and l_rank is not None:
            diff = p_rank - l_rank
            if diff == 1 and predictions.shape[-1].is_compatible_with(1):
                predictions = _squeeze_last(predictions)
            elif diff == -1 and labels.shape[-1].is_compatible_with(1):
                labels = _squeeze_last(labels)
        predictions.shape.assert_is_compatible_with(labels.shape)
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    w_rank, p_rank = weights.shape.ndims, predictions.shape.ndims
    if w_rank == 0:
        return predictions, labels, weights
    if w_rank is not None and p_rank is not None:
        if w_rank - p_rank == 1:
            weights = _squeeze_last(weights)
        elif p_rank - w_rank == 1:
            weights = array_ops.expand_dims(weights, [-1])
    return predictions, labels, weights


# -- _MetricWeights: TF1's weights_broadcast_ops.broadcast_weights -------------------------

_BROADCAST_ERROR = "weights can not be broadcast to values."


def _static_broadcast_check(weights_shape: TensorShape, values_shape: TensorShape) -> None:
    w_rank, v_rank = weights_shape.ndims, values_shape.ndims
    if w_rank is None or v_rank is None or w_rank == 0:
        return
    if w_rank != v_rank:
        raise ValueError(f"{_BROADCAST_ERROR} values.rank={v_rank}. weights.rank={w_rank}. "
                         f"values.shape={values_shape}. weights.shape={weights_shape}.")
    for i, (w, v) in enumerate(zip(weights_shape.as_list(), values_shape.as_list())):
        if w is not None and v is not None and w not in (1, v):
            raise ValueError(f"{_BROADCAST_ERROR} Mismatch at dim {i}. values.shape={values_shape}, "
                             f"weights.shape={weights_shape}.")


def _metric_weights_infer(op):
    weights, values = op._inputs
    _static_broadcast_check(weights.shape, values.shape)
    return [(weights.dtype, values.shape)]


def _metric_weights_kernel(weights, values):
    w_shape, v_shape = np.shape(weights), np.shape(values)
    ok = len(w_shape) == 0 or (len(w_shape) == len(v_shape) and all(w in (1, v) for w, v in zip(w_shape, v_shape)))
    if not ok:
        raise errors.InvalidArgumentError(
            None, None, f"assertion failed: [{_BROADCAST_ERROR}] [weights.shape=] {list(w_shape)} [values.shape=] "
                        f"{list(v_shape)} [is_scalar=] [{int(len(w_shape) == 0)}]")
    return np.broadcast_to(weights, v_shape).copy()


register("_MetricWeights", infer=_metric_weights_infer, kernel=_metric_weights_kernel)
not_differentiable("_MetricWeights")


def broadcast_weights(weights, values) -> Tensor:
    """``weights`` (float, rank 0 or the rank of ``values``, each dimension 1 or equal)
    broadcast to the shape of ``values``; ValueError at graph time, InvalidArgumentError
    at run time when they cannot be, as TF1."""
    with name_scope(None, "broadcast_weights", [weights, values]) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, dtype=values.dtype, name="weights")
        return apply_op("_MetricWeights", [weights, values], name=scope).outputs[0]


# -- mean and the metrics built on it --------------------------------------------------------


@tf_export("metrics.mean")
def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of ``values`` over all batches: ``(mean, update_op)``.

    Creates ``<name>/total`` and ``<name>/count``. ``weights`` must be scalar or
    broadcastable to ``values`` (each dimension 1 or equal); a weight of 0 masks
    a value.

    >>> import dflow as tf
    >>> m, update = tf.metrics.mean(tf.constant([1.0, 2.0, 6.0]))
    >>> with tf.Session() as s:
    ...     s.run(tf.local_variables_initializer())
    ...     print(s.run(m), s.run(update), s.run(m))
    0.0 3.0 3.0
    """
    _check_collections(metrics_collections, "metrics_collections")
    _check_collections(updates_collections, "updates_collections")
    with variable_scope(name, "mean", [values, weights]):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = math_ops.cast(array_ops.size(values), dtypes.float32)
        else:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = reduction_ops.reduce_sum(weights)
        update_total_op = assign_add(total, reduction_ops.reduce_sum(values))
        # TF1 orders the count update after ``values``; a fed placeholder needs no ordering
        # (and dflow's planner would otherwise ask for the placeholder op itself).
        deps = [] if values.op.type == "Placeholder" else [values]
        with control_dependencies(deps):
            update_count_op = assign_add(count, num_values)
        mean_t = math_ops.div_no_nan(total, math_ops.maximum(count, 0.0), name="value")
        _add_to(metrics_collections, mean_t)
        update_op = math_ops.div_no_nan(update_total_op, math_ops.maximum(update_count_op, 0.0), name="update_op")
        _add_to(updates_collections, update_op)
        return mean_t, update_op


@tf_export("metrics.accuracy")
def accuracy(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """How often ``predictions`` equals ``labels``: ``(accuracy, update_op)``.

    ``predictions`` is cast to the dtype of ``labels``; variables are
    ``accuracy/total`` and ``accuracy/count``.

    >>> import dflow as tf
    >>> acc, update = tf.metrics.accuracy([1, 2, 3, 4], [1, 2, 0, 4])
    >>> with tf.Session() as s:
    ...     s.run(tf.local_variables_initializer())
    ...     print(s.run(update))
    0.75
    """
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    predictions.shape.assert_is_compatible_with(labels.shape)
    if labels.dtype is not predictions.dtype:
        predictions = math_ops.cast(predictions, labels.dtype)
    is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


@tf_export("metrics.mean_squared_error")
def mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                       name=None):
    """The (weighted) mean of ``(labels - predictions)²``: ``(mse, update_op)``.

    ``labels`` and ``predictions`` must have one dtype (TypeError otherwise, as TF1).
    """
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    squared_error = math_ops.squared_difference(labels, predictions)
    return mean(squared_error, weights, metrics_collections, updates_collections, name or "mean_squared_error")


@tf_export("metrics.root_mean_squared_error")
def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                            name=None):
    """The square root of ``mean_squared_error``: ``(rmse, update_op)``."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    mse, update_mse_op = mean_squared_error(labels, predictions, weights, None, None,
                                            name or "root_mean_squared_error")
    rmse = math_ops.sqrt(mse)
    _add_to(metrics_collections, rmse)
    update_rmse_op = math_ops.sqrt(update_mse_op)
    _add_to(updates_collections, update_rmse_op)
    return rmse, update_rmse_op


@tf_export("metrics.mean_absolute_error")
def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                        name=None):
    """The (weighted) mean of ``|predictions - labels|``: ``(mae, update_op)``."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    absolute_errors = math_ops.abs(predictions - labels)
    return mean(absolute_errors, weights, metrics_collections, updates_collections, name or "mean_absolute_error")


# -- counts: true/false positives/negatives, precision, recall --------------------------------


def _count_condition(values, weights, metrics_collections, updates_collections):
    """Sums the weights where the bool ``values`` are true, into ``<scope>/count``."""
    if values.dtype is not dtypes.bool:
        raise ValueError(f"values must be bool, got {values.dtype.name}")
    count = metric_variable([], dtypes.float32, name="count")
    values = math_ops.cast(values, dtypes.float32)
    if weights is not None:
        weights = convert_to_tensor(weights)
        w_rank, v_rank = weights.shape.ndims, values.shape.ndims
        if w_rank is not None and v_rank is not None and w_rank not in (0, v_rank):
            raise ValueError(f"weights must have rank in (0, {v_rank}) (the rank of the values), got rank {w_rank} "
                             f"(shape {weights.shape})")
        weights = math_ops.cast(weights, dtypes.float32)
        values = math_ops.multiply(values, weights)
    value_tensor = identity(count)
    _add_to(metrics_collections, value_tensor)
    update_op = assign_add(count, reduction_ops.reduce_sum(values))
    _add_to(updates_collections, update_op)
    return value_tensor, update_op


def _bool_inputs(labels, predictions, weights):
    return _remove_squeezable_dimensions(math_ops.cast(predictions, dtypes.bool),
                                         math_ops.cast(labels, dtypes.bool), weights)


def _count_metric(default_name: str, label_is: bool, prediction_is: bool, doc: str):
    def fn(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
        _check_collections(metrics_collections, "metrics_collections")
        _check_collections(updates_collections, "updates_collections")
        with variable_scope(name, default_name, [predictions, labels, weights]):
            predictions, labels, weights = _bool_inputs(labels, predictions, weights)
            condition = math_ops.logical_and(math_ops.equal(labels, label_is),
                                             math_ops.equal(predictions, prediction_is))
            return _count_condition(condition, weights, metrics_collections, updates_collections)

    fn.__name__ = default_name
    fn.__doc__ = doc
    return tf_export(f"metrics.{default_name}")(fn)


true_positives = _count_metric(
    "true_positives", True, True,
    "The (weighted) number of true positives (labels and predictions cast to bool): ``(count, update_op)``.")
false_positives = _count_metric(
    "false_positives", False, True,
    "The (weighted) number of false positives (labels and predictions cast to bool): ``(count, update_op)``.")
false_negatives = _count_metric(
    "false_negatives", True, False,
    "The (weighted) number of false negatives (labels and predictions cast to bool): ``(count, update_op)``.")
true_negatives = _count_metric(
    "true_negatives", False, False,
    "The (weighted) number of true negatives (labels and predictions cast to bool): ``(count, update_op)``.")


def _ratio_metric(default_name: str, other, doc: str):
    def fn(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
        _check_collections(metrics_collections, "metrics_collections")
        _check_collections(updates_collections, "updates_collections")
        with variable_scope(name, default_name, [predictions, labels, weights]):
            predictions, labels, weights = _bool_inputs(labels, predictions, weights)
            tp, tp_update = true_positives(labels, predictions, weights)
            other_v, other_update = other(labels, predictions, weights)

            def ratio(a, b, op_name):
                total = a + b
                return where(math_ops.greater(total, 0.0), math_ops.div_no_nan(a, total),
                                       constant(0.0), name=op_name)

            value = ratio(tp, other_v, "value")
            _add_to(metrics_collections, value)
            update_op = ratio(tp_update, other_update, "update_op")
            _add_to(updates_collections, update_op)
            return value, update_op

    fn.__name__ = default_name
    fn.__doc__ = doc
    return tf_export(f"metrics.{default_name}")(fn)


precision = _ratio_metric(
    "precision", false_positives,
    """``tp / (tp + fp)`` over all batches (0 while nothing was predicted positive): ``(precision, update_op)``.

    Labels and predictions are cast to bool; variables are
    ``precision/true_positives/count`` and ``precision/false_positives/count``.
    """)
recall = _ratio_metric(
    "recall", false_negatives,
    """``tp / (tp + fn)`` over all batches (0 while no label was positive): ``(recall, update_op)``.

    Labels and predictions are cast to bool; variables are
    ``recall/true_positives/count`` and ``recall/false_negatives/count``.
    """)


# -- auc ----------------------------------------------------------------------------------------


def _checked_predictions_infer(op):
    p = op._inputs[0]
    if not (p.dtype.is_floating or p.dtype.is_integer):
        raise TypeError(f"predictions must be a real tensor, got {p.dtype.name}")
    return [(dtypes.float32, p.shape)]


def _checked_predictions_kernel(predictions):
    p = np.asarray(predictions)
    if p.size and not ((p >= 0).all() and (p <= 1).all()):
        bad = p[~((p >= 0) & (p <= 1))].ravel()[0]
        raise errors.InvalidArgumentError(None, None, f"predictions must be in [0, 1]; got a prediction of {bad}")
    return p.astype(np.float32)


register("_CheckedPredictions", infer=_checked_predictions_infer, kernel=_checked_predictions_kernel)
not_differentiable("_CheckedPredictions")


def _confusion_infer(op):
    n = len(op._attrs["thresholds"])
    return [(dtypes.float32, TensorShape([n]))] * 4


def _confusion_kernel(predictions, labels, *weights, thresholds):
    p = np.asarray(predictions, np.float32).reshape(1, -1)
    pos = np.asarray(labels, bool).reshape(1, -1)
    if p.shape != pos.shape:
        raise errors.InvalidArgumentError(None, None, f"predictions and labels must have one shape: "
                                                      f"{list(np.shape(predictions))} vs {list(np.shape(labels))}")
    t = np.asarray(thresholds, np.float32).reshape(-1, 1)
    pred_pos = p > t
    w = np.asarray(weights[0], np.float32).reshape(1, -1) if weights else np.float32(1)

    def total(mask):
        return (mask.astype(np.float32) * w).sum(axis=1, dtype=np.float32)

    return total(pos & pred_pos), total(pos & ~pred_pos), total(~pos & ~pred_pos), total(~pos & pred_pos)


register("_ConfusionAtThresholds", infer=_confusion_infer, kernel=_confusion_kernel)
not_differentiable("_ConfusionAtThresholds")


_SUMMATION_METHODS = ("trapezoidal", "careful_interpolation", "minoring", "majoring")


def _auc_infer(op):
    return [(dtypes.float32, TensorShape([]))]


def _auc_kernel(tp, fn, tn, fp, curve, summation_method):
    f32 = np.float32
    eps = f32(1e-6)
    with np.errstate(divide="ignore", invalid="ignore"):
        if curve == "PR" and summation_method == "careful_interpolation":
            def div_no_nan(a, b):
                return np.where(b == 0, f32(0), a / np.where(b == 0, f32(1), b)).astype(f32)

            dtp = tp[:-1] - tp[1:]
            p = tp + fp
            prec_slope = div_no_nan(dtp, np.maximum(p[:-1] - p[1:], f32(0)))
            intercept = tp[1:] - prec_slope * p[1:]
            safe_p_ratio = np.where((p[:-1] > 0) & (p[1:] > 0), div_no_nan(p[:-1], np.maximum(p[1:], f32(0))),
                                    f32(1)).astype(f32)
            inc = div_no_nan(prec_slope * (dtp + intercept * np.log(safe_p_ratio)),
                             np.maximum(tp[1:] + fn[1:], f32(0)))
            return f32(inc.sum(dtype=f32))
        rec = (tp + eps) / (tp + fn + eps)
        if curve == "ROC":
            x, y = fp / (fp + tn + eps), rec
        else:
            x, y = rec, (tp + eps) / (tp + fp + eps)
        dx = x[:-1] - x[1:]
        if summation_method == "minoring":
            h = np.minimum(y[:-1], y[1:])
        elif summation_method == "majoring":
            h = np.maximum(y[:-1], y[1:])
        else:
            h = (y[:-1] + y[1:]) / f32(2)
        return f32((dx * h).astype(f32).sum(dtype=f32))


register("_AucFromConfusion", infer=_auc_infer, kernel=_auc_kernel)
not_differentiable("_AucFromConfusion")


def _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights=None, includes=None):
    """Variables ``true_positives``, ``false_negatives``, ``true_negatives`` and
    ``false_positives`` of shape ``[len(thresholds)]`` and their update ops
    (prediction ``> threshold`` counts as positive), as dicts keyed tp/fn/tn/fp;
    ``includes`` (keys from those four) creates only some of them, as TF1."""
    all_includes = ("tp", "fn", "tn", "fp")
    includes = all_includes if includes is None else includes
    for key in includes:
        if key not in all_includes:
            raise ValueError(f"Invalid key: {key}")
    predictions = convert_to_tensor(predictions)
    checked = apply_op("_CheckedPredictions", [predictions], name="assert_in_range").outputs[0]
    predictions, labels, weights = _remove_squeezable_dimensions(
        checked, math_ops.cast(labels, dtypes.bool), weights)
    inputs = [predictions, labels]
    if weights is not None:
        inputs.append(broadcast_weights(math_ops.cast(weights, dtypes.float32), predictions))
    counts = apply_op("_ConfusionAtThresholds", inputs, {"thresholds": tuple(float(t) for t in thresholds)},
                      name="confusion_at_thresholds").outputs
    values, updates = {}, {}
    for key, var_name, batch in zip(("tp", "fn", "tn", "fp"),
                                    ("true_positives", "false_negatives", "true_negatives", "false_positives"),
                                    counts):
        if key not in includes:
            continue
        var = metric_variable([len(thresholds)], dtypes.float32, name=var_name)
        values[key] = var
        updates[key] = assign_add(var, batch)
    return values, updates


@tf_export("metrics.auc")
def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None, updates_collections=None,
        curve="ROC", name=None, summation_method="trapezoidal", thresholds=None):
    """Area under the ROC or PR curve, approximated as TF1 does: ``(auc, update_op)``.

    ``predictions`` must lie in [0, 1] (InvalidArgumentError otherwise, when it
    runs). The curve is sampled at ``num_thresholds`` thresholds: ``-1e-7``,
    ``i / (num_thresholds - 1)`` for ``i = 1 .. num_thresholds - 2``, and
    ``1 + 1e-7`` (or the sorted ``thresholds`` between those two endpoints),
    a prediction above a threshold counting as positive; the confusion counts
    live in ``auc/true_positives``, ``auc/false_negatives``,
    ``auc/true_negatives`` and ``auc/false_positives``. ``summation_method``
    is ``'trapezoidal'`` (TF1's default), ``'careful_interpolation'``,
    ``'minoring'`` or ``'majoring'``.

    >>> import dflow as tf
    >>> a, update = tf.metrics.auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> with tf.Session() as s:
    ...     s.run(tf.local_variables_initializer())
    ...     print(round(float(s.run(update)), 4))
    0.75
    """
    _check_collections(metrics_collections, "metrics_collections")
    _check_collections(updates_collections, "updates_collections")
    with variable_scope(name, "auc", [labels, predictions, weights]):
        if curve != "ROC" and curve != "PR":
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        if summation_method not in _SUMMATION_METHODS:
            raise ValueError(f"Invalid summation_method: {summation_method} summation_method should be "
                             f"'trapezoidal', 'careful_interpolation', 'minoring', or 'majoring'.")
        kepsilon = 1e-7
        if thresholds is not None:
            thresholds = sorted(thresholds)
        else:
            if num_thresholds < 2:
                raise ValueError(f"num_thresholds must be at least 2, got {num_thresholds}")
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        thresholds = [0.0 - kepsilon] + list(thresholds) + [1.0 + kepsilon]
        values, updates = _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights)
        attrs = {"curve": curve, "summation_method": summation_method}

        def compute(d, op_name):
            counts = [convert_to_tensor(d[k]) for k in ("tp", "fn", "tn", "fp")]
            return apply_op("_AucFromConfusion", counts, attrs, name=op_name).outputs[0]

        auc_value = compute(values, "value")
        _add_to(metrics_collections, auc_value)
        update_op = compute(updates, "update_op")
        _add_to(updates_collections, update_op)
        return auc_value, update_op
