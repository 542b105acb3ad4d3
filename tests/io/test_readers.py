"""TF1's queue-based readers and file ops: records, keys, counters, names and errors as TF 2.15
gives them (/tmp/ref/io/reader_ref.py, file_ops_ref.py)."""

import os
import zlib

import pytest

import dflow as tf

CLOSED = "' is closed and has insufficient elements (requested 1, current size 0)"


@pytest.fixture
def d(tmp_path):
    d = str(tmp_path)
    open(d + "/t1", "w").write("h1\nline a\r\nline b\n\nlast")
    open(d + "/t2", "w").write("h2\nx\n")
    open(d + "/empty", "w").write("")
    for i, name in enumerate("ab"):
        with tf.io.TFRecordWriter(d + "/r" + name) as w:
            for j in range(i + 2):
                w.write(b"%s%d" % (name.encode(), j))
    open(d + "/f", "wb").write(b"HH" + b"abcdefghij" + b"FF")
    open(d + "/fz", "wb").write(zlib.compress(b"HH" + b"abcdefghij" + b"FF"))
    return d


def drive(make_reader, files, n=None, calls=12):
    """Every read (or read_up_to(n)) of a reader over a closed queue of ``files``, then the counters."""
    tf.reset_default_graph()
    q = tf.FIFOQueue(10, tf.string, shapes=[[]])
    reader = make_reader()
    kv = reader.read(q) if n is None else reader.read_up_to(q, n)
    out = []
    with tf.Session() as s:
        s.run(q.enqueue_many([files]))
        s.run(q.close())
        for _ in range(calls):
            try:
                k, v = s.run(kv)
                out.append((k.tolist(), v.tolist()) if n else (k, v))
            except tf.errors.OutOfRangeError as e:
                assert CLOSED in e.message
                out.append("end")
                break
            except tf.errors.OpError as e:
                out.append((type(e).__name__, e.message.split("\n")[0]))
        out.append(s.run([reader.num_records_produced(), reader.num_work_units_completed()]))
    return out


def test_text_line_reader(d):
    t1, t2 = (d + "/t1").encode(), (d + "/t2").encode()
    assert drive(tf.TextLineReader, [d + "/t1", d + "/empty", d + "/t2"]) == [
        (t1 + b":1", b"h1"), (t1 + b":2", b"line a"), (t1 + b":3", b"line b"), (t1 + b":4", b""),
        (t1 + b":5", b"last"), (t2 + b":1", b"h2"), (t2 + b":2", b"x"), "end", [7, 3]]
    assert drive(lambda: tf.TextLineReader(skip_header_lines=1), [d + "/t1", d + "/t2"]) == [
        (t1 + b":2", b"line a"), (t1 + b":3", b"line b"), (t1 + b":4", b""), (t1 + b":5", b"last"),
        (t2 + b":2", b"x"), "end", [5, 2]]
    # read_up_to stops at the end of a work item
    assert drive(tf.TextLineReader, [d + "/t1"], n=3) == [
        ([t1 + b":1", t1 + b":2", t1 + b":3"], [b"h1", b"line a", b"line b"]),
        ([t1 + b":4", t1 + b":5"], [b"", b"last"]), "end", [5, 1]]
    assert drive(tf.TextLineReader, [d + "/t2", d + "/t2"], n=3) == [
        ([t2 + b":1", t2 + b":2"], [b"h2", b"x"]), ([t2 + b":1", t2 + b":2"], [b"h2", b"x"]), "end", [4, 2]]


def test_graph_names_and_shapes():
    tf.reset_default_graph()
    q = tf.FIFOQueue(10, tf.string, shapes=[[]])
    r = tf.TextLineReader()
    k, v = r.read(q)
    assert (r.reader_ref.name, r.supports_serialize, k.name, v.name, k.shape.as_list()) == \
        ("TextLineReaderV2:0", False, "ReaderReadV2:0", "ReaderReadV2:1", [])
    r2 = tf.TFRecordReader(name="myr")
    ks, vs = r2.read_up_to(q, 3)
    assert (r2.reader_ref.name, ks.name, ks.shape.as_list(), vs.shape.as_list()) == \
        ("myr:0", "ReaderReadUpToV2:0", [None], [None])
    ident = tf.IdentityReader()
    assert ident.supports_serialize
    assert ident.serialize_state().name == "ReaderSerializeStateV2:0"
    assert ident.reset().name == "ReaderResetV2"
    assert ident.num_records_produced().name == "ReaderNumRecordsProducedV2:0"
    assert ident.num_work_units_completed().name == "ReaderNumWorkUnitsCompletedV2:0"
    assert isinstance(r, tf.ReaderBase)


def test_tf_record_reader(d):
    ra, rb = (d + "/ra").encode(), (d + "/rb").encode()
    assert drive(tf.TFRecordReader, [d + "/ra", d + "/rb"]) == [
        (ra + b":0", b"a0"), (ra + b":18", b"a1"), (rb + b":0", b"b0"), (rb + b":18", b"b1"), (rb + b":36", b"b2"),
        "end", [5, 2]]
    assert drive(tf.TFRecordReader, [d + "/ra", d + "/rb"], n=3) == [
        ([ra + b":0", ra + b":18"], [b"a0", b"a1"]), ([rb + b":0", rb + b":18", rb + b":36"], [b"b0", b"b1", b"b2"]),
        "end", [5, 2]]
    assert drive(tf.TFRecordReader, [d + "/nope", d + "/ra"]) == [
        ("NotFoundError", f"{d}/nope; No such file or directory"), (ra + b":0", b"a0"), (ra + b":18", b"a1"), "end",
        [2, 1]]
    with tf.io.TFRecordWriter(d + "/gz", "GZIP") as w:
        w.write(b"z")
    opts = tf.io.TFRecordOptions(tf.io.TFRecordCompressionType.GZIP)
    assert drive(lambda: tf.TFRecordReader(options=opts), [d + "/gz"])[0] == ((d + "/gz:0").encode(), b"z")


def test_whole_file_identity_and_fixed_length_readers(d):
    f = (d + "/f").encode()
    assert drive(tf.WholeFileReader, [d + "/t2", d + "/f"]) == [
        ((d + "/t2").encode(), b"h2\nx\n"), (f, b"HHabcdefghijFF"), "end", [2, 2]]
    assert drive(tf.IdentityReader, ["w1", "w2"]) == [(b"w1", b"w1"), (b"w2", b"w2"), "end", [2, 2]]
    assert drive(lambda: tf.FixedLengthRecordReader(4, header_bytes=2, footer_bytes=2), [d + "/f", d + "/f"]) == [
        (f + b":0", b"abcd"), (f + b":1", b"efgh"), (f + b":0", b"abcd"), (f + b":1", b"efgh"), "end", [4, 2]]
    assert drive(lambda: tf.FixedLengthRecordReader(4, header_bytes=2, footer_bytes=2, hop_bytes=3), [d + "/f"]) == [
        (f + b":0", b"abcd"), (f + b":1", b"defg"), (f + b":2", b"ghij"), "end", [3, 1]]
    fz = (d + "/fz").encode()
    assert drive(lambda: tf.FixedLengthRecordReader(4, header_bytes=2, footer_bytes=2, encoding="ZLIB"),
                 [d + "/fz"]) == [(fz + b":0", b"abcd"), (fz + b":1", b"efgh"), "end", [2, 1]]


def test_serialize_restore_and_reset():
    tf.reset_default_graph()
    q = tf.FIFOQueue(10, tf.string, shapes=[[]])
    r = tf.IdentityReader()
    k, v = r.read(q)
    st = r.serialize_state()
    with tf.Session() as s:
        s.run(q.enqueue_many([["w1", "w2"]]))
        assert s.run([k, v]) == [b"w1", b"w1"]
        b = s.run(st)
        assert b.hex() == "08011001180122027731"
        s.run(r.reset())
        assert s.run(r.num_records_produced()) == 0
        s.run(r.restore_state(b))
        assert s.run([r.num_records_produced(), r.num_work_units_completed()]) == [1, 1]
        assert s.run([k, v]) == [b"w2", b"w2"]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse state for IdentityReader "
                                                                 "'IdentityReaderV2': junk"):
            s.run(r.restore_state(b"junk"))
        with pytest.raises(tf.errors.UnimplementedError, match="Reader SerializeState"):
            s.run(tf.TFRecordReader().serialize_state())


def test_queue_checks():
    tf.reset_default_graph()
    q = tf.FIFOQueue(10, [tf.string, tf.string])
    k, _ = tf.WholeFileReader().read(q)
    q2 = tf.FIFOQueue(10, [tf.int32])
    k2, _ = tf.WholeFileReader().read(q2)  # built without complaint, as TF1
    with tf.Session() as s:
        s.run(q.enqueue(["a", "b"]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected single component queue"):
            s.run(k)
        s.run(q2.enqueue([3]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected queue with single string component"):
            s.run(k2)


def test_string_input_producer_pipeline(d):
    tf.reset_default_graph()
    q = tf.train.string_input_producer([d + "/ra", d + "/rb"], num_epochs=1, shuffle=False)
    _, value = tf.TFRecordReader().read(q)
    got = []
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(s, coord)
        try:
            while True:
                got.append(s.run(value))
        except tf.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads)
    assert got == [b"a0", b"a1", b"b0", b"b1", b"b2"]


def test_file_ops(tmp_path):
    tf.reset_default_graph()
    d = str(tmp_path)
    open(d + "/b.txt", "w").write("bb")
    open(d + "/a.txt", "w").write("aa")
    os.mkdir(d + "/sub")
    r = tf.read_file(d + "/a.txt")
    w = tf.write_file(d + "/new/deep/x.txt", "hello")
    m = tf.matching_files(d + "/*.txt")
    m2 = tf.io.matching_files([d + "/b*", d + "/*.txt", d + "/nope/*"])
    m3 = tf.io.matching_files(d + "/zz*")
    v = tf.train.match_filenames_once(d + "/*.txt")
    assert tf.io.match_filenames_once is tf.train.match_filenames_once
    assert (r.name, r.shape.as_list(), w.name, m.name, m.shape.as_list(), v.name) == \
        ("ReadFile:0", [], "WriteFile", "MatchingFiles:0", [None], "matching_filenames:0")
    assert [x.name for x in tf.local_variables()] == ["matching_filenames:0"]
    a, b = (d + "/a.txt").encode(), (d + "/b.txt").encode()
    with tf.Session() as s:
        assert s.run(r) == b"aa"
        assert s.run(w) is None
        assert open(d + "/new/deep/x.txt").read() == "hello"
        assert s.run(m).tolist() == [a, b]
        assert s.run(m2).tolist() == [a, b, b]
        assert s.run(m3).tolist() == []
        with pytest.raises(tf.errors.NotFoundError, match=f"{d}/missing; No such file or directory"):
            s.run(tf.read_file(d + "/missing"))
        with pytest.raises(tf.errors.FailedPreconditionError, match=f"{d}/sub; Is a directory"):
            s.run(tf.read_file(d + "/sub"))
        s.run(tf.local_variables_initializer())
        assert s.run(v).tolist() == [a, b]
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.read_file([d + "/a.txt"])
    with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
        tf.matching_files([[d]])


def test_lmdb_reader_is_not_available():
    with pytest.raises(NotImplementedError, match="LMDBReader"):
        tf.LMDBReader()


def test_cifar_style_pipeline(tmp_path):
    # TF1's CIFAR-10 input: fixed-length records of a label byte and an image, decode_raw, slice, batch
    tf.reset_default_graph()
    path = str(tmp_path / "data_batch.bin")
    with open(path, "wb") as f:
        for i in range(6):
            f.write(bytes([i % 10]) + bytes((i + j) % 256 for j in range(2 * 2 * 3)))
    q = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
    _, value = tf.FixedLengthRecordReader(record_bytes=13).read(q)
    raw = tf.decode_raw(value, tf.uint8)
    label = tf.cast(tf.strided_slice(raw, [0], [1]), tf.int32)
    label.set_shape([1])  # as TF1's CIFAR-10 code does: the slice of an unknown length has an unknown length
    image = tf.transpose(tf.reshape(tf.strided_slice(raw, [1], [13]), [3, 2, 2]), [1, 2, 0])
    labels, images = tf.train.batch([label, image], batch_size=3)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        got_labels, got_images = sess.run([labels, images])
        coord.request_stop()
        coord.join(threads)
    assert got_labels.ravel().tolist() == [0, 1, 2]
    assert got_images.shape == (3, 2, 2, 3) and got_images.dtype.name == "uint8"
    assert got_images[1, :, :, 0].ravel().tolist() == [1, 2, 3, 4]  # channel 0 of record 1


def test_tf1_example_queue_pipeline(tmp_path):
    # python_io writer, string_input_producer, TFRecordReader, parse_single_example, shuffle_batch
    tf.reset_default_graph()
    path = str(tmp_path / "train.tfrecords")
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(8):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i, -i]))}))
            w.write(ex.SerializeToString())
    q = tf.train.string_input_producer([path], num_epochs=1)
    _, serialized = tf.TFRecordReader().read(q)
    feats = tf.parse_single_example(serialized, {"label": tf.FixedLenFeature([], tf.int64),
                                                 "x": tf.FixedLenFeature([2], tf.float32)})
    labels, xs = tf.train.shuffle_batch([feats["label"], feats["x"]], batch_size=4, capacity=8, min_after_dequeue=2,
                                        seed=1)
    got = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        for _ in range(2):
            lab, x = sess.run([labels, xs])
            assert x[:, 0].tolist() == lab.tolist() and x[:, 1].tolist() == (-lab).tolist()
            got += lab.tolist()
        coord.request_stop()
        coord.join(threads)
    assert sorted(got) == list(range(8))
