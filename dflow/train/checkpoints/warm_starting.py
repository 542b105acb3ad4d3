"""``tf.train.warm_start``: initialize a new model's variables from another model's checkpoint.

Each chosen variable's initializer is replaced so that it loads the
checkpoint's value when it runs (``init_from_checkpoint``), under its own
name or the one ``var_name_to_prev_var_name`` gives. With a ``VocabInfo``,
an embedding (or output layer) whose rows (``axis=0``) or columns
(``axis=1``) follow a vocabulary file is remapped: a token of the new
vocabulary takes the checkpoint's row of the same token in the old
vocabulary; new tokens and the ``num_oov_buckets`` extra rows get
``backup_initializer``'s values (zeros by default).
"""

from __future__ import annotations

import collections
import logging

import numpy as np

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.files import file_io
from dflow.framework.graph import GraphKeys, get_default_graph
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.train.checkpoints import checkpoint_utils
from dflow.train.checkpoints.checkpoint_format import CheckpointReader

_log = logging.getLogger("tensorflow")

_VocabInfo = collections.namedtuple("VocabInfo", ["new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab",
                                                  "old_vocab_size", "backup_initializer", "axis"])


@tf_export("train.VocabInfo")
class VocabInfo(_VocabInfo):
    """How to remap a vocabulary-indexed variable when warm-starting (see ``warm_start``).

    ``new_vocab``/``old_vocab`` are vocabulary files (one token a line);
    ``old_vocab_size=-1`` takes the whole old file; ``axis`` is the
    vocabulary axis of the variable (0: rows, 1: columns).
    """

    def __new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size=-1,
                backup_initializer=None, axis=0):
        if axis not in (0, 1):
            raise ValueError(f"The only supported values for the axis argument are 0 and 1.  Provided axis: {axis}")
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size,
                               backup_initializer, axis)


def _read_vocab(path: str, size: int) -> list:
    with file_io.open_file(path, "rb") as f:
        tokens = [line.decode("utf-8").rstrip("\n").removesuffix("\r") for line in f]
    return tokens if size is None or size < 0 else tokens[:size]


def _remap_kernel(backup, prefix, tensor_name, new_tokens, old_index, axis):
    old = CheckpointReader(prefix).get_tensor(tensor_name)
    out = np.array(backup, copy=True)
    moved_old, moved_out = np.moveaxis(old, axis, 0), np.moveaxis(out, axis, 0)
    if moved_old.shape[1:] != moved_out.shape[1:]:
        raise errors.InvalidArgumentError(None, None, f"warm_start: {tensor_name} in the checkpoint has shape "
                                                      f"{list(old.shape)}, which cannot be remapped along axis {axis} "
                                                      f"to the variable's shape {list(out.shape)}")
    for i, token in enumerate(new_tokens):
        j = old_index.get(token)
        if j is not None and j < moved_old.shape[0]:
            moved_out[i] = moved_old[j]
    return out.astype(backup.dtype)


register("RestoreAndRemapVocab", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)],
         kernel=_remap_kernel, stateful=True, gpu=False)
not_differentiable("RestoreAndRemapVocab")


def _warm_start_with_vocab(var, prefix: str, tensor_name: str, info: VocabInfo) -> None:
    from dflow.ops.state import init_ops

    shape = var.shape.as_list()
    if None in shape:
        raise ValueError(f"warm_start: {var.name} needs a fully defined shape for vocabulary remapping")
    if shape[info.axis] != info.new_vocab_size + info.num_oov_buckets:
        raise ValueError(f"warm_start: {var.name} has {shape[info.axis]} entries along axis {info.axis}, but the "
                         f"VocabInfo has new_vocab_size + num_oov_buckets = "
                         f"{info.new_vocab_size + info.num_oov_buckets}")
    new_tokens = tuple(_read_vocab(info.new_vocab, info.new_vocab_size))
    if len(new_tokens) < info.new_vocab_size:
        raise ValueError(f"warm_start: {info.new_vocab} has {len(new_tokens)} tokens, fewer than new_vocab_size = "
                         f"{info.new_vocab_size}")
    old_tokens = _read_vocab(info.old_vocab, info.old_vocab_size)
    old_index = {}
    for j, token in enumerate(old_tokens):
        old_index.setdefault(token, j)
    backup = info.backup_initializer or init_ops.zeros_initializer()

    def remapped():
        start = backup(shape, dtype=var.dtype.base_dtype)
        return apply_op("RestoreAndRemapVocab", [start],
                        {"prefix": prefix, "tensor_name": tensor_name, "new_tokens": new_tokens,
                         "old_index": old_index, "axis": info.axis}, name="checkpoint_initializer").outputs[0]

    checkpoint_utils.replace_initializer(var, remapped)


def _grouped_variables(vars_to_warm_start) -> dict:
    graph = get_default_graph()
    if isinstance(vars_to_warm_start, str) or vars_to_warm_start is None:
        found = graph.get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=vars_to_warm_start)
    elif isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            found = [v for pattern in vars_to_warm_start
                     for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=pattern)]
        elif all(hasattr(v, "_initializer_op") for v in vars_to_warm_start):
            found = list(vars_to_warm_start)
        else:
            raise ValueError("If `vars_to_warm_start` is a list, it must be all `Variable` or all `str`.  Given "
                             f"types are {[type(v) for v in vars_to_warm_start]}")
    else:
        raise ValueError(f"`vars_to_warm_start must be a `list` or `str`.  Given type is {type(vars_to_warm_start)}")
    return {v.op.name: v for v in found}


@tf_export("train.warm_start")
def warm_start(ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
               var_name_to_prev_var_name=None) -> None:
    """Makes the initializers of the chosen variables load them from ``ckpt_to_initialize_from``.

    ``vars_to_warm_start``: a regex over the trainable variables' names, a list
    of regexes (over all global variables) or of variables; None warm-starts
    only the variables given a ``VocabInfo``. ``var_name_to_prev_var_name``
    renames (``{"new": "name/in/checkpoint"}``).
    """
    _log.info("Warm-starting from: %s", ckpt_to_initialize_from)
    grouped = _grouped_variables(vars_to_warm_start)
    vocab_infos = dict(var_name_to_vocab_info or {})
    prev_names = dict(var_name_to_prev_var_name or {})
    prefix = checkpoint_utils._checkpoint_prefix(ckpt_to_initialize_from)
    shapes = CheckpointReader(prefix).get_variable_to_shape_map()
    used_prev, used_vocab, count = set(), set(), 0
    for name, var in grouped.items():
        prev = prev_names.get(name)
        if prev is not None:
            used_prev.add(name)
        tensor_name = prev or name
        info = vocab_infos.get(name)
        if info is not None:
            used_vocab.add(name)
            if tensor_name not in shapes:
                raise ValueError(f"Tensor {tensor_name} is not found in {ckpt_to_initialize_from} checkpoint")
            _warm_start_with_vocab(var, prefix, tensor_name, info)
            count += 1
        elif vars_to_warm_start:
            checkpoint_utils.init_from_checkpoint(prefix, {tensor_name: var})
            count += 1
    _log.info("Warm-started %d variables.", count)
    if set(prev_names) - used_prev:
        raise ValueError(f"You provided the following variables in var_name_to_prev_var_name that were not used: "
                         f"{set(prev_names) - used_prev}.  Perhaps you misspelled them?  Here is the list of viable "
                         f"variable names: {grouped.keys()}")
    if set(vocab_infos) - used_vocab:
        raise ValueError(f"You provided the following variables in var_name_to_vocab_info that were not used: "
                         f"{set(vocab_infos) - used_vocab}.  Perhaps you misspelled them?  Here is the list of "
                         f"viable variable names: {grouped.keys()}")
