"""tf.train.Example / SequenceExample and their parts: bytes, text and protobuf behaviour as TF 2.15's
(protobuf 4.25, upb; /tmp/ref/io/ex_ref.py)."""

import numpy as np
import pytest

import dflow as tf

F = tf.train.Feature


def test_single_entry_maps_are_tfs_bytes():
    ex = tf.train.Example(features=tf.train.Features(feature={"z": F(int64_list=tf.train.Int64List(value=[1, -2,
                                                                                                        300]))}))
    assert ex.SerializeToString().hex() == "0a180a160a017a12111a0f0a0d01feffffffffffffffff01ac02"
    ex2 = tf.train.Example()
    ex2.features.feature["b"].int64_list.value.append(7)
    assert ex2.SerializeToString().hex() == "0a0c0a0a0a016212051a030a0107"
    ex4 = tf.train.Example()
    ex4.features.feature[""].float_list.value.append(0)
    assert ex4.SerializeToString().hex() == "0a0e0a0c0a00120812060a0400000000"


def test_sequence_example_bytes_and_text():
    se = tf.train.SequenceExample()
    se.context.feature["len"].int64_list.value.append(2)
    fl = se.feature_lists.feature_list["tok"]
    fl.feature.add().bytes_list.value.append(b"a")
    fl.feature.add().bytes_list.value.append(b"b")
    se.feature_lists.feature_list["empty"]
    assert se.SerializeToString(deterministic=True).hex() == (
        "0a0e0a0c0a036c656e12051a030a010212220a090a05656d70747912000a150a03746f6b120e0a050a030a01610a050a030a0162")
    assert str(se.context) == 'feature {\n  key: "len"\n  value {\n    int64_list {\n      value: 2\n    }\n  }\n}\n'
    back = tf.train.SequenceExample.FromString(se.SerializeToString())
    assert back == se and len(back.feature_lists.feature_list["tok"].feature) == 2


def test_multi_entry_maps():
    feats = {"z": F(int64_list=tf.train.Int64List(value=[1, -2, 300])),
             "a": F(float_list=tf.train.FloatList(value=[1.5, -0.0, 3e38])),
             "m": F(bytes_list=tf.train.BytesList(value=[b"x", b"", "é".encode()])),
             "e": F(), "i": F(int64_list=tf.train.Int64List())}
    ex = tf.train.Example(features=tf.train.Features(feature=feats))
    # TF's entries, each as TF writes it; TF's upb writes them in its hash order z, a, e, m, i
    tf_entries = {"z": "0a160a017a12111a0f0a0d01feffffffffffffffff01ac02",
                  "a": "0a150a01611210120e0a0c0000c03f00000080e6b1617f", "e": "0a050a01651200",
                  "m": "0a100a016d120b0a090a01780a000a02c3a9", "i": "0a070a016912021a00"}
    assert ex.SerializeToString().hex() == "0a51" + "".join(tf_entries[k] for k in "zamei")  # insertion order
    assert ex.SerializeToString(deterministic=True).hex() == "0a51" + "".join(tf_entries[k] for k in "aeimz")
    tf_bytes = bytes.fromhex("0a51" + "".join(tf_entries[k] for k in "zaemi"))
    back = tf.train.Example.FromString(tf_bytes)
    assert back == ex and list(back.features.feature.keys()) == ["z", "a", "e", "m", "i"]
    assert back.SerializeToString() == tf_bytes
    assert back.features.feature["e"].WhichOneof("kind") is None
    assert back.features.feature["i"].WhichOneof("kind") == "int64_list"
    assert back.features.feature["a"].float_list.value == [1.5, -0.0, np.float32(3e38)]
    # TF's SerializeToString(deterministic=True) of five int64 features inserted as z, a, m, e, i
    five = tf.train.Example(features=tf.train.Features(feature={k: F(int64_list=tf.train.Int64List(value=[i]))
                                                                for i, k in enumerate("zamei")}))
    assert five.SerializeToString(deterministic=True).hex() == (
        "0a3c0a0a0a016112051a030a01010a0a0a016512051a030a01030a0a0a016912051a030a01040a0a0a016d12051a030a01020a0a0a"
        "017a12051a030a0100")


def test_protobuf_behaviour():
    ex = tf.train.Example()
    assert ex.features.feature is not None  # reading does not set
    assert not ex.HasField("features") and ex.SerializeToString() == b""
    assert len(ex.features.feature) == 0  # nor does reading the map
    assert not ex.HasField("features")
    ex.features.feature["k"]  # creating an entry does
    assert ex.HasField("features") and ex.SerializeToString().hex() == "0a070a050a016b1200"
    with pytest.raises(ValueError, match="Message objects may not be assigned"):
        ex.features.feature["c"] = F()
    assert "k" in ex.features.feature and "c" not in ex.features.feature
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        tf.train.Int64List(value=[1.5])
    with pytest.raises(ValueError, match="Value out of range: 9223372036854775808"):
        tf.train.Int64List(value=[2**63])
    with pytest.raises(TypeError, match="expected bytes, str found"):
        tf.train.BytesList(value=["abc"])
    with pytest.raises(TypeError, match="must be real number, not str"):
        tf.train.FloatList(value=["1"])
    with pytest.raises(ValueError, match='Protocol message Int64List has no "values" field.'):
        tf.train.Int64List(values=[1])
    assert tf.train.Int64List(value=np.array([1, 2])).value == [1, 2]
    assert tf.train.FloatList(value=[0.1]).value[0] == 0.10000000149011612
    assert tf.train.BytesList(value=[np.bytes_(b"a")]).value == [b"a"]
    both = F(int64_list=tf.train.Int64List(value=[1]), float_list=tf.train.FloatList(value=[1]))
    assert both.WhichOneof("kind") == "float_list"  # the last one set wins
    assert F(int64_list={"value": [1]}).int64_list.value == [1]
    assert tf.train.Int64List(value=[1, 300]).ByteSize() == 5
    parsed = tf.train.Example()
    assert parsed.ParseFromString(ex.SerializeToString()) == 9 and parsed == ex


def test_text_format():
    assert str(tf.train.FloatList(value=[0.1, 1.0, 1e-8, float("inf"), float("nan"), 2.5, 123456789.0, 3e38])) == \
        ("value: 0.1\nvalue: 1\nvalue: 1e-08\nvalue: inf\nvalue: nan\nvalue: 2.5\nvalue: 123456792\n"
         "value: 3e+38\n")
    assert str(tf.train.Int64List(value=[2**63 - 1, -5])) == "value: 9223372036854775807\nvalue: -5\n"
    assert str(tf.train.BytesList(value=[b"a\"b'c\\d\n\t\x00\x7f\xff", "é".encode()])) == \
        'value: "a\\"b\\\'c\\\\d\\n\\t\\000\\177\\377"\nvalue: "\\303\\251"\n'


def test_copy_pickle_merge_clear():
    import copy
    import pickle

    ex = tf.train.Example()
    ex.features.feature["a"].int64_list.value.append(1)
    assert copy.deepcopy(ex) == ex and pickle.loads(pickle.dumps(ex)) == ex and copy.copy(ex) == ex
    merged = tf.train.Example()
    merged.MergeFrom(ex)
    merged.features.feature["b"].float_list.value.append(2)
    assert sorted(merged.features.feature) == ["a", "b"] and merged.IsInitialized()
    merged.Clear()
    assert merged.ByteSize() == 0 and not merged.HasField("features")
    with pytest.raises(TypeError, match="Parameter to MergeFrom\\(\\) must be instance of same class"):
        merged.MergeFrom(tf.train.Features())
