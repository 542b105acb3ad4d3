"""``tf.estimator.DNNLinearCombinedClassifier`` and ``...Regressor``: TF1's wide-and-deep models.

The logits are the sum of a DNN over ``dnn_feature_columns`` (variable scope
``dnn``, as ``DNNClassifier``) and a linear model over
``linear_feature_columns`` (scope ``linear``, as ``LinearClassifier``); either
part may be left out. Each part has its own optimizer, updating only its
own variables: by default Adagrad with learning rate 0.001 for the DNN and
Ftrl with ``min(0.005, 1 / sqrt(len(linear_feature_columns)))`` for the
linear part, as TF1. One training step runs both updates, then increments
the global step. See ``head.py`` for labels, predictions and metrics.

``input_layer_partitioner`` is accepted; dflow creates each variable whole.
"""

from __future__ import annotations

import math

from dflow._api import tf_export
from dflow.estimator.canned import dnn as dnn_lib
from dflow.estimator.canned import head as head_lib
from dflow.estimator.canned import linear as linear_lib
from dflow.estimator.canned.optimizers import get_optimizer_instance
from dflow.estimator.estimator import Estimator
from dflow.framework.graph import GraphKeys, control_dependencies, get_default_graph
from dflow.ops.nn.nn_activations import relu
from dflow.ops.state.variable_scope import variable_scope

_DNN_LEARNING_RATE = 0.001
_LINEAR_LEARNING_RATE = 0.005


def _check_no_sync_replicas_optimizer(optimizer) -> None:
    from dflow.train.optimizers.sync_replicas_optimizer import SyncReplicasOptimizer

    if isinstance(optimizer, SyncReplicasOptimizer):
        raise ValueError("SyncReplicasOptimizer does not support multi optimizers case. Therefore, it is not "
                         "supported in DNNLinearCombined model. If you want to use this optimizer, please use "
                         "either DNN or Linear model.")


def _linear_learning_rate(num_linear_feature_columns: int) -> float:
    """TF1's default: ``min(0.005, 1 / sqrt(number of linear feature columns))``."""
    return min(_LINEAR_LEARNING_RATE, 1.0 / math.sqrt(num_linear_feature_columns))


def _validate_feature_columns(linear_feature_columns, dnn_feature_columns) -> list:
    feature_columns = list(linear_feature_columns or []) + list(dnn_feature_columns or [])
    if not feature_columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be defined.")
    return feature_columns


def _dnn_linear_combined_model_fn(features, labels, mode, head, linear_feature_columns=None,
                                  linear_optimizer="Ftrl", dnn_feature_columns=None, dnn_optimizer="Adagrad",
                                  dnn_hidden_units=None, dnn_activation_fn=relu, dnn_dropout=None,
                                  input_layer_partitioner=None, config=None, batch_norm=False,
                                  linear_sparse_combiner="sum"):
    """TF1's wide-and-deep ``model_fn``."""
    from dflow.ops.control_flow.control_flow_ops import group
    from dflow.ops.state.variables import assign_add
    from dflow.train.training_util import get_global_step

    dnn_lib._validate_features(features)
    if not linear_feature_columns and not dnn_feature_columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be defined.")
    values = dnn_lib._tensor_values(features)

    dnn_logits = None
    if dnn_feature_columns:
        dnn_optimizer = get_optimizer_instance(dnn_optimizer, learning_rate=_DNN_LEARNING_RATE)
        _check_no_sync_replicas_optimizer(dnn_optimizer)
        if not dnn_hidden_units:
            raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is specified.")
        with variable_scope("dnn", values=values) as scope:
            dnn_absolute_scope = scope.name
            dnn_logit_fn = dnn_lib.dnn_logit_fn_builder(
                units=head.logits_dimension, hidden_units=dnn_hidden_units, feature_columns=dnn_feature_columns,
                activation_fn=dnn_activation_fn, dropout=dnn_dropout, batch_norm=batch_norm,
                input_layer_partitioner=input_layer_partitioner)
            dnn_logits = dnn_logit_fn(features=features, mode=mode)

    linear_logits = None
    if linear_feature_columns:
        linear_optimizer = get_optimizer_instance(
            linear_optimizer, learning_rate=_linear_learning_rate(len(linear_feature_columns)))
        _check_no_sync_replicas_optimizer(linear_optimizer)
        with variable_scope("linear", values=values) as scope:
            linear_absolute_scope = scope.name
            logit_fn = linear_lib.linear_logit_fn_builder(units=head.logits_dimension,
                                                          feature_columns=linear_feature_columns,
                                                          sparse_combiner=linear_sparse_combiner)
            linear_logits = logit_fn(features=features)
            dnn_lib._add_hidden_layer_summary(linear_logits, scope.name)

    if dnn_logits is not None and linear_logits is not None:
        logits = dnn_logits + linear_logits
    elif dnn_logits is not None:
        logits = dnn_logits
    else:
        logits = linear_logits

    def _train_op_fn(loss):
        graph = get_default_graph()
        train_ops = []
        global_step = get_global_step()
        if dnn_logits is not None:
            train_ops.append(dnn_optimizer.minimize(
                loss, var_list=graph.get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=dnn_absolute_scope)))
        if linear_logits is not None:
            train_ops.append(linear_optimizer.minimize(
                loss, var_list=graph.get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=linear_absolute_scope)))
        train_op = group(*train_ops)
        with control_dependencies([train_op]):
            return assign_add(global_step, 1).op

    return head.create_estimator_spec(features=features, mode=mode, labels=labels, train_op_fn=_train_op_fn,
                                      logits=logits)


@tf_export("estimator.DNNLinearCombinedClassifier")
class DNNLinearCombinedClassifier(Estimator):
    """A classifier for TF1's wide-and-deep models (``tf.estimator.DNNLinearCombinedClassifier``)."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None, dnn_activation_fn=relu,
                 dnn_dropout=None, n_classes=2, weight_column=None, label_vocabulary=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None,
                 loss_reduction=head_lib.Reduction.SUM, batch_norm=False, linear_sparse_combiner="sum"):
        self._feature_columns = _validate_feature_columns(linear_feature_columns, dnn_feature_columns)
        linear_feature_columns = tuple(linear_feature_columns or ())
        dnn_feature_columns = tuple(dnn_feature_columns or ())
        head = head_lib._binary_logistic_or_multi_class_head(n_classes, weight_column, label_vocabulary,
                                                             loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _dnn_linear_combined_model_fn(
                features=features, labels=labels, mode=mode, head=head,
                linear_feature_columns=linear_feature_columns, linear_optimizer=linear_optimizer,
                dnn_feature_columns=dnn_feature_columns, dnn_optimizer=dnn_optimizer,
                dnn_hidden_units=dnn_hidden_units, dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout,
                input_layer_partitioner=input_layer_partitioner, config=config, batch_norm=batch_norm,
                linear_sparse_combiner=linear_sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from)


@tf_export("estimator.DNNLinearCombinedRegressor")
class DNNLinearCombinedRegressor(Estimator):
    """A regressor for TF1's wide-and-deep models (``tf.estimator.DNNLinearCombinedRegressor``)."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None, dnn_activation_fn=relu,
                 dnn_dropout=None, label_dimension=1, weight_column=None, input_layer_partitioner=None,
                 config=None, warm_start_from=None, loss_reduction=head_lib.Reduction.SUM, batch_norm=False,
                 linear_sparse_combiner="sum"):
        self._feature_columns = _validate_feature_columns(linear_feature_columns, dnn_feature_columns)
        linear_feature_columns = tuple(linear_feature_columns or ())
        dnn_feature_columns = tuple(dnn_feature_columns or ())
        head = head_lib._regression_head(label_dimension=label_dimension, weight_column=weight_column,
                                         loss_reduction=loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _dnn_linear_combined_model_fn(
                features=features, labels=labels, mode=mode, head=head,
                linear_feature_columns=linear_feature_columns, linear_optimizer=linear_optimizer,
                dnn_feature_columns=dnn_feature_columns, dnn_optimizer=dnn_optimizer,
                dnn_hidden_units=dnn_hidden_units, dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout,
                input_layer_partitioner=input_layer_partitioner, config=config, batch_norm=batch_norm,
                linear_sparse_combiner=linear_sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from)
