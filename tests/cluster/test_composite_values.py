"""Values beyond dense arrays on a real cluster: a SparseTensor fed on the client and used on a worker,
a TensorArray loop on a worker, and a partitioned variable spread over the parameter servers."""

import numpy as np
import pytest

import dflow as tf

pytestmark = pytest.mark.cluster


def test_sparse_tensor_fed_on_the_client_is_consumed_on_a_worker(local_cluster):
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32, name="sp")
        with tf.device("/job:ps/task:0"):
            w = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name="w")
        with tf.device("/job:worker/task:1"):
            product = tf.sparse.sparse_dense_matmul(sp, w)
            total = tf.sparse.reduce_sum(sp)
            doubled = tf.SparseTensor(sp.indices, sp.values * 2.0, sp.dense_shape)
        value = tf.SparseTensorValue(indices=[[0, 0], [1, 2]], values=[1.0, 10.0], dense_shape=[2, 3])
        metadata = tf.RunMetadata()
        with tf.Session(local_cluster.target) as sess:
            sess.run(w.initializer)
            got, s, d = sess.run([product, total, doubled], {sp: value},
                                 options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                                 run_metadata=metadata)
    np.testing.assert_allclose(got, [[1.0, 2.0], [50.0, 60.0]])
    assert s == 11.0
    assert isinstance(d, tf.SparseTensorValue)
    assert d.indices.tolist() == [[0, 0], [1, 2]] and d.values.tolist() == [2.0, 20.0]
    assert d.dense_shape.tolist() == [2, 3]
    devices = {stats.device for stats in metadata.step_stats.dev_stats}
    assert "/job:worker/replica:0/task:1/device:CPU:0" in devices


def test_a_tensor_array_loop_runs_on_a_worker(local_cluster):
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:0"):
            ta = tf.TensorArray(tf.float32, size=4)

            def body(i, ta):
                return i + 1, ta.write(i, tf.cast(i, tf.float32) ** 2)

            _, ta = tf.while_loop(lambda i, _: i < 4, body, [tf.constant(0), ta])
            stacked = ta.stack()
        with tf.Session(local_cluster.target) as sess:
            assert sess.run(stacked).tolist() == [0.0, 1.0, 4.0, 9.0]


def test_partitioned_variable_parts_live_on_the_parameter_servers_and_train(local_cluster):
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:0")):
            emb = tf.get_variable("emb", [10, 4], initializer=tf.ones_initializer(),
                                  partitioner=tf.fixed_size_partitioner(3))
            y = tf.matmul(tf.ones([2, 10]), emb)
            loss = tf.reduce_sum(y * y)
            train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        assert {v.device for v in emb} == {"/job:ps/task:0"}
        with tf.Session(local_cluster.target) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            assert sess.run(loss) == pytest.approx(287.99997, rel=1e-6)  # TF 2.15's figure
            assert [float(sess.run(v).sum()) for v in emb] == pytest.approx([9.6, 7.2, 7.2])


def test_anonymous_queues_and_random_streams_survive_graph_extension(local_cluster):
    # Each new graph version is imported anew on the worker; TF1 keeps a session's stateful
    # kernels, so an unnamed queue keeps its elements and a random op continues its stream.
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            q = tf.FIFOQueue(10, tf.float32)
            enqueue = q.enqueue(1.0)
            r = tf.random_uniform([], seed=3)
        with tf.Session(local_cluster.target) as sess:
            sess.run(enqueue)
            sess.run(enqueue)
            first = sess.run(r)
            assert sess.run(q.size()) == 2  # q.size() is a new op: the graph was extended
            assert sess.run(r) != first
    with tf.Graph().as_default():  # another client's unnamed queue is its own (TF1: per session)
        with tf.device("/job:ps/task:0"):
            q = tf.FIFOQueue(10, tf.float32)
        with tf.Session(local_cluster.target) as sess:
            assert sess.run(q.size()) == 0
