"""Feature columns on SparseTensor inputs (as VarLenFeature parsing gives), weighted_categorical_column,
shared_embedding_columns and the sequence columns, against TF 2.15 (tensorflow.compat.v1) figures.

Every expected value was computed by running the same graph in TF 2.15.1 with
``tf.disable_eager_execution()`` (/tmp/ref/fcol/fc1.py, seq.py); dflow never imports TensorFlow.
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf

fc = tf.feature_column


def emb_init(shape, dtype=None, partition_info=None):
    return tf.constant(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 10.0 + 0.1)


def strings():
    return tf.SparseTensor(indices=[[0, 0], [0, 1], [2, 0], [3, 0], [3, 1], [3, 2]],
                           values=["a", "c", "b", "b", "zz", "b"], dense_shape=[4, 3])


def ints():
    return tf.SparseTensor(indices=[[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]],
                           values=np.array([1, -1, 2, 0, 0], np.int64), dense_shape=[3, 2])


def weights():
    return tf.SparseTensor(indices=[[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]],
                           values=np.array([0.5, 2.0, 3.0, 1.5, -1.0], np.float32), dense_shape=[3, 2])


def strings3():
    return tf.SparseTensor([[0, 0], [0, 1], [2, 0]], ["a", "c", "b"], [3, 2])


def run(t, init=None):
    with tf.Session() as s:
        s.run([tf.global_variables_initializer(), tf.tables_initializer()])
        if init is not None:
            s.run(init)
        return s.run(t)


def test_vocabulary_list_indicator_and_embedding_of_sparse_strings():
    c = fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"])
    cols = [fc.indicator_column(c), fc.embedding_column(c, 2, initializer=emb_init)]
    out = run(fc.input_layer({"s": strings()}, cols))
    # 'zz' is out of the vocabulary (-1, ignored); row 1 has no value: zeros.
    np.testing.assert_allclose(out, [[0.3, 0.4, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0],
                                     [0.3, 0.4, 0.0, 1.0, 0.0], [0.3, 0.4, 0.0, 2.0, 0.0]], rtol=1e-6)


@pytest.mark.parametrize("combiner,expected", [
    ("mean", [[0.3, 0.4], [0.0, 0.0], [0.3, 0.4], [0.43333334, 0.53333336]]),
    ("sqrtn", [[0.42426407, 0.56568545], [0.0, 0.0], [0.3, 0.4], [0.75055534, 0.9237604]]),
    ("sum", [[0.6, 0.8], [0.0, 0.0], [0.3, 0.4], [1.3, 1.6]]),
])
def test_embedding_combiners_with_oov_bucket(combiner, expected):
    c = fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"], num_oov_buckets=1)
    out = run(fc.input_layer({"s": strings()}, [fc.embedding_column(c, 2, combiner=combiner, initializer=emb_init)]))
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_hash_bucket_indicator_of_sparse_strings():
    c = fc.categorical_column_with_hash_bucket("s", 5)
    out = run(fc.input_layer({"s": strings()}, [fc.indicator_column(c)]))
    np.testing.assert_array_equal(out, [[0, 0, 1, 0, 1], [0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 3, 0, 0]])


@pytest.mark.parametrize("combiner,row2", [("mean", [0.1, 0.2]), ("sqrtn", [0.14142136, 0.28284273]),
                                           ("sum", [0.2, 0.4])])
def test_identity_of_sparse_ints_ignores_negative_ids(combiner, row2):
    c = fc.categorical_column_with_identity("i", 3)
    out = run(fc.input_layer({"i": ints()}, [fc.indicator_column(c),
                                             fc.embedding_column(c, 2, combiner=combiner, initializer=emb_init)]))
    np.testing.assert_allclose(out, [[0.3, 0.4, 0.0, 1.0, 0.0], [0.5, 0.6, 0.0, 0.0, 1.0], row2 + [2.0, 0.0, 0.0]],
                               rtol=1e-6)


def test_sparse_tensor_value_and_rank_1_inputs():
    c = fc.categorical_column_with_identity("i", 3)
    out = run(fc.input_layer({"i": tf.SparseTensor([[0], [2]], np.array([1, 2], np.int64), [3])},
                             [fc.indicator_column(c)]))
    np.testing.assert_array_equal(out, [[0, 1, 0], [0, 0, 0], [0, 0, 1]])
    value = tf.SparseTensorValue(np.array([[1, 0]]), np.array([2], np.int64), np.array([2, 1]))
    np.testing.assert_array_equal(run(fc.input_layer({"i": value}, [fc.indicator_column(c)])), [[0, 0, 0], [0, 0, 1]])


def test_numeric_column_rejects_sparse_input():
    with pytest.raises(ValueError, match="SparseTensor is not supported. key: x"):
        fc.input_layer({"x": tf.SparseTensor([[0, 0]], [1.0], [1, 1])}, [fc.numeric_column("x")])


def test_crossed_column_of_sparse_inputs():
    x = fc.crossed_column(["s", fc.categorical_column_with_identity("i", 3)], 7)
    out = run(fc.input_layer({"i": ints(), "s": strings3()}, [fc.indicator_column(x)]))
    np.testing.assert_array_equal(out, [[0, 0, 1, 0, 1, 1, 1], [0, 0, 0, 0, 0, 0, 0], [0, 2, 0, 0, 0, 0, 0]])


# -- weighted_categorical_column ---------------------------------------------------------------


@pytest.mark.parametrize("combiner,emb", [
    ("mean", [[0.3, 0.4], [0.5, 0.6], [0.1, 0.2]]),
    ("sqrtn", [[0.3, 0.4], [0.5, 0.6], [0.1, 0.2]]),
    ("sum", [[0.15, 0.2], [1.5, 1.8], [0.05, 0.1]]),  # sum keeps the -1.0 weight; mean and sqrtn prune it
])
def test_weighted_categorical_column(combiner, emb):
    c = fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 3), "w")
    assert c.name == "i_weighted_by_w"
    cols = [fc.indicator_column(c), fc.embedding_column(c, 2, combiner=combiner, initializer=emb_init)]
    out = run(fc.input_layer({"i": ints(), "w": weights()}, cols))
    indicator = [[0.0, 0.5, 0.0], [0.0, 0.0, 3.0], [0.5, 0.0, 0.0]]
    np.testing.assert_allclose(out, [e + i for e, i in zip(emb, indicator)], rtol=1e-6)


@pytest.mark.parametrize("combiner,expected", [("mean", [[27.5], [4.5], [21.5]]),
                                               ("sqrtn", [[37.855339], [4.5], [21.5]]),
                                               ("sum", [[51.5], [12.5], [21.0]])])
def test_linear_model_of_sparse_and_weighted_columns(combiner, expected):
    c = fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 3), "w")
    v = fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"])
    cv = {}
    lm = fc.linear_model({"i": ints(), "w": weights(), "s": strings3()}, [c, v], sparse_combiner=combiner,
                         cols_to_vars=cv)
    assert [x.name for x in tf.global_variables()] == [
        "linear_model/i_weighted_by_w/weights:0", "linear_model/s/weights:0", "linear_model/bias_weights:0"]
    init = [tf.assign(cv[c][0], [[1.0], [2.0], [4.0]]), tf.assign(cv[v][0], [[10.0], [20.0], [40.0]]),
            tf.assign(cv["bias"][0], [0.5])]
    np.testing.assert_allclose(run(lm, init), expected, rtol=1e-6)


def test_weighted_column_checks_weight_dtype():
    c = fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 3), "w")
    with pytest.raises(ValueError, match="Bad dtype"):
        fc.input_layer({"i": ints(), "w": tf.SparseTensor([[0, 0]], np.array([1], np.int64), [3, 2])},
                       [fc.indicator_column(c)])


# -- shared_embedding_columns --------------------------------------------------------------------


def test_shared_embedding_columns_share_one_variable():
    a = fc.categorical_column_with_identity("i", 3)
    b = fc.categorical_column_with_identity("j", 3)
    shared = fc.shared_embedding_columns([b, a], 2, combiner="sum", initializer=emb_init)
    assert [c.name for c in shared] == ["j_shared_embedding", "i_shared_embedding"]
    assert shared[0].shared_embedding_collection_name == "i_j_shared_embedding"
    assert fc.make_parse_example_spec(shared) == {"i": tf.io.VarLenFeature(tf.int64),
                                                  "j": tf.io.VarLenFeature(tf.int64)}
    feats = {"i": ints(), "j": tf.SparseTensor([[0, 0], [0, 1], [2, 0]], np.array([2, 1, 0], np.int64), [3, 2])}
    out = fc.input_layer(feats, shared)
    fc.input_layer(feats, shared)  # a second layer reuses the variable
    names = ["input_layer/i_j_shared_embedding/embedding_weights:0"]
    assert [v.name for v in tf.global_variables()] == names
    assert [v.name for v in tf.get_collection("i_j_shared_embedding")] == names
    np.testing.assert_allclose(run(out), [[0.3, 0.4, 0.8, 1.0], [0.5, 0.6, 0.0, 0.0], [0.2, 0.4, 0.1, 0.2]],
                               rtol=1e-6)


def test_shared_embedding_columns_need_one_type():
    with pytest.raises(ValueError, match="must have the same type"):
        fc.shared_embedding_columns([fc.categorical_column_with_identity("i", 3),
                                     fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"])], 2)
    with pytest.raises(ValueError, match="same number of buckets"):
        fc.shared_embedding_columns([fc.categorical_column_with_identity("i", 3),
                                     fc.categorical_column_with_identity("j", 4)], 2)


# -- sequence columns -----------------------------------------------------------------------------


def test_sequence_columns_names_and_parse_specs():
    cols = [fc.sequence_categorical_column_with_identity("a", 4),
            fc.sequence_categorical_column_with_hash_bucket("b", 10),
            fc.sequence_categorical_column_with_vocabulary_list("c", ["x", "y"]),
            fc.sequence_numeric_column("d", shape=(2,)),
            fc.weighted_categorical_column(fc.categorical_column_with_identity("e", 3), "ew")]
    assert [c.name for c in cols] == ["a", "b", "c", "d", "e_weighted_by_ew"]
    spec = fc.make_parse_example_spec(cols)
    assert spec == {"a": tf.io.VarLenFeature(tf.int64), "b": tf.io.VarLenFeature(tf.string),
                    "c": tf.io.VarLenFeature(tf.string), "d": tf.io.VarLenFeature(tf.float32),
                    "e": tf.io.VarLenFeature(tf.int64), "ew": tf.io.VarLenFeature(tf.float32)}


def test_sequence_numeric_dense_tensor():
    from dflow.feature_column.feature_column import _LazyBuilder

    d = fc.sequence_numeric_column("d", shape=(2,), default_value=-1.0)
    st = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]], [1., 2., 3., 4., 5., 6.], [2, 4])
    values, length = d._get_sequence_dense_tensor(_LazyBuilder({"d": st}))
    v, n = run([values, length])
    np.testing.assert_array_equal(v, [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [-1.0, -1.0]]])
    assert n.tolist() == [2, 1]


def test_input_layer_rejects_sequence_columns():
    a = fc.sequence_categorical_column_with_identity("a", 4)
    with pytest.raises(ValueError, match="In embedding_column: a_embedding. categorical_column must not be of type "
                                         "_SequenceCategoricalColumn"):
        fc.input_layer({"a": tf.SparseTensor([[0, 0]], np.array([1], np.int64), [1, 1])}, [fc.embedding_column(a, 2)])


def test_embedding_max_norm_clips_each_row():
    c = fc.categorical_column_with_identity("i", 3)
    out = run(fc.input_layer({"i": ints()}, [fc.embedding_column(c, 2, combiner="sum", initializer=emb_init,
                                                                 max_norm=0.5)]))
    np.testing.assert_allclose(out, [[0.3, 0.4], [0.3200922, 0.38411063], [0.2, 0.4]], rtol=1e-6)


def test_sequence_embedding_and_indicator_dense_tensors():
    from dflow.feature_column.feature_column import _LazyBuilder

    a = fc.sequence_categorical_column_with_identity("a", 4)
    st = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [2, 2]], np.array([2, 0, 3, 1, 1], np.int64), [3, 3])
    with tf.variable_scope("s"):
        emb, emb_len = fc.embedding_column(a, 2, initializer=emb_init)._get_sequence_dense_tensor(
            _LazyBuilder({"a": st}))
    hot, hot_len = fc.indicator_column(a)._get_sequence_dense_tensor(_LazyBuilder({"a": st}))
    assert emb.shape.as_list() == [3, 3, 2] and hot.shape.as_list() == [3, 3, 4]
    assert [v.name for v in tf.global_variables()] == ["s/embedding_weights:0"]
    e, el, h, hl = run([emb, emb_len, hot, hot_len])
    np.testing.assert_allclose(e, [[[0.5, 0.6], [0.1, 0.2], [0.0, 0.0]], [[0.7, 0.8], [0.0, 0.0], [0.0, 0.0]],
                                   [[0.3, 0.4], [0.0, 0.0], [0.3, 0.4]]], rtol=1e-6)
    np.testing.assert_array_equal(h, [[[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]], [[0, 0, 0, 1], [0, 0, 0, 0],
                                                                                   [0, 0, 0, 0]],
                                      [[0, 1, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]]])
    assert el.tolist() == hl.tolist() == [2, 1, 3]
    with pytest.raises(ValueError, match="must be of type _SequenceCategoricalColumn"):
        fc.indicator_column(fc.categorical_column_with_identity("a", 4))._get_sequence_dense_tensor(
            _LazyBuilder({"a": st}))
