"""``tf.train.Saver``: save variables to checkpoints and restore them.

How a save and a restore run
----------------------------
A ``Saver`` builds, when it is constructed, one placeholder and one
``Assign`` per variable (``save/RestoreV2``, ``save/Assign``, ...) and a
``save/restore_all`` group. ``save`` reads every variable (and the global
step) with ONE ``sess.run`` and writes the files in Python; ``restore``
reads the files in Python, checks them against the graph, and assigns every
value with ONE ``sess.run`` of ``restore_all``, feeding the placeholders. So
both work with any session, local or on a Dask cluster, and on a finalized
graph.

On-disk format
--------------
TF1's file layout, dflow's contents. A checkpoint is a *prefix*
(``/ckpt/model.ckpt-1000``) naming these files:

``<prefix>.data-00000-of-00001``
    The tensors' bytes, one after another, each starting at a multiple of
    64 bytes (zero padding between). Numbers, booleans and complex values
    are their raw little-endian bytes in C order (``bool`` one byte each).
    Strings (``tf.string``) are, per element in C order, an unsigned 64-bit
    little-endian length followed by that many bytes.

``<prefix>.index``
    UTF-8 JSON::

        {"format": "dflow-checkpoint", "version": 1, "byte_order": "little",
         "string_encoding": "u64-length-prefixed", "data_files": 1,
         "data_size": 1088,
         "tensors": {"w": {"dtype": "float32", "shape": [2, 3],
                           "offset": 0, "length": 24, "crc32": 2768625435}, ...}}

    ``dtype`` is a ``tf.DType`` name, ``offset``/``length`` locate the bytes
    in the data file and ``crc32`` (zlib's) checks them.

``<prefix>.meta``
    The meta graph (``dflow.train.meta_graph``): graph, collections and this
    saver's ``SaverDef``, as JSON.

``checkpoint`` (in the directory)
    The state file in TF1's text format (``model_checkpoint_path: "..."``,
    ``all_model_checkpoint_paths: "..."``); see ``checkpoint_management``.

Nothing is ever unpickled: loading parses JSON and hands raw bytes to
``np.frombuffer`` with a dtype from a fixed list. A file that is truncated,
fails its CRC, or was not written by dflow (TF1's own binary checkpoints
included) is a ``tf.errors.DataLossError``.

Crash safety: every file is written to a hidden temporary name in the same
directory, flushed and fsynced, then ``os.replace``d into place, in the order
data, index, meta graph (all three written before the first is renamed), and
the ``checkpoint`` state file last. A crash or error mid-save (a full disk is
``ResourceExhaustedError`` naming the file, another I/O error ``UnknownError``)
leaves the previous latest checkpoint as the latest, intact.
(Re-saving to the *same* prefix replaces its data and index files one after
the other: only a crash between those two renames can leave that prefix
unreadable, and it is then reported as ``DataLossError``, never misread.)

>>> import os, tempfile
>>> import dflow as tf
>>> with tf.Graph().as_default():
...     v = tf.Variable([1.0, 2.0], name="v")
...     saver = tf.train.Saver()
>>> d = tempfile.mkdtemp()
>>> with tf.Session(graph=v.graph) as sess:
...     sess.run(v.initializer)
...     path = saver.save(sess, os.path.join(d, "model.ckpt"), global_step=7)
>>> os.path.basename(path), os.path.basename(tf.train.latest_checkpoint(d))
('model.ckpt-7', 'model.ckpt-7')
>>> with tf.Session(graph=v.graph) as sess:
...     saver.restore(sess, path)
...     sess.run(v)
array([1., 2.], dtype=float32)
"""

from __future__ import annotations

import contextlib
import logging
import os
import time

import numpy as np

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.files import file_io
from dflow.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    get_default_graph,
    prepend_name_scope,
    strip_name_scope,
)
from dflow.ops.state.partitioned_variables import PartitionedVariable, SaveSliceInfo
from dflow.train.checkpoints import checkpoint_format, checkpoint_management

_log = logging.getLogger("dflow")


def _now() -> float:
    """The clock of ``keep_checkpoint_every_n_hours`` (tests replace it)."""
    return time.time()


@tf_export("train.SaverDef")
class SaverDef:
    """What a ``Saver`` needs to run against an existing graph (TF1's ``SaverDef`` proto).

    dflow saves and restores from Python, so ``filename_tensor_name`` and
    ``save_tensor_name`` are empty; ``tensors`` lists, per checkpoint entry,
    ``(checkpoint name, variable tensor name, restore placeholder name)``.
    """

    V1 = 1
    V2 = 2
    LEGACY = 0

    def __init__(self, filename_tensor_name: str = "", save_tensor_name: str = "", restore_op_name: str = "",
                 max_to_keep: int = 5, sharded: bool = False, keep_checkpoint_every_n_hours: float = 10000.0,
                 version: int = 2, tensors=()):
        self.filename_tensor_name = filename_tensor_name
        self.save_tensor_name = save_tensor_name
        self.restore_op_name = restore_op_name
        self.max_to_keep = max_to_keep
        self.sharded = sharded
        self.keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self.version = version
        self.tensors = [tuple(t) for t in tensors]

    def to_dict(self) -> dict:
        return {"filename_tensor_name": self.filename_tensor_name, "save_tensor_name": self.save_tensor_name,
                "restore_op_name": self.restore_op_name, "max_to_keep": self.max_to_keep, "sharded": self.sharded,
                "keep_checkpoint_every_n_hours": self.keep_checkpoint_every_n_hours, "version": self.version,
                "tensors": [list(t) for t in self.tensors]}

    @classmethod
    def from_dict(cls, d: dict) -> SaverDef:
        """The ``SaverDef`` of ``to_dict``'s output; ``ValueError`` naming the field for anything else
        (a meta graph file is input: a crafted one must not end in a ``TypeError`` deep inside)."""
        if not isinstance(d, dict) or not set(d) <= set(cls().to_dict()):
            raise ValueError(f"Not a SaverDef: {d!r:.200}")
        for key in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
            if not isinstance(d.get(key, ""), str):
                raise ValueError(f"SaverDef field {key} must be a string, got {d[key]!r:.100}")
        number = lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)  # noqa: E731
        for key, ok in (("max_to_keep", lambda x: x is None or (number(x) and x == int(x))),
                        ("keep_checkpoint_every_n_hours", number), ("version", number),
                        ("sharded", lambda x: isinstance(x, bool))):
            if key in d and not ok(d[key]):
                raise ValueError(f"SaverDef field {key} has a value of the wrong type: {d[key]!r:.100}")
        tensors = d.get("tensors", [])
        entry = lambda t: isinstance(t, (list, tuple)) and len(t) in (3, 4) and all(isinstance(x, str) for x in t)  # noqa: E731
        if not isinstance(tensors, (list, tuple)) or not all(entry(t) for t in tensors):
            raise ValueError(f"SaverDef field tensors must list [checkpoint name, variable, placeholder(, slice "
                             f"spec)] strings, got {tensors!r:.200}")
        return cls(**d)

    def renamed(self, rename) -> SaverDef:
        """A copy with every graph name passed through ``rename`` (import/export scopes)."""
        d = self.to_dict()
        d["restore_op_name"] = rename(d["restore_op_name"]) if d["restore_op_name"] else ""
        d["tensors"] = [(name, rename(var), rename(feed), *spec) for name, var, feed, *spec in self.tensors]
        return SaverDef.from_dict(d)

    def __eq__(self, other):
        return isinstance(other, SaverDef) and self.to_dict() == other.to_dict()

    __hash__ = None

    def __repr__(self):
        return f"SaverDef({self.to_dict()!r})"


class _Entry:
    """One variable of a checkpoint tensor: its name, the variable's tensor, the placeholder
    restore feeds, and for a part of a partitioned variable its ``SaveSliceInfo``."""

    __slots__ = ("name", "ref", "feed", "slice_info")

    def __init__(self, name: str, ref: Tensor, feed: Tensor, slice_info=None):
        self.name = name
        self.ref = ref
        self.feed = feed
        self.slice_info = slice_info


def _variable_ref(v) -> Tensor:
    """The ``VariableV2`` output of ``v`` (a Variable, its ``v:0`` tensor, or what converts to one)."""
    conv = getattr(v, "_as_graph_element", None)
    t = conv() if conv is not None else v
    if not isinstance(t, Tensor) or t.op.type != "VariableV2":
        raise TypeError(f"Variable to save is not a Variable: {v!r}")
    return t


def _expand_partitioned(var_list):
    for v in var_list:
        if isinstance(v, PartitionedVariable):
            yield from v
        else:
            yield v


def saveables(var_list) -> list:
    """``[(checkpoint name, VariableV2 tensor, SaveSliceInfo or None)]`` for a list (named by op,
    or for a slice of a partitioned variable by the whole's name) or dict of variables."""
    result: list = []
    if isinstance(var_list, dict):
        for name, v in var_list.items():
            if not isinstance(name, str):
                raise TypeError(f"var_list keys must be strings, got {name!r}")
            if isinstance(v, PartitionedVariable):
                result.extend((name, _variable_ref(p), p._save_slice_info) for p in v)
            elif isinstance(v, (list, tuple)):
                for p in v:
                    if getattr(p, "_save_slice_info", None) is None:
                        raise ValueError(f"var_list[{name!r}] lists variables that are not slices of one "
                                         f"partitioned variable: {p!r}")
                    result.append((name, _variable_ref(p), p._save_slice_info))
            else:
                result.append((name, _variable_ref(v), None))
        return result
    if not isinstance(var_list, (list, tuple, set)):
        raise TypeError(f"var_list must be a list, tuple, set or dict of variables, got {type(var_list).__name__}")
    seen: dict = {}
    for v in _expand_partitioned(var_list):
        ref = _variable_ref(v)
        info = getattr(v, "_save_slice_info", None)
        name = ref.op.name if info is None else info.full_name
        key = (name, None if info is None else info.spec)
        if key in seen or (info is None and name in {k[0] for k in seen}):
            raise ValueError(f"At least two variables have the same name: {name}")
        seen[key] = True
        result.append((name, ref, info))
    return result


def names_to_variables(var_list) -> dict:
    """``{checkpoint name: VariableV2 tensor}`` for a list (named by op) or dict of unpartitioned variables."""
    result: dict = {}
    for name, ref, info in saveables(var_list):
        if info is not None:
            raise ValueError(f"{name} is a partitioned variable: its checkpoint entry has several variables")
        result[name] = ref
    return result


def _default_var_list(graph) -> list:
    return graph.get_collection(GraphKeys.GLOBAL_VARIABLES) + graph.get_collection(GraphKeys.SAVEABLE_OBJECTS)


@tf_export("train.Saver")
class Saver:
    """Saves and restores variables (TF1's ``tf.train.Saver``).

    ``var_list``: a list of variables (saved under their op names), a dict
    ``{name: variable}``, or None for every global variable and saveable
    object. ``max_to_keep`` most recent checkpoints are kept (None or 0:
    all), plus one every ``keep_checkpoint_every_n_hours``. ``sharded`` and
    ``write_version`` are accepted; dflow always writes one data file in
    its own format (see the module docstring).
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False, saver_def=None,
                 builder=None, defer_build=False, allow_empty=False, write_version=2, pad_step_number=False,
                 save_relative_paths=False, filename=None):
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. Either set defer_build=False "
                             "or var_list=None.")
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially
        self._given_saver_def = saver_def
        self._allow_empty = allow_empty
        self._write_version = write_version
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._filename = filename
        self.saver_def = None
        self._entries: list = []
        self._graph = None
        self._restore_op = None
        self._is_built = False
        self._is_empty = None
        self._last_checkpoints: list = []  # [(prefix, time saved)], oldest first
        self._checkpoints_to_be_deleted: list = []
        self._next_checkpoint_time = _now() + keep_checkpoint_every_n_hours * 3600
        if not defer_build:
            self.build()

    # -- building ------------------------------------------------------------------------
    def build(self) -> None:
        """Builds the restore ops (done by the constructor unless ``defer_build``)."""
        if self._is_built:
            return
        if self._given_saver_def is not None:
            self._build_from_saver_def(self._given_saver_def)
        else:
            self._build_ops()
        self._is_built = True
        self._next_checkpoint_time = _now() + self.saver_def.keep_checkpoint_every_n_hours * 3600

    def _build_ops(self) -> None:
        from dflow.framework.constant_op import placeholder
        from dflow.framework.graph import colocate_with
        from dflow.ops.control_flow.control_flow_ops import group
        from dflow.ops.state.variables import assign

        graph = get_default_graph()
        var_list = _default_var_list(graph) if self._var_list is None else self._var_list
        items = saveables(var_list)
        self.saver_def = SaverDef(max_to_keep=self._max_to_keep, sharded=self._sharded,
                                  keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours,
                                  version=self._write_version)
        if not items:
            if not self._allow_empty:
                raise ValueError("No variables to save")
            self._is_empty = True
            self._graph = graph
            return
        self._is_empty = False
        graph = items[0][1].graph
        for name, ref, _ in items:
            if ref.graph is not graph:
                raise ValueError(f"Variable {name} is in another graph than {items[0][0]}: a Saver saves "
                                 f"variables of one graph.")
        self._graph = graph
        assigns = []
        with graph.as_default(), graph.control_dependencies(None), graph.name_scope(self._name or "save"):
            for name, ref, info in sorted(items, key=lambda it: (it[0], it[2].var_offset if it[2] else ())):
                with colocate_with(ref.op):
                    feed = placeholder(ref.dtype, shape=ref.shape, name="RestoreV2")
                validate = ref.shape.is_fully_defined()
                assigns.append(assign(ref, feed, validate_shape=validate, name="Assign").op)
                self._entries.append(_Entry(name, ref, feed, info))
            self._restore_op = group(*assigns, name="restore_all")
        self.saver_def.restore_op_name = self._restore_op.name
        self.saver_def.tensors = [(e.name, e.ref.name, e.feed.name) + ((e.slice_info.spec,) if e.slice_info else ())
                                  for e in self._entries]

    def _build_from_saver_def(self, saver_def: SaverDef) -> None:
        graph = get_default_graph()
        self._graph = graph
        self.saver_def = saver_def
        try:
            for name, var_name, feed_name, *spec in saver_def.tensors:
                info = SaveSliceInfo.from_spec(name, spec[0]) if spec else None
                self._entries.append(_Entry(name, _variable_ref(graph.get_tensor_by_name(var_name)),
                                            graph.get_tensor_by_name(feed_name), info))
            if saver_def.restore_op_name:
                self._restore_op = graph.get_operation_by_name(saver_def.restore_op_name)
        except (KeyError, ValueError) as e:
            msg = e.args[0] if e.args else str(e)
            raise ValueError(f"The saver_def does not match the default graph: {msg}") from None
        self._is_empty = not self._entries

    def _check_built(self, what: str) -> None:
        if not self._is_built:
            raise RuntimeError(f"`build()` should be called before {what} if defer_build==True.")

    def as_saver_def(self) -> SaverDef:
        """The ``SaverDef`` that rebuilds this saver from the graph (``Saver(saver_def=...)``)."""
        return self.saver_def

    def to_proto(self, export_scope=None) -> SaverDef:
        if export_scope is None:
            return self.saver_def
        return self.saver_def.renamed(lambda n: strip_name_scope(n, export_scope))

    @staticmethod
    def from_proto(saver_def, import_scope=None) -> Saver:
        if import_scope:
            saver_def = saver_def.renamed(lambda n: prepend_name_scope(n, import_scope))
        return Saver(saver_def=saver_def)

    # -- checkpoint bookkeeping ----------------------------------------------------------------
    @property
    def last_checkpoints(self) -> list:
        """The prefixes of the checkpoints this saver keeps, oldest first."""
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints) -> None:
        """Deprecated in TF1: prefer ``set_last_checkpoints_with_time``."""
        if not isinstance(last_checkpoints, list):
            raise TypeError("last_checkpoints must be a list")
        self._last_checkpoints = [(p, np.inf) for p in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time) -> None:
        """Sets the kept checkpoints from ``[(prefix, timestamp), ...]``."""
        if not isinstance(last_checkpoints_with_time, list):
            raise TypeError("last_checkpoints_with_time must be a list")
        self._last_checkpoints = [(p, t) for p, t in last_checkpoints_with_time]

    def recover_last_checkpoints(self, checkpoint_paths) -> None:
        """Keeps (and later deletes, past ``max_to_keep``) those of ``checkpoint_paths`` that exist,
        timed by their files (after a restart: ``get_checkpoint_state(d).all_model_checkpoint_paths``)."""
        found = []
        for path in checkpoint_paths:
            mtimes = checkpoint_management.get_checkpoint_mtimes([path])
            if mtimes:
                found.append((path, mtimes[0]))
        self.set_last_checkpoints_with_time(found)

    def _record_last_checkpoint(self, latest: str) -> None:
        if not self.saver_def.max_to_keep:
            return
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != latest]
        self._last_checkpoints.append((latest, _now()))
        while len(self._last_checkpoints) > self.saver_def.max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _maybe_delete_old_checkpoints(self, meta_graph_suffix: str) -> None:
        while self._checkpoints_to_be_deleted:
            path, saved_at = self._checkpoints_to_be_deleted.pop(0)
            if saved_at > self._next_checkpoint_time:
                # Keep one checkpoint every keep_checkpoint_every_n_hours.
                self._next_checkpoint_time += self.saver_def.keep_checkpoint_every_n_hours * 3600
                continue
            checkpoint_management.remove_checkpoint(path, meta_graph_suffix=meta_graph_suffix)

    # -- save and restore ----------------------------------------------------------------------
    def save(self, sess, save_path, global_step=None, latest_filename=None, meta_graph_suffix="meta",
             write_meta_graph=True, write_state=True, strip_default_attrs=False, save_debug_info=False):
        """Writes the variables' values to the checkpoint ``save_path`` (``save_path-<step>``
        with ``global_step``: an int, or a tensor or variable read in the same run).

        Returns the checkpoint's prefix (None for an empty saver).
        """
        self._check_built("save")
        latest_filename = latest_filename or "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = os.fspath(save_path)
        save_dir = os.path.dirname(save_path)
        fetches = [e.ref for e in self._entries]
        step = None
        if global_step is not None:
            if isinstance(global_step, (int, np.integer)) and not isinstance(global_step, bool):
                step = int(global_step)
            else:
                fetches.append(_step_tensor(global_step))
        values = sess.run(fetches) if fetches else []
        if step is None and global_step is not None:
            step = int(values.pop())
        if step is not None:
            checkpoint_file = f"{save_path}-{step:08d}" if self._pad_step_number else f"{save_path}-{step}"
        else:
            checkpoint_file = save_path
        if save_dir and file_io.is_local(save_dir) and not file_io.isdir(save_dir):  # object stores: no dirs
            raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
        removed = file_io.remove_stale_temp_files(save_dir)
        if removed:
            _log.info("Removed %d temporary file(s) that a killed writer left in %s: %s", len(removed),
                      save_dir or ".", ", ".join(sorted(removed)))
        meta_path = checkpoint_management.meta_graph_filename(checkpoint_file, meta_graph_suffix)
        meta = self._meta_graph_bytes(meta_path, getattr(sess, "graph", None) or self._graph,
                                      strip_default_attrs) if write_meta_graph else None
        if self._is_empty:
            if meta is not None:
                file_io.atomic_write_bytes(meta_path, meta)
            return None
        # The meta graph is written with the checkpoint's files and renamed into place with them, so a
        # failure (a full disk) never leaves a prefix with new tensors but no or a stale meta graph.
        checkpoint_format.write_checkpoint(checkpoint_file, _assembled(self._entries, values),
                                           also=[(meta_path, meta)] if meta is not None else [])
        if write_meta_graph and meta is None:
            with contextlib.suppress(errors.NotFoundError):
                file_io.remove(meta_path)  # a stale one from an earlier save to this prefix would not match
        if write_state:
            self._record_last_checkpoint(checkpoint_file)
            checkpoint_management.update_checkpoint_state_internal(
                save_dir, checkpoint_file, self.last_checkpoints, latest_filename,
                save_relative_paths=self._save_relative_paths)
            self._maybe_delete_old_checkpoints(meta_graph_suffix)
        return checkpoint_file

    def _meta_graph_bytes(self, path: str, graph, strip_default_attrs: bool):
        """The bytes of the meta graph file ``path``; None if the graph cannot be serialized."""
        from dflow.framework import graph_io

        try:
            meta = self.export_meta_graph(None, strip_default_attrs=strip_default_attrs, graph=graph)
            return graph_io.dumps(meta.to_dict())
        except graph_io.UnserializableGraphError as e:
            # The checkpoint itself is fine: restoring needs only the code that built the graph.
            _log.warning("Checkpoint saved without a meta graph (%s): %s", path, e)
            return None

    def restore(self, sess, save_path) -> None:
        """Assigns every variable its value in checkpoint ``save_path`` (one ``sess.run``).

        ``NotFoundError`` if the checkpoint lacks a variable, ``InvalidArgumentError``
        on a dtype or shape mismatch, ``DataLossError`` if a file is corrupt.
        """
        self._check_built("restore")
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = os.fspath(save_path)
        if not checkpoint_management.checkpoint_exists(save_path):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        _log.info("Restoring parameters from %s", save_path)
        reader = checkpoint_format.CheckpointReader(save_path)
        names = list(dict.fromkeys(e.name for e in self._entries))
        missing = [n for n in names if not reader.has_tensor(n)]
        if missing:
            more = f" (nor {', '.join(missing[1:])})" if len(missing) > 1 else ""
            raise errors.NotFoundError(
                None, None, f"Key {missing[0]} not found in checkpoint {save_path}{more}. The graph's variables "
                            f"must match the checkpoint's names: compare tf.train.list_variables({save_path!r}) "
                            f"with the saver's var_list.")
        values = dict(zip(names, reader.get_tensors(names, writable=False)))
        dtypes_in_file = reader.get_variable_to_dtype_map()
        feeds = {}
        for e in self._entries:
            value = values[e.name]
            if e.slice_info is not None:
                value = self._checked_slice(e, value, save_path)
            feeds[e.feed] = self._checked_value(e, value, dtypes_in_file[e.name], save_path)
        sess.run(self._restore_op, feeds)

    @staticmethod
    def _checked_slice(e: _Entry, value: np.ndarray, save_path: str) -> np.ndarray:
        """The part of the full checkpoint tensor ``value`` that partitioned variable part ``e`` holds."""
        info = e.slice_info
        if list(value.shape) != info.full_shape:
            raise errors.InvalidArgumentError(
                None, None, f"Restoring from checkpoint failed: partitioned variable {info.full_name} has full "
                            f"shape {info.full_shape} in the graph but tensor {e.name} has shape "
                            f"{list(value.shape)} in checkpoint {save_path}")
        return value[info.slices()]

    def _checked_value(self, e: _Entry, value: np.ndarray, dtype, save_path: str) -> np.ndarray:
        if dtype is not e.ref.dtype:
            raise errors.InvalidArgumentError(
                None, None, f"tensor_name = {e.name}; expected dtype {e.ref.dtype.name} does not equal original "
                            f"dtype {dtype.name} (variable {e.ref.op.name}, checkpoint {save_path})")
        shape = e.ref.shape
        if shape.is_fully_defined() and tuple(shape.as_list()) != value.shape:
            if self._reshape and value.size == shape.num_elements():
                return value.reshape(shape.as_list())
            raise errors.InvalidArgumentError(
                None, None, f"Restoring from checkpoint failed: variable {e.ref.op.name} has shape "
                            f"{shape.as_list()} in the graph but tensor {e.name} has shape {list(value.shape)} in "
                            f"checkpoint {save_path}. Assign requires shapes of both tensors to match. "
                            f"lhs shape= {shape.as_list()} rhs shape= {list(value.shape)}")
        return value

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False, export_scope=None,
                          clear_devices=False, clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False, graph=None):
        """Writes the graph, its collections and this saver's ``SaverDef`` (``tf.train.export_meta_graph``)."""
        from dflow.train import meta_graph

        return meta_graph.export_meta_graph(
            filename=filename, saver_def=self.saver_def, collection_list=collection_list, as_text=as_text,
            graph=graph or self._graph, export_scope=export_scope, clear_devices=clear_devices,
            clear_extraneous_savers=clear_extraneous_savers, strip_default_attrs=strip_default_attrs)

    def __repr__(self):
        return f"<tf.train.Saver of {len(self._entries)} variables>"


def _assembled(entries, values) -> list:
    """``[(name, dtype, value)]`` to write: the parts of a partitioned variable placed into one
    array of its full shape (so it restores into any partitioning)."""
    out: dict = {}
    for e, v in zip(entries, values):
        if e.slice_info is None:
            out[e.name] = (e.name, e.ref.dtype, v)
            continue
        if e.name not in out:
            full = np.zeros(e.slice_info.full_shape, dtype=np.asarray(v).dtype)
            out[e.name] = (e.name, e.ref.dtype, full)
        out[e.name][2][e.slice_info.slices()] = v
    return list(out.values())


def _step_tensor(global_step) -> Tensor:
    conv = getattr(global_step, "_as_graph_element", None)
    t = conv() if conv is not None else global_step
    if isinstance(t, Operation):
        raise TypeError(f"global_step must be an int, a tensor or a variable, not the operation {t.name}")
    if not isinstance(t, Tensor):
        raise TypeError(f"global_step must be an int, a tensor or a variable, got {global_step!r}")
    if not t.dtype.is_integer:
        raise TypeError(f"global_step must be an integer, got {t.dtype.name} tensor {t.name}")
    return t
