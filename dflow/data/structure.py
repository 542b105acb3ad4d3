"""The structure of a dataset element: nested tuples and dicts of components.

A ``tf.data`` element is a nesting of tuples (namedtuples included) and
dicts whose leaves are tensors. As in TF1's ``tf.data``, a *list* is not a
structure: ``from_tensor_slices([[1, 2], [3, 4]])`` is one int32 component
of shape ``[2]``, not two. A function passed to ``map`` that returns a list
returns a tuple.

At graph-construction time each leaf is described by a ``ComponentSpec``
(dtype and static shape); at run time the pipeline moves *flat* tuples of
numpy values, one per leaf in ``nest.flatten`` order (dicts by sorted key),
and only ``get_next`` packs them back into the user's structure.

A ``SparseTensor`` component is one leaf of the structure (its spec a
``SparseTensorSpec``) but three flat components, as TF1 carries it:
``indices`` (int64 ``[N, rank]``), ``values`` (``[N]``) and ``dense_shape``
(int64 ``[rank]``); ``flatten`` and ``pack`` expand and rebuild it.

>>> import dflow as tf
>>> spec = spec_of(normalize_element((tf.constant(1), {"b": tf.constant([1.0]), "a": tf.constant("x")})))
>>> [str(s) for s in flatten(spec)]
['int32 ()', 'string ()', 'float32 (1,)']
"""

from __future__ import annotations

from collections.abc import Mapping

from dflow.framework import dtypes, nest
from dflow.framework.composite import SparseTensor, SparseTensorValue
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.framework.tensor_shape import TensorShape, as_shape
from dflow.framework.type_spec import SparseTensorSpec


class ComponentSpec:
    """The dtype and static shape of one component of a dataset element."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape=None):
        self.dtype = dtypes.as_dtype(dtype)
        self.shape = as_shape(shape) if shape is not None else TensorShape(None)

    def __eq__(self, other):
        return isinstance(other, ComponentSpec) and self.dtype is other.dtype and self.shape == other.shape

    def __hash__(self):
        return hash((self.dtype.name, self.shape))

    def __str__(self):
        return f"{self.dtype.name} {self.shape}"

    def __repr__(self):
        return f"ComponentSpec(shape={self.shape}, dtype=tf.{self.dtype.name})"


def is_structure(x) -> bool:
    """Tuples and dicts nest; everything else (lists and sparse values included) is a component."""
    return isinstance(x, (tuple, Mapping)) and not isinstance(x, SparseTensorValue)


def is_sparse(x) -> bool:
    """A sparse leaf: a SparseTensor or its spec."""
    return isinstance(x, (SparseTensor, SparseTensorSpec))


def sparse_components(spec: SparseTensorSpec) -> list:
    """The three flat ``ComponentSpec`` of a sparse component: indices, values, dense_shape."""
    rank = spec.shape.ndims
    return [ComponentSpec(dtypes.int64, [None, rank]), ComponentSpec(spec.dtype, [None]),
            ComponentSpec(dtypes.int64, [rank])]


def has_sparse(spec) -> bool:
    return any(is_sparse(x) for x in _leaves(spec))


def sparse_slots(spec) -> list:
    """The flat index of each sparse component's ``indices`` (its ``values`` and ``dense_shape`` follow)."""
    out, i = [], 0
    for leaf in _leaves(spec):
        if is_sparse(leaf):
            out.append(i)
            i += 3
        else:
            i += 1
    return out


def with_shape(spec, shape):
    """``spec`` (dense or sparse) with another shape."""
    if isinstance(spec, SparseTensorSpec):
        return SparseTensorSpec(shape, spec.dtype)
    return ComponentSpec(spec.dtype, shape)


def _rebuild(template, children: list):
    if isinstance(template, Mapping):
        return type(template)(zip(template.keys(), children))
    if hasattr(type(template), "_fields"):
        return type(template)(*children)
    return tuple(children)


def map_components(fn, structure):
    """``fn`` applied to each component of ``structure`` (tuples and dicts nest)."""
    if not is_structure(structure):
        return fn(structure)
    items = structure.values() if isinstance(structure, Mapping) else structure
    return _rebuild(structure, [map_components(fn, c) for c in items])


def normalize_element(value, what: str = "element"):
    """``value`` with every component converted to a Tensor."""
    if value is None:
        raise TypeError(f"The {what} of a dataset cannot be None.")

    def convert(v):
        if isinstance(v, (Tensor, SparseTensor)):
            return v
        if isinstance(v, SparseTensorValue):
            return SparseTensor.from_value(v)
        if v is None:
            raise TypeError(f"The {what} of a dataset contains None, which is not a tensor.")
        return convert_to_tensor(v, name="component")

    return map_components(convert, value)


def _leaves(structure) -> list:
    return nest.flatten(structure) if is_structure(structure) else [structure]


flatten_specs = _leaves  # the leaves of a spec structure, a SparseTensorSpec as one


def flatten(structure) -> list:
    """The flat components of ``structure`` in order (dicts by sorted key; a sparse leaf gives three)."""
    out = []
    for leaf in _leaves(structure):
        if isinstance(leaf, SparseTensorSpec):
            out.extend(sparse_components(leaf))
        elif isinstance(leaf, SparseTensor):
            out.extend(leaf._fetch_components())
        else:
            out.append(leaf)
    return out


def pack(structure, flat: list):
    """``flat`` rebuilt in the shape of ``structure`` (three flat components make a sparse leaf:
    a SparseTensor of tensors, else a SparseTensorValue)."""
    expected = len(flatten(structure))
    if len(flat) != expected:
        raise ValueError(f"Expected {expected} components, got {len(flat)}")
    leaves, it = [], iter(flat)
    for leaf in _leaves(structure):
        if not is_sparse(leaf):
            leaves.append(next(it))
            continue
        parts = (next(it), next(it), next(it))
        if isinstance(parts[0], Tensor):
            sp = SparseTensor(*parts)
            sp._static_shape = leaf.shape
            leaves.append(sp)
        else:
            leaves.append(SparseTensorValue(*parts))
    return nest.pack_sequence_as(structure, leaves) if is_structure(structure) else leaves[0]


def spec_of(structure):
    """The ``ComponentSpec`` (``SparseTensorSpec`` for sparse leaves) structure of a structure of tensors."""
    return map_components(lambda t: SparseTensorSpec(t.shape, t.dtype) if isinstance(t, SparseTensor)
                          else ComponentSpec(t.dtype, t.shape), structure)


def types_of(spec):
    return map_components(lambda s: s.dtype, spec)


def shapes_of(spec):
    return map_components(lambda s: s.shape, spec)


def classes_of(spec):
    return map_components(lambda s: SparseTensor if isinstance(s, SparseTensorSpec) else Tensor, spec)


def specs_from(output_types, output_shapes=None, output_classes=None):
    """The spec structure for ``output_types`` and (optionally) ``output_shapes``.

    The types give the structure; each leaf of it takes the shape at the same
    place of ``output_shapes``, whatever that shape's own spelling (``[None]``,
    ``(2, 3)``, a ``TensorShape``), as TF1's ``map_structure_up_to``.
    """
    if output_shapes is None:
        output_shapes = map_components(lambda t: None, output_types)
    sparse = iter([c is SparseTensor or isinstance(c, SparseTensorSpec) for c in _leaves(output_classes)]
                  if output_classes is not None else [])

    def walk(types, shapes):
        if not is_structure(types):
            spec = ComponentSpec(dtypes.as_dtype(types), None if shapes is None else as_shape(shapes))
            return SparseTensorSpec(spec.shape, spec.dtype) if next(sparse, False) else spec
        if isinstance(types, Mapping):
            if not isinstance(shapes, Mapping) or set(shapes) != set(types):
                raise ValueError(f"output_shapes {output_shapes!r} do not have the structure of output_types "
                                 f"{output_types!r}")
            return _rebuild(types, [walk(types[k], shapes[k]) for k in types])
        if not isinstance(shapes, (tuple, list)) or len(shapes) != len(types):
            raise ValueError(f"output_shapes {output_shapes!r} do not have the structure of output_types "
                             f"{output_types!r}")
        return _rebuild(types, [walk(t, s) for t, s in zip(types, shapes)])

    return walk(output_types, output_shapes)


def same_structure(a, b) -> bool:
    try:
        nest.assert_same_structure(a, b)
    except (ValueError, TypeError):
        return False
    return True


def most_specific_compatible(a, b):
    """The spec both ``a`` and ``b`` satisfy (same structure and dtypes assumed)."""
    merged = [with_shape(x, x.shape.most_specific_compatible_shape(y.shape)) for x, y in zip(_leaves(a), _leaves(b))]
    return nest.pack_sequence_as(a, merged) if is_structure(a) else merged[0]



def describe_types(spec) -> str:
    return _describe(types_of(spec))


def describe_shapes(spec) -> str:
    return _describe(shapes_of(spec))


def _describe(x) -> str:
    if isinstance(x, dtypes.DType):
        return f"tf.{x.name}"
    if isinstance(x, TensorShape):
        return repr(x)
    if isinstance(x, Mapping):
        return "{" + ", ".join(f"{k!r}: {_describe(v)}" for k, v in x.items()) + "}"
    inner = ", ".join(_describe(v) for v in x)
    return f"({inner}{',' if len(x) == 1 else ''})"


class HasElementSpec:
    """``element_spec`` and the TF1 ``output_types/shapes/classes`` views of ``self._spec``."""

    @property
    def element_spec(self):
        """The ``ComponentSpec`` (dtype and shape) structure of an element."""
        return self._spec

    @property
    def output_types(self):
        return types_of(self._spec)

    @property
    def output_shapes(self):
        return shapes_of(self._spec)

    @property
    def output_classes(self):
        return classes_of(self._spec)
