"""``tf.distributions.kl_divergence`` and ``RegisterKL``: KL functions looked up by class pair.

The closest registered pair in the two classes' MROs wins (fewest steps up both hierarchies).
"""

from __future__ import annotations

import inspect

from dflow._api import tf_export
from dflow.framework.graph import control_dependencies, name_scope
from dflow.ops.control_flow.control_flow_ops import identity
from dflow.ops.debugging.logging_ops import Assert
from dflow.ops.math import math_ops, unary_math_ops
from dflow.ops.math.reduction_ops import reduce_any

_DIVERGENCES: dict = {}


def _registered_kl(type_a, type_b):
    hierarchy_a = inspect.getmro(type_a)
    hierarchy_b = inspect.getmro(type_b)
    dist_to_children = None
    kl_fn = None
    for mro_to_a, parent_a in enumerate(hierarchy_a):
        for mro_to_b, parent_b in enumerate(hierarchy_b):
            candidate_dist = mro_to_a + mro_to_b
            candidate_kl_fn = _DIVERGENCES.get((parent_a, parent_b), None)
            if not kl_fn or (candidate_kl_fn and candidate_dist < dist_to_children):
                dist_to_children = candidate_dist
                kl_fn = candidate_kl_fn
    return kl_fn


@tf_export("distributions.kl_divergence")
def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """``KL(distribution_a || distribution_b)`` from the registered function.

    With ``allow_nan_stats=False`` a NaN result fails at run time. ``NotImplementedError`` if
    no function is registered for the pair of classes.
    """
    kl_fn = _registered_kl(type(distribution_a), type(distribution_b))
    if kl_fn is None:
        raise NotImplementedError(
            f"No KL(distribution_a || distribution_b) registered for distribution_a type "
            f"{type(distribution_a).__name__} and distribution_b type {type(distribution_b).__name__}")
    with name_scope("KullbackLeibler"):
        kl_t = kl_fn(distribution_a, distribution_b, name=name)
        if allow_nan_stats:
            return kl_t
        kl_t = identity(kl_t, name="kl")
        with control_dependencies([Assert(
                math_ops.logical_not(reduce_any(unary_math_ops.is_nan(kl_t))),
                [f"KL calculation between {distribution_a.name} and {distribution_b.name} returned NaN values "
                 f"(and was called with allow_nan_stats=False). Values:", kl_t])]):
            return identity(kl_t, name="checked_kl")


def cross_entropy(ref, other, allow_nan_stats=True, name=None):
    """``entropy(ref) + KL(ref || other)``."""
    with name_scope(name, "cross_entropy"):
        return ref.entropy() + kl_divergence(ref, other, allow_nan_stats=allow_nan_stats)


@tf_export("distributions.RegisterKL")
class RegisterKL:
    """Decorator registering a KL function for a pair of distribution classes::

        @tf.distributions.RegisterKL(MyDist, MyDist)
        def _kl(a, b, name=None): ...
    """

    def __init__(self, dist_cls_a, dist_cls_b):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn):
        if not callable(kl_fn):
            raise TypeError(f"kl_fn must be callable, received: {kl_fn}")
        if self._key in _DIVERGENCES:
            raise ValueError(f"KL({self._key[0].__name__} || {self._key[1].__name__}) has already been registered "
                             f"to: {_DIVERGENCES[self._key]}")
        _DIVERGENCES[self._key] = kl_fn
        return kl_fn
