"""Reading SavedModels: ``tf.saved_model.loader.load``, ``maybe_saved_model_directory``, and ``main_op``.

``load`` parses ``saved_model.pb`` (protocol buffer bytes; nothing is
executed), picks the meta graph whose tags equal ``tags``, rebuilds its graph
in ``sess.graph`` with ``tf.train.import_meta_graph``, restores the variables
from ``variables/variables`` and runs the main op (or legacy init op) with
the asset paths fed. It returns that meta graph: ``signature_def[key]``
gives the tensor names to feed and fetch.
"""

from __future__ import annotations

import logging
import os

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.graph import scope_prefix
from dflow.saved_model.builder import (
    LEGACY_INIT_OP_KEY,
    MAIN_OP_KEY,
    _local_dir,
    _remote,
    _tags,
    local_copy,
    variables_prefix,
)
from dflow.saved_model.proto import MetaGraphDef, SavedModel
from dflow.saved_model.signatures import FILES

_log = logging.getLogger("dflow")

_PB, _PBTXT = FILES["SAVED_MODEL_FILENAME_PB"], FILES["SAVED_MODEL_FILENAME_PBTXT"]


def parse_saved_model(export_dir) -> SavedModel:
    """The ``SavedModel`` message of ``export_dir`` (``OSError`` naming the file if missing or unreadable)."""
    from dflow.saved_model.text_format import parse as parse_text

    export_dir = local_copy(export_dir)
    path_pb, path_txt = os.path.join(export_dir, _PB), os.path.join(export_dir, _PBTXT)
    if os.path.isfile(path_pb):
        path, text = path_pb, False
    elif os.path.isfile(path_txt):
        path, text = path_txt, True
    else:
        raise OSError(f"SavedModel file does not exist at: {export_dir}{os.path.sep}{{{_PBTXT}|{_PB}}}")
    with open(path, "rb") as f:
        data = f.read()
    try:
        model = parse_text(data.decode("utf-8"), SavedModel) if text else SavedModel.FromString(data)
        for meta in model.meta_graphs:
            if not meta.dflow_meta_graph:
                raise ValueError("a meta graph holds no dflow graph (a SavedModel TensorFlow wrote? dflow reads "
                                 "the SavedModels dflow writes)")
            meta.dflow_graph()
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
        raise OSError(f"Cannot parse file {path}: {e}.") from None
    return model


def _meta_graph_for_tags(model: SavedModel, tags) -> MetaGraphDef:
    wanted = set(_tags(tags))
    available = []
    for meta in model.meta_graphs:
        have = set(meta.meta_info_def.tags)
        available.append(have)
        if have == wanted:
            return meta
    shown = str([tags] if isinstance(tags, str) else list(tags)).strip("[]")
    raise RuntimeError(f"MetaGraphDef associated with tags {shown} "
                       f"could not be found in SavedModel, with available tags '{available}'. To inspect available "
                       f"tag-sets in the SavedModel, please use the SavedModel CLI: `saved_model_cli`.")


def read_meta_graph(export_dir, tags) -> MetaGraphDef:
    """The ``MetaGraphDef`` tagged ``tags`` of the SavedModel at ``export_dir``, read without a session.

    Its ``signature_def`` is what a server needs to parse requests before a
    replica elsewhere runs them; nothing is imported and no variable is read.
    """
    return _meta_graph_for_tags(parse_saved_model(export_dir), tags)


def _check_variables(prefix: str) -> None:
    from dflow.train.checkpoints import checkpoint_format

    for path in (checkpoint_format.index_filename(prefix), checkpoint_format.data_filename(prefix)):
        if not os.path.isfile(path):
            raise errors.NotFoundError(None, None, f"SavedModel variables file does not exist at: {path} (the "
                                                   f"SavedModel's meta graph has variables to restore).")


def _collection_op(graph, dflow_meta, key: str, prefix: str):
    items = dflow_meta.collection_def.get(key) or []
    names = [item.get("op") or item.get("tensor") for item in items]
    if len(names) > 1:
        raise RuntimeError(f"Expected exactly one SavedModel init op. Found {len(names)}: {names}.")
    return graph.as_graph_element(prefix + names[0]) if names else None


@tf_export("saved_model.loader.load", "saved_model.load")
def load(sess, tags, export_dir, import_scope=None, **saver_kwargs) -> MetaGraphDef:
    """Loads the meta graph tagged ``tags`` of the SavedModel at ``export_dir`` into ``sess``.

    Returns the ``MetaGraphDef`` (``signature_def``, ``meta_info_def.tags``,
    ``asset_file_def``); tensor names get the prefix ``import_scope/``.
    """
    from dflow.train.meta_graph import import_meta_graph

    export_dir = local_copy(export_dir)
    meta = _meta_graph_for_tags(parse_saved_model(export_dir), tags)
    dflow_meta = meta.dflow_graph()
    graph = sess.graph
    with graph.as_default():
        saver = import_meta_graph(dflow_meta, import_scope=import_scope, **saver_kwargs)
        prefix = scope_prefix(import_scope)
        if saver is not None and not getattr(saver, "_is_empty", False):
            prefix_path = variables_prefix(export_dir)
            _check_variables(prefix_path)
            saver.restore(sess, prefix_path)
        else:
            _log.info("The specified SavedModel has no variables; no checkpoints were restored.")
        feeds = {}
        for asset in meta.asset_file_def:
            tensor = graph.get_tensor_by_name(prefix + asset.tensor_info.name)
            path = os.path.join(export_dir, FILES["ASSETS_DIRECTORY"], asset.filename)
            if not os.path.isfile(path):
                raise errors.NotFoundError(None, None, f"SavedModel asset file does not exist at: {path}")
            feeds[tensor] = path
        init_op = _collection_op(graph, dflow_meta, MAIN_OP_KEY, prefix)
        if init_op is None:
            init_op = _collection_op(graph, dflow_meta, LEGACY_INIT_OP_KEY, prefix)
        if init_op is not None:
            sess.run(init_op, feed_dict=feeds)
    return meta


@tf_export("saved_model.loader.maybe_saved_model_directory", "saved_model.maybe_saved_model_directory",
           "saved_model.contains_saved_model")
def maybe_saved_model_directory(export_dir) -> bool:
    """Whether ``export_dir`` holds a ``saved_model.pb`` or ``saved_model.pbtxt``."""
    export_dir = os.fspath(export_dir)
    if isinstance(export_dir, bytes):
        export_dir = export_dir.decode("utf-8")
    remote = _remote(export_dir)
    if remote is not None:
        fs, path = remote
        return any(fs.isfile(f"{path.rstrip('/')}/{name}") for name in (_PB, _PBTXT))
    return any(os.path.isfile(os.path.join(export_dir, name)) for name in (_PB, _PBTXT))


@tf_export("saved_model.main_op.main_op")
def main_op():
    """The default main op: initializes local variables and tables."""
    from dflow.ops.control_flow.control_flow_ops import group
    from dflow.ops.lookup.lookup_ops import tables_initializer
    from dflow.ops.state.variables import local_variables_initializer

    return group(local_variables_initializer(), tables_initializer())


@tf_export("saved_model.main_op.main_op_with_restore", "saved_model.main_op_with_restore")
def main_op_with_restore(restore_op_name):
    """``main_op()``, then the restore op named ``restore_op_name`` (a ``SaverDef.restore_op_name``)."""
    from dflow.framework.graph import control_dependencies, get_default_graph
    from dflow.ops.control_flow.control_flow_ops import group

    restore_op = get_default_graph().as_graph_element(restore_op_name)
    with control_dependencies([main_op()]):
        return group(restore_op)


@tf_export("saved_model.signature_def_utils.MethodNameUpdater")
class MethodNameUpdater:
    """Changes the method names of a SavedModel's signatures and writes ``saved_model.pb`` (or ``.pbtxt``) again.

    >>> updater = tf.saved_model.signature_def_utils.MethodNameUpdater(export_dir)   # doctest: +SKIP
    >>> updater.replace_method_name("serving_default", "tensorflow/serving/regress")   # doctest: +SKIP
    >>> updater.save()                                                              # doctest: +SKIP
    """

    def __init__(self, export_dir):
        self._export_dir = _local_dir(export_dir, "MethodNameUpdater")
        self._saved_model = parse_saved_model(self._export_dir)

    def replace_method_name(self, signature_key, method_name, tags=None) -> None:
        if not signature_key:
            raise ValueError("`signature_key` must be defined.")
        if not method_name:
            raise ValueError("`method_name` must be defined.")
        if tags is not None and not isinstance(tags, list):
            tags = [tags]
        found = False
        for meta in self._saved_model.meta_graphs:
            if tags is None or set(tags) == set(meta.meta_info_def.tags):
                if signature_key not in meta.signature_def:
                    raise ValueError(f"MetaGraphDef associated with tags {tags} does not have a signature_def with "
                                     f"key: '{signature_key}'. This means either you specified the wrong signature "
                                     f"key or forgot to put the signature_def with the corresponding key in your "
                                     f"SavedModel.")
                meta.signature_def[signature_key].method_name = method_name
                found = True
        if not found:
            raise ValueError(f"MetaGraphDef associated with tags {tags} could not be found in SavedModel. This means "
                             f"either you specified invalid tags or your SavedModel does not have a MetaGraphDef with "
                             f"the specified tags.")

    def save(self, new_export_dir=None) -> None:
        from dflow.framework.files.file_io import atomic_write_bytes

        text = os.path.isfile(os.path.join(self._export_dir, _PBTXT))
        target = _local_dir(new_export_dir, "MethodNameUpdater.save") if new_export_dir else self._export_dir
        os.makedirs(target, exist_ok=True)
        if text:
            atomic_write_bytes(os.path.join(target, _PBTXT), str(self._saved_model).encode("utf-8"))
        else:
            atomic_write_bytes(os.path.join(target, _PB), self._saved_model.SerializeToString(deterministic=True))


def _object_based_refused(name: str) -> NotImplementedError:
    return NotImplementedError(f"tf.saved_model.{name}: TF2's object-based SavedModel (tf.Module, tf.function "
                               f"signatures) is not part of dflow; use tf.saved_model.simple_save / "
                               f"builder.SavedModelBuilder and tf.saved_model.loader.load (TF1's SavedModel).")


@tf_export("saved_model.save")
def save(obj, export_dir, signatures=None, options=None):
    """TF2's object-based ``tf.saved_model.save``: raises ``NotImplementedError`` (use ``simple_save``)."""
    raise _object_based_refused("save")


@tf_export("saved_model.load_v2")
def load_v2(export_dir, tags=None, options=None):
    """TF2's object-based ``tf.saved_model.load``: raises ``NotImplementedError`` (use ``loader.load``)."""
    raise _object_based_refused("load_v2")
