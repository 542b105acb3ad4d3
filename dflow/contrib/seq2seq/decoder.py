"""``tf.contrib.seq2seq.Decoder``, ``dynamic_decode``, ``BasicDecoder`` and ``BasicDecoderOutput``.

``dynamic_decode`` is TF 1.15's: in the ``decoder`` variable scope, one ``tf.while_loop`` calls
``decoder.step`` until every batch entry is finished (or ``maximum_iterations``), writing each step's
outputs into TensorArrays. It returns ``(final_outputs, final_state, final_sequence_lengths)``; the
outputs are batch-major unless ``output_time_major``. With ``impute_finished``, a finished entry's
outputs are zeros and its state is copied through.

>>> import dflow as tf
>>> cell = tf.nn.rnn_cell.LSTMCell(4)
>>> helper = tf.contrib.seq2seq.TrainingHelper(tf.zeros([2, 5, 3]), [5, 3])
>>> decoder = tf.contrib.seq2seq.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32))
>>> outputs, state, lengths = tf.contrib.seq2seq.dynamic_decode(decoder)
>>> outputs.rnn_output.shape.as_list()
[2, None, 4]
"""

from __future__ import annotations

import collections

from dflow._api import tf_export
from dflow.contrib.seq2seq.helper import Helper
from dflow.framework import dtypes, nest
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import TensorShape
from dflow.layers.base import Layer
from dflow.ops.array import creation_ops, select_ops, shape_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.rnn.rnn import _transpose_batch_time
from dflow.ops.rnn.rnn_cell_impl import _zero_state_tensors, assert_like_rnncell
from dflow.ops.state.tensor_array_ops import TensorArray, is_tensor_array
from dflow.ops.state.variable_scope import variable_scope

__all__ = ["Decoder", "dynamic_decode", "BasicDecoder", "BasicDecoderOutput"]


@tf_export("contrib.seq2seq.Decoder")
class Decoder:
    """What ``dynamic_decode`` runs: ``initialize() -> (finished, inputs, state)`` and
    ``step(time, inputs, state) -> (outputs, next_state, next_inputs, finished)``, with
    ``batch_size``, ``output_size`` and ``output_dtype`` describing one step's outputs."""

    @property
    def batch_size(self):
        raise NotImplementedError

    @property
    def output_size(self):
        raise NotImplementedError

    @property
    def output_dtype(self):
        raise NotImplementedError

    @property
    def tracks_own_finished(self) -> bool:
        """True when ``step``'s ``finished`` already accounts for entries finished before (beam search)."""
        return False

    def initialize(self, name=None):
        raise NotImplementedError

    def step(self, time, inputs, state, name=None):
        raise NotImplementedError

    def finalize(self, outputs, final_state, sequence_lengths):
        raise NotImplementedError


def _create_zero_outputs(size, dtype, batch_size):
    return nest.map_structure(lambda s, d: _zero_state_tensors(s, batch_size, d), size, dtype)


@tf_export("contrib.seq2seq.dynamic_decode")
def dynamic_decode(decoder, output_time_major=False, impute_finished=False, maximum_iterations=None,
                   parallel_iterations=32, swap_memory=False, scope=None, **kwargs):
    """Runs ``decoder`` step by step; ``(final_outputs, final_state, final_sequence_lengths)``.

    ``final_sequence_lengths[b]`` is the step at which entry ``b`` finished (plus one).
    ``parallel_iterations`` and ``swap_memory`` are accepted and ignored.
    """
    if not isinstance(decoder, Decoder):
        raise TypeError(f"Expected decoder to be type Decoder, but saw: {type(decoder)}")
    with variable_scope(scope, "decoder"):
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations, dtype=dtypes.int32,
                                                   name="maximum_iterations")
            if maximum_iterations.shape.ndims != 0:
                raise ValueError("maximum_iterations must be a scalar")
        initial_finished, initial_inputs, initial_state = decoder.initialize()
        zero_outputs = _create_zero_outputs(decoder.output_size, decoder.output_dtype, decoder.batch_size)
        if maximum_iterations is not None:
            initial_finished = math_ops.logical_or(initial_finished, math_ops.greater_equal(0, maximum_iterations))
        initial_sequence_lengths = creation_ops.zeros_like(initial_finished, dtype=dtypes.int32)
        initial_time = constant(0, dtype=dtypes.int32)

        static_batch = constant_value(convert_to_tensor(decoder.batch_size, name="batch_size"))

        def _shape(from_shape):
            if not isinstance(from_shape, TensorShape) or from_shape.ndims == 0:
                return None
            return TensorShape([None if static_batch is None else int(static_batch)]).concatenate(from_shape)

        def _create_ta(s, d):
            return TensorArray(dtype=d, size=0, dynamic_size=True, element_shape=_shape(TensorShape(s)))

        initial_outputs_ta = nest.map_structure(_create_ta, decoder.output_size, decoder.output_dtype)

        def condition(unused_time, unused_outputs_ta, unused_state, unused_inputs, finished, unused_lengths):
            return math_ops.logical_not(reduction_ops.reduce_all(finished))

        def body(time, outputs_ta, state, inputs, finished, sequence_lengths):
            next_outputs, decoder_state, next_inputs, decoder_finished = decoder.step(time, inputs, state)
            lengths_from_state = False
            if decoder.tracks_own_finished:
                next_finished = decoder_finished
                lengths = getattr(decoder_state, "lengths", None)
                if lengths is not None:
                    lengths_from_state = True
                    sequence_lengths = math_ops.cast(lengths, dtypes.int32)
            else:
                next_finished = math_ops.logical_or(decoder_finished, finished)
            if lengths_from_state:
                next_sequence_lengths = sequence_lengths
            else:
                next_sequence_lengths = select_ops.where(
                    math_ops.logical_not(finished),
                    creation_ops.fill(shape_ops.shape(sequence_lengths), time + 1), sequence_lengths)
            nest.assert_same_structure(state, decoder_state)
            nest.assert_same_structure(outputs_ta, next_outputs)
            nest.assert_same_structure(inputs, next_inputs)
            if impute_finished:
                emit = nest.map_structure(lambda out, zero: select_ops.where(finished, zero, out), next_outputs,
                                          zero_outputs)

                def _maybe_copy_state(new, cur):
                    if is_tensor_array(cur):
                        return new
                    new.set_shape(cur.shape)
                    return new if new.shape.ndims == 0 else select_ops.where(finished, cur, new)

                next_state = nest.map_structure(_maybe_copy_state, decoder_state, state)
            else:
                emit = next_outputs
                next_state = decoder_state
            outputs_ta = nest.map_structure(lambda ta, out: ta.write(time, out), outputs_ta, emit)
            return time + 1, outputs_ta, next_state, next_inputs, next_finished, next_sequence_lengths

        loop_kwargs = {} if maximum_iterations is None else {"maximum_iterations": maximum_iterations}
        res = control_flow_ops.while_loop(
            condition, body,
            loop_vars=(initial_time, initial_outputs_ta, initial_state, initial_inputs, initial_finished,
                       initial_sequence_lengths),
            parallel_iterations=parallel_iterations, swap_memory=swap_memory, **loop_kwargs)
        final_outputs_ta, final_state, final_sequence_lengths = res[1], res[2], res[5]
        final_outputs = nest.map_structure(lambda ta: ta.stack(), final_outputs_ta)
        try:
            final_outputs, final_state = decoder.finalize(final_outputs, final_state, final_sequence_lengths)
        except NotImplementedError:
            pass
        if not output_time_major:
            final_outputs = nest.map_structure(_transpose_batch_time, final_outputs)
    return final_outputs, final_state, final_sequence_lengths


@tf_export("contrib.seq2seq.BasicDecoderOutput")
class BasicDecoderOutput(collections.namedtuple("BasicDecoderOutput", ("rnn_output", "sample_id"))):
    """One step's (or, stacked, all steps') ``rnn_output`` and ``sample_id``."""


def _rnn_output_size(cell, output_layer):
    size = cell.output_size
    if output_layer is None:
        return size
    with_batch = nest.map_structure(lambda s: TensorShape([None]).concatenate(TensorShape(s)), size)
    layer_shape = output_layer.compute_output_shape(with_batch)
    return nest.map_structure(lambda s: s[1:], layer_shape)


@tf_export("contrib.seq2seq.BasicDecoder")
class BasicDecoder(Decoder):
    """Steps ``cell`` (then ``output_layer``, a ``tf.layers`` layer, if given) and lets ``helper``
    sample ids and choose the next inputs."""

    def __init__(self, cell, helper, initial_state, output_layer=None):
        assert_like_rnncell("cell", cell)
        if not isinstance(helper, Helper):
            raise TypeError(f"helper must be a Helper, received: {type(helper)}")
        if output_layer is not None and not isinstance(output_layer, Layer):
            raise TypeError(f"output_layer must be a Layer, received: {type(output_layer)}")
        self._cell = cell
        self._helper = helper
        self._initial_state = initial_state
        self._output_layer = output_layer

    @property
    def batch_size(self):
        return self._helper.batch_size

    @property
    def output_size(self):
        return BasicDecoderOutput(rnn_output=_rnn_output_size(self._cell, self._output_layer),
                                  sample_id=self._helper.sample_ids_shape)

    @property
    def output_dtype(self):
        dtype = nest.flatten(self._initial_state)[0].dtype
        return BasicDecoderOutput(
            nest.map_structure(lambda _: dtype, _rnn_output_size(self._cell, self._output_layer)),
            self._helper.sample_ids_dtype)

    def initialize(self, name=None):
        return self._helper.initialize() + (self._initial_state,)

    def step(self, time, inputs, state, name=None):
        with name_scope(name, "BasicDecoderStep"):
            cell_outputs, cell_state = self._cell(inputs, state)
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            sample_ids = self._helper.sample(time=time, outputs=cell_outputs, state=cell_state)
            finished, next_inputs, next_state = self._helper.next_inputs(
                time=time, outputs=cell_outputs, state=cell_state, sample_ids=sample_ids)
        return BasicDecoderOutput(cell_outputs, sample_ids), next_state, next_inputs, finished
