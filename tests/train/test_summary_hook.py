"""tf.train.SummarySaverHook, driven through the SessionRunHook protocol (as a monitored session does)."""

import os
import time

import pytest

import dflow as tf
from dflow.train.basic_session_run_hooks import SecondOrStepTimer
from dflow.train.session_run_hook import SessionRunArgs, SessionRunContext, SessionRunValues


def _drive(hook, train_op, steps):
    """What a MonitoredSession does with one hook around ``steps`` runs of ``train_op``."""
    hook.begin()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        hook.after_create_session(sess, None)
        for _ in range(steps):
            ctx = SessionRunContext(SessionRunArgs(train_op), sess)
            args = hook.before_run(ctx)
            results = sess.run({"main": train_op, "hook": args.fetches})
            hook.after_run(ctx, SessionRunValues(results["hook"], None, None))
        hook.end(sess)


def _counter_graph():
    gs = tf.train.get_or_create_global_step()
    v = tf.Variable(0.0, name="counter")
    train = tf.group(tf.assign_add(gs, 1), tf.assign_add(v, 1.0))
    return gs, v, train


def _read(logdir):
    (name,) = os.listdir(logdir)
    return list(tf.train.summary_iterator(os.path.join(logdir, name)))


def test_hook_writes_every_n_steps(tmp_path):
    # TF1 (MonitoredSession, same graph, save_steps=2, 5 runs) writes SessionLog START at
    # step 1, then summaries at steps 1, 3 and 5.
    _, v, train = _counter_graph()
    s = tf.summary.scalar("v", v)
    writer = tf.summary.FileWriter(str(tmp_path))
    hook = tf.train.SummarySaverHook(save_steps=2, summary_writer=writer, summary_op=s)
    _drive(hook, train, 5)
    events = _read(tmp_path)[1:]
    assert [(e.step, e.WhichOneof("what")) for e in events] == [
        (1, "session_log"), (1, "summary"), (3, "summary"), (5, "summary")]
    assert events[0].session_log.status == tf.SessionLog.START
    assert all(e.summary.value[0].tag == "v" for e in events[1:])
    writer.close()


def test_hook_with_scaffold_and_output_dir(tmp_path):
    class Scaffold:  # anything with a summary_op attribute
        summary_op = None

    _, v, train = _counter_graph()
    tf.summary.scalar("v", v)
    tf.summary.histogram("hv", v)
    scaffold = Scaffold()
    scaffold.summary_op = tf.summary.merge_all()
    hook = tf.train.SummarySaverHook(save_steps=3, output_dir=str(tmp_path), scaffold=scaffold)
    _drive(hook, train, 7)
    tf.summary.FileWriterCache.clear()
    events = _read(tmp_path)
    kinds = [(e.step, e.WhichOneof("what")) for e in events]
    assert kinds[:2] == [(0, "file_version"), (0, "graph_def")]  # the cached writer holds the graph
    assert kinds[2:] == [(1, "session_log"), (1, "summary"), (4, "summary"), (7, "summary")]
    assert [v.tag for v in events[3].summary.value] == ["v", "hv"]


def test_hook_with_a_list_of_summary_ops_and_none_from_scaffold(tmp_path):
    _, v, train = _counter_graph()
    ops = [tf.summary.scalar("a", v), tf.summary.scalar("b", v * 2.0)]
    writer = tf.summary.FileWriter(str(tmp_path))
    _drive(tf.train.SummarySaverHook(save_steps=10, summary_writer=writer, summary_op=ops), train, 2)

    class Empty:
        summary_op = None

    _drive(tf.train.SummarySaverHook(save_steps=1, summary_writer=writer, scaffold=Empty()), train, 2)
    writer.close()
    events = _read(tmp_path)[1:]
    assert [(e.step, e.WhichOneof("what")) for e in events] == [
        (1, "session_log"), (1, "summary"), (1, "summary"), (1, "session_log")]
    assert [e.summary.value[0].tag for e in events[1:3]] == ["a", "b"]


def test_hook_argument_errors(tmp_path):
    s = tf.summary.scalar("x", 1.0)
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
        tf.train.SummarySaverHook(save_steps=1, summary_op=s, scaffold=object())
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
        tf.train.SummarySaverHook(save_steps=1)
    with pytest.raises(ValueError, match="Either every_secs or every_steps"):
        tf.train.SummarySaverHook(summary_op=s)
    with pytest.raises(ValueError, match="Can not provide both"):
        tf.train.SummarySaverHook(save_steps=1, save_secs=1, summary_op=s)
    with pytest.raises(RuntimeError, match="Global step should be created"):
        tf.train.SummarySaverHook(save_steps=1, output_dir=str(tmp_path), summary_op=s).begin()
    tf.summary.FileWriterCache.clear()
    assert isinstance(tf.train.SummarySaverHook(save_steps=1, summary_op=s), tf.train.SessionRunHook)


def test_timer_by_seconds(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    timer = SecondOrStepTimer(every_secs=10)
    assert timer.should_trigger_for_step(1)
    assert timer.update_last_triggered_step(1) == (None, None)
    assert not timer.should_trigger_for_step(1)
    now[0] = 105.0
    assert not timer.should_trigger_for_step(5)
    now[0] = 110.0
    assert timer.should_trigger_for_step(6)
    assert timer.update_last_triggered_step(6) == (10.0, 5)
    assert timer.last_triggered_step() == 6
