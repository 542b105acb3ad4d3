# ruff: noqa: E501 - reference figures are one literal per line
"""tf.sparse against TensorFlow 2.15's compat.v1: every case's value, then gradients.

The figures were made by running the same case functions with TensorFlow
(scripts in /tmp/ref/sparse/); dflow must give them exactly (float32 values to
1e-6).
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from dflow.framework.composite import IndexedSlicesValue, SparseTensorValue
from tests.ops.gradcheck import check_gradients

inf = np.inf


def ST(indices, values, dense_shape):  # noqa: N802 - reads like the fetched value
    return SparseTensorValue(indices, values, dense_shape)


def IS(values, indices, dense_shape):  # noqa: N802
    return IndexedSlicesValue(values, indices, dense_shape)



def cases(tf):
    X = lambda: tf.SparseTensor([[0, 0], [0, 2], [2, 1]], [1., -2., 3.], [3, 3])
    Y = lambda: tf.SparseTensor([[0, 0], [1, 1], [2, 1]], [-1., 5., 4.], [3, 3])
    U = lambda: tf.SparseTensor([[2, 0], [0, 2], [0, 1]], [1., -2., 3.], [3, 3])
    B = lambda: tf.reshape(tf.range(6.), [3, 2])
    c = {}
    c["to_dense"] = lambda: tf.sparse.to_dense(X())
    c["to_dense_default"] = lambda: tf.sparse.to_dense(X(), default_value=9.)
    c["sparse_to_dense"] = lambda: tf.sparse_to_dense([1, 3], [5], [7, 8], default_value=-1)
    c["sparse_to_dense_scalar"] = lambda: tf.sparse_to_dense([[0, 1], [1, 0]], [2, 2], 4.)
    c["reorder"] = lambda: tf.sparse.reorder(U())
    c["reshape"] = lambda: tf.sparse.reshape(X(), [-1, 1])
    c["reshape3"] = lambda: tf.sparse.reshape(X(), [1, 9, 1])
    c["slice"] = lambda: tf.sparse.slice(X(), [0, 1], [3, 5])
    c["concat0"] = lambda: tf.sparse.concat(0, [U(), X()])
    c["concat1"] = lambda: tf.sparse.concat(1, [X(), tf.SparseTensor([[0, 1], [0, 0]], [4., 5.], [3, 2])])
    c["concat_expand"] = lambda: tf.sparse.concat(1, [X(), tf.SparseTensor([[4, 1]], [4.], [5, 2])], expand_nonconcat_dim=True)
    c["split"] = lambda: tf.sparse.split(sp_input=X(), num_split=2, axis=1)
    c["split0"] = lambda: tf.sparse.split(sp_input=X(), num_split=3, axis=0)
    c["fill_empty_rows"] = lambda: tf.sparse.fill_empty_rows(tf.SparseTensor([[1, 0], [1, 2], [3, 1]], [1., 2., 3.], [5, 3]), 7.)
    c["from_dense"] = lambda: tf.sparse.from_dense([[0, 1], [2, 0]])
    c["eye"] = lambda: tf.sparse.eye(2, 3)
    c["expand_dims"] = lambda: tf.sparse.expand_dims(X(), 1)
    c["expand_dims_neg"] = lambda: tf.sparse.expand_dims(X())
    c["retain"] = lambda: tf.sparse.retain(X(), [True, False, True])
    c["reset_shape"] = lambda: tf.sparse.reset_shape(X())
    c["reset_shape_new"] = lambda: tf.sparse.reset_shape(X(), [4, 5])
    c["to_indicator"] = lambda: tf.sparse.to_indicator(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [3, 1, 2], [2, 2]), 4)
    c["transpose"] = lambda: tf.sparse.transpose(X())
    c["merge"] = lambda: tf.sparse.merge(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [4, 1, 1], [2, 2]), tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [.5, .25, 2.], [2, 2]), 5)
    c["mask"] = lambda: tf.sparse.mask(tf.IndexedSlices(tf.constant([[1.], [2.], [3.]]), tf.constant([3, 5, 1]), tf.constant([6, 1])), [5])
    c["add"] = lambda: tf.sparse.add(X(), Y())
    c["add_thresh"] = lambda: tf.sparse.add(X(), Y(), threshold=1.5)
    c["add_dense"] = lambda: tf.sparse.add(X(), tf.ones([3, 3]))
    c["maximum"] = lambda: tf.sparse.maximum(X(), Y())
    c["minimum"] = lambda: tf.sparse.minimum(X(), Y())
    c["reduce_sum"] = lambda: tf.sparse.reduce_sum(X(), 1)
    c["reduce_sum_all"] = lambda: tf.sparse.reduce_sum(X())
    c["reduce_sum_keep"] = lambda: tf.sparse.reduce_sum(X(), -2, keepdims=True)
    c["reduce_max"] = lambda: tf.sparse.reduce_max(X(), 1)
    c["reduce_max0k"] = lambda: tf.sparse.reduce_max(X(), 0, keepdims=True)
    c["reduce_sum_sparse"] = lambda: tf.sparse.reduce_sum_sparse(X(), 1)
    c["reduce_max_sparse"] = lambda: tf.sparse.reduce_max_sparse(X(), 0, keepdims=True)
    c["softmax"] = lambda: tf.sparse.softmax(X())
    c["matmul"] = lambda: tf.sparse.sparse_dense_matmul(X(), B())
    c["matmul_adj"] = lambda: tf.sparse.sparse_dense_matmul(X(), tf.transpose(B()), adjoint_a=True, adjoint_b=True)
    c["matmul_dense_sparse"] = lambda: tf.sparse.sparse_dense_matmul(tf.transpose(B()), X())
    c["sparse_matmul"] = lambda: tf.sparse_matmul(tf.reshape(tf.range(6.), [2, 3]), tf.reshape(tf.range(12.), [4, 3]), transpose_b=True, a_is_sparse=True)
    c["bincount"] = lambda: tf.sparse.bincount(tf.constant([[1, 2, 2], [5, 0, 1]]))
    c["bincount_axis"] = lambda: tf.sparse.bincount(tf.constant([[1, 2, 2], [5, 0, 1]]), axis=-1, minlength=8)
    c["bincount_binary"] = lambda: tf.sparse.bincount(tf.constant([[1, 2, 2], [5, 0, 1]]), maxlength=3, binary_output=True)
    c["bincount_weights"] = lambda: tf.sparse.bincount(tf.constant([1, 2, 2]), weights=tf.constant([.5, 1., 2.]))
    c["bincount_sparse"] = lambda: tf.sparse.bincount(tf.SparseTensor([[0, 0], [0, 2], [2, 1]], [1, 2, 3], [3, 3]), axis=-1)
    H = lambda: tf.SparseTensor([[0, 0, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], ["a", "b", "c", "a"], [2, 2, 2])
    T = lambda: tf.SparseTensor([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 1, 1]], ["a", "b", "c", "a", "x"], [2, 2, 2])
    c["edit_distance"] = lambda: tf.edit_distance(H(), T())
    c["edit_distance_raw"] = lambda: tf.edit_distance(H(), T(), normalize=False)
    SA = lambda: tf.SparseTensor([[0, 0], [0, 1], [1, 0]], ["a", "b", "c"], [2, 2])
    DA = lambda: tf.constant([["x", "y"], ["z", "w"]])
    CI = lambda: tf.SparseTensor([[0, 0], [1, 0], [1, 1]], tf.constant([3, 4, 5], tf.int64), [2, 2])
    c["cross"] = lambda: tf.sparse.cross([SA(), DA(), CI()])
    c["cross_sep"] = lambda: tf.sparse.cross([CI(), SA()], separator="+")
    c["cross_hashed"] = lambda: tf.sparse.cross_hashed([SA(), DA(), CI()], num_buckets=100)
    c["cross_hashed0"] = lambda: tf.sparse.cross_hashed([SA(), CI()])
    c["cross_hashed_key"] = lambda: tf.sparse.cross_hashed([SA(), CI()], num_buckets=1000, hash_key=7)
    return c


def grad_cases(tf):
    """(name, fn(placeholders...) -> y, inputs): d sum(y * w) / d inputs with w = arange+1."""
    idx = [[0, 0], [0, 2], [2, 1]]
    g = {}
    g["to_dense"] = (lambda v: tf.sparse.to_dense(tf.SparseTensor(idx, v, [3, 3]), default_value=0.), [np.array([1., -2., 3.])])
    g["sparse_to_dense_default"] = (lambda v, d: tf.sparse_to_dense(idx, [3, 3], v, default_value=d), [np.array([1., -2., 3.]), np.array(0.5)])
    g["add"] = (lambda a, b: tf.sparse.to_dense(tf.sparse.add(tf.SparseTensor(idx, a, [3, 3]), tf.SparseTensor([[0, 0], [1, 1], [2, 1]], b, [3, 3]))), [np.array([1., -2., 3.]), np.array([-1., 5., 4.])])
    g["add_dense"] = (lambda a, b: tf.sparse.add(tf.SparseTensor(idx, a, [3, 3]), b), [np.array([1., -2., 3.]), np.arange(9.).reshape(3, 3)])
    g["reduce_sum"] = (lambda a: tf.sparse.reduce_sum(tf.SparseTensor(idx, a, [3, 3]), 1), [np.array([1., -2., 3.])])
    g["reduce_sum_keep"] = (lambda a: tf.sparse.reduce_sum(tf.SparseTensor(idx, a, [3, 3]), 0, keepdims=True), [np.array([1., -2., 3.])])
    g["softmax"] = (lambda a: tf.sparse.softmax(tf.SparseTensor(idx, a, [3, 3])).values, [np.array([1., -2., 3.])])
    g["reorder"] = (lambda a: tf.sparse.reorder(tf.SparseTensor([[2, 0], [0, 2], [0, 1]], a, [3, 3])).values, [np.array([1., -2., 3.])])
    g["slice"] = (lambda a: tf.sparse.slice(tf.SparseTensor(idx, a, [3, 3]), [0, 1], [3, 2]).values, [np.array([1., -2., 3.])])
    g["fill_empty_rows"] = (lambda a, d: tf.sparse.fill_empty_rows(tf.SparseTensor([[1, 0], [1, 2], [3, 1]], a, [5, 3]), d)[0].values, [np.array([1., 2., 3.]), np.array(7.)])
    g["matmul"] = (lambda a, b: tf.sparse.sparse_dense_matmul(tf.SparseTensor(idx, a, [3, 3]), b), [np.array([1., -2., 3.]), np.arange(6.).reshape(3, 2)])
    g["matmul_adj"] = (lambda a, b: tf.sparse.sparse_dense_matmul(tf.SparseTensor(idx, a, [3, 3]), b, adjoint_a=True, adjoint_b=True), [np.array([1., -2., 3.]), np.arange(6.).reshape(2, 3)])
    g["sparse_matmul"] = (lambda a, b: tf.sparse_matmul(a, b, transpose_a=True), [np.arange(6., dtype=np.float32).reshape(3, 2), np.arange(12., dtype=np.float32).reshape(3, 4)])
    g["transpose"] = (lambda a: tf.sparse.transpose(tf.SparseTensor(idx, a, [3, 3])).values, [np.array([1., -2., 3.])])
    return g


EXPECTED = {
    'to_dense': np.array([[ 1.,  0., -2.], [ 0.,  0.,  0.], [ 0.,  3.,  0.]], 'float32'),
    'to_dense_default': np.array([[ 1.,  9., -2.], [ 9.,  9.,  9.], [ 9.,  3.,  9.]], 'float32'),
    'sparse_to_dense': np.array([-1,  7, -1,  8, -1], 'int32'),
    'sparse_to_dense_scalar': np.array([[0., 4.], [4., 0.]], 'float32'),
    'reorder': ST(np.array([[0, 1], [0, 2], [2, 0]], 'int64'), np.array([ 3., -2.,  1.], 'float32'), np.array([3, 3], 'int64')),
    'reshape': ST(np.array([[0, 0], [2, 0], [7, 0]], 'int64'), np.array([ 1., -2.,  3.], 'float32'), np.array([9, 1], 'int64')),
    'reshape3': ST(np.array([[0, 0, 0], [0, 2, 0], [0, 7, 0]], 'int64'), np.array([ 1., -2.,  3.], 'float32'), np.array([1, 9, 1], 'int64')),
    'slice': ST(np.array([[0, 1], [2, 0]], 'int64'), np.array([-2.,  3.], 'float32'), np.array([3, 2], 'int64')),
    'concat0': ST(np.array([[0, 1], [0, 2], [2, 0], [3, 0], [3, 2], [5, 1]], 'int64'), np.array([ 3., -2.,  1.,  1., -2.,  3.], 'float32'), np.array([6, 3], 'int64')),
    'concat1': ST(np.array([[0, 0], [0, 2], [0, 3], [0, 4], [2, 1]], 'int64'), np.array([ 1., -2.,  5.,  4.,  3.], 'float32'), np.array([3, 5], 'int64')),
    'concat_expand': ST(np.array([[0, 0], [0, 2], [2, 1], [4, 4]], 'int64'), np.array([ 1., -2.,  3.,  4.], 'float32'), np.array([5, 5], 'int64')),
    'split': [ST(np.array([[0, 0], [2, 1]], 'int64'), np.array([1., 3.], 'float32'), np.array([3, 2], 'int64')), ST(np.array([[0, 0]], 'int64'), np.array([-2.], 'float32'), np.array([3, 1], 'int64'))],
    'split0': [ST(np.array([[0, 0], [0, 2]], 'int64'), np.array([ 1., -2.], 'float32'), np.array([1, 3], 'int64')), ST(np.zeros((0, 2), 'int64'), np.zeros((0,), 'float32'), np.array([1, 3], 'int64')), ST(np.array([[0, 1]], 'int64'), np.array([3.], 'float32'), np.array([1, 3], 'int64'))],
    'fill_empty_rows': [ST(np.array([[0, 0], [1, 0], [1, 2], [2, 0], [3, 1], [4, 0]], 'int64'), np.array([7., 1., 2., 7., 3., 7.], 'float32'), np.array([5, 3], 'int64')), np.array([ True, False,  True, False,  True], 'bool')],
    'from_dense': ST(np.array([[0, 1], [1, 0]], 'int64'), np.array([1, 2], 'int32'), np.array([2, 2], 'int64')),
    'eye': ST(np.array([[0, 0], [1, 1]], 'int64'), np.array([1., 1.], 'float32'), np.array([2, 3], 'int64')),
    'expand_dims': ST(np.array([[0, 0, 0], [0, 0, 2], [2, 0, 1]], 'int64'), np.array([ 1., -2.,  3.], 'float32'), np.array([3, 1, 3], 'int64')),
    'expand_dims_neg': ST(np.array([[0, 0, 0], [0, 2, 0], [2, 1, 0]], 'int64'), np.array([ 1., -2.,  3.], 'float32'), np.array([3, 3, 1], 'int64')),
    'retain': ST(np.array([[0, 0], [2, 1]], 'int64'), np.array([1., 3.], 'float32'), np.array([3, 3], 'int64')),
    'reset_shape': ST(np.array([[0, 0], [0, 2], [2, 1]], 'int64'), np.array([ 1., -2.,  3.], 'float32'), np.array([3, 3], 'int64')),
    'reset_shape_new': ST(np.array([[0, 0], [0, 2], [2, 1]], 'int64'), np.array([ 1., -2.,  3.], 'float32'), np.array([4, 5], 'int64')),
    'to_indicator': np.array([[False,  True, False,  True], [False, False,  True, False]], 'bool'),
    'transpose': ST(np.array([[0, 0], [1, 2], [2, 0]], 'int64'), np.array([ 1.,  3., -2.], 'float32'), np.array([3, 3], 'int64')),
    'merge': ST(np.array([[0, 1], [0, 4], [1, 1]], 'int64'), np.array([0.25, 0.5 , 2.  ], 'float32'), np.array([2, 5], 'int64')),
    'mask': IS(np.array([[1.], [3.]], 'float32'), np.array([3, 1], 'int32'), np.array([6, 1], 'int32')),
    'add': ST(np.array([[0, 0], [0, 2], [1, 1], [2, 1]], 'int64'), np.array([ 0., -2.,  5.,  7.], 'float32'), np.array([3, 3], 'int64')),
    'add_thresh': ST(np.array([[0, 2], [1, 1], [2, 1]], 'int64'), np.array([-2.,  5.,  7.], 'float32'), np.array([3, 3], 'int64')),
    'add_dense': np.array([[ 2.,  1., -1.], [ 1.,  1.,  1.], [ 1.,  4.,  1.]], 'float32'),
    'maximum': ST(np.array([[0, 0], [0, 2], [1, 1], [2, 1]], 'int64'), np.array([1., 0., 5., 4.], 'float32'), np.array([3, 3], 'int64')),
    'minimum': ST(np.array([[0, 0], [0, 2], [1, 1], [2, 1]], 'int64'), np.array([-1., -2.,  0.,  3.], 'float32'), np.array([3, 3], 'int64')),
    'reduce_sum': np.array([-1.,  0.,  3.], 'float32'),
    'reduce_sum_all': np.array(2.0, 'float32'),
    'reduce_sum_keep': np.array([[ 1.,  3., -2.]], 'float32'),
    'reduce_max': np.array([1., 0., 3.], 'float32'),
    'reduce_max0k': np.array([[ 1.,  3., -2.]], 'float32'),
    'reduce_sum_sparse': ST(np.array([[0], [2]], 'int64'), np.array([-1.,  3.], 'float32'), np.array([3], 'int64')),
    'reduce_max_sparse': ST(np.array([[0, 0], [0, 1], [0, 2]], 'int64'), np.array([ 1.,  3., -2.], 'float32'), np.array([1, 3], 'int64')),
    'softmax': ST(np.array([[0, 0], [0, 2], [2, 1]], 'int64'), np.array([0.95257413, 0.04742587, 1.        ], 'float32'), np.array([3, 3], 'int64')),
    'matmul': np.array([[-8., -9.], [ 0.,  0.], [ 6.,  9.]], 'float32'),
    'matmul_adj': np.array([[ 0.,  1.], [12., 15.], [ 0., -2.]], 'float32'),
    'matmul_dense_sparse': np.array([[ 0., 12.,  0.], [ 1., 15., -2.]], 'float32'),
    'sparse_matmul': np.array([[  5.,  14.,  23.,  32.], [ 14.,  50.,  86., 122.]], 'float32'),
    'bincount': ST(np.array([[0], [1], [2], [5]], 'int64'), np.array([1, 2, 2, 1], 'int32'), np.array([6], 'int64')),
    'bincount_axis': ST(np.array([[0, 1], [0, 2], [1, 0], [1, 1], [1, 5]], 'int64'), np.array([1, 2, 1, 1, 1], 'int32'), np.array([2, 8], 'int64')),
    'bincount_binary': ST(np.array([[0], [1], [2]], 'int64'), np.array([1, 1, 1], 'int32'), np.array([3], 'int64')),
    'bincount_weights': ST(np.array([[1], [2]], 'int64'), np.array([0.5, 3. ], 'float32'), np.array([3], 'int64')),
    'bincount_sparse': ST(np.array([[0, 1], [0, 2], [2, 3]], 'int64'), np.array([1, 1, 1], 'int32'), np.array([3, 4], 'int64')),
    'edit_distance': np.array([[inf, 1. ], [0. , 0.5]], 'float32'),
    'edit_distance_raw': np.array([[1., 1.], [0., 1.]], 'float32'),
    'cross': ST(np.array([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]], 'int64'), ['a_X_3_X_x', 'a_X_3_X_y', 'b_X_3_X_x', 'b_X_3_X_y', 'c_X_4_X_z', 'c_X_4_X_w', 'c_X_5_X_z', 'c_X_5_X_w'], np.array([2, 4], 'int64')),
    'cross_sep': ST(np.array([[0, 0], [0, 1], [1, 0], [1, 1]], 'int64'), ['3+a', '3+b', '4+c', '5+c'], np.array([2, 2], 'int64')),
    'cross_hashed': ST(np.array([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]], 'int64'), np.array([33, 59, 56, 71, 90, 21, 30, 33], 'int64'), np.array([2, 4], 'int64')),
    'cross_hashed0': ST(np.array([[0, 0], [0, 1], [1, 0], [1, 1]], 'int64'), np.array([9216350530976061679, 9204035953345268157, 4779491748946477322, 4707660378794676007], 'int64'), np.array([2, 2], 'int64')),
    'cross_hashed_key': ST(np.array([[0, 0], [0, 1], [1, 0], [1, 1]], 'int64'), np.array([879,  82, 362, 432], 'int64'), np.array([2, 2], 'int64')),
}
GRADS = {
    'to_dense': [np.array([1., 3., 8.], 'float64')],
    'sparse_to_dense_default': [np.array([1., 3., 8.], 'float64'), np.array(33.0, 'float64')],
    'add': [np.array([1., 3., 8.], 'float64'), np.array([1., 5., 8.], 'float64')],
    'add_dense': [np.array([1., 3., 8.], 'float64'), np.array([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]], 'float64')],
    'reduce_sum': [np.array([1., 1., 3.], 'float64')],
    'reduce_sum_keep': [np.array([1., 3., 2.], 'float64')],
    'softmax': [np.array([-0.04517666,  0.04517666,  0.        ], 'float64')],
    'reorder': [np.array([3., 2., 1.], 'float64')],
    'slice': [np.array([0., 1., 2.], 'float64')],
    'fill_empty_rows': [np.array([2., 3., 5.], 'float64'), np.array(11.0, 'float64')],
    'matmul': [np.array([ 2., 14., 28.], 'float64'), np.array([[ 1.,  2.], [15., 18.], [-2., -4.]], 'float64')],
    'matmul_adj': [np.array([ 6., 18., 26.], 'float64'), np.array([[ -9.,   0.,   9.], [-10.,   0.,  12.]], 'float64')],
    'sparse_matmul': [np.array([[ 20.,  44.], [ 60., 148.], [100., 252.]], 'float32'), np.array([[ 5.,  6.,  7.,  8.], [17., 22., 27., 32.], [29., 38., 47., 56.]], 'float32')],
    'transpose': [np.array([1., 3., 2.], 'float64')],
}


def _assert_same(got, want, where):
    if isinstance(want, SparseTensorValue):
        assert isinstance(got, SparseTensorValue), where
        for g, w, part in zip(got, want, ("indices", "values", "dense_shape")):
            _assert_same(g, w, f"{where}.{part}")
    elif isinstance(want, IndexedSlicesValue):
        for g, w, part in zip(got, want, ("values", "indices", "dense_shape")):
            _assert_same(g, w, f"{where}.{part}")
    elif isinstance(want, (list, tuple)) and not (want and isinstance(want[0], str)):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_same(g, w, f"{where}[{i}]")
    elif isinstance(want, list):  # strings
        assert [v.decode() if isinstance(v, bytes) else v for v in np.asarray(got).ravel()] == want, where
    else:
        got = np.asarray(got)
        assert got.shape == want.shape, f"{where}: shape {got.shape} != {want.shape}"
        if want.size:
            assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} != {want.dtype}"
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=where)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_value_matches_tf(name):
    with tf.Graph().as_default(), tf.Session() as sess:
        _assert_same(sess.run(cases(tf)[name]()), EXPECTED[name], name)


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradient_matches_tf(name):
    fn, inputs = grad_cases(tf)[name]
    with tf.Graph().as_default(), tf.Session() as sess:
        xs = [tf.constant(x) for x in inputs]
        y = fn(*xs)
        w = tf.reshape(tf.cast(tf.range(1, tf.size(y) + 1), y.dtype), tf.shape(y))
        grads = sess.run(tf.gradients(tf.reduce_sum(y * w), xs))
    _assert_same(grads, GRADS[name], name)


@pytest.mark.parametrize("name", ["softmax", "matmul_adj", "fill_empty_rows", "add"])
def test_gradient_matches_finite_differences(name):
    fn, inputs = grad_cases(tf)[name]
    check_gradients(fn, *inputs)


def test_op_types_and_static_shapes_follow_tf():
    with tf.Graph().as_default():
        x = tf.SparseTensor([[0, 0], [0, 2], [2, 1]], [1., -2., 3.], [3, 3])
        assert tf.sparse.to_dense(x).op.type == "SparseToDense"
        assert tf.sparse.to_dense(x).shape.as_list() == [3, 3]
        r = tf.sparse.reduce_sum(x, 1)
        assert (r.op.name, r.shape.as_list()) == ("SparseReduceSum", [3])
        assert tf.sparse.reduce_sum(x, 1, keepdims=True).shape.as_list() == [3, 1]
        assert tf.sparse.reshape(x, [-1, 1]).shape.as_list() == [9, 1]
        assert tf.sparse.concat(1, [x, x]).indices.op.type == "SparseConcat"
        m = tf.sparse.sparse_dense_matmul(x, tf.zeros([3, 4]))
        assert (m.op.type, m.shape.as_list()) == ("SparseTensorDenseMatMul", [3, 4])
        assert tf.sparse.bincount([1, 2]).indices.op.type == "DenseCountSparseOutput"
        assert tf.edit_distance(x, x).op.name == "edit_distance"
        assert tf.sparse.cross([tf.constant([["a"]])]).values.op.type == "SparseCrossV2"
        assert tf.sparse_add is tf.sparse.add and tf.sparse_tensor_to_dense is tf.sparse.to_dense


def test_bad_input_raises_tf_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        unordered = tf.SparseTensor([[1, 0], [0, 1]], [1., 2.], [2, 2])
        with pytest.raises(tf.errors.InvalidArgumentError, match="is out of order"):
            sess.run(tf.sparse.to_dense(unordered))
        assert sess.run(tf.sparse.to_dense(unordered, validate_indices=False)).tolist() == [[0., 2.], [1., 0.]]
        with pytest.raises(tf.errors.InvalidArgumentError, match="is repeated"):
            sess.run(tf.sparse_to_dense([[0, 1], [0, 1]], [2, 2], 1.))
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
            sess.run(tf.sparse_to_dense([[0, 5]], [2, 2], 1.))
        a = tf.SparseTensor([[0, 0]], [1.], [2, 2])
        shape = tf.placeholder(tf.int64, [2])
        unknown = tf.SparseTensor([[0, 0]], [1.], shape)
        with pytest.raises(tf.errors.InvalidArgumentError, match="shapes do not match"):
            sess.run(tf.sparse.add(a, unknown).values, {shape: [3, 2]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="inner dimension does not match: 2 vs. 3"):
            sess.run(tf.sparse.sparse_dense_matmul(unknown, tf.zeros([3, 1])), {shape: [2, 2]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid reduction dimension 3"):
            sess.run(tf.sparse.reduce_sum(a, 3))
        with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
            sess.run(tf.sparse.bincount([-1, 2]).values)
    with tf.Graph().as_default():
        a = tf.SparseTensor([[0, 0]], [1.], [2, 2])
        with pytest.raises(ValueError, match="are not compatible"):
            tf.sparse.add(a, tf.SparseTensor([[0, 0]], [1.], [3, 2]))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.sparse.sparse_dense_matmul(a, tf.zeros([3, 1]))
        with pytest.raises(ValueError, match="Cannot reshape"):
            tf.sparse.reshape(tf.SparseTensor([[0, 0]], [1.], [2, 3]), [4, 2])
        with pytest.raises(TypeError):
            tf.sparse.to_dense(tf.constant([1.]))
        with pytest.raises(TypeError, match="At least one input should be SparseTensor"):
            tf.sparse.add(tf.constant(1.), tf.constant(2.))
        with pytest.raises(ValueError, match="Only 0 and -1"):
            tf.sparse.bincount([1], axis=1)


def test_fed_sparse_placeholder_through_ops():
    with tf.Graph().as_default(), tf.Session() as sess:
        sp = tf.sparse.placeholder(tf.float32, [None, 3])
        total = tf.sparse.reduce_sum(tf.sparse.reorder(sp), 0)
        value = SparseTensorValue(np.array([[1, 2], [0, 1]]), np.array([5., 7.], np.float32), np.array([2, 3]))
        assert sess.run(total, {sp: value}).tolist() == [0., 7., 5.]


def test_sparse_times_and_over_dense_match_tf():
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.constant([1., -2., 3.], tf.float64)
        y = tf.constant([[2.], [4.], [8.]], tf.float64)
        z = tf.constant([2., 4., 8.], tf.float64)
        x = tf.SparseTensor([[0, 0], [0, 2], [2, 1]], v, [3, 3])
        m, d, m2 = x * y, x / z, x * 3.0
        assert (m.values.op.type, d.values.op.type) == ("SparseDenseCwiseMul", "SparseDenseCwiseDiv")
        w = [1., 2., 3.]
        loss = tf.reduce_sum(m.values * w) + tf.reduce_sum(d.values * w)
        values = sess.run([m.values, d.values, m2.values])
        grads = sess.run(tf.gradients(loss, [v, y, z]))
    _assert_same(values, [np.array([2., -4., 24.]), np.array([0.5, -0.25, 0.75]), np.array([3., -6., 9.])], "values")
    _assert_same(grads, [np.array([2.5, 4.25, 24.75]), np.array([[-3.], [0.], [9.]]),
                         np.array([-0.25, -0.5625, 0.0625])], "grads")


def test_names_follow_tf():
    """Tensor names TF 2.15 gives the same graphs (/tmp/ref/sparse/names.py)."""
    with tf.Graph().as_default():
        c = cases(tf)
        filled, empty = c["fill_empty_rows"]()
        assert (filled.indices.name, empty.name, empty.shape.as_list()) == (
            "SparseFillEmptyRows/SparseFillEmptyRows:0", "SparseFillEmptyRows/SparseFillEmptyRows:2", [5])
        assert c["softmax"]().values.name == "SparseSoftmax/SparseSoftmax:0"
        assert c["matmul"]().name == "SparseTensorDenseMatMul/SparseTensorDenseMatMul:0"
        assert c["cross_hashed"]().values.name == "SparseCross:1"
        assert c["mask"]().values.name == "sparse_mask:0"
        r = c["reshape"]()
        assert (r.values.name, r.dense_shape.op.type) == ("SparseReshape/Identity:0", "Const")
        cat = c["concat1"]()
        assert (cat.dense_shape.op.type, cat.shape.as_list()) == ("Const", [3, 5])
        s = c["split"]()[0]
        assert s.values.name == "SparseSplit:2" and s.shape.as_list() == [None, None]
