"""Gradient helpers of TF1's top level: ``AggregationMethod``, ``UnconnectedGradients``,
``grad_pass_through``, ``recompute_grad`` and ``NoGradient``.

``tf.gradients`` sums the gradients reaching a tensor the same way for every
``AggregationMethod`` (the sums are equal; TF's methods differ in memory use).
``UnconnectedGradients`` members compare equal to the strings ``"none"`` and
``"zero"`` that ``tf.gradients`` also takes.
"""

from __future__ import annotations

import enum

from dflow._api import export_value, tf_export
from dflow.framework import nest, tf_decorator
from dflow.framework.graph import control_dependencies
from dflow.framework.op_registry import NotDifferentiable
from dflow.ops.control_flow.control_flow_ops import identity
from dflow.ops.gradients.custom_gradient import custom_gradient
from dflow.ops.gradients.gradients_impl import gradients

export_value("NoGradient", NotDifferentiable)


@tf_export("AggregationMethod")
class AggregationMethod:
    """How ``tf.gradients`` adds the gradients that reach one tensor (all give the same sum in dflow)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


@tf_export("UnconnectedGradients")
class UnconnectedGradients(str, enum.Enum):
    """What ``tf.gradients`` returns for an ``x`` that ``ys`` do not depend on: None, or zeros."""

    NONE = "none"
    ZERO = "zero"

    def __str__(self):
        return f"UnconnectedGradients.{self.name}"


@tf_export("grad_pass_through")
def grad_pass_through(f):
    """``f`` whose gradient is the identity: ``dy/dx`` is taken to be 1 (a straight-through estimator)."""

    @custom_gradient
    def passed_through(*args):
        def grad(*dys, variables=None):
            if variables is not None:
                return dys, [None] * len(variables)
            return dys

        return f(*args), grad

    return tf_decorator.make_decorator(f, passed_through)


@tf_export("recompute_grad")
def recompute_grad(f):
    """``f`` whose activations are recomputed in the backward pass instead of kept: less memory, same gradients.

    The gradient reruns ``f`` (reusing its variables) after the output
    gradients are available, then differentiates that rerun.
    """
    from dflow.ops.state.variable_scope import get_variable_scope, variable_scope

    @custom_gradient
    def recomputed(*args):
        result = f(*args)

        def grad(*dresult, variables=None):
            with control_dependencies(dresult):
                id_args = [identity(a) for a in args]
                with variable_scope(get_variable_scope(), reuse=True):
                    again = f(*id_args)
            xs = id_args + list(variables or [])
            grads = gradients(nest.flatten(again), xs, grad_ys=list(dresult), unconnected_gradients="zero")
            if variables:
                return grads[:len(args)], grads[len(args):]
            return grads[:len(args)]

        return result, grad

    return tf_decorator.make_decorator(f, recomputed)
