"""Slot variables: the per-variable state of an optimizer (momentum, Adam's m and v).

A slot of variable ``w`` is created by ``tf.get_variable`` in the variable
scope ``w/<OptimizerName>`` (uniquified: Adam's second slot is
``w/Adam_1``), as TF1 names them; it is not trainable, lives in
GLOBAL_VARIABLES (so ``tf.global_variables_initializer()`` created after
``minimize`` initializes it), is colocated with ``w`` and created outside
any ``tf.control_dependencies`` block.
"""

from __future__ import annotations

import contextlib

from dflow.framework.graph import colocate_with, control_dependencies
from dflow.ops.array import creation_ops, shape_ops
from dflow.ops.state.variable_scope import get_variable, variable_scope


def _slot_variable(primary, initializer, name: str, colocate_with_primary: bool, **kwargs):
    with control_dependencies(None), variable_scope(None, default_name=f"{primary.op.name}/{name}"):
        with colocate_with(primary.op) if colocate_with_primary else contextlib.nullcontext():
            return get_variable("", initializer=initializer, trainable=False, **kwargs)


def create_slot(primary, val, name: str, colocate_with_primary: bool = True):
    """A slot of ``primary`` (a Variable) initialized to the tensor ``val``."""
    return _slot_variable(primary, val, name, colocate_with_primary,
                          validate_shape=val.shape.is_fully_defined())


def create_slot_with_initializer(primary, initializer, shape, dtype, name: str, colocate_with_primary: bool = True):
    """A slot of ``primary`` initialized by ``initializer(shape, dtype=...)``."""
    return _slot_variable(primary, initializer, name, colocate_with_primary, shape=shape, dtype=dtype,
                          validate_shape=shape.is_fully_defined())


def create_zeros_slot(primary, name: str, dtype=None, colocate_with_primary: bool = True):
    """A slot of ``primary`` filled with zeros, of its shape and (by default) dtype."""
    dtype = dtype or primary.dtype.base_dtype
    shape = primary.get_shape()
    if shape.is_fully_defined():
        return create_slot_with_initializer(primary, zeros_initializer, shape, dtype, name, colocate_with_primary)
    with control_dependencies(None):
        val = creation_ops.zeros(shape_ops.shape(primary.initialized_value()), dtype=dtype)
    return create_slot(primary, val, name, colocate_with_primary)


def zeros_initializer(shape, dtype=None, partition_info=None):
    return creation_ops.zeros(shape, dtype=dtype)


def ones_initializer(shape, dtype=None, partition_info=None):
    return creation_ops.ones(shape, dtype=dtype)


def constant_initializer(value):
    """An initializer filling the slot with ``value`` (a ``Const`` op, as TF1's)."""
    from dflow.framework.constant_op import constant

    def init(shape, dtype=None, partition_info=None):
        return constant(value, dtype=dtype, shape=shape)

    return init
