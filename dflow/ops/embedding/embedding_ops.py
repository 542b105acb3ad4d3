"""Embeddings: ``tf.nn.embedding_lookup``, ``embedding_lookup_sparse`` and ``safe_embedding_lookup_sparse``.

A lookup is a ``GatherV2`` of the table's rows (one per shard when the table
is a list of partitions, joined by ``DynamicStitch``), built as TF1 builds it,
so ids, partition strategies (``"mod"``, ``"div"``), ``max_norm`` clipping and
the combiners give TF1's numbers.

The gradient of a lookup with respect to its table is an ``IndexedSlices``
(the looked-up rows only), as in TF1: it flows back through the variable's
read, ``tf.gradients`` returns it, and ``Optimizer.apply_gradients`` updates
only those rows (``ScatterSub`` for gradient descent, TF1's ``SparseApply*``
ops for the others, which also leave the other rows' slots alone). dflow's
``tf.gather`` itself keeps its dense gradient; lookups get theirs through the
gradient override ``"EmbeddingGather"``.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import IndexedSlices, SparseTensor
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import colocate_with, get_default_graph, name_scope
from dflow.framework.op_registry import RegisterGradient
from dflow.framework.tensor_shape import Dimension, TensorShape, unknown_shape
from dflow.ops.array import (
    array_ops,
    creation_ops,
    gather_ops,
    partition_ops,
    select_ops,
    shape_ops,
    slicing_ops,
    tiling_ops,
)
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.math import clip_ops, math_ops, reduction_ops, segment_ops, sort_ops, unary_math_ops
from dflow.ops.sparse.sparse_array_ops import sparse_retain
from dflow.ops.sparse.sparse_ops import as_sparse, sparse_fill_empty_rows, sparse_reshape

_ROWS_GRADIENT = "EmbeddingGather"


@RegisterGradient(_ROWS_GRADIENT)
def _gather_rows_grad(op, grad):
    """TF1's ``GatherV2`` gradient for axis 0: the output gradient as rows of ``params``."""
    params, indices = op.inputs[0], op.inputs[1]
    params_shape = shape_ops.shape(params)
    size = shape_ops.expand_dims(shape_ops.size(indices), 0)
    values = shape_ops.reshape(grad, array_ops.concat([size, params_shape[1:]], 0))
    values.set_shape(TensorShape([None]).concatenate(params.shape[1:]) if params.shape.ndims else unknown_shape())
    return [IndexedSlices(values, shape_ops.reshape(indices, size), params_shape)] + [None] * (len(op.inputs) - 1)


def _gather_rows(params, ids, name=None):
    """``tf.gather(params, ids)`` whose gradient for ``params`` is an IndexedSlices."""
    with get_default_graph().gradient_override_map({"GatherV2": _ROWS_GRADIENT}):
        return gather_ops.gather(params, ids, name=name)


def _clip(params, ids, max_norm):
    """Rows of ``params`` (one per id) scaled down to L2 norm ``max_norm`` (TF1's ``_clip``)."""
    if max_norm is None:
        return params
    ids_rank, params_rank = ids.shape.ndims, params.shape.ndims
    if ids_rank is not None and params_rank is not None:
        axes = list(range(ids_rank, params_rank))
    else:
        axes = creation_ops.range(shape_ops.rank(ids), shape_ops.rank(params))
    return clip_ops.clip_by_norm(params, max_norm, axes=axes)


def _as_param_list(params, what: str) -> list:
    if params is None or (isinstance(params, (list, tuple)) and not params):
        raise ValueError("Need at least one param")
    if isinstance(params, tuple):
        params = list(params)
    return params if isinstance(params, list) else [params]


@tf_export("nn.embedding_lookup")
def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None):
    """The rows ``ids`` of the table ``params`` (``ids.shape + params.shape[1:]``).

    ``params`` may be a list of shards: id ``i`` lives in shard ``i % n`` at
    row ``i // n`` (``"mod"``), or in contiguous blocks (``"div"``). With
    ``max_norm`` each row is clipped to that L2 norm.

    >>> import dflow as tf
    >>> table = tf.constant([[0., 1.], [2., 3.], [4., 5.]])
    >>> tf.Session().run(tf.nn.embedding_lookup(table, [2, 0])).tolist()
    [[4.0, 5.0], [0.0, 1.0]]
    """
    del validate_indices  # TF1 ignores it too
    params = _as_param_list(params, "params")
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"Unrecognized partition strategy: {partition_strategy}. Must be one of either `mod` or "
                         f"`div`.")
    with name_scope(name, "embedding_lookup", params + [ids]) as name:
        n = len(params)
        params = [p if isinstance(p, IndexedSlices) else convert_to_tensor(p, name="params") for p in params]
        ids = convert_to_tensor(ids, name="ids")
        if n == 1:
            with colocate_with(params[0]):
                result = _clip(_gather_rows(params[0], ids, name=name), ids, max_norm)
            return control_flow_ops.identity(result)
        flat_ids = shape_ops.reshape(ids, [-1])
        original_indices = creation_ops.range(shape_ops.size(flat_ids))
        if partition_strategy == "mod":
            assignments = flat_ids % n
            new_ids = flat_ids // n
        else:
            dim0 = Dimension(params[0].shape[0] if params[0].shape.ndims else None)
            for p in params[1:]:
                dim0 += Dimension(p.shape[0] if p.shape.ndims else None)
            if dim0.value:
                total = constant(dim0.value, flat_ids.dtype)
            else:
                sizes = []
                for p in params:
                    with colocate_with(p):
                        sizes.append(shape_ops.shape(p)[0])
                total = reduction_ops.reduce_sum(math_ops.cast(array_ops.stack(sizes), flat_ids.dtype))
            per = total // n
            extras = total % n
            assignments = math_ops.maximum(flat_ids // (per + 1), (flat_ids - extras) // per)
            in_extras = math_ops.cast(assignments < extras, flat_ids.dtype)
            new_ids = in_extras * (flat_ids % (per + 1)) + (1 - in_extras) * ((flat_ids - extras) % per)
        assignments = math_ops.cast(assignments, dtypes.int32)
        gather_ids = partition_ops.dynamic_partition(new_ids, assignments, n)
        pindices = partition_ops.dynamic_partition(original_indices, assignments, n)
        parts = []
        for p in range(n):
            with colocate_with(params[p]):
                parts.append(_gather_rows(params[p], gather_ids[p]))
        ret = partition_ops.dynamic_stitch(pindices, parts, name=name)
        element_shape = params[0].shape[1:]
        for p in params[1:]:
            element_shape = element_shape.merge_with(p.shape[1:])
        if element_shape.is_fully_defined():
            element_dims = constant(element_shape.as_list(), dtypes.int32)
        else:
            with colocate_with(params[0]):
                element_dims = shape_ops.shape(params[0])[1:]
        ret = shape_ops.reshape(ret, array_ops.concat([shape_ops.shape(ids), element_dims], 0))
        ret = _clip(ret, ids, max_norm)
        ret.set_shape(ids.shape.concatenate(element_shape))
        return ret


def _combine(params, segment_ids, sp_weights, ids, combiner, max_norm, partition_strategy, name):
    """TF1's ``embedding_lookup_sparse_impl``: look up the unique ids once, then combine per row."""
    if segment_ids.dtype is not dtypes.int32:
        segment_ids = math_ops.cast(segment_ids, dtypes.int32)
    ids, idx = sort_ops.unique(ids)
    embeddings = embedding_lookup(params, ids, partition_strategy=partition_strategy, max_norm=max_norm)
    if sp_weights is None:
        fn = {"sum": segment_ops.sparse_segment_sum, "mean": segment_ops.sparse_segment_mean,
              "sqrtn": segment_ops.sparse_segment_sqrt_n}[combiner]
        return fn(embeddings, idx, segment_ids, name=name)
    weights = sp_weights.values
    embeddings = gather_ops.gather(embeddings, idx)
    original_dtype = embeddings.dtype
    if embeddings.dtype is dtypes.float16:
        embeddings = math_ops.cast(embeddings, dtypes.float32)
    if weights.dtype is not embeddings.dtype:
        weights = math_ops.cast(weights, embeddings.dtype)
    ones = creation_ops.ones(shape_ops.expand_dims(shape_ops.rank(embeddings) - 1, 0), dtype=dtypes.int32)
    static = weights.shape
    weights = shape_ops.reshape(weights, array_ops.concat([shape_ops.shape(weights), ones], 0))
    if embeddings.shape.ndims is not None:
        weights.set_shape(static.concatenate([1] * (embeddings.shape.ndims - 1)))
    embeddings = embeddings * weights
    if combiner == "sum":
        embeddings = segment_ops.segment_sum(embeddings, segment_ids, name=name)
    elif combiner == "mean":
        embeddings = segment_ops.segment_sum(embeddings, segment_ids)
        embeddings = math_ops.div_no_nan(embeddings, segment_ops.segment_sum(weights, segment_ids), name=name)
    else:
        embeddings = segment_ops.segment_sum(embeddings, segment_ids)
        total = segment_ops.segment_sum(math_ops.pow(weights, 2), segment_ids)
        embeddings = math_ops.div_no_nan(embeddings, unary_math_ops.sqrt(total), name=name)
    if embeddings.dtype is not original_dtype:
        embeddings = math_ops.cast(embeddings, original_dtype)
    return embeddings


@tf_export("nn.embedding_lookup_sparse")
def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None, combiner=None,
                            max_norm=None, allow_fast_lookup=False):
    """Per row of the ``[batch, ?]`` SparseTensor ``sp_ids``, its ids' embeddings combined by
    ``combiner`` (``"sum"``, ``"mean"`` (default) or ``"sqrtn"``), weighted by ``sp_weights`` if given.

    Rows after the last one holding an id are left out, as in TF1.

    >>> import dflow as tf
    >>> ids = tf.SparseTensor([[0, 0], [0, 1]], tf.constant([0, 2], tf.int64), [1, 2])
    >>> table = tf.constant([[0., 1.], [2., 3.], [4., 5.]])
    >>> tf.Session().run(tf.nn.embedding_lookup_sparse(table, ids, None)).tolist()
    [[2.0, 3.0]]
    """
    del allow_fast_lookup  # a TF kernel choice; the result is the same
    combiner = "mean" if combiner is None else combiner
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    params = _as_param_list(params, "params")
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    if sp_weights is not None:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError(f"sp_weights must be either None or SparseTensor, got {type(sp_weights)}")
        sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
        sp_ids.indices.shape.assert_is_compatible_with(sp_weights.indices.shape)
        sp_ids.dense_shape.shape.assert_is_compatible_with(sp_weights.dense_shape.shape)
    with name_scope(name, "embedding_lookup_sparse", params + [sp_ids]) as name:
        return _combine(params, sp_ids.indices[:, 0], sp_weights, sp_ids.values, combiner, max_norm,
                        partition_strategy, name)


def _prune_invalid_ids(sparse_ids, sparse_weights):
    valid = math_ops.greater_equal(sparse_ids.values, 0)
    if sparse_weights is not None:
        valid = math_ops.logical_and(valid, creation_ops.ones_like(sparse_weights.values, dtype=dtypes.bool))
    sparse_ids = sparse_retain(sparse_ids, valid)
    if sparse_weights is not None:
        sparse_weights = sparse_retain(sparse_weights, valid)
    return sparse_ids, sparse_weights


def _prune_invalid_weights(sparse_ids, sparse_weights):
    if sparse_weights is not None:
        valid = math_ops.greater(sparse_weights.values, 0)
        sparse_ids = sparse_retain(sparse_ids, valid)
        sparse_weights = sparse_retain(sparse_weights, valid)
    return sparse_ids, sparse_weights


@tf_export("nn.safe_embedding_lookup_sparse")
def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, name=None, partition_strategy="div", max_norm=None,
                                 allow_fast_lookup=False):
    """``embedding_lookup_sparse`` that ignores negative ids (and, unless summing, non-positive
    weights), gives every row a result (zeros, or ``default_id``'s embedding, for rows without ids)
    and takes ids of any rank ``[d0, ..., dn, ?]`` (result ``[d0, ..., dn, dim]``).

    >>> import dflow as tf
    >>> ids = tf.SparseTensor([[1, 0]], tf.constant([2], tf.int64), [2, 1])
    >>> table = tf.constant([[0., 1.], [2., 3.], [4., 5.]])
    >>> tf.Session().run(tf.nn.safe_embedding_lookup_sparse(table, ids)).tolist()
    [[0.0, 0.0], [4.0, 5.0]]
    """
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    embedding_weights = _as_param_list(embedding_weights, "embedding_weights")
    if not embedding_weights:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    sparse_ids = as_sparse(sparse_ids, "sparse_ids")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    embedding_weights = [convert_to_tensor(w, dtype=dtype) for w in embedding_weights]
    with name_scope(name, "embedding_lookup", embedding_weights + [sparse_ids.values]) as scope:
        original_shape = sparse_ids.dense_shape
        rank_dim = sparse_ids.dense_shape.shape[0] if sparse_ids.dense_shape.shape.ndims else None
        rank_dim = rank_dim.value if isinstance(rank_dim, Dimension) else rank_dim
        rank = shape_ops.size(original_shape) if rank_dim is None else rank_dim
        lead_size = shape_ops.reshape(rank - 1, [1]) if rank_dim is None else [rank_dim - 1]
        sparse_ids = sparse_reshape(sparse_ids, array_ops.stack([
            reduction_ops.reduce_prod(slicing_ops.slice(original_shape, [0], lead_size)),
            gather_ops.gather(original_shape, rank - 1)]))
        if sparse_weights is not None:
            sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values, sparse_ids.dense_shape)
        sparse_ids, sparse_weights = _prune_invalid_ids(sparse_ids, sparse_weights)
        if combiner != "sum":
            sparse_ids, sparse_weights = _prune_invalid_weights(sparse_ids, sparse_weights)
        sparse_ids, is_row_empty = sparse_fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights, combiner=combiner,
                                         partition_strategy=partition_strategy,
                                         name=None if default_id is None else scope, max_norm=max_norm)
        if default_id is None:
            is_row_empty = tiling_ops.tile(shape_ops.reshape(is_row_empty, [-1, 1]),
                                           array_ops.stack([1, shape_ops.shape(result)[1]]))
            result = select_ops.where(is_row_empty, creation_ops.zeros_like(result), result, name=scope)
        final = shape_ops.reshape(result, array_ops.concat(
            [slicing_ops.slice(math_ops.cast(original_shape, dtypes.int32), [0], lead_size),
             slicing_ops.slice(shape_ops.shape(result), [1], [-1])], 0))
        lead = unknown_shape() if rank_dim is None else TensorShape([None] * (rank_dim - 1))
        final.set_shape(lead.concatenate(result.shape[1:]))
        return final
