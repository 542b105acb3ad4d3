"""``tf.nondifferentiable_batch_function``: concurrent runs share one call of a function.

Calling a decorated function on tensors traces it once into a function
graph and builds one ``BatchFunction`` op (named ``batch/BatchFunction``).
When several ``Session.run`` calls (from several threads) run that op at
about the same time, their inputs are concatenated along dimension 0, the
function runs once on the batch, and each caller gets its own rows of every
output back, as TF's batching kernel does:

* the first caller of a batch collects it: it waits until the batch holds
  ``max_batch_size`` rows or ``batch_timeout_micros`` have passed since it
  arrived (a lone caller waits the whole timeout), then runs the function;
  callers arriving meanwhile join the batch while it has room (one whose
  rows do not fit closes it and starts the next batch);
* with ``allowed_batch_sizes``, a batch is padded (with copies of its last
  row) up to the smallest allowed size that holds it, and a batch holds at
  most the last allowed size; with ``enable_large_batch_splitting`` a
  caller's input larger than that (but within ``max_batch_size``) runs at
  once in pieces of that size;
* captured tensors are passed unbatched; every output must have a first
  dimension of the batch's size (``FailedPreconditionError`` otherwise).

The batching state (one batcher per op) lives in the session's resources,
so different sessions never batch together. ``num_batch_threads`` and
``max_enqueued_batches`` are checked as TF checks them but do not limit
anything: each batch runs on the thread of its first caller. The op has no
gradient (``tf.gradients`` through it raises ``LookupError``, as in TF).
"""

from __future__ import annotations

import threading
import time

import numpy as np

from dflow._api import tf_export
from dflow.framework import errors, nest
from dflow.framework.func_graph import FuncGraph
from dflow.framework.graph import Operation, Tensor, get_default_graph, name_scope
from dflow.framework.op_registry import apply_op, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.control_flow import if_while_ops


class _NotATensorError(ValueError, AttributeError):
    """A non-tensor argument. TF 2.15 means to raise ValueError here, but first reads the argument's
    ``dtype`` and so raises AttributeError: this error is both."""


# -- the batcher --------------------------------------------------------------------------------------


class _Task:
    """One caller's rows and, once the batch ran, its outputs or the batch's error."""

    __slots__ = ("inputs", "rows", "done", "outputs", "error")

    def __init__(self, inputs: tuple, rows: int):
        self.inputs = inputs
        self.rows = rows
        self.done = False
        self.outputs = None
        self.error = None


class _Batch:
    __slots__ = ("tasks", "rows", "closed")

    def __init__(self):
        self.tasks: list = []
        self.rows = 0
        self.closed = False


class Batcher:
    """One BatchFunction op's batching in one session."""

    def __init__(self, capacity: int, timeout_s: float, allowed: tuple, out_dtypes: list):
        self.capacity = capacity  # the most rows one execution takes
        self.timeout_s = timeout_s
        self.allowed = allowed
        self.out_dtypes = out_dtypes
        self.cond = threading.Condition()
        self.open: _Batch | None = None

    def run(self, ctx, fn, inputs: tuple, captured: tuple, what: str) -> tuple:
        """This caller's rows of the outputs of the batch its ``inputs`` join."""
        rows = len(inputs[0])
        if rows == 0:  # TF does not run the function for an empty input
            return tuple(np.zeros([0], dtype=dt.as_numpy_dtype) for dt in self.out_dtypes)
        if rows > self.capacity:
            return self._run_split(ctx, fn, inputs, captured)
        task = _Task(inputs, rows)
        with self.cond:
            batch, leader = self.open, False
            if batch is None or batch.rows + rows > self.capacity:
                if batch is not None:
                    batch.closed = True
                batch, leader = _Batch(), True
                self.open = batch
            batch.tasks.append(task)
            batch.rows += rows
            if batch.rows >= self.capacity:
                batch.closed = True
                self.open = None
            self.cond.notify_all()
        if leader:
            self._collect(batch)
            self._execute(ctx, fn, batch, captured)
        else:
            with self.cond:
                if ctx is not None:
                    ctx.wait(self.cond, lambda: task.done, what)
                else:
                    self.cond.wait_for(lambda: task.done)
        if task.error is not None:
            raise _copy_error(task.error)
        return task.outputs

    def _collect(self, batch: _Batch) -> None:
        """Waits until ``batch`` is full or its timeout has passed, then closes it."""
        deadline = time.monotonic() + self.timeout_s
        with self.cond:
            while not batch.closed:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self.cond.wait(remaining)
            batch.closed = True
            if self.open is batch:
                self.open = None

    def _execute(self, ctx, fn, batch: _Batch, captured: tuple) -> None:
        """Runs the function on the batch and hands each task its rows (or the error)."""
        try:
            columns = [np.concatenate([t.inputs[k] for t in batch.tasks]) for k in range(len(batch.tasks[0].inputs))]
            outputs = self._call(ctx, fn, columns, batch.rows, captured)
            start = 0
            for t in batch.tasks:
                t.outputs = tuple(o[start:start + t.rows] for o in outputs)
                start += t.rows
        except Exception as e:  # noqa: BLE001 - every caller of the batch gets the error
            for t in batch.tasks:
                t.error = e
        with self.cond:
            for t in batch.tasks:
                t.done = True
            self.cond.notify_all()

    def _call(self, ctx, fn, columns: list, rows: int, captured: tuple) -> list:
        size = next((s for s in self.allowed if s >= rows), rows)
        if size > rows:  # pad up to the allowed size
            columns = [np.concatenate([c, np.repeat(c[-1:], size - rows, axis=0)]) for c in columns]
        outputs = fn(ctx, tuple(columns) + captured)
        for o in outputs:
            o = np.asarray(o)
            if o.ndim == 0:
                raise errors.FailedPreconditionError(None, None, "Batched output tensor has 0 dimensions")
            if o.shape[0] != size:
                raise errors.FailedPreconditionError(
                    None, None, f"Batched output tensor's 0th dimension does not equal the sum of the 0th dimension "
                                f"sizes of the input tensors: {o.shape[0]} vs {size}")
        return [np.asarray(o)[:rows] for o in outputs]

    def _run_split(self, ctx, fn, inputs: tuple, captured: tuple) -> tuple:
        """An input larger than an execution takes, run at once in pieces (TF's large-batch splitting)."""
        rows = len(inputs[0])
        pieces = []
        for start in range(0, rows, self.capacity):
            part = [x[start:start + self.capacity] for x in inputs]
            pieces.append(self._call(ctx, fn, part, len(part[0]), captured))
        return tuple(np.concatenate([p[k] for p in pieces]) for k in range(len(pieces[0])))


def _copy_error(e: Exception) -> Exception:
    """The batch's error for one more caller (each raising thread gets its own exception object)."""
    if isinstance(e, errors.OpError):
        return type(e)(e.node_def, e.op, e.message)
    return e


# -- the op ------------------------------------------------------------------------------------------


def _batch_infer(op):
    return [(dt, TensorShape(None)) for dt in op._attrs["Tout"]]


def _config_error(attrs: dict) -> str | None:
    """TF's checks of the op's attrs (made when its kernel is built), as the message, or None."""
    allowed = list(attrs["allowed_batch_sizes"])
    if attrs["max_batch_size"] <= 0:
        return f"input_batch_size_limit must be positive; was {attrs['max_batch_size']}"
    if attrs["batch_timeout_micros"] < 0:
        return f"batch_timeout_micros must be non-negative; was {attrs['batch_timeout_micros']}"
    if attrs["max_enqueued_batches"] <= 0:
        return f"max_enqueued_batches must be positive; was {attrs['max_enqueued_batches']}"
    if any(b <= a for a, b in zip(allowed, allowed[1:])):
        return "allowed_batch_sizes entries must be monotonically increasing"
    if allowed and not attrs["enable_large_batch_splitting"] and allowed[-1] != attrs["max_batch_size"]:
        return ("final entry in allowed_batch_sizes must equal max_batch_size when enable_large_batch_splitting is "
                "False")
    return None


def _check_inputs(inputs: tuple, names: list, max_batch_size: int) -> None:
    listing = "".join(f" - {n} has shape {list(np.shape(x))}\n" for n, x in zip(names, inputs))
    if any(np.ndim(x) == 0 for x in inputs):
        raise errors.InvalidArgumentError(None, None, f"Batching input tensors must have at least one dimension.\n"
                                                      f"Below are the input tensors: \n{listing}")
    if len({len(x) for x in inputs}) > 1:
        raise errors.InvalidArgumentError(
            None, None, f"Batching input tensors supplied in a given op invocation must have equal 0th-dimension "
                        f"size.\nBelow are the input tensors: \n{listing}")
    if len(inputs[0]) > max_batch_size:
        raise errors.InvalidArgumentError(
            None, None, f"Task size {len(inputs[0])} is larger than maximum input batch size {max_batch_size}")


def _make_batch_kernel(op, resources):
    attrs = op._attrs
    problem = _config_error(attrs)
    n_in = attrs["n_in"]
    names = [t.op.name for t in op._inputs[:n_in]]
    what = f"the batch of {op.name}"
    if problem is None:
        fn = if_while_ops.compile_function(attrs["f"], resources, if_while_ops.where(op))
        allowed = tuple(attrs["allowed_batch_sizes"])
        capacity = allowed[-1] if allowed and attrs["enable_large_batch_splitting"] else attrs["max_batch_size"]
        batcher = resources.op_state(op, lambda: Batcher(capacity, attrs["batch_timeout_micros"] / 1e6, allowed,
                                                         list(attrs["Tout"])))

    def kernel(ctx, *args):
        if problem is not None:
            raise errors.InvalidArgumentError(None, None, problem)
        inputs, captured = tuple(np.asarray(a) for a in args[:n_in]), tuple(args[n_in:])
        _check_inputs(inputs, names, attrs["max_batch_size"])
        out = batcher.run(ctx, fn, inputs, captured, what)
        return out[0] if len(out) == 1 else out

    return kernel


register("BatchFunction", infer=_batch_infer, make_kernel=_make_batch_kernel, stateful=True, gpu=False,
         uses_context=True)


# -- the decorator -------------------------------------------------------------------------------------


def _trace(fn, args: list) -> tuple:
    """``fn`` traced on placeholders like ``args``; returns (graph, structured outputs)."""
    from dflow.framework.constant_op import convert_to_tensor

    graph = FuncGraph("computation", get_default_graph(), name_scope="")
    with graph.as_default():
        params = [graph.add_arg(a.dtype, a.shape, name=f"batch_{i}") for i, a in enumerate(args)]
        result = fn(*params)

        def output(v):
            if v is None:
                return None
            if isinstance(v, Operation):
                raise TypeError(f"To be compatible with tf.function, Python functions must return zero or more "
                                f"Tensors or ExtensionTypes or None values; in compilation of {fn}, found return "
                                f"value of type Operation, which is not a Tensor or ExtensionType.")
            return graph.capture(convert_to_tensor(v))

        structured = nest.map_structure(output, result)
    graph.outputs = [t for t in nest.flatten(structured) if t is not None]
    return graph, structured


@tf_export("nondifferentiable_batch_function")
def batch_function(num_batch_threads, max_batch_size, batch_timeout_micros, allowed_batch_sizes=None,
                   max_enqueued_batches=10, autograph=True, enable_large_batch_splitting=True):
    """Decorator: concurrent runs of the decorated function's op are batched along dimension 0.

    Every argument must be a tensor whose first dimension is the batch
    dimension; the function must return a tensor, or a list, tuple or dict
    of tensors, each with the batch as its first dimension. ``autograph`` is
    accepted and changes nothing (dflow has no AutoGraph).
    """

    def decorator(fn):
        def decorated(*args):
            for a in args:
                if not isinstance(a, Tensor):
                    raise _NotATensorError(f"All arguments to functions decorated with `batch_function`  are "
                                           f"supposed to be Tensors; found {a!r}.")
            graph, structured = _trace(fn, list(args))
            if not graph.outputs:
                raise ValueError("Attr 'Tout' of 'BatchFunction' Op passed list of length 0 less than minimum 1.")
            captured = [outer for outer, _ in graph.captures]
            graph.seal()
            with name_scope("batch") as scope:
                op = apply_op("BatchFunction", [*args, *captured], {
                    "f": graph, "n_in": len(args), "num_batch_threads": num_batch_threads,
                    "max_batch_size": max_batch_size, "batch_timeout_micros": batch_timeout_micros,
                    "allowed_batch_sizes": tuple(allowed_batch_sizes or ()),
                    "max_enqueued_batches": max_enqueued_batches, "shared_name": scope, "container": "",
                    "batching_queue": "", "enable_large_batch_splitting": enable_large_batch_splitting,
                    "Tout": [t.dtype for t in graph.outputs]}, name="BatchFunction")
                for c in graph.outer_control_inputs:
                    op._add_control_input(c)
            it = iter(op.outputs)
            flat = [None if t is None else next(it) for t in nest.flatten(structured)]
            return nest.pack_sequence_as(structured, flat) if nest.is_nested(structured) else flat[0]

        return decorated

    return decorator
