"""``tf.nest``: TF's public nesting functions, on dflow's ``nest``.

They differ from the internal helpers only where TF's public API does:
``assert_same_structure`` and ``map_structure`` check sequence types by
default (a list is not a tuple), and ``expand_composites=True`` treats a
``SparseTensor`` or ``IndexedSlices`` as the structure of its component
tensors instead of a leaf::

    tf.nest.flatten({"b": [1, (2, 3)], "a": 4})       # [4, 1, 2, 3]
    tf.nest.map_structure(lambda x: x * 2, [1, (2,)])  # [2, (4,)]
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import nest
from dflow.framework.composite import CompositeTensor


def _expanded(structure):
    """``structure`` with every composite replaced by a ``_Components`` tuple of its component tensors."""
    if isinstance(structure, CompositeTensor):
        return _Components(type(structure), structure._fetch_components())
    if not nest.is_nested(structure):
        return structure
    return nest._rebuild(structure, [_expanded(c) for c in nest.children(structure)])


class _Components(tuple):
    """A composite's components standing in for it while nesting (rebuilt with ``cls(*components)``)."""

    def __new__(cls, composite_type, components):
        self = super().__new__(cls, components)
        self.composite_type = composite_type
        return self


def _collapsed(template, value):
    """``value`` (nested like the expanded ``template``) with each composite rebuilt from its components."""
    if isinstance(template, _Components):
        parts = [_collapsed(t, v) for t, v in zip(template, value)]
        rebuild = getattr(template.composite_type, "_from_components", None)  # a private constructor (RaggedTensor)
        return rebuild(parts) if rebuild is not None else template.composite_type(*parts)
    if not nest.is_nested(template):
        return value
    return nest._rebuild(template, [_collapsed(t, v) for t, v in zip(nest.children(template), nest.children(value))])


@tf_export("nest.is_nested")
def is_nested(seq) -> bool:
    """True for lists, tuples (namedtuples included) and dicts: what ``flatten`` descends into."""
    return nest.is_nested(seq)


@tf_export("nest.flatten")
def flatten(structure, expand_composites=False) -> list:
    """The leaves of ``structure``, depth first, dicts by sorted key; ``None`` and non-sequences are leaves."""
    return nest.flatten(_expanded(structure) if expand_composites else structure)


@tf_export("nest.assert_same_structure")
def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False) -> None:
    """``ValueError`` unless the two nest alike; ``TypeError`` when sequence types differ and ``check_types``."""
    if expand_composites:
        nest1, nest2 = _expanded(nest1), _expanded(nest2)
    nest.assert_same_structure(nest1, nest2, check_types=check_types)


@tf_export("nest.pack_sequence_as")
def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``flat_sequence`` rebuilt in the shape of ``structure``."""
    if not nest.is_nested(flat_sequence) or isinstance(flat_sequence, dict):
        raise TypeError(f"Attempted to pack value:\n  {flat_sequence!r}\ninto a structure, but found incompatible "
                        f"type `{type(flat_sequence)}` instead.")
    if expand_composites:
        template = _expanded(structure)
        return _collapsed(template, nest.pack_sequence_as(template, flat_sequence))
    return nest.pack_sequence_as(structure, flat_sequence)


@tf_export("nest.map_structure")
def map_structure(func, *structure, **kwargs):
    """``func`` applied to the leaves of structures that nest alike; the result nests like the first.

    Keyword arguments: ``check_types`` (default True) and ``expand_composites`` (default False).
    """
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(f"Only valid keyword arguments are `check_types` and `expand_composites`, not: "
                         f"`{'`, `'.join(kwargs)}`")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types, expand_composites=expand_composites)
    flats = [flatten(s, expand_composites) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)],
                            expand_composites=expand_composites)
