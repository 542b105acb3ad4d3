"""``tf.train.AdagradOptimizer`` and its op ``ApplyAdagrad``."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.kernels import array_module
from dflow.train.optimizers import slot_creator
from dflow.train.optimizers.optimizer import Optimizer, cast_to
from dflow.train.optimizers.training_ops import apply_training_op, register_apply_op


def _apply_adagrad(var, accum, lr, grad):
    xp = array_module(var)
    accum = accum + xp.square(grad)
    return var - grad * lr * (1 / xp.sqrt(accum)), accum


register_apply_op("ApplyAdagrad", ("lr", "grad"), ("accum",), _apply_adagrad)


@tf_export("train.AdagradOptimizer")
class AdagradOptimizer(Optimizer):
    """Adagrad: ``accum += grad ** 2; var -= learning_rate * grad / sqrt(accum)``.

    The slot ``"accumulator"`` of ``w`` is ``w/Adagrad``, starting at
    ``initial_accumulator_value``.
    """

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._learning_rate_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._get_or_make_slot_with_initializer(
                v, slot_creator.constant_initializer(self._initial_accumulator_value), v.get_shape(),
                v.dtype.base_dtype, "accumulator", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")

    def _apply_dense(self, grad, var):
        lr = cast_to(self._learning_rate_tensor, var.dtype.base_dtype)
        return apply_training_op("ApplyAdagrad", var, [self.get_slot(var, "accumulator")], [lr, grad]).op
