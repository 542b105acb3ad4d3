"""``tf.estimator.LinearClassifier`` and ``LinearRegressor``: TF1's canned linear models.

The logits are ``tf.feature_column.linear_model`` built under the variable
scope ``linear``: one weight per dense element or categorical id in
``linear/linear_model/<column>/weights`` and a bias in
``linear/linear_model/bias_weights``, all starting at zero. ``sparse_combiner``
(``'sum'``, ``'mean'`` or ``'sqrtn'``) combines the weights of a row's ids.

The optimizer defaults to Ftrl with learning rate 0.2 (``optimizer='Ftrl'``);
``optimizer=None`` gives Ftrl with ``min(0.2, 1 / sqrt(len(feature_columns)))``,
as TF1. The summaries ``bias`` and ``fraction_of_zero_weights`` are recorded.
See ``head.py`` for labels, predictions, metrics and ``loss_reduction``.

dflow does not partition variables: ``partitioner`` is accepted and each
variable is created whole (slots are ``<variable>/Ftrl``, where TF1's
partitioned variables have ``<variable>/part_0/Ftrl``). The SDCA optimizer
(``LinearSDCA``) is not available.
"""

from __future__ import annotations

import math

from dflow._api import tf_export
from dflow.estimator.canned import head as head_lib
from dflow.estimator.canned.dnn import _check_feature_columns, _tensor_values, _validate_features
from dflow.estimator.canned.optimizers import get_optimizer_instance
from dflow.estimator.estimator import Estimator
from dflow.framework import dtypes
from dflow.framework.graph import name_scope
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.state.variable_scope import variable_scope

_LEARNING_RATE = 0.2


def _get_default_optimizer(feature_columns):
    from dflow.train.optimizers.ftrl import FtrlOptimizer

    return FtrlOptimizer(learning_rate=min(_LEARNING_RATE, 1.0 / math.sqrt(len(feature_columns))))


def _compute_fraction_of_zero(variables):
    """The fraction of zero entries over all ``variables`` (TF1's ``_compute_fraction_of_zero``)."""
    from dflow.ops.array.shape_ops import size
    from dflow.ops.math.math_ops import add_n

    with name_scope(None, "zero_fraction"):
        variables = list(variables)
        if not variables:
            raise ValueError("variables must not be empty")
        total = add_n([math_ops.cast(size(v), dtypes.float32) for v in variables])
        nonzero = add_n([math_ops.cast(reduction_ops.count_nonzero(v), dtypes.float32) for v in variables])
        return math_ops.subtract(1.0, nonzero / total, name="fraction")


@tf_export("estimator.experimental.linear_logit_fn_builder")
def linear_logit_fn_builder(units, feature_columns, sparse_combiner="sum"):
    """A ``logit_fn(features)`` building ``linear_model`` (in the current variable scope) with
    ``units`` outputs, and its summaries."""
    from dflow.feature_column.feature_column import linear_model
    from dflow.summary.summary_ops import histogram, scalar

    def linear_logit_fn(features):
        cols_to_vars: dict = {}
        logits = linear_model(features, feature_columns, units=units, sparse_combiner=sparse_combiner,
                              cols_to_vars=cols_to_vars)
        bias = cols_to_vars.pop("bias")
        variables = [v for vs in cols_to_vars.values() for v in vs]
        if units > 1:
            histogram("bias", bias[0])
        else:
            scalar("bias", bias[0][0])
        scalar("fraction_of_zero_weights", _compute_fraction_of_zero(variables))
        return logits

    return linear_logit_fn


def _linear_model_fn(features, labels, mode, head, feature_columns, optimizer, partitioner, config,
                     sparse_combiner="sum"):
    """TF1's linear ``model_fn``: ``linear_model`` under ``linear``, then the head's spec."""
    _validate_features(features)
    with variable_scope("linear", values=_tensor_values(features)) as scope:
        logit_fn = linear_logit_fn_builder(units=head.logits_dimension, feature_columns=feature_columns,
                                           sparse_combiner=sparse_combiner)
        logits = logit_fn(features=features)
        optimizer = get_optimizer_instance(optimizer or _get_default_optimizer(feature_columns),
                                           learning_rate=_LEARNING_RATE)
    # Under the ``linear/`` name scope but not its variable scope: slots are
    # ``linear/linear_model/<column>/weights/Ftrl`` (see dnn.py).
    with name_scope(scope.original_name_scope):
        return head.create_estimator_spec(features=features, mode=mode, labels=labels, optimizer=optimizer,
                                          logits=logits)


def _check_sparse_combiner(sparse_combiner) -> None:
    if sparse_combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"sparse_combiner must be one of 'mean', 'sqrtn' or 'sum', got {sparse_combiner!r}")


@tf_export("estimator.LinearClassifier")
class LinearClassifier(Estimator):
    """A linear classifier (``tf.estimator.LinearClassifier``): logistic regression for
    ``n_classes=2``, multinomial (softmax) for more."""

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction=head_lib.Reduction.SUM, sparse_combiner="sum"):
        feature_columns = _check_feature_columns(feature_columns)
        _check_sparse_combiner(sparse_combiner)
        head = head_lib._binary_logistic_or_multi_class_head(n_classes, weight_column, label_vocabulary,
                                                             loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _linear_model_fn(features=features, labels=labels, mode=mode, head=head,
                                    feature_columns=feature_columns, optimizer=optimizer, partitioner=partitioner,
                                    config=config, sparse_combiner=sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from)


@tf_export("estimator.LinearRegressor")
class LinearRegressor(Estimator):
    """A linear regressor (``tf.estimator.LinearRegressor``): squared-error loss on
    ``label_dimension`` outputs."""

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None, optimizer="Ftrl",
                 config=None, partitioner=None, warm_start_from=None, loss_reduction=head_lib.Reduction.SUM,
                 sparse_combiner="sum"):
        feature_columns = _check_feature_columns(feature_columns)
        _check_sparse_combiner(sparse_combiner)
        head = head_lib._regression_head(label_dimension=label_dimension, weight_column=weight_column,
                                         loss_reduction=loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _linear_model_fn(features=features, labels=labels, mode=mode, head=head,
                                    feature_columns=feature_columns, optimizer=optimizer, partitioner=partitioner,
                                    config=config, sparse_combiner=sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from)
