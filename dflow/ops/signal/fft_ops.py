"""Fourier transforms: ``tf.signal.fft`` ... ``irfftnd`` (also under ``tf.spectral`` and top level) and
``fftshift``/``ifftshift``.

One op type per TF op (``FFT``, ``IRFFT2D``, ``RFFTND``, ...), all served by
one numpy kernel, ``_transform``, parameterised by the kind of transform
(complex forward/inverse, real-to-complex, complex-to-real) and the axes it
runs over. ``fft_length`` follows TF: each transformed axis of the input is
cropped or zero-padded to its length (to ``fft_length[-1] // 2 + 1`` on the
innermost axis of an inverse real transform), which is exactly the ``s``
argument of ``numpy.fft``. float32 inputs give complex64, float64 complex128.

Gradients are the adjoint transforms (TF's rules, here for every rank): a
complex FFT's is ``n · ifft``; a real FFT's is the real part of ``n · ifft`` of
the half spectrum zero-extended; an inverse real FFT's is the ``rfft`` of the
incoming gradient with the duplicated bins doubled, over ``n``. Each crops or
pads back to the input's shape.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape, unknown_shape
from dflow.kernels import array_module
from dflow.ops.array.index_args import index_arg, split_index_args

_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}
_REAL_OF = {c: r for r, c in _COMPLEX_OF.items()}

# op type -> (kind, rank); rank None: the ND ops, whose axes are an argument.
_OPS = {
    "FFT": ("c2c", 1), "FFT2D": ("c2c", 2), "FFT3D": ("c2c", 3), "FFTND": ("c2c", None),
    "IFFT": ("ic2c", 1), "IFFT2D": ("ic2c", 2), "IFFT3D": ("ic2c", 3), "IFFTND": ("ic2c", None),
    "RFFT": ("r2c", 1), "RFFT2D": ("r2c", 2), "RFFT3D": ("r2c", 3), "RFFTND": ("r2c", None),
    "IRFFT": ("c2r", 1), "IRFFT2D": ("c2r", 2), "IRFFT3D": ("c2r", 3), "IRFFTND": ("c2r", None),
}


def _axes_for(ndim: int, rank, axes) -> tuple:
    if axes is None:
        return tuple(range(ndim - rank, ndim))
    return tuple(int(a) % ndim for a in np.ravel(axes))


def _transform(x, fft_length=None, axes=None, *, kind: str, rank, out_dtype):
    """The kernel of every FFT op: ``numpy.fft`` on ``axes`` (the innermost ``rank`` by default)."""
    xp = array_module(x)
    ax = _axes_for(x.ndim, rank, axes)
    s = None if fft_length is None else [int(n) for n in np.ravel(fft_length)]
    fn = {"c2c": xp.fft.fftn, "ic2c": xp.fft.ifftn, "r2c": xp.fft.rfftn, "c2r": xp.fft.irfftn}[kind]
    if kind == "c2r" and s is not None and 0 in s:
        shape = list(x.shape)
        for a, n in zip(ax, s):
            shape[a] = n
        return xp.zeros(shape, out_dtype.as_numpy_dtype)
    if x.size == 0 or not ax:
        return x.astype(out_dtype.as_numpy_dtype)
    return fn(x, s=s, axes=ax).astype(out_dtype.as_numpy_dtype, copy=False)


def _fft_infer(op):
    kind, rank = _OPS[op.type]
    x = op._inputs[0]
    if kind in ("c2c", "ic2c"):
        allowed, out = _REAL_OF, x._dtype
    elif kind == "r2c":
        allowed, out = _COMPLEX_OF, op._attrs["out_dtype"]
    else:
        allowed, out = _REAL_OF, op._attrs["out_dtype"]
    if x._dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise TypeError(f"Value passed to parameter 'input' of '{op.name}' (op: {op.type}) has DataType "
                        f"{x._dtype.name} not in list of allowed values: {names}")
    ndim = x._shape.ndims
    if ndim is None:
        return [(out, unknown_shape())]
    if rank is not None and ndim < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {ndim}")
    lengths = index_arg(op, "fft_length", 1)[0] if "fft_length" in op._attrs or len(op._inputs) > 1 else None
    axes = _op_axes(op)
    dims = x._shape.as_list()
    if axes is None:
        return [(out, unknown_shape(ndim))]
    if lengths is None and (len(op._inputs) > 1 or "fft_length" in op._attrs):
        for a in axes:
            dims[a] = None
        return [(out, TensorShape(dims))]
    if lengths is not None:
        lengths = [int(n) for n in np.ravel(lengths)]
        if len(lengths) != len(axes):
            raise ValueError(f"fft_length must have {len(axes)} elements for {op.type}, got {len(lengths)}")
        for a, n in zip(axes, lengths):
            dims[a] = n
    if kind == "r2c" and axes and dims[axes[-1]] is not None:
        dims[axes[-1]] = dims[axes[-1]] // 2 + 1
    return [(out, TensorShape(dims))]


def _op_axes(op):
    """The transformed axes of ``op`` as non-negative ints, None if not known at graph time."""
    x = op._inputs[0]
    kind, rank = _OPS[op.type]
    ndim = x._shape.ndims
    if rank is not None:
        return tuple(range(ndim - rank, ndim))
    value = index_arg(op, "axes", 2)[0]
    return None if value is None else tuple(int(a) % ndim for a in np.ravel(value))


for _type, (_kind, _rank) in _OPS.items():
    def _make_kernel(op, resources, kind=_kind, rank=_rank):
        out_dtype = op._outputs[0].dtype
        fixed = {k: v for k, v in op._attrs.items() if k in ("fft_length", "axes")}

        def kernel(x, *index_inputs):
            names = [n for n in ("fft_length", "axes") if n not in fixed][:len(index_inputs)]
            args = dict(fixed, **dict(zip(names, index_inputs)))
            return _transform(x, args.get("fft_length"), args.get("axes"), kind=kind, rank=rank,
                              out_dtype=out_dtype)

        return kernel

    register(_type, infer=_fft_infer, make_kernel=_make_kernel, foldable=True)


# -- the API functions --------------------------------------------------------------------------------


def _build(op_type: str, x: Tensor, index_args: dict, attrs: dict, name) -> Tensor:
    inputs, index_attrs = split_index_args(index_args)
    return apply_op(op_type, [x, *inputs], {**attrs, **index_attrs}, name=name).outputs[0]


def _complex_input(x, dtype_hint=dtypes.complex64) -> Tensor:
    x = convert_to_tensor(x, preferred_dtype=dtype_hint, name="input")
    return x


def _def_complex(py_name: str, op_type: str, exports):
    def fn(input, name=None) -> Tensor:  # noqa: A002 - TF's argument name
        if isinstance(input, Tensor):
            return apply_op(op_type, [input], name=name or op_type).outputs[0]
        with name_scope(name or op_type, None, [input]) as scope:
            return apply_op(op_type, [_complex_input(input)], name=scope).outputs[0]

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = f"The {op_type} of the innermost axes of a complex64/complex128 tensor (TF's ``{op_type}``)."
    return tf_export(*exports)(fn)


def _exports(py_name: str, spectral=True, top=True):
    names = [f"signal.{py_name}"]
    if spectral:
        names.append(f"spectral.{py_name}")
    if top:
        names.append(py_name)
    return names


fft = _def_complex("fft", "FFT", _exports("fft"))
ifft = _def_complex("ifft", "IFFT", _exports("ifft"))
fft2d = _def_complex("fft2d", "FFT2D", _exports("fft2d"))
ifft2d = _def_complex("ifft2d", "IFFT2D", _exports("ifft2d"))
fft3d = _def_complex("fft3d", "FFT3D", _exports("fft3d"))
ifft3d = _def_complex("ifft3d", "IFFT3D", _exports("ifft3d"))


def _static_dims(x: Tensor, count: int):
    """The static sizes of ``x``'s innermost ``count`` axes, or None if any is unknown."""
    if x.shape.ndims is None:
        return None
    dims = x.shape.as_list()[x.shape.ndims - count:]
    return None if None in dims else dims


def _def_real(py_name: str, op_type: str, rank: int, inverse: bool):
    def fn(input_tensor, fft_length=None, name=None) -> Tensor:
        with name_scope(name, py_name, [input_tensor, fft_length]) as scope:
            if inverse:
                x = convert_to_tensor(input_tensor, preferred_dtype=dtypes.complex64, name="input_tensor")
                if x.dtype not in _REAL_OF:
                    raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {x}")
                out_dtype = _REAL_OF[x.dtype]
            else:
                x = convert_to_tensor(input_tensor, preferred_dtype=dtypes.float32, name="input_tensor")
                if x.dtype not in _COMPLEX_OF:
                    raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x}")
                out_dtype = _COMPLEX_OF[x.dtype]
            x.shape.with_rank_at_least(rank)
            if fft_length is None:
                fft_length = _static_dims(x, rank)
                if fft_length is None:
                    fft_length = array_ops.shape(x)[-rank:]
                    if inverse:
                        fft_length = array_ops.concat(
                            [fft_length[:-1], math_ops.maximum(0, 2 * (fft_length[-1:] - 1))], 0)
                elif inverse and fft_length:
                    fft_length[-1] = max(0, 2 * (fft_length[-1] - 1))
            return _build(op_type, x, {"fft_length": fft_length}, {"out_dtype": out_dtype}, scope)

    fn.__name__ = fn.__qualname__ = py_name
    kind = "inverse real" if inverse else "real"
    fn.__doc__ = (f"The {kind} FFT of the innermost {rank} axes (TF's ``{op_type}``); each is cropped or "
                  f"zero-padded to ``fft_length``.")
    return tf_export(*_exports(py_name, top=False))(fn)


rfft = _def_real("rfft", "RFFT", 1, False)
irfft = _def_real("irfft", "IRFFT", 1, True)
rfft2d = _def_real("rfft2d", "RFFT2D", 2, False)
irfft2d = _def_real("irfft2d", "IRFFT2D", 2, True)
rfft3d = _def_real("rfft3d", "RFFT3D", 3, False)
irfft3d = _def_real("irfft3d", "IRFFT3D", 3, True)


def _def_nd(py_name: str, op_type: str, kind: str, top: bool):
    forward = kind in ("c2c", "r2c")

    def fn(input_tensor, fft_length=None, axes=None, norm=None, name=None) -> Tensor:
        with name_scope(name, py_name, [input_tensor, fft_length, axes]) as scope:
            hint = dtypes.float32 if kind == "r2c" else dtypes.complex64
            x = convert_to_tensor(input_tensor, preferred_dtype=hint, name="input_tensor")
            ndim = x.shape.ndims
            if ndim is None and (axes is None or fft_length is None):
                raise NotImplementedError(f"{py_name}: an input of unknown rank needs explicit axes and fft_length")
            if axes is None:
                axes = list(range(ndim))
            axes = [int(a) for a in np.ravel(axes)] if not isinstance(axes, Tensor) else axes
            attrs = {}
            if kind == "r2c":
                if x.dtype not in _COMPLEX_OF:
                    raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x}")
                attrs["out_dtype"] = _COMPLEX_OF[x.dtype]
            elif kind == "c2r":
                if x.dtype not in _REAL_OF:
                    raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {x}")
                attrs["out_dtype"] = _REAL_OF[x.dtype]
            if fft_length is None:
                if isinstance(axes, Tensor) or None in [x.shape.as_list()[a] for a in axes]:
                    raise NotImplementedError(f"{py_name}: fft_length is needed when the transformed axes are "
                                              f"not known at graph time")
                fft_length = [x.shape.as_list()[a] for a in axes]
                if kind == "c2r" and fft_length:
                    fft_length[-1] = max(0, 2 * (fft_length[-1] - 1))
            if norm not in (None, "backward", "forward", "ortho"):
                raise ValueError(f"Invalid norm value {norm}; should be 'backward', 'ortho' or 'forward'.")
            if norm in ("forward", "ortho"):
                n = float(np.prod([int(v) for v in np.ravel(fft_length)]))
                factor = n if norm == "forward" else float(np.sqrt(n))
                x = x / factor if forward else x * factor
            return _build(op_type, x, {"fft_length": fft_length, "axes": axes}, attrs, scope)

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = (f"TF's ``{op_type}``: the transform over ``axes`` (default all), each cropped or zero-padded "
                  f"to ``fft_length``; ``norm`` is 'backward' (default), 'forward' or 'ortho'.")
    return tf_export(*_exports(py_name, spectral=False, top=top))(fn)


fftnd = _def_nd("fftnd", "FFTND", "c2c", True)
ifftnd = _def_nd("ifftnd", "IFFTND", "ic2c", True)
rfftnd = _def_nd("rfftnd", "RFFTND", "r2c", True)
irfftnd = _def_nd("irfftnd", "IRFFTND", "c2r", True)


# -- gradients: the adjoint transforms ------------------------------------------------------------------


def _resize(a, axes, sizes):
    """``a`` cropped or zero-padded on ``axes`` to ``sizes``."""
    xp = array_module(a)
    index = [slice(None)] * a.ndim
    pads = [(0, 0)] * a.ndim
    for ax, n in zip(axes, sizes):
        index[ax] = slice(0, n)
        pads[ax] = (0, max(0, n - a.shape[ax]))
    return xp.pad(a[tuple(index)], pads)


def _adjoint(grad, x, fft_length=None, axes=None, *, kind: str, rank):
    """``grad`` through the adjoint of the transform of ``x`` (the gradient with respect to ``x``)."""
    xp = array_module(grad)
    ax = _axes_for(x.ndim, rank, axes)
    in_sizes = [x.shape[a] for a in ax]
    if fft_length is None:
        lengths = in_sizes if kind != "c2r" else in_sizes[:-1] + [2 * (in_sizes[-1] - 1)]
    else:
        lengths = [int(n) for n in np.ravel(fft_length)]
    total = float(np.prod(lengths)) if lengths else 1.0
    if kind == "c2c":
        out = xp.fft.ifftn(grad, axes=ax) * total if ax else grad
    elif kind == "ic2c":
        out = xp.fft.fftn(grad, axes=ax) / total if ax else grad
    elif kind == "r2c":
        full = _resize(grad, ax[-1:], lengths[-1:])
        out = (xp.fft.ifftn(full, axes=ax) * total).real
    else:
        spectrum = xp.fft.rfftn(grad, axes=ax)
        last = lengths[-1]
        weights = xp.full(spectrum.shape[ax[-1]], 2.0)
        weights[0] = 1.0
        if last % 2 == 0 and last // 2 < weights.size:
            weights[last // 2] = 1.0
        shape = [1] * spectrum.ndim
        shape[ax[-1]] = weights.size
        out = spectrum * weights.reshape(shape) / total
    return _resize(out, ax, in_sizes).astype(x.dtype, copy=False)


def _adjoint_infer(op):
    x = op._inputs[1]
    return [(x._dtype, x._shape)]


def _make_adjoint_kernel(op, resources):
    kind, rank = op._attrs["kind"], op._attrs["rank"]
    fixed = {k: v for k, v in op._attrs.items() if k in ("fft_length", "axes")}

    def kernel(grad, x, *index_inputs):
        names = [n for n in ("fft_length", "axes") if n not in fixed][:len(index_inputs)]
        args = dict(fixed, **dict(zip(names, index_inputs)))
        return _adjoint(grad, x, args.get("fft_length"), args.get("axes"), kind=kind, rank=rank)

    return kernel


register("_FFTAdjoint", infer=_adjoint_infer, make_kernel=_make_adjoint_kernel)


def _fft_grad(op, grad):
    kind, rank = _OPS[op.type]
    x = op._inputs[0]
    extra = list(op._inputs[1:])
    attrs = {"kind": kind, "rank": rank}
    attrs.update({k: v for k, v in op._attrs.items() if k in ("fft_length", "axes")})
    dx = apply_op("_FFTAdjoint", [grad, x, *extra], attrs).outputs[0]
    return [dx] + [None] * len(extra)


for _type in _OPS:
    gradient(_type)(_fft_grad)


# -- fftshift ---------------------------------------------------------------------------------------


def _shift(x, axes, name, default_name: str, inverse: bool) -> Tensor:
    with name_scope(name, default_name) as scope:
        x = convert_to_tensor(x)
        if axes is None:
            axes = tuple(range(x.shape.ndims))
        axes_list = [axes] if isinstance(axes, int) else list(axes)
        dims = x.shape.as_list()
        if all(dims[a] is not None for a in axes_list):
            shift = [-(dims[a] // 2) if inverse else dims[a] // 2 for a in axes_list]
        else:
            sizes = array_ops.gather(array_ops.shape(x), axes_list)
            shift = -(sizes // 2) if inverse else sizes // 2
        return partition_ops.roll(x, shift, axes_list, name=scope)


@tf_export("signal.fftshift")
def fftshift(x, axes=None, name=None) -> Tensor:
    """Moves the zero-frequency bin to the centre of ``axes`` (default all), as ``numpy.fft.fftshift``."""
    return _shift(x, axes, name, "fftshift", False)


@tf_export("signal.ifftshift")
def ifftshift(x, axes=None, name=None) -> Tensor:
    """The inverse of ``fftshift`` (they differ by one sample on odd lengths)."""
    return _shift(x, axes, name, "ifftshift", True)


from dflow.ops.array import array_ops, partition_ops  # noqa: E402 - composite helpers
from dflow.ops.math import math_ops  # noqa: E402 - composite helpers
