"""``tf.contrib.seq2seq.BeamSearchDecoder``, ``tile_batch``, ``gather_tree`` and their output tuples,
as TF 1.15's.

The decoder keeps ``beam_width`` hypotheses per batch entry; its cell runs on ``batch * beam_width``
rows (tile the encoder's outputs and state with ``tile_batch``). At each step every hypothesis's
log-probabilities are added to its running total (a finished hypothesis can only extend with
``end_token``, at no cost), scored (divided by ``((5 + length) / 6) ** length_penalty_weight``,
plus a coverage penalty with ``coverage_penalty_weight``), and the best ``beam_width`` of all
``beam_width * vocab`` candidates kept. At first only beam 0 is live. ``finalize`` follows the
parent pointers back (``gather_tree``) into ``FinalBeamSearchDecoderOutput.predicted_ids``
(``[batch, time, beam_width]`` after ``dynamic_decode``).

``gather_tree`` is TF's kernel written as a backward ``tf.while_loop`` over time.
"""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export
from dflow.contrib.seq2seq.attention_wrapper import AttentionWrapperState
from dflow.contrib.seq2seq.decoder import Decoder, _rnn_output_size
from dflow.framework import dtypes, nest
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import Tensor, control_dependencies, name_scope
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import TensorShape, as_shape, dimension_value
from dflow.layers.base import Layer
from dflow.ops.array import array_ops, creation_ops, gather_ops, select_ops, shape_ops, tiling_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.debugging import check_ops
from dflow.ops.embedding import embedding_ops
from dflow.ops.math import math_ops, reduction_ops, sort_ops, unary_math_ops
from dflow.ops.nn.nn_activations import log_softmax
from dflow.ops.rnn.rnn_cell_impl import assert_like_rnncell
from dflow.ops.state.tensor_array_ops import is_tensor_array

__all__ = ["BeamSearchDecoder", "BeamSearchDecoderOutput", "BeamSearchDecoderState",
           "FinalBeamSearchDecoderOutput", "tile_batch", "gather_tree", "gather_tree_from_array"]


@tf_export("contrib.seq2seq.BeamSearchDecoderState")
class BeamSearchDecoderState(collections.namedtuple(
        "BeamSearchDecoderState", ("cell_state", "log_probs", "finished", "lengths", "accumulated_attention_probs"))):
    pass


@tf_export("contrib.seq2seq.BeamSearchDecoderOutput")
class BeamSearchDecoderOutput(collections.namedtuple("BeamSearchDecoderOutput",
                                                     ("scores", "predicted_ids", "parent_ids"))):
    pass


@tf_export("contrib.seq2seq.FinalBeamSearchDecoderOutput")
class FinalBeamSearchDecoderOutput(collections.namedtuple("FinalBeamDecoderOutput",
                                                          ["predicted_ids", "beam_search_decoder_output"])):
    """``predicted_ids`` (the beams followed back through their parents) and the raw per-step
    ``beam_search_decoder_output``."""


def _tile_batch(t, multiplier):
    t = convert_to_tensor(t, name="t")
    if t.shape.ndims is None or t.shape.ndims < 1:
        raise ValueError("t must have statically known rank")
    shape_t = shape_ops.shape(t)
    tiling = [1] * (t.shape.ndims + 1)
    tiling[1] = multiplier
    static_batch = dimension_value(t.shape[0])
    tiled = tiling_ops.tile(shape_ops.expand_dims(t, 1), tiling)
    tiled = shape_ops.reshape(tiled, array_ops.concat(([shape_t[0] * multiplier], shape_t[1:]), 0))
    tiled.set_shape(TensorShape([None if static_batch is None else static_batch * multiplier])
                    .concatenate(t.shape[1:]))
    return tiled


@tf_export("contrib.seq2seq.tile_batch")
def tile_batch(t, multiplier, name=None):
    """Repeats each batch entry of (each tensor of) ``t`` ``multiplier`` times in a row:
    ``[batch, ...]`` becomes ``[batch * multiplier, ...]``, entries ``b * multiplier + k``."""
    with name_scope(name, "tile_batch"):
        return nest.map_structure(lambda t_: _tile_batch(t_, multiplier), t)


@tf_export("contrib.seq2seq.gather_tree")
def gather_tree(step_ids, parent_ids, max_sequence_lengths, end_token, name=None):
    """Follows ``parent_ids`` back from the last step: ``[max_time, batch, beam]`` full beams.

    For entry ``b``, steps at or past ``max_sequence_lengths[b]`` are ``end_token``; the beam at the
    last step is read as is, each earlier step from the beam its successor came from; once a beam has
    produced ``end_token`` the rest of it is ``end_token``.
    """
    with name_scope(name, "GatherTree"):
        step_ids = convert_to_tensor(step_ids, name="step_ids")
        parent_ids = math_ops.cast(convert_to_tensor(parent_ids, name="parent_ids"), step_ids.dtype)
        max_sequence_lengths = math_ops.cast(convert_to_tensor(max_sequence_lengths), dtypes.int32)
        end_token = math_ops.cast(convert_to_tensor(end_token, name="end_token"), step_ids.dtype)
        shape = shape_ops.shape(step_ids)
        max_time, batch_size, beam_width = shape[0], shape[1], shape[2]
        batch_range = shape_ops.expand_dims(creation_ops.range(batch_size), 1)
        beam_range = math_ops.cast(
            tiling_ops.tile(shape_ops.expand_dims(creation_ops.range(beam_width), 0),
                            array_ops.stack([batch_size, 1])), step_ids.dtype)
        lengths = shape_ops.expand_dims(math_ops.minimum(max_sequence_lengths, max_time), 1)
        step_ids_tb = step_ids  # [time, batch, beam]

        def gather_beams(values, beams):
            """``values[b, beams[b, j]]`` for ``[batch, beam]`` values."""
            bb = tiling_ops.tile(batch_range, array_ops.stack([1, beam_width]))
            idx = array_ops.stack([bb, math_ops.cast(beams, dtypes.int32)], axis=-1)
            return gather_ops.gather_nd(values, idx)

        filler = creation_ops.fill(array_ops.stack([batch_size, beam_width]), end_token)

        def body(t, beams, rows):
            valid = math_ops.less(t, lengths)  # [batch, 1]
            valid = tiling_ops.tile(valid, array_ops.stack([1, beam_width]))
            row = select_ops.where(valid, gather_beams(step_ids_tb[t], beams), filler)
            new_beams = select_ops.where(valid, gather_beams(parent_ids[t], beams), beams)
            rows = array_ops.concat([shape_ops.expand_dims(row, 0), rows], 0)
            return t - 1, new_beams, rows

        rows0 = creation_ops.zeros(array_ops.stack([0, batch_size, beam_width]), dtype=step_ids.dtype)
        _, _, beams = control_flow_ops.while_loop(
            lambda t, *_: t >= 0, body, (max_time - 1, beam_range, rows0),
            shape_invariants=(TensorShape([]), beam_range.shape, TensorShape([None, None, None])))
        # Everything after a beam's first end_token is end_token.
        is_end = math_ops.cast(math_ops.equal(beams, end_token), dtypes.int32)
        seen_end = math_ops.greater(reduction_ops.cumsum(is_end, axis=0, exclusive=True), 0)
        beams = select_ops.where(seen_end, creation_ops.fill(shape, end_token), beams)
        beams.set_shape(step_ids.shape)
        return beams


@tf_export("contrib.seq2seq.gather_tree_from_array")
def gather_tree_from_array(t, parent_ids, sequence_length):
    """Reorders ``t`` (``[max_time, batch * beam_width, ...]``) along the beams' parent pointers."""
    max_time = dimension_value(parent_ids.shape[0]) or shape_ops.shape(parent_ids)[0]
    batch_size = dimension_value(parent_ids.shape[1]) or shape_ops.shape(parent_ids)[1]
    beam_width = dimension_value(parent_ids.shape[2]) or shape_ops.shape(parent_ids)[2]
    beam_ids = shape_ops.expand_dims(shape_ops.expand_dims(creation_ops.range(beam_width), 0), 0)
    beam_ids = tiling_ops.tile(beam_ids, array_ops.stack([max_time, batch_size, 1]))
    max_sequence_lengths = math_ops.cast(reduction_ops.reduce_max(sequence_length, axis=1), dtypes.int32)
    sorted_beam_ids = gather_tree(beam_ids, parent_ids, max_sequence_lengths, beam_width + 1)
    in_bound_steps = shape_ops.transpose(creation_ops.sequence_mask(sequence_length, maxlen=max_time),
                                         perm=[2, 0, 1])
    sorted_beam_ids = select_ops.where(in_bound_steps, sorted_beam_ids, beam_ids)
    time_ind = tiling_ops.tile(shape_ops.reshape(creation_ops.range(max_time), [-1, 1, 1]),
                               array_ops.stack([1, batch_size, beam_width]))
    batch_ind = tiling_ops.tile(shape_ops.reshape(creation_ops.range(batch_size), [-1, 1, 1]),
                                array_ops.stack([1, max_time, beam_width]))
    batch_ind = shape_ops.transpose(batch_ind, perm=[1, 0, 2])
    indices = array_ops.stack([time_ind, batch_ind, sorted_beam_ids], -1)
    final_shape = shape_ops.shape(t)
    gather_from = shape_ops.reshape(t, array_ops.stack([max_time, batch_size, beam_width, -1]))
    ordered = gather_ops.gather_nd(gather_from, indices)
    return shape_ops.reshape(ordered, final_shape)


def _check_maybe(t):
    if t.shape.ndims is None:
        raise ValueError(f"Expected tensor ({t.name}) to have known rank, but ndims == None.")


def _attention_probs_from_attn_state(attention_state):
    probs = attention_state.alignments
    if isinstance(probs, tuple):
        probs = array_ops.concat([shape_ops.expand_dims(p, -1) for p in probs], -1)
        probs = reduction_ops.reduce_mean(probs, -1)
    return probs


def _get_attention_probs(next_cell_state, coverage_penalty_weight):
    if coverage_penalty_weight == 0.0:
        return None
    per_layer = []
    if isinstance(next_cell_state, AttentionWrapperState):
        per_layer = [_attention_probs_from_attn_state(next_cell_state)]
    elif isinstance(next_cell_state, tuple):
        per_layer = [_attention_probs_from_attn_state(s) for s in next_cell_state
                     if isinstance(s, AttentionWrapperState)]
    if not per_layer:
        raise ValueError("coverage_penalty_weight must be 0.0 if no cell is attentional.")
    if len(per_layer) == 1:
        return per_layer[0]
    probs = array_ops.concat([shape_ops.expand_dims(p, -1) for p in per_layer], -1)
    return reduction_ops.reduce_mean(probs, -1)


def _length_penalty(sequence_lengths, penalty_factor):
    penalty_factor = convert_to_tensor(penalty_factor, name="penalty_factor")
    static = constant_value(penalty_factor)
    if static is not None and static == 0:
        return 1.0
    return math_ops.div((5.0 + math_ops.cast(sequence_lengths, dtypes.float32)) ** penalty_factor,
                        (5.0 + 1.0) ** penalty_factor)


def _get_scores(log_probs, sequence_lengths, length_penalty_weight, coverage_penalty_weight, finished,
                accumulated_attention_probs):
    length_penalty = _length_penalty(sequence_lengths, length_penalty_weight)
    scores = log_probs / math_ops.cast(length_penalty, log_probs.dtype)
    if coverage_penalty_weight == 0.0:
        return scores
    if accumulated_attention_probs is None:
        raise ValueError("accumulated_attention_probs can be None only if coverage penalty is disabled.")
    probs = select_ops.where(math_ops.equal(accumulated_attention_probs, 0.0),
                             creation_ops.ones_like(accumulated_attention_probs), accumulated_attention_probs)
    coverage_penalty = reduction_ops.reduce_sum(unary_math_ops.log(math_ops.minimum(probs, 1.0)), 2)
    coverage_penalty *= math_ops.cast(finished, dtypes.float32)
    weighted = shape_ops.expand_dims(coverage_penalty * coverage_penalty_weight, 2)
    return scores + weighted


def _mask_probs(probs, eos_token, finished):
    """Finished beams' rows put all probability (log 0) on ``eos_token``, the lowest float elsewhere."""
    vocab_size = shape_ops.shape(probs)[2]
    finished_row = creation_ops.one_hot(eos_token, vocab_size, dtype=probs.dtype,
                                        on_value=constant(0.0, dtype=probs.dtype),
                                        off_value=constant(probs.dtype.min, dtype=probs.dtype))
    finished_probs = tiling_ops.tile(shape_ops.reshape(finished_row, [1, 1, -1]),
                                     array_ops.concat([shape_ops.shape(finished), [1]], 0))
    finished_mask = tiling_ops.tile(shape_ops.expand_dims(finished, 2), array_ops.stack([1, 1, vocab_size]))
    return select_ops.where(finished_mask, finished_probs, probs)


def _tensor_gather_helper(gather_indices, gather_from, batch_size, range_size, gather_shape, name=None):
    with name_scope(name, "tensor_gather_helper"):
        range_ = shape_ops.expand_dims(creation_ops.range(batch_size) * range_size, 1)
        gather_indices = shape_ops.reshape(gather_indices + range_, [-1])
        output = gather_ops.gather(shape_ops.reshape(gather_from, gather_shape), gather_indices)
        final_shape = shape_ops.shape(gather_from)[:1 + len(gather_shape)]
        static_batch = constant_value(batch_size) if isinstance(batch_size, Tensor) else batch_size
        final_static_shape = TensorShape([None if static_batch is None else int(static_batch)]).concatenate(
            gather_from.shape[1:1 + len(gather_shape)])
        output = shape_ops.reshape(output, final_shape, name="output")
        output.set_shape(final_static_shape)
        return output


def _maybe_tensor_gather_helper(gather_indices, gather_from, batch_size, range_size, gather_shape):
    if is_tensor_array(gather_from):
        return gather_from
    _check_maybe(gather_from)
    if gather_from.shape.ndims >= len(gather_shape):
        return _tensor_gather_helper(gather_indices, gather_from, batch_size, range_size, gather_shape)
    return gather_from


def _beam_search_step(time, logits, next_cell_state, beam_state, batch_size, beam_width, end_token,
                      length_penalty_weight, coverage_penalty_weight):
    static_batch = constant_value(batch_size) if isinstance(batch_size, Tensor) else batch_size
    static_batch = None if static_batch is None else int(static_batch)
    prediction_lengths = beam_state.lengths
    previously_finished = beam_state.finished
    not_finished = math_ops.logical_not(previously_finished)
    step_log_probs = _mask_probs(log_softmax(logits), end_token, previously_finished)
    total_probs = shape_ops.expand_dims(beam_state.log_probs, 2) + step_log_probs
    vocab_size = dimension_value(logits.shape[-1]) or shape_ops.shape(logits)[-1]
    lengths_to_add = creation_ops.one_hot(
        creation_ops.fill(array_ops.stack([batch_size, beam_width]), end_token), depth=vocab_size,
        on_value=np.int64(0), off_value=np.int64(1), dtype=dtypes.int64)
    lengths_to_add *= shape_ops.expand_dims(math_ops.cast(not_finished, dtypes.int64), 2)
    new_prediction_lengths = lengths_to_add + shape_ops.expand_dims(prediction_lengths, 2)
    accumulated_attention_probs = None
    attention_probs = _get_attention_probs(next_cell_state, coverage_penalty_weight)
    if attention_probs is not None:
        attention_probs *= shape_ops.expand_dims(math_ops.cast(not_finished, dtypes.float32), 2)
        accumulated_attention_probs = beam_state.accumulated_attention_probs + attention_probs
    scores = _get_scores(total_probs, new_prediction_lengths, length_penalty_weight, coverage_penalty_weight,
                         previously_finished, accumulated_attention_probs)
    scores_flat = shape_ops.reshape(scores, array_ops.stack([batch_size, -1]))
    next_beam_scores, word_indices = sort_ops.top_k(scores_flat, k=beam_width)
    next_beam_scores.set_shape([static_batch, beam_width])
    word_indices.set_shape([static_batch, beam_width])
    next_beam_probs = _tensor_gather_helper(word_indices, total_probs, batch_size, beam_width * vocab_size, [-1],
                                            name="next_beam_probs")
    next_word_ids = math_ops.cast(math_ops.mod(word_indices, vocab_size, name="next_beam_word_ids"), dtypes.int32)
    next_beam_ids = math_ops.cast(math_ops.floordiv(word_indices, vocab_size), dtypes.int32,
                                  name="next_beam_parent_ids")
    previously_finished = _tensor_gather_helper(next_beam_ids, previously_finished, batch_size, beam_width, [-1])
    next_finished = math_ops.logical_or(previously_finished, math_ops.equal(next_word_ids, end_token),
                                        name="next_beam_finished")
    lengths_to_add = math_ops.cast(math_ops.logical_not(previously_finished), dtypes.int64)
    next_prediction_len = _tensor_gather_helper(next_beam_ids, beam_state.lengths, batch_size, beam_width, [-1])
    next_prediction_len += lengths_to_add
    next_accumulated_attention_probs = ()
    if accumulated_attention_probs is not None:
        next_accumulated_attention_probs = _tensor_gather_helper(
            next_beam_ids, accumulated_attention_probs, batch_size, beam_width,
            [batch_size * beam_width, -1], name="next_accumulated_attention_probs")
    next_cell_state = nest.map_structure(
        lambda gather_from: _maybe_tensor_gather_helper(next_beam_ids, gather_from, batch_size, beam_width,
                                                        [batch_size * beam_width, -1]),
        next_cell_state)
    next_state = BeamSearchDecoderState(cell_state=next_cell_state, log_probs=next_beam_probs,
                                        lengths=next_prediction_len, finished=next_finished,
                                        accumulated_attention_probs=next_accumulated_attention_probs)
    output = BeamSearchDecoderOutput(scores=next_beam_scores, predicted_ids=next_word_ids,
                                     parent_ids=next_beam_ids)
    return output, next_state


@tf_export("contrib.seq2seq.BeamSearchDecoder")
class BeamSearchDecoder(Decoder):
    """Beam search over ``cell`` (run on ``batch * beam_width`` rows; its ``initial_state`` tiled
    with ``tile_batch``), feeding back ``embedding`` of each hypothesis's last id."""

    def __init__(self, cell, embedding, start_tokens, end_token, initial_state, beam_width, output_layer=None,
                 length_penalty_weight=0.0, coverage_penalty_weight=0.0, reorder_tensor_arrays=True):
        assert_like_rnncell("cell", cell)
        if output_layer is not None and not isinstance(output_layer, Layer):
            raise TypeError(f"output_layer must be a Layer, received: {type(output_layer)}")
        self._cell = cell
        self._output_layer = output_layer
        self._reorder_tensor_arrays = reorder_tensor_arrays
        self._embedding_fn = (embedding if callable(embedding)
                              else (lambda ids: embedding_ops.embedding_lookup(embedding, ids)))
        self._start_tokens = convert_to_tensor(start_tokens, dtype=dtypes.int32, name="start_tokens")
        if self._start_tokens.shape.ndims != 1:
            raise ValueError("start_tokens must be a vector")
        self._end_token = convert_to_tensor(end_token, dtype=dtypes.int32, name="end_token")
        if self._end_token.shape.ndims != 0:
            raise ValueError("end_token must be a scalar")
        self._beam_width = beam_width
        self._length_penalty_weight = length_penalty_weight
        self._coverage_penalty_weight = coverage_penalty_weight
        static_batch = dimension_value(self._start_tokens.shape[0])
        self._batch_size = static_batch if static_batch is not None else shape_ops.size(self._start_tokens)
        self._initial_cell_state = nest.map_structure(self._maybe_split_batch_beams, initial_state,
                                                      self._cell.state_size)
        self._start_tokens = tiling_ops.tile(shape_ops.expand_dims(self._start_tokens, 1), [1, self._beam_width])
        self._start_inputs = self._embedding_fn(self._start_tokens)
        self._finished = creation_ops.one_hot(
            creation_ops.zeros(array_ops.stack([self._batch_size]), dtype=dtypes.int32), depth=self._beam_width,
            on_value=False, off_value=True, dtype=dtypes.bool)

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def tracks_own_finished(self) -> bool:
        return True

    @property
    def output_size(self):
        return BeamSearchDecoderOutput(scores=TensorShape([self._beam_width]),
                                       predicted_ids=TensorShape([self._beam_width]),
                                       parent_ids=TensorShape([self._beam_width]))

    @property
    def output_dtype(self):
        dtype = nest.flatten(self._initial_cell_state)[0].dtype
        return BeamSearchDecoderOutput(
            scores=nest.map_structure(lambda _: dtype, _rnn_output_size(self._cell, self._output_layer)),
            predicted_ids=dtypes.int32, parent_ids=dtypes.int32)

    def initialize(self, name=None):
        dtype = nest.flatten(self._initial_cell_state)[0].dtype
        log_probs = creation_ops.one_hot(
            creation_ops.zeros(array_ops.stack([self._batch_size]), dtype=dtypes.int32), depth=self._beam_width,
            on_value=constant(0.0, dtype=dtype), off_value=constant(-np.inf, dtype=dtype), dtype=dtype)
        init_attention_probs = _get_attention_probs(self._initial_cell_state, self._coverage_penalty_weight)
        if init_attention_probs is None:
            init_attention_probs = ()
        initial_state = BeamSearchDecoderState(
            cell_state=self._initial_cell_state, log_probs=log_probs, finished=self._finished,
            lengths=creation_ops.zeros(array_ops.stack([self._batch_size, self._beam_width]), dtype=dtypes.int64),
            accumulated_attention_probs=init_attention_probs)
        return self._finished, self._start_inputs, initial_state

    def finalize(self, outputs, final_state, sequence_lengths):
        """Follows the parent pointers back: ``(FinalBeamSearchDecoderOutput, final_state)``."""
        max_sequence_lengths = math_ops.cast(reduction_ops.reduce_max(final_state.lengths, axis=1), dtypes.int32)
        predicted_ids = gather_tree(outputs.predicted_ids, outputs.parent_ids,
                                    max_sequence_lengths=max_sequence_lengths, end_token=self._end_token)
        if self._reorder_tensor_arrays:
            final_state = final_state._replace(cell_state=nest.map_structure(
                lambda t: self._maybe_sort_array_beams(t, outputs.parent_ids, final_state.lengths),
                final_state.cell_state))
        return FinalBeamSearchDecoderOutput(beam_search_decoder_output=outputs, predicted_ids=predicted_ids), \
            final_state

    def _static_batch(self):
        value = constant_value(self._batch_size) if isinstance(self._batch_size, Tensor) else self._batch_size
        return None if value is None else int(value)

    def _merge_batch_beams(self, t, s=None):
        s = as_shape(constant_value(s)) if isinstance(s, Tensor) else TensorShape(s)
        t_shape = shape_ops.shape(t)
        static_batch = self._static_batch()
        reshaped = shape_ops.reshape(t, array_ops.concat(([self._batch_size * self._beam_width], t_shape[2:]), 0))
        reshaped.set_shape(TensorShape([None if static_batch is None else static_batch * self._beam_width])
                           .concatenate(s))
        return reshaped

    def _split_batch_beams(self, t, s=None):
        s = as_shape(constant_value(s)) if isinstance(s, Tensor) else TensorShape(s)
        t_shape = shape_ops.shape(t)
        reshaped = shape_ops.reshape(t, array_ops.concat(([self._batch_size, self._beam_width], t_shape[1:]), 0))
        expected = TensorShape([self._static_batch(), self._beam_width]).concatenate(s)
        if not reshaped.shape.is_compatible_with(expected):
            raise ValueError(f"Unexpected behavior when reshaping between beam width and batch size. The reshaped "
                             f"tensor has shape: {reshaped.shape}. We expected it to have shape (batch_size, "
                             f"beam_width, depth) == {expected}. Perhaps you forgot to create a zero_state with "
                             f"batch_size=encoder_batch_size * beam_width?")
        reshaped.set_shape(expected)
        return reshaped

    def _maybe_split_batch_beams(self, t, s):
        if is_tensor_array(t):
            return t
        _check_maybe(t)
        return self._split_batch_beams(t, s) if t.shape.ndims >= 1 else t

    def _maybe_merge_batch_beams(self, t, s):
        if is_tensor_array(t):
            return t
        _check_maybe(t)
        return self._merge_batch_beams(t, s) if t.shape.ndims >= 2 else t

    def _maybe_sort_array_beams(self, t, parent_ids, sequence_length):
        if not is_tensor_array(t):
            return t
        shape = t.element_shape
        if shape.ndims is None or shape.ndims < 1:
            return t
        static_batch = self._static_batch()
        first = dimension_value(shape[0])
        if static_batch is not None and first is not None and first != static_batch * self._beam_width:
            return t
        t = t.stack()
        check = check_ops.assert_equal(shape_ops.shape(t)[1], self._batch_size * self._beam_width,
                                       message="TensorArray reordering expects elements to be reshapable to "
                                               "[batch_size, beam_size, -1]")
        with control_dependencies([check]):
            return gather_tree_from_array(t, parent_ids, sequence_length)

    def step(self, time, inputs, state, name=None):
        with name_scope(name, "BeamSearchDecoderStep"):
            inputs = nest.map_structure(lambda inp: self._merge_batch_beams(inp, s=inp.shape[2:]), inputs)
            cell_state = nest.map_structure(self._maybe_merge_batch_beams, state.cell_state, self._cell.state_size)
            cell_outputs, next_cell_state = self._cell(inputs, cell_state)
            cell_outputs = nest.map_structure(lambda out: self._split_batch_beams(out, out.shape[1:]), cell_outputs)
            next_cell_state = nest.map_structure(self._maybe_split_batch_beams, next_cell_state,
                                                 self._cell.state_size)
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            beam_search_output, beam_search_state = _beam_search_step(
                time=time, logits=cell_outputs, next_cell_state=next_cell_state, beam_state=state,
                batch_size=self._batch_size, beam_width=self._beam_width, end_token=self._end_token,
                length_penalty_weight=self._length_penalty_weight,
                coverage_penalty_weight=self._coverage_penalty_weight)
            finished = beam_search_state.finished
            sample_ids = beam_search_output.predicted_ids
            next_inputs = control_flow_ops.cond(reduction_ops.reduce_all(finished), lambda: self._start_inputs,
                                                lambda: self._embedding_fn(sample_ids))
        return beam_search_output, beam_search_state, next_inputs, finished
