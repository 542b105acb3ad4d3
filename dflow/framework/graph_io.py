"""Graphs as TF's ``GraphDef``: ``Graph.as_graph_def``, ``tf.import_graph_def``, ``tf.train.write_graph``.

The records a graph is written as (JSON, never pickle), and how they are encoded and imported, are
``graph_records``'s; this module shows them as TF's protocol buffers and reads and writes graph files.

``GraphDef.node`` shows the records as TF's ``tf.NodeDef`` protocol buffers
(attrs as ``tf.AttrValue``): nodes can be edited, removed, or built by hand
and added, as TF1 code does before ``tf.import_graph_def``. An edited or new
node imports from its fields (its output specs inferred, TF attrs that the
op's kernel does not take dropped); an unedited one imports as its record.

>>> import dflow as tf
>>> g = tf.Graph()
>>> with g.as_default():
...     _ = tf.constant([1.0, 2.0], name="c") * 2.0
>>> [n.name for n in g.as_graph_def().node]
['c', 'mul/y', 'mul']
"""

from __future__ import annotations

import copy
import json
import os

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes as _dtypes
from dflow.framework.files.file_io import atomic_write_bytes, join, makedirs
from dflow.framework.graph import Graph, Operation, Tensor, get_default_graph
from dflow.framework.graph_records import (  # noqa: F401 - graph_io's names, as before the split
    _TF_DEFAULT_ATTRS,
    FORMAT,
    VERSION,
    Importer,
    UnserializableGraphError,
    _Encoder,
    _in_dependency_order,
    _op_name,
    check_format,
    graph_to_dict,
    import_graph,
)
from dflow.framework.tensor_shape import TensorShape

# -- GraphDef -------------------------------------------------------------------------------


# -- NodeDef: dflow's records as TF's protocol buffer ------------------------------------------------
# A record's attrs that have an ``AttrValue`` form (dtypes, numbers, strings, shapes, arrays and lists of
# them) appear in its NodeDef's ``attr``; the others (references to ops, sub-graphs, Python tuples of
# mixed values, ...) stay in the record the NodeDef remembers. A NodeDef that is not edited imports
# as its record did; an edited one imports from its fields, and a node built with ``tf.NodeDef(...)``
# imports from its fields alone, its output shapes inferred.

_REFERENCE_TAGS = ("$op", "$tensor", "$graph", "$graph_ref", "$opname")  # kept in the record, not in ``attr``


def _shape_proto(shape: TensorShape):
    from dflow.framework.tensor import TensorShapeProto

    if shape.ndims is None:
        return TensorShapeProto(unknown_rank=True)
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=-1 if d is None else d) for d in shape.as_list()])


def _scalar_attr_value(value):
    """The ``AttrValue`` of a single value, or None when it has none."""
    from dflow.framework.tensor import AttrValue

    if isinstance(value, _dtypes.DType):
        return AttrValue(type=value.as_datatype_enum)
    if isinstance(value, (bool, np.bool_)):
        return AttrValue(b=bool(value))
    if isinstance(value, (int, np.integer)):
        return AttrValue(i=int(value)) if -(1 << 63) <= int(value) < (1 << 63) else None
    if isinstance(value, (float, np.floating)):
        return AttrValue(f=float(value))
    if isinstance(value, str):
        return AttrValue(s=value.encode("utf-8"))
    if isinstance(value, bytes):
        return AttrValue(s=value)
    if isinstance(value, TensorShape):
        return AttrValue(shape=_shape_proto(value))
    if isinstance(value, np.ndarray):
        from dflow.framework.tensor_util import make_tensor_proto

        try:
            return AttrValue(tensor=make_tensor_proto(value))
        except (TypeError, ValueError):
            return None
    return None


def attr_value_of(value):
    """The ``AttrValue`` TF would hold for the attr ``value`` of a dflow op, or None when it has no such form."""
    from dflow.framework.tensor import AttrValue

    if not isinstance(value, (list, tuple)):
        return _scalar_attr_value(value)
    items = [_scalar_attr_value(v) for v in value]
    if any(av is None for av in items):
        return None
    kinds = {av.WhichOneof("value") for av in items}
    if kinds == {"i", "f"}:
        kinds, items = {"f"}, [AttrValue(f=float(av.i)) if av.WhichOneof("value") == "i" else av for av in items]
    if len(kinds) > 1:
        return None
    out = AttrValue(list=AttrValue.ListValue())
    if items:
        kind = kinds.pop()
        getattr(out.list, kind).extend(getattr(av, kind) for av in items)
    return out


def _dtype_of_enum(enum: int):
    return _dtypes.as_dtype(enum - 100 if enum > 100 else enum)  # a reference dtype (DT_FLOAT_REF) is its base


def _tensor_shape_of(proto) -> TensorShape:
    if proto.unknown_rank:
        return TensorShape(None)
    return TensorShape([None if d.size < 0 else d.size for d in proto.dim])


def _list_values(lv) -> list:
    from dflow.framework.tensor_util import make_ndarray

    convert = {"s": _string_of, "i": int, "f": float, "b": bool, "type": _dtype_of_enum, "shape": _tensor_shape_of,
               "tensor": make_ndarray}
    for kind, fn in convert.items():
        values = getattr(lv, kind)
        if values:
            return [fn(v) for v in values]
    if lv.func:
        raise NotImplementedError("function-valued attrs (NameAttrList) cannot be imported: dflow's ops take "
                                  "their functions as traced sub-graphs, not by name")
    return []


def _string_of(data: bytes):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return bytes(data)


def value_of_attr(attr_value, node_name: str = "", key: str = ""):
    """The Python value dflow's ops take for an ``AttrValue`` (a DType, int, float, bool, str, TensorShape,
    numpy array, or a list of them)."""
    from dflow.framework.tensor_util import make_ndarray

    kind = attr_value.WhichOneof("value")
    if kind is None:
        return None
    if kind in ("func", "placeholder"):
        raise NotImplementedError(f"Attr '{key}' of node '{node_name}' is a {kind} attr: dflow imports no "
                                  f"function-valued or placeholder attrs (its ops take traced sub-graphs).")
    try:
        if kind == "list":
            return _list_values(attr_value.list)
    except NotImplementedError as e:
        raise NotImplementedError(f"Attr '{key}' of node '{node_name}': {e}") from None
    value = getattr(attr_value, kind)
    return {"s": _string_of, "i": int, "f": float, "b": bool, "type": _dtype_of_enum, "shape": _tensor_shape_of,
            "tensor": make_ndarray}[kind](value)


def _has_reference(enc) -> bool:
    if isinstance(enc, dict):
        return any(tag in enc for tag in _REFERENCE_TAGS) or any(_has_reference(v) for v in enc.values())
    if isinstance(enc, list):
        return any(_has_reference(v) for v in enc)
    return False


def _attr_value_of_encoded(enc):
    if _has_reference(enc):
        return None
    return attr_value_of(Importer(None).value(enc))


def _node_input(tensor_name: str) -> str:
    return tensor_name[:-2] if tensor_name.endswith(":0") else tensor_name


def _colocation_attr(groups):
    from dflow.framework.tensor import AttrValue

    return AttrValue(list=AttrValue.ListValue(s=[f"loc:@{g}".encode() for g in groups]))


def node_def_of_record(rec: dict):
    """The ``NodeDef`` of an op record of a graph's JSON document; it remembers the record."""
    from dflow.framework.tensor import NodeDef

    node = NodeDef(name=rec["name"], op=rec["type"], device=rec.get("device") or "")
    node.input.extend([_node_input(i) for i in rec["inputs"]] + [f"^{c}" for c in rec.get("control_inputs", ())])
    snapshot = {}
    attrs = [(k, _attr_value_of_encoded(enc)) for k, enc in rec.get("attrs", {}).items()]
    if rec.get("colocation"):
        attrs.append(("_class", _colocation_attr(rec["colocation"])))
    for key, av in attrs:
        if av is not None:
            node.attr._merge(key, av)
            snapshot[key] = av.SerializeToString()
    node._set_dflow((rec, node.SerializeToString(), snapshot))
    return node


def node_def_of_operation(op: Operation):
    """``op.node_def``: the ``NodeDef`` of an operation (its attrs that have an ``AttrValue`` form)."""
    from dflow.framework.tensor import NodeDef

    node = NodeDef(name=op.name, op=op.type, device=op.device)
    node.input.extend([t._as_node_def_input() for t in op._inputs] + [f"^{c.name}" for c in op._control_inputs])
    for key, value in op._attrs.items():
        av = attr_value_of(value)
        if av is not None:
            node.attr._merge(key, av)
    if op._colocation_groups:
        node.attr._merge("_class", _colocation_attr(op._colocation_groups))
    return node


def record_of_node_def(node) -> dict:
    """The op record of a ``NodeDef``: the remembered one while the node is unedited, else one from its fields
    (without output specs: ``import_graph_def`` infers them)."""
    source = node._dflow
    if source is not None and node.SerializeToString() == source[1]:
        return source[0]
    rec, snapshot = (source[0], source[2]) if source is not None else (None, {})
    encoder = _Encoder(None)
    attrs = {}
    for key, av in node.attr.items():
        if key == "_class":
            continue
        if rec is not None and snapshot.get(key) == av.SerializeToString():
            attrs[key] = rec["attrs"][key]
        else:
            attrs[key] = encoder.value(value_of_attr(av, node.name, key))
    if rec is not None:
        attrs.update((k, enc) for k, enc in rec["attrs"].items() if k not in snapshot)  # those with no AttrValue
    colocation = []
    if "_class" in node.attr:
        colocation = [s[5:].decode("utf-8") for s in node.attr["_class"].list.s if s.startswith(b"loc:@")]
    out = {"name": node.name, "type": node.op,
           "inputs": [i if ":" in i else f"{i}:0" for i in node.input if not i.startswith("^")],
           "control_inputs": [i[1:] for i in node.input if i.startswith("^")],
           "device": node.device, "colocation": colocation, "attrs": attrs}
    if rec is not None and rec.get("gradient_type") is not None:
        out["gradient_type"] = rec["gradient_type"]
    return out


def _records_of_nodes(nodes) -> list:
    """The records of ``nodes``; those downstream of an edited or new node lose their recorded output specs too
    (their shapes may change), so that they are inferred again on import."""
    records = [record_of_node_def(n) for n in nodes]
    changed = {r["name"] for r in records if "outputs" not in r}
    grew = bool(changed)
    while grew:
        grew = False
        for i, r in enumerate(records):
            if "outputs" in r and any(_op_name(t) in changed for t in r["inputs"]):
                records[i] = {k: v for k, v in r.items() if k != "outputs"}
                changed.add(r["name"])
                grew = True
    return records


@tf_export("GraphDef")
class GraphDef:
    """A serialized graph (TF's ``GraphDef``): ``node`` lists its ops as ``tf.NodeDef`` protocol buffers.

    ``Graph.as_graph_def()`` returns one; its nodes can be read, edited,
    removed or added (``node.extend``, ``node.add``, ``tf.NodeDef(...)``) before
    ``tf.import_graph_def``. ``SerializeToString()`` gives dflow's JSON (see
    ``dflow.framework.graph_io``), what ``tf.train.write_graph`` writes and
    ``GraphDef.FromString`` reads.
    """

    def __init__(self, doc: dict | None = None, node=None):
        self._doc = doc if doc is not None else {"format": FORMAT, "version": VERSION, "ops": []}
        self._nodes = None  # the NodeDefs, once read: then they, not _doc["ops"], are the graph's ops
        if node is not None:
            self.node.extend(node)

    @property
    def node(self):
        """The ops, as a repeated field of ``tf.NodeDef``."""
        if self._nodes is None:
            from dflow.framework.protos.protobuf import RepeatedField
            from dflow.framework.tensor import NodeDef

            self._nodes = RepeatedField(NodeDef, [node_def_of_record(r) for r in self._doc["ops"]])
        return self._nodes

    def to_dict(self) -> dict:
        """The graph's JSON document (``graph_to_dict``'s form)."""
        if self._nodes is None:
            return self._doc
        return {**{k: v for k, v in self._doc.items() if k != "ops"}, "ops": _records_of_nodes(self._nodes)}

    def _reset(self, doc: dict) -> None:
        self._doc = doc
        self._nodes = None

    def SerializeToString(self, deterministic=None) -> bytes:  # noqa: N802 - protobuf name
        return dumps(self.to_dict())

    def ParseFromString(self, data: bytes) -> int:  # noqa: N802 - protobuf name
        doc = loads(data, "graph")
        check_format(doc, FORMAT, "graph")
        self._reset(doc)
        return len(data)

    @classmethod
    def FromString(cls, data: bytes) -> GraphDef:  # noqa: N802 - protobuf name
        g = cls()
        g.ParseFromString(data)
        return g

    def CopyFrom(self, other) -> None:  # noqa: N802 - protobuf name
        """Makes this graph a copy of ``other``."""
        _check_graph_def(other, "CopyFrom")
        self._reset(json.loads(dumps(other.to_dict())))

    def MergeFrom(self, other) -> None:  # noqa: N802 - protobuf name
        """Appends copies of ``other``'s nodes, as protobuf merges a repeated field."""
        _check_graph_def(other, "MergeFrom")
        self.node.extend([copy.deepcopy(n) for n in other.node])

    def Clear(self) -> None:  # noqa: N802 - protobuf name
        self._reset({"format": FORMAT, "version": VERSION, "ops": []})

    def ListFields(self) -> list:  # noqa: N802 - protobuf name
        """``[(field, value)]`` of the set fields: ``node``, when it has any."""
        from dflow.framework.protos.protobuf import Field
        from dflow.framework.tensor import NodeDef

        return [(Field(1, "node", NodeDef, "repeated"), self.node)] if self._num_nodes() else []

    def ByteSize(self) -> int:  # noqa: N802 - protobuf name
        return len(self.SerializeToString())

    def _num_nodes(self) -> int:
        return len(self._nodes) if self._nodes is not None else len(self._doc["ops"])

    def __eq__(self, other):
        return isinstance(other, GraphDef) and self.to_dict() == other.to_dict()

    __hash__ = None

    def __str__(self):
        """The JSON text that ``tf.train.write_graph(..., as_text=True)`` writes (each node's text format is
        ``str(graph_def.node[i])``)."""
        return dumps(self.to_dict(), as_text=True).decode("utf-8")

    def __repr__(self):
        return f"<GraphDef with {self._num_nodes()} nodes>"

    def __reduce__(self):
        return GraphDef.FromString, (self.SerializeToString(),)


def _check_graph_def(other, method: str) -> None:
    if not isinstance(other, GraphDef):
        raise TypeError(f"Parameter to {method}() must be instance of same class: expected GraphDef got "
                        f"{type(other).__name__}.")


def dumps(doc, as_text: bool = False) -> bytes:
    if as_text:
        return json.dumps(doc, allow_nan=False, indent=1, sort_keys=False).encode("utf-8") + b"\n"
    return json.dumps(doc, allow_nan=False, separators=(",", ":")).encode("utf-8")


def loads(data, what: str = "graph"):
    """Parses JSON bytes; ValueError for anything else (never unpickles)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        return json.loads(bytes(data).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"Not a dflow {what}: it is not JSON ({e})") from None


def as_graph_def(graph: Graph, clear_devices: bool = False) -> GraphDef:
    return GraphDef(graph_to_dict(graph, clear_devices=clear_devices))


@tf_export("import_graph_def", "graph_util.import_graph_def")
def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Imports the ops of ``graph_def`` into the default graph under the scope ``name`` ("import").

    ``input_map`` maps tensor names of ``graph_def`` to tensors of this graph
    that replace them; ``return_elements`` names ops or tensors to return.
    """
    if isinstance(graph_def, (bytes, str)):
        graph_def = GraphDef.FromString(graph_def)
    doc = graph_def.to_dict() if isinstance(graph_def, GraphDef) else graph_def
    graph = get_default_graph()
    mapped = {}
    for key, t in (input_map or {}).items():
        key = key if ":" in key else f"{key}:0"
        if not isinstance(t, Tensor):
            raise TypeError(f"input_map values must be Tensors, got {t!r} for {key}")
        mapped[key] = t
    if isinstance(doc, dict) and isinstance(doc.get("ops"), list):
        try:
            doc = {**doc, "ops": _in_dependency_order(doc["ops"])}
        except (TypeError, KeyError, AttributeError) as e:
            raise ValueError(f"Cannot import the graph_def: it is malformed ({type(e).__name__}: {e}).") from None
    with graph.name_scope("import" if name is None else name) as scope:
        try:
            importer = import_graph(doc, graph, scope, input_map=mapped)
        except (TypeError, KeyError, AttributeError, IndexError) as e:  # JSON of the wrong shape, or a node
            raise ValueError(f"Cannot import the graph_def: it is malformed ({type(e).__name__}: {e}); a node "
                             f"needs the inputs and every attr its op reads.") from None
    unused = [k for k in mapped if k.rpartition(":")[0] not in importer.root.ops]
    if unused:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{', '.join(unused)}]")
    if return_elements is None:
        return None
    out = []
    for el in return_elements:
        if ":" in el:
            out.append(importer.tensor(el))
        else:
            out.append(importer.op(el))
    return out


@tf_export("train.write_graph", "io.write_graph")
def write_graph(graph_or_graph_def, logdir, name, as_text: bool = True) -> str:
    """Writes a graph (JSON) to ``logdir/name``, atomically; returns the path."""
    if isinstance(graph_or_graph_def, Graph):
        graph_or_graph_def = as_graph_def(graph_or_graph_def)
    if not isinstance(graph_or_graph_def, GraphDef):
        raise TypeError(f"write_graph needs a tf.Graph or a GraphDef, got {type(graph_or_graph_def).__name__}")
    logdir = os.fspath(logdir)
    makedirs(logdir)
    path = join(logdir, name)
    atomic_write_bytes(path, dumps(graph_or_graph_def.to_dict(), as_text=as_text))
    return path
