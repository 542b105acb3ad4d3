"""``tf.image`` colour: HSV/YIQ/YUV/grayscale conversions and the brightness,
contrast, gamma, hue and saturation adjustments, with their random variants.

TF1 computes ``AdjustContrastv2``, ``AdjustHue``, ``AdjustSaturation``,
``RGBToHSV`` and ``HSVToRGB`` in dedicated kernels; the numpy kernels below
follow TF's CPU kernels step for step, in float32, so values agree to the last
bit or nearly (on the host: they are numpy kernels). As in TF, only ``RGBToHSV`` has a gradient among them (TF's
formula, ported), ``HSVToRGB`` is not differentiable, and the three adjust
kernels have no gradient. Brightness, gamma and the YIQ/YUV/grayscale
conversions are math ops, differentiable through them.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.ops._common import invalid_argument
from dflow.ops.array import shape_ops, tiling_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.image.image_ops import assert_that, convert_image_dtype
from dflow.ops.linalg import einsum_ops
from dflow.ops.math import math_ops
from dflow.ops.random import random_ops

_HALF_OR_FLOAT = (dtypes.float16, dtypes.float32)


def _to_float(image):
    """The image as float16/float32 (other dtypes are converted with rescaling)."""
    return image if image.dtype in _HALF_OR_FLOAT else convert_image_dtype(image, dtypes.float32)


def _check_rgb(x, op: str, rank: int = 1):
    if x.ndim < rank or x.shape[-1] != 3:
        raise invalid_argument(f"{op}: input must have 3 channels in its last dimension but got shape {x.shape}")


def _image_infer(min_rank: int, op_name: str):
    def infer(op):
        x = op._inputs[0]
        if x.shape.ndims is not None and x.shape.ndims < min_rank:
            raise ValueError(f"Shape must be at least rank {min_rank} but is rank {x.shape.ndims}")
        if x.shape.ndims is not None and x.shape.as_list()[-1] not in (None, 3):
            raise ValueError(f"Dimension must be 3 but is {x.shape.as_list()[-1]}")
        return [(x.dtype, x.shape)]

    return infer


# -- HSV ---------------------------------------------------------------------------------


def _rgb_to_hsv(rgb):
    _check_rgb(rgb, "RGBToHSV")
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = np.maximum(np.maximum(r, g), b)
    rng = v - np.minimum(np.minimum(r, g), b)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, 0)
        norm = (1 / rng) * (rgb.dtype.type(1) / 6)
        h = np.where(r == v, norm * (g - b), np.where(g == v, norm * (b - r) + rgb.dtype.type(2) / 6,
                                                      norm * (r - g) + rgb.dtype.type(4) / 6))
    h = np.where(rng > 0, h, 0)
    h = np.where(h < 0, h + 1, h)
    return np.stack([h, s, v], -1).astype(rgb.dtype, copy=False)


def _hsv_to_rgb(hsv):
    _check_rgb(hsv, "HSVToRGB")
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    dh = h * 6
    dr = np.clip(np.abs(dh - 3) - 1, 0, 1)
    dg = np.clip(-np.abs(dh - 2) + 2, 0, 1)
    db = np.clip(-np.abs(dh - 4) + 2, 0, 1)
    one_s = -s + 1
    return np.stack([(one_s + s * dr) * v, (one_s + s * dg) * v, (one_s + s * db) * v], -1).astype(hsv.dtype,
                                                                                                  copy=False)


register("RGBToHSV", infer=_image_infer(1, "RGBToHSV"), kernel=_rgb_to_hsv, gpu=False)
register("HSVToRGB", infer=_image_infer(1, "HSVToRGB"), kernel=_hsv_to_rgb, gpu=False)
not_differentiable("HSVToRGB")


def _recip(x):
    """TF's ``div_no_nan(1, x)``."""
    with np.errstate(divide="ignore"):
        return np.where(x == 0, 0, 1 / np.where(x == 0, 1, x))


def _rgb_to_hsv_grad_kernel(rgb, hsv, grad):
    """TF's ``_RGBToHSVGrad`` (image_grad.py), term for term."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    s, v = hsv[..., 1], hsv[..., 2]
    f = rgb.dtype.type
    rb = ((r >= b) & (r >= g)).astype(f)
    gb = ((g > r) & (g >= b)).astype(f)
    bb = ((b > r) & (b > g)).astype(f)
    rs = ((r < b) & (r < g)).astype(f)
    gs = ((g <= r) & (g < b)).astype(f)
    bs = ((b <= r) & (b <= g)).astype(f)
    pos = lambda x: (x > 0).astype(f)  # noqa: E731
    ds_dr = pos(r) * (rb * (gs * g + bs * b) * _recip(r * r) + rs * -1 * _recip(gb * g + bb * b))
    ds_dg = pos(g) * (gb * (rs * r + bs * b) * _recip(g * g) + gs * -1 * _recip(rb * r + bb * b))
    ds_db = pos(b) * (bb * (gs * g + rs * r) * _recip(b * b) + bs * -1 * _recip(gb * g + rb * r))
    sv = _recip(s * s) * _recip(v * v)
    dh_dr = 60 * (pos(r) * rb * -1 * (g - b) * sv + pos(g) * gb * rs * (b - g) * _recip((r - g) ** 2)
                  + pos(g) * gb * bs * -1 * _recip(g - b) + pos(b) * bb * rs * (b - g) * _recip((b - r) ** 2)
                  + pos(b) * bb * gs * _recip(b - g)) / 360
    dh_dg = 60 * (pos(g) * gb * -1 * (b - r) * sv + pos(r) * rb * gs * (r - b) * _recip((r - g) ** 2)
                  + pos(r) * rb * bs * _recip(r - b) + pos(b) * bb * gs * (r - b) * _recip((b - g) ** 2)
                  + pos(b) * bb * rs * -1 * _recip(b - r)) / 360
    dh_db = 60 * (pos(b) * bb * -1 * (r - g) * sv + pos(r) * rb * bs * (g - r) * _recip((r - b) ** 2)
                  + pos(r) * rb * gs * -1 * _recip(r - g) + pos(g) * gb * bs * (g - r) * _recip((g - b) ** 2)
                  + pos(g) * gb * rs * _recip(g - r)) / 360
    dh, ds, dv = grad[..., 0], grad[..., 1], grad[..., 2]
    out = np.stack([dv * rb + ds * ds_dr + dh * dh_dr, dv * gb + ds * ds_dg + dh * dh_dg,
                    dv * bb + ds * ds_db + dh * dh_db], -1)
    return out.astype(rgb.dtype, copy=False)


register("_RGBToHSVGrad", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)],
         kernel=_rgb_to_hsv_grad_kernel, gpu=False)
not_differentiable("_RGBToHSVGrad")


@gradient("RGBToHSV")
def _rgb_to_hsv_grad(op, grad):
    return [apply_op("_RGBToHSVGrad", [op.inputs[0], op.outputs[0], grad]).outputs[0]]


def _float_image(images, name: str):
    images = convert_to_tensor(images, name="images")
    if images.dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
        raise TypeError(f"Value passed to parameter 'images' has DataType {images.dtype.name} not in list of "
                        f"allowed values: half, bfloat16, float32, float64 (in {name})")
    return images


@tf_export("image.rgb_to_hsv")
def rgb_to_hsv(images, name=None):
    """RGB in [0, 1] to HSV in [0, 1] (hue as a fraction of a turn)."""
    images = _float_image(images, "RGBToHSV")
    return apply_op("RGBToHSV", [images], name=name or "RGBToHSV").outputs[0]


@tf_export("image.hsv_to_rgb")
def hsv_to_rgb(images, name=None):
    """HSV in [0, 1] to RGB in [0, 1]."""
    images = _float_image(images, "HSVToRGB")
    return apply_op("HSVToRGB", [images], name=name or "HSVToRGB").outputs[0]


# -- linear colour spaces ------------------------------------------------------------------

_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _linear(images, matrix):
    images = convert_to_tensor(images, name="images")
    kernel = convert_to_tensor(matrix, dtype=images.dtype, name="kernel")
    ndims = images.shape.ndims
    return einsum_ops.tensordot(images, kernel, axes=[[ndims - 1], [0]])


@tf_export("image.rgb_to_yiq")
def rgb_to_yiq(images):
    """RGB to YIQ (NTSC) by a 3x3 matrix on the last axis."""
    return _linear(images, _RGB_TO_YIQ)


@tf_export("image.yiq_to_rgb")
def yiq_to_rgb(images):
    """YIQ to RGB, the inverse of ``rgb_to_yiq``."""
    return _linear(images, _YIQ_TO_RGB)


@tf_export("image.rgb_to_yuv")
def rgb_to_yuv(images):
    """RGB to YUV by a 3x3 matrix on the last axis."""
    return _linear(images, _RGB_TO_YUV)


@tf_export("image.yuv_to_rgb")
def yuv_to_rgb(images):
    """YUV to RGB, the inverse of ``rgb_to_yuv``."""
    return _linear(images, _YUV_TO_RGB)


@tf_export("image.rgb_to_grayscale")
def rgb_to_grayscale(images, name=None):
    """Luma ``0.2989 R + 0.5870 G + 0.1140 B``, keeping a last axis of size 1 and the dtype."""
    with name_scope(name, "rgb_to_grayscale", [images]) as name:
        images = convert_to_tensor(images, name="images")
        orig_dtype = images.dtype
        flt = convert_image_dtype(images, dtypes.float32)
        gray = einsum_ops.tensordot(flt, [0.2989, 0.5870, 0.1140], [-1, -1])
        gray = shape_ops.expand_dims(gray, -1)
        return convert_image_dtype(gray, orig_dtype, name=name)


@tf_export("image.grayscale_to_rgb")
def grayscale_to_rgb(images, name=None):
    """Repeats a last axis of size 1 three times."""
    with name_scope(name, "grayscale_to_rgb", [images]) as name:
        images = convert_to_tensor(images, name="images")
        shape = images.shape
        if shape.ndims is not None:
            if shape.ndims < 2:
                raise ValueError(f"A grayscale image (shape {shape}) must be at least two-dimensional.")
            if shape.as_list()[-1] not in (None, 1):
                raise ValueError("Last dimension of a grayscale image should be size 1.")
        ndims = shape.ndims
        if ndims is None:
            raise ValueError("grayscale_to_rgb: dflow needs the image's rank")
        rgb = tiling_ops.tile(images, [1] * (ndims - 1) + [3], name=name)
        rgb.set_shape(shape[:-1].concatenate([3]))
        return rgb


# -- adjustments ---------------------------------------------------------------------------


@tf_export("image.adjust_brightness")
def adjust_brightness(image, delta):
    """Adds ``delta`` in the float domain, then converts back with saturation."""
    with name_scope(None, "adjust_brightness", [image, delta]) as name:
        image = convert_to_tensor(image, name="image")
        orig_dtype = image.dtype
        flt = _to_float(image)
        adjusted = math_ops.add(flt, math_ops.cast(delta, flt.dtype), name=name)
        return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def _adjust_contrast_kernel(images, contrast_factor):
    if images.ndim < 3:
        raise invalid_argument(f"input must be at least 3-D, got shape {images.shape}")
    if np.ndim(contrast_factor) != 0:
        raise invalid_argument(f"contrast_factor must be scalar: {np.shape(contrast_factor)}")
    x = images.astype(np.float32)
    mean = x.mean(axis=(-3, -2), keepdims=True, dtype=np.float32)
    return ((x - mean) * np.float32(contrast_factor) + mean).astype(images.dtype)


def _adjust_contrast_infer(op):
    x = op._inputs[0]
    if x.shape.ndims is not None and x.shape.ndims < 3:
        raise ValueError(f"Shape must be at least rank 3 but is rank {x.shape.ndims}")
    return [(x.dtype, x.shape)]


register("AdjustContrastv2", infer=_adjust_contrast_infer, kernel=_adjust_contrast_kernel, gpu=False)


@tf_export("image.adjust_contrast")
def adjust_contrast(images, contrast_factor):
    """``(x - mean) * contrast_factor + mean``, the mean taken per image and channel."""
    with name_scope(None, "adjust_contrast", [images, contrast_factor]) as name:
        images = convert_to_tensor(images, name="images")
        orig_dtype = images.dtype
        flt = _to_float(images)
        factor = convert_to_tensor(contrast_factor, dtype=dtypes.float32, name="contrast_factor")
        adjusted = apply_op("AdjustContrastv2", [flt, factor], name=name).outputs[0]
        return convert_image_dtype(adjusted, orig_dtype, saturate=True)


@tf_export("image.adjust_gamma")
def adjust_gamma(image, gamma=1, gain=1):
    """``gain * image ** gamma`` in the float domain (gamma must be >= 0)."""
    with name_scope(None, "adjust_gamma", [image, gamma, gain]):
        image = convert_to_tensor(image, name="image")
        orig_dtype = image.dtype
        flt = _to_float(image)
        checks = assert_that(math_ops.greater_equal(gamma, 0) if hasattr(gamma, "dtype") else gamma >= 0,
                             "Gamma should be a non-negative real number.")
        if checks:
            gamma = control_flow_ops.with_dependencies(checks, gamma)
        adjusted = gain * flt ** gamma
        return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def _wrap(x, period, below, above):
    """TF's ``while (below) x += period; while (above) x -= period``, element-wise in float32."""
    x = x.astype(np.float32)
    while below(x).any():
        x = np.where(below(x), x + period, x)
    while above(x).any():
        x = np.where(above(x), x - period, x)
    return x


def _hv_range(r, g, b):
    """TF's ``rgb_to_hv_range``: hue in [0, 6) and the min/max channel."""
    lt = r < g
    c1 = lt & (b < r)
    c3 = lt & ~c1 & (b > g)
    c2 = lt & ~c1 & ~c3
    c0 = ~lt & (b < g)
    c4 = ~lt & ~c0 & (b > r)
    v_max = np.select([c1 | c2, c3 | c4], [g, b], r)
    v_min = np.select([c1 | c0, c3 | c2], [b, r], g)
    v_mid = np.select([c1 | c4, c3 | c0], [r, g], b)
    cat = np.select([c0, c1, c2, c3, c4], [0, 1, 2, 3, 4], 5).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (v_mid - v_min) / (v_max - v_min)
    increase = (cat.astype(np.int32) & 1) == 0
    h = cat + np.where(increase, ratio, 1 - ratio)
    h = np.where(v_max == v_min, np.float32(0), h)
    return h.astype(np.float32), v_min, v_max


def _hv_range_to_rgb(h, v_min, v_max):
    cat = h.astype(np.int32)
    ratio = h - cat
    ratio = np.where((cat & 1) == 0, ratio, 1 - ratio)
    v_mid = v_min + ratio * (v_max - v_min)
    r = np.select([cat == 0, cat == 1, cat == 2, cat == 3, cat == 4], [v_max, v_mid, v_min, v_min, v_mid], v_max)
    g = np.select([cat == 0, cat == 1, cat == 2, cat == 3, cat == 4], [v_mid, v_max, v_max, v_mid, v_min], v_min)
    b = np.select([cat == 0, cat == 1, cat == 2, cat == 3, cat == 4], [v_min, v_min, v_mid, v_max, v_max], v_mid)
    return np.stack([r, g, b], -1)


def _adjust_hue_kernel(images, delta):
    _check_rgb(images, "AdjustHue", rank=3)
    if np.ndim(delta) != 0:
        raise invalid_argument(f"delta must be scalar: {np.shape(delta)}")
    x = images.astype(np.float32)
    h, v_min, v_max = _hv_range(x[..., 0], x[..., 1], x[..., 2])
    h = h + np.float32(delta) * np.float32(6)
    h = _wrap(h, np.float32(6), lambda h: h < 0, lambda h: h >= 6)
    return _hv_range_to_rgb(h, v_min, v_max).astype(images.dtype)


def _rgb_to_hsv_saturation(r, g, b):
    """TF's ``rgb_to_hsv`` of the AdjustSaturation kernel."""
    v = np.maximum(r, np.maximum(g, b))
    rng = v - np.minimum(r, np.minimum(g, b))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, np.float32(0))
        norm = np.float32(1) / (np.float32(6) * rng)
        h = np.where(r == v, norm * (g - b), np.where(g == v, norm * (b - r) + np.float32(2.0 / 6.0),
                                                      norm * (r - g) + np.float32(4.0 / 6.0)))
    h = np.where(rng <= 0, np.float32(0), h)
    h = np.where(h < 0, h + 1, h)
    return h.astype(np.float32), s.astype(np.float32), v


def _hsv_to_rgb_saturation(h, s, v):
    c = s * v
    m = v - c
    dh = h * np.float32(6)
    cat = dh.astype(np.int32)
    fmodu = _wrap(dh, np.float32(2), lambda f: f <= 0, lambda f: f >= 2)
    x = c * (1 - np.abs(fmodu - 1))
    zero = np.zeros_like(c)
    conds = [cat == 0, cat == 1, cat == 2, cat == 3, cat == 4, cat == 5]
    rr = np.select(conds, [c, x, zero, zero, x, c], zero)
    gg = np.select(conds, [x, c, c, x, zero, zero], zero)
    bb = np.select(conds, [zero, zero, x, c, c, x], zero)
    return np.stack([rr + m, gg + m, bb + m], -1)


def _adjust_saturation_kernel(images, scale):
    _check_rgb(images, "AdjustSaturation", rank=3)
    if np.ndim(scale) != 0:
        raise invalid_argument(f"scale must be scalar: {np.shape(scale)}")
    x = images.astype(np.float32)
    h, s, v = _rgb_to_hsv_saturation(x[..., 0], x[..., 1], x[..., 2])
    s = np.minimum(np.float32(1), np.maximum(np.float32(0), s * np.float32(scale)))
    return _hsv_to_rgb_saturation(h, s, v).astype(images.dtype)


register("AdjustHue", infer=_image_infer(3, "AdjustHue"), kernel=_adjust_hue_kernel, gpu=False)
register("AdjustSaturation", infer=_image_infer(3, "AdjustSaturation"), kernel=_adjust_saturation_kernel,
         gpu=False)


def _adjust_hsv(op_type: str, image, factor, factor_name: str, scope: str, name):
    with name_scope(name, scope, [image]) as name:
        image = convert_to_tensor(image, name="image")
        orig_dtype = image.dtype
        flt = _to_float(image)
        factor = convert_to_tensor(factor, dtype=dtypes.float32, name=factor_name)
        adjusted = apply_op(op_type, [flt, factor], name=op_type).outputs[0]
        return convert_image_dtype(adjusted, orig_dtype)


@tf_export("image.adjust_hue")
def adjust_hue(image, delta, name=None):
    """Rotates the hue by ``delta`` (a fraction of a turn, in [-1, 1])."""
    return _adjust_hsv("AdjustHue", image, delta, "delta", "adjust_hue", name)


@tf_export("image.adjust_saturation")
def adjust_saturation(image, saturation_factor, name=None):
    """Multiplies the HSV saturation by ``saturation_factor``, clipped to [0, 1]."""
    return _adjust_hsv("AdjustSaturation", image, saturation_factor, "scale", "adjust_saturation", name)


# -- random adjustments ----------------------------------------------------------------------


@tf_export("image.random_brightness")
def random_brightness(image, max_delta, seed=None):
    """``adjust_brightness`` by a delta drawn uniformly from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def _check_range(lower, upper):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


@tf_export("image.random_contrast")
def random_contrast(image, lower, upper, seed=None):
    """``adjust_contrast`` by a factor drawn uniformly from [lower, upper)."""
    _check_range(lower, upper)
    return adjust_contrast(image, random_ops.random_uniform([], lower, upper, seed=seed))


@tf_export("image.random_hue")
def random_hue(image, max_delta, seed=None):
    """``adjust_hue`` by a delta drawn uniformly from [-max_delta, max_delta), max_delta <= 0.5."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, random_ops.random_uniform([], -max_delta, max_delta, seed=seed))


@tf_export("image.random_saturation")
def random_saturation(image, lower, upper, seed=None):
    """``adjust_saturation`` by a factor drawn uniformly from [lower, upper)."""
    _check_range(lower, upper)
    return adjust_saturation(image, random_ops.random_uniform([], lower, upper, seed=seed))
