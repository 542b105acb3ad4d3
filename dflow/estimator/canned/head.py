"""The heads of TF1's canned estimators: loss, predictions and metrics from logits.

A head turns the ``[batch, logits_dimension]`` output of a model into an
``EstimatorSpec``, as TF1's ``tensorflow_estimator/.../canned/head.py`` (v1)
does:

* ``_MultiClassHead`` (``n_classes > 2``): softmax cross-entropy.
  Predictions ``logits``, ``probabilities``, ``class_ids`` (int64
  ``[batch, 1]``), ``classes`` (bytes ``[batch, 1]``: ``b'2'`` or the
  vocabulary entry), ``all_class_ids``, ``all_classes``; metrics
  ``average_loss`` and ``accuracy``.
* ``_BinaryLogisticHead`` (``n_classes == 2``): sigmoid cross-entropy on one
  logit. Predictions add ``logistic``; metrics add ``precision``,
  ``recall``, ``prediction/mean``, ``label/mean``, ``accuracy_baseline``,
  ``auc`` and ``auc_precision_recall``.
* ``_RegressionHead``: squared error on ``label_dimension`` logits.
  Prediction ``predictions``; metrics ``average_loss``, ``prediction/mean``
  and ``label/mean``.

The Estimator adds ``loss`` (the mean of the spec's loss over the evaluated
batches) and ``global_step`` to what ``evaluate`` returns.

Labels are ``[batch]`` or ``[batch, label_dimension]``; with
``label_vocabulary`` they are strings, mapped to ids in vocabulary order. A
label outside ``[0, n_classes)`` (or a string not in the vocabulary) is an
``InvalidArgumentError`` when the step runs, as TF1's asserts make it.
``weight_column`` (a feature name or a ``numeric_column``) scales each
example's loss and its weight in every metric.

``loss_reduction`` is one of ``Reduction``'s values (TF1's
``tf.losses.Reduction`` strings): the canned v1 estimators default to
``SUM`` (the weighted sum over the batch); ``SUM_OVER_BATCH_SIZE`` divides
that by the number of loss elements. Training also records the summaries
``loss`` and (with ``SUM``) ``average_loss``.

PREDICT specs carry TF1's ``export_outputs`` (the signatures
``export_saved_model`` writes). Not implemented: custom
``loss_fn``/``inverse_link_fn``, ``thresholds`` for the binary head's
``*_at_threshold`` metrics.
"""

from __future__ import annotations

import collections

import numpy as np

from dflow.estimator.canned.head_checks import (
    _assert_range,
    _check_dense_labels_match_logits_and_reshape,
    _check_logits_final_dim,
    _get_weights_and_check_match_logits,
)
from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import GraphKeys, Tensor, get_default_graph, name_scope
from dflow.ops.array import array_ops, shape_ops
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.nn.losses_ops import Reduction

LossSpec = collections.namedtuple("LossSpec", ["training_loss", "unreduced_loss", "weights", "processed_labels"])

DEFAULT_SERVING_KEY = "serving_default"


class MetricKeys:
    """The metric names of TF1's canned heads (``metric_keys.MetricKeys``)."""

    LOSS = "loss"
    LOSS_MEAN = "average_loss"
    LOSS_REGULARIZATION = "regularization_loss"
    ACCURACY = "accuracy"
    PRECISION = "precision"
    RECALL = "recall"
    ACCURACY_BASELINE = "accuracy_baseline"
    AUC = "auc"
    AUC_PR = "auc_precision_recall"
    LABEL_MEAN = "label/mean"
    PREDICTION_MEAN = "prediction/mean"


class PredictionKeys:
    """The prediction keys of TF1's canned heads (``prediction_keys.PredictionKeys``)."""

    CLASSES = "classes"
    CLASS_IDS = "class_ids"
    ALL_CLASSES = "all_classes"
    ALL_CLASS_IDS = "all_class_ids"
    LOGISTIC = "logistic"
    LOGITS = "logits"
    PREDICTIONS = "predictions"
    PROBABILITIES = "probabilities"


def _summary_key(head_name, val):
    return f"{val}/{head_name}" if head_name else val


# -- tf.losses pieces --------------------------------------------------------------------------


def _num_present(losses: Tensor, weights) -> Tensor:
    """The number of elements of ``losses`` whose (broadcast) weight is not zero."""
    with name_scope(None, "num_present", [losses]):
        w = math_ops.cast(weights, dtypes.float32)
        present = math_ops.cast(math_ops.not_equal(w, 0.0), dtypes.float32)
        present = present * _ones_like(losses)
        return reduction_ops.reduce_sum(present)


def _ones_like(t: Tensor) -> Tensor:
    from dflow.ops.array.creation_ops import ones_like

    return ones_like(t)


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """TF1's ``tf.losses.compute_weighted_loss``: ``losses * weights`` reduced by ``reduction``,
    added to ``loss_collection``."""
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss", [losses]):
        losses = convert_to_tensor(losses)
        input_dtype = losses.dtype
        losses = math_ops.cast(losses, dtypes.float32)
        weights = math_ops.cast(convert_to_tensor(weights), dtypes.float32)
        weighted = math_ops.multiply(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = reduction_ops.reduce_sum(weighted)
            if reduction == Reduction.MEAN:
                loss = math_ops.div_no_nan(loss, reduction_ops.reduce_sum(_ones_like(losses) * weights),
                                           name="value")
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                loss = math_ops.div_no_nan(loss, _num_present(losses, weights), name="value")
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                count = math_ops.cast(shape_ops.size(losses), dtypes.float32)
                loss = math_ops.div_no_nan(loss, count, name="value")
        if input_dtype is not dtypes.float32:
            loss = math_ops.cast(loss, input_dtype)
        if loss_collection:
            get_default_graph().add_to_collection(loss_collection, loss)
        return loss


# -- helpers of the heads --------------------------------------------------------------------


def _vocabulary_lookup(labels: Tensor, vocabulary) -> Tensor:
    from dflow.ops.lookup.lookup_ops import vocabulary_lookup

    if labels.dtype is not dtypes.string:
        raise ValueError(f"Labels dtype should be string if there is a vocabulary. Instead got {labels.dtype}")
    return vocabulary_lookup(labels, tuple(vocabulary), default_value=-1, name="class_id_lookup")


def _class_strings(class_ids: Tensor, label_vocabulary) -> Tensor:
    from dflow.ops.array.gather_ops import gather
    from dflow.ops.strings.string_ops import as_string

    if label_vocabulary:
        with name_scope(None, "class_string_lookup", [class_ids]):
            table = constant([v.encode() if isinstance(v, str) else v for v in label_vocabulary], dtype=dtypes.string)
            return gather(table, class_ids)
    return as_string(class_ids, name="str_classes")


def _all_class_ids(logits: Tensor, n_classes: int) -> Tensor:
    from dflow.ops.array.creation_ops import range as tf_range
    from dflow.ops.array.tiling_ops import tile

    batch_size = shape_ops.shape(logits)[0]
    ids = shape_ops.expand_dims(tf_range(n_classes), 0)
    return tile(ids, array_ops.stack([batch_size, 1]))


def _all_classes(logits: Tensor, n_classes: int, label_vocabulary=None) -> Tensor:
    from dflow.ops.array.creation_ops import range as tf_range
    from dflow.ops.array.tiling_ops import tile
    from dflow.ops.strings.string_ops import as_string

    batch_size = shape_ops.shape(logits)[0]
    if label_vocabulary:
        classes = constant([v.encode() if isinstance(v, str) else v for v in label_vocabulary], dtype=dtypes.string)
    else:
        classes = as_string(tf_range(n_classes))
    return tile(shape_ops.expand_dims(classes, 0), array_ops.stack([batch_size, 1]))


def _indicator_labels_mean(labels, weights=None, name=None):
    from dflow.ops.metrics.metrics_ops import broadcast_weights, mean

    with name_scope(name, "labels_mean", [labels]):
        labels = math_ops.cast(labels, dtypes.float32, name="labels")
        if weights is not None:
            weights = broadcast_weights(weights, labels)
        return mean(labels, weights=weights, name=name)


def _predictions_mean(predictions, weights=None, name=None):
    from dflow.ops.metrics.metrics_ops import broadcast_weights, mean

    with name_scope(name, "predictions_mean", [predictions]):
        predictions = math_ops.cast(predictions, dtypes.float32, name="predictions")
        if weights is not None:
            weights = broadcast_weights(weights, predictions)
        return mean(predictions, weights=weights, name=name)


def _auc(labels, predictions, weights=None, curve="ROC", name=None):
    from dflow.ops.metrics.metrics_ops import auc, broadcast_weights

    with name_scope(name, "auc", [predictions, labels]):
        predictions = math_ops.cast(predictions, dtypes.float32, name="predictions")
        if weights is not None:
            weights = broadcast_weights(weights, predictions)
        return auc(labels=labels, predictions=predictions, weights=weights, curve=curve, name=name)


def _accuracy_baseline(labels_mean):
    with name_scope(None, "accuracy_baseline", list(labels_mean)):
        value, update_op = labels_mean
        return (math_ops.maximum(value, 1.0 - value, name="value"),
                math_ops.maximum(update_op, 1.0 - update_op, name="update_op"))


def _append_update_ops(train_op):
    """``train_op``, grouped with the ``UPDATE_OPS`` collection (batch norm's moving averages)."""
    from dflow.ops.control_flow.control_flow_ops import group

    update_ops = get_default_graph().get_collection(GraphKeys.UPDATE_OPS)
    if update_ops:
        return group(train_op, *update_ops)
    return train_op


def _validate_n_classes(n_classes):
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)):
        raise ValueError(f"n_classes must be an int, got {n_classes!r}")
    if n_classes <= 2:
        raise ValueError(f"n_classes must be > 2: {n_classes}.")
    return int(n_classes)


def _validate_loss_reduction(loss_reduction) -> None:
    if loss_reduction not in Reduction.all() or loss_reduction == Reduction.NONE:
        raise ValueError(f"Invalid loss_reduction: {loss_reduction}")


def _validate_label_vocabulary(label_vocabulary) -> None:
    if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
        raise ValueError(f"label_vocabulary should be a list or a tuple. Given type: {type(label_vocabulary)}")


# -- the heads -------------------------------------------------------------------------------


class _Head:
    """A head: ``create_loss`` and ``create_estimator_spec`` from logits (TF1's ``_Head``)."""

    _name = None
    _loss_reduction = Reduction.SUM

    @property
    def name(self):
        return self._name

    @property
    def logits_dimension(self) -> int:
        raise NotImplementedError

    def create_loss(self, features, mode, logits, labels) -> LossSpec:
        raise NotImplementedError

    def _predictions(self, logits: Tensor) -> tuple:
        """``(predictions dict, values the metrics need)``, built under ``<head>/predictions``."""
        raise NotImplementedError

    def _eval_metric_ops(self, **kwargs) -> dict:
        raise NotImplementedError

    def _metric_inputs(self, predictions, extra, loss_spec) -> dict:
        raise NotImplementedError

    def _export_outputs(self, predictions: dict) -> dict:
        """The signatures TF1's heads export: ``serving_default``, ``classification`` or ``regression``,
        ``predict`` (all the predictions)."""
        from dflow.estimator import export

        keys = PredictionKeys
        outputs = {"predict": export.PredictOutput(predictions)}
        if keys.PROBABILITIES in predictions:
            scores = predictions[keys.PROBABILITIES]
            n_classes = scores.shape.as_list()[-1]
            classes = _all_classes(scores, n_classes, getattr(self, "_label_vocabulary", None))
            outputs[DEFAULT_SERVING_KEY] = outputs["classification"] = export.ClassificationOutput(scores, classes)
            if keys.LOGISTIC in predictions:
                outputs["regression"] = export.RegressionOutput(predictions[keys.LOGISTIC])
        else:
            regression = export.RegressionOutput(predictions[keys.PREDICTIONS])
            outputs[DEFAULT_SERVING_KEY] = outputs["regression"] = regression
        return outputs

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None, train_op_fn=None,
                              regularization_losses=None):
        """The ``EstimatorSpec`` of ``mode``: predictions; plus loss and metrics (EVAL); plus
        ``train_op`` (TRAIN), from ``optimizer.minimize`` or ``train_op_fn(loss)``."""
        from dflow.estimator.model_fn import EstimatorSpec, ModeKeys
        from dflow.ops.math.math_ops import add_n
        from dflow.summary.summary_ops import scalar
        from dflow.train.training_util import get_global_step

        with name_scope(self._name, "head"):
            logits = _check_logits_final_dim(logits, self.logits_dimension)
            predictions, extra = self._predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(mode=ModeKeys.PREDICT, predictions=predictions,
                                     export_outputs=self._export_outputs(predictions))
            loss_spec = self.create_loss(features=features, mode=mode, logits=logits, labels=labels)
            if regularization_losses:
                regularization_loss = add_n(list(regularization_losses))
                regularized_training_loss = add_n([loss_spec.training_loss, regularization_loss])
            else:
                regularization_loss = None
                regularized_training_loss = loss_spec.training_loss
            if mode == ModeKeys.EVAL:
                kwargs = self._metric_inputs(predictions, extra, loss_spec)
                kwargs["regularization_loss"] = regularization_loss
                return EstimatorSpec(mode=ModeKeys.EVAL, predictions=predictions, loss=regularized_training_loss,
                                     eval_metric_ops=self._eval_metric_ops(**kwargs))
            if optimizer is not None:
                if train_op_fn is not None:
                    raise ValueError("train_op_fn and optimizer cannot both be set.")
                train_op = optimizer.minimize(regularized_training_loss, global_step=get_global_step())
            elif train_op_fn is not None:
                train_op = train_op_fn(regularized_training_loss)
            else:
                raise ValueError("train_op_fn and optimizer cannot both be None.")
            train_op = _append_update_ops(train_op)
            if self._loss_reduction == Reduction.SUM:
                example_weight_sum = reduction_ops.reduce_sum(
                    loss_spec.weights * _ones_like(loss_spec.unreduced_loss))
                mean_loss = loss_spec.training_loss / example_weight_sum
            else:
                mean_loss = None
        with name_scope(""):
            scalar(_summary_key(self._name, MetricKeys.LOSS), regularized_training_loss)
            if mean_loss is not None:
                scalar(_summary_key(self._name, MetricKeys.LOSS_MEAN), mean_loss)
            if regularization_loss is not None:
                scalar(_summary_key(self._name, MetricKeys.LOSS_REGULARIZATION), regularization_loss)
        return EstimatorSpec(mode=ModeKeys.TRAIN, predictions=predictions, loss=regularized_training_loss,
                             train_op=train_op)

    def _regularization_metric(self, metric_ops: dict, regularization_loss) -> None:
        from dflow.ops.metrics.metrics_ops import mean

        if regularization_loss is not None:
            metric_ops[_summary_key(self._name, MetricKeys.LOSS_REGULARIZATION)] = mean(
                regularization_loss, name=MetricKeys.LOSS_REGULARIZATION)


class _MultiClassHead(_Head):
    """Softmax cross-entropy over ``n_classes > 2`` classes (TF1's
    ``_MultiClassHeadWithSoftmaxCrossEntropyLoss``)."""

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None, loss_reduction=Reduction.SUM,
                 name=None):
        if n_classes is None:
            raise ValueError("n_classes cannot be None")
        _validate_label_vocabulary(label_vocabulary)
        _validate_loss_reduction(loss_reduction)
        self._n_classes = _validate_n_classes(n_classes)
        if label_vocabulary is not None and len(label_vocabulary) != self._n_classes:
            raise ValueError(f"label_vocabulary has {len(label_vocabulary)} entries, n_classes is {n_classes}")
        self._weight_column = weight_column
        self._label_vocabulary = label_vocabulary
        self._loss_reduction = loss_reduction
        self._name = name

    @property
    def logits_dimension(self) -> int:
        return self._n_classes

    def _label_ids(self, labels: Tensor) -> Tensor:
        if self._label_vocabulary is None:
            if not labels.dtype.is_integer:
                raise ValueError(f"Labels dtype should be integer. Instead got {labels.dtype}.")
            label_ids = labels
        else:
            label_ids = _vocabulary_lookup(labels, self._label_vocabulary)
        return _assert_range(label_ids, self._n_classes)

    def create_loss(self, features, mode, logits, labels) -> LossSpec:
        from dflow.ops.nn.nn_losses import sparse_softmax_cross_entropy_with_logits

        logits = convert_to_tensor(logits)
        labels = _check_dense_labels_match_logits_and_reshape(labels, logits, 1)
        label_ids = self._label_ids(labels)
        with name_scope(None, "sparse_softmax_cross_entropy_loss", [logits, label_ids]):
            squeezed = shape_ops.squeeze(label_ids, [-1])
            xent = sparse_softmax_cross_entropy_with_logits(labels=squeezed, logits=logits, name="xentropy")
            unweighted_loss = compute_weighted_loss(xent, 1.0, reduction=Reduction.NONE, loss_collection=None)
        unweighted_loss = shape_ops.expand_dims(unweighted_loss, -1)
        weights = _get_weights_and_check_match_logits(features, self._weight_column, logits)
        training_loss = compute_weighted_loss(unweighted_loss, weights=weights, reduction=self._loss_reduction)
        return LossSpec(training_loss, unweighted_loss, weights, label_ids)

    def _predictions(self, logits):
        from dflow.ops.math.reduction_ops import argmax
        from dflow.ops.nn.nn_activations import softmax

        keys = PredictionKeys
        with name_scope(None, "predictions", [logits]):
            all_class_ids = _all_class_ids(logits, self._n_classes)
            all_classes = _all_classes(logits, self._n_classes, self._label_vocabulary)
            class_ids = argmax(logits, axis=-1, name=keys.CLASS_IDS)
            class_ids = shape_ops.expand_dims(class_ids, -1)
            classes = _class_strings(class_ids, self._label_vocabulary)
            probabilities = softmax(logits, name=keys.PROBABILITIES)
            predictions = {keys.LOGITS: logits, keys.PROBABILITIES: probabilities, keys.CLASS_IDS: class_ids,
                           keys.CLASSES: classes, keys.ALL_CLASS_IDS: all_class_ids, keys.ALL_CLASSES: all_classes}
        return predictions, {}

    def _metric_inputs(self, predictions, extra, loss_spec):
        return {"labels": loss_spec.processed_labels, "class_ids": predictions[PredictionKeys.CLASS_IDS],
                "weights": loss_spec.weights, "unreduced_loss": loss_spec.unreduced_loss}

    def _eval_metric_ops(self, labels, class_ids, weights, unreduced_loss, regularization_loss):
        from dflow.ops.metrics.metrics_ops import accuracy, mean

        keys = MetricKeys
        with name_scope(None, "metrics", [labels, class_ids, unreduced_loss]):
            metric_ops = {
                _summary_key(self._name, keys.LOSS_MEAN): mean(unreduced_loss, weights=weights, name=keys.LOSS_MEAN),
                _summary_key(self._name, keys.ACCURACY): accuracy(labels=labels, predictions=class_ids,
                                                                  weights=weights, name=keys.ACCURACY),
            }
            self._regularization_metric(metric_ops, regularization_loss)
        return metric_ops


class _BinaryLogisticHead(_Head):
    """Sigmoid cross-entropy on one logit (TF1's ``_BinaryLogisticHeadWithSigmoidCrossEntropyLoss``)."""

    def __init__(self, weight_column=None, label_vocabulary=None, loss_reduction=Reduction.SUM, name=None):
        _validate_label_vocabulary(label_vocabulary)
        _validate_loss_reduction(loss_reduction)
        if label_vocabulary is not None and len(label_vocabulary) != 2:
            raise ValueError(f"label_vocabulary of a binary head must have 2 entries, got {len(label_vocabulary)}")
        self._weight_column = weight_column
        self._label_vocabulary = label_vocabulary
        self._loss_reduction = loss_reduction
        self._name = name

    @property
    def logits_dimension(self) -> int:
        return 1

    def create_loss(self, features, mode, logits, labels) -> LossSpec:
        from dflow.ops.nn.nn_losses import sigmoid_cross_entropy_with_logits

        logits = convert_to_tensor(logits)
        labels = _check_dense_labels_match_logits_and_reshape(labels, logits, 1)
        if self._label_vocabulary is not None:
            labels = _vocabulary_lookup(labels, self._label_vocabulary)
        elif labels.dtype is dtypes.string:
            raise ValueError("Labels dtype should be integer or float if there is no vocabulary. Instead got string.")
        labels = math_ops.cast(labels, dtypes.float32)
        labels = _assert_range(labels, 2)
        unweighted_loss = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        weights = _get_weights_and_check_match_logits(features, self._weight_column, logits)
        training_loss = compute_weighted_loss(unweighted_loss, weights=weights, reduction=self._loss_reduction)
        return LossSpec(training_loss, unweighted_loss, weights, labels)

    def _predictions(self, logits):
        from dflow.ops.array.creation_ops import zeros_like
        from dflow.ops.math.reduction_ops import argmax
        from dflow.ops.math.unary_math_ops import sigmoid
        from dflow.ops.nn.nn_activations import softmax

        keys = PredictionKeys
        with name_scope(None, "predictions", [logits]):
            logistic = sigmoid(logits, name=keys.LOGISTIC)
            two_class_logits = array_ops.concat([zeros_like(logits), logits], axis=-1, name="two_class_logits")
            probabilities = softmax(two_class_logits, name=keys.PROBABILITIES)
            class_ids = argmax(two_class_logits, axis=-1, name=keys.CLASS_IDS)
            class_ids = shape_ops.expand_dims(class_ids, -1)
            all_class_ids = _all_class_ids(logits, 2)
            all_classes = _all_classes(logits, 2, self._label_vocabulary)
            classes = _class_strings(class_ids, self._label_vocabulary)
            predictions = {keys.LOGITS: logits, keys.LOGISTIC: logistic, keys.PROBABILITIES: probabilities,
                           keys.CLASS_IDS: class_ids, keys.CLASSES: classes, keys.ALL_CLASS_IDS: all_class_ids,
                           keys.ALL_CLASSES: all_classes}
        return predictions, {}

    def _metric_inputs(self, predictions, extra, loss_spec):
        return {"labels": loss_spec.processed_labels, "logits": predictions[PredictionKeys.LOGITS],
                "logistic": predictions[PredictionKeys.LOGISTIC],
                "class_ids": predictions[PredictionKeys.CLASS_IDS], "weights": loss_spec.weights,
                "unreduced_loss": loss_spec.unreduced_loss}

    def _eval_metric_ops(self, labels, logits, logistic, class_ids, weights, unreduced_loss, regularization_loss):
        from dflow.ops.metrics.metrics_ops import accuracy, mean, precision, recall

        keys = MetricKeys
        with name_scope(None, "metrics", [labels, logits, logistic, class_ids, unreduced_loss]):
            labels_mean = _indicator_labels_mean(labels=labels, weights=weights, name=keys.LABEL_MEAN)
            metric_ops = {
                keys.LOSS_MEAN: mean(unreduced_loss, weights=weights, name=keys.LOSS_MEAN),
                keys.ACCURACY: accuracy(labels=labels, predictions=class_ids, weights=weights, name=keys.ACCURACY),
                keys.PRECISION: precision(labels=labels, predictions=class_ids, weights=weights,
                                          name=keys.PRECISION),
                keys.RECALL: recall(labels=labels, predictions=class_ids, weights=weights, name=keys.RECALL),
                keys.PREDICTION_MEAN: _predictions_mean(logistic, weights=weights, name=keys.PREDICTION_MEAN),
                keys.LABEL_MEAN: labels_mean,
                keys.ACCURACY_BASELINE: _accuracy_baseline(labels_mean),
                keys.AUC: _auc(labels=labels, predictions=logistic, weights=weights, name=keys.AUC),
                keys.AUC_PR: _auc(labels=labels, predictions=logistic, weights=weights, curve="PR",
                                  name=keys.AUC_PR),
            }
            metric_ops = {_summary_key(self._name, k): v for k, v in metric_ops.items()}
            self._regularization_metric(metric_ops, regularization_loss)
        return metric_ops


class _RegressionHead(_Head):
    """Squared error on ``label_dimension`` outputs (TF1's ``_RegressionHeadWithMeanSquaredErrorLoss``)."""

    def __init__(self, label_dimension=1, weight_column=None, loss_reduction=Reduction.SUM, name=None):
        _validate_loss_reduction(loss_reduction)
        if isinstance(label_dimension, bool) or not isinstance(label_dimension, (int, np.integer)) \
                or label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension}.")
        self._logits_dimension = int(label_dimension)
        self._weight_column = weight_column
        self._loss_reduction = loss_reduction
        self._name = name

    @property
    def logits_dimension(self) -> int:
        return self._logits_dimension

    def create_loss(self, features, mode, logits, labels) -> LossSpec:
        logits = convert_to_tensor(logits)
        labels = _check_dense_labels_match_logits_and_reshape(labels, logits, self._logits_dimension)
        if labels.dtype is dtypes.string:
            raise ValueError("Regression labels must be numeric, got string labels.")
        labels = math_ops.cast(labels, dtypes.float32)
        with name_scope(None, "mean_squared_error", [logits, labels]):
            unweighted_loss = compute_weighted_loss(math_ops.squared_difference(logits, labels), 1.0,
                                                    reduction=Reduction.NONE, loss_collection=None)
        weights = _get_weights_and_check_match_logits(features, self._weight_column, logits,
                                                      allow_per_logit_weights=True)
        training_loss = compute_weighted_loss(unweighted_loss, weights=weights, reduction=self._loss_reduction)
        return LossSpec(training_loss, unweighted_loss, weights, labels)

    def _predictions(self, logits):
        return {PredictionKeys.PREDICTIONS: logits}, {}

    def _metric_inputs(self, predictions, extra, loss_spec):
        return {"predicted_value": predictions[PredictionKeys.PREDICTIONS], "labels": loss_spec.processed_labels,
                "weights": loss_spec.weights, "unreduced_loss": loss_spec.unreduced_loss}

    def _eval_metric_ops(self, predicted_value, labels, weights, unreduced_loss, regularization_loss):
        from dflow.ops.metrics.metrics_ops import mean

        keys = MetricKeys
        metric_ops = {
            _summary_key(self._name, keys.LOSS_MEAN): mean(unreduced_loss, weights=weights),
            _summary_key(self._name, keys.PREDICTION_MEAN): _predictions_mean(
                predicted_value, weights=weights, name=keys.PREDICTION_MEAN),
            _summary_key(self._name, keys.LABEL_MEAN): mean(labels, weights=weights),
        }
        self._regularization_metric(metric_ops, regularization_loss)
        return metric_ops


def _binary_logistic_or_multi_class_head(n_classes, weight_column, label_vocabulary, loss_reduction):
    """The binary head for ``n_classes == 2``, else the multi-class head (as TF1)."""
    if n_classes == 2:
        return _BinaryLogisticHead(weight_column=weight_column, label_vocabulary=label_vocabulary,
                                   loss_reduction=loss_reduction)
    return _MultiClassHead(n_classes, weight_column=weight_column, label_vocabulary=label_vocabulary,
                           loss_reduction=loss_reduction)


def _regression_head(weight_column=None, label_dimension=1, loss_reduction=Reduction.SUM, name=None):
    return _RegressionHead(label_dimension=label_dimension, weight_column=weight_column,
                           loss_reduction=loss_reduction, name=name)

