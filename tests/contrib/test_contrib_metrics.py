"""tf.contrib.metrics (the streaming_* metrics over tf.metrics), tf.contrib.losses (slim.losses) and
tf.contrib.distributions. Expected values: TensorFlow 2.15's compat.v1 tf.metrics / tf.losses on the same
data, and NumPy for the contrib-only formulas (covariance, Pearson, best F1, contrib's pairwise loss)."""

import math

import numpy as np
import pytest

import dflow as tf

P1 = np.array([0.5507978796958923, 0.7081478238105774, 0.2909047305583954, 0.5108276009559631, 0.8929469585418701,
               0.8962931036949158], np.float32)
L1 = np.array([1, 0, 0, 1, 1, 0], np.float32)
P2 = np.array([0.12558531761169434, 0.20724287629127502, 0.051467202603816986, 0.44080984592437744,
               0.029876211658120155, 0.45683321356773376], np.float32)
L2 = np.array([0, 1, 1, 1, 0, 0], np.float32)
W = np.array([1, 0.5, 2, 1, 0, 1], np.float32)


def _streamed(build):
    """Builds metrics from placeholders with ``build(p, l, w)``, feeds the two batches, returns the values."""
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [6])
        lab = tf.placeholder(tf.float32, [6])
        w = tf.placeholder(tf.float32, [6])
        metrics = build(p, lab, w)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            for pv, lv in ((P1, L1), (P2, L2)):
                sess.run([m[1] for m in metrics.values()], {p: pv, lab: lv, w: W})
            return {k: sess.run(m[0]) for k, m in metrics.items()}


def test_streaming_metrics_match_tf_metrics():
    cm = tf.contrib.metrics

    def build(p, lab, w):
        ipred, ilab = tf.cast(p > 0.5, tf.int32), tf.cast(lab > 0.5, tf.int32)
        return {
            "acc": cm.streaming_accuracy(ipred, ilab),
            "acc_w": cm.streaming_accuracy(ipred, ilab, weights=w),
            "prec": cm.streaming_precision(p > 0.5, lab),
            "rec": cm.streaming_recall(p > 0.5, lab),
            "auc": cm.streaming_auc(p, lab),
            "auc_pr": cm.streaming_auc(p, lab, curve="PR"),
            "mse": cm.streaming_mean_squared_error(p, lab),
            "rmse": cm.streaming_root_mean_squared_error(p, lab),
            "mae": cm.streaming_mean_absolute_error(p, lab, weights=w),
            "mean": cm.streaming_mean(p, weights=w),
            "tp": cm.streaming_true_positives(p > 0.5, lab),
            "fp": cm.streaming_false_positives(p > 0.5, lab),
            "tn": cm.streaming_true_negatives(p > 0.5, lab),
            "fn": cm.streaming_false_negatives(p > 0.5, lab),
            "iou": cm.streaming_mean_iou(ipred, tf.cast(lab, tf.int32), num_classes=2),
            "prec_th": cm.streaming_precision_at_thresholds(p, lab, thresholds=[0.3, 0.6]),
            "fpr": cm.streaming_false_positive_rate(p > 0.5, lab),
            "mean_tensor": cm.streaming_mean_tensor(p),
        }

    got = _streamed(build)
    expected = {"acc": 0.5833333134651184, "acc_w": 0.5454545617103577, "prec": 0.6000000238418579, "rec": 0.5,
                "auc": 0.5277777314186096, "auc_pr": 0.4671477675437927, "mse": 0.3256838023662567,
                "rmse": 0.5706871151924133, "mae": 0.5641458034515381, "mean": 0.37487146258354187, "tp": 3.0,
                "fp": 2.0, "tn": 4.0, "fn": 3.0, "iou": 0.4097222089767456, "fpr": 0.33333334}
    for key, value in expected.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-5, err_msg=key)
    np.testing.assert_allclose(got["prec_th"], [0.5714285969734192, 0.3333333432674408], rtol=1e-5)
    np.testing.assert_allclose(got["mean_tensor"], (P1 + P2) / 2, rtol=1e-6)


def test_streaming_metric_variables_keep_tf_names():
    with tf.Graph().as_default():
        tf.contrib.metrics.streaming_accuracy(tf.constant([1, 0]), tf.constant([1, 1]))
        tf.contrib.metrics.streaming_pearson_correlation(tf.constant([1.0, 2.0]), tf.constant([1.0, 3.0]))
        names = [v.op.name for v in tf.local_variables()]
    assert names[:2] == ["accuracy/total", "accuracy/count"]
    assert "pearson_r/covariance/comoment" in names
    assert "pearson_r/variance_predictions/mean_prediction" in names


def test_streaming_covariance_and_pearson_over_batches():
    cm = tf.contrib.metrics
    got = _streamed(lambda p, lab, w: {"cov": cm.streaming_covariance(p, lab),
                                       "r": cm.streaming_pearson_correlation(p, lab)})
    np.testing.assert_allclose(got["cov"], 0.006656907414170829, rtol=1e-4)
    np.testing.assert_allclose(got["r"], 0.04235972522206181, rtol=1e-4)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_streaming_covariance_is_nan_before_two_values():
    with tf.Graph().as_default():
        cov, update = tf.contrib.metrics.streaming_covariance(tf.constant([1.0]), tf.constant([2.0]))
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            assert math.isnan(sess.run(update))


def test_f1_score_is_the_best_over_thresholds():
    got = _streamed(lambda p, lab, w: {"f1": tf.contrib.metrics.f1_score(lab, p)})
    np.testing.assert_allclose(got["f1"], 0.7058822989619407, rtol=1e-5)


def test_streaming_recall_at_k():
    preds = np.array([[0.40651992, 0.46894026, 0.26923558, 0.29179278],
                      [0.45768639, 0.86053389, 0.58625293, 0.28348786],
                      [0.2779775, 0.45462209, 0.20541035, 0.20137872],
                      [0.51403505, 0.08722937, 0.48358554, 0.36217621],
                      [0.7076866, 0.74674624, 0.69109291, 0.68918043]], np.float32)
    with tf.Graph().as_default():
        value, update = tf.contrib.metrics.streaming_recall_at_k(tf.constant(preds), tf.constant([0, 1, 2, 3, 1]), 2)
        assert value.op.name.startswith("recall_at_2/")
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run(update)
            np.testing.assert_allclose(sess.run(value), 0.6, rtol=1e-6)


def test_streaming_concat_appends_and_caps():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, [None, 2])
        value, update = tf.contrib.metrics.streaming_concat(x)
        capped, capped_update = tf.contrib.metrics.streaming_concat(x, max_size=3, name="capped")
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            assert sess.run(value).shape == (0, 2)
            sess.run([update, capped_update], {x: [[1, 2], [3, 4]]})
            sess.run([update, capped_update], {x: [[5, 6]]})
            sess.run([update, capped_update], {x: [[7, 8]]})
            np.testing.assert_array_equal(sess.run(value), [[1, 2], [3, 4], [5, 6], [7, 8]])
            np.testing.assert_array_equal(sess.run(capped), [[1, 2], [3, 4], [5, 6]])


def test_aggregate_metrics_and_map():
    with tf.Graph().as_default():
        labels = tf.constant([1, 0, 1])
        preds = tf.constant([1, 1, 1])
        names_to_values, names_to_updates = tf.contrib.metrics.aggregate_metric_map({
            "accuracy": tf.contrib.metrics.streaming_accuracy(preds, labels),
            "tp": tf.contrib.metrics.streaming_true_positives(preds, labels),
        })
        values, updates = tf.contrib.metrics.aggregate_metrics(
            tf.contrib.metrics.streaming_mean(tf.constant([1.0, 3.0])))
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run([list(names_to_updates.values()), updates])
            got = sess.run(names_to_values)
            np.testing.assert_allclose(got["accuracy"], 2.0 / 3.0, rtol=1e-6)
            assert got["tp"] == 2.0
            assert sess.run(values) == [2.0]


def test_slim_metrics_is_contrib_metrics_and_missing_names_raise():
    import dflow.contrib.slim as slim

    assert slim.metrics.streaming_accuracy is tf.contrib.metrics.streaming_accuracy
    assert tf.contrib.metrics.confusion_matrix is tf.confusion_matrix
    with pytest.raises(NotImplementedError, match="cohen_kappa"):
        tf.contrib.metrics.cohen_kappa(None, None, 2)


def test_contrib_accuracy_is_per_batch():
    with tf.Graph().as_default(), tf.Session() as sess:
        acc = tf.contrib.metrics.accuracy(tf.constant([1, 2, 3, 4]), tf.constant([1, 2, 0, 4]))
        wacc = tf.contrib.metrics.accuracy(tf.constant([1, 2, 3, 4]), tf.constant([1, 2, 0, 4]),
                                           weights=tf.constant([1.0, 1.0, 2.0, 0.0]))
        np.testing.assert_allclose(sess.run([acc, wacc]), [0.75, 0.5])


# -- tf.contrib.losses (slim.losses): predictions/logits first -------------------------------------------------

LOGITS = np.array([[-1.3138647079467773, 0.8846223950386047, 0.8813180327415466],
                   [1.7095730304718018, 0.05003364384174347, -0.4046774208545685],
                   [-0.5453599691390991, -1.5464773178100586, 0.9823674559593201],
                   [-1.1010676622390747, -1.1850465536117554, -0.20564989745616913]], np.float32)
PREDS = np.array([[0.5446490049362183, 0.7803147435188293], [0.3063635230064392, 0.22195787727832794],
                  [0.38797125220298767, 0.9363836646080017], [0.9759954214096069, 0.6723836660385132]], np.float32)
LABS = np.array([[0.9028341174125671, 0.8457508683204651], [0.37799403071403503, 0.09221700578927994],
                 [0.6534109115600586, 0.5578407645225525], [0.3615647554397583, 0.22505450248718262]], np.float32)


def test_contrib_losses_match_tf_losses():
    import dflow.contrib.slim as slim

    onehot = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
    weights = np.array([1.0, 0.0, 2.0, 1.0], np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        a = slim.losses.softmax_cross_entropy(LOGITS, onehot, weights=weights, label_smoothing=0.1)
        b = slim.losses.sparse_softmax_cross_entropy(LOGITS, np.array([0, 2, 1, 2]), weights=weights)
        c = slim.losses.mean_squared_error(PREDS, LABS)
        d = slim.losses.log_loss(PREDS, LABS)
        e = slim.losses.sigmoid_cross_entropy(LOGITS[:, :2], (LABS > 0.5).astype(np.float32))
        hinge = slim.losses.hinge_loss(LOGITS[:, :2], (LABS > 0.5).astype(np.float32))
        total = slim.losses.get_total_loss()
        assert len(slim.losses.get_losses()) == 5  # the hinge loss is not added
        np.testing.assert_allclose(sess.run([a, b, c, d, e, total]),
                                   [2.9270265, 3.0334575, 0.11824043, 0.93718106, 0.97348285, 7.9893885], rtol=1e-5)
        np.testing.assert_allclose(sess.run(hinge), [[2.3138647079467773, 0.11537760496139526],
                                                     [2.7095730304718018, 1.050033688545227],
                                                     [1.5453599691390991, 2.5464773178100586], [0.0, 0.0]],
                                   rtol=1e-5)
    assert slim.losses is tf.contrib.losses


def test_contrib_mean_pairwise_squared_error_keeps_contribs_normalization():
    with tf.Graph().as_default(), tf.Session() as sess:
        loss = tf.contrib.losses.mean_pairwise_squared_error(PREDS, LABS, weights=np.array([1.0, 0.0, 2.0, 1.0]))
        np.testing.assert_allclose(sess.run(loss), 0.4715259876102209, rtol=1e-5)
        assert tf.contrib.losses.get_losses() == [loss]


# -- tf.contrib.distributions ----------------------------------------------------------------------------------


def test_contrib_distributions_alias_tf_distributions():
    cd = tf.contrib.distributions
    assert cd.Normal is tf.distributions.Normal
    assert cd.Bernoulli is tf.distributions.Bernoulli
    assert cd.kl_divergence is tf.distributions.kl_divergence
    with pytest.raises(NotImplementedError, match="MultivariateNormalTriL"):
        cd.MultivariateNormalTriL  # noqa: B018


def test_multivariate_normal_diag():
    loc = np.array([[1.0, -1.0, 0.5], [0.0, 0.0, 0.0]], np.float32)
    scale = np.array([0.5, 2.0, 1.5], np.float32)
    x = np.array([[0.3, 0.1, -0.2], [1.0, 2.0, 3.0]], np.float32)
    expected_log_prob = (-0.5 * (((x - loc) / scale) ** 2).sum(-1) - 1.5 * math.log(2 * math.pi)
                         - np.log(scale).sum())
    with tf.Graph().as_default(), tf.Session() as sess:
        mvn = tf.contrib.distributions.MultivariateNormalDiag(loc=loc, scale_diag=scale)
        assert mvn.batch_shape.as_list() == [2] and mvn.event_shape.as_list() == [3]
        other = tf.contrib.distributions.MultivariateNormalDiag(loc=[0.0, 0.0, 0.0], scale_identity_multiplier=1.0,
                                                                scale_diag=[0.0, 1.0, 0.0])
        sample = mvn.sample(1000, seed=3)
        log_prob, entropy, mean, stddev, cov, kl, s = sess.run(
            [mvn.log_prob(x), mvn.entropy(), mvn.mean(), mvn.stddev(), mvn.covariance(),
             tf.contrib.distributions.kl_divergence(mvn, other), sample])
    np.testing.assert_allclose(log_prob, expected_log_prob, rtol=1e-5)
    np.testing.assert_allclose(entropy, [1.5 * (1 + math.log(2 * math.pi)) + np.log(scale).sum()] * 2, rtol=1e-5)
    np.testing.assert_allclose(mean, loc)
    np.testing.assert_allclose(stddev, np.broadcast_to(scale, (2, 3)))
    np.testing.assert_allclose(cov[0], np.diag(scale ** 2), rtol=1e-6)
    assert isinstance(mvn.scale, tf.linalg.LinearOperatorDiag)
    other_scale = np.array([1.0, 2.0, 1.0])
    ratio = (scale / other_scale) ** 2
    expected_kl = 0.5 * (ratio + (loc / other_scale) ** 2 - 1 - np.log(ratio)).sum(-1)
    np.testing.assert_allclose(kl, expected_kl, rtol=1e-5)
    assert s.shape == (1000, 2, 3)
    np.testing.assert_allclose(s.std(axis=0)[0], scale, rtol=0.15)


def test_sparse_at_k_wrappers_equal_the_core_metrics():
    preds = np.array([[0.1, 0.5, 0.4], [0.7, 0.2, 0.1]], np.float32)
    labels = np.array([[1], [2]], np.int64)
    with tf.Graph().as_default(), tf.Session() as sess:
        pairs = [(tf.contrib.metrics.streaming_sparse_precision_at_k(preds, labels, 2),
                  tf.metrics.precision_at_k(labels, preds, 2)),
                 (tf.contrib.metrics.streaming_sparse_recall_at_k(preds, labels, 1),
                  tf.metrics.recall_at_k(labels, preds, 1)),
                 (tf.contrib.metrics.streaming_sparse_average_precision_at_k(preds, labels, 2),
                  tf.metrics.average_precision_at_k(labels, preds, 2))]
        sess.run(tf.local_variables_initializer())
        sess.run([[a[1], b[1]] for a, b in pairs])
        for a, b in pairs:
            assert sess.run(a[0]) == sess.run(b[0])
        assert sess.run(pairs[0][0][0]) == pytest.approx(0.25)


def test_normal_with_softplus_scale():
    with tf.Graph().as_default(), tf.Session() as sess:
        dist = tf.contrib.distributions.NormalWithSoftplusScale(loc=1.0, scale=-0.5)
        scale = math.log1p(math.exp(-0.5))
        np.testing.assert_allclose(sess.run(dist.stddev()), scale, rtol=1e-6)
        np.testing.assert_allclose(sess.run(dist.log_prob(0.0)),
                                   -0.5 * (1.0 / scale) ** 2 - math.log(scale) - 0.5 * math.log(2 * math.pi), rtol=1e-6)
