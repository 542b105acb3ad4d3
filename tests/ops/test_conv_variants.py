"""tf.nn's conv and pool variants (conv1d/3d, transposes, depthwise, separable, atrous,
convolution, pool, 1-D/3-D pools, max_pool_with_argmax, extract_*_patches) against TF 2.15
figures (compat.v1, CPU), and their gradients against finite differences.

The cases live in conv_variant_cases.py; /tmp/ref/layers/conv_ref.py ran them under TF and
printed EXPECTED: per case the output op's name, the output's fingerprint and those of the
gradients of ``sum(y * cos(arange))`` with respect to the case's inputs."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.conv_variant_cases import arr, build_cases, fingerprint
from tests.ops.gradcheck import check_gradients
from tests.ops.harness import run

EXPECTED = {
    "argmax_index": ("Cast", [[2, 3, 3, 2], 1136.0, -93.0697],
        []),
    "argmax_index_batch": ("Cast", [[2, 2, 3, 2], 1302.0, -62.1262],
        []),
    "argmax_output": ("MaxPoolWithArgmax", [[2, 3, 3, 2], 428.0, -21.61],
        [[[2, 5, 6, 2], -0.3437, -7.4583]]),
    "atrous_same": ("convolution/BatchToSpaceND", [[2, 6, 7, 2], -33.0, 89.1336],
        [[[2, 6, 7, 2], 4.8108, -107.8034], [[3, 3, 2, 2], -2.5755, -36.7464]]),
    "atrous_transpose_same": ("atrous_conv2d_transpose/BatchToSpaceND", [[1, 5, 6, 2], 12.5, -0.8968],
        [[[1, 5, 6, 3], 10.2372, 14.4425], [[3, 3, 2, 3], 4.4132, 6.1371]]),
    "atrous_transpose_valid": ("atrous_conv2d_transpose/BatchToSpaceND", [[1, 5, 4, 2], 2.25, 39.3141],
        [[[1, 3, 2, 3], -0.3804, -4.2896], [[2, 2, 2, 3], 0.9928, 3.9256]]),
    "atrous_valid": ("convolution/BatchToSpaceND", [[1, 4, 1, 3], 12.25, 4.8039],
        [[[1, 7, 7, 2], -0.6921, 0.6518], [[2, 3, 2, 3], -4.7172, -1.4626]]),
    "avg_pool1d": ("AvgPool1D/Squeeze", [[2, 5, 3], -1.5, 2.3974],
        [[[2, 9, 3], -0.4814, 1.9199]]),
    "avg_pool3d_same": ("AvgPool3D", [[1, 3, 2, 3, 2], -6.4444, -30.4222],
        [[[1, 5, 4, 5, 2], -0.3437, 0.0828]]),
    "avg_pool3d_valid": ("AvgPool3D", [[1, 2, 4, 2, 3], -4.5, -5.9626],
        [[[1, 4, 5, 4, 3], 0.1169, -0.0021]]),
    "avg_pool_v2_3d": ("AvgPool3D", [[1, 2, 2, 2, 2], 2.3704, 1.2355],
        [[[1, 4, 4, 4, 2], 0.7153, -0.4845]]),
    "conv1d_same": ("conv1d/Squeeze", [[2, 4, 4], -5.5, -44.163],
        [[[2, 7, 3], -0.1698, -1.8426], [[3, 3, 4], -10.364, -23.2738]]),
    "conv1d_transpose": ("conv1d_transpose/Squeeze", [[2, 8, 2], -64.5, 0.5285],
        [[[2, 4, 3], -0.6158, 6.3862], [[3, 2, 3], 1.0161, 2.8645]]),
    "conv1d_valid_dilated": ("conv1d/Squeeze", [[2, 5, 3], -4.75, 8.4646],
        [[[2, 9, 2], 0.1655, -1.1014]]),
    "conv2d_backprop_filter": ("Conv2DBackpropFilter", [[3, 2, 2, 3], 7.5, 1.4765],
        [[[2, 5, 6, 2], -7.0284, 1.0391], [[2, 3, 3, 3], -15.1857, -0.5583]]),
    "conv2d_backprop_input": ("Conv2DBackpropInput", [[2, 5, 6, 2], 148.75, 28.989],
        [[[3, 2, 2, 3], 7.4916, 1.0391], [[2, 3, 3, 3], -0.7036, -0.0571]]),
    "conv2d_transpose_odd": ("conv2d_transpose", [[1, 5, 4, 2], 31.75, 11.6222],
        [[[1, 3, 2, 3], -1.9971, -1.7874], [[2, 3, 2, 3], 9.2438, -2.1392]]),
    "conv2d_transpose_same": ("conv2d_transpose", [[2, 6, 6, 2], 5.0, -6.244],
        [[[2, 3, 3, 4], -0.0039, 14.6838], [[3, 3, 2, 4], 3.0497, 1.468]]),
    "conv2d_transpose_valid": ("conv2d_transpose", [[1, 7, 7, 2], -10.0, 68.1158],
        [[[1, 3, 3, 4], 0.1765, -0.2111], [[3, 3, 2, 4], -0.241, -6.6508]]),
    "conv3d_backprop_filter": ("Conv3DBackpropFilterV2", [[2, 3, 2, 2, 3], 11.5, -17.822],
        [[[1, 4, 5, 3, 2], -2.1094, -32.2723], [[1, 2, 5, 2, 3], -27.165, -10.3788]]),
    "conv3d_same": ("Conv3D", [[1, 2, 5, 2, 3], -38.5, 3.2066],
        [[[1, 4, 5, 3, 2], 31.9766, 41.9803], [[2, 3, 2, 2, 3], 33.2411, -10.3788]]),
    "conv3d_transpose": ("conv3d_transpose", [[1, 4, 5, 4, 2], 5.0, 55.8034],
        [[[1, 2, 3, 2, 3], -5.4928, 4.5686], [[2, 3, 2, 2, 3], -0.3808, 2.3425]]),
    "conv3d_valid": ("Conv3D", [[2, 2, 2, 2, 2], -24.25, -61.1544],
        [[[2, 4, 4, 3, 2], 0.1977, 1.1663], [[3, 2, 2, 2, 2], 13.6718, 43.5882]]),
    "conv_transpose_1d": ("conv_transpose/Squeeze", [[1, 6, 3], -2.0, -0.0117],
        [[[1, 3, 2], 9.8361, -1.0824], [[2, 3, 2], 0.1924, -0.4432]]),
    "conv_transpose_3d": ("conv_transpose", [[1, 4, 4, 4, 1], 0.75, 24.9916],
        [[[1, 2, 2, 2, 2], -9.7972, -1.5087], [[2, 2, 2, 1, 2], -1.4402, -4.4412]]),
    "convolution_1d": ("convolution/Squeeze", [[2, 3, 2], -13.5, -2.6747],
        [[[2, 7, 3], 0.0652, -1.9899], [[3, 3, 2], 0.8052, 2.6536]]),
    "convolution_2d_dilated": ("convolution/BatchToSpaceND", [[1, 7, 8, 3], -11.75, -13.9443],
        [[[1, 7, 8, 2], -0.3225, -9.9451], [[3, 2, 2, 3], 17.4034, -1.8118]]),
    "convolution_3d": ("convolution", [[1, 2, 4, 3, 2], 7.25, 23.6762],
        [[[1, 4, 4, 3, 2], -5.8998, 48.8825], [[2, 2, 2, 2, 2], 29.1011, 47.3924]]),
    "depthwise_backprop_filter": ("DepthwiseConv2dNativeBackpropFilter", [[3, 2, 3, 2], -14.0, -82.2025],
        [[[2, 5, 6, 3], -26.5508, -4.501], [[2, 3, 3, 6], -12.9971, -6.7701]]),
    "depthwise_backprop_input": ("DepthwiseConv2dNativeBackpropInput", [[2, 5, 6, 3], 1.75, -23.4779],
        [[[3, 2, 3, 2], -1.1226, -4.501], [[2, 3, 3, 6], 22.0823, -33.5644]]),
    "depthwise_native": ("DepthwiseConv2dNative", [[2, 3, 3, 6], 86.25, 81.2952],
        [[[2, 5, 6, 3], -25.287, -33.5644], [[3, 2, 3, 2], -3.8351, -6.7701]]),
    "depthwise_rate": ("depthwise/BatchToSpaceND", [[1, 7, 6, 6], -10.5, 19.9296],
        [[[1, 7, 6, 2], -51.075, 1.9143], [[2, 3, 2, 3], -14.092, -6.9298]]),
    "depthwise_strided": ("depthwise", [[1, 2, 2, 2], -8.0, -40.8634],
        [[[1, 6, 6, 2], 0.5964, 5.5343], [[3, 3, 2, 1], -3.3922, -5.2974]]),
    "image_extract_patches": ("ExtractImagePatches", [[1, 5, 5, 18], 11.5, -0.3084],
        [[[1, 5, 5, 2], -0.541, -1.7212]]),
    "max_pool1d": ("MaxPool1d/Squeeze", [[2, 5, 3], 25.5, -5.3605],
        [[[2, 9, 3], -0.4814, 0.7149]]),
    "max_pool3d_same": ("MaxPool3D", [[1, 3, 2, 3, 2], 669.5, -9.0191],
        [[[1, 5, 4, 5, 2], -0.3437, 1.9518]]),
    "max_pool3d_valid": ("MaxPool3D", [[2, 3, 4, 3, 2], 4693.5, -134.4912],
        [[[2, 4, 5, 4, 2], -0.385, -3.9347]]),
    "max_pool_v2_1d": ("MaxPool1d/Squeeze", [[2, 4, 2], 24.0, -3.8161],
        [[[2, 8, 2], 0.7153, -0.4209]]),
    "patches_same_rates": ("ExtractImagePatches", [[1, 3, 3, 12], 10.5, -12.66],
        [[[1, 6, 7, 2], -2.1043, 1.385]]),
    "patches_valid": ("ExtractImagePatches", [[2, 2, 2, 18], -1.0, -15.9111],
        [[[2, 5, 6, 3], -0.385, 4.4156]]),
    "pool_avg_dilated_1d": ("avg_pool/BatchToSpaceND", [[2, 5, 2], -2.5, 0.4561],
        [[[2, 9, 2], 1.1315, -0.1001]]),
    "pool_avg_strided": ("avg_pool", [[1, 4, 3, 2], 0.8333, -11.8308],
        [[[1, 7, 6, 2], -0.5409, -1.0061]]),
    "pool_max_3d": ("max_pool", [[1, 2, 2, 2, 1], 53.25, 10.9973],
        [[[1, 4, 4, 4, 1], 1.4783, 1.1982]]),
    "pool_max_dilated": ("max_pool/BatchToSpaceND", [[1, 7, 4, 2], 453.0, -7.1061],
        [[[1, 9, 8, 2], -0.404, -2.0456]]),
    "separable": ("separable_conv2d", [[2, 5, 5, 3], 22.875, -33.9761],
        [[[2, 5, 5, 2], -12.4474, -63.3274], [[3, 3, 2, 2], 2.5273, 12.1037], [[1, 1, 4, 3], 172.4266, -232.4202]]),
    "separable_rate": ("separable_conv2d", [[1, 5, 5, 3], 9.875, -7.4648],
        [[[1, 7, 7, 2], 0.1179, 1.5623], [[2, 2, 2, 1], 3.8726, 3.203], [[1, 1, 2, 3], -26.7791, 5.889]]),
    "volume_patches": ("ExtractVolumePatches", [[1, 2, 3, 4, 24], 2.0, -0.813],
        [[[1, 4, 5, 4, 2], -7.6431, -1.8632]]),
}

def _close(got, want):
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1:], want[1:], rtol=1e-4, atol=2e-3)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_matches_tf(case):
    name, want, want_grads = EXPECTED[case]
    with tf.Graph().as_default():
        y, xs = build_cases(tf)[case]()
        assert y.shape.as_list() == want[0]
        assert y.op.name == name
        u = np.cos(np.arange(int(np.prod(want[0])))).reshape(want[0]).astype(np.float32)
        grads = tf.gradients(tf.reduce_sum(y * u), xs) if xs else []
        with tf.Session() as sess:
            y_value, grad_values = sess.run([y, grads])
    _close(fingerprint(y_value), want)
    assert len(grad_values) == len(want_grads)
    for g, w in zip(grad_values, want_grads):
        _close(fingerprint(g), w)


def test_every_case_has_tf_figures():
    with tf.Graph().as_default():
        assert sorted(build_cases(tf)) == sorted(EXPECTED)


# -- channels-first layouts: the channels-last results, transposed ---------------------------------


def _nchw(a):
    return np.moveaxis(a, -1, 1)


def _both(build_last, build_first):
    with tf.Graph().as_default():
        last, first = build_last(), build_first()
        assert first.shape.as_list() == list(_nchw(np.zeros(last.shape.as_list())).shape)
        return run([last, first])


@pytest.mark.parametrize("name", ["conv2d_transpose", "depthwise", "conv3d", "conv3d_transpose", "conv1d",
                                  "max_pool3d", "avg_pool3d", "separable"])
def test_channels_first_is_channels_last_transposed(name):
    x4, x5, x3 = arr([2, 5, 6, 3]), arr([1, 4, 5, 4, 2]), arr([2, 7, 3])
    nn = tf.nn
    builds = {
        "conv2d_transpose": (lambda: nn.conv2d_transpose(x4, arr([3, 2, 2, 3], 1), [2, 10, 11, 2], 2, "SAME"),
                             lambda: nn.conv2d_transpose(_nchw(x4), arr([3, 2, 2, 3], 1), [2, 2, 10, 11], 2, "SAME",
                                                         data_format="NCHW")),
        "depthwise": (lambda: nn.depthwise_conv2d(x4, arr([3, 3, 3, 2], 1), [1, 2, 2, 1], "SAME", rate=None),
                      lambda: nn.depthwise_conv2d(_nchw(x4), arr([3, 3, 3, 2], 1), [1, 1, 2, 2], "SAME",
                                                  data_format="NCHW")),
        "conv3d": (lambda: nn.conv3d(x5, arr([2, 2, 3, 2, 3], 1), [1, 2, 1, 2, 1], "SAME"),
                   lambda: nn.conv3d(_nchw(x5), arr([2, 2, 3, 2, 3], 1), [1, 1, 2, 1, 2], "SAME",
                                     data_format="NCDHW")),
        "conv3d_transpose": (lambda: nn.conv3d_transpose(x5, arr([2, 2, 2, 3, 2], 1), [1, 8, 10, 8, 3], 2),
                             lambda: nn.conv3d_transpose(_nchw(x5), arr([2, 2, 2, 3, 2], 1), [1, 3, 8, 10, 8], 2,
                                                         data_format="NCDHW")),
        "conv1d": (lambda: nn.conv1d(x3, arr([3, 3, 2], 1), 2, "SAME"),
                   lambda: nn.conv1d(_nchw(x3), arr([3, 3, 2], 1), 2, "SAME", data_format="NCW")),
        "max_pool3d": (lambda: nn.max_pool3d(x5, 2, 2, "SAME"),
                       lambda: nn.max_pool3d(_nchw(x5), 2, 2, "SAME", data_format="NCDHW")),
        "avg_pool3d": (lambda: nn.avg_pool3d(x5, [1, 3, 2, 3, 1], 2, "SAME"),
                       lambda: nn.avg_pool3d(_nchw(x5), [1, 1, 3, 2, 3], 2, "SAME", data_format="NCDHW")),
        "separable": (lambda: nn.separable_conv2d(x4, arr([3, 3, 3, 1], 1), arr([1, 1, 3, 2], 2), [1, 1, 1, 1],
                                                  "SAME", rate=[2, 2]),
                      lambda: nn.separable_conv2d(_nchw(x4), arr([3, 3, 3, 1], 1), arr([1, 1, 3, 2], 2),
                                                  [1, 1, 1, 1], "SAME", rate=[2, 2], data_format="NCHW")),
    }
    last, first = _both(*builds[name])
    np.testing.assert_allclose(first, _nchw(last), rtol=1e-5, atol=1e-5)


# -- gradients against finite differences (float64), second order included ------------------------

R = np.random.default_rng(0)


def _r(*shape):
    return R.standard_normal(shape)


GRAD_CASES = {
    "conv3d": (lambda x, w: tf.nn.conv3d(x, w, [1, 2, 1, 1, 1], "SAME", dilations=[1, 1, 2, 1, 1]),
               [_r(1, 4, 5, 3, 2), _r(2, 2, 2, 2, 3)]),
    "conv3d_ncdhw": (lambda x, w: tf.nn.conv3d(x, w, [1, 1, 1, 2, 1], "VALID", data_format="NCDHW"),
                     [_r(1, 2, 4, 5, 3), _r(2, 2, 2, 2, 3)]),
    "conv3d_transpose": (lambda x, w: tf.nn.conv3d_transpose(x, w, [1, 4, 3, 4, 2], 2, "SAME"),
                         [_r(1, 2, 2, 2, 3), _r(2, 2, 2, 2, 3)]),
    "conv3d_backprop_filter": (lambda x, dy: tf.nn.conv3d_backprop_filter(x, [2, 2, 2, 2, 3], dy, [1] * 5, "VALID"),
                               [_r(1, 3, 3, 3, 2), _r(1, 2, 2, 2, 3)]),
    "depthwise": (lambda x, w: tf.nn.depthwise_conv2d_native(x, w, [1, 2, 1, 1], "SAME", dilations=[1, 1, 2, 1]),
                  [_r(2, 5, 4, 3), _r(2, 3, 3, 2)]),
    "depthwise_nchw": (lambda x, w: tf.nn.depthwise_conv2d_native(x, w, [1, 1, 2, 2], "VALID", data_format="NCHW"),
                       [_r(1, 2, 5, 5), _r(3, 2, 2, 2)]),
    "depthwise_backprop_input": (lambda w, dy: tf.nn.depthwise_conv2d_native_backprop_input(
        [1, 4, 4, 2], w, dy, [1, 1, 1, 1], "SAME"), [_r(2, 2, 2, 2), _r(1, 4, 4, 4)]),
    "depthwise_backprop_filter": (lambda x, dy: tf.nn.depthwise_conv2d_native_backprop_filter(
        x, [2, 2, 2, 2], dy, [1, 1, 1, 1], "VALID"), [_r(1, 4, 4, 2), _r(1, 3, 3, 4)]),
    "conv2d_transpose_nchw": (lambda x, w: tf.nn.conv2d_transpose(x, w, [1, 2, 6, 5], 2, "SAME", data_format="NCHW"),
                              [_r(1, 3, 3, 3), _r(3, 2, 2, 3)]),
    "conv1d_transpose": (lambda x, w: tf.nn.conv1d_transpose(x, w, [1, 7, 2], 2, "VALID"), [_r(1, 3, 3), _r(3, 2, 3)]),
    "max_pool3d": (lambda x: tf.nn.max_pool3d(x, 2, [1, 1, 2, 2, 1], "SAME"), [_r(1, 3, 4, 5, 2)]),
    "avg_pool3d": (lambda x: tf.nn.avg_pool3d(x, 3, 2, "SAME"), [_r(1, 4, 4, 5, 2)]),
    "max_pool_with_argmax": (lambda x: tf.nn.max_pool_with_argmax(x, [1, 2, 3, 1], [1, 2, 2, 1], "SAME")[0],
                             [_r(2, 5, 6, 2)]),
    "extract_image_patches": (lambda x: tf.extract_image_patches(x, [1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1],
                                                                 "SAME"), [_r(1, 5, 6, 2)]),
    "extract_volume_patches": (lambda x: tf.extract_volume_patches(x, [1, 2, 2, 3, 1], [1, 1, 2, 2, 1], "VALID"),
                               [_r(1, 3, 4, 5, 2)]),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_gradients_match_finite_differences(case):
    fn, inputs = GRAD_CASES[case]
    check_gradients(fn, *inputs)


SECOND_ORDER = {
    "conv3d": lambda x, w: tf.gradients(tf.reduce_sum(tf.sin(tf.nn.conv3d(x, w, [1] * 5, "SAME"))), [x, w]),
    "depthwise": lambda x, w: tf.gradients(tf.reduce_sum(tf.sin(tf.nn.depthwise_conv2d_native(
        x, w, [1, 1, 1, 1], "SAME"))), [x, w]),
}


@pytest.mark.parametrize("case", sorted(SECOND_ORDER))
def test_second_order_gradients(case):
    x, w = {"conv3d": (_r(1, 3, 3, 3, 2), _r(2, 2, 2, 2, 2)), "depthwise": (_r(1, 4, 4, 2), _r(2, 2, 2, 2))}[case]
    check_gradients(lambda x, w: SECOND_ORDER[case](x, w)[0] * 1.0, x, w)
    check_gradients(lambda x, w: SECOND_ORDER[case](x, w)[1] * 1.0, x, w)


def test_max_pool_with_argmax_gradients_of_the_gradient():
    x = _r(1, 4, 4, 2)
    check_gradients(lambda x, u: tf.gradients(tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")[0],
                                              x, grad_ys=u)[0], x, _r(1, 2, 2, 2), wrt=[1])


# -- TF 2.15's V2 backprop ops, which TF's CPU cannot run: the V1 ops' figures ------------------------


def test_backprop_v2_ops_equal_the_v1_ops():
    x, w, dy = arr([2, 5, 6, 2]), arr([3, 2, 2, 3], 1), arr([2, 2, 3, 3], 2)
    with tf.Graph().as_default():
        a = tf.conv2d_backprop_input_v2(x, w, dy, [1, 2, 2, 1], "VALID")
        b = tf.nn.conv2d_backprop_input([2, 5, 6, 2], w, dy, [1, 2, 2, 1], "VALID")
        c = tf.conv2d_backprop_filter_v2(x, w, dy, [1, 2, 2, 1], "VALID")
        d = tf.nn.conv2d_backprop_filter(x, [3, 2, 2, 3], dy, [1, 2, 2, 1], "VALID")
        assert (a.op.type, a.shape.as_list(), c.op.type, c.shape.as_list()) == (
            "Conv2DBackpropInputV2", [2, 5, 6, 2], "Conv2DBackpropFilterV2", [3, 2, 2, 3])
        a, b, c, d = run([a, b, c, d])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(c, d)


# -- static shapes, names and errors ---------------------------------------------------------------


def test_static_shapes_with_unknown_dimensions():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 6, None, 3])
        assert tf.nn.depthwise_conv2d_native(x, tf.zeros([3, 3, 3, 2]), [1, 2, 2, 1], "SAME").shape.as_list() == \
            [None, 3, None, 6]
        assert tf.nn.conv2d_transpose(x, tf.zeros([3, 3, 2, 3]), tf.placeholder(tf.int32, [4]),
                                      2).shape.as_list() == [None] * 4
        v = tf.placeholder(tf.float32, [None, 4, 5, 6, 2])
        assert tf.nn.conv3d(v, tf.zeros([2, 2, 2, 2, 4]), [1, 2, 2, 2, 1], "VALID").shape.as_list() == \
            [None, 2, 2, 3, 4]
        assert tf.nn.max_pool3d(v, 2, 2, "SAME").shape.as_list() == [None, 2, 3, 3, 2]
        y, argmax = tf.nn.max_pool_with_argmax(tf.placeholder(tf.float32, [None, 5, 5, 2]), [1, 2, 2, 1],
                                               [1, 2, 2, 1], "SAME", Targmax=tf.int32)
        assert (y.shape.as_list(), argmax.shape.as_list(), argmax.dtype) == ([None, 3, 3, 2], [None, 3, 3, 2],
                                                                             tf.int32)
        assert tf.extract_image_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID").shape.as_list() == \
            [None, 5, None, 12]


def test_names_as_tf():
    with tf.Graph().as_default():
        y = tf.nn.conv1d(tf.zeros([1, 5, 2]), tf.zeros([2, 2, 3]), 1, "SAME")
        # TF's list also holds the ExpandDims axes as Const ops; dflow keeps constant axes as attrs.
        assert [op.name for op in y.graph.get_operations()][-4:] == [
            "conv1d/ExpandDims", "conv1d/ExpandDims_1", "conv1d", "conv1d/Squeeze"]
        assert y.graph.get_operation_by_name("conv1d").type == "Conv2D"
        assert tf.nn.conv3d(tf.zeros([1, 2, 2, 2, 1]), tf.zeros([1, 1, 1, 1, 1]), [1] * 5, "SAME").op.name == "Conv3D"
        assert tf.nn.max_pool3d(tf.zeros([1, 2, 2, 2, 1]), 1, 1, "SAME", name="p").op.name == "p"
        assert tf.nn.separable_conv2d(tf.zeros([1, 4, 4, 2]), tf.zeros([2, 2, 2, 1]), tf.zeros([1, 1, 2, 3]),
                                      [1, 1, 1, 1], "SAME").op.name == "separable_conv2d"
        assert y.graph.get_operation_by_name("separable_conv2d/depthwise").type == "DepthwiseConv2dNative"


def _z(*shape):
    return tf.zeros(shape)


ERRORS = [
    (lambda: tf.nn.conv2d_transpose(_z(1, 3, 3, 5), _z(3, 3, 2, 4), [1, 6, 6, 2], 2),
     ValueError, "Dimensions must be equal, but are 5 and 4"),
    (lambda: tf.nn.max_pool_with_argmax(_z(1, 2, 4, 4), [1, 1, 2, 2], [1, 1, 2, 2], "VALID", data_format="NCHW"),
     ValueError, "`data_format` values other  than 'NHWC' are not supported"),
    (lambda: tf.nn.pool(_z(1, 6, 6, 1), [2, 2], "MAX", "VALID", strides=[3, 3]),
     ValueError, "`strides` > `window_shape` not supported"),
    (lambda: tf.nn.pool(_z(1, 6, 6, 1), [2, 2], "MAX", "SAME", dilation_rate=[2, 2]),
     ValueError, "pooling with 'SAME' padding is not implemented for `dilation_rate` > 1"),
    (lambda: tf.nn.conv3d(_z(1, 4, 4, 4, 2), _z(2, 2, 2, 2, 2), [1, 1, 1], "SAME"),
     ValueError, "Attr 'strides' of 'Conv3D' Op passed list of length 3 less than minimum 5."),
    (lambda: tf.nn.depthwise_conv2d_native(_z(1, 4, 4, 3), _z(2, 2, 2, 2), [1, 1, 1, 1], "SAME"),
     ValueError, "Dimensions must be equal, but are 3 and 2"),
    (lambda: tf.nn.conv3d(_z(1, 4, 4, 4, 3), _z(2, 2, 2, 2, 2), [1, 1, 1, 1, 1], "SAME"),
     ValueError, r"Depth of input \(3\) is not a multiple of input depth of filter \(2\)"),
    (lambda: tf.nn.separable_conv2d(_z(1, 4, 4, 2), _z(2, 2, 2, 1), _z(2, 1, 2, 3), [1, 1, 1, 1], "SAME"),
     ValueError, "Dimensions 2 and 1 are not compatible"),
    (lambda: tf.nn.max_pool3d(_z(1, 4, 4, 4, 2), [1, 2, 2, 1], [1, 1, 1, 1, 1], "SAME"),
     ValueError, "ksize should be of length 1, 3 or 5"),
    (lambda: tf.nn.conv1d(_z(1, 4, 2), _z(2, 2, 2), 1, "SAME", data_format="NHWCX"),
     ValueError, "`data_format` must be 'NWC' or 'NCW'"),
    (lambda: tf.nn.conv_transpose(_z(1, 4, 4, 2), _z(2, 2, 2, 2), [1, 8, 8, 2, 2, 2], 2),
     ValueError, "`output_shape` must be of length 3, 4 or 5"),
    (lambda: tf.extract_image_patches(_z(1, 4, 4, 2), [1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
     ValueError, "ksizes"),
    (lambda: tf.nn.convolution(_z(1, 8, 8, 2), _z(2, 2, 2, 2), "SAME", strides=[2, 2], dilation_rate=[2, 2]),
     ValueError, "`strides > 1` not supported in conjunction with `dilation_rate > 1`"),
]


@pytest.mark.parametrize("build,error,match", ERRORS)
def test_graph_time_errors_as_tf(build, error, match):
    with tf.Graph().as_default(), pytest.raises(error, match=match):
        build()


def test_transpose_output_channels_are_checked_at_run_time():
    with tf.Graph().as_default():
        y = tf.nn.conv2d_transpose(_z(1, 3, 3, 4), _z(3, 3, 2, 4), [1, 6, 6, 3], 2)  # TF builds this too
        assert y.shape.as_list() == [1, 6, 6, 3]
        with pytest.raises(tf.errors.InvalidArgumentError):
            run(y)


@pytest.mark.parametrize("pool", ["max", "avg"])
def test_3d_pool_gradients_of_the_gradient(pool):
    fn = tf.nn.max_pool3d if pool == "max" else tf.nn.avg_pool3d
    x = _r(1, 3, 4, 4, 2)
    # MaxPool3DGrad (and, differentiated again, MaxPool3DGradGrad) or AvgPool3DGrad, linear in grad_ys.
    grad = lambda x, u: tf.gradients(fn(x, 2, [1, 1, 2, 2, 1], "SAME"), x, grad_ys=u)[0]
    check_gradients(grad, x, _r(1, 3, 2, 2, 2), wrt=[1])
    check_gradients(lambda x, u, v: tf.gradients(grad(x, u), u, grad_ys=v)[0], x, _r(1, 3, 2, 2, 2),
                    _r(1, 3, 4, 4, 2), wrt=[2])
