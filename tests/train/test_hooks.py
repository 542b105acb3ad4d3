"""The standard hooks (tf.train.StopAtStepHook & co.), driven by MonitoredSession.

Expected figures (steps, file names, log lines) were taken from TF 2.15's
``tf.compat.v1`` running the same programs.
"""

import glob
import json
import logging
import os
import threading
import time

import numpy as np
import pytest

import dflow as tf


def _checkpoints(d):
    return sorted((os.path.basename(p)[:-len(".index")] for p in glob.glob(os.path.join(d, "*.index"))),
                  key=lambda n: int(n.rsplit("-", 1)[1]))


def _train_op():
    gs = tf.train.get_or_create_global_step()
    return gs, tf.assign_add(gs, 1)


def _messages(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "dflow"]


class RecordingHook(tf.train.SessionRunHook):
    def __init__(self, name, log, fetches=None):
        self.name, self.log, self.fetches = name, log, fetches

    def begin(self):
        self.log.append((self.name, "begin", tf.get_default_graph().finalized))

    def after_create_session(self, session, coord):
        self.log.append((self.name, "after_create_session", tf.get_default_graph().finalized,
                         isinstance(session, tf.Session), isinstance(coord, tf.train.Coordinator)))

    def before_run(self, run_context):
        self.log.append((self.name, "before_run"))
        return tf.train.SessionRunArgs(self.fetches) if self.fetches is not None else None

    def after_run(self, run_context, run_values):
        self.log.append((self.name, "after_run", run_values.results))

    def end(self, session):
        self.log.append((self.name, "end"))


# -- the hook protocol ----------------------------------------------------------------------------
def test_hooks_are_called_in_tf1_order():
    _, inc = _train_op()
    c = tf.constant(5, name="c")
    log = []
    with tf.train.MonitoredSession(hooks=[RecordingHook("a", log, {"c": c}), RecordingHook("b", log)]) as sess:
        log.append(("user", sess.run(inc)))
    assert log == [
        ("a", "begin", False), ("b", "begin", False),
        ("a", "after_create_session", True, True, True), ("b", "after_create_session", True, True, True),
        ("a", "before_run"), ("b", "before_run"),
        ("a", "after_run", {"c": 5}), ("b", "after_run", None),
        ("user", 1),
        ("a", "end"), ("b", "end"),
    ]
    assert not tf.get_default_graph().finalized  # un-finalized again on close, as TF1


def test_run_context_has_the_raw_session_and_callers_args():
    x = tf.placeholder(tf.float32, [])
    y = x * 2.0
    seen = {}

    class Peek(tf.train.SessionRunHook):
        def before_run(self, run_context):
            seen["args"] = run_context.original_args
            seen["session"] = run_context.session

    with tf.train.SingularMonitoredSession(hooks=[Peek()]) as sess:
        assert sess.run(y, feed_dict={x: 2.0}) == 4.0
        assert seen["session"] is sess.raw_session()
    assert seen["args"].fetches is y and seen["args"].feed_dict == {x: 2.0}


def test_hook_options_are_merged_and_run_metadata_reaches_after_run():
    c = tf.constant(1.0) + 1.0
    got = {}

    class Trace(tf.train.SessionRunHook):
        def before_run(self, run_context):
            return tf.train.SessionRunArgs(None, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE,
                                                                       timeout_in_ms=5000))

        def after_run(self, run_context, run_values):
            got["options"] = run_values.options
            got["stats"] = run_values.run_metadata.step_stats.dev_stats

    with tf.train.MonitoredSession(hooks=[Trace()]) as sess:
        sess.run(c, options=tf.RunOptions(timeout_in_ms=100))
    assert got["options"].trace_level == tf.RunOptions.FULL_TRACE
    assert got["options"].timeout_in_ms == 5000
    assert got["stats"], "FULL_TRACE asked by a hook fills the run metadata"


# -- SecondOrStepTimer ---------------------------------------------------------------------------
def test_second_or_step_timer_matches_tf1():
    t = tf.train.SecondOrStepTimer(every_steps=3)
    out = []
    for step in range(8):
        trig = t.should_trigger_for_step(step)
        out.append((step, trig, t.update_last_triggered_step(step)[1] if trig else None))
    assert out == [(0, True, None), (1, False, None), (2, False, None), (3, True, 3), (4, False, None),
                   (5, False, None), (6, True, 3), (7, False, None)]
    assert t.last_triggered_step() == 6
    with pytest.raises(ValueError, match="Either every_secs or every_steps"):
        tf.train.SecondOrStepTimer()
    with pytest.raises(ValueError, match="Can not provide both"):
        tf.train.SecondOrStepTimer(every_secs=1, every_steps=1)


def test_second_or_step_timer_by_seconds():
    t = tf.train.SecondOrStepTimer(every_secs=0.05)
    assert t.should_trigger_for_step(0)
    t.update_last_triggered_step(0)
    assert not t.should_trigger_for_step(1)
    time.sleep(0.06)
    assert t.should_trigger_for_step(1)
    elapsed_secs, elapsed_steps = t.update_last_triggered_step(1)
    assert elapsed_secs >= 0.05 and elapsed_steps == 1


# -- StopAtStepHook ----------------------------------------------------------------------------
def test_stop_at_step_hook_num_steps():
    _, inc = _train_op()
    seen = []
    with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(num_steps=10)]) as sess:
        while not sess.should_stop():
            seen.append(int(sess.run(inc)))
    assert seen == list(range(1, 11))


def test_stop_at_step_hook_with_steps_of_two():
    # TF1: StopAtStepHook(num_steps=5) with the step advancing by 2 sees [2, 4, 6].
    gs = tf.train.get_or_create_global_step()
    inc = tf.assign_add(gs, 2)
    seen = []
    with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(num_steps=5)]) as sess:
        while not sess.should_stop():
            seen.append(int(sess.run(inc)))
    assert seen == [2, 4, 6]


def test_stop_at_step_hook_last_step_and_errors():
    _, inc = _train_op()
    n = 0
    with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(last_step=4)]) as sess:
        while not sess.should_stop():
            sess.run(inc)
            n += 1
        with pytest.raises(RuntimeError, match="Run called even after should_stop requested."):
            sess.run(inc)
    assert n == 4
    with pytest.raises(ValueError, match="One of num_steps or last_step"):
        tf.train.StopAtStepHook()
    with pytest.raises(ValueError, match="Only one of num_steps or last_step"):
        tf.train.StopAtStepHook(num_steps=1, last_step=1)


def test_hooks_need_a_global_step():
    tf.constant(1)
    with pytest.raises(RuntimeError, match="Global step should be created to use StopAtStepHook"):
        tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(num_steps=1)])


# -- CheckpointSaverHook --------------------------------------------------------------------------
def test_checkpoint_saver_hook_save_steps(tmp_path):
    # TF1: save_steps=3 over 10 steps writes model.ckpt-0, -3, -6, -9 and -10 (at the end).
    _, inc = _train_op()
    d = str(tmp_path)
    saver = tf.train.Saver(max_to_keep=100)
    hooks = [tf.train.CheckpointSaverHook(d, save_steps=3, saver=saver), tf.train.StopAtStepHook(num_steps=10)]
    with tf.train.MonitoredSession(hooks=hooks) as sess:
        while not sess.should_stop():
            sess.run(inc)
    assert _checkpoints(d) == ["model.ckpt-0", "model.ckpt-3", "model.ckpt-6", "model.ckpt-9", "model.ckpt-10"]
    assert tf.train.latest_checkpoint(d) == os.path.join(d, "model.ckpt-10")
    assert os.path.exists(os.path.join(d, "graph.pbtxt"))
    assert os.path.exists(os.path.join(d, "model.ckpt-10.meta"))


def test_checkpoint_saver_listeners(tmp_path):
    # TF1: a listener whose after_save returns True at step 4 stops training after 4 runs.
    class Listener(tf.train.CheckpointSaverListener):
        def __init__(self):
            self.log = []

        def begin(self):
            self.log.append("begin")

        def before_save(self, session, global_step_value):
            self.log.append(("before_save", int(global_step_value)))

        def after_save(self, session, global_step_value):
            self.log.append(("after_save", int(global_step_value)))
            return global_step_value >= 4

        def end(self, session, global_step_value):
            self.log.append(("end", int(global_step_value)))

    _, inc = _train_op()
    listener = Listener()
    n = 0
    with tf.train.MonitoredSession(hooks=[tf.train.CheckpointSaverHook(str(tmp_path), save_steps=2,
                                                                       listeners=[listener])]) as sess:
        while not sess.should_stop():
            sess.run(inc)
            n += 1
    assert n == 4
    assert listener.log == ["begin", ("before_save", 0), ("after_save", 0), ("before_save", 2), ("after_save", 2),
                            ("before_save", 4), ("after_save", 4), ("end", 4)]


def test_checkpoint_saver_hook_save_secs_saves_at_start_and_end(tmp_path):
    _, inc = _train_op()
    with tf.train.MonitoredSession(hooks=[tf.train.CheckpointSaverHook(str(tmp_path), save_secs=600,
                                                                       checkpoint_basename="m")]) as sess:
        for _ in range(4):
            sess.run(inc)
    assert _checkpoints(str(tmp_path)) == ["m-0", "m-4"]


def test_checkpoint_saver_hook_argument_errors(tmp_path):
    _, inc = _train_op()
    saver = tf.train.Saver()
    with pytest.raises(ValueError, match="both saver and scaffold"):
        tf.train.CheckpointSaverHook(str(tmp_path), save_steps=1, saver=saver, scaffold=tf.train.Scaffold())
    with pytest.raises(ValueError, match="Either every_secs or every_steps"):
        tf.train.CheckpointSaverHook(str(tmp_path))


# -- LoggingTensorHook --------------------------------------------------------------------------
def test_logging_tensor_hook_every_n_iter_and_at_end(caplog):
    _, inc = _train_op()
    c = tf.constant("hi", name="c")
    v = tf.Variable([1.5, 2.0], name="v")
    counter = tf.Variable(0, name="counter")
    bump = tf.assign_add(counter, 1)
    hooks = [tf.train.LoggingTensorHook([c.name], every_n_iter=2),
             tf.train.LoggingTensorHook({"vv": v, "a": c}, every_n_iter=3, at_end=True),
             tf.train.LoggingTensorHook({"b": counter}, at_end=True, formatter=lambda d: f"F {sorted(d)} {d['b']}")]
    with caplog.at_level(logging.INFO, logger="dflow"):
        with tf.train.MonitoredSession(hooks=hooks) as sess:
            for _ in range(5):
                sess.run([inc, bump])
    lines = [m for m in _messages(caplog) if m.startswith(("c:0", "a =", "F "))]
    # TF1 logs iterations 0, 2, 4 (every 2), 0, 3 (every 3) and the at_end lines.
    assert [m.split(" (")[0] for m in lines] == [
        "c:0 = b'hi'", "a = b'hi', vv = [1.5 2. ]",
        "c:0 = b'hi'", "a = b'hi', vv = [1.5 2. ]",
        "c:0 = b'hi'", "a = b'hi', vv = [1.5 2. ]", "F ['b'] 5"]
    # The first line of each hook has no elapsed time; later ones end in "(0.012 sec)".
    assert lines[0] == "c:0 = b'hi'" and lines[1] == "a = b'hi', vv = [1.5 2. ]"
    assert lines[2].endswith(" sec)") and lines[3].endswith(" sec)")


def test_logging_tensor_hook_every_n_secs(caplog):
    c = tf.constant(3, name="three")
    hook = tf.train.LoggingTensorHook({"x": "three"}, every_n_secs=3600)
    with caplog.at_level(logging.INFO, logger="dflow"):
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(3):
                sess.run(c)
    assert [m for m in _messages(caplog) if m.startswith("x =")] == ["x = 3"]


def test_logging_tensor_hook_argument_errors():
    with pytest.raises(ValueError, match="exactly one of every_n_iter and every_n_secs"):
        tf.train.LoggingTensorHook(["x"])
    with pytest.raises(ValueError, match="exactly one of every_n_iter and every_n_secs"):
        tf.train.LoggingTensorHook(["x"], every_n_iter=1, every_n_secs=1)
    with pytest.raises(ValueError, match="invalid every_n_iter=0"):
        tf.train.LoggingTensorHook(["x"], every_n_iter=0)


def test_logging_tensor_hook_rejects_tensors_of_another_graph():
    other = tf.Graph()
    with other.as_default():
        c = tf.constant(1)
    tf.constant(2)
    with pytest.raises(ValueError, match="should have graph attribute"):
        tf.train.MonitoredSession(hooks=[tf.train.LoggingTensorHook([c], every_n_iter=1)])


# -- StepCounterHook -----------------------------------------------------------------------------
def test_step_counter_hook_logs_steps_per_sec(caplog):
    _, inc = _train_op()
    with caplog.at_level(logging.INFO, logger="dflow"):
        with tf.train.MonitoredSession(hooks=[tf.train.StepCounterHook(every_n_steps=2)]) as sess:
            for _ in range(5):
                sess.run(inc)
                time.sleep(0.01)
    rates = [m for m in _messages(caplog) if m.startswith("global_step/sec")]
    # TF1: two lines over five steps (at steps 3 and 5), e.g. "global_step/sec: 89.8263".
    assert len(rates) == 2
    for line in rates:
        assert 0 < float(line.split(": ")[1]) < 1000


def test_step_counter_hook_warns_when_the_step_does_not_move(caplog):
    tf.train.get_or_create_global_step()
    c = tf.constant(1)
    with caplog.at_level(logging.WARNING, logger="dflow"):
        with tf.train.MonitoredSession(hooks=[tf.train.StepCounterHook(every_n_steps=2)]) as sess:
            for _ in range(8):
                sess.run(c)
    warnings = [m for m in _messages(caplog) if "has not been increased" in m]
    assert len(warnings) == 5  # log_first_n(5), as TF1
    with pytest.raises(ValueError, match="exactly one of every_n_steps and every_n_secs"):
        tf.train.StepCounterHook(every_n_steps=None)


# -- NanTensorHook ------------------------------------------------------------------------------
def test_nan_tensor_hook_raises(caplog):
    tf.train.get_or_create_global_step()
    loss = tf.constant(np.nan)
    log = []
    with caplog.at_level(logging.ERROR, logger="dflow"):
        with pytest.raises(tf.train.NanLossDuringTrainingError) as info:
            with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss), RecordingHook("r", log)]) as sess:
                sess.run(loss)
    assert str(info.value) == "NaN loss during training."
    assert isinstance(info.value, RuntimeError)
    assert "Model diverged with loss = NaN." in _messages(caplog)
    assert ("r", "end") not in log  # an error skips the hooks' end


def test_nan_tensor_hook_can_just_stop(caplog):
    loss = tf.constant(np.nan)
    ok = tf.constant(1.0)
    with caplog.at_level(logging.WARNING, logger="dflow"):
        with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss, fail_on_nan_loss=False)]) as sess:
            sess.run(ok)
            assert sess.should_stop()
    assert "Model diverged with loss = NaN." in _messages(caplog)
    assert tf.estimator.NanTensorHook is tf.train.NanTensorHook


def test_nan_tensor_hook_lets_finite_losses_through():
    loss = tf.constant(0.5)
    with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss)]) as sess:
        assert sess.run(loss) == 0.5
        assert not sess.should_stop()


# -- FinalOpsHook, FeedFnHook ---------------------------------------------------------------------
def test_final_ops_hook():
    v = tf.Variable(1.0)
    inc = tf.assign_add(v, 1.0)
    hook = tf.train.FinalOpsHook({"v": v.value(), "x": v * 10})
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        sess.run(inc)
        sess.run(inc)
        assert hook.final_ops_values is None
    assert hook.final_ops_values == {"v": 3.0, "x": 30.0}


def test_final_ops_hook_with_feeds():
    p = tf.placeholder(tf.float32, [])
    hook = tf.train.FinalOpsHook(p * 3.0, final_ops_feed_dict={p: 2.0})
    with tf.train.MonitoredSession(hooks=[hook]):
        pass
    assert hook.final_ops_values == 6.0


def test_feed_fn_hook_and_feed_conflicts():
    p = tf.placeholder(tf.float32, [])
    q = tf.placeholder(tf.float32, [])
    y = p * 2.0
    z = y + q
    with tf.train.MonitoredSession(hooks=[tf.train.FeedFnHook(lambda: {p: 3.0})]) as sess:
        assert sess.run(y) == 6.0
        assert sess.run(z, feed_dict={q: 1.0}) == 7.0
        with pytest.raises(RuntimeError, match="Same tensor is fed by a SessionRunHook and user"):
            sess.run(y, feed_dict={p: 1.0})
    with tf.train.MonitoredSession(hooks=[tf.train.FeedFnHook(lambda: {p: 3.0}),
                                          tf.train.FeedFnHook(lambda: {p: 4.0})]) as sess:
        with pytest.raises(RuntimeError, match="Same tensor is fed by two hooks"):
            sess.run(y)


# -- GlobalStepWaiterHook ------------------------------------------------------------------------
def test_global_step_waiter_hook_waits_for_the_step():
    gs, inc = _train_op()
    set_step = tf.assign(gs, 5)
    with tf.train.SingularMonitoredSession(hooks=[tf.train.GlobalStepWaiterHook(5)]) as sess:
        raw = sess.raw_session()
        t = threading.Thread(target=lambda: (time.sleep(0.3), raw.run(set_step)))
        start = time.monotonic()
        t.start()
        assert sess.run(inc) == 6
        t.join()
        assert time.monotonic() - start >= 0.3
        assert sess.run(inc) == 7  # no second wait


def test_global_step_waiter_hook_zero_does_not_wait():
    _, inc = _train_op()
    with tf.train.MonitoredSession(hooks=[tf.train.GlobalStepWaiterHook(0)]) as sess:
        assert sess.run(inc) == 1


# -- ProfilerHook -----------------------------------------------------------------------------
def test_profiler_hook_writes_chrome_traces(tmp_path):
    # TF1: save_steps=2 over 7 runs writes timeline-2, -4 and -6.
    _, inc = _train_op()
    with tf.train.MonitoredSession(hooks=[tf.train.ProfilerHook(save_steps=2, output_dir=str(tmp_path))]) as sess:
        for _ in range(7):
            sess.run(inc)
    names = sorted(os.listdir(tmp_path))
    assert names == ["timeline-2.json", "timeline-4.json", "timeline-6.json"]
    trace = json.loads((tmp_path / "timeline-2.json").read_text())
    ops = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert any(e["args"]["name"] == "AssignAdd" for e in ops)
    assert all(e["dur"] >= 0 and e["cat"] == "Op" for e in ops)
