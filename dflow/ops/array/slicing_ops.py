"""Slicing: ``Tensor.__getitem__``, slice, strided_slice, reverse, reverse_sequence.

``t[spec]`` lowers to one ``StridedSlice`` op named ``strided_slice``, as
TF1's ``_slice_helper`` does. When the spec holds no tensors its numpy index
(``(slice(1, None, 2), Ellipsis, None)``...) is computed once at graph time
and the kernel is just ``x[index]``, a view. TF1's canonicalisation of
begin/end/strides and the five masks matches Python slicing exactly, so
numpy does the work; ``_strided_slice_shape`` reproduces TF1's shape
function for static shapes and its error messages.
"""

from __future__ import annotations

import builtins
import sys

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, register, register_folder
from dflow.framework.tensor_shape import Dimension, TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array.array_ops import stack
from dflow.ops.array.gather_ops import boolean_mask
from dflow.ops.array.index_args import (
    INDEX_DTYPES,
    host,
    index_arg,
    index_tensor,
    kernel_ints,
    merge_shapes,
    shape_from_tensor,
    split_index_args,
    with_rank,
)
from dflow.ops.array.shape_ops import shape as shape_of

_py_slice = builtins.slice  # this module defines tf.slice
_FOLD_LIMIT = 4096  # as the registry's constant folding




# -- Slice ----------------------------------------------------------------------------------------


def _slice_infer(op):
    x = op._inputs[0]
    begin, bt = index_arg(op, "begin", 1)
    size, st = index_arg(op, "size", 2)
    lens = []
    for v, t in ((begin, bt), (size, st)):
        s = TensorShape(v.shape) if v is not None else t.shape
        if s.ndims is not None:
            with_rank(s, 1)
            lens.append(s[0].value)
    n = merge_shapes(TensorShape([lens[0]]), TensorShape([lens[-1]]))[0].value if lens else None
    s = x.shape if n is None else with_rank(x.shape, n)
    if size is None:
        return [(x.dtype, TensorShape(None) if n is None else TensorShape([None] * n))]
    dims = []
    for i, sz in enumerate(size.tolist()):
        if sz != -1:
            dims.append(int(sz))
        elif begin is None or s.ndims is None or s[i].value is None:
            dims.append(None)
        else:
            d = s[i].value - int(begin[i])
            if d < 0:
                raise ValueError(f"Negative dimension size caused by subtracting {int(begin[i])} from {s[i].value}")
            dims.append(d)
    return [(x.dtype, TensorShape(dims))]


def _slice_kernel(input, begin, size):  # noqa: A002 - TF1 argument name
    begin, size = kernel_ints(begin), kernel_ints(size)
    shape = input.shape
    if len(begin) != len(shape) or len(size) != len(shape):
        raise _invalid(f"Expected begin and size arguments to be 1-D tensors of size {len(shape)}, but got shapes "
                       f"[{len(begin)}] and [{len(size)}] instead.")
    index = []
    for i, (b, s, d) in enumerate(zip(begin, size, shape)):
        if not 0 <= b <= d:
            raise _invalid(f"Expected begin[{i}] in [0, {d}], but got {b}")
        if s == -1:
            s = d - b
        elif not 0 <= s <= d - b:
            raise _invalid(f"Expected size[{i}] in [0, {d - b}], but got {s}")
        index.append(_py_slice(b, b + s))
    return input[tuple(index)]


register("Slice", infer=_slice_infer, kernel=_slice_kernel)


@gradient("Slice")
def _slice_grad(op, grad):
    """``grad`` padded with zeros back to the input's shape (static paddings when the sizes are known)."""
    from dflow.ops.array.tiling_ops import pad

    x, y = op._inputs[0], op._outputs[0]
    begin, bt = index_arg(op, "begin", 1)
    nones = [None] * (len(op._inputs) - 1)
    if begin is not None and x.shape.ndims is not None and y.shape.ndims is not None:
        after = [None if d is None or n is None else d - int(b) - n
                 for d, b, n in zip(x.shape.as_list(), begin.tolist(), y.shape.as_list())]
        if None not in after:
            return [pad(grad, [[int(b), a] for b, a in zip(begin.tolist(), after)]), *nones]
    if bt is None:
        bt = convert_to_tensor(np.asarray(begin, np.int32), name="begin")
    after = shape_of(x, out_type=bt.dtype) - shape_of(y, out_type=bt.dtype) - bt
    out = pad(grad, stack([bt, after], axis=1))
    out.set_shape(x.shape)
    return [out, *nones]


@tf_export("slice")
def slice(input_, begin, size, name=None):  # noqa: A001 - TF1 name
    """The block of ``input_`` that starts at ``begin`` with ``size`` (-1: to the end)."""
    with name_scope(name, "Slice", [input_, begin, size]) as scope:
        x = convert_to_tensor(input_, name="input")
        inputs, attrs = split_index_args({"begin": begin, "size": size})
        return apply_op("Slice", [x, *inputs], attrs, name=scope).outputs[0]


# -- StridedSlice -----------------------------------------------------------------------------------

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _numpy_index(begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask):
    """The numpy basic index equivalent to a strided-slice spec."""
    index = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            index.append(Ellipsis)
        elif new_axis_mask & bit:
            index.append(None)
        elif shrink_axis_mask & bit:
            index.append(b)
        else:
            index.append(_py_slice(None if begin_mask & bit else b, None if end_mask & bit else e, s))
    return tuple(index)


def _strided_slice_shape(shape: list, begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                         shrink_axis_mask) -> list:
    """TF1's StridedSlice shape function for a known-rank ``shape`` (dims may be None).

    ``begin``/``end`` may be None (not known at graph time); ``strides`` is known.
    """
    rank, n = len(shape), len(strides)
    if ellipsis_mask & (ellipsis_mask - 1):
        raise ValueError("Multiple ellipses in slice spec not allowed")
    known = begin is not None and end is not None  # TF1 canonicalises only when both are
    begin = [0] * n if begin is None else list(begin)
    end = [0] * n if end is None else list(end)
    strides = list(strides)
    if not ellipsis_mask:  # an implicit ellipsis at the end
        ellipsis_mask |= 1 << n
        begin, end, strides, n = begin + [0], end + [0], strides + [1], n + 1
    after = sum(1 for i in range(n) if new_axis_mask & (1 << i) and ellipsis_mask & ((1 << i) - 1))
    dense, gather, full = [], [], 0
    for i in range(n):
        bit = 1 << i
        if ellipsis_mask & bit:
            stop = min(rank - (n - i) + 1 + after, rank)
            while full < stop:
                dense.append((0, 0, 1, True, True, False))
                gather.append(full)
                full += 1
        elif new_axis_mask & bit:
            gather.append("new")
        else:
            if full >= rank:
                if rank == 0:
                    raise ValueError("Attempting to slice scalar input.")
                raise ValueError(f"Index out of range using input dim {full}; input has only {rank} dims")
            shrink = bool(shrink_axis_mask & bit)
            dense.append((begin[i], end[i], strides[i], bool(begin_mask & bit), bool(end_mask & bit), shrink))
            gather.append("shrink" if shrink else full)
            full += 1
    sizes = []
    for i, (b, e, s, bm, em, shrink) in enumerate(dense):
        if s == 0:
            raise ValueError(f"strides[{i}] must be non-zero")
        d = shape[i]
        if d is None:
            sizes.append(1 if shrink else None)
            continue
        if shrink:
            if known:
                fwd = b + d if b < 0 else b
                if not 0 <= fwd < d:
                    raise ValueError(f"slice index {fwd} of dimension {i} out of bounds.")
            sizes.append(1)
            continue
        if not known:
            interval = (-d if s < 0 else d) if bm and em else None
        else:
            interval = _canonical(e, em, 1, s, d) - _canonical(b, bm, 0, s, d)
        if interval is None:
            sizes.append(None)
        elif interval == 0 or (interval < 0) != (s < 0):
            sizes.append(0)
        else:
            sizes.append(interval // s + (1 if interval % s else 0))
    return [1 if g == "new" else sizes[g] for g in gather if g != "shrink"]


def _canonical(x: int, masked: bool, c: int, stride: int, d: int) -> int:
    """TF1's canonical begin (c=0) or end (c=1) of a range over a dimension of size d."""
    lo, hi = (0, d) if stride > 0 else (-1, d - 1)
    if masked:
        return (lo, hi)[c] if stride > 0 else (lo, hi)[(c + 1) & 1]
    return max(lo, min(hi, x + d if x < 0 else x))


def _strided_slice_infer(op):
    x = op._inputs[0]
    masks = {m: op._attrs[m] for m in _MASKS}
    values, length = [], None
    for name, position in (("begin", 1), ("end", 2), ("strides", 3)):
        v, t = index_arg(op, name, position)
        s = TensorShape(v.shape) if v is not None else t.shape
        if s.ndims is not None:
            with_rank(s, 1)
            n = s[0].value
            if n is not None:
                if length is not None and n != length:
                    raise ValueError(f"Dimension 0 in both shapes must be equal, but are {length} and {n}. "
                                     f"Shapes are [{length}] and [{n}].")
                length = n
        values.append(None if v is None else [int(a) for a in v])
    begin, end, strides = values
    if x.shape.ndims is None or length is None or strides is None:
        return [(x.dtype, TensorShape(None))]
    return [(x.dtype, TensorShape(_strided_slice_shape(x.shape.as_list(), begin, end, strides, **masks)))]


def _strided_slice_kernel(input, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,  # noqa: A002
                          new_axis_mask=0, shrink_axis_mask=0, index=None):
    masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    if index is None:
        begin, end, strides = kernel_ints(begin), kernel_ints(end), kernel_ints(strides)
        if 0 in strides:
            raise _invalid(f"strides[{strides.index(0)}] must be non-zero")
        index = _numpy_index(begin, end, strides, *masks)
    if isinstance(input, (bytes, str)):  # a scalar string element of a tf.data pipeline
        input = np.asarray(input, dtype=object)  # noqa: A001
    try:
        return input[index]
    except IndexError:
        try:
            _strided_slice_shape(list(input.shape), begin, end, strides, *masks)
        except ValueError as e:
            raise _invalid(str(e)) from None
        raise


register("StridedSlice", infer=_strided_slice_infer, kernel=_strided_slice_kernel)


@gradient("StridedSlice")
def _strided_slice_grad(op, grad):
    """``StridedSliceGrad``: ``grad`` written into zeros of the input's shape at the sliced positions."""
    x = op._inputs[0]
    attrs = dict(op._attrs)
    if "begin" in attrs and x.shape.is_fully_defined():
        inputs = [grad]
        attrs["shape"] = tuple(x.shape.as_list())
    else:  # the shape is an input, followed by begin, end, strides when those are tensors
        index_dtype = op._inputs[1].dtype if len(op._inputs) > 1 else dtypes.int32
        inputs = [grad, shape_of(x, out_type=index_dtype), *op._inputs[1:]]
    out = apply_op("StridedSliceGrad", inputs, attrs).outputs[0]
    return [out] + [None] * (len(op._inputs) - 1)


def _strided_slice_grad_infer(op):
    dy = op._inputs[0]
    if "shape" in op._attrs:
        return [(dy.dtype, TensorShape(list(op._attrs["shape"])))]
    return [(dy.dtype, shape_from_tensor(op._inputs[1]))]


def _strided_slice_grad_kernel(dy, shape=None, begin=None, end=None, strides=None, begin_mask=0, end_mask=0,
                               ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, index=None):
    if index is None:
        begin, end, strides = kernel_ints(begin), kernel_ints(end), kernel_ints(strides)
        if 0 in strides:
            raise _invalid(f"strides[{strides.index(0)}] must be non-zero")
        index = _numpy_index(begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                             shrink_axis_mask)
    out = array_module(dy).zeros(kernel_ints(shape), dtype=dy.dtype)
    out[index] = dy
    return out


register("StridedSliceGrad", infer=_strided_slice_grad_infer, kernel=_strided_slice_grad_kernel)


@gradient("StridedSliceGrad")
def _strided_slice_grad_grad(op, grad):
    """The same slice of ``grad``."""
    attrs = {k: v for k, v in op._attrs.items() if k != "shape"}
    data = op._inputs[2:] if "shape" not in op._attrs else []
    out = apply_op("StridedSlice", [grad, *data], attrs).outputs[0]
    return [out] + [None] * (len(op._inputs) - 1)


@register_folder("StridedSlice")
def _fold_strided_slice(t):
    """Constant folding, plus TF1's ``tf.shape(x)[i]`` for a known dimension of a partly known shape."""
    op = t.op
    x = op.inputs[0]
    if x.op.type == "Shape" and "index" in op._attrs and x.op.inputs[0].shape.ndims is not None:
        dims = np.array(x.op.inputs[0].shape.as_list(), dtype=object)
        try:
            part = dims[op._attrs["index"]]
        except IndexError:
            return None
        if all(d is not None for d in np.ravel(part)):
            return np.asarray(part.tolist() if isinstance(part, np.ndarray) else part, dtype=t.dtype.as_numpy_dtype)
    values = [constant_value(i) for i in op.inputs]
    if any(v is None or np.size(v) > _FOLD_LIMIT for v in values):
        return None
    try:
        return np.asarray(op._opdef.bind(op, None)(*values), dtype=t.dtype.as_numpy_dtype)
    except Exception:  # a bad slice is reported when the op runs
        return None


@tf_export("strided_slice")
def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    """TF1's generalised Python slicing; most code writes ``t[3:7, ..., tf.newaxis]`` instead.

    >>> import dflow as tf
    >>> tf.strided_slice(tf.zeros([4, 5]), [1, 0], [3, 5], [1, 2]).shape
    TensorShape([2, 3])
    """
    with name_scope(name, "StridedSlice", [input_, begin, end, strides]) as scope:
        x = convert_to_tensor(input_, name="input")
        if strides is None:
            if isinstance(begin, Tensor):
                from dflow.ops.array.creation_ops import ones_like

                strides = ones_like(begin)
            else:
                strides = [1] * len(begin)
        inputs, attrs = split_index_args({"begin": begin, "end": end, "strides": strides})
        masks = {m: int(v) for m, v in zip(_MASKS, (begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                                                    shrink_axis_mask))}
        if attrs:
            for k in ("begin", "end", "strides"):
                if not isinstance(attrs[k], tuple) or any(isinstance(a, tuple) for a in attrs[k]):
                    raise ValueError(f"Shape must be rank 1 but is rank {np.ndim(attrs[k])}")
            if len(attrs["strides"]) == len(attrs["begin"]) == len(attrs["end"]) and 0 not in attrs["strides"]:
                attrs["index"] = _numpy_index(attrs["begin"], attrs["end"], attrs["strides"], **masks)
        return apply_op("StridedSlice", [x, *inputs], {**attrs, **masks}, name=scope).outputs[0]


_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 "
                     "tensors are valid indices")


def _check_index(idx):
    """TF1's ``_check_index``: ints, Dimensions and scalar int32/int64 tensors or numpy values."""
    if isinstance(idx, (int, Dimension)):
        return
    dtype = getattr(idx, "dtype", None)
    try:
        dt = dtypes.as_dtype(dtype) if dtype is not None else None
    except TypeError:
        dt = None
    shape = getattr(idx, "shape", None)
    ndims = shape.ndims if isinstance(shape, TensorShape) else np.ndim(idx)
    if dt not in INDEX_DTYPES or ndims not in (None, 0):
        raise TypeError(f"{_SLICE_TYPE_ERROR}, got {idx!r}")


def _index_value(idx):
    """An index as an int, or the tensor itself."""
    if isinstance(idx, Tensor):
        return idx
    if isinstance(idx, Dimension):
        if idx.value is None:
            raise TypeError(f"{_SLICE_TYPE_ERROR}, got an unknown Dimension")
        return idx.value
    return int(idx)


def _slice_helper(tensor, slice_spec, var=None):
    """``Tensor.__getitem__``: numpy basic indexing lowered to one ``StridedSlice``.

    >>> import dflow as tf
    >>> tf.zeros([4, 5, 6])[1:, ..., tf.newaxis, -1].shape
    TensorShape([3, 5, 1])
    """
    if isinstance(slice_spec, bool) or (isinstance(slice_spec, Tensor) and slice_spec.dtype is dtypes.bool) or \
            (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool):
        return boolean_mask(tensor=tensor, mask=slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for index, s in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(s, _py_slice):
            # Python 2 style sys.maxsize bounds mean "to the end", as in TF1.
            if s.start is not None and (isinstance(s.start, Tensor) or s.start != sys.maxsize):
                _check_index(s.start)
                begin.append(_index_value(s.start))
            else:
                begin.append(0)
                begin_mask |= bit
            if s.stop is not None and (isinstance(s.stop, Tensor) or s.stop != sys.maxsize):
                _check_index(s.stop)
                end.append(_index_value(s.stop))
            else:
                end.append(0)
                end_mask |= bit
            if s.step is not None:
                _check_index(s.step)
                strides.append(_index_value(s.step))
            else:
                strides.append(1)
        elif s is Ellipsis or s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            if s is None:
                new_axis_mask |= bit
            else:
                ellipsis_mask |= bit
        else:
            _check_index(s)
            s = _index_value(s)
            begin.append(s)
            # A shrinking index ignores its end; TF1 computes s + 1 (an Add op for a tensor index).
            end.append(0 if isinstance(s, Tensor) else s + 1)
            strides.append(1)
            shrink_axis_mask |= bit
    with name_scope(None, "strided_slice", [tensor] + begin + end + strides) as name:
        if any(isinstance(v, Tensor) for v in begin + end + strides):
            begin, end, strides = stack(begin), stack(end), stack(strides)
        return strided_slice(tensor, begin, end, strides, begin_mask=begin_mask, end_mask=end_mask,
                             ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                             shrink_axis_mask=shrink_axis_mask, var=var, name=name)


Tensor.__getitem__ = _slice_helper


# -- ReverseV2, ReverseSequence ------------------------------------------------------------------


def _reverse_infer(op):
    x = op._inputs[0]
    value, t = index_arg(op, "axis", 1)
    if value is not None:
        if value.ndim != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {value.ndim}")
        r = x.shape.ndims
        if r is not None:
            seen = set()
            for i, a in enumerate(int(v) for v in value):
                if not -r <= a < r:
                    raise ValueError(f"'axis'[{i}] = {a} is out of valid range [0, {r - 1}]")
                a = a + r if a < 0 else a
                if a in seen:
                    raise ValueError(f"axis {a} specified more than once.")
                seen.add(a)
    elif t.shape.ndims is not None:
        with_rank(t.shape, 1)
    return [(x.dtype, x.shape)]


def _reverse_kernel(tensor, axis):
    axes = kernel_ints(axis)
    if not axes:
        return tensor
    r = tensor.ndim
    norm = [a + r if a < 0 else a for a in axes]
    for a, n in zip(axes, norm):
        if not 0 <= n < r:
            raise _invalid(f"'axis'[{axes.index(a)}] = {a} is out of valid range [0, {r - 1}]")
        if norm.count(n) > 1:
            raise _invalid(f"axis {n} specified more than once.")
    return array_module(tensor).flip(tensor, tuple(norm))


register("ReverseV2", infer=_reverse_infer, kernel=_reverse_kernel)


@gradient("ReverseV2")
def _reverse_grad(op, grad):
    axis, t = index_arg(op, "axis", 1)
    return [reverse(grad, axis.tolist() if t is None else t)] + [None] * (len(op._inputs) - 1)


@tf_export("reverse", "reverse_v2", "manip.reverse")
def reverse(tensor, axis, name=None):
    """``tensor`` with the dimensions in the list ``axis`` reversed (op ``ReverseV2``)."""
    with name_scope(name, "ReverseV2", [tensor, axis]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        inputs, attrs = split_index_args({"axis": axis})
        return apply_op("ReverseV2", [x, *inputs], attrs, name=scope).outputs[0]


def _reverse_sequence_infer(op):
    x, lengths = op._inputs
    seq, batch = op._attrs["seq_dim"], op._attrs["batch_dim"]
    ls = with_rank(lengths.shape, 1)
    s = x.shape
    if s.ndims is None:
        return [(x.dtype, TensorShape(None))]
    if batch >= s.ndims:
        raise ValueError(f"batch_dim must be < input rank: {batch} vs. {s.ndims}")
    if seq >= s.ndims:
        raise ValueError(f"seq_dim must be < input rank: {seq} vs. {s.ndims}")
    dims = s.as_list()
    d, n = dims[batch], ls[0].value
    if d is not None and n is not None and d != n:
        raise ValueError(f"Dimensions must be equal, but are {d} and {n}")
    dims[batch] = d if d is not None else n
    return [(x.dtype, TensorShape(dims))]


def _reverse_sequence_kernel(input, seq_lengths, seq_dim, batch_dim):  # noqa: A002 - TF1 argument name
    xp = array_module(input)
    if seq_dim == batch_dim:
        raise _invalid(f"seq_dim == batch_dim == {seq_dim}")
    lengths = xp.asarray(seq_lengths).astype(np.int64)
    if lengths.shape != (input.shape[batch_dim],):
        raise _invalid(f"Length of seq_lengths != input.dims({batch_dim}), ({lengths.shape[0]} vs. "
                       f"{input.shape[batch_dim]})")
    n = input.shape[seq_dim]
    for i, length in enumerate(np.asarray(host(lengths)).tolist()):
        if length > n:
            raise _invalid(f"seq_lens({i}) > input.dims({seq_dim})")
        if length < 0:
            raise _invalid(f"seq_lens({i}) < 0")
    y = xp.moveaxis(input, (batch_dim, seq_dim), (0, 1))
    pos = xp.arange(n)
    idx = xp.where(pos < lengths[:, None], lengths[:, None] - 1 - pos, pos)  # (batch, seq)
    out = xp.take_along_axis(y, idx.reshape(idx.shape + (1,) * (y.ndim - 2)), axis=1)
    return xp.moveaxis(out, (0, 1), (batch_dim, seq_dim))


register("ReverseSequence", infer=_reverse_sequence_infer, kernel=_reverse_sequence_kernel)


@gradient("ReverseSequence")
def _reverse_sequence_grad(op, grad):
    """Reversing the same prefixes again puts every element back."""
    lengths = op._inputs[1]
    a = op._attrs
    return [reverse_sequence(grad, lengths, seq_axis=a["seq_dim"], batch_axis=a["batch_dim"]), None]


@tf_export("reverse_sequence")
def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None, seq_dim=None,  # noqa: A002
                     batch_dim=None):
    """Reverses the first ``seq_lengths[i]`` entries along ``seq_axis`` of each batch entry ``i``."""
    if seq_dim is not None:
        if seq_axis is not None:
            raise ValueError("Cannot specify both 'seq_axis' and 'seq_dim'")
        seq_axis = seq_dim
    if batch_dim is not None:
        if batch_axis is not None:
            raise ValueError("Cannot specify both 'batch_axis' and 'batch_dim'")
        batch_axis = batch_dim
    if seq_axis is None:
        raise TypeError("reverse_sequence() missing required argument: 'seq_axis'")
    with name_scope(name, "ReverseSequence", [input, seq_lengths]) as scope:
        x = convert_to_tensor(input, name="input")
        lengths = index_tensor(seq_lengths, "seq_lengths")
        attrs = {"seq_dim": int(seq_axis), "batch_dim": 0 if batch_axis is None else int(batch_axis)}
        return apply_op("ReverseSequence", [x, lengths], attrs, name=scope).outputs[0]

