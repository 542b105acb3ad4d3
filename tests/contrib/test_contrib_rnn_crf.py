"""tf.contrib.rnn's own cells and tf.contrib.crf: TF 1.15's variable names, checked against numpy."""

import itertools

import numpy as np
import pytest

import dflow as tf

rnn = tf.contrib.rnn
crf = tf.contrib.crf


def names(variables):
    return [v.op.name for v in variables]


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def layer_norm(x, gamma, beta):
    mean = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * gamma + beta


# -- rnn ---------------------------------------------------------------------------------------------


def test_layer_norm_basic_lstm_cell_one_step_matches_numpy():
    rng = np.random.RandomState(0)
    cell = rnn.LayerNormBasicLSTMCell(4, norm_gain=1.5, norm_shift=0.25)
    assert cell.state_size == (4, 4) and cell.output_size == 4
    xv = rng.randn(2, 3).astype(np.float32)
    x = tf.constant(xv)
    c0, h0 = rng.randn(2, 4).astype(np.float32), rng.randn(2, 4).astype(np.float32)
    out, state = cell(x, tf.nn.rnn_cell.LSTMStateTuple(tf.constant(c0), tf.constant(h0)))
    gates = ["input", "transform", "forget", "output", "state"]
    assert names(tf.global_variables()) == ["layer_norm_basic_lstm_cell/kernel"] + [
        f"layer_norm_basic_lstm_cell/{g}/{p}" for g in gates for p in ("gamma", "beta")]
    assert tf.global_variables()[0].shape.as_list() == [7, 16]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kernel = sess.run(tf.global_variables()[0])
        got_h, got_c = sess.run([out, state.c])
    z = np.concatenate([xv, h0], 1) @ kernel
    i, j, f, o = [layer_norm(p, 1.5, 0.25) for p in np.split(z, 4, axis=1)]
    c = c0 * sigmoid(f + 1.0) + sigmoid(i) * np.tanh(j)
    c = layer_norm(c, 1.5, 0.25)
    h = np.tanh(c) * sigmoid(o)
    np.testing.assert_allclose(got_c, c, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_h, h, rtol=1e-4, atol=1e-5)


def test_layer_norm_basic_lstm_cell_without_norm_has_bias():
    cell = rnn.LayerNormBasicLSTMCell(3, layer_norm=False)
    tf.nn.dynamic_rnn(cell, tf.zeros([2, 5, 4]), dtype=tf.float32)
    assert names(tf.global_variables()) == ["rnn/layer_norm_basic_lstm_cell/kernel",
                                            "rnn/layer_norm_basic_lstm_cell/bias"]


def test_lstm_block_cell_names_and_numbers():
    rng = np.random.RandomState(1)
    cell = rnn.LSTMBlockCell(3, forget_bias=0.5, use_peephole=True, cell_clip=0.4)
    x = rng.randn(2, 5, 2).astype(np.float32)
    out, state = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float32)
    assert names(tf.global_variables()) == ["rnn/lstm_cell/kernel", "rnn/lstm_cell/bias", "rnn/lstm_cell/w_i_diag",
                                            "rnn/lstm_cell/w_f_diag", "rnn/lstm_cell/w_o_diag"]
    assert [v.shape.as_list() for v in tf.global_variables()] == [[5, 12], [12], [3], [3], [3]]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w, b, wi, wf, wo = sess.run(tf.global_variables())
        got = sess.run(out)
    c, h = np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32)
    for t in range(5):
        i, j, f, o = np.split(np.concatenate([x[:, t], h], 1) @ w + b, 4, axis=1)
        c = np.clip(np.tanh(j) * sigmoid(i + c * wi) + c * sigmoid(f + c * wf + 0.5), -0.4, 0.4)
        h = np.tanh(c) * sigmoid(o + c * wo)
        np.testing.assert_allclose(got[:, t], h, rtol=1e-4, atol=1e-5)


def test_gru_block_cells_names():
    x = tf.zeros([2, 3, 4])
    tf.nn.dynamic_rnn(rnn.GRUBlockCell(2), x, dtype=tf.float32, scope="v1")
    tf.nn.dynamic_rnn(rnn.GRUBlockCellV2(2), x, dtype=tf.float32, scope="v2")
    assert names(tf.global_variables()) == [
        "v1/gru_cell/w_ru", "v1/gru_cell/b_ru", "v1/gru_cell/w_c", "v1/gru_cell/b_c",
        "v2/gru_cell/gates/kernel", "v2/gru_cell/gates/bias", "v2/gru_cell/candidate/kernel",
        "v2/gru_cell/candidate/bias"]
    with pytest.raises(ValueError, match="Exactly one"):
        rnn.GRUBlockCell()


def test_attention_cell_wrapper_names_and_shapes():
    cell = rnn.AttentionCellWrapper(tf.nn.rnn_cell.LSTMCell(4), attn_length=3, state_is_tuple=True)
    assert cell.output_size == 4 and cell.state_size == ((4, 4), 4, 12)
    out, state = tf.nn.dynamic_rnn(cell, tf.ones([2, 5, 3]), dtype=tf.float32)
    p = "rnn/attention_cell_wrapper/"
    assert names(tf.global_variables()) == [
        p + "kernel", p + "bias", p + "lstm_cell/kernel", p + "lstm_cell/bias", p + "attention/attn_w",
        p + "attention/attn_v", p + "attention/kernel", p + "attention/bias", p + "attn_output_projection/kernel",
        p + "attn_output_projection/bias"]
    assert tf.global_variables()[4].shape.as_list() == [1, 1, 4, 4]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, s = sess.run([out, state])
    assert o.shape == (2, 5, 4) and s[2].shape == (2, 12)
    np.testing.assert_allclose(s[2][:, -4:], o[:, -1])  # the last output is the newest attention state
    with pytest.raises(ValueError, match="attn_length"):
        rnn.AttentionCellWrapper(tf.nn.rnn_cell.LSTMCell(4), attn_length=0)


def test_stack_bidirectional_dynamic_rnn():
    cells = lambda: [tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.GRUCell(2)]  # noqa: E731
    x = tf.placeholder(tf.float32, [None, 4, 5])
    out, states_fw, states_bw = rnn.stack_bidirectional_dynamic_rnn(cells(), cells(), x, dtype=tf.float32,
                                                                    sequence_length=[4, 2])
    assert len(states_fw) == len(states_bw) == 2
    assert "stack_bidirectional_rnn/cell_1/bidirectional_rnn/bw/gru_cell/gates/kernel" in names(
        tf.global_variables())
    assert tf.global_variables()[0].shape.as_list() == [8, 6]
    assert tf.global_variables()[8].shape.as_list() == [8, 4]  # layer 2 reads 3 + 3
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, fw = sess.run([out, states_fw[1]], {x: np.ones((2, 4, 5))})
    assert o.shape == (2, 4, 4)
    np.testing.assert_allclose(o[1, 2:], 0)  # past the sequence length
    np.testing.assert_allclose(o[1, 1, :2], fw[1])
    with pytest.raises(ValueError, match="same depth"):
        rnn.stack_bidirectional_dynamic_rnn(cells(), cells()[:1], x, dtype=tf.float32)


def test_stack_bidirectional_rnn_static():
    inputs = tf.unstack(tf.ones([2, 3, 4]), axis=1)
    out, states_fw, _ = rnn.stack_bidirectional_rnn([tf.nn.rnn_cell.BasicRNNCell(3)],
                                                    [tf.nn.rnn_cell.BasicRNNCell(3)], inputs, dtype=tf.float32)
    assert len(out) == 3 and out[0].shape.as_list() == [2, 6]
    assert names(tf.global_variables())[0] == "stack_bidirectional_rnn/cell_0/fw/basic_rnn_cell/kernel"


# -- crf ---------------------------------------------------------------------------------------------


def brute_force(scores, trans, length):
    """(log Z, best sequence, best score) by enumerating every tag sequence of ``length``."""
    n = scores.shape[1]
    all_scores = {}
    for seq in itertools.product(range(n), repeat=length):
        s = sum(scores[t, seq[t]] for t in range(length)) + sum(trans[seq[t], seq[t + 1]] for t in range(length - 1))
        all_scores[seq] = s
    values = np.array(list(all_scores.values()))
    best = max(all_scores, key=all_scores.get)
    return np.log(np.exp(values).sum()), list(best), all_scores[best]


def test_crf_log_likelihood_matches_enumeration():
    rng = np.random.RandomState(2)
    scores = rng.randn(3, 4, 3).astype(np.float32)
    tags = rng.randint(0, 3, size=(3, 4)).astype(np.int32)
    lengths = np.array([4, 2, 1], np.int32)
    trans = rng.randn(3, 3).astype(np.float32)
    ll, t = crf.crf_log_likelihood(tf.constant(scores), tf.constant(tags), tf.constant(lengths), tf.constant(trans))
    seq_score = crf.crf_sequence_score(scores, tags, lengths, trans)
    log_norm = crf.crf_log_norm(tf.constant(scores), lengths, trans)
    with tf.Session() as sess:
        got_ll, got_score, got_norm = sess.run([ll, seq_score, log_norm])
    for b in range(3):
        n = lengths[b]
        logz, _, _ = brute_force(scores[b], trans, n)
        score = sum(scores[b, i, tags[b, i]] for i in range(n)) + sum(
            trans[tags[b, i], tags[b, i + 1]] for i in range(n - 1))
        np.testing.assert_allclose(got_norm[b], logz, rtol=1e-5)
        np.testing.assert_allclose(got_score[b], score, rtol=1e-5)
        np.testing.assert_allclose(got_ll[b], score - logz, rtol=1e-5, atol=1e-5)


def test_crf_log_likelihood_creates_transitions_and_trains():
    scores = tf.placeholder(tf.float32, [None, None, 4])
    tags = tf.placeholder(tf.int32, [None, None])
    lengths = tf.placeholder(tf.int32, [None])
    with tf.variable_scope("crf"):
        ll, trans = crf.crf_log_likelihood(scores, tags, lengths)
    assert trans.op.name == "crf/transitions" and trans.shape.as_list() == [4, 4]
    assert names(tf.trainable_variables()) == ["crf/transitions"]
    train = tf.train.GradientDescentOptimizer(0.1).minimize(-tf.reduce_mean(ll))
    rng = np.random.RandomState(3)
    feed = {scores: rng.randn(2, 3, 4), tags: [[0, 1, 2], [3, 3, 0]], lengths: [3, 2]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(ll, feed)
        for _ in range(5):
            sess.run(train, feed)
        after = sess.run(ll, feed)
        one = sess.run(ll, {scores: rng.randn(2, 1, 4), tags: [[0], [1]], lengths: [1, 0]})
    assert after.mean() > before.mean()
    assert one[1] == 0 and one[0] < 0  # the time-1 shortcut; a zero length scores 0


def test_unary_and_binary_scores():
    scores = np.arange(12, dtype=np.float32).reshape(1, 4, 3)
    trans = np.arange(9, dtype=np.float32).reshape(3, 3)
    tags = np.array([[2, 0, 1, 1]], np.int64)
    unary = crf.crf_unary_score(tf.constant(tags), tf.constant([3]), tf.constant(scores))
    binary = crf.crf_binary_score(tf.constant(tags), tf.constant([3]), tf.constant(trans))
    with tf.Session() as sess:
        u, b = sess.run([unary, binary])
    assert u[0] == 2 + 3 + 7 and b[0] == trans[2, 0] + trans[0, 1]


def test_crf_decode_matches_viterbi_and_enumeration():
    rng = np.random.RandomState(4)
    scores = rng.randn(4, 5, 3).astype(np.float32)
    trans = rng.randn(3, 3).astype(np.float32)
    lengths = np.array([5, 3, 1, 4], np.int32)
    potentials = tf.placeholder(tf.float32, [None, None, 3])
    tags, best = crf.crf_decode(potentials, tf.constant(trans), tf.constant(lengths))
    with tf.Session() as sess:
        got_tags, got_best = sess.run([tags, best], {potentials: scores})
    assert got_tags.shape == (4, 5) and got_tags.dtype == np.int32
    for b in range(4):
        n = lengths[b]
        seq, score = crf.viterbi_decode(scores[b, :n], trans)
        _, bf_seq, bf_score = brute_force(scores[b], trans, n)
        assert list(seq) == bf_seq == list(got_tags[b, :n])
        np.testing.assert_allclose(score, bf_score, rtol=1e-5)
        np.testing.assert_allclose(got_best[b], bf_score, rtol=1e-5)


def test_crf_decode_single_step_and_cells():
    scores = np.array([[[0.1, 2.0, -1.0]], [[3.0, 0.0, 0.5]]], np.float32)
    tags, best = crf.crf_decode(tf.constant(scores), tf.zeros([3, 3]), tf.constant([1, 1]))
    cell = crf.CrfForwardRnnCell(tf.zeros([3, 3]))
    assert cell.state_size == 3 and cell.output_size == 3
    assert crf.CrfDecodeBackwardRnnCell(3).state_size == 1
    with tf.Session() as sess:
        t, b = sess.run([tags, best])
    assert t.tolist() == [[1], [0]]
    np.testing.assert_allclose(b, [2.0, 3.0])
