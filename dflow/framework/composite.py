"""Composite tensors: ``SparseTensor`` and ``IndexedSlices``, values made of several tensors.

A composite is not an edge of the graph: it is a Python object holding its
component tensors (a ``SparseTensor`` holds ``indices``, ``values`` and
``dense_shape``). Ops take and return the components; a session fetches a
composite by fetching its components and rebuilding the value
(``SparseTensorValue``), and feeds one by feeding each component. The
protocol the session uses is two methods:

* ``_fetch_components()``: the component tensors, in order;
* ``_value_from_components(values)``: the fetched value built from theirs;
* ``_feed_components(value)``: ``[(tensor, component_value), ...]`` for a fed value.

>>> import dflow as tf
>>> st = tf.SparseTensor(indices=[[0, 1]], values=[2.0], dense_shape=[2, 3])
>>> with tf.Session() as sess:
...     sess.run(st).dense_shape.tolist()
[2, 3]
"""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import (
    constant,
    convert_to_tensor,
    placeholder,
    placeholder_with_default,
    register_tensor_conversion_function,
)
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, constant_value
from dflow.framework.tensor import Tensor
from dflow.framework.tensor_shape import TensorShape, unknown_shape


class CompositeTensor:
    """Base of values made of several tensors, fetched and fed as one."""

    def _fetch_components(self) -> tuple:
        raise NotImplementedError(f"{type(self).__name__} must define _fetch_components")

    def _value_from_components(self, values):
        raise NotImplementedError(f"{type(self).__name__} must define _value_from_components")

    def _feed_components(self, value) -> list:
        raise TypeError(f"A {type(self).__name__} cannot be fed.")

    @property
    def graph(self):
        return self._fetch_components()[0].graph

    def eval(self, feed_dict=None, session=None):
        """Runs this value in ``session`` (or the default session)."""
        from dflow.framework.tensor import _default_session_run

        return _default_session_run(self, feed_dict, session, "tensor")


SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])
SparseTensorValue.__doc__ = "A fetched ``SparseTensor``: numpy ``indices``, ``values`` and ``dense_shape``."
tf_export("SparseTensorValue")(SparseTensorValue)


def _as_int64(value, name: str) -> Tensor:
    t = convert_to_tensor(value, name=name, preferred_dtype=dtypes.int64)
    if not t.dtype.is_integer:
        raise TypeError(f"SparseTensor {name} must be an integer tensor, got {t.dtype.name}: {t}")
    if t.dtype is dtypes.int64:
        return t
    with name_scope("Cast", None, [t]) as scope:  # tf.cast's op, by its registered name
        return apply_op("Cast", [t], {"SrcT": t.dtype, "DstT": dtypes.int64, "Truncate": False}, name=scope).outputs[0]


@tf_export("SparseTensor", "sparse.SparseTensor")
class SparseTensor(CompositeTensor):
    """A sparse tensor: ``values[i]`` sits at ``indices[i]`` of a ``dense_shape`` tensor.

    ``indices`` is an int64 ``[N, rank]`` matrix (row-major order expected by
    most ops: ``tf.sparse.reorder`` sorts), ``values`` a ``[N]`` vector and
    ``dense_shape`` an int64 ``[rank]`` vector.

    >>> st = SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    """

    def __init__(self, indices, values, dense_shape):
        with name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            self._indices = _as_int64(indices, "indices")
            self._values = values if isinstance(values, Tensor) else convert_to_tensor(values, name="values")
            self._dense_shape = _as_int64(dense_shape, "dense_shape")
        self._static_shape = None  # a sparse_placeholder's declared shape, when dense_shape is not a constant
        if self._indices.shape.ndims not in (None, 2):
            raise ValueError(f"SparseTensor indices must be a matrix ([N, rank]), got shape {self._indices.shape}")
        if self._values.shape.ndims not in (None, 1):
            raise ValueError(f"SparseTensor values must be a vector ([N]), got shape {self._values.shape}")
        if self._dense_shape.shape.ndims not in (None, 1):
            raise ValueError(f"SparseTensor dense_shape must be a vector, got shape {self._dense_shape.shape}")
        self._indices.shape[0].assert_is_compatible_with(self._values.shape[0] if self._values.shape.ndims else None)
        self._indices.shape[1].assert_is_compatible_with(
            self._dense_shape.shape[0] if self._dense_shape.shape.ndims else None)

    @classmethod
    def from_value(cls, sparse_tensor_value) -> SparseTensor:
        """A SparseTensor of constants from a ``SparseTensorValue`` (or a SparseTensor, returned as is)."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        v = sparse_tensor_value
        return cls(indices=v.indices, values=v.values, dense_shape=v.dense_shape)

    @property
    def indices(self) -> Tensor:
        return self._indices

    @property
    def values(self) -> Tensor:
        return self._values

    @property
    def dense_shape(self) -> Tensor:
        return self._dense_shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._values.dtype

    @property
    def op(self):
        return self._values.op

    @property
    def shape(self) -> TensorShape:
        known = constant_value(self._dense_shape)
        if known is not None:
            return TensorShape([int(d) if d >= 0 else None for d in np.asarray(known).ravel()])
        if self._static_shape is not None:
            return self._static_shape
        rank = self._dense_shape.shape[0] if self._dense_shape.shape.ndims else None
        rank = getattr(rank, "value", rank)
        return unknown_shape() if rank is None else TensorShape([None] * rank)

    def get_shape(self) -> TensorShape:
        return self.shape

    def consumers(self) -> list:
        seen = []
        for t in self._fetch_components():
            for op in t.consumers():
                if op not in seen:
                    seen.append(op)
        return seen

    def _fetch_components(self) -> tuple:
        return (self._indices, self._values, self._dense_shape)

    def _value_from_components(self, values) -> SparseTensorValue:
        return SparseTensorValue(*values)

    def _feed_components(self, value) -> list:
        if isinstance(value, SparseTensor):
            raise TypeError("The value of a feed cannot be a tf.SparseTensor object; feed a SparseTensorValue "
                            "or an (indices, values, dense_shape) tuple.")
        try:
            indices, values, dense_shape = value
        except (TypeError, ValueError):
            raise TypeError(f"A SparseTensor is fed with a SparseTensorValue or an (indices, values, dense_shape) "
                            f"tuple, got {type(value).__name__}: {value!r}") from None
        return [(self._indices, indices), (self._values, values), (self._dense_shape, dense_shape)]

    def __repr__(self) -> str:
        return f"SparseTensor(indices={self._indices!r}, values={self._values!r}, dense_shape={self._dense_shape!r})"


IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])
IndexedSlicesValue.__doc__ = "A fetched ``IndexedSlices``: numpy ``values``, ``indices`` and ``dense_shape``."
tf_export("IndexedSlicesValue")(IndexedSlicesValue)


@tf_export("IndexedSlices")
class IndexedSlices(CompositeTensor):
    """Rows ``indices`` of a ``dense_shape`` tensor, with ``values[i]`` the row ``indices[i]``.

    The gradient of a gather is one: only the rows read have a gradient.
    Repeated indices add up when it is made dense (``tf.convert_to_tensor``).
    """

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self) -> Tensor:
        return self._values

    @property
    def indices(self) -> Tensor:
        return self._indices

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._values.dtype

    @property
    def name(self) -> str:
        return self._values.name

    @property
    def op(self):
        return self._values.op

    @property
    def device(self) -> str:
        return self._values.device

    @property
    def shape(self) -> TensorShape:
        if self._dense_shape is not None:
            known = constant_value(self._dense_shape)
            if known is not None:
                return TensorShape([int(d) for d in np.asarray(known).ravel()])
        return TensorShape([None]).concatenate(self._values.shape[1:]) if self._values.shape.ndims else unknown_shape()

    def get_shape(self) -> TensorShape:
        return self.shape

    def _fetch_components(self) -> tuple:
        parts = (self._values, self._indices)
        return parts if self._dense_shape is None else parts + (self._dense_shape,)

    def _value_from_components(self, values) -> IndexedSlicesValue:
        return IndexedSlicesValue(values[0], values[1], values[2] if len(values) > 2 else None)

    def __neg__(self) -> IndexedSlices:
        negative = apply_op("Neg", [self._values], name="Neg").outputs[0]  # tf.negative's op
        return IndexedSlices(negative, self._indices, self._dense_shape)

    def __repr__(self) -> str:
        shape = f", dense_shape={self._dense_shape!r}" if self._dense_shape is not None else ""
        return f"IndexedSlices(indices={self._indices!r}, values={self._values!r}{shape})"


def _sparse_tensor_to_tensor(value, dtype=None, name=None, as_ref=False):
    raise TypeError(f"A SparseTensor cannot be used where a dense Tensor is expected ({value!r}); convert it "
                    f"with tf.sparse.to_dense.")


@tf_export("sparse_placeholder", "sparse.placeholder")
def sparse_placeholder(dtype, shape=None, name=None) -> SparseTensor:
    """A ``SparseTensor`` of placeholders, fed with a ``SparseTensorValue`` or a tuple.

    A (partly) known ``shape`` becomes the default of the ``dense_shape``
    placeholder (unknown dims as -1), as in TF1.
    """
    def sub(n):
        return None if name is None else f"{name}/{n}"

    if shape is None:
        rank = None
        dense_shape = placeholder(dtypes.int64, [None], name=sub("shape"))
        static = None
    else:
        static = TensorShape(shape)
        rank = static.ndims
        if rank is None:
            dense_shape = placeholder(dtypes.int64, [None], name=sub("shape"))
        else:
            default = [d if d is not None else -1 for d in static.as_list()]
            dense_shape = placeholder_with_default(constant(default, dtypes.int64, name=sub("shape_default")),
                                                   [rank], name=sub("shape"))
    values = placeholder(dtype, [None], name=sub("values"))
    indices = placeholder(dtypes.int64, [None, rank], name=sub("indices"))
    st = SparseTensor(indices, values, dense_shape)
    st._static_shape = static
    return st


@tf_export("convert_to_tensor_or_sparse_tensor")
def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """``value`` as a SparseTensor (from a SparseTensorValue) or else as a Tensor."""
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype is not None and dtypes.as_dtype(dtype) is not value.dtype:
            raise ValueError(f"Sparse dtype: requested = {dtypes.as_dtype(dtype).name}, actual = {value.dtype.name}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


@tf_export("convert_to_tensor_or_indexed_slices")
def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """``value`` as it is if an IndexedSlices, else as a Tensor."""
    if isinstance(value, IndexedSlices):
        if dtype is not None and dtypes.as_dtype(dtype) is not value.dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for IndexedSlices "
                             f"with dtype {value.dtype.name}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


register_tensor_conversion_function(SparseTensor, _sparse_tensor_to_tensor)
# IndexedSlices become dense tensors through tf.math.unsorted_segment_sum: dflow/ops/math/segment_ops.py
# registers that conversion.
