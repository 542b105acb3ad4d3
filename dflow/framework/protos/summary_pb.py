"""The protocol buffers of TensorFlow's event files, encoded by hand.

``Summary``, ``Event``, ``SessionLog``, ``HistogramProto`` and the pieces
they hold are small Python classes over ``dflow.framework.protos.protobuf``'s
wire-format encoder and decoder, so dflow writes and reads what TensorBoard
and TF1 do without depending on ``protobuf``, byte for byte.

The classes mimic the generated protobuf API that TF1 code uses::

    s = Summary(value=[Summary.Value(tag="loss", simple_value=1.5)])
    data = s.SerializeToString()
    Summary.FromString(data).value[0].simple_value   # 1.5
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.protos.protobuf import (  # noqa: F401 - the wire format, used from here too
    Field,
    Message,
    RepeatedField,
    decode_varint,
    encode_varint,
    iter_fields,
)
from dflow.framework.tensor import TensorProto, TensorShapeProto, datatype_name, enum_text  # noqa: F401

# tensor_shape.proto and tensor.proto (TensorShapeProto, TensorProto) are defined in dflow.framework.tensor,
# beside the NodeDef and AttrValue that hold them, and imported here.

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


def trusted_message(cls, **values):
    """A ``cls`` message holding ``values`` as they are (a repeated field's as a list): for values
    dflow made itself, already of their fields' types. It skips the checks of each assignment,
    which a traced run's thousands of output descriptions would pay many times over."""
    msg = cls.__new__(cls)
    object.__setattr__(msg, "_values", values)
    object.__setattr__(msg, "_unknown", [])
    for name in _repeated_fields(cls).intersection(values):
        f = cls._BY_NAME[name]
        field = RepeatedField(f.kind if f.is_message else None, kind=None if f.is_message else f.kind, owner=msg)
        list.extend(field, values[name])
        values[name] = field
    return msg


_REPEATED: dict = {}


def _repeated_fields(cls) -> frozenset:
    names = _REPEATED.get(cls)
    if names is None:
        names = _REPEATED[cls] = frozenset(f.name for f in cls.FIELDS if f.repeated)
    return names


# -- tensorflow/core/framework/allocation_description.proto, tensor_description.proto --------

class AllocationDescription(Message):
    """The buffer of a tensor: bytes asked for and given, and the allocator that gave them."""

    FIELDS = (
        Field(1, "requested_bytes", "int64"),
        Field(2, "allocated_bytes", "int64"),
        Field(3, "allocator_name", "string"),
        Field(4, "allocation_id", "int64"),
        Field(5, "has_single_reference", "bool"),
        Field(6, "ptr", "uint64"),
    )


class TensorDescription(Message):
    """A tensor's dtype (a ``DataType`` enum value), shape and allocation."""

    FIELDS = (
        Field(1, "dtype", "enum"),
        Field(2, "shape", TensorShapeProto),
        Field(4, "allocation_description", AllocationDescription),
    )


# -- tensorflow/core/framework/step_stats.proto, protobuf/config.proto (RunMetadata) ---------

class AllocationRecord(Message):
    FIELDS = (Field(1, "alloc_micros", "int64"), Field(2, "alloc_bytes", "int64"))


class AllocatorMemoryUsed(Message):
    """The memory an op took from one allocator: ``total_bytes`` allocated, its ``peak_bytes``
    and the ``live_bytes`` still held when it ended."""

    FIELDS = (
        Field(1, "allocator_name", "string"),
        Field(2, "total_bytes", "int64"),
        Field(3, "peak_bytes", "int64"),
        Field(4, "live_bytes", "int64"),
        Field(6, "allocation_records", AllocationRecord, "repeated"),
        Field(5, "allocator_bytes_in_use", "int64"),
    )


class NodeOutput(Message):
    """Output ``slot`` of an op and the tensor it made."""

    FIELDS = (Field(1, "slot", "int32"), Field(3, "tensor_description", TensorDescription))


class NodeExecStatsProto(Message):
    FIELDS = (
        Field(1, "node_name", "string"),
        Field(2, "all_start_micros", "int64"),
        Field(3, "op_start_rel_micros", "int64"),
        Field(4, "op_end_rel_micros", "int64"),
        Field(5, "all_end_rel_micros", "int64"),
        Field(6, "memory", AllocatorMemoryUsed, "repeated"),
        Field(7, "output", NodeOutput, "repeated"),
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
    """The protocol buffer of a ``tf.RunMetadata``'s step stats, with each op's ``output``
    (``NodeOutput``) and ``memory`` (``AllocatorMemoryUsed``) messages under TF's field numbers."""
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

    def _text(self, indent: int) -> str:
        return enum_text(super()._text(indent), indent, "status", lambda n: _STATUS_NAMES.get(n, str(n)))


_STATUS_NAMES = {0: "STATUS_UNSPECIFIED", 1: "START", 2: "STOP", 3: "CHECKPOINT"}


class TaggedRunMetadata(Message):
    FIELDS = (Field(1, "tag", "string"), Field(2, "run_metadata", "bytes"))


class SourceMetadata(Message):
    FIELDS = (Field(1, "writer", "string"),)


@tf_export("LogMessage")
class LogMessage(Message):
    """A message logged to an event file (TF's ``LogMessage``): a ``level`` (``WARN``, ...) and the text."""

    UNKNOWN = 0
    DEBUGGING = 10
    INFO = 20
    WARN = 30
    ERROR = 40
    FATAL = 50

    FIELDS = (Field(1, "level", "enum"), Field(2, "message", "string"))

    def _text(self, indent: int) -> str:
        return enum_text(super()._text(indent), indent, "level", lambda n: _LEVEL_NAMES.get(n, str(n)))


_LEVEL_NAMES = {0: "UNKNOWN", 10: "DEBUGGING", 20: "INFO", 30: "WARN", 40: "ERROR", 50: "FATAL"}


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
