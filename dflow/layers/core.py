"""``tf.layers.Dense``, ``Dropout`` and ``Flatten`` and their functional forms.

The functional forms make a layer and call it once. ``dense`` (and the conv and batch norm
functions) pass ``name`` as the layer's scope: ``dense(x, 3, name="fc")`` twice makes the
variables ``fc/kernel`` twice (an error without ``reuse=True``), as TF1's do.
"""

from __future__ import annotations

import numbers

import numpy as np

from dflow._api import tf_export
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import TensorShape, dimension_value
from dflow.layers.base import InputSpec, Layer
from dflow.ops.math import math_ops
from dflow.ops.state.init_ops import zeros_initializer


def smart_cond(pred, true_fn, false_fn):
    """``true_fn()`` or ``false_fn()`` when ``pred`` is known at graph time, else ``tf.cond``."""
    from dflow.ops.control_flow.control_flow_ops import cond

    value = pred
    if isinstance(pred, Tensor):
        value = constant_value(pred)
    elif hasattr(pred, "_as_graph_element"):
        value = None
    if value is None:
        return cond(pred, true_fn, false_fn)
    if isinstance(value, np.ndarray):
        value = bool(value)
    if not isinstance(value, (bool, np.bool_, int, np.integer)):
        raise TypeError(f"`pred` must be a Tensor, or a Python bool, or 1 or 0. Found instead: {type(pred)}")
    return true_fn() if value else false_fn()


@tf_export("layers.Dense")
class Dense(Layer):
    """``activation(inputs @ kernel + bias)``; ``kernel`` ``[in, units]`` starts as the variable
    scope's initializer (Glorot uniform by default), ``bias`` at zeros."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        if self.units <= 0:
            raise ValueError(f"Received an invalid value for `units`, expected a positive integer. Received: "
                             f"units={units}")
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        last = dimension_value(shape[-1]) if shape.ndims else None
        if last is None:
            raise ValueError(f"The last dimension of the inputs to a Dense layer should be defined. Found None. Full "
                             f"input shape received: {shape}")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
        self.kernel = self.add_weight("kernel", shape=[last, self.units], initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      dtype=self._dtype, trainable=True)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[self.units], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        dtype=self._dtype, trainable=True)
        self.built = True

    def call(self, inputs):
        from dflow.ops.linalg.einsum_ops import tensordot
        from dflow.ops.linalg.linalg_ops import matmul
        from dflow.ops.nn.nn_ops import bias_add

        if inputs.dtype.base_dtype != self._dtype:
            inputs = math_ops.cast(inputs, self._dtype)
        rank = inputs.shape.ndims
        if rank == 2 or rank is None:
            outputs = matmul(inputs, self.kernel)
        else:
            outputs = tensordot(inputs, self.kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.shape.as_list()[:-1] + [self.units])
        if self.use_bias:
            outputs = bias_add(outputs, self.bias)
        return self.activation(outputs) if self.activation is not None else outputs

    def compute_output_shape(self, input_shape):
        shape = TensorShape(input_shape).with_rank_at_least(2)
        return shape[:-1].concatenate([self.units])


@tf_export("layers.dense")
def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
          reuse=None):
    """``Dense(units, ...)(inputs)`` in the scope ``name`` (reused with ``reuse=True``).

    >>> import dflow as tf
    >>> with tf.Graph().as_default():
    ...     y = tf.layers.dense(tf.zeros([4, 3]), 2, activation=tf.nn.relu)
    ...     y.op.name, y.shape.as_list()
    ('dense/Relu', [4, 2])
    """
    layer = Dense(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, trainable=trainable,
                  name=name, dtype=inputs.dtype.base_dtype if isinstance(inputs, Tensor) else None, _scope=name,
                  _reuse=reuse)
    return layer(inputs)


@tf_export("layers.Dropout")
class Dropout(Layer):
    """Zeroes inputs with probability ``rate`` (scaling the rest by ``1 / (1 - rate)``) when
    ``training`` (a Python bool or a boolean tensor) is true; the identity otherwise."""

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for `rate`, expected a value between 0 and 1, got: {rate}")
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def _get_noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        from dflow.ops.array.shape_ops import shape

        concrete = shape(inputs)
        return [concrete[i] if value is None else value for i, value in enumerate(self.noise_shape)]

    def call(self, inputs, training=False):
        from dflow.ops.control_flow.control_flow_ops import identity
        from dflow.ops.nn.nn_ops import dropout as nn_dropout

        if isinstance(self.rate, numbers.Real) and self.rate == 0:
            return identity(inputs)

        def dropped():
            return nn_dropout(inputs, noise_shape=self._get_noise_shape(inputs), seed=self.seed, rate=self.rate)

        return smart_cond(training, dropped, lambda: identity(inputs))

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


@tf_export("layers.dropout")
def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """``Dropout(rate, ...)(inputs, training=training)``: the identity unless ``training``."""
    return Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)(inputs, training=training)


@tf_export("layers.Flatten")
class Flatten(Layer):
    """``[batch, ...]`` → ``[batch, prod(...)]`` (channels moved last first for ``channels_first``)."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        from dflow.framework.constant_op import constant
        from dflow.ops.array.shape_ops import expand_dims, reshape, shape, transpose

        if self.data_format == "channels_first" and inputs.shape.ndims and inputs.shape.ndims > 1:
            rank = inputs.shape.ndims
            inputs = transpose(inputs, [0] + list(range(2, rank)) + [1])
        dims = inputs.shape
        if dims.ndims == 1:
            return expand_dims(inputs, axis=1)
        batch = dims.as_list()[0] if dims.ndims else None
        rest = TensorShape(dims.as_list()[1:]) if dims.ndims else TensorShape(None)
        if rest.is_fully_defined():
            target = constant([-1, int(np.prod(rest.as_list()))])
        elif batch is not None:
            target = constant([int(batch), -1])
        else:
            target = [shape(inputs)[0], -1]
        return reshape(inputs, target)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        rest = dims[1:]
        return TensorShape([dims[0], int(np.prod(rest)) if None not in rest else None])


@tf_export("layers.flatten")
def flatten(inputs, name=None, data_format="channels_last"):
    """``Flatten(name=name, data_format=data_format)(inputs)``."""
    return Flatten(name=name, data_format=data_format)(inputs)


def normalize_data_format(value) -> str:
    """Keras' ``normalize_data_format``: ``channels_last`` (default) or ``channels_first``."""
    if value is None:
        return "channels_last"
    value = value.lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError(f'The `data_format` argument must be one of "channels_first", "channels_last". '
                         f"Received: {value}")
    return value


