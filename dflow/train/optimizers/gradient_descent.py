"""``tf.train.GradientDescentOptimizer`` and its op ``ApplyGradientDescent``."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.ops.state.variables import scatter_sub
from dflow.train.optimizers.optimizer import Optimizer, cast_to
from dflow.train.optimizers.training_ops import apply_training_op, in_blocks, register_apply_op


def _apply_gradient_descent(var, alpha, delta):
    """``var -= delta * alpha``."""
    return (var - delta * alpha,)


def _apply_gradient_descent_in_place(var, alpha, delta):
    def step(var_, delta_):
        var_ -= delta_ * alpha

    in_blocks(step, var, delta)


register_apply_op("ApplyGradientDescent", ("alpha", "delta"), (), _apply_gradient_descent, grad="delta",
                  in_place=_apply_gradient_descent_in_place)


@tf_export("train.GradientDescentOptimizer")
class GradientDescentOptimizer(Optimizer):
    """Plain gradient descent: ``var -= learning_rate * grad``.

    >>> import dflow as tf
    >>> w = tf.Variable(3.0, name="w")
    >>> train = tf.train.GradientDescentOptimizer(0.5).apply_gradients([(tf.constant(2.0), w)])
    >>> with tf.Session() as sess:
    ...     sess.run(w.initializer)
    ...     sess.run(train)
    ...     float(sess.run(w))
    2.0
    """

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self):
        learning_rate = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = convert_to_tensor(learning_rate, name="learning_rate")

    def _apply_dense(self, grad, var):
        lr = cast_to(self._learning_rate_tensor, var.dtype.base_dtype)
        return apply_training_op("ApplyGradientDescent", var, [], [lr, grad]).op

    def _apply_sparse_duplicate_indices(self, grad, var):
        """A sparse gradient subtracts ``lr * rows`` from the rows it touches (TF1's ScatterSub;
        repeated rows add up there, so they need no merging first)."""
        lr = cast_to(self._learning_rate_tensor, var.dtype.base_dtype)
        return scatter_sub(var, grad.indices, grad.values * lr, use_locking=self._use_locking).op
