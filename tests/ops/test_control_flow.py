"""tf.cond, tf.case, tf.while_loop, tf.map_fn/scan/foldl/foldr and their gradients.

Names, messages and the ``TF1`` figures were read off ``tensorflow.compat.v1``
2.15 with ``disable_v2_behavior()`` (TF1 control flow), in float64.
"""

from __future__ import annotations

import collections
import time

import numpy as np
import pytest

import dflow as tf
from tests.ops.gradcheck import check_gradients
from tests.ops.harness import run

Pair = collections.namedtuple("Pair", "a b")
E = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)


def e():
    return tf.constant(E)


def count_to(n):
    return tf.while_loop(lambda i: i < n, lambda i: i + 1, [0])


# -- forward values ----------------------------------------------------------------------------

# (id, build -> structure of tensors, expected structure of values)
VALUES = [
    ("cond_true", lambda: tf.cond(tf.constant(True), lambda: 1.0, lambda: 2.0), np.float32(1.0)),
    ("cond_false", lambda: tf.cond(tf.constant(False), lambda: 1.0, lambda: 2.0), np.float32(2.0)),
    ("cond_captures", lambda: tf.cond(e()[0, 0] > 0, lambda: e() * 2.0, lambda: e()), E * 2),
    ("cond_tuple", lambda: tf.cond(tf.constant(True), lambda: (1, 2.0), lambda: (3, 4.0)), (1, 2.0)),
    ("cond_dict", lambda: tf.cond(tf.constant(False), lambda: {"a": 1, "b": [2]}, lambda: {"a": 3, "b": [4]}),
     {"a": 3, "b": [4]}),
    ("cond_singleton", lambda: tf.cond(tf.constant(True), lambda: [5], lambda: [6]), 5),
    ("cond_strict_singleton", lambda: tf.cond(tf.constant(True), lambda: [5], lambda: [6], strict=True), [5]),
    ("cond_fn1_fn2", lambda: tf.cond(tf.constant(False), fn1=lambda: 1, fn2=lambda: 2), 2),
    ("cond_returns_op", lambda: tf.cond(tf.constant(False), tf.no_op, tf.no_op), False),
    ("cond_nested", lambda: tf.cond(tf.constant(True), lambda: tf.cond(tf.constant(False), lambda: 1, lambda: 2),
                                    lambda: 3), 2),
    ("case_first", lambda: tf.case([(tf.constant(True), lambda: 1), (tf.constant(True), lambda: 2)],
                                   default=lambda: 0), 1),
    ("case_second", lambda: tf.case([(tf.constant(False), lambda: 1), (tf.constant(True), lambda: 2)],
                                    default=lambda: 0), 2),
    ("case_default", lambda: tf.case([(tf.constant(False), lambda: 1)], default=lambda: 0), 0),
    ("case_no_default", lambda: tf.case([(tf.constant(False), lambda: 1), (tf.constant(True), lambda: 2)]), 2),
    ("case_structure", lambda: tf.case([(tf.constant(True), lambda: (1, 2.0))], default=lambda: (3, 4.0)), (1, 2.0)),
    ("while_count", lambda: count_to(10), 10),
    ("while_two", lambda: tf.while_loop(lambda i, t: i < 4, lambda i, t: (i + 1, t + i), [0, 0]), (4, 6)),
    ("while_tuple", lambda: tf.while_loop(lambda i, t: i < 4, lambda i, t: [i + 1, t * 2.0], (0, 1.0)), [4, 16.0]),
    ("while_nested", lambda: tf.while_loop(lambda i, p: i < 3, lambda i, p: (i + 1, (p[0] * 2, [p[1][0] + 1])),
                                           [0, (1.0, [0])]), (3, (8.0, [3]))),
    ("while_namedtuple", lambda: tf.while_loop(lambda p: p.a < 5, lambda p: [Pair(p.a + 1, p.b * 2.0)],
                                               [Pair(0, 1.0)]), [Pair(5, 32.0)]),
    ("while_dict", lambda: tf.while_loop(lambda d: d["i"] < 3, lambda d: [{"i": d["i"] + 1, "x": d["x"] + 0.5}],
                                         [{"i": 0, "x": 0.0}]), [{"i": 3, "x": 1.5}]),
    ("while_same_structure", lambda: tf.while_loop(lambda i: i < 2, lambda i: i + 1, [0],
                                                   return_same_structure=True), [2]),
    ("while_zero_iterations", lambda: tf.while_loop(lambda i, x: i < 0, lambda i, x: (i + 1, x * 2), [0, e()]),
     (0, E)),
    ("while_max_iterations", lambda: tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0], maximum_iterations=3), 3),
    ("while_max_iterations_two", lambda: tf.while_loop(lambda i, x: i < 10, lambda i, x: (i + 1, x * 2.0), [0, 1.0],
                                                       maximum_iterations=tf.constant(4)), (4, 16.0)),
    ("while_max_iterations_cond_first", lambda: tf.while_loop(lambda i: i < 2, lambda i: i + 1, [0],
                                                              maximum_iterations=5), 2),
    ("while_shape_invariants", lambda: tf.while_loop(
        lambda x: tf.size(x) < 8, lambda x: tf.concat([x, x], 0), [tf.constant([1, 2])],
        shape_invariants=[tf.TensorShape([None])]), [1, 2, 1, 2, 1, 2, 1, 2]),
    ("while_nested_shape_invariants", lambda: tf.while_loop(
        lambda i, p: i < 3, lambda i, p: (i + 1, (tf.concat([p[0], p[0]], 0), p[1])),
        [0, (tf.constant([1]), tf.constant([2, 3]))],
        shape_invariants=[tf.TensorShape([]), (tf.TensorShape([None]), tf.TensorShape([2]))]),
     (3, ([1] * 8, [2, 3]))),
    ("while_shape_invariants_max_iterations", lambda: tf.while_loop(
        lambda x: tf.size(x) < 8, lambda x: tf.concat([x, x], 0), [tf.constant([1])],
        shape_invariants=[tf.TensorShape([None])], maximum_iterations=2), [1, 1, 1, 1]),
    ("while_in_cond", lambda: tf.cond(tf.constant(True), lambda: count_to(4), lambda: count_to(7)), 4),
    ("while_in_while", lambda: tf.while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, t + count_to(i + 2)), [0, 0]),
     (3, 9)),
    ("cond_in_while", lambda: tf.while_loop(
        lambda i, t: i < 6, lambda i, t: (i + 1, tf.cond(i % 2 > 0, lambda: t + i, lambda: t)), [0, 0]), (6, 9)),
    ("map_fn", lambda: tf.map_fn(lambda x: x * 2, e()), E * 2),
    ("map_fn_nested", lambda: tf.map_fn(lambda x: (x[0] * 2, x[1]), (e(), tf.constant([1, 2, 3])),
                                        dtype=(tf.float32, tf.int32)), (E * 2, np.int32([1, 2, 3]))),
    ("map_fn_dtype", lambda: tf.map_fn(lambda x: tf.reduce_sum(x) > 4, e(), dtype=tf.bool), [False, True, True]),
    ("map_fn_captures", lambda: tf.map_fn(lambda x: x * e()[0], e()), E * E[0]),
    # TF1: the three results below were computed by tf.scan/foldr/foldl on E.
    ("scan", lambda: tf.scan(lambda a, x: a + x, e()), np.cumsum(E, 0)),
    ("scan_reverse", lambda: tf.scan(lambda a, x: a * x, e(), reverse=True), [[15, 48], [15, 24], [5, 6]]),
    ("scan_initializer_reverse", lambda: tf.scan(lambda a, x: a * 2 + x, e(), initializer=tf.ones([2]),
                                                 reverse=True), [[35, 42], [17, 20], [7, 8]]),
    ("scan_structure", lambda: tf.scan(lambda a, x: (a[0] + x, a[1] * 2), e(),
                                       initializer=(tf.zeros([2]), tf.constant(1.0))),
     (np.cumsum(E, 0), [2.0, 4.0, 8.0])),
    ("foldl", lambda: tf.foldl(lambda a, x: a * 2 + x, e()), [15, 22]),
    ("foldr", lambda: tf.foldr(lambda a, x: a * 2 + x, e()), [27, 34]),
    ("foldl_initializer", lambda: tf.foldl(lambda a, x: a * 10 + x, tf.constant([1, 2, 3]), initializer=0), 123),
]


def _assert_same(got, want):
    if isinstance(got, (np.ndarray, np.generic)):
        np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64))
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want)
        for k in want:
            _assert_same(got[k], want[k])
    else:
        assert type(got) is type(want), f"{type(got).__name__} != {type(want).__name__}"
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w)


@pytest.mark.parametrize("build, expected", [c[1:] for c in VALUES], ids=[c[0] for c in VALUES])
def test_values(build, expected):
    _assert_same(run(build()), expected)


# -- names and static shapes -------------------------------------------------------------------

# (id, build, TF1's names of the returned tensors)
NAMES = [
    ("cond", lambda: [tf.cond(tf.constant(True), lambda: 1, lambda: 2)], ["cond/Merge:0"]),
    ("cond_twice", lambda: [tf.cond(tf.constant(True), lambda: 1, lambda: 2),
                            tf.cond(tf.constant(True), lambda: 1, lambda: 2, name="foo")],
     ["cond/Merge:0", "foo/Merge:0"]),
    ("cond_tuple", lambda: list(tf.cond(tf.constant(True), lambda: (1, 2), lambda: (3, 4))),
     ["cond/Merge:0", "cond/Merge_1:0"]),
    ("case", lambda: [tf.case([(tf.constant(True), lambda: 1)], default=lambda: 2)], ["case/cond/Merge:0"]),
    ("while", lambda: [count_to(3)], ["while/Exit:0"]),
    ("while_two", lambda: tf.while_loop(lambda i, j: i < 1, lambda i, j: (i + 1, j), [0, 1]),
     ["while/Exit:0", "while/Exit_1:0"]),
    ("while_max_iterations", lambda: [tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0], maximum_iterations=2)],
     ["while/Exit_1:0"]),
    ("map_fn", lambda: [tf.map_fn(lambda x: x, e())], ["map/TensorArrayStack/TensorArrayGatherV3:0"]),
    ("map_fn_two", lambda: list(tf.map_fn(lambda x: x, (e(), e()))),
     ["map/TensorArrayStack/TensorArrayGatherV3:0", "map/TensorArrayStack_1/TensorArrayGatherV3:0"]),
    ("scan", lambda: [tf.scan(lambda a, x: a + x, e(), initializer=tf.zeros([2]))],
     ["scan/TensorArrayStack/TensorArrayGatherV3:0"]),
    ("foldl", lambda: [tf.foldl(lambda a, x: a + x, e())], ["foldl/while/Exit_2:0"]),
]


@pytest.mark.parametrize("build, names", [c[1:] for c in NAMES], ids=[c[0] for c in NAMES])
def test_names_match_tf1(build, names):
    assert [t.name for t in build()] == names


# (id, build, TF1's static shape as a list, or None for unknown rank)
SHAPES = [
    ("cond_same", lambda: tf.cond(tf.constant(True), lambda: tf.zeros([2, 3]), lambda: tf.ones([2, 3])), [2, 3]),
    ("cond_merged", lambda: tf.cond(tf.constant(True), lambda: tf.zeros([2, 3]), lambda: tf.zeros([2, 4])),
     [2, None]),
    ("cond_ranks_differ", lambda: tf.cond(tf.constant(True), lambda: tf.zeros([2, 3]), lambda: tf.zeros([2])), None),
    ("while_keeps_shape", lambda: tf.while_loop(lambda x: x[0, 0] < 9.0, lambda x: x * 2, [tf.ones([2, 3])]), [2, 3]),
    ("while_invariant", lambda: tf.while_loop(lambda x: tf.size(x) < 8, lambda x: tf.concat([x, x], 0),
                                              [tf.ones([2])], shape_invariants=[tf.TensorShape([None])]), [None]),
    ("map_fn", lambda: tf.map_fn(lambda x: tf.reduce_sum(x), e()), [3]),
    ("scan_no_initializer", lambda: tf.scan(lambda a, x: a + x, e()), [3, 2]),
]


@pytest.mark.parametrize("build, shape", [c[1:] for c in SHAPES], ids=[c[0] for c in SHAPES])
def test_static_shapes(build, shape):
    t = build()
    assert (t.shape.as_list() if t.shape.ndims is not None else None) == shape


# -- errors at graph construction ---------------------------------------------------------------

# (id, build, exception, a fragment of TF1's message)
ERRORS = [
    ("cond_python_bool", lambda: tf.cond(True, lambda: 1, lambda: 2), TypeError, "'pred' must not be a Python bool"),
    ("cond_int_pred", lambda: tf.cond(tf.constant(1), lambda: 1, lambda: 2), TypeError,
     "Input 'pred' of 'Switch' Op has type int32 that does not match expected type of bool"),
    ("cond_vector_pred", lambda: tf.cond(tf.constant([True]), lambda: 1, lambda: 2), ValueError,
     "Shape must be rank 0 but is rank 1"),
    ("cond_not_callable", lambda: tf.cond(tf.constant(True), 1, lambda: 2), TypeError, "'true_fn' must be callable"),
    ("cond_missing_fn", lambda: tf.cond(tf.constant(True), lambda: 1), TypeError, "'false_fn' argument required"),
    ("cond_both_fn1", lambda: tf.cond(tf.constant(True), lambda: 1, lambda: 2, fn1=lambda: 1), TypeError,
     "'true_fn' and 'fn1' may not be set simultaneously"),
    ("cond_no_return", lambda: tf.cond(tf.constant(True), lambda: None, lambda: 2), ValueError,
     "'true_fn' must have a return value"),
    ("cond_dtypes", lambda: tf.cond(tf.constant(True), lambda: 1.0, lambda: 1), ValueError,
     "Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received float32 from 'true_fn' and int32 "
     "from 'false_fn'"),
    ("cond_structures", lambda: tf.cond(tf.constant(True), lambda: (1, 2), lambda: 1), ValueError,
     "Incompatible return values of 'true_fn' and 'false_fn'"),
    ("cond_lengths", lambda: tf.cond(tf.constant(True), lambda: [1, 2], lambda: [1, 2, 3]), ValueError,
     "don't have the same number of elements"),
    ("case_not_pairs", lambda: tf.case([tf.constant(True), lambda: 1]), TypeError,
     "Each entry in 'pred_fn_pairs' must be a 2-tuple"),
    ("case_int_pred", lambda: tf.case([(tf.constant(1, name="p"), lambda: 1)], default=lambda: 2), TypeError,
     "pred must be Tensor of type bool: p:0"),
    ("case_not_callable", lambda: tf.case([(tf.constant(True, name="p"), 1)]), TypeError,
     "fn for pred p:0 must be callable"),
    ("case_not_list", lambda: tf.case(tf.constant(True)), TypeError, "'pred_fn_pairs' must be a list, tuple, or dict"),
    ("while_no_vars", lambda: tf.while_loop(lambda: True, lambda: (), []), ValueError, "'loop_vars' must be provided"),
    ("while_cond_not_callable", lambda: tf.while_loop(1, lambda i: i, [0]), TypeError, "'cond' must be callable"),
    ("while_parallel_iterations", lambda: tf.while_loop(lambda i: i < 1, lambda i: i, [0], parallel_iterations=0),
     TypeError, "'parallel_iterations' must be a positive integer"),
    ("while_shape_changes", lambda: tf.while_loop(lambda x: tf.size(x) < 8, lambda x: tf.concat([x, x], 0),
                                                  [tf.constant([1], name="x0")]), ValueError,
     "Input tensor 'x0:0' enters the loop with shape (1,), but has shape (2,) after one iteration. To allow the "
     "shape to vary across iterations, use the `shape_invariants` argument"),
    ("while_bad_invariant", lambda: tf.while_loop(lambda x: tf.size(x) < 8, lambda x: x, [tf.constant([1], name="x0")],
                                                  shape_invariants=[tf.TensorShape([2])]), ValueError,
     "The shape invariant specified for x0:0 is not compatible with the initial shape of the loop variable. It "
     "enters the loop with shape (1,), but the specified shape invariant is (2,)."),
    ("while_dtype_changes", lambda: tf.while_loop(lambda i: i < 1, lambda i: tf.cast(i, tf.float32),
                                                  [tf.constant(0, name="i0")]), TypeError,
     "Loop var i0:0 enters the loop with type int32 but has type float32 after 1 iteration"),
    ("while_body_structure", lambda: tf.while_loop(lambda i, j: i < 1, lambda i, j: i + 1, [0, 1]), ValueError,
     "The two structures don't have the same nested structure"),
    ("while_cond_not_bool", lambda: tf.while_loop(lambda i: i, lambda i: i + 1, [0]), TypeError,
     "Input 'input' of 'LoopCond' Op has type int32 that does not match expected type of bool"),
    ("while_cond_not_scalar", lambda: tf.while_loop(lambda i: tf.constant([True]), lambda i: i + 1, [0]), ValueError,
     "Shape must be rank 0 but is rank 1"),
    ("while_max_iterations_vector", lambda: tf.while_loop(lambda i: i < 1, lambda i: i + 1, [0],
                                                          maximum_iterations=[3]), ValueError,
     "'maximum_iterations' must be a scalar"),
    ("variable_in_body", lambda: tf.while_loop(lambda i: i < 1, lambda i: i + tf.Variable(1, name="w"), [0]),
     ValueError, "Cannot create variable 'while/w' inside the body function"),
    ("map_fn_scalar", lambda: tf.map_fn(lambda x: x, tf.constant(1.0)), ValueError,
     "Elements in elems must be 1+ dimensional Tensors, not scalars"),
    ("map_fn_dtype", lambda: tf.map_fn(lambda x: tf.reduce_sum(x) > 1, e()), TypeError,
     "has dtype bool, but the expected dtype is float32"),
    ("map_fn_structure", lambda: tf.map_fn(lambda x: (x, x), e()), ValueError,
     "The structure of fn's result does not match dtype"),
    ("scan_accumulator_dtype", lambda: tf.scan(lambda a, x: tf.cast(a, tf.int32), e()), TypeError,
     "has dtype float32, but fn returned int32"),
]


@pytest.mark.parametrize("build, exc, message", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_errors(build, exc, message):
    with pytest.raises(exc) as info:
        build()
    assert message in str(info.value)


# -- run-time semantics --------------------------------------------------------------------------


def test_only_the_branch_taken_runs(sess):
    v = tf.Variable(0.0)
    p = tf.placeholder(tf.bool, [])
    y = tf.cond(p, lambda: v.assign_add(1.0), lambda: tf.constant(-1.0))
    sess.run(v.initializer)
    # TF1 gives the same sequence.
    assert [sess.run(y, {p: True}), sess.run(y, {p: False}), sess.run(y, {p: True})] == [1.0, -1.0, 2.0]
    assert sess.run(v) == 2.0


def test_case_runs_only_the_chosen_branch(sess):
    v = tf.Variable(0)
    x = tf.placeholder(tf.int32, [])
    y = tf.case([(x < 0, lambda: v.assign_add(-1)), (x > 0, lambda: v.assign_add(1))], default=lambda: v + 100)
    sess.run(v.initializer)
    assert [sess.run(y, {x: k}) for k in (1, 1, -1, 0)] == [1, 2, 1, 101]
    assert sess.run(v) == 1


def test_control_dependencies_run_each_iteration(sess):
    count = tf.Variable(0)

    def body(i):
        with tf.control_dependencies([count.assign_add(1)]):
            return i + 1

    i = tf.while_loop(lambda i: i < 7, body, [0])
    sess.run(count.initializer)
    assert sess.run(i) == 7
    assert sess.run(count) == 7
    sess.run(i)
    assert sess.run(count) == 14


def test_variable_reads_inside_a_loop(sess):
    k = tf.Variable(10.0)

    def fresh(i, acc):  # read_value() inside the body reads the variable each iteration
        with tf.control_dependencies([k.assign_add(1.0)]):
            return i + 1, acc + k.read_value()

    def ordered(i, acc):  # k itself, read inside the block: after each iteration's update, as TF1
        with tf.control_dependencies([k.assign_add(1.0)]):
            return i + 1, acc + k

    r1 = tf.while_loop(lambda i, a: i < 3, fresh, [0, 0.0])
    r2 = tf.while_loop(lambda i, a: i < 3, ordered, [0, 0.0])
    sess.run(k.initializer)
    # TF 2.15 compat.v1 (control flow v1, resource variables): 36.0, 45.0, 16.0
    assert sess.run(r1)[1] == 11.0 + 12.0 + 13.0
    assert sess.run(r2)[1] == 14.0 + 15.0 + 16.0
    assert sess.run(k) == 16.0


def test_assign_inside_a_loop_updates_the_session_variable(sess):
    v = tf.Variable([1.0, 1.0])
    i = tf.while_loop(lambda i: i < 4, lambda i: tf.tuple([i + 1], control_inputs=[v.assign(v.read_value() * 2)])[0],
                      [0])
    sess.run(v.initializer)
    sess.run(i)
    np.testing.assert_array_equal(sess.run(v), [16.0, 16.0])


def test_outer_control_dependency_inside_a_body_runs_before_the_loop(sess):
    v = tf.Variable(0.0)
    bump = v.assign_add(5.0)

    def body(i, acc):
        with tf.control_dependencies([bump]):
            return i + 1, acc + v.read_value()

    r = tf.while_loop(lambda i, a: i < 2, body, [0, 0.0])
    sess.run(v.initializer)
    assert sess.run(r)[1] == 10.0


def test_case_without_default_fails_when_no_predicate_holds(sess):
    x = tf.placeholder(tf.int32, [])
    y = tf.case([(x < 0, lambda: -1), (x > 0, lambda: 1)])
    assert sess.run(y, {x: 3}) == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="None of conditions evaluated as True"):
        sess.run(y, {x: 0})


def test_case_exclusive_checks_at_run_time(sess):
    x = tf.placeholder(tf.int32, [])
    y = tf.case([(x > 0, lambda: 1), (x > 1, lambda: 2)], default=lambda: 0, exclusive=True)
    assert sess.run(y, {x: 1}) == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="exclusive=True: more than 1 conditions"):
        sess.run(y, {x: 2})


def test_case_orders_a_dict_by_predicate_name():
    a = tf.constant(True, name="b_pred")
    b = tf.constant(True, name="a_pred")
    assert run(tf.case({a: lambda: 1, b: lambda: 2}, default=lambda: 0)) == 2


def test_an_error_inside_a_body_names_the_inner_op(sess):
    z = tf.while_loop(lambda i: i < 3, lambda i: i + 1 + 0 * (1 // (1 - i)), [0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Integer division by zero[\s\S]*while/floordiv"):
        sess.run(z)


def test_an_endless_loop_stops_at_the_run_deadline(sess):
    i = tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [0])
    with pytest.raises(tf.errors.DeadlineExceededError, match="while loop while/While"):
        sess.run(i, options=tf.RunOptions(timeout_in_ms=50))


def test_cond_with_a_placeholder_predicate(sess):
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [None])
    y = tf.cond(p, lambda: tf.reduce_sum(x), lambda: tf.reduce_max(x))
    assert sess.run(y, {p: True, x: [1, 2, 3]}) == 6.0
    assert sess.run(y, {p: False, x: [1, 2, 3]}) == 3.0


def test_a_thousand_iterations_are_fast(sess):
    i, t = tf.while_loop(lambda i, t: i < 1000, lambda i, t: (i + 1, t + 2.0), [0, 0.0])
    sess.run([i, t])
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        assert sess.run([i, t]) == [1000, 2000.0]
        best = min(best, time.perf_counter() - start)
    assert best < 0.1, f"1000 iterations took {best * 1e3:.1f} ms"  # ~4 ms measured; 100 ms catches a regression


# -- gradients against finite differences ------------------------------------------------------------

X3 = np.array([0.5, -1.0, 2.0])
M32 = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]])


def _poly_loop(x, w):
    _, y = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * w + tf.sin(a)), [0, x])
    return y


def _loop_with_cond(x, w):
    def body(i, a):
        return i + 1, tf.cond(tf.reduce_sum(a) > 1.0, lambda: a * 0.5 * w, lambda: a * a + w)

    return tf.while_loop(lambda i, a: i < 5, body, [0, x])[1]


def _nested_loops(x, w):
    def outer(i, a):
        _, b = tf.while_loop(lambda j, b: j < 3, lambda j, b: (j + 1, b * w + 0.1), [0, a])
        return i + 1, tf.sin(b)

    return tf.while_loop(lambda i, a: i < 2, outer, [0, x])[1]


# (id, fn(*placeholders), inputs)
GRADIENTS = [
    ("cond_true", lambda x, w: tf.cond(tf.constant(True), lambda: x * x * w, lambda: tf.exp(x) * w), (X3, 0.7)),
    ("cond_false", lambda x, w: tf.cond(tf.constant(False), lambda: x * x * w, lambda: tf.exp(x) * w), (X3, 0.7)),
    ("cond_data_pred", lambda x, w: tf.cond(tf.reduce_sum(x) > 0, lambda: x * w, lambda: x), (X3, 0.7)),
    ("cond_tuple", lambda x, w: tf.add_n(list(tf.cond(tf.constant(True), lambda: (x * w, x * x),
                                                      lambda: (x, w * x)))), (X3, 0.7)),
    ("cond_pass_through", lambda x, w: tf.cond(tf.constant(True), lambda: x, lambda: x * w), (X3, 0.7)),
    ("cond_nested", lambda x, w: tf.cond(tf.constant(True), lambda: tf.cond(tf.constant(False), lambda: x,
                                                                            lambda: x * w * w), lambda: x), (X3, 0.7)),
    ("while", _poly_loop, (X3, 0.7)),
    ("while_zero_iterations", lambda x, w: tf.while_loop(lambda a: tf.reduce_sum(a) > 100.0, lambda a: a * w, [x]),
     (X3, 0.7)),
    ("while_data_dependent", lambda x, w: tf.while_loop(lambda a: tf.reduce_sum(a * a) < 50.0, lambda a: a * (1 + w),
                                                        [x]), (X3, 0.7)),
    ("while_max_iterations", lambda x, w: tf.while_loop(lambda a: tf.reduce_sum(a) < 1e9, lambda a: a * w + 1.0, [x],
                                                        maximum_iterations=3), (X3, 0.7)),
    ("while_two_float_vars", lambda x, w: tf.add_n(list(tf.while_loop(
        lambda a, b: tf.reduce_sum(a) < 40.0, lambda a, b: (a + b * w, b * 1.5), [x, x * x]))), (X3, 0.7)),
    ("while_cond", _loop_with_cond, (X3, 0.7)),
    ("while_nested", _nested_loops, (X3, 0.7)),
    ("map_fn", lambda m, w: tf.map_fn(lambda r: tf.reduce_sum(r * r) * w, m), (M32, 0.7)),
    ("map_fn_captured_matrix", lambda m, w: tf.map_fn(lambda r: r * m[0] + w, m), (M32, 0.7)),
    ("scan", lambda m, w: tf.scan(lambda a, r: a * w + r * r, m, initializer=tf.ones([2], tf.float64)), (M32, 0.7)),
    ("scan_reverse", lambda m, w: tf.scan(lambda a, r: a * w + tf.sin(r), m, reverse=True), (M32, 0.7)),
    ("foldl", lambda m, w: tf.foldl(lambda a, r: a * r + w, m), (M32, 0.7)),
    ("foldr_initializer", lambda m, w: tf.foldr(lambda a, r: a * w + r, m, initializer=m[0] * 2.0), (M32, 0.7)),
]


@pytest.mark.parametrize("fn, inputs", [c[1:] for c in GRADIENTS], ids=[c[0] for c in GRADIENTS])
def test_gradients_match_finite_differences(fn, inputs):
    check_gradients(fn, *[np.asarray(x, np.float64) for x in inputs])


# -- gradients against TF1 -------------------------------------------------------------------------


def _tf1_cases():
    x0 = tf.constant(X3)
    w = tf.constant(0.7, tf.float64)
    m = tf.constant(M32)
    return x0, w, m


# (id, build(x0, w, m) -> y, TF1's value of y, TF1's gradients of sum(y) w.r.t. (x0 or m, w))
TF1_GRADIENTS = [
    ("while", lambda x0, w, m: tf.reduce_sum(tf.square(tf.while_loop(
        lambda i, x: i < 5, lambda i, x: (i + 1, x * w + tf.sin(x)), [0, x0])[1])), "x0", 16.649362260700936,
     ([0.2027234791752365, 8.23757201060262e-05, -1.3242455682500615e-08], 33.507234699534955)),
    ("map_fn", lambda x0, w, m: tf.reduce_sum(tf.map_fn(lambda r: tf.reduce_sum(r * r) * w, m)), "m", 10.71875,
     ([[1.4, 2.8], [4.2, -1.4], [0.7, 0.35]], 15.3125)),
    ("scan", lambda x0, w, m: tf.reduce_sum(tf.scan(lambda a, r: a * w + r * r, m,
                                                    initializer=tf.constant([1.0, 1.0], tf.float64)) ** 2),
     "m", 211.12617924999995,
     ([[49.80267999999999, 73.64076], [184.29719999999998, -25.7434], [14.765999999999998, 3.0654999999999997]],
      332.79358999999994)),
    ("foldr", lambda x0, w, m: tf.reduce_sum(tf.foldr(lambda a, r: a * r + w, m)), "m", 4.5,
     ([[2.2, 0.45], [0.5, 0.5], [3.0, -2.0]], 5.0)),
    ("cond_in_while", lambda x0, w, m: tf.while_loop(
        lambda i, a: i < 6, lambda i, a: (i + 1, tf.cond(a > 1.0, lambda: a * 0.5 * w, lambda: a * a + w)),
        [0, tf.constant(0.9, tf.float64)])[1], "x0", 1.0371757548152123, (None, 4.095798835807423)),
    ("while_in_while", lambda x0, w, m: tf.reduce_sum(tf.while_loop(
        lambda i, a: i < 2,
        lambda i, a: (i + 1, tf.sin(tf.while_loop(lambda j, b: j < 3, lambda j, b: (j + 1, b * w + 0.1), [0, a])[1])),
        [0, x0])[1]), "x0", 0.3424874868055822 + 0.1756607471532243 + 0.46951715544606626,
     ([0.10221275284800889, 0.11493036653617669, 0.06416211995751825], 2.5143454376828216)),
]


@pytest.mark.parametrize("build, wrt, value, grads", [c[1:] for c in TF1_GRADIENTS], ids=[c[0] for c in TF1_GRADIENTS])
def test_gradients_match_tf1(build, wrt, value, grads):
    x0, w, m = _tf1_cases()
    y = build(x0, w, m)
    first = x0 if wrt == "x0" else m
    g = tf.gradients(y, [first, w])
    got = run([y] + [t for t in g if t is not None])
    np.testing.assert_allclose(got[0], value, rtol=1e-12)
    want = [v for v in grads if v is not None]
    for a, b in zip(got[1:], want):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("pred, value, grads", [
    (True, 3.675, ([0.7, -1.4, 2.8], 5.25)),
    (False, 4.608771837293087, ([0.8078734226430627, 0.1802609261740067, 3.620637488476018], 13.167919535123108)),
])
def test_cond_gradients_match_tf1(sess, pred, value, grads):
    x0, w, _ = _tf1_cases()
    p = tf.placeholder(tf.bool, [])
    y = tf.cond(p, lambda: tf.reduce_sum(x0 * x0 * w), lambda: tf.reduce_sum(tf.exp(x0) * w * w))
    got = sess.run([y] + tf.gradients(y, [x0, w]), {p: pred})
    np.testing.assert_allclose(got[0], value, rtol=1e-12)
    np.testing.assert_allclose(got[1], grads[0], rtol=1e-12)
    np.testing.assert_allclose(got[2], grads[1], rtol=1e-12)


def test_gradient_reaches_a_variable_read_in_the_body(sess):
    v = tf.Variable(1.5, dtype=tf.float64)
    _, y = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * v + 1.0), [0, tf.constant(0.5, tf.float64)])
    (g,) = tf.gradients(y, [v])
    sess.run(v.initializer)
    assert sess.run([y, g]) == [10.65625, 17.5]  # TF1's figures


def test_gradient_through_a_variable_read_afresh_each_iteration(sess):
    v = tf.Variable(2.0, dtype=tf.float64)
    one = tf.constant(1.0, tf.float64)
    _, y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * v.read_value()), [0, one])
    (g,) = tf.gradients(y, [v])
    sess.run(v.initializer)
    assert sess.run([y, g]) == [8.0, 12.0]


def test_back_prop_false_stops_gradients():
    x = tf.constant(2.0)
    y = tf.while_loop(lambda a: a < 10.0, lambda a: a * 2.0, [x], back_prop=False)
    assert tf.gradients(y, [x]) == [None]
    m = tf.map_fn(lambda r: r * 2.0, e(), back_prop=False)
    assert tf.gradients(m, [e()]) == [None]


def test_integer_loop_variables_get_no_gradient():
    x = tf.constant(2.0)
    i, y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0), [0, x])
    assert run(tf.gradients(y, [x])) == [8.0]
    assert tf.gradients(tf.cast(i, tf.float32), [x]) == [None]


def test_random_values_are_not_recomputed_for_the_gradient(sess):
    x = tf.placeholder(tf.float64, [])
    _, y = tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * tf.random_uniform([], 1.0, 2.0, tf.float64)),
                         [0, x])
    (g,) = tf.gradients(y, [x])
    y_val, g_val = sess.run([y, g], {x: 3.0})
    np.testing.assert_allclose(g_val, y_val / 3.0)  # y = x * prod(r): dy/dx = y / x for the same r


def test_stateful_op_in_a_body_runs_once_per_iteration_with_gradients(sess):
    count = tf.Variable(0)
    x = tf.constant(1.0)

    def body(i, a):
        with tf.control_dependencies([count.assign_add(1)]):
            return i + 1, a * 3.0

    _, y = tf.while_loop(lambda i, a: i < 4, body, [0, x])
    (g,) = tf.gradients(y, [x])
    sess.run(count.initializer)
    assert sess.run([y, g]) == [81.0, 81.0]
    assert sess.run(count) == 4


def test_gradient_built_after_a_run_gets_fresh_plans(sess):
    x = tf.constant([1.0, 2.0])
    y = tf.while_loop(lambda a: tf.reduce_sum(a) < 20.0, lambda a: a * a + 1.0, [x])
    np.testing.assert_allclose(sess.run(y), [5.0, 26.0])
    (g,) = tf.gradients(tf.reduce_sum(y), [x])
    np.testing.assert_allclose(sess.run(g), [2.0 * 2.0 * 1.0 * 2.0, 2.0 * 5.0 * 2.0 * 2.0])  # chain of 2a twice
    np.testing.assert_allclose(sess.run(y), [5.0, 26.0])
    (g2,) = tf.gradients(tf.reduce_sum(y * y), [x])  # a second gradient of the same loop
    np.testing.assert_allclose(sess.run([g, g2]), [[8.0, 40.0], [80.0, 2080.0]])


@pytest.mark.parametrize("shared_weight", [False, True])
def test_a_loops_weight_gradients_summed_after_the_loop_equal_the_step_by_step_sums(monkeypatch, shared_weight):
    """The reverse loop computes a captured weight's gradient (x.T @ dz each step) and a bias's
    (the rows of dz summed) as one product and one sum of the stacked steps; a weight used twice a
    step (an AddN of two products) keeps the sum step by step. Both equal the step-by-step sums."""
    from dflow.ops.control_flow import control_flow_grad

    rng = np.random.default_rng(0)
    x0 = rng.normal(size=(5, 6)).astype(np.float32)
    w0 = rng.normal(size=(6, 6)).astype(np.float32) * 0.5
    b0 = rng.normal(size=(6,)).astype(np.float32)

    def grads(defer):
        monkeypatch.setattr(control_flow_grad, "DEFER_CAPTURED", defer)
        with tf.Graph().as_default():
            w, b = tf.constant(w0), tf.constant(b0)

            def body(i, h):
                z = tf.nn.bias_add(tf.matmul(h, w), b)
                if shared_weight:
                    z = z + tf.matmul(tf.tanh(h), w)
                return i + 1, tf.tanh(z)

            _, h = tf.while_loop(lambda i, h: i < 7, body, [tf.constant(0), tf.constant(x0)])
            ops = [t.op for t in tf.gradients(tf.reduce_sum(h * h), [w, b])]
            with tf.Session() as sess:
                return sess.run([o.outputs[0] for o in ops]), ops

    (dw, db), _ = grads(True)
    (dw_steps, db_steps), _ = grads(False)
    np.testing.assert_allclose(dw, dw_steps, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(db, db_steps, rtol=1e-5, atol=1e-6)
    assert not np.array_equal(dw, np.zeros_like(dw))


def test_deferred_gradient_plans_pick_products_and_bias_sums_only():
    from dflow.ops.control_flow import control_flow_grad

    with tf.Graph().as_default():
        w = tf.constant(np.ones((4, 4), np.float32))
        b = tf.constant(np.ones(4, np.float32))
        _, h = tf.while_loop(lambda i, h: i < 3,
                             lambda i, h: (i + 1, tf.nn.bias_add(tf.matmul(h, w), b) * tf.reduce_sum(w)),
                             [tf.constant(0), tf.ones([2, 4])])
        tf.gradients(tf.reduce_sum(h), [w, b])
        op = [o for o in tf.get_default_graph().get_operations() if o.type == "WhileGrad"][0]
        n_ds, n_de = len(op._attrs["state_inputs"]), len(op._attrs["elem_inputs"])
        n_dc = len(op._attrs["captured_inputs"])
        _, plans, n_collect = control_flow_grad._deferred_gradients(op._attrs["body_grad"], n_ds + n_de, n_dc)
    # w's gradient sums a product and the reduce_sum's gradient (an AddN): kept step by step;
    # b's gradient is a BiasAddGrad: deferred
    assert sorted(p[0] for p in plans.values()) == ["bias"] and n_collect == 1
