"""tf.TensorArray: values, static shapes, gradients and errors against TF 2.15
(``disable_v2_behavior``: TF1's TensorArrayV3), and finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.gradcheck import check_gradients
from tests.ops.harness import run

X3 = np.array([[1., 2.], [3., 4.], [5., 6.]], np.float32)


def _filled(clear_after_read=False):
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=clear_after_read)
    return ta.write(0, [1., 2.]).write(1, [3., 4.]).write(2, [5., 6.])


def test_graph_and_properties_match_tf1():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
        assert ta.flow.name == "TensorArray:1" and ta.flow.dtype == tf.float32 and ta.flow.shape.as_list() == []
        assert ta.handle.name == "TensorArray:0"
        assert ta.element_shape.ndims is None and ta.dynamic_size is False and ta.dtype == tf.float32
        ta2 = ta.write(0, [1., 2.])
        # A write's shape informs every TensorArray of the chain, as in TF1.
        assert ta2.element_shape.as_list() == [2] and ta.element_shape.as_list() == [2]
        assert ta2.flow.name == "TensorArrayWrite/TensorArrayWriteV3:0"
        assert ta2.read(0).name == "TensorArrayReadV3:0" and ta2.read(0).shape.as_list() == [2]
        full = ta2.write(1, [3., 4.]).write(2, [5., 6.])
        st = full.stack()
        assert st.name == "TensorArrayStack/TensorArrayGatherV3:0" and st.shape.as_list() == [3, 2]
        assert full.gather([2, 0]).shape.as_list() == [None, 2]
        assert full.concat().shape.as_list() == [6]
        assert full.size().op.type == "Const"
        stack, gathered, concat, size = run([st, full.gather([2, 0]), full.concat(), full.size()])
    np.testing.assert_array_equal(stack, X3)
    np.testing.assert_array_equal(gathered, [[5., 6.], [1., 2.]])
    np.testing.assert_array_equal(concat, [1., 2., 3., 4., 5., 6.])
    assert size == 3


# name -> (build() -> fetches, expected values from TF 2.15)
VALUE_CASES = {
    "unstack_dynamic": (lambda: (lambda t: [t.stack(), t.size()])(
        tf.TensorArray(tf.float32, size=0, dynamic_size=True).unstack(tf.constant([[1., 2.], [3., 4.]]))),
        [[[1., 2.], [3., 4.]], 2]),
    "split_concat": (lambda: (lambda t: [t.read(0), t.read(1), t.concat()])(
        tf.TensorArray(tf.float32, size=2, infer_shape=False, clear_after_read=False)
        .split(tf.constant([1., 2., 3., 4., 5.]), [2, 3])),
        [[1., 2.], [3., 4., 5.], [1., 2., 3., 4., 5.]]),
    "scatter_and_unwritten_zeros": (lambda: (lambda t: [t.read(3), t.read(0)])(
        tf.TensorArray(tf.float32, size=4, element_shape=[2]).scatter([3, 1], tf.constant([[1., 2.], [3., 4.]]))),
        [[1., 2.], [0., 0.]]),
    "dynamic_write_past_end": (lambda: (lambda t: [t.size(), t.stack()])(
        tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[]).write(4, 1.0)),
        [5, [0., 0., 0., 0., 1.]]),
    "empty_with_element_shape": (lambda: (lambda t: [t.stack(), t.concat()])(
        tf.TensorArray(tf.float32, size=0, element_shape=[3])), [np.zeros((0, 3)), np.zeros((0,))]),
    "stack_fills_unwritten_with_zeros": (lambda: tf.TensorArray(tf.float32, size=2).write(0, [1., 2.]).stack(),
                                         [[1., 2.], [0., 0.]]),
    "int_elements": (lambda: tf.TensorArray(tf.int32, size=2).write(1, 7).write(0, 5).stack(), [5, 7]),
    "read_twice_without_clear": (lambda: (lambda t: t.read(0) + t.read(0))(
        tf.TensorArray(tf.float32, size=3, clear_after_read=False).write(0, 1.)), 2.0),
}


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_values_match_tf(name):
    build, want = VALUE_CASES[name]
    with tf.Graph().as_default():
        got = run(build())
    if isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, np.asarray(w))
    else:
        np.testing.assert_array_equal(got, np.asarray(want))


def test_two_writes_to_one_array_give_independent_arrays():
    with tf.Graph().as_default():
        # (TF1's arrays are one resource: there the second write fails.)
        ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False).write(0, 1.)
        a, b = ta.write(1, 2.), ta.write(1, 3.)
        got = run([a.stack(), b.stack()])
    np.testing.assert_array_equal(got[0], [1., 2.])
    np.testing.assert_array_equal(got[1], [1., 3.])


# name -> (build(x) -> y, x, d(sum(y * w))/dx from TF 2.15 with w = _WEIGHTS(y))
def _read_unstack(x):
    ta = tf.TensorArray(x.dtype, size=3, clear_after_read=False).unstack(x)
    return ta.read(0) * 2.0 + ta.read(2) * ta.read(2)


def _gather(x):
    return tf.TensorArray(x.dtype, size=3, clear_after_read=False).unstack(x).gather([2, 2, 0])


def _write_stack(x):
    return tf.TensorArray(x.dtype, size=2).write(0, x[0]).write(1, x[1] * x[1]).stack()


def _split_concat(v):
    ta = tf.TensorArray(v.dtype, size=2, infer_shape=False, clear_after_read=False).split(v, [2, 3])
    return tf.concat([ta.concat() * tf.range(5, dtype=v.dtype), ta.read(0)], 0)


def _scatter_gather(x):
    return tf.TensorArray(x.dtype, size=4).scatter([3, 1], x[:2]).gather([1, 3])


def _cumsum_loop(x):
    """TF1's map_fn pattern: read an input array in the loop, write an output array, stack it."""
    n = 4
    in_ta = tf.TensorArray(x.dtype, size=n).unstack(x)

    def body(i, acc, ta):
        acc = acc + in_ta.read(i)
        return i + 1, acc, ta.write(i, acc * acc)

    _, _, out = tf.while_loop(lambda i, *_: i < n, body, [0, tf.zeros([], x.dtype), tf.TensorArray(x.dtype, size=n)])
    return out.stack()


def _dynamic_loop(x):
    dt = tf.TensorArray(x.dtype, size=0, dynamic_size=True)
    _, out = tf.while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, t.write(i, tf.cast(i, x.dtype) * x[:2])), [0, dt])
    return out.stack()


GRAD_CASES = {
    "read_unstack": (_read_unstack, X3, None, [[2., 2.], [0., 0.], [10., 12.]]),
    "gather": (_gather, X3, X3, [[5., 6.], [0., 0.], [4., 6.]]),
    "scatter_gather": (_scatter_gather, X3, X3[:2], [[3., 4.], [1., 2.], [0., 0.]]),
    "cumsum_while_loop": (_cumsum_loop, np.float32([1., 2., 3., 4.]), np.float32([1., -1., 2., .5]),
                          [30., 28., 34., 10.]),
    "dynamic_size_while_loop": (_dynamic_loop, np.float32([1., 2., 3., 4.]), None, [3., 3., 0., 0.]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_tf(name):
    build, x, w, want = GRAD_CASES[name]
    with tf.Graph().as_default():
        xt = tf.constant(x)
        y = build(xt)
        (g,) = tf.gradients(tf.reduce_sum(y if w is None else y * w), [xt])
        got = run(g)
    np.testing.assert_allclose(got, np.asarray(want, np.float32), rtol=1e-6)


def test_while_loop_cumulative_sum_values_match_tf():
    with tf.Graph().as_default():
        y = _cumsum_loop(tf.constant([1., 2., 3., 4.]))
        assert y.shape.as_list() == [4]
        np.testing.assert_array_equal(run(y), [1., 9., 36., 100.])
        d = _dynamic_loop(tf.constant([1., 2., 3., 4.]))
        assert d.shape.as_list() == [None, 2]
        np.testing.assert_array_equal(run(d), [[0., 0.], [1., 2.], [2., 4.]])


@pytest.mark.parametrize("build, x", [
    (_read_unstack, X3), (_gather, X3), (_write_stack, X3[:2]), (_split_concat, np.float32([1., 2., 3., 4., 5.])),
    (_scatter_gather, X3), (_cumsum_loop, np.float32([1., 2., 3., 4.])), (_dynamic_loop, np.float32([1., 2., 3.])),
], ids=["read_unstack", "gather", "write_stack", "split_concat", "scatter_gather", "cumsum_loop", "dynamic_loop"])
def test_gradients_match_finite_differences(build, x):
    check_gradients(build, x.astype(np.float64))


def test_write_stack_and_split_concat_gradients_match_tf():
    with tf.Graph().as_default():
        a, b = tf.constant([1., 2.]), tf.constant([3., 4.])
        s = tf.TensorArray(tf.float32, size=2).write(0, a).write(1, b).stack()
        ga, gb = run(tf.gradients(tf.reduce_sum(s * X3[:2]), [a, b]))
        v = tf.constant([1., 2., 3., 4., 5.])
        ta = tf.TensorArray(tf.float32, size=2, infer_shape=False, clear_after_read=False).split(v, [2, 3])
        (gv,) = run(tf.gradients(tf.reduce_sum(ta.concat() * tf.range(5.)) + tf.reduce_sum(ta.read(0)), [v]))
    np.testing.assert_array_equal(ga, [1., 2.])
    np.testing.assert_array_equal(gb, [3., 4.])
    np.testing.assert_array_equal(gv, [1., 2., 2., 3., 4.])


def test_identity_grad_and_close():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=2, element_shape=[2]).write(0, [1., 2.])
        same = ta.identity()
        assert same.flow.op.type == "Identity" and same.element_shape.as_list() == [2]
        g = ta.grad("gradients")
        assert g.dtype == tf.float32 and g.element_shape.as_list() == [2]
        g = g.write(1, [5., 6.])
        close = ta.close()
        assert close.type == "TensorArrayCloseV3"
        got = run([same.read(0), g.stack(), g.size(), close])
    np.testing.assert_array_equal(got[0], [1., 2.])
    np.testing.assert_array_equal(got[1], [[0., 0.], [5., 6.]])
    assert got[2] == 2


# Errors, worded as TF 2.15's TensorArrayV3 kernels word them.
ERROR_CASES = [
    ("read_unwritten", lambda: tf.TensorArray(tf.float32, size=3).read(1),
     r"Could not read from TensorArray index 1.  Furthermore, the element shape is not fully defined"),
    ("write_twice", lambda: tf.TensorArray(tf.float32, size=3).write(0, 1.).write(0, 2.).read(0),
     "Could not write to TensorArray index 0 because it has already been written to"),
    ("read_twice", lambda: (lambda t: t.read(0) + t.read(0))(tf.TensorArray(tf.float32, size=3).write(0, 1.)),
     r"Could not read index 0 twice because it was cleared after a previous read \(perhaps try setting "
     r"clear_after_read = false\?\)"),
    ("write_out_of_range", lambda: tf.TensorArray(tf.float32, size=3).write(3, 1.).read(0),
     "Tried to write to index 3 but array is not resizeable and size is: 3"),
    ("write_negative", lambda: tf.TensorArray(tf.float32, size=3).write(-1, 1.).read(0),
     "Tried to write to index -1 but array is not resizeable and size is: 3"),
    ("read_out_of_range", lambda: tf.TensorArray(tf.float32, size=3).write(0, 1.).read(5),
     "Tried to read from index 5 but array size is: 3"),
    ("gather_out_of_range", lambda: _filled().gather([0, 3]), "Tried to read from index 3 but array size is: 3"),
    ("unstack_too_many", lambda: tf.TensorArray(tf.float32, size=2).unstack([1., 2., 3.]).stack(),
     r"Max scatter index must be < array size \(2 vs. 2\)"),
    ("unstack_too_many_fed", lambda: tf.TensorArray(tf.float32, size=2).unstack(
        tf.placeholder_with_default([1., 2., 3.], [None])).stack(), r"Max scatter index must be < array size"),
    ("scatter_out_of_range", lambda: tf.TensorArray(tf.float32, size=2).scatter([0, 2], [[1.], [2.]]).stack(),
     r"Max scatter index must be < array size \(2 vs. 2\)"),
    ("split_lengths_sum", lambda: tf.TensorArray(tf.float32, size=2).split([1., 2., 3.], [1, 1]).concat(),
     "Expected sum of lengths to be equal to values.shape\\[0\\], but sum of lengths is 2 and value's shape is: "
     "\\[3\\]"),
    ("split_lengths_count", lambda: tf.TensorArray(tf.float32, size=2).split([1., 2., 3.], [1, 1, 1]).concat(),
     r"TensorArray's size is not equal to the size of lengths \(2 vs. 3\)"),
    ("write_shape_fed", lambda: tf.TensorArray(tf.float32, size=2).write(0, [1., 2.]).write(
        1, tf.placeholder_with_default([1., 2., 3.], [None])).stack(),
     r"Could not write to TensorArray index 1 because the value shape is \[3\] which is incompatible with the "
     r"TensorArray's inferred element shape: \[2\]"),
    ("write_dtype", lambda: tf.TensorArray(tf.float32, size=2).write(0, tf.constant([1, 2])).stack(),
     "TensorArray dtype is float32 but Op is trying to write dtype int32"),
    ("concat_scalars", lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.).write(1, 2.).concat(),
     "Concat saw a scalar shape at index 0 but requires at least vectors"),
    ("stack_empty_unknown_shape", lambda: tf.TensorArray(tf.float32, size=0).stack(),
     "TensorArray has size zero, but element shape <unknown> is not fully defined"),
]


@pytest.mark.parametrize("build, message", [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_bad_use_is_invalid_argument_naming_op_and_index(build, message):
    with tf.Graph().as_default():
        t = build()
        with pytest.raises(tf.errors.InvalidArgumentError, match=message) as info:
            run(t)
    assert "TensorArray" in str(info.value) and "[[node " in str(info.value)


def test_graph_time_errors_match_tf1():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Inconsistent shapes: saw \(3,\) but expected \(2,\)"):
            tf.TensorArray(tf.float32, size=2).write(0, [1., 2.]).write(1, [1., 2., 3.])
        with pytest.raises(ValueError, match=r"Inconsistent shapes: saw \(2,\) but expected \(3,\)"):
            tf.TensorArray(tf.float32, size=2, element_shape=[3]).write(0, [1., 2.])
        with pytest.raises(ValueError, match="Size must be provided"):
            tf.TensorArray(tf.float32)
        flow = tf.TensorArray(tf.float32, size=1)
        with pytest.raises(ValueError, match="flow must not be None"):
            tf.TensorArray(tf.float32, handle=flow.handle)
        with pytest.raises(ValueError, match="both a handle and size"):
            tf.TensorArray(tf.float32, size=1, handle=flow.handle, flow=flow.flow)
        rebuilt = tf.TensorArray(tf.float32, handle=flow.handle, flow=flow.write(0, 4.).flow)
        assert run(rebuilt.read(0)) == 4.0


def test_loops_nested_single_and_bounded():
    with tf.Graph().as_default():
        x = tf.constant([1., 2., 3.])
        ta = tf.TensorArray(tf.float32, size=3)
        _, bounded = tf.while_loop(lambda i, t: i < 10, lambda i, t: (i + 1, t.write(i, x[i] * 2.)), [0, ta],
                                   maximum_iterations=3)

        def outer_body(i, t):
            inner = tf.TensorArray(tf.float32, size=2)
            _, inner = tf.while_loop(lambda j, u: j < 2,
                                     lambda j, u: (j + 1, u.write(j, x[i] * tf.cast(j + 1, tf.float32))), [0, inner])
            return i + 1, t.write(i, inner.stack())

        _, nested = tf.while_loop(lambda i, t: i < 3, outer_body, [0, tf.TensorArray(tf.float32, size=3)])
        ns = nested.stack()
        assert ns.shape.as_list() == [3, 2]
        single = tf.while_loop(lambda t: t.size() < 3, lambda t: t.write(t.size(), 1.0),
                               [tf.TensorArray(tf.float32, size=0, dynamic_size=True)])
        assert isinstance(single, tf.TensorArray)
        with tf.Session() as sess:
            # Each run starts from a fresh array.
            np.testing.assert_array_equal(sess.run(bounded.stack()), [2., 4., 6.])
            np.testing.assert_array_equal(sess.run(bounded.stack()), [2., 4., 6.])
            np.testing.assert_array_equal(sess.run(ns), [[1., 2.], [2., 4.], [3., 6.]])
            np.testing.assert_array_equal(sess.run(tf.gradients(tf.reduce_sum(ns * ns), x)[0]), [10., 20., 30.])
            np.testing.assert_array_equal(sess.run(single.stack()), [1., 1., 1.])


def test_cond_returns_tensor_arrays_with_gradients():
    with tf.Graph().as_default():
        x = tf.constant([1., 2., 3.])
        ta = tf.TensorArray(tf.float32, size=3)
        p = tf.placeholder(tf.bool, [])
        out = tf.cond(p, lambda: ta.write(0, x[0] * 5.), lambda: ta.write(0, x[1] * x[1]))
        assert isinstance(out, tf.TensorArray)
        y = out.read(0)
        (g,) = tf.gradients(y, [x])
        with tf.Session() as sess:
            got_t = sess.run([y, g], {p: True})
            got_f = sess.run([y, g], {p: False})
    assert got_t[0] == 5.0 and got_f[0] == 4.0
    np.testing.assert_array_equal(got_t[1], [5., 0., 0.])
    np.testing.assert_array_equal(got_f[1], [0., 4., 0.])


def test_shape_invariants_leave_tensor_arrays_alone():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        _, acc, out = tf.while_loop(
            lambda i, a, t: i < 3, lambda i, a, t: (i + 1, tf.concat([a, [1.]], 0), t.write(i, tf.reduce_sum(a))),
            [0, tf.zeros([0]), ta], shape_invariants=[tf.TensorShape([]), tf.TensorShape([None]), tf.TensorShape(None)])
        np.testing.assert_array_equal(run(out.stack()), [0., 1., 2.])
