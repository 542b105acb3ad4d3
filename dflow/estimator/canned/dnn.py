"""``tf.estimator.DNNClassifier`` and ``DNNRegressor``: TF1's canned feed-forward networks.

The model, built under the variable scope ``dnn`` as TF1 builds it::

    dnn/input_from_feature_columns/input_layer    the feature columns, concatenated
    dnn/hiddenlayer_<i>/kernel, .../bias          Dense(hidden_units[i], activation_fn)
      (then dropout while training, when ``dropout`` is set)
      dnn/hiddenlayer_<i>/batchnorm_<i>/gamma, beta, moving_mean, moving_variance
                                                  (with ``batch_norm=True``)
    dnn/logits/kernel, dnn/logits/bias            Dense(logits_dimension)

Kernels start Glorot-uniform, biases at zero. The default optimizer is
Adagrad with learning rate 0.05; the loss is reduced with ``SUM`` unless
``loss_reduction`` says otherwise (see ``head.py`` for labels, predictions
and metrics). Each layer records the summaries
``<layer>/fraction_of_zero_values`` and ``<layer>/activation``.

Batch normalization follows TF1's ``tf.layers.BatchNormalization(momentum=0.999)``
(epsilon 0.001): batch statistics while training, whose moving averages are
updated through ``UPDATE_OPS``; the moving averages when evaluating or
predicting.

dflow does not partition variables: ``input_layer_partitioner`` (and the
partitioners TF1 derives from ``config.num_ps_replicas``) are accepted and each
variable is created whole, which computes the same model. Optimizer slots are
therefore named ``<variable>/Adagrad`` (TF1's partitioned variables name theirs
``<variable>/t_0/Adagrad``).
"""

from __future__ import annotations

import numbers

from dflow._api import tf_export
from dflow.estimator.canned import head as head_lib
from dflow.estimator.canned.optimizers import get_optimizer_instance
from dflow.estimator.estimator import Estimator
from dflow.framework import dtypes
from dflow.framework.graph import GraphKeys, Tensor, get_default_graph, name_scope
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.nn.nn_activations import relu
from dflow.ops.state.variable_scope import get_variable, variable_scope

_LEARNING_RATE = 0.05


def _zero_fraction(value: Tensor) -> Tensor:
    """The fraction of zeros in ``value`` (TF1's ``tf.math.zero_fraction``)."""
    with name_scope(None, "zero_fraction", [value]):
        zero = math_ops.cast(math_ops.equal(value, 0.0), dtypes.float32)
        return reduction_ops.reduce_mean(zero, name="fraction")


def _add_hidden_layer_summary(value: Tensor, tag: str) -> None:
    from dflow.summary.summary_ops import histogram, scalar

    scalar(f"{tag}/fraction_of_zero_values", _zero_fraction(value))
    histogram(f"{tag}/activation", value)


def _dense(net: Tensor, units: int, activation_fn) -> Tensor:
    """TF1's ``tf.layers.Dense`` in the current variable scope: ``kernel`` (Glorot uniform) and ``bias`` (zeros)."""
    from dflow.ops.linalg.linalg_ops import matmul
    from dflow.ops.nn.nn_ops import bias_add
    from dflow.ops.state.init_ops import glorot_uniform_initializer, zeros_initializer

    in_dim = net.shape.as_list()[-1] if net.shape.ndims else None
    if in_dim is None:
        raise ValueError(f"The last dimension of the inputs to `Dense` should be defined. Found `None`. ({net})")
    kernel = get_variable("kernel", shape=[in_dim, units], dtype=dtypes.float32,
                          initializer=glorot_uniform_initializer())
    bias = get_variable("bias", shape=[units], dtype=dtypes.float32, initializer=zeros_initializer())
    outputs = bias_add(matmul(net, kernel), bias)
    return activation_fn(outputs) if activation_fn is not None else outputs


def _batch_norm(net: Tensor, training: bool, name: str, momentum=0.999, epsilon=1e-3) -> Tensor:
    """TF1's ``tf.layers.BatchNormalization`` over the last axis of a ``[batch, units]`` input."""
    from dflow.ops.nn.nn_norm_ops import batch_normalization, moments
    from dflow.ops.state.init_ops import ones_initializer, zeros_initializer
    from dflow.ops.state.variables import assign_sub

    units = net.shape.as_list()[-1]
    with variable_scope(name):
        gamma = get_variable("gamma", shape=[units], initializer=ones_initializer())
        beta = get_variable("beta", shape=[units], initializer=zeros_initializer())
        moving_mean = get_variable("moving_mean", shape=[units], initializer=zeros_initializer(), trainable=False)
        moving_variance = get_variable("moving_variance", shape=[units], initializer=ones_initializer(),
                                       trainable=False)
        if training:
            mean, variance = moments(net, [0])
            graph = get_default_graph()
            decay = 1.0 - momentum
            for var, value, scope in ((moving_mean, mean, "AssignMovingAvg"),
                                      (moving_variance, variance, "AssignMovingAvg_1")):
                with name_scope(scope):
                    update = assign_sub(var, (var.read_value() - value) * decay)
                graph.add_to_collection(GraphKeys.UPDATE_OPS, update)
        else:
            mean, variance = moving_mean, moving_variance
        return batch_normalization(net, mean, variance, beta, gamma, epsilon)


def _validate_features(features) -> None:
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: {type(features)}")


def _tensor_values(features) -> list | None:
    values = [v for v in features.values() if isinstance(v, Tensor)]
    return values or None


@tf_export("estimator.experimental.dnn_logit_fn_builder")
def dnn_logit_fn_builder(units, hidden_units, feature_columns, activation_fn, dropout, input_layer_partitioner,
                         batch_norm):
    """A ``logit_fn(features, mode)`` building TF1's DNN (in the current variable scope) and
    returning its ``[batch, units]`` logits."""
    from dflow.estimator.model_fn import ModeKeys
    from dflow.feature_column.feature_column import input_layer
    from dflow.ops.nn.nn_ops import dropout as nn_dropout

    if isinstance(units, bool) or not isinstance(units, numbers.Integral):
        raise ValueError(f"units must be an int.  Given type: {type(units)}")

    def dnn_logit_fn(features, mode):
        is_training = mode == ModeKeys.TRAIN
        with variable_scope("input_from_feature_columns"):
            net = input_layer(features, feature_columns)
        for layer_id, num_hidden_units in enumerate(hidden_units):
            with variable_scope(f"hiddenlayer_{layer_id}", values=(net,)) as scope:
                net = _dense(net, int(num_hidden_units), activation_fn)
                if dropout is not None and is_training:
                    net = nn_dropout(net, rate=dropout)
                if batch_norm:
                    net = _batch_norm(net, is_training, f"batchnorm_{layer_id}")
            _add_hidden_layer_summary(net, scope.name)
        with variable_scope("logits", values=(net,)) as scope:
            logits = _dense(net, units, None)
        _add_hidden_layer_summary(logits, scope.name)
        return logits

    return dnn_logit_fn


def _dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns, optimizer="Adagrad",
                  activation_fn=relu, dropout=None, input_layer_partitioner=None, config=None, batch_norm=False):
    """TF1's DNN ``model_fn``: the network under ``dnn``, then ``head``'s ``EstimatorSpec``."""
    optimizer = get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
    _validate_features(features)
    with variable_scope("dnn", values=_tensor_values(features)) as scope:
        logit_fn = dnn_logit_fn_builder(units=head.logits_dimension, hidden_units=hidden_units,
                                        feature_columns=feature_columns, activation_fn=activation_fn,
                                        dropout=dropout, input_layer_partitioner=input_layer_partitioner,
                                        batch_norm=batch_norm)
        logits = logit_fn(features=features, mode=mode)
    # The head's ops go under the ``dnn/`` name scope as in TF1, outside its variable scope, so
    # optimizer slots are ``dnn/hiddenlayer_0/kernel/Adagrad`` (the names TF1 gives them when the
    # variables are not partitioned, as in DNNLinearCombinedClassifier), not ``dnn/dnn/...``.
    with name_scope(scope.original_name_scope):
        return head.create_estimator_spec(features=features, mode=mode, labels=labels, optimizer=optimizer,
                                          logits=logits)


def _check_hidden_units(hidden_units) -> tuple:
    if hidden_units is None:
        raise ValueError("hidden_units must be a list of layer sizes, got None")
    hidden_units = tuple(hidden_units)
    for n in hidden_units:
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"hidden_units must be positive integers, got {list(hidden_units)}")
    return hidden_units


def _check_feature_columns(feature_columns) -> tuple:
    feature_columns = tuple(feature_columns or [])
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    return feature_columns


@tf_export("estimator.DNNClassifier")
class DNNClassifier(Estimator):
    """A classifier for TF1 DNN models (``tf.estimator.DNNClassifier``).

    ``n_classes=2`` uses a sigmoid on one logit; more classes a softmax.
    Labels are integer class ids, or strings of ``label_vocabulary``.

    >>> import dflow as tf
    >>> cols = [tf.feature_column.numeric_column("x")]
    >>> est = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=cols, n_classes=3)  # doctest: +SKIP
    """

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Adagrad", activation_fn=relu, dropout=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None,
                 loss_reduction=head_lib.Reduction.SUM, batch_norm=False):
        hidden_units = _check_hidden_units(hidden_units)
        feature_columns = _check_feature_columns(feature_columns)
        head = head_lib._binary_logistic_or_multi_class_head(n_classes, weight_column, label_vocabulary,
                                                             loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _dnn_model_fn(features=features, labels=labels, mode=mode, head=head, hidden_units=hidden_units,
                                 feature_columns=feature_columns, optimizer=optimizer, activation_fn=activation_fn,
                                 dropout=dropout, input_layer_partitioner=input_layer_partitioner, config=config,
                                 batch_norm=batch_norm)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from)


@tf_export("estimator.DNNRegressor")
class DNNRegressor(Estimator):
    """A regressor for TF1 DNN models (``tf.estimator.DNNRegressor``): squared-error loss on
    ``label_dimension`` outputs."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Adagrad", activation_fn=relu, dropout=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=head_lib.Reduction.SUM, batch_norm=False):
        hidden_units = _check_hidden_units(hidden_units)
        feature_columns = _check_feature_columns(feature_columns)
        head = head_lib._regression_head(label_dimension=label_dimension, weight_column=weight_column,
                                         loss_reduction=loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _dnn_model_fn(features=features, labels=labels, mode=mode, head=head, hidden_units=hidden_units,
                                 feature_columns=feature_columns, optimizer=optimizer, activation_fn=activation_fn,
                                 dropout=dropout, input_layer_partitioner=input_layer_partitioner, config=config,
                                 batch_norm=batch_norm)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from)
