"""``tf.nn.dynamic_rnn``, ``bidirectional_dynamic_rnn``, ``raw_rnn``,
``static_rnn``, ``static_bidirectional_rnn`` and ``static_state_saving_rnn``:
a cell (see ``rnn_cell_impl``) run over the time steps of a sequence.

``dynamic_rnn`` is TF1's: the inputs go into a ``TensorArray``, one
``tf.while_loop`` steps the cell (whose weights it creates on the first
step, in the ``rnn`` variable scope), and the outputs come back from
another TensorArray; gradients flow through all of it. With
``sequence_length``, a batch entry's outputs past its length are zeros and
its state is copied through, as in TF1. ``static_rnn`` unrolls the cell
into the graph instead. ``parallel_iterations`` and ``swap_memory`` are
accepted and ignored (dflow's loop runs one iteration at a time).

>>> import dflow as tf
>>> cell = tf.nn.rnn_cell.GRUCell(4)
>>> outputs, state = tf.nn.dynamic_rnn(cell, tf.zeros([2, 5, 3]), dtype=tf.float32)
>>> outputs.shape.as_list(), state.shape.as_list()
([2, 5, 4], [2, 4])
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes, nest
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import Tensor, control_dependencies, name_scope
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import TensorShape, as_shape, dimension_value
from dflow.ops.array import array_ops, creation_ops, select_ops, shape_ops, slicing_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.debugging.logging_ops import Assert
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.rnn.rnn_cell_impl import _concat, assert_like_rnncell
from dflow.ops.state.tensor_array_ops import TensorArray, is_tensor_array
from dflow.ops.state.variable_scope import variable_scope


def _transpose_batch_time(x: Tensor) -> Tensor:
    """Swaps axes 0 and 1 (batch-major <-> time-major); rank < 2 passes through."""
    shape = x.shape
    if shape.ndims is not None and shape.ndims < 2:
        return x
    if shape.ndims is not None:
        perm = [1, 0] + list(range(2, shape.ndims))
    else:
        perm = array_ops.concat(([1, 0], creation_ops.range(2, shape_ops.rank(x))), axis=0)
    x_t = shape_ops.transpose(x, perm)
    if shape.ndims is not None:
        dims = shape.as_list()
        x_t.set_shape(TensorShape([dims[1], dims[0]]).concatenate(shape[2:]))
    return x_t


def _best_effort_input_batch_size(flat_input):
    """The static batch size (axis 1 of time-major inputs) if any input knows it, else a tensor."""
    for x in flat_input:
        shape = x.shape
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError(f"Input tensor should have rank >= 2. Received input={x} of rank {shape.ndims}")
        batch = shape.as_list()[1]
        if batch is not None:
            return batch
    return shape_ops.shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype, state):
    if explicit_dtype is not None:
        return dtypes.as_dtype(explicit_dtype)
    if nest.is_nested(state):
        inferred = [element.dtype for element in nest.flatten(state)]
        if not inferred:
            raise ValueError(f"Unable to infer dtype from argument state={state}.")
        if not all(d == inferred[0] for d in inferred):
            raise ValueError(f"Argument state={state} has tensors of different inferred dtypes. Unable to infer a "
                             f"single representative dtype. Dtypes received: {inferred}")
        return inferred[0]
    return state.dtype


def _size_shape(size) -> TensorShape:
    """A cell's output or state size as a TensorShape (a constant tensor allowed)."""
    if isinstance(size, Tensor):
        return as_shape(constant_value(size))
    return as_shape(size)


def _initial_state(cell, initial_state, batch_size, dtype):
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError("If no initial_state is provided, argument `dtype` must be specified")
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


def _copy_through(copy_cond, old, new):
    """``old`` where ``copy_cond`` (per batch entry), else ``new``; scalars and TensorArrays take ``new``."""
    if is_tensor_array(old) or old.shape.ndims == 0:
        return new
    return select_ops.where(copy_cond, old, new)


def _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length, zero_output, state, call_cell,
              skip_conditionals=False):
    """One step of a cell over a batch whose entries end at ``sequence_length``: past its end an
    entry's output is zero and its state is carried over unchanged (TF1's ``_rnn_step``)."""
    flat_state = nest.flatten(state)
    flat_zero_output = nest.flatten(zero_output)

    def copy_some_through(flat_new_output, flat_new_state):
        copy_cond = time >= sequence_length
        return ([_copy_through(copy_cond, z, o) for z, o in zip(flat_zero_output, flat_new_output)]
                + [_copy_through(copy_cond, s, n) for s, n in zip(flat_state, flat_new_state)])

    def new_output_and_state():
        new_output, new_state = call_cell()
        nest.assert_same_structure(zero_output, new_output)
        nest.assert_same_structure(state, new_state)
        return nest.flatten(new_output), nest.flatten(new_state)

    if skip_conditionals:
        final = copy_some_through(*new_output_and_state())
    else:
        def maybe_copy_some_through():
            flat_new_output, flat_new_state = new_output_and_state()
            return control_flow_ops.cond(time < min_sequence_length, lambda: flat_new_output + flat_new_state,
                                         lambda: copy_some_through(flat_new_output, flat_new_state))

        final = control_flow_ops.cond(time >= max_sequence_length, lambda: flat_zero_output + flat_state,
                                      maybe_copy_some_through)
    final_output = final[:len(flat_zero_output)]
    final_state = final[len(flat_zero_output):]
    for output, zero in zip(final_output, flat_zero_output):
        output.set_shape(zero.shape)
    for substate, old in zip(final_state, flat_state):
        if not is_tensor_array(substate):
            substate.set_shape(old.shape)
    return (nest.pack_sequence_as(zero_output, final_output), nest.pack_sequence_as(state, final_state))


def _checked_sequence_length(sequence_length, batch_size) -> Tensor:
    """``sequence_length`` as int32, checked at run time to be a ``[batch_size]`` vector."""
    sequence_length = math_ops.cast(sequence_length, dtypes.int32)
    if sequence_length.shape.ndims not in (None, 1):
        raise ValueError(f"Argument sequence_length must be a vector of length batch_size. Received "
                         f"sequence_length={sequence_length} of shape: {sequence_length.shape}")
    sequence_length = control_flow_ops.identity(sequence_length, name="sequence_length")
    x_shape = shape_ops.shape(sequence_length)
    packed_shape = array_ops.stack([batch_size])
    check = Assert(reduction_ops.reduce_all(math_ops.equal(x_shape, packed_shape)),
                   [f"Expected shape for Tensor {sequence_length.name} is ", packed_shape, " but saw shape: ",
                    x_shape])
    with control_dependencies([check]):
        return control_flow_ops.identity(sequence_length, name="CheckSeqLen")


@tf_export("nn.dynamic_rnn")
def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None, parallel_iterations=None,
                swap_memory=False, time_major=False, scope=None):
    """Runs ``cell`` over the time steps of ``inputs`` in a while loop.

    ``inputs`` is ``[batch, time, ...]`` (``[time, batch, ...]`` with
    ``time_major``), possibly nested. Returns ``(outputs, state)``: the outputs of every step (nested as
    ``cell.output_size``, batch-major unless ``time_major``), and the final
    state. With ``sequence_length`` (one length per batch entry), outputs
    past an entry's length are zeros and its final state is the one at its
    length. Needs ``initial_state`` or ``dtype``.
    """
    assert_like_rnncell("cell", cell)
    with variable_scope(scope or "rnn"):
        flat_input = nest.flatten(inputs)
        if not time_major:
            flat_input = [convert_to_tensor(x) for x in flat_input]
            flat_input = tuple(_transpose_batch_time(x) for x in flat_input)
        parallel_iterations = parallel_iterations or 32
        batch_size = _best_effort_input_batch_size(flat_input)
        if sequence_length is not None:
            sequence_length = _checked_sequence_length(sequence_length, batch_size)
        state = _initial_state(cell, initial_state, batch_size, dtype)
        inputs = nest.pack_sequence_as(inputs, list(flat_input))
        outputs, final_state = _dynamic_rnn_loop(cell, inputs, state, parallel_iterations, swap_memory,
                                                 sequence_length, dtype)
        if not time_major:
            outputs = nest.map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


def _dynamic_rnn_loop(cell, inputs, initial_state, parallel_iterations, swap_memory, sequence_length=None,
                      dtype=None):
    state = initial_state
    flat_input = nest.flatten(inputs)
    flat_output_size = nest.flatten(cell.output_size)
    time_steps = shape_ops.shape(flat_input[0])[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    inputs_got_shape = tuple(x.shape.with_rank_at_least(3) for x in flat_input)
    const_time_steps, const_batch_size = inputs_got_shape[0].as_list()[:2]
    for x, shape in zip(flat_input, inputs_got_shape):
        if not shape[2:].is_fully_defined():
            raise ValueError(f"Input size (depth of inputs) must be accessible via shape inference, but saw value "
                             f"None for input={x}.")
        got_time_steps, got_batch_size = shape.as_list()[:2]
        if const_time_steps != got_time_steps:
            raise ValueError(f"Time steps is not the same for all the elements in the input in a batch. Received "
                             f"time steps={got_time_steps} for input={x}.")
        if const_batch_size != got_batch_size:
            raise ValueError(f"Batch_size is not the same for all the elements in the input. Received batch "
                             f"size={got_batch_size} for input={x}.")
    state_dtype = _infer_state_dtype(dtype, state)

    def zeros_for(size):
        return creation_ops.zeros(array_ops.stack(_concat(batch_size, size)), state_dtype)

    flat_zero_output = tuple(zeros_for(size) for size in flat_output_size)
    zero_output = nest.pack_sequence_as(cell.output_size, list(flat_zero_output))
    if sequence_length is not None:
        min_sequence_length = reduction_ops.reduce_min(sequence_length)
        max_sequence_length = reduction_ops.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps
    time = constant(0, dtype=dtypes.int32, name="time")
    with name_scope("dynamic_rnn") as base_name:
        pass

    def create_ta(name, element_shape, ta_dtype):
        return TensorArray(dtype=ta_dtype, size=time_steps, element_shape=element_shape,
                           tensor_array_name=base_name + name)

    output_ta = tuple(create_ta(f"output_{i}", TensorShape([const_batch_size]).concatenate(_size_shape(size)),
                                state_dtype)
                      for i, size in enumerate(flat_output_size))
    input_ta = tuple(create_ta(f"input_{i}", x.shape[1:], x.dtype).unstack(x) for i, x in enumerate(flat_input))

    def time_step(time, output_ta_t, state):
        input_t = tuple(ta.read(time) for ta in input_ta)
        for x, shape in zip(input_t, inputs_got_shape):
            x.set_shape(shape[1:])
        input_t = nest.pack_sequence_as(inputs, list(input_t))

        def call_cell():
            return cell(input_t, state)

        if sequence_length is not None:
            output, new_state = _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length,
                                          zero_output, state, call_cell, skip_conditionals=True)
        else:
            output, new_state = call_cell()
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t, nest.flatten(output)))
        return time + 1, output_ta_t, new_state

    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_sequence_length))
    _, output_final_ta, final_state = control_flow_ops.while_loop(
        lambda time, *_: time < loop_bound, time_step, loop_vars=(time, output_ta, state),
        parallel_iterations=parallel_iterations, maximum_iterations=time_steps, swap_memory=swap_memory)
    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, size in zip(final_outputs, flat_output_size):
        output.set_shape(_concat([const_time_steps, const_batch_size], _size_shape(size), static=True))
    return nest.pack_sequence_as(cell.output_size, list(final_outputs)), final_state


def _reverse_time(x, sequence_length, time_axis: int, batch_axis: int):
    if sequence_length is not None:
        return slicing_ops.reverse_sequence(x, seq_lengths=sequence_length, seq_axis=time_axis,
                                            batch_axis=batch_axis)
    return slicing_ops.reverse(x, axis=[time_axis])


@tf_export("nn.bidirectional_dynamic_rnn")
def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None, initial_state_fw=None,
                              initial_state_bw=None, dtype=None, parallel_iterations=None, swap_memory=False,
                              time_major=False, scope=None):
    """A forward and a backward ``dynamic_rnn`` over the same inputs.

    The backward one (scope ``bw``; the forward one is in ``fw``) reads the
    inputs reversed within each entry's ``sequence_length``. Returns
    ``((output_fw, output_bw), (state_fw, state_bw))``, ``output_bw``
    reversed back into time order.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = dynamic_rnn(
                cell_fw, inputs, sequence_length=sequence_length, initial_state=initial_state_fw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory, time_major=time_major,
                scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            inputs_reverse = nest.map_structure(
                lambda x: _reverse_time(x, sequence_length, time_axis, batch_axis), inputs)
            tmp, output_state_bw = dynamic_rnn(
                cell_bw, inputs_reverse, sequence_length=sequence_length, initial_state=initial_state_bw,
                dtype=dtype, parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=bw_scope)
    output_bw = _reverse_time(tmp, sequence_length, time_axis, batch_axis)
    return (output_fw, output_bw), (output_state_fw, output_state_bw)


@tf_export("nn.raw_rnn")
def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """A loop over ``cell`` whose inputs, state and emitted outputs ``loop_fn`` decides.

    ``loop_fn(time, cell_output, cell_state, loop_state)`` returns
    ``(finished, next_input, next_state, emit_output, next_loop_state)``; it
    is first called with ``None``s, for the initial values.

    Returns ``(emit_ta, final_state, final_loop_state)``: TensorArrays (nested as the emitted
    structure) holding each step's emitted output, zeros for finished entries.
    """
    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError(f"Argument `loop_fn` must be a callable. Received: {loop_fn}.")
    parallel_iterations = parallel_iterations or 32
    with variable_scope(scope or "rnn"):
        time = constant(0, dtype=dtypes.int32)
        elements_finished, next_input, initial_state, emit_structure, init_loop_state = loop_fn(
            time, None, None, None)
        flat_input = nest.flatten(next_input)
        loop_state = init_loop_state if init_loop_state is not None else constant(0, dtype=dtypes.int32)
        input_shapes = [x.shape for x in flat_input]
        static_batch = input_shapes[0].as_list()[0] if input_shapes[0].ndims else None
        for shape in input_shapes:
            other = shape.as_list()[0] if shape.ndims else None
            if static_batch is not None and other is not None and other != static_batch:
                raise ValueError(f"Dimensions {static_batch} and {other} are not compatible")
        const_batch_size = static_batch
        batch_size = static_batch if static_batch is not None else shape_ops.shape(flat_input[0])[0]
        nest.assert_same_structure(initial_state, cell.state_size)
        state = nest.map_structure(convert_to_tensor, initial_state)
        if emit_structure is not None:
            flat_emit_structure = nest.flatten(emit_structure)
            flat_emit_size = [e.shape if e.shape.is_fully_defined() else shape_ops.shape(e)
                              for e in flat_emit_structure]
            flat_emit_dtypes = [e.dtype for e in flat_emit_structure]
        else:
            emit_structure = cell.output_size
            flat_emit_size = nest.flatten(emit_structure)
            flat_emit_dtypes = [nest.flatten(state)[0].dtype] * len(flat_emit_size)
        flat_emit_ta = [TensorArray(dtype=d, dynamic_size=True, size=0, name=f"rnn_output_{i}",
                                    element_shape=TensorShape([const_batch_size]).concatenate(_size_shape(s)))
                        for i, (d, s) in enumerate(zip(flat_emit_dtypes, flat_emit_size))]
        emit_ta = nest.pack_sequence_as(emit_structure, flat_emit_ta)
        flat_zero_emit = [creation_ops.zeros(_concat(batch_size, s), d)
                          for s, d in zip(flat_emit_size, flat_emit_dtypes)]
        zero_emit = nest.pack_sequence_as(emit_structure, flat_zero_emit)

        def condition(unused_time, elements_finished, *_):
            return math_ops.logical_not(reduction_ops.reduce_all(elements_finished))

        def body(time, elements_finished, current_input, emit_ta, state, loop_state):
            next_output, cell_state = cell(current_input, state)
            nest.assert_same_structure(state, cell_state)
            nest.assert_same_structure(cell.output_size, next_output)
            next_time = time + 1
            next_finished, next_input, next_state, emit_output, next_loop_state = loop_fn(
                next_time, next_output, cell_state, loop_state)
            nest.assert_same_structure(state, next_state)
            nest.assert_same_structure(current_input, next_input)
            nest.assert_same_structure(emit_ta, emit_output)
            loop_state = loop_state if next_loop_state is None else next_loop_state
            emit_output = nest.map_structure(lambda z, e: _copy_through(elements_finished, z, e), zero_emit,
                                             emit_output)
            next_state = nest.map_structure(lambda s, n: _copy_through(elements_finished, s, n), state, next_state)
            emit_ta = nest.map_structure(lambda ta, emit: ta.write(time, emit), emit_ta, emit_output)
            elements_finished = math_ops.logical_or(elements_finished, next_finished)
            return next_time, elements_finished, next_input, emit_ta, next_state, loop_state

        returned = control_flow_ops.while_loop(
            condition, body, loop_vars=[time, elements_finished, next_input, emit_ta, state, loop_state],
            parallel_iterations=parallel_iterations, swap_memory=swap_memory)
        emit_ta, final_state, final_loop_state = returned[-3:]
        if init_loop_state is None:
            final_loop_state = None
        return emit_ta, final_state, final_loop_state


@tf_export("nn.static_rnn")
def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """The cell unrolled over a Python list of ``[batch, ...]`` inputs, one per time step.

    Returns ``(outputs, state)``: a list with each step's output and the final state; with
    ``sequence_length``, entries past their length output zeros and keep their state.
    """
    assert_like_rnncell("cell", cell)
    if not nest.is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    outputs = []
    with variable_scope(scope or "rnn") as varscope:
        first_input = inputs
        while nest.is_nested(first_input):
            first_input = first_input[0]
        if first_input.shape.ndims != 1:
            fixed_batch_size = first_input.shape.with_rank_at_least(2)[0]
            for x in nest.flatten(inputs):
                shape = x.shape.with_rank_at_least(2)
                fixed_batch_size.assert_is_compatible_with(shape[0])
                for i, size in enumerate(shape[1:].as_list()):
                    if size is None:
                        raise ValueError(f"Input size (dimension {i} of input {x}) must be accessible via shape "
                                         f"inference, but saw value None.")
        else:
            fixed_batch_size = first_input.shape.with_rank_at_least(1)[0]
        static_batch = dimension_value(fixed_batch_size)
        batch_size = static_batch if static_batch else shape_ops.shape(first_input)[0]
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError(f"Argument `sequence_length` must be a vector of length {batch_size}. Received "
                                 f"sequence_length={sequence_length}.")
            state_dtype = _infer_state_dtype(dtype, state)

            def zero_output_for(size):
                output = creation_ops.zeros(array_ops.stack(_concat(batch_size, size)), state_dtype)
                output.set_shape(TensorShape(_concat(static_batch, size, static=True)))
                return output

            zero_output = nest.map_structure(zero_output_for, cell.output_size)
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            min_sequence_length = reduction_ops.reduce_min(sequence_length)
            max_sequence_length = reduction_ops.reduce_max(sequence_length)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_=input_, state=state):
                return cell(input_, state)

            if sequence_length is not None:
                output, state = _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length,
                                          zero_output, state, call_cell)
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


@tf_export("nn.static_state_saving_rnn")
def static_state_saving_rnn(cell, inputs, state_saver, state_name, sequence_length=None, scope=None):
    """``static_rnn`` from a state saver's state, saving the final state back.

    The initial state is ``state_saver.state(name)``; the final one is saved
    with ``state_saver.save_state(name, state)`` before the last output and
    the state are available. ``state_name`` is nested as ``cell.state_size``.
    """
    state_size = cell.state_size
    state_is_tuple = nest.is_nested(state_size)
    if state_is_tuple != nest.is_nested(state_name):
        raise ValueError(f"Argument `state_name` should be the same type as `cell.state_size`. Received: "
                         f"state_name={state_name!s}, cell.state_size={state_size!s}.")
    if state_is_tuple:
        state_name_flat = nest.flatten(state_name)
        state_size_flat = nest.flatten(state_size)
        if len(state_name_flat) != len(state_size_flat):
            raise ValueError(f"Number of elements in argument `state_name` and `cell.state_size` are mismatched. "
                             f"Received state_name={state_name} with {len(state_name_flat)} elements and "
                             f"cell.state_size={cell.state_size} with {len(state_size_flat)} elements.")
        initial_state = nest.pack_sequence_as(state_size, [state_saver.state(s) for s in state_name_flat])
    else:
        initial_state = state_saver.state(state_name)
    outputs, state = static_rnn(cell, inputs, initial_state=initial_state, sequence_length=sequence_length,
                                scope=scope)
    if state_is_tuple:
        flat_state = nest.flatten(state)
        save_state = [state_saver.save_state(name, sub) for name, sub in zip(nest.flatten(state_name), flat_state)]
    else:
        save_state = [state_saver.save_state(state_name, state)]
    with control_dependencies(save_state):
        last_output = outputs[-1]
        outputs[-1] = nest.pack_sequence_as(
            last_output, [control_flow_ops.identity(o) for o in nest.flatten(last_output)])
        if state_is_tuple:
            state = nest.pack_sequence_as(state, [control_flow_ops.identity(s) for s in flat_state])
        else:
            state = control_flow_ops.identity(state)
    return outputs, state


def _reverse_seq(input_seq, lengths):
    """The list of time steps reversed, within each entry's length when ``lengths`` is given."""
    if lengths is None:
        return list(reversed(input_seq))
    flat_input_seq = tuple(nest.flatten(x) for x in input_seq)
    flat_results = [[] for _ in range(len(input_seq))]
    for sequence in zip(*flat_input_seq):
        input_shape = TensorShape(None) if sequence[0].shape.ndims is None else TensorShape(
            [None] * sequence[0].shape.ndims)
        for x in sequence:
            input_shape.assert_is_compatible_with(x.shape)
            x.set_shape(input_shape)
        s_joined = array_ops.stack(sequence)
        s_reversed = slicing_ops.reverse_sequence(s_joined, lengths, 0, 1)
        for r, flat_result in zip(array_ops.unstack(s_reversed), flat_results):
            r.set_shape(input_shape)
            flat_result.append(r)
    return [nest.pack_sequence_as(x, flat) for x, flat in zip(input_seq, flat_results)]


@tf_export("nn.static_bidirectional_rnn")
def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None, initial_state_bw=None, dtype=None,
                             sequence_length=None, scope=None):
    """A forward and a backward ``static_rnn``, their outputs concatenated step by step.

    The backward one (scope ``bw``; the forward one is in ``fw``) reads the
    steps reversed (within each entry's ``sequence_length``). Returns
    ``(outputs, state_fw, state_bw)``.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not nest.is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length,
                                                    scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            tmp, output_state_bw = static_rnn(cell_bw, reversed_inputs, initial_state_bw, dtype, sequence_length,
                                              scope=bw_scope)
    output_bw = _reverse_seq(tmp, sequence_length)
    flat_outputs = tuple(array_ops.concat([fw, bw], 1)
                         for fw, bw in zip(nest.flatten(output_fw), nest.flatten(output_bw)))
    return nest.pack_sequence_as(output_fw, list(flat_outputs)), output_state_fw, output_state_bw
