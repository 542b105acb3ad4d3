"""Convolution kernels over any number of spatial dimensions: ``Conv2D`` and ``Conv3D``, their
gradient ops (``Conv2DBackpropInput``/``Filter``, ``Conv3DBackpropInputV2``/``FilterV2``),
``DepthwiseConv2dNative`` and its backprops (a grouped ``Conv2D``: one group per input channel),
and the window geometry that pooling (``pool_ops``) shares. ``conv_variants`` builds TF1's other
convolution functions on these ops.

Float32 convolutions, grouped and depthwise ones too, run on oneDNN where it is installed (``_onednn``: TF's own
CPU kernels, 3 - 4 times faster); the numpy kernels below run everything else and are the
reference the oneDNN path is tested against.

Kernels loop over the few positions of the filter window, never over
pixels: a convolution gathers one strided view of the padded input per
filter tap into an im2col matrix and does one matmul, and so does the
filter's backprop (with the output gradient); the input's backprop does one
matmul per tap and adds each into its strided view. ``SAME`` padding is TF's: ``out = ceil(in / stride)`` and the odd
padding element goes after. Channels-first layouts (``NCHW``, ``NCDHW``) are computed by
transposing to channels-last (TF's CPU kernels refuse them; dflow does not).
"""

from __future__ import annotations

import itertools
from collections.abc import Sized

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.kernels import onednn as _onednn
from dflow.kernels.blas import add_and_finish, biased_product, over_batch
from dflow.ops.array import array_ops
from dflow.ops.array.index_args import shape_from_tensor
from dflow.ops.nn._nn_util import FLOATS, as_tensor, with_rank

_CONV_TYPES = FLOATS + (dtypes.int32,)  # as TF's Conv2D


# -- window geometry -------------------------------------------------------------------


def window_geometry(size, k: int, stride: int, dilation: int, padding: str, pads=(0, 0)):
    """``(out, pad_before, pad_after)`` of one spatial dimension (``size`` may be None)."""
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        if size is None:
            return None, None, None
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2
    before, after = pads if padding == "EXPLICIT" else (0, 0)
    if size is None:
        return None, before, after
    padded = size + before + after
    if padded < eff:
        raise ValueError(f"Negative dimension size caused by subtracting {eff} from {padded}")
    return (padded - eff) // stride + 1, before, after


def channels_first(data_format: str) -> bool:
    """Whether ``data_format`` (``NHWC``, ``NCHW``, ``NDHWC``, ``NCDHW``, ``NWC``, ``NCW``) puts channels second."""
    return data_format.startswith("NC")


def _to_nhwc(seq, data_format):
    """``seq`` (one entry per dimension of ``data_format``) in channels-last order."""
    seq = list(seq)
    return tuple([seq[0]] + seq[2:] + [seq[1]]) if channels_first(data_format) else tuple(seq)


def _from_nhwc(dims, data_format):
    dims = list(dims)
    return [dims[0], dims[-1]] + dims[1:-1] if channels_first(data_format) else dims


def to_channels_last(a, data_format):
    """An array in ``data_format`` as channels-last (a view)."""
    return a.transpose(0, *range(2, a.ndim), 1) if channels_first(data_format) else a


def from_channels_last(a, data_format):
    return a.transpose(0, a.ndim - 1, *range(1, a.ndim - 1)) if channels_first(data_format) else a


def get_sequence(value, n: int, channel_index: int, name: str) -> list:
    """TF's ``_get_sequence``: an int, or ``n`` or ``n + 2`` values, as a full ``n + 2`` list."""
    if value is None:
        value = [1]
    elif not isinstance(value, Sized):
        value = [value]
    value = [int(v) for v in value]
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2} but was {len(value)}")
    return [1, 1] + value if channel_index == 1 else [1] + value + [1]


DATA_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def check_data_format(data_format, spatial: int = 2) -> str:
    """``data_format`` of a convolution or pool over ``spatial`` dimensions (None: channels last)."""
    last, first = DATA_FORMATS[spatial]
    if data_format is None:
        return last
    if data_format not in (last, first):
        raise ValueError(f"data_format must be {last!r} or {first!r}, got {data_format!r}")
    return data_format


_check_data_format = check_data_format


def _check_padding(padding, op_type: str) -> str:
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Attr 'padding' of '{op_type}' Op passed string {padding!r} not in: \"SAME\", \"VALID\".")
    return padding


def convert_padding(padding, data_format: str) -> tuple:
    """TF's ``_convert_padding``: a string, or explicit ``[[before, after]] * 4`` → ``("EXPLICIT", flat)``."""
    if isinstance(padding, (list, tuple)):
        if len(padding) != 4:
            raise ValueError(f"When padding is a list, it must be of size 4. Got padding of size: {len(padding)}")
        flat = []
        for i, pair in enumerate(padding):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise ValueError(f"When padding is a list, each element of padding must be a list/tuple of size 2. "
                                 f"Received: padding[{i}]={pair!r}")
            flat.extend(int(v) for v in pair)
        if any(v < 0 for v in flat):
            raise ValueError(f"All elements of explicit_paddings must be nonnegative, got {flat}")
        n, c = 0, (1 if channels_first(data_format) else 3)
        if flat[2 * n] or flat[2 * n + 1] or flat[2 * c] or flat[2 * c + 1]:
            raise ValueError("Nonzero explicit padding in the batch or depth dimensions is not supported")
        return "EXPLICIT", tuple(flat)
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Attr 'padding' of 'Conv2D' Op passed string {padding!r} not in: \"SAME\", \"VALID\", "
                         f"\"EXPLICIT\".")
    return padding, ()


def window_slices(ks, strides, dilations, outs):
    """Index tuples into a padded (N, H, W, C) array, one per window offset, in
    scan order (rows, then columns): each selects that offset of every window."""
    for offsets in itertools.product(*(range(k) for k in ks)):
        index = [slice(None)]
        for o, s, d, out in zip(offsets, strides, dilations, outs):
            start = o * d
            index.append(slice(start, start + (out - 1) * s + 1, s))
        yield tuple(index)


# -- Conv2D and Conv3D: one N-D kernel over channels-last arrays ------------------------------


def _conv_infer(op):
    x, w = op._inputs
    a = op._attrs
    fmt = a["data_format"]
    rank = len(a["strides"])
    dims = _to_nhwc(with_rank(x.shape, rank).as_list(), fmt)
    *ks, ci, co = with_rank(w.shape, rank).as_list()
    c = dims[-1]
    if c is not None and ci is not None:
        if ci == 0 or c % ci:
            raise ValueError(f"Depth of input ({c}) is not a multiple of input depth of filter ({ci})")
        groups = c // ci
        if co is not None and co % groups:
            raise ValueError(f"Depth of output ({co}) is not a multiple of the number of groups ({groups})")
    ss = _to_nhwc(a["strides"], fmt)
    ds = _to_nhwc(a["dilations"], fmt)
    pads = _to_nhwc(_pairs(a.get("explicit_paddings", ()), rank), fmt)
    out = [dims[0]]
    for i, k in enumerate(ks, start=1):
        out.append(window_geometry(dims[i], k, ss[i], ds[i], a["padding"], pads[i])[0] if k is not None else None)
    return [(x.dtype, TensorShape(_from_nhwc(out + [co], fmt)))]


def _pairs(flat, rank=4):
    return [tuple(flat[i:i + 2]) for i in range(0, 2 * rank, 2)] if flat else [(0, 0)] * rank


def _conv_geometry(x_shape, w_shape, strides, padding, explicit_paddings, data_format, dilations):
    """``(dims, strides, dilations, [(out, pad_before, pad_after)] per spatial dimension)`` of a
    convolution of an input of ``x_shape`` (in ``data_format``) with a filter of ``w_shape``;
    ``dims`` is the input's shape channels-last, strides and dilations are spatial only."""
    rank = len(x_shape)
    ss = _to_nhwc(strides, data_format)
    ds = _to_nhwc(dilations, data_format)
    if ss[0] != 1 or ss[-1] != 1:
        raise errors.UnimplementedError(
            None, None, "Current implementation does not yet support strides in the batch and depth dimensions.")
    if ds[0] != 1 or ds[-1] != 1:
        raise errors.UnimplementedError(
            None, None, "Current implementation does not yet support dilations in the batch and depth dimensions.")
    dims = _to_nhwc(x_shape, data_format)
    *ks, ci, co = w_shape
    c = dims[-1]
    if ci == 0 or c % ci or co % (c // ci):
        raise errors.InvalidArgumentError(
            None, None, f"input depth ({c}) must be a multiple of filter input depth ({ci}), and the filter output "
                        f"depth ({co}) a multiple of the number of groups")
    pads = _to_nhwc(_pairs(explicit_paddings, rank), data_format)
    geometry = [window_geometry(dims[i], k, ss[i], ds[i], padding, pads[i]) for i, k in enumerate(ks, start=1)]
    return dims, ss[1:-1], ds[1:-1], geometry


def _outs(geometry) -> tuple:
    return tuple(out for out, _, _ in geometry)


def _spatial_pads(geometry) -> tuple:
    return ((0, 0),) + tuple((before, after) for _, before, after in geometry) + ((0, 0),)


def _im2col(x, ks, strides, dilations, geometry):
    """``[n, *out, taps, c]``: each output position's window of the (padded) channels-last input."""
    xp = array_module(x)
    pads = _spatial_pads(geometry)
    if any(p for pair in pads for p in pair):
        x = xp.pad(x, pads)
    # One strided view [n, *out, *ks, c] over the input, copied once into a contiguous array:
    # several times faster than stacking one slice per tap (a strided write per tap).
    outs = _outs(geometry)
    s_n, *s_sp, s_c = x.strides
    view = xp.lib.stride_tricks.as_strided(
        x, (x.shape[0], *outs, *ks, x.shape[-1]),
        (s_n, *(s * st for s, st in zip(s_sp, strides)), *(s * d for s, d in zip(s_sp, dilations)), s_c))
    col = xp.empty(view.shape, dtype=x.dtype)
    xp.copyto(col, view)
    return col.reshape(x.shape[0], *outs, int(np.prod(ks)), x.shape[-1])


def _onednn_args(geometry, strides, dilations, data_format) -> tuple:
    """The geometry arguments of ``_onednn``'s convolutions."""
    return strides, dilations, [(before, after) for _, before, after in geometry], channels_first(data_format)


def _parallel_work(xp, work: int) -> int:
    """A kernel's multiply-adds for ``over_batch``: none (one block) for arrays other than numpy's."""
    return work if xp is np else 0


def _compute_dtype(dtype):
    return np.float32 if dtype == np.float16 else dtype


def _conv(x, w, strides, padding, data_format, dilations, explicit_paddings=(), bias=None, finish=None):
    """The convolution; a fused op's ``bias`` (one per output channel, added in the product) and
    ``finish`` (in place, an activation) are applied to each block of the batch as it is made,
    channels last (``dflow.sessions.fusion``)."""
    xp = array_module(x, w)
    dims, ss, ds, geometry = _conv_geometry(x.shape, w.shape, strides, padding, explicit_paddings, data_format,
                                            dilations)
    *ks, ci, co = w.shape
    n, c, outs = dims[0], dims[-1], _outs(geometry)
    y = _onednn.conv_forward(x, w, _from_nhwc((n, *outs, co), data_format),  # float32: oneDNN's kernels
                             *_onednn_args(geometry, ss, ds, data_format), bias=bias, finish=finish)
    if y is not None:
        return y
    x = to_channels_last(x, data_format)
    positions = n * int(np.prod(outs))
    taps = int(np.prod(ks))
    if positions * co == 0 or c == 0:
        out = xp.zeros((n, *outs, co), dtype=x.dtype)
        if bias is not None or finish is not None:
            add_and_finish(out, bias, finish)
    else:
        compute = _compute_dtype(x.dtype)
        groups = c // ci
        if groups == 1:
            wk = w.reshape(taps * ci, co).astype(compute, copy=False)
        else:
            wk = w.reshape(taps, ci, groups, co // groups).astype(compute, copy=False)
        out = xp.empty((n, *outs, co), dtype=compute)

        def block(rows):  # im2col and product of a block of the batch
            col = _im2col(x[rows], ks, ss, ds, geometry).astype(compute, copy=False)
            if groups == 1 and xp is np:  # the bias, if any, inside the product
                biased_product(col.reshape(-1, taps * c), wk, out[rows].reshape(-1, co), bias)
            else:
                if groups == 1:  # CuPy
                    xp.matmul(col.reshape(-1, taps * c), wk, out=out[rows].reshape(-1, co))
                else:
                    out[rows] = xp.einsum("pkgc,kcgo->pgo", col.reshape(-1, taps, groups, ci), wk).reshape(
                        out[rows].shape)
                if bias is not None:
                    out[rows] += bias
            if finish is not None:
                finish(out[rows])

        over_batch(n, _parallel_work(xp, positions * taps * c * co), block)
        out = out.reshape(n, *outs, co).astype(x.dtype, copy=False)
    return from_channels_last(out, data_format)


register("Conv2D", infer=_conv_infer, kernel=_conv)
register("Conv3D", infer=_conv_infer, kernel=_conv)


def _conv_attrs(op) -> dict:
    keys = ("strides", "padding", "explicit_paddings", "data_format", "dilations")
    return {k: op._attrs[k] for k in keys if k in op._attrs}


_BACKPROP_TYPES = {"Conv2D": ("Conv2DBackpropInput", "Conv2DBackpropFilter"),
                   "Conv3D": ("Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"),
                   "DepthwiseConv2dNative": ("DepthwiseConv2dNativeBackpropInput",
                                             "DepthwiseConv2dNativeBackpropFilter")}
_FORWARD_OF = {t: forward for forward, types in _BACKPROP_TYPES.items() for t in types}


def _backprop_input(forward: str, input_sizes: Tensor, w: Tensor, dy: Tensor, attrs: dict) -> Tensor:
    return apply_op(_BACKPROP_TYPES[forward][0], [input_sizes, w, dy], attrs).outputs[0]


def _backprop_filter(forward: str, x: Tensor, filter_sizes: Tensor, dy: Tensor, attrs: dict) -> Tensor:
    return apply_op(_BACKPROP_TYPES[forward][1], [x, filter_sizes, dy], attrs).outputs[0]


def _forward(forward: str, x: Tensor, w: Tensor, attrs: dict) -> Tensor:
    return apply_op(forward, [x, w], attrs).outputs[0]


@gradient("Conv3D")
@gradient("Conv2D")
def _conv_grad(op, grad):
    x, w = op.inputs
    attrs = _conv_attrs(op)
    return [_backprop_input(op.type, array_ops.shape(x), w, grad, attrs),
            _backprop_filter(op.type, x, array_ops.shape(w), grad, attrs)]


# -- the backprop ops (TF1's gradient ops, and conv2d_transpose's forward): loops over taps too -------


def _check_out_backprop(dy, dims, outs, co):
    want = (dims[0], *outs, co)
    if dy.shape != want:
        raise errors.InvalidArgumentError(
            None, None, f"Conv backprop: out_backprop has shape {list(dy.shape)} (channels last), but the "
                        f"convolution's output has shape {list(want)}")


def _grouped(a, groups: int):
    """``[P, channels]`` → ``[P, groups, channels / groups]``."""
    return a.reshape(a.shape[0], groups, a.shape[1] // groups)


def _conv_backprop_input(input_sizes, w, dy, strides, padding, data_format, dilations, explicit_paddings=()):
    xp = array_module(w, dy)
    x_shape = tuple(int(d) for d in input_sizes.tolist())
    dims, ss, ds, geometry = _conv_geometry(x_shape, w.shape, strides, padding, explicit_paddings, data_format,
                                            dilations)
    *ks, ci, co = w.shape
    outs = _outs(geometry)
    dy_last = to_channels_last(dy, data_format)
    _check_out_backprop(dy_last, dims, outs, co)
    dx = _onednn.conv_backward_data(w, dy, x_shape, *_onednn_args(geometry, ss, ds, data_format))
    if dx is not None:
        return dx
    dy = dy_last
    compute = _compute_dtype(w.dtype)
    pads = _spatial_pads(geometry)
    dx = xp.zeros(tuple(d + b + a for d, (b, a) in zip(dims, pads)), dtype=compute)
    c = dims[-1]
    if dy.size and c:
        groups = c // ci
        dy = dy.astype(compute, copy=False)
        taps = w.reshape(-1, ci, co).astype(compute, copy=False)
        if groups == 1:  # each tap's [co, ci] contiguous: BLAS runs twice as fast as on a transposed view
            taps = xp.ascontiguousarray(taps.transpose(0, 2, 1))

        def block(rows):  # a block of the batch scatters into its own rows of dx
            dy_flat, target = dy[rows].reshape(-1, co), dx[rows]
            for tap, index in zip(taps, window_slices(ks, ss, ds, outs)):
                if groups == 1:
                    part = dy_flat @ tap
                else:
                    part = xp.einsum("pgo,cgo->pgc", _grouped(dy_flat, groups),
                                     tap.reshape(ci, groups, co // groups))
                target[index] += part.reshape(-1, *outs, c)

        over_batch(dims[0], _parallel_work(xp, dy.size * taps.shape[0] * ci), block)
    crop = tuple(slice(b, b + d) for d, (b, _) in zip(dims, pads))
    return from_channels_last(dx[crop].astype(w.dtype, copy=False), data_format)


def _conv_backprop_filter(x, filter_sizes, dy, strides, padding, data_format, dilations, explicit_paddings=()):
    # One matmul of the forward's im2col matrix with the output gradient: a
    # per-tap loop here would reduce over all pixels once per tap, and is slower.
    xp = array_module(x, dy)
    w_shape = tuple(int(d) for d in filter_sizes.tolist())
    dims, ss, ds, geometry = _conv_geometry(x.shape, w_shape, strides, padding, explicit_paddings, data_format,
                                            dilations)
    *ks, ci, co = w_shape
    outs = _outs(geometry)
    dy_last = to_channels_last(dy, data_format)
    _check_out_backprop(dy_last, dims, outs, co)
    dw = _onednn.conv_backward_filter(x, dy, w_shape, *_onednn_args(geometry, ss, ds, data_format))
    if dw is not None:
        return dw
    x, dy = to_channels_last(x, data_format), dy_last
    compute = _compute_dtype(x.dtype)
    c = dims[-1]
    if dy.size == 0 or c == 0:
        return xp.zeros(w_shape, dtype=x.dtype)
    taps = int(np.prod(ks))
    groups = c // ci
    parts = {}

    def block(rows):  # one block of the batch's share of dw; summed in block order (deterministic)
        col = _im2col(x[rows], ks, ss, ds, geometry).astype(compute, copy=False)
        dy_flat = dy[rows].reshape(-1, co).astype(compute, copy=False)
        if groups == 1:
            parts[rows.start] = col.reshape(-1, taps * c).T @ dy_flat
        else:
            parts[rows.start] = xp.einsum("pkgc,pgo->kcgo", col.reshape(-1, taps, groups, ci),
                                          _grouped(dy_flat, groups))

    over_batch(dims[0], _parallel_work(xp, dy.size * taps * c), block)
    dw = parts[0]
    for start in sorted(parts)[1:]:
        dw += parts[start]
    return dw.reshape(w_shape).astype(x.dtype, copy=False)


def _backprop_input_infer(op):
    sizes, w, dy = op._inputs
    rank = len(op._attrs["strides"])
    return [(w.dtype, shape_from_tensor(sizes).merge_with(TensorShape([None] * rank)))]


def _backprop_filter_infer(op):
    x, sizes, dy = op._inputs
    rank = len(op._attrs["strides"])
    return [(x.dtype, shape_from_tensor(sizes).merge_with(TensorShape([None] * rank)))]


for _input_op, _filter_op in (_BACKPROP_TYPES["Conv2D"], _BACKPROP_TYPES["Conv3D"]):
    register(_input_op, infer=_backprop_input_infer, kernel=_conv_backprop_input)
    register(_filter_op, infer=_backprop_filter_infer, kernel=_conv_backprop_filter)


# -- DepthwiseConv2dNative: a grouped convolution, one group per input channel ------------------------
#
# A depthwise filter ``[kh, kw, C, M]`` read as ``[kh, kw, 1, C * M]`` is a grouped filter with ``C``
# groups whose output channel ``c * M + m`` is TF's depthwise output channel: the Conv2D kernels serve.


def _depthwise_infer(op):
    x, w = op._inputs
    a = op._attrs
    fmt = a["data_format"]
    n, h, wd, c = _to_nhwc(with_rank(x.shape, 4).as_list(), fmt)
    kh, kw, ci, m = with_rank(w.shape, 4).as_list()
    if c is not None and ci is not None and c != ci:
        raise ValueError(f"Dimensions must be equal, but are {c} and {ci} for '{op.name}' (op: "
                         f"'DepthwiseConv2dNative') with input shapes: {x.shape}, {w.shape}.")
    c = c if c is not None else ci
    _, sh, sw, _ = _to_nhwc(a["strides"], fmt)
    _, dh, dw, _ = _to_nhwc(a["dilations"], fmt)
    pads = _to_nhwc(_pairs(a.get("explicit_paddings", ())), fmt)
    ho = window_geometry(h, kh, sh, dh, a["padding"], pads[1])[0] if kh is not None else None
    wo = window_geometry(wd, kw, sw, dw, a["padding"], pads[2])[0] if kw is not None else None
    co = c * m if c is not None and m is not None else None
    return [(x.dtype, TensorShape(_from_nhwc([n, ho, wo, co], fmt)))]


def _as_grouped(w_shape) -> tuple:
    kh, kw, c, m = w_shape
    return kh, kw, 1, c * m


def _check_depthwise(x_shape, w_shape, data_format):
    c = _to_nhwc(x_shape, data_format)[-1]
    if c != w_shape[2]:
        raise errors.InvalidArgumentError(
            None, None, f"input and filter must have the same depth: {c} vs {w_shape[2]}")


def _depthwise(x, w, strides, padding, data_format, dilations, explicit_paddings=()):
    _check_depthwise(x.shape, w.shape, data_format)
    return _conv(x, w.reshape(_as_grouped(w.shape)), strides, padding, data_format, dilations, explicit_paddings)


def _depthwise_backprop_input(input_sizes, w, dy, strides, padding, data_format, dilations, explicit_paddings=()):
    _check_depthwise(tuple(input_sizes.tolist()), w.shape, data_format)
    return _conv_backprop_input(input_sizes, w.reshape(_as_grouped(w.shape)), dy, strides, padding, data_format,
                                dilations, explicit_paddings)


def _depthwise_backprop_filter(x, filter_sizes, dy, strides, padding, data_format, dilations, explicit_paddings=()):
    w_shape = tuple(int(d) for d in filter_sizes.tolist())
    _check_depthwise(x.shape, w_shape, data_format)
    dw = _conv_backprop_filter(x, np.array(_as_grouped(w_shape)), dy, strides, padding, data_format, dilations,
                               explicit_paddings)
    return dw.reshape(w_shape)


register("DepthwiseConv2dNative", infer=_depthwise_infer, kernel=_depthwise)
register("DepthwiseConv2dNativeBackpropInput", infer=_backprop_input_infer, kernel=_depthwise_backprop_input)
register("DepthwiseConv2dNativeBackpropFilter", infer=_backprop_filter_infer, kernel=_depthwise_backprop_filter)
gradient("DepthwiseConv2dNative")(_conv_grad)


@gradient("DepthwiseConv2dNativeBackpropInput")
@gradient("Conv3DBackpropInputV2")
@gradient("Conv2DBackpropInput")
def _conv_backprop_input_grad(op, grad):
    _, w, dy = op.inputs
    attrs = _conv_attrs(op)
    forward = _FORWARD_OF[op.type]
    return [None, _backprop_filter(forward, grad, array_ops.shape(w), dy, attrs), _forward(forward, grad, w, attrs)]


@gradient("DepthwiseConv2dNativeBackpropFilter")
@gradient("Conv3DBackpropFilterV2")
@gradient("Conv2DBackpropFilter")
def _conv_backprop_filter_grad(op, grad):
    x, _, dy = op.inputs
    attrs = _conv_attrs(op)
    forward = _FORWARD_OF[op.type]
    return [_backprop_input(forward, array_ops.shape(x), grad, dy, attrs), None, _forward(forward, x, grad, attrs)]


@tf_export("nn.conv2d")
def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=(1, 1, 1, 1), name=None, filters=None) -> Tensor:
    """2-D convolution of ``[batch, height, width, channels]`` input with a
    ``[height, width, in, out]`` filter (grouped when ``in`` divides the input depth).

    >>> import dflow as tf
    >>> x = tf.placeholder(tf.float32, [None, 5, 5, 2])
    >>> tf.nn.conv2d(x, tf.placeholder(tf.float32, [3, 3, 2, 4]), [1, 2, 2, 1], "SAME").shape.as_list()
    [None, 3, 3, 4]
    """
    if filter is not None and filters is not None:
        raise ValueError("Cannot specify both 'filters' and 'filter'")
    filter = filters if filter is None else filter  # noqa: A001 - TF1 argument name
    if filter is None:
        raise ValueError("conv2d needs a filter")
    if padding is None:
        raise ValueError("conv2d needs padding: 'SAME', 'VALID' or explicit [[before, after]] * 4")
    data_format = _check_data_format(data_format)
    channel_index = 1 if data_format == "NCHW" else 3
    strides = get_sequence(strides, 2, channel_index, "strides")
    dilations = get_sequence(dilations, 2, channel_index, "dilations")
    padding, explicit = convert_padding(padding, data_format)
    with name_scope(name, "Conv2D", [input, filter]) as scope:
        x = as_tensor(input, "input", _CONV_TYPES)
        w = convert_to_tensor(filter, dtype=x.dtype, name="filter")
        attrs = {"strides": tuple(strides), "padding": padding, "explicit_paddings": explicit,
                 "data_format": data_format, "dilations": tuple(dilations)}
        return apply_op("Conv2D", [x, w], attrs, name=scope).outputs[0]


# -- Conv: TF's generic N-D convolution (extra batch dimensions, CHANNELS_FIRST/LAST, groups) ---------


def _generic_format(spatial: int, data_format: str) -> str:
    last, first = DATA_FORMATS[spatial]
    return first if data_format == "CHANNELS_FIRST" else last


def _generic_conv_infer(op):
    x, w = op._inputs
    a = op._attrs
    spatial = len(a["strides"]) - 2
    if x.shape.ndims is None or w.shape.ndims is None:
        return [(x.dtype, TensorShape(None))]
    batch = x.shape.as_list()[:a["batch_dims"]]
    rest = x.shape.as_list()[a["batch_dims"]:]
    fmt = _generic_format(spatial, a["data_format"])
    dims = _to_nhwc([None] + rest, fmt)
    *ks, ci, co = w.shape.as_list()
    ss, ds = _to_nhwc(a["strides"], fmt), _to_nhwc(a["dilations"], fmt)
    pads = _to_nhwc(_pairs(a["explicit_paddings"], spatial + 2), fmt)
    out = [None] + [window_geometry(dims[i], k, ss[i], ds[i], a["padding"], pads[i])[0]
                    if k is not None and dims[i] is not None else None for i, k in enumerate(ks, start=1)] + [co]
    return [(x.dtype, TensorShape(batch + _from_nhwc(out, fmt)[1:]))]


def _generic_conv(input, filter, strides, padding, explicit_paddings, data_format, dilations, batch_dims,  # noqa: A002
                  groups, T=None):  # noqa: N803 - TF's attr name
    spatial = len(strides) - 2
    fmt = _generic_format(spatial, data_format)
    batch = input.shape[:batch_dims]
    x = input.reshape((int(np.prod(batch)),) + input.shape[batch_dims:])
    out = _conv(x, filter, strides, padding, fmt, dilations, explicit_paddings)
    return out.reshape(batch + out.shape[1:])


register("Conv", infer=_generic_conv_infer, kernel=_generic_conv)


@gradient("Conv")
def _generic_conv_grad(op, grad):
    """TF has none; dflow's is Conv2D's (Conv3D's) backprops over the batch dimensions flattened."""
    x, w = op.inputs
    a = op._attrs
    spatial = len(a["strides"]) - 2
    forward = "Conv2D" if spatial == 2 else "Conv3D"
    attrs = {"strides": a["strides"], "padding": a["padding"], "explicit_paddings": a["explicit_paddings"],
             "data_format": _generic_format(spatial, a["data_format"]), "dilations": a["dilations"]}
    batch = a["batch_dims"]
    x_shape, g_shape = array_ops.shape(x), array_ops.shape(grad)
    flat = array_ops.concat([[-1], x_shape[batch:]], 0)
    x2 = array_ops.reshape(x, flat)
    g2 = array_ops.reshape(grad, array_ops.concat([[-1], g_shape[batch:]], 0))
    dx = _backprop_input(forward, array_ops.shape(x2), w, g2, attrs)
    return [array_ops.reshape(dx, x_shape), _backprop_filter(forward, x2, array_ops.shape(w), g2, attrs)]


def _conv_attr_error(attr: str, value, allowed: str) -> ValueError:
    return ValueError(f"Attr '{attr}' of 'Conv' Op passed string '{value}' not in: {allowed}.")


@tf_export("conv")
def conv(input, filter, strides, padding, explicit_paddings=(), data_format="CHANNELS_LAST",  # noqa: A002
         dilations=(), batch_dims=1, groups=1, name=None):
    """Computes a N-D convolution given (N+1+batch_dims)-D ``input`` and (N+2)-D ``filter`` tensors.

    TF's generic ``Conv`` op: ``batch_dims`` leading dimensions are all batch, ``data_format``
    is ``"CHANNELS_LAST"`` or ``"CHANNELS_FIRST"``, ``strides`` (and ``dilations``, default
    ones) have N + 2 entries. dflow also runs ``groups > 1`` and channels-first inputs, which
    TF's CPU kernel refuses at run time, and gives the op a gradient, which TF's lacks.

    >>> import dflow as tf
    >>> tf.conv(tf.zeros([2, 5, 5, 4]), tf.zeros([3, 3, 2, 6]), [1, 1, 1, 1], "SAME", groups=2).shape.as_list()
    [2, 5, 5, 6]
    """
    if data_format not in ("CHANNELS_FIRST", "CHANNELS_LAST"):
        raise _conv_attr_error("data_format", data_format, '"CHANNELS_FIRST", "CHANNELS_LAST"')
    if padding not in ("SAME", "VALID", "EXPLICIT"):
        raise _conv_attr_error("padding", padding, '"SAME", "VALID", "EXPLICIT"')
    with name_scope(name, "Conv", [input, filter]) as scope:
        x = as_tensor(input, "input", _CONV_TYPES)
        w = convert_to_tensor(filter, dtype=x.dtype, name="filter")
        strides, dilations = [int(s) for s in strides], [int(d) for d in dilations]
        explicit = tuple(int(p) for p in explicit_paddings)

        def invalid(message):
            shapes = ", ".join("[" + ",".join("?" if d is None else str(d) for d in t.shape.as_list()) + "]"
                               for t in (x, w))
            return ValueError(f"{message} for '{scope.rstrip('/')}' (op: 'Conv') with input shapes: {shapes}.")

        if x.shape.ndims is not None:
            rank = x.shape.ndims - batch_dims + 1
            if rank not in (4, 5):
                raise invalid(f"Input tensor must be rank 4 or 5, excluding extra batch dimensions, but got: {rank}")
            if w.shape.ndims is not None and w.shape.ndims != rank:
                raise invalid("Input tensor rank must be the same as filter rank.")
            if len(strides) != rank:
                raise invalid(f"Stride attribute should contain {rank} values, but got: {len(strides)}")
            if dilations and len(dilations) != rank:
                raise invalid(f"Dilation attribute should contain {rank} values, but got: {len(dilations)}")
            if padding == "EXPLICIT" and len(explicit) != 2 * rank:
                raise invalid(f"explicit_paddings attribute should contain {2 * rank} values, but got: "
                              f"{len(explicit)}")
            depth = x.shape.as_list()[batch_dims if data_format == "CHANNELS_FIRST" else -1]
            filter_depth = w.shape.as_list()[-2] if w.shape.ndims is not None else None
            if depth is not None and filter_depth:
                if depth % groups:
                    raise invalid("Number of groups should divide input depth")
                if depth // filter_depth != groups or depth % filter_depth:
                    raise invalid(f"Input depth divided by filter input depth does not match with groups parameter "
                                  f"({groups})")
        attrs = {"strides": tuple(strides), "padding": padding, "explicit_paddings": explicit,
                 "data_format": data_format, "dilations": tuple(dilations) or (1,) * len(strides),
                 "batch_dims": int(batch_dims), "groups": int(groups)}
        return apply_op("Conv", [x, w], attrs, name=scope).outputs[0]
