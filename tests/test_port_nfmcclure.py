"""What nfmcclure/tensorflow_cookbook's programs (tests/programs/nfmcclure) needed from dflow.

* ``from tensorflow.python.framework import ops`` then ``ops.reset_default_graph()``: nearly every
  recipe of the cookbook starts so; ``dflow.python.framework.ops`` holds the graph names.
* ``from tensorflow.contrib.learn.python.learn.datasets.mnist import read_data_sets``: TF 1's module
  path of the contrib MNIST reader (``08_Convolutional_Neural_Networks/02_introductory_cnn.py``).
"""

import gzip
import os

import numpy as np

import dflow as tf


def test_python_framework_ops_holds_the_graph_functions():
    from dflow.python.framework import ops

    ops.reset_default_graph()
    graph = ops.get_default_graph()
    assert graph is tf.get_default_graph()
    with ops.name_scope("Custom_Layer"):
        c = ops.convert_to_tensor([1.0, 2.0])
    assert c.name.startswith("Custom_Layer/")
    ops.add_to_collection("mine", c)
    assert ops.get_collection("mine") == [c]
    assert ops.GraphKeys.GLOBAL_VARIABLES == tf.GraphKeys.GLOBAL_VARIABLES
    ops.reset_default_graph()
    assert tf.get_default_graph() is not graph
    # The cookbook's 02_layering_nested_operations: ((x @ m1) @ m2) + a1 after the reset; TF 2.15 prints
    # [[102.] [66.] [58.]] for its first input (and 70 last for the second).
    x = tf.placeholder(tf.float32, shape=(3, 5))
    m1 = tf.constant([[1.0], [0.0], [-1.0], [2.0], [4.0]])
    out = tf.add(tf.matmul(tf.matmul(x, m1), tf.constant([[2.0]])), tf.constant([[10.0]]))
    my_array = np.array([[1.0, 3.0, 5.0, 7.0, 9.0], [-2.0, 0.0, 2.0, 4.0, 6.0], [-6.0, -3.0, 0.0, 3.0, 6.0]])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out, {x: my_array}), [[102.0], [66.0], [58.0]])


def _write_idx(path, array, magic):
    with gzip.open(path, "wb") as f:
        f.write(np.array([magic] + list(array.shape), ">u4").tobytes())
        f.write(array.astype(np.uint8).tobytes())


def test_contrib_learn_mnist_at_tf1_module_path(tmp_path):
    from dflow.contrib.learn.python.learn.datasets.mnist import DataSet, read_data_sets

    assert read_data_sets is tf.contrib.learn.datasets.mnist.read_data_sets
    assert DataSet is tf.contrib.learn.datasets.mnist.DataSet
    rng = np.random.RandomState(0)
    for prefix, n in (("train", 12), ("t10k", 4)):
        _write_idx(os.path.join(tmp_path, f"{prefix}-images-idx3-ubyte.gz"), rng.randint(0, 256, (n, 28, 28)), 2051)
        _write_idx(os.path.join(tmp_path, f"{prefix}-labels-idx1-ubyte.gz"), np.arange(n) % 10, 2049)
    mnist = read_data_sets(str(tmp_path), validation_size=2)
    assert mnist.train.images.shape == (10, 784) and mnist.test.images.shape == (4, 784)
    assert mnist.train.labels.tolist() == [2, 3, 4, 5, 6, 7, 8, 9, 0, 1]
