"""``tf.linalg.LinearOperatorBlockDiag`` and ``LinearOperatorBlockLowerTriangular``: operators of blocks, applied
block by block, as TF 2.15 writes them."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.tensor_shape import Dimension, TensorShape, dimension_value
from dflow.ops.array import array_ops, creation_ops, shape_ops, shape_utils
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.linear_operators.linear_operator import LinearOperator
from dflow.ops.linear_operators.linear_operator_basic import (
    LinearOperatorDiag,
    LinearOperatorFullMatrix,
    LinearOperatorLowerTriangular,
)
from dflow.ops.linear_operators.linear_operator_identity import LinearOperatorIdentity, LinearOperatorScaledIdentity
from dflow.ops.linear_operators.linear_operator_structured import _all_hint
from dflow.ops.linear_operators.linear_operator_util import (
    _adjoint,
    _broadcast_batch_shape_tensors,
    _broadcast_batch_shapes,
    _check_iterable,
    _check_operator_list,
    _check_operators_compatible,
    _combined_non_singular_hint,
    _dim_at,
    _product,
    _sum,
    broadcast_matrix_batch_dims,
)
from dflow.ops.math import math_ops, unary_math_ops

__all__ = ['LinearOperatorBlockDiag', 'LinearOperatorBlockLowerTriangular']


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
