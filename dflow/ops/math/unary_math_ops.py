"""Element-wise unary math: sign and magnitude, exp/log, roots, trigonometry, rounding.

Each op is one table row (``_def_unary``: shape rule, kernel, exported API
function) followed by its gradient, TF1's ``math_grad`` formula. The
derivatives of tanh, sigmoid, sqrt, rsqrt and reciprocal are computed from the
op's output by a fused ``*Grad`` op each, as in TF1. ``math_ops`` re-exports
every public name here, so ``math_ops.exp`` is ``tf.exp``; binary arithmetic,
comparisons, logic and ``cast`` live there.
"""

from __future__ import annotations

import math

import numpy as np

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.kernels import array_module
from dflow.ops.math._math_common import (
    _B,
    _COMPLEX,
    _FC,
    _SIGNED,
    _SINT,
    FLOAT_DTYPES,
    NUMERIC_DTYPES,
    _binary_infer,
    _def_unary,
    _out,
    _tm,
    _unary_infer,
    check_dtype,
    convert_input,
    unary,
)


def _unary_gradient(op_type: str, rule) -> None:
    """Registers ``rule(x, y, grad) -> dx`` for the unary op ``op_type`` (x its input, y its output)."""
    gradient(op_type)(lambda op, grad: [rule(op._inputs[0], op._outputs[0], grad)])


# -- conj: the first factor of every complex gradient below -----------------------------


register("Conj", infer=_unary_infer(_COMPLEX), kernel=np.conj)


@tf_export("conj", "math.conj")
def conj(x, name=None) -> Tensor:
    """The complex conjugate of ``x``; ``x`` itself for real dtypes (as TF1's ``math_ops.conj``)."""
    x = convert_to_tensor(x)
    return apply_op("Conj", [x], name=name or "Conj").outputs[0] if x._dtype.is_complex else x


_conj = conj


@gradient("Conj")
def _conj_grad(op, grad):
    return [_conj(grad)]


# -- fused gradient ops: ``op(y, dy)`` from the forward op's output y -------------------


def _cj(a):
    return a.conj() if a.dtype.kind == "c" else a


def _fused(op_type: str, y: Tensor, dy: Tensor) -> Tensor:
    return apply_op(op_type, [y, dy]).outputs[0]


def _register_fused(op_type: str, kernel) -> None:
    register(op_type, infer=_binary_infer(_FC), kernel=kernel)


# -- sign and magnitude ----------------------------------------------------------------

negative = _def_unary("negative", "Neg", np.negative, _SIGNED, "``-x`` element-wise.", _tm("negative"))
_unary_gradient("Neg", lambda x, y, g: negative(g))

sign = _def_unary("sign", "Sign", np.sign, _SIGNED, "-1, 0 or 1 by the sign of x (NaN stays NaN).", _tm("sign"))
_unary_gradient("Sign", lambda x, y, g: array_ops.zeros_like(x))

register("Abs", infer=_unary_infer(FLOAT_DTYPES | _SINT), kernel=np.abs)
_unary_gradient("Abs", lambda x, y, g: g * sign(x))


def _complex_abs_infer(op):
    x = op._inputs[0]
    check_dtype(op, "x", x._dtype, _COMPLEX)
    return [(x._dtype.real_dtype, x._shape)]


register("ComplexAbs", infer=_complex_abs_infer, kernel=np.abs)


@gradient("ComplexAbs")
def _complex_abs_grad(op, grad):
    """``grad * x / |x|`` (0 at x == 0)."""
    x = op._inputs[0]
    return [math_ops.div_no_nan(math_ops.cast(grad, x.dtype) * x, math_ops.cast(op._outputs[0], x.dtype))]


@tf_export(*_tm("abs"))
def abs(x, name=None) -> Tensor:  # noqa: A001 - TF1 name
    """``|x|`` element-wise; of a complex tensor, its real magnitude (``ComplexAbs``)."""
    with name_scope(name or "Abs", None, [x]) as scope:
        x = convert_input(x, "x", None, "Abs")
        return _out("ComplexAbs" if x.dtype.is_complex else "Abs", [x], None, scope)


# -- exponentials and logarithms -------------------------------------------------------

exp = _def_unary("exp", "Exp", np.exp, _FC, "``e ** x`` element-wise.", _tm("exp"))
expm1 = _def_unary("expm1", "Expm1", np.expm1, _FC, "``e ** x - 1``, accurate near 0.", _tm("expm1"))
log = _def_unary("log", "Log", np.log, _FC, "Natural logarithm element-wise.", _tm("log"))
log1p = _def_unary("log1p", "Log1p", np.log1p, _FC, "``log(1 + x)``, accurate near 0.", _tm("log1p"))

_unary_gradient("Exp", lambda x, y, g: g * _conj(y))
_unary_gradient("Expm1", lambda x, y, g: g * exp(_conj(x)))
_unary_gradient("Log", lambda x, y, g: g * reciprocal(_conj(x)))
_unary_gradient("Log1p", lambda x, y, g: g * reciprocal(1 + _conj(x)))


# -- powers and roots ------------------------------------------------------------------


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


sqrt = _def_unary("sqrt", "Sqrt", np.sqrt, _FC, "Square root element-wise.", _tm("sqrt"))
rsqrt = _def_unary("rsqrt", "Rsqrt", _rsqrt, _FC, "``1 / sqrt(x)`` element-wise.", _tm("rsqrt"))
square = _def_unary("square", "Square", np.square, NUMERIC_DTYPES, "``x * x`` element-wise.", _tm("square"))
reciprocal = _def_unary("reciprocal", "Reciprocal", np.reciprocal, _FC, "``1 / x`` element-wise.",
                        _tm("reciprocal"))

_unary_gradient("Sqrt", lambda x, y, g: _fused("SqrtGrad", y, g))
_unary_gradient("Rsqrt", lambda x, y, g: _fused("RsqrtGrad", y, g))
_unary_gradient("Square", lambda x, y, g: math_ops.multiply(g, math_ops.multiply(_conj(x), 2)))
_unary_gradient("Reciprocal", lambda x, y, g: _fused("ReciprocalGrad", y, g))


def _sqrt_grad_kernel(y, dy):
    return dy * 0.5 / _cj(y)


def _rsqrt_grad_kernel(y, dy):
    c = _cj(y)
    return dy * c * (c * c) * -0.5


def _reciprocal_grad_kernel(y, dy):
    c = _cj(y)
    return -dy * c * c


_register_fused("SqrtGrad", _sqrt_grad_kernel)
_register_fused("RsqrtGrad", _rsqrt_grad_kernel)
_register_fused("ReciprocalGrad", _reciprocal_grad_kernel)


@gradient("SqrtGrad")
def _sqrt_grad_grad(op, grad):
    ga = grad / op._inputs[0]
    return [-_conj(ga) * op._outputs[0], 0.5 * ga]


@gradient("RsqrtGrad")
def _rsqrt_grad_grad(op, grad):
    a, b = op._inputs
    ca, cg = _conj(a), _conj(grad)
    return [-1.5 * cg * b * square(ca), _fused("RsqrtGrad", ca, grad)]


@gradient("ReciprocalGrad")
def _reciprocal_grad_grad(op, grad):
    a, b = op._inputs
    ca, cg = _conj(a), _conj(grad)
    return [cg * -2 * b * ca, _fused("ReciprocalGrad", ca, grad)]


# -- trigonometric and hyperbolic functions and their inverses -------------------------

sin = _def_unary("sin", "Sin", np.sin, _FC, "Sine element-wise.", _tm("sin"))
cos = _def_unary("cos", "Cos", np.cos, _FC, "Cosine element-wise.", _tm("cos"))
tan = _def_unary("tan", "Tan", np.tan, _FC, "Tangent element-wise.", _tm("tan"))
sinh = _def_unary("sinh", "Sinh", np.sinh, _FC, "Hyperbolic sine element-wise.", _tm("sinh"))
cosh = _def_unary("cosh", "Cosh", np.cosh, _FC, "Hyperbolic cosine element-wise.", _tm("cosh"))
asin = _def_unary("asin", "Asin", np.arcsin, _FC, "Inverse sine element-wise.", _tm("asin"))
acos = _def_unary("acos", "Acos", np.arccos, _FC, "Inverse cosine element-wise.", _tm("acos"))
atan = _def_unary("atan", "Atan", np.arctan, _FC, "Inverse tangent element-wise.", _tm("atan"))
asinh = _def_unary("asinh", "Asinh", np.arcsinh, _FC, "Inverse hyperbolic sine.", _tm("asinh"))
acosh = _def_unary("acosh", "Acosh", np.arccosh, _FC, "Inverse hyperbolic cosine.", _tm("acosh"))
atanh = _def_unary("atanh", "Atanh", np.arctanh, _FC, "Inverse hyperbolic tangent.", _tm("atanh"))


def _one_minus_square(x):
    return 1 - square(x)


_unary_gradient("Sin", lambda x, y, g: g * cos(_conj(x)))
_unary_gradient("Cos", lambda x, y, g: -g * sin(_conj(x)))
_unary_gradient("Tan", lambda x, y, g: square(reciprocal(cos(_conj(x)))) * g)
_unary_gradient("Sinh", lambda x, y, g: g * cosh(_conj(x)))
_unary_gradient("Cosh", lambda x, y, g: g * sinh(_conj(x)))
_unary_gradient("Asin", lambda x, y, g: g * reciprocal(sqrt(_one_minus_square(_conj(x)))))
_unary_gradient("Acos", lambda x, y, g: -g * reciprocal(sqrt(_one_minus_square(_conj(x)))))
_unary_gradient("Atan", lambda x, y, g: g * reciprocal(1 + square(_conj(x))))
_unary_gradient("Asinh", lambda x, y, g: g / cosh(_conj(y)))
_unary_gradient("Acosh", lambda x, y, g: g / sinh(_conj(y)))
_unary_gradient("Atanh", lambda x, y, g: g * reciprocal(_one_minus_square(_conj(x))))


# -- tanh and sigmoid ------------------------------------------------------------------


def _sigmoid(x):
    if x.dtype.kind == "c":
        return np.reciprocal(np.add(1, np.exp(np.negative(x))))
    # exp(min(x, 0)) / (1 + exp(-|x|)): 1/(1+e) for x >= 0 and e/(1+e) for x < 0 (e = exp(-|x|) <= 1),
    # which neither overflows nor loses relative precision for x << 0. Seven calls on two arrays, no
    # where(): 2 - 3.5 times faster than a where() of the two cases (LSTMs call it most). Scalars of
    # x's dtype: a Python scalar costs numpy ~1.5 us a call to resolve (20 x 128: 7.2 against 11.6 us).
    xp = array_module(x)
    zero, one = x.dtype.type(0), x.dtype.type(1)
    num = xp.minimum(x, zero)
    den = xp.abs(x)
    if isinstance(num, np.generic):  # a 0-d input, for which numpy returns scalars
        return (xp.exp(num) / (xp.exp(-den) + one)).astype(x.dtype)
    xp.negative(den, out=den)
    xp.exp(num, out=num)
    xp.exp(den, out=den)
    xp.add(den, one, out=den)
    num /= den
    return num


tanh = _def_unary("tanh", "Tanh", np.tanh, _FC, "Hyperbolic tangent element-wise.", (*_tm("tanh"), "nn.tanh"))
sigmoid = _def_unary("sigmoid", "Sigmoid", _sigmoid, _FC, "``1 / (1 + exp(-x))`` element-wise.",
                     (*_tm("sigmoid"), "nn.sigmoid"))

_unary_gradient("Tanh", lambda x, y, g: _fused("TanhGrad", _conj(y), g))
_unary_gradient("Sigmoid", lambda x, y, g: _fused("SigmoidGrad", _conj(y), g))


def _tanh_grad_kernel(y, dy):
    return dy * (1 - y * y)


def _sigmoid_grad_kernel(y, dy):
    return dy * y * (1 - y)


_register_fused("TanhGrad", _tanh_grad_kernel)
_register_fused("SigmoidGrad", _sigmoid_grad_kernel)


@gradient("TanhGrad")
def _tanh_grad_grad(op, grad):
    a, b = (_conj(t) for t in op._inputs)
    return [grad * -2 * b * a, _fused("TanhGrad", a, grad)]


@gradient("SigmoidGrad")
def _sigmoid_grad_grad(op, grad):
    a, b = (_conj(t) for t in op._inputs)
    gb = grad * b
    return [gb - 2 * gb * a, _fused("SigmoidGrad", a, grad)]


# -- rounding: piecewise constant, so not differentiable (as in TF1) --------------------

rint = _def_unary("rint", "Rint", np.rint, FLOAT_DTYPES, "Rounds half to even.", _tm("rint"))
floor = _def_unary("floor", "Floor", np.floor, FLOAT_DTYPES, "Largest integer not greater than x.", _tm("floor"))
ceil = _def_unary("ceil", "Ceil", np.ceil, FLOAT_DTYPES, "Smallest integer not less than x.", _tm("ceil"))
register("Round", infer=_unary_infer(FLOAT_DTYPES), kernel=np.rint)

for _t in ("Rint", "Floor", "Ceil", "Round"):
    not_differentiable(_t)


@tf_export(*_tm("round"))
def round(x, name=None) -> Tensor:  # noqa: A001 - TF1 name
    """Rounds half to even (banker's rounding); integers are returned as they are.

    >>> # tf.round([0.5, 1.5, 2.5, -0.5]) -> [0., 2., 2., -0.]
    """
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return unary("Round", x, name)


# -- classification: NaN, inf, finite ---------------------------------------------------

is_nan = _def_unary("is_nan", "IsNan", np.isnan, FLOAT_DTYPES, "Where x is NaN.", _tm("is_nan"), _B)
is_inf = _def_unary("is_inf", "IsInf", np.isinf, FLOAT_DTYPES, "Where x is +-inf.", _tm("is_inf"), _B)
is_finite = _def_unary("is_finite", "IsFinite", np.isfinite, FLOAT_DTYPES, "Where x is neither inf nor NaN.",
                       _tm("is_finite"), _B)

for _t in ("IsNan", "IsInf", "IsFinite"):
    not_differentiable(_t)


# -- erf -------------------------------------------------------------------------------

_math_erf = np.frompyfunc(math.erf, 1, 1)


def _make_erf_kernel(op, resources):
    # numpy has no erf: use scipy's where installed (imported only when an Erf op runs), else math.erf.
    try:
        from scipy.special import erf
    except ImportError:
        return lambda x: np.asarray(_math_erf(x), dtype=x.dtype)
    return erf


erf = _def_unary("erf", "Erf", None, FLOAT_DTYPES, "The Gauss error function element-wise.", _tm("erf"),
                 make_kernel=_make_erf_kernel)

_TWO_OVER_ROOT_PI = 2 / math.sqrt(math.pi)

_unary_gradient("Erf", lambda x, y, g: g * _TWO_OVER_ROOT_PI * exp(-square(_conj(x))))


# The gradient rules use these when they build gradients only; importing them last lets
# math_ops import this module first (it re-exports every function here).
from dflow.ops.array import array_ops  # noqa: E402
from dflow.ops.math import math_ops  # noqa: E402
