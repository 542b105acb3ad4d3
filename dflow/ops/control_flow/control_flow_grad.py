"""Gradients of ``If`` and ``While``: functional ops over gradient sub-graphs.

Both rules trace, with ``tf.gradients`` itself, a gradient graph of the
forward sub-graph (a branch, the loop body): its inputs are the incoming
gradients of the sub-graph's outputs, its outputs the gradients of the
sub-graph's inputs. Forward values that the gradient graph reads are
captured from the forward sub-graph and fed from the forward op:

* a captured outer tensor is the forward op's own input;
* anything computed inside is an extra output of the forward op
  (``if_while_ops.if_intermediate``), or, for a loop, an entry of the
  forward op's per-iteration trace (``if_while_ops.while_trace``).

So no forward computation runs twice (stateful ops and random numbers inside
a branch or body run once per run). The gradient of an ``If`` is another
``If`` over the two branch gradients with the same predicate. The gradient
of a ``While`` is a ``WhileGrad`` op that runs the body gradient over the
trace in reverse, carrying the loop variables' gradients and summing the
captured tensors' gradients over iterations.
"""

from __future__ import annotations

import numpy as np

from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.func_graph import FuncGraph
from dflow.framework.graph import get_default_graph
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.kernels import array_module
from dflow.kernels import blas as _blas
from dflow.ops.control_flow import if_while_ops
from dflow.ops.gradients.gradients_impl import _DIFFERENTIABLE, gradients


def _gradient_graph(name: str, forward: FuncGraph, ys: list, xs: list, dy_specs: list):
    """A FuncGraph computing d(ys)/d(xs) of ``forward`` given the gradients of ``ys``.

    Returns the graph and its incoming-gradient placeholders; its outputs are
    one gradient per x (zeros where x does not reach ys).
    """
    graph = FuncGraph(name, forward, name_scope=get_default_graph().get_name_scope())
    with graph.as_default():
        dys = [graph.add_arg(dtype, shape, name="dy") for dtype, shape in dy_specs]
        grads = gradients(ys, xs, grad_ys=dys, unconnected_gradients="zero")
        # A sparse gradient (IndexedSlices, from an embedding lookup in the body) leaves the sub-graph dense.
        graph.outputs = [graph.capture(convert_to_tensor(g)) for g in grads]
    return graph, dys


def _fed_inputs(graph: FuncGraph, start: int = 0) -> dict:
    """Input placeholder of ``graph`` -> its input position (from ``start`` on)."""
    return {t: j for j, t in enumerate(graph.inputs) if j >= start and t._op._type == "Placeholder"}


# -- If -------------------------------------------------------------------------------------


@gradient("If")
def _if_grad(op, *grads):
    branches = (op._attrs["then_branch"], op._attrs["else_branch"])
    n_user = op._attrs["num_user_outputs"]
    result = [None] * len(op._inputs)
    diff_out = [i for i in range(n_user) if grads[i] is not None and op._outputs[i].dtype in _DIFFERENTIABLE]
    diff_in = [j for j, t in enumerate(op._inputs[1:]) if t.dtype in _DIFFERENTIABLE]
    if not diff_out or not diff_in:
        return result
    traced = []
    for b in branches:
        traced.append(_gradient_graph(
            f"{b.name}_grad", b, [b.outputs[i] for i in diff_out], [b.inputs[j] for j in diff_in],
            [(op._outputs[i].dtype, b.outputs[i].shape) for i in diff_out]))
    # Where the forward values each gradient branch reads come from, as tensors of op's graph.
    sources: list = []
    placeholders: list = [{}, {}]
    for k, (b, (g, _)) in enumerate(zip(branches, traced)):
        fed = _fed_inputs(b)
        for inner, ph in g.captures:
            j = fed.get(inner)
            src = op._inputs[1 + j] if j is not None else if_while_ops.if_intermediate(op, k, inner)
            placeholders[k][src] = ph
            if src not in sources:
                sources.append(src)
    for k, (g, dys) in enumerate(traced):
        feeds = [placeholders[k][src] if src in placeholders[k] else g.add_arg(src.dtype, src.shape, name="unused")
                 for src in sources]
        g.inputs = dys + feeds
        g.n_args = len(g.inputs)
    grad_op = if_while_ops.build_if(op._inputs[0], traced[0][0], traced[1][0],
                                    [grads[i] for i in diff_out] + sources)
    for k, j in enumerate(diff_in):
        result[1 + j] = grad_op._outputs[k]
    return result


# -- While (and Scan): a reverse loop over the forward trace ------------------------------
#
# Both ops share one layout: inputs ``[state..., elems..., captured...]``, outputs
# ``[state..., stacked step outputs...]``; the body takes ``[state..., rows of
# elems..., captured...]`` and returns ``[state..., step outputs...]``. A While
# has no elems and no step outputs.


def _reverse_loop_infer(op):
    n_dy, n_in = op._attrs["n_dy"], op._attrs["n_inputs"]
    fwd = op._inputs[n_dy:n_dy + n_in]
    wrt = op._attrs["state_inputs"] + op._attrs["elem_inputs"] + op._attrs["captured_inputs"]
    return [(fwd[i].dtype, fwd[i].shape) for i in wrt]


# A captured weight's gradient in a loop body is most often one step's ``x.T @ dz`` (a MatMul's
# gradient) or ``sum(dz)`` (a BiasAdd's): summed over the steps, they are one product of the
# stacked steps, ``X.T @ DZ``, and one sum of DZ's rows. The reverse loop collects x and dz and
# computes those once at the end: an LSTM's 35 steps x 2 layers then make 4 large products and
# sums instead of 140 small products, sums and accumulations.
_DEFERRABLE_DTYPES = ("float32", "float64")
DEFER_CAPTURED = True  # a switch for measurements and tests


def _deferred_gradients(body_grad, first: int, count: int):
    """``(outputs, plans, collected)``: ``body_grad``'s outputs with the captured gradients (outputs
    ``first .. first + count``) that can be computed after the loop replaced by None, then the
    tensors to collect each step; ``plans`` maps each deferred output ``j`` (0-based among the
    captured) to ``("matmul", ia, ib)`` or ``("bias", ix)``, indices into the collected tensors."""
    outputs = list(body_grad.outputs)
    collected: list = []
    plans: dict = {}
    if not DEFER_CAPTURED:
        return outputs, plans, 0

    def index(t):
        if t not in collected:
            collected.append(t)
        return collected.index(t)

    for j in range(count):
        t = outputs[first + j]
        if t is None or t.dtype.name not in _DEFERRABLE_DTYPES:
            continue
        o = t.op
        if (o.type == "MatMul" and o._attrs["transpose_a"] and not o._attrs["transpose_b"]
                and all(x.shape.ndims == 2 for x in o.inputs)):
            plans[j] = ("matmul", index(o.inputs[0]), index(o.inputs[1]))
        elif o.type == "BiasAddGrad" and o._attrs["data_format"] != "NCHW" and o.inputs[0].shape.ndims == 2:
            plans[j] = ("bias", index(o.inputs[0]))
        else:
            continue
        outputs[first + j] = None
    return outputs + collected, plans, len(collected)


def _finish_deferred(plan, steps: list):
    """A deferred captured gradient from each step's collected values (``steps``: one tuple per
    step): one product or sum over the steps stacked, where they are numpy matrices."""
    if plan[0] == "matmul":
        a, b = [s[plan[1]] for s in steps], [s[plan[2]] for s in steps]
        if all(type(v) is np.ndarray for v in a + b):
            return _blas.in_blocks(np.concatenate(a).T, np.concatenate(b))
        return sum(x.T @ y for x, y in zip(a, b))
    from dflow.ops.nn.nn_ops import _bias_add_grad  # the BiasAddGrad kernel (nn_ops imports this module's users)

    rows = [s[plan[1]] for s in steps]
    if all(type(v) is np.ndarray for v in rows):
        return _bias_add_grad(np.concatenate(rows), "NHWC")
    return sum(_bias_add_grad(r, "NHWC") for r in rows)


def _make_reverse_loop_kernel(op, resources):
    n_ds, n_do, n_in = len(op._attrs["state_inputs"]), op._attrs["n_dy"] - len(op._attrs["state_inputs"]), \
        op._attrs["n_inputs"]
    invariant, accumulated = op._attrs["invariant"], op._attrs["accumulated"]
    elems, captured = op._attrs["elem_inputs"], op._attrs["captured_inputs"]
    n_de, n_dc = len(elems), len(captured)
    outputs, plans, n_collect = _deferred_gradients(op._attrs["body_grad"], n_ds + n_de, n_dc)
    body_grad = if_while_ops.compile_function(op._attrs["body_grad"], resources, if_while_ops.where(op), outputs)
    n_out = len(outputs) - n_collect
    reverse = op._attrs["reverse"]
    what = f"gradient loop {op.name}"

    def kernel(ctx, *args):
        d_state = args[:n_ds]
        d_outs = args[n_ds:n_ds + n_do]
        forward = args[n_ds + n_do:n_ds + n_do + n_in]
        trace = args[-1]
        fixed = tuple(forward[i] for i in invariant)
        n = len(trace)
        rows = [[None] * n for _ in range(n_de)]
        sums = [None] * n_dc
        owned = [False] * n_dc  # sums[j] is a fresh array of this kernel's, safe to add to in place
        collected = []
        for step in range(n - 1, -1, -1):
            if ctx is not None:
                ctx.check(what)
            k = n - 1 - step if reverse else step  # the row of elems this step read
            record = trace[step]
            out = body_grad(ctx, d_state + tuple(d[k] for d in d_outs) + fixed
                            + tuple(record[i] for i in accumulated))
            d_state = out[:n_ds]
            if n_collect:
                collected.append(out[n_out:])
            for j in range(n_de):
                rows[j][k] = out[n_ds + j]
            for j in range(n_dc):
                if j in plans:
                    continue
                g = out[n_ds + n_de + j]
                total = sums[j]
                if total is None:
                    sums[j] = g
                elif owned[j] and type(g) is np.ndarray and g.dtype == total.dtype and g.shape == total.shape:
                    total += g  # the sum's own array: in place (an LSTM's kernel gradient, every step)
                else:
                    sums[j] = total + g
                    owned[j] = type(sums[j]) is np.ndarray
        d_elems = tuple(array_module(forward[i]).stack(r) if n else array_module(forward[i]).zeros_like(forward[i])
                        for i, r in zip(elems, rows))
        for j, plan in plans.items():
            if collected:
                sums[j] = _finish_deferred(plan, collected)
        d_caps = tuple(array_module(forward[i]).zeros_like(forward[i]) if s is None else s
                       for i, s in zip(captured, sums))
        values = d_state + d_elems + d_caps
        return values[0] if len(values) == 1 else values

    return kernel


register("WhileGrad", infer=_reverse_loop_infer, make_kernel=_make_reverse_loop_kernel, gpu=False,
         uses_context=True)
register("ScanGrad", infer=_reverse_loop_infer, make_kernel=_make_reverse_loop_kernel, gpu=False,
         uses_context=True)


def reverse_loop_gradient(op, grads, grad_type: str, n_state: int, n_elems: int, n_outputs: int, reverse: bool):
    """The gradients of a While or Scan ``op``'s inputs: one ``grad_type`` op.

    Its body gradient is traced once; the values it reads per step come from
    the forward op's trace, those it reads from outside from the forward
    op's inputs.
    """
    body = op._attrs["body"]
    result = [None] * len(op._inputs)
    if not op._attrs["back_prop"]:
        return result

    def differentiable(t):
        return t.dtype in _DIFFERENTIABLE

    diff_state = [i for i in range(n_state) if grads[i] is not None and differentiable(op._outputs[i])]
    diff_outs = [i for i in range(n_state, n_state + n_outputs)
                 if grads[i] is not None and differentiable(op._outputs[i])]
    diff_elems = [i for i in range(n_state, n_state + n_elems) if differentiable(op._inputs[i])]
    diff_caps = [i for i in range(n_state + n_elems, len(op._inputs)) if differentiable(op._inputs[i])]
    if not diff_state and not diff_outs:
        return result
    g, dys = _gradient_graph(
        "body_grad", body, [body.outputs[i] for i in diff_state + diff_outs],
        [body.inputs[i] for i in diff_state + diff_elems + diff_caps],
        [(op._outputs[i].dtype, body.inputs[i].shape) for i in diff_state]
        + [(body.outputs[i].dtype, body.outputs[i].shape) for i in diff_outs])
    fed = _fed_inputs(body, start=n_state + n_elems)
    invariant, fixed_ph, accumulated, acc_ph = [], [], [], []
    for inner, ph in g.captures:
        j = fed.get(inner)
        if j is not None:  # a captured outer tensor: the same every step
            invariant.append(j)
            fixed_ph.append(ph)
        else:
            _, index = if_while_ops.while_trace(op, inner)
            accumulated.append(index)
            acc_ph.append(ph)
    trace, _ = if_while_ops.while_trace(op)
    g.inputs = dys + fixed_ph + acc_ph
    g.n_args = len(g.inputs)
    g.seal()
    grad_op = apply_op(
        grad_type, [grads[i] for i in diff_state + diff_outs] + list(op._inputs) + [trace],
        {"body_grad": g, "n_dy": len(dys), "n_inputs": len(op._inputs), "invariant": invariant,
         "accumulated": accumulated, "state_inputs": diff_state, "elem_inputs": diff_elems,
         "captured_inputs": diff_caps, "reverse": reverse}, name=grad_type)
    for k, i in enumerate(diff_state + diff_elems + diff_caps):
        result[i] = grad_op._outputs[k]
    return result


@gradient("While")
def _while_grad(op, *grads):
    return reverse_loop_gradient(op, grads, "WhileGrad", op._attrs["n_vars"], 0, 0, False)
