"""Deadlines and cancellation of blocking ops (RunContext)."""

import threading
import time

import pytest

import dflow as tf
from dflow.framework.op_registry import apply_op, register
from dflow.framework.tensor_shape import TensorShape

GATE = threading.Condition()
OPEN = []


def _wait_for_gate(ctx):
    with GATE:
        ctx.wait(GATE, lambda: bool(OPEN), "the test gate")
    return 1.0


register("TestWaitForGate", infer=lambda op: [(tf.float32, TensorShape([]))], kernel=_wait_for_gate,
         stateful=True, uses_context=True)


@pytest.fixture(autouse=True)
def closed_gate():
    OPEN.clear()
    yield
    with GATE:
        OPEN.append(True)
        GATE.notify_all()


def gate():
    return apply_op("TestWaitForGate", [], name="gate").outputs[0]


def test_run_timeout_raises_deadline_exceeded_promptly_and_session_survives(sess):
    g = gate()
    start = time.monotonic()
    with pytest.raises(tf.errors.DeadlineExceededError, match="timeout_in_ms") as info:
        sess.run(g, options=tf.RunOptions(timeout_in_ms=200))
    elapsed = time.monotonic() - start
    assert 0.19 <= elapsed < 1.0
    assert info.value.op is g.op and "gate" in str(info.value)
    with GATE:
        OPEN.append(True)
        GATE.notify_all()
    assert sess.run(g) == 1.0


def test_operation_timeout_bounds_each_blocking_op():
    g = gate()
    with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=150)) as s:
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError, match="operation_timeout_in_ms"):
            s.run(g)
        assert time.monotonic() - start < 1.0


def test_closing_the_session_cancels_a_blocked_run():
    g = gate()
    s = tf.Session()
    errors = []

    def blocked():
        try:
            s.run(g)
        except Exception as e:  # noqa: BLE001 - recorded for the assertion
            errors.append(e)

    t = threading.Thread(target=blocked)
    t.start()
    time.sleep(0.1)
    s.close()
    t.join(timeout=2.0)
    assert not t.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], tf.errors.CancelledError)


def test_runs_without_blocking_ops_get_no_context(sess):
    c = tf.constant(1.0)
    plan_ops = sess.run(c)
    assert plan_ops == 1.0
    assert not list(sess._plans.values())[0].needs_context
