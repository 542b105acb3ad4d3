"""Event files: protobuf encoding, CRC32C and TFRecord framing as TF1 writes them; FileWriter; reading back."""

import os
import re
import socket
import struct

import numpy as np
import pytest

import dflow as tf
from dflow.framework.protos.summary_pb import Event, SourceMetadata, Summary, decode_varint, encode_varint
from dflow.kernels import crc32c as crc
from dflow.summary.graph_def import GraphDefProto
from dflow.summary.record_io import encode_record, iter_records, read_records
from tests.summary import tf1_reference as ref

# -- encoding primitives ---------------------------------------------------------------


def test_crc32c_check_values():
    assert crc.crc32c(b"123456789") == 0xE3069283
    assert crc.crc32c(b"") == 0
    assert crc.crc32c(b"\x00" * 32) == 0x8A9136AA  # RFC 3720 B.4 test vector
    assert crc.crc32c(bytes(range(32))) == 0x46DD794E
    data = bytes(range(256)) * 3
    assert crc.crc32c(data[100:], crc.crc32c(data[:100])) == crc.crc32c(data)
    assert crc.unmask(crc.mask(0x12345678)) == 0x12345678


def test_masked_crcs_match_tf1_records():
    # The CRCs stored in TF1's record file, for the length header and the data.
    f = ref.TFRECORD_FILE
    assert struct.unpack("<I", f[8:12])[0] == crc.masked_crc32c(f[:8])
    assert struct.unpack("<I", f[-4:])[0] == crc.masked_crc32c(b"123456789")


def test_varints():
    for v in (0, 1, 127, 128, 300, 2**63 - 1):
        assert decode_varint(encode_varint(v), 0) == (v, len(encode_varint(v)))
    assert encode_varint(-1) == b"\xff" * 9 + b"\x01"


def test_records_match_tf1_byte_for_byte():
    data = encode_record(ref.EVENT_SCALAR) + encode_record(b"") + encode_record(b"123456789")
    assert data == ref.TFRECORD_FILE


def test_record_reader_checks_crcs_and_stops_at_a_partial_record(tmp_path):
    import io

    assert list(iter_records(io.BytesIO(ref.TFRECORD_FILE))) == [ref.EVENT_SCALAR, b"", b"123456789"]
    assert list(iter_records(io.BytesIO(ref.TFRECORD_FILE[:-3]))) == [ref.EVENT_SCALAR, b""]
    bad = bytearray(ref.TFRECORD_FILE)
    bad[20] ^= 1
    with pytest.raises(tf.errors.DataLossError):
        list(iter_records(io.BytesIO(bytes(bad))))


def test_event_and_summary_protos_match_tf1():
    event = Event(wall_time=1234.5, step=7, summary=Summary.FromString(ref.SCALAR_LOSS))
    assert event.SerializeToString() == ref.EVENT_SCALAR
    assert tf.Summary(value=[tf.Summary.Value(tag="x", simple_value=0.0)]).SerializeToString() == \
        ref.SUMMARY_PROTO_ZERO
    log = tf.SessionLog(status=tf.SessionLog.CHECKPOINT, checkpoint_path="/a/b", msg="m")
    assert log.SerializeToString() == ref.SESSION_LOG_CHECKPOINT
    assert tf.SessionLog.FromString(ref.SESSION_LOG_CHECKPOINT) == log


def test_protos_round_trip_and_keep_unknown_fields():
    for data in (ref.HISTOGRAM_H, ref.TEXT_MATRIX, ref.TENSOR_INT, ref.SCALAR_FAMILY):
        assert Summary.FromString(data).SerializeToString() == data
    s = Summary.FromString(ref.HISTOGRAM_H)
    v = s.value[0]
    assert v.tag == "h" and v.WhichOneof("value") == "histo"
    assert (v.histo.min, v.histo.max, v.histo.num) == (-1.0, 100.0, 7.0)
    assert not v.HasField("metadata")
    unknown = ref.SCALAR_LOSS + b"\xa2\x06\x02hi"  # field 100, length-delimited
    assert Summary.FromString(unknown).SerializeToString() == unknown


def test_proto_api():
    s = tf.Summary()
    v = s.value.add(tag="a", simple_value=2.0)
    assert s.value[0] is v and v.simple_value == 2.0
    v.histo.min = 1.0  # setting a field of an unset sub-message sets it (and clears the oneof)
    assert v.WhichOneof("value") == "histo"
    with pytest.raises(ValueError):
        tf.Summary(nope=1)
    with pytest.raises(AttributeError):
        v.nope = 1
    e = tf.Event.FromString(ref.EVENT_SCALAR)
    assert (e.wall_time, e.step, e.summary.value[0].tag, e.summary.value[0].simple_value) == (1234.5, 7, "loss", 1.5)
    assert e.file_version == "" and not e.HasField("file_version")
    assert "simple_value: 1.5" in str(e)


# -- TF1's own event file --------------------------------------------------------------


def test_first_event_and_session_log_bytes_match_tf1(tmp_path):
    events = [Event.FromString(r) for r in iter_records(__import__("io").BytesIO(ref.EVENT_FILE_SESSION_LOG))]
    first, log = events
    assert first.wall_time == ref.EVENT_FILE_SECONDS and first.file_version == "brain.Event:2"
    assert first.source_metadata.writer == "tensorflow.core.util.events_writer"
    assert log.step == 3 and log.session_log.status == tf.SessionLog.START
    # dflow encodes the same events to the same file bytes.
    mine = Event(wall_time=float(ref.EVENT_FILE_SECONDS), file_version="brain.Event:2",
                 source_metadata=SourceMetadata(writer="tensorflow.core.util.events_writer"))
    again = Event(wall_time=log.wall_time, step=3, session_log=tf.SessionLog(status=tf.SessionLog.START))
    assert encode_record(mine.SerializeToString()) + encode_record(again.SerializeToString()) == \
        ref.EVENT_FILE_SESSION_LOG
    path = tmp_path / "events.out.tfevents.1795351092.vm.sfx"
    path.write_bytes(ref.EVENT_FILE_SESSION_LOG)
    assert [e.step for e in tf.train.summary_iterator(str(path))] == [0, 3]


# -- FileWriter ------------------------------------------------------------------------


def _events(logdir):
    files = sorted(os.listdir(logdir))
    assert len(files) == 1, files
    return list(tf.train.summary_iterator(os.path.join(logdir, files[0])))


def test_file_writer_writes_what_it_is_given(tmp_path):
    x = tf.placeholder(tf.float32, [None], name="x")
    tf.summary.scalar("avg", tf.reduce_mean(x))
    tf.summary.histogram("values", x)
    merged = tf.summary.merge_all()
    writer = tf.summary.FileWriter(str(tmp_path), filename_suffix=".test")
    assert writer.get_logdir() == str(tmp_path)
    (name,) = os.listdir(tmp_path)
    host = re.escape(socket.gethostname())
    assert re.fullmatch(rf"events\.out\.tfevents\.\d{{10}}\.{host}\.test", name)
    with tf.Session() as sess:
        for step in range(3):
            writer.add_summary(sess.run(merged, {x: np.arange(4.0) + step}), global_step=step * 10)
    writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="manual", simple_value=0.25)]), 99)
    writer.add_session_log(tf.SessionLog(status=tf.SessionLog.STOP), 100)
    writer.close()
    events = _events(tmp_path)
    assert events[0].file_version == "brain.Event:2" and events[0].wall_time == int(name.split(".")[3])
    assert [e.step for e in events] == [0, 0, 10, 20, 99, 100]
    assert [[v.tag for v in e.summary.value] for e in events[1:4]] == [["avg", "values"]] * 3
    assert [e.summary.value[0].simple_value for e in events[1:4]] == [1.5, 2.5, 3.5]
    histo = events[3].summary.value[1].histo
    assert (histo.min, histo.max, histo.num, histo.sum) == (2.0, 5.0, 4.0, 14.0)
    assert events[4].summary.value[0].simple_value == 0.25
    assert events[5].session_log.status == tf.SessionLog.STOP
    assert all(e.wall_time > 1e9 for e in events)


def test_add_summary_strips_metadata_of_tags_already_seen(tmp_path):
    t = tf.summary.text("txt", tf.constant("hello"))
    with tf.Session() as sess, tf.summary.FileWriter(str(tmp_path)) as writer:
        data = sess.run(t)
        writer.add_summary(data, 1)
        writer.add_summary(data, 2)
    first, second = (e.summary.value[0] for e in _events(tmp_path)[1:])
    assert first.metadata.plugin_data.plugin_name == "text" and not second.HasField("metadata")
    assert list(second.tensor.string_val) == [b"hello"]


def test_events_are_queued_until_max_queue_or_flush(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path), max_queue=3, flush_secs=1000)
    (path,) = (os.path.join(tmp_path, n) for n in os.listdir(tmp_path))
    assert len(list(read_records(path))) == 1  # the file_version event is written at once
    writer.add_summary(ref.SCALAR_LOSS, 1)
    writer.add_summary(ref.SCALAR_LOSS, 2)
    assert len(list(read_records(path))) == 1
    writer.add_summary(ref.SCALAR_LOSS, 3)  # the queue is full: written
    writer.event_writer._file.flush()
    assert len(list(read_records(path))) == 4
    writer.add_summary(ref.SCALAR_LOSS, 4)
    writer.flush()
    assert len(list(read_records(path))) == 5
    writer.close()


def test_background_flush(tmp_path):
    import time

    writer = tf.summary.FileWriter(str(tmp_path), flush_secs=0.05)
    (path,) = (os.path.join(tmp_path, n) for n in os.listdir(tmp_path))
    writer.add_summary(ref.SCALAR_LOSS, 1)
    deadline = time.time() + 10
    while len(list(read_records(path))) < 2 and time.time() < deadline:
        time.sleep(0.02)
    assert len(list(read_records(path))) == 2
    writer.close()


def test_close_drops_later_events_and_reopen_starts_a_new_file(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_summary(ref.SCALAR_LOSS, 1)
    writer.close()
    writer.add_summary(ref.SCALAR_LOSS, 2)  # dropped, as TF1 does
    writer.flush()
    writer.close()
    writer.reopen()
    writer.add_summary(ref.SCALAR_LOSS, 3)
    writer.close()
    files = sorted(os.listdir(tmp_path))
    assert len(files) == 2
    steps = sorted([e.step for e in tf.train.summary_iterator(os.path.join(tmp_path, f))][1:] for f in files)
    assert steps == [[1], [3]]


def test_add_event_and_bad_inputs(tmp_path):
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_event(tf.Event(wall_time=5.0, step=6, file_version="x"))
        with pytest.raises(TypeError):
            writer.add_summary(1.5)
        with pytest.raises(TypeError):
            writer.add_session_log("START")
        with pytest.raises(TypeError):
            writer.add_graph(object())
        with pytest.raises(TypeError, match="meta_graph_def must be type MetaGraphDef"):
            writer.add_meta_graph(None)
        with pytest.raises(TypeError, match="tf.RunMetadata"):
            writer.add_run_metadata(b"", "tag")
    assert (_events(tmp_path)[1].wall_time, _events(tmp_path)[1].step) == (5.0, 6)


def test_add_graph_writes_a_graph_def(tmp_path):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    first = tf.no_op(name="first")
    with tf.control_dependencies([first]):
        y = tf.identity(x, name="y")
    tf.identity(y, name="out")
    with tf.summary.FileWriter(str(tmp_path), graph=tf.get_default_graph()):
        pass
    graph_event = _events(tmp_path)[1]
    assert graph_event.WhichOneof("what") == "graph_def"
    g = GraphDefProto.FromString(graph_event.graph_def)
    nodes = {n.name: n for n in g.node}
    assert set(nodes) == {op.name for op in tf.get_default_graph().get_operations()}
    assert nodes["x"].op == "Placeholder" and nodes["out"].input == ["y"]
    assert nodes["y"].input[0] == "x" and nodes["y"].input[-1] == "^first"
    attrs = dict(nodes["x"].attr)
    assert [d.size for d in attrs["_output_shapes"].list.shape[0].dim] == [-1, 3]
    assert attrs["T"].type == tf.float32.as_datatype_enum


def test_add_graph_of_a_dflow_graph_def(tmp_path):
    tf.identity(tf.constant(1.0, name="c"), name="out")
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_graph(None, graph_def=tf.get_default_graph().as_graph_def())
    g = GraphDefProto.FromString(_events(tmp_path)[1].graph_def)
    assert [(n.name, n.op, list(n.input)) for n in g.node] == [("c", "Const", []), ("out", "Identity", ["c"])]


def test_file_writer_cache(tmp_path):
    a = tf.summary.FileWriterCache.get(str(tmp_path))
    assert tf.summary.FileWriterCache.get(str(tmp_path)) is a
    tf.summary.FileWriterCache.clear()
    b = tf.summary.FileWriterCache.get(str(tmp_path))
    assert b is not a
    tf.summary.FileWriterCache.clear()


def test_run_metadata_and_meta_graphs_for_tensorboard(tmp_path):
    # TF 2.15's config_pb2.RunMetadata and meta_graph_pb2.MetaGraphDef parse these events (checked by
    # hand); here dflow's own protos read them back.
    from dflow.framework.protos.summary_pb import RunMetadataProto
    from dflow.summary.graph_def import MetaGraphDefProto

    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.nn.relu(x + 1.0, name="y")
    with tf.Session() as sess:
        md = tf.RunMetadata()
        sess.run(y, {x: np.ones((2, 3), np.float32)}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=md)
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_run_metadata(md, "step1", global_step=1)
        with pytest.raises(ValueError, match="The provided tag was already used for this event type"):
            writer.add_run_metadata(md, "step1")
        writer.add_meta_graph(tf.train.export_meta_graph(), global_step=2)
    tagged, meta = _events(tmp_path)[1:]
    assert (tagged.step, tagged.tagged_run_metadata.tag, meta.step) == (1, "step1", 2)
    (dev,) = RunMetadataProto.FromString(tagged.tagged_run_metadata.run_metadata).step_stats.dev_stats
    want = {n.node_name: n for d in md.step_stats.dev_stats for n in d.node_stats}
    assert dev.device == md.step_stats.dev_stats[0].device
    assert {n.node_name: (n.timeline_label, n.all_start_micros, n.all_end_rel_micros) for n in dev.node_stats} == {
        k: (n.timeline_label, n.all_start_micros, n.all_end_rel_micros) for k, n in want.items()}
    proto = MetaGraphDefProto.FromString(meta.meta_graph_def)
    assert [n.name for n in proto.graph_def.node] == [op.name for op in tf.get_default_graph().get_operations()]
    restored = tf.MetaGraphDef.FromString(proto.dflow_meta_graph)
    assert sorted(n["name"] for n in restored.graph_def.to_dict()["ops"]) == sorted(
        op.name for op in tf.get_default_graph().get_operations())
