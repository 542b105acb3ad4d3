"""``tf.train.AdadeltaOptimizer`` and its op ``ApplyAdadelta``."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.kernels import array_module
from dflow.train.optimizers.optimizer import Optimizer, cast_to
from dflow.train.optimizers.training_ops import apply_training_op, register_apply_op


def _apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad):
    xp = array_module(var)
    accum = accum * rho + xp.square(grad) * (1 - rho)
    update = xp.sqrt(accum_update + epsilon) * (1 / xp.sqrt(accum + epsilon)) * grad
    var = var - update * lr
    accum_update = accum_update * rho + xp.square(update) * (1 - rho)
    return var, accum, accum_update


register_apply_op("ApplyAdadelta", ("lr", "rho", "epsilon", "grad"), ("accum", "accum_update"), _apply_adadelta)


@tf_export("train.AdadeltaOptimizer")
class AdadeltaOptimizer(Optimizer):
    """Adadelta (Zeiler, 2012)::

        accum = rho * accum + (1 - rho) * g * g
        update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * g
        var -= learning_rate * update
        accum_update = rho * accum_update + (1 - rho) * update * update

    Slots ``"accum"`` and ``"accum_update"`` of ``w`` are ``w/Adadelta`` and ``w/Adadelta_1``.
    """

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon
        self._lr_t = self._rho_t = self._epsilon_t = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="lr")
        self._rho_t = convert_to_tensor(self._call_if_callable(self._rho), name="rho")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        inputs = [cast_to(t, dtype) for t in (self._lr_t, self._rho_t, self._epsilon_t)] + [grad]
        slots = [self.get_slot(var, "accum"), self.get_slot(var, "accum_update")]
        return apply_training_op("ApplyAdadelta", var, slots, inputs).op
