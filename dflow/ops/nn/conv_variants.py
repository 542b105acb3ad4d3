"""The rest of TF1's convolutions, built on the ``conv_ops`` kernels:

* ``conv1d`` (and ``conv1d_transpose``): a ``Conv2D`` (``Conv2DBackpropInput``) over an
  input with a height of 1, as TF builds it (``ExpandDims``, the op, ``Squeeze``);
* ``conv3d`` and ``conv3d_transpose``: ``Conv3D`` and ``Conv3DBackpropInputV2``;
* ``conv2d_transpose``: ``Conv2DBackpropInput`` with ``output_shape`` as the input sizes;
* ``depthwise_conv2d_native`` (``DepthwiseConv2dNative``), ``depthwise_conv2d`` and
  ``separable_conv2d`` (through ``with_space_to_batch`` when dilated, as TF);
* ``convolution``, ``conv_transpose`` and ``atrous_conv2d(_transpose)``, which pick one of those
  by rank. Dilated ones run between ``SpaceToBatchND`` and ``BatchToSpaceND``, as in TF1.
"""

from __future__ import annotations

from collections.abc import Sized

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.array import array_ops
from dflow.ops.array.shape_ops import expand_dims, squeeze
from dflow.ops.nn import conv_ops
from dflow.ops.nn._nn_util import FLOATS, as_tensor, with_rank
from dflow.ops.nn.conv_ops import (
    _conv_backprop_filter,
    _conv_backprop_input,
    check_data_format,
    convert_padding,
    get_sequence,
)


def _pick(new, old, new_name: str, old_name: str):
    """TF's ``deprecated_argument_lookup``."""
    if new is not None and old is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return new if new is not None else old


def _attrs(strides, padding, data_format, dilations, explicit=None) -> dict:
    attrs = {"strides": tuple(strides), "padding": padding, "data_format": data_format,
             "dilations": tuple(dilations)}
    if explicit is not None:
        attrs["explicit_paddings"] = tuple(explicit)
    return attrs


def _padding_2d(padding, data_format):
    """``(padding, explicit_paddings)`` of a 2-D op (explicit ``[[b, a]] * 4`` allowed)."""
    if padding is None:
        raise ValueError("padding must be 'SAME', 'VALID' or explicit [[before, after]] * 4")
    return convert_padding(padding, data_format)


def _padding_3d(padding, op_type: str) -> str:
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Attr 'padding' of '{op_type}' Op passed string {padding!r} not in: \"SAME\", \"VALID\".")
    return padding


def _full(seq, n: int, op_type: str, what: str) -> list:
    """A generated op's ``strides``/``dilations``: exactly ``n`` values (TF's gen ops do not expand)."""
    seq = [int(v) for v in seq]
    if len(seq) != n:
        bound = "less than minimum" if len(seq) < n else "greater than maximum"
        raise ValueError(f"Attr '{what}' of '{op_type}' Op passed list of length {len(seq)} {bound} {n}.")
    return seq


def _sizes(value, name: str) -> Tensor:
    return convert_to_tensor(value, name=name) if isinstance(value, Tensor) else \
        convert_to_tensor(np.asarray(value, dtype=np.int32), name=name)


def _gen_2d(op_type, name, values, build, strides, padding, data_format, dilations, allowed=FLOATS) -> Tensor:
    """A 2-D convolution op as TF's generated wrapper makes it (4 strides and dilations, SAME, VALID
    or explicit padding); ``build(allowed)`` converts the inputs inside the op's name scope."""
    data_format = check_data_format(data_format)
    padding, explicit = _padding_2d(padding, data_format)
    with name_scope(name, op_type, values) as scope:
        inputs = build(allowed)
        attrs = _attrs(_full(strides, 4, op_type, "strides"), padding, data_format,
                       _full(dilations, 4, op_type, "dilations"), explicit)
        return apply_op(op_type, inputs, attrs, name=scope).outputs[0]


def _input_backprop_inputs(input_sizes, w, out_backprop):
    def build(allowed):
        dy = as_tensor(out_backprop, "out_backprop", allowed)
        return [_sizes(input_sizes, "input_sizes"), convert_to_tensor(w, dtype=dy.dtype, name="filter"), dy]
    return build


def _filter_backprop_inputs(x, filter_sizes, out_backprop):
    def build(allowed):
        x_t = as_tensor(x, "input", allowed)
        dy = convert_to_tensor(out_backprop, dtype=x_t.dtype, name="out_backprop")
        return [x_t, _sizes(filter_sizes, "filter_sizes"), dy]
    return build


# -- the backprop ops as functions --------------------------------------------------------------


@tf_export("nn.conv2d_backprop_input")
def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None, padding=None,  # noqa: A002
                          use_cudnn_on_gpu=True, data_format="NHWC", dilations=(1, 1, 1, 1), name=None,
                          filters=None) -> Tensor:
    """The gradient of ``conv2d`` with respect to its input, of shape ``input_sizes``."""
    w = _pick(filters, filter, "filters", "filter")
    return _gen_2d("Conv2DBackpropInput", name, [input_sizes, w, out_backprop],
                   _input_backprop_inputs(input_sizes, w, out_backprop), strides, padding, data_format, dilations,
                   FLOATS + (dtypes.int32,))


@tf_export("nn.conv2d_backprop_filter")
def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
                           data_format="NHWC", dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """The gradient of ``conv2d`` with respect to its filter, of shape ``filter_sizes``."""
    return _gen_2d("Conv2DBackpropFilter", name, [input, filter_sizes, out_backprop],
                   _filter_backprop_inputs(input, filter_sizes, out_backprop), strides, padding, data_format,
                   dilations, FLOATS + (dtypes.int32,))


# TF 2.15's Conv2DBackpropInputV2 / FilterV2 take the input (filter) itself instead of its shape.
register("Conv2DBackpropInputV2", infer=lambda op: [(op._inputs[1].dtype, op._inputs[0].shape)],
         kernel=lambda x, w, dy, **attrs: _conv_backprop_input(np.array(x.shape), w, dy, **attrs))
register("Conv2DBackpropFilterV2", infer=lambda op: [(op._inputs[0].dtype, op._inputs[1].shape)],
         kernel=lambda x, w, dy, **attrs: _conv_backprop_filter(x, np.array(w.shape), dy, **attrs))


def _conv2d_backprop_v2(op_type, input, filter, out_backprop, strides, padding, explicit_paddings,  # noqa: A002
                        data_format, dilations, name):
    data_format = check_data_format(data_format)
    padding = _padding_3d(padding, op_type) if padding != "EXPLICIT" else padding
    x = as_tensor(input, "input", FLOATS)
    w = convert_to_tensor(filter, dtype=x.dtype, name="filter")
    dy = convert_to_tensor(out_backprop, dtype=x.dtype, name="out_backprop")
    attrs = _attrs(_full(strides, 4, op_type, "strides"), padding, data_format,
                   _full(dilations, 4, op_type, "dilations"), explicit_paddings)
    return apply_op(op_type, [x, w, dy], attrs, name=name).outputs[0]


@tf_export("conv2d_backprop_input_v2")
def conv2d_backprop_input_v2(input, filter, out_backprop, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
                             explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """``conv2d_backprop_input`` given the input itself (only its shape is read)."""
    return _conv2d_backprop_v2("Conv2DBackpropInputV2", input, filter, out_backprop, strides, padding,
                               explicit_paddings, data_format, dilations, name)


@tf_export("conv2d_backprop_filter_v2")
def conv2d_backprop_filter_v2(input, filter, out_backprop, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
                              explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """``conv2d_backprop_filter`` given the filter itself (only its shape is read)."""
    return _conv2d_backprop_v2("Conv2DBackpropFilterV2", input, filter, out_backprop, strides, padding,
                               explicit_paddings, data_format, dilations, name)


# -- transposed convolutions ---------------------------------------------------------------------


def _check_transpose_channels(value: Tensor, w: Tensor, channel_axis: int) -> None:
    """TF's graph-time check: the value's channels are the filter's last dimension (the output's
    channels are checked when it runs)."""
    in_c = value.shape.as_list()[channel_axis] if value.shape.ndims else None
    want = w.shape.as_list()[-1] if w.shape.ndims else None
    if in_c is not None and want is not None and in_c != want:
        raise ValueError(f"Dimensions must be equal, but are {in_c} and {want}: the input's channels and the "
                         f"filter's input channels (its last dimension)")


@tf_export("nn.conv2d_transpose")
def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",  # noqa: A002
                     data_format="NHWC", name=None, input=None, filters=None, dilations=None) -> Tensor:  # noqa: A002
    """The transpose (gradient) of ``conv2d``: ``value`` ``[batch, h, w, in]`` with a filter
    ``[height, width, out, in]`` gives ``output_shape``.

    >>> import dflow as tf
    >>> x = tf.zeros([1, 3, 3, 4])
    >>> tf.nn.conv2d_transpose(x, tf.zeros([3, 3, 2, 4]), [1, 6, 6, 2], 2).shape.as_list()
    [1, 6, 6, 2]
    """
    value = _pick(input, value, "input", "value")
    w = _pick(filters, filter, "filters", "filter")
    with name_scope(name, "conv2d_transpose", [value, w, output_shape]) as scope:
        data_format = check_data_format(data_format)
        channel_index = 1 if data_format == "NCHW" else 3
        strides = get_sequence(strides, 2, channel_index, "strides")
        dilations = get_sequence(dilations, 2, channel_index, "dilations")
        padding, explicit = _padding_2d(padding, data_format)
        x = as_tensor(value, "input", FLOATS)
        w = convert_to_tensor(w, dtype=x.dtype, name="filters")
        _check_transpose_channels(x, w, channel_index)
        attrs = _attrs(strides, padding, data_format, dilations, explicit)
        return apply_op("Conv2DBackpropInput", [_sizes(output_shape, "output_shape"), w, x], attrs,
                        name=scope).outputs[0]


@tf_export("nn.conv3d_transpose")
def conv3d_transpose(value, filter=None, output_shape=None, strides=None, padding="SAME",  # noqa: A002
                     data_format="NDHWC", name=None, input=None, filters=None, dilations=None) -> Tensor:  # noqa: A002
    """The transpose of ``conv3d``: filter ``[depth, height, width, out, in]``."""
    value = _pick(input, value, "input", "value")
    w = _pick(filters, filter, "filters", "filter")
    with name_scope(name, "conv3d_transpose", [value, w, output_shape]) as scope:
        data_format = check_data_format(data_format, 3)
        channel_index = 1 if data_format == "NCDHW" else 4
        strides = get_sequence(strides, 3, channel_index, "strides")
        dilations = get_sequence(dilations, 3, channel_index, "dilations")
        x = as_tensor(value, "input", FLOATS)
        w = convert_to_tensor(w, dtype=x.dtype, name="filters")
        _check_transpose_channels(x, w, channel_index)
        attrs = _attrs(strides, _padding_3d(padding, "Conv3DBackpropInputV2"), data_format, dilations)
        return apply_op("Conv3DBackpropInputV2", [_sizes(output_shape, "output_shape"), w, x], attrs,
                        name=scope).outputs[0]


def _expanded_1d(data_format):
    """``(2-D format, the axis that ExpandDims adds, channel index of the 1-D format)``."""
    if data_format in (None, "NHWC", "NWC"):
        return "NHWC", 1, 2
    if data_format in ("NCHW", "NCW"):
        return "NCHW", 2, 1
    raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")


@tf_export("nn.conv1d_transpose")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=None, name=None) -> Tensor:
    """The transpose of ``conv1d``: filter ``[width, out, in]``."""
    with name_scope(name, "conv1d_transpose", [input, filters, output_shape]) as scope:
        fmt, axis, channel_index = _expanded_1d(data_format)
        strides = [1] + get_sequence(strides, 1, channel_index, "stride")
        dilations = [1] + get_sequence(dilations, 1, channel_index, "dilations")
        x = expand_dims(as_tensor(input, "input", FLOATS), axis)
        w = expand_dims(convert_to_tensor(filters, dtype=x.dtype, name="filters"), 0)
        if isinstance(output_shape, Tensor):
            sizes = array_ops.concat([output_shape[:axis], [1], output_shape[axis:]], 0)
        else:
            shape = [int(d) for d in output_shape]
            sizes = _sizes(shape[:axis] + [1] + shape[axis:], "output_shape")
        padding, explicit = _padding_2d(padding, fmt)
        y = apply_op("Conv2DBackpropInput", [sizes, w, x], _attrs(strides, padding, fmt, dilations, explicit),
                     name=scope).outputs[0]
        return squeeze(y, [axis])


@tf_export("nn.atrous_conv2d_transpose")
def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None) -> Tensor:
    """The transpose of ``atrous_conv2d``: as TF1 builds it, a ``Conv2DBackpropInput`` between
    ``SpaceToBatchND`` and ``BatchToSpaceND`` (a plain ``conv2d_transpose`` when ``rate`` is 1)."""
    from dflow.ops.nn.nn_reshape_ops import batch_to_space, space_to_batch

    with name_scope(name, "atrous_conv2d_transpose", [value, filters, output_shape]):
        x = convert_to_tensor(value, name="value")
        w = convert_to_tensor(filters, name="filters")
        if x.shape.ndims and w.shape.ndims and not TensorShape([x.shape.as_list()[3]]).is_compatible_with(
                TensorShape([w.shape.as_list()[3]])):
            raise ValueError(f"`value` channel count must be compatible with `filters` input channel count. "
                             f"Received: value.shape={x.shape} with channel count {x.shape.as_list()[3]} and "
                             f"filters.shape={w.shape} with input channel count {w.shape.as_list()[3]}.")
        if rate < 1:
            raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
        if rate == 1:
            return conv2d_transpose(x, w, output_shape, [1, 1, 1, 1], padding, "NHWC")
        if isinstance(output_shape, Tensor):
            raise NotImplementedError("atrous_conv2d_transpose: dflow needs a static output_shape when rate > 1")
        out = [int(d) for d in output_shape]
        if len(out) != 4:
            raise ValueError(f"`output_shape` must have shape (4,). Received: output_shape={output_shape}")
        if w.shape.ndims and w.shape.as_list()[2] is not None and w.shape.as_list()[2] != out[3]:
            raise ValueError(f"`output_shape` channel count must be compatible with `filters` output channel "
                             f"count. Received: output_shape={out} with channel count {out[3]} and "
                             f"filters.shape={w.shape} with output channel count {w.shape.as_list()[3]}.")
        if padding == "SAME":
            if not w.shape.is_fully_defined():
                raise NotImplementedError("atrous_conv2d_transpose: dflow needs the filter's static shape")
            kh, kw = w.shape.as_list()[:2]
            pad_h, pad_w = (kh - 1) * rate, (kw - 1) * rate
            top, left = pad_h // 2, pad_w // 2
            bottom, right = pad_h - top, pad_w - left
        elif padding == "VALID":
            top = bottom = left = right = 0
        else:
            raise ValueError(f"`padding` must be either 'VALID' or 'SAME'. Received: padding={padding}")
        in_h, in_w = out[1] + top + bottom, out[2] + left + right
        extra_h, extra_w = (rate - in_h % rate) % rate, (rate - in_w % rate) % rate
        x = space_to_batch(x, [[0, extra_h], [0, extra_w]], block_size=rate)
        sizes = [rate * rate * out[0], (in_h + extra_h) // rate, (in_w + extra_w) // rate, out[3]]
        x = apply_op("Conv2DBackpropInput", [_sizes(sizes, "input_sizes"), w, x],
                     _attrs([1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1], ())).outputs[0]
        return batch_to_space(x, [[top, bottom + extra_h], [left, right + extra_w]], block_size=rate)


@tf_export("nn.conv_transpose")
def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,  # noqa: A002
                   dilations=None, name=None) -> Tensor:
    """``conv1d_transpose``, ``conv2d_transpose`` or ``conv3d_transpose``, by ``len(output_shape)``."""
    with name_scope(name, "conv_transpose", [input, filters, output_shape]) as scope:
        if isinstance(output_shape, Tensor):
            n = with_rank(output_shape.shape, 1).as_list()[0] - 2
        elif isinstance(output_shape, Sized):
            n = len(output_shape) - 2
        else:
            raise ValueError(f"`output_shape` must be a tensor or sized collection. Received: "
                             f"output_shape={output_shape}")
        if not 1 <= n <= 3:
            raise ValueError(f"`output_shape` must be of length 3, 4 or 5. Received: output_shape={output_shape} "
                             f"of length {n + 2}.")
        if n == 1:
            return conv1d_transpose(input, filters, output_shape, strides, padding, data_format or "NWC",
                                    dilations, name=scope)
        fn = conv2d_transpose if n == 2 else conv3d_transpose
        return fn(input, filters, output_shape, strides, padding=padding,
                  data_format=data_format or conv_ops.DATA_FORMATS[n][0], dilations=dilations, name=scope)


# -- forward convolutions ------------------------------------------------------------------------


@tf_export("nn.conv1d")
def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None, data_format=None,
           name=None, input=None, dilations=None) -> Tensor:  # noqa: A002
    """1-D convolution of ``[batch, width, in]`` with a ``[width, in, out]`` filter (a ``Conv2D``
    over a height of 1, as TF builds it)."""
    value = _pick(input, value, "input", "value")
    with name_scope(name, "conv1d", [value, filters]) as scope:
        fmt, axis, channel_index = _expanded_1d(data_format)
        strides = [1] + get_sequence(stride, 1, channel_index, "stride")
        dilations = [1] + get_sequence(dilations, 1, channel_index, "dilations")
        x = expand_dims(value, -3 if fmt == "NHWC" else -2)
        w = expand_dims(filters, 0)
        y = conv_ops.conv2d(x, w, strides, padding, data_format=fmt, dilations=dilations, name=scope)
        return squeeze(y, [-3 if fmt == "NHWC" else -2])


@tf_export("nn.conv3d")
def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC",  # noqa: A002
           dilations=(1, 1, 1, 1, 1), name=None, filters=None) -> Tensor:
    """3-D convolution of ``[batch, depth, height, width, in]`` with a
    ``[depth, height, width, in, out]`` filter."""
    w = _pick(filters, filter, "filters", "filter")
    data_format = check_data_format(data_format, 3)
    with name_scope(name, "Conv3D", [input, w]) as scope:
        x = as_tensor(input, "input", FLOATS)
        w = convert_to_tensor(w, dtype=x.dtype, name="filter")
        attrs = _attrs(_full(strides, 5, "Conv3D", "strides"), _padding_3d(padding, "Conv3D"), data_format,
                       _full(dilations, 5, "Conv3D", "dilations"))
        return apply_op("Conv3D", [x, w], attrs, name=scope).outputs[0]


@tf_export("nn.conv3d_backprop_filter", "nn.conv3d_backprop_filter_v2")
def conv3d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, data_format="NDHWC",  # noqa: A002
                           dilations=(1, 1, 1, 1, 1), name=None) -> Tensor:
    """The gradient of ``conv3d`` with respect to its filter (op ``Conv3DBackpropFilterV2``)."""
    data_format = check_data_format(data_format, 3)
    with name_scope(name, "Conv3DBackpropFilterV2", [input, filter_sizes, out_backprop]) as scope:
        x = as_tensor(input, "input", FLOATS)
        dy = convert_to_tensor(out_backprop, dtype=x.dtype, name="out_backprop")
        attrs = _attrs(_full(strides, 5, "Conv3DBackpropFilterV2", "strides"),
                       _padding_3d(padding, "Conv3DBackpropFilterV2"), data_format,
                       _full(dilations, 5, "Conv3DBackpropFilterV2", "dilations"))
        return apply_op("Conv3DBackpropFilterV2", [x, _sizes(filter_sizes, "filter_sizes"), dy], attrs,
                        name=scope).outputs[0]


@tf_export("nn.convolution")
def convolution(input, filter, padding, strides=None, dilation_rate=None, name=None,  # noqa: A002
                data_format=None, filters=None, dilations=None) -> Tensor:
    """N-D convolution (N = 1, 2, 3, from the filter's rank), strided or dilated."""
    w = _pick(filters, filter, "filters", "filter")
    rate = _pick(dilations, dilation_rate, "dilations", "dilation_rate")
    with name_scope(name, "convolution", [input, w]) as scope:
        x = convert_to_tensor(input, name="input")
        w = convert_to_tensor(w, name="filters")
        if w.shape.ndims:
            n = w.shape.ndims - 2
        elif x.shape.ndims:
            n = x.shape.ndims - 2
        else:
            raise ValueError(f"When `num_spatial_dims` is not set, one of `input.shape.rank` or `filters.shape.rank` "
                             f"must be known. Received: input.shape={x.shape} of rank None and "
                             f"filters.shape={w.shape} of rank None")
        if n not in (1, 2, 3):
            raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims={n}.")
        fmt = check_data_format(data_format, n) if n != 1 else _expanded_1d(data_format)[0]
        channel_index = 1 if fmt.startswith("NC") else n + 1
        strides = get_sequence(strides, n, channel_index, "strides")
        rate = get_sequence(rate, n, channel_index, "dilations")
        spatial = slice(2, None) if channel_index == 1 else slice(1, -1)
        if any(s > 1 for s in strides[spatial]) and any(d > 1 for d in rate[spatial]):
            raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                             f"strides={strides[spatial]} and dilation_rate={rate[spatial]}")
        def op(converted, _, converted_padding, dilations=None):
            if n == 1:
                return conv1d(converted, w, strides[spatial], converted_padding, data_format=data_format,
                              dilations=dilations and dilations[spatial], name=scope)
            fn = conv_ops.conv2d if n == 2 else conv3d
            return fn(converted, w, strides, converted_padding, data_format=fmt,
                      dilations=dilations or [1] * (n + 2), name=scope)

        if all(d == 1 for d in rate):
            return op(x, n, padding, rate)
        # TF1 runs a dilated convolution as an undilated one between SpaceToBatchND and BatchToSpaceND.
        from dflow.ops.nn.nn_reshape_ops import with_space_to_batch

        return with_space_to_batch(x, rate[spatial], padding, op, filter_shape=array_ops.shape(w),
                                   data_format=fmt)


@tf_export("nn.atrous_conv2d")
def atrous_conv2d(value, filters, rate, padding, name=None) -> Tensor:
    """``conv2d`` dilated by ``rate`` in height and width (stride 1)."""
    rate = [int(r) for r in np.broadcast_to(rate, (2,))]
    return convolution(value, filters, padding, dilation_rate=rate, name=name)


# -- depthwise and separable -----------------------------------------------------------------------


@tf_export("nn.depthwise_conv2d_native")
def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",  # noqa: A002
                            dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """Each input channel ``c`` convolved with its own ``filter[:, :, c, :]``: output channel
    ``c * channel_multiplier + m``."""
    def build(allowed):
        x = as_tensor(input, "input", allowed)
        return [x, convert_to_tensor(filter, dtype=x.dtype, name="filter")]

    return _gen_2d("DepthwiseConv2dNative", name, [input, filter], build, strides, padding, data_format, dilations)


@tf_export("nn.depthwise_conv2d_native_backprop_input", "nn.depthwise_conv2d_backprop_input")
def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                                           data_format="NHWC", dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """The gradient of ``depthwise_conv2d_native`` with respect to its input."""
    return _gen_2d("DepthwiseConv2dNativeBackpropInput", name, [input_sizes, filter, out_backprop],
                   _input_backprop_inputs(input_sizes, filter, out_backprop), strides, padding, data_format,
                   dilations)


@tf_export("nn.depthwise_conv2d_native_backprop_filter", "nn.depthwise_conv2d_backprop_filter")
def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                                            data_format="NHWC", dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """The gradient of ``depthwise_conv2d_native`` with respect to its filter."""
    return _gen_2d("DepthwiseConv2dNativeBackpropFilter", name, [input, filter_sizes, out_backprop],
                   _filter_backprop_inputs(input, filter_sizes, out_backprop), strides, padding, data_format,
                   dilations)


def _rate(rate, dilations):
    rate = _pick(dilations, rate, "dilations", "rate")
    return [1, 1] if rate is None else rate  # with_space_to_batch checks it as TF does


def _depthwise_over_space_to_batch(x, w, strides, padding, rate, data_format, name):
    from dflow.ops.nn.nn_reshape_ops import with_space_to_batch

    def op(converted, _, converted_padding):
        return depthwise_conv2d_native(converted, w, strides, converted_padding, data_format=data_format or "NHWC",
                                       name=name)

    return with_space_to_batch(x, rate, padding, op, filter_shape=array_ops.shape(w), data_format=data_format)


@tf_export("nn.depthwise_conv2d")
def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None,  # noqa: A002
                     dilations=None) -> Tensor:
    """Depthwise 2-D convolution (``depthwise_conv2d_native``), dilated by ``rate`` through
    ``with_space_to_batch`` as TF does."""
    rate = _rate(rate, dilations)
    with name_scope(name, "depthwise", [input, filter]) as scope:
        x = convert_to_tensor(input, name="tensor_in")
        w = convert_to_tensor(filter, name="filter_in")
        return _depthwise_over_space_to_batch(x, w, strides, padding, rate, data_format, scope)


@tf_export("nn.separable_conv2d")
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None,  # noqa: A002
                     name=None, data_format=None, dilations=None) -> Tensor:
    """A depthwise convolution, then a 1×1 ``pointwise_filter`` convolution mixing its channels."""
    rate = _rate(rate, dilations)
    with name_scope(name, "separable_conv2d", [input, depthwise_filter, pointwise_filter]) as scope:
        x = convert_to_tensor(input, name="tensor_in")
        dw = convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pw = convert_to_tensor(pointwise_filter, name="pointwise_filter")
        pw_shape = with_rank(pw.shape, 4).as_list()
        for d in pw_shape[:2]:
            if d is not None and d != 1:
                raise ValueError(f"Dimensions {d} and 1 are not compatible")
        depthwise = _depthwise_over_space_to_batch(x, dw, strides, padding, rate, data_format, "depthwise")
        return conv_ops.conv2d(depthwise, pw, [1, 1, 1, 1], "VALID", data_format=data_format or "NHWC", name=scope)
