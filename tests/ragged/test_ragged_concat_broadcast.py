"""tf.concat / tf.stack / tf.ragged.stack of RaggedTensors along any axis, and ragged-dense broadcasting.

Checked against TF 2.15 (tf.compat.v1, graph mode): ``tf_figures_concat_broadcast.json`` holds
what TF printed for every case of ``_build_cases`` (value as ``to_list()``, nested row splits and
their dtypes, static shape, dtype and ragged rank), for the gradients of ``_build_gradients``, and
the error class and message of each case of ``_error_cases``; the same functions were run under
``tensorflow.compat.v1`` with eager execution disabled.
"""

import json
import pathlib
import re

import numpy as np
import pytest

import dflow
from dflow.framework import errors
from tests.ops.gradcheck import check_gradients

tf = dflow

FIGURES = json.loads((pathlib.Path(__file__).parent / "tf_figures_concat_broadcast.json").read_text())
# TF's static shape inference loses the row count where it goes through its broadcast conds; dflow keeps it.
STATIC_DIFFERS = {"b_uniform_full": "(3, 2) float32 rr=1", "b_rr_uniform": "(3, 2) float32 rr=1"}


def _build_cases(tf):
    """Every case of FIGURES["cases"], built in the current default graph."""
    C = {}
    rc = tf.ragged.constant
    t1, t2 = rc([[1, 2], [3, 4, 5]]), rc([[6], [7, 8, 9]])
    r3a, r3b = rc([[[1, 2], [3]], [[4, 5, 6]]]), rc([[[7], [8, 9]], [[10]]])
    inner = rc([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    # concat
    C["c_ax0"] = tf.concat([t1, t2], 0)
    C["c_ax1"] = tf.concat([t1, t2], axis=1)
    C["c_ax1_three"] = tf.concat([t1, t2, rc([[10, 11], []])], axis=1)
    C["c_neg"] = tf.concat([t1, t2], axis=-1)
    C["c_r3_ax1"] = tf.concat([r3a, r3b], 1)
    C["c_r3_ax2"] = tf.concat([r3a, rc([[[7], []], [[10, 11]]])], 2)
    C["c_mixed_ax0"] = tf.concat([t1, tf.constant([[7, 8, 9]])], 0)
    C["c_mixed_ax1"] = tf.concat([tf.constant([[7, 8], [9, 10]]), t1], 1)
    C["c_inner_ax2"] = tf.concat([inner, inner * 10], 2)
    C["c_inner_ax1"] = tf.concat([inner, rc([[[7, 8]], []], ragged_rank=1)], 1)
    C["c_single"] = tf.concat([t1], 1)
    C["c_int32"] = tf.concat([rc([[1], [2, 3]], row_splits_dtype=tf.int32),
                              rc([[4, 5], []], row_splits_dtype=tf.int32)], 1)
    C["c_rr_mixed"] = tf.concat([r3a, tf.constant([[[1, 2]], [[3, 4]]])], 1)
    C["c_float_ax1"] = tf.concat([rc([[1.5], []]), rc([[2.5, 3.5], [4.5]])], 1)
    # stack
    C["s_ax1"] = tf.ragged.stack([t1, t2], axis=1)
    C["s_ax2"] = tf.ragged.stack([t1, rc([[6, 7], [8, 9, 10]])], axis=2)
    C["s_neg1"] = tf.ragged.stack([t1, rc([[6, 7], [8, 9, 10]])], axis=-1)
    C["s_r3_ax1"] = tf.ragged.stack([r3a, r3b], axis=1)
    C["s_dense_ax1"] = tf.ragged.stack([tf.constant([[1, 2], [3, 4]]), tf.constant([[5, 6], [7, 8]])], axis=1)
    C["s_dense_ax0_sizes"] = tf.ragged.stack([tf.constant([[1, 2, 3], [4, 5, 6]]), tf.constant([[5], [6], [7]])], 0)
    C["s_dense_last"] = tf.ragged.stack([tf.constant([[1, 2], [3, 4]]), tf.constant([[5, 6], [7, 8]])], axis=2)
    C["s_1d"] = tf.ragged.stack([tf.constant([1, 2]), tf.constant([3])])
    C["s_scalar"] = tf.ragged.stack([tf.constant(1), tf.constant(2)])
    C["s_single_ax1"] = tf.ragged.stack([t1], axis=1)
    C["s_mixed_ax1"] = tf.ragged.stack([tf.constant([[1, 2], [3, 4]]), t1], axis=1)
    C["tf_stack_ax1"] = tf.stack([t1, t2], axis=1)
    C["tf_stack_ax0"] = tf.stack([t1, t2])
    C["tf_stack_kw"] = tf.stack(values=[t1, rc([[6, 7], [8, 9, 10]])], axis=-1)
    C["tf_concat_kw"] = tf.concat(values=(t1, t2), axis=1)
    # broadcasting
    rt = rc([[1., 2.], [3., 4.]])
    rt5 = rc([[1., 2.], [], [3., 4., 5.]])
    C["b_col"] = rt + tf.constant([[1.], [2.]])
    C["b_full"] = rt + tf.constant([[10., 20.], [30., 40.]])
    C["b_rank3"] = rt + tf.constant([[[1.], [2.]], [[3.], [4.]], [[5.], [6.]]])
    C["b_rank3_ones"] = rt5 + tf.constant([[[10.]], [[20.]]])
    C["b_rank3_full_row"] = rt5 + tf.constant([[[10.]], [[20.]]]) * tf.ones([2, 3, 1])
    C["b_rank4"] = rt5 - tf.constant([[[[1.]]], [[[2.]]]])
    C["b_rsub_rank3"] = tf.constant([[[1.], [2.]], [[3.], [4.]], [[5.], [6.]]]) - rt
    C["b_inner_rank3"] = inner + tf.constant([[[100, 200]], [[300, 400]]])
    C["b_inner_rank4"] = inner + tf.constant([[[[1, 2]]], [[[3, 4]]]])
    C["b_inner_col"] = inner * tf.constant([[[1], [2]], [[3], [4]]])[:, :1]
    C["b_rt3_mid"] = rc([[[1, 2], [3]], [[4, 5], [6]]]) + tf.constant([[[10], [20]], [[30], [40]]])
    C["b_rt3_full"] = rc([[[1, 2], [3, 4]], [[4, 5], [6, 7]]]) + tf.constant([[[10, 20], [30, 40]],
                                                                             [[50, 60], [70, 80]]])
    C["b_rt3_rank4"] = rc([[[1, 2], [3]], [[4, 5]]]) + tf.constant([[[[1]]], [[[2]]]])
    uni = tf.RaggedTensor.from_uniform_row_length(tf.constant([1., 2, 3, 4, 5, 6]), 2)
    C["b_uniform_vec"] = uni * tf.constant([10., 100.])
    C["b_uniform_full"] = uni + tf.constant([[1., 2], [3, 4], [5, 6]])
    C["b_uniform_rank3"] = uni + tf.constant([[[1.], [2.], [3.]], [[4.], [5.], [6.]]])
    C["b_int32"] = rc([[1, 2], [3, 4]], row_splits_dtype=tf.int32) + tf.constant([[[1], [2]], [[3], [4]]])
    C["b_multiply"] = tf.multiply(rt, tf.constant([[[2.]], [[3.]]]))
    C["b_maximum"] = tf.maximum(tf.constant([[2.5, 0.], [0., 3.5]]), rt)
    C["b_equal"] = tf.equal(rt, tf.constant([[1., 0.], [3., 4.]]))
    C["b_nrows1"] = rc([[1., 2., 3.]]) + tf.constant([[[1.]], [[2.]]])
    C["b_nrows1_col"] = rc([[1., 2., 3.]]) + tf.constant([[1.], [2.]])
    C["b_rr_separate"] = rc([[1, 2], [3]]) + rc([[10, 20], [30]])
    C["b_rr_uniform"] = uni + tf.RaggedTensor.from_uniform_row_length(tf.constant([1., 10., 100.]), 1)
    C["b_full_rows"] = rt * tf.constant([[10., 100.], [10., 100.]])
    return C


def _build_gradients(tf):
    """Gradients of ``sum(result.flat_values * [1, 2, 3, ...])`` for each case of FIGURES["gradients"]."""
    rc = tf.ragged.constant

    def grads(result, inputs):
        flat = tf.reshape(result.flat_values if hasattr(result, "flat_values") else result, [-1])
        weights = tf.cast(tf.range(1, 1 + tf.size(flat)), flat.dtype)
        return [tf.convert_to_tensor(g) for g in tf.gradients(tf.reduce_sum(flat * weights), inputs)]

    G = {}
    a, b = rc([[1., 2.], [3.]]), rc([[4.], [5., 6.]])
    G["g_concat_ax1"] = grads(tf.concat([a, b], 1), [a.flat_values, b.flat_values])
    G["g_concat_ax0"] = grads(tf.concat([a, b], 0), [a.flat_values, b.flat_values])
    G["g_stack_ax1"] = grads(tf.ragged.stack([a, b], 1), [a.flat_values, b.flat_values])
    d = tf.constant([[1., 2.], [3., 4.]])
    G["g_concat_dense_ax1"] = grads(tf.concat([d, a], 1), [d, a.flat_values])
    r3a, r3b = rc([[[1., 2.], [3.]], [[4., 5., 6.]]]), rc([[[7.], []], [[8., 9.]]])
    G["g_concat_r3_ax2"] = grads(tf.concat([r3a, r3b], 2), [r3a.flat_values, r3b.flat_values])
    rt = rc([[1., 2.], [3., 4.]])
    d3 = tf.constant([[[1.], [2.]], [[3.], [4.]], [[5.], [6.]]])
    G["g_bcast_rank3"] = grads(rt * d3, [rt.flat_values, d3])
    rt5 = rc([[1., 2.], [], [3., 4., 5.]])
    d2 = tf.constant([[[10.]], [[20.]]])
    G["g_bcast_ones"] = grads(rt5 * d2, [rt5.flat_values, d2])
    full = tf.constant([[10., 20.], [30., 40.]])
    G["g_bcast_full"] = grads(rt * full, [rt.flat_values, full])
    inner = rc([[[1., 2.], [3., 4.]], [[5., 6.]]], ragged_rank=1)
    di = tf.constant([[[[1., 2.]]], [[[3., 4.]]]])
    G["g_bcast_inner"] = grads(inner * di, [inner.flat_values, di])
    x, y = rc([[1., 2.], [3.]]), rc([[10., 20.], [30.]])
    G["g_bcast_rr"] = grads(x * y, [x.flat_values, y.flat_values])
    return G


def _error_cases(tf):
    """Name -> function building a bad call (a graph-construction error, or a tensor failing at run time)."""
    rc = tf.ragged.constant
    t1, t2 = rc([[1, 2], [3, 4, 5]]), rc([[6], [7, 8, 9]])
    r3 = rc([[[1, 2], [3]], [[4, 5, 6]]])
    return {
        "concat_empty": lambda: tf.ragged.stack([], 0),
        "concat_rank": lambda: tf.concat([t1, r3], 0),
        "concat_axis": lambda: tf.concat([t1, t2], 2),
        "stack_axis": lambda: tf.ragged.stack([t1, t2], -4),
        "concat_splits_dtype": lambda: tf.concat([t1, rc([[1]], row_splits_dtype=tf.int32)], 0),
        "concat_nrows": lambda: tf.concat([t1, rc([[1], [2], [3]])], 1),
        "concat_ax2_splits": lambda: tf.concat([r3, rc([[[1]], [[2], [3]]])], 2),
        "stack_ax2_splits": lambda: tf.stack([t1, t2], axis=-1),
        "b_cols": lambda: rc([[1., 2.], [3.]]) + tf.constant([[1., 2.], [3., 4.]]),
        "b_nrows": lambda: rc([[1., 2.], [3.]]) + tf.constant([[1.], [2.], [3.]]),
        "b_rank3": lambda: rc([[1., 2.], [3.]]) + tf.ones([2, 3, 1]),
        "b_uniform": lambda: tf.RaggedTensor.from_uniform_row_length(tf.constant([1., 2, 3, 4, 5, 6]), 2)
        + tf.ones([3]),
        "b_inner": lambda: rc([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1) + tf.ones([2, 1, 3], tf.int32),
        "b_rr_mismatch": lambda: rc([[1, 2], [3]]) + rc([[1], [2, 3]]),
        "b_rr_len1": lambda: rc([[1, 2], [3, 4]]) + rc([[1], [2]]),
        "b_rr_rank": lambda: rc([[1, 2], [3]]) + rc([[[1], [2]], [[3]]], ragged_rank=1),
    }


# -- helpers --------------------------------------------------------------------------------


def _to_py(x):
    if hasattr(x, "to_list"):
        return {"ragged": x.to_list(), "dtype": str(x.flat_values.dtype),
                "nested_row_splits": [s.tolist() for s in x.nested_row_splits],
                "splits": [str(s.dtype) for s in x.nested_row_splits]}
    a = np.asarray(x)
    return {"value": a.tolist(), "dtype": str(a.dtype), "shape": list(a.shape)}


def _static(t) -> str:
    shape = str(t.shape).replace("?", "None")
    return f"{shape} {t.dtype.name} rr={getattr(t, 'ragged_rank', 0)}"


@pytest.fixture(scope="module")
def built():
    graph = tf.Graph()
    with graph.as_default():
        cases, grads = _build_cases(tf), _build_gradients(tf)
    with tf.Session(graph=graph) as sess:
        values, grad_values = sess.run(cases), sess.run(grads)
    return cases, values, grad_values


def test_every_case_has_a_figure(built):
    assert sorted(built[0]) == sorted(FIGURES["cases"])
    assert sorted(built[2]) == sorted(FIGURES["gradients"])


@pytest.mark.parametrize("case", sorted(FIGURES["cases"]))
def test_case_matches_tf(built, case):
    cases, values, _ = built
    want = FIGURES["cases"][case]
    assert _to_py(values[case]) == want["value"]
    assert _static(cases[case]) == STATIC_DIFFERS.get(case, want["static"])


@pytest.mark.parametrize("case", sorted(FIGURES["gradients"]))
def test_gradient_matches_tf(built, case):
    got = [np.asarray(g).tolist() for g in built[2][case]]
    assert got == FIGURES["gradients"][case]


@pytest.mark.parametrize("case", sorted(FIGURES["errors"]))
def test_error_matches_tf(case):
    want = FIGURES["errors"][case]
    with tf.Graph().as_default():
        build = _error_cases(tf)[case]
        if want["when"] == "static":
            with pytest.raises({"ValueError": ValueError, "TypeError": TypeError,
                                "InvalidArgumentError": errors.InvalidArgumentError}[want["error"]]) as info:
                build()
        else:
            result = build()
            with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError) as info:
                sess.run(result)
    assert _normalized(want["message"].replace("None", "?")) in _normalized(str(info.value))


def _normalized(message: str) -> str:
    """``message`` without the op and tensor names (TF's graph differs from dflow's inside the ragged ops)."""
    message = re.sub(r" for '[^']*'( \(op: '[^']*'\))?", "", message)
    return re.sub(r"\([^()\s]+:\d+\)", "(...)", message)


# -- dflow-only checks ---------------------------------------------------------------------------


def test_dense_row_against_ragged_rows(sess):
    # TF 2.15 fails here at run time ("Last row partition does not match flat_values.": its half-ragged
    # broadcast keeps the dense side's row splits); dflow gives the broadcast TF gives for the same
    # dense values written out row by row (the "b_full_rows" figure).
    rt = tf.ragged.constant([[1., 2.], [3., 4.]])
    got = sess.run(rt * tf.constant([10., 100.]))
    assert _to_py(got) == FIGURES["cases"]["b_full_rows"]["value"]
    got = sess.run(rt * tf.constant([[10., 100.]]))
    assert _to_py(got) == FIGURES["cases"]["b_full_rows"]["value"]


def test_concat_and_stack_dispatch_only_with_ragged_inputs(sess):
    assert sess.run(tf.concat([tf.constant([1]), tf.constant([2])], 0)).tolist() == [1, 2]
    assert sess.run(tf.stack([tf.constant(1), tf.constant(2)])).tolist() == [1, 2]
    assert tf.concat.__doc__ == dflow.ops.array.array_ops.concat.__doc__


def test_op_names():
    with tf.Graph().as_default():
        t1, t2 = tf.ragged.constant([[1, 2], [3]]), tf.ragged.constant([[4], [5, 6]])
        assert tf.concat([t1, t2], 1, name="joined").flat_values.name.startswith("joined/RaggedGather/")
        assert tf.ragged.stack([t1, t2], 1).flat_values.name.startswith("RaggedConcat")


def test_fed_placeholders(sess):
    # TF 2.15: (None, None, None) ragged_rank 2, [[[11.0, 12.0], [23.0]]]; concat: (2, None) ragged_rank 1
    p = tf.ragged.placeholder(tf.float64, 1, [])
    d = tf.placeholder(tf.float64, [None, None, 1])
    result = p + d
    assert (str(result.shape), result.ragged_rank) == ("(?, ?, ?)", 2)
    got = sess.run(result, {p: tf.ragged.constant_value([[1., 2.], [3.]]), d: np.array([[[10.], [20.]]])})
    assert got.to_list() == [[[11.0, 12.0], [23.0]]]
    unknown = tf.placeholder(tf.float32, None)
    joined = tf.concat([tf.ragged.constant([[1., 2.], [3.]]), unknown], 1)
    assert (str(joined.shape), joined.ragged_rank) == ("(2, ?)", 1)
    assert sess.run(joined, {unknown: [[5., 6.], [7., 8.]]}).to_list() == [[1.0, 2.0, 5.0, 6.0], [3.0, 7.0, 8.0]]


def test_unknown_rank_dense_operand():
    # TF 2.15 compares the ranks with <=: TypeError '<=' not supported between instances of 'int' and 'NoneType'
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="'<=' not supported between instances of 'int' and 'NoneType'"):
            tf.ragged.constant([[1., 2.], [3.]]) + tf.placeholder(tf.float32, None)


def test_broadcast_gradients_by_finite_differences():
    def ragged_times_dense(flat, dense):
        splits = tf.constant([0, 2, 2, 5], tf.int64)
        return (tf.RaggedTensor.from_row_splits(flat, splits) * dense).flat_values

    check_gradients(ragged_times_dense, np.arange(1., 6.), np.array([[[1.5]], [[-2.0]]]))
    check_gradients(ragged_times_dense, np.arange(1., 6.), np.array([[0.5], [2.0], [-1.0]]))


def test_concat_gradients_by_finite_differences():
    def concat_axis1(flat_a, dense):
        a = tf.RaggedTensor.from_row_splits(flat_a, tf.constant([0, 1, 3], tf.int64))
        return tf.concat([dense, a, dense * dense], 1).flat_values

    check_gradients(concat_axis1, np.array([1., 2., 3.]), np.array([[1., -2.], [0.5, 4.]]))
