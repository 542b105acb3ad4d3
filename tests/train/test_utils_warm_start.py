"""tf.train.warm_start and VocabInfo against TF 2.15 compat.v1 (/tmp/ref/utils/warm_ref.py)."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf


@pytest.fixture
def checkpoint(tmp_path):
    (tmp_path / "old_vocab.txt").write_text("apple\nbanana\ncherry\n")
    (tmp_path / "new_vocab.txt").write_text("cherry\ndate\napple\n")
    with tf.Graph().as_default():
        tf.get_variable("emb", initializer=np.arange(6, dtype=np.float32).reshape(3, 2))
        tf.get_variable("dense/kernel", initializer=np.array([[1.0, 2.0]], np.float32))
        tf.get_variable("old_name", initializer=np.array([7.0], np.float32))
        tf.get_variable("out", initializer=np.arange(6, dtype=np.float32).reshape(2, 3))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            return tf.train.Saver().save(s, str(tmp_path / "model")), tmp_path


def test_warm_start_names_renames_and_vocab_rows_as_tf(checkpoint):
    path, d = checkpoint
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [5, 2], initializer=tf.ones_initializer())
        dense = tf.get_variable("dense/kernel", [1, 2], initializer=tf.zeros_initializer())
        new = tf.get_variable("new_name", [1], initializer=tf.zeros_initializer())
        other = tf.get_variable("other", [1], initializer=tf.zeros_initializer())
        vi = tf.train.VocabInfo(new_vocab=str(d / "new_vocab.txt"), new_vocab_size=3, num_oov_buckets=2,
                                old_vocab=str(d / "old_vocab.txt"), backup_initializer=tf.ones_initializer())
        assert (vi.axis, vi.old_vocab_size) == (0, -1)
        tf.train.warm_start(path, vars_to_warm_start=["emb:", "dense", "new_name"], var_name_to_vocab_info={"emb": vi},
                            var_name_to_prev_var_name={"new_name": "old_name"})
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            # TF: cherry <- old row 2, date (new) and the 2 OOV rows <- backup, apple <- old row 0
            assert s.run(emb).tolist() == [[4.0, 5.0], [1.0, 1.0], [0.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
            assert s.run(dense).tolist() == [[1.0, 2.0]]
            assert (s.run(new).tolist(), s.run(other).tolist()) == ([7.0], [0.0])


def test_warm_start_vocab_columns_and_defaults(checkpoint):
    path, d = checkpoint
    with tf.Graph().as_default():
        out = tf.get_variable("out", [2, 4], initializer=tf.ones_initializer())
        vi = tf.train.VocabInfo(str(d / "new_vocab.txt"), 3, 1, str(d / "old_vocab.txt"), old_vocab_size=2, axis=1)
        tf.train.warm_start(path, vars_to_warm_start=None, var_name_to_vocab_info={"out": vi})
        with tf.Session() as s:
            s.run(out.initializer)
            # old columns: apple=0, banana=1 (cherry is past old_vocab_size); new: cherry, date, apple, OOV
            assert s.run(out).tolist() == [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0]]
    with tf.Graph().as_default():
        w = tf.get_variable("dense/kernel", [1, 2])
        untouched = tf.get_variable("emb", [3, 2], trainable=False, initializer=tf.zeros_initializer())
        tf.train.warm_start(path)  # every trainable variable, by its own name
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(w).tolist() == [[1.0, 2.0]] and s.run(untouched).tolist() == [[0.0, 0.0]] * 3


def test_warm_start_errors(checkpoint):
    path, d = checkpoint
    with tf.Graph().as_default():
        tf.get_variable("dense/kernel", [1, 2])
        with pytest.raises(ValueError, match=r"var_name_to_prev_var_name that were not used: \{'nope'\}.  Perhaps you "
                                             r"misspelled them\?  Here is the list of viable variable names: "
                                             r"dict_keys\(\['dense/kernel'\]\)"):
            tf.train.warm_start(path, var_name_to_prev_var_name={"nope": "x"})
        with pytest.raises(ValueError, match="must be all `Variable` or all `str`"):
            tf.train.warm_start(path, vars_to_warm_start=["a", 1])
        with pytest.raises(ValueError, match="only supported values for the axis argument are 0 and 1"):
            tf.train.VocabInfo("a", 1, 0, "b", axis=2)
    with tf.Graph().as_default():
        tf.get_variable("out", [2, 4])
        vi = tf.train.VocabInfo(str(d / "new_vocab.txt"), 3, 1, str(d / "old_vocab.txt"))  # axis 0: 2 rows != 4
        with pytest.raises(ValueError, match="new_vocab_size \\+ num_oov_buckets = 4"):
            tf.train.warm_start(path, var_name_to_vocab_info={"out": vi})
