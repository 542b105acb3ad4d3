"""``tf.contrib.framework``'s checkpoint and value assigners, as TF 1.15 (and slim, which re-exports
them) defined them.

* ``assign_from_checkpoint(model_path, var_list)``: ``(assign_op, feed_dict)`` that sets each variable
  to its checkpoint value through a placeholder ``placeholder/<var name>``; ``var_list`` is a list of
  variables (looked up by their op names) or a dict ``{checkpoint name: variable}``;
* ``assign_from_checkpoint_fn(model_path, var_list, ignore_missing_vars=False)``: a function
  ``session -> None`` restoring ``var_list`` with a ``Saver`` (None, with a warning, when nothing is to
  be restored); ``ignore_missing_vars`` drops (and logs) the variables the checkpoint lacks;
* ``assign_from_values(var_names_to_values)`` and ``assign_from_values_fn``: the same from numpy
  values keyed by variable name.
"""

from __future__ import annotations

import logging

import numpy as np

from dflow._api import tf_export
from dflow.framework.graph import GraphKeys, get_default_graph

_logger = logging.getLogger("tensorflow")


def _var_name(var) -> str:
    return var.op.name


def _as_name_to_var(var_list) -> dict:
    if isinstance(var_list, dict):
        return dict(var_list)
    names = {}
    for var in var_list:
        name = _var_name(var)
        if name in names:
            raise ValueError(f"Variable {name} is given twice in var_list")
        names[name] = var
    return names


def _placeholder_assigns(name_to_var: dict, values: dict):
    from dflow.framework.constant_op import placeholder
    from dflow.ops.control_flow.control_flow_ops import group
    from dflow.ops.state.variables import assign

    assign_ops = []
    feed_dict = {}
    for name, var in name_to_var.items():
        value = np.asarray(values[name])
        ph = placeholder(dtype=var.dtype.base_dtype, shape=var.shape, name="placeholder/" + _var_name(var))
        assign_ops.append(assign(var, ph))
        feed_dict[ph] = value.reshape(var.shape.as_list()) if var.shape.is_fully_defined() else value
    return group(*assign_ops), feed_dict


@tf_export("contrib.framework.assign_from_checkpoint")
def assign_from_checkpoint(model_path, var_list, ignore_missing_vars=False):
    """``(assign_op, feed_dict)`` setting ``var_list`` to the values stored in the checkpoint ``model_path``."""
    from dflow.train.checkpoints.checkpoint_utils import NewCheckpointReader

    reader = NewCheckpointReader(model_path)
    name_to_var = {}
    values = {}
    for ckpt_name, var in _as_name_to_var(var_list).items():
        if not reader.has_tensor(ckpt_name):
            if ignore_missing_vars:
                _logger.warning("Variable %s missing in checkpoint %s", ckpt_name, model_path)
                continue
            raise ValueError(f"Checkpoint is missing variable [{ckpt_name}]")
        name_to_var[ckpt_name] = var
        values[ckpt_name] = reader.get_tensor(ckpt_name)
    return _placeholder_assigns(name_to_var, values)


@tf_export("contrib.framework.assign_from_checkpoint_fn")
def assign_from_checkpoint_fn(model_path, var_list, ignore_missing_vars=False, reshape_variables=False):
    """A function ``session -> None`` restoring ``var_list`` from ``model_path`` with a ``Saver``."""
    from dflow.train.checkpoints.checkpoint_utils import NewCheckpointReader
    from dflow.train.checkpoints.saver import Saver

    if not var_list:
        raise ValueError("var_list cannot be empty")
    if ignore_missing_vars:
        reader = NewCheckpointReader(model_path)
        if isinstance(var_list, dict):
            var_dict = var_list
        else:
            var_dict = {_var_name(var): var for var in var_list}
        available = {}
        for name, var in var_dict.items():
            if reader.has_tensor(name):
                available[name] = var
            else:
                _logger.warning("Variable %s missing in checkpoint %s", name, model_path)
        var_list = available
    if var_list:
        saver = Saver(var_list, reshape=reshape_variables)

        def callback(session):
            saver.restore(session, model_path)

        return callback
    _logger.warning("No Variables to restore")
    return None


@tf_export("contrib.framework.assign_from_values")
def assign_from_values(var_names_to_values):
    """``(assign_op, feed_dict)`` setting each global variable named in ``var_names_to_values`` to its value."""
    graph = get_default_graph()
    name_to_var = {}
    for var_name in var_names_to_values:
        found = graph.get_collection(GraphKeys.GLOBAL_VARIABLES, var_name)
        if not found:
            raise ValueError(f"Variable {var_name} wasn't found")
        if len(found) > 1:
            found = [v for v in found if _var_name(v) == var_name or v.name == var_name + ":0"]
            if len(found) != 1:
                raise ValueError(f"Variable {var_name} doesn't uniquely identify a variable")
        name_to_var[var_name] = found[0]
    return _placeholder_assigns(name_to_var, var_names_to_values)


@tf_export("contrib.framework.assign_from_values_fn")
def assign_from_values_fn(var_names_to_values):
    """A function ``session -> None`` running ``assign_from_values(var_names_to_values)``."""
    assign_op, feed_dict = assign_from_values(var_names_to_values)

    def callback(session):
        return session.run(assign_op, feed_dict)

    return callback
