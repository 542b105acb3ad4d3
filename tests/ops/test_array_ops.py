"""Array ops against numpy, and against TF1.15's names, static shapes and errors.

Expected names, shapes and messages were read off ``tensorflow.compat.v1``
in graph mode (and TF1.15's Python sources where TF2 differs).
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.harness import check_op, run

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
M = np.array([[3.0, 1.0, 2.0], [1.0, 5.0, 1.0]], dtype=np.float32)


def a():
    return tf.constant(A)


def m():
    return tf.constant(M)


def i32(x):
    return np.asarray(x, dtype=np.int32)


def f32(x):
    return np.asarray(x, dtype=np.float32)


def _eye_diag(d, k=0):
    out = np.zeros(d.shape[:-1] + (d.shape[-1] + abs(k),) * 2, d.dtype)
    for i in range(d.shape[-1]):
        out[..., i + max(-k, 0), i + max(k, 0)] = d[..., i]
    return out


# (id, build, numpy reference[, static shape]): value, dtype and static shape must all match;
# the static shape is the value's unless TF1 leaves dimensions unknown.
CASES = [
    ("concat0", lambda: tf.concat([a(), a()], 0), np.concatenate([A, A], 0)),
    ("concat-1", lambda: tf.concat([a(), a()[..., :1]], -1), np.concatenate([A, A[..., :1]], -1)),
    ("concat_lists", lambda: tf.concat([[1, 2], [3]], 0), i32([1, 2, 3])),
    ("concat_one", lambda: tf.concat(a(), 0), A),
    ("concat_axis_tensor", lambda: tf.concat([m(), m()], tf.constant(1, tf.int64)), np.concatenate([M, M], 1)),
    ("slice", lambda: tf.slice(a(), [0, 1, 0], [1, -1, 2]), A[0:1, 1:, 0:2]),
    ("strided_slice", lambda: tf.strided_slice(a(), [1, -1, 0], [2, -3, 3], [1, -1, 1]), A[1:2, -1:-3:-1, 0:3]),
    ("strided_slice_masks", lambda: tf.strided_slice(a(), [0, 0], [2, 2], [1, 1], shrink_axis_mask=1), A[0, 0:2]),
    ("strided_slice_ellipsis", lambda: tf.strided_slice(a(), [0, 1], [0, 2], ellipsis_mask=1), A[..., 1:2]),
    ("strided_slice_newaxis", lambda: tf.strided_slice(a(), [0, 1], [0, 3], new_axis_mask=1, end_mask=2),
     A[None, 1:]),
    ("split_num", lambda: tf.split(a(), 2, 2)[1], np.split(A, 2, 2)[1]),
    ("split_one", lambda: tf.split(a(), 1, 1)[0], A),
    ("split_sizes", lambda: tf.split(a(), [1, 2], 1)[1], A[:, 1:]),
    ("split_minus1", lambda: tf.split(a(), [-1, 1], -1)[0], A[..., :3]),
    ("rank", lambda: tf.rank(a()), np.int32(3)),
    ("shape", lambda: tf.shape(a()), i32([2, 3, 4])),
    ("shape_int64", lambda: tf.shape(a(), out_type=tf.int64), np.array([2, 3, 4], np.int64)),
    ("size", lambda: tf.size(a()), np.int32(24)),
    ("shape_n", lambda: tf.shape_n([a(), m()])[1], i32([2, 3])),
    ("reshape", lambda: tf.reshape(a(), [4, -1]), A.reshape(4, -1)),
    ("reshape_scalar", lambda: tf.reshape(tf.constant([7]), []), np.int32(7)),
    ("reshape_shape_tensor", lambda: tf.reshape(a(), tf.shape(tf.zeros([4, 6]))[::-1]), A.reshape(6, 4)),
    ("transpose", lambda: tf.transpose(a()), A.T),
    ("transpose_perm", lambda: tf.transpose(a(), [1, 0, 2]), A.transpose(1, 0, 2)),
    ("transpose_conj", lambda: tf.transpose(tf.constant([[1 + 2j, 3j]]), conjugate=True),
     np.array([[1 - 2j], [-3j]], np.complex128)),
    ("expand_dims", lambda: tf.expand_dims(a(), -1), A[..., None]),
    ("expand_dims_dim", lambda: tf.expand_dims(a(), dim=1), A[:, None]),
    ("squeeze", lambda: tf.squeeze(tf.zeros([1, 2, 1])), np.zeros(2, np.float32)),
    ("squeeze_axis", lambda: tf.squeeze(tf.zeros([1, 2, 1]), [-1]), np.zeros((1, 2), np.float32)),
    ("squeeze_dims", lambda: tf.squeeze(tf.zeros([1, 2, 1]), squeeze_dims=[0]), np.zeros((2, 1), np.float32)),
    ("stack", lambda: tf.stack([a(), a()], axis=1), np.stack([A, A], 1)),
    ("stack_neg_axis", lambda: tf.stack([m(), m()], axis=-1), np.stack([M, M], -1)),
    ("stack_consts", lambda: tf.stack([1.0, 2]), f32([1, 2])),
    ("stack_mixed", lambda: tf.stack([tf.constant(1.0), 2]), f32([1, 2])),
    ("stack_nested", lambda: tf.stack([[m()[0], m()[1]], [m()[1], m()[0]]]), np.array([[M[0], M[1]], [M[1], M[0]]])),
    ("unstack", lambda: tf.unstack(a(), axis=1)[2], A[:, 2]),
    ("unstack_num", lambda: tf.unstack(m(), num=2)[1], M[1]),
    ("gather", lambda: tf.gather(a(), [1, 0]), A[[1, 0]]),
    ("gather_scalar", lambda: tf.gather(a(), 1), A[1]),
    ("gather_axis", lambda: tf.gather(a(), [[0, 2]], axis=1), np.take(A, [[0, 2]], 1)),
    ("gather_axis-1", lambda: tf.gather(a(), tf.constant([0, 3], tf.int64), axis=-1), A[..., [0, 3]]),
    ("gather_list", lambda: tf.gather([1, 2, 3], [2, 0]), i32([3, 1])),
    ("gather_batch", lambda: tf.gather(a(), [[0, 2], [1, 1]], batch_dims=1),
     f32([[[0, 1, 2, 3], [8, 9, 10, 11]], [[16, 17, 18, 19], [16, 17, 18, 19]]])),
    ("gather_batch_axis2", lambda: tf.gather(a(), [[0, 2], [1, 1]], axis=2, batch_dims=1),
     f32([[[0, 2], [4, 6], [8, 10]], [[13, 13], [17, 17], [21, 21]]])),
    ("gather_nd", lambda: tf.gather_nd(a(), [[0, 1], [1, 2]]), A[[0, 1], [1, 2]]),
    ("gather_nd_full", lambda: tf.gather_nd(a(), [[0, 1, 2]]), f32([6])),
    ("gather_nd_slice", lambda: tf.gather_nd(a(), [1]), A[1]),
    ("gather_nd_batch", lambda: tf.gather_nd(a(), [[1], [0]], batch_dims=1), f32([[4, 5, 6, 7], [12, 13, 14, 15]])),
    ("tile", lambda: tf.tile(m(), [2, 1]), np.tile(M, [2, 1])),
    ("tile_zero", lambda: tf.tile(m(), [0, 2]), np.zeros((0, 6), np.float32)),
    ("pad", lambda: tf.pad(m(), [[1, 0], [0, 2]]), np.pad(M, [[1, 0], [0, 2]])),
    ("pad_value", lambda: tf.pad(m(), [[1, 0], [0, 2]], constant_values=9),
     np.pad(M, [[1, 0], [0, 2]], constant_values=9)),
    ("pad_reflect", lambda: tf.pad(m(), [[1, 1], [2, 2]], "REFLECT"), np.pad(M, [[1, 1], [2, 2]], "reflect")),
    ("pad_symmetric", lambda: tf.pad(m(), [[1, 1], [2, 3]], "symmetric"), np.pad(M, [[1, 1], [2, 3]], "symmetric")),
    ("one_hot", lambda: tf.one_hot([0, 2, -1, 5], 3), f32([[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])),
    ("one_hot_axis0", lambda: tf.one_hot([[1, -1], [3, 0]], 4, axis=0, on_value=2.0, off_value=-1.0),
     f32([[[-1, -1], [-1, 2]], [[2, -1], [-1, -1]], [[-1, -1], [-1, -1]], [[-1, -1], [2, -1]]])),
    ("one_hot_int", lambda: tf.one_hot([0, 2], 3, on_value=5, off_value=-1), i32([[5, -1, -1], [-1, -1, 5]])),
    ("one_hot_dtype", lambda: tf.one_hot(tf.constant([0, 2], tf.int64), 3, dtype=tf.int64),
     np.array([[1, 0, 0], [0, 0, 1]], np.int64)),
    ("one_hot_bool", lambda: tf.one_hot([1], 2, on_value=True, off_value=False), np.array([[False, True]])),
    ("one_hot_scalar", lambda: tf.one_hot(1, 3), f32([0, 1, 0])),
    ("zeros", lambda: tf.zeros([2, 3], tf.int32), np.zeros((2, 3), np.int32)),
    ("zeros_big", lambda: tf.zeros([1000]), np.zeros(1000, np.float32)),
    ("zeros_bool", lambda: tf.zeros([2], tf.bool), np.zeros(2, bool)),
    ("zeros_string", lambda: tf.zeros([2], tf.string), np.array([b"", b""], object)),
    ("zeros_shape_tensor", lambda: tf.zeros(tf.constant([2, 3])), np.zeros((2, 3), np.float32)),
    ("zeros_scalar_shape_tensor", lambda: tf.zeros(tf.constant(3)), np.zeros(3, np.float32)),
    ("ones", lambda: tf.ones([10, 100], tf.int64), np.ones((10, 100), np.int64)),
    ("ones_tensorshape", lambda: tf.ones(tf.TensorShape([2, 1])), np.ones((2, 1), np.float32)),
    ("zeros_like", lambda: tf.zeros_like(a()), np.zeros_like(A)),
    ("zeros_like_dtype", lambda: tf.zeros_like(m(), dtype=tf.int32), np.zeros((2, 3), np.int32)),
    ("zeros_like_list", lambda: tf.zeros_like([1, 2]), i32([0, 0])),
    ("ones_like", lambda: tf.ones_like(a()), np.ones_like(A)),
    ("ones_like_bool", lambda: tf.ones_like(m(), dtype=tf.bool), np.ones((2, 3), bool)),
    ("fill", lambda: tf.fill([2, 3], 9), np.full((2, 3), 9, np.int32)),
    ("fill_float", lambda: tf.fill([2], 9.5), f32([9.5, 9.5])),
    ("fill_string", lambda: tf.fill([2], "a"), np.array([b"a", b"a"], object)),
    ("fill_dims_tensor", lambda: tf.fill(tf.shape(m()), tf.constant(3, tf.int64)), np.full((2, 3), 3, np.int64)),
    ("range", lambda: tf.range(5), i32([0, 1, 2, 3, 4])),
    ("range_delta", lambda: tf.range(1, 10, 3), i32([1, 4, 7])),
    ("range_negative", lambda: tf.range(10, 1, -3), i32([10, 7, 4])),
    ("range_float", lambda: tf.range(0.3, 2.1, 0.3), f32([0.3, 0.6, 0.90000004, 1.2, 1.5, 1.8])),
    ("range_mixed", lambda: tf.range(0, 5.5), f32([0, 1, 2, 3, 4, 5])),
    ("range_dtype", lambda: tf.range(5, dtype=tf.float64), np.arange(5, dtype=np.float64)),
    ("range_tensor", lambda: tf.range(tf.constant(5, tf.int64)), np.arange(5, dtype=np.int64)),
    ("range_tensor_mixed", lambda: tf.range(tf.constant(1, tf.int64), 5.0), f32([1, 2, 3, 4])),
    ("range_empty", lambda: tf.range(3, 3), np.zeros(0, np.int32)),
    ("linspace", lambda: tf.linspace(0.0, 1.0, 5), f32([0, 0.25, 0.5, 0.75, 1])),
    ("linspace_7", lambda: tf.linspace(0.0, 1.0, 7),
     f32([0, 0.16666667, 0.33333334, 0.5, 0.6666667, 0.8333334, 1])),
    ("linspace_one", lambda: tf.lin_space(2.0, 3.0, 1), f32([2])),
    ("linspace_f64", lambda: tf.linspace(tf.constant(0.0, tf.float64), 1.0, 3), np.array([0, 0.5, 1], np.float64)),
    ("reverse", lambda: tf.reverse(a(), [0, -1]), A[::-1, :, ::-1]),
    ("reverse_none", lambda: tf.reverse(a(), []), A),
    ("reverse_v2", lambda: tf.reverse_v2(a(), [1]), A[:, ::-1]),
    ("reverse_sequence", lambda: tf.reverse_sequence(a(), [1, 3], seq_axis=1, batch_axis=0),
     np.stack([A[0], A[1, ::-1]])),
    ("reverse_sequence_dims", lambda: tf.reverse_sequence(a(), [4, 0, 2], seq_dim=2, batch_dim=1),
     np.stack([A[:, 0, ::-1], A[:, 1], A[:, 2, [1, 0, 2, 3]]], 1)),
    ("boolean_mask", lambda: tf.boolean_mask(a(), [True, False]), A[[True, False]], [None, 3, 4]),
    ("boolean_mask_2d", lambda: tf.boolean_mask(a(), [[True, False, True], [False, False, True]]),
     A[np.array([[True, False, True], [False, False, True]])], [None, 4]),
    ("boolean_mask_axis", lambda: tf.boolean_mask(a(), [True, False, True], axis=1), A[:, [0, 2]], [2, None, 4]),
    ("unique", lambda: tf.unique([4, 1, 4, 2, 1]).y, i32([4, 1, 2]), [None]),
    ("unique_idx", lambda: tf.unique([4, 1, 4, 2, 1])[1], i32([0, 1, 0, 2, 1])),
    ("unique_int64", lambda: tf.unique([4.0, 1.0, 4.0], out_idx=tf.int64).idx, np.array([0, 1, 0], np.int64)),
    ("unique_strings", lambda: tf.unique(["b", "a", "b"]).y, np.array([b"b", b"a"], object), [None]),
    ("unique_nan", lambda: tf.unique([1.0, float("nan"), float("nan")]).y, f32([1, np.nan, np.nan]), [None]),
    ("unique_counts", lambda: tf.unique_with_counts([4, 1, 4, 2, 1]).count, i32([2, 2, 1]), [None]),
    ("broadcast_to", lambda: tf.broadcast_to([1, 2, 3], [2, 3]), i32([[1, 2, 3], [1, 2, 3]])),
    ("sequence_mask", lambda: tf.sequence_mask([1, 3, 0], 4),
     np.array([[1, 0, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0]], bool)),
    ("sequence_mask_nomax", lambda: tf.sequence_mask([[1, 3], [2, 0]]),
     np.array([[[1, 0, 0], [1, 1, 1]], [[1, 1, 0], [0, 0, 0]]], bool)),
    ("sequence_mask_float", lambda: tf.sequence_mask([1, 3], 4, dtype=tf.float32), f32([[1, 0, 0, 0], [1, 1, 1, 0]])),
    ("sequence_mask_int64", lambda: tf.sequence_mask(tf.constant([1, 2], tf.int64), 3),
     np.array([[1, 0, 0], [1, 1, 0]], bool)),
    ("eye", lambda: tf.eye(3), np.eye(3, dtype=np.float32)),
    ("eye_rect", lambda: tf.eye(2, 3, dtype=tf.int32), np.eye(2, 3, dtype=np.int32)),
    ("eye_batch", lambda: tf.eye(2, 3, batch_shape=[1, 2]), np.broadcast_to(np.eye(2, 3, dtype=np.float32),
                                                                              (1, 2, 2, 3))),
    ("eye_bool", lambda: tf.linalg.eye(2, dtype=tf.bool), np.eye(2, dtype=bool)),
    ("matrix_diag", lambda: tf.matrix_diag([[1, 2], [3, 4]]), _eye_diag(i32([[1, 2], [3, 4]]))),
    ("matrix_diag_k", lambda: tf.linalg.diag([1, 2], k=1), _eye_diag(i32([1, 2]), 1)),
    ("matrix_diag_rows", lambda: tf.linalg.diag([1, 2], k=-1, num_rows=3, num_cols=4),
     i32([[0, 0, 0, 0], [1, 0, 0, 0], [0, 2, 0, 0]])),
    ("matrix_diag_pad", lambda: tf.linalg.diag([1, 2], k=-1, num_rows=3, padding_value=9),
     i32([[9, 9], [1, 9], [9, 2]])),
    ("matrix_diag_part", lambda: tf.matrix_diag_part(np.arange(24).reshape(2, 3, 4)),
     np.array([[0, 5, 10], [12, 17, 22]])),
    ("matrix_diag_part_k", lambda: tf.linalg.diag_part(np.arange(12).reshape(3, 4), k=-2), np.array([8])),
    ("matrix_set_diag", lambda: tf.matrix_set_diag(np.zeros((2, 3)), [1.0, 2.0]), np.array([[1.0, 0, 0], [0, 2, 0]])),
    ("sort", lambda: tf.sort(m()), np.sort(M)),
    ("sort_desc", lambda: tf.sort(m(), direction="DESCENDING"), -np.sort(-M)),
    ("sort_axis0", lambda: tf.sort(m(), axis=0), np.sort(M, 0)),
    ("sort_int", lambda: tf.sort([3, 1, 2]), i32([1, 2, 3])),
    ("argsort", lambda: tf.argsort(m()), i32([[1, 2, 0], [0, 2, 1]])),
    ("argsort_desc", lambda: tf.argsort(m(), direction="DESCENDING"), i32([[0, 2, 1], [1, 0, 2]])),
    ("argsort_axis0", lambda: tf.argsort(m(), axis=0), i32([[1, 0, 1], [0, 1, 0]])),
    ("argsort_ties", lambda: tf.argsort([1, 2, 1, 2]), i32([0, 2, 1, 3])),
    ("argsort_ties_desc", lambda: tf.argsort([1, 2, 1, 2], direction="DESCENDING"), i32([1, 3, 0, 2])),
    ("top_k", lambda: tf.nn.top_k(m(), 2).values, f32([[3, 2], [5, 1]])),
    ("top_k_indices", lambda: tf.math.top_k(m(), 2)[1], i32([[0, 2], [1, 0]])),
    ("top_k_default", lambda: tf.nn.top_k(m()).indices, i32([[0], [1]])),
    ("top_k_ties", lambda: tf.nn.top_k([1, 2, 1, 2], 3).indices, i32([1, 3, 0])),
    ("stop_gradient", lambda: tf.stop_gradient(a()), A),
    ("identity_n", lambda: tf.identity_n([a(), tf.constant(1)])[1], np.int32(1)),
    ("meshgrid_xy", lambda: tf.meshgrid([1, 2, 3], [4, 5])[1], i32([[4, 4, 4], [5, 5, 5]])),
    ("meshgrid_ij", lambda: tf.meshgrid([1, 2, 3], [4, 5], indexing="ij")[0], i32([[1, 1], [2, 2], [3, 3]])),
    ("meshgrid_3", lambda: tf.meshgrid([1, 2], [3, 4, 5], [6])[1],
     np.meshgrid([1, 2], [3, 4, 5], [6])[1].astype(np.int32)),
    ("meshgrid_1", lambda: tf.meshgrid([1.0, 2.0])[0], f32([1, 2])),
]


@pytest.mark.parametrize("build, expected, static", [pytest.param(*c[1:3], c[3] if len(c) > 3 else "same", id=c[0])
                                                     for c in CASES])
def test_op_matches_numpy(build, expected, static):
    check_op(build, expected, shape=static)


# -- slicing: t[spec] against numpy a[spec] ----------------------------------------------------

SPECS = [
    0, -1, 1, (0, 1), (0, 1, 2), (-1, -2, -3), (slice(None),), slice(1, None), slice(None, -1),
    slice(None, None, 2), slice(None, None, -1), slice(-1, None, -2), slice(5, -10, -1), slice(100, 200),
    slice(-100, 100, 3), (slice(None), slice(None, None, -2)), (slice(None), 1, slice(1, 3)),
    (Ellipsis,), (Ellipsis, 1), (Ellipsis, None), (None,), (None, 0), (1, Ellipsis, slice(None, None, -1)),
    (slice(None), None, 1, slice(1, 3)), (), (Ellipsis, None, None), (slice(1, None), Ellipsis, 2, None),
    (-2, slice(None), -1), (None, Ellipsis, None, 0), (0, slice(3, 0, -1), slice(None, None, 3)),
    (slice(2, 0), 0), (np.int64(1), np.int32(-1)),
]


@pytest.mark.parametrize("spec", [pytest.param(s, id=repr(s)) for s in SPECS])
def test_getitem_matches_numpy(spec):
    check_op(lambda: a()[spec], A[spec])


def test_getitem_with_tensor_indices():
    check_op(lambda: a()[tf.constant(1)], A[1])
    check_op(lambda: a()[tf.constant(1, tf.int64), 1:], A[1, 1:])
    check_op(lambda: a()[:, tf.constant(-1)], A[:, -1])
    i = tf.placeholder(tf.int32, [])
    check_op(lambda: a()[i], A[1], feed_dict={i: 1}, shape=[3, 4])
    check_op(lambda: a()[i:, 1], A[1:, 1], feed_dict={i: 1}, shape=[None, 4])
    check_op(lambda: a()[::i], A[::2], feed_dict={i: 2}, shape=None)


def test_getitem_list_is_a_tuple_and_bool_is_a_mask():
    # TF1 reads t[[0, 1]] as t[0, 1], not numpy's fancy indexing.
    check_op(lambda: a()[[0, 1]], A[0, 1])
    t = a()[tf.constant([True, False])]
    assert t.name == "boolean_mask/GatherV2:0"
    np.testing.assert_array_equal(run(t), A[:1])


def test_getitem_unknown_rank():
    p = tf.placeholder(tf.float32)
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    t = p[0]
    assert t.shape.ndims is None
    np.testing.assert_array_equal(run(t, {p: x}), x[0])
    np.testing.assert_array_equal(run(p[..., 1:, tf.newaxis], {p: x}), x[..., 1:, None])


def test_static_slices_are_attrs_and_dynamic_ones_inputs():
    s = a()[1:, 0]
    assert len(s.op.inputs) == 1 and s.op.get_attr("begin") == (1, 0)
    assert s.op.get_attr("shrink_axis_mask") == 2 and s.op.get_attr("end_mask") == 1
    i = tf.placeholder(tf.int32, [])
    d = a()[i]
    assert [t.op.name for t in d.op.inputs[1:]] == ["strided_slice_1/stack", "strided_slice_1/stack_1",
                                                    "strided_slice_1/stack_2"]


# -- unknown dimensions, fed at run time ----------------------------------------------------

FED = [
    # (id, placeholder shape, dtype, build(p), fed value, static shape TF1 infers, numpy reference)
    ("reshape", [None, 6], tf.float32, lambda p: tf.reshape(p, [-1, 3]), np.ones((2, 6)), [None, 3],
     lambda v: v.reshape(-1, 3)),
    ("reshape_merge", [None, 2, 3], tf.float32, lambda p: tf.reshape(p, [-1, 6]), np.ones((2, 2, 3)), [None, 6],
     lambda v: v.reshape(-1, 6)),
    ("reshape_pack", [None, 2, 3], tf.float32, lambda p: tf.reshape(p, [tf.shape(p)[0], -1]), np.ones((2, 2, 3)),
     [None, None], lambda v: v.reshape(2, -1)),
    ("reshape_known_dim", [None, 3], tf.float32, lambda p: tf.reshape(p, [tf.shape(p)[1], -1]), np.ones((2, 3)),
     [3, None], lambda v: v.reshape(3, -1)),
    ("zeros_known_dim", [None, 3], tf.float32, lambda p: tf.zeros([tf.shape(p)[1]]), np.ones((2, 3)), [3],
     lambda v: np.zeros(3, np.float32)),
    ("reshape_partial", [2, None], tf.float32, lambda p: tf.reshape(p, [2, -1, 1]), np.ones((2, 3)), [2, None, 1],
     lambda v: v.reshape(2, -1, 1)),
    ("reshape_like", [None, 3], tf.float32, lambda p: tf.reshape(tf.identity(p), tf.shape(p)), np.ones((2, 3)),
     [None, 3], lambda v: v),
    ("transpose", [None, 3], tf.float32, lambda p: tf.transpose(p), np.ones((2, 3)), [3, None], lambda v: v.T),
    ("transpose_unknown", None, tf.float32, lambda p: tf.transpose(p), np.ones((2, 3, 4)), None,
     lambda v: v.transpose()),
    ("squeeze_axis", [None, 1, 3], tf.float32, lambda p: tf.squeeze(p, [1]), np.ones((2, 1, 3)), [None, 3],
     lambda v: v[:, 0]),
    ("squeeze_all", [None, 3], tf.float32, lambda p: tf.squeeze(p), np.ones((1, 3)), None, lambda v: v[0]),
    ("expand_dims", [None], tf.float32, lambda p: tf.expand_dims(p, 0), np.ones(3), [1, None], lambda v: v[None]),
    ("concat", [None, 3], tf.float32, lambda p: tf.concat([p, m()], 0), np.ones((1, 3)), [None, 3],
     lambda v: np.concatenate([v, M])),
    ("split", [None, 4], tf.float32, lambda p: tf.split(p, 2, 1)[1], np.arange(8.0).reshape(2, 4), [None, 2],
     lambda v: v[:, 2:]),
    ("split_sizes", [None, 4], tf.float32, lambda p: tf.split(p, [1, -1], 0)[1], np.arange(8.0).reshape(2, 4),
     [None, 4], lambda v: v[1:]),
    ("stack", [None], tf.float32, lambda p: tf.stack([p, p], 1), np.ones(3), [None, 2], lambda v: np.stack([v, v], 1)),
    ("gather", [None, 3], tf.float32, lambda p: tf.gather(p, [1, 0]), np.arange(6.0).reshape(2, 3), [2, 3],
     lambda v: v[[1, 0]]),
    ("gather_nd", [None, 3], tf.float32, lambda p: tf.gather_nd(p, [[1, 2]]), np.arange(6.0).reshape(2, 3), [1],
     lambda v: v[[1], [2]]),
    ("tile", [None, 3], tf.float32, lambda p: tf.tile(p, [2, 2]), np.ones((1, 3)), [None, 6],
     lambda v: np.tile(v, [2, 2])),
    ("pad", [None, 3], tf.float32, lambda p: tf.pad(p, [[1, 0], [0, 2]]), np.ones((2, 3)), [None, 5],
     lambda v: np.pad(v, [[1, 0], [0, 2]])),
    ("slice", [None, 3], tf.float32, lambda p: tf.slice(p, [1, 1], [-1, 2]), np.ones((3, 3)), [None, 2],
     lambda v: v[1:, 1:]),
    ("getitem", [None, 3], tf.float32, lambda p: p[1:, 0], np.arange(9.0).reshape(3, 3), [None], lambda v: v[1:, 0]),
    ("getitem_reverse", [None, 3], tf.float32, lambda p: p[::-1, 1:], np.arange(9.0).reshape(3, 3), [None, 2],
     lambda v: v[::-1, 1:]),
    ("getitem_shrink", [None, 3], tf.float32, lambda p: p[-1], np.arange(9.0).reshape(3, 3), [3], lambda v: v[-1]),
    ("shape", [None, 3], tf.float32, lambda p: tf.shape(p), np.ones((2, 3)), [2], lambda v: i32(v.shape)),
    ("size", [None, 3], tf.float32, lambda p: tf.size(p, out_type=tf.int64), np.ones((2, 3)), [],
     lambda v: np.int64(v.size)),
    ("rank", None, tf.float32, lambda p: tf.rank(p), np.ones((2, 3)), [], lambda v: np.int32(v.ndim)),
    ("zeros_like", [None, 3], tf.float32, lambda p: tf.zeros_like(p), np.ones((2, 3)), [None, 3], np.zeros_like),
    ("ones_like", [None, 3], tf.float32, lambda p: tf.ones_like(p), np.ones((2, 3)), [None, 3], np.ones_like),
    ("zeros_like_dtype", [None, 3], tf.float32, lambda p: tf.zeros_like(p, dtype=tf.int32), np.ones((2, 3)),
     [None, 3], lambda v: np.zeros(v.shape, np.int32)),
    ("zeros_of_shape", [None, 3], tf.float32, lambda p: tf.zeros(tf.shape(p)), np.ones((2, 3)), [None, 3],
     np.zeros_like),
    ("zeros_partial_list", [None, 5], tf.float32, lambda p: tf.zeros([tf.shape(p)[0], 3]), np.ones((2, 5)), [None, 3],
     lambda v: np.zeros((2, 3), np.float32)),
    ("fill", [None, 3], tf.float32, lambda p: tf.fill(tf.shape(p), 2.0), np.ones((2, 3)), [None, 3],
     lambda v: np.full(v.shape, 2, np.float32)),
    ("boolean_mask", [None], tf.bool, lambda p: tf.boolean_mask(tf.ones([3, 2]), p), [True, False, True], [None, 2],
     lambda v: np.ones((2, 2), np.float32)),
    ("one_hot", [None], tf.int32, lambda p: tf.one_hot(p, 3), [2, 0], [None, 3],
     lambda v: np.eye(3, dtype=np.float32)[v]),
    ("one_hot_depth", [], tf.int32, lambda p: tf.one_hot([0, 2], p), 3, [2, None],
     lambda v: np.eye(3, dtype=np.float32)[[0, 2]]),
    ("sequence_mask", [None], tf.int32, lambda p: tf.sequence_mask(p), [1, 2], [None, None],
     lambda v: np.array([[1, 0], [1, 1]], bool)),
    ("top_k", [None, None], tf.float32, lambda p: tf.nn.top_k(p, 2).values, M, [None, 2],
     lambda v: f32([[3, 2], [5, 1]])),
    ("top_k_k", [], tf.int32, lambda p: tf.nn.top_k(m(), p).indices, 1, [2, None], lambda v: i32([[0], [1]])),
    ("unique", [None], tf.int32, lambda p: tf.unique(p).y, [3, 3, 1], [None], lambda v: i32([3, 1])),
    ("broadcast_to", [None, 3], tf.float32, lambda p: tf.broadcast_to(p, [2, 3]), np.ones((1, 3)), [2, 3],
     lambda v: np.ones((2, 3), np.float32)),
    ("range", [], tf.int32, lambda p: tf.range(p), 3, [None], lambda v: i32([0, 1, 2])),
    ("linspace", [], tf.int32, lambda p: tf.linspace(0.0, 1.0, p), 3, [None], lambda v: f32([0, 0.5, 1])),
    ("eye", [], tf.int32, lambda p: tf.eye(p), 2, [None, None], lambda v: np.eye(2, dtype=np.float32)),
    ("eye_rect", [], tf.int32, lambda p: tf.eye(p, 3), 2, [None, 3], lambda v: np.eye(2, 3, dtype=np.float32)),
    ("matrix_diag", [None, 3], tf.float32, lambda p: tf.matrix_diag(p), np.ones((2, 3)), [None, 3, 3],
     lambda v: _eye_diag(v.astype(np.float32))),
    ("meshgrid", [None], tf.float32, lambda p: tf.meshgrid(p, [1.0, 2.0, 3.0])[0], np.ones(2), [3, None],
     lambda v: np.ones((3, 2), np.float32)),
    ("sort", [None, 3], tf.float32, lambda p: tf.sort(p), M, [None, 3], lambda v: np.sort(v)),
]


@pytest.mark.parametrize("shape, dtype, build, value, static, ref",
                         [pytest.param(*c[1:], id=c[0]) for c in FED])
def test_fed_unknown_dims(shape, dtype, build, value, static, ref):
    p = tf.placeholder(dtype, shape)
    value = np.asarray(value, dtype=dtype.as_numpy_dtype)
    t = build(p)
    if static is None:
        assert t.shape.ndims is None
    check_op(lambda: t, ref(value), feed_dict={p: value}, shape=static)


def test_fed_shape_argument_overrides_constant():
    # A Tensor shape stays an input, so feeding it (even a Const) changes the result.
    s = tf.constant([2, 3])
    y = tf.reshape(tf.range(6), s)
    assert y.shape.as_list() == [2, 3]
    assert run(y, {s: [3, 2]}).shape == (3, 2)


def test_shape_folds_once_static_shape_is_set():
    p = tf.placeholder(tf.float32)
    s = tf.shape(p)
    assert s.op.type == "Shape"
    p.set_shape([2, 3])
    assert tf.reshape(tf.zeros([6]), s).shape.as_list() == [2, 3]
    assert tf.zeros(s).shape.as_list() == [2, 3]


# -- errors ------------------------------------------------------------------------------------

STATIC_ERRORS = [
    (lambda: tf.reshape(m(), [4]), ValueError,
     "Cannot reshape a tensor with 6 elements to shape [4] (4 elements) for 'Reshape' (op: 'Reshape')"),
    (lambda: tf.reshape(m(), [-1, 4]), ValueError, "Dimension size must be evenly divisible by 4 but is 6"),
    (lambda: tf.reshape(m(), [-2, 3]), ValueError, "Invalid value in tensor used for shape: -2"),
    (lambda: tf.reshape(m(), [2.5]), TypeError, "Value passed to parameter 'shape' has DataType float32"),
    (lambda: tf.transpose(m(), [0, 1, 2]), ValueError, "Dimension must be 2 but is 3"),
    (lambda: tf.expand_dims(m(), 3), ValueError, "dim 3 not in the interval [-3, 2]."),
    (lambda: tf.expand_dims(m()), ValueError, "Must specify an axis argument to tf.expand_dims()"),
    (lambda: tf.squeeze(m(), [0]), ValueError, "Can not squeeze dim[0], expected a dimension of 1, got 2"),
    (lambda: tf.squeeze(tf.zeros([1, 2, 1]), 3), ValueError, "squeeze_dims[0] not in [-3,3)."),
    (lambda: tf.stack([m(), tf.zeros([3])]), ValueError, "Shapes must be equal rank, but are 2 and 1"),
    (lambda: tf.stack([m(), m()], axis=3), ValueError, "axis = 3 not in [-3, 3)"),
    (lambda: tf.stack([tf.constant(1), tf.constant(2.0)], axis=0), TypeError,
     "Cannot convert a list containing a tensor of dtype float32 to int32"),
    (lambda: tf.stack([tf.constant(1), tf.constant(2.0)], axis=1), TypeError,
     "Tensors in list passed to 'values' of 'Pack' Op have types [int32, float32] that don't all match."),
    (lambda: tf.unstack(tf.placeholder(tf.float32, [None, 2])), ValueError, "Cannot infer num from shape (?, 2)"),
    (lambda: tf.unstack(m(), axis=2), ValueError, "axis = 2 not in [-2, 2)"),
    (lambda: tf.unstack(m(), num=3), ValueError, "Dimension must be 3 but is 2"),
    (lambda: tf.concat([m(), tf.zeros([2, 4])], 0), ValueError,
     "Dimension 0 in both shapes must be equal, but are 3 and 4. Shapes are [3] and [4]."),
    (lambda: tf.concat([m(), tf.zeros([2])], 0), ValueError, "Shape must be rank 2 but is rank 1"),
    (lambda: tf.concat([m(), m()], 2), ValueError, "Shape must be at least rank 3 but is rank 2"),
    (lambda: tf.concat([m(), tf.zeros([2, 3], tf.int32)], 0), TypeError,
     "Tensors in list passed to 'values' of 'ConcatV2' Op have types [float32, int32] that don't all match."),
    (lambda: tf.split(m(), 2, 1), ValueError, "Dimension size must be evenly divisible by 2 but is 3"),
    (lambda: tf.split(m(), [1, 1], 1), ValueError, "can't split axis of size 3 into pieces of size [1,1]"),
    (lambda: tf.split(m(), [-1, -1], 1), ValueError, "size_splits can only have one -1"),
    (lambda: tf.split(m(), 1, 2), ValueError, "Dimension size, given by scalar input 2 must be in range [-2, 2)"),
    (lambda: tf.split(m(), tf.placeholder(tf.int32, [None]), 1), ValueError, "Cannot infer num from shape"),
    (lambda: tf.tile(m(), [2]), ValueError, "Shape must be rank 2 but is rank 1"),
    (lambda: tf.pad(m(), [[2, 0]], "FOO"), ValueError, "Unknown padding mode: FOO"),
    (lambda: tf.pad(m(), [[2, 0]]), ValueError, "Shape must be rank 1 but is rank 2"),
    (lambda: tf.pad(m(), [[-1, 0], [0, 0]]), ValueError, "Paddings must be non-negative"),
    (lambda: tf.pad(tf.constant([1, 2]), [[1, 1]], constant_values=1.5), TypeError, "Expected int32"),
    (lambda: tf.one_hot([0, 2], 3, on_value=1.0, dtype=tf.int32), TypeError,
     "dtype <dtype: 'float32'> of on_value does not match dtype parameter <dtype: 'int32'>"),  # TF's words
    (lambda: tf.one_hot([0, 2], 3, on_value=1.0, off_value=0), TypeError, "of on_value does not match dtype"),
    (lambda: tf.one_hot([0.0, 2.0], 3), TypeError, "parameter 'indices' has DataType float32"),
    (lambda: tf.one_hot([0, 2], -1), ValueError, "must be non-negative but is -1"),
    (lambda: tf.fill([2, 3], [1, 2]), ValueError, "Shape must be rank 0 but is rank 1"),
    (lambda: tf.fill([-2, 3], 1), ValueError, "Invalid value in tensor used for shape: -2"),
    (lambda: tf.fill([-1, 3], 1), ValueError, "Fill dimensions must be >= 0"),
    (lambda: tf.zeros([-1, 3]), ValueError, "Dimension -1 must be >= 0"),
    (lambda: tf.ones([2], tf.string), TypeError, "Expected string"),
    (lambda: tf.range(0, 5, 0), ValueError, "Requires delta != 0"),
    (lambda: tf.range(5, 1), ValueError, "Requires start <= limit when delta > 0: 5/1"),
    (lambda: tf.range(1, 5, -1), ValueError, "Requires start >= limit when delta < 0: 1/5"),
    (lambda: tf.range(0.5, 3, dtype=tf.int32), TypeError, "Expected int32"),
    (lambda: tf.linspace(0, 1, 3), TypeError, "parameter 'start' has DataType int32"),
    (lambda: tf.linspace(0.0, 1.0, 0), ValueError, "Requires num > 0: 0"),
    (lambda: a()[5], ValueError, "slice index 5 of dimension 0 out of bounds. for 'strided_slice'"),
    (lambda: a()[-3], ValueError, "slice index -1 of dimension 0 out of bounds."),
    (lambda: a()[:, :, 4], ValueError, "slice index 4 of dimension 2 out of bounds."),
    (lambda: a()[::0], ValueError, "strides[0] must be non-zero"),
    (lambda: a()[..., ...], ValueError, "Multiple ellipses in slice spec not allowed"),
    (lambda: a()[0, 0, 0, 0], ValueError, "Index out of range using input dim 3; input has only 3 dims"),
    (lambda: tf.constant(3.0)[0], ValueError, "Attempting to slice scalar input."),
    (lambda: a()[1.0], TypeError, "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar"),
    (lambda: a()[tf.constant([0, 1])], TypeError, "scalar tf.int32/tf.int64 tensors are valid indices"),
    (lambda: tf.strided_slice(a(), [0, 1], [1], [1]), ValueError,
     "Dimension 0 in both shapes must be equal, but are 2 and 1. Shapes are [2] and [1]."),
    (lambda: tf.slice(a(), [0, 1], [1, 3]), ValueError, "Shape must be rank 2 but is rank 3"),
    (lambda: tf.gather(a(), [0], axis=3), ValueError, "Shape must be at least rank 4 but is rank 3"),
    (lambda: tf.gather(a(), [1.0]), TypeError, "parameter 'indices' has DataType float32"),
    (lambda: tf.gather_nd(a(), [[0, 1, 2, 3]]), ValueError,
     "indices.shape[-1] must be <= params.rank, but saw indices shape: [1,4] and params shape: [2,3,4]"),
    (lambda: tf.boolean_mask(a(), [True, False, True]), ValueError, "Shapes (2,) and (3,) are incompatible"),
    (lambda: tf.boolean_mask(a(), True), ValueError, "mask cannot be scalar."),
    (lambda: tf.boolean_mask(a(), tf.placeholder(tf.bool)), ValueError, "Number of mask dimensions must be specified"),
    (lambda: tf.reverse(a(), [3]), ValueError, "'axis'[0] = 3 is out of valid range [0, 2]"),
    (lambda: tf.reverse(a(), [0, -3]), ValueError, "axis 0 specified more than once."),
    (lambda: tf.unique([[4, 1], [4, 2]]), ValueError, "Shape must be rank 1 but is rank 2"),
    (lambda: tf.broadcast_to([1, 2, 3], [2, 4]), ValueError, "Dimensions must be equal, but are 3 and 4"),
    (lambda: tf.broadcast_to(m(), [3]), ValueError, "Shape must be at most rank 1 but is rank 2"),
    (lambda: tf.sequence_mask([1], [4]), ValueError, "maxlen must be scalar for sequence_mask"),
    (lambda: tf.eye(2.5), TypeError, "num_rows and num_columns must be positive integer values."),
    (lambda: tf.matrix_diag(1), ValueError, "Shape must be at least rank 1 but is rank 0"),
    (lambda: tf.matrix_diag_part([1, 2]), ValueError, "Shape must be at least rank 2 but is rank 1"),
    (lambda: tf.linalg.diag([1, 2], k=(0, 1)), NotImplementedError, "band"),
    (lambda: tf.sort(m(), direction="UP"), ValueError, "UP should be one of ASCENDING, DESCENDING"),
    (lambda: tf.sort(m(), axis=tf.placeholder(tf.int32, [])), ValueError, "axis must be a constant scalar"),
    (lambda: tf.nn.top_k(m(), 4), ValueError, "input must have last dimension >= k = 4 but is 3"),
    (lambda: tf.nn.top_k(m(), -1), ValueError, "must be non-negative but is -1"),
    (lambda: tf.nn.top_k(tf.constant(1.0)), ValueError, "Shape must be at least rank 1 but is rank 0"),
    (lambda: tf.meshgrid([1], indexing="xx"), ValueError, "indexing parameter must be either 'xy' or 'ij'"),
    (lambda: tf.meshgrid([1], foo=1), TypeError, "'foo' is an invalid keyword argument"),
    (lambda: tf.meshgrid([1], [1.0]), TypeError, "does not match type int32"),
]


@pytest.mark.parametrize("build, cls, message", [pytest.param(*e, id=f"{i}-{e[2][:40]}")
                                                  for i, e in enumerate(STATIC_ERRORS)])
def test_static_errors(build, cls, message):
    with pytest.raises(cls) as info:
        build()
    assert message in str(info.value)


RUNTIME_ERRORS = [
    # (placeholder shape, dtype, build(p), fed value, message)
    ([None], tf.float32, lambda p: tf.reshape(p, [4]), np.zeros(6),
     "Input to reshape is a tensor with 6 values, but the requested shape has 4"),
    ([None], tf.float32, lambda p: tf.reshape(p, [-1, 4]), np.zeros(6),
     "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple of 4"),
    ([None], tf.float32, lambda p: tf.reshape(p, [-1, -1]), np.zeros(6),
     "Only one input size may be -1, not both 0 and 1"),
    ([None], tf.float32, lambda p: tf.gather(p, [1, 7]), np.zeros(3), "indices[1] = 7 is not in [0, 3)"),
    ([None], tf.float32, lambda p: tf.gather(p, [[0, 1], [-1, 5]]), np.zeros(3), "indices[1,0] = -1 is not in [0, 3)"),
    ([None], tf.float32, lambda p: tf.gather(p, 5), np.zeros(3), "indices = 5 is not in [0, 3)"),
    ([None], tf.float32, lambda p: tf.gather(p, tf.constant([0, -1], tf.int64)), np.zeros(3),
     "indices[1] = -1 is not in [0, 3)"),
    ([None, 2], tf.float32, lambda p: tf.gather(p, [[0, 3]], axis=1, batch_dims=1), np.zeros((1, 2)),
     "indices[0,1] = 3 is not in [0, 2)"),
    ([None, 3, 4], tf.float32, lambda p: tf.gather_nd(p, [[0, 1], [0, 5]]), np.zeros((2, 3, 4)),
     "indices[1] = [0, 5] does not index into param shape [2,3,4]"),
    ([None], tf.float32, lambda p: tf.slice(p, [1], [5]), np.zeros(3), "Expected size[0] in [0, 2], but got 5"),
    ([None], tf.float32, lambda p: tf.slice(p, [-1], [1]), np.zeros(3), "Expected begin[0] in [0, 3], but got -1"),
    ([None], tf.float32, lambda p: p[3], np.zeros(3), "slice index 3 of dimension 0 out of bounds."),
    (None, tf.float32, lambda p: p[0, 0], np.zeros(3), "Index out of range using input dim 1; input has only 1 dims"),
    ([None, None], tf.float32, lambda p: tf.transpose(p, [0, 0]), np.zeros((2, 2)), "1 is missing from {0,0}."),
    (None, tf.float32, lambda p: tf.transpose(p, [1, 0]), np.zeros((2, 3, 4)),
     "transpose expects a vector of size 3. But input(1) is a vector of size 2"),
    ([None, 3], tf.float32, lambda p: tf.squeeze(p, [0]), np.zeros((2, 3)),
     "Can not squeeze dim[0], expected a dimension of 1, got 2"),
    (None, tf.float32, lambda p: tf.squeeze(p, [3]), np.zeros((1, 2)),
     "Tried to squeeze dim index 3 for tensor with 2 dimensions."),
    (None, tf.float32, lambda p: tf.expand_dims(p, 3), np.zeros((1, 2)),
     "Tried to expand dim index 3 for tensor with 2 dimensions."),
    ([None, 2], tf.float32, lambda p: tf.unstack(p, num=3), np.zeros((2, 2)),
     "Input shape axis 0 must equal 3, got shape [2,2]"),
    ([None, None], tf.float32, lambda p: tf.concat([p, m()], 0), np.zeros((2, 4)),
     "ConcatOp : Dimensions of inputs should match: shape[0] = [2,4] vs. shape[1] = [2,3]"),
    ([None, 4], tf.float32, lambda p: tf.split(p, 2, 0), np.zeros((3, 4)),
     "Number of ways to split should evenly divide the split dimension, but got split_dim 0 (size = 3) and "
     "num_split 2"),
    ([None, 3], tf.float32, lambda p: tf.tile(p, [-1, 1]), np.zeros((2, 3)), "Expected multiples[0] >= 0, but got -1"),
    (None, tf.float32, lambda p: tf.tile(p, [2]), np.zeros((2, 3)),
     "Expected multiples argument to be a vector of length 2 but got length 1"),
    ([None, 3], tf.float32, lambda p: tf.pad(p, [[2, 0], [0, 0]], "REFLECT"), np.zeros((2, 3)),
     "paddings must be less than the dimension size: 2, 0 not less than 2"),
    ([None], tf.int32, lambda p: tf.one_hot(p, 3, axis=2), [1, 2],
     "Expected axis to be -1 or between [0, 2).  But received: 2"),
    ([None], tf.float32, lambda p: tf.nn.top_k(p, 3).values, np.zeros(2),
     "input must have at least k columns. Had 2, needed 3"),
    ([None], tf.float32, lambda p: tf.broadcast_to(p, [2, 3]), np.zeros(4), "Incompatible shapes: [4] vs. [2,3]"),
    ([], tf.int32, lambda p: tf.range(p), -1, "Requires start <= limit when delta > 0: 0/-1"),
    ([1], tf.int32, lambda p: tf.fill(p, 1.0), [-1], "dims[0] = -1 must be nonnegative."),
    ([2], tf.int32, lambda p: tf.reverse_sequence(a(), p, seq_axis=1), [1, 4], "seq_lens(1) > input.dims(1)"),
    ([None], tf.bool, lambda p: tf.boolean_mask(m(), p), [True, False, True], "Shapes [2] and [3] are incompatible"),
    ([None, 3], tf.float32, lambda p: tf.matrix_set_diag(p, [1.0, 2.0, 3.0]), np.zeros((2, 3)),
     "Expected diagonal shape: [2]"),
]


@pytest.mark.parametrize("shape, dtype, build, value, message",
                         [pytest.param(*e, id=e[4][:40]) for e in RUNTIME_ERRORS])
def test_runtime_errors(shape, dtype, build, value, message):
    p = tf.placeholder(dtype, shape, name="p")
    t = build(p)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        run(t, {p: value})
    assert message in str(info.value)
    assert info.value.op is not None  # the error names the failing op


# -- default names and op types, as TF1.15 makes them ---------------------------------------

NAMES = [
    (lambda: tf.concat([a(), a()], 0), "concat:0", "ConcatV2"),
    (lambda: tf.concat([a()], 0), "concat/concat:0", "Identity"),
    (lambda: tf.slice(a(), [0, 0, 0], [1, 1, 1]), "Slice:0", "Slice"),
    (lambda: tf.strided_slice(a(), [0], [1]), "StridedSlice:0", "StridedSlice"),
    (lambda: [a()[0], a()[1]][1], "strided_slice_1:0", "StridedSlice"),
    (lambda: tf.split(a(), 2, 2)[1], "split:1", "Split"),
    (lambda: tf.split(a(), [1, -1], 2)[1], "split:1", "SplitV"),
    (lambda: tf.rank(a()), "Rank:0", "Const"),
    (lambda: tf.rank(tf.placeholder(tf.float32)), "Rank:0", "Rank"),
    (lambda: tf.shape(a()), "Shape:0", "Const"),
    (lambda: tf.shape(tf.placeholder(tf.float32, [None])), "Shape:0", "Shape"),
    (lambda: tf.shape(tf.placeholder(tf.float32, [None]), name="sh"), "sh:0", "Shape"),
    (lambda: tf.size(a()), "Size:0", "Const"),
    (lambda: tf.size(tf.placeholder(tf.float32, [None, 0])), "Size:0", "Const"),
    (lambda: tf.size(tf.placeholder(tf.float32, [None])), "Size:0", "Size"),
    (lambda: tf.shape_n([a(), a()])[1], "ShapeN:1", "ShapeN"),
    (lambda: tf.reshape(a(), [-1]), "Reshape:0", "Reshape"),
    (lambda: [tf.reshape(a(), [-1]), tf.reshape(a(), [-1])][1], "Reshape_1:0", "Reshape"),
    (lambda: [tf.reshape(a(), [-1], name="r"), tf.reshape(a(), [-1], name="r")][1], "r_1:0", "Reshape"),
    (lambda: tf.transpose(a()), "transpose:0", "Transpose"),
    (lambda: tf.expand_dims(a(), 0), "ExpandDims:0", "ExpandDims"),
    (lambda: tf.squeeze(a()), "Squeeze:0", "Squeeze"),
    (lambda: tf.stack([a(), a()]), "stack:0", "Pack"),
    (lambda: tf.stack([1, 2]), "stack:0", "Const"),
    (lambda: tf.convert_to_tensor([a(), a()]), "packed:0", "Pack"),
    (lambda: tf.unstack(a())[1], "unstack:1", "Unpack"),
    (lambda: tf.gather(a(), [0]), "GatherV2:0", "GatherV2"),
    (lambda: tf.gather_nd(a(), [[0]]), "GatherNd:0", "GatherNd"),
    (lambda: tf.gather_nd(a(), [[1], [0]], batch_dims=1), "BatchGatherND/Reshape_3:0", "GatherNd"),
    (lambda: tf.tile(a(), [1, 1, 1]), "Tile:0", "Tile"),
    (lambda: tf.pad(a(), [[1, 1], [0, 0], [0, 0]]), "Pad:0", "Pad"),
    (lambda: tf.pad(a(), [[1, 1], [0, 0], [0, 0]], constant_values=3), "PadV2:0", "PadV2"),
    (lambda: tf.pad(a(), [[1, 1], [0, 0], [0, 0]], "REFLECT"), "MirrorPad:0", "MirrorPad"),
    (lambda: tf.one_hot([1, 2], 3), "one_hot:0", "OneHot"),
    (lambda: tf.zeros([2, 3]), "zeros:0", "Const"),
    (lambda: tf.zeros([2000, 3000]), "zeros:0", "Fill"),
    (lambda: tf.ones([2, 3]), "ones:0", "Const"),
    (lambda: tf.zeros_like(a()), "zeros_like:0", "Const"),
    (lambda: tf.zeros_like(tf.placeholder(tf.float32, [None])), "zeros_like:0", "ZerosLike"),
    (lambda: tf.ones_like(a()), "ones_like:0", "Fill"),
    (lambda: tf.fill([2, 3], 1.0), "Fill:0", "Fill"),
    (lambda: tf.range(5), "range:0", "Range"),
    (lambda: tf.range(5, name="r"), "r:0", "Range"),
    (lambda: tf.linspace(0.0, 1.0, 5), "LinSpace:0", "LinSpace"),
    (lambda: tf.reverse(a(), [0]), "ReverseV2:0", "ReverseV2"),
    (lambda: tf.boolean_mask(a(), [True, False]), "boolean_mask/GatherV2:0", None),
    (lambda: tf.unique([1, 2, 1])[0], "Unique:0", "Unique"),
    (lambda: tf.unique([1, 2, 1])[1], "Unique:1", "Unique"),
    (lambda: tf.unique_with_counts([1, 2, 1])[2], "UniqueWithCounts:2", "UniqueWithCounts"),
    (lambda: tf.broadcast_to(a(), [5, 2, 3, 4]), "BroadcastTo:0", "BroadcastTo"),
    (lambda: tf.sequence_mask([1, 2], 3), "SequenceMask/Less:0", None),
    (lambda: tf.sequence_mask([1, 2], 3, dtype=tf.float32), "SequenceMask/Cast_1:0", None),
    (lambda: tf.eye(3), "eye/diag:0", None),
    (lambda: [tf.eye(2), tf.eye(3, 4, batch_shape=[2])][1], "eye_1/set_diag:0", None),
    (lambda: tf.matrix_diag([[1, 2], [3, 4]]), "diag:0", "MatrixDiagV2"),
    (lambda: tf.linalg.diag([1, 2]), "diag:0", "MatrixDiagV2"),
    (lambda: tf.matrix_diag_part(tf.eye(3)), "diag_part:0", "MatrixDiagPartV2"),
    (lambda: tf.matrix_set_diag(tf.eye(3), [1.0, 2.0, 3.0]), "set_diag:0", "MatrixSetDiagV2"),
    (lambda: tf.sort([3, 1, 2]), "sort/Neg_1:0", None),
    (lambda: tf.sort([3, 1, 2], direction="DESCENDING"), "sort/TopKV2:0", None),
    (lambda: tf.sort(m(), axis=0, direction="DESCENDING"), "sort/transpose_1:0", None),
    (lambda: tf.argsort([3, 1, 2]), "argsort/TopKV2:1", None),
    (lambda: tf.argsort(m(), axis=0), "argsort/transpose_1:0", None),
    (lambda: tf.nn.top_k([3, 1, 2], 2)[0], "TopKV2:0", "TopKV2"),
    (lambda: tf.nn.top_k([3, 1, 2], 2)[1], "TopKV2:1", "TopKV2"),
    (lambda: tf.stop_gradient(a()), "StopGradient:0", "StopGradient"),
    (lambda: tf.identity_n([a(), a()])[1], "IdentityN:1", "IdentityN"),
    (lambda: tf.meshgrid([1, 2], [3, 4, 5])[1], "meshgrid/mul_1:0", None),
    (lambda: tf.reverse_sequence(a(), [1, 2], 1, 0), "ReverseSequence:0", "ReverseSequence"),
]


@pytest.mark.parametrize("build, name, op_type", [pytest.param(*n, id=n[1]) for n in NAMES])
def test_default_names(build, name, op_type):
    t = build()
    assert t.name == name
    if op_type is not None:
        assert t.op.type == op_type


def test_names_inside_scopes_and_nested_packing():
    with tf.name_scope("s"):
        assert tf.zeros([2]).name == "s/zeros:0"
        assert a()[0].name == "s/strided_slice:0"
    x = a()
    t = tf.convert_to_tensor([[x[0], x[1]], [x[1], x[0]]])
    assert t.name == "packed:0"
    assert [op.name for op in tf.get_default_graph().get_operations() if "packed" in op.name] == \
        ["packed/0", "packed/1", "packed"]
    # Python inputs are named after their op, so later constants keep their names.
    tf.gather([1, 2, 3], [0])
    assert tf.constant(1).name == "Const_1:0"  # "Const" is a's


def test_exports_and_aliases():
    assert tf.manip.reshape is tf.reshape and tf.manip.tile is tf.tile
    assert tf.manip.gather_nd is tf.gather_nd and tf.manip.reverse is tf.reverse is tf.reverse_v2
    assert tf.lin_space is tf.linspace and tf.math.top_k is tf.nn.top_k
    assert tf.linalg.diag is tf.matrix_diag and tf.linalg.diag_part is tf.matrix_diag_part
    assert tf.linalg.set_diag is tf.matrix_set_diag and tf.linalg.eye is tf.eye
    assert tf.newaxis is None
    values, indices = tf.nn.top_k([1.0, 3.0])
    assert values.name == "TopKV2:0" and indices.dtype == tf.int32


def test_array_ops_module_holds_the_whole_family():
    # Other op modules reach these through array_ops, as TF1 code does.
    from dflow.ops.array import array_ops

    for name in ("ones_like", "zeros_like", "reshape", "gather", "boolean_mask", "pad", "tile", "eye",
                 "strided_slice", "slice", "unique", "stop_gradient", "stack", "concat"):
        public = getattr(tf, name)  # possibly wrapped to take RaggedTensors (dflow.ops.ragged.install_dispatch)
        assert getattr(array_ops, name) is getattr(public, "_ragged_original", public), name
    assert array_ops.top_k is tf.nn.top_k


def test_static_index_arguments_are_attrs_tensors_are_inputs():
    x = tf.zeros([2, 3])
    r = tf.reshape(x, [3, -1])
    assert r.op.inputs == [x] and r.op.get_attr("shape") == (3, -1)
    s = tf.shape(tf.zeros([6]))
    assert tf.reshape(tf.zeros([6]), s).op.inputs[1] is s


# -- GPU: the same kernels on CuPy arrays -----------------------------------------------------

GPU_BUILDS = [
    lambda p: p[1:, ::-1, 2], lambda p: tf.reshape(p, [4, -1]), lambda p: tf.transpose(p, [2, 0, 1]),
    lambda p: tf.concat([p, p], 1), lambda p: tf.stack([p, p], 1), lambda p: tf.split(p, 2, 2)[1],
    lambda p: tf.tile(p, [1, 2, 1]), lambda p: tf.pad(p, [[0, 1], [1, 0], [0, 0]], "SYMMETRIC"),
    lambda p: tf.gather(p, [1, 0], axis=1), lambda p: tf.gather_nd(p, [[0, 1]]), lambda p: tf.reverse(p, [1]),
    lambda p: tf.expand_dims(p, 0), lambda p: tf.squeeze(p[:1]), lambda p: tf.sort(p, direction="DESCENDING"),
    lambda p: tf.nn.top_k(p, 2).indices, lambda p: tf.boolean_mask(p, [True, False]),
    lambda p: tf.broadcast_to(p[:, :1], [2, 3, 4]), lambda p: tf.matrix_diag(p[0]), lambda p: tf.zeros_like(p[0]),
    lambda p: tf.unstack(p, axis=2)[3], lambda p: tf.reverse_sequence(p, [1, 3], seq_axis=1),
    lambda p: tf.matrix_diag_part(p), lambda p: tf.unique(tf.reshape(p, [-1])).idx,
]


@pytest.mark.gpu
def test_kernels_run_on_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    try:
        have_gpu = cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no driver
        have_gpu = False
    if not have_gpu:
        pytest.skip("no CUDA GPU")
    p = tf.placeholder(tf.float32, [2, 3, 4])
    cpu = [build(p) for build in GPU_BUILDS]
    with tf.device("/device:GPU:0"):
        gpu = [build(p) for build in GPU_BUILDS]
    with tf.Session() as sess:
        want, got = sess.run([cpu, gpu], {p: A})
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)
