"""``extract_image_patches`` / ``image.extract_patches`` and ``extract_volume_patches``: each
output position's window of the input, flattened as ``[taps in scan order, channels]`` on the
last axis; the im2col matrix of ``conv_ops``, without the matmul.

Their gradient (TF composes it from a segment sum over index patches) is one op here,
``_ExtractPatchesBackprop``: each tap's gradient added into its strided view of the input, as
``conv_ops``' input backprop adds its per-tap products.
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
from dflow.ops.array import array_ops
from dflow.ops.array.index_args import shape_from_tensor
from dflow.ops.nn._nn_util import REALS, check_dtype, with_rank
from dflow.ops.nn.conv_ops import _check_padding, _im2col, _outs, _spatial_pads, window_geometry, window_slices


def _patch_geometry(shape, ksizes, strides, rates, padding):
    """Per spatial dimension ``(out, pad_before, pad_after)``, and the spatial ksizes/strides/rates."""
    ks, ss, rs = ksizes[1:-1], strides[1:-1], rates[1:-1]
    return [window_geometry(d, k, s, r, padding) for d, k, s, r in zip(shape[1:-1], ks, ss, rs)], ks, ss, rs


def _patches_infer(op):
    x = op._inputs[0]
    a = op._attrs
    rank = len(a["ksizes"])
    dims = with_rank(x.shape, rank).as_list()
    rates = a.get("rates", (1,) * rank)
    outs = [window_geometry(d, k, s, r, a["padding"])[0]
            for d, k, s, r in zip(dims[1:-1], a["ksizes"][1:-1], a["strides"][1:-1], rates[1:-1])]
    taps = int(np.prod(a["ksizes"][1:-1]))
    depth = dims[-1] * taps if dims[-1] is not None else None
    return [(x.dtype, TensorShape([dims[0], *outs, depth]))]


def _extract_patches(x, ksizes, strides, padding, rates=None):
    rates = rates or (1,) * x.ndim
    geometry, ks, ss, rs = _patch_geometry(x.shape, ksizes, strides, rates, padding)
    outs = _outs(geometry)
    if 0 in outs or x.size == 0:
        return array_module(x).zeros((x.shape[0], *outs, int(np.prod(ks)) * x.shape[-1]), dtype=x.dtype)
    col = _im2col(x, ks, ss, rs, geometry)
    return col.reshape(*col.shape[:-2], -1)


def _patches_backprop(input_sizes, grad, ksizes, strides, padding, rates=None):
    xp = array_module(grad)
    shape = tuple(int(d) for d in input_sizes.tolist())
    rates = rates or (1,) * len(shape)
    geometry, ks, ss, rs = _patch_geometry(shape, ksizes, strides, rates, padding)
    pads = _spatial_pads(geometry)
    outs = _outs(geometry)
    dx = xp.zeros(tuple(d + b + a for d, (b, a) in zip(shape, pads)), dtype=grad.dtype)
    g = grad.reshape(shape[0], *outs, -1, shape[-1])
    for tap, index in enumerate(window_slices(ks, ss, rs, outs)):
        dx[index] += g[..., tap, :]
    return dx[tuple(slice(b, b + d) for d, (b, _) in zip(shape, pads))]


register("ExtractImagePatches", infer=_patches_infer, kernel=_extract_patches)
register("ExtractVolumePatches", infer=_patches_infer, kernel=_extract_patches)
register("_ExtractPatchesBackprop", infer=lambda op: [
    (op._inputs[1].dtype, shape_from_tensor(op._inputs[0]).merge_with(TensorShape([None] * len(op._attrs["ksizes"]))))],
    kernel=_patches_backprop)


def _patch_attrs(op) -> dict:
    return {k: op._attrs[k] for k in ("ksizes", "strides", "padding", "rates") if k in op._attrs}


@gradient("ExtractVolumePatches")
@gradient("ExtractImagePatches")
def _extract_patches_grad(op, grad):
    return [apply_op("_ExtractPatchesBackprop", [array_ops.shape(op.inputs[0]), grad], _patch_attrs(op)).outputs[0]]


@gradient("_ExtractPatchesBackprop")
def _patches_backprop_grad(op, grad):
    op_type = "ExtractImagePatches" if "rates" in op._attrs else "ExtractVolumePatches"
    return [None, apply_op(op_type, [grad], _patch_attrs(op)).outputs[0]]


def _four(value, name: str) -> tuple:
    value = tuple(int(v) for v in value)
    if len(value) != 4:
        raise ValueError(f"ExtractImagePatches requires the {name} attribute to contain 4 values, but got: "
                         f"{len(value)}")
    return value


@tf_export("extract_image_patches", "image.extract_image_patches")
def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None, name=None,
                          sizes=None) -> Tensor:
    """``[batch, out_rows, out_cols, ksize_rows * ksize_cols * depth]``: the ``ksizes`` patches of
    ``images`` (taken every ``strides``, their taps ``rates`` apart), each flattened.

    >>> import dflow as tf
    >>> tf.extract_image_patches(tf.zeros([1, 4, 4, 3]), [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1],
    ...                          "VALID").shape.as_list()
    [1, 2, 2, 12]
    """
    if ksizes is not None and sizes is not None:
        raise ValueError("Cannot specify both 'sizes' and 'ksizes'")
    ksizes = sizes if ksizes is None else ksizes
    ks, ss, rs = _four(ksizes, "ksizes"), _four(strides, "stride"), _four(rates, "rates")
    if ks[0] != 1 or ks[3] != 1 or ss[0] != 1 or ss[3] != 1 or rs[0] != 1 or rs[3] != 1:
        raise ValueError("ExtractImagePatches: only ksizes, strides and rates of [1, rows, cols, 1] are supported")
    attrs = {"ksizes": ks, "strides": ss, "rates": rs, "padding": _check_padding(padding, "ExtractImagePatches")}
    with name_scope(name, "ExtractImagePatches", [images]) as scope:
        x = convert_to_tensor(images, name="images")
        check_dtype(x, REALS + (dtypes.complex64, dtypes.complex128, dtypes.bool), "images")
        return apply_op("ExtractImagePatches", [x], attrs, name=scope).outputs[0]


@tf_export("image.extract_patches")
def extract_patches(images, sizes, strides, rates, padding, name=None) -> Tensor:
    """TF2's spelling of ``extract_image_patches``."""
    return extract_image_patches(images, sizes, strides, rates, padding, name=name)


@tf_export("extract_volume_patches")
def extract_volume_patches(input, ksizes, strides, padding, name=None) -> Tensor:  # noqa: A002
    """``[batch, out_planes, out_rows, out_cols, kp * kr * kc * depth]``: the 3-D patches of ``input``."""
    ks, ss = tuple(int(v) for v in ksizes), tuple(int(v) for v in strides)
    if len(ks) != 5 or len(ss) != 5:
        raise ValueError("ExtractVolumePatches requires ksizes and strides of 5 values")
    if ks[0] != 1 or ks[4] != 1 or ss[0] != 1 or ss[4] != 1:
        raise ValueError("ExtractVolumePatches: only ksizes and strides of [1, planes, rows, cols, 1] are supported")
    attrs = {"ksizes": ks, "strides": ss, "padding": _check_padding(padding, "ExtractVolumePatches")}
    with name_scope(name, "ExtractVolumePatches", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        check_dtype(x, REALS, "input")
        return apply_op("ExtractVolumePatches", [x], attrs, name=scope).outputs[0]
