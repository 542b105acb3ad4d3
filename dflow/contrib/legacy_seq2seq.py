"""``tf.contrib.legacy_seq2seq``: TF 1.15's static (Python-list) sequence-to-sequence models, with its
variable scopes and names, so that checkpoints of programs such as the TF1 translate tutorial restore.

Inputs are Python lists with one ``[batch, ...]`` tensor per time step.

* ``rnn_decoder`` (scope ``rnn_decoder``), ``basic_rnn_seq2seq`` (``basic_rnn_seq2seq/rnn`` encodes,
  ``basic_rnn_seq2seq/rnn_decoder`` decodes with a copy of the cell), ``tied_rnn_seq2seq`` (one cell
  for both, ``combined_tied_rnn_seq2seq/tied_rnn_seq2seq``);
* ``embedding_rnn_decoder`` (``embedding``), ``embedding_rnn_seq2seq`` and ``embedding_tied_rnn_seq2seq``:
  symbol ids embedded (``rnn/embedding_wrapper/embedding`` on the encoder side), the decoder's outputs
  projected to the symbols (``output_projection_wrapper/kernel``, ``bias``) unless
  ``output_projection=(W, B)`` is given; ``feed_previous`` (a bool, or a boolean tensor choosing between
  the two decoders with ``tf.cond``) feeds the argmax of each output back as the next input;
* ``attention_decoder`` (``AttnW_i``, ``AttnV_i``, ``Attention_i/kernel``, ``kernel``/``bias`` for the
  input merge, ``AttnOutputProjection/kernel``), ``embedding_attention_decoder``,
  ``embedding_attention_seq2seq`` and ``one2many_rnn_seq2seq``;
* ``sequence_loss_by_example``, ``sequence_loss`` (the weighted, per-step sparse softmax cross-entropy,
  averaged over the weights and the batch) and ``model_with_buckets`` (one model per bucket, sharing
  variables, with their losses).

The cell wrappers these build on, ``EmbeddingWrapper``, ``InputProjectionWrapper`` and
``OutputProjectionWrapper``, are ``tf.contrib.rnn``'s (exported there).
"""

from __future__ import annotations

import copy
import math

from dflow._api import tf_export
from dflow.contrib.rnn_extra import _Linear
from dflow.framework import dtypes, nest
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.ops.array import array_ops, shape_ops
from dflow.ops.control_flow.control_flow_ops import cond
from dflow.ops.embedding.embedding_ops import embedding_lookup
from dflow.ops.math import math_ops, reduction_ops, unary_math_ops
from dflow.ops.nn import conv_ops, nn_activations, nn_ops
from dflow.ops.rnn import rnn
from dflow.ops.rnn.rnn_cell_impl import RNNCell, assert_like_rnncell
from dflow.ops.state import init_ops
from dflow.ops.state.variable_scope import get_variable, get_variable_scope, variable_scope


def _export(name):
    return tf_export(f"contrib.legacy_seq2seq.{name}")


# -- contrib.rnn's projection and embedding wrappers ---------------------------------------------------


class _WrapperCell(RNNCell):
    def __init__(self, cell, reuse=None):
        super().__init__(_reuse=reuse)
        assert_like_rnncell("cell", cell)
        self._cell = cell

    @property
    def state_size(self):
        return self._cell.state_size

    @property
    def output_size(self):
        return self._cell.output_size

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            return self._cell.zero_state(batch_size, dtype)


@tf_export("contrib.rnn.OutputProjectionWrapper")
class OutputProjectionWrapper(_WrapperCell):
    """``cell`` followed by a dense projection of its output to ``output_size`` (variables ``kernel`` and
    ``bias`` in the wrapper's scope ``output_projection_wrapper``)."""

    def __init__(self, cell, output_size, activation=None, reuse=None):
        super().__init__(cell, reuse=reuse)
        if output_size < 1:
            raise ValueError(f"Parameter output_size must be > 0: {output_size}.")
        self._output_size = output_size
        self._activation = activation
        self._linear = None

    @property
    def output_size(self):
        return self._output_size

    def call(self, inputs, state):
        output, res_state = self._cell(inputs, state)
        if self._linear is None:
            self._linear = _Linear(output, self._output_size, True)
        projected = self._linear(output)
        if self._activation:
            projected = self._activation(projected)
        return projected, res_state


@tf_export("contrib.rnn.InputProjectionWrapper")
class InputProjectionWrapper(_WrapperCell):
    """A dense projection of the input to ``num_proj`` (``kernel``, ``bias``) before ``cell``."""

    def __init__(self, cell, num_proj, activation=None, input_size=None, reuse=None):
        super().__init__(cell, reuse=reuse)
        self._num_proj = num_proj
        self._activation = activation
        self._linear = None

    def call(self, inputs, state):
        if self._linear is None:
            self._linear = _Linear(inputs, self._num_proj, True)
        projected = self._linear(inputs)
        if self._activation:
            projected = self._activation(projected)
        return self._cell(projected, state)


@tf_export("contrib.rnn.EmbeddingWrapper")
class EmbeddingWrapper(_WrapperCell):
    """Looks the (integer) inputs up in ``embedding`` (``[embedding_classes, embedding_size]``, uniform in
    ``±sqrt(3)`` unless an initializer is given or set on the scope) before ``cell``."""

    def __init__(self, cell, embedding_classes, embedding_size, initializer=None, reuse=None):
        super().__init__(cell, reuse=reuse)
        if embedding_classes <= 0 or embedding_size <= 0:
            raise ValueError(f"Both embedding_classes and embedding_size must be greater than zero: "
                             f"{embedding_classes}, {embedding_size}.")
        self._embedding_classes = embedding_classes
        self._embedding_size = embedding_size
        self._initializer = initializer

    def call(self, inputs, state):
        if self._initializer:
            initializer = self._initializer
        elif get_variable_scope().initializer:
            initializer = get_variable_scope().initializer
        else:
            sqrt3 = math.sqrt(3)
            initializer = init_ops.random_uniform_initializer(-sqrt3, sqrt3)
        data_type = state[0].dtype if isinstance(state, tuple) else state.dtype
        embedding = get_variable("embedding", [self._embedding_classes, self._embedding_size],
                                 initializer=initializer, dtype=data_type)
        embedded = embedding_lookup(embedding, shape_ops.reshape(inputs, [-1]))
        return self._cell(embedded, state)


# -- decoders and models -----------------------------------------------------------------------------


def _copy_cell(cell):
    """``copy.deepcopy(cell)``, the encoder's own copy of the cell. A cell that has already been called holds
    graph tensors and cannot be copied; TF 1.x fails there too (``can't pickle _thread.lock objects``), so
    TF1 programs build the cell inside the function given to ``model_with_buckets``."""
    try:
        return copy.deepcopy(cell)
    except TypeError as e:
        raise TypeError(f"legacy_seq2seq copies the cell for the encoder, and a cell that was already called cannot be "
                        f"copied ({e}); create a new cell for each call (TF 1.x fails here too)") from e


def _extract_argmax_and_embed(embedding, output_projection=None, update_embedding=True):
    """A ``loop_function(prev, i)``: the embedding of ``argmax(prev)`` (projected first when
    ``output_projection`` is given; no gradient into the embedding unless ``update_embedding``)."""

    def loop_function(prev, _):
        if output_projection is not None:
            prev = nn_ops.xw_plus_b(prev, output_projection[0], output_projection[1])
        prev_symbol = reduction_ops.argmax(prev, 1)
        emb_prev = embedding_lookup(embedding, prev_symbol)
        if not update_embedding:
            emb_prev = array_ops.stop_gradient(emb_prev)
        return emb_prev

    return loop_function


@_export("rnn_decoder")
def rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None, scope=None):
    """Runs ``cell`` over ``decoder_inputs`` from ``initial_state`` (``loop_function(prev_output, i)``,
    when given, replaces every input after the first); returns ``(outputs, state)``."""
    with variable_scope(scope or "rnn_decoder"):
        state = initial_state
        outputs = []
        prev = None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                with variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            if i > 0:
                get_variable_scope().reuse_variables()
            output, state = cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
    return outputs, state


@_export("basic_rnn_seq2seq")
def basic_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, dtype=dtypes.float32, scope=None):
    """Encodes with a copy of ``cell`` (``static_rnn``), decodes with ``cell`` from the final state."""
    with variable_scope(scope or "basic_rnn_seq2seq"):
        enc_cell = _copy_cell(cell)
        _, enc_state = rnn.static_rnn(enc_cell, encoder_inputs, dtype=dtype)
        return rnn_decoder(decoder_inputs, enc_state, cell)


@_export("tied_rnn_seq2seq")
def tied_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, loop_function=None, dtype=dtypes.float32, scope=None):
    """Encodes and decodes with the same ``cell`` and variables."""
    with variable_scope("combined_tied_rnn_seq2seq"):
        scope = scope or "tied_rnn_seq2seq"
        _, enc_state = rnn.static_rnn(cell, encoder_inputs, dtype=dtype, scope=scope)
        get_variable_scope().reuse_variables()
        return rnn_decoder(decoder_inputs, enc_state, cell, loop_function=loop_function, scope=scope)


def _check_projection(output_projection, num_symbols, dtype):
    if output_projection is not None:
        proj_weights = convert_to_tensor(output_projection[0], dtype=dtype)
        proj_weights.shape.assert_is_compatible_with([None, num_symbols])
        proj_biases = convert_to_tensor(output_projection[1], dtype=dtype)
        proj_biases.shape.assert_is_compatible_with([num_symbols])


@_export("embedding_rnn_decoder")
def embedding_rnn_decoder(decoder_inputs, initial_state, cell, num_symbols, embedding_size, output_projection=None,
                          feed_previous=False, update_embedding_for_previous=True, scope=None):
    """``rnn_decoder`` over the symbols' embeddings (variable ``embedding``, ``[num_symbols, embedding_size]``)."""
    with variable_scope(scope or "embedding_rnn_decoder") as vs:
        _check_projection(output_projection, num_symbols, vs.dtype)
        embedding = get_variable("embedding", [num_symbols, embedding_size])
        loop_function = (_extract_argmax_and_embed(embedding, output_projection, update_embedding_for_previous)
                         if feed_previous else None)
        emb_inp = [embedding_lookup(embedding, i) for i in decoder_inputs]
        return rnn_decoder(emb_inp, initial_state, cell, loop_function=loop_function)


def _cond_decoders(feed_previous, decoder, decoder_inputs, state_structure):
    """TF's two decoders (``feed_previous`` True, then False reusing its variables) chosen by ``tf.cond``."""
    outputs_and_state = cond(feed_previous, lambda: decoder(True), lambda: decoder(False))
    outputs_len = len(decoder_inputs)
    state_list = list(outputs_and_state[outputs_len:])
    state = state_list[0]
    if nest.is_nested(state_structure):
        state = nest.pack_sequence_as(structure=state_structure, flat_sequence=state_list)
    return list(outputs_and_state[:outputs_len]), state


def _flat_outputs_and_state(outputs, state):
    state_list = nest.flatten(state) if nest.is_nested(state) else [state]
    return list(outputs) + state_list


@_export("embedding_rnn_seq2seq")
def embedding_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, num_encoder_symbols, num_decoder_symbols,
                          embedding_size, output_projection=None, feed_previous=False, dtype=None, scope=None):
    """Embeds and encodes ``encoder_inputs`` (``EmbeddingWrapper``), then ``embedding_rnn_decoder`` from the
    encoder's state, projecting to ``num_decoder_symbols`` unless ``output_projection`` is given."""
    with variable_scope(scope or "embedding_rnn_seq2seq") as vs:
        if dtype is not None:
            vs.set_dtype(dtype)
        else:
            dtype = vs.dtype
        encoder_cell = EmbeddingWrapper(_copy_cell(cell), embedding_classes=num_encoder_symbols,
                                        embedding_size=embedding_size)
        _, encoder_state = rnn.static_rnn(encoder_cell, encoder_inputs, dtype=dtype)
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols)
        if isinstance(feed_previous, bool):
            return embedding_rnn_decoder(decoder_inputs, encoder_state, cell, num_decoder_symbols, embedding_size,
                                         output_projection=output_projection, feed_previous=feed_previous)

        def decoder(feed_previous_bool):
            reuse = None if feed_previous_bool else True
            with variable_scope(get_variable_scope(), reuse=reuse):
                outputs, state = embedding_rnn_decoder(
                    decoder_inputs, encoder_state, cell, num_decoder_symbols, embedding_size,
                    output_projection=output_projection, feed_previous=feed_previous_bool,
                    update_embedding_for_previous=False)
                return _flat_outputs_and_state(outputs, state)

        return _cond_decoders(feed_previous, decoder, decoder_inputs, encoder_state)


@_export("embedding_tied_rnn_seq2seq")
def embedding_tied_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, num_symbols, embedding_size,
                               num_decoder_symbols=None, output_projection=None, feed_previous=False, dtype=None,
                               scope=None):
    """``tied_rnn_seq2seq`` over one shared ``embedding`` of encoder and decoder symbols."""
    with variable_scope(scope or "embedding_tied_rnn_seq2seq", dtype=dtype) as vs:
        dtype = vs.dtype
        _check_projection(output_projection, num_symbols, dtype)
        embedding = get_variable("embedding", [num_symbols, embedding_size], dtype=dtype)
        emb_encoder_inputs = [embedding_lookup(embedding, x) for x in encoder_inputs]
        emb_decoder_inputs = [embedding_lookup(embedding, x) for x in decoder_inputs]
        output_symbols = num_decoder_symbols if num_decoder_symbols is not None else num_symbols
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, output_symbols)
        if isinstance(feed_previous, bool):
            loop_function = _extract_argmax_and_embed(embedding, output_projection, True) if feed_previous else None
            return tied_rnn_seq2seq(emb_encoder_inputs, emb_decoder_inputs, cell, loop_function=loop_function,
                                    dtype=dtype)

        def decoder(feed_previous_bool):
            loop_function = (_extract_argmax_and_embed(embedding, output_projection, False)
                             if feed_previous_bool else None)
            reuse = None if feed_previous_bool else True
            with variable_scope(get_variable_scope(), reuse=reuse):
                outputs, state = tied_rnn_seq2seq(emb_encoder_inputs, emb_decoder_inputs, cell,
                                                  loop_function=loop_function, dtype=dtype)
                return _flat_outputs_and_state(outputs, state)

        batch_size = encoder_inputs[0].shape.as_list()[0] if encoder_inputs[0].shape.ndims else None
        if batch_size is None:
            batch_size = shape_ops.shape(encoder_inputs[0])[0]
        return _cond_decoders(feed_previous, decoder, decoder_inputs, cell.zero_state(batch_size, dtype))


@_export("attention_decoder")
def attention_decoder(decoder_inputs, initial_state, attention_states, cell, output_size=None, num_heads=1,
                      loop_function=None, dtype=None, scope=None, initial_state_attention=False):
    """An RNN decoder reading ``attention_states`` (``[batch, attn_length, attn_size]``) with ``num_heads``
    additive attentions: each step runs ``cell`` on ``linear([input] + attns)``, attends with the new state
    and outputs ``linear([cell_output] + attns)`` (``output_size`` wide)."""
    if not decoder_inputs:
        raise ValueError("Must provide at least 1 input to attention decoder.")
    if num_heads < 1:
        raise ValueError("With less than 1 heads, use a non-attention decoder.")
    if attention_states.shape.ndims is None or attention_states.shape.as_list()[2] is None:
        raise ValueError(f"Shape[2] of attention_states must be known: {attention_states.shape}")
    if output_size is None:
        output_size = cell.output_size

    with variable_scope(scope or "attention_decoder", dtype=dtype) as vs:
        dtype = vs.dtype
        batch_size = shape_ops.shape(decoder_inputs[0])[0]
        attn_length = attention_states.shape.as_list()[1]
        if attn_length is None:
            attn_length = shape_ops.shape(attention_states)[1]
        attn_size = attention_states.shape.as_list()[2]

        hidden = shape_ops.reshape(attention_states, [-1, attn_length, 1, attn_size])
        hidden_features = []
        v = []
        attention_vec_size = attn_size
        for a in range(num_heads):
            k = get_variable(f"AttnW_{a}", [1, 1, attn_size, attention_vec_size])
            hidden_features.append(conv_ops.conv2d(hidden, k, [1, 1, 1, 1], "SAME"))
            v.append(get_variable(f"AttnV_{a}", [attention_vec_size]))

        state = initial_state

        def attention(query):
            ds = []
            if nest.is_nested(query):
                query_list = nest.flatten(query)
                for q in query_list:
                    if q.shape.ndims:
                        assert q.shape.ndims == 2
                query = array_ops.concat(query_list, 1)
            for head in range(num_heads):
                with variable_scope(f"Attention_{head}"):
                    y = _Linear(query, attention_vec_size, True)(query)
                    y = shape_ops.reshape(y, [-1, 1, 1, attention_vec_size])
                    s = reduction_ops.reduce_sum(v[head] * unary_math_ops.tanh(hidden_features[head] + y), [2, 3])
                    weights = nn_activations.softmax(s)
                    d = reduction_ops.reduce_sum(shape_ops.reshape(weights, [-1, attn_length, 1, 1]) * hidden, [1, 2])
                    ds.append(shape_ops.reshape(d, [-1, attn_size]))
            return ds

        outputs = []
        prev = None
        batch_attn_size = array_ops.stack([batch_size, attn_size])
        attns = [_zeros(batch_attn_size, dtype) for _ in range(num_heads)]
        for a in attns:
            a.set_shape([None, attn_size])
        if initial_state_attention:
            attns = attention(initial_state)
        for i, inp in enumerate(decoder_inputs):
            if i > 0:
                get_variable_scope().reuse_variables()
            if loop_function is not None and prev is not None:
                with variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            input_size = inp.shape.with_rank(2).as_list()[1]
            if input_size is None:
                raise ValueError(f"Could not infer input size from input: {inp.name}")
            merged = [inp] + attns
            x = _Linear(merged, input_size, True)(merged)
            cell_output, state = cell(x, state)
            if i == 0 and initial_state_attention:
                with variable_scope(get_variable_scope(), reuse=True):
                    attns = attention(state)
            else:
                attns = attention(state)
            with variable_scope("AttnOutputProjection"):
                merged = [cell_output] + attns
                output = _Linear(merged, output_size, True)(merged)
            if loop_function is not None:
                prev = output
            outputs.append(output)
    return outputs, state


def _zeros(shape, dtype):
    from dflow.ops.array.creation_ops import zeros

    return zeros(shape, dtype=dtype)


@_export("embedding_attention_decoder")
def embedding_attention_decoder(decoder_inputs, initial_state, attention_states, cell, num_symbols, embedding_size,
                                num_heads=1, output_size=None, output_projection=None, feed_previous=False,
                                update_embedding_for_previous=True, dtype=None, scope=None,
                                initial_state_attention=False):
    """``attention_decoder`` over the symbols' embeddings (variable ``embedding``)."""
    if output_size is None:
        output_size = cell.output_size
    if output_projection is not None:
        proj_biases = convert_to_tensor(output_projection[1], dtype=dtype)
        proj_biases.shape.assert_is_compatible_with([num_symbols])
    with variable_scope(scope or "embedding_attention_decoder", dtype=dtype):
        embedding = get_variable("embedding", [num_symbols, embedding_size])
        loop_function = (_extract_argmax_and_embed(embedding, output_projection, update_embedding_for_previous)
                         if feed_previous else None)
        emb_inp = [embedding_lookup(embedding, i) for i in decoder_inputs]
        return attention_decoder(emb_inp, initial_state, attention_states, cell, output_size=output_size,
                                 num_heads=num_heads, loop_function=loop_function,
                                 initial_state_attention=initial_state_attention)


@_export("embedding_attention_seq2seq")
def embedding_attention_seq2seq(encoder_inputs, decoder_inputs, cell, num_encoder_symbols, num_decoder_symbols,
                                embedding_size, num_heads=1, output_projection=None, feed_previous=False, dtype=None,
                                scope=None, initial_state_attention=False):
    """Embeds and encodes ``encoder_inputs``, then ``embedding_attention_decoder`` over the encoder's outputs
    from its final state (the translate tutorial's model)."""
    with variable_scope(scope or "embedding_attention_seq2seq", dtype=dtype) as vs:
        dtype = vs.dtype
        encoder_cell = EmbeddingWrapper(_copy_cell(cell), embedding_classes=num_encoder_symbols,
                                        embedding_size=embedding_size)
        encoder_outputs, encoder_state = rnn.static_rnn(encoder_cell, encoder_inputs, dtype=dtype)
        top_states = [shape_ops.reshape(e, [-1, 1, cell.output_size]) for e in encoder_outputs]
        attention_states = array_ops.concat(top_states, 1)
        output_size = None
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols)
            output_size = num_decoder_symbols
        if isinstance(feed_previous, bool):
            return embedding_attention_decoder(
                decoder_inputs, encoder_state, attention_states, cell, num_decoder_symbols, embedding_size,
                num_heads=num_heads, output_size=output_size, output_projection=output_projection,
                feed_previous=feed_previous, initial_state_attention=initial_state_attention)

        def decoder(feed_previous_bool):
            reuse = None if feed_previous_bool else True
            with variable_scope(get_variable_scope(), reuse=reuse):
                outputs, state = embedding_attention_decoder(
                    decoder_inputs, encoder_state, attention_states, cell, num_decoder_symbols, embedding_size,
                    num_heads=num_heads, output_size=output_size, output_projection=output_projection,
                    feed_previous=feed_previous_bool, update_embedding_for_previous=False,
                    initial_state_attention=initial_state_attention)
                return _flat_outputs_and_state(outputs, state)

        return _cond_decoders(feed_previous, decoder, decoder_inputs, encoder_state)


@_export("one2many_rnn_seq2seq")
def one2many_rnn_seq2seq(encoder_inputs, decoder_inputs_dict, enc_cell, dec_cells_dict, num_encoder_symbols,
                         num_decoder_symbols_dict, embedding_size, feed_previous=False, dtype=None, scope=None):
    """One encoder, one ``embedding_rnn_decoder`` per key of ``decoder_inputs_dict`` (scopes
    ``one2many_decoder_<key>``); returns ``({key: outputs}, {key: state})``."""
    outputs_dict = {}
    state_dict = {}
    if not isinstance(enc_cell, RNNCell):
        raise TypeError(f"enc_cell is not an RNNCell: {type(enc_cell)}")
    if set(dec_cells_dict) != set(decoder_inputs_dict):
        raise ValueError("keys of dec_cells_dict != keys of decodre_inputs_dict")
    for dec_cell in dec_cells_dict.values():
        if not isinstance(dec_cell, RNNCell):
            raise TypeError(f"dec_cell is not an RNNCell: {type(dec_cell)}")
    with variable_scope(scope or "one2many_rnn_seq2seq") as vs:
        if dtype is not None:
            vs.set_dtype(dtype)
        else:
            dtype = vs.dtype
        enc_cell = EmbeddingWrapper(enc_cell, embedding_classes=num_encoder_symbols, embedding_size=embedding_size)
        _, encoder_state = rnn.static_rnn(enc_cell, encoder_inputs, dtype=dtype)
        for name, decoder_inputs in decoder_inputs_dict.items():
            num_decoder_symbols = num_decoder_symbols_dict[name]
            dec_cell = OutputProjectionWrapper(dec_cells_dict[name], num_decoder_symbols)
            with variable_scope("one2many_decoder_" + str(name)) as decoder_scope:
                if isinstance(feed_previous, bool):
                    outputs, state = embedding_rnn_decoder(decoder_inputs, encoder_state, dec_cell,
                                                           num_decoder_symbols, embedding_size,
                                                           feed_previous=feed_previous)
                else:
                    def filled_decoder(feed_previous_bool, decoder_inputs=decoder_inputs, dec_cell=dec_cell,
                                       num_decoder_symbols=num_decoder_symbols, decoder_scope=decoder_scope):
                        reuse = None if feed_previous_bool else True
                        with variable_scope(decoder_scope, reuse=reuse):
                            outputs, state = embedding_rnn_decoder(
                                decoder_inputs, encoder_state, dec_cell, num_decoder_symbols, embedding_size,
                                feed_previous=feed_previous_bool)
                            return _flat_outputs_and_state(outputs, state)

                    outputs, state = _cond_decoders(feed_previous, filled_decoder, decoder_inputs, encoder_state)
            outputs_dict[name] = outputs
            state_dict[name] = state
    return outputs_dict, state_dict


# -- losses ------------------------------------------------------------------------------------------


@_export("sequence_loss_by_example")
def sequence_loss_by_example(logits, targets, weights, average_across_timesteps=True, softmax_loss_function=None,
                             name=None):
    """Per example: ``sum_t weights[t] * xent(logits[t], targets[t])``, divided by ``sum_t weights[t] + 1e-12``
    when ``average_across_timesteps``."""
    from dflow.ops.nn.nn_losses import sparse_softmax_cross_entropy_with_logits

    if len(targets) != len(logits) or len(weights) != len(logits):
        raise ValueError(f"Lengths of logits, weights, and targets must be the same {len(logits)}, {len(weights)}, "
                         f"{len(targets)}.")
    with name_scope(name, "sequence_loss_by_example", list(logits) + list(targets) + list(weights)):
        log_perp_list = []
        for logit, target, weight in zip(logits, targets, weights):
            if softmax_loss_function is None:
                target = shape_ops.reshape(target, [-1])
                crossent = sparse_softmax_cross_entropy_with_logits(labels=target, logits=logit)
            else:
                crossent = softmax_loss_function(labels=target, logits=logit)
            log_perp_list.append(crossent * weight)
        log_perps = math_ops.add_n(log_perp_list)
        if average_across_timesteps:
            total_size = math_ops.add_n(list(weights))
            total_size += 1e-12
            log_perps /= total_size
    return log_perps


@_export("sequence_loss")
def sequence_loss(logits, targets, weights, average_across_timesteps=True, average_across_batch=True,
                  softmax_loss_function=None, name=None):
    """``sequence_loss_by_example`` summed over the batch (and divided by the batch size by default)."""
    with name_scope(name, "sequence_loss", list(logits) + list(targets) + list(weights)):
        cost = reduction_ops.reduce_sum(sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps=average_across_timesteps,
            softmax_loss_function=softmax_loss_function))
        if average_across_batch:
            batch_size = shape_ops.shape(targets[0])[0]
            return cost / math_ops.cast(batch_size, cost.dtype)
        return cost


@_export("model_with_buckets")
def model_with_buckets(encoder_inputs, decoder_inputs, targets, weights, buckets, seq2seq,
                       softmax_loss_function=None, per_example_loss=False, name=None):
    """``seq2seq(encoder_inputs[:e], decoder_inputs[:d])`` for each bucket ``(e, d)`` (sharing variables) and
    its ``sequence_loss`` (or ``sequence_loss_by_example``); returns ``(outputs, losses)``, one per bucket."""
    if len(encoder_inputs) < buckets[-1][0]:
        raise ValueError(f"Length of the encoder inputs ({len(encoder_inputs)}) must be at least that of last "
                         f"bucket ({buckets[-1][0]}).")
    if len(targets) < buckets[-1][1]:
        raise ValueError(f"Length of targets ({len(targets)}) must be at least that of last bucket "
                         f"({buckets[-1][1]}).")
    if len(weights) < buckets[-1][1]:
        raise ValueError(f"Length of weights ({len(weights)}) must be at least that of last bucket "
                         f"({buckets[-1][1]}).")
    all_inputs = list(encoder_inputs) + list(decoder_inputs) + list(targets) + list(weights)
    losses = []
    outputs = []
    with name_scope(name, "model_with_buckets", all_inputs):
        for j, bucket in enumerate(buckets):
            with variable_scope(get_variable_scope(), reuse=True if j > 0 else None):
                bucket_outputs, _ = seq2seq(encoder_inputs[:bucket[0]], decoder_inputs[:bucket[1]])
                outputs.append(bucket_outputs)
                loss_fn = sequence_loss_by_example if per_example_loss else sequence_loss
                losses.append(loss_fn(outputs[-1], targets[:bucket[1]], weights[:bucket[1]],
                                      softmax_loss_function=softmax_loss_function))
    return outputs, losses
