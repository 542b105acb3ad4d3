"""tf.io.parse_example, parse_single_example, parse_sequence_example and parse_single_sequence_example:
values, graph names, static shapes and errors as TF 2.15's (/tmp/ref/io/parse_ref.py, seq_ref.py).

The serialized protos are TF's bytes."""

import numpy as np
import pytest

import dflow as tf

E1 = bytes.fromhex(
    "0a80010a0e0a017312090a070a01610a0262620a1b0a03736571121412120a100000803f0000004000004040000080400a130a0376616c"
    "120c120a0a080000003f0000803e0a0d0a0369647812061a040a0202000a0c0a017612071a050a030506070a110a0177120c120a0a0800"
    "00803f000000400a0c0a0361676512051a030a0103")
E2 = bytes.fromhex(
    "0a610a0a0a017312050a030a01630a110a0177120c120a0a0800004040000080400a0f0a0376616c120812060a04000010410a130a0373"
    "6571120c120a0a080000a0400000c0400a0c0a0369647812051a030a01010a0c0a0361676512051a030a0104")
S1 = bytes.fromhex(
    "0a1c0a0c0a036c616212050a030a01780a0c0a036c656e12051a030a0103124f0a1a0a03746f6b12130a051a030a01010a061a040a0202"
    "030a021a000a310a03656d62122a0a0c120a0a080000803f000000400a0c120a0a0800004040000080400a0c120a0a080000a0400000c040")
S2 = bytes.fromhex(
    "0a0e0a0c0a036c656e12051a030a010112270a0e0a03746f6b12070a051a030a01090a150a03656d62120e0a0c120a0a080000e04000000041")


def features():
    return {
        "age": tf.FixedLenFeature([], tf.int64),
        "w": tf.FixedLenFeature([2], tf.float32),
        "w2": tf.FixedLenFeature([1, 2], tf.float32, default_value=[[7.0, 8.0]]),
        "missing": tf.FixedLenFeature([], tf.string, default_value="dflt"),
        "s": tf.VarLenFeature(tf.string),
        "v": tf.VarLenFeature(tf.int64),
        "sp": tf.SparseFeature(index_key="idx", value_key="val", dtype=tf.float32, size=4),
        "seq": tf.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
    }


def sparse_eq(got, indices, values, shape):
    assert got.indices.tolist() == indices and got.values.tolist() == values and got.dense_shape.tolist() == shape


def test_parse_example():
    tf.reset_default_graph()
    ser = tf.placeholder(tf.string, [None])
    out = tf.parse_example(ser, features())
    names = {k: (t.name, t.shape.as_list()) for k, t in out.items() if isinstance(t, tf.Tensor)}
    assert names == {"age": ("ParseExample/ParseExampleV2:12", [None]),
                     "missing": ("ParseExample/ParseExampleV2:13", [None]),
                     "seq": ("ParseExample/ParseExampleV2:14", [None, None, 2]),
                     "w": ("ParseExample/ParseExampleV2:15", [None, 2]),
                     "w2": ("ParseExample/ParseExampleV2:16", [None, 1, 2])}
    s, v = out["s"], out["v"]
    assert (s.indices.name, s.values.name, s.dense_shape.name) == \
        ("ParseExample/ParseExampleV2:0", "ParseExample/ParseExampleV2:4", "ParseExample/ParseExampleV2:8")
    assert (v.indices.name, v.values.name, v.dense_shape.name) == \
        ("ParseExample/ParseExampleV2:3", "ParseExample/ParseExampleV2:7", "ParseExample/ParseExampleV2:11")
    assert s.indices.shape.as_list() == [None, 2] and s.dense_shape.shape.as_list() == [2]
    assert out["sp"].values.dtype == tf.float32 and out["sp"].indices.shape.as_list() == [None, 2]
    with tf.Session() as sess:
        r = sess.run(out, {ser: [E1, E2]})
    assert r["age"].tolist() == [3, 4] and r["age"].dtype == np.int64
    assert r["missing"].tolist() == [b"dflt", b"dflt"]
    assert r["seq"].tolist() == [[[1, 2], [3, 4]], [[5, 6], [0, 0]]] and r["seq"].dtype == np.float32
    assert r["w"].tolist() == [[1, 2], [3, 4]]
    assert r["w2"].tolist() == [[[7, 8]], [[7, 8]]]
    sparse_eq(r["s"], [[0, 0], [0, 1], [1, 0]], [b"a", b"bb", b"c"], [2, 2])
    sparse_eq(r["v"], [[0, 0], [0, 1], [0, 2]], [5, 6, 7], [2, 3])
    sparse_eq(r["sp"], [[0, 0], [0, 2], [1, 1]], [0.25, 0.5, 9.0], [2, 4])
    assert tf.parse_example(tf.constant([E1, E2]), {"age": tf.FixedLenFeature([], tf.int64)})["age"].shape == [2]


def test_parse_single_example():
    tf.reset_default_graph()
    out = tf.parse_single_example(E1, features())
    assert out["age"].name == "ParseSingleExample/ParseExample/ParseExampleV2:12" and out["age"].shape == []
    assert out["w2"].shape == [1, 2] and out["seq"].shape.as_list() == [None, 2]
    assert out["s"].indices.shape.as_list() == [None, 1] and out["s"].dense_shape.shape == [1]
    with tf.Session() as sess:
        r = sess.run(out)
    assert (r["age"], r["missing"], r["w"].tolist(), r["w2"].tolist()) == (3, b"dflt", [1, 2], [[7, 8]])
    assert r["seq"].tolist() == [[1, 2], [3, 4]]
    sparse_eq(r["s"], [[0], [1]], [b"a", b"bb"], [2])
    sparse_eq(r["v"], [[0], [1], [2]], [5, 6, 7], [3])
    sparse_eq(r["sp"], [[0], [2]], [0.25, 0.5], [4])
    with pytest.raises(ValueError, match="Input serialized must be a scalar"):
        tf.parse_single_example(tf.placeholder(tf.string, [None]), {"x": tf.VarLenFeature(tf.int64)})


@pytest.mark.parametrize("label, feats, data, message", [
    ("required", {"nope": tf.FixedLenFeature([], tf.int64)}, [E1],
     "Name: <unknown>, Feature: nope (data type: int64) is required but could not be found."),
    ("type", {"age": tf.FixedLenFeature([], tf.float32)}, [E1],
     "Name: <unknown>, Key: age, Index: 0.  Data types don't match. Data type: int64 but expected type: float"),
    ("size", {"w": tf.FixedLenFeature([3], tf.float32)}, [E1, E2],
     "Name: <unknown>, Key: w, Index: 0.  Number of float values != expected.  Values size: 2 but output shape: [3]"),
    ("size2", {"w": tf.FixedLenFeature([], tf.float32)}, [E1],
     "Name: <unknown>, Key: w, Index: 0.  Number of float values != expected.  Values size: 2 but output shape: []"),
    ("varlen type", {"w": tf.VarLenFeature(tf.int64)}, [E1],
     "Name: <unknown>, Key: w, Index: 0.  Data types don't match. Expected type: int64, Actual type: float"),
    ("seq type", {"seq": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)}, [E1],
     "Name: <unknown>, Key: seq, Index: 0.  Data types don't match. Data type: float but expected type: int64"),
    ("seq size", {"seq": tf.FixedLenSequenceFeature([3], tf.float32, allow_missing=True)}, [E1],
     "Name: <unknown>, Key: seq, Index: 0.  Number of float values is not a multiple of stride length. Saw 4 values "
     "but output shape is: [?,3]"),
    ("garbage", {"age": tf.FixedLenFeature([], tf.int64)}, [b"garbage"],
     "Could not parse example input, value: 'garbage'"),
])
def test_parse_example_errors(label, feats, data, message):
    tf.reset_default_graph()
    ser = tf.placeholder(tf.string, [None])
    out = tf.parse_example(ser, feats)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(out, {ser: data})
    assert info.value.message.split("\n")[0] == message


def test_parse_example_edge_cases():
    tf.reset_default_graph()
    ser = tf.placeholder(tf.string, [None])
    with tf.Session() as sess:
        assert sess.run(tf.parse_example(ser, {"age": tf.FixedLenFeature([], tf.int64, default_value=9)}),
                        {ser: [b""]})["age"].tolist() == [9]
        named = tf.parse_example(ser, {"nope": tf.FixedLenFeature([], tf.int64)}, example_names=["ex_a", "ex_b"])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Name: ex_a, Feature: nope \\(data type: int64\\) is required"):
            sess.run(named, {ser: [E1, E2]})
    with pytest.raises(ValueError, match="Unsupported: FixedLenSequenceFeature requires allow_missing to be True."):
        tf.parse_example(ser, {"seq": tf.FixedLenSequenceFeature([2], tf.float32)})
    with pytest.raises(TypeError, match="Value passed to parameter 'dense_defaults' has DataType int32 not in list "
                                        "of allowed values: float32, int64, string"):
        tf.parse_example(ser, {"x": tf.FixedLenFeature([], tf.int32)})
    with pytest.raises(ValueError, match="Cannot reshape a tensor with 3 elements to shape \\[2\\] \\(2 elements\\)"):
        tf.parse_example(ser, {"x": tf.FixedLenFeature([2], tf.int64, default_value=[1, 2, 3])})
    with pytest.raises(ValueError, match="Argument `features` cannot be None."):
        tf.parse_example(ser, {})
    with pytest.raises(ValueError, match="Missing shape for feature x."):
        tf.parse_example(ser, {"x": tf.FixedLenFeature(None, tf.int64)})
    ragged = tf.parse_example(ser, {"x": tf.io.RaggedFeature(tf.int64)})["x"]  # more in test_ragged_feature.py
    assert isinstance(ragged, tf.RaggedTensor)
    assert repr(tf.FixedLenFeature([], tf.int64)) == "FixedLenFeature(shape=[], dtype=tf.int64, default_value=None)"
    assert repr(tf.SparseFeature("i", "v", tf.float32, 3)) == \
        "SparseFeature(index_key='i', value_key='v', dtype=tf.float32, size=3, already_sorted=False)"


CTX = {"len": tf.FixedLenFeature([], tf.int64), "lab": tf.FixedLenFeature([], tf.string, default_value="none"),
       "cv": tf.VarLenFeature(tf.string)}
SEQ = {"tok": tf.VarLenFeature(tf.int64), "emb": tf.FixedLenSequenceFeature([2], tf.float32),
       "opt": tf.FixedLenSequenceFeature([], tf.int64, allow_missing=True)}


def test_parse_single_sequence_example():
    tf.reset_default_graph()
    c, q = tf.parse_single_sequence_example(S1, CTX, SEQ)
    prefix = "ParseSingleSequenceExample/ParseSequenceExample/ParseSequenceExampleV2"
    assert (c["cv"].indices.name, c["lab"].name, c["len"].name, q["tok"].indices.name, q["emb"].name,
            q["opt"].name) == tuple(f"{prefix}:{i}" for i in (0, 3, 4, 5, 8, 9))
    assert c["cv"].indices.shape.as_list() == [None, 1] and q["tok"].indices.shape.as_list() == [None, 2]
    assert q["emb"].shape.as_list() == [None, 2] and q["opt"].shape.as_list() == [None]
    with tf.Session() as sess:
        rc, rq = sess.run([c, q])
    sparse_eq(rc["cv"], [], [], [0])
    assert (rc["lab"], rc["len"]) == (b"x", 3)
    assert rq["emb"].tolist() == [[1, 2], [3, 4], [5, 6]] and rq["opt"].tolist() == []
    sparse_eq(rq["tok"], [[0, 0], [1, 0], [1, 1]], [1, 2, 3], [3, 2])


def test_parse_sequence_example():
    tf.reset_default_graph()
    ser = tf.placeholder(tf.string, [None])
    c, q, lengths = tf.io.parse_sequence_example(ser, CTX, SEQ)
    assert q["emb"].shape.as_list() == [None, None, 2] and q["tok"].indices.shape.as_list() == [None, 3]
    assert lengths["emb"].name == "ParseSequenceExample/ParseSequenceExample/ParseSequenceExampleV2:10"
    with tf.Session() as sess:
        rc, rq, rl = sess.run([c, q, lengths], {ser: [S1, S2]})
    sparse_eq(rc["cv"], [], [], [2, 0])
    assert rc["lab"].tolist() == [b"x", b"none"] and rc["len"].tolist() == [3, 1]
    assert rq["emb"].tolist() == [[[1, 2], [3, 4], [5, 6]], [[7, 8], [0, 0], [0, 0]]]
    assert rq["opt"].shape == (2, 0)
    sparse_eq(rq["tok"], [[0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 0, 0]], [1, 2, 3, 9], [2, 3, 2])
    assert rl["emb"].tolist() == [3, 1] and rl["opt"].tolist() == [0, 0]


@pytest.mark.parametrize("label, data, ctx, seq, name, message", [
    ("missing seq", S2, None, {"nope": tf.FixedLenSequenceFeature([], tf.int64)}, None,
     "Name: <unknown>, Feature list 'nope' is required but could not be found.  Did you mean to include it in "
     "feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?"),
    ("named", S2, None, {"nope": tf.FixedLenSequenceFeature([], tf.int64)}, "myex",
     "Name: myex, Feature list 'nope' is required but could not be found.  Did you mean to include it in "
     "feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?"),
    ("seq size", S1, None, {"emb": tf.FixedLenSequenceFeature([3], tf.float32)}, None,
     "Name: <unknown>, Key: emb, Index: 0.  Number of values != expected.  values size: 2 but output shape: [3]"),
    ("seq type", S1, None, {"emb": tf.FixedLenSequenceFeature([2], tf.int64)}, None,
     "Name: <unknown>, Feature list: emb, Index: 0.  Data types don't match. Expected type: int64"),
    ("varlen type", S1, None, {"emb": tf.VarLenFeature(tf.int64)}, None,
     "Name: <unknown>, Feature list: emb, Index: 0.  Data types don't match. Expected type: int64"),
    ("ctx missing", S1, {"nope": tf.FixedLenFeature([], tf.int64)}, None, None,
     "Inconsistent max number of elements for feature nope: expected 1, but found 0"),
    ("garbage", b"garbage", None, {"emb": tf.FixedLenSequenceFeature([2], tf.float32)}, None,
     "Invalid protocol message input, example id: <unknown>"),
])
def test_sequence_errors(label, data, ctx, seq, name, message):
    tf.reset_default_graph()
    out = tf.parse_single_sequence_example(data, ctx, seq, example_name=name)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(out)
    assert info.value.message.split("\n")[0] == message


def test_sequence_build_checks():
    tf.reset_default_graph()
    c, q = tf.parse_single_sequence_example(b"", {"len": tf.FixedLenFeature([], tf.int64, default_value=0)},
                                            {"emb": tf.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)})
    with tf.Session() as sess:
        rc, rq = sess.run([c, q])
    assert rc["len"] == 0 and rq["emb"].shape == (0, 2)
    with pytest.raises(ValueError, match="Value feature_list.dense_defaults\\[nope\\] must be None"):
        tf.parse_single_sequence_example(S2, None, {"nope": tf.FixedLenSequenceFeature([], tf.int64, default_value=5)})
    with pytest.raises(ValueError, match="Both context_features and sequence_features are None"):
        tf.parse_single_sequence_example(S1, None, None)
    with pytest.raises(ValueError, match="Unsupported FixedLenFeature FixedLenFeature\\(shape=\\[2\\], "
                                         "dtype=tf.float32, default_value=None\\) for key 'emb'"):
        tf.parse_single_sequence_example(S1, None, {"emb": tf.FixedLenFeature([2], tf.float32)})
    with pytest.raises(ValueError, match="Unsupported FixedLenSequenceFeature"):
        tf.parse_single_sequence_example(S1, {"emb": tf.FixedLenSequenceFeature([2], tf.float32)}, None)


def test_round_trip_through_tfrecord_dataset(tmp_path):
    tf.reset_default_graph()
    path = str(tmp_path / "ex.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(3):
            ex = tf.train.Example()
            ex.features.feature["x"].float_list.value.extend([i, i + 0.5])
            ex.features.feature["y"].int64_list.value.append(i * 10)
            w.write(ex.SerializeToString())
    spec = {"x": tf.FixedLenFeature([2], tf.float32), "y": tf.FixedLenFeature([], tf.int64)}
    ds = tf.data.TFRecordDataset(path).batch(2).map(lambda s: tf.parse_example(s, spec))
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    with tf.Session() as sess:
        first = sess.run(nxt)
        second = sess.run(nxt)
    assert first["x"].tolist() == [[0, 0.5], [1, 1.5]] and first["y"].tolist() == [0, 10]
    assert second["y"].tolist() == [20]


A = bytes.fromhex("0a580a0b0a016312061a040a0200020a1b0a03736571121412120a100000803f0000004000004040000080400a13"
                  "0a0376616c120c120a0a080000003f0000803e0a0a0a066e6f6b696e6412000a0b0a017212061a040a020301")
B = bytes.fromhex("0a4a0a0a0a016312051a030a01040a130a03736571120c120a0a080000a0400000c0400a0f0a0376616c1208"
                  "12060a04000010410a0a0a066e6f6b696e6412000a0a0a017212051a030a0100")


def parsed(feats, data=(A, B)):
    tf.reset_default_graph()
    with tf.Session() as sess:
        out = sess.run(tf.parse_example(list(data), feats))
    return {k: (v.indices.tolist(), v.values.tolist(), v.dense_shape.tolist()) if hasattr(v, "indices") else v.tolist()
            for k, v in out.items()}


def test_more_feature_configs():  # /tmp/ref/io/parse_ref2.py
    assert parsed({"seq": tf.FixedLenSequenceFeature([2], tf.float32, allow_missing=True, default_value=-1.0)}) == \
        {"seq": [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [-1.0, -1.0]]]}
    assert parsed({"sp": tf.SparseFeature(["r", "c"], "val", tf.float32, [4, 5])}) == \
        {"sp": ([[0, 1, 2], [0, 3, 0], [1, 0, 4]], [0.25, 0.5, 9.0], [2, 4, 5])}
    assert parsed({"sp": tf.SparseFeature(["r", "c"], "val", tf.float32, [4, 5], already_sorted=True)}) == \
        {"sp": ([[0, 3, 0], [0, 1, 2], [1, 0, 4]], [0.5, 0.25, 9.0], [2, 4, 5])}
    assert parsed({"sp": tf.SparseFeature("r", "val", tf.float32, 4), "r": tf.VarLenFeature(tf.int64)}) == \
        {"r": ([[0, 0], [0, 1], [1, 0]], [3, 1, 0], [2, 2]), "sp": ([[0, 1], [0, 3], [1, 0]], [0.25, 0.5, 9.0], [2, 4])}
    # a feature with no kind set counts as missing
    assert parsed({"nokind": tf.FixedLenFeature([], tf.int64, default_value=7)}) == {"nokind": [7, 7]}
    assert parsed({"nokind": tf.VarLenFeature(tf.float32)}) == {"nokind": ([], [], [2, 0])}
    assert parsed({"nokind": tf.FixedLenSequenceFeature([], tf.float32, allow_missing=True)}) == {"nokind": [[], []]}
    with pytest.raises(tf.errors.InvalidArgumentError, match="Feature: nokind \\(data type: int64\\) is required"):
        parsed({"nokind": tf.FixedLenFeature([], tf.int64)})
    one = tf.train.Example()
    one.features.feature["r"].int64_list.value.extend([1, 2])
    one.features.feature["val"].float_list.value.append(1)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Number of elements in indices \\(2\\) and values \\(1\\) do not match"):
        parsed({"sp": tf.SparseFeature("r", "val", tf.float32, 4)}, [one.SerializeToString()])
    empty = tf.train.Example()
    empty.features.feature["z"].int64_list.SetInParent()
    assert parsed({"z": tf.FixedLenFeature([0], tf.int64)}, [empty.SerializeToString()]) == {"z": [[]]}


def test_serialized_of_unknown_rank():
    tf.reset_default_graph()
    ser = tf.placeholder(tf.string)
    out = tf.parse_example(ser, {"c": tf.FixedLenFeature([2], tf.int64), "r": tf.VarLenFeature(tf.int64)})
    assert out["c"].shape.ndims is None and out["r"].indices.shape.as_list() == [None, None]
    with tf.Session() as sess:
        assert sess.run(out["c"], {ser: [A, A]}).tolist() == [[0, 2], [0, 2]]
        assert sess.run(out["c"], {ser: A}).tolist() == [0, 2]
        assert sess.run(out["r"], {ser: A}).indices.tolist() == [[0], [1]]
