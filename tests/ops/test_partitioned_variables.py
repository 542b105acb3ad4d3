"""Partitioned variables and partitioners; expected values from TF 2.15 compat.v1."""

import math

import numpy as np
import pytest

import dflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _emb():
    return tf.get_variable("emb", [10, 4], initializer=tf.ones_initializer(), partitioner=tf.fixed_size_partitioner(3))


def test_parts_names_shapes_and_slice_info():
    emb = _emb()
    assert isinstance(emb, tf.PartitionedVariable)
    assert emb.name == "emb" and emb.shape.as_list() == [10, 4] and emb.dtype is tf.float32 and len(emb) == 3
    assert [v.name for v in emb] == ["emb/part_0:0", "emb/part_1:0", "emb/part_2:0"]
    assert [v.shape.as_list() for v in emb] == [[4, 4], [3, 4], [3, 4]]
    infos = [v._save_slice_info for v in emb]
    assert [(i.full_name, i.full_shape, i.var_offset, i.var_shape) for i in infos] == [
        ("emb", [10, 4], [0, 0], [4, 4]), ("emb", [10, 4], [4, 0], [3, 4]), ("emb", [10, 4], [7, 0], [3, 4])]
    assert [i.spec for i in infos] == ["10 4 0,4:0,4", "10 4 4,3:0,4", "10 4 7,3:0,4"]
    assert [v.name for v in tf.global_variables()] == ["emb/part_0:0", "emb/part_1:0", "emb/part_2:0"]
    assert [v.name for v in tf.trainable_variables()] == ["emb/part_0:0", "emb/part_1:0", "emb/part_2:0"]
    t = tf.convert_to_tensor(emb)
    assert (t.name, t.op.type, t.op.inputs[0].op.name) == ("emb:0", "Identity", "emb/ConcatPartitions/concat")


@pytest.mark.parametrize("partitioner, shape, expected", [
    (tf.min_max_variable_partitioner(max_partitions=4, min_slice_size=64), [100, 4], [4, 1]),
    (tf.variable_axis_size_partitioner(400), [100, 4], [4, 1]),
    (tf.variable_axis_size_partitioner(400, axis=1, max_shards=2), [100, 8], [1, 2]),
    (tf.min_max_variable_partitioner(max_partitions=3, axis=0, min_slice_size=16), [5, 3], [3, 1]),
    (tf.fixed_size_partitioner(4), [2, 3], [2, 1]),
])
def test_partitioners(partitioner, shape, expected):
    assert partitioner(shape=tf.TensorShape(shape), dtype=tf.float32) == expected


def test_partitioner_arguments_are_checked():
    with pytest.raises(ValueError, match="max_shard_bytes"):
        tf.variable_axis_size_partitioner(0)
    with pytest.raises(ValueError, match="max_shards must be positive"):
        tf.variable_axis_size_partitioner(10, max_shards=0)
    with pytest.raises(ValueError, match="Cannot partition variable along axis 2"):
        tf.min_max_variable_partitioner(2, axis=2)(shape=tf.TensorShape([4, 4]), dtype=tf.float32)
    with pytest.raises(ValueError, match="not fully defined"):
        tf.fixed_size_partitioner(2)(shape=tf.TensorShape([None, 4]), dtype=tf.float32)


def test_scope_partitioner_reuse_and_seeded_initializer():
    with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(2)):
        w = tf.get_variable("w", [5, 3], initializer=tf.glorot_uniform_initializer(seed=1))
        b = tf.get_variable("b", [3], initializer=tf.zeros_initializer(), partitioner=None)
        scalar = tf.get_variable("scalar", [], initializer=tf.zeros_initializer())
    assert [v.name for v in w] == ["s/w/part_0:0", "s/w/part_1:0"]
    assert isinstance(b, tf.PartitionedVariable) and b.name == "s/b"  # None inherits the scope's partitioner
    assert isinstance(scalar, tf.Variable) and scalar.name == "s/scalar:0"  # scalars are never partitioned
    with tf.variable_scope("s", reuse=True):
        assert tf.get_variable("w", [5, 3]) is w
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        value = sess.run(tf.convert_to_tensor(w))
    # Each part runs the seeded initializer on its own shape; the limit uses the full shape (fans 5 and 3).
    np.testing.assert_array_equal(value[3:], value[:2])
    assert np.abs(value).max() <= math.sqrt(6 / (5 + 3))


def test_create_partitioned_variables():
    vs = tf.create_partitioned_variables([6, 2], [3, 1], tf.ones_initializer(), name="cpv")
    assert [v.name for v in vs] == ["cpv/part_0:0", "cpv/part_1:0", "cpv/part_2:0"]
    assert [v.shape.as_list() for v in vs] == [[2, 2], [2, 2], [2, 2]]
    with pytest.raises(ValueError, match="must have the length"):
        tf.create_partitioned_variables([6, 2], [3], tf.ones_initializer())


def test_training_gradients_and_embedding_of_parts():
    emb = _emb()
    y = tf.matmul(tf.ones([2, 10]), emb)
    loss = tf.reduce_sum(y * y)
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    rows = tf.gather(tf.convert_to_tensor(emb), [0, 4, 9])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run(loss) == pytest.approx(287.99997, rel=1e-6)
        assert sess.run(tf.convert_to_tensor(emb)).sum() == pytest.approx(24.0)
        assert [float(sess.run(v).sum()) for v in emb] == pytest.approx([9.6, 7.2, 7.2])
        np.testing.assert_allclose(sess.run(rows), np.full((3, 4), 0.6), rtol=1e-6)
        with pytest.raises(TypeError, match="PartitionedVariable"):
            sess.run(emb)


def test_regularizer_per_part_constant_initializer_and_assign():
    w = tf.get_variable("w", [5, 2], initializer=tf.constant_initializer(2.0), partitioner=tf.fixed_size_partitioner(2),
                        regularizer=tf.reduce_sum)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [t.name for t in losses] == ["w/part_0/Regularizer/Sum:0", "w/part_1/Regularizer/Sum:0"]
    c = tf.get_variable("c", initializer=tf.constant(np.arange(6.0).reshape(3, 2), dtype=tf.float32),
                        partitioner=tf.fixed_size_partitioner(2))
    assert [v.name for v in c] == ["c/part_0:0", "c/part_1:0"]
    assigns = w.assign(np.ones((5, 2), np.float32))
    assert isinstance(assigns, list) and len(assigns) == 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(losses) == [12.0, 8.0]
        assert sess.run(tf.convert_to_tensor(c)).tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
        sess.run(assigns)
        assert sess.run(tf.convert_to_tensor(w)).tolist() == [[1.0, 1.0]] * 5


def test_bad_requests_name_the_variable():
    tf.get_variable("w", [5, 2], partitioner=tf.fixed_size_partitioner(2))
    tf.get_variable("s", [], partitioner=tf.fixed_size_partitioner(2))
    with pytest.raises(ValueError, match="No partitioner was provided, but a partitioned version of the variable "
                                         "was found: w/part_0"):
        tf.get_variable("w", [5, 2])
    with pytest.raises(ValueError, match="Variable s already exists, disallowed"):
        tf.get_variable("s", [], partitioner=tf.fixed_size_partitioner(2))
    with tf.variable_scope("", reuse=True):
        with pytest.raises(ValueError, match=r"Trying to reuse partitioned variable w, but specified partitions "
                                             r"\[3, 1\] and found partitions \[2, 1\]"):
            tf.get_variable("w", [5, 2], partitioner=tf.fixed_size_partitioner(3))
        with pytest.raises(ValueError, match="PartitionedVariable zz does not exist"):
            tf.get_variable("zz", [5, 2], partitioner=tf.fixed_size_partitioner(3))
    with pytest.raises(ValueError, match="Partitioned variable with name w already exists"):
        tf.get_variable("w", [5, 2], partitioner=tf.fixed_size_partitioner(2))
    with pytest.raises(ValueError, match=r"Can only slice a variable along one dimension: shape: \[4, 4\], "
                                         r"partitioning: \[2, 2\]"):
        tf.get_variable("m", [4, 4], partitioner=lambda shape, dtype: [2, 2])
    tf.get_variable("u", [3])
    with pytest.raises(ValueError, match="an unpartitioned version of the variable was found: u"):
        tf.get_variable("u", [3], partitioner=tf.fixed_size_partitioner(2))


def test_checkpoint_holds_the_whole_and_restores_into_any_partitioning(tmp_path):
    emb = tf.get_variable("emb", [10, 4], initializer=tf.random_normal_initializer(seed=3),
                          partitioner=tf.fixed_size_partitioner(3))
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        full = sess.run(tf.convert_to_tensor(emb))
        path = saver.save(sess, str(tmp_path / "ck"))
    reader = tf.train.NewCheckpointReader(path)
    assert reader.get_variable_to_shape_map() == {"emb": [10, 4]}
    np.testing.assert_array_equal(reader.get_tensor("emb"), full)

    with tf.Graph().as_default():  # four parts instead of three
        e4 = tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(4))
        with tf.Session() as sess:
            tf.train.Saver([e4]).restore(sess, path)
            np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(e4)), full)
    with tf.Graph().as_default():  # not partitioned at all
        e1 = tf.get_variable("emb", [10, 4])
        with tf.Session() as sess:
            tf.train.Saver({"emb": e1}).restore(sess, path)
            np.testing.assert_array_equal(sess.run(e1), full)
    with tf.Graph().as_default():  # through the meta graph
        tf.train.import_meta_graph(path + ".meta")
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            np.testing.assert_array_equal(sess.run("emb:0"), full)
    with tf.Graph().as_default():  # a different full shape is a clear error
        bad = tf.get_variable("emb", [12, 4], partitioner=tf.fixed_size_partitioner(2))
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="full shape"):
            tf.train.Saver([bad]).restore(sess, path)


def test_replica_device_setter_spreads_the_parts_over_parameter_servers():
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        emb = _emb()
    assert [v.device for v in emb] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0"]
