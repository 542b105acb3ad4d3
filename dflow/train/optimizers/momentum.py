"""``tf.train.MomentumOptimizer`` and its op ``ApplyMomentum``."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.train.optimizers.optimizer import Optimizer, cast_to
from dflow.train.optimizers.training_ops import apply_training_op, in_blocks, register_apply_op


def _apply_momentum(var, accum, lr, grad, momentum, use_nesterov):
    accum = accum * momentum + grad
    if use_nesterov:
        return var - (grad * lr + accum * momentum * lr), accum
    return var - accum * lr, accum


def _apply_momentum_in_place(var, accum, lr, grad, momentum, use_nesterov):
    def step(var_, accum_, grad_):
        accum_ *= momentum
        accum_ += grad_
        if use_nesterov:
            update = grad_ * lr
            update += accum_ * momentum * lr
        else:
            update = accum_ * lr
        var_ -= update

    in_blocks(step, var, accum, grad)


register_apply_op("ApplyMomentum", ("lr", "grad", "momentum"), ("accum",), _apply_momentum,
                  in_place=_apply_momentum_in_place)


@tf_export("train.MomentumOptimizer")
class MomentumOptimizer(Optimizer):
    """Momentum: ``accum = momentum * accum + grad; var -= learning_rate * accum``.

    With ``use_nesterov``: ``var -= learning_rate * (grad + momentum * accum)``.
    The slot ``"momentum"`` of ``w`` is the variable ``w/Momentum``.
    """

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")
        self._momentum_tensor = convert_to_tensor(self._call_if_callable(self._momentum), name="momentum")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        inputs = [cast_to(self._learning_rate_tensor, dtype), grad, cast_to(self._momentum_tensor, dtype)]
        return apply_training_op("ApplyMomentum", var, [self.get_slot(var, "momentum")], inputs,
                                 {"use_nesterov": bool(self._use_nesterov)}).op
