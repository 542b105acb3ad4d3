"""Graphs as JSON: ``Graph.as_graph_def``, ``tf.import_graph_def``, ``tf.train.write_graph``.

A graph is written as plain JSON, never pickle, so that reading one cannot
run code. The document is ``{"format": "dflow-graph", "version": 1, "ops": [...]}``
with one record per operation, in creation order::

    {"name": "v/Assign", "type": "Assign",
     "inputs": ["v/initial_value:0"],        # tensors, "<op>:<index>"
     "control_inputs": ["init"],             # op names
     "device": "/job:ps/task:0",             # as requested (possibly partial)
     "colocation": ["v"],                    # colocation groups (op names)
     "attrs": {"var": {"$op": "v", "graph": 0}, "validate_shape": true},
     "outputs": [{"dtype": "float32", "shape": [2]}]}   # as recorded, not re-inferred

Attr values (the kernel's keyword arguments) use JSON where JSON is exact
(``null``, booleans, integers, finite floats, strings, lists) and a one-key
tagged object otherwise: ``$ndarray`` (dtype, shape and the base64 of the
raw little-endian bytes; string arrays as length-prefixed bytes), ``$scalar``
(a numpy scalar), ``$bytes``, ``$float`` (inf/nan), ``$complex``, ``$tuple``,
``$dict`` (a list of key/value pairs), ``$slice``, ``$ellipsis``, ``$dtype``,
``$shape``, ``$op``/``$tensor`` (a reference by name to an element of graph
``graph``: 0 is the top-level graph, sub-graphs are numbered as met),
``$opname`` (a string that is an op's name, such as a captured variable's
shared name, renamed with it on import) and ``$graph`` (a control-flow
sub-graph, ``FuncGraph``, recursively: its id, the id of the graph it was
traced in, its ops, inputs, outputs and captures; ``$graph_ref`` names one
already written). A value of any other type (a Python function, say) is a
``TypeError`` naming the op and the attr.

Import re-creates each op through the op registry with its recorded attrs
and output specs (``import_graph``), under an optional name prefix, with
``input_map`` substitutions and the importing context's device scope.

>>> import dflow as tf
>>> g = tf.Graph()
>>> with g.as_default():
...     _ = tf.constant([1.0, 2.0], name="c") * 2.0
>>> [n.name for n in g.as_graph_def().node]
['c', 'mul/y', 'mul']
"""

from __future__ import annotations

import contextlib
import json
import math
import os

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes as _dtypes
from dflow.framework.array_codec import (
    NUMERIC_KINDS,
    b64,
    decode_array,
    decode_shape,
    dtype_from_name,
    encode_array,
    encode_shape,
    unb64,
)
from dflow.framework.file_io import atomic_write_bytes, join, makedirs
from dflow.framework.graph import Graph, Operation, Tensor, get_default_graph, scope_prefix, strip_name_scope
from dflow.framework.tensor_shape import TensorShape

FORMAT = "dflow-graph"
VERSION = 1


class UnserializableGraphError(TypeError):
    """An op's attr holds a value that cannot be written (a Python function, say)."""


class _Unserializable(TypeError):
    pass


class _Encoder:
    """Encodes the ops of a graph and, recursively, the sub-graphs in their attrs.

    Every graph gets an id (the top-level graph 0, sub-graphs 1, 2, ... in
    the order met), and references to ops and tensors name their graph by
    id: a gradient sub-graph refers to the forward sub-graph it was traced
    from, which is not the graph that holds its op.
    """

    def __init__(self, root: Graph, rename=None, clear_devices: bool = False):
        self.rename = rename or (lambda name: name)
        self.clear_devices = clear_devices
        self.ids: dict = {root: 0}

    # -- graphs and ops ------------------------------------------------------------
    def ops(self, ops) -> list:
        return [self.op(op) for op in ops]

    def op(self, op: Operation) -> dict:
        rec = {"name": self.rename(op.name), "type": op.type,
               "inputs": [self.tensor_name(t) for t in op._inputs],
               "control_inputs": [self.rename(c.name) for c in op._control_inputs],
               "device": "" if self.clear_devices else op._device,
               "colocation": [self.rename(g) for g in op._colocation_groups],
               "attrs": {}, "outputs": [{"dtype": t.dtype.name, "shape": encode_shape(t.shape)}
                                        for t in op._outputs]}
        if op._gradient_type is not None:
            rec["gradient_type"] = op._gradient_type
        for key, value in op._attrs.items():
            try:
                rec["attrs"][key] = self.attr(op, key, value)
            except _Unserializable as e:
                raise UnserializableGraphError(
                    f"Cannot serialize attr '{key}' of op '{op.name}' (type {op.type}): {e}") from None
        return rec

    def tensor_name(self, t: Tensor) -> str:
        return f"{self.rename(t.op.name)}:{t.value_index}"

    def graph_id(self, graph) -> int:
        gid = self.ids.get(graph)
        if gid is None:
            raise _Unserializable("it refers to an element of a graph that is not being serialized")
        return gid

    # -- attr values -------------------------------------------------------------------
    def attr(self, op: Operation, key: str, value):
        if isinstance(value, str) and value:
            if key == "name" and value == op.name:
                return {"$opname": self.rename(value)}
            if key == "shared_name" and op.type == "VariableV2" and _names_variable(op.graph, value):
                return {"$opname": self.rename(value)}
        return self.value(value)

    def value(self, v):
        from dflow.framework.func_graph import FuncGraph

        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, np.generic):
            if isinstance(v, (np.bytes_, np.str_)):
                return self.value(v.item())
            return {"$scalar": encode_array(np.asarray(v))}
        if isinstance(v, int):
            return int(v)
        if isinstance(v, float):
            return v if math.isfinite(v) else {"$float": repr(v)}
        if isinstance(v, (list, tuple)):
            items = [self.value(x) for x in v]
            return items if type(v) is list else {"$tuple": items}
        if isinstance(v, dict):
            return {"$dict": [[self.value(k), self.value(x)] for k, x in v.items()]}
        if isinstance(v, np.ndarray):
            try:
                return {"$ndarray": encode_array(v)}
            except TypeError as e:
                raise _Unserializable(str(e)) from None
        if isinstance(v, bytes):
            return {"$bytes": b64(v)}
        if isinstance(v, complex):
            return {"$complex": [self.value(v.real), self.value(v.imag)]}
        if isinstance(v, slice):
            return {"$slice": [self.value(v.start), self.value(v.stop), self.value(v.step)]}
        if v is Ellipsis:
            return {"$ellipsis": True}
        if isinstance(v, _dtypes.DType):
            return {"$dtype": v.name}
        if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
            dt = np.dtype(v)
            if dt.kind not in NUMERIC_KINDS and dt.kind != "O":
                raise _Unserializable(f"numpy dtype {dt} is not serializable")
            return {"$npdtype": "object" if dt.kind == "O" else dt.newbyteorder("<").str}
        if isinstance(v, TensorShape):
            return {"$shape": encode_shape(v)}
        if isinstance(v, Operation):
            return {"$op": self.rename(v.name), "graph": self.graph_id(v.graph)}
        if isinstance(v, Tensor):
            return {"$tensor": self.tensor_name(v), "graph": self.graph_id(v.graph)}
        if isinstance(v, FuncGraph):
            if v in self.ids:
                return {"$graph_ref": self.ids[v]}
            return {"$graph": self.func_graph(v)}
        if callable(v):
            raise _Unserializable(f"Python callables ({getattr(v, '__qualname__', type(v).__name__)}) cannot be "
                                  f"serialized; build the graph from code instead")
        raise _Unserializable(f"values of type {type(v).__name__} are not serializable")

    def func_graph(self, fg) -> dict:
        outer = self.graph_id(fg.outer_graph)
        gid = self.ids[fg] = len(self.ids)
        rec = {"id": gid, "outer": outer, "name": fg.name,
               "name_scope": self.rename(fg._root_scope) if fg._root_scope else "", "ops": self.ops(fg._ops)}
        name_of = lambda t: None if t is None else self.tensor_name(t)
        rec.update({
            "inputs": [name_of(t) for t in fg.inputs], "outputs": [name_of(t) for t in fg.outputs],
            "control_outputs": [self.rename(o.name) for o in fg.control_outputs], "n_args": fg.n_args,
            "captures": [[self.value(outer), name_of(inner)] for outer, inner in fg._captures.items()],
            "aliases": [[self.value(outer), name_of(inner)] for outer, inner in fg._aliases.items()],
            "outer_control_inputs": [self.value(o) for o in fg.outer_control_inputs],
            "sealed": fg.sealed})
        if hasattr(fg, "accumulated"):
            rec["accumulated"] = [name_of(t) for t in fg.accumulated]
        return rec


def _names_variable(graph, name: str) -> bool:
    """Whether ``name`` is the name of a variable op of ``graph`` or a graph enclosing it."""
    while graph is not None:
        op = graph._ops_by_name.get(name)
        if op is not None and op.type == "VariableV2":
            return True
        graph = getattr(graph, "outer_graph", None)
    return False


def graph_to_dict(graph: Graph, clear_devices: bool = False, export_scope: str | None = None) -> dict:
    """The JSON document of ``graph`` (only the ops under ``export_scope``, with it stripped)."""
    ops = None
    rename = None
    if export_scope:
        scope = scope_prefix(export_scope)
        ops = [op for op in graph.get_operations() if op.name.startswith(scope)]
        kept = set(ops)

        def rename(name: str) -> str:
            return strip_name_scope(name, export_scope)

        for op in ops:
            for src in [t.op for t in op._inputs] + op._control_inputs:
                if src not in kept:
                    raise ValueError(f"Cannot export scope '{export_scope}': op '{op.name}' uses '{src.name}', "
                                     f"which is outside it.")
    enc = _Encoder(graph, rename, clear_devices)
    return {"format": FORMAT, "version": VERSION, "ops": enc.ops(graph.get_operations() if ops is None else ops)}


# -- decoding -------------------------------------------------------------------------------


class _Level:
    """One graph being rebuilt: the graph, and its new ops by recorded name."""

    __slots__ = ("graph", "ops")

    def __init__(self, graph):
        self.graph = graph
        self.ops: dict = {}


class Importer:
    """Rebuilds recorded ops into a graph (see ``import_graph``).

    After ``run``, ``op(name)`` and ``tensor(name)`` map recorded names of the
    top-level graph to the new elements.
    """

    def __init__(self, graph: Graph, prefix: str = "", clear_devices: bool = False, input_map: dict | None = None):
        self.graph = graph
        self.prefix = prefix
        self.clear_devices = clear_devices
        self.input_map = dict(input_map or {})
        self.graphs: dict[int, _Level] = {}
        self.current: list[int] = [0]  # ids of the graphs being rebuilt, innermost last

    @property
    def root(self) -> _Level:
        return self.graphs[0]

    # -- lookups --------------------------------------------------------------------------
    def _level(self, gid) -> _Level:
        try:
            return self.graphs[self.current[-1] if gid is None else gid]
        except KeyError:
            raise ValueError(f"The graph refers to sub-graph {gid}, which is not defined before its use.") from None

    def op(self, name: str, gid: int | None = None) -> Operation:
        try:
            return self._level(gid).ops[name]
        except KeyError:
            raise ValueError(f"The graph refers to op '{name}', which is not in it (or is defined after its "
                             f"first use).") from None

    def tensor(self, name: str, gid: int | None = None) -> Tensor:
        if self.input_map and (self.current[-1] if gid is None else gid) == 0 and name in self.input_map:
            return self.input_map[name]
        op_name, _, index = name.rpartition(":")
        op = self.op(op_name, gid)
        try:
            return op._outputs[int(index)]
        except (IndexError, ValueError):
            raise ValueError(f"The graph refers to tensor '{name}', which does not exist.") from None

    def new_name(self, name: str) -> str:
        return self.prefix + name

    # -- import -------------------------------------------------------------------------
    def run(self, doc: dict) -> Importer:
        check_format(doc, FORMAT, "graph")
        self._import_ops(0, self.graph, doc["ops"])
        return self

    def _import_ops(self, gid: int, graph: Graph, records: list) -> None:
        level = self.graphs[gid] = _Level(graph)
        self.current.append(gid)
        try:
            with graph.as_default(), graph.control_dependencies(None), graph.colocate_with(None):
                for rec in records:
                    level.ops[rec["name"]] = self._import_op(graph, rec)
            for rec in records:
                controls = [self.op(c) for c in rec.get("control_inputs", ())]
                if controls:
                    level.ops[rec["name"]]._control_inputs = controls
            graph._structure_version += 1
        finally:
            self.current.pop()

    def _import_op(self, graph: Graph, rec: dict) -> Operation:
        from dflow.framework import errors
        from dflow.ops.registry import get_opdef

        name, op_type = rec["name"], rec["type"]
        try:
            opdef = get_opdef(op_type)
        except errors.NotFoundError:
            raise errors.NotFoundError(None, None, f"Op type not registered '{op_type}' (op '{name}' of the "
                                                   f"imported graph): import the module that defines it first.") \
                from None
        inputs = [self.tensor(t) for t in rec["inputs"]]
        attrs = {k: self.value(v) for k, v in rec["attrs"].items()}
        specs = [(dtype_from_name(o["dtype"]), decode_shape(o["shape"])) for o in rec["outputs"]]
        new_name = self.new_name(name)
        _mark_scopes_used(graph, new_name)
        device = "" if self.clear_devices else rec.get("device", "")
        with graph.device(device) if device else contextlib.nullcontext():
            op = graph._create_op(op_type, inputs, attrs, new_name + "/", opdef, lambda op: specs)
        op._colocation_groups = tuple(self.new_name(g) for g in rec.get("colocation", ()))
        if rec.get("gradient_type") is not None:
            op._gradient_type = rec["gradient_type"]
        return op

    # -- attr values ------------------------------------------------------------------
    def value(self, v):
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if not isinstance(v, dict) or len(v) not in (1, 2):
            raise ValueError(f"Malformed attr value in graph: {v!r:.200}")
        if "$ndarray" in v:
            return decode_array(v["$ndarray"])
        if "$scalar" in v:
            return decode_array(v["$scalar"])[()]
        if "$tuple" in v:
            return tuple(self.value(x) for x in v["$tuple"])
        if "$dict" in v:
            return {self.value(k): self.value(x) for k, x in v["$dict"]}
        if "$bytes" in v:
            return unb64(v["$bytes"])
        if "$float" in v:
            return float(v["$float"])
        if "$complex" in v:
            re_, im = v["$complex"]
            return complex(self.value(re_), self.value(im))
        if "$slice" in v:
            return slice(*(self.value(x) for x in v["$slice"]))
        if "$ellipsis" in v:
            return Ellipsis
        if "$dtype" in v:
            return dtype_from_name(v["$dtype"])
        if "$npdtype" in v:
            dt = np.dtype(v["$npdtype"])
            if dt.kind not in NUMERIC_KINDS and dt.kind != "O":
                raise ValueError(f"refusing numpy dtype {v['$npdtype']!r}")
            return dt.newbyteorder("=") if dt.kind != "O" else dt
        if "$shape" in v:
            return decode_shape(v["$shape"])
        if "$op" in v:
            return self.op(v["$op"], v["graph"])
        if "$tensor" in v:
            return self.tensor(v["$tensor"], v["graph"])
        if "$opname" in v:
            return self.new_name(v["$opname"])
        if "$graph" in v:
            return self.func_graph(v["$graph"])
        if "$graph_ref" in v:
            return self._level(v["$graph_ref"]).graph
        raise ValueError(f"Unknown tag in graph attr value: {sorted(v)}")

    def func_graph(self, rec: dict):
        from dflow.framework.func_graph import FuncGraph

        gid = rec["id"]
        if gid in self.graphs:
            raise ValueError(f"Sub-graph {gid} is defined twice.")
        scope = rec.get("name_scope") or ""
        fg = FuncGraph(rec["name"], self._level(rec["outer"]).graph, name_scope=self.new_name(scope) if scope else "")
        self._import_ops(gid, fg, rec["ops"])
        self.current.append(gid)
        try:
            inner = lambda name: None if name is None else self.tensor(name)
            fg.inputs = [inner(t) for t in rec["inputs"]]
            fg.outputs = [inner(t) for t in rec["outputs"]]
            fg.control_outputs = [self.op(o) for o in rec["control_outputs"]]
            fg.n_args = rec["n_args"]
            fg._captures = {self.value(o): inner(i) for o, i in rec["captures"]}
            fg._aliases = {self.value(o): inner(i) for o, i in rec["aliases"]}
            fg.outer_control_inputs = [self.value(o) for o in rec["outer_control_inputs"]]
            if "accumulated" in rec:
                fg.accumulated = [inner(t) for t in rec["accumulated"]]
            fg.sealed = rec["sealed"]
        finally:
            self.current.pop()
        return fg


def _mark_scopes_used(graph: Graph, name: str) -> None:
    """Marks each enclosing scope of ``name`` as used, so new scopes of that name are uniquified."""
    parts = name.lower().split("/")
    for i in range(1, len(parts)):
        graph._names_in_use.setdefault("/".join(parts[:i]), 1)


def check_format(doc, fmt: str, what: str, version: int = VERSION) -> None:
    """ValueError unless ``doc`` is a JSON object of format ``fmt`` at a version this dflow reads."""
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise ValueError(f"Not a dflow {what} (expected format {fmt!r}).")
    if not isinstance(doc.get("version"), int) or doc["version"] > version:
        raise ValueError(f"This dflow {what} has format version {doc.get('version')!r}; this dflow reads versions "
                         f"up to {version}. Upgrade dflow.")


def import_graph(doc: dict, graph: Graph | None = None, prefix: str = "", clear_devices: bool = False,
                 input_map: dict | None = None) -> Importer:
    """Rebuilds the ops of ``doc`` (from ``graph_to_dict``) in ``graph``, named ``prefix + name``."""
    graph = graph or get_default_graph()
    return Importer(graph, prefix, clear_devices, input_map).run(doc)


# -- GraphDef -------------------------------------------------------------------------------


class NodeRecord:
    """One op of a ``GraphDef``, with TF1's ``NodeDef`` field names (attrs as encoded)."""

    __slots__ = ("name", "op", "input", "device", "attr")

    def __init__(self, rec: dict):
        self.name = rec["name"]
        self.op = rec["type"]
        self.input = [i[:-2] if i.endswith(":0") else i for i in rec["inputs"]] + \
                     [f"^{c}" for c in rec.get("control_inputs", ())]
        self.device = rec.get("device", "")
        self.attr = rec["attrs"]

    def __repr__(self):
        return f"<NodeRecord {self.name!r} op={self.op}>"


@tf_export("GraphDef")
class GraphDef:
    """A serialized graph (JSON, see ``dflow.framework.graph_io``); ``Graph.as_graph_def()`` returns one.

    ``node`` lists the ops; ``SerializeToString()`` gives the bytes that
    ``tf.train.write_graph`` writes and ``GraphDef.FromString`` reads.
    """

    def __init__(self, doc: dict | None = None):
        self._doc = doc if doc is not None else {"format": FORMAT, "version": VERSION, "ops": []}

    @property
    def node(self) -> list:
        return [NodeRecord(r) for r in self._doc["ops"]]

    def to_dict(self) -> dict:
        return self._doc

    def SerializeToString(self) -> bytes:  # noqa: N802 - protobuf name
        return dumps(self._doc)

    def ParseFromString(self, data: bytes) -> None:  # noqa: N802 - protobuf name
        doc = loads(data, "graph")
        check_format(doc, FORMAT, "graph")
        self._doc = doc

    @classmethod
    def FromString(cls, data: bytes) -> GraphDef:  # noqa: N802 - protobuf name
        g = cls()
        g.ParseFromString(data)
        return g

    def __eq__(self, other):
        return isinstance(other, GraphDef) and self._doc == other._doc

    __hash__ = None

    def __str__(self):
        return dumps(self._doc, as_text=True).decode("utf-8")

    def __repr__(self):
        return f"<GraphDef with {len(self._doc['ops'])} nodes>"


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
    with graph.name_scope("import" if name is None else name) as scope:
        try:
            importer = import_graph(doc, graph, scope, input_map=mapped)
        except (TypeError, KeyError, AttributeError, IndexError) as e:  # JSON of the wrong shape: crafted
            raise ValueError(f"Cannot import the graph_def: it is malformed ({type(e).__name__}: {e}); dflow "
                             f"imports graphs that dflow wrote.") from None
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
