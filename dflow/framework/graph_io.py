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

import contextlib
import copy
import inspect
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
from dflow.framework.files.file_io import atomic_write_bytes, join, makedirs
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
        from dflow.framework.op_registry import get_opdef

        name, op_type = rec["name"], rec["type"]
        try:
            opdef = get_opdef(op_type)
        except errors.NotFoundError:
            raise errors.NotFoundError(None, None, f"Op type not registered '{op_type}' (op '{name}' of the "
                                                   f"imported graph): import the module that defines it first.") \
                from None
        inputs = [self.tensor(t) for t in rec["inputs"]]
        attrs = {k: self.value(v) for k, v in rec.get("attrs", {}).items()}
        new_name = self.new_name(name)
        if "outputs" in rec:
            specs = [(dtype_from_name(o["dtype"]), decode_shape(o["shape"])) for o in rec["outputs"]]
            infer = lambda op: specs  # noqa: E731
        else:  # a node built or edited as a NodeDef: TF's attrs, output specs inferred
            from dflow.framework.op_registry import _infer_with_context

            attrs = _kernel_attrs(opdef, {**_TF_DEFAULT_ATTRS.get(op_type, {}), **attrs}, new_name)
            infer = _infer_with_context(opdef, op_type)
        _mark_scopes_used(graph, new_name)
        device = "" if self.clear_devices else rec.get("device", "")
        with graph.device(device) if device else contextlib.nullcontext():
            op = graph._create_op(op_type, inputs, attrs, new_name + "/", opdef, infer)
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


def _kernel_attrs(opdef, attrs: dict, op_name: str) -> dict:
    """The attrs of a node from a ``NodeDef`` that ``opdef``'s kernel takes.

    TF's nodes carry attrs that dflow's kernels do not take (``T``, ``Tidx``,
    ...): those are dropped when the kernel's keywords are known. A kernel's
    ``name`` keyword without a default (``Placeholder``'s) gets the op's name.
    """
    kernel = opdef.kernel
    if opdef.make_kernel is not None or kernel is None:
        return attrs  # such kernels read the attrs they need from the op
    if isinstance(kernel, np.ufunc):
        return {}  # an attr-less element-wise op
    try:
        params = inspect.signature(kernel).parameters
    except (TypeError, ValueError):
        return attrs
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return attrs
    names = {n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    out = {k: v for k, v in attrs.items() if k in names}
    if "name" in names and "name" not in out and params["name"].default is inspect.Parameter.empty:
        out["name"] = op_name
    return out


def _references(value, out: set) -> set:
    """Adds to ``out`` the names of the top-level graph's ops that an encoded attr value refers to."""
    if isinstance(value, dict):
        if value.get("graph") == 0 and ("$op" in value or "$tensor" in value):
            out.add(_op_name(value.get("$op") or value["$tensor"]))
        for v in value.values():
            _references(v, out)
    elif isinstance(value, list):
        for v in value:
            _references(v, out)
    return out


def _in_dependency_order(records: list) -> list:
    """``records`` with each op after the ops it uses (TF's GraphDef nodes may come in any order); the order
    is kept where it already is one, and for ops in a cycle (the import then names the first bad use)."""
    index = {r["name"]: i for i, r in enumerate(records)}
    deps = [{index[d] for d in ({_op_name(t) for t in r["inputs"]} | set(r.get("control_inputs", ()))
                                | _references(r.get("attrs", {}), set())) if d in index} for r in records]
    if all(d < i for i, ds in enumerate(deps) for d in ds):
        return records
    order, state = [], [0] * len(records)  # 0 unseen, 1 being visited, 2 placed
    for start in range(len(records)):
        stack = [(start, iter(sorted(deps[start])))]
        state[start] = state[start] or 1
        while stack:
            i, it = stack[-1]
            nxt = next((d for d in it if state[d] == 0), None)
            if nxt is None:
                stack.pop()
                if state[i] != 2:
                    state[i] = 2
                    order.append(i)
            else:
                state[nxt] = 1
                stack.append((nxt, iter(sorted(deps[nxt]))))
    return [records[i] for i in order]


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


# -- NodeDef: dflow's records as TF's protocol buffer ------------------------------------------------
# A record's attrs that have an ``AttrValue`` form (dtypes, numbers, strings, shapes, arrays and lists of
# them) appear in its NodeDef's ``attr``; the others (references to ops, sub-graphs, Python tuples of
# mixed values, ...) stay in the record the NodeDef remembers. A NodeDef that is not edited imports
# as its record did; an edited one imports from its fields, and a node built with ``tf.NodeDef(...)``
# imports from its fields alone, its output shapes inferred.

_REFERENCE_TAGS = ("$op", "$tensor", "$graph", "$graph_ref", "$opname")  # kept in the record, not in ``attr``

# The defaults TF's import adds for attrs that a NodeDef leaves out (from TF's OpDefs), for the ops whose
# dflow shape rule or kernel reads them.
_TF_DEFAULT_ATTRS = {
    "Placeholder": {"shape": TensorShape(None)},
    "MatMul": {"transpose_a": False, "transpose_b": False},
    "BatchMatMul": {"adj_x": False, "adj_y": False},
    "BatchMatMulV2": {"adj_x": False, "adj_y": False},
    "Conv2D": {"data_format": "NHWC", "dilations": [1, 1, 1, 1]},
    "BiasAdd": {"data_format": "NHWC"},
    "Cast": {"Truncate": False},
    "VariableV2": {"container": "", "shared_name": ""},
}


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


def _op_name(tensor_name: str) -> str:
    return tensor_name.rpartition(":")[0] if ":" in tensor_name else tensor_name


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
