"""decode_raw, serialize_tensor/parse_tensor, base64, decode_compressed, decode_json_example and the sparse
serializers: values, bytes, names, shapes and errors as TF 2.15's (/tmp/ref/io/misc_ref.py, misc_ref2.py)."""

import gzip
import json
import zlib

import numpy as np
import pytest

import dflow as tf


@pytest.fixture
def sess():
    tf.reset_default_graph()
    with tf.Session() as s:
        yield s


def fails(sess, cls, message, t):
    with pytest.raises(cls) as info:
        sess.run(t)
    assert info.value.message.split("\n")[0] == message


def test_decode_raw(sess):
    t = tf.decode_raw([b"\x01\x02\x03\x04", b"\x05\x06\x07\x08"], tf.int16)
    assert (t.name, t.shape.as_list()) == ("DecodeRaw:0", [2, None])
    assert sess.run(t).tolist() == [[513, 1027], [1541, 2055]] and sess.run(t).dtype == np.int16
    assert sess.run(tf.io.decode_raw([b"\x01\x02\x03\x04"], tf.int16, little_endian=False)).tolist() == [[258, 772]]
    scalar = tf.decode_raw(b"\x00\x00\x80\x3f", tf.float32)
    assert scalar.shape.as_list() == [None] and sess.run(scalar).tolist() == [1.0]
    assert sess.run(tf.decode_raw(tf.constant([[b"ab"], [b"cd"]]), tf.uint8)).tolist() == [[[97, 98]], [[99, 100]]]
    assert sess.run(tf.decode_raw([b"\x01\x00"], tf.bool)).tolist() == [[True, False]]
    assert sess.run(tf.decode_raw([b"\x00\x00\x80\x3f\x00\x00\x00\x40"], tf.complex64)).tolist() == [[1 + 2j]]
    assert sess.run(tf.decode_raw(bytes=[b"\x07"], out_type=tf.int8)).tolist() == [[7]]
    fixed = tf.io.decode_raw([b"\x01\x02\x03", b"\x05"], tf.uint8, fixed_length=4)  # TF2's argument
    assert fixed.shape.as_list() == [2, 4] and sess.run(fixed).tolist() == [[1, 2, 3, 0], [5, 0, 0, 0]]
    fails(sess, tf.errors.InvalidArgumentError, "Input to DecodeRaw has length 3 that is not a multiple of 2, the "
          "size of int16", tf.decode_raw([b"\x01\x02\x03"], tf.int16))
    fails(sess, tf.errors.InvalidArgumentError, "DecodeRaw requires input strings to all be the same size, but element "
          "1 has size 2 != 4", tf.decode_raw([b"\x01\x02", b"\x01\x02\x03\x04"], tf.int16))
    with pytest.raises(TypeError, match="Value passed to parameter 'out_type' has DataType string not in list"):
        tf.decode_raw([b"ab"], tf.string)


SERIALIZED = [  # value, TF's SerializeTensor bytes
    (np.array([[1.5, 2], [3, 4]], np.float32), "08011208120208021202080222100000c03f000000400000404000008040"),
    (np.int64(7), "0809120022080700000000000000"),
    (np.array([b"a", b"bc"]), "080712041202080242016142026263"),
    (np.array([True, False]), "080a12041202080222020100"),
    (np.zeros((0, 2), np.int32), "08031206120012020802"),
    (np.array([1, 2], np.float16), "08131204120208022204003c0040"),
    (np.array([1 + 2j], np.complex64), "080812041202080122080000803f00000040"),
    (np.array(3, np.uint8), "08041200220103"),
]


@pytest.mark.parametrize("value, hexed", SERIALIZED)
def test_serialize_and_parse_tensor(sess, value, hexed):
    t = tf.io.serialize_tensor(value)
    assert t.shape == [] and t.name.startswith("SerializeTensor")
    assert sess.run(t).hex() == hexed
    dtype = tf.string if value.dtype.kind == "S" else tf.as_dtype(value.dtype)
    back = tf.io.parse_tensor(bytes.fromhex(hexed), dtype)
    assert back.shape.ndims is None
    got = sess.run(back)
    assert got.shape == value.shape and got.tolist() == value.tolist()


def test_parse_tensor_errors(sess):
    good = sess.run(tf.io.serialize_tensor(np.array([[1, 2]], np.int32)))
    fails(sess, tf.errors.InvalidArgumentError, "Type mismatch between parsed tensor (int32) and dtype (float)",
          tf.io.parse_tensor(good, tf.float32))
    fails(sess, tf.errors.InvalidArgumentError, "Could not parse `serialized` as TensorProto, base64: Z2FyYmFnZQ==",
          tf.parse_tensor(b"garbage", tf.float32))
    fails(sess, tf.errors.InvalidArgumentError, "Cannot parse tensor from proto: ", tf.io.parse_tensor(b"", tf.float32))


def test_base64(sess):
    enc = tf.io.encode_base64([b"hello?>", b"", b"\xff\xfe"])
    assert (enc.name, enc.shape.as_list()) == ("EncodeBase64:0", [3])
    assert sess.run(enc).tolist() == [b"aGVsbG8_Pg", b"", b"__4"]
    assert sess.run(tf.encode_base64([b"hello?>", b"a"], pad=True)).tolist() == [b"aGVsbG8_Pg==", b"YQ=="]
    assert sess.run(tf.io.decode_base64([b"aGVsbG8_Pg", b"aGVsbG8_Pg==", b"", b"__4"])).tolist() == \
        [b"hello?>", b"hello?>", b"", b"\xff\xfe"]
    fails(sess, tf.errors.InvalidArgumentError, "Invalid character found in base64.", tf.decode_base64([b"a$b"]))
    fails(sess, tf.errors.InvalidArgumentError, "Base64 string length cannot be 1 modulo 4.", tf.decode_base64([b"a"]))
    fails(sess, tf.errors.InvalidArgumentError, "Invalid character found in base64.",
          tf.decode_base64([b"aGVsbG8/Pg=="]))  # standard, not web-safe


def test_decode_compressed(sess):
    t = tf.io.decode_compressed([zlib.compress(b"abc"), zlib.compress(b"")], "ZLIB")
    assert (t.name, t.shape.as_list()) == ("DecodeCompressed:0", [2])
    assert sess.run(t).tolist() == [b"abc", b""]
    assert sess.run(tf.decode_compressed(gzip.compress(b"xyz"), compression_type="GZIP")) == b"xyz"
    assert sess.run(tf.io.decode_compressed([b"raw"])).tolist() == [b"raw"]
    fails(sess, tf.errors.DataLossError, "inflate() failed with error -3: incorrect header check",
          tf.io.decode_compressed([b"raw"], "ZLIB"))
    fails(sess, tf.errors.InvalidArgumentError, "Only ZLIB, GZIP or NONE are supported compressions",
          tf.io.decode_compressed([b"raw"], "BZ2"))


def test_string_constants_keep_trailing_nul_bytes(sess):
    assert sess.run(tf.constant(b"a\x00\x00")) == b"a\x00\x00"
    p = tf.placeholder(tf.string, [None])
    assert sess.run(p, {p: [b"a\x00", b"b"]}).tolist() == [b"a\x00", b"b"]


def test_decode_json_example(sess):
    j = ('{"features": {"feature": {"b": {"bytesList": {"value": ["aGk="]}}, "a": {"int64_list": {"value": ["1", 2]}}, '
         '"f": {"floatList": {"value": [1.5, "NaN"]}}}}}')
    t = tf.io.decode_json_example([j])
    assert (t.name, t.shape.as_list()) == ("DecodeJSONExample:0", [1])
    assert sess.run(t).tolist() == [b"\n-\n\x0b\n\x01b\x12\x06\n\x04\n\x02hi\n\x0b\n\x01a\x12\x06\x1a\x04\x08\x01\x08"
                                    b"\x02\n\x11\n\x01f\x12\x0c\x12\n\r\x00\x00\xc0?\r\x00\x00\xc0\x7f"]
    one = tf.decode_json_example('{"features": {"feature": {"a": {"int64List": {"value": ["1", 2]}}}}}')
    assert sess.run(one) == b"\n\r\n\x0b\n\x01a\x12\x06\x1a\x04\x08\x01\x08\x02"
    keys = ["zeta", "alpha", "mu", "beta", "omega", "kappa", "c", "b"]
    many = json.dumps({"features": {"feature": {k: {"int64List": {"value": [i]}} for i, k in enumerate(keys)}}})
    assert sess.run(tf.io.decode_json_example(many)).hex() == (  # TF keeps the JSON's order
        "0a6b0a0c0a047a65746112041a0208000a0d0a05616c70686112041a0208010a0a0a026d7512041a0208020a0c0a046265746112041a"
        "0208030a0d0a056f6d65676112041a0208040a0d0a056b6170706112041a0208050a090a016312041a0208060a090a016212041a020807")
    parsed = tf.parse_single_example(one, {"a": tf.VarLenFeature(tf.int64)})
    assert sess.run(parsed["a"]).values.tolist() == [1, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Error while parsing JSON: "):
        sess.run(tf.io.decode_json_example(["{bad"]))
    fails(sess, tf.errors.InvalidArgumentError, "Error while parsing JSON: nope: Cannot find field.",
          tf.io.decode_json_example(['{"nope": 1}']))


SP_SERIALIZED = ["08091208120208021202080222200000000000000000010000000000000002000000000000000000000000000000",
                 "080112041202080222080000c03f00002040", "0809120412020802221003000000000000000400000000000000"]
SP_MANY = [["08091208120208011202080122080100000000000000", "080112041202080122040000c03f",
            "080912041202080122080400000000000000"],
           ["08091206120012020801", "080112021200", "080912041202080122080400000000000000"],
           ["08091208120208011202080122080000000000000000", "0801120412020801220400002040",
            "080912041202080122080400000000000000"]]


def test_serialize_sparse(sess):
    sp = tf.SparseTensor([[0, 1], [2, 0]], [1.5, 2.5], [3, 4])
    one = tf.io.serialize_sparse(sp)
    assert (one.name, one.shape.as_list()) == ("SerializeSparse:0", [3])
    assert [x.hex() for x in sess.run(one)] == SP_SERIALIZED
    many = tf.serialize_many_sparse(sp)
    assert (many.name, many.shape.as_list()) == ("SerializeManySparse:0", [None, 3])
    assert [[x.hex() for x in row] for row in sess.run(many)] == SP_MANY
    with pytest.raises(NotImplementedError, match="variant"):
        tf.io.serialize_sparse(sp, out_type=tf.int32)


def test_deserialize_many_sparse(sess):
    tf_many = np.array([[bytes.fromhex(x) for x in row] for row in SP_MANY], dtype=object)
    out = tf.io.deserialize_many_sparse(tf_many, tf.float32)
    assert out.indices.name == "DeserializeManySparse:0" and out.indices.shape.as_list() == [None, None]
    got = sess.run(out)
    assert (got.indices.tolist(), got.values.tolist(), got.dense_shape.tolist()) == ([[0, 1], [2, 0]], [1.5, 2.5],
                                                                                   [3, 4])
    ranked = tf.deserialize_many_sparse(tf_many, tf.float32, rank=2)
    assert ranked.indices.shape.as_list() == [None, 2] and ranked.dense_shape.shape.as_list() == [2]
    sp3 = tf.SparseTensor([[0, 1, 1], [2, 0, 3]], [1, 2], [3, 4, 5])
    got = sess.run(tf.io.deserialize_many_sparse(tf.io.serialize_many_sparse(sp3), tf.int32))
    assert (got.indices.tolist(), got.values.tolist(), got.dense_shape.tolist()) == ([[0, 1, 1], [2, 0, 3]], [1, 2],
                                                                                   [3, 4, 5])
    a = tf.io.serialize_sparse(tf.SparseTensor([[1]], [1.0], [3]))
    b = tf.io.serialize_sparse(tf.SparseTensor([[0], [4]], [2.0, 3.0], [5]))
    got = sess.run(tf.io.deserialize_many_sparse(tf.stack([a, b]), tf.float32))
    assert (got.indices.tolist(), got.values.tolist(), got.dense_shape.tolist()) == ([[0, 1], [1, 0], [1, 4]],
                                                                                   [1.0, 2.0, 3.0], [2, 5])
    c = tf.io.serialize_sparse(tf.SparseTensor([[0, 0]], [2.0], [5, 5]))
    fails(sess, tf.errors.InvalidArgumentError, "Inconsistent shape across SparseTensors: rank prior to "
          "SparseTensor[1] was: 1 but rank of SparseTensor[1] is: 2", tf.io.deserialize_many_sparse(tf.stack([a, c]),
                                                                                                   tf.float32))
    fails(sess, tf.errors.InvalidArgumentError,
          "Requested SparseTensor of type int32 but SparseTensor[0].values.dtype() == float",
          tf.io.deserialize_many_sparse(tf_many, tf.int32))
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.io.deserialize_many_sparse(a, tf.float32)


def test_proto_ops_are_not_available():
    with pytest.raises(NotImplementedError, match="io.decode_proto"):
        tf.io.decode_proto(b"", "x.Y", ["a"], [tf.int32])
    with pytest.raises(NotImplementedError, match="io.encode_proto"):
        tf.io.encode_proto([[1]], [[1]], ["a"], "x.Y")


@pytest.mark.parametrize("hexed, dtype, expected", [  # TF's make_tensor_proto: typed *_val fields, broadcast
    ("080112002a040000c03f", tf.float32, 1.5),
    ("08091200520107", tf.int64, 7),
    ("080a12005a0101", tf.bool, True),
    ("0807120042026162", tf.string, b"ab"),
    ("081312006a03808201", tf.float16, 2.5),
    ("081612041202080222080100000002000000", tf.uint32, [1, 2]),
    ("080812004a080000803f00000040", tf.complex64, 1 + 2j),
    ("0801120812020802120208022a040000e040", tf.float32, [[7.0, 7.0], [7.0, 7.0]]),
])
def test_parse_tensor_of_tf_protos(sess, hexed, dtype, expected):
    assert np.asarray(sess.run(tf.io.parse_tensor(bytes.fromhex(hexed), dtype))).tolist() == expected
