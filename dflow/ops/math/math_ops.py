"""Element-wise binary math: arithmetic, comparisons, logic, ``add_n``, clipping and ``cast``.

Attr-less ops whose numpy ufunc already has TF's semantics use the ufunc
itself as the kernel; ops whose semantics depend on the dtype (integer
division checks for zero, float floor-division is ``floor(x / y)``) pick their
kernel once per op with ``make_kernel``. The dtype contract and operand
conversion shared with the unary ops are in ``_math_common``.

The element-wise unary functions (``exp``, ``sqrt``, ``sin``, ``abs``, ...) live
in ``unary_math_ops`` and are re-exported here, so ``math_ops`` still offers
every element-wise function. Reductions, ``argmax`` and ``cumsum`` live in
``reduction_ops``; ``where`` in ``select_ops``.
"""

from __future__ import annotations

import builtins

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import gradient, not_differentiable, register
from dflow.kernels import array_module
from dflow.kernels import blas as _blas
from dflow.ops.control_flow.control_flow_ops import identity
from dflow.ops.math._math_common import (  # noqa: F401 - also re-exported: select_ops, reduction_ops import them here
    _ALL,
    _B,
    _FC,
    _FLOAT_COMPLEX,
    BOOL_DTYPES,
    FLOAT_DTYPES,
    NUMERIC_DTYPES,
    REAL_DTYPES,
    _binary_infer,
    _def_binary,
    _def_unary,
    _out,
    _tm,
    binary,
    check_dtype,
    convert_input,
    convert_pair,
    dtype_mismatch,
    unary,
)
from dflow.ops.math.unary_math_ops import (  # noqa: F401 - re-exported (math_ops.exp is tf.exp)
    _conj,
    abs,
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    ceil,
    conj,
    cos,
    cosh,
    erf,
    exp,
    expm1,
    floor,
    is_finite,
    is_inf,
    is_nan,
    log,
    log1p,
    negative,
    reciprocal,
    rint,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    tan,
    tanh,
)

# -- kernels that are not a single ufunc ---------------------------------------------


def _by_dtype(int_kernel, float_kernel):
    """``make_kernel`` that picks a kernel once per op from its input dtype."""

    def make_kernel(op, resources):
        return int_kernel if op._inputs[0]._dtype.is_integer else float_kernel

    return make_kernel


def _check_nonzero(y) -> None:
    if not y.all():
        raise errors.InvalidArgumentError(None, None, "Integer division by zero")


def _int_floordiv(x, y):
    _check_nonzero(y)
    return np.floor_divide(x, y)


def _float_floordiv(x, y):
    # TF computes floor(x / y); numpy's floor_divide differs (1.0 // 0.1 == 9.0).
    return np.floor(np.true_divide(x, y))


def _int_floormod(x, y):
    _check_nonzero(y)
    return np.remainder(x, y)


def _int_truncatediv(x, y):
    _check_nonzero(y)
    # x - fmod(x, y) is an exact multiple of y, so floor division is exact.
    return np.floor_divide(np.subtract(x, np.fmod(x, y)), y)


def _float_truncatediv(x, y):
    return np.trunc(np.true_divide(x, y))


def _int_truncatemod(x, y):
    _check_nonzero(y)
    return np.fmod(x, y)


def _int_pow(x, y):
    if (y < 0).any():
        raise errors.InvalidArgumentError(None, None, "Integers to negative integer powers are not allowed")
    return np.power(x, y)


def _squared_difference(x, y):
    d = np.subtract(x, y)
    return np.multiply(d, d)


def _div_no_nan(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return array_module(x, y).where(y == 0, x.dtype.type(0), np.true_divide(x, y))


# -- element-wise binary ops: one row per op ----------------------------------------------

add = _def_binary("add", "Add", None, NUMERIC_DTYPES | {dtypes.string},
                  "``x + y`` element-wise, with broadcasting (strings concatenate).", _tm("add"),
                  make_kernel=_blas.ufunc_kernel(np.add))
subtract = _def_binary("subtract", "Sub", None, NUMERIC_DTYPES, "``x - y`` element-wise.", _tm("subtract"),
                       make_kernel=_blas.ufunc_kernel(np.subtract))
multiply = _def_binary("multiply", "Mul", None, NUMERIC_DTYPES, "``x * y`` element-wise.", _tm("multiply"),
                       make_kernel=_blas.ufunc_kernel(np.multiply))
realdiv = _def_binary("realdiv", "RealDiv", np.true_divide, _FC, "``x / y`` of floats.", ("realdiv",))
floor_div = _def_binary("floor_div", "FloorDiv", None, REAL_DTYPES,
                        "``floor(x / y)``; integer division by zero is an InvalidArgumentError.", ("floor_div",),
                        make_kernel=_by_dtype(_int_floordiv, _float_floordiv))
floormod = _def_binary("floormod", "FloorMod", None, REAL_DTYPES,
                       "Remainder of floor division, with the sign of ``y``: ``floormod(-7, 3) == 2``.",
                       ("floormod", "mod", "math.floormod", "math.mod"),
                       make_kernel=_by_dtype(_int_floormod, np.remainder))
mod = floormod
truncatediv = _def_binary("truncatediv", "TruncateDiv", None, REAL_DTYPES, "``x / y`` rounded toward zero.",
                          ("truncatediv",), make_kernel=_by_dtype(_int_truncatediv, _float_truncatediv))
truncatemod = _def_binary("truncatemod", "TruncateMod", None, REAL_DTYPES,
                          "Remainder of truncated division (C's ``%``): ``truncatemod(-7, 3) == -1``.",
                          ("truncatemod",), make_kernel=_by_dtype(_int_truncatemod, np.fmod))
pow = _def_binary("pow", "Pow", None, NUMERIC_DTYPES, "``x ** y``; integers to negative powers are an error.",
                  _tm("pow"), make_kernel=_by_dtype(_int_pow, np.power))
maximum = _def_binary("maximum", "Maximum", np.maximum, REAL_DTYPES, "Element-wise max (NaN wins).",
                      _tm("maximum"))
minimum = _def_binary("minimum", "Minimum", np.minimum, REAL_DTYPES, "Element-wise min (NaN wins).",
                      _tm("minimum"))
squared_difference = _def_binary("squared_difference", "SquaredDifference", _squared_difference, REAL_DTYPES,
                                 "``(x - y) ** 2`` element-wise.", _tm("squared_difference"))
div_no_nan = _def_binary("div_no_nan", "DivNoNan", _div_no_nan, _FC, "``x / y``, or 0 where ``y`` is 0.",
                         ("div_no_nan", "math.divide_no_nan"), default_name="div_no_nan")

equal = _def_binary("equal", "Equal", np.equal, _ALL, "``x == y`` element-wise.", _tm("equal"), _B)
not_equal = _def_binary("not_equal", "NotEqual", np.not_equal, _ALL, "``x != y`` element-wise.",
                        _tm("not_equal"), _B)
less = _def_binary("less", "Less", np.less, REAL_DTYPES, "``x < y`` element-wise.", _tm("less"), _B)
less_equal = _def_binary("less_equal", "LessEqual", np.less_equal, REAL_DTYPES, "``x <= y`` element-wise.",
                         _tm("less_equal"), _B)
greater = _def_binary("greater", "Greater", np.greater, REAL_DTYPES, "``x > y`` element-wise.",
                      _tm("greater"), _B)
greater_equal = _def_binary("greater_equal", "GreaterEqual", np.greater_equal, REAL_DTYPES,
                            "``x >= y`` element-wise.", _tm("greater_equal"), _B)
logical_and = _def_binary("logical_and", "LogicalAnd", np.logical_and, BOOL_DTYPES, "``x AND y`` element-wise.",
                          _tm("logical_and"))
logical_or = _def_binary("logical_or", "LogicalOr", np.logical_or, BOOL_DTYPES, "``x OR y`` element-wise.",
                         _tm("logical_or"))

logical_not = _def_unary("logical_not", "LogicalNot", np.logical_not, BOOL_DTYPES, "``NOT x`` element-wise.",
                         _tm("logical_not"))


# -- gradients of the element-wise ops above: TF1's math_grad formulas, one rule per op ---------


def _binary_grads(op, gx, gy) -> list:
    """Each input's gradient summed back to that input's shape (TF1's ``_ReduceGradientArgs``)."""
    x, y = op._inputs
    return [None if gx is None else tiling_ops.unbroadcast(gx, x, (y,)),
            None if gy is None else tiling_ops.unbroadcast(gy, y, (x,))]


@gradient("Add")
def _add_grad(op, grad):
    return _binary_grads(op, grad, grad)


@gradient("Sub")
def _sub_grad(op, grad):
    return _binary_grads(op, grad, negative(grad))


@gradient("Mul")
def _mul_grad(op, grad):
    x, y = op._inputs
    return _binary_grads(op, multiply(grad, _conj(y)), multiply(_conj(x), grad))


@gradient("RealDiv")
def _realdiv_grad(op, grad):
    x, y = (_conj(t) for t in op._inputs)
    return _binary_grads(op, realdiv(grad, y), grad * realdiv(realdiv(-x, y), y))


@gradient("DivNoNan")
def _div_no_nan_grad(op, grad):
    x, y = (_conj(t) for t in op._inputs)
    return _binary_grads(op, div_no_nan(grad, y), grad * div_no_nan(div_no_nan(-x, y), y))


@gradient("FloorMod")
def _floormod_grad(op, grad):
    x, y = op._inputs
    return _binary_grads(op, grad, grad * negative(floor_div(x, y)))


@gradient("TruncateMod")
def _truncatemod_grad(op, grad):
    # TF1 registers none; this is FloorMod's rule with the quotient rounded toward zero.
    x, y = op._inputs
    return _binary_grads(op, grad, grad * negative(truncatediv(x, y)))


@gradient("Pow")
def _pow_grad(op, grad):
    """``y * x**(y-1)`` and ``x**y * log(x)``, the latter 0 where the log is undefined (x <= 0 for reals)."""
    x, y = op._inputs
    cx, cy = _conj(x), _conj(y)
    gx = grad * cy * pow(cx, cy - 1)
    mask = not_equal(cx, 0) if x.dtype.is_complex else greater(cx, 0)
    log_x = select_ops.where_v2(mask, log(select_ops.where_v2(mask, cx, 1)), 0)
    gy = grad * _conj(op._outputs[0]) * log_x
    return _binary_grads(op, gx, gy)


def _max_min_grad(op, grad, selects_x):
    """The gradient goes to x where ``selects_x(x, y)`` (ties included), else to y."""
    x, y = op._inputs
    xmask = selects_x(x, y)
    return _binary_grads(op, select_ops.where_v2(xmask, grad, 0), select_ops.where_v2(xmask, 0, grad))


@gradient("Maximum")
def _maximum_grad(op, grad):
    return _max_min_grad(op, grad, greater_equal)


@gradient("Minimum")
def _minimum_grad(op, grad):
    return _max_min_grad(op, grad, less_equal)


@gradient("SquaredDifference")
def _squared_difference_grad(op, grad):
    x, y = op._inputs
    x_grad = (grad * 2) * (x - y)
    return _binary_grads(op, x_grad, -x_grad)


@gradient("FloorDiv")
@gradient("TruncateDiv")
def _integer_division_grad(op, grad):
    return [None, None]  # piecewise constant, as in TF1


for _t in ("Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr",
           "LogicalNot"):
    not_differentiable(_t)


register("Atan2", infer=_binary_infer(FLOAT_DTYPES), kernel=np.arctan2)


@gradient("Atan2")
def _atan2_grad(op, grad):
    y, x = op._inputs
    grad_inv = grad / (square(y) + square(x))
    return _binary_grads(op, x * grad_inv, -y * grad_inv)


@tf_export(*_tm("atan2"))
def atan2(y, x, name=None) -> Tensor:
    """``atan(y / x)`` element-wise, in the quadrant of the point ``(x, y)``."""
    return binary("Atan2", y, x, name, xname="y", yname="x")


@tf_export(*_tm("logical_xor"))
def logical_xor(x, y, name="LogicalXor") -> Tensor:
    """``x XOR y``, built as TF1 builds it: ``(x OR y) AND NOT (x AND y)``."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# -- division with TF1's Python semantics ---------------------------------------------

# TF1's __truediv__ casts integers to a float type first.
_TRUEDIV_CAST = {dtypes.uint8: dtypes.float32, dtypes.int8: dtypes.float32, dtypes.uint16: dtypes.float32,
                 dtypes.int16: dtypes.float32, dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64,
                 dtypes.uint32: dtypes.float64, dtypes.uint64: dtypes.float64}


@tf_export(*_tm("truediv"))
def truediv(x, y, name=None) -> Tensor:
    """Python 3 division: integers are cast to float first.

    >>> # tf.truediv(7, 2) -> 3.5 (float64); int8/int16/uint8/uint16 give float32
    """
    with name_scope(name or "truediv", None, [x, y]) as scope:
        x, y = convert_pair(x, y, "RealDiv")
        cast_to = _TRUEDIV_CAST.get(x.dtype)
        if cast_to is not None:
            x, y = cast(x, cast_to), cast(y, cast_to)
        return _out("RealDiv", [x, y], None, scope)


@tf_export(*_tm("divide"))
def divide(x, y, name=None) -> Tensor:
    """``x / y`` with Python 3 semantics (``tf.truediv``)."""
    return truediv(x, y, name=name)


@tf_export(*_tm("floordiv"))
def floordiv(x, y, name=None) -> Tensor:
    """``floor(x / y)`` (op ``FloorDiv`` named ``floordiv``); integer division by zero is an error."""
    return binary("FloorDiv", x, y, name or "floordiv")


@tf_export("div")
def div(x, y, name=None) -> Tensor:
    """Python 2 division: floor division for integers, real division for floats.

    >>> # tf.div(-7, 2) -> -4; tf.div(-7., 2.) -> -3.5
    """
    with name_scope(name or "div", None, [x, y]) as scope:
        x, y = convert_pair(x, y, "Div")
        return _out("RealDiv" if x.dtype.is_floating or x.dtype.is_complex else "FloorDiv", [x, y], None, scope)


@tf_export(*_tm("scalar_mul"))
def scalar_mul(scalar, x, name=None) -> Tensor:
    """``scalar * x`` where ``scalar`` must be 0-D (op ``Mul``)."""
    x = convert_to_tensor(x)
    scalar = convert_input(scalar, "scalar", x.dtype, "Mul")
    if scalar.shape.ndims != 0:
        raise ValueError(f"Only scalar multiply works, got shape {scalar.shape}")
    return _out("Mul", [scalar, x], None, name or "Mul")


# -- AddN ------------------------------------------------------------------------------


def _add_n_infer(op):
    first = op._inputs[0]
    check_dtype(op, "inputs", first._dtype, NUMERIC_DTYPES)
    shape = first._shape
    for t in op._inputs[1:]:
        if t._dtype is not first._dtype:
            raise TypeError(f"Tensors in list passed to 'inputs' of '{op.name}' (op: AddN) have types "
                            f"{[u.dtype.name for u in op._inputs]} that don't all match.")
        shape = shape.merge_with(t._shape)
    return [(first._dtype, shape)]


def _add_n_kernel(*xs):
    out = np.add(xs[0], xs[1])
    for x in xs[2:]:
        out += x  # ``out`` is our own fresh array (a scalar simply rebinds)
    return out


register("AddN", infer=_add_n_infer, kernel=_add_n_kernel)


@gradient("AddN")
def _add_n_grad(op, grad):
    return [grad] * len(op._inputs)


@tf_export(*_tm("add_n"))
def add_n(inputs, name=None) -> Tensor:
    """Sums a list of tensors of one dtype and shape; one input is returned as is."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    inputs = [convert_to_tensor(t) for t in inputs]
    if len(inputs) == 1:
        return identity(inputs[0], name=name) if name else inputs[0]
    return _out("AddN", inputs, None, name or "AddN")


# -- clipping --------------------------------------------------------------------------


@tf_export("clip_by_value")
def clip_by_value(t, clip_value_min, clip_value_max, name=None) -> Tensor:
    """``min(max(t, lo), hi)``; the bounds may not broadcast ``t`` to a larger shape.

    An ``IndexedSlices`` stays one: its values are clipped.

    >>> # tf.clip_by_value([1, 5, 9], 2, 7) -> [2, 5, 7]
    """
    from dflow.ops.math.clip_ops import _like, _values  # clip_ops builds on this module

    with name_scope(name or "clip_by_value", None, [t, clip_value_min, clip_value_max]) as scope:
        values = convert_input(_values(t), "t", None, "clip_by_value")
        t_min = minimum(values, clip_value_max)
        _check_no_broadcast(values, t_min)
        t_max = maximum(t_min, clip_value_min, name=scope)
        _check_no_broadcast(values, t_max)
        return _like(t, t_max)


def _check_no_broadcast(values, clipped) -> None:
    if not values.shape.is_compatible_with(clipped.shape):
        raise ValueError(f"Shapes {values.shape} and {clipped.shape} are incompatible: clip_by_value bounds "
                         f"must not broadcast t to a larger shape")


# -- Cast ------------------------------------------------------------------------------


def _cast_infer(op):
    return [(op._attrs["DstT"], op._inputs[0]._shape)]


def _make_cast_kernel(op, resources):
    src, dst = op._attrs["SrcT"], op._attrs["DstT"]
    np_dst = dst.as_numpy_dtype
    if dtypes.string in (src, dst):
        def unsupported(x):
            raise errors.UnimplementedError(None, None, f"Cast {src.name} to {dst.name} is not supported")

        return unsupported
    if src.is_complex and not dst.is_complex:
        return lambda x: x.real.astype(np_dst)  # TF keeps the real part, without numpy's warning
    return lambda x: x.astype(np_dst)  # float -> int truncates toward zero, as TF


register("Cast", infer=_cast_infer, make_kernel=_make_cast_kernel, foldable=True)


@gradient("Cast")
def _cast_grad(op, grad):
    """Cast back between float and complex types; no gradient through integers or bools."""
    src, dst = op._attrs["SrcT"], op._attrs["DstT"]
    return [cast(grad, src) if src in _FLOAT_COMPLEX and dst in _FLOAT_COMPLEX else None]


@tf_export("cast", "dtypes.cast")
def cast(x, dtype, name=None) -> Tensor:
    """``x`` converted to ``dtype``; a tensor that already has it is returned as is.

    >>> # tf.cast([1.7, -1.7], tf.int32) -> [1, -1] (truncation toward zero)
    """
    dst = dtypes.as_dtype(dtype)
    if isinstance(x, Tensor) and x.dtype is dst:
        return x
    with name_scope(name or "Cast", None, [x]) as scope:
        x = convert_input(x, "x", None, "Cast")
        if x.dtype is dst:
            return x
        return _out("Cast", [x], {"SrcT": x.dtype, "DstT": dst, "Truncate": False}, scope)


@tf_export("to_float")
def to_float(x, name="ToFloat") -> Tensor:
    """``tf.cast(x, tf.float32)`` (deprecated in TF1)."""
    return cast(x, dtypes.float32, name=name)


@tf_export("to_double")
def to_double(x, name="ToDouble") -> Tensor:
    """``tf.cast(x, tf.float64)`` (deprecated in TF1)."""
    return cast(x, dtypes.float64, name=name)


@tf_export("to_int32")
def to_int32(x, name="ToInt32") -> Tensor:
    """``tf.cast(x, tf.int32)`` (deprecated in TF1)."""
    return cast(x, dtypes.int32, name=name)


@tf_export("to_int64")
def to_int64(x, name="ToInt64") -> Tensor:
    """``tf.cast(x, tf.int64)`` (deprecated in TF1)."""
    return cast(x, dtypes.int64, name=name)


@tf_export("saturate_cast", "dtypes.saturate_cast")
def saturate_cast(value, dtype, name=None) -> Tensor:
    """Casts to ``dtype``, first clamping ``value`` into the range ``dtype`` can hold.

    >>> # tf.saturate_cast([-5., 300.], tf.uint8) -> [0, 255]
    """
    dst = dtypes.as_dtype(dtype)
    with name_scope(name or "saturate_cast", None, [value]) as scope:
        value = convert_input(value, "value", None, "saturate_cast")
        src = value.dtype
        if src.min < dst.min:
            value = maximum(value, convert_to_tensor(_bound(dst.min, src), dtype=src, name="min"))
        if src.max > dst.max:
            value = minimum(value, convert_to_tensor(_bound(dst.max, src), dtype=src, name="max"))
        return cast(value, dst, name=scope)


def _bound(limit, src):
    """``limit`` in ``src``'s dtype, moved toward 0 where rounding pushed it past (2**31 - 1 in float32)."""
    v = np.asarray(limit, dtype=src.as_numpy_dtype)
    if src.is_floating and builtins.abs(v.item()) > builtins.abs(limit):  # exact: float vs int
        v = np.nextafter(v, np.zeros((), v.dtype))
    return v


# Reductions and where/select build on this module, so they are imported last; so are
# the array modules the gradient rules use (they never import this one at load time).
from dflow.ops.array import array_ops, select_ops, tiling_ops  # noqa: E402, F401
from dflow.ops.math import reduction_ops  # noqa: E402, F401
