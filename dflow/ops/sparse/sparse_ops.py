"""``tf.sparse``: the ops that build, convert and rearrange ``SparseTensor`` values.

A ``SparseTensor`` is three tensors (``indices`` int64 ``[N, rank]``,
``values`` ``[N]``, ``dense_shape`` int64 ``[rank]``), so a sparse op takes
those components as inputs and, when it returns a SparseTensor, outputs them:
``SparseReorder`` is ``(input_indices, input_values, input_shape) ->
(output_indices, output_values)``, and ``tf.sparse.reorder`` wraps the
outputs into a new ``SparseTensor``. Op types, input order and gradients are
TF1's.

Most ops expect indices in row-major (lexicographic) order, as TF1's do;
``tf.sparse.reorder`` sorts. Arithmetic, reductions, products and the
crosses live in ``sparse_math_ops``; the functions TF1 writes in Python
(``from_dense``, ``transpose``, ``retain`` ...) in ``sparse_array_ops``.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import SparseTensor, SparseTensorValue, _as_int64
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array import array_ops, gather_ops, shape_ops
from dflow.ops.array.index_args import host
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.math import reduction_ops

# -- shared helpers ---------------------------------------------------------------------------------


def as_sparse(value, arg: str = "sp_input") -> SparseTensor:
    """``value`` as a SparseTensor (a SparseTensorValue becomes constants); TypeError otherwise."""
    if isinstance(value, SparseTensorValue):
        return SparseTensor.from_value(value)
    if not isinstance(value, SparseTensor):
        raise TypeError(f"Input {arg} must be a SparseTensor, got {type(value).__name__}: {value!r}")
    return value


def rank_of(shape_tensor: Tensor):
    """The static rank a ``dense_shape`` vector gives, or None."""
    s = shape_tensor.shape
    return None if s.ndims is None else s.as_list()[0]


def sparse_outputs(indices: Tensor, values: Tensor, dense_shape: Tensor) -> SparseTensor:
    return SparseTensor(indices, values, dense_shape)


def sparse_components_infer(rank_from: int, values_from: int | None = 1):
    """Shape rule of an op whose outputs are (indices, values, shape) of input ``rank_from``'s rank."""

    def infer(op):
        rank = rank_of(op._inputs[rank_from])
        out = [(dtypes.int64, TensorShape([None, rank]))]
        if values_from is not None:
            out.append((op._inputs[values_from].dtype, TensorShape([None])))
        out.append((dtypes.int64, TensorShape([rank])))
        return out

    return infer


def lex_order(indices):
    """The stable permutation that sorts ``indices``' rows lexicographically."""
    if indices.shape[0] == 0 or indices.shape[1] == 0:
        return np.arange(indices.shape[0])
    return np.lexsort(indices.T[::-1])


def match_rows(query, table):
    """For each row of ``query``, its position in ``table`` (rows unique there), or -1."""
    if query.shape[0] == 0:
        return np.zeros(0, np.int64)
    if table.shape[0] == 0:
        return np.full(query.shape[0], -1, np.int64)
    both = np.concatenate([table, query]).reshape(table.shape[0] + query.shape[0], -1)
    _, inv = np.unique(both, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    lookup = np.full(inv.max() + 1, -1, np.int64)
    lookup[inv[:table.shape[0]][::-1]] = np.arange(table.shape[0])[::-1]
    return lookup[inv[table.shape[0]:]]


def host_shape(shape) -> np.ndarray:
    return np.asarray(host(shape), np.int64).reshape(-1)


def index_str(row) -> str:
    return "[" + ",".join(str(int(v)) for v in row) + "]"


def check_indices(indices, shape, what: str = "indices") -> None:
    """TF1's ``SparseTensor::IndicesValid``: in bounds, ordered, not repeated."""
    shape = host_shape(shape)
    idx = np.asarray(host(indices))
    if idx.shape[0] == 0:
        return
    out = np.flatnonzero(np.any((idx < 0) | (idx >= shape), axis=1))
    if out.size:
        i = int(out[0])
        raise _invalid(f"{what}[{i}] = {index_str(idx[i])} is out of bounds: need 0 <= index < "
                       f"{index_str(shape)}")
    if idx.shape[0] < 2:
        return
    diff = idx[1:] - idx[:-1]
    nz = diff != 0
    first = np.where(nz.any(axis=1), nz.argmax(axis=1), 0)
    sign = diff[np.arange(diff.shape[0]), first]
    bad = np.flatnonzero(sign <= 0)
    if bad.size:
        i = int(bad[0]) + 1
        if sign[i - 1] == 0:
            raise _invalid(f"{what}[{i}] = {index_str(idx[i])} is repeated")
        raise _invalid(f"{what}[{i}] = {index_str(idx[i])} is out of order. Many sparse ops require sorted "
                       f"indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n")


# -- SparseToDense ------------------------------------------------------------------------------------


def _to_dense_infer(op):
    indices, shape, values, default = op._inputs
    if indices.shape.ndims is not None and indices.shape.ndims > 2:
        raise ValueError(f"sparse_indices must be rank 0, 1 or 2, got rank {indices.shape.ndims}")
    if default.shape.ndims not in (None, 0):
        raise ValueError(f"default_value must be a scalar, got shape {default.shape}")
    known = constant_value(shape)
    if known is not None:
        return [(values.dtype, TensorShape([int(d) if d >= 0 else None for d in np.asarray(known).reshape(-1)]))]
    n = rank_of(shape) if shape.shape.ndims == 1 else (0 if shape.shape.ndims == 0 else None)
    return [(values.dtype, TensorShape(None) if n is None else TensorShape([None] * n))]


def _to_dense_kernel(indices, output_shape, values, default_value, validate_indices):
    shape = host_shape(output_shape)
    idx = np.asarray(host(indices)).astype(np.int64, copy=False)
    idx = idx.reshape(1, -1) if idx.ndim == 0 else idx.reshape(-1, 1) if idx.ndim == 1 else idx
    if idx.shape[1] != shape.size:
        raise _invalid(f"sparse_indices should have {shape.size} columns (the rank of output_shape), got "
                       f"{idx.shape[1]}")
    if np.ndim(default_value) != 0:
        raise _invalid(f"default_value should be a scalar, got shape {list(np.shape(default_value))}")
    if np.ndim(values) not in (0, 1) or (np.ndim(values) == 1 and values.shape[0] != idx.shape[0]):
        raise _invalid(f"sparse_values has incorrect shape {list(np.shape(values))}, should be [] or "
                       f"[{idx.shape[0]}]")
    if validate_indices:
        check_indices(idx, shape, "indices")
    elif idx.size and np.any((idx < 0) | (idx >= shape)):
        raise _invalid(f"Indices are not valid (out of bounds).  Shape: {index_str(shape)}")
    out = np.full(tuple(shape.tolist()), default_value, dtype=values.dtype)
    if idx.shape[0]:
        out[tuple(idx.T)] = values
    return out


register("SparseToDense", infer=_to_dense_infer, kernel=_to_dense_kernel, gpu=False, foldable=False)


@gradient("SparseToDense")
def _to_dense_grad(op, grad):

    indices = op._inputs[0]
    values_grad = apply_op("GatherNd", [grad, indices], {"batch_dims": 0}).outputs[0] \
        if indices.shape.ndims == 2 else _gather_nd_any(grad, indices)
    if op._inputs[2].shape.ndims == 0:
        values_grad = reduction_ops.reduce_sum(values_grad)
    return [None, None, values_grad, reduction_ops.reduce_sum(grad) - reduction_ops.reduce_sum(values_grad)]


def _gather_nd_any(grad, indices):
    return gather_ops.gather_nd(grad, shape_ops.reshape(indices, [-1, 1]))


@tf_export("sparse_to_dense")
def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0, validate_indices=True, name=None):
    """A dense tensor of ``output_shape`` holding ``sparse_values`` at ``sparse_indices``, else ``default_value``.

    >>> import dflow as tf
    >>> tf.Session().run(tf.sparse_to_dense([[0, 1]], [2, 2], 5)).tolist()
    [[0, 5], [0, 0]]
    """
    with name_scope(name, "SparseToDense", [sparse_indices, output_shape, sparse_values, default_value]) as scope:
        indices = convert_to_tensor(sparse_indices, name="sparse_indices")
        if not indices.dtype.is_integer:
            raise TypeError(f"sparse_indices must be int32 or int64, got {indices.dtype.name}")
        shape = convert_to_tensor(output_shape, dtype=indices.dtype, name="output_shape")
        values = convert_to_tensor(sparse_values, name="sparse_values")
        default = convert_to_tensor(default_value, dtype=values.dtype, name="default_value")
        return apply_op("SparseToDense", [indices, shape, values, default],
                        {"validate_indices": bool(validate_indices)}, name=scope).outputs[0]


@tf_export("sparse.to_dense", "sparse_tensor_to_dense")
def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor ``sp_input`` stands for, missing entries ``default_value`` (0 or ``""``).

    >>> import dflow as tf
    >>> st = tf.SparseTensor([[0, 1]], [3.0], [1, 2])
    >>> tf.Session().run(tf.sparse.to_dense(st)).tolist()
    [[0.0, 3.0]]
    """
    sp = as_sparse(sp_input)
    if default_value is None:
        default_value = b"" if sp.dtype is dtypes.string else np.zeros((), sp.dtype.as_numpy_dtype)
    out = sparse_to_dense(sp.indices, sp.dense_shape, sp.values, default_value=default_value,
                          validate_indices=validate_indices, name=name)
    out.set_shape(out.shape.merge_with(sp.shape) if sp.shape.ndims is not None else out.shape)
    return out


# -- SparseReorder ------------------------------------------------------------------------------------


def _reorder_kernel(indices, values, dense_shape):
    if indices.shape[0] and np.any((indices < 0) | (indices >= host_shape(dense_shape))):
        bad = int(np.flatnonzero(np.any((indices < 0) | (indices >= host_shape(dense_shape)), axis=1))[0])
        raise _invalid(f"indices[{bad}] = {index_str(indices[bad])} is out of bounds: need 0 <= index < "
                       f"{index_str(host_shape(dense_shape))}")
    order = lex_order(indices)
    return indices[order], values[order]


register("SparseReorder", infer=lambda op: sparse_components_infer(2, 1)(op)[:2], kernel=_reorder_kernel,
         gpu=False, foldable=False)


def _reorder_grad_kernel(indices, grad):
    out = np.empty_like(grad)
    out[lex_order(indices)] = grad
    return out


register("SparseReorderGrad", infer=lambda op: [(op._inputs[1].dtype, TensorShape([None]))],
         kernel=_reorder_grad_kernel, gpu=False, foldable=False)
not_differentiable("SparseReorderGrad")


@gradient("SparseReorder")
def _reorder_grad(op, _, grad):
    return [None, apply_op("SparseReorderGrad", [op._inputs[0], grad]).outputs[0], None]


@tf_export("sparse.reorder", "sparse_reorder")
def sparse_reorder(sp_input, name=None) -> SparseTensor:
    """``sp_input`` with its entries in row-major (lexicographic) order of their indices.

    >>> import dflow as tf
    >>> st = tf.sparse.reorder(tf.SparseTensor([[1, 0], [0, 1]], [1, 2], [2, 2]))
    >>> tf.Session().run(st.values).tolist()
    [2, 1]
    """
    sp = as_sparse(sp_input)
    with name_scope(name, "SparseReorder", [sp.indices, sp.values]) as scope:
        op = apply_op("SparseReorder", [sp.indices, sp.values, sp.dense_shape], name=scope)
    out = SparseTensor(op.outputs[0], op.outputs[1], sp.dense_shape)
    out._static_shape = sp._static_shape
    return out


# -- SparseReshape ------------------------------------------------------------------------------------


def _reshape_infer(op):
    _, _, new_shape = op._inputs
    n = rank_of(new_shape)
    return [(dtypes.int64, TensorShape([None, n])), (dtypes.int64, TensorShape([n]))]


def _resolve_shape(in_shape, new_shape):
    """``new_shape`` with its -1 filled in, for ``prod(in_shape)`` dense values (TF1's checks)."""
    dense = int(np.prod(in_shape))
    new = np.array(new_shape, np.int64)
    unknown = np.flatnonzero(new == -1)
    if unknown.size > 1:
        raise _invalid(f"only one output dimension may be -1, not both {unknown[0]} and {unknown[1]}")
    neg = np.flatnonzero(new < -1)
    if neg.size:
        raise _invalid(f"size {neg[0]} must be non-negative, not {new[neg[0]]}")
    known = int(np.prod(new[new != -1]))
    if unknown.size:
        if known == 0 or dense % known:
            raise _invalid(f"Input to reshape is a SparseTensor with {dense} dense values, but the requested "
                           f"shape requires a multiple of {known}. input_shape={index_str(in_shape)} "
                           f"output_shape={index_str(new)}")
        new[unknown[0]] = dense // known
    elif known != dense:
        raise _invalid(f"Input to reshape is a tensor with {dense} dense values, but the requested shape has "
                       f"{known}. input_shape={index_str(in_shape)} output_shape={index_str(new)}")
    return new


def _strides(shape):
    return np.concatenate([np.cumprod(shape[::-1])[::-1][1:], [1]]).astype(np.int64) if len(shape) else \
        np.zeros(0, np.int64)


def _reshape_kernel(input_indices, input_shape, new_shape):
    in_shape = host_shape(input_shape)
    out_shape = _resolve_shape(in_shape, host_shape(new_shape))
    if input_indices.shape[1] != in_shape.size:
        raise _invalid(f"Input tensor rank must match input shape length, {input_indices.shape[1]} vs "
                       f"{in_shape.size}")
    linear = input_indices @ _strides(in_shape) if in_shape.size else np.zeros(input_indices.shape[0], np.int64)
    if out_shape.size == 0:
        return np.zeros((input_indices.shape[0], 0), np.int64), out_shape
    out = np.stack(np.unravel_index(linear, tuple(out_shape.tolist())), axis=1) if linear.size else \
        np.zeros((0, out_shape.size), np.int64)
    return out.astype(np.int64), out_shape


register("SparseReshape", infer=_reshape_infer, kernel=_reshape_kernel, gpu=False, foldable=False)


@tf_export("sparse.reshape", "sparse_reshape")
def sparse_reshape(sp_input, shape, name=None) -> SparseTensor:
    """``sp_input`` reshaped to ``shape`` (one dimension may be -1), its values unchanged.

    >>> import dflow as tf
    >>> tf.sparse.reshape(tf.SparseTensor([[0, 3]], [1.0], [2, 4]), [-1, 2]).shape
    TensorShape([4, 2])
    """
    sp = as_sparse(sp_input)
    with name_scope(name, "SparseReshape", [sp.indices, sp.dense_shape]) as scope:
        new = _as_int64(shape, "shape")
        op = apply_op("SparseReshape", [sp.indices, sp.dense_shape, new], name=scope)
        known, in_shape = constant_value(new), sp.shape
        if known is not None and in_shape.is_fully_defined():
            try:
                full = _resolve_shape(np.array(in_shape.as_list(), np.int64), np.asarray(known).reshape(-1))
            except Exception as e:  # noqa: BLE001 - the kernel's error becomes TF1's graph-time ValueError
                raise ValueError(f"Cannot reshape a tensor with {in_shape.num_elements()} elements to shape "
                                 f"{np.asarray(known).reshape(-1).tolist()}: {e.message}") from None
            return SparseTensor(op.outputs[0], control_flow_ops.identity(sp.values), constant(full, dtypes.int64))
        return SparseTensor(op.outputs[0], control_flow_ops.identity(sp.values), op.outputs[1])


# -- SparseSlice --------------------------------------------------------------------------------------


def _slice_kernel(indices, values, shape, start, size):
    shape, start, size = host_shape(shape), host_shape(start), host_shape(size)
    if not (shape.size == start.size == size.size):
        raise _invalid(f"Expected start and size of length {shape.size} (the input's rank), got {start.size} and "
                       f"{size.size}")
    hi = np.minimum(start + size, shape)
    keep = np.all((indices >= start) & (indices < hi), axis=1) if indices.shape[0] else np.zeros(0, bool)
    out_shape = np.maximum(hi - start, 0)
    return (indices[keep] - start).astype(np.int64), values[keep], out_shape.astype(np.int64)


register("SparseSlice", infer=sparse_components_infer(2, 1), kernel=_slice_kernel, gpu=False, foldable=False)


def _slice_grad_kernel(backprop_val_grad, input_indices, input_start, output_indices):
    pos = match_rows(input_indices - host_shape(input_start), output_indices)
    out = np.zeros(input_indices.shape[0], backprop_val_grad.dtype)
    hit = pos >= 0
    out[hit] = backprop_val_grad[pos[hit]]
    return out


register("SparseSliceGrad", infer=lambda op: [(op._inputs[0].dtype, TensorShape([op._inputs[1].shape[0]]))],
         kernel=_slice_grad_kernel, gpu=False, foldable=False)
not_differentiable("SparseSliceGrad")


@gradient("SparseSlice")
def _slice_grad(op, _, grad, __):
    indices, _, _, start, _ = op._inputs
    val = apply_op("SparseSliceGrad", [grad, indices, start, op._outputs[0]]).outputs[0]
    return [None, val, None, None, None]


@tf_export("sparse.slice", "sparse_slice")
def sparse_slice(sp_input, start, size, name=None) -> SparseTensor:
    """The entries of ``sp_input`` in the box ``[start, start + size)``, re-indexed from ``start``.

    >>> import dflow as tf
    >>> st = tf.SparseTensor([[0, 1], [1, 3]], [1, 2], [2, 4])
    >>> tf.Session().run(tf.sparse.slice(st, [0, 2], [2, 2]).indices).tolist()
    [[1, 1]]
    """
    sp = as_sparse(sp_input)
    with name_scope(name, "SparseSlice", [sp.indices, sp.values]) as scope:
        op = apply_op("SparseSlice", [sp.indices, sp.values, sp.dense_shape, _as_int64(start, "start"),
                                      _as_int64(size, "size")], name=scope)
    return SparseTensor(*op.outputs)


# -- SparseConcat -------------------------------------------------------------------------------------


def _concat_infer(op):
    n = op._attrs["N"]
    rank = next((r for r in (rank_of(t) for t in op._inputs[2 * n:]) if r is not None), None)
    dts = {t.dtype for t in op._inputs[n:2 * n]}
    if len(dts) > 1:
        raise TypeError(f"Tensors in list passed to 'values' of 'SparseConcat' Op have types "
                        f"[{', '.join(t.dtype.name for t in op._inputs[n:2 * n])}] that don't all match.")
    return [(dtypes.int64, TensorShape([None, rank])), (op._inputs[n].dtype, TensorShape([None])),
            (dtypes.int64, TensorShape([rank]))]


def _concat_kernel(*arrays, concat_dim, N):  # noqa: N803 - TF1's attr name
    inds, vals, shapes = arrays[:N], arrays[N:2 * N], [host_shape(s) for s in arrays[2 * N:]]
    rank = shapes[0].size
    dim = concat_dim + rank if concat_dim < 0 else concat_dim
    if not 0 <= dim < rank:
        raise _invalid(f"Concat dimension must be in range [{-rank}, {rank}), got {concat_dim}")
    for i, s in enumerate(shapes[1:], 1):
        if s.size != rank:
            raise _invalid(f"Ranks of all input tensors must match: expected {rank} but got {s.size} at position "
                           f"{i}")
        for d in range(rank):
            if d != dim and s[d] != shapes[0][d]:
                raise _invalid(f"Input shapes must match: expected {shapes[0][d]} for dimension {d} but got "
                               f"{s[d]} at position {i}")
    offsets = np.cumsum([0] + [int(s[dim]) for s in shapes[:-1]])
    moved = []
    for ind, off in zip(inds, offsets):
        ind = ind.copy()
        ind[:, dim] += off
        moved.append(ind)
    out_ind = np.concatenate(moved).reshape(-1, rank)
    out_val = np.concatenate(vals)
    order = lex_order(out_ind)
    out_shape = shapes[0].copy()
    out_shape[dim] = sum(int(s[dim]) for s in shapes)
    return out_ind[order], out_val[order], out_shape


register("SparseConcat", infer=_concat_infer, kernel=_concat_kernel, gpu=False, foldable=False)
not_differentiable("SparseConcat")


@tf_export("sparse.concat", "sparse_concat")
def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
                  expand_nonconcat_dims=None) -> SparseTensor:
    """The SparseTensors ``sp_inputs`` joined along ``axis`` (output in row-major order).

    With ``expand_nonconcat_dim`` the other dimensions grow to the largest input's.

    >>> import dflow as tf
    >>> a = tf.SparseTensor([[0, 0]], [1], [1, 2])
    >>> tf.sparse.concat(1, [a, a]).shape
    TensorShape([1, 4])
    """
    if concat_dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'concat_dim'")
        axis = concat_dim
    if expand_nonconcat_dims is not None:
        expand_nonconcat_dim = expand_nonconcat_dims
    if not isinstance(sp_inputs, (list, tuple)):
        raise TypeError(f"Expected list for 'sp_inputs' argument to 'sparse_concat', not {sp_inputs!r}")
    sps = [as_sparse(s, "sp_inputs") for s in sp_inputs]
    if not sps:
        raise ValueError("sp_inputs must not be empty")
    axis = int(axis)
    with name_scope(name, "SparseConcat", [s.indices for s in sps]) as scope:
        shapes = [s.dense_shape for s in sps]
        if expand_nonconcat_dim:
            max_shape = reduction_ops.reduce_max(array_ops.stack(shapes), axis=0)
            shapes = []
            for s in sps:
                rank = rank_of(s.dense_shape)
                if rank is None:
                    raise ValueError("expand_nonconcat_dim needs inputs of known rank")
                ax = axis + rank if axis < 0 else axis
                parts = [max_shape[:ax], s.dense_shape[ax:ax + 1], max_shape[ax + 1:]]

                shapes.append(array_ops.concat(parts, 0))
        inputs = [s.indices for s in sps] + [s.values for s in sps] + shapes
        op = apply_op("SparseConcat", inputs, {"concat_dim": axis, "N": len(sps)}, name=scope)
    known = [constant_value(t) for t in shapes]
    if all(k is not None for k in known):  # TF1 makes the dense shape a constant then
        out_shape = np.asarray(known[0]).reshape(-1).copy()
        out_shape[axis] = sum(int(np.asarray(k).reshape(-1)[axis]) for k in known)
        return SparseTensor(op.outputs[0], op.outputs[1], constant(out_shape, dtypes.int64))
    return SparseTensor(*op.outputs)


# -- SparseSplit --------------------------------------------------------------------------------------


def _split_infer(op):
    n = op._attrs["num_split"]
    rank = rank_of(op._inputs[3])
    return ([(dtypes.int64, TensorShape([None, rank]))] * n + [(op._inputs[2].dtype, TensorShape([None]))] * n
            + [(dtypes.int64, TensorShape([rank]))] * n)


def _split_kernel(split_dim, indices, values, shape, num_split):
    shape = host_shape(shape)
    dim = int(host(split_dim))
    dim = dim + shape.size if dim < 0 else dim
    if not 0 <= dim < shape.size:
        raise _invalid(f"Input split_dim should be between -{shape.size} and {shape.size}, got "
                       f"{int(host(split_dim))}")
    size = int(shape[dim])
    if num_split < 1 or num_split > size:
        raise _invalid(f"Input num_split should be between 1 and the splitting dimension size ({size}), got "
                       f"{num_split}")
    base, extra = divmod(size, num_split)
    sizes = [base + 1 if i < extra else base for i in range(num_split)]
    starts = np.cumsum([0] + sizes)
    col = indices[:, dim]
    piece = np.searchsorted(starts, col, side="right") - 1
    out_i, out_v, out_s = [], [], []
    for p in range(num_split):
        keep = piece == p
        ind = indices[keep].copy()
        ind[:, dim] -= starts[p]
        s = shape.copy()
        s[dim] = sizes[p]
        out_i.append(ind)
        out_v.append(values[keep])
        out_s.append(s)
    return tuple(out_i + out_v + out_s)


register("SparseSplit", infer=_split_infer, kernel=_split_kernel, gpu=False, foldable=False)


@tf_export("sparse.split", "sparse_split")
def sparse_split(keyword_required=None, sp_input=None, num_split=None, axis=None, name=None, split_dim=None) -> list:
    """``sp_input`` cut into ``num_split`` SparseTensors along ``axis`` (the first pieces one larger
    when the size does not divide evenly).

    >>> import dflow as tf
    >>> parts = tf.sparse.split(sp_input=tf.SparseTensor([[0, 3]], [1], [1, 4]), num_split=2, axis=1)
    >>> [p.shape for p in parts]
    [TensorShape([None, None]), TensorShape([None, None])]
    """
    if keyword_required is not None:
        raise ValueError("Keyword arguments are required for this function.")
    if split_dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'split_dim'")
        axis = split_dim
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None:
        raise ValueError("axis is required")
    sp = as_sparse(sp_input)
    n = int(num_split)
    with name_scope(name, "SparseSplit", [sp.indices, sp.values]) as scope:
        axis_t = _as_int64(axis, "split_dim")
        op = apply_op("SparseSplit", [axis_t, sp.indices, sp.values, sp.dense_shape], {"num_split": n}, name=scope)
    outs = op.outputs
    return [SparseTensor(outs[i], outs[n + i], outs[2 * n + i]) for i in range(n)]


# -- SparseFillEmptyRows ------------------------------------------------------------------------------


def _fill_infer(op):
    indices, values, shape, default = op._inputs
    if default.shape.ndims not in (None, 0):
        raise ValueError(f"default_value must be a scalar, got shape {default.shape}")
    rank = rank_of(shape)
    known = constant_value(shape)
    rows = None if known is None or np.size(known) == 0 else int(np.asarray(known).reshape(-1)[0])
    return [(dtypes.int64, TensorShape([None, rank])), (values.dtype, TensorShape([None])),
            (dtypes.bool, TensorShape([rows])), (dtypes.int64, TensorShape([indices.shape[0]]))]


def _fill_kernel(indices, values, dense_shape, default_value):
    shape = host_shape(dense_shape)
    if shape.size == 0:
        raise _invalid("dense_shape must be at least rank 1 (have rows)")
    rows = int(shape[0])
    n = indices.shape[0]
    row = indices[:, 0] if n else np.zeros(0, np.int64)
    if n and (row.min() < 0 or row.max() >= rows):
        i = int(np.flatnonzero((row < 0) | (row >= rows))[0])
        raise _invalid(f"indices({i}, 0) is invalid: {row[i]} >= {rows}")
    counts = np.bincount(row, minlength=rows)
    empty = counts == 0
    per_row = np.maximum(counts, 1)
    offsets = np.concatenate([[0], np.cumsum(per_row)[:-1]]).astype(np.int64)
    order = np.argsort(row, kind="stable")
    rank_in_row = np.empty(n, np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank_in_row[order] = np.arange(n) - np.repeat(starts, counts)
    reverse = offsets[row] + rank_in_row if n else np.zeros(0, np.int64)
    total = int(per_row.sum()) if rows else 0
    out_ind = np.zeros((total, shape.size), np.int64)
    out_val = np.full(total, default_value, dtype=values.dtype)
    out_ind[reverse] = indices
    out_val[reverse] = values
    out_ind[offsets[empty], 0] = np.flatnonzero(empty)
    return out_ind, out_val, empty, reverse.astype(np.int64)


register("SparseFillEmptyRows", infer=_fill_infer, kernel=_fill_kernel, gpu=False, foldable=False)


def _fill_grad_kernel(reverse_index_map, grad_values):
    d_values = grad_values[reverse_index_map]
    return d_values, np.asarray(grad_values.sum() - d_values.sum(), grad_values.dtype)


register("SparseFillEmptyRowsGrad", infer=lambda op: [(op._inputs[1].dtype, TensorShape([op._inputs[0].shape[0]])),
                                                      (op._inputs[1].dtype, TensorShape([]))],
         kernel=_fill_grad_kernel, gpu=False, foldable=False)
not_differentiable("SparseFillEmptyRowsGrad")


@gradient("SparseFillEmptyRows")
def _fill_grad(op, _, grad_values, __, ___):
    d_values, d_default = apply_op("SparseFillEmptyRowsGrad", [op._outputs[3], grad_values]).outputs
    return [None, d_values, None, d_default]


@tf_export("sparse.fill_empty_rows", "sparse_fill_empty_rows")
def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """``(filled, empty_row_indicator)``: ``sp_input`` with ``default_value`` at ``[row, 0, ...]`` of
    every row that had no entry, and which rows those were.

    >>> import dflow as tf
    >>> st, empty = tf.sparse.fill_empty_rows(tf.SparseTensor([[1, 0]], [5], [3, 2]), -1)
    >>> tf.Session().run(empty).tolist()
    [True, False, True]
    """
    sp = as_sparse(sp_input)
    with name_scope(name, "SparseFillEmptyRows", [sp.indices, sp.values]):
        default = convert_to_tensor(default_value, dtype=sp.dtype, name="default_value")
        op = apply_op("SparseFillEmptyRows", [sp.indices, sp.values, sp.dense_shape, default])
    out = SparseTensor(op.outputs[0], op.outputs[1], sp.dense_shape)
    out._static_shape = sp._static_shape
    return out, op.outputs[2]
