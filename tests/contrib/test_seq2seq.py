"""tf.contrib.seq2seq: TF 1.15's decoders, attention, beam search and loss (names, shapes, numbers)."""

import numpy as np
import pytest

import dflow as tf

s2s = tf.contrib.seq2seq


def names(variables):
    return sorted(v.op.name for v in variables)


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed_dict)


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_training_helper_basic_decoder_matches_dynamic_rnn():
    rs = np.random.RandomState(0)
    x = rs.randn(3, 5, 4).astype(np.float32)
    lengths = np.array([5, 2, 4], np.int32)
    cell = tf.nn.rnn_cell.LSTMCell(6)
    ref, ref_state = tf.nn.dynamic_rnn(cell, tf.constant(x), sequence_length=lengths, dtype=tf.float32)
    helper = s2s.TrainingHelper(tf.constant(x), lengths)
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(3, tf.float32))
    out, state, seq_len = s2s.dynamic_decode(decoder, impute_finished=True)
    assert isinstance(out, s2s.BasicDecoderOutput)
    assert out.rnn_output.shape.as_list() == [3, None, 6] and out.sample_id.shape.as_list() == [3, None]
    assert names(tf.global_variables()) == ["rnn/lstm_cell/bias", "rnn/lstm_cell/kernel"]
    got, want, got_state, want_state, got_len, ids = run(
        [out.rnn_output, ref, state, ref_state, seq_len, out.sample_id])
    assert got.shape == (3, 5, 6)
    np.testing.assert_allclose(got, want, atol=1e-6)
    np.testing.assert_allclose(got_state.h, want_state.h, atol=1e-6)
    np.testing.assert_allclose(got_state.c, want_state.c, atol=1e-6)
    np.testing.assert_array_equal(got_len, lengths)
    np.testing.assert_array_equal(ids[0], got[0].argmax(-1))


def test_time_major_output_and_output_layer_names():
    x = tf.zeros([2, 4, 3])
    cell = tf.nn.rnn_cell.GRUCell(5)
    helper = s2s.TrainingHelper(tf.transpose(x, [1, 0, 2]), [4, 4], time_major=True)
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32), output_layer=tf.layers.Dense(7))
    assert decoder.output_size.rnn_output.as_list() == [7]
    assert decoder.output_dtype == s2s.BasicDecoderOutput(tf.float32, tf.int32)
    out, _, _ = s2s.dynamic_decode(decoder, output_time_major=True)
    assert out.rnn_output.shape.as_list() == [None, 2, 7]
    assert names(tf.global_variables()) == ["decoder/dense/bias", "decoder/dense/kernel",
                                            "decoder/gru_cell/candidate/bias", "decoder/gru_cell/candidate/kernel",
                                            "decoder/gru_cell/gates/bias", "decoder/gru_cell/gates/kernel"]
    assert run(out.rnn_output).shape == (4, 2, 7)
    with pytest.raises(TypeError):
        s2s.BasicDecoder(cell, object(), cell.zero_state(2, tf.float32))


class ScriptedCell(tf.nn.rnn_cell.RNNCell):
    """A cell whose output at step t is the one-hot (times 5) of ``script[:, t]``."""

    def __init__(self, script, vocab):
        super().__init__()
        self._script = tf.constant(script, tf.int32)
        self._vocab = vocab

    @property
    def state_size(self):
        return 1

    @property
    def output_size(self):
        return self._vocab

    def call(self, inputs, state):
        t = tf.cast(tf.reduce_max(state), tf.int32)
        step = tf.minimum(t, self._script.shape.as_list()[1] - 1)
        out = 5.0 * tf.one_hot(self._script[:, step], self._vocab) + 0.0 * tf.reduce_sum(inputs)
        return out, state + 1.0


def test_greedy_decoding_stops_at_end_token_and_maximum_iterations():
    end = 1
    script = np.array([[3, 2, 1, 4, 4, 4], [2, 2, 2, 3, 1, 4]], np.int32)
    emb = np.eye(5, dtype=np.float32)
    cell = ScriptedCell(script, 5)
    helper = s2s.GreedyEmbeddingHelper(tf.constant(emb), tf.fill([2], 0), end)
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32))
    out, _, lengths = s2s.dynamic_decode(decoder)
    ids, lens = run([out.sample_id, lengths])
    np.testing.assert_array_equal(lens, [3, 5])
    assert ids.shape == (2, 5)
    np.testing.assert_array_equal(ids[0, :3], [3, 2, 1])
    np.testing.assert_array_equal(ids[1], [2, 2, 2, 3, 1])
    out2, _, lengths2 = s2s.dynamic_decode(decoder, maximum_iterations=2, impute_finished=True)
    ids2, lens2 = run([out2.sample_id, lengths2])
    np.testing.assert_array_equal(ids2, [[3, 2], [2, 2]])
    np.testing.assert_array_equal(lens2, [2, 2])
    # impute_finished zeroes the outputs of finished entries
    out3, _, _ = s2s.dynamic_decode(decoder, impute_finished=True)
    ids3, logits3 = run([out3.sample_id, out3.rnn_output])
    np.testing.assert_array_equal(ids3[0], [3, 2, 1, 0, 0])
    assert not logits3[0, 3:].any()


def test_sample_embedding_helper_shapes():
    cell = tf.nn.rnn_cell.BasicRNNCell(4)
    helper = s2s.SampleEmbeddingHelper(tf.random_normal([4, 3]), tf.fill([2], 0), 1, softmax_temperature=0.5,
                                       seed=1)
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32), output_layer=tf.layers.Dense(4))
    out, _, lengths = s2s.dynamic_decode(decoder, maximum_iterations=6)
    ids, lens = run([out.sample_id, lengths])
    assert ids.shape[0] == 2 and ids.shape[1] <= 6 and ((ids >= 0) & (ids < 4)).all()
    assert (lens <= 6).all()


def test_bahdanau_alignments_match_numpy():
    rs = np.random.RandomState(1)
    memory = rs.randn(2, 5, 3).astype(np.float32)
    query = rs.randn(2, 4).astype(np.float32)
    lengths = np.array([5, 3], np.int32)
    for normalize in (False, True):
        tf.reset_default_graph()
        mech = s2s.BahdanauAttention(6, tf.constant(memory), memory_sequence_length=lengths, normalize=normalize)
        alignments, next_state = mech(tf.constant(query), state=mech.initial_state(2, tf.float32))
        expected_names = ["bahdanau_attention/attention_v", "bahdanau_attention/query_layer/kernel",
                          "memory_layer/kernel"]
        if normalize:
            expected_names = sorted(expected_names + ["bahdanau_attention/attention_b",
                                                      "bahdanau_attention/attention_g"])
        assert names(tf.global_variables()) == expected_names
        assert alignments.shape.as_list() == [2, 5] and mech.alignments_size == 5
        var = {v.op.name: v for v in tf.global_variables()}
        got, w = run([alignments, var])
        masked = memory * (np.arange(5)[None, :] < lengths[:, None])[..., None]
        keys = masked @ w["memory_layer/kernel"]
        pq = query @ w["bahdanau_attention/query_layer/kernel"]
        v = w["bahdanau_attention/attention_v"]
        if normalize:
            v = w["bahdanau_attention/attention_g"] * v / np.sqrt((v ** 2).sum())
            score = (v * np.tanh(keys + pq[:, None] + w["bahdanau_attention/attention_b"])).sum(-1)
            np.testing.assert_allclose(w["bahdanau_attention/attention_g"], np.sqrt(1 / 6), rtol=1e-6)
        else:
            score = (v * np.tanh(keys + pq[:, None])).sum(-1)
        score[1, 3:] = -np.inf
        np.testing.assert_allclose(got, softmax(score), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got.sum(1), 1.0, rtol=1e-6)
        assert not got[1, 3:].any()


def test_luong_alignments_match_numpy():
    rs = np.random.RandomState(2)
    memory = rs.randn(2, 4, 3).astype(np.float32)
    query = rs.randn(2, 5).astype(np.float32)
    mech = s2s.LuongAttention(5, tf.constant(memory), scale=True)
    alignments, _ = mech(tf.constant(query), state=mech.initial_state(2, tf.float32))
    assert names(tf.global_variables()) == ["luong_attention/attention_g", "memory_layer/kernel"]
    var = {v.op.name: v for v in tf.global_variables()}
    got, w = run([alignments, var])
    assert w["luong_attention/attention_g"] == 1.0
    score = np.einsum("bd,btd->bt", query, memory @ w["memory_layer/kernel"])
    np.testing.assert_allclose(got, softmax(score), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got.sum(1), 1.0, rtol=1e-6)
    h = run(s2s.hardmax(tf.constant([[1.0, 3.0, 2.0], [5.0, 0.0, 1.0]])))
    np.testing.assert_array_equal(h, [[0, 1, 0], [1, 0, 0]])


def test_attention_wrapper_state_names_and_history():
    rs = np.random.RandomState(3)
    memory = tf.constant(rs.randn(2, 6, 5).astype(np.float32))
    x = tf.constant(rs.randn(2, 4, 3).astype(np.float32))
    mech = s2s.BahdanauAttention(7, memory, memory_sequence_length=[6, 4])
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(8), mech, attention_layer_size=9, alignment_history=True)
    assert cell.output_size == 9
    assert cell.state_size.alignments == 6 and cell.state_size.attention == 9
    init = cell.zero_state(2, tf.float32)
    assert isinstance(init, s2s.AttentionWrapperState)
    assert init.attention.shape.as_list() == [2, 9] and init.alignments.shape.as_list() == [2, 6]
    init = init.clone(cell_state=cell._cell.zero_state(2, tf.float32))
    decoder = s2s.BasicDecoder(cell, s2s.TrainingHelper(x, [4, 2]), init, output_layer=tf.layers.Dense(11))
    out, state, _ = s2s.dynamic_decode(decoder)
    assert names(tf.global_variables()) == [
        "decoder/attention_wrapper/attention_layer/kernel", "decoder/attention_wrapper/bahdanau_attention/attention_v",
        "decoder/attention_wrapper/bahdanau_attention/query_layer/kernel",
        "decoder/attention_wrapper/lstm_cell/bias", "decoder/attention_wrapper/lstm_cell/kernel",
        "decoder/dense/bias", "decoder/dense/kernel", "memory_layer/kernel"]
    kernel = [v for v in tf.global_variables() if v.op.name.endswith("lstm_cell/kernel")][0]
    assert kernel.shape.as_list() == [3 + 9 + 8, 32]
    logits, history, alignments, t = run([out.rnn_output, state.alignment_history.stack(), state.alignments,
                                          state.time])
    assert logits.shape == (2, 4, 11) and history.shape == (4, 2, 6) and t == 4
    np.testing.assert_allclose(history.sum(-1), 1.0, rtol=1e-5)
    assert not history[:, 1, 4:].any()
    np.testing.assert_allclose(history[-1], alignments)


def test_attention_wrapper_without_layer_outputs_context():
    memory = tf.constant(np.random.RandomState(4).randn(2, 3, 5).astype(np.float32))
    mech = s2s.LuongAttention(4, memory)
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(4), mech)
    assert cell.output_size == 5
    out, state = cell(tf.ones([2, 2]), cell.zero_state(2, tf.float32))
    context, align, mem = run([out, state.alignments, memory])
    np.testing.assert_allclose(context, np.einsum("bt,btd->bd", align, mem), rtol=1e-5, atol=1e-6)
    cell2 = s2s.AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(4), mech, output_attention=False)
    assert cell2.output_size == 4


def test_gather_tree_hand_worked():
    # [max_time=4, batch=1, beam=3]
    step_ids = np.array([[[1, 2, 3]], [[4, 5, 6]], [[7, 8, 9]], [[-1, -1, -1]]], np.int32)
    parent_ids = np.array([[[0, 0, 0]], [[0, 1, 1]], [[2, 1, 2]], [[-1, -1, -1]]], np.int32)
    got = run(s2s.gather_tree(step_ids, parent_ids, max_sequence_lengths=[3], end_token=10))
    np.testing.assert_array_equal(got[:, 0], [[2, 2, 2], [6, 5, 6], [7, 8, 9], [10, 10, 10]])
    # after a beam's first end token everything is the end token
    step_ids = np.array([[[1, 2]], [[10, 5]], [[7, 8]]], np.int32)
    parent_ids = np.array([[[0, 1]], [[0, 1]], [[0, 1]]], np.int32)
    got = run(s2s.gather_tree(step_ids, parent_ids, max_sequence_lengths=[3], end_token=10))
    np.testing.assert_array_equal(got[:, 0], [[1, 2], [10, 5], [10, 8]])


def test_tile_batch():
    t = tf.constant([[1, 2], [3, 4]])
    tiled = s2s.tile_batch(t, 3)
    assert tiled.shape.as_list() == [6, 2]
    np.testing.assert_array_equal(run(tiled), [[1, 2]] * 3 + [[3, 4]] * 3)
    nested = s2s.tile_batch((t, tf.zeros([2, 3, 4])), 2)
    assert nested[1].shape.as_list() == [4, 3, 4]


def test_beam_search_width_one_equals_greedy():
    rs = np.random.RandomState(5)
    emb = tf.constant(rs.randn(6, 3).astype(np.float32))
    cell = tf.nn.rnn_cell.LSTMCell(8)
    layer = tf.layers.Dense(6)
    start = tf.fill([2], 0)
    greedy = s2s.BasicDecoder(cell, s2s.GreedyEmbeddingHelper(emb, start, 1), cell.zero_state(2, tf.float32),
                              output_layer=layer)
    g_out, _, g_len = s2s.dynamic_decode(greedy, maximum_iterations=7)
    beam = s2s.BeamSearchDecoder(cell, emb, start, 1, s2s.tile_batch(cell.zero_state(2, tf.float32), 1),
                                 beam_width=1, output_layer=layer)
    b_out, b_state, b_len = s2s.dynamic_decode(beam, maximum_iterations=7)
    assert isinstance(b_out, s2s.FinalBeamSearchDecoderOutput)
    assert b_out.predicted_ids.shape.as_list() == [2, None, 1]
    assert len(tf.global_variables()) == 4
    g_ids, g_l, b_ids, b_l, scores = run([g_out.sample_id, g_len, b_out.predicted_ids, b_len,
                                          b_out.beam_search_decoder_output.scores])
    assert b_ids.shape[1] == g_ids.shape[1]
    for b in range(2):
        n = g_l[b]
        np.testing.assert_array_equal(b_ids[b, :n, 0], g_ids[b, :n])
    np.testing.assert_array_equal(b_l[:, 0] if b_l.ndim == 2 else b_l, g_l)


def test_beam_search_with_attention_shapes():
    rs = np.random.RandomState(6)
    batch, beam = 2, 3
    memory = tf.constant(rs.randn(batch, 5, 4).astype(np.float32))
    tiled_memory = s2s.tile_batch(memory, beam)
    mech = s2s.LuongAttention(6, tiled_memory, memory_sequence_length=s2s.tile_batch(tf.constant([5, 3]), beam))
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(6), mech, attention_layer_size=6, alignment_history=True)
    init = cell.zero_state(batch * beam, tf.float32)
    decoder = s2s.BeamSearchDecoder(cell, tf.constant(rs.randn(7, 3).astype(np.float32)), tf.fill([batch], 0), 1,
                                    init, beam_width=beam, output_layer=tf.layers.Dense(7),
                                    length_penalty_weight=0.6, coverage_penalty_weight=0.2)
    out, state, lengths = s2s.dynamic_decode(decoder, maximum_iterations=6)
    assert out.predicted_ids.shape.as_list() == [batch, None, beam]
    ids, scores, lens, hist = run([out.predicted_ids, out.beam_search_decoder_output.scores, lengths,
                                   state.cell_state.alignment_history])
    assert ids.shape[0] == batch and ids.shape[2] == beam and lens.shape == (batch, beam)
    assert (np.diff(scores[:, -1], axis=-1) <= 1e-6).all()  # beams sorted best first
    assert hist.shape[1:] == (batch * beam, 5)


def test_sequence_loss_matches_numpy():
    rs = np.random.RandomState(7)
    logits = rs.randn(3, 4, 5).astype(np.float32)
    targets = rs.randint(0, 5, (3, 4)).astype(np.int32)
    weights = np.array([[1, 1, 1, 1], [1, 1, 0, 0], [0.5, 1, 1, 0]], np.float32)
    logp = np.log(softmax(logits))
    ce = -np.take_along_axis(logp, targets[..., None], -1)[..., 0] * weights
    cases = {
        (True, True, False, False): ce.sum() / weights.sum(),
        (False, True, False, False): ce.sum(0) / weights.sum(0),
        (True, False, False, False): ce.sum(1) / weights.sum(1),
        (False, False, False, False): ce,
        (False, False, True, True): ce.sum() / np.count_nonzero(weights),
        (False, False, True, False): ce.sum(1) / np.count_nonzero(weights, 1),
        (False, False, False, True): ce.sum(0) / np.count_nonzero(weights, 0),
    }
    for (avg_t, avg_b, sum_t, sum_b), want in cases.items():
        loss = s2s.sequence_loss(tf.constant(logits), tf.constant(targets), tf.constant(weights),
                                 average_across_timesteps=avg_t, average_across_batch=avg_b,
                                 sum_over_timesteps=sum_t, sum_over_batch=sum_b)
        np.testing.assert_allclose(run(loss), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError):
        s2s.sequence_loss(tf.constant(logits), tf.constant(targets), tf.constant(weights), sum_over_timesteps=True)


def test_copy_task_loss_falls():
    rs = np.random.RandomState(8)
    vocab, length, batch, units = 6, 4, 16, 24  # 0: start, 1: end, 2..5: data
    src = tf.placeholder(tf.int32, [batch, length])
    tgt_in = tf.placeholder(tf.int32, [batch, length + 1])
    tgt_out = tf.placeholder(tf.int32, [batch, length + 1])
    emb = tf.get_variable("embedding", [vocab, 8])
    enc_out, enc_state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(units), tf.nn.embedding_lookup(emb, src),
                                           dtype=tf.float32, scope="encoder")
    mech = s2s.LuongAttention(units, enc_out)
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(units), mech, attention_layer_size=units)
    init = cell.zero_state(batch, tf.float32).clone(cell_state=enc_state)
    helper = s2s.TrainingHelper(tf.nn.embedding_lookup(emb, tgt_in), tf.fill([batch], length + 1))
    out, _, _ = s2s.dynamic_decode(s2s.BasicDecoder(cell, helper, init, output_layer=tf.layers.Dense(vocab)))
    loss = s2s.sequence_loss(out.rnn_output, tgt_out, tf.ones([batch, length + 1]))
    train = tf.train.AdamOptimizer(0.02).minimize(loss)
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(300):
            data = rs.randint(2, vocab, (batch, length)).astype(np.int32)
            feed = {src: data, tgt_in: np.concatenate([np.zeros((batch, 1), np.int32), data], 1),
                    tgt_out: np.concatenate([data, np.ones((batch, 1), np.int32)], 1)}
            losses.append(sess.run([train, loss], feed)[1])
    assert np.mean(losses[-10:]) < 0.5 * np.mean(losses[:10])


class TableCell(tf.nn.rnn_cell.RNNCell):
    """Logits that depend only on the step: ``table[b, t]`` for every beam of batch entry ``b``."""

    def __init__(self, table, beam):
        super().__init__()
        self._table = table
        self._beam = beam

    @property
    def state_size(self):
        return 1

    @property
    def output_size(self):
        return self._table.shape[-1]

    def call(self, inputs, state):
        batch, steps, vocab = self._table.shape
        t = tf.minimum(tf.cast(tf.reduce_max(state), tf.int32), steps - 1)
        tab = tf.reshape(tf.tile(tf.constant(self._table)[:, None], [1, self._beam, 1, 1]),
                         [batch * self._beam, steps, vocab])
        return tab[:, t] + 0.0 * tf.reduce_sum(inputs), state + 1.0


def test_beam_search_finds_the_best_sequences():
    import itertools

    rs = np.random.RandomState(9)
    steps, vocab, batch, beam = 3, 4, 2, 3
    table = rs.randn(batch, steps, vocab).astype(np.float32)
    table[:, :, 1] = -20.0  # the end token is never worth taking
    cell = TableCell(table, beam)
    decoder = s2s.BeamSearchDecoder(cell, tf.eye(vocab), tf.fill([batch], 0), 1,
                                    cell.zero_state(batch * beam, tf.float32), beam_width=beam)
    out, _, _ = s2s.dynamic_decode(decoder, maximum_iterations=steps)
    ids, scores = run([out.predicted_ids, out.beam_search_decoder_output.scores])
    logp = table - np.log(np.exp(table).sum(-1, keepdims=True))
    for b in range(batch):
        best = sorted(((sum(logp[b, t, w[t]] for t in range(steps)), w)
                       for w in itertools.product(range(vocab), repeat=steps)), reverse=True)[:beam]
        np.testing.assert_array_equal(ids[b].T, [w for _, w in best])
        np.testing.assert_allclose(scores[b, -1], [s for s, _ in best], rtol=1e-5)
