"""``tf.contrib.layers.optimize_loss``: a training op from a loss, an optimizer (a name, a class, an
instance or a function of the learning rate) and optional clipping, noise, multipliers and summaries.

As TF 1.15: a float learning rate becomes the non-trainable variable ``OptimizeLoss/learning_rate``; the
update ops (``UPDATE_OPS`` by default) run before the loss is computed; the global step (``tf.train``'s
when not given) is incremented; the op returned is the loss, computed after the update is applied.
"""

from __future__ import annotations

from dflow._api import export_value, tf_export
from dflow.framework.composite import IndexedSlices
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import GraphKeys, Tensor, get_default_graph
from dflow.ops.state.init_ops import constant_initializer
from dflow.ops.state.variable_scope import get_variable, variable_scope
from dflow.train import training_util
from dflow.train.optimizers.adagrad import AdagradOptimizer
from dflow.train.optimizers.adam import AdamOptimizer
from dflow.train.optimizers.ftrl import FtrlOptimizer
from dflow.train.optimizers.gradient_descent import GradientDescentOptimizer
from dflow.train.optimizers.momentum import MomentumOptimizer
from dflow.train.optimizers.optimizer import Optimizer
from dflow.train.optimizers.rmsprop import RMSPropOptimizer

OPTIMIZER_CLS_NAMES = {
    "Adagrad": AdagradOptimizer,
    "Adam": AdamOptimizer,
    "Ftrl": FtrlOptimizer,
    "Momentum": lambda learning_rate: MomentumOptimizer(learning_rate, momentum=0.9),
    "RMSProp": RMSPropOptimizer,
    "SGD": GradientDescentOptimizer,
}

OPTIMIZER_SUMMARIES = ["learning_rate", "loss", "gradients", "gradient_norm", "global_gradient_norm"]

export_value("contrib.layers.OPTIMIZER_CLS_NAMES", OPTIMIZER_CLS_NAMES)
export_value("contrib.layers.OPTIMIZER_SUMMARIES", OPTIMIZER_SUMMARIES)


def _make_optimizer(optimizer, lr, learning_rate):
    if isinstance(optimizer, str):
        if lr is None:
            raise ValueError(f"Learning rate is None, but should be specified if optimizer is string ({optimizer}).")
        if optimizer not in OPTIMIZER_CLS_NAMES:
            raise ValueError(f"Optimizer name should be one of [{', '.join(OPTIMIZER_CLS_NAMES)}], you provided "
                             f"{optimizer}.")
        return OPTIMIZER_CLS_NAMES[optimizer](learning_rate=lr)
    if isinstance(optimizer, type) and issubclass(optimizer, Optimizer):
        if lr is None:
            raise ValueError(f"Learning rate is None, but should be specified if optimizer is class ({optimizer}).")
        return optimizer(learning_rate=lr)
    if isinstance(optimizer, Optimizer):
        return optimizer
    if callable(optimizer):
        opt = optimizer(lr) if learning_rate is not None else optimizer()
        if not isinstance(opt, Optimizer):
            raise ValueError(f"Unrecognized optimizer: function should return subclass of Optimizer. Got {opt}.")
        return opt
    raise ValueError(f"Unrecognized optimizer: should be string, subclass of Optimizer, instance of subclass of "
                     f"Optimizer or function with one argument. Got {optimizer}.")


@tf_export("contrib.layers.optimize_loss")
def optimize_loss(loss, global_step, learning_rate, optimizer, gradient_noise_scale=None, gradient_multipliers=None,
                  clip_gradients=None, learning_rate_decay_fn=None, update_ops=None, variables=None, name=None,
                  summaries=None, colocate_gradients_with_ops=False, increment_global_step=True):
    """Returns the loss, computed after one optimizer step on ``variables`` (default: the trainable ones)."""
    from dflow.ops.control_flow.control_flow_ops import with_dependencies
    from dflow.ops.debugging.check_ops import assert_scalar
    from dflow.ops.math.clip_ops import global_norm
    from dflow.summary import summary_ops as summary

    loss = convert_to_tensor(loss)
    assert_scalar(loss)
    if global_step is None:
        global_step = training_util.get_global_step()
    else:
        training_util.assert_global_step(global_step)
    with variable_scope(name, "OptimizeLoss", [loss, global_step]):
        if update_ops is None:
            update_ops = list(dict.fromkeys(get_default_graph().get_collection(GraphKeys.UPDATE_OPS)))
        if update_ops:
            loss = with_dependencies(list(update_ops), loss)

        lr = None
        if learning_rate is not None:
            if isinstance(learning_rate, Tensor) and learning_rate.shape.ndims == 0:
                lr = learning_rate
            elif isinstance(learning_rate, float):
                if learning_rate < 0.0:
                    raise ValueError(f"Invalid learning_rate {learning_rate}.")
                lr = get_variable("learning_rate", [], trainable=False,
                                  initializer=constant_initializer(learning_rate))
            else:
                raise ValueError(f"Learning rate should be 0d Tensor or float. Got {learning_rate} of type "
                                 f"{type(learning_rate)}")
        if summaries is None:
            summaries = ["loss", "learning_rate", "global_gradient_norm"]
        else:
            for summ in summaries:
                if summ not in OPTIMIZER_SUMMARIES:
                    raise ValueError(f"Summaries should be one of [{', '.join(OPTIMIZER_SUMMARIES)}], you provided "
                                     f"{summ}.")
        if learning_rate is not None and learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            lr = learning_rate_decay_fn(lr, global_step)
            if "learning_rate" in summaries:
                summary.scalar("learning_rate", lr)

        opt = _make_optimizer(optimizer, lr, learning_rate)
        if variables is None:
            variables = get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES)
        gradients = opt.compute_gradients(loss, variables, colocate_gradients_with_ops=colocate_gradients_with_ops)

        if gradient_noise_scale is not None:
            gradients = _add_scaled_noise_to_gradients(gradients, gradient_noise_scale)
        if gradient_multipliers is not None:
            gradients = _multiply_gradients(gradients, gradient_multipliers)
            if not gradients:
                raise ValueError("Empty list of (gradient, var) pairs encountered. This is most likely to be caused "
                                 "by an improper value of gradient_multipliers.")
        if "global_gradient_norm" in summaries or "gradient_norm" in summaries:
            summary.scalar("global_norm/gradient_norm", global_norm([g for g, _ in gradients]))

        if isinstance(clip_gradients, float):
            gradients = _clip_gradients_by_norm(gradients, clip_gradients)
        elif callable(clip_gradients):
            gradients = clip_gradients(gradients)
        elif clip_gradients is not None:
            raise ValueError(f"Unknown type {type(clip_gradients)} for clip_gradients")

        if "loss" in summaries:
            summary.scalar("loss", loss)
        for gradient, var in gradients:
            values = gradient.values if isinstance(gradient, IndexedSlices) else gradient
            if values is not None:
                var_name = var.name.replace(":", "_")
                if "gradients" in summaries:
                    summary.histogram(f"gradients/{var_name}", values)
                if "gradient_norm" in summaries:
                    summary.scalar(f"gradient_norm/{var_name}", global_norm([values]))
        if clip_gradients is not None and ("global_gradient_norm" in summaries or "gradient_norm" in summaries):
            summary.scalar("global_norm/clipped_gradient_norm", global_norm([g for g, _ in gradients]))

        grad_updates = opt.apply_gradients(gradients, global_step=global_step if increment_global_step else None,
                                           name="train")
        return with_dependencies([grad_updates], loss)


def _clip_gradients_by_norm(grads_and_vars, clip_gradients):
    from dflow.ops.math.clip_ops import clip_by_global_norm

    gradients, variables = zip(*grads_and_vars)
    clipped, _ = clip_by_global_norm(list(gradients), clip_gradients)
    return list(zip(clipped, variables))


def _add_scaled_noise_to_gradients(grads_and_vars, gradient_noise_scale):
    """Adds ``truncated_normal(shape) * gradient_noise_scale`` to each gradient."""
    from dflow.ops.random.random_ops import truncated_normal

    gradients, variables = zip(*grads_and_vars)
    noisy = []
    for gradient in gradients:
        if gradient is None:
            noisy.append(None)
            continue
        shape = gradient.dense_shape if isinstance(gradient, IndexedSlices) else gradient.shape
        noisy.append(gradient + truncated_normal(shape) * gradient_noise_scale)
    return list(zip(noisy, variables))


def _multiply_gradients(grads_and_vars, gradient_multipliers):
    """Multiplies the gradients of the variables (or variable names) in ``gradient_multipliers``."""
    from dflow.ops.math.math_ops import cast

    out = []
    for grad, var in grads_and_vars:
        if grad is not None and (var in gradient_multipliers or var.name in gradient_multipliers):
            key = var if var in gradient_multipliers else var.name
            multiplier = gradient_multipliers[key]
            if isinstance(grad, IndexedSlices):
                grad = IndexedSlices(grad.values * multiplier, grad.indices, grad.dense_shape)
            else:
                grad = grad * cast(multiplier, grad.dtype)
        out.append((grad, var))
    return out
