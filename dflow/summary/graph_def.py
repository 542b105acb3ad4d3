"""A TensorFlow ``GraphDef`` protocol buffer of a dflow graph, for TensorBoard's Graphs tab.

Each op becomes a ``NodeDef`` with its name, type, inputs (``"op"``,
``"op:1"``, ``"^control"``), requested device, its output shapes as the
``_output_shapes`` attr (what ``as_graph_def(add_shapes=True)`` adds), the
dtype of its first output as ``T``, and those of its attrs that are plain
strings, numbers, booleans, dtypes or lists of ints. Values that TF keeps
in attrs but dflow keeps as arrays (a ``Const``'s value) and function
bodies (``cond``/``while_loop`` branches) are not written: TensorBoard
shows such ops as single nodes. The result is meant for display; it is not
a graph that TensorFlow could import and run.
"""

from __future__ import annotations

from dflow.framework import dtypes
from dflow.framework.protos.summary_pb import DFLOW_META_GRAPH, Field, Message, MetaInfoDef, TensorShapeProto
from dflow.framework.tensor import AttrValue, NodeDef


class VersionDef(Message):
    FIELDS = (Field(1, "producer", "int32"), Field(2, "min_consumer", "int32"),
              Field(3, "bad_consumers", "int32", "packed"))


class GraphDefProto(Message):
    FIELDS = (Field(1, "node", NodeDef, "repeated"), Field(4, "versions", VersionDef))


def shape_proto(dims) -> TensorShapeProto:
    """``dims``: None (unknown rank) or a list of ints and Nones (unknown sizes, written as -1)."""
    if dims is None:
        return TensorShapeProto(unknown_rank=True)
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=-1 if d is None else int(d)) for d in dims])


def _attr_value(value):
    """The ``AttrValue`` of a simple attr, or None for values not worth showing."""
    if isinstance(value, dtypes.DType):
        return AttrValue(type=value.as_datatype_enum)
    if isinstance(value, bool):
        return AttrValue(b=value)
    if isinstance(value, int) and -(1 << 63) <= value < (1 << 63):
        return AttrValue(i=value)
    if isinstance(value, float):
        return AttrValue(f=value)
    if isinstance(value, (str, bytes)):
        return AttrValue(s=value)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, int) and not isinstance(v, bool)
                                                         for v in value):
        return AttrValue(list=AttrValue.ListValue(i=list(value)))
    return None


def _node(name, op_type, inputs, device, attrs: dict, outputs) -> NodeDef:
    """``outputs``: [(DType, dims or None)]."""
    entries = {}
    for key, value in attrs.items():
        av = _attr_value(value)
        if av is not None:
            entries[key] = av
    if outputs:
        entries.setdefault("T", AttrValue(type=outputs[0][0].as_datatype_enum))
        entries["_output_shapes"] = AttrValue(list=AttrValue.ListValue(shape=[shape_proto(d) for _, d in outputs]))
    node = NodeDef(name=name, op=op_type, input=inputs, device=device or "")
    for k in sorted(entries):
        node.attr[k].CopyFrom(entries[k])
    return node


def _input_name(op_name: str, index: int) -> str:
    return op_name if index == 0 else f"{op_name}:{index}"


def graph_def_from_graph(graph) -> GraphDefProto:
    """The ``GraphDef`` proto of a ``tf.Graph``'s top-level ops."""
    g = GraphDefProto()
    for op in graph.get_operations():
        inputs = [_input_name(t.op.name, t.value_index) for t in op.inputs]
        inputs += [f"^{c.name}" for c in op.control_inputs]
        outputs = [(t.dtype, t.shape.as_list() if t.shape.ndims is not None else None) for t in op.outputs]
        g.node.append(_node(op.name, op.type, inputs, op.device, op.attrs, outputs))
    return g


def graph_def_from_dflow_graph_def(graph_def) -> GraphDefProto:
    """The ``GraphDef`` proto of dflow's JSON ``tf.GraphDef`` (``Graph.as_graph_def()``)."""
    g = GraphDefProto()
    for rec in graph_def.to_dict()["ops"]:
        inputs = [i[:-2] if i.endswith(":0") else i for i in rec["inputs"]]
        inputs += [f"^{c}" for c in rec.get("control_inputs", ())]
        outputs = [(dtypes.as_dtype(o["dtype"]), o["shape"]) for o in rec.get("outputs", ())]
        attrs = {k: v for k, v in rec["attrs"].items() if not isinstance(v, dict)}
        g.node.append(_node(rec["name"], rec["type"], inputs, rec.get("device", ""), attrs, outputs))
    return g


# -- tensorflow/core/protobuf/meta_graph.proto: what FileWriter.add_meta_graph writes -----------------------

class MetaGraphDefProto(Message):
    """TF's ``MetaGraphDef`` with its tags and graph (TensorBoard's fields), and dflow's meta graph
    (``tf.train.import_meta_graph``'s JSON) in the field a SavedModel's meta graphs use for it."""

    FIELDS = (
        Field(1, "meta_info_def", MetaInfoDef),
        Field(2, "graph_def", GraphDefProto),
        Field(DFLOW_META_GRAPH, "dflow_meta_graph", "bytes"),
    )


def meta_graph_proto(meta_graph_def) -> MetaGraphDefProto:
    """The ``MetaGraphDef`` proto of dflow's ``tf.MetaGraphDef``."""
    info = meta_graph_def.meta_info_def or {}
    return MetaGraphDefProto(
        meta_info_def=MetaInfoDef(tags=[str(t) for t in info.get("tags", [])]),
        graph_def=graph_def_from_dflow_graph_def(meta_graph_def.graph_def),
        dflow_meta_graph=meta_graph_def.SerializeToString())
