"""``tf.image``: geometry (flips, rotations, crops, pads), dtype conversion,
standardisation, and image gradients, built as TF1 builds them.

These are composites of array and math ops, so their gradients come from the
ops they are made of, and their final tensors carry TF1's names
(``flip_left_right/ReverseV2:0``). Images are ``[height, width, channels]``
or batches ``[batch, height, width, channels]``; where TF1 reads a
dimension statically it does so here, and where it checks a dynamic one it
adds an ``Assert`` that fails with ``InvalidArgumentError`` at run time.

Colour adjustments live in ``image_color``, resizing in ``image_resize``,
boxes and non-max suppression in ``image_boxes``, PSNR/SSIM in
``image_quality`` and the codecs in ``image_codecs``.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.array import array_ops, creation_ops, shape_ops
from dflow.ops.array.slicing_ops import reverse
from dflow.ops.array.slicing_ops import slice as slice_
from dflow.ops.array.tiling_ops import pad
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.debugging.logging_ops import Assert
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.nn import conv_ops
from dflow.ops.random import random_ops

# -- checks ------------------------------------------------------------------------------


def is_tensor(x) -> bool:
    return isinstance(x, Tensor) or hasattr(x, "_as_graph_element")


def check_at_least_3d(image: Tensor) -> Tensor:
    """TF's ``_AssertAtLeast3DImage``: ValueError for a static rank < 3 or a zero
    inner dimension; a run-time check when the inner dimensions are unknown."""
    shape = image.shape
    if shape.ndims is not None and shape.ndims < 3:
        raise ValueError(f"'image' (shape {shape}) must be at least three-dimensional.")
    inner = shape[-3:] if shape.ndims is not None else TensorShape(None)
    if inner.ndims is not None and any(d == 0 for d in inner.as_list()):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")
    if inner.is_fully_defined():
        return image
    dims = shape_ops.shape(image)
    checks = [Assert(reduction_ops.reduce_all(math_ops.greater(dims[-3:], 0)),
                     ["inner 3 dims of 'image.shape' must be > 0."]),
              Assert(math_ops.greater_equal(shape_ops.rank(image), 3),
                     ["'image' must be at least three-dimensional."])]
    return control_flow_ops.with_dependencies(checks, image)


def assert_that(cond, msg: str) -> list:
    """TF's ``_assert``: a Python False raises ValueError now; a tensor becomes an Assert op."""
    if is_tensor(cond):
        return [Assert(cond, [msg])]
    if not cond:
        raise ValueError(msg)
    return []


def image_dims(image: Tensor, rank: int) -> list:
    """The image's dimensions: ints where static, scalar tensors where not."""
    if image.shape.is_fully_defined():
        return image.shape.as_list()
    static = image.shape.with_rank(rank).as_list()
    dynamic = shape_ops.shape(image)
    return [s if s is not None else dynamic[i] for i, s in enumerate(static)]


def _rank_3_or_4(image: Tensor) -> int | None:
    ndims = image.shape.ndims
    if ndims not in (None, 3, 4):
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    return ndims


def _by_rank(image: Tensor, f3, f4):
    """``f3(image)`` or ``f4(image)`` by the image's rank; a ``cond`` when it is unknown."""
    ndims = _rank_3_or_4(image)
    if ndims == 3:
        return f3()
    if ndims == 4:
        return f4()
    return control_flow_ops.cond(math_ops.equal(shape_ops.rank(image), 3), f3, f4)


def _as_image(image, name="image") -> Tensor:
    return convert_to_tensor(image, name=name)


# -- flips, rotations, transposes --------------------------------------------------------


def _flip(image, axis: int, scope_name: str) -> Tensor:
    with name_scope(None, scope_name, [image]):
        image = check_at_least_3d(_as_image(image))
        _rank_3_or_4(image)
        # Height and width are axes -3 and -2 whatever the rank.
        return reverse(image, [axis - 3])


@tf_export("image.flip_left_right")
def flip_left_right(image) -> Tensor:
    """Mirrors the image (or each image of a batch) horizontally."""
    return _flip(image, 1, "flip_left_right")


@tf_export("image.flip_up_down")
def flip_up_down(image) -> Tensor:
    """Mirrors the image (or each image of a batch) vertically."""
    return _flip(image, 0, "flip_up_down")


def _random_flip(image, axis: int, seed, scope_name: str) -> Tensor:
    with name_scope(None, scope_name, [image]) as scope:
        image = check_at_least_3d(_as_image(image))

        def f_rank3():
            u = random_ops.random_uniform([], 0, 1.0, seed=seed)
            flipped = control_flow_ops.cond(math_ops.less(u, 0.5), lambda: reverse(image, [axis]),
                                            lambda: image, name=scope)
            flipped.set_shape(image.shape)
            return flipped

        def f_rank4():
            batch = shape_ops.shape(image)[0]
            u = random_ops.random_uniform(array_ops.stack([batch]), 0, 1.0, seed=seed)
            flips = math_ops.cast(math_ops.round(shape_ops.reshape(u, array_ops.stack([batch, 1, 1, 1]))),
                                  image.dtype)
            return flips * reverse(image, [axis + 1]) + (1 - flips) * image

        return _by_rank(image, f_rank3, f_rank4)


@tf_export("image.random_flip_left_right")
def random_flip_left_right(image, seed=None) -> Tensor:
    """Mirrors horizontally with probability 1/2 (each image of a batch on its own)."""
    return _random_flip(image, 1, seed, "random_flip_left_right")


@tf_export("image.random_flip_up_down")
def random_flip_up_down(image, seed=None) -> Tensor:
    """Mirrors vertically with probability 1/2 (each image of a batch on its own)."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


@tf_export("image.rot90")
def rot90(image, k=1, name=None) -> Tensor:
    """Rotates by ``k`` quarter turns counter-clockwise.

    >>> import dflow as tf
    >>> tf.image.rot90(tf.zeros([2, 3, 1])).shape
    TensorShape([3, 2, 1])
    """
    with name_scope(name, "rot90", [image, k]) as scope:
        image = check_at_least_3d(_as_image(image))
        k = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        k.shape.with_rank(0)
        k_static = constant_value(k)

        def rotate(x, h):
            # h: the height axis (0 for an image, 1 for a batch)
            perm = list(range(4 if h else 3))
            perm[h], perm[h + 1] = h + 1, h
            cases = {1: lambda: shape_ops.transpose(reverse(x, [h + 1]), perm),
                     2: lambda: reverse(x, [h, h + 1]),
                     3: lambda: reverse(shape_ops.transpose(x, perm), [h + 1])}
            if k_static is not None:
                kk = int(k_static) % 4
                if kk == 0:
                    return control_flow_ops.identity(x, name=scope)
                with name_scope(scope):
                    return control_flow_ops.identity(cases[kk](), name=scope)
            k4 = math_ops.mod(k, 4)
            out = control_flow_ops.case([(math_ops.equal(k4, i), cases[i]) for i in (1, 2, 3)],
                                        default=lambda: x, exclusive=True, name=scope)
            static = x.shape.as_list() if x.shape.ndims is not None else [None] * (h + 3)
            out.set_shape(static[:h] + [None, None] + static[h + 2:])
            return out

        return _by_rank(image, lambda: rotate(image, 0), lambda: rotate(image, 1))


@tf_export("image.transpose", "image.transpose_image")
def transpose(image, name=None) -> Tensor:
    """Swaps height and width (of each image of a batch)."""
    with name_scope(name, "transpose", [image]):
        image = check_at_least_3d(_as_image(image))
        return _by_rank(image, lambda: shape_ops.transpose(image, [1, 0, 2], name=name),
                        lambda: shape_ops.transpose(image, [0, 2, 1, 3], name=name))


# -- crops and pads ----------------------------------------------------------------------


@tf_export("image.central_crop")
def central_crop(image, central_fraction) -> Tensor:
    """The central ``central_fraction`` of the image's height and width."""
    with name_scope(None, "central_crop", [image]):
        image = _as_image(image)
        fraction = constant_value(central_fraction) if is_tensor(central_fraction) else central_fraction
        if fraction is not None:
            fraction = float(fraction)
            if fraction <= 0.0 or fraction > 1.0:
                raise ValueError("central_fraction must be within (0, 1]")
            if fraction == 1.0:
                return image
        else:
            ok = math_ops.logical_and(math_ops.greater(central_fraction, 0.0),
                                      math_ops.less_equal(central_fraction, 1.0))
            image = control_flow_ops.with_dependencies(assert_that(ok, "central_fraction must be within (0, 1]"),
                                                       image)
        check_at_least_3d(image)
        rank = image.shape.ndims
        if rank not in (3, 4):
            raise ValueError(f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {rank}.")
        h_axis = rank - 3
        starts, sizes, dynamic = [], [], []
        for axis in (h_axis, h_axis + 1):
            dim = image.shape.as_list()[axis]
            if dim is None or fraction is None:
                d = math_ops.cast(dim if dim is not None else shape_ops.shape(image)[axis], dtypes.float64)
                frac = fraction if fraction is not None else math_ops.cast(central_fraction, dtypes.float64)
                start = math_ops.cast((d - d * frac) / 2, dtypes.int32)
                size = (dim if dim is not None else shape_ops.shape(image)[axis]) - start * 2
                dynamic.append(True)
            else:
                start = int((float(dim) - float(dim) * fraction) / 2)
                size = dim - start * 2
                dynamic.append(False)
            starts.append(start)
            sizes.append(size)
        lead = [0] if rank == 4 else []
        begin = array_ops.stack(lead + starts + [0])
        size = array_ops.stack(([-1] if rank == 4 else []) + sizes + [-1])
        out = slice_(image, begin, size)
        static = image.shape.as_list()
        static[h_axis] = None if dynamic[0] else sizes[0]
        static[h_axis + 1] = None if dynamic[1] else sizes[1]
        out.set_shape(static)
        return out


def as_batch(image: Tensor) -> tuple[Tensor, bool]:
    ndims = image.shape.ndims
    if ndims == 3:
        return shape_ops.expand_dims(image, 0), False
    if ndims is None:
        image = shape_ops.expand_dims(image, 0)
        image.set_shape([None] * 4)
        return image, False
    if ndims != 4:
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    return image, True


def at_least(a, b):
    return math_ops.greater_equal(a, b) if is_tensor(a) or is_tensor(b) else a >= b


def greater_than(a, b):
    return math_ops.greater(a, b) if is_tensor(a) or is_tensor(b) else a > b


def _static_dims(dims) -> list:
    return [None if is_tensor(d) else d for d in dims]


def _scalar_or_int(x):
    """A Python int stays one; a constant tensor becomes one; others stay tensors."""
    if is_tensor(x):
        v = constant_value(x)
        return int(v) if v is not None else x
    return int(x)


def _box_args(image, *box):
    """The image as a batch (and whether it was one), and the box's ints or tensors."""
    image, is_batch = as_batch(_as_image(image))
    return image, is_batch, [_scalar_or_int(v) for v in box]


@tf_export("image.pad_to_bounding_box")
def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width) -> Tensor:
    """Zero-pads the image to ``target_height`` x ``target_width``, placing it at the offsets."""
    with name_scope(None, "pad_to_bounding_box", [image]):
        image, is_batch, box = _box_args(image, offset_height, offset_width, target_height, target_width)
        offset_height, offset_width, target_height, target_width = box
        batch, height, width, depth = image_dims(image, 4)
        after_w = target_width - offset_width - width
        after_h = target_height - offset_height - height
        if image.shape[1:].is_fully_defined():
            check_at_least_3d(image)
        checks = assert_that(at_least(offset_height, 0), "offset_height must be >= 0")
        checks += assert_that(at_least(offset_width, 0), "offset_width must be >= 0")
        checks += assert_that(at_least(after_w, 0), "width must be <= target - offset")
        checks += assert_that(at_least(after_h, 0), "height must be <= target - offset")
        if checks:
            image = control_flow_ops.with_dependencies(checks, image)
        paddings = shape_ops.reshape(array_ops.stack([0, 0, offset_height, after_h, offset_width, after_w, 0, 0]),
                                     [4, 2])
        padded = pad(image, paddings)
        padded.set_shape(_static_dims([batch, target_height, target_width, depth]))
        return padded if is_batch else shape_ops.squeeze(padded, axis=[0])


@tf_export("image.crop_to_bounding_box")
def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width) -> Tensor:
    """The ``target_height`` x ``target_width`` window whose top-left corner is at the offsets."""
    with name_scope(None, "crop_to_bounding_box", [image]):
        image, is_batch, box = _box_args(image, offset_height, offset_width, target_height, target_width)
        offset_height, offset_width, target_height, target_width = box
        batch, height, width, depth = image_dims(image, 4)
        checks = assert_that(at_least(offset_width, 0), "offset_width must be >= 0.")
        checks += assert_that(at_least(offset_height, 0), "offset_height must be >= 0.")
        checks += assert_that(greater_than(target_width, 0), "target_width must be > 0.")
        checks += assert_that(greater_than(target_height, 0), "target_height must be > 0.")
        checks += assert_that(at_least(width, target_width + offset_width), "width must be >= target + offset.")
        checks += assert_that(at_least(height, target_height + offset_height), "height must be >= target + offset.")
        if checks:
            image = control_flow_ops.with_dependencies(checks, image)
        cropped = slice_(image, array_ops.stack([0, offset_height, offset_width, 0]),
                         array_ops.stack([-1, target_height, target_width, -1]))
        cropped.set_shape(_static_dims([batch, target_height, target_width, depth]))
        return cropped if is_batch else shape_ops.squeeze(cropped, axis=[0])


def larger_of(x, y):
    return math_ops.maximum(x, y) if is_tensor(x) or is_tensor(y) else max(x, y)


def smaller_of(x, y):
    return math_ops.minimum(x, y) if is_tensor(x) or is_tensor(y) else min(x, y)


@tf_export("image.resize_with_crop_or_pad", "image.resize_image_with_crop_or_pad")
def resize_image_with_crop_or_pad(image, target_height, target_width) -> Tensor:
    """Centrally crops and/or zero-pads the image to the target size."""
    with name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image, is_batch = as_batch(_as_image(image))
        target_height, target_width = _scalar_or_int(target_height), _scalar_or_int(target_width)
        checks = assert_that(greater_than(target_width, 0), "target_width must be > 0.")
        checks += assert_that(greater_than(target_height, 0), "target_height must be > 0.")
        if checks:
            image = control_flow_ops.with_dependencies(checks, image)
        _, height, width, _ = image_dims(image, 4)
        width_diff = target_width - width
        height_diff = target_height - height
        cropped = crop_to_bounding_box(image, larger_of(-height_diff // 2, 0), larger_of(-width_diff // 2, 0),
                                       smaller_of(target_height, height), smaller_of(target_width, width))
        resized = pad_to_bounding_box(cropped, larger_of(height_diff // 2, 0), larger_of(width_diff // 2, 0),
                                      target_height, target_width)
        return resized if is_batch else shape_ops.squeeze(resized, axis=[0])


@tf_export("image.random_crop", "random_crop")
def random_crop(value, size, seed=None, name=None) -> Tensor:
    """A uniformly placed window of shape ``size`` from ``value``."""
    with name_scope(name, "random_crop", [value, size]) as scope:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = shape_ops.shape(value)
        check = Assert(reduction_ops.reduce_all(math_ops.greater_equal(shape, size)),
                       ["Need value.shape >= size, got ", shape, size], summarize=1000)
        shape = control_flow_ops.with_dependencies([check], shape)
        limit = shape - size + 1
        offset = random_ops.random_uniform(shape_ops.shape(shape), dtype=size.dtype, maxval=size.dtype.max,
                                           seed=seed) % limit
        out = slice_(value, offset, size, name=scope)
        static = constant_value(size)
        if static is not None:
            out.set_shape([int(d) for d in np.asarray(static).reshape(-1)])
        return out


# -- dtype conversion and standardisation --------------------------------------------------


@tf_export("image.convert_image_dtype")
def convert_image_dtype(image, dtype, saturate=False, name=None) -> Tensor:
    """Converts between image dtypes, rescaling: floats span [0, 1), integers [0, MAX].

    >>> import dflow as tf
    >>> tf.image.convert_image_dtype(tf.constant([255], tf.uint8), tf.float32).dtype
    tf.float32
    """
    image = convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return control_flow_ops.identity(image, name=name)
    with name_scope(name, "convert_image", [image]) as name:
        if image.dtype.is_integer and dtype.is_integer:
            scale_in, scale_out = image.dtype.max, dtype.max
            if scale_in > scale_out:
                scaled = math_ops.floordiv(image, (scale_in + 1) // (scale_out + 1))
                cast = math_ops.saturate_cast if saturate else math_ops.cast
                return cast(scaled, dtype, name=name)
            cast = math_ops.saturate_cast(image, dtype) if saturate else math_ops.cast(image, dtype)
            return math_ops.multiply(cast, (scale_out + 1) // (scale_in + 1), name=name)
        if image.dtype.is_floating and dtype.is_floating:
            return math_ops.cast(image, dtype, name=name)
        if image.dtype.is_integer:
            return math_ops.multiply(math_ops.cast(image, dtype), 1.0 / image.dtype.max, name=name)
        scaled = math_ops.multiply(image, dtype.max + 0.5)  # + 0.5 avoids rounding down in the cast
        cast = math_ops.saturate_cast if saturate else math_ops.cast
        return cast(scaled, dtype, name=name)


@tf_export("image.per_image_standardization")
def per_image_standardization(image) -> Tensor:
    """Scales each image to mean 0 and variance 1: ``(x - mean) / max(stddev, 1/sqrt(N))``."""
    with name_scope(None, "per_image_standardization", [image]) as scope:
        image = check_at_least_3d(_as_image(image))
        image = math_ops.cast(image, dtypes.float32)
        num_pixels = reduction_ops.reduce_prod(shape_ops.shape(image)[-3:])
        mean = reduction_ops.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        stddev = reduction_ops.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
        min_stddev = math_ops.rsqrt(math_ops.cast(num_pixels, dtypes.float32))
        adjusted = math_ops.maximum(stddev, min_stddev)
        image = image - mean
        return math_ops.divide(image, adjusted, name=scope)


# -- image differences ----------------------------------------------------------------------


@tf_export("image.total_variation")
def total_variation(images, name=None) -> Tensor:
    """The sum of absolute differences of neighbouring pixels (per image for a batch)."""
    with name_scope(name, "total_variation"):
        images = convert_to_tensor(images, name="images")
        ndims = images.shape.ndims
        if ndims == 3:
            dif1 = images[1:, :, :] - images[:-1, :, :]
            dif2 = images[:, 1:, :] - images[:, :-1, :]
            axis = None
        elif ndims == 4:
            dif1 = images[:, 1:, :, :] - images[:, :-1, :, :]
            dif2 = images[:, :, 1:, :] - images[:, :, :-1, :]
            axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return (reduction_ops.reduce_sum(math_ops.abs(dif1), axis=axis)
                + reduction_ops.reduce_sum(math_ops.abs(dif2), axis=axis))


@tf_export("image.image_gradients")
def image_gradients(image) -> tuple:
    """``(dy, dx)``: forward differences down and across, zero in the last row/column."""
    image = convert_to_tensor(image, name="image")
    if image.shape.ndims != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {image.shape}.")
    dims = shape_ops.shape(image)
    batch, height, width, depth = (dims[i] for i in range(4))
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    zeros_row = creation_ops.zeros(array_ops.stack([batch, 1, width, depth]), image.dtype)
    dy = array_ops.concat([dy, zeros_row], 1)
    dy = shape_ops.reshape(dy, dims)
    zeros_col = creation_ops.zeros(array_ops.stack([batch, height, 1, depth]), image.dtype)
    dx = array_ops.concat([dx, zeros_col], 2)
    dx = shape_ops.reshape(dx, dims)
    return dy, dx


@tf_export("image.sobel_edges")
def sobel_edges(image) -> Tensor:
    """Sobel filter responses ``[batch, h, w, d, 2]`` (dy then dx), with reflected borders."""
    image = convert_to_tensor(image, name="image")
    if image.shape.ndims != 4:
        raise ValueError(f"sobel_edges expects a 4D tensor [batch_size, h, w, d], not {image.shape}.")
    depth = image.shape.as_list()[-1]
    if depth is None:
        raise ValueError("sobel_edges: dflow needs a static channel count")
    # TF filters depthwise; a block-diagonal conv2d filter gives the same channels
    # (output channel c * 2 + k is kernel k on input channel c).
    kernels = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]])
    num_kernels = len(kernels)
    filters = np.zeros((3, 3, depth, depth * num_kernels))
    for c in range(depth):
        for k in range(num_kernels):
            filters[:, :, c, c * num_kernels + k] = kernels[k]
    filters = convert_to_tensor(filters, dtype=image.dtype, name="sobel_filters")
    padded = pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    strides = [1, 1, 1, 1]
    output = conv_ops.conv2d(padded, filters, strides, "VALID")
    shape = array_ops.concat([shape_ops.shape(image), [num_kernels]], 0)
    output = shape_ops.reshape(output, shape=shape)
    output.set_shape(image.shape.concatenate([num_kernels]))
    return output
