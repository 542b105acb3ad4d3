"""``tf.map_fn``, ``tf.scan``, ``tf.foldl`` and ``tf.foldr``: loops over rows.

TF1 builds these from a ``while_loop`` and TensorArrays. dflow builds one
functional ``Scan`` op: its body (a ``FuncGraph``) takes the carried state
and one row of each element tensor, and returns the next state and the
step's outputs; the kernel runs it once per row (in reverse for
``reverse=True``/``foldr``) and stacks the step outputs. ``map_fn`` is a
scan without state, ``foldl``/``foldr`` one without step outputs.

``Scan`` shares ``While``'s layout (inputs ``[state, elems, captured]``,
outputs ``[state, stacked outputs]``) and gradient: a ``ScanGrad`` op runs
the body's gradient over the forward trace in reverse (see
``control_flow_grad``), so gradients reach the elements, the initial state
and every captured tensor.

>>> import dflow as tf
>>> squares = tf.map_fn(lambda x: x * x, tf.constant([1.0, 2.0, 3.0]))
>>> tf.Session().run(squares)
array([1., 4., 9.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors, nest
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.func_graph import FuncGraph
from dflow.framework.graph import Tensor, get_default_graph, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops.control_flow import if_while_ops
from dflow.ops.control_flow.control_flow_grad import reverse_loop_gradient
from dflow.ops.control_flow.control_flow_ops import _align_captures, _function_output, identity

# -- the Scan op ------------------------------------------------------------------------------


def _scan_infer(op):
    body, n_state = op._attrs["body"], op._attrs["n_state"]
    rows = op._inputs[n_state].shape[:1] if op._inputs[n_state].shape.ndims else TensorShape([None])
    state = [(t.dtype, t.shape) for t in body.inputs[:n_state]]
    steps = [(t.dtype, rows.concatenate(t.shape)) for t in body.outputs[n_state:n_state + op._attrs["n_outputs"]]]
    return state + steps


def _empty_rows(t: Tensor):
    dims = [0] + [d if d is not None else 0 for d in (t.shape.as_list() if t.shape.ndims is not None else [])]
    return np.zeros(dims, dtype=t.dtype.as_numpy_dtype)


def _make_scan_kernel(op, resources):
    body = op._attrs["body"]
    n_state, n_elems, n_out = op._attrs["n_state"], op._attrs["n_elems"], op._attrs["n_outputs"]
    reverse = op._attrs["reverse"]
    recording = len(op._outputs) > n_state + n_out
    body_fn = if_while_ops.compile_function(body, resources, if_while_ops.where(op),
                                            body.outputs + body.accumulated if recording else None)
    empty = [_empty_rows(t) for t in body.outputs[n_state:n_state + n_out]]
    what = f"loop {op.name}"

    def kernel(ctx, *args):
        state = args[:n_state]
        elems = args[n_state:n_state + n_elems]
        captured = args[n_state + n_elems:]
        n = len(elems[0])
        for e in elems[1:]:
            if len(e) != n:
                raise errors.InvalidArgumentError(
                    None, None, f"All elements must have the same number of rows (first dimension): got {n} and "
                                f"{len(e)}")
        steps = [[None] * n for _ in range(n_out)]
        trace = []
        for k in (range(n - 1, -1, -1) if reverse else range(n)):
            if ctx is not None:
                ctx.check(what)
            out = body_fn(ctx, state + tuple(e[k] for e in elems) + captured)
            state = out[:n_state]
            for j in range(n_out):
                steps[j][k] = out[n_state + j]
            if recording:
                trace.append(out[n_state + n_out:])
        stacked = tuple(array_module(s[0]).stack(s) if n else e for s, e in zip(steps, empty))
        values = state + stacked + ((trace,) if recording else ())
        return values[0] if len(values) == 1 else values

    return kernel


register("Scan", infer=_scan_infer, make_kernel=_make_scan_kernel, gpu=False, uses_context=True)


@gradient("Scan")
def _scan_grad(op, *grads):
    return reverse_loop_gradient(op, grads, "ScanGrad", op._attrs["n_state"], op._attrs["n_elems"],
                                 op._attrs["n_outputs"], op._attrs["reverse"])


def _scan(fn, state, elems_flat: list, elems_structure, reverse: bool, back_prop: bool, outputs_of, what: str):
    """Traces ``fn`` over rows and builds the Scan op.

    ``fn(state, rows)`` is called with the packed state (None for map_fn)
    and the packed rows; ``outputs_of(state_out, result)`` splits its
    result into (new state leaves, step output leaves). Returns the op and
    the traced result.
    """
    state_flat = nest.flatten(state) if state is not None else []
    graph = FuncGraph(what, get_default_graph())
    with graph.as_default():
        state_args = [graph.add_arg(t.dtype, t.shape, name="acc") for t in state_flat]
        row_args = [graph.add_arg(e.dtype, e.shape[1:], name="elem") for e in elems_flat]
        rows = nest.pack_sequence_as(elems_structure, row_args)
        result = fn(nest.pack_sequence_as(state, state_args), rows) if state is not None else fn(rows)
        new_state, step_outputs = outputs_of(result)
        state_out = []
        for t, value in zip(state_flat, new_state):
            out = _function_output(graph, value, dtype=t.dtype)
            if out.dtype is not t.dtype:
                raise TypeError(f"{what}: the accumulator {t.name} has dtype {t.dtype.name}, but fn returned "
                                f"{out.dtype.name} for it.")
            if not if_while_ops.shape_less_equal(out.shape, t.shape):
                raise ValueError(f"{what}: the accumulator {t.name} has shape {t.shape}, but fn returned shape "
                                 f"{out.shape} for it.")
            state_out.append(out)
        step_out = [_function_output(graph, v) for v in step_outputs]
        graph.outputs = state_out + step_out
    captured = _align_captures([graph], [state_args + row_args])
    graph.accumulated = []
    op = apply_op("Scan", [*state_flat, *elems_flat, *captured],
                  {"body": graph, "n_state": len(state_flat), "n_elems": len(elems_flat),
                   "n_outputs": len(step_out), "reverse": reverse, "back_prop": back_prop,
                   "num_user_outputs": len(state_flat) + len(step_out)}, name="Scan")
    if_while_ops.seal_function_graphs(op, [graph])
    return op, result


def _convert_elems(elems) -> list:
    flat = []
    for e in nest.flatten(elems):
        t = convert_to_tensor(e, name="elems")
        if t.shape.ndims == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
        flat.append(t)
    if not flat:
        raise ValueError("elems must contain at least one tensor")
    return flat


def _stacked(tensors: list) -> list:
    """Identities named as TF1 names the stacked TensorArrays of a loop."""
    out = []
    for t in tensors:
        with name_scope("TensorArrayStack"):
            out.append(identity(t, name="TensorArrayGatherV3"))
    return out


def _first_rows(elems_flat: list, reverse: bool):
    """The row a missing initializer stands for, and the remaining rows."""
    first = [e[-1] if reverse else e[0] for e in elems_flat]
    rest = [e[:-1] if reverse else e[1:] for e in elems_flat]
    return first, rest


# -- the public functions -----------------------------------------------------------------------


@tf_export("map_fn")
def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """``fn`` applied to each row of ``elems`` (a tensor or a nested structure of
    tensors with the same number of rows); the results stacked.

    ``dtype`` (or ``fn_output_signature``) gives the dtypes, and so the
    structure, of ``fn``'s result when it differs from ``elems``'.
    ``back_prop=False`` stops gradients. The result is named
    ``map/TensorArrayStack/TensorArrayGatherV3:0``, as in TF1.

    >>> import dflow as tf
    >>> a, b = tf.map_fn(lambda x: (x[0] + x[1], x[0] * x[1]), (tf.constant([1, 2]), tf.constant([3, 4])))
    >>> tf.Session().run([a, b])
    [array([4, 6], dtype=int32), array([3, 8], dtype=int32)]
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    if fn_output_signature is not None:
        dtype = fn_output_signature
    with name_scope(name, "map", [e for e in nest.flatten(elems) if isinstance(e, Tensor)]):
        elems_flat = _convert_elems(elems)
        out_structure = elems if dtype is None else dtype
        expected = [e.dtype for e in elems_flat] if dtype is None else [dtypes.as_dtype(d) for d in nest.flatten(dtype)]

        def outputs_of(result):
            try:
                nest.assert_same_structure(out_structure, result)
            except ValueError as e:
                raise ValueError(f"The structure of fn's result does not match dtype (or elems when dtype is not "
                                 f"given): {e}") from None
            flat = [convert_to_tensor(v, dtype=d) if not isinstance(v, Tensor) else v
                    for v, d in zip(nest.flatten(result), expected)]
            for i, (v, d) in enumerate(zip(flat, expected)):
                if v.dtype is not d:
                    raise TypeError(f"map_fn: fn's output {i} ({v.name}) has dtype {v.dtype.name}, but the expected "
                                    f"dtype is {d.name}; pass dtype= when fn's outputs differ from elems.")
            return [], flat

        op, _ = _scan(lambda rows: fn(rows), None, elems_flat, elems, False, back_prop, outputs_of, "map_fn")
        return nest.pack_sequence_as(out_structure, _stacked(op.outputs[:op._attrs["n_outputs"]]))


@tf_export("vectorized_map")
def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """Parallel map on the list of tensors unpacked from ``elems`` on dimension 0.

    ``fn`` takes one row of ``elems`` (its structure) and returns any nested structure of
    tensors; the rows' results are stacked. Each tensor of ``elems`` has the same first
    dimension ``B``, or 1 (broadcast to ``B``). TF vectorizes ``fn`` into one batched graph;
    dflow traces it once and runs it per row, as ``map_fn`` (the same values, no vectorizing
    to fail: ``fallback_to_while_loop`` and ``warn`` change nothing).

    >>> import dflow as tf
    >>> tf.Session().run(tf.vectorized_map(lambda x: tf.reduce_sum(x * x), tf.constant([[1., 2.], [3., 4.]])))
    array([ 5., 25.], dtype=float32)
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    with name_scope("loop_body"):
        elems_flat = _broadcast_rows(_convert_elems(elems))
        structure = []

        def outputs_of(result):
            flat = nest.flatten(result)
            for v in flat:
                if not isinstance(v, Tensor) and hasattr(v, "outputs"):
                    raise NotImplementedError("vectorized_map: fn returned an Operation; dflow maps tensors only "
                                              "(return a tensor that depends on it instead)")
            structure.append(result)
            return [], [v if isinstance(v, Tensor) else convert_to_tensor(v) for v in flat]

        op, _ = _scan(fn, None, elems_flat, elems, False, True, outputs_of, "vectorized_map")
        return nest.pack_sequence_as(structure[0], list(op.outputs[:op._attrs["n_outputs"]]))


def _broadcast_rows(elems_flat: list) -> list:
    """``elems`` whose first dimension is 1 broadcast to the others' (vectorized_map's rule)."""
    from dflow.ops.array.array_ops import broadcast_to, concat, shape, stack
    from dflow.ops.math.reduction_ops import reduce_max

    firsts = [e.shape.as_list()[0] if e.shape.ndims is not None else None for e in elems_flat]
    if len(elems_flat) == 1 or (None not in firsts and len(set(firsts)) == 1):
        return elems_flat
    known = {d for d in firsts if d is not None and d != 1}
    if len(known) > 1:
        raise ValueError(f"vectorized_map: the first dimensions of elems must all be the same or 1, got {firsts}")
    if None not in firsts:
        rows = known.pop() if known else 1
        return [e if d == rows else broadcast_to(e, [rows] + e.shape.as_list()[1:]) for e, d in zip(elems_flat, firsts)]
    rows = reduce_max(stack([shape(e)[0] for e in elems_flat]))
    return [broadcast_to(e, concat([[rows], shape(e)[1:]], 0)) for e in elems_flat]


def _initial_state(initializer, elems_flat, elems, reverse):
    if initializer is None:
        first, rest = _first_rows(elems_flat, reverse)
        return nest.pack_sequence_as(elems, first), rest, True
    state = nest.map_structure(lambda v: v if isinstance(v, Tensor) else convert_to_tensor(v), initializer)
    return state, elems_flat, False


def _state_outputs(state, what: str):
    def outputs_of(result):
        try:
            nest.assert_same_structure(state, result)
        except ValueError as e:
            raise ValueError(f"{what}: fn must return the structure of its accumulator: {e}") from None
        return nest.flatten(result), []

    return outputs_of


@tf_export("scan")
def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """The running accumulation ``a = fn(a, row)`` over the rows of ``elems``,
    every intermediate ``a`` stacked.

    Without ``initializer`` the first row (the last, with ``reverse``) is the
    initial ``a`` and the first row of the result. With ``reverse=True``
    rows are visited from last to first; the result keeps ``elems``' row
    order.

    >>> import dflow as tf
    >>> tf.Session().run(tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3, 4])))
    array([ 1,  3,  6, 10], dtype=int32)
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    with name_scope(name, "scan", [e for e in nest.flatten(elems) if isinstance(e, Tensor)]):
        elems_flat = _convert_elems(elems)
        state, rows, from_elems = _initial_state(initializer, elems_flat, elems, reverse)

        def outputs_of(result):
            leaves, _ = _state_outputs(state, "scan")(result)
            return leaves, leaves

        op, _ = _scan(fn, state, rows, elems, reverse, back_prop, outputs_of, "scan")
        n = op._attrs["n_state"]
        stacked = op.outputs[n:2 * n]
        if from_elems:
            from dflow.ops.array import array_ops

            first = [array_ops.expand_dims(t, 0) for t in nest.flatten(state)]
            stacked = [array_ops.concat([s, f] if reverse else [f, s], 0) for s, f in zip(stacked, first)]
        return nest.pack_sequence_as(state, _stacked(stacked))


def _fold(fn, elems, initializer, back_prop, name, reverse: bool, what: str):
    if not callable(fn):
        raise TypeError(f"{what} fn must be callable, got {fn!r}")
    with name_scope(name, what, [e for e in nest.flatten(elems) if isinstance(e, Tensor)]):
        elems_flat = _convert_elems(elems)
        state, rows, _ = _initial_state(initializer, elems_flat, elems, reverse)
        op, _ = _scan(fn, state, rows, elems, reverse, back_prop, _state_outputs(state, what), what)
        exits = []
        with name_scope("while"):
            for k, t in enumerate(op.outputs[:op._attrs["n_state"]]):
                exits.append(identity(t, name=f"Exit_{k + 2}"))
        return nest.pack_sequence_as(state, exits)


@tf_export("foldl")
def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``a = fn(a, row)`` over the rows of ``elems``, first to last; returns the final ``a``.

    Without ``initializer`` the first row is the initial ``a``.

    >>> import dflow as tf
    >>> tf.Session().run(tf.foldl(lambda a, x: a * 10 + x, tf.constant([1, 2, 3])))
    np.int32(123)
    """
    return _fold(fn, elems, initializer, back_prop, name, False, "foldl")


@tf_export("foldr")
def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``a = fn(a, row)`` over the rows of ``elems``, last to first; returns the final ``a``.

    Without ``initializer`` the last row is the initial ``a``.

    >>> import dflow as tf
    >>> tf.Session().run(tf.foldr(lambda a, x: a * 10 + x, tf.constant([1, 2, 3])))
    np.int32(321)
    """
    return _fold(fn, elems, initializer, back_prop, name, True, "foldr")
