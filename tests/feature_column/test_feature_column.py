"""tf.feature_column: values, variable names and errors against TF 2.15 (tensorflow.compat.v1) figures.

Every expected value was computed by running the same graph in TF 2.15.1 with
``tf.disable_eager_execution()``; dflow never imports TensorFlow.
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from dflow.ops.strings.string_ops import fingerprint64

fc = tf.feature_column

FEATURES = {
    "num": np.array([[1.0, 2.0], [3.0, -4.0]], np.float32),
    "n1": np.array([0.5, 12.0], np.float32),
    "s": np.array([["a", "zz"], ["c", ""]]),
    "s1": np.array(["a", "q"]),
    "i": np.array([[10, 99], [30, -1]], np.int64),
    "ids": np.array([[1, 7], [-1, 3]], np.int64),
}


def run(t, init=None):
    with tf.Session() as s:
        s.run([tf.global_variables_initializer(), tf.tables_initializer()])
        if init is not None:
            init(s)
        return s.run(t)


def hot(rows):
    return [np.nonzero(r)[0].tolist() for r in rows]


# -- hashing -------------------------------------------------------------------------------

# Fingerprint64 from TF's tf.fingerprint (little-endian uint64), covering every farmhash length branch.
FINGERPRINTS = [
    (b"", 11160318154034397263), (b"a", 12917804110809363939), (b"abcd", 1897425971756105985),
    (b"hello", 13009744463427800296), (b"abcdefgh", 18368443631171807497),
    (b"0123456789abcdef", 6105018409752412263), (b"ab", 12289600257749001502), (b"abc", 2640714258260161385),
    (b"\xff\xfe\x00", 13365016023481577431),
]


@pytest.mark.parametrize("s,fp", FINGERPRINTS)
def test_fingerprint64_matches_tf(s, fp):
    assert fingerprint64(s) == fp


def test_to_hash_bucket_fast_matches_tf_on_long_strings():
    # TF: tf.strings.to_hash_bucket_fast(x, 1000) for strings of 17..320 bytes, UTF-8 and binary.
    cases = [(b"0123456789abcdefg", 578), (b"the quick brown fox jumps", 706), (b"x" * 32, 517), (b"y" * 33, 150),
             (b"the quick brown fox jumps over the lazy dog!!", 266), (b"z" * 64, 872), (b"w" * 65, 776),
             (bytes(range(100)), 437), (bytes(range(200)), 851), (b"farmhash" * 40, 964),
             ("h\u00e9llo".encode(), 151), (b"-1", 430), (b"12345", 728)]
    out = run(tf.strings.to_hash_bucket_fast(tf.constant([s for s, _ in cases]), 1000)).tolist()
    assert out == [b for _, b in cases]


def test_to_hash_bucket_fast_and_as_string():
    out = run(tf.strings.to_hash_bucket_fast(["hello", "", "a"], 1000))
    assert out.tolist() == [296, 263, 939] and out.dtype == np.int64
    assert run(tf.as_string(tf.constant([-1, 12345], tf.int64))).tolist() == [b"-1", b"12345"]
    with pytest.raises(TypeError, match="string"):
        tf.strings.to_hash_bucket_fast(tf.constant([1, 2]), 10)
    with pytest.raises(ValueError, match="num_buckets"):
        tf.strings.to_hash_bucket_fast(["a"], 0)


# -- dense columns ----------------------------------------------------------------------------


def test_numeric_columns_sorted_by_name_and_normalized():
    c = fc.numeric_column("num", shape=(2,), normalizer_fn=lambda x: x * 2.0)
    c1 = fc.numeric_column("n1")
    out = fc.input_layer(FEATURES, [c, c1])
    assert out.shape.as_list() == [2, 3] and out.dtype == tf.float32
    assert out.name.startswith("input_layer/")
    assert run(out).tolist() == [[0.5, 2.0, 4.0], [12.0, 6.0, -8.0]]


def test_input_layer_with_placeholders():
    x = tf.placeholder(tf.float32, [None])
    out = fc.input_layer({"x": x}, [fc.numeric_column("x")])
    assert out.shape.as_list() == [None, 1]
    with tf.Session() as s:
        assert s.run(out, {x: [1.0, 2.0, 3.0]}).tolist() == [[1.0], [2.0], [3.0]]


def test_bucketized_column():
    b = fc.bucketized_column(fc.numeric_column("num", shape=(2,)), [0.0, 1.5, 3.0])
    assert b.name == "num_bucketized"
    out = fc.input_layer(FEATURES, [b])
    assert out.shape.as_list() == [2, 8]
    assert run(out).tolist() == [[0, 1, 0, 0, 0, 0, 1, 0], [0, 0, 0, 1, 1, 0, 0, 0]]


def test_vocabulary_list_string_with_oov_buckets():
    c = fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"], num_oov_buckets=3)
    out = fc.input_layer(FEATURES, [fc.indicator_column(c)])
    assert out.shape.as_list() == [2, 6]
    assert run(out).tolist() == [[1, 0, 0, 0, 1, 0], [0, 0, 1, 0, 0, 0]]  # "zz" -> oov bucket 4; "" is absent


def test_vocabulary_list_default_value_and_int_vocabulary():
    c = fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"], default_value=1)
    assert run(fc.input_layer(FEATURES, [fc.indicator_column(c)])).tolist() == [[1, 1, 0], [0, 0, 1]]
    tf.reset_default_graph()
    c = fc.categorical_column_with_vocabulary_list("i", [10, 20, 30], num_oov_buckets=2)
    assert run(fc.input_layer(FEATURES, [fc.indicator_column(c)])).tolist() == [[1, 0, 0, 1, 0], [0, 0, 1, 0, 0]]


def test_identity_column():
    c = fc.categorical_column_with_identity("ids", 4, default_value=0)
    assert run(fc.input_layer(FEATURES, [fc.indicator_column(c)])).tolist() == [[1, 1, 0, 0], [0, 0, 0, 1]]
    tf.reset_default_graph()
    c = fc.categorical_column_with_identity("ids", 4)  # out of range 7: an indicator ignores it
    assert run(fc.input_layer(FEATURES, [fc.indicator_column(c)])).tolist() == [[0, 1, 0, 0], [0, 0, 0, 1]]
    tf.reset_default_graph()
    out = fc.input_layer(FEATURES, [fc.embedding_column(fc.categorical_column_with_identity("ids", 4), 2)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="7"):
        run(out)


def test_hash_bucket_columns_match_tf_buckets():
    c = fc.categorical_column_with_hash_bucket("s", 10)
    c2 = fc.categorical_column_with_hash_bucket("i", 7, dtype=tf.int64)
    out = fc.input_layer(FEATURES, [fc.indicator_column(c), fc.indicator_column(c2)])
    assert out.shape.as_list() == [2, 17]
    assert hot(run(out)) == [[3, 4, 9, 16], [0, 9]]


def test_crossed_columns_match_tf_buckets():
    b = fc.bucketized_column(fc.numeric_column("n1"), [1.0])
    x = fc.crossed_column(["s1", b], 20)
    x2 = fc.crossed_column(["s", "i"], 50, hash_key=7)
    x3 = fc.crossed_column([fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"]), "s1"], 30)
    assert [x.name, x2.name, x3.name] == ["n1_bucketized_X_s1", "i_X_s", "s_X_s1"]
    out = fc.input_layer(FEATURES, [fc.indicator_column(x), fc.indicator_column(x2), fc.indicator_column(x3)])
    assert out.shape.as_list() == [2, 100]
    assert hot(run(out)) == [[30, 31, 32, 38, 65, 75, 78], [3, 4, 18, 36, 50, 95]]


def test_embedding_columns_values_and_variables():
    v = fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"], num_oov_buckets=1)
    cols = [fc.embedding_column(v, 2, combiner="mean", initializer=tf.constant_initializer(
        np.arange(8, dtype=np.float32).reshape(4, 2) + 1))]
    cols.append(fc.embedding_column(fc.categorical_column_with_identity("ids", 8), 3, combiner="sqrtn",
                                    initializer=tf.constant_initializer(np.arange(24, dtype=np.float32).reshape(8, 3)
                                                                        / 10)))
    cols.append(fc.embedding_column(fc.categorical_column_with_hash_bucket("s1", 5), 1, combiner="sum",
                                    initializer=tf.constant_initializer([1.0, 2.0, 3.0, 4.0, 5.0]), trainable=False))
    out = fc.input_layer(FEATURES, cols)
    assert [(w.name, w.shape.as_list()) for w in tf.global_variables()] == [
        ("input_layer/ids_embedding/embedding_weights:0", [8, 3]),
        ("input_layer/s1_embedding/embedding_weights:0", [5, 1]),
        ("input_layer/s_embedding/embedding_weights:0", [4, 2])]
    assert [w.name for w in tf.trainable_variables()] == [
        "input_layer/ids_embedding/embedding_weights:0", "input_layer/s_embedding/embedding_weights:0"]
    assert len(tf.model_variables()) == 3
    assert out.shape.as_list() == [2, 6]
    np.testing.assert_allclose(run(out), [[1.6970561742782593, 1.8384777307510376, 1.9798989295959473, 5.0, 4.0, 5.0],
                                          [0.8999999761581421, 1.0, 1.100000023841858, 4.0, 5.0, 6.0]], rtol=1e-6)


def test_embedding_gradient_matches_tf():
    col = fc.embedding_column(fc.categorical_column_with_identity("ids", 8), 2, initializer=tf.ones_initializer())
    out = fc.input_layer(FEATURES, [col])
    w = tf.global_variables()[0]
    g = tf.gradients(tf.reduce_sum(out * tf.constant([[1.0, 2.0], [3.0, 4.0]])), w)[0]
    assert run(g).tolist() == [[0, 0], [0.5, 1], [0, 0], [3, 4], [0, 0], [0, 0], [0, 0], [0.5, 1]]


# -- linear_model --------------------------------------------------------------------------------


def _assign_ranges(vs, offset_by_index=True, scale=0.5, base=0.0):
    def init(s):
        for k, v in enumerate(vs):
            shape = v.shape.as_list()
            s.run(v.assign(np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) * scale + base
                           + (k if offset_by_index else 0)))

    return init


def test_linear_model_variables_and_values():
    cols = [fc.numeric_column("num", shape=(2,)),
            fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"], num_oov_buckets=2),
            fc.bucketized_column(fc.numeric_column("n1"), [1.0, 5.0]),
            fc.crossed_column(["s1", "i"], 6)]
    out = fc.linear_model(FEATURES, cols, units=2)
    names = [("linear_model/i_X_s1/weights:0", [6, 2]), ("linear_model/n1_bucketized/weights:0", [3, 2]),
             ("linear_model/num/weights:0", [2, 2]), ("linear_model/s/weights:0", [5, 2]),
             ("linear_model/bias_weights:0", [2])]
    vs = tf.global_variables()
    assert [(v.name, v.shape.as_list()) for v in vs] == names
    assert [v.name for v in tf.trainable_variables()] == [n for n, _ in names]
    assert [v.name for v in tf.model_variables()] == [n for n, _ in names]
    assert out.shape.as_list() == [2, 2] and out.dtype == tf.float32
    assert run(out).tolist() == [[0.0, 0.0], [0.0, 0.0]]  # weights start at zero
    assert run(out, _assign_ranges(vs)).tolist() == [[26.0, 30.5], [13.0, 15.0]]


@pytest.mark.parametrize("combiner,want", [("mean", [[4.5], [5.0]]), ("sqrtn", [[5.535533905029297], [5.0]])])
def test_linear_model_sparse_combiner(combiner, want):
    cols = [fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"], num_oov_buckets=2)]
    out = fc.linear_model(FEATURES, cols, sparse_combiner=combiner)
    np.testing.assert_allclose(run(out, _assign_ranges(tf.global_variables(), scale=1.0, base=1.0)), want, rtol=1e-6)


def test_second_linear_model_names_like_tf():
    c = fc.numeric_column("n1")
    fc.linear_model(FEATURES, [c])
    fc.linear_model(FEATURES, [c])
    cols_to_vars = {}
    fc.input_layer(FEATURES, [c], cols_to_vars=cols_to_vars)
    assert [v.name for v in tf.global_variables()] == [
        "linear_model/n1/weights:0", "linear_model/bias_weights:0", "linear_model_1/n1_1/weights:0",
        "linear_model_1/bias_weights:0"]
    assert cols_to_vars == {c: []}


def test_linear_model_trains():
    x = np.array([[1.0], [2.0], [3.0], [4.0]], np.float32)
    y = 2 * x + 1
    pred = fc.linear_model({"x": x}, [fc.numeric_column("x")])
    loss = tf.reduce_mean(tf.square(pred - y))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(2000):
            s.run(train)
        assert s.run(loss) < 1e-6


# -- errors ---------------------------------------------------------------------------------------


def test_input_layer_errors():
    with pytest.raises(ValueError, match="Items of feature_columns must be a _DenseColumn"):
        fc.input_layer(FEATURES, [fc.categorical_column_with_identity("ids", 4)])
    with pytest.raises(ValueError, match="Feature nope is not in features dictionary."):
        fc.input_layer(FEATURES, [fc.numeric_column("nope")])
    with pytest.raises(ValueError, match=r"Feature \(key: x\) cannot have rank 0"):
        fc.input_layer({"x": np.float32(1.0)}, [fc.numeric_column("x")])
    with pytest.raises(ValueError, match="feature_columns must not be empty."):
        fc.input_layer(FEATURES, [])
    with pytest.raises(ValueError, match="Duplicate feature column name found for columns: NumericColumn"):
        fc.input_layer(FEATURES, [fc.numeric_column("n1"), fc.numeric_column("n1")])
    with pytest.raises(ValueError):
        fc.input_layer(FEATURES, [fc.numeric_column("num", shape=(3,))])
    with pytest.raises(ValueError, match=r"Items of feature_columns must be a _FeatureColumn. Given \(type"):
        fc.linear_model(FEATURES, ["n1"])


def test_input_dtype_errors_name_the_key():
    with pytest.raises(ValueError, match="Column dtype and SparseTensors dtype must be compatible. key: i"):
        fc.input_layer(FEATURES, [fc.indicator_column(fc.categorical_column_with_vocabulary_list("i", ["a"]))])
    with pytest.raises(ValueError, match="Column dtype and SparseTensors dtype must be compatible. key: i"):
        fc.input_layer(FEATURES, [fc.indicator_column(fc.categorical_column_with_hash_bucket("i", 3))])
    with pytest.raises(ValueError, match="Invalid input, not integer. key: s"):
        fc.input_layer(FEATURES, [fc.indicator_column(fc.categorical_column_with_identity("s", 3))])


def test_sparse_like_input_is_read_as_a_sparse_tensor():
    class FakeSparse:
        indices, values, dense_shape = [[0, 0]], ["a"], [2, 1]

    col = fc.indicator_column(fc.categorical_column_with_vocabulary_list("s", ["a"]))
    assert run(fc.input_layer({"s": FakeSparse()}, [col])).tolist() == [[1.0], [0.0]]


@pytest.mark.parametrize("make,exc,match", [
    (lambda: fc.bucketized_column(fc.numeric_column("n1"), [2.0, 1.0]), ValueError, "boundaries must be a sorted"),
    (lambda: fc.bucketized_column("n1", [1.0]), ValueError, "source_column must be a column generated with"),
    (lambda: fc.numeric_column("n1", dtype=tf.string), ValueError, "dtype must be convertible to float"),
    (lambda: fc.numeric_column("n1", shape=(0,)), ValueError, "shape dimensions must be greater than 0"),
    (lambda: fc.numeric_column("n1", shape=(2,), default_value=[1.0]), ValueError,
     "The shape of default_value must be equal to given shape"),
    (lambda: fc.categorical_column_with_vocabulary_list("s", ["a", "a"]), ValueError, "Duplicate keys in vocab"),
    (lambda: fc.categorical_column_with_vocabulary_list("s", ["a"], default_value=0, num_oov_buckets=1),
     ValueError, "Can't specify both num_oov_buckets and default_value in s"),
    (lambda: fc.categorical_column_with_identity("ids", 3, default_value=3), ValueError,
     r"default_value 3 not in range \[0, 3\), column_name ids"),
    (lambda: fc.categorical_column_with_hash_bucket("s", 0), ValueError, "hash_bucket_size must be at least 1"),
    (lambda: fc.embedding_column(fc.categorical_column_with_identity("ids", 3), 0), ValueError,
     "Invalid dimension 0"),
    (lambda: fc.crossed_column([fc.categorical_column_with_hash_bucket("s", 3), "s1"], 3), ValueError,
     "categorical_column_with_hash_bucket is not supported for crossing"),
    (lambda: fc.crossed_column(["s"], 3), ValueError, "keys must be a list with length > 1"),
    (lambda: fc.indicator_column(fc.numeric_column("n1")), ValueError, "Input must be a CategoricalColumn"),
])
def test_column_constructor_errors(make, exc, match):
    with pytest.raises(exc, match=match):
        make()
