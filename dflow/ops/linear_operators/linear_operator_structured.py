"""The structured ``tf.linalg.LinearOperator`` subclasses of TF 2.15.

Low-rank update (Woodbury and the matrix determinant lemma), Kronecker
product (factor by factor), block diagonal and block lower triangular (block
by block), permutation (a gather), Householder reflection and tridiagonal
(tridiagonal kernels), each following TF's file of the same name. Imported by
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
from dflow.ops.array import array_ops, creation_ops, gather_ops, partition_ops, shape_ops, shape_utils, tiling_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.debugging import check_ops
from dflow.ops.linalg import diag_ops, linalg_extra, linalg_factorizations, linalg_ops, linalg_solvers
from dflow.ops.linear_operators.linear_operator import (
    LinearOperator,
    LinearOperatorDiag,
    LinearOperatorFullMatrix,
    LinearOperatorLowerTriangular,
    _adjoint,
    _broadcast_batch_shape_tensors,
    _broadcast_batch_shapes,
    _check_iterable,
    _check_operator_list,
    _check_operators_compatible,
    _combined_non_singular_hint,
    _dim_at,
    _implied_true,
    _product,
    _square_shape,
    _square_shape_tensor,
    _static_value,
    _sum,
    assert_zero_imag_part,
    broadcast_matrix_batch_dims,
    convert_nonref_to_tensor,
    matrix_solve_with_broadcast,
)
from dflow.ops.linear_operators.linear_operator_identity import LinearOperatorIdentity, LinearOperatorScaledIdentity
from dflow.ops.math import math_ops, reduction_ops, sort_ops, unary_math_ops
from dflow.ops.nn import nn_norm_ops

__all__ = [
    "LinearOperatorLowRankUpdate", "LinearOperatorKronecker", "LinearOperatorBlockDiag", "LinearOperatorPermutation",
    "LinearOperatorHouseholder", "LinearOperatorTridiag", "LinearOperatorBlockLowerTriangular",
]


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
# Block operators
# ----------------------------------------------------------------------------------------------------------------------

def arg_is_blockwise(block_dimensions, arg, arg_split_dim) -> bool:
    """True when ``arg`` is a list of one Tensor per block (TF's linear_operator_util.arg_is_blockwise)."""
    if not (isinstance(arg, (tuple, list)) and len(arg) == len(block_dimensions)):
        return False
    if not any(isinstance(x, (tuple, list)) for x in arg):
        return True
    arg_dims = [dimension_value(convert_to_tensor(x).shape[arg_split_dim]) for x in arg]
    self_dims = [dimension_value(d) for d in block_dimensions]
    if all(d is None for d in self_dims):
        if len(arg_dims) == 1:
            return False
        if any(d != arg_dims[0] for d in arg_dims):
            return True
        raise ValueError("Parsing of the input structure is ambiguous. Please input "
                         "a blockwise iterable of `Tensor`s or a single `Tensor`.")
    if all(s == a or s is None for s, a in zip(self_dims, arg_dims)):
        return True
    self_dim = sum(s for s in self_dims if s is not None)
    if all(a == arg_dims[0] for a in arg_dims) and arg_dims[0] >= self_dim:
        return False
    raise ValueError("Input dimension does not match operator dimension.")


def split_arg_into_blocks(block_dims, block_dims_fn, arg, axis=-1):
    """Splits ``arg`` along ``axis`` into pieces of the blocks' sizes."""
    block_sizes = [dimension_value(d) for d in block_dims]
    if any(d is None for d in block_sizes):
        block_sizes = block_dims_fn()
    return array_ops.split(arg, block_sizes, axis=axis)


class _BlockOperatorMixin:
    """Blockwise argument handling of matmul/solve/matvec/solvevec, shared by BlockDiag and BlockLowerTriangular.

    Each class does the block arithmetic in ``_matmul`` and ``_solve_blocks``.
    """

    def _block_range_dimensions(self):
        return [op.range_dimension for op in self._diagonal_operators]

    def _block_domain_dimensions(self):
        return [op.domain_dimension for op in self._diagonal_operators]

    def _block_range_dimension_tensors(self):
        return [op.range_dimension_tensor() for op in self._diagonal_operators]

    def _block_domain_dimension_tensors(self):
        return [op.domain_dimension_tensor() for op in self._diagonal_operators]

    def _convert_blocks(self, blocks, block_dimensions, arg_dim):
        blocks = list(blocks)
        for i, block in enumerate(blocks):
            if not isinstance(block, LinearOperator):
                block = convert_to_tensor(block)
                self._check_input_dtype(block)
                block_dimensions[i].assert_is_compatible_with(_dim_at(block.shape, arg_dim))
                blocks[i] = block
        return blocks

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """Multiplies by a Tensor, a list of one Tensor per block, or a LinearOperator."""
        if isinstance(x, LinearOperator):
            return super().matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg, name=name)
        with self._name_scope(name):
            arg_dim = -1 if adjoint_arg else -2
            block_dimensions = self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
            if arg_is_blockwise(block_dimensions, x, arg_dim):
                x = self._convert_blocks(x, block_dimensions, arg_dim)
            else:
                x = self._convert_input(x, "x", -2 if adjoint else -1, arg_dim)
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """Solves for a Tensor, a list of one Tensor per block, or a LinearOperator, block by block."""
        if isinstance(rhs, LinearOperator):
            return super().solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg, name=name)
        self._check_solvable()
        with self._name_scope(name):
            block_dimensions = self._block_domain_dimensions() if adjoint else self._block_range_dimensions()
            arg_dim = -1 if adjoint_arg else -2
            blockwise_arg = arg_is_blockwise(block_dimensions, rhs, arg_dim)
            if blockwise_arg:
                rhs = self._convert_blocks(rhs, block_dimensions, arg_dim)
            else:
                rhs = self._convert_input(rhs, "rhs", -1 if adjoint else -2, arg_dim)
            solution_list = self._solve_blocks(rhs, blockwise_arg, adjoint, adjoint_arg)
            return solution_list if blockwise_arg else self._concat_blocks(solution_list)

    def matvec(self, x, adjoint=False, name="matvec"):
        """Multiplies by a [batch] vector, or a list of one vector per block."""
        with self._name_scope(name):
            block_dimensions = self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
            if arg_is_blockwise(block_dimensions, x, -1):
                x = self._convert_blocks(x, block_dimensions, -1)
                y_mat = self.matmul([block[..., None] for block in x], adjoint=adjoint)
                return [shape_ops.squeeze(y, axis=-1) for y in y_mat]
            x = self._convert_input(x, "x", -2 if adjoint else -1, -1)
            return shape_ops.squeeze(self.matmul(x[..., None], adjoint=adjoint), axis=-1)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """Solves for a [batch] vector, or a list of one vector per block."""
        with self._name_scope(name):
            block_dimensions = self._block_domain_dimensions() if adjoint else self._block_range_dimensions()
            if arg_is_blockwise(block_dimensions, rhs, -1):
                rhs = self._convert_blocks(rhs, block_dimensions, -1)
                solution = self.solve([shape_ops.expand_dims(block, axis=-1) for block in rhs], adjoint=adjoint)
                return [shape_ops.squeeze(x, axis=-1) for x in solution]
            rhs = self._convert_input(rhs, "rhs", -1 if adjoint else -2, -1)
            return shape_ops.squeeze(self.solve(shape_ops.expand_dims(rhs, axis=-1), adjoint=adjoint), axis=-1)

    def _concat_blocks(self, blocks):
        return array_ops.concat(broadcast_matrix_batch_dims(blocks), axis=-2)

    def _diag_concat(self, parts):
        return shape_ops.squeeze(self._concat_blocks([p[..., None] for p in parts]), axis=-1)


@tf_export("linalg.LinearOperatorBlockDiag")
class LinearOperatorBlockDiag(_BlockOperatorMixin, LinearOperator):
    """Combines one or more `LinearOperators` in to a Block Diagonal matrix."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name=None):
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        operators = _check_operator_list(operators)
        self._operators = operators
        self._diagonal_operators = operators
        is_non_singular = _all_hint(operators, "is_non_singular", is_non_singular,
                                    "The direct sum of non-singular operators is always non-singular.")
        is_self_adjoint = _all_hint(operators, "is_self_adjoint", is_self_adjoint,
                                    "The direct sum of self-adjoint operators is always self-adjoint.")
        is_positive_definite = _all_hint(operators, "is_positive_definite", is_positive_definite,
                                         "The direct sum of positive definite operators is always positive definite.")
        if name is None:
            name = "_ds_".join(operator.name for operator in operators)
        with name_scope(name):
            super().__init__(dtype=operators[0].dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                             is_square=is_square, parameters=parameters, name=name)

    @property
    def operators(self):
        """The diagonal blocks."""
        return self._operators

    def _shape(self):
        matrix_shape = TensorShape([sum(self._block_range_dimensions(), Dimension(0)),
                                    sum(self._block_domain_dimensions(), Dimension(0))])
        return _broadcast_batch_shapes(self.operators).concatenate(matrix_shape)

    def _shape_tensor(self):
        matrix_shape = array_ops.stack([math_ops.add_n(self._block_range_dimension_tensors()),
                                        math_ops.add_n(self._block_domain_dimension_tensors())])
        return array_ops.concat((_broadcast_batch_shape_tensors(self.operators), matrix_shape), 0)

    def _linop_adjoint(self):
        return LinearOperatorBlockDiag(operators=[operator.adjoint() for operator in self.operators],
                                       **self._own_hints())

    def _linop_cholesky(self):
        return LinearOperatorBlockDiag(operators=[operator.cholesky() for operator in self.operators],
                                       is_non_singular=True, is_self_adjoint=None, is_square=True)

    def _linop_inverse(self):
        return LinearOperatorBlockDiag(operators=[operator.inverse() for operator in self.operators],
                                       **self._own_hints())

    def _operator_pair(self, other, adjoint, adjoint_arg, arg):
        """The base class's pair, with TF's BlockDiag checks: also a block-by-block check against a BlockDiag.

        As in TF, `x` names ``other`` in solve's message too, and the blocks checked are those of ``other`` for
        matmul (``arg`` "x") but of its adjoint for solve (``arg`` "rhs").
        """
        left, right = super()._operator_pair(other, adjoint, adjoint_arg, "x")
        if arg == "x" and isinstance(other, LinearOperatorBlockDiag):
            self._check_blocks_agree(left, right, "multiply two `LinearOperatorBlockDiag`s together")
        elif arg == "rhs" and isinstance(right, LinearOperatorBlockDiag):
            self._check_blocks_agree(left, right, "solve `LinearOperatorBlockDiag`")
        return left, right

    def _check_blocks_agree(self, left, right, what: str):
        if len(left.operators) != len(right.operators):
            raise ValueError(f"Can not efficiently {what} when number of blocks differ.")
        for o1, o2 in zip(left.operators, right.operators):
            _check_operators_compatible(o1, o2, "x", what="Blocks")

    def _linop_matmul(self, left_operator, right_operator):
        if isinstance(right_operator, LinearOperatorBlockDiag):
            return LinearOperatorBlockDiag(
                operators=[o1.matmul(o2) for o1, o2 in zip(left_operator.operators, right_operator.operators)],
                is_non_singular=_combined_non_singular_hint(left_operator, right_operator),
                is_self_adjoint=None, is_positive_definite=None, is_square=True)
        return super()._linop_matmul(left_operator, right_operator)

    def _linop_solve(self, left_operator, right_operator):
        if isinstance(right_operator, LinearOperatorBlockDiag):
            return LinearOperatorBlockDiag(
                operators=[o1.solve(o2) for o1, o2 in zip(left_operator.operators, right_operator.operators)],
                is_non_singular=_combined_non_singular_hint(left_operator, right_operator),
                is_self_adjoint=None, is_positive_definite=None, is_square=True)
        return super()._linop_solve(left_operator, right_operator)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        arg_dim = -1 if adjoint_arg else -2
        block_dimensions = self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
        block_dimensions_fn = (self._block_range_dimension_tensors if adjoint
                               else self._block_domain_dimension_tensors)
        blockwise_arg = arg_is_blockwise(block_dimensions, x, arg_dim)
        split_x = x if blockwise_arg else split_arg_into_blocks(block_dimensions, block_dimensions_fn, x,
                                                                axis=arg_dim)
        result_list = [operator.matmul(split_x[i], adjoint=adjoint, adjoint_arg=adjoint_arg)
                       for i, operator in enumerate(self.operators)]
        return result_list if blockwise_arg else self._concat_blocks(result_list)

    def _determinant(self):
        return _product(operator.determinant() for operator in self.operators)

    def _log_abs_determinant(self):
        return _sum(operator.log_abs_determinant() for operator in self.operators)

    def _solve_blocks(self, rhs, blockwise_arg, adjoint, adjoint_arg):
        """Solves block by block (``rhs``: one Tensor per block, or the whole one)."""
        split_rhs = rhs if blockwise_arg else split_arg_into_blocks(
            self._block_domain_dimensions(), self._block_domain_dimension_tensors, rhs, axis=-1 if adjoint_arg else -2)
        return [operator.solve(split_rhs[i], adjoint=adjoint, adjoint_arg=adjoint_arg)
                for i, operator in enumerate(self.operators)]

    def _require_square_blocks(self, what: str):
        if not all(operator.is_square for operator in self.operators):
            raise NotImplementedError(f"`{what}` not implemented for an operator whose blocks are not square.")

    def _diag_part(self):
        self._require_square_blocks("diag_part")
        return self._diag_concat([operator.diag_part() for operator in self.operators])

    def _trace(self):
        self._require_square_blocks("trace")
        return _sum(operator.trace() for operator in self.operators)

    def _to_dense(self):
        num_cols = 0
        rows = []
        blocks = broadcast_matrix_batch_dims([operator.to_dense() for operator in self.operators])
        for block in blocks:
            batch_row_shape = shape_ops.shape(block)[:-1]
            before = creation_ops.zeros(shape=array_ops.concat([batch_row_shape, [num_cols]], axis=-1),
                                        dtype=block.dtype)
            num_cols += shape_ops.shape(block)[-1]
            after = creation_ops.zeros(
                shape=array_ops.concat([batch_row_shape, [self.domain_dimension_tensor() - num_cols]], axis=-1),
                dtype=block.dtype)
            rows.append(array_ops.concat([before, block, after], axis=-1))
        mat = array_ops.concat(rows, axis=-2)
        mat.set_shape(self.shape)
        return mat

    def _assert_non_singular(self):
        return control_flow_ops.group([operator.assert_non_singular() for operator in self.operators])

    def _assert_self_adjoint(self):
        return control_flow_ops.group([operator.assert_self_adjoint() for operator in self.operators])

    def _assert_positive_definite(self):
        return control_flow_ops.group([operator.assert_positive_definite() for operator in self.operators])

    def _eigvals(self):
        self._require_square_blocks("eigvals")
        return self._diag_concat([operator.eigvals() for operator in self.operators])


_ADDABLE_OPERATORS = (LinearOperatorDiag, LinearOperatorLowerTriangular, LinearOperatorFullMatrix,
                      LinearOperatorIdentity, LinearOperatorScaledIdentity)


def _add_operators(operators):
    """The sum of several operators (TF's linear_operator_addition.add_operators gives one operator).

    One operator is returned as is; a sum of several is a LinearOperatorFullMatrix of the dense sum (TF picks a
    structured type where the summands allow, with the same values).
    """
    if len(operators) == 1:
        return operators[0]
    dense = [op.to_dense() for op in operators]
    return LinearOperatorFullMatrix(math_ops.add_n(broadcast_matrix_batch_dims(dense)))


@tf_export("linalg.LinearOperatorBlockLowerTriangular")
class LinearOperatorBlockLowerTriangular(_BlockOperatorMixin, LinearOperator):
    """Combines `LinearOperators` into a blockwise lower-triangular matrix (row ``i`` holds ``i + 1`` blocks)."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorBlockLowerTriangular"):
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        for rows in (operators, *([] if isinstance(operators, (str, bytes)) else operators)):
            _check_iterable(rows)
        operators = [list(row) for row in operators]
        if not operators:
            raise ValueError(f"Argument `operators` must be a list of >=1 operators. Received: {operators}.")
        self._operators = operators
        self._diagonal_operators = [row[-1] for row in operators]
        dtype = operators[0][0].dtype
        for i, row in enumerate(operators):
            for operator in row:
                if operator.dtype != dtype:
                    name_type = (str((o.name, o.dtype)) for o in row)
                    raise TypeError(f"Expected all operators to have the same dtype.  Found {name_type} in row {i} "
                                    f"and {dtype} in row 0.")
        is_non_singular = self._validate_non_singular(is_non_singular)
        self._validate_num_operators()
        self._validate_operator_dimensions()
        is_square = self._validate_square(is_square)
        with name_scope(name):
            super().__init__(dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    def _validate_num_operators(self):
        for i, row in enumerate(self.operators):
            if len(row) != i + 1:
                raise ValueError(f"Argument `operators[{i}]` must contain `{i + 1}` blocks. "
                                 f"Received: {len(row)} blocks.")

    def _validate_operator_dimensions(self):
        for i in range(1, len(self.operators)):
            for j in range(i):
                op, above, right = self.operators[i][j], self.operators[i - 1][j], self.operators[i][j + 1]
                if dimension_value(op.domain_dimension) is not None and \
                        dimension_value(above.domain_dimension) is not None and \
                        op.domain_dimension != above.domain_dimension:
                    raise ValueError(f"Argument `operators[{i}][{j}].domain_dimension` ({op.domain_dimension}) must "
                                     f"be the same as `operators[{i - 1}][{j}].domain_dimension` "
                                     f"({above.domain_dimension}).")
                if dimension_value(op.range_dimension) is not None and \
                        dimension_value(right.range_dimension) is not None and \
                        op.range_dimension != right.range_dimension:
                    raise ValueError(f"Argument `operators[{i}][{j}].range_dimension` ({op.range_dimension}) must be "
                                     f"the same as `operators[{i}][{j + 1}].range_dimension` "
                                     f"({right.range_dimension}).")

    def _validate_non_singular(self, is_non_singular):
        if all(op.is_non_singular for op in self._diagonal_operators):
            if is_non_singular is False:
                raise ValueError("A blockwise lower-triangular operator with non-singular operators on the main "
                                 "diagonal is always non-singular. Expected argument `is_non_singular` to be True. "
                                 f"Received: {is_non_singular}.")
            return True
        if any(op.is_non_singular is False for op in self._diagonal_operators):
            if is_non_singular is True:
                raise ValueError("A blockwise lower-triangular operator with a singular operator on the main "
                                 "diagonal is always singular. Expected argument `is_non_singular` to be True. "
                                 f"Received: {is_non_singular}.")
            return False
        return None

    def _validate_square(self, is_square):
        if is_square is False:
            raise ValueError("`LinearOperatorBlockLowerTriangular` must be square. Expected argument `is_square` to "
                             f"be True. Received: {is_square}.")
        for i, op in enumerate(self._diagonal_operators):
            if op.is_square is False:
                raise ValueError("Matrices on the diagonal (the final elements of each row-partition in the "
                                 f"`operators` list) must be square. Expected argument `operators[{i}][-1].is_square` "
                                 f"to be True. Received: {op.is_square}.")
        return True

    @property
    def operators(self):
        """The blocks, row by row (row ``i`` has ``i + 1`` operators, the last on the diagonal)."""
        return self._operators

    def _all_operators(self):
        return [op for row in self.operators for op in row]

    def _shape(self):
        matrix_shape = TensorShape([sum(self._block_domain_dimensions(), Dimension(0)),
                                    sum(self._block_range_dimensions(), Dimension(0))])
        return _broadcast_batch_shapes(self._all_operators()).concatenate(matrix_shape)

    def _shape_tensor(self):
        matrix_shape = array_ops.stack([math_ops.add_n(self._block_domain_dimension_tensors()),
                                        math_ops.add_n(self._block_range_dimension_tensors())])
        batch_shape = self.operators[0][0].batch_shape_tensor()
        for operator in self._all_operators()[1:]:
            batch_shape = shape_utils.broadcast_dynamic_shape(batch_shape, operator.batch_shape_tensor())
        return array_ops.concat((batch_shape, matrix_shape), 0)

    def _linop_inverse(self):
        """The inverse, itself block lower triangular (TF's recursion on the leading rows)."""
        hints = dict(is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
                     is_positive_definite=self.is_positive_definite, is_square=True)
        if len(self.operators) == 1:
            return LinearOperatorBlockLowerTriangular([[self.operators[0][0].inverse()]], **hints)
        n = len(self.operators)
        upper_left_inverse = LinearOperatorBlockLowerTriangular(self.operators[:-1]).inverse()
        bottom_row = self.operators[-1]
        bottom_right_inverse = bottom_row[-1].inverse()
        inverse_bottom_row = []
        for i in range(n - 1):
            blocks = []
            for j in range(i, n - 1):
                result = bottom_row[j].matmul(upper_left_inverse.operators[j][i])
                if not isinstance(result, _ADDABLE_OPERATORS):
                    result = LinearOperatorFullMatrix(result.to_dense())
                blocks.append(result)
            block = _add_operators(blocks)
            block = bottom_right_inverse.matmul(block)
            block = LinearOperatorScaledIdentity(num_rows=bottom_right_inverse.domain_dimension_tensor(),
                                                 multiplier=math_ops.cast(-1, dtype=block.dtype)).matmul(block)
            inverse_bottom_row.append(block)
        inverse_bottom_row.append(bottom_right_inverse)
        return LinearOperatorBlockLowerTriangular(upper_left_inverse.operators + [inverse_bottom_row], **hints)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        arg_dim = -1 if adjoint_arg else -2
        block_dimensions = self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
        blockwise_arg = arg_is_blockwise(block_dimensions, x, arg_dim)
        split_x = x if blockwise_arg else split_arg_into_blocks(
            self._block_domain_dimensions(), self._block_domain_dimension_tensors, x, axis=arg_dim)
        n = len(self.operators)
        result_list = []
        if adjoint:
            for index in range(n):
                result = self.operators[index][index].matmul(split_x[index], adjoint=adjoint, adjoint_arg=adjoint_arg)
                for j in range(index + 1, n):
                    result += self.operators[j][index].matmul(split_x[j], adjoint=adjoint, adjoint_arg=adjoint_arg)
                result_list.append(result)
        else:
            for row in self.operators:
                result = row[0].matmul(split_x[0], adjoint=adjoint, adjoint_arg=adjoint_arg)
                for j, operator in enumerate(row[1:]):
                    result += operator.matmul(split_x[j + 1], adjoint=adjoint, adjoint_arg=adjoint_arg)
                result_list.append(result)
        return result_list if blockwise_arg else self._concat_blocks(result_list)

    def _determinant(self):
        if all(op.is_positive_definite for op in self._diagonal_operators):
            return unary_math_ops.exp(self._log_abs_determinant())
        return _product(op.determinant() for op in self._diagonal_operators)

    def _log_abs_determinant(self):
        return _sum(op.log_abs_determinant() for op in self._diagonal_operators)

    def _solve_blocks(self, rhs, blockwise_arg, adjoint, adjoint_arg):
        """Block forward (for the adjoint, backward) substitution (``rhs``: one Tensor per block, or the whole one)."""
        if blockwise_arg:
            split_rhs = [_adjoint(y) for y in rhs] if adjoint_arg else rhs
        else:
            rhs = _adjoint(rhs) if adjoint_arg else rhs
            split_rhs = split_arg_into_blocks(self._block_domain_dimensions(), self._block_domain_dimension_tensors,
                                              rhs, axis=-2)
        n = len(self.operators)
        solution_list = []
        if adjoint:
            for index in reversed(range(n)):
                y = split_rhs[index]
                for j in reversed(range(index + 1, n)):
                    y = y - self.operators[j][index].matmul(solution_list[n - 1 - j], adjoint=adjoint)
                solution_list.append(self._diagonal_operators[index].solve(y, adjoint=adjoint))
            solution_list.reverse()
        else:
            for row, y in zip(self.operators, split_rhs):
                for i, operator in enumerate(row[:-1]):
                    y = y - operator.matmul(solution_list[i], adjoint=adjoint)
                solution_list.append(row[-1].solve(y, adjoint=adjoint))
        return solution_list

    def _diag_part(self):
        return self._diag_concat([op.diag_part() for op in self._diagonal_operators])

    def _trace(self):
        return _sum(op.trace() for op in self._diagonal_operators)

    def _to_dense(self):
        num_cols = 0
        dense_rows = []
        flat = broadcast_matrix_batch_dims([op.to_dense() for op in self._all_operators()])
        rows = [flat[i * (i + 1) // 2:(i + 1) * (i + 2) // 2] for i in range(len(self.operators))]
        for row_blocks in rows:
            batch_row_shape = shape_ops.shape(row_blocks[0])[:-1]
            num_cols += shape_ops.shape(row_blocks[-1])[-1]
            after = creation_ops.zeros(
                shape=array_ops.concat([batch_row_shape, [self.domain_dimension_tensor() - num_cols]], axis=-1),
                dtype=self.dtype)
            dense_rows.append(array_ops.concat(list(row_blocks) + [after], axis=-1))
        mat = array_ops.concat(dense_rows, axis=-2)
        mat.set_shape(self.shape)
        return mat

    def _assert_non_singular(self):
        return control_flow_ops.group([op.assert_non_singular() for op in self._diagonal_operators])

    def _eigvals(self):
        return self._diag_concat([op.eigvals() for op in self._diagonal_operators])


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


# ----------------------------------------------------------------------------------------------------------------------
# Tridiagonal
# ----------------------------------------------------------------------------------------------------------------------

_COMPACT, _MATRIX, _SEQUENCE = "compact", "matrix", "sequence"


@tf_export("linalg.LinearOperatorTridiag")
class LinearOperatorTridiag(LinearOperator):
    """`LinearOperator` acting like a [batch] square tridiagonal matrix."""

    def __init__(self, diagonals, diagonals_format=_COMPACT, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorTridiag"):
        parameters = dict(diagonals=diagonals, diagonals_format=diagonals_format, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        with name_scope(name, values=[diagonals]):
            if diagonals_format not in (_COMPACT, _MATRIX, _SEQUENCE):
                raise ValueError("Argument `diagonals_format` must be one of compact, matrix, or sequence. "
                                 f"Received : {diagonals_format}.")
            if diagonals_format == _SEQUENCE:
                self._diagonals = [convert_nonref_to_tensor(d, name=f"diag_{i}")
                                   for i, d in enumerate(diagonals)]
                dtype = self._diagonals[0].dtype
            else:
                self._diagonals = convert_nonref_to_tensor(diagonals, name="diagonals")
                dtype = self._diagonals.dtype
            self._diagonals_format = diagonals_format
            super().__init__(dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def diagonals(self):
        """The diagonals, in ``diagonals_format``."""
        return self._diagonals

    @property
    def diagonals_format(self) -> str:
        """'compact', 'matrix' or 'sequence'."""
        return self._diagonals_format

    def _shape(self):
        if self.diagonals_format == _MATRIX:
            return self.diagonals.shape
        if self.diagonals_format == _COMPACT:
            d_shape = self.diagonals.shape[:-2].concatenate([self.diagonals.shape[-1]])
        else:
            bshape = shape_utils.broadcast_static_shape(self.diagonals[0].shape[:-1], self.diagonals[1].shape[:-1])
            bshape = shape_utils.broadcast_static_shape(bshape, self.diagonals[2].shape[:-1])
            d_shape = bshape.concatenate([self.diagonals[1].shape[-1]])
        return d_shape.concatenate([d_shape[-1]])

    def _shape_tensor(self, diagonals=None):
        diagonals = diagonals if diagonals is not None else self.diagonals
        if self.diagonals_format == _MATRIX:
            return shape_ops.shape(diagonals)
        if self.diagonals_format == _COMPACT:
            d_shape = shape_ops.shape(diagonals[..., 0, :])
        else:
            bshape = shape_utils.broadcast_dynamic_shape(shape_ops.shape(self.diagonals[0])[:-1],
                                                         shape_ops.shape(self.diagonals[1])[:-1])
            bshape = shape_utils.broadcast_dynamic_shape(bshape, shape_ops.shape(self.diagonals[2])[:-1])
            d_shape = array_ops.concat([bshape, [shape_ops.shape(self.diagonals[1])[-1]]], axis=0)
        return array_ops.concat([d_shape, [d_shape[-1]]], axis=-1)

    def _assert_self_adjoint(self):
        diag_message = "This tridiagonal operator contained non-zero imaginary values on the diagonal."
        off_diag_message = "This tridiagonal operator has non-conjugate subdiagonal and superdiagonal."
        if self.diagonals_format == _MATRIX:
            return control_flow_ops.group([check_ops.assert_equal(self.diagonals, _adjoint(self.diagonals),
                                                                  message="Matrix was not equal to its adjoint.")])
        if self.diagonals_format == _COMPACT:
            diagonals = convert_to_tensor(self.diagonals)
            superdiag, diag, subdiag = diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
        else:
            superdiag, diag, subdiag = self.diagonals
        asserts = [assert_zero_imag_part(diag, message=diag_message)]
        subdiag = partition_ops.roll(subdiag, shift=-1, axis=-1)
        asserts.append(check_ops.assert_equal(unary_math_ops.conj(subdiag[..., :-1]), superdiag[..., :-1],
                                              message=off_diag_message))
        return control_flow_ops.group(asserts)

    def _construct_adjoint_diagonals(self, diagonals):
        if self.diagonals_format == _SEQUENCE:
            diagonals = [unary_math_ops.conj(d) for d in reversed(diagonals)]
            diagonals[0] = partition_ops.roll(diagonals[0], shift=-1, axis=-1)
            diagonals[2] = partition_ops.roll(diagonals[2], shift=1, axis=-1)
            return diagonals
        if self.diagonals_format == _MATRIX:
            return _adjoint(diagonals)
        diagonals = unary_math_ops.conj(diagonals)
        superdiag, diag, subdiag = array_ops.unstack(diagonals, num=3, axis=-2)
        return array_ops.stack([partition_ops.roll(subdiag, shift=-1, axis=-1), diag,
                                partition_ops.roll(superdiag, shift=1, axis=-1)], axis=-2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        diagonals = self.diagonals
        if adjoint:
            diagonals = self._construct_adjoint_diagonals(diagonals)
        x = _adjoint(x) if adjoint_arg else x
        return linalg_extra.tridiagonal_matmul(diagonals, x, diagonals_format=self.diagonals_format)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        diagonals = self.diagonals
        if adjoint:
            diagonals = self._construct_adjoint_diagonals(diagonals)
        rhs_shape = shape_ops.shape(rhs)
        k = self._shape_tensor(diagonals)[-1]
        bshape = shape_utils.broadcast_dynamic_shape(self._shape_tensor(diagonals)[:-2], rhs_shape[:-2])
        rhs = tiling_ops.broadcast_to(rhs, array_ops.concat([bshape, rhs_shape[-2:]], axis=-1))
        if self.diagonals_format == _MATRIX:
            diagonals = tiling_ops.broadcast_to(diagonals, array_ops.concat([bshape, array_ops.stack([k, k])], axis=-1))
        elif self.diagonals_format == _COMPACT:
            diagonals = tiling_ops.broadcast_to(diagonals, array_ops.concat([bshape, array_ops.stack([3, k])], axis=-1))
        else:
            diagonals = [tiling_ops.broadcast_to(d, array_ops.concat([bshape, [k]], axis=-1)) for d in diagonals]
        return linalg_extra.tridiagonal_solve(diagonals, rhs, diagonals_format=self.diagonals_format,
                                              transpose_rhs=adjoint_arg, conjugate_rhs=adjoint_arg)

    def _diag_part(self):
        if self.diagonals_format == _MATRIX:
            return diag_ops.matrix_diag_part(self.diagonals)
        if self.diagonals_format == _SEQUENCE:
            return tiling_ops.broadcast_to(self.diagonals[1], self.shape_tensor()[:-1])
        return self.diagonals[..., 1, :]

    def _to_dense(self):
        if self.diagonals_format == _MATRIX:
            return convert_to_tensor(self.diagonals)
        if self.diagonals_format == _COMPACT:
            diagonals = convert_to_tensor(self.diagonals)
            superdiag, diag, subdiag = diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
        else:
            superdiag, diag, subdiag = [convert_to_tensor(d) for d in self.diagonals]
            bshape = shape_utils.broadcast_dynamic_shape(
                shape_utils.broadcast_dynamic_shape(shape_ops.shape(superdiag), shape_ops.shape(diag)),
                shape_ops.shape(subdiag))
            superdiag, diag, subdiag = [tiling_ops.broadcast_to(d, bshape) for d in (superdiag, diag, subdiag)]
        # TF: matrix_diag_v3(k=(-1, 1), align="LEFT_RIGHT"): the superdiagonal's last and the subdiagonal's first
        # entries are padding.
        return (diag_ops.matrix_diag(diag) + diag_ops.matrix_diag(superdiag[..., :-1], k=1)
                + diag_ops.matrix_diag(subdiag[..., 1:], k=-1))


from dflow.ops.linear_operators import linear_operator_circulant as _circulant  # noqa: E402,F401 - registers the circulant operators
