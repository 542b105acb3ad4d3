"""Writing SavedModels: ``tf.saved_model.builder.SavedModelBuilder`` and ``tf.saved_model.simple_save``.

The layout is TensorFlow's::

    export_dir/saved_model.pb          # or saved_model.pbtxt (as_text=True)
    export_dir/variables/variables.index
    export_dir/variables/variables.data-00000-of-00001
    export_dir/assets/...              # files of the assets collection

``saved_model.pb`` is a ``SavedModel`` protocol buffer (``proto.SavedModel``)
whose meta graphs carry TensorFlow's tags, signatures and asset records and
dflow's meta graph (JSON, never pickle). The checkpoint is dflow's (the one
``tf.train.Saver`` writes). Everything is written into a temporary sibling
directory and renamed onto ``export_dir`` by ``save()``, so a reader never
sees half a SavedModel.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref

from dflow._api import tf_export
from dflow.framework.files import file_io
from dflow.framework.graph import Operation, Tensor, get_default_graph
from dflow.saved_model.proto import AssetFileDef, MetaGraphDef, SavedModel, SignatureDef
from dflow.saved_model.signatures import FILES, SERVING, build_tensor_info, predict_signature_def

MAIN_OP_KEY = FILES["MAIN_OP_KEY"]
LEGACY_INIT_OP_KEY = FILES["LEGACY_INIT_OP_KEY"]
ASSETS_KEY = FILES["ASSETS_KEY"]
INIT_OP_SIGNATURE_KEY = "__saved_model_init_op"
TRAIN_OP_SIGNATURE_KEY = "__saved_model_train_op"


def _local_dir(path, what: str) -> str:
    path = os.fspath(path)
    if not file_io.is_local(path):
        raise NotImplementedError(f"{what}: edits SavedModels on local file systems only, got {path!r}.")
    return file_io.local_path(path)


def _remote(path):
    """``(fsspec file system, its path)`` for a directory on another file system (``s3://``,
    ``gs://``, ``memory://``, ...), else None."""
    path = os.fspath(path)
    return None if file_io.is_local(path) else file_io.split_path(path)


def local_copy(export_dir) -> str:
    """A local directory holding the SavedModel at ``export_dir``: the directory itself when it is
    local, else a copy downloaded into a new temporary directory (kept: the loaded graph may
    read its assets)."""
    remote = _remote(export_dir)
    if remote is None:
        return file_io.local_path(os.fspath(export_dir))
    fs, path = remote
    if not fs.isdir(path):
        raise OSError(f"SavedModel file does not exist at: {os.fspath(export_dir)}")
    target = tempfile.mkdtemp(prefix="dflow-saved-model-")
    fs.get(path.rstrip("/") + "/", target + "/", recursive=True)
    return target


def _not_empty(export_dir) -> AssertionError:
    return AssertionError(f"Export directory {export_dir} already exists, and isn't empty. Please choose a "
                          f"different export directory, or delete all the contents of the specified directory.")


def variables_prefix(export_dir: str) -> str:
    return os.path.join(export_dir, FILES["VARIABLES_DIRECTORY"], FILES["VARIABLES_FILENAME"])


def _validate_tensor_info(info) -> None:
    if info is None:
        raise AssertionError("All TensorInfo protos used in the SignatureDefs must have the name and dtype fields set.")
    if info.WhichOneof("encoding") is None:
        raise AssertionError(f"Invalid `tensor_info`: {info}. All TensorInfo protos used in the SignatureDefs must "
                             f"have one of the 'encoding' fields (e.g., name or coo_sparse) set.")
    if not info.dtype:
        raise AssertionError(f"Invalid `tensor_info`: {info}. All TensorInfo protos used in the SignatureDefs must "
                             f"have the dtype field set.")


def _validate_signature_def_map(signature_def_map: dict) -> None:
    for key, sig in signature_def_map.items():
        if not isinstance(sig, SignatureDef):
            raise TypeError(f"signature_def_map[{key!r}] must be a SignatureDef (tf.saved_model."
                            f"signature_def_utils.build_signature_def), got {type(sig).__name__}.")
        for info in list(sig.inputs.values()) + list(sig.outputs.values()):
            _validate_tensor_info(info)
    for key, what in ((INIT_OP_SIGNATURE_KEY, "initialization"), (TRAIN_OP_SIGNATURE_KEY, "the train op")):
        if key in signature_def_map:
            raise KeyError(f"SignatureDef map key \"{key}\" is reserved for {what}. Please use a different key.")


def _tags(tags) -> list:
    if isinstance(tags, (str, bytes)):
        tags = [tags]
    return [t.decode("utf-8") if isinstance(t, bytes) else str(t) for t in (tags or [])]


def _asset_path(tensor) -> str:
    from dflow.framework import dtypes
    from dflow.framework.op_registry import constant_value

    if not isinstance(tensor, Tensor):
        raise TypeError(f"Asset path tensor {tensor} must be a Tensor.")
    if tensor.dtype != dtypes.string:
        raise TypeError(f"Asset path tensor {tensor}` must be of dtype string.")
    value = constant_value(tensor)
    if value is None or tensor.op.type != "Const":
        raise TypeError(f"Asset path tensor {tensor} must be of type constant.")
    if getattr(value, "ndim", 0) != 0:
        raise TypeError(f"Asset path tensor {tensor} must be a scalar.")
    value = value.item() if hasattr(value, "item") else value
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


@tf_export("saved_model.Builder", "saved_model.builder.SavedModelBuilder")
class SavedModelBuilder:
    """Builds a SavedModel: one meta graph with the variables, then more meta graphs sharing them.

    >>> builder = tf.saved_model.builder.SavedModelBuilder(export_dir)      # doctest: +SKIP
    >>> builder.add_meta_graph_and_variables(sess, [tf.saved_model.tag_constants.SERVING],
    ...     signature_def_map={"serving_default": sig})                      # doctest: +SKIP
    >>> builder.save()                                                       # doctest: +SKIP
    """

    def __init__(self, export_dir):
        # On another file system the SavedModel is built in a local directory and uploaded by save().
        remote = _remote(export_dir)
        self._upload = None
        if remote is not None:
            fs, path = remote
            if fs.exists(path) and (not fs.isdir(path) or fs.ls(path)):
                raise _not_empty(export_dir)
            self._upload = (fs, path, os.fspath(export_dir))
            export_dir = os.path.join(tempfile.mkdtemp(prefix="dflow-saved-model-"), "export")
        self._export_dir = file_io.local_path(os.fspath(export_dir))
        if os.path.exists(self._export_dir) and (not os.path.isdir(self._export_dir)
                                                 or os.listdir(self._export_dir)):
            raise _not_empty(export_dir)
        self._saved_model = SavedModel(saved_model_schema_version=FILES["SAVED_MODEL_SCHEMA_VERSION"])
        self._has_saved_variables = False
        self._staging = None

    def _stage(self) -> str:
        if self._staging is None:
            parent = os.path.dirname(os.path.abspath(self._export_dir))
            os.makedirs(parent, exist_ok=True)
            self._staging = tempfile.mkdtemp(prefix=f".{os.path.basename(self._export_dir)}.tmp-", dir=parent)
            # a builder dropped before save() leaves nothing behind
            self._cleanup = weakref.finalize(self, shutil.rmtree, self._staging, True)
        return self._staging

    # -- meta graphs -------------------------------------------------------------------------------------------
    def _add_init_op(self, graph, main_op, legacy_init_op) -> None:
        for key, op in ((MAIN_OP_KEY, main_op), (LEGACY_INIT_OP_KEY, legacy_init_op)):
            if op is None:
                continue
            if isinstance(op, Tensor):
                op = op.op
            if not isinstance(op, Operation):
                raise TypeError(f"Expected {op} to be an Operation but got type {type(op)} instead.")
            for init_key in (MAIN_OP_KEY, LEGACY_INIT_OP_KEY):
                existing = graph.get_collection(init_key)
                if existing and existing != [op]:
                    raise ValueError(f"Graph already contains one or more main ops under the collection "
                                     f"{init_key}.")
            if op not in graph.get_collection(key):
                graph.add_to_collection(key, op)

    def _add_assets(self, graph, assets_collection, meta: MetaGraphDef) -> None:
        if assets_collection is None:
            return
        assets_dir = os.path.join(self._stage(), FILES["ASSETS_DIRECTORY"])
        for tensor in assets_collection:
            source = _asset_path(tensor)
            if not os.path.isfile(source):
                raise ValueError(f"Asset filepath tensor {tensor} in is invalid: no file {source!r}.")
            filename = os.path.basename(source)
            os.makedirs(assets_dir, exist_ok=True)
            target = os.path.join(assets_dir, filename)
            if not os.path.exists(target):
                shutil.copyfile(source, target)
            meta.asset_file_def.append(AssetFileDef(tensor_info=build_tensor_info(tensor), filename=filename))
            if tensor not in graph.get_collection(ASSETS_KEY):
                graph.add_to_collection(ASSETS_KEY, tensor)

    def _add_meta_graph(self, graph, tags, signature_def_map, assets_collection, legacy_init_op, main_op,
                        clear_devices, strip_default_attrs, saver) -> None:
        from dflow.train.meta_graph import export_meta_graph

        signature_def_map = dict(signature_def_map or {})
        _validate_signature_def_map(signature_def_map)
        meta = MetaGraphDef()
        meta.meta_info_def.meta_graph_version = ""
        meta.meta_info_def.tags.extend(_tags(tags))
        meta.meta_info_def.stripped_default_attrs = bool(strip_default_attrs)
        with graph.as_default():
            self._add_init_op(graph, main_op, legacy_init_op)
            self._add_assets(graph, assets_collection, meta)
            saver_def = None if saver is None else saver.as_saver_def()
            dflow_meta = export_meta_graph(graph=graph, saver_def=saver_def, clear_devices=clear_devices,
                                           meta_info_def={"tags": _tags(tags)})
        for key, sig in signature_def_map.items():
            meta.signature_def[key].CopyFrom(sig)
        meta.dflow_meta_graph = dflow_meta.SerializeToString()
        self._saved_model.meta_graphs.append(meta)

    @staticmethod
    def _saver(graph, saver):
        from dflow.train.checkpoints.saver import Saver

        if saver is not None:
            return saver
        with graph.as_default():
            return Saver(sharded=True, allow_empty=True)

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None, assets_collection=None,
                                     legacy_init_op=None, clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None, **kwargs):
        """Saves ``sess``'s variables and adds the first meta graph, under ``tags``."""
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already been saved. Please invoke "
                                 "`add_meta_graph()` instead.")
        _validate_signature_def_map(dict(signature_def_map or {}))
        graph = sess.graph
        saver = self._saver(graph, saver)
        variables_dir = os.path.join(self._stage(), FILES["VARIABLES_DIRECTORY"])
        os.makedirs(variables_dir, exist_ok=True)
        saver.save(sess, variables_prefix(self._stage()), write_meta_graph=False, write_state=False)
        self._add_meta_graph(graph, tags, signature_def_map, assets_collection, legacy_init_op, main_op,
                             clear_devices, strip_default_attrs, saver)
        self._has_saved_variables = True

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None, legacy_init_op=None,
                       clear_devices=False, main_op=None, strip_default_attrs=False, saver=None, **kwargs):
        """Adds another meta graph (of the default graph), sharing the variables already saved."""
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been saved yet. Please invoke "
                                 "`add_meta_graph_and_variables()` first.")
        graph = get_default_graph()
        self._add_meta_graph(graph, tags, signature_def_map, assets_collection, legacy_init_op, main_op,
                             clear_devices, strip_default_attrs, self._saver(graph, saver))

    def save(self, as_text=False) -> bytes:
        """Writes ``saved_model.pb`` (``saved_model.pbtxt`` with ``as_text``) and moves the SavedModel into place.

        Returns the path of the file written, as bytes (as TF does).
        """
        staging = self._stage()
        if as_text:
            name = FILES["SAVED_MODEL_FILENAME_PBTXT"]
            data = str(self._saved_model).encode("utf-8")
        else:
            name = FILES["SAVED_MODEL_FILENAME_PB"]
            data = self._saved_model.SerializeToString(deterministic=True)
        with open(os.path.join(staging, name), "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if os.path.isdir(self._export_dir) and os.listdir(self._export_dir):
            raise _not_empty(self._export_dir)
        os.replace(staging, self._export_dir)  # an empty export_dir is replaced, as rename(2) does
        self._cleanup.detach()
        file_io.fsync_directory(os.path.dirname(os.path.abspath(self._export_dir)))
        self._staging = None
        if self._upload is not None:
            fs, remote_path, url = self._upload
            if fs.exists(remote_path) and fs.ls(remote_path):
                raise _not_empty(url)
            fs.put(self._export_dir.rstrip("/") + "/", remote_path.rstrip("/") + "/", recursive=True)
            shutil.rmtree(os.path.dirname(self._export_dir), ignore_errors=True)
            return f"{url.rstrip('/')}/{name}".encode()
        path = os.path.join(self._export_dir, name)
        return path.encode("utf-8")


@tf_export("saved_model.simple_save")
def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None) -> None:
    """Saves ``session``'s graph and variables as a SavedModel for serving.

    One meta graph tagged ``serve`` with the predict signature
    ``serving_default`` of ``inputs`` and ``outputs`` (``{key: tensor}``).
    """
    signature_def_map = {"serving_default": predict_signature_def(inputs, outputs)}
    builder = SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(session, tags=[SERVING], signature_def_map=signature_def_map,
                                         assets_collection=session.graph.get_collection("asset_filepaths"),
                                         main_op=legacy_init_op, clear_devices=True)
    builder.save()
