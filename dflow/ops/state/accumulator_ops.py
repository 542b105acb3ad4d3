"""TF1's ``tf.ConditionalAccumulator``: aggregates gradients for synchronous training.

An accumulator is a resource of the session, as a queue is. The graph holds,
as in TF1 graph mode:

* ``conditional_accumulator`` (``ResourceConditionalAccumulator``): creates the
  accumulator in the session's resources on its first run and outputs its
  handle, a scalar string ``b"<container>:<name>"``;
* ``ResourceAccumulatorApplyGradient``, ``ResourceAccumulatorTakeGradient``,
  ``<name>_NumAccumulated`` (``ResourceAccumulatorNumAccumulated``) and
  ``ResourceAccumulatorSetGlobalStep``: each takes the handle as its first
  input and is colocated with the accumulator.

The state (``dflow/ops/state/accumulator_state.py``) is the resource
``("accumulator", container, name)``, the name being the shared name or a
``_N_<op name>`` of its own. On a cluster target it lives in the resource
store of the worker that runs the accumulator's ops, which every session on
the cluster shares: replicas in other processes that build an accumulator of
the same ``shared_name`` on the same device feed one accumulator.

Accumulators live on a CPU (of the requested job and task), as queues do; the
gradients they return move to a GPU variable like any other tensor.
``take_grad`` may block: it gets the run's ``RunContext`` and waits with
``ctx.wait``, so ``RunOptions.timeout_in_ms`` and
``ConfigProto.operation_timeout_in_ms`` end the wait with
``DeadlineExceededError`` (saying how many of the needed gradients arrived)
and leave the accumulator as it was.

``tf.SparseConditionalAccumulator`` (``dflow/ops/state/sparse_accumulator.py``) is
the same resource with row gradients (``IndexedSlices``).
"""

from __future__ import annotations

import functools

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import colocate_with, device, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from dflow.ops.state.accumulator_state import REDUCTION_TYPES, AccumulatorState
from dflow.ops.state.data_flow_ops import named_resource_kernel, resource_key

_FLOAT_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64)  # TF1's kernels: half, float, double

# -- the accumulator resource op ---------------------------------------------------------------


def _new_state(op, name: str) -> AccumulatorState:
    a = op._attrs
    return AccumulatorState(name, a["dtype"], a["shape"], a["reduction_type"])


def _check_shared(state: AccumulatorState, op, name: str) -> None:
    """An op that finds an existing accumulator of its shared name must agree with it."""
    a = op._attrs

    def fail(what, have, want):
        raise errors.InvalidArgumentError(None, None, f"Shared accumulator '{name}' has {what} {have} but op "
                                                      f"{op.name} requested {what} {want}")

    if state.dtype is not a["dtype"]:
        fail("dtype", state.dtype.name, a["dtype"].name)
    if state.shape != TensorShape(a["shape"]):
        fail("shape", state.shape, TensorShape(a["shape"]))
    if state.reduction_type != a["reduction_type"]:
        fail("reduction_type", state.reduction_type, a["reduction_type"])


_accumulator_kernel = named_resource_kernel("accumulator", _new_state, _check_shared)


register("ResourceConditionalAccumulator", infer=lambda op: [(dtypes.string, TensorShape([]))],
         make_kernel=_accumulator_kernel, stateful=True, gpu=False)


# -- the ops that use an accumulator -----------------------------------------------------------


def _accumulator_lookup(resources):
    """``handle value -> AccumulatorState`` for this session (or worker), memoized."""

    @functools.lru_cache(maxsize=64)
    def find(ref: bytes) -> AccumulatorState:
        return resources.resource(resource_key("accumulator", ref))

    return lambda handle: find(handle.item() if isinstance(handle, np.ndarray) else handle)


def _apply_kernel(op, resources):
    accumulator = _accumulator_lookup(resources)
    return lambda handle, local_step, grad: accumulator(handle).apply_grad(None, local_step, grad)


def _take_kernel(op, resources):
    accumulator = _accumulator_lookup(resources)
    return lambda ctx, handle, num_required: accumulator(handle).take_grad(ctx, num_required)


def _num_accumulated_kernel(op, resources):
    accumulator = _accumulator_lookup(resources)
    return lambda handle: np.int32(accumulator(handle).num_accumulated(None))


def _set_global_step_kernel(op, resources):
    accumulator = _accumulator_lookup(resources)
    return lambda handle, new_global_step: accumulator(handle).set_global_step(None, new_global_step)


register("ResourceAccumulatorApplyGradient", infer=lambda op: [], make_kernel=_apply_kernel, stateful=True,
         gpu=False)
register("ResourceAccumulatorTakeGradient", infer=lambda op: [(op._attrs["dtype"], unknown_shape())],
         make_kernel=_take_kernel, stateful=True, gpu=False, uses_context=True)
register("ResourceAccumulatorNumAccumulated", infer=lambda op: [(dtypes.int32, TensorShape([]))],
         make_kernel=_num_accumulated_kernel, stateful=True, gpu=False)
register("ResourceAccumulatorSetGlobalStep", infer=lambda op: [], make_kernel=_set_global_step_kernel,
         stateful=True, gpu=False)
for _t in ("ResourceConditionalAccumulator", "ResourceAccumulatorApplyGradient", "ResourceAccumulatorTakeGradient",
           "ResourceAccumulatorNumAccumulated", "ResourceAccumulatorSetGlobalStep"):
    not_differentiable(_t)


def _as_int64(value):
    from dflow.ops.math import math_ops

    t = convert_to_tensor(value)
    return t if t.dtype is dtypes.int64 else math_ops.cast(t, dtypes.int64)


# -- the public classes ---------------------------------------------------------------------------


def create_accumulator(op_type: str, dtype, shape, shared_name, name, reduction_type) -> tuple:
    """``(dtype, shape, handle)`` of a new accumulator op of ``op_type`` (dense or sparse), on a CPU."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _FLOAT_TYPES:
        raise TypeError(f"{op_type} accumulates float16, float32 or float64 gradients (TF1 has no kernel for "
                        f"others), got {dtype.name}")
    if reduction_type not in REDUCTION_TYPES:
        raise ValueError(f"Attr 'reduction_type' of '{op_type}' Op passed string {reduction_type!r} not in: "
                         f"\"MEAN\", \"SUM\".")
    shape = as_shape(shape) if shape is not None else unknown_shape()
    with device("CPU"):
        ref = apply_op(op_type, [], {"dtype": dtype, "shape": shape, "container": "",
                                     "shared_name": shared_name or "", "reduction_type": reduction_type},
                       name=name).outputs[0]
    return dtype, shape, ref


@tf_export("ConditionalAccumulatorBase")
class ConditionalAccumulatorBase:
    """A conditional accumulator for aggregating gradients.

    Up-to-date gradients (computed at a local step no smaller than the
    accumulator's global step) are added to it; extracting their average
    waits until enough have been added.
    """

    def __init__(self, dtype, shape, accumulator_ref):
        self._dtype = dtype
        self._shape = TensorShape(shape) if shape is not None else unknown_shape()
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self):
        """The accumulator's handle (a scalar string tensor)."""
        return self._accumulator_ref

    @property
    def name(self) -> str:
        """The name of the accumulator op, without its scope."""
        return self._name

    @property
    def dtype(self):
        """The dtype of the gradients accumulated."""
        return self._dtype

    def _op(self, op_type: str, inputs, attrs: dict, name):
        with colocate_with(self._accumulator_ref.op):
            return apply_op(op_type, [self._accumulator_ref] + list(inputs), attrs, name=name)

    def num_accumulated(self, name=None):
        """The number of gradients summed so far in this step (an int32 scalar)."""
        if name is None:
            name = f"{self._name}_NumAccumulated"
        return self._op("ResourceAccumulatorNumAccumulated", [], {}, name).outputs[0]

    def set_global_step(self, new_global_step, name=None):
        """An op that sets the accumulator's global step (a warning when it goes down).

        Gradients already summed stay."""
        step = _as_int64(new_global_step)
        return self._op("ResourceAccumulatorSetGlobalStep", [step], {}, name)


@tf_export("ConditionalAccumulator")
class ConditionalAccumulator(ConditionalAccumulatorBase):
    """A conditional accumulator for aggregating gradients.

    ``tf.ConditionalAccumulator(dtype, shape=None, shared_name=None,
    name="conditional_accumulator", reduction_type="MEAN")``. Gradients
    computed at a ``local_step`` below the accumulator's global step are
    dropped; ``take_grad(n)`` waits for ``n`` gradients and returns their mean
    (or sum), then starts the next step.

    >>> import dflow as tf
    >>> acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
    >>> g = tf.placeholder(tf.float32, [2])
    >>> apply = acc.apply_grad(g, local_step=0)
    >>> with tf.Session() as sess:
    ...     sess.run(apply, {g: [1.0, 2.0]})
    ...     sess.run(apply, {g: [3.0, 6.0]})
    ...     print(sess.run(acc.take_grad(2)))
    [2. 4.]
    """

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator",  # noqa: A002
                 reduction_type="MEAN"):
        super().__init__(*create_accumulator("ResourceConditionalAccumulator", dtype, shape, shared_name, name,
                                             reduction_type))

    def apply_grad(self, grad, local_step=0, name=None):
        """An op that adds ``grad`` unless it is stale (``local_step`` below the global step).

        ValueError now if ``grad``'s static shape cannot match the
        accumulator's; InvalidArgumentError when the op runs if its value's
        shape does not."""
        grad = convert_to_tensor(grad, dtype=self._dtype)
        grad.shape.assert_is_compatible_with(self._shape)
        local_step = _as_int64(local_step)
        return self._op("ResourceAccumulatorApplyGradient", [local_step, grad], {"dtype": self._dtype}, name)

    def take_grad(self, num_required, name=None):
        """The mean (or sum) of ``num_required`` gradients, once that many were applied.

        Running it waits for them, then resets the accumulator and adds one
        to its global step. ``InvalidArgumentError`` if ``num_required < 1``;
        ``DeadlineExceededError`` (nothing taken) when the run's or the op's
        timeout passes first."""
        with name_scope(name, "ResourceAccumulatorTakeGradient") as scope:
            n = convert_to_tensor(num_required, dtype=dtypes.int32, name="num_required")
            out = self._op("ResourceAccumulatorTakeGradient", [n], {"dtype": self._dtype}, scope).outputs[0]
        out.set_shape(self._shape)
        return out
