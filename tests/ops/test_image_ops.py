"""tf.image geometry, dtype conversion, standardisation and image differences against TF 2.15
figures; gradients against finite differences.

The case table below is run under TF 2.15 (compat.v1) to give EXPECTED (the
scripts are kept under /tmp/ref/image/); the test runs the same table under dflow.
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.image_harness import tf_case_test

X = (np.arange(2 * 3 * 4 * 2) % 7).astype(np.float32).reshape(2, 3, 4, 2) - 2.5
U8 = np.array([[[0, 1, 127], [128, 200, 255]]], np.uint8)
F = np.array([[[-0.5, 0.0, 0.25], [0.5, 0.999, 1.5]]], np.float32)


def cases(tf):
    return {
        "flip_left_right": tf.image.flip_left_right(X),
        "flip_up_down3": tf.image.flip_up_down(X[0]),
        "rot90_4d_k1": tf.image.rot90(X, 1),
        "rot90_3d_k2": tf.image.rot90(X[0], 2),
        "rot90_3d_k3": tf.image.rot90(X[0], 3),
        "transpose": tf.image.transpose(X),
        "transpose_image3": tf.image.transpose_image(X[1]),
        "central_crop": tf.image.central_crop(X, 0.5),
        "central_crop3": tf.image.central_crop(X[0], 0.7),
        "pad_to_bbox": tf.image.pad_to_bounding_box(X[0], 1, 1, 5, 6),
        "crop_to_bbox": tf.image.crop_to_bounding_box(X, 1, 1, 2, 2),
        "crop_or_pad": tf.image.resize_with_crop_or_pad(X[0], 2, 7),
        "crop_or_pad4": tf.image.resize_image_with_crop_or_pad(X, 5, 1),
        "u8_to_f32": tf.image.convert_image_dtype(U8, tf.float32),
        "u8_to_i32": tf.image.convert_image_dtype(U8, tf.int32),
        "u8_to_u16": tf.image.convert_image_dtype(U8, tf.uint16),
        "u16_to_u8": tf.image.convert_image_dtype(tf.constant([[[65535, 256, 255]]], tf.uint16), tf.uint8),
        "i32_to_u8_sat": tf.image.convert_image_dtype(tf.constant([[[-5, 2**30, 2**31 - 1]]], tf.int32), tf.uint8,
                                                      saturate=True),
        "f32_to_u8": tf.image.convert_image_dtype(F, tf.uint8),
        "f32_to_u8_sat": tf.image.convert_image_dtype(F, tf.uint8, saturate=True),
        "f32_to_i16_sat": tf.image.convert_image_dtype(F, tf.int16, saturate=True),
        "f32_to_f64": tf.image.convert_image_dtype(F, tf.float64),
        "standardize": tf.image.per_image_standardization(X),
        "standardize_u8": tf.image.per_image_standardization(U8),
        "total_variation": tf.image.total_variation(tf.constant(X)),
        "total_variation3": tf.image.total_variation(tf.constant(X[0])),
        "image_gradients": tf.stack(tf.image.image_gradients(tf.constant(X))),
        "sobel_edges": tf.image.sobel_edges(tf.constant(X)),
    }

# dflow names these differently from TF (TF's rot90 always builds a tf.case; the
# crop-or-pad's last tensor is a control dependency on asserts dflow resolves statically).
NAMES_DIFFER = {"rot90_4d_k1", "rot90_3d_k2", "rot90_3d_k3", "crop_or_pad4", "image_gradients", "sobel_edges"}
TOLERANCE = {"standardize": (1e-5, 1e-6), "standardize_u8": (1e-5, 1e-6)}


EXPECTED = {
    'flip_left_right': ('flip_left_right/ReverseV2:0', [2, 3, 4, 2], 'float32', [2, 3, 4, 2],
        [3.5, -2.5, 1.5, 2.5, -0.5, 0.5, -2.5, -1.5, -2.5, -1.5, 2.5, 3.5, 0.5, 1.5, -1.5, -0.5, -1.5, -0.5, 3.5,
         -2.5, 1.5, 2.5, -0.5, 0.5, -0.5, 0.5, -2.5, -1.5, 2.5, 3.5, 0.5, 1.5, 0.5, 1.5, -1.5, -0.5, 3.5, -2.5, 1.5,
         2.5, 1.5, 2.5, -0.5, 0.5, -2.5, -1.5, 2.5, 3.5]),
    'flip_up_down3': ('flip_up_down/ReverseV2:0', [3, 4, 2], 'float32', [3, 4, 2],
        [-0.5, 0.5, 1.5, 2.5, 3.5, -2.5, -1.5, -0.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -2.5, -1.5, -2.5, -1.5, -0.5,
         0.5, 1.5, 2.5, 3.5, -2.5]),
    'rot90_4d_k1': ('rot90/cond/Identity:0', [2, None, None, 2], 'float32', [2, 4, 3, 2],
        [3.5, -2.5, -2.5, -1.5, -1.5, -0.5, 1.5, 2.5, 2.5, 3.5, 3.5, -2.5, -0.5, 0.5, 0.5, 1.5, 1.5, 2.5, -2.5,
         -1.5, -1.5, -0.5, -0.5, 0.5, -0.5, 0.5, 0.5, 1.5, 1.5, 2.5, -2.5, -1.5, -1.5, -0.5, -0.5, 0.5, 2.5, 3.5,
         3.5, -2.5, -2.5, -1.5, 0.5, 1.5, 1.5, 2.5, 2.5, 3.5]),
    'rot90_3d_k2': ('rot90_1/cond/Identity:0', [None, None, 2], 'float32', [3, 4, 2],
        [-1.5, -0.5, 3.5, -2.5, 1.5, 2.5, -0.5, 0.5, -2.5, -1.5, 2.5, 3.5, 0.5, 1.5, -1.5, -0.5, 3.5, -2.5, 1.5,
         2.5, -0.5, 0.5, -2.5, -1.5]),
    'rot90_3d_k3': ('rot90_2/cond/Identity:0', [None, None, 2], 'float32', [4, 3, 2],
        [-0.5, 0.5, -1.5, -0.5, -2.5, -1.5, 1.5, 2.5, 0.5, 1.5, -0.5, 0.5, 3.5, -2.5, 2.5, 3.5, 1.5, 2.5, -1.5,
         -0.5, -2.5, -1.5, 3.5, -2.5]),
    'transpose': ('transpose/transpose:0', [2, 4, 3, 2], 'float32', [2, 4, 3, 2],
        [-2.5, -1.5, -1.5, -0.5, -0.5, 0.5, -0.5, 0.5, 0.5, 1.5, 1.5, 2.5, 1.5, 2.5, 2.5, 3.5, 3.5, -2.5, 3.5, -2.5,
         -2.5, -1.5, -1.5, -0.5, 0.5, 1.5, 1.5, 2.5, 2.5, 3.5, 2.5, 3.5, 3.5, -2.5, -2.5, -1.5, -2.5, -1.5, -1.5,
         -0.5, -0.5, 0.5, -0.5, 0.5, 0.5, 1.5, 1.5, 2.5]),
    'transpose_image3': ('transpose_1/transpose:0', [4, 3, 2], 'float32', [4, 3, 2],
        [0.5, 1.5, 1.5, 2.5, 2.5, 3.5, 2.5, 3.5, 3.5, -2.5, -2.5, -1.5, -2.5, -1.5, -1.5, -0.5, -0.5, 0.5, -0.5,
         0.5, 0.5, 1.5, 1.5, 2.5]),
    'central_crop': ('central_crop/Slice:0', [2, 3, 2, 2], 'float32', [2, 3, 2, 2],
        [-0.5, 0.5, 1.5, 2.5, 0.5, 1.5, 2.5, 3.5, 1.5, 2.5, 3.5, -2.5, 2.5, 3.5, -2.5, -1.5, 3.5, -2.5, -1.5, -0.5,
         -2.5, -1.5, -0.5, 0.5]),
    'central_crop3': ('central_crop_1/Slice:0', [3, 4, 2], 'float32', [3, 4, 2],
        [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -2.5, -1.5, -0.5, 0.5, 1.5,
         2.5, 3.5, -2.5, -1.5, -0.5]),
    'pad_to_bbox': ('pad_to_bounding_box/Squeeze:0', [5, 6, 2], 'float32', [5, 6, 2],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5,
         -2.5, 0.0, 0.0, 0.0, 0.0, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -2.5, -1.5, 0.0, 0.0, 0.0, 0.0, -0.5, 0.5, 1.5,
         2.5, 3.5, -2.5, -1.5, -0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    'crop_to_bbox': ('crop_to_bounding_box/Slice:0', [2, 2, 2, 2], 'float32', [2, 2, 2, 2],
        [0.5, 1.5, 2.5, 3.5, 1.5, 2.5, 3.5, -2.5, 3.5, -2.5, -1.5, -0.5, -2.5, -1.5, -0.5, 0.5]),
    'crop_or_pad': ('resize_image_with_crop_or_pad/Squeeze:0', [2, 7, 2], 'float32', [2, 7, 2],
        [0.0, 0.0, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -2.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.5, -0.5, 0.5, 1.5,
         2.5, 3.5, -2.5, -1.5, 0.0, 0.0, 0.0, 0.0]),
    'crop_or_pad4': ('resize_image_with_crop_or_pad_1/control_dependency_1:0', [2, 5, 1, 2], 'float32', [2, 5, 1, 2],
        [0.0, 0.0, -0.5, 0.5, 0.5, 1.5, 1.5, 2.5, 0.0, 0.0, 0.0, 0.0, 2.5, 3.5, 3.5, -2.5, -2.5, -1.5, 0.0, 0.0]),
    'u8_to_f32': ('convert_image:0', [1, 2, 3], 'float32', [1, 2, 3],
        [0.0, 0.00392157, 0.49803925, 0.5019608, 0.7843138, 1.0]),
    'u8_to_i32': ('convert_image_1:0', [1, 2, 3], 'int32', [1, 2, 3],
        [0, 8388608, 1065353216, 1073741824, 1677721600, 2139095040]),
    'u8_to_u16': ('convert_image_2:0', [1, 2, 3], 'uint16', [1, 2, 3],
        [0, 256, 32512, 32768, 51200, 65280]),
    'u16_to_u8': ('convert_image_3:0', [1, 1, 3], 'uint8', [1, 1, 3],
        [255, 1, 0]),
    'i32_to_u8_sat': ('convert_image_4:0', [1, 1, 3], 'uint8', [1, 1, 3],
        [0, 128, 255]),
    'f32_to_u8': ('convert_image_5:0', [1, 2, 3], 'uint8', [1, 2, 3],
        [129, 0, 63, 127, 255, 127]),
    'f32_to_u8_sat': ('convert_image_6:0', [1, 2, 3], 'uint8', [1, 2, 3],
        [0, 0, 63, 127, 255, 255]),
    'f32_to_i16_sat': ('convert_image_7:0', [1, 2, 3], 'int16', [1, 2, 3],
        [-16383, 0, 8191, 16383, 32734, 32767]),
    'f32_to_f64': ('convert_image_8:0', [1, 2, 3], 'float64', [1, 2, 3],
        [-0.5, 0.0, 0.25, 0.5, 0.99900001, 1.5]),
    'standardize': ('per_image_standardization:0', [2, 3, 4, 2], 'float32', [2, 3, 4, 2],
        [-1.3714331, -0.8727302, -0.37402722, 0.12467574, 0.6233787, 1.1220818, 1.6207846, -1.3714331, -0.8727302,
         -0.37402722, 0.12467574, 0.6233787, 1.1220818, 1.6207846, -1.3714331, -0.8727302, -0.37402722, 0.12467574,
         0.6233787, 1.1220818, 1.6207846, -1.3714331, -0.8727302, -0.37402722, -0.06504853, 0.45533973, 0.97572803,
         1.4961163, -1.6262133, -1.1058251, -0.5854368, -0.06504853, 0.45533973, 0.97572803, 1.4961163, -1.6262133,
         -1.1058251, -0.5854368, -0.06504853, 0.45533973, 0.97572803, 1.4961163, -1.6262133, -1.1058251, -0.5854368,
         -0.06504853, 0.45533973, 0.97572803]),
    'standardize_u8': ('per_image_standardization_1:0', [1, 2, 3], 'float32', [1, 2, 3],
        [-1.2574463, -1.246835, 0.09019657, 0.10080793, 0.86482596, 1.4484508]),
    'total_variation': ('total_variation/add:0', [2], 'float32', [2],
        [77.0, 80.0]),
    'total_variation3': ('total_variation_1/add:0', [], 'float32', [],
        [77.0]),
    'image_gradients': ('stack_2:0', [2, 2, 3, 4, 2], 'float32', [2, 2, 3, 4, 2],
        [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -6.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -6.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0,
         0.0, 0.0, 0.0, 1.0, 1.0, 1.0, -6.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -6.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0,
         0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 2.0, 2.0, -5.0, 0.0, 0.0, 2.0, 2.0, 2.0, 2.0, -5.0, -5.0, 0.0,
         0.0, 2.0, 2.0, 2.0, -5.0, -5.0, 2.0, 0.0, 0.0, 2.0, 2.0, -5.0, -5.0, 2.0, 2.0, 0.0, 0.0, 2.0, -5.0, -5.0,
         2.0, 2.0, 2.0, 0.0, 0.0, -5.0, -5.0, 2.0, 2.0, 2.0, 2.0, 0.0, 0.0]),
    'sobel_edges': ('Reshape_2:0', [2, 3, 4, 2, 2], 'float32', [2, 3, 4, 2, 2],
        [0.0, 0.0, 0.0, 0.0, 0.0, 16.0, 0.0, 16.0, 0.0, 2.0, 0.0, -12.0, 0.0, 0.0, 0.0, 0.0, 8.0, 0.0, 8.0, 0.0,
         8.0, 16.0, 1.0, 9.0, 1.0, -5.0, -6.0, -12.0, -6.0, 0.0, -6.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 16.0, 0.0, 2.0,
         0.0, -12.0, 0.0, -12.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -12.0, 0.0, -12.0, 0.0, -12.0, 0.0,
         2.0, 0.0, 0.0, 0.0, 0.0, -6.0, 0.0, -6.0, 0.0, -6.0, -12.0, -6.0, -12.0, 1.0, -5.0, 1.0, 9.0, 8.0, 0.0,
         8.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -12.0, 0.0, -12.0, 0.0, 2.0, 0.0, 16.0, 0.0, 0.0, 0.0, 0.0]),
}


test_matches_tf = tf_case_test(cases, EXPECTED, NAMES_DIFFER, TOLERANCE)


@pytest.mark.parametrize("fn", [
    lambda x: tf.image.flip_left_right(x), lambda x: tf.image.rot90(x, 3), lambda x: tf.image.transpose(x),
    lambda x: tf.image.central_crop(x, 0.5), lambda x: tf.image.pad_to_bounding_box(x, 1, 2, 5, 7),
    lambda x: tf.image.crop_to_bounding_box(x, 1, 0, 2, 3), lambda x: tf.image.resize_with_crop_or_pad(x, 2, 6),
    lambda x: tf.image.total_variation(x),
    lambda x: tf.image.sobel_edges(x), lambda x: tf.image.image_gradients(x)[1],
], ids=["flip", "rot90", "transpose", "central_crop", "pad", "crop", "crop_or_pad", "tv", "sobel",
        "image_gradients"])
def test_gradients_match_finite_differences(fn):
    from tests.ops.gradcheck import check_gradients
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 2))
    check_gradients(fn, x, rtol=1e-4, atol=1e-6)


def test_standardization_gradient():
    from tests.ops.gradcheck import check_gradients
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 2))
    # the op computes in float32, so finite differences need a wide step
    check_gradients(lambda x: tf.image.per_image_standardization(x), x, eps=1e-2, rtol=1e-2, atol=1e-3)


def test_dynamic_shapes_and_runtime_checks():
    x = tf.placeholder(tf.float32, [None, None, 2])
    crop = tf.image.crop_to_bounding_box(x, 1, 1, 2, 2)
    assert crop.shape.as_list() == [2, 2, 2]
    cp = tf.image.resize_with_crop_or_pad(x, 3, 5)
    assert cp.shape.as_list() == [3, 5, 2]
    with tf.Session() as sess:
        got = sess.run(cp, {x: X[0]})
        np.testing.assert_array_equal(got, sess.run(tf.image.resize_with_crop_or_pad(X[0], 3, 5)))
        with pytest.raises(tf.errors.InvalidArgumentError, match="width must be >= target"):
            sess.run(crop, {x: np.zeros((4, 2, 2), np.float32)})
    r = tf.image.rot90(x, tf.placeholder(tf.int32, []))
    assert r.shape.as_list() == [None, None, 2]


@pytest.mark.parametrize("build,error,match", [
    (lambda: tf.image.flip_left_right(np.zeros((3, 4))), ValueError, "must be at least three-dimensional"),
    (lambda: tf.image.flip_left_right(np.zeros((1, 1, 3, 4, 2))), ValueError, "must have either 3 or 4 dimensions"),
    (lambda: tf.image.central_crop(X, 0.0), ValueError, r"central_fraction must be within \(0, 1\]"),
    (lambda: tf.image.crop_to_bounding_box(X, 2, 0, 2, 2), ValueError, "height must be >= target"),
    (lambda: tf.image.pad_to_bounding_box(X, 0, 0, 2, 2), ValueError, "width must be <= target - offset"),
    (lambda: tf.image.convert_image_dtype(tf.constant([True]), tf.float32), AttributeError,
     "image dtype must be either floating point or integer"),
    (lambda: tf.image.total_variation(tf.zeros([2, 2])), ValueError, "must be either 3 or 4-dimensional"),
])
def test_bad_arguments_raise_tf_errors(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_random_crop_and_flips_are_seeded():
    tf.set_random_seed(7)
    crop = tf.image.random_crop(X, [2, 2, 2, 2])
    flip = tf.image.random_flip_left_right(X[0])
    flips = tf.image.random_flip_up_down(X)
    assert tf.random_crop is tf.image.random_crop
    with tf.Session() as s1:
        a = s1.run([crop, flip, flips])
    with tf.Session() as s2:
        b = s2.run([crop, flip, flips])
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    # each output is one of the allowed images
    assert any(np.array_equal(a[1], c) for c in (X[0], X[0][:, ::-1]))
    for i in range(2):
        assert any(np.array_equal(a[2][i], c) for c in (X[i], X[i][::-1]))
    windows = [X[:, i:i + 2, j:j + 2] for i in range(2) for j in range(3)]
    assert any(np.array_equal(a[0], w) for w in windows)
