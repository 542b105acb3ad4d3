"""tf.signal's windows: Hann, Hamming, Vorbis, Kaiser and Kaiser-Bessel-derived.

One op, ``_Window``, computes any of them with numpy from TF's formulas, in
the requested dtype and in TF's order of operations, so float32 windows agree
with TF's to the last bit or two. ``window_length`` may be a tensor.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, constant_value, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import bessel as bk
from dflow.ops._common import invalid_argument
from dflow.ops.array.index_args import index_arg, split_index_args

# -- windows ------------------------------------------------------------------------------------------


def _window_values(length: int, kind: str, periodic: bool, beta: float, dtype):
    """TF's window formulas, evaluated in ``dtype`` as TF evaluates them."""
    t = dtype.type
    if kind in ("hann", "hamming"):
        if length == 1:
            return np.ones([1], dtype)
        a, b = (0.5, 0.5) if kind == "hann" else (0.54, 0.46)
        even = 1 - length % 2
        n = t(length + int(periodic) * even - 1)
        count = np.arange(length).astype(dtype)
        cos_arg = t(2 * np.pi) * count / n
        return (t(a) - t(b) * np.cos(cos_arg)).astype(dtype)
    if kind == "vorbis":
        arg = np.arange(length).astype(dtype)
        inner = np.sin(t(np.pi) / t(length) * (arg + t(0.5)))
        return np.sin(t(np.pi / 2.0) * np.power(inner, t(2.0))).astype(dtype)
    if kind == "kaiser":
        if length == 1:
            return np.ones([1], dtype)
        half32 = (np.float32(length) - np.float32(1.0)) / np.float32(2.0)
        arg = np.arange(-half32, half32 + np.float32(0.1), dtype=np.float32).astype(dtype)
        half = t(half32)
        num = t(beta) * np.sqrt(np.maximum(t(1.0) - np.square(arg / half), t(0)))
        i0e = (lambda v: bk.bessel_i0e(v).astype(dtype))
        return (np.exp(num - t(beta)) * (i0e(num) / i0e(np.asarray(beta, dtype)))).astype(dtype)
    # kaiser_bessel_derived
    kw = _window_values(length // 2 + 1, "kaiser", periodic, beta, dtype)
    csum = np.cumsum(kw, dtype=dtype)
    halfw = np.sqrt(csum[:-1] / csum[-1])
    return np.concatenate([halfw, halfw[::-1]]).astype(dtype)


def _window_kernel(window_length=None, *, kind, periodic, beta, dtype):
    n = int(window_length)
    if n < 0:
        raise invalid_argument(f"{kind}_window: window_length must be non-negative, got {n}")
    with np.errstate(all="ignore"):
        return _window_values(n, kind, periodic, beta, np.dtype(dtype.as_numpy_dtype))


def _window_infer(op):
    n = index_arg(op, "window_length", 0)[0]
    return [(op._attrs["dtype"], TensorShape([None if n is None else int(n)]))]


register("_Window", infer=_window_infer, kernel=_window_kernel, gpu=False)
not_differentiable("_Window")


def _window(kind: str, default_name: str, window_length, periodic, beta, dtype, name) -> Tensor:
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    with name_scope(name, default_name, [window_length, periodic]) as scope:
        if isinstance(periodic, Tensor):
            periodic = constant_value(periodic)
            if periodic is None:
                raise NotImplementedError(f"{default_name}: periodic must be known at graph time")
        inputs, attrs = split_index_args({"window_length": window_length}, scalars=("window_length",))
        attrs.update(kind=kind, periodic=bool(periodic), beta=float(beta), dtype=dtype)
        return apply_op("_Window", inputs, attrs, name=scope).outputs[0]


@tf_export("signal.hann_window")
def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None) -> Tensor:
    """``0.5 - 0.5 cos(2πn / N)`` (N = length, or length - 1 unless ``periodic``)."""
    return _window("hann", "hann_window", window_length, periodic, 0.0, dtype, name)


@tf_export("signal.hamming_window")
def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None) -> Tensor:
    """``0.54 - 0.46 cos(2πn / N)`` (N = length, or length - 1 unless ``periodic``)."""
    return _window("hamming", "hamming_window", window_length, periodic, 0.0, dtype, name)


@tf_export("signal.vorbis_window")
def vorbis_window(window_length, dtype=dtypes.float32, name=None) -> Tensor:
    """The Vorbis power-complementary window ``sin(π/2 sin²(π(n + ½)/N))``."""
    return _window("vorbis", "vorbis_window", window_length, False, 0.0, dtype, name)


@tf_export("signal.kaiser_window")
def kaiser_window(window_length, beta=12.0, dtype=dtypes.float32, name=None) -> Tensor:
    """The Kaiser window of shape parameter ``beta``."""
    return _window("kaiser", "kaiser_window", window_length, False, beta, dtype, name)


@tf_export("signal.kaiser_bessel_derived_window")
def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=dtypes.float32, name=None) -> Tensor:
    """The Kaiser-Bessel-derived window (even ``window_length``), for MDCTs."""
    return _window("kbd", "kaiser_bessel_derived_window", window_length, False, beta, dtype, name)
