"""Neural-network ops (``tf.nn``): bias_add, xw_plus_b, in_top_k, dropout.

Each block is a TF1 op: shape rule, numpy kernel (which also runs on CuPy
arrays), gradient rule and API function, with TF1.15's op types and names
(``tf.nn.bias_add`` → op ``BiasAdd``). Constants that an API function makes from Python arguments are
named after the argument inside the op's scope, as TF's generated wrappers
name them (``in_top_k/InTopKV2/k``).

Where TF1 composes a function from math ops (``dropout``, ``xw_plus_b``),
dflow has one internal op (type name starting with ``_``) that carries the
name TF gives the result, so fetching ``"dropout/mul_1:0"`` still works.
Activations and softmax live in ``nn_activations``, convolutions in
``conv_ops``, pooling in ``pool_ops``, losses in ``nn_losses``,
normalization in ``nn_norm_ops``; ``tf.nn.sigmoid`` and ``tf.nn.tanh`` are
math ops.
"""

from __future__ import annotations

import numbers

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, as_shape, broadcast_shapes, dimension_value
from dflow.kernels import array_module
from dflow.kernels import blas as _blas
from dflow.ops.array import array_ops
from dflow.ops.linalg import linalg_ops
from dflow.ops.math import reduction_ops
from dflow.ops.nn._nn_util import (
    INTS,
    REALS,
    as_tensor,
    merge_dims,
    with_rank,
    with_rank_at_least,
)
from dflow.ops.random.random_ops import like, seed_attrs, stateful_kernel

# -- bias_add ----------------------------------------------------------------------------


def _bias_add_infer(op):
    value, bias = op._inputs
    nchw = op._attrs["data_format"] == "NCHW"
    shape = with_rank_at_least(value.shape, 3 if nchw else 2)
    with_rank(bias.shape, 1)
    if shape.ndims is not None and bias.shape.ndims is not None:
        channel = 1 if nchw else -1
        c = merge_dims(dimension_value(shape[channel]), dimension_value(bias.shape[0]))
        dims = shape.as_list()
        dims[channel] = c
        return [(value.dtype, TensorShape(dims))]
    return [(value.dtype, shape)]


def _bias_add(value, bias, data_format):
    if data_format == "NCHW":
        bias = bias.reshape((-1,) + (1,) * (value.ndim - 2))
    return _blas.in_shares(array_module(value).add, value, bias)


register("BiasAdd", infer=_bias_add_infer, kernel=_bias_add)


def _bias_add_grad_infer(op):
    g = op._inputs[0]
    channel = 1 if op._attrs["data_format"] == "NCHW" else -1
    return [(g.dtype, TensorShape([g.shape[channel] if g.shape.ndims else None]))]


def _bias_add_grad(out_backprop, data_format):
    channel = 1 if data_format == "NCHW" else out_backprop.ndim - 1
    if channel == out_backprop.ndim - 1:
        by_product = _blas.sum_leading_axes(out_backprop, channel)
        if by_product is not None:
            return by_product
    return out_backprop.sum(axis=tuple(a for a in range(out_backprop.ndim) if a != channel))


register("BiasAddGrad", infer=_bias_add_grad_infer, kernel=_bias_add_grad)


def _bias_grad(grad: Tensor, data_format: str) -> Tensor:
    return apply_op("BiasAddGrad", [grad], {"data_format": data_format}).outputs[0]


@gradient("BiasAdd")
def _bias_add_grad_rule(op, grad):
    return [grad, _bias_grad(grad, op.get_attr("data_format"))]


@gradient("BiasAddGrad")
def _bias_add_grad_grad(op, grad):
    # Broadcast the bias gradient back over the input's shape.
    shape = array_ops.shape(op.inputs[0])
    if op.get_attr("data_format") == "NCHW":
        ones = array_ops.ones_like(shape[2:])
        grad = array_ops.reshape(grad, array_ops.concat([array_ops.shape(grad), ones], 0))
    return [array_ops.broadcast_to(grad, shape)]


@tf_export("nn.bias_add")
def bias_add(value, bias, data_format=None, name=None) -> Tensor:
    """Adds the vector ``bias`` along the channel dimension (last, or 1 for ``NCHW``)."""
    if data_format is None:
        data_format = "NHWC"
    if isinstance(data_format, bytes):
        data_format = data_format.decode()
    # TF1: any "NC..." layout is channels-first, any "N...C" channels-last.
    if data_format.startswith("NC"):
        data_format = "NCHW"
    elif data_format.startswith("N") and data_format.endswith("C"):
        data_format = "NHWC"
    else:
        raise ValueError(f"`data_format` must be of the form `N...C` or `NC...`. Received: data_format={data_format}")
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        x = as_tensor(value, "input", REALS)
        b = convert_to_tensor(bias, dtype=x.dtype, name="bias")
        return apply_op("BiasAdd", [x, b], {"data_format": data_format}, name=scope).outputs[0]


# -- xw_plus_b (fused MatMul + BiasAdd) -------------------------------------------------------


def _xw_plus_b_infer(op):
    x, w, b = op._inputs
    xs, ws = with_rank(x.shape, 2), with_rank(w.shape, 2)
    with_rank(b.shape, 1)
    merge_dims(dimension_value(xs[1]), dimension_value(ws[0]))
    out = merge_dims(dimension_value(ws[1]), dimension_value(b.shape[0]) if b.shape.ndims else None)
    return [(x.dtype, TensorShape([xs[0], out]))]


def _xw_plus_b(x, w, b):
    out = x @ w
    out += b
    return out


register("_XwPlusB", infer=_xw_plus_b_infer, kernel=_xw_plus_b)


@gradient("_XwPlusB")
def _xw_plus_b_grad(op, grad):
    x, w, _ = op.inputs
    return [linalg_ops.matmul(grad, w, transpose_b=True), linalg_ops.matmul(x, grad, transpose_a=True),
            _bias_grad(grad, "NHWC")]


@tf_export("nn.xw_plus_b")
def xw_plus_b(x, weights, biases, name=None) -> Tensor:
    """``matmul(x, weights) + biases`` (one fused op named ``xw_plus_b``)."""
    with name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        x = as_tensor(x, "x", REALS)
        w = convert_to_tensor(weights, dtype=x.dtype, name="weights")
        b = convert_to_tensor(biases, dtype=x.dtype, name="biases")
        return apply_op("_XwPlusB", [x, w, b], name=scope).outputs[0]


# -- in_top_k ------------------------------------------------------------------------------


def _in_top_k_infer(op):
    predictions, targets, k = op._inputs
    p = with_rank(predictions.shape, 2)
    t = with_rank(targets.shape, 1)
    with_rank(k.shape, 0)
    return [(dtypes.bool, TensorShape([merge_dims(dimension_value(p[0]), dimension_value(t[0]))]))]


def _in_top_k(predictions, targets, k):
    xp = array_module(predictions)
    n, classes = predictions.shape
    in_range = (targets >= 0) & (targets < classes)
    target_pred = predictions[xp.arange(n), xp.where(in_range, targets, 0)]
    # TF counts classes strictly more probable than the target (ties are in), and
    # cannot say for out-of-range targets or rows with non-finite predictions.
    more = (predictions > target_pred[:, None]).sum(axis=1)
    finite = xp.isfinite(predictions).all(axis=1)
    return in_range & finite & (more < int(k))


register("InTopKV2", infer=_in_top_k_infer, kernel=_in_top_k)
not_differentiable("InTopKV2")


@tf_export("nn.in_top_k", "math.in_top_k")
def in_top_k(predictions, targets, k, name=None) -> Tensor:
    """Whether each target class is among the ``k`` highest predictions of its row (ties count)."""
    with name_scope(name, "in_top_k", [predictions, targets]):
        with name_scope("InTopKV2") as scope:
            if not isinstance(predictions, Tensor) and np.asarray(predictions).dtype.kind == "f":
                predictions = np.asarray(predictions, np.float32)  # TF1 converts float values to the op's float32
            p = convert_to_tensor(predictions, name="predictions")
            if p.dtype is not dtypes.float32:
                raise TypeError(f"Input 'predictions' of 'InTopKV2' Op has type {p.dtype.name} that does not "
                                f"match expected type of float32.")
            t = as_tensor(targets, "targets", INTS)
            if isinstance(k, Tensor) and k.dtype is not t.dtype:
                raise TypeError(f"Input 'k' of 'InTopKV2' Op has type {k.dtype.name} that does not match type "
                                f"{t.dtype.name} of argument 'targets'.")
            k = convert_to_tensor(k, dtype=t.dtype, name="k")
            return apply_op("InTopKV2", [p, t, k], name=scope).outputs[0]


# -- dropout (fused: uniform noise, mask, scale) ------------------------------------------------------


def _dropout_infer(op):
    x = op._inputs[0]
    rate = op._inputs[1]
    if rate.shape.ndims not in (None, 0):
        raise ValueError(f"Shape {rate.shape} must have rank 0")
    noise = op._attrs["noise_shape"]
    if noise is not None:
        static = TensorShape(list(noise))
    elif len(op._inputs) > 2:
        from dflow.ops.random.random_ops import shape_from_tensor

        static = shape_from_tensor(op._inputs[2])
    else:
        static = None
    if static is not None:
        out = broadcast_shapes(static, x.shape)
        if x.shape.ndims is not None and out.ndims is not None and out.ndims != x.shape.ndims:
            raise ValueError(f"noise_shape {static} does not broadcast to the shape {x.shape} of x")
    return [(x.dtype, x.shape), (x.dtype, x.shape if static is None else static)]


def _dropout(rng, x, p, *noise, is_keep_prob, noise_shape):
    if noise:
        dims = tuple(int(d) for d in noise[0].tolist())
    elif noise_shape is not None:
        dims = tuple(x.shape[i] if d is None else d for i, d in enumerate(noise_shape))
    else:
        dims = x.shape
    if np.broadcast_shapes(dims, x.shape) != x.shape:
        raise errors.InvalidArgumentError(
            None, None, f"noise_shape {list(dims)} does not broadcast to the shape {list(x.shape)} of x")
    gen_dtype = np.float64 if x.dtype == np.float64 else np.float32
    u = like(rng.random(dims, dtype=gen_dtype).astype(x.dtype, copy=False), x)
    rate = 1 - p if is_keep_prob else p
    scale = 1 / (1 - rate)
    # Keep where u >= rate (TF's comparison), scaled by 1 / keep_prob. The mask
    # (0 or the scale) is the second output, for the gradient.
    mask = array_module(x).where(u >= rate, scale, x.dtype.type(0)).astype(x.dtype, copy=False)
    return x * mask, mask


register("_Dropout", infer=_dropout_infer, make_kernel=stateful_kernel(_dropout), stateful=True)


@gradient("_Dropout")
def _dropout_grad(op, grad, grad_mask):
    p = op.inputs[1]
    y, mask = op.outputs
    # y and the mask are both proportional to 1 / (1 - rate) = 1 / keep_prob.
    total = reduction_ops.reduce_sum(grad * y)
    if grad_mask.op.type != "ZerosLike":
        total += reduction_ops.reduce_sum(grad_mask * mask)
    grad_p = -total / p if op.get_attr("is_keep_prob") else total / (1.0 - p)
    return [grad * mask, grad_p] + [None] * (len(op.inputs) - 2)


def _noise_shape(x: Tensor, noise_shape):
    """TF's ``_get_noise_shape``: unknown entries of a list take ``x``'s static dims."""
    if noise_shape is None or isinstance(noise_shape, Tensor):
        return noise_shape
    try:
        shape = as_shape(noise_shape)
    except (TypeError, ValueError):
        return convert_to_tensor(noise_shape, name="noise_shape")
    dims = shape.as_list() if shape.ndims is not None else None
    if dims is None:
        raise ValueError("noise_shape must have a known rank")
    if x.shape.ndims == len(dims):
        dims = [dimension_value(xd) if d is None else d for d, xd in zip(dims, x.shape)]
    return tuple(dims)


@tf_export("nn.dropout")
def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None) -> Tensor:
    """Zeroes elements with probability ``rate`` (= ``1 - keep_prob``), scaling the rest by ``1 / keep_prob``.

    >>> import dflow as tf
    >>> tf.nn.dropout(tf.placeholder(tf.float32, [4]), rate=0.5).name
    'dropout/mul_1:0'
    """
    if keep_prob is not None and rate is not None:
        raise ValueError("Cannot specify both 'keep_prob' and 'rate'.")
    if keep_prob is None and rate is None:
        raise ValueError("You must provide a rate to dropout.")
    is_keep_prob = keep_prob is not None
    p = keep_prob if is_keep_prob else rate
    if isinstance(p, numbers.Real) and is_keep_prob:
        p, is_keep_prob = 1.0 - p, False
    with name_scope(name, "dropout", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError(f"x has to be a floating point tensor since it's going to be scaled. Got a "
                             f"{x.dtype.name} tensor instead.")
        if isinstance(p, numbers.Real):
            if not 0 <= p < 1:
                raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), got {p:g}")
            if p == 0:
                return x
        p = convert_to_tensor(p, dtype=x.dtype, name="keep_prob" if is_keep_prob else "rate")
        if p.shape.ndims not in (None, 0):
            raise ValueError(f"Shape {p.shape} must have rank 0")
        v = constant_value(p)
        if v is not None and (v == 1 if is_keep_prob else v == 0):
            return x
        noise = _noise_shape(x, noise_shape)
        inputs = [x, p]
        attrs = {"is_keep_prob": is_keep_prob, "noise_shape": None}
        if isinstance(noise, Tensor):
            inputs.append(noise)
        elif noise is not None:
            attrs["noise_shape"] = noise
        attrs.update(seed_attrs(seed))
        # TF1.15 names the result x * scale * mask "dropout/mul_1".
        return apply_op("_Dropout", inputs, attrs, name="mul_1").outputs[0]


# The other nn modules register on import of this one (``import dflow`` imports nn_ops).
from dflow.ops.nn import conv_ops, nn_activations, nn_losses, nn_norm_ops, pool_ops  # noqa: E402, F401
