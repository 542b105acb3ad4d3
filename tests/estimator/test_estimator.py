"""tf.estimator: Estimator train/evaluate/predict, RunConfig, EstimatorSpec, train_and_evaluate.

The TF1 figures below come from tensorflow-cpu 2.15.1's ``tf.compat.v1.estimator``
running the same ``model_fn`` on the same data (zero-initialised weights,
``numpy_input_fn(shuffle=False)``, batch 5, SGD 0.1).
"""

import logging
import os

import numpy as np
import pytest

import dflow as tf

X = np.arange(20, dtype=np.float32).reshape(10, 2) / 10
Y = (X @ np.array([1.0, -2.0], np.float32) + 0.5).astype(np.float32)

# tf.compat.v1.estimator (TF 2.15.1), 30 steps then 20 more:
TF1_W_30 = [-0.46321604, -0.44268504]
TF1_B_30 = [0.20531031]
TF1_EVAL_LOSS_30 = 0.0058671613
TF1_PRED_30 = [0.16104181, -0.020138413, -0.20131862, -0.38249883, -0.563679, -0.7448592, -0.92603946,
               -1.1072197, -1.2883999, -1.4695802]
TF1_W_50 = [-0.4968747, -0.46746597]
TF1_EVAL_LOSS_50_ONE_BATCH = 0.001575926


def model_fn(features, labels, mode, params):
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    pred = tf.squeeze(tf.matmul(features["x"], w) + b, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": pred, "x": features["x"]})
    loss = tf.reduce_mean(tf.square(pred - labels))
    train = tf.train.GradientDescentOptimizer(params["lr"]).minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, predictions={"y": pred}, loss=loss, train_op=train,
                                      eval_metric_ops={"mse": tf.metrics.mean_squared_error(labels, pred)})


def train_input(num_epochs=None):
    return tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=5, num_epochs=num_epochs, shuffle=False)


def eval_input():
    return tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=5, num_epochs=1, shuffle=False)


def predict_input():
    return tf.estimator.inputs.numpy_input_fn({"x": X}, batch_size=4, num_epochs=1, shuffle=False)


def make(tmp_path, **config):
    return tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "model"), params={"lr": 0.1},
                                  config=tf.estimator.RunConfig(**config) if config else None)


def test_train_evaluate_predict_match_tf1(tmp_path):
    est = make(tmp_path)
    assert est.train(train_input(), steps=30) is est
    np.testing.assert_allclose(est.get_variable_value("w").ravel(), TF1_W_30, rtol=1e-5)
    np.testing.assert_allclose(est.get_variable_value("b"), TF1_B_30, rtol=1e-5)
    assert sorted(est.get_variable_names()) == ["b", "global_step", "w"]
    assert est.latest_checkpoint() == os.path.join(est.model_dir, "model.ckpt-30")
    result = est.evaluate(eval_input())
    assert set(result) == {"loss", "mse", "global_step"}
    assert result["global_step"] == 30
    np.testing.assert_allclose(result["loss"], TF1_EVAL_LOSS_30, rtol=1e-5)
    np.testing.assert_allclose(result["mse"], TF1_EVAL_LOSS_30, rtol=1e-5)
    preds = list(est.predict(predict_input()))
    np.testing.assert_allclose([p["y"] for p in preds], TF1_PRED_30, rtol=1e-5, atol=1e-6)
    # Eval summaries go to model_dir/eval.
    assert any(f.startswith("events.out.tfevents") for f in os.listdir(os.path.join(est.model_dir, "eval")))


def test_predictions_one_dict_per_example(tmp_path):
    est = make(tmp_path)
    est.train(train_input(), steps=2)
    preds = list(est.predict(predict_input()))
    assert len(preds) == 10
    assert all(isinstance(p, dict) and set(p) == {"x", "y"} and p["x"].shape == (2,) for p in preds)
    np.testing.assert_array_equal(np.stack([p["x"] for p in preds]), X)
    only_y = list(est.predict(predict_input(), predict_keys=["y"]))
    assert set(only_y[0]) == {"y"}
    batches = list(est.predict(predict_input(), yield_single_examples=False))
    assert [len(b["y"]) for b in batches] == [4, 4, 2]
    with pytest.raises(ValueError, match="Expected to run at least one output"):
        list(est.predict(predict_input(), predict_keys=["nope"]))


def test_resume_continues_global_step(tmp_path):
    est = make(tmp_path)
    est.train(train_input(), steps=30)
    est2 = make(tmp_path)  # a new estimator on the same model_dir resumes
    est2.train(train_input(), steps=20)
    assert est2.get_variable_value("global_step") == 50
    np.testing.assert_allclose(est2.get_variable_value("w").ravel(), TF1_W_50, rtol=1e-5)
    result = est2.evaluate(eval_input(), steps=1)
    np.testing.assert_allclose(result["loss"], TF1_EVAL_LOSS_50_ONE_BATCH, rtol=1e-5)
    assert result["global_step"] == 50


def test_max_steps(tmp_path, caplog):
    est = make(tmp_path)
    est.train(train_input(), max_steps=7)
    assert est.get_variable_value("global_step") == 7
    est.train(train_input(), max_steps=10)
    assert est.get_variable_value("global_step") == 10
    with caplog.at_level(logging.INFO, logger="dflow"):
        est.train(train_input(), max_steps=10)
    assert "Skipping training since max_steps has already saved." in caplog.text
    assert "Calling model_fn." not in caplog.text
    with pytest.raises(ValueError, match="Can not provide both steps and max_steps"):
        est.train(train_input(), steps=1, max_steps=20)
    with pytest.raises(ValueError, match="Must specify steps > 0"):
        est.train(train_input(), steps=0)


def test_input_exhaustion_ends_training_quietly(tmp_path):
    est = make(tmp_path)
    est.train(train_input(num_epochs=3))  # 10 examples, batch 5, 3 epochs
    assert est.get_variable_value("global_step") == 6


def test_evaluate_and_predict_before_training_run_the_initialised_model(tmp_path, caplog):
    # As TF 1.15 (and TF 2.15's compat.v1): no checkpoint in model_dir, so evaluate and predict run
    # freshly initialised variables (w = b = 0) and say so; get_variable_names needs a checkpoint.
    est = make(tmp_path)
    with caplog.at_level(logging.INFO, logger="dflow"):
        result = est.evaluate(eval_input())
    assert any("running initialization to evaluate" in r.getMessage() for r in caplog.records)
    assert result["global_step"] == 0
    np.testing.assert_allclose(result["loss"], float(np.mean(np.square(Y))), rtol=1e-5)
    assert [float(p["y"]) for p in est.predict(predict_input())] == [0.0] * 10
    with pytest.raises(ValueError, match="Could not find trained model in model_dir"):
        est.get_variable_names()


def test_logging_lines(tmp_path, caplog):
    est = make(tmp_path, log_step_count_steps=10)
    with caplog.at_level(logging.INFO, logger="dflow"):
        est.train(train_input(), steps=25)
    msgs = [r.getMessage() for r in caplog.records if r.name == "dflow"]
    # TF 2.15 with v2 behaviour off logs "loss = ..., step = 1", then "step = 11 (0.030 sec)": the
    # fetched global step (a ref variable) is the value after the step's update.
    assert any(m.startswith("loss = ") and m.endswith(", step = 1") for m in msgs)
    assert any(m.startswith("loss = ") and ", step = 11 (" in m and m.endswith(" sec)") for m in msgs)
    assert any(m.startswith("global_step/sec: ") for m in msgs)
    assert any(m.startswith("Saving checkpoints for 25 into ") for m in msgs)
    assert any(m.startswith("Loss for final step: ") for m in msgs)


def test_progress_bar_only_on_a_terminal(tmp_path, capsys, monkeypatch):
    from dflow.estimator import estimator as estimator_mod

    est = make(tmp_path)
    est.train(train_input(), steps=3)
    assert "steps/sec" not in capsys.readouterr().err
    monkeypatch.setattr(estimator_mod, "_stderr_is_terminal", lambda: True)
    est.train(train_input(), max_steps=6)
    err = capsys.readouterr().err
    assert "\r[" in err and "6/6" in err and "loss=" in err and "steps/sec" in err


def test_model_fn_argument_subsets_and_dataset_input(tmp_path):
    def fn(features, labels):
        w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(features * w - labels))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec("train", loss=loss, train_op=train)

    def dataset_input():
        return tf.data.Dataset.from_tensor_slices((np.ones(8, np.float32), np.full(8, 2.0, np.float32))).batch(4)

    est = tf.estimator.Estimator(fn, model_dir=str(tmp_path / "m"))
    est.train(dataset_input)
    assert est.get_variable_value("global_step") == 2
    assert est.get_variable_value("w") > 0

    def with_config(features, mode, config):
        assert isinstance(config, tf.estimator.RunConfig) and mode == "infer"
        return tf.estimator.EstimatorSpec(mode, predictions=features * 2.0)

    with pytest.raises(ValueError, match="must include features argument"):
        tf.estimator.Estimator(lambda labels, mode: None)
    with pytest.raises(ValueError, match="does not include params argument"):
        tf.estimator.Estimator(with_config, params={"a": 1})
    with pytest.raises(ValueError, match="not expected args"):
        tf.estimator.Estimator(lambda features, other: None)
    pred_est = tf.estimator.Estimator(with_config, model_dir=str(tmp_path / "m"))
    out = list(pred_est.predict(lambda: tf.data.Dataset.from_tensor_slices(np.arange(3.0, dtype=np.float32))
                                .batch(2)))
    assert out == [0.0, 2.0, 4.0]


def test_temp_model_dir_is_logged(caplog):
    with caplog.at_level(logging.WARNING, logger="dflow"):
        est = tf.estimator.Estimator(model_fn, params={"lr": 0.1})
    assert os.path.isdir(est.model_dir)
    assert f"Using temporary folder as model directory: {est.model_dir}" in caplog.text


def test_estimator_spec_validation():
    with tf.Graph().as_default():
        loss = tf.constant(1.0)
        # TF1's messages, in TF1's order.
        with pytest.raises(ValueError, match="Missing train_op."):
            tf.estimator.EstimatorSpec("train")
        with pytest.raises(ValueError, match="Missing train_op."):
            tf.estimator.EstimatorSpec("train", loss=loss)
        with pytest.raises(ValueError, match="Missing loss."):
            tf.estimator.EstimatorSpec("train", train_op=tf.no_op())
        with pytest.raises(ValueError, match="Missing loss."):
            tf.estimator.EstimatorSpec("eval")
        with pytest.raises(ValueError, match="Missing predictions."):
            tf.estimator.EstimatorSpec("infer")
        with pytest.raises(ValueError, match="Loss must be scalar"):
            tf.estimator.EstimatorSpec("eval", loss=tf.constant([1.0, 2.0]))
        with pytest.raises(ValueError, match="unrecognized"):
            tf.estimator.EstimatorSpec("predict", predictions=loss)
        with pytest.raises(TypeError, match="eval_metric_ops must be a dict"):
            tf.estimator.EstimatorSpec("eval", loss=loss, eval_metric_ops=[1])
        with pytest.raises(TypeError, match=r"\(metric_value, update_op\) tuples"):
            tf.estimator.EstimatorSpec("eval", loss=loss, eval_metric_ops={"m": loss})
        with pytest.raises(TypeError, match="SessionRunHook"):
            tf.estimator.EstimatorSpec("eval", loss=loss, evaluation_hooks=[object()])
        spec = tf.estimator.EstimatorSpec("eval", loss=tf.constant([3.0]))
        assert spec.loss.shape.ndims == 0 and spec.eval_metric_ops == {}
        assert isinstance(spec.scaffold, tf.train.Scaffold)
        with pytest.raises(ValueError, match="cannot be changed"):
            spec._replace(mode="train")
    with tf.Graph().as_default():
        other = tf.constant(1.0)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="must be from the default graph"):
        tf.estimator.EstimatorSpec("eval", loss=other)
    assert (tf.estimator.ModeKeys.TRAIN, tf.estimator.ModeKeys.EVAL, tf.estimator.ModeKeys.PREDICT) == \
        ("train", "eval", "infer")


def test_run_config_defaults_match_tf1(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    c = tf.estimator.RunConfig()
    # tf.compat.v1.estimator.RunConfig() of TF 2.15.1:
    expected = {"model_dir": None, "tf_random_seed": None, "save_summary_steps": 100, "save_checkpoints_steps": None,
                "save_checkpoints_secs": 600, "session_config": None, "keep_checkpoint_max": 5,
                "keep_checkpoint_every_n_hours": 10000, "log_step_count_steps": 100, "train_distribute": None,
                "device_fn": None, "master": "", "evaluation_master": "", "is_chief": True, "num_ps_replicas": 0,
                "num_worker_replicas": 1, "task_type": "worker", "task_id": 0, "global_id_in_cluster": 0}
    assert {k: getattr(c, k) for k in expected} == expected
    assert c.cluster_spec.as_dict() == {}
    r = c.replace(save_checkpoints_steps=10)
    assert (r.save_checkpoints_steps, r.save_checkpoints_secs) == (10, None)
    assert c.save_checkpoints_secs == 600
    with pytest.raises(ValueError, match="cannot be both set"):
        tf.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)
    with pytest.raises(ValueError, match="Replacing foo is not supported. Allowed properties are"):
        c.replace(foo=1)
    s = tf.estimator.RunConfig(save_checkpoints_steps=5)
    assert (s.save_checkpoints_steps, s.save_checkpoints_secs) == (5, None)


def test_run_config_tf_config(monkeypatch):
    import json

    monkeypatch.setenv("TF_CONFIG", json.dumps({
        "cluster": {"scheduler": ["127.0.0.1:8786"], "chief": ["h:1"], "worker": ["h:2", "h:3"], "ps": ["h:4"]},
        "task": {"type": "worker", "index": 1}}))
    c = tf.estimator.RunConfig()
    assert (c.task_type, c.task_id, c.is_chief) == ("worker", 1, False)
    assert (c.num_ps_replicas, c.num_worker_replicas, c.global_id_in_cluster) == (1, 3, 2)
    assert c.master == "tcp://127.0.0.1:8786"


def test_train_and_evaluate_locally(tmp_path):
    est = make(tmp_path, save_checkpoints_steps=10)
    train_spec = tf.estimator.TrainSpec(train_input(), max_steps=30)
    eval_spec = tf.estimator.EvalSpec(eval_input(), steps=None, throttle_secs=0)
    metrics, exports = tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    assert metrics["global_step"] == 30
    np.testing.assert_allclose(metrics["loss"], TF1_EVAL_LOSS_30, rtol=1e-5)
    assert exports == []
    # One evaluation per checkpoint after the first: steps 10, 20, 30.
    from dflow.summary import summary_iterator

    eval_dir = os.path.join(est.model_dir, "eval")
    steps = sorted(e.step for f in os.listdir(eval_dir) for e in summary_iterator(os.path.join(eval_dir, f))
                   if e.HasField("summary"))
    assert steps == [10, 20, 30]
    with pytest.raises(ValueError, match="max_steps > 0"):
        tf.estimator.TrainSpec(train_input(), max_steps=0)
    with pytest.raises(TypeError, match="must be callable"):
        tf.estimator.EvalSpec(None)


def test_numpy_input_fn_checks():
    with pytest.raises(ValueError, match="shuffle must be provided and explicitly set as boolean"):
        tf.estimator.inputs.numpy_input_fn({"x": X}, Y)
    with pytest.raises(ValueError, match="mismatched"):
        tf.estimator.inputs.numpy_input_fn({"x": X}, Y[:3], shuffle=False)()
    with tf.Graph().as_default():
        features, labels = tf.estimator.inputs.numpy_input_fn(X, Y, batch_size=4, shuffle=False)()
        with tf.Session() as s:
            f, lab = s.run([features, labels])
    np.testing.assert_array_equal(f, X[:4])
    np.testing.assert_array_equal(lab, Y[:4])


@pytest.mark.slow
@pytest.mark.cluster
def test_train_and_evaluate_on_local_cluster(tmp_path):
    with tf.LocalCluster(ps=1, workers=2, dashboard_address=None) as cluster:
        config = tf.estimator.RunConfig(cluster=cluster, save_checkpoints_steps=10, log_step_count_steps=10)
        assert (config.num_ps_replicas, config.num_worker_replicas, config.master) == (1, 2, cluster.target)
        est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "model"), params={"lr": 0.1},
                                     config=config)
        train_spec = tf.estimator.TrainSpec(train_input(), max_steps=40)
        eval_spec = tf.estimator.EvalSpec(eval_input(), steps=None)
        metrics, exports = tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    assert metrics["global_step"] >= 40
    assert metrics["loss"] < 0.01  # 0.69 before training
    assert exports == []
    assert est.latest_checkpoint() is not None


# -- warm_start_from: tf.train.warm_start's figures (TF 2.15, tests/train/test_utils_warm_start.py) ----------

def _old_model(tmp_path):
    (tmp_path / "old_vocab.txt").write_text("apple\nbanana\ncherry\n")
    (tmp_path / "new_vocab.txt").write_text("cherry\ndate\napple\n")
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", initializer=np.arange(6, dtype=np.float32).reshape(3, 2))
        tf.get_variable("dense/kernel", initializer=np.array([[1.0, 2.0]], np.float32))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            (tmp_path / "old").mkdir()
            path = tf.train.Saver().save(s, str(tmp_path / "old" / "model"))
            export = str(tmp_path / "export")
            tf.saved_model.simple_save(s, export, {"ids": tf.placeholder(tf.int32, [None])}, {"emb": tf.identity(emb)})
    return path, export


def _embedding_model_fn(features, labels, mode):
    emb = tf.get_variable("emb", [5, 2], initializer=tf.ones_initializer())
    kernel = tf.get_variable("dense/kernel", [1, 2], initializer=tf.zeros_initializer())
    pred = tf.reduce_sum(tf.nn.embedding_lookup(emb, features)) * tf.reduce_sum(kernel)
    loss = tf.square(pred - 0.0)
    train = tf.train.GradientDescentOptimizer(0.0).minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)


def _input_fn():
    return tf.constant([0, 1]), tf.constant(0.0)


def test_warm_start_with_vocabulary_remapping(tmp_path):
    path, _ = _old_model(tmp_path)
    vi = tf.train.VocabInfo(new_vocab=str(tmp_path / "new_vocab.txt"), new_vocab_size=3, num_oov_buckets=2,
                            old_vocab=str(tmp_path / "old_vocab.txt"), backup_initializer=tf.ones_initializer())
    settings = tf.estimator.WarmStartSettings(path, vars_to_warm_start=["emb", "dense"],
                                              var_name_to_vocab_info={"emb": vi})
    est = tf.estimator.Estimator(_embedding_model_fn, model_dir=str(tmp_path / "new"), warm_start_from=settings)
    est.train(_input_fn, steps=1)  # a learning rate of 0: the values are the warm-started ones
    # cherry <- old row 2, date (new) and the two OOV rows <- backup ones, apple <- old row 0
    assert est.get_variable_value("emb").tolist() == [[4.0, 5.0], [1.0, 1.0], [0.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
    assert est.get_variable_value("dense/kernel").tolist() == [[1.0, 2.0]]
    with pytest.raises(ValueError, match="var_name_to_vocab_info that were not used"):
        tf.estimator.Estimator(_embedding_model_fn, model_dir=str(tmp_path / "typo"), warm_start_from=(
            tf.estimator.WarmStartSettings(path, vars_to_warm_start=["dense"], var_name_to_vocab_info={"embb": vi})
        )).train(_input_fn, steps=1)


def test_warm_start_from_a_saved_model_directory(tmp_path):
    _, export = _old_model(tmp_path)
    est = tf.estimator.Estimator(_embedding_model_fn, model_dir=str(tmp_path / "new"), warm_start_from=export)
    with pytest.raises(ValueError, match=r"Shape of variable emb:0 \(\(5, 2\)\) doesn't match"):
        est.train(_input_fn, steps=1)  # its variables are found, and emb is [3, 2] there
    vi = tf.train.VocabInfo(str(tmp_path / "new_vocab.txt"), 3, 2, str(tmp_path / "old_vocab.txt"))
    est = tf.estimator.Estimator(_embedding_model_fn, model_dir=str(tmp_path / "new2"), warm_start_from=(
        tf.estimator.WarmStartSettings(export + "/variables/variables", var_name_to_vocab_info={"emb": vi})))
    est.train(_input_fn, steps=1)
    assert est.get_variable_value("emb").tolist() == [[4.0, 5.0], [0.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
