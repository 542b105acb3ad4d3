"""The functional control-flow ops ``If`` and ``While``, and how they run.

``tf.cond`` and ``tf.while_loop`` (``control_flow_ops``) trace their
functions into ``FuncGraph``s and build one op:

* ``If``: inputs ``[pred, *captured]``; attrs ``then_branch`` and
  ``else_branch``, two FuncGraphs whose inputs are the captured tensors (the
  same list for both) and whose outputs match in number and dtype. Outputs:
  the taken branch's outputs.
* ``While``: inputs ``[*loop_vars, *captured]``; attrs ``cond`` (inputs:
  loop vars then captures; output: one bool scalar) and ``body`` (same
  inputs; outputs: the next loop vars). Outputs: the final loop vars.

A session binds each op with ``make_kernel``: the sub-graphs are pruned to
their outputs and compiled once into ``PartitionProgram``s (the straight-line
Python the session runs partitions with), with their stateful ops bound to
the session's resources. So a variable assigned in a branch or a body is the
session's variable, only the branch taken runs, and a loop iteration costs
two calls of generated code. An error inside names the inner op.

Gradients (``control_flow_grad``) need values computed inside the forward
op. They extend the op after the fact, as TF2 does: an ``If`` gains outputs
for the branch intermediates its gradient reads (``None`` from the branch
not taken); a ``While`` gains one last output, its *trace*: the list, one
tuple per iteration, of the body tensors in ``body.accumulated``.
"""

from __future__ import annotations

from dflow.framework import dtypes
from dflow.framework.func_graph import FuncGraph, add_outputs, bump_structure_version
from dflow.framework.op_registry import apply_op, register
from dflow.framework.tensor_shape import TensorShape

# The dtype of a While trace: a Python list that only gradient ops read.
variant = dtypes.trace_variant


def where(op) -> str:
    """What errors inside ``op``'s sub-graphs name as the device they ran on."""
    return f"{op.device or 'the device'} of {op.name}"


# How a sub-graph becomes a function: the session layer's compiler, installed by dflow/sessions/program.py
# (ops run sub-graphs, but cannot import the session layer that plans and compiles them).
_compile_subgraph = None


def install_subgraph_compiler(compile_subgraph) -> None:
    """Sets ``compile_subgraph(outputs, control_outputs, fed, sources, device, resources) -> fn``.

    It prunes the graph to what ``outputs`` and ``control_outputs`` need (``fed``
    tensors cut it), compiles those ops, and returns the function ``(ctx, input
    values) -> output values`` that runs them.
    """
    global _compile_subgraph
    _compile_subgraph = compile_subgraph


def compile_function(graph: FuncGraph, resources, device: str = "", outputs: list | None = None):
    """``graph`` as a function ``(ctx, input values) -> output values`` (tuples;
    ``outputs`` defaults to ``graph.outputs``; ``ctx`` is the run's RunContext).

    Inputs that are placeholders are fed; others (fresh variable reads) are
    computed. A ``None`` output yields ``None``. ``graph.control_outputs``
    always run.
    """
    outputs = list(graph.outputs if outputs is None else outputs)
    fed: dict = {}
    sources = []
    for i, t in enumerate(graph.inputs):
        if t._op._type == "Placeholder" and t not in fed:
            fed[t] = i
            sources.append(("feed", i))
    real = [t for t in outputs if t is not None]
    if _compile_subgraph is None:
        raise RuntimeError("No sub-graph compiler is installed: import dflow (its session layer installs one) "
                           "before running functional control flow")
    fn = _compile_subgraph(real, graph.control_outputs, list(fed), sources, device or f"function {graph.name}",
                           resources)
    if len(real) == len(outputs):
        return fn
    where = _positions(outputs)

    def padded(ctx, args):
        values = fn(ctx, args)
        return tuple(None if j is None else values[j] for j in where)

    return padded


def _positions(outputs: list) -> list:
    """For each output, its index among the non-None outputs (None for padding)."""
    out, k = [], 0
    for t in outputs:
        if t is None:
            out.append(None)
        else:
            out.append(k)
            k += 1
    return out


def shape_less_equal(shape, invariant) -> bool:
    """True if ``shape`` is at least as specific as ``invariant`` (TF1's rule)."""
    if invariant.ndims is None:
        return True
    if shape.ndims != invariant.ndims:
        return False
    return all(b.value is None or a.value == b.value for a, b in zip(shape.dims, invariant.dims))


# -- If ---------------------------------------------------------------------------------


def _if_infer(op):
    then_g, else_g = op._attrs["then_branch"], op._attrs["else_branch"]
    specs = []
    for t, e in zip(then_g.outputs, else_g.outputs):
        specs.append((t.dtype, t.shape.most_specific_compatible_shape(e.shape)))
    return specs


def _make_if_kernel(op, resources):
    then_fn = compile_function(op._attrs["then_branch"], resources, where(op))
    else_fn = compile_function(op._attrs["else_branch"], resources, where(op))
    if len(op._outputs) == 1:
        return lambda ctx, pred, *args: (then_fn if pred else else_fn)(ctx, args)[0]
    return lambda ctx, pred, *args: (then_fn if pred else else_fn)(ctx, args)


# Control-flow kernels take the run's context: blocking ops inside get it, and
# loops stop at the run's deadline or cancellation (an endless loop included).
register("If", infer=_if_infer, make_kernel=_make_if_kernel, gpu=False, uses_context=True)


def build_if(pred, then_graph: FuncGraph, else_graph: FuncGraph, captured: list, name: str = "If"):
    """The ``If`` op over two traced branches whose inputs both stand for ``captured``."""
    op = apply_op("If", [pred, *captured], {"then_branch": then_graph, "else_branch": else_graph,
                                            "num_user_outputs": len(then_graph.outputs)}, name=name)
    seal_function_graphs(op, [then_graph, else_graph])
    return op


def if_intermediate(op, branch: int, tensor):
    """The output of ``If`` op that carries ``tensor`` of one branch (added if new)."""
    graphs = (op._attrs["then_branch"], op._attrs["else_branch"])
    g = graphs[branch]
    for i, t in enumerate(g.outputs):
        if t is tensor and i >= op._attrs["num_user_outputs"]:
            return op._outputs[i]
    g.outputs.append(tensor)
    graphs[1 - branch].outputs.append(None)
    (out,) = add_outputs(op, [(tensor.dtype, tensor.shape)])
    return out


# -- While ------------------------------------------------------------------------------


def _while_infer(op):
    body = op._attrs["body"]
    return [(t.dtype, t.shape) for t in body.inputs[:op._attrs["n_vars"]]]


def _make_while_kernel(op, resources):
    n = op._attrs["n_vars"]
    cond_fn = compile_function(op._attrs["cond"], resources, where(op))
    body = op._attrs["body"]
    recording = len(op._outputs) > n
    body_fn = compile_function(body, resources, where(op),
                               body.outputs + body.accumulated if recording else None)
    what = f"while loop {op.name}"
    if recording:
        def kernel(ctx, *args):
            values, captured = args[:n], args[n:]
            trace = []
            while cond_fn(ctx, values + captured)[0]:
                if ctx is not None:
                    ctx.check(what)
                out = body_fn(ctx, values + captured)
                values = out[:n]
                trace.append(out[n:])
            return (*values, trace)

        return kernel

    def kernel(ctx, *args):
        values, captured = args[:n], args[n:]
        while cond_fn(ctx, values + captured)[0]:
            if ctx is not None:
                ctx.check(what)
            values = body_fn(ctx, values + captured)
        return values[0] if n == 1 else values

    return kernel


register("While", infer=_while_infer, make_kernel=_make_while_kernel, gpu=False, uses_context=True)


def build_while(loop_vars: list, captured: list, cond_graph: FuncGraph, body_graph: FuncGraph, back_prop: bool,
                parallel_iterations: int, name: str = "While"):
    """The ``While`` op over traced ``cond`` and ``body`` graphs."""
    body_graph.accumulated = []
    op = apply_op("While", [*loop_vars, *captured],
                  {"cond": cond_graph, "body": body_graph, "n_vars": len(loop_vars), "back_prop": back_prop,
                   "parallel_iterations": parallel_iterations, "num_user_outputs": len(loop_vars)}, name=name)
    seal_function_graphs(op, [cond_graph, body_graph])
    return op


def while_trace(op, tensor=None):
    """``(trace output, index)``: where ``op``'s trace keeps ``tensor`` of the body
    each iteration (``tensor=None``: just the trace, whose length counts iterations)."""
    body = op._attrs["body"]
    index = None
    if tensor is not None:
        for i, t in enumerate(body.accumulated):
            if t is tensor:
                index = i
                break
        else:
            body.accumulated.append(tensor)
            index = len(body.accumulated) - 1
            # Kernels record what ``accumulated`` holds when they are built: rebuild plans.
            bump_structure_version(op._graph)
    n = op._attrs["num_user_outputs"]
    if len(op._outputs) == n:
        add_outputs(op, [(variant, TensorShape(None))])
    return op._outputs[n], index


def seal_function_graphs(op, graphs) -> None:
    """Freezes the captures of ``op``'s sub-graphs; their control inputs from
    enclosing graphs become ``op``'s."""
    for g in graphs:
        g.seal()
        for c in g.outer_control_inputs:
            op._add_control_input(c)
