"""TF1's fake quantization: ``tf.fake_quant_with_min_max_args`` / ``_vars`` /
``_vars_per_channel`` (ops ``FakeQuantWithMinMaxArgs``, ``FakeQuantWithMinMaxVars``,
``FakeQuantWithMinMaxVarsPerChannel``), their gradient ops, and
``tf.quantization.quantize_and_dequantize`` (op ``QuantizeAndDequantizeV2``).

Fake quantization works in float32 exactly as TF's kernels
(``fake_quant_ops_functor.h``): the range ``[min, max]`` is first *nudged* so
that 0.0 is a representable quantized value (``Nudge``), the input is clamped
to the nudged range and rounded to a multiple of the scale with
``floor(x / scale + 0.5)``. The gradients are straight-through: the incoming
gradient passes where the input lies in the nudged range; the ``_vars`` ops
send the gradients of the inputs below (above) the range to ``min`` (``max``).
"""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument
from dflow.ops.array.index_args import host, merge_shapes, with_rank, with_rank_at_least
from dflow.ops.nn._nn_util import as_tensor

_F32 = np.float32
_HALF = _F32(0.5)

FakeQuantWithMinMaxVarsGradient = collections.namedtuple(
    "FakeQuantWithMinMaxVarsGradient", ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"])
FakeQuantWithMinMaxVarsPerChannelGradient = collections.namedtuple(
    "FakeQuantWithMinMaxVarsPerChannelGradient", ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"])


# -- attrs and inputs, checked as TF's generated op wrappers do ------------------------


def _attr_float(value, arg: str, default: float) -> float:
    """TF's ``make_float``: a real number (None: the default), kept as the float32 attr TF stores."""
    if value is None:
        value = default
    if isinstance(value, Tensor) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"Expected float for argument '{arg}' not {value!r}.")
    return float(_F32(value))


def _attr_int(value, arg: str, default: int) -> int:
    """TF's ``make_int``: anything ``int()`` accepts except a string (None: the default)."""
    if value is None:
        return default
    if isinstance(value, str):
        raise TypeError(f"Expected int for argument '{arg}' not {value!r}.")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError(f"Expected int for argument '{arg}' not {value!r}.") from None


def _attr_bool(value, arg: str, default: bool) -> bool:
    """TF's ``make_bool``: a Python bool only (None: the default)."""
    if value is None:
        return default
    if not isinstance(value, bool):
        raise TypeError(f"Expected bool for argument '{arg}' not {value!r}.")
    return value


def _float_input(value, arg: str, op_type: str) -> Tensor:
    """A float32 op input: Python and numpy values are converted, other Tensors are a TypeError."""
    if isinstance(value, Tensor):
        if value.dtype != dtypes.float32:
            raise TypeError(f"Input '{arg}' of '{op_type}' Op has type {value.dtype.name} that does not match "
                            f"expected type of float32.")
        return value
    return as_tensor(value, arg, dtype=dtypes.float32)


def _quant_bounds(num_bits: int, narrow_range: bool) -> tuple[int, int]:
    """``(quant_min, quant_max)``; TF checks ``num_bits`` when the kernel is built, i.e. at run time."""
    if not 2 <= num_bits <= 16:
        raise invalid_argument("num_bits must be between 2 and 16, inclusive")
    return (1 if narrow_range else 0), (1 << num_bits) - 1


def _tf_float_str(v: float) -> str:
    """A float32 as TF's ``StrCat`` prints it (6 significant digits, 9 when needed to round-trip)."""
    s = f"{v:.6g}"
    return s if _F32(float(s)) == _F32(v) else f"{v:.9g}"


# -- the arithmetic of fake_quant_ops_functor.h ---------------------------------------


def _round_half_away(z: np.ndarray) -> np.ndarray:
    """``std::round`` in float32: halves away from zero (``z - trunc(z)`` is exact)."""
    t = np.trunc(z)
    return t + np.where(np.abs(z - t) >= _HALF, np.sign(z), _F32(0)).astype(_F32)


def _nudge(lo, hi, quant_min: int, quant_max: int):
    """TF's ``Nudge``, element-wise in float32: ``(nudged_min, nudged_max, scale, inv_scale)``.

    The zero point ``quant_min - min / scale`` is rounded (halves away from 0)
    and clamped to ``[quant_min, quant_max]``; the range is then moved so that
    it maps onto that integer exactly.
    """
    lo, hi = np.asarray(lo, _F32), np.asarray(hi, _F32)
    qmin, qmax = _F32(quant_min), _F32(quant_max)
    with np.errstate(all="ignore"):
        scale = (hi - lo) / (qmax - qmin)
        inv_scale = (qmax - qmin) / (hi - lo)  # recomputed, not 1 / scale, as TF
        zero_point = np.clip(_round_half_away(qmin - lo / scale), qmin, qmax)
        zero_point = np.where(np.isnan(zero_point), qmin, zero_point).astype(_F32)
        return (qmin - zero_point) * scale, (qmax - zero_point) * scale, scale, inv_scale


def _quantize(x, quant_min: int, quant_max: int, lo, hi, divide: bool):
    """Clamp to the nudged range and round to the grid, as TF's forward functors.

    ``divide``: ``FakeQuantWithMinMaxVars`` divides by the scale where the
    other two ops multiply by the inverse scale; the two differ in the last bit.
    ``lo``/``hi`` are host scalars, or vectors for the last axis of ``x``.
    """
    xp = array_module(x)
    nmin, nmax, scale, inv_scale = _nudge(lo, hi, quant_min, quant_max)
    with np.errstate(all="ignore"):
        quant_zero = np.floor(-nmin * inv_scale + _HALF)
        shifted = xp.maximum(xp.minimum(x, _dev(xp, nmax)), _dev(xp, nmin)) - _dev(xp, nmin)
        steps = shifted / _dev(xp, scale) if divide else shifted * _dev(xp, inv_scale)
        out = xp.floor(steps - _dev(xp, quant_zero) + _HALF) * _dev(xp, scale)
    zero = (np.asarray(lo) == 0) & (np.asarray(hi) == 0)  # TF's special case: a [0, 0] range gives 0
    if np.any(zero):
        out = xp.where(_dev(xp, zero), _F32(0), out)
    return out.astype(_F32, copy=False)


def _masks(x, lo, hi, quant_min: int, quant_max: int):
    """``(between, below, above)`` the nudged range, as float32 0/1 arrays (TF multiplies by them)."""
    xp = array_module(x)
    nmin, nmax, _, _ = _nudge(lo, hi, quant_min, quant_max)
    nmin, nmax = _dev(xp, nmin), _dev(xp, nmax)
    return (((x >= nmin) & (x <= nmax)).astype(_F32), (x < nmin).astype(_F32), (x > nmax).astype(_F32))


def _dev(xp, a):
    """A host float32 scalar or vector on ``x``'s device (a scalar stays a numpy scalar)."""
    a = np.asarray(a)
    return a[()] if a.ndim == 0 else xp.asarray(a)


def _scalar(v) -> np.float32:
    return _F32(host(v))


# -- FakeQuantWithMinMaxArgs ---------------------------------------------------------


def _check_args_range(lo: float, hi: float) -> None:
    if not lo < hi:
        raise invalid_argument(f"min has to be smaller than max, was: {_tf_float_str(lo)} >= {_tf_float_str(hi)}")


def _fq_args(x, min, max, num_bits, narrow_range):  # noqa: A002 - TF attr names
    _check_args_range(min, max)
    qmin, qmax = _quant_bounds(num_bits, narrow_range)
    return _quantize(x, qmin, qmax, min, max, divide=False)


def _fq_args_gradient(g, x, min, max, num_bits, narrow_range):  # noqa: A002
    _check_args_range(min, max)
    qmin, qmax = _quant_bounds(num_bits, narrow_range)
    if g.shape != x.shape:
        raise invalid_argument(f"Inputs to operation of type FakeQuantWithMinMaxArgsGradient must have the same "
                               f"size and shape.  Input 0: {_dims(g.shape)} != input 1: {_dims(x.shape)}")
    between, _, _ = _masks(x, min, max, qmin, qmax)
    return g * between


def _dims(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


register("FakeQuantWithMinMaxArgs", infer=lambda op: [(dtypes.float32, op._inputs[0].shape)], kernel=_fq_args)
register("FakeQuantWithMinMaxArgsGradient", infer=lambda op: [(dtypes.float32, op._inputs[0].shape)],
         kernel=_fq_args_gradient)


@gradient("FakeQuantWithMinMaxArgs")
def _fq_args_grad(op, grad):
    return [apply_op("FakeQuantWithMinMaxArgsGradient", [grad, op.inputs[0]], dict(op._attrs)).outputs[0]]


def _args_attrs(min, max, num_bits, narrow_range) -> dict:  # noqa: A002
    return {"min": _attr_float(min, "min", -6.0), "max": _attr_float(max, "max", 6.0),
            "num_bits": _attr_int(num_bits, "num_bits", 8),
            "narrow_range": _attr_bool(narrow_range, "narrow_range", False)}


@tf_export("quantization.fake_quant_with_min_max_args", "fake_quant_with_min_max_args")
def fake_quant_with_min_max_args(inputs, min=-6, max=6, num_bits=8, narrow_range=False, name=None) -> Tensor:  # noqa: A002
    """Fake-quantizes float32 ``inputs`` to ``2**num_bits`` levels of the nudged float range ``[min, max]``.

    The range is nudged so that 0.0 is exactly representable; values are
    clamped to it and rounded to the nearest level (halves up). ``min < max``
    and ``2 <= num_bits <= 16`` are checked at run time
    (``InvalidArgumentError``), as TF. ``narrow_range`` uses levels
    ``[1, 2**num_bits - 1]``.

    >>> import dflow as tf
    >>> with tf.Session() as sess:
    ...     sess.run(tf.fake_quant_with_min_max_args([0.3, 7.0], min=-1.0, max=2.0)).tolist()
    [0.29411765933036804, 2.0]
    """
    attrs = _args_attrs(min, max, num_bits, narrow_range)
    with name_scope(name, "FakeQuantWithMinMaxArgs", [inputs]) as scope:
        x = _float_input(inputs, "inputs", "FakeQuantWithMinMaxArgs")
        return apply_op("FakeQuantWithMinMaxArgs", [x], attrs, name=scope).outputs[0]


@tf_export("quantization.fake_quant_with_min_max_args_gradient", "fake_quant_with_min_max_args_gradient")
def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6, max=6, num_bits=8,  # noqa: A002
                                          narrow_range=False, name=None) -> Tensor:
    """The gradient of ``fake_quant_with_min_max_args``: ``gradients`` where ``inputs`` is in the nudged range."""
    attrs = _args_attrs(min, max, num_bits, narrow_range)
    op_type = "FakeQuantWithMinMaxArgsGradient"
    with name_scope(name, op_type, [gradients, inputs]) as scope:
        g = _float_input(gradients, "gradients", op_type)
        x = _float_input(inputs, "inputs", op_type)
        return apply_op(op_type, [g, x], attrs, name=scope).outputs[0]


# -- FakeQuantWithMinMaxVars ---------------------------------------------------------


def _check_scalar(v, arg: str):
    if np.ndim(v) != 0:
        raise invalid_argument(f"`{arg}` must be rank 0 but is rank {np.ndim(v)}")


def _fq_vars_infer(op):
    x, lo, hi = op._inputs
    with_rank(lo.shape, 0)
    with_rank(hi.shape, 0)
    return [(dtypes.float32, x.shape)]


def _fq_vars(x, min, max, num_bits, narrow_range):  # noqa: A002
    qmin, qmax = _quant_bounds(num_bits, narrow_range)
    _check_scalar(min, "min")
    _check_scalar(max, "max")
    return _quantize(x, qmin, qmax, _scalar(min), _scalar(max), divide=True)


def _fq_vars_gradient_infer(op):
    g, x, lo, hi = op._inputs
    shape = merge_shapes(g.shape, x.shape)
    merge_shapes(with_rank(lo.shape, 0), hi.shape)
    return [(dtypes.float32, shape), (dtypes.float32, TensorShape([])), (dtypes.float32, TensorShape([]))]


def _fq_vars_gradient(g, x, min, max, num_bits, narrow_range):  # noqa: A002
    qmin, qmax = _quant_bounds(num_bits, narrow_range)
    _check_same_size(g, x)
    _check_scalar(min, "min")
    _check_scalar(max, "max")
    lo, hi = _scalar(min), _scalar(max)
    xp = array_module(g, x)
    if lo == 0 and hi == 0:  # TF passes everything to the input
        return g.astype(_F32, copy=True), xp.asarray(_F32(0)), xp.asarray(_F32(0))
    between, below, above = _masks(x, lo, hi, qmin, qmax)
    return g * between, (g * below).sum(dtype=_F32), (g * above).sum(dtype=_F32)


def _check_same_size(g, x):
    if g.shape != x.shape:
        raise invalid_argument("gradient and input must be the same size")


register("FakeQuantWithMinMaxVars", infer=_fq_vars_infer, kernel=_fq_vars)
register("FakeQuantWithMinMaxVarsGradient", infer=_fq_vars_gradient_infer, kernel=_fq_vars_gradient)


@gradient("FakeQuantWithMinMaxVars")
def _fq_vars_grad(op, grad):
    return list(apply_op("FakeQuantWithMinMaxVarsGradient", [grad, *op.inputs], dict(op._attrs)).outputs)


def _vars_attrs(num_bits, narrow_range) -> dict:
    return {"num_bits": _attr_int(num_bits, "num_bits", 8),
            "narrow_range": _attr_bool(narrow_range, "narrow_range", False)}


def _vars_op(op_type: str, tensors: dict, num_bits, narrow_range, name):
    attrs = _vars_attrs(num_bits, narrow_range)
    with name_scope(name, op_type, list(tensors.values())) as scope:
        inputs = [_float_input(v, arg, op_type) for arg, v in tensors.items()]
        return apply_op(op_type, inputs, attrs, name=scope).outputs


@tf_export("quantization.fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars")
def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False, name=None) -> Tensor:  # noqa: A002
    """Fake-quantizes float32 ``inputs`` with the range given by the float32 scalar tensors ``min`` and ``max``.

    As ``fake_quant_with_min_max_args``, but ``min`` and ``max`` are tensors
    (variables, typically) and receive gradients; ``min == max == 0`` gives
    zeros. ``min >= max`` is not checked, as TF.
    """
    tensors = {"inputs": inputs, "min": min, "max": max}
    return _vars_op("FakeQuantWithMinMaxVars", tensors, num_bits, narrow_range, name)[0]


@tf_export("quantization.fake_quant_with_min_max_vars_gradient", "fake_quant_with_min_max_vars_gradient")
def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                          name=None) -> FakeQuantWithMinMaxVarsGradient:
    """The gradients of ``fake_quant_with_min_max_vars`` wrt ``inputs``, ``min`` and ``max``.

    Returns ``(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)``:
    ``gradients`` masked to the inputs inside the nudged range, and the sums of
    ``gradients`` over the inputs below and above it.
    """
    tensors = {"gradients": gradients, "inputs": inputs, "min": min, "max": max}
    outs = _vars_op("FakeQuantWithMinMaxVarsGradient", tensors, num_bits, narrow_range, name)
    return FakeQuantWithMinMaxVarsGradient(*outs)


# -- FakeQuantWithMinMaxVarsPerChannel -----------------------------------------------


def _last_dim(shape: TensorShape):
    return None if shape.ndims is None else shape.as_list()[-1]


def _merge_dim(a, b):
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


def _fq_per_channel_infer(op):
    x, lo, hi = op._inputs
    with_rank_at_least(x.shape, 1)
    d_min = with_rank(lo.shape, 1).as_list()[0]
    d_max = with_rank(hi.shape, 1).as_list()[0]
    d = _last_dim(x.shape)
    _merge_dim(d, d_min)
    _merge_dim(d, d_max)
    _merge_dim(d_min, d_max)
    return [(dtypes.float32, x.shape)]


def _check_channels(x, lo, hi):
    if x.ndim < 1:
        raise invalid_argument(f"inputs must be at least rank 1 but is rank {x.ndim}")
    for arg, v in (("min", lo), ("max", hi)):
        if np.ndim(v) != 1:
            raise invalid_argument(f"`{arg}` must be rank 1 but is rank {np.ndim(v)}")
    for arg, v in (("min", lo), ("max", hi)):
        if v.shape[0] != x.shape[-1]:
            raise invalid_argument(f"{arg} has incorrect size, expected {x.shape[-1]} was {v.shape[0]}")
    return np.asarray(host(lo), _F32), np.asarray(host(hi), _F32)


def _fq_per_channel(x, min, max, num_bits, narrow_range):  # noqa: A002
    qmin, qmax = _quant_bounds(num_bits, narrow_range)
    lo, hi = _check_channels(x, min, max)
    return _quantize(x, qmin, qmax, lo, hi, divide=False)


def _fq_per_channel_gradient_infer(op):
    g, x, lo, hi = op._inputs
    for t in (g, x):
        with_rank_at_least(t.shape, 1)
        if t.shape.ndims is not None and t.shape.ndims > 4:
            raise ValueError(f"Shape must be at most rank 4 but is rank {t.shape.ndims}")
    shape = merge_shapes(g.shape, x.shape)
    channels = TensorShape([_last_dim(shape)])
    channels = merge_shapes(with_rank(lo.shape, 1), channels)
    channels = merge_shapes(with_rank(hi.shape, 1), channels)
    return [(dtypes.float32, shape), (dtypes.float32, channels), (dtypes.float32, channels)]


def _fq_per_channel_gradient(g, x, min, max, num_bits, narrow_range):  # noqa: A002
    qmin, qmax = _quant_bounds(num_bits, narrow_range)
    _check_same_size(g, x)
    lo, hi = _check_channels(x, min, max)
    xp = array_module(g, x)
    between, below, above = _masks(x, lo, hi, qmin, qmax)
    axes = tuple(range(x.ndim - 1))
    zero = _dev(xp, (lo == 0) & (hi == 0))  # TF passes everything to the input in a [0, 0] channel
    backprop = xp.where(zero, g, g * between).astype(_F32, copy=False)
    grad_min = xp.where(zero, _F32(0), (g * below).sum(axis=axes, dtype=_F32)).astype(_F32, copy=False)
    grad_max = xp.where(zero, _F32(0), (g * above).sum(axis=axes, dtype=_F32)).astype(_F32, copy=False)
    return backprop, grad_min, grad_max


register("FakeQuantWithMinMaxVarsPerChannel", infer=_fq_per_channel_infer, kernel=_fq_per_channel)
register("FakeQuantWithMinMaxVarsPerChannelGradient", infer=_fq_per_channel_gradient_infer,
         kernel=_fq_per_channel_gradient)


@gradient("FakeQuantWithMinMaxVarsPerChannel")
def _fq_per_channel_grad(op, grad):
    return list(apply_op("FakeQuantWithMinMaxVarsPerChannelGradient", [grad, *op.inputs], dict(op._attrs)).outputs)


@tf_export("quantization.fake_quant_with_min_max_vars_per_channel", "fake_quant_with_min_max_vars_per_channel")
def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                             name=None) -> Tensor:
    """Fake-quantizes float32 ``inputs`` with one range per channel: ``min`` and ``max`` of shape ``[d]``.

    ``d`` is the size of the last dimension of ``inputs``; each channel is
    quantized as ``fake_quant_with_min_max_vars`` with its own range.
    """
    tensors = {"inputs": inputs, "min": min, "max": max}
    return _vars_op("FakeQuantWithMinMaxVarsPerChannel", tensors, num_bits, narrow_range, name)[0]


@tf_export("quantization.fake_quant_with_min_max_vars_per_channel_gradient",
           "fake_quant_with_min_max_vars_per_channel_gradient")
def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max, num_bits=8,  # noqa: A002
                                                      narrow_range=False,
                                                      name=None) -> FakeQuantWithMinMaxVarsPerChannelGradient:
    """The gradients of ``fake_quant_with_min_max_vars_per_channel`` wrt ``inputs``, ``min`` and ``max``.

    ``inputs`` has rank 1 to 4. Returns ``(backprops_wrt_input,
    backprop_wrt_min, backprop_wrt_max)``, the last two of shape ``[d]``: per
    channel, the sums of ``gradients`` over the inputs below and above its range.
    """
    tensors = {"gradients": gradients, "inputs": inputs, "min": min, "max": max}
    outs = _vars_op("FakeQuantWithMinMaxVarsPerChannelGradient", tensors, num_bits, narrow_range, name)
    return FakeQuantWithMinMaxVarsPerChannelGradient(*outs)


# -- QuantizeAndDequantizeV2 ---------------------------------------------------------

_QDQ_TYPES = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64)
_ROUND_MODES = ("HALF_TO_EVEN", "HALF_UP")


def _qdq_infer(op):
    x, lo, hi = op._inputs
    axis = op._attrs["axis"]
    if axis == -1:
        with_rank(lo.shape, 0)
        with_rank(hi.shape, 0)
        return [(x.dtype, x.shape)]
    if axis < -1:
        raise ValueError(f"axis should be at least -1, got {axis}")
    with_rank_at_least(x.shape, axis + 1)
    depth = None if x.shape.ndims is None else x.shape.as_list()[axis]
    for t in (lo, hi):
        _merge_dim(with_rank(t.shape, 1).as_list()[0], depth)
    return [(x.dtype, x.shape)]


def _quantization_range(lo, hi, signed_input: bool, num_bits: int, narrow_range: bool, dtype):
    """TF's ``ComputeQuantizationRange`` in ``dtype``, element-wise: ``(lo, hi, scale, inverse_scale)``.

    The scale is the largest that keeps both ends inside the quantized range
    while 0 stays 0; the end that does not decide it is moved onto the grid.
    """
    t = dtype.type
    if signed_input:
        q_min, q_max = -(1 << (num_bits - 1)) + (1 if narrow_range else 0), (1 << (num_bits - 1)) - 1
    else:
        q_min, q_max = 0, (1 << num_bits) - 1
    q_min, q_max, big = t(q_min), t(q_max), t(np.finfo(dtype).max)
    with np.errstate(all="ignore"):
        from_min = np.where(q_min * lo > 0, q_min / lo, big).astype(dtype)
        from_max = np.where(q_max * hi > 0, q_max / hi, big).astype(dtype)
        use_min = from_min < from_max
        scale = np.where(use_min, from_min, from_max).astype(dtype)
        inverse = np.where(use_min, lo / q_min, hi / q_max).astype(dtype)
        lo = np.where(use_min, lo, q_min * inverse).astype(dtype)
        hi = np.where(use_min, q_max * inverse, hi).astype(dtype)
    return lo, hi, scale, inverse


def _qdq_ranges(x, lo, hi, range_given: bool, axis: int):
    """The per-tensor (0-d) or per-channel ranges, given or taken from ``x``, on the host."""
    dtype = x.dtype
    if axis == -1:
        _check_qdq_rank(lo, hi, 0)
    else:
        _check_qdq_rank(lo, hi, 1)
        if axis >= x.ndim:
            raise invalid_argument(f"Axis is out of bounds: {axis} for an input of rank {x.ndim}")
        for arg, v in (("input_min_tensor", lo), ("input_max_tensor", hi)):
            if v.shape[0] != x.shape[axis]:
                raise invalid_argument(f"{arg} has incorrect size, was {v.shape[0]} expected {x.shape[axis]} to match "
                                       f"dim {axis} of the input {_dims(v.shape)}")
    if range_given:
        lo, hi = np.asarray(host(lo), dtype), np.asarray(host(hi), dtype)
        if axis == -1 and lo > hi:
            raise invalid_argument(f"Invalid range: input_min {_tf_float_str(lo)} > input_max {_tf_float_str(hi)}")
        return lo, hi
    axes = None if axis == -1 else tuple(i for i in range(x.ndim) if i != axis)
    xp = array_module(x)
    if x.size == 0:
        shape = () if axis == -1 else (x.shape[axis],)
        return np.full(shape, np.inf, dtype), np.full(shape, -np.inf, dtype)
    return np.asarray(host(xp.nanmin(x, axis=axes)), dtype), np.asarray(host(xp.nanmax(x, axis=axes)), dtype)


def _check_qdq_rank(lo, hi, rank: int):
    for arg, v in (("input_min", lo), ("input_max", hi)):
        if np.ndim(v) != rank:
            raise invalid_argument(f"{arg} must be rank {rank} but is rank {np.ndim(v)}")


def _qdq(x, input_min, input_max, signed_input, num_bits, range_given, round_mode, narrow_range, axis,
         op_type="QuantizeAndDequantizeV2"):
    if x.dtype not in (np.float32, np.float64):
        raise invalid_argument(f"No OpKernel was registered to support Op '{op_type}' with these "
                               f"attrs: T={x.dtype} (TF's CPU kernels take float32 and float64)")
    if not 0 < num_bits < (62 if signed_input else 63):
        raise invalid_argument(f"num_bits is out of range: {num_bits} with signed_input_ {int(signed_input)}")
    xp = array_module(x)
    lo, hi = _qdq_ranges(x, input_min, input_max, range_given, axis)
    lo, hi, scale, inverse = _quantization_range(lo, hi, signed_input, num_bits, narrow_range, x.dtype)
    if axis != -1:  # the per-channel values broadcast along ``axis``
        lo, hi, scale, inverse = (v.reshape((-1,) + (1,) * (x.ndim - axis - 1)) for v in (lo, hi, scale, inverse))
    lo, hi, scale, inverse = (_dev(xp, v) for v in (lo, hi, scale, inverse))
    with np.errstate(all="ignore"):
        if range_given:
            x = xp.maximum(xp.minimum(x, hi), lo)
        scaled = x * scale
        rounded = xp.rint(scaled) if round_mode == "HALF_TO_EVEN" else xp.floor(scaled + x.dtype.type(0.5))
        return (rounded * inverse).astype(x.dtype, copy=False)


register("QuantizeAndDequantizeV2", infer=_qdq_infer, kernel=_qdq)


@gradient("QuantizeAndDequantizeV2")
def _qdq_grad(op, grad):
    return [grad, None, None]  # TF1's V2 gradient passes everything through, even outside the range


def _qdq_v4(x, input_min, input_max, **attrs):
    return _qdq(x, input_min, input_max, op_type="QuantizeAndDequantizeV4", **attrs)


def _qdq_v4_grad_kernel(g, x, input_min, input_max, axis):
    """TF's ``QuantizeAndDequantizeV4Grad``: the gradient where ``input_min <= x <= input_max`` (the
    ranges as given, per slice along ``axis``), zeros for the ranges."""
    xp = array_module(x)
    lo, hi = host(input_min), host(input_max)
    if axis != -1:
        lo, hi = (np.reshape(v, (-1,) + (1,) * (x.ndim - axis - 1)) for v in (lo, hi))
    lo, hi = _dev(xp, np.asarray(lo, x.dtype)), _dev(xp, np.asarray(hi, x.dtype))
    inside = (x >= lo) & (x <= hi)
    return (xp.where(inside, g, xp.zeros_like(g)), xp.zeros_like(input_min), xp.zeros_like(input_max))


register("QuantizeAndDequantizeV4", infer=_qdq_infer, kernel=_qdq_v4)
register("QuantizeAndDequantizeV4Grad",
         infer=lambda op: [(t.dtype, t.shape) for t in op._inputs[1:]], kernel=_qdq_v4_grad_kernel)


@gradient("QuantizeAndDequantizeV4")
def _qdq_v4_grad(op, grad):
    x, lo, hi = op._inputs
    grads = apply_op("QuantizeAndDequantizeV4Grad", [grad, x, lo, hi], {"axis": op._attrs["axis"]}).outputs
    return list(grads)


@tf_export("quantization.quantize_and_dequantize")
def quantize_and_dequantize(input, input_min, input_max, signed_input=True, num_bits=8, range_given=False,  # noqa: A002
                            round_mode="HALF_TO_EVEN", name=None, narrow_range=False, axis=None) -> Tensor:
    """Quantizes ``input`` to ``num_bits``-bit integers and back (op ``QuantizeAndDequantizeV2``).

    The range is ``[input_min, input_max]`` when ``range_given``, else the
    input's own min and max (per slice along ``axis`` when it is given; then
    ``input_min``/``input_max`` are vectors). It is widened as TF does so that
    0 maps to 0 (``signed_input``: ``[-2**(b-1), 2**(b-1) - 1]``, one less
    below with ``narrow_range``; unsigned: ``[0, 2**b - 1]``). ``round_mode``
    is ``"HALF_TO_EVEN"`` or ``"HALF_UP"``. The gradient is the identity (TF1's
    straight-through rule for this op).
    """
    return _qdq_op("QuantizeAndDequantizeV2", input, input_min, input_max, signed_input, num_bits, range_given,
                   round_mode, name, narrow_range, axis)


def _qdq_op(op_type: str, input, input_min, input_max, signed_input, num_bits, range_given, round_mode,  # noqa: A002
            name, narrow_range, axis) -> Tensor:
    if axis is None:
        axis = -1
    elif axis < 0:
        ndims = input.shape.ndims if isinstance(input, Tensor) else np.ndim(input)
        if ndims is None:
            raise ValueError("input should have known rank to use negative axis.")
        axis %= ndims
    if isinstance(round_mode, bytes):
        round_mode = round_mode.decode()
    if round_mode not in _ROUND_MODES:
        raise ValueError(f"Attr 'round_mode' of '{op_type}' Op passed string '{round_mode}' not in: "
                         f"\"HALF_TO_EVEN\", \"HALF_UP\".")
    attrs = {"signed_input": _attr_bool(signed_input, "signed_input", True),
             "num_bits": _attr_int(num_bits, "num_bits", 8),
             "range_given": _attr_bool(range_given, "range_given", False), "round_mode": round_mode,
             "narrow_range": _attr_bool(narrow_range, "narrow_range", False), "axis": _attr_int(axis, "axis", -1)}
    with name_scope(name, op_type, [input, input_min, input_max]) as scope:
        x = as_tensor(input, "input", _QDQ_TYPES)
        lo, hi = (_typed_input(v, arg, x.dtype, op_type) for arg, v in (("input_min", input_min),
                                                                          ("input_max", input_max)))
        return apply_op(op_type, [x, lo, hi], attrs, name=scope).outputs[0]


@tf_export("quantization.quantize_and_dequantize_v2")
def quantize_and_dequantize_v2(input, input_min, input_max, signed_input=True, num_bits=8,  # noqa: A002
                               range_given=False, round_mode="HALF_TO_EVEN", name=None, narrow_range=False,
                               axis=None) -> Tensor:
    """Quantizes ``input`` and back as ``quantize_and_dequantize`` (op ``QuantizeAndDequantizeV4``),
    with TF2's gradient: straight through where ``input_min <= input <= input_max`` (the ranges as
    given, even without ``range_given``), zero outside; none for the ranges."""
    return _qdq_op("QuantizeAndDequantizeV4", input, input_min, input_max, signed_input, num_bits, range_given,
                   round_mode, name, narrow_range, axis)


def _typed_input(value, arg: str, dtype, op_type: str) -> Tensor:
    """An input of the op's type attr ``T``, fixed by the first input."""
    if isinstance(value, Tensor):
        if value.dtype != dtype:
            raise TypeError(f"Input '{arg}' of '{op_type}' Op has type {value.dtype.name} that does not match type "
                            f"{dtype.name} of argument 'input'.")
        return value
    return as_tensor(value, arg, dtype=dtype)
