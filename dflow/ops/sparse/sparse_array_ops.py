"""``tf.sparse`` functions TF1 writes in Python: ``from_dense``, ``eye``, ``expand_dims``,
``retain``, ``reset_shape``, ``merge``, ``to_indicator``, ``transpose`` and ``mask``.

They are built from ops as TF1 builds them (``Where``, ``GatherV2``, ``ConcatV2``,
``SparseReorder`` ...), so the values they pass on keep their gradients. The
sparse ops themselves are in ``sparse_ops`` (structure) and ``sparse_math_ops``.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import IndexedSlices, SparseTensor, _as_int64
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import Tensor, control_dependencies, name_scope
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.array import array_ops, creation_ops, gather_ops, partition_ops, select_ops, shape_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.debugging import check_ops
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.sparse.sparse_ops import as_sparse, rank_of, sparse_reorder, sparse_tensor_to_dense


@tf_export("sparse.from_dense")
def from_dense(tensor, name=None) -> SparseTensor:
    """The SparseTensor of ``tensor``'s non-zero (non-empty) entries.

    >>> import dflow as tf
    >>> tf.Session().run(tf.sparse.from_dense([0, 3, 0]).indices).tolist()
    [[1]]
    """
    with name_scope(name, "dense_to_sparse", [tensor]):
        t = convert_to_tensor(tensor)
        indices = select_ops.where(math_ops.not_equal(t, creation_ops.zeros_like(t)))
        values = gather_ops.gather_nd(t, indices)
        shape = shape_ops.shape(t, out_type=dtypes.int64)
        return SparseTensor(indices, values, shape)


@tf_export("sparse.eye")
def sparse_eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None) -> SparseTensor:
    """The ``[num_rows, num_columns]`` identity matrix as a SparseTensor.

    >>> import dflow as tf
    >>> tf.sparse.eye(3).shape
    TensorShape([3, 3])
    """
    with name_scope(name, "eye", [num_rows, num_columns]):
        rows = _as_int64(num_rows, "num_rows")
        cols = rows if num_columns is None else _as_int64(num_columns, "num_columns")
        diag = math_ops.minimum(rows, cols)
        idx = creation_ops.range(diag)
        indices = array_ops.stack([idx, idx], axis=1)
        values = creation_ops.ones(shape_ops.expand_dims(diag, 0), dtype=dtype)
        return SparseTensor(indices, values, array_ops.stack([rows, cols]))


@tf_export("sparse.expand_dims")
def sparse_expand_dims(sp_input, axis=None, name=None) -> SparseTensor:
    """``sp_input`` with a new dimension of size 1 at ``axis`` (default -1: last).

    >>> import dflow as tf
    >>> tf.sparse.expand_dims(tf.SparseTensor([[1]], [1.0], [3]), 0).shape
    TensorShape([1, 3])
    """
    sp = as_sparse(sp_input)
    with name_scope(name, "expand_dims", [sp.indices, sp.values]):
        axis = -1 if axis is None else axis
        rank = rank_of(sp.dense_shape)
        if isinstance(axis, (int, np.integer)) and rank is not None:
            if not -rank - 1 <= axis <= rank:
                raise ValueError(f"axis {axis} is out of range for a SparseTensor of rank {rank}")
            ax = int(axis) if axis >= 0 else int(axis) + rank + 1
        else:
            axis_t = _as_int64(axis, "axis")
            r = math_ops.cast(shape_ops.shape(sp.dense_shape)[0], dtypes.int64)
            ax = select_ops.where(axis_t >= 0, axis_t, axis_t + r + 1)
        column = creation_ops.zeros(array_ops.stack([shape_ops.shape(sp.indices, out_type=dtypes.int64)[0],
                                                  constant(1, dtypes.int64)]), dtype=dtypes.int64)
        indices = array_ops.concat([sp.indices[:, :ax], column, sp.indices[:, ax:]], axis=1)
        shape = array_ops.concat([sp.dense_shape[:ax], constant([1], dtypes.int64), sp.dense_shape[ax:]], 0)
        return SparseTensor(indices, sp.values, shape)


@tf_export("sparse.retain", "sparse_retain")
def sparse_retain(sp_input, to_retain) -> SparseTensor:
    """The entries of ``sp_input`` where the bool vector ``to_retain`` is True (same dense shape).

    >>> import dflow as tf
    >>> st = tf.sparse.retain(tf.SparseTensor([[0], [2]], [1, 2], [3]), [False, True])
    >>> tf.Session().run(st.values).tolist()
    [2]
    """
    sp = as_sparse(sp_input)
    keep = convert_to_tensor(to_retain, dtype=dtypes.bool)
    if keep.shape.ndims not in (None, 1):
        raise ValueError(f"to_retain must be a vector, got shape {keep.shape}")
    keep.shape.merge_with(TensorShape([sp.values.shape[0] if sp.values.shape.ndims else None]))
    where = shape_ops.reshape(select_ops.where(keep), [-1])
    out = SparseTensor(gather_ops.gather(sp.indices, where), gather_ops.gather(sp.values, where),
                       control_flow_ops.identity(sp.dense_shape))
    out._static_shape = sp._static_shape
    return out


@tf_export("sparse.reset_shape", "sparse_reset_shape")
def sparse_reset_shape(sp_input, new_shape=None) -> SparseTensor:
    """``sp_input`` with dense shape ``new_shape`` (no smaller than the old one), or, by default, the
    tightest shape that holds its indices.

    >>> import dflow as tf
    >>> st = tf.sparse.reset_shape(tf.SparseTensor([[1, 2]], [1], [5, 5]))
    >>> tf.Session().run(st.dense_shape).tolist()
    [2, 3]
    """
    sp = as_sparse(sp_input)
    indices, values = sp.indices, sp.values
    if new_shape is None:
        shape = reduction_ops.reduce_max(indices, axis=0) + 1
        return SparseTensor(indices, values, shape)
    new = _as_int64(new_shape, "new_shape")
    old_rank, new_rank = rank_of(sp.dense_shape), rank_of(new)
    if new.shape.ndims not in (None, 1):
        raise ValueError(f"new_shape must be a vector, got shape {new.shape}")
    if old_rank is not None and new_rank is not None and old_rank != new_rank:
        raise ValueError(f"new_shape has rank {new_rank}, but sp_input has rank {old_rank}")
    const_new, old_static = constant_value(new), sp.shape
    if const_new is not None and old_static.is_fully_defined():
        if np.any(np.asarray(const_new) < np.array(old_static.as_list())):
            raise ValueError("Requested new_shape should be >= the old shape, in every dimension: "
                             f"{np.asarray(const_new).tolist()} vs {old_static.as_list()}")
        return SparseTensor(indices, values, new)
    check = check_ops.assert_equal(shape_ops.shape(new), shape_ops.shape(sp.dense_shape),
                                   message="new_shape must have the rank of sp_input")
    with control_dependencies([check]):
        ok = check_ops.assert_less_equal(sp.dense_shape, new,
                                         message="Requested new_shape should be >= the old shape")
    with control_dependencies([ok]):
        new = control_flow_ops.identity(new)
    return SparseTensor(indices, values, new)


def sparse_merge_impl(sp_ids, sp_values, vocab_size, name=None, already_sorted=False) -> SparseTensor:
    """TF1's ``sparse_merge`` without the deprecation: see ``sparse_merge``."""
    if isinstance(vocab_size, (int, np.integer, Tensor)) or np.ndim(vocab_size) == 0:
        sp_ids, vocab_size = [as_sparse(sp_ids, "sp_ids")], [vocab_size]
    else:
        sp_ids = [as_sparse(s, "sp_ids") for s in sp_ids]
        if len(sp_ids) != len(vocab_size):
            raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    sp_values = as_sparse(sp_values, "sp_values")
    with name_scope(name, "SparseMerge", [s.indices for s in sp_ids] + [sp_values.values]):
        ids = []
        for s in sp_ids:
            if s.dtype not in (dtypes.int32, dtypes.int64):
                raise TypeError(f"sp_ids.values.dtype must be int32 or int64, got {s.dtype.name}")
            ids.append(math_ops.cast(s.values, dtypes.int64) if s.dtype is dtypes.int32 else s.values)
        preserved = sp_ids[0].indices[:, :-1]
        new_indices = array_ops.concat([preserved] + [shape_ops.expand_dims(i, 1) for i in ids], 1)
        sizes = [math_ops.cast(_as_int64(v, "vocab_size"), dtypes.int64) for v in vocab_size]
        new_shape = array_ops.concat([sp_ids[0].dense_shape[:-1], array_ops.stack(sizes)], 0)
        result = SparseTensor(new_indices, sp_values.values, new_shape)
        if already_sorted:
            return result
        ordered = sparse_reorder(result)
        return SparseTensor(ordered.indices, ordered.values, new_shape)


@tf_export("sparse.merge", "sparse_merge")
def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False) -> SparseTensor:
    """A SparseTensor whose last index is ``sp_ids``' value and whose values are ``sp_values``'
    (deprecated in TF1; ``vocab_size`` is the new last dimension, a list for several ``sp_ids``).

    >>> import dflow as tf
    >>> ids = tf.SparseTensor([[0, 0], [0, 1]], [4, 1], [1, 2])
    >>> tf.sparse.merge(ids, tf.SparseTensor([[0, 0], [0, 1]], [.5, .25], [1, 2]), 5).shape
    TensorShape([None, None])
    """
    return sparse_merge_impl(sp_ids, sp_values, vocab_size, name, already_sorted)


@tf_export("sparse.to_indicator", "sparse_to_indicator")
def sparse_to_indicator(sp_input, vocab_size, name=None):
    """A bool ``[..., vocab_size]`` tensor: True at the ids each row of ``sp_input`` holds.

    >>> import dflow as tf
    >>> ind = tf.sparse.to_indicator(tf.SparseTensor([[0, 0], [0, 1]], [3, 1], [1, 2]), 4)
    >>> tf.Session().run(ind).tolist()
    [[False, True, False, True]]
    """
    sp = as_sparse(sp_input)
    with name_scope(name, "SparseToIndicator", [sp.indices, sp.values]) as scope:
        n = shape_ops.shape(sp.indices)[0]
        flags = creation_ops.fill(shape_ops.expand_dims(n, 0), True)
        merged = sparse_merge_impl(sp, SparseTensor(sp.indices, flags, sp.dense_shape), vocab_size)
        return sparse_tensor_to_dense(merged, default_value=False, validate_indices=False, name=scope)


@tf_export("sparse.transpose", "sparse_transpose")
def sparse_transpose(sp_input, perm=None, name=None) -> SparseTensor:
    """``sp_input`` with its dimensions permuted by ``perm`` (default: reversed), in row-major order.

    >>> import dflow as tf
    >>> tf.sparse.transpose(tf.SparseTensor([[0, 2]], [1], [2, 3])).shape
    TensorShape([3, 2])
    """
    sp = as_sparse(sp_input)
    with name_scope(name, "SparseTranspose", [sp.indices, sp.values]):
        rank = rank_of(sp.dense_shape)
        if perm is None:
            if rank is not None:
                perm = list(range(rank - 1, -1, -1))
            else:
                r = shape_ops.shape(sp.dense_shape)[0]
                perm = creation_ops.range(r - 1, -1, -1)
        indices = shape_ops.transpose(gather_ops.gather(shape_ops.transpose(sp.indices), perm))
        perm_value = constant_value(perm) if isinstance(perm, Tensor) else np.asarray(perm)
        static = sp.shape
        if perm_value is not None and static.is_fully_defined():
            dims = static.as_list()
            shape = constant([dims[int(p)] for p in np.asarray(perm_value).reshape(-1)], dtypes.int64)
        else:
            shape = gather_ops.gather(sp.dense_shape, perm)
        return sparse_reorder(SparseTensor(indices, sp.values, shape))


@tf_export("sparse.mask", "sparse_mask")
def sparse_mask(a, mask_indices, name=None) -> IndexedSlices:
    """The IndexedSlices ``a`` without the rows listed in ``mask_indices``.

    >>> import dflow as tf
    >>> s = tf.IndexedSlices(tf.constant([[1.], [2.]]), tf.constant([3, 5]), tf.constant([6, 1]))
    >>> tf.Session().run(tf.sparse.mask(s, [5]).indices).tolist()
    [3]
    """
    if not isinstance(a, IndexedSlices):
        raise TypeError(f"sparse.mask expects an IndexedSlices, got {type(a).__name__}")
    with name_scope(name, "sparse_mask", [a.values, a.indices]) as scope:
        indices = a.indices
        mask = convert_to_tensor(mask_indices, dtype=indices.dtype, name="mask_indices")
        out_indices, to_gather = partition_ops.setdiff1d(indices, mask)
        return IndexedSlices(gather_ops.gather(a.values, to_gather, name=scope), out_indices, a.dense_shape)
