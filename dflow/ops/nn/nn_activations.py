"""Activations (``tf.nn.relu`` and family, ``softmax``, ``log_softmax``) and
their gradients.

Each block is a TF1 op: shape rule, numpy kernel (which also runs on CuPy
arrays), gradient rule and API function, with TF1.15's op types and names
(``tf.nn.relu`` → op ``Relu``). The piecewise activations are differentiated
by TF1's gradient ops (``ReluGrad``, ``EluGrad``, ...), which have gradients
of their own; softmax's gradient is TF1's composite of math ops.
``tf.nn.sigmoid`` and ``tf.nn.tanh`` are math ops.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.kernels import array_module
from dflow.kernels import blas as _blas
from dflow.kernels import numba_loops as _numba
from dflow.ops._common import same_as_input
from dflow.ops.array import array_ops, select_ops
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.nn._nn_util import FLOATS, REALS, as_tensor, check_dtype, resolve_axis, with_rank_at_least

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _unary(op_type: str, features, name, allowed, attrs=None) -> Tensor:
    with name_scope(name, op_type, [features]) as scope:
        x = as_tensor(features, "features", allowed)
        return apply_op(op_type, [x], attrs, name=scope).outputs[0]


# -- activations --------------------------------------------------------------------


def _relu(x):
    return _blas.in_shares(array_module(x).maximum, x, x.dtype.type(0))


def _relu6(x):
    xp = array_module(x)
    return xp.minimum(xp.maximum(x, x.dtype.type(0)), x.dtype.type(6))


def _elu(x):
    xp = array_module(x)
    # expm1 of the negative part only: no overflow warnings for large inputs.
    return xp.where(x > 0, x, xp.expm1(xp.minimum(x, x.dtype.type(0))))


def _selu(x):
    xp = array_module(x)
    t = x.dtype.type
    neg = t(_SELU_ALPHA) * xp.expm1(xp.minimum(x, t(0)))
    return t(_SELU_SCALE) * xp.where(x > 0, x, neg)


def _softplus(x):
    # log(1 + e^x) without overflow for large x or underflow loss for small x.
    return array_module(x).logaddexp(x, x.dtype.type(0))


def _softsign(x):
    return x / (array_module(x).abs(x) + x.dtype.type(1))


def _leaky_relu(x, alpha):
    return array_module(x).where(x > 0, x, x * x.dtype.type(alpha))


register("Relu", infer=same_as_input, kernel=_relu)
register("Relu6", infer=same_as_input, kernel=_relu6)
register("Elu", infer=same_as_input, kernel=_elu)
register("Selu", infer=same_as_input, kernel=_selu)
register("Softplus", infer=same_as_input, kernel=_softplus)
register("Softsign", infer=same_as_input, kernel=_softsign)
register("LeakyRelu", infer=same_as_input, kernel=_leaky_relu)


# TF1's gradient ops take (gradients, features) or, for Elu and Selu, (gradients,
# outputs) and compute the same element-wise expressions as TF's kernels.


def _activation_grad_infer(op):
    g, x = op._inputs
    return [(g.dtype, g.shape.merge_with(x.shape))]


def _elu_grad(g, y):
    return array_module(g).where(y < 0, (y + y.dtype.type(1)) * g, g)


def _selu_grad(g, y):
    t = y.dtype.type
    return array_module(g).where(y < 0, g * (y + t(_SELU_SCALE * _SELU_ALPHA)), g * t(_SELU_SCALE))


def _softplus_grad(g, x):
    return g / (array_module(x).exp(-x) + x.dtype.type(1))


def _softsign_grad(g, x):
    d = array_module(x).abs(x) + x.dtype.type(1)
    return g / (d * d)


def _relu_grad(g, x):
    if array_module(g, x) is not np or g.shape != x.shape:
        return g * (x > 0)
    if _numba.usable(g, x):  # one pass, no boolean mask to cast
        out = np.empty_like(g)
        _numba.run(_numba.relu_grad_loop, (g, x, out), (0,))
        return out
    return _blas.in_shares(_masked, g, x)


def _masked(g, x, out=None):
    """``g * (x > 0)``, into ``out``."""
    return np.multiply(g, x > 0, out=out)


register("ReluGrad", infer=_activation_grad_infer, kernel=_relu_grad)
register("Relu6Grad", infer=_activation_grad_infer, kernel=lambda g, x: g * ((x > 0) & (x < 6)))
register("EluGrad", infer=_activation_grad_infer, kernel=_elu_grad)
register("SeluGrad", infer=_activation_grad_infer, kernel=_selu_grad)
register("SoftplusGrad", infer=_activation_grad_infer, kernel=_softplus_grad)
register("SoftsignGrad", infer=_activation_grad_infer, kernel=_softsign_grad)
register("LeakyReluGrad", infer=_activation_grad_infer,
         kernel=lambda g, x, alpha: array_module(g).where(x > 0, g, g * g.dtype.type(alpha)))


def _activation_grad(op_type: str, grad: Tensor, x: Tensor, attrs=None) -> Tensor:
    return apply_op(op_type, [grad, x], attrs).outputs[0]


@gradient("Relu")
def _relu_grad_rule(op, grad):
    return [_activation_grad("ReluGrad", grad, op.outputs[0])]


@gradient("Relu6")
def _relu6_grad_rule(op, grad):
    return [_activation_grad("Relu6Grad", grad, op.outputs[0])]


@gradient("Elu")
def _elu_grad_rule(op, grad):
    return [_activation_grad("EluGrad", grad, op.outputs[0])]


@gradient("Selu")
def _selu_grad_rule(op, grad):
    return [_activation_grad("SeluGrad", grad, op.outputs[0])]


@gradient("Softplus")
def _softplus_grad_rule(op, grad):
    return [_activation_grad("SoftplusGrad", grad, op.inputs[0])]


@gradient("Softsign")
def _softsign_grad_rule(op, grad):
    return [_activation_grad("SoftsignGrad", grad, op.inputs[0])]


@gradient("LeakyRelu")
def _leaky_relu_grad_rule(op, grad):
    return [_activation_grad("LeakyReluGrad", grad, op.inputs[0], {"alpha": op.get_attr("alpha")})]


# Second derivatives, as TF1: the piecewise-linear ones pass the incoming
# gradient through the same mask; the smooth ones also differentiate the mask.


@gradient("ReluGrad")
@gradient("Relu6Grad")
@gradient("LeakyReluGrad")
def _piecewise_linear_grad_grad(op, grad):
    x = op.inputs[1]
    return [_activation_grad(op.type, grad, x, op._attrs or None), array_ops.zeros_like(x)]


@gradient("EluGrad")
@gradient("SeluGrad")
def _exponential_grad_grad(op, grad):
    dy, y = op.inputs
    return [_activation_grad(op.type, grad, y), select_ops.where(y < 0, grad * dy, array_ops.zeros_like(y))]


@gradient("SoftplusGrad")
def _softplus_grad_grad(op, grad):
    dy, x = op.inputs
    ddx = grad * dy / (math_ops.exp(-x) + 2.0 + math_ops.exp(x))
    return [_activation_grad("SoftplusGrad", grad, x), ddx]


@gradient("SoftsignGrad")
def _softsign_grad_grad(op, grad):
    dy, x = op.inputs
    d = math_ops.abs(x) + 1.0
    return [_activation_grad("SoftsignGrad", grad, x), -2.0 * grad * dy * math_ops.sign(x) / (d * d * d)]


@tf_export("nn.relu")
def relu(features, name=None) -> Tensor:
    """``max(features, 0)``.

    >>> import dflow as tf
    >>> tf.nn.relu(tf.constant([-1.0, 2.0])).op.type
    'Relu'
    """
    return _unary("Relu", features, name, REALS)


@tf_export("nn.relu6")
def relu6(features, name=None) -> Tensor:
    """``min(max(features, 0), 6)``."""
    return _unary("Relu6", features, name, REALS)


@tf_export("nn.elu")
def elu(features, name=None) -> Tensor:
    """``features`` if positive, else ``exp(features) - 1``."""
    return _unary("Elu", features, name, FLOATS)


@tf_export("nn.selu")
def selu(features, name=None) -> Tensor:
    """Scaled ELU: ``scale * elu(features)`` with ``alpha`` on the negative side."""
    return _unary("Selu", features, name, FLOATS)


@tf_export("nn.softplus", "math.softplus")
def softplus(features, name=None) -> Tensor:
    """``log(exp(features) + 1)``, computed stably."""
    return _unary("Softplus", features, name, FLOATS)


@tf_export("nn.softsign", "math.softsign")
def softsign(features, name=None) -> Tensor:
    """``features / (abs(features) + 1)``."""
    return _unary("Softsign", features, name, FLOATS)


@tf_export("nn.leaky_relu")
def leaky_relu(features, alpha=0.2, name=None) -> Tensor:
    """``features`` if positive, else ``alpha * features``; integers become float32."""
    with name_scope(name, "LeakyRelu", [features, alpha]) as scope:
        if isinstance(features, Tensor):
            x = features
            if x.dtype.is_integer:
                x = math_ops.cast(x, dtypes.float32)  # as TF does
        else:
            x = convert_to_tensor(features, name="features")
            if x.dtype.is_integer:
                x = convert_to_tensor(np.asarray(features, dtype=np.float32), name="features")
        check_dtype(x, FLOATS, "features")
        return apply_op("LeakyRelu", [x], {"alpha": float(alpha)}, name=scope).outputs[0]


# -- softmax --------------------------------------------------------------------------


def _softmax_infer(op):
    x = op._inputs[0]
    with_rank_at_least(x.shape, 1)
    return [(x.dtype, x.shape)]


def _softmax(logits, axis):
    if logits.size == 0:
        return logits.copy()
    xp = array_module(logits)
    x = logits.astype(np.float32) if logits.dtype == np.float16 else logits
    e = xp.exp(x - x.max(axis=axis, keepdims=True))
    e /= e.sum(axis=axis, keepdims=True)
    return e.astype(logits.dtype, copy=False)


def _log_softmax(logits, axis):
    if logits.size == 0:
        return logits.copy()
    xp = array_module(logits)
    x = logits.astype(np.float32) if logits.dtype == np.float16 else logits
    shifted = x - x.max(axis=axis, keepdims=True)
    shifted -= xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))
    return shifted.astype(logits.dtype, copy=False)


register("Softmax", infer=_softmax_infer, kernel=_softmax)
register("LogSoftmax", infer=_softmax_infer, kernel=_log_softmax)


@gradient("Softmax")
def _softmax_grad(op, grad):
    # (diag(y) - y yᵀ) grad along the axis, without the matrix.
    y = op.outputs[0]
    return [(grad - reduction_ops.reduce_sum(grad * y, op.get_attr("axis"), keepdims=True)) * y]


@gradient("LogSoftmax")
def _log_softmax_grad(op, grad):
    softmax = math_ops.exp(op.outputs[0])
    return [grad - reduction_ops.reduce_sum(grad, op.get_attr("axis"), keepdims=True) * softmax]


def _softmax_op(op_type, logits, axis, dim, name):
    axis = resolve_axis(axis, dim)
    with name_scope(name, op_type, [logits]) as scope:
        x = as_tensor(logits, "logits", FLOATS)
        ndims = x.shape.ndims
        if ndims is not None and ndims > 0 and not -ndims <= axis < ndims:
            raise errors.InvalidArgumentError(
                None, None, f"`dim` must be in the range [{-ndims}, {ndims}) where {ndims} is the number of "
                            f"dimensions in the input. Received: dim={axis}")
        return apply_op(op_type, [x], {"axis": axis}, name=scope).outputs[0]


@tf_export("nn.softmax", "math.softmax")
def softmax(logits, axis=None, name=None, dim=None) -> Tensor:
    """``exp(logits) / sum(exp(logits), axis)``, computed stably (default axis -1)."""
    return _softmax_op("Softmax", logits, axis, dim, name)


@tf_export("nn.log_softmax", "math.log_softmax")
def log_softmax(logits, axis=None, name=None, dim=None) -> Tensor:
    """``logits - log(sum(exp(logits), axis))``, computed stably (default axis -1)."""
    return _softmax_op("LogSoftmax", logits, axis, dim, name)


# -- composites: crelu, swish, relu_layer -------------------------------------------------------


@tf_export("nn.crelu")
def crelu(features, name=None, axis=-1) -> Tensor:
    """``relu(concat([features, -features], axis))``: doubles the ``axis`` dimension."""
    with name_scope(name, "CRelu", [features]):
        x = as_tensor(features, "features", REALS)
        c = array_ops.concat([x, math_ops.negative(x)], axis, name="concat")
        return apply_op("Relu", [c]).outputs[0]


@tf_export("nn.swish", "nn.silu")
def swish(features, beta=1.0) -> Tensor:
    """``features * sigmoid(beta * features)`` (SiLU when ``beta`` is 1)."""
    x = as_tensor(features, "features", FLOATS)
    b = math_ops.cast(convert_to_tensor(beta, name="beta"), x.dtype)
    return math_ops.multiply(x, math_ops.sigmoid(b * x))


@tf_export("nn.relu_layer")
def relu_layer(x, weights, biases, name=None) -> Tensor:
    """``relu(matmul(x, weights) + biases)``."""
    from dflow.ops.nn.nn_ops import xw_plus_b

    with name_scope(name, "relu_layer", [x, weights, biases]) as scope:
        xw_plus_b_ = xw_plus_b(x, weights, biases)
        return apply_op("Relu", [xw_plus_b_], name=scope).outputs[0]
