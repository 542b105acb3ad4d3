"""Counting and ordering: bincount, histogram_fixed_width(_bins), searchsorted,
and cumulative_logsumexp.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array.index_args import INDEX_DTYPES, host, kernel_int, with_rank

# -- Bincount --------------------------------------------------------------------------------------


def _bincount_infer(op):
    arr, weights, minlength, maxlength = op._inputs
    lo, hi = constant_value(minlength), constant_value(maxlength)
    size = None
    value = constant_value(arr)
    if value is not None:
        size = int(np.max(value)) + 1 if np.size(value) else 0
        if lo is not None and int(lo) >= 0:
            size = max(size, int(lo))
        if hi is not None and int(hi) >= 0:
            size = min(size, int(hi))
    return [(op._attrs["dtype"], TensorShape([size]))]


def _bincount_kernel(arr, weights, minlength, maxlength, dtype):
    lo, hi = kernel_int(minlength), kernel_int(maxlength)
    xp = array_module(arr, weights)
    flat = arr.reshape(-1)
    if flat.size and flat.min() < 0:
        raise _invalid(f"Input arr must be non-negative! (arr holds {int(flat.min())})")
    size = int(flat.max()) + 1 if flat.size else 0
    if lo >= 0:
        size = max(size, lo)
    if hi >= 0:
        size = min(size, hi)
    keep = flat < size
    w = weights.reshape(-1)[keep] if weights.size else None
    out = xp.bincount(flat[keep], weights=w, minlength=size)
    return out.astype(dtype.as_numpy_dtype, copy=False)


register("Bincount", infer=_bincount_infer, kernel=_bincount_kernel)
not_differentiable("Bincount")


@tf_export("bincount", "math.bincount")
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32) -> Tensor:
    """How often each value ``0..max(arr)`` occurs in the int32 ``arr`` (or the sum of its ``weights``).

    The length is ``max(arr) + 1``, at least ``minlength`` and at most
    ``maxlength`` (larger values are dropped); with weights, the result has
    their dtype.

    >>> import dflow as tf
    >>> tf.Session().run(tf.bincount([1, 1, 3])).tolist()
    [0, 2, 0, 1]
    """
    with name_scope(None, "bincount", [arr, weights, minlength, maxlength]) as scope:
        arr = convert_to_tensor(arr, dtype=dtypes.int32, name="arr")
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            dtype = weights.dtype
        else:
            dtype = dtypes.as_dtype(dtype)
            weights = convert_to_tensor(np.zeros((0,), dtype.as_numpy_dtype), name="weights")
        lo = convert_to_tensor(-1 if minlength is None else minlength, dtype=dtypes.int32, name="minlength")
        hi = convert_to_tensor(-1 if maxlength is None else maxlength, dtype=dtypes.int32, name="maxlength")
        return apply_op("Bincount", [arr, weights, lo, hi], {"dtype": dtype}, name=scope).outputs[0]


# -- HistogramFixedWidth, and its bin indices ---------------------------------------------------------


def _bins(values, value_range, nbins):
    """The bin of each value: ``floor((v - lo) / (hi - lo) * nbins)`` clipped to ``[0, nbins)``."""
    n = kernel_int(nbins)
    if n <= 0:
        raise _invalid(f"nbins should be a positive number, but got '{n}'")
    lo, hi = (float(v) for v in np.asarray(host(value_range)).reshape(-1)[:2])
    if not lo < hi:
        raise _invalid(f"value_range should satisfy value_range[0] < value_range[1], but got "
                       f"'[{value_range[0]}, {value_range[1]}]'")
    xp = array_module(values)
    scaled = (values.astype(np.float64) - lo) / (hi - lo) * n
    return xp.clip(xp.floor(scaled), 0, n - 1).astype(np.int64), n


def _histogram_infer(op):
    values, value_range, nbins = op._inputs
    with_rank(value_range.shape, 1)
    n = constant_value(nbins)
    if n is not None and int(n) <= 0:
        raise ValueError(f"Requires nbins > 0: {int(n)}")
    return [(op._attrs["dtype"], TensorShape([None if n is None else int(n)]))]


def _histogram_kernel(values, value_range, nbins, dtype):
    bins, n = _bins(values, value_range, nbins)
    return array_module(values).bincount(bins.reshape(-1), minlength=n).astype(dtype.as_numpy_dtype)


def _histogram_bins_infer(op):
    values, value_range, nbins = op._inputs
    _histogram_infer(op)
    return [(op._attrs["dtype"], values.shape)]


def _histogram_bins_kernel(values, value_range, nbins, dtype):
    return _bins(values, value_range, nbins)[0].astype(dtype.as_numpy_dtype)


register("HistogramFixedWidth", infer=_histogram_infer, kernel=_histogram_kernel)
register("HistogramFixedWidthBins", infer=_histogram_bins_infer, kernel=_histogram_bins_kernel)
not_differentiable("HistogramFixedWidth")
not_differentiable("HistogramFixedWidthBins")


def _histogram(op_type: str, values, value_range, nbins, dtype, name, scope_name: str):
    dtype = dtypes.as_dtype(dtype)
    if dtype not in INDEX_DTYPES:
        raise TypeError(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: int32, int64")
    with name_scope(name, scope_name, [values, value_range, nbins]) as scope:
        values = convert_to_tensor(values, name="values")
        value_range = convert_to_tensor(value_range, dtype=values.dtype, name="value_range")
        nbins = convert_to_tensor(nbins, dtype=dtypes.int32, name="nbins")
        return apply_op(op_type, [values, value_range, nbins], {"dtype": dtype}, name=scope).outputs[0]


@tf_export("histogram_fixed_width")
def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None) -> Tensor:
    """Counts of ``values`` in ``nbins`` equal bins over ``value_range`` (outliers go to the end bins).

    >>> import dflow as tf
    >>> tf.Session().run(tf.histogram_fixed_width([-1., 0., 1.5, 2., 5., 15.], [0., 5.], nbins=5)).tolist()
    [2, 1, 1, 0, 2]
    """
    return _histogram("HistogramFixedWidth", values, value_range, nbins, dtype, name, "histogram_fixed_width")


@tf_export("histogram_fixed_width_bins")
def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None) -> Tensor:
    """The bin of each of ``values`` among ``nbins`` equal bins over ``value_range``.

    >>> import dflow as tf
    >>> tf.Session().run(tf.histogram_fixed_width_bins([-1., 1.5, 15.], [0., 5.], nbins=5)).tolist()
    [0, 1, 4]
    """
    return _histogram("HistogramFixedWidthBins", values, value_range, nbins, dtype, name,
                      "histogram_fixed_width_bins")


# -- LowerBound / UpperBound (searchsorted) -------------------------------------------------------


def _bound_infer(op):
    return [(op._attrs["out_type"], op._inputs[1].shape)]


def _bound_kernel(side: str):
    def kernel(sorted_inputs, values, out_type):
        if sorted_inputs.ndim == 0 or values.ndim == 0:
            raise _invalid("sorted_sequence and values must be at least vectors")
        s = sorted_inputs.reshape(-1, sorted_inputs.shape[-1])
        v = values.reshape(-1, values.shape[-1])
        if s.shape[0] != v.shape[0]:
            raise _invalid(f"Leading dim_size of both tensors must match: {s.shape[0]} vs {v.shape[0]}.")
        xp = array_module(sorted_inputs, values)
        out = xp.stack([xp.searchsorted(row, val, side=side) for row, val in zip(s, v)]) if s.shape[0] else \
            xp.zeros(v.shape, np.int64)
        return out.reshape(values.shape).astype(out_type.as_numpy_dtype)

    return kernel


register("LowerBound", infer=_bound_infer, kernel=_bound_kernel("left"))
register("UpperBound", infer=_bound_infer, kernel=_bound_kernel("right"))
not_differentiable("LowerBound")
not_differentiable("UpperBound")


@tf_export("searchsorted")
def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None) -> Tensor:
    """Where each of ``values`` would go in the innermost sorted rows of ``sorted_sequence``.

    >>> import dflow as tf
    >>> tf.Session().run(tf.searchsorted([1, 3, 5], [0, 3, 6])).tolist()
    [0, 1, 3]
    """
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    out_type = dtypes.as_dtype(out_type)
    if out_type not in INDEX_DTYPES:
        raise TypeError(f"out_type must be int32 or int64, got {out_type.name}")
    op_type = "LowerBound" if side == "left" else "UpperBound"
    with name_scope(name, "SearchSorted", [sorted_sequence, values]) as scope:
        s = convert_to_tensor(sorted_sequence, name="sorted_sequence")
        v = convert_to_tensor(values, dtype=s.dtype, name="values")
        return apply_op(op_type, [s, v], {"out_type": out_type}, name=scope).outputs[0]


# -- CumulativeLogsumexp ---------------------------------------------------------------------------


def _cumulative_logsumexp_kernel(x, axis, exclusive, reverse):
    a = kernel_int(axis)
    if not -x.ndim <= a < x.ndim:
        raise _invalid(f"axis {a} is out of range for a tensor of rank {x.ndim}")
    xp = array_module(x)
    if reverse:
        x = xp.flip(x, a)
    out = xp.logaddexp.accumulate(x, axis=a)
    if exclusive:
        pad = xp.full_like(xp.take(out, [0], axis=a), -np.inf)
        out = xp.concatenate([pad, xp.take(out, xp.arange(out.shape[a] - 1), axis=a)], axis=a)
    if reverse:
        out = xp.flip(out, a)
    return out.astype(x.dtype, copy=False)


# ``logaddexp.accumulate`` is numpy's: a CPU kernel.
register("CumulativeLogsumexp", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)],
         kernel=_cumulative_logsumexp_kernel, gpu=False)


@gradient("CumulativeLogsumexp")
def _cumulative_logsumexp_grad(op, grad):
    """TF's rule: the gradient's positive and negative parts, each through a reversed logsumexp."""
    from dflow.ops.array.array_ops import ones_like
    from dflow.ops.array.select_ops import where
    from dflow.ops.math.math_ops import exp, greater, less, log, negative

    x, axis = op._inputs
    out = op._outputs[0]
    exclusive, reverse = op._attrs["exclusive"], op._attrs["reverse"]
    ones = ones_like(grad)
    lowest = ones * np.finfo(grad.dtype.as_numpy_dtype).min
    positive, negative_ = greater(grad, 0), less(grad, 0)
    log_pos = where(positive, log(where(positive, grad, ones)), lowest)
    log_neg = where(negative_, log(where(negative_, negative(grad), ones)), lowest)
    pos = exp(cumulative_logsumexp(log_pos - out, axis, exclusive=exclusive, reverse=not reverse) + x)
    neg = exp(cumulative_logsumexp(log_neg - out, axis, exclusive=exclusive, reverse=not reverse) + x)
    return [pos - neg, None]


@tf_export("math.cumulative_logsumexp")
def cumulative_logsumexp(x, axis=0, exclusive: bool = False, reverse: bool = False, name=None) -> Tensor:
    """``log(cumsum(exp(x)))`` along ``axis``, computed stably; ``exclusive`` starts from -inf.

    >>> import dflow as tf
    >>> tf.Session().run(tf.math.cumulative_logsumexp([0., 0.], exclusive=True)).tolist()
    [-inf, 0.0]
    """
    with name_scope(name, "CumulativeLogsumexp", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise TypeError(f"cumulative_logsumexp needs a floating tensor, got {x.dtype.name}")
        axis = convert_to_tensor(axis, dtype=dtypes.int32, name="axis")
        return apply_op("CumulativeLogsumexp", [x, axis], {"exclusive": bool(exclusive), "reverse": bool(reverse)},
                        name=scope).outputs[0]
