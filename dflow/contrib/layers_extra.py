"""More of ``tf.contrib.layers`` as TF 1.15 shipped it: ``separable_conv2d`` and the ``utils`` helpers
that slim programs use to read the ``outputs_collections`` back.

* ``separable_conv2d`` (``separable_convolution2d``): in the variable scope ``SeparableConv2d``, a
  depthwise convolution (model variable ``depthwise_weights``, ``[kh, kw, in, depth_multiplier]``)
  followed, when ``num_outputs`` is given, by a 1x1 one (``pointwise_weights``,
  ``[1, 1, in * depth_multiplier, num_outputs]``); then ``biases`` or ``normalizer_fn``, then
  ``activation_fn`` (ReLU by default). With ``num_outputs=None`` only the depthwise part runs and the
  biases have ``in * depth_multiplier`` entries;
* ``softmax(logits)``: softmax over the last axis of a tensor of any rank >= 2 (scope ``softmax``);
* ``convert_collection_to_dict(collection)``: ``{alias: tensor}`` for the tensors that layers put in an
  ``outputs_collections`` (slim's ``end_points``).
"""

from __future__ import annotations

import collections

from dflow._api import tf_export
from dflow.contrib.aliases import xavier_initializer
from dflow.contrib.framework import add_arg_scope, model_variable
from dflow.contrib.layers import (
    DATA_FORMAT_NCHW,
    DATA_FORMAT_NHWC,
    _add_variable_to_collections,
    _build_variable_getter,
    _collect_named_outputs,
    _variable_collections,
    get_tensor_aliases,
    relu_fn,
)
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import get_default_graph
from dflow.layers import convolutional as conv_layers
from dflow.ops.state.init_ops import zeros_initializer
from dflow.ops.state.variable_scope import variable_scope

_SEPARABLE_RENAME = {"bias": "biases", "depthwise_kernel": "depthwise_weights",
                     "pointwise_kernel": "pointwise_weights"}


@tf_export("contrib.layers.separable_conv2d", "contrib.layers.separable_convolution2d")
@add_arg_scope
def separable_conv2d(inputs, num_outputs, kernel_size, depth_multiplier=1, stride=1, padding="SAME",
                     data_format=DATA_FORMAT_NHWC, rate=1, activation_fn=relu_fn, normalizer_fn=None,
                     normalizer_params=None, weights_initializer=xavier_initializer(), pointwise_initializer=None,
                     weights_regularizer=None, biases_initializer=zeros_initializer(), biases_regularizer=None,
                     reuse=None, variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """A depthwise-separable 2-D convolution (depthwise only when ``num_outputs`` is None)."""
    from dflow.ops.nn.conv_variants import depthwise_conv2d
    from dflow.ops.nn.nn_ops import bias_add

    if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    if pointwise_initializer is None:
        pointwise_initializer = weights_initializer
    getter = _build_variable_getter(_SEPARABLE_RENAME)
    with variable_scope(scope, "SeparableConv2d", [inputs], reuse=reuse, custom_getter=getter) as sc:
        inputs = convert_to_tensor(inputs)
        dtype = inputs.dtype.base_dtype
        rate2 = conv_layers.normalize_tuple(rate, 2, "rate")
        if num_outputs is not None:
            df = "channels_first" if data_format.startswith("NC") else "channels_last"
            layer = conv_layers.SeparableConv2D(
                filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding, data_format=df,
                dilation_rate=rate2, activation=None, depth_multiplier=depth_multiplier,
                use_bias=bool(not normalizer_fn and biases_initializer), depthwise_initializer=weights_initializer,
                pointwise_initializer=pointwise_initializer, bias_initializer=biases_initializer,
                depthwise_regularizer=weights_regularizer, pointwise_regularizer=weights_regularizer,
                bias_regularizer=biases_regularizer, trainable=trainable, name=sc.name, dtype=dtype, _scope=sc,
                _reuse=reuse)
            outputs = layer.apply(inputs)
            _add_variable_to_collections(layer.depthwise_kernel, variables_collections, "weights")
            _add_variable_to_collections(layer.pointwise_kernel, variables_collections, "weights")
            if layer.bias is not None:
                _add_variable_to_collections(layer.bias, variables_collections, "biases")
            if normalizer_fn is not None:
                outputs = normalizer_fn(outputs, **(normalizer_params or {}))
        else:
            kh, kw = conv_layers.normalize_tuple(kernel_size, 2, "kernel_size")
            sh, sw = conv_layers.normalize_tuple(stride, 2, "stride")
            channel_axis = 1 if data_format == DATA_FORMAT_NCHW else -1
            num_filters_in = inputs.shape.as_list()[channel_axis]
            if num_filters_in is None:
                raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
            depthwise_weights = model_variable(
                "depthwise_weights", shape=[kh, kw, num_filters_in, depth_multiplier], dtype=dtype,
                initializer=weights_initializer, regularizer=weights_regularizer, trainable=trainable,
                collections=_variable_collections(variables_collections, "weights"))
            strides = [1, 1, sh, sw] if data_format == DATA_FORMAT_NCHW else [1, sh, sw, 1]
            outputs = depthwise_conv2d(inputs, depthwise_weights, strides, padding.upper(), rate=list(rate2),
                                       data_format=data_format)
            num_outputs = depth_multiplier * num_filters_in
            if normalizer_fn is not None:
                outputs = normalizer_fn(outputs, **(normalizer_params or {}))
            elif biases_initializer is not None:
                biases = model_variable("biases", shape=[num_outputs], dtype=dtype, initializer=biases_initializer,
                                        regularizer=biases_regularizer, trainable=trainable,
                                        collections=_variable_collections(variables_collections, "biases"))
                outputs = bias_add(outputs, biases, data_format=data_format)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect_named_outputs(outputs_collections, sc.name, outputs)


separable_convolution2d = separable_conv2d


@tf_export("contrib.layers.softmax")
def softmax(logits, scope=None):
    """``tf.nn.softmax`` over the last axis of ``logits`` (rank >= 2, last dimension known), in the variable
    scope ``softmax``."""
    from dflow.ops.array.shape_ops import reshape, shape
    from dflow.ops.nn.nn_activations import softmax as nn_softmax

    with variable_scope(scope, "softmax", [logits]):
        logits = convert_to_tensor(logits)
        if logits.shape.ndims is None or logits.shape.ndims < 2:
            raise ValueError(f"logits should have rank >= 2, got shape {logits.shape}")
        num_logits = logits.shape.as_list()[-1]
        if num_logits is None:
            raise ValueError(f"last dimension shape must be known but is None: {logits.shape}")
        predictions = reshape(nn_softmax(reshape(logits, [-1, num_logits])), shape(logits))
        predictions.set_shape(logits.shape)
        return predictions


def convert_collection_to_dict(collection, clear_collection=False) -> collections.OrderedDict:
    """``{alias: tensor}`` for every tensor of ``collection`` and each of its aliases (``end_points``)."""
    graph = get_default_graph()
    output = collections.OrderedDict(
        (alias, tensor) for tensor in graph.get_collection(collection) for alias in get_tensor_aliases(tensor))
    if clear_collection:
        graph.clear_collection(collection)
    return output
