"""What aymericdamien/TensorFlow-Examples' programs (tests/programs/aymericdamien) needed from dflow.

* ``tf.contrib.factorization.KMeans`` (``kmeans.py``): TF 1.15's ``training_graph`` (random
  initial centres, Lloyd's step, the mini-batch running mean with counts starting at 1, the cosine
  distance ``1 - cos``);
* ``tf.contrib.data.Dataset`` (``tensorflow_dataset_api.py``, TF 1.2-1.3's name of ``tf.data.Dataset``);
* ``tf.contrib.tensor_forest`` (``random_forest.py``) is not built: it raises ``NotImplementedError``.

Expected figures are TF 1.15's k-means update rules worked by hand (TF 2.15 has no ``tf.contrib``).
"""

import numpy as np
import pytest

import dflow as tf

X = np.array([[0., 0.], [1., 0.], [0., 1.], [10., 10.], [11., 10.], [10., 12.]], np.float32)
C0 = np.array([[1., 1.], [9., 9.]], np.float32)


def _kmeans(**kwargs):
    x = tf.placeholder(tf.float32, [None, 2])
    kmeans = tf.contrib.factorization.KMeans(inputs=x, num_clusters=2, **kwargs)
    return x, kmeans.training_graph()


def _centers():
    return [v for v in tf.global_variables() if v.op.name.endswith("clusters")][0]


def test_kmeans_mini_batch_step_is_tfs_running_mean():
    with tf.Graph().as_default():
        x, (all_scores, idx, scores, initialized, init_op, train_op) = _kmeans(
            initial_clusters=C0, use_mini_batch=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert not sess.run(initialized)
            sess.run(init_op, {x: X})
            assert sess.run(initialized)
            _, i, s, d = sess.run([train_op, idx[0], scores[0], all_scores[0]], {x: X})
            np.testing.assert_array_equal(i, [0, 0, 0, 1, 1, 1])
            np.testing.assert_allclose(s, [2, 1, 1, 2, 5, 10], rtol=1e-6)
            assert d.shape == (6, 2)
            # c += (sum(x) - n c) / (count + n), counts starting at 1
            np.testing.assert_allclose(sess.run(_centers()), [[0.5, 0.5], [10.0, 10.25]], rtol=1e-6)
            sess.run(init_op, {x: X})  # already initialised: the centres stay
            np.testing.assert_allclose(sess.run(_centers()), [[0.5, 0.5], [10.0, 10.25]], rtol=1e-6)


def test_kmeans_full_batch_step_is_lloyds():
    with tf.Graph().as_default():
        x, (_, idx, _, _, init_op, train_op) = _kmeans(initial_clusters=C0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(init_op, {x: X})
            sess.run(train_op, {x: X})
            np.testing.assert_allclose(sess.run(_centers()), [[1 / 3, 1 / 3], [31 / 3, 32 / 3]], rtol=1e-5)


def test_kmeans_cosine_distance_and_random_init():
    with tf.Graph().as_default():
        x, (all_scores, idx, scores, _, init_op, _) = _kmeans(distance_metric="cosine", use_mini_batch=True)
        data = np.array([[1., 0.], [0., 2.], [3., 3.], [-1., 0.5]], np.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(init_op, {x: data})
            centers = sess.run(_centers())
            unit = data / np.linalg.norm(data, axis=1, keepdims=True)
            # the first centres are inputs (l2-normalised), drawn at random
            assert all(np.isclose(unit, c, atol=1e-6).all(1).any() for c in centers)
            d, s = sess.run([all_scores[0], scores[0]], {x: data})
            np.testing.assert_allclose(d, 1 - unit @ centers.T, atol=1e-6)
            np.testing.assert_allclose(s, d.min(1), atol=1e-6)


def test_kmeans_seedings_not_built_raise():
    x = tf.placeholder(tf.float32, [None, 2])
    with pytest.raises(NotImplementedError, match="kmeans_plus_plus"):
        tf.contrib.factorization.KMeans(x, 2, initial_clusters=tf.contrib.factorization.KMEANS_PLUS_PLUS_INIT)


def test_contrib_data_dataset_is_tf_data_dataset():
    assert tf.contrib.data.Dataset is tf.data.Dataset
    with tf.Graph().as_default():
        data = tf.placeholder(tf.float32, [None, 2])
        iterator = tf.contrib.data.Dataset.from_tensor_slices(data).batch(2).make_initializable_iterator()
        nxt = iterator.get_next()
        with tf.Session() as sess:
            sess.run(iterator.initializer, {data: X})
            np.testing.assert_array_equal(sess.run(nxt), X[:2])


def test_tensor_forest_is_not_built():
    from dflow.contrib.tensor_forest.python import tensor_forest
    with pytest.raises(NotImplementedError, match="ForestHParams"):
        tensor_forest.ForestHParams(num_classes=10, num_features=784, num_trees=10, max_nodes=1000)
