"""``tf.contrib.seq2seq``'s helpers: how a ``BasicDecoder`` samples ids and picks its next inputs.

As TF 1.15's: ``TrainingHelper`` reads the next input from a (batch-major unless ``time_major``) input
sequence and reports an entry finished once ``time + 1 >= sequence_length``; ``GreedyEmbeddingHelper``
feeds back the embedding of the argmax id and finishes an entry at ``end_token``;
``SampleEmbeddingHelper`` samples the id instead (``softmax_temperature``);
``ScheduledEmbeddingTrainingHelper`` mixes the two with ``sampling_probability``; ``CustomHelper`` takes
the three functions.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes, nest
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.array import creation_ops, gather_ops, select_ops, shape_ops, tiling_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.embedding import embedding_ops
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.random import random_ops
from dflow.ops.rnn.rnn import _transpose_batch_time
from dflow.ops.state.tensor_array_ops import TensorArray

__all__ = ["Helper", "CustomHelper", "TrainingHelper", "GreedyEmbeddingHelper", "SampleEmbeddingHelper",
           "ScheduledEmbeddingTrainingHelper"]


def _unstack_ta(inp):
    return TensorArray(dtype=inp.dtype, size=shape_ops.shape(inp)[0], element_shape=inp.shape[1:]).unstack(inp)


def _embedding_fn(embedding):
    if callable(embedding):
        return embedding
    return lambda ids: embedding_ops.embedding_lookup(embedding, ids)


def _argmax_ids(outputs):
    return math_ops.cast(reduction_ops.argmax(outputs, axis=-1), dtypes.int32)


def _sample_ids(logits, seed=None):
    """One categorical draw per row of ``[batch, classes]`` logits (int32 ``[batch]``)."""
    draws = random_ops.multinomial(logits, 1, seed=seed, output_dtype=dtypes.int32)
    return shape_ops.reshape(draws, [-1])


@tf_export("contrib.seq2seq.Helper")
class Helper:
    """The interface ``BasicDecoder`` samples through: ``initialize``, ``sample``, ``next_inputs``."""

    @property
    def batch_size(self):
        """The batch size of what ``sample`` returns (a scalar int32 tensor)."""
        raise NotImplementedError("batch_size has not been implemented")

    @property
    def sample_ids_shape(self):
        """The shape of each batch entry's sample ids (``TensorShape([])`` for one id)."""
        raise NotImplementedError("sample_ids_shape has not been implemented")

    @property
    def sample_ids_dtype(self):
        raise NotImplementedError("sample_ids_dtype has not been implemented")

    def initialize(self, name=None):
        """``(initial_finished, initial_inputs)``."""
        raise NotImplementedError

    def sample(self, time, outputs, state, name=None):
        """``sample_ids``."""
        raise NotImplementedError

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        """``(finished, next_inputs, next_state)``."""
        raise NotImplementedError


@tf_export("contrib.seq2seq.CustomHelper")
class CustomHelper(Helper):
    """A helper from three functions: ``initialize_fn()``, ``sample_fn(time, outputs, state)`` and
    ``next_inputs_fn(time, outputs, state, sample_ids)``."""

    def __init__(self, initialize_fn, sample_fn, next_inputs_fn, sample_ids_shape=None, sample_ids_dtype=None):
        self._initialize_fn = initialize_fn
        self._sample_fn = sample_fn
        self._next_inputs_fn = next_inputs_fn
        self._batch_size = None
        self._sample_ids_shape = TensorShape(sample_ids_shape or [])
        self._sample_ids_dtype = sample_ids_dtype or dtypes.int32

    @property
    def batch_size(self):
        if self._batch_size is None:
            raise ValueError("batch_size accessed before initialize was called")
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return self._sample_ids_shape

    @property
    def sample_ids_dtype(self):
        return self._sample_ids_dtype

    def initialize(self, name=None):
        with name_scope(name, f"{type(self).__name__}Initialize"):
            finished, next_inputs = self._initialize_fn()
            if self._batch_size is None:
                self._batch_size = shape_ops.size(finished)
        return finished, next_inputs

    def sample(self, time, outputs, state, name=None):
        with name_scope(name, f"{type(self).__name__}Sample"):
            return self._sample_fn(time=time, outputs=outputs, state=state)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with name_scope(name, f"{type(self).__name__}NextInputs"):
            return self._next_inputs_fn(time=time, outputs=outputs, state=state, sample_ids=sample_ids)


@tf_export("contrib.seq2seq.TrainingHelper")
class TrainingHelper(Helper):
    """Teacher forcing: step ``t`` reads ``inputs[:, t]``; the sample ids are the outputs' argmax."""

    def __init__(self, inputs, sequence_length, time_major=False, name=None):
        with name_scope(name, "TrainingHelper"):
            inputs = nest.map_structure(lambda x: convert_to_tensor(x, name="inputs"), inputs)
            self._inputs = inputs
            if not time_major:
                inputs = nest.map_structure(_transpose_batch_time, inputs)
            self._input_tas = nest.map_structure(_unstack_ta, inputs)
            self._sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if self._sequence_length.shape.ndims != 1:
                raise ValueError(f"Expected sequence_length to be a vector, but received shape: "
                                 f"{self._sequence_length.shape}")
            self._zero_inputs = nest.map_structure(lambda inp: creation_ops.zeros_like(inp[0, :]), inputs)
            self._batch_size = shape_ops.size(sequence_length)

    @property
    def inputs(self):
        return self._inputs

    @property
    def sequence_length(self):
        return self._sequence_length

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return TensorShape([])

    @property
    def sample_ids_dtype(self):
        return dtypes.int32

    def initialize(self, name=None):
        with name_scope(name, "TrainingHelperInitialize"):
            finished = math_ops.equal(0, self._sequence_length)
            all_finished = reduction_ops.reduce_all(finished)
            next_inputs = control_flow_ops.cond(
                all_finished, lambda: self._zero_inputs,
                lambda: nest.map_structure(lambda inp: inp.read(0), self._input_tas))
            return finished, next_inputs

    def sample(self, time, outputs, name=None, **unused_kwargs):
        with name_scope(name, "TrainingHelperSample"):
            return _argmax_ids(outputs)

    def next_inputs(self, time, outputs, state, name=None, **unused_kwargs):
        with name_scope(name, "TrainingHelperNextInputs"):
            next_time = time + 1
            finished = math_ops.greater_equal(next_time, self._sequence_length)
            all_finished = reduction_ops.reduce_all(finished)
            next_inputs = control_flow_ops.cond(
                all_finished, lambda: self._zero_inputs,
                lambda: nest.map_structure(lambda inp: inp.read(next_time), self._input_tas))
            return finished, next_inputs, state


@tf_export("contrib.seq2seq.ScheduledEmbeddingTrainingHelper")
class ScheduledEmbeddingTrainingHelper(TrainingHelper):
    """Teacher forcing where, with ``sampling_probability``, an entry's next input is instead the
    embedding of an id sampled from the outputs; its sample id is -1 where no sampling took place."""

    def __init__(self, inputs, sequence_length, embedding, sampling_probability, time_major=False, seed=None,
                 scheduling_seed=None, name=None):
        with name_scope(name, "ScheduledEmbeddingSamplingWrapper"):
            self._embedding_fn = _embedding_fn(embedding)
            self._sampling_probability = convert_to_tensor(sampling_probability, name="sampling_probability")
            if self._sampling_probability.shape.ndims not in (0, 1):
                raise ValueError(f"sampling_probability must be either a scalar or a vector. saw shape: "
                                 f"{self._sampling_probability.shape}")
            self._seed = seed
            self._scheduling_seed = scheduling_seed
            super().__init__(inputs=inputs, sequence_length=sequence_length, time_major=time_major, name=name)

    def sample(self, time, outputs, state, name=None):
        with name_scope(name, "ScheduledEmbeddingTrainingHelperSample"):
            noise = random_ops.random_uniform([self.batch_size], seed=self._scheduling_seed)
            select_sample = math_ops.greater(self._sampling_probability, noise)
            return select_ops.where(select_sample, _sample_ids(outputs, seed=self._seed),
                                    tiling_ops.tile([-1], [self.batch_size]))

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with name_scope(name, "ScheduledEmbeddingTrainingHelperNextInputs"):
            finished, base_next_inputs, state = super().next_inputs(time=time, outputs=outputs, state=state,
                                                                    sample_ids=sample_ids, name=name)

            def maybe_sample():
                where_sampling = math_ops.cast(select_ops.where(math_ops.greater(sample_ids, -1)), dtypes.int32)
                where_not_sampling = math_ops.cast(select_ops.where(math_ops.less_equal(sample_ids, -1)),
                                                   dtypes.int32)
                sample_ids_sampling = gather_ops.gather(sample_ids, shape_ops.reshape(where_sampling, [-1]))
                inputs_not_sampling = gather_ops.gather(base_next_inputs,
                                                        shape_ops.reshape(where_not_sampling, [-1]))
                sampled_next_inputs = self._embedding_fn(sample_ids_sampling)
                base_shape = shape_ops.shape(base_next_inputs)
                return (gather_ops.scatter_nd(where_sampling, sampled_next_inputs, base_shape)
                        + gather_ops.scatter_nd(where_not_sampling, inputs_not_sampling, base_shape))

            all_finished = reduction_ops.reduce_all(finished)
            next_inputs = control_flow_ops.cond(all_finished, lambda: base_next_inputs, maybe_sample)
            return finished, next_inputs, state


@tf_export("contrib.seq2seq.GreedyEmbeddingHelper")
class GreedyEmbeddingHelper(Helper):
    """Inference: the sample id is the outputs' argmax, the next input its embedding; an entry
    finishes when it samples ``end_token``."""

    def __init__(self, embedding, start_tokens, end_token):
        self._embedding_fn = _embedding_fn(embedding)
        self._start_tokens = convert_to_tensor(start_tokens, dtype=dtypes.int32, name="start_tokens")
        self._end_token = convert_to_tensor(end_token, dtype=dtypes.int32, name="end_token")
        if self._start_tokens.shape.ndims != 1:
            raise ValueError("start_tokens must be a vector")
        self._batch_size = shape_ops.size(start_tokens)
        if self._end_token.shape.ndims != 0:
            raise ValueError("end_token must be a scalar")
        self._start_inputs = self._embedding_fn(self._start_tokens)

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return TensorShape([])

    @property
    def sample_ids_dtype(self):
        return dtypes.int32

    def initialize(self, name=None):
        finished = tiling_ops.tile([False], [self._batch_size])
        return finished, self._start_inputs

    def sample(self, time, outputs, state, name=None):
        if not isinstance(outputs, Tensor):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {type(outputs)}")
        return _argmax_ids(outputs)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        finished = math_ops.equal(sample_ids, self._end_token)
        all_finished = reduction_ops.reduce_all(finished)
        next_inputs = control_flow_ops.cond(all_finished, lambda: self._start_inputs,
                                            lambda: self._embedding_fn(sample_ids))
        return finished, next_inputs, state


@tf_export("contrib.seq2seq.SampleEmbeddingHelper")
class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """As ``GreedyEmbeddingHelper``, but the id is drawn from ``softmax(outputs / softmax_temperature)``."""

    def __init__(self, embedding, start_tokens, end_token, softmax_temperature=None, seed=None):
        super().__init__(embedding, start_tokens, end_token)
        self._softmax_temperature = softmax_temperature
        self._seed = seed

    def sample(self, time, outputs, state, name=None):
        if not isinstance(outputs, Tensor):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {type(outputs)}")
        logits = outputs if self._softmax_temperature is None else outputs / self._softmax_temperature
        return _sample_ids(logits, seed=self._seed)

