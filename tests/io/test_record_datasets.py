"""tf.data.TFRecordDataset and FixedLengthRecordDataset: records, interleaving order and errors as
TF 2.15 gives them (/tmp/ref/io/ds_ref.py)."""

import gzip
import zlib

import pytest

import dflow as tf


def run(ds) -> list:
    """The elements, and then ``(error class name, message)`` if one ends the iteration."""
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf.Session() as s:
        while True:
            try:
                out.append(s.run(nxt))
            except tf.errors.OutOfRangeError:
                return out
            except tf.errors.OpError as e:
                return out + [(type(e).__name__, e.message.split("\n")[0])]


@pytest.fixture
def files(tmp_path):
    names = []
    for i, name in enumerate("abc"):
        p = str(tmp_path / f"t{name}")
        with tf.io.TFRecordWriter(p) as w:
            for j in range(i + 2):
                w.write(b"%s%d" % (name.encode(), j))
        names.append(p)
    return names


def test_tfrecord_dataset(files, tmp_path):
    tf.reset_default_graph()
    ds = tf.data.TFRecordDataset(files)
    assert ds.output_types == tf.string and ds.output_shapes.as_list() == []
    assert run(ds) == [b"a0", b"a1", b"b0", b"b1", b"b2", b"c0", b"c1", b"c2", b"c3"]
    assert run(tf.data.TFRecordDataset(files, num_parallel_reads=2)) == \
        [b"a0", b"b0", b"a1", b"b1", b"b2", b"c0", b"c1", b"c2", b"c3"]
    assert run(tf.data.TFRecordDataset(files, num_parallel_reads=3)) == \
        [b"a0", b"b0", b"c0", b"a1", b"b1", b"c1", b"b2", b"c2", b"c3"]
    assert run(tf.data.TFRecordDataset([files])) == run(tf.data.TFRecordDataset(files))  # any rank, flattened
    with pytest.raises(TypeError, match="The `filenames` argument must contain `tf.string` elements. Got "
                                        "`tf.int32` elements."):
        tf.data.TFRecordDataset([1, 2])
    gz = str(tmp_path / "tz")
    with tf.io.TFRecordWriter(gz, "GZIP") as w:
        w.write(b"z1")
        w.write(b"z2")
    assert run(tf.data.TFRecordDataset(gz, "GZIP")) == [b"z1", b"z2"]
    fed = tf.placeholder(tf.string, [])
    it = tf.data.make_initializable_iterator(tf.data.TFRecordDataset(gz, compression_type=fed))
    with tf.Session() as s:
        s.run(it.initializer, {fed: "GZIP"})
        assert s.run(it.get_next()) == b"z1"


def test_tfrecord_dataset_errors(files, tmp_path):
    tf.reset_default_graph()
    missing = str(tmp_path / "nope")
    assert run(tf.data.TFRecordDataset(missing)) == [("NotFoundError", f"{missing}; No such file or directory")]
    b = open(files[0], "rb").read()
    cut = str(tmp_path / "cut")
    open(cut, "wb").write(b[:-2])
    assert run(tf.data.TFRecordDataset(cut)) == \
        [b"a0", ("DataLossError", "truncated record at 18' failed with Read less bytes than requested")]
    bad = bytearray(b)
    bad[14] ^= 1
    open(cut, "wb").write(bytes(bad))
    assert run(tf.data.TFRecordDataset(cut)) == [("DataLossError", "corrupted record at 12")]


def test_fixed_length_record_dataset(tmp_path):
    tf.reset_default_graph()
    d = str(tmp_path)
    open(d + "/f1", "wb").write(b"HH" + b"abcdefgh" + b"ijk" + b"FF")
    open(d + "/f2", "wb").write(b"HH" + b"12345678" + b"FF")
    open(d + "/f3", "wb").write(b"HH" + b"abcdefgh" + b"ijkl" + b"FF")
    ds = tf.data.FixedLengthRecordDataset(d + "/f2", 4)
    assert ds.output_types == tf.string and ds.output_shapes.as_list() == []
    msg = ('Excluding the header ({} bytes) and footer ({} bytes), input file "{}" has body length {} bytes, which '
           'is not an exact multiple of the record length ({} bytes).')
    assert run(tf.data.FixedLengthRecordDataset([d + "/f1", d + "/f2"], 4, header_bytes=2, footer_bytes=2)) == \
        [("InvalidArgumentError", msg.format(2, 2, d + "/f1", 11, 4))]
    assert run(tf.data.FixedLengthRecordDataset([d + "/f3", d + "/f2"], 4, header_bytes=2, footer_bytes=2)) == \
        [b"abcd", b"efgh", b"ijkl", b"1234", b"5678"]
    assert run(tf.data.FixedLengthRecordDataset([d + "/f2"], 40)) == \
        [("InvalidArgumentError", msg.format(0, 0, d + "/f2", 12, 40))]
    open(d + "/g1", "wb").write(zlib.compress(b"HH" + b"abcdefgh" + b"ijk" + b"FF"))
    assert run(tf.data.FixedLengthRecordDataset([d + "/g1"], 4, header_bytes=2, footer_bytes=2,
                                                compression_type="ZLIB")) == \
        [b"abcd", b"efgh", ("DataLossError", msg.format(2, 2, d + "/g1", 11, 4))]
    open(d + "/g2", "wb").write(gzip.compress(b"HH" + b"abcdefgh" + b"FF"))
    assert run(tf.data.FixedLengthRecordDataset([d + "/g2"], 4, header_bytes=2, footer_bytes=2,
                                                compression_type="GZIP")) == [b"abcd", b"efgh"]
    assert run(tf.data.FixedLengthRecordDataset([d + "/nope"], 4)) == \
        [("NotFoundError", f"{d}/nope; No such file or directory")]
    with pytest.raises(ValueError, match="record_bytes must be >= 1"):
        tf.data.FixedLengthRecordDataset([d + "/f2"], 0)


def test_list_files_and_interleave(files, tmp_path):
    tf.reset_default_graph()
    pattern = str(tmp_path / "t*")
    assert run(tf.data.Dataset.list_files(pattern, shuffle=False)) == [f.encode() for f in files]
    assert run(tf.data.Dataset.list_files([str(tmp_path / "tc"), str(tmp_path / "ta")], shuffle=False)) == \
        [files[0].encode(), files[2].encode()]  # sorted, as TF's MatchingFiles
    assert sorted(run(tf.data.Dataset.list_files(pattern, seed=3))) == [f.encode() for f in files]
    assert run(tf.data.Dataset.list_files(str(tmp_path / "*.nope"))) == []
    ds = tf.data.Dataset.list_files(pattern, shuffle=False).interleave(tf.data.TFRecordDataset, cycle_length=2)
    assert run(ds) == [b"a0", b"b0", b"a1", b"b1", b"b2", b"c0", b"c1", b"c2", b"c3"]


def test_parse_example_dataset(tmp_path):
    tf.reset_default_graph()
    exs = []
    for i in range(3):
        ex = tf.train.Example()
        ex.features.feature["y"].int64_list.value.append(i)
        ex.features.feature["x"].float_list.value.extend([i, i / 2])
        exs.append(ex.SerializeToString())
    spec = {"y": tf.FixedLenFeature([], tf.int64), "x": tf.FixedLenFeature([2], tf.float32)}
    ds = tf.data.Dataset.from_tensor_slices(exs).batch(2).apply(tf.data.experimental.parse_example_dataset(spec))
    assert ds.output_shapes["x"].as_list() == [None, 2]
    got = run(ds)
    assert [g["y"].tolist() for g in got] == [[0, 1], [2]] and got[1]["x"].tolist() == [[2, 1]]
    with pytest.raises(TypeError, match="Input dataset should be a dataset of vectors of strings"):
        tf.data.Dataset.range(3).apply(tf.data.experimental.parse_example_dataset(spec))
