"""Graphs as JSON records: how ``graph_io`` (``Graph.as_graph_def``, ``tf.import_graph_def``, meta graphs)
writes a graph and rebuilds it.

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

``graph_io`` shows the records as TF's ``GraphDef``/``NodeDef`` and reads and writes graph files.
"""

from __future__ import annotations

import contextlib
import inspect
import math

import numpy as np

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


def _op_name(tensor_name: str) -> str:
    return tensor_name.rpartition(":")[0] if ":" in tensor_name else tensor_name
