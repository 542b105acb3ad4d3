"""tf.train.Checkpoint and CheckpointManager in graph mode; keys and values as TF 2.15 compat.v1 writes them."""

import os

import numpy as np
import pytest

import dflow as tf

TF_KEYS = {  # tf.train.list_variables of TF 2.15's checkpoint of the same program
    "_CHECKPOINTABLE_OBJECT_GRAPH": [],
    "inner/w/.ATTRIBUTES/VARIABLE_VALUE": [2],
    "inner/w/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE": [2],
    "inner/w/.OPTIMIZER_SLOT/optimizer/v/.ATTRIBUTES/VARIABLE_VALUE": [2],
    "optimizer/beta1_power/.ATTRIBUTES/VARIABLE_VALUE": [],
    "optimizer/beta2_power/.ATTRIBUTES/VARIABLE_VALUE": [],
    "save_counter/.ATTRIBUTES/VARIABLE_VALUE": [],
    "step/.ATTRIBUTES/VARIABLE_VALUE": [],
    "v/.ATTRIBUTES/VARIABLE_VALUE": [],
    "v/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE": [],
    "v/.OPTIMIZER_SLOT/optimizer/v/.ATTRIBUTES/VARIABLE_VALUE": [],
}


def _trained_checkpoint(directory):
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=3.0)
        w = tf.Variable([1.0, 2.0], name="w")
        step = tf.train.get_or_create_global_step()
        opt = tf.train.AdamOptimizer(0.1)
        train = opt.minimize(tf.reduce_sum(w * w) + v * v, global_step=step)
        ck = tf.train.Checkpoint(v=v, inner=tf.train.Checkpoint(w=w), optimizer=opt, step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            first = ck.save(os.path.join(directory, "ck"), session=sess)
            written = ck.write(os.path.join(directory, "wr"), session=sess)
            second = ck.save(os.path.join(directory, "ck"), session=sess)
            values = sess.run([w, v])
    return first, written, second, values


def test_save_write_keys_and_checkpoint_file(tmp_path):
    first, written, second, (w, v) = _trained_checkpoint(str(tmp_path))
    assert (first, written, second) == tuple(str(tmp_path / n) for n in ("ck-1", "wr", "ck-2"))
    assert dict(tf.train.list_variables(first)) == TF_KEYS
    assert tf.train.latest_checkpoint(str(tmp_path)) == second
    state = (tmp_path / "checkpoint").read_text()
    assert state == 'model_checkpoint_path: "ck-2"\nall_model_checkpoint_paths: "ck-2"\n'
    np.testing.assert_allclose(w, [0.90000004, 1.9], rtol=1e-6)  # one Adam step, TF's figures
    assert v == pytest.approx(2.9)
    reader = tf.train.NewCheckpointReader(first)
    assert reader.get_tensor("save_counter/.ATTRIBUTES/VARIABLE_VALUE") == 1
    assert reader.get_tensor("step/.ATTRIBUTES/VARIABLE_VALUE") == 1


def test_restore_into_a_differently_named_graph_and_the_match_checks(tmp_path):
    first, *_ = _trained_checkpoint(str(tmp_path))
    with tf.Graph().as_default():
        v = tf.get_variable("other_v", initializer=0.0)
        w = tf.Variable([0.0, 0.0], name="other_w")
        ck = tf.train.Checkpoint(v=v, inner=tf.train.Checkpoint(w=w))
        status = ck.restore(first)
        with tf.Session() as sess:
            status.run_restore_ops(sess)
            got_v, got_w = sess.run([v, w])
            assert got_v == pytest.approx(2.9)
            np.testing.assert_allclose(got_w, [0.90000004, 1.9], rtol=1e-6)
            with pytest.raises(AssertionError, match="Unresolved object in checkpoint"):
                status.assert_consumed()  # the optimizer's values and the step found no object
            assert status.assert_existing_objects_matched() is status
            assert status.assert_nontrivial_match() is status
            assert status.expect_partial() is status


def test_initialize_or_restore_and_mismatches(tmp_path):
    first, *_ = _trained_checkpoint(str(tmp_path))
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=0.0)
        extra = tf.get_variable("extra", initializer=7.0)
        ck = tf.train.Checkpoint(v=v, extra=extra)
        status = ck.restore(first)
        with tf.Session() as sess:
            status.initialize_or_restore(sess)
            assert sess.run([v, extra]) == [pytest.approx(2.9), 7.0]
            with pytest.raises(AssertionError, match="not restored"):
                status.assert_existing_objects_matched()
    with tf.Graph().as_default():
        ck = tf.train.Checkpoint(v=tf.get_variable("v", [3]))
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="shape"):
            ck.restore(first).run_restore_ops(sess)
    with tf.Graph().as_default():
        ck = tf.train.Checkpoint(nothing=tf.train.Checkpoint(x=tf.get_variable("x", [1])))
        with tf.Session() as sess, pytest.raises(AssertionError, match="Nothing except the root"):
            status = ck.restore(first)
            status.run_restore_ops(sess)
            status.assert_nontrivial_match()
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
        tf.train.Checkpoint().restore(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="expecting a trackable object"):
        tf.train.Checkpoint(n=3)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="needs a session"):
        tf.train.Checkpoint(v=tf.get_variable("v", [1])).save(str(tmp_path / "nosess"))


def test_checkpoint_manager_keeps_the_newest_and_restores_the_latest(tmp_path):
    directory = str(tmp_path / "mgr")
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=1.0)
        layers = [tf.get_variable("a", initializer=1.0), tf.get_variable("b", initializer=2.0)]
        ck = tf.train.Checkpoint(v=v, layers=layers)
        manager = tf.train.CheckpointManager(ck, directory, max_to_keep=2)
        with tf.Session() as sess:
            assert manager.restore_or_initialize(sess) is None
            paths = []
            for i in range(3):
                sess.run(v.assign(float(i)))
                paths.append(manager.save(session=sess))
        assert paths == [os.path.join(directory, f"ckpt-{i}") for i in (1, 2, 3)]
        assert manager.checkpoints == paths[1:] and manager.latest_checkpoint == paths[-1]
        assert sorted(os.listdir(directory)) == ["checkpoint", "ckpt-2.data-00000-of-00001", "ckpt-2.index",
                                                 "ckpt-3.data-00000-of-00001", "ckpt-3.index"]
        assert "layers/1/.ATTRIBUTES/VARIABLE_VALUE" in dict(tf.train.list_variables(paths[-1]))
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=-1.0)
        ck = tf.train.Checkpoint(v=v)
        manager = tf.train.CheckpointManager(ck, directory, max_to_keep=2)
        assert manager.checkpoints == paths[1:]  # picked up from the directory's checkpoint file
        with tf.Session() as sess:
            assert manager.restore_or_initialize(sess) == paths[-1]
            assert sess.run(v) == 2.0
            assert manager.save(session=sess, checkpoint_number=10) == os.path.join(directory, "ckpt-10")
    with pytest.raises(ValueError, match="max_to_keep"):
        tf.train.CheckpointManager(tf.train.Checkpoint(), directory, max_to_keep=0)
