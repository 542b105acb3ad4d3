"""The rest of TF1's pooling: ``max_pool1d``/``avg_pool1d`` (a 2-D pool over a height of 1, as
TF builds them), ``max_pool3d``/``avg_pool3d`` (``MaxPool3D``/``AvgPool3D``, on ``pool_ops``'
kernels), ``max_pool_v2``/``avg_pool_v2`` and ``pool`` (which pick one by rank; a dilated
``pool`` goes through ``with_space_to_batch`` as TF's does), and ``max_pool_with_argmax``
(``MaxPoolWithArgmax``: each window's first maximum in scan order and its flat index
``((b * height + y) * width + x) * channels + c``, the batch term only with
``include_batch_in_index``).
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.kernels import array_module
from dflow.ops.array.shape_ops import expand_dims, squeeze
from dflow.ops.nn._nn_util import FLOATS, REALS, check_dtype, with_rank
from dflow.ops.nn.conv_ops import _check_padding, get_sequence
from dflow.ops.nn.pool_ops import _first_maxima, _pool_geometry, _pool_infer, _pool_op, avg_pool, max_pool

# -- 1-D and 3-D -------------------------------------------------------------------------------


def _pool1d(op_type, scope_name, input, ksize, strides, padding, data_format, name, allowed):  # noqa: A002
    with name_scope(name, scope_name, [input]) as scope:
        data_format = data_format or "NWC"
        if data_format not in ("NWC", "NCW"):
            raise ValueError(f"data_format must be 'NWC' or 'NCW', got {data_format!r}")
        channel_index = 1 if data_format == "NCW" else 2
        ksize = [1] + get_sequence(ksize, 1, channel_index, "ksize")
        strides = [1] + get_sequence(strides, 1, channel_index, "strides")
        axis = 1 if data_format == "NWC" else 2
        x = expand_dims(input, axis)
        fmt = "NHWC" if data_format == "NWC" else "NCHW"
        y = _pool_op(op_type, x, ksize, strides, padding, fmt, scope, allowed)
        return squeeze(y, [axis])


@tf_export("nn.max_pool1d")
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None) -> Tensor:  # noqa: A002
    """Max over ``ksize`` windows of a ``[batch, width, channels]`` input."""
    return _pool1d("MaxPool", "MaxPool1d", input, ksize, strides, padding, data_format, name, REALS)


@tf_export("nn.avg_pool1d")
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None) -> Tensor:  # noqa: A002
    """Mean over ``ksize`` windows of a ``[batch, width, channels]`` input (valid elements only)."""
    return _pool1d("AvgPool", "AvgPool1D", input, ksize, strides, padding, data_format, name, FLOATS)


@tf_export("nn.max_pool3d")
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None) -> Tensor:  # noqa: A002
    """Max over ``ksize`` windows of a ``[batch, depth, height, width, channels]`` input."""
    return _pool_op("MaxPool3D", input, ksize, strides, padding, data_format, name, FLOATS, spatial=3)


@tf_export("nn.avg_pool3d")
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None) -> Tensor:  # noqa: A002
    """Mean over ``ksize`` windows of a 5-D input (over the window's valid elements)."""
    return _pool_op("AvgPool3D", input, ksize, strides, padding, data_format, name, FLOATS, spatial=3)


def _rank_of(input, data_format) -> int:  # noqa: A002
    rank = input.shape.ndims if isinstance(input, Tensor) else np.ndim(input)
    if rank is None:
        if data_format is None:
            raise ValueError(f"`input` must have a static shape or a data format must be given. Received: "
                             f"input.shape={input.shape} and data_format={data_format}")
        rank = len(data_format)
    if not 3 <= rank <= 5:
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={np.shape(input)} of rank "
                         f"{rank}.")
    return rank - 2


def _pool_by_rank(fns, input, ksize, strides, padding, data_format, name):  # noqa: A002
    n = _rank_of(input, data_format)
    return fns[n](input, ksize, strides, padding, data_format=data_format or _DEFAULT_FORMATS[n], name=name)


@tf_export("nn.max_pool_v2")
def max_pool_v2(input, ksize, strides, padding, data_format=None, name=None) -> Tensor:  # noqa: A002
    """``max_pool1d``, ``max_pool2d`` or ``max_pool3d``, by the input's rank."""
    return _pool_by_rank({1: max_pool1d, 2: max_pool, 3: max_pool3d}, input, ksize, strides, padding, data_format,
                         name)


@tf_export("nn.avg_pool_v2")
def avg_pool_v2(input, ksize, strides, padding, data_format=None, name=None) -> Tensor:  # noqa: A002
    """``avg_pool1d``, ``avg_pool2d`` or ``avg_pool3d``, by the input's rank."""
    return _pool_by_rank({1: avg_pool1d, 2: avg_pool, 3: avg_pool3d}, input, ksize, strides, padding, data_format,
                         name)


_DEFAULT_FORMATS = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


@tf_export("nn.pool")
def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None, name=None,  # noqa: A002
         data_format=None, dilations=None) -> Tensor:
    """N-D max or average pooling (N = ``len(window_shape)``), strided or dilated."""
    from dflow.ops.nn.nn_reshape_ops import with_space_to_batch

    if dilations is not None and dilation_rate is not None:
        raise ValueError("Cannot specify both 'dilations' and 'dilation_rate'")
    dilation_rate = dilations if dilations is not None else dilation_rate
    with name_scope(name, f"{pooling_type.lower()}_pool", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        n = len(window_shape)
        if not 1 <= n <= 3:
            raise ValueError(f"`len(window_shape)` must be 1, 2, or 3. Received: window_shape={window_shape} of "
                             f"length {n}")
        with_rank(x.shape, n + 2)
        rate = np.array([1] * n if dilation_rate is None else dilation_rate, dtype=np.int32)
        if rate.shape != (n,):
            raise ValueError(f"`len(dilation_rate)` should be {n}. Received: dilation_rate={dilation_rate} of length "
                             f"{rate.size}")
        if np.any(rate < 1):
            raise ValueError(f"all values of `dilation_rate` must be positive. Received: dilation_rate={rate}")
        strides = np.array([1] * n if strides is None else strides, dtype=np.int32)
        if strides.shape != (n,):
            raise ValueError(f"`len(strides)` should be {n}. Received: strides={list(strides)} of length "
                             f"{strides.size}")
        if np.any(strides < 1):
            raise ValueError(f"all values of `strides` must be positive. Received: strides={strides}")
        if np.any(strides > 1) and np.any(rate > 1):
            raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                             f"strides={strides} and dilation_rate={rate}")
        if padding == "SAME" and np.any(rate > 1):
            raise ValueError(f"pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. Received: "
                             f"padding={padding} and dilation_rate={rate}")
        if np.any(strides > np.asarray(window_shape)):
            raise ValueError(f"`strides` > `window_shape` not supported due to inconsistency between CPU and GPU "
                             f"implementations. Received: strides={strides} and window_shape={window_shape}")
        if pooling_type not in ("MAX", "AVG"):
            raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
        channels_first = data_format is not None and data_format.startswith("NC")
        window = [int(k) for k in window_shape]
        ksize = [1, 1] + window if channels_first else [1] + window + [1]
        step = [1, 1] + list(strides) if channels_first else [1] + list(strides) + [1]
        spatial_dims = range(2, n + 2) if channels_first else range(1, n + 1)
        if n == 1:
            fmt = "NCHW" if channels_first else "NHWC"
            if data_format not in (None, "NWC", "NCW"):
                raise ValueError(f"data_format must be either 'NWC' or 'NCW'. Received: data_format={data_format}")
            ksize, step = [1] + ksize, [1] + step
        else:
            fmt = data_format or _DEFAULT_FORMATS[n]
        fn = {("MAX", 3): max_pool3d, ("AVG", 3): avg_pool3d, ("MAX", 2): max_pool, ("AVG", 2): avg_pool,
              ("MAX", 1): max_pool, ("AVG", 1): avg_pool}[(pooling_type, n)]

        def op(converted, _, converted_padding):
            if n == 1:
                converted = expand_dims(converted, spatial_dims[0])
            result = fn(converted, ksize, step, converted_padding, data_format=fmt, name=scope)
            return squeeze(result, [spatial_dims[0]]) if n == 1 else result

        return with_space_to_batch(x, rate, padding, op, filter_shape=window, spatial_dims=spatial_dims)


# -- MaxPoolWithArgmax ---------------------------------------------------------------------------


def _argmax_infer(op):
    (y_dtype, y_shape), = _pool_infer(op)
    return [(y_dtype, y_shape), (op._attrs["Targmax"], y_shape)]


def _flat_index(rows, cols, b, dims, include_batch):
    _, h, w, c = dims
    index = (rows[:, None] * w + cols[None, :])[None, :, :, None] * c + np.arange(c)
    return index + (b[:, None, None, None] * (h * w * c) if include_batch else 0)


def _max_pool_with_argmax(x, ksize, strides, padding, Targmax, include_batch_in_index, data_format="NHWC"):  # noqa: N803
    from dflow.ops.nn.pool_ops import _max_pool

    xp = array_module(x)
    y = _max_pool(x, ksize, strides, padding, "NHWC")
    dims, ks, ss, geometry = _pool_geometry(x.shape, ksize, strides, padding, "NHWC")
    argmax = np.zeros(y.shape, dtype=np.int64)
    batch = np.arange(dims[0])
    for index, hit in _first_maxima(x, y, dims, ks, ss, geometry, "NHWC"):
        (ho, top, _), (wo, left, _) = geometry[0], geometry[1]
        rows = index[1].start + np.arange(ho) * ss[1] - top
        cols = index[2].start + np.arange(wo) * ss[2] - left
        argmax = np.where(np.asarray(hit), _flat_index(rows, cols, batch, dims, include_batch_in_index), argmax)
    return y, xp.asarray(argmax.astype(dtypes.as_dtype(Targmax).as_numpy_dtype))


# Index arithmetic and np.add.at on the host: these run on CPU devices.
register("MaxPoolWithArgmax", infer=_argmax_infer, kernel=_max_pool_with_argmax, gpu=False)


def _scatter_index(argmax, x_shape, include_batch):
    """``argmax`` as indices into the flattened input (the batch term added where it is missing)."""
    index = np.asarray(argmax).astype(np.int64)
    if not include_batch:
        per_batch = int(np.prod(x_shape[1:]))
        index = index + (np.arange(x_shape[0]) * per_batch).reshape((-1,) + (1,) * (index.ndim - 1))
    if index.size and (index.min() < 0 or index.max() >= int(np.prod(x_shape))):
        raise errors.InvalidArgumentError(None, None, "Invalid argmax: an index is out of the input's range")
    return index


def _max_pool_grad_with_argmax(x, grad, argmax, ksize, strides, padding, include_batch_in_index):
    xp = array_module(x, grad)
    index = _scatter_index(argmax, x.shape, include_batch_in_index)
    dx = np.zeros(x.size, dtype=np.float32 if x.dtype == np.float16 else x.dtype)
    np.add.at(dx, index.ravel(), np.asarray(grad).ravel())
    return xp.asarray(dx.reshape(x.shape).astype(x.dtype))


def _max_pool_grad_grad_with_argmax(x, grad, argmax, ksize, strides, padding, include_batch_in_index):
    xp = array_module(x, grad)
    index = _scatter_index(argmax, x.shape, include_batch_in_index)
    return xp.asarray(np.asarray(grad).ravel()[index])


register("MaxPoolGradWithArgmax", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)],
         kernel=_max_pool_grad_with_argmax, gpu=False)
register("MaxPoolGradGradWithArgmax", infer=lambda op: [(op._inputs[0].dtype, op._inputs[2].shape)],
         kernel=_max_pool_grad_grad_with_argmax, gpu=False)


def _argmax_grad_attrs(op) -> dict:
    return {k: op._attrs[k] for k in ("ksize", "strides", "padding", "include_batch_in_index")}


@gradient("MaxPoolWithArgmax")
def _max_pool_with_argmax_grad(op, grad, unused_argmax_grad=None):
    return [apply_op("MaxPoolGradWithArgmax", [op.inputs[0], grad, op.outputs[1]], _argmax_grad_attrs(op)).outputs[0]]


@gradient("MaxPoolGradWithArgmax")
def _max_pool_grad_with_argmax_grad(op, grad):
    x, _, argmax = op.inputs
    from dflow.ops.array.array_ops import zeros_like

    return [zeros_like(x), apply_op("MaxPoolGradGradWithArgmax", [x, grad, argmax],
                                    _argmax_grad_attrs(op)).outputs[0], None]


@tf_export("nn.max_pool_with_argmax")
def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", Targmax=None,  # noqa: A002, N803
                         name=None, output_dtype=None, include_batch_in_index=False):
    """``(output, argmax)``: max pooling and, per output, the flattened index of its maximum."""
    if data_format != "NHWC":
        raise ValueError(f"`data_format` values other  than 'NHWC' are not supported. Received: "
                         f"data_format={data_format}")
    if Targmax is not None and output_dtype is not None:
        raise ValueError("Cannot specify both 'output_dtype' and 'Targmax'")
    targmax = dtypes.as_dtype(output_dtype or Targmax or dtypes.int64)
    if targmax not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Value passed to parameter 'Targmax' has DataType {targmax.name} not in list of allowed "
                        f"values: int32, int64")
    ksize = [int(k) for k in ksize]
    strides = [int(s) for s in strides]
    if len(ksize) != 4 or len(strides) != 4:
        raise ValueError("MaxPoolWithArgmax: ksize and strides must have 4 elements")
    with name_scope(name, "MaxPoolWithArgmax", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        check_dtype(x, REALS, "input")
        attrs = {"ksize": tuple(ksize), "strides": tuple(strides), "padding": _check_padding(padding,
                 "MaxPoolWithArgmax"), "Targmax": targmax, "include_batch_in_index": bool(include_batch_in_index),
                 "data_format": "NHWC"}
        op = apply_op("MaxPoolWithArgmax", [x], attrs, name=scope)
        return op.outputs[0], op.outputs[1]
