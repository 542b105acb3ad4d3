"""Gathering: gather, gather_nd, boolean_mask, and their adjoints.

Indices are checked as TF1's CPU kernels check them: an index outside
``[0, dim)`` is an ``InvalidArgumentError`` naming its position
(``indices[1] = 7 is not in [0, 3)``), never numpy's wrap-around.

TF1's gather gradients are ``IndexedSlices``; dflow's are dense tensors,
made by one scatter-add kernel per op (``GatherV2Grad``, ``ScatterNd``,
``BooleanMaskGrad``) whose own gradient is the gather again.
"""

from __future__ import annotations

import builtins

import numpy as np

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array.index_args import (
    dims_str,
    host,
    index_arg,
    index_tensor,
    kernel_int,
    kernel_ints,
    merge_shapes,
    shape_from_tensor,
    split_index_args,
    with_rank,
    with_rank_at_least,
)
from dflow.ops.array.shape_ops import shape as shape_of


def _scatter_add(out, index, values) -> None:
    """``out[index] += values``, accumulating repeated indices (numpy's ``add.at``; CuPy's ``scatter_add``)."""
    if array_module(out) is np:
        np.add.at(out, index, values)
    else:
        import cupyx

        cupyx.scatter_add(out, index, values)


def _params_shape(params):
    """A params tensor's shape as an index argument: static when fully known, else a ``Shape`` op."""
    return params.shape.as_list() if params.shape.is_fully_defined() else shape_of(params)


# -- GatherV2 ------------------------------------------------------------------------------------


def _gather_infer(op):
    params, indices = op._inputs[:2]
    axis, t = index_arg(op, "axis", 2)
    b = op._attrs["batch_dims"]
    ps, ids = with_rank_at_least(params.shape, 1), indices.shape
    if t is not None and t.shape.ndims is not None:
        with_rank(t.shape, 0)
    if b < 0:
        if ids.ndims is None:
            return [(params.dtype, TensorShape(None))]
        b += ids.ndims
    if ids.ndims is not None and b > ids.ndims:
        raise ValueError(f"batch_dims ({b}) must be less than or equal to rank(indices) ({ids.ndims}).")
    if axis is None:
        if ps.ndims is None or ids.ndims is None:
            return [(params.dtype, TensorShape(None))]
        return [(params.dtype, TensorShape([None] * (ps.ndims + ids.ndims - 1 - b)))]
    a = int(axis)
    with_rank_at_least(ps, -a if a < 0 else a + 1)
    if ps.ndims is None or ids.ndims is None:
        return [(params.dtype, TensorShape(None))]
    a = a + ps.ndims if a < 0 else a
    if b > a:
        raise ValueError(f"batch_dims ({b}) must be less than or equal to axis ({a}).")
    batch = merge_shapes(ps[:b], ids[:b])
    out = batch.concatenate(ps[b:a]).concatenate(ids[b:]).concatenate(ps[a + 1:])
    return [(params.dtype, out)]


_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def _bad_index(indices, n: int) -> errors.InvalidArgumentError:
    bad = np.argwhere(np.asarray(host((indices < 0) | (indices >= n))))[0]
    where = f"[{','.join(map(str, bad))}]" if bad.size else ""
    value = np.asarray(host(indices))[tuple(bad)]
    return _invalid(f"indices{where} = {value} is not in [0, {n})")


def _gather_kernel(params, indices, axis, batch_dims):
    a = axis if type(axis) is int else kernel_int(axis)
    r = params.ndim
    if not -r <= a < r:
        raise _invalid(f"Expected axis in the range [{-r}, {r}), but got {a}")
    a = a + r if a < 0 else a
    n = params.shape[a]
    xp = array_module(params, indices)
    if not batch_dims and xp is np and indices.dtype.itemsize < 8:
        # Viewed as unsigned, a negative index is out of range too, so take's own
        # bounds check (one pass, in C) catches every bad index. (A uint64 view
        # would wrap back to a negative intp.)
        try:
            return np.take(params, indices.view(_UNSIGNED[indices.dtype.itemsize]), axis=a)
        except IndexError:
            raise _bad_index(indices, n) from None
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        raise _bad_index(indices, n)
    if not batch_dims:
        return xp.take(params, indices, axis=a)
    b = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    # Gather every batch at once: move the gathered axis next to the flattened batch axis.
    bshape, pre = params.shape[:b], params.shape[b:a]
    p = xp.moveaxis(params.reshape((-1,) + params.shape[b:]), 1 + len(pre), 1)
    idx = indices.reshape((-1,) + indices.shape[b:])
    rows = xp.arange(p.shape[0]).reshape((-1,) + (1,) * (idx.ndim - 1))
    out = p[rows, idx]  # (B, *indices[b:], *pre, *post)
    k = idx.ndim - 1
    perm = (0, *range(1 + k, 1 + k + len(pre)), *range(1, 1 + k), *range(1 + k + len(pre), out.ndim))
    return out.transpose(perm).reshape(bshape + pre + indices.shape[b:] + params.shape[a + 1:])


register("GatherV2", infer=_gather_infer, kernel=_gather_kernel)


@gradient("GatherV2")
def _gather_grad(op, grad):
    params, indices = op._inputs[:2]
    axis, t = index_arg(op, "axis", 2)
    out = gather_grad(grad, indices, _params_shape(params), int(axis) if t is None else t, op._attrs["batch_dims"])
    out.set_shape(params.shape)
    return [out] + [None] * (len(op._inputs) - 1)


def _gather_grad_infer(op):
    g = op._inputs[0]
    value, t = index_arg(op, "params_shape", 2)
    return [(g.dtype, TensorShape(value.tolist()) if value is not None else shape_from_tensor(t))]


def _gather_grad_kernel(grad, indices, params_shape, axis, batch_dims):
    """Zeros of ``params_shape`` with each gathered slice of ``grad`` added back where it came from."""
    shape = kernel_ints(params_shape)
    a = axis if type(axis) is int else kernel_int(axis)
    r = len(shape)
    a = a + r if a < 0 else a
    b = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    k = indices.ndim - b  # the gathered index dimensions, at axis a of grad
    xp = array_module(grad, indices)
    out = xp.zeros(shape, dtype=grad.dtype)
    view = xp.moveaxis(out, a, b)  # P[:b] + [n] + P[b:a] + P[a+1:], a view of out
    g = xp.moveaxis(grad, list(range(a, a + k)), list(range(b, b + k)))  # I + P[b:a] + P[a+1:]
    batch = tuple(xp.arange(shape[i]).reshape((-1,) + (1,) * (indices.ndim - 1 - i)) for i in range(b))
    _scatter_add(view, batch + (indices,), g)
    return out


register("GatherV2Grad", infer=_gather_grad_infer, kernel=_gather_grad_kernel)


def gather_grad(grad, indices, params_shape, axis, batch_dims: int = 0):
    """The dense gradient of ``gather(params, indices, axis=axis, batch_dims=batch_dims)`` w.r.t. params.

    ``params_shape`` and ``axis`` are index arguments (static values or tensors);
    negative ``axis`` and ``batch_dims`` count from the end, as in ``gather``.
    """
    inputs, attrs = split_index_args({"params_shape": params_shape, "axis": axis})
    return apply_op("GatherV2Grad", [grad, indices, *inputs], {**attrs, "batch_dims": batch_dims}).outputs[0]


@gradient("GatherV2Grad")
def _gather_grad_grad(op, grad):
    _, indices = op._inputs[:2]
    axis, t = index_arg(op, "axis", 3)
    out = gather(grad, indices, axis=int(axis) if t is None else t, batch_dims=op._attrs["batch_dims"])
    return [out] + [None] * (len(op._inputs) - 1)


@tf_export("gather")
def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Slices of ``params`` along ``axis`` at ``indices``; out-of-range indices are an error.

    >>> import dflow as tf
    >>> tf.gather(tf.zeros([5, 3]), [[0, 4]]).shape
    TensorShape([1, 2, 3])
    """
    del validate_indices  # deprecated in TF1, does nothing
    with name_scope(name, "GatherV2", [params, indices]) as scope:
        p = convert_to_tensor(params, name="params")
        i = index_tensor(indices, "indices")
        inputs, attrs = split_index_args({"axis": batch_dims if axis is None else axis}, scalars=("axis",))
        return apply_op("GatherV2", [p, i, *inputs], {**attrs, "batch_dims": int(batch_dims)}, name=scope).outputs[0]


# -- GatherNd --------------------------------------------------------------------------------------


def _gather_nd_infer(op):
    params, indices = op._inputs
    b = op._attrs["batch_dims"]
    ps = with_rank_at_least(params.shape, 1)
    ids = with_rank_at_least(indices.shape, 1)
    k = ids[-1].value if ids.ndims is not None else None
    if ps.ndims is None or k is None:
        return [(params.dtype, TensorShape(None))]
    if k + b > ps.ndims:
        raise ValueError(f"indices.shape[-1] must be <= params.rank, but saw indices shape: {dims_str(ids)} and "
                         f"params shape: {dims_str(ps)}")
    batch = merge_shapes(ids[:b], ps[:b])
    return [(params.dtype, batch.concatenate(ids[b:-1]).concatenate(ps[b + k:]))]


def _gather_nd_kernel(params, indices, batch_dims=0):
    xp = array_module(params, indices)
    b = batch_dims
    k = indices.shape[-1]
    bounds = xp.asarray(params.shape[b:b + k], dtype=indices.dtype)
    bad = ((indices < 0) | (indices >= bounds)).any(axis=-1)
    if bad.any():
        pos = np.argwhere(np.asarray(host(bad)))[0]
        value = np.asarray(host(indices))[tuple(pos)]
        raise _invalid(f"indices[{','.join(map(str, pos))}] = [{', '.join(map(str, value.tolist()))}] does not "
                       f"index into param shape {dims_str(params.shape)}")
    if b:
        # A leading column of flat batch numbers turns the batched gather into one plain gather.
        flat_p = params.reshape((-1,) + params.shape[b:])
        flat_i = indices.reshape((-1,) + indices.shape[b:])
        rows = xp.broadcast_to(xp.arange(flat_i.shape[0], dtype=indices.dtype).reshape(
            (-1,) + (1,) * (flat_i.ndim - 1)), flat_i.shape[:-1] + (1,))
        out = _gather_nd_kernel(flat_p, xp.concatenate([rows, flat_i], -1))
        return out.reshape(params.shape[:b] + out.shape[1:])
    if k == 0:
        return xp.broadcast_to(params, indices.shape[:-1] + params.shape)
    return params[tuple(indices[..., j] for j in range(k))]


register("GatherNd", infer=_gather_nd_infer, kernel=_gather_nd_kernel)


@gradient("GatherNd")
def _gather_nd_grad(op, grad):
    params, indices = op._inputs
    out = scatter_nd(indices, grad, _params_shape(params), batch_dims=op._attrs["batch_dims"])
    out.set_shape(params.shape)
    return [out, None]


# -- ScatterNd: the adjoint of GatherNd ---------------------------------------------------------


def _scatter_nd_infer(op):
    updates = op._inputs[1]
    value, t = index_arg(op, "shape", 2)
    return [(updates.dtype, TensorShape(value.tolist()) if value is not None else shape_from_tensor(t))]


def _scatter_nd_kernel(indices, updates, shape, batch_dims=0):
    """Zeros of ``shape`` plus each update at its index tuple (repeated indices add up, as TF's ScatterNd)."""
    shape = kernel_ints(shape)
    xp = array_module(indices, updates)
    b, k = batch_dims, indices.shape[-1]
    out = xp.zeros(shape, dtype=updates.dtype)
    bounds = xp.asarray(shape[b:b + k], dtype=indices.dtype)
    bad = ((indices < 0) | (indices >= bounds)).any(axis=-1)
    if bad.any():
        pos = np.argwhere(np.asarray(host(bad)))[0]
        value = np.asarray(host(indices))[tuple(pos)]
        raise _invalid(f"indices[{','.join(map(str, pos))}] = [{', '.join(map(str, value.tolist()))}] does not "
                       f"index into shape {dims_str(shape)}")
    if k == 0:  # every (empty) index tuple selects all of params: the updates just add up
        n = int(np.prod(shape[:b], dtype=np.int64))
        return updates.reshape((n, -1) + shape[b:]).sum(axis=1, dtype=updates.dtype).reshape(shape)
    if b:  # a leading index of flat batch numbers turns the batched scatter into one plain scatter
        flat = out.reshape((-1,) + shape[b:])  # a view of out
        idx = indices.reshape((-1,) + indices.shape[b:])
        rows = (xp.arange(flat.shape[0]).reshape((-1,) + (1,) * (idx.ndim - 2)),)
        _scatter_add(flat, rows + tuple(idx[..., j] for j in range(k)), updates.reshape(idx.shape[:-1] + shape[b + k:]))
    else:
        _scatter_add(out, tuple(indices[..., j] for j in range(k)), updates)
    return out


register("ScatterNd", infer=_scatter_nd_infer, kernel=_scatter_nd_kernel)


@tf_export("scatter_nd", "manip.scatter_nd")
def scatter_nd(indices, updates, shape, batch_dims: int = 0, name=None):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (TF's ``ScatterNd``).

    ``batch_dims`` makes it the adjoint of ``gather_nd(..., batch_dims)``:
    the leading ``batch_dims`` dimensions of indices, updates and shape match.
    """
    with name_scope(name, "ScatterNd", [indices, updates]) as scope:
        i = index_tensor(indices, "indices")
        u = convert_to_tensor(updates, name="updates")
        inputs, attrs = split_index_args({"shape": shape})
        return apply_op("ScatterNd", [i, u, *inputs], {**attrs, "batch_dims": int(batch_dims)}, name=scope).outputs[0]


@gradient("ScatterNd")
def _scatter_nd_grad(op, grad):
    indices = op._inputs[0]
    return [None, gather_nd(grad, indices, batch_dims=op._attrs["batch_dims"])] + [None] * (len(op._inputs) - 2)


@tf_export("gather_nd", "manip.gather_nd")
def gather_nd(params, indices, name=None, batch_dims=0):
    """Slices of ``params`` at the index tuples in the last axis of ``indices``.

    With ``batch_dims``, TF1 builds a ``BatchGatherND`` subgraph whose result
    is its ``Reshape_<batch_dims + 2>``; dflow's one op takes that name.
    """
    if isinstance(batch_dims, Tensor):
        value = constant_value(batch_dims)
        if value is None:
            raise TypeError(f"batch_dims must be an int; got {batch_dims!r}")
        batch_dims = value
    b = int(batch_dims)
    if b == 0:
        with name_scope(name, "GatherNd", [params, indices]) as scope:
            p = convert_to_tensor(params, name="params")
            i = index_tensor(indices, "indices")
            return apply_op("GatherNd", [p, i], {"batch_dims": 0}, name=scope).outputs[0]
    if b < 0:
        raise ValueError("tf.gather_nd does not allow negative batch_dims.")
    with name_scope(name, "BatchGatherND", [params, indices]):
        i = index_tensor(indices, "indices")
        p = convert_to_tensor(params, name="params")
        for what, t in (("indices", i), ("params", p)):
            if t.shape.ndims is not None and b >= t.shape.ndims:
                raise ValueError(f"batch_dims = {b} must be less than rank({what}) = {t.shape.ndims}")
        return apply_op("GatherNd", [p, i], {"batch_dims": b}, name=f"Reshape_{b + 2}").outputs[0]


# -- boolean_mask --------------------------------------------------------------------------------


def _boolean_mask_infer(op):
    tensor, mask = op._inputs
    a = op._attrs["axis"]
    k = mask.shape.ndims
    s = tensor.shape
    if s.ndims is None:
        return [(tensor.dtype, TensorShape(None))]
    dims = s.as_list()
    return [(tensor.dtype, TensorShape(dims[:a] + [None] + dims[a + k:]))]


def _boolean_mask_kernel(tensor, mask, axis):
    shape, k = tensor.shape, mask.ndim
    if shape[axis:axis + k] != mask.shape:
        raise _invalid(f"Shapes {dims_str(shape[axis:axis + k])} and {dims_str(mask.shape)} are incompatible: the "
                       f"mask must match dimensions {axis}..{axis + k - 1} of the tensor {dims_str(shape)}")
    xp = array_module(tensor, mask)
    flat = tensor.reshape(shape[:axis] + (-1,) + shape[axis + k:])
    return xp.take(flat, xp.flatnonzero(mask), axis=axis)


register("BooleanMask", infer=_boolean_mask_infer, kernel=_boolean_mask_kernel)


@gradient("BooleanMask")
def _boolean_mask_grad(op, grad):
    tensor, mask = op._inputs
    inputs, attrs = split_index_args({"shape": _params_shape(tensor)})
    out = apply_op("BooleanMaskGrad", [grad, mask, *inputs], {**attrs, "axis": op._attrs["axis"]}).outputs[0]
    out.set_shape(tensor.shape)
    return [out, None]


def _boolean_mask_grad_infer(op):
    g = op._inputs[0]
    value, t = index_arg(op, "shape", 2)
    return [(g.dtype, TensorShape(value.tolist()) if value is not None else shape_from_tensor(t))]


def _boolean_mask_grad_kernel(grad, mask, shape, axis):
    """Zeros of ``shape`` with the rows of ``grad`` written back where ``mask`` is true."""
    shape = kernel_ints(shape)
    xp = array_module(grad, mask)
    out = xp.zeros(shape, dtype=grad.dtype)
    flat = out.reshape(shape[:axis] + (-1,) + shape[axis + mask.ndim:])  # a view of out
    flat[(builtins.slice(None),) * axis + (xp.flatnonzero(mask),)] = grad
    return out


register("BooleanMaskGrad", infer=_boolean_mask_grad_infer, kernel=_boolean_mask_grad_kernel)


@gradient("BooleanMaskGrad")
def _boolean_mask_grad_grad(op, grad):
    mask = op._inputs[1]
    return [apply_op("BooleanMask", [grad, mask], {"axis": op._attrs["axis"]}).outputs[0]] + \
        [None] * (len(op._inputs) - 1)


@tf_export("boolean_mask")
def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The entries of ``tensor`` where ``mask`` is true, ``mask`` covering dims ``axis..axis+K``.

    TF1 builds reshape, where and gather ops; the result is named
    ``boolean_mask/GatherV2`` as there.

    >>> import dflow as tf
    >>> tf.boolean_mask(tf.zeros([2, 3]), [True, False]).shape
    TensorShape([None, 3])
    """
    with name_scope(name, "boolean_mask", [tensor, mask]):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        k = mask.shape.ndims
        if k == 0:
            raise ValueError("mask cannot be scalar.")
        if k is None:
            raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.  E.g. "
                             "shape=[None] is ok, but shape=None is not.")
        axis = 0 if axis is None else int(axis)
        s = tensor.shape
        if axis < 0:
            if s.ndims is None:
                raise ValueError("boolean_mask needs a tensor of known rank for a negative axis")
            axis += s.ndims
        if s.ndims is not None:
            part = s[axis:axis + k]
            if not part.is_compatible_with(mask.shape):
                raise ValueError(f"Shapes {part} and {mask.shape} are incompatible")
        return apply_op("BooleanMask", [tensor, mask], {"axis": axis}, name="GatherV2").outputs[0]
