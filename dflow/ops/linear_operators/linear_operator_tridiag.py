"""``tf.linalg.LinearOperatorTridiag``: a [batch] tridiagonal matrix in compact, matrix or sequence form, as TF
2.15 writes it."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.ops.array import array_ops, partition_ops, shape_ops, shape_utils, tiling_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.debugging import check_ops
from dflow.ops.linalg import diag_ops, linalg_tridiagonal
from dflow.ops.linear_operators.linear_operator import LinearOperator
from dflow.ops.linear_operators.linear_operator_util import (
    _adjoint,
    assert_zero_imag_part,
    convert_nonref_to_tensor,
)
from dflow.ops.math import unary_math_ops

__all__ = ['LinearOperatorTridiag']


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
        return linalg_tridiagonal.tridiagonal_matmul(diagonals, x, diagonals_format=self.diagonals_format)

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
        return linalg_tridiagonal.tridiagonal_solve(diagonals, rhs, diagonals_format=self.diagonals_format,
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
