"""``tf.contrib.layers.batch_norm`` as TF 1.15 shipped it.

TF 1.15 picks one of three implementations (the fused kernel for rank 2 inputs, the core
``BatchNormalization`` layer for the default rank-4 call, a legacy ``nn.moments`` one for
``batch_weights``); dflow computes all three the same way and keeps what differs between them:

* the variables ``BatchNorm/beta`` (``center``, default True), ``BatchNorm/gamma`` (``scale``, default
  **False**), ``BatchNorm/moving_mean`` and ``BatchNorm/moving_variance``, all model variables (the
  core layer's path creates gamma before beta, as its ``build`` does);
* in training the batch's mean and (biased) variance normalize; the moving statistics become
  ``decay * moving + (1 - decay) * batch``, where the fused kernels (``fused`` left True and a rank 2
  or 4 input) give the variance with Bessel's correction ``n / (n - 1)``; their epsilon is at least
  ``1.001e-5``, as ``tf.nn.fused_batch_norm`` makes it;
* the two update tensors go to ``updates_collections`` (``UPDATE_OPS``), or with
  ``updates_collections=None`` run before the output is read;
* ``is_training`` may be a boolean tensor (the updates then keep the moving values when false).

``renorm=True`` and ``adjustment`` raise ``NotImplementedError``.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.contrib.framework import add_arg_scope, model_variable
from dflow.contrib.layers import _collect_named_outputs, _variable_collections
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import GraphKeys, Tensor, control_dependencies, get_default_graph
from dflow.framework.op_registry import constant_value
from dflow.layers.core import smart_cond
from dflow.ops.state.init_ops import ones_initializer, zeros_initializer
from dflow.ops.state.variable_scope import get_variable_scope, variable_scope

DATA_FORMAT_NCHW = "NCHW"
DATA_FORMAT_NHWC = "NHWC"


def _static_training_value(is_training):
    """contrib's ``utils.constant_value``: the Python value of ``is_training``, or None for a tensor
    whose value is only known at run time."""
    if isinstance(is_training, (bool, np.bool_, int, np.integer)):
        return bool(is_training)
    if isinstance(is_training, Tensor):
        value = constant_value(is_training)
        return None if value is None else bool(value)
    return None


@tf_export("contrib.layers.batch_norm")
@add_arg_scope
def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001, activation_fn=None,
               param_initializers=None, param_regularizers=None, updates_collections=GraphKeys.UPDATE_OPS,
               is_training=True, reuse=None, variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format=DATA_FORMAT_NHWC, zero_debias_moving_mean=False,
               scope=None, renorm=False, renorm_clipping=None, renorm_decay=0.99, adjustment=None):
    """Batch normalization over all axes but the channels' (last for ``NHWC``, second for ``NCHW``)."""
    from dflow.ops.array.shape_ops import reshape, size
    from dflow.ops.control_flow.control_flow_ops import identity
    from dflow.ops.math.math_ops import cast
    from dflow.ops.nn.nn_norm_extra import weighted_moments
    from dflow.ops.nn.nn_norm_ops import batch_normalization, moments
    from dflow.train.moving_averages import assign_moving_average

    if renorm:
        raise NotImplementedError("tf.contrib.layers.batch_norm(renorm=True) is not implemented in dflow")
    if adjustment is not None:
        raise NotImplementedError("tf.contrib.layers.batch_norm(adjustment=...) is not implemented in dflow")
    if fused is None:
        fused = True
    inputs = convert_to_tensor(inputs)
    rank = inputs.shape.ndims
    default_updates = updates_collections is GraphKeys.UPDATE_OPS or updates_collections == [GraphKeys.UPDATE_OPS]
    possible_to_fuse = batch_weights is None and rank in (2, 4)
    if fused and possible_to_fuse and (zero_debias_moving_mean or rank == 2 or not default_updates):
        path = "fused"
    elif batch_weights is None and default_updates and not zero_debias_moving_mean:
        path = "layer"  # TF: the core BatchNormalization layer, fused for rank 4 when ``fused``
    else:
        path = "legacy"
    bessel = path == "fused" or (path == "layer" and fused and rank == 4)
    if bessel:
        epsilon = max(epsilon, 1.001e-5)

    if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with variable_scope(scope, "BatchNorm", [inputs], reuse=reuse) as sc:
        if rank is None:
            raise ValueError(f"Inputs {inputs.name} has undefined rank.")
        inputs_shape = inputs.shape
        input_dtype = inputs.dtype.base_dtype
        dtype = dtypes.float32 if input_dtype in (dtypes.float16, dtypes.bfloat16) else input_dtype
        channels_first = data_format == DATA_FORMAT_NCHW and rank > 2
        channel_axis = 1 if channels_first else rank - 1
        params_shape = inputs_shape[channel_axis:channel_axis + 1]
        if not params_shape.is_fully_defined():
            raise ValueError(f"Inputs {inputs.name} has undefined channels dimension {params_shape}.")
        channels = params_shape.as_list()[0]
        moments_axes = [a for a in range(rank) if a != channel_axis]
        broadcast_shape = [1, channels] + [1] * (rank - 2) if channels_first else None

        initializers = param_initializers or {}
        regularizers = param_regularizers or {}

        def param(name, initializer, trainable_):
            return model_variable(name, shape=params_shape, dtype=dtype,
                                  initializer=initializers.get(name, initializer),
                                  regularizer=regularizers.get(name) if trainable_ else None,
                                  collections=_variable_collections(variables_collections, name),
                                  trainable=trainable and trainable_)

        beta = gamma = None
        order = ("gamma", "beta") if path == "layer" else ("beta", "gamma")
        for name in order:
            if name == "beta" and center:
                beta = param("beta", zeros_initializer(), True)
            elif name == "gamma" and scale:
                gamma = param("gamma", ones_initializer(), True)
        with variable_scope(get_variable_scope()) as local_scope:
            local_scope.set_partitioner(None)
            moving_mean = param("moving_mean", zeros_initializer(), False)
            moving_variance = param("moving_variance", ones_initializer(), False)

        x = cast(inputs, dtype) if dtype != input_dtype else inputs
        training_value = _static_training_value(is_training)
        if training_value is None or training_value:
            if batch_weights is None:
                mean, variance = moments(x, moments_axes, keep_dims=channels_first)
            else:
                weights = reshape(convert_to_tensor(batch_weights), [-1] + [1] * (rank - 1))
                mean, variance = weighted_moments(x, moments_axes, weights, keep_dims=channels_first)
            if channels_first:
                mean, variance = reshape(mean, [-1]), reshape(variance, [-1])
            update_variance_with = variance
            if bessel:
                n = cast(size(x), dtype) / float(channels)
                update_variance_with = variance * (n / (n - 1.0))

            def moving_vars():
                return moving_mean, moving_variance

            def updates():
                update_mean = assign_moving_average(moving_mean, mean, decay, zero_debias=zero_debias_moving_mean)
                update_variance = assign_moving_average(moving_variance, update_variance_with, decay,
                                                        zero_debias=False)
                return update_mean, update_variance

            if updates_collections is None:
                def forced():
                    with control_dependencies(list(updates())):
                        return identity(mean), identity(variance)

                mean, variance = smart_cond(is_training, forced, moving_vars)
            else:
                update_mean, update_variance = smart_cond(is_training, updates, moving_vars)
                graph = get_default_graph()
                graph.add_to_collections(updates_collections, update_mean)
                graph.add_to_collections(updates_collections, update_variance)
                mean, variance = smart_cond(is_training, lambda: (mean, variance), moving_vars)
        else:
            mean, variance = moving_mean, moving_variance

        if channels_first:
            mean, variance = reshape(mean, broadcast_shape), reshape(variance, broadcast_shape)
            beta = reshape(beta, broadcast_shape) if beta is not None else None
            gamma = reshape(gamma, broadcast_shape) if gamma is not None else None
        outputs = batch_normalization(x, mean, variance, beta, gamma, epsilon)
        if dtype != input_dtype:
            outputs = cast(outputs, input_dtype)
        outputs.set_shape(inputs_shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect_named_outputs(outputs_collections, sc.name, outputs)
