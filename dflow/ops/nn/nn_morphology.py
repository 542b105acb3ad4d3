"""Grayscale morphology: ``tf.nn.dilation2d`` (op ``Dilation2D``, with TF1's
gradient ops ``Dilation2DBackpropInput`` and ``Dilation2DBackpropFilter``)
and ``tf.nn.erosion2d``, TF1's composite ``-dilation2d(-value, reversed kernel)``.

``out[b, y, x, c] = max over (dy, dx) of in[b, y*sh + dy*rh - pad_top,
x*sw + dx*rw - pad_left, c] + filter[dy, dx, c]``, positions outside the
input left out. The gradients go to the first maximizing position in
``(dy, dx)`` order, as in TF's kernels.
"""

from __future__ import annotations

import math

import numpy as np

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument
from dflow.ops.array import array_ops
from dflow.ops.math import math_ops
from dflow.ops.nn._nn_util import REALS, as_tensor


def _window(size, filter_size, stride, rate, padding):
    """``(out_size, pad_before)`` along one spatial dimension."""
    effective = (filter_size - 1) * rate + 1
    if padding == "VALID":
        return max(math.ceil((size - effective + 1) / stride), 0), 0
    out = math.ceil(size / stride)
    pad = max((out - 1) * stride + effective - size, 0)
    return out, pad // 2


def _check_attrs(strides, rates, padding):
    for what, value in (("strides", strides), ("rates", rates)):
        if len(value) < 4:
            raise ValueError(f"Attr '{what}' of 'Dilation2D' Op passed list of length {len(value)} less than "
                             f"minimum 4.")
        if len(value) != 4:
            raise ValueError(f"Dilation2D requires the {what} attribute to contain 4 values, but got: {len(value)}")
        if value[0] != 1 or value[3] != 1:
            kind = "Stride" if what == "strides" else "Rate"
            raise errors.UnimplementedError(None, None, f"{kind} is only supported across spatial dimensions.")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Attr 'padding' of 'Dilation2D' Op passed string '{padding}' not in: \"SAME\", \"VALID\".")


def _dilation_infer(op):
    x, f = op._inputs[:2]
    a = op._attrs
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.shape.ndims}")
    if f.shape.ndims is not None and f.shape.ndims != 3:
        raise ValueError(f"Shape must be rank 3 but is rank {f.shape.ndims}")
    xs = x.shape.as_list() if x.shape.ndims is not None else [None] * 4
    fs = f.shape.as_list() if f.shape.ndims is not None else [None] * 3
    if xs[3] is not None and fs[2] is not None and xs[3] != fs[2]:
        raise ValueError(f"Dimensions must be equal, but are {xs[3]} and {fs[2]}")
    out = [xs[0]]
    for i in (1, 2):
        if xs[i] is None or fs[i - 1] is None:
            out.append(None)
        else:
            out.append(_window(xs[i], fs[i - 1], a["strides"][i], a["rates"][i], a["padding"])[0])
    out.append(xs[3] if xs[3] is not None else fs[2])
    return [(x.dtype, TensorShape(out))]


def _argmax_dilation(x, f, strides, rates, padding):
    """``(out, dy, dx, rows, cols)``: the dilation and, per output, where its maximum came from."""
    xp = array_module(x, f)
    if x.ndim != 4 or f.ndim != 3 or x.shape[3] != f.shape[2]:
        raise invalid_argument(f"input must be 4-D and filter 3-D with the same depth, got shapes "
                               f"{list(x.shape)} and {list(f.shape)}")
    _, height, width, _ = x.shape
    fh, fw, _ = f.shape
    (_, sh, sw, _), (_, rh, rw, _) = strides, rates
    out_h, pad_top = _window(height, fh, sh, rh, padding)
    out_w, pad_left = _window(width, fw, sw, rw, padding)
    rows0 = np.arange(out_h) * sh - pad_top
    cols0 = np.arange(out_w) * sw - pad_left
    best = xp.full((x.shape[0], out_h, out_w, x.shape[3]), -np.inf, x.dtype)
    best_dy = np.zeros(best.shape, np.int64)
    best_dx = np.zeros(best.shape, np.int64)
    for dy in range(fh):
        rows = rows0 + dy * rh
        row_ok = (rows >= 0) & (rows < height)
        for dx in range(fw):
            cols = cols0 + dx * rw
            col_ok = (cols >= 0) & (cols < width)
            patch = x[:, np.clip(rows, 0, height - 1)][:, :, np.clip(cols, 0, width - 1)] + f[dy, dx]
            valid = (row_ok[:, None] & col_ok[None, :])[None, :, :, None]
            better = valid & (patch > best)
            best = xp.where(better, patch, best)
            best_dy = np.where(better, dy, best_dy)
            best_dx = np.where(better, dx, best_dx)
    rows = rows0[None, :, None, None] + best_dy * rh
    cols = cols0[None, None, :, None] + best_dx * rw
    return best, best_dy, best_dx, rows, cols


def _dilation(x, f, strides, rates, padding):
    return _argmax_dilation(x, f, strides, rates, padding)[0]


def _backprop_input(x, f, grad, strides, rates, padding):
    xp = array_module(x, f, grad)
    _, _, _, rows, cols = _argmax_dilation(x, f, strides, rates, padding)
    out = np.zeros(x.shape, x.dtype)
    b, _, _, c = np.indices(grad.shape)
    np.add.at(out, (b, np.clip(rows, 0, x.shape[1] - 1), np.clip(cols, 0, x.shape[2] - 1), c), np.asarray(grad))
    return xp.asarray(out)


def _backprop_filter(x, f, grad, strides, rates, padding):
    xp = array_module(x, f, grad)
    _, dy, dx, _, _ = _argmax_dilation(x, f, strides, rates, padding)
    out = np.zeros(f.shape, f.dtype)
    c = np.indices(grad.shape)[3]
    np.add.at(out, (dy, dx, c), np.asarray(grad))
    return xp.asarray(out)


register("Dilation2D", infer=_dilation_infer, kernel=_dilation, gpu=False)
register("Dilation2DBackpropInput", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)],
         kernel=_backprop_input, gpu=False)
register("Dilation2DBackpropFilter", infer=lambda op: [(op._inputs[1].dtype, op._inputs[1].shape)],
         kernel=_backprop_filter, gpu=False)


@gradient("Dilation2D")
def _dilation_grad(op, grad):
    x, f = op.inputs
    attrs = dict(op._attrs)
    return [apply_op("Dilation2DBackpropInput", [x, f, grad], attrs).outputs[0],
            apply_op("Dilation2DBackpropFilter", [x, f, grad], attrs).outputs[0]]


def _dilation_op(x, f, strides, rates, padding, name) -> Tensor:
    strides, rates = [int(s) for s in strides], [int(r) for r in rates]
    if isinstance(padding, bytes):
        padding = padding.decode()
    _check_attrs(strides, rates, padding)
    attrs = {"strides": tuple(strides), "rates": tuple(rates), "padding": padding}
    return apply_op("Dilation2D", [x, f], attrs, name=name).outputs[0]


@tf_export("nn.dilation2d")
def dilation2d(input, filter=None, strides=None, rates=None, padding=None, name=None, filters=None,  # noqa: A002
               dilations=None) -> Tensor:
    """Grayscale dilation of 4-D ``input`` by the 3-D structuring function ``filter``.

    >>> import dflow as tf
    >>> y = tf.nn.dilation2d(tf.zeros([1, 4, 4, 2]), tf.zeros([2, 2, 2]), [1, 1, 1, 1], [1, 1, 1, 1], "SAME")
    >>> y.shape.as_list()
    [1, 4, 4, 2]
    """
    filter = _lookup("filters", filters, "filter", filter)  # noqa: A001 - TF1 argument name
    rates = _lookup("dilations", dilations, "rates", rates)
    with name_scope(name, "Dilation2D", [input, filter]) as scope:
        x = as_tensor(input, "input", REALS)
        f = as_tensor(filter, "filter", dtype=x.dtype)
        return _dilation_op(x, f, strides, rates, padding, scope)


def _lookup(new_name, new_value, old_name, old_value):
    if new_value is not None and old_value is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return new_value if new_value is not None else old_value


@tf_export("nn.erosion2d")
def erosion2d(value, kernel, strides, rates, padding, name=None) -> Tensor:
    """Grayscale erosion: ``-dilation2d(-value, kernel reversed in both spatial dimensions)``."""
    with name_scope(name, "erosion2d", [value, kernel]):
        x = as_tensor(value, "value", REALS)
        k = as_tensor(kernel, "kernel", dtype=x.dtype)
        dilated = _dilation_op(math_ops.negative(x), array_ops.reverse(k, [0, 1]), strides, rates, padding, None)
        return math_ops.negative(dilated)
