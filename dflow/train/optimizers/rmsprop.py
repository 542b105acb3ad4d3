"""``tf.train.RMSPropOptimizer`` and its ops ``ApplyRMSProp`` and ``ApplyCenteredRMSProp``."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.kernels import array_module
from dflow.train.optimizers import slot_creator
from dflow.train.optimizers.optimizer import Optimizer, cast_to
from dflow.train.optimizers.training_ops import apply_training_op, register_apply_op


def _apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad):
    xp = array_module(var)
    ms = ms + (xp.square(grad) - ms) * (1 - rho)
    mom = mom * momentum + (grad * lr) / xp.sqrt(ms + epsilon)
    return var - mom, ms, mom


def _apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    xp = array_module(var)
    ms = ms + (xp.square(grad) - ms) * (1 - rho)
    mg = mg + (grad - mg) * (1 - rho)
    denom = (ms - xp.square(mg)) + epsilon
    mom = mom * momentum + (grad * lr) / xp.sqrt(denom)
    return var - mom, mg, ms, mom


_INPUTS = ("lr", "rho", "momentum", "epsilon", "grad")
register_apply_op("ApplyRMSProp", _INPUTS, ("ms", "mom"), _apply_rms_prop)
register_apply_op("ApplyCenteredRMSProp", _INPUTS, ("mg", "ms", "mom"), _apply_centered_rms_prop)


@tf_export("train.RMSPropOptimizer")
class RMSPropOptimizer(Optimizer):
    """RMSProp, with momentum, and optionally centered (normalized by the gradient's variance)::

        ms = decay * ms + (1 - decay) * g * g
        mom = momentum * mom + learning_rate * g / sqrt(ms + epsilon)
        var -= mom

    Slots of ``w``: ``"rms"`` (``w/RMSProp``, starting at 1), ``"momentum"``
    (``w/RMSProp_1``), and with ``centered`` ``"mg"`` before the momentum.
    """

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False, centered=False,
                 name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered
        self._learning_rate_tensor = self._decay_tensor = self._momentum_tensor = self._epsilon_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._get_or_make_slot_with_initializer(v, slot_creator.ones_initializer, v.get_shape(),
                                                    v.dtype.base_dtype, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")
        self._decay_tensor = convert_to_tensor(self._call_if_callable(self._decay), name="decay")
        self._momentum_tensor = convert_to_tensor(self._call_if_callable(self._momentum), name="momentum")
        self._epsilon_tensor = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        inputs = [cast_to(t, dtype) for t in (self._learning_rate_tensor, self._decay_tensor,
                                              self._momentum_tensor, self._epsilon_tensor)] + [grad]
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            return apply_training_op("ApplyCenteredRMSProp", var, [self.get_slot(var, "mg"), rms, mom], inputs).op
        return apply_training_op("ApplyRMSProp", var, [rms, mom], inputs).op
