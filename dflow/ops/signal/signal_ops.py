"""tf.signal beyond the FFT: frames and overlap-add, windows, STFT and its inverse, DCT types I-IV,
MDCT, the mel filterbank and MFCCs.

A few ops carry the numerics (``_Frame``/``_OverlapAndAdd``, ``_DCT``, and
``_Window`` in ``signal_windows``), each a numpy kernel with its gradient
beside it (framing and overlap-add are each other's transpose; a DCT's
gradient is its transposed transform). STFT, MDCT, their inverses and MFCCs are built from them and the
FFT ops as TF builds them, so their values, shapes and dtypes follow TF's
(the graph has fewer nodes: TF assembles a frame from gathers and reshapes).
"""

from __future__ import annotations

import math

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, unknown_shape
from dflow.ops._common import invalid_argument
from dflow.ops.array import array_ops, creation_ops, shape_ops, slicing_ops, tiling_ops
from dflow.ops.array.index_args import index_arg, split_index_args
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.signal import fft_ops
from dflow.ops.signal.signal_windows import hann_window, vorbis_window

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)

# -- framing and overlap-add ------------------------------------------------------------------------


def _num_frames(length: int, frame_length: int, frame_step: int, pad_end: bool) -> int:
    if pad_end:
        return max(0, -(-length // frame_step))
    return max(0, 1 + (length - frame_length) // frame_step)


def _check_frame_args(frame_length: int, frame_step: int) -> None:
    if frame_length < 0 or frame_step <= 0:
        raise invalid_argument(f"frame: frame_length must be >= 0 and frame_step > 0, got {frame_length} and "
                               f"{frame_step}")


def _frame_kernel(signal, pad_value, frame_length=None, frame_step=None, *, pad_end: bool, axis: int):
    fl, step = int(frame_length), int(frame_step)
    _check_frame_args(fl, step)
    ax = axis % signal.ndim
    n = _num_frames(signal.shape[ax], fl, step, pad_end)
    need = fl + step * (n - 1) - signal.shape[ax] if n else 0
    if pad_end and need > 0:
        pads = [(0, 0)] * signal.ndim
        pads[ax] = (0, need)
        signal = np.pad(signal, pads, constant_values=pad_value)
    index = np.arange(n)[:, None] * step + np.arange(fl)[None, :]
    return np.take(signal, index, axis=ax)


def _overlap_add(frames, step: int, length: int, axis: int):
    """Sums ``frames`` (axis, axis + 1 = frame, sample) into a signal of ``length`` samples on ``axis``."""
    ax = axis % (frames.ndim - 1)
    g = np.moveaxis(frames, (ax, ax + 1), (0, 1))
    n, fl = g.shape[:2]
    full = max(length, fl + step * (n - 1) if n else 0)
    out = np.zeros((full,) + g.shape[2:], frames.dtype)
    if n <= fl:
        for i in range(n):
            out[i * step:i * step + fl] += g[i]
    else:
        for j in range(fl):
            out[j:j + step * n:step] += g[:, j]
    return np.moveaxis(out[:length], 0, ax)


def _frame_infer(op):
    signal = op._inputs[0]
    fl = index_arg(op, "frame_length", 2)[0]
    step = index_arg(op, "frame_step", 3)[0]
    if signal._shape.ndims is None:
        return [(signal._dtype, unknown_shape())]
    dims = signal._shape.as_list()
    ax = op._attrs["axis"] % len(dims)
    length = dims[ax]
    n = None
    if length is not None and step is not None and (op._attrs["pad_end"] or fl is not None):
        n = _num_frames(length, 0 if fl is None else int(fl), int(step), op._attrs["pad_end"])
    return [(signal._dtype, TensorShape(dims[:ax] + [n, None if fl is None else int(fl)] + dims[ax + 1:]))]


register("_Frame", infer=_frame_infer, kernel=_frame_kernel, gpu=False)


def _frame_grad_kernel(grad, signal, frame_length=None, frame_step=None, *, pad_end: bool, axis: int):
    ax = axis % signal.ndim
    return _overlap_add(grad, int(frame_step), signal.shape[ax], ax).astype(grad.dtype, copy=False)


register("_FrameGrad", infer=lambda op: [(op._inputs[0]._dtype, op._inputs[1]._shape)], kernel=_frame_grad_kernel,
         gpu=False)


def _index_inputs_and_attrs(op, first_index: int):
    attrs = dict(op._attrs)
    return list(op._inputs[first_index:]), attrs


@gradient("_Frame")
def _frame_grad(op, grad):
    index_inputs, attrs = _index_inputs_and_attrs(op, 2)
    dx = apply_op("_FrameGrad", [grad, op._inputs[0], *index_inputs], attrs).outputs[0]
    return [dx, None] + [None] * len(index_inputs)


@gradient("_FrameGrad")
def _frame_grad_grad(op, grad):
    index_inputs, attrs = _index_inputs_and_attrs(op, 2)
    pad = creation_ops.zeros([], grad.dtype)
    frames = apply_op("_Frame", [grad, pad, *index_inputs], attrs).outputs[0]
    return [frames, None] + [None] * len(index_inputs)


@tf_export("signal.frame")
def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None) -> Tensor:
    """Frames of ``frame_length`` samples every ``frame_step`` along ``axis``: ``[..., frames, frame_length, ...]``.

    With ``pad_end`` the signal is padded with ``pad_value`` so that every
    sample starts a frame: ``ceil(length / frame_step)`` frames.

    >>> # tf.signal.frame([1, 2, 3, 4, 5], 3, 2) -> [[1, 2, 3], [3, 4, 5]]
    """
    with name_scope(name, "frame", [signal, frame_length, frame_step, pad_value]) as scope:
        signal = convert_to_tensor(signal, name="signal")
        signal.shape.with_rank_at_least(1)
        pad = convert_to_tensor(pad_value, dtype=signal.dtype, name="pad_value")
        axis = constant_value(axis) if isinstance(axis, Tensor) else axis
        if axis is None:
            raise NotImplementedError("frame: axis must be known at graph time")
        inputs, attrs = split_index_args({"frame_length": frame_length, "frame_step": frame_step},
                                         scalars=("frame_length", "frame_step"))
        attrs.update(pad_end=bool(pad_end), axis=int(axis))
        return apply_op("_Frame", [signal, pad, *inputs], attrs, name=scope).outputs[0]


def _overlap_infer(op):
    signal = op._inputs[0]
    step = index_arg(op, "frame_step", 1)[0]
    if signal._shape.ndims is None:
        return [(signal._dtype, unknown_shape())]
    if signal._shape.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {signal._shape.ndims}")
    dims = signal._shape.as_list()
    n, fl = dims[-2:]
    length = None if None in (n, fl, step) else fl + int(step) * (n - 1)
    return [(signal._dtype, TensorShape(dims[:-2] + [length]))]


def _overlap_kernel(signal, frame_step=None):
    n, fl = signal.shape[-2:]
    step = int(frame_step)
    if step <= 0:
        raise invalid_argument(f"overlap_and_add: frame_step must be positive, got {step}")
    return _overlap_add(signal, step, max(0, fl + step * (n - 1)), signal.ndim - 2)


register("_OverlapAndAdd", infer=_overlap_infer, kernel=_overlap_kernel, gpu=False)


@gradient("_OverlapAndAdd")
def _overlap_grad(op, grad):
    signal = op._inputs[0]
    index_inputs, attrs = _index_inputs_and_attrs(op, 1)
    frame_length = shape_ops.shape(signal)[-1] if _last(signal) is None else _last(signal)
    framed = frame(grad, frame_length, index_inputs[0] if index_inputs else attrs["frame_step"])
    return [framed] + [None] * len(index_inputs)


@tf_export("signal.overlap_and_add")
def overlap_and_add(signal, frame_step, name=None) -> Tensor:
    """Sums frames ``[..., frames, frame_length]`` that start every ``frame_step`` samples into one signal."""
    with name_scope(name, "overlap_and_add", [signal, frame_step]) as scope:
        signal = convert_to_tensor(signal, name="signal")
        signal.shape.with_rank_at_least(2)
        if isinstance(frame_step, Tensor) and not frame_step.dtype.is_integer:
            raise ValueError(f"frame_step must be an integer. Got {frame_step.dtype}")
        inputs, attrs = split_index_args({"frame_step": frame_step}, scalars=("frame_step",))
        return apply_op("_OverlapAndAdd", [signal, *inputs], attrs, name=scope).outputs[0]


# -- DCT types I-IV -------------------------------------------------------------------------------------


def _dct_forward(x, kind: int, ortho: bool):
    n = x.shape[-1]
    k = np.arange(n)
    if kind == 1:
        return np.fft.rfft(np.concatenate([x, x[..., -2:0:-1]], axis=-1)).real
    if kind == 2:
        y = (np.fft.rfft(x, 2 * n)[..., :n] * (2.0 * np.exp(-1j * np.pi * k / (2 * n)))).real
        if ortho:
            y = y * np.where(k == 0, math.sqrt(1.0 / (4 * n)), math.sqrt(1.0 / (2 * n)))
        return y
    if kind == 3:
        x = x * (np.where(k == 0, math.sqrt(n), math.sqrt(n / 2.0)) if ortho else n)
        return np.fft.irfft(x * (2.0 * np.exp(1j * np.pi * k / (2 * n))), 2 * n)[..., :n]
    y = _dct_forward(np.concatenate([x, np.zeros_like(x)], axis=-1), 2, False)[..., 1::2]
    return y * math.sqrt(0.5 / n) if ortho else y


def _dct_transpose(g, kind: int, ortho: bool):
    """The transposed transform: what a DCT's gradient applies to the incoming gradient."""
    n = g.shape[-1]
    if kind == 4 or ortho:
        return _dct_forward(g, {1: 1, 2: 3, 3: 2, 4: 4}[kind], ortho)
    w = np.full(n, 2.0)
    if kind == 1:
        w[0] = w[-1] = 1.0  # C1 = K·diag(w) with K symmetric: C1ᵀ = diag(w)·C1·diag(1/w)
        return w * _dct_forward(g / w, 1, False)
    w[0] = 1.0  # C2 = 2A, C3 = Aᵀ·diag(w)
    if kind == 2:
        return 2.0 * _dct_forward(g / w, 3, False)
    return w * _dct_forward(g, 2, False) / 2.0


def _dct_kernel(x, *, kind: int, ortho: bool, transpose: bool):
    with np.errstate(all="ignore"):
        y = (_dct_transpose if transpose else _dct_forward)(x.astype(np.float64), kind, ortho)
    return y.astype(x.dtype)


def _dct_infer(op):
    x = op._inputs[0]
    if x._dtype not in _FLOATS:
        raise TypeError(f"dct: input must be float16, float32 or float64, got {x._dtype.name}")
    return [(x._dtype, x._shape)]


register("_DCT", infer=_dct_infer, kernel=_dct_kernel, gpu=False)


@gradient("_DCT")
def _dct_grad(op, grad):
    attrs = dict(op._attrs, transpose=not op._attrs["transpose"])
    return [apply_op("_DCT", [grad], attrs).outputs[0]]


def _validate_dct(x: Tensor, kind, n, axis, norm) -> None:
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if kind not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if kind == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        if _last(x) is not None and _last(x) < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _dct(x, kind: int, n, norm, name, default_name: str) -> Tensor:
    with name_scope(name, default_name, [x]) as scope:
        x = convert_to_tensor(x)
        _validate_dct(x, kind, n, -1, norm)
        if n is not None:
            length = _last(x)
            if length is not None and n <= length:
                x = x[..., :n]
            else:
                if length is None:
                    raise NotImplementedError(f"{default_name}: n needs the input's last dimension at graph time")
                x = tiling_ops.pad(x, [[0, 0]] * (x.shape.ndims - 1) + [[0, n - length]])
        return apply_op("_DCT", [x], {"kind": kind, "ortho": norm == "ortho", "transpose": False},
                        name=scope).outputs[0]


@tf_export("signal.dct", "spectral.dct")
def dct(input, type=2, n=None, axis=-1, norm=None, name=None) -> Tensor:  # noqa: A002 - TF1 names
    """The DCT of ``type`` 1-4 over the last axis (scipy's conventions; ``norm='ortho'`` for 2-4).

    ``n`` truncates or zero-pads the last axis first.
    """
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    return _dct(input, type, n, norm, name, "dct")


@tf_export("signal.idct", "spectral.idct")
def idct(input, type=2, n=None, axis=-1, norm=None, name=None) -> Tensor:  # noqa: A002 - TF1 names
    """The inverse of ``dct`` of the same ``type`` (up to a factor 2N, or 2(N-1) for type 1, unless ortho)."""
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    return _dct(input, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, norm, name, "idct")


# -- STFT and MDCT -------------------------------------------------------------------------------------


def _last(x: Tensor):
    """The static size of ``x``'s last axis, or None."""
    return None if x.shape.ndims is None or x.shape.ndims == 0 else x.shape.as_list()[-1]


def _enclosing_power_of_two(value: Tensor):
    v = constant_value(value)
    if v is not None:
        return int(2 ** np.ceil(np.log(v) / np.log(2.0)))
    as_float = math_ops.cast(value, dtypes.float32)
    return math_ops.cast(math_ops.pow(2.0, math_ops.ceil(math_ops.log(as_float) / math.log(2.0))), value.dtype)


def _scalar(value, name: str) -> Tensor:
    t = convert_to_tensor(value, name=name)
    t.shape.with_rank(0)
    return t


def _static_or_tensor(t: Tensor):
    v = constant_value(t)
    return t if v is None else int(v)


def _stft_lengths(frame_length, frame_step, fft_length):
    """The three lengths of an STFT, ints where known at graph time; ``fft_length`` defaults to the power
    of two that encloses ``frame_length``."""
    frame_length = _static_or_tensor(_scalar(frame_length, "frame_length"))
    frame_step = _static_or_tensor(_scalar(frame_step, "frame_step"))
    if fft_length is None:
        return frame_length, frame_step, _enclosing_power_of_two(convert_to_tensor(frame_length))
    return frame_length, frame_step, _static_or_tensor(_scalar(fft_length, "fft_length"))


@tf_export("signal.stft")
def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False,
         name=None) -> Tensor:
    """The short-time Fourier transform ``[..., frames, fft_length // 2 + 1]`` of real ``signals``."""
    with name_scope(name, "stft", [signals, frame_length, frame_step]):
        signals = convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        frame_length, frame_step, fft_length = _stft_lengths(frame_length, frame_step, fft_length)
        framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed = framed * window_fn(frame_length, dtype=framed.dtype)
        return fft_ops.rfft(framed, [fft_length])


@tf_export("signal.inverse_stft_window_fn")
def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """The window ``fn(frame_length, dtype)`` that makes ``inverse_stft`` invert ``stft`` (Griffin-Lim eq. 7)."""

    def inverse_stft_window_fn_inner(frame_length, dtype):
        with name_scope(name, "inverse_stft_window_fn", [forward_window_fn]):
            step = _scalar(frame_step, "frame_step")
            length = _scalar(frame_length, "frame_length")
            forward_window = forward_window_fn(frame_length, dtype=dtype)
            denom = math_ops.square(forward_window)
            overlaps = -(-length // step)
            denom = tiling_ops.pad(denom, array_ops.stack([array_ops.stack([0, overlaps * step - length])]))
            denom = shape_ops.reshape(denom, array_ops.stack([overlaps, step]))
            denom = reduction_ops.reduce_sum(denom, 0, keepdims=True)
            denom = tiling_ops.tile(denom, array_ops.stack([overlaps, 1]))
            denom = shape_ops.reshape(denom, array_ops.stack([overlaps * step]))
            return forward_window / denom[:frame_length]

    return inverse_stft_window_fn_inner


@tf_export("signal.inverse_stft")
def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None) -> Tensor:
    """The signal whose ``stft`` is ``stfts`` (with ``window_fn=inverse_stft_window_fn(...)``)."""
    with name_scope(name, "inverse_stft", [stfts]):
        stfts = convert_to_tensor(stfts, name="stfts")
        stfts.shape.with_rank_at_least(2)
        frame_length, frame_step, fft_length = _stft_lengths(frame_length, frame_step, fft_length)
        real_frames = fft_ops.irfft(stfts, [fft_length])
        if isinstance(frame_length, Tensor) or _last(real_frames) is None:
            real_frames = real_frames[..., :frame_length]
            missing = math_ops.maximum(0, frame_length - shape_ops.shape(real_frames)[-1])
            paddings = array_ops.concat([creation_ops.zeros(array_ops.stack([shape_ops.rank(real_frames) - 1, 2]),
                                                            dtypes.int32),
                                         shape_ops.reshape(array_ops.stack([0, missing]), [1, 2])], 0)
            real_frames = tiling_ops.pad(real_frames, paddings)
        elif _last(real_frames) > frame_length:
            real_frames = real_frames[..., :frame_length]
        elif _last(real_frames) < frame_length:
            pad = frame_length - _last(real_frames)
            real_frames = tiling_ops.pad(real_frames, [[0, 0]] * (real_frames.shape.ndims - 1) + [[0, pad]])
        if window_fn is not None:
            real_frames = real_frames * window_fn(frame_length, dtype=stfts.dtype.real_dtype)
        return overlap_and_add(real_frames, frame_step)


@tf_export("signal.mdct")
def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None) -> Tensor:
    """The modified DCT of frames of ``frame_length`` (a multiple of 4) every ``frame_length // 2`` samples."""
    with name_scope(name, "mdct", [signals, frame_length]):
        signals = convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        length = constant_value(_scalar(frame_length, "frame_length"))
        if length is None:
            raise NotImplementedError("mdct: frame_length must be known at graph time")
        length = int(length)
        if length % 4 != 0:
            raise ValueError("The frame length must be a multiple of 4.")
        framed = frame(signals, length, length // 2, pad_end=pad_end)
        framed = framed * (window_fn(length, dtype=framed.dtype) if window_fn is not None else 1.0 / np.sqrt(2))
        split = array_ops.split(framed, 4, axis=-1)
        first = -slicing_ops.reverse(split[2], [-1]) - split[3]
        second = split[0] - slicing_ops.reverse(split[1], [-1])
        return dct(array_ops.concat([first, second], axis=-1), type=4, norm=norm)


@tf_export("signal.inverse_mdct")
def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None) -> Tensor:
    """The signal whose ``mdct`` is ``mdcts`` (time-domain aliasing cancels with a Princen-Bradley window)."""
    with name_scope(name, "inverse_mdct", [mdcts]):
        mdcts = convert_to_tensor(mdcts, name="mdcts")
        mdcts.shape.with_rank_at_least(2)
        half_len = _last(mdcts)
        if half_len is None:
            raise NotImplementedError("inverse_mdct: the last dimension must be known at graph time")
        if norm is None:
            idct4 = (0.5 / half_len) * dct(mdcts, type=4)
        elif norm == "ortho":
            idct4 = dct(mdcts, type=4, norm="ortho")
        else:
            raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
        a, b = array_ops.split(idct4, 2, axis=-1)
        real_frames = array_ops.concat([b, -slicing_ops.reverse(b, [-1]), -slicing_ops.reverse(a, [-1]), -a], axis=-1)
        real_frames = real_frames * (window_fn(2 * half_len, dtype=mdcts.dtype) if window_fn is not None
                                     else 1.0 / np.sqrt(2))
        return overlap_and_add(real_frames, half_len)


# -- mel filterbank and MFCCs -------------------------------------------------------------------------


def _hertz_to_mel(f):
    return 1127.0 * np.log(1.0 + f / 700.0)


def _tf_linspace(start, stop, num: int, dtype):
    """TF's LinSpace kernel: ``start + i * step`` with the last value exactly ``stop``."""
    t = dtype.type
    step = (t(stop) - t(start)) / t(num - 1) if num > 1 else t(0)
    out = (t(start) + step * np.arange(num).astype(dtype)).astype(dtype)
    if num > 1:
        out[-1] = stop
    return out


def _mel_kernel(sample_rate, *, num_mel_bins, num_spectrogram_bins, lower_edge_hertz, upper_edge_hertz, dtype):
    d = np.dtype(dtype.as_numpy_dtype)
    t = d.type
    sr = t(sample_rate)
    lin = _tf_linspace(t(0), sr / t(2.0), num_spectrogram_bins, d)[1:]
    spec_mel = _hertz_to_mel(lin).astype(d)[:, None]
    edges = _tf_linspace(t(_hertz_to_mel(t(lower_edge_hertz))), t(_hertz_to_mel(t(upper_edge_hertz))),
                         num_mel_bins + 2, d)
    lower, center, upper = edges[:-2], edges[1:-1], edges[2:]
    with np.errstate(all="ignore"):
        lower_slopes = (spec_mel - lower) / (center - lower)
        upper_slopes = (upper - spec_mel) / (upper - center)
    weights = np.maximum(t(0), np.minimum(lower_slopes, upper_slopes)).astype(d)
    return np.pad(weights, [[1, 0], [0, 0]])


def _mel_infer(op):
    a = op._attrs
    return [(a["dtype"], TensorShape([a["num_spectrogram_bins"], a["num_mel_bins"]]))]


register("_LinearToMelWeightMatrix", infer=_mel_infer, kernel=_mel_kernel, gpu=False)
not_differentiable("_LinearToMelWeightMatrix")


@tf_export("signal.linear_to_mel_weight_matrix")
def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000, lower_edge_hertz=125.0,
                                upper_edge_hertz=3800.0, dtype=dtypes.float32, name=None) -> Tensor:
    """The ``[num_spectrogram_bins, num_mel_bins]`` matrix of triangular mel filters (HTK mel scale)."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "linear_to_mel_weight_matrix") as scope:
        if isinstance(sample_rate, Tensor):
            static = constant_value(sample_rate)
            sample_rate = sample_rate if static is None else float(static)
        if num_mel_bins <= 0:
            raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
        if lower_edge_hertz < 0.0:
            raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
        if lower_edge_hertz >= upper_edge_hertz:
            raise ValueError(f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz {upper_edge_hertz:.1f}")
        if not isinstance(sample_rate, Tensor):
            if sample_rate <= 0.0:
                raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
            if upper_edge_hertz > sample_rate / 2:
                raise ValueError("upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). "
                                 f"Got {upper_edge_hertz} for sample_rate: {sample_rate}")
        if not dtype.is_floating:
            raise ValueError(f"dtype must be a floating point type. Got: {dtype}")
        rate = math_ops.cast(sample_rate, dtypes.float64, name="sample_rate")
        attrs = {"num_mel_bins": int(num_mel_bins), "num_spectrogram_bins": int(num_spectrogram_bins),
                 "lower_edge_hertz": float(lower_edge_hertz), "upper_edge_hertz": float(upper_edge_hertz),
                 "dtype": dtype}
        return apply_op("_LinearToMelWeightMatrix", [rate], attrs, name=scope).outputs[0]


@tf_export("signal.mfccs_from_log_mel_spectrograms")
def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None) -> Tensor:
    """MFCCs: the orthonormal-scaled DCT-II of log-mel spectrograms ``[..., num_mel_bins]``."""
    with name_scope(name, "mfccs_from_log_mel_spectrograms", [log_mel_spectrograms]):
        x = convert_to_tensor(log_mel_spectrograms)
        if _last(x) is not None:
            num_mel_bins = _last(x)
            if num_mel_bins == 0:
                raise ValueError(f"num_mel_bins must be positive. Got: {x}")
        else:
            num_mel_bins = shape_ops.shape(x)[-1]
        dct2 = dct(x, type=2)
        return dct2 * math_ops.rsqrt(math_ops.cast(num_mel_bins, dct2.dtype) * 2.0)
