"""The circulant and Toeplitz ``tf.linalg.LinearOperator`` subclasses of TF 2.15.

Circulant operators (1-D, 2-D and 3-D: ``A = F^H diag(spectrum) F`` with ``F``
the DFT) multiply and solve through FFTs; a Toeplitz operator multiplies
through a circulant embedding. Each follows TF's file of the same name.
Imported by ``linear_operator_structured.py``.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes as _dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.dtypes import as_dtype
from dflow.framework.graph import name_scope
from dflow.framework.tensor_shape import TensorShape, dimension_value
from dflow.ops.array import (
    array_ops,
    creation_ops,
    gather_ops,
    partition_ops,
    shape_ops,
    shape_utils,
    slicing_ops,
    tiling_ops,
)
from dflow.ops.debugging import check_ops
from dflow.ops.linear_operators.linear_operator import LinearOperator
from dflow.ops.linear_operators.linear_operator_util import (
    _adjoint,
    _commuting_hints,
    _dim_at,
    _implied_true,
    _shape_tensor,
    assert_no_entries_with_modulus_zero,
    assert_zero_imag_part,
    broadcast_matrix_batch_dims,
    convert_nonref_to_tensor,
)
from dflow.ops.math import math_extra_ops, math_ops, reduction_ops, unary_math_ops
from dflow.ops.signal import fft_ops

__all__ = [
    "LinearOperatorCirculant", "LinearOperatorCirculant2D", "LinearOperatorCirculant3D", "LinearOperatorToeplitz",
]


def _to_complex(x):
    if x.dtype.is_complex:
        return x
    return math_ops.cast(x, _dtypes.complex128 if x.dtype == _dtypes.float64 else _dtypes.complex64)


def _rotate_transpose(x, shift):
    """Circularly moves the dimensions of ``x`` right by ``shift`` (``np.roll`` of the axes)."""
    ndims = x.shape.ndims
    if ndims is not None:
        return shape_ops.transpose(x, np.roll(np.arange(ndims), shift))
    return shape_ops.transpose(x, partition_ops.roll(creation_ops.range(shape_ops.rank(x)), shift, axis=0))


_FFT = {1: "fft", 2: "fft2d", 3: "fft3d"}
_IFFT = {1: "ifft", 2: "ifft2d", 3: "ifft3d"}


class _BaseLinearOperatorCirculant(LinearOperator):
    """Base class for circulant operators: ``A = F^H diag(spectrum) F`` with ``F`` the (1, 2 or 3-D) DFT."""

    def __init__(self, spectrum, block_depth, input_output_dtype=_dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True, parameters=None,
                 name="LinearOperatorCirculant"):
        allowed_block_depths = [1, 2, 3]
        self._name = name
        if block_depth not in allowed_block_depths:
            raise ValueError(f"Argument `block_depth` must be one of {allowed_block_depths}. Received: {block_depth}.")
        self._block_depth = block_depth
        if parameters is None:
            parameters = dict(spectrum=spectrum, block_depth=block_depth, input_output_dtype=input_output_dtype,
                              is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                              is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        with name_scope(name, values=[spectrum]):
            self._spectrum = convert_nonref_to_tensor(spectrum, name="spectrum")
            ndims = self._spectrum.shape.ndims
            if ndims is not None and ndims < block_depth:
                raise ValueError(f"Argument `spectrum` must have at least {block_depth} dimensions. "
                                 f"Received: {self._spectrum}.")
            if not self._spectrum.dtype.is_complex:
                is_self_adjoint = _implied_true(
                    is_self_adjoint, "A real spectrum always corresponds to a self-adjoint operator. Expected argument "
                                     "`is_self_adjoint` to be True when `spectrum.dtype.is_complex` = True. "
                                     f"Received: {is_self_adjoint}.")
            if is_square is False:
                raise ValueError("A [[nested] block] circulant operator is always square. Expected argument "
                                 f"`is_square` to be True. Received: {is_square}.")
            super().__init__(dtype=as_dtype(input_output_dtype), is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                             is_square=True, parameters=parameters, name=name)

    @property
    def block_depth(self) -> int:
        """Depth of recursively defined circulant blocks (1, 2 or 3)."""
        return self._block_depth

    @property
    def spectrum(self):
        """The [batch] spectrum (the DFT of the convolution kernel)."""
        return self._spectrum

    @property
    def block_shape(self) -> TensorShape:
        """The static shape of the trailing ``block_depth`` dimensions of the spectrum."""
        return self.spectrum.shape[-self.block_depth:]

    def block_shape_tensor(self):
        """The block shape as a 1-D int32 Tensor."""
        return self._block_shape_tensor()

    def _block_shape_tensor(self, spectrum_shape=None):
        if self.block_shape.is_fully_defined():
            return _shape_tensor(self.block_shape.as_list(), name="block_shape")
        spectrum_shape = shape_ops.shape(self.spectrum) if spectrum_shape is None else spectrum_shape
        return spectrum_shape[-self.block_depth:]

    def _same_kind(self, spectrum, **kwargs):
        cls = type(self)
        if cls is _BaseLinearOperatorCirculant:
            return _BaseLinearOperatorCirculant(spectrum=spectrum, block_depth=self.block_depth, **kwargs)
        return cls(spectrum=spectrum, **kwargs)

    def _linop_adjoint(self):
        spectrum = unary_math_ops.conj(self.spectrum) if self.spectrum.dtype.is_complex else self.spectrum
        return self._same_kind(spectrum, **self._own_hints())

    def _linop_inverse(self):
        return self._same_kind(1. / self.spectrum, input_output_dtype=self.dtype, **self._own_hints())

    def _combined(self, left, right, spectrum):
        return _BaseLinearOperatorCirculant(spectrum=spectrum, block_depth=left.block_depth, is_square=True,
                                            **_commuting_hints(left, right))

    def _linop_matmul(self, left_operator, right_operator):
        if not isinstance(right_operator, _BaseLinearOperatorCirculant) or \
                not isinstance(left_operator, type(right_operator)):
            return super()._linop_matmul(left_operator, right_operator)
        return self._combined(left_operator, right_operator, left_operator.spectrum * right_operator.spectrum)

    def _linop_solve(self, left_operator, right_operator):
        cls = type(self)
        if cls is _BaseLinearOperatorCirculant:
            if not isinstance(right_operator, _BaseLinearOperatorCirculant) or \
                    not isinstance(left_operator, type(right_operator)):
                return super()._linop_solve(left_operator, right_operator)
            return self._combined(left_operator, right_operator, right_operator.spectrum / left_operator.spectrum)
        if not isinstance(right_operator, cls):
            return super()._linop_solve(left_operator, right_operator)
        return cls(spectrum=right_operator.spectrum / left_operator.spectrum, is_square=True,
                   **_commuting_hints(left_operator, right_operator))

    def _vectorize_then_blockify(self, matrix):
        vec = _rotate_transpose(matrix, shift=1)
        if vec.shape.is_fully_defined() and self.block_shape.is_fully_defined():
            final_shape = vec.shape[:-1].concatenate(self.block_shape)
        else:
            final_shape = array_ops.concat((shape_ops.shape(vec)[:-1], self.block_shape_tensor()), 0)
        return shape_ops.reshape(vec, final_shape)

    def _unblockify(self, x):
        if x.shape.is_fully_defined():
            x_shape = x.shape.as_list()
            flat_shape = x_shape[:-self.block_depth] + [int(np.prod(x_shape[-self.block_depth:]))]
        else:
            x_shape = shape_ops.shape(x)
            flat_shape = array_ops.concat(
                (x_shape[:-self.block_depth], [reduction_ops.reduce_prod(x_shape[-self.block_depth:])]), 0)
        return shape_ops.reshape(x, flat_shape)

    def _unblockify_then_matricize(self, vec):
        return _rotate_transpose(self._unblockify(vec), shift=-1)

    def _fft(self, x):
        return getattr(fft_ops, _FFT[self.block_depth])(_to_complex(x))

    def _ifft(self, x):
        return getattr(fft_ops, _IFFT[self.block_depth])(_to_complex(x))

    def convolution_kernel(self, name="convolution_kernel"):
        """The convolution kernel: the inverse DFT of the spectrum, cast to the operator's dtype."""
        with self._name_scope(name):
            return math_ops.cast(self._ifft(_to_complex(self.spectrum)), self.dtype)

    def _shape(self):
        s_shape = self._spectrum.shape
        if s_shape.ndims is None:
            return TensorShape(None)
        trailing = s_shape[-self.block_depth:]
        n = int(np.prod(trailing.as_list())) if trailing.is_fully_defined() else None
        return s_shape[:-self.block_depth].concatenate(TensorShape([n, n]))

    def _shape_tensor(self, spectrum=None):
        spectrum = self.spectrum if spectrum is None else spectrum
        s_shape = shape_ops.shape(spectrum)
        n = reduction_ops.reduce_prod(s_shape[-self.block_depth:])
        return array_ops.concat((s_shape[:-self.block_depth], array_ops.stack([n, n])), 0)

    def assert_hermitian_spectrum(self, name="assert_hermitian_spectrum"):
        """An op that fails when the spectrum is not Hermitian (the kernel is not real)."""
        eps = np.finfo(self.dtype.real_dtype.as_numpy_dtype).eps
        with self._name_scope(name):
            max_err = eps * math_ops.cast(self.domain_dimension_tensor(), self.dtype.real_dtype)
            imag_kernel = math_extra_ops.imag(self.convolution_kernel())
            return check_ops.assert_less(unary_math_ops.abs(imag_kernel), max_err, message="Spectrum was not Hermitian")

    def _assert_non_singular(self):
        return assert_no_entries_with_modulus_zero(self.spectrum,
                                                   message="Singular operator:  Spectrum contained zero values.")

    def _assert_positive_definite(self):
        return check_ops.assert_positive(
            math_extra_ops.real(self.spectrum),
            message="Not positive definite:  Real part of spectrum was not all positive.")

    def _assert_self_adjoint(self):
        return assert_zero_imag_part(self.spectrum,
                                     message="Not self-adjoint:  The spectrum contained non-zero imaginary part.")

    def _broadcast_batch_dims(self, x, spectrum):
        spectrum = convert_to_tensor(spectrum, name="spectrum")
        batch_shape = self._batch_shape_tensor(shape=self._shape_tensor(spectrum=spectrum))
        spec_mat = shape_ops.reshape(spectrum, array_ops.concat((batch_shape, [-1, 1]), axis=0))
        x, spec_mat = broadcast_matrix_batch_dims((x, spec_mat))
        x_batch_shape = shape_ops.shape(x)[:-2]
        spectrum = shape_ops.reshape(spec_mat, array_ops.concat(
            (x_batch_shape, self._block_shape_tensor(spectrum_shape=shape_ops.shape(spectrum))), axis=0))
        return x, spectrum

    def _cond(self):
        abs_singular_values = unary_math_ops.abs(self._unblockify(self.spectrum))
        return (reduction_ops.reduce_max(abs_singular_values, axis=-1)
                / reduction_ops.reduce_min(abs_singular_values, axis=-1))

    def _eigvals(self):
        return convert_to_tensor(self._unblockify(self.spectrum))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        spectrum = _to_complex(self.spectrum)
        if adjoint:
            spectrum = unary_math_ops.conj(spectrum)
        x = math_ops.cast(x, spectrum.dtype)
        x, spectrum = self._broadcast_batch_dims(x, spectrum)
        fft_x_vb = self._fft(self._vectorize_then_blockify(x))
        y = self._unblockify_then_matricize(self._ifft(spectrum * fft_x_vb))
        return math_ops.cast(y, self.dtype)

    def _spectrum_axes(self):
        return [-(i + 1) for i in range(self.block_depth)]

    def _determinant(self):
        return math_ops.cast(reduction_ops.reduce_prod(self.spectrum, axis=self._spectrum_axes()), self.dtype)

    def _log_abs_determinant(self):
        lad = reduction_ops.reduce_sum(unary_math_ops.log(unary_math_ops.abs(self.spectrum)),
                                       axis=self._spectrum_axes())
        return math_ops.cast(lad, self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adjoint(rhs) if adjoint_arg else rhs
        spectrum = _to_complex(self.spectrum)
        if adjoint:
            spectrum = unary_math_ops.conj(spectrum)
        rhs, spectrum = self._broadcast_batch_dims(rhs, spectrum)
        fft_rhs_vb = self._fft(self._vectorize_then_blockify(rhs))
        x = self._unblockify_then_matricize(self._ifft(fft_rhs_vb / spectrum))
        return math_ops.cast(x, self.dtype)

    def _diag_part(self):
        if self.shape.is_fully_defined():
            diag_shape = self.shape[:-1]
            diag_size = dimension_value(self.domain_dimension)
        else:
            diag_shape = self.shape_tensor()[:-1]
            diag_size = self.domain_dimension_tensor()
        ones_diag = creation_ops.ones(diag_shape, dtype=self.dtype)
        diag_value = self.trace() / math_ops.cast(diag_size, self.dtype)
        return diag_value[..., None] * ones_diag

    def _trace(self):
        if self.spectrum.shape.is_fully_defined():
            spec_rank = self.spectrum.shape.ndims
            axis = np.arange(spec_rank - self.block_depth, spec_rank, dtype=np.int32)
        else:
            spec_rank = shape_ops.rank(self.spectrum)
            axis = creation_ops.range(spec_rank - self.block_depth, spec_rank)
        re_d_value = reduction_ops.reduce_sum(math_extra_ops.real(self.spectrum), axis=axis)
        if not self.dtype.is_complex:
            return math_ops.cast(re_d_value, self.dtype)
        if self.is_self_adjoint:
            im_d_value = creation_ops.zeros_like(re_d_value)
        else:
            im_d_value = reduction_ops.reduce_sum(math_extra_ops.imag(self.spectrum), axis=axis)
        return math_ops.cast(math_extra_ops.complex(re_d_value, im_d_value), self.dtype)


def _circulant_class(block_depth: int, export: str, doc: str):
    """Builds LinearOperatorCirculant{,2D,3D}: the base class with a fixed ``block_depth``."""

    def __init__(self, spectrum, input_output_dtype=_dtypes.complex64, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=export):
        parameters = dict(spectrum=spectrum, input_output_dtype=input_output_dtype, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        _BaseLinearOperatorCirculant.__init__(
            self, spectrum, block_depth=block_depth, input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, parameters=parameters, name=name)

    cls = type(export, (_BaseLinearOperatorCirculant,), {"__init__": __init__, "__doc__": doc,
                                                         "__module__": __name__})
    return tf_export(f"linalg.{export}")(cls)


LinearOperatorCirculant = _circulant_class(
    1, "LinearOperatorCirculant", "`LinearOperator` acting like a circulant matrix (diagonalized by the 1-D DFT).")
LinearOperatorCirculant2D = _circulant_class(
    2, "LinearOperatorCirculant2D", "`LinearOperator` acting like a block circulant matrix (diagonalized by the 2-D "
                                    "DFT).")
LinearOperatorCirculant3D = _circulant_class(
    3, "LinearOperatorCirculant3D", "`LinearOperator` acting like a nested block circulant matrix (diagonalized by "
                                    "the 3-D DFT).")


@tf_export("linalg.LinearOperatorToeplitz")
class LinearOperatorToeplitz(LinearOperator):
    """`LinearOperator` acting like a [batch] of Toeplitz matrices (first column ``col``, first row ``row``)."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorToeplitz"):
        parameters = dict(col=col, row=row, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        with name_scope(name, values=[row, col]):
            self._row = convert_nonref_to_tensor(row, name="row")
            self._col = convert_nonref_to_tensor(col, name="col")
            self._check_row_col(self._row, self._col)
            if is_square is False:
                raise ValueError("Only square Toeplitz operators currently supported.")
            super().__init__(dtype=self._row.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                             is_square=True, parameters=parameters, name=name)

    def _check_row_col(self, row, col):
        for name, tensor in [["row", row], ["col", col]]:
            if tensor.shape.ndims is not None and tensor.shape.ndims < 1:
                raise ValueError(f"Argument {name} must have at least 1 dimension.  Found: {tensor}")
        r, c = dimension_value(_dim_at(row.shape, -1)), dimension_value(_dim_at(col.shape, -1))
        if r is not None and c is not None and r != c:
            raise ValueError("Expected square matrix, got row and col with mismatched dimensions.")

    @property
    def col(self):
        """The first column."""
        return self._col

    @property
    def row(self):
        """The first row (its first entry is ignored: ``col[..., 0]`` is the diagonal)."""
        return self._row

    def _shape(self):
        v_shape = shape_utils.broadcast_static_shape(self.row.shape, self.col.shape)
        return v_shape.concatenate(v_shape[-1:])

    def _shape_tensor(self, row=None, col=None):
        row = self.row if row is None else row
        col = self.col if col is None else col
        v_shape = shape_utils.broadcast_dynamic_shape(shape_ops.shape(row), shape_ops.shape(col))
        return array_ops.concat((v_shape, [v_shape[-1]]), 0)

    def _assert_self_adjoint(self):
        return check_ops.assert_equal(self.row, self.col,
                                      message="row and col are not the same, and so this operator is not "
                                                 "self-adjoint.")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        expanded_x = array_ops.concat([x, creation_ops.zeros_like(x)], axis=-2)
        col = convert_to_tensor(self.col)
        row = convert_to_tensor(self.row)
        circulant_col = array_ops.concat(
            [col, creation_ops.zeros_like(col[..., 0:1]), slicing_ops.reverse(row[..., 1:], axis=[-1])], axis=-1)
        circulant = LinearOperatorCirculant(fft_ops.fft(_to_complex(circulant_col)), input_output_dtype=row.dtype)
        result = circulant.matmul(expanded_x, adjoint=adjoint, adjoint_arg=False)
        shape = self._shape_tensor(row=row, col=col)
        return math_ops.cast(result[..., :self._domain_dimension_tensor(shape=shape), :], self.dtype)

    def _trace(self):
        return math_ops.cast(self.domain_dimension_tensor(), dtype=self.dtype) * self.col[..., 0]

    def _diag_part(self):
        return self.col[..., 0:1] * creation_ops.ones([self.domain_dimension_tensor()], self.dtype)

    def _to_dense(self):
        row = convert_to_tensor(self.row)
        col = convert_to_tensor(self.col)
        total_shape = shape_utils.broadcast_dynamic_shape(shape_ops.shape(row), shape_ops.shape(col))
        n = shape_ops.shape(row)[-1]
        row = tiling_ops.broadcast_to(row, total_shape)
        col = tiling_ops.broadcast_to(col, total_shape)
        elements = array_ops.concat([slicing_ops.reverse(col, axis=[-1]), row[..., 1:]], axis=-1)
        indices = math_ops.floormod(creation_ops.range(0, n) + creation_ops.range(n - 1, -1, -1)[..., None], 2 * n - 1)
        return gather_ops.gather(elements, indices, axis=-1)
