"""Variable helpers of TF1's top level: the ``VariableAggregation``/``VariableSynchronization``
enums, ``assert_variables_initialized`` and ``count_up_to``.

dflow keeps one copy of each variable (no mirrored replicas), so the enums
are accepted by ``tf.Variable``/``get_variable`` and recorded, with nothing to
synchronize.
"""

from __future__ import annotations

import enum

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.graph import GraphKeys, colocate_with, get_default_graph
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor import Tensor
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.state.variables import Variable, _state


@tf_export("VariableAggregation")
class VariableAggregation(enum.Enum):
    """How updates of a variable's replicas combine (TF1 also spells the last ``ONLY_FIRST_TOWER``)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3


@tf_export("VariableSynchronization")
class VariableSynchronization(enum.Enum):
    """When a distributed variable's replicas synchronize."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


@tf_export("assert_variables_initialized")
def assert_variables_initialized(var_list=None):
    """A tensor that raises ``FailedPreconditionError`` when run while a variable of ``var_list`` is uninitialized.

    ``var_list`` defaults to the global and local variables; None when there are none (as TF1).
    """
    from dflow.ops.array.array_ops import stack

    graph = get_default_graph()
    if var_list is None:
        var_list = graph.get_collection(GraphKeys.GLOBAL_VARIABLES) + graph.get_collection(GraphKeys.LOCAL_VARIABLES)
    if not var_list:
        var_list = [op.outputs[0] for op in graph.get_operations() if op.type in ("VariableV2", "Variable")]
    if not var_list:
        return None
    ranks = []
    for var in var_list:
        with colocate_with(var.op):
            value = var.value() if hasattr(var, "value") else var
            ranks.append(apply_op("Rank", [value], name="Rank").outputs[0])  # reads the variable when run
    return ranks[0] if len(ranks) == 1 else stack(ranks)


# -- CountUpTo: the epoch counter of tf.train.limit_epochs and tf.count_up_to -----------------------------


def _count_up_to_kernel(op, resources):
    var_op, limit = op._attrs["var"], op._attrs["limit"]
    state = _state(op, var_op, resources)

    def kernel():
        before = []

        def bump(value):
            if value >= limit:
                raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
            before.append(value)
            return value + 1

        state.update(bump)
        return before[0]

    return kernel


register("CountUpTo", infer=lambda op: [(op._attrs["var"]._attrs["dtype"], TensorShape([]))],
         make_kernel=_count_up_to_kernel, stateful=True, gpu=False)
not_differentiable("CountUpTo")


def _count_up_to(var: Variable, limit: int, name="CountUpTo") -> Tensor:
    """Increments ``var`` and returns its value before; ``OutOfRangeError`` once it reached ``limit``."""
    with colocate_with(var.op):
        return apply_op("CountUpTo", [], {"var": var.op, "limit": int(limit)}, name=name).outputs[0]


@tf_export("count_up_to")
def count_up_to(ref, limit, name=None):
    """Increments integer variable ``ref`` and returns its value before; ``OutOfRangeError`` at ``limit``."""
    return _count_up_to(ref, limit, name=name or "CountUpTo")
