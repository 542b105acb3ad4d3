"""The SavedModel protocol buffers, encoded by hand (``saved_model.proto``, ``meta_graph.proto``).

``TensorInfo`` and ``SignatureDef`` are TensorFlow's messages field for field,
so ``SerializeToString`` gives TensorFlow's bytes. ``SavedModel`` and its
``MetaGraphDef`` keep TensorFlow's field numbers for what both share (schema
version, tags, signatures, assets); the graph itself is dflow's meta graph
(the JSON of ``tf.train.export_meta_graph``) in field ``DFLOW_META_GRAPH``,
a number TensorFlow does not use, and TensorFlow's ``graph_def`` stays empty.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.protos.protobuf import Field, Message
from dflow.framework.protos.summary_pb import DFLOW_META_GRAPH, MetaInfoDef, TensorProto, TensorShapeProto
from dflow.framework.tensor import datatype_name


@tf_export("TensorInfo")
class TensorInfo(Message):
    """A tensor of a signature: its name (or a sparse tensor's three names), dtype and shape."""

    class CooSparse(Message):
        FIELDS = (Field(1, "values_tensor_name", "string"), Field(2, "indices_tensor_name", "string"),
                  Field(3, "dense_shape_tensor_name", "string"))

    FIELDS = (
        Field(1, "name", "string", "oneof:encoding"),
        Field(2, "dtype", "enum"),
        Field(3, "tensor_shape", TensorShapeProto),
        Field(4, "coo_sparse", CooSparse, "oneof:encoding"),
    )

    def _text(self, indent: int) -> str:
        # protobuf's text format names the DataType enum value
        text = super()._text(indent)
        if self.dtype:
            pad = "  " * indent
            text = text.replace(f"{pad}dtype: {self.dtype}\n", f"{pad}dtype: {datatype_name(self.dtype)}\n", 1)
        return text


class SignatureDef(Message):
    """Inputs and outputs of a computation, by key, and its method name (TF's ``SignatureDef``)."""

    FIELDS = (
        Field(1, "inputs", TensorInfo, "map"),
        Field(2, "outputs", TensorInfo, "map"),
        Field(3, "method_name", "string"),
        Field(4, "defaults", TensorProto, "map"),
    )


class AssetFileDef(Message):
    """An asset: the tensor that holds its path in the graph and its file name under ``assets/``."""

    FIELDS = (Field(1, "tensor_info", TensorInfo), Field(2, "filename", "string"))



class MetaGraphDef(Message):
    """One meta graph of a SavedModel: tags, signatures, assets, and dflow's meta graph (JSON bytes).

    ``dflow_meta_graph`` is what ``tf.train.import_meta_graph`` reads; the
    other fields are TensorFlow's own.
    """

    FIELDS = (
        Field(1, "meta_info_def", MetaInfoDef),
        Field(5, "signature_def", SignatureDef, "map"),
        Field(6, "asset_file_def", AssetFileDef, "repeated"),
        Field(DFLOW_META_GRAPH, "dflow_meta_graph", "bytes"),
    )

    @property
    def collection_def(self) -> dict:
        """The collections of the meta graph, as ``tf.train.export_meta_graph`` recorded them."""
        return self.dflow_graph().collection_def

    def dflow_graph(self):
        """dflow's ``tf.MetaGraphDef`` of this meta graph (graph, saver, collections)."""
        from dflow.train.meta_graph import MetaGraphDef as DflowMetaGraphDef

        return DflowMetaGraphDef.FromString(self.dflow_meta_graph)


class SavedModel(Message):
    """The contents of ``saved_model.pb``: a schema version and meta graphs, each with its tags."""

    FIELDS = (Field(1, "saved_model_schema_version", "int64"), Field(2, "meta_graphs", MetaGraphDef, "repeated"))
