# ruff: noqa: E501 - reference figures are one literal per line
"""Candidate samplers and sampled losses against TensorFlow 2.15's compat.v1.

The draws are not TF's, but the expected counts of the true classes are
(``unique=False``), and with fixed ``sampled_values`` nce_loss and
sampled_softmax_loss, and their gradients, give TF's figures (scripts in
/tmp/ref/sparse/).
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf

TC = np.array([[1, 5], [3, 2], [0, 9]], np.int64)


def sampler_cases(tf):
    """true_expected_count of samplers whose counts do not depend on the draws (unique=False)."""
    c = {}
    c["uniform"] = lambda: tf.nn.uniform_candidate_sampler(TC, 2, 4, False, 10, seed=1)
    c["log_uniform"] = lambda: tf.nn.log_uniform_candidate_sampler(TC, 2, 5, False, 10, seed=1)
    c["learned"] = lambda: tf.nn.learned_unigram_candidate_sampler(TC, 2, 4, False, 10, seed=1)
    c["fixed"] = lambda: tf.nn.fixed_unigram_candidate_sampler(TC, 2, 6, False, 10, unigrams=[1., 2, 3, 4, 5, 6, 7, 8, 9, 10], distortion=0.75, seed=1)
    c["fixed_reserved"] = lambda: tf.nn.fixed_unigram_candidate_sampler(TC, 2, 3, False, 10, unigrams=[5., 1, 4, 2, 3, 7, 1], num_reserved_ids=3, seed=1)
    c["fixed_shard"] = lambda: tf.nn.fixed_unigram_candidate_sampler(TC // 2, 2, 3, False, 5, unigrams=[5., 1, 4, 2, 3, 7, 1, 2, 2, 1], num_shards=2, shard=1, seed=1)
    c["all"] = lambda: tf.nn.all_candidate_sampler(TC, 2, 10, True)
    return c


def loss_cases(tf):
    rng = np.random.RandomState(0)
    W = rng.randn(7, 3).astype(np.float32)
    b = rng.randn(7).astype(np.float32)
    x = rng.randn(3, 3).astype(np.float32)
    labels = np.array([[1], [4], [6]], np.int64)
    labels2 = np.array([[1, 2], [4, 0], [6, 6]], np.int64)
    sv = lambda: (tf.constant([4, 0, 2, 6], tf.int64), tf.constant([[0.3], [0.7], [0.2]]), tf.constant([0.7, 0.5, 0.25, 0.2]))
    sv2 = lambda: (tf.constant([4, 0, 2, 6], tf.int64), tf.constant([[0.3, 0.1], [0.7, 0.5], [0.2, 0.2]]), tf.constant([0.7, 0.5, 0.25, 0.2]))
    shards = lambda: [tf.constant(W[0:3]), tf.constant(W[3:5]), tf.constant(W[5:7])]
    c = {}
    c["nce"] = lambda: tf.nn.nce_loss(tf.constant(W), tf.constant(b), labels, tf.constant(x), 4, 7, sampled_values=sv())
    c["nce_hits"] = lambda: tf.nn.nce_loss(tf.constant(W), tf.constant(b), labels, tf.constant(x), 4, 7, sampled_values=sv(), remove_accidental_hits=True)
    c["nce_true2_div"] = lambda: tf.nn.nce_loss(shards(), tf.constant(b), labels2, tf.constant(x), 4, 7, num_true=2, sampled_values=sv2(), partition_strategy="div")
    c["softmax"] = lambda: tf.nn.sampled_softmax_loss(tf.constant(W), tf.constant(b), labels, tf.constant(x), 4, 7, sampled_values=sv())
    c["softmax_keep_hits"] = lambda: tf.nn.sampled_softmax_loss(tf.constant(W), tf.constant(b), labels, tf.constant(x), 4, 7, sampled_values=sv(), remove_accidental_hits=False)
    c["softmax_true2_mod"] = lambda: tf.nn.sampled_softmax_loss(shards(), tf.constant(b), labels2, tf.constant(x), 4, 7, num_true=2, sampled_values=sv2())
    return c, (W, b, x, labels)


def loss_grads(tf):
    """Gradients of the NCE and sampled-softmax losses (weighted sum) w.r.t. weights, biases, inputs."""
    c, (W, b, x, labels) = loss_cases(tf)
    out = {}
    for name, fn in (("nce", tf.nn.nce_loss), ("softmax", tf.nn.sampled_softmax_loss)):
        def build(fn=fn):
            sv = (tf.constant([4, 0, 2, 6], tf.int64), tf.constant([[0.3], [0.7], [0.2]]), tf.constant([0.7, 0.5, 0.25, 0.2]))
            w, bb, xx = tf.constant(W), tf.constant(b), tf.constant(x)
            loss = fn(w, bb, labels, xx, 4, 7, sampled_values=sv)
            gs = tf.gradients(tf.reduce_sum(loss * [1., 2., 3.]), [w, bb, xx])
            return [tf.convert_to_tensor(g) for g in gs]
        out[name] = build
    return out


TRUE_COUNTS = {
    'uniform': np.array([[0.4, 0.4], [0.4, 0.4], [0.4, 0.4]], 'float32'),
    'log_uniform': np.array([[0.8454604 , 0.32142913], [0.46529043, 0.5998637 ], [1.4453242 , 0.19873716]], 'float32'),
    'learned': np.array([[0.4, 0.4], [0.4, 0.4], [0.4, 0.4]], 'float32'),
    'fixed': np.array([[0.28957322, 0.66008425], [0.48700216, 0.39248845], [0.17218126, 0.96824646]], 'float32'),
    'fixed_reserved': np.array([[0.        , 0.5217391 ], [0.6521739 , 0.        ], [0.        , 0.13043478]], 'float32'),
    'fixed_shard': np.array([[0.23076925, 1.6153847 ], [0.4615385 , 0.4615385 ], [0.23076925, 0.23076925]], 'float32'),
    'all': np.array([[1., 1.], [1., 1.], [1., 1.]], 'float32'),
}
LOSSES = {
    'nce': np.array([ 8.4959135, 11.597624 ,  5.5009403], 'float32'),
    'nce_hits': np.array([ 8.4959135, 11.444237 ,  5.369298 ], 'float32'),
    'nce_true2_div': np.array([13.9932995, 11.401984 ,  5.632583 ], 'float32'),
    'softmax': np.array([0.03869108, 9.156     , 4.175445  ], 'float32'),
    'softmax_keep_hits': np.array([0.03869108, 9.156105  , 4.1906967 ], 'float32'),
    'softmax_true2_mod': np.array([1.7433726, 3.352779 , 1.741811 ], 'float32'),
}
LOSS_GRADS = {
    'nce': [np.array([[ 9.2640662e-01,  1.1061000e+00,  1.6992595e+00], [-4.6703621e-04, -4.4771208e-04, -4.7212317e-05], [ 1.3620398e+00,  1.1758517e-01, -1.0114313e+00], [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00], [ 2.1222770e-02,  2.2662082e+00,  4.0708761e+00], [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00], [ 2.4043810e+00, -1.3011700e+00, -6.6522627e+00]], 'float32'), np.array([ 4.4949369e+00, -3.0469894e-04,  4.0731764e+00,  0.0000000e+00,  7.9019547e-02,  0.0000000e+00,  3.0135870e-01], 'float32'), np.array([[ 3.1874967 , -0.14481412, -0.29783586], [ 2.5617425 , -1.7767664 , -5.0590796 ], [ 6.2037416 ,  2.855414  ,  8.601858  ]], 'float32')],
    'softmax': [np.array([[-7.8770810e-01,  4.2945096e-01,  2.9816046e+00], [-5.8172230e-02, -5.5765290e-02, -5.8805840e-03], [-1.2944132e-01,  5.8743209e-02,  4.6511656e-01], [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00], [-8.0698955e-01,  1.7990565e+00,  4.1428604e+00], [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00], [ 1.7823113e+00, -2.2314851e+00, -7.5837011e+00]], 'float32'), np.array([ 2.4568503 , -0.03795213,  0.39242962,  0.        , -1.8517603 ,  0.        , -0.95956767], 'float32'), np.array([[-0.02058388, -0.05731687,  0.07064602], [-0.8913427 , -1.9467015 , -5.977729  ], [ 3.8240664 ,  3.4511197 ,  9.936117  ]], 'float32')],
}
LEARNED_RUNS = [np.array([[0.4, 0.4], [0.4, 0.4], [0.4, 0.4]], 'float32'), np.array([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]], 'float32'), np.array([[0.54545456, 0.54545456], [0.54545456, 0.54545456], [0.54545456, 0.54545456]], 'float32')]


def _close(got, want):
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
        return
    assert np.shape(got) == want.shape and np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(TRUE_COUNTS))
def test_true_expected_counts_match_tf(name):
    with tf.Graph().as_default(), tf.Session() as sess:
        result = sampler_cases(tf)[name]()
        assert [t.shape.as_list() for t in result] == [[result.sampled_candidates.shape[0]], [3, 2],
                                                       [result.sampled_candidates.shape[0]]]
        sampled, true_count, sampled_count = sess.run(result)
    _close(true_count, TRUE_COUNTS[name])
    assert sampled.dtype == np.int64 and sampled_count.dtype == np.float32
    assert np.all((sampled >= 0) & (sampled < 10))


def test_learned_unigram_counts_true_classes_after_each_run():
    with tf.Graph().as_default(), tf.Session() as sess:
        r = tf.nn.learned_unigram_candidate_sampler(tf.constant(TC), 2, 4, False, 10, seed=1)
        _close([sess.run(r.true_expected_count) for _ in range(3)], LEARNED_RUNS)


@pytest.mark.parametrize("sampler", ["uniform", "log_uniform"])
def test_unique_samples_are_distinct_and_counts_follow_num_tries(sampler):
    fn = {"uniform": tf.nn.uniform_candidate_sampler, "log_uniform": tf.nn.log_uniform_candidate_sampler}[sampler]
    with tf.Graph().as_default(), tf.Session() as sess:
        sampled, true_count, sampled_count = sess.run(fn(TC, 2, 6, True, 8, seed=7))
    assert len(set(sampled.tolist())) == 6
    def p(ids):
        ids = np.asarray(ids, np.float64)
        return np.full(ids.shape, 1 / 8) if sampler == "uniform" else np.log((ids + 2) / (ids + 1)) / np.log(9)
    # one number of tries explains every count: 1 - (1 - p)^tries
    tries = np.log1p(-sampled_count.astype(np.float64)) / np.log1p(-p(sampled))
    assert np.allclose(tries, np.round(tries[0]), atol=1e-3) and tries[0] >= 6 - 1e-3
    np.testing.assert_allclose(true_count, -np.expm1(np.round(tries[0]) * np.log1p(-p(TC))), rtol=1e-5)


def test_samplers_are_seeded_as_random_ops():
    def draw():
        with tf.Graph().as_default():
            tf.set_random_seed(3)
            r = tf.nn.uniform_candidate_sampler(TC, 2, 5, False, 100)
            with tf.Session() as sess:
                return sess.run(r.sampled_candidates).tolist(), sess.run(r.sampled_candidates).tolist()
    first, second = draw()
    assert draw() == (first, second) and first != second


def test_fixed_unigram_reads_a_vocab_file(tmp_path):
    vocab = tmp_path / "vocab.csv"
    vocab.write_text("".join(f"w{i},{c}\n" for i, c in enumerate([1., 2, 3, 4, 5, 6, 7, 8, 9, 10])))
    with tf.Graph().as_default(), tf.Session() as sess:
        r = tf.nn.fixed_unigram_candidate_sampler(TC, 2, 6, False, 10, vocab_file=str(vocab), distortion=0.75)
        _close(sess.run(r.true_expected_count), TRUE_COUNTS["fixed"])
        bad = tf.nn.fixed_unigram_candidate_sampler(TC, 2, 6, False, 12, unigrams=[1., 2.])
        with pytest.raises(tf.errors.InvalidArgumentError, match="range_max"):
            sess.run(bad.sampled_candidates)


def test_compute_accidental_hits_matches_tf():
    with tf.Graph().as_default(), tf.Session() as sess:
        hits = tf.nn.compute_accidental_hits(tf.constant([[1, 5], [3, 2]], tf.int64),
                                             tf.constant([5, 2, 5, 0], tf.int64), 2)
        assert hits.indices.op.type == "ComputeAccidentalHits"
        indices, ids, weights = sess.run(hits)
    assert indices.tolist() == [0, 1] and ids.tolist() == [2, 1]
    assert indices.dtype == np.int32 and weights.tolist() == [-3.4028234663852886e+38] * 2


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_sampled_losses_match_tf(name):
    with tf.Graph().as_default(), tf.Session() as sess:
        loss = loss_cases(tf)[0][name]()
        assert loss.shape.as_list() == [3]
        _close(sess.run(loss), LOSSES[name])


@pytest.mark.parametrize("name", sorted(LOSS_GRADS))
def test_sampled_loss_gradients_match_tf(name):
    with tf.Graph().as_default(), tf.Session() as sess:
        _close(sess.run(loss_grads(tf)[name]()), LOSS_GRADS[name])


def test_sampled_softmax_trains_with_its_own_sampler():
    rng = np.random.RandomState(1)
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.set_random_seed(0)
        w = tf.Variable(rng.randn(50, 4).astype(np.float32) * 0.1)
        b = tf.Variable(np.zeros(50, np.float32))
        x = tf.constant(rng.randn(8, 4).astype(np.float32))
        labels = tf.constant(rng.randint(0, 50, (8, 1)))
        loss = tf.reduce_mean(tf.nn.sampled_softmax_loss(w, b, labels, x, 10, 50))
        nce = tf.reduce_mean(tf.nn.nce_loss(w, b, labels, x, 10, 50))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss + nce)
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss + nce)
        for _ in range(30):
            sess.run(train)
        assert sess.run(loss + nce) < first
