"""A tf.lookup table on the ps of a LocalCluster: filled by one run, read by ops added later."""

from __future__ import annotations

import pytest

import dflow as tf


@pytest.mark.cluster
def test_a_table_on_the_ps_serves_lookups_built_after_its_initialization(local_cluster):
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            init = tf.lookup.KeyValueTensorInitializer(["a", "b"], tf.constant([0, 1], tf.int64))
            table = tf.lookup.StaticVocabularyTable(init, 3)
        with tf.device("/job:worker/task:0"):
            ids = table.lookup(tf.constant(["b", "hello", "a"]))
        with tf.Session(local_cluster.target) as sess:
            sess.run(tf.tables_initializer())
            assert sess.run(ids).tolist() == [1, 3, 0]  # "hello": 2 + Fingerprint64 mod 3, as TF 2.15
            later = [table.size(), table.lookup(tf.constant(["a"]))]
            assert [v.tolist() for v in sess.run(later)] == [5, [0]]
