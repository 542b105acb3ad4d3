"""``tf.data.experimental.Optional``, its ``tf.OptionalSpec``, and ``get_next_as_optional``.

An optional is a scalar ``variant`` tensor that holds either a value (a
structure of tensors) or nothing. As in TF 2.15:

* ``Optional.from_value(value)`` builds an ``OptionalFromValue`` op (named
  ``optional``), ``Optional.empty(element_spec)`` an ``OptionalNone`` op;
* ``has_value()`` is an ``OptionalHasValue`` op (a bool scalar) and
  ``get_value()`` an ``OptionalGetValue`` op whose outputs have the element
  spec's dtypes and static shapes; getting the value of an empty optional
  is an ``InvalidArgumentError`` at run time;
* ``tf.data.experimental.get_next_as_optional(iterator)`` is an
  ``IteratorGetNextAsOptional`` op: the next element, or an empty optional
  at the end of the data (where ``get_next`` raises ``OutOfRangeError``).

``element_spec`` is a structure of ``tf.TensorSpec`` (``SparseTensorSpec`` for
a sparse component); ``tf.OptionalSpec`` is the optional's own ``TypeSpec``.
The ops have no gradient (dflow does not propagate gradients through
``variant`` tensors).

>>> import dflow as tf
>>> opt = tf.data.experimental.Optional.from_value(tf.constant([1.0, 2.0]))
>>> opt.element_spec
TensorSpec(shape=(2,), dtype=tf.float32, name=None)
>>> has, value = tf.Session().run([opt.has_value(), opt.get_value()])
>>> bool(has), value
(True, array([1., 2.], dtype=float32))
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.data import structure
from dflow.framework import dtypes, errors, nest
from dflow.framework.composite import SparseTensor
from dflow.framework.graph import Tensor, colocate_with, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.framework.type_spec import SparseTensorSpec, TensorSpec, TypeSpec
from dflow.ops.control_flow.if_while_ops import variant

_NO_VALUE = "The given optional does not have a value."


class OptionalVariant:
    """The run-time value of an optional ``variant`` tensor: the flat component values, or None."""

    __slots__ = ("values",)

    def __init__(self, values: tuple | None):
        self.values = values

    def __repr__(self):
        return "Optional(empty)" if self.values is None else f"Optional({self.values!r})"


# -- ops -----------------------------------------------------------------------------------------


def _variant_infer(op):
    return [(variant, TensorShape([]))]


def _typed_infer(op):
    return list(zip(op._attrs["output_types"], op._attrs["output_shapes"]))


register("OptionalFromValue", infer=_variant_infer, kernel=lambda *values: OptionalVariant(tuple(values)),
         foldable=False)
register("OptionalNone", infer=_variant_infer, kernel=lambda: OptionalVariant(None), foldable=False)
register("OptionalHasValue", infer=lambda op: [(dtypes.bool, TensorShape([]))],
         kernel=lambda opt: _bool(opt.values is not None), foldable=False)


def _bool(x: bool):
    import numpy as np

    return np.bool_(x)


def _get_value(opt, output_types=(), output_shapes=()):
    if opt.values is None:
        raise errors.InvalidArgumentError(None, None, _NO_VALUE)
    return opt.values[0] if len(opt.values) == 1 else opt.values


register("OptionalGetValue", infer=_typed_infer, kernel=_get_value, foldable=False)


def _make_get_next_as_optional(op, resources):
    from dflow.data.iterator_ops import IteratorResource  # noqa: F401 - the handle's value

    def kernel(ctx, res):
        try:
            return OptionalVariant(tuple(res.get_next(ctx)))
        except errors.OutOfRangeError:
            return OptionalVariant(None)

    return kernel


register("IteratorGetNextAsOptional", infer=_variant_infer, make_kernel=_make_get_next_as_optional, stateful=True,
         gpu=False, uses_context=True)

for _type in ("OptionalFromValue", "OptionalNone", "OptionalHasValue", "OptionalGetValue",
              "IteratorGetNextAsOptional"):
    not_differentiable(_type)


# -- specs ---------------------------------------------------------------------------------------


def _tensor_specs(spec):
    """A dataset's ``ComponentSpec`` structure as TF's ``TensorSpec`` structure."""
    return structure.map_components(
        lambda s: s if isinstance(s, (SparseTensorSpec, TensorSpec)) else TensorSpec(s.shape, s.dtype), spec)


def _spec_of_value(value):
    return structure.map_components(
        lambda t: SparseTensorSpec(t.shape, t.dtype) if isinstance(t, SparseTensor) else TensorSpec(t.shape, t.dtype),
        value)


def _leaves(spec) -> list:
    return nest.flatten(spec) if structure.is_structure(spec) else [spec]


def _compatible(a, b) -> bool:
    """Whether element specs ``a`` and ``b`` have the same structure and compatible leaves."""
    if not structure.same_structure(a, b):
        return False
    return all(isinstance(y, TypeSpec) and x.is_compatible_with(y) for x, y in zip(_leaves(a), _leaves(b)))


@tf_export("OptionalSpec", "data.experimental.OptionalStructure")
class OptionalSpec(TypeSpec):
    """The ``TypeSpec`` of a ``tf.data.experimental.Optional``: the spec of the value it may hold."""

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @property
    def value_type(self):
        return Optional

    def _serialize(self) -> tuple:
        return (self._element_spec,)

    def __hash__(self):
        return hash(("OptionalSpec", repr(self._element_spec)))

    def is_compatible_with(self, spec_or_value) -> bool:
        """Whether ``spec_or_value`` (an OptionalSpec or an Optional) has a compatible element spec."""
        other = spec_or_value._type_spec if isinstance(spec_or_value, Optional) else spec_or_value
        return isinstance(other, OptionalSpec) and _compatible(self._element_spec, other._element_spec)

    def most_specific_compatible_type(self, other) -> OptionalSpec:
        """The OptionalSpec whose element spec both this and ``other``'s fit (shapes relaxed where they differ)."""
        if not isinstance(other, OptionalSpec) or not structure.same_structure(self._element_spec,
                                                                             other._element_spec):
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        merged = [x.most_specific_compatible_type(y) for x, y in zip(_leaves(self._element_spec),
                                                                    _leaves(other._element_spec))]
        return OptionalSpec(nest.pack_sequence_as(self._element_spec, merged)
                            if structure.is_structure(self._element_spec) else merged[0])

    @staticmethod
    def from_value(value) -> OptionalSpec:
        """The spec of the Optional ``value``."""
        return OptionalSpec(value.element_spec)

    def __repr__(self):
        return f"OptionalSpec({self._element_spec!r},)"


# -- Optional ------------------------------------------------------------------------------------------


def _flat_attrs(spec) -> dict:
    flat = structure.flatten(spec)
    return {"output_types": [s.dtype for s in flat], "output_shapes": [s.shape for s in flat]}


@tf_export("data.experimental.Optional")
class Optional:
    """A value that may be absent: a scalar ``variant`` tensor and the spec of the value it may hold."""

    def __init__(self, variant_tensor: Tensor, element_spec):
        self._variant_tensor = variant_tensor
        self._element_spec = element_spec

    @staticmethod
    def from_value(value) -> Optional:
        """An optional that holds ``value`` (a structure of tensors, or values convertible to them)."""
        with name_scope("optional") as scope:
            with name_scope("value"):
                value = structure.normalize_element(value, "value")
            spec = _spec_of_value(value)
            op = apply_op("OptionalFromValue", structure.flatten(value), name=scope)
        return Optional(op.outputs[0], spec)

    @staticmethod
    def empty(element_spec) -> Optional:
        """An optional with no value, for values of ``element_spec`` (a structure of TensorSpecs)."""
        return Optional(apply_op("OptionalNone", [], name="OptionalNone").outputs[0], element_spec)

    @property
    def element_spec(self):
        """The structure of ``TensorSpec`` of the value this optional may hold."""
        return self._element_spec

    @property
    def _type_spec(self) -> OptionalSpec:
        return OptionalSpec(self._element_spec)

    def has_value(self, name=None) -> Tensor:
        """A bool scalar: whether this optional holds a value."""
        with colocate_with(self._variant_tensor.op):
            return apply_op("OptionalHasValue", [self._variant_tensor], name=name or "OptionalHasValue").outputs[0]

    def get_value(self, name=None):
        """The value, in the element spec's structure; ``InvalidArgumentError`` when run on an empty optional."""
        with name_scope(name, "OptionalGetValue", [self._variant_tensor]) as scope:
            with colocate_with(self._variant_tensor.op):
                op = apply_op("OptionalGetValue", [self._variant_tensor], _flat_attrs(self._element_spec), name=scope)
        return structure.pack(self._element_spec, list(op.outputs))

    def __repr__(self):
        return f"<dflow.data.experimental.Optional {self._variant_tensor.name} of {self._element_spec!r}>"


@tf_export("data.experimental.get_next_as_optional")
def get_next_as_optional(iterator) -> Optional:
    """An Optional of ``iterator``'s next element, empty at the end of its data (TF1's name for
    ``iterator.get_next_as_optional()``)."""
    spec = iterator.element_spec
    op = apply_op("IteratorGetNextAsOptional", [iterator._iterator_resource], _flat_attrs(spec),
                  name="IteratorGetNextAsOptional")
    return Optional(op.outputs[0], _tensor_specs(spec))
