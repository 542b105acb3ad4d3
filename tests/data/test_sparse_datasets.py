"""tf.data datasets of SparseTensor elements (VarLenFeature parsing), their batches and iterators, and the
TFRecord -> parse_example -> feature columns -> Estimator pipeline, against TF 2.15 (tensorflow.compat.v1)
figures (/tmp/ref/fcol/ds1.py, est.py); dflow never imports TensorFlow.
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf

fc = tf.feature_column

ROWS = [(["a", "b"], [1.0]), ([], [2.0, 3.0]), (["c"], []), (["a", "a", "d"], [4.0])]
SPEC = {"w": tf.io.VarLenFeature(tf.string), "v": tf.io.VarLenFeature(tf.float32)}


def write_records(path, rows, key="w") -> str:
    with tf.io.TFRecordWriter(str(path)) as w:
        for words, extra in rows:
            feature = {key: tf.train.Feature(bytes_list=tf.train.BytesList(value=[x.encode() for x in words]))}
            if isinstance(extra, list):
                feature["v"] = tf.train.Feature(float_list=tf.train.FloatList(value=extra))
            else:
                feature["label"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[extra]))
            w.write(tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString())
    return str(path)


def triple(st):
    return st.indices.tolist(), st.values.tolist(), st.dense_shape.tolist()


def test_map_parse_single_example_then_batch(tmp_path):
    path = write_records(tmp_path / "x.tfrecord", ROWS)
    ds = tf.data.TFRecordDataset(path).map(lambda s: tf.io.parse_single_example(s, SPEC))
    assert tf.data.get_output_classes(ds) == {"v": tf.SparseTensor, "w": tf.SparseTensor}
    assert repr(ds.element_spec["w"]) == "SparseTensorSpec(TensorShape([None]), tf.string)"
    batched = ds.batch(3)
    assert tf.data.get_output_shapes(batched) == {"v": tf.TensorShape([None, None]), "w": tf.TensorShape([None, None])}
    nxt = tf.data.make_one_shot_iterator(batched).get_next()
    assert isinstance(nxt["w"], tf.SparseTensor) and nxt["w"].shape.as_list() == [None, None]
    with tf.Session() as s:
        first, second = s.run(nxt), s.run(nxt)
        with pytest.raises(tf.errors.OutOfRangeError):
            s.run(nxt)
    assert triple(first["v"]) == ([[0, 0], [1, 0], [1, 1]], [1.0, 2.0, 3.0], [3, 2])
    assert triple(first["w"]) == ([[0, 0], [0, 1], [2, 0]], [b"a", b"b", b"c"], [3, 2])
    assert triple(second["v"]) == ([[0, 0]], [4.0], [1, 1])
    assert triple(second["w"]) == ([[0, 0], [0, 1], [0, 2]], [b"a", b"a", b"d"], [1, 3])


def test_batch_then_map_parse_example(tmp_path):
    path = write_records(tmp_path / "x.tfrecord", ROWS)
    ds = tf.data.TFRecordDataset(path).batch(2).map(lambda s: tf.io.parse_example(s, SPEC))
    with tf.Session() as s:
        r = s.run(tf.data.make_one_shot_iterator(ds).get_next())
    assert triple(r["v"]) == ([[0, 0], [1, 0], [1, 1]], [1.0, 2.0, 3.0], [2, 2])
    assert triple(r["w"]) == ([[0, 0], [0, 1]], [b"a", b"b"], [2, 2])


def test_parse_example_dataset_gives_sparse_tensors(tmp_path):
    path = write_records(tmp_path / "x.tfrecord", ROWS)
    ds = tf.data.TFRecordDataset(path).batch(4).apply(tf.data.experimental.parse_example_dataset(SPEC))
    assert tf.data.get_output_classes(ds) == {"v": tf.SparseTensor, "w": tf.SparseTensor}
    with tf.Session() as s:
        r = s.run(tf.data.make_one_shot_iterator(ds).get_next())
    assert triple(r["w"]) == ([[0, 0], [0, 1], [2, 0], [3, 0], [3, 1], [3, 2]], [b"a", b"b", b"c", b"a", b"a", b"d"],
                              [4, 3])


def test_from_tensors_of_sparse_batched_with_drop_remainder_and_mapped():
    st = tf.SparseTensor([[0, 1], [1, 0]], [1, 2], [2, 3])
    ds = tf.data.Dataset.from_tensors(st).repeat(3).batch(2, drop_remainder=True)
    assert tf.data.get_output_shapes(ds) == tf.TensorShape([2, 2, 3])
    it = tf.data.make_initializable_iterator(ds)
    nxt = it.get_next()
    with tf.Session() as s:
        s.run(it.initializer)
        assert triple(s.run(nxt)) == ([[0, 0, 1], [0, 1, 0], [1, 0, 1], [1, 1, 0]], [1, 2, 1, 2], [2, 2, 3])
        with pytest.raises(tf.errors.OutOfRangeError):
            s.run(nxt)
    mapped = tf.data.Dataset.from_tensors(st).map(
        lambda x: (tf.sparse.to_dense(x), tf.SparseTensor(x.indices, x.values * 2, x.dense_shape)))
    with tf.Session() as s:
        dense, doubled = s.run(tf.data.make_one_shot_iterator(mapped).get_next())
    assert dense.tolist() == [[0, 1, 0], [2, 0, 0]] and doubled.values.tolist() == [2, 4]


def test_reinitializable_iterator_with_output_classes(tmp_path):
    path = write_records(tmp_path / "x.tfrecord", ROWS)
    ds = tf.data.TFRecordDataset(path).map(lambda s: tf.io.parse_single_example(s, SPEC)).batch(3)
    it = tf.data.Iterator.from_structure(tf.data.get_output_types(ds), tf.data.get_output_shapes(ds),
                                         output_classes=tf.data.get_output_classes(ds))
    nxt = it.get_next()
    with tf.Session() as s:
        s.run(it.make_initializer(ds))
        assert s.run(nxt)["v"].values.tolist() == [1.0, 2.0, 3.0]
    dense = tf.data.Iterator.from_structure(tf.data.get_output_types(ds), tf.data.get_output_shapes(ds))
    with pytest.raises(TypeError, match="Expected output types"):
        dense.make_initializer(ds)


SLICED = [([[1]], [1], [3]), ([[0], [2]], [2, 3], [3]), ([], [], [3]), ([[1]], [4], [3])]


def test_from_tensor_slices_of_sparse_gives_its_rows():
    st = tf.SparseTensor([[0, 1], [1, 0], [1, 2], [3, 1]], [1, 2, 3, 4], [4, 3])
    ds = tf.data.Dataset.from_tensor_slices(st)
    assert repr(ds.element_spec) == "SparseTensorSpec(TensorShape([3]), tf.int32)"
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    with tf.Session() as s:
        assert [triple(s.run(nxt)) for _ in range(4)] == SLICED
    rebatched = tf.data.make_one_shot_iterator(ds.batch(3)).get_next()
    with tf.Session() as s:
        assert triple(s.run(rebatched)) == ([[0, 1], [1, 0], [1, 2]], [1, 2, 3], [3, 3])
        assert triple(s.run(rebatched)) == ([[0, 1]], [4], [1, 3])


def test_unbatch_of_sparse_and_dense_components():
    st = tf.SparseTensor([[0, 1], [1, 0], [1, 2], [3, 1]], [1, 2, 3, 4], [4, 3])
    ds = tf.data.Dataset.from_tensor_slices((st, np.arange(4))).batch(3).unbatch()
    assert repr(ds.element_spec[0]) == "SparseTensorSpec(TensorShape([3]), tf.int32)"
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    with tf.Session() as s:
        got = [s.run(nxt) for _ in range(4)]
    assert [triple(sp) for sp, _ in got] == SLICED and [int(i) for _, i in got] == [0, 1, 2, 3]


def test_batch_of_empty_sparse_tensors_and_padded_batch_error():
    empty = tf.SparseTensor(np.zeros((0, 2), np.int64), np.zeros(0, np.int32), [0, 3])
    with tf.Session() as s:
        r = s.run(tf.data.make_one_shot_iterator(tf.data.Dataset.from_tensors(empty).batch(2)).get_next())
    assert r.indices.shape == (0, 3) and r.values.tolist() == [] and r.dense_shape.tolist() == [1, 0, 3]
    st = tf.SparseTensor([[0, 1]], [1], [4, 3])
    with pytest.raises(TypeError, match="`padded_batch` is only supported for datasets that produce tensor elements "
                                        "but type spec of elements in the input dataset is not a subclass of "
                                        "TensorSpec: `SparseTensorSpec"):
        tf.data.Dataset.from_tensors(st).padded_batch(2, padded_shapes=[None, None])


# -- TFRecord -> parse_example -> feature columns -> Estimator ------------------------------------------

REVIEWS = [(["good", "fun"], 1), (["bad"], 0), ([], 0), (["good", "good", "meh"], 1), (["bad", "fun"], 0),
           (["fun"], 1), (["meh", "bad"], 0), (["good"], 1)]


def review_input_fn(path, spec, repeat, parse_per_record):
    def input_fn():
        ds = tf.data.TFRecordDataset(path)
        if parse_per_record:
            ds = ds.map(lambda s: tf.io.parse_single_example(s, spec))
            ds = (ds.repeat() if repeat else ds).batch(8)
        else:
            ds = (ds.repeat() if repeat else ds).batch(8).map(lambda s: tf.io.parse_example(s, spec))
        return ds.map(lambda f: (f, f.pop("label")))

    return input_fn


@pytest.mark.parametrize("parse_per_record", [False, True])
def test_linear_classifier_on_varlen_strings_trains_as_tf1(tmp_path, parse_per_record):
    path = write_records(tmp_path / "reviews.tfrecord", REVIEWS, "words")
    words = fc.categorical_column_with_vocabulary_list("words", ["good", "bad", "fun"], num_oov_buckets=1)
    spec = fc.make_parse_example_spec([words])
    spec["label"] = tf.io.FixedLenFeature([1], tf.int64)
    est = tf.estimator.LinearClassifier(feature_columns=[words], model_dir=str(tmp_path / "model"))
    est.train(review_input_fn(path, spec, True, parse_per_record), steps=5)
    metrics = est.evaluate(review_input_fn(path, spec, False, parse_per_record), steps=1)
    assert metrics == pytest.approx(
        {"accuracy": 1.0, "accuracy_baseline": 0.5, "auc": 1.0, "auc_precision_recall": 1.0,
         "average_loss": 0.453841, "global_step": 5, "label/mean": 0.5, "loss": 3.630731, "precision": 1.0,
         "prediction/mean": 0.507803, "recall": 1.0}, rel=1e-4, abs=1e-6)
    np.testing.assert_allclose(est.get_variable_value("linear/linear_model/words/weights").ravel(),
                               [0.586939, -0.595265, 0.514922, -0.055756], rtol=1e-4)
    np.testing.assert_allclose(est.get_variable_value("linear/linear_model/bias_weights"), [-0.215459], rtol=1e-4)
    predictions = est.predict(review_input_fn(path, spec, False, parse_per_record))
    assert [int(p["class_ids"][0]) for p in predictions] == [1, 0, 0, 1, 0, 1, 0, 1]


def test_dnn_classifier_on_varlen_strings_learns(tmp_path):
    path = write_records(tmp_path / "reviews.tfrecord", REVIEWS, "words")
    words = fc.categorical_column_with_hash_bucket("words", 20)
    spec = fc.make_parse_example_spec([words])
    spec["label"] = tf.io.FixedLenFeature([1], tf.int64)
    est = tf.estimator.DNNClassifier(hidden_units=[8], feature_columns=[fc.embedding_column(words, 4)],
                                     optimizer="Adam", model_dir=str(tmp_path / "model"))
    est.train(review_input_fn(path, spec, True, True), steps=60)
    metrics = est.evaluate(review_input_fn(path, spec, False, True), steps=1)
    assert metrics["global_step"] == 60 and metrics["accuracy"] == 1.0
    names = est.get_variable_names()
    assert "dnn/input_from_feature_columns/input_layer/words_embedding/embedding_weights" in names
