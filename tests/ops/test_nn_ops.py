"""nn ops: values against numpy references and TF 2.15 (compat.v1) figures,
static shapes and dtypes, TF1 names, and errors. Conv/pool: test_conv_ops.py."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.harness import check_op, run

X = np.array([[-30.0, -3.0, -0.5, 0.0, 0.5], [3.0, 7.0, 30.0, -1e-3, 1e-3]], np.float32)


def zeros(shape, dtype=np.float32):
    return tf.constant(np.zeros(shape, dtype))


def np_log_softmax(x, axis=-1):
    x = np.asarray(x, np.float64)
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def np_softmax(x, axis=-1):
    return np.exp(np_log_softmax(x, axis))


SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805

ACTIVATIONS = [
    ("relu", tf.nn.relu, lambda x: np.maximum(x, 0)),
    ("relu6", tf.nn.relu6, lambda x: np.clip(x, 0, 6)),
    ("elu", tf.nn.elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    ("selu", tf.nn.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
    ("softplus", tf.nn.softplus, lambda x: np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))),
    ("softsign", tf.nn.softsign, lambda x: x / (1 + np.abs(x))),
    ("leaky_relu", tf.nn.leaky_relu, lambda x: np.where(x > 0, x, 0.2 * x)),
    ("leaky_relu_alpha", lambda x: tf.nn.leaky_relu(x, alpha=0.01), lambda x: np.where(x > 0, x, 0.01 * x)),
    ("softmax", tf.nn.softmax, np_softmax),
    ("softmax_axis0", lambda x: tf.nn.softmax(x, axis=0), lambda x: np_softmax(x, 0)),
    ("softmax_dim0", lambda x: tf.nn.softmax(x, dim=0), lambda x: np_softmax(x, 0)),
    ("log_softmax", tf.nn.log_softmax, np_log_softmax),
    ("log_softmax_axis_m2", lambda x: tf.nn.log_softmax(x, axis=-2), lambda x: np_log_softmax(x, 0)),
    ("math.softplus", tf.math.softplus, lambda x: np.logaddexp(x, 0)),
    ("l2_normalize", lambda x: tf.nn.l2_normalize(x, axis=1),
     lambda x: x / np.sqrt((x * x).sum(axis=1, keepdims=True))),
    ("l2_normalize_all", tf.math.l2_normalize, lambda x: x / np.sqrt((x * x).sum())),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn,ref", [a[1:] for a in ACTIVATIONS], ids=[a[0] for a in ACTIVATIONS])
def test_float_ops_match_numpy(fn, ref, dtype):
    x = X.astype(dtype)
    check_op(lambda: fn(tf.constant(x)), ref(x.astype(np.float64)).astype(dtype), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("fn,x,expected", [
    (tf.nn.relu, [-1, 2], [0, 2]),
    (tf.nn.relu6, [-1, 2, 9], [0, 2, 6]),
    (tf.nn.relu, np.array([-1, 2], np.int8), np.array([0, 2], np.int8)),
])
def test_relu_on_integers(fn, x, expected):
    expected = np.asarray(expected, np.asarray(x).dtype if isinstance(x, np.ndarray) else np.int32)
    check_op(lambda: fn(tf.constant(x)), expected)


def test_float16_and_extreme_inputs_match_tf():
    big = [-100.0, -20.0, 0.0, 20.0, 100.0, 1000.0]
    check_op(lambda: tf.nn.softplus(big), np.array([0.0, 2.0611537e-09, 0.6931472, 20.0, 100.0, 1000.0], np.float32))
    check_op(lambda: tf.nn.softplus(tf.constant(big[:5], tf.float16)),
             np.array([0.0, 0.0, 0.6934, 20.0, 100.0], np.float16))
    check_op(lambda: tf.nn.log_softmax([[1000.0, 0.0]]), np.array([[0.0, -1000.0]], np.float32))
    check_op(lambda: tf.nn.softmax([[1000.0, 0.0, -1000.0]]), np.array([[1.0, 0.0, 0.0]], np.float32))
    check_op(lambda: tf.nn.log_softmax(tf.constant([[1.0, 2.0], [3.0, 5.0]]), axis=0),
             np.array([[-2.126928, -3.0485873], [-0.12692805, -0.04858733]], np.float32))
    check_op(lambda: tf.nn.leaky_relu([-1.0, 2.0], alpha=2.0), np.array([-2.0, 2.0], np.float32))


def test_leaky_relu_converts_python_integers_to_float32():
    check_op(lambda: tf.nn.leaky_relu([-5, 2]), np.array([-1.0, 2.0], np.float32))


@pytest.mark.skipif(not hasattr(tf, "cast"), reason="integer tensors are cast with math_ops.cast")
def test_leaky_relu_casts_integer_tensors_as_tf():
    y = tf.nn.leaky_relu(tf.constant([-5, 2]))
    assert y.op.inputs[0].op.type == "Cast"
    check_op(lambda: y, np.array([-1.0, 2.0], np.float32))


@pytest.mark.skipif(not hasattr(tf, "stop_gradient"), reason="v1 labels go through array_ops.stop_gradient")
def test_softmax_cross_entropy_v1_stops_gradients_to_labels():
    y = tf.nn.softmax_cross_entropy_with_logits(labels=[[0.0, 1.0]], logits=[[1.0, 2.0]])
    labels_op = y.op.inputs[1].op
    assert (labels_op.name, labels_op.type) == ("softmax_cross_entropy_with_logits_sg/labels_stop_gradient",
                                                "StopGradient")


def test_softmax_on_3d_and_unknown_shapes():
    x = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32)
    check_op(lambda: tf.nn.softmax(x, axis=1), np_softmax(x, 1).astype(np.float32), rtol=1e-5)
    p = tf.placeholder(tf.float32)
    check_op(lambda: tf.nn.softmax(p), np_softmax(x).astype(np.float32), rtol=1e-5, feed_dict={p: x})


# -- names -------------------------------------------------------------------------------------

NAMES = [  # (build from a float32 [2, 3] placeholder, tensor name, op type), as TF1.15 graph mode names them
    (lambda x: tf.nn.relu(x), "Relu:0", "Relu"),
    (lambda x: tf.nn.relu6(x), "Relu6:0", "Relu6"),
    (lambda x: tf.nn.elu(x), "Elu:0", "Elu"),
    (lambda x: tf.nn.selu(x), "Selu:0", "Selu"),
    (lambda x: tf.nn.softplus(x), "Softplus:0", "Softplus"),
    (lambda x: tf.nn.softsign(x), "Softsign:0", "Softsign"),
    (lambda x: tf.nn.leaky_relu(x), "LeakyRelu:0", "LeakyRelu"),
    (lambda x: tf.nn.softmax(x), "Softmax:0", "Softmax"),
    (lambda x: tf.nn.log_softmax(x), "LogSoftmax:0", "LogSoftmax"),
    (lambda x: tf.nn.l2_loss(x), "L2Loss:0", "L2Loss"),
    (lambda x: tf.nn.bias_add(x, [1.0, 2.0, 3.0]), "BiasAdd:0", "BiasAdd"),
    (lambda x: tf.nn.relu(x, name="act"), "act:0", "Relu"),
    (lambda x: tf.nn.softmax_cross_entropy_with_logits_v2(labels=x, logits=x),
     "softmax_cross_entropy_with_logits:0", "SoftmaxCrossEntropyWithLogits"),
    (lambda x: tf.nn.softmax_cross_entropy_with_logits(labels=x, logits=x),
     "softmax_cross_entropy_with_logits_sg:0", "SoftmaxCrossEntropyWithLogits"),
    (lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1], logits=x),
     "SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits:0",
     "SparseSoftmaxCrossEntropyWithLogits"),
    (lambda x: tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=x), "logistic_loss:0", None),
    (lambda x: tf.nn.l2_normalize(x, 1), "l2_normalize:0", None),
    (lambda x: tf.nn.in_top_k(x, [0, 1], 1), "in_top_k/InTopKV2:0", "InTopKV2"),
    (lambda x: tf.nn.dropout(x, keep_prob=0.5), "dropout/mul_1:0", None),
    (lambda x: tf.nn.xw_plus_b(x, np.ones([3, 4], np.float32), [1.0] * 4), "xw_plus_b:0", None),
    (lambda x: tf.nn.batch_normalization(x, 0.0, 1.0, None, None, 1e-3), "batchnorm/add_1:0", None),
    (lambda x: tf.nn.moments(x, [0])[1], "moments:1", None),
]


@pytest.mark.parametrize("build,name,op_type", NAMES)
def test_tf1_names(build, name, op_type):
    y = build(tf.placeholder(tf.float32, [2, 3]))
    assert y.name == name
    if op_type is not None:
        assert y.op.type == op_type


def test_python_arguments_become_constants_in_the_op_scope():
    tf.nn.in_top_k([[1.0, 2.0]], [1], 1)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names == ["in_top_k/InTopKV2/predictions", "in_top_k/InTopKV2/targets", "in_top_k/InTopKV2/k",
                     "in_top_k/InTopKV2"]


# -- bias_add, xw_plus_b, l2_loss -----------------------------------------------------------------------

def test_bias_add_nhwc_nchw_and_integers():
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    check_op(lambda: tf.nn.bias_add(x, [1.0, 2.0, 3.0, 4.0]), x + np.float32([1, 2, 3, 4]))
    # TF figure: NCHW adds along dimension 1 whatever the rank (>= 3).
    check_op(lambda: tf.nn.bias_add(zeros([1, 2, 3, 4]), [1.0, 2.0], data_format="NCHW"),
             np.broadcast_to(np.array([1.0, 2.0], np.float32)[None, :, None, None], (1, 2, 3, 4)))
    check_op(lambda: tf.nn.bias_add(zeros([1, 2, 3]), [1.0, 2.0], data_format="NCHW"),
             np.array([[[1, 1, 1], [2, 2, 2]]], np.float32))
    check_op(lambda: tf.nn.bias_add(tf.constant([[1, 2]]), [1, 2]), np.array([[2, 4]], np.int32))
    p = tf.placeholder(tf.float32, [None, None])
    assert tf.nn.bias_add(p, [1.0, 2.0]).shape.as_list() == [None, 2]


def test_xw_plus_b_and_l2_loss():
    rs = np.random.RandomState(1)
    x, w, b = rs.randn(4, 3), rs.randn(3, 5), rs.randn(5)
    check_op(lambda: tf.nn.xw_plus_b(x, w, b), x @ w + b, rtol=1e-12)
    check_op(lambda: tf.nn.l2_loss([1.0, 2.0]), np.float32(2.5), shape=[])
    check_op(lambda: tf.nn.l2_loss(tf.constant(x)), (x * x).sum() / 2, shape=[])
    check_op(lambda: tf.nn.l2_loss(tf.constant([3.0, 4.0], tf.float16)), np.float16(12.5), shape=[])


@pytest.mark.parametrize("shape", [(128, 10000), (3, 4097 * 3), (40000,)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_l2_loss_sums_rows_in_float64(shape, dtype):
    # Large inputs sum squares in rows of 4096 and add the rows in float64: the float32 result is
    # the exact sum rounded, within a few ulp (a float32 running sum of 1.28 M squares is not).
    x = np.random.RandomState(3).randn(*shape).astype(dtype)
    exact = (x.astype(np.float64) ** 2).sum() / 2
    with tf.Session() as s:
        got = s.run(tf.nn.l2_loss(tf.constant(x)))
        strided = s.run(tf.nn.l2_loss(tf.constant(x)[..., ::2]))  # not contiguous: the general path
    assert got.dtype == dtype
    np.testing.assert_allclose(got, exact, rtol=4e-7 if dtype == np.float32 else 1e-14)
    np.testing.assert_allclose(strided, (x[..., ::2].astype(np.float64) ** 2).sum() / 2, rtol=1e-5)


# -- cross-entropies ---------------------------------------------------------------------------------------

def np_softmax_xent(labels, logits, axis=-1):
    return -(np.asarray(labels, np.float64) * np_log_softmax(logits, axis)).sum(axis=axis)


def test_softmax_cross_entropy_matches_numpy_and_tf():
    rs = np.random.RandomState(2)
    logits = rs.randn(4, 5).astype(np.float32) * 3
    labels = np_softmax(rs.randn(4, 5)).astype(np.float32)
    expected = np_softmax_xent(labels, logits).astype(np.float32)
    check_op(lambda: tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits), expected, rtol=1e-5)
    check_op(lambda: tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits), expected, rtol=1e-5)
    # TF figures: class axis 0, rank 3, integer labels (cast), rank 1 (a scalar loss), broadcast labels.
    check_op(lambda: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=[[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], logits=[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], axis=0),
        np.array([4.1429315, 2.1429317], np.float32))
    check_op(lambda: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=[[[1.0, 0.0], [0.0, 1.0]]], logits=[[[1.0, 2.0], [3.0, 5.0]]]),
        np.array([[1.3132616, 0.12692805]], np.float32))
    check_op(lambda: tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.constant([[1, 0]]), logits=[[1.0, 2.0]]),
             np.array([1.3132616], np.float32))
    check_op(lambda: tf.nn.softmax_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[1.0, 2.0]),
             np.float32(1.3132616))
    check_op(lambda: tf.nn.softmax_cross_entropy_with_logits_v2(labels=np.zeros([1, 3], np.float32),
                                                                logits=np.zeros([2, 3], np.float32)),
             np.zeros(2, np.float32))


def test_cross_entropies_are_stable_for_large_logits():
    check_op(lambda: tf.nn.softmax_cross_entropy_with_logits_v2(labels=[[0.0, 1.0]], logits=[[1000.0, 0.0]]),
             np.array([1000.0], np.float32))
    check_op(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1], logits=[[1000.0, 0.0]]),
             np.array([1000.0], np.float32))
    check_op(lambda: tf.nn.sigmoid_cross_entropy_with_logits(labels=[0.0, 1.0, 0.5, 1.0, 0.0],
                                                             logits=[-100.0, 100.0, 0.0, -3.0, 50.0]),
             np.array([0.0, 0.0, 0.6931472, 3.0485873, 50.0], np.float32))  # TF figures


def test_sparse_softmax_cross_entropy():
    rs = np.random.RandomState(3)
    logits = rs.randn(6, 4)
    labels = np.array([0, 3, 1, 2, 2, 0])
    expected = -np_log_softmax(logits)[np.arange(6), labels]
    check_op(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits), expected,
             rtol=1e-12)
    check_op(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([[0, 1]], tf.int64), logits=[[[1.0, 2.0, 3.0], [1.0, 0.0, 0.0]]]),
        np.array([[2.407606, 1.5514446]], np.float32))  # TF figure
    check_op(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=[0, 1], logits=tf.constant([[1.0, 2.0], [3.0, 5.0]], tf.float16)),
        np.array([1.3132616, 0.12692805], np.float16), rtol=1e-3)


@pytest.mark.parametrize("labels,bad", [([0, 5], 5), ([0, -1], -1)])
def test_sparse_label_out_of_range_is_invalid_argument(labels, bad):
    y = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant(labels), logits=zeros([2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=rf"Received a label value of {bad} which is outside the valid range of \[0, 3\)"):
        run(y)


def test_sigmoid_cross_entropy_matches_formula():
    rs = np.random.RandomState(4)
    x, z = rs.randn(3, 4) * 5, rs.rand(3, 4)
    ref = np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))
    check_op(lambda: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), ref, rtol=1e-12)
    direct = -z * np.log(1 / (1 + np.exp(-x))) - (1 - z) * np.log(1 - 1 / (1 + np.exp(-x)))
    np.testing.assert_allclose(ref, direct, rtol=1e-9)


# -- normalization -------------------------------------------------------------------------------------------

def test_moments():
    x = np.random.RandomState(5).randn(4, 3, 2)
    for axes, keep in (([0], False), ([0, 2], False), ([-1], True), ([0, 1, 2], False)):
        mean, var = tf.nn.moments(tf.constant(x), axes, keep_dims=keep)
        want_shape = np.mean(x, axis=tuple(axes), keepdims=keep).shape
        assert mean.shape.as_list() == list(want_shape) == var.shape.as_list()
        m, v = run((mean, var))
        np.testing.assert_allclose(m, x.mean(axis=tuple(axes), keepdims=keep), rtol=1e-12)
        np.testing.assert_allclose(v, x.var(axis=tuple(axes), keepdims=keep), rtol=1e-12)
    # TF figures: integer moments truncate; float16 is computed in float32.
    m, v = run(tf.nn.moments(tf.constant([[1, 2], [3, 5]]), [0]))
    assert m.tolist() == [2, 3] and v.tolist() == [1, 2] and m.dtype == np.int32
    m, v = run(tf.nn.moments(tf.constant([[1, 2], [3, 5]], tf.float16), [0], keepdims=True))
    assert m.tolist() == [[2.0, 3.5]] and v.tolist() == [[1.0, 2.25]] and v.dtype == np.float16


def test_l2_normalize_tf_figures():
    check_op(lambda: tf.nn.l2_normalize([[3.0, 4.0], [0.0, 0.0]], axis=1), np.array([[0.6, 0.8], [0, 0]], np.float32))
    check_op(lambda: tf.nn.l2_normalize([[3.0, 4.0], [0.0, 0.0]]), np.array([[0.6, 0.8], [0, 0]], np.float32))
    check_op(lambda: tf.nn.l2_normalize([[3.0, 4.0]], dim=[0, 1], epsilon=100.0),
             np.array([[0.3, 0.4]], np.float32))


def test_batch_normalization():
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    args = [tf.constant([1.0, 2.0]), tf.constant([4.0, 1.0]), tf.constant([0.5, 0.0]), tf.constant([2.0, 3.0])]
    check_op(lambda: tf.nn.batch_normalization(x, *args, 1e-3),
             np.array([[0.5, 0.0], [2.4997501, 5.9970026]], np.float32))  # TF figure
    check_op(lambda: tf.nn.batch_normalization(x, 1.0, 4.0, None, None, 0.0), (x - 1) / 2)


# -- in_top_k ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("predictions,targets,k,expected", [  # TF figures
    ([[1.0, 1.0, 1.0], [1.0, 2.0, 2.0], [1.0, np.nan, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], [0, 1, 2, 5, -1], 1,
     [True, True, False, False, False]),
    ([[1.0, 2.0, 2.0, 3.0], [3.0, 2.0, 2.0, 1.0]], [1, 2], 2, [True, True]),
    ([[1.0, 2.0, 2.0, 3.0], [3.0, 2.0, 2.0, 1.0]], [1, 2], 0, [False, False]),
    ([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]], np.array([0, 0], np.int64), 3, [True, True]),
])
def test_in_top_k(predictions, targets, k, expected):
    check_op(lambda: tf.nn.in_top_k(predictions, targets, k), np.array(expected))


# -- dropout --------------------------------------------------------------------------------------------

def test_dropout_keeps_fraction_and_scales():
    x = tf.constant(np.full([100, 100], 3.0, np.float32))
    y = tf.nn.dropout(x, keep_prob=0.25)
    value = run(y)
    assert y.shape.as_list() == [100, 100] and value.dtype == np.float32
    kept = value != 0
    assert set(np.unique(value).tolist()) == {0.0, 12.0}
    assert abs(kept.mean() - 0.25) < 0.03


def test_dropout_rate_seed_noise_shape_and_placeholder_keep_prob():
    x = tf.constant(np.ones([200, 50]))
    tf.set_random_seed(3)
    y = tf.nn.dropout(x, rate=0.5, noise_shape=[200, 1], seed=7)
    a = run(y)
    assert a.dtype == np.float64
    assert all(len(set(row.tolist())) == 1 for row in a)  # whole rows kept or dropped
    np.testing.assert_array_equal(a, run(y))  # a new session repeats the seeded sequence
    keep = tf.placeholder(tf.float64, [])
    z = tf.nn.dropout(x, keep)
    np.testing.assert_array_equal(run(z, {keep: 1.0}), np.ones([200, 50]))
    assert abs((run(z, {keep: 0.5}) != 0).mean() - 0.5) < 0.03


def test_dropout_without_dropping_returns_x():
    x = tf.placeholder(tf.float32, [2])
    assert tf.nn.dropout(x, keep_prob=1.0) is x
    assert tf.nn.dropout(x, rate=0.0) is x
    assert tf.nn.dropout(x, rate=tf.constant(0.0)) is x


# -- errors ---------------------------------------------------------------------------------------------

ERRORS = [
    (lambda: tf.nn.elu(tf.constant([1, 2])), TypeError, "DataType int32 not in list of allowed values"),
    (lambda: tf.nn.relu(tf.constant([True])), TypeError, "DataType bool not in list"),
    (lambda: tf.nn.softmax(tf.constant([1, 2])), TypeError, "parameter 'logits' has DataType int32"),
    (lambda: tf.nn.softmax(tf.constant(1.0)), ValueError, "Shape must be at least rank 1 but is rank 0"),
    (lambda: tf.nn.softmax(zeros([2, 3]), axis=2), tf.errors.InvalidArgumentError,
     r"`dim` must be in the range \[-2, 2\)"),
    (lambda: tf.nn.softmax(zeros([2, 3]), axis=1, dim=1), ValueError, "Cannot specify both 'axis' and 'dim'"),
    (lambda: tf.nn.l2_loss(tf.constant([1, 2])), TypeError, "parameter 't' has DataType int32"),
    (lambda: tf.nn.bias_add(zeros([2, 3]), zeros([4])), ValueError, "Dimensions must be equal, but are 3 and 4"),
    (lambda: tf.nn.bias_add(zeros([2, 3]), zeros([1, 3])), ValueError, "Shape must be rank 1 but is rank 2"),
    (lambda: tf.nn.bias_add(zeros([3]), zeros([3])), ValueError, "Shape must be at least rank 2 but is rank 1"),
    (lambda: tf.nn.bias_add(zeros([1, 2]), zeros([2]), data_format="NCHW"), ValueError, "at least rank 3"),
    (lambda: tf.nn.bias_add(zeros([2, 3]), zeros([3], np.float64)), ValueError, "requested dtype float32"),
    (lambda: tf.nn.xw_plus_b(zeros([2, 3]), zeros([3, 4]), zeros([5])), ValueError,
     "Dimensions must be equal, but are 4 and 5"),
    (lambda: tf.nn.softmax_cross_entropy_with_logits(zeros([2, 3]), zeros([2, 3])), ValueError,
     "Only call `softmax_cross_entropy_with_logits` with named arguments"),
    (lambda: tf.nn.softmax_cross_entropy_with_logits(labels=zeros([2, 3])), ValueError,
     "Both labels and logits must be provided"),
    (lambda: tf.nn.softmax_cross_entropy_with_logits_v2(labels=zeros([2, 4]), logits=zeros([2, 3])), ValueError,
     "Dimensions must be equal, but are 3 and 4"),
    (lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([[0, 1]]), logits=zeros([2, 3])),
     ValueError, r"Rank mismatch: Rank of labels \(received 2\) should equal rank of logits minus 1"),
    (lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0, 1, 2]), logits=zeros([2, 3])),
     ValueError, "Shape mismatch"),
    (lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0.0, 1.0], logits=zeros([2, 3])),
     TypeError, "parameter 'labels' has DataType float32"),
    (lambda: tf.nn.sigmoid_cross_entropy_with_logits(labels=zeros([2, 4]), logits=zeros([2, 3])), ValueError,
     "`logits` and `labels` must have the same shape"),
    (lambda: tf.nn.sigmoid_cross_entropy_with_logits(labels=zeros([2, 3], np.float64), logits=zeros([2, 3])),
     TypeError, "float64"),
    (lambda: tf.nn.in_top_k(zeros([2, 3], np.float64), [0, 1], 1), TypeError,
     "Input 'predictions' of 'InTopKV2' Op has type float64"),
    (lambda: tf.nn.in_top_k([1.0, 2.0], [1], 1), ValueError, "Shape must be rank 2 but is rank 1"),
    (lambda: tf.nn.in_top_k([[1.0, 2.0]], [1, 0], 1), ValueError, "Dimensions must be equal, but are 1 and 2"),
    (lambda: tf.nn.in_top_k([[1.0, 2.0]], tf.constant([1], tf.int64), tf.constant(1)), TypeError,
     "Input 'k' of 'InTopKV2' Op has type int32 that does not match type int64"),
    (lambda: tf.nn.l2_normalize([[3, 4]], axis=1), TypeError, "DataType int32"),
    (lambda: tf.nn.l2_normalize([[3.0, 4.0]], axis=2), ValueError, "Invalid reduction dimension 2"),
    (lambda: tf.nn.moments(zeros([2, 3]), [2]), ValueError, "Invalid reduction dimension 2"),
    (lambda: tf.nn.dropout(tf.constant([1, 2]), rate=0.5), ValueError, "x has to be a floating point tensor"),
    (lambda: tf.nn.dropout(zeros([2]), rate=1.0), ValueError, r"in the range \[0, 1\), got 1"),
    (lambda: tf.nn.dropout(zeros([2]), keep_prob=0.0), ValueError, r"in the range \[0, 1\), got 1"),
    (lambda: tf.nn.dropout(zeros([2])), ValueError, "You must provide a rate to dropout"),
    (lambda: tf.nn.dropout(zeros([2]), keep_prob=0.5, rate=0.5), ValueError, "Cannot specify both"),
    (lambda: tf.nn.dropout(zeros([2]), rate=tf.constant([0.5, 0.5])), ValueError, "must have rank 0"),
    (lambda: tf.nn.dropout(zeros([2, 3]), rate=0.5, noise_shape=[2, 2]), ValueError, "Dimensions must be equal"),
]


@pytest.mark.parametrize("build,error,match", ERRORS)
def test_errors(build, error, match):
    with pytest.raises(error, match=match):
        build()
