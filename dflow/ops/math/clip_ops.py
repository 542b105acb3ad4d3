"""Clipping by norm: ``tf.clip_by_norm``, ``tf.clip_by_global_norm``, ``tf.global_norm``,
``tf.clip_by_average_norm``, built from math ops with TF1's formulas and op names.
(``tf.clip_by_value`` lives in ``math_ops``.)

>>> import dflow as tf
>>> (a, b), norm = tf.clip_by_global_norm([tf.constant([3.0]), tf.constant([4.0])], 1.0)
>>> [float(x) for x in tf.Session().run([a[0], b[0], norm])]
[0.6000000238418579, 0.800000011920929, 5.0]
"""

from __future__ import annotations

from collections.abc import Sequence

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import IndexedSlices
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import Tensor, colocate_with, name_scope
from dflow.ops.array import array_ops, creation_ops, select_ops, shape_ops
from dflow.ops.control_flow.control_flow_ops import identity
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.nn import nn_losses


@tf_export("clip_by_norm")
def clip_by_norm(t, clip_norm, axes=None, name=None) -> Tensor:
    """``t * clip_norm / max(l2norm(t), clip_norm)``, the L2 norm taken over ``axes`` (default: all)."""
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as name:
        values = convert_to_tensor(_values(t), name="t")
        l2sum = reduction_ops.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        # Two where()s keep the gradient of sqrt at 0 from being NaN (TF1).
        l2sum_safe = select_ops.where(pred, l2sum, creation_ops.ones_like(l2sum))
        l2norm = select_ops.where(pred, math_ops.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.assert_is_compatible_with(intermediate.shape)
        return _like(t, identity(intermediate / math_ops.maximum(l2norm, clip_norm), name=name))


def _values(t):
    """What TF1's clipping functions read of ``t``: an ``IndexedSlices``' values as they are
    (repeated indices not summed, as TF1 does), else ``t``."""
    return t.values if isinstance(t, IndexedSlices) else t


def _like(t, values):
    """``values`` (computed from ``_values(t)``) as ``t``'s kind: ``IndexedSlices`` over ``t``'s rows."""
    return IndexedSlices(values, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else values


def _check_list(t_list) -> list:
    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


@tf_export("global_norm", "linalg.global_norm")
def global_norm(t_list, name=None) -> Tensor:
    """``sqrt(sum(l2norm(t) ** 2 for t in t_list))``; None entries are ignored."""
    t_list = _check_list(t_list)
    with name_scope(name, "global_norm", [t for t in t_list if t is not None]) as name:
        values = [convert_to_tensor(_values(t), name=f"t_{i}") if t is not None else None
                  for i, t in enumerate(t_list)]
        half_squared_norms = []
        for v in values:
            if v is not None:
                with colocate_with(v):
                    half_squared_norms.append(nn_losses.l2_loss(v))
        half_squared_norm = reduction_ops.reduce_sum(array_ops.stack(half_squared_norms))
        return math_ops.sqrt(half_squared_norm * constant(2.0, dtype=half_squared_norm.dtype), name="global_norm")


@tf_export("clip_by_global_norm")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None) -> tuple:
    """Scales every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``.

    An ``IndexedSlices`` stays one: its values are scaled.

    Returns ``(list_clipped, global_norm)``; None entries stay None. An
    infinite norm makes every value NaN, as in TF1.
    """
    t_list = _check_list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with name_scope(name, "clip_by_global_norm", [t for t in t_list if t is not None] + [clip_norm]) as name:
        scale_for_finite = clip_norm * math_ops.minimum(1.0 / use_norm,
                                                        constant(1.0, dtype=use_norm.dtype) / clip_norm)
        scale = scale_for_finite + (use_norm - use_norm)  # NaN where the norm is not finite
        values = [convert_to_tensor(_values(t), name=f"t_{i}") if t is not None else None
                  for i, t in enumerate(t_list)]
        clipped = []
        for i, (t, v) in enumerate(zip(t_list, values)):
            if v is None:
                clipped.append(None)
                continue
            with colocate_with(v):
                clipped.append(_like(t, identity(v * math_ops.cast(scale, v.dtype), name=f"{name}_{i}")))
        return clipped, use_norm


@tf_export("clip_by_average_norm")
def clip_by_average_norm(t, clip_norm, name=None) -> Tensor:
    """``t * clip_norm / max(l2norm(t) / size(t), clip_norm)``."""
    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as name:
        t = convert_to_tensor(t, name="t")
        n_element = math_ops.cast(shape_ops.size(t), dtypes.float32)
        l2norm_inv = math_ops.rsqrt(reduction_ops.reduce_sum(t * t, creation_ops.range(shape_ops.rank(t))))
        return identity(t * clip_norm * math_ops.minimum(l2norm_inv * n_element, constant(1.0) / clip_norm),
                        name=name)
