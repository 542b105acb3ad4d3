"""``tf.linalg.LinearOperator``, the base class, and the helpers its subclasses share, as TF 2.15 writes them.

A linear operator is a Python object that stands for a (batch of) matrices and
multiplies, solves, takes determinants, ... without always building the dense
matrix. Each class here follows TF's ``tensorflow/python/ops/linalg`` file of
the same name: the same hints and their checks, the same structure-using
algorithms (a diagonal solve divides, a triangular one back-substitutes), the
same dense fallbacks and the same errors. They are built from dflow's public
ops, so gradients come from those ops' rules.

The subclasses live beside it, one family a module, all imported at the end of this file:
FullMatrix, Diag and LowerTriangular in ``linear_operator_basic.py``; Adjoint, Inversion and
Composition in ``linear_operator_composition.py``; Identity, ScaledIdentity and Zeros in
``linear_operator_identity.py``; low-rank update, Kronecker, permutation and Householder in
``linear_operator_structured.py`` (which imports the circulant and Toeplitz ones,
``linear_operator_circulant.py``); the block operators in ``linear_operator_block.py`` and the
tridiagonal one in ``linear_operator_tridiag.py``.
"""

from __future__ import annotations

import abc
import contextlib

import numpy as np

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.dtypes import as_dtype
from dflow.framework.graph import name_scope
from dflow.framework.tensor import Tensor
from dflow.framework.tensor_shape import Dimension, TensorShape, dimension_value
from dflow.ops.array import shape_ops
from dflow.ops.debugging import check_ops
from dflow.ops.linalg import diag_ops, linalg_factorizations, linalg_solvers
from dflow.ops.math import math_ops, reduction_ops, unary_math_ops

__all__ = [
    "LinearOperator", "LinearOperatorFullMatrix", "LinearOperatorDiag", "LinearOperatorLowerTriangular",
    "LinearOperatorComposition", "LinearOperatorAdjoint", "LinearOperatorInversion",
]
from dflow.ops.linear_operators.linear_operator_util import (
    _adjoint,
    _check_operators_compatible,
    _dim_at,
    _dtype_str,
    _implied_true,
    _is_ref,
    _product_hints,
    _shape_tensor,
    matrix_solve_with_broadcast,
)

# ----------------------------------------------------------------------------------------------------------------------
# The base class
# ----------------------------------------------------------------------------------------------------------------------

@tf_export("linalg.LinearOperator")
class LinearOperator(metaclass=abc.ABCMeta):
    """Base class defining a [batch of] linear operator[s].

    Subclasses define ``_shape``, ``_shape_tensor`` and ``_matmul``; everything
    else has a default that goes through the dense matrix (``to_dense``), as
    in TF. Hints (``is_non_singular``, ``is_self_adjoint``,
    ``is_positive_definite``, ``is_square``) are checked for consistency and
    used to choose algorithms (Cholesky for self-adjoint positive definite).
    """

    def __init__(self, dtype, graph_parents=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None, parameters=None):
        if is_positive_definite:
            is_non_singular = _implied_true(is_non_singular, "A positive definite matrix is always non-singular.")
        if is_non_singular:
            is_square = _implied_true(is_square, "A non-singular matrix is always square.")
        if is_self_adjoint:
            is_square = _implied_true(is_square, "A self-adjoint matrix is always square.")
        self._is_square_set_or_implied_by_hints = is_square
        self._graph_parents = []
        if graph_parents is not None:
            for i, t in enumerate(graph_parents):
                if t is None or not (_is_ref(t) or isinstance(t, Tensor)):
                    raise ValueError(f"Graph parent item {i} is not a Tensor; {t}.")
            self._graph_parents = list(graph_parents)
        self._dtype = as_dtype(dtype).base_dtype if dtype else dtype
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._parameters = dict(parameters or {})
        self._name = name or type(self).__name__

    @contextlib.contextmanager
    def _name_scope(self, name=None):
        """Opens the scope ``<operator name>/<name>``, as TF does for each method."""
        full_name = self.name
        if name is not None:
            full_name += "/" + name
        with name_scope(full_name) as scope:
            yield scope

    # -- properties ------------------------------------------------------------------------------------------------

    @property
    def parameters(self) -> dict:
        """The arguments the operator was constructed with."""
        return dict(self._parameters)

    @property
    def dtype(self):
        """The DType of the Tensors handled by this operator."""
        return self._dtype

    @property
    def name(self) -> str:
        """The operator's name (the root of its methods' name scopes)."""
        return self._name

    @property
    def graph_parents(self):
        """Deprecated: the Tensors given as ``graph_parents``."""
        return self._graph_parents

    @property
    def is_non_singular(self):
        """Hint: the operator is invertible (True, False or None: unknown)."""
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        """Hint: the operator equals its adjoint."""
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        """Hint: Re(x^H A x) > 0 for all nonzero x."""
        return self._is_positive_definite

    @property
    def is_square(self):
        """True when the operator is square (from the hint or the static shape)."""
        auto_square_check = self.domain_dimension == self.range_dimension
        if self._is_square_set_or_implied_by_hints is False and auto_square_check:
            raise ValueError("User set is_square hint to False, but the operator was square.")
        if self._is_square_set_or_implied_by_hints is None:
            return auto_square_check
        return self._is_square_set_or_implied_by_hints

    @abc.abstractmethod
    def _shape(self) -> TensorShape:
        raise NotImplementedError("_shape is not implemented.")

    @property
    def shape(self) -> TensorShape:
        """The static shape ``batch_shape + [M, N]``."""
        return self._shape()

    def _shape_tensor(self):
        raise NotImplementedError("_shape_tensor is not implemented.")

    def shape_tensor(self, name="shape_tensor"):
        """The shape as a 1-D int32 Tensor."""
        with self._name_scope(name):
            if self.shape.is_fully_defined():
                return _shape_tensor(self.shape.as_list())
            return self._shape_tensor()

    @property
    def batch_shape(self) -> TensorShape:
        """The static batch shape (all but the last two dimensions)."""
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        """The batch shape as a 1-D int32 Tensor."""
        with self._name_scope(name):
            return self._batch_shape_tensor()

    def _batch_shape_tensor(self, shape=None):
        if self.batch_shape.is_fully_defined():
            return _shape_tensor(self.batch_shape.as_list(), name="batch_shape")
        shape = self.shape_tensor() if shape is None else shape
        return shape[:-2]

    @property
    def tensor_rank(self):
        """The static rank of the operator's Tensor (batch rank + 2), or None."""
        return self.shape.ndims

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        """The rank as a scalar int32 Tensor."""
        with self._name_scope(name):
            if self.tensor_rank is not None:
                return convert_to_tensor(self.tensor_rank)
            return shape_ops.size(self.shape_tensor())

    @property
    def domain_dimension(self) -> Dimension:
        """The static size N of the domain (the last dimension)."""
        if self.shape.ndims is None:
            return Dimension(None)
        return self.shape.dims[-1]

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        """The domain dimension N as a scalar int32 Tensor."""
        with self._name_scope(name):
            return self._domain_dimension_tensor()

    def _domain_dimension_tensor(self, shape=None):
        value = dimension_value(self.domain_dimension)
        if value is not None:
            return convert_to_tensor(value)
        shape = self.shape_tensor() if shape is None else shape
        return shape[-1]

    @property
    def range_dimension(self) -> Dimension:
        """The static size M of the range (the second-to-last dimension)."""
        if self.shape.dims:
            return self.shape.dims[-2]
        return Dimension(None)

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        """The range dimension M as a scalar int32 Tensor."""
        with self._name_scope(name):
            return self._range_dimension_tensor()

    def _range_dimension_tensor(self, shape=None):
        value = dimension_value(self.range_dimension)
        if value is not None:
            return convert_to_tensor(value)
        shape = self.shape_tensor() if shape is None else shape
        return shape[-2]

    # -- assertions ------------------------------------------------------------------------------------------------

    def _max_condition_number_to_be_non_singular(self):
        with name_scope("max_nonsingular_condition_number"):
            dtype_eps = np.finfo(self.dtype.as_numpy_dtype).eps
            eps = math_ops.cast(reduction_ops.reduce_max([
                100., math_ops.cast(self.range_dimension_tensor(), self.dtype),
                math_ops.cast(self.domain_dimension_tensor(), self.dtype)]), self.dtype) * dtype_eps
            return 1. / eps

    def _assert_non_singular(self):
        if self._can_use_cholesky():
            return self.assert_positive_definite()
        singular_values = linalg_factorizations.svd(self.to_dense(), compute_uv=False)
        cond = reduction_ops.reduce_max(singular_values, axis=-1) / reduction_ops.reduce_min(singular_values, axis=-1)
        return check_ops.assert_less(cond, self._max_condition_number_to_be_non_singular(),
                                     message="Singular matrix up to precision epsilon.")

    def assert_non_singular(self, name="assert_non_singular"):
        """An op that fails at run time when the operator is singular (condition number too large)."""
        with self._name_scope(name):
            return self._assert_non_singular()

    def _assert_positive_definite(self):
        if self.is_self_adjoint:
            return check_ops.assert_positive(diag_ops.matrix_diag_part(linalg_factorizations.cholesky(self.to_dense())),
                                             message="Matrix was not positive definite.")
        raise NotImplementedError("assert_positive_definite is not implemented.")

    def assert_positive_definite(self, name="assert_positive_definite"):
        """An op that fails at run time when the operator is not positive definite."""
        with self._name_scope(name):
            return self._assert_positive_definite()

    def _assert_self_adjoint(self):
        dense = self.to_dense()
        return check_ops.assert_equal(dense, _adjoint(dense), message="Matrix was not equal to its adjoint.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        """An op that fails at run time when the operator is not self-adjoint."""
        with self._name_scope(name):
            return self._assert_self_adjoint()

    def _check_input_dtype(self, arg):
        if arg.dtype.base_dtype != self.dtype:
            raise TypeError(f"Expected argument to have dtype {_dtype_str(self.dtype)}.  "
                            f"Found: {_dtype_str(arg.dtype)} in tensor {arg}")

    def _convert_input(self, x, name: str, self_dim: int, arg_dim: int):
        """``x`` as a Tensor, checked as TF checks a method's argument.

        First the dtype, then that dimension ``arg_dim`` of ``x`` fits dimension ``self_dim`` of the operator.
        """
        x = convert_to_tensor(x, name=name)
        self._check_input_dtype(x)
        _dim_at(self.shape, self_dim).assert_is_compatible_with(_dim_at(x.shape, arg_dim))
        return x

    def _operator_pair(self, other, adjoint: bool, adjoint_arg: bool, arg: str):
        """The operators that ``matmul``/``solve`` by the operator ``other`` combines: ``(left, right)``.

        ``self``/``other`` or their adjoints, after TF's check that their dimensions fit (``arg`` names ``other``
        in the message: "x" for matmul, "rhs" for solve).
        """
        left = self.adjoint() if adjoint else self
        right = other.adjoint() if adjoint_arg else other
        _check_operators_compatible(left, right, arg)
        return left, right

    def _check_solvable(self):
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to not be square.")

    def _own_hints(self, is_square=True) -> dict:
        """This operator's hints, for an operator derived from it (its adjoint, inverse, ...) as TF passes them."""
        return dict(is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
                    is_positive_definite=self.is_positive_definite, is_square=is_square)

    # -- products --------------------------------------------------------------------------------------------------

    @abc.abstractmethod
    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        raise NotImplementedError("_matmul is not implemented.")

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """Transforms [batch] matrix ``x`` with left multiplication: ``x --> A x`` (or an operator product)."""
        if isinstance(x, LinearOperator):
            left, right = self._operator_pair(x, adjoint, adjoint_arg, "x")
            with self._name_scope(name):
                return self._linop_matmul(left, right)
        with self._name_scope(name):
            x = self._convert_input(x, "x", -2 if adjoint else -1, -1 if adjoint_arg else -2)
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _linop_matmul(self, left_operator, right_operator):
        if hasattr(right_operator, "_ones_diag") and not hasattr(right_operator, "multiplier"):
            return left_operator
        if hasattr(right_operator, "_zeros_diag"):
            if not right_operator.is_square or not left_operator.is_square:
                raise ValueError("Matmul with non-square `LinearOperator`s or "
                                 "non-square `LinearOperatorZeros` not supported at this time.")
            return right_operator
        return LinearOperatorComposition(operators=[left_operator, right_operator],
                                         **_product_hints(left_operator, right_operator))

    def __matmul__(self, other):
        return self.matmul(other)

    def _matvec(self, x, adjoint=False):
        y = self.matmul(shape_ops.expand_dims(x, axis=-1), adjoint=adjoint)
        return shape_ops.squeeze(y, axis=-1)

    def matvec(self, x, adjoint=False, name="matvec"):
        """Transforms [batch] vector ``x`` with left multiplication: ``x --> A x``."""
        with self._name_scope(name):
            x = self._convert_input(x, "x", -2 if adjoint else -1, -1)
            return self._matvec(x, adjoint=adjoint)

    # -- determinants ----------------------------------------------------------------------------------------------

    def _determinant(self):
        if self._can_use_cholesky():
            return unary_math_ops.exp(self.log_abs_determinant())
        return linalg_solvers.matrix_determinant(self.to_dense())

    def determinant(self, name="det"):
        """The determinant of every batch member."""
        if self.is_square is False:
            raise NotImplementedError("Determinant not implemented for an operator that is expected to not be square.")
        with self._name_scope(name):
            return self._determinant()

    def _log_abs_determinant(self):
        if self._can_use_cholesky():
            diag = diag_ops.matrix_diag_part(linalg_factorizations.cholesky(self.to_dense()))
            return 2 * reduction_ops.reduce_sum(unary_math_ops.log(diag), axis=[-1])
        _, log_abs_det = linalg_solvers.slogdet(self.to_dense())
        return log_abs_det

    def log_abs_determinant(self, name="log_abs_det"):
        """log |det| of every batch member."""
        if self.is_square is False:
            raise NotImplementedError("Determinant not implemented for an operator that is expected to not be square.")
        with self._name_scope(name):
            return self._log_abs_determinant()

    # -- solves ----------------------------------------------------------------------------------------------------

    def _dense_solve(self, rhs, adjoint=False, adjoint_arg=False):
        if self.is_square is False:
            raise NotImplementedError("Solve is not yet implemented for non-square operators.")
        rhs = _adjoint(rhs) if adjoint_arg else rhs
        if self._can_use_cholesky():
            return linalg_solvers.cholesky_solve(linalg_factorizations.cholesky(self.to_dense()), rhs)
        return matrix_solve_with_broadcast(self.to_dense(), rhs, adjoint=adjoint)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """Solves ``A X = rhs`` for X (or returns the operator ``A^{-1} rhs`` for an operator ``rhs``)."""
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            left, right = self._operator_pair(rhs, adjoint, adjoint_arg, "rhs")
            with self._name_scope(name):
                return self._linop_solve(left, right)
        with self._name_scope(name):
            rhs = self._convert_input(rhs, "rhs", -1 if adjoint else -2, -1 if adjoint_arg else -2)
            return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _linop_solve(self, left_operator, right_operator):
        if hasattr(right_operator, "_ones_diag") and not hasattr(right_operator, "multiplier"):
            return left_operator.inverse()
        return LinearOperatorComposition(operators=[LinearOperatorInversion(left_operator), right_operator],
                                         **_product_hints(left_operator, right_operator))

    def _solvevec(self, rhs, adjoint=False):
        solution = self.solve(shape_ops.expand_dims(rhs, axis=-1), adjoint=adjoint)
        return shape_ops.squeeze(solution, axis=-1)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """Solves ``A x = rhs`` for a [batch] vector x."""
        with self._name_scope(name):
            rhs = self._convert_input(rhs, "rhs", -1 if adjoint else -2, -1)
            return self._solvevec(rhs, adjoint=adjoint)

    # -- derived operators -----------------------------------------------------------------------------------------

    def adjoint(self, name="adjoint"):
        """The adjoint (conjugate transpose) as a LinearOperator (``self`` when self-adjoint)."""
        if self.is_self_adjoint is True:
            return self
        with self._name_scope(name):
            return self._linop_adjoint()

    H = property(adjoint, None)

    def _linop_adjoint(self):
        return LinearOperatorAdjoint(self, **self._own_hints(is_square=self.is_square))

    def inverse(self, name="inverse"):
        """The inverse as a LinearOperator; a ValueError for an operator hinted singular or non-square."""
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular matrix.")
        with self._name_scope(name):
            return self._linop_inverse()

    def _linop_inverse(self):
        return LinearOperatorInversion(self, **self._own_hints(is_square=self.is_square))

    def cholesky(self, name="cholesky"):
        """The lower Cholesky factor as a LinearOperator (self-adjoint positive-definite operators only)."""
        if not self._can_use_cholesky():
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive definite self adjoint matrix.")
        with self._name_scope(name):
            return self._linop_cholesky()

    def _linop_cholesky(self):
        return LinearOperatorLowerTriangular(linalg_factorizations.cholesky(self.to_dense()), is_non_singular=True,
                                             is_self_adjoint=False, is_square=True)

    # -- dense views -----------------------------------------------------------------------------------------------

    def _to_dense(self):
        batch_shape = self.batch_shape if self.batch_shape.is_fully_defined() else self.batch_shape_tensor()
        n = dimension_value(self.domain_dimension)
        if n is None:
            n = self.domain_dimension_tensor()
        eye = diag_ops.eye(num_rows=n, batch_shape=batch_shape, dtype=self.dtype)
        return self.matmul(eye)

    def to_dense(self, name="to_dense"):
        """The dense (batch) matrix this operator represents."""
        with self._name_scope(name):
            return self._to_dense()

    def _diag_part(self):
        return diag_ops.matrix_diag_part(self.to_dense())

    def diag_part(self, name="diag_part"):
        """The [batch] diagonal of the matrix."""
        with self._name_scope(name):
            return self._diag_part()

    def _trace(self):
        return reduction_ops.reduce_sum(self.diag_part(), axis=-1)

    def trace(self, name="trace"):
        """The trace of every batch member."""
        with self._name_scope(name):
            return self._trace()

    def _add_to_tensor(self, x):
        return self.to_dense() + x

    def add_to_tensor(self, x, name="add_to_tensor"):
        """The dense matrix plus ``x``."""
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            return self._add_to_tensor(x)

    def _eigvals(self):
        return linalg_factorizations.self_adjoint_eigvals(self.to_dense())

    def eigvals(self, name="eigvals"):
        """The eigenvalues (self-adjoint operators only; NotImplementedError otherwise)."""
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        with self._name_scope(name):
            return self._eigvals()

    def _cond(self):
        if not self.is_self_adjoint:
            vals = linalg_factorizations.svd(self.to_dense(), compute_uv=False)
        else:
            vals = unary_math_ops.abs(self._eigvals())
        return reduction_ops.reduce_max(vals, axis=-1) / reduction_ops.reduce_min(vals, axis=-1)

    def cond(self, name="cond"):
        """The condition number (largest over smallest singular value)."""
        with self._name_scope(name):
            return self._cond()

    def _can_use_cholesky(self):
        return self.is_self_adjoint and self.is_positive_definite

    def __getitem__(self, slices):
        raise NotImplementedError(f"{type(self).__name__}: batch slicing of LinearOperators (TF's "
                                  "linalg/slicing.py) is not implemented in dflow.")

    def __repr__(self):
        return (f"<{type(self).__name__} '{self.name}' shape={self.shape} dtype={getattr(self.dtype, 'name', None)}>")


# The subclasses the base class builds (adjoint(), inverse(), composition, ...), and re-exported here.
from dflow.ops.linear_operators import linear_operator_block as _block  # noqa: E402,F401 - registers BlockDiag, BlockLowerTriangular
from dflow.ops.linear_operators import linear_operator_identity as _identity  # noqa: E402,F401 - registers Identity, ScaledIdentity, Zeros
from dflow.ops.linear_operators import linear_operator_structured as _structured  # noqa: E402,F401 - registers the structured operators
from dflow.ops.linear_operators import linear_operator_tridiag as _tridiag  # noqa: E402,F401 - registers Tridiag
from dflow.ops.linear_operators.linear_operator_basic import (  # noqa: E402, F401
    LinearOperatorDiag,
    LinearOperatorFullMatrix,
    LinearOperatorLowerTriangular,
)
from dflow.ops.linear_operators.linear_operator_composition import (  # noqa: E402, F401
    LinearOperatorAdjoint,
    LinearOperatorComposition,
    LinearOperatorInversion,
)
