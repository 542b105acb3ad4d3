"""tf.nn extras: activations, normalization and block rearrangements, against
figures from TF 2.15 (compat.v1, graph mode), finite-difference gradients,
and TF1's errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.gradcheck import check_gradients
from tests.ops.harness import check_op, run

X = np.round(np.random.RandomState(0).randn(2, 3, 2, 4).astype(np.float32), 2)
W = np.linspace(-1, 1, 48).reshape(X.shape).astype(np.float32)
SCALE = np.array([1.0, 2.0, 0.5, -1.0], np.float32)
OFFSET = np.array([0.1, 0.0, -0.2, 0.3], np.float32)
MEAN = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
VAR = np.array([1.0, 2.0, 0.5, 0.25], np.float32)
XS = np.array([[-1.0, 2.0, 0.5]], np.float32)
R64 = np.random.default_rng(1)


def f32(*rows):
    return np.array(rows, np.float32)


# -- activations ------------------------------------------------------------------------------

ACTIVATIONS = [
    ("crelu", lambda: tf.nn.crelu(XS), f32([0.0, 2.0, 0.5, 1.0, 0.0, 0.0])),
    ("crelu_axis0", lambda: tf.nn.crelu(XS, axis=0), f32([0.0, 2.0, 0.5], [1.0, 0.0, 0.0])),
    ("swish", lambda: tf.nn.swish(XS), f32([-0.26894143, 1.7615942, 0.31122968])),
    ("silu_beta", lambda: tf.nn.silu(XS, beta=2.0), f32([-0.11920292, 1.9640275, 0.3655293])),
    ("relu_layer", lambda: tf.nn.relu_layer(XS, np.array([[1, -1]] * 3, np.float32), np.array([0.5, 0.25], np.float32)),
     f32([2.0, 0.0])),
    ("nn.sigmoid", lambda: tf.nn.sigmoid(XS), 1 / (1 + np.exp(-XS))),
    ("nn.tanh", lambda: tf.nn.tanh(XS), np.tanh(XS)),
]


@pytest.mark.parametrize("build,expected", [a[1:] for a in ACTIVATIONS], ids=[a[0] for a in ACTIVATIONS])
def test_activations_match_tf(build, expected):
    check_op(build, expected, rtol=1e-6)


def test_activation_names_follow_tf():
    assert tf.nn.crelu(XS).name == "CRelu/Relu:0"
    assert tf.nn.relu_layer(XS, np.ones((3, 2), np.float32), np.zeros(2, np.float32)).name == "relu_layer:0"
    assert tf.nn.sigmoid is tf.sigmoid and tf.nn.tanh is tf.tanh and tf.nn.silu is tf.nn.swish


def test_activation_gradients():
    x = R64.standard_normal((3, 4))
    check_gradients(lambda t: tf.nn.crelu(t), x)
    check_gradients(lambda t: tf.nn.swish(t, beta=1.5), x)
    check_gradients(lambda t, w, b: tf.nn.relu_layer(t, w, b), x, R64.standard_normal((4, 2)),
                    R64.standard_normal(2))


# -- normalization ------------------------------------------------------------------------------

LRN_OUT = f32([0.8913153, 0.18652694, 0.39653334, 0.9162514], [0.8554118, -0.41866976, 0.5513606, -0.09743928])
LRN_GRAD = f32([-0.11824985, -0.20206493, 0.0129303, 0.01091987], [-0.17211074, -0.44698963, -0.25542733, -0.46739265])
LRN_GRAD_LAST = f32([0.16659099, 0.16303875, 0.15866353, 0.3373997], [0.40152055, 0.46343726, 0.32378086, 0.71714336])


def test_lrn_and_its_gradient_match_tf():
    y = tf.nn.lrn(X, depth_radius=1, bias=1.5, alpha=0.3, beta=0.75)
    assert y.op.type == "LRN" and tf.nn.local_response_normalization is tf.nn.lrn
    np.testing.assert_allclose(run(y)[0, 0], LRN_OUT, rtol=1e-5)
    t = tf.constant(X)
    g = tf.gradients(tf.reduce_sum(tf.nn.lrn(t, 2, 1.0, 0.5, 0.6) * W), t)[0]
    assert g.op.type == "LRNGrad"
    value = run(g)
    np.testing.assert_allclose(value[0, 0], LRN_GRAD, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(value[1, 2], LRN_GRAD_LAST, rtol=1e-5, atol=1e-6)


def test_lrn_gradient_matches_finite_differences():
    check_gradients(lambda t: tf.nn.lrn(t, 1, 0.5, 0.7, 0.8), R64.standard_normal((1, 2, 2, 5)))


FBN_TRAIN = (f32([0.9972091, 1.1171025, 0.40205592, -1.5900202], [1.0745648, -1.5143652, 0.3833391, 0.89420426]),
             f32(0.48416662, -0.18583333, 0.01500003, 0.42166662), f32(2.2048264, 1.1989902, 0.69957274, 1.0086334))
FBN_INFER = (f32([-0.8850868, -3.0753071, -0.655091, 0.77067876], [1.2243919, 1.4106913, -0.6830966, 1.6728132]),
             MEAN, VAR)


def test_fused_batch_norm_training_uses_batch_statistics_and_returns_corrected_variance():
    y, m, v = tf.nn.fused_batch_norm(X, SCALE, OFFSET)
    assert [t.name for t in (y, m, v)] == ["FusedBatchNormV3:0", "FusedBatchNormV3:1", "FusedBatchNormV3:2"]
    got = run([y, m, v])
    for a, b in zip((got[0][0, 0], got[1], got[2]), FBN_TRAIN):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_fused_batch_norm_inference_and_formats_match_tf():
    y, m, v = tf.nn.fused_batch_norm(X, SCALE, OFFSET, mean=MEAN, variance=VAR, is_training=False, epsilon=0.01)
    got = run([y, m, v])
    for a, b in zip((got[0][1, 1], got[1], got[2]), FBN_INFER):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    y, m, v = tf.nn.fused_batch_norm(X, SCALE[:3], OFFSET[:3], data_format="NCHW")
    got = run([y, m, v])
    np.testing.assert_allclose(got[0][0, :, 0, 0], [1.0773284, -0.57856584, 0.5534011], rtol=1e-5)
    np.testing.assert_allclose(got[1], [0.70500004, 0.13937499, -0.29312503], rtol=1e-5)
    np.testing.assert_allclose(got[2], [1.2418799, 0.72929966, 1.4926897], rtol=1e-5)
    _, m, v = tf.nn.fused_batch_norm(X, SCALE, OFFSET, mean=MEAN, variance=VAR, exponential_avg_factor=0.3)
    got = run([m, v])
    np.testing.assert_allclose(got[0], [0.21524999, 0.08425, 0.21450001, 0.40649998], rtol=1e-5)
    np.testing.assert_allclose(got[1], [1.3614478, 1.7596971, 0.5598718, 0.47759002], rtol=1e-5)


@pytest.mark.parametrize("training,expected", [
    (True, (f32([-0.51595217, -1.6754601, -0.2023361, 0.8858956], [-0.38397586, -1.6092669, -0.10800904, 0.82356423]),
            f32(-2.7081976, -1.235808, -6.0976825, -0.53253925))),
    (False, (f32([-0.9995004, -1.353696, -0.64628154, 1.7412021], [-0.8293727, -1.1130389, -0.5260431, 1.4014553]),
             f32(-4.1432486, -0.8466616, -7.006894, -0.98951256))),
])
def test_fused_batch_norm_gradients_match_tf(training, expected):
    t, s, o = tf.constant(X), tf.constant(SCALE), tf.constant(OFFSET)
    y, _, _ = tf.nn.fused_batch_norm(t, s, o, mean=None if training else MEAN, variance=None if training else VAR,
                                     is_training=training)
    g = tf.gradients(tf.reduce_sum(y * W), [t, s, o])
    assert g[0].op.type == "FusedBatchNormGradV3"
    got = run(g)
    np.testing.assert_allclose(got[0][0, 0], expected[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[2], [-0.76595783, -0.25531936, 0.25531888, 0.7659571], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("training", [True, False])
def test_fused_batch_norm_gradient_matches_finite_differences(training):
    x = R64.standard_normal((2, 2, 3, 3)).astype(np.float32)
    kw = {} if training else {"mean": MEAN[:3], "variance": VAR[:3], "is_training": False}
    check_gradients(lambda t, s, o: tf.nn.fused_batch_norm(t, s, o, **kw)[0], x, SCALE[:3], OFFSET[:3],
                    eps=1e-2, rtol=2e-2, atol=1e-2)


def test_fused_batch_norm_bad_input():
    with pytest.raises(TypeError, match="'x' has DataType float64"):
        tf.nn.fused_batch_norm(X.astype(np.float64), SCALE, OFFSET)
    with pytest.raises(ValueError, match="must be rank 4 but is rank 3"):
        tf.nn.fused_batch_norm(X[0], SCALE, OFFSET)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 4 and 3"):
        tf.nn.fused_batch_norm(X, SCALE[:3], OFFSET[:3])
    with pytest.raises(ValueError, match="data_format"):
        tf.nn.fused_batch_norm(X, SCALE, OFFSET, data_format="NWHC")
    with pytest.raises(ValueError, match="`mean` and `variance` must be a 1D tensor"):
        tf.nn.fused_batch_norm(X, SCALE, OFFSET, is_training=False)
    with pytest.raises(ValueError, match="must be rank 4 but is rank 3"):
        tf.nn.lrn(X[0])


def test_moment_helpers_match_tf():
    counts, m_ss, v_ss, shift = tf.nn.sufficient_statistics(X, [0, 1], shift=0.5)
    assert [t.name for t in (counts, m_ss, v_ss)] == [
        "sufficient_statistics/Const:0", "sufficient_statistics/mean_ss:0", "sufficient_statistics/var_ss:0"]
    got = run([counts, m_ss, v_ss])
    assert got[0] == 6.0
    np.testing.assert_allclose(got[1], [[0.48000026, -7.25, -3.58, 1.7600001],
                                        [-0.66999996, -0.97999996, -2.24, -2.6999998]], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], [[10.3952, 14.161501, 6.2052, 8.4468],
                                        [13.860899, 4.6718006, 4.3128, 2.7217999]], rtol=1e-5)
    assert tf.nn.sufficient_statistics(X, [2], keep_dims=True)[1].shape.as_list() == [2, 3, 1, 4]
    mean, var = tf.nn.normalize_moments(4.0, [2.0, 3.0], [5.0, 9.0], 0.5)
    assert (mean.name, var.name) == ("normalize/mean:0", "normalize/variance:0")
    np.testing.assert_allclose(run([mean, var]), [[1.0, 1.25], [1.0, 1.6875]])
    np.testing.assert_allclose(run(list(tf.nn.normalize_moments(4.0, [2.0, 3.0], [5.0, 9.0], None))),
                               [[0.5, 0.75], [1.0, 1.6875]])
    fw = np.array([[1.0], [2.0], [0.0]], np.float32)
    mean, var = tf.nn.weighted_moments(X[0, :, :, 0], [0], fw)
    assert (mean.name, var.name) == ("weighted_moments/Squeeze:0", "weighted_moments/Squeeze_1:0")
    np.testing.assert_allclose(run([mean, var]), [[0.52, 1.13], [0.7688, 0.27380002]], rtol=1e-5)
    mean, var = tf.nn.weighted_moments(X[0, :, :, 0], [0, 1], fw, keep_dims=True)
    np.testing.assert_allclose(run([mean, var]), [[[0.825]], [[0.61432505]]], rtol=1e-5)


def test_batch_norm_with_global_normalization_matches_tf():
    y = tf.nn.batch_norm_with_global_normalization(X, MEAN, VAR, OFFSET, SCALE, 0.01, True)
    np.testing.assert_allclose(run(y)[0, 0], [[1.7517617, 0.28213826, 0.27609518, -3.308537],
                                              [1.8612157, -1.6646158, 0.25509098, 1.3786387]], rtol=1e-5)
    y = tf.nn.batch_norm_with_global_normalization(X, MEAN, VAR, OFFSET, SCALE, 0.01, False)
    np.testing.assert_allclose(run(y)[0, 0], [[1.7517617, 0.14106913, 0.75219035, 3.908537],
                                              [1.8612157, -0.8323079, 0.71018195, -0.7786387]], rtol=1e-5)


# -- block rearrangements ------------------------------------------------------------------------

AR = np.arange(1 * 4 * 4 * 2).reshape(1, 4, 4, 2).astype(np.float32)

RESHAPES = [
    ("space_to_depth", lambda: tf.space_to_depth(AR, 2), "SpaceToDepth:0", (1, 2, 2, 8),
     [0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18, 19, 24, 25, 26, 27, 20, 21, 22, 23, 28, 29,
      30, 31]),
    ("depth_to_space", lambda: tf.nn.depth_to_space(np.arange(16).reshape(1, 1, 2, 8).astype(np.float32), 2),
     "DepthToSpace:0", (1, 2, 4, 2), [0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15]),
    ("space_to_batch_nd", lambda: tf.space_to_batch_nd(np.arange(1, 13).reshape(2, 3, 2, 1).astype(np.float32),
                                                       [2, 2], [[1, 0], [0, 2]]),
     "SpaceToBatchND:0", (8, 2, 2, 1), [0, 0, 3, 0, 0, 0, 9, 0, 0, 0, 4, 0, 0, 0, 10, 0, 1, 0, 5, 0, 7, 0, 11, 0, 2,
                                        0, 6, 0, 8, 0, 12, 0]),
    ("batch_to_space_nd", lambda: tf.batch_to_space_nd(np.arange(1, 17).reshape(8, 1, 2, 1).astype(np.float32),
                                                       [2, 4], [[0, 1], [1, 2]]),
     "BatchToSpaceND:0", (1, 1, 5, 1), [3, 5, 7, 2, 4]),
    ("space_to_batch_nd_1d", lambda: tf.manip.space_to_batch_nd(np.arange(1, 7).reshape(1, 6, 1).astype(np.int32),
                                                                [3], [[1, 2]]),
     "SpaceToBatchND:0", (3, 3, 1), [0, 3, 6, 1, 4, 0, 2, 5, 0]),
    ("space_to_batch", lambda: tf.nn.space_to_batch(np.arange(1, 17).reshape(1, 4, 4, 1).astype(np.float32),
                                                    [[0, 0], [0, 0]], block_size=2),
     "SpaceToBatchND:0", (4, 2, 2, 1), [1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16]),
    ("batch_to_space", lambda: tf.batch_to_space(np.arange(1, 17).reshape(4, 2, 2, 1).astype(np.float32),
                                                 [[0, 0], [1, 1]], block_size=2),
     "BatchToSpaceND:0", (1, 4, 2, 1), [5, 2, 13, 10, 7, 4, 15, 12]),
]


@pytest.mark.parametrize("build,name,shape,expected", [r[1:] for r in RESHAPES], ids=[r[0] for r in RESHAPES])
def test_block_rearrangements_match_tf(build, name, shape, expected):
    t = build()
    assert t.name == name
    check_op(lambda: t, np.asarray(expected, t.dtype.as_numpy_dtype).reshape(shape))


def test_nchw_space_to_depth_is_nhwc_transposed():
    nchw = np.transpose(AR, (0, 3, 1, 2))
    got = run(tf.space_to_depth(nchw, 2, data_format="NCHW"))
    np.testing.assert_array_equal(got, np.transpose(run(tf.space_to_depth(AR, 2)), (0, 3, 1, 2)))
    np.testing.assert_array_equal(run(tf.depth_to_space(got, 2, data_format="NCHW")), nchw)


def conv_with_space_to_batch(inp, rate, padding):
    filt = np.ones((2, 2, 1, 1), np.float32)
    return tf.nn.with_space_to_batch(inp, rate, padding, lambda c, n, pad: tf.nn.conv2d(c, filt, [1, 1, 1, 1], pad),
                                     filter_shape=[2, 2])


def test_with_space_to_batch_and_required_paddings_match_tf():
    got = run(conv_with_space_to_batch(np.arange(1, 26).reshape(1, 5, 5, 1).astype(np.float32), [2, 2], "SAME"))
    np.testing.assert_array_equal(got.ravel(), [7, 14, 16, 18, 9, 14, 28, 32, 36, 18, 24, 48, 52, 56, 28, 34, 68, 72,
                                                76, 38, 17, 34, 36, 38, 19])
    got = run(conv_with_space_to_batch(np.arange(1, 43).reshape(1, 6, 7, 1).astype(np.float32), [2, 3], "VALID"))
    np.testing.assert_array_equal(got.ravel(), [38, 42, 46, 50, 66, 70, 74, 78, 94, 98, 102, 106, 122, 126, 130, 134])
    paddings, crops = tf.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0], [0, 2]])
    np.testing.assert_array_equal(run([paddings, crops]), [[[1, 0], [0, 2]], [[0, 0], [0, 0]]])
    shape = tf.placeholder_with_default(np.array([5, 7], np.int32), [2])
    paddings, crops = tf.required_space_to_batch_paddings(shape, [2, 4], [[1, 0], [0, 2]])
    np.testing.assert_array_equal(run([paddings, crops]), [[[1, 0], [0, 5]], [[0, 0], [0, 3]]])


@pytest.mark.parametrize("fn,shape", [
    (lambda t: tf.space_to_depth(t, 2), (2, 4, 6, 3)),
    (lambda t: tf.depth_to_space(t, 2, data_format="NCHW"), (2, 8, 2, 3)),
    (lambda t: tf.space_to_batch_nd(t, [2, 3], [[1, 1], [0, 3]]), (2, 4, 6, 3)),
    (lambda t: tf.batch_to_space_nd(t, [2, 1], [[1, 0], [0, 0]]), (2, 4, 6, 3)),
])
def test_block_rearrangement_gradients(fn, shape):
    check_gradients(fn, R64.standard_normal(shape))


@pytest.mark.parametrize("build,match", [
    (lambda: tf.space_to_depth(AR, 1), "Attr 'block_size' of 'SpaceToDepth' Op passed 1 less than minimum 2"),
    (lambda: tf.space_to_depth(AR[:, :3], 2), "evenly divisible by 2 but is 3.*SpaceToDepth"),
    (lambda: tf.space_to_depth(AR[0], 2), "Shape must be rank 4 but is rank 3"),
    (lambda: tf.space_to_depth(AR, 2, data_format="NCWH"), "Attr 'data_format' of 'SpaceToDepth' Op passed"),
    (lambda: tf.depth_to_space(np.zeros((1, 2, 2, 3)), 2), "evenly divisible by 4 but is 3.*DepthToSpace"),
    (lambda: tf.space_to_batch_nd(AR, [3, 3], [[0, 0], [0, 0]]), "evenly divisible by 3 but is 4"),
    (lambda: tf.space_to_batch_nd(AR, [2, 2], [[-1, 1], [0, 0]]), "paddings cannot be negative"),
    (lambda: tf.space_to_batch_nd(AR, [0, 2], [[0, 0], [0, 0]]), "block_shape must be positive"),
    (lambda: tf.space_to_batch_nd(AR[0, 0], [2, 2], [[0, 0], [0, 0]]), "at least rank 3 but is rank 2"),
    (lambda: tf.space_to_batch_nd(AR, [2, 2], [[0, 0, 0], [0, 0, 0]]), "Dimension 1 in both shapes must be equal"),
    (lambda: tf.batch_to_space_nd(AR, [3, 1], [[0, 0], [0, 0]]), "evenly divisible by 3 but is 1"),
    (lambda: tf.batch_to_space_nd(AR, [1, 1], [[5, 5], [0, 0]]), "Negative dimension size caused by subtracting 5"),
])
def test_block_rearrangement_errors_at_graph_time(build, match):
    with pytest.raises(ValueError, match=match):
        build()


@pytest.mark.parametrize("build,value,match", [
    (lambda p: tf.space_to_depth(p, 2), np.zeros((2, 3, 6, 3)), "Image width 6 and height 3 should be divisible by "
                                                                "block_size: 2"),
    (lambda p: tf.depth_to_space(p, 2), np.zeros((2, 3, 6, 3)), "Input depth dimension 3 should be divisible by: 4"),
    (lambda p: tf.space_to_batch_nd(p, [3, 3], [[0, 0], [0, 0]]), np.zeros((2, 4, 6, 3)),
     r"padded_shape\[0\]=4 is not divisible by block_shape\[0\]=3"),
    (lambda p: tf.batch_to_space_nd(p, [3, 1], [[0, 0], [0, 0]]), np.zeros((2, 4, 6, 3)),
     r"Input batch dimension \(2\) is not divisible by product of block sizes \(3\)"),
    (lambda p: tf.batch_to_space_nd(p, [2, 1], [[5, 5], [0, 0]]), np.zeros((2, 4, 6, 3)),
     r"cropped_shape\[0\]=-2 must be non-negative"),
])
def test_block_rearrangement_errors_at_run_time(build, value, match):
    p = tf.placeholder(tf.float32, None)
    t = build(p)
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        run(t, {p: value})


# -- checks of older tf.nn names against TF 2.15 ---------------------------------------------------


def test_bias_add_takes_tf1_layout_spellings():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2) / 10
    got = run(tf.nn.bias_add(x, np.array([1.0, -1.0], np.float32), data_format="NWHC"))  # TF: N...C is NHWC
    np.testing.assert_allclose(got.ravel()[:4], [1.0, -0.9, 1.2, -0.7], rtol=1e-6)
    got = run(tf.nn.bias_add(np.ones((1, 3, 2, 2, 2), np.float32), [1.0, -1.0, 0.5], data_format="NCDHW"))
    np.testing.assert_allclose(got[0, :, 0, 0, 0], [2.0, 0.0, 1.5])
    with pytest.raises(ValueError, match="`data_format` must be of the form `N...C` or `NC...`"):
        tf.nn.bias_add(x, [1.0, 2.0], data_format="HWCN")


def test_in_top_k_converts_float_values_as_tf():
    predictions = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])  # float64 values become the op's float32
    np.testing.assert_array_equal(run(tf.nn.in_top_k(predictions, [0, 2], 1)), [False, True])


WSB_X = np.arange(1, 1 + 2 * 7 * 5 * 3).reshape(2, 7, 5, 3).astype(np.float32)
WSB_FILTER = np.ones((3, 2, 3, 1), np.float32)


def conv_op(c, n, pad):
    return tf.nn.conv2d(c, WSB_FILTER, [1, 1, 1, 1], pad)


# TF 2.15 figures: output shape, sum and first six values.
WITH_SPACE_TO_BATCH = [
    ("conv_filter_shape_4d", lambda: tf.nn.with_space_to_batch(WSB_X, [2, 2], "SAME", conv_op,
                                                               filter_shape=WSB_FILTER.shape),
     (2, 7, 5, 1), 86088.0, [120.0, 240.0, 276.0, 312.0, 156.0, 210.0]),
    ("pool_valid", lambda: tf.nn.with_space_to_batch(
        WSB_X, [3, 2], "VALID", lambda c, n, p: tf.nn.avg_pool(c, [1, 2, 2, 1], [1, 1, 1, 1], p), filter_shape=[2, 2]),
     (2, 4, 3, 3), 7596.0, [26.5, 27.5, 28.5, 29.5, 30.5, 31.5]),
    ("spatial_dims_1", lambda: tf.nn.with_space_to_batch(WSB_X, [3], "SAME", lambda c, n, p: c[:, 1:] + c[:, :-1],
                                                         filter_shape=[2], spatial_dims=[1]),
     (2, 7, 5, 3), 35715.0, [31.0, 32.0, 33.0, 34.0, 35.0, 36.0]),
    ("spatial_dims_2", lambda: tf.nn.with_space_to_batch(WSB_X, [2], "SAME", lambda c, n, p: c[:, :, 1:] + c[:, :, :-1],
                                                         filter_shape=[2], spatial_dims=[2]),
     (2, 7, 5, 3), 35448.0, [4.0, 5.0, 6.0, 8.0, 10.0, 12.0]),
    ("nchw", lambda: tf.nn.with_space_to_batch(np.transpose(WSB_X, (0, 3, 1, 2)), [2, 2], "SAME",
                                               lambda c, n, p: c[:, :, 1:, 1:] + c[:, :, :-1, :-1],
                                               filter_shape=[2, 2], data_format="NCHW"),
     (2, 3, 7, 5), 30384.0, [19.0, 22.0, 25.0, 28.0, 0.0, 34.0]),
    ("unknown_shape", lambda: tf.nn.with_space_to_batch(tf.placeholder_with_default(WSB_X, [None, None, None, 3]),
                                                        [2, 2], "SAME", conv_op, filter_shape=WSB_FILTER.shape),
     (2, 7, 5, 1), 86088.0, [120.0, 240.0, 276.0, 312.0, 156.0, 210.0]),
    ("unit_rate", lambda: tf.nn.with_space_to_batch(WSB_X, [1, 1], "SAME", conv_op, filter_shape=WSB_FILTER.shape),
     (2, 7, 5, 1), 108927.0, [132.0, 168.0, 204.0, 240.0, 129.0, 333.0]),
]


@pytest.mark.parametrize("build,shape,total,head", [c[1:] for c in WITH_SPACE_TO_BATCH],
                         ids=[c[0] for c in WITH_SPACE_TO_BATCH])
def test_with_space_to_batch_layouts_match_tf(build, shape, total, head):
    got = run(build())
    assert got.shape == shape
    assert float(got.sum()) == total
    np.testing.assert_array_equal(got.ravel()[:6], head)


@pytest.mark.parametrize("kwargs,match", [
    ({"spatial_dims": [2, 1]}, "`spatial_dims` must be a monotonically increasing sequence"),
    ({"filter_shape": None}, "`filter_shape` must be specified for `padding='SAME'`"),
])
def test_with_space_to_batch_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        tf.nn.with_space_to_batch(WSB_X, [2, 2], "SAME", lambda c, n, p: c, **{"filter_shape": [2, 2], **kwargs})
    with pytest.raises(ValueError, match=r"`input.shape.rank` must be at least 3. Received: input.shape=\(5, 3\)"):
        tf.nn.with_space_to_batch(WSB_X[0, 0], [2, 2], "SAME", lambda c, n, p: c, filter_shape=[2, 2])


def test_block_ops_with_fed_paddings_keep_the_known_batch():
    paddings = tf.placeholder(tf.int32, [2, 2])
    t = tf.space_to_batch(tf.constant(np.arange(16.0).reshape(1, 4, 4, 1)), paddings, 2)
    assert t.shape.as_list() == [4, None, None, 1]
    back = tf.batch_to_space(t, paddings, 2)
    assert back.shape.as_list() == [1, None, None, 1]
    got = run([t, back], {paddings: [[1, 1], [0, 2]]})
    assert got[0].shape == (4, 3, 3, 1)
    np.testing.assert_array_equal(got[1], np.arange(16.0).reshape(1, 4, 4, 1))
    check_gradients(lambda a: tf.space_to_batch_nd(a, tf.constant([2, 2]), tf.constant([[1, 1], [0, 0]])),
                    R64.standard_normal((1, 4, 4, 2)))


def test_fused_batch_norm_5d_and_half_precision():
    x = R64.standard_normal((2, 3, 2, 2, 4)).astype(np.float32)
    _, mean, var = tf.nn.fused_batch_norm(x, np.ones(4, np.float32), np.zeros(4, np.float32), data_format="NDHWC")
    got = run([mean, var])
    np.testing.assert_allclose(got[0], x.reshape(-1, 4).mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], x.reshape(-1, 4).var(0, ddof=1), rtol=1e-5)
    y, mean, _ = tf.nn.fused_batch_norm(x[0].astype(np.float16), np.ones(4, np.float32), np.zeros(4, np.float32))
    assert (y.dtype, mean.dtype) == (tf.float16, tf.float32) and run(y).dtype == np.float16


@pytest.mark.parametrize("data_format,training,expected", [
    ("NHWC", True, ([-3.0910001, 36.2507019, -1.4447, 1.4341], [67.5849, -2.1286, -4.9737],
                    [-0.0145, 0.2759, -0.0056])),
    ("NHWC", False, ([-0.4927, 0.73, 0.1397, 0.939], [111.2709, 8.9167, 39.6451], [-20.2849, 6.3654, -21.1861])),
    ("NCHW", True, ([-3.091, 1.4341, 6.7064, 7.9673], [67.5849, -2.1286, -4.9737], [-0.0145, 0.2759, -0.0056])),
])
def test_fused_batch_norm_second_derivatives_match_tf(data_format, training, expected):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 2, 3)).astype(np.float32)
    u = rng.standard_normal((2, 3, 2, 3)).astype(np.float32)
    if data_format == "NCHW":
        x, u = np.transpose(x, (0, 3, 1, 2)), np.transpose(u, (0, 3, 1, 2))
    kw = {} if training else {"mean": MEAN[:3], "variance": VAR[:3], "is_training": False}
    t, s, o = (tf.constant(np.array(v, np.float32)) for v in (x, [1.0, 2.0, -0.5], [0.1, 0.0, 0.3]))
    y = tf.nn.fused_batch_norm(t, s, o, data_format=data_format, **kw)[0]
    grad_x = tf.gradients(tf.reduce_sum(y * y * y), t)[0]
    got = run(tf.gradients(tf.reduce_sum(grad_x * u), [t, s, o]))
    np.testing.assert_allclose(got[0].ravel()[:4], expected[0], rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(got[2], expected[2], rtol=1e-3, atol=1e-3)
