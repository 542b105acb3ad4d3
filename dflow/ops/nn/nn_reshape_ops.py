"""Block rearrangements: ``space_to_depth``, ``depth_to_space``,
``space_to_batch(_nd)``, ``batch_to_space(_nd)`` and ``with_space_to_batch``.

Each op is a reshape-transpose-reshape of numpy (the same on CuPy), with
TF1's op types (``SpaceToDepth``, ``DepthToSpace``, ``SpaceToBatchND``,
``BatchToSpaceND``); each op's gradient is its inverse op. Static checks
(ranks, divisibility, block sizes, data formats) raise ``ValueError`` at
graph construction as TF1's shape functions do; the same checks on values
known only at run time raise ``InvalidArgumentError``.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument
from dflow.ops.array.index_args import INDEX_DTYPES, dims_str, index_arg, kernel_ints, split_index_args
from dflow.ops.nn._nn_util import as_tensor

_DATA_FORMATS = ("NHWC", "NCHW", "NCHW_VECT_C")


def _check_block_size(op_type: str, block_size) -> int:
    block_size = int(block_size)
    if block_size < 2:
        raise ValueError(f"Attr 'block_size' of '{op_type}' Op passed {block_size} less than minimum 2.")
    return block_size


def _check_data_format(op_type: str, data_format: str) -> str:
    if isinstance(data_format, bytes):
        data_format = data_format.decode()
    if data_format not in _DATA_FORMATS:
        raise ValueError(f"Attr 'data_format' of '{op_type}' Op passed string '{data_format}' not in: "
                         f"\"NHWC\", \"NCHW\", \"NCHW_VECT_C\".")
    if data_format == "NCHW_VECT_C":
        raise NotImplementedError(f"{op_type}: data_format NCHW_VECT_C (quantized int8 layout) is not supported")
    return data_format


def _divided(dim, by: int):
    if dim is None:
        return None
    if dim % by:
        raise ValueError(f"Dimension size must be evenly divisible by {by} but is {dim}")
    return dim // by


# -- SpaceToDepth / DepthToSpace ------------------------------------------------------------


def _hwc(shape: TensorShape, data_format: str) -> tuple:
    b, *rest = shape.as_list()
    h, w, c = rest if data_format == "NHWC" else (rest[1], rest[2], rest[0])
    return b, h, w, c


def _nhwc_shape(b, h, w, c, data_format: str) -> TensorShape:
    return TensorShape([b, h, w, c] if data_format == "NHWC" else [b, c, h, w])


def _space_to_depth_infer(op):
    x = op._inputs[0]
    bs, fmt = op._attrs["block_size"], op._attrs["data_format"]
    if x.shape.ndims is None:
        return [(x.dtype, TensorShape([None] * 4))]
    if x.shape.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.shape.ndims}")
    b, h, w, c = _hwc(x.shape, fmt)
    h, w = _divided(h, bs), _divided(w, bs)
    return [(x.dtype, _nhwc_shape(b, h, w, None if c is None else c * bs * bs, fmt))]


def _depth_to_space_infer(op):
    x = op._inputs[0]
    bs, fmt = op._attrs["block_size"], op._attrs["data_format"]
    if x.shape.ndims is None:
        return [(x.dtype, TensorShape([None] * 4))]
    if x.shape.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.shape.ndims}")
    b, h, w, c = _hwc(x.shape, fmt)
    c = _divided(c, bs * bs)
    return [(x.dtype, _nhwc_shape(b, None if h is None else h * bs, None if w is None else w * bs, c, fmt))]


def _check_rank4(x):
    if x.ndim != 4:
        raise invalid_argument(f"input rank should be: 4 instead of: {x.ndim}")


def _space_to_depth(x, block_size, data_format):
    _check_rank4(x)
    xp = array_module(x)
    nhwc = x if data_format == "NHWC" else xp.transpose(x, (0, 2, 3, 1))
    b, h, w, c = nhwc.shape
    if h % block_size or w % block_size:
        raise invalid_argument(f"Image width {w} and height {h} should be divisible by block_size: {block_size}")
    y = nhwc.reshape(b, h // block_size, block_size, w // block_size, block_size, c)
    y = xp.transpose(y, (0, 1, 3, 2, 4, 5)).reshape(b, h // block_size, w // block_size, block_size * block_size * c)
    return xp.ascontiguousarray(y if data_format == "NHWC" else xp.transpose(y, (0, 3, 1, 2)))


def _depth_to_space(x, block_size, data_format):
    _check_rank4(x)
    xp = array_module(x)
    nhwc = x if data_format == "NHWC" else xp.transpose(x, (0, 2, 3, 1))
    b, h, w, c = nhwc.shape
    if c % (block_size * block_size):
        raise invalid_argument(f"Input depth dimension {c} should be divisible by: {block_size * block_size}")
    d = c // (block_size * block_size)
    y = nhwc.reshape(b, h, w, block_size, block_size, d)
    y = xp.transpose(y, (0, 1, 3, 2, 4, 5)).reshape(b, h * block_size, w * block_size, d)
    return xp.ascontiguousarray(y if data_format == "NHWC" else xp.transpose(y, (0, 3, 1, 2)))


register("SpaceToDepth", infer=_space_to_depth_infer, kernel=_space_to_depth)
register("DepthToSpace", infer=_depth_to_space_infer, kernel=_depth_to_space)


@gradient("SpaceToDepth")
def _space_to_depth_grad(op, grad):
    return [apply_op("DepthToSpace", [grad], dict(op._attrs)).outputs[0]]


@gradient("DepthToSpace")
def _depth_to_space_grad(op, grad):
    return [apply_op("SpaceToDepth", [grad], dict(op._attrs)).outputs[0]]


def _depth_op(op_type: str, input, block_size, name, data_format) -> Tensor:  # noqa: A002 - TF1 argument name
    attrs = {"block_size": _check_block_size(op_type, block_size),
             "data_format": _check_data_format(op_type, data_format)}
    with name_scope(name, op_type, [input]) as scope:
        x = as_tensor(input, "input")
        return apply_op(op_type, [x], attrs, name=scope).outputs[0]


@tf_export("space_to_depth", "nn.space_to_depth")
def space_to_depth(input, block_size, name=None, data_format="NHWC") -> Tensor:  # noqa: A002 - TF1 name
    """Moves ``block_size × block_size`` spatial blocks into the depth dimension.

    >>> import dflow as tf
    >>> tf.space_to_depth(tf.zeros([1, 4, 4, 3]), 2).shape.as_list()
    [1, 2, 2, 12]
    """
    return _depth_op("SpaceToDepth", input, block_size, name, data_format)


@tf_export("depth_to_space", "nn.depth_to_space")
def depth_to_space(input, block_size, name=None, data_format="NHWC") -> Tensor:  # noqa: A002 - TF1 name
    """Moves depth into ``block_size × block_size`` spatial blocks (the inverse of ``space_to_depth``)."""
    return _depth_op("DepthToSpace", input, block_size, name, data_format)


# -- SpaceToBatchND / BatchToSpaceND -----------------------------------------------------------


def _block_args(op):
    """``(block_shape, pads)`` as numpy arrays (None when not known at graph time)."""
    key = "paddings" if op.type == "SpaceToBatchND" else "crops"
    block, block_t = index_arg(op, "block_shape", 1)
    pads, pads_t = index_arg(op, key, 2)
    m = None
    if block is not None:
        if block.ndim != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {block.ndim}")
        m = block.shape[0]
    elif block_t is not None and block_t.shape.ndims == 1:
        m = block_t.shape[0].value
    if pads is not None:
        if pads.ndim != 2 or pads.shape[1] != 2 or (m is not None and pads.shape[0] != m):
            want = dims_str([m, 2])
            raise ValueError(f"Dimension 1 in both shapes must be equal, but are {pads.shape[-1]} and 2. "
                             f"Shapes are {dims_str(pads.shape)} and {want}." if pads.ndim == 2 else
                             f"Shape must be rank 2 but is rank {pads.ndim}")
        m = pads.shape[0] if m is None else m
    if block is not None and (block < 1).any():
        raise ValueError("block_shape must be positive")
    if pads is not None and (pads < 0).any():
        raise ValueError(f"{key} cannot be negative")
    return m, block, pads


def _space_to_batch_infer(op):
    x = op._inputs[0]
    m, block, pads = _block_args(op)
    if x.shape.ndims is None or m is None:
        return [(x.dtype, TensorShape(None))]
    if x.shape.ndims < m + 1:
        raise ValueError(f"Shape must be at least rank {m + 1} but is rank {x.shape.ndims}")
    dims = x.shape.as_list()
    batch = None if dims[0] is None or block is None else dims[0] * int(np.prod(block))
    if block is None or pads is None:
        return [(x.dtype, TensorShape([batch] + [None] * m + dims[m + 1:]))]
    spatial = []
    for i in range(m):
        d = dims[i + 1]
        spatial.append(None if d is None else _divided(d + int(pads[i].sum()), int(block[i])))
    return [(x.dtype, TensorShape([batch] + spatial + dims[m + 1:]))]


def _batch_to_space_infer(op):
    x = op._inputs[0]
    m, block, crops = _block_args(op)
    if x.shape.ndims is None or m is None:
        return [(x.dtype, TensorShape(None))]
    if x.shape.ndims < m + 1:
        raise ValueError(f"Shape must be at least rank {m + 1} but is rank {x.shape.ndims}")
    dims = x.shape.as_list()
    batch = None if block is None else _divided(dims[0], int(np.prod(block)))
    if block is None or crops is None:
        return [(x.dtype, TensorShape([batch] + [None] * m + dims[m + 1:]))]
    spatial = []
    for i in range(m):
        d = dims[i + 1]
        if d is None:
            spatial.append(None)
            continue
        size = d * int(block[i])
        for c in crops[i]:
            if size - c < 0:
                raise ValueError(f"Negative dimension size caused by subtracting {int(c)} from {size}")
            size -= int(c)
        spatial.append(size)
    return [(x.dtype, TensorShape([batch] + spatial + dims[m + 1:]))]


def _kernel_blocks(x, block_shape, pads, what: str):
    block = np.asarray(kernel_ints(block_shape), np.int64)
    pads = np.asarray(kernel_ints(pads), np.int64).reshape(-1, 2)
    m = block.shape[0]
    if pads.shape[0] != m:
        raise invalid_argument(f"{what} should have shape [{m}, 2] instead of {dims_str(pads.shape)}")
    if x.ndim < m + 1:
        raise invalid_argument(f"input rank should be >= {m + 1} instead of {x.ndim}")
    if (block < 1).any():
        raise invalid_argument(f"All values in block_shape must be positive, got value, {block.min()} instead.")
    if (pads < 0).any():
        raise invalid_argument(f"All values in {what} must be non-negative, got value, {pads.min()} instead.")
    return block, pads, m


def _space_to_batch(x, block_shape, paddings):
    xp = array_module(x)
    block, pads, m = _kernel_blocks(x, block_shape, paddings, "paddings")
    rest = x.shape[m + 1:]
    padded = xp.pad(x, [(0, 0)] + [tuple(p) for p in pads.tolist()] + [(0, 0)] * len(rest))
    for i in range(m):
        if padded.shape[i + 1] % block[i]:
            raise invalid_argument(f"padded_shape[{i}]={padded.shape[i + 1]} is not divisible by "
                                   f"block_shape[{i}]={block[i]}")
    batch = x.shape[0]
    split = [batch]
    for i in range(m):
        split += [padded.shape[i + 1] // int(block[i]), int(block[i])]
    y = padded.reshape(split + list(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(1 + 2 * m, y.ndim))
    y = xp.transpose(y, perm)
    out = [batch * int(block.prod())] + [padded.shape[i + 1] // int(block[i]) for i in range(m)] + list(rest)
    return xp.ascontiguousarray(y.reshape(out))


def _batch_to_space(x, block_shape, crops):
    xp = array_module(x)
    block, crops, m = _kernel_blocks(x, block_shape, crops, "crops")
    prod = int(block.prod())
    if x.shape[0] % prod:
        raise invalid_argument(f"Input batch dimension ({x.shape[0]}) is not divisible by product of block sizes "
                               f"({prod})")
    batch = x.shape[0] // prod
    spatial = x.shape[1:m + 1]
    rest = x.shape[m + 1:]
    for i in range(m):
        cropped = spatial[i] * int(block[i]) - int(crops[i].sum())
        if cropped < 0:
            raise invalid_argument(f"cropped_shape[{i}]={cropped} must be non-negative")
    y = x.reshape([int(b) for b in block] + [batch] + list(spatial) + list(rest))
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, y.ndim))
    y = xp.transpose(y, perm).reshape([batch] + [spatial[i] * int(block[i]) for i in range(m)] + list(rest))
    index = (slice(None),) + tuple(slice(int(c[0]), y.shape[i + 1] - int(c[1])) for i, c in enumerate(crops))
    return xp.ascontiguousarray(y[index])


register("SpaceToBatchND", infer=_space_to_batch_infer, kernel=_space_to_batch)
register("BatchToSpaceND", infer=_batch_to_space_infer, kernel=_batch_to_space)


def _block_op(op_type: str, x: Tensor, block_shape, pads, key: str, name) -> Tensor:
    inputs, attrs = split_index_args({"block_shape": block_shape, key: pads}, INDEX_DTYPES)
    return apply_op(op_type, [x] + inputs, attrs, name=name).outputs[0]


def _index_inputs(op, key: str) -> tuple:
    """The op's block_shape and paddings/crops, as attrs values or tensors, to rebuild its inverse."""
    if "block_shape" in op._attrs:
        return op._attrs["block_shape"], op._attrs[key]
    return op.inputs[1], op.inputs[2]


@gradient("SpaceToBatchND")
def _space_to_batch_grad(op, grad):
    block, pads = _index_inputs(op, "paddings")
    return [_block_op("BatchToSpaceND", grad, block, pads, "crops", None), None, None][:len(op.inputs)]


@gradient("BatchToSpaceND")
def _batch_to_space_grad(op, grad):
    block, crops = _index_inputs(op, "crops")
    return [_block_op("SpaceToBatchND", grad, block, crops, "paddings", None), None, None][:len(op.inputs)]


@tf_export("space_to_batch_nd", "manip.space_to_batch_nd")
def space_to_batch_nd(input, block_shape, paddings, name=None) -> Tensor:  # noqa: A002 - TF1 name
    """Zero-pads the ``M`` spatial dimensions, then moves ``block_shape`` blocks of them into the batch.

    >>> import dflow as tf
    >>> tf.space_to_batch_nd(tf.zeros([1, 4, 4, 1]), [2, 2], [[0, 0], [0, 0]]).shape.as_list()
    [4, 2, 2, 1]
    """
    with name_scope(name, "SpaceToBatchND", [input, block_shape, paddings]) as scope:
        return _block_op("SpaceToBatchND", as_tensor(input, "input"), block_shape, paddings, "paddings", scope)


@tf_export("batch_to_space_nd", "manip.batch_to_space_nd")
def batch_to_space_nd(input, block_shape, crops, name=None) -> Tensor:  # noqa: A002 - TF1 name
    """Moves ``block_shape`` blocks of the batch back into the spatial dimensions, then crops them."""
    with name_scope(name, "BatchToSpaceND", [input, block_shape, crops]) as scope:
        return _block_op("BatchToSpaceND", as_tensor(input, "input"), block_shape, crops, "crops", scope)


def _block_size_lookup(block_size, block_shape):
    if block_size is not None and block_shape is not None:
        raise ValueError("Cannot specify both 'block_shape' and 'block_size'")
    value = block_size if block_size is not None else block_shape
    if value is None:
        raise TypeError("block_size is required")
    return int(value)


@tf_export("space_to_batch", "nn.space_to_batch")
def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None) -> Tensor:  # noqa: A002
    """``space_to_batch_nd`` of a 4-D input with the square block ``[block_size, block_size]``."""
    size = _block_size_lookup(block_size, block_shape)
    result = space_to_batch_nd(input, [size, size], paddings, name=name)
    result.set_shape(result.shape.with_rank(4))
    return result


@tf_export("batch_to_space")
def batch_to_space(input, crops, block_size, name=None, block_shape=None) -> Tensor:  # noqa: A002
    """``batch_to_space_nd`` of a 4-D input with the square block ``[block_size, block_size]``."""
    size = _block_size_lookup(block_size, block_shape)
    result = batch_to_space_nd(input, [size, size], crops, name=name)
    result.set_shape(result.shape.with_rank(4))
    return result


# -- with_space_to_batch -----------------------------------------------------------------------


@tf_export("required_space_to_batch_paddings")
def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None) -> tuple:
    """``(paddings, crops)`` that make ``input_shape`` plus ``base_paddings`` divisible by ``block_shape``."""
    from dflow.framework.constant_op import convert_to_tensor
    from dflow.framework.op_registry import constant_value
    from dflow.ops.array import array_ops
    from dflow.ops.math import math_ops

    with name_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        input_shape = convert_to_tensor(input_shape, name="input_shape")
        block_shape = convert_to_tensor(block_shape, dtype=input_shape.dtype, name="block_shape")
        num_block_dims = block_shape.shape.with_rank(1)[0].value
        if num_block_dims == 0:
            zeros = np.zeros([0, 2], np.int32)
            return convert_to_tensor(zeros, name="paddings"), convert_to_tensor(zeros, name="crops")
        input_shape.shape.assert_is_compatible_with([num_block_dims])
        if base_paddings is not None:
            base_paddings = convert_to_tensor(base_paddings, dtype=input_shape.dtype, name="base_paddings")
            base_paddings.shape.assert_is_compatible_with([num_block_dims, 2])
        values = [constant_value(t) for t in (input_shape, block_shape)]
        values.append(np.zeros([num_block_dims, 2], np.int32) if base_paddings is None
                      else constant_value(base_paddings))
        if all(v is not None for v in values):
            shape, block, base = (np.asarray(v, np.int64) for v in values)
            pad_start, orig_pad_end = base[:, 0], base[:, 1]
            extra = (block - (shape + pad_start + orig_pad_end) % block) % block
            dtype = input_shape.dtype.as_numpy_dtype
            paddings = np.stack([pad_start, orig_pad_end + extra], axis=1).astype(dtype)
            crops = np.stack([np.zeros_like(extra), extra], axis=1).astype(dtype)
            return convert_to_tensor(paddings, name="paddings"), convert_to_tensor(crops, name="crops")
        if base_paddings is None:
            base_paddings = array_ops.zeros_like(array_ops.stack([input_shape, input_shape], axis=1))
        pad_start, orig_pad_end = base_paddings[:, 0], base_paddings[:, 1]
        full = input_shape + pad_start + orig_pad_end
        extra = math_ops.floormod(block_shape - math_ops.floormod(full, block_shape), block_shape)
        paddings = array_ops.stack([pad_start, orig_pad_end + extra], axis=1, name="paddings")
        crops = array_ops.stack([array_ops.zeros_like(extra), extra], axis=1, name="crops")
        return paddings, crops


@tf_export("nn.with_space_to_batch")
def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,  # noqa: A002
                        data_format=None):
    """Runs ``op(converted_input, num_spatial_dims, padding)`` on ``space_to_batch``-converted input.

    The result of ``op`` is converted back with ``batch_to_space``, so an op
    that only supports unit rates (a convolution or pool) runs at
    ``dilation_rate``. dflow needs ``dilation_rate`` (and, for SAME padding,
    ``filter_shape``) known at graph time.
    """
    from dflow.framework.op_registry import constant_value

    x = as_tensor(input, "input")
    rate = constant_value(dilation_rate) if isinstance(dilation_rate, Tensor) else np.asarray(dilation_rate)
    if rate is None:
        raise NotImplementedError("nn.with_space_to_batch: a dilation_rate known only at run time")
    rate = np.asarray(rate, np.int64)
    if rate.ndim != 1:
        raise ValueError(f"`dilation_rate.shape.rank` must be 1. Received: dilation_rate={rate.tolist()} of rank "
                         f"{rate.ndim}")
    num_spatial_dims = rate.shape[0]
    channels_first = data_format is not None and data_format.startswith("NC")
    start = 2 if channels_first else 1
    if spatial_dims is None:
        spatial_dims = range(start, num_spatial_dims + start)
    orig_spatial_dims = [int(d) for d in spatial_dims]
    spatial_dims = sorted(set(orig_spatial_dims))
    if spatial_dims != orig_spatial_dims or any(d < 1 for d in spatial_dims):
        raise ValueError(f"`spatial_dims` must be a monotonically increasing sequence of positive integers. "
                         f"Received: spatial_dims={orig_spatial_dims}")
    expected_rank = spatial_dims[-1] if channels_first else spatial_dims[-1] + 1
    if x.shape.ndims is not None and x.shape.ndims < expected_rank:
        shown = "(" + ", ".join(str(d) for d in x.shape.as_list()) + ")"
        raise ValueError(f"`input.shape.rank` must be at least {expected_rank}. Received: input.shape={shown} with "
                         f"rank {x.shape.ndims}")
    if (rate < 1).any():
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={rate.tolist()}")
    if (rate == 1).all():
        return op(x, num_spatial_dims, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("`filter_shape` must be specified for `padding='SAME'`. Received: filter_shape=None "
                             "and padding=SAME")
        fs = constant_value(filter_shape) if isinstance(filter_shape, Tensor) else filter_shape
        if fs is None:
            raise NotImplementedError("nn.with_space_to_batch: a filter_shape known only at run time")
        pad_extra = (np.asarray(fs, np.int64)[:num_spatial_dims] - 1) * rate
        base = np.stack([pad_extra // 2, pad_extra - pad_extra // 2], axis=1)
    elif padding == "VALID":
        base = np.zeros([num_spatial_dims, 2], np.int64)
    else:
        raise ValueError(f"Invalid padding method {padding!r}")
    dims = x.shape.as_list() if x.shape.ndims is not None else None
    spatial = None if dims is None else [dims[d] for d in spatial_dims]
    if spatial is None or None in spatial:
        from dflow.ops.array import array_ops, shape_ops
        from dflow.ops.math import math_ops

        full_shape = shape_ops.shape(x)
        spatial_shape = array_ops.stack([full_shape[d] for d in spatial_dims])
        paddings, crops = required_space_to_batch_paddings(spatial_shape, rate.astype(np.int32),
                                                           base.astype(np.int32))
        paddings, crops = (math_ops.cast(t, np.int64) for t in (paddings, crops))
        paddings, crops = (_fill_gaps(t, spatial_dims) for t in (paddings, crops))
    else:
        shape, extra_rate = np.asarray(spatial, np.int64), rate
        extra = (extra_rate - (shape + base.sum(axis=1)) % extra_rate) % extra_rate
        paddings = _fill_gaps(np.stack([base[:, 0], base[:, 1] + extra], axis=1), spatial_dims)
        crops = _fill_gaps(np.stack([np.zeros_like(extra), extra], axis=1), spatial_dims)
    block = _fill_gaps(rate, spatial_dims, fill=1)
    converted = space_to_batch_nd(x, block.tolist(), paddings.tolist() if isinstance(paddings, np.ndarray)
                                  else paddings)
    result = op(converted, num_spatial_dims, "VALID")
    return batch_to_space_nd(result, block.tolist(), crops.tolist() if isinstance(crops, np.ndarray) else crops)


def _fill_gaps(values, spatial_dims, fill=0):
    """Per-dimension ``values`` of ``spatial_dims`` spread over dims ``1 .. spatial_dims[-1]`` (TF's
    ``_with_space_to_batch_adjust``): dimensions in between get ``fill`` (block 1, no padding)."""
    if isinstance(values, np.ndarray):
        out = np.full((spatial_dims[-1],) + values.shape[1:], fill, values.dtype)
        out[np.asarray(spatial_dims) - 1] = values
        return out
    from dflow.ops.array import array_ops

    rows = [array_ops.zeros_like(values[0])] * spatial_dims[-1]
    for i, d in enumerate(spatial_dims):
        rows[d - 1] = values[i]
    return array_ops.stack(rows)
