"""Special functions: the gamma family, incomplete gamma and beta, zeta, inverses of erf, Bessel
functions, Dawson's, exponential and Fresnel integrals, Spence's function.

Each op is one table row (op type, kernel from ``_special_kernels`` or
``_bessel_kernels``, TF1's public names) followed by its gradient, TF's
``math_grad`` formula. Kernels compute in float64 on the host and return the
input's dtype; they are numpy-only (``gpu=False``), so on a GPU device these ops
run on its host. ``lbeta`` and ``erfcinv`` are built from other ops, as in TF.
"""

from __future__ import annotations

import math

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.framework.tensor_shape import broadcast_shapes
from dflow.kernels import bessel as bk
from dflow.kernels import special as sk
from dflow.ops.math._math_common import (
    FLOAT_DTYPES,
    _binary_infer,
    _unary_infer,
    binary,
    check_dtype,
    convert_input,
    unary,
)

# -- element-wise ops: one row each --------------------------------------------------------------


def _def_special(py_name: str, op_type: str, fn, exports, scoped: bool, arity: int = 1):
    """Registers ``op_type`` (kernel ``fn`` on float64) and returns its API function.

    ``scoped`` functions open a name scope ``py_name`` around the op, as TF's
    Python wrappers of ``special_math_ops`` do (``bessel_i0/BesselI0``).
    """
    infer = _unary_infer(FLOAT_DTYPES) if arity == 1 else _binary_infer(FLOAT_DTYPES)
    register(op_type, infer=infer, kernel=sk.float_kernel(fn), gpu=False, foldable=True)

    if arity == 2:
        def api(x, y, name=None) -> Tensor:
            return binary(op_type, x, y, name)
    elif scoped:
        def api(x, name=None) -> Tensor:
            with name_scope(name, py_name, [x]):
                x = convert_input(x, "x", None, op_type)
                return apply_op(op_type, [x], name=op_type).outputs[0]
    else:
        def api(x, name=None) -> Tensor:
            return unary(op_type, x, name)

    api.__name__ = api.__qualname__ = py_name
    api.__doc__ = f"{py_name} element-wise (TF's ``{op_type}`` op); float16, float32 or float64."
    return tf_export(*exports)(api)


def _tm(name):
    return (name, f"math.{name}")


lgamma = _def_special("lgamma", "Lgamma", sk.lgamma, _tm("lgamma"), False)
digamma = _def_special("digamma", "Digamma", sk.digamma, _tm("digamma"), False)
erfc = _def_special("erfc", "Erfc", sk.erfc, _tm("erfc"), False)
erfinv = _def_special("erfinv", "Erfinv", sk.erfinv, ("math.erfinv",), True)
ndtri = _def_special("ndtri", "Ndtri", sk.ndtri, ("math.ndtri",), True)
igamma = _def_special("igamma", "Igamma", sk.igamma, _tm("igamma"), False, arity=2)
igammac = _def_special("igammac", "Igammac", sk.igammac, _tm("igammac"), False, arity=2)
zeta = _def_special("zeta", "Zeta", sk.zeta, _tm("zeta"), False, arity=2)
polygamma = _def_special("polygamma", "Polygamma", sk.polygamma, _tm("polygamma"), False, arity=2)
register("IgammaGradA", infer=_binary_infer(FLOAT_DTYPES), kernel=sk.float_kernel(sk.igamma_grad_a), gpu=False)

_SPECIAL = {
    "bessel_i0": ("BesselI0", bk.bessel_i0), "bessel_i0e": ("BesselI0e", bk.bessel_i0e),
    "bessel_i1": ("BesselI1", bk.bessel_i1), "bessel_i1e": ("BesselI1e", bk.bessel_i1e),
    "bessel_j0": ("BesselJ0", bk.bessel_j0), "bessel_j1": ("BesselJ1", bk.bessel_j1),
    "bessel_y0": ("BesselY0", bk.bessel_y0), "bessel_y1": ("BesselY1", bk.bessel_y1),
    "bessel_k0": ("BesselK0", bk.bessel_k0), "bessel_k0e": ("BesselK0e", bk.bessel_k0e),
    "bessel_k1": ("BesselK1", bk.bessel_k1), "bessel_k1e": ("BesselK1e", bk.bessel_k1e),
    "dawsn": ("Dawsn", sk.dawsn), "expint": ("Expint", sk.expint),
    "fresnel_cos": ("FresnelCos", sk.fresnel_cos), "fresnel_sin": ("FresnelSin", sk.fresnel_sin),
    "spence": ("Spence", sk.spence),
}
_IN_MATH = {"bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"}
_special_fns = {py: _def_special(py, op_type, fn, (f"math.special.{py}",) + ((f"math.{py}",) if py in _IN_MATH else ()),
                                 True)
                for py, (op_type, fn) in _SPECIAL.items()}
bessel_i0, bessel_i0e, bessel_i1, bessel_i1e = (_special_fns[n] for n in ("bessel_i0", "bessel_i0e", "bessel_i1",
                                                                          "bessel_i1e"))
bessel_j0, bessel_j1, bessel_y0, bessel_y1 = (_special_fns[n] for n in ("bessel_j0", "bessel_j1", "bessel_y0",
                                                                        "bessel_y1"))
bessel_k0, bessel_k0e, bessel_k1, bessel_k1e = (_special_fns[n] for n in ("bessel_k0", "bessel_k0e", "bessel_k1",
                                                                          "bessel_k1e"))
dawsn, expint, fresnel_cos, fresnel_sin, spence = (_special_fns[n] for n in ("dawsn", "expint", "fresnel_cos",
                                                                             "fresnel_sin", "spence"))


# -- betainc: three operands ------------------------------------------------------------------


def _betainc_infer(op):
    a, b, x = op._inputs
    check_dtype(op, "a", a._dtype, {d for d in FLOAT_DTYPES if d.name != "float16"})
    for name, t in (("b", b), ("x", x)):
        if t._dtype is not a._dtype:
            raise TypeError(f"Input '{name}' of 'Betainc' Op has type {t._dtype.name} that does not match type "
                            f"{a._dtype.name} of argument 'a'.")
    return [(a._dtype, broadcast_shapes(broadcast_shapes(a._shape, b._shape), x._shape))]


register("Betainc", infer=_betainc_infer, kernel=sk.float_kernel(sk.betainc), gpu=False, foldable=True)


@tf_export("betainc", "math.betainc")
def betainc(a, b, x, name=None) -> Tensor:
    """The regularized incomplete beta function I_x(a, b) element-wise (float32 or float64)."""
    with name_scope(name or "Betainc", None, [a, b, x]) as scope:
        a = convert_input(a, "a", None, "Betainc")
        b = convert_input(b, "b", a.dtype, "Betainc")
        x = convert_input(x, "x", a.dtype, "Betainc")
        return apply_op("Betainc", [a, b, x], name=scope).outputs[0]


# -- composites ----------------------------------------------------------------------------------


@tf_export("lbeta", "math.lbeta")
def lbeta(x, name=None) -> Tensor:
    """log|B(x)| over the last axis: Σ lgamma(xᵢ) - lgamma(Σ xᵢ) (0 for an empty last axis, as TF)."""
    with name_scope(name, "lbeta", [x]):
        x = convert_to_tensor(x, name="x")
        log_prod_gamma_x = reduction_ops.reduce_sum(lgamma(x), axis=[-1])
        sum_x = reduction_ops.reduce_sum(x, axis=[-1])
        log_gamma_sum_x = lgamma(sum_x)
        return log_prod_gamma_x - log_gamma_sum_x


@tf_export("math.erfcinv")
def erfcinv(x, name=None) -> Tensor:
    """The inverse of erfc: ``-ndtri(x / 2) / √2``, as TF builds it."""
    with name_scope(name, "erfcinv", [x]):
        x = convert_to_tensor(x, name="start")
        return -ndtri(0.5 * x) * math.sqrt(0.5)


# -- gradients: TF's math_grad rules -------------------------------------------------------------

_TWO_OVER_ROOT_PI = 2 / math.sqrt(math.pi)


def _unary_grad(op_type: str, rule) -> None:
    gradient(op_type)(lambda op, grad: [grad * rule(math_ops._conj(op._inputs[0]), op._outputs[0])])


def _binary_special_grad(op, ga, gb) -> list:
    a, b = op._inputs
    return [None if ga is None else tiling_ops.unbroadcast(ga, a, (b,)),
            None if gb is None else tiling_ops.unbroadcast(gb, b, (a,))]


def _where_zero(x, value, otherwise):
    return select_ops.where(math_ops.equal(x, 0.0), math_ops.cast(value, x.dtype) + x * 0.0, otherwise)


_unary_grad("Lgamma", lambda x, y: digamma(x))
_unary_grad("Digamma", lambda x, y: polygamma(math_ops.cast(1, x.dtype), x))
_unary_grad("Erfc", lambda x, y: -_TWO_OVER_ROOT_PI * math_ops.exp(-math_ops.square(x)))
_unary_grad("Erfinv", lambda x, y: math.sqrt(math.pi) / 2 * math_ops.exp(math_ops.square(y)))
_unary_grad("Ndtri", lambda x, y: math.sqrt(2 * math.pi) * math_ops.exp(math_ops.square(y) / 2.0))
_unary_grad("BesselI0", lambda x, y: bessel_i1(x))
_unary_grad("BesselI0e", lambda x, y: bessel_i1e(x) - math_ops.sign(x) * y)
# TF imputes 1.0 at x = 0 (the true value is 0.5); dflow gives TF's figure.
_unary_grad("BesselI1", lambda x, y: _where_zero(x, 1.0, bessel_i0(x) - math_ops.div(y, x)))
_unary_grad("BesselI1e", lambda x, y: _where_zero(x, 0.5, bessel_i0e(x) - y * (math_ops.sign(x)
                                                                              + math_ops.reciprocal(x))))
_unary_grad("BesselJ0", lambda x, y: -bessel_j1(x))
_unary_grad("BesselJ1", lambda x, y: _where_zero(x, 0.5, bessel_j0(x) - math_ops.div(y, x)))
_unary_grad("BesselY0", lambda x, y: -bessel_y1(x))
_unary_grad("BesselY1", lambda x, y: bessel_y0(x) - math_ops.div(y, x))
_unary_grad("BesselK0", lambda x, y: -bessel_k1(x))
_unary_grad("BesselK0e", lambda x, y: y - bessel_k1e(x))
_unary_grad("BesselK1", lambda x, y: -bessel_k0(x) - math_ops.div(y, x))
_unary_grad("BesselK1e", lambda x, y: y * (1.0 - math_ops.reciprocal(x)) - bessel_k0e(x))
_unary_grad("Dawsn", lambda x, y: 1.0 - 2.0 * x * y)
_unary_grad("Expint", lambda x, y: math_ops.exp(x) / x)
_unary_grad("FresnelCos", lambda x, y: math_ops.cos(math.pi / 2 * math_ops.square(x)))
_unary_grad("FresnelSin", lambda x, y: math_ops.sin(math.pi / 2 * math_ops.square(x)))
_unary_grad("Spence", lambda x, y: select_ops.where(math_ops.equal(x, 1.0), -1.0 + x * 0.0,
                                                     math_ops.log(x) / (1.0 - x)))


def _igamma_partials(op):
    a, x = op._inputs
    partial_a = apply_op("IgammaGradA", [a, x]).outputs[0]
    # d/dx P(a, x) = exp(-x + (a - 1) log x - lgamma(a))
    partial_x = math_ops.exp(-x + math_extra_ops.xlogy(a - 1, x) - lgamma(a))
    return partial_a, partial_x


@gradient("Igamma")
def _igamma_grad(op, grad):
    pa, px = _igamma_partials(op)
    return _binary_special_grad(op, grad * pa, grad * px)


@gradient("Igammac")
def _igammac_grad(op, grad):
    pa, px = _igamma_partials(op)
    return _binary_special_grad(op, -grad * pa, -grad * px)


not_differentiable("IgammaGradA")


@gradient("Zeta")
def _zeta_grad(op, grad):
    """No gradient for x (TF returns None); ∂ζ(x, q)/∂q = -x ζ(x + 1, q)."""
    x, q = op._inputs
    return _binary_special_grad(op, None, grad * -x * zeta(x + 1, q))


@gradient("Polygamma")
def _polygamma_grad(op, grad):
    """No gradient for the order n; ∂ψ⁽ⁿ⁾(x)/∂x = ψ⁽ⁿ⁺¹⁾(x)."""
    n, x = op._inputs
    return _binary_special_grad(op, None, grad * polygamma(n + 1, x))


@gradient("Betainc")
def _betainc_grad(op, grad):
    """Only x is differentiable (TF returns None for a and b):
    ∂I_x(a, b)/∂x = (1 - x)^{b-1} x^{a-1} / B(a, b)."""
    a, b, x = op._inputs
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    partial_x = math_ops.exp(math_extra_ops.xlog1py(b - 1, -x) + math_extra_ops.xlogy(a - 1, x) - log_beta)
    return [None, None, tiling_ops.unbroadcast(grad * partial_x, x, (a, b))]


# Gradient rules build ops from these modules; importing them last avoids an import cycle.
from dflow.ops.array import select_ops, tiling_ops  # noqa: E402
from dflow.ops.math import math_extra_ops, math_ops, reduction_ops  # noqa: E402
