"""TF's SparseTensorsMap ops, with which TF1's queue batching (``tf.train.batch`` & co.)
carries ``SparseTensor`` inputs through a queue: ``AddSparseToTensorsMap`` (and
``AddManySparseToTensorsMap``, for a minibatch split along its first dimension)
stores sparse tensors in a session resource and outputs int64 handles; the queue
carries the handles; ``TakeManySparseFromTensorsMap`` takes the dequeued handles
out of the map and stacks their sparse tensors into one batch, of dense shape
``[N] + `` the largest of each dimension.

The map is named by ``shared_name``, or by the storing op's name (as TF names it).
"""

from __future__ import annotations

import itertools
import threading

import numpy as np

from dflow.framework import dtypes
from dflow.framework.composite import SparseTensor
from dflow.framework.graph import Operation, colocate_with
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument


class _SparseTensorsMap:
    def __init__(self, name: str):
        self.name = name
        self._lock = threading.Lock()
        self._next = itertools.count(1)
        self._stored: dict = {}

    def add(self, items) -> list:
        with self._lock:
            handles = []
            for item in items:
                h = next(self._next)
                self._stored[h] = item
                handles.append(h)
            return handles

    def take(self, handles) -> list:
        with self._lock:
            missing = [int(h) for h in handles if int(h) not in self._stored]
            if missing:
                raise invalid_argument(f"Unable to find SparseTensor: {missing[0]} in map: {self.name}")
            return [self._stored.pop(int(h)) for h in handles]


def _map(op, resources, name: str) -> _SparseTensorsMap:
    a = op._attrs
    return resources.resource(("sparse_tensors_map", a["container"], name), lambda: _SparseTensorsMap(name))


def _checked(indices, values, shape, op_type: str):
    indices, shape = np.asarray(indices, np.int64), np.asarray(shape, np.int64)
    if indices.ndim != 2 or values.ndim != 1 or shape.ndim != 1 or len(indices) != len(values) or \
            indices.shape[1] != len(shape):
        raise invalid_argument(f"{op_type}: expected sparse_indices [N, rank], sparse_values [N] and sparse_shape "
                               f"[rank], got {list(indices.shape)}, {list(values.shape)} and {list(shape.shape)}")
    return indices, shape


def _add_kernel(op, resources):
    store = _map(op, resources, op._attrs["shared_name"] or op.name)

    def kernel(indices, values, shape):
        indices, shape = _checked(indices, values, shape, "AddSparseToTensorsMap")
        return np.int64(store.add([(indices, values, shape)])[0])

    return kernel


def _add_many_kernel(op, resources):
    store = _map(op, resources, op._attrs["shared_name"] or op.name)

    def kernel(indices, values, shape):
        indices, shape = _checked(indices, values, shape, "AddManySparseToTensorsMap")
        if len(shape) < 2:
            raise invalid_argument(f"Rank of input SparseTensor should be > 1, but saw rank: {len(shape)}")
        rows = indices[:, 0]
        if len(rows) and (rows.min() < 0 or rows.max() >= shape[0]):
            raise invalid_argument(f"Index out of bounds: the first dimension is {shape[0]}, got an index "
                                   f"{int(rows.max() if rows.max() >= shape[0] else rows.min())}")
        items = [(indices[rows == b, 1:], values[rows == b], shape[1:]) for b in range(int(shape[0]))]
        return np.asarray(store.add(items), np.int64)

    return kernel


def _take_kernel(op, resources):
    store = _map(op, resources, op._attrs["shared_name"])

    def kernel(handles):
        handles = np.asarray(handles)
        if handles.ndim != 1:
            raise invalid_argument(f"sparse_handles should be a vector but received shape {list(handles.shape)}")
        items = store.take(handles.tolist())
        ranks = {len(s) for _, _, s in items}
        if len(ranks) > 1:
            raise invalid_argument(f"Inconsistent rank across SparseTensors: ranks {sorted(ranks)}")
        rank = ranks.pop() if ranks else 0
        shape = np.max([s for _, _, s in items], axis=0) if items else np.zeros(rank, np.int64)
        indices = [np.concatenate([np.full((len(ix), 1), b, np.int64), ix], axis=1) for b, (ix, _, _) in
                   enumerate(items)]
        values = [v for _, v, _ in items]
        dtype = op._attrs["dtype"].as_numpy_dtype
        return (np.concatenate(indices) if indices else np.zeros((0, rank + 1), np.int64),
                np.concatenate(values).astype(dtype, copy=False) if values else np.zeros(0, dtype),
                np.concatenate([[len(items)], shape]).astype(np.int64))

    return kernel


def _take_infer(op):
    return [(dtypes.int64, TensorShape([None, None])), (op._attrs["dtype"], TensorShape([None])),
            (dtypes.int64, TensorShape([None]))]


register("AddSparseToTensorsMap", infer=lambda op: [(dtypes.int64, TensorShape([]))], make_kernel=_add_kernel,
         stateful=True, gpu=False)
register("AddManySparseToTensorsMap", infer=lambda op: [(dtypes.int64, TensorShape([None]))],
         make_kernel=_add_many_kernel, stateful=True, gpu=False)
register("TakeManySparseFromTensorsMap", infer=_take_infer, make_kernel=_take_kernel, stateful=True, gpu=False)
for _t in ("AddSparseToTensorsMap", "AddManySparseToTensorsMap", "TakeManySparseFromTensorsMap"):
    not_differentiable(_t)


def add_sparse_to_tensors_map(sp_input: SparseTensor, many: bool = False, container: str = "",
                              shared_name: str | None = None, name=None):
    """The int64 handle (``many``: the ``[N]`` handles of the rows) of ``sp_input`` stored in a map."""
    op_type = "AddManySparseToTensorsMap" if many else "AddSparseToTensorsMap"
    return apply_op(op_type, [sp_input.indices, sp_input.values, sp_input.dense_shape],
                    {"T": sp_input.dtype, "container": container or "", "shared_name": shared_name or ""},
                    name=name or op_type).outputs[0]


def take_many_sparse_from_tensors_map(sparse_map_op: Operation, sparse_handles, rank=None,
                                      name=None) -> SparseTensor:
    """The ``SparseTensor`` batch of the tensors ``sparse_handles`` name, taken out of ``sparse_map_op``'s map."""
    if not isinstance(sparse_map_op, Operation):
        raise TypeError("sparse_map_op be an Operation")
    if sparse_map_op.type not in ("AddSparseToTensorsMap", "AddManySparseToTensorsMap"):
        raise TypeError("sparse_map_op must be one of AddSparseToTensorsMap or AddSparseToTensorsMap. "
                        f"Instead, found `{sparse_map_op.type}`.")
    a = sparse_map_op._attrs
    with colocate_with(sparse_map_op):
        op = apply_op("TakeManySparseFromTensorsMap", [sparse_handles],
                      {"dtype": a["T"], "container": a["container"], "shared_name": a["shared_name"] or
                       sparse_map_op.name}, name=name or "TakeManySparseFromTensorsMap")
    indices, values, shape = op.outputs
    if rank is not None:
        indices.set_shape([None, rank])
        shape.set_shape([rank])
    return SparseTensor(indices, values, shape)
