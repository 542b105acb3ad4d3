"""Symbolic differentiation: ``tf.gradients``.

One loop over the ops between ``xs`` and ``ys`` in reverse topological
order: sum the gradients that reached each output, call the op's gradient
rule (registered beside the op with ``@gradient("Type")``), and pass the
results on to its inputs. Gradient ops are created under the ``gradients/``
name scope, each rule under ``gradients/<op name>_grad/``, as in TF1.
"""

from __future__ import annotations

import contextlib

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import IndexedSlices
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, _graph_of, name_scope

# Ops whose gradient rule passes an IndexedSlices gradient on unchanged (a variable's read).
_PASSES_INDEXED_SLICES = frozenset({"Identity"})

_DIFFERENTIABLE = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


def _as_tensor_list(values, what: str) -> list:
    if values is None:
        return []
    if not isinstance(values, (list, tuple)):
        values = [values]
    out = []
    for v in values:
        ref = getattr(v, "_gradient_tensor", None)  # variables differentiate through their ref tensor
        t = ref() if ref is not None else convert_to_tensor(v)
        if not isinstance(t, Tensor):
            raise TypeError(f"tf.gradients: {what} must be tensors, got {type(v).__name__}")
        out.append(t)
    return out


def _between(ys, xs, stop_ops, only_ops=None) -> list:
    """Ops on a path from some x to some y (forward-reachable and backward-reaching), in order.
    With ``only_ops`` (the ops a ``tf.GradientTape`` recorded), paths pass through those ops only."""
    reach_back: set = set()
    stack = [y.op for y in ys]
    while stack:
        op = stack.pop()
        if op in reach_back:
            continue
        reach_back.add(op)
        stack.extend(t.op for t in op._inputs)
    reach_fwd: set = set()
    stack = [c for x in xs for c in x._consumers]
    while stack:
        op = stack.pop()
        if op in reach_fwd or op not in reach_back or only_ops is not None and op not in only_ops:
            continue
        reach_fwd.add(op)
        if op in stop_ops:
            continue
        for t in op._outputs:
            stack.extend(t._consumers)
    return sorted(reach_fwd, key=lambda op: op._id)


def _sum(grads: list, scope_name: str):
    """The sum of the gradients that reached one tensor. IndexedSlices (sparse gradients, as an
    embedding lookup makes) add up by concatenation, as in TF1; mixed with dense ones, they are
    made dense first."""
    grads = [g for g in grads if g is not None]
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    from dflow.ops.array import array_ops
    from dflow.ops.math import math_ops

    if all(isinstance(g, IndexedSlices) for g in grads):
        with name_scope(scope_name.replace("AddN", "concat")):
            return IndexedSlices(array_ops.concat([g.values for g in grads], 0),
                                 array_ops.concat([g.indices for g in grads], 0), grads[0].dense_shape)
    return math_ops.add_n([convert_to_tensor(g) for g in grads], name=scope_name)


def _maybe_colocate_with(graph, op, colocate: bool):
    """With ``colocate_gradients_with_ops``, an op's gradient runs on its device
    (model parallelism: each layer's backward pass where its forward ran)."""
    if colocate:
        return graph.colocate_with(op, ignore_existing=True)
    return contextlib.nullcontext()


@tf_export("gradients")
def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False, gate_gradients=False,
              aggregation_method=None, stop_gradients=None, unconnected_gradients="none") -> list:
    """Symbolic derivatives of ``sum(ys)`` with respect to each of ``xs``.

    Returns one tensor per x, or None where x does not affect ys (or zeros,
    with ``unconnected_gradients="zero"``); an ``IndexedSlices`` where only
    sparse gradients reach x (an embedding table's rows), as in TF1.

    >>> import dflow as tf
    >>> x = tf.constant(3.0)
    >>> (g,) = tf.gradients(x * x, [x])
    >>> tf.Session().run(g)
    np.float32(6.0)
    """
    ys = _as_tensor_list(ys, "ys")
    xs = _as_tensor_list(xs, "xs")
    if unconnected_gradients not in ("none", "zero"):
        raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}")
    graph = _graph_of(ys + xs)
    stop_ops = {t.op for t in _as_tensor_list(stop_gradients, "stop_gradients")}
    with graph.as_default(), name_scope(name, "gradients", ys + xs):
        return symbolic_gradients(graph, ys, xs, grad_ys, stop_ops, unconnected_gradients, colocate_gradients_with_ops)


def symbolic_gradients(graph, ys: list, xs: list, grad_ys, stop_ops=frozenset(), unconnected_gradients="none",
                       colocate_gradients_with_ops=False, only_ops=None, rule_scope="{}_grad",
                       seed_name="grad_ys_{}") -> list:
    """``tf.gradients``' work on tensors ``ys`` and ``xs`` of ``graph``, in the caller's name scope.

    ``tf.GradientTape`` calls it too, with ``only_ops`` (the ops it recorded: other ops carry no
    gradient), ``rule_scope="gradient_tape/{}/"`` (each rule's ops under ``gradient_tape/<op>/``,
    as TF's tape names them) and ``seed_name="ones"``.
    """
    from dflow.framework.op_registry import gradient_function
    from dflow.ops.array import array_ops

    grads: dict = {}
    grad_ys = list(grad_ys) if isinstance(grad_ys, (list, tuple)) else [grad_ys] * len(ys) \
        if grad_ys is not None else [None] * len(ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    for i, (y, gy) in enumerate(zip(ys, grad_ys)):
        if gy is None:
            if y.dtype not in _DIFFERENTIABLE:
                raise TypeError(f"Gradients of {y.dtype.name} values are not supported (ys[{i}] = {y.name}); "
                                f"cast to a float type first.")
            gy = array_ops.ones_like(y, name=seed_name.format(i))
        else:
            gy = convert_to_tensor(gy, dtype=y.dtype, name=f"grad_ys_{i}")
        grads.setdefault(y, []).append(gy)

    x_set = set(xs)
    for op in reversed(_between(ys, xs, stop_ops, only_ops)):
        if op in stop_ops:
            continue
        with _maybe_colocate_with(graph, op, colocate_gradients_with_ops):
            out_grads = [_sum(grads.get(t, []), f"{op.name}_grad/AddN") for t in op._outputs]
        if all(g is None for g in out_grads):
            continue
        rule = gradient_function(op)
        if rule is None:
            continue
        for i, (t, g) in enumerate(zip(op._outputs, out_grads)):
            if g is None and t.dtype in _DIFFERENTIABLE:
                out_grads[i] = array_ops.zeros_like(t)
            elif isinstance(g, IndexedSlices) and op._type not in _PASSES_INDEXED_SLICES:
                out_grads[i] = convert_to_tensor(g)
        with name_scope(rule_scope.format(op.name)), _maybe_colocate_with(graph, op, colocate_gradients_with_ops):
            in_grads = rule(op, *out_grads)
        if not isinstance(in_grads, (list, tuple)):
            in_grads = [in_grads]
        if len(in_grads) != len(op._inputs):
            raise ValueError(f"Gradient rule of {op.type} returned {len(in_grads)} gradients for "
                             f"{len(op._inputs)} inputs (op {op.name})")
        for t, g in zip(op._inputs, in_grads):
            if g is None or t.dtype not in _DIFFERENTIABLE:
                continue
            if not isinstance(g, IndexedSlices):
                g = convert_to_tensor(g)
            grads.setdefault(t, []).append(g)

    out = []
    for x in xs:
        g = _sum(grads.get(x, []), "AddN") if x in x_set else None
        if g is None and unconnected_gradients == "zero":
            g = array_ops.zeros_like(x)
        out.append(g)
    return out
