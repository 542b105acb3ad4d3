"""tf.contrib.layers: TF 1.15's variable names, collections and numbers (checked against numpy)."""

import numpy as np
import pytest

import dflow as tf

layers = tf.contrib.layers


def names(variables):
    return [v.op.name for v in variables]


def test_fully_connected_names_shapes_collections():
    x = tf.placeholder(tf.float32, [None, 3])
    h = layers.fully_connected(x, 4)
    y = layers.fully_connected(h, 2, scope="out")
    z = layers.fully_connected(h, 2)
    assert names(tf.global_variables()) == [
        "fully_connected/weights", "fully_connected/biases", "out/weights", "out/biases",
        "fully_connected_1/weights", "fully_connected_1/biases"]
    assert tf.global_variables()[0].shape.as_list() == [3, 4]
    assert tf.global_variables()[1].shape.as_list() == [4]
    assert tf.get_collection(tf.GraphKeys.MODEL_VARIABLES) == tf.global_variables()
    assert tf.trainable_variables() == tf.global_variables()
    assert h.op.type == "Relu" and y.op.type == "Relu" and z.shape.as_list() == [None, 2]


def test_fully_connected_reuse_and_errors():
    x = tf.placeholder(tf.float32, [None, 3])
    layers.fully_connected(x, 4, scope="fc")
    layers.fully_connected(x, 4, scope="fc", reuse=True)
    assert len(tf.global_variables()) == 2
    with pytest.raises(ValueError):
        layers.fully_connected(x, 4, scope="fc")
    with pytest.raises(ValueError, match="num_outputs"):
        layers.fully_connected(x, 4.0)


def test_fully_connected_numbers(sess):
    rng = np.random.RandomState(0)
    xv = rng.randn(5, 3).astype(np.float32)
    w = rng.randn(3, 4).astype(np.float32)
    b = rng.randn(4).astype(np.float32)
    x = tf.constant(xv)
    y = layers.fully_connected(x, 4, weights_initializer=tf.constant_initializer(w),
                               biases_initializer=tf.constant_initializer(b))
    lin = layers.linear(x, 4, weights_initializer=tf.constant_initializer(w), biases_initializer=None)
    sess.run(tf.global_variables_initializer())
    np.testing.assert_allclose(sess.run(y), np.maximum(xv @ w + b, 0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sess.run(lin), xv @ w, rtol=1e-5, atol=1e-5)
    assert names(tf.global_variables())[-1] == "fully_connected_1/weights"


def test_fully_connected_rank3_inputs(sess):
    xv = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
    w = np.ones((4, 2), np.float32)
    y = layers.fully_connected(tf.constant(xv), 2, activation_fn=None, weights_initializer=tf.constant_initializer(w))
    sess.run(tf.global_variables_initializer())
    assert y.shape.as_list() == [2, 3, 2]
    np.testing.assert_allclose(sess.run(y), xv @ w, rtol=1e-5)


def test_collections_and_aliases():
    x = tf.placeholder(tf.float32, [None, 3])
    y = layers.fully_connected(x, 2, variables_collections={"weights": ["my_weights"]},
                               outputs_collections="outs", weights_regularizer=layers.l2_regularizer(0.1))
    assert names(tf.get_collection("my_weights")) == ["fully_connected/weights"]
    assert tf.get_collection("outs") == [y]
    assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 1


def test_normalizer_fn_replaces_biases():
    x = tf.placeholder(tf.float32, [None, 3])
    layers.fully_connected(x, 4, normalizer_fn=layers.batch_norm, normalizer_params={"scale": True})
    assert names(tf.global_variables()) == [
        "fully_connected/weights", "fully_connected/BatchNorm/beta", "fully_connected/BatchNorm/gamma",
        "fully_connected/BatchNorm/moving_mean", "fully_connected/BatchNorm/moving_variance"]


def test_conv2d_names_and_numbers(sess):
    rng = np.random.RandomState(1)
    xv = rng.randn(2, 5, 5, 3).astype(np.float32)
    w = rng.randn(3, 3, 3, 4).astype(np.float32)
    y = layers.conv2d(tf.constant(xv), 4, [3, 3], padding="VALID", weights_initializer=tf.constant_initializer(w),
                      activation_fn=None)
    c2 = layers.conv2d(y, 2, 1)
    assert names(tf.global_variables()) == ["Conv/weights", "Conv/biases", "Conv_1/weights", "Conv_1/biases"]
    assert c2.op.type == "Relu"
    sess.run(tf.global_variables_initializer())
    out = sess.run(y)
    expected = np.zeros((2, 3, 3, 4), np.float32)
    for i in range(3):
        for j in range(3):
            expected[:, i, j, :] = np.tensordot(xv[:, i:i + 3, j:j + 3, :], w, axes=([1, 2, 3], [0, 1, 2]))
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
    assert layers.convolution2d is layers.conv2d


def test_conv2d_transpose_and_pooling_shapes():
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    t = layers.conv2d_transpose(x, 5, [3, 3], stride=2)
    assert t.shape.as_list() == [None, 16, 16, 5]
    assert names(tf.global_variables()) == ["Conv2d_transpose/weights", "Conv2d_transpose/biases"]
    assert tf.global_variables()[0].shape.as_list() == [3, 3, 5, 3]
    m = layers.max_pool2d(x, [2, 2])
    a = layers.avg_pool2d(x, 3, stride=1, padding="SAME")
    assert m.shape.as_list() == [None, 4, 4, 3] and m.op.name.startswith("MaxPool2D/")
    assert a.shape.as_list() == [None, 8, 8, 3] and a.op.name.startswith("AvgPool2D/")
    f = layers.flatten(m)
    assert f.shape.as_list() == [None, 48]


def test_pool_numbers(sess):
    xv = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    m, a = sess.run([layers.max_pool2d(tf.constant(xv), 2), layers.avg_pool2d(tf.constant(xv), 2)])
    np.testing.assert_allclose(m[0, :, :, 0], [[5, 7], [13, 15]])
    np.testing.assert_allclose(a[0, :, :, 0], [[2.5, 4.5], [10.5, 12.5]])


def test_batch_norm_training_and_inference(sess):
    rng = np.random.RandomState(2)
    xv = (rng.randn(8, 3) * 2 + 1).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 3])
    y = layers.batch_norm(x, decay=0.9, scale=True, is_training=True)
    assert names(tf.global_variables()) == [
        "BatchNorm/beta", "BatchNorm/gamma", "BatchNorm/moving_mean", "BatchNorm/moving_variance"]
    assert names(tf.trainable_variables()) == ["BatchNorm/beta", "BatchNorm/gamma"]
    assert tf.get_collection(tf.GraphKeys.MODEL_VARIABLES) == tf.global_variables()
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(update_ops) == 2
    sess.run(tf.global_variables_initializer())
    out, _ = sess.run([y, update_ops], {x: xv})
    mean, var = xv.mean(0), xv.var(0)
    np.testing.assert_allclose(out, (xv - mean) / np.sqrt(var + 0.001), rtol=1e-4, atol=1e-4)
    mm, mv = sess.run(["BatchNorm/moving_mean:0", "BatchNorm/moving_variance:0"])
    n = xv.shape[0]
    np.testing.assert_allclose(mm, 0.1 * mean, rtol=1e-4, atol=1e-5)
    # the fused kernel (rank 2) updates with the Bessel-corrected variance
    np.testing.assert_allclose(mv, 0.9 + 0.1 * var * n / (n - 1), rtol=1e-4)

    y_inf = layers.batch_norm(x, scale=True, is_training=False, scope="BatchNorm", reuse=True)
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 2
    np.testing.assert_allclose(sess.run(y_inf, {x: xv}), (xv - mm) / np.sqrt(mv + 0.001), rtol=1e-4, atol=1e-4)


def test_batch_norm_rank4_nonfused_and_inplace_updates(sess):
    rng = np.random.RandomState(3)
    xv = rng.randn(2, 3, 3, 4).astype(np.float32)
    x = tf.constant(xv)
    y = layers.batch_norm(x, fused=False, updates_collections=None, decay=0.5)
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    sess.run(tf.global_variables_initializer())
    out = sess.run(y)
    mean, var = xv.mean((0, 1, 2)), xv.var((0, 1, 2))
    np.testing.assert_allclose(out, (xv - mean) / np.sqrt(var + 0.001), rtol=1e-4, atol=1e-4)
    mm, mv = sess.run(["BatchNorm/moving_mean:0", "BatchNorm/moving_variance:0"])
    np.testing.assert_allclose(mm, 0.5 * mean, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mv, 0.5 + 0.5 * var, rtol=1e-4)


def test_batch_norm_is_training_placeholder(sess):
    xv = np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)
    training = tf.placeholder(tf.bool, [])
    y = layers.batch_norm(tf.constant(xv), is_training=training)
    sess.run(tf.global_variables_initializer())
    np.testing.assert_allclose(sess.run(y, {training: False}), xv / np.sqrt(1.001), rtol=1e-5)
    expected = (xv - xv.mean(0)) / np.sqrt(xv.var(0) + 0.001)
    np.testing.assert_allclose(sess.run(y, {training: True}), expected, rtol=1e-4, atol=1e-4)


def test_batch_norm_nchw_and_bad_format():
    x = tf.placeholder(tf.float32, [None, 4, 5, 5])
    layers.batch_norm(x, data_format="NCHW")
    assert tf.global_variables()[0].shape.as_list() == [4]
    with pytest.raises(ValueError, match="data_format"):
        layers.batch_norm(x, data_format="NWHC")
    with pytest.raises(NotImplementedError):
        layers.batch_norm(x, renorm=True)


def test_layer_norm(sess):
    rng = np.random.RandomState(4)
    xv = rng.randn(3, 2, 5).astype(np.float32)
    y = layers.layer_norm(tf.constant(xv))
    assert names(tf.global_variables()) == ["LayerNorm/beta", "LayerNorm/gamma"]
    assert tf.global_variables()[0].shape.as_list() == [5]
    assert tf.get_collection(tf.GraphKeys.MODEL_VARIABLES) == tf.global_variables()
    sess.run(tf.global_variables_initializer())
    mean = xv.mean(axis=(1, 2), keepdims=True)
    var = xv.var(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(sess.run(y), (xv - mean) / np.sqrt(var + 1e-12), rtol=1e-4, atol=1e-4)
    y2 = layers.layer_norm(tf.constant(xv), begin_norm_axis=-1, center=False)
    mean, var = xv.mean(-1, keepdims=True), xv.var(-1, keepdims=True)
    np.testing.assert_allclose(_init_and_run(sess, y2),
                               (xv - mean) / np.sqrt(var + 1e-12), rtol=1e-4, atol=1e-4)
    assert names(tf.global_variables())[-1] == "LayerNorm_1/gamma"


def _init_and_run(sess, t):
    sess.run(tf.global_variables_initializer())
    return sess.run(t)


def test_dropout_one_hot_embed(sess):
    x = tf.ones([100, 10])
    d = layers.dropout(x, keep_prob=0.5)
    d_eval = layers.dropout(x, is_training=False)
    oh = layers.one_hot_encoding(tf.constant([0, 2]), 3)
    emb = layers.embed_sequence(tf.constant([[0, 1], [2, 0]]), vocab_size=3, embed_dim=4,
                                initializer=tf.constant_initializer(np.arange(12.0).reshape(3, 4)))
    assert names(tf.global_variables()) == ["EmbedSequence/embeddings"]
    assert tf.get_collection(tf.GraphKeys.MODEL_VARIABLES) == tf.global_variables()
    sess.run(tf.global_variables_initializer())
    dv, ev, ohv, embv = sess.run([d, d_eval, oh, emb])
    assert set(np.unique(dv)) <= {0.0, 2.0} and 0.3 < (dv == 0).mean() < 0.7
    np.testing.assert_allclose(ev, 1.0)
    np.testing.assert_allclose(ohv, [[1, 0, 0], [0, 0, 1]])
    table = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(embv, table[[[0, 1], [2, 0]]])


def test_repeat_and_stack():
    x = tf.placeholder(tf.float32, [None, 3])
    layers.repeat(x, 2, layers.fully_connected, 4, scope="fc")
    layers.stack(x, layers.fully_connected, [5, 6], scope="st")
    assert names(tf.global_variables()) == [
        "fc/fc_1/weights", "fc/fc_1/biases", "fc/fc_2/weights", "fc/fc_2/biases",
        "st/st_1/weights", "st/st_1/biases", "st/st_2/weights", "st/st_2/biases"]


def test_summaries():
    x = tf.placeholder(tf.float32, [None, 3])
    h = layers.fully_connected(x, 2, outputs_collections=tf.GraphKeys.ACTIVATIONS)
    s = layers.summarize_tensor(tf.constant(1.0, name="c"))
    assert s is not None
    out = layers.summarize_activations()
    assert len(out) == 1
    assert len(tf.get_collection(tf.GraphKeys.SUMMARIES)) == 3  # c_summary, zeros, activation
    assert h.op.type == "Relu"


def test_optimize_loss_trains_two_layer_net(sess):
    rng = np.random.RandomState(5)
    xv = rng.randn(64, 2).astype(np.float32)
    yv = (xv[:, :1] * 2 - xv[:, 1:] + 0.5).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32, [None, 1])
    tf.set_random_seed(0)
    h = layers.fully_connected(x, 8)
    pred = layers.fully_connected(h, 1, activation_fn=None)
    loss = tf.reduce_mean(tf.square(pred - y))
    gs = tf.train.get_or_create_global_step()
    train_op = layers.optimize_loss(loss, gs, learning_rate=0.1, optimizer="Adam", clip_gradients=5.0)
    assert "OptimizeLoss/learning_rate:0" in [v.name for v in tf.global_variables()]
    assert "OptimizeLoss/learning_rate:0" not in [v.name for v in tf.trainable_variables()]
    sess.run(tf.global_variables_initializer())
    first = sess.run(loss, {x: xv, y: yv})
    for _ in range(60):
        last = sess.run(train_op, {x: xv, y: yv})
    assert last < first * 0.2
    assert sess.run(gs) == 60


def test_optimize_loss_errors():
    loss = tf.reduce_sum(tf.Variable([1.0]))
    with pytest.raises(ValueError, match="Optimizer name"):
        layers.optimize_loss(loss, None, 0.1, "Nope")
    with pytest.raises(ValueError, match="Summaries"):
        layers.optimize_loss(loss, None, 0.1, "SGD", summaries=["bogus"])
