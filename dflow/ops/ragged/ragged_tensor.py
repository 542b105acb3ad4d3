"""``tf.RaggedTensor``: a tensor whose rows have different lengths, and ``tf.RaggedTensorSpec``.

A ragged tensor is ``values`` (a Tensor, or another RaggedTensor for more
ragged dimensions) split into rows by ``row_splits``: row ``i`` is
``values[row_splits[i]:row_splits[i + 1]]``. It is a composite tensor: a
session fetches its ``nested_row_splits`` and ``flat_values`` and returns a
``tf.ragged.RaggedTensorValue``; feeding one sets those components.

The factories (``from_row_splits``, ``from_row_lengths``, ...) build the
row splits with ordinary ops under TF1's name scopes
(``RaggedFromRowSplits/...``) and, with ``validate=True``, add TF1's
assertions, which fail at run time with ``InvalidArgumentError``.

>>> import dflow as tf
>>> rt = tf.RaggedTensor.from_row_splits([1, 2, 3, 4, 5], [0, 2, 2, 5])
>>> with tf.Session() as sess:
...     sess.run(rt).to_list()
[[1, 2], [], [3, 4, 5]]
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import CompositeTensor, SparseTensor
from dflow.framework.constant_op import constant, convert_to_tensor, register_tensor_conversion_function
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import TensorShape, as_shape
from dflow.framework.type_spec import TensorSpec, TypeSpec
from dflow.ops.array import array_ops
from dflow.ops.control_flow.control_flow_ops import control_dependencies, with_dependencies
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.ragged import ragged_kernels
from dflow.ops.ragged.ragged_tensor_value import NestedRows, RaggedTensorValue
from dflow.ops.ragged.row_partition import (
    SPLITS_DTYPES,
    _assert_right_ragged,
    _check_validate,
    _lengths_to_splits,
    _splits_from_row_splits,
    _splits_from_value_rowids,
    _uniform_splits,
    convert_partition,
)


def is_ragged(value) -> bool:
    """Whether ``value`` is a RaggedTensor or a RaggedTensorValue."""
    return isinstance(value, (RaggedTensor, RaggedTensorValue))


def _values_partition_dtype(values):
    return values.row_splits.dtype if isinstance(values, RaggedTensor) else None


def _convert_values(values):
    if isinstance(values, RaggedTensorValue):
        values = _ragged_from_value(values)
    if isinstance(values, RaggedTensor):
        return values
    return convert_to_tensor(values, name="values")


def _nrows_of(values, out_type) -> Tensor:
    if isinstance(values, RaggedTensor):
        return values.nrows(out_type=out_type)
    return array_ops.shape(values, out_type=out_type)[0]


def _check_rank_at_least_1(values) -> None:
    if not isinstance(values, RaggedTensor) and values.shape.ndims == 0:
        raise ValueError("Shape () must have rank at least 1")


@tf_export("RaggedTensor")
class RaggedTensor(NestedRows, CompositeTensor):
    """A tensor with one or more ragged dimensions: ``values`` split into rows by ``row_splits``.

    Build one with a factory class method (``from_row_splits``,
    ``from_row_lengths``, ``from_value_rowids``, ``from_tensor``, ...) or
    ``tf.ragged.constant``.
    """

    _is_ragged = True

    def __init__(self, values, row_splits, uniform_row_length=None, internal=False):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the factory methods "
                             "instead (e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._row_splits = row_splits
        self._uniform_row_length = uniform_row_length

    # -- factories ------------------------------------------------------------

    @classmethod
    def _from_splits(cls, values, row_splits: Tensor, validate: bool, uniform_row_length=None) -> RaggedTensor:
        """Joins converted ``values`` and ``row_splits`` (inside the caller's scope), with TF's nvals check."""
        values = _convert_values(values)
        _check_rank_at_least_1(values)
        if isinstance(values, RaggedTensor) and values.row_splits.dtype is not row_splits.dtype:
            raise ValueError(f"Argument `row_partition` of RaggedTensor with name: partition must have same dtype as "
                             f"Argument `values`. (<dtype: '{row_splits.dtype.name}'> vs. "
                             f"<dtype: '{values.row_splits.dtype.name}'>).")
        if validate:
            from dflow.ops.debugging import check_ops

            msg = "Arguments to _from_row_partition do not form a valid RaggedTensor"
            nvals = _nrows_of(values, row_splits.dtype)
            checks = [check_ops.assert_equal(row_splits[-1], nvals, message=msg)]
            row_splits = with_dependencies(checks, row_splits)
        return cls(values, row_splits, uniform_row_length, internal=True)

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True) -> RaggedTensor:
        """A RaggedTensor whose row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``."""
        _check_validate(validate)
        with name_scope(name, "RaggedFromRowSplits", [values, row_splits]):
            values = _convert_values(values)
            splits = _splits_from_row_splits(row_splits, validate, _values_partition_dtype(values))
            return cls._from_splits(values, splits, validate)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True) -> RaggedTensor:
        """A RaggedTensor whose row ``i`` has ``row_lengths[i]`` of the ``values``, in order."""
        _check_validate(validate)
        with name_scope(name, "RaggedFromRowLengths", [values, row_lengths]):
            values = _convert_values(values)
            with name_scope(None, "RowPartitionFromRowLengths", [row_lengths]):
                lengths = convert_partition(row_lengths, "row_lengths", dtype_hint=_values_partition_dtype(values))
                lengths.shape.with_rank(1)
                if validate:
                    from dflow.ops.debugging import check_ops

                    msg = "Arguments to from_row_lengths do not form a valid RowPartition"
                    lengths = with_dependencies([check_ops.assert_non_negative(lengths, message=msg)], lengths)
                splits = _lengths_to_splits(lengths)
            return cls._from_splits(values, splits, validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True) -> RaggedTensor:
        """A RaggedTensor whose row ``value_rowids[j]`` holds ``values[j]`` (row ids sorted ascending)."""
        _check_validate(validate)
        with name_scope(name, "RaggedFromValueRowIds", [values, value_rowids, nrows]):
            values = _convert_values(values)
            splits, rowids = _splits_from_value_rowids(value_rowids, nrows, validate, _values_partition_dtype(values))
            values.shape[:1].assert_is_compatible_with(rowids.shape)
            return cls._from_splits(values, splits, validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True) -> RaggedTensor:
        """A RaggedTensor whose row ``i`` starts at ``values[row_starts[i]]``."""
        _check_validate(validate)
        with name_scope(name, "RaggedFromRowStarts", [values, row_starts]):
            values = _convert_values(values)
            dtype_hint = _values_partition_dtype(values)
            if isinstance(row_starts, Tensor) and row_starts.dtype in SPLITS_DTYPES:
                nvals = _nrows_of(values, row_starts.dtype)
            else:
                nvals = _nrows_of(values, dtype_hint or dtypes.int64)
            with name_scope(None, "RowPartitionFromRowStarts", [row_starts]):
                starts = convert_partition(row_starts, "row_starts", dtype_hint=dtype_hint)
                starts.shape.with_rank(1)
                nvals = math_ops.cast(nvals, starts.dtype) if nvals.dtype is not starts.dtype else nvals
                if validate:
                    from dflow.ops.debugging import check_ops

                    msg = "Arguments to from_row_starts do not form a valid RaggedTensor"
                    checks = [check_ops.assert_equal(starts[:1], constant(0, starts.dtype), message=msg),
                              check_ops.assert_non_negative(starts[1:] - starts[:-1], message=msg),
                              check_ops.assert_less_equal(starts[-1:], nvals, message=msg)]
                    starts = with_dependencies(checks, starts)
                splits = array_ops.concat([starts, array_ops.reshape(nvals, [1])], axis=0)
            return cls._from_splits(values, splits, validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True) -> RaggedTensor:
        """A RaggedTensor whose row ``i`` ends just before ``values[row_limits[i]]``."""
        _check_validate(validate)
        with name_scope(name, "RaggedFromRowLimits", [values, row_limits]):
            values = _convert_values(values)
            with name_scope(None, "RowPartitionFromRowLimits", [row_limits]):
                limits = convert_partition(row_limits, "row_limits", dtype_hint=_values_partition_dtype(values))
                limits.shape.with_rank(1)
                if validate:
                    from dflow.ops.debugging import check_ops

                    msg = "Arguments to from_row_limits do not form a valid RaggedTensor"
                    checks = [check_ops.assert_non_negative(limits[:1], message=msg),
                              check_ops.assert_non_negative(limits[1:] - limits[:-1], message=msg)]
                    limits = with_dependencies(checks, limits)
                splits = array_ops.concat([constant([0], limits.dtype), limits], axis=0)
            return cls._from_splits(values, splits, validate)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True,
                                name=None) -> RaggedTensor:
        """A RaggedTensor whose rows all have ``uniform_row_length`` values (a static dimension of its shape)."""
        _check_validate(validate)
        with name_scope(name, "RaggedFromUniformRowLength", [values, uniform_row_length, nrows]):
            values = _convert_values(values)
            dtype_hint = _values_partition_dtype(values)
            with name_scope(None, "RowPartitionFromUniformRowLength", [uniform_row_length, nrows]):
                length = convert_partition(uniform_row_length, "uniform_row_length", dtype_hint=dtype_hint)
                length.shape.with_rank(0)
                nvals = _nrows_of(values, length.dtype)
                splits = _uniform_splits(length, nvals, nrows, validate)
            return cls._from_splits(values, splits, validate, uniform_row_length=length)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True) -> RaggedTensor:
        """A RaggedTensor from ``flat_values`` and the row splits of each ragged dimension, outermost first."""
        _check_validate(validate)
        if isinstance(nested_row_splits, Tensor):
            raise TypeError("nested_row_splits must be a list of Tensors")
        with name_scope(name, "RaggedFromNestedRowSplits", [flat_values] + list(nested_row_splits)):
            result = flat_values
            for splits in reversed(nested_row_splits):
                result = cls.from_row_splits(result, splits, validate=validate)
            return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True) -> RaggedTensor:
        """A RaggedTensor from ``flat_values`` and the row lengths of each ragged dimension, outermost first."""
        _check_validate(validate)
        if isinstance(nested_row_lengths, Tensor):
            raise TypeError("nested_row_lengths must be a list of Tensors")
        with name_scope(name, "RaggedFromNestedRowlengths", [flat_values] + list(nested_row_lengths)):
            result = flat_values
            for lengths in reversed(nested_row_lengths):
                result = cls.from_row_lengths(result, lengths, validate=validate)
            return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None, name=None,
                                 validate=True) -> RaggedTensor:
        """A RaggedTensor from ``flat_values`` and the value row ids (and nrows) of each ragged dimension."""
        _check_validate(validate)
        if isinstance(nested_value_rowids, Tensor):
            raise TypeError("nested_value_rowids must be a list of Tensors")
        if nested_nrows is None:
            nested_nrows = [None] * len(nested_value_rowids)
        else:
            if isinstance(nested_nrows, Tensor):
                raise TypeError("nested_nrows must be a list of Tensors")
            if len(nested_nrows) != len(nested_value_rowids):
                raise ValueError(f"Argument `nested_nrows` must have the same length as argument "
                                 f"`nested_value_rowids`. len(nested_nrows) = {len(nested_nrows)} vs. "
                                 f"len(nested_values_rowids) = {len(nested_value_rowids)}.")
        with name_scope(name, "RaggedFromNestedValueRowIds", [flat_values] + list(nested_value_rowids)):
            result = flat_values
            for rowids, nrows in reversed(list(zip(nested_value_rowids, nested_nrows))):
                result = cls.from_value_rowids(result, rowids, nrows, validate=validate)
            return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype=dtypes.int64) -> RaggedTensor:
        """A RaggedTensor from a dense tensor: rows cut to ``lengths``, or with trailing ``padding`` removed."""
        from dflow.ops.ragged.ragged_conversion import from_tensor

        return from_tensor(cls, tensor, lengths, padding, ragged_rank, name, row_splits_dtype)

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=dtypes.int64) -> RaggedTensor:
        """A 2-D RaggedTensor from a row-major ordered 2-D SparseTensor (each row's values, in order)."""
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if not isinstance(st_input, SparseTensor):
            raise TypeError(f"st_input must be a SparseTensor, got {type(st_input).__name__}")
        with name_scope(name, "RaggedFromSparse", [st_input]):
            st_input.indices.shape.with_rank(2)
            rank = st_input.dense_shape.shape[0].value if st_input.dense_shape.shape.ndims else None
            index_rank = st_input.indices.shape[1].value if st_input.indices.shape.ndims else None
            if rank != 2 and index_rank != 2:
                raise ValueError("rank(st_input) must be 2.")
            with control_dependencies([_assert_right_ragged(st_input.indices)]):
                segment_ids = math_ops.cast(st_input.indices[:, 0], row_splits_dtype)
                num_segments = math_ops.cast(st_input.dense_shape[0], row_splits_dtype)
                return cls.from_value_rowids(st_input.values, segment_ids, num_segments, validate=False)

    # -- properties -----------------------------------------------------------

    @property
    def values(self):
        """The concatenated rows (a Tensor, or a RaggedTensor when there are more ragged dimensions)."""
        return self._values

    @property
    def row_splits(self) -> Tensor:
        """The int32/int64 vector whose consecutive entries bound each row in ``values``."""
        return self._row_splits

    @property
    def uniform_row_length(self):
        """The length of every row when this dimension is uniform, else None."""
        return self._uniform_row_length

    @property
    def dtype(self) -> dtypes.DType:
        """The dtype of the values."""
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        """The static shape: ``[nrows, (row length), ...]`` with None for ragged dimensions."""
        nrows = self._row_splits.shape[0] if self._row_splits.shape.ndims else None
        nrows = getattr(nrows, "value", nrows)
        nrows = None if nrows is None else nrows - 1
        ncols = None
        if self._uniform_row_length is not None:
            known = constant_value(self._uniform_row_length)
            ncols = None if known is None else int(known)
        values_shape = self._values.shape
        if values_shape.ndims is None:
            return TensorShape(None)
        return TensorShape([nrows, ncols]).concatenate(values_shape[1:])

    def get_shape(self) -> TensorShape:
        """The static shape (``shape``)."""
        return self.shape

    @property
    def row_splits_dtype(self) -> dtypes.DType:
        """The dtype of the row splits (int32 or int64)."""
        return self._row_splits.dtype

    @property
    def op(self):
        return self.flat_values.op

    @property
    def _type_spec(self) -> RaggedTensorSpec:
        return RaggedTensorSpec.from_value(self)

    # -- row partition queries --------------------------------------------------

    def nrows(self, out_type=None, name=None) -> Tensor:
        """The number of rows (a scalar of the row splits' dtype, or ``out_type``)."""
        out_type = self._row_splits.dtype if out_type is None else dtypes.as_dtype(out_type)
        with name_scope(name, "RaggedNRows", [self]):
            n = array_ops.shape(self._row_splits, out_type=out_type)[0] - 1
            return n

    def row_starts(self, name=None) -> Tensor:
        """The index in ``values`` where each row starts."""
        with name_scope(name, "RaggedRowStarts", [self]):
            return self._row_splits[:-1]

    def row_limits(self, name=None) -> Tensor:
        """The index in ``values`` just past each row's end."""
        with name_scope(name, "RaggedRowLimits", [self]):
            return self._row_splits[1:]

    def row_lengths(self, axis=1, name=None):
        """The length of each row (``axis`` picks the ragged dimension; a RaggedTensor for inner ones)."""
        if axis == 0:
            return self.nrows()
        if axis == 1:
            with name_scope(name, "RaggedRowLengths", [self]):
                return self._row_splits[1:] - self._row_splits[:-1]
        with name_scope(name, "RaggedRowLengths", [self]):
            axis = _normalize_axis(axis, self.shape.ndims, "axis")
            if axis == 0:
                return self.nrows()
            if axis == 1:
                return self._row_splits[1:] - self._row_splits[:-1]
            if isinstance(self._values, RaggedTensor):
                return self.with_values(self._values.row_lengths(axis - 1))
            shape = array_ops.shape(self._values, out_type=self._row_splits.dtype)
            return self.with_values(array_ops.ones(shape[:axis - 1], self._row_splits.dtype) * shape[axis - 1])

    def nested_row_lengths(self, name=None) -> tuple:
        """The row lengths of every ragged dimension, outermost first."""
        with name_scope(name, "RaggedNestedRowLengths", [self]):
            lengths = []
            rt = self
            while isinstance(rt, RaggedTensor):
                lengths.append(rt.row_lengths())
                rt = rt.values
            return tuple(lengths)

    def value_rowids(self, name=None) -> Tensor:
        """The row index of each value."""
        from dflow.ops.ragged.ragged_ops import row_splits_to_segment_ids

        with name_scope(name, "RaggedValueRowIds", [self]):
            return row_splits_to_segment_ids(self._row_splits)

    def nested_value_rowids(self, name=None) -> tuple:
        """The value row ids of every ragged dimension, outermost first."""
        with name_scope(name, "RaggedNestedValueRowIds", [self]):
            ids = []
            rt = self
            while isinstance(rt, RaggedTensor):
                ids.append(rt.value_rowids())
                rt = rt.values
            return tuple(ids)

    def bounding_shape(self, axis=None, name=None, out_type=None) -> Tensor:
        """The smallest dense shape holding this tensor: ``[nrows, longest row, ...]``."""
        out_type = self._row_splits.dtype if out_type is None else dtypes.as_dtype(out_type)
        with name_scope(name, "RaggedBoundingBox", [self, axis]):
            nested_splits = self.nested_row_splits
            dims = [array_ops.reshape(array_ops.shape(nested_splits[0], out_type=out_type)[0] - 1, [1])]
            for splits in nested_splits:
                lengths = math_ops.cast(splits[1:] - splits[:-1], out_type)
                longest = math_ops.maximum(reduction_ops.reduce_max(lengths), constant(0, out_type))
                dims.append(array_ops.reshape(longest, [1]))
            dims.append(array_ops.shape(self.flat_values, out_type=out_type)[1:])
            bounding = array_ops.concat(dims, axis=0)
            if axis is None:
                return bounding
            return array_ops.gather(bounding, axis)

    # -- conversions ------------------------------------------------------------

    def to_tensor(self, default_value=None, name=None, shape=None) -> Tensor:
        """The dense tensor, short rows padded with ``default_value`` (zero), cut or padded to ``shape``."""
        with name_scope(name, "RaggedToTensor", [self, default_value, shape]):
            flat = self.flat_values
            if default_value is None:
                default = array_ops.zeros([], flat.dtype)
            else:
                default = convert_to_tensor(default_value, name="default_value", dtype=flat.dtype)
            rank = self.shape.ndims
            if shape is None:
                shape_t = constant([-1] * rank if rank is not None else [-1], dtypes.int64) if rank is not None \
                    else array_ops.fill(array_ops.reshape(self.ragged_rank + array_ops.rank(flat), [1]),
                                        constant(-1, dtypes.int64))
            else:
                shape_t = _shape_argument(shape, rank)
            out = ragged_kernels.ragged_to_tensor_op(shape_t, flat, default, self.nested_row_splits)
            out.set_shape(_to_tensor_static_shape(self.shape, shape))
            return out

    def to_sparse(self, name=None) -> SparseTensor:
        """The SparseTensor with this tensor's values at their ``[row, column, ...]`` positions."""
        with name_scope(name, "RaggedToSparse", [self]):
            indices, values, dense_shape = ragged_kernels.ragged_to_sparse_op(self.nested_row_splits,
                                                                              self.flat_values)
            return SparseTensor(indices, values, dense_shape)

    def with_values(self, new_values) -> RaggedTensor:
        """This tensor's row partition with ``new_values`` (as many rows as ``values`` had)."""
        new_values = _convert_values(new_values)
        _check_rank_at_least_1(new_values)
        if isinstance(new_values, RaggedTensor) and new_values.row_splits.dtype is not self._row_splits.dtype:
            raise ValueError("self and new_values have mismatched row_splits dtypes; use "
                             "RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes.")
        return RaggedTensor(new_values, self._row_splits, self._uniform_row_length, internal=True)

    def with_flat_values(self, new_values) -> RaggedTensor:
        """This tensor's nested row partitions with ``new_values`` as the flat values."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype) -> RaggedTensor:
        """This tensor with every row partition cast to ``dtype`` (int32 or int64)."""
        dtype = dtypes.as_dtype(dtype)
        if dtype not in SPLITS_DTYPES:
            raise ValueError(f"dtype must be int32 or int64, but got {dtype!r}")
        if self._row_splits.dtype is dtype:
            return self
        values = self._values
        if isinstance(values, RaggedTensor):
            values = values.with_row_splits_dtype(dtype)
        length = None if self._uniform_row_length is None else math_ops.cast(self._uniform_row_length, dtype)
        return RaggedTensor(values, math_ops.cast(self._row_splits, dtype), length, internal=True)

    def merge_dims(self, outer_axis, inner_axis):
        """Merges dimensions ``outer_axis`` to ``inner_axis`` (inclusive) into one."""
        from dflow.ops.ragged.ragged_conversion import merge_dims

        rank = self.shape.ndims
        outer_axis = _normalize_axis(outer_axis, rank, "outer_axis")
        inner_axis = _normalize_axis(inner_axis, rank, "inner_axis")
        if not outer_axis <= inner_axis:
            raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to inner_axis "
                             f"({inner_axis}).")
        with name_scope(None, "RaggedMergeDims", [self]):
            return merge_dims(self, outer_axis, inner_axis)

    def __getitem__(self, key):
        from dflow.ops.ragged.ragged_getitem import ragged_tensor_getitem

        return ragged_tensor_getitem(self, key)

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")

    # -- composite protocol -----------------------------------------------------

    def _fetch_components(self) -> tuple:
        return tuple(self.nested_row_splits) + (self.flat_values,)

    def _value_from_components(self, values) -> RaggedTensorValue:
        *splits, flat = values
        result = flat
        for s in reversed(splits):
            result = RaggedTensorValue(result, np.asarray(s))
        return result

    @classmethod
    def _from_components(cls, components) -> RaggedTensor:
        """The RaggedTensor of ``(*nested_row_splits, flat_values)`` (the inverse of ``_fetch_components``)."""
        *splits, flat_values = components
        return cls.from_nested_row_splits(flat_values, splits, validate=False)

    def _feed_components(self, value) -> list:
        if isinstance(value, RaggedTensor):
            raise TypeError("The value of a feed cannot be a tf.RaggedTensor object; feed a "
                            "tf.ragged.RaggedTensorValue.")
        if not isinstance(value, RaggedTensorValue):
            raise TypeError(f"A RaggedTensor is fed with a tf.ragged.RaggedTensorValue, got "
                            f"{type(value).__name__}: {value!r}")
        if value.ragged_rank != self.ragged_rank:
            raise ValueError(f"Cannot feed a RaggedTensorValue of ragged_rank {value.ragged_rank} to a RaggedTensor "
                             f"of ragged_rank {self.ragged_rank}")
        pairs = list(zip(self.nested_row_splits, value.nested_row_splits))
        return pairs + [(self.flat_values, value.flat_values)]

    def consumers(self) -> list:
        seen = []
        for t in self._fetch_components():
            for op in t.consumers():
                if op not in seen:
                    seen.append(op)
        return seen

    def __repr__(self) -> str:
        return f"tf.RaggedTensor(values={self._values!r}, row_splits={self._row_splits!r})"


def _normalize_axis(axis, rank, name: str) -> int:
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{name} must be an int; got {type(axis).__name__}")
    if rank is None:
        if axis < 0:
            raise ValueError(f"{name} may only be negative if the rank is statically known.")
        return int(axis)
    if not -rank <= axis < rank:
        raise ValueError(f"{name}={axis} out of bounds: expected {-rank}<={name}<{rank}")
    return int(axis % rank)


def _shape_argument(shape, rank) -> Tensor:
    """The ``shape=`` of ``to_tensor`` as an int64 vector, unknown sizes as -1."""
    if isinstance(shape, Tensor):
        return math_ops.cast(shape, dtypes.int64)
    shape = as_shape(shape)
    if shape.ndims is None:
        return constant([-1] * rank, dtypes.int64)
    if rank is not None and shape.ndims != rank:
        raise ValueError(f"rt_input.shape and shape={shape} are incompatible: rt_input.rank = {rank} but "
                         f"shape.rank = {shape.ndims}")
    return constant([-1 if d is None else d for d in shape.as_list()], dtypes.int64)


def _to_tensor_static_shape(rt_shape: TensorShape, shape) -> TensorShape:
    """``shape``'s known sizes, else this tensor's static ones (the ragged ones stay unknown)."""
    if shape is None or isinstance(shape, Tensor):
        return rt_shape
    shape = as_shape(shape)
    if shape.ndims is None:
        return rt_shape
    if rt_shape.ndims is None:
        return shape
    return TensorShape([d.value if d.value is not None else r.value for d, r in zip(shape, rt_shape)])


def _ragged_from_value(value: RaggedTensorValue) -> RaggedTensor:
    result = constant(value.flat_values)
    for splits in reversed(value.nested_row_splits):
        result = RaggedTensor.from_row_splits(result, constant(splits), validate=False)
    return result


def _ragged_to_tensor_conversion(value, dtype=None, name=None, as_ref=False):
    raise TypeError(f"Failed to convert elements of {value!r} to Tensor. A RaggedTensor cannot be used where a "
                    f"dense Tensor is expected; convert it with rt.to_tensor().")


register_tensor_conversion_function(RaggedTensor, _ragged_to_tensor_conversion)


# -- RaggedTensorSpec -----------------------------------------------------------------


@tf_export("RaggedTensorSpec")
class RaggedTensorSpec(TypeSpec):
    """The shape, dtype, ragged rank and row-splits dtype of a ``RaggedTensor``."""

    value_type = RaggedTensor

    def __init__(self, shape=None, dtype=dtypes.float32, ragged_rank=None, row_splits_dtype=dtypes.int64,
                 flat_values_spec=None):
        self._shape = as_shape(shape)
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if flat_values_spec is not None:
            if dtype is None:
                dtype = flat_values_spec.dtype
            elif dtypes.as_dtype(dtype) is not flat_values_spec.dtype:
                raise ValueError("dtype must be the same as flat_values_spec.dtype")
        elif dtype is None:
            raise ValueError("At least one of dtype or flat_values_spec must be provided")
        self._dtype = dtypes.as_dtype(dtype)
        self._flat_values_spec = flat_values_spec
        rank = self._shape.ndims
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        self._ragged_rank = ragged_rank
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank ({rank}).")

    shape = property(lambda self: self._shape, doc="The static shape (None for ragged dimensions).")
    dtype = property(lambda self: self._dtype, doc="The dtype of the values.")
    ragged_rank = property(lambda self: self._ragged_rank, doc="The number of ragged dimensions.")
    row_splits_dtype = property(lambda self: self._row_splits_dtype, doc="The dtype of the row splits.")
    flat_values_spec = property(lambda self: self._flat_values_spec, doc="The spec of the flat values, if given.")

    def _serialize(self) -> tuple:
        if self._flat_values_spec is None:
            return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)
        return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype, self._flat_values_spec)

    def is_compatible_with(self, spec_or_value) -> bool:
        """Whether ``spec_or_value`` (a spec, RaggedTensor or, for ragged_rank 0, a Tensor) fits this spec."""
        if self._ragged_rank == 0 and isinstance(spec_or_value, (Tensor, TensorSpec)):
            return TensorSpec(self._shape, self._dtype).is_compatible_with(spec_or_value)
        other = spec_or_value
        if isinstance(other, (RaggedTensor, RaggedTensorValue)):
            other = RaggedTensorSpec.from_value(other)
        if not isinstance(other, RaggedTensorSpec):
            return False
        return (self._dtype is other.dtype and self._ragged_rank == other.ragged_rank
                and self._row_splits_dtype is other.row_splits_dtype and self._shape.is_compatible_with(other.shape))

    @classmethod
    def from_value(cls, value) -> RaggedTensorSpec:
        """The spec of a RaggedTensor (or RaggedTensorValue)."""
        if isinstance(value, RaggedTensorValue):
            shape = TensorShape(list(value.shape))
            return cls(shape, dtypes.as_dtype(value.dtype), value.ragged_rank,
                       dtypes.as_dtype(value.row_splits.dtype))
        return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits.dtype)

    def __repr__(self) -> str:
        return (f"RaggedTensorSpec({self._shape!r}, tf.{self._dtype.name}, {self._ragged_rank}, "
                f"tf.{self._row_splits_dtype.name})")
