"""Learning-rate schedules: ``tf.train.exponential_decay`` and the others.

Each is a small graph computed from the global step (any scalar tensor or
number), with TF1's formula and scope name (``ExponentialDecay``, ...), in
the dtype of the initial learning rate. Pass the result as an optimizer's
learning rate: it is evaluated at every step.

>>> import dflow as tf
>>> lr = tf.train.exponential_decay(0.1, 20, decay_steps=10, decay_rate=0.5)
>>> round(float(tf.Session().run(lr)), 6)
0.025
"""

from __future__ import annotations

import math

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.ops.array import select_ops
from dflow.ops.math import math_ops


def _check_step(global_step, fn: str) -> None:
    if global_step is None:
        raise ValueError(f"global_step is required for {fn}.")


def _cast(x, dtype) -> Tensor:
    t = convert_to_tensor(x)
    return t if t.dtype is dtype else math_ops.cast(t, dtype)


@tf_export("train.exponential_decay")
def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None) -> Tensor:
    """``learning_rate * decay_rate ** (global_step / decay_steps)`` (the exponent floored with ``staircase``)."""
    _check_step(global_step, "exponential_decay")
    with name_scope(name or "ExponentialDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        p = _cast(global_step, dtype) / _cast(decay_steps, dtype)
        if staircase:
            p = math_ops.floor(p)
        return math_ops.multiply(lr, math_ops.pow(_cast(decay_rate, dtype), p), name=scope)


@tf_export("train.natural_exp_decay")
def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None) -> Tensor:
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``."""
    _check_step(global_step, "natural_exp_decay")
    rate = math_ops.exp(math_ops.negative(decay_rate))
    return exponential_decay(learning_rate, global_step, decay_steps, rate, staircase=staircase,
                             name=name or "ExponentialDecay")


@tf_export("train.inverse_time_decay")
def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None) -> Tensor:
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``."""
    _check_step(global_step, "inverse_time_decay")
    with name_scope(name or "InverseTimeDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        p = _cast(global_step, dtype) / _cast(decay_steps, dtype)
        if staircase:
            p = math_ops.floor(p)
        denom = math_ops.add(_cast(constant(1), dtype), math_ops.multiply(_cast(decay_rate, dtype), p))
        return math_ops.divide(lr, denom, name=scope)


@tf_export("train.polynomial_decay")
def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                     name=None) -> Tensor:
    """From ``learning_rate`` to ``end_learning_rate`` over ``decay_steps`` as ``(1 - step / decay_steps) ** power``.

    With ``cycle`` the decay restarts, over the next multiple of ``decay_steps``, once it is reached.
    """
    _check_step(global_step, "polynomial_decay")
    with name_scope(name or "PolynomialDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        end_lr = _cast(end_learning_rate, dtype)
        power = _cast(power, dtype)
        step = _cast(global_step, dtype)
        steps = _cast(decay_steps, dtype)
        if cycle:
            multiplier = select_ops.where_v2(math_ops.equal(step, 0), constant(1.0, dtype),
                                             math_ops.ceil(step / _cast(decay_steps, dtype)))
            steps = math_ops.multiply(steps, multiplier)
        else:
            step = math_ops.minimum(step, steps)
        p = math_ops.divide(step, steps)
        return math_ops.add(math_ops.multiply(lr - end_lr, math_ops.pow(1 - p, power)), end_lr, name=scope)


@tf_export("train.piecewise_constant", "train.piecewise_constant_decay")
def piecewise_constant(x, boundaries, values, name=None) -> Tensor:
    """``values[0]`` while ``x <= boundaries[0]``, ``values[i]`` for ``boundaries[i-1] < x <= boundaries[i]``,
    ``values[-1]`` after ``boundaries[-1]``."""
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    boundaries = [convert_to_tensor(b) for b in boundaries]
    values = [convert_to_tensor(v) for v in values]
    x = convert_to_tensor(x)
    for i, b in enumerate(boundaries):
        if b.dtype is not x.dtype:
            if b.dtype is dtypes.int32 and x.dtype is dtypes.int64:  # Python int boundaries (TF1)
                boundaries[i] = math_ops.cast(b, x.dtype)
            else:
                raise ValueError(f"Boundaries ({b.dtype.name}) must have the same dtype as x ({x.dtype.name}).")
    for v in values[1:]:
        if v.dtype is not values[0].dtype:
            raise ValueError(f"Values must have elements all with the same dtype ({values[0].dtype.name} vs "
                             f"{v.dtype.name}).")
    with name_scope(name or "PiecewiseConstant"):
        # x falls in exactly one interval: pick its value, from the last interval back.
        out = values[-1]
        for b, v in zip(reversed(boundaries), reversed(values[:-1])):
            out = select_ops.where_v2(math_ops.less_equal(x, b), v, out)
        return out


@tf_export("train.cosine_decay")
def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None) -> Tensor:
    """``learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha)``."""
    _check_step(global_step, "cosine_decay")
    with name_scope(name or "CosineDecay"):
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        steps = _cast(decay_steps, dtype)
        fraction = math_ops.minimum(_cast(global_step, dtype), steps) / steps
        cosine_decayed = 0.5 * (1.0 + math_ops.cos(constant(math.pi, dtype) * fraction))
        decayed = (1 - alpha) * cosine_decayed + alpha
        return math_ops.multiply(lr, decayed)


@tf_export("train.cosine_decay_restarts")
def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0,
                          name=None) -> Tensor:
    """Cosine decay with warm restarts (SGDR): period ``i`` lasts ``first_decay_steps * t_mul ** i``
    steps and starts from ``learning_rate * m_mul ** i``."""
    _check_step(global_step, "cosine_decay_restarts")
    with name_scope(name or "SGDRDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        alpha = _cast(alpha, dtype)
        t_mul_t = _cast(t_mul, dtype)
        m_mul = _cast(m_mul, dtype)
        fraction = _cast(global_step, dtype) / _cast(first_decay_steps, dtype)

        def restarts(geometric):
            if geometric:
                i_restart = math_ops.floor(math_ops.log(1.0 - fraction * (1.0 - t_mul_t)) / math_ops.log(t_mul_t))
                sum_r = (1.0 - t_mul_t ** i_restart) / (1.0 - t_mul_t)
                return i_restart, (fraction - sum_r) / t_mul_t ** i_restart
            i_restart = math_ops.floor(fraction)
            return i_restart, fraction - i_restart

        if isinstance(t_mul, Tensor):
            # TF1 picks the branch with tf.cond; both are finite where they are chosen.
            same = math_ops.equal(t_mul_t, 1.0)
            (i_a, f_a), (i_g, f_g) = restarts(False), restarts(True)
            i_restart, fraction = select_ops.where_v2(same, i_a, i_g), select_ops.where_v2(same, f_a, f_g)
        else:
            i_restart, fraction = restarts(float(t_mul) != 1.0)
        m_fac = m_mul ** i_restart
        cosine_decayed = 0.5 * m_fac * (1.0 + math_ops.cos(constant(math.pi, dtype) * fraction))
        decayed = (1 - alpha) * cosine_decayed + alpha
        return math_ops.multiply(lr, decayed, name=scope)


@tf_export("train.linear_cosine_decay")
def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001,
                        name=None) -> Tensor:
    """``learning_rate * ((alpha + linear) * cosine + beta)``, with ``linear`` going from 1 to 0 over
    ``decay_steps`` and ``cosine = 0.5 * (1 + cos(2 pi num_periods step / decay_steps))``."""
    _check_step(global_step, "linear_cosine_decay")
    with name_scope(name or "LinearCosineDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        steps = _cast(decay_steps, dtype)
        num_periods = _cast(num_periods, dtype)
        alpha = _cast(alpha, dtype)
        beta = _cast(beta, dtype)
        step = math_ops.minimum(_cast(global_step, dtype), steps)
        linear_decayed = (steps - step) / steps
        fraction = 2.0 * num_periods * (step / steps)
        cosine_decayed = 0.5 * (1.0 + math_ops.cos(constant(math.pi, dtype) * fraction))
        return math_ops.multiply(lr, (alpha + linear_decayed) * cosine_decayed + beta, name=scope)


@tf_export("train.noisy_linear_cosine_decay")
def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0, variance_decay=0.55,
                              num_periods=0.5, alpha=0.0, beta=0.001, name=None) -> Tensor:
    """``linear_cosine_decay`` with Gaussian noise on the linear part, of variance
    ``initial_variance / (1 + step) ** variance_decay`` (drawn anew at every evaluation)."""
    from dflow.ops.random.random_ops import random_normal

    _check_step(global_step, "noisy_linear_cosine_decay")
    with name_scope(name or "NoisyLinearCosineDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        steps = _cast(decay_steps, dtype)
        step = math_ops.minimum(_cast(global_step, dtype), steps)
        linear_decayed = (steps - step) / steps
        variance = _cast(initial_variance, dtype) / math_ops.pow(1.0 + step, _cast(variance_decay, dtype))
        noisy = linear_decayed + random_normal(linear_decayed.shape, stddev=math_ops.sqrt(variance), dtype=dtype)
        fraction = 2.0 * _cast(num_periods, dtype) * (step / steps)
        cosine_decayed = 0.5 * (1.0 + math_ops.cos(constant(math.pi, dtype) * fraction))
        decayed = (_cast(alpha, dtype) + noisy) * cosine_decayed + _cast(beta, dtype)
        return math_ops.multiply(lr, decayed, name=scope)
