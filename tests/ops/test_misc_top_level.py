"""Top-level ops TF 2.15's ``tf.compat.v1`` has beside TF1's: ``bitcast``, ``conv``,
``approx_top_k``, ``vectorized_map``, ``random_index_shuffle`` and ``dtypes.complex``, against
figures TF 2.15 printed (its reference scripts ran ``tensorflow.compat.v1`` in graph mode)."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.conv_variant_cases import fingerprint
from tests.ops.gradcheck import check_gradients

# -- bitcast --------------------------------------------------------------------------------------

BITCASTS = [
    (np.array([1.0, -2.5], np.float32), tf.int32, [2], [1065353216, -1071644672]),
    (np.array([1.0, -2.5], np.float32), tf.uint8, [2, 4], [[0, 0, 128, 63], [0, 0, 32, 192]]),
    (np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.uint8), tf.int32, [2], [67305985, 134678021]),
    (np.array([1.0, 2.0], np.float64), tf.complex64, [2], [1.875j, 2j]),
    (np.array([1 + 2j], np.complex64), tf.float32, [1, 2], [[1.0, 2.0]]),
    (np.array([1.5], np.float16), tf.int16, [1], [15872]),
    (np.array(3, np.int64), tf.int32, [2], [3, 0]),
    (np.array(1.0, np.float32), tf.uint8, [4], [0, 0, 128, 63]),
    (np.array([1, 2], np.int32), tf.qint32, [2], [1, 2]),
    (np.array([1, 258], np.int16), tf.quint8, [2, 2], [[1, 0], [2, 1]]),
]


@pytest.mark.parametrize("value,dtype,shape,want", BITCASTS)
def test_bitcast_as_tf(value, dtype, shape, want):
    with tf.Graph().as_default():
        t = tf.bitcast(tf.constant(value), dtype)
        assert (t.op.type, t.dtype, t.shape.as_list()) == ("Bitcast", dtype, shape)
        got = tf.Session().run(t)
    plain = dtype.as_numpy_dtype[0] if dtype.is_quantized else dtype.as_numpy_dtype  # quantized: plain integers
    assert got.dtype == plain
    np.testing.assert_array_equal(got, np.array(want, plain))


def test_bitcast_errors_as_tf():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Cannot bitcast from 4 to 3 due to shape. 3 does not match 4"):
            tf.bitcast(tf.constant([1, 2, 3], tf.uint8), tf.int32)
        with pytest.raises(ValueError, match=r"Cannot bitcast from 5 to 9 due to shape. 2 does not match 4"):
            tf.bitcast(tf.constant([1, 2], tf.int16), tf.int64)
        with pytest.raises(TypeError, match="parameter 'input' has DataType bool not in list of allowed values"):
            tf.bitcast(tf.constant([True]), tf.uint8)
        with pytest.raises(TypeError, match="DataType string not in list"):
            tf.bitcast(tf.constant(["a"]), tf.uint8)
        p = tf.placeholder(tf.uint8, [None, None])
        t = tf.bitcast(p, tf.int16)
        assert t.shape.as_list() == [None]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(t, {p: np.arange(4, dtype=np.uint8).reshape(2, 2)}), [256, 770])
            with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot bitcast from 4 to 5"):
                sess.run(t, {p: np.ones((2, 3), np.uint8)})
        x = tf.constant([1.0, 2.0])
        assert tf.gradients(tf.cast(tf.bitcast(x, tf.int32), tf.float32), x) == [None]


# -- conv ---------------------------------------------------------------------------------------

X = np.arange(2 * 5 * 5 * 4, dtype=np.float32).reshape(2, 5, 5, 4) % 7 - 3
W = np.arange(3 * 3 * 2 * 6, dtype=np.float32).reshape(3, 3, 2, 6) % 5 - 2
X3 = np.arange(128, dtype=np.float32).reshape(1, 4, 4, 4, 2) % 5 - 2
W3 = np.arange(48, dtype=np.float32).reshape(2, 2, 2, 2, 3) % 3 - 1

CONVS = [  # (inputs, kwargs, TF's output fingerprint)
    ((X[..., :2], W, [1, 1, 1, 1], "SAME"), {}, [[2, 5, 5, 6], -5.0, 16.6655]),
    ((X[..., :2].reshape(1, 2, 5, 5, 2), W, [1, 1, 1, 1], "SAME"), {"batch_dims": 2}, [[1, 2, 5, 5, 6], -5.0, 16.6655]),
    ((X[..., :2].reshape(1, 2, 5, 5, 2), W, [1, 2, 2, 1], "VALID"), {"batch_dims": 2},
     [[1, 2, 2, 2, 6], 36.0, 15.0392]),
    ((X[..., :2], W, [1, 1, 1, 1], "EXPLICIT"), {"explicit_paddings": [0, 0, 1, 2, 0, 1, 0, 0]},
     [[2, 6, 4, 6], -9.0, -41.6165]),
    ((X[..., :2], W, [1, 1, 1, 1], "SAME"), {"dilations": [1, 2, 2, 1]}, [[2, 5, 5, 6], 4.0, 18.5921]),
    ((X3, W3, [1, 1, 1, 1, 1], "VALID"), {}, [[1, 3, 3, 3, 3], 0.0, -9.1707]),
    ((X[..., :2].astype(np.float64), W.astype(np.float64), [1, 1, 1, 1], "SAME"), {}, [[2, 5, 5, 6], -5.0, 16.6655]),
    ((X[..., :2].astype(np.int32), W.astype(np.int32), [1, 1, 1, 1], "SAME"), {}, [[2, 5, 5, 6], -5.0, 16.6655]),
]


@pytest.mark.parametrize("args,kwargs,want", CONVS)
def test_conv_as_tf(args, kwargs, want):
    with tf.Graph().as_default():
        t = tf.conv(*args, **kwargs)
        assert (t.op.name, t.op.type, t.shape.as_list()) == ("Conv", "Conv", want[0])
        assert fingerprint(tf.Session().run(t)) == want


def test_conv_groups_and_channels_first_which_tf_cpu_refuses():
    """Grouped: each half of the channels by its own filters; channels-first: the same, transposed."""
    with tf.Graph().as_default():
        grouped = tf.conv(X, W, [1, 1, 1, 1], "SAME", groups=2)
        halves = [tf.nn.conv2d(X[..., 2 * g:2 * g + 2], W[..., 3 * g:3 * g + 3], [1, 1, 1, 1], "SAME")
                  for g in range(2)]
        first = tf.conv(X.transpose(0, 3, 1, 2), W, [1, 1, 1, 1], "SAME", data_format="CHANNELS_FIRST", groups=2)
        assert first.shape.as_list() == [2, 6, 5, 5]
        got, want, got_first = tf.Session().run([grouped, tf.concat(halves, -1), first])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_first, want.transpose(0, 3, 1, 2))


CONV_ERRORS = [
    ((X.reshape(1, 2, 5, 5, 4), W, [1, 1, 1, 1, 1], "SAME"), {"batch_dims": 2, "groups": 2},
     r"Stride attribute should contain 4 values, but got: 5 for 'Conv' \(op: 'Conv'\) with input shapes: "
     r"\[1,2,5,5,4\], \[3,3,2,6\]"),
    ((X[0, :, :, :3], W[0], [1, 2, 1], "SAME"), {},
     "Input tensor must be rank 4 or 5, excluding extra batch dimensions, but got: 3"),
    ((X, W, [1, 1, 1, 1], "SAME"), {"groups": 3}, "Number of groups should divide input depth"),
    ((X, W, [1, 1, 1, 1], "SAME"), {}, r"Input depth divided by filter input depth does not match with groups "
                                       r"parameter \(1\)"),
    ((X[..., :2], W, [1, 1, 1, 1], "SAME"), {"dilations": [1, 2, 2, 1], "batch_dims": 0},
     "Input tensor rank must be the same as filter rank."),
    ((X[..., :2], W, [1, 1, 1, 1], "SAME"), {"data_format": "NHWC"},
     "Attr 'data_format' of 'Conv' Op passed string 'NHWC' not in: \"CHANNELS_FIRST\", \"CHANNELS_LAST\"."),
    ((X[..., :2], W, [1, 1, 1, 1], "FULL"), {},
     "Attr 'padding' of 'Conv' Op passed string 'FULL' not in: \"SAME\", \"VALID\", \"EXPLICIT\"."),
]


@pytest.mark.parametrize("args,kwargs,match", CONV_ERRORS)
def test_conv_errors_as_tf(args, kwargs, match):
    with tf.Graph().as_default(), pytest.raises(ValueError, match=match):
        tf.conv(*args, **kwargs)


@pytest.mark.parametrize("kwargs,x_shape", [
    ({}, [2, 5, 5, 2]),
    ({"batch_dims": 2, "strides": [1, 2, 2, 1], "padding": "VALID"}, [1, 2, 5, 5, 2]),
    ({"groups": 2, "dilations": [1, 2, 1, 1]}, [2, 5, 5, 4]),
    ({"data_format": "CHANNELS_FIRST"}, [2, 2, 5, 5]),
])
def test_conv_gradient_which_tf_lacks_matches_finite_differences(kwargs, x_shape):
    kwargs = {"strides": [1, 1, 1, 1], "padding": "SAME", **kwargs}
    rng = np.random.default_rng(3)
    x = rng.standard_normal(x_shape)
    w = rng.standard_normal([3, 2, 2, 4])
    check_gradients(lambda a, b: tf.conv(a, b, **kwargs), x, w)


# -- approx_top_k ---------------------------------------------------------------------------------

T = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 7 % 11) - 5


def test_approx_top_k_is_the_exact_top_k_as_tf_cpu():
    with tf.Graph().as_default():
        values, indices = tf.approx_top_k(T, 2)
        assert (values.op.type, values.shape.as_list(), indices.dtype) == ("ApproxTopK", [2, 3, 2], tf.int32)
        half = tf.approx_top_k(T.astype(np.float16), 2)
        ties = tf.approx_top_k(np.array([1., 3., 3., 2., 3.], np.float32), 2)
        nan = tf.approx_top_k(np.array([1., np.nan, 3., 2.], np.float32), 2)
        empty = tf.approx_top_k(T, 0)
        x = tf.constant(T)
        v, _ = tf.approx_top_k(x, 2)
        grad = tf.gradients(tf.reduce_sum(v * tf.constant([1.0, 2.0])), x)[0]
        with tf.Session() as sess:
            (v, i), (hv, hi), tie, nan, empty, grad = sess.run([(values, indices), half, ties, nan, empty, grad])
    np.testing.assert_array_equal(v, [[[5, 2], [4, 1], [3, -1]], [[5, 2], [4, 0], [3, 2]]])
    np.testing.assert_array_equal(i, [[[3, 1], [2, 0], [1, 2]], [[2, 0], [1, 2], [0, 3]]])
    assert hv.dtype == np.float16 and (hv == v).all() and (hi == i).all()
    assert tie[0].tolist() == [3, 3] and tie[1].tolist() == [1, 2]
    assert np.isnan(nan[0][0]) and nan[0][1] == 3 and nan[1].tolist() == [1, 2]
    assert empty[0].shape == (2, 3, 0)
    np.testing.assert_array_equal(grad, [[[0, 2, 0, 1], [2, 0, 1, 0], [0, 1, 2, 0]],
                                         [[2, 0, 1, 0], [0, 1, 2, 0], [1, 0, 0, 2]]])


def test_approx_top_k_smallest_along_another_axis_where_tf_cpu_has_no_kernel():
    with tf.Graph().as_default():
        x = tf.constant(T)
        v, i = tf.approx_top_k(x, 2, reduction_dimension=1, is_max_k=False)
        grad = tf.gradients(tf.reduce_sum(v * tf.reshape(tf.constant([1.0, 2.0]), [2, 1])), x)[0]
        v, i, grad = tf.Session().run([v, i, grad])
    order = np.argsort(T, axis=1, kind="stable")[:, :2]
    np.testing.assert_array_equal(i, order)
    np.testing.assert_array_equal(v, np.take_along_axis(T, order, 1))
    want = np.zeros_like(T)
    np.put_along_axis(want, order, np.array([1.0, 2.0]).reshape(1, 2, 1) * np.ones((2, 2, 4)), 1)
    np.testing.assert_array_equal(grad, want)


def test_approx_top_k_errors_as_tf():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="input must have last dimension >= k = 3 but was 2"):
            tf.approx_top_k(T, 3, reduction_dimension=0)
        with pytest.raises(ValueError, match=r"Invalid reduction dimension: 3. Must be within the range of \[-3, 2\]"):
            tf.approx_top_k(T, 2, reduction_dimension=3)
        with pytest.raises(TypeError, match="DataType float64 not in list of allowed values: float16, bfloat16"):
            tf.approx_top_k(T.astype(np.float64), 2)
        p = tf.placeholder(tf.float32, [None, None])  # TF refuses unknown dimensions; dflow checks at run time
        v, _ = tf.approx_top_k(p, 2)
        with tf.Session() as sess:
            assert sess.run(v, {p: T[0]}).tolist() == [[5, 2], [4, 1], [3, -1]]
            with pytest.raises(tf.errors.InvalidArgumentError, match="at least k = 2"):
                sess.run(v, {p: T[0, :, :1]})


# -- vectorized_map -------------------------------------------------------------------------------

A = np.arange(6, dtype=np.float32).reshape(3, 2) - 2


def test_vectorized_map_as_tf():
    with tf.Graph().as_default():
        a = tf.constant(A)
        outer = tf.vectorized_map(lambda x: tf.tensordot(x, x, 0), a)
        nested = tf.vectorized_map(lambda t: {"s": t[0] + t[1],
                                              "n": tf.cast(tf.reduce_sum(tf.cast(t[0] > 0, tf.int32)), tf.int64)},
                                   (a, tf.constant([[0.5, -1.0]])))
        squares = tf.vectorized_map(lambda x: tf.reduce_sum(x * x), a)
        grad = tf.gradients(tf.reduce_sum(squares * tf.constant([1.0, 2.0, 3.0])), a)[0]
        rows = tf.vectorized_map(lambda x: tf.matmul(tf.expand_dims(x, 0), tf.ones([2, 3])), a)
        assert [outer.shape.as_list(), nested["s"].shape.as_list(), nested["n"].dtype, rows.shape.as_list()] == \
            [[3, 2, 2], [3, 2], tf.int64, [3, 1, 3]]
        outer, nested, squares, grad, rows = tf.Session().run([outer, nested, squares, grad, rows])
    np.testing.assert_array_equal(outer, [[[4, 2], [2, 1]], [[0, 0], [0, 1]], [[4, 6], [6, 9]]])
    np.testing.assert_array_equal(nested["s"], [[-1.5, -2], [0.5, 0], [2.5, 2]])
    assert nested["n"].tolist() == [0, 1, 2]
    assert squares.tolist() == [5, 1, 13] and grad.tolist() == [[-4, -2], [0, 4], [12, 18]]
    assert rows[:, 0, 0].tolist() == [-3, 1, 5]


def test_vectorized_map_broadcasts_rows_of_one_and_refuses_others():
    with tf.Graph().as_default():
        p, q = tf.placeholder(tf.float32, [None, 2]), tf.placeholder(tf.float32, [None, 2])
        r = tf.vectorized_map(lambda t: t[0] * t[1], (p, q))
        assert tf.Session().run(r, {p: np.ones((3, 2)), q: [[2, 3]]}).tolist() == [[2, 3]] * 3
        with pytest.raises(ValueError, match=r"first dimensions of elems must all be the same or 1, got \[3, 2\]"):
            tf.vectorized_map(lambda t: t[0] + t[1], (tf.constant(A), tf.ones([2, 2])))
        with pytest.raises(ValueError, match="not scalars"):  # TF 2.15 fails with an IndexError
            tf.vectorized_map(lambda x: x, tf.constant(3.0))


# -- random_index_shuffle -------------------------------------------------------------------------

SHUFFLES = [  # (index, seed, max_index, kwargs, TF's output shape, dtype and values)
    (np.arange(10, dtype=np.int32), [1, 2, 3], 9, {}, [10], "int32", [2, 0, 6, 4, 8, 1, 7, 9, 5, 3]),
    (np.arange(10, dtype=np.int64), np.array([1, 2, 3], np.int64), np.int64(9), {}, [10], "int64",
     [2, 0, 6, 4, 8, 1, 7, 9, 5, 3]),
    (np.arange(10, dtype=np.int32), [1, 2, 3], 9, {"rounds": 8}, [10], "int32", [6, 9, 4, 1, 3, 2, 0, 5, 7, 8]),
    (np.array([0, 5, 123456, 999999], np.int64), [7, 8, 9], np.int64(1000000), {}, [4], "int64",
     [96323, 277319, 36936, 445559]),
    (np.array([0, 1, 2 ** 40 + 3], np.uint64), np.array([2 ** 31 + 5, 3, 4], np.uint64), np.uint64(2 ** 41), {},
     [3], "uint64", [195559067, 61341578, 1099833015480]),
    (np.arange(5, dtype=np.int32), [4, 5, 6], 65536, {}, [5], "int32", [22033, 5633, 51397, 47269, 22355]),
    (np.array([65536, 65535, 0], np.int32), [4, 5, 6], 65536, {}, [3], "int32", [22033, 41525, 22033]),
    (np.int32(3), [1, 2, 3], 9, {}, [], "int32", 4),
    (np.arange(3, dtype=np.int32), [1, 2, 3], 0, {}, [3], "int32", [0, 0, 0]),
    (np.array([1, 1, 1], np.int32), [[1, 2, 3], [4, 5, 6], [-1, -2, -3]], 20, {}, [3], "int32", [15, 1, 9]),
    (np.int32(2), [1, 2, 3], [5, 100, 70000], {}, [3], "int32", [3, 82, 36391]),
    (np.array([-1, 3], np.int32), [1, 2, 3], 9, {}, [2], "int32", [1, 4]),
    (np.array([3, 4000000000], np.uint32), np.array([1, 2, 3], np.uint32), np.uint32(4100000000), {}, [2], "uint32",
     [14331041, 181245997]),
    (np.array([15], np.int32), [1, 2, 3], 9, {}, [1], "int32", [0]),
]


@pytest.mark.parametrize("index,seed,max_index,kwargs,shape,dtype,want", SHUFFLES)
def test_random_index_shuffle_as_tf(index, seed, max_index, kwargs, shape, dtype, want):
    with tf.Graph().as_default():
        t = tf.random_index_shuffle(index, seed, max_index, **kwargs)
        assert (t.op.name, t.op.type, t.shape.as_list(), t.dtype.name) == ("RandomIndexShuffle",
                                                                           "RandomIndexShuffle", shape, dtype)
        assert tf.Session().run(t).tolist() == want


def test_random_index_shuffle_is_a_permutation():
    with tf.Graph().as_default():
        for top in (1, 100, 65535, 70000):
            got = tf.Session().run(tf.random_index_shuffle(tf.range(top + 1), [5, 6, 7], top))
            assert sorted(got.tolist()) == list(range(top + 1))


def test_random_index_shuffle_errors_where_tf_errs_or_hangs():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Seed must have shape \[3\] or \[n, 3\] but got \[2\]."):
            tf.random_index_shuffle(3, [1, 2], 9)
        with pytest.raises(TypeError, match="'index' has DataType float32 not in list of allowed values: int32, "
                                            "uint32, int64, uint64"):
            tf.random_index_shuffle(3.0, [1, 2, 3], 9.0)
        for rounds in (2, 5):  # TF reads past its key schedule: garbage, or a hang
            with pytest.raises(ValueError, match=f"rounds must be an even integer >= 4, got {rounds}"):
                tf.random_index_shuffle(3, [1, 2, 3], 9, rounds=rounds)
        # 14's cycle under this key never comes back into [0, 9]: TF 2.15 loops forever.
        with pytest.raises(tf.errors.InvalidArgumentError, match="index 14 is above max_index 9"):
            tf.Session().run(tf.random_index_shuffle(tf.constant([14]), [1, 2, 3], 9))


def test_dtypes_complex_is_complex():
    assert tf.dtypes.complex is tf.complex
