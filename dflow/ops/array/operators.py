"""Python operators on ``Tensor``: ``+ - * / // % ** @``, comparisons, logic.

As in TF1, ``a + b`` opens a name scope ``add`` and creates op ``add``; a
Python operand becomes a constant ``add/y`` of the tensor's dtype. ``==`` and
``!=`` stay identity comparisons (TF1 graph mode), so tensors stay hashable.
Slicing (``__getitem__``) is installed by ``array_ops``.
"""

from __future__ import annotations

from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope


def _math():
    from dflow.ops.math import math_ops

    return math_ops


def _binary(fn_name: str, scope_name: str):
    """``x <op> y`` and the reflected ``y <op> x`` for math function ``fn_name``."""

    def forward(x, y):
        if getattr(y, "_is_ragged", False):
            return NotImplemented  # RaggedTensor's reflected operator takes it
        with name_scope(None, scope_name, [x, y]) as scope:
            if not isinstance(y, Tensor):
                y = convert_to_tensor(y, preferred_dtype=x.dtype, name="y")
            return getattr(_math(), fn_name)(x, y, name=scope)

    def reflected(y, x):
        with name_scope(None, scope_name, [x, y]) as scope:
            x = convert_to_tensor(x, preferred_dtype=y.dtype, name="x")
            return getattr(_math(), fn_name)(x, y, name=scope)

    return forward, reflected


def _matmul(x, y):
    from dflow.ops.linalg import linalg_ops

    with name_scope(None, "matmul", [x, y]) as scope:
        return linalg_ops.matmul(x, y, name=scope)


def _rmatmul(y, x):
    from dflow.ops.linalg import linalg_ops

    with name_scope(None, "matmul", [x, y]) as scope:
        x = convert_to_tensor(x, preferred_dtype=y.dtype, name="x")
        return linalg_ops.matmul(x, y, name=scope)


def _compare(fn_name: str):
    def compare(x, y):
        if getattr(y, "_is_ragged", False):
            return NotImplemented
        return getattr(_math(), fn_name)(x, y)

    return compare


_BINARY = {
    "add": ("add", "add"),
    "sub": ("subtract", "sub"),
    "mul": ("multiply", "mul"),
    "truediv": ("truediv", "truediv"),
    "div": ("div", "div"),
    "floordiv": ("floordiv", "floordiv"),
    "mod": ("floormod", "mod"),
    "pow": ("pow", "pow"),
    "and": ("logical_and", "and"),
    "or": ("logical_or", "or"),
    "xor": ("logical_xor", "xor"),
}

for _op, (_fn, _scope) in _BINARY.items():
    _fwd, _rev = _binary(_fn, _scope)
    setattr(Tensor, f"__{_op}__", _fwd)
    setattr(Tensor, f"__r{_op}__", _rev)

Tensor.__matmul__ = _matmul
Tensor.__rmatmul__ = _rmatmul
Tensor.__lt__ = _compare("less")
Tensor.__le__ = _compare("less_equal")
Tensor.__gt__ = _compare("greater")
Tensor.__ge__ = _compare("greater_equal")
Tensor.__neg__ = lambda self: _math().negative(self)
Tensor.__abs__ = lambda self: _math().abs(self)
Tensor.__invert__ = lambda self: _math().logical_not(self)
