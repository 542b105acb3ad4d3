"""Growing a tensor: tile, broadcast_to, pad (CONSTANT, REFLECT, SYMMETRIC), and their adjoints.

The gradient of a broadcast is a sum: ``SumToShape`` sums a gradient back to
the shape of one operand of a broadcasting op, and ``unbroadcast`` is the
helper every broadcasting gradient rule uses. It reads the shapes at graph
time and adds no op at all when nothing was broadcast, one ``SumToShape``
with a static target shape when the broadcast axes are known, and a
``Shape`` op feeding it only when they are not.
"""

from __future__ import annotations

import builtins

import numpy as np

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.kernels import blas as _blas
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array.index_args import (
    check_shape_values,
    dims_str,
    index_arg,
    kernel_ints,
    shape_from_tensor,
    split_index_args,
    with_rank,
)
from dflow.ops.array.shape_ops import requested_shape, reshape
from dflow.ops.array.shape_ops import shape as shape_of

# -- Tile ----------------------------------------------------------------------------------------


def _tile_infer(op):
    x = op._inputs[0]
    value, t = index_arg(op, "multiples", 1)
    if value is not None:
        if value.ndim != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {value.ndim}")
        check_shape_values(value)
        mult = TensorShape([None if m == -1 else int(m) for m in value.tolist()])
    else:
        if t.shape.ndims is not None:
            with_rank(t.shape, 1)
        mult = shape_from_tensor(t)
    s = x.shape
    if s.ndims is not None:
        mult = with_rank(mult, s.ndims)
    elif mult.ndims is not None:
        s = TensorShape([None] * mult.ndims)
    if s.ndims is None:
        return [(x.dtype, TensorShape(None))]
    dims = [None if d is None or m is None else d * m for d, m in zip(s.as_list(), mult.as_list())]
    return [(x.dtype, TensorShape(dims))]


def _tile_kernel(input, multiples):  # noqa: A002 - TF1 argument name
    if type(multiples) is not tuple:
        multiples = kernel_ints(multiples)
    if len(multiples) != input.ndim:
        raise _invalid(f"Expected multiples argument to be a vector of length {input.ndim} but got length "
                       f"{len(multiples)}")
    for i, m in enumerate(multiples):
        if m < 0:
            raise _invalid(f"Expected multiples[{i}] >= 0, but got {m}")
    return array_module(input).tile(input, multiples)


register("Tile", infer=_tile_infer, kernel=_tile_kernel)


@gradient("Tile")
def _tile_grad(op, grad):
    """Sums the tiled copies: ``grad`` viewed as ``[m0, d0, m1, d1, ...]``, summed over the ``m``s."""
    from dflow.ops.array.array_ops import stack
    from dflow.ops.array.shape_ops import transpose
    from dflow.ops.math.reduction_ops import reduce_sum

    x = op._inputs[0]
    multiples, t = index_arg(op, "multiples", 1)
    nones = [None] * (len(op._inputs) - 1)
    if multiples is not None and x.shape.is_fully_defined():
        split_shape, axes = [], []
        for m, d in zip(multiples.tolist(), x.shape.as_list()):
            if m != 1:  # an untiled dimension needs no axis of its own
                axes.append(len(split_shape))
                split_shape.append(m)
            split_shape.append(d)
        if not axes:
            return [grad, *nones]
        return [reduce_sum(reshape(grad, split_shape), axes), *nones]
    if t is None:
        t = convert_to_tensor(np.asarray(multiples, np.int32), name="multiples")
    split_shape = reshape(transpose(stack([t, shape_of(x, out_type=t.dtype)])), [-1])
    from dflow.ops.array.creation_ops import range as tf_range
    from dflow.ops.array.shape_ops import size

    out = reduce_sum(reshape(grad, split_shape), tf_range(0, size(split_shape), 2))
    out.set_shape(x.shape)
    return [out, *nones]


@tf_export("tile", "manip.tile")
def tile(input, multiples, name=None):  # noqa: A002 - TF1 argument name
    """Repeats ``input`` ``multiples[i]`` times along dimension ``i``."""
    with name_scope(name, "Tile", [input, multiples]) as scope:
        x = convert_to_tensor(input, name="input")
        inputs, attrs = split_index_args({"multiples": multiples})
        return apply_op("Tile", [x, *inputs], attrs, name=scope).outputs[0]


# -- Pad, PadV2, MirrorPad -----------------------------------------------------------------------


def _pad_infer(op):
    x = op._inputs[0]
    value, t = index_arg(op, "paddings", len(op._inputs) - 1)
    pshape = TensorShape(value.shape) if value is not None else t.shape
    if pshape.ndims is not None:
        with_rank(pshape, 2)
        if pshape[1].value is not None and pshape[1].value != 2:
            raise ValueError(f"Dimension must be 2 but is {pshape[1].value}")
    n = pshape[0].value if pshape.ndims is not None else None
    s = x.shape if n is None else with_rank(x.shape, n)
    if value is None:
        return [(x.dtype, TensorShape(None) if n is None else TensorShape([None] * n))]
    if (value < 0).any():
        raise ValueError("Paddings must be non-negative")
    dims = [None if d is None else d + int(p0) + int(p1) for d, (p0, p1) in zip(s.as_list(), value.tolist())]
    return [(x.dtype, TensorShape(dims))]


def _pad_pairs(input, paddings) -> tuple:  # noqa: A002 - TF1 argument name
    if type(paddings) is not tuple:
        flat = kernel_ints(paddings)
        paddings = tuple(zip(flat[0::2], flat[1::2]))
    if len(paddings) != input.ndim:
        raise _invalid(f"The first dimension of paddings must be the rank of inputs{dims_str([len(paddings), 2])} "
                       f"{dims_str(input.shape)}")
    for p0, p1 in paddings:
        if p0 < 0 or p1 < 0:
            raise _invalid(f"Paddings must be non-negative: {p0} {p1}")
    return paddings


def _pad_kernel(input, paddings):  # noqa: A002 - TF1 argument name
    return array_module(input).pad(input, _pad_pairs(input, paddings))


def _pad_v2_kernel(input, constant_values, paddings):  # noqa: A002 - TF1 argument name
    return array_module(input).pad(input, _pad_pairs(input, paddings), constant_values=constant_values)


def _mirror_pad_kernel(input, paddings, mode):  # noqa: A002 - TF1 argument name
    pairs = _pad_pairs(input, paddings)
    limit = 0 if mode == "REFLECT" else 1  # REFLECT needs pad < dim, SYMMETRIC pad <= dim
    for d, (p0, p1) in zip(input.shape, pairs):
        if max(p0, p1) > d - 1 + limit:
            word = "less than" if mode == "REFLECT" else "no greater than"
            raise _invalid(f"paddings must be {word} the dimension size: {p0}, {p1} "
                           f"{'not less than' if mode == 'REFLECT' else 'greater than'} {d}")
    return array_module(input).pad(input, pairs, mode=mode.lower())


register("Pad", infer=_pad_infer, kernel=_pad_kernel)
register("PadV2", infer=_pad_infer, kernel=_pad_v2_kernel)
register("MirrorPad", infer=_pad_infer, kernel=_mirror_pad_kernel)


@gradient("Pad")
@gradient("PadV2")
def _pad_grad(op, grad):
    """The unpadded middle of ``grad``; TF1 gives ``constant_values`` no gradient."""
    x = op._inputs[0]
    paddings, t = index_arg(op, "paddings", len(op._inputs) - 1)
    nones = [None] * (len(op._inputs) - 1)
    if paddings is not None:
        # grad[p0:-p1] per dimension: static, whatever x's shape.
        index = tuple(builtins.slice(int(p0), -int(p1) if p1 else None) for p0, p1 in paddings.tolist())
        out = grad[index]
    else:
        from dflow.ops.array.slicing_ops import slice as tf_slice

        out = tf_slice(grad, t[:, 0], shape_of(x, out_type=t.dtype))
    out.set_shape(x.shape)
    return [out, *nones]


def _mirror_pad_grad_infer(op):
    g = op._inputs[0]
    value, t = index_arg(op, "paddings", 1)
    if value is None or g.shape.ndims is None:
        n = t.shape[0].value if value is None and t.shape.ndims == 2 else g.shape.ndims
        return [(g.dtype, TensorShape(None) if n is None else TensorShape([None] * n))]
    dims = [None if d is None else d - int(p0) - int(p1) for d, (p0, p1) in zip(g.shape.as_list(), value.tolist())]
    return [(g.dtype, TensorShape(dims))]


def _mirror_pad_grad_kernel(input, paddings, mode):  # noqa: A002 - TF1 argument name
    """Folds the mirrored borders of a MirrorPad gradient back onto the values they copied."""
    xp = array_module(input)
    out = input
    shift = 1 if mode == "REFLECT" else 0  # REFLECT skips the edge value, SYMMETRIC repeats it
    for axis, (p0, p1) in enumerate(_pad_pairs(input, paddings)):
        if not p0 and not p1:
            continue
        g = xp.moveaxis(out, axis, 0)
        d = g.shape[0] - p0 - p1
        core = g[p0:p0 + d].copy()
        if p0:  # g[p0 - 1 - j] mirrors x[j + shift]
            core[shift:shift + p0] += g[p0 - 1::-1]
        if p1:  # g[p0 + d + j] mirrors x[d - 1 - shift - j]
            core[d - shift - p1:d - shift] += g[:p0 + d - 1:-1]
        out = xp.moveaxis(core, 0, axis)
    return out


register("MirrorPadGrad", infer=_mirror_pad_grad_infer, kernel=_mirror_pad_grad_kernel)


@gradient("MirrorPad")
def _mirror_pad_grad(op, grad):
    inputs = [grad, *op._inputs[1:]]
    out = apply_op("MirrorPadGrad", inputs, op._attrs).outputs[0]
    out.set_shape(op._inputs[0].shape)
    return [out] + [None] * (len(op._inputs) - 1)


@gradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op, grad):
    return [apply_op("MirrorPad", [grad, *op._inputs[1:]], op._attrs).outputs[0]] + [None] * (len(op._inputs) - 1)


def _is_zero(v) -> bool:
    return isinstance(v, (int, float, np.number)) and not isinstance(v, bool) and v == 0


@tf_export("pad")
def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """Pads ``tensor`` with ``paddings[i] = [before, after]`` in each dimension.

    ``mode`` is CONSTANT (``Pad``, or ``PadV2`` with ``constant_values``),
    REFLECT or SYMMETRIC (``MirrorPad``), in any case.
    """
    mode = mode.upper()
    if mode == "CONSTANT":
        op_type = "Pad" if not isinstance(constant_values, Tensor) and _is_zero(constant_values) else "PadV2"
    elif mode in ("REFLECT", "SYMMETRIC"):
        op_type = "MirrorPad"
    else:
        raise ValueError(f"Unknown padding mode: {mode}")
    with name_scope(name, op_type, [tensor, paddings, constant_values]) as scope:
        x = convert_to_tensor(tensor, name="input")
        data = [x]
        if op_type == "PadV2":
            cv = convert_to_tensor(constant_values, dtype=None if isinstance(constant_values, Tensor) else x.dtype,
                                   name="constant_values")
            if cv.dtype is not x.dtype:
                raise TypeError(f"Input 'constant_values' of 'PadV2' Op has type {cv.dtype.name} that does not "
                                f"match type {x.dtype.name} of argument 'input'.")
            if cv.shape.ndims is not None:
                with_rank(cv.shape, 0)
            data.append(cv)
        inputs, attrs = split_index_args({"paddings": paddings})
        if op_type == "MirrorPad":
            attrs["mode"] = mode
        return apply_op(op_type, data + inputs, attrs, name=scope).outputs[0]


# -- BroadcastTo --------------------------------------------------------------------------


def _broadcast_to_infer(op):
    x = op._inputs[0]
    out = requested_shape(op, "shape", 1)
    s = x.shape
    if out.ndims is None or s.ndims is None:
        return [(x.dtype, out)]
    if s.ndims > out.ndims:
        raise ValueError(f"Shape must be at most rank {out.ndims} but is rank {s.ndims}")
    dims = out.as_list()
    for i, d in enumerate(reversed(s.as_list())):
        j = len(dims) - 1 - i
        if d is not None and d > 1:  # only size-1 dimensions broadcast
            if dims[j] is not None and dims[j] != d:
                raise ValueError(f"Dimensions must be equal, but are {d} and {dims[j]}")
            dims[j] = d
    return [(x.dtype, TensorShape(dims))]


def _broadcast_to_kernel(input, shape):  # noqa: A002 - TF1 argument name
    if type(shape) is not tuple:
        shape = kernel_ints(shape)
    xp = array_module(input)
    if input.ndim == 0:
        return xp.full(shape, input, dtype=input.dtype)  # ~10x faster than broadcast_to for a scalar
    try:
        if input.size <= 1:
            # A copy by assignment costs ~1 us; broadcast_to's view ~8 us.
            out = xp.empty(shape, dtype=input.dtype)
            out[...] = input
            return out
        return xp.broadcast_to(input, shape)
    except ValueError:
        raise _invalid(f"Incompatible shapes: {dims_str(input.shape)} vs. {dims_str(shape)}") from None


register("BroadcastTo", infer=_broadcast_to_infer, kernel=_broadcast_to_kernel)


@gradient("BroadcastTo")
def _broadcast_to_grad(op, grad):
    return [unbroadcast(grad, op._inputs[0])] + [None] * (len(op._inputs) - 1)


@tf_export("broadcast_to")
def broadcast_to(input, shape, name=None):  # noqa: A002 - TF1 argument name
    """``input`` broadcast (numpy rules) to ``shape``."""
    with name_scope(name, "BroadcastTo", [input, shape]) as scope:
        x = convert_to_tensor(input, name="input")
        inputs, attrs = split_index_args({"shape": shape})
        return apply_op("BroadcastTo", [x, *inputs], attrs, name=scope).outputs[0]


def broadcast_like(t: Tensor, x: Tensor) -> Tensor:
    """``t`` broadcast to ``x``'s shape; ``t`` itself when it has that shape statically."""
    xs = x.shape
    if xs.is_fully_defined():
        if t.shape.is_fully_defined() and t.shape == xs:
            return t
        return broadcast_to(t, xs.as_list())
    return broadcast_to(t, shape_of(x))


# -- SumToShape: the adjoint of broadcasting ---------------------------------------------------


def _sum_to_shape_infer(op):
    g = op._inputs[0]
    value, t = index_arg(op, "shape", 1)
    if value is None:
        return [(g.dtype, shape_from_tensor(t))]
    dims = [int(d) for d in np.ravel(value)]
    lead = None if g.shape.ndims is None else g.shape.ndims - len(dims)
    if lead is not None and lead < 0:
        raise ValueError(f"Cannot sum a tensor of rank {g.shape.ndims} to rank {len(dims)}")
    out = [d if d != -1 else None if lead is None else g.shape[lead + i].value for i, d in enumerate(dims)]
    return [(g.dtype, TensorShape(out))]


def _sum_to_shape_kernel(input, shape):  # noqa: A002 - TF1 argument name
    """Sums ``input`` over the axes that broadcasting to its shape added or stretched.

    ``shape`` is the target shape; -1 marks a dimension known not to be broadcast.
    """
    if type(shape) is not tuple:
        shape = kernel_ints(shape)
    lead = input.ndim - len(shape)
    if lead < 0:
        raise _invalid(f"Cannot sum a tensor of shape {dims_str(input.shape)} to shape {dims_str(shape)}")
    axes = list(range(lead))
    for i, d in enumerate(shape):
        n = input.shape[lead + i]
        if d == 1 and n != 1:
            axes.append(lead + i)
        elif d not in (-1, n):
            raise _invalid(f"Cannot sum a tensor of shape {dims_str(input.shape)} to shape {dims_str(shape)}")
    if not axes:
        return input
    if axes == list(range(len(axes))):  # a bias's gradient: the leading axes
        by_product = _blas.sum_leading_axes(input, len(axes))
        if by_product is not None:
            return by_product.reshape((1,) * (len(axes) - lead) + by_product.shape)
    out = input.sum(axis=tuple(axes), dtype=input.dtype, keepdims=True)
    return out.reshape(out.shape[lead:])


register("SumToShape", infer=_sum_to_shape_infer, kernel=_sum_to_shape_kernel)


@gradient("SumToShape")
def _sum_to_shape_grad(op, grad):
    return [broadcast_like(grad, op._inputs[0])] + [None] * (len(op._inputs) - 1)


def _not_broadcast(axis_from_end: int, others) -> bool:
    """True when ``others`` are known and all have size 1 (or no dimension) ``axis_from_end`` from the end."""
    if not others:
        return False
    for o in others:
        s = o.shape
        if s.ndims is None:
            return False
        if s.ndims >= axis_from_end and s[-axis_from_end].value != 1:
            return False
    return True


def unbroadcast(grad: Tensor, x: Tensor, others=()) -> Tensor:
    """``grad`` (of a broadcast of ``x`` with the tensors ``others``) summed back to ``x``'s shape.

    TF1's ``BroadcastGradientArgs`` and ``Sum``/``Reshape``, decided at graph
    time where the shapes allow: no op when nothing was broadcast, one
    ``SumToShape`` otherwise (fed by a ``Shape`` op only when an unknown
    dimension of ``x`` may or may not have been stretched).

    >>> import dflow as tf
    >>> g = unbroadcast(tf.ones([4, 3]), tf.zeros([3]))
    >>> g.op.type, g.shape
    ('SumToShape', TensorShape([3]))
    """
    xs, gs = x.shape, grad.shape
    if xs.ndims is None:
        return _sum_to_shape(grad, shape_of(x))
    same_rank = gs.ndims == xs.ndims
    target, needed = [], not same_rank
    for i, d in enumerate(xs.as_list()):
        if d is None:
            if not _not_broadcast(xs.ndims - i, others):
                return _sum_to_shape(grad, shape_of(x))
            target.append(-1)  # x is as large as grad here
        else:
            target.append(d)
            needed = needed or gs[i].value != d
    return _sum_to_shape(grad, target) if needed else grad


def _sum_to_shape(grad: Tensor, target) -> Tensor:
    inputs, attrs = split_index_args({"shape": target})
    return apply_op("SumToShape", [grad, *inputs], attrs).outputs[0]
