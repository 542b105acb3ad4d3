"""tf.CriticalSection: serialized runs, deadlines, release on failure, graph checks."""

import threading
import time

import numpy as np
import pytest

import dflow as tf
from dflow.framework.op_registry import apply_op, register


def _sleep_then_identity(x, seconds):
    time.sleep(seconds)
    return x


register("TestCriticalSectionSleep", infer=lambda op: [(op.inputs[0].dtype, op.inputs[0].shape)],
         kernel=_sleep_then_identity, stateful=True)


def slow(x, seconds=0.005):
    return apply_op("TestCriticalSectionSleep", [x], {"seconds": seconds}).outputs[0]


def racy_increment(v, seconds=0.005):
    """Read, sleep, write: loses updates when two runs overlap."""
    return lambda: tf.assign(v, slow(v.read_value(), seconds) + 1)


def run_together(fn, n_threads):
    barrier = threading.Barrier(n_threads)
    errors = []

    def work():
        barrier.wait()
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - handed to the test
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10.0)
    assert not any(t.is_alive() for t in threads)
    return errors


def test_graph_structure_matches_tf1():
    cs = tf.CriticalSection(name="cs")
    v = tf.Variable(0, name="v")
    out = cs.execute(lambda: v.assign_add(1))
    ops = {op.name: op for op in tf.get_default_graph().get_operations()}
    assert cs.name == "cs" and ops["cs"].type == "MutexV2"
    lock, release = ops["critical_section_execute/MutexLock"], ops["critical_section_execute/ConsumeMutexLock"]
    assert lock.type == "MutexLock" and lock.inputs[0].op is ops["cs"]
    assert release.type == "ConsumeMutexLock" and ops["critical_section_execute/AssignAdd"] in release.control_inputs
    assert out.op.type == "Identity" and release in out.op.control_inputs
    assert lock.colocation_groups() == release.colocation_groups() == [b"loc:@cs"]
    assert tf.CriticalSection().name == "CriticalSection"


def test_concurrent_non_atomic_increments_inside_the_section_are_exact():
    v = tf.Variable(0, name="v")
    cs = tf.CriticalSection()
    step = cs.execute(racy_increment(v))
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert not run_together(lambda: [sess.run(step) for _ in range(5)], 4)
        assert sess.run(v) == 20


def test_the_same_increment_outside_a_section_loses_updates():
    # Shows that the test above would catch a section that does not serialize.
    v = tf.Variable(0, name="v")
    step = racy_increment(v, 0.05)()
    with tf.Session() as sess:
        sess.run(v.initializer)
        run_together(lambda: sess.run(step), 4)
        assert sess.run(v) < 4


def test_execute_returns_the_structure_of_fn():
    v = tf.Variable(3, name="v")
    cs = tf.CriticalSection()
    out = cs.execute(lambda: (v.read_value(), {"c": tf.constant(2.0)}))
    op_out = cs.execute(lambda: tf.group(v.assign(4)))
    assert isinstance(out, tuple) and set(out[1]) == {"c"} and isinstance(op_out, tf.Operation)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(out) == (3, {"c": 2.0})
        sess.run(op_out)
        assert sess.run(v) == 4


def test_two_executions_of_one_section_in_one_run_do_not_deadlock():
    v = tf.Variable(0, name="v")
    cs = tf.CriticalSection()
    a, b = cs.execute(lambda: v.assign_add(1)), cs.execute(lambda: v.assign_add(10))
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run([a, b], options=tf.RunOptions(timeout_in_ms=2000))
        assert sess.run(v) == 11


@pytest.mark.parametrize("kind", ["timeout_in_ms", "operation_timeout_in_ms"])
def test_waiting_for_the_section_honours_deadlines(kind):
    entered = tf.FIFOQueue(1, tf.float32, shapes=[[]])
    cs = tf.CriticalSection(name="cs")

    def hold():  # signals that it holds the section, then keeps it for 0.5 s
        with tf.control_dependencies([entered.enqueue(0.0)]):
            return slow(tf.constant(5.0), 0.5)

    busy = cs.execute(hold)
    other = cs.execute(lambda: tf.constant(1.0))
    if kind == "operation_timeout_in_ms":
        sess, options = tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=200)), None
    else:
        sess, options = tf.Session(), tf.RunOptions(timeout_in_ms=200)
    with sess:
        result = []
        t = threading.Thread(target=lambda: result.append(sess.run(busy)))
        t.start()
        sess.run(entered.dequeue())
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError, match="Mutex '_cs'"):
            sess.run(other, options=options)
        assert 0.19 <= time.monotonic() - start < 1.0
        t.join(2.0)
        assert result == [5.0] and sess.run(other) == 1.0


def test_a_run_that_fails_inside_the_section_releases_it():
    p = tf.placeholder(tf.float32)
    cs = tf.CriticalSection()
    out = cs.execute(lambda: tf.reshape(p, [2]) * 2.0)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(out, {p: [1.0, 2.0, 3.0]})
        start = time.monotonic()
        assert sess.run(out, {p: [1.0, 2.0]}, options=tf.RunOptions(timeout_in_ms=2000)).tolist() == [2.0, 4.0]
        assert time.monotonic() - start < 0.5
        # and from another thread, too
        err = run_together(lambda: sess.run(out, {p: [1.0]}), 1)
        assert isinstance(err[0], tf.errors.InvalidArgumentError)
        assert sess.run(out, {p: np.ones(2)}, options=tf.RunOptions(timeout_in_ms=2000)).tolist() == [2.0, 2.0]


def test_executing_the_section_inside_itself_is_an_error():
    cs = tf.CriticalSection()
    with pytest.raises(ValueError, match="already running"):
        cs.execute(lambda: cs.execute(lambda: tf.constant(1)))
    other = tf.CriticalSection()
    cs.execute(lambda: other.execute(lambda: tf.constant(1)))  # a different section is fine


def test_exclusive_resource_access_between_sections():
    v = tf.Variable(0, name="v")
    cs1, cs2 = tf.CriticalSection(), tf.CriticalSection()
    cs1.execute(lambda: v.assign_add(1))
    cs1.execute(lambda: v.assign_add(1))  # the same section may use it again
    with pytest.raises(ValueError, match=r"would access resources: \['v'\].*exclusive_resource_access=False"):
        cs2.execute(lambda: v.assign_add(1))
    w = tf.Variable(0, name="w")
    cs1.execute(lambda: w.assign_add(1), exclusive_resource_access=False)
    cs2.execute(lambda: w.assign_add(1), exclusive_resource_access=False)


def test_a_critical_section_def_is_refused_as_tf_refuses_it():
    with pytest.raises(ValueError, match="Argument `critical_section_def` is not supported."):  # TF 2.15
        tf.CriticalSection(critical_section_def=object())
