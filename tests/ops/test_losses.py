"""tf.losses (TF1's tensorflow.compat.v1.losses): values for each loss, weighting
and reduction, checked against figures computed with TF 2.15's tf.compat.v1;
collections, gradients, shape errors and get_total_loss."""

import numpy as np
import pytest

import dflow as tf

R = tf.losses.Reduction
REDUCTIONS = {"NONE": R.NONE, "SUM": R.SUM, "MEAN": R.MEAN, "SUM_OVER_BATCH_SIZE": R.SUM_OVER_BATCH_SIZE,
              "SUM_BY_NONZERO_WEIGHTS": R.SUM_BY_NONZERO_WEIGHTS}

LABELS = np.array([[0., 1., 1.], [1., 0., 1.]], np.float32)
PREDS = np.array([[0.2, 0.7, 1.9], [0.6, -0.4, 3.1]], np.float32)
PROBS = np.array([[0.1, 0.8, 0.6], [0.3, 0.25, 0.9]], np.float32)
ONEHOT = np.array([[0., 1., 0.], [1., 0., 0.]], np.float32)
SPARSE = np.array([1, 0], np.int32)
COS_L = np.array([[0.6, 0.8, 0.], [0., 0., 1.]], np.float32)
COS_P = np.array([[0.8, 0.6, 0.], [0., 0.6, 0.8]], np.float32)

W_COL = np.array([[1.5], [0.0]], np.float32)
W_ROW = np.array([1.5, 0.0], np.float32)
WEIGHTS = {
    "elementwise": {"none": 1.0, "scalar": 2.0, "per_example": W_COL,
                    "full": np.array([[1., 0., 2.], [0.5, 3., 0.]], np.float32)},
    "row": {"none": 1.0, "scalar": 2.0, "per_example": W_ROW},
    "col": {"none": 1.0, "scalar": 2.0, "per_example": W_COL},
}

CASES = {
    "absolute_difference": ("elementwise", lambda w, r: tf.losses.absolute_difference(LABELS, PREDS, weights=w,
                                                                                       reduction=r)),
    "mean_squared_error": ("elementwise", lambda w, r: tf.losses.mean_squared_error(LABELS, PREDS, weights=w,
                                                                                     reduction=r)),
    "huber_loss": ("elementwise", lambda w, r: tf.losses.huber_loss(LABELS, PREDS, weights=w, delta=0.8,
                                                                     reduction=r)),
    "log_loss": ("elementwise", lambda w, r: tf.losses.log_loss(LABELS, PROBS, weights=w, reduction=r)),
    "hinge_loss": ("elementwise", lambda w, r: tf.losses.hinge_loss(LABELS, PREDS, weights=w, reduction=r)),
    "sigmoid_cross_entropy": ("elementwise", lambda w, r: tf.losses.sigmoid_cross_entropy(
        LABELS, PREDS, weights=w, reduction=r)),
    "sigmoid_cross_entropy_smooth": ("elementwise", lambda w, r: tf.losses.sigmoid_cross_entropy(
        LABELS, PREDS, weights=w, label_smoothing=0.2, reduction=r)),
    "softmax_cross_entropy": ("row", lambda w, r: tf.losses.softmax_cross_entropy(ONEHOT, PREDS, weights=w,
                                                                                   reduction=r)),
    "softmax_cross_entropy_smooth": ("row", lambda w, r: tf.losses.softmax_cross_entropy(
        ONEHOT, PREDS, weights=w, label_smoothing=0.3, reduction=r)),
    "sparse_softmax_cross_entropy": ("row", lambda w, r: tf.losses.sparse_softmax_cross_entropy(
        SPARSE, PREDS, weights=w, reduction=r)),
    "cosine_distance": ("col", lambda w, r: tf.losses.cosine_distance(COS_L, COS_P, axis=1, weights=w,
                                                                       reduction=r)),
}

# "<loss>|<weights>|<reduction>" -> the value TF 2.15's tf.compat.v1.losses gives.
EXPECTED = {
    "absolute_difference|none|NONE": [[0.2, 0.30000001, 0.89999998], [0.39999998, 0.40000001, 2.0999999]],
    "absolute_difference|none|SUM": 4.3000002,
    "absolute_difference|none|MEAN": 0.7166667,
    "absolute_difference|none|SUM_OVER_BATCH_SIZE": 0.7166667,
    "absolute_difference|none|SUM_BY_NONZERO_WEIGHTS": 0.7166667,
    "absolute_difference|scalar|NONE": [[0.40000001, 0.60000002, 1.8], [0.79999995, 0.80000001, 4.1999998]],
    "absolute_difference|scalar|SUM": 8.6000004,
    "absolute_difference|scalar|MEAN": 0.7166667,
    "absolute_difference|scalar|SUM_OVER_BATCH_SIZE": 1.4333334,
    "absolute_difference|scalar|SUM_BY_NONZERO_WEIGHTS": 1.4333334,
    "absolute_difference|per_example|NONE": [[0.30000001, 0.45000002, 1.3499999], [0.0, 0.0, 0.0]],
    "absolute_difference|per_example|SUM": 2.0999999,
    "absolute_difference|per_example|MEAN": 0.46666664,
    "absolute_difference|per_example|SUM_OVER_BATCH_SIZE": 0.34999999,
    "absolute_difference|per_example|SUM_BY_NONZERO_WEIGHTS": 0.69999999,
    "absolute_difference|full|NONE": [[0.2, 0.0, 1.8], [0.19999999, 1.2, 0.0]],
    "absolute_difference|full|SUM": 3.4000001,
    "absolute_difference|full|MEAN": 0.52307695,
    "absolute_difference|full|SUM_OVER_BATCH_SIZE": 0.56666666,
    "absolute_difference|full|SUM_BY_NONZERO_WEIGHTS": 0.85000002,
    "mean_squared_error|none|NONE": [[0.040000003, 0.090000004, 0.80999994], [0.15999998, 0.16000001, 4.4099994]],
    "mean_squared_error|none|SUM": 5.6699991,
    "mean_squared_error|none|MEAN": 0.94499987,
    "mean_squared_error|none|SUM_OVER_BATCH_SIZE": 0.94499987,
    "mean_squared_error|none|SUM_BY_NONZERO_WEIGHTS": 0.94499987,
    "mean_squared_error|scalar|NONE": [[0.080000006, 0.18000001, 1.6199999], [0.31999996, 0.32000002, 8.8199987]],
    "mean_squared_error|scalar|SUM": 11.339998,
    "mean_squared_error|scalar|MEAN": 0.94499987,
    "mean_squared_error|scalar|SUM_OVER_BATCH_SIZE": 1.8899997,
    "mean_squared_error|scalar|SUM_BY_NONZERO_WEIGHTS": 1.8899997,
    "mean_squared_error|per_example|NONE": [[0.060000002, 0.13500001, 1.2149999], [0.0, 0.0, 0.0]],
    "mean_squared_error|per_example|SUM": 1.41,
    "mean_squared_error|per_example|MEAN": 0.31333333,
    "mean_squared_error|per_example|SUM_OVER_BATCH_SIZE": 0.235,
    "mean_squared_error|per_example|SUM_BY_NONZERO_WEIGHTS": 0.47,
    "mean_squared_error|full|NONE": [[0.040000003, 0.0, 1.6199999], [0.079999991, 0.48000002, 0.0]],
    "mean_squared_error|full|SUM": 2.2199998,
    "mean_squared_error|full|MEAN": 0.34153843,
    "mean_squared_error|full|SUM_OVER_BATCH_SIZE": 0.36999997,
    "mean_squared_error|full|SUM_BY_NONZERO_WEIGHTS": 0.55499995,
    "huber_loss|none|NONE": [[0.020000001, 0.045000002, 0.40000001], [0.079999991, 0.080000006, 1.36]],
    "huber_loss|none|SUM": 1.985,
    "huber_loss|none|MEAN": 0.33083335,
    "huber_loss|none|SUM_OVER_BATCH_SIZE": 0.33083335,
    "huber_loss|none|SUM_BY_NONZERO_WEIGHTS": 0.33083335,
    "huber_loss|scalar|NONE": [[0.040000003, 0.090000004, 0.80000001], [0.15999998, 0.16000001, 2.72]],
    "huber_loss|scalar|SUM": 3.97,
    "huber_loss|scalar|MEAN": 0.33083335,
    "huber_loss|scalar|SUM_OVER_BATCH_SIZE": 0.66166669,
    "huber_loss|scalar|SUM_BY_NONZERO_WEIGHTS": 0.66166669,
    "huber_loss|per_example|NONE": [[0.030000001, 0.067500003, 0.60000002], [0.0, 0.0, 0.0]],
    "huber_loss|per_example|SUM": 0.69750005,
    "huber_loss|per_example|MEAN": 0.15500002,
    "huber_loss|per_example|SUM_OVER_BATCH_SIZE": 0.11625001,
    "huber_loss|per_example|SUM_BY_NONZERO_WEIGHTS": 0.23250002,
    "huber_loss|full|NONE": [[0.020000001, 0.0, 0.80000001], [0.039999995, 0.24000001, 0.0]],
    "huber_loss|full|SUM": 1.1,
    "huber_loss|full|MEAN": 0.16923077,
    "huber_loss|full|SUM_OVER_BATCH_SIZE": 0.18333334,
    "huber_loss|full|SUM_BY_NONZERO_WEIGHTS": 0.27500001,
    "log_loss|none|NONE": [[0.10536041, 0.22314338, 0.5108254], [1.2039725, 0.28768191, 0.10536041]],
    "log_loss|none|SUM": 2.4363439,
    "log_loss|none|MEAN": 0.40605733,
    "log_loss|none|SUM_OVER_BATCH_SIZE": 0.40605733,
    "log_loss|none|SUM_BY_NONZERO_WEIGHTS": 0.40605733,
    "log_loss|scalar|NONE": [[0.21072082, 0.44628677, 1.0216508], [2.4079449, 0.57536381, 0.21072082]],
    "log_loss|scalar|SUM": 4.8726878,
    "log_loss|scalar|MEAN": 0.40605733,
    "log_loss|scalar|SUM_OVER_BATCH_SIZE": 0.81211466,
    "log_loss|scalar|SUM_BY_NONZERO_WEIGHTS": 0.81211466,
    "log_loss|per_example|NONE": [[0.15804061, 0.33471507, 0.76623809], [0.0, 0.0, 0.0]],
    "log_loss|per_example|SUM": 1.2589937,
    "log_loss|per_example|MEAN": 0.27977639,
    "log_loss|per_example|SUM_OVER_BATCH_SIZE": 0.2098323,
    "log_loss|per_example|SUM_BY_NONZERO_WEIGHTS": 0.41966459,
    "log_loss|full|NONE": [[0.10536041, 0.0, 1.0216508], [0.60198623, 0.86304569, 0.0]],
    "log_loss|full|SUM": 2.5920432,
    "log_loss|full|MEAN": 0.39877588,
    "log_loss|full|SUM_OVER_BATCH_SIZE": 0.43200719,
    "log_loss|full|SUM_BY_NONZERO_WEIGHTS": 0.64801079,
    "hinge_loss|none|NONE": [[1.2, 0.30000001, 0.0], [0.39999998, 0.60000002, 0.0]],
    "hinge_loss|none|SUM": 2.5,
    "hinge_loss|none|MEAN": 0.41666666,
    "hinge_loss|none|SUM_OVER_BATCH_SIZE": 0.41666666,
    "hinge_loss|none|SUM_BY_NONZERO_WEIGHTS": 0.41666666,
    "hinge_loss|scalar|NONE": [[2.4000001, 0.60000002, 0.0], [0.79999995, 1.2, 0.0]],
    "hinge_loss|scalar|SUM": 5.0,
    "hinge_loss|scalar|MEAN": 0.41666666,
    "hinge_loss|scalar|SUM_OVER_BATCH_SIZE": 0.83333331,
    "hinge_loss|scalar|SUM_BY_NONZERO_WEIGHTS": 0.83333331,
    "hinge_loss|per_example|NONE": [[1.8000001, 0.45000002, 0.0], [0.0, 0.0, 0.0]],
    "hinge_loss|per_example|SUM": 2.25,
    "hinge_loss|per_example|MEAN": 0.5,
    "hinge_loss|per_example|SUM_OVER_BATCH_SIZE": 0.375,
    "hinge_loss|per_example|SUM_BY_NONZERO_WEIGHTS": 0.75,
    "hinge_loss|full|NONE": [[1.2, 0.0, 0.0], [0.19999999, 1.8000001, 0.0]],
    "hinge_loss|full|SUM": 3.2000003,
    "hinge_loss|full|MEAN": 0.49230772,
    "hinge_loss|full|SUM_OVER_BATCH_SIZE": 0.53333336,
    "hinge_loss|full|SUM_BY_NONZERO_WEIGHTS": 0.80000007,
    "sigmoid_cross_entropy|none|NONE": [[0.79813886, 0.40318605, 0.13938676], [0.43748793, 0.51301527, 0.04406397]],
    "sigmoid_cross_entropy|none|SUM": 2.335279,
    "sigmoid_cross_entropy|none|MEAN": 0.38921317,
    "sigmoid_cross_entropy|none|SUM_OVER_BATCH_SIZE": 0.38921317,
    "sigmoid_cross_entropy|none|SUM_BY_NONZERO_WEIGHTS": 0.38921317,
    "sigmoid_cross_entropy|scalar|NONE": [[1.5962777, 0.80637211, 0.27877352], [0.87497586, 1.0260305, 0.088127941]],
    "sigmoid_cross_entropy|scalar|SUM": 4.670558,
    "sigmoid_cross_entropy|scalar|MEAN": 0.38921317,
    "sigmoid_cross_entropy|scalar|SUM_OVER_BATCH_SIZE": 0.77842635,
    "sigmoid_cross_entropy|scalar|SUM_BY_NONZERO_WEIGHTS": 0.77842635,
    "sigmoid_cross_entropy|per_example|NONE": [[1.1972083, 0.60477906, 0.20908013], [0.0, 0.0, 0.0]],
    "sigmoid_cross_entropy|per_example|SUM": 2.0110676,
    "sigmoid_cross_entropy|per_example|MEAN": 0.44690391,
    "sigmoid_cross_entropy|per_example|SUM_OVER_BATCH_SIZE": 0.33517793,
    "sigmoid_cross_entropy|per_example|SUM_BY_NONZERO_WEIGHTS": 0.67035586,
    "sigmoid_cross_entropy|full|NONE": [[0.79813886, 0.0, 0.27877352], [0.21874397, 1.5390458, 0.0]],
    "sigmoid_cross_entropy|full|SUM": 2.834702,
    "sigmoid_cross_entropy|full|MEAN": 0.43610799,
    "sigmoid_cross_entropy|full|SUM_OVER_BATCH_SIZE": 0.47245035,
    "sigmoid_cross_entropy|full|SUM_BY_NONZERO_WEIGHTS": 0.7086755,
    "sigmoid_cross_entropy_smooth|none|NONE":
        [[0.77813888, 0.47318605, 0.32938671], [0.49748793, 0.55301529, 0.35406393]],
    "sigmoid_cross_entropy_smooth|none|SUM": 2.9852788,
    "sigmoid_cross_entropy_smooth|none|MEAN": 0.49754646,
    "sigmoid_cross_entropy_smooth|none|SUM_OVER_BATCH_SIZE": 0.49754646,
    "sigmoid_cross_entropy_smooth|none|SUM_BY_NONZERO_WEIGHTS": 0.49754646,
    "sigmoid_cross_entropy_smooth|scalar|NONE":
        [[1.5562778, 0.94637209, 0.65877342], [0.99497586, 1.1060306, 0.70812786]],
    "sigmoid_cross_entropy_smooth|scalar|SUM": 5.9705577,
    "sigmoid_cross_entropy_smooth|scalar|MEAN": 0.49754646,
    "sigmoid_cross_entropy_smooth|scalar|SUM_OVER_BATCH_SIZE": 0.99509293,
    "sigmoid_cross_entropy_smooth|scalar|SUM_BY_NONZERO_WEIGHTS": 0.99509293,
    "sigmoid_cross_entropy_smooth|per_example|NONE": [[1.1672083, 0.70977908, 0.49408007], [0.0, 0.0, 0.0]],
    "sigmoid_cross_entropy_smooth|per_example|SUM": 2.3710675,
    "sigmoid_cross_entropy_smooth|per_example|MEAN": 0.52690387,
    "sigmoid_cross_entropy_smooth|per_example|SUM_OVER_BATCH_SIZE": 0.39517793,
    "sigmoid_cross_entropy_smooth|per_example|SUM_BY_NONZERO_WEIGHTS": 0.79035586,
    "sigmoid_cross_entropy_smooth|full|NONE": [[0.77813888, 0.0, 0.65877342], [0.24874397, 1.6590459, 0.0]],
    "sigmoid_cross_entropy_smooth|full|SUM": 3.3447022,
    "sigmoid_cross_entropy_smooth|full|MEAN": 0.51456958,
    "sigmoid_cross_entropy_smooth|full|SUM_OVER_BATCH_SIZE": 0.55745035,
    "sigmoid_cross_entropy_smooth|full|SUM_BY_NONZERO_WEIGHTS": 0.83617556,
    "softmax_cross_entropy|none|NONE": [1.5946587, 2.6064141],
    "softmax_cross_entropy|none|SUM": 4.2010727,
    "softmax_cross_entropy|none|MEAN": 2.1005363,
    "softmax_cross_entropy|none|SUM_OVER_BATCH_SIZE": 2.1005363,
    "softmax_cross_entropy|none|SUM_BY_NONZERO_WEIGHTS": 2.1005363,
    "softmax_cross_entropy|scalar|NONE": [3.1893175, 5.2128282],
    "softmax_cross_entropy|scalar|SUM": 8.4021454,
    "softmax_cross_entropy|scalar|MEAN": 2.1005363,
    "softmax_cross_entropy|scalar|SUM_OVER_BATCH_SIZE": 4.2010727,
    "softmax_cross_entropy|scalar|SUM_BY_NONZERO_WEIGHTS": 4.2010727,
    "softmax_cross_entropy|per_example|NONE": [2.391988, 0.0],
    "softmax_cross_entropy|per_example|SUM": 2.391988,
    "softmax_cross_entropy|per_example|MEAN": 1.5946587,
    "softmax_cross_entropy|per_example|SUM_OVER_BATCH_SIZE": 1.195994,
    "softmax_cross_entropy|per_example|SUM_BY_NONZERO_WEIGHTS": 2.391988,
    "softmax_cross_entropy_smooth|none|NONE": [1.5246588, 2.4564142],
    "softmax_cross_entropy_smooth|none|SUM": 3.9810729,
    "softmax_cross_entropy_smooth|none|MEAN": 1.9905365,
    "softmax_cross_entropy_smooth|none|SUM_OVER_BATCH_SIZE": 1.9905365,
    "softmax_cross_entropy_smooth|none|SUM_BY_NONZERO_WEIGHTS": 1.9905365,
    "softmax_cross_entropy_smooth|scalar|NONE": [3.0493176, 4.9128284],
    "softmax_cross_entropy_smooth|scalar|SUM": 7.9621458,
    "softmax_cross_entropy_smooth|scalar|MEAN": 1.9905365,
    "softmax_cross_entropy_smooth|scalar|SUM_OVER_BATCH_SIZE": 3.9810729,
    "softmax_cross_entropy_smooth|scalar|SUM_BY_NONZERO_WEIGHTS": 3.9810729,
    "softmax_cross_entropy_smooth|per_example|NONE": [2.2869883, 0.0],
    "softmax_cross_entropy_smooth|per_example|SUM": 2.2869883,
    "softmax_cross_entropy_smooth|per_example|MEAN": 1.5246588,
    "softmax_cross_entropy_smooth|per_example|SUM_OVER_BATCH_SIZE": 1.1434941,
    "softmax_cross_entropy_smooth|per_example|SUM_BY_NONZERO_WEIGHTS": 2.2869883,
    "sparse_softmax_cross_entropy|none|NONE": [1.5946587, 2.6064141],
    "sparse_softmax_cross_entropy|none|SUM": 4.2010727,
    "sparse_softmax_cross_entropy|none|MEAN": 2.1005363,
    "sparse_softmax_cross_entropy|none|SUM_OVER_BATCH_SIZE": 2.1005363,
    "sparse_softmax_cross_entropy|none|SUM_BY_NONZERO_WEIGHTS": 2.1005363,
    "sparse_softmax_cross_entropy|scalar|NONE": [3.1893175, 5.2128282],
    "sparse_softmax_cross_entropy|scalar|SUM": 8.4021454,
    "sparse_softmax_cross_entropy|scalar|MEAN": 2.1005363,
    "sparse_softmax_cross_entropy|scalar|SUM_OVER_BATCH_SIZE": 4.2010727,
    "sparse_softmax_cross_entropy|scalar|SUM_BY_NONZERO_WEIGHTS": 4.2010727,
    "sparse_softmax_cross_entropy|per_example|NONE": [2.391988, 0.0],
    "sparse_softmax_cross_entropy|per_example|SUM": 2.391988,
    "sparse_softmax_cross_entropy|per_example|MEAN": 1.5946587,
    "sparse_softmax_cross_entropy|per_example|SUM_OVER_BATCH_SIZE": 1.195994,
    "sparse_softmax_cross_entropy|per_example|SUM_BY_NONZERO_WEIGHTS": 2.391988,
    "cosine_distance|none|NONE": [[0.039999962], [0.19999999]],
    "cosine_distance|none|SUM": 0.23999995,
    "cosine_distance|none|MEAN": 0.11999997,
    "cosine_distance|none|SUM_OVER_BATCH_SIZE": 0.11999997,
    "cosine_distance|none|SUM_BY_NONZERO_WEIGHTS": 0.11999997,
    "cosine_distance|scalar|NONE": [[0.079999924], [0.39999998]],
    "cosine_distance|scalar|SUM": 0.4799999,
    "cosine_distance|scalar|MEAN": 0.11999997,
    "cosine_distance|scalar|SUM_OVER_BATCH_SIZE": 0.23999995,
    "cosine_distance|scalar|SUM_BY_NONZERO_WEIGHTS": 0.23999995,
    "cosine_distance|per_example|NONE": [[0.059999943], [0.0]],
    "cosine_distance|per_example|SUM": 0.059999943,
    "cosine_distance|per_example|MEAN": 0.039999962,
    "cosine_distance|per_example|SUM_OVER_BATCH_SIZE": 0.029999971,
    "cosine_distance|per_example|SUM_BY_NONZERO_WEIGHTS": 0.059999943,
    "mpse|none": 4.8933325,
    "mpse|per_example": 3.1733329,
    "sparse_col": 1.8475976,
}


def _params():
    for name, (kind, _) in CASES.items():
        for wname in WEIGHTS[kind]:
            for rname in REDUCTIONS:
                yield name, wname, rname


@pytest.mark.parametrize("name,wname,rname", list(_params()))
def test_loss_values_match_tf1(name, wname, rname):
    kind, fn = CASES[name]
    with tf.Graph().as_default():
        loss = fn(WEIGHTS[kind][wname], REDUCTIONS[rname])
        assert loss.dtype == tf.float32
        assert tf.get_collection(tf.GraphKeys.LOSSES) == [loss]
        with tf.Session() as sess:
            got = sess.run(loss)
    np.testing.assert_allclose(got, np.array(EXPECTED[f"{name}|{wname}|{rname}"], np.float32), rtol=1e-5,
                               atol=1e-6)


def test_default_reduction_is_sum_by_nonzero_weights():
    with tf.Graph().as_default():
        a = tf.losses.absolute_difference(LABELS, PREDS, weights=W_COL)
        b = tf.losses.absolute_difference(LABELS, PREDS, weights=W_COL, reduction=R.SUM_BY_NONZERO_WEIGHTS)
        with tf.Session() as sess:
            va, vb = sess.run([a, b])
    assert va == vb
    np.testing.assert_allclose(va, EXPECTED["absolute_difference|per_example|SUM_BY_NONZERO_WEIGHTS"], rtol=1e-6)
    assert R.SUM_OVER_NONZERO_WEIGHTS == R.SUM_BY_NONZERO_WEIGHTS


def test_mean_pairwise_squared_error():
    with tf.Graph().as_default():
        plain = tf.losses.mean_pairwise_squared_error(LABELS, PREDS)
        weighted = tf.losses.mean_pairwise_squared_error(LABELS, PREDS, weights=np.array([[1.5], [0.5]], np.float32))
        assert tf.losses.get_losses() == [plain, weighted]
        with tf.Session() as sess:
            got = sess.run([plain, weighted])
    np.testing.assert_allclose(got, [EXPECTED["mpse|none"], EXPECTED["mpse|per_example"]], rtol=1e-5)


def test_sparse_softmax_squeezes_column_labels_and_weights():
    with tf.Graph().as_default():
        loss = tf.losses.sparse_softmax_cross_entropy(SPARSE[:, None], PREDS,
                                                      weights=np.array([[1.5], [0.5]], np.float32))
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(loss), EXPECTED["sparse_col"], rtol=1e-5)


def test_compute_weighted_loss_and_collections():
    with tf.Graph().as_default():
        loss = tf.losses.compute_weighted_loss([1.0, 3.0, 5.0], [1.0, 0.0, 2.0])
        other = tf.losses.compute_weighted_loss([1.0, 3.0], reduction=R.SUM, loss_collection="mine")
        none = tf.losses.compute_weighted_loss([1.0, 3.0], loss_collection=None)
        assert tf.losses.get_losses() == [loss]
        assert tf.losses.get_losses(loss_collection="mine") == [other]
        with tf.Session() as sess:
            assert sess.run([loss, other, none]) == pytest.approx([11.0 / 2.0, 4.0, 2.0])
        with pytest.raises(ValueError, match="Invalid Reduction Key"):
            tf.losses.compute_weighted_loss([1.0], reduction="bogus")
        c = tf.constant(2.0)
        tf.losses.add_loss(c)
        assert tf.losses.get_losses()[-1] is c


def test_float64_losses_are_returned_as_float64():
    with tf.Graph().as_default():
        loss = tf.losses.compute_weighted_loss(np.array([1.0, 2.0]), np.array([1.0, 3.0]))
        assert loss.dtype == tf.float64
        with tf.Session() as sess:
            assert sess.run(loss) == pytest.approx(3.5)


def test_shape_errors_at_graph_build():
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            tf.losses.mean_squared_error(LABELS, PREDS[:, :2])
        with pytest.raises(ValueError):
            tf.losses.absolute_difference(LABELS, PREDS[:1, :2])
        with pytest.raises(ValueError):
            tf.losses.sigmoid_cross_entropy(LABELS, PREDS[:, :2])
        with pytest.raises(ValueError):
            tf.losses.softmax_cross_entropy(ONEHOT, PREDS[:, :2])
        with pytest.raises(ValueError):
            tf.losses.hinge_loss(LABELS, PREDS[:, :2])
        with pytest.raises(ValueError):
            tf.losses.cosine_distance(COS_L, COS_P[:, :2], axis=1)
        with pytest.raises(ValueError):
            tf.losses.sparse_softmax_cross_entropy(np.array([1, 0, 1], np.int32), PREDS)
        with pytest.raises(ValueError, match="weights can not be broadcast to values"):
            tf.losses.mean_squared_error(LABELS, PREDS, weights=np.ones([2, 2], np.float32))
        with pytest.raises(ValueError, match="weights can not be broadcast to values"):
            tf.losses.mean_squared_error(LABELS, PREDS, weights=np.ones([2], np.float32))
        with pytest.raises(ValueError, match="You must specify 'axis'"):
            tf.losses.cosine_distance(COS_L, COS_P)
        with pytest.raises(ValueError, match="must not be None"):
            tf.losses.mean_squared_error(None, PREDS)


def test_cosine_distance_accepts_dim():
    with tf.Graph().as_default():
        loss = tf.losses.cosine_distance(COS_L, COS_P, dim=1)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(loss), EXPECTED["cosine_distance|none|SUM_BY_NONZERO_WEIGHTS"],
                                       rtol=1e-5)


GRAD_LOSSES = {
    "absolute_difference": lambda p: tf.losses.absolute_difference(LABELS, p),
    "mean_squared_error": lambda p: tf.losses.mean_squared_error(LABELS, p, weights=W_COL),
    "huber_loss": lambda p: tf.losses.huber_loss(LABELS, p, delta=0.8),
    "log_loss": lambda p: tf.losses.log_loss(LABELS, tf.sigmoid(p)),
    "hinge_loss": lambda p: tf.losses.hinge_loss(LABELS, p),
    "sigmoid_cross_entropy": lambda p: tf.losses.sigmoid_cross_entropy(LABELS, p, label_smoothing=0.2),
    "softmax_cross_entropy": lambda p: tf.losses.softmax_cross_entropy(ONEHOT, p, label_smoothing=0.3),
    "sparse_softmax_cross_entropy": lambda p: tf.losses.sparse_softmax_cross_entropy(SPARSE, p, weights=W_ROW),
    "cosine_distance": lambda p: tf.losses.cosine_distance(COS_L, p, axis=1),
    "mean_pairwise_squared_error": lambda p: tf.losses.mean_pairwise_squared_error(LABELS, p),
}


@pytest.mark.parametrize("name", sorted(GRAD_LOSSES))
def test_gradients_match_finite_differences(name):
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2, 3])
        loss = GRAD_LOSSES[name](p)
        (grad,) = tf.gradients(loss, [p])
        assert grad is not None
        x0 = PREDS.astype(np.float64)
        with tf.Session() as sess:
            g = sess.run(grad, {p: PREDS})
            eps = 1e-2
            num = np.zeros_like(x0)
            for idx in np.ndindex(x0.shape):
                hi, lo = x0.copy(), x0.copy()
                hi[idx] += eps
                lo[idx] -= eps
                num[idx] = (sess.run(loss, {p: hi.astype(np.float32)}) -
                            sess.run(loss, {p: lo.astype(np.float32)})) / (2 * eps)
    assert g.shape == (2, 3)
    np.testing.assert_allclose(g, num, rtol=2e-2, atol=2e-3)


def test_get_total_loss_with_regularization():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, 0.1 * tf.reduce_sum(v * v))
        loss = tf.losses.mean_squared_error([1.0, 1.0], v)
        total = tf.losses.get_total_loss()
        reg = tf.losses.get_regularization_loss()
        only_losses = tf.losses.get_total_loss(add_regularization_losses=False)
        assert total.name.startswith("total_loss")
        assert reg.name.startswith("total_regularization_loss")
        assert len(tf.losses.get_regularization_losses()) == 1
        (grad,) = tf.gradients(total, [v])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([total, reg, loss, grad])
            assert sess.run(only_losses) == pytest.approx(got[2])
    # TF 2.15 tf.compat.v1: [total, regularization, mse, d total / d v]
    expected = [1.0, 0.5, 0.5, [0.2, 1.4000001]]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6)


def test_regularization_and_total_loss_edge_cases():
    with tf.Graph().as_default():
        reg = tf.losses.get_regularization_loss()
        with tf.Session() as sess:
            assert sess.run(reg) == 0.0
        with pytest.raises(ValueError):
            tf.losses.get_total_loss()
        with tf.name_scope("a"):
            a = tf.losses.absolute_difference([1.0], [2.0])
        with tf.name_scope("b"):
            tf.losses.absolute_difference([1.0], [3.0])
        assert tf.losses.get_losses(scope="a") == [a]
        total = tf.losses.get_total_loss(scope="a")
        with tf.Session() as sess:
            assert sess.run(total) == pytest.approx(1.0)


def test_reduction_is_shared_with_the_canned_heads():
    from dflow.estimator.canned import head

    assert head.Reduction is tf.losses.Reduction
