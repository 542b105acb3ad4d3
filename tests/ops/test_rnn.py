"""tf.nn.rnn_cell and tf.nn.*_rnn: variable names, values, states and
gradients against TF 2.15 compat.v1 (graph mode, figures written as literals;
the reference scripts live outside the repository)."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf


def test_get_variable_in_a_loop_body_lives_in_the_outer_graph():
    # A cell builds its weights on its first call, which dynamic_rnn makes inside the loop body:
    # as TF's init_scope, the variable is created (and named) in the enclosing graph.
    with tf.variable_scope("rnn"):
        def body(i, x):
            w = tf.get_variable("w", [], initializer=tf.constant_initializer(2.0))
            return i + 1, x * w
        _, r = tf.while_loop(lambda i, x: i < 3, body, [0, 1.0])
    (w,) = tf.global_variables()
    assert w.name == "rnn/w:0" and w.graph is tf.get_default_graph()
    g = tf.gradients(r, [w])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run([r, g]) == [8.0, [12.0]]


def test_default_scope_names_restart_in_a_scope_entered_again():
    # TF 2.15: a/b, a/b (leaving "a" forgets its default names), then b, b_1 at the top.
    names = []
    for _ in range(2):
        with tf.variable_scope("a"):
            with tf.variable_scope(None, default_name="b") as s:
                names.append((s.name, s.original_name_scope))
    for _ in range(2):
        with tf.variable_scope(None, default_name="b") as s:
            names.append((s.name, s.original_name_scope))
    assert names == [("a/b", "a/b/"), ("a/b", "a_1/b/"), ("b", "b/"), ("b_1", "b_1/")]


def test_scope_object_entered_again_keeps_its_original_name_scope():
    # TF 2.15: ('scale/', 'scale_1/Const:0'); the root scope re-entered opens no name scope;
    # auxiliary_name_scope=False keeps the current name scope.
    with tf.variable_scope("scale") as sc:
        pass
    with tf.variable_scope(sc) as s2:
        assert (s2.original_name_scope, tf.constant(1).name) == ("scale/", "scale_1/Const:0")
    with tf.name_scope("foo"):
        with tf.variable_scope(tf.get_variable_scope()) as s:
            assert (s.original_name_scope, tf.constant(1).name) == ("", "foo/Const:0")
    with tf.variable_scope("outer"):
        with tf.variable_scope("x", auxiliary_name_scope=False) as s:
            assert (s.name, s.original_name_scope, tf.constant(1).name) == ("outer/x", "outer/", "outer/Const:0")


def _ramp(shape, dtype=None, partition_info=None):
    """An initializer with distinct values (the same one feeds TF in the reference scripts)."""
    n = int(np.prod(shape))
    return tf.constant((np.sin(np.arange(n) * 0.7) * 0.5).reshape(shape), dtype=tf.float32)


def _flat(s):
    if isinstance(s, (tuple, list)):
        return [a for x in s for a in _flat(x)]
    return [s]


X24 = np.cos(np.arange(8)).reshape(2, 4).astype(np.float32)

# name -> (cell builder, TF 2.15's output and flattened state after two steps)
CELL_CASES = {
    "basic_lstm": (lambda: tf.nn.rnn_cell.BasicLSTMCell(3, forget_bias=0.5),
                   [[-0.07873, -0.122952, -0.10153], [-0.010026, 0.044622, 0.079239]],
                   [[[-0.143856, -0.233534, -0.204258], [-0.02175, 0.098298, 0.169959]],
                    [[-0.07873, -0.122952, -0.10153], [-0.010026, 0.044622, 0.079239]]]),
    "basic_lstm_concat": (lambda: tf.nn.rnn_cell.BasicLSTMCell(3, state_is_tuple=False),
                          [[-0.086687, -0.133822, -0.109762], [-0.011458, 0.048118, 0.08648]],
                          [[[-0.158628, -0.255049, -0.221343, -0.086687, -0.133822, -0.109762],
                            [-0.024859, 0.106054, 0.185836, -0.011458, 0.048118, 0.08648]]]),
    "gru": (lambda: tf.nn.rnn_cell.GRUCell(3, kernel_initializer=_ramp),
            [[0.11953, 0.07501, 0.006043], [-0.109955, -0.143636, -0.10414]],
            [[[0.11953, 0.07501, 0.006043], [-0.109955, -0.143636, -0.10414]]]),
    "gru_bias": (lambda: tf.nn.rnn_cell.GRUCell(3, bias_initializer=tf.constant_initializer(0.3)),
                 [[0.329039, 0.265547, 0.17518], [0.080758, 0.031373, 0.068126]],
                 [[[0.329039, 0.265547, 0.17518], [0.080758, 0.031373, 0.068126]]]),
    "lstm_peep_proj": (lambda: tf.nn.rnn_cell.LSTMCell(3, use_peepholes=True, num_proj=2, cell_clip=0.4,
                                                       proj_clip=0.2, initializer=_ramp),
                       [[-0.076397, -0.058833], [0.0355, -0.004346]],
                       [[[-0.140677, -0.23662, -0.213132], [-0.04531, 0.090827, 0.184998]],
                        [[-0.076397, -0.058833], [0.0355, -0.004346]]]),
    "lstm_concat": (lambda: tf.nn.rnn_cell.LSTMCell(3, num_proj=2, state_is_tuple=False),
                    [[-0.08126, -0.06023], [0.03399, -0.003626]],
                    [[[-0.140147, -0.241605, -0.219366, -0.08126, -0.06023],
                      [-0.045168, 0.090225, 0.180269, 0.03399, -0.003626]]]),
    "basic_rnn_relu": (lambda: tf.nn.rnn_cell.BasicRNNCell(3, activation=tf.nn.relu),
                       [[0.249011, 0.0813, 0.0], [0.0, 0.0, 0.0]],
                       [[[0.249011, 0.0813, 0.0], [0.0, 0.0, 0.0]]]),
    "multi": (lambda: tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(3), tf.nn.rnn_cell.GRUCell(2)]),
              [[-0.034041, -0.028001], [0.01462, -0.000533]],
              [[[-0.158628, -0.255049, -0.221343], [-0.024859, 0.106054, 0.185836]],
               [[-0.086687, -0.133822, -0.109762], [-0.011458, 0.048118, 0.08648]],
               [[-0.034041, -0.028001], [0.01462, -0.000533]]]),
}


@pytest.mark.parametrize("case", sorted(CELL_CASES))
def test_cell_two_steps_match_tf(case):
    build, want_out, want_state = CELL_CASES[case]
    x = tf.constant(X24)
    with tf.variable_scope("s", initializer=_ramp):
        cell = build()
        out, state = cell(x, cell.zero_state(2, tf.float32))
        out, state = cell(x * 0.5, state)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got_out, got_state = s.run([out, state])
    np.testing.assert_allclose(got_out, want_out, atol=2e-6)
    for g, w in zip(_flat(got_state), want_state):
        np.testing.assert_allclose(g, w, atol=2e-6)
    assert len(_flat(got_state)) == len(want_state)


def test_cell_variable_and_op_names_match_tf():
    x = tf.placeholder(tf.float32, [2, 4])
    with tf.variable_scope("s"):
        lstm = tf.nn.rnn_cell.BasicLSTMCell(3)
        o1, s1 = lstm(x, lstm.zero_state(2, tf.float32))
        o1, s1 = lstm(x, s1)
        proj = tf.nn.rnn_cell.LSTMCell(3, use_peepholes=True, num_proj=2, cell_clip=0.05, proj_clip=0.3)
        o3, s3 = proj(x, proj.zero_state(2, tf.float32))
        multi = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(2, state_is_tuple=False),
                                             tf.nn.rnn_cell.GRUCell(2)])
        o5, s5 = multi(x, multi.zero_state(2, tf.float32))
    assert [v.name for v in tf.global_variables()] == [
        "s/basic_lstm_cell/kernel:0", "s/basic_lstm_cell/bias:0", "s/lstm_cell/kernel:0", "s/lstm_cell/bias:0",
        "s/lstm_cell/w_f_diag:0", "s/lstm_cell/w_i_diag:0", "s/lstm_cell/w_o_diag:0",
        "s/lstm_cell/projection/kernel:0", "s/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0",
        "s/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0", "s/multi_rnn_cell/cell_1/gru_cell/gates/kernel:0",
        "s/multi_rnn_cell/cell_1/gru_cell/gates/bias:0", "s/multi_rnn_cell/cell_1/gru_cell/candidate/kernel:0",
        "s/multi_rnn_cell/cell_1/gru_cell/candidate/bias:0"]
    assert [v.name for v in multi.variables] == [v.name for v in tf.global_variables()[8:]]
    assert [v.shape.as_list() for v in lstm.trainable_variables] == [[7, 12], [12]]
    assert (lstm.name, multi.name, lstm.scope_name) == ("basic_lstm_cell_1", "multi_rnn_cell_1", "s/basic_lstm_cell")
    assert (o1.name, o3.name, s3.c.name) == ("s/basic_lstm_cell/Mul_5:0", "s/lstm_cell/clip_by_value_1:0",
                                             "s/lstm_cell/clip_by_value:0")
    assert (o5.name, s5[0].name) == ("s/s/multi_rnn_cell/cell_1/gru_cell/add:0",
                                     "s/s/multi_rnn_cell/cell_0/basic_lstm_cell/concat_1:0")
    assert proj.state_size == (3, 2) and isinstance(proj.state_size, tf.nn.rnn_cell.LSTMStateTuple)
    assert multi.state_size == (4, 2) and multi.output_size == 2
    assert isinstance(s1, tf.nn.rnn_cell.LSTMStateTuple) and s1.dtype == tf.float32
    assert s1.c.shape.as_list() == [2, 3] and o3.shape.as_list() == [2, 2]
