"""Looking into checkpoints: readers, ``list_variables``, ``load_variable``, ``init_from_checkpoint``.

``ckpt_dir_or_file`` arguments take a checkpoint prefix or a directory (its
latest checkpoint).

>>> import os, tempfile
>>> import dflow as tf
>>> with tf.Graph().as_default():
...     v = tf.Variable([1.0, 2.0], name="v")
...     saver = tf.train.Saver()
>>> prefix = os.path.join(tempfile.mkdtemp(), "model")
>>> with tf.Session(graph=v.graph) as sess:
...     sess.run(v.initializer)
...     _ = saver.save(sess, prefix)
>>> tf.train.list_variables(prefix)
[('v', [2])]
"""

from __future__ import annotations

import os

import numpy as np

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.files import file_io
from dflow.framework.graph import GraphKeys, colocate_with, control_dependencies, get_default_graph, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.train.checkpoints import checkpoint_management
from dflow.train.checkpoints.checkpoint_format import CheckpointReader


@tf_export("train.NewCheckpointReader")
def NewCheckpointReader(filepattern) -> CheckpointReader:  # noqa: N802 - TF1 name
    """A reader of the checkpoint with prefix ``filepattern`` (``NotFoundError`` if there is none)."""
    return CheckpointReader(filepattern)


def _checkpoint_prefix(ckpt_dir_or_file) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if file_io.isdir(path):
        latest = checkpoint_management.latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return latest
    return path


@tf_export("train.load_checkpoint")
def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """A ``CheckpointReader`` for a checkpoint prefix, or a directory's latest checkpoint."""
    return CheckpointReader(_checkpoint_prefix(ckpt_dir_or_file))


@tf_export("train.list_variables")
def list_variables(ckpt_dir_or_file) -> list:
    """``[(name, shape), ...]`` of the tensors in a checkpoint, sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


@tf_export("train.load_variable")
def load_variable(ckpt_dir_or_file, name: str) -> np.ndarray:
    """The value of tensor ``name`` (a trailing ``:0`` is ignored) in a checkpoint."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


# -- init_from_checkpoint: an initializer that reads the checkpoint when it runs -------------


def _restore_kernel(prefix, tensor_name, dtype, shape):
    value = CheckpointReader(prefix).get_tensor(tensor_name)
    if value.dtype != np.dtype(dtype.as_numpy_dtype):
        raise errors.InvalidArgumentError(None, None, f"tensor_name = {tensor_name}; expected dtype {dtype.name} does "
                                                      f"not equal original dtype {value.dtype} (checkpoint {prefix})")
    return value


register("RestoreFromCheckpoint", infer=lambda op: [(op._attrs["dtype"], op._attrs["shape"])],
         kernel=_restore_kernel, stateful=True, gpu=False)
not_differentiable("RestoreFromCheckpoint")


def replace_initializer(var, make_value) -> None:
    """Makes ``var``'s initializer assign ``make_value()`` (built beside ``var``, outside control dependencies)."""
    from dflow.ops.state.variables import assign

    with control_dependencies(None), colocate_with(var.op), name_scope(f"{var.op.name}/"):
        value = make_value()
        var._initializer_op = assign(var, value, validate_shape=var.shape.is_fully_defined()).op
    var._initial_value = value


def _set_initializer(var, prefix: str, tensor_name: str) -> None:
    replace_initializer(var, lambda: apply_op(
        "RestoreFromCheckpoint", [], {"prefix": prefix, "tensor_name": tensor_name, "dtype": var.dtype,
                                      "shape": var.shape}, name="checkpoint_initializer").outputs[0])


def _known_variables() -> dict:
    """The default graph's variables by name: ``get_variable``'s store, then every global variable."""
    graph = get_default_graph()
    found = {v.op.name: v for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES)
             if hasattr(v, "_initializer_op")}
    store = graph._attachments.get("variable_store")
    if store is not None:
        found.update(store.vars)
    return found


@tf_export("train.init_from_checkpoint")
def init_from_checkpoint(ckpt_dir_or_file, assignment_map) -> None:
    """Makes variables' initializers load values from a checkpoint (when they run).

    ``assignment_map`` maps checkpoint names or scopes to variables, names or
    scopes, as TF1: ``{"old/w": "new/w"}``, ``{"old/w": var}``,
    ``{"old_scope/": "new_scope/"}`` (every variable under ``new_scope``
    from the same name under ``old_scope``), ``{"/": "new_scope/"}``.
    Checks names and shapes now; the values are read when the initializers run.
    """
    prefix = _checkpoint_prefix(ckpt_dir_or_file)
    shapes = CheckpointReader(prefix).get_variable_to_shape_map()
    known = _known_variables()
    for ckpt_name, current in sorted(assignment_map.items(), key=lambda kv: kv[0]):
        var = current if hasattr(current, "_initializer_op") else known.get(current)
        if var is not None:
            if ckpt_name not in shapes:
                raise ValueError(f"Tensor {ckpt_name} is not found in {ckpt_dir_or_file} checkpoint {shapes}")
            if not var.shape.is_compatible_with(shapes[ckpt_name]):
                raise ValueError(f"Shape of variable {var.name} ({var.shape}) doesn't match with shape of tensor "
                                 f"{ckpt_name} ({shapes[ckpt_name]}) from checkpoint reader.")
            _set_initializer(var, prefix, ckpt_name)
            continue
        if not isinstance(current, str):
            raise TypeError(f"assignment_map values are variables or names, got {current!r}")
        scopes = current[:current.rindex("/")] if "/" in current else ""
        if not ckpt_name.endswith("/"):
            raise ValueError(f"Assignment map with scope only name {scopes} should map to scope only {ckpt_name}. "
                             f"Should be 'scope/': 'other_scope/'.")
        for var_name in sorted(known):
            if scopes and not var_name.startswith(scopes + "/"):
                continue
            full = var_name[len(scopes):]
            if current != "/":
                full = full[1:]
            if ckpt_name != "/":
                full = ckpt_name + full
            full = full.rstrip("/")
            if full not in shapes:
                raise ValueError(f"Tensor {full} ({var_name[len(scopes) + 1:]} in {ckpt_name}) is not found in "
                                 f"{ckpt_dir_or_file} checkpoint")
            _set_initializer(known[var_name], prefix, full)
