"""``tf.linalg.LinearOperatorIdentity``, ``LinearOperatorScaledIdentity`` and ``LinearOperatorZeros``
(TF's ``linear_operator_identity.py`` and ``linear_operator_zeros.py``): operators given by a shape
(and a multiplier) alone, whose methods never build the dense matrix. Imported by
``linear_operator.py``, which holds the base class and the helpers used here.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.dtypes import as_dtype
from dflow.framework.graph import control_dependencies, name_scope
from dflow.framework.tensor_shape import TensorShape, dimension_value
from dflow.ops.array import array_ops, creation_ops, select_ops, shape_ops, shape_utils
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.debugging import check_ops
from dflow.ops.linalg import diag_ops
from dflow.ops.linear_operators.linear_operator import LinearOperator
from dflow.ops.linear_operators.linear_operator_basic import LinearOperatorDiag
from dflow.ops.linear_operators.linear_operator_util import (
    _adjoint,
    _assert_compatible_matrix_dimensions,
    _assert_not_ref_type,
    _commuting_hints,
    _implied_true,
    _shape_tensor,
    _static_int,
    _static_value,
    convert_nonref_to_tensor,
)
from dflow.ops.math import math_extra_ops, math_ops, reduction_ops, unary_math_ops

__all__ = ["LinearOperatorIdentity", "LinearOperatorScaledIdentity", "LinearOperatorZeros"]


def _check_dim_arg(tensor, static, arg: str, rank: int, assert_proper_shapes: bool):
    """TF's static checks (and, with ``assert_proper_shapes``, run-time asserts) of ``num_rows``/``batch_shape``."""
    what = "0-D" if rank == 0 else "1-D"
    if assert_proper_shapes:
        with control_dependencies([
                check_ops.assert_rank(tensor, rank, message=f"Argument {arg} must be a {what} Tensor."),
                check_ops.assert_non_negative(tensor, message=f"Argument {arg} must be non-negative.")]):
            tensor = control_flow_ops.identity(tensor)
    if not tensor.dtype.is_integer:
        raise TypeError(f"Argument {arg} must be integer type.  Found: {tensor}")
    if static is None:
        return tensor
    if static.ndim != rank:
        raise ValueError(f"Argument {arg} must be a {what} Tensor.  Found: {static}")
    if np.any(static < 0):
        sep = " " if rank == 0 else ""
        raise ValueError(f"Argument {arg} must be non-negative.  Found:{sep}{static}")
    return tensor


class _ShapeArgsMixin:
    """``num_rows``/``num_columns``/``batch_shape`` handling shared by Identity and Zeros."""

    def _set_batch_shape(self, batch_shape):
        if batch_shape is None:
            self._batch_shape_arg = None
            return
        arg = _shape_tensor(batch_shape, name="batch_shape_arg")
        self._batch_shape_static = _static_value(arg)
        self._batch_shape_arg = _check_dim_arg(arg, self._batch_shape_static, "batch_shape", 1,
                                               self._assert_proper_shapes)

    def _with_batch_shape(self, matrix_shape: TensorShape) -> TensorShape:
        """The static shape: the batch shape (where one was given) then ``matrix_shape``."""
        if self._batch_shape_arg is None:
            return matrix_shape
        static = self._batch_shape_static
        batch = TensorShape(None) if static is None else TensorShape([int(d) for d in static])
        return batch.concatenate(matrix_shape)

    def _with_batch_shape_tensor(self, num_rows, num_columns):
        """The shape as a Tensor: the batch shape (where one was given) then ``[num_rows, num_columns]``."""
        matrix_shape = array_ops.stack((num_rows, num_columns), axis=0)
        if self._batch_shape_arg is None:
            return matrix_shape
        return array_ops.concat((self._batch_shape_arg, matrix_shape), 0)

    def _possibly_broadcast_batch_shape(self, x):
        if self._batch_shape_arg is None:
            return x
        special_shape = self.batch_shape.concatenate([1, 1])
        bshape = shape_utils.broadcast_static_shape(x.shape, special_shape)
        if special_shape.is_fully_defined():
            if bshape == x.shape:
                return x
            return x + creation_ops.zeros(shape=special_shape, dtype=self.dtype)
        special = array_ops.concat((self.batch_shape_tensor(), [1, 1]), 0)
        return x + creation_ops.zeros(shape=special, dtype=self.dtype)

    def _min_matrix_dim(self):
        domain_dim = dimension_value(self.domain_dimension)
        range_dim = dimension_value(self.range_dimension)
        if domain_dim is None or range_dim is None:
            return None
        return min(domain_dim, range_dim)

    def _min_matrix_dim_tensor(self):
        return reduction_ops.reduce_min(self.shape_tensor()[-2:])

    def _diag_shape(self):
        if self.shape.is_fully_defined():
            return self.batch_shape.concatenate([self._min_matrix_dim()])
        return array_ops.concat([self.batch_shape_tensor(), [self._min_matrix_dim_tensor()]], axis=0)

    def _batch_of(self, fill):
        shape = self.batch_shape if self.batch_shape.is_fully_defined() else self.batch_shape_tensor()
        return fill(shape=shape, dtype=self.dtype)


class BaseLinearOperatorIdentity(_ShapeArgsMixin, LinearOperator):
    """Base class for Identity operators."""

    def _set_num_rows(self, num_rows):
        _assert_not_ref_type(num_rows, "num_rows")
        arg = _shape_tensor(num_rows, name="num_rows")
        self._num_rows_static = _static_value(arg)
        self._num_rows = _check_dim_arg(arg, self._num_rows_static, "num_rows", 0, self._assert_proper_shapes)

    def _ones_diag(self):
        return creation_ops.ones(shape=self._diag_shape(), dtype=self.dtype)

    def _matrix_shape(self):
        return TensorShape((_static_int(self._num_rows_static),) * 2)

    def _checked_arg(self, x):
        if self._assert_proper_shapes:
            with control_dependencies([_assert_compatible_matrix_dimensions(self, x)]):
                x = control_flow_ops.identity(x)
        return x

    def _trace(self):
        ones = self._batch_of(creation_ops.ones)
        if self._min_matrix_dim() is not None:
            scale = self._min_matrix_dim()
        else:
            scale = math_ops.cast(self._min_matrix_dim_tensor(), self.dtype)
        if hasattr(self, "multiplier"):
            return self.multiplier * scale * ones
        return scale * ones


@tf_export("linalg.LinearOperatorIdentity")
class LinearOperatorIdentity(BaseLinearOperatorIdentity):
    """`LinearOperator` acting like a [batch] square identity matrix."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True, is_self_adjoint=True,
                 is_positive_definite=True, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorIdentity"):
        parameters = dict(num_rows=num_rows, batch_shape=batch_shape, dtype=dtype,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        dtype = dtype or dtypes.float32
        self._assert_proper_shapes = assert_proper_shapes
        with name_scope(name):
            dtype = as_dtype(dtype)
            if not is_self_adjoint:
                raise ValueError("An identity operator is always self adjoint.")
            if not is_non_singular:
                raise ValueError("An identity operator is always non-singular.")
            if not is_positive_definite:
                raise ValueError("An identity operator is always positive-definite.")
            if not is_square:
                raise ValueError("An identity operator is always square.")
            super().__init__(dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)
            _assert_not_ref_type(batch_shape, "batch_shape")
            self._set_num_rows(num_rows)
            self._set_batch_shape(batch_shape)

    def _shape(self):
        return self._with_batch_shape(self._matrix_shape())

    def _shape_tensor(self):
        return self._with_batch_shape_tensor(self._num_rows, self._num_rows)

    def _linop_adjoint(self):
        return self

    def _linop_cholesky(self):
        return LinearOperatorIdentity(num_rows=self._num_rows, batch_shape=self.batch_shape, dtype=self.dtype)

    def _linop_inverse(self):
        return self

    def _linop_matmul(self, left_operator, right_operator):
        return right_operator

    def _linop_solve(self, left_operator, right_operator):
        return right_operator

    def _assert_non_singular(self):
        return control_flow_ops.no_op("assert_non_singular")

    def _assert_positive_definite(self):
        return control_flow_ops.no_op("assert_positive_definite")

    def _assert_self_adjoint(self):
        return control_flow_ops.no_op("assert_self_adjoint")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        return self._possibly_broadcast_batch_shape(self._checked_arg(x))

    def _determinant(self):
        return creation_ops.ones(shape=self.batch_shape_tensor(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return creation_ops.zeros(shape=self.batch_shape_tensor(), dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _diag_part(self):
        return self._ones_diag()

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """``mat`` with 1 added to its diagonal."""
        with self._name_scope(name):
            mat = convert_to_tensor(mat, name="mat")
            return diag_ops.matrix_set_diag(mat, 1 + diag_ops.matrix_diag_part(mat))

    def _eigvals(self):
        return self._ones_diag()

    def _cond(self):
        return creation_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)


@tf_export("linalg.LinearOperatorScaledIdentity")
class LinearOperatorScaledIdentity(BaseLinearOperatorIdentity):
    """`LinearOperator` acting like a scaled [batch] identity matrix ``A = c I``."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorScaledIdentity"):
        parameters = dict(num_rows=num_rows, multiplier=multiplier, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, assert_proper_shapes=assert_proper_shapes, name=name)
        self._assert_proper_shapes = assert_proper_shapes
        with name_scope(name, values=[multiplier, num_rows]):
            self._multiplier = convert_nonref_to_tensor(multiplier, name="multiplier")
            if not self._multiplier.dtype.is_complex:
                is_self_adjoint = _implied_true(is_self_adjoint, "A real diagonal operator is always self adjoint.")
            if not is_square:
                raise ValueError("A ScaledIdentity operator is always square.")
            _assert_not_ref_type(num_rows, "num_rows")
            super().__init__(dtype=self._multiplier.dtype.base_dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                             is_square=is_square, parameters=parameters, name=name)
            self._set_num_rows(num_rows)
            self._num_rows_cast_to_dtype = math_ops.cast(self._num_rows, self.dtype)
            self._num_rows_cast_to_real_dtype = math_ops.cast(self._num_rows, self.dtype.real_dtype)

    @property
    def multiplier(self):
        """The [batch] scalar ``c`` in ``c I``."""
        return self._multiplier

    def _shape(self):
        return self.multiplier.shape.concatenate(self._matrix_shape())

    def _shape_tensor(self):
        matrix_shape = array_ops.stack((self._num_rows, self._num_rows), axis=0)
        return array_ops.concat((shape_ops.shape(self.multiplier), matrix_shape), 0)

    def _assert_non_singular(self):
        return check_ops.assert_positive(unary_math_ops.abs(self.multiplier), message="LinearOperator was singular")

    def _assert_positive_definite(self):
        return check_ops.assert_positive(math_extra_ops.real(self.multiplier),
                                         message="LinearOperator was not positive definite.")

    def _assert_self_adjoint(self):
        imag = math_extra_ops.imag(self.multiplier)
        return check_ops.assert_equal(creation_ops.zeros_like(imag), imag,
                                      message="LinearOperator was not self-adjoint")

    def _make_multiplier_matrix(self, conjugate=False):
        m = shape_ops.expand_dims(shape_ops.expand_dims(self.multiplier, -1), -1)
        return unary_math_ops.conj(m) if conjugate else m

    def _linop_adjoint(self):
        multiplier = unary_math_ops.conj(self.multiplier) if self.multiplier.dtype.is_complex else self.multiplier
        return LinearOperatorScaledIdentity(num_rows=self._num_rows, multiplier=multiplier, **self._own_hints())

    def _linop_cholesky(self):
        return LinearOperatorScaledIdentity(num_rows=self._num_rows, multiplier=unary_math_ops.sqrt(self.multiplier),
                                            is_non_singular=True, is_self_adjoint=True, is_positive_definite=True,
                                            is_square=True)

    def _linop_inverse(self):
        return LinearOperatorScaledIdentity(num_rows=self._num_rows, multiplier=1. / self.multiplier,
                                            is_non_singular=self.is_non_singular, is_self_adjoint=True,
                                            is_positive_definite=self.is_positive_definite, is_square=True)

    def _linop_matmul(self, left_operator, right_operator):
        hints = _commuting_hints(left_operator, right_operator)
        if isinstance(right_operator, LinearOperatorScaledIdentity):
            return LinearOperatorScaledIdentity(num_rows=left_operator.domain_dimension_tensor(),
                                                multiplier=left_operator.multiplier * right_operator.multiplier,
                                                is_square=True, **hints)
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(diag=right_operator.diag * left_operator.multiplier, is_square=True, **hints)
        return super()._linop_matmul(left_operator, right_operator)

    def _linop_solve(self, left_operator, right_operator):
        hints = _commuting_hints(left_operator, right_operator)
        if isinstance(right_operator, LinearOperatorScaledIdentity):
            return LinearOperatorScaledIdentity(num_rows=left_operator.domain_dimension_tensor(),
                                                multiplier=right_operator.multiplier / left_operator.multiplier,
                                                is_square=True, **hints)
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(diag=right_operator.diag / left_operator.multiplier, is_square=True, **hints)
        return super()._linop_solve(left_operator, right_operator)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        return self._checked_arg(x) * self._make_multiplier_matrix(conjugate=adjoint)

    def _determinant(self):
        return self.multiplier ** self._num_rows_cast_to_dtype

    def _log_abs_determinant(self):
        return self._num_rows_cast_to_real_dtype * unary_math_ops.log(unary_math_ops.abs(self.multiplier))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adjoint(rhs) if adjoint_arg else rhs
        return self._checked_arg(rhs) / self._make_multiplier_matrix(conjugate=adjoint)

    def _diag_part(self):
        return self._ones_diag() * self.multiplier[..., None]

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """``mat`` with the multiplier added to its diagonal."""
        with self._name_scope(name):
            multiplier_vector = shape_ops.expand_dims(self.multiplier, -1)
            mat = convert_to_tensor(mat, name="mat")
            return diag_ops.matrix_set_diag(mat, multiplier_vector + diag_ops.matrix_diag_part(mat))

    def _eigvals(self):
        return self._ones_diag() * self.multiplier[..., None]

    def _cond(self):
        return select_ops.where_v2(math_ops.equal(self._multiplier, 0.), math_ops.cast(np.nan, dtype=self.dtype),
                                   math_ops.cast(1., dtype=self.dtype))


@tf_export("linalg.LinearOperatorZeros")
class LinearOperatorZeros(_ShapeArgsMixin, LinearOperator):
    """`LinearOperator` acting like a [batch] zero matrix."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None, is_non_singular=False,
                 is_self_adjoint=True, is_positive_definite=False, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorZeros"):
        parameters = dict(num_rows=num_rows, num_columns=num_columns, batch_shape=batch_shape, dtype=dtype,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        dtype = dtype or dtypes.float32
        self._assert_proper_shapes = assert_proper_shapes
        with name_scope(name):
            dtype = as_dtype(dtype)
            if not is_self_adjoint and is_square:
                raise ValueError("A zero operator is always self adjoint.")
            if is_non_singular:
                raise ValueError("A zero operator is always singular.")
            if is_positive_definite:
                raise ValueError("A zero operator is always not positive-definite.")
            super().__init__(dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)
            _assert_not_ref_type(num_rows, "num_rows")
            _assert_not_ref_type(num_columns, "num_columns")
            _assert_not_ref_type(batch_shape, "batch_shape")
            rows = _shape_tensor(num_rows, name="num_rows")
            self._num_rows_static = _static_value(rows)
            cols = _shape_tensor(num_rows if num_columns is None else num_columns, name="num_columns")
            self._num_columns_static = _static_value(cols)
            self._num_rows = _check_dim_arg(rows, self._num_rows_static, "num_rows", 0, assert_proper_shapes)
            self._num_columns = _check_dim_arg(cols, self._num_columns_static, "num_columns", 0,
                                               assert_proper_shapes)
            if self._num_rows_static is not None and self._num_columns_static is not None:
                if is_square and self._num_rows_static != self._num_columns_static:
                    raise ValueError("LinearOperatorZeros initialized as is_square=True, but got "
                                     f"num_rows({self._num_rows_static}) != num_columns({self._num_columns_static})")
            self._set_batch_shape(batch_shape)

    def _shape(self):
        return self._with_batch_shape(TensorShape((_static_int(self._num_rows_static),
                                                   _static_int(self._num_columns_static))))

    def _shape_tensor(self):
        return self._with_batch_shape_tensor(self._num_rows, self._num_columns)

    def _assert_non_singular(self):
        raise errors.InvalidArgumentError(None, None, "Zero operators are always non-invertible.")

    def _assert_positive_definite(self):
        raise errors.InvalidArgumentError(None, None, "Zero operators are always non-positive definite.")

    def _assert_self_adjoint(self):
        return control_flow_ops.no_op("assert_self_adjoint")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        if self._assert_proper_shapes:
            x = _adjoint(x) if adjoint_arg else x
            with control_dependencies([_assert_compatible_matrix_dimensions(self, x)]):
                x = control_flow_ops.identity(x)
        x_shape = shape_ops.shape(x)
        if self.is_square:
            if adjoint_arg:
                output_shape = array_ops.concat([x_shape[:-2], [x_shape[-1], x_shape[-2]]], axis=0)
            else:
                output_shape = x_shape
            return self._possibly_broadcast_batch_shape(creation_ops.zeros(shape=output_shape, dtype=x.dtype))
        n = self._num_columns if adjoint else self._num_rows
        m = x_shape[-2] if adjoint_arg else x_shape[-1]
        output_shape = array_ops.concat([x_shape[:-2], [n, m]], axis=0)
        return self._possibly_broadcast_batch_shape(creation_ops.zeros(shape=output_shape, dtype=x.dtype))

    def _linop_matmul(self, left_operator, right_operator):
        if not left_operator.is_square or not right_operator.is_square:
            raise ValueError("Matmul with non-square `LinearOperator`s or non-square "
                             "`LinearOperatorZeros` not supported at this time.")
        return left_operator

    def _determinant(self):
        return self._batch_of(creation_ops.zeros)

    def _trace(self):
        return self._batch_of(creation_ops.zeros)

    def _diag_part(self):
        return self._zeros_diag()

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """``mat`` itself (broadcast against the batch shape)."""
        return self._possibly_broadcast_batch_shape(mat)

    def _zeros_diag(self):
        return creation_ops.zeros(shape=self._diag_shape(), dtype=self.dtype)

    def _eigvals(self):
        return self._zeros_diag()
