"""``tf.sets``: ``difference``, ``intersection``, ``union`` and ``size`` (and their ``set_*`` names).

A set is the last dimension of a tensor: each ``a[i, j, ..., :]`` is one set
(of a dense tensor, all its values; of a ``SparseTensor``, the values present
in that row). The operations give a ``SparseTensor`` whose row ``[i, j, ...]``
holds the result set sorted, with ``dense_shape`` ``[..., largest set]``, from
TF's three ops ``DenseToDenseSetOperation``, ``DenseToSparseSetOperation`` and
``SparseToSparseSetOperation``. Sparse inputs are checked as TF checks them
(``validate_indices``): indices in bounds, sorted and not repeated.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import SparseTensor
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument

_SET_DTYPES = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.string)
_OPERATIONS = {"a-b": lambda a, b: a - b, "b-a": lambda a, b: b - a, "intersection": lambda a, b: a & b,
               "union": lambda a, b: a | b}


def _values(arr) -> list:
    return [bytes(v) for v in arr] if arr.dtype == object else arr.tolist()


def _dense_groups(x) -> tuple:
    """(leading shape, {group index tuple: set}) of a dense array's last dimension."""
    x = np.asarray(x)
    lead = x.shape[:-1]
    rows = x.reshape(-1, x.shape[-1]) if x.size else np.empty((int(np.prod(lead, dtype=np.int64)), 0), x.dtype)
    return lead, {idx: set(_values(rows[n])) for n, idx in enumerate(np.ndindex(*lead))}


def _sparse_groups(indices, values, shape, validate: bool) -> tuple:
    """(leading shape, {group index tuple: set}) of a sparse tensor's rows."""
    indices, shape = np.asarray(indices), np.asarray(shape).tolist()
    if validate:
        _validate_indices(indices, shape)
    groups: dict = {}
    for idx, v in zip(map(tuple, indices[:, :-1].tolist()), _values(np.asarray(values))):
        groups.setdefault(idx, set()).add(v)
    return tuple(shape[:-1]), groups


def _validate_indices(indices, shape) -> None:
    previous = None
    for n, idx in enumerate(indices.tolist()):
        shown = ",".join(str(i) for i in idx)
        if any(not 0 <= i < d for i, d in zip(idx, shape)):
            raise invalid_argument(f"indices[{n}] = [{shown}] is out of bounds: need 0 <= index < "
                                   f"[{','.join(str(d) for d in shape)}]")
        if previous is not None:
            if idx == previous:
                raise invalid_argument(f"indices[{n}] = [{shown}] is repeated")
            if idx < previous:
                raise invalid_argument(f"indices[{n}] = [{shown}] is out of order. Many sparse ops require sorted "
                                       f"indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.")
        previous = idx


def _set_result(lead, groups_a, groups_b, set_operation, dtype) -> tuple:
    """Sparse (indices, values, dense_shape) of ``set_operation`` applied group by group."""
    op = _OPERATIONS[set_operation]
    indices, values, widest = [], [], 0
    for idx in np.ndindex(*lead):
        result = sorted(op(groups_a.get(idx, set()), groups_b.get(idx, set())))
        widest = max(widest, len(result))
        indices += [(*idx, j) for j in range(len(result))]
        values += result
    if np.dtype(dtype).kind == "O":
        out_values = np.empty(len(values), dtype=object)
        out_values[:] = values
    else:
        out_values = np.array(values, dtype=dtype)
    return (np.array(indices, np.int64).reshape(-1, len(lead) + 1), out_values.reshape(-1),
            np.array([*lead, widest], np.int64))


def _check_lead(lead_a, lead_b) -> None:
    if tuple(lead_a) != tuple(lead_b):
        raise invalid_argument(f"Shape mismatch: the first N-1 dimensions of the two sets differ: "
                               f"{list(lead_a)} vs {list(lead_b)}")


def _dense_dense(set1, set2, set_operation, validate_indices):
    lead, a = _dense_groups(set1)
    lead_b, b = _dense_groups(set2)
    _check_lead(lead, lead_b)
    return _set_result(lead, a, b, set_operation, np.asarray(set1).dtype)


def _dense_sparse(set1, set2_indices, set2_values, set2_shape, set_operation, validate_indices):
    lead, a = _dense_groups(set1)
    lead_b, b = _sparse_groups(set2_indices, set2_values, set2_shape, validate_indices)
    _check_lead(lead, lead_b)
    return _set_result(lead, a, b, set_operation, np.asarray(set1).dtype)


def _sparse_sparse(set1_indices, set1_values, set1_shape, set2_indices, set2_values, set2_shape, set_operation,
                   validate_indices):
    lead, a = _sparse_groups(set1_indices, set1_values, set1_shape, validate_indices)
    lead_b, b = _sparse_groups(set2_indices, set2_values, set2_shape, validate_indices)
    _check_lead(lead, lead_b)
    return _set_result(lead, a, b, set_operation, np.asarray(set1_values).dtype)


def _set_operation_infer(op):
    first = op._inputs[0]
    values = op._inputs[1] if op._type == "SparseToSparseSetOperation" else first
    rank = op._inputs[2].shape[0] if op._type == "SparseToSparseSetOperation" else None
    rank = getattr(rank, "value", rank)
    if op._type != "SparseToSparseSetOperation":
        if first.shape.ndims is not None and first.shape.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {first.shape.ndims}")
        rank = first.shape.ndims
    if op._type == "DenseToDenseSetOperation":
        a, b = op._inputs
        if b.shape.ndims is not None and b.shape.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {b.shape.ndims}")
        if a.shape.ndims is not None and b.shape.ndims is not None:
            if a.shape.ndims != b.shape.ndims:
                raise ValueError(f"Shape must be rank {a.shape.ndims} but is rank {b.shape.ndims}")
            a.shape[:-1].merge_with(b.shape[:-1])
    dtype = values.dtype
    return [(dtypes.int64, TensorShape([None, rank])), (dtype, TensorShape([None])),
            (dtypes.int64, TensorShape([rank]))]


register("DenseToDenseSetOperation", infer=_set_operation_infer, kernel=_dense_dense, gpu=False)
register("DenseToSparseSetOperation", infer=_set_operation_infer, kernel=_dense_sparse, gpu=False)
register("SparseToSparseSetOperation", infer=_set_operation_infer, kernel=_sparse_sparse, gpu=False)


def _set_size_kernel(set_indices, set_values, set_shape, validate_indices):
    lead, groups = _sparse_groups(set_indices, set_values, set_shape, validate_indices)
    out = np.zeros(lead, np.int32)
    for idx, values in groups.items():
        out[idx] = len(values)
    return out


register("SetSize", infer=lambda op: [(dtypes.int32, TensorShape(None))], kernel=_set_size_kernel, gpu=False)
for _t in ("DenseToDenseSetOperation", "DenseToSparseSetOperation", "SparseToSparseSetOperation", "SetSize"):
    not_differentiable(_t)


def _as_set(value, arg: str):
    if isinstance(value, SparseTensor):
        t = value
    else:
        t = convert_to_tensor(value, name=arg)
    if t.dtype not in _SET_DTYPES:
        raise TypeError(f"'{arg}' has invalid dtype `{t.dtype!r}` not in supported dtypes: "
                        f"int8, int16, int32, int64, uint8, uint16, string.")
    return t


def _set_operation(a, b, set_operation: str, validate_indices: bool) -> SparseTensor:
    a, b = _as_set(a, "a"), _as_set(b, "b")
    if a.dtype is not b.dtype:
        raise TypeError(f"Types don't match, {a.dtype!r} vs {b.dtype!r}.")
    attrs = {"set_operation": set_operation, "validate_indices": bool(validate_indices)}
    a_sparse, b_sparse = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if a_sparse and not b_sparse:
        # TF's ops take the dense operand first.
        a, b = b, a
        a_sparse, b_sparse = False, True
        attrs["set_operation"] = {"a-b": "b-a", "b-a": "a-b"}.get(set_operation, set_operation)
    if not a_sparse and not b_sparse:
        op = apply_op("DenseToDenseSetOperation", [a, b], attrs)
    elif not a_sparse:
        op = apply_op("DenseToSparseSetOperation", [a, b.indices, b.values, b.dense_shape], attrs)
    else:
        op = apply_op("SparseToSparseSetOperation",
                      [a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape], attrs)
    return SparseTensor(*op.outputs)


@tf_export("sets.difference", "sets.set_difference")
def set_difference(a, b, aminusb=True, validate_indices=True):
    """The elements of each set of ``a`` not in ``b``'s (``b - a`` when ``aminusb`` is False),
    sorted, as a SparseTensor.

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.sets.difference([[1, 2, 3]], [[3, 4]])).values.tolist()
    [1, 2]
    """
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


@tf_export("sets.intersection", "sets.set_intersection")
def set_intersection(a, b, validate_indices=True):
    """The elements each set of ``a`` shares with ``b``'s, sorted, as a SparseTensor."""
    return _set_operation(a, b, "intersection", validate_indices)


@tf_export("sets.union", "sets.set_union")
def set_union(a, b, validate_indices=True):
    """The elements of each set of ``a`` or ``b``, sorted, as a SparseTensor."""
    return _set_operation(a, b, "union", validate_indices)


@tf_export("sets.size", "sets.set_size")
def set_size(a, validate_indices=True):
    """The number of distinct values in each set (row) of the SparseTensor ``a`` (int32)."""
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a!r}.")
    if a.dtype not in _SET_DTYPES:
        raise TypeError(f"Invalid dtype `{a.dtype!r}`.")
    return apply_op("SetSize", [a.indices, a.values, a.dense_shape],
                    {"validate_indices": bool(validate_indices)}).outputs[0]
