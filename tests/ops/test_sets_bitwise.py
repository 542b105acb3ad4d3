"""tf.sets and tf.bitwise against TF 2.15's figures (reference scripts: /tmp/ref/strings/ref9.py,
ref10.py)."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.harness import run

A = [[1, 2, 3, 3], [4, 5, 4, 6]]
B = [[3, 1, 7, 7], [6, 6, 6, 6]]


def _sparse(st):
    v = run(st)
    return v.indices.tolist(), v.values.tolist(), v.dense_shape.tolist()


def test_dense_set_operations_match_tf():
    with tf.Graph().as_default():
        d = tf.sets.difference(A, B)
        assert [t.name for t in (d.indices, d.values, d.dense_shape)] == [
            "DenseToDenseSetOperation:0", "DenseToDenseSetOperation:1", "DenseToDenseSetOperation:2"]
        assert d.values.dtype is tf.int32
        assert _sparse(d) == ([[0, 0], [1, 0], [1, 1]], [2, 4, 5], [2, 2])
        assert _sparse(tf.sets.difference(A, B, aminusb=False)) == ([[0, 0]], [7], [2, 1])
        assert _sparse(tf.sets.intersection(A, B)) == ([[0, 0], [0, 1], [1, 0]], [1, 3, 6], [2, 2])
        assert _sparse(tf.sets.union(A, B)) == ([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2]],
                                                [1, 2, 3, 7, 4, 5, 6], [2, 4])
        assert tf.sets.set_difference is tf.sets.difference and tf.sets.set_union is tf.sets.union
        assert _sparse(tf.sets.union([["a", "b", ""]], [["", "c", "a"]])) == (
            [[0, 0], [0, 1], [0, 2], [0, 3]], [b"", b"a", b"b", b"c"], [1, 4])
        assert _sparse(tf.sets.intersection([[[1, 2], [3, 4]], [[5, 5], [6, 7]]],
                                            [[[2, 2], [3, 9]], [[5, 1], [7, 6]]])) == (
            [[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]], [2, 3, 5, 6, 7], [2, 2, 2])
        assert _sparse(tf.sets.intersection([[1, 2]], [[3, 4]])) == ([], [], [1, 0])
        u8 = tf.sets.union(tf.constant([[3, 1]], tf.uint8), tf.constant([[2]], tf.uint8))
        assert u8.values.dtype is tf.uint8 and _sparse(u8)[1] == [1, 2, 3]
        p, q = tf.placeholder(tf.int32, [None, 3]), tf.placeholder(tf.int32, [None, 2])
        assert tf.sets.union(p, q).shape.as_list() == [None, None]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch"):
            run(tf.sets.union(p, q), {p: [[1, 2, 3]], q: [[1, 2], [3, 4]]})
        with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
            tf.sets.union([1, 2], [2, 3])
        with pytest.raises(ValueError, match="not compatible"):
            tf.sets.union([[1, 2]], [[1], [2]])
        with pytest.raises(TypeError, match="invalid dtype"):
            tf.sets.union([[1.0]], [[2.0]])
        with pytest.raises(TypeError, match="Types don't match"):
            tf.sets.union([[1]], tf.constant([[2]], tf.int64))


def test_sparse_set_operations_and_size_match_tf():
    with tf.Graph().as_default():
        sa = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 2]], tf.constant([1, 2, 5, 5], tf.int64), [3, 4])
        sb = tf.SparseTensor([[0, 0], [2, 1]], tf.constant([2, 9], tf.int64), [3, 2])
        da = tf.constant([[1, 2], [5, 6], [7, 7]], tf.int64)
        ss = tf.sets.union(sa, sb)
        ds = tf.sets.difference(da, sb)
        assert (ss.values.op.type, ds.values.op.type) == ("SparseToSparseSetOperation", "DenseToSparseSetOperation")
        assert _sparse(ss) == ([[0, 0], [0, 1], [1, 0], [2, 0]], [1, 2, 5, 9], [3, 2])
        assert _sparse(tf.sets.intersection(sa, sb)) == ([[0, 0]], [2], [3, 1])
        assert _sparse(tf.sets.difference(sa, sb)) == ([[0, 0], [1, 0]], [1, 5], [3, 1])
        assert _sparse(ds) == ([[0, 0], [1, 0], [1, 1], [2, 0]], [1, 5, 6, 7], [3, 2])
        assert _sparse(tf.sets.difference(sa, da)) == ([], [], [3, 0])
        assert _sparse(tf.sets.union(da, sb)) == ([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]],
                                                  [1, 2, 5, 6, 7, 9], [3, 2])
        size = tf.sets.size(sa)
        assert (size.name, size.dtype) == ("SetSize:0", tf.int32)
        got = run([size, tf.sets.set_size(sb),
                   tf.sets.size(tf.SparseTensor([[0, 0, 0], [0, 0, 1], [1, 1, 0]], [1, 1, 2], [2, 2, 3])),
                   tf.sets.size(tf.SparseTensor([[0, 0], [0, 1]], [1, 1], [1, 2])),
                   tf.sets.size(tf.SparseTensor([[1, 0], [0, 1]], tf.constant([1, 2]), [2, 2]),
                                validate_indices=False)])
        assert [g.tolist() for g in got] == [[2, 1, 0], [1, 0, 1], [[1, 0], [0, 1]], [1], [1, 1]]
        with pytest.raises(TypeError, match="Expected `SparseTensor`"):
            tf.sets.size(da)
        for st, match in (([[1, 0], [0, 1]], r"indices\[1\] = \[0,1\] is out of order"),
                          ([[0, 5]], r"indices\[0\] = \[0,5\] is out of bounds: need 0 <= index < \[2,2\]"),
                          ([[0, 0], [0, 0]], r"indices\[1\] = \[0,0\] is repeated")):
            with pytest.raises(tf.errors.InvalidArgumentError, match=match):
                run(tf.sets.size(tf.SparseTensor(st, tf.ones([len(st)], tf.int32), [2, 2])))


def test_bitwise_ops_match_tf():
    with tf.Graph().as_default():
        x8 = tf.constant([-128, -5, 0, 7, 127], tf.int8)
        sh8 = tf.constant([-1, 0, 3, 7, 8], tf.int8)
        u8 = tf.constant([0, 1, 128, 255, 77], tf.uint8)
        shu8 = tf.constant([0, 1, 7, 8, 200], tf.uint8)
        x64 = tf.constant([-1, 1, 2 ** 62, -2 ** 63, 12345], tf.int64)
        sh64 = tf.constant([63, 64, 1, 1, -3], tf.int64)
        a = tf.bitwise.bitwise_and(x8, tf.constant([3, -1, 5, 6, 64], tf.int8))
        assert (a.name, a.dtype) == ("BitwiseAnd:0", tf.int8)
        bc = tf.bitwise.bitwise_and(tf.constant([[12], [10]], tf.int32), tf.constant([6, 3], tf.int32))
        assert bc.shape.as_list() == [2, 2]
        got = run([a, tf.bitwise.bitwise_or(u8, tf.constant([1], tf.uint8)),
                   tf.bitwise.bitwise_xor(x64, tf.constant(-1, tf.int64)), tf.bitwise.invert(x8),
                   tf.bitwise.invert(u8), tf.bitwise.invert(tf.constant([0, 5], tf.uint64)),
                   tf.bitwise.left_shift(x8, sh8), tf.bitwise.right_shift(x8, sh8),
                   tf.bitwise.left_shift(u8, shu8), tf.bitwise.right_shift(u8, shu8),
                   tf.bitwise.left_shift(x64, sh64), tf.bitwise.right_shift(x64, sh64),
                   tf.bitwise.left_shift(tf.constant([1, -1, 3], tf.int32), tf.constant([31, 33, -1], tf.int32)),
                   tf.bitwise.right_shift(tf.constant([-8, 8, -1], tf.int32), tf.constant([1, 40, 100], tf.int32)),
                   bc])
        with pytest.raises(TypeError, match="not in list of allowed values"):
            tf.bitwise.bitwise_and(tf.constant([1.0]), tf.constant([2.0]))
        with pytest.raises(TypeError, match="Input 'y' of 'BitwiseAnd' Op has type int64"):
            tf.bitwise.bitwise_and(tf.constant([1]), tf.constant([2], tf.int64))
        with pytest.raises(TypeError, match="not in list of allowed values"):
            tf.bitwise.invert(tf.constant([1.0]))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.bitwise.bitwise_and([1, 2], [3, 4, 5])
    assert [g.tolist() for g in got] == [
        [0, -5, 0, 6, 64], [1, 1, 129, 255, 77], [0, -2, -4611686018427387905, 9223372036854775807, -12346],
        [127, 4, -1, -8, -128], [255, 254, 127, 0, 178], [18446744073709551615, 18446744073709551610],
        [-128, -5, 0, -128, -128], [-128, -5, 0, 0, 0], [0, 2, 0, 128, 128], [0, 0, 1, 1, 0],
        [-9223372036854775808, -9223372036854775808, -9223372036854775808, 0, 12345],
        [-1, 0, 2305843009213693952, -4611686018427387904, 12345], [-2147483648, -2147483648, 3], [-4, 0, -1],
        [[4, 0], [2, 2]]]
    assert got[6].dtype == np.int8 and got[5].dtype == np.uint64


def test_is_non_decreasing_and_is_strictly_increasing_match_tf():
    cases = [[1, 2, 2, 3], [1, 3, 2], [[1, 2], [3, 4]], [[1, 2], [2, 4]], [], 5, [1.0, float("nan")], [3]]
    with tf.Graph().as_default():
        a, b = tf.debugging.is_non_decreasing(cases[0]), tf.math.is_strictly_increasing(cases[0])
        assert (a.name, b.name, a.shape.as_list(), a.dtype) == ("is_non_decreasing/All:0",
                                                                "is_strictly_increasing/All:0", [], tf.bool)
        assert tf.is_non_decreasing is tf.math.is_non_decreasing is tf.debugging.is_non_decreasing
        assert tf.is_strictly_increasing is tf.debugging.is_strictly_increasing
        got = run([[tf.is_non_decreasing(x), tf.is_strictly_increasing(x)] for x in cases])
        p = tf.placeholder(tf.float32)
        fed = run(tf.is_strictly_increasing(p), {p: [[1.0, 2.0], [2.5, 3.0]]})
        with pytest.raises(TypeError, match="Expected x to be numeric"):
            tf.is_non_decreasing(["a", "b"])
    assert [[bool(v) for v in g] for g in got] == [[True, False], [False, False], [True, True], [True, False],
                                                  [True, True], [True, True], [False, False], [True, True]]
    assert bool(fed)
