"""``tf.image.psnr``, ``ssim`` and ``ssim_multiscale``, built from math ops as
TF1 builds them (so they are differentiable the same way).

TF filters with a depthwise convolution; here each channel is moved into the
batch and convolved with the one Gaussian window, which gives the same
sums. Images are ``[..., height, width, channels]``; leading dimensions are
broadcast between the two images as TF allows.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import control_dependencies, name_scope
from dflow.ops.array import array_ops, shape_ops
from dflow.ops.array.index_args import with_rank_at_least
from dflow.ops.array.tiling_ops import pad
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.debugging.logging_ops import Assert
from dflow.ops.image.image_ops import convert_image_dtype
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.math.unary_math_ops import log, square
from dflow.ops.nn import conv_ops, pool_ops
from dflow.ops.nn.nn_activations import relu


def _verify_compatible(img1, img2):
    """TF's ``_verify_compatible_image_shapes``: static checks, and run-time Asserts."""
    shape1, shape2 = with_rank_at_least(img1.shape, 3), with_rank_at_least(img2.shape, 3)
    if shape1.ndims is not None and shape2.ndims is not None:
        if not shape1[-3:].is_compatible_with(shape2[-3:]):
            raise ValueError(f"Shapes {shape1[-3:]} and {shape2[-3:]} are incompatible")
        for d1, d2 in zip(reversed(shape1.as_list()[:-3]), reversed(shape2.as_list()[:-3])):
            if not (d1 == 1 or d2 == 1 or d1 is None or d2 is None or d1 == d2):
                raise ValueError(f"Two images are not compatible: {shape1} and {shape2}")
    s1, s2 = shape_ops.shape_n([img1, img2])
    checks = [Assert(math_ops.greater_equal(shape_ops.size(s1), 3), [s1, s2], summarize=10),
              Assert(reduction_ops.reduce_all(math_ops.equal(s1[-3:], s2[-3:])), [s1, s2], summarize=10)]
    return s1, s2, checks


@tf_export("image.psnr")
def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio per image: ``20 log10(max_val) - 10 log10(mse)``."""
    with name_scope(name, "PSNR", [a, b]):
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        max_val = math_ops.cast(max_val, a.dtype)
        max_val = convert_image_dtype(max_val, dtypes.float32)
        a = convert_image_dtype(a, dtypes.float32)
        b = convert_image_dtype(b, dtypes.float32)
        d = a - b
        mse = reduction_ops.reduce_mean(d * d, [-3, -2, -1])
        value = math_ops.subtract(20 * log(max_val) / log(10.0), np.float32(10 / np.log(10)) * log(mse),
                                  name="psnr")
        _, _, checks = _verify_compatible(a, b)
        with control_dependencies(checks):
            return control_flow_ops.identity(value)


def _gaussian(size: int, sigma: float, dtype):
    """TF's ``_fspecial_gauss``: a normalised ``size`` x ``size`` window, as a conv filter."""
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = coords.astype(dtype) ** 2 * dtype(-0.5 / sigma**2)
    g = (g[None, :] + g[:, None]).reshape(-1)
    g = np.exp(g - g.max())
    g = (g / g.sum()).astype(dtype)
    return g.reshape(size, size, 1, 1)


def _filter_channels(x, window):
    """Each channel of ``[..., h, w, c]`` convolved (VALID) with ``window``."""
    shape = shape_ops.shape(x)
    flat = shape_ops.reshape(x, array_ops.concat([[-1], shape[-3:]], 0))
    per_channel = shape_ops.transpose(flat, [0, 3, 1, 2])
    dims = shape_ops.shape(per_channel)
    y = conv_ops.conv2d(shape_ops.reshape(per_channel, array_ops.concat([[-1], dims[2:], [1]], 0)), window,
                        [1, 1, 1, 1], "VALID")
    ydims = shape_ops.shape(y)
    y = shape_ops.reshape(y, array_ops.stack([dims[0], dims[1], ydims[1], ydims[2]]))
    y = shape_ops.transpose(y, [0, 2, 3, 1])
    return shape_ops.reshape(y, array_ops.concat([shape[:-3], shape_ops.shape(y)[1:]], 0))


def _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2, return_index_map=False):
    s1, s2 = shape_ops.shape_n([img1, img2])
    checks = [Assert(reduction_ops.reduce_all(math_ops.greater_equal(s1[-3:-1], filter_size)), [s1, filter_size],
                     summarize=8),
              Assert(reduction_ops.reduce_all(math_ops.greater_equal(s2[-3:-1], filter_size)), [s2, filter_size],
                     summarize=8)]
    with control_dependencies(checks):
        img1 = control_flow_ops.identity(img1)
    window = convert_to_tensor(_gaussian(int(filter_size), float(filter_sigma), np.float32), name="kernel")

    def reducer(x):
        return _filter_channels(x, window)

    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0, mean1 = reducer(img1), reducer(img2)
    num0 = mean0 * mean1 * 2.0
    den0 = square(mean0) + square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(img1 * img2) * 2.0
    den1 = reducer(square(img1) + square(img2))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    if return_index_map:
        return luminance * cs, cs
    axes = convert_to_tensor([-3, -2], dtype=dtypes.int32)
    return reduction_ops.reduce_mean(luminance * cs, axes), reduction_ops.reduce_mean(cs, axes)


def _prepare(img1, img2, max_val):
    img1 = convert_to_tensor(img1, name="img1")
    img2 = convert_to_tensor(img2, name="img2")
    s1, s2, checks = _verify_compatible(img1, img2)
    with control_dependencies(checks):
        img1 = control_flow_ops.identity(img1)
    max_val = math_ops.cast(max_val, img1.dtype)
    max_val = convert_image_dtype(max_val, dtypes.float32)
    return convert_image_dtype(img1, dtypes.float32), convert_image_dtype(img2, dtypes.float32), max_val, s1, s2


@tf_export("image.ssim")
def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False):
    """Structural similarity per image (or the per-pixel map), averaged over channels."""
    with name_scope(None, "SSIM", [img1, img2]):
        img1, img2, max_val, _, _ = _prepare(img1, img2, max_val)
        per_channel, _ = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2,
                                           return_index_map)
        return reduction_ops.reduce_mean(per_channel, [-1])


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


@tf_export("image.ssim_multiscale")
def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11, filter_sigma=1.5, k1=0.01,
                    k2=0.03):
    """Multi-scale SSIM: contrast-structure terms at halved scales, weighted by ``power_factors``."""
    with name_scope(None, "MS-SSIM", [img1, img2]):
        img1, img2, max_val, s1, s2 = _prepare(img1, img2, max_val)
        imgs = [img1, img2]
        heads = [s1[:-3], s2[:-3]]
        tails = [s1[-3:], s2[-3:]]
        divisor = [1, 2, 2, 1]
        divisor_tensor = convert_to_tensor(divisor[1:], dtype=dtypes.int32)

        def do_pad(images, remainder):
            padding = shape_ops.expand_dims(remainder, -1)
            padding = pad(padding, [[1, 0], [1, 0]])
            return [pad(x, padding, mode="SYMMETRIC") for x in images]

        mcs = []
        per_channel = None
        for k in range(len(power_factors)):
            with name_scope(None, f"Scale{k}", imgs):
                if k > 0:
                    flat = [shape_ops.reshape(x, array_ops.concat([[-1], t], 0)) for x, t in zip(imgs, tails)]
                    remainder = tails[0] % divisor_tensor
                    need_padding = reduction_ops.reduce_any(math_ops.not_equal(remainder, 0))
                    padded = control_flow_ops.cond(need_padding, lambda f=flat, r=remainder: do_pad(f, r),
                                                   lambda f=flat: f)
                    down = [pool_ops.avg_pool(x, ksize=divisor, strides=divisor, padding="VALID") for x in padded]
                    tails = [x[1:] for x in shape_ops.shape_n(down)]
                    imgs = [shape_ops.reshape(x, array_ops.concat([h, t], 0)) for x, h, t in zip(down, heads, tails)]
                per_channel, cs = _ssim_per_channel(*imgs, max_val=max_val, filter_size=filter_size,
                                                    filter_sigma=filter_sigma, k1=k1, k2=k2)
                mcs.append(relu(cs))
        mcs.pop()
        stacked = array_ops.stack(mcs + [relu(per_channel)], axis=-1)
        ms_ssim = reduction_ops.reduce_prod(math_ops.pow(stacked, power_factors), [-1])
        return reduction_ops.reduce_mean(ms_ssim, [-1])
