"""Tensors made from a shape, a range or indices: zeros, ones, zeros_like,
ones_like, fill, range, linspace, one_hot, sequence_mask, meshgrid.

TF1's rules for what becomes a ``Const`` are kept: ``tf.zeros`` of a known
shape under 1000 elements is a Const, a larger or dynamic one a ``Fill``;
``tf.zeros_like`` of a fully known shape is ``tf.zeros``.
"""

from __future__ import annotations

import builtins

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor, to_numpy
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array import tiling_ops  # noqa: F401 - meshgrid makes BroadcastTo ops
from dflow.ops.array.array_ops import stack
from dflow.ops.array.index_args import (
    contains_tensor,
    host,
    index_arg,
    index_tensor,
    kernel_int,
    kernel_ints,
    shape_from_tensor,
    split_index_args,
    static_ints,
    with_rank,
)
from dflow.ops.array.shape_ops import reshape, shape, size

# -- Fill, zeros, ones ------------------------------------------------------------------------------


def _fill_infer(op):
    value = op._inputs[0]
    if value.shape.ndims is not None:
        with_rank(value.shape, 0)
    dims, t = index_arg(op, "dims", 1)
    if dims is None:
        if t.shape.ndims is not None:
            with_rank(t.shape, 1)
        return [(value.dtype, shape_from_tensor(t))]
    if dims.ndim != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {dims.ndim}")
    for d in dims.tolist():
        if d < -1:
            raise ValueError(f"Invalid value in tensor used for shape: {d}")
        if d < 0:
            raise ValueError("Fill dimensions must be >= 0")
    return [(value.dtype, TensorShape(dims.tolist()))]


def _fill_kernel(value, dims):
    if type(dims) is not tuple:
        dims = kernel_ints(dims)
        for i, d in enumerate(dims):
            if d < 0:
                raise _invalid(f"dims[{i}] = {d} must be nonnegative.")
    return array_module(value).full(dims, value, dtype=value.dtype)


register("Fill", infer=_fill_infer, kernel=_fill_kernel)


@gradient("Fill")
def _fill_grad(op, grad):
    from dflow.ops.math.reduction_ops import reduce_sum

    return [reduce_sum(grad)] + [None] * (len(op._inputs) - 1)


@tf_export("fill")
def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with the scalar ``value``.

    >>> import dflow as tf
    >>> tf.fill([2, 3], 9).dtype
    tf.int32
    """
    with name_scope(name, "Fill", [dims, value]) as scope:
        inputs, attrs = split_index_args({"dims": dims})
        v = convert_to_tensor(value, name="value")
        return apply_op("Fill", [v, *inputs], attrs, name=scope).outputs[0]


def _filled(shape_arg, dtype, name, default: str, fill_value):
    """TF1's ``zeros``/``ones``: a Const when small and static, else ``Fill``."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, default, [shape_arg]) as scope:
        if not isinstance(shape_arg, Tensor) and not contains_tensor(shape_arg):
            dims = static_ints(shape_arg, "shape")
            dims = (dims,) if isinstance(dims, int) else dims
            if np.prod(dims, dtype=np.int64) < 1000:  # TF1 keeps big constants out of the GraphDef
                return constant(fill_value, dtype=dtype, shape=dims, name=scope)
            return apply_op("Fill", [constant(fill_value, dtype=dtype)], {"dims": dims}, name=scope).outputs[0]
        t = index_tensor(shape_arg, "shape")
        if t.shape.ndims == 0:
            t = reshape(t, [-1])
        return apply_op("Fill", [constant(fill_value, dtype=dtype), t], name=scope).outputs[0]


@tf_export("zeros")
def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of ``shape`` filled with zeros (``False``, ``b""``)."""
    dtype = dtypes.as_dtype(dtype)
    zero = False if dtype is dtypes.bool else "" if dtype is dtypes.string else 0
    return _filled(shape, dtype, name, "zeros", zero)


@tf_export("ones")
def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ``shape`` filled with ones (``True``)."""
    dtype = dtypes.as_dtype(dtype)
    return _filled(shape, dtype, name, "ones", True if dtype is dtypes.bool else 1)


def _zeros_like_kernel(x):
    if x.dtype == object:
        return np.full(np.shape(x), b"", dtype=object)
    return array_module(x).zeros_like(x)


register("ZerosLike", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], kernel=_zeros_like_kernel)
not_differentiable("ZerosLike")


@tf_export("zeros_like")
def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros with the shape of ``tensor`` (and its dtype, unless ``dtype`` is given)."""
    with name_scope(name, "zeros_like", [tensor]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        dtype = None if dtype is None else dtypes.as_dtype(dtype)
        if optimize and x.shape.is_fully_defined():
            return zeros(x.shape.as_list(), dtype=dtype or x.dtype, name=scope)
        if dtype is not None and dtype is not x.dtype:
            return zeros(shape(x), dtype=dtype, name=scope)
        return apply_op("ZerosLike", [x], name=scope).outputs[0]


@tf_export("ones_like")
def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones with the shape of ``tensor`` (and its dtype, unless ``dtype`` is given)."""
    with name_scope(name, "ones_like", [tensor]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        dtype = x.dtype if dtype is None else dtypes.as_dtype(dtype)
        one = True if dtype is dtypes.bool else 1
        if optimize and x.shape.is_fully_defined():
            # TF1 feeds a Const shape to Fill; a static attr is the same op, one node lighter.
            out = apply_op("Fill", [constant(one, dtype=dtype)], {"dims": tuple(x.shape.as_list())}, name=scope)
            return out.outputs[0]
        out = ones(shape(x), dtype=dtype, name=scope)
        out.set_shape(x.shape)
        return out


# -- Range, LinSpace --------------------------------------------------------------------------------

_RANGE_DTYPES = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def _range_size(start, limit, delta, np_dtype):
    """TF1's Range checks and element count, or a ValueError."""
    if delta == 0:
        raise ValueError("Requires delta != 0")
    if delta > 0 and start > limit:
        raise ValueError(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and start < limit:
        raise ValueError(f"Requires start >= limit when delta < 0: {start}/{limit}")
    if np.issubdtype(np_dtype, np.integer):
        return int((abs(int(limit) - int(start)) + abs(int(delta)) - 1) // abs(int(delta)))
    return int(np.ceil(np.abs((np_dtype(limit) - np_dtype(start)) / np_dtype(delta))))


def _range_infer(op):
    dtype = op._attrs["Tidx"]
    values = []
    for i, k in enumerate(("start", "limit", "delta")):
        v, t = index_arg(op, k, i)
        if t is not None and t.shape.ndims is not None:
            with_rank(t.shape, 0)
        values.append(v)
    if any(v is None for v in values):
        return [(dtype, TensorShape([None]))]
    s, limit, d = (dtype.as_numpy_dtype(v) for v in values)
    return [(dtype, TensorShape([_range_size(s, limit, d, dtype.as_numpy_dtype)]))]


def _range_kernel(start, limit, delta, Tidx):  # noqa: N803 - TF1 attr name
    t = Tidx.as_numpy_dtype
    s, limit, d = (t(np.asarray(host(v)).reshape(())) for v in (start, limit, delta))
    try:
        n = _range_size(s, limit, d, t)
    except ValueError as e:
        raise _invalid(f"{e}: {d}" if d == 0 else str(e)) from None
    if np.issubdtype(t, np.integer):
        return np.arange(s, s + n * d, d, dtype=t)[:n]
    # TF1 accumulates start + delta + delta... in the output type; so does cumsum.
    out = np.full(n, d, dtype=t)
    if n:
        out[0] = s
    return np.cumsum(out, dtype=t)


register("Range", infer=_range_infer, kernel=_range_kernel)
not_differentiable("Range")


@tf_export("range")
def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TF1 name
    """``[start, start + delta, ...)`` up to ``limit``; one argument is the limit.

    Without ``dtype`` the widest argument type of int32 < int64 < float32 <
    float64 wins.

    >>> import dflow as tf
    >>> tf.range(1, 5.0).dtype
    tf.float32
    """
    if limit is None:
        start, limit = 0, start
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        args = {"start": start, "limit": limit, "delta": delta}
        if any(isinstance(v, Tensor) for v in args.values()):
            values = [convert_to_tensor(v, dtype=dtype, name=k) for k, v in args.items()]
            kinds = [v.dtype for v in values]
        else:
            values = [to_numpy(v, dtype) for v in args.values()]
            for v in values:
                if v.ndim != 0:
                    raise ValueError(f"Shape must be rank 0 but is rank {v.ndim}")
            kinds = [dtypes.as_dtype(v.dtype) for v in values]
        if dtype is None:
            if any(k not in _RANGE_DTYPES for k in kinds):
                raise TypeError(f"tf.range arguments must be int32, int64, float32 or float64, got "
                                f"{[k.name for k in kinds]}")
            dtype = max(kinds, key=_RANGE_DTYPES.index)
        elif dtype not in _RANGE_DTYPES:
            raise TypeError(f"Value for attr 'Tidx' of {dtype.name} is not in the list of allowed values: "
                            f"int32, int64, float32, float64")
        if isinstance(values[0], Tensor):
            return apply_op("Range", values, {"Tidx": dtype}, name=scope).outputs[0]
        attrs = {k: v.item() for k, v in zip(args, values)}
        return apply_op("Range", [], {**attrs, "Tidx": dtype}, name=scope).outputs[0]


_LINSPACE_DTYPES = (dtypes.float32, dtypes.float64)


def _linspace_infer(op):
    dtype = op._attrs["T"]
    for i, k in enumerate(("start", "stop")):
        _, t = index_arg(op, k, i)
        if t is not None and t.shape.ndims is not None:
            with_rank(t.shape, 0)
    num, t = index_arg(op, "num", 2)
    if num is None:
        return [(dtype, TensorShape([None]))]
    if int(num) <= 0:
        raise ValueError(f"Requires num > 0: {int(num)}")
    return [(dtype, TensorShape([int(num)]))]


def _linspace_kernel(start, stop, num, T):  # noqa: N803 - TF1 attr name
    n = kernel_int(num)
    if n <= 0:
        raise _invalid(f"Requires num > 0: {n}")
    t = T.as_numpy_dtype
    a, b = (t(np.asarray(host(v)).reshape(())) for v in (start, stop))
    if n == 1:
        return np.array([a], dtype=t)
    step = (b - a) / t(n - 1)
    out = a + step * np.arange(n, dtype=t)  # TF1: start + step * i, in the output type
    out[-1] = b  # and exactly stop at the end
    return out


register("LinSpace", infer=_linspace_infer, kernel=_linspace_kernel)
not_differentiable("LinSpace")


@tf_export("linspace", "lin_space")
def linspace(start, stop, num, name=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (op ``LinSpace``).

    ``start`` sets the dtype and must be float32 or float64, as in TF1.
    """
    with name_scope(name, "LinSpace", [start, stop, num]) as scope:
        if isinstance(start, Tensor):
            dtype = start.dtype
        else:
            dtype = dtypes.as_dtype(to_numpy(start).dtype)
        if dtype not in _LINSPACE_DTYPES:
            raise TypeError(f"Value passed to parameter 'start' has DataType {dtype.name} not in list of allowed "
                            f"values: float32, float64")
        if not any(isinstance(v, Tensor) for v in (start, stop, num)):
            attrs = {"start": to_numpy(start).item(), "stop": to_numpy(stop, dtype).item(),
                     "num": static_ints(num, "num"), "T": dtype}
            return apply_op("LinSpace", [], attrs, name=scope).outputs[0]
        ends = [convert_to_tensor(v, dtype=dtype, name=k) for k, v in (("start", start), ("stop", stop))]
        return apply_op("LinSpace", ends + [index_tensor(num, "num")], {"T": dtype}, name=scope).outputs[0]


# -- OneHot --------------------------------------------------------------------------------------------

_ONE_HOT_INDEX_DTYPES = (dtypes.uint8, dtypes.int32, dtypes.int64)


def _one_hot_infer(op):
    indices, on, off = op._inputs[:3]
    axis = op._attrs["axis"]
    if axis < -1:
        raise ValueError("axis must be >= -1")
    for v in (on, off):
        if v.shape.ndims is not None:
            with_rank(v.shape, 0)
    depth, t = index_arg(op, "depth", 3)
    d = None if depth is None else int(depth)
    if d is not None and d < 0:
        raise ValueError(f"Dimension size, given by scalar input 1, must be non-negative but is {d}")
    s = indices.shape
    if s.ndims is None:
        return [(on.dtype, TensorShape(None))]
    dims = s.as_list()
    pos = len(dims) if axis == -1 else axis
    if pos > len(dims):  # an error at run time, as in TF1
        return [(on.dtype, TensorShape([None] * (len(dims) + 1)))]
    dims.insert(pos, d)
    return [(on.dtype, TensorShape(dims))]


def _one_hot_kernel(indices, on_value, off_value, depth, axis):
    d = depth if type(depth) is int else kernel_int(depth)
    if d < 0:
        raise _invalid(f"depth must be non-negative, got: {d}")
    if not (axis == -1 or 0 <= axis <= indices.ndim):
        raise _invalid(f"Expected axis to be -1 or between [0, {indices.ndim + 1}).  But received: {axis}")
    xp = array_module(indices)
    hot = indices[..., None] == xp.arange(d)
    out = xp.where(hot, on_value, off_value).astype(on_value.dtype, copy=False)
    return out if axis in (-1, indices.ndim) else xp.moveaxis(out, -1, axis)


register("OneHot", infer=_one_hot_infer, kernel=_one_hot_kernel)
not_differentiable("OneHot")


def _value_dtype(v):
    return v.dtype if isinstance(v, Tensor) else dtypes.as_dtype(to_numpy(v).dtype)


@tf_export("one_hot")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A one-hot encoding of ``indices`` with a new axis of size ``depth`` (last by default).

    >>> import dflow as tf
    >>> tf.one_hot([0, 2], 3).shape
    TensorShape([2, 3])
    """
    with name_scope(name, "one_hot", [indices, depth, on_value, off_value]) as scope:
        on_dtype = None if on_value is None else _value_dtype(on_value)
        off_dtype = None if off_value is None else _value_dtype(off_value)
        dtype = None if dtype is None else dtypes.as_dtype(dtype)
        if on_dtype is not None or off_dtype is not None:
            if dtype is not None:
                for what, dt in (("on_value", on_dtype), ("off_value", off_dtype)):
                    if dt is not None and dt is not dtype:
                        raise TypeError(f"dtype {dt} of {what} does not match dtype parameter {dtype}")
            else:
                dtype = on_dtype if on_dtype is not None else off_dtype
        elif dtype is None:
            dtype = dtypes.float32
        if on_dtype is not None and off_dtype is not None and on_dtype is not off_dtype:
            raise TypeError(f"dtype {on_dtype} of on_value does not match dtype {off_dtype} of off_value")
        on = convert_to_tensor(1 if on_value is None else on_value, dtype=dtype, name="on_value")
        off = convert_to_tensor(0 if off_value is None else off_value, dtype=dtype, name="off_value")
        idx = index_tensor(indices, "indices", _ONE_HOT_INDEX_DTYPES)
        inputs, attrs = split_index_args({"depth": depth}, scalars=("depth",))
        attrs["axis"] = -1 if axis is None else int(axis)
        return apply_op("OneHot", [idx, on, off, *inputs], attrs, name=scope).outputs[0]


# -- sequence_mask ---------------------------------------------------------------------------------


def _sequence_mask_infer(op):
    lengths = op._inputs[0]
    if "maxlen" in op._attrs:
        m = op._attrs["maxlen"]
        if m is None:  # the max of lengths: TF1 folds it when lengths are constant
            v = constant_value(lengths)
            m = None if v is None else (max(0, v.max().item()) if v.size else 0)
    else:
        value, _ = index_arg(op, "maxlen", 1)
        m = None if value is None else value.item()
    s = lengths.shape
    out = TensorShape(None) if s.ndims is None else s.concatenate([None if m is None else int(m)])
    return [(op._attrs["dtype"], out)]


def _sequence_mask_kernel(lengths, maxlen, dtype):
    xp = array_module(lengths)
    if maxlen is None:
        m = builtins.max(0, lengths.max().item()) if lengths.size else 0
    else:
        m = np.asarray(host(maxlen)).reshape(()).item()
        if isinstance(m, int) and lengths.dtype.kind == "f":
            lengths = lengths.astype(np.int64)  # TF1 casts lengths to maxlen's type
    out = xp.arange(m) < lengths[..., None]
    return out if dtype is dtypes.bool else out.astype(dtype.as_numpy_dtype)


register("SequenceMask", infer=_sequence_mask_infer, kernel=_sequence_mask_kernel)
not_differentiable("SequenceMask")


@tf_export("sequence_mask")
def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """``mask[..., j] = j < lengths[...]``, with ``maxlen`` columns (default: max of lengths).

    TF1 builds Range/Less (and Cast) ops; the result is named
    ``SequenceMask/Less`` (``SequenceMask/Cast_1`` for a non-bool dtype).
    """
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = convert_to_tensor(lengths)
        inputs, attrs = [], {}
        if maxlen is None:
            attrs["maxlen"] = None
        elif isinstance(maxlen, Tensor) or contains_tensor(maxlen):
            m = convert_to_tensor(maxlen)
            if m.shape.ndims not in (None, 0):
                raise ValueError("maxlen must be scalar for sequence_mask")
            inputs = [m]
        else:
            m = to_numpy(maxlen)
            if m.ndim != 0:
                raise ValueError("maxlen must be scalar for sequence_mask")
            attrs["maxlen"] = m.item()
        op_name = "Less" if dtype is dtypes.bool else "Cast_1"
        return apply_op("SequenceMask", [lengths, *inputs], {**attrs, "dtype": dtype}, name=op_name).outputs[0]


# -- meshgrid -------------------------------------------------------------------------------------


@tf_export("meshgrid")
def meshgrid(*args, **kwargs):
    """N-D coordinate grids from N 1-D tensors; ``indexing`` is ``"xy"`` (default) or ``"ij"``.

    TF1 multiplies each reshaped input by a grid of ones (``meshgrid/mul``,
    ``meshgrid/mul_1``, ...); dflow broadcasts instead, under those names.

    >>> import dflow as tf
    >>> [t.shape for t in tf.meshgrid([1, 2, 3], [4, 5])]
    [TensorShape([2, 3]), TensorShape([2, 3])]
    """
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with name_scope(name, "meshgrid", list(args)):
        xs = [x if isinstance(x, Tensor) else convert_to_tensor(x, name="stack") for x in args]
        ndim = len(xs)
        for x in xs[1:]:
            if x.dtype is not xs[0].dtype:
                raise TypeError(f"Input 'y' of 'Mul' Op has type {x.dtype.name} that does not match type "
                                f"{xs[0].dtype.name} of argument 'x'.")
        shapes = [[1] * ndim for _ in xs]
        for i, s in enumerate(shapes):
            s[i] = -1
        sizes = [x.shape.num_elements() if x.shape.is_fully_defined() else size(x) for x in xs]
        if indexing == "xy" and ndim > 1:
            shapes[0][:2], shapes[1][:2] = [1, -1], [-1, 1]
            sizes[0], sizes[1] = sizes[1], sizes[0]
        grid = stack(sizes) if any(isinstance(s, Tensor) for s in sizes) else sizes
        outs = []
        for x, s in zip(xs, shapes):
            inputs, attrs = split_index_args({"shape": grid})
            outs.append(apply_op("BroadcastTo", [reshape(x, s), *inputs], attrs, name="mul").outputs[0])
        return outs
