"""``tf.train.AdamOptimizer`` and its op ``ApplyAdam``."""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import colocate_with, control_dependencies, get_default_graph
from dflow.kernels import array_module
from dflow.kernels import numba_loops as _numba
from dflow.ops.control_flow.control_flow_ops import group
from dflow.train.optimizers.optimizer import Optimizer, cast_to
from dflow.train.optimizers.training_ops import apply_training_op, in_blocks, register_apply_op


def _alpha(xp, lr, beta1_power, beta2_power):
    return lr * xp.sqrt(1 - beta2_power) / (1 - beta1_power)


def _apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_nesterov):
    """The new ``var``, ``m`` and ``v``, fresh arrays: copies, updated by ``_adam_step``."""
    xp = array_module(var)
    alpha = _alpha(xp, lr, beta1_power, beta2_power)
    if xp is not np:
        new = (var.copy(), m.copy(), v.copy())
        _adam_step(*new, alpha, beta1, beta2, epsilon, grad, use_nesterov)
        return new
    if _numba.usable(var, m, v, grad):
        new = (var.copy(), m.copy(), v.copy())
        _compiled_adam(*new, alpha, beta1, beta2, epsilon, grad, use_nesterov)
        return new
    outs = [np.empty(var.shape, var.dtype) for _ in range(3)]

    def step(var_, m_, v_, grad_, *new):  # copied a block at a time, while it is in cache
        for target, source in zip(new, (var_, m_, v_)):
            np.copyto(target, source)
        _adam_step(*new, alpha, beta1, beta2, epsilon, grad_, use_nesterov)

    in_blocks(step, var, m, v, grad, *outs)
    return tuple(outs)


def _apply_adam_in_place(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_nesterov):
    """``_apply_adam`` written into ``var``, ``m`` and ``v`` (the same values, bit for bit)."""
    alpha = _alpha(np, lr, beta1_power, beta2_power)
    if _numba.usable(var, m, v, grad):
        _compiled_adam(var, m, v, alpha, beta1, beta2, epsilon, grad, use_nesterov)
        return
    in_blocks(lambda var_, m_, v_, grad_: _adam_step(var_, m_, v_, alpha, beta1, beta2, epsilon, grad_,
                                                     use_nesterov), var, m, v, grad)


def _compiled_adam(var, m, v, alpha, beta1, beta2, epsilon, grad, use_nesterov):
    """``_adam_step`` as one compiled loop (``_numba``), in place."""
    _numba.run(_numba.adam_loop, (var, m, v, grad),
               (alpha, 1 - beta1, 1 - beta2, beta1, epsilon, bool(use_nesterov)))


def _adam_step(var, m, v, alpha, beta1, beta2, epsilon, grad, use_nesterov):
    """TF1's arithmetic in its order (``m += (grad - m) * (1 - beta1)``, and so on), in place.
    Run block by block, each step's operands stay in cache: the update of a large layer is
    otherwise a dozen passes through memory."""
    xp = array_module(var)
    t = xp.subtract(grad, m)
    t *= 1 - beta1
    m += t
    xp.square(grad, out=t)
    t -= v
    t *= 1 - beta2
    v += t
    if use_nesterov:
        step = grad * (1 - beta1)
        step += beta1 * m
        step *= alpha
    else:
        step = xp.multiply(m, alpha)
    xp.sqrt(v, out=t)
    t += epsilon
    step /= t
    var -= step


register_apply_op("ApplyAdam", ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"),
                  ("m", "v"), _apply_adam, in_place=_apply_adam_in_place)


@tf_export("train.AdamOptimizer")
class AdamOptimizer(Optimizer):
    """Adam (Kingma & Ba), in TF1's form with "epsilon hat"::

        lr_t = learning_rate * sqrt(1 - beta2^t) / (1 - beta1^t)
        m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
        var -= lr_t * m / (sqrt(v) + epsilon)

    Slots ``"m"`` and ``"v"`` of ``w`` are ``w/Adam`` and ``w/Adam_1``; the
    powers ``beta1^t`` and ``beta2^t`` are the variables ``beta1_power`` and
    ``beta2_power``, colocated with the first variable by name, and advance
    once per ``apply_gradients`` step after all variables are updated.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._lr_t = self._beta1_t = self._beta2_t = self._epsilon_t = None

    def _get_beta_accumulators(self):
        graph = get_default_graph()
        return self._get_non_slot_variable("beta1_power", graph), self._get_non_slot_variable("beta2_power", graph)

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="learning_rate")
        self._beta1_t = convert_to_tensor(self._call_if_callable(self._beta1), name="beta1")
        self._beta2_t = convert_to_tensor(self._call_if_callable(self._beta2), name="beta2")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators()
        inputs = [cast_to(x, dtype) for x in (beta1_power, beta2_power, self._lr_t, self._beta1_t, self._beta2_t,
                                               self._epsilon_t)]
        slots = [self.get_slot(var, "m"), self.get_slot(var, "v")]
        return apply_training_op("ApplyAdam", var, slots, inputs + [grad], {"use_nesterov": False}).op

    def _finish(self, update_ops, name_scope):
        with control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with colocate_with(beta1_power):
                update_beta1 = beta1_power.assign(beta1_power * self._beta1_t)
                update_beta2 = beta2_power.assign(beta2_power * self._beta2_t)
        return group(*update_ops, update_beta1, update_beta2, name=name_scope)
