"""Monitored sessions: Scaffold, session creators, SessionManager, MonitoredSession,
SingularMonitoredSession and MonitoredTrainingSession.

Expected figures (steps, checkpoint names, messages) were taken from TF 2.15's
``tf.compat.v1`` running the same programs.
"""

import glob
import logging
import os
import sys
import threading
import time
import types

import pytest

import dflow as tf
from dflow.train import monitored_session, session_wrappers


def _checkpoints(d):
    return sorted((os.path.basename(p)[:-len(".index")] for p in glob.glob(os.path.join(d, "*.index"))),
                  key=lambda n: int(n.rsplit("-", 1)[1]))


def _train_op():
    gs = tf.train.get_or_create_global_step()
    return gs, tf.assign_add(gs, 1)


def _train(sess, op):
    seen = []
    while not sess.should_stop():
        seen.append(int(sess.run(op)))
    return seen


class CountingHook(tf.train.SessionRunHook):
    def __init__(self):
        self.created = 0
        self.ended = 0

    def after_create_session(self, session, coord):
        self.created += 1

    def end(self, session):
        self.ended += 1


# -- Scaffold ---------------------------------------------------------------------------------
def test_scaffold_finalize_fills_defaults_and_finalizes_the_graph():
    v = tf.Variable(1.0, name="v")
    lv = tf.Variable(2.0, name="lv", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    scaffold = tf.train.Scaffold().finalize()
    g = tf.get_default_graph()
    assert g.finalized
    assert scaffold.init_op.type == "NoOp" and scaffold.local_init_op.type == "NoOp"
    assert scaffold.summary_op is None
    assert isinstance(scaffold.saver, tf.train.Saver)
    for key, value in [(tf.GraphKeys.INIT_OP, scaffold.init_op), (tf.GraphKeys.READY_OP, scaffold.ready_op),
                       (tf.GraphKeys.READY_FOR_LOCAL_INIT_OP, scaffold.ready_for_local_init_op),
                       (tf.GraphKeys.LOCAL_INIT_OP, scaffold.local_init_op),
                       (tf.GraphKeys.SAVERS, scaffold.saver)]:
        assert tf.get_collection(key) == [value]
    assert tf.get_collection(tf.GraphKeys.SUMMARY_OP) == []
    with tf.Session() as sess:
        # TF1: [b'v' b'lv'] before initialisation.
        assert sess.run(scaffold.ready_op).tolist() == [b"v", b"lv"]
        assert sess.run(scaffold.ready_for_local_init_op).tolist() == [b"v"]
        sess.run(scaffold.init_op)
        assert sess.run(scaffold.ready_op).tolist() == [b"lv"]
        assert sess.run(scaffold.ready_for_local_init_op).tolist() == []
        sess.run(scaffold.local_init_op)
        assert sess.run(scaffold.ready_op).tolist() == []
        assert sess.run([v, lv]) == [1.0, 2.0]
    # A second scaffold finds the ops in the collections.
    g._unsafe_unfinalize()
    again = tf.train.Scaffold().finalize()
    assert again.init_op is scaffold.init_op and again.saver is scaffold.saver


def test_scaffold_errors_and_copy():
    tf.Variable(1.0)
    tf.add_to_collection(tf.GraphKeys.INIT_OP, tf.no_op())
    tf.add_to_collection(tf.GraphKeys.INIT_OP, tf.no_op())
    with pytest.raises(RuntimeError, match='More than one item in the collection "init_op"'):
        tf.train.Scaffold().finalize()
    init = tf.no_op(name="my_init")
    base = tf.train.Scaffold(init_op=init, init_feed_dict={"a": 1})
    copy = tf.train.Scaffold(copy_from_scaffold=base, local_init_feed_dict={"b": 2})
    assert copy.init_op is init and copy.init_feed_dict == {"a": 1} and copy.local_init_feed_dict == {"b": 2}
    with pytest.raises(TypeError, match="copy_from_scaffold is not a Scaffold instance"):
        tf.train.Scaffold(copy_from_scaffold=object())


def test_scaffold_init_fn_gets_scaffold_and_session():
    v = tf.Variable(1.0, name="v")
    calls = []
    scaffold = tf.train.Scaffold(init_fn=lambda sc, sess: calls.append((sc, type(sess).__name__)))
    with tf.train.MonitoredSession(session_creator=tf.train.ChiefSessionCreator(scaffold=scaffold)) as sess:
        assert sess.run(v) == 1.0
    assert calls == [(scaffold, "Session")]


# -- SessionManager ------------------------------------------------------------------------------
def test_session_manager_prepare_and_recover(tmp_path):
    v = tf.Variable(1.0, name="v")
    set_v = tf.assign(v, 5.0)
    saver = tf.train.Saver()
    sm = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables())
    d = str(tmp_path)
    sess, restored = sm.recover_session("", saver=saver, checkpoint_dir=d)
    assert restored is False
    sess.run(v.initializer)
    sess.run(set_v)
    saver.save(sess, os.path.join(d, "m"), global_step=1)
    sess.close()
    sess, restored = sm.recover_session("", saver=saver, checkpoint_dir=d)
    assert restored is True and sess.run(v) == 5.0
    sess.close()
    sess = sm.prepare_session("", init_op=v.initializer, saver=saver, checkpoint_dir=d)
    assert sess.run(v) == 5.0  # restored, init_op not run
    sess.close()
    sess = sm.prepare_session("", init_op=v.initializer, saver=saver,
                              checkpoint_filename_with_path=os.path.join(d, "m-1"))
    assert sess.run(v) == 5.0
    sess.close()
    sess = sm.prepare_session("", init_op=v.initializer)
    assert sess.run(v) == 1.0
    sess.close()
    with pytest.raises(ValueError, match="Can not provide both checkpoint_dir and checkpoint_filename_with_path"):
        sm.prepare_session("", init_op=v.initializer, saver=saver, checkpoint_dir=d,
                           checkpoint_filename_with_path=os.path.join(d, "m-1"))


def test_session_manager_errors():
    tf.Variable(1.0, name="v")
    ready = tf.report_uninitialized_variables()
    noop = tf.no_op()
    sm = tf.train.SessionManager(ready_op=ready)
    with pytest.raises(RuntimeError, match="Model is not initialized and no init_op or init_fn or local_init_op"):
        sm.prepare_session("")
    with pytest.raises(RuntimeError, match="Init operations did not make model ready.  Init op: NoOp, init fn: "
                                           "None, local_init_op: None, error: Variables not initialized: v"):
        sm.prepare_session("", init_op=noop)
    with pytest.raises(ValueError, match="you must also pass a local_init_op"):
        tf.train.SessionManager(ready_for_local_init_op=ready)


def test_wait_for_session_times_out_instead_of_hanging():
    tf.Variable(1.0, name="v")
    sm = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables())
    start = time.monotonic()
    with pytest.raises(tf.errors.DeadlineExceededError, match="Session was not ready after waiting 1 secs"):
        sm.wait_for_session("", max_wait_secs=1)
    assert 0.9 < time.monotonic() - start < 10


def test_worker_session_creator_deadline_locally():
    # A local session never sees another process's initialisation: the worker gives up.
    _train_op()
    with pytest.raises(tf.errors.DeadlineExceededError):
        tf.train.MonitoredTrainingSession(is_chief=False, max_wait_secs=0.5)
    assert not tf.get_default_graph().finalized


# -- MonitoredSession -------------------------------------------------------------------------
def test_out_of_range_ends_the_with_block_quietly():
    tf.train.get_or_create_global_step()
    nxt = tf.data.Dataset.range(3).make_one_shot_iterator().get_next()
    hook = CountingHook()
    seen = []
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        while not sess.should_stop():
            seen.append(int(sess.run(nxt)))
    assert seen == [0, 1, 2]
    assert hook.ended == 1  # TF1 calls end after OutOfRangeError


def test_other_errors_propagate_and_skip_end():
    x = tf.constant(1)
    hook = CountingHook()
    with pytest.raises(ZeroDivisionError):
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            sess.run(x)
            raise ZeroDivisionError
    assert hook.ended == 0
    assert sess.should_stop()


def test_close_and_use_after_close():
    x = tf.constant(1)
    sess = tf.train.MonitoredSession()
    assert sess.graph is tf.get_default_graph()
    sess.close()
    assert sess.should_stop() and sess.graph is None
    with pytest.raises(RuntimeError, match="Session is already closed."):
        sess.close()
    with pytest.raises(RuntimeError, match="closed MonitoredSession"):
        sess.run(x)


def test_run_step_fn():
    gs, inc = _train_op()

    def step_fn(step_context):
        v = step_context.run_with_hooks(inc)
        if v >= 2:
            step_context.request_stop()
        return int(v)

    res = []
    with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(last_step=3)]) as sess:
        while not sess.should_stop():
            res.append(sess.run_step_fn(step_fn))
    assert res == [1]  # TF1: request_stop raises StopIteration, which the with block swallows

    class Stepper:
        def fn(self, step_context):
            return int(step_context.session.run(gs))

    with tf.train.SingularMonitoredSession() as sess:
        assert sess.run_step_fn(Stepper().fn) == 0
        with pytest.raises(ValueError, match=r"Got \('x',\) instead."):
            sess.run_step_fn(lambda x: 1)


def test_queue_runners_are_started_and_stopped():
    q = tf.FIFOQueue(10, tf.float32)
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(1.0)] * 2))
    deq = q.dequeue()
    with tf.train.MonitoredSession(stop_grace_period_secs=5) as sess:
        assert [float(sess.run(deq)) for _ in range(5)] == [1.0] * 5
    deadline = time.monotonic() + 5
    while any(t.name.startswith("QueueRunnerThread") for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [t.name for t in threading.enumerate() if t.name.startswith("QueueRunnerThread")]


def test_queue_input_running_dry_ends_training_quietly():
    # limit_epochs needs local_init_op (its epoch counter is a local variable).
    x = tf.train.limit_epochs(tf.constant(1.0), num_epochs=3)
    q = tf.FIFOQueue(10, tf.float32)
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(x)]))
    deq = q.dequeue()
    hook = CountingHook()
    seen = []
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        while not sess.should_stop():
            seen.append(float(sess.run(deq)))
    assert seen == [1.0, 1.0, 1.0] and hook.ended == 1


# -- recovery ------------------------------------------------------------------------------------
class _FlakySession:
    """A session whose ``fail_at``-th hooked run does its work, then raises UnavailableError."""

    def __init__(self, sess, fail_at):
        self._sess = sess
        self._fail_at = fail_at
        self._runs = 0

    @property
    def graph(self):
        return self._sess.graph

    def close(self):
        self._sess.close()

    def run(self, fetches, *args, **kwargs):
        out = self._sess.run(fetches, *args, **kwargs)
        if isinstance(fetches, dict) and "caller" in fetches:
            self._runs += 1
            if self._runs == self._fail_at:
                raise tf.errors.UnavailableError(None, None, "Worker /job:worker/task:0 was lost")
        return out


class _FlakyCreator(tf.train.SessionCreator):
    def __init__(self, creator, fail_at):
        self._creator = creator
        self._fail_at = fail_at
        self.created = 0

    def create_session(self):
        self.created += 1
        sess = self._creator.create_session()
        return _FlakySession(sess, self._fail_at) if self.created == 1 else sess


def test_monitored_session_recovers_from_unavailable_error(tmp_path, caplog):
    _, inc = _train_op()
    d = str(tmp_path)
    creator = _FlakyCreator(tf.train.ChiefSessionCreator(checkpoint_dir=d), fail_at=5)
    counting = CountingHook()
    hooks = [tf.train.CheckpointSaverHook(d, save_steps=3), tf.train.StopAtStepHook(last_step=8), counting]
    with caplog.at_level(logging.INFO, logger="dflow"):
        with tf.train.MonitoredSession(session_creator=creator, hooks=hooks) as sess:
            seen = _train(sess, inc)
    # Step 5 ran in the lost session; the new one restores model.ckpt-3 and goes on from there.
    assert seen == [1, 2, 3, 4, 4, 5, 6, 7, 8]
    assert creator.created == 2 and counting.created == 2 and counting.ended == 1
    assert any("Worker /job:worker/task:0 was lost" in r.getMessage() for r in caplog.records)
    assert _checkpoints(d) == ["model.ckpt-0", "model.ckpt-3", "model.ckpt-6", "model.ckpt-8"]
    assert tf.train.latest_checkpoint(d) == os.path.join(d, "model.ckpt-8")


def test_recovery_from_an_error_raised_by_a_hook(tmp_path):
    gs, inc = _train_op()

    class FailOnce(tf.train.SessionRunHook):
        failed = False

        def before_run(self, run_context):
            return tf.train.SessionRunArgs(gs)

        def after_run(self, run_context, run_values):
            if run_values.results >= 4 and not self.failed:
                FailOnce.failed = True
                raise tf.errors.AbortedError(None, None, "parameter server restarted")

    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), save_checkpoint_steps=2,
                                           save_summaries_steps=None, log_step_count_steps=None,
                                           hooks=[FailOnce(), tf.train.StopAtStepHook(last_step=6)]) as sess:
        seen = _train(sess, inc)
    # The error came from a user hook after step 4, after the CheckpointSaverHook (MonitoredTrainingSession
    # runs its own hooks first) had saved model.ckpt-4: the new session restores it and goes on.
    assert seen == [1, 2, 3, 5, 6]
    assert _checkpoints(str(tmp_path)) == ["model.ckpt-0", "model.ckpt-2", "model.ckpt-4", "model.ckpt-6"]


def test_recovery_gives_up_when_failures_persist(monkeypatch):
    monkeypatch.setattr(session_wrappers, "_RECOVERY_TIMEOUT_SECS", 0.3)
    monkeypatch.setattr(session_wrappers, "_FIRST_RETRY_PAUSE_SECS", 0.05)
    _, inc = _train_op()
    counting = CountingHook()

    class AlwaysLost(tf.train.SessionRunHook):
        def before_run(self, run_context):
            raise tf.errors.UnavailableError(None, None, "the parameter server is gone")

    start = time.monotonic()
    with pytest.raises(tf.errors.UnavailableError, match="the parameter server is gone"):
        with tf.train.MonitoredSession(hooks=[counting, AlwaysLost()]) as sess:
            sess.run(inc)
    assert 0.3 <= time.monotonic() - start < 10
    assert counting.created >= 3  # it did retry, with new sessions


def test_singular_monitored_session_does_not_recover():
    _, inc = _train_op()
    creator_calls = []

    class Fail(tf.train.SessionRunHook):
        def after_create_session(self, session, coord):
            creator_calls.append(1)

        def before_run(self, run_context):
            raise tf.errors.UnavailableError(None, None, "lost")

    with pytest.raises(tf.errors.UnavailableError):
        with tf.train.SingularMonitoredSession(hooks=[Fail()]) as sess:
            sess.run(inc)
    assert creator_calls == [1]


# -- MonitoredTrainingSession -------------------------------------------------------------------
def test_monitored_training_session_saves_and_resumes(tmp_path):
    d = str(tmp_path)
    # TF1 figures: first run saves 0, 3, 6, 7; the second resumes at 7 and saves 7, 10, 12.
    for hook, start, steps, files in [
            (tf.train.StopAtStepHook(last_step=7), 0, [1, 2, 3, 4, 5, 6, 7],
             ["model.ckpt-0", "model.ckpt-3", "model.ckpt-6", "model.ckpt-7"]),
            (tf.train.StopAtStepHook(num_steps=5), 7, [8, 9, 10, 11, 12],
             ["model.ckpt-3", "model.ckpt-6", "model.ckpt-7", "model.ckpt-10", "model.ckpt-12"])]:
        with tf.Graph().as_default():
            gs, inc = _train_op()
            with tf.train.MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_steps=3,
                                                   save_summaries_steps=None, log_step_count_steps=None,
                                                   hooks=[hook]) as sess:
                assert sess.run(gs) == start
                assert _train(sess, inc) == steps
        assert _checkpoints(d) == files
        assert tf.train.latest_checkpoint(d) == os.path.join(d, files[-1])


def test_monitored_training_session_defaults(tmp_path, caplog, monkeypatch):
    monkeypatch.setitem(sys.modules, "dflow.train.summary_hook", None)  # as if tf.summary were missing
    monitored_session._warned_no_summary_hook.clear()
    d = str(tmp_path)
    _, inc = _train_op()
    with caplog.at_level(logging.INFO, logger="dflow"):
        with tf.train.MonitoredTrainingSession(checkpoint_dir=d, log_step_count_steps=2,
                                               hooks=[tf.train.StopAtStepHook(last_step=4)]) as sess:
            _train(sess, inc)
        with tf.train.MonitoredTrainingSession(checkpoint_dir=d, hooks=[tf.train.StopAtStepHook(last_step=6)]) as s2:
            _train(s2, inc)
    messages = [r.getMessage() for r in caplog.records if r.name == "dflow"]
    # Default save_checkpoint_secs=600: TF1 writes model.ckpt-0 and, at the end, model.ckpt-4.
    assert _checkpoints(d)[:2] == ["model.ckpt-0", "model.ckpt-4"]
    assert os.path.exists(os.path.join(d, "graph.pbtxt"))
    assert len([m for m in messages if m.startswith("global_step/sec: ")]) >= 1
    assert len([m for m in messages if m.startswith("Summaries are not saved")]) == 1  # warned once


def test_monitored_training_session_adds_the_summary_hook(tmp_path, monkeypatch):
    made = []

    class FakeSummarySaverHook(tf.train.SessionRunHook):
        def __init__(self, **kwargs):
            made.append(kwargs)

    monkeypatch.setitem(sys.modules, "dflow.train.summary_hook",
                        types.SimpleNamespace(SummarySaverHook=FakeSummarySaverHook))
    _train_op()
    scaffold = tf.train.Scaffold()
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), scaffold=scaffold, save_summaries_secs=30,
                                           summary_dir=str(tmp_path / "s")):
        pass
    assert made == [dict(save_steps=None, save_secs=30, output_dir=str(tmp_path / "s"), scaffold=scaffold)]
    made.clear()
    with tf.train.MonitoredTrainingSession(checkpoint_dir=None):
        pass
    assert made == []


def test_monitored_training_session_chief_only_hooks(tmp_path):
    _train_op()
    chief_only, everyone = CountingHook(), CountingHook()
    with tf.train.MonitoredTrainingSession(hooks=[everyone], chief_only_hooks=[chief_only]):
        pass
    assert chief_only.created == 1 and everyone.created == 1


# -- chief and worker on a cluster ------------------------------------------------------------------
@pytest.fixture(scope="module")
def cluster():
    import dflow.cluster  # noqa: F401 - registers tf.LocalCluster

    with tf.LocalCluster(ps=1, workers=1, dashboard_address=None) as c:
        yield c


def _cluster_model():
    with tf.device("/job:ps/task:0"):
        gs = tf.train.get_or_create_global_step()
        v = tf.Variable(3.0, name="mts_v")
    return gs, v, tf.assign_add(gs, 1)


@pytest.mark.cluster
def test_worker_waits_for_the_chief_on_a_cluster(cluster):
    chief_done = threading.Event()
    errors = []

    def chief():
        try:
            with tf.Graph().as_default():
                _, _, inc = _cluster_model()
                time.sleep(1.5)
                with tf.train.MonitoredTrainingSession(master=cluster.target, is_chief=True,
                                                       hooks=[tf.train.StopAtStepHook(last_step=3)]) as sess:
                    _train(sess, inc)
        except BaseException as e:  # noqa: BLE001 - reported to the main thread
            errors.append(e)
        finally:
            chief_done.set()

    try:
        t = threading.Thread(target=chief)
        with tf.Graph().as_default():
            gs, v, inc = _cluster_model()
            start = time.monotonic()
            t.start()
            with tf.train.MonitoredTrainingSession(master=cluster.target, is_chief=False, max_wait_secs=60,
                                                   hooks=[tf.train.StopAtStepHook(last_step=5)]) as sess:
                waited = time.monotonic() - start
                assert sess.run(v) == 3.0
                seen = _train(sess, inc)
        t.join(60)
        assert not errors, errors
        assert waited >= 1.0  # it waited for the chief to initialise the model
        assert seen and seen[-1] == 5 and min(seen) >= 1
    finally:
        tf.Session.reset(cluster.target)

    # With no chief, the worker gives up after max_wait_secs instead of hanging.
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            tf.Variable(1.0, name="never_initialized")
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError, match="Session was not ready"):
            tf.train.MonitoredTrainingSession(master=cluster.target, is_chief=False, max_wait_secs=1)
        assert time.monotonic() - start < 30
