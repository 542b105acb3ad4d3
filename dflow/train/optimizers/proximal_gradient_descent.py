"""``tf.train.ProximalGradientDescentOptimizer`` and its op ``ApplyProximalGradientDescent``."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.kernels import array_module
from dflow.train.optimizers.optimizer import Optimizer, cast_to
from dflow.train.optimizers.training_ops import apply_training_op, register_apply_op


def _apply_proximal_gradient_descent(var, alpha, l1, l2, delta):
    """FOBOS: a gradient step, then the proximal step of the L1 and L2 penalties."""
    xp = array_module(var)
    prox_var = var - delta * alpha
    if l1 > 0:
        shrunk = xp.maximum(xp.abs(prox_var) - alpha * l1, var.dtype.type(0))
        return (xp.sign(prox_var) * shrunk / (1 + l2 * alpha),)
    return (prox_var / (1 + l2 * alpha),)


register_apply_op("ApplyProximalGradientDescent", ("alpha", "l1", "l2", "delta"), (),
                  _apply_proximal_gradient_descent, grad="delta")


@tf_export("train.ProximalGradientDescentOptimizer")
class ProximalGradientDescentOptimizer(Optimizer):
    """Gradient descent with L1 and L2 regularization applied by proximal steps (FOBOS)::

        prox = var - learning_rate * grad
        var = sign(prox) * max(|prox| - learning_rate * l1, 0) / (1 + learning_rate * l2)
    """

    def __init__(self, learning_rate, l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalGradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._learning_rate_tensor = None
        self._l1_regularization_strength_tensor = None
        self._l2_regularization_strength_tensor = None

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(self._l1_regularization_strength,
                                                                    name="l1_regularization_strength")
        self._l2_regularization_strength_tensor = convert_to_tensor(self._l2_regularization_strength,
                                                                    name="l2_regularization_strength")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        inputs = [cast_to(t, dtype) for t in (self._learning_rate_tensor, self._l1_regularization_strength_tensor,
                                              self._l2_regularization_strength_tensor)]
        return apply_training_op("ApplyProximalGradientDescent", var, [], inputs + [grad]).op
