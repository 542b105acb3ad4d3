"""``tf.nn.rnn_cell``'s cells: ``BasicRNNCell``, ``GRUCell``, ``BasicLSTMCell``,
``LSTMCell`` (peepholes, clipping, projection), ``MultiRNNCell``, and the
LSTM state ``LSTMStateTuple``. Each creates its weights in ``build`` with
TF1's names (see ``rnn_cell_impl`` for the scoping rules) and computes one
step in ``call`` with TF1's ops, in TF1's order.

>>> import dflow as tf
>>> cell = tf.nn.rnn_cell.LSTMCell(4, num_proj=2)
>>> cell.state_size, cell.output_size
(LSTMStateTuple(c=4, h=2), 2)
"""

from __future__ import annotations

import collections

from dflow._api import tf_export
from dflow.framework import dtypes, nest
from dflow.framework.constant_op import constant
from dflow.framework.graph import name_scope
from dflow.framework.tensor_shape import as_shape
from dflow.ops.array import array_ops, slicing_ops
from dflow.ops.linalg import linalg_ops
from dflow.ops.math import math_ops, unary_math_ops
from dflow.ops.nn import nn_ops
from dflow.ops.rnn.rnn_cell_impl import (
    LayerRNNCell,
    RNNCell,
    _activation,
    _check_rnn_cell_input_dtypes,
    _check_supported_dtypes,
    _zero_state_tensors,
)
from dflow.ops.state import init_ops
from dflow.ops.state.variable_scope import variable_scope

_BIAS = "bias"
_KERNEL = "kernel"


def _as_units(num_units, what: str) -> int:
    if isinstance(num_units, bool) or not isinstance(num_units, int) or num_units <= 0:
        try:
            value = int(num_units)
        except (TypeError, ValueError):
            value = None
        if value is None or value <= 0 or value != num_units:
            raise ValueError(f"{what} must be a positive integer, got {num_units!r}")
        return value
    return num_units


def _input_depth(cell, inputs_shape) -> int:
    """The input's last dimension, which ``build`` needs known; checks the cell's dtype too."""
    _check_supported_dtypes(cell.dtype)
    dims = as_shape(inputs_shape).as_list() if as_shape(inputs_shape).ndims else [None]
    if dims[-1] is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, received shape: {tuple(dims)}")
    return dims[-1]


@tf_export("nn.rnn_cell.BasicRNNCell")
class BasicRNNCell(LayerRNNCell):
    """``output = new_state = activation(W [inputs, state] + b)``."""

    _input_ndim = 2

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self._num_units = _as_units(num_units, "num_units")
        self._activation = _activation(activation)

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        self._kernel = self.add_weight(_KERNEL, shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_weight(_BIAS, shape=[self._num_units], initializer=init_ops.zeros_initializer())
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = linalg_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        output = self._activation(gate_inputs)
        return output, output


@tf_export("nn.rnn_cell.GRUCell")
class GRUCell(LayerRNNCell):
    """Gated recurrent unit: ``gates/`` (reset, update) and ``candidate/`` weights, as TF1's."""

    _input_ndim = 2

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self._num_units = _as_units(num_units, "num_units")
        self._activation = _activation(activation)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        bias_init = self._bias_initializer
        self._gate_kernel = self.add_weight(f"gates/{_KERNEL}", shape=[depth + n, 2 * n],
                                            initializer=self._kernel_initializer)
        self._gate_bias = self.add_weight(f"gates/{_BIAS}", shape=[2 * n], initializer=(
            bias_init if bias_init is not None else init_ops.constant_initializer(1.0)))
        self._candidate_kernel = self.add_weight(f"candidate/{_KERNEL}", shape=[depth + n, n],
                                                 initializer=self._kernel_initializer)
        self._candidate_bias = self.add_weight(f"candidate/{_BIAS}", shape=[n], initializer=(
            bias_init if bias_init is not None else init_ops.zeros_initializer()))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = linalg_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._gate_bias)
        value = unary_math_ops.sigmoid(gate_inputs)
        r, u = array_ops.split(value=value, num_or_size_splits=2, axis=1)
        r_state = r * state
        candidate = linalg_ops.matmul(array_ops.concat([inputs, r_state], 1), self._candidate_kernel)
        candidate = nn_ops.bias_add(candidate, self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


_LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ("c", "h"))


@tf_export("nn.rnn_cell.LSTMStateTuple")
class LSTMStateTuple(_LSTMStateTuple):
    """An LSTM's state ``(c, h)``: the cell state and the output."""

    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent dtypes for internal state: {c.dtype.name} vs {h.dtype.name}")
        return c.dtype


def _lstm_state(state, state_is_tuple: bool, c_size: int, h_size: int):
    if state_is_tuple:
        c, h = state
        return c, h
    c = slicing_ops.slice(state, [0, 0], [-1, c_size])
    h = slicing_ops.slice(state, [0, c_size], [-1, h_size])
    return c, h


@tf_export("nn.rnn_cell.BasicLSTMCell")
class BasicLSTMCell(LayerRNNCell):
    """The basic LSTM cell: no peepholes, clipping or projection (see ``LSTMCell``).

    One ``kernel`` computes the gates ``i, j, f, o`` (in that order);
    ``forget_bias`` is added to the forget gate.
    """

    _input_ndim = 2

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self._num_units = _as_units(num_units, "num_units")
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        self._kernel = self.add_weight(_KERNEL, shape=[depth + n, 4 * n])
        self._bias = self.add_weight(_BIAS, shape=[4 * n], initializer=init_ops.zeros_initializer())
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        one = constant(1, dtype=dtypes.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = linalg_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        i, j, f, o = array_ops.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias = constant(self._forget_bias, dtype=f.dtype)
        sigmoid = unary_math_ops.sigmoid
        new_c = math_ops.add(math_ops.multiply(c, sigmoid(math_ops.add(f, forget_bias))),
                             math_ops.multiply(sigmoid(i), self._activation(j)))
        new_h = math_ops.multiply(self._activation(new_c), sigmoid(o))
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else array_ops.concat([new_c, new_h], 1)
        return new_h, new_state


def _shards(num_shards):
    """TF1's LSTMCell splits a weight into ``num_shards`` parts along its rows (or keeps it whole)."""
    from dflow.ops.state.partitioned_variables import fixed_size_partitioner

    return None if num_shards is None else fixed_size_partitioner(num_shards)


@tf_export("nn.rnn_cell.LSTMCell")
class LSTMCell(LayerRNNCell):
    """The LSTM cell with optional peepholes, clipping and an output projection.

    Peepholes are ``w_f_diag``, ``w_i_diag``, ``w_o_diag``; ``cell_clip``
    clips the cell state; ``num_proj`` projects the output
    (``projection/kernel``), clipped by ``proj_clip``.
    """

    _input_ndim = 2

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None,
                 proj_clip=None, num_unit_shards=None, num_proj_shards=None, forget_bias=1.0, state_is_tuple=True,
                 activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self._num_unit_shards = num_unit_shards
        self._num_proj_shards = num_proj_shards
        self._num_units = _as_units(num_units, "num_units")
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)
        h = num_proj if num_proj else num_units
        self._state_size = LSTMStateTuple(num_units, h) if state_is_tuple else num_units + h
        self._output_size = h

    state_size = property(lambda self: self._state_size)
    output_size = property(lambda self: self._output_size)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        h_depth = n if self._num_proj is None else self._num_proj
        self._kernel = self.add_weight(_KERNEL, shape=[depth + h_depth, 4 * n], initializer=self._initializer,
                                       partitioner=_shards(self._num_unit_shards))
        self._bias = self.add_weight(_BIAS, shape=[4 * n], initializer=init_ops.zeros_initializer())
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", shape=[n], initializer=self._initializer)
            self._w_i_diag = self.add_weight("w_i_diag", shape=[n], initializer=self._initializer)
            self._w_o_diag = self.add_weight("w_o_diag", shape=[n], initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_weight(f"projection/{_KERNEL}", shape=[n, self._num_proj],
                                                initializer=self._initializer,
                                                partitioner=_shards(self._num_proj_shards))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = unary_math_ops.sigmoid
        c_prev, m_prev = _lstm_state(state, self._state_is_tuple, self._num_units, num_proj)
        shape = inputs.shape.with_rank(2)
        if shape.as_list()[1] is None:
            raise ValueError(f"Could not infer input size from inputs.get_shape()[-1].Received input shape: {shape}")
        lstm_matrix = linalg_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel)
        lstm_matrix = nn_ops.bias_add(lstm_matrix, self._bias)
        i, j, f, o = array_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = math_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = linalg_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = math_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else array_ops.concat([c, m], 1)
        return m, new_state


@tf_export("nn.rnn_cell.MultiRNNCell")
class MultiRNNCell(RNNCell):
    """Cells stacked in order, each one's output the next one's input.

    Cell ``i`` works in the variable scope ``cell_i``.
    """

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_nested(cells):
            raise TypeError(f"cells must be a list or tuple, but received: {cells}.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(nest.is_nested(c.state_size) for c in self._cells):
            raise ValueError(f"Some cells return tuples of states, but the flag state_is_tuple is not set. State "
                             f"sizes are: {[c.state_size for c in self._cells]}")

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return _zero_state_tensors(self.state_size, batch_size, dtypes.as_dtype(dtype))

    @property
    def trainable_weights(self) -> list:
        if not self.trainable:
            return []
        return [w for cell in self._cells if isinstance(cell, RNNCell) for w in cell.trainable_weights]

    @property
    def non_trainable_weights(self) -> list:
        weights = [w for cell in self._cells if isinstance(cell, RNNCell) for w in cell.non_trainable_weights]
        if not self.trainable:
            trainable = [w for cell in self._cells if isinstance(cell, RNNCell) for w in cell.trainable_weights]
            return trainable + weights
        return weights

    def call(self, inputs, state):
        cur_state_pos = 0
        cur_inp = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not nest.is_nested(state):
                        raise ValueError(f"Expected state to be a tuple of length {len(self.state_size)}, but "
                                         f"received: {state}")
                    cur_state = state[i]
                else:
                    cur_state = slicing_ops.slice(state, [0, cur_state_pos], [-1, cell.state_size])
                    cur_state_pos += cell.state_size
                cur_inp, new_state = cell(cur_inp, cur_state)
                new_states.append(new_state)
        new_states = tuple(new_states) if self._state_is_tuple else array_ops.concat(new_states, 1)
        return cur_inp, new_states
