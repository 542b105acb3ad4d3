"""``tf.summary`` (TF1): summary ops and event files for TensorBoard.

``tf.summary.scalar``, ``histogram``, ``text``, ``tensor_summary``,
``merge`` and ``merge_all`` build ops whose value is a serialized
``Summary`` protocol buffer; ``tf.summary.FileWriter`` writes them (with
session logs and the graph) to an event file TensorBoard reads;
``tf.train.summary_iterator`` reads such files back.
``tf.train.SummarySaverHook``, which writes summaries during monitored
training, is a training hook: it is in ``dflow.train.summary_hook``.
The protocol buffers, TFRecord framing and CRC32C are implemented here in
pure Python (``proto``, ``record_io``, ``crc32c``): no TensorFlow or
protobuf dependency.
"""

from dflow._api import export_value as _export
from dflow.framework.protos.summary_pb import (
    Event,
    HistogramProto,
    SessionLog,
    Summary,
    SummaryDescription,
    SummaryMetadata,
    TaggedRunMetadata,
)
from dflow.summary import summary_info as _summary_info  # noqa: F401 - tf.summary.get_summary_description & co.
from dflow.summary.summary_ops import histogram, merge, merge_all, scalar, tensor_summary, text
from dflow.summary.writer import FileWriter, FileWriterCache, summary_iterator

for _name, _value in (("Summary", Summary), ("Event", Event), ("SessionLog", SessionLog),
                      ("SummaryMetadata", SummaryMetadata), ("HistogramProto", HistogramProto)):
    _export(_name, _value)
for _name, _value in (("Summary", Summary), ("Event", Event), ("SessionLog", SessionLog),
                      ("SummaryDescription", SummaryDescription), ("TaggedRunMetadata", TaggedRunMetadata)):
    _export(f"summary.{_name}", _value)
del _name, _value

__all__ = ["Event", "FileWriter", "FileWriterCache", "HistogramProto", "SessionLog", "Summary", "SummaryDescription",
           "SummaryMetadata", "TaggedRunMetadata", "histogram", "merge", "merge_all", "scalar",
           "summary_iterator", "tensor_summary", "text"]
