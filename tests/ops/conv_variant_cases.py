"""The conv/pool variant cases shared by test_conv_variants.py and the script that computed their
TF 2.15 figures (/tmp/ref/layers/conv_ref.py runs ``build_cases`` with ``tensorflow.compat.v1``).

Each case builds ``(y, [inputs])``; the figures are fingerprints of ``y`` and of the gradients of
``sum(y * cos(arange))`` with respect to each input (see ``fingerprint``)."""

from __future__ import annotations

import numpy as np


def arr(shape, seed=0, scale=0.5):
    """Small multiples of ``scale``, so convolutions and pools are exact in float32."""
    n = int(np.prod(shape))
    return ((((np.arange(n) * 7 + seed * 3) % 11) - 5) * scale).reshape(shape).astype(np.float32)


def fingerprint(a) -> list:
    """``[shape, sum, sum(a * cos(arange))]``: enough to tell any two arrays here apart."""
    a = np.asarray(a, np.float64)
    return [list(a.shape), round(float(a.sum()), 4), round(float((a.ravel() * np.cos(np.arange(a.size))).sum()), 4)]


def build_cases(tf):
    c = tf.constant
    nn = tf.nn

    def t(*shape, seed=0):
        return c(arr(shape, seed))

    def conv2d_transpose_same():
        x, w = t(2, 3, 3, 4), t(3, 3, 2, 4, seed=1)
        return nn.conv2d_transpose(x, w, [2, 6, 6, 2], [1, 2, 2, 1], "SAME"), [x, w]

    def conv2d_transpose_valid():
        x, w = t(1, 3, 3, 4), t(3, 3, 2, 4, seed=1)
        return nn.conv2d_transpose(x, w, [1, 7, 7, 2], 2, "VALID"), [x, w]

    def conv2d_transpose_odd():
        x, w = t(1, 3, 2, 3), t(2, 3, 2, 3, seed=2)
        return nn.conv2d_transpose(x, w, [1, 5, 4, 2], [1, 2, 2, 1], "SAME"), [x, w]

    def conv2d_backprop_input():
        w, dy = t(3, 2, 2, 3, seed=1), t(2, 3, 3, 3, seed=2)
        return nn.conv2d_backprop_input([2, 5, 6, 2], w, dy, [1, 2, 2, 1], "SAME"), [w, dy]

    def conv2d_backprop_filter():
        x, dy = t(2, 5, 6, 2), t(2, 3, 3, 3, seed=2)
        return nn.conv2d_backprop_filter(x, [3, 2, 2, 3], dy, [1, 2, 2, 1], "SAME"), [x, dy]

    def conv1d_same():
        x, w = t(2, 7, 3), t(3, 3, 4, seed=1)
        return nn.conv1d(x, w, 2, "SAME"), [x, w]

    def conv1d_valid_dilated():
        x, w = t(2, 9, 2), t(3, 2, 3, seed=1)
        return nn.conv1d(x, w, 1, "VALID", dilations=2), [x]

    def conv1d_transpose():
        x, w = t(2, 4, 3), t(3, 2, 3, seed=1)
        return nn.conv1d_transpose(x, w, [2, 8, 2], 2, "SAME"), [x, w]

    def conv3d_same():
        x, w = t(1, 4, 5, 3, 2), t(2, 3, 2, 2, 3, seed=1)
        return nn.conv3d(x, w, [1, 2, 1, 2, 1], "SAME"), [x, w]

    def conv3d_valid():
        x, w = t(2, 4, 4, 3, 2), t(3, 2, 2, 2, 2, seed=1)
        return nn.conv3d(x, w, [1, 1, 2, 1, 1], "VALID"), [x, w]

    def conv3d_transpose():
        x, w = t(1, 2, 3, 2, 3), t(2, 3, 2, 2, 3, seed=1)
        return nn.conv3d_transpose(x, w, [1, 4, 5, 4, 2], [1, 2, 2, 2, 1], "SAME"), [x, w]

    def conv3d_backprop_filter():
        x, dy = t(1, 4, 5, 3, 2), t(1, 2, 5, 2, 3, seed=2)
        return nn.conv3d_backprop_filter_v2(x, [2, 3, 2, 2, 3], dy, [1, 2, 1, 2, 1], "SAME"), [x, dy]

    def convolution_1d():
        x, w = t(2, 7, 3), t(3, 3, 2, seed=1)
        return nn.convolution(x, w, "VALID", strides=[2]), [x, w]

    def convolution_2d_dilated():
        x, w = t(1, 7, 8, 2), t(3, 2, 2, 3, seed=1)
        return nn.convolution(x, w, "SAME", dilation_rate=[2, 3]), [x, w]

    def convolution_3d():
        x, w = t(1, 4, 4, 3, 2), t(2, 2, 2, 2, 2, seed=1)
        return nn.convolution(x, w, "SAME", strides=[2, 1, 1]), [x, w]

    def conv_transpose_1d():
        x, w = t(1, 3, 2), t(2, 3, 2, seed=1)
        return nn.conv_transpose(x, w, [1, 6, 3], 2, "VALID"), [x, w]

    def conv_transpose_3d():
        x, w = t(1, 2, 2, 2, 2), t(2, 2, 2, 1, 2, seed=1)
        return nn.conv_transpose(x, w, [1, 4, 4, 4, 1], 2, "SAME"), [x, w]

    def atrous_same():
        x, w = t(2, 6, 7, 2), t(3, 3, 2, 2, seed=1)
        return nn.atrous_conv2d(x, w, 2, "SAME"), [x, w]

    def atrous_valid():
        x, w = t(1, 7, 7, 2), t(2, 3, 2, 3, seed=1)
        return nn.atrous_conv2d(x, w, 3, "VALID"), [x, w]

    def atrous_transpose_same():
        x, w = t(1, 5, 6, 3), t(3, 3, 2, 3, seed=1)
        return nn.atrous_conv2d_transpose(x, w, [1, 5, 6, 2], 2, "SAME"), [x, w]

    def atrous_transpose_valid():
        x, w = t(1, 3, 2, 3), t(2, 2, 2, 3, seed=1)
        return nn.atrous_conv2d_transpose(x, w, [1, 5, 4, 2], 2, "VALID"), [x, w]

    def depthwise_native():
        x, w = t(2, 5, 6, 3), t(3, 2, 3, 2, seed=1)
        return nn.depthwise_conv2d_native(x, w, [1, 2, 2, 1], "SAME"), [x, w]

    def depthwise_rate():
        x, w = t(1, 7, 6, 2), t(2, 3, 2, 3, seed=1)
        return nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME", rate=[2, 2]), [x, w]

    def depthwise_strided():
        x, w = t(1, 6, 6, 2), t(3, 3, 2, 1, seed=1)
        return nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "VALID"), [x, w]

    def depthwise_backprop_input():
        w, dy = t(3, 2, 3, 2, seed=1), t(2, 3, 3, 6, seed=2)
        return nn.depthwise_conv2d_native_backprop_input([2, 5, 6, 3], w, dy, [1, 2, 2, 1], "SAME"), [w, dy]

    def depthwise_backprop_filter():
        x, dy = t(2, 5, 6, 3), t(2, 3, 3, 6, seed=2)
        return nn.depthwise_conv2d_native_backprop_filter(x, [3, 2, 3, 2], dy, [1, 2, 2, 1], "SAME"), [x, dy]

    def separable():
        x, dw, pw = t(2, 5, 5, 2), t(3, 3, 2, 2, seed=1), t(1, 1, 4, 3, seed=2)
        return nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME"), [x, dw, pw]

    def separable_rate():
        x, dw, pw = t(1, 7, 7, 2), t(2, 2, 2, 1, seed=1), t(1, 1, 2, 3, seed=2)
        return nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "VALID", rate=[2, 2]), [x, dw, pw]

    # -- pooling: distinct values keep max gradients away from ties
    def distinct(*shape, seed=0):
        n = int(np.prod(shape))
        return c(((np.arange(n) * 37 + seed) % n - n / 2).reshape(shape).astype(np.float32) / 4)

    def max_pool1d():
        x = distinct(2, 9, 3)
        return nn.max_pool1d(x, 3, 2, "SAME"), [x]

    def avg_pool1d():
        x = distinct(2, 9, 3)
        return nn.avg_pool1d(x, 2, 2, "SAME"), [x]

    def max_pool3d_same():
        x = distinct(1, 5, 4, 5, 2)
        return nn.max_pool3d(x, [1, 2, 3, 2, 1], [1, 2, 2, 2, 1], "SAME"), [x]

    def max_pool3d_valid():
        x = distinct(2, 4, 5, 4, 2)
        return nn.max_pool3d(x, 2, 1, "VALID"), [x]

    def avg_pool3d_same():
        x = distinct(1, 5, 4, 5, 2)
        return nn.avg_pool3d(x, [1, 3, 3, 2, 1], [1, 2, 2, 2, 1], "SAME"), [x]

    def avg_pool3d_valid():
        x = distinct(1, 4, 5, 4, 3)
        return nn.avg_pool3d(x, 2, [1, 2, 1, 2, 1], "VALID"), [x]

    def max_pool_v2_1d():
        x = distinct(2, 8, 2)
        return nn.max_pool_v2(x, 2, 2, "VALID"), [x]

    def avg_pool_v2_3d():
        x = distinct(1, 4, 4, 4, 2)
        return nn.avg_pool_v2(x, 3, 2, "SAME"), [x]

    def pool_max_dilated():
        x = distinct(1, 9, 8, 2)
        return nn.pool(x, [2, 3], "MAX", "VALID", dilation_rate=[2, 2]), [x]

    def pool_avg_dilated_1d():
        x = distinct(2, 9, 2)
        return nn.pool(x, [3], "AVG", "VALID", dilation_rate=[2]), [x]

    def pool_avg_strided():
        x = distinct(1, 7, 6, 2)
        return nn.pool(x, [3, 3], "AVG", "SAME", strides=[2, 2]), [x]

    def pool_max_3d():
        x = distinct(1, 4, 4, 4, 1)
        return nn.pool(x, [2, 2, 2], "MAX", "SAME", strides=[2, 2, 2]), [x]

    def argmax_output():
        x = distinct(2, 5, 6, 2)
        return nn.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")[0], [x]

    def argmax_index():
        x = distinct(2, 5, 6, 2)
        return tf.cast(nn.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")[1], tf.float32), []

    def argmax_index_batch():
        x = distinct(2, 5, 6, 2)
        return tf.cast(nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID",
                                               include_batch_in_index=True)[1], tf.float32), []

    def patches_valid():
        x = t(2, 5, 6, 3)
        return tf.extract_image_patches(x, [1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"), [x]

    def patches_same_rates():
        x = t(1, 6, 7, 2)
        return tf.extract_image_patches(x, [1, 3, 2, 1], [1, 2, 3, 1], [1, 2, 2, 1], "SAME"), [x]

    def image_extract_patches():
        x = t(1, 5, 5, 2)
        return tf.image.extract_patches(x, [1, 3, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"), [x]

    def volume_patches():
        x = t(1, 4, 5, 4, 2)
        return tf.extract_volume_patches(x, [1, 2, 3, 2, 1], [1, 2, 2, 1, 1], "SAME"), [x]

    return {name: fn for name, fn in locals().items() if callable(fn) and name not in ("c", "t", "distinct")}
