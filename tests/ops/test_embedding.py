# ruff: noqa: E501 - reference figures are one literal per line
"""Embeddings against TensorFlow 2.15's compat.v1: lookups (partitioned, clipped, combined)
and sparse training steps of every optimizer, with figures from TF (scripts in
/tmp/ref/sparse/)."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from dflow.framework.composite import IndexedSlicesValue
from tests.ops.gradcheck import check_gradients


def emb_cases(tf):
    T = np.arange(24, dtype=np.float32).reshape(8, 3) / 4.0 - 2.0
    shards3 = lambda: [tf.constant(T[0:3]), tf.constant(T[3:6]), tf.constant(T[6:8])]
    mod3 = lambda: [tf.constant(T[0::3]), tf.constant(T[1::3]), tf.constant(T[2::3])]
    ids = np.array([[7, 0], [3, 3], [5, 1]], np.int64)
    SP = lambda: tf.SparseTensor([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]], tf.constant([1, 3, 3, 0, 7, 1], tf.int64), [5, 3])
    W = lambda: tf.SparseTensor([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]], [2., .5, 1., 1., -1., 3.], [5, 3])
    SP3 = lambda: tf.SparseTensor([[0, 0, 0], [0, 0, 1], [1, 1, 0], [1, 1, 1]], tf.constant([1, -1, 6, 2], tf.int64), [2, 2, 2])
    c = {}
    c["lookup"] = lambda: tf.nn.embedding_lookup(tf.constant(T), ids)
    c["lookup_mod"] = lambda: tf.nn.embedding_lookup(mod3(), ids)
    c["lookup_div"] = lambda: tf.nn.embedding_lookup(shards3(), ids, partition_strategy="div")
    c["lookup_max_norm"] = lambda: tf.nn.embedding_lookup(tf.constant(T), ids, max_norm=2.0)
    c["lookup_div_max_norm"] = lambda: tf.nn.embedding_lookup(shards3(), ids, partition_strategy="div", max_norm=1.5)
    for comb in ("sum", "mean", "sqrtn"):
        c[f"sparse_{comb}"] = (lambda comb=comb: tf.nn.embedding_lookup_sparse(tf.constant(T), SP(), None, combiner=comb))
        c[f"sparse_{comb}_w"] = (lambda comb=comb: tf.nn.embedding_lookup_sparse(mod3(), SP(), W(), combiner=comb))
        c[f"safe_{comb}"] = (lambda comb=comb: tf.nn.safe_embedding_lookup_sparse(shards3(), SP(), W(), combiner=comb))
    c["safe_default_id"] = lambda: tf.nn.safe_embedding_lookup_sparse(tf.constant(T), SP(), None, default_id=4)
    c["safe_rank3"] = lambda: tf.nn.safe_embedding_lookup_sparse([tf.constant(T)], SP3(), None, combiner="sum")
    return c


def emb_train(tf, opt_name):
    """Two steps of an optimizer on a table looked up sparsely; the table after each."""
    table = tf.Variable(np.arange(15, dtype=np.float32).reshape(5, 3) / 10.0, name="table")
    ids = tf.placeholder(tf.int64, [None])
    emb = tf.nn.embedding_lookup(table, ids)
    loss = tf.reduce_sum(tf.square(emb - 1.0))
    opt = {"sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
           "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
           "adagrad": lambda: tf.train.AdagradOptimizer(0.5),
           "adam": lambda: tf.train.AdamOptimizer(0.1),
           "rmsprop": lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5),
           "ftrl": lambda: tf.train.FtrlOptimizer(0.3, l1_regularization_strength=0.01),
           "adadelta": lambda: tf.train.AdadeltaOptimizer(1.0),
           "proximal": lambda: tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=0.05)}[opt_name]()
    train = opt.minimize(loss)
    return table, ids, train


EXPECTED = {
    'lookup': np.array([[[ 3.25,  3.5 ,  3.75],  [-2.  , -1.75, -1.5 ]], [[ 0.25,  0.5 ,  0.75],  [ 0.25,  0.5 ,  0.75]], [[ 1.75,  2.  ,  2.25],  [-1.25, -1.  , -0.75]]], 'float32'),
    'lookup_mod': np.array([[[ 3.25,  3.5 ,  3.75],  [-2.  , -1.75, -1.5 ]], [[ 0.25,  0.5 ,  0.75],  [ 0.25,  0.5 ,  0.75]], [[ 1.75,  2.  ,  2.25],  [-1.25, -1.  , -0.75]]], 'float32'),
    'lookup_div': np.array([[[ 3.25,  3.5 ,  3.75],  [-2.  , -1.75, -1.5 ]], [[ 0.25,  0.5 ,  0.75],  [ 0.25,  0.5 ,  0.75]], [[ 1.75,  2.  ,  2.25],  [-1.25, -1.  , -0.75]]], 'float32'),
    'lookup_max_norm': np.array([[[ 1.0704031,  1.1527418,  1.2350805],  [-1.3107711, -1.1469247, -0.9830783]], [[ 0.25     ,  0.5      ,  0.75     ],  [ 0.25     ,  0.5      ,  0.75     ]], [[ 1.0051414,  1.148733 ,  1.2923247],  [-1.25     , -1.       , -0.75     ]]], 'float32'),
    'lookup_div_max_norm': np.array([[[ 0.8028023 ,  0.8645563 ,  0.92631036],  [-0.9830783 , -0.86019355, -0.73730874]], [[ 0.25      ,  0.5       ,  0.75      ],  [ 0.25      ,  0.5       ,  0.75      ]], [[ 0.75385606,  0.8615498 ,  0.96924347],  [-1.0606601 , -0.84852815, -0.6363961 ]]], 'float32'),
    'sparse_sum': np.array([[-1.  , -0.5 ,  0.  ], [ 0.25,  0.5 ,  0.75], [ 0.  ,  0.  ,  0.  ], [ 0.  ,  0.75,  1.5 ]], 'float32'),
    'sparse_sum_w': np.array([[-2.375, -1.75 , -1.125], [ 0.25 ,  0.5  ,  0.75 ], [ 0.   ,  0.   ,  0.   ], [-9.   , -8.25 , -7.5  ]], 'float32'),
    'safe_sum': np.array([[-2.375, -1.75 , -1.125], [ 0.25 ,  0.5  ,  0.75 ], [ 0.   ,  0.   ,  0.   ], [-9.   , -8.25 , -7.5  ], [ 0.   ,  0.   ,  0.   ]], 'float32'),
    'sparse_mean': np.array([[-0.5 , -0.25,  0.  ], [ 0.25,  0.5 ,  0.75], [ 0.  ,  0.  ,  0.  ], [ 0.  ,  0.25,  0.5 ]], 'float32'),
    'sparse_mean_w': np.array([[-0.95, -0.7 , -0.45], [ 0.25,  0.5 ,  0.75], [ 0.  ,  0.  ,  0.  ], [-3.  , -2.75, -2.5 ]], 'float32'),
    'safe_mean': np.array([[-0.95  , -0.7   , -0.45  ], [ 0.25  ,  0.5   ,  0.75  ], [ 0.    ,  0.    ,  0.    ], [-1.4375, -1.1875, -0.9375], [ 0.    ,  0.    ,  0.    ]], 'float32'),
    'sparse_sqrtn': np.array([[-0.70710677, -0.35355338,  0.        ], [ 0.25      ,  0.5       ,  0.75      ], [ 0.        ,  0.        ,  0.        ], [ 0.        ,  0.4330127 ,  0.8660254 ]], 'float32'),
    'sparse_sqrtn_w': np.array([[-1.1520443, -0.8488747, -0.5457052], [ 0.25     ,  0.5      ,  0.75     ], [ 0.       ,  0.       ,  0.       ], [-2.713602 , -2.4874685, -2.2613351]], 'float32'),
    'safe_sqrtn': np.array([[-1.1520443, -0.8488747, -0.5457052], [ 0.25     ,  0.5      ,  0.75     ], [ 0.       ,  0.       ,  0.       ], [-1.8183097, -1.5020819, -1.1858541], [ 0.       ,  0.       ,  0.       ]], 'float32'),
    'safe_default_id': np.array([[-0.5 , -0.25,  0.  ], [ 0.25,  0.5 ,  0.75], [ 1.  ,  1.25,  1.5 ], [ 0.  ,  0.25,  0.5 ], [ 1.  ,  1.25,  1.5 ]], 'float32'),
    'safe_rank3': np.array([[[-1.25, -1.  , -0.75],  [ 0.  ,  0.  ,  0.  ]], [[ 0.  ,  0.  ,  0.  ],  [ 2.  ,  2.5 ,  3.  ]]], 'float32'),
}
TRAINED = {
    'sgd': np.array([[0.2       , 0.28      , 0.36      ], [0.58      , 0.64      , 0.70000005], [0.6       , 0.7       , 0.8       ], [0.936     , 1.        , 1.064     ], [1.2       , 1.3       , 1.4       ]], 'float32'),
    'momentum': np.array([[0.2       , 0.28      , 0.36      ], [0.58000004, 0.64      , 0.7       ], [0.6       , 0.7       , 0.8       ], [0.954     , 1.        , 1.046     ], [1.2       , 1.3       , 1.4       ]], 'float32'),
    'adagrad': np.array([[0.4938648 , 0.59245807, 0.69051147], [0.7968414 , 0.8957155 , 0.9938648 ], [0.6       , 0.7       , 0.8       ], [0.83400625, 1.        , 1.1659937 ], [1.2       , 1.3       , 1.4       ]], 'float32'),
    'adam': np.array([[0.07441343, 0.17441343, 0.2744134 ], [0.4670056 , 0.5670056 , 0.66700554], [0.6       , 0.7       , 0.8       ], [1.0670054 , 1.        , 0.93299454], [1.2       , 1.3       , 1.4       ]], 'float32'),
    'rmsprop': np.array([[0.1754116 , 0.26269785, 0.34881306], [0.515768  , 0.5975459 , 0.6754116 ], [0.6       , 0.7       , 0.8       ], [0.9490348 , 1.        , 1.0509652 ], [1.2       , 1.3       , 1.4       ]], 'float32'),
    'ftrl': np.array([[0.2948373 , 0.37653014, 0.45368913], [0.5633727 , 0.643937  , 0.7167504 ], [0.6       , 0.7       , 0.8       ], [0.5817531 , 0.2948373 , 0.29682016], [1.2       , 1.3       , 1.4       ]], 'float32'),
    'adadelta': np.array([[4.47213504e-04, 1.00447215e-01, 2.00447217e-01], [3.00447226e-01, 4.00447220e-01, 5.00447214e-01], [6.00000024e-01, 6.99999988e-01, 8.00000012e-01], [9.00899112e-01, 1.00000000e+00, 1.09910095e+00], [1.20000005e+00, 1.29999995e+00, 1.39999998e+00]], 'float32'),
    'proximal': np.array([[0.19500001, 0.275     , 0.35500002], [0.57500005, 0.635     , 0.695     ], [0.6       , 0.7       , 0.8       ], [0.927     , 0.991     , 1.0550001 ], [1.2       , 1.3       , 1.4       ]], 'float32'),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_lookup_matches_tf(name):
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(emb_cases(tf)[name]())
    assert got.dtype == EXPECTED[name].dtype and got.shape == EXPECTED[name].shape
    np.testing.assert_allclose(got, EXPECTED[name], rtol=1e-6, atol=1e-6)


_SPARSE_OPS = {"sgd": "ScatterSub", "momentum": "SparseApplyMomentum", "adagrad": "SparseApplyAdagrad",
               "adam": "ApplyAdam", "rmsprop": "SparseApplyRMSProp", "ftrl": "SparseApplyFtrl",
               "adadelta": "SparseApplyAdadelta", "proximal": "SparseApplyProximalGradientDescent"}


@pytest.mark.parametrize("opt", sorted(TRAINED))
def test_sparse_training_step_matches_tf(opt):
    with tf.Graph().as_default(), tf.Session() as sess:
        table, ids, train = emb_train(tf, opt)
        types = {op.type for op in tf.get_default_graph().get_operations()}
        sess.run(tf.global_variables_initializer())
        sess.run(train, {ids: [1, 3, 1]})
        sess.run(train, {ids: [0, 3]})
        got = sess.run(table)
    assert _SPARSE_OPS[opt] in types  # only the looked-up rows are updated (Adam: densely, as TF1)
    np.testing.assert_allclose(got, TRAINED[opt], rtol=1e-6, atol=1e-6)


def test_gradient_is_indexed_slices_of_the_rows_looked_up():
    with tf.Graph().as_default(), tf.Session() as sess:
        table = tf.Variable(np.ones((6, 2), np.float32))
        emb = tf.nn.embedding_lookup(table, [[4, 1], [4, 0]])
        (grad,) = tf.gradients(tf.reduce_sum(emb * [[[1.]], [[2.]]]), [table])
        assert isinstance(grad, tf.IndexedSlices)
        assert grad.values.shape.as_list()[1:] == [2]
        sess.run(tf.global_variables_initializer())
        value = sess.run(grad)
        dense = sess.run(tf.convert_to_tensor(grad))
    assert isinstance(value, IndexedSlicesValue)
    assert value.indices.tolist() == [4, 1, 4, 0] and value.dense_shape.tolist() == [6, 2]
    assert value.values.tolist() == [[1., 1.], [1., 1.], [2., 2.], [2., 2.]]
    assert dense.tolist() == [[2., 2.], [1., 1.], [0., 0.], [0., 0.], [3., 3.], [0., 0.]]


def test_sparse_and_dense_gradients_of_one_table_add_up():
    with tf.Graph().as_default(), tf.Session() as sess:
        table = tf.Variable(np.ones((3, 2), np.float32))
        loss = tf.reduce_sum(tf.nn.embedding_lookup(table, [2])) + tf.reduce_sum(table * 2.0)
        only_sparse = tf.reduce_sum(tf.nn.embedding_lookup(table, [0])) + tf.reduce_sum(
            tf.nn.embedding_lookup(table, [0, 2]))
        (mixed,) = tf.gradients(loss, [table])
        (concat,) = tf.gradients(only_sparse, [table])
        assert isinstance(concat, tf.IndexedSlices) and not isinstance(mixed, tf.IndexedSlices)
        sess.run(tf.global_variables_initializer())
        assert sess.run(mixed).tolist() == [[2., 2.], [2., 2.], [3., 3.]]
        assert sess.run(tf.convert_to_tensor(concat)).tolist() == [[2., 2.], [0., 0.], [1., 1.]]


def test_repeated_rows_are_summed_before_a_sparse_apply():
    # Adagrad's accumulator sees the summed gradient of a repeated id, as in TF1.
    with tf.Graph().as_default(), tf.Session() as sess:
        table = tf.Variable([[1.0], [1.0]])
        train = tf.train.AdagradOptimizer(1.0, initial_accumulator_value=1.0).minimize(
            tf.reduce_sum(tf.nn.embedding_lookup(table, [1, 1])))
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(table), [[1.0], [1.0 - 2.0 / np.sqrt(5.0)]], rtol=1e-6)


def test_lookup_gradient_through_partitions_and_combiners():
    def fn(t0, t1):
        sp = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([1, 2, 3], tf.int64), [3, 2])
        w = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([.5, 2., 1.], tf.float64), [3, 2])
        # (x * 1: gradcheck compares dense gradients; the tables get IndexedSlices)
        return tf.nn.embedding_lookup_sparse([t0 * 1., t1 * 1.], sp, w, combiner="sqrtn", max_norm=3.0)

    check_gradients(fn, np.arange(4.).reshape(2, 2), np.arange(4.).reshape(2, 2) - 1.)


def test_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Unrecognized partition strategy"):
            tf.nn.embedding_lookup([tf.ones([2, 2]), tf.ones([2, 2])], [0], partition_strategy="x")
        with pytest.raises(ValueError, match="Need at least one param"):
            tf.nn.embedding_lookup([], [0])
        with pytest.raises(ValueError, match="combiner must be one of"):
            tf.nn.embedding_lookup_sparse(tf.ones([2, 2]), tf.SparseTensor([[0, 0]], [0], [1, 1]), None,
                                          combiner="max")
        with pytest.raises(TypeError, match="sp_ids must be SparseTensor"):
            tf.nn.embedding_lookup_sparse(tf.ones([2, 2]), [0], None)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(tf.nn.embedding_lookup(tf.ones([2, 2]), [5]))


def test_sync_replicas_aggregate_embedding_rows_with_a_sparse_accumulator():
    """Two replicas, two steps, per-row means (TF1's SparseConditionalAccumulator); TF 2.15 figures."""
    import threading

    from tests.train.test_sync_replicas import start, stop

    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        table = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 4, name="table")
        ids = tf.placeholder(tf.int64, [None])
        loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(table, ids) - 1.0))
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2, total_num_replicas=2)
        train = opt.minimize(loss, global_step=gs)
        assert "SparseAccumulatorApplyGradient" in {op.type for op in tf.get_default_graph().get_operations()}
        sess, coord, _ = start(opt, num_tokens=0)
        barrier, errors = threading.Barrier(2), []
        feeds = [[[0, 2], [2]], [[2, 3, 3], [1]]]

        def replica(i):
            try:
                for step in range(2):
                    sess.run(train, {ids: feeds[i][step]})
                    barrier.wait(10)
            except Exception as e:  # noqa: BLE001 - handed to the test
                errors.append(e)
                barrier.abort()

        threads = [threading.Thread(target=replica, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert not errors
        got, step = sess.run([table, gs])
        stop(sess, coord)
    assert step == 2
    np.testing.assert_allclose(got, [[0.2, 0.4, 0.6], [0.8, 1.0, 1.2], [1.32, 1.48, 1.64], [1.75, 1.9, 2.05]],
                               rtol=1e-6)


def test_lookups_inside_while_loop_and_cond_train_the_table():
    """Inside control flow the table's gradient leaves the sub-graph dense; TF 2.15 figures."""
    with tf.Graph().as_default(), tf.Session() as sess:
        table = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2))

        def body(i, acc):
            return i + 1, acc + tf.reduce_sum(tf.nn.embedding_lookup(table, tf.reshape(i % 4, [1])))

        _, total = tf.while_loop(lambda i, a: i < 3, body, [tf.constant(0), tf.constant(0.)])
        picked = tf.cond(tf.constant(True), lambda: tf.reduce_sum(tf.nn.embedding_lookup(table, [1, 1])),
                         lambda: tf.constant(0.))
        (g_loop,), (g_cond,) = tf.gradients(total, [table]), tf.gradients(picked, [table])
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(total + picked)
        sess.run(tf.global_variables_initializer())
        assert sess.run(tf.convert_to_tensor(g_loop)).tolist() == [[1., 1.], [1., 1.], [1., 1.], [0., 0.]]
        assert sess.run(tf.convert_to_tensor(g_cond)).tolist() == [[0., 0.], [2., 2.], [0., 0.], [0., 0.]]
        sess.run(train)
        np.testing.assert_allclose(sess.run(table), [[-0.1, 0.9], [1.7, 2.7], [3.9, 4.9], [6., 7.]], rtol=1e-6)


def test_a_user_optimizer_with_only_apply_dense_gets_the_densified_gradient():
    class Halve(tf.train.GradientDescentOptimizer):
        def _apply_dense(self, grad, var):
            return tf.assign_sub(var, grad * 0.5).op

        _apply_sparse_duplicate_indices = tf.train.Optimizer._apply_sparse_duplicate_indices

    with tf.Graph().as_default(), tf.Session() as sess:
        table = tf.Variable(np.ones((3, 1), np.float32))
        train = Halve(1.0).minimize(tf.reduce_sum(tf.nn.embedding_lookup(table, [2, 2])))
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run(table).tolist() == [[1.], [1.], [0.]]


def test_names_and_static_shapes_are_tfs():
    with tf.Graph().as_default():
        table = tf.constant([[1., 2.], [3., 4.]])
        single = tf.nn.embedding_lookup(table, [1])
        assert (single.name, single.op.inputs[0].op.name, single.op.inputs[0].op.type) == \
            ("embedding_lookup/Identity:0", "embedding_lookup", "GatherV2")
        parted = tf.nn.embedding_lookup([table, table], [[1, 2]])
        assert (parted.name, parted.shape.as_list()) == ("embedding_lookup_1/Reshape_1:0", [1, 2, 2])
        sp = tf.SparseTensor([[0, 0]], tf.constant([1], tf.int64), [1, 1])
        assert tf.nn.embedding_lookup_sparse(table, sp, None).name == "embedding_lookup_sparse:0"
        safe = tf.nn.safe_embedding_lookup_sparse(table, sp)
        assert (safe.name, safe.shape.as_list()) == ("embedding_lookup_2/Reshape_2:0", [1, 2])
