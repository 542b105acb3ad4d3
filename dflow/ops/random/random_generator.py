"""``tf.random.Generator`` and its companions (``create_rng_state``, ``get_global_generator``,
``set_global_generator``): TF2's stateful RNG, in a TF1 graph.

A Generator keeps TF's Philox state ``[counter_lo, counter_hi, key]`` (int64)
in a non-trainable variable, so ``global_variables_initializer`` sets it up
and a checkpoint saves it. Each sampling op advances the counter atomically by
what TF advances it (256 blocks per output value) and draws from the blocks
before the move, with the samplers of the stateless ops: a Generator made
``from_seed`` gives TF's numbers, call after call.
"""

from __future__ import annotations

import os
import weakref

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import Tensor, get_default_graph, name_scope
from dflow.framework.op_registry import not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import philox as _philox
from dflow.ops.math import math_ops
from dflow.ops.random.random_ops import dims_of, shape_from_tensor, shape_tensor
from dflow.ops.random.stateless_random_ops import Algorithm, _split_shape
from dflow.ops.state import variables

_STATE_SIZE = 3  # Philox: a 128-bit counter and a 64-bit key


def _algorithm_id(alg) -> int:
    if alg is None:
        return Algorithm.PHILOX
    value = getattr(alg, "value", alg)
    if isinstance(value, str):
        value = {"philox": Algorithm.PHILOX, "auto_select": Algorithm.AUTO_SELECT,
                 "threefry": Algorithm.THREEFRY}.get(value.lower(), value)
    if value == Algorithm.AUTO_SELECT:
        return Algorithm.PHILOX
    if value != Algorithm.PHILOX:
        raise NotImplementedError(f"tf.random.Generator: only the Philox algorithm is implemented, got {alg!r}")
    return value


def _state_from_seed(seed) -> np.ndarray:
    """TF's ``create_rng_state``: an int seed is cut into 64-bit words, a list is left-padded with zeros."""
    if isinstance(seed, Tensor):
        from dflow.framework.op_registry import constant_value

        value = constant_value(seed)
        if value is None:
            raise NotImplementedError("create_rng_state: the seed must be known at graph time")
        seed = value
    if isinstance(seed, (int, np.integer)):
        seed = int(seed)
        words = []
        for _ in range(_STATE_SIZE):
            words.append(seed & 0xFFFFFFFFFFFFFFFF)
            seed >>= 64
    else:
        words = [int(v) & 0xFFFFFFFFFFFFFFFF for v in np.ravel(seed)][:_STATE_SIZE]
        words = [0] * (_STATE_SIZE - len(words)) + words
    return np.array([w - (1 << 64) if w >= 1 << 63 else w for w in words], np.int64)


@tf_export("random.create_rng_state")
def create_rng_state(seed, alg) -> Tensor:
    """The Philox state ``[counter_lo, counter_hi, key]`` (int64) that ``seed`` gives, as TF makes it."""
    _algorithm_id(alg)
    return constant(_state_from_seed(seed), dtype=dtypes.int64)


# -- the sampling op -----------------------------------------------------------------------------------


def _blocks_used(kind: str, dims, params) -> int:
    """How far TF moves the counter for one call: 256 blocks per unit of its ``output_size``."""
    n = int(np.prod(dims, dtype=np.int64))
    if kind == "binomial":
        samples, (counts, _) = _split_shape(dims, params)
        batches = counts.size
        return batches * 2 * 100 * (samples + 3) // 4 * 256
    return n * 256


def _sample(stream, kind: str, dims, params, dtype):
    n = int(np.prod(dims, dtype=np.int64))
    np_dtype = dtype.as_numpy_dtype
    if kind == "uniform":
        return _philox.uniform(stream, n, np_dtype).reshape(dims)
    if kind == "normal":
        return _philox.normal(stream, n, np_dtype).reshape(dims)
    if kind == "truncated_normal":
        return _philox.truncated_normal(stream, n, np_dtype).reshape(dims)
    if kind == "full_int":
        return _philox.full_int(stream, n, np_dtype).reshape(dims)
    if kind == "uniform_int":
        lo, hi = (int(p) for p in params)
        if lo >= hi:
            raise variables.errors.InvalidArgumentError(None, None, f"Need minval < maxval: {lo} >= {hi}")
        return _philox.uniform_int(stream, n, lo, hi, np_dtype).reshape(dims)
    samples, (counts, probs) = _split_shape(dims, params)
    out = _philox.binomial(stream, np.repeat(counts, samples), np.repeat(probs, samples))
    return out.reshape(counts.size, samples).T.astype(np_dtype).reshape(dims)


def _generator_sample_infer(op):
    return [(op._attrs["dtype"], shape_from_tensor(op._inputs[0]))]


def _generator_sample_kernel(op, resources):
    state = variables._state(op, op._attrs["var"], resources)
    kind, dtype = op._attrs["kind"], op._attrs["dtype"]

    def kernel(shape, *params):
        dims = dims_of(shape)
        delta = _blocks_used(kind, dims, params)
        new = state.update(lambda value: _philox.advance_state(value, delta))
        stream = _philox.Stream.from_state(_philox.advance_state(new, -delta))
        return np.asarray(_sample(stream, kind, dims, params, dtype), dtype.as_numpy_dtype)

    return kernel


register("_GeneratorSample", infer=_generator_sample_infer, make_kernel=_generator_sample_kernel, stateful=True)
not_differentiable("_GeneratorSample")


def _read_and_skip_kernel(op, resources):
    state = variables._state(op, op._attrs["var"], resources)

    def kernel(delta):
        blocks = int(delta) * 256
        new = state.update(lambda value: _philox.advance_state(value, blocks))
        return _philox.advance_state(new, -blocks)

    return kernel


register("RngReadAndSkip", infer=lambda op: [(dtypes.int64, TensorShape([_STATE_SIZE]))],
         make_kernel=_read_and_skip_kernel, stateful=True)
not_differentiable("RngReadAndSkip")


# -- Generator ------------------------------------------------------------------------------------------


@tf_export("random.Generator")
class Generator:
    """TF2's ``tf.random.Generator`` over a Philox state variable (see the module docstring).

    >>> import dflow as tf
    >>> g = tf.random.Generator.from_seed(1234)
    >>> x = g.normal([2])   # TF's values: [0.9356609, 1.0854305] on the first run
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("When argument `copy_from` is not None, arguments `state` and `alg` must be None.")
            state, alg = copy_from.state.initialized_value(), copy_from.algorithm
        elif state is None:
            raise ValueError("Generator needs a state (use Generator.from_seed or from_non_deterministic_state)")
        self._alg = _algorithm_id(alg)
        if not isinstance(state, Tensor):
            state = _state_from_seed(state) if np.ndim(state) == 0 else np.asarray(state, np.int64)
        self._state_var = variables.Variable(state, trainable=False, dtype=dtypes.int64, name="StateVar")

    # -- constructors
    @classmethod
    def from_seed(cls, seed, alg=None) -> Generator:
        return cls(state=_state_from_seed(seed), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None) -> Generator:
        seed = int.from_bytes(os.urandom(8 * _STATE_SIZE), "little")
        return cls(state=_state_from_seed(seed), alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg) -> Generator:
        counter = [int(v) for v in np.ravel(counter)]
        return cls(state=_state_from_seed(counter + [int(key)]), alg=alg)

    # -- state
    @property
    def state(self):
        """The state variable ``[counter_lo, counter_hi, key]``."""
        return self._state_var

    @property
    def algorithm(self) -> int:
        return self._alg

    @property
    def key(self) -> Tensor:
        return self._state_var.value()[-1]

    def reset(self, state):
        """An op that sets the state."""
        return self._state_var.assign(convert_to_tensor(state, dtype=dtypes.int64))

    def reset_from_seed(self, seed):
        return self.reset(_state_from_seed(seed))

    def reset_from_key_counter(self, key, counter):
        return self.reset(_state_from_seed([int(v) for v in np.ravel(counter)] + [int(key)]))

    def skip(self, delta) -> Tensor:
        """Advances the state as ``uniform([delta])`` would; the op's value is the state before."""
        delta = convert_to_tensor(delta, dtype=dtypes.int64, name="delta")
        return variables._update_op("RngReadAndSkip", self._state_var.op, [delta], {}, "RngReadAndSkip")

    # -- sampling
    def _sample_op(self, kind, shape, params, dtype, name) -> Tensor:
        shape = shape_tensor(shape)
        var_op = self._state_var.op
        return variables._update_op("_GeneratorSample", var_op, [shape, *params],
                                    {"kind": kind, "dtype": dtypes.as_dtype(dtype)}, name or "GeneratorSample")

    def _scaled(self, kind: str, default_name: str, shape, mean, stddev, dtype, name) -> Tensor:
        with name_scope(name, default_name, [shape, mean, stddev]) as scope:
            mean = convert_to_tensor(mean, dtype=dtype, name="mean")
            stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
            rnd = self._sample_op(kind, shape, (), dtype, None)
            return math_ops.add(rnd * stddev, mean, name=scope)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None) -> Tensor:
        return self._scaled("normal", "stateful_normal", shape, mean, stddev, dtype, name)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None) -> Tensor:
        return self._scaled("truncated_normal", "truncated_normal", shape, mean, stddev, dtype, name)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None) -> Tensor:
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(f"For integer `dtype` argument {dtype}, argument `minval` and `maxval` must be "
                                 f"both None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        elif maxval is None:
            maxval = 1
        with name_scope(name, "stateful_uniform", [shape, minval, maxval]) as scope:
            if dtype.is_integer and minval is None:
                return self._sample_op("full_int", shape, (), dtype, scope)
            lo = convert_to_tensor(minval, dtype=dtype, name="min")
            hi = convert_to_tensor(maxval, dtype=dtype, name="max")
            if dtype.is_integer:
                return self._sample_op("uniform_int", shape, (lo, hi), dtype, scope)
            rnd = self._sample_op("uniform", shape, (), dtype, None)
            return math_ops.add(rnd * (hi - lo), lo, name=scope)

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None) -> Tensor:
        with name_scope(name, "stateful_uniform_full_int", [shape]) as scope:
            return self._sample_op("full_int", shape, (), dtype, scope)

    def binomial(self, shape, counts, probs, dtype=dtypes.int32, name=None) -> Tensor:
        with name_scope(name, "binomial", [shape, counts, probs]) as scope:
            probs = convert_to_tensor(probs, preferred_dtype=dtypes.float32, name="probs")
            counts = convert_to_tensor(counts, preferred_dtype=probs.dtype, name="counts")
            return self._sample_op("binomial", shape, (counts, probs), dtype, scope)

    def make_seeds(self, count=1) -> Tensor:
        """``[2, count]`` seeds for the stateless ops (the int64 keys and zeros, as TF)."""
        keys = self.uniform_full_int([count], dtype=dtypes.int64)
        return array_ops.stack([keys, creation_ops.zeros_like(keys)])

    def split(self, count=1) -> list:
        """``count`` new Generators whose keys this one draws (counters zero, as TF)."""
        keys = self.uniform_full_int([count], dtype=dtypes.int64)
        states = array_ops.stack([creation_ops.zeros_like(keys), creation_ops.zeros_like(keys), keys], axis=1)
        return [Generator(state=states[i], alg=self._alg) for i in range(count)]


_GLOBAL: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@tf_export("random.get_global_generator")
def get_global_generator() -> Generator:
    """The default graph's global Generator (from a non-deterministic state unless one was set)."""
    graph = get_default_graph()
    if graph not in _GLOBAL:
        _GLOBAL[graph] = Generator.from_non_deterministic_state()
    return _GLOBAL[graph]


@tf_export("random.set_global_generator")
def set_global_generator(generator: Generator) -> None:
    """Makes ``generator`` the global Generator (of the default graph: dflow keeps one per graph)."""
    if not isinstance(generator, Generator):
        raise TypeError(f"set_global_generator expects a tf.random.Generator, got {type(generator).__name__}")
    _GLOBAL[get_default_graph()] = generator


from dflow.ops.array import array_ops, creation_ops  # noqa: E402 - composite helpers
