"""tf.nn.rnn_cell and tf.nn.*_rnn: variable names, values, states and
gradients against TF 2.15 compat.v1 (graph mode, figures written as literals;
the reference scripts live outside the repository)."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.gradcheck import check_gradients


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


X234 = np.cos(np.arange(24) * 0.3).reshape(2, 3, 4).astype(np.float32)

# name -> (build(x) -> nested fetches, TF 2.15's values flattened)
RNN_CASES = {
    "dynamic_sequence_length": (
        lambda x: tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(3, num_proj=2), x, sequence_length=[3, 2],
                                    dtype=tf.float32),
        [[[[-0.00046, 0.04474], [-0.01595, 0.01496], [-0.01985, -0.03138]],
          [[0.00657, -0.01714], [0.02544, 0.02088], [0.0, 0.0]]],
         [[-0.11867, -0.08033, -0.03874], [0.05269, 0.08002, 0.05392]], [[-0.01985, -0.03138], [0.02544, 0.02088]]]),
    "dynamic_time_major_initial_state": (
        lambda x: tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), tf.transpose(x, [1, 0, 2]), time_major=True,
                                    initial_state=tf.constant([[0.1, -0.2], [0.3, 0.4]])),
        [[[[0.13667, -0.10349], [0.11216, 0.20012]], [[0.14267, 0.00013], [0.06778, 0.06072]],
          [[0.04061, 0.00793], [0.11815, 0.09561]]], [[0.04061, 0.00793], [0.11815, 0.09561]]]),
    "bidirectional_dynamic": (
        lambda x: tf.nn.bidirectional_dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(2), tf.nn.rnn_cell.GRUCell(3), x,
                                                  sequence_length=[2, 3], dtype=tf.float32),
        [[[[0.0672, 0.09634], [0.10491, 0.11771], [0.0, 0.0]], [[-0.19994, -0.2365], [-0.1393, -0.03079],
                                                                [-0.04507, 0.07559]]],
         [[[0.03856, 0.07778, 0.09588], [0.03247, 0.01827, -0.00281], [0.0, 0.0, 0.0]],
          [[-0.05893, -0.02672, 0.0403], [-0.02672, 0.06344, 0.14358], [0.005, 0.06528, 0.11191]]],
         [[0.25931, 0.262], [-0.10026, 0.30005]], [[0.10491, 0.11771], [-0.04507, 0.07559]],
         [[0.03856, 0.07778, 0.09588], [-0.05893, -0.02672, 0.0403]]]),
    "static_sequence_length": (
        lambda x: tf.nn.static_rnn(tf.nn.rnn_cell.BasicRNNCell(2), tf.unstack(x, axis=1), sequence_length=[1, 3],
                                   dtype=tf.float32),
        [[[0.32575, 0.27691], [-0.33455, -0.39071]], [[0.0, 0.0], [-0.09369, -0.48223]],
         [[0.0, 0.0], [0.16594, -0.0655]], [[0.32575, 0.27691], [0.16594, -0.0655]]]),
    "static_bidirectional": (
        lambda x: tf.nn.static_bidirectional_rnn(tf.nn.rnn_cell.BasicRNNCell(2), tf.nn.rnn_cell.BasicLSTMCell(2),
                                                 tf.unstack(x, axis=1), sequence_length=[3, 2], dtype=tf.float32),
        [[[0.32575, 0.27691, 0.10323, 0.06727], [-0.33455, -0.39071, -0.21435, -0.17522]],
         [[0.20213, 0.51876, 0.0333, -0.05346], [-0.09369, -0.48223, -0.01345, 0.06864]],
         [[-0.0742, 0.28122, -0.13044, -0.32552], [0.0, 0.0, 0.0, 0.0]], [[-0.0742, 0.28122], [-0.09369, -0.48223]],
         [[0.23727, 0.25413], [-0.37815, -0.25539]], [[0.10323, 0.06727], [-0.21435, -0.17522]]]),
    "multi_cell_dynamic": (
        lambda x: tf.nn.dynamic_rnn(tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.GRUCell(2)]),
                                    x, dtype=tf.float32, scope="deep"),
        [[[[0.00914, 0.01442], [0.02578, 0.03589], [0.03451, 0.03987]],
          [[-0.01582, -0.02289], [-0.03528, -0.04401], [-0.03865, -0.0415]]],
         [[0.02771, 0.13303], [-0.01197, -0.1177]], [[0.03451, 0.03987], [-0.03865, -0.0415]]]),
}


def _check_flat(got, want, atol=2e-5):
    got = _flat(got)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, atol=atol)


@pytest.mark.parametrize("case", sorted(RNN_CASES))
def test_rnn_values_match_tf(case):
    build, want = RNN_CASES[case]
    with tf.variable_scope("m", initializer=_ramp):
        fetches = build(tf.constant(X234))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        _check_flat(s.run(fetches), want)


def test_rnn_variable_names_and_static_shapes_match_tf():
    x = tf.placeholder(tf.float32, [2, 3, 4])
    with tf.variable_scope("m"):
        out, st = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), x, dtype=tf.float32)
        (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.GRUCell(3), x,
                                                      dtype=tf.float32)
        outs, st2 = tf.nn.static_rnn(tf.nn.rnn_cell.BasicRNNCell(2), tf.unstack(x, axis=1), dtype=tf.float32,
                                     scope="unrolled")
    assert [v.name for v in tf.global_variables()] == [
        "m/rnn/basic_lstm_cell/kernel:0", "m/rnn/basic_lstm_cell/bias:0",
        "m/bidirectional_rnn/fw/gru_cell/gates/kernel:0", "m/bidirectional_rnn/fw/gru_cell/gates/bias:0",
        "m/bidirectional_rnn/fw/gru_cell/candidate/kernel:0", "m/bidirectional_rnn/fw/gru_cell/candidate/bias:0",
        "m/bidirectional_rnn/bw/gru_cell/gates/kernel:0", "m/bidirectional_rnn/bw/gru_cell/gates/bias:0",
        "m/bidirectional_rnn/bw/gru_cell/candidate/kernel:0", "m/bidirectional_rnn/bw/gru_cell/candidate/bias:0",
        "m/unrolled/basic_rnn_cell/kernel:0", "m/unrolled/basic_rnn_cell/bias:0"]
    assert out.name == "m/rnn/transpose_1:0" and out.shape.as_list() == [2, 3, 5]
    assert isinstance(st, tf.nn.rnn_cell.LSTMStateTuple) and st.h.shape.as_list() == [2, 5]
    assert fw.shape.as_list() == [2, 3, 3] and bw.shape.as_list() == [2, 3, 3]
    assert (fw.name, bw.name) == ("m/bidirectional_rnn/fw/fw/transpose_1:0", "m/ReverseV2:0")
    assert len(outs) == 3 and outs[2].name == "m/unrolled/basic_rnn_cell/Tanh_2:0"
    assert st2.shape.as_list() == [2, 2]


def test_dynamic_rnn_unknown_batch_and_time():
    x = tf.placeholder(tf.float32, [None, None, 4])
    with tf.variable_scope("m", initializer=_ramp):
        out, st = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(3, num_proj=2), x, sequence_length=[3, 2],
                                    dtype=tf.float32)
    assert out.shape.as_list() == [None, None, 2] and st.c.shape.as_list() == [None, 3]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        _check_flat(s.run([out, st], {x: X234}), RNN_CASES["dynamic_sequence_length"][1])


def test_lstm_training_matches_tf_losses():
    # A two-layer cell (peephole LSTM, GRU), variable lengths, Adam: TF 2.15's six losses and weights.
    x_val = np.cos(np.arange(60) * 0.37).reshape(4, 5, 3).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 5, 3])
    y = tf.placeholder(tf.int32, [None])
    with tf.variable_scope("model", initializer=_ramp):
        cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(6, use_peepholes=True),
                                            tf.nn.rnn_cell.GRUCell(4)])
        out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=[5, 3, 4, 2], dtype=tf.float32)
        w = tf.get_variable("w", [4, 3])
        logits = tf.matmul(state[1], w) + tf.reduce_mean(out, axis=1)[:, :3]
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        losses = [s.run([loss, train], {x: x_val, y: [0, 1, 2, 1]})[0] for _ in range(6)]
        kernel = s.run(tf.trainable_variables()[0])
    np.testing.assert_allclose(losses, [1.097872, 1.079093, 1.052458, 1.012508, 0.955984, 0.8872], atol=2e-6)
    np.testing.assert_allclose(kernel[:2, :4], [[-0.07432, 0.02746, 0.57106, 0.1354],
                                                [-0.32249, -0.78215, -0.16104, -0.26828]], atol=2e-5)


def test_raw_rnn_matches_tf():
    inputs = tf.constant(np.cos(np.arange(24) * 0.3).reshape(3, 2, 4).astype(np.float32))  # time-major
    seq_len = tf.constant([3, 2])
    inputs_ta = tf.TensorArray(tf.float32, size=3).unstack(inputs)
    with tf.variable_scope("raw", initializer=_ramp):
        cell = tf.nn.rnn_cell.LSTMCell(3)

        def loop_fn(time, cell_output, cell_state, loop_state):
            if cell_output is None:
                next_state, next_loop_state = cell.zero_state(2, tf.float32), tf.constant(0.0)
            else:
                next_state, next_loop_state = cell_state, loop_state + tf.reduce_sum(cell_output)
            finished = time >= seq_len
            next_input = tf.cond(tf.reduce_all(finished), lambda: tf.zeros([2, 4], tf.float32),
                                 lambda: inputs_ta.read(time))
            return finished, next_input, next_state, cell_output, next_loop_state

        emit_ta, final_state, final_loop = tf.nn.raw_rnn(cell, loop_fn)
        outputs = emit_ta.stack()
    assert outputs.shape.as_list() == [None, 2, 3] and final_loop.shape.as_list() == []
    assert [v.name for v in tf.global_variables()] == ["raw/rnn/lstm_cell/kernel:0", "raw/rnn/lstm_cell/bias:0"]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run([outputs, final_state, final_loop])
    _check_flat(got, [[[[0.07458, 0.02135, -0.06556], [-0.02485, -0.03167, -0.02299]],
                       [[-0.04191, -0.02157, -0.01498], [-0.05454, -0.0195, 0.01828]],
                       [[0.02656, 0.0274, -0.00992], [0.0, 0.0, 0.0]]],
                      [[0.05586, 0.05294, -0.01799], [-0.11539, -0.04424, 0.04205]],
                      [[0.02656, 0.0274, -0.00992], [-0.05454, -0.0195, 0.01828]], -0.10777])


class _VariableStateSaver:
    """A state saver keeping each state in a non-trainable variable (starting at 0.25)."""

    def __init__(self):
        self.vars = {}

    def state(self, name):
        v = tf.get_variable("saved_" + name, [2, 3], initializer=tf.constant_initializer(0.25), trainable=False)
        self.vars[name] = v
        return v.read_value()

    def save_state(self, name, value):
        return tf.assign(self.vars[name], value)


def test_static_state_saving_rnn_saves_the_state_between_runs():
    inputs = tf.unstack(tf.constant(np.cos(np.arange(24) * 0.3).reshape(3, 2, 4).astype(np.float32)))[:2]
    with tf.variable_scope("sss", initializer=_ramp):
        outs, st = tf.nn.static_state_saving_rnn(tf.nn.rnn_cell.BasicLSTMCell(3), inputs, _VariableStateSaver(),
                                                 ("c", "h"))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        first, second = s.run((outs, st)), s.run((outs, st))
    _check_flat(first, [[[0.15526, 0.11285, 0.03529], [0.07049, 0.06275, 0.06866]],
                        [[0.02611, 0.0359, 0.03748], [0.01183, 0.04259, 0.07753]],
                        [[0.05158, 0.08306, 0.09585], [0.0249, 0.09684, 0.18026]],
                        [[0.02611, 0.0359, 0.03748], [0.01183, 0.04259, 0.07753]]])
    _check_flat(second, [[[0.09254, 0.05378, -0.02602], [-0.00757, 0.00967, 0.04381]],
                         [[-0.02515, -0.00042, 0.00608], [-0.03772, 0.01052, 0.06227]],
                         [[-0.04975, -0.00096, 0.01551], [-0.07992, 0.02375, 0.14266]],
                         [[-0.02515, -0.00042, 0.00608], [-0.03772, 0.01052, 0.06227]]])


def _raises(cls, match, fn):
    with pytest.raises(cls) as e:
        fn()
    assert match in str(e.value), str(e.value)


def test_graph_time_errors_match_tf():
    gru = tf.nn.rnn_cell.GRUCell
    _raises(TypeError, "The argument 'cell' (", lambda: tf.nn.dynamic_rnn(object(), tf.zeros([2, 3, 4]),
                                                                          dtype=tf.float32))
    _raises(TypeError, "is not an RNNCell: 'output_size' property is missing, 'state_size' property is missing, "
                       "either 'zero_state' or 'get_initial_state' method is required, is not callable.",
            lambda: tf.nn.static_rnn(3, [tf.zeros([2, 3])]))
    _raises(ValueError, "If no initial_state is provided, argument `dtype` must be specified",
            lambda: tf.nn.dynamic_rnn(gru(2), tf.zeros([2, 3, 4])))
    _raises(ValueError, "Shape (3, 2) must have rank at least 3",
            lambda: tf.nn.dynamic_rnn(gru(2), tf.zeros([2, 3]), dtype=tf.float32))
    _raises(ValueError, "Argument sequence_length must be a vector of length batch_size.",
            lambda: tf.nn.dynamic_rnn(gru(2), tf.zeros([2, 3, 4]), sequence_length=[[1]], dtype=tf.float32))
    _raises(TypeError, "Argument `inputs` must be a sequence.",
            lambda: tf.nn.static_rnn(gru(2), tf.zeros([2, 3]), dtype=tf.float32))
    _raises(ValueError, "Argument `inputs` must not be empty.", lambda: tf.nn.static_rnn(gru(2), [], dtype=tf.float32))
    _raises(TypeError, "Argument `loop_fn` must be a callable. Received: 3.", lambda: tf.nn.raw_rnn(gru(2), 3))
    state = tf.nn.rnn_cell.BasicLSTMCell(3).zero_state(2, tf.float32)
    _raises(ValueError, "expected ndim=2, found ndim=3. Full shape received: (2, 3, 4)",
            lambda: tf.nn.rnn_cell.BasicLSTMCell(3)(tf.zeros([2, 3, 4]), state))
    _raises(ValueError, "RNN cell only supports floating point inputs", lambda: tf.nn.rnn_cell.BasicRNNCell(3)(
        tf.zeros([2, 3], tf.int32), tf.zeros([2, 3], tf.int32)))
    _raises(ValueError, "Must specify at least one cell for MultiRNNCell.", lambda: tf.nn.rnn_cell.MultiRNNCell([]))
    _raises(ValueError, "Expected inputs.shape[-1] to be known, received shape: (2, None)",
            lambda: tf.nn.rnn_cell.BasicRNNCell(3)(tf.placeholder(tf.float32, [2, None]), tf.zeros([2, 3])))
    _raises(ValueError, "Variable basic_rnn_cell/kernel does not exist",
            lambda: tf.nn.rnn_cell.BasicRNNCell(3, reuse=True)(tf.zeros([2, 3]), tf.zeros([2, 3])))


def test_sequence_length_of_the_wrong_size_fails_at_run_time():
    x = tf.placeholder(tf.float32, [None, 3, 4])
    sl = tf.placeholder(tf.int32, [None])
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x, sequence_length=sl, dtype=tf.float32)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Expected shape for Tensor rnn/sequence_length:0 is \] \[2\] \[ but saw shape: \] "
                                 r"\[3\]"):
            s.run(out, {x: np.zeros([2, 3, 4]), sl: [1, 2, 3]})


def test_wrappers_keep_names_and_match_tf():
    x = tf.constant(X234)
    kp = tf.placeholder_with_default(1.0, [])
    with tf.variable_scope("w", initializer=_ramp):
        res = tf.nn.dynamic_rnn(tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.GRUCell(4)), x, dtype=tf.float32)
        res_fn = tf.nn.dynamic_rnn(tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.BasicRNNCell(2),
                                                                  residual_fn=lambda i, o: o - i[:, :2]),
                                   x, dtype=tf.float32, scope="r2")
        multi = tf.nn.rnn_cell.MultiRNNCell([
            tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.LSTMCell(3), input_keep_prob=kp, output_keep_prob=kp,
                                          state_keep_prob=kp),
            tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.GRUCell(2), "/cpu:0")])
        deep = tf.nn.dynamic_rnn(multi, x, dtype=tf.float32, scope="m")
        dw = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicLSTMCell(3), output_keep_prob=1.0)
        static = tf.nn.static_rnn(dw, tf.unstack(x, axis=1), dtype=tf.float32, scope="s")
    assert [v.name for v in tf.global_variables()] == [
        "w/rnn/gru_cell/gates/kernel:0", "w/rnn/gru_cell/gates/bias:0", "w/rnn/gru_cell/candidate/kernel:0",
        "w/rnn/gru_cell/candidate/bias:0", "w/r2/basic_rnn_cell/kernel:0", "w/r2/basic_rnn_cell/bias:0",
        "w/m/multi_rnn_cell/cell_0/lstm_cell/kernel:0", "w/m/multi_rnn_cell/cell_0/lstm_cell/bias:0",
        "w/m/multi_rnn_cell/cell_1/gru_cell/gates/kernel:0", "w/m/multi_rnn_cell/cell_1/gru_cell/gates/bias:0",
        "w/m/multi_rnn_cell/cell_1/gru_cell/candidate/kernel:0",
        "w/m/multi_rnn_cell/cell_1/gru_cell/candidate/bias:0", "w/s/basic_lstm_cell/kernel:0",
        "w/s/basic_lstm_cell/bias:0"]
    # TF 2.15's Keras loses a wrapped cell's weights here ([]); dflow lists them, as TF 1.15 did.
    assert len(multi.variables) == 6 and len(dw.trainable_weights) == 2
    assert dw.state_size == (3, 3) and dw.output_size == 3
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run({"res": res, "res_fn": res_fn, "deep": deep, "static": static})
    _check_flat(got["res"], [
        [[[1.01638, 0.99694, 0.89774, 0.66932], [0.32997, 0.10512, -0.12128, -0.40084],
          [-0.89755, -1.0026, -0.94677, -0.88887]],
         [[-0.922, -0.78992, -0.53983, -0.23555], [0.09522, 0.33774, 0.58084, 0.75297],
          [0.98318, 0.99762, 0.96336, 0.78945]]], [[-0.16015, -0.09853, 0.04322, 0.09861],
                                                   [0.02301, -0.00224, 0.01313, -0.02628]]])
    _check_flat(got["res_fn"], [[[[-0.67425, -0.67843], [-0.16023, 0.44803], [0.6632, 1.18529]],
                                 [[0.56221, 0.33523], [-0.18119, -0.86021], [-0.79423, -1.06536]]],
                                [[-0.0742, 0.28122], [0.16594, -0.0655]]])
    _check_flat(got["deep"], [[[[-0.00012, 0.01212], [-0.00696, 0.01011], [-0.01286, -0.00409]],
                               [[0.00178, -0.00461], [0.00951, 0.00334], [0.01381, 0.02057]]],
                              [[-0.16455, -0.11627, -0.05297], [0.20851, 0.12563, -0.05723]],
                              [[-0.08262, -0.05051, -0.02101], [0.10443, 0.07137, -0.0343]],
                              [[-0.01286, -0.00409], [0.01381, 0.02057]]])
    _check_flat(got["static"], [[[0.07458, 0.02135, -0.06556], [-0.03725, 0.00184, 0.03383]],
                                [[0.01519, -0.02547, -0.06094], [0.03166, 0.04967, 0.03386]],
                                [[-0.08262, -0.05051, -0.02101], [0.10443, 0.07137, -0.0343]],
                                [[-0.16455, -0.11627, -0.05297], [0.20851, 0.12563, -0.05723]],
                                [[-0.08262, -0.05051, -0.02101], [0.10443, 0.07137, -0.0343]]])


def _dropped_outputs(**wrapper_kwargs):
    """Outputs of an RNN whose every unit is 1 before dropout (so dropout shows as 0 or 1/keep)."""
    ones = tf.nn.rnn_cell.BasicRNNCell(8, activation=lambda z: z * 0.0 + 1.0)
    cell = tf.nn.rnn_cell.DropoutWrapper(ones, seed=3, **wrapper_kwargs)
    out, _ = tf.nn.dynamic_rnn(cell, tf.ones([64, 6, 5]), dtype=tf.float32)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        return s.run(out), s.run(out)


def test_dropout_wrapper_draws_a_mask_per_step():
    first, second = _dropped_outputs(output_keep_prob=0.5)
    assert set(np.unique(first)) == {0.0, 2.0}
    assert 0.4 < (first == 0).mean() < 0.6
    assert not np.array_equal(first[:, 0], first[:, 1]) and not np.array_equal(first, second)


def test_variational_dropout_keeps_one_mask_per_sequence():
    first, second = _dropped_outputs(output_keep_prob=0.5, variational_recurrent=True, dtype=tf.float32)
    assert set(np.unique(first)) <= {0.0, 2.0}
    # One [1, units] mask per run, the same for every step and batch entry.
    assert (first == first[:1, :1]).all() and (second == second[:1, :1]).all()
    assert 0 < (first == 0).sum() < first.size


def test_dropout_wrapper_state_filter_drops_only_the_lstm_h():
    x = tf.ones([2, 4, 3])
    with tf.variable_scope("d", initializer=tf.constant_initializer(0.5)):
        cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicLSTMCell(4), state_keep_prob=1e-6, seed=1)
        _, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        c, h = s.run(state)
    assert (h == 0).all() and (c != 0).all()


def test_dropout_wrapper_errors_match_tf():
    gru = tf.nn.rnn_cell.GRUCell
    _raises(ValueError, "Parameter input_keep_prob must be between 0 and 1. Received 1.5",
            lambda: tf.nn.rnn_cell.DropoutWrapper(gru(2), input_keep_prob=1.5))
    _raises(ValueError, "When variational_recurrent=True, dtype must be provided",
            lambda: tf.nn.rnn_cell.DropoutWrapper(gru(2), variational_recurrent=True))
    _raises(ValueError, "When variational_recurrent=True and input_keep_prob < 1.0 or is unknown, input_size must "
                        "be provided", lambda: tf.nn.rnn_cell.DropoutWrapper(
                            gru(2), input_keep_prob=0.5, variational_recurrent=True, dtype=tf.float32))
    _raises(TypeError, "dropout_state_filter_visitor must be callable. Received: 3",
            lambda: tf.nn.rnn_cell.DropoutWrapper(gru(2), dropout_state_filter_visitor=3))
    _raises(TypeError, "The argument 'cell' (3) is not an RNNCell", lambda: tf.nn.rnn_cell.DropoutWrapper(3))


def test_device_wrapper_places_the_cell_and_its_zero_state():
    cell = tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.GRUCell(2), "/cpu:0")
    zero = cell.zero_state(2, tf.float32)
    out, _ = cell(tf.ones([2, 3]), zero)
    assert zero.op.device.endswith("CPU:0") and out.op.device.endswith("CPU:0")
    assert zero.name.startswith("DeviceWrapperZeroState/GRUCellZeroState/")


class _TensorWeightsCell(tf.nn.rnn_cell.RNNCell):
    """A user cell in TF1's old style (no super().__init__): weights are given tensors."""

    def __init__(self, kernel):
        self._kernel = kernel

    state_size = property(lambda self: 3)
    output_size = property(lambda self: 3)

    def call(self, inputs, state):
        h = tf.tanh(tf.matmul(tf.concat([inputs, state], 1), self._kernel))
        return h * 2.0, h


def test_dynamic_rnn_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 4, 2))
    h0 = rng.normal(size=(2, 3)) * 0.5
    kernel = rng.normal(size=(5, 3)) * 0.5

    def fn(x, h0, kernel):
        out, state = tf.nn.dynamic_rnn(_TensorWeightsCell(kernel), x, sequence_length=[4, 2], initial_state=h0)
        return tf.reduce_sum(out, axis=1) + state

    check_gradients(fn, x, h0, kernel)


def test_user_cell_with_get_variable_in_call_is_reused_across_steps():
    class ScaledCell(tf.nn.rnn_cell.RNNCell):
        state_size = property(lambda self: 2)
        output_size = property(lambda self: 2)

        def call(self, inputs, state):
            w = tf.get_variable("w", [2], inputs.dtype, initializer=tf.constant_initializer([0.5, -1.0]))
            return inputs * w + state, state + 1.0

    x = tf.ones([1, 3, 2], tf.float64)
    out, state = tf.nn.dynamic_rnn(ScaledCell(), x, dtype=tf.float64)
    outs, _ = tf.nn.static_rnn(ScaledCell(), tf.unstack(x, axis=1), dtype=tf.float64, scope="unrolled")
    assert [v.name for v in tf.global_variables()] == ["rnn/scaled_cell/w:0", "unrolled/scaled_cell/w:0"]
    assert tf.global_variables()[0].dtype.base_dtype == tf.float64 and out.dtype == tf.float64
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got, st, got_static = s.run([out, state, outs])
    np.testing.assert_allclose(got[0], [[0.5, -1.0], [1.5, 0.0], [2.5, 1.0]])
    np.testing.assert_allclose(st, [[3.0, 3.0]])
    np.testing.assert_allclose(np.stack(got_static, 1), got)


def test_float64_cells_build_float64_weights_and_nested_inputs():
    class PairCell(tf.nn.rnn_cell.RNNCell):
        state_size = property(lambda self: 2)
        output_size = property(lambda self: (2, 1))

        def call(self, inputs, state):
            a, b = inputs
            new = state + a * b
            return (new, tf.reduce_sum(new, axis=1, keepdims=True)), new

    a = tf.constant(np.arange(12, dtype=np.float64).reshape(2, 3, 2))
    b = tf.constant(np.full((2, 3, 1), 0.5))
    (o1, o2), st = tf.nn.dynamic_rnn(PairCell(), (a, b), dtype=tf.float64)
    lstm = tf.nn.rnn_cell.LSTMCell(2)
    _, st2 = tf.nn.dynamic_rnn(lstm, a, dtype=tf.float64, scope="lstm")
    assert o1.shape.as_list() == [2, 3, 2] and o2.shape.as_list() == [2, 3, 1]
    assert lstm.dtype == tf.float64 and all(v.dtype.base_dtype == tf.float64 for v in lstm.variables)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        v1, v2, vs = s.run([o1, o2, st])
        s.run(st2)
    np.testing.assert_allclose(vs, [[3.0, 4.5], [12.0, 13.5]])
    np.testing.assert_allclose(v2[:, :, 0], v1.sum(axis=2))


def test_sharing_weights_between_rnns_as_tf1():
    # TF 2.15: a new cell under reuse=True or AUTO_REUSE finds the first one's weights; one cell object
    # keeps its first scope whatever scope a later dynamic_rnn names.
    x = tf.ones([2, 3, 4])
    with tf.variable_scope("model"):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), x, dtype=tf.float32)
    with tf.variable_scope("model", reuse=True):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), x * 2, dtype=tf.float32)
    cell = tf.nn.rnn_cell.GRUCell(3)
    tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, scope="shared")
    tf.nn.dynamic_rnn(cell, x * 2, dtype=tf.float32, scope="other")
    for _ in range(2):
        with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
            tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), x, dtype=tf.float32)
    assert [v.name for v in tf.global_variables()] == [
        "model/rnn/basic_lstm_cell/kernel:0", "model/rnn/basic_lstm_cell/bias:0",
        "shared/gru_cell/gates/kernel:0", "shared/gru_cell/gates/bias:0", "shared/gru_cell/candidate/kernel:0",
        "shared/gru_cell/candidate/bias:0", "auto/rnn/gru_cell/gates/kernel:0", "auto/rnn/gru_cell/gates/bias:0",
        "auto/rnn/gru_cell/candidate/kernel:0", "auto/rnn/gru_cell/candidate/bias:0"]
    assert cell.scope_name == "shared/gru_cell"


def test_raw_rnn_with_an_emit_structure_of_its_own():
    inputs_ta = tf.TensorArray(tf.float32, size=3).unstack(
        tf.constant(np.cos(np.arange(24) * 0.3).reshape(3, 2, 4).astype(np.float32)))
    proj = tf.constant(np.arange(15, dtype=np.float32).reshape(3, 5) / 10)
    with tf.variable_scope("raw", initializer=_ramp):
        cell = tf.nn.rnn_cell.GRUCell(3)

        def loop_fn(time, cell_output, cell_state, loop_state):
            if cell_output is None:  # the emit structure: a 5-vector and an int32 scalar per entry
                emit, state = (tf.zeros([5]), tf.zeros([], tf.int32)), cell.zero_state(2, tf.float32)
            else:
                emit, state = (tf.matmul(cell_output, proj), tf.fill([2], time)), cell_state
            finished = tf.fill([2], time >= 2)
            nxt = tf.cond(tf.reduce_all(finished), lambda: tf.zeros([2, 4]),
                          lambda: inputs_ta.read(tf.minimum(time, 2)))
            return finished, nxt, state, emit, None

        (ta1, ta2), state, loop_state = tf.nn.raw_rnn(cell, loop_fn)
        a, b = ta1.stack(), ta2.stack()
    assert a.shape.as_list() == [None, 2, 5] and b.dtype == tf.int32 and loop_state is None
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got_a, got_b, got_state = s.run([a, b, state])
    np.testing.assert_allclose(got_a, [[[0.1335, 0.15129, 0.16907, 0.18686, 0.20465],
                                        [0.00632, 0.01112, 0.01591, 0.0207, 0.0255]],
                                       [[-0.01624, -0.01735, -0.01846, -0.01956, -0.02067],
                                        [-0.10362, -0.11794, -0.13225, -0.14657, -0.16088]]], atol=2e-5)
    assert got_b.tolist() == [[1, 1], [2, 2]]
    np.testing.assert_allclose(got_state, [[0.01411, -0.01786, -0.00731], [-0.00961, -0.05983, -0.07371]],
                               atol=2e-5)


def test_lstm_cell_shards_its_weights_into_partitioned_variables():
    # TF 2.15: names, shapes and outputs of the same program.
    with tf.Graph().as_default():
        x = tf.constant(np.arange(12, dtype=np.float32).reshape(2, 2, 3) / 10)
        cell = tf.nn.rnn_cell.LSTMCell(4, num_proj=3, num_unit_shards=2, num_proj_shards=2,
                                       initializer=tf.constant_initializer(0.1))
        out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        assert [(v.name, v.shape.as_list()) for v in tf.global_variables()] == [
            ("rnn/lstm_cell/kernel/part_0:0", [3, 16]), ("rnn/lstm_cell/kernel/part_1:0", [3, 16]),
            ("rnn/lstm_cell/bias:0", [16]), ("rnn/lstm_cell/projection/kernel/part_0:0", [2, 3]),
            ("rnn/lstm_cell/projection/kernel/part_1:0", [2, 3])]
        assert len(cell.trainable_weights) == 5  # the parts, as TF 1.x's layers track them
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(out)
    np.testing.assert_allclose(got[:, :, 0], [[0.00309, 0.015936], [0.025144, 0.059011]], atol=1e-6)
    np.testing.assert_allclose(got, np.repeat(got[:, :, :1], 3, axis=2))
