"""``tf.where``: coordinates of true elements (``Where``) and element selection.

``Select`` is TF1's three-argument ``where``: ``x`` and ``y`` have one shape
and a vector condition picks whole rows. ``SelectV2`` (``tf.where_v2``)
broadcasts condition, ``x`` and ``y`` together as numpy's ``where`` does.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, broadcast_shapes
from dflow.kernels import array_module
from dflow.ops.math.math_ops import (
    BOOL_DTYPES,
    NUMERIC_DTYPES,
    check_dtype,
    convert_input,
    convert_pair,
    dtype_mismatch,
)


def _where_infer(op):
    c = op._inputs[0]
    check_dtype(op, "condition", c._dtype, NUMERIC_DTYPES | BOOL_DTYPES)
    return [(dtypes.int64, TensorShape([None, c._shape.ndims]))]


def _where_kernel(condition):
    return array_module(condition).argwhere(condition)


register("Where", infer=_where_infer, kernel=_where_kernel)
not_differentiable("Where")


def _select_infer(op):
    c, t, e = op._inputs
    if c._dtype is not dtypes.bool:
        raise TypeError(f"Input 'condition' of '{op.name}' (op: Select) has type {c._dtype.name} that does not "
                        f"match expected type of bool.")
    if e._dtype is not t._dtype:
        raise dtype_mismatch("Select", "e", e._dtype, "t", t._dtype)
    shape = _merge_dims(t._shape, e._shape)
    cr, sr = c._shape.ndims, shape.ndims
    if cr is None or cr == 0 or sr is None:
        pass  # a scalar condition picks x or y whole
    elif cr == 1 and sr > 1:
        _merge_dims(c._shape[:1], shape[:1])  # a vector condition picks rows
    else:
        shape = _merge_dims(c._shape, shape)
    return [(t._dtype, shape)]


def _merge_dims(a, b):
    if a.ndims is not None and b.ndims is not None and a.ndims != b.ndims:
        raise ValueError(f"Shapes must be equal rank, but are {a.ndims} and {b.ndims}")
    if not a.is_compatible_with(b):
        for i, (da, db) in enumerate(zip(a.as_list(), b.as_list())):
            if da is not None and db is not None and da != db:
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are {da} and {db}. "
                                 f"Shapes are {a.as_list()} and {b.as_list()}")
    return a.merge_with(b)


def _select_kernel(condition, t, e):
    if condition.ndim == 1 and t.ndim > 1:
        condition = condition.reshape(condition.shape + (1,) * (t.ndim - 1))
    return array_module(t).where(condition, t, e)


register("Select", infer=_select_infer, kernel=_select_kernel)


@gradient("Select")
def _select_grad(op, grad):
    from dflow.ops.array.array_ops import zeros_like

    c, x = op._inputs[:2]
    zeros = zeros_like(x)
    return [None, where(c, grad, zeros), where(c, zeros, grad)]


def _select_v2_infer(op):
    c, t, e = op._inputs
    if c._dtype is not dtypes.bool:
        raise TypeError(f"Input 'condition' of '{op.name}' (op: SelectV2) has type {c._dtype.name} that does "
                        f"not match expected type of bool.")
    if e._dtype is not t._dtype:
        raise dtype_mismatch("SelectV2", "e", e._dtype, "t", t._dtype)
    return [(t._dtype, broadcast_shapes(c._shape, broadcast_shapes(t._shape, e._shape)))]


def _select_v2_kernel(condition, t, e):
    return array_module(t).where(condition, t, e)


register("SelectV2", infer=_select_v2_infer, kernel=_select_v2_kernel)


@gradient("SelectV2")
def _select_v2_grad(op, grad):
    """``grad`` where each branch was picked, summed back to that branch's shape."""
    from dflow.ops.array.tiling_ops import unbroadcast

    c, x, y = op._inputs
    gx = unbroadcast(where_v2(c, grad, 0), x, (c, y))
    gy = unbroadcast(where_v2(c, 0, grad), y, (c, x))
    return [None, gx, gy]


def _where(select_type, condition, x, y, name) -> Tensor:
    if x is None and y is None:
        with name_scope(name or "Where", None, [condition]) as scope:
            c = convert_to_tensor(condition, preferred_dtype=dtypes.bool, name="condition") \
                if not isinstance(condition, Tensor) else condition
            return apply_op("Where", [c], name=scope).outputs[0]
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    if all(isinstance(v, Tensor) for v in (condition, x, y)):
        return apply_op(select_type, [condition, x, y], name=name or select_type).outputs[0]
    with name_scope(name or select_type, None, [condition, x, y]) as scope:
        c = convert_input(condition, "condition", dtypes.bool, select_type)
        t, e = convert_pair(x, y, select_type, "t", "e")
        return apply_op(select_type, [c, t, e], name=scope).outputs[0]


@tf_export("where")
def where(condition, x=None, y=None, name=None) -> Tensor:
    """TF1 ``where``: coordinates of true elements, or a choice between ``x`` and ``y``.

    With only ``condition``: an int64 ``[num_true, rank]`` tensor of the
    coordinates where it is true (nonzero). With ``x`` and ``y`` (same shape):
    ``x`` where ``condition`` else ``y``; a rank-1 ``condition`` picks rows.

    >>> # tf.where([True, False], [[1, 2], [3, 4]], [[5, 6], [7, 8]]) -> [[1, 2], [7, 8]]
    """
    return _where("Select", condition, x, y, name)


@tf_export("where_v2")
def where_v2(condition, x=None, y=None, name=None) -> Tensor:
    """TF2 ``where``: like ``tf.where`` but ``condition``, ``x`` and ``y`` broadcast together."""
    return _where("SelectV2", condition, x, y, name)
