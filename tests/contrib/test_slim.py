"""tf.contrib.slim: the re-exported contrib layers and framework, separable_conv2d, the checkpoint
assigners, slim.learning (create_train_op, train) and slim.evaluation, end to end. Expected numbers:
TensorFlow 2.15's compat.v1 tf.nn ops on the same inputs, or worked by hand."""

import logging
import os

import numpy as np
import pytest

import dflow as tf
import dflow.contrib.slim as slim


def test_slim_reexports_contrib_objects():
    assert slim.conv2d is tf.contrib.layers.conv2d
    assert slim.fully_connected is tf.contrib.layers.fully_connected
    assert slim.batch_norm is tf.contrib.layers.batch_norm
    assert slim.arg_scope is tf.contrib.framework.arg_scope
    assert slim.model_variable is tf.contrib.framework.model_variable
    assert slim.l2_regularizer is tf.contrib.layers.l2_regularizer
    assert slim.assign_from_checkpoint_fn is tf.contrib.framework.assign_from_checkpoint_fn
    assert tf.contrib.slim is slim
    assert slim.losses is tf.contrib.losses and slim.metrics is tf.contrib.metrics
    for name in ("max_pool2d", "avg_pool2d", "flatten", "dropout", "layer_norm", "one_hot_encoding", "repeat", "stack",
                 "xavier_initializer", "variance_scaling_initializer", "get_variables_to_restore",
                 "get_model_variables", "assign_from_values_fn", "separable_conv2d", "conv2d_transpose"):
        assert callable(getattr(slim, name)), name


def test_slim_nets_is_out_of_scope():
    with pytest.raises(NotImplementedError, match="slim.nets"):
        slim.nets  # noqa: B018
    with pytest.raises(NotImplementedError, match="model zoo"):
        import dflow.contrib.slim.nets  # noqa: F401


def _small_cnn(images, is_training=True):
    with slim.arg_scope([slim.conv2d, slim.fully_connected], weights_regularizer=slim.l2_regularizer(1e-4)):
        with slim.arg_scope([slim.conv2d], padding="SAME", normalizer_fn=slim.batch_norm,
                            normalizer_params={"is_training": is_training}):
            net = slim.repeat(images, 2, slim.conv2d, 4, [3, 3], scope="conv1")
            net = slim.max_pool2d(net, [2, 2], scope="pool1")
            net = slim.separable_conv2d(net, 6, [3, 3], scope="sep")
            net = slim.flatten(net)
            net = slim.stack(net, slim.fully_connected, [8], scope="fc")
            return slim.fully_connected(net, 4, activation_fn=None, scope="logits")


def test_variable_names_and_collections_follow_tf():
    with tf.Graph().as_default():
        _small_cnn(tf.zeros([2, 8, 8, 3]))
        names = {v.op.name: v.shape.as_list() for v in slim.get_model_variables()}
        assert names == {
            "conv1/conv1_1/weights": [3, 3, 3, 4], "conv1/conv1_1/BatchNorm/beta": [4],
            "conv1/conv1_1/BatchNorm/moving_mean": [4], "conv1/conv1_1/BatchNorm/moving_variance": [4],
            "conv1/conv1_2/weights": [3, 3, 4, 4], "conv1/conv1_2/BatchNorm/beta": [4],
            "conv1/conv1_2/BatchNorm/moving_mean": [4], "conv1/conv1_2/BatchNorm/moving_variance": [4],
            "sep/depthwise_weights": [3, 3, 4, 1], "sep/pointwise_weights": [1, 1, 4, 6], "sep/biases": [6],
            "fc/fc_1/weights": [96, 8], "fc/fc_1/biases": [8], "logits/weights": [8, 4], "logits/biases": [4],
        }
        # one L2 penalty per conv/fc weights (not the separable conv's: no arg_scope there)
        assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 4
        assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 4
        assert [v.op.name for v in slim.get_variables_by_name("weights")][:2] == ["conv1/conv1_1/weights",
                                                                                  "conv1/conv1_2/weights"]
        restore = slim.get_variables_to_restore(exclude=["logits"])
        assert all(not v.op.name.startswith("logits") for v in restore)


X = (np.arange(2 * 5 * 5 * 3).reshape(2, 5, 5, 3) % 7 / 7.0 - 0.4).astype(np.float32)
DW = np.linspace(-1, 1, 3 * 3 * 3 * 2).reshape(3, 3, 3, 2).astype(np.float32)
PW = np.linspace(-0.5, 0.7, 1 * 1 * 6 * 4).reshape(1, 1, 6, 4).astype(np.float32)


def test_separable_conv2d_matches_tf_nn():
    with tf.Graph().as_default(), tf.Session() as sess:
        y = slim.separable_conv2d(X, 4, [3, 3], depth_multiplier=2, stride=2,
                                  weights_initializer=tf.constant_initializer(DW),
                                  pointwise_initializer=tf.constant_initializer(PW))
        z = slim.separable_conv2d(X, None, [3, 3], depth_multiplier=2, padding="VALID", activation_fn=None,
                                  weights_initializer=tf.constant_initializer(DW), scope="dw_only")
        assert [v.op.name for v in tf.global_variables()] == [
            "SeparableConv2d/depthwise_weights", "SeparableConv2d/pointwise_weights", "SeparableConv2d/biases",
            "dw_only/depthwise_weights", "dw_only/biases"]
        sess.run(tf.global_variables_initializer())
        yv, zv = sess.run([y, z])
    assert yv.shape == (2, 3, 3, 4) and zv.shape == (2, 3, 3, 6)
    np.testing.assert_allclose(yv.sum(), 17.43175, rtol=1e-5)
    np.testing.assert_allclose(yv[0, 1, 2], [0.023250918835401535, 0.0, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(zv.sum(), -0.6900271, rtol=1e-4)
    np.testing.assert_allclose(zv[1, 0, 2], [0.4204851984977722, 0.44636115431785583, 0.014016211032867432,
                                             0.050673842430114746, -0.6323450207710266, -0.6226415634155273],
                               rtol=1e-5)


def test_end_points_from_outputs_collections():
    with tf.Graph().as_default():
        with slim.arg_scope([slim.conv2d, slim.max_pool2d], outputs_collections="end_points"):
            net = slim.conv2d(tf.zeros([1, 4, 4, 2]), 3, [3, 3], scope="conv1")
            net = slim.max_pool2d(net, [2, 2], scope="pool1")
        end_points = slim.utils.convert_collection_to_dict("end_points")
        assert list(end_points) == ["conv1", "pool1"]
        assert end_points["pool1"] is net


def test_create_train_op_multiplies_then_clips_gradients():
    with tf.Graph().as_default(), tf.Session() as sess:
        w = tf.Variable([1.0, 2.0, 3.0], name="w")
        loss = tf.reduce_sum(w * tf.constant([3.0, 4.0, 0.0]))
        train_op = slim.learning.create_train_op(loss, tf.train.GradientDescentOptimizer(0.1), clip_gradient_norm=2.0,
                                                 gradient_multipliers={w: 0.5})
        assert train_op in tf.get_collection(tf.GraphKeys.TRAIN_OP)
        sess.run(tf.global_variables_initializer())
        assert sess.run(train_op) == pytest.approx(11.0)
        # grad [3, 4, 0] * 0.5 = [1.5, 2, 0] (norm 2.5) clipped to norm 2: [1.2, 1.6, 0]
        np.testing.assert_allclose(sess.run(w), [0.88, 1.84, 3.0], rtol=1e-6)
        assert sess.run(tf.train.get_global_step()) == 1


def test_assign_from_values_fn():
    with tf.Graph().as_default(), tf.Session() as sess:
        with tf.variable_scope("layer"):
            w = slim.model_variable("weights", shape=[2], initializer=tf.zeros_initializer())
        init_fn = slim.assign_from_values_fn({"layer/weights": np.array([3.0, 4.0], np.float32)})
        sess.run(tf.global_variables_initializer())
        init_fn(sess)
        np.testing.assert_allclose(sess.run(w), [3.0, 4.0])
        with pytest.raises(ValueError, match="wasn't found"):
            slim.assign_from_values_fn({"missing": np.zeros(2)})


def test_train_then_restore_and_evaluate(tmp_path, caplog):
    """A small CNN under arg_scope trained with slim.learning.train on random data, restored with
    assign_from_checkpoint_fn and evaluated with slim.evaluation."""
    logdir = str(tmp_path / "train")
    rng = np.random.RandomState(0)
    images_np = rng.rand(8, 8, 8, 3).astype(np.float32)
    labels_np = rng.randint(0, 4, 8)

    with tf.Graph().as_default():
        tf.set_random_seed(1)
        images = tf.constant(images_np)
        logits = _small_cnn(images)
        slim.losses.softmax_cross_entropy(logits, tf.one_hot(labels_np, 4))
        total_loss = slim.losses.get_total_loss()
        train_op = slim.learning.create_train_op(total_loss, tf.train.GradientDescentOptimizer(0.05))
        with caplog.at_level(logging.INFO, logger="tensorflow"):
            final_loss = slim.learning.train(train_op, logdir, number_of_steps=4, save_summaries_secs=600,
                                             log_every_n_steps=2)
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("global step")]
    assert [m.split(":")[0] for m in logged] == ["global step 2", "global step 4"], logged
    assert f"loss = {final_loss:.4f}" in logged[-1], (final_loss, logged)
    assert np.isfinite(final_loss)
    checkpoint = tf.train.latest_checkpoint(logdir)
    assert checkpoint.endswith("model.ckpt-4"), (checkpoint, sorted(os.listdir(logdir)))
    reader = tf.train.NewCheckpointReader(checkpoint)
    assert reader.get_tensor("global_step") == 4

    # A second train() call resumes from the checkpoint and stops at once (global step 4 >= 4).
    with tf.Graph().as_default():
        logits = _small_cnn(tf.constant(images_np))
        slim.losses.softmax_cross_entropy(logits, tf.one_hot(labels_np, 4))
        train_op = slim.learning.create_train_op(slim.losses.get_total_loss(), tf.train.GradientDescentOptimizer(0.05))
        slim.learning.train(train_op, logdir, number_of_steps=5, save_summaries_secs=600)
    assert tf.train.latest_checkpoint(logdir).endswith("model.ckpt-5"), sorted(os.listdir(logdir))

    # Restore all but the logits into a new graph (fine-tuning style).
    with tf.Graph().as_default(), tf.Session() as sess:
        _small_cnn(tf.constant(images_np), is_training=False)
        init_fn = slim.assign_from_checkpoint_fn(tf.train.latest_checkpoint(logdir),
                                                 slim.get_variables_to_restore(exclude=["logits"]))
        sess.run(tf.global_variables_initializer())
        init_fn(sess)
        reader = tf.train.NewCheckpointReader(tf.train.latest_checkpoint(logdir))
        for name in ("conv1/conv1_2/weights", "sep/pointwise_weights", "conv1/conv1_1/BatchNorm/moving_mean"):
            np.testing.assert_allclose(sess.run(slim.get_unique_variable(name)), reader.get_tensor(name))
        assert not np.allclose(sess.run(slim.get_unique_variable("logits/weights")),
                               reader.get_tensor("logits/weights"))

    # ignore_missing_vars skips a variable the checkpoint lacks.
    with tf.Graph().as_default(), tf.Session() as sess:
        extra = slim.variable("not_in_checkpoint", shape=[2], initializer=tf.ones_initializer())
        _small_cnn(tf.constant(images_np), is_training=False)
        init_fn = slim.assign_from_checkpoint_fn(tf.train.latest_checkpoint(logdir),
                                                 slim.get_variables_to_restore(), ignore_missing_vars=True)
        sess.run(tf.global_variables_initializer())
        init_fn(sess)
        np.testing.assert_allclose(sess.run(extra), [1.0, 1.0])

    # slim.evaluation: a streaming accuracy over three evaluation runs of the restored model.
    with tf.Graph().as_default():
        logits = _small_cnn(tf.constant(images_np), is_training=False)
        predictions = tf.argmax(logits, 1)
        accuracy, update = slim.metrics.streaming_accuracy(predictions, tf.constant(labels_np, tf.int64))
        tf.summary.scalar("eval/accuracy", accuracy)
        tf.train.get_or_create_global_step()
        value = slim.evaluation.evaluate_once("", tf.train.latest_checkpoint(logdir), str(tmp_path / "eval"),
                                              num_evals=3, eval_op=update, final_op=accuracy)
        assert 0.0 <= value <= 1.0 and value * 8 == pytest.approx(round(value * 8)), value
        looped = slim.evaluation.evaluation_loop("", logdir, str(tmp_path / "eval"), num_evals=2, eval_op=update,
                                                 final_op=accuracy, eval_interval_secs=0, timeout=1,
                                                 max_number_of_evaluations=1)
        assert looped == pytest.approx(value)
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(str(tmp_path / "eval")))


def test_train_argument_checks():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="train_op cannot be None"):
            slim.learning.train(None, None)
        with pytest.raises(ValueError, match="number_of_steps"):
            slim.learning.train(tf.constant(1.0), None, number_of_steps=0)


def test_slim_summaries():
    with tf.Graph().as_default():
        op = slim.summaries.add_scalar_summary(tf.constant(1.0, name="x"), prefix="losses")
        assert op.op.name.startswith("losses/x")


def test_train_init_fn_starts_from_a_checkpoint(tmp_path):
    """Fine-tuning: init_fn restores all but the logits after the initialization (learning rate 0: the
    weights stay the checkpoint's)."""
    images_np = np.random.RandomState(1).rand(4, 8, 8, 3).astype(np.float32)
    with tf.Graph().as_default():
        _small_cnn(tf.constant(images_np))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            source = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    with tf.Graph().as_default():
        logits = _small_cnn(tf.constant(images_np))
        slim.losses.softmax_cross_entropy(logits, tf.one_hot([0, 1, 2, 3], 4))
        train_op = slim.learning.create_train_op(slim.losses.get_total_loss(), tf.train.GradientDescentOptimizer(0.0))
        restore = slim.get_variables_to_restore(exclude=["logits", "global_step"])
        init_fn = slim.assign_from_checkpoint_fn(source, restore)
        slim.learning.train(train_op, str(tmp_path / "finetune"), number_of_steps=1, init_fn=init_fn,
                            save_summaries_secs=600)
    tuned = tf.train.NewCheckpointReader(tf.train.latest_checkpoint(str(tmp_path / "finetune")))
    original = tf.train.NewCheckpointReader(source)
    name = "conv1/conv1_1/weights"
    np.testing.assert_array_equal(tuned.get_tensor(name), original.get_tensor(name))
    assert not np.array_equal(tuned.get_tensor("logits/weights"), original.get_tensor("logits/weights"))


def test_evaluation_loop_times_out_without_checkpoints(tmp_path):
    with tf.Graph().as_default():
        value, update = slim.metrics.streaming_mean(tf.constant([1.0, 2.0]))
        got = slim.evaluation.evaluation_loop("", str(tmp_path), str(tmp_path / "eval"), eval_op=update,
                                              final_op=value, eval_interval_secs=0, timeout=1)
    assert got is None


def test_model_analyzer_and_queue_runners(capsys):
    with tf.Graph().as_default():
        slim.conv2d(tf.zeros([1, 4, 4, 2]), 3, [3, 3], scope="conv1")
        total_size, total_bytes = slim.model_analyzer.analyze_vars(slim.get_model_variables(), print_info=True)
        assert (total_size, total_bytes) == (3 * 3 * 2 * 3 + 3, 4 * (3 * 3 * 2 * 3 + 3))
        printed = capsys.readouterr().out
        assert "conv1/weights:0 (float32 3x3x2x3) [54, bytes: 216]" in printed
        assert "Total size of variables: 57" in printed
        assert slim.model_analyzer.analyze_ops(tf.get_default_graph()) > 0

    with tf.Graph().as_default():
        queue = tf.FIFOQueue(10, tf.int32)
        tf.train.add_queue_runner(tf.train.QueueRunner(queue, [queue.enqueue(7)]))
        dequeued = queue.dequeue()
        with tf.Session() as sess, slim.queues.QueueRunners(sess):
            assert sess.run(dequeued) == 7


def test_softmax_over_the_last_axis():
    logits = np.array([[[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]], np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        out = slim.softmax(logits, scope="Predictions")
        assert out.op.name.startswith("Predictions/") and out.shape.as_list() == [1, 2, 3]
        e = np.exp(logits - logits.max(-1, keepdims=True))
        np.testing.assert_allclose(sess.run(out), e / e.sum(-1, keepdims=True), rtol=1e-6)
