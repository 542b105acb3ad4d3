"""Meta graphs: a graph with its collections and saver, reloadable without the code that built it.

``tf.train.export_meta_graph`` writes, and ``tf.train.import_meta_graph``
reads, one JSON document (never pickle)::

    {"format": "dflow-meta-graph", "version": 1,
     "meta_info_def": {"dflow_version": "0.1.0", "tags": [], "op_types": ["Add", ...]},
     "graph_def": {...},            # dflow.framework.graph_io
     "saver_def": {...} | null,     # dflow.train.checkpoints.saver.SaverDef
     "collection_def": {"variables": [{"variable": {...}}, ...],
                        "train_op": [{"op": "GradientDescent"}],
                        "my_numbers": [{"value": 3}]}}

A collection item is a variable (its ``VariableV2`` op, initializer, read
snapshot, initial value and ``trainable``, TF1's ``VariableDef``), a tensor
or op by name, a ``SaverDef`` (the ``savers`` collection), a ``QueueRunnerDef``
(the ``queue_runners`` collection: ``start_queue_runners`` works after an
import), or a JSON value (string, bytes, number, bool, None). A collection holding anything else is
skipped with a warning, as TF1 does. On import, each variable becomes one
``tf.Variable`` again, shared by every collection that held it, so
``tf.global_variables()``, ``tf.trainable_variables()``,
``tf.train.get_global_step()`` and the ``train_op`` collection work as they
did where the graph was built.

>>> import dflow as tf
>>> g = tf.Graph()
>>> with g.as_default():
...     v = tf.Variable(1.0, name="v")
>>> meta = tf.train.export_meta_graph(graph=g)
>>> with tf.Graph().as_default():
...     saver = tf.train.import_meta_graph(meta)
...     [x.name for x in tf.global_variables()]
['v:0']
"""

from __future__ import annotations

import logging
import os

from dflow._api import tf_export
from dflow.framework import graph_io
from dflow.framework.files import file_io
from dflow.framework.files.file_io import atomic_write_bytes
from dflow.framework.graph import Graph, Operation, Tensor, get_default_graph, scope_prefix, strip_name_scope
from dflow.platform.versions import DFLOW_VERSION

FORMAT = "dflow-meta-graph"
VERSION = 1

_log = logging.getLogger("dflow")


@tf_export("MetaGraphDef")
class MetaGraphDef:
    """A graph, its collections and a saver's ``SaverDef``: what ``.meta`` files hold.

    ``SerializeToString()`` gives the file's bytes and ``FromString`` reads them.
    """

    def __init__(self, meta_info_def: dict | None = None, graph_def=None, saver_def=None,
                 collection_def: dict | None = None):
        self.meta_info_def = dict(meta_info_def or {})
        self.graph_def = graph_def if graph_def is not None else graph_io.GraphDef()
        self.saver_def = saver_def
        self.collection_def = dict(collection_def or {})

    def HasField(self, name: str) -> bool:  # noqa: N802 - protobuf name
        return getattr(self, name, None) is not None

    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "meta_info_def": self.meta_info_def,
                "graph_def": self.graph_def.to_dict(),
                "saver_def": None if self.saver_def is None else self.saver_def.to_dict(),
                "collection_def": self.collection_def}

    @classmethod
    def from_dict(cls, doc: dict) -> MetaGraphDef:
        from dflow.train.checkpoints.saver import SaverDef

        graph_io.check_format(doc, FORMAT, "meta graph", VERSION)
        graph_def = graph_io.GraphDef(doc["graph_def"])
        graph_io.check_format(graph_def.to_dict(), graph_io.FORMAT, "graph")
        saver_def = None if doc.get("saver_def") is None else SaverDef.from_dict(doc["saver_def"])
        return cls(doc.get("meta_info_def"), graph_def, saver_def, doc.get("collection_def"))

    def SerializeToString(self) -> bytes:  # noqa: N802 - protobuf name
        return graph_io.dumps(self.to_dict())

    @classmethod
    def FromString(cls, data: bytes) -> MetaGraphDef:  # noqa: N802 - protobuf name
        return cls.from_dict(graph_io.loads(data, "meta graph"))

    def __str__(self):
        return graph_io.dumps(self.to_dict(), as_text=True).decode("utf-8")

    def __repr__(self):
        return (f"<MetaGraphDef: {len(self.graph_def.to_dict()['ops'])} ops, collections "
                f"{sorted(self.collection_def)}>")


# -- collections ------------------------------------------------------------------------------


class _Unsupported(Exception):
    pass


def _encode_collection(items: list, graph: Graph, rename, in_scope) -> list:
    from dflow.ops.state.variables import Variable
    from dflow.train.checkpoints.saver import Saver
    from dflow.train.queue_runner import QueueRunner

    out = []
    for item in items:
        if isinstance(item, Variable):
            if item.graph is not graph or not in_scope(item.op.name):
                continue
            rec = {"variable_name": rename(item.name), "initializer_name": rename(item.initializer.name),
                   "snapshot_name": rename(item.value().name), "initial_value_name": rename(item.initial_value.name),
                   "trainable": bool(item.trainable)}
            info = item._save_slice_info
            if info is not None:  # a part of a partitioned variable (TF1's SaveSliceInfoDef)
                rec["save_slice_info"] = {"full_name": rename(info.full_name), "spec": info.spec}
            out.append({"variable": rec})
        elif isinstance(item, (Tensor, Operation)):
            if item.graph is not graph or not in_scope(item.name):
                continue
            out.append({"tensor" if isinstance(item, Tensor) else "op": rename(item.name)})
        elif isinstance(item, Saver):
            if item.saver_def is not None and item._graph is graph:
                out.append({"saver_def": item.saver_def.renamed(rename).to_dict()})
        elif isinstance(item, QueueRunner):
            if item.close_op.graph is graph and in_scope(item.name):
                out.append({"queue_runner_def": item.to_proto().renamed(rename).to_dict()})
        elif item is None or isinstance(item, (bool, int, float, str, bytes)):
            out.append({"value": graph_io._Encoder(graph).value(item)})
        else:
            raise _Unsupported(type(item).__name__)
    return out


def _decode_collections(collection_def: dict, importer, graph: Graph) -> None:
    from dflow.ops.state.partitioned_variables import SaveSliceInfo
    from dflow.ops.state.variables import Variable
    from dflow.train.checkpoints.saver import SaverDef
    from dflow.train.queue_runner import QueueRunner, QueueRunnerDef

    variables: dict = {}
    decoder = graph_io.Importer(graph)
    for key, items in collection_def.items():
        for item in items:
            if "variable" in item:
                rec = item["variable"]
                v = variables.get(rec["variable_name"])
                if v is None:
                    v = variables[rec["variable_name"]] = Variable._from_graph(
                        importer.tensor(rec["variable_name"]).op, importer.op(rec["initializer_name"]),
                        importer.tensor(rec["snapshot_name"]), importer.tensor(rec["initial_value_name"]),
                        rec["trainable"])
                    if "save_slice_info" in rec:
                        info = rec["save_slice_info"]
                        v._save_slice_info = SaveSliceInfo.from_spec(importer.new_name(info["full_name"]),
                                                                     info["spec"])
                value = v
            elif "tensor" in item:
                value = importer.tensor(item["tensor"])
            elif "op" in item:
                value = importer.op(item["op"])
            elif "saver_def" in item:
                from dflow.train.checkpoints.saver import Saver

                value = Saver(saver_def=SaverDef.from_dict(item["saver_def"]).renamed(importer.new_name))
            elif "queue_runner_def" in item:
                with graph.as_default():
                    value = QueueRunner(queue_runner_def=QueueRunnerDef.from_dict(item["queue_runner_def"]).renamed(
                        importer.new_name))
            elif "value" in item:
                value = decoder.value(item["value"])
            else:
                raise ValueError(f"Unknown item in collection {key!r} of the meta graph: {sorted(item)}")
            graph.add_to_collection(key, value)


# -- export and import -----------------------------------------------------------------------


@tf_export("train.export_meta_graph")
def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None, collection_list=None,
                      as_text=False, graph=None, export_scope=None, clear_devices=False,
                      clear_extraneous_savers=False, strip_default_attrs=False, save_debug_info=False,
                      **kwargs) -> MetaGraphDef:
    """The ``MetaGraphDef`` of ``graph`` (default: the default graph), also written to ``filename``.

    Collections: ``collection_list`` or all of them. Only ops under
    ``export_scope`` are exported, with the scope stripped from their names.
    ``as_text`` indents the JSON. ``clear_extraneous_savers``,
    ``strip_default_attrs`` and ``save_debug_info`` are accepted and ignored.
    """
    graph = graph or get_default_graph()
    scope = scope_prefix(export_scope)
    rename = lambda n: strip_name_scope(n, export_scope)  # noqa: E731
    in_scope = lambda n: n.startswith(scope)  # noqa: E731 - every name starts with ""
    if graph_def is None:
        graph_def = graph_io.GraphDef(graph_io.graph_to_dict(graph, clear_devices=clear_devices,
                                                             export_scope=export_scope))
    elif isinstance(graph_def, (bytes, str)):
        graph_def = graph_io.GraphDef.FromString(graph_def)
    collection_def = {}
    keys = graph.get_all_collection_keys() if collection_list is None else list(collection_list)
    for key in keys:
        if not isinstance(key, str):
            _log.warning("Collection key %r is not a string: not exported to the meta graph.", key)
            continue
        try:
            items = _encode_collection(graph.get_collection(key), graph, rename, in_scope)
        except _Unsupported as e:
            _log.warning("Collection %r holds a %s, which a meta graph cannot store: not exported.", key, e)
            continue
        if items:
            collection_def[key] = items
    info = {"dflow_version": DFLOW_VERSION, "tags": [],
            "op_types": sorted({n.op for n in graph_def.node})}
    info.update(meta_info_def or {})
    if saver_def is not None and scope:
        saver_def = saver_def.renamed(rename)
    meta = MetaGraphDef(info, graph_def, saver_def, collection_def)
    if filename:
        filename = os.fspath(filename)
        directory = os.path.dirname(filename)
        if directory:
            file_io.makedirs(directory)
        atomic_write_bytes(filename, graph_io.dumps(meta.to_dict(), as_text=as_text))
    return meta


@tf_export("train.read_meta_graph_file")
def read_meta_graph_file(filename) -> MetaGraphDef:
    """Reads a ``.meta`` file written by dflow (``IOError`` if missing or unreadable)."""
    filename = os.fspath(filename)
    if not file_io.is_file(filename):
        raise OSError(f"File {filename} does not exist.")
    with file_io.open_file(filename, "rb") as f:
        data = f.read()
    try:
        return MetaGraphDef.FromString(data)
    except (ValueError, KeyError, TypeError) as e:
        raise OSError(f"Cannot parse file {filename}: {e} (dflow reads meta graphs that dflow wrote).") from None


def _check_importable(meta: MetaGraphDef, filename: str) -> None:
    """Imports a meta graph read from a file into a scratch graph first, so that a corrupt file is an
    ``IOError`` naming it (as TF's "Cannot parse file") and leaves the default graph untouched."""
    import binascii

    from dflow.framework.graph import Graph

    scratch = Graph()
    try:
        with scratch.as_default():
            importer = graph_io.import_graph(meta.graph_def.to_dict(), scratch, "")
            _decode_collections(meta.collection_def, importer, scratch)
    except (KeyError, TypeError, IndexError, AttributeError, binascii.Error, UnicodeDecodeError) as e:
        raise OSError(f"Cannot parse file {filename}: the meta graph is corrupt ({type(e).__name__}: {e}).") \
            from None


@tf_export("train.import_meta_graph")
def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Rebuilds a meta graph's ops and collections in the default graph; returns a ``Saver``.

    The saver is the one recorded in the meta graph (its ``SaverDef``), else
    a default ``Saver()`` if the graph has variables, else None. Names get
    the prefix ``import_scope/`` if given; ``clear_devices`` drops the
    recorded device requests; ``input_map`` (a keyword) replaces tensors of
    the meta graph by tensors of this graph.
    """
    from dflow.train.checkpoints.saver import Saver, _default_var_list

    if isinstance(meta_graph_or_file, MetaGraphDef):
        meta = meta_graph_or_file
    elif isinstance(meta_graph_or_file, dict):
        meta = MetaGraphDef.from_dict(meta_graph_or_file)
    elif hasattr(meta_graph_or_file, "dflow_graph"):  # a SavedModel's meta graph (tf.saved_model.loader.load)
        meta = meta_graph_or_file.dflow_graph()
    else:
        meta = read_meta_graph_file(meta_graph_or_file)
        _check_importable(meta, os.fspath(meta_graph_or_file))
    graph = get_default_graph()
    input_map = {}
    for key, t in (kwargs.pop("input_map", None) or {}).items():
        input_map[key if ":" in key else f"{key}:0"] = t
    if import_scope:
        with graph.name_scope(import_scope) as prefix:
            pass
    else:
        prefix = ""
    what = meta_graph_or_file if isinstance(meta_graph_or_file, (str, os.PathLike)) else "the meta graph"
    try:
        importer = graph_io.import_graph(meta.graph_def.to_dict(), graph, prefix, clear_devices=clear_devices,
                                         input_map=input_map)
        _decode_collections(meta.collection_def, importer, graph)
        saver_def = meta.saver_def.renamed(importer.new_name) if meta.saver_def is not None else None
    except (TypeError, KeyError, AttributeError, IndexError) as e:
        # A file is input: JSON of the wrong shape (crafted, or not dflow's) is a clear error, never
        # a Python error from deep inside the importer.
        raise ValueError(f"Cannot import {what}: it is malformed ({type(e).__name__}: {e}); dflow imports "
                         f"meta graphs that dflow wrote.") from None
    if saver_def is not None:
        return Saver(saver_def=saver_def)
    if _default_var_list(graph):
        return Saver()
    _log.info("Saver not created because there are no variables in the graph to restore")
    return None
