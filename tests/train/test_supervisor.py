"""tf.train.Supervisor: figures and files as TF 2.15 compat.v1 gives them for the same script."""

import os
import time

import numpy as np
import pytest

import dflow as tf


def _model():
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="w")
    loss = tf.square(w)
    tf.summary.scalar("loss", loss)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return step, w, train


def test_chief_initializes_trains_checkpoints_and_a_new_supervisor_restores(tmp_path):
    logdir = str(tmp_path)
    g = tf.Graph()
    with g.as_default():
        step, w, train = _model()
        sv = tf.train.Supervisor(logdir=logdir, save_model_secs=0, save_summaries_secs=0)
        assert sv.is_chief and sv.global_step is step and isinstance(sv.saver, tf.train.Saver)
        assert sv.save_path == os.path.join(logdir, "model.ckpt") and sv.summary_op is not None
        assert sv.init_op in tf.get_collection(tf.GraphKeys.INIT_OP)
        with sv.managed_session() as sess:
            for _ in range(3):
                sess.run(train)
            np.testing.assert_allclose(sess.run([w, step]), [0.51199996, 3], rtol=1e-6)
            sv.saver.save(sess, sv.save_path, global_step=step)
            sv.summary_computed(sess, sess.run(sv.summary_op))
        assert g.finalized
    files = os.listdir(logdir)
    assert "checkpoint" in files and "graph.pbtxt" in files and any(f.startswith("events.out.tfevents") for f in files)
    g2 = tf.Graph()
    with g2.as_default():
        step, w, _ = _model()
        sv = tf.train.Supervisor(logdir=logdir, save_model_secs=0, save_summaries_secs=0)
        with sv.managed_session() as sess:
            np.testing.assert_allclose(sess.run([w, step]), [0.51199996, 3], rtol=1e-6)


def test_services_checkpoint_on_a_timer_and_stop_with_the_session(tmp_path):
    logdir = str(tmp_path)
    with tf.Graph().as_default():
        step, w, train = _model()
        sv = tf.train.Supervisor(logdir=logdir, save_model_secs=0.05, save_summaries_secs=0.05)
        with sv.managed_session() as sess:
            sess.run(train)
            deadline = time.monotonic() + 10
            while tf.train.latest_checkpoint(logdir) is None and time.monotonic() < deadline:
                time.sleep(0.02)
        assert tf.train.latest_checkpoint(logdir) is not None
        assert sv.should_stop()


def test_managed_session_end_of_input_is_a_clean_stop_and_errors_propagate():
    with tf.Graph().as_default():
        _model()
        q = tf.FIFOQueue(2, [tf.float32])
        close, dequeue = q.close(), q.dequeue()
        sv = tf.train.Supervisor(logdir=None)
        with sv.managed_session() as sess:
            sess.run(close)
            sess.run(dequeue)  # OutOfRangeError ends the block quietly, as in TF1
        assert sv.should_stop()
    with tf.Graph().as_default():
        _model()
        sv = tf.train.Supervisor(logdir=None)
        with pytest.raises(ValueError, match="boom"):
            with sv.managed_session():
                raise ValueError("boom")


def test_non_chief_waits_for_the_chief_and_needs_placed_variables():
    with tf.Graph().as_default():
        _model()
        with pytest.raises(ValueError, match="all Variables must have their device set"):
            tf.train.Supervisor(is_chief=False, logdir=None)
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            step, w, train = _model()
        sv = tf.train.Supervisor(is_chief=False, logdir=None, recovery_wait_secs=0.01)
        with pytest.raises(tf.errors.DeadlineExceededError):
            sv.prepare_or_wait_for_session(max_wait_secs=0.1)
