"""``tf.contrib.seq2seq``'s attention: ``BahdanauAttention``, ``LuongAttention``, ``AttentionWrapper``,
``AttentionWrapperState`` and ``hardmax``, as TF 1.15's.

A mechanism projects its ``memory`` (``[batch, max_time, depth]``, rows past ``memory_sequence_length``
zeroed) once, when it is built, with a bias-free ``memory_layer`` (so the variable is
``<scope>/memory_layer/kernel``); calling it on a query gives ``(alignments, next_state)``, the
alignments ``probability_fn`` (softmax) of the scores, masked scores getting ``score_mask_value``
(``-inf``). Bahdanau's score is ``sum(v * tanh(keys + query_layer(query)))`` (variables
``bahdanau_attention/query_layer/kernel`` and ``bahdanau_attention/attention_v``; with ``normalize``
also ``attention_g`` and ``attention_b`` and ``v`` replaced by ``g * v / |v|``), Luong's
``query . keys`` (times ``luong_attention/attention_g`` with ``scale``).

``AttentionWrapper`` is a cell: it feeds ``cell_input_fn(inputs, previous attention)`` (their
concatenation) to the wrapped cell, attends with the cell's output, and outputs the attention
(``attention_layer(concat(cell_output, context))`` when ``attention_layer_size`` is given, else the
context) or, without ``output_attention``, the cell's output.
"""

from __future__ import annotations

import collections
import math

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, nest
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, control_dependencies, name_scope
from dflow.framework.tensor_shape import TensorShape, dimension_value
from dflow.layers.base import Layer
from dflow.layers.core import Dense
from dflow.ops.array import array_ops, creation_ops, select_ops, shape_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.debugging import check_ops
from dflow.ops.linalg.linalg_ops import matmul
from dflow.ops.math import reduction_ops, unary_math_ops
from dflow.ops.nn.nn_activations import softmax
from dflow.ops.rnn.rnn_cell_impl import RNNCell, _zero_state_tensors, assert_like_rnncell
from dflow.ops.state import init_ops
from dflow.ops.state.tensor_array_ops import TensorArray
from dflow.ops.state.variable_scope import get_variable, variable_scope

__all__ = ["AttentionMechanism", "BahdanauAttention", "LuongAttention", "AttentionWrapper",
           "AttentionWrapperState", "hardmax"]


@tf_export("contrib.seq2seq.AttentionMechanism")
class AttentionMechanism:
    """The base of attention mechanisms (``alignments_size`` and ``state_size``)."""

    @property
    def alignments_size(self):
        raise NotImplementedError

    @property
    def state_size(self):
        raise NotImplementedError


def _static_or_dynamic(t, axis):
    value = dimension_value(t.shape[axis]) if t.shape.ndims is not None else None
    return value if value is not None else shape_ops.shape(t)[axis]


def _prepare_memory(memory, memory_sequence_length, check_inner_dims_defined):
    """``memory`` as tensors, rows past ``memory_sequence_length`` zeroed."""
    memory = nest.map_structure(lambda m: convert_to_tensor(m, name="memory"), memory)
    if memory_sequence_length is not None:
        memory_sequence_length = convert_to_tensor(memory_sequence_length, name="memory_sequence_length")
    if check_inner_dims_defined:
        for m in nest.flatten(memory):
            if not m.shape[2:].is_fully_defined():
                raise ValueError(f"Expected memory {m.name} to have fully defined inner dims, but saw shape: "
                                 f"{m.shape}")
    if memory_sequence_length is None:
        return memory
    first = nest.flatten(memory)[0]
    seq_len_mask = creation_ops.sequence_mask(memory_sequence_length, maxlen=shape_ops.shape(first)[1],
                                              dtype=first.dtype)

    def _mask(m):
        rank = m.shape.ndims
        mask = seq_len_mask
        for _ in range(rank - 2):
            mask = shape_ops.expand_dims(mask, -1)
        return m * mask

    return nest.map_structure(_mask, memory)


def _maybe_mask_score(score, memory_sequence_length, score_mask_value):
    if memory_sequence_length is None:
        return score
    with control_dependencies([check_ops.assert_positive(
            memory_sequence_length, message="All values in memory_sequence_length must greater than zero.")]):
        score_mask = creation_ops.sequence_mask(memory_sequence_length, maxlen=shape_ops.shape(score)[1])
        score_mask_values = score_mask_value * creation_ops.ones_like(score)
        return select_ops.where(score_mask, score, score_mask_values)


class _BaseAttentionMechanism(AttentionMechanism):
    """Keeps the query and memory layers and the (masked, projected) memory."""

    def __init__(self, query_layer, memory, probability_fn, memory_sequence_length=None, memory_layer=None,
                 check_inner_dims_defined=True, score_mask_value=None, custom_key_value_fn=None, name=None):
        if query_layer is not None and not isinstance(query_layer, Layer):
            raise TypeError(f"query_layer is not a Layer: {type(query_layer).__name__}")
        if memory_layer is not None and not isinstance(memory_layer, Layer):
            raise TypeError(f"memory_layer is not a Layer: {type(memory_layer).__name__}")
        self._query_layer = query_layer
        self._memory_layer = memory_layer
        self.dtype = dtypes.as_dtype(memory_layer.dtype)
        if not callable(probability_fn):
            raise TypeError(f"probability_fn must be callable, saw type: {type(probability_fn).__name__}")
        if score_mask_value is None:
            score_mask_value = self.dtype.as_numpy_dtype(-np.inf)
        self._probability_fn = lambda score, prev: probability_fn(
            _maybe_mask_score(score, memory_sequence_length, score_mask_value), prev)
        with name_scope(name, "BaseAttentionMechanismInit"):
            self._values = _prepare_memory(memory, memory_sequence_length, check_inner_dims_defined)
            self._keys = self.memory_layer(self._values) if self.memory_layer else self._values
            if custom_key_value_fn is not None:
                self._keys, self._values = custom_key_value_fn(self._keys, self._values)
            self._batch_size = _static_or_dynamic(self._keys, 0)
            self._alignments_size = _static_or_dynamic(self._keys, 1)

    @property
    def memory_layer(self):
        return self._memory_layer

    @property
    def query_layer(self):
        return self._query_layer

    @property
    def values(self):
        return self._values

    @property
    def keys(self):
        return self._keys

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def alignments_size(self):
        return self._alignments_size

    @property
    def state_size(self):
        return self._alignments_size

    def initial_alignments(self, batch_size, dtype):
        """Zeros ``[batch_size, alignments_size]``."""
        return _zero_state_tensors(self._alignments_size, batch_size, dtype)

    def initial_state(self, batch_size, dtype):
        return self.initial_alignments(batch_size, dtype)


def _luong_score(query, keys, scale):
    depth = query.shape[-1]
    key_units = keys.shape[-1]
    if dimension_value(depth) != dimension_value(key_units):
        raise ValueError(f"Incompatible or unknown inner dimensions between query and keys. Query ({query}) has "
                         f"units: {depth}. Keys ({keys}) have units: {key_units}. Perhaps you need to set "
                         f"num_units to the keys' dimension ({key_units})?")
    score = matmul(shape_ops.expand_dims(query, 1), keys, transpose_b=True)
    score = shape_ops.squeeze(score, [1])
    if scale:
        g = get_variable("attention_g", dtype=query.dtype, initializer=init_ops.ones_initializer(), shape=())
        score = g * score
    return score


@tf_export("contrib.seq2seq.LuongAttention")
class LuongAttention(_BaseAttentionMechanism):
    """Multiplicative attention: ``score = query . memory_layer(memory)`` (times a learned scalar
    ``attention_g`` with ``scale``); the query's depth must be ``num_units``."""

    def __init__(self, num_units, memory, memory_sequence_length=None, scale=False, probability_fn=None,
                 score_mask_value=None, dtype=None, custom_key_value_fn=None, name="LuongAttention"):
        if probability_fn is None:
            probability_fn = softmax
        if dtype is None:
            dtype = dtypes.float32
        fn = probability_fn
        super().__init__(query_layer=None,
                         memory_layer=Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype),
                         memory=memory, probability_fn=lambda score, _: fn(score),
                         memory_sequence_length=memory_sequence_length, score_mask_value=score_mask_value,
                         custom_key_value_fn=custom_key_value_fn, name=name)
        self._num_units = num_units
        self._scale = scale
        self._name = name

    def __call__(self, query, state):
        """``(alignments, next_state)`` for a ``[batch, num_units]`` query."""
        with variable_scope(None, "luong_attention"):
            score = _luong_score(query, self._keys, self._scale)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


def _bahdanau_score(processed_query, keys, normalize):
    dtype = processed_query.dtype
    num_units = dimension_value(keys.shape[2]) or shape_ops.shape(keys)[2]
    processed_query = shape_ops.expand_dims(processed_query, 1)
    v = get_variable("attention_v", [num_units], dtype=dtype)
    if normalize:
        g = get_variable("attention_g", dtype=dtype,
                         initializer=init_ops.constant_initializer(math.sqrt(1.0 / num_units)), shape=())
        b = get_variable("attention_b", [num_units], dtype=dtype, initializer=init_ops.zeros_initializer())
        normed_v = g * v * unary_math_ops.rsqrt(reduction_ops.reduce_sum(unary_math_ops.square(v)))
        return reduction_ops.reduce_sum(normed_v * unary_math_ops.tanh(keys + processed_query + b), [2])
    return reduction_ops.reduce_sum(v * unary_math_ops.tanh(keys + processed_query), [2])


@tf_export("contrib.seq2seq.BahdanauAttention")
class BahdanauAttention(_BaseAttentionMechanism):
    """Additive attention: ``score = sum(v * tanh(memory_layer(memory) + query_layer(query)))``
    (weight-normalized ``v`` with a bias under ``normalize``)."""

    def __init__(self, num_units, memory, memory_sequence_length=None, normalize=False, probability_fn=None,
                 score_mask_value=None, dtype=None, custom_key_value_fn=None, name="BahdanauAttention"):
        if probability_fn is None:
            probability_fn = softmax
        if dtype is None:
            dtype = dtypes.float32
        fn = probability_fn
        super().__init__(query_layer=Dense(num_units, name="query_layer", use_bias=False, dtype=dtype),
                         memory_layer=Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype),
                         memory=memory, probability_fn=lambda score, _: fn(score),
                         memory_sequence_length=memory_sequence_length, score_mask_value=score_mask_value,
                         custom_key_value_fn=custom_key_value_fn, name=name)
        self._num_units = num_units
        self._normalize = normalize
        self._name = name

    def __call__(self, query, state):
        """``(alignments, next_state)`` for a ``[batch, query_depth]`` query."""
        with variable_scope(None, "bahdanau_attention"):
            processed_query = self.query_layer(query) if self.query_layer else query
            score = _bahdanau_score(processed_query, self._keys, self._normalize)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


@tf_export("contrib.seq2seq.AttentionWrapperState")
class AttentionWrapperState(collections.namedtuple(
        "AttentionWrapperState",
        ("cell_state", "attention", "time", "alignments", "alignment_history", "attention_state"))):
    """The state of an ``AttentionWrapper``: the wrapped cell's state, the last attention, the step,
    the last alignments, their history (a TensorArray, or ``()`` without ``alignment_history``) and
    the mechanisms' states."""

    def clone(self, **kwargs):
        """A copy with the fields in ``kwargs`` replaced (keeping the old tensors' static shapes)."""
        def with_same_shape(old, new):
            if isinstance(old, Tensor) and isinstance(new, Tensor):
                new.set_shape(old.shape)
            return new

        return nest.map_structure(with_same_shape, self, super()._replace(**kwargs))


@tf_export("contrib.seq2seq.hardmax")
def hardmax(logits, name=None):
    """One-hot of the argmax of ``logits`` over its last axis, in ``logits``' dtype."""
    with name_scope(name, "Hardmax"):
        logits = convert_to_tensor(logits, name="logits")
        depth = dimension_value(logits.shape[-1]) if logits.shape.ndims else None
        if depth is None:
            depth = shape_ops.shape(logits)[-1]
        return creation_ops.one_hot(reduction_ops.argmax(logits, -1), depth, dtype=logits.dtype)


def _compute_attention(attention_mechanism, cell_output, attention_state, attention_layer):
    alignments, next_attention_state = attention_mechanism(cell_output, state=attention_state)
    context = matmul(shape_ops.expand_dims(alignments, 1), attention_mechanism.values)
    context = shape_ops.squeeze(context, [1])
    if attention_layer is not None:
        attention = attention_layer(array_ops.concat([cell_output, context], 1))
    else:
        attention = context
    return attention, alignments, next_attention_state


@tf_export("contrib.seq2seq.AttentionWrapper")
class AttentionWrapper(RNNCell):
    """A cell that attends over one or more mechanisms' memories after each step of ``cell``."""

    def __init__(self, cell, attention_mechanism, attention_layer_size=None, alignment_history=False,
                 cell_input_fn=None, output_attention=True, initial_cell_state=None, name=None,
                 attention_layer=None, attention_fn=None):
        super().__init__(name=name)
        assert_like_rnncell("cell", cell)
        if isinstance(attention_mechanism, (list, tuple)):
            self._is_multi = True
            attention_mechanisms = tuple(attention_mechanism)
        else:
            self._is_multi = False
            attention_mechanisms = (attention_mechanism,)
        for mechanism in attention_mechanisms:
            if not isinstance(mechanism, AttentionMechanism):
                raise TypeError(f"attention_mechanism must be an AttentionMechanism or list of multiple "
                                f"AttentionMechanism instances, saw type: {type(mechanism).__name__}")
        if cell_input_fn is None:
            def cell_input_fn(inputs, attention):
                return array_ops.concat([inputs, attention], -1)
        elif not callable(cell_input_fn):
            raise TypeError(f"cell_input_fn must be callable, saw type: {type(cell_input_fn).__name__}")
        if attention_layer_size is not None and attention_layer is not None:
            raise ValueError("Only one of attention_layer_size and attention_layer should be set")
        if attention_layer_size is not None:
            sizes = tuple(attention_layer_size if isinstance(attention_layer_size, (list, tuple))
                          else (attention_layer_size,))
            if len(sizes) != len(attention_mechanisms):
                raise ValueError(f"If provided, attention_layer_size must contain exactly one integer per "
                                 f"attention_mechanism, saw: {len(sizes)} vs {len(attention_mechanisms)}")
            self._attention_layers = tuple(
                Dense(size, name="attention_layer", use_bias=False, dtype=m.dtype)
                for size, m in zip(sizes, attention_mechanisms))
            self._attention_layer_size = sum(sizes)
        elif attention_layer is not None:
            layers = tuple(attention_layer if isinstance(attention_layer, (list, tuple)) else (attention_layer,))
            if len(layers) != len(attention_mechanisms):
                raise ValueError(f"If provided, attention_layer must contain exactly one layer per "
                                 f"attention_mechanism, saw: {len(layers)} vs {len(attention_mechanisms)}")
            self._attention_layers = layers
            self._attention_layer_size = sum(
                dimension_value(layer.compute_output_shape(
                    [None, dimension_value(cell.output_size) + dimension_value(m.values.shape[-1])])[-1])
                for layer, m in zip(layers, attention_mechanisms))
        else:
            self._attention_layers = None
            self._attention_layer_size = sum(dimension_value(m.values.shape[-1]) for m in attention_mechanisms)
        self._attention_fn = attention_fn or _compute_attention
        self._cell = cell
        self._attention_mechanisms = attention_mechanisms
        self._cell_input_fn = cell_input_fn
        self._output_attention = output_attention
        self._alignment_history = alignment_history
        if initial_cell_state is None:
            self._initial_cell_state = None
        else:
            self._initial_cell_state = nest.map_structure(
                lambda s: control_flow_ops.identity(s, name="check_initial_cell_state"), initial_cell_state)

    def _item_or_tuple(self, seq):
        t = tuple(seq)
        return t if self._is_multi else t[0]

    @property
    def output_size(self):
        return self._attention_layer_size if self._output_attention else self._cell.output_size

    @property
    def state_size(self):
        return AttentionWrapperState(
            cell_state=self._cell.state_size, time=TensorShape([]), attention=self._attention_layer_size,
            alignments=self._item_or_tuple(a.alignments_size for a in self._attention_mechanisms),
            attention_state=self._item_or_tuple(a.state_size for a in self._attention_mechanisms),
            alignment_history=self._item_or_tuple(a.alignments_size if self._alignment_history else ()
                                                  for a in self._attention_mechanisms))

    def zero_state(self, batch_size, dtype):
        """The initial ``AttentionWrapperState`` (the wrapped cell's zero state unless
        ``initial_cell_state`` was given; zero attention and alignments)."""
        with name_scope(type(self).__name__ + "ZeroState"):
            if self._initial_cell_state is not None:
                cell_state = self._initial_cell_state
            else:
                cell_state = self._cell.zero_state(batch_size, dtype)
            message = ("When calling zero_state of AttentionWrapper " + self.name + ": Non-matching batch sizes "
                       "between the memory (encoder output) and the requested batch size. Are you using the "
                       "BeamSearchDecoder? If so, make sure your encoder output has been tiled to beam_width "
                       "via tf.contrib.seq2seq.tile_batch, and the batch_size= argument passed to zero_state "
                       "is batch_size * beam_width.")
            checks = [check_ops.assert_equal(batch_size, m.batch_size, message=message)
                      for m in self._attention_mechanisms]
            with control_dependencies(checks):
                cell_state = nest.map_structure(lambda s: control_flow_ops.identity(s, name="checked_cell_state"),
                                                cell_state)
            initial_alignments = [m.initial_alignments(batch_size, dtype) for m in self._attention_mechanisms]
            return AttentionWrapperState(
                cell_state=cell_state, time=creation_ops.zeros([], dtype=dtypes.int32),
                attention=_zero_state_tensors(self._attention_layer_size, batch_size, dtype),
                alignments=self._item_or_tuple(initial_alignments),
                attention_state=self._item_or_tuple(m.initial_state(batch_size, dtype)
                                                    for m in self._attention_mechanisms),
                alignment_history=self._item_or_tuple(
                    TensorArray(dtype, size=0, dynamic_size=True, element_shape=a.shape)
                    if self._alignment_history else () for a in initial_alignments))

    def call(self, inputs, state):
        """One step: ``(attention or cell output, next AttentionWrapperState)``."""
        if not isinstance(state, AttentionWrapperState):
            raise TypeError(f"Expected state to be instance of AttentionWrapperState. Received type "
                            f"{type(state)} instead.")
        cell_inputs = self._cell_input_fn(inputs, state.attention)
        cell_output, next_cell_state = self._cell(cell_inputs, state.cell_state)
        if self._is_multi:
            previous_attention_state = state.attention_state
            previous_alignment_history = state.alignment_history
        else:
            previous_attention_state = [state.attention_state]
            previous_alignment_history = [state.alignment_history]
        all_alignments, all_attentions, all_attention_states, maybe_all_histories = [], [], [], []
        for i, mechanism in enumerate(self._attention_mechanisms):
            attention, alignments, next_attention_state = self._attention_fn(
                mechanism, cell_output, previous_attention_state[i],
                self._attention_layers[i] if self._attention_layers else None)
            history = (previous_alignment_history[i].write(state.time, alignments) if self._alignment_history
                       else ())
            all_attention_states.append(next_attention_state)
            all_alignments.append(alignments)
            all_attentions.append(attention)
            maybe_all_histories.append(history)
        attention = array_ops.concat(all_attentions, 1)
        next_state = AttentionWrapperState(
            time=state.time + 1, cell_state=next_cell_state, attention=attention,
            attention_state=self._item_or_tuple(all_attention_states),
            alignments=self._item_or_tuple(all_alignments),
            alignment_history=self._item_or_tuple(maybe_all_histories))
        return (attention if self._output_attention else cell_output), next_state

