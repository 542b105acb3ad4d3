"""Segment reductions: ``segment_*``, ``unsorted_segment_*`` and ``sparse_segment_*``.

A segment reduction combines the rows of ``data`` that share a segment id.
The sorted ops (``SegmentSum`` ...) take 1-D, non-decreasing, non-negative
ids and make ``ids[-1] + 1`` rows; the unsorted ops take ids of any shape
that prefixes ``data``'s, ``num_segments`` rows, and drop rows whose id is
negative; the sparse ops first gather ``data``'s rows at ``indices``. Empty
segments hold 0 (sum, mean, sqrt_n, and sorted max/min), 1 (prod), or the
dtype's lowest (unsorted max) or highest (unsorted min) value, as in TF1.

The kernels rely on numpy's ``ufunc.at`` (CuPy lacks ``multiply.at``), so
the ops are registered for CPU devices only.

Every gradient is one ``SegmentReductionGrad`` kernel: the output gradient
gathered back to the rows, scaled for mean/sqrt_n, split among ties for
max/min, and, for prod, the product of the other rows (zeros handled).
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import IndexedSlices
from dflow.framework.constant_op import convert_to_tensor, register_tensor_conversion_function
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor import Tensor
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array.gather_ops import gather, gather_grad
from dflow.ops.array.index_args import host, index_tensor, kernel_int, with_rank, with_rank_at_least
from dflow.ops.array.shape_ops import shape as shape_of

_UFUNCS = {"sum": "add", "mean": "add", "sqrt_n": "add", "prod": "multiply", "max": "maximum", "min": "minimum"}


def _identity(kind: str, dtype):
    """The value an unsorted reduction gives an empty segment."""
    if kind == "prod":
        return 1
    if kind in ("max", "min"):
        info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
        return info.min if kind == "max" else info.max
    return 0


def _reduce(kind: str, data, ids, n: int, sorted_ids: bool = False):
    """``data``'s rows (ids.shape prefixes data.shape) combined by id into ``n`` rows; negative ids dropped."""
    xp = array_module(data, ids)
    rest = data.shape[ids.ndim:]
    rows = data.reshape((-1,) + rest)
    flat = ids.reshape(-1)
    if flat.size and flat.min() < 0:
        keep = flat >= 0
        rows, flat = rows[keep], flat[keep]
    ufunc = getattr(xp, _UFUNCS[kind])
    # Sorted max/min start from the unsorted identity too; their empty segments become 0 below.
    out = xp.full((n,) + rest, _identity(kind, data.dtype), dtype=data.dtype)
    ufunc.at(out, flat, rows)
    if kind in ("mean", "sqrt_n") or (sorted_ids and kind in ("max", "min")):
        counts = xp.bincount(flat, minlength=n).reshape((n,) + (1,) * len(rest))
        if kind == "mean":
            out = out / xp.maximum(counts, 1).astype(out.dtype)
        elif kind == "sqrt_n":
            out = out / xp.sqrt(xp.maximum(counts, 1)).astype(out.dtype)
        else:
            out = xp.where(counts > 0, out, xp.zeros((), data.dtype))
    return out.astype(data.dtype, copy=False)


def _check_sorted(ids, rows: int) -> None:
    """TF1's checks of sorted segment ids, naming the offending position."""
    if ids.ndim != 1 or ids.shape[0] != rows:
        raise _invalid("segment_ids should be the same size as dimension 0 of input.")
    if not ids.size:
        return
    ids = np.asarray(host(ids))
    if ids[0] < 0:
        raise _invalid(f"Segment id {ids[0]} out of range [0, {ids[-1] + 1}), possibly because 'segment_ids' input "
                       f"is not sorted (segment_ids[0] = {ids[0]}).")
    down = np.flatnonzero(ids[1:] < ids[:-1])
    if down.size:
        i = int(down[0]) + 1
        raise _invalid(f"segment ids are not increasing: segment_ids[{i}] = {ids[i]} follows {ids[i - 1]}")


def _check_unsorted(ids, n: int) -> None:
    if ids.size and ids.max() >= n:
        flat = np.asarray(host(ids))
        pos = np.argwhere(flat >= n)[0]
        raise _invalid(f"segment_ids[{','.join(map(str, pos))}] = {flat[tuple(pos)]} is out of range [0, {n})")


def _num_segments(t) -> int | None:
    value = constant_value(t)
    return None if value is None else int(value)


# -- SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd -----------------------------------


def _segment_infer(op):
    data, ids = op._inputs
    with_rank_at_least(data.shape, 1)
    with_rank(ids.shape, 1)
    if data.shape.ndims is None:
        return [(data.dtype, TensorShape(None))]
    return [(data.dtype, TensorShape([None]).concatenate(data.shape[1:]))]


def _segment_kernel(data, segment_ids, kind):
    if data.ndim == 0:
        raise _invalid("input must be at least rank 1")
    _check_sorted(segment_ids, data.shape[0])
    n = int(segment_ids[-1]) + 1 if segment_ids.size else 0
    return _reduce(kind, data, segment_ids, n, sorted_ids=True)


def _segment_grad(op, grad):
    data, ids = op._inputs
    out = apply_op("SegmentReductionGrad", [data, ids, op._outputs[0], grad],
                   {"kind": op._attrs["kind"]}).outputs[0]
    return [out, None]


def _segment_api(kind: str, op_type: str):
    register(op_type, infer=_segment_infer, kernel=_segment_kernel, gpu=False)
    gradient(op_type)(_segment_grad)

    def fn(data, segment_ids, name=None):
        with name_scope(name, op_type, [data, segment_ids]) as scope:
            data = convert_to_tensor(data, name="data")
            ids = index_tensor(segment_ids, "segment_ids")
            return apply_op(op_type, [data, ids], {"kind": kind}, name=scope).outputs[0]

    fn.__name__ = f"segment_{kind}"
    fn.__doc__ = (f"The {kind} of ``data``'s rows per segment; ``segment_ids`` is 1-D, sorted and non-negative.\n\n"
                  f"    >>> import dflow as tf\n"
                  f"    >>> tf.Session().run(tf.math.segment_{kind}([1., 2., 3.], [0, 0, 1])).shape\n"
                  f"    (2,)\n")
    return tf_export(f"math.segment_{kind}", f"segment_{kind}")(fn)


segment_sum = _segment_api("sum", "SegmentSum")
segment_mean = _segment_api("mean", "SegmentMean")
segment_max = _segment_api("max", "SegmentMax")
segment_min = _segment_api("min", "SegmentMin")
segment_prod = _segment_api("prod", "SegmentProd")


# -- UnsortedSegment{Sum,Max,Min,Prod}, and mean and sqrt_n over them -----------------------------


def _unsorted_infer(op):
    data, ids, num = op._inputs
    with_rank(num.shape, 0)
    n = _num_segments(num)
    d, i = data.shape, ids.shape
    if d.ndims is None or i.ndims is None:
        return [(data.dtype, TensorShape(None))]
    if i.ndims > d.ndims or not i.is_compatible_with(d[:i.ndims]):
        raise ValueError(f"segment_ids.shape = {i} does not prefix data.shape = {d}")
    return [(data.dtype, TensorShape([n]).concatenate(d[i.ndims:]))]


def _unsorted_kernel(data, segment_ids, num_segments, kind):
    n = kernel_int(num_segments)
    k = segment_ids.ndim
    if data.shape[:k] != segment_ids.shape:
        raise _invalid(f"data.shape = {list(data.shape)} does not start with segment_ids.shape = "
                       f"{list(segment_ids.shape)}")
    if n < 0:
        raise _invalid(f"num_segments must be non-negative, got {n}")
    _check_unsorted(segment_ids, n)
    return _reduce(kind, data, segment_ids, n)


def _unsorted_grad(op, grad):
    data, ids, _ = op._inputs
    out = apply_op("SegmentReductionGrad", [data, ids, op._outputs[0], grad],
                   {"kind": op._attrs["kind"]}).outputs[0]
    return [out, None, None]


def _unsorted_api(kind: str, op_type: str):
    register(op_type, infer=_unsorted_infer, kernel=_unsorted_kernel, gpu=False)
    gradient(op_type)(_unsorted_grad)

    def fn(data, segment_ids, num_segments, name=None):
        with name_scope(name, op_type, [data, segment_ids, num_segments]) as scope:
            data = convert_to_tensor(data, name="data")
            ids = index_tensor(segment_ids, "segment_ids")
            num = index_tensor(num_segments, "num_segments")
            return apply_op(op_type, [data, ids, num], {"kind": kind}, name=scope).outputs[0]

    fn.__name__ = f"unsorted_segment_{kind}"
    fn.__doc__ = (f"The {kind} of ``data``'s rows per segment id, for ``num_segments`` segments; "
                  f"negative ids are dropped.\n\n"
                  f"    >>> import dflow as tf\n"
                  f"    >>> tf.math.unsorted_segment_{kind}([1., 2., 3.], [1, 0, 1], 3).shape\n"
                  f"    TensorShape([3])\n")
    return tf_export(f"math.unsorted_segment_{kind}", f"unsorted_segment_{kind}")(fn)


unsorted_segment_sum = _unsorted_api("sum", "UnsortedSegmentSum")
unsorted_segment_max = _unsorted_api("max", "UnsortedSegmentMax")
unsorted_segment_min = _unsorted_api("min", "UnsortedSegmentMin")
unsorted_segment_prod = _unsorted_api("prod", "UnsortedSegmentProd")
unsorted_segment_mean = _unsorted_api("mean", "UnsortedSegmentMean")
unsorted_segment_sqrt_n = _unsorted_api("sqrt_n", "UnsortedSegmentSqrtN")


# -- SparseSegment{Sum,Mean,SqrtN}[WithNumSegments] ------------------------------------------------


def _sparse_infer(op):
    data, indices, ids = op._inputs[:3]
    with_rank_at_least(data.shape, 1)
    with_rank(indices.shape, 1)
    with_rank(ids.shape, 1)
    n = _num_segments(op._inputs[3]) if len(op._inputs) == 4 else None
    if data.shape.ndims is None:
        return [(data.dtype, TensorShape(None))]
    return [(data.dtype, TensorShape([n]).concatenate(data.shape[1:]))]


def _sparse_kernel(data, indices, segment_ids, num_segments=None, *, kind):
    if indices.shape != segment_ids.shape:
        raise _invalid(f"segment_ids and indices should have same size: {segment_ids.shape[0]} vs "
                       f"{indices.shape[0]}")
    rows = data.shape[0]
    bad = np.flatnonzero(np.asarray(host((indices < 0) | (indices >= rows))))
    if bad.size:
        i = int(bad[0])
        raise _invalid(f"Bad: indices[{i}] == {indices[i]} out of range [0, {rows})")
    ids = np.asarray(host(segment_ids))
    down = np.flatnonzero(ids[1:] < ids[:-1])
    if down.size:
        i = int(down[0]) + 1
        raise _invalid(f"segment ids are not increasing: segment_ids[{i}] = {ids[i]} follows {ids[i - 1]}")
    if ids.size and ids[0] < 0:
        raise _invalid(f"segment_ids[0] = {ids[0]} is negative")
    if num_segments is None:
        n = int(ids[-1]) + 1 if ids.size else 0
    else:
        n = kernel_int(num_segments)
        if ids.size and ids[-1] >= n:
            raise _invalid(f"segment_ids[{ids.size - 1}] = {ids[-1]} is out of range [0, {n})")
    xp = array_module(data)
    return _reduce(kind, xp.take(data, indices, axis=0), segment_ids, n)


def _sparse_grad(op, grad):
    data, indices, ids = op._inputs[:3]
    rows = gather(data, indices)
    d_rows = apply_op("SegmentReductionGrad", [rows, ids, op._outputs[0], grad], {"kind": op._attrs["kind"]}).outputs[0]
    shape = data.shape.as_list() if data.shape.is_fully_defined() else shape_of(data)
    out = gather_grad(d_rows, indices, shape, 0)
    out.set_shape(data.shape)
    return [out] + [None] * (len(op._inputs) - 1)


def _sparse_api(kind: str, op_type: str):
    register(op_type, infer=_sparse_infer, kernel=_sparse_kernel, gpu=False)
    register(op_type + "WithNumSegments", infer=_sparse_infer, kernel=_sparse_kernel, gpu=False)
    gradient(op_type)(_sparse_grad)
    gradient(op_type + "WithNumSegments")(_sparse_grad)

    def fn(data, indices, segment_ids, name=None, num_segments=None, sparse_gradient: bool = False):
        del sparse_gradient  # TF's asks for an IndexedSlices gradient; dflow's gradients are dense
        full = op_type if num_segments is None else op_type + "WithNumSegments"
        with name_scope(name, full, [data, indices, segment_ids]) as scope:
            data = convert_to_tensor(data, name="data")
            inputs = [data, index_tensor(indices, "indices"), index_tensor(segment_ids, "segment_ids")]
            if num_segments is not None:
                inputs.append(index_tensor(num_segments, "num_segments"))
            return apply_op(full, inputs, {"kind": kind}, name=scope).outputs[0]

    fn.__name__ = f"sparse_segment_{kind}"
    fn.__doc__ = (f"The {kind} per segment of ``data``'s rows at ``indices``; ``segment_ids`` is sorted.\n\n"
                  f"    >>> import dflow as tf\n"
                  f"    >>> tf.sparse.segment_{kind}([[1.], [2.]], [1, 1, 0], [0, 0, 2], num_segments=4).shape\n"
                  f"    TensorShape([4, 1])\n")
    tf_export(f"sparse.segment_{kind}", f"sparse_segment_{kind}")(fn)

    def with_num_segments(data, indices, segment_ids, num_segments, name=None):
        return fn(data, indices, segment_ids, name=name, num_segments=num_segments)

    with_num_segments.__name__ = f"sparse_segment_{kind}_with_num_segments"
    with_num_segments.__doc__ = f"``sparse_segment_{kind}`` with an explicit ``num_segments``."
    return fn, with_num_segments


sparse_segment_sum, sparse_segment_sum_with_num_segments = _sparse_api("sum", "SparseSegmentSum")
sparse_segment_mean, sparse_segment_mean_with_num_segments = _sparse_api("mean", "SparseSegmentMean")
sparse_segment_sqrt_n, sparse_segment_sqrt_n_with_num_segments = _sparse_api("sqrt_n", "SparseSegmentSqrtN")


# -- SegmentReductionGrad: the gradient of every segment reduction w.r.t. data ----------------------


def _segment_grad_infer(op):
    data = op._inputs[0]
    return [(data.dtype, data.shape)]


def _segment_grad_kernel(data, segment_ids, output, grad, kind):
    """d(data) of ``output = reduce_kind(data, segment_ids)`` given d(output) = ``grad``."""
    xp = array_module(data, grad)
    k = segment_ids.ndim
    rest = data.shape[k:]
    x = data.reshape((-1,) + rest)
    ids = segment_ids.reshape(-1)
    n = grad.shape[0]
    valid = (ids >= 0).reshape((-1,) + (1,) * len(rest))
    safe = xp.where(ids >= 0, ids, 0)
    g = grad[safe]
    if kind in ("mean", "sqrt_n"):
        counts = xp.maximum(xp.bincount(ids[ids >= 0], minlength=n), 1).astype(data.dtype)
        scale = counts if kind == "mean" else xp.sqrt(counts)
        g = g / scale[safe].reshape((-1,) + (1,) * len(rest))
    elif kind in ("max", "min"):
        selected = (x == output[safe]) & valid
        n_selected = xp.zeros((n,) + rest, dtype=data.dtype)
        xp.add.at(n_selected, safe, selected.astype(data.dtype))
        g = xp.where(selected, g / xp.maximum(n_selected, 1)[safe], 0)
    elif kind == "prod":
        zero = x == 0
        n_zero = xp.zeros((n,) + rest, dtype=np.int64)
        xp.add.at(n_zero, safe, (zero & valid).astype(np.int64))
        nonzero_prod = xp.ones((n,) + rest, dtype=data.dtype)
        xp.multiply.at(nonzero_prod, safe, xp.where(zero | ~valid, xp.ones((), data.dtype), x))
        nz = n_zero[safe]
        others = xp.where(nz == 0, nonzero_prod[safe] / xp.where(zero, xp.ones((), data.dtype), x),
                          xp.where((nz == 1) & zero, nonzero_prod[safe], xp.zeros((), data.dtype)))
        g = g * others
    g = xp.where(valid, g, xp.zeros((), data.dtype))
    return g.reshape(data.shape).astype(data.dtype, copy=False)


register("SegmentReductionGrad", infer=_segment_grad_infer, kernel=_segment_grad_kernel, gpu=False)
not_differentiable("SegmentReductionGrad")


def _indexed_slices_to_tensor(value: IndexedSlices, dtype=None, name=None, as_ref=False):
    """``IndexedSlices`` as a dense tensor: its rows summed into place (TF's ``_indexed_slices_to_tensor``)."""
    if dtype is not None and dtypes.as_dtype(dtype) is not value.dtype:
        raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for IndexedSlices with "
                         f"dtype {value.dtype.name}")
    if value.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices without dense_shape: {value!r}")
    with name_scope(name, "IndexedSlicesToDense"):
        rows = value.dense_shape[0] if isinstance(value.dense_shape, Tensor) else shape_of(value.values)[0]
        return unsorted_segment_sum(value.values, value.indices, rows)


register_tensor_conversion_function(IndexedSlices, _indexed_slices_to_tensor)
