"""``tf.linalg.LinearOperatorAdjoint``, ``LinearOperatorInversion`` and ``LinearOperatorComposition``: operators
made of other operators, as TF 2.15 writes them (the base class is in ``linear_operator.py``)."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.graph import name_scope
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.array import array_ops, shape_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.linalg import linalg_factorizations
from dflow.ops.linear_operators.linear_operator import LinearOperator
from dflow.ops.linear_operators.linear_operator_basic import LinearOperatorLowerTriangular
from dflow.ops.linear_operators.linear_operator_util import (
    _adjoint,
    _broadcast_batch_shape_tensors,
    _broadcast_batch_shapes,
    _check_operator_list,
    _implied_true,
    _product,
    _sum,
    is_aat_form,
    use_operator_or_provided_hint_unless_contradicting,
)
from dflow.ops.math import unary_math_ops


def _combine_hints(operator, relation: str, is_non_singular, is_self_adjoint, is_positive_definite, is_square):
    """The hints of ``operator``'s adjoint or inverse: its own, or the provided ones unless they contradict."""
    combine = use_operator_or_provided_hint_unless_contradicting
    return dict(
        is_square=combine(operator, "is_square", is_square,
                          f"An operator is square if and only if its {relation} is square."),
        is_non_singular=combine(operator, "is_non_singular", is_non_singular,
                                f"An operator is non-singular if and only if its {relation} is non-singular."),
        is_self_adjoint=combine(operator, "is_self_adjoint", is_self_adjoint,
                                f"An operator is self-adjoint if and only if its {relation} is self-adjoint."),
        is_positive_definite=combine(operator, "is_positive_definite", is_positive_definite,
                                     f"An operator is positive-definite if and only if its {relation} is "
                                     "positive-definite."))


class _WrapperMixin:
    """What LinearOperatorAdjoint and LinearOperatorInversion share: hints, dtype and asserts of ``operator``."""

    def _init_wrapper(self, operator, relation: str, name, default_name: str, parameters, **hints):
        """Initializes with ``operator``'s dtype and the hints TF gives its adjoint/inverse (``relation``)."""
        self._operator = operator
        hints = _combine_hints(operator, relation, **hints)
        name = default_name if name is None else name
        with name_scope(name):
            super().__init__(dtype=operator.dtype, parameters=parameters, name=name, **hints)

    def _assert_non_singular(self):
        return self.operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self.operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self.operator.assert_self_adjoint()

    def _cond(self):
        return self.operator.cond()


@tf_export("linalg.LinearOperatorAdjoint")
class LinearOperatorAdjoint(_WrapperMixin, LinearOperator):
    """`LinearOperator` representing the adjoint of another operator."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        parameters = dict(operator=operator, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._init_wrapper(operator, "adjoint", name, operator.name + "_adjoint", parameters,
                           is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                           is_positive_definite=is_positive_definite, is_square=is_square)

    @property
    def operator(self):
        """The operator before taking the adjoint."""
        return self._operator

    def _linop_adjoint(self):
        return self.operator

    def _shape(self):
        shape = self.operator.shape
        if shape.ndims is None:
            return shape
        return shape[:-2].concatenate([shape[-1], shape[-2]])

    def _shape_tensor(self):
        shape = self.operator.shape_tensor()
        return array_ops.concat([shape[:-2], [shape[-1], shape[-2]]], axis=-1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self.operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self.operator.matvec(x, adjoint=not adjoint)

    def _determinant(self):
        if self.is_self_adjoint:
            return self.operator.determinant()
        return unary_math_ops.conj(self.operator.determinant())

    def _log_abs_determinant(self):
        return self.operator.log_abs_determinant()

    def _trace(self):
        if self.is_self_adjoint:
            return self.operator.trace()
        return unary_math_ops.conj(self.operator.trace())

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self.operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self.operator.solvevec(rhs, adjoint=not adjoint)

    def _to_dense(self):
        if self.is_self_adjoint:
            return self.operator.to_dense()
        return _adjoint(self.operator.to_dense())

    def _eigvals(self):
        eigvals = self.operator.eigvals()
        if not self.operator.is_self_adjoint:
            eigvals = unary_math_ops.conj(eigvals)
        return eigvals


@tf_export("linalg.LinearOperatorInversion")
class LinearOperatorInversion(_WrapperMixin, LinearOperator):
    """`LinearOperator` representing the inverse of another operator (matmul solves, solve multiplies)."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        parameters = dict(operator=operator, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError(
                "Argument `is_non_singular` or argument `operator` must have supplied hint `is_non_singular` equal "
                f"to `True` or `None`. Found `operator.is_non_singular`: {operator.is_non_singular}, "
                f"`is_non_singular`: {is_non_singular}.")
        if operator.is_square is False or is_square is False:
            raise ValueError(
                "Argument `is_square` or argument `operator` must have supplied hint `is_square` equal to `True` or "
                f"`None`. Found `operator.is_square`: {operator.is_square}, `is_square`: {is_square}.")
        self._init_wrapper(operator, "inverse", name, operator.name + "_inv", parameters,
                           is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                           is_positive_definite=is_positive_definite, is_square=is_square)

    @property
    def operator(self):
        """The operator before inversion."""
        return self._operator

    def _linop_inverse(self):
        return self.operator

    def _linop_solve(self, left_operator, right_operator):
        return left_operator.operator.matmul(right_operator)

    def _shape(self):
        return self.operator.shape

    def _shape_tensor(self):
        return self.operator.shape_tensor()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self.operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return 1. / self.operator.determinant()

    def _log_abs_determinant(self):
        return -1. * self.operator.log_abs_determinant()

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self.operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _eigvals(self):
        return 1. / self.operator.eigvals()


@tf_export("linalg.LinearOperatorComposition")
class LinearOperatorComposition(LinearOperator):
    """Composes one or more `LinearOperators`: ``A1 A2 ... An``."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        operators = _check_operator_list(operators)
        self._operators = operators
        if all(operator.is_non_singular for operator in operators):
            is_non_singular = _implied_true(is_non_singular,
                                            "The composition of non-singular operators is always non-singular.")
        aat = is_aat_form(operators)
        if (len(operators) == 1 and operators[0].is_self_adjoint) or aat:
            is_self_adjoint = _implied_true(is_self_adjoint, "The composition was determined to be self-adjoint but "
                                                             "user provided incorrect `False` hint.")
        if aat:
            is_square = _implied_true(is_square, "The composition was determined have the form A @ A.H, hence it "
                                                 "must be square. The user provided an incorrect `False` hint.")
        if aat and is_non_singular:
            is_positive_definite = _implied_true(
                is_positive_definite, "The composition was determined to be non-singular and have the form A @ A.H, "
                "hence it must be positive-definite. The user provided an incorrect `False` hint.")
        if name is None:
            name = "_o_".join(operator.name for operator in operators)
        with name_scope(name):
            super().__init__(dtype=operators[0].dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                             is_square=is_square, parameters=parameters, name=name)

    @property
    def operators(self):
        """The composed operators, leftmost first."""
        return self._operators

    def _shape(self):
        domain_dimension = self.operators[0].domain_dimension
        for operator in self.operators[1:]:
            domain_dimension.assert_is_compatible_with(operator.range_dimension)
            domain_dimension = operator.domain_dimension
        matrix_shape = TensorShape([self.operators[0].range_dimension, self.operators[-1].domain_dimension])
        return _broadcast_batch_shapes(self.operators).concatenate(matrix_shape)

    def _shape_tensor(self):
        matrix_shape = array_ops.stack([self.operators[0].range_dimension_tensor(),
                                        self.operators[-1].domain_dimension_tensor()])
        return array_ops.concat((_broadcast_batch_shape_tensors(self.operators), matrix_shape), 0)

    def _linop_cholesky(self):
        left = self.operators[0]
        if not (len(self.operators) == 2 and is_aat_form(self.operators)
                and isinstance(left, LinearOperatorLowerTriangular)):
            return LinearOperatorLowerTriangular(linalg_factorizations.cholesky(self.to_dense()), is_non_singular=True,
                                                 is_self_adjoint=False, is_square=True)
        if left.is_positive_definite:
            return left
        diag_sign = shape_ops.expand_dims(unary_math_ops.sign(left.diag_part()), axis=-2)
        return LinearOperatorLowerTriangular(tril=left.tril / diag_sign, is_non_singular=left.is_non_singular,
                                             is_self_adjoint=left.is_self_adjoint,
                                             is_positive_definite=True if left.is_positive_definite else None,
                                             is_square=True)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        order = self.operators if adjoint else list(reversed(self.operators))
        result = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in order[1:]:
            result = operator.matmul(result, adjoint=adjoint)
        return result

    def _determinant(self):
        return _product(operator.determinant() for operator in self.operators)

    def _log_abs_determinant(self):
        return _sum(operator.log_abs_determinant() for operator in self.operators)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        order = list(reversed(self.operators)) if adjoint else self.operators
        solution = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in order[1:]:
            solution = operator.solve(solution, adjoint=adjoint)
        return solution

    def _assert_non_singular(self):
        if all(operator.is_square for operator in self.operators):
            return control_flow_ops.group([operator.assert_non_singular() for operator in self.operators])
        return super()._assert_non_singular()


