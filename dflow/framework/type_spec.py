"""Type specifications: ``tf.TypeSpec``, ``TensorSpec``, ``SparseTensorSpec``, ``IndexedSlicesSpec``,
``TensorArraySpec`` and ``type_spec_from_value``.

A spec describes a value without holding one: a dtype and a (partial)
static shape. ``spec.is_compatible_with(x)`` says whether a tensor or spec
fits it::

    spec = tf.TensorSpec([None, 3], tf.float32)
    spec.is_compatible_with(tf.placeholder(tf.float32, [2, 3]))   # True
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import IndexedSlices, SparseTensor
from dflow.framework.graph import Tensor
from dflow.framework.tensor_shape import TensorShape, as_shape


def _shape_tuple_str(shape: TensorShape) -> str:
    if shape.ndims is None:
        return "<unknown>"
    dims = shape.as_list()
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


@tf_export("TypeSpec", "data.experimental.Structure")
class TypeSpec:
    """Base of the specs: compares by ``_serialize()`` (the fields that define the spec)."""

    value_type = None

    def _serialize(self) -> tuple:
        raise NotImplementedError(f"{type(self).__name__} must define _serialize")

    def __eq__(self, other):
        return type(other) is type(self) and self._serialize() == other._serialize()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self).__name__,) + tuple(str(x) for x in self._serialize()))

    def is_compatible_with(self, spec_or_value) -> bool:
        """Whether ``spec_or_value`` (a spec, or a value turned into one) fits this spec."""
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) else type_spec_from_value(spec_or_value)
        if type(other) is not type(self):
            return False
        for mine, theirs in zip(self._serialize(), other._serialize()):
            if isinstance(mine, TensorShape):
                if not mine.is_compatible_with(theirs):
                    return False
            elif mine != theirs:
                return False
        return True

    def most_specific_compatible_type(self, other) -> TypeSpec:
        """The most specific spec both this and ``other`` fit (shapes relaxed where they differ)."""
        if type(other) is not type(self):
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        fields = []
        for mine, theirs in zip(self._serialize(), other._serialize()):
            if isinstance(mine, TensorShape):
                fields.append(mine.most_specific_compatible_shape(theirs))
            elif mine == theirs:
                fields.append(mine)
            elif mine is None or theirs is None:
                fields.append(None)
            else:
                raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return type(self)(*fields)


@tf_export("TensorSpec")
class TensorSpec(TypeSpec):
    """The dtype, static shape and (optional) name of a tensor."""

    value_type = Tensor
    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)

    def _serialize(self) -> tuple:
        return (self._shape, self._dtype, self._name)

    def is_compatible_with(self, spec_or_tensor) -> bool:
        """Same dtype and compatible shape (names are ignored)."""
        other = spec_or_tensor
        if not isinstance(other, TypeSpec):
            other = type_spec_from_value(other)
        return (isinstance(other, TensorSpec) and self._dtype is other.dtype
                and self._shape.is_compatible_with(other.shape))

    @classmethod
    def from_spec(cls, spec, name=None) -> TensorSpec:
        return cls(spec.shape, spec.dtype, name or getattr(spec, "name", None))

    @classmethod
    def from_tensor(cls, tensor, name=None) -> TensorSpec:
        """The spec of ``tensor``, named after its op unless ``name`` is given."""
        if not isinstance(tensor, Tensor):
            raise ValueError(f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")
        return cls(tensor.shape, tensor.dtype, name or tensor.op.name)

    def __repr__(self):
        name = "None" if self._name is None else repr(self._name)
        return f"TensorSpec(shape={_shape_tuple_str(self._shape)}, dtype=tf.{self._dtype.name}, name={name})"


@tf_export("SparseTensorSpec", "sparse.SparseTensorSpec")
class SparseTensorSpec(TypeSpec):
    """The dense shape and dtype of a ``SparseTensor``."""

    value_type = SparseTensor

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    def _serialize(self) -> tuple:
        return (self._shape, self._dtype)

    @classmethod
    def from_value(cls, value) -> SparseTensorSpec:
        return cls(value.shape, value.dtype)

    def __repr__(self):
        return f"SparseTensorSpec({self._shape!r}, tf.{self._dtype.name})"


@tf_export("IndexedSlicesSpec")
class IndexedSlicesSpec(TypeSpec):
    """The dense shape, dtypes and indices shape of an ``IndexedSlices``."""

    value_type = IndexedSlices

    def __init__(self, shape=None, dtype=dtypes.float32, indices_dtype=dtypes.int64, dense_shape_dtype=None,
                 indices_shape=None):
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._indices_dtype = dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else dtypes.as_dtype(dense_shape_dtype)
        self._indices_shape = as_shape(indices_shape).with_rank(1) if indices_shape is not None else \
            TensorShape([None])

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    def _serialize(self) -> tuple:
        return (self._shape, self._dtype, self._indices_dtype, self._dense_shape_dtype, self._indices_shape)

    def __repr__(self):
        dsd = "None" if self._dense_shape_dtype is None else f"tf.{self._dense_shape_dtype.name}"
        return (f"IndexedSlicesSpec({self._shape!r}, tf.{self._dtype.name}, tf.{self._indices_dtype.name}, {dsd}, "
                f"{self._indices_shape!r})")


@tf_export("type_spec_from_value")
def type_spec_from_value(value) -> TypeSpec:
    """The spec of ``value``: a tensor, a composite, or anything ``tf.convert_to_tensor`` takes."""
    if isinstance(value, TypeSpec):
        return value
    if hasattr(value, "_type_spec"):  # an Optional, a composite that knows its spec
        return value._type_spec
    if isinstance(value, (SparseTensor, IndexedSlices)):
        from dflow.framework.op_registry import constant_value

        dense = None if value.dense_shape is None else constant_value(value.dense_shape)
        shape = TensorShape(None if dense is None else [int(d) for d in dense])
        if isinstance(value, SparseTensor):
            return SparseTensorSpec(shape, value.dtype)
        return IndexedSlicesSpec(shape, value.dtype, value.indices.dtype,
                                 None if value.dense_shape is None else value.dense_shape.dtype, value.indices.shape)
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    try:
        import numpy as np

        from dflow.framework.dtypes import dtype_of_value

        arr = np.asarray(value)
        return TensorSpec(arr.shape, dtype_of_value(value))
    except (TypeError, ValueError):
        raise TypeError(f"Could not build a TypeSpec for {value!r} of unsupported type {type(value)}.") from None
