"""``tf.graph_util``: rewrites of a ``GraphDef`` (freezing, pruning, stripping training nodes).

dflow's ``GraphDef`` is a JSON document (``dflow.framework.graph_io``): one
record per op with its ``inputs`` (``"op:index"``), ``control_inputs`` and
encoded ``attrs``. These functions return new documents and never touch the
one given. Besides inputs, an op can name another op of its graph inside an
attr (``{"$op": "v", "graph": 0}``: the variable an ``Assign`` updates, a
control-flow sub-graph's captures); pruning and splicing follow those
references too, so the result still imports.

>>> g = tf.Graph()                                            # doctest: +SKIP
>>> with g.as_default():
...     v = tf.Variable(2.0, name="v"); y = tf.identity(v * 3.0, name="y")
>>> with tf.Session(graph=g) as sess:
...     sess.run(v.initializer)
...     frozen = tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["y"])
"""

from __future__ import annotations

import copy
import logging

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.array_codec import encode_array
from dflow.framework.graph_io import GraphDef
from dflow.framework.tensor import Operation

_log = logging.getLogger("tensorflow")

_VARIABLE_OPS = ("VariableV2", "Variable", "VarHandleOp")
_VARIABLE_READS = ("_ReadVariable", "ReadVariableOp")
# TF1's list of the ops ``must_run_on_cpu(pin_variables_on_cpu=True)`` pins (ref variables and their updates)
_PINNED_WITH_VARIABLES = {"Assign", "AssignAdd", "AssignSub", "Queue", "ScatterAdd", "ScatterSub", "ScatterUpdate",
                          "TruncatedNormal", "Variable", "VariableV2"}


def _node_name(name: str) -> str:
    """``"^a"``, ``"a:1"`` → ``"a"``."""
    return name[1:].split(":")[0] if name.startswith("^") else name.split(":")[0]


def _attr_refs(value, out: set, tensors: bool = True) -> set:
    """Names of top-level-graph ops that an encoded attr value refers to (``$op``, and ``$tensor`` if asked)."""
    if isinstance(value, dict):
        if value.get("graph") == 0:
            if "$op" in value:
                out.add(value["$op"])
            elif "$tensor" in value and tensors:
                out.add(_node_name(value["$tensor"]))
        for v in value.values():
            _attr_refs(v, out, tensors)
    elif isinstance(value, list):
        for v in value:
            _attr_refs(v, out, tensors)
    return out


def _rename_tensor_refs(value, mapping: dict):
    """An encoded attr value with top-level ``$tensor`` references renamed through ``mapping``."""
    if isinstance(value, dict):
        if value.get("graph") == 0 and "$tensor" in value and value["$tensor"] in mapping:
            return {**value, "$tensor": mapping[value["$tensor"]]}
        return {k: _rename_tensor_refs(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename_tensor_refs(v, mapping) for v in value]
    return value


def _records(graph_def, what: str = "graph_def") -> list:
    if not isinstance(graph_def, GraphDef):
        raise TypeError(f"{what} must be a tf.GraphDef, but got type {type(graph_def)}.")
    return graph_def.to_dict()["ops"]


def _with_records(graph_def: GraphDef, records: list) -> GraphDef:
    doc = {k: v for k, v in graph_def.to_dict().items() if k != "ops"}
    doc["ops"] = records
    return GraphDef(doc)


def _dependencies(rec: dict) -> set:
    deps = {_node_name(i) for i in rec["inputs"]} | set(rec.get("control_inputs", ()))
    return _attr_refs(rec.get("attrs", {}), deps)


@tf_export("graph_util.extract_sub_graph")
def extract_sub_graph(graph_def, dest_nodes) -> GraphDef:
    """The part of ``graph_def`` that ``dest_nodes`` (op names) need, in the original order."""
    records = _records(graph_def)
    if isinstance(dest_nodes, str):
        raise TypeError(f"dest_nodes must be an iterable of strings, but got type {type(dest_nodes)}.")
    by_name = {r["name"]: r for r in records}
    dest = [_node_name(d) for d in dest_nodes]
    for d in dest:
        if d not in by_name:
            raise AssertionError(f"{d} is not in graph")
    keep, todo = set(), list(dest)
    while todo:
        name = todo.pop()
        if name in keep or name not in by_name:
            continue
        keep.add(name)
        todo.extend(_dependencies(by_name[name]))
    return _with_records(graph_def, [copy.deepcopy(r) for r in records if r["name"] in keep])


@tf_export("graph_util.convert_variables_to_constants")
def convert_variables_to_constants(sess, input_graph_def, output_node_names, variable_names_whitelist=None,
                                   variable_names_blacklist=None) -> GraphDef:
    """Freezes a graph: the sub-graph ``output_node_names`` need, its variables replaced by ``Const`` ops
    holding their values in ``sess`` (reads of them become ``Identity`` ops).

    ``variable_names_whitelist`` limits the variables converted;
    ``variable_names_blacklist`` leaves some out. An op that still updates a
    frozen variable (an ``Assign`` the outputs depend on) is a ``ValueError``.
    """
    inference = extract_sub_graph(input_graph_def, output_node_names)
    records = inference.to_dict()["ops"]
    names = [r["name"] for r in records if r["type"] in _VARIABLE_OPS
             and (variable_names_whitelist is None or r["name"] in variable_names_whitelist)
             and (variable_names_blacklist is None or r["name"] not in variable_names_blacklist)]
    values = dict(zip(names, sess.run([f"{n}:0" for n in names]))) if names else {}
    out = []
    for rec in records:
        if rec["name"] in values:
            value = np.asarray(values[rec["name"]])
            dtype = dtypes.as_dtype(rec["outputs"][0]["dtype"])
            out.append({"name": rec["name"], "type": "Const", "inputs": [], "control_inputs": [],
                        "device": rec.get("device", ""), "colocation": [],
                        "attrs": {"value": {"$ndarray": encode_array(value.astype(dtype.as_numpy_dtype))},
                                  "dtype": {"$dtype": dtype.name}},
                        "outputs": [{"dtype": dtype.name, "shape": list(value.shape)}]})
            continue
        refs = _attr_refs(rec.get("attrs", {}), set()) & values.keys()
        if refs and rec["type"] in _VARIABLE_READS:
            rec = dict(rec, type="Identity", attrs={})
        elif refs:
            raise ValueError(f"convert_variables_to_constants: op '{rec['name']}' ({rec['type']}) uses variable "
                             f"'{sorted(refs)[0]}' as a variable, but it is being frozen to a constant; keep the "
                             f"op out of what {list(output_node_names)} need, or blacklist the variable")
        out.append(rec)
    _log.info("Froze %d variables.", len(values))
    _log.info("Converted %d variables to const ops.", len(values))
    return _with_records(inference, out)


@tf_export("graph_util.remove_training_nodes")
def remove_training_nodes(input_graph, protected_nodes=None) -> GraphDef:
    """Splices out ``CheckNumerics`` and ``Identity`` ops (their consumers read their input), as for inference.

    ``protected_nodes`` stay, and so do Identities that are colocation
    targets, control inputs, or have control inputs. (TF1 drops a
    ``CheckNumerics`` op together with its consumers' edge to it, leaving them
    an input short; dflow rewires the edge to the checked tensor.)
    """
    protected = set(protected_nodes or ())
    records = [copy.deepcopy(r) for r in _records(input_graph, "input_graph")]
    control_targets = {c for r in records for c in r.get("control_inputs", ())}
    colocated = {g for r in records for g in r.get("colocation", ())}
    op_refs = set()
    for r in records:
        _attr_refs(r.get("attrs", {}), op_refs, tensors=False)

    def removable(r) -> bool:
        if r["name"] in protected or not r["inputs"] or r["name"] in op_refs:
            return False
        if r["type"] == "CheckNumerics":
            return True
        return (r["type"] == "Identity" and r["name"] not in colocated and not r.get("control_inputs")
                and r["name"] not in control_targets)

    splice = {f"{r['name']}:0": r["inputs"][0] for r in records if removable(r)}

    def resolve(t: str) -> str:
        while t in splice:
            t = splice[t]
        return t

    mapping = {t: resolve(t) for t in splice}
    out = []
    for r in records:
        if f"{r['name']}:0" in splice:
            continue
        r["inputs"] = [resolve(i) for i in r["inputs"]]
        r["attrs"] = _rename_tensor_refs(r.get("attrs", {}), mapping)
        out.append(r)
    return _with_records(input_graph, out)


def _node_dtype(node, key: str):
    """The dtype attr ``key`` of an Operation, a ``node_def`` or a ``GraphDef`` node (None when absent)."""
    if isinstance(node, Operation):
        if key == "SrcT":
            return node.inputs[0].dtype
        if key == "T":
            return node.outputs[0].dtype
        return node.get_attr(key)
    attr = node.attr[key] if key in node.attr else None
    if attr is not None and hasattr(attr, "WhichOneof"):  # a tf.NodeDef's AttrValue
        return dtypes.as_dtype(attr.type) if attr.WhichOneof("value") == "type" else None
    value = node.attr.get(key)
    if isinstance(value, dict) and "$dtype" in value:
        value = value["$dtype"]
    return None if value is None else dtypes.as_dtype(value)


@tf_export("graph_util.must_run_on_cpu")
def must_run_on_cpu(node, pin_variables_on_cpu=False) -> bool:
    """Whether TF1 keeps ``node`` (an Operation, its ``node_def`` or a ``GraphDef`` node) on the CPU.

    Ref variables and their updates (when ``pin_variables_on_cpu``), and int32/string ``Const``,
    int32 ``DynamicStitch`` and ``Cast`` from int32 do.
    """
    op_type = node.type if isinstance(node, Operation) else node.op
    if pin_variables_on_cpu and op_type in _PINNED_WITH_VARIABLES:
        return True
    if op_type == "Const":
        return _node_dtype(node, "dtype") in (dtypes.string, dtypes.int32)
    if op_type in ("DynamicStitch", "ParallelDynamicStitch"):
        return _node_dtype(node, "T") is dtypes.int32
    if op_type == "Cast":
        return _node_dtype(node, "SrcT") is dtypes.int32
    return False


@tf_export("graph_util.tensor_shape_from_node_def_name")
def tensor_shape_from_node_def_name(graph, input_name: str):
    """The static shape of tensor ``input_name`` (``"op"`` means ``"op:0"``) in ``graph``."""
    if ":" not in input_name:
        input_name = f"{input_name}:0"
    return graph.get_tensor_by_name(input_name).get_shape()
