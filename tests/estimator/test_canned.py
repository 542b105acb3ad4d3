"""TF1's canned estimators (``tf.estimator.DNNClassifier`` & co.) and their heads.

Expected numbers marked "TF1" were produced by ``tf.compat.v1.estimator`` (tensorflow-cpu
2.15.1, graph mode) on the same inputs; the tests never import TensorFlow.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import dflow as tf
from dflow.datasets import iris
from dflow.estimator.canned import head as head_lib

fc = tf.feature_column
KEYS = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]


def _dataset_fn(features, labels=None, batch=None, repeat=False):
    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices(features if labels is None else (features, labels))
        if repeat:
            ds = ds.repeat()
        n = len(next(iter(features.values())))
        return ds.batch(batch or n)
    return input_fn


# -- the Iris walk-through ---------------------------------------------------------------------------------


def test_iris_files_have_tf_walkthrough_format():
    with open(iris.TRAIN_PATH) as f:
        train = f.read().splitlines()
    with open(iris.TEST_PATH) as f:
        test = f.read().splitlines()
    assert train[0] == "120,4,setosa,versicolor,virginica" and len(train) == 121
    assert test[0] == "30,4,setosa,versicolor,virginica" and len(test) == 31
    # TF's iris_training.csv / iris_test.csv begin so.
    assert train[1:5] == ["6.4,2.8,5.6,2.2,2", "5.0,2.3,3.3,1.0,1", "4.9,2.5,4.5,1.7,2", "4.9,3.1,1.5,0.1,0"]
    assert test[1:4] == ["5.9,3.0,4.2,1.5,1", "6.9,3.1,5.4,2.1,2", "5.1,3.3,1.7,0.5,0"]
    (train_x, train_y), (test_x, test_y) = iris.load_data()
    assert sorted(train_x) == sorted(KEYS) and sorted(test_x) == sorted(KEYS)
    assert train_y.dtype == np.int64 and train_y.shape == (120,) and test_y.shape == (30,)
    assert np.bincount(train_y).tolist() == [42, 36, 42] and np.bincount(test_y).tolist() == [8, 14, 8]
    assert train_x["SepalLength"][:3].tolist() == [6.4, 5.0, 4.9]
    # The 150 rows of Fisher's data, of which two (samples 102 and 143) are equal; samples 35 and 38
    # carry Fisher's values where TF's file has the UCI copy's errors.
    rows = {tuple(np.r_[[x[k][i] for k in KEYS], y[i]]) for x, y in ((train_x, train_y), (test_x, test_y))
            for i in range(len(y))}
    assert len(rows) == 149
    assert (train[76], train[86]) == ("4.9,3.1,1.5,0.2,0", "4.9,3.6,1.4,0.1,0")


def test_iris_walkthrough_dnn_classifier(tmp_path):
    (train_x, train_y), (test_x, test_y) = iris.load_data()
    columns = [fc.numeric_column(key=k) for k in train_x.keys()]
    # Seeded: unseeded, one CI run in some hundreds of these trainings ended at 0.53 (not reproduced
    # in 140 reruns: an unlucky start); with a seed the figure is the same every run.
    classifier = tf.estimator.DNNClassifier(feature_columns=columns, hidden_units=[10, 10], n_classes=3,
                                            model_dir=str(tmp_path), config=tf.estimator.RunConfig(tf_random_seed=2))
    start = time.perf_counter()
    classifier.train(input_fn=lambda: iris.train_input_fn(train_x, train_y, 32), steps=1000)
    assert time.perf_counter() - start < 60
    result = classifier.evaluate(input_fn=lambda: iris.eval_input_fn(test_x, test_y, 32))
    assert sorted(result) == ["accuracy", "average_loss", "global_step", "loss"]  # TF1's keys
    assert result["global_step"] == 1000
    assert result["accuracy"] >= 0.9
    assert result["loss"] == pytest.approx(result["average_loss"] * 30, rel=1e-4)  # SUM over the one batch

    predict_x = {"SepalLength": [5.1, 5.9, 6.9], "SepalWidth": [3.3, 3.0, 3.1], "PetalLength": [1.7, 4.2, 5.4],
                 "PetalWidth": [0.5, 1.5, 2.1]}
    predictions = list(classifier.predict(input_fn=lambda: iris.eval_input_fn(predict_x, None, 100)))
    assert len(predictions) == 3
    species = []
    for p in predictions:
        assert sorted(p) == ["all_class_ids", "all_classes", "class_ids", "classes", "logits", "probabilities"]
        assert p["probabilities"].shape == (3,) and p["probabilities"].dtype == np.float32
        assert float(p["probabilities"].sum()) == pytest.approx(1.0, abs=1e-5)
        assert p["class_ids"].shape == (1,) and p["class_ids"].dtype == np.int64
        assert p["classes"].tolist() == [str(p["class_ids"][0]).encode()]
        assert p["all_classes"].tolist() == [b"0", b"1", b"2"]
        species.append(iris.SPECIES[p["class_ids"][0]])
    assert species == ["Setosa", "Versicolor", "Virginica"]

    # TF1's variable names (TF1 partitions them, so its slots read ``.../kernel/t_0/Adagrad``).
    assert sorted(classifier.get_variable_names()) == [
        "dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_0/bias/Adagrad", "dnn/hiddenlayer_0/kernel",
        "dnn/hiddenlayer_0/kernel/Adagrad", "dnn/hiddenlayer_1/bias", "dnn/hiddenlayer_1/bias/Adagrad",
        "dnn/hiddenlayer_1/kernel", "dnn/hiddenlayer_1/kernel/Adagrad", "dnn/logits/bias",
        "dnn/logits/bias/Adagrad", "dnn/logits/kernel", "dnn/logits/kernel/Adagrad", "global_step"]
    assert classifier.get_variable_value("dnn/hiddenlayer_0/kernel").shape == (4, 10)
    assert classifier.get_variable_value("dnn/logits/kernel").shape == (10, 3)


# -- heads against TF1 ----------------------------------------------------------------------------------------

_FEATURES = {"w": np.array([1.0, 2.0, 0.5, 1.0], np.float32), "x": np.zeros(4, np.float32)}


def _eval_head(head, logits, labels, features=_FEATURES):
    with tf.Graph().as_default():
        spec = head.create_estimator_spec(features={k: tf.constant(v) for k, v in features.items()},
                                          mode=tf.estimator.ModeKeys.EVAL, logits=tf.constant(logits),
                                          labels=tf.constant(labels))
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            s.run({k: u for k, (_, u) in spec.eval_metric_ops.items()})
            metrics = s.run({k: v for k, (v, _) in spec.eval_metric_ops.items()})
            return float(s.run(spec.loss)), metrics, s.run(spec.predictions)


_MC_LOGITS = np.array([[1.0, 2.0, 3.0], [3.0, 1.0, 0.5], [0.0, 0.0, 0.0], [-1.0, 2.0, 1.5]], np.float32)
_B_LOGITS = np.array([[-1.0], [0.5], [2.0], [-0.3]], np.float32)


@pytest.mark.parametrize("reduction,expected_loss", [(head_lib.Reduction.SUM, 2.3549774),
                                                     (head_lib.Reduction.SUM_OVER_BATCH_SIZE, 0.58874434)])
def test_multi_class_head_matches_tf1(reduction, expected_loss):
    head = head_lib._MultiClassHead(3, weight_column="w", loss_reduction=reduction)
    loss, metrics, pred = _eval_head(head, _MC_LOGITS, np.array([[2], [0], [1], [2]], np.int64))
    assert loss == pytest.approx(expected_loss, rel=1e-6)  # TF1
    assert metrics == pytest.approx({"average_loss": 0.5233283, "accuracy": 0.6666667})  # TF1
    assert pred["probabilities"] == pytest.approx(np.array(
        [[0.09003057, 0.24472848, 0.66524094], [0.821409, 0.11116561, 0.06742536],
         [1 / 3, 1 / 3, 1 / 3], [0.03005889, 0.6037489, 0.36619222]]), abs=1e-6)
    assert pred["class_ids"].tolist() == [[2], [0], [0], [1]]
    assert pred["classes"].tolist() == [[b"2"], [b"0"], [b"0"], [b"1"]]
    assert pred["all_class_ids"].tolist() == [[0, 1, 2]] * 4


def test_multi_class_head_label_vocabulary_matches_tf1():
    head = head_lib._MultiClassHead(3, label_vocabulary=["a", "b", "c"])
    loss, metrics, pred = _eval_head(head, _MC_LOGITS, np.array([[b"c"], [b"a"], [b"b"], [b"c"]]))
    assert loss == pytest.approx(2.7075493, rel=1e-6)  # TF1
    assert metrics == pytest.approx({"average_loss": 0.6768873, "accuracy": 0.5})
    assert pred["classes"].tolist() == [[b"c"], [b"a"], [b"a"], [b"b"]]
    assert pred["all_classes"].tolist() == [[b"a", b"b", b"c"]] * 4


def test_binary_head_metrics_match_tf1():
    head = head_lib._BinaryLogisticHead(weight_column="w")
    loss, metrics, pred = _eval_head(head, _B_LOGITS, np.array([[0], [1], [1], [1]], np.int64))
    assert loss == pytest.approx(2.179235, rel=1e-6)  # TF1
    assert metrics == pytest.approx({  # TF1
        "average_loss": 0.48427445, "accuracy": 0.7777778, "precision": 1.0, "recall": 0.71428573,
        "prediction/mean": 0.528848, "label/mean": 0.7777778, "accuracy_baseline": 0.7777778,
        "auc": 0.99999905, "auc_precision_recall": 0.9999997}, rel=1e-5)
    assert sorted(pred) == ["all_class_ids", "all_classes", "class_ids", "classes", "logistic", "logits",
                            "probabilities"]
    assert pred["logistic"].ravel() == pytest.approx([0.26894143, 0.62245935, 0.8807971, 0.42555746], abs=1e-6)
    assert pred["probabilities"][:, 1] == pytest.approx(pred["logistic"].ravel(), abs=1e-6)
    assert pred["class_ids"].tolist() == [[0], [1], [1], [0]]
    assert pred["classes"].tolist() == [[b"0"], [b"1"], [b"1"], [b"0"]]


def test_binary_head_vocabulary_and_sum_over_batch_size_match_tf1():
    head = head_lib._BinaryLogisticHead(label_vocabulary=["neg", "pos"],
                                        loss_reduction=head_lib.Reduction.SUM_OVER_BATCH_SIZE)
    loss, metrics, pred = _eval_head(head, _B_LOGITS, np.array([[b"neg"], [b"pos"], [b"pos"], [b"pos"]]))
    assert loss == pytest.approx(0.4421555, rel=1e-6)  # TF1
    assert metrics["recall"] == pytest.approx(0.6666667) and metrics["auc_precision_recall"] == pytest.approx(
        0.99999964, rel=1e-6)
    assert pred["classes"].tolist() == [[b"neg"], [b"pos"], [b"pos"], [b"neg"]]


def test_regression_head_matches_tf1():
    logits = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, -1.0], [0.5, 0.5]], np.float32)
    labels = np.array([[1.5, 0.0], [1.0, 1.0], [3.0, 1.0], [0.0, 2.0]], np.float32)
    head = head_lib._RegressionHead(label_dimension=2, weight_column="w")
    loss, metrics, pred = _eval_head(head, logits, labels)
    assert loss == pytest.approx(6.75)  # TF1
    assert metrics == pytest.approx({"average_loss": 0.75, "prediction/mean": 1.0, "label/mean": 1.0555556})
    assert list(pred) == ["predictions"]
    head = head_lib._RegressionHead(loss_reduction=head_lib.Reduction.SUM_OVER_BATCH_SIZE)
    loss, metrics, _ = _eval_head(head, logits[:, :1], labels[:, 0])
    assert loss == pytest.approx(0.375)  # TF1
    assert metrics == pytest.approx({"average_loss": 0.375, "prediction/mean": 1.625, "label/mean": 1.375})


def test_head_argument_errors():
    with pytest.raises(ValueError, match="n_classes must be > 2"):
        head_lib._MultiClassHead(2)
    with pytest.raises(ValueError, match="Invalid loss_reduction"):
        head_lib._RegressionHead(loss_reduction=head_lib.Reduction.NONE)
    with pytest.raises(ValueError, match="label_vocabulary should be a list or a tuple"):
        head_lib._BinaryLogisticHead(label_vocabulary="ab")
    with pytest.raises(ValueError, match="Mismatched label shape"):
        _eval_head(head_lib._RegressionHead(), _B_LOGITS, np.zeros((4, 2), np.float32))
    with pytest.raises(ValueError, match="Labels dtype should be integer"):
        _eval_head(head_lib._MultiClassHead(3), _MC_LOGITS, np.array([b"a", b"b", b"c", b"a"]))


# -- linear estimators: trained variables and metrics against TF1 -------------------------------------------

_LX = {"a": np.array([1.0, 2.0, -1.0, 0.5, 3.0, -2.0], np.float32),
       "b": np.array([0.5, -1.0, 2.0, 1.0, 0.0, 1.5], np.float32),
       "w": np.array([1.0, 2.0, 1.0, 0.5, 1.0, 1.0], np.float32)}
_LY_BINARY = np.array([1, 0, 1, 1, 0, 0], np.int64)
_LY_REG = np.array([2.0, -1.0, 3.0, 1.5, 0.5, 1.0], np.float32)
_LCOLS = [fc.numeric_column("a"), fc.numeric_column("b")]

# name: (constructor kwargs, labels, TF1 metrics after 5 full-batch steps, TF1 [a, b, bias] weights)
_LINEAR_CASES = {
    "binary_ftrl_weighted": (
        dict(cls="LinearClassifier", weight_column="w"), _LY_BINARY,
        {"accuracy": 0.615385, "accuracy_baseline": 0.615385, "auc": 0.8, "auc_precision_recall": 0.672857,
         "average_loss": 0.546717, "label/mean": 0.384615, "loss": 3.553659, "precision": 0.5,
         "prediction/mean": 0.412861, "recall": 0.4},
        [-0.240131, 0.476841, -0.396114]),
    "regressor_ftrl": (
        dict(cls="LinearRegressor"), _LY_REG,
        {"average_loss": 0.787435, "label/mean": 1.166667, "loss": 4.724612, "prediction/mean": 0.822398},
        [-0.081991, 0.523114, 0.521483]),
    "regressor_sgd_sum_over_batch_size": (
        dict(cls="LinearRegressor", optimizer=lambda: tf.train.GradientDescentOptimizer(0.05),
             loss_reduction=head_lib.Reduction.SUM_OVER_BATCH_SIZE), _LY_REG,
        {"average_loss": 0.752273, "label/mean": 1.166667, "loss": 0.752273, "prediction/mean": 0.778162},
        [-0.057106, 0.615579, 0.401088]),
    "binary_adam_vocabulary": (
        dict(cls="LinearClassifier", optimizer="Adam", label_vocabulary=["no", "yes"]),
        np.array([b"yes" if v else b"no" for v in _LY_BINARY]),
        {"accuracy": 0.833333, "accuracy_baseline": 0.5, "auc": 0.777778, "auc_precision_recall": 0.763889,
         "average_loss": 0.595244, "label/mean": 0.5, "loss": 3.571463, "precision": 0.75,
         "prediction/mean": 0.547671, "recall": 1.0},
        [-0.205508, 0.82229, -0.190848]),
}


@pytest.mark.parametrize("case", sorted(_LINEAR_CASES))
def test_linear_estimators_train_as_tf1(case, tmp_path):
    kwargs, labels, expected_metrics, expected_weights = _LINEAR_CASES[case]
    kwargs = dict(kwargs)
    cls = getattr(tf.estimator, kwargs.pop("cls"))
    est = cls(feature_columns=_LCOLS, model_dir=str(tmp_path), **kwargs)
    est.train(_dataset_fn(_LX, labels, repeat=True), steps=5)
    metrics = est.evaluate(_dataset_fn(_LX, labels), steps=1)
    assert metrics.pop("global_step") == 5
    assert metrics == pytest.approx(expected_metrics, rel=1e-4, abs=1e-6)
    weights = [float(est.get_variable_value(f"linear/linear_model/{n}").ravel()[0])
               for n in ("a/weights", "b/weights", "bias_weights")]
    assert weights == pytest.approx(expected_weights, rel=1e-4, abs=1e-6)


def test_linear_classifier_variable_names_and_multiclass(tmp_path):
    (train_x, train_y), (test_x, test_y) = iris.load_data()
    est = tf.estimator.LinearClassifier(feature_columns=[fc.numeric_column(k) for k in KEYS], n_classes=3,
                                        model_dir=str(tmp_path))
    est.train(_dataset_fn(train_x, train_y, batch=32, repeat=True), steps=200)
    result = est.evaluate(_dataset_fn(test_x, test_y))
    assert result["accuracy"] >= 0.8
    # TF1's names, without its partition suffix (``.../weights/part_0/Ftrl``).
    assert sorted(est.get_variable_names()) == ["global_step"] + sorted(
        [f"linear/linear_model/{k}/weights{s}" for k in KEYS for s in ("", "/Ftrl", "/Ftrl_1")]
        + [f"linear/linear_model/bias_weights{s}" for s in ("", "/Ftrl", "/Ftrl_1")])
    assert est.get_variable_value("linear/linear_model/bias_weights").shape == (3,)


def test_linear_regressor_recovers_a_linear_function(tmp_path):
    rng = np.random.RandomState(0)
    x = {"a": rng.uniform(-1, 1, 200).astype(np.float32), "b": rng.uniform(-1, 1, 200).astype(np.float32)}
    y = 2 * x["a"] - x["b"] + 1
    est = tf.estimator.LinearRegressor(feature_columns=_LCOLS, optimizer=tf.train.FtrlOptimizer(0.5),
                                       model_dir=str(tmp_path))
    est.train(_dataset_fn(x, y, batch=50, repeat=True), steps=200)
    assert est.get_variable_value("linear/linear_model/a/weights").ravel() == pytest.approx([2.0], abs=1e-3)
    assert est.get_variable_value("linear/linear_model/b/weights").ravel() == pytest.approx([-1.0], abs=1e-3)
    assert est.get_variable_value("linear/linear_model/bias_weights") == pytest.approx([1.0], abs=1e-3)
    preds = list(est.predict(_dataset_fn({"a": [0.5], "b": [0.0]})))
    assert list(preds[0]) == ["predictions"] and preds[0]["predictions"] == pytest.approx([2.0], abs=1e-2)


# -- DNN and wide-and-deep estimators -------------------------------------------------------------------------


def test_dnn_regressor_learns_and_predicts_label_dimension(tmp_path):
    rng = np.random.RandomState(1)
    x = {"a": rng.uniform(-1, 1, 200).astype(np.float32), "b": rng.uniform(-1, 1, 200).astype(np.float32)}
    y = (2 * x["a"] - x["b"] + 1).astype(np.float32)
    est = tf.estimator.DNNRegressor(hidden_units=[8], feature_columns=_LCOLS, optimizer="Adam",
                                    model_dir=str(tmp_path / "one"))
    est.train(_dataset_fn(x, y, batch=50, repeat=True), steps=300)
    result = est.evaluate(_dataset_fn(x, y))
    assert sorted(result) == ["average_loss", "global_step", "label/mean", "loss", "prediction/mean"]
    assert result["average_loss"] < 0.05
    assert result["label/mean"] == pytest.approx(float(y.mean()), rel=1e-5)
    two = tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=_LCOLS, label_dimension=2,
                                    model_dir=str(tmp_path / "two"))
    two.train(_dataset_fn(x, np.stack([y, -y], 1), batch=50, repeat=True), steps=5)
    (p,) = list(two.predict(_dataset_fn({"a": x["a"][:1], "b": x["b"][:1]})))
    assert p["predictions"].shape == (2,)


def _binary_data(seed=2):
    rng = np.random.RandomState(seed)
    x = {"a": rng.normal(size=200).astype(np.float32), "b": rng.normal(size=200).astype(np.float32)}
    return x, (x["a"] + x["b"] > 0).astype(np.int64)


def test_dnn_classifier_binary_with_dropout(tmp_path):
    x, y = _binary_data()
    est = tf.estimator.DNNClassifier(hidden_units=[6], feature_columns=_LCOLS, dropout=0.1,
                                     optimizer=tf.train.AdamOptimizer(0.05), model_dir=str(tmp_path))
    est.train(_dataset_fn(x, y, batch=50, repeat=True), steps=100)
    result = est.evaluate(_dataset_fn(x, y))
    assert sorted(result) == ["accuracy", "accuracy_baseline", "auc", "auc_precision_recall", "average_loss",
                              "global_step", "label/mean", "loss", "precision", "prediction/mean", "recall"]
    assert result["accuracy"] >= 0.9 and result["auc"] >= 0.95
    assert result["label/mean"] == pytest.approx(y.mean()) and result["accuracy_baseline"] == pytest.approx(
        max(y.mean(), 1 - y.mean()))
    (p,) = list(est.predict(_dataset_fn({"a": [2.0], "b": [1.0]})))
    assert p["class_ids"].tolist() == [1] and p["classes"].tolist() == [b"1"]
    assert p["probabilities"][1] == pytest.approx(p["logistic"][0], abs=1e-6)


def test_dnn_classifier_batch_norm(tmp_path):
    x, y = _binary_data()
    est = tf.estimator.DNNClassifier(hidden_units=[6], feature_columns=_LCOLS, batch_norm=True,
                                     optimizer=tf.train.AdamOptimizer(0.05), model_dir=str(tmp_path),
                                     config=tf.estimator.RunConfig(tf_random_seed=7))
    est.train(_dataset_fn(x, y, batch=50, repeat=True), steps=100)
    # Evaluation normalizes with the moving averages, still far from the batch statistics
    # after 100 steps at momentum 0.999 (as in TF1), so accuracy lags the training batches'.
    assert est.evaluate(_dataset_fn(x, y))["accuracy"] >= 0.75
    names = est.get_variable_names()
    # TF1's model variables (dnn/hiddenlayer_0/batchnorm_0/... as TF1 names them).
    assert sorted(n for n in names if "Adam" not in n and "power" not in n) == [
        "dnn/hiddenlayer_0/batchnorm_0/beta", "dnn/hiddenlayer_0/batchnorm_0/gamma",
        "dnn/hiddenlayer_0/batchnorm_0/moving_mean", "dnn/hiddenlayer_0/batchnorm_0/moving_variance",
        "dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_0/kernel", "dnn/logits/bias", "dnn/logits/kernel",
        "global_step"]
    assert "dnn/hiddenlayer_0/batchnorm_0/moving_mean/Adam" not in names  # not trainable
    v = {n.rsplit("/", 1)[-1]: est.get_variable_value(n) for n in names if n.startswith("dnn/hiddenlayer_0/")
         and "Adam" not in n}
    # momentum 0.999: after 100 updates the moving mean is ~ (1 - 0.999**100) of the batch means.
    assert 0 < np.abs(v["moving_mean"]).max() < 0.2
    # Prediction uses the moving averages: relu(x K + b), normalized with epsilon 1e-3, then logits.
    inputs = np.array([[0.3, -1.2]], np.float32)  # input_layer orders columns by name: a, b
    h = np.maximum(inputs @ v["kernel"] + v["bias"], 0)
    h = (h - v["moving_mean"]) / np.sqrt(v["moving_variance"] + 1e-3) * v["gamma"] + v["beta"]
    logits = h @ est.get_variable_value("dnn/logits/kernel") + est.get_variable_value("dnn/logits/bias")
    (p,) = list(est.predict(_dataset_fn({"a": inputs[:, 0], "b": inputs[:, 1]})))
    assert p["logits"] == pytest.approx(logits.ravel(), rel=1e-4, abs=1e-5)


def test_dnn_linear_combined_classifier(tmp_path):
    (train_x, train_y), (test_x, test_y) = iris.load_data()
    est = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[fc.numeric_column(k) for k in KEYS[:2]],
        dnn_feature_columns=[fc.numeric_column(k) for k in KEYS[2:]], dnn_hidden_units=[8], n_classes=3,
        dnn_optimizer=tf.train.AdagradOptimizer(0.3), model_dir=str(tmp_path),
        config=tf.estimator.RunConfig(tf_random_seed=0))
    est.train(_dataset_fn(train_x, train_y, batch=32, repeat=True), steps=300)
    metrics = est.evaluate(_dataset_fn(test_x, test_y))
    assert metrics["accuracy"] >= 0.8, metrics
    # Exactly TF1's checkpoint names.
    assert sorted(est.get_variable_names()) == [
        "dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_0/bias/Adagrad", "dnn/hiddenlayer_0/kernel",
        "dnn/hiddenlayer_0/kernel/Adagrad", "dnn/logits/bias", "dnn/logits/bias/Adagrad", "dnn/logits/kernel",
        "dnn/logits/kernel/Adagrad", "global_step", "linear/linear_model/SepalLength/weights",
        "linear/linear_model/SepalLength/weights/Ftrl", "linear/linear_model/SepalLength/weights/Ftrl_1",
        "linear/linear_model/SepalWidth/weights", "linear/linear_model/SepalWidth/weights/Ftrl",
        "linear/linear_model/SepalWidth/weights/Ftrl_1", "linear/linear_model/bias_weights",
        "linear/linear_model/bias_weights/Ftrl", "linear/linear_model/bias_weights/Ftrl_1"]
    assert est.get_variable_value("global_step") == 300  # one increment per step, not one per optimizer


def test_dnn_linear_combined_regressor_linear_part_only(tmp_path):
    x = {"a": np.linspace(-1, 1, 20).astype(np.float32)}
    y = 3 * x["a"]
    est = tf.estimator.DNNLinearCombinedRegressor(linear_feature_columns=[fc.numeric_column("a")],
                                                  linear_optimizer="SGD", model_dir=str(tmp_path))
    est.train(_dataset_fn(x, y, repeat=True), steps=10)
    assert all(n.startswith(("linear/", "global_step")) for n in est.get_variable_names())
    with pytest.raises(ValueError, match="Either linear_feature_columns or dnn_feature_columns"):
        tf.estimator.DNNLinearCombinedRegressor()


def test_labels_outside_vocabulary_or_range_fail_at_run_time(tmp_path):
    x = {"a": np.zeros(4, np.float32), "b": np.ones(4, np.float32)}
    est = tf.estimator.LinearClassifier(feature_columns=_LCOLS, n_classes=3, label_vocabulary=["x", "y", "z"],
                                        model_dir=str(tmp_path / "vocab"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Labels must >= 0"):
        est.train(_dataset_fn(x, np.array([b"x", b"y", b"nope", b"z"])), steps=1)
    est = tf.estimator.DNNClassifier(hidden_units=[2], feature_columns=_LCOLS, n_classes=3,
                                     model_dir=str(tmp_path / "range"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Labels must <= n_classes - 1"):
        est.train(_dataset_fn(x, np.array([0, 1, 3, 2])), steps=1)


def test_optimizer_argument_forms(tmp_path):
    x = {"a": np.array([0.0, 1.0], np.float32), "b": np.array([1.0, 0.0], np.float32)}
    y = np.array([0, 1])
    for i, opt in enumerate(["SGD", "RMSProp", "Adagrad", tf.train.GradientDescentOptimizer(0.1),
                             lambda: tf.train.MomentumOptimizer(0.1, 0.9)]):
        est = tf.estimator.DNNClassifier(hidden_units=[2], feature_columns=_LCOLS, optimizer=opt,
                                         model_dir=str(tmp_path / str(i)))
        est.train(_dataset_fn(x, y), steps=1)
        assert est.get_variable_value("global_step") == 1
    with pytest.raises(ValueError, match="Unsupported optimizer name"):
        tf.estimator.DNNClassifier(hidden_units=[2], feature_columns=_LCOLS, optimizer="Sgd",
                                   model_dir=str(tmp_path / "bad")).train(_dataset_fn(x, y), steps=1)
    with pytest.raises(ValueError, match="not an Optimizer instance"):
        tf.estimator.LinearClassifier(feature_columns=_LCOLS, optimizer=lambda: 0.1,
                                      model_dir=str(tmp_path / "bad2")).train(_dataset_fn(x, y), steps=1)
