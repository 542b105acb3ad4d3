"""``tf.nn.rnn_cell``'s wrappers: ``DropoutWrapper``, ``ResidualWrapper`` and
``DeviceWrapper``. A wrapper is a cell that calls the cell it wraps (in
the caller's variable scope: it adds no scope of its own, so the wrapped
cell's variables keep their TF1 names) and changes its inputs, outputs or
state, or where it runs.

>>> import dflow as tf
>>> cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(4), output_keep_prob=0.5)
>>> out, state = tf.nn.dynamic_rnn(cell, tf.ones([2, 3, 5]), dtype=tf.float32, scope="dropped")
>>> out.shape.as_list()
[2, 3, 4]
"""

from __future__ import annotations

import hashlib
import numbers

from dflow._api import tf_export
from dflow.framework import dtypes, nest
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import device, name_scope
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import as_shape
from dflow.ops.math import math_ops, unary_math_ops
from dflow.ops.nn import nn_ops
from dflow.ops.random import random_ops
from dflow.ops.rnn.rnn_cell_impl import RNNCell, assert_like_rnncell
from dflow.ops.rnn.rnn_cells import LSTMStateTuple
from dflow.ops.state.tensor_array_ops import is_tensor_array


def _flatten_up_to(shallow, value) -> list:
    """The parts of ``value`` at the leaves of ``shallow`` (a prefix of its structure)."""
    if not nest.is_nested(shallow):
        return [value]
    if not nest.is_nested(value) or len(nest.children(shallow)) != len(nest.children(value)):
        raise ValueError(f"The structure {shallow!r} is not a prefix of the structure of {value!r}")
    return [leaf for s, v in zip(nest.children(shallow), nest.children(value)) for leaf in _flatten_up_to(s, v)]


def _enumerated_map_structure_up_to(shallow, map_fn, *args):
    """``map_fn(i, *parts)`` for the ``i``-th leaf of ``shallow`` and the parts of ``args`` there."""
    columns = [_flatten_up_to(shallow, a) for a in args]
    results = [map_fn(i, *parts) for i, parts in enumerate(zip(*columns))]
    return nest.pack_sequence_as(shallow, results)


def _traverse_shallow_structure(traverse_fn, structure):
    """TF's ``nest.get_traverse_shallow_structure``: booleans saying which parts of ``structure`` to
    visit, ``traverse_fn`` deciding at each level (True descends, a structure of bools picks)."""
    to_traverse = traverse_fn(structure)
    if not nest.is_nested(structure):
        if not isinstance(to_traverse, bool):
            raise TypeError(f"traverse_fn returned structure: {to_traverse} for non-structure: {structure}")
        return to_traverse
    if isinstance(to_traverse, bool):
        if not to_traverse:
            return False
        level = [_traverse_shallow_structure(traverse_fn, branch) for branch in nest.children(structure)]
    elif not nest.is_nested(to_traverse):
        raise TypeError(f"traverse_fn returned a non-bool scalar: {to_traverse} for input: {structure}")
    else:
        level = []
        for t, branch in zip(nest.children(to_traverse), nest.children(structure)):
            if not isinstance(t, bool):
                raise TypeError(f"traverse_fn didn't return a depth=1 structure of bools. saw: {to_traverse} "
                                f"for structure: {structure}")
            level.append(_traverse_shallow_structure(traverse_fn, branch) if t else False)
    return nest._rebuild(structure, level)


def _default_dropout_state_filter_visitor(substate):
    """Which parts of a state ``DropoutWrapper`` drops out: all but an LSTM's ``c`` and TensorArrays."""
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    if is_tensor_array(substate):
        return False
    return True


class _RNNCellWrapperV1(RNNCell):
    """A cell calling ``cell``; subclasses change the call in ``_call_wrapped_cell``."""

    def __init__(self, cell, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        raise NotImplementedError

    def __call__(self, inputs, state, scope=None):
        return self._call_wrapped_cell(inputs, state, cell_call_fn=self.cell.__call__, scope=scope)

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            return self.cell.zero_state(batch_size, dtype)

    @property
    def trainable_weights(self) -> list:
        own = super().trainable_weights
        return own + (self.cell.trainable_weights if isinstance(self.cell, RNNCell) and self.trainable else [])

    @property
    def non_trainable_weights(self) -> list:
        own = super().non_trainable_weights
        if not isinstance(self.cell, RNNCell):
            return own
        inner = self.cell.non_trainable_weights
        return own + inner if self.trainable else own + self.cell.trainable_weights + inner

    def get_config(self) -> dict:
        return {**super().get_config(), "cell": {"class_name": type(self.cell).__name__,
                                                 "config": self.cell.get_config()}}


@tf_export("nn.rnn_cell.DropoutWrapper")
class DropoutWrapper(_RNNCellWrapperV1):
    """Dropout on the cell's inputs, outputs and state.

    ``*_keep_prob`` is the probability to keep a unit. With
    ``variational_recurrent``, each run draws one mask per tensor, shared by
    every time step and batch entry (Gal & Ghahramani); it needs ``dtype``,
    and ``input_size`` when inputs are dropped.
    ``dropout_state_filter_visitor`` picks the parts of the state to drop
    (by default all but an LSTM's ``c``).
    """

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs):
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError(f"dropout_state_filter_visitor must be callable. Received: "
                            f"{dropout_state_filter_visitor}")
        self._dropout_state_filter = dropout_state_filter_visitor or _default_dropout_state_filter_visitor
        with name_scope("DropoutWrapperInit"):
            for prob, attr in [(input_keep_prob, "input_keep_prob"), (state_keep_prob, "state_keep_prob"),
                               (output_keep_prob, "output_keep_prob")]:
                tensor_prob = convert_to_tensor(prob)
                const_prob = constant_value(tensor_prob)
                if const_prob is not None:
                    if const_prob < 0 or const_prob > 1:
                        raise ValueError(f"Parameter {attr} must be between 0 and 1. Received {const_prob}")
                    setattr(self, f"_{attr}", float(const_prob))
                else:
                    setattr(self, f"_{attr}", tensor_prob)
        self._variational_recurrent = variational_recurrent
        self._input_size = input_size
        self._seed = seed
        self._recurrent_input_noise = None
        self._recurrent_state_noise = None
        self._recurrent_output_noise = None
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")

            def batch_noise(s, inner_seed):
                shape = [1] + as_shape(s).as_list()
                return random_ops.random_uniform(shape, seed=inner_seed, dtype=dtypes.as_dtype(dtype))

            if not isinstance(self._input_keep_prob, numbers.Real) or self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob < 1.0 or is unknown, "
                                     "input_size must be provided")
                self._recurrent_input_noise = _enumerated_map_structure_up_to(
                    input_size, lambda i, s: batch_noise(s, self._gen_seed("input", i)), input_size)
            self._recurrent_state_noise = _enumerated_map_structure_up_to(
                cell.state_size, lambda i, s: batch_noise(s, self._gen_seed("state", i)), cell.state_size)
            self._recurrent_output_noise = _enumerated_map_structure_up_to(
                cell.output_size, lambda i, s: batch_noise(s, self._gen_seed("output", i)), cell.output_size)

    def _gen_seed(self, salt_prefix: str, index: int):
        if self._seed is None:
            return None
        string = (str(self._seed) + f"{salt_prefix}_{index}").encode("utf-8")
        return int(hashlib.md5(string).hexdigest()[:8], 16) & 0x7FFFFFFF

    @property
    def wrapped_cell(self):
        return self.cell

    def build(self, inputs_shape):
        self.cell.build(inputs_shape)
        self.built = True

    def _variational_recurrent_dropout_value(self, unused_index, value, noise, keep_prob):
        binary_tensor = unary_math_ops.floor(keep_prob + noise)
        ret = math_ops.divide(value, keep_prob) * binary_tensor
        ret.set_shape(value.shape)
        return ret

    def _dropout(self, values, salt_prefix, recurrent_noise, keep_prob, shallow_filtered_substructure=None):
        if shallow_filtered_substructure is None:
            shallow_filtered_substructure = values
        if not self._variational_recurrent:
            def dropout(i, do_dropout, v):
                if not isinstance(do_dropout, bool) or do_dropout:
                    return nn_ops.dropout(v, rate=1.0 - keep_prob, seed=self._gen_seed(salt_prefix, i))
                return v

            return _enumerated_map_structure_up_to(shallow_filtered_substructure, dropout,
                                                   shallow_filtered_substructure, values)

        def variational_dropout(i, do_dropout, v, n):
            if not isinstance(do_dropout, bool) or do_dropout:
                return self._variational_recurrent_dropout_value(i, v, n, keep_prob)
            return v

        return _enumerated_map_structure_up_to(shallow_filtered_substructure, variational_dropout,
                                               shallow_filtered_substructure, values, recurrent_noise)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        def should_dropout(p):
            return not isinstance(p, float) or p < 1

        if should_dropout(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._recurrent_input_noise, self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should_dropout(self._state_keep_prob):
            shallow = _traverse_shallow_structure(self._dropout_state_filter, new_state)
            new_state = self._dropout(new_state, "state", self._recurrent_state_noise, self._state_keep_prob,
                                      shallow)
        if should_dropout(self._output_keep_prob):
            output = self._dropout(output, "output", self._recurrent_output_noise, self._output_keep_prob)
        return output, new_state

    def get_config(self) -> dict:
        return {**super().get_config(), "input_keep_prob": self._input_keep_prob,
                "output_keep_prob": self._output_keep_prob, "state_keep_prob": self._state_keep_prob,
                "variational_recurrent": self._variational_recurrent, "input_size": self._input_size,
                "seed": self._seed}


@tf_export("nn.rnn_cell.ResidualWrapper")
class ResidualWrapper(_RNNCellWrapperV1):
    """The cell's output plus its input (or ``residual_fn(inputs, outputs)``)."""

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def default_residual_fn(inputs, outputs):
            nest.assert_same_structure(inputs, outputs)

            def add(inp, out):
                inp.shape.assert_is_compatible_with(out.shape)
                return inp + out

            return nest.map_structure(add, inputs, outputs)

        return (self._residual_fn or default_residual_fn)(inputs, outputs), new_state


@tf_export("nn.rnn_cell.DeviceWrapper")
class DeviceWrapper(_RNNCellWrapperV1):
    """The cell (and its zero state) on ``device``."""

    def __init__(self, cell, device, **kwargs):  # noqa: A002 - TF1 argument name
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"), device(self._device):
            return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        with device(self._device):
            return cell_call_fn(inputs, state, **kwargs)

    def get_config(self) -> dict:
        return {**super().get_config(), "device": self._device}

