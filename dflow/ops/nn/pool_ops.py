"""Pooling: ``MaxPool`` and ``AvgPool`` (and ``MaxPool3D``/``AvgPool3D``, on the same kernels,
whose geometry follows the rank of ``ksize``), and their gradient ops ``MaxPoolGrad``,
``MaxPoolGradGrad`` and ``AvgPoolGrad`` (``MaxPool3DGrad``, ...).

Kernels loop over the offsets of the pooling window (``conv_ops.window_slices``:
one strided view of the padded input per offset), never over pixels: a pool
reduces the views elementwise, a gradient scatters into them. ``SAME``
padding is TF's; ``AvgPool`` divides by the number of valid (unpadded)
elements in each window. ``MaxPool``'s gradient goes to one element per
window, the first maximum in scan order (rows, then columns), as TF's kernels
pick it; overlapping windows that pick the same element add up there.

Float32 pools over spatial windows run on oneDNN where it is installed (``_onednn``, as TF's
CPU build does), with the same results; the kernels here run everything else.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.kernels import blas as _blas
from dflow.kernels import onednn as _onednn
from dflow.ops.array import array_ops
from dflow.ops.array.index_args import shape_from_tensor
from dflow.ops.nn._nn_util import FLOATS, REALS, check_dtype, with_rank
from dflow.ops.nn.conv_ops import (
    _check_data_format,
    _check_padding,
    _from_nhwc,
    _to_nhwc,
    channels_first,
    from_channels_last,
    get_sequence,
    to_channels_last,
    window_geometry,
    window_slices,
)

# -- window geometry -------------------------------------------------------------------


def _pool_geometry(shape, ksize, strides, padding, data_format):
    """``(dims, ksize, strides, [(out, pad_before, pad_after)] per non-batch axis)``, all channels-last."""
    ks = _to_nhwc(ksize, data_format)
    ss = _to_nhwc(strides, data_format)
    if ks[0] != 1 or ss[0] != 1:
        raise errors.UnimplementedError(None, None, "Pooling is not yet supported on the batch dimension.")
    dims = _to_nhwc(shape, data_format)
    return dims, ks, ss, [window_geometry(dims[a], ks[a], ss[a], 1, padding) for a in range(1, len(dims))]


def _pads(geometry) -> tuple:
    return ((0, 0),) + tuple((before, after) for _, before, after in geometry)


def _padded_shape(dims, geometry) -> tuple:
    return tuple(d + before + after for d, (before, after) in zip(dims, _pads(geometry)))


def _offsets(ks, ss, geometry):
    """Index tuples into the padded channels-last input, one per window offset (``window_slices``)."""
    return window_slices(ks[1:], ss[1:], (1,) * len(geometry), tuple(out for out, _, _ in geometry))


def _crop(padded, dims, geometry):
    return padded[(slice(None),) + tuple(slice(before, before + d) for d, (_, before, _) in zip(dims[1:], geometry))]


_as_nhwc = to_channels_last
_as_format = from_channels_last


def _compute_dtype(dtype):
    return np.float32 if dtype == np.float16 else dtype


def _valid_counts(padded_shape, geometry, ks, ss, xp):
    """Per output position, the number of unpadded input elements its window covers."""
    c = np.ones((), dtype=np.int64)
    for axis, (out, before, after) in enumerate(geometry, start=1):
        size = padded_shape[axis] - before - after
        start = np.arange(out) * ss[axis] - before
        c = np.multiply.outer(c, np.minimum(start + ks[axis], size) - np.maximum(start, 0))
    return xp.asarray(c)


def _check_grad_shape(grad, dims, geometry):
    want = (dims[0],) + tuple(out for out, _, _ in geometry)
    if grad.shape != want:
        raise errors.InvalidArgumentError(
            None, None, f"Pooling gradient has shape {list(grad.shape)} (as NHWC), but the pool's output has shape "
                        f"{list(want)}")


def _onednn_args(dims, ks, ss, geometry, data_format):
    """``_onednn``'s pooling arguments after the array (``None`` for a pool across channels)."""
    if ks[-1] != 1 or ss[-1] != 1:
        return None
    spatial = geometry[:-1]
    return (ks[1:-1], ss[1:-1], [(before, after) for _, before, after in spatial], channels_first(data_format))


def _on_onednn(x, ksize, strides, padding, data_format, average: bool, keep_workspace: bool = False):
    """The pool on oneDNN (float32 numpy arrays), or None."""
    if not _onednn.usable(x):  # before the geometry, which the numpy kernels work out again
        return None
    dims, ks, ss, geometry = _pool_geometry(x.shape, ksize, strides, padding, data_format)
    args = _onednn_args(dims, ks, ss, geometry, data_format)
    if args is None:
        return None
    y_shape = _from_nhwc((dims[0], *(out for out, _, _ in geometry)), data_format)
    return _onednn.pool_forward(x, y_shape, *args, average=average, keep_workspace=keep_workspace)


# -- MaxPool / AvgPool ---------------------------------------------------------------------------


def _pool_infer(op):
    x = op._inputs[0]
    a = op._attrs
    fmt = a["data_format"]
    dims = _to_nhwc(with_rank(x.shape, len(a["ksize"])).as_list(), fmt)
    ks = _to_nhwc(a["ksize"], fmt)
    ss = _to_nhwc(a["strides"], fmt)
    out = [dims[0]]
    for axis in range(1, len(dims)):
        out.append(window_geometry(dims[axis], ks[axis], ss[axis], 1, a["padding"])[0])
    return [(x.dtype, TensorShape(_from_nhwc(out, fmt)))]


def _pool(x, ksize, strides, padding, data_format, average: bool):
    xp = array_module(x)
    dims, ks, ss, geometry = _pool_geometry(x.shape, ksize, strides, padding, data_format)
    x = _as_nhwc(x, data_format)
    out_shape = (dims[0],) + tuple(out for out, _, _ in geometry)
    if 0 in out_shape or x.size == 0:
        result = xp.zeros(out_shape, dtype=x.dtype)
    else:
        compute = _compute_dtype(x.dtype)
        pads = _pads(geometry)
        if any(p for pair in pads for p in pair):
            fill = 0 if average else (-np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min)
            x = xp.pad(x, pads, constant_values=fill)
        result = None
        for index in _offsets(ks, ss, geometry):
            view = x[index]
            if result is None:
                result = view.astype(compute, copy=True)
            elif average:
                result += view
            else:
                xp.maximum(result, view, out=result)
        if average:
            result /= _valid_counts(x.shape, geometry, ks, ss, xp).astype(compute)
        result = result.astype(x.dtype, copy=False)
    return _as_format(result, data_format)


def _by_batch(kernel, x, *others):
    """``kernel(x, *others)`` for numpy arrays whose first axis is the batch, each share of the
    batch on a thread of the BLAS pool when the work is large (``over_elements``): pooling and
    its gradient treat each example alone."""
    if array_module(x) is not np or x.ndim < 2 or x.shape[0] < 2 or x.size < _blas.PARALLEL_ELEMENTS:
        return kernel(x, *others)
    shares: dict = {}

    def body(rows):
        shares[rows.start] = kernel(x[rows], *(o[rows] for o in others))

    _in_batch_shares(body, x)
    if len(shares) == 1:
        return shares[0]
    return np.concatenate([shares[k] for k in sorted(shares)])


def _max_pool(x, ksize, strides, padding, data_format, keep_workspace=False):
    y = _on_onednn(x, ksize, strides, padding, data_format, average=False, keep_workspace=keep_workspace)
    if y is not None:
        return y
    return _by_batch(lambda xs: _pool(xs, ksize, strides, padding, data_format, average=False), x)


# -- windows that tile the input (a 2 x 2 pool of stride 2, the common case): reshaped views ---------


def _tiles(x, dims, ks, ss, geometry) -> bool:
    """Whether the pool's windows tile the (numpy, real) input exactly: each spatial stride equals its
    window, and there is no padding and nothing left over. Each input element is then in one window,
    and each offset's elements of all windows are a view of the input reshaped."""
    return (type(x) is np.ndarray and x.dtype.kind == "f" and x.size > 0
            and all(k == s and not before and not after and out * s == d
                    for d, k, s, (out, before, after) in zip(dims[1:], ks[1:], ss[1:], geometry)))


def _split_windows(a, ks, geometry):
    """``a`` (channels-last, tiled by the windows) as ``[n, out_1, k_1, out_2, k_2, ...]``: each
    window dimension next to its position in the window (a view where ``a`` is contiguous)."""
    return a.reshape((a.shape[0],) + tuple(v for (out, _, _), k in zip(geometry, ks[1:]) for v in (out, k)))


def _per_window(a, geometry):
    """A pool-shaped ``a`` reshaped to broadcast against ``_split_windows``: 1 for each offset axis."""
    return a.reshape((a.shape[0],) + tuple(v for out, _, _ in geometry for v in (out, 1)))


def _offset_views(split, ks):
    """Per window offset in scan order, the view of a ``_split_windows`` array that holds that
    offset of every window."""
    for offsets in itertools.product(*(range(k) for k in ks[1:])):
        yield split[(slice(None),) + tuple(v for offset in offsets for v in (slice(None), offset))]


def _in_batch_shares(share, a, passes: int = 1) -> None:
    """``share(rows)`` over shares of the batch (``a``'s first axis), on the BLAS pool's threads
    when ``passes`` passes over ``a`` make ``_blas.PARALLEL_ELEMENTS`` or more
    (``_blas.over_elements``); else once, over the whole batch."""
    n = a.shape[0]
    if n < 2 or passes * a.size < _blas.PARALLEL_ELEMENTS:
        share(slice(0, n))
    else:
        _blas.over_elements(n, share, block=n, unit=passes * a[0].size)


def _avg_pool(x, ksize, strides, padding, data_format):
    y = _on_onednn(x, ksize, strides, padding, data_format, average=True)
    if y is not None:
        return y
    return _by_batch(lambda xs: _pool(xs, ksize, strides, padding, data_format, average=True), x)


# The 3-D ops share the kernels: the geometry follows the rank of ``ksize``.
_GRAD_TYPES = {"MaxPool": ("MaxPoolGrad", "MaxPoolGradGrad"), "MaxPool3D": ("MaxPool3DGrad", "MaxPool3DGradGrad"),
               "AvgPool": ("AvgPoolGrad",), "AvgPool3D": ("AvgPool3DGrad",)}


def _make_max_pool(op, resources):
    """``MaxPool``'s kernel. Where a ``MaxPoolGrad`` of the graph reads this op's output, oneDNN's
    forward pass keeps its record of each window's maximum for it (``_onednn.pool_forward``), so the
    gradient need not run the pass again, as TF's oneDNN build does."""
    y = op.outputs[0]
    grad_type = _GRAD_TYPES[op.type][0]
    keep = any(c.type == grad_type and c._inputs[1] is y for c in y.consumers())
    return functools.partial(_max_pool, keep_workspace=keep, **op._attrs)


for _op_type in ("MaxPool", "MaxPool3D"):
    register(_op_type, infer=_pool_infer, make_kernel=_make_max_pool, foldable=True)
for _op_type in ("AvgPool", "AvgPool3D"):
    register(_op_type, infer=_pool_infer, kernel=_avg_pool)


def _family(op_type: str) -> str:
    """The forward op of a pooling op type: ``MaxPool3DGrad`` → ``MaxPool3D``."""
    base = "MaxPool" if op_type.startswith("Max") else "AvgPool"
    return base + "3D" if "3D" in op_type else base


def _pool_attrs(op) -> dict:
    return {k: op.get_attr(k) for k in ("ksize", "strides", "padding", "data_format")}


def _max_pool_grad_op(op_type: str, x: Tensor, y: Tensor, grad: Tensor, attrs: dict) -> Tensor:
    return apply_op(op_type, [x, y, grad], attrs).outputs[0]


@gradient("MaxPool3D")
@gradient("MaxPool")
def _max_pool_grad_rule(op, grad):
    return [_max_pool_grad_op(_GRAD_TYPES[op.type][0], op.inputs[0], op.outputs[0], grad, _pool_attrs(op))]


@gradient("AvgPool3D")
@gradient("AvgPool")
def _avg_pool_grad_rule(op, grad):
    return [apply_op(_GRAD_TYPES[op.type][0], [array_ops.shape(op.inputs[0]), grad], _pool_attrs(op)).outputs[0]]


# -- MaxPoolGrad and MaxPoolGradGrad: routing through each window's first maximum -----------------


def _first_maxima(x, y, dims, ks, ss, geometry, data_format):
    """Yields ``(index, hit)`` per window offset: ``hit`` marks the windows (output
    positions) whose first maximum, in scan order, sits at that offset."""
    xp = array_module(x, y)
    x, y = _as_nhwc(x, data_format), _as_nhwc(y, data_format)
    pads = _pads(geometry)
    padded = any(p for pair in pads for p in pair)
    if padded:
        x = xp.pad(x, pads)
        valid = xp.pad(xp.ones(dims[1:], dtype=bool), pads[1:])  # padding never holds a maximum
    remaining = xp.ones(y.shape, dtype=bool)  # windows whose maximum is still to be found
    for index in _offsets(ks, ss, geometry):
        hit = x[index] == y
        hit &= remaining
        if padded:
            hit &= valid[index[1:]]
        remaining ^= hit  # hit is a subset of remaining: this clears them, with no temporary
        yield index, hit


def _max_pool_grad(x, y, grad, ksize, strides, padding, data_format):
    dims, ks, ss, geometry = _pool_geometry(x.shape, ksize, strides, padding, data_format)
    _check_grad_shape(_as_nhwc(grad, data_format), dims, geometry)  # on the whole batch, before it is split
    if np.shape(y)[:1] != np.shape(x)[:1]:
        return _max_pool_grad_of(x, y, grad, ksize, strides, padding, data_format)
    args = _onednn_args(dims, ks, ss, geometry, data_format)
    if args is not None:
        dx = _onednn.pool_backward(x, grad, *args, average=False, y=y)  # TF's: the first maximum of x's windows
        if dx is not None:
            return dx
    if _tiles(x, dims, ks, ss, geometry) and type(y) is np.ndarray and type(grad) is np.ndarray:
        return _max_pool_grad_tiles(x, y, grad, dims, ks, geometry, data_format)
    return _by_batch(lambda *a: _max_pool_grad_of(*a, ksize, strides, padding, data_format), x, y, grad)


def _max_pool_grad_tiles(x, y, grad, dims, ks, geometry, data_format):
    """``MaxPoolGrad`` for windows that tile the input: each window's first maximum gets the window's
    gradient, written straight into its place (every element is in one window; no padding)."""
    x, y = _as_nhwc(x, data_format), _as_nhwc(y, data_format)
    compute = _compute_dtype(x.dtype)
    g = _as_nhwc(grad, data_format).astype(compute, copy=False)
    dx = np.empty(dims, compute)  # every element is written: its window's gradient or 0
    # g * hit, plus 0.0 to turn its -0.0s (no hit, negative g) into TF's +0.0. An inf or nan in g
    # would leak (inf * 0): where() then.
    finite = bool(np.isfinite(g).all())

    def share(rows):
        # Every element against its window's maximum in one comparison, each window's later hits
        # cleared offset by offset (a > b is a and not b), then the gradient through the mask in
        # one product: 1.9 against 3.0 ms for 64 x 28 x 28 x 32 (a compare, mask, product and
        # strided copy per offset before).
        hit = np.equal(_split_windows(x[rows], ks, geometry), _per_window(y[rows], geometry))
        offsets = list(_offset_views(hit, ks))
        seen = offsets[0].copy()  # windows whose first maximum is found
        for i, later in enumerate(offsets[1:], start=2):
            np.greater(later, seen, out=later)
            if i < len(offsets):
                seen |= later
        g_rows, target = _per_window(g[rows], geometry), _split_windows(dx[rows], ks, geometry)
        if finite:
            np.multiply(g_rows, hit, out=target)
            target += 0.0
        else:
            np.copyto(target, np.where(hit, g_rows, np.zeros((), compute)))

    _in_batch_shares(share, dx, passes=3)  # a compare, a product and an add for each element
    return _as_format(dx.astype(x.dtype, copy=False), data_format)


def _max_pool_grad_of(x, y, grad, ksize, strides, padding, data_format):
    xp = array_module(x, grad)
    dims, ks, ss, geometry = _pool_geometry(x.shape, ksize, strides, padding, data_format)
    g = _as_nhwc(grad, data_format)
    _check_grad_shape(g, dims, geometry)
    compute = _compute_dtype(x.dtype)
    g = g.astype(compute, copy=False)
    dx = xp.zeros(_padded_shape(dims, geometry), dtype=compute)
    # g * hit is three times faster than where(hit, g, 0); its -0.0s (negative g, no hit) become
    # +0.0 as they are added to dx's zeros. An inf or nan in g would leak (inf * 0): where then.
    finite = bool(xp.isfinite(g).all())
    zero = xp.zeros((), dtype=compute)
    for index, hit in _first_maxima(x, y, dims, ks, ss, geometry, data_format):
        dx[index] += g * hit if finite else xp.where(hit, g, zero)
    return _as_format(_crop(dx, dims, geometry).astype(x.dtype), data_format)


def _max_pool_grad_grad(x, y, grad, ksize, strides, padding, data_format):
    xp = array_module(x, grad)
    dims, ks, ss, geometry = _pool_geometry(x.shape, ksize, strides, padding, data_format)
    g = _as_nhwc(grad, data_format)
    if g.shape != tuple(dims):
        raise errors.InvalidArgumentError(None, None, f"grad has shape {list(grad.shape)}, orig_input "
                                                      f"{list(x.shape)}: they must be equal")
    g = xp.pad(g, _pads(geometry))
    out = xp.zeros(_as_nhwc(y, data_format).shape, dtype=x.dtype)
    for index, hit in _first_maxima(x, y, dims, ks, ss, geometry, data_format):
        xp.copyto(out, g[index], where=hit)
    return _as_format(out, data_format)


for _grad_type, _grad_grad_type in (_GRAD_TYPES["MaxPool"], _GRAD_TYPES["MaxPool3D"]):
    register(_grad_type, infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], kernel=_max_pool_grad)
    register(_grad_grad_type, infer=lambda op: [(op._inputs[1].dtype, op._inputs[1].shape)],
             kernel=_max_pool_grad_grad)


@gradient("MaxPool3DGrad")
@gradient("MaxPoolGrad")
def _max_pool_grad_grad_rule(op, grad):
    x, y, _ = op.inputs
    return [array_ops.zeros_like(x), array_ops.zeros_like(y),
            _max_pool_grad_op(_GRAD_TYPES[_family(op.type)][1], x, y, grad, _pool_attrs(op))]


@gradient("MaxPool3DGradGrad")
@gradient("MaxPoolGradGrad")
def _max_pool_grad_grad_grad_rule(op, grad):
    x, y, _ = op.inputs
    return [array_ops.zeros_like(x), array_ops.zeros_like(y),
            _max_pool_grad_op(_GRAD_TYPES[_family(op.type)][0], x, y, grad, _pool_attrs(op))]


# -- AvgPoolGrad: each window's gradient spread evenly over its valid elements ----------------------


def _avg_pool_grad_infer(op):
    shape, grad = op._inputs
    return [(grad.dtype, shape_from_tensor(shape).merge_with(TensorShape([None] * len(op._attrs["ksize"]))))]


def _avg_pool_grad(orig_input_shape, grad, ksize, strides, padding, data_format):
    xp = array_module(grad)
    shape = tuple(int(d) for d in orig_input_shape.tolist())
    dims, ks, ss, geometry = _pool_geometry(shape, ksize, strides, padding, data_format)
    g = _as_nhwc(grad, data_format)
    _check_grad_shape(g, dims, geometry)
    args = _onednn_args(dims, ks, ss, geometry, data_format)
    if args is not None:
        dx = _onednn.pool_backward(tuple(shape), grad, *args, average=True)
        if dx is not None:
            return dx
    compute = _compute_dtype(grad.dtype)
    padded_shape = _padded_shape(dims, geometry)
    dx = xp.zeros(padded_shape, dtype=compute)
    if g.size:
        g = g / _valid_counts(padded_shape, geometry, ks, ss, xp).astype(compute)
        for index in _offsets(ks, ss, geometry):
            dx[index] += g
    return _as_format(_crop(dx, dims, geometry).astype(grad.dtype), data_format)


register("AvgPoolGrad", infer=_avg_pool_grad_infer, kernel=_avg_pool_grad)
register("AvgPool3DGrad", infer=_avg_pool_grad_infer, kernel=_avg_pool_grad)


@gradient("AvgPool3DGrad")
@gradient("AvgPoolGrad")
def _avg_pool_grad_grad(op, grad):
    return [None, apply_op(_family(op.type), [grad], _pool_attrs(op)).outputs[0]]


# -- API -------------------------------------------------------------------------------------------


def _pool_op(op_type, value, ksize, strides, padding, data_format, name, allowed, spatial=2):
    data_format = _check_data_format(data_format, spatial)
    channel_index = 1 if data_format.startswith("NC") else spatial + 1
    ksize = get_sequence(ksize, spatial, channel_index, "ksize")
    strides = get_sequence(strides, spatial, channel_index, "strides")
    padding = _check_padding(padding, op_type)
    with name_scope(name, op_type, [value]) as scope:
        x = convert_to_tensor(value, name="input")
        check_dtype(x, allowed, "value")
        attrs = {"ksize": tuple(ksize), "strides": tuple(strides), "padding": padding, "data_format": data_format}
        return apply_op(op_type, [x], attrs, name=scope).outputs[0]


def _value_or_input(value, input):  # noqa: A002 - TF1 argument name
    if value is not None and input is not None:
        raise ValueError("Cannot specify both 'input' and 'value'")
    return value if input is None else input


@tf_export("nn.max_pool")
def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None) -> Tensor:  # noqa: A002
    """Max over ``ksize`` windows moved by ``strides`` (``padding`` SAME or VALID)."""
    return _pool_op("MaxPool", _value_or_input(value, input), ksize, strides, padding, data_format, name, REALS)


@tf_export("nn.max_pool2d")
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None) -> Tensor:  # noqa: A002
    """Max over ``ksize`` windows moved by ``strides`` (``padding`` SAME or VALID)."""
    return _pool_op("MaxPool", input, ksize, strides, padding, data_format, name, REALS)


@tf_export("nn.avg_pool", "nn.avg_pool2d")
def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None) -> Tensor:  # noqa: A002
    """Mean over ``ksize`` windows; with SAME padding, over the window's valid elements only."""
    return _pool_op("AvgPool", _value_or_input(value, input), ksize, strides, padding, data_format, name, FLOATS)
