"""``tf.contrib.rnn``'s own cells and functions (the ones TF 1.15 did not re-export from ``tf.nn``;
those are aliased in ``aliases.py``), with TF 1.15's arguments, defaults and variable names.

* ``LayerNormBasicLSTMCell``: one ``kernel`` for the gates ``i, j, f, o`` (a ``bias`` only
  without layer norm), each gate and the new cell state layer-normalized with their own
  ``input/``, ``transform/``, ``forget/``, ``output/``, ``state/`` ``gamma`` and ``beta``;
  recurrent dropout on the candidate (``dropout_keep_prob``);
* ``AttentionCellWrapper``: attention over the last ``attn_length`` outputs (TF's variables
  ``kernel``/``bias``, ``attention/attn_w``, ``attention/attn_v``, ``attention/kernel``/``bias``,
  ``attn_output_projection/kernel``/``bias``);
* ``LSTMBlockCell``: TF's fused LSTM as ops (scope ``lstm_cell``, ``kernel``, ``bias``,
  peepholes ``w_i_diag``, ``w_f_diag``, ``w_o_diag``); ``GRUBlockCell`` (``w_ru``, ``b_ru``,
  ``w_c``, ``b_c``) and ``GRUBlockCellV2`` (``gates/kernel``, ...; scope ``gru_cell``);
  ``UGRNNCell``;
* ``stack_bidirectional_dynamic_rnn`` and ``stack_bidirectional_rnn``: layers of bidirectional
  RNNs (scopes ``stack_bidirectional_rnn/cell_i``), each layer's outputs concatenated as the
  next one's inputs.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes, nest
from dflow.framework.tensor_shape import as_shape
from dflow.ops.array import array_ops, shape_ops, slicing_ops
from dflow.ops.linalg import linalg_ops
from dflow.ops.math import math_ops, reduction_ops, unary_math_ops
from dflow.ops.nn import nn_activations, nn_norm_ops, nn_ops
from dflow.ops.rnn import rnn
from dflow.ops.rnn.rnn_cell_impl import LayerRNNCell, RNNCell, _activation, assert_like_rnncell
from dflow.ops.rnn.rnn_cells import LSTMStateTuple, _as_units, _input_depth
from dflow.ops.state import init_ops
from dflow.ops.state.variable_scope import get_variable, get_variable_scope, variable_scope


def _last_dim(x) -> int:
    dims = as_shape(x.shape).as_list() if x.shape.ndims is not None else [None]
    if dims[-1] is None:
        raise ValueError(f"linear expects shape[1] to be provided for shape {x.shape}, but saw None.")
    return dims[-1]


class _Linear:
    """``core_rnn_cell._Linear``: ``concat(args) @ kernel + bias``, its variables ``kernel`` and ``bias``
    made in the variable scope current at construction."""

    def __init__(self, args, output_size, build_bias, bias_initializer=None, kernel_initializer=None):
        args = list(args) if nest.is_nested(args) else [args]
        self._is_sequence = len(args) > 1
        total = sum(_last_dim(a) for a in args)
        dtype = args[0].dtype.base_dtype
        self._weights = get_variable("kernel", [total, output_size], dtype=dtype, initializer=kernel_initializer)
        self._biases = None
        if build_bias:
            init = bias_initializer if bias_initializer is not None else init_ops.constant_initializer(0.0,
                                                                                                       dtype=dtype)
            self._biases = get_variable("bias", [output_size], dtype=dtype, initializer=init)

    def __call__(self, args):
        args = list(args) if nest.is_nested(args) else [args]
        x = args[0] if len(args) == 1 else array_ops.concat(args, 1)
        res = linalg_ops.matmul(x, self._weights)
        return res if self._biases is None else nn_ops.bias_add(res, self._biases)


# -- LayerNormBasicLSTMCell ------------------------------------------------------------------------


@tf_export("contrib.rnn.LayerNormBasicLSTMCell")
class LayerNormBasicLSTMCell(RNNCell):
    """An LSTM with layer normalization (Ba et al.) before the nonlinearities and recurrent dropout
    (Semeniuta et al.) on the candidate values; its state is an ``LSTMStateTuple``."""

    def __init__(self, num_units, forget_bias=1.0, input_size=None, activation=None, layer_norm=True,
                 norm_gain=1.0, norm_shift=0.0, dropout_keep_prob=1.0, dropout_prob_seed=None, reuse=None):
        super().__init__(_reuse=reuse)
        self._num_units = _as_units(num_units, "num_units")
        self._activation = _activation(activation)
        self._forget_bias = forget_bias
        self._keep_prob = dropout_keep_prob
        self._seed = dropout_prob_seed
        self._layer_norm = layer_norm
        self._norm_gain = norm_gain
        self._norm_shift = norm_shift

    state_size = property(lambda self: LSTMStateTuple(self._num_units, self._num_units))
    output_size = property(lambda self: self._num_units)

    def _norm(self, inp, scope, dtype=dtypes.float32):
        """``contrib.layers.layer_norm`` over the last axis with ``scope/gamma`` and ``scope/beta``."""
        shape = inp.shape[-1:]
        with variable_scope(scope):
            gamma = get_variable("gamma", shape=shape, initializer=init_ops.constant_initializer(self._norm_gain),
                                 dtype=dtype)
            beta = get_variable("beta", shape=shape, initializer=init_ops.constant_initializer(self._norm_shift),
                                dtype=dtype)
            mean, variance = nn_norm_ops.moments(inp, [1], keep_dims=True)
            return nn_norm_ops.batch_normalization(inp, mean, variance, offset=beta, scale=gamma,
                                                   variance_epsilon=1e-12)

    def _linear(self, args):
        out_size = 4 * self._num_units
        dtype = args.dtype
        weights = get_variable("kernel", [_last_dim(args), out_size], dtype=dtype)
        out = linalg_ops.matmul(args, weights)
        if not self._layer_norm:
            bias = get_variable("bias", [out_size], dtype=dtype)
            out = nn_ops.bias_add(out, bias)
        return out

    def call(self, inputs, state):
        c, h = state
        args = array_ops.concat([inputs, h], 1)
        concat = self._linear(args)
        dtype = args.dtype
        i, j, f, o = array_ops.split(value=concat, num_or_size_splits=4, axis=1)
        if self._layer_norm:
            i = self._norm(i, "input", dtype=dtype)
            j = self._norm(j, "transform", dtype=dtype)
            f = self._norm(f, "forget", dtype=dtype)
            o = self._norm(o, "output", dtype=dtype)
        g = self._activation(j)
        if not isinstance(self._keep_prob, float) or self._keep_prob < 1:
            g = nn_ops.dropout(g, self._keep_prob, seed=self._seed)
        sigmoid = unary_math_ops.sigmoid
        new_c = c * sigmoid(f + self._forget_bias) + sigmoid(i) * g
        if self._layer_norm:
            new_c = self._norm(new_c, "state", dtype=dtype)
        new_h = self._activation(new_c) * sigmoid(o)
        return new_h, LSTMStateTuple(new_c, new_h)


# -- AttentionCellWrapper --------------------------------------------------------------------------


@tf_export("contrib.rnn.AttentionCellWrapper")
class AttentionCellWrapper(RNNCell):
    """Adds attention over the cell's last ``attn_length`` outputs (Bahdanau-style, as TF 1.15's).

    The state is ``(cell_state, attns, attn_states)`` (or their concatenation without
    ``state_is_tuple``); the output is ``attn_size`` wide.
    """

    def __init__(self, cell, attn_length, attn_size=None, attn_vec_size=None, input_size=None, state_is_tuple=True,
                 reuse=None):
        super().__init__(_reuse=reuse)
        assert_like_rnncell("cell", cell)
        if nest.is_nested(cell.state_size) and not state_is_tuple:
            raise ValueError(f"Cell returns tuple of states, but the flag state_is_tuple is not set. State size is: "
                             f"{cell.state_size}")
        if attn_length <= 0:
            raise ValueError(f"attn_length should be greater than zero, got {attn_length}")
        if attn_size is None:
            attn_size = cell.output_size
        if attn_vec_size is None:
            attn_vec_size = attn_size
        self._state_is_tuple = state_is_tuple
        self._cell = cell
        self._attn_vec_size = attn_vec_size
        self._input_size = input_size
        self._attn_size = attn_size
        self._attn_length = attn_length
        self._linear1 = self._linear2 = self._linear3 = None

    @property
    def state_size(self):
        size = (self._cell.state_size, self._attn_size, self._attn_size * self._attn_length)
        return size if self._state_is_tuple else sum(size)

    @property
    def output_size(self):
        return self._attn_size

    def call(self, inputs, state):
        if self._state_is_tuple:
            state, attns, attn_states = state
        else:
            states = state
            cs = self._cell.state_size
            state = slicing_ops.slice(states, [0, 0], [-1, cs])
            attns = slicing_ops.slice(states, [0, cs], [-1, self._attn_size])
            attn_states = slicing_ops.slice(states, [0, cs + self._attn_size],
                                            [-1, self._attn_size * self._attn_length])
        attn_states = shape_ops.reshape(attn_states, [-1, self._attn_length, self._attn_size])
        input_size = self._input_size if self._input_size is not None else inputs.shape.as_list()[1]
        if self._linear1 is None:
            self._linear1 = _Linear([inputs, attns], input_size, True)
        inputs = self._linear1([inputs, attns])
        cell_output, new_state = self._cell(inputs, state)
        new_state_cat = array_ops.concat(nest.flatten(new_state), 1) if self._state_is_tuple else new_state
        new_attns, new_attn_states = self._attention(new_state_cat, attn_states)
        with variable_scope("attn_output_projection"):
            if self._linear2 is None:
                self._linear2 = _Linear([cell_output, new_attns], self._attn_size, True)
            output = self._linear2([cell_output, new_attns])
        new_attn_states = array_ops.concat([new_attn_states, shape_ops.expand_dims(output, 1)], 1)
        new_attn_states = shape_ops.reshape(new_attn_states, [-1, self._attn_length * self._attn_size])
        new_state = (new_state, new_attns, new_attn_states)
        if not self._state_is_tuple:
            new_state = array_ops.concat(list(new_state), 1)
        return output, new_state

    def _attention(self, query, attn_states):
        with variable_scope("attention"):
            k = get_variable("attn_w", [1, 1, self._attn_size, self._attn_vec_size])
            v = get_variable("attn_v", [self._attn_vec_size])
            hidden = shape_ops.reshape(attn_states, [-1, self._attn_length, 1, self._attn_size])
            # TF's 1x1 "SAME" conv2d of ``hidden`` with ``k``: a matmul on the flattened positions.
            flat = shape_ops.reshape(attn_states, [-1, self._attn_size])
            features = linalg_ops.matmul(flat, shape_ops.reshape(k, [self._attn_size, self._attn_vec_size]))
            hidden_features = shape_ops.reshape(features, [-1, self._attn_length, 1, self._attn_vec_size])
            if self._linear3 is None:
                self._linear3 = _Linear(query, self._attn_vec_size, True)
            y = shape_ops.reshape(self._linear3(query), [-1, 1, 1, self._attn_vec_size])
            s = reduction_ops.reduce_sum(v * unary_math_ops.tanh(hidden_features + y), [2, 3])
            a = nn_activations.softmax(s)
            d = reduction_ops.reduce_sum(shape_ops.reshape(a, [-1, self._attn_length, 1, 1]) * hidden, [1, 2])
            new_attns = shape_ops.reshape(d, [-1, self._attn_size])
            new_attn_states = slicing_ops.slice(attn_states, [0, 1, 0], [-1, -1, -1])
            return new_attns, new_attn_states


# -- block cells -----------------------------------------------------------------------------------


@tf_export("contrib.rnn.LSTMBlockCell")
class LSTMBlockCell(LayerRNNCell):
    """TF's fused LSTM cell, here as ordinary ops with the same variables and arithmetic:
    gates ``i, j, f, o`` from ``[x, h] @ kernel + bias``; optional peepholes; ``cell_clip``
    clips the cell state (no clipping when None)."""

    _input_ndim = 2

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False, dtype=None, reuse=None,
                 name="lstm_cell"):
        super().__init__(_reuse=reuse, dtype=dtype, name=name)
        self._num_units = _as_units(num_units, "num_units")
        self._forget_bias = forget_bias
        self._use_peephole = use_peephole
        self._cell_clip = cell_clip if cell_clip is not None else -1

    state_size = property(lambda self: LSTMStateTuple(self._num_units, self._num_units))
    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        self._kernel = self.add_weight("kernel", [depth + n, 4 * n])
        self._bias = self.add_weight("bias", [4 * n], initializer=init_ops.constant_initializer(0.0))
        if self._use_peephole:
            self._w_i_diag = self.add_weight("w_i_diag", [n])
            self._w_f_diag = self.add_weight("w_f_diag", [n])
            self._w_o_diag = self.add_weight("w_o_diag", [n])
        self.built = True

    def call(self, inputs, states_prev):
        if len(states_prev) != 2:
            raise ValueError("Expecting states_prev to be a tuple with length 2.")
        cs_prev, h_prev = states_prev
        sigmoid, tanh = unary_math_ops.sigmoid, unary_math_ops.tanh
        gates = nn_ops.bias_add(linalg_ops.matmul(array_ops.concat([inputs, h_prev], 1), self._kernel), self._bias)
        i, ci, f, o = array_ops.split(value=gates, num_or_size_splits=4, axis=1)
        if self._use_peephole:
            i = i + cs_prev * self._w_i_diag
            f = f + cs_prev * self._w_f_diag
        i = sigmoid(i)
        f = sigmoid(f + self._forget_bias)
        cs = tanh(ci) * i + cs_prev * f
        if self._cell_clip > 0:
            cs = math_ops.clip_by_value(cs, -self._cell_clip, self._cell_clip)
        if self._use_peephole:
            o = o + cs * self._w_o_diag
        h = tanh(cs) * sigmoid(o)
        return h, LSTMStateTuple(cs, h)


@tf_export("contrib.rnn.GRUBlockCell")
class GRUBlockCell(LayerRNNCell):
    """TF's fused GRU cell as ops: the arithmetic of ``GRUCell`` with the variables ``w_ru``, ``b_ru``
    (initialized to 1), ``w_c``, ``b_c`` in the scope ``gru_cell``."""

    _input_ndim = 2
    _names = ("w_ru", "b_ru", "w_c", "b_c")

    def __init__(self, num_units=None, cell_size=None, reuse=None, name="gru_cell"):
        super().__init__(_reuse=reuse, name=name)
        if (cell_size is None) == (num_units is None):
            raise ValueError("Exactly one of num_units or cell_size must be provided.")
        self._cell_size = _as_units(num_units if num_units is not None else cell_size, "num_units")

    state_size = property(lambda self: self._cell_size)
    output_size = property(lambda self: self._cell_size)

    def build(self, input_shape):
        depth = _input_depth(self, input_shape)
        n = self._cell_size
        w_ru, b_ru, w_c, b_c = self._names
        self._gate_kernel = self.add_weight(w_ru, [depth + n, 2 * n])
        self._gate_bias = self.add_weight(b_ru, [2 * n], initializer=init_ops.constant_initializer(1.0))
        self._candidate_kernel = self.add_weight(w_c, [depth + n, n])
        self._candidate_bias = self.add_weight(b_c, [n], initializer=init_ops.constant_initializer(0.0))
        self.built = True

    def call(self, inputs, h_prev):
        gates = linalg_ops.matmul(array_ops.concat([inputs, h_prev], 1), self._gate_kernel)
        r, u = array_ops.split(unary_math_ops.sigmoid(nn_ops.bias_add(gates, self._gate_bias)), 2, axis=1)
        c = linalg_ops.matmul(array_ops.concat([inputs, r * h_prev], 1), self._candidate_kernel)
        c = unary_math_ops.tanh(nn_ops.bias_add(c, self._candidate_bias))
        new_h = u * h_prev + (1 - u) * c
        return new_h, new_h


@tf_export("contrib.rnn.GRUBlockCellV2")
class GRUBlockCellV2(GRUBlockCell):
    """``GRUBlockCell`` with ``GRUCell``'s variable names: ``gates/kernel``, ``gates/bias``,
    ``candidate/kernel``, ``candidate/bias``."""

    _names = ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")


@tf_export("contrib.rnn.UGRNNCell")
class UGRNNCell(RNNCell):
    """The update-gate RNN (Collins et al.): ``g = sigmoid(g_act + forget_bias)``,
    ``new_state = g * state + (1 - g) * activation(c_act)`` from one ``kernel``/``bias``."""

    def __init__(self, num_units, initializer=None, forget_bias=1.0, activation=None, reuse=None):
        super().__init__(_reuse=reuse)
        self._num_units = _as_units(num_units, "num_units")
        self._initializer = initializer
        self._forget_bias = forget_bias
        self._activation = _activation(activation)
        self._linear = None

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def call(self, inputs, state):
        with variable_scope(get_variable_scope(), initializer=self._initializer):
            cell_inputs = array_ops.concat([inputs, state], 1)
            if self._linear is None:
                self._linear = _Linear(cell_inputs, 2 * self._num_units, True)
            g_act, c_act = array_ops.split(self._linear(cell_inputs), 2, axis=1)
            c = self._activation(c_act)
            g = unary_math_ops.sigmoid(g_act + self._forget_bias)
            new_state = g * state + (1.0 - g) * c
        return new_state, new_state


# -- stacked bidirectional RNNs --------------------------------------------------------------------


def _check_stack_args(cells_fw, cells_bw, initial_states_fw, initial_states_bw) -> None:
    if not cells_fw:
        raise ValueError("Must specify at least one fw cell for BidirectionalRNN.")
    if not cells_bw:
        raise ValueError("Must specify at least one bw cell for BidirectionalRNN.")
    if not isinstance(cells_fw, list):
        raise ValueError("cells_fw must be a list of RNNCells (one per layer).")
    if not isinstance(cells_bw, list):
        raise ValueError("cells_bw must be a list of RNNCells (one per layer).")
    if len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth.")
    for which, states in (("fw", initial_states_fw), ("bw", initial_states_bw)):
        if states is not None and (not isinstance(states, list) or len(states) != len(cells_fw)):
            raise ValueError(f"initial_states_{which} must be a list of state tensors (one per layer).")


@tf_export("contrib.rnn.stack_bidirectional_rnn")
def stack_bidirectional_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None, initial_states_bw=None, dtype=None,
                            sequence_length=None, scope=None):
    """Layers of ``static_bidirectional_rnn``: returns ``(outputs, states_fw, states_bw)``, the outputs
    a list (one per step) of the last layer's concatenated forward and backward outputs."""
    _check_stack_args(cells_fw, cells_bw, initial_states_fw, initial_states_bw)
    states_fw, states_bw = [], []
    prev_layer = inputs
    with variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            initial_state_fw = initial_states_fw[i] if initial_states_fw else None
            initial_state_bw = initial_states_bw[i] if initial_states_bw else None
            with variable_scope(f"cell_{i}") as cell_scope:
                prev_layer, state_fw, state_bw = rnn.static_bidirectional_rnn(
                    cell_fw, cell_bw, prev_layer, initial_state_fw=initial_state_fw,
                    initial_state_bw=initial_state_bw, sequence_length=sequence_length, dtype=dtype,
                    scope=cell_scope)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return prev_layer, tuple(states_fw), tuple(states_bw)


@tf_export("contrib.rnn.stack_bidirectional_dynamic_rnn")
def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None, initial_states_bw=None,
                                    dtype=None, sequence_length=None, parallel_iterations=None, time_major=False,
                                    scope=None, swap_memory=False):
    """Layers of ``bidirectional_dynamic_rnn``: returns ``(outputs, states_fw, states_bw)``, the outputs
    the last layer's forward and backward outputs concatenated on the depth axis."""
    _check_stack_args(cells_fw, cells_bw, initial_states_fw, initial_states_bw)
    states_fw, states_bw = [], []
    prev_layer = inputs
    with variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            initial_state_fw = initial_states_fw[i] if initial_states_fw else None
            initial_state_bw = initial_states_bw[i] if initial_states_bw else None
            with variable_scope(f"cell_{i}"):
                outputs, (state_fw, state_bw) = rnn.bidirectional_dynamic_rnn(
                    cell_fw, cell_bw, prev_layer, initial_state_fw=initial_state_fw,
                    initial_state_bw=initial_state_bw, sequence_length=sequence_length,
                    parallel_iterations=parallel_iterations, dtype=dtype, swap_memory=swap_memory,
                    time_major=time_major)
                prev_layer = array_ops.concat(outputs, 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return prev_layer, tuple(states_fw), tuple(states_bw)
