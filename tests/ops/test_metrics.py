"""tf.metrics: streaming values, variables, collections and errors against TF 2.15 (tensorflow.compat.v1).

Every expected figure was computed by running the same graph in TF 2.15.1 with
``tf.disable_eager_execution()``: the value before any update, then
``(update_op, value)`` after each of two batches. dflow never imports TensorFlow.
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf

LABELS = np.array([0, 1, 1, 0, 1, 0, 1, 1], np.int64)
PREDS = np.array([0.1, 0.8, 0.45, 0.3, 0.95, 0.6, 0.2, 0.7], np.float32)
W = np.array([1.0, 2.0, 0.5, 1.0, 0.0, 1.0, 3.0, 1.0], np.float32)
Y = np.array([1.0, 2.0, 3.0, 4.0, -1.0, 0.5, 2.0, 2.0], np.float32)


def stream(value, update, feeds):
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        out = [float(s.run(value))]
        for feed in feeds:
            u = s.run(update, feed)
            out.append([float(u), float(s.run(value))])
        return out


def classification(fn):
    lab, p, w = tf.placeholder(tf.int64, [None]), tf.placeholder(tf.float32, [None]), tf.placeholder(tf.float32, [None])
    value, update = fn(lab, p, w)
    return stream(value, update, [{lab: LABELS[:4], p: PREDS[:4], w: W[:4]}, {lab: LABELS[4:], p: PREDS[4:], w: W[4:]}])


def regression(fn):
    lab, p, w = (tf.placeholder(tf.float32, [None]) for _ in range(3))
    value, update = fn(lab, p, w)
    return stream(value, update, [{lab: Y[:4], p: PREDS[:4] * 4, w: W[:4]}, {lab: Y[4:], p: PREDS[4:] * 4, w: W[4:]}])


def positive(p):
    return tf.cast(p > 0.5, tf.int64)


CLASSIFICATION = [
    ("accuracy", lambda lab, p, w: tf.metrics.accuracy(lab, positive(p)), [0.75, 0.625]),
    ("accuracy_w", lambda lab, p, w: tf.metrics.accuracy(lab, positive(p), weights=w),
     [0.8888888955116272, 0.5263158082962036]),
    ("mean", lambda lab, p, w: tf.metrics.mean(p), [0.4125000238418579, 0.5125000476837158]),
    ("mean_w", lambda lab, p, w: tf.metrics.mean(p, weights=w), [0.49444448947906494, 0.43421053886413574]),
    ("auc_roc", lambda lab, p, w: tf.metrics.auc(lab, p), [0.9999995231628418, 0.7999998331069946]),
    ("auc_roc_w", lambda lab, p, w: tf.metrics.auc(lab, p, weights=w), [0.9999995231628418, 0.666666567325592]),
    ("auc_roc_5", lambda lab, p, w: tf.metrics.auc(lab, p, num_thresholds=5), [0.8749996423721313, 0.6999998092651367]),
    ("auc_pr", lambda lab, p, w: tf.metrics.auc(lab, p, curve="PR"), [0.9999995231628418, 0.893095076084137]),
    ("auc_pr_careful", lambda lab, p, w: tf.metrics.auc(lab, p, curve="PR", summation_method="careful_interpolation",
                                                        weights=w), [1.0, 0.8479355573654175]),
    ("auc_minoring", lambda lab, p, w: tf.metrics.auc(lab, p, summation_method="minoring", num_thresholds=10),
     [0.9999995231628418, 0.7999998331069946]),
    ("auc_majoring", lambda lab, p, w: tf.metrics.auc(lab, p, summation_method="majoring", num_thresholds=10),
     [0.9999995231628418, 0.7999998331069946]),
    ("auc_thresholds", lambda lab, p, w: tf.metrics.auc(lab, p, thresholds=[0.5, 0.25, 0.75]),
     [0.8749996423721313, 0.6999998092651367]),
    ("precision", lambda lab, p, w: tf.metrics.precision(lab, p > 0.5), [1.0, 0.75]),
    ("precision_w", lambda lab, p, w: tf.metrics.precision(lab, p > 0.5, weights=w), [1.0, 0.75]),
    ("recall", lambda lab, p, w: tf.metrics.recall(lab, p > 0.5), [0.5, 0.6000000238418579]),
    ("recall_w", lambda lab, p, w: tf.metrics.recall(lab, p > 0.5, weights=w), [0.800000011920929, 0.4615384638309479]),
    ("true_positives", lambda lab, p, w: tf.metrics.true_positives(lab, p > 0.5, weights=w), [2.0, 3.0]),
    ("false_positives", lambda lab, p, w: tf.metrics.false_positives(lab, p > 0.5, weights=w), [0.0, 1.0]),
    ("false_negatives", lambda lab, p, w: tf.metrics.false_negatives(lab, p > 0.5, weights=w), [0.5, 3.5]),
    ("true_negatives", lambda lab, p, w: tf.metrics.true_negatives(lab, p > 0.5, weights=w), [2.0, 2.0]),
]

REGRESSION = [
    ("mse", lambda lab, p, w: tf.metrics.mean_squared_error(lab, p), [2.7699999809265137, 4.976250171661377]),
    ("mse_w", lambda lab, p, w: tf.metrics.mean_squared_error(lab, p, weights=w),
     [2.6222221851348877, 2.1442105770111084]),
    ("rmse", lambda lab, p, w: tf.metrics.root_mean_squared_error(lab, p), [1.6643316745758057, 2.2307510375976562]),
    ("rmse_w", lambda lab, p, w: tf.metrics.root_mean_squared_error(lab, p, weights=w),
     [1.6193276643753052, 1.4643123149871826]),
    ("mae", lambda lab, p, w: tf.metrics.mean_absolute_error(lab, p, weights=w),
     [1.4222221374511719, 1.3368420600891113]),
]


def check_stream(got, want):
    assert got[0] == 0.0  # every metric is 0 before its first update (div_no_nan)
    for (update, value), expected in zip(got[1:], want):
        assert update == pytest.approx(expected, rel=1e-6, abs=1e-7)
        assert value == update


@pytest.mark.parametrize("name,fn,want", CLASSIFICATION, ids=[c[0] for c in CLASSIFICATION])
def test_classification_metrics_match_tf(name, fn, want):
    check_stream(classification(fn), want)


@pytest.mark.parametrize("name,fn,want", REGRESSION, ids=[c[0] for c in REGRESSION])
def test_regression_metrics_match_tf(name, fn, want):
    check_stream(regression(fn), want)


def _updates(tensors):
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        return [float(x) for x in s.run(tensors)]


def test_weights_broadcast_squeeze_and_labels_edge_cases():
    vals = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    ups = [tf.metrics.mean(vals, weights=w)[1]
           for w in ([[1.0], [0.5]], [[2.0, 1.0, 0.0]], [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], 2.0)]
    assert _updates(ups) == pytest.approx([3.0, 2.8333332538604736, 3.0, 3.5])
    tf.reset_default_graph()
    u1 = tf.metrics.accuracy(tf.constant([[1], [2], [3]]), tf.constant([1, 2, 0]))[1]
    u2 = tf.metrics.accuracy(tf.constant([1, 2, 3]), tf.constant([[1], [0], [3]]), weights=[[1.0], [1.0], [0.0]])[1]
    u3 = tf.metrics.accuracy(tf.constant([1, 2]), tf.constant([1.0, 2.5]))[1]  # predictions cast to int32
    assert _updates([u1, u2, u3]) == pytest.approx([0.6666666865348816, 0.5, 1.0])
    tf.reset_default_graph()
    ups = [tf.metrics.auc(tf.constant([True, True]), tf.constant([0.2, 0.9]))[1],
           tf.metrics.auc(tf.constant([0.0, 0.0]), tf.constant([0.2, 0.9]))[1],
           tf.metrics.auc(tf.constant([1, 0]), tf.constant([0.2, 0.9]), curve="PR")[1]]
    assert _updates(ups) == pytest.approx([0.0, 0.9999995231628418, 0.25000035762786865], rel=1e-6)


def test_local_variables_names_and_collections():
    lab, p = tf.constant([1, 0]), tf.constant([1, 1])
    ms = [tf.metrics.accuracy(lab, p), tf.metrics.accuracy(lab, p), tf.metrics.mean([1.0]),
          tf.metrics.auc(lab, tf.constant([0.5, 0.2])), tf.metrics.precision(lab, p), tf.metrics.recall(lab, p),
          tf.metrics.mean_squared_error([1.0], [2.0]), tf.metrics.root_mean_squared_error([1.0], [2.0]),
          tf.metrics.mean_absolute_error([1.0], [2.0]), tf.metrics.true_positives(lab, p),
          tf.metrics.accuracy(lab, p, name="my_acc")]
    want = ["accuracy/total:0", "accuracy/count:0", "accuracy_1/total:0", "accuracy_1/count:0", "mean/total:0",
            "mean/count:0", "auc/true_positives:0", "auc/false_negatives:0", "auc/true_negatives:0",
            "auc/false_positives:0", "precision/true_positives/count:0", "precision/false_positives/count:0",
            "recall/true_positives/count:0", "recall/false_negatives/count:0", "mean_squared_error/total:0",
            "mean_squared_error/count:0", "root_mean_squared_error/total:0", "root_mean_squared_error/count:0",
            "mean_absolute_error/total:0", "mean_absolute_error/count:0", "true_positives/count:0",
            "my_acc/total:0", "my_acc/count:0"]
    assert [v.name for v in tf.local_variables()] == want
    assert [v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)] == want
    assert tf.global_variables() == [] and tf.trainable_variables() == []
    assert [[a.name, b.name] for a, b in ms] == [
        ["accuracy/value:0", "accuracy/update_op:0"], ["accuracy_1/value:0", "accuracy_1/update_op:0"],
        ["mean/value:0", "mean/update_op:0"], ["auc/value:0", "auc/update_op:0"],
        ["precision/value:0", "precision/update_op:0"], ["recall/value:0", "recall/update_op:0"],
        ["mean_squared_error/value:0", "mean_squared_error/update_op:0"], ["Sqrt:0", "Sqrt_1:0"],
        ["mean_absolute_error/value:0", "mean_absolute_error/update_op:0"],
        ["true_positives/Identity:0", "true_positives/AssignAdd:0"], ["my_acc/value:0", "my_acc/update_op:0"]]


def test_metrics_and_updates_collections():
    tf.metrics.mean([1.0, 2.0], metrics_collections=["mc"], updates_collections=["uc"])
    tf.metrics.auc(tf.constant([1, 0]), tf.constant([0.5, 0.2]), metrics_collections=["mc"],
                   updates_collections=["uc"])
    assert [t.name for t in tf.get_collection("mc")] == ["mean/value:0", "auc/value:0"]
    assert [t.name for t in tf.get_collection("uc")] == ["mean/update_op:0", "auc/update_op:0"]


def test_reinitializing_local_variables_resets_the_metric():
    value, update = tf.metrics.mean(tf.constant([2.0, 4.0]))
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        s.run(update)
        assert s.run(update) == 3.0
        s.run(tf.local_variables_initializer())
        assert s.run(value) == 0.0


# -- errors ----------------------------------------------------------------------------------------


def test_graph_time_errors():
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are incompatible"):
        tf.metrics.accuracy(tf.constant([1, 2, 3]), tf.constant([1, 2]))
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are incompatible"):
        tf.metrics.precision(tf.constant([1, 0, 1]), tf.constant([True, False]))
    with pytest.raises(ValueError, match="weights can not be broadcast to values. Mismatch at dim 1"):
        tf.metrics.mean(tf.constant([[1.0, 2.0], [3.0, 4.0]]), weights=tf.constant([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]))
    with pytest.raises(ValueError, match="weights can not be broadcast to values. Mismatch at dim 0"):
        tf.metrics.mean(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), weights=[2.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="Curve must be either ROC or PR. Curve XY is unknown."):
        tf.metrics.auc(tf.constant([1]), tf.constant([0.5]), curve="XY")
    with pytest.raises(ValueError, match="Invalid summation_method: foo"):
        tf.metrics.auc(tf.constant([1]), tf.constant([0.5]), summation_method="foo")
    with pytest.raises(TypeError):
        tf.metrics.mean_squared_error(tf.constant([1, 2]), tf.constant([1.0, 2.0]))


def test_run_time_errors():
    _, update = tf.metrics.auc(tf.constant([1, 0]), tf.constant([0.5, 1.5]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"predictions must be in \[0, 1\]"):
        _updates([update])
    tf.reset_default_graph()
    x, w = tf.placeholder(tf.float32, [None, None]), tf.placeholder(tf.float32, [None, None])
    _, update = tf.metrics.mean(x, weights=w)
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match="weights can not be broadcast to values"):
            s.run(update, {x: np.ones((2, 3)), w: np.ones((2, 2))})
    tf.reset_default_graph()
    lab, p = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
    _, update = tf.metrics.accuracy(lab, p)
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError):
            s.run(update, {lab: [1, 2, 3], p: [1, 2]})
    tf.reset_default_graph()
    value, _ = tf.metrics.mean([1.0])
    with tf.Session() as s, pytest.raises(tf.errors.FailedPreconditionError, match="mean/"):
        s.run(value)
