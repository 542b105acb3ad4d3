"""What google-research/bert's programs (tests/programs/bert) needed from dflow.

* ``tf.estimator.tpu`` / ``tf.contrib.tpu``: ``TPUEstimator(use_tpu=False)`` runs on CPU as TF 1.15's
  does, passing ``params["batch_size"]`` (and ``params["use_tpu"]`` to the model_fn) and turning a
  ``TPUEstimatorSpec``'s ``eval_metrics``/``scaffold_fn`` into an ``EstimatorSpec``;
  ``tf.tpu.CrossShardOptimizer`` (one shard on CPU); ``TPUClusterResolver`` (no TPU: raises);
* ``tf.data.experimental.parallel_interleave`` and the ``tf.contrib.data`` names;
* ``Estimator.predict``/``evaluate`` without a checkpoint run the initialised model (see
  tests/estimator/test_estimator.py), which ``extract_features.py`` relies on.

Expected figures are TF 2.15.1's ``tf.compat.v1.estimator.tpu.TPUEstimator`` on the same model.
"""

import numpy as np
import pytest

import dflow as tf

X = np.arange(20, dtype=np.float32).reshape(10, 2) / 10
Y = (X @ np.array([1.0, -2.0], np.float32) + 0.5).astype(np.float32)

# TF 2.15.1, tf.compat.v1.estimator.tpu.TPUEstimator(use_tpu=False), batch sizes 5 / 4 / 3:
TF_W_30 = [-0.46321603655815125, -0.4426850378513336]
TF_B_30 = [0.20531031489372253]
TF_EVAL = {"loss": 0.004977628123015165, "mae": 0.06267315149307251, "global_step": 30}
TF_PRED = [0.16104181110858917, -0.020138412714004517, -0.201318621635437, -0.3824988305568695,
           -0.5636789798736572, -0.7448592185974121, -0.926039457321167, -1.1072196960449219,
           -1.2883999347686768, -1.469580054283142]
TF_SEEN = {"input": [5, 4, 3], "model": [("train", 5, False), ("eval", 4, False), ("infer", 3, False)]}


def _estimator(tmp_path, seen, optimizer=None):
    def model_fn(features, labels, mode, params):
        seen.setdefault("model", []).append((mode, params["batch_size"], params.get("use_tpu")))
        w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        pred = tf.squeeze(tf.matmul(features["x"], w) + b, 1)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.tpu.TPUEstimatorSpec(mode, predictions={"y": pred})
        loss = tf.reduce_mean(tf.square(pred - labels))
        opt = (optimizer or tf.train.GradientDescentOptimizer)(0.1)
        train = opt.minimize(loss, global_step=tf.train.get_global_step())

        def metric_fn(labels, pred):
            return {"mae": tf.metrics.mean_absolute_error(labels, pred)}

        return tf.contrib.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train,
                                               eval_metrics=(metric_fn, [labels, pred]))

    config = tf.estimator.tpu.RunConfig(model_dir=str(tmp_path / "model"), master=None, cluster=None,
                                        tpu_config=tf.estimator.tpu.TPUConfig(iterations_per_loop=10))
    return tf.estimator.tpu.TPUEstimator(model_fn=model_fn, config=config, use_tpu=False, train_batch_size=5,
                                         eval_batch_size=4, predict_batch_size=3)


def _inputs(seen):
    def train(params):
        seen.setdefault("input", []).append(params["batch_size"])
        return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(params["batch_size"],
                                                                                drop_remainder=True)

    def evaluate(params):
        seen.setdefault("input", []).append(params["batch_size"])
        return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(params["batch_size"])

    def predict(params):
        seen.setdefault("input", []).append(params["batch_size"])
        return tf.data.Dataset.from_tensor_slices({"x": X}).batch(params["batch_size"])

    return train, evaluate, predict


def test_tpu_estimator_on_cpu_matches_tf(tmp_path):
    seen = {}
    est = _estimator(tmp_path, seen)
    train, evaluate, predict = _inputs(seen)
    est.train(train, max_steps=30)
    np.testing.assert_allclose(est.get_variable_value("w").ravel(), TF_W_30, rtol=1e-5)
    np.testing.assert_allclose(est.get_variable_value("b"), TF_B_30, rtol=1e-5)
    result = est.evaluate(evaluate)
    assert set(result) == set(TF_EVAL)
    for key, value in TF_EVAL.items():
        np.testing.assert_allclose(result[key], value, rtol=1e-5)
    np.testing.assert_allclose([p["y"] for p in est.predict(predict)], TF_PRED, rtol=1e-5, atol=1e-6)
    assert seen == TF_SEEN


def test_cross_shard_optimizer_is_its_optimizer_on_one_shard(tmp_path):
    seen = {}
    est = _estimator(tmp_path, seen, lambda lr: tf.tpu.CrossShardOptimizer(tf.train.GradientDescentOptimizer(lr)))
    est.train(_inputs(seen)[0], max_steps=30)
    np.testing.assert_allclose(est.get_variable_value("w").ravel(), TF_W_30, rtol=1e-5)
    assert tf.contrib.tpu.CrossShardOptimizer is tf.tpu.CrossShardOptimizer
    with pytest.raises(ValueError, match="Unsupported reduction"):
        tf.tpu.CrossShardOptimizer(tf.train.GradientDescentOptimizer(0.1), reduction="none")


def test_tpu_estimator_checks_as_tf():
    config = tf.contrib.tpu.RunConfig(tpu_config=tf.contrib.tpu.TPUConfig(per_host_input_for_training=True))
    assert config.tpu_config.per_host_input_for_training == tf.estimator.tpu.InputPipelineConfig.PER_HOST_V1
    replaced = config.replace(tpu_config=tf.estimator.tpu.TPUConfig(iterations_per_loop=7))
    assert replaced.tpu_config.iterations_per_loop == 7
    with pytest.raises(ValueError, match="reserved keys"):
        tf.estimator.tpu.TPUEstimator(model_fn=lambda features, labels, mode, params: None, config=config,
                                      use_tpu=False, params={"batch_size": 3})
    with pytest.raises(ValueError, match="tpu_config.RunConfig"):
        tf.estimator.tpu.TPUEstimator(model_fn=lambda features, labels, mode, params: None,
                                      config=tf.estimator.RunConfig(), use_tpu=False)
    with pytest.raises(NotImplementedError, match="TPUEstimator"):
        tf.estimator.tpu.TPUEstimator(model_fn=lambda features, labels, mode, params: None, config=config)
    with pytest.raises(NotImplementedError, match="TPUClusterResolver"):
        tf.distribute.cluster_resolver.TPUClusterResolver("my-tpu")
    with pytest.raises(ValueError, match="eval_metrics"):
        tf.estimator.tpu.TPUEstimatorSpec("eval", loss=tf.constant(1.0), eval_metrics={"a": 1})


def test_parallel_interleave_is_interleave_in_order():
    ds = tf.data.Dataset.range(3).apply(tf.data.experimental.parallel_interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=2, sloppy=True))
    nxt = ds.make_one_shot_iterator().get_next()
    got = []
    with tf.Session() as sess:
        try:
            while True:
                got.append(int(sess.run(nxt)))
        except tf.errors.OutOfRangeError:
            pass
    assert got == [0, 1, 0, 1, 2, 2]  # TF 2.15.1
    assert tf.contrib.data.parallel_interleave is tf.data.experimental.parallel_interleave
    assert tf.contrib.data.map_and_batch is tf.data.experimental.map_and_batch


# BERT's model (tests/programs/bert/modeling.py, ported) with seeded weights against TF 2.15.1 running the
# same modeling.py (tf.contrib.layers.layer_norm written out with tf.nn.moments/batch_normalization).
TF_BERT_SEQ_SUM = -50.269325256347656
TF_BERT_SEQ_ABS_SUM = 198.5045166015625
TF_BERT_POOLED_1 = [0.15802322328090668, 0.1551724225282669, 0.8622553944587708, -0.4643706679344177]
TF_BERT_SEQ_0 = [[0.33092644810676575, 0.007579080760478973, 0.8191423416137695],
                 [0.33256596326828003, 0.010941796004772186, 0.819616436958313]]


def test_bert_model_matches_tf():
    import pathlib
    import types

    path = pathlib.Path(__file__).parent / "programs" / "bert" / "modeling.py"
    modeling = types.ModuleType("modeling")
    exec(compile(path.read_text().replace("import tensorflow as tf", "import dflow as tf"), str(path), "exec"),
         modeling.__dict__)
    cfg = modeling.BertConfig(vocab_size=43, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                              intermediate_size=64, max_position_embeddings=64)
    ids = np.array([[2, 5, 23, 13, 35, 3, 0, 0], [2, 6, 7, 8, 9, 10, 11, 3]], np.int32)
    mask = np.array([[1, 1, 1, 1, 1, 1, 0, 0], [1] * 8], np.int32)
    types_ = np.array([[0] * 8, [0, 0, 0, 0, 1, 1, 1, 1]], np.int32)
    model = modeling.BertModel(cfg, False, tf.constant(ids), tf.constant(mask), tf.constant(types_))
    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        variables = sorted(tf.global_variables(), key=lambda v: v.name)
        assert len(variables) == 39
        for v in variables:
            sess.run(v.assign(rng.normal(0, 0.3, v.shape.as_list()).astype(np.float32)))
        seq, pooled = sess.run([model.get_sequence_output(), model.get_pooled_output()])
    assert seq.shape == (2, 8, 32)
    np.testing.assert_allclose(seq.sum(), TF_BERT_SEQ_SUM, rtol=1e-5)
    np.testing.assert_allclose(np.abs(seq).sum(), TF_BERT_SEQ_ABS_SUM, rtol=1e-5)
    np.testing.assert_allclose(pooled[1, :4], TF_BERT_POOLED_1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(seq[0, :2, :3], TF_BERT_SEQ_0, rtol=1e-5, atol=1e-6)
