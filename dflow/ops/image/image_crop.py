"""``tf.image.crop_and_resize`` (with its image and box gradients) and
``tf.image.extract_glimpse``, as TF's CPU kernels compute them.

``CropAndResize`` samples each box ``[y1, x1, y2, x2]`` (normalised
coordinates) of image ``box_ind[i]`` on a ``crop_size`` grid, bilinearly or
at the nearest pixel; samples outside the image take ``extrapolation_value``.
``ExtractGlimpse`` copies a window at each offset; where the window leaves
the image it is filled with uniform noise between the image's min and max
(TF's default, which ``uniform_noise=False`` does not change in TF 2.15's
kernel either, since its ``noise`` attr defaults to "uniform").
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument
from dflow.ops.nn._nn_util import REALS, check_dtype, with_rank
from dflow.ops.random.random_ops import seed_attrs, shape_from_tensor, stateful_kernel

_F32 = np.float32


def _grid(lo, hi, crop: int, size: int):
    """Sample coordinates of one box side (TF's in_y / in_x), in float32."""
    if crop > 1:
        scale = (hi - lo) * _F32(size - 1) / _F32(crop - 1)
        return (lo * _F32(size - 1) + np.arange(crop, dtype=_F32) * scale).astype(_F32)
    return np.full(1, _F32(0.5) * (lo + hi) * _F32(size - 1), _F32)


def _check_boxes(image, boxes, box_ind, crop_size=None):
    if image.ndim != 4:
        raise invalid_argument(f"input image must be 4-D {list(image.shape)}")
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise invalid_argument(f"boxes must be 2-D [num_boxes, 4], got {list(boxes.shape)}")
    if box_ind.shape != (boxes.shape[0],):
        raise invalid_argument(f"box_index has incompatible shape {list(box_ind.shape)}")
    if image.shape[1] <= 0 or image.shape[2] <= 0:
        raise invalid_argument("image dimensions must be positive")
    bad = (box_ind < 0) | (box_ind >= image.shape[0])
    if bad.any():
        raise invalid_argument(f"box_index has values outside [0, batch_size): {box_ind[bad][0]}")
    if crop_size is not None:
        crop_size = np.asarray(crop_size).reshape(-1)
        if crop_size.shape != (2,):
            raise invalid_argument(f"crop_size must be a 1-D tensor of 2 elements, got {list(crop_size)}")
        if crop_size[0] <= 0 or crop_size[1] <= 0:
            raise invalid_argument("crop dimensions must be positive")
        return int(crop_size[0]), int(crop_size[1])
    return None


def _box_samples(box, crop_h, crop_w, height, width):
    """Per box: sample coordinates, validity masks, floor/ceil indices and lerps."""
    y1, x1, y2, x2 = (_F32(v) for v in box)
    in_y, in_x = _grid(y1, y2, crop_h, height), _grid(x1, x2, crop_w, width)
    vy = (in_y >= 0) & (in_y <= height - 1)
    vx = (in_x >= 0) & (in_x <= width - 1)
    cy, cx = np.clip(in_y, 0, height - 1), np.clip(in_x, 0, width - 1)
    ty, by = np.floor(cy).astype(np.int64), np.ceil(cy).astype(np.int64)
    lx, rx = np.floor(cx).astype(np.int64), np.ceil(cx).astype(np.int64)
    return in_y, in_x, vy, vx, ty, by, lx, rx, (in_y - np.floor(in_y)).astype(_F32), \
        (in_x - np.floor(in_x)).astype(_F32)


def _round_half_away(x):
    return (np.sign(x) * np.floor(np.abs(x) + _F32(0.5))).astype(np.int64)


def _crop_and_resize(image, boxes, box_ind, crop_size, method="bilinear", extrapolation_value=0.0):
    crop_h, crop_w = _check_boxes(image, boxes, box_ind, crop_size)
    _, height, width, depth = image.shape
    out = np.empty((boxes.shape[0], crop_h, crop_w, depth), _F32)
    for b in range(boxes.shape[0]):
        img = image[box_ind[b]].astype(_F32, copy=False)
        in_y, in_x, vy, vx, ty, by, lx, rx, yl, xl = _box_samples(boxes[b], crop_h, crop_w, height, width)
        if method == "bilinear":
            tl, tr = img[ty][:, lx], img[ty][:, rx]
            bl, br = img[by][:, lx], img[by][:, rx]
            xw = xl[None, :, None]
            top = tl + (tr - tl) * xw
            bottom = bl + (br - bl) * xw
            crop = top + (bottom - top) * yl[:, None, None]
        else:
            ny = np.clip(_round_half_away(np.clip(in_y, 0, height - 1)), 0, height - 1)
            nx = np.clip(_round_half_away(np.clip(in_x, 0, width - 1)), 0, width - 1)
            crop = img[ny][:, nx]
        valid = vy[:, None, None] & vx[None, :, None]
        out[b] = np.where(valid, crop, _F32(extrapolation_value))
    return out


def _crop_and_resize_grad_image(grads, boxes, box_ind, image_size, T, method="bilinear"):  # noqa: N803 - TF attr
    batch, height, width, depth = (int(v) for v in np.asarray(image_size).reshape(-1))
    out = np.zeros((batch, height, width, depth), np.float64)
    crop_h, crop_w = grads.shape[1:3]
    for b in range(boxes.shape[0]):
        in_y, in_x, vy, vx, ty, by, lx, rx, yl, xl = _box_samples(boxes[b], crop_h, crop_w, height, width)
        g = grads[b].astype(np.float64) * (vy[:, None, None] & vx[None, :, None])
        img = out[box_ind[b]]
        if method == "bilinear":
            y_w, x_w = yl[:, None, None].astype(np.float64), xl[None, :, None].astype(np.float64)
            for ys, wy in ((ty, 1 - y_w), (by, y_w)):
                for xs, wx in ((lx, 1 - x_w), (rx, x_w)):
                    np.add.at(img, (ys[:, None], xs[None, :]), g * wy * wx)
        else:
            ny = np.clip(_round_half_away(np.clip(in_y, 0, height - 1)), 0, height - 1)
            nx = np.clip(_round_half_away(np.clip(in_x, 0, width - 1)), 0, width - 1)
            np.add.at(img, (ny[:, None], nx[None, :]), g)
    return out.astype(T.as_numpy_dtype)


def _crop_and_resize_grad_boxes(grads, image, boxes, box_ind, method="bilinear"):
    _check_boxes(image, boxes, box_ind)
    _, height, width, _ = image.shape
    crop_h, crop_w = grads.shape[1:3]
    out = np.zeros((boxes.shape[0], 4), _F32)
    h_ratio = _F32(height - 1) / _F32(crop_h - 1) if crop_h > 1 else _F32(0)
    w_ratio = _F32(width - 1) / _F32(crop_w - 1) if crop_w > 1 else _F32(0)
    ys, xs = np.arange(crop_h, dtype=_F32), np.arange(crop_w, dtype=_F32)
    for b in range(boxes.shape[0]):
        img = image[box_ind[b]].astype(_F32, copy=False)
        _, _, vy, vx, ty, by, lx, rx, yl, xl = _box_samples(boxes[b], crop_h, crop_w, height, width)
        tl, tr = img[ty][:, lx], img[ty][:, rx]
        bl, br = img[by][:, lx], img[by][:, rx]
        yw, xw = yl[:, None, None], xl[None, :, None]
        valid = vy[:, None, None] & vx[None, :, None]
        g = grads[b].astype(_F32) * valid
        grad_y = ((1 - xw) * (bl - tl) + xw * (br - tr)) * g
        grad_x = ((1 - yw) * (tr - tl) + yw * (br - bl)) * g
        if crop_h > 1:
            out[b, 0] = np.sum(grad_y * (_F32(height - 1) - ys * h_ratio)[:, None, None])
            out[b, 2] = np.sum(grad_y * (ys * h_ratio)[:, None, None])
        else:
            out[b, 0] = out[b, 2] = np.sum(grad_y) * _F32(0.5) * _F32(height - 1)
        if crop_w > 1:
            out[b, 1] = np.sum(grad_x * (_F32(width - 1) - xs * w_ratio)[None, :, None])
            out[b, 3] = np.sum(grad_x * (xs * w_ratio)[None, :, None])
        else:
            out[b, 1] = out[b, 3] = np.sum(grad_x) * _F32(0.5) * _F32(width - 1)
    return out


def _crop_and_resize_infer(op):
    image, boxes, box_ind, crop_size = op._inputs
    image_shape = with_rank(image.shape, 4)
    with_rank(boxes.shape, 2)
    with_rank(box_ind.shape, 1)
    hw = shape_from_tensor(crop_size)
    hw = hw.as_list() if hw.ndims == 2 else [None, None]
    return [(dtypes.float32, TensorShape([boxes.shape.as_list()[0] if boxes.shape.ndims else None, *hw,
                                          image_shape.as_list()[3]]))]


def _grad_image_infer(op):
    hw = shape_from_tensor(op._inputs[3])
    return [(op._attrs["T"], hw if hw.ndims == 4 else TensorShape([None] * 4))]


register("CropAndResize", infer=_crop_and_resize_infer, kernel=_crop_and_resize, gpu=False)
register("CropAndResizeGradImage", infer=_grad_image_infer, kernel=_crop_and_resize_grad_image, gpu=False)
register("CropAndResizeGradBoxes", infer=lambda op: [(dtypes.float32, op._inputs[2].shape)],
         kernel=_crop_and_resize_grad_boxes, gpu=False)
not_differentiable("CropAndResizeGradImage")
not_differentiable("CropAndResizeGradBoxes")


@gradient("CropAndResize")
def _crop_and_resize_grad(op, grad):
    image, boxes, box_ind, _ = op.inputs
    if image.shape.is_fully_defined():
        image_shape = convert_to_tensor(image.shape.as_list(), dtype=dtypes.int32)
    else:
        from dflow.ops.array.shape_ops import shape
        image_shape = shape(image)
    grad_image = None
    if image.dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
        grad_image = apply_op("CropAndResizeGradImage", [grad, boxes, box_ind, image_shape],
                              {"T": image.dtype, "method": op._attrs["method"]}).outputs[0]
    grad_boxes = apply_op("CropAndResizeGradBoxes", [grad, image, boxes, box_ind],
                          {"method": op._attrs["method"]}).outputs[0]
    return [grad_image, grad_boxes, None, None]


@tf_export("image.crop_and_resize")
def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear", extrapolation_value=0,
                    name=None, box_indices=None):
    """Crops ``boxes`` (normalised ``[y1, x1, y2, x2]``) out of ``image[box_ind]`` and resizes
    each crop to ``crop_size``; ``[num_boxes, crop_h, crop_w, depth]`` float32 out."""
    if box_ind is not None and box_indices is not None:
        raise ValueError("Cannot specify both 'box_indices' and 'box_ind'")
    box_ind = box_indices if box_ind is None else box_ind
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"method must be 'bilinear' or 'nearest', got {method!r}")
    image = convert_to_tensor(image, name="image")
    check_dtype(image, REALS, "image")
    boxes = convert_to_tensor(boxes, dtype=dtypes.float32, name="boxes")
    box_ind = convert_to_tensor(box_ind, dtype=dtypes.int32, name="box_ind")
    crop_size = convert_to_tensor(crop_size, dtype=dtypes.int32, name="crop_size")
    return apply_op("CropAndResize", [image, boxes, box_ind, crop_size],
                    {"method": method, "extrapolation_value": float(extrapolation_value)},
                    name=name or "CropAndResize").outputs[0]


# -- extract_glimpse ---------------------------------------------------------------------------


def _extract_glimpse(rng, images, size, offsets, centered=True, normalized=True, uniform_noise=True,
                     noise="uniform"):
    if images.ndim != 4:
        raise invalid_argument(f"input must be 4-dimensional {list(images.shape)}")
    size = np.asarray(size).reshape(-1)
    if size.shape != (2,):
        raise invalid_argument(f"input must be a vector of size 2 (height, width), got {list(size)}")
    out_h, out_w = int(size[0]), int(size[1])
    batch, in_h, in_w, depth = images.shape
    if offsets.shape != (batch, 2):
        raise invalid_argument(f"offsets must be [batch_size, 2], got {list(offsets.shape)}")
    if uniform_noise and noise not in ("", "uniform"):
        raise invalid_argument("The uniform_noise and noise should not be specified at the same time")
    # TF reads the noise attr first: its default "uniform" wins over uniform_noise=False.
    kind = noise or ("uniform" if uniform_noise else "zero")
    out = np.empty((batch, out_h, out_w, depth), _F32)
    for i in range(batch):
        y, x = _F32(offsets[i, 0]), _F32(offsets[i, 1])
        if normalized:
            x, y = x * _F32(in_w), y * _F32(in_h)
        if centered:
            x, y = x / _F32(2) + _F32(in_w / 2), y / _F32(2) + _F32(in_h / 2)
        x, y = x - _F32(out_w / 2), y - _F32(out_h / 2)
        ox, oy = int(x), int(y)  # truncation toward zero, as TF's cast
        img = images[i].astype(_F32, copy=False)
        src_y = np.arange(oy, oy + out_h)
        src_x = np.arange(ox, ox + out_w)
        inside = ((src_y >= 0) & (src_y < in_h))[:, None] & ((src_x >= 0) & (src_x < in_w))[None, :]
        if inside.all():
            out[i] = img[src_y][:, src_x]
            continue
        if kind == "uniform":
            lo, hi = img.min(), img.max()
            fill = lo + rng.random((out_h, out_w, depth), dtype=_F32) * (hi - lo)
        elif kind == "gaussian":
            mean = img.mean(axis=(0, 1))
            sigma = np.sqrt(((img - mean) ** 2).mean(axis=(0, 1)))
            fill = mean + rng.standard_normal((out_h, out_w, depth), dtype=_F32) * sigma
        else:
            fill = np.zeros((out_h, out_w, depth), _F32)
        window = img[np.clip(src_y, 0, in_h - 1)][:, np.clip(src_x, 0, in_w - 1)]
        out[i] = np.where(inside[:, :, None], window, fill)
    return out


def _glimpse_infer(op):
    images, size, offsets = op._inputs
    shape = with_rank(images.shape, 4).as_list()
    hw = shape_from_tensor(size)
    hw = hw.as_list() if hw.ndims == 2 else [None, None]
    return [(dtypes.float32, TensorShape([shape[0], *hw, shape[3]]))]


register("ExtractGlimpse", infer=_glimpse_infer, make_kernel=stateful_kernel(_extract_glimpse), stateful=True,
         gpu=False)
not_differentiable("ExtractGlimpse")


@tf_export("image.extract_glimpse")
def extract_glimpse(input, size, offsets, centered=True, normalized=True, uniform_noise=True, name=None):  # noqa: A002
    """Windows of ``size = [h, w]`` at ``offsets`` (``[batch, 2]``, y then x) of a float32 batch."""
    images = convert_to_tensor(input, dtype=dtypes.float32, name="input")
    size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
    offsets = convert_to_tensor(offsets, dtype=dtypes.float32, name="offsets")
    attrs = {"centered": bool(centered), "normalized": bool(normalized), "uniform_noise": bool(uniform_noise),
             "noise": "uniform", **seed_attrs(None)}
    return apply_op("ExtractGlimpse", [images, size, offsets], attrs, name=name or "ExtractGlimpse").outputs[0]
