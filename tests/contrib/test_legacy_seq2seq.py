"""tf.contrib.legacy_seq2seq against TF 1.15's seq2seq.py logic run on TensorFlow 2.15's compat.v1 (its
GRUCell, BasicLSTMCell, MultiRNNCell, static_rnn and variable scoping): the variable names and shapes and
the outputs and final states, with every variable initialized from the same shape-only formula."""

import numpy as np
import pytest

import dflow as tf
from dflow.framework import nest

s2s = tf.contrib.legacy_seq2seq

ENC = [[3, 6, 5], [6, 6, 0], [1, 0, 4], [6, 3, 0]]
DEC = [[0, 4, 1], [5, 0, 3], [4, 5, 3]]


def _init(shape, dtype=None, partition_info=None):
    n = int(np.prod(shape))
    return tf.constant((np.sin(np.arange(n) * 0.7 + n) * 0.5).reshape(shape).astype(np.float32))


def _run(build):
    with tf.Graph().as_default():
        with tf.variable_scope("", initializer=_init):
            enc = [tf.constant(e, tf.int32) for e in ENC]
            dec = [tf.constant(d, tf.int32) for d in DEC]
            outputs, state = build(enc, dec)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out, st = sess.run([outputs, state])
        names = {v.op.name: v.shape.as_list() for v in tf.global_variables()}
    return names, np.asarray(out), np.concatenate([np.ravel(x) for x in nest.flatten(st)])


def _check(out, state, out_sum, out_abs_sum, state_sum, last):
    np.testing.assert_allclose(out.sum(), out_sum, atol=5e-5)
    np.testing.assert_allclose(np.abs(out).sum(), out_abs_sum, atol=5e-5)
    np.testing.assert_allclose(state.sum(), state_sum, atol=2e-5)
    np.testing.assert_allclose(out[-1, 0], last, atol=2e-6)


EA = "embedding_attention_seq2seq/"
EAD = EA + "embedding_attention_decoder/attention_decoder/"


def test_embedding_attention_seq2seq_gru():
    names, out, state = _run(lambda e, d: s2s.embedding_attention_seq2seq(e, d, tf.nn.rnn_cell.GRUCell(4), 7, 6, 5))
    assert names == {
        EAD + "Attention_0/bias": [4], EAD + "Attention_0/kernel": [4, 4], EAD + "AttnOutputProjection/bias": [6],
        EAD + "AttnOutputProjection/kernel": [10, 6], EAD + "AttnV_0": [4], EAD + "AttnW_0": [1, 1, 4, 4],
        EAD + "bias": [5], EAD + "kernel": [9, 5], EAD + "output_projection_wrapper/bias": [6],
        EAD + "output_projection_wrapper/gru_cell/candidate/bias": [4],
        EAD + "output_projection_wrapper/gru_cell/candidate/kernel": [9, 4],
        EAD + "output_projection_wrapper/gru_cell/gates/bias": [8],
        EAD + "output_projection_wrapper/gru_cell/gates/kernel": [9, 8],
        EAD + "output_projection_wrapper/kernel": [4, 6],
        EA + "embedding_attention_decoder/embedding": [6, 5], EA + "rnn/embedding_wrapper/embedding": [7, 5],
        EA + "rnn/embedding_wrapper/gru_cell/candidate/bias": [4],
        EA + "rnn/embedding_wrapper/gru_cell/candidate/kernel": [9, 4],
        EA + "rnn/embedding_wrapper/gru_cell/gates/bias": [8],
        EA + "rnn/embedding_wrapper/gru_cell/gates/kernel": [9, 8],
    }
    assert out.shape == (3, 3, 6)
    _check(out, state, 0.046049, 0.567421, -0.07796,
           [0.00866399984806776, 0.013489999808371067, 0.011971999891102314, 0.00482300017029047,
            -0.004594000056385994, -0.011850999668240547])


def _lstm2():
    return tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(3), tf.nn.rnn_cell.BasicLSTMCell(3)])


def test_embedding_attention_seq2seq_two_heads_fed_back_with_initial_attention():
    names, out, state = _run(lambda e, d: s2s.embedding_attention_seq2seq(
        e, d, _lstm2(), 7, 6, 5, num_heads=2, feed_previous=True, initial_state_attention=True))
    assert names[EAD + "Attention_1/kernel"] == [12, 3]  # the query: both LSTM states concatenated
    assert names[EAD + "output_projection_wrapper/multi_rnn_cell/cell_1/basic_lstm_cell/kernel"] == [6, 12]
    assert names[EA + "rnn/embedding_wrapper/multi_rnn_cell/cell_0/basic_lstm_cell/kernel"] == [8, 12]
    assert len(names) == 24
    _check(out, state, 0.005946, 0.11418, 0.105149,
           [-0.00254400004632771, -0.00027600000612437725, 0.0021210000850260258, 0.0035210000351071358,
            0.0032649999484419823, 0.0014730000402778387])


def test_embedding_rnn_seq2seq_fed_back():
    names, out, state = _run(lambda e, d: s2s.embedding_rnn_seq2seq(e, d, tf.nn.rnn_cell.GRUCell(4), 7, 6, 5,
                                                                    feed_previous=True))
    er = "embedding_rnn_seq2seq/"
    assert sorted(names) == sorted([
        er + "embedding_rnn_decoder/embedding", er + "embedding_rnn_decoder/rnn_decoder/output_projection_wrapper/bias",
        er + "embedding_rnn_decoder/rnn_decoder/output_projection_wrapper/gru_cell/candidate/bias",
        er + "embedding_rnn_decoder/rnn_decoder/output_projection_wrapper/gru_cell/candidate/kernel",
        er + "embedding_rnn_decoder/rnn_decoder/output_projection_wrapper/gru_cell/gates/bias",
        er + "embedding_rnn_decoder/rnn_decoder/output_projection_wrapper/gru_cell/gates/kernel",
        er + "embedding_rnn_decoder/rnn_decoder/output_projection_wrapper/kernel",
        er + "rnn/embedding_wrapper/embedding",
        er + "rnn/embedding_wrapper/gru_cell/candidate/bias", er + "rnn/embedding_wrapper/gru_cell/candidate/kernel",
        er + "rnn/embedding_wrapper/gru_cell/gates/bias", er + "rnn/embedding_wrapper/gru_cell/gates/kernel"])
    _check(out, state, -0.692369, 0.939051, -0.384602,
           [-0.004623000044375658, -0.01883300021290779, -0.02418600022792816, -0.018163999542593956,
            -0.0035989999305456877, 0.012659000232815742])


def test_basic_and_tied_rnn_seq2seq():
    def basic(e, d):
        return s2s.basic_rnn_seq2seq([tf.one_hot(x, 7) for x in e], [tf.one_hot(x, 7) for x in d],
                                     tf.nn.rnn_cell.BasicRNNCell(3))

    names, out, state = _run(basic)
    assert names == {"basic_rnn_seq2seq/rnn/basic_rnn_cell/bias": [3],
                     "basic_rnn_seq2seq/rnn/basic_rnn_cell/kernel": [10, 3],
                     "basic_rnn_seq2seq/rnn_decoder/basic_rnn_cell/bias": [3],
                     "basic_rnn_seq2seq/rnn_decoder/basic_rnn_cell/kernel": [10, 3]}
    _check(out, state, -2.936313, 9.004267, -0.375757, [0.4336000084877014, 0.5794219970703125, 0.4987980127334595])

    def tied(e, d):
        return s2s.tied_rnn_seq2seq([tf.one_hot(x, 7) for x in e], [tf.one_hot(x, 7) for x in d],
                                    tf.nn.rnn_cell.GRUCell(7))

    names, out, state = _run(tied)
    assert sorted(names) == ["combined_tied_rnn_seq2seq/tied_rnn_seq2seq/gru_cell/candidate/bias",
                             "combined_tied_rnn_seq2seq/tied_rnn_seq2seq/gru_cell/candidate/kernel",
                             "combined_tied_rnn_seq2seq/tied_rnn_seq2seq/gru_cell/gates/bias",
                             "combined_tied_rnn_seq2seq/tied_rnn_seq2seq/gru_cell/gates/kernel"]
    _check(out, state, 0.44357, 8.263796, 0.544327,
           [-0.11370699852705002, -0.18525299429893494, -0.18577000498771667, -0.08224199712276459,
            0.08770900219678879, 0.21553899347782135, 0.23490400612354279])


def test_feed_previous_tensor_chooses_between_the_two_decoders():
    def build(feed):
        def fn(e, d):
            return s2s.embedding_attention_seq2seq(e, d, tf.nn.rnn_cell.GRUCell(4), 7, 6, 5, feed_previous=feed)
        return fn

    names_true, out_true, _ = _run(build(True))
    names_false, out_false, _ = _run(build(False))
    names_t, out_t, _ = _run(lambda e, d: build(tf.constant(True))(e, d))
    names_f, out_f, _ = _run(lambda e, d: build(tf.placeholder_with_default(False, []))(e, d))
    assert names_t == names_true == names_f
    np.testing.assert_allclose(out_t, out_true, atol=1e-6)
    np.testing.assert_allclose(out_f, out_false, atol=1e-6)
    assert not np.allclose(out_true, out_false)


LOGITS = [[[-0.40854617953300476, 0.2775857746601105, -0.2998744249343872, -0.23290979862213135, 0.06593649089336395],
           [1.0524729490280151, 1.7515358924865723, -0.05940404161810875, 0.37486541271209717, 0.3670661449432373],
           [-0.8591906428337097, 0.12870950996875763, -0.0076256864704191685, 0.16736918687820435,
            0.8777327537536621]],
          [[0.47267961502075195, 1.1025280952453613, 2.026205539703369, 1.4420605897903442, -0.9957414269447327],
           [-1.0704768896102905, 0.5956440567970276, 0.6658080816268921, 1.736303687095642, -0.6861600279808044],
           [0.12560850381851196, -0.5061619877815247, -1.0308748483657837, -1.2435849905014038,
            0.44390735030174255]]]


def test_sequence_loss():
    with tf.Graph().as_default(), tf.Session() as sess:
        logits = [tf.constant(np.array(x, np.float32)) for x in LOGITS]
        targets = [tf.constant([0, 4, 2]), tf.constant([1, 1, 3])]
        weights = [tf.constant([1.0, 1.0, 0.0]), tf.constant([1.0, 0.5, 1.0])]
        loss = s2s.sequence_loss(logits, targets, weights)
        assert loss.op.name.startswith("sequence_loss/")
        by_example = s2s.sequence_loss_by_example(logits, targets, weights, average_across_timesteps=False)
        summed = s2s.sequence_loss(logits, targets, weights, average_across_batch=False)
        got, per_example, total = sess.run([loss, by_example, summed])
    np.testing.assert_allclose(got, 2.1519332, rtol=1e-6)
    np.testing.assert_allclose(total, 3 * 2.1519332, rtol=1e-6)
    assert per_example.shape == (3,)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="Lengths of logits, weights, and targets"):
        s2s.sequence_loss([tf.zeros([3, 5])] * 2, [tf.zeros([3], tf.int32)], [tf.ones([3])] * 2)


def test_model_with_buckets_shares_variables_and_trains():
    buckets = [(2, 2), (4, 3)]
    with tf.Graph().as_default():
        enc = [tf.constant(e, tf.int32) for e in ENC]
        dec = [tf.constant(d, tf.int32) for d in DEC]
        targets = dec[1:] + [tf.constant([0, 0, 0])]
        weights = [tf.ones([3]) for _ in DEC]

        def seq2seq(e, d):  # a new cell per bucket, as TF 1.x needs (it deep-copies the cell)
            return s2s.embedding_attention_seq2seq(e, d, tf.nn.rnn_cell.GRUCell(4), 7, 6, 5)

        outputs, losses = s2s.model_with_buckets(enc, dec, targets, weights, buckets, seq2seq)
        assert [len(o) for o in outputs] == [2, 3] and len(losses) == 2
        assert len(tf.trainable_variables()) == 20  # the second bucket reuses the first one's
        train_op = tf.train.GradientDescentOptimizer(0.5).minimize(losses[1])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            before = sess.run(losses[1])
            for _ in range(5):
                sess.run(train_op)
            assert sess.run(losses[1]) < before
        with pytest.raises(ValueError, match="Length of the encoder inputs"):
            s2s.model_with_buckets(enc[:3], dec, targets, weights, buckets, seq2seq)
        shared = tf.nn.rnn_cell.GRUCell(4)
        with tf.variable_scope("again"), pytest.raises(TypeError, match="create a new cell for each call"):
            s2s.model_with_buckets(enc, dec, targets, weights, buckets,
                                   lambda e, d: s2s.embedding_attention_seq2seq(e, d, shared, 7, 6, 5))


def test_wrappers_are_contrib_rnn_names():
    assert tf.contrib.rnn.OutputProjectionWrapper is s2s.embedding_rnn_seq2seq.__globals__["OutputProjectionWrapper"]
    with pytest.raises(ValueError, match="output_size must be > 0"):
        tf.contrib.rnn.OutputProjectionWrapper(tf.nn.rnn_cell.GRUCell(2), 0)
    with pytest.raises(ValueError, match="greater than zero"):
        tf.contrib.rnn.EmbeddingWrapper(tf.nn.rnn_cell.GRUCell(2), 0, 3)
