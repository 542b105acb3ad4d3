"""Normalization: ``l2_normalize``, ``moments``, ``batch_normalization``.

TF1 composes each from math ops; dflow runs each as one internal op (a
single pass of numpy, one task step) named as TF names the result
(``l2_normalize:0``, ``batchnorm/add_1:0``). ``moments`` returns the two
outputs of one op ``moments`` (TF: ``moments/Squeeze:0`` and
``moments/Squeeze_1:0``). Half-precision inputs are computed in float32.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape, broadcast_shapes, unknown_shape
from dflow.kernels import array_module
from dflow.ops.array import array_ops, tiling_ops
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.nn._nn_util import FLOATS, REALS, as_tensor, check_dtype


def _axes_tuple(axes, ndims) -> tuple | None:
    """Normalized reduction axes (``None``: all); ValueError for out-of-range axes."""
    if axes is None:
        return None
    axes = [int(a) for a in (axes if isinstance(axes, (list, tuple)) else [axes])]
    if ndims is None:
        return tuple(axes)
    out = []
    for a in axes:
        if not -ndims <= a < ndims:
            raise ValueError(f"Invalid reduction dimension {a} for input with {ndims} dimensions.")
        out.append(a % ndims)
    return tuple(out)


def _constant_axes(axes):
    if isinstance(axes, Tensor):
        from dflow.framework.op_registry import constant_value

        value = constant_value(axes)
        if value is None:
            raise ValueError(f"dflow needs constant axes, got the tensor {axes.name}")
        return np.asarray(value).tolist()
    if isinstance(axes, np.ndarray):
        return axes.tolist()
    return axes


def _reduced_shape(shape: TensorShape, axes, keep_dims: bool) -> TensorShape:
    if shape.ndims is None:
        return unknown_shape()
    axes = range(shape.ndims) if axes is None else {a % shape.ndims for a in axes}
    dims = shape.as_list()
    if keep_dims:
        return TensorShape([1 if i in axes else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axes])


def _as_compute(x):
    return x.astype(np.float32) if x.dtype == np.float16 else x


# -- l2_normalize ----------------------------------------------------------------------------


def _l2_normalize(x, axis, epsilon):
    xp = array_module(x)
    xf = _as_compute(x)
    square_sum = (xf * xf).sum(axis=axis, keepdims=True)
    inv_norm = 1 / xp.sqrt(xp.maximum(square_sum, square_sum.dtype.type(epsilon)))
    return (xf * inv_norm).astype(x.dtype, copy=False)


register("_L2Normalize", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], kernel=_l2_normalize)


@gradient("_L2Normalize")
def _l2_normalize_grad(op, grad):
    # y = x * rsqrt(max(s, eps)), s = sum(x²): dx = g r - x r³ sum(g x) while s >= eps
    # (TF's Maximum sends the gradient to s on ties), else just g r.
    x = op.inputs[0]
    axis = op.get_attr("axis")
    square_sum = reduction_ops.reduce_sum(x * x, axis, keepdims=True)
    inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, op.get_attr("epsilon")))
    dot = reduction_ops.reduce_sum(grad * x, axis, keepdims=True)
    active = math_ops.cast(square_sum >= op.get_attr("epsilon"), x.dtype)
    return [grad * inv_norm - x * (dot * inv_norm * inv_norm * inv_norm * active)]


@tf_export("nn.l2_normalize", "math.l2_normalize", "linalg.l2_normalize")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None) -> Tensor:
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))`` (all axes when ``axis`` is None)."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    axis = _constant_axes(axis if dim is None else dim)
    with name_scope(name, "l2_normalize", [x]) as scope:
        x = as_tensor(x, "x", FLOATS)
        axes = _axes_tuple(axis, x.shape.ndims)
        return apply_op("_L2Normalize", [x], {"axis": axes, "epsilon": float(epsilon)}, name=scope).outputs[0]


# -- moments ---------------------------------------------------------------------------------------


def _moments_infer(op):
    x = op._inputs[0]
    shape = _reduced_shape(x.shape, op._attrs["axes"], op._attrs["keep_dims"])
    return [(x.dtype, shape), (x.dtype, shape)]


def _trunc_div(s, n, xp):
    """Integer mean as TF's integer ``reduce_mean``: the sum divided by the count, truncated."""
    q = xp.abs(s) // n
    return xp.where(s < 0, -q, q)


def _moments(x, axes, keep_dims):
    xp = array_module(x)
    if x.dtype.kind in "iu":
        n = max(int(np.prod([x.shape[a] for a in axes])), 1)
        mean = _trunc_div(x.sum(axis=axes, keepdims=True, dtype=x.dtype), n, xp).astype(x.dtype)
        d = x - mean
        variance = _trunc_div((d * d).sum(axis=axes, keepdims=True, dtype=x.dtype), n, xp).astype(x.dtype)
    else:
        xf = _as_compute(x)
        mean = xf.mean(axis=axes, keepdims=True)
        d = xf - mean
        variance = (d * d).mean(axis=axes, keepdims=True)
    if not keep_dims:
        mean, variance = mean.squeeze(axis=axes), variance.squeeze(axis=axes)
    return mean.astype(x.dtype, copy=False), variance.astype(x.dtype, copy=False)


register("_Moments", infer=_moments_infer, kernel=_moments)


@gradient("_Moments")
def _moments_grad(op, grad_mean, grad_variance):
    # TF1's variance is mean((x - stop_gradient(mean))²): dx = (g_mean + 2 g_var (x - mean)) / n.
    x = op.inputs[0]
    mean = op.outputs[0]
    rank = x.shape.ndims
    axes = range(rank) if op.get_attr("axes") is None else sorted(a % rank for a in op.get_attr("axes"))
    if not op.get_attr("keep_dims"):
        for a in axes:
            grad_mean, grad_variance, mean = (array_ops.expand_dims(t, a) for t in (grad_mean, grad_variance, mean))
    dims = [x.shape.as_list()[a] for a in axes]
    if None in dims:
        n = math_ops.cast(array_ops.size(x), x.dtype) / math_ops.cast(array_ops.size(mean), x.dtype)
    else:
        n = float(np.prod(dims))
    return [(grad_mean + 2.0 * grad_variance * (x - mean)) / n]


@tf_export("nn.moments")
def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None) -> tuple:
    """``(mean, variance)`` of ``x`` over ``axes`` (``shift`` is unused, as in TF1).

    >>> import dflow as tf
    >>> mean, var = tf.nn.moments(tf.placeholder(tf.float32, [4, 3]), [0])
    >>> mean.shape.as_list(), var.shape.as_list()
    ([3], [3])
    """
    if keep_dims is not None and keepdims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(name, "moments", [x, axes]) as scope:
        x = as_tensor(x, "x", REALS)
        if x.shape.ndims is None:
            raise ValueError("nn.moments needs an input of known rank")
        axes = _axes_tuple(_constant_axes(axes), x.shape.ndims)
        op = apply_op("_Moments", [x], {"axes": axes, "keep_dims": keep}, name=scope)
        return op.outputs[0], op.outputs[1]


# -- batch_normalization -----------------------------------------------------------------------------


def _batch_norm_infer(op):
    shape = op._inputs[0].shape
    for t in op._inputs[1:]:
        shape = broadcast_shapes(shape, t.shape)
    return [(op._inputs[0].dtype, shape)]


def _batch_norm(x, mean, variance, *rest, variance_epsilon, has_offset, has_scale):
    xp = array_module(x)
    offset = rest[0] if has_offset else None
    scale = rest[-1] if has_scale else None
    inv = 1 / xp.sqrt(variance + variance.dtype.type(variance_epsilon))
    if scale is not None:
        inv = inv * scale
    shift = offset - mean * inv if offset is not None else -mean * inv
    return x * inv.astype(x.dtype, copy=False) + shift.astype(x.dtype, copy=False)


register("_BatchNormalization", infer=_batch_norm_infer, kernel=_batch_norm)


@gradient("_BatchNormalization")
def _batch_norm_grad(op, grad):
    # TF1: y = x * inv + (offset - mean * inv), inv = rsqrt(variance + eps) * scale,
    # with inv and the shift in the parameters' dtype and cast to x's.
    x, mean, variance, *rest = op.inputs
    inputs = op.inputs

    def sum_to(g, t):  # back to the shape of input t, which broadcast with the others
        return tiling_ops.unbroadcast(g, t, [u for u in inputs if u is not t])

    offset = rest[0] if op.get_attr("has_offset") else None
    scale = rest[-1] if op.get_attr("has_scale") else None
    rsqrt_var = math_ops.rsqrt(variance + op.get_attr("variance_epsilon"))
    inv = rsqrt_var if scale is None else rsqrt_var * scale
    grad_x = sum_to(grad * _cast(inv, x.dtype), x)
    grad_p, x_p = _cast(grad, variance.dtype), _cast(x, variance.dtype)
    grad_inv = grad_p * (x_p - mean)
    grads = [grad_x, sum_to(-grad_p * inv, mean)]
    grad_rsqrt = grad_inv if scale is None else grad_inv * scale
    grads.append(sum_to(grad_rsqrt * (-0.5 * rsqrt_var * rsqrt_var * rsqrt_var), variance))
    if offset is not None:
        grads.append(sum_to(grad_p, offset))
    if scale is not None:
        grads.append(sum_to(grad_inv * rsqrt_var, scale))
    return grads


def _cast(t: Tensor, dtype) -> Tensor:
    return t if t.dtype == dtype else math_ops.cast(t, dtype)


@tf_export("nn.batch_normalization")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None) -> Tensor:
    """``scale * (x - mean) / sqrt(variance + variance_epsilon) + offset`` (``offset``/``scale`` may be None)."""
    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        x = as_tensor(x, "x", FLOATS)
        inputs = [x]
        for value, what in ((mean, "mean"), (variance, "variance"), (offset, "offset"), (scale, "scale")):
            if value is None:
                continue
            t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=x.dtype, name=what)
            check_dtype(t, FLOATS, what)
            inputs.append(t)
        attrs = {"variance_epsilon": float(variance_epsilon), "has_offset": offset is not None,
                 "has_scale": scale is not None}
        # TF1.15 names the result x * inv + shift "batchnorm/add_1".
        return apply_op("_BatchNormalization", inputs, attrs, name="add_1").outputs[0]
