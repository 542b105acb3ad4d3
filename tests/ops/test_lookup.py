"""tf.lookup tables and feature_column.categorical_column_with_vocabulary_file against TF 2.15's
figures (reference scripts: /tmp/ref/strings/ref7.py, ref8.py)."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf


@pytest.fixture
def files(tmp_path):
    paths = {"vocab": "emerson\nlake\npalmer\n", "cols": "a\t1\t0.5\nb\t2\t1.5\nc\t3\t2.5\n", "blank": "x\n\ny\n",
             "crlf": "x\r\ny\r\n"}
    for name, text in paths.items():
        (tmp_path / f"{name}.txt").write_bytes(text.encode())
    return {name: str(tmp_path / f"{name}.txt") for name in paths}


def _run(build):
    """Builds in a fresh graph, runs the table initializers, then the fetches."""
    with tf.Graph().as_default():
        fetches = build()
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            return sess.run(fetches)


def _fails(build, error, match):
    with pytest.raises(error, match=match):
        _run(build)


def test_static_hash_table_graph_and_values_match_tf():
    with tf.Graph().as_default():
        init = tf.lookup.KeyValueTensorInitializer(["a", "b", "c"], [1, 2, 3], value_dtype=tf.int64)
        assert (init.key_dtype, init.value_dtype) == (tf.string, tf.int64)
        table = tf.lookup.StaticHashTable(init, -1)
        out = table.lookup(tf.constant(["a", "z", "c"]))
        size, exported = table.size(), table.export()
        assert (table.name, table.resource_handle.name, table.resource_handle.op.type) == \
            ("hash_table", "hash_table:0", "HashTableV2")
        assert (out.name, out.op.type, out.shape.as_list()) == ("hash_table_Lookup/LookupTableFindV2:0",
                                                                 "LookupTableFindV2", [3])
        assert (size.name, size.dtype) == ("hash_table_Size/LookupTableSizeV2:0", tf.int64)
        assert [e.name for e in exported] == ["hash_table_Export/LookupTableExportV2:0",
                                              "hash_table_Export/LookupTableExportV2:1"]
        assert table.initializer.name == "key_value_init/LookupTableImportV2"
        assert tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS) == [table.initializer]
        two_d = table.lookup(tf.constant([["a", "b"], ["q", "c"]]))
        sparse = table.lookup(tf.SparseTensor([[0, 0], [1, 2]], ["b", "x"], [2, 3]))
        with pytest.raises(TypeError, match="Dtype of argument `keys` must be"):
            table.lookup(tf.constant([1, 2]))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized."):
                sess.run(out)
            assert sess.run(size) == 0
            sess.run(tf.tables_initializer())
            sess.run(tf.tables_initializer())  # a second initialization leaves the table as it is
            got = sess.run([out, size, exported, two_d, sparse])
    assert got[0].tolist() == [1, -1, 3] and got[1] == 3
    assert sorted(zip(got[2][0].tolist(), got[2][1].tolist())) == [(b"a", 1), (b"b", 2), (b"c", 3)]
    assert got[3].tolist() == [[1, 2], [-1, 3]]
    assert got[4].indices.tolist() == [[0, 0], [1, 2]] and got[4].values.tolist() == [2, -1]
    assert got[4].dense_shape.tolist() == [2, 3]


def test_key_value_tables_match_tf():
    def table(keys, values, default):
        return tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, values), default)

    _fails(lambda: table(["a", "a"], [1, 2], -1).size(), tf.errors.FailedPreconditionError,
           "HashTable has different value for same key. Key a has 1 and trying to add value 2")
    assert _run(lambda: table(["a", "a"], [1, 1], -1).size()) == 1
    assert _run(lambda: table(["a", "b", "a"], [1, 2, 1], -1).size()) == 2
    assert _run(lambda: table(tf.constant([1, 5]), ["x", "y"], "?").lookup(tf.constant([5, 2]))).tolist() == \
        [b"y", b"?"]
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="must be tf.int32, received: tf.int64"):
            table([1, 5], [0.5, 1.5], -1.0).lookup(tf.constant([5, 2], tf.int64))


def test_text_file_tables_match_tf(files):
    def table(path, key_dtype, key_index, value_dtype, value_index, default, **kw):
        return tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(path, key_dtype, key_index, value_dtype, value_index, **kw), default)

    whole, line = tf.lookup.TextFileIndex.WHOLE_LINE, tf.lookup.TextFileIndex.LINE_NUMBER
    assert (whole, line) == (-2, -1)
    got = _run(lambda: [
        table(files["vocab"], tf.string, whole, tf.int64, line, -1).lookup(tf.constant(["lake", "x", "palmer"])),
        table(files["cols"], tf.string, 0, tf.float32, 2, -1.0).lookup(tf.constant(["b", "x"])),
        table(files["cols"], tf.int64, 1, tf.string, 0, "?").lookup(tf.constant([3, 9], tf.int64)),
        table(files["vocab"], tf.string, whole, tf.int64, line, -1, vocab_size=2).lookup(
            tf.constant(["lake", "palmer"])),
        table(files["vocab"], tf.string, whole, tf.int64, line, -1, value_index_offset=10).lookup(
            tf.constant(["emerson"])),
        table(files["crlf"], tf.string, whole, tf.int64, line, -1).lookup(tf.constant(["x", "y"])),
        table(files["vocab"], tf.int64, line, tf.string, whole, "?").lookup(tf.constant([0, 2, 5], tf.int64))])
    assert got[0].tolist() == [1, -1, 2]
    np.testing.assert_array_equal(got[1], np.array([1.5, -1.0], np.float32))
    assert got[2].tolist() == [b"c", b"?"]
    assert got[3].tolist() == [1, -1]
    assert got[4].tolist() == [10]
    assert got[5].tolist() == [0, 1]
    assert got[6].tolist() == [b"emerson", b"palmer", b"?"]
    _fails(lambda: table(files["vocab"], tf.string, whole, tf.int64, line, -1, vocab_size=5).size(),
           tf.errors.InvalidArgumentError, "Invalid vocab_size in .*vocab.txt: expected 5 but got 3")
    _fails(lambda: table(files["cols"], tf.string, 0, tf.int64, 5, -1).size(), tf.errors.InvalidArgumentError,
           r"Invalid number of columns in .*cols.txt line 0 \(a\t1\t0.5\) : expected at least 6 got 3")
    _fails(lambda: table(files["vocab"] + ".nope", tf.string, whole, tf.int64, line, -1).size(),
           tf.errors.NotFoundError, "No such file or directory")
    _fails(lambda: table(files["blank"], tf.string, whole, tf.int64, line, -1).size(),
           tf.errors.InvalidArgumentError, "empty line found at position 3")
    _fails(lambda: table(files["cols"], tf.int64, 0, tf.int64, line, -1).size(),
           tf.errors.InvalidArgumentError, "Field a in line 0 is not a valid int64")
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="must be int64"):
            tf.lookup.TextFileInitializer(files["vocab"], tf.string, line, tf.int64, whole)


def test_static_vocabulary_table_matches_tf(files):
    def kv_table(keys, ids, buckets):
        return tf.lookup.StaticVocabularyTable(
            tf.lookup.KeyValueTensorInitializer(keys, tf.constant(ids, tf.int64)), buckets)

    with tf.Graph().as_default():
        t = kv_table(["a"], [0], 2)
        assert (t.name, t.resource_handle.name) == ("hash_table", "hash_table:0")
        assert t.lookup(tf.constant(["a"])).name.startswith("hash_table_Lookup/")
        assert t.size().name.startswith("hash_table_Size/")
        with pytest.raises(ValueError, match="`num_oov_buckets` must be > 0; use StaticHashTable."):
            kv_table(["a"], [0], 0)
    got = _run(lambda: [
        tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(
            files["vocab"], tf.string, -2, tf.int64, -1), 5).lookup(tf.constant(["lake", "x", "palmer", "hello", ""])),
        kv_table(["a", "b"], [0, 1], 3).size(),
        tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant([10, 20], tf.int64), tf.constant([0, 1], tf.int64)), 4).lookup(
            tf.constant([20, 7, 10, 123], tf.int64))])
    assert got[0].tolist() == [1, 3, 2, 4, 6]
    assert got[1] == 5
    assert got[2].tolist() == [1, 2, 0, 5]


def test_categorical_column_with_vocabulary_file_matches_tf(files):
    def build():
        fc = tf.feature_column.categorical_column_with_vocabulary_file("w", files["vocab"], num_oov_buckets=2)
        fc2 = tf.feature_column.categorical_column_with_vocabulary_file("w", files["vocab"], vocabulary_size=2,
                                                                         default_value=0)
        assert (fc.vocabulary_size, fc._num_buckets, fc2._num_buckets) == (3, 5, 2)
        return [tf.feature_column.input_layer({"w": tf.constant([["lake"], ["zzz"], ["emerson"]])},
                                              [tf.feature_column.indicator_column(fc)]),
                tf.feature_column.input_layer({"w": tf.constant([["lake"], ["zzz"], ["palmer"]])},
                                              [tf.feature_column.indicator_column(fc2)])]

    got = _run(build)
    assert got[0].tolist() == [[0, 1, 0, 0, 0], [0, 0, 0, 1, 0], [1, 0, 0, 0, 0]]
    assert got[1].tolist() == [[0, 1], [1, 0], [1, 0]]
    with pytest.raises(ValueError, match="Can't specify both num_oov_buckets and default_value"):
        tf.feature_column.categorical_column_with_vocabulary_file("w", files["vocab"], num_oov_buckets=1,
                                                                  default_value=0)
    with pytest.raises(ValueError, match="does not exist"):
        tf.feature_column.categorical_column_with_vocabulary_file("w", files["vocab"] + ".nope")
