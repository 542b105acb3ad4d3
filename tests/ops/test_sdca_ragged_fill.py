"""tf.train.sdca_fprint, tf.train.sdca_shrink_l1, tf.ragged_fill_empty_rows(_grad) against TF 2.15 (compat.v1)
figures; TF1's errors for bad input."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import dflow as tf
from dflow.ops.nn import sdca_ops
from tests.ops.gradcheck import check_gradients
from tests.ops.harness import run

# -- sdca_fprint -------------------------------------------------------------------------------------------

FEW = [b"", b"a", b"\x00", b"ab", b"abc", b"abcd", b"hello", b"01234567", b"0123456789abcdef",
       b"The quick brown fox jumps over the lazy dog", "caf\u00e9".encode(), b"\xff" * 200]
FEW_FPRINTS = [
    [4463240938071824939, 4374473821787594281], [7969074168056553668, 5955762262185338209],
    [5654565074323204601, -1421740522408740966], [1434454701921568952, -3468952581032156626],
    [4143508125394299908, -6879828354153669051], [-5127603957951857022, 650444106621073625],
    [8030732511675000650, 7283604105673962311], [-2791402492874205528, -1807531110449735272],
    [-2347567976820271828, -3177687296717892822], [-6342853426193315480, -4677945920017669511],
    [-401105010698492340, -2836546687615310048], [-4115837856715340143, -1498601811440831106]]


def _gen(n: int) -> bytes:
    return bytes(((i * 37 + n * 11) ^ (i >> 3)) % 256 for i in range(n))


# Every length 0..299 (each branch of CityHash128: < 16, 16..127 bytes and the 128-byte loop with each tail)
# and some long strings; TF's [307, 2] int64 output, as little-endian bytes, has this SHA-256.
MANY = [_gen(n) for n in [*range(300), 383, 384, 385, 511, 512, 1000, 4096]]
MANY_SHA256 = "de2f6460576c04ebfbbef6cbbadaaf3f7faad5757e79cc859fda6c59b16e1daf"
MANY_FIRST = [[4463240938071824939, 4374473821787594281], [7271283877269870694, -1352893286927000788]]


def test_fprint_matches_tf():
    out = tf.train.sdca_fprint(tf.constant(FEW))
    assert out.name == "SdcaFprint:0" and out.dtype == tf.int64 and out.shape.as_list() == [12, 2]
    np.testing.assert_array_equal(run(out), FEW_FPRINTS)


def test_fprint_matches_tf_for_all_lengths():
    got = run(tf.train.sdca_fprint(tf.constant(MANY)))
    assert got.dtype == np.int64 and got.shape == (307, 2)
    np.testing.assert_array_equal(got[:2], MANY_FIRST)
    assert hashlib.sha256(got.astype("<i8").tobytes()).hexdigest() == MANY_SHA256


def test_fprint_python_strings_name_and_empty():
    out = tf.train.sdca_fprint(["a", ""], name="fp")
    assert out.name == "fp:0" and out.op.inputs[0].name == "fp/input:0"
    np.testing.assert_array_equal(run(out), [FEW_FPRINTS[1], FEW_FPRINTS[0]])
    empty = tf.train.sdca_fprint(tf.constant([], tf.string))
    assert empty.shape.as_list() == [0, 2] and run(empty).shape == (0, 2)


def test_fprint_keeps_0_and_1_free(monkeypatch):
    # TF: out[0] = low64 >= 2 ? low64 : low64 + ~uint64(1), so 0 -> 2**64 - 2 and 1 -> 2**64 - 1.
    lows = iter([0, 1, 2])
    monkeypatch.setattr(sdca_ops, "fingerprint128", lambda s: (next(lows), 5))
    np.testing.assert_array_equal(sdca_ops._fprint(np.array([b"x", b"y", b"z"], object)), [[-2, 5], [-1, 5], [2, 5]])


@pytest.mark.parametrize("build,error,match", [
    (lambda: tf.train.sdca_fprint(tf.constant([["a", "b"]])), ValueError, "Shape must be rank 1 but is rank 2"),
    (lambda: tf.train.sdca_fprint(tf.constant("a")), ValueError, "Shape must be rank 1 but is rank 0"),
    (lambda: tf.train.sdca_fprint(tf.constant([1])), TypeError,
     "Input 'input' of 'SdcaFprint' Op has type int32 that does not match expected type of string"),
])
def test_fprint_errors(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_fprint_runtime_rank_error():
    out = tf.train.sdca_fprint(tf.placeholder_with_default(tf.constant([["a", "b"]]), None))
    assert out.shape.as_list() == [None, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input must be a vector, got shape \[1,2\]"):
        run(out)


# -- sdca_shrink_l1 ----------------------------------------------------------------------------------------

A = np.array([3.528, 0.8, 1.957, 4.482, 3.735, -1.955, 1.9], np.float32)
B = np.array([[0.3, -0.3, 0.31, -2.5], [0.0, -0.0, 1e-9, 7.0]], np.float32)


def test_shrink_l1_updates_variables_as_tf():
    va, vb = tf.Variable(A), tf.Variable(B)
    op = tf.train.sdca_shrink_l1([va, vb], l1=0.9, l2=3.0)
    op2 = tf.train.sdca_shrink_l1([vb], l1=1.0, l2=0.7, name="sh")
    assert isinstance(op, tf.Operation) and op.name == "SdcaShrinkL1" and op2.name == "sh" and op.outputs == []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(op) is None
        got_a, got_b = sess.run([va, vb])
        np.testing.assert_array_equal(got_a, np.array(
            [3.2280001640319824, 0.5, 1.6570000648498535, 4.181999683380127, 3.434999942779541, -1.65500009059906,
             1.600000023841858], np.float32))
        # 0.3f - float(0.9f / 3.0f) is 2.98e-8 in float32; -0.0 becomes +0.0 (Eigen's sign(-0) is 0).
        np.testing.assert_array_equal(got_b, np.array(
            [[2.9802322387695312e-08, -2.9802322387695312e-08, 0.010000020265579224, -2.200000047683716],
             [0.0, 0.0, 0.0, 6.699999809265137]], np.float32))
        assert not np.signbit(got_b[1, 1])
        sess.run(op2)
        got_b = sess.run(vb)
        np.testing.assert_array_equal(got_b, np.array(
            [[0.0, -0.0, 0.0, -0.7714285850524902], [0.0, 0.0, 0.0, 5.271428108215332]], np.float32))
        assert np.signbit(got_b[0, 1]) and not np.signbit(got_b[0, 0])


def test_shrink_l1_empty_list_is_an_op():
    op = tf.train.sdca_shrink_l1([], 1.0, 1.0)
    assert op.type == "SdcaShrinkL1"
    assert run(op) is None


@pytest.mark.parametrize("build,match", [
    (lambda: tf.train.sdca_shrink_l1([tf.constant([1.0])], 1.0, 1.0),
     r"'SdcaShrinkL1' Op requires that input 'weights' be a mutable tensor \(e.g.: a tf.Variable\)"),
    (lambda: tf.train.sdca_shrink_l1(tf.Variable([1.0]), 1.0, 1.0), "Expected list for 'weights' argument to "
                                                                     "'sdca_shrink_l1' Op"),
    (lambda: tf.train.sdca_shrink_l1([tf.Variable([1.0], dtype=tf.float64)], 1.0, 1.0),
     "Input 'weights' of 'SdcaShrinkL1' Op has type float64_ref"),
])
def test_shrink_l1_errors(build, match):
    with pytest.raises(TypeError, match=match):
        build()


# -- ragged_fill_empty_rows ---------------------------------------------------------------------------------

def _i64(x):
    return tf.constant(x, tf.int64)


@pytest.mark.parametrize("rowids,values,nrows,default,expected", [
    ([1, 1, 3], [1.0, 2.0, 3.0], 5, -1.0,
     ([0, 1, 1, 2, 3, 4], [-1.0, 1.0, 2.0, -1.0, 3.0, -1.0], [True, False, True, False, True], [1, 2, 4])),
    ([0, 0, 2], [1, 2, 3], 3, 9, ([0, 0, 1, 2], [1, 2, 9, 3], [False, True, False], [0, 1, 3])),
    # Unsorted rows: the values are ordered by row, stably.
    ([2, 0, 0], [1, 2, 3], 3, 9, ([0, 0, 1, 2], [2, 3, 9, 1], [False, True, False], [3, 0, 1])),
    ([], np.zeros(0, np.float32), 3, 9.0, ([0, 1, 2], [9.0, 9.0, 9.0], [True, True, True], [])),
    ([0, 1, 1], [b"a", b"b", b"c"], 4, b"z", ([0, 1, 1, 2, 3], [b"a", b"b", b"c", b"z", b"z"],
                                                [False, False, True, True], [0, 1, 2])),
    ([0, 1, 1], [True, False, True], 4, False, ([0, 1, 1, 2, 3], [True, False, True, False, False],
                                                 [False, False, True, True], [0, 1, 2])),
], ids=["floats", "ints", "unsorted", "no_values", "strings", "bools"])
def test_fill_empty_rows_matches_tf(rowids, values, nrows, default, expected):
    out = tf.ragged_fill_empty_rows(_i64(rowids), tf.constant(values), _i64(nrows), tf.constant(default))
    assert type(out).__name__ == "RaggedFillEmptyRows"
    assert out._fields == ("output_value_rowids", "output_values", "empty_row_indicator", "reverse_index_map")
    assert [t.shape.as_list() for t in out] == [[None], [None], [None], [len(rowids)]]
    assert [t.dtype for t in out] == [tf.int64, out.output_values.op.inputs[1].dtype, tf.bool, tf.int64]
    got = run(out)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, np.array(e, dtype=g.dtype))


def test_fill_empty_rows_no_rows_gives_tf_shape():
    out = tf.ragged_fill_empty_rows(_i64([]), tf.constant([], tf.float64), _i64(0), tf.constant(9.0, tf.float64))
    rowids, values, empty, reverse = run(out)
    assert rowids.shape == (0, 1) and rowids.dtype == np.int64  # as TF 2.15
    assert values.shape == (0,) and values.dtype == np.float64 and empty.shape == (0,) and reverse.shape == (0,)


def test_fill_empty_rows_python_inputs_and_names():
    out = tf.ragged_fill_empty_rows([0, 1, 1], [1.0, 2, 3], 4, 0.0, name="fill")
    assert out.output_values.name == "fill:1"
    assert [t.name for t in out.output_values.op.inputs] == ["fill/value_rowids:0", "fill/values:0", "fill/nrows:0",
                                                             "fill/default_value:0"]
    np.testing.assert_array_equal(run(out.output_values), np.array([1.0, 2.0, 3.0, 0.0, 0.0], np.float32))


def test_fill_empty_rows_gradient_matches_tf():
    v, d = tf.constant([1.0, 2.0, 3.0]), tf.constant(-1.0)
    out = tf.ragged_fill_empty_rows(_i64([1, 1, 3]), v, _i64(5), d)
    gv, gd = tf.gradients(out.output_values * tf.constant([1.0, 2, 3, 4, 5, 6]), [v, d])
    assert gv.name == "gradients/RaggedFillEmptyRows_grad/RaggedFillEmptyRowsGrad:0"
    assert gd.name == "gradients/RaggedFillEmptyRows_grad/RaggedFillEmptyRowsGrad:1"
    got_v, got_d = run([gv, gd])
    np.testing.assert_array_equal(got_v, np.array([2.0, 3.0, 5.0], np.float32))
    assert got_d == 11.0 and got_d.dtype == np.float32


def test_fill_empty_rows_gradient_finite_differences():
    check_gradients(lambda v, d: tf.ragged_fill_empty_rows(_i64([2, 0, 0, 4]), v, _i64(6), d).output_values ** 2,
                    np.array([0.5, -1.5, 2.0, 0.25]), np.array(0.75), shapes=[[4], []])


@pytest.mark.parametrize("rowids,nrows,match", [
    ([0, 0, 5], 3, r"indices\(2, 0\) is invalid: 5 >= 3"),
    ([-1, 0, 2], 3, r"indices\(0, 0\) is invalid: -1 >= 3"),
    ([0, 0, 2], -1, "Expected shape dimensions to be non-negative, got -1"),
])
def test_fill_empty_rows_runtime_errors(rowids, nrows, match):
    out = tf.ragged_fill_empty_rows(_i64(rowids), tf.constant([1, 2, 3]), _i64(nrows), tf.constant(9))
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        run(out)


@pytest.mark.parametrize("build,error,match", [
    (lambda: tf.ragged_fill_empty_rows(_i64([0, 0]), tf.constant([1, 2, 3]), _i64(3), tf.constant(9)), ValueError,
     "Dimensions must be equal, but are 2 and 3"),
    (lambda: tf.ragged_fill_empty_rows(_i64([0, 0, 2]), tf.constant([1, 2, 3]), _i64([3]), tf.constant(9)),
     ValueError, "Shape must be rank 0 but is rank 1"),
    (lambda: tf.ragged_fill_empty_rows(_i64([0, 0, 2]), tf.constant([1, 2, 3]), _i64(3), tf.constant([9])),
     ValueError, "Shape must be rank 0 but is rank 1"),
    (lambda: tf.ragged_fill_empty_rows(_i64([[0, 0, 2]]), tf.constant([1, 2, 3]), _i64(3), tf.constant(9)),
     ValueError, "Shape must be rank 1 but is rank 2"),
    (lambda: tf.ragged_fill_empty_rows(_i64([0, 0, 2]), tf.constant([[1], [2], [3]]), _i64(3), tf.constant(9)),
     ValueError, "Shape must be rank 1 but is rank 2"),
    (lambda: tf.ragged_fill_empty_rows(tf.constant([0, 1, 1]), tf.constant([1, 2, 3]), _i64(4), tf.constant(9)),
     TypeError, "Input 'value_rowids' of 'RaggedFillEmptyRows' Op has type int32 that does not match expected type "
                "of int64"),
    (lambda: tf.ragged_fill_empty_rows(_i64([0, 1, 1]), tf.constant([1, 2, 3]), _i64(4), tf.constant(9.0)),
     TypeError, "Input 'default_value' of 'RaggedFillEmptyRows' Op has type float32 that does not match type int32 "
                "of argument 'values'"),
    (lambda: tf.ragged_fill_empty_rows_grad(_i64([[0, 1]]), tf.constant([1.0, 2, 3])), ValueError,
     "Shape must be rank 1 but is rank 2"),
    (lambda: tf.ragged_fill_empty_rows_grad(_i64([0, 1]), tf.constant([[1.0, 2, 3]])), ValueError,
     "Shape must be rank 1 but is rank 2"),
])
def test_fill_empty_rows_graph_errors(build, error, match):
    with pytest.raises(error, match=match):
        build()


# -- ragged_fill_empty_rows_grad ----------------------------------------------------------------------------

@pytest.mark.parametrize("reverse,grad,d_values,d_default", [
    ([1, 2, 4], np.array([10.0, 20, 30, 40, 50, 60, 70], np.float32), [20.0, 30.0, 50.0], 180.0),
    ([0, 2, 1], np.array([1.0, 2, 3], np.float32), [1.0, 3.0, 2.0], 0.0),
    ([0, 1], np.array([1, 2, 3], np.int32), [1, 2], 3),
    ([0, 0], np.array([1.0, 2, 3], np.float32), [1.0, 1.0], 5.0),
    ([], np.zeros(0, np.float16), [], 0.0),
    # The unvisited entries are summed one after another in float32: 1e8 + 1 + 1 + 1 - 1e8 + 1 + 1 == 2.
    ([1], np.array([1e8, 1, 1, 1, 1, -1e8, 1, 1], np.float32), [1.0], 2.0),
], ids=["doc", "permuted", "int32", "repeated", "empty", "sequential_sum"])
def test_fill_empty_rows_grad_matches_tf(reverse, grad, d_values, d_default):
    out = tf.ragged_fill_empty_rows_grad(_i64(reverse), tf.constant(grad))
    assert type(out).__name__ == "RaggedFillEmptyRowsGrad" and out._fields == ("d_values", "d_default_value")
    assert out.d_values.shape.as_list() == [len(reverse)] and out.d_default_value.shape.as_list() == []
    got_v, got_d = run(out)
    assert got_v.dtype == grad.dtype and np.asarray(got_d).dtype == grad.dtype
    np.testing.assert_array_equal(got_v, np.array(d_values, grad.dtype))
    assert got_d == d_default


@pytest.mark.parametrize("reverse,match", [
    ([0, 7], r"Elements in reverse index must be in \[0, 3\) but got 7"),
    ([0, -1], r"Elements in reverse index must be in \[0, 3\) but got -1"),
])
def test_fill_empty_rows_grad_runtime_errors(reverse, match):
    out = tf.ragged_fill_empty_rows_grad(_i64(reverse), tf.constant([1.0, 2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        run(out)


def test_fill_empty_rows_grad_has_no_gradient():
    g = tf.constant([1.0, 2, 3])
    d_values, _ = tf.ragged_fill_empty_rows_grad(_i64([0, 1]), g)
    with pytest.raises(LookupError, match="No gradient defined for operation"):
        tf.gradients(d_values, [g])
