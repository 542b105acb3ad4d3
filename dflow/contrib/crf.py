"""``tf.contrib.crf``: a linear-chain conditional random field, as TF 1.15's.

>>> import dflow as tf
>>> scores = tf.placeholder(tf.float32, [None, 5, 3])
>>> tags = tf.placeholder(tf.int32, [None, 5])
>>> lengths = tf.placeholder(tf.int32, [None])
>>> ll, transitions = tf.contrib.crf.crf_log_likelihood(scores, tags, lengths)
>>> transitions.op.name, transitions.shape.as_list()
('transitions', [3, 3])

``crf_log_likelihood`` creates the variable ``transitions`` (``[num_tags, num_tags]``, in the
current variable scope) when not given one; ``crf_log_norm`` runs the forward algorithm with a
``dynamic_rnn`` of ``CrfForwardRnnCell``; ``crf_decode`` is Viterbi in the graph (two
``dynamic_rnn``: ``CrfDecodeForwardRnnCell`` then ``CrfDecodeBackwardRnnCell``);
``viterbi_decode`` is the same in numpy. A time dimension of 1 takes TF's shortcut (the unary
score alone), chosen statically when the shape is known, else with ``tf.cond``.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.ops.array import array_ops, creation_ops, gather_ops, select_ops, shape_ops, slicing_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.rnn import rnn
from dflow.ops.rnn.rnn_cell_impl import RNNCell
from dflow.ops.state.variable_scope import get_variable


def _smart_cond(inputs, true_fn, false_fn):
    """TF's ``smart_cond(max_seq_len == 1, ...)``: decided statically when the time dimension is known."""
    t = inputs.shape[1] if inputs.shape.ndims is not None else None
    t = getattr(t, "value", t)
    if t is not None:
        return true_fn() if t == 1 else false_fn()
    return control_flow_ops.cond(math_ops.equal(shape_ops.shape(inputs)[1], 1), true_fn, false_fn)


def _masks(sequence_lengths, tag_indices):
    return creation_ops.sequence_mask(sequence_lengths, maxlen=shape_ops.shape(tag_indices)[1],
                                      dtype=dtypes.float32)


def _num_tags(transition_params):
    n = transition_params.shape[0]
    return getattr(n, "value", n)


@tf_export("contrib.crf.crf_sequence_score")
def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params):
    """The unnormalized score of each tag sequence: ``[batch_size]``."""
    inputs = convert_to_tensor(inputs)
    tag_indices = convert_to_tensor(tag_indices)
    sequence_lengths = convert_to_tensor(sequence_lengths)
    transition_params = convert_to_tensor(transition_params)

    def _single_seq_fn():
        batch_size = shape_ops.shape(inputs, out_type=tag_indices.dtype)[0]
        example_inds = shape_ops.reshape(creation_ops.range(batch_size, dtype=tag_indices.dtype), [-1, 1])
        scores = gather_ops.gather_nd(shape_ops.squeeze(inputs, [1]),
                                      array_ops.concat([example_inds, tag_indices], axis=1))
        return select_ops.where(math_ops.less_equal(sequence_lengths, 0), creation_ops.zeros_like(scores), scores)

    def _multi_seq_fn():
        unary_scores = crf_unary_score(tag_indices, sequence_lengths, inputs)
        binary_scores = crf_binary_score(tag_indices, sequence_lengths, transition_params)
        return unary_scores + binary_scores

    return _smart_cond(inputs, _single_seq_fn, _multi_seq_fn)


@tf_export("contrib.crf.crf_log_norm")
def crf_log_norm(inputs, sequence_lengths, transition_params):
    """The log partition function of each sequence (forward algorithm): ``[batch_size]``."""
    inputs = convert_to_tensor(inputs)
    sequence_lengths = convert_to_tensor(sequence_lengths)
    transition_params = convert_to_tensor(transition_params)
    first_input = shape_ops.squeeze(slicing_ops.slice(inputs, [0, 0, 0], [-1, 1, -1]), [1])

    def _single_seq_fn():
        log_norm = reduction_ops.reduce_logsumexp(first_input, [1])
        return select_ops.where(math_ops.less_equal(sequence_lengths, 0), creation_ops.zeros_like(log_norm),
                                log_norm)

    def _multi_seq_fn():
        rest_of_input = slicing_ops.slice(inputs, [0, 1, 0], [-1, -1, -1])
        forward_cell = CrfForwardRnnCell(transition_params)
        lengths_less_one = math_ops.maximum(constant(0, dtype=sequence_lengths.dtype), sequence_lengths - 1)
        _, alphas = rnn.dynamic_rnn(cell=forward_cell, inputs=rest_of_input, sequence_length=lengths_less_one,
                                    initial_state=first_input, dtype=dtypes.float32)
        log_norm = reduction_ops.reduce_logsumexp(alphas, [1])
        return select_ops.where(math_ops.less_equal(sequence_lengths, 0), creation_ops.zeros_like(log_norm),
                                log_norm)

    return _smart_cond(inputs, _single_seq_fn, _multi_seq_fn)


@tf_export("contrib.crf.crf_log_likelihood")
def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    """``(log_likelihood [batch_size], transition_params)``; creates the variable ``transitions``
    (``[num_tags, num_tags]``, default initializer) when ``transition_params`` is None."""
    inputs = convert_to_tensor(inputs)
    num_tags = inputs.shape.as_list()[2]
    if transition_params is None:
        transition_params = get_variable("transitions", [num_tags, num_tags])
    sequence_scores = crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params)
    log_norm = crf_log_norm(inputs, sequence_lengths, transition_params)
    return sequence_scores - log_norm, transition_params


@tf_export("contrib.crf.crf_unary_score")
def crf_unary_score(tag_indices, sequence_lengths, inputs):
    """The sum of the unary potentials of each tag sequence (within its length): ``[batch_size]``."""
    inputs = convert_to_tensor(inputs)
    tag_indices = convert_to_tensor(tag_indices)
    batch_size = shape_ops.shape(inputs)[0]
    max_seq_len = shape_ops.shape(inputs)[1]
    num_tags = shape_ops.shape(inputs)[2]
    flattened_inputs = shape_ops.reshape(inputs, [-1])
    offsets = shape_ops.expand_dims(creation_ops.range(batch_size) * max_seq_len * num_tags, 1)
    offsets += shape_ops.expand_dims(creation_ops.range(max_seq_len) * num_tags, 0)
    if tag_indices.dtype == dtypes.int64:
        offsets = math_ops.cast(offsets, dtypes.int64)
    flattened_tag_indices = shape_ops.reshape(offsets + tag_indices, [-1])
    unary_scores = shape_ops.reshape(gather_ops.gather(flattened_inputs, flattened_tag_indices),
                                     [batch_size, max_seq_len])
    return reduction_ops.reduce_sum(unary_scores * _masks(sequence_lengths, tag_indices), 1)


@tf_export("contrib.crf.crf_binary_score")
def crf_binary_score(tag_indices, sequence_lengths, transition_params):
    """The sum of the transition potentials of each tag sequence (within its length): ``[batch_size]``."""
    tag_indices = convert_to_tensor(tag_indices)
    transition_params = convert_to_tensor(transition_params)
    num_tags = _num_tags(transition_params)
    num_transitions = shape_ops.shape(tag_indices)[1] - 1
    start_tag_indices = slicing_ops.slice(tag_indices, [0, 0], [-1, num_transitions])
    end_tag_indices = slicing_ops.slice(tag_indices, [0, 1], [-1, num_transitions])
    flattened_transition_indices = start_tag_indices * num_tags + end_tag_indices
    flattened_transition_params = shape_ops.reshape(transition_params, [-1])
    binary_scores = gather_ops.gather(flattened_transition_params, flattened_transition_indices)
    truncated_masks = slicing_ops.slice(_masks(sequence_lengths, tag_indices), [0, 1], [-1, -1])
    return reduction_ops.reduce_sum(binary_scores * truncated_masks, 1)


class _CrfCell(RNNCell):
    """A variable-less cell: called directly (no layer scope), as TF's CRF cells override ``__call__``."""

    def __init__(self, transition_params):  # no RNNCell.__init__: no layer name taken, as TF's
        transition_params = convert_to_tensor(transition_params)
        self._transition_params = shape_ops.expand_dims(transition_params, 0)
        self._num_tags = _num_tags(transition_params)

    state_size = property(lambda self: self._num_tags)
    output_size = property(lambda self: self._num_tags)


@tf_export("contrib.crf.CrfForwardRnnCell")
class CrfForwardRnnCell(_CrfCell):
    """The forward algorithm's step: ``alpha' = inputs + logsumexp(alpha[:, :, None] + transitions, 1)``."""

    def __call__(self, inputs, state, scope=None):
        transition_scores = shape_ops.expand_dims(state, 2) + self._transition_params
        new_alphas = inputs + reduction_ops.reduce_logsumexp(transition_scores, [1])
        return new_alphas, new_alphas


@tf_export("contrib.crf.CrfDecodeForwardRnnCell")
class CrfDecodeForwardRnnCell(_CrfCell):
    """Viterbi's forward step: the new scores (state) and the int32 backpointers (output)."""

    def __call__(self, inputs, state, scope=None):
        transition_scores = shape_ops.expand_dims(state, 2) + self._transition_params  # [B, O, O]
        new_state = inputs + reduction_ops.reduce_max(transition_scores, [1])
        backpointers = math_ops.cast(reduction_ops.argmax(transition_scores, 1), dtype=dtypes.int32)
        return backpointers, new_state


@tf_export("contrib.crf.CrfDecodeBackwardRnnCell")
class CrfDecodeBackwardRnnCell(RNNCell):
    """Viterbi's backtracking step: the tag (``[batch, 1]``) the backpointers give for the next tag."""

    def __init__(self, num_tags):
        self._num_tags = num_tags

    state_size = property(lambda self: 1)
    output_size = property(lambda self: 1)

    def __call__(self, inputs, state, scope=None):
        state = shape_ops.squeeze(state, axis=[1])  # [B]
        b_indices = creation_ops.range(shape_ops.shape(inputs)[0])
        indices = array_ops.stack([b_indices, state], axis=1)  # [B, 2]
        new_tags = shape_ops.expand_dims(gather_ops.gather_nd(inputs, indices), axis=-1)  # [B, 1]
        return new_tags, new_tags


@tf_export("contrib.crf.viterbi_decode")
def viterbi_decode(score, transition_params):
    """The best tag sequence of one ``[seq_len, num_tags]`` score matrix, in numpy:
    ``(list of tags, its score)``."""
    score = np.asarray(score)
    transition_params = np.asarray(transition_params)
    trellis = np.zeros_like(score)
    backpointers = np.zeros_like(score, dtype=np.int32)
    trellis[0] = score[0]
    for t in range(1, score.shape[0]):
        v = np.expand_dims(trellis[t - 1], 1) + transition_params
        trellis[t] = score[t] + np.max(v, 0)
        backpointers[t] = np.argmax(v, 0)
    viterbi = [np.argmax(trellis[-1])]
    for bp in reversed(backpointers[1:]):
        viterbi.append(bp[viterbi[-1]])
    viterbi.reverse()
    return viterbi, np.max(trellis[-1])


@tf_export("contrib.crf.crf_decode")
def crf_decode(potentials, transition_params, sequence_length):
    """Viterbi in the graph: ``(decode_tags [batch, max_seq_len] int32, best_score [batch])``."""
    potentials = convert_to_tensor(potentials)
    transition_params = convert_to_tensor(transition_params)
    sequence_length = convert_to_tensor(sequence_length)

    def _single_seq_fn():
        squeezed = shape_ops.squeeze(potentials, [1])
        decode_tags = shape_ops.expand_dims(reduction_ops.argmax(squeezed, axis=1), 1)
        best_score = reduction_ops.reduce_max(squeezed, axis=1)
        return math_ops.cast(decode_tags, dtype=dtypes.int32), best_score

    def _multi_seq_fn():
        num_tags = potentials.shape.as_list()[2]
        crf_fwd_cell = CrfDecodeForwardRnnCell(transition_params)
        initial_state = shape_ops.squeeze(slicing_ops.slice(potentials, [0, 0, 0], [-1, 1, -1]), axis=[1])
        inputs = slicing_ops.slice(potentials, [0, 1, 0], [-1, -1, -1])  # [B, T-1, O]
        lengths_less_one = math_ops.maximum(constant(0, dtype=sequence_length.dtype), sequence_length - 1)
        backpointers, last_score = rnn.dynamic_rnn(crf_fwd_cell, inputs=inputs, sequence_length=lengths_less_one,
                                                   initial_state=initial_state, time_major=False,
                                                   dtype=dtypes.int32)
        backpointers = slicing_ops.reverse_sequence(backpointers, lengths_less_one, seq_axis=1, batch_axis=0)
        crf_bwd_cell = CrfDecodeBackwardRnnCell(num_tags)
        initial_state = math_ops.cast(reduction_ops.argmax(last_score, axis=1), dtype=dtypes.int32)
        initial_state = shape_ops.expand_dims(initial_state, axis=-1)  # [B, 1]
        decode_tags, _ = rnn.dynamic_rnn(crf_bwd_cell, inputs=backpointers, sequence_length=lengths_less_one,
                                         initial_state=initial_state, time_major=False, dtype=dtypes.int32)
        decode_tags = shape_ops.squeeze(decode_tags, axis=[2])  # [B, T - 1]
        decode_tags = array_ops.concat([initial_state, decode_tags], axis=1)  # [B, T]
        decode_tags = slicing_ops.reverse_sequence(decode_tags, sequence_length, seq_axis=1, batch_axis=0)
        best_score = reduction_ops.reduce_max(last_score, axis=1)  # [B]
        return decode_tags, best_score

    return _smart_cond(potentials, _single_seq_fn, _multi_seq_fn)
