"""``tf.norm``: vector norms (euclidean, 1, inf, any p > 0) and matrix norms
(Frobenius, 1, 2 = spectral, inf), each one ``Norm`` op.

TF1 composes the norm from abs, sums, maxima, powers, sqrt or an SVD; dflow
runs one kernel, and one gradient kernel (``_NormGrad``) that computes what
differentiating TF1's composite gives.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape, unknown_shape
from dflow.kernels import array_module
from dflow.ops.linalg._linalg_common import INEXACT, cast, check_dtype, lapack_ready, op_scope

_MATRIX_NORMS = ["euclidean", "fro", 1, 2, np.inf]


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _norm_kind(ord, axis):  # noqa: A002 - TF1 argument name
    """Validates TF1's ``ord``/``axis``; returns ``(kind, axis)``.

    ``kind`` is ``"euclidean"``, ``"spectral"`` (matrix 2-norm), ``1``,
    ``np.inf`` or a float p; ``axis`` is None or a tuple of one or two ints.
    """
    bad_axis = f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}"
    if isinstance(axis, (tuple, list)) and len(axis) == 2:
        if not all(_is_int(a) for a in axis) or axis[0] == axis[1]:
            raise ValueError(bad_axis)
        if ord not in _MATRIX_NORMS:
            raise ValueError(f"'ord' must be a supported matrix norm in {_MATRIX_NORMS}, got {ord}")
        axis = (int(axis[0]), int(axis[1]))
        if ord in ("euclidean", "fro"):
            return "euclidean", axis
        return ("spectral" if ord == 2 else 1 if ord == 1 else np.inf), axis
    if not (axis is None or _is_int(axis)):
        raise ValueError(bad_axis)
    axis = None if axis is None else (int(axis),)
    if isinstance(ord, str):
        if ord != "euclidean":
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        return "euclidean", axis
    if not np.isreal(ord) or ord <= 0:
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    if ord == 2:
        return "euclidean", axis
    return (1 if ord == 1 else np.inf if ord == np.inf else float(ord)), axis


def _norm_infer(op):
    x = op._inputs[0]
    kind, axis, keepdims = op._attrs["ord"], op._attrs["axis"], op._attrs["keepdims"]
    # TF1 keeps the dtype only for sqrt(sum(x * conj(x))): complex stays complex.
    dtype = x.dtype if kind == "euclidean" else x.dtype.real_dtype
    if x.shape.ndims is None:
        return [(dtype, unknown_shape())]
    dims = x.shape.as_list()
    rank = len(dims)
    if axis is None:
        return [(dtype, TensorShape([1] * rank if keepdims else []))]
    for a in axis:
        if not -rank <= a < rank:
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
    reduced = {a % rank for a in axis}
    if len(reduced) != len(axis):
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
    if keepdims:
        return [(dtype, TensorShape([1 if i in reduced else d for i, d in enumerate(dims)]))]
    return [(dtype, TensorShape([d for i, d in enumerate(dims) if i not in reduced]))]


def _spectral_norm(x, axis, keepdims):
    xp = array_module(x)
    rows, cols = (a % x.ndim for a in axis)
    matrices = xp.moveaxis(lapack_ready(x), (rows, cols), (-2, -1))
    out = xp.linalg.svd(matrices, compute_uv=False).max(axis=-1)
    if keepdims:
        for a in sorted((rows, cols)):
            out = xp.expand_dims(out, a)
    return out


def _norm_kernel(x, ord, axis, keepdims):  # noqa: A002 - TF1 attr name
    xp = array_module(x)
    if ord == "euclidean":
        squares = x * x.conj() if x.dtype.kind == "c" else x * x
        return cast(xp.sqrt(xp.sum(squares, axis=axis, keepdims=keepdims)), x.dtype)
    if ord == "spectral":
        return cast(xp.asarray(_spectral_norm(x, axis, keepdims)), x.real.dtype)
    a = xp.abs(x)
    if axis is not None and len(axis) == 2:
        rows, cols = axis
        if ord == 1:  # the largest column sum
            out = xp.max(xp.sum(a, axis=rows, keepdims=True), axis=cols, keepdims=True)
        else:  # inf: the largest row sum
            out = xp.max(xp.sum(a, axis=cols, keepdims=True), axis=rows, keepdims=True)
        out = out if keepdims else xp.squeeze(out, axis=axis)
    elif ord == 1:
        out = xp.sum(a, axis=axis, keepdims=keepdims)
    elif ord == np.inf:
        out = xp.max(a, axis=axis, keepdims=keepdims)
    else:
        out = xp.sum(a ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)
    return cast(xp.asarray(out), a.dtype)


register("Norm", infer=_norm_infer, kernel=_norm_kernel)


def _norm_grad(x, y, grad, ord, axis, keepdims):  # noqa: A002 - TF1 attr name
    """The gradient of ``Norm`` as TF1's composite of abs, sums, maxima (ties
    share the gradient), powers, sqrt or the SVD differentiates it."""
    xp = array_module(x)
    rank = x.ndim
    axis = tuple(range(rank)) if axis is None else tuple(a % rank for a in axis)
    kept = tuple(1 if i in axis else d for i, d in enumerate(x.shape))
    y, g = y.reshape(kept), grad.reshape(kept)  # broadcast against x
    xf = lapack_ready(x)
    if ord == "euclidean":
        return cast(xf * (g / y), x.dtype)
    if ord == "spectral":
        rows, cols = axis
        u, s, vh = xp.linalg.svd(xp.moveaxis(xf, (rows, cols), (-2, -1)), full_matrices=False)
        top = s == s.max(axis=-1, keepdims=True)
        weights = top / top.sum(axis=-1, keepdims=True)
        out = (u * weights[..., None, :]) @ vh * xp.moveaxis(g, (rows, cols), (-2, -1))
        return cast(xp.moveaxis(out, (-2, -1), (rows, cols)), x.dtype)
    a, sign = xp.abs(xf), xp.sign(xf)
    if len(axis) == 2 and ord in (1, np.inf):
        summed, maxed = axis if ord == 1 else axis[::-1]  # 1: largest column sum; inf: largest row sum
        hit = a.sum(axis=summed, keepdims=True) == y
        return cast(sign * g * (hit / hit.sum(axis=maxed, keepdims=True)), x.dtype)
    if ord == 1:
        return cast(sign * g, x.dtype)
    if ord == np.inf:
        hit = a == y
        return cast(sign * g * (hit / hit.sum(axis=axis, keepdims=True)), x.dtype)
    return cast(sign * g * y ** (1 - ord) * a ** (ord - 1), x.dtype)


register("_NormGrad", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], kernel=_norm_grad)


@gradient("Norm")
def _norm_grad_rule(op, grad):
    return [apply_op("_NormGrad", [op.inputs[0], op.outputs[0], grad], op._attrs).outputs[0]]

# The op TF1 would end on when keepdims=True (else it ends on "Squeeze").
_NORM_LAST_OP = {"euclidean": "Sqrt", "spectral": "transpose_1", 1: "Sum", np.inf: "Max"}


@tf_export("norm", "linalg.norm")
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None) -> Tensor:  # noqa: A002
    """The vector norm (``axis`` None or an int) or matrix norm (``axis`` a pair).

    ``ord``: ``'euclidean'``, 1, 2, ``np.inf`` or any p > 0 for vectors;
    ``'fro'``/``'euclidean'``, 1, 2, ``np.inf`` for matrices. ``axis=None``
    takes the norm of all elements as one vector.

    >>> import dflow as tf
    >>> tf.norm(tf.placeholder(tf.float32, [5, 3]), axis=1).shape
    TensorShape([5])
    """
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'.")
    keepdims = bool(keep_dims if keepdims is None else keepdims)
    kind, axis = _norm_kind(ord, axis)
    with op_scope(name, "norm", [tensor]):
        x = convert_to_tensor(tensor)
        check_dtype(x, INEXACT, "x")
        if not keepdims:
            last = "Squeeze"
        elif kind == 1 and axis is not None and len(axis) == 2:
            last = "Max"
        else:
            last = _NORM_LAST_OP.get(kind, "Pow_1")
        return apply_op("Norm", [x], {"ord": kind, "axis": axis, "keepdims": keepdims}, name=last).outputs[0]
