"""tf.ConditionalAccumulator: graph structure, TF1's mean/sum and global-step
semantics (figures from TF 2.15's tf.compat.v1), stale gradients, shapes,
blocking take_grad, deadlines and sharing."""

import logging
import threading
import time

import numpy as np
import pytest

import dflow as tf
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.state.accumulator_state import AccumulatorState


def run_in_thread(fn):
    """Starts ``fn`` in a thread; returns (thread, list that gets its result or exception)."""
    out = []

    def target():
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - handed to the test
            out.append(e)

    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, out


def wait_until(condition, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the test's threads"
        time.sleep(0.005)


def waiting_takes(acc_state) -> int:
    with acc_state._cond:
        return len(acc_state._takes)


def state_of(sess, acc):
    """The AccumulatorState behind ``acc`` in ``sess`` (runs its handle op)."""
    from dflow.ops.state.data_flow_ops import resource_key

    handle = sess.run(acc.accumulator_ref)
    return sess._runtime.resources.resource(resource_key("accumulator", handle))


@pytest.fixture
def acc_graph():
    """An accumulator of shape [2] with placeholders for gradient, local step and num_required."""
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2], name="acc")
    g = tf.placeholder(tf.float32)
    ls = tf.placeholder(tf.int64)
    n = tf.placeholder(tf.int32)
    return acc, acc.apply_grad(g, local_step=ls), acc.take_grad(n), acc.num_accumulated(), g, ls, n


# -- graph structure -----------------------------------------------------------------------


def test_ops_have_tf1_types_names_shapes_and_colocation():
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2], name="acc")
    total = tf.ConditionalAccumulator(tf.float32, shape=[2], name="acc", reduction_type="SUM")
    apply = acc.apply_grad([1.0, 2.0])
    take = acc.take_grad(2)
    count = acc.num_accumulated()
    set_step = acc.set_global_step(3)
    total.num_accumulated()
    ops = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    assert ops == {
        "acc": "ResourceConditionalAccumulator", "acc_1": "ResourceConditionalAccumulator",
        "Const": "Const", "Const_1": "Const", "Cast": "Cast",
        "ResourceAccumulatorApplyGradient": "ResourceAccumulatorApplyGradient",
        "ResourceAccumulatorTakeGradient/num_required": "Const",
        "ResourceAccumulatorTakeGradient": "ResourceAccumulatorTakeGradient",
        "acc_NumAccumulated": "ResourceAccumulatorNumAccumulated",
        "Const_2": "Const", "Cast_1": "Cast",
        "ResourceAccumulatorSetGlobalStep": "ResourceAccumulatorSetGlobalStep",
        "acc_1_NumAccumulated": "ResourceAccumulatorNumAccumulated",
    }
    assert acc.name == "acc" and total.name == "acc_1" and acc.dtype == tf.float32
    assert acc.accumulator_ref.name == "acc:0"
    assert acc.accumulator_ref.dtype == tf.string and acc.accumulator_ref.shape.ndims == 0
    assert [t.op.name for t in apply.inputs] == ["acc", "Cast", "Const"]
    assert apply.inputs[1].dtype == tf.int64 and set_step.inputs[1].dtype == tf.int64
    assert take.dtype == tf.float32 and take.shape.as_list() == [2]
    assert count.dtype == tf.int32 and count.shape.ndims == 0
    for op in (apply, take.op, count.op, set_step):
        assert op.colocation_groups() == [b"loc:@acc"]
    assert acc.accumulator_ref.op.device == "/device:CPU:*"


def test_graph_time_errors_as_tf1():
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
        acc.apply_grad([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="reduction_type.*'MAX' not in"):
        tf.ConditionalAccumulator(tf.float32, reduction_type="MAX")
    with pytest.raises(TypeError, match="float16, float32 or float64.*int32"):
        tf.ConditionalAccumulator(tf.int32, shape=[])
    unknown = tf.ConditionalAccumulator(tf.float64)
    assert unknown.take_grad(1).shape.ndims is None
    partial = tf.ConditionalAccumulator(tf.float32, shape=[None, 2])
    assert partial.take_grad(1).shape.as_list() == [None, 2]


# -- TF1's semantics ------------------------------------------------------------------------


def test_mean_sum_stale_and_global_step_match_tf1():
    """The figures of TF 2.15 (tf.compat.v1) for the same sequence of runs."""
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2], name="acc")
    total = tf.ConditionalAccumulator(tf.float32, shape=[2], name="acc", reduction_type="SUM")
    g = tf.placeholder(tf.float32)
    ls = tf.placeholder(tf.int64)
    n = tf.placeholder(tf.int32)
    gs = tf.placeholder(tf.int64)
    ap, ap_sum = acc.apply_grad(g, local_step=ls), total.apply_grad(g, local_step=ls)
    tk, tk_sum = acc.take_grad(n), total.take_grad(n)
    na, na_sum = acc.num_accumulated(), total.num_accumulated()
    sg = acc.set_global_step(gs)
    with tf.Session() as s:
        for v in ([1.0, 2.0], [3.0, 4.0], [5.0, 9.0]):
            s.run([ap, ap_sum], {g: v, ls: 0})
        assert s.run([na, na_sum]) == [3, 3]
        mean, summed = s.run([tk, tk_sum], {n: 2})  # every summed gradient counts, not just 2
        np.testing.assert_array_equal(mean, np.array([3.0, 5.0], np.float32))
        np.testing.assert_array_equal(summed, np.array([9.0, 15.0], np.float32))
        assert mean.dtype == np.float32
        assert s.run([na, na_sum]) == [0, 0]
        s.run(ap, {g: [1, 1], ls: 0})
        assert s.run(na) == 0  # stale: the global step is 1 now
        s.run(ap, {g: [1, 1], ls: 1})
        assert s.run(na) == 1
        s.run(ap, {g: [3, 5], ls: 5})
        assert s.run(na) == 2  # a step ahead of the accumulator is not stale
        np.testing.assert_array_equal(s.run(tk, {n: 2}), [2.0, 3.0])
        assert s.run(na) == 0
        s.run(sg, {gs: 10})
        s.run(ap, {g: [1, 1], ls: 3})
        assert s.run(na) == 0
        s.run(ap, {g: [1, 1], ls: 10})
        assert s.run(na) == 1
        s.run(sg, {gs: 2})  # going down warns, and keeps what was summed
        assert s.run(na) == 1
        s.run(ap, {g: [3, 3], ls: 2})
        assert s.run(na) == 2
        np.testing.assert_array_equal(s.run(tk, {n: 1}), [2.0, 2.0])
        s.run(ap, {g: [3, 3], ls: 2})
        assert s.run(na) == 0  # the take moved the step from 2 to 3
        s.run(ap, {g: [3, 3], ls: 3})
        assert s.run(na) == 1


def test_set_global_step_lower_logs_a_warning(caplog):
    acc = tf.ConditionalAccumulator(tf.float32, shape=[])
    with tf.Session() as s, caplog.at_level(logging.WARNING, logger="dflow"):
        s.run(acc.set_global_step(5))
        s.run(acc.set_global_step(2))
    assert "smaller value" in caplog.text and "5 >= 2" in caplog.text


def test_float16_and_float64_keep_their_dtype():
    h = tf.ConditionalAccumulator(tf.float16, shape=[])
    hp = tf.placeholder(tf.float16)
    ap = h.apply_grad(hp)
    d = tf.ConditionalAccumulator(tf.float64, shape=[1])
    with tf.Session() as s:
        for v in (1, 1, 2):
            s.run(ap, {hp: v})
            s.run(d.apply_grad([float(v)]))
        r = s.run(h.take_grad(3))
        assert r.dtype == np.float16 and r == np.float16(1.333)  # TF1: 1.333 (float16)
        r64 = s.run(d.take_grad(3))
        assert r64.dtype == np.float64 and r64[0] == pytest.approx(4 / 3, abs=1e-15)


def test_shape_errors_name_the_accumulator_and_shapes_and_stale_skips_checks(acc_graph):
    acc, ap, tk, na, g, ls, n = acc_graph
    unknown = tf.ConditionalAccumulator(tf.float32, name="u")
    partial = tf.ConditionalAccumulator(tf.float32, shape=[None, 2], name="p")
    up, pp = unknown.apply_grad(g, local_step=100), partial.apply_grad(g)
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"ConditionalAccumulator '_\d+_acc': Shape mismatch: expected \[2\], got \[3\]"):
            s.run(ap, {g: [1, 1, 1], ls: 0})
        s.run(ap, {g: [1, 1, 1], ls: -1})  # stale: dropped before any check (TF1)
        assert s.run(na) == 0
        s.run(up, {g: [1.0, 2.0]})  # an unknown shape takes the first gradient's
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shape mismatch: expected \[2\], got \[3\]"):
            s.run(up, {g: [1.0, 2.0, 3.0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shape mismatch: expected \[2\], got \[\]"):
            s.run(up, {g: 1.0})
        np.testing.assert_array_equal(s.run(unknown.take_grad(1)), [1.0, 2.0])
        s.run(up, {g: 7.0})  # after a take, any shape again
        assert s.run(unknown.take_grad(1)) == 7.0
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"expected \[\?,2\], got \[1,3\]"):
            s.run(pp, {g: [[1.0, 2.0, 3.0]]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"expected \[\?,2\], got \[2\]"):
            s.run(pp, {g: [1.0, 2.0]})
        s.run(pp, {g: [[1.0, 2.0]]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"expected \[1,2\], got \[2,2\]"):
            s.run(pp, {g: [[1.0, 2.0], [3.0, 4.0]]})
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            s.run(ap, {g: [1, 1, 1], ls: 0})
        assert "ResourceAccumulatorApplyGradient" in str(info.value)  # the runtime names the op


def test_num_required_below_one_is_invalid_argument(acc_graph):
    acc, ap, tk, na, g, ls, n = acc_graph
    with tf.Session() as s:
        s.run(ap, {g: [1, 1], ls: 0})
        for bad in (0, -2):
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=f"Argument num_required must be positive, but was {bad}"):
                s.run(tk, {n: bad})
        assert s.run(na) == 1


# -- blocking take_grad --------------------------------------------------------------------------


def test_take_grad_waits_for_enough_gradients_and_later_ones_are_stale(acc_graph):
    """A waiting take completes inside the apply that brings the count to n: a third
    gradient of the same step is stale (TF1: [2, 2], then 0 accumulated)."""
    acc, ap, tk, na, g, ls, n = acc_graph
    with tf.Session() as s:
        state = state_of(s, acc)
        t, out = run_in_thread(lambda: s.run(tk, {n: 2}))
        wait_until(lambda: waiting_takes(state) == 1)
        s.run(ap, {g: [1.0, 1.0], ls: 0})
        time.sleep(0.05)
        assert not out and s.run(na) == 1
        for v in ([3.0, 3.0], [8.0, 8.0]):
            s.run(ap, {g: v, ls: 0})
        t.join(5)
        np.testing.assert_array_equal(out[0], [2.0, 2.0])
        assert s.run(na) == 0 and state.global_step == 1


def test_takes_are_served_in_arrival_order(acc_graph):
    """TF1: take(3) then take(1) waiting; one gradient completes neither, three complete
    the first ([2, 2]) and the fourth the second ([5, 5])."""
    acc, ap, tk, na, g, ls, n = acc_graph
    with tf.Session() as s:
        state = state_of(s, acc)
        t1, out1 = run_in_thread(lambda: s.run(tk, {n: 3}))
        wait_until(lambda: waiting_takes(state) == 1)
        t2, out2 = run_in_thread(lambda: s.run(tk, {n: 1}))
        wait_until(lambda: waiting_takes(state) == 2)
        s.run(ap, {g: [1.0, 1.0], ls: 1})
        time.sleep(0.05)
        assert not out1 and not out2 and s.run(na) == 1
        s.run(ap, {g: [2.0, 2.0], ls: 1})
        s.run(ap, {g: [3.0, 3.0], ls: 1})
        t1.join(5)
        np.testing.assert_array_equal(out1[0], [2.0, 2.0])
        assert not out2 and s.run(na) == 0
        s.run(ap, {g: [5.0, 5.0], ls: 2})
        t2.join(5)
        np.testing.assert_array_equal(out2[0], [5.0, 5.0])


# -- deadlines and cancellation ------------------------------------------------------------------


def test_run_timeout_is_deadline_exceeded_and_keeps_the_gradients(acc_graph):
    acc, ap, tk, na, g, ls, n = acc_graph
    with tf.Session() as s:
        s.run(ap, {g: [4.0, 2.0], ls: 0})
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError) as info:
            s.run(tk, {n: 5}, options=tf.RunOptions(timeout_in_ms=100))
        assert time.monotonic() - start < 2.0
        msg = str(info.value)
        assert "ConditionalAccumulator '_" in msg and "_acc'" in msg
        assert "1 of the 5 gradients needed for step 0 arrived" in msg and "timeout_in_ms" in msg
        assert s.run(na) == 1  # TF1: 1 after the timeout, and take(1) still gets it
        np.testing.assert_array_equal(s.run(tk, {n: 1}), [4.0, 2.0])
        assert waiting_takes(state_of(s, acc)) == 0


def test_operation_timeout_is_deadline_exceeded_and_accumulator_stays_usable(acc_graph):
    acc, ap, tk, na, g, ls, n = acc_graph
    with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=100)) as s:
        s.run(ap, {g: [1.0, 1.0], ls: 0})
        s.run(ap, {g: [2.0, 3.0], ls: 0})
        with pytest.raises(tf.errors.DeadlineExceededError,
                           match=r"2 of the 3 gradients needed for step 0 arrived.*operation_timeout_in_ms = 100"):
            s.run(tk, {n: 3})
        s.run(ap, {g: [3.0, 5.0], ls: 0})
        np.testing.assert_array_equal(s.run(tk, {n: 3}), [2.0, 3.0])  # nothing was lost
        assert state_of(s, acc).global_step == 1


def test_a_timed_out_take_lets_the_next_one_in_line_through(acc_graph):
    acc, ap, tk, na, g, ls, n = acc_graph
    with tf.Session() as s:
        state = state_of(s, acc)
        t1, out1 = run_in_thread(lambda: s.run(tk, {n: 3}, options=tf.RunOptions(timeout_in_ms=300)))
        wait_until(lambda: waiting_takes(state) == 1)
        t2, out2 = run_in_thread(lambda: s.run(tk, {n: 1}))
        wait_until(lambda: waiting_takes(state) == 2)
        s.run(ap, {g: [6.0, 6.0], ls: 0})
        t1.join(5)
        assert isinstance(out1[0], tf.errors.DeadlineExceededError)
        t2.join(5)  # served as soon as the first left the line: the gradient was there
        np.testing.assert_array_equal(out2[0], [6.0, 6.0])


def test_closing_the_session_cancels_a_waiting_take(acc_graph):
    acc, ap, tk, na, g, ls, n = acc_graph
    s = tf.Session()
    state = state_of(s, acc)
    t, out = run_in_thread(lambda: s.run(tk, {n: 2}))
    wait_until(lambda: waiting_takes(state) == 1)
    s.close()
    t.join(5)
    assert isinstance(out[0], tf.errors.CancelledError)
    assert "0 of the 2 gradients" in str(out[0])


# -- sharing --------------------------------------------------------------------------------------


def test_shared_name_shares_one_accumulator_within_a_session():
    a = tf.ConditionalAccumulator(tf.float32, shape=[1], shared_name="shared_acc", name="a")
    b = tf.ConditionalAccumulator(tf.float32, shape=[1], shared_name="shared_acc", name="b")
    c = tf.ConditionalAccumulator(tf.float32, shape=[1], name="c")
    with tf.Session() as s:
        s.run([a.apply_grad([1.0]), b.apply_grad([3.0]), c.apply_grad([5.0])])
        assert s.run([a.num_accumulated(), b.num_accumulated(), c.num_accumulated()]) == [2, 2, 1]
        np.testing.assert_array_equal(s.run(b.take_grad(2)), [2.0])
    with tf.Session() as s:  # a local session owns its resources: a fresh accumulator
        assert s.run(a.num_accumulated()) == 0


def test_shared_name_with_another_spec_is_invalid_argument():
    a = tf.ConditionalAccumulator(tf.float32, shape=[1], shared_name="acc_x")
    b = tf.ConditionalAccumulator(tf.float64, shape=[1], shared_name="acc_x")
    c = tf.ConditionalAccumulator(tf.float32, shape=[2], shared_name="acc_x")
    d = tf.ConditionalAccumulator(tf.float32, shape=[1], shared_name="acc_x", reduction_type="SUM")
    with tf.Session() as s:
        s.run(a.num_accumulated())
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shared accumulator 'acc_x' has dtype float32"):
            s.run(b.num_accumulated())
        with pytest.raises(tf.errors.InvalidArgumentError, match="has shape"):
            s.run(c.num_accumulated())
        with pytest.raises(tf.errors.InvalidArgumentError, match="has reduction_type MEAN"):
            s.run(d.num_accumulated())


def test_concurrent_apply_loses_nothing():
    acc = tf.ConditionalAccumulator(tf.float64, shape=[3], reduction_type="SUM")
    g = tf.placeholder(tf.float64, [3])
    ap = acc.apply_grad(g)
    with tf.Session() as s:
        apply = s.make_callable(ap, feed_list=[g])

        def work(i):
            for _ in range(50):
                apply(np.full(3, float(i)))

        threads = [threading.Thread(target=work, args=(i,)) for i in range(1, 5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert s.run(acc.num_accumulated()) == 200
        np.testing.assert_array_equal(s.run(acc.take_grad(200)), np.full(3, 50.0 * (1 + 2 + 3 + 4)))


def test_state_object_directly():
    from dflow.framework import dtypes

    acc = AccumulatorState("direct", dtypes.float32, TensorShape([None]))
    acc.apply_grad(None, 0, np.array([1.0, 3.0], np.float32))
    out = acc.take_grad(None, 1)
    assert out.dtype == np.float32 and out.tolist() == [1.0, 3.0]
    assert acc.global_step == 1 and acc.num_accumulated() == 0
    with pytest.raises(tf.errors.InvalidArgumentError, match="reduction_type"):
        AccumulatorState("bad", dtypes.float32, TensorShape([]), "MAX")
