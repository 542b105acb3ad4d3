"""``tf.layers.Conv1D/2D/3D``, ``Conv2DTranspose``, ``Conv3DTranspose``, ``SeparableConv1D/2D``
and their functional forms, as Keras 2.15 builds TF1's legacy layers: the convolution is
``tf.nn.convolution(..., name=<class name>)`` in the layer's scope (``conv2d/Conv2D``), then
``BiasAdd`` and the activation. Kernels are ``kernel_size + (in, filters)`` (transposes:
``kernel_size + (filters, in)``), initialized by the scope's initializer (Glorot uniform by
default); biases start at zeros.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.graph import Tensor
from dflow.framework.tensor_shape import TensorShape
from dflow.layers.base import InputSpec, Layer
from dflow.layers.core import normalize_data_format
from dflow.ops.state.init_ops import zeros_initializer

_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def normalize_tuple(value, n: int, name: str) -> tuple:
    """Keras' ``normalize_tuple``: an int, or ``n`` ints, as an ``n``-tuple."""
    if isinstance(value, int):
        return (value,) * n
    try:
        value = tuple(value)
    except TypeError:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. Received: {value}") from None
    if len(value) != n or not all(isinstance(v, int) for v in value):
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. Received: {value}")
    return value


def normalize_padding(value, allow_causal=False) -> str:
    padding = value.lower()
    allowed = ("valid", "same", "causal") if allow_causal else ("valid", "same")
    if padding not in allowed:
        raise ValueError(f"The `padding` argument must be a list/tuple or one of {', '.join(map(repr, allowed))}. "
                         f"Received: {value}")
    return padding


def conv_output_length(length, k, padding, stride, dilation=1):
    if length is None:
        return None
    k = k + (k - 1) * (dilation - 1)
    if padding in ("same", "causal"):
        out = length
    else:
        out = length - k + 1
    return (out + stride - 1) // stride


def deconv_output_length(length, k, padding, stride, dilation=1, output_padding=None):
    """Keras' ``deconv_output_length`` (the size of a transposed convolution's output)."""
    if length is None:
        return None
    k = k + (k - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return length * stride + max(k - stride, 0)
        return length * stride
    pad = k // 2 if padding == "same" else 0
    return (length - 1) * stride + k - 2 * pad + output_padding


class _Conv(Layer):
    """Keras' ``Conv``: ``rank`` spatial dimensions."""

    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                 dilation_rate=1, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 groups=1, **kwargs):
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        n = self.rank
        self.filters = int(filters)
        if self.filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. Received "
                             f"filters={filters}.")
        self.groups = int(groups or 1)
        self.kernel_size = normalize_tuple(kernel_size, n, "kernel_size")
        self.strides = normalize_tuple(strides, n, "strides")
        self.padding = normalize_padding(padding, allow_causal=n == 1)
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, n, "dilation_rate")
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=n + 2)
        if self.filters % self.groups:
            raise ValueError(f"The number of filters must be evenly divisible by the number of groups. Received: "
                             f"groups={self.groups}, filters={self.filters}")
        if not all(self.kernel_size):
            raise ValueError(f"The argument `kernel_size` cannot contain 0(s). Received: {kernel_size}")
        if not all(self.strides):
            raise ValueError(f"The argument `strides` cannot contains 0(s). Received: {strides}")

    @property
    def _channel_axis(self) -> int:
        return 1 if self.data_format == "channels_first" else -1

    @property
    def _tf_data_format(self) -> str:
        return _FORMATS[self.rank][self.data_format == "channels_first"]

    def _input_channels(self, input_shape) -> int:
        dims = TensorShape(input_shape).as_list()
        channels = dims[self._channel_axis]
        if channels is None:
            raise ValueError(f"The channel dimension of the inputs should be defined. The input_shape received is "
                             f"{TensorShape(input_shape)}, where axis {self._channel_axis} (0-based) is the channel "
                             f"dimension, which found to be `None`.")
        return int(channels)

    def _kernel_shape(self, channels: int) -> tuple:
        if channels % self.groups:
            raise ValueError(f"The number of input channels must be evenly divisible by the number of groups. "
                             f"Received groups={self.groups}, but the input has {channels} channels (full input "
                             f"shape is ...).")
        return self.kernel_size + (channels // self.groups, self.filters)

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self._add_kernel_and_bias(self._kernel_shape(channels))
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True

    def _add_kernel_and_bias(self, kernel_shape) -> None:
        self.kernel = self.add_weight("kernel", shape=kernel_shape,
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, trainable=True, dtype=self._dtype)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=(self.filters,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        trainable=True, dtype=self._dtype)

    def _convolve(self, inputs):
        from dflow.ops.nn.conv_variants import convolution

        padding = self.padding
        if padding == "causal":
            from dflow.ops.array.array_ops import pad

            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            pads = [[0, 0], [left, 0], [0, 0]] if self.data_format == "channels_last" else \
                [[0, 0], [0, 0], [left, 0]]
            inputs = pad(inputs, pads)
            padding = "valid"
        return convolution(inputs, self.kernel, padding.upper(), strides=list(self.strides),
                           dilations=list(self.dilation_rate), data_format=self._tf_data_format,
                           name=type(self).__name__)

    def _add_bias(self, outputs):
        from dflow.ops.array.shape_ops import reshape
        from dflow.ops.nn.nn_ops import bias_add

        if not self.use_bias:
            return outputs
        if self.rank == 1 and self.data_format == "channels_first":
            return outputs + reshape(self.bias, (1, self.filters, 1))
        return bias_add(outputs, self.bias, data_format=self._tf_data_format)

    def call(self, inputs):
        outputs = self._add_bias(self._convolve(inputs))
        return self.activation(outputs) if self.activation is not None else outputs

    def compute_output_shape(self, input_shape):
        return self._output_shape(input_shape, lambda d, k, s, r, _: conv_output_length(d, k, self.padding, s, r))

    def _output_shape(self, input_shape, length) -> TensorShape:
        """The output shape, ``length(size, kernel, stride, dilation, output_padding)`` per spatial axis."""
        dims = TensorShape(input_shape).as_list()
        first = self.data_format == "channels_first"
        spatial = dims[2:] if first else dims[1:-1]
        pads = getattr(self, "output_padding", None) or (None,) * self.rank
        out = [length(*a) for a in zip(spatial, self.kernel_size, self.strides, self.dilation_rate, pads)]
        return TensorShape([dims[0], self.filters] + out if first else [dims[0]] + out + [self.filters])


@tf_export("layers.Conv1D")
class Conv1D(_Conv):
    """1-D convolution layer (``padding`` may be ``causal``)."""

    rank = 1


@tf_export("layers.Conv2D")
class Conv2D(_Conv):
    """2-D convolution layer: kernel ``kernel_size + (in_channels, filters)``."""

    rank = 2


@tf_export("layers.Conv3D")
class Conv3D(_Conv):
    """3-D convolution layer."""

    rank = 3


class _ConvTranspose(_Conv):
    """Keras' ``Conv2DTranspose``/``Conv3DTranspose``: the output's spatial size is
    ``deconv_output_length`` of the input's."""

    def __init__(self, *args, output_padding=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.output_padding = None if output_padding is None else normalize_tuple(output_padding, self.rank,
                                                                                   "output_padding")

    def build(self, input_shape):
        if TensorShape(input_shape).ndims != self.rank + 2:
            raise ValueError(f"Inputs should have rank {self.rank + 2}. Received input_shape={input_shape}.")
        channels = self._input_channels(input_shape)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        self._add_kernel_and_bias(self.kernel_size + (self.filters, channels))
        self.built = True

    def _out_sizes(self, inputs):
        from dflow.ops.array.shape_ops import shape

        dynamic = shape(inputs)
        static = inputs.shape.as_list()
        first = self.data_format == "channels_first"
        axes = range(2, self.rank + 2) if first else range(1, self.rank + 1)
        pads = self.output_padding or (None,) * self.rank
        sizes = []
        for i, axis in enumerate(axes):
            length = static[axis] if static[axis] is not None else dynamic[axis]
            sizes.append(deconv_output_length(length, self.kernel_size[i], self.padding, self.strides[i],
                                              self.dilation_rate[i], pads[i]))
        batch = dynamic[0]
        return [batch, self.filters] + sizes if first else [batch] + sizes + [self.filters]

    def call(self, inputs):
        from dflow.ops.array.array_ops import stack
        from dflow.ops.nn.conv_variants import conv2d_transpose, conv3d_transpose

        fn = conv2d_transpose if self.rank == 2 else conv3d_transpose
        ones = [1] * (self.rank + 2)
        first = self.data_format == "channels_first"
        strides = [1, 1] + list(self.strides) if first else [1] + list(self.strides) + [1]
        dilations = [1, 1] + list(self.dilation_rate) if first else [1] + list(self.dilation_rate) + [1]
        outputs = fn(inputs, self.kernel, stack(self._out_sizes(inputs)), strides, padding=self.padding.upper(),
                     data_format=self._tf_data_format, dilations=dilations if dilations != ones else None)
        outputs.set_shape(self.compute_output_shape(inputs.shape))
        outputs = self._add_bias(outputs)
        return self.activation(outputs) if self.activation is not None else outputs

    def compute_output_shape(self, input_shape):
        return self._output_shape(input_shape,
                                  lambda d, k, s, r, p: deconv_output_length(d, k, self.padding, s, r, p))


@tf_export("layers.Conv2DTranspose")
class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution layer: kernel ``kernel_size + (filters, in_channels)``."""

    rank = 2


@tf_export("layers.Conv3DTranspose")
class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution layer."""

    rank = 3


class _SeparableConv(_Conv):
    """Keras' ``SeparableConv``: ``depthwise_kernel`` ``kernel_size + (in, depth_multiplier)``, then
    ``pointwise_kernel`` ``(1,) * rank + (in * depth_multiplier, filters)``."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                 dilation_rate=1, depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=zeros_initializer(), depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, trainable=True,
                 name=None, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer, bias_constraint=bias_constraint,
                         trainable=trainable, name=name, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.depthwise_regularizer = depthwise_regularizer
        self.pointwise_regularizer = pointwise_regularizer
        self.depthwise_constraint = depthwise_constraint
        self.pointwise_constraint = pointwise_constraint

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint, trainable=True, dtype=self._dtype)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", shape=(1,) * self.rank + (self.depth_multiplier * channels, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint, trainable=True, dtype=self._dtype)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=(self.filters,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        trainable=True, dtype=self._dtype)
        self.built = True

    def call(self, inputs):
        from dflow.ops.array.shape_ops import expand_dims, squeeze
        from dflow.ops.nn.conv_variants import separable_conv2d

        first = self.data_format == "channels_first"
        fmt = "NCHW" if first else "NHWC"
        strides, rate = list(self.strides), list(self.dilation_rate)
        depthwise, pointwise = self.depthwise_kernel, self.pointwise_kernel
        padding = self.padding
        if self.rank == 1:
            if padding == "causal":
                from dflow.ops.array.array_ops import pad

                left = rate[0] * (self.kernel_size[0] - 1)
                inputs = pad(inputs, [[0, 0], [left, 0], [0, 0]] if not first else [[0, 0], [0, 0], [left, 0]])
                padding = "valid"
            spatial_start = 2 if first else 1
            inputs = expand_dims(inputs, spatial_start)
            depthwise, pointwise = expand_dims(depthwise, 0), expand_dims(pointwise, 0)
            rate = [1] + rate
            strides = strides * 2  # Keras strides the added axis too (its size is 1)
        full_strides = [1, 1] + strides if first else [1] + strides + [1]
        outputs = separable_conv2d(inputs, depthwise, pointwise, full_strides, padding.upper(), rate=rate,
                                   data_format=fmt)
        if self.use_bias:
            from dflow.ops.nn.nn_ops import bias_add

            outputs = bias_add(outputs, self.bias, data_format=fmt)
        if self.rank == 1:
            outputs = squeeze(outputs, [spatial_start])
        return self.activation(outputs) if self.activation is not None else outputs


@tf_export("layers.SeparableConv1D")
class SeparableConv1D(_SeparableConv):
    """Depthwise-separable 1-D convolution layer."""

    rank = 1


@tf_export("layers.SeparableConv2D")
class SeparableConv2D(_SeparableConv):
    """Depthwise-separable 2-D convolution layer."""

    rank = 2


# -- functional forms -------------------------------------------------------------------------------


def _functional(cls, inputs, name, reuse, **kwargs) -> Tensor:
    dtype = inputs.dtype.base_dtype if isinstance(inputs, Tensor) else None
    return cls(name=name, dtype=dtype, _reuse=reuse, _scope=name, **kwargs)(inputs)


def _conv_fn(cls, export: str, doc: str, n: int):
    def fn(inputs, filters, kernel_size, strides=(1,) * n, padding="valid", data_format="channels_last",
           dilation_rate=(1,) * n, activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
        return _functional(cls, inputs, name, reuse, filters=filters, kernel_size=kernel_size, strides=strides,
                           padding=padding, data_format=data_format, dilation_rate=dilation_rate,
                           activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                           bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                           bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                           kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, trainable=trainable)

    fn.__name__ = fn.__qualname__ = export.split(".")[-1]
    fn.__doc__ = doc
    return tf_export(export)(fn)


conv1d = _conv_fn(Conv1D, "layers.conv1d", "``Conv1D(...)(inputs)`` in the scope ``name``.", 1)
conv2d = _conv_fn(Conv2D, "layers.conv2d", "``Conv2D(...)(inputs)`` in the scope ``name``.", 2)
conv3d = _conv_fn(Conv3D, "layers.conv3d", "``Conv3D(...)(inputs)`` in the scope ``name``.", 3)


def _transpose_fn(cls, export: str, n: int):
    def fn(inputs, filters, kernel_size, strides=(1,) * n, padding="valid", data_format="channels_last",
           activation=None, use_bias=True, kernel_initializer=None, bias_initializer=zeros_initializer(),
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
        return _functional(cls, inputs, name, reuse, filters=filters, kernel_size=kernel_size, strides=strides,
                           padding=padding, data_format=data_format, activation=activation, use_bias=use_bias,
                           kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                           kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                           activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                           bias_constraint=bias_constraint, trainable=trainable)

    fn.__name__ = fn.__qualname__ = export.split(".")[-1]
    fn.__doc__ = f"``{cls.__name__}(...)(inputs)`` in the scope ``name``."
    return tf_export(export)(fn)


conv2d_transpose = _transpose_fn(Conv2DTranspose, "layers.conv2d_transpose", 2)
conv3d_transpose = _transpose_fn(Conv3DTranspose, "layers.conv3d_transpose", 3)


def _separable_fn(cls, export: str, n: int):
    def fn(inputs, filters, kernel_size, strides=(1,) * n, padding="valid", data_format="channels_last",
           dilation_rate=(1,) * n, depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer=None,
           pointwise_initializer=None, bias_initializer=zeros_initializer(), depthwise_regularizer=None,
           pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
           pointwise_constraint=None, bias_constraint=None, trainable=True, name=None, reuse=None):
        return _functional(cls, inputs, name, reuse, filters=filters, kernel_size=kernel_size, strides=strides,
                           padding=padding, data_format=data_format, dilation_rate=dilation_rate,
                           depth_multiplier=depth_multiplier, activation=activation, use_bias=use_bias,
                           depthwise_initializer=depthwise_initializer, pointwise_initializer=pointwise_initializer,
                           bias_initializer=bias_initializer, depthwise_regularizer=depthwise_regularizer,
                           pointwise_regularizer=pointwise_regularizer, bias_regularizer=bias_regularizer,
                           activity_regularizer=activity_regularizer, depthwise_constraint=depthwise_constraint,
                           pointwise_constraint=pointwise_constraint, bias_constraint=bias_constraint,
                           trainable=trainable)

    fn.__name__ = fn.__qualname__ = export.split(".")[-1]
    fn.__doc__ = f"``{cls.__name__}(...)(inputs)`` in the scope ``name``."
    return tf_export(export)(fn)


separable_conv1d = _separable_fn(SeparableConv1D, "layers.separable_conv1d", 1)
separable_conv2d = _separable_fn(SeparableConv2D, "layers.separable_conv2d", 2)
