"""``tf.image`` resizing: ``ResizeBilinear``, ``ResizeNearestNeighbor``,
``ResizeBicubic`` and ``ResizeArea`` with TF1's ``align_corners`` and
``half_pixel_centers``, their gradients, ``resize_images`` (``tf.image.resize``
in TF1), ``resize_image_with_pad``, ``crop_and_resize`` and ``extract_glimpse``.

Each kernel follows TF's CPU kernel: the same source coordinates (the legacy
``out * scale`` or the half-pixel ``(out + 0.5) * scale - 0.5``), the same
float32 arithmetic in the same order, and the same bicubic coefficient tables
(Keys' a = -0.5 with half-pixel centres, a = -0.75 without), so the values
are TF's. The kernels index numpy arrays, so they run on the host.
"""

from __future__ import annotations

import math

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument
from dflow.ops.array import shape_ops
from dflow.ops.array.array_ops import stack
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.image.image_ops import (
    as_batch,
    assert_that,
    check_at_least_3d,
    greater_than,
    image_dims,
    larger_of,
    pad_to_bounding_box,
)
from dflow.ops.math import math_ops
from dflow.ops.nn._nn_util import REALS, check_dtype, with_rank
from dflow.ops.random.random_ops import shape_from_tensor

_F32 = np.float32


@tf_export("image.ResizeMethod")
class ResizeMethod:
    """TF1's resize methods (``tf.image.resize_images(..., method=ResizeMethod.AREA)``)."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


# -- coordinates ---------------------------------------------------------------------------


def _scale(in_size: int, out_size: int, align_corners: bool):
    """TF's ``CalculateResizeScale``, in float32."""
    if align_corners and out_size > 1:
        return _F32(in_size - 1) / _F32(out_size - 1)
    return _F32(in_size) / _F32(out_size)


def _source(out_size: int, scale, half_pixel: bool):
    """Source coordinates of the output pixels (TF's HalfPixelScaler / LegacyScaler)."""
    x = np.arange(out_size, dtype=_F32)
    if half_pixel:
        return (x + _F32(0.5)) * scale - _F32(0.5)
    return x * scale


def _check_resize(images, size, op: str):
    if images.ndim != 4:
        raise invalid_argument(f"{op}: input must be 4-dimensional {list(images.shape)}")
    size = np.asarray(size).reshape(-1)
    if size.shape != (2,):
        raise invalid_argument(f"{op}: shape_t must be 1-dimensional with 2 elements {list(size)}")
    out_h, out_w = int(size[0]), int(size[1])
    if out_h <= 0 or out_w <= 0:
        raise invalid_argument(f"{op}: output dimensions must be positive")
    if images.shape[1] <= 0 or images.shape[2] <= 0:
        raise invalid_argument(f"{op}: input image must be of non-zero size")
    return out_h, out_w


def _linear_weights(in_size, out_size, align_corners, half_pixel):
    """Lower and upper source indices and the lerp of each output index (bilinear)."""
    src = _source(out_size, _scale(in_size, out_size, align_corners), half_pixel)
    floor = np.floor(src)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(src).astype(np.int64), in_size - 1)
    return lower, upper, (src - floor).astype(_F32)


# -- bilinear --------------------------------------------------------------------------------


def _resize_bilinear(images, size, align_corners=False, half_pixel_centers=False):
    out_h, out_w = _check_resize(images, size, "ResizeBilinear")
    _, in_h, in_w, _ = images.shape
    y0, y1, ly = _linear_weights(in_h, out_h, align_corners, half_pixel_centers)
    x0, x1, lx = _linear_weights(in_w, out_w, align_corners, half_pixel_centers)
    x = images.astype(_F32, copy=False)
    lx = lx[None, None, :, None]
    top = x[:, y0][:, :, x0] + (x[:, y0][:, :, x1] - x[:, y0][:, :, x0]) * lx
    bottom = x[:, y1][:, :, x0] + (x[:, y1][:, :, x1] - x[:, y1][:, :, x0]) * lx
    return (top + (bottom - top) * ly[None, :, None, None]).astype(_F32, copy=False)


def _resize_bilinear_grad(grads, original_image, align_corners=False, half_pixel_centers=False):
    _, in_h, in_w, _ = original_image.shape
    out_h, out_w = grads.shape[1:3]
    y0, y1, ly = _linear_weights(in_h, out_h, align_corners, half_pixel_centers)
    x0, x1, lx = _linear_weights(in_w, out_w, align_corners, half_pixel_centers)
    g = grads.astype(_F32, copy=False)
    out = np.zeros(original_image.shape, np.float64)
    ly, lx = ly[None, :, None, None], lx[None, None, :, None]
    for ys, wy in ((y0, 1 - ly), (y1, ly)):
        for xs, wx in ((x0, 1 - lx), (x1, lx)):
            part = g * wy * wx
            np.add.at(out, (slice(None), ys[:, None], xs[None, :]), part)
    return out.astype(original_image.dtype)


# -- nearest neighbour -------------------------------------------------------------------------


def _nearest_index(in_size, out_size, align_corners, half_pixel):
    scale = _scale(in_size, out_size, align_corners)
    x = np.arange(out_size, dtype=_F32)
    src = (x + _F32(0.5)) * scale if half_pixel else x * scale  # TF's HalfPixelScalerForNN has no -0.5
    if align_corners:
        idx = np.floor(np.abs(src) + _F32(0.5)) * np.sign(src)  # roundf: half away from zero
    else:
        idx = np.floor(src)
    idx = np.minimum(idx.astype(np.int64), in_size - 1)
    return np.maximum(idx, 0) if half_pixel else idx


def _resize_nearest(images, size, align_corners=False, half_pixel_centers=False):
    out_h, out_w = _check_resize(images, size, "ResizeNearestNeighbor")
    _, in_h, in_w, _ = images.shape
    ys = _nearest_index(in_h, out_h, align_corners, half_pixel_centers)
    xs = _nearest_index(in_w, out_w, align_corners, half_pixel_centers)
    return images[:, ys][:, :, xs]


def _resize_nearest_grad(grads, size, align_corners=False, half_pixel_centers=False):
    in_h, in_w = (int(s) for s in np.asarray(size).reshape(-1))
    out_h, out_w = grads.shape[1:3]
    ys = _nearest_index(in_h, out_h, align_corners, half_pixel_centers)
    xs = _nearest_index(in_w, out_w, align_corners, half_pixel_centers)
    out = np.zeros((grads.shape[0], in_h, in_w, grads.shape[3]), grads.dtype)
    np.add.at(out, (slice(None), ys[:, None], xs[None, :]), grads)
    return out


# -- bicubic ----------------------------------------------------------------------------------

_TABLE_SIZE = 1024


def _coeffs_table(a: float):
    x = (np.arange(_TABLE_SIZE + 1) / _TABLE_SIZE).astype(_F32).astype(np.float64)
    near = (((a + 2) * x - (a + 3)) * x * x + 1).astype(_F32)
    x = (x.astype(_F32) + _F32(1.0)).astype(np.float64)
    far = (((a * x - 5 * a) * x + 8 * a) * x - 4 * a).astype(_F32)
    return near, far


_KEYS_TABLE = _coeffs_table(-0.5)
_LEGACY_TABLE = _coeffs_table(-0.75)


def _cubic_weights(in_size, out_size, align_corners, half_pixel):
    """Four source indices and weights per output index (TF's GetWeightsAndIndices)."""
    src = _source(out_size, _scale(in_size, out_size, align_corners), half_pixel)
    base = np.floor(src).astype(np.int64)
    delta = (src - base).astype(_F32)
    offset = np.rint(delta * _F32(_TABLE_SIZE)).astype(np.int64)  # lrintf rounds half to even
    near, far = _KEYS_TABLE if half_pixel else _LEGACY_TABLE
    weights = np.stack([far[offset], near[offset], near[_TABLE_SIZE - offset], far[_TABLE_SIZE - offset]], 1)
    raw = np.stack([base - 1, base, base + 1, base + 2], 1)
    idx = np.clip(raw, 0, in_size - 1)
    if half_pixel:  # Keys: taps outside the image get no weight; the rest are renormalised
        weights = np.where(idx == raw, weights, _F32(0)).astype(_F32)
        total = weights[:, 0] + weights[:, 1] + weights[:, 2] + weights[:, 3]
        ok = np.abs(total) >= _F32(1000.0) * np.finfo(_F32).tiny
        weights = np.where(ok[:, None], weights * (_F32(1.0) / np.where(ok, total, 1))[:, None], weights)
    return idx, weights.astype(_F32)


def _resize_bicubic(images, size, align_corners=False, half_pixel_centers=False):
    out_h, out_w = _check_resize(images, size, "ResizeBicubic")
    _, in_h, in_w, _ = images.shape
    yi, wy = _cubic_weights(in_h, out_h, align_corners, half_pixel_centers)
    xi, wx = _cubic_weights(in_w, out_w, align_corners, half_pixel_centers)
    x = images.astype(_F32, copy=False)
    wxb = wx[None, None, :, :, None]
    rows = x[:, :, xi]  # [b, in_h, out_w, 4, c]
    cols = rows[:, :, :, 0] * wxb[:, :, :, 0] + rows[:, :, :, 1] * wxb[:, :, :, 1]
    cols = cols + rows[:, :, :, 2] * wxb[:, :, :, 2] + rows[:, :, :, 3] * wxb[:, :, :, 3]
    taps = cols[:, yi]  # [b, out_h, 4, out_w, c]
    wyb = wy[None, :, :, None, None]
    out = taps[:, :, 0] * wyb[:, :, 0] + taps[:, :, 1] * wyb[:, :, 1]
    out = out + taps[:, :, 2] * wyb[:, :, 2] + taps[:, :, 3] * wyb[:, :, 3]
    return out.astype(_F32, copy=False)


def _resize_bicubic_grad(grads, original_image, align_corners=False, half_pixel_centers=False):
    _, in_h, in_w, _ = original_image.shape
    out_h, out_w = grads.shape[1:3]
    yi, wy = _cubic_weights(in_h, out_h, align_corners, half_pixel_centers)
    xi, wx = _cubic_weights(in_w, out_w, align_corners, half_pixel_centers)
    out = np.zeros(original_image.shape, np.float64)
    g = grads.astype(np.float64)
    for i in range(4):
        for j in range(4):
            part = g * wy[None, :, i, None, None] * wx[None, None, :, j, None]
            np.add.at(out, (slice(None), yi[:, i][:, None], xi[:, j][None, :]), part)
    return out.astype(original_image.dtype)


# -- area ------------------------------------------------------------------------------------------


def _area_weights(in_size, out_size, scale):
    """``[out_size, in_size]``: how much of each source index each output index covers (TF's ResizeArea)."""
    weights = np.zeros((out_size, in_size), _F32)
    for o in range(out_size):
        lo, hi = _F32(o) * scale, _F32(o + 1) * scale
        for i in range(int(math.floor(lo)), int(math.ceil(hi))):
            if i < lo:
                cover = scale if i + 1 > hi else _F32(i + 1) - lo
            else:
                cover = hi - _F32(i) if i + 1 > hi else _F32(1.0)
            weights[o, min(i, in_size - 1)] += cover
    return weights


def _resize_area(images, size, align_corners=False):
    out_h, out_w = _check_resize(images, size, "ResizeArea")
    _, in_h, in_w, _ = images.shape
    sy, sx = _scale(in_h, out_h, align_corners), _scale(in_w, out_w, align_corners)
    inv = _F32(1.0 / (float(sy) * float(sx)))
    x = images.astype(_F32, copy=False)
    # TF sums each source row across x first, then the rows weighted by their coverage
    rows = np.matmul(_area_weights(in_w, out_w, sx), x)  # [b, h, out_w, c]
    out = np.matmul(_area_weights(in_h, out_h, sy), rows.reshape(rows.shape[0], in_h, -1))
    return (out.reshape(rows.shape[0], out_h, out_w, -1) * inv).astype(_F32)


def _resize_infer(out_dtype):
    def infer(op):
        images, size = op._inputs[:2]
        shape = with_rank(images.shape, 4)
        with_rank(size.shape, 1)
        if size.shape.as_list()[0] not in (None, 2):
            raise ValueError(f"Dimension must be 2 but is {size.shape.as_list()[0]}")
        hw = shape_from_tensor(size)
        if hw.ndims != 2:
            hw = TensorShape([None, None])
        dims = shape.as_list()
        return [(out_dtype or images.dtype, TensorShape([dims[0], *hw.as_list(), dims[3]]))]

    return infer


def _grad_infer(op):
    grads, original = op._inputs
    return [(original.dtype, original.shape)]


def _nn_grad_infer(op):
    grads, size = op._inputs
    hw = shape_from_tensor(size)
    dims = grads.shape.as_list() if grads.shape.ndims is not None else [None] * 4
    return [(grads.dtype, TensorShape([dims[0], *(hw.as_list() if hw.ndims == 2 else [None, None]), dims[3]]))]


register("ResizeBilinear", infer=_resize_infer(dtypes.float32), kernel=_resize_bilinear, gpu=False)
register("ResizeNearestNeighbor", infer=_resize_infer(None), kernel=_resize_nearest, gpu=False)
register("ResizeBicubic", infer=_resize_infer(dtypes.float32), kernel=_resize_bicubic, gpu=False)
register("ResizeArea", infer=_resize_infer(dtypes.float32), kernel=_resize_area, gpu=False)
register("ResizeBilinearGrad", infer=_grad_infer, kernel=_resize_bilinear_grad, gpu=False)
register("ResizeBicubicGrad", infer=_grad_infer, kernel=_resize_bicubic_grad, gpu=False)
register("ResizeNearestNeighborGrad", infer=_nn_grad_infer, kernel=_resize_nearest_grad, gpu=False)
for _t in ("ResizeBilinearGrad", "ResizeBicubicGrad", "ResizeNearestNeighborGrad"):
    not_differentiable(_t)
# ResizeArea has no gradient rule, as in TF: tf.gradients through it raises LookupError.

_FLOAT_IMAGES = (dtypes.float16, dtypes.float32, dtypes.float64)


def _resize_grad_with_original(grad_op: str):
    def grad_fn(op, grad):
        if op.inputs[0].dtype not in _FLOAT_IMAGES:
            return [None, None]
        return [apply_op(grad_op, [grad, op.inputs[0]], dict(op._attrs)).outputs[0], None]

    return grad_fn


gradient("ResizeBilinear")(_resize_grad_with_original("ResizeBilinearGrad"))
gradient("ResizeBicubic")(_resize_grad_with_original("ResizeBicubicGrad"))


@gradient("ResizeNearestNeighbor")
def _resize_nearest_grad_rule(op, grad):
    image = op.inputs[0]
    if image.shape[1:3].is_fully_defined():
        size = convert_to_tensor(image.shape[1:3].as_list(), dtype=dtypes.int32)
    else:
        size = shape_ops.shape(image)[1:3]
    return [apply_op("ResizeNearestNeighborGrad", [grad, size], dict(op._attrs)).outputs[0], None]


def _raw_resize(op_type: str, images, size, name, **attrs):
    images = convert_to_tensor(images, name="images")
    check_dtype(images, REALS, "images")
    size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
    return apply_op(op_type, [images, size], attrs, name=name or op_type).outputs[0]


@tf_export("image.resize_bilinear")
def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Bilinear resize of a ``[batch, h, w, c]`` batch to ``size``; float32 out."""
    return _raw_resize("ResizeBilinear", images, size, name, align_corners=bool(align_corners),
                       half_pixel_centers=bool(half_pixel_centers))


@tf_export("image.resize_nearest_neighbor")
def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Nearest-neighbour resize; keeps the dtype."""
    return _raw_resize("ResizeNearestNeighbor", images, size, name, align_corners=bool(align_corners),
                       half_pixel_centers=bool(half_pixel_centers))


@tf_export("image.resize_bicubic")
def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Bicubic resize (Keys' kernel with half-pixel centres, a = -0.75 without); float32 out."""
    return _raw_resize("ResizeBicubic", images, size, name, align_corners=bool(align_corners),
                       half_pixel_centers=bool(half_pixel_centers))


@tf_export("image.resize_area")
def resize_area(images, size, align_corners=False, name=None):
    """Area-averaging resize; float32 out, with no gradient (as in TF)."""
    return _raw_resize("ResizeArea", images, size, name, align_corners=bool(align_corners))


_METHODS = {ResizeMethod.BILINEAR: "ResizeBilinear", "bilinear": "ResizeBilinear",
            ResizeMethod.NEAREST_NEIGHBOR: "ResizeNearestNeighbor", "nearest": "ResizeNearestNeighbor",
            ResizeMethod.BICUBIC: "ResizeBicubic", "bicubic": "ResizeBicubic",
            ResizeMethod.AREA: "ResizeArea", "area": "ResizeArea"}


@tf_export("image.resize_images", "image.resize")
def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False, preserve_aspect_ratio=False,
                  name=None):
    """TF1's ``tf.image.resize``: resizes an image or a batch to ``size = [height, width]``.

    >>> import dflow as tf
    >>> tf.image.resize_images(tf.zeros([4, 6, 3]), [2, 3]).shape
    TensorShape([2, 3, 3])
    """
    op_type = _METHODS.get(method)
    if op_type is None:
        raise ValueError(f"Resize method is not implemented: {method}")
    with name_scope(name, "resize", [images, size]):
        images = convert_to_tensor(images, name="images")
        if images.shape.ndims is None:
            raise ValueError("'images' contains no shape.")
        images, is_batch = as_batch(images)
        _, height, width, _ = images.shape.as_list()
        try:
            size = convert_to_tensor(size, dtypes.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
        if not size.shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        if preserve_aspect_ratio:
            _, cur_h, cur_w, _ = image_dims(images, 4)
            f = lambda v: math_ops.cast(v, dtypes.float32)  # noqa: E731
            factor = math_ops.minimum(f(size[0]) / f(cur_h), f(size[1]) / f(cur_w))
            new_h = math_ops.cast(math_ops.round(factor * f(cur_h)), dtypes.int32)
            new_w = math_ops.cast(math_ops.round(factor * f(cur_w)), dtypes.int32)
            size = stack([new_h, new_w], name="size")
        static = shape_from_tensor(size)
        new_h, new_w = static.as_list() if static.ndims == 2 else (None, None)
        if None not in (new_h, new_w, height, width) and (height, width) == (new_h, new_w):
            return images if is_batch else shape_ops.squeeze(images, axis=[0])
        attrs = {"align_corners": bool(align_corners)}
        if op_type != "ResizeArea":
            attrs["half_pixel_centers"] = False
        out = apply_op(op_type, [images, size], attrs).outputs[0]
        out.set_shape([None, new_h, new_w, None])
        return out if is_batch else shape_ops.squeeze(out, axis=[0])


@tf_export("image.resize_image_with_pad")
def resize_image_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR, align_corners=False):
    """Resizes keeping the aspect ratio, then zero-pads to ``target_height`` x ``target_width``."""
    with name_scope(None, "resize_image_with_pad", [image]):
        image, is_batch = as_batch(convert_to_tensor(image, name="image"))
        if image.shape[1:].is_fully_defined():
            check_at_least_3d(image)
        checks = assert_that(greater_than(target_width, 0), "target_width must be > 0.")
        checks += assert_that(greater_than(target_height, 0), "target_height must be > 0.")
        if checks:
            image = control_flow_ops.with_dependencies(checks, image)
        _, height, width, _ = image_dims(image, 4)
        f = lambda v: math_ops.cast(v, dtypes.float32)  # noqa: E731
        f_h, f_w, f_th, f_tw = f(height), f(width), f(target_height), f(target_width)
        ratio = math_ops.maximum(f_w / f_tw, f_h / f_th)
        resized_h_f, resized_w_f = f_h / ratio, f_w / ratio
        resized_h = math_ops.cast(math_ops.floor(resized_h_f), dtypes.int32)
        resized_w = math_ops.cast(math_ops.floor(resized_w_f), dtypes.int32)
        p_h = larger_of(0, math_ops.cast(math_ops.floor((f_th - resized_h_f) / 2), dtypes.int32))
        p_w = larger_of(0, math_ops.cast(math_ops.floor((f_tw - resized_w_f) / 2), dtypes.int32))
        resized = resize_images(image, stack([resized_h, resized_w]), method, align_corners=align_corners)
        padded = pad_to_bounding_box(resized, p_h, p_w, target_height, target_width)
        return padded if is_batch else shape_ops.squeeze(padded, axis=[0])
