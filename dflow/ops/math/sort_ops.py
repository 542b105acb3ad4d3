"""Ordering: sort, argsort, top_k, unique, unique_with_counts.

All orderings are stable: equal values keep their index order, in both
directions, as TF1's ``TopKV2`` orders ties. TF1 sorts with ``top_k`` on
negated values plus transposes; dflow runs one ``Sort`` kernel whose result
carries TF1's name (``sort/Neg_1``, ``sort/TopKV2``, ``argsort/TopKV2:1``...).
"""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array.index_args import (
    INDEX_DTYPES,
    index_arg,
    kernel_int,
    split_index_args,
    with_rank,
    with_rank_at_least,
)


def _descending_order(x, axis: int):
    """Indices that sort ``x`` descending along ``axis``, ties in index order."""
    xp = array_module(x)
    n = x.shape[axis]
    # A stable ascending sort of the reversed array, read backwards, keeps ties in index order.
    order = xp.argsort(xp.flip(x, axis), axis=axis, kind="stable")
    return (n - 1) - xp.flip(order, axis)


# -- TopKV2 ----------------------------------------------------------------------------------------

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def _top_k_infer(op):
    x = op._inputs[0]
    s = with_rank_at_least(x.shape, 1)
    k, t = index_arg(op, "k", 1)
    if t is not None and t.shape.ndims is not None:
        with_rank(t.shape, 0)
    if k is not None:
        k = int(k)
        if k < 0:
            raise ValueError(f"Dimension size, given by scalar input 1, must be non-negative but is {k}")
        if s.ndims is not None and s[-1].value is not None and s[-1].value < k:
            raise ValueError(f"input must have last dimension >= k = {k} but is {s[-1].value}")
    out = TensorShape(None) if s.ndims is None else s[:-1].concatenate([k])
    return [(x.dtype, out), (dtypes.int32, out)]


def _top_k_kernel(input, k, sorted):  # noqa: A002 - TF1 argument names
    k = k if type(k) is int else kernel_int(k)
    if k < 0:
        raise _invalid(f"Need k >= 0, got {k}")
    if input.ndim < 1:
        raise _invalid(f"input must be >= 1-D, got shape {list(input.shape)}")
    n = input.shape[-1]
    if n < k:
        raise _invalid(f"input must have at least k columns. Had {n}, needed {k}")
    order = _descending_order(input, -1)[..., :k]
    return array_module(input).take_along_axis(input, order, -1), order.astype(np.int32)


register("TopKV2", infer=_top_k_infer, kernel=_top_k_kernel)


def _scatter_last_axis(grad, indices, x):
    """Zeros shaped as ``x``, with ``grad[..., j]`` added at ``indices[..., j]`` along the last axis."""
    from dflow.ops.array.gather_ops import _params_shape, gather_grad

    out = gather_grad(grad, indices, _params_shape(x), -1, batch_dims=-1)
    out.set_shape(x.shape)
    return out


@gradient("TopKV2")
def _top_k_grad(op, grad, _indices_grad):
    """The values' gradient scattered back to where they were taken from (TF1's rule, dense)."""
    x = op._inputs[0]
    return [_scatter_last_axis(grad, op._outputs[1], x)] + [None] * (len(op._inputs) - 1)


@tf_export("nn.top_k", "math.top_k")
def top_k(input, k=1, sorted=True, name=None):  # noqa: A002 - TF1 argument names
    """The ``k`` largest entries of the last axis and their int32 indices (``TopKV2(values, indices)``).

    >>> import dflow as tf
    >>> tf.nn.top_k([[3., 1., 2.]], 2).indices.dtype
    tf.int32
    """
    with name_scope(name, "TopKV2", [input, k]) as scope:
        x = convert_to_tensor(input, name="input")
        inputs, attrs = split_index_args({"k": k}, scalars=("k",))
        op = apply_op("TopKV2", [x, *inputs], {**attrs, "sorted": bool(sorted)}, name=scope)
        return TopKV2(*op.outputs)


# -- ApproxTopK --------------------------------------------------------------------------------------
# TF runs it approximately on TPUs; its CPU kernel (last axis, largest only) is the exact top k,
# and so is dflow's, for either direction and any axis.


def _approx_top_k_infer(op):
    x = op._inputs[0]
    k, axis = op._attrs["k"], op._attrs["reduction_dimension"]
    if x.shape.ndims is None:
        return [(x.dtype, TensorShape(None)), (dtypes.int32, TensorShape(None))]
    rank = x.shape.ndims
    if not -rank <= axis < rank:
        raise ValueError(f"Invalid reduction dimension: {axis}. Must be within the range of [{-rank}, {rank - 1}]")
    dims = x.shape.as_list()
    axis %= rank
    if dims[axis] is not None and dims[axis] < k:
        raise ValueError(f"input must have last dimension >= k = {k} but was {dims[axis]}")
    dims[axis] = k
    return [(x.dtype, TensorShape(dims)), (dtypes.int32, TensorShape(dims))]


def _approx_top_k_kernel(input, k, reduction_dimension, is_max_k, **_):  # noqa: A002 - TF's argument name
    xp = array_module(input)
    x = xp.moveaxis(input, reduction_dimension, -1)
    if x.shape[-1] < k:
        raise _invalid(f"input must have at least k = {k} entries along the reduction dimension, had {x.shape[-1]}")
    order = (_descending_order(x, -1) if is_max_k else xp.argsort(x, axis=-1, kind="stable"))[..., :k]
    values = xp.take_along_axis(x, order, -1)
    return (xp.moveaxis(values, -1, reduction_dimension),
            xp.moveaxis(order, -1, reduction_dimension).astype(np.int32))


register("ApproxTopK", infer=_approx_top_k_infer, kernel=_approx_top_k_kernel)


@gradient("ApproxTopK")
def _approx_top_k_grad(op, grad, _indices_grad):
    """The values' gradient scattered back to where they were taken from."""
    from dflow.ops.array.array_ops import transpose

    x, indices = op._inputs[0], op._outputs[1]
    rank = x.shape.ndims
    axis = op._attrs["reduction_dimension"] % rank
    if axis == rank - 1:
        return [_scatter_last_axis(grad, indices, x)]
    perm = [d for d in range(rank) if d != axis] + [axis]
    back = [perm.index(d) for d in range(rank)]
    scattered = _scatter_last_axis(transpose(grad, perm), transpose(indices, perm), transpose(x, perm))
    return [transpose(scattered, back)]


@tf_export("approx_top_k")
def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,  # noqa: A002 - TF's name
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """Returns min/max k values and their indices of the input operand in an approximate manner.

    dflow computes them exactly (as TF's CPU kernel does), along any ``reduction_dimension``
    and for ``is_max_k=False`` too, where TF's CPU build has no kernel; ``recall_target``,
    ``reduction_input_size_override`` and ``aggregate_to_topk`` only tune TPU approximations.
    Ties keep index order; NaN counts as the largest value.

    >>> import dflow as tf
    >>> tf.Session().run(tf.approx_top_k([[3., 1., 2.]], 2))
    [array([[3., 2.]], dtype=float32), array([[0, 2]], dtype=int32)]
    """
    with name_scope(name, "ApproxTopK", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        if x.dtype not in (dtypes.float16, dtypes.float32):
            raise TypeError(f"Value passed to parameter 'input' has DataType {x.dtype.name} not in list of allowed "
                            f"values: float16, bfloat16, float32")
        attrs = {"T": x.dtype, "k": int(k), "reduction_dimension": int(reduction_dimension),
                 "recall_target": float(recall_target), "is_max_k": bool(is_max_k),
                 "reduction_input_size_override": int(reduction_input_size_override),
                 "aggregate_to_topk": bool(aggregate_to_topk)}
        return list(apply_op("ApproxTopK", [x], attrs, name=scope).outputs)


# -- Sort (sort, argsort) --------------------------------------------------------------------------


def _sort_infer(op):
    x = op._inputs[0]
    return [(x.dtype if o == "values" else dtypes.int32, x.shape) for o in op._attrs["outputs"]]


def _sort_kernel(values, axis, descending, outputs):
    xp = array_module(values)
    order = _descending_order(values, axis) if descending else xp.argsort(values, axis=axis, kind="stable")
    out = tuple(xp.take_along_axis(values, order, axis) if o == "values" else order.astype(np.int32)
                for o in outputs)
    return out[0] if len(out) == 1 else out


register("Sort", infer=_sort_infer, kernel=_sort_kernel)


@gradient("Sort")
def _sort_grad(op, *grads):
    """Sorting permutes: the values' gradient goes back through the same permutation.

    When the op returned only values, the gradient sorts ``x`` once more for
    the indices (sorting is stable, so the permutation is the same one).
    """
    from dflow.ops.array import array_ops, creation_ops, select_ops
    from dflow.ops.math import math_ops

    x = op._inputs[0]
    outputs = op._attrs["outputs"]
    if "values" not in outputs:
        return [None]
    grad = grads[outputs.index("values")]
    if "indices" in outputs:
        indices = op._outputs[outputs.index("indices")]
    else:
        indices = apply_op("Sort", [x], {**op._attrs, "outputs": ("indices",)}).outputs[0]
    axis, r = op._attrs["axis"], x.shape.ndims
    if axis == -1 or (r is not None and axis % r == r - 1):
        return [_scatter_last_axis(grad, indices, x)]
    # Sort along another axis: swap it with the last one, scatter, swap back.
    if r is not None:
        perm = list(range(r))
        perm[axis], perm[-1] = perm[-1], perm[axis]
    else:
        rank = array_ops.rank(x)
        last, a = rank - 1, math_ops.floormod(axis, rank)
        idx = creation_ops.range(rank)
        perm = select_ops.where_v2(math_ops.equal(idx, a), last, select_ops.where_v2(math_ops.equal(idx, last), a, idx))
    swapped = array_ops.transpose(x, perm)
    out = _scatter_last_axis(array_ops.transpose(grad, perm), array_ops.transpose(indices, perm), swapped)
    out = array_ops.transpose(out, perm)
    out.set_shape(x.shape)
    return [out]


def _sort_or_argsort(values, axis, direction, return_argsort):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"{direction} should be one of ASCENDING, DESCENDING")
    if isinstance(axis, Tensor):
        value = constant_value(axis)
        if axis.shape.ndims != 0 or value is None:
            raise ValueError("axis must be a constant scalar")
        axis = value
    if np.ndim(axis) != 0:
        raise ValueError("axis must be a constant scalar")
    axis = int(axis)
    x = convert_to_tensor(values, name="values")
    r = x.shape.ndims
    if r is not None and not -r <= axis < r:
        raise ValueError(f"slice index {axis} of dimension 0 out of bounds.")  # TF1: shape(values)[axis]
    last = axis == -1 or (r is not None and axis + 1 == r)
    descending = direction == "DESCENDING"
    # The names of the tensors TF1's top_k/negate/transpose graph returns.
    if return_argsort:
        outputs, op_name, index = (("values", "indices"), "TopKV2", 1) if last else (("indices",), "transpose_1", 0)
    else:
        outputs, index = ("values",), 0
        op_name = "Neg_1" if not descending else "TopKV2" if last else "transpose_1"
    attrs = {"axis": axis, "descending": descending, "outputs": outputs}
    return apply_op("Sort", [x], attrs, name=op_name).outputs[index]


@tf_export("sort")
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis`` (a constant), ``"ASCENDING"`` or ``"DESCENDING"``.

    >>> import dflow as tf
    >>> tf.sort([3, 1, 2]).name
    'sort/Neg_1:0'
    """
    with name_scope(name, "sort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=False)


@tf_export("argsort")
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort ``values`` along ``axis``; always stable."""
    del stable  # dflow's sort is always stable
    with name_scope(name, "argsort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=True)


# -- Unique, UniqueWithCounts ------------------------------------------------------------------------

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _unique_infer(op):
    x = op._inputs[0]
    if x.shape.ndims is not None:
        with_rank(x.shape, 1)
    out_idx = op._attrs["out_idx"]
    specs = [(x.dtype, TensorShape([None])), (out_idx, x.shape)]
    if op.type == "UniqueWithCounts":
        specs.append((out_idx, TensorShape([None])))
    return specs


def _unique_parts(x, out_idx, counts: bool):
    """TF1's Unique: values in order of first appearance, and each element's index into them."""
    xp = array_module(x)
    # TF1 keeps every NaN distinct (NaN != NaN); numpy merges them unless told not to.
    nan_kw = {"equal_nan": False} if xp is np and x.dtype.kind in "fc" else {}
    found = xp.unique(x, return_index=True, return_inverse=True, return_counts=counts, **nan_kw)
    uniq, first, inverse = found[:3]
    order = xp.argsort(first)
    rank = xp.empty_like(order)
    rank[order] = xp.arange(order.size)
    idx_dtype = out_idx.as_numpy_dtype
    out = (uniq[order], rank[inverse.reshape(-1)].astype(idx_dtype))
    return out + (found[3][order].astype(idx_dtype),) if counts else out


register("Unique", infer=_unique_infer, kernel=lambda x, out_idx: _unique_parts(x, out_idx, False))
register("UniqueWithCounts", infer=_unique_infer, kernel=lambda x, out_idx: _unique_parts(x, out_idx, True))
not_differentiable("Unique")
not_differentiable("UniqueWithCounts")


def _unique_op(op_type: str, x, out_idx, name):
    out_idx = dtypes.as_dtype(out_idx)
    if out_idx not in INDEX_DTYPES:
        raise TypeError(f"Value for attr 'out_idx' of {out_idx.name} is not in the list of allowed values: "
                        f"int32, int64")
    with name_scope(name, op_type, [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op(op_type, [x], {"out_idx": out_idx}, name=scope).outputs


@tf_export("unique")
def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct values of 1-D ``x`` in order of appearance, and ``x``'s indices into them.

    >>> import dflow as tf
    >>> tf.unique([4, 1, 4]).idx.shape
    TensorShape([3])
    """
    return Unique(*_unique_op("Unique", x, out_idx, name))


@tf_export("unique_with_counts")
def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """As ``unique``, plus how often each distinct value occurs."""
    return UniqueWithCounts(*_unique_op("UniqueWithCounts", x, out_idx, name))
