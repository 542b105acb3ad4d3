"""TF1's array ops: stacking, joining and splitting here; the rest by concept.

``import dflow`` imports this module, which imports its siblings:

- ``shape_ops``: shape, size, rank, reshape, expand_dims, squeeze, transpose
- ``tiling_ops``: tile, broadcast_to, pad
- ``slicing_ops``: ``Tensor.__getitem__``, slice, strided_slice, reverse, reverse_sequence
- ``gather_ops``: gather, gather_nd, boolean_mask
- ``creation_ops``: zeros, ones, *_like, fill, range, linspace, one_hot, sequence_mask, meshgrid
- ``diag_ops``: eye, matrix_diag, matrix_diag_part, matrix_set_diag
- ``sort_ops``: sort, argsort, top_k, unique

Every op keeps TF1's op type and default name (``tf.stack`` makes ``Pack``
named ``stack``). Where TF1 builds a small graph of several ops, dflow runs
one kernel, named so that the returned tensor has TF1's name (``tf.sort``
returns ``sort/Neg_1:0``). Index arguments follow ``index_args``: static
values are attrs, tensors are trailing inputs.
"""

from __future__ import annotations

import builtins
import itertools

import numpy as np

from dflow._api import export_value, tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import constant, convert_to_tensor, register_tensor_conversion_function
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.framework.tensor_shape import Dimension, TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops._common import same_as_input
from dflow.ops.array import shape_ops  # noqa: F401 - registers the shape ops
from dflow.ops.array.index_args import (
    convert_same_dtype,
    dims_str,
    index_arg,
    kernel_int,
    kernel_ints,
    merge_shapes,
    split_index_args,
    static_ints,
    with_rank,
    with_rank_at_least,
)
from dflow.ops.control_flow.control_flow_ops import identity

export_value("newaxis", None)

_py_slice = builtins.slice  # array_ops.slice is tf.slice, as in TF1




# -- Pack (stack) and TF1's autopacking of lists that hold tensors -----------------------


def _pack_infer(op):
    merged = TensorShape(None)
    inputs = op._inputs
    for i in range(len(inputs) - 1, -1, -1):  # TF1 merges from the last input, naming the first bad one
        try:
            merged = merge_shapes(inputs[i].shape, merged)
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    if merged.ndims is None:
        return [(inputs[0].dtype, TensorShape(None))]
    r, axis = merged.ndims, op._attrs["axis"]
    if not -r - 1 <= axis < r + 1:
        raise ValueError(f"Invalid axis: {axis}; must be in [{-r - 1},{r + 1})")
    dims = merged.as_list()
    dims.insert(axis if axis >= 0 else axis + r + 1, len(inputs))
    return [(inputs[0].dtype, TensorShape(dims))]


def _pack_kernel(*values, axis):
    xp = array_module(*values)
    if xp is not np:
        values = [xp.asarray(v) for v in values]
    try:
        return xp.stack(values, axis)
    except ValueError:
        shapes = [tuple(np.shape(v)) for v in values]
        bad = next(i for i, s in enumerate(shapes) if s != shapes[0])
        raise _invalid(f"Shapes of all inputs must match: values[0].shape = {dims_str(shapes[0])} != "
                       f"values[{bad}].shape = {dims_str(shapes[bad])}") from None


register("Pack", infer=_pack_infer, kernel=_pack_kernel)


@gradient("Pack")
def _pack_grad(op, grad):
    return unstack(grad, num=len(op._inputs), axis=op._attrs["axis"])

_PLAIN = (int, float, complex, bool, str, bytes, np.generic, np.ndarray)


def _is_plain(value) -> bool:
    """True when ``value`` holds only Python/numpy values (TF1's ``_should_not_autopack``)."""
    if isinstance(value, (list, tuple)):
        return all(_is_plain(v) for v in value)
    return isinstance(value, _PLAIN) or value is None


def _tensor_like_dtype(v):
    """The dtype of a Tensor, or of a tensor-like object such as a Variable; else None."""
    if isinstance(v, Tensor):
        return v.dtype
    if _is_plain(v):
        return None
    try:
        return dtypes.as_dtype(v.dtype)
    except (AttributeError, TypeError):
        return None


def _nested_dtype(value):
    for v in value:
        dt = _nested_dtype(v) if isinstance(v, (list, tuple)) else _tensor_like_dtype(v)
        if dt is not None:
            return dt
    return None


def _autopack(values, dtype, name: str) -> Tensor:
    """One ``Pack`` op named ``name`` for a (nested) list holding tensors, as TF1 packs it."""
    with name_scope(name) as scope:
        elems = []
        for i, v in enumerate(values):
            if isinstance(v, Tensor):
                if v.dtype is not dtype:
                    raise TypeError(f"Cannot convert a list containing a tensor of dtype {v.dtype.name} to "
                                    f"{dtype.name} (Tensor is: {v!r})")
            elif isinstance(v, (list, tuple)) and not _is_plain(v):
                v = _autopack(v, dtype, str(i))
            elif _tensor_like_dtype(v) is not None:
                v = convert_to_tensor(v)
            else:
                v = convert_to_tensor(v, dtype=dtype, name=str(i))
            elems.append(v)
        return apply_op("Pack", elems, {"axis": 0}, name=scope).outputs[0]


def _cast_tensors(value, dtype):
    dt = _tensor_like_dtype(value)
    if dt is not None and dt is not dtype:
        from dflow.ops.math import math_ops  # Cast is a math op; loaded by the time graphs are built

        return math_ops.cast(convert_to_tensor(value), dtype)
    if isinstance(value, (list, tuple)):
        return [_cast_tensors(v, dtype) for v in value]
    return value


def _autopacking_conversion(value, dtype=None, name=None, as_ref=False):
    """``convert_to_tensor`` for lists that hold tensors: one Pack (TF1 registers the same)."""
    if as_ref or _is_plain(value):
        return NotImplemented
    inferred = _nested_dtype(value)
    if inferred is None:
        return NotImplemented
    if dtype is None:
        dtype = inferred
    else:
        dtype = dtypes.as_dtype(dtype)
        if dtype is not inferred:
            value = _cast_tensors(value, dtype)
    return _autopack(value, dtype, name or "packed")


register_tensor_conversion_function((list, tuple), _autopacking_conversion, 99)


@tf_export("stack")
def stack(values, axis=0, name="stack"):
    """Stacks rank-R tensors into one rank-(R+1) tensor (op ``Pack``).

    >>> import dflow as tf
    >>> tf.stack([tf.zeros([2]), tf.ones([2])], axis=1).shape
    TensorShape([2, 2])
    """
    if axis == 0:
        # As TF1: values that are all constants become one Const, a Tensor is returned as is.
        if isinstance(values, Tensor):
            return values
        if _is_plain(values):
            return constant(values, name=name)
        return convert_to_tensor(values, name=name)
    values = list(values)
    if values and not isinstance(values[0], Tensor):
        # TF1 converts values[0] under the op's own name to check the axis, so the
        # Pack op of a Python first value is named "stack_1".
        values[0] = convert_to_tensor(values[0], name=name)
    with name_scope(name, "stack", values) as scope:
        xs = convert_same_dtype(values, "Pack")
        s = xs[0].shape
        if s.ndims is not None and not -s.ndims - 1 <= axis < s.ndims + 1:
            raise ValueError(f"axis = {axis} not in [{-s.ndims - 1}, {s.ndims + 1})")
        return apply_op("Pack", xs, {"axis": axis}, name=scope).outputs[0]


# -- Unpack (unstack) ------------------------------------------------------------------------


def _unpack_infer(op):
    x = op._inputs[0]
    num, axis = op._attrs["num"], op._attrs["axis"]
    s = x.shape
    if s.ndims is None:
        return [(x.dtype, TensorShape(None))] * num
    r = s.ndims
    if not -r <= axis < r:
        raise ValueError(f"Invalid axis: {axis}; must be in [{-r},{r})")
    dims = s.as_list()
    d = dims.pop(axis)
    if d is not None and d != num:
        raise ValueError(f"Dimension must be {num} but is {d}")
    return [(x.dtype, TensorShape(dims))] * num


def _unpack_kernel(value, num, axis):
    r = value.ndim
    if not -r <= axis < r:
        raise _invalid(f"axis = {axis} not in [{-r}, {r})")
    if value.shape[axis] != num:
        raise _invalid(f"Input shape axis {axis} must equal {num}, got shape {dims_str(value.shape)}")
    if axis % r:
        value = array_module(value).moveaxis(value, axis, 0)
    parts = tuple(value)
    return parts[0] if num == 1 else parts


register("Unpack", infer=_unpack_infer, kernel=_unpack_kernel)


@gradient("Unpack")
def _unpack_grad(op, *grads):
    return [stack(list(grads), axis=op._attrs["axis"])]


@tf_export("unstack")
def unstack(value, num=None, axis=0, name="unstack"):
    """Splits ``value`` along ``axis`` into ``num`` tensors of one rank less (op ``Unpack``)."""
    if num is None:
        value = convert_to_tensor(value)
        s = value.shape
        if s.ndims is not None:
            if not -s.ndims <= axis < s.ndims:
                raise ValueError(f"axis = {axis} not in [{-s.ndims}, {s.ndims})")
            num = s[axis].value
        if num is None:
            raise ValueError(f"Cannot infer num from shape {s}")
    with name_scope(name, "unstack", [value]) as scope:
        value = convert_to_tensor(value, name="value")
        return list(apply_op("Unpack", [value], {"num": int(num), "axis": int(axis)}, name=scope).outputs)


# -- ConcatV2 ----------------------------------------------------------------------------------


def _concat_parts(op):
    return op._inputs if "axis" in op._attrs else op._inputs[:-1]


def _concat_infer(op):
    parts = _concat_parts(op)
    dtype = parts[0].dtype
    axis, t = index_arg(op, "axis", len(op._inputs) - 1)
    if t is not None and t.shape.ndims is not None:
        with_rank(t.shape, 0)
    ranks = [p.shape.ndims for p in parts if p.shape.ndims is not None]
    if not ranks:
        return [(dtype, TensorShape(None))]
    r = ranks[0]
    if axis is None:
        for other in ranks:
            with_rank(TensorShape([None] * other), r)
        return [(dtype, TensorShape([None] * r))]
    a = int(axis)
    for p in parts:
        with_rank_at_least(p.shape, -a if a < 0 else a + 1)
    for p in parts:
        if p.shape.ndims is not None:
            with_rank(p.shape, r)
    a = a + r if a < 0 else a
    last = parts[-1].shape if parts[-1].shape.ndims is not None else TensorShape([None] * r)
    before, middle, after = last[:a], last[a].value, last[a + 1:]
    for p in reversed(parts[:-1]):  # TF1 merges from the last input
        s = p.shape if p.shape.ndims is not None else TensorShape([None] * r)
        before = merge_shapes(s[:a], before)
        after = merge_shapes(s[a + 1:], after)
        middle = None if middle is None or s[a].value is None else middle + s[a].value
    return [(dtype, before.concatenate([middle]).concatenate(after))]


def _concat_error(values, axis: int) -> errors.InvalidArgumentError:
    shapes = [tuple(np.shape(v)) for v in values]
    r = len(shapes[0])
    if r == 0:
        return _invalid("ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    if not -r <= axis < r:
        return _invalid(f"ConcatOp : Expected concatenating dimensions in the range [{-r}, {r}), but got {axis}")
    a = axis % r
    for i, s in enumerate(shapes[1:], 1):
        if len(s) != r:
            return _invalid(f"ConcatOp : Ranks of all input tensors should match: shape[0] = "
                            f"{dims_str(shapes[0])} vs. shape[{i}] = {dims_str(s)}")
        for j in range(r):
            if j != a and s[j] != shapes[0][j]:
                return _invalid(f"ConcatOp : Dimensions of inputs should match: shape[0] = "
                                f"{dims_str(shapes[0])} vs. shape[{i}] = {dims_str(s)}")
    return _invalid("ConcatOp : invalid inputs")


def _concat_kernel(*values, axis=None):
    if axis is None:
        values, axis = values[:-1], kernel_int(values[-1])
    xp = array_module(*values)
    if xp is not np:
        values = [xp.asarray(v) for v in values]
    try:
        return xp.concatenate(values, axis)
    except ValueError:
        raise _concat_error(values, axis) from None


register("ConcatV2", infer=_concat_infer, kernel=_concat_kernel)


@gradient("ConcatV2")
def _concat_grad(op, grad):
    """``grad`` split back into the inputs' sizes along the axis: one SplitV when they are static."""
    from dflow.ops.math.math_ops import floormod

    parts = _concat_parts(op)
    axis, t = index_arg(op, "axis", len(op._inputs) - 1)
    r = next((p.shape.ndims for p in parts if p.shape.ndims is not None), None)
    if axis is not None and r is not None:
        a = int(axis) % r
        sizes = [p.shape[a].value if p.shape.ndims is not None else None for p in parts]
        if sizes.count(None) <= 1:
            grads = split(grad, [-1 if n is None else n for n in sizes], axis=a)
        else:
            grads = split(grad, stack([gather(shape(p), a) for p in parts]), axis=a, num=len(parts))
    else:
        a = floormod(t if axis is None else int(axis), rank(parts[0]))
        grads = split(grad, stack([gather(shape(p), a) for p in parts]), axis=a, num=len(parts))
    for g, p in zip(grads, parts):
        g.set_shape(p.shape)
    return grads + [None] * (len(op._inputs) - len(parts))


@tf_export("concat")
def concat(values, axis, name="concat"):
    """Joins tensors along ``axis`` (op ``ConcatV2``; one tensor passes through ``Identity``).

    >>> import dflow as tf
    >>> tf.concat([tf.zeros([2, 3]), tf.zeros([2, 1])], 1).shape
    TensorShape([2, 4])
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with name_scope(name):
            if isinstance(axis, Tensor):
                if axis.shape.ndims not in (None, 0):
                    raise ValueError(f"Shape {axis.shape} must have rank 0")
            elif np.ndim(static_ints(axis, "concat_dim")) != 0:
                raise ValueError(f"Shape ({np.size(axis)},) must have rank 0")
            return identity(values[0], name=name)
    with name_scope(name, "concat", list(values)) as scope:
        xs = convert_same_dtype(list(values), "ConcatV2")
        inputs, attrs = split_index_args({"axis": axis}, scalars=("axis",))
        return apply_op("ConcatV2", xs + inputs, attrs, name=scope).outputs[0]


# -- Split, SplitV ---------------------------------------------------------------------------


def _split_axis(op, position: int, ndims):
    """The split axis if known (non-negative), checked against the input's ``ndims``."""
    value, t = index_arg(op, "axis", position)
    if t is not None and t.shape.ndims is not None:
        with_rank(t.shape, 0)
    if value is None:
        return None
    a = int(value)
    if ndims is None:
        return a if a >= 0 else None
    if not -ndims <= a < ndims:
        raise ValueError(f"Dimension size, given by scalar input {a} must be in range [{-ndims}, {ndims})")
    return a + ndims if a < 0 else a


def _split_infer(op):
    x = op._inputs[0]
    n = op._attrs["num_split"]
    s = x.shape
    a = _split_axis(op, 1, s.ndims)
    if a is None:
        return [(x.dtype, TensorShape(None) if s.ndims is None else TensorShape([None] * s.ndims))] * n
    with_rank_at_least(s, a + 1)
    if s.ndims is None:
        return [(x.dtype, TensorShape(None))] * n
    dims = s.as_list()
    if dims[a] is not None:
        if dims[a] % n:
            raise ValueError(f"Dimension size must be evenly divisible by {n} but is {dims[a]}\n\tNumber of ways "
                             f"to split should evenly divide the split dimension")
        dims[a] //= n
    return [(x.dtype, TensorShape(dims))] * n


def _split_views(value, axis: int, bounds: list) -> tuple:
    """Views of ``value`` between consecutive ``bounds`` along ``axis`` (cheaper than np.split)."""
    lead = (_py_slice(None),) * axis
    return tuple(value[lead + (_py_slice(lo, hi),)] for lo, hi in zip(bounds[:-1], bounds[1:]))


def _split_kernel(value, axis, num_split):
    a = axis if type(axis) is int else kernel_int(axis)
    r = value.ndim
    if not -r <= a < r:
        raise _invalid(f"-input rank(-{r}) <= split_dim < input rank ({r}), but got {a}")
    a = a + r if a < 0 else a
    n = value.shape[a]
    if n % num_split:
        raise _invalid(f"Number of ways to split should evenly divide the split dimension, but got split_dim {a} "
                       f"(size = {n}) and num_split {num_split}")
    if num_split == 1:
        return value
    step = n // num_split
    return _split_views(value, a, [step * i for i in range(num_split + 1)])


register("Split", infer=_split_infer, kernel=_split_kernel)


@gradient("Split")
def _split_grad(op, *grads):
    axis, t = index_arg(op, "axis", 1)
    out = concat(list(grads), int(axis) if t is None else t)
    out.set_shape(op._inputs[0].shape)
    return [out] + [None] * (len(op._inputs) - 1)


def _split_v_infer(op):
    x = op._inputs[0]
    n = op._attrs["num_split"]
    s = x.shape
    if s.ndims is None:
        return [(x.dtype, TensorShape(None))] * n
    if s.ndims == 0:
        raise ValueError("Can't split scalars")
    sizes, _ = index_arg(op, "size_splits", 1)
    a = _split_axis(op, 2, s.ndims)
    if a is None:
        return [(x.dtype, TensorShape([None] * s.ndims))] * n
    dims = s.as_list()
    if sizes is None:
        dims[a] = None
        return [(x.dtype, TensorShape(dims))] * n
    sizes = [int(v) for v in np.ravel(sizes)]
    if len(sizes) != n:
        raise ValueError(f"Length of size_splits should be equal to the number of outputs: {len(sizes)} vs. {n}")
    if sizes.count(-1) > 1:
        raise ValueError("size_splits can only have one -1")
    total = dims[a]
    known = sum(v for v in sizes if v != -1)
    if total is not None and (known > total if -1 in sizes else known != total):
        raise ValueError(f"can't split axis of size {total} into pieces of size {dims_str(sizes)}")
    out = []
    for v in sizes:
        d = list(dims)
        d[a] = (None if total is None else total - known) if v == -1 else v
        out.append((x.dtype, TensorShape(d)))
    return out


def _split_v_kernel(value, size_splits, axis, num_split):
    sizes = list(kernel_ints(size_splits))
    a = axis if type(axis) is int else kernel_int(axis)
    r = value.ndim
    if not -r <= a < r:
        raise _invalid(f"-input rank(-{r}) <= split_dim < input rank ({r}), but got {a}")
    a = a + r if a < 0 else a
    n = value.shape[a]
    if len(sizes) != num_split:
        raise _invalid(f"Length of size_splits should be equal to the number of outputs: {len(sizes)} vs. "
                       f"{num_split}")
    wild = [i for i, v in enumerate(sizes) if v == -1]
    known = sum(v for v in sizes if v != -1)
    if len(wild) > 1 or (known != n if not wild else known > n) or any(v < -1 for v in sizes):
        raise _invalid(f"Determined shape must either match input shape along split_dim exactly if fully "
                       f"specified, or be less than the size of the input along split_dim if not fully "
                       f"specified.  Got: {known}")
    if wild:
        sizes[wild[0]] = n - known
    parts = _split_views(value, a, [0, *itertools.accumulate(sizes)])
    return parts[0] if num_split == 1 else parts


register("SplitV", infer=_split_v_infer, kernel=_split_v_kernel)


@gradient("SplitV")
def _split_v_grad(op, *grads):
    axis, t = index_arg(op, "axis", 2)
    out = concat(list(grads), int(axis) if t is None else t)
    out.set_shape(op._inputs[0].shape)
    return [out] + [None] * (len(op._inputs) - 1)


@tf_export("split")
def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits ``value`` along ``axis`` into equal parts (``Split``) or parts of given sizes (``SplitV``).

    >>> import dflow as tf
    >>> [t.shape for t in tf.split(tf.zeros([2, 6]), [1, -1], 1)]
    [TensorShape([2, 1]), TensorShape([2, 5])]
    """
    with name_scope(name, "split", [value]) as scope:
        value = convert_to_tensor(value, name="value")
        if isinstance(num_or_size_splits, (int, np.integer, Dimension)) and not isinstance(num_or_size_splits, bool):
            n = int(num_or_size_splits.value if isinstance(num_or_size_splits, Dimension) else num_or_size_splits)
            inputs, attrs = split_index_args({"axis": axis}, scalars=("axis",))
            return list(apply_op("Split", [value, *inputs], {**attrs, "num_split": n}, name=scope).outputs)
        sizes = num_or_size_splits
        if isinstance(sizes, Tensor):
            if sizes.shape.ndims == 0:
                raise ValueError(f"Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
                                 f"Argument provided: {sizes}")
            if num is None:
                num = sizes.shape[0].value if sizes.shape.ndims == 1 else None
        elif not isinstance(sizes, (list, tuple)) and np.ndim(sizes) == 0:
            raise ValueError(f"Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
                             f"Argument provided: {sizes}")
        elif num is None:
            num = len(sizes)
        if num is None:
            raise ValueError(f"Cannot infer num from shape {sizes}")
        inputs, attrs = split_index_args({"size_splits": sizes, "axis": axis}, scalars=("axis",))
        op = apply_op("SplitV", [value, *inputs], {**attrs, "num_split": int(num)}, name=scope)
        return list(op.outputs)


# -- IdentityN, StopGradient -----------------------------------------------------------------------


def _identity_n_infer(op):
    return [(x.dtype, x.shape) for x in op._inputs]


register("IdentityN", infer=_identity_n_infer, kernel=lambda *xs: xs[0] if len(xs) == 1 else xs)


@gradient("IdentityN")
def _identity_n_grad(op, *grads):
    return list(grads)


@tf_export("identity_n")
def identity_n(input, name=None):  # noqa: A002 - TF1 argument name
    """The tensors of ``input``, passed through one ``IdentityN`` op."""
    with name_scope(name, "IdentityN", list(input)) as scope:
        xs = [convert_to_tensor(v) for v in input]
        return list(apply_op("IdentityN", xs, name=scope).outputs)


register("StopGradient", infer=same_as_input, kernel=lambda input: input)
not_differentiable("StopGradient")


@tf_export("stop_gradient")
def stop_gradient(input, name=None):  # noqa: A002 - TF1 argument name
    """``input`` unchanged, but gradients do not flow through it."""
    with name_scope(name, "StopGradient", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        return apply_op("StopGradient", [x], name=scope).outputs[0]


# The sibling modules import from this one, so they load last; their functions are
# also ``array_ops.<name>``, as in TF1 (``range`` lives in TF1's math_ops, and would
# shadow the builtin here).
from dflow.ops.array import creation_ops, gather_ops, slicing_ops, tiling_ops  # noqa: E402, F401
from dflow.ops.array.creation_ops import (  # noqa: E402, F401
    fill,
    linspace,
    meshgrid,
    one_hot,
    ones,
    ones_like,
    sequence_mask,
    zeros,
    zeros_like,
)
from dflow.ops.array.gather_ops import boolean_mask, gather, gather_nd  # noqa: E402, F401
from dflow.ops.array.shape_ops import (  # noqa: E402, F401
    expand_dims,
    rank,
    reshape,
    shape,
    shape_n,
    size,
    squeeze,
    transpose,
)
from dflow.ops.array.slicing_ops import reverse, reverse_sequence, slice, strided_slice  # noqa: E402, F401
from dflow.ops.array.tiling_ops import broadcast_to, pad, tile  # noqa: E402, F401
from dflow.ops.linalg import diag_ops  # noqa: E402, F401
from dflow.ops.linalg.diag_ops import eye, matrix_diag, matrix_diag_part, matrix_set_diag  # noqa: E402, F401
from dflow.ops.math import sort_ops  # noqa: E402, F401
from dflow.ops.math.sort_ops import argsort, sort, top_k, unique, unique_with_counts  # noqa: E402, F401
