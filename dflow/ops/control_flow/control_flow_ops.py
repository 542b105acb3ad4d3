"""Control flow: ``NoOp``, ``Identity``, ``tf.group``, ``tf.tuple``, and
``tf.cond``, ``tf.case``, ``tf.while_loop``.

The conditionals and loops are functional ops over traced sub-graphs (see
``if_while_ops``); their gradients are in ``control_flow_grad``, and
``tf.map_fn``, ``tf.scan``, ``tf.foldl``/``tf.foldr`` in ``functional_ops``
(imported at the end of this module).
"""

from __future__ import annotations

import functools

from dflow._api import tf_export
from dflow.framework import dtypes, errors, nest
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.func_graph import FuncGraph
from dflow.framework.graph import (
    Operation,
    Tensor,
    _as_operation,
    control_dependencies,
    get_default_graph,
    name_scope,
)
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape, as_shape
from dflow.ops.control_flow import if_while_ops

register("NoOp", infer=lambda op: [], kernel=lambda: None, foldable=False)


@tf_export("no_op")
def no_op(name=None) -> Operation:
    """An op that does nothing; useful as a target for control dependencies."""
    return apply_op("NoOp", [], name=name or "NoOp")


def _identity_infer(op):
    x = op._inputs[0]
    return [(x.dtype, x.shape)]


register("Identity", infer=_identity_infer, kernel=lambda x: x)


@gradient("Identity")
def _identity_grad(op, grad):
    return [grad]


@tf_export("identity")
def identity(input, name=None) -> Tensor:  # noqa: A002 - TF1 argument name
    """Returns a tensor with the same value as ``input``."""
    x = convert_to_tensor(input)
    return apply_op("Identity", [x], name=name or "Identity").outputs[0]


@tf_export("group")
def group(*inputs, **kwargs) -> Operation:
    """An op that runs once all ``inputs`` (ops or tensors, possibly nested) have run."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Unknown keyword arguments: {', '.join(kwargs)}")
    deps = []
    for x in _flatten(inputs):
        if x is None:
            continue
        op = _as_operation(x)
        if op not in deps:
            deps.append(op)
    with control_dependencies(deps):
        return no_op(name=name or "group_deps")


def _flatten(xs):
    for x in xs:
        if isinstance(x, (list, tuple, set)):
            yield from _flatten(x)
        elif isinstance(x, dict):
            yield from _flatten(list(x.values()))
        else:
            yield x


def with_dependencies(dependencies, output_tensor, name=None) -> Tensor:
    """``output_tensor``'s value, produced only after ``dependencies`` have run."""
    with name_scope(name, "control_dependency", list(dependencies) + [output_tensor]) as scope:
        with control_dependencies(dependencies):
            return identity(output_tensor, name=scope or None)


@tf_export("tuple")
def tuple_(tensors, name=None, control_inputs=None) -> list:  # TF1 exports it as tf.tuple
    """Tensors with the same values, each available only after all have been computed."""
    with name_scope(name, "tuple", [t for t in tensors if t is not None]):
        gating = [t for t in tensors if t is not None] + list(control_inputs or [])
        gate = group(*gating)
        return [None if t is None else with_dependencies([gate], t) for t in tensors]


# -- tf.cond, tf.case, tf.while_loop ------------------------------------------------------
#
# Each traces its functions into FuncGraphs and builds one functional op
# (``If``/``While``, see ``if_while_ops``); the returned tensors are
# Identities named as TF1 names its cond and loop outputs (``cond/Merge``,
# ``while/Exit``), so names users see match TF1's. The ops inside the
# branches and bodies are named in the same scope (``cond/mul``), but live in
# the sub-graphs, not in the user's graph.


def _check_bool_scalar(t: Tensor, op_type: str, arg: str, scope: str) -> Tensor:
    if t.dtype is not dtypes.bool:
        raise TypeError(f"Input '{arg}' of '{op_type}' Op has type {t.dtype.name} that does not match expected type "
                        f"of bool.")
    if t.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims} for '{scope}{op_type}' (op: "
                         f"'{op_type}') with input shapes: {_dims(t.shape)}.")
    return t


def _dims(shape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _function_output(graph: FuncGraph, value, pivot: bool | None = None, dtype=None) -> Tensor:
    """A traced function's return value as a tensor of ``graph``."""
    if isinstance(value, Operation):
        if pivot is None:
            raise TypeError(f"A loop body must return tensors, not the operation {value.name}.")
        # TF1 stands in the branch's pivot (the predicate's value) for a returned op.
        with control_dependencies([value]):
            return constant(pivot, name="pivot")
    if not isinstance(value, Tensor) and dtype is not None and not hasattr(value, "_as_graph_element"):
        return convert_to_tensor(value, dtype=dtype)
    return graph.capture(convert_to_tensor(value))


def _align_captures(graphs, args_per_graph) -> list:
    """The union of the outer tensors ``graphs`` capture; each graph's inputs
    become its ``args`` then one input per union entry."""
    union: list = []
    seen: set = set()
    for g in graphs:
        for outer, _ in g.captures:
            if outer not in seen:
                seen.add(outer)
                union.append(outer)
    for g, args in zip(graphs, args_per_graph):
        g.replace_inputs(args, union)
    return union


def _trace_branch(fn, what: str, pivot: bool):
    from dflow.ops.state.tensor_array_ops import is_tensor_array  # it imports this module

    graph = FuncGraph(what, get_default_graph())
    with graph.as_default():
        result = fn()
        if result is None:
            raise ValueError(f"'{what}' must have a return value.")
        # A TensorArray result travels as its flow (``cond`` rebuilds it).
        graph.outputs = [_function_output(graph, v.flow if is_tensor_array(v) else v, pivot)
                         for v in nest.flatten(result)]
    return graph, result


def _unpack_if_singleton(res):
    if isinstance(res, (list, tuple)) and len(res) == 1:
        return res[0]
    return res


@tf_export("cond")
def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``; only the branch taken runs.

    Both functions return the same structure of tensors (same dtypes); the
    result has that structure, with singleton lists unpacked unless
    ``strict``. ``fn1``/``fn2`` are TF1's old names for the two functions.
    The returned tensors are named ``cond/Merge:0``, ``cond/Merge_1:0``, ...
    as in TF1; the ops inside the branches run inside one ``If`` op
    (``cond/If``), not as TF1's Switch/Merge ops.

    >>> import dflow as tf
    >>> x = tf.constant(2.0)
    >>> y = tf.cond(x > 1.0, lambda: x * 10.0, lambda: x)
    >>> y.name, tf.Session().run(y)
    ('cond/Merge:0', np.float32(20.0))
    """
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): 'true_fn' and 'fn1' may not be set simultaneously.")
        true_fn = fn1
    elif true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): 'false_fn' and 'fn2' may not be set simultaneously.")
        false_fn = fn2
    elif false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    from dflow.ops.state.tensor_array_ops import is_tensor_array  # it imports this module

    with name_scope(name, "cond", [pred]) as scope:
        if isinstance(pred, bool):
            raise TypeError("'pred' must not be a Python bool.")
        pred = _check_bool_scalar(convert_to_tensor(pred), "Switch", "pred", scope)
        then_graph, res_t = _trace_branch(true_fn, "true_fn", True)
        else_graph, res_f = _trace_branch(false_fn, "false_fn", False)
        if not strict:
            res_t, res_f = _unpack_if_singleton(res_t), _unpack_if_singleton(res_f)
        try:
            nest.assert_same_structure(res_t, res_f)
        except ValueError as e:
            raise ValueError(f"Incompatible return values of 'true_fn' and 'false_fn': {e}") from None
        if not then_graph.outputs:
            raise ValueError("'true_fn' and 'false_fn' must return at least one result.")
        for x, y in zip(then_graph.outputs, else_graph.outputs):
            if x.dtype is not y.dtype:
                raise ValueError(f"Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received "
                                 f"{x.dtype.name} from 'true_fn' and {y.dtype.name} from 'false_fn'.")
        captured = _align_captures([then_graph, else_graph], [[], []])
        op = if_while_ops.build_if(pred, then_graph, else_graph, captured)
        merges = [identity(t, name="Merge") for t in op.outputs]
        # A TensorArray result travelled as its flow: rebuild it around the merged flow.
        merges = [t._with_flow(m) if is_tensor_array(t) else m for t, m in zip(nest.flatten(res_t), merges)]
        result = nest.pack_sequence_as(res_t, merges)
        return result if strict else _unpack_if_singleton(result)


def _case_check_kernel(*preds, min_true, max_true, message, names):
    values = [bool(p) for p in preds]
    n = sum(values)
    if n < min_true or n > max_true:
        shown = "[" + " ".join(str(v) for v in values) + "]"
        raise errors.InvalidArgumentError(None, None, f"assertion failed: [{message}{names}] [{shown}]")


register("_CaseCheck", infer=lambda op: [], kernel=_case_check_kernel, foldable=False)


def _case_check(predicates, min_true: int, max_true: int, message: str, names: str = "") -> Operation:
    return apply_op("_CaseCheck", list(predicates), {"min_true": min_true, "max_true": max_true,
                                                      "message": message, "names": names}, name="Assert")


def _case_args(pred_fn_pairs):
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, dict):
        if type(pred_fn_pairs) is dict:
            # TF1 sorts a plain dict by predicate name, to be deterministic.
            pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
        else:
            pred_fn_pairs = list(pred_fn_pairs.items())
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if not isinstance(pred, Tensor):
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if pred.dtype is not dtypes.bool:
            raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    predicates, actions = zip(*pred_fn_pairs)
    return list(predicates), list(actions)


def _with_check(check: Operation, result):
    """``result`` (a structure of tensors) available only after ``check`` ran."""
    with control_dependencies([check]):
        return nest.map_structure(lambda v: v if isinstance(v, Operation) else identity(v), result)


@tf_export("case")
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the first ``fn`` whose ``pred`` is True, else of ``default()``.

    ``pred_fn_pairs`` is a list of ``(pred, fn)`` pairs, or a dict (a plain
    dict is ordered by predicate name, as TF1 orders it). Without
    ``default`` the last pair's ``fn`` is the default, and a run where no
    predicate holds fails. ``exclusive=True`` checks at run time that at
    most one predicate holds. Built as nested ``tf.cond``s, as in TF1: the
    result is named ``case/cond/Merge:0``.

    >>> import dflow as tf
    >>> x = tf.constant(3)
    >>> y = tf.case([(x < 0, lambda: -1), (x > 0, lambda: 1)], default=lambda: 0)
    >>> tf.Session().run(y)
    np.int32(1)
    """
    predicates, actions = _case_args(pred_fn_pairs)
    if default is not None and not callable(default):
        raise TypeError("'default' must be callable.")
    with name_scope(name, "case", predicates):
        if default is None:
            *predicates, last_pred = predicates
            *actions, last_action = actions

            def default(last_pred=last_pred, last_action=last_action):
                check = _case_check([last_pred], 1, 1, "Input error: None of conditions evaluated as True:")
                return _with_check(check, last_action())

        fn = default
        for pred, action in reversed(list(zip(predicates, actions))):
            fn = functools.partial(cond, pred, action, fn, strict=strict)
        if exclusive:
            names = ", ".join(p.name for p in predicates)
            check = _case_check(predicates, 0, 1, "Input error: exclusive=True: more than 1 conditions ",
                                f"({names}) evaluated as True:")
            with control_dependencies([check]):
                return fn()
        return fn()


def _flat_invariants(loop_vars, shape_invariants) -> list:
    """One TensorShape per flattened loop variable."""
    out: list = []

    def walk(v, s):
        if not nest.is_nested(v):
            out.append(as_shape(s))
            return
        if not nest.is_nested(s) or len(nest.children(v)) != len(nest.children(s)):
            raise ValueError(f"shape_invariants {shape_invariants!r} do not have the structure of the loop "
                             f"variables {loop_vars!r}")
        for cv, cs in zip(nest.children(v), nest.children(s)):
            walk(cv, cs)

    walk(loop_vars, shape_invariants)
    return out


@tf_export("while_loop")
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, name=None, maximum_iterations=None, return_same_structure=False):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``.

    ``loop_vars`` is a list or tuple, possibly nested (tuples, namedtuples,
    dicts). Each loop variable keeps its dtype and static shape across
    iterations, unless ``shape_invariants`` (the same structure of
    ``TensorShape``s) allows less specific shapes: a body that changes a
    shape without one is a ValueError naming the variable, as in TF1.
    ``maximum_iterations`` bounds the iterations (as TF1, with a hidden
    counter variable). ``parallel_iterations`` and ``swap_memory`` are
    accepted and ignored: the body runs one iteration at a time. The result
    has the body's structure (a single tensor for a single loop variable,
    unless ``return_same_structure``), named ``while/Exit:0``,
    ``while/Exit_1:0``, ... as in TF1; the loop itself is one ``While`` op.

    >>> import dflow as tf
    >>> i, total = tf.while_loop(lambda i, t: i < 4, lambda i, t: (i + 1, t + i), [0, 0])
    >>> tf.Session().run([i, total])
    [np.int32(4), np.int32(6)]
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    if isinstance(loop_vars, Tensor):
        raise TypeError(f"'loop_vars' must be a list or tuple of loop variables, got the tensor {loop_vars.name}")
    with name_scope(name, "while", [v for v in nest.flatten(loop_vars) if isinstance(v, Tensor)]) as scope:
        if not loop_vars:
            raise ValueError("'loop_vars' must be provided.")
        try_to_pack = len(loop_vars) == 1 and not return_same_structure
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if maximum_iterations.shape.ndims != 0:
                raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: {maximum_iterations.shape}")
            counter = constant(0, dtype=maximum_iterations.dtype, name="iteration_counter")
            orig_cond, orig_body, limit = cond, body, maximum_iterations
            if try_to_pack:
                loop_vars = (counter, loop_vars[0])
                cond = lambda i, lv: _logical_and(i < limit, orig_cond(lv))
                body = lambda i, lv: (i + 1, orig_body(lv))
            else:
                loop_vars = (counter, loop_vars)
                cond = lambda i, lv: _logical_and(i < limit, orig_cond(*lv))
                body = lambda i, lv: (i + 1, orig_body(*lv))
            if shape_invariants is not None:
                # TF1 forgets to unwrap a single loop variable's invariant here (and fails).
                if try_to_pack and isinstance(shape_invariants, (list, tuple)) and len(shape_invariants) == 1:
                    shape_invariants = shape_invariants[0]
                shape_invariants = (TensorShape([]), shape_invariants)
        result, n = _build_loop(cond, body, loop_vars, shape_invariants, back_prop, parallel_iterations, scope)
        if maximum_iterations is not None:
            return result[1]
        if n == 1 and not return_same_structure and isinstance(result, (list, tuple)):
            return result[0]
        return result


def _logical_and(x, y):
    from dflow.ops.math import math_ops  # math_ops imports this module

    return math_ops.logical_and(x, y)


def _build_loop(cond, body, loop_vars, shape_invariants, back_prop, parallel_iterations, scope):
    # A TensorArray loop variable travels as its flow and is rebuilt around it in cond, body and result.
    from dflow.ops.state.tensor_array_ops import is_tensor_array  # it imports this module

    flat_templates = nest.flatten(loop_vars)
    loop_vars = nest.map_structure(
        lambda v: v.flow if is_tensor_array(v) else v if isinstance(v, Tensor) else convert_to_tensor(v), loop_vars)

    def with_arrays(values):
        flat = [t._with_flow(v) if is_tensor_array(t) else v for t, v in zip(flat_templates, nest.flatten(values))]
        return nest.pack_sequence_as(values, flat)

    def flows(values):
        return nest.map_structure(lambda v: v.flow if is_tensor_array(v) else v, values)

    flat_vars = nest.flatten(loop_vars)
    if shape_invariants is None:
        invariants = [t.shape for t in flat_vars]
    else:
        invariants = _flat_invariants(loop_vars, shape_invariants)
        # A TensorArray's invariant (TF1 code passes its element shape, or none) does not constrain its flow.
        invariants = [t.shape if is_tensor_array(a) else s for t, a, s in zip(flat_vars, flat_templates, invariants)]
        for t, s in zip(flat_vars, invariants):
            if not if_while_ops.shape_less_equal(t.shape, s):
                raise ValueError(f"The shape invariant specified for {t.name} is not compatible with the initial "
                                 f"shape of the loop variable. It enters the loop with shape {t.shape}, but the "
                                 f"specified shape invariant is {s}.")
    outer = get_default_graph()

    cond_graph = FuncGraph("cond", outer)
    with cond_graph.as_default():
        args = [cond_graph.add_arg(t.dtype, s, name="Merge") for t, s in zip(flat_vars, invariants)]
        c = convert_to_tensor(cond(*with_arrays(nest.pack_sequence_as(loop_vars, args))))
        _check_bool_scalar(c, "LoopCond", "input", scope)
        cond_graph.outputs = [cond_graph.capture(c)]
    cond_args = list(args)

    body_graph = FuncGraph("body", outer)
    with body_graph.as_default():
        args = [body_graph.add_arg(t.dtype, s, name="Identity") for t, s in zip(flat_vars, invariants)]
        packed = nest.pack_sequence_as(loop_vars, args)
        result = body(*with_arrays(packed))
        if not nest.is_nested(result):
            result = [result]
        result = flows(result)
        nest.assert_same_structure(list(packed), list(result))
        outputs = []
        for t, s, value in zip(flat_vars, invariants, nest.flatten(result)):
            out = _function_output(body_graph, value, dtype=t.dtype)
            if out.dtype is not t.dtype:
                raise TypeError(f"Loop var {t.name} enters the loop with type {t.dtype.name} but has type "
                                f"{out.dtype.name} after 1 iteration. {t.name} type should remain constant.")
            if not if_while_ops.shape_less_equal(out.shape, s):
                raise ValueError(f"Input tensor '{t.name}' enters the loop with shape {t.shape}, but has shape "
                                 f"{out.shape} after one iteration. To allow the shape to vary across iterations, "
                                 f"use the `shape_invariants` argument of tf.while_loop to specify a less-specific "
                                 f"shape.")
            outputs.append(out)
        body_graph.outputs = outputs
    body_args = list(args)

    captured = _align_captures([cond_graph, body_graph], [cond_args, body_args])
    op = if_while_ops.build_while(flat_vars, captured, cond_graph, body_graph, back_prop, parallel_iterations)
    exits = [identity(op.outputs[i], name="Exit") for i in range(len(flat_vars))]
    return with_arrays(nest.pack_sequence_as(result, exits)), len(exits)


# Gradient rules and the loop-based functional ops register on import.
from dflow.ops.control_flow import control_flow_grad, functional_ops  # noqa: E402, F401
