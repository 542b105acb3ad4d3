"""CTC loss (with its gradient), decoders and label helpers against TF 2.15
(compat.v1) figures; the loss gradient also against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.gradcheck import check_gradients
from tests.ops.harness import run

LOGITS = np.round(np.random.RandomState(3).randn(5, 2, 4), 2).astype(np.float32)  # [time, batch, classes]
LABELS = np.array([[1, 2, 2], [0, 1, 0]], np.int32)
LABEL_LENGTH = np.array([3, 2], np.int32)
LOGIT_LENGTH = np.array([5, 4], np.int32)

def sparse_labels(indices, values, dense_shape):
    return tf.SparseTensor(indices, np.asarray(values, np.int32), dense_shape)


SPARSE = dict(indices=[[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], values=[1, 2, 2, 0, 1], dense_shape=[2, 3])

# TF 2.15: tf.nn.ctc_loss_v2(LABELS, LOGITS, LABEL_LENGTH, LOGIT_LENGTH, blank_index=3), its gradient of
# sum(loss * [1, 0.5]) for batch entry 0 (all frames) and 1 (frames 0 and 2).
V2_LOSS = [4.8312054, 3.0808978]
V2_GRAD_B0 = [[6.80387378e-01, -8.05810571e-01, 1.25544772e-01, -1.21513382e-04],
              [2.25521922e-01, -5.01570404e-02, -4.93172854e-02, -1.26047671e-01],
              [1.52369201e-01, 5.60534969e-02, -2.61121690e-01, 5.26989698e-02],
              [1.00668795e-01, 1.37254357e-01, 4.98644531e-01, -7.36567736e-01],
              [2.12747067e-01, 3.91546398e-01, -6.65447474e-01, 6.11540154e-02]]
V2_GRAD_B1 = [[-3.16751748e-01, 1.20823838e-01, 1.58274934e-01, 3.76529582e-02],
              [1.78274587e-02, -2.11405918e-01, 3.25150073e-01, -1.31571591e-01]]


def test_ctc_loss_v2_and_gradient_match_tf():
    lg = tf.constant(LOGITS)
    loss = tf.nn.ctc_loss_v2(LABELS, lg, LABEL_LENGTH, LOGIT_LENGTH, blank_index=3)
    grad = tf.gradients(tf.reduce_sum(loss * [1.0, 0.5]), lg)[0]
    assert loss.shape.as_list() == [2] and loss.dtype == tf.float32
    got_loss, got_grad = run([loss, grad])
    np.testing.assert_allclose(got_loss, V2_LOSS, rtol=1e-6)
    np.testing.assert_allclose(got_grad[:, 0], V2_GRAD_B0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_grad[[0, 2], 1], V2_GRAD_B1, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got_grad[4, 1], 0.0)  # past logit_length


def test_ctc_loss_v2_default_blank_and_batch_major():
    loss = tf.nn.ctc_loss_v2(LABELS + 1, LOGITS, LABEL_LENGTH, LOGIT_LENGTH)  # blank 0
    np.testing.assert_allclose(run(loss), [7.0418735, 2.6531374], rtol=1e-6)
    loss = tf.nn.ctc_loss_v2(LABELS, np.transpose(LOGITS, (1, 0, 2)), LABEL_LENGTH, LOGIT_LENGTH,
                             logits_time_major=False, blank_index=-1)
    np.testing.assert_allclose(run(loss), V2_LOSS, rtol=1e-6)


def test_ctc_loss_v2_gradient_matches_finite_differences():
    x = np.random.default_rng(0).standard_normal((6, 2, 5))
    check_gradients(lambda t: tf.nn.ctc_loss_v2(np.array([[1, 1, 3], [2, 4, 0]], np.int32), t, [3, 2], [6, 5]), x)


V1_CASES = [
    ({}, [4.8312054, 3.0808978], [2.25521937e-01, -5.01570404e-02, -4.93172556e-02, -1.26047850e-01]),
    ({"ctc_merge_repeated": False}, [4.6032653, 3.6917105], [0.22552194, 0.12098418, 0.04007061, -0.38657737]),
    ({"preprocess_collapse_repeated": True}, [3.6566377, 3.0808978],
     [0.22552194, -0.07377084, -0.00514257, -0.14660877]),
]


@pytest.mark.parametrize("kwargs,loss_value,grad_row", V1_CASES, ids=["default", "no_merge", "collapse"])
def test_ctc_loss_v1_with_sparse_labels_matches_tf(kwargs, loss_value, grad_row):
    lg = tf.constant(LOGITS)
    loss = tf.nn.ctc_loss(sparse_labels(**SPARSE), lg, LOGIT_LENGTH, **kwargs)
    assert loss.name == "CTCLoss:0"
    grad = tf.gradients(tf.reduce_sum(loss), lg)[0]
    got_loss, got_grad = run([loss, grad])
    np.testing.assert_allclose(got_loss, loss_value, rtol=1e-6)
    np.testing.assert_allclose(got_grad[1, 0], grad_row, rtol=1e-5, atol=1e-6)


def test_ctc_loss_v1_edge_cases_match_tf():
    labels = sparse_labels([[0, 0], [0, 1], [0, 2], [1, 0]], [1, 1, 1, 0], [2, 3])
    lg = tf.constant(LOGITS)
    loss = tf.nn.ctc_loss(labels, lg, [4, 4])  # [1, 1, 1] cannot fit in 4 frames: inf, gradient the softmax
    grad = tf.gradients(tf.reduce_sum(loss), lg)[0]
    got_loss, got_grad = run([loss, grad])
    np.testing.assert_allclose(got_loss, [np.inf, 3.893303], rtol=1e-6)
    np.testing.assert_allclose(got_grad[1, 0], [0.22552194, 0.14524433, 0.06333369, 0.5659], rtol=1e-5)
    loss = tf.nn.ctc_loss(labels, lg, [2, 4], ignore_longer_outputs_than_inputs=True)
    grad = tf.gradients(tf.reduce_sum(loss), lg)[0]
    got_loss, got_grad = run([loss, grad])
    np.testing.assert_allclose(got_loss, [0.0, 3.893303], rtol=1e-6)
    np.testing.assert_array_equal(got_grad[:, 0], 0.0)
    labels = sparse_labels([[0, 0], [1, 0]], [1, 0], [2, 1])
    loss = tf.nn.ctc_loss(labels, np.transpose(LOGITS, (1, 0, 2)), [5, 3], time_major=False)
    np.testing.assert_allclose(run(loss), [7.642387, 3.5277421], rtol=1e-6)


@pytest.mark.parametrize("values,seq,match", [
    ([1, 1, 1, 0], [2, 4], r"Not enough time for target transition sequence \(required: 3, available: 2\)"),
    ([1, 3, 1, 0], [5, 4], r"Saw a non-null label \(index >= num_classes - 1\) following a null label, batch: 0 "
                           r"num_classes: 4 labels: 1,3,1"),
    ([1, 2, 1, 0], [6, 4], r"sequence_length\(0\) <= 5"),
])
def test_ctc_loss_v1_run_time_errors(values, seq, match):
    labels = sparse_labels([[0, 0], [0, 1], [0, 2], [1, 0]], values, [2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        run(tf.nn.ctc_loss(labels, LOGITS, seq))


def test_ctc_loss_v1_needs_sparse_labels():
    with pytest.raises(TypeError, match="SparseTensor"):
        tf.nn.ctc_loss(LABELS, LOGITS, [4, 4])
    with pytest.raises(ValueError, match="rank 3"):
        tf.nn.ctc_loss_v2(LABELS, LOGITS[0], LABEL_LENGTH, LOGIT_LENGTH)
    with pytest.raises(ValueError, match="`blank_index` must be provided"):
        tf.nn.ctc_loss_v2(sparse_labels(**SPARSE), LOGITS, None, LOGIT_LENGTH)


def dense(decoded):
    """A decoded sequence (a SparseTensor) as a dense array padded with -1."""
    assert isinstance(decoded, tf.SparseTensor)
    value = run(decoded)
    out = np.full(value.dense_shape, -1, np.int64)
    out[tuple(value.indices.T)] = value.values
    return out


@pytest.mark.parametrize("kwargs,expected", [
    ({}, [[0, 2, 1], [2, 1, 2]]),
    ({"merge_repeated": False, "blank_index": 0}, [[3, 2, 2, 1], [2, 1, 2, 3]]),
    ({"blank_index": -1}, [[0, 2, 1], [2, 1, 2]]),
])
def test_greedy_decoder_matches_tf(kwargs, expected):
    (decoded,), neg_sum_logits = tf.nn.ctc_greedy_decoder(LOGITS, LOGIT_LENGTH, **kwargs)
    assert neg_sum_logits.name == "CTCGreedyDecoder:3" and neg_sum_logits.shape.as_list() == [2, 1]
    np.testing.assert_array_equal(dense(decoded), expected)
    np.testing.assert_allclose(run(neg_sum_logits), [[-3.65], [-5.1]], rtol=1e-6)


@pytest.mark.parametrize("fn,kwargs,expected,log_probs", [
    (tf.nn.ctc_beam_search_decoder, {"beam_width": 10, "top_paths": 3},
     [[[0, 2, 1], [1, 2, -1]], [[0, 2, -1], [2, 1, 2]], [[0, 2, 0], [0, 1, 2]]],
     [[-1.8054475, -2.2338521, -2.4441478], [-1.6987343, -2.1483386, -2.33216]]),
    (tf.nn.ctc_beam_search_decoder, {"beam_width": 10, "top_paths": 2, "merge_repeated": False},
     [[[0, 2, 1], [1, 2, -1]], [[0, 2, -1], [2, 1, 2]]], [[-1.8054475, -2.2338521], [-1.6987343, -2.1483386]]),
    (tf.nn.ctc_beam_search_decoder_v2, {"beam_width": 2, "top_paths": 2},
     [[[0, 2, 1], [2, 1, 2]], [[0, 2, -1], [0, 1, 2]]], [[-2.1798248, -2.4711683], [-2.2648056, -2.4648056]]),
])
def test_beam_search_decoder_matches_tf(fn, kwargs, expected, log_probs):
    decoded, log_probabilities = fn(LOGITS, LOGIT_LENGTH, **kwargs)
    assert len(decoded) == kwargs["top_paths"]
    for d, e in zip(decoded, expected):
        np.testing.assert_array_equal(dense(d), e)
    np.testing.assert_allclose(run(log_probabilities), log_probs, rtol=1e-5)


def test_decoder_errors():
    with pytest.raises(ValueError, match="top_paths must be <= beam_width"):
        tf.nn.ctc_beam_search_decoder(LOGITS, LOGIT_LENGTH, beam_width=1, top_paths=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"sequence_length\(0\) <= 5"):
        run(tf.nn.ctc_greedy_decoder(LOGITS, [6, 4])[1])
    with pytest.raises(ValueError, match="rank 3"):
        tf.nn.ctc_greedy_decoder(LOGITS[0], [6, 4])


def test_label_helpers_match_tf():
    collapsed, lengths = tf.nn.collapse_repeated(np.array([[1, 1, 2, 2, 3], [4, 4, 4, 1, 1]], np.int32), [5, 4])
    got = run([collapsed, lengths])
    np.testing.assert_array_equal(got[0], [[1, 2, 3], [4, 1, 0]])
    np.testing.assert_array_equal(got[1], [3, 2])
    assert got[1].dtype == np.int32
    values, idx = tf.nn.ctc_unique_labels(np.array([[3, 1, 3, 2, 0], [4, 4, 4, 1, 1]], np.int32))
    assert values.dtype == tf.int64 and idx.dtype == tf.int32
    got = run([values, idx])
    np.testing.assert_array_equal(got[0], [[3, 1, 2, 0, 0], [4, 1, 0, 0, 0]])
    np.testing.assert_array_equal(got[1], [[0, 1, 0, 2, 3], [0, 0, 0, 1, 1]])


def test_second_derivative_of_ctc_loss_is_refused_as_tf():
    lg = tf.constant(LOGITS)
    loss = tf.nn.ctc_loss_v2(LABELS, lg, LABEL_LENGTH, LOGIT_LENGTH, blank_index=3)
    grad = tf.gradients(tf.reduce_sum(loss), lg)[0]
    with pytest.raises(LookupError, match="no way to take the second  derivative of ctc_loss"):
        tf.gradients(tf.reduce_sum(grad), lg)
