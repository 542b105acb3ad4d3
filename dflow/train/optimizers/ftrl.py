"""``tf.train.FtrlOptimizer`` and its ops ``ApplyFtrl`` and ``ApplyFtrlV2``."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.kernels import array_module
from dflow.ops.math import math_ops
from dflow.train.optimizers import slot_creator
from dflow.train.optimizers.optimizer import Optimizer, cast_to
from dflow.train.optimizers.training_ops import apply_training_op, register_apply_op


def _ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, grad_with_shrinkage):
    xp = array_module(var)
    new_accum = accum + grad * grad
    if lr_power == -0.5:
        new_root, root = xp.sqrt(new_accum), xp.sqrt(accum)
    else:
        new_root, root = new_accum ** -lr_power, accum ** -lr_power
    linear = linear + (grad_with_shrinkage - (new_root - root) / lr * var)
    x = l1 * xp.sign(linear) - linear
    y = new_root / lr + 2 * l2
    var = xp.where(xp.abs(linear) > l1, x / y, var.dtype.type(0))
    return var, new_accum, linear


def _apply_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power):
    return _ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, grad)


def _apply_ftrl_v2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power):
    return _ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, grad + 2 * l2_shrinkage * var)


register_apply_op("ApplyFtrl", ("grad", "lr", "l1", "l2", "lr_power"), ("accum", "linear"), _apply_ftrl)
register_apply_op("ApplyFtrlV2", ("grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"), ("accum", "linear"),
                  _apply_ftrl_v2)


@tf_export("train.FtrlOptimizer")
class FtrlOptimizer(Optimizer):
    """FTRL-Proximal (McMahan et al., 2013), with L1, L2 and L2-shrinkage regularization.

    Slots of ``w``: ``"accum"`` (``w/Ftrl``, starting at
    ``initial_accumulator_value``) and ``"linear"`` (``w/Ftrl_1``).
    """

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False, name="Ftrl",
                 accum_name=None, linear_name=None, l2_shrinkage_regularization_strength=0.0, beta=None):
        super().__init__(use_locking, name)
        for what, value, sign in (("initial_accumulator_value", initial_accumulator_value, "positive"),
                                  ("l1_regularization_strength", l1_regularization_strength, "positive"),
                                  ("l2_regularization_strength", l2_regularization_strength, "positive"),
                                  ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength,
                                   "positive")):
            if value < 0.0:
                raise ValueError(f"{what} {value:f} needs to be {sign} or zero")
        if learning_rate_power > 0.0:
            raise ValueError(f"learning_rate_power {learning_rate_power:f} needs to be negative or zero")
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._accum_name = accum_name
        self._linear_name = linear_name

    def _create_slots(self, var_list):
        for v in var_list:
            self._get_or_make_slot_with_initializer(
                v, self._accum_initializer, v.shape, v.dtype.base_dtype, "accum", self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _accum_initializer(self, shape, dtype=None, partition_info=None):
        return slot_creator.ones_initializer(shape, dtype) * self._initial_accumulator_value

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(self._l1_regularization_strength,
                                                                    name="l1_regularization_strength")
        # L2 with beta folded in, so that the ops need no beta (TF1).
        self._adjusted_l2_regularization_strength_tensor = convert_to_tensor(
            self._l2_regularization_strength + self._beta / (2.0 * math_ops.maximum(self._learning_rate, 1e-36)),
            name="adjusted_l2_regularization_strength")
        self._beta_tensor = convert_to_tensor(self._beta, name="beta")  # unused, as in TF1
        self._l2_shrinkage_regularization_strength_tensor = convert_to_tensor(
            self._l2_shrinkage_regularization_strength, name="l2_shrinkage_regularization_strength")
        self._learning_rate_power_tensor = convert_to_tensor(self._learning_rate_power, name="learning_rate_power")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        lr, l1, l2, shrinkage, power = (cast_to(t, dtype) for t in (
            self._learning_rate_tensor, self._l1_regularization_strength_tensor,
            self._adjusted_l2_regularization_strength_tensor, self._l2_shrinkage_regularization_strength_tensor,
            self._learning_rate_power_tensor))
        slots = [self.get_slot(var, "accum"), self.get_slot(var, "linear")]
        if self._l2_shrinkage_regularization_strength <= 0.0:
            return apply_training_op("ApplyFtrl", var, slots, [grad, lr, l1, l2, power]).op
        return apply_training_op("ApplyFtrlV2", var, slots, [grad, lr, l1, l2, shrinkage, power]).op
