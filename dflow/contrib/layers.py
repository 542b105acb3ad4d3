"""``tf.contrib.layers``' layer functions as TF 1.15 shipped them: the same arguments, defaults,
variable names and collections, all decorated with ``add_arg_scope``.

* ``fully_connected`` (``linear``, ``relu``, ``relu6``), ``conv2d`` / ``convolution`` (1-3 D),
  ``conv2d_transpose``: a ``tf.layers`` layer built in the variable scope ``fully_connected``,
  ``Conv``, ``Conv2d_transpose`` (made unique: ``fully_connected_1``, ...) whose ``kernel`` and
  ``bias`` are renamed ``weights`` and ``biases`` and made model variables (``MODEL_VARIABLES``);
  ``normalizer_fn`` replaces the biases, then ``activation_fn`` (ReLU by default) applies;
* ``batch_norm`` (``BatchNorm/beta``, ``gamma``, ``moving_mean``, ``moving_variance``; its moving
  average updates go to ``UPDATE_OPS``, or run in place with ``updates_collections=None``),
  ``layer_norm`` (``LayerNorm/beta``, ``gamma``), ``bias_add``;
* ``max_pool2d``, ``avg_pool2d``, ``dropout``, ``flatten``, ``one_hot_encoding``, ``embed_sequence``,
  ``repeat``, ``stack``.

``outputs_collections`` receive each output (dflow tensors take no ``aliases`` attribute, unlike TF's).
"""

from __future__ import annotations

import functools
import numbers

from dflow._api import tf_export
from dflow.contrib.aliases import xavier_initializer
from dflow.contrib.framework import add_arg_scope, model_variable
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import get_default_graph, name_scope
from dflow.layers import convolutional as conv_layers
from dflow.layers import core as core_layers
from dflow.ops.nn import nn_activations
from dflow.ops.state.init_ops import ones_initializer, zeros_initializer
from dflow.ops.state.variable_scope import variable_scope

DATA_FORMAT_NCHW = "NCHW"
DATA_FORMAT_NHWC = "NHWC"

relu_fn = nn_activations.relu

# -- contrib.layers.utils --------------------------------------------------------------------------


def _variable_collections(variables_collections, name):
    """``variables_collections`` itself, or its entry for ``name`` when it is a dict."""
    if isinstance(variables_collections, dict):
        return variables_collections.get(name, None)
    return variables_collections


def _add_variable_to_collections(variable, collections_set, collections_name) -> None:
    graph = get_default_graph()
    parts = list(variable) if hasattr(variable, "_variable_list") else [variable]
    for collection in _variable_collections(collections_set, collections_name) or []:
        for var in parts:
            if var not in graph.get_collection(collection):
                graph.add_to_collection(collection, var)


def _collect_named_outputs(collections, alias, outputs):
    """Adds ``outputs`` to ``collections`` with ``alias`` (less a trailing ``/``) in ``outputs.aliases``."""
    if collections:
        if alias[-1:] == "/":
            alias = alias[:-1]
        if hasattr(outputs, "aliases"):
            outputs.aliases.append(alias)
        else:
            try:
                outputs.aliases = [alias]
            except AttributeError:  # dflow's Tensor has fixed slots: the graph keeps its aliases instead
                _graph_aliases(get_default_graph()).setdefault(outputs, []).append(alias)
        get_default_graph().add_to_collections(collections, outputs)
    return outputs


def _graph_aliases(graph) -> dict:
    """The graph's table ``tensor -> [alias, ...]`` for tensors that take no ``aliases`` attribute."""
    table = getattr(graph, "_contrib_tensor_aliases", None)
    if table is None:
        table = graph._contrib_tensor_aliases = {}
    return table


def get_tensor_aliases(tensor) -> list:
    """contrib's ``utils.get_tensor_aliases``: the aliases ``outputs_collections`` gave ``tensor``, else its
    name less ``:0``."""
    if hasattr(tensor, "aliases"):
        return list(tensor.aliases)
    graph = getattr(tensor, "graph", None)
    aliases = _graph_aliases(graph).get(tensor) if graph is not None else None
    if aliases:
        return list(aliases)
    return [tensor.name[:-2] if tensor.name[-2:] == ":0" else tensor.name]


def _model_variable_getter(getter, name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=True,
                           collections=None, caching_device=None, partitioner=None, rename=None, use_resource=None,
                           **_):
    """A custom getter making a core layer's variables model variables, ``rename``-ing their last component."""
    short_name = name.split("/")[-1]
    if rename and short_name in rename:
        name = "/".join(name.split("/")[:-1] + [rename[short_name]])
    return model_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                          collections=collections, trainable=trainable, caching_device=caching_device,
                          partitioner=partitioner, custom_getter=getter, use_resource=use_resource)


def _build_variable_getter(rename=None):
    def layer_variable_getter(getter, *args, **kwargs):
        kwargs["rename"] = rename
        return _model_variable_getter(getter, *args, **kwargs)

    return layer_variable_getter


_RENAME = {"bias": "biases", "kernel": "weights"}


def _finish(outputs, normalizer_fn, normalizer_params, activation_fn, outputs_collections, alias):
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    if activation_fn is not None:
        outputs = activation_fn(outputs)
    return _collect_named_outputs(outputs_collections, alias, outputs)


# -- dense and convolution -------------------------------------------------------------------------


@tf_export("contrib.layers.fully_connected")
@add_arg_scope
def fully_connected(inputs, num_outputs, activation_fn=relu_fn, normalizer_fn=None, normalizer_params=None,
                    weights_initializer=xavier_initializer(), weights_regularizer=None,
                    biases_initializer=zeros_initializer(), biases_regularizer=None, reuse=None,
                    variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """``activation_fn(normalizer_fn(inputs @ weights) or inputs @ weights + biases)`` in the variable scope
    ``scope`` (default ``fully_connected``, made unique); inputs of rank > 2 contract their last axis."""
    if isinstance(num_outputs, bool) or not isinstance(num_outputs, numbers.Integral):
        raise ValueError(f"num_outputs type should be one of [<class 'int'>], got {type(num_outputs)}.")
    getter = _build_variable_getter(_RENAME)
    with variable_scope(scope, "fully_connected", [inputs], reuse=reuse, custom_getter=getter) as sc:
        inputs = convert_to_tensor(inputs)
        layer = core_layers.Dense(units=int(num_outputs), activation=None,
                                  use_bias=bool(not normalizer_fn and biases_initializer),
                                  kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
                                  kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
                                  trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
                                  _reuse=reuse)
        outputs = layer.apply(inputs)
        _add_variable_to_collections(layer.kernel, variables_collections, "weights")
        if layer.bias is not None:
            _add_variable_to_collections(layer.bias, variables_collections, "biases")
        return _finish(outputs, normalizer_fn, normalizer_params, activation_fn, outputs_collections, sc.name)


# TF 1.15: partials of the decorated function (so an arg_scope on fully_connected reaches them).
linear = tf_export("contrib.layers.linear")(functools.partial(fully_connected, activation_fn=None))
relu = tf_export("contrib.layers.relu")(functools.partial(fully_connected, activation_fn=relu_fn))
relu6 = tf_export("contrib.layers.relu6")(functools.partial(fully_connected, activation_fn=nn_activations.relu6))
elu = tf_export("contrib.layers.elu")(functools.partial(fully_connected, activation_fn=nn_activations.elu))

_CONV_CLASSES = {3: conv_layers.Conv1D, 4: conv_layers.Conv2D, 5: conv_layers.Conv3D}


@tf_export("contrib.layers.convolution")
@add_arg_scope
def convolution(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None, rate=1,
                activation_fn=relu_fn, normalizer_fn=None, normalizer_params=None,
                weights_initializer=xavier_initializer(), weights_regularizer=None,
                biases_initializer=zeros_initializer(), biases_regularizer=None, reuse=None,
                variables_collections=None, outputs_collections=None, trainable=True, scope=None, conv_dims=None):
    """An N-D convolution (N from the inputs' rank, 1 to 3) in the variable scope ``Conv``: ``weights``
    ``kernel_size + [in, num_outputs]``, then biases or ``normalizer_fn``, then ``activation_fn``."""
    if data_format not in (None, "NWC", "NCW", "NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise ValueError(f"Invalid data_format: {data_format!r}")
    getter = _build_variable_getter(_RENAME)
    with variable_scope(scope, "Conv", [inputs], reuse=reuse, custom_getter=getter) as sc:
        inputs = convert_to_tensor(inputs)
        input_rank = inputs.shape.ndims
        if conv_dims is not None and conv_dims + 2 != input_rank:
            raise ValueError(f"Convolution expects input with rank {conv_dims + 2}, got {input_rank}")
        if input_rank not in _CONV_CLASSES:
            raise ValueError("Convolution not supported for input with rank", input_rank)
        df = "channels_first" if data_format and data_format.startswith("NC") else "channels_last"
        layer = _CONV_CLASSES[input_rank](
            filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding, data_format=df,
            dilation_rate=rate, activation=None, use_bias=bool(not normalizer_fn and biases_initializer),
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer, trainable=trainable,
            name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc, _reuse=reuse)
        outputs = layer.apply(inputs)
        _add_variable_to_collections(layer.kernel, variables_collections, "weights")
        if layer.use_bias:
            _add_variable_to_collections(layer.bias, variables_collections, "biases")
        return _finish(outputs, normalizer_fn, normalizer_params, activation_fn, outputs_collections, sc.name)


def _fixed_rank_convolution(conv_dims: int, names: tuple):
    @add_arg_scope
    def conv(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None, rate=1,
             activation_fn=relu_fn, normalizer_fn=None, normalizer_params=None,
             weights_initializer=xavier_initializer(), weights_regularizer=None,
             biases_initializer=zeros_initializer(), biases_regularizer=None, reuse=None,
             variables_collections=None, outputs_collections=None, trainable=True, scope=None):
        return convolution(inputs, num_outputs, kernel_size, stride, padding, data_format, rate, activation_fn,
                           normalizer_fn, normalizer_params, weights_initializer, weights_regularizer,
                           biases_initializer, biases_regularizer, reuse, variables_collections,
                           outputs_collections, trainable, scope, conv_dims=conv_dims)

    conv.__name__ = conv.__qualname__ = f"convolution{conv_dims}d"
    conv.__doc__ = convolution.__doc__
    # add_arg_scope keys a function by str(func); give each its own key before decorating.
    return tf_export(*(f"contrib.layers.{n}" for n in names))(conv)


convolution1d = conv1d = _fixed_rank_convolution(1, ("convolution1d", "conv1d"))
convolution2d = conv2d = _fixed_rank_convolution(2, ("convolution2d", "conv2d"))
convolution3d = conv3d = _fixed_rank_convolution(3, ("convolution3d", "conv3d"))


@tf_export("contrib.layers.conv2d_transpose", "contrib.layers.convolution2d_transpose")
@add_arg_scope
def conv2d_transpose(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=DATA_FORMAT_NHWC,
                     activation_fn=relu_fn, normalizer_fn=None, normalizer_params=None,
                     weights_initializer=xavier_initializer(), weights_regularizer=None,
                     biases_initializer=zeros_initializer(), biases_regularizer=None, reuse=None,
                     variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """A transposed 2-D convolution in the variable scope ``Conv2d_transpose`` (``weights``
    ``[kh, kw, num_outputs, in]``)."""
    getter = _build_variable_getter(_RENAME)
    with variable_scope(scope, "Conv2d_transpose", [inputs], reuse=reuse, custom_getter=getter) as sc:
        if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
            raise ValueError("data_format has to be either NCHW or NHWC.")
        inputs = convert_to_tensor(inputs)
        df = "channels_first" if data_format.startswith("NC") else "channels_last"
        layer = conv_layers.Conv2DTranspose(
            filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding, data_format=df,
            activation=None, use_bias=bool(not normalizer_fn and biases_initializer),
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer, trainable=trainable,
            name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc, _reuse=reuse)
        outputs = layer.apply(inputs)
        _add_variable_to_collections(layer.kernel, variables_collections, "weights")
        if layer.bias is not None:
            _add_variable_to_collections(layer.bias, variables_collections, "biases")
        return _finish(outputs, normalizer_fn, normalizer_params, activation_fn, outputs_collections, sc.name)


convolution2d_transpose = conv2d_transpose


@tf_export("contrib.layers.bias_add")
@add_arg_scope
def bias_add(inputs, activation_fn=None, initializer=zeros_initializer(), regularizer=None, reuse=None,
             variables_collections=None, outputs_collections=None, trainable=True, data_format=DATA_FORMAT_NHWC,
             scope=None):
    """Adds the model variable ``BiasAdd/biases`` (one per channel) to ``inputs``."""
    from dflow.ops.nn.nn_ops import bias_add as nn_bias_add

    if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with variable_scope(scope, "BiasAdd", [inputs], reuse=reuse) as sc:
        inputs = convert_to_tensor(inputs)
        rank = inputs.shape.ndims
        if rank is None:
            raise ValueError("Dims of shape must be known but is None")
        if rank != 4 and data_format == DATA_FORMAT_NCHW:
            raise ValueError("Data format NCHW only supports 4D Tensor")
        num_features = inputs.shape.as_list()[1 if data_format == DATA_FORMAT_NCHW else -1]
        if num_features is None:
            raise ValueError("`C` dimension must be known but is None")
        biases = model_variable("biases", shape=[num_features], dtype=inputs.dtype.base_dtype,
                                initializer=initializer, regularizer=regularizer,
                                collections=_variable_collections(variables_collections, "biases"),
                                trainable=trainable)
        outputs = nn_bias_add(inputs, biases, data_format=data_format)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect_named_outputs(outputs_collections, sc.name, outputs)


# -- pooling, dropout, reshaping -------------------------------------------------------------------


def _pool2d(kind, inputs, kernel_size, stride, padding, data_format, outputs_collections, scope):
    from dflow.ops.nn import pool_ops

    if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with name_scope(scope, f"{kind}Pool2D", [inputs]) as sc:
        inputs = convert_to_tensor(inputs)
        kh, kw = conv_layers.normalize_tuple(kernel_size, 2, "pool_size")
        sh, sw = conv_layers.normalize_tuple(stride, 2, "strides")
        padding = conv_layers.normalize_padding(padding).upper()
        if data_format == DATA_FORMAT_NHWC:
            ksize, strides = [1, kh, kw, 1], [1, sh, sw, 1]
        else:
            ksize, strides = [1, 1, kh, kw], [1, 1, sh, sw]
        fn = pool_ops.max_pool if kind == "Max" else pool_ops.avg_pool
        outputs = fn(inputs, ksize, strides, padding, data_format=data_format, name=f"{kind}Pool")
        return _collect_named_outputs(outputs_collections, sc, outputs)


@tf_export("contrib.layers.max_pool2d")
@add_arg_scope
def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format=DATA_FORMAT_NHWC,
               outputs_collections=None, scope=None):
    """2-D max pooling in the name scope ``MaxPool2D`` (``kernel_size`` and ``stride``: an int or two)."""
    return _pool2d("Max", inputs, kernel_size, stride, padding, data_format, outputs_collections, scope)


@tf_export("contrib.layers.avg_pool2d")
@add_arg_scope
def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format=DATA_FORMAT_NHWC,
               outputs_collections=None, scope=None):
    """2-D average pooling in the name scope ``AvgPool2D``."""
    return _pool2d("Avg", inputs, kernel_size, stride, padding, data_format, outputs_collections, scope)


@tf_export("contrib.layers.dropout")
@add_arg_scope
def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True, outputs_collections=None, scope=None,
            seed=None):
    """Keeps each element with probability ``keep_prob`` (scaled by ``1 / keep_prob``) when
    ``is_training`` (a bool or a boolean tensor); the identity otherwise."""
    with variable_scope(scope, "Dropout", [inputs], custom_getter=_model_variable_getter) as sc:
        inputs = convert_to_tensor(inputs)
        layer = core_layers.Dropout(rate=1 - keep_prob, noise_shape=noise_shape, seed=seed, name=sc.name, _scope=sc)
        outputs = layer.apply(inputs, training=is_training)
        return _collect_named_outputs(outputs_collections, sc.name, outputs)


@tf_export("contrib.layers.flatten")
@add_arg_scope
def flatten(inputs, outputs_collections=None, scope=None):
    """``[batch, ...]`` → ``[batch, k]`` in the name scope ``Flatten``."""
    with name_scope(scope, "Flatten", [inputs]) as sc:
        inputs = convert_to_tensor(inputs)
        if inputs.shape.ndims is None or inputs.shape.ndims < 2:
            raise ValueError(f"Inputs must have a least 2 dimensions. Received: {inputs.shape}")
        outputs = core_layers.flatten(inputs)
        return _collect_named_outputs(outputs_collections, sc, outputs)


@tf_export("contrib.layers.one_hot_encoding")
@add_arg_scope
def one_hot_encoding(labels, num_classes, on_value=1.0, off_value=0.0, outputs_collections=None, scope=None):
    """``tf.one_hot(labels, num_classes, on_value, off_value)`` in the name scope ``OneHotEncoding``."""
    from dflow.ops.array.creation_ops import one_hot
    from dflow.ops.math.math_ops import to_int64

    with name_scope(scope, "OneHotEncoding", [labels, num_classes]) as sc:
        labels = convert_to_tensor(labels)
        if labels.dtype == dtypes.int32:
            labels = to_int64(labels)
        outputs = one_hot(labels, num_classes, on_value=on_value, off_value=off_value)
        return _collect_named_outputs(outputs_collections, sc, outputs)


@tf_export("contrib.layers.embed_sequence")
def embed_sequence(ids, vocab_size=None, embed_dim=None, unique=False, initializer=None, regularizer=None,
                   trainable=True, scope=None, reuse=None):
    """Looks ``ids`` up in the model variable ``EmbedSequence/embeddings`` ``[vocab_size, embed_dim]``."""
    from dflow.ops.embedding.embedding_ops import embedding_lookup

    if not (reuse or (vocab_size and embed_dim)):
        raise ValueError(f"Must specify vocab size and embedding dimension when not reusing. Got vocab_size="
                         f"{vocab_size} and embed_dim={embed_dim}")
    with variable_scope(scope, "EmbedSequence", [ids], reuse=reuse):
        shape = [vocab_size, embed_dim]
        if reuse and vocab_size is None or embed_dim is None:
            shape = None
        embeddings = model_variable("embeddings", shape=shape, initializer=initializer, regularizer=regularizer,
                                    trainable=trainable)
        if unique:
            return _embedding_lookup_unique(embeddings, ids)
        return embedding_lookup(embeddings, ids)


def _embedding_lookup_unique(params, ids):
    """contrib's ``embedding_lookup_unique``: looks each distinct id up once, then gathers."""
    from dflow.ops.array.array_ops import concat
    from dflow.ops.array.gather_ops import gather
    from dflow.ops.array.shape_ops import reshape, shape
    from dflow.ops.embedding.embedding_ops import embedding_lookup
    from dflow.ops.math.sort_ops import unique

    with name_scope("EmbeddingLookupUnique", values=[params, ids]):
        ids = convert_to_tensor(ids)
        unique_ids, idx = unique(reshape(ids, [-1]))
        looked_up = gather(embedding_lookup(params, unique_ids), idx)
        return reshape(looked_up, concat([shape(ids), shape(params)[1:]], 0))


@tf_export("contrib.layers.repeat")
def repeat(inputs, repetitions, layer, *args, **kwargs):
    """``layer`` applied ``repetitions`` times in the scope ``scope`` (default ``Repeat``), the calls
    scoped ``<name>_1``, ``<name>_2``, ... (``name``: ``scope``, else the layer function's name)."""
    scope = kwargs.pop("scope", None)
    with variable_scope(scope, "Repeat", [inputs]):
        inputs = convert_to_tensor(inputs)
        if scope is None:
            scope = getattr(layer, "__name__", None) or getattr(getattr(layer, "func", None), "__name__", "repeat")
        outputs = inputs
        for i in range(repetitions):
            kwargs["scope"] = f"{scope}_{i + 1}"
            outputs = layer(outputs, *args, **kwargs)
        return outputs


@tf_export("contrib.layers.stack")
def stack(inputs, layer, stack_args, **kwargs):
    """``layer`` applied once per entry of ``stack_args`` (a tuple of positional arguments, or one),
    the calls scoped ``<name>_1``, ``<name>_2``, ... in the scope ``scope`` (default ``Stack``)."""
    scope = kwargs.pop("scope", None)
    if not isinstance(stack_args, (list, tuple)):
        raise ValueError("stack_args need to be a list or tuple")
    with variable_scope(scope, "Stack", [inputs]):
        inputs = convert_to_tensor(inputs)
        if scope is None:
            scope = getattr(layer, "__name__", None) or getattr(getattr(layer, "func", None), "__name__", "stack")
        outputs = inputs
        for i in range(len(stack_args)):
            kwargs["scope"] = f"{scope}_{i + 1}"
            layer_args = stack_args[i]
            if not isinstance(layer_args, (list, tuple)):
                layer_args = [layer_args]
            outputs = layer(outputs, *layer_args, **kwargs)
        return outputs


# -- normalization ---------------------------------------------------------------------------------


@tf_export("contrib.layers.layer_norm")
@add_arg_scope
def layer_norm(inputs, center=True, scale=True, activation_fn=None, reuse=None, variables_collections=None,
               outputs_collections=None, trainable=True, begin_norm_axis=1, begin_params_axis=-1, scope=None):
    """Normalizes over axes ``begin_norm_axis:`` (epsilon 1e-12), then scales by ``LayerNorm/gamma`` and
    shifts by ``LayerNorm/beta``, both of shape ``inputs.shape[begin_params_axis:]``."""
    from dflow.ops.nn.nn_norm_ops import batch_normalization, moments

    with variable_scope(scope, "LayerNorm", [inputs], reuse=reuse) as sc:
        inputs = convert_to_tensor(inputs)
        inputs_shape = inputs.shape
        rank = inputs_shape.ndims
        if rank is None:
            raise ValueError(f"Inputs {inputs.name} has undefined rank.")
        dtype = inputs.dtype.base_dtype
        if begin_norm_axis < 0:
            begin_norm_axis = rank + begin_norm_axis
        if begin_params_axis >= rank or begin_norm_axis >= rank:
            raise ValueError(f"begin_params_axis ({begin_params_axis}) and begin_norm_axis ({begin_norm_axis}) "
                             f"must be < rank(inputs) ({rank})")
        params_shape = inputs_shape[begin_params_axis:]
        if not params_shape.is_fully_defined():
            raise ValueError(f"Inputs {inputs.name}: shape(inputs)[{begin_params_axis}:] is not fully defined: "
                             f"{inputs_shape}")
        beta = gamma = None
        if center:
            beta = model_variable("beta", shape=params_shape, dtype=dtype, initializer=zeros_initializer(),
                                  collections=_variable_collections(variables_collections, "beta"),
                                  trainable=trainable)
        if scale:
            gamma = model_variable("gamma", shape=params_shape, dtype=dtype, initializer=ones_initializer(),
                                   collections=_variable_collections(variables_collections, "gamma"),
                                   trainable=trainable)
        mean, variance = moments(inputs, list(range(begin_norm_axis, rank)), keep_dims=True)
        epsilon = 1e-12 if dtype != dtypes.float16 else 1e-3
        outputs = batch_normalization(inputs, mean, variance, offset=beta, scale=gamma, variance_epsilon=epsilon)
        outputs.set_shape(inputs_shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect_named_outputs(outputs_collections, sc.name, outputs)
