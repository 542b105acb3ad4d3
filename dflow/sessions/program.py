"""A partition's program: its ops as straight-line generated Python.

A TF1 op is often a few microseconds of numpy, so the interpreter between ops
must cost less than the ops. ``PartitionProgram`` compiles a partition once
per plan into a function such as::

    def _program(_ctx, feeds, u0):
        v0 = feeds[0]
        v1 = u0[1]
        v2 = k0(v0, v1)          # Add
        v3, v4 = k1(v2)          # Unique (two outputs)
        return (v2, v4)

where ``k0``, ``k1`` are the ops' bound kernels. A kernel failure is caught
once, mapped back to its op through the failing line number, and re-raised
as the TF1 error class naming the op, its type, device and creation site.
A traced variant (built on demand for ``RunOptions.FULL_TRACE``) also
records each op's start and end time and what its outputs hold (``describe``:
shape, bytes, device memory or not, and whether an output is one of the op's
inputs passed on)::

        _t = _now(); _o = k3(v1); _t1 = _now(); v5, v6, = _o; _stats.append((3, _t, _t1, _dn(_o, (v1, )))); del _o

Two rewrites change what a line runs. A product, its bias add and its
activation are one fused op at the last one's line (``fusion``). A large op
that does not depend on a loop starts on a background thread just before the
loop and is joined at its own line (``overlap``)::

        f9 = _bg.submit(k9, v2, v3)   # MatMul, beside the loop
        v7 = k5(_ctx, v4)             # While
        v8 = f9.result(); del f9
"""

from __future__ import annotations

import time

import numpy as np

from dflow.framework import errors
from dflow.ops.control_flow import if_while_ops
from dflow.sessions.fusion import fused_kernel, fusions_of
from dflow.sessions.overlap import background, plan_overlap, timed
from dflow.sessions.plan import Partition, prune_to_fetches

_ERROR_CLASSES = (
    ((ValueError, TypeError, IndexError, KeyError, ArithmeticError, np.linalg.LinAlgError),
     errors.InvalidArgumentError),
    ((MemoryError,), errors.ResourceExhaustedError),
    ((NotImplementedError,), errors.UnimplementedError),
)


def op_error(exc: BaseException, op, device: str) -> errors.OpError:
    """The TF1 error for ``exc`` raised by ``op``'s kernel on ``device``."""
    where = f"\n\t [[node {op.name} (op: {op.type}, device: {device}) defined at {op.created_at()} ]]"
    if isinstance(exc, errors.OpError):
        if exc.op is not None:
            return exc
        return type(exc)(None, op, f"{exc.message}{where}")
    cls = errors.UnknownError
    for types, err_cls in _ERROR_CLASSES:
        if isinstance(exc, types):
            cls = err_cls
            break
    return cls(None, op, f"{type(exc).__name__}: {exc}{where}")


def to_host(x):
    """A numpy array for ``x`` (copies a CuPy array back from its GPU)."""
    if isinstance(x, (np.ndarray, np.generic)) or x is None:
        return x
    get = getattr(x, "get", None)
    return get() if get is not None and type(x).__module__.startswith("cupy") else x


STRING_ELEMENT_BYTES = 24  # sizeof(tensorflow::tstring): what TF's allocation descriptions count per string


def describe(value, reads=()) -> tuple:
    """What a traced run records of one output value: ``(shape, nbytes, on_gpu, forwarded)``.

    ``nbytes`` is a numpy or CuPy array's ``nbytes`` (for strings, TF's 24 bytes per element);
    None for a Python value, whose size the session takes from the tensor's dtype. ``forwarded``:
    the value is one of ``reads`` (the op's inputs), passed on rather than allocated."""
    forwarded = any(value is r for r in reads)
    nbytes = getattr(value, "nbytes", None)
    if nbytes is not None and hasattr(value, "shape"):
        if getattr(getattr(value, "dtype", None), "kind", "") in ("O", "S", "U"):
            nbytes = value.size * STRING_ELEMENT_BYTES
        return tuple(value.shape), int(nbytes), type(value).__module__.startswith("cupy"), forwarded
    if isinstance(value, (bytes, str)):
        return (), STRING_ELEMENT_BYTES, False, forwarded
    return _python_shape(value), None, False, forwarded


def _python_shape(value) -> tuple:
    """The shape of a Python value a kernel returned (a nested list is a tensor's; anything
    else, a scalar or a Python-side resource, counts as a scalar)."""
    if isinstance(value, (list, tuple)):
        try:
            return np.shape(value)
        except ValueError:  # ragged
            return (len(value),)
    return ()


def describe_one(value, reads=()) -> tuple:
    """``describe`` of a single-output op's value, as a one-element tuple."""
    return (describe(value, reads),)


def describe_many(values, reads=()) -> tuple:
    """``describe`` of each of a multi-output op's values."""
    return tuple(describe(v, reads) for v in values)


def describe_none(values, reads=()) -> tuple:
    return ()


def _describer(n_outputs: int) -> str:
    return "_dn" if n_outputs > 1 else "_d1" if n_outputs else "_d0"


def to_gpu(x):
    import cupy  # only GPU partitions get here

    return cupy.asarray(x) if isinstance(x, (np.ndarray, np.generic)) else x


def _bind(op, resources):
    """The op's kernel; a kernel that cannot be made from the op's attributes (an imported graph
    that lacks one) is an ``InvalidArgumentError`` naming the op, not a Python ``KeyError``."""
    try:
        return op._opdef.bind(op, resources)
    except (KeyError, TypeError, AttributeError, IndexError) as e:
        raise errors.InvalidArgumentError(
            None, op, f"Cannot make the kernel of {op.name} ({op.type}) from its attributes: "
                      f"{type(e).__name__}: {e}. Was the graph imported from a damaged file?") from None


def _statements(partition, fusions: dict) -> list:
    """Per op of ``partition``, ``(tensors read, tensors made)`` by its line of the program, or
    None for an op absorbed into a fused op (``fusion``), whose line, at its last op's place,
    reads the chain's inputs and makes the last op's outputs."""
    absorbed = {i for f in fusions.values() for i in f.positions[:-1]}
    steps: list = []
    for i, op in enumerate(partition.ops):
        if i in absorbed:
            steps.append(None)
        elif i in fusions:
            steps.append((fusions[i].inputs, op._outputs))
        else:
            steps.append((op._inputs, op._outputs))
    return steps


def _dead_after(partition, steps: list | None = None) -> list:
    """Per op of ``partition``, the tensors that no later op reads and the partition does not
    return: its program drops them right after that op. A run's peak memory is then what its
    live values need, and a variable's value that no op still holds may be updated in place.
    ``steps`` are the program's ``_statements`` (default: no fused ops)."""
    keep = set(partition.outputs)
    last: dict = {}
    for i, step in enumerate(steps if steps is not None else _statements(partition, {})):
        if step is None:
            continue
        reads, makes = step
        for t in reads:
            last[t] = i
        for t in makes:
            last.setdefault(t, i)  # an output nothing reads goes right after its op
    dead: list = [[] for _ in partition.ops]
    for t, i in last.items():
        if t not in keep:
            dead[i].append(t)
    return dead


def _traced_statement(i: int, call: str, outs: list, reads: list) -> str:
    """The traced line of op ``i``: its times, then what its outputs hold (``describe``); the
    outputs' tuple ``_o`` is let go at once, so no value outlives its own line."""
    if not outs:
        return f"_t = _now(); {call}; _stats.append(({i}, _t, _now(), ()))"
    lhs = outs[0] if len(outs) == 1 else f"{', '.join(outs)},"
    inputs = "(" + "".join(f"{r}, " for r in reads) + ")"
    return (f"_t = _now(); _o = {call}; _t1 = _now(); {lhs} = _o; "
            f"_stats.append(({i}, _t, _t1, {_describer(len(outs))}(_o, {inputs}))); del _o")


class PartitionProgram:
    """Runs the ops of one partition in order.

    ``input_sources`` gives, per partition input tensor, ``("feed", i)`` or
    ``("up", j, k)``: output ``k`` of the ``j``-th upstream argument.
    Calling the program with ``(ctx, feeds, *upstream_outputs)`` returns the
    tuple of the partition's outputs; ``ctx`` is the run's ``RunContext`` (or
    None when no op of the plan can block).
    """

    def __init__(self, partition, input_sources, resources, convert_inputs=None):
        self.partition = partition
        self.device = partition.device
        binding = getattr(resources, "binding", None)  # variables remember the device they were placed on
        ops = list(partition.ops) + list(partition.final_reads)
        if binding is not None:
            with binding(partition.device):
                kernels = [_bind(op, resources) for op in ops]
        else:
            kernels = [_bind(op, resources) for op in ops]
        self._kernels = kernels[:len(partition.ops)]
        self._final_reads = kernels[len(partition.ops):]  # a ref variable's value after the partition's updates
        self._input_sources = input_sources
        self._convert = convert_inputs
        self._line_ops: dict = {}
        self._filename = f"<dflow partition {partition.name} on {partition.device}>"
        self._fn = self._compile(traced=False)
        self._traced_fn = None

    def __call__(self, ctx, feeds, *upstream):
        return self._fn(ctx, feeds, *upstream)

    def traced(self, ctx, feeds, *upstream):
        """Runs and returns the outputs plus, as one more element, the list of
        ``(op position, start_ns, end_ns)`` (epoch nanoseconds) of every op."""
        if self._traced_fn is None:
            self._traced_fn = self._compile(traced=True)
        stats: list = []
        return self._traced_fn(ctx, feeds, *upstream, _stats=stats) + (stats,)

    # -- code generation ---------------------------------------------------------------
    def _compile(self, traced: bool):
        p = self.partition
        n_up = len(p.upstream)
        params = ["_ctx", "feeds"] + [f"u{j}" for j in range(n_up)] + (["_stats"] if traced else [])
        lines = [f"def _program({', '.join(params)}):", "  try:"]
        names: dict = {}
        line_ops: dict = {}
        # __name__ lets dflow's warning filter silence numpy's RuntimeWarnings
        # (log(0), 0/0) raised by kernels called from here: TF1 returns inf/nan quietly.
        namespace = {"__name__": "dflow.partition", "_fail": self._fail, "_now": time.time_ns,
                     "_cv": self._convert}
        if traced:
            namespace.update(_d0=describe_none, _d1=describe_one, _dn=describe_many)
        for t, src in zip(p.inputs, self._input_sources):
            v = names[t] = f"v{len(names)}"
            ref = f"feeds[{src[1]}]" if src[0] == "feed" else f"u{src[1]}[{src[2]}]"
            lines.append(f"    {v} = {'_cv(' + ref + ')' if self._convert else ref}")
        fusions = fusions_of(p)
        steps = _statements(p, fusions)
        dead = _dead_after(p, steps)
        started = plan_overlap(p, steps, fusions)  # loop position -> ops to start beside the loop
        joined = {s for ss in started.values() for s in ss}
        if started:
            namespace["_bg"], namespace["_timed"] = background(), timed
        for i, op in enumerate(p.ops):
            if steps[i] is None:
                continue  # run by the fused op at its chain's end
            for s in started.get(i, ()):
                lines.append(self._start_line(s, steps[s][0], names, namespace, traced))
                line_ops[len(lines)] = p.ops[s]
            reads = steps[i][0]
            if i in fusions:
                namespace[f"k{i}"] = fused_kernel(fusions[i], p.ops, self._kernels, self._attribute)
            else:
                namespace[f"k{i}"] = self._kernels[i]
            args = ", ".join(names[t] for t in reads)
            outs = []
            for t in op._outputs:
                # A fed output keeps its fed value: the op's own result is dropped.
                outs.append("_" if t in names else names.setdefault(t, f"v{len(names)}"))
            if op._type == "Const":
                # A constant is a name lookup, not a kernel call.
                namespace[f"k{i}"] = op._attrs["value"]
                call = f"k{i}"
            elif i in joined:  # started beside a loop (overlap): its result, or its error, here
                call = f"f{i}.result()"
            elif op._opdef.uses_context:
                call = f"k{i}(_ctx{', ' if args else ''}{args})"
            else:
                call = f"k{i}({args})"
            if traced and i not in joined:  # a started op records its own times and outputs
                stmt = _traced_statement(i, call, outs, [names[t] for t in reads if t in names])
            elif len(outs) == 1:
                stmt = f"{outs[0]} = {call}"
            elif outs:
                stmt = f"{', '.join(outs)}, = {call}"
            else:
                stmt = call
            gone = [names[t] for t in dead[i] if names.get(t, "_") != "_"] + ([f"f{i}"] if i in joined else [])
            if gone:  # values no later op reads are let go (in-place updates need them gone: see resources)
                stmt += f"; del {', '.join(gone)}"
            lines.append(f"    {stmt}")
            line_ops[len(lines)] = op
        returned = [names[t] for t in p.outputs]
        for j, kernel in enumerate(self._final_reads):  # after every op: the values fetches alias (plan.py)
            namespace[f"r{j}"] = kernel
            returned.append(f"r{j}()")
        lines.append(f"    return ({', '.join(returned)}{',' if len(returned) == 1 else ''})")
        lines.append("  except Exception as _e:")
        lines.append("    raise _fail(_e) from _e")
        source = "\n".join(lines) + "\n"
        exec(compile(source, self._filename, "exec"), namespace)  # noqa: S102 - our own generated code
        self._line_ops.update(line_ops)
        self.source = source
        return namespace["_program"]

    def _start_line(self, s: int, reads, names: dict, namespace: dict, traced: bool) -> str:
        """The line that starts op ``s`` on the background thread (``overlap``). A constant it reads
        whose line comes later is passed as its value, from the namespace."""
        namespace[f"k{s}"] = self._kernels[s]
        args = []
        for t in reads:
            if t not in names:
                const = f"c_{self.partition.ops.index(t._op)}"
                namespace[const] = t._op._attrs["value"]
                args.append(const)
            else:
                args.append(names[t])
        describer = _describer(len(self.partition.ops[s]._outputs))
        call = [f"_timed, {s}, _stats, {describer}, k{s}" if traced else f"k{s}", *args]
        return f"    f{s} = _bg.submit({', '.join(call)})"

    def _attribute(self, exc: Exception, op) -> errors.OpError:
        return op_error(exc, op, self.device)

    def _fail(self, exc: Exception) -> errors.OpError:
        tb = exc.__traceback__
        op = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self._filename:
                op = self._line_ops.get(tb.tb_lineno)
                break
            tb = tb.tb_next
        if op is None:
            return exc if isinstance(exc, errors.OpError) else errors.InternalError(
                None, None, f"{type(exc).__name__}: {exc} (in partition {self.partition.name})")
        return op_error(exc, op, self.device)


def compile_subgraph(outputs: list, control_outputs: list, fed: list, sources: list, device: str, resources):
    """The ops ``outputs`` and ``control_outputs`` need (``fed`` tensors cut the graph) as one program's
    generated function ``(ctx, input values) -> output values``: how functional control flow runs its
    branches and bodies (``dflow.ops.control_flow.if_while_ops.compile_function``)."""
    ops = prune_to_fetches(outputs, control_outputs, set(fed))
    program = PartitionProgram(Partition(device, ops, fed, outputs), sources, resources)
    return program._fn  # the generated function itself: one call less per iteration


if_while_ops.install_subgraph_compiler(compile_subgraph)
