"""``tf.train.ProximalAdagradOptimizer`` (op ``ApplyProximalAdagrad``) and ``tf.train.AdagradDAOptimizer``
(op ``ApplyAdagradDA``), with TF1's kernels' formulas.

ProximalAdagrad: ``accum += g²``, ``lr_t = lr / sqrt(accum)``, ``prox = var - lr_t g``, then
``var = sign(prox) max(|prox| - lr_t l1, 0) / (1 + lr_t l2)``.

AdagradDA (dual averaging, for sparse linear models): with ``T`` the global step plus one,
``g_acc += g``, ``gg_acc += g²``, ``var = -lr sign(g_acc) max(|g_acc| - l1 T, 0) / (l2 T lr + sqrt(gg_acc))``.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import colocate_with
from dflow.kernels import array_module
from dflow.ops.control_flow.control_flow_ops import identity
from dflow.train.optimizers import slot_creator
from dflow.train.optimizers.adagrad import AdagradOptimizer
from dflow.train.optimizers.optimizer import Optimizer, cast_to
from dflow.train.optimizers.training_ops import apply_training_op, register_apply_op


def _shrink(xp, value, amount):
    """``sign(value) * max(|value| - amount, 0)``: the l1 proximal step."""
    return xp.sign(value) * xp.maximum(xp.abs(value) - amount, 0)


def _apply_proximal_adagrad(var, accum, lr, l1, l2, grad):
    xp = array_module(var)
    accum = accum + xp.square(grad)
    lr_t = lr / xp.sqrt(accum)
    prox = var - grad * lr_t
    top = _shrink(xp, prox, lr_t * l1) if l1 > 0 else prox
    return (top / (1 + l2 * lr_t)).astype(var.dtype), accum


register_apply_op("ApplyProximalAdagrad", ("lr", "l1", "l2", "grad"), ("accum",), _apply_proximal_adagrad)


@tf_export("train.ProximalAdagradOptimizer")
class ProximalAdagradOptimizer(AdagradOptimizer):
    """Adagrad with l1/l2 proximal steps (FOBOS); the slot ``"accumulator"`` of ``w`` is ``w/ProximalAdagrad``."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False, name="ProximalAdagrad"):
        super().__init__(learning_rate, initial_accumulator_value, use_locking, name)
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._l1_l2_tensors = None

    def _prepare(self):
        super()._prepare()
        self._l1_l2_tensors = (
            convert_to_tensor(self._call_if_callable(self._l1), name="l1_regularization_strength"),
            convert_to_tensor(self._call_if_callable(self._l2), name="l2_regularization_strength"))

    def _apply_dense(self, grad, var):
        lr, l1, l2 = (cast_to(t, var.dtype.base_dtype) for t in (self._learning_rate_tensor, *self._l1_l2_tensors))
        return apply_training_op("ApplyProximalAdagrad", var, [self.get_slot(var, "accumulator")],
                                 [lr, l1, l2, grad]).op


def _apply_adagrad_da(var, g_acc, gg_acc, lr, l1, l2, global_step, grad):
    xp = array_module(var)
    g_acc = g_acc + grad
    gg_acc = gg_acc + xp.square(grad)
    top = _shrink(xp, g_acc, l1 * global_step) if l1 > 0 else g_acc
    return (-lr * top / (l2 * global_step * lr + xp.sqrt(gg_acc))).astype(var.dtype), g_acc, gg_acc


register_apply_op("ApplyAdagradDA", ("lr", "l1", "l2", "global_step", "grad"),
                  ("gradient_accumulator", "gradient_squared_accumulator"), _apply_adagrad_da)


@tf_export("train.AdagradDAOptimizer")
class AdagradDAOptimizer(Optimizer):
    """Adagrad dual averaging; needs the ``global_step`` tensor. Slots: ``"gradient_accumulator"`` (``w/AdagradDA``)
    and ``"gradient_squared_accumulator"`` (``w/AdagradDA_1``)."""

    def __init__(self, learning_rate, global_step, initial_gradient_squared_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False,
                 name="AdagradDA"):
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError("initial_gradient_squared_accumulator_value must be positive: "
                             f"{initial_gradient_squared_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gradient_squared_accumulator_value = initial_gradient_squared_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._global_step = global_step
        self._tensors = None
        self._global_step_on_worker = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._get_or_make_slot_with_initializer(v, slot_creator.zeros_initializer, v.get_shape(),
                                                    v.dtype.base_dtype, "gradient_accumulator", self._name)
            self._get_or_make_slot_with_initializer(
                v, slot_creator.constant_initializer(self._initial_gradient_squared_accumulator_value),
                v.get_shape(), v.dtype.base_dtype, "gradient_squared_accumulator", self._name)

    def _prepare(self):
        self._tensors = (convert_to_tensor(self._call_if_callable(self._learning_rate), name="learning_rate"),
                         convert_to_tensor(self._call_if_callable(self._l1), name="l1_regularization_strength"),
                         convert_to_tensor(self._call_if_callable(self._l2), name="l2_regularization_strength"))
        # TF1 reads the step once per apply (a copy on the worker) and counts from 1
        with colocate_with(self._global_step.op):
            self._global_step_on_worker = identity(self._global_step) + 1

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        lr, l1, l2 = (cast_to(t, dtype) for t in self._tensors)
        step = cast_to(self._global_step_on_worker, dtype)
        return apply_training_op("ApplyAdagradDA", var, [self.get_slot(var, "gradient_accumulator"),
                                                         self.get_slot(var, "gradient_squared_accumulator")],
                                 [lr, l1, l2, step, grad]).op

