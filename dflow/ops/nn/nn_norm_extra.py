"""More normalization: ``lrn``, ``fused_batch_norm``, ``sufficient_statistics``,
``normalize_moments``, ``weighted_moments``, ``batch_norm_with_global_normalization``.

``LRN`` and ``FusedBatchNormV3`` are TF1's ops with their gradient ops
(``LRNGrad``, ``FusedBatchNormGradV3``); the rest are TF1's composites of
math ops, with TF1's scope and op names. In training, ``fused_batch_norm``
returns the batch variance with Bessel's correction (``n / (n - 1)``), as
TF1's kernel does, while normalizing with the biased one.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument
from dflow.ops.array import array_ops
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.nn._nn_util import as_tensor, check_dtype

_LRN_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64)


# -- LRN ------------------------------------------------------------------------------------------


def _lrn_infer(op):
    x = op._inputs[0]
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.shape.ndims}")
    return [(x.dtype, x.shape if x.shape.ndims is not None else TensorShape([None] * 4))]


def _window_sum(sq, depth_radius, xp):
    """Sum of ``sq`` over the last axis in windows ``[d - r, d + r]`` (clipped at the ends)."""
    depth = sq.shape[-1]
    c = xp.cumsum(sq, axis=-1)
    c = xp.concatenate([xp.zeros(sq.shape[:-1] + (1,), sq.dtype), c], axis=-1)
    hi = np.minimum(np.arange(depth) + depth_radius + 1, depth)
    lo = np.maximum(np.arange(depth) - depth_radius, 0)
    return c[..., hi] - c[..., lo]


def _lrn_norm(x, depth_radius, bias, alpha):
    xp = array_module(x)
    if x.ndim != 4:
        raise invalid_argument(f"in must be 4-dimensional, got shape {list(x.shape)}")
    xf = x.astype(np.float64)
    return xf, bias + alpha * _window_sum(xf * xf, depth_radius, xp)


def _lrn(x, depth_radius, bias, alpha, beta):
    xf, norm = _lrn_norm(x, depth_radius, bias, alpha)
    return (xf * norm ** -beta).astype(x.dtype)


def _lrn_grad(grads, x, y, depth_radius, bias, alpha, beta):
    # y_i = x_i N_i^-β with N_i = bias + α Σ_{j∈W(i)} x_j²; the windows are symmetric, so
    # dx_j = g_j N_j^-β - 2αβ x_j Σ_{i∈W(j)} g_i x_i N_i^(-β-1).
    xp = array_module(x)
    xf, norm = _lrn_norm(x, depth_radius, bias, alpha)
    g = grads.astype(np.float64)
    inner = _window_sum(g * xf * norm ** (-beta - 1), depth_radius, xp)
    return (g * norm ** -beta - 2 * alpha * beta * xf * inner).astype(x.dtype)


register("LRN", infer=_lrn_infer, kernel=_lrn)
register("LRNGrad", infer=lambda op: [(op._inputs[1].dtype, op._inputs[1].shape)], kernel=_lrn_grad)


@gradient("LRN")
def _lrn_grad_rule(op, grad):
    return [apply_op("LRNGrad", [grad, op.inputs[0], op.outputs[0]], dict(op._attrs)).outputs[0]]


@tf_export("nn.local_response_normalization", "nn.lrn")
def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5,  # noqa: A002 - TF1 name
                                 name=None) -> Tensor:
    """``input / (bias + alpha * sum(input ** 2 over depth window)) ** beta``, on 4-D input.

    The window covers depths ``[d - depth_radius, d + depth_radius]``.

    >>> import dflow as tf
    >>> tf.nn.lrn(tf.zeros([1, 2, 2, 3])).op.type
    'LRN'
    """
    attrs = {"depth_radius": int(depth_radius), "bias": float(bias), "alpha": float(alpha), "beta": float(beta)}
    with name_scope(name, "LRN", [input]) as scope:
        x = as_tensor(input, "input", _LRN_DTYPES)
        return apply_op("LRN", [x], attrs, name=scope).outputs[0]


# -- FusedBatchNormV3 ---------------------------------------------------------------------------


def _channel_axis(data_format: str, ndims: int) -> int:
    return 1 if data_format.startswith("NC") else ndims - 1


def _fused_bn_infer(op):
    x, scale, offset, mean, variance = op._inputs
    fmt, training = op._attrs["data_format"], op._attrs["is_training"]
    ndims = 5 if fmt in ("NDHWC", "NCDHW") else 4
    if x.shape.ndims is not None and x.shape.ndims != ndims:
        raise ValueError(f"Shape must be rank {ndims} but is rank {x.shape.ndims}")
    channels = None if x.shape.ndims is None else x.shape.as_list()[_channel_axis(fmt, ndims)]
    vectors = [scale, offset] + ([] if training else [mean, variance])
    for v in vectors:
        if v.shape.ndims is not None and v.shape.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {v.shape.ndims}")
        d = None if v.shape.ndims is None else v.shape.as_list()[0]
        if channels is not None and d is not None and d != channels:
            raise ValueError(f"Dimensions must be equal, but are {channels} and {d}")
        channels = channels if channels is not None else d
    vec = (dtypes.float32, TensorShape([channels]))
    y_shape = x.shape if x.shape.ndims is not None else TensorShape([None] * ndims)
    return [(x.dtype, y_shape), vec, vec, vec, vec, (dtypes.float32, TensorShape([None]))]


def _reduce_axes(x, data_format):
    c = _channel_axis(data_format, x.ndim)
    return tuple(a for a in range(x.ndim) if a != c), c


def _bcast(v, ndim, c):
    shape = [1] * ndim
    shape[c] = -1
    return v.reshape(shape)


def _fused_bn(x, scale, offset, mean, variance, epsilon, exponential_avg_factor, data_format, is_training):
    xp = array_module(x)
    axes, c = _reduce_axes(x, data_format)
    xf = x.astype(np.float32)
    if is_training:
        batch_mean = xf.mean(axis=axes)
        batch_var = ((xf - _bcast(batch_mean, x.ndim, c)) ** 2).mean(axis=axes)
        n = x.size // max(x.shape[c], 1)
        corrected = batch_var * np.float32(n / max(n - 1, 1))
        use_mean, use_var = batch_mean, batch_var
        f = np.float32(exponential_avg_factor)
        if f != 1:
            if mean.shape != batch_mean.shape or variance.shape != batch_var.shape:
                raise invalid_argument("mean and variance must be given, one value per channel, when "
                                       "exponential_avg_factor is not 1")
            out_mean = (1 - f) * mean + f * batch_mean
            out_var = (1 - f) * variance + f * corrected
        else:
            out_mean, out_var = batch_mean, corrected
    else:
        use_mean, use_var = mean.astype(np.float32), variance.astype(np.float32)
        out_mean, out_var = use_mean, use_var
    inv = scale / xp.sqrt(use_var + np.float32(epsilon))
    y = (xf - _bcast(use_mean, x.ndim, c)) * _bcast(inv, x.ndim, c) + _bcast(offset, x.ndim, c)
    f32 = np.float32
    return (y.astype(x.dtype), out_mean.astype(f32), out_var.astype(f32), use_mean.astype(f32),
            use_var.astype(f32), xp.zeros([0], f32))


register("FusedBatchNormV3", infer=_fused_bn_infer, kernel=_fused_bn)


def _fused_bn_grad_infer(op):
    g, x, scale = op._inputs[:3]
    vec = (dtypes.float32, scale.shape)
    return [(x.dtype, x.shape), vec, vec, (dtypes.float32, TensorShape([0])), (dtypes.float32, TensorShape([0]))]


def _fused_bn_grad(g, x, scale, saved_mean, saved_var, reserve_3, epsilon, data_format, is_training):
    xp = array_module(x)
    axes, c = _reduce_axes(x, data_format)
    gf, xf = g.astype(np.float32), x.astype(np.float32)
    rstd = 1 / xp.sqrt(saved_var + np.float32(epsilon))
    x_hat = (xf - _bcast(saved_mean, x.ndim, c)) * _bcast(rstd, x.ndim, c)
    d_offset = gf.sum(axis=axes)
    d_scale = (gf * x_hat).sum(axis=axes)
    if is_training:
        n = x.size // max(x.shape[c], 1)
        dx = _bcast(scale * rstd, x.ndim, c) * (gf - _bcast(d_offset / n, x.ndim, c)
                                                 - x_hat * _bcast(d_scale / n, x.ndim, c))
    else:
        dx = gf * _bcast(scale * rstd, x.ndim, c)
    empty = xp.zeros([0], np.float32)
    return dx.astype(x.dtype), d_scale.astype(np.float32), d_offset.astype(np.float32), empty, empty


register("FusedBatchNormGradV3", infer=_fused_bn_grad_infer, kernel=_fused_bn_grad)


@gradient("FusedBatchNormV3")
def _fused_bn_grad_rule(op, grad_y, *unused):
    x, scale = op.inputs[0], op.inputs[1]
    attrs = {k: op._attrs[k] for k in ("epsilon", "data_format", "is_training")}
    inputs = [grad_y, x, scale, op.outputs[3], op.outputs[4], op.outputs[5]]
    dx, dscale, doffset, _, _ = apply_op("FusedBatchNormGradV3", inputs, attrs).outputs
    return [dx, dscale, doffset, None, None]


def _batch_norm_grad_composite(grad_y, x, scale, pop_mean, pop_var, epsilon, data_format, is_training):
    """TF1's ``_BatchNormGrad``: FusedBatchNormGradV3 written with math ops, to differentiate it."""
    x_dtype = x.dtype
    if x_dtype == dtypes.float16:
        x, grad_y = math_ops.cast(x, dtypes.float32), math_ops.cast(grad_y, dtypes.float32)
    ndims = 5 if data_format in ("NDHWC", "NCDHW") else 4
    channels_first = data_format.startswith("NC")
    axis = [a for a in range(ndims) if a != (1 if channels_first else ndims - 1)]
    if channels_first:
        shape = [1, -1] + [1] * (ndims - 2)
        scale, pop_mean, pop_var = (array_ops.reshape(t, shape) for t in (scale, pop_mean, pop_var))
    if is_training:
        keep = channels_first
        mean_grad_y = reduction_ops.reduce_mean(grad_y, axis, keepdims=keep)
        mean_x = reduction_ops.reduce_mean(x, axis, keepdims=keep)
        var_x = reduction_ops.reduce_mean(math_ops.squared_difference(x, array_ops.stop_gradient(mean_x)), axis,
                                          keepdims=keep)
        x_offset = x - mean_x
        mean = reduction_ops.reduce_mean(grad_y * x_offset, axis, keepdims=keep)
        grad_x = scale * math_ops.rsqrt(var_x + epsilon) * (
            grad_y - mean_grad_y - math_ops.reciprocal(var_x + epsilon) * mean * x_offset)
        grad_scale = math_ops.rsqrt(var_x + epsilon) * reduction_ops.reduce_sum(grad_y * x_offset, axis,
                                                                                keepdims=keep)
        if channels_first:
            grad_scale = array_ops.reshape(grad_scale, [-1])
    else:
        var_rsqrt = math_ops.rsqrt(pop_var + epsilon)
        grad_scale = reduction_ops.reduce_sum(grad_y * (x - pop_mean) * var_rsqrt, axis)
        grad_x = grad_y * scale * var_rsqrt
    grad_offset = reduction_ops.reduce_sum(grad_y, axis)
    return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset


@gradient("FusedBatchNormGradV3")
def _fused_bn_grad_grad(op, grad_grad_x, grad_grad_scale, grad_grad_offset, *unused):
    from dflow.ops.gradients.gradients_impl import gradients

    # Partial derivatives, as TF's GradientTape takes them: grad_y itself depends on x and scale in the
    # graph, so differentiate with respect to cut copies of the three inputs.
    grad_y, x, scale = (array_ops.stop_gradient(t) for t in op.inputs[:3])
    pop_mean, pop_var = op.inputs[3:5]
    a = op._attrs
    outs = _batch_norm_grad_composite(grad_y, x, scale, pop_mean, pop_var, a["epsilon"], a["data_format"],
                                      a["is_training"])
    grads = gradients(list(outs), [grad_y, x, scale], grad_ys=[grad_grad_x, grad_grad_scale, grad_grad_offset])
    return grads + [None, None, None]


@tf_export("nn.fused_batch_norm")
def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None, exponential_avg_factor=1.0) -> tuple:
    """Batch normalization of 4-D (or 5-D) ``x`` per channel: ``(y, mean, variance)``.

    In training the statistics are the batch's (the returned variance with
    Bessel's correction); otherwise ``mean`` and ``variance`` are used and
    returned. ``epsilon`` is raised to at least 1.001e-5, as in TF1.

    >>> import dflow as tf
    >>> y, m, v = tf.nn.fused_batch_norm(tf.zeros([2, 2, 2, 3]), tf.ones([3]), tf.zeros([3]))
    >>> y.op.type, m.shape.as_list()
    ('FusedBatchNormV3', [3])
    """
    if isinstance(data_format, bytes):
        data_format = data_format.decode()
    if data_format not in ("NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise ValueError(f"Invalid data_format: {data_format!r}; expected NHWC, NCHW, NDHWC or NCDHW")
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError("Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
                         f"`exponential_avg_factor` != 1.0. Received: `mean` {mean!r} and `variance` {variance!r}")
    with name_scope(name, "FusedBatchNormV3", [x, scale, offset]) as scope:
        x = as_tensor(x, "x", (dtypes.float16, dtypes.float32))
        params = []
        for value, what in ((scale, "scale"), (offset, "offset"), (mean, "mean"), (variance, "variance")):
            if value is None:
                value = np.zeros([0], np.float32)
            t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=dtypes.float32, name=what)
            check_dtype(t, (dtypes.float32,), what)
            params.append(t)
        attrs = {"epsilon": max(float(epsilon), 1.001e-5), "exponential_avg_factor": float(exponential_avg_factor),
                 "data_format": data_format, "is_training": bool(is_training)}
        op = apply_op("FusedBatchNormV3", [x] + params, attrs, name=scope)
        return op.outputs[0], op.outputs[1], op.outputs[2]


# -- composites ------------------------------------------------------------------------------------


@tf_export("nn.normalize_moments")
def normalize_moments(counts, mean_ss, variance_ss, shift, name=None) -> tuple:
    """``(mean, variance)`` from sufficient statistics (``counts``, shifted sums, ``shift``)."""
    with name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        divisor = math_ops.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="shifted_mean")
            mean = math_ops.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = math_ops.subtract(math_ops.multiply(variance_ss, divisor), math_ops.square(shifted_mean),
                                     name="variance")
    return mean, variance


def _keep_dims(keep_dims, keepdims) -> bool:
    if keep_dims is not None and keepdims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
    return bool(keepdims if keepdims is not None else keep_dims)


@tf_export("nn.sufficient_statistics")
def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None) -> tuple:
    """``(count, sum(x - shift), sum((x - shift) ** 2), shift)`` over ``axes``."""
    keep = _keep_dims(keep_dims, keepdims)
    axes = [int(a) for a in (axes if isinstance(axes, (list, tuple, np.ndarray)) else [axes])]
    with name_scope(name, "sufficient_statistics", [x, shift]):
        x = convert_to_tensor(x, name="x")
        dims = x.shape.as_list() if x.shape.ndims is not None else None
        if dims is not None and all(dims[d] is not None for d in axes):
            counts = convert_to_tensor(np.prod([dims[d] for d in axes], dtype=np.int64).astype(
                x.dtype.as_numpy_dtype), name="Const")
        else:
            x_dims = array_ops.gather(math_ops.cast(array_ops.shape(x), x.dtype), axes)
            counts = reduction_ops.reduce_prod(x_dims, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, name="shift")
            m_ss = math_ops.subtract(x, shift)
            v_ss = math_ops.squared_difference(x, shift)
        else:
            m_ss = x
            v_ss = math_ops.square(x)
        m_ss = reduction_ops.reduce_sum(m_ss, axes, keepdims=keep, name="mean_ss")
        v_ss = reduction_ops.reduce_sum(v_ss, axes, keepdims=keep, name="var_ss")
    return counts, m_ss, v_ss, shift


@tf_export("nn.weighted_moments")
def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None) -> tuple:
    """``(mean, variance)`` of ``x`` over ``axes``, each element counted ``frequency_weights`` times."""
    keep = _keep_dims(keep_dims, keepdims)
    with name_scope(name, "weighted_moments", [x, frequency_weights, axes]):
        x = convert_to_tensor(x, name="x")
        frequency_weights = convert_to_tensor(frequency_weights, name="frequency_weights")
        needs_cast = x.dtype == dtypes.float16
        if needs_cast:
            x = math_ops.cast(x, dtypes.float32)
        if frequency_weights.dtype != x.dtype:
            frequency_weights = math_ops.cast(frequency_weights, x.dtype)
        weighted_input_sum = reduction_ops.reduce_sum(frequency_weights * x, axes, name="weighted_input_sum",
                                                      keepdims=True)
        broadcasted_weights = frequency_weights + array_ops.zeros_like(x)
        sum_of_weights = reduction_ops.reduce_sum(broadcasted_weights, axes, name="sum_of_weights", keepdims=True)
        weighted_mean = math_ops.div_no_nan(weighted_input_sum, sum_of_weights)
        weighted_distsq = reduction_ops.reduce_sum(
            frequency_weights * math_ops.squared_difference(x, weighted_mean), axes, name="weighted_distsq",
            keepdims=True)
        weighted_variance = math_ops.div_no_nan(weighted_distsq, sum_of_weights)
        if not keep:
            weighted_mean = array_ops.squeeze(weighted_mean, axis=axes)
            weighted_variance = array_ops.squeeze(weighted_variance, axis=axes)
        if needs_cast:
            weighted_mean = math_ops.cast(weighted_mean, dtypes.float16)
            weighted_variance = math_ops.cast(weighted_variance, dtypes.float16)
        return weighted_mean, weighted_variance


@tf_export("nn.batch_norm_with_global_normalization")
def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None, variance_epsilon=None,
                                         scale_after_normalization=None, name=None, input=None,  # noqa: A002
                                         mean=None, variance=None) -> Tensor:
    """``batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None, ...)``."""
    from dflow.ops.nn.nn_norm_ops import batch_normalization

    t = _lookup("input", input, "t", t)
    m = _lookup("mean", mean, "m", m)
    v = _lookup("variance", variance, "v", v)
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None, variance_epsilon,
                               name)


def _lookup(new_name, new_value, old_name, old_value):
    if new_value is not None and old_value is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return new_value if new_value is not None else old_value
