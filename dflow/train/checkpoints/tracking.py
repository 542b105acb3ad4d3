"""Object-based checkpoints in graph mode: ``tf.train.Checkpoint`` and ``tf.train.CheckpointManager``.

A ``Checkpoint`` names what it saves by the path of Python attributes that
leads to each variable, not by graph names, so a checkpoint restores into a
program that builds its graph differently::

    ckpt = tf.train.Checkpoint(model_w=w, optimizer=opt, step=global_step)
    path = ckpt.save("/tmp/run/ckpt", session=sess)       # /tmp/run/ckpt-1
    ckpt.restore(path).run_restore_ops(sess)

Keys are TF's: ``model_w/.ATTRIBUTES/VARIABLE_VALUE``; a slot of an optimizer
is filed under the variable it belongs to,
``model_w/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE``; an
optimizer's own variables under its path (``optimizer/beta1_power/...``);
``save_counter`` numbers the saves. The files are dflow's checkpoint format
(``tf.train.list_variables`` and ``NewCheckpointReader`` read them), with the
object graph in the ``_CHECKPOINTABLE_OBJECT_GRAPH`` entry as TF writes it,
here as JSON.

What can be tracked: variables, other ``Checkpoint`` objects, optimizers,
``tf.layers`` layers and any object with a ``_trackable_children()`` method
(``{name: child}``), and lists, tuples and dicts of those (``name/0``,
``name/key``). Restoring matches the objects that exist when ``restore`` is
called; values for objects created later (TF2's deferred restoration) are not
applied, which ``assert_consumed`` reports.
"""

from __future__ import annotations

import json
import os
import time

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.files import file_io
from dflow.framework.graph import get_default_graph, get_default_session
from dflow.train.checkpoints import checkpoint_format, checkpoint_management

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_VALUE = ".ATTRIBUTES/VARIABLE_VALUE"
_SLOT = ".OPTIMIZER_SLOT"


def _escape(name: str) -> str:
    """TF escapes ``/`` and ``.`` in object names (``.S`` and ``..``) so keys stay unambiguous."""
    return str(name).replace(".", "..").replace("/", ".S")


def _is_variable(obj) -> bool:
    from dflow.ops.state.variables import Variable

    return isinstance(obj, Variable)


def _children(obj) -> list:
    """``[(name, child)]`` of a trackable object, in a stable order."""
    from dflow.ops.state.partitioned_variables import PartitionedVariable
    from dflow.train.optimizers.optimizer import Optimizer

    if isinstance(obj, Checkpoint):
        return list(obj._attributes.items())
    if isinstance(obj, (list, tuple)):
        return [(str(i), c) for i, c in enumerate(obj)]
    if isinstance(obj, dict):
        return [(str(k), obj[k]) for k in sorted(obj, key=str)]
    if isinstance(obj, PartitionedVariable):
        return [(f"part_{i}", v) for i, v in enumerate(obj)]
    if isinstance(obj, Optimizer):
        graph = get_default_graph()
        return sorted((name, v) for (name, g), v in obj._non_slot_dict.items() if g is graph)
    own = getattr(obj, "_trackable_children", None)
    if callable(own):
        return sorted(own().items())
    if _is_layer(obj):
        return sorted((k, v) for k, v in vars(obj).items() if not k.startswith("_") and _trackable(v))
    return []


def _is_layer(obj) -> bool:
    return any(c.__module__.startswith("dflow.layers") and c.__name__ == "Layer" for c in type(obj).__mro__)


def _trackable(obj) -> bool:
    from dflow.ops.state.partitioned_variables import PartitionedVariable
    from dflow.train.optimizers.optimizer import Optimizer

    if _is_variable(obj) or isinstance(obj, (Checkpoint, Optimizer, PartitionedVariable)) or _is_layer(obj):
        return True
    if callable(getattr(obj, "_trackable_children", None)):
        return True
    if isinstance(obj, (list, tuple)):
        return bool(obj) and all(_trackable(c) for c in obj)
    if isinstance(obj, dict):
        return bool(obj) and all(_trackable(c) for c in obj.values())
    return False


def _walk(root) -> tuple[dict, list]:
    """Breadth-first over the object graph from ``root``: ``({checkpoint key: variable}, [optimizers
    with their paths])``; a variable reached twice keeps its first (shortest) path, as TF."""
    from dflow.train.optimizers.optimizer import Optimizer

    keys: dict = {}
    seen: dict = {}
    paths: list = []
    queue = [((), root)]
    while queue:
        path, obj = queue.pop(0)
        if id(obj) in seen:
            continue
        seen[id(obj)] = path
        if _is_variable(obj):
            keys["/".join(path) + "/" + _VALUE] = obj
            paths.append((path, obj))
            continue
        if isinstance(obj, Optimizer):
            paths.append((path, obj))
        for name, child in _children(obj):
            queue.append((path + (_escape(name),), child))
    # Optimizer slots are keyed like the optimizer's own map: (graph, variable op name).
    var_paths = {(v.op.graph, v.op.name): p for p, v in paths if _is_variable(v)}
    for opt_path, opt in paths:
        if not isinstance(opt, Optimizer):
            continue
        for slot_name in opt.get_slot_names():
            for var_key, slot in sorted(opt._slots[slot_name].items(), key=lambda kv: kv[0][1]):
                if var_key in var_paths:
                    keys["/".join(var_paths[var_key] + (_SLOT,) + opt_path + (_escape(slot_name), _VALUE))] = slot
    return keys, paths


def _session(session):
    session = session or get_default_session()
    if session is None:
        raise ValueError("In graph mode a Checkpoint needs a session: pass session=sess or save/restore inside "
                         "`with tf.Session() as sess:` (or sess.as_default()).")
    return session


@tf_export("train.CheckpointOptions")
class CheckpointOptions:
    """Options of ``Checkpoint.save``/``write``/``restore``; accepted for TF compatibility (dflow writes one file)."""

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False, experimental_sharding_callback=None,
                 experimental_skip_slot_variables=False):
        self.experimental_io_device = experimental_io_device
        self.enable_async = bool(enable_async or experimental_enable_async_checkpoint)
        self.experimental_skip_slot_variables = experimental_skip_slot_variables


@tf_export("train.Checkpoint")
class Checkpoint:
    """Saves and restores trackable objects by their attribute paths (TF's object-based checkpoints)."""

    def __init__(self, **kwargs):
        attributes = {}
        for name, value in kwargs.items():
            if value is None:
                continue
            if not _trackable(value):
                raise ValueError(f"`Checkpoint` was expecting a trackable object (an object derived from "
                                 f"`Trackable`), got {value!r} for argument {name!r}. If you believe this object "
                                 f"should be trackable (i.e. it is part of the TensorFlow Python API and manages "
                                 f"state), please open an issue.")
            attributes[name] = value
        self.__dict__["_attributes"] = attributes
        self.__dict__["_save_counter"] = None

    def __getattr__(self, name):
        attributes = self.__dict__.get("_attributes", {})
        if name in attributes:
            return attributes[name]
        raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name.startswith("_"):
            self.__dict__[name] = value
        elif _trackable(value):
            self._attributes[name] = value
        else:
            raise ValueError(f"Checkpoint attribute {name!r} must be trackable (a variable, optimizer, layer or "
                             f"Checkpoint), got {value!r}")

    def _trackable_children(self) -> dict:
        return dict(self._attributes)

    # -- the save counter ------------------------------------------------------------------
    @property
    def save_counter(self):
        """An int64 variable counting ``save`` calls; created on first use (not trainable)."""
        if self._save_counter is None:
            from dflow.framework.graph import control_dependencies, name_scope
            from dflow.ops.state.variables import Variable

            with control_dependencies(None), name_scope(None):
                self._save_counter = Variable(np.int64(0), name="save_counter", trainable=False, dtype=dtypes.int64)
        return self._save_counter

    def _objects(self) -> dict:
        keys, _ = _walk(self)
        if self._save_counter is not None:
            keys["save_counter/" + _VALUE] = self._save_counter
        return keys

    # -- writing ---------------------------------------------------------------------------
    def write(self, file_prefix, session=None, options=None) -> str:
        """Writes the values to checkpoint ``file_prefix`` exactly (no counter, no ``checkpoint`` file)."""
        session = _session(session)
        file_prefix = os.fspath(file_prefix)
        keys = self._objects()
        names = sorted(keys)
        values = session.run([keys[k]._as_graph_element() for k in names]) if names else []
        graph = {"format": "dflow-object-graph/1",
                 "objects": {k: keys[k].op.name for k in names}}
        entries = [(k, keys[k].dtype, v) for k, v in zip(names, values)]
        entries.append((OBJECT_GRAPH_KEY, dtypes.string, np.array(json.dumps(graph).encode(), dtype=object)))
        directory = os.path.dirname(file_prefix)
        if directory:
            file_io.makedirs(directory)
        checkpoint_format.write_checkpoint(file_prefix, entries)
        return file_prefix

    def save(self, file_prefix, session=None, options=None) -> str:
        """Adds one to ``save_counter`` and writes ``<file_prefix>-<save_counter>``; records it in the
        directory's ``checkpoint`` file. Returns the path."""
        session = _session(session)
        counter = self.save_counter
        if not session.run(_is_initialized(counter)):
            session.run(counter.initializer)
        number = int(session.run(counter.assign_add(1)))
        path = self.write(f"{os.fspath(file_prefix)}-{number}", session=session)
        checkpoint_management.update_checkpoint_state_internal(
            os.path.dirname(path) or ".", path, all_model_checkpoint_paths=[path], save_relative_paths=True)
        return path

    # -- reading ---------------------------------------------------------------------------
    def restore(self, save_path, options=None):
        """A status whose ``run_restore_ops(session)`` assigns the checkpoint's values to the objects that
        exist now; ``save_path`` None gives a status that only initializes."""
        if save_path is None:
            return InitializationOnlyStatus(self)
        save_path = os.fspath(save_path)
        if not checkpoint_management.checkpoint_exists(save_path):
            from dflow.framework import errors

            raise errors.NotFoundError(None, None, f"Failed to find any matching files for {save_path}")
        reader = checkpoint_format.CheckpointReader(save_path)
        if reader.has_tensor("save_counter/" + _VALUE):
            self.save_counter  # noqa: B018 - created so that it is restored too
        return CheckpointLoadStatus(self, save_path, reader)

    def read(self, save_path, options=None):
        """``restore`` without the save counter being part of the match (TF's ``read``)."""
        return self.restore(save_path, options)


def _is_initialized(v):
    from dflow.ops.state.variables import is_variable_initialized

    return is_variable_initialized(v)


class _Status:
    def __init__(self, checkpoint: Checkpoint):
        self._checkpoint = checkpoint

    def expect_partial(self):
        """Silences warnings about values not used; returns the status."""
        return self


@tf_export("train.CheckpointLoadStatus")
class CheckpointLoadStatus(_Status):
    """What ``Checkpoint.restore`` returns: restore ops to run, and checks of the match."""

    def __init__(self, checkpoint: Checkpoint, save_path: str, reader):
        super().__init__(checkpoint)
        self._save_path = save_path
        self._reader = reader
        self._objects = checkpoint._objects()
        self._in_file = {k for k in reader.get_variable_to_shape_map() if k != OBJECT_GRAPH_KEY}

    def _matched(self) -> dict:
        return {k: v for k, v in self._objects.items() if k in self._in_file}

    def run_restore_ops(self, session=None) -> None:
        """Assigns every matched object its value from the checkpoint (one run)."""
        from dflow.ops.state.variables import Variable

        session = _session(session)
        matched = self._matched()
        if not matched:
            return
        names = sorted(matched)
        values = self._reader.get_tensors(names, writable=False)
        feeds, ops = {}, []
        from dflow.framework.constant_op import placeholder
        from dflow.framework.graph import control_dependencies
        from dflow.ops.control_flow.control_flow_ops import group
        from dflow.ops.state.variables import assign

        cache = self._checkpoint.__dict__.setdefault("_restore_cache", {})
        for name, value in zip(names, values):
            var: Variable = matched[name]
            if tuple(var.shape.as_list()) != value.shape and var.shape.is_fully_defined():
                from dflow.framework import errors

                raise errors.InvalidArgumentError(
                    None, None, f"Restoring {name} from {self._save_path}: the checkpoint's value has shape "
                                f"{list(value.shape)}, variable {var.op.name} has shape {var.shape.as_list()}")
            key = (var.op.graph, var.op.name)
            if key not in cache:
                with var.op.graph.as_default(), control_dependencies(None):
                    ph = placeholder(var.dtype, shape=var.shape, name="checkpoint_initializer")
                    cache[key] = (ph, assign(var, ph, name="checkpoint_restore").op)
            ph, op = cache[key]
            feeds[ph] = value
            ops.append(op)
        session.run(group(*ops) if len(ops) > 1 else ops[0], feeds)

    def initialize_or_restore(self, session=None) -> None:
        """Restores the matched objects and runs the initializers of the others."""
        session = _session(session)
        self.run_restore_ops(session)
        others = [v for k, v in self._objects.items() if k not in self._in_file]
        if others:
            session.run([v.initializer for v in others])

    def assert_consumed(self):
        """AssertionError unless every checkpoint value found an object and every object a value."""
        unused = sorted(self._in_file - set(self._objects))
        if unused:
            raise AssertionError(f"Unresolved object in checkpoint (root).{unused[0].split('/' + _VALUE)[0]}: "
                                 f"checkpoint {self._save_path} has values for {unused} that no object restored")
        self.assert_existing_objects_matched()
        return self

    def assert_existing_objects_matched(self):
        """AssertionError unless every object reachable now has a value in the checkpoint."""
        missing = sorted(set(self._objects) - self._in_file)
        if missing:
            raise AssertionError(f"Some objects had attributes which were not restored: "
                                 f"{[self._objects[k].name for k in missing]} (keys {missing}) are not in "
                                 f"checkpoint {self._save_path}")
        return self

    def assert_nontrivial_match(self):
        """AssertionError unless something besides the save counter matched."""
        if not [k for k in self._matched() if not k.startswith("save_counter/")]:
            raise AssertionError(f"Nothing except the root object matched a checkpointed value in "
                                 f"{self._save_path}. Typically this means that the checkpoint does not match the "
                                 f"Python program.")
        return self


class InitializationOnlyStatus(_Status):
    """``Checkpoint.restore(None)``: nothing to restore; ``initialize_or_restore`` initializes."""

    def run_restore_ops(self, session=None) -> None:
        return None

    def initialize_or_restore(self, session=None) -> None:
        session = _session(session)
        objects = self._checkpoint._objects()
        if objects:
            session.run([v.initializer for v in objects.values()])

    def assert_consumed(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed


@tf_export("train.CheckpointManager")
class CheckpointManager:
    """Numbered saves of one ``Checkpoint`` in ``directory``, keeping the ``max_to_keep`` newest."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None, init_fn=None):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager needs a tf.train.Checkpoint, got {checkpoint!r}")
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_every_s = None if keep_checkpoint_every_n_hours is None else keep_checkpoint_every_n_hours * 3600
        self._prefix = file_io.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_step = None
        state = checkpoint_management.get_checkpoint_state(self._directory)
        self._maybe_delete: dict = {}
        self._kept: list = []
        if state is not None:
            paths = list(state.all_model_checkpoint_paths)
            times = list(getattr(state, "all_model_checkpoint_timestamps", []) or [])
            times = times if len(times) == len(paths) else [time.time()] * len(paths)
            self._maybe_delete = dict(zip(paths, times))
        self._last_preserved = time.time()

    directory = property(lambda self: self._directory)
    checkpoint = property(lambda self: self._checkpoint)
    checkpoint_interval = property(lambda self: self._interval)

    @property
    def latest_checkpoint(self) -> str | None:
        return checkpoint_management.latest_checkpoint(self._directory)

    @property
    def checkpoints(self) -> list:
        """The kept checkpoints, oldest first."""
        return list(self._maybe_delete)

    def save(self, checkpoint_number=None, check_interval=True, options=None, session=None):
        """Saves ``<directory>/<checkpoint_name>-<n>`` (n: ``checkpoint_number``, else the save counter)
        and deletes the oldest beyond ``max_to_keep``; returns the path,
        or None when ``checkpoint_interval`` says it is too early."""
        session = _session(session)
        if self._interval is not None and check_interval:
            step = int(session.run(self._step_counter._as_graph_element()
                                   if hasattr(self._step_counter, "_as_graph_element") else self._step_counter))
            if self._last_step is not None and step < self._last_step + self._interval:
                return None
            self._last_step = step
        counter = self._checkpoint.save_counter
        if not session.run(_is_initialized(counter)):
            session.run(counter.initializer)
        n = int(session.run(counter.assign_add(1)))
        if checkpoint_number is not None:
            n = int(session.run(checkpoint_number) if not isinstance(checkpoint_number, (int, np.integer))
                    else checkpoint_number)
        path = self._checkpoint.write(f"{self._prefix}-{n}", session=session)
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._sweep()
        checkpoint_management.update_checkpoint_state_internal(
            self._directory, path, all_model_checkpoint_paths=list(self._maybe_delete), save_relative_paths=True)
        return path

    def _sweep(self) -> None:
        if self._max_to_keep is None:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            oldest, saved_at = next(iter(self._maybe_delete.items()))
            del self._maybe_delete[oldest]
            if self._keep_every_s is not None and saved_at - self._last_preserved >= self._keep_every_s:
                self._last_preserved = saved_at
                continue
            checkpoint_management.remove_checkpoint(oldest)

    def restore_or_initialize(self, session=None):
        """Restores the latest checkpoint (returns its path) or initializes (``init_fn`` or the
        objects' initializers) and returns None."""
        session = _session(session)
        latest = self.latest_checkpoint
        if latest is not None:
            self._checkpoint.restore(latest).initialize_or_restore(session)
            return latest
        if self._init_fn is not None:
            self._init_fn()
        else:
            self._checkpoint.restore(None).initialize_or_restore(session)
        return None
