"""The protocol buffers of TensorFlow's event files, encoded by hand.

``Summary``, ``Event``, ``SessionLog``, ``HistogramProto`` and the pieces
they hold are small Python classes over ``dflow.framework.protobuf``'s
wire-format encoder and decoder, so dflow writes and reads what TensorBoard
and TF1 do without depending on ``protobuf``, byte for byte.

The classes mimic the generated protobuf API that TF1 code uses::

    s = Summary(value=[Summary.Value(tag="loss", simple_value=1.5)])
    data = s.SerializeToString()
    Summary.FromString(data).value[0].simple_value   # 1.5
"""

from __future__ import annotations

from dflow.framework.protobuf import (  # noqa: F401 - the wire format, used from here too
    Field,
    Message,
    RepeatedField,
    decode_varint,
    encode_varint,
    iter_fields,
)

# -- tensorflow/core/framework/tensor_shape.proto, tensor.proto --------------------------

class TensorShapeProto(Message):
    class Dim(Message):
        FIELDS = (Field(1, "size", "int64"), Field(2, "name", "string"))

    FIELDS = (Field(2, "dim", Dim, "repeated"), Field(3, "unknown_rank", "bool"))


class TensorProto(Message):
    FIELDS = (
        Field(1, "dtype", "enum"),
        Field(2, "tensor_shape", TensorShapeProto),
        Field(3, "version_number", "int32"),
        Field(4, "tensor_content", "bytes"),
        Field(13, "half_val", "int32", "packed"),
        Field(5, "float_val", "float", "packed"),
        Field(6, "double_val", "double", "packed"),
        Field(7, "int_val", "int32", "packed"),
        Field(8, "string_val", "bytes", "repeated"),
        Field(9, "scomplex_val", "float", "packed"),
        Field(10, "int64_val", "int64", "packed"),
        Field(11, "bool_val", "bool", "packed"),
        Field(12, "dcomplex_val", "double", "packed"),
        Field(16, "uint32_val", "uint32", "packed"),
        Field(17, "uint64_val", "uint64", "packed"),
    )


# -- tensorflow/core/framework/summary.proto --------------------------------------------

class HistogramProto(Message):
    FIELDS = (
        Field(1, "min", "double"),
        Field(2, "max", "double"),
        Field(3, "num", "double"),
        Field(4, "sum", "double"),
        Field(5, "sum_squares", "double"),
        Field(6, "bucket_limit", "double", "packed"),
        Field(7, "bucket", "double", "packed"),
    )


class SummaryMetadata(Message):
    class PluginData(Message):
        FIELDS = (Field(1, "plugin_name", "string"), Field(2, "content", "bytes"))

    FIELDS = (
        Field(1, "plugin_data", PluginData),
        Field(2, "display_name", "string"),
        Field(3, "summary_description", "string"),
        Field(4, "data_class", "enum"),
    )


class SummaryDescription(Message):
    FIELDS = (Field(1, "type_hint", "string"),)


class Summary(Message):
    class Image(Message):
        FIELDS = (
            Field(1, "height", "int32"),
            Field(2, "width", "int32"),
            Field(3, "colorspace", "int32"),
            Field(4, "encoded_image_string", "bytes"),
        )

    class Audio(Message):
        FIELDS = (
            Field(1, "sample_rate", "float"),
            Field(2, "num_channels", "int64"),
            Field(3, "length_frames", "int64"),
            Field(4, "encoded_audio_string", "bytes"),
            Field(5, "content_type", "string"),
        )

    class Value(Message):
        pass

    FIELDS = (Field(1, "value", Value, "repeated"),)


Summary.Value._set_fields((
    Field(7, "node_name", "string"),
    Field(1, "tag", "string"),
    Field(9, "metadata", SummaryMetadata),
    Field(2, "simple_value", "float", "oneof:value"),
    Field(3, "obsolete_old_style_histogram", "bytes", "oneof:value"),
    Field(4, "image", Summary.Image, "oneof:value"),
    Field(5, "histo", HistogramProto, "oneof:value"),
    Field(6, "audio", Summary.Audio, "oneof:value"),
    Field(8, "tensor", TensorProto, "oneof:value"),
))


# -- tensorflow/core/framework/step_stats.proto, protobuf/config.proto (RunMetadata) ---------

class NodeExecStatsProto(Message):
    FIELDS = (
        Field(1, "node_name", "string"),
        Field(2, "all_start_micros", "int64"),
        Field(3, "op_start_rel_micros", "int64"),
        Field(4, "op_end_rel_micros", "int64"),
        Field(5, "all_end_rel_micros", "int64"),
        Field(8, "timeline_label", "string"),
        Field(9, "scheduled_micros", "int64"),
        Field(10, "thread_id", "uint32"),
        Field(13, "all_start_nanos", "int64"),
        Field(14, "op_start_rel_nanos", "int64"),
        Field(15, "op_end_rel_nanos", "int64"),
        Field(16, "all_end_rel_nanos", "int64"),
    )


class DeviceStepStatsProto(Message):
    FIELDS = (Field(1, "device", "string"), Field(2, "node_stats", NodeExecStatsProto, "repeated"))


class StepStatsProto(Message):
    FIELDS = (Field(1, "dev_stats", DeviceStepStatsProto, "repeated"),)


class RunMetadataProto(Message):
    """TF's ``RunMetadata`` as TensorBoard reads it from a ``TaggedRunMetadata``: the step stats."""

    FIELDS = (Field(1, "step_stats", StepStatsProto),)


_NODE_STATS_FIELDS = tuple(f.name for f in NodeExecStatsProto.FIELDS)


def run_metadata_proto(run_metadata) -> RunMetadataProto:
    """The protocol buffer of a ``tf.RunMetadata``'s step stats."""
    devices = []
    for dev in run_metadata.step_stats.dev_stats:
        nodes = [NodeExecStatsProto(**{k: getattr(n, k) for k in _NODE_STATS_FIELDS if getattr(n, k, None)})
                 for n in dev.node_stats]
        devices.append(DeviceStepStatsProto(device=dev.device, node_stats=nodes))
    return RunMetadataProto(step_stats=StepStatsProto(dev_stats=devices))


# -- tensorflow/core/protobuf/meta_graph.proto (shared with dflow.saved_model.proto) ------------

class MetaInfoDef(Message):
    FIELDS = (
        Field(1, "meta_graph_version", "string"),
        Field(4, "tags", "string", "repeated"),
        Field(5, "tensorflow_version", "string"),
        Field(6, "tensorflow_git_version", "string"),
        Field(7, "stripped_default_attrs", "bool"),
    )


DFLOW_META_GRAPH = 1001  # the field of a MetaGraphDef that holds dflow's meta graph (a number TF does not use)


# -- tensorflow/core/util/event.proto ----------------------------------------------------

class SessionLog(Message):
    STATUS_UNSPECIFIED = 0
    START = 1
    STOP = 2
    CHECKPOINT = 3

    FIELDS = (Field(1, "status", "enum"), Field(2, "checkpoint_path", "string"), Field(3, "msg", "string"))


class TaggedRunMetadata(Message):
    FIELDS = (Field(1, "tag", "string"), Field(2, "run_metadata", "bytes"))


class SourceMetadata(Message):
    FIELDS = (Field(1, "writer", "string"),)


class LogMessage(Message):
    UNKNOWN = 0
    DEBUGGING = 10
    INFO = 20
    WARN = 30
    ERROR = 40
    FATAL = 50

    FIELDS = (Field(1, "level", "enum"), Field(2, "message", "string"))


class Event(Message):
    FIELDS = (
        Field(1, "wall_time", "double"),
        Field(2, "step", "int64"),
        Field(3, "file_version", "string", "oneof:what"),
        Field(4, "graph_def", "bytes", "oneof:what"),
        Field(5, "summary", Summary, "oneof:what"),
        Field(6, "log_message", LogMessage, "oneof:what"),
        Field(7, "session_log", SessionLog, "oneof:what"),
        Field(8, "tagged_run_metadata", TaggedRunMetadata, "oneof:what"),
        Field(9, "meta_graph_def", "bytes", "oneof:what"),
        Field(10, "source_metadata", SourceMetadata),
    )
