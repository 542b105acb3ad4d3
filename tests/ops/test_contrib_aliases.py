"""tf.contrib.layers regularizers and initializers, tf.contrib.rnn aliases (TF 1.15's formulas and names;
TF 2.15 has no tf.contrib to take figures from, so values follow those formulas by hand)."""

import math

import numpy as np
import pytest

import dflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_regularizers_values_and_names():
    w = tf.constant([[1.0, -2.0], [3.0, -4.0]])
    l2 = tf.contrib.layers.l2_regularizer(0.5)(w)
    l1 = tf.contrib.layers.l1_regularizer(0.1)(w)
    both = tf.contrib.layers.l1_l2_regularizer(0.1, 0.5)(w)
    assert (l2.name, l1.name, both.name) == ("l2_regularizer:0", "l1_regularizer:0", "l1_l2_regularizer:0")
    with tf.Session() as sess:
        got = sess.run([l2, l1, both])
    assert got == [pytest.approx(0.5 * 30 / 2), pytest.approx(0.1 * 10), pytest.approx(7.5 + 1.0)]
    assert tf.contrib.layers.l2_regularizer(0.0)(w) is None
    with pytest.raises(ValueError, match="scale cannot be an integer"):
        tf.contrib.layers.l2_regularizer(1)
    with pytest.raises(ValueError, match="less than 0"):
        tf.contrib.layers.l1_regularizer(-0.1)


def test_get_variable_regularizer_and_apply_regularization():
    v = tf.get_variable("v", [4, 6], initializer=tf.contrib.layers.xavier_initializer(seed=1),
                        regularizer=tf.contrib.layers.l2_regularizer(0.01))
    (loss,) = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert loss.name == "v/Regularizer/l2_regularizer:0"
    tf.add_to_collection(tf.GraphKeys.WEIGHTS, v)
    total = tf.contrib.layers.apply_regularization(tf.contrib.layers.l1_regularizer(0.1))
    assert total in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    with tf.Session() as sess:
        sess.run(v.initializer)
        value, reg, t = sess.run([v, loss, total])
    assert np.abs(value).max() <= math.sqrt(6 / 10)  # Glorot uniform over fans 4 and 6
    assert reg == pytest.approx(0.01 * np.sum(value**2) / 2, rel=1e-5)
    assert t == pytest.approx(0.1 * np.abs(value).sum(), rel=1e-5)


def test_variance_scaling_initializer_uses_contribs_formulas():
    with tf.Session() as sess:
        normal = sess.run(tf.contrib.layers.variance_scaling_initializer(seed=2)([400, 300]))
        uniform = sess.run(tf.contrib.layers.variance_scaling_initializer(
            factor=1.0, mode="FAN_OUT", uniform=True, seed=2)([400, 300]))
    # A normal of stddev sqrt(1.3 * 2 / 400), truncated at two standard deviations.
    sigma = math.sqrt(1.3 * 2.0 / 400)
    assert np.abs(normal).max() <= 2 * sigma
    assert normal.std() == pytest.approx(0.8796 * sigma, rel=0.02)
    assert np.abs(uniform).max() <= math.sqrt(3.0 / 300)
    with pytest.raises(TypeError, match="Unknown mode"):
        tf.contrib.layers.variance_scaling_initializer(mode="fan_in")


def test_contrib_rnn_is_tf_nn():
    assert tf.contrib.rnn.LSTMCell is tf.nn.rnn_cell.LSTMCell
    assert tf.contrib.rnn.MultiRNNCell is tf.nn.rnn_cell.MultiRNNCell
    assert tf.contrib.rnn.static_rnn is tf.nn.static_rnn
