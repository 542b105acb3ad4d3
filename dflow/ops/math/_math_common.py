"""What ``math_ops`` and ``unary_math_ops`` share: dtype classes, operand conversion, op tables.

Every element-wise op keeps TF1's dtype contract: the inputs of a binary op
share one dtype (a Python operand takes the other operand's), and a kernel
returns exactly the static dtype. API functions convert Python operands inside
the op's name scope, so ``tf.add(x, 2.0)`` creates ``Add/y`` and ``Add`` as TF1
does. ``_def_unary`` and ``_def_binary`` turn one table row into a registered op
type and its exported API function.
"""

from __future__ import annotations

import sys

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, register
from dflow.framework.tensor_shape import broadcast_shapes

# -- dtype classes -------------------------------------------------------------------

FLOAT_DTYPES = frozenset({dtypes.float16, dtypes.float32, dtypes.float64})
_COMPLEX = frozenset({dtypes.complex64, dtypes.complex128})
_SINT = frozenset({dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64})
_UINT = frozenset({dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64})
_INT = _SINT | _UINT
REAL_DTYPES = FLOAT_DTYPES | _INT
NUMERIC_DTYPES = REAL_DTYPES | _COMPLEX
_FLOAT_COMPLEX = FLOAT_DTYPES | _COMPLEX
_SIGNED = FLOAT_DTYPES | _SINT | _COMPLEX
BOOL_DTYPES = frozenset({dtypes.bool})
_ALL = frozenset(dtypes.ALL)


def check_dtype(op, arg: str, dtype, allowed) -> None:
    """TypeError unless ``dtype`` is one ``op`` accepts for argument ``arg``."""
    if dtype not in allowed:
        names = ", ".join(d.name for d in dtypes.ALL if d in allowed)
        raise TypeError(f"Value passed to parameter '{arg}' of '{op.name}' (op: {op.type}) has DataType "
                        f"{dtype.name} not in list of allowed values: {names}")


# -- input conversion ----------------------------------------------------------------

_PLAIN = (bool, int, float, complex, str, bytes, list, tuple, np.ndarray, np.generic)


def dtype_mismatch(op_type, which, dtype, other, other_dtype) -> TypeError:
    return TypeError(f"Input '{which}' of '{op_type}' Op has type {dtype.name} that does not match type "
                     f"{other_dtype.name} of argument '{other}'.")


def convert_input(value, arg: str, dtype, op_type: str) -> Tensor:
    """``value`` as a Tensor named ``arg`` (in the current scope) of ``dtype`` if given."""
    if isinstance(value, Tensor) or not isinstance(value, _PLAIN):
        t = convert_to_tensor(value, name=arg)  # a Tensor, or a Variable-like object
        if dtype is not None and t.dtype is not dtype:
            raise TypeError(f"Input '{arg}' of '{op_type}' Op has type {t.dtype.name} that does not match "
                            f"expected type of {dtype.name}.")
        return t
    try:
        return convert_to_tensor(value, dtype=dtype, name=arg)
    except TypeError as e:
        if dtype is None:
            raise
        raise TypeError(f"Expected {dtype.name} passed to parameter '{arg}' of op '{op_type}', got {value!r} of "
                        f"type '{type(value).__name__}' instead. Error: {e}") from None


def convert_pair(x, y, op_type: str, xname: str = "x", yname: str = "y"):
    """Two operands as Tensors of one dtype, the rule of TF1's type attr ``T``.

    A Python or numpy operand takes the dtype of the other operand; two
    tensors of different dtypes are a TypeError naming the op.
    """
    y_first = not isinstance(x, Tensor) and (
        isinstance(y, Tensor) or (isinstance(x, _PLAIN) and not isinstance(y, _PLAIN)))
    if y_first:
        y = convert_input(y, yname, None, op_type)
        x = convert_input(x, xname, _dtype_for(x, y), op_type)
    else:
        x = convert_input(x, xname, None, op_type)
        y = convert_input(y, yname, _dtype_for(y, x), op_type)
    if x.dtype is not y.dtype:
        raise dtype_mismatch(op_type, yname, y.dtype, xname, x.dtype)
    return x, y


def _dtype_for(value, other: Tensor):
    # Only plain Python/numpy values adopt the other operand's dtype.
    return other.dtype if isinstance(value, _PLAIN) else None


def _out(op_type, inputs, attrs, name) -> Tensor:
    return apply_op(op_type, inputs, attrs, name=name).outputs[0]


def unary(op_type: str, x, name=None, attrs=None) -> Tensor:
    """Creates ``op_type`` on ``x``; a non-Tensor ``x`` becomes ``<name>/x``."""
    if isinstance(x, Tensor):
        return _out(op_type, [x], attrs, name or op_type)
    with name_scope(name or op_type, None, [x]) as scope:
        return _out(op_type, [convert_input(x, "x", None, op_type)], attrs, scope)


def binary(op_type: str, x, y, name=None, xname: str = "x", yname: str = "y") -> Tensor:
    """Creates ``op_type`` on ``x`` and ``y``, converting Python operands as TF1 does."""
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        if x._dtype is not y._dtype:
            raise dtype_mismatch(op_type, yname, y._dtype, xname, x._dtype)
        return _out(op_type, [x, y], None, name or op_type)
    with name_scope(name or op_type, None, [x, y]) as scope:
        return _out(op_type, list(convert_pair(x, y, op_type, xname, yname)), None, scope)


# -- shape rules ---------------------------------------------------------------------


def _unary_infer(allowed, out_dtype=None):
    def infer(op):
        x = op._inputs[0]
        check_dtype(op, "x", x._dtype, allowed)
        return [(out_dtype or x._dtype, x._shape)]

    return infer


def _binary_infer(allowed, out_dtype=None):
    def infer(op):
        x, y = op._inputs
        check_dtype(op, "x", x._dtype, allowed)
        if y._dtype is not x._dtype:
            raise dtype_mismatch(op.type, "y", y._dtype, "x", x._dtype)
        return [(out_dtype or x._dtype, broadcast_shapes(x._shape, y._shape))]

    return infer


# -- element-wise ops: one table row per op ------------------------------------------------


def _def_unary(py_name, op_type, kernel, allowed, doc, exports, out_dtype=None, make_kernel=None):
    """Registers ``op_type`` and returns its exported API function ``py_name(x, name=None)``."""
    register(op_type, infer=_unary_infer(allowed, out_dtype), kernel=kernel, make_kernel=make_kernel,
             foldable=True, gpu=make_kernel is None)

    def fn(x, name=None) -> Tensor:
        return unary(op_type, x, name)

    _name_as_defined_by_caller(fn, py_name, doc)
    return tf_export(*exports)(fn)


def _def_binary(py_name, op_type, kernel, allowed, doc, exports, out_dtype=None, make_kernel=None,
                default_name=None):
    """Registers ``op_type`` and returns its exported API function ``py_name(x, y, name=None)``."""
    register(op_type, infer=_binary_infer(allowed, out_dtype), kernel=kernel, make_kernel=make_kernel,
             foldable=True)
    default_name = default_name or op_type

    def fn(x, y, name=None) -> Tensor:
        return binary(op_type, x, y, name or default_name)

    _name_as_defined_by_caller(fn, py_name, doc)
    return tf_export(*exports)(fn)


def _name_as_defined_by_caller(fn, py_name: str, doc: str) -> None:
    # As namedtuple does: the function belongs to the module whose table row made it, so
    # ``fn.__module__`` says where it is defined and pickle finds it there.
    fn.__name__ = fn.__qualname__ = py_name
    fn.__module__ = sys._getframe(2).f_globals["__name__"]
    fn.__doc__ = doc


def _tm(name):
    """Exported as both ``tf.<name>`` and ``tf.math.<name>``."""
    return (name, f"math.{name}")


_B = dtypes.bool
_FC = _FLOAT_COMPLEX
