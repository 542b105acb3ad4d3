"""``tf.linalg.LinearOperator`` and its simple subclasses, as TF 2.15 writes them.

A linear operator is a Python object that stands for a (batch of) matrices and
multiplies, solves, takes determinants, ... without always building the dense
matrix. Each class here follows TF's ``tensorflow/python/ops/linalg`` file of
the same name: the same hints and their checks, the same structure-using
algorithms (a diagonal solve divides, a triangular one back-substitutes), the
same dense fallbacks and the same errors. They are built from dflow's public
ops, so gradients come from those ops' rules.

Identity, ScaledIdentity and Zeros live in ``linear_operator_identity.py``, the
structured operators (low-rank update, Kronecker, block, ...) in
``linear_operator_structured.py``, both imported at the end of this file (which in
turn imports the circulant and Toeplitz ones, ``linear_operator_circulant.py``).
"""

from __future__ import annotations

import abc
import contextlib
import functools
import operator as _operator

import numpy as np

from dflow._api import tf_export
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
from dflow.ops.linalg import diag_ops, linalg_factorizations, linalg_ops, linalg_solvers
from dflow.ops.math import math_extra_ops, math_ops, reduction_ops, unary_math_ops
from dflow.ops.state import variables

__all__ = [
    "LinearOperator", "LinearOperatorFullMatrix", "LinearOperatorDiag", "LinearOperatorLowerTriangular",
    "LinearOperatorComposition", "LinearOperatorAdjoint", "LinearOperatorInversion",
]


# ----------------------------------------------------------------------------------------------------------------------
# Helpers (TF's linear_operator_util.py and property_hint_util.py)
# ----------------------------------------------------------------------------------------------------------------------

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


# ----------------------------------------------------------------------------------------------------------------------
# FullMatrix, Diag, LowerTriangular
# ----------------------------------------------------------------------------------------------------------------------

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


# ----------------------------------------------------------------------------------------------------------------------
# Adjoint, Inversion, Composition
# ----------------------------------------------------------------------------------------------------------------------

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


from dflow.ops.linear_operators import linear_operator_identity as _identity  # noqa: E402,F401 - registers Identity, ScaledIdentity, Zeros
from dflow.ops.linear_operators import linear_operator_structured as _structured  # noqa: E402,F401 - registers the structured operators
