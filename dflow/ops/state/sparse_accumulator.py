"""TF1's ``tf.SparseConditionalAccumulator``: aggregates sparse (IndexedSlices) gradients.

It is a ``ConditionalAccumulator`` (same resource, staleness rule, waiting
``take_grad``, timeouts, ``num_accumulated``, ``set_global_step``) whose
gradients are rows: ``(indices, values, shape)``. As TF1's kernels do, each
applied gradient is merged into the running sum by a two-pointer walk of the
two index lists (rows with equal indices add up; the lists are expected in
ascending order, otherwise the merged order is TF1's too), each row keeps a
count of the gradients that had it, and ``MEAN`` divides every row by its own
count. The accumulator's shape constrains a prefix of the gradients' (TF1's
``SyncReplicasOptimizer`` makes one of shape ``()``); ``take_grad`` returns
``(indices, values, shape)``, the shape being the values' with the
accumulator's known dimensions, and -1 for an unknown first one.
"""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.composite import IndexedSlices
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, unknown_shape
from dflow.ops.state.accumulator_ops import (
    ConditionalAccumulatorBase,
    _accumulator_lookup,
    _as_int64,
    create_accumulator,
)
from dflow.ops.state.accumulator_ops import _check_shared as _check_shared_dense
from dflow.ops.state.accumulator_state import AccumulatorState
from dflow.ops.state.data_flow_ops import named_resource_kernel
from dflow.ops.state.queue_state import _dims

_TakeResult = collections.namedtuple("SparseAccumulatorTakeGradient", ["indices", "values", "shape"])


class SparseAccumulatorState(AccumulatorState):
    """A conditional accumulator of row gradients ``(indices, values, shape)``.

    >>> from dflow.framework import dtypes
    >>> acc = SparseAccumulatorState("acc", dtypes.float32, TensorShape([4, 1]))
    >>> acc.apply_grad(None, 0, (np.array([0, 2]), np.array([[1.], [2.]], np.float32), None))
    >>> acc.apply_grad(None, 0, (np.array([2]), np.array([[4.]], np.float32), None))
    >>> acc.take_grad(None, 2)[1].tolist()
    [[1.0], [3.0]]
    """

    kind = "SparseConditionalAccumulator"

    def apply_grad(self, ctx, local_step, grad) -> None:
        indices, values, shape = grad
        local_step = int(local_step)
        with self._cond:
            if local_step < self._global_step:
                return  # stale: dropped silently, as TF1
            indices = np.asarray(indices).reshape(-1).astype(np.int64)
            values = np.asarray(values)
            self._check_grad(indices, values, shape)
            if self._count == 0:
                self._sum = (indices.copy(), np.array(values, dtype=self._np_dtype, copy=True),
                             np.ones(indices.size, np.int64))
            else:
                self._sum = _merge(self._sum, indices, values.astype(self._np_dtype, copy=False))
            self._count += 1
            if self._flush():
                self._cond.notify_all()

    def _check_grad(self, indices, values, shape) -> None:
        """TF1's checks: the accumulator's shape is a prefix of the gradient's (dims it knows match)."""
        if values.ndim < 1 or values.shape[0] != indices.size:
            raise errors.InvalidArgumentError(
                None, None, f"{self._what}: indices and values do not match: {indices.size} indices, values of "
                            f"shape {_dims(values.shape)}")
        if self.shape.ndims is not None:
            if self.shape.ndims > values.ndim:
                raise errors.InvalidArgumentError(
                    None, None, f"{self._what}: Shape mismatch: expected values rank at least {self.shape.ndims}, "
                                f"got {values.ndim}")
            for d, (want, got) in enumerate(zip(self.shape.as_list(), values.shape)):
                if d > 0 and want is not None and want != got:
                    raise errors.InvalidArgumentError(
                        None, None, f"{self._what}: Shape mismatch: expected values dim {d} to be {want}, got {got}")
            rows_max = self.shape.as_list()[0] if self.shape.ndims else None
            if rows_max is not None and indices.size and (indices.min() < 0 or indices.max() >= rows_max):
                raise errors.InvalidArgumentError(
                    None, None, f"{self._what}: index out of range [0, {rows_max}): {indices.tolist()}")
        if shape is not None and np.size(shape) and np.size(shape) != values.ndim:
            raise errors.InvalidArgumentError(
                None, None, f"{self._what}: Shape mismatch: grad_shape {np.asarray(shape).tolist()} does not have "
                            f"the rank of values {_dims(values.shape)}")
        if self._count > 0 and self._sum[1].shape[1:] != values.shape[1:]:
            raise errors.InvalidArgumentError(
                None, None, f"{self._what}: Shape mismatch: expected rows of {_dims(self._sum[1].shape[1:])}, got "
                            f"{_dims(values.shape[1:])}")

    def _flush(self) -> bool:
        if not self._takes or self._count < self._takes[0].num_required:
            return False
        take = self._takes.popleft()
        indices, values, counts = self._sum
        if self.reduction_type == "MEAN":
            scale = counts.reshape((-1,) + (1,) * (values.ndim - 1)).astype(self._np_dtype)
            values = (values / scale).astype(self._np_dtype)
        shape = [-1] + list(values.shape[1:])
        for d, known in enumerate(self.shape.as_list() if self.shape.ndims else []):
            if known is not None:
                shape[d] = known
        take.result = (indices, values, np.array(shape, np.int64))
        self._sum = None
        self._count = 0
        self._global_step += 1
        return True


def _merge(accum, indices, values):
    """TF1's merge of a gradient into the sum: a two-pointer walk of both index lists."""
    a_idx, a_val, a_cnt = accum
    out_idx, out_val, out_cnt = [], [], []
    i = j = 0
    while i < a_idx.size and j < indices.size:
        if a_idx[i] == indices[j]:
            out_idx.append(a_idx[i])
            out_val.append(a_val[i] + values[j])
            out_cnt.append(a_cnt[i] + 1)
            i += 1
            j += 1
        elif a_idx[i] < indices[j]:
            out_idx.append(a_idx[i])
            out_val.append(a_val[i])
            out_cnt.append(a_cnt[i])
            i += 1
        else:
            out_idx.append(indices[j])
            out_val.append(values[j])
            out_cnt.append(1)
            j += 1
    rest_val = [a_val[i:], values[j:]]
    idx = np.concatenate([np.array(out_idx, np.int64), a_idx[i:], indices[j:]])
    val = np.concatenate([np.array(out_val, a_val.dtype).reshape((-1,) + a_val.shape[1:])] + rest_val)
    cnt = np.concatenate([np.array(out_cnt, np.int64), a_cnt[i:], np.ones(indices.size - j, np.int64)])
    return idx, val, cnt


def _new_state(op, name: str) -> SparseAccumulatorState:
    a = op._attrs
    return SparseAccumulatorState(name, a["dtype"], a["shape"], a["reduction_type"])


def _check_shared(state, op, name: str) -> None:
    if not isinstance(state, SparseAccumulatorState):
        raise errors.InvalidArgumentError(None, None, f"Shared accumulator '{name}' is a dense "
                                                      f"ConditionalAccumulator, but op {op.name} wants a sparse one")
    _check_shared_dense(state, op, name)


register("SparseConditionalAccumulator", infer=lambda op: [(dtypes.string, TensorShape([]))],
         make_kernel=named_resource_kernel("accumulator", _new_state, _check_shared), stateful=True, gpu=False)


def _apply_kernel(op, resources):
    accumulator = _accumulator_lookup(resources)

    def kernel(handle, local_step, indices, values, shape):
        accumulator(handle).apply_grad(None, local_step, (indices, values, shape))

    return kernel


def _take_kernel(op, resources):
    accumulator = _accumulator_lookup(resources)
    return lambda ctx, handle, num_required: accumulator(handle).take_grad(ctx, num_required)


register("SparseAccumulatorApplyGradient", infer=lambda op: [], make_kernel=_apply_kernel, stateful=True,
         gpu=False)
register("SparseAccumulatorTakeGradient",
         infer=lambda op: [(dtypes.int64, TensorShape([None])), (op._attrs["dtype"], unknown_shape()),
                           (dtypes.int64, TensorShape([None]))],
         make_kernel=_take_kernel, stateful=True, gpu=False, uses_context=True)
for _t in ("SparseConditionalAccumulator", "SparseAccumulatorApplyGradient", "SparseAccumulatorTakeGradient"):
    not_differentiable(_t)


@tf_export("SparseConditionalAccumulator", "sparse.SparseConditionalAccumulator")
class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """A conditional accumulator of sparse gradients (rows of a ``shape`` tensor).

    ``apply_grad(grad_indices, grad_values, grad_shape=None, local_step=0)`` or
    ``apply_indexed_slices_grad(IndexedSlices)`` adds a gradient unless it is
    stale; ``take_grad(n)`` waits for ``n`` and returns ``(indices, values,
    shape)``: each row's mean over the gradients that had it (or sum).

    >>> import dflow as tf
    >>> acc = tf.SparseConditionalAccumulator(tf.float32, shape=[3, 1])
    >>> i = tf.placeholder(tf.int64, [None])
    >>> v = tf.placeholder(tf.float32, [None, 1])
    >>> apply = acc.apply_grad(i, v)
    >>> with tf.Session() as sess:
    ...     sess.run(apply, {i: [0, 2], v: [[1.], [2.]]})
    ...     sess.run(apply, {i: [2], v: [[4.]]})
    ...     print(sess.run(acc.take_grad(2)).values.tolist())
    [[1.0], [3.0]]
    """

    def __init__(self, dtype, shape=None, shared_name=None, name="sparse_conditional_accumulator",
                 reduction_type="MEAN"):
        super().__init__(*create_accumulator("SparseConditionalAccumulator", dtype, shape, shared_name, name,
                                             reduction_type))

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None):
        """An op that adds the gradient ``(grad_indices, grad_values[, grad_shape])`` unless stale."""
        values = convert_to_tensor(grad_values, dtype=self._dtype)
        if self._shape.ndims and values.shape.ndims is not None and values.shape.ndims >= self._shape.ndims:
            values.shape[1:self._shape.ndims].assert_is_compatible_with(self._shape[1:])
        indices = _as_int64(grad_indices)
        shape = _as_int64([] if grad_shape is None else grad_shape)
        return self._op("SparseAccumulatorApplyGradient", [_as_int64(local_step), indices, values, shape],
                        {"dtype": self._dtype, "has_known_shape": grad_shape is not None}, name)

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        """``apply_grad`` of an ``IndexedSlices``."""
        if not isinstance(grad, IndexedSlices):
            raise TypeError(f"apply_indexed_slices_grad expects an IndexedSlices, got {type(grad).__name__}")
        return self.apply_grad(grad.indices, grad.values, grad.dense_shape, local_step=local_step, name=name)

    def take_grad(self, num_required, name=None):
        """``(indices, values, shape)``: the aggregate of ``num_required`` gradients, once applied."""
        with name_scope(name, "SparseAccumulatorTakeGradient") as scope:
            n = convert_to_tensor(num_required, dtype=dtypes.int32, name="num_required")
            op = self._op("SparseAccumulatorTakeGradient", [n], {"dtype": self._dtype}, scope)
        return _TakeResult(*op.outputs)

    def take_indexed_slices_grad(self, num_required, name=None):
        """``take_grad`` as an ``IndexedSlices``."""
        indices, values, shape = self.take_grad(num_required, name=name)
        return IndexedSlices(values, indices, shape)
