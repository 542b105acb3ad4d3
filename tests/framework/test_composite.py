"""SparseTensor and IndexedSlices: construction, static shapes, fetch and feed (figures from TF 2.15 compat.v1)."""

import numpy as np
import pytest

import dflow as tf


def test_sparse_tensor_of_python_values_names_its_constants_as_tf1():
    st = tf.SparseTensor([[0, 1], [2, 3]], [1.0, 2.0], [3, 4])
    assert [op.name for op in tf.get_default_graph().get_operations()] == \
        ["SparseTensor/indices", "SparseTensor/values", "SparseTensor/dense_shape"]
    assert st.indices.dtype == tf.int64 and st.dense_shape.dtype == tf.int64 and st.dtype == tf.float32
    assert st.shape.as_list() == [3, 4] and st.op.name == "SparseTensor/values"
    with tf.Session() as sess:
        v = sess.run(st)
    assert isinstance(v, tf.SparseTensorValue)
    assert v.indices.dtype == np.int64 and v.indices.tolist() == [[0, 1], [2, 3]]
    assert v.values.tolist() == [1.0, 2.0] and v.dense_shape.tolist() == [3, 4]


def test_sparse_placeholder_ops_and_shapes_match_tf1():
    sp = tf.sparse_placeholder(tf.float32, name="sp")
    sp2 = tf.sparse_placeholder(tf.float32, shape=[3, None], name="sp2")
    graph_ops = tf.get_default_graph().get_operations()
    ops = [(op.name, op.type, [o.shape.as_list() for o in op.outputs]) for op in graph_ops]
    assert ops == [("sp/shape", "Placeholder", [[None]]), ("sp/values", "Placeholder", [[None]]),
                   ("sp/indices", "Placeholder", [[None, None]]),
                   ("sp2/shape_default", "Const", [[2]]), ("sp2/shape", "PlaceholderWithDefault", [[2]]),
                   ("sp2/values", "Placeholder", [[None]]), ("sp2/indices", "Placeholder", [[None, 2]])]
    assert sp.shape.ndims is None and sp2.shape.as_list() == [3, None]
    with tf.Session() as sess:
        assert sess.run(sp2.dense_shape).tolist() == [3, -1]
        got = sess.run(sp, {sp: ([[0, 0]], [5.0], [2, 2])})
        assert got.values.tolist() == [5.0] and got.dense_shape.tolist() == [2, 2]
        fed = {sp: tf.SparseTensorValue([[0, 0], [1, 1]], [5.0, 6.0], [2, 2])}
        assert sess.run({"v": sp.values * 2.0}, fed)["v"].tolist() == [10.0, 12.0]
        double = sess.make_callable(sp.values * 2.0, [sp])
        assert double(tf.SparseTensorValue([[0, 0]], [5.0], [2, 2])).tolist() == [10.0]


def test_bad_sparse_inputs_are_clear_errors():
    with pytest.raises(ValueError, match="indices must be a matrix"):
        tf.SparseTensor([0, 1], [1.0, 2.0], [3])
    with pytest.raises(TypeError, match="integer"):
        tf.SparseTensor([[0.5]], [1.0], [3])
    with pytest.raises(ValueError):
        tf.SparseTensor([[0, 1], [1, 1]], [1.0, 2.0, 3.0], [3, 3])  # 2 indices, 3 values
    st = tf.SparseTensor([[0, 1]], [1.0], [3, 4])
    with pytest.raises(TypeError, match="tf.sparse.to_dense"):
        tf.convert_to_tensor(st)
    sp = tf.sparse_placeholder(tf.float32)
    with tf.Session() as sess, pytest.raises(TypeError, match="SparseTensorValue"):
        sess.run(sp.values, {sp: 3.0})


def test_indexed_slices_fetch_and_conversion_helpers():
    values = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    s = tf.IndexedSlices(values, tf.constant([0, 2]), tf.constant([3, 2]))
    assert s.dtype == tf.float32 and s.shape.as_list() == [3, 2] and s.name == values.name
    assert tf.convert_to_tensor_or_indexed_slices(s) is s
    with tf.Session() as sess:
        v = sess.run(s)
    assert isinstance(v, tf.IndexedSlicesValue)
    assert v.values.tolist() == [[1.0, 2.0], [3.0, 4.0]] and v.indices.tolist() == [0, 2]
    assert v.dense_shape.tolist() == [3, 2]
    sv = tf.SparseTensorValue([[0]], [1.0], [2])
    assert isinstance(tf.convert_to_tensor_or_sparse_tensor(sv), tf.SparseTensor)


def test_indexed_slices_convert_to_dense_adding_repeated_rows():
    s = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), tf.constant([0, 2, 0]),
                         tf.constant([3, 2]))
    dense = tf.convert_to_tensor(s)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(dense), [[6.0, 8.0], [0.0, 0.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="without dense_shape"):
        tf.convert_to_tensor(tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0])))
