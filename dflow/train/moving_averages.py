"""``tf.train.ExponentialMovingAverage``: shadow variables that track an exponential moving average.

``ema.apply(var_list)`` creates, for each variable ``v``, a non-trainable
shadow ``v/ExponentialMovingAverage`` (a slot colocated with ``v``,
initialized to ``v``'s value) and returns one op that updates every shadow::

    shadow -= (1 - decay) * (shadow - v)

With ``num_updates`` the decay is ``min(decay, (1 + n) / (10 + n))``, so
early averages move faster. ``zero_debias=True`` applies to *tensors*
averaged (not variables, as in TF): their shadow starts at zero and is
divided by ``1 - decay^t``, using the ``biased`` and ``local_step``
variables it keeps beside it. ``variables_to_restore()`` maps the shadows'
names to the variables, so a ``Saver`` built from it loads the averages
into the model's variables for evaluation.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import GraphKeys, colocate_with, device, get_default_graph, name_scope
from dflow.framework.tensor_util import init_scope
from dflow.ops.control_flow.control_flow_ops import group
from dflow.ops.math.math_ops import cast, minimum
from dflow.ops.math.math_ops import pow as _pow
from dflow.ops.state.variables import Variable, assign, assign_add, assign_sub
from dflow.train.optimizers import slot_creator

_AVERAGEABLE = (dtypes.float16, dtypes.float32, dtypes.float64)


def _zero_debias(unbiased_var, value, decay):
    """``unbiased_var = biased / (1 - (1 - decay)^t)``, ``biased`` being the plain moving average of ``value``."""
    from dflow.ops.state import init_ops
    from dflow.ops.state.variable_scope import get_variable, get_variable_scope, variable_scope

    with variable_scope(unbiased_var.op.name, values=[unbiased_var, value, decay]):
        taken = {v.op.name for v in get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES)}
        scope = get_variable_scope().name

        def unique(name: str) -> str:
            if f"{scope}/{name}" not in taken:
                return name
            i = 1
            while f"{scope}/{name}_{i}" in taken:
                i += 1
            return f"{name}_{i}"

        with init_scope(), colocate_with(unbiased_var.op):
            biased = get_variable(unique("biased"), initializer=init_ops.zeros_initializer(),
                                  shape=unbiased_var.get_shape(), dtype=unbiased_var.dtype.base_dtype,
                                  trainable=False)
            local_step = get_variable(unique("local_step"), shape=[], dtype=unbiased_var.dtype.base_dtype,
                                      initializer=init_ops.zeros_initializer(), trainable=False)
    update_biased = assign_sub(biased, (biased - value) * decay)
    update_local_step = assign_add(local_step, 1)
    bias_factor = 1 - _pow(1.0 - decay, update_local_step)
    return assign(unbiased_var, update_biased / bias_factor, name=get_default_graph().get_name_scope() + "/")


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """``variable -= (variable - value) * (1 - decay)`` (zero-debiased if asked); returns the update."""
    with name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        decay = 1.0 - convert_to_tensor(decay)
        if decay.dtype != variable.dtype.base_dtype:
            decay = cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return assign_sub(variable, (variable - value) * decay, name=scope)


@tf_export("train.ExponentialMovingAverage")
class ExponentialMovingAverage:
    """Maintains moving averages of variables (or tensors) with exponential decay (TF1's semantics)."""

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict = {}

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list=None):
        """Creates the shadows of ``var_list`` (default: the trainable variables) and returns their update op."""
        if var_list is None:
            var_list = get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES)
        var_list = list(var_list)
        zero_debias_true = set()
        for var in var_list:
            if var.dtype.base_dtype not in _AVERAGEABLE:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if var in self._averages:
                continue
            with init_scope():
                if isinstance(var, Variable):
                    with device(var.device):
                        initialized = var.initialized_value()
                    avg = slot_creator.create_slot(var, initialized, self._name, colocate_with_primary=True)
                    get_default_graph().add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    avg = slot_creator.create_zeros_slot(
                        var, self._name, colocate_with_primary=var.op.type in ("Variable", "VariableV2"))
                    if self._zero_debias:
                        zero_debias_true.add(avg)
            self._averages[var] = avg
        with name_scope(self._name) as scope:
            decay = convert_to_tensor(self._decay, dtype=dtypes.float32, name="decay")
            if self._num_updates is not None:
                num_updates = cast(self._num_updates, dtypes.float32, name="num_updates")
                decay = minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = [assign_moving_average(self._averages[var], var, decay,
                                             zero_debias=self._averages[var] in zero_debias_true)
                       for var in var_list]
            return group(*updates, name=scope)

    def average(self, var):
        """The shadow variable of ``var``, or None."""
        return self._averages.get(var)

    def average_name(self, var) -> str:
        """The name of ``var``'s shadow (``v/ExponentialMovingAverage``), also before ``apply`` made it."""
        if var in self._averages:
            return self._averages[var].op.name
        return get_default_graph().unique_name(f"{var.op.name}/{self._name}", mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None) -> dict:
        """``{name in the checkpoint: variable}``: each averaged variable restored from its shadow's name.

        ``moving_avg_variables`` defaults to the trainable and moving-average
        variables; the other global variables are restored under their own names.
        """
        graph = get_default_graph()
        if moving_avg_variables is None:
            moving_avg_variables = (graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
                                    + graph.get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES))
        averaged = list(dict.fromkeys(moving_avg_variables))
        name_map = {self.average_name(v): v for v in averaged}
        averaged_names = {v.name for v in averaged}
        for v in dict.fromkeys(graph.get_collection(GraphKeys.GLOBAL_VARIABLES)):
            if v.name not in averaged_names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
