"""``tf.contrib.opt``: the optimizers ported TF 1.15 programs used most.

* ``LazyAdamOptimizer``: Adam whose sparse (``IndexedSlices``) updates touch only the rows
  gathered: ``m``, ``v`` and the variable change in those rows alone (dense gradients: plain Adam);
* ``DecoupledWeightDecayExtension`` / ``extend_with_decoupled_weight_decay``: weight decay
  decoupled from the gradient (Loshchilov & Hutter): each step first does
  ``var -= weight_decay * var`` (only the gathered rows for a sparse gradient; only the variables
  in ``decay_var_list`` when one is given to ``apply_gradients``), then the base optimizer's
  update. As in TF 1.15, ``minimize(decay_var_list=...)`` decays every variable: TF's
  ``minimize`` calls ``apply_gradients``, which resets the list (kept, so that numbers match).
  ``weight_decay`` is not multiplied by the learning rate, as TF's;
  ``AdamWOptimizer`` and ``MomentumWOptimizer`` are the extension of Adam and Momentum;
* ``MovingAverageOptimizer``: wraps an optimizer and keeps an ``ExponentialMovingAverage`` of the
  variables it updates; ``swapping_saver()`` saves the averages under the variables' names
  (and the variables under the averages' names), so that restoring evaluates with the averages;
* ``ScipyOptimizerInterface``: not provided (raises ``NotImplementedError``).
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import control_dependencies
from dflow.ops.array import gather_ops
from dflow.ops.control_flow.control_flow_ops import group, no_op
from dflow.ops.math import unary_math_ops
from dflow.ops.state import variables as variables_lib
from dflow.ops.state.partitioned_variables import PartitionedVariable
from dflow.train.checkpoints.saver import Saver
from dflow.train.moving_averages import ExponentialMovingAverage
from dflow.train.optimizers.adam import AdamOptimizer
from dflow.train.optimizers.momentum import MomentumOptimizer
from dflow.train.optimizers.optimizer import Optimizer, cast_to

# -- LazyAdamOptimizer -----------------------------------------------------------------------------


@tf_export("contrib.opt.LazyAdamOptimizer")
class LazyAdamOptimizer(AdamOptimizer):
    """Adam with lazy sparse updates: for an ``IndexedSlices`` gradient only the rows in its indices
    update their ``m``, ``v`` and value (the moments of the other rows do not decay)::

        m[rows] = beta1 * m[rows] + (1 - beta1) * g;  v[rows] = beta2 * v[rows] + (1 - beta2) * g²
        var[rows] -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m[rows] / (sqrt(v[rows]) + epsilon)
    """

    def _apply_sparse(self, grad, var):
        return self._apply_sparse_shared(grad.values, var, grad.indices)

    def _apply_sparse_shared(self, grad, var, indices):
        dtype = var.dtype.base_dtype
        beta1_power, beta2_power = (cast_to(p, dtype) for p in self._get_beta_accumulators())
        lr_t, beta1_t, beta2_t, epsilon_t = (cast_to(t, dtype) for t in (self._lr_t, self._beta1_t, self._beta2_t,
                                                                          self._epsilon_t))
        lr = lr_t * unary_math_ops.sqrt(1 - beta2_power) / (1 - beta1_power)
        m = self.get_slot(var, "m")
        m_t = variables_lib.scatter_update(m, indices, beta1_t * gather_ops.gather(m, indices) + (1 - beta1_t) * grad,
                                           use_locking=self._use_locking)
        v = self.get_slot(var, "v")
        v_t = variables_lib.scatter_update(
            v, indices, beta2_t * gather_ops.gather(v, indices) + (1 - beta2_t) * unary_math_ops.square(grad),
            use_locking=self._use_locking)
        m_t_slice = gather_ops.gather(m_t, indices)
        v_t_slice = gather_ops.gather(v_t, indices)
        denominator_slice = unary_math_ops.sqrt(v_t_slice) + epsilon_t
        var_update = variables_lib.scatter_sub(var, indices, lr * m_t_slice / denominator_slice,
                                               use_locking=self._use_locking)
        return group(var_update, m_t, v_t)


# -- decoupled weight decay ------------------------------------------------------------------------


@tf_export("contrib.opt.DecoupledWeightDecayExtension")
class DecoupledWeightDecayExtension:
    """A mixin, listed before an optimizer class, that adds decoupled weight decay to it:
    ``class AdamW(DecoupledWeightDecayExtension, tf.train.AdamOptimizer)``.

    ``weight_decay`` (a float, a tensor or a callable returning one) multiplies the variable
    itself; decay happens before the optimizer's update, in the same step.
    """

    def __init__(self, weight_decay, **kwargs):
        self._decay_var_list = None
        self._weight_decay = weight_decay
        self._weight_decay_tensor = None
        self._decay_in_dense = True
        super().__init__(**kwargs)

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=Optimizer.GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None, grad_loss=None,
                 decay_var_list=None):
        """``Optimizer.minimize``. TF 1.15 takes ``decay_var_list`` here but its ``apply_gradients``
        resets it, so every variable decays; dflow does the same. Pass ``decay_var_list`` to
        ``apply_gradients`` to restrict the decay."""
        self._decay_var_list = set(decay_var_list) if decay_var_list else False
        return super().minimize(loss, global_step=global_step, var_list=var_list, gate_gradients=gate_gradients,
                                aggregation_method=aggregation_method,
                                colocate_gradients_with_ops=colocate_gradients_with_ops, name=name,
                                grad_loss=grad_loss)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, decay_var_list=None):
        """``Optimizer.apply_gradients``; only the variables in ``decay_var_list`` decay, when it is given."""
        self._decay_var_list = set(decay_var_list) if decay_var_list else False
        return super().apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def _prepare(self):
        weight_decay = self._weight_decay
        if callable(weight_decay):
            weight_decay = weight_decay()
        self._weight_decay_tensor = convert_to_tensor(weight_decay, name="weight_decay")
        super()._prepare()

    def _decays(self, var) -> bool:
        return not self._decay_var_list or var in self._decay_var_list

    def _decay_weights_op(self, var):
        if self._decays(var):
            wd = cast_to(self._weight_decay_tensor, var.dtype.base_dtype)
            return variables_lib.assign_sub(var, wd * var, use_locking=self._use_locking)
        return no_op()

    def _decay_weights_sparse_op(self, var, indices):
        if self._decays(var):
            wd = cast_to(self._weight_decay_tensor, var.dtype.base_dtype)
            update = -wd * gather_ops.gather(var, indices)
            return variables_lib.scatter_add(var, indices, update, use_locking=self._use_locking)
        return no_op()

    def _apply_dense(self, grad, var):
        if not self._decay_in_dense:
            return super()._apply_dense(grad, var)
        with control_dependencies([self._decay_weights_op(var)]):
            return super()._apply_dense(grad, var)

    def _apply_sparse(self, grad, var):
        decay_op = self._decay_weights_sparse_op(var, grad.indices)
        # The base's sparse path may run through _apply_dense: the rows were decayed already.
        self._decay_in_dense = False
        try:
            with control_dependencies([decay_op]):
                return super()._apply_sparse(grad, var)
        finally:
            self._decay_in_dense = True


@tf_export("contrib.opt.extend_with_decoupled_weight_decay")
def extend_with_decoupled_weight_decay(base_optimizer):
    """The class ``base_optimizer`` with decoupled weight decay: its constructor takes
    ``weight_decay`` first, then ``base_optimizer``'s arguments."""

    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecayExtension, base_optimizer):
        def __init__(self, weight_decay, *args, **kwargs):
            DecoupledWeightDecayExtension.__init__(self, weight_decay, **_positional(base_optimizer, args, kwargs))

    OptimizerWithDecoupledWeightDecay.__name__ = f"{base_optimizer.__name__}WithDecoupledWeightDecay"
    return OptimizerWithDecoupledWeightDecay


def _positional(cls, args, kwargs) -> dict:
    """``args`` given positionally to ``cls.__init__`` as keywords (the mixin passes keywords on)."""
    import inspect

    params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    if len(args) > len(params):
        raise TypeError(f"{cls.__name__} takes at most {len(params)} arguments ({len(args)} given)")
    out = dict(zip(params, args))
    for k, v in kwargs.items():
        if k in out:
            raise TypeError(f"{cls.__name__} got multiple values for argument {k!r}")
        out[k] = v
    return out


@tf_export("contrib.opt.MomentumWOptimizer")
class MomentumWOptimizer(DecoupledWeightDecayExtension, MomentumOptimizer):
    """Momentum with decoupled weight decay: ``var -= weight_decay * var``, then the momentum update."""

    def __init__(self, weight_decay, learning_rate, momentum, use_locking=False, name="MomentumW",
                 use_nesterov=False):
        super().__init__(weight_decay, learning_rate=learning_rate, momentum=momentum, use_locking=use_locking,
                         name=name, use_nesterov=use_nesterov)


@tf_export("contrib.opt.AdamWOptimizer")
class AdamWOptimizer(DecoupledWeightDecayExtension, AdamOptimizer):
    """Adam with decoupled weight decay (AdamW): ``var -= weight_decay * var``, then the Adam update."""

    def __init__(self, weight_decay, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False,
                 name="AdamW"):
        super().__init__(weight_decay, learning_rate=learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon,
                         use_locking=use_locking, name=name)


# -- MovingAverageOptimizer ------------------------------------------------------------------------


@tf_export("contrib.opt.MovingAverageOptimizer")
class MovingAverageOptimizer(Optimizer):
    """Runs ``opt`` and then updates an ``ExponentialMovingAverage`` (``average_decay``,
    ``num_updates``) of the variables it trained; ``swapping_saver`` saves the averages in place of
    the variables. With ``sequential_update`` the averages update after the variables."""

    def __init__(self, opt, average_decay=0.9999, num_updates=None, sequential_update=True):
        super().__init__(False, "MovingAverageOptimizer")
        self._optimizer = opt
        self._ema = ExponentialMovingAverage(average_decay, num_updates=num_updates, zero_debias=True)
        self._swapped_variable_name_map = None
        self._sequential_update = sequential_update

    def compute_gradients(self, *args, **kwargs):
        return self._optimizer.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        train_op = self._optimizer.apply_gradients(grads_and_vars, global_step=global_step, name=name)
        var_list = [v for g, v in grads_and_vars if g is not None]
        self._swapped_variable_name_map = {}
        if self._sequential_update:
            with control_dependencies([train_op]):
                ma_op = self._ema.apply(var_list)
        else:
            ma_op = self._ema.apply(var_list)
        for v in var_list:
            v_avg = self._ema.average(v)
            self._swapped_variable_name_map[v.op.name] = v_avg.op.name
            self._swapped_variable_name_map[v_avg.op.name] = v.op.name
        return group(train_op, ma_op, name="train_with_avg")

    def _find_swapped_variable(self, v_name_to_tensor, v_name, tensor):
        if v_name in self._swapped_variable_name_map:
            return v_name_to_tensor.get(self._swapped_variable_name_map[v_name], tensor)
        return tensor

    def swapping_saver(self, var_list=None, name="swapping_saver", **kwargs):
        """A ``Saver`` whose checkpoints hold each averaged variable's average under the variable's
        name (and the variable under the average's name); ``var_list`` defaults to the global
        variables. Call after ``minimize`` or ``apply_gradients``."""
        if self._swapped_variable_name_map is None:
            raise RuntimeError("Must call apply_gradients or minimize before creating the swapping_saver")
        if var_list is None:
            var_list = variables_lib.global_variables()
        if not isinstance(var_list, dict):
            as_dict = {}
            for v in var_list:
                if isinstance(v, PartitionedVariable):
                    as_dict[v.name] = list(v)
                else:
                    as_dict[v.op.name] = v
            var_list = as_dict
        v_name_to_tensor = {}
        for k, tensor_or_list in var_list.items():
            if isinstance(tensor_or_list, (list, PartitionedVariable)):
                for tensor in tensor_or_list:
                    v_name_to_tensor[tensor.op.name] = tensor
            else:
                v_name_to_tensor[k] = tensor_or_list
        swapped_var_list = {}
        for k, tensor_or_list in var_list.items():
            if isinstance(tensor_or_list, (list, PartitionedVariable)):
                swapped_var_list[k] = [self._find_swapped_variable(v_name_to_tensor, t.op.name, t)
                                       for t in tensor_or_list]
            else:
                swapped_var_list[k] = self._find_swapped_variable(v_name_to_tensor, k, tensor_or_list)
        return Saver(swapped_var_list, name=name, **kwargs)


# -- not provided ----------------------------------------------------------------------------------


@tf_export("contrib.opt.ScipyOptimizerInterface")
class ScipyOptimizerInterface:
    """Not provided by dflow: ``tf.contrib.opt.ScipyOptimizerInterface`` ran scipy.optimize.minimize
    on the session's variables, from outside the graph."""

    def __init__(self, loss, var_list=None, equalities=None, inequalities=None, var_to_bounds=None, **optimizer_kwargs):
        raise NotImplementedError(
            "tf.contrib.opt.ScipyOptimizerInterface is not provided by dflow. Use a tf.train optimizer, or call "
            "scipy.optimize.minimize yourself on a function that feeds the variables' values and runs the loss "
            "and tf.gradients in a Session.")

