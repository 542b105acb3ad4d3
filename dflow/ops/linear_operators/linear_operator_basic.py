"""``tf.linalg.LinearOperatorFullMatrix``, ``LinearOperatorDiag`` and ``LinearOperatorLowerTriangular``: the
operators over one dense tensor, as TF 2.15 writes them (the base class is in ``linear_operator.py``)."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.ops.array import shape_ops
from dflow.ops.debugging import check_ops
from dflow.ops.linalg import diag_ops, linalg_ops, linalg_solvers
from dflow.ops.linear_operators.linear_operator import LinearOperator
from dflow.ops.linear_operators.linear_operator_util import (
    _adjoint,
    _commuting_hints,
    _dtype_str,
    _implied_true,
    _square_shape,
    _square_shape_tensor,
    assert_no_entries_with_modulus_zero,
    assert_zero_imag_part,
    convert_nonref_to_tensor,
)
from dflow.ops.math import math_extra_ops, math_ops, reduction_ops, unary_math_ops

_FLOAT_AND_COMPLEX = ("float16", "float32", "float64", "complex64", "complex128")


@tf_export("linalg.LinearOperatorFullMatrix")
class LinearOperatorFullMatrix(LinearOperator):
    """`LinearOperator` that wraps a [batch] matrix."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorFullMatrix"):
        parameters = dict(matrix=matrix, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        with name_scope(name, values=[matrix]):
            self._matrix = convert_nonref_to_tensor(matrix, name="matrix")
            self._check_matrix(self._matrix)
            super().__init__(dtype=self._matrix.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                             is_square=is_square, parameters=parameters, name=name)

    def _check_matrix(self, matrix):
        dtype = matrix.dtype.base_dtype
        if dtype.name not in _FLOAT_AND_COMPLEX:
            allowed = "[" + ", ".join(f"tf.{d}" for d in _FLOAT_AND_COMPLEX) + "]"
            raise TypeError(f"Argument `matrix` must have dtype in {allowed}. Received: {_dtype_str(dtype)}.")
        if matrix.shape.ndims is not None and matrix.shape.ndims < 2:
            raise ValueError(f"Argument `matrix` must have at least 2 dimensions. Received: {matrix}.")

    @property
    def matrix(self):
        """The matrix defining this operator."""
        return self._matrix

    def _shape(self):
        return self._matrix.shape

    def _shape_tensor(self):
        return shape_ops.shape(self._matrix)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return linalg_ops.matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self):
        return convert_to_tensor(self._matrix)


@tf_export("linalg.LinearOperatorDiag")
class LinearOperatorDiag(LinearOperator):
    """`LinearOperator` acting like a [batch] square diagonal matrix."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorDiag"):
        parameters = dict(diag=diag, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        with name_scope(name, values=[diag]):
            self._diag = convert_nonref_to_tensor(diag, name="diag")
            self._check_diag(self._diag)
            if not self._diag.dtype.is_complex:
                is_self_adjoint = _implied_true(is_self_adjoint, "A real diagonal operator is always self adjoint.")
            if is_square is False:
                raise ValueError("Only square diagonal operators currently supported.")
            super().__init__(dtype=self._diag.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                             is_square=True, parameters=parameters, name=name)

    def _check_diag(self, diag):
        if diag.shape.ndims is not None and diag.shape.ndims < 1:
            raise ValueError(f"Argument diag must have at least 1 dimension.  Found: {diag}")

    @property
    def diag(self):
        """The [batch] diagonal."""
        return self._diag

    def _shape(self):
        return _square_shape(self._diag)

    def _shape_tensor(self):
        return _square_shape_tensor(self._diag)

    def _linop_inverse(self):
        return LinearOperatorDiag(1. / self.diag, **self._own_hints())

    def _linop_matmul(self, left_operator, right_operator):
        hints = _commuting_hints(left_operator, right_operator)
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(diag=left_operator.diag * right_operator.diag, is_square=True, **hints)
        if hasattr(right_operator, "_ones_diag") and hasattr(right_operator, "multiplier"):
            return LinearOperatorDiag(diag=left_operator.diag * right_operator.multiplier, is_square=True, **hints)
        if isinstance(right_operator, LinearOperatorLowerTriangular):
            hints["is_positive_definite"] = None
            return LinearOperatorLowerTriangular(tril=left_operator.diag[..., None] * right_operator.to_dense(),
                                                 is_square=True, **hints)
        return super()._linop_matmul(left_operator, right_operator)

    def _linop_solve(self, left_operator, right_operator):
        hints = _commuting_hints(left_operator, right_operator)
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(diag=right_operator.diag / left_operator.diag, is_square=True, **hints)
        if hasattr(right_operator, "_ones_diag") and hasattr(right_operator, "multiplier"):
            return LinearOperatorDiag(diag=right_operator.multiplier / left_operator.diag, is_square=True, **hints)
        if isinstance(right_operator, LinearOperatorLowerTriangular):
            hints["is_positive_definite"] = None
            return LinearOperatorLowerTriangular(tril=right_operator.to_dense() / left_operator.diag[..., None],
                                                 is_square=True, **hints)
        return super()._linop_solve(left_operator, right_operator)

    def _assert_non_singular(self):
        return assert_no_entries_with_modulus_zero(self._diag,
                                                   message="Singular operator:  Diagonal contained zero values.")

    def _assert_positive_definite(self):
        if self.dtype.is_complex:
            message = ("Diagonal operator had diagonal entries with non-positive real part, "
                       "thus was not positive definite.")
        else:
            message = "Real diagonal operator had non-positive diagonal entries, thus was not positive definite."
        return check_ops.assert_positive(math_extra_ops.real(self._diag), message=message)

    def _assert_self_adjoint(self):
        return assert_zero_imag_part(
            self._diag, message="This diagonal operator contained non-zero imaginary values.   Thus it was not "
                                "self-adjoint.")

    def _linop_adjoint(self):
        diag = unary_math_ops.conj(self.diag) if self.diag.dtype.is_complex else self.diag
        return LinearOperatorDiag(diag=diag, **self._own_hints())

    def _linop_cholesky(self):
        return LinearOperatorDiag(unary_math_ops.sqrt(self.diag), is_non_singular=True, is_self_adjoint=True,
                                  is_positive_definite=True, is_square=True)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        diag_term = unary_math_ops.conj(self._diag) if adjoint else self._diag
        x = _adjoint(x) if adjoint_arg else x
        return shape_ops.expand_dims(diag_term, -1) * x

    def _matvec(self, x, adjoint=False):
        diag_term = unary_math_ops.conj(self._diag) if adjoint else self._diag
        return diag_term * x

    def _determinant(self):
        return reduction_ops.reduce_prod(self._diag, axis=[-1])

    def _log_abs_determinant(self):
        log_det = reduction_ops.reduce_sum(unary_math_ops.log(unary_math_ops.abs(self._diag)), axis=[-1])
        if self.dtype.is_complex:
            log_det = math_ops.cast(log_det, dtype=self.dtype)
        return log_det

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        diag_term = unary_math_ops.conj(self._diag) if adjoint else self._diag
        rhs = _adjoint(rhs) if adjoint_arg else rhs
        return rhs * shape_ops.expand_dims(1. / diag_term, -1)

    def _to_dense(self):
        return diag_ops.matrix_diag(self._diag)

    def _diag_part(self):
        return self.diag

    def _add_to_tensor(self, x):
        return diag_ops.matrix_set_diag(x, self._diag + diag_ops.matrix_diag_part(x))

    def _eigvals(self):
        return convert_to_tensor(self.diag)

    def _cond(self):
        abs_diag = unary_math_ops.abs(self.diag)
        return reduction_ops.reduce_max(abs_diag, axis=-1) / reduction_ops.reduce_min(abs_diag, axis=-1)


@tf_export("linalg.LinearOperatorLowerTriangular")
class LinearOperatorLowerTriangular(LinearOperator):
    """`LinearOperator` acting like a [batch] square lower triangular matrix (the upper part of ``tril`` is ignored)."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorLowerTriangular"):
        parameters = dict(tril=tril, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        with name_scope(name, values=[tril]):
            self._tril = convert_nonref_to_tensor(tril, name="tril")
            if self._tril.shape.ndims is not None and self._tril.shape.ndims < 2:
                raise ValueError(f"Argument tril must have at least 2 dimensions.  Found: {self._tril}")
            super().__init__(dtype=self._tril.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                             is_square=True, parameters=parameters, name=name)

    @property
    def tril(self):
        """The lower triangular part of ``tril`` (as given)."""
        return self._tril

    def _get_tril(self):
        return linalg_ops.matrix_band_part(self._tril, -1, 0)

    def _get_diag(self):
        return diag_ops.matrix_diag_part(self._tril)

    def _shape(self):
        return self._tril.shape

    def _shape_tensor(self):
        return shape_ops.shape(self._tril)

    def _assert_non_singular(self):
        return assert_no_entries_with_modulus_zero(self._get_diag(),
                                                   message="Singular operator:  Diagonal contained zero values.")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return linalg_ops.matmul(self._get_tril(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _linop_matmul(self, left_operator, right_operator):
        if hasattr(right_operator, "_check_diag"):
            hints = dict(_commuting_hints(right_operator, left_operator), is_positive_definite=None)
            return LinearOperatorLowerTriangular(tril=left_operator.to_dense() * right_operator.diag, is_square=True,
                                                 **hints)
        return super()._linop_matmul(left_operator, right_operator)

    def _determinant(self):
        return reduction_ops.reduce_prod(self._get_diag(), axis=[-1])

    def _log_abs_determinant(self):
        return reduction_ops.reduce_sum(unary_math_ops.log(unary_math_ops.abs(self._get_diag())), axis=[-1])

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adjoint(rhs) if adjoint_arg else rhs
        return linalg_solvers.matrix_triangular_solve(self._get_tril(), rhs, lower=True, adjoint=adjoint)

    def _to_dense(self):
        return self._get_tril()

    def _eigvals(self):
        return self._get_diag()


