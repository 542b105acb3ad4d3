"""``tf.wrap_function``: a TF1-style Python function traced once into a callable function graph.

``wrap_function(fn, signature)`` calls ``fn`` once, with placeholders for
the ``TensorSpec`` entries of ``signature`` (other entries are passed as
they are), in a ``FuncGraph`` of its own (``wrapped_function``, or
``wrapped_function_<name>``) with empty collections, as TF 2.15 does.
Variables that ``fn`` creates (``tf.Variable``, ``tf.get_variable``) are
lifted into the enclosing graph (TF's ``init_scope``) and belong to the
returned ``WrappedFunction`` (``variables``). Unlike ``tf.function``
(``dflow/functions/function.py``, which re-traces on every call), the Python
function never runs again: each call of the ``WrappedFunction`` with graph
tensors adds one ``PartitionedCall`` op (``StatefulPartitionedCall`` when the
function holds stateful ops, a variable included) to the calling graph, whose
kernel runs the traced graph, compiled once per session like a ``tf.cond``
branch. Nothing is sequenced beyond the data and control dependencies of the
outputs (TF's "closer to ``session.run``" semantics).

``prune(feeds, fetches)`` copies the part of the graph between ``feeds``
and ``fetches`` into a new ``WrappedFunction`` (graph ``pruned`` by
default), called with one tensor per feed, positionally or by the feed's op
name.

Where dflow differs from TF 2.15: the call op's outputs keep the traced
graph's static shapes (TF re-infers them from the call's input shapes);
``name`` is the graph's name (TF's is ``b'__inference_<graph>_<n>'``); a
nested ``signature`` is called with its tensors flattened, where TF 2.15's
own call fails (``AttributeError``/``IndexError``).

>>> import dflow as tf
>>> def f(x):
...     v = tf.get_variable("wrap_doc_v", shape=[], initializer=tf.constant_initializer(2.0))
...     return x * v + 1.0
>>> wf = tf.wrap_function(f, [tf.TensorSpec([None], tf.float32)])
>>> y = wf(tf.constant([1.0, 2.0]))
>>> with tf.Session() as sess:
...     sess.run(tf.global_variables_initializer())
...     sess.run(y)
array([3., 5.], dtype=float32)
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import nest
from dflow.framework.func_graph import FuncGraph, add_outputs
from dflow.framework.graph import Operation, Tensor, get_default_graph
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.type_spec import TensorSpec
from dflow.functions.function import GraphFunction
from dflow.ops.control_flow import if_while_ops

_NOT_A_TENSOR = ("To be compatible with tf.function, Python functions must return zero or more Tensors or "
                 "ExtensionTypes or None values; in compilation of {fn}, found return value of type {kind}, which "
                 "is not a Tensor or ExtensionType.")
# Op types of a traced graph that make a call of it stateful without being side effects of their own.
_STATELESS_STATEFUL = frozenset({"Placeholder"})


# -- the call ops ---------------------------------------------------------------------------------
# Inputs: the call's arguments, then the outer tensors the function captured (in the order of
# ``f.inputs``). Attrs: ``f`` (the FuncGraph) and ``f_outputs``, the names of the tensors of ``f``
# this op returns: the function's outputs, then any intermediates its gradient added (per op, as a
# ``tf.cond``'s gradient adds branch intermediates; other calls of the same function are unchanged).


def _call_outputs(op) -> list:
    f = op._attrs["f"]
    return [f.get_tensor_by_name(n) for n in op._attrs["f_outputs"]]


def _call_infer(op):
    return [(t.dtype, t.shape) for t in _call_outputs(op)]


def _make_call_kernel(op, resources):
    fn = if_while_ops.compile_function(op._attrs["f"], resources, if_while_ops.where(op), _call_outputs(op))
    n = len(op._outputs)
    if n == 0:
        return lambda ctx, *args: fn(ctx, args) and None
    if n == 1:
        return lambda ctx, *args: fn(ctx, args)[0]
    return lambda ctx, *args: fn(ctx, args)


register("PartitionedCall", infer=_call_infer, make_kernel=_make_call_kernel, gpu=False, uses_context=True)
register("StatefulPartitionedCall", infer=_call_infer, make_kernel=_make_call_kernel, stateful=True, gpu=False,
         uses_context=True)


def _is_stateful(graph: FuncGraph) -> bool:
    """Whether a call of ``graph`` is stateful: it holds stateful ops or reads a variable (TF's
    ``ReadVariableOp`` is stateful; dflow captures a read ``v/read`` of the enclosing graph)."""
    if any(getattr(op._opdef, "stateful", False) and op._type not in _STATELESS_STATEFUL
           for op in graph.get_operations()):
        return True
    return any(outer.op._type == "VariableV2" or (outer.op._type == "Identity" and outer.op._inputs
                                                  and outer.op._inputs[0].op._type == "VariableV2")
               for outer, _ in graph.captures)


def call_function_graph(graph: FuncGraph, args: list, outputs: list | None = None) -> Operation:
    """Adds one call op of ``graph`` to the default graph: ``args`` feed ``graph``'s argument
    placeholders, its captured tensors are fed from the enclosing graph. Returns the op."""
    outputs = graph.outputs if outputs is None else outputs
    op_type = "StatefulPartitionedCall" if _is_stateful(graph) else "PartitionedCall"
    captured = [outer for outer, _ in graph.captures]
    op = apply_op(op_type, [*args, *captured], {"f": graph, "f_outputs": tuple(t.name for t in outputs)},
                  name=op_type)
    for c in graph.outer_control_inputs:
        op._add_control_input(c)
    return op


@gradient("PartitionedCall")
@gradient("StatefulPartitionedCall")
def _call_grad(op, *grads):
    """The gradient of a call: a call of the gradient graph of ``f``, traced with ``tf.gradients``
    (``control_flow_grad``'s rule for a ``tf.cond`` branch). Forward intermediates it reads become
    extra outputs of this call op, so nothing runs twice."""
    from dflow.ops.control_flow.control_flow_grad import _gradient_graph
    from dflow.ops.gradients.gradients_impl import _DIFFERENTIABLE

    f = op._attrs["f"]
    outs = _call_outputs(op)
    result = [None] * len(op._inputs)
    diff_out = [i for i, g in enumerate(grads) if g is not None and op._outputs[i].dtype in _DIFFERENTIABLE]
    diff_in = [j for j, t in enumerate(op._inputs) if t.dtype in _DIFFERENTIABLE]
    if not diff_out or not diff_in:
        return result
    g, dys = _gradient_graph(f"{f.name}_grad", f, [outs[i] for i in diff_out], [f.inputs[j] for j in diff_in],
                             [(op._outputs[i].dtype, outs[i].shape) for i in diff_out])
    position = {t: j for j, t in enumerate(f.inputs)}
    sources = []
    for inner, _ in g.captures:
        j = position.get(inner)
        sources.append(op._inputs[j] if j is not None else _call_intermediate(op, inner))
    g.inputs = dys + [ph for _, ph in g.captures]
    g.n_args = len(g.inputs)
    g.seal()
    grad_op = apply_op("PartitionedCall", [grads[i] for i in diff_out] + sources,
                       {"f": g, "f_outputs": tuple(t.name for t in g.outputs)}, name="PartitionedCall")
    for k, j in enumerate(diff_in):
        result[j] = grad_op._outputs[k]
    return result


def _call_intermediate(op, tensor: Tensor) -> Tensor:
    """The output of call ``op`` that carries ``tensor`` of its function (added if new)."""
    names = op._attrs["f_outputs"]
    if tensor.name in names:
        return op._outputs[names.index(tensor.name)]
    op._attrs["f_outputs"] = names + (tensor.name,)
    (out,) = add_outputs(op, [(tensor.dtype, tensor.shape)])
    return out


# -- tracing ------------------------------------------------------------------------------------


def _spec_paths(structure, prefix: str) -> list:
    """``(path, leaf)`` for each leaf of a signature, TF's naming of unnamed specs (``tensor_0_a``)."""
    if isinstance(structure, dict):
        return [p for k in sorted(structure) for p in _spec_paths(structure[k], f"{prefix}_{k}")]
    if isinstance(structure, (list, tuple)):
        return [p for i, v in enumerate(structure) for p in _spec_paths(v, f"{prefix}_{i}")]
    return [(prefix, structure)]


def _placeholders(graph: FuncGraph, signature) -> tuple:
    """The arguments of the trace (placeholders for TensorSpecs) and TF's structured input signature."""
    flat_args, flat_specs = [], []
    for path, leaf in _spec_paths(list(signature), "tensor"):
        if isinstance(leaf, TensorSpec):
            flat_args.append(graph.add_arg(leaf.dtype, leaf.shape, name=leaf.name or "Placeholder"))
            flat_specs.append(TensorSpec(leaf.shape, leaf.dtype, leaf.name or path))
        else:
            flat_args.append(leaf)
            flat_specs.append(leaf)
    args = nest.pack_sequence_as(list(signature), flat_args) if flat_args else list(signature)
    specs = nest.pack_sequence_as(list(signature), flat_specs) if flat_specs else list(signature)
    return tuple(args), (tuple(specs), {})


def _lifting_creator(graph: FuncGraph, created: list):
    """A variable creator that builds variables in the outermost graph (TF's ``init_scope``) and
    records them, also in ``graph``'s own collections (TF's ``VariableHolder``)."""
    from dflow.framework.tensor_util import init_scope
    from dflow.ops.state.variables import GraphKeys

    def creator(next_creator, **kwargs):
        collections = kwargs.get("collections")
        with init_scope():
            v = next_creator(**kwargs)
        created.append(v)
        collections = [GraphKeys.GLOBAL_VARIABLES] if collections is None else list(collections)
        if v.trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        for key in collections:
            graph._collections.setdefault(key, []).append(v)
        return v

    return creator


def _function_output(graph: FuncGraph, value, fn):
    from dflow.framework.constant_op import convert_to_tensor

    if value is None:
        return None
    if isinstance(value, Operation):
        raise TypeError(_NOT_A_TENSOR.format(fn=fn, kind="Operation"))
    return graph.capture(convert_to_tensor(value))


@tf_export("wrap_function")
def wrap_function(fn, signature, name=None) -> WrappedFunction:
    """Traces the TF1-style function ``fn`` once, for ``signature``, into a callable ``WrappedFunction``.

    ``signature`` is a (possibly nested) list of ``tf.TensorSpec`` for the
    tensor arguments; other entries are passed to ``fn`` as they are.
    Variables ``fn`` creates are made once, in the calling graph.
    """
    from dflow.ops.state.variable_creators import _variable_creator_scope

    if not isinstance(signature, (list, tuple)):
        raise TypeError(f"signature must be a list or tuple of TensorSpecs and Python values, got {signature!r}.")
    outer = get_default_graph()
    graph = FuncGraph("wrapped_function" if name is None else f"wrapped_function_{name}", outer, name_scope="")
    graph._collections = {}  # TF traces with empty collections (variables still join the outer graph's)
    created: list = []
    with graph.as_default(), _variable_creator_scope(_lifting_creator(graph, created), graph=graph):
        args, input_signature = _placeholders(graph, signature)
        structured = nest.map_structure(lambda v: _function_output(graph, v, fn), fn(*args))
    graph.outputs = [t for t in nest.flatten(structured) if t is not None]
    graph.seal()
    flat_specs = [s for s in nest.flatten(input_signature[0]) if isinstance(s, TensorSpec)]
    return WrappedFunction(graph, structured, input_signature, tuple(created), flat_specs)


# -- the wrapped function -----------------------------------------------------------------------------


class WrappedFunction(GraphFunction):
    """A traced TF1 function (``tf.wrap_function``): each call adds a call op of its graph."""

    def __init__(self, graph: FuncGraph, structured_outputs, structured_input_signature, variables: tuple,
                 arg_specs: list, arg_keywords: list | None = None):
        super().__init__(graph, structured_outputs, structured_input_signature)
        self._variables = variables
        self._arg_specs = arg_specs  # one TensorSpec per argument placeholder
        self._arg_keywords = arg_keywords  # pruned functions: the feeds' op names

    @property
    def captured_inputs(self) -> list:
        """The tensors of the enclosing graph that each call feeds to the captures."""
        return [outer for outer, _ in self.graph.captures]

    @property
    def variables(self) -> tuple:
        """The variables the function created."""
        return self._variables

    @property
    def trainable_variables(self) -> tuple:
        return tuple(v for v in self._variables if v.trainable)

    # -- calls ----------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        """Adds a call op of the graph to the default graph; returns its outputs in the function's structure."""
        if self._arg_keywords is None:
            if kwargs:
                raise NotImplementedError(f"Keyword arguments are not supported when calling a wrap_function-"
                                          f"decorated function. Got {kwargs}.")
            tensors = self._convert_args(args)
        else:
            tensors = self._bind_feeds(args, kwargs)
        op = call_function_graph(self.graph, tensors)
        return _pack_outputs(self.structured_outputs, op._outputs)

    def _check_count(self, n: int) -> None:
        if n != len(self._arg_specs):
            raise ValueError(f"Signature specifies {len(self._arg_specs)} arguments, got: {n}.")

    def _convert_args(self, args) -> list:
        """One tensor per TensorSpec of the signature, converted to its dtype and checked against its shape."""
        from dflow.framework.constant_op import convert_to_tensor

        self._check_count(len(args))
        out = []
        for a, spec in zip(args, self._arg_specs):
            t = convert_to_tensor(a, dtype=spec.dtype)
            if not spec.shape.is_compatible_with(t.shape):
                raise ValueError(f"Tensor {t} is not compatible with the shape this function was traced with. "
                                 f"Expected shape {spec.shape}, but got shape {t.shape}.")
            out.append(t)
        return out

    def _bind_feeds(self, args, kwargs) -> list:
        """A pruned function's arguments: tensors, positionally or by the feeds' op names (as TF)."""
        summary = f"{self.graph.name}({', '.join(self._arg_keywords)})"
        if len(args) > len(self._arg_keywords):
            raise TypeError(f"{summary} takes {len(self._arg_keywords)} positional arguments but {len(args)} were "
                            f"given.")
        values = list(args)
        for k in self._arg_keywords[len(args):]:
            if k in kwargs:
                values.append(kwargs.pop(k))
        if kwargs:
            raise TypeError(f"{summary} got unexpected keyword arguments: {', '.join(sorted(kwargs))}.")
        self._check_count(len(values))
        for i, v in enumerate(values):
            if not isinstance(v, Tensor):
                raise TypeError(f"{summary}: expected argument #{i}(zero-based) to be a Tensor; got "
                                f"{type(v).__name__} ({v}).")
            spec = self._arg_specs[i]
            if v.dtype is not spec.dtype or not spec.shape.is_compatible_with(v.shape):
                raise ValueError(f"{summary}: expected argument #{i}(zero-based) to be a Tensor compatible with "
                                 f"{spec!r}; got {v}.")
        return values

    # -- prune ---------------------------------------------------------------------------------------
    def prune(self, feeds, fetches, name=None, input_signature=None) -> WrappedFunction:
        """A new ``WrappedFunction`` of the part of this graph from ``feeds`` (tensors) to ``fetches``
        (a nested structure of tensors, operations or their names; operations come back as None)."""
        graph = self.graph
        flat_feeds = [graph.as_graph_element(t) for t in nest.flatten(feeds)]
        for f in flat_feeds:
            if not isinstance(f, Tensor):
                raise ValueError(f"All members of argument `feeds` must be tensors. Got {f} with type {type(f)}.")
        captured = set(graph.inputs[graph.n_args:])
        flat_feeds = [f for f in flat_feeds if f not in captured]
        tensor_fetches, op_fetches = [], []

        def element(fetch):
            if isinstance(fetch, Operation):
                op_fetches.append(fetch)
                return fetch
            if isinstance(fetch, Tensor):
                tensor_fetches.append(fetch)
                return fetch
            return element(graph.as_graph_element(fetch))

        fetches = nest.map_structure(element, fetches)
        for f in flat_feeds + tensor_fetches + op_fetches:
            if f.graph is not graph:
                raise ValueError(f"Can only prune function whose feeds and fetches from graph {graph}. Input {f} is "
                                 f"from a different graph {f.graph}.")
        pruned, mapped = _copy_subgraph(graph, name or "pruned", flat_feeds, tensor_fetches, op_fetches)
        structured = nest.map_structure(lambda x: None if isinstance(x, Operation) else mapped[x], fetches)
        if input_signature:
            sig_args, sig_kwargs = input_signature
            input_signature = (() if sig_args is None else sig_args, sig_kwargs)
        specs = [TensorSpec(f.shape, f.dtype) for f in flat_feeds]
        return WrappedFunction(pruned, structured, input_signature or None, self._variables, specs,
                               arg_keywords=[f.op.name for f in flat_feeds])

    def __repr__(self):
        return f"<dflow.WrappedFunction {self.graph.name!r}>"


def _pack_outputs(structured, outputs):
    """``structured`` (tensors and Nones) with its tensors replaced, in order, by ``outputs``."""
    it = iter(outputs)
    flat = [None if t is None else next(it) for t in nest.flatten(structured)]
    return nest.pack_sequence_as(structured, flat) if nest.is_nested(structured) else flat[0]


def _copy_subgraph(graph: FuncGraph, name: str, feeds: list, tensor_fetches: list, op_fetches: list):
    """Copies the ops between ``feeds`` and the fetches into a new FuncGraph beside ``graph``;
    returns it and the map of ``graph``'s tensors and ops to their copies."""
    from dflow.sessions.plan import prune_to_fetches

    pruned = FuncGraph(name, graph.outer_graph, name_scope="")
    pruned._collections = graph._collections
    mapped: dict = {}
    for f in feeds:
        mapped[f] = pruned.add_arg(f.dtype, f.shape, name=f.op.name)
    captured = {inner: outer for outer, inner in graph.captures}
    for op in prune_to_fetches(tensor_fetches, op_fetches, set(feeds)):
        if all(t in mapped for t in op._outputs) and op._outputs:
            continue
        if op._outputs and op._outputs[0] in captured:
            mapped[op._outputs[0]] = pruned.capture(captured[op._outputs[0]])
            continue
        with pruned.as_default():
            new = apply_op(op._type, [mapped[t] for t in op._inputs], dict(op._attrs), name=op.name, graph=pruned)
            if op._type == "Placeholder":
                new._attrs["name"] = new.name
            for c in op._control_inputs:
                if c in mapped:
                    new._add_control_input(mapped[c])
        mapped[op] = new
        for old_t, new_t in zip(op._outputs, new._outputs):
            mapped[old_t] = new_t
    pruned.outputs = [mapped[t] for t in tensor_fetches]
    pruned.control_outputs = [mapped[o] for o in op_fetches]
    pruned.seal()
    return pruned, mapped
