"""Tensor contractions: ``tf.einsum`` (one ``Einsum`` op for any number of
operands) and ``tf.tensordot``.

The einsum equation is resolved once at graph construction (an implicit
output becomes explicit, as TF does) and stored as the op's ``equation``
attr; the shape rule checks every labelled dimension and broadcasts the
``...`` parts.
"""

from __future__ import annotations

import collections
import string

import numpy as np

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import apply_op, constant_value, gradient, register
from dflow.framework.tensor_shape import TensorShape, broadcast_shapes, unknown_shape
from dflow.kernels import array_module
from dflow.ops.array import array_ops
from dflow.ops.array.index_args import shape_from_tensor
from dflow.ops.linalg._linalg_common import (
    MATMUL_TYPES,
    NUMBER_TYPES,
    cast,
    check_dtype,
    conj,
    convert_same_type,
    dims_str,
    invalid,
    merge_dim,
    op_scope,
    static_dims,
)

_EINSUM_LABELS = frozenset(string.ascii_letters)


def _einsum_term(text: str, equation: str) -> list:
    """``"ab...c"`` → ``["a", "b", "...", "c"]``."""
    before, ellipsis, after = text.partition("...")
    for c in before + after:
        if c not in _EINSUM_LABELS:
            raise ValueError(f"Invalid character {c!r} in einsum equation {equation!r}")
    return list(before) + (["..."] if ellipsis else []) + list(after)


def parse_einsum(equation: str, n_inputs: int):
    """``(input terms, output term, resolved equation)``; an implicit output is
    numpy's: the labels used once, in alphabetical order, after any ellipsis."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum equation must be a string, got {equation!r}")
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = [_einsum_term(t, equation) for t in lhs.split(",")]
    if len(terms) != n_inputs:
        raise ValueError(f'Got {n_inputs} inputs for equation "{equation}", expecting {len(terms)}')
    if arrow:
        out = _einsum_term(rhs, equation)
    else:
        counts = collections.Counter(label for term in terms for label in term if label != "...")
        out = (["..."] if any("..." in t for t in terms) else []) + sorted(x for x, c in counts.items() if c == 1)
    used = {label for term in terms for label in term}
    for label in out:
        if label != "..." and label not in used:
            raise ValueError(f"Output subscripts contain the label {label} not present in the input subscripts.")
    if len(set(out)) != len(out):
        raise ValueError(f"Output subscripts contain a repeated label in equation {equation!r}")
    return terms, out, ",".join("".join(t) for t in terms) + "->" + "".join(out)


def _einsum_infer(op):
    equation = op._attrs["equation"]
    terms, out, _ = parse_einsum(equation, len(op._inputs))
    sizes: dict = {}
    ellipsis = TensorShape([])  # the broadcast shape of every input's "..." part
    for i, (term, t) in enumerate(zip(terms, op._inputs)):
        labels = [x for x in term if x != "..."]
        if t.shape.ndims is None:
            if "..." in term:
                ellipsis = unknown_shape()
            continue
        dims = t.shape.as_list()
        where = f" for {i}th input and equation: {equation}"
        if "..." in term:
            if len(dims) < len(labels):
                raise ValueError(f"Shape must be at least rank {len(labels)} but is rank {len(dims)}{where}")
            k = term.index("...")
            n_after = len(term) - k - 1
            ellipsis = broadcast_shapes(ellipsis, TensorShape(dims[k:len(dims) - n_after]))
            dims = dims[:k] + dims[len(dims) - n_after:]
        elif len(dims) != len(labels):
            raise ValueError(f"Shape must be rank {len(labels)} but is rank {len(dims)}{where}")
        for label, d in zip(labels, dims):
            sizes[label] = merge_dim(sizes.get(label), d)
    if "..." in out and ellipsis.ndims is None:
        return [(op._inputs[0].dtype, unknown_shape())]
    dims = []
    for label in out:
        dims.extend(ellipsis.as_list() if label == "..." else [sizes.get(label)])
    return [(op._inputs[0].dtype, TensorShape(dims))]


def _einsum_kernel(*inputs, equation):
    xp = array_module(*inputs)
    # Planning a contraction order (and using BLAS) costs ~15us: worth it for
    # three operands or big ones, not for the small products of a model step.
    optimize = len(inputs) > 2 or (len(inputs) == 2 and max(x.size for x in inputs) > 4096)
    out = xp.einsum(equation, *inputs, optimize=optimize)
    return cast(out, inputs[0].dtype)


register("Einsum", infer=_einsum_infer, kernel=_einsum_kernel)


@gradient("Einsum")
def _einsum_grad(op, grad):
    # Einsum is linear in each operand: the gradient of operand i is the einsum
    # of the output gradient with the other operands (conjugated), back to
    # operand i's labels. Labels only operand i has, repeated labels and
    # broadcast ``...`` dimensions need one more step (``_EinsumGradExpand``).
    terms, out, _ = parse_einsum(op.get_attr("equation"), len(op.inputs))
    operands = [conj(x) for x in op.inputs]
    grads = []
    for i, x in enumerate(op.inputs):
        others = [(t, v) for j, (t, v) in enumerate(zip(terms, operands)) if j != i]
        grads.append(_einsum_operand_grad(grad, out, terms[i], x, others))
    return grads


def _einsum_operand_grad(grad: Tensor, out: list, term: list, x: Tensor, others: list) -> Tensor:
    if "..." in out and "..." not in term:
        term = term + ["..."]  # x was broadcast along all of the output's "..." dimensions
    available = set(out).union(*(t for t, _ in others))
    kept = []
    for label in term:
        if label in available and label not in kept:
            kept.append(label)
    equation = ",".join("".join(t) for t in [out] + [t for t, _ in others]) + "->" + "".join(kept)
    partial = einsum(equation, grad, *(v for _, v in others))
    if kept == term and not _ellipsis_may_broadcast(term, x, out, grad):
        return partial
    attrs = {"source": "".join(kept), "target": "".join(term)}
    return apply_op("_EinsumGradExpand", [partial, array_ops.shape(x)], attrs).outputs[0]


def _ellipsis_dims(term: list, t: Tensor):
    """The static dims of ``t`` under ``...`` in ``term`` (None where unknown)."""
    if "..." not in term:
        return []
    if t.shape.ndims is None:
        return None
    k = term.index("...")
    return t.shape.as_list()[k:t.shape.ndims - (len(term) - k - 1)]


def _ellipsis_may_broadcast(term: list, x: Tensor, out: list, grad: Tensor) -> bool:
    """Whether x's ``...`` dimensions might be fewer or smaller than the output's."""
    dx, dg = _ellipsis_dims(term, x), _ellipsis_dims(out, grad)
    return dx is None or dg is None or None in dx or dx != dg


def _axis_names(term: list, n_ellipsis: int) -> list:
    names = []
    for label in term:
        names.extend([("...", i) for i in range(n_ellipsis)] if label == "..." else [label])
    return names


def _sum_ellipsis(partial, k: int, n: int, ellipsis: tuple):
    """``partial``'s ``n`` dimensions from ``k`` summed down to the ``ellipsis`` dims they broadcast from."""
    full = partial.shape[k:k + n]
    lead = n - len(ellipsis)
    axes = tuple(range(k, k + lead)) + tuple(
        k + lead + i for i, d in enumerate(ellipsis) if d == 1 and full[lead + i] != 1)
    if axes:
        partial = partial.sum(axis=axes, keepdims=True)
    return partial.reshape(partial.shape[:k] + ellipsis + partial.shape[k + n:])


def _einsum_grad_expand(partial, shape, source, target):
    """The adjoint of ``einsum(target -> source)``, onto a zero array of ``shape``:
    ``partial`` goes on the diagonals of ``target``'s repeated labels, is broadcast
    along the labels that ``source`` lacks, and its ``...`` dimensions are summed
    down to those of ``shape``."""
    xp = array_module(partial)
    shape = tuple(int(d) for d in shape.tolist())
    src, tgt = _einsum_term(source, source), _einsum_term(target, target)
    n_ellipsis = len(shape) - len(tgt) + ("..." in tgt)
    x_names = _axis_names(tgt, n_ellipsis)
    if "..." in src:
        ellipsis = tuple(d for name, d in zip(x_names, shape) if name[0] == "...")
        partial = _sum_ellipsis(partial, src.index("..."), partial.ndim - len(src) + 1, ellipsis)
    src_names = _axis_names(src, n_ellipsis)
    unique = list(dict.fromkeys(x_names))
    sizes = [shape[x_names.index(n)] for n in unique]
    partial = partial.transpose([src_names.index(n) for n in unique if n in src_names])
    partial = partial.reshape([size if n in src_names else 1 for n, size in zip(unique, sizes)])
    out = xp.zeros(shape, dtype=partial.dtype)
    # One strided view of ``out`` per unique label: a repeated label walks its diagonal.
    strides = [sum(st for name, st in zip(x_names, out.strides) if name == n) for n in unique]
    xp.lib.stride_tricks.as_strided(out, sizes, strides)[...] = partial
    return out


def _einsum_grad_expand_infer(op):
    partial, shape = op._inputs
    return [(partial.dtype, shape_from_tensor(shape))]


register("_EinsumGradExpand", infer=_einsum_grad_expand_infer, kernel=_einsum_grad_expand)


@tf_export("einsum", "linalg.einsum")
def einsum(equation, *inputs, **kwargs) -> Tensor:
    """Sums products of ``inputs`` over the labels that ``equation`` contracts.

    >>> import dflow as tf
    >>> x, y = tf.placeholder(tf.float32, [5, 2, 3]), tf.placeholder(tf.float32, [5, 3, 4])
    >>> tf.einsum("bij,bjk->bik", x, y).shape
    TensorShape([5, 2, 4])
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for this function: {', '.join(sorted(kwargs))}. "
                        f"Expected: name")
    with op_scope(name, "einsum", inputs):
        _, _, resolved = parse_einsum(equation, len(inputs))
        hint = next((x.dtype for x in inputs if isinstance(x, Tensor)), None)
        tensors = [convert_to_tensor(x, preferred_dtype=hint) for x in inputs]
        if len({t.dtype for t in tensors}) > 1:
            raise TypeError(f"Tensors in list passed to 'inputs' of 'Einsum' Op have types "
                            f"[{', '.join(t.dtype.name for t in tensors)}] that don't all match.")
        for t in tensors:
            check_dtype(t, NUMBER_TYPES, "inputs")
        return apply_op("Einsum", tensors, {"equation": resolved}, name="Einsum").outputs[0]


# -- Tensordot -------------------------------------------------------------------------


def _tensordot_axes(axes, a: Tensor, b: Tensor):
    """``axes`` as an int or a pair of tuples of ints (TF1's argument forms)."""
    if isinstance(axes, Tensor):
        value = constant_value(axes)
        if value is None:
            raise TypeError("tensordot needs axes known at graph construction (a Python value or a constant).")
        axes = value.tolist()
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        axes = int(axes)
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        for t in (a, b):
            if t.shape.ndims is not None and axes > t.shape.ndims:
                raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {t}.  "
                                 f"Received {axes}, vs tensor dimensions {t.shape.ndims}.")
        return axes
    if not isinstance(axes, (list, tuple)) or len(axes) != 2:
        raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
    a_axes, b_axes = axes
    a_axes = (a_axes,) if isinstance(a_axes, (int, np.integer)) else tuple(a_axes)
    b_axes = (b_axes,) if isinstance(b_axes, (int, np.integer)) else tuple(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}.")
    for ax in a_axes + b_axes:
        if isinstance(ax, bool) or not isinstance(ax, (int, np.integer)):
            raise TypeError(f"tensordot axes must be integers, got {axes!r}")
    return (tuple(int(x) for x in a_axes), tuple(int(x) for x in b_axes))


def _normalize_axes(axes, rank: int, what: str) -> list:
    out = []
    for ax in axes:
        if not -rank <= ax < rank:
            raise ValueError(f"Invalid axis {ax} for {what} of rank {rank}")
        out.append(ax % rank)
    if len(set(out)) != len(out):
        raise ValueError(f"Repeated axis in {what}'s axes {list(axes)}")
    return out


def _tensordot_free_dims(a: Tensor, b: Tensor, axes):
    """``(a_free, b_free)``: the static dims left after contraction, or None if a rank is unknown."""
    da, db = static_dims(a, min_rank=0), static_dims(b, min_rank=0)
    if da is None or db is None:
        return None
    if isinstance(axes, int):
        a_axes, b_axes = list(range(len(da) - axes, len(da))), list(range(axes))
    else:
        a_axes = _normalize_axes(axes[0], len(da), "a")
        b_axes = _normalize_axes(axes[1], len(db), "b")
    for i, j in zip(a_axes, b_axes):
        merge_dim(da[i], db[j])
    return ([d for i, d in enumerate(da) if i not in a_axes], [d for j, d in enumerate(db) if j not in b_axes])


def _tensordot_infer(op):
    a, b = op._inputs
    free = _tensordot_free_dims(a, b, op._attrs["axes"])
    return [(a.dtype, unknown_shape() if free is None else TensorShape(free[0] + free[1]))]


def _tensordot_kernel(a, b, axes):
    try:
        return array_module(a, b).tensordot(a, b, axes)
    except ValueError as e:
        raise invalid(f"Matrix size-incompatible for tensordot of {dims_str(a.shape)} and "
                      f"{dims_str(b.shape)} over axes {axes}: {e}") from None


register("Tensordot", infer=_tensordot_infer, kernel=_tensordot_kernel)


@gradient("Tensordot")
def _tensordot_grad(op, grad):
    # Each gradient contracts the output gradient with the other operand's free
    # axes; its axes then come out as (free, contracted-in-the-other's-order).
    a, b = op.inputs
    ra, rb = a.shape.ndims, b.shape.ndims
    if ra is None or rb is None:
        raise ValueError(f"The gradient of Tensordot needs operands of known rank (op {op.name}).")
    axes = op.get_attr("axes")
    if isinstance(axes, int):
        a_axes, b_axes = list(range(ra - axes, ra)), list(range(axes))
    else:
        a_axes, b_axes = _normalize_axes(axes[0], ra, "a"), _normalize_axes(axes[1], rb, "b")
    free_a = [i for i in range(ra) if i not in a_axes]
    free_b = [j for j in range(rb) if j not in b_axes]
    n = len(free_a)
    grad_a = tensordot(grad, conj(b), [list(range(n, n + len(free_b))), free_b])
    grad_b = tensordot(conj(a), grad, [free_a, list(range(n))])
    return [_transpose_to(grad_a, free_a + [a_axes[b_axes.index(j)] for j in sorted(b_axes)]),
            _transpose_to(grad_b, [b_axes[a_axes.index(i)] for i in sorted(a_axes)] + free_b)]


def _transpose_to(t: Tensor, source_axes: list) -> Tensor:
    """``t``, whose axis k is the operand's axis ``source_axes[k]``, in the operand's axis order."""
    perm = [source_axes.index(i) for i in range(len(source_axes))]
    return t if perm == sorted(perm) else array_ops.transpose(t, perm)


@tf_export("tensordot", "linalg.tensordot")
def tensordot(a, b, axes, name=None) -> Tensor:
    """Sums products over ``axes``: an int N (last N of ``a`` with first N of ``b``)
    or a pair of axis lists.

    >>> import dflow as tf
    >>> a, b = tf.placeholder(tf.float32, [2, 3, 4]), tf.placeholder(tf.float32, [4, 5])
    >>> tf.tensordot(a, b, 1).shape
    TensorShape([2, 3, 5])
    """
    with op_scope(name, "Tensordot", [a, b]) as scope:
        a, b = convert_same_type("MatMul", ("a", a), ("b", b), allowed=MATMUL_TYPES)
        axes = _tensordot_axes(axes, a, b)
        # TF1 returns its inner MatMul when that already has the result's shape
        # (all shapes static, one free dimension on each side), else a Reshape
        # named after the scope; the returned tensor's name follows suit.
        n = axes if isinstance(axes, int) else len(axes[0])
        as_matmul = (a.shape.is_fully_defined() and b.shape.is_fully_defined()
                     and a.shape.ndims - n == 1 and b.shape.ndims - n == 1)
        return apply_op("Tensordot", [a, b], {"axes": axes}, name="MatMul" if as_matmul else scope).outputs[0]
