"""The structured ``tf.linalg.LinearOperator`` subclasses of TF 2.15.

Low-rank update (Woodbury and the matrix determinant lemma), Kronecker
product (factor by factor), permutation (a gather) and Householder reflection,
each following TF's file of the same name; the block operators are in
``linear_operator_block.py`` and the tridiagonal one in ``linear_operator_tridiag.py``. Imported by
``linear_operator.py``; the circulant and Toeplitz operators live in
``linear_operator_circulant.py``, imported at the end of this file.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes as _dtypes
from dflow.framework import errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.tensor import Tensor
from dflow.framework.tensor_shape import Dimension, TensorShape, dimension_value
from dflow.ops.array import array_ops, creation_ops, gather_ops, shape_ops, shape_utils, tiling_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.linalg import diag_ops, linalg_factorizations, linalg_ops, linalg_solvers
from dflow.ops.linear_operators.linear_operator import LinearOperator
from dflow.ops.linear_operators.linear_operator_basic import (
    LinearOperatorDiag,
)
from dflow.ops.linear_operators.linear_operator_identity import LinearOperatorIdentity
from dflow.ops.linear_operators.linear_operator_util import (
    _adjoint,
    _broadcast_batch_shapes,
    _check_iterable,
    _dim_at,
    _implied_true,
    _square_shape,
    _square_shape_tensor,
    _static_value,
    convert_nonref_to_tensor,
    matrix_solve_with_broadcast,
)
from dflow.ops.math import math_ops, reduction_ops, sort_ops, unary_math_ops
from dflow.ops.nn import nn_norm_ops

__all__ = ["LinearOperatorLowRankUpdate", "LinearOperatorKronecker", "LinearOperatorPermutation",
           "LinearOperatorHouseholder"]


def _all_hint(operators, hint: str, given, message: str):
    """True when every operator has the hint (a ValueError when the caller said False); else ``given``."""
    if all(getattr(op, hint) for op in operators):
        return _implied_true(given, message.format(given))
    return given


# ----------------------------------------------------------------------------------------------------------------------
# Low-rank update
# ----------------------------------------------------------------------------------------------------------------------

@tf_export("linalg.LinearOperatorLowRankUpdate")
class LinearOperatorLowRankUpdate(LinearOperator):
    """Perturb a `LinearOperator` with a rank `K` update: ``A = L + U D V^H``."""

    def __init__(self, base_operator, u, diag_update=None, v=None, is_diag_update_positive=None,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        parameters = dict(base_operator=base_operator, u=u, diag_update=diag_update, v=v,
                          is_diag_update_positive=is_diag_update_positive, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        dtype = base_operator.dtype
        if diag_update is None:
            is_diag_update_positive = _implied_true(is_diag_update_positive,
                                                    "Default diagonal is the identity, which is positive.  However, "
                                                    "user set 'is_diag_update_positive' to False.")
        self._use_cholesky = bool(base_operator.is_positive_definite and base_operator.is_self_adjoint
                                  and is_diag_update_positive and v is None)
        if base_operator.is_self_adjoint and v is None and not dtype.is_complex:
            is_self_adjoint = _implied_true(is_self_adjoint, "A = L + UDU^H, with L self-adjoint and D real diagonal.  "
                                                             "Since UDU^H is self-adjoint, this must be a self-adjoint "
                                                             "operator.")
        if self._use_cholesky:
            if is_positive_definite is False or is_self_adjoint is False or is_non_singular is False:
                raise ValueError("Arguments imply this is self-adjoint positive-definite operator.")
            is_positive_definite = True
            is_self_adjoint = True
        with name_scope(name):
            self._u = convert_nonref_to_tensor(u, name="u")
            self._v = self._u if v is None else convert_nonref_to_tensor(v, name="v")
            self._diag_update = None if diag_update is None else convert_nonref_to_tensor(diag_update,
                                                                                          name="diag_update")
            self._base_operator = base_operator
            super().__init__(dtype=base_operator.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                             is_square=is_square, parameters=parameters, name=name)
            if self._diag_update is not None:
                self._diag_operator = LinearOperatorDiag(self._diag_update,
                                                         is_positive_definite=is_diag_update_positive)
            else:
                r = dimension_value(self._u.shape[-1])
                if r is None:
                    r = shape_ops.shape(self._u)[-1]
                self._diag_operator = LinearOperatorIdentity(num_rows=r, dtype=self.dtype)
            self._is_diag_update_positive = is_diag_update_positive
            self._check_shapes()

    def _check_shapes(self):
        uv_shape = shape_utils.broadcast_static_shape(self.u.shape, self.v.shape)
        batch_shape = shape_utils.broadcast_static_shape(self.base_operator.batch_shape, uv_shape[:-2])
        Dimension(self.base_operator.domain_dimension).assert_is_compatible_with(_dim_at(uv_shape, -2))
        if self._diag_update is not None:
            _dim_at(uv_shape, -1).assert_is_compatible_with(_dim_at(self._diag_update.shape, -1))
            shape_utils.broadcast_static_shape(batch_shape, self._diag_update.shape[:-1])

    @property
    def u(self):
        """``U`` in ``A = L + U D V^H``."""
        return self._u

    @property
    def v(self):
        """``V`` in ``A = L + U D V^H`` (``U`` when not given)."""
        return self._v

    @property
    def is_diag_update_positive(self):
        """Hint: the diagonal of ``D`` is positive."""
        return self._is_diag_update_positive

    @property
    def diag_update(self):
        """The diagonal of ``D`` (None: the identity)."""
        return self._diag_update

    @property
    def diag_operator(self):
        """``D`` as a LinearOperator."""
        return self._diag_operator

    @property
    def base_operator(self):
        """``L`` as a LinearOperator."""
        return self._base_operator

    def _assert_self_adjoint(self):
        if self.u is self.v and self.diag_update is None:
            return self.base_operator.assert_self_adjoint()
        return super().assert_self_adjoint()

    def _shape(self):
        batch_shape = shape_utils.broadcast_static_shape(self.base_operator.batch_shape, self.diag_operator.batch_shape)
        batch_shape = shape_utils.broadcast_static_shape(batch_shape, self.u.shape[:-2])
        batch_shape = shape_utils.broadcast_static_shape(batch_shape, self.v.shape[:-2])
        return batch_shape.concatenate(self.base_operator.shape[-2:])

    def _shape_tensor(self):
        batch_shape = shape_utils.broadcast_dynamic_shape(self.base_operator.batch_shape_tensor(),
                                                          self.diag_operator.batch_shape_tensor())
        batch_shape = shape_utils.broadcast_dynamic_shape(batch_shape, shape_ops.shape(self.u)[:-2])
        batch_shape = shape_utils.broadcast_dynamic_shape(batch_shape, shape_ops.shape(self.v)[:-2])
        return array_ops.concat([batch_shape, self.base_operator.shape_tensor()[-2:]], axis=0)

    def _get_uv_as_tensors(self):
        u = convert_to_tensor(self.u)
        v = u if self.v is self.u else convert_to_tensor(self.v)
        return u, v

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        u, v = self._get_uv_as_tensors()
        leading_term = self.base_operator.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        first, second = (u, v) if adjoint else (v, u)
        h_x = linalg_ops.matmul(first, x, adjoint_a=True, adjoint_b=adjoint_arg)
        d_h_x = self.diag_operator.matmul(h_x, adjoint=adjoint)
        return leading_term + linalg_ops.matmul(second, d_h_x)

    def _determinant(self):
        if self.is_positive_definite:
            return unary_math_ops.exp(self.log_abs_determinant())
        u, v = self._get_uv_as_tensors()
        det_c = linalg_solvers.matrix_determinant(self._make_capacitance(u=u, v=v))
        return det_c * self.diag_operator.determinant() * self.base_operator.determinant()

    def _diag_part(self):
        u, v = self._get_uv_as_tensors()
        product = u * unary_math_ops.conj(v)
        if self.diag_update is not None:
            product *= shape_ops.expand_dims(self.diag_update, axis=-2)
        return reduction_ops.reduce_sum(product, axis=-1) + self.base_operator.diag_part()

    def _log_abs_determinant(self):
        u, v = self._get_uv_as_tensors()
        log_abs_det_d = self.diag_operator.log_abs_determinant()
        log_abs_det_l = self.base_operator.log_abs_determinant()
        if self._use_cholesky:
            chol_cap_diag = diag_ops.matrix_diag_part(linalg_factorizations.cholesky(self._make_capacitance(u=u, v=v)))
            log_abs_det_c = 2 * reduction_ops.reduce_sum(unary_math_ops.log(chol_cap_diag), axis=[-1])
        else:
            det_c = linalg_solvers.matrix_determinant(self._make_capacitance(u=u, v=v))
            log_abs_det_c = unary_math_ops.log(unary_math_ops.abs(det_c))
            if self.dtype.is_complex:
                log_abs_det_c = math_ops.cast(log_abs_det_c, dtype=self.dtype)
        return log_abs_det_c + log_abs_det_d + log_abs_det_l

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if self.base_operator.is_non_singular is False:
            raise ValueError("Solve not implemented unless this is a perturbation of a non-singular LinearOperator.")
        base = self.base_operator
        u, v = self._get_uv_as_tensors()
        capacitance = self._make_capacitance(u=u, v=v)  # C = D^-1 + V^H L^-1 U, solved with C^H for the adjoint
        if adjoint:
            u, v = v, u
        linv_rhs = base.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_linv_rhs = linalg_ops.matmul(v, linv_rhs, adjoint_a=True)
        if self._use_cholesky:
            capinv_vh_linv_rhs = linalg_solvers.cholesky_solve(linalg_factorizations.cholesky(capacitance), vh_linv_rhs)
        else:
            capinv_vh_linv_rhs = matrix_solve_with_broadcast(capacitance, vh_linv_rhs, adjoint=adjoint)
        linv_u_capinv = base.solve(linalg_ops.matmul(u, capinv_vh_linv_rhs), adjoint=adjoint)
        return linv_rhs - linv_u_capinv

    def _make_capacitance(self, u, v):
        linv_u = self.base_operator.solve(u)
        vh_linv_u = linalg_ops.matmul(v, linv_u, adjoint_a=True)
        return self._diag_operator.inverse().add_to_tensor(vh_linv_u)


# ----------------------------------------------------------------------------------------------------------------------
# Kronecker
# ----------------------------------------------------------------------------------------------------------------------

def _prefer_static_shape(x):
    return x.shape if x.shape.is_fully_defined() else shape_ops.shape(x)


def _prefer_static_concat_shape(first_shape, second):
    second = [dimension_value(s) if isinstance(s, Dimension) else s for s in second]
    static = [_static_value(s) if isinstance(s, Tensor) else s for s in second]
    if isinstance(first_shape, TensorShape) and all(s is not None for s in static):
        return first_shape.concatenate([int(s) for s in static])
    if isinstance(first_shape, TensorShape):
        first_shape = first_shape.as_list()
    return array_ops.concat([first_shape, array_ops.stack([math_ops.cast(s, _dtypes.int32) for s in second])], axis=0)


@tf_export("linalg.LinearOperatorKronecker")
class LinearOperatorKronecker(LinearOperator):
    """Kronecker product between two or more linear operators: ``A1 x A2 x ... x An``."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        _check_iterable(operators)
        operators = list(operators)
        if not operators:
            raise ValueError(f"Argument `operators` must be a list of >=1 operators. Received: {operators}.")
        self._operators = operators
        dtype = operators[0].dtype
        for operator in operators:
            if operator.dtype != dtype:
                name_type = [str((o.name, o.dtype)) for o in operators]
                raise TypeError(f"Expected every operation in argument `operators` to have the same dtype. "
                                f"Received {name_type}.")
        is_non_singular = _all_hint(
            operators, "is_non_singular", is_non_singular,
            "The Kronecker product of non-singular operators is always non-singular. Expected argument "
            "`is_non_singular` to be True. Received: {}.")
        is_self_adjoint = _all_hint(
            operators, "is_self_adjoint", is_self_adjoint,
            "The Kronecker product of self-adjoint operators is always self-adjoint. Expected argument "
            "`is_self_adjoint` to be True. Received: {}.")
        is_positive_definite = _all_hint(
            operators, "is_positive_definite", is_positive_definite,
            "The Kronecker product of positive-definite operators is always positive-definite. Expected argument "
            "`is_positive_definite` to be True. Received: {}.")
        if name is None:
            name = "_x_".join(operator.name for operator in operators)
        with name_scope(name):
            super().__init__(dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def operators(self):
        """The Kronecker factors, outermost first."""
        return self._operators

    def _shape(self):
        domain_dimension = self.operators[0].domain_dimension
        range_dimension = self.operators[0].range_dimension
        for operator in self.operators[1:]:
            domain_dimension = domain_dimension * operator.domain_dimension
            range_dimension = range_dimension * operator.range_dimension
        return _broadcast_batch_shapes(self.operators).concatenate(TensorShape([range_dimension, domain_dimension]))

    def _shape_tensor(self):
        domain_dimension = self.operators[0].domain_dimension_tensor()
        range_dimension = self.operators[0].range_dimension_tensor()
        batch_shape = self.operators[0].batch_shape_tensor()
        for operator in self.operators[1:]:
            domain_dimension = domain_dimension * operator.domain_dimension_tensor()
            range_dimension = range_dimension * operator.range_dimension_tensor()
            batch_shape = shape_utils.broadcast_dynamic_shape(batch_shape, operator.batch_shape_tensor())
        return array_ops.concat((batch_shape, array_ops.stack([range_dimension, domain_dimension])), 0)

    def _linop_adjoint(self):
        return LinearOperatorKronecker(operators=[operator.adjoint() for operator in self.operators],
                                       **self._own_hints())

    def _linop_cholesky(self):
        return LinearOperatorKronecker(operators=[operator.cholesky() for operator in self.operators],
                                       is_non_singular=True, is_self_adjoint=None, is_square=True)

    def _linop_inverse(self):
        return LinearOperatorKronecker(operators=[operator.inverse() for operator in self.operators],
                                       **self._own_hints())

    def _solve_matmul_internal(self, x, solve_matmul_fn, adjoint=False, adjoint_arg=False):
        """Applies each factor in turn to ``x`` reshaped so that the factor acts on one axis (TF's algorithm)."""
        output = x
        if adjoint_arg:
            if self.dtype.is_complex:
                output = unary_math_ops.conj(output)
        else:
            output = linalg_ops.matrix_transpose(output)
        for o in reversed(self.operators):
            operator_dimension = o.range_dimension_tensor() if adjoint else o.domain_dimension_tensor()
            output_shape = _prefer_static_shape(output)
            static_dim = _static_value(operator_dimension)
            if static_dim is not None and dimension_value(output.shape[-2]) is not None and \
                    dimension_value(output.shape[-1]) is not None:
                operator_dimension = int(static_dim)
                dim = int(dimension_value(output.shape[-2]) * dimension_value(output.shape[-1]) // operator_dimension)
            else:
                rows, cols = output_shape[-2], output_shape[-1]
                if isinstance(output_shape, TensorShape):
                    rows, cols = dimension_value(rows), dimension_value(cols)
                dim = math_ops.cast(rows * cols // operator_dimension, dtype=_dtypes.int32)
            output = shape_ops.reshape(output, shape=_prefer_static_concat_shape(output_shape[:-2],
                                                                                 [dim, operator_dimension]))
            if self.dtype.is_complex:
                output = unary_math_ops.conj(output)
            output = solve_matmul_fn(o, output, adjoint=adjoint, adjoint_arg=True)
        col_dim = _prefer_static_shape(x)[-2 if adjoint_arg else -1]
        row_dim = self.domain_dimension_tensor() if adjoint else self.range_dimension_tensor()
        output = shape_ops.reshape(output, _prefer_static_concat_shape(_prefer_static_shape(output)[:-2],
                                                                       [row_dim, col_dim]))
        if x.shape.is_fully_defined():
            column_dim = x.shape[-2] if adjoint_arg else x.shape[-1]
            batch = shape_utils.broadcast_static_shape(x.shape[:-2], self.batch_shape)
            rows = self.domain_dimension if adjoint else self.range_dimension
            output.set_shape(batch.concatenate([rows, column_dim]))
        return output

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._solve_matmul_internal(x, lambda o, y, **kw: o.matmul(y, **kw), adjoint, adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._solve_matmul_internal(rhs, lambda o, y, **kw: o.solve(y, **kw), adjoint, adjoint_arg)

    def _determinant(self):
        total = self.domain_dimension_tensor()
        determinant = 1.
        for operator in self.operators:
            determinant = determinant * operator.determinant() ** math_ops.cast(
                total / operator.domain_dimension_tensor(), dtype=operator.dtype)
        return determinant

    def _log_abs_determinant(self):
        total = self.domain_dimension_tensor()
        log_abs_det = 0.
        for operator in self.operators:
            log_abs_det += operator.log_abs_determinant() * math_ops.cast(total / operator.domain_dimension_tensor(),
                                                                          dtype=operator.dtype)
        return log_abs_det

    def _trace(self):
        trace = 1.
        for operator in self.operators:
            trace = trace * operator.trace()
        return trace

    def _diag_part(self):
        diag_part = self.operators[0].diag_part()
        for operator in self.operators[1:]:
            diag_part = diag_part[..., :, None] * operator.diag_part()[..., None, :]
            diag_part = shape_ops.reshape(
                diag_part, shape=array_ops.concat([shape_ops.shape(diag_part)[:-2], [-1]], axis=0))
        if self.range_dimension > self.domain_dimension:
            diag_dimension = self.domain_dimension
        else:
            diag_dimension = self.range_dimension
        diag_part.set_shape(self.batch_shape.concatenate([diag_dimension]))
        return diag_part

    def _to_dense(self):
        product = self.operators[0].to_dense()
        for operator in self.operators[1:]:
            product = product[..., :, None, :, None] * \
                operator.to_dense()[..., None, :, None, :]
            s = _prefer_static_shape(product)
            product = shape_ops.reshape(
                product, shape=_prefer_static_concat_shape(s[:-4], [s[-4] * s[-3], s[-2] * s[-1]]))
        product.set_shape(self.shape)
        return product

    def _eigvals(self):
        eigvals = [operator.eigvals() for operator in self.operators]
        product = eigvals[0]
        for eigval in eigvals[1:]:
            product = product[..., None] * eigval[..., None, :]
            product = shape_ops.reshape(product, shape=array_ops.concat([shape_ops.shape(product)[:-2], [-1]], axis=0))
        product.set_shape(self.shape[:-1])
        return product

    def _assert_factors(self, method: str):
        if all(operator.is_square for operator in self.operators):
            return control_flow_ops.group([getattr(operator, method)() for operator in self.operators])
        raise errors.InvalidArgumentError(
            None, None, "All Kronecker factors must be square for the product to be invertible. Expected hint "
                        "`is_square` to be True for every operator in argument `operators`.")

    def _assert_non_singular(self):
        return self._assert_factors("assert_non_singular")

    def _assert_self_adjoint(self):
        return self._assert_factors("assert_self_adjoint")


# ----------------------------------------------------------------------------------------------------------------------
# Permutation, Householder
# ----------------------------------------------------------------------------------------------------------------------

@tf_export("linalg.LinearOperatorPermutation")
class LinearOperatorPermutation(LinearOperator):
    """`LinearOperator` acting like a [batch] of permutations: ``(P x)[i] = x[perm[i]]``."""

    def __init__(self, perm, dtype=_dtypes.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        parameters = dict(perm=perm, dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        with name_scope(name, values=[perm]):
            self._perm = convert_nonref_to_tensor(perm, name="perm")
            self._check_perm(self._perm)
            if is_non_singular is False:
                raise ValueError("A Permutation operator is always non-singular. Expected argument "
                                 f"`is_non_singular` to be True. Received: {is_non_singular}.")
            if is_square is False:
                raise ValueError("A Permutation operator is always square. Expected argument `is_square` to be "
                                 f"True. Received: {is_square}.")
            super().__init__(dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=True, parameters=parameters,
                             name=name)

    def _check_perm(self, perm):
        if perm.shape.ndims is not None and perm.shape.ndims < 1:
            raise ValueError(f"Argument `perm` must have at least 1 dimension. Received: {perm}.")
        if not perm.dtype.is_integer:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: {perm}.")
        static_perm = _static_value(perm)
        if static_perm is not None:
            if np.any(np.sort(static_perm, axis=-1) != np.arange(0, static_perm.shape[-1])):
                raise ValueError(f"Argument `perm` must be a vector of unique integers from "
                                 f"0 to {static_perm.shape[-1] - 1}.")

    @property
    def perm(self):
        """The [batch] permutation."""
        return self._perm

    def _shape(self):
        return _square_shape(self._perm)

    def _shape_tensor(self):
        return _square_shape_tensor(self._perm)

    def _assert_non_singular(self):
        return control_flow_ops.no_op("assert_non_singular")

    def _domain_dimension_tensor(self, perm=None):
        perm = perm if perm is not None else self.perm
        return shape_ops.shape(perm)[-1]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        perm = convert_to_tensor(self.perm)
        if adjoint and not self.is_self_adjoint:
            perm = sort_ops.argsort(perm, axis=-1)
        x = _adjoint(x) if adjoint_arg else x
        broadcast_shape = shape_utils.broadcast_dynamic_shape(shape_ops.shape(x)[:-1], shape_ops.shape(perm))
        k = shape_ops.shape(x)[-1]
        broadcast_x_shape = array_ops.concat([broadcast_shape, [k]], axis=-1)
        x = tiling_ops.broadcast_to(x, broadcast_x_shape)
        perm = tiling_ops.broadcast_to(perm, broadcast_shape)
        m = shape_ops.shape(x)[-2]
        x = shape_ops.reshape(x, array_ops.stack([-1, m, k]))
        perm = shape_ops.reshape(perm, array_ops.stack([-1, m]))
        y = gather_ops.gather(x, perm, axis=-2, batch_dims=1)
        return shape_ops.reshape(y, broadcast_x_shape)

    def _log_abs_determinant(self):
        return creation_ops.zeros(shape=self.batch_shape_tensor(), dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self):
        perm = convert_to_tensor(self.perm)
        return math_ops.cast(
            math_ops.equal(creation_ops.range(0, self._domain_dimension_tensor(perm)), perm[..., None]), self.dtype)

    def _diag_part(self):
        perm = convert_to_tensor(self.perm)
        return math_ops.cast(
            math_ops.equal(creation_ops.range(0, self._domain_dimension_tensor(perm)), perm), self.dtype)

    def _cond(self):
        return creation_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)


@tf_export("linalg.LinearOperatorHouseholder")
class LinearOperatorHouseholder(LinearOperator):
    """`LinearOperator` acting like a [batch] of Householder transformations ``I - 2 v v^H / |v|^2``."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorHouseholder"):
        parameters = dict(reflection_axis=reflection_axis, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        with name_scope(name, values=[reflection_axis]):
            self._reflection_axis = convert_nonref_to_tensor(reflection_axis, name="reflection_axis")
            if self._reflection_axis.shape.ndims is not None and self._reflection_axis.shape.ndims < 1:
                raise ValueError("Argument reflection_axis must have at least 1 dimension.  "
                                 f"Found: {self._reflection_axis}")
            if is_self_adjoint is False:
                raise ValueError("A Householder operator is always self adjoint.")
            if is_positive_definite is True:
                raise ValueError("A Householder operator is always non-positive definite.")
            if is_square is False:
                raise ValueError("A Householder operator is always square.")
            super().__init__(dtype=self._reflection_axis.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=True, is_positive_definite=False, is_square=True,
                             parameters=parameters, name=name)

    @property
    def reflection_axis(self):
        """The [batch] vector ``v`` normal to the reflecting hyperplane."""
        return self._reflection_axis

    def _shape(self):
        return _square_shape(self._reflection_axis)

    def _shape_tensor(self):
        return _square_shape_tensor(self._reflection_axis)

    def _assert_non_singular(self):
        return control_flow_ops.no_op("assert_non_singular")

    def _assert_positive_definite(self):
        raise errors.InvalidArgumentError(None, None, "Householder operators are always non-positive definite.")

    def _assert_self_adjoint(self):
        return control_flow_ops.no_op("assert_self_adjoint")

    def _linop_adjoint(self):
        return self

    def _linop_inverse(self):
        return self

    def _normalized_axis(self):
        return nn_norm_ops.l2_normalize(convert_to_tensor(self.reflection_axis), axis=-1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        mat = self._normalized_axis()[..., None]
        return x - 2 * mat * linalg_ops.matmul(mat, x, adjoint_a=True)

    def _trace(self):
        shape = self.shape_tensor()
        return math_ops.cast(self._domain_dimension_tensor(shape=shape) - 2, self.dtype) * creation_ops.ones(
            shape=self._batch_shape_tensor(shape=shape), dtype=self.dtype)

    def _determinant(self):
        return -creation_ops.ones(shape=self.batch_shape_tensor(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return creation_ops.zeros(shape=self.batch_shape_tensor(), dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _to_dense(self):
        mat = self._normalized_axis()[..., None]
        matrix = -2 * linalg_ops.matmul(mat, mat, adjoint_b=True)
        return diag_ops.matrix_set_diag(matrix, 1. + diag_ops.matrix_diag_part(matrix))

    def _diag_part(self):
        normalized_axis = self._normalized_axis()
        return 1. - 2 * normalized_axis * unary_math_ops.conj(normalized_axis)

    def _eigvals(self):
        result_shape = shape_ops.shape(self.reflection_axis)
        n = result_shape[-1]
        ones = creation_ops.ones(shape=array_ops.concat([result_shape[:-1], [n - 1]], axis=-1), dtype=self.dtype)
        neg = -creation_ops.ones(shape=array_ops.concat([result_shape[:-1], [1]], axis=-1), dtype=self.dtype)
        return array_ops.concat([neg, ones], axis=-1)

    def _cond(self):
        return creation_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)


from dflow.ops.linear_operators import linear_operator_circulant as _circulant  # noqa: E402,F401 - registers the circulant operators
