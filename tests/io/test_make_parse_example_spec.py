"""tf.feature_column.make_parse_example_spec: the specs TF 2.15 gives (/tmp/ref/io/spec_ref.py)."""

import pytest

import dflow as tf

fc = tf.feature_column


def test_specs_match_tf():
    age = fc.numeric_column("age")
    w = fc.numeric_column("w", shape=[2], default_value=[1.0, 2.0], dtype=tf.float64)
    b = fc.bucketized_column(age, [10, 20])
    h = fc.categorical_column_with_hash_bucket("h", 10)
    hi = fc.categorical_column_with_hash_bucket("hi", 10, dtype=tf.int64)
    v = fc.categorical_column_with_vocabulary_list("v", ["a", "b"])
    vi = fc.categorical_column_with_vocabulary_list("vi", [1, 2])
    i = fc.categorical_column_with_identity("i", 5)
    x = fc.crossed_column(["s1", b, fc.crossed_column(["s2", "s3"], 4)], 10)
    spec = fc.make_parse_example_spec([age, w, b, x, h, hi, vi, fc.indicator_column(v), fc.embedding_column(i, 3)])
    assert {k: repr(spec[k]) for k in spec} == {
        "age": "FixedLenFeature(shape=(1,), dtype=tf.float32, default_value=None)",
        "h": "VarLenFeature(dtype=tf.string)", "hi": "VarLenFeature(dtype=tf.int64)",
        "i": "VarLenFeature(dtype=tf.int64)", "s1": "VarLenFeature(dtype=tf.string)",
        "s2": "VarLenFeature(dtype=tf.string)", "s3": "VarLenFeature(dtype=tf.string)",
        "v": "VarLenFeature(dtype=tf.string)", "vi": "VarLenFeature(dtype=tf.int64)",
        "w": "FixedLenFeature(shape=(2,), dtype=tf.float64, default_value=(1.0, 2.0))"}
    with pytest.raises(ValueError, match="feature_columns contain different parse_spec for key age. Given "
                                         "FixedLenFeature\\(shape=\\(2,\\)"):
        fc.make_parse_example_spec([age, fc.numeric_column("age", shape=[2])])
    with pytest.raises(ValueError, match="All feature_columns must be _FeatureColumn instances. Given: age"):
        fc.make_parse_example_spec(["age"])


def test_parse_then_input_layer():
    # dense columns only: dflow's feature columns do not take the SparseTensors of VarLenFeatures yet
    tf.reset_default_graph()
    columns = [fc.numeric_column("x", shape=[2]), fc.bucketized_column(fc.numeric_column("y"), [0.0, 10.0])]
    exs = []
    for x, y in (([1.0, 2.0], 5.0), ([3.0, 4.0], 11.0)):
        ex = tf.train.Example()
        ex.features.feature["x"].float_list.value.extend(x)
        ex.features.feature["y"].float_list.value.append(y)
        exs.append(ex.SerializeToString())
    features = tf.parse_example(exs, fc.make_parse_example_spec(columns))
    dense = fc.input_layer(features, columns)
    with tf.Session() as sess:
        assert sess.run(dense).tolist() == [[1, 2, 0, 1, 0], [3, 4, 0, 0, 1]]
