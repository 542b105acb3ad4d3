"""Partitioning and index arithmetic: dynamic_partition, dynamic_stitch, invert_permutation,
setdiff1d, unravel_index and roll.

``dynamic_partition`` splits ``data``'s rows by a partition number each;
``dynamic_stitch`` merges rows back by index (a later index wins), and is
the gradient of the other. Bad indices are an ``InvalidArgumentError``
naming the position, worded as TF1's kernels.
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
from dflow.ops.array.index_args import INDEX_DTYPES, host, index_tensor, kernel_ints, merge_shapes, with_rank

# -- DynamicPartition ------------------------------------------------------------------------------


def _partition_infer(op):
    data, partitions = op._inputs
    n = op._attrs["num_partitions"]
    d, p = data.shape, partitions.shape
    if d.ndims is not None and p.ndims is not None:
        if p.ndims > d.ndims:
            raise ValueError(f"Shape must be at least rank {p.ndims} but is rank {d.ndims}")
        merge_shapes(d[:p.ndims], p)
        part = TensorShape([None]).concatenate(d[p.ndims:])
    else:
        part = TensorShape(None)
    return [(data.dtype, part)] * n


def _partition_kernel(data, partitions, num_partitions):
    if data.shape[:partitions.ndim] != partitions.shape:
        raise _invalid(f"data.shape must start with partitions.shape, got data.shape = {list(data.shape)}, "
                       f"partitions.shape = {list(partitions.shape)}")
    flat = partitions.reshape(-1)
    bad = np.flatnonzero(np.asarray(host((flat < 0) | (flat >= num_partitions))))
    if bad.size:
        pos = np.unravel_index(int(bad[0]), partitions.shape)
        raise _invalid(f"partitions[{','.join(map(str, pos))}] = {flat[bad[0]]} is not in [0, {num_partitions})")
    rows = data.reshape((-1,) + data.shape[partitions.ndim:])
    out = tuple(rows[flat == k] for k in range(num_partitions))
    return out if num_partitions != 1 else out[0]


register("DynamicPartition", infer=_partition_infer, kernel=_partition_kernel)


@gradient("DynamicPartition")
def _partition_grad(op, *grads):
    data, partitions = op._inputs
    return [apply_op("DynamicPartitionGrad", [data, partitions, *grads]).outputs[0], None]


def _partition_grad_kernel(data, partitions, *grads):
    """Each partition's gradient rows put back where ``dynamic_partition`` took them from."""
    xp = array_module(data, *grads)
    out = xp.zeros((partitions.size,) + data.shape[partitions.ndim:], dtype=data.dtype)
    flat = partitions.reshape(-1)
    for k, g in enumerate(grads):
        out[flat == k] = g
    return out.reshape(data.shape)


register("DynamicPartitionGrad", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)],
         kernel=_partition_grad_kernel)
not_differentiable("DynamicPartitionGrad")


@tf_export("dynamic_partition")
def dynamic_partition(data, partitions, num_partitions: int, name=None) -> list:
    """Splits ``data`` into ``num_partitions`` tensors by the partition number of each of its rows.

    >>> import dflow as tf
    >>> [p.shape for p in tf.dynamic_partition([1., 2., 3.], [1, 0, 1], 2)]
    [TensorShape([None]), TensorShape([None])]
    """
    if not isinstance(num_partitions, (int, np.integer)) or num_partitions < 1:
        raise ValueError(f"num_partitions must be a positive int, got {num_partitions!r}")
    with name_scope(name, "DynamicPartition", [data, partitions]) as scope:
        data = convert_to_tensor(data, name="data")
        partitions = convert_to_tensor(partitions, dtype=dtypes.int32, name="partitions")
        return list(apply_op("DynamicPartition", [data, partitions], {"num_partitions": int(num_partitions)},
                             name=scope).outputs)


# -- DynamicStitch ---------------------------------------------------------------------------------


def _stitch_infer(op):
    n = op._attrs["N"]
    indices, data = op._inputs[:n], op._inputs[n:]
    dtype = data[0].dtype
    rest = None
    for i, d in zip(indices, data):
        if d.dtype is not dtype:
            raise TypeError(f"Tensors in list passed to 'data' of DynamicStitch have types that don't all match: "
                            f"{[t.dtype.name for t in data]}")
        if i.shape.ndims is None or d.shape.ndims is None:
            continue
        merge_shapes(d.shape[:i.shape.ndims], i.shape)
        part = d.shape[i.shape.ndims:]
        rest = part if rest is None else merge_shapes(rest, part)
    values = [constant_value(i) for i in indices]
    size = None
    if all(v is not None for v in values):
        size = max((int(np.max(v)) + 1 for v in values if np.size(v)), default=0)
    return [(dtype, TensorShape([size]).concatenate(rest if rest is not None else TensorShape(None)))]


def _stitch_kernel(*args, N):
    indices, data = args[:N], args[N:]
    size = 0
    for k, i in enumerate(indices):
        if i.size:
            if i.min() < 0:
                flat = np.asarray(host(i)).reshape(-1)
                j = int(np.flatnonzero(flat < 0)[0])
                raise _invalid(f"indices[{j}] is out of range: indices[{k}] holds {flat[j]} at flat position {j}")
            size = max(size, int(i.max()) + 1)
    rest = data[0].shape[indices[0].ndim:]
    xp = array_module(*data)
    out = xp.zeros((size,) + rest, dtype=data[0].dtype)
    for k, (i, d) in enumerate(zip(indices, data)):
        if d.shape[:i.ndim] != i.shape or d.shape[i.ndim:] != rest:
            raise _invalid(f"data[{k}].shape = {list(d.shape)} does not start with indices[{k}].shape = "
                           f"{list(i.shape)}, or its rows differ from data[0]'s {list(rest)}")
        out[i.reshape(-1)] = d.reshape((-1,) + rest)
    return out


register("DynamicStitch", infer=_stitch_infer, kernel=_stitch_kernel)
register("ParallelDynamicStitch", infer=_stitch_infer, kernel=_stitch_kernel)


def _stitch_grad(op, grad):
    from dflow.ops.array.gather_ops import gather

    n = op._attrs["N"]
    return [None] * n + [gather(grad, i) for i in op._inputs[:n]]


gradient("DynamicStitch")(_stitch_grad)
gradient("ParallelDynamicStitch")(_stitch_grad)


def _stitch(op_type: str, indices, data, name):
    if len(indices) != len(data) or not indices:
        raise ValueError(f"{op_type} needs as many indices as data tensors, at least one: got {len(indices)} and "
                         f"{len(data)}")
    with name_scope(name, op_type, [*indices, *data]) as scope:
        indices = [convert_to_tensor(i, dtype=dtypes.int32, name="indices") for i in indices]
        data = [convert_to_tensor(d, name="data") for d in data]
        dtype = data[0].dtype
        data = [convert_to_tensor(d, dtype=dtype) for d in data]
        return apply_op(op_type, [*indices, *data], {"N": len(indices)}, name=scope).outputs[0]


@tf_export("dynamic_stitch")
def dynamic_stitch(indices, data, name=None) -> Tensor:
    """Merges ``data[k]``'s rows into one tensor at the positions ``indices[k]`` (later ones win).

    >>> import dflow as tf
    >>> tf.Session().run(tf.dynamic_stitch([[0, 2], [1]], [[1., 3.], [2.]])).tolist()
    [1.0, 2.0, 3.0]
    """
    return _stitch("DynamicStitch", list(indices), list(data), name)


def parallel_dynamic_stitch(indices, data, name=None) -> Tensor:
    """``dynamic_stitch`` where no two indices are equal (TF's ``ParallelDynamicStitch``; not a TF1 name)."""
    return _stitch("ParallelDynamicStitch", list(indices), list(data), name)


# -- InvertPermutation -----------------------------------------------------------------------------


# The op is shape_ops' (transpose's gradient uses it); this is its public name.


@tf_export("invert_permutation", "math.invert_permutation")
def invert_permutation(x, name=None) -> Tensor:
    """The inverse permutation: ``y[x[i]] = i``.

    >>> import dflow as tf
    >>> tf.Session().run(tf.invert_permutation([2, 0, 1])).tolist()
    [1, 2, 0]
    """
    with name_scope(name, "InvertPermutation", [x]) as scope:
        x = index_tensor(x, "x")
        return apply_op("InvertPermutation", [x], name=scope).outputs[0]


# -- ListDiff (setdiff1d) ----------------------------------------------------------------------------

ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])


def _list_diff_infer(op):
    x, y = op._inputs
    with_rank(x.shape, 1)
    with_rank(y.shape, 1)
    return [(x.dtype, TensorShape([None])), (op._attrs["out_idx"], TensorShape([None]))]


def _list_diff_kernel(x, y, out_idx):
    xp = array_module(x, y)
    keep = xp.flatnonzero(~xp.isin(x, y))
    return x[keep], keep.astype(out_idx.as_numpy_dtype)


register("ListDiff", infer=_list_diff_infer, kernel=_list_diff_kernel)
not_differentiable("ListDiff")


@tf_export("setdiff1d")
def setdiff1d(x, y, index_dtype=dtypes.int32, name=None) -> ListDiff:
    """The entries of 1-D ``x`` not in ``y``, in order, and their positions in ``x``.

    >>> import dflow as tf
    >>> tf.Session().run(tf.setdiff1d([1, 2, 3, 4], [1, 3]).out).tolist()
    [2, 4]
    """
    index_dtype = dtypes.as_dtype(index_dtype)
    if index_dtype not in INDEX_DTYPES:
        raise TypeError(f"Value for attr 'out_idx' of {index_dtype.name} is not in the list of allowed values: "
                        f"int32, int64")
    with name_scope(name, "ListDiff", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype, name="y")
        return ListDiff(*apply_op("ListDiff", [x, y], {"out_idx": index_dtype}, name=scope).outputs)


# -- UnravelIndex ----------------------------------------------------------------------------------


def _unravel_infer(op):
    indices, dims = op._inputs
    with_rank(dims.shape, 1)
    n = dims.shape[0].value
    if indices.shape.ndims == 0:
        return [(indices.dtype, TensorShape([n]))]
    if indices.shape.ndims is None:
        return [(indices.dtype, TensorShape(None))]
    return [(indices.dtype, TensorShape([n]).concatenate(indices.shape))]


def _unravel_kernel(indices, dims):
    shape = kernel_ints(dims)
    total = int(np.prod(shape, dtype=np.int64))
    if indices.size and (indices.min() < 0 or indices.max() >= total):
        raise _invalid(f"index is out of bound as with dims: an index is not in [0, {total}) for dims "
                       f"{list(shape)}")
    xp = array_module(indices)
    return xp.stack(xp.unravel_index(indices, shape)).astype(indices.dtype, copy=False)


register("UnravelIndex", infer=_unravel_infer, kernel=_unravel_kernel)
not_differentiable("UnravelIndex")


@tf_export("unravel_index")
def unravel_index(indices, dims, name=None) -> Tensor:
    """Flat indices into an array of shape ``dims`` as coordinate vectors (one row per dimension).

    >>> import dflow as tf
    >>> tf.Session().run(tf.unravel_index([22, 41], [7, 6])).tolist()
    [[3, 6], [4, 5]]
    """
    with name_scope(name, "UnravelIndex", [indices, dims]) as scope:
        indices = index_tensor(indices, "indices")
        dims = convert_to_tensor(dims, dtype=indices.dtype, name="dims")
        return apply_op("UnravelIndex", [indices, dims], name=scope).outputs[0]


# -- Roll ------------------------------------------------------------------------------------------


def _roll_infer(op):
    x, shift, axis = op._inputs
    if shift.shape.ndims is not None and shift.shape.ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {shift.shape.ndims}")
    if shift.shape.ndims == 1 and axis.shape.ndims == 1:
        merge_shapes(shift.shape, axis.shape)
    return [(x.dtype, x.shape)]


def _roll_kernel(input, shift, axis):  # noqa: A002 - TF1 argument name
    shifts, axes = kernel_ints(shift), kernel_ints(axis)
    if len(shifts) != len(axes):
        raise _invalid(f"shift and axis must have the same size, got {len(shifts)} and {len(axes)}")
    r = input.ndim
    for a in axes:
        if not -r <= a < r:
            raise _invalid(f"axis {a} is out of range")
    return array_module(input).roll(input, shifts, [a % r for a in axes])


register("Roll", infer=_roll_infer, kernel=_roll_kernel)


@gradient("Roll")
def _roll_grad(op, grad):
    from dflow.ops.math.math_ops import negative

    _, shift, axis = op._inputs
    return [roll(grad, negative(shift), axis), None, None]


@tf_export("roll", "manip.roll")
def roll(input, shift, axis, name=None) -> Tensor:  # noqa: A002 - TF1 argument name
    """``input`` with its entries shifted ``shift`` places along ``axis`` (wrapping around).

    >>> import dflow as tf
    >>> tf.Session().run(tf.roll([0, 1, 2, 3, 4], 2, 0)).tolist()
    [3, 4, 0, 1, 2]
    """
    with name_scope(name, "Roll", [input, shift, axis]) as scope:
        x = convert_to_tensor(input, name="input")
        shift = index_tensor(shift, "shift")
        axis = index_tensor(axis, "axis")
        return apply_op("Roll", [x, shift, axis], name=scope).outputs[0]
