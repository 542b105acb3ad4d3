"""``tf.function`` in graph mode, as TF 2.15's ``tf.compat.v1`` has it.

Calling a ``tf.function`` with graph tensors builds its ops into the calling
graph. TF traces the Python function once per input signature into a function
graph and adds a ``(Stateful)PartitionedCall`` op that runs it; dflow *traces
on every call* instead: the Python function runs again and its ops are
inlined into the calling graph under a name scope named after the function
(``f/mul``, ``f_1/mul``). Values and gradients are the same. What differs:

* Python side effects of the function body (appending to a list, printing)
  happen on every call, where TF runs them once per trace;
* ``autograph`` has no effect: Python control flow runs at trace time, as in
  TF with ``autograph=False``. ``if tensor:`` or ``while tensor:`` in the body
  is the TypeError that ``bool(tensor)`` is in TF1; write ``tf.cond`` and
  ``tf.while_loop``;
* ``jit_compile``, ``reduce_retracing`` and the ``experimental_*`` options are
  accepted and change nothing;
* TF's automatic control dependencies are followed in part: the stateful ops
  the body creates (assignments, random ops, reads through ``read_value``) run
  in the order written, and the function's outputs wait for all of them. A
  variable read through its cached ``v/read`` tensor is not ordered after an
  assignment in the body: use ``v.read_value()`` there.

Variables follow TF's rules: a function may create variables on its first
call only, and only as singletons: TF then traces the function again (the
trace that must create none) and raises ``ValueError`` if that trace would
create variables again. dflow runs that second trace in a throwaway function
graph to give the same error; a later call that creates variables raises
``ValueError`` as TF does.

>>> import dflow as tf
>>> @tf.function
... def f(x, y=2.0):
...     return x * y + 1.0
>>> tf.Session().run(f(tf.constant([1.0, 2.0])))
array([3., 5.], dtype=float32)
"""

from __future__ import annotations

import functools
import inspect
import re
import weakref

import numpy as np

from dflow._api import tf_export
from dflow.framework import nest
from dflow.framework.graph import Operation, Tensor, control_dependencies, get_default_graph, op_observers
from dflow.framework.type_spec import TensorSpec

_SINGLETON = ("tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable "
              "is only created once or created outside tf.function. See "
              "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")
_NON_FIRST = "Creating variables on a non-first call to a function decorated with tf.function."
_BOOL_MESSAGE = "as a Python `bool` is not allowed"
# Stateful op types that are no side effect of a call (a variable's own op, a feed point).
_NOT_SIDE_EFFECTS = frozenset({"VariableV2", "Placeholder", "PlaceholderWithDefault"})


class _SingletonError(ValueError):
    """The variable-creation error of the check trace (told apart from other failures of that trace)."""


def _scope_name(name: str) -> str:
    """A valid name scope from a Python function's name (``<lambda>`` becomes ``lambda``)."""
    return re.sub(r"[^A-Za-z0-9_.\-]", "", name).lstrip("_-") or "function"


# -- input signatures ------------------------------------------------------------------


def _check_input_signature(input_signature) -> tuple | None:
    if input_signature is None:
        return None
    if not isinstance(input_signature, (tuple, list)):
        raise TypeError(f"input_signature must be either a tuple or a list, got {type(input_signature)}.")
    bad = [s for s in nest.flatten(input_signature) if not isinstance(s, TensorSpec)]
    if bad:
        raise TypeError(f"input_signature must be a possibly nested sequence of TensorSpec objects, got invalid "
                        f"args {bad} with types {[type(s) for s in bad]}.")
    return tuple(input_signature)


def _flatten_up_to(spec_struct, value) -> list:
    """``value``'s parts at the places of ``spec_struct``'s TensorSpecs (a list given for one
    TensorSpec is one tensor's value, as in TF)."""
    if isinstance(spec_struct, TensorSpec):
        return [value]
    nest.assert_same_structure(spec_struct, value)
    return nest.flatten(value)


def _signature_text(params: list, specs: tuple) -> str:
    return ", ".join(f"{p}: {s!r}" for p, s in zip(params, specs))


def _conform(value, spec: TensorSpec):
    """``value`` as a tensor of ``spec``, or the reason it cannot be one."""
    from dflow.framework.constant_op import convert_to_tensor

    if isinstance(value, Tensor) or hasattr(value, "_as_graph_element"):
        t = convert_to_tensor(value)
    else:
        try:
            t = convert_to_tensor(value, dtype=spec.dtype)
        except (TypeError, ValueError):
            return None, f"Expected {spec.dtype.name}, but got {value} of type {type(value).__name__!r}."
    if not spec.is_compatible_with(TensorSpec(t.shape, t.dtype)):
        return None, f"Can not cast {TensorSpec(t.shape, t.dtype)!r} to {TensorSpec(spec.shape, spec.dtype)!r}"
    return t, None


def _binding_error(reason: str, args, kwargs, params: list, specs: tuple) -> TypeError:
    return TypeError(f"Binding inputs to tf.function failed due to `{reason}`. Received args: {tuple(args)} and "
                     f"kwargs: {kwargs} for signature: ({_signature_text(params, specs)}).")


# -- tracing ---------------------------------------------------------------------------


class _SideEffects:
    """Op-creation observer of a trace: chains the stateful ops the body creates in ``graph``
    (TF's automatic control dependencies), skipping the ops of variable constructors."""

    def __init__(self, graph):
        self.graph = graph
        self.last: Operation | None = None
        self.creating = 0  # > 0 while a variable constructor runs

    def observe(self, op: Operation) -> None:
        if op._graph is not self.graph or self.creating or op._type in _NOT_SIDE_EFFECTS:
            return
        if not getattr(op._opdef, "stateful", False):
            return
        if self.last is not None and self.last not in op._control_inputs:
            op._add_control_input(self.last)
        self.last = op


def _lifted_scope(current: str, function_scope: str, outer_scope: str) -> str:
    """The name scope (re-entered, ``"a/b/"``) ``current`` would be without the function's own scope."""
    if current == function_scope or current.startswith(function_scope + "/"):
        current = "/".join(part for part in (outer_scope, current[len(function_scope) + 1:]) if part)
    return f"{current}/" if current else ""


def _output(value):
    """A function's result as TF returns it: tensors stay, Python values become constants."""
    from dflow.framework.constant_op import convert_to_tensor

    if value is None or isinstance(value, (Tensor, Operation)) or nest.is_nested(value):
        return value
    if type(value).__module__.startswith("dflow.framework.composite"):  # IndexedSlices, SparseTensor
        return value
    return convert_to_tensor(value)


def _call_python(python_function, args, kwargs):
    """Runs the body; a tensor used as a Python bool gets the note that dflow has no AutoGraph."""
    try:
        return python_function(*args, **kwargs)
    except TypeError as e:
        if _BOOL_MESSAGE in str(e):
            raise TypeError(f"{e} dflow's tf.function does not convert Python control flow on tensors (no "
                            f"AutoGraph: it runs as autograph=False); use tf.cond or tf.while_loop.") from e
        raise


@tf_export("function")
def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None):
    """Makes ``func`` a ``tf.function``: each call builds its ops into the calling graph.

    Usable as ``@tf.function``, ``@tf.function(input_signature=...)`` or
    ``tf.function(f)``. With ``input_signature`` (a list of ``TensorSpec``),
    arguments are converted to and checked against it (TypeError otherwise).
    ``autograph``, ``jit_compile``, ``reduce_retracing`` and the
    ``experimental_*`` options change nothing in dflow (see the module notes).
    """
    input_signature = _check_input_signature(input_signature)

    def decorate(fn):
        return Function(fn, input_signature=input_signature, autograph=autograph, jit_compile=jit_compile,
                        reduce_retracing=bool(reduce_retracing or experimental_relax_shapes))

    return decorate if func is None else decorate(func)


class Function:
    """A ``tf.function``: a Python function whose calls are traced into the calling graph."""

    def __init__(self, python_function, name: str | None = None, input_signature=None, autograph: bool = True,
                 jit_compile=None, reduce_retracing: bool = False):
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._input_signature = _check_input_signature(input_signature)
        self._autograph = autograph
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self._called = False
        self._created_variables = False
        self._bound: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        functools.update_wrapper(self, python_function)
        if self._input_signature is not None:
            self._check_signature_covers(python_function)

    # -- attributes TF's Function has ------------------------------------------------------
    @property
    def python_function(self):
        """The wrapped Python function."""
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    @property
    def function_spec(self):
        return inspect.signature(self._python_function)

    def _params(self) -> list:
        return list(inspect.signature(self._python_function).parameters)

    def _check_signature_covers(self, fn) -> None:
        params = list(inspect.signature(fn).parameters.values())
        if params and params[0].name in ("self", "cls") and not inspect.ismethod(fn):
            params = params[1:]
        for p in params[len(self._input_signature):]:
            if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                raise TypeError(f"input_signature missing type constraint for {p.name}")

    def __get__(self, instance, owner):
        """``@tf.function`` on a method: one Function per instance, bound to it."""
        if instance is None:
            return self
        bound = self._bound.get(instance)
        if bound is None:
            bound = Function(self._python_function.__get__(instance, owner), self._name, self._input_signature,
                             self._autograph, self._jit_compile, self._reduce_retracing)
            self._bound[instance] = bound
        return bound

    # -- calls -----------------------------------------------------------------------------
    def _bind_signature(self, args, kwargs) -> tuple:
        """The arguments converted to the input signature's tensors (TypeError if they do not fit)."""
        specs = self._input_signature
        params = self._params()[:len(specs)]
        try:
            bound = inspect.signature(self._python_function).bind(*args, **kwargs)
        except TypeError as e:
            raise _binding_error(str(e), args, kwargs, params, specs) from None
        bound.apply_defaults()
        values = dict(bound.arguments)
        for p, spec_struct in zip(params, specs):
            if p not in values:
                continue
            try:
                flat_values = _flatten_up_to(spec_struct, values[p])
            except (TypeError, ValueError) as e:
                raise _binding_error(str(e), args, kwargs, params, specs) from None
            flat = []
            for v, spec in zip(flat_values, nest.flatten(spec_struct)):
                t, reason = _conform(v, spec)
                if reason is not None:
                    raise _binding_error(reason, args, kwargs, params, specs)
                flat.append(t)
            values[p] = nest.pack_sequence_as(spec_struct, flat)
        bound.arguments.update(values)
        return bound.args, bound.kwargs

    def __call__(self, *args, **kwargs):
        """Builds the function's ops for these arguments into the calling graph; returns its outputs."""
        if self._input_signature is not None:
            args, kwargs = self._bind_signature(args, kwargs)
        else:
            args, kwargs = nest.map_structure(_array_to_tensor, (args, kwargs))
        first = not self._called
        self._called = True
        created: list = []
        outputs = self._trace(args, kwargs, created, forbid=self._created_variables)
        if created:
            if not first:
                raise ValueError(_NON_FIRST)
            self._created_variables = True
            self._check_singleton(args, kwargs)
        return outputs

    def _trace(self, args, kwargs, created: list, forbid: bool):
        """Runs the body in the calling graph, under its name scope, with TF's variable and
        side-effect rules; returns the outputs."""
        from dflow.ops.control_flow.control_flow_ops import identity
        from dflow.ops.state.variable_creators import _variable_creator_scope

        graph = get_default_graph()
        effects = _SideEffects(graph)
        outer_scope = graph.get_name_scope()
        function_scope: list = []

        def creator(next_creator, **kw):
            if forbid:
                raise ValueError(_SINGLETON)
            effects.creating += 1
            try:  # TF lifts variables out of the function: their names do not have its scope
                with graph.name_scope(_lifted_scope(graph.get_name_scope(), function_scope[0], outer_scope)):
                    v = next_creator(**kw)
            finally:
                effects.creating -= 1
            created.append(v)
            return v

        observers = op_observers()
        observers.append(effects.observe)
        try:
            with _variable_creator_scope(creator, graph=graph), graph.name_scope(_scope_name(self._name)) as scope:
                function_scope.append(scope.rstrip("/"))
                outputs = nest.map_structure(_output, _call_python(self._python_function, args, kwargs))
                if effects.last is not None:  # the outputs wait for every side effect of the call
                    with control_dependencies([effects.last]):
                        outputs = nest.map_structure(
                            lambda t: identity(t) if isinstance(t, Tensor) else t, outputs)
        finally:
            observers.remove(effects.observe)
        return outputs

    def _check_singleton(self, args, kwargs) -> None:
        """TF's second trace of a first call that created variables: it must create none. Run in a
        throwaway function graph; collections and variable-scope counters are restored after it."""
        from dflow.framework.func_graph import FuncGraph
        from dflow.ops.state.variable_scope import _store

        graph = get_default_graph()
        saved_collections = {k: list(v) for k, v in graph._collections.items()}
        store = _store()
        saved_counts = dict(store.scope_counts)
        scratch = FuncGraph(f"{_scope_name(self._name)}_check", graph)
        try:
            with scratch.as_default():
                self._trace(args, kwargs, [], forbid=True)
        except ValueError as e:
            if str(e) == _SINGLETON:
                raise ValueError(_SINGLETON) from None
            # Any other failure belongs to the throwaway trace only (the real one succeeded).
        except Exception:  # noqa: BLE001 - as above: only the singleton rule is checked here
            pass
        finally:
            graph._collections.clear()
            graph._collections.update(saved_collections)
            store.scope_counts.clear()
            store.scope_counts.update(saved_counts)

    # -- concrete functions -----------------------------------------------------------------
    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The function traced for these arguments (TensorSpecs, tensors or Python values) into a
        function graph of its own: ``inputs``, ``outputs``, ``structured_outputs``, ``graph``."""
        from dflow.framework.func_graph import FuncGraph

        if self._input_signature is not None and not args and not kwargs:
            args = self._input_signature
        sig = inspect.signature(self._python_function)
        bound = sig.bind(*args, **kwargs)
        graph = get_default_graph()
        fg = FuncGraph(_scope_name(self._name), graph, name_scope="")
        specs: dict = {}
        with fg.as_default():
            for p, value in bound.arguments.items():
                specs[p] = nest.map_structure(lambda v, p=p: _as_spec(v, p), value)
                bound.arguments[p] = nest.map_structure(lambda s: fg.add_arg(s.dtype, s.shape, name=s.name)
                                                        if isinstance(s, TensorSpec) else s, specs[p])
            saved = {k: list(v) for k, v in graph._collections.items()}
            try:
                outputs = self._trace(bound.args, bound.kwargs, [], forbid=True)
            except ValueError as e:
                if str(e) == _SINGLETON:
                    raise NotImplementedError(
                        f"get_concrete_function of {self._name}: dflow traces it into a function graph, which holds "
                        f"no variables; call the function once first (its first call creates them).") from None
                raise
            finally:
                graph._collections.clear()
                graph._collections.update(saved)
        fg.outputs = [t for t in nest.flatten(outputs) if isinstance(t, Tensor)]
        positional = tuple(specs[p] for p in list(bound.arguments)[:len(bound.args)])
        keyword = {p: specs[p] for p in list(bound.arguments)[len(bound.args):]}
        return ConcreteFunction(self, fg, outputs, (positional, keyword))

    def __repr__(self):
        return f"<dflow.function {self._name!r}>"


def _array_to_tensor(value):
    """numpy arrays passed to a tf.function are tensors inside it, as in TF."""
    from dflow.framework.constant_op import convert_to_tensor

    return convert_to_tensor(value) if isinstance(value, np.ndarray) else value


def _as_spec(value, param: str):
    if isinstance(value, TensorSpec):
        return TensorSpec(value.shape, value.dtype, value.name or param)
    if isinstance(value, (Tensor, np.ndarray)) or hasattr(value, "_as_graph_element"):
        from dflow.framework.constant_op import convert_to_tensor

        t = convert_to_tensor(value)
        return TensorSpec(t.shape, t.dtype, param)
    return value


class GraphFunction:
    """What a traced function graph shows, as TF's ``ConcreteFunction``: the graph, its inputs,
    outputs and name, and the structures of its outputs and arguments."""

    def __init__(self, graph, structured_outputs, structured_input_signature):
        self.graph = graph
        self.structured_outputs = structured_outputs
        self.structured_input_signature = structured_input_signature

    @property
    def inputs(self) -> list:
        """The placeholders of the tensor arguments, then those of captured tensors."""
        return list(self.graph.inputs)

    @property
    def outputs(self) -> list:
        """The output tensors, flattened (None outputs left out)."""
        return list(self.graph.outputs)

    @property
    def name(self) -> str:
        return self.graph.name


class ConcreteFunction(GraphFunction):
    """One trace of a ``tf.function`` for fixed argument specs: its graph, inputs and outputs.

    Calling it checks the arguments against its specs and builds the
    function's ops into the calling graph, as calling the ``tf.function`` does.
    """

    def __init__(self, function: Function, graph, structured_outputs, structured_input_signature):
        super().__init__(graph, structured_outputs, structured_input_signature)
        self._function = function

    def __call__(self, *args, **kwargs):
        """Builds the function's ops into the calling graph for arguments that fit this trace."""
        positional, keyword = self.structured_input_signature
        sig = inspect.signature(self._function.python_function)
        params = list(sig.parameters)
        flat_specs = [s for s in nest.flatten((positional, keyword)) if isinstance(s, TensorSpec)]
        spec_params = params[:len(positional)] + list(keyword)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise _binding_error(str(e), args, kwargs, spec_params, tuple(flat_specs)) from None
        templates = dict(zip(params, positional))
        templates.update(keyword)
        for p, value in bound.arguments.items():
            template = templates.get(p)
            if template is None:
                continue
            converted = []
            for v, s in zip(nest.flatten(value), nest.flatten(template)):
                if isinstance(s, TensorSpec):
                    v, reason = _conform(v, s)
                    if reason is not None:
                        raise _binding_error(reason, args, kwargs, spec_params, tuple(flat_specs))
                converted.append(v)
            bound.arguments[p] = nest.pack_sequence_as(template, converted)
        return self._function._trace(bound.args, bound.kwargs, [], forbid=self._function._created_variables)

    def __repr__(self):
        return f"<ConcreteFunction {self.name}>"
