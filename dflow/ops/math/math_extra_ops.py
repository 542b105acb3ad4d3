"""The rest of ``tf.math``: safe products and logarithms (``xlogy``, ``xdivy``, ``multiply_no_nan``),
``nextafter``, ``polyval``, ``reduce_euclidean_norm``, ``log_sigmoid``, complex numbers (``complex``,
``real``, ``imag``, ``angle``), ``confusion_matrix`` and TF1's deprecated aliases (``arg_max``,
``to_complex64``, ``accumulate_n``).

Each op is one block: kernel, registration through the shared table helpers,
and TF's gradient. Composite functions build the ops TF builds, under the names
TF gives them (``tf.math.log_sigmoid`` is ``Neg(Softplus(Neg(x)))`` named
``LogSigmoid``).
"""

from __future__ import annotations

import math

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, broadcast_shapes
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument
from dflow.ops.array import array_ops, creation_ops, select_ops, tiling_ops
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.math._math_common import (
    _COMPLEX,
    _FC,
    NUMERIC_DTYPES,
    _binary_infer,
    _def_binary,
    _out,
    binary,
    check_dtype,
    convert_pair,
)

# -- x·log(y), x/y and x·y that are 0 where x (or y) is 0 --------------------------------------------


def _zero_where(cond, value):
    xp = array_module(value)
    return xp.where(cond, value.dtype.type(0), value)


def _xlogy(x, y):
    with np.errstate(all="ignore"):
        return _zero_where(x == 0, x * np.log(y))


def _xlog1py(x, y):
    with np.errstate(all="ignore"):
        return _zero_where(x == 0, x * np.log1p(y))


def _xdivy(x, y):
    with np.errstate(all="ignore"):
        return _zero_where(x == 0, x / y)


def _mul_no_nan(x, y):
    with np.errstate(all="ignore"):
        return _zero_where(y == 0, x * y)


register("Xlogy", infer=_binary_infer(_FC), kernel=_xlogy, foldable=True)
register("Xlog1py", infer=_binary_infer(_FC), kernel=_xlog1py, foldable=True)
register("Xdivy", infer=_binary_infer(_FC), kernel=_xdivy, foldable=True)
register("MulNoNan", infer=_binary_infer(_FC), kernel=_mul_no_nan, foldable=True)
nextafter = _def_binary("nextafter", "NextAfter", np.nextafter,
                        frozenset({dtypes.float32, dtypes.float64}),
                        "The next representable value after x1 in the direction of x2.", ("math.nextafter",))


@tf_export("math.xlogy")
def xlogy(x, y, name=None) -> Tensor:
    """``x * log(y)``, and 0 where ``x`` is 0 (even where ``y`` is NaN, as TF)."""
    return binary("Xlogy", x, y, name)


def _scoped_binary(op_type: str, scope_name: str, x, y, name, op_name: str | None) -> Tensor:
    with name_scope(name, scope_name, [x, y]) as scope:
        x, y = convert_pair(x, y, op_type)
        return _out(op_type, [x, y], None, op_name or scope)


@tf_export("math.xlog1py")
def xlog1py(x, y, name=None) -> Tensor:
    """``x * log1p(y)``, and 0 where ``x`` is 0 (even where ``y`` is NaN, as TF)."""
    return _scoped_binary("Xlog1py", "xlog1py", x, y, name, "Xlog1py")


@tf_export("math.xdivy")
def xdivy(x, y, name=None) -> Tensor:
    """``x / y``, and 0 where ``x`` is 0 (even where ``y`` is NaN, as TF)."""
    return _scoped_binary("Xdivy", "xdivy", x, y, name, "Xdivy")


@tf_export("math.multiply_no_nan")
def multiply_no_nan(x, y, name=None) -> Tensor:
    """``x * y``, and 0 where ``y`` is 0 even if ``x`` is NaN or infinite."""
    return _scoped_binary("MulNoNan", "multiply_no_nan", x, y, name, None)


@tf_export("math.reciprocal_no_nan")
def reciprocal_no_nan(x, name=None) -> Tensor:
    """``1 / x``, and 0 where ``x`` is 0."""
    with name_scope(name, "reciprocal_no_nan", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        one = constant(1, dtype=x.dtype, name="one")
        return _out("DivNoNan", [one, x], None, scope)


def _not_zero(x):
    return math_ops.cast(math_ops.not_equal(x, 0), x.dtype)


def _broadcast_grads(op, gx, gy):
    x, y = op._inputs
    return [tiling_ops.unbroadcast(gx, x, (y,)), tiling_ops.unbroadcast(gy, y, (x,))]


@gradient("Xlogy")
def _xlogy_grad(op, grad):
    x, y = op._inputs
    return _broadcast_grads(op, grad * xlogy(_not_zero(x), y), grad * xdivy(x, y))


@gradient("Xlog1py")
def _xlog1py_grad(op, grad):
    x, y = op._inputs
    return _broadcast_grads(op, grad * xlog1py(_not_zero(x), y), grad * xdivy(x, y + 1))


@gradient("Xdivy")
def _xdivy_grad(op, grad):
    x, y = op._inputs
    return _broadcast_grads(op, grad * xdivy(_not_zero(x), y), grad * xdivy(math_ops.negative(x), y ** 2))


@gradient("MulNoNan")
def _mul_no_nan_grad(op, grad):
    x, y = op._inputs
    return _broadcast_grads(op, multiply_no_nan(grad, y), multiply_no_nan(x, grad))


@gradient("NextAfter")
def _nextafter_grad(op, grad):
    """As TF: 1 for x1, 0 for x2."""
    x1, x2 = op._inputs
    return _broadcast_grads(op, creation_ops.ones_like(x1) * creation_ops.ones_like(grad),
                            creation_ops.zeros_like(x2) * creation_ops.zeros_like(grad))


# -- composites -------------------------------------------------------------------------------


@tf_export("math.polyval")
def polyval(coeffs, x, name=None) -> Tensor:
    """``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule, as TF builds it."""
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError(f"Argument coeffs must be list type found {type(coeffs)}.")
    with name_scope(name, "polyval", [*coeffs, x]) as scope:
        x = convert_to_tensor(x, name="x")
        if not coeffs:
            return creation_ops.zeros_like(x, name=scope)
        coeffs = [convert_to_tensor(c, name=f"coeff_{i}") for i, c in enumerate(coeffs)]
        p = coeffs[0]
        for c in coeffs[1:]:
            p = c + p * x
        return p


@tf_export("math.log_sigmoid", "log_sigmoid")
def log_sigmoid(x, name=None) -> Tensor:
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large |x|."""
    with name_scope(name, "LogSigmoid", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return math_ops.negative(nn_activations.softplus(-x), name=scope)


@tf_export("math.accumulate_n", "accumulate_n")
def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None) -> Tensor:
    """Deprecated alias of ``add_n`` (TF 2.15 builds ``AddN``); ``shape`` and ``tensor_dtype`` are checked."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    inputs = [convert_to_tensor(t) for t in inputs]
    if tensor_dtype is not None and any(t.dtype is not dtypes.as_dtype(tensor_dtype) for t in inputs):
        raise TypeError(f"tensor_dtype is {dtypes.as_dtype(tensor_dtype).name}, but input is of type "
                        f"{inputs[0].dtype.name}")
    if shape is not None:
        for t in inputs:
            if not t.shape.is_compatible_with(shape):
                raise ValueError(f"Shapes {t.shape} and {shape} are incompatible")
    return math_ops.add_n(inputs, name=name)


# -- reduce_euclidean_norm ---------------------------------------------------------------------------


def _euclidean_norm(x, axis=None, keep_dims=False):
    axes = reduction_ops._axes(axis)
    if x.dtype.kind == "c":
        sq = (x * x.conj()).real
        return np.sqrt(sq.sum(axis=axes, keepdims=keep_dims)).astype(x.dtype)
    if x.dtype.kind in "iu":
        total = np.square(x.astype(np.float64)).sum(axis=axes, keepdims=keep_dims)
        return np.sqrt(total).astype(x.dtype)
    return np.sqrt(np.square(x).sum(axis=axes, keepdims=keep_dims)).astype(x.dtype)


register("EuclideanNorm", infer=reduction_ops._reduce_infer(NUMERIC_DTYPES), kernel=_euclidean_norm)


@gradient("EuclideanNorm")
def _euclidean_norm_grad(op, grad):
    """TF's rule: x / (norm / grad), the norm and grad given the reduced dimensions back."""
    output = reduction_ops._with_reduced_dims(op, op._outputs[0])
    grad = reduction_ops._with_reduced_dims(op, grad)
    return [math_ops.truediv(op._inputs[0], output / grad), *[None] * (len(op._inputs) - 1)]


@tf_export("math.reduce_euclidean_norm")
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """``sqrt(sum(|x|²))`` over ``axis`` (None: all); integer inputs give the truncated integer norm."""
    return reduction_ops._reduce("EuclideanNorm", input_tensor, axis, keepdims, name, None, None)


# -- complex numbers ----------------------------------------------------------------------------------

_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


def _complex_infer(op):
    re, im = op._inputs
    check_dtype(op, "real", re._dtype, frozenset(_COMPLEX_OF))
    if im._dtype is not re._dtype:
        raise TypeError(f"Input 'imag' of 'Complex' Op has type {im._dtype.name} that does not match type "
                        f"{re._dtype.name} of argument 'real'.")
    return [(_COMPLEX_OF[re._dtype], broadcast_shapes(re._shape, im._shape))]


def _part_infer(op):
    x = op._inputs[0]
    check_dtype(op, "input", x._dtype, _COMPLEX)
    return [(x._dtype.real_dtype, x._shape)]


register("Complex", infer=_complex_infer, kernel=lambda re, im, Tout: (re + 1j * im).astype(Tout.as_numpy_dtype))
register("Real", infer=_part_infer, kernel=lambda x, Tout: x.real.copy())
register("Imag", infer=_part_infer, kernel=lambda x, Tout: x.imag.copy())
register("Angle", infer=_part_infer, kernel=lambda x, Tout: np.angle(x).astype(Tout.as_numpy_dtype))


@tf_export("complex", "dtypes.complex")
def complex(real, imag, name=None) -> Tensor:  # noqa: A001 - TF1 name
    """``real + i·imag``: complex64 from float32 parts, complex128 from float64 parts."""
    with name_scope(name, "Complex", [real, imag]) as scope:
        re = convert_to_tensor(real, name="real")
        im = convert_to_tensor(imag, name="imag")
        if re.dtype not in _COMPLEX_OF or im.dtype is not re.dtype:
            raise TypeError(f"real and imag must be both float32 or both float64, got {re.dtype.name} and "
                            f"{im.dtype.name}")
        return _out("Complex", [re, im], {"Tout": _COMPLEX_OF[re.dtype]}, scope)


def _part(op_type: str, x, name, real_input):
    with name_scope(name, op_type, [x]) as scope:
        x = convert_to_tensor(x, name="input")
        if x.dtype.is_complex:
            return _out(op_type, [x], {"Tout": x.dtype.real_dtype}, scope)
        return real_input(x)


@tf_export("math.real", "real")
def real(input, name=None) -> Tensor:  # noqa: A002 - TF1 name
    """The real part of a complex tensor; a real tensor itself."""
    if isinstance(input, Tensor) and not input.dtype.is_complex:
        return input
    return _part("Real", input, name, lambda x: x)


@tf_export("math.imag", "imag")
def imag(input, name=None) -> Tensor:  # noqa: A002 - TF1 name
    """The imaginary part of a complex tensor; zeros for a real tensor."""
    return _part("Imag", input, name, lambda x: creation_ops.zeros_like(x))


@tf_export("math.angle", "angle")
def angle(input, name=None) -> Tensor:  # noqa: A002 - TF1 name
    """The argument of a complex tensor (atan2(imag, real)); of a real one, π where it is negative, else 0."""
    def real_angle(x):
        return select_ops.where(math_ops.less(x, 0), math.pi * creation_ops.ones_like(x),
                                creation_ops.zeros_like(x))
    return _part("Angle", input, name, real_angle)


@gradient("Complex")
def _complex_grad(op, grad):
    return _broadcast_grads(op, real(grad), imag(grad))


@gradient("Real")
def _real_grad(op, grad):
    return [complex(grad, creation_ops.zeros_like(grad))]


@gradient("Imag")
def _imag_grad(op, grad):
    return [complex(creation_ops.zeros_like(grad), grad)]


@gradient("Angle")
def _angle_grad(op, grad):
    x = op._inputs[0]
    z = math_ops.reciprocal(complex(imag(x), real(x)))
    return [-complex(grad, creation_ops.zeros_like(grad)) * z]


@tf_export("to_complex64")
def to_complex64(x, name="ToComplex64") -> Tensor:
    """Deprecated: ``tf.cast(x, tf.complex64)``."""
    return math_ops.cast(x, dtypes.complex64, name=name)


@tf_export("to_complex128")
def to_complex128(x, name="ToComplex128") -> Tensor:
    """Deprecated: ``tf.cast(x, tf.complex128)``."""
    return math_ops.cast(x, dtypes.complex128, name=name)


@tf_export("to_bfloat16")
def to_bfloat16(x, name="ToBFloat16") -> Tensor:
    """Not available: numpy, and so dflow, has no bfloat16 dtype."""
    raise NotImplementedError("to_bfloat16: dflow has no bfloat16 dtype (numpy has none); cast to float16 or "
                              "float32 instead")


# -- deprecated argmax spellings and confusion_matrix -------------------------------------------------


@tf_export("arg_max")
def arg_max(input, dimension, name=None, output_type=dtypes.int64) -> Tensor:  # noqa: A002 - TF1 name
    """Deprecated: ``tf.math.argmax(input, dimension)``."""
    return reduction_ops.argmax(input, axis=dimension, name=name, output_type=output_type)


@tf_export("arg_min")
def arg_min(input, dimension, name=None, output_type=dtypes.int64) -> Tensor:  # noqa: A002 - TF1 name
    """Deprecated: ``tf.math.argmin(input, dimension)``."""
    return reduction_ops.argmin(input, axis=dimension, name=name, output_type=output_type)


@tf_export("math.confusion_matrix", "confusion_matrix")
def confusion_matrix(labels, predictions, num_classes=None, dtype=dtypes.int32, name=None, weights=None) -> Tensor:
    """The ``[num_classes, num_classes]`` matrix counting (label, prediction) pairs (weighted by ``weights``).

    Built as TF builds it: checks that labels and predictions are non-negative
    (and below ``num_classes``), then ``ScatterNd`` of ones (or weights).
    """
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "confusion_matrix", [predictions, labels, num_classes, weights]):
        labels = convert_to_tensor(labels, name="labels")
        predictions = convert_to_tensor(predictions, name="predictions")
        predictions = math_ops.cast(predictions, dtypes.int64)
        labels = math_ops.cast(labels, dtypes.int64)
        labels = control_flow_ops.with_dependencies(
            [check_ops.assert_non_negative(labels, message="`labels` contains negative values")], labels)
        predictions = control_flow_ops.with_dependencies(
            [check_ops.assert_non_negative(predictions, message="`predictions` contains negative values")],
            predictions)
        if num_classes is None:
            num_classes = math_ops.maximum(reduction_ops.reduce_max(predictions),
                                           reduction_ops.reduce_max(labels)) + 1
        else:
            n64 = math_ops.cast(num_classes, dtypes.int64)
            labels = control_flow_ops.with_dependencies(
                [check_ops.assert_less(labels, n64, message="`labels` out of bound")], labels)
            predictions = control_flow_ops.with_dependencies(
                [check_ops.assert_less(predictions, n64, message="`predictions` out of bound")], predictions)
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            predictions.shape.assert_is_compatible_with(weights.shape)
            weights = math_ops.cast(weights, dtype)
        shape = array_ops.stack([num_classes, num_classes])
        indices = array_ops.stack([labels, predictions], axis=1)
        values = creation_ops.ones_like(predictions, dtype) if weights is None else weights
        return gather_ops.scatter_nd(indices, values, math_ops.cast(shape, dtypes.int64))


# Joe and Kuo's direction numbers (new-joe-kuo-6.21201: dimension, degree s, polynomial a, m_1..m_s) for
# dimensions 2-32; dimension 1 is the van der Corput sequence. TF ships all 21201; these first rows give
# TF's points exactly.
_JOE_KUO = """2 1 0 1|3 2 1 1 3|4 3 1 1 3 1|5 3 2 1 1 1|6 4 1 1 1 3 3|7 4 4 1 3 5 13|8 5 2 1 1 5 5 17|9 5 4 1 1 5 5 5|
10 5 7 1 1 7 11 19|11 5 11 1 1 5 1 1|12 5 13 1 1 1 3 11|13 5 14 1 3 5 5 31|14 6 1 1 3 3 9 7 49|
15 6 13 1 1 1 15 21 21|16 6 16 1 3 1 13 27 49|17 6 19 1 1 1 15 7 5|18 6 22 1 3 1 15 13 25|19 6 25 1 1 5 5 19 61|
20 7 1 1 3 7 11 23 15 103|21 7 4 1 3 7 13 13 15 69|22 7 7 1 1 3 13 7 35 63|23 7 8 1 3 5 9 1 25 53|
24 7 14 1 3 1 13 9 35 107|25 7 19 1 3 1 5 27 61 31|26 7 21 1 1 5 11 19 41 61|27 7 28 1 3 5 3 3 13 69|
28 7 31 1 1 7 13 1 19 1|29 7 32 1 3 7 5 13 19 59|30 7 37 1 1 3 9 25 29 41|31 7 41 1 3 5 13 23 1 55|
32 7 42 1 3 7 3 13 59 17"""
_SOBOL_BITS = 32
_SOBOL_MAX_DIM = 32


def _sobol_directions(dim: int) -> np.ndarray:
    """``[dim, 32]`` direction numbers (uint64), by Joe and Kuo's recurrence."""
    rows = [[int(v) for v in r.split()] for r in _JOE_KUO.replace("\n", "").split("|")]
    out = np.zeros((dim, _SOBOL_BITS), np.uint64)
    out[0] = [1 << (_SOBOL_BITS - k) for k in range(1, _SOBOL_BITS + 1)]
    for j in range(1, dim):
        _, s, a, *m = rows[j - 1]
        v = [0] * (_SOBOL_BITS + 1)
        for k in range(1, s + 1):
            v[k] = m[k - 1] << (_SOBOL_BITS - k)
        for k in range(s + 1, _SOBOL_BITS + 1):
            x = v[k - s] ^ (v[k - s] >> s)
            for i in range(1, s):
                if (a >> (s - 1 - i)) & 1:
                    x ^= v[k - i]
            v[k] = x
        out[j] = v[1:]
    return out


def _check_sobol_dim(dim: int) -> None:
    if dim > _SOBOL_MAX_DIM:
        raise NotImplementedError(f"sobol_sample: dflow ships Joe and Kuo's direction numbers for dimensions 1-"
                                  f"{_SOBOL_MAX_DIM} only (TF's table has 21201), got dim={dim}")


def _sobol_kernel(dim, num_results, skip, dtype):
    dim, n, skip = int(dim), int(num_results), int(skip)
    if dim < 1 or n < 1 or skip < 0:
        raise invalid_argument(f"sobol_sample: dim and num_results must be positive and skip non-negative, got "
                               f"{dim}, {n}, {skip}")
    _check_sobol_dim(dim)
    index = np.arange(skip + 1, skip + n + 1, dtype=np.uint64)  # TF leaves out the origin, point 0
    gray = index ^ (index >> np.uint64(1))
    points = np.zeros((n, dim), np.uint64)
    for b, v in enumerate(_sobol_directions(dim).T):
        points ^= np.where(((gray >> np.uint64(b)) & np.uint64(1)).astype(bool)[:, None], v[None, :], np.uint64(0))
    return (points.astype(np.float64) / 2.0 ** _SOBOL_BITS).astype(dtype.as_numpy_dtype)


def _sobol_infer(op):
    dim, n = (constant_value(t) for t in op._inputs[:2])
    return [(op._attrs["dtype"], TensorShape([None if n is None else int(n), None if dim is None else int(dim)]))]


register("SobolSample", infer=_sobol_infer, kernel=_sobol_kernel, gpu=False)
not_differentiable("SobolSample")


@tf_export("math.sobol_sample")
def sobol_sample(dim, num_results, skip=0, dtype=dtypes.float32, name=None) -> Tensor:
    """``[num_results, dim]`` points of the Sobol sequence (Joe-Kuo directions), after ``skip`` points, as TF.

    Dimensions up to 32 are available (see ``docs/porting.md``).
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.float32, dtypes.float64):
        raise TypeError(f"sobol_sample: dtype must be float32 or float64, got {dtype.name}")
    with name_scope(name, "sobol"):
        args = [convert_to_tensor(v, dtype=dtypes.int32, name=n)
                for v, n in ((dim, "dim"), (num_results, "num_results"), (skip, "skip"))]
        static_dim = constant_value(args[0])
        if static_dim is not None:
            _check_sobol_dim(int(static_dim))
        return apply_op("SobolSample", args, {"dtype": dtype}, name="SobolSample").outputs[0]


from dflow.ops.array import gather_ops  # noqa: E402
from dflow.ops.control_flow import control_flow_ops  # noqa: E402
from dflow.ops.debugging import check_ops  # noqa: E402 - check_ops imports math_ops, which is complete by now
from dflow.ops.nn import nn_activations  # noqa: E402
