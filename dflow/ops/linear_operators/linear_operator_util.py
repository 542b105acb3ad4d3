"""Helpers shared by the ``tf.linalg.LinearOperator`` classes: TF's ``linear_operator_util.py`` and
``property_hint_util.py`` (conversions, static values, batch broadcasting, checks and the rules that combine
operators' hints)."""

from __future__ import annotations

import functools
import operator as _operator

import numpy as np

from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.dtypes import as_dtype
from dflow.framework.graph import name_scope
from dflow.framework.tensor import Tensor
from dflow.framework.tensor_shape import Dimension, TensorShape, dimension_value
from dflow.framework.tensor_util import get_static_value
from dflow.ops.array import array_ops, creation_ops, shape_ops, shape_utils, tiling_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.debugging import check_ops
from dflow.ops.linalg import linalg_ops, linalg_solvers
from dflow.ops.math import math_extra_ops, unary_math_ops
from dflow.ops.state import variables


def _is_ref(x) -> bool:
    return isinstance(x, variables.Variable)


def convert_nonref_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """Converts ``value`` to a Tensor, but keeps a Variable (read where it is used), as TF does."""
    if value is None:
        return None
    if _is_ref(value):
        if dtype is not None and as_dtype(dtype).base_dtype != value.dtype.base_dtype:
            raise TypeError(f"Argument `value` must be of dtype `{as_dtype(dtype).name}` "
                            f"Received: `{value.dtype.base_dtype.name}`.")
        return value
    if isinstance(value, Tensor) or dtype is not None or dtype_hint is None:
        return convert_to_tensor(value, dtype=dtype, name=name)
    try:
        return convert_to_tensor(value, dtype=dtype_hint, name=name)
    except (TypeError, ValueError):
        return convert_to_tensor(value, name=name)


def _assert_not_ref_type(x, arg_name):
    if _is_ref(x):
        raise TypeError(f"Argument {arg_name} cannot be reference type. Found: {type(x)}.")


def _shape_tensor(shape, name=None):
    """A shape as an int32 Tensor (an empty list is int32 too)."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    dtype = dtypes.int32 if isinstance(shape, (tuple, list)) and not shape else None
    return convert_to_tensor(shape, dtype=dtype, name=name)


def _static_value(t):
    value = get_static_value(t)
    return None if value is None else np.asarray(value)


def _static_int(value):
    return None if value is None else int(value)


def _dtype_str(dtype) -> str:
    """A dtype as TF's ``str(dtype)`` prints it in messages: ``<dtype: 'float32'>``."""
    return f"<dtype: '{as_dtype(dtype).name}'>"


def _adjoint(x):
    return linalg_ops.adjoint(x)


def assert_no_entries_with_modulus_zero(x, message=None, name="assert_no_entries_with_modulus_zero"):
    """Asserts that no entry of ``x`` has modulus zero."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        zero = convert_to_tensor(0, dtype=x.dtype.real_dtype)
        return check_ops.assert_less(zero, unary_math_ops.abs(x), message=message)


def assert_zero_imag_part(x, message=None, name="assert_zero_imag_part"):
    """Asserts that ``x`` has no imaginary part (a no-op for real ``x``)."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_floating:
            return control_flow_ops.no_op()
        zero = convert_to_tensor(0, dtype=x.dtype.real_dtype)
        return check_ops.assert_equal(zero, math_extra_ops.imag(x), message=message)


def _assert_compatible_matrix_dimensions(operator, x):
    return check_ops.assert_equal(
        shape_ops.shape(x)[-2], operator.domain_dimension_tensor(),
        message="Dimensions are not compatible.  shape[-2] of argument to be the same as this operator")


def _assert_is_batch_matrix(tensor):
    ndims = tensor.shape.ndims
    if ndims is not None and ndims < 2:
        raise ValueError(f"Expected [batch] matrix to have at least two dimensions. Found: {tensor}.")


def broadcast_matrix_batch_dims(batch_matrices, name=None):
    """Broadcasts the batch dimensions (all but the last two) of several matrices against each other."""
    with name_scope(name or "broadcast_matrix_batch_dims", values=batch_matrices):
        mats = [convert_to_tensor(m) for m in batch_matrices]
        for m in mats:
            _assert_is_batch_matrix(m)
        if len(mats) < 2:
            return mats
        bcast = mats[0].shape[:-2]
        for m in mats[1:]:
            bcast = shape_utils.broadcast_static_shape(bcast, m.shape[:-2])
        if bcast.is_fully_defined():
            for i, m in enumerate(mats):
                if m.shape[:-2] != bcast:
                    mats[i] = tiling_ops.broadcast_to(
                        m, array_ops.concat([bcast.as_list(), shape_ops.shape(m)[-2:]], axis=0))
            return mats
        dyn = shape_ops.shape(mats[0])[:-2]
        for m in mats[1:]:
            dyn = shape_utils.broadcast_dynamic_shape(dyn, shape_ops.shape(m)[:-2])
        return [tiling_ops.broadcast_to(m, array_ops.concat([dyn, shape_ops.shape(m)[-2:]], axis=0)) for m in mats]


def matrix_solve_with_broadcast(matrix, rhs, adjoint=False, name=None):
    """``tf.linalg.solve`` with the batch dimensions of ``matrix`` and ``rhs`` broadcast."""
    with name_scope(name, "MatrixSolveWithBroadcast", [matrix, rhs]):
        matrix = convert_to_tensor(matrix, name="matrix")
        rhs = convert_to_tensor(rhs, name="rhs", dtype=matrix.dtype)
        matrix, rhs = broadcast_matrix_batch_dims([matrix, rhs])
        return linalg_solvers.matrix_solve(matrix, rhs, adjoint=adjoint)


def is_adjoint_pair(x, y) -> bool:
    """True when operator ``y`` is known to be the adjoint of ``x``."""
    if x is y:
        if x.is_self_adjoint is False:
            return False
        if x.is_self_adjoint:
            return True
    return x.H is y or y.H is x


def is_aat_form(operators) -> bool:
    """True when the operators are known to compose to the form A @ A.H."""
    operators = list(operators)
    if not operators:
        raise ValueError("AAT form is undefined for empty operators")
    if len(operators) % 2:
        return False
    return all(is_adjoint_pair(operators[i], operators[-1 - i]) for i in range(len(operators) // 2))


def _implied_true(hint, message: str) -> bool:
    """A hint that the operator's structure implies: True, or a ValueError (``message``) where the caller said False."""
    if hint is False:
        raise ValueError(message)
    return True


def use_operator_or_provided_hint_unless_contradicting(operator, hint_attr_name, provided_hint_value, message):
    """The operator's hint, or the provided one; a ValueError when they contradict."""
    op_hint = getattr(operator, hint_attr_name)
    if op_hint is False and provided_hint_value:
        raise ValueError(message)
    if op_hint and provided_hint_value is False:
        raise ValueError(message)
    if op_hint or provided_hint_value:
        return True
    if op_hint is False or provided_hint_value is False:
        return False
    return None


def _combined_commuting_self_adjoint_hint(a, b):
    if a.is_self_adjoint and b.is_self_adjoint:
        return True
    if (a.is_self_adjoint is True and b.is_self_adjoint is False) or (
            a.is_self_adjoint is False and b.is_self_adjoint is True):
        return False
    return None


def _is_square_hint(a, b):
    if a.is_square and b.is_square:
        return True
    if a.is_square is False and b.is_square is False:
        m, n = a.range_dimension, b.domain_dimension
        if dimension_value(m) is not None and dimension_value(n) is not None:
            return m == n
    if a.is_square != b.is_square and a.is_square is not None and b.is_square is not None:
        return False
    return None


def _combined_commuting_positive_definite_hint(a, b):
    if (a.is_positive_definite is True and a.is_self_adjoint is True and b.is_positive_definite is True
            and b.is_self_adjoint is True):
        return True
    return None


def _combined_non_singular_hint(a, b):
    if a.is_non_singular is False or b.is_non_singular is False:
        return False
    return a.is_non_singular and b.is_non_singular


def _commuting_hints(left, right) -> dict:
    """The hints of the product of two commuting operators (diagonal-like ones)."""
    return dict(is_non_singular=_combined_non_singular_hint(left, right),
                is_self_adjoint=_combined_commuting_self_adjoint_hint(left, right),
                is_positive_definite=_combined_commuting_positive_definite_hint(left, right))


def _product_hints(left, right) -> dict:
    """The hints TF gives a Composition made by ``matmul``/``solve`` of two operators."""
    is_square = _is_square_hint(left, right)
    hints = dict(is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=is_square)
    if is_square:
        hints["is_non_singular"] = _combined_non_singular_hint(left, right)
    elif is_square is False:
        hints.update(is_non_singular=False, is_self_adjoint=False, is_positive_definite=False)
    return hints


def _check_operators_compatible(left, right, arg, what="Operators"):
    """TF's check that ``right``'s range fits ``left``'s domain (where both are known)."""
    if (dimension_value(right.range_dimension) is not None and dimension_value(left.domain_dimension) is not None
            and right.range_dimension != left.domain_dimension):
        raise ValueError(f"{what} are incompatible. Expected `{arg}` to have dimension "
                         f"{left.domain_dimension} but got {right.range_dimension}.")


def _product(values):
    """``v0 * v1 * ...``, multiplied in as each value is made (pass a generator: TF's order of ops)."""
    return functools.reduce(_operator.mul, values)


def _sum(values):
    """``v0 + v1 + ...``, added in as each value is made (pass a generator: TF's order of ops)."""
    return functools.reduce(_operator.add, values)


def _square_shape(vector) -> TensorShape:
    """The static shape ``[..., N, N]`` of an operator defined by a [batch] vector of length N (its diagonal, ...)."""
    return vector.shape.concatenate(vector.shape[-1:])


def _square_shape_tensor(vector):
    """The shape ``[..., N, N]`` (see ``_square_shape``) as a Tensor."""
    shape = shape_ops.shape(vector)
    return array_ops.concat((shape, [shape[-1]]), 0)


def _dim_at(shape: TensorShape, index: int) -> Dimension:
    if shape.ndims is None:
        return Dimension(None)
    return shape.dims[index]


def _broadcast_batch_shapes(operators) -> TensorShape:
    batch_shape = operators[0].batch_shape
    for operator in operators[1:]:
        batch_shape = shape_utils.broadcast_static_shape(batch_shape, operator.batch_shape)
    return batch_shape


def _broadcast_batch_shape_tensors(operators):
    zeros = creation_ops.zeros(shape=operators[0].batch_shape_tensor())
    for operator in operators[1:]:
        zeros += creation_ops.zeros(shape=operator.batch_shape_tensor())
    return shape_ops.shape(zeros)


def _check_iterable(values):
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"Expected argument 'values' to be iterable. Found: {values}")


def _check_operator_list(operators, what="operators"):
    _check_iterable(operators)
    operators = list(operators)
    if not operators:
        raise ValueError(f"Expected a non-empty list of {what}. Found: {operators}")
    dtype = operators[0].dtype
    for operator in operators:
        if operator.dtype != dtype:
            name_type = (str((o.name, o.dtype)) for o in operators)
            raise TypeError("Expected all operators to have the same dtype.  Found " + "   ".join(name_type))
    return operators
