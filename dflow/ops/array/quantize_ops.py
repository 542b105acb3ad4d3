"""TF1's quantization ops: ``tf.quantize`` / ``tf.quantize_v2`` (op ``QuantizeV2``),
``tf.dequantize`` (op ``Dequantize``) and ``tf.quantized_concat`` (op ``QuantizedConcat``),
with their ``tf.quantization.*`` spellings.

Quantized tensors (``qint8``, ``quint8``, ``qint16``, ``quint16``, ``qint32``)
hold plain integer numpy arrays at run time (``int8`` for ``qint8``, ...):
that is what TF's ``sess.run`` returns for them, and what it accepts as feeds.

The arithmetic follows TF's CPU kernels (``quantize_op.cc``,
``dequantize_op.cc``, ``quantized_concat_op.cc``, ``quantization_utils.h``)
step by step in float32 (double where they use double), including how the
ranges are widened (``ensure_minimum_range``, 0 always inside), C++'s
``std::min``/``std::max`` with NaN, and x86's float-to-int conversion (a NaN
or out-of-range float becomes ``INT_MIN``, then narrowed to the type's width).
None of these ops has a gradient in TF (``tf.gradients`` through them is a
``LookupError``), and none has one here.
"""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, constant_value, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument
from dflow.ops.array.fake_quant_ops import _attr_bool, _attr_float, _float_input
from dflow.ops.array.index_args import dims_str, host, merge_shapes, with_rank, with_rank_at_least
from dflow.ops.nn._nn_util import as_tensor, check_dtype, merge_dims

_F32 = np.float32
_INT_MIN = np.iinfo(np.int32).min

QuantizeV2 = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])
QuantizedConcat = collections.namedtuple("QuantizedConcat", ["output", "output_min", "output_max"])

# TF lists the quantize types in this order in its messages.
_QTYPES = (dtypes.qint8, dtypes.quint8, dtypes.qint32, dtypes.qint16, dtypes.quint16)
_MODES = ("MIN_COMBINED", "MIN_FIRST", "SCALED")
_ROUND_MODES = ("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN")


# -- C++ semantics on float32 arrays ---------------------------------------------------


def _f32(v) -> np.ndarray:
    return np.asarray(v, dtype=_F32)


def _cmin(a, b):
    """``std::min(a, b)``: ``b < a ? b : a`` (a NaN ``a`` is kept, a NaN ``b`` is not)."""
    return np.where(b < a, b, a).astype(_F32)


def _cmax(a, b):
    """``std::max(a, b)``: ``a < b ? b : a``."""
    return np.where(a < b, b, a).astype(_F32)


def _round_half_away(z: np.ndarray) -> np.ndarray:
    """``std::round``: halves away from zero (``z - trunc(z)`` is exact in float32)."""
    t = np.trunc(z)
    return (t + np.where(np.abs(z - t) >= _F32(0.5), np.sign(z), _F32(0))).astype(_F32)


def _to_int(v: np.ndarray, np_type) -> np.ndarray:
    """C++'s ``static_cast`` of a float to an integer type on x86.

    The float is truncated to an int32 (``cvttss2si``: NaN and values outside
    int32 give ``INT_MIN``), which is then narrowed to ``np_type``'s width by
    dropping the high bits.
    """
    with np.errstate(invalid="ignore"):
        ok = (v >= -2.0 ** 31) & (v < 2.0 ** 31)
        i = np.where(ok, np.trunc(np.where(ok, v, 0)), _INT_MIN).astype(np.int64)
    return i.astype(np.int32).astype(np_type)


def _to_qint32(v: np.ndarray) -> np.ndarray:
    """Eigen's float-to-``QInt32`` conversion: ``lrint`` to 64 bits, the low 32 kept (NaN gives 0, 2**31 wraps)."""
    return np.where(np.isnan(v), _F32(0), v).astype(np.int64).astype(np.int32)


def _cast(v: np.ndarray, np_type) -> np.ndarray:
    """A float32 array of whole numbers (or NaN) cast straight to the quantized type, as ``.cast<T>()``."""
    return _to_qint32(v) if np.dtype(np_type) == np.int32 else _to_int(v, np_type)


def _limits(np_type) -> tuple[int, int]:
    info = np.iinfo(np_type)
    return int(info.min), int(info.max)


def _base(dtype) -> np.dtype:
    """The plain integer numpy dtype a quantized tensor holds (``int8`` for ``qint8``)."""
    return dtype.array_dtype


# -- the shared helpers of quantization_utils.h (MIN_FIRST) ----------------------------


def _quantize_min_first(x, lo, hi, np_type):
    """``QUANTIZE_WITH_EIGEN`` with ``FloatToQuantizedStruct(lo, hi)``, scalars ``lo``/``hi``."""
    bits = np.dtype(np_type).itemsize * 8
    qmin, qmax = _limits(np_type)
    with np.errstate(all="ignore"):
        scale = _F32(0.0) if lo == hi else _F32((2.0 ** bits - 1.0) / np.float64(_F32(hi - lo)))
        min_scaled = _round_half_away(_f32(lo * scale))
        offset = _F32(min_scaled - _F32(qmin))
        v = _round_half_away(_f32(x * scale)) - offset
        lower, upper = max(_F32(qmin), _F32(-2.147483648e9)), min(_F32(qmax), _F32(2.147483520e9))
        v = np.minimum(np.maximum(v, lower), upper)  # NaN stays NaN, as Eigen's cwiseMax/cwiseMin
    return _to_int(v, np_type)


def _dequantize_min_first(q, lo, hi):
    """``DEQUANTIZE_WITH_EIGEN`` with ``QuantizedToFloatStruct(lo, hi)``, scalars ``lo``/``hi``."""
    bits = q.dtype.itemsize * 8
    qmin, _ = _limits(q.dtype)
    with np.errstate(all="ignore"):
        scale = _F32(np.float64(_F32(hi - lo)) / (2.0 ** bits - 1.0))
        lo_rounded = lo if hi == lo else _F32(_round_half_away(_F32(lo / scale)) * scale)
        offset = _F32(lo_rounded - _F32(_F32(qmin) * scale))
        return (offset + q.astype(_F32) * scale).astype(_F32)


# -- QuantizeV2 ------------------------------------------------------------------------


def _quantize_infer(op):
    x, lo, hi = op._inputs
    axis = op._attrs["axis"]
    if axis < -1:
        raise ValueError(f"axis should be at least -1, got {axis}")
    rank = 0 if axis == -1 else 1
    with_rank(lo.shape, rank)
    minmax = with_rank(hi.shape, rank)
    if axis != -1:
        with_rank_at_least(x.shape, axis + 1)
        depth = None if x.shape.ndims is None else x.shape.as_list()[axis]
        merge_dims(minmax.as_list()[0], depth)
    return [(op._attrs["T"], x.shape), (dtypes.float32, minmax), (dtypes.float32, minmax)]


def _widened_range(lo, hi, ensure_minimum_range: float):
    """TF's range adjustment: 0 is inside, and the range is at least ``ensure_minimum_range`` of the ends' size."""
    min_range = _cmin(_F32(0), lo)
    epsilon = _f32(_cmax(_F32(1), _cmax(np.abs(lo), np.abs(hi))) * _F32(ensure_minimum_range))
    max_range = _cmax(_F32(0), _cmax(hi, _f32(min_range + epsilon)))
    return min_range, max_range


def _check_ranges(lo, hi):
    if np.any(hi < lo):
        raise invalid_argument("input_max_range must be larger than input_min_range.")


def _quantize_slices(x, lo, hi, np_type, mode, round_mode, narrow_range, ensure_minimum_range):
    """``QuantizeSlice`` for MIN_COMBINED and SCALED; ``lo``/``hi`` broadcast against ``x`` (one per slice)."""
    qmin, qmax = _limits(np_type)
    min_range, max_range = _widened_range(lo, hi, ensure_minimum_range)
    with np.errstate(all="ignore"):
        if mode == "MIN_COMBINED":
            scale = _f32(np.float64(qmax - qmin) / _f32(max_range - min_range).astype(np.float64))
            clipped = np.maximum(np.minimum(x, max_range), min_range)
            if qmin < 0:
                half_range = _F32((qmax - qmin + 1) / 2.0)
                v = _round_half_away(_f32((clipped - min_range) * scale) - half_range)
            else:
                v = _f32((clipped - min_range) * scale) + _F32(0.5)
            return _cast(v, np_type), min_range, max_range
        min_out = _F32(qmin + (1 if narrow_range else 0))
        flt_max = _F32(np.finfo(_F32).max)
        from_min = np.where(min_out * min_range > 0, _f32(min_out / min_range), flt_max)
        from_max = np.where(_F32(qmax) * max_range > 0, _f32(_F32(qmax) / max_range), flt_max)
        scale = _cmin(from_min, from_max)
        min_range, max_range = _f32(min_out / scale), _f32(_F32(qmax) / scale)
        v = _f32(np.maximum(np.minimum(x, max_range), min_range) * scale)
        v = np.rint(v) if round_mode == "HALF_TO_EVEN" else _round_half_away(v)
        return _cast(v, np_type), min_range, max_range


def _check_quantize_ranges(x, lo, hi, axis: int) -> int:
    """TF's run-time checks of the range inputs; the number of slices."""
    if axis == -1:
        for arg, v in (("min_range", lo), ("max_range", hi)):
            if np.size(v) != 1:
                raise invalid_argument(f"If axis is not specified, {arg} must contain a single float element, "
                                       f"but it contains {np.size(v)} elements")
        return 1
    if axis >= x.ndim:
        raise invalid_argument(f"Axis is on a zero-based index, so its value must always be less than number of "
                               f"input's dims, but given axis value was {axis} and input's dims was {x.ndim}")
    n = x.shape[axis]
    for arg, v in (("min_range", lo), ("max_range", hi)):
        prefix = (f"If axis is specified, {arg} must be a 1-D tensor whose size matches the axis dimension of the "
                  f"input and output tensors, but {arg}")
        if np.ndim(v) != 1:
            raise invalid_argument(f"{prefix} dims are {np.ndim(v)}")
        if np.size(v) != n:
            raise invalid_argument(f"{prefix} is a 1-D tensor of size {np.size(v)} and input's axis dimension is of "
                                   f"size {n}")
    return n


def _quantize_kernel(x, min_range, max_range, T, mode, round_mode, narrow_range, axis, ensure_minimum_range):
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise invalid_argument(f"Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', b  ut mode is '{mode}'.")
    x = np.asarray(host(x), _F32)
    lo, hi = _f32(host(min_range)), _f32(host(max_range))
    np_type = _base(T)
    n = _check_quantize_ranges(x, lo, hi, axis)
    if n == 1:  # TF's per-tensor path, also for an axis of size 1: scalar output ranges
        lo, hi = lo.reshape(-1)[0], hi.reshape(-1)[0]
        _check_ranges(lo, hi)
        if mode == "MIN_FIRST":
            min_range, max_range = _widened_range(lo, hi, ensure_minimum_range)
            return _quantize_min_first(x, min_range, max_range, np_type), min_range, max_range
        out, min_range, max_range = _quantize_slices(x, lo, hi, np_type, mode, round_mode, narrow_range,
                                                     ensure_minimum_range)
        return out, _f32(min_range), _f32(max_range)
    if mode == "MIN_FIRST":
        raise errors.UnimplementedError(None, None, "MIN_FIRST mode is not implemented for Quantize with axis != -1.")
    _check_ranges(lo, hi)
    along = (-1,) + (1,) * (x.ndim - axis - 1)
    out, min_range, max_range = _quantize_slices(x, lo.reshape(along), hi.reshape(along), np_type, mode, round_mode,
                                                 narrow_range, ensure_minimum_range)
    return out, min_range.reshape(-1), max_range.reshape(-1)


register("QuantizeV2", infer=_quantize_infer, kernel=_quantize_kernel)


def _check_mode(mode, op_type: str) -> str:
    if isinstance(mode, bytes):
        mode = mode.decode()
    if mode not in _MODES:
        raise ValueError(f"Attr 'mode' of '{op_type}' Op passed string '{mode}' not in: "
                         f"\"MIN_COMBINED\", \"MIN_FIRST\", \"SCALED\".")
    return mode


def _quantized_type(T, arg: str = "T") -> dtypes.DType:
    try:
        dtype = dtypes.as_dtype(T)
    except TypeError:
        raise TypeError(f"Expected DataType for argument '{arg}' not {T!r}.") from None
    if dtype not in _QTYPES:
        raise TypeError(f"Value passed to parameter '{arg}' has DataType {dtype.name} not in list of allowed values: "
                        f"{', '.join(d.name for d in _QTYPES)}")
    return dtype


def _resolve_axis(axis, value) -> int:
    """TF's Python wrappers: None is -1, a negative axis counts from the end of the input's (known) rank."""
    if axis is None:
        return -1
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"Expected int for argument 'axis' not {axis!r}.")
    axis = int(axis)
    if axis < 0:
        ndims = value.shape.ndims if isinstance(value, Tensor) else np.ndim(value)
        if ndims is None:
            raise ValueError("input should have known rank to use negative axis.")
        axis %= ndims
    return axis


def _quantize(input, min_range, max_range, T, mode, round_mode, name, narrow_range, axis,  # noqa: A002
              ensure_minimum_range) -> QuantizeV2:
    op_type = "QuantizeV2"
    axis = _resolve_axis(axis, input)
    T = _quantized_type(T)
    mode = _check_mode(mode, op_type)
    if isinstance(round_mode, bytes):
        round_mode = round_mode.decode()
    if round_mode not in _ROUND_MODES:
        raise ValueError(f"Attr 'round_mode' of '{op_type}' Op passed string '{round_mode}' not in: "
                         f"\"HALF_AWAY_FROM_ZERO\", \"HALF_TO_EVEN\".")
    attrs = {"T": T, "mode": mode, "round_mode": round_mode,
             "narrow_range": _attr_bool(narrow_range, "narrow_range", False), "axis": axis,
             "ensure_minimum_range": _attr_float(ensure_minimum_range, "ensure_minimum_range", 0.01)}
    with name_scope(name, op_type, [input, min_range, max_range]) as scope:
        inputs = [_float_input(v, arg, op_type) for arg, v in (("input", input), ("min_range", min_range),
                                                                ("max_range", max_range))]
        return QuantizeV2(*apply_op(op_type, inputs, attrs, name=scope).outputs)


@tf_export("quantization.quantize", "quantize")
def quantize(input, min_range, max_range, T, mode="MIN_COMBINED", round_mode="HALF_AWAY_FROM_ZERO",  # noqa: A002
             name=None, narrow_range=False, axis=None, ensure_minimum_range=0.01) -> QuantizeV2:
    """Quantizes the float32 ``input`` to the quantized type ``T`` over ``[min_range, max_range]`` (op ``QuantizeV2``).

    Returns ``(output, output_min, output_max)``: the quantized tensor and the
    range it actually represents. The range is first widened to contain 0
    and to span at least ``ensure_minimum_range * max(1, |min|, |max|)``.
    ``mode``:

    * ``"MIN_COMBINED"``: ``(clip(x) - min) * range(T) / (max - min)``, less
      half the type's range for signed types, rounded (halves away from 0).
    * ``"MIN_FIRST"``: ``round(x * scale) - round(min * scale) + lowest(T)``,
      clamped, with ``scale = (2**bits - 1) / (max - min)``.
    * ``"SCALED"``: ``round(clip(x) * s)`` with the largest ``s`` that keeps
      both ends representable; the range is adjusted to the one that ``s``
      represents exactly. ``narrow_range`` drops the lowest value of ``T``;
      ``round_mode="HALF_TO_EVEN"`` is allowed only here.

    With ``axis``, ``min_range``/``max_range`` are vectors and each slice
    along ``axis`` gets its own range (not for ``MIN_FIRST``). A ``min_range``
    above ``max_range`` is an ``InvalidArgumentError`` at run time.

    >>> import dflow as tf
    >>> with tf.Session() as sess:
    ...     sess.run(tf.quantize([-1.0, 0.0, 1.0, 2.0], -1.0, 2.0, tf.quint8)).output.tolist()
    [0, 85, 170, 255]
    """
    return _quantize(input, min_range, max_range, T, mode, round_mode, name, narrow_range, axis, ensure_minimum_range)


@tf_export("quantize_v2")
def quantize_v2(input, min_range, max_range, T, mode="MIN_COMBINED", name=None,  # noqa: A002
                round_mode="HALF_AWAY_FROM_ZERO", narrow_range=False, axis=None,
                ensure_minimum_range=0.01) -> QuantizeV2:
    """Deprecated spelling of ``tf.quantization.quantize`` (``name`` comes before ``round_mode``)."""
    return _quantize(input, min_range, max_range, T, mode, round_mode, name, narrow_range, axis, ensure_minimum_range)


# -- Dequantize ------------------------------------------------------------------------


def _dequantize_infer(op):
    x, lo, hi = op._inputs
    axis = op._attrs["axis"]
    if axis < -1:
        raise ValueError(f"axis should be at least -1, got {axis}")
    rank = -1 if x.shape.ndims is None else x.shape.ndims
    if axis > rank:
        raise ValueError(f"Axis must be less than input dimension({rank}), got {axis}")
    minmax_rank = 0 if axis == -1 else 1
    with_rank(lo.shape, minmax_rank)
    minmax = with_rank(hi.shape, minmax_rank)
    if axis != -1:
        with_rank_at_least(x.shape, axis + 1)
        merge_dims(minmax.as_list()[0], None if x.shape.ndims is None else x.shape.as_list()[axis])
    return [(dtypes.float32, x.shape)]


def _dequantize_slices(q, lo, hi, mode, narrow_range):
    """``DequantizeSlice`` for MIN_COMBINED and SCALED; ``lo``/``hi`` broadcast against ``q``."""
    qmin, qmax = _limits(q.dtype)
    values = q.astype(_F32)
    with np.errstate(all="ignore"):
        if mode == "MIN_COMBINED":
            span = _F32(_F32(qmax) - _F32(qmin))
            scale = _f32(_f32(hi - lo) / span)
            half_range = _F32((span + _F32(1)) / _F32(2)) if qmin < 0 else _F32(0)
            return (_f32((values + half_range) * scale) + lo).astype(_F32)
        if qmin == 0:
            scale = _f32(hi / _F32(qmax))
        else:
            scale = _cmax(_f32(lo / _F32(qmin + (1 if narrow_range else 0))), _f32(hi / _F32(qmax)))
        # TF's SCALED path goes through int after float: a qint32 near 2**31 rounds to 2.0**31 and wraps to INT_MIN.
        values = _to_int(values, np.int32).astype(_F32)
        return (values * scale).astype(_F32)


def _dequantize_kernel(x, min_range, max_range, mode, narrow_range, axis, dtype):
    q = np.asarray(host(x))
    lo, hi = _f32(host(min_range)), _f32(host(max_range))
    n = 1 if axis == -1 else q.shape[axis]
    for arg, v in (("input_min_tensor", lo), ("input_max_tensor", hi)):
        if v.size != n:
            raise invalid_argument(f"{arg} must have as many elements as input on the dequantization axis ({axis}), "
                                   f"got {v.size}, expected {n}")
    if n == 1:
        lo, hi = lo.reshape(-1)[0], hi.reshape(-1)[0]
        if mode == "MIN_FIRST":
            return _dequantize_min_first(q, lo, hi)
        return _dequantize_slices(q, lo, hi, mode, narrow_range)
    if mode == "MIN_FIRST":
        raise errors.UnimplementedError(None, None,
                                        "MIN_FIRST mode is not implemented for Dequantize with axis != -1.")
    along = (-1,) + (1,) * (q.ndim - axis - 1)
    return _dequantize_slices(q, lo.reshape(along), hi.reshape(along), mode, narrow_range)


register("Dequantize", infer=_dequantize_infer, kernel=_dequantize_kernel)


def _output_float_type(dtype) -> dtypes.DType:
    dtype = dtypes.as_dtype(dtype)
    if dtype is dtypes.bfloat16:
        raise NotImplementedError("tf.dequantize: dtype=tf.bfloat16 is not supported in dflow (numpy has no bfloat16 "
                                  "type); use the default dtype=tf.float32")
    if dtype is not dtypes.float32:
        raise TypeError(f"Value passed to parameter 'dtype' has DataType {dtype.name} not in list of allowed values: "
                        f"bfloat16, float32")
    return dtype


@tf_export("quantization.dequantize", "dequantize")
def dequantize(input, min_range, max_range, mode="MIN_COMBINED", name=None, axis=None,  # noqa: A002
               narrow_range=False, dtype=dtypes.float32) -> Tensor:
    """Dequantizes the quantized ``input`` to float32 over ``[min_range, max_range]`` (op ``Dequantize``).

    The inverse mapping of ``tf.quantization.quantize`` for the same ``mode``
    (``"MIN_COMBINED"``, ``"MIN_FIRST"`` or ``"SCALED"``); with ``axis``, one
    range per slice along it (vectors ``min_range``/``max_range``; not for
    ``MIN_FIRST``). ``narrow_range`` matters only for ``SCALED``.
    ``dtype=tf.bfloat16`` (which TF allows) is a ``NotImplementedError``:
    dflow has no bfloat16.
    """
    op_type = "Dequantize"
    axis = _resolve_axis(axis, input)
    mode = _check_mode(mode, op_type)
    attrs = {"mode": mode, "narrow_range": _attr_bool(narrow_range, "narrow_range", False), "axis": axis,
             "dtype": _output_float_type(dtype)}
    with name_scope(name, op_type, [input, min_range, max_range]) as scope:
        x = as_tensor(input, "input")
        check_dtype(x, _QTYPES, "input")
        lo, hi = (_float_input(v, arg, op_type) for arg, v in (("min_range", min_range), ("max_range", max_range)))
        return apply_op(op_type, [x, lo, hi], attrs, name=scope).outputs[0]


# -- QuantizedConcat -------------------------------------------------------------------


def _concat_infer(op):
    n = (len(op._inputs) - 1) // 3
    dim_t, values = op._inputs[0], op._inputs[1:n + 1]
    with_rank(dim_t.shape, 0)
    for t in op._inputs[n + 1:]:
        with_rank(t.shape, 0)
    dtype = values[0].dtype
    scalars = [(dtypes.float32, TensorShape([])), (dtypes.float32, TensorShape([]))]
    return [(dtype, _concat_shape(values, constant_value(dim_t)))] + scalars


def _concat_shape(values, axis) -> TensorShape:
    """TF's ``ConcatShape``: the inputs merged outside ``axis`` and summed along it (unknown when ``axis`` is)."""
    ranks = [v.shape.ndims for v in values if v.shape.ndims is not None]
    if not ranks:
        return TensorShape(None)
    r = ranks[0]
    if axis is None:
        for v in values:
            with_rank(v.shape, r)
        return TensorShape([None] * r)
    a = int(axis)
    for v in values:
        with_rank_at_least(v.shape, -a if a < 0 else a + 1)
    for v in values:
        with_rank(v.shape, r)
    a = a + r if a < 0 else a
    shapes = [v.shape if v.shape.ndims is not None else TensorShape([None] * r) for v in values]
    before, middle, after = shapes[-1][:a], shapes[-1][a].value, shapes[-1][a + 1:]
    for s in reversed(shapes[:-1]):  # TF merges from the last input
        before = merge_shapes(s[:a], before)
        after = merge_shapes(s[a + 1:], after)
        middle = None if middle is None or s[a].value is None else middle + s[a].value
    return before.concatenate([middle]).concatenate(after)


def _concat_range(mins, maxes, signed: bool):
    """The common output range: all inputs' ranges, 0 included, symmetric for a signed type."""
    overall_min, overall_max = _F32(np.finfo(_F32).max), _F32(np.finfo(_F32).min)
    for lo, hi in zip(mins, maxes):
        overall_min, overall_max = _cmin(overall_min, lo)[()], _cmax(overall_max, hi)[()]
    overall_min = _cmin(_F32(0), overall_min)[()]
    if signed:
        largest = _cmax(np.abs(overall_min), np.abs(overall_max))[()]
        return -largest, largest
    return overall_min, overall_max


def _check_concat_shapes(values, dim: int) -> None:
    shape0 = values[0].shape
    r = len(shape0)
    if not 0 <= dim < r:
        raise invalid_argument(f"ConcatOp : Expected concatenating dimensions in the range [0, {r}), but got {dim}")
    for i, v in enumerate(values):
        if v.ndim != r:
            raise invalid_argument(f"ConcatOp : Ranks of all input tensors should match: shape[0] = {dims_str(shape0)}"
                                   f" vs. shape[{i}] = {dims_str(v.shape)}")
        if any(v.shape[j] != shape0[j] for j in range(r) if j != dim):
            raise invalid_argument(f"ConcatOp : Dimensions of inputs should match: shape[0] = {dims_str(shape0)} vs. "
                                   f"shape[{i}] = {dims_str(v.shape)}")


def _concat_kernel(concat_dim, *args, T, N):
    if T not in (dtypes.quint8, dtypes.qint32):  # TF registers CPU kernels for these two only
        raise invalid_argument(f"No OpKernel was registered to support Op 'QuantizedConcat' with these attrs: "
                               f"[N={N}, T=DT_{T.name.upper()}]")
    n = N
    dim = np.asarray(host(concat_dim))
    if dim.ndim != 0:
        raise invalid_argument(f"Concat dim tensor should be a scalar integer, but got shape {dims_str(dim.shape)}")
    values = [np.asarray(host(v)) for v in args[:n]]
    ranges = []
    for what, group in (("input_mins", args[n:2 * n]), ("input_maxes", args[2 * n:])):
        for i, v in enumerate(group):
            if np.size(v) != 1:
                raise invalid_argument(f"{what} each tensor's num elements must be 1, given num elements "
                                       f"{np.size(v)} in index {i}")
        ranges.append([_f32(host(v)).reshape(-1)[0] for v in group])
    mins, maxes = ranges
    dim = int(dim)
    _check_concat_shapes(values, dim)
    np_type = values[0].dtype
    out_min, out_max = _concat_range(mins, maxes, signed=_limits(np_type)[0] < 0)
    parts = []
    for v, lo, hi in zip(values, mins, maxes):
        if lo == out_min and hi == out_max:
            parts.append(v)
        else:  # requantized through float, as TF's RequantizeCopier
            parts.append(_quantize_min_first(_dequantize_min_first(v, lo, hi), out_min, out_max, np_type))
    return np.concatenate(parts, axis=dim), _F32(out_min), _F32(out_max)


register("QuantizedConcat", infer=_concat_infer, kernel=_concat_kernel)


@tf_export("quantization.quantized_concat", "quantized_concat")
def quantized_concat(concat_dim, values, input_mins, input_maxes, name=None) -> QuantizedConcat:
    """Concatenates quantized tensors along ``concat_dim``, requantized to one common range (op ``QuantizedConcat``).

    Returns ``(output, output_min, output_max)``. The output range covers all
    the inputs' ranges and 0 (for a signed type it is symmetric,
    ``[-m, m]``); an input with another range is dequantized and quantized
    again (``MIN_FIRST`` arithmetic). TF has CPU kernels for ``quint8`` and
    ``qint32`` only: other types fail at run time, as in TF.
    """
    op_type = "QuantizedConcat"
    for arg, v in (("values", values), ("input_mins", input_mins), ("input_maxes", input_maxes)):
        if not isinstance(v, (list, tuple)):
            raise TypeError(f"Expected list for '{arg}' argument to 'quantized_concat' Op, not {v!r}.")
    n = len(values)
    for arg, v in (("input_mins", input_mins), ("input_maxes", input_maxes)):
        if len(v) != n:
            raise ValueError(f"List argument '{arg}' to 'quantized_concat' Op with length {len(v)} must match length "
                             f"{n} of argument 'values'.")
    if n < 2:
        raise ValueError(f"List argument 'values' to '{op_type}' Op with length {n} shorter than minimum length 2.")
    with name_scope(name, op_type, [concat_dim, *values, *input_mins, *input_maxes]) as scope:
        dim = _int32_input(concat_dim)
        xs = [as_tensor(v, "values") for v in values]
        if any(x.dtype != xs[0].dtype for x in xs):
            raise TypeError(f"Tensors in list passed to 'values' of '{op_type}' Op have types "
                            f"[{', '.join(x.dtype.name for x in xs)}] that don't all match.")
        mins = [_float_input(v, f"input_mins_{i}", op_type) for i, v in enumerate(input_mins)]
        maxes = [_float_input(v, f"input_maxes_{i}", op_type) for i, v in enumerate(input_maxes)]
        attrs = {"T": xs[0].dtype, "N": n}
        return QuantizedConcat(*apply_op(op_type, [dim, *xs, *mins, *maxes], attrs, name=scope).outputs)


def _int32_input(value) -> Tensor:
    """``concat_dim``: an int32 tensor (a float is TF's TypeError)."""
    if isinstance(value, Tensor):
        if value.dtype != dtypes.int32:
            raise TypeError(f"Input 'concat_dim' of 'QuantizedConcat' Op has type {value.dtype.name} that does not "
                            f"match expected type of int32.")
        return value
    if isinstance(value, (float, np.floating)):
        raise TypeError(f"Expected int32 passed to parameter 'concat_dim' of op 'QuantizedConcat', got {value!r} of "
                        f"type '{type(value).__name__}' instead. Error: Expected int32, but got {value!r} of type "
                        f"'{type(value).__name__}'.")
    return as_tensor(value, "concat_dim", dtype=dtypes.int32)
