"""``tf.GradientTape`` in graph mode, as TF 2.15's ``tf.compat.v1`` has it.

In graph mode TF's tape records the ops *created* while it is recording, and
``gradient`` builds the symbolic gradient ops of those ops only (under
``gradient_tape/<op name>/``). dflow does the same: a recording tape is an
op-creation observer of its thread (``dflow.framework.graph.op_observers``);
it records an op when one of the op's inputs is *traced*: a watched tensor,
an output of a recorded op, or a read of a watched variable. ``gradient``
then runs ``tf.gradients``' machinery restricted to the recorded ops, so

* a path through ops created outside the ``with`` block (or under
  ``stop_recording``) carries no gradient: TF returns None there (zeros with
  ``unconnected_gradients=ZERO``), and so does dflow;
* tensors must be ``watch``ed before the ops that use them are created;
* reading a trainable variable while recording watches it
  (``watch_accessed_variables=True``); a non-trainable one only by ``watch``.

``jacobian`` and ``batch_jacobian`` give TF's values; dflow builds them with
one gradient per element (row) of the target, as TF's
``experimental_use_pfor=False`` loop does, so the target's size (row size)
must be known statically.

>>> import dflow as tf
>>> x = tf.constant(3.0)
>>> with tf.GradientTape() as tape:
...     tape.watch(x)
...     y = x * x
>>> tf.Session().run(tape.gradient(y, x))
np.float32(6.0)
"""

from __future__ import annotations

import contextlib
import logging

from dflow._api import tf_export
from dflow.framework import dtypes, nest
from dflow.framework.graph import GraphKeys, Operation, Tensor, _graph_of, op_observers
from dflow.platform import tf_logging

_NON_PERSISTENT = "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
_TRAINABLE = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)
# Ops that read a variable's value from its ``VariableV2`` output (``v/read`` and fresh reads).
_VARIABLE_READS = frozenset({"Identity", "_ReadVariable"})


def _variable_op_of(t: Tensor) -> tuple[Operation | None, Operation | None]:
    """``(VariableV2 op, read op)`` when ``t`` is a variable (``v:0``, read None) or a read of one."""
    op = t._op
    if op._type == "VariableV2":
        return op, None
    if op._type in _VARIABLE_READS and op._inputs and op._inputs[0]._op._type == "VariableV2":
        return op._inputs[0]._op, op
    return None, None


def _variable_tensor(v):
    """The tensor a variable is differentiated through (its ``VariableV2`` output), else None."""
    ref = getattr(v, "_gradient_tensor", None)
    return ref() if ref is not None else None


class _Tape:
    """What one recording holds: traced tensors, recorded ops and the watched variables."""

    def __init__(self, watch_accessed_variables: bool):
        self.watch_accessed_variables = watch_accessed_variables
        self.traced: set = set()
        self.recorded: set = set()
        self.variables: dict = {}  # VariableV2 op -> Variable, the watched variables
        self._trainable: dict = {}  # VariableV2 op -> trainable Variable (a cache of the graph's collection)

    def watch_tensor(self, t: Tensor) -> None:
        self.traced.add(t)

    def watch_variable(self, v) -> None:
        ref = _variable_tensor(v)
        self.variables.setdefault(ref._op, v)
        self.traced.add(ref)

    def _trainable_variable(self, var_op: Operation):
        """The trainable ``Variable`` over ``var_op``; None for a non-trainable one, or one whose
        constructor is still running (its own ``read`` is no access, as in TF)."""
        coll = var_op._graph.get_collection_ref(GraphKeys.TRAINABLE_VARIABLES)
        if len(coll) != len(self._trainable):
            self._trainable = {v.op: v for v in coll if _variable_tensor(v) is not None}
        return self._trainable.get(var_op)

    def _variable_traced(self, var_op: Operation) -> bool:
        """Whether the variable is watched; watches it first if it is trainable and accesses count."""
        if var_op._outputs[0] in self.traced:
            return True
        if self.watch_accessed_variables:
            v = self._trainable_variable(var_op)
            if v is not None:
                self.watch_variable(v)
                return True
        return False

    def observe(self, op: Operation) -> None:
        """Records ``op`` if one of its inputs is traced (TF's ``ShouldRecord``)."""
        hit = False
        for t in op._inputs:
            if t in self.traced:
                hit = True
                continue
            var_op, read_op = _variable_op_of(t)
            if var_op is not None and self._variable_traced(var_op):
                if read_op is not None:  # a read made before recording (``v/read``) joins the path
                    self.recorded.add(read_op)
                    self.traced.add(t)
                hit = True
        var_op = op._attrs.get("var")  # an update of a variable (``assign``) accesses it, as in TF
        if isinstance(var_op, Operation) and var_op._type == "VariableV2":
            self._variable_traced(var_op)
        if hit:
            self.recorded.add(op)
            self.traced.update(op._outputs)

    def watched_variables(self) -> tuple:
        return tuple(v for _, v in sorted(self.variables.items(), key=lambda item: item[0]._id))


def _watchables(value) -> list:
    """The tensors and variables in a nested ``value``; ValueError for anything else (TF's message)."""
    out = []
    for t in nest.flatten(value):
        if isinstance(t, Tensor) or _variable_tensor(t) is not None:
            out.append(t)
        else:
            raise ValueError(f"Passed in object {t} of type {type(t).__name__!r}, not tf.Tensor or tf.Variable or "
                             f"ExtensionType.")
    return out


def _as_gradient_tensor(value, what: str) -> Tensor:
    from dflow.framework.constant_op import convert_to_tensor

    ref = _variable_tensor(value)
    if ref is not None:
        return ref
    t = convert_to_tensor(value)
    if not isinstance(t, Tensor):
        raise TypeError(f"GradientTape.gradient: {what} must be tensors or variables, got {type(value).__name__}")
    return t


@tf_export("GradientTape")
class GradientTape:
    """Records the ops created inside its ``with`` block, for gradients of them (``tape.gradient``).

    ``persistent=False`` allows one ``gradient`` (or ``jacobian``) call;
    ``watch_accessed_variables=True`` watches every trainable variable read
    while recording.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._tape: _Tape | None = None
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._watched_variables: tuple = ()
        self._recording = False

    # -- recording ----------------------------------------------------------------------
    def __enter__(self) -> GradientTape:
        """Starts recording the ops created inside the block."""
        self._push_tape()
        return self

    def __exit__(self, typ, value, traceback) -> None:
        if self._recording:
            self._pop_tape()

    def _push_tape(self) -> None:
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active "
                             "tape.")
        if self._tape is None:
            self._tape = _Tape(self._watch_accessed_variables)
        op_observers().append(self._tape.observe)
        self._recording = True

    def _pop_tape(self) -> None:
        if not self._recording:
            raise ValueError("Tape is not recording.")
        observers = op_observers()
        observers.remove(self._tape.observe)
        self._recording = False

    @contextlib.contextmanager
    def _ensure_recording(self):
        if not self._recording:
            try:
                self._push_tape()
                yield
            finally:
                self._pop_tape()
        else:
            yield

    def watch(self, tensor) -> None:
        """Makes this tape trace ``tensor`` (a tensor, variable, or a nested structure of them)."""
        for t in _watchables(tensor):
            ref = _variable_tensor(t)
            dtype = t.dtype.base_dtype if ref is not None else t.dtype
            if dtype not in _TRAINABLE:
                tf_logging.log_first_n(logging.WARNING, "The dtype of the watched tensor must be floating "
                                       "(e.g. tf.float32), got %r", 5, dtype)
            if ref is not None:
                self._tape.watch_variable(t)
            else:
                self._tape.watch_tensor(t)

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops created inside this block are not recorded (RuntimeError if the tape is not recording)."""
        if self._tape is None:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop_tape()
        try:
            yield
        finally:
            self._push_tape()

    def reset(self) -> None:
        """Forgets everything recorded so far, as exiting and re-entering with a new tape would."""
        self._pop_tape()
        self._tape = None
        self._push_tape()

    def watched_variables(self) -> tuple:
        """The variables this tape watches, in order of construction."""
        if self._tape is not None:
            self._watched_variables = self._tape.watched_variables()
        return self._watched_variables

    # -- gradients -------------------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """Gradients of the sum of ``target`` (nested) with respect to each of ``sources`` (nested).

        Only recorded ops carry gradients; a source that the target does not
        reach through them gets None (zeros with ``unconnected_gradients="zero"``).
        ``output_gradients`` gives the target's gradients (one per flattened
        target; missing or None entries are ones).
        """
        if self._tape is None:
            raise RuntimeError(_NON_PERSISTENT)
        self._leave_context_for_gradient()
        flat = self._flat_gradient(target, nest.flatten(sources), output_gradients, unconnected_gradients)
        self._consume()
        return nest.pack_sequence_as(sources, flat)

    def _leave_context_for_gradient(self) -> None:
        """TF stops a non-persistent tape that computes its gradient inside its block; a persistent
        one keeps recording (so the gradient ops are recorded too, for higher derivatives)."""
        if not self._recording:
            return
        if not self._persistent:
            self._pop_tape()
        else:
            tf_logging.log_first_n(
                logging.WARNING, "Calling GradientTape.gradient on a persistent tape inside its context is "
                "significantly less efficient than calling it outside the context (it causes the gradient ops to "
                "be recorded on the tape, leading to increased CPU and memory usage). Only call "
                "GradientTape.gradient inside the context if you actually want to trace the gradient in order to "
                "compute higher order derivatives.", 1)

    def _consume(self) -> None:
        if not self._persistent:
            self._watched_variables = self._tape.watched_variables()
            self._tape = None

    def _flat_gradient(self, target, flat_sources: list, output_gradients, unconnected_gradients) -> list:
        from dflow.framework.constant_op import convert_to_tensor
        from dflow.ops.array.array_ops import zeros_like
        from dflow.ops.gradients.gradients_impl import symbolic_gradients

        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of Tensors, Variables or "
                            "CompositeTensors to be differentiated, but received None.")
        unconnected = getattr(unconnected_gradients, "value", unconnected_gradients)
        if unconnected not in ("none", "zero"):
            raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}")
        targets = [_as_gradient_tensor(t, "targets") for t in nest.flatten(target)]
        sources = [_as_gradient_tensor(s, "sources") for s in flat_sources]
        seeds = [None] * len(targets)
        if output_gradients is not None:  # as TF: extra entries are ignored, missing ones are ones
            for i, g in enumerate(nest.flatten(output_gradients)[:len(targets)]):
                seeds[i] = None if g is None else convert_to_tensor(g, dtype=targets[i].dtype)
        # TF differentiates float targets only (an integer target carries no gradient).
        kept = [(t, g) for t, g in zip(targets, seeds) if g is not None or t.dtype.base_dtype in _TRAINABLE]
        tape = self._tape
        graph = _graph_of(targets + sources)
        with graph.as_default():
            grads = symbolic_gradients(graph, [t for t, _ in kept], sources, [g for _, g in kept],
                                       unconnected_gradients="none", only_ops=tape.recorded,
                                       rule_scope="gradient_tape/{}/", seed_name="ones") if kept else [None] * len(
                                           sources)
            target_set = {t for t, _ in kept}
            out = []
            for s, g in zip(sources, grads):
                if s not in tape.traced and s not in target_set:
                    g = None  # not on the tape: TF gives no gradient even where tf.gradients would
                if g is None and unconnected == "zero":
                    g = zeros_like(s)
                out.append(g)
        return out

    def jacobian(self, target, sources, unconnected_gradients="none", parallel_iterations=None,
                 experimental_use_pfor=True):
        """The Jacobian of ``target`` with respect to each of ``sources``: shape ``target.shape + source.shape``.

        dflow builds one gradient per element of ``target`` (its size must be
        known statically); the values are TF's for both ``experimental_use_pfor``.
        """
        from dflow.ops.array import array_ops

        if self._tape is None:
            raise RuntimeError(_NON_PERSISTENT)
        flat_sources = nest.flatten(sources)
        target = _as_gradient_tensor(target, "target")
        target_shape = array_ops.shape(target)
        with self._ensure_recording():
            flat_target = array_ops.reshape(target, [-1])
        size = flat_target.shape[0]
        if size is None:
            raise NotImplementedError(f"GradientTape.jacobian in dflow needs the static size of the target "
                                      f"{target.name} (shape {target.shape}): it builds one gradient per element.")
        rows = []
        for i in range(size):
            with self._ensure_recording():
                y = array_ops.gather(flat_target, i)
            self._leave_context_for_gradient()
            rows.append(self._flat_gradient(y, flat_sources, None, unconnected_gradients))
        self._consume()
        out = []
        for j, source in enumerate(flat_sources):
            column = [row[j] for row in rows]
            if size == 0 or any(g is None for g in column):
                out.append(None)
                continue
            stacked = array_ops.stack([_dense(g) for g in column])
            new_shape = array_ops.concat([target_shape, array_ops.shape(stacked)[1:]], axis=0)
            result = array_ops.reshape(stacked, new_shape)
            result.set_shape(target.shape.concatenate(_as_gradient_tensor(source, "sources").shape))
            out.append(result)
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients="none", parallel_iterations=None,
                       experimental_use_pfor=True):
        """Per-example Jacobians: ``[b, y1.., x1..]`` where ``[i, ...]`` is d``target[i]``/d``source[i]``.

        ``target[i]`` must depend on ``source[i]`` only. dflow builds one
        gradient per element of a target row (its size must be static).
        """
        from dflow.framework.graph import control_dependencies
        from dflow.ops.array import array_ops
        from dflow.ops.debugging import check_ops

        if self._tape is None:
            raise RuntimeError(_NON_PERSISTENT)
        target = _as_gradient_tensor(target, "target")
        source_t = _as_gradient_tensor(source, "source")
        target_shape = target.shape
        dim = target_shape[0] if target_shape.rank is not None else None
        target_shape.with_rank_at_least(2)
        source_t.shape.with_rank_at_least(2)
        src_dim = source_t.shape[0]
        if dim is not None and src_dim is not None and dim != src_dim:
            raise ValueError(f"Need first dimension of target shape ({target.shape}) and source shape "
                             f"({source_t.shape}) to match.")
        row_size = target_shape[1:].num_elements()
        if row_size is None:
            raise NotImplementedError(f"GradientTape.batch_jacobian in dflow needs the static row size of the "
                                      f"target {target.name} (shape {target.shape}): it builds one gradient per "
                                      f"element of a row.")
        target_dyn_shape = array_ops.shape(target)
        batch_size = target_dyn_shape[0]
        source_shape = array_ops.shape(source_t)
        with self._ensure_recording():
            with control_dependencies([check_ops.assert_equal(batch_size, source_shape[0])]):
                target2d = array_ops.reshape(target, [batch_size, row_size])
        columns = []
        for j in range(row_size):
            with self._ensure_recording():
                y = array_ops.gather(target2d, j, axis=1)
            self._leave_context_for_gradient()
            columns.append(self._flat_gradient(y, [source], None, unconnected_gradients)[0])
        self._consume()
        new_shape = array_ops.concat([target_dyn_shape, source_shape[1:]], axis=0)
        if row_size == 0 or any(g is None for g in columns):
            return array_ops.zeros(new_shape, target.dtype)
        output = array_ops.stack([_dense(g) for g in columns])  # [row_size, b, x...]
        output = array_ops.reshape(output, [row_size, batch_size, -1])
        output = array_ops.transpose(output, [1, 0, 2])
        output = array_ops.reshape(output, new_shape)
        output.set_shape(target.shape.concatenate(source_t.shape[1:]))
        return output


def _dense(g):
    from dflow.framework.constant_op import convert_to_tensor

    return convert_to_tensor(g)
