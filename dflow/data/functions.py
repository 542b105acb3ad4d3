"""User functions of ``map``, ``filter``, ``flat_map`` and ``interleave``,
traced once into a ``FuncGraph``.

``DatasetFunction(fn, element_spec, what)`` calls ``fn`` once, at graph
construction, on placeholders standing for one element (as separate
arguments when the element is a tuple, as TF1 does), so ``fn`` builds graph
ops exactly as it would outside ``tf.data``. Tensors of enclosing graphs it
uses are captured (see ``FuncGraph``): those become inputs of the iterator's
initializer, read when the iterator is initialized, so a dataset may depend
on placeholders fed to the initializer.

At run time a session compiles the graph once (``compile_function``) and
the pipeline calls it with one flat element followed by the captured
values: ``fn(element + captured)``.
"""

from __future__ import annotations

from dflow.data import structure
from dflow.framework.func_graph import FuncGraph
from dflow.framework.graph import Operation, Tensor, get_default_graph

# Op types whose output, captured into a function, is evaluated inside it rather than fed.
_EVALUATED_CAPTURES = ("VariableV2",)


class DatasetFunction:
    """``fn`` traced over one element of ``input_spec``.

    ``result`` is what ``fn`` returned (tensors, or a Dataset for
    ``flat_map``); the caller turns it into ``graph.outputs`` with
    ``set_outputs`` and then calls ``seal``.
    """

    def __init__(self, fn, input_spec, what: str):
        if not callable(fn):
            raise TypeError(f"`{what}` must be callable, got {fn!r}")
        self.what = what
        self.input_spec = input_spec
        name = getattr(fn, "__name__", type(fn).__name__).replace("<", "").replace(">", "")
        self.graph = FuncGraph(f"Dataset_{what}_{name}", get_default_graph(), name_scope="")
        g = self.graph
        with g.as_default():
            flat = structure.flatten(input_spec)
            args = [g.add_arg(s.dtype, s.shape, name=f"args_{i}") for i, s in enumerate(flat)]
            packed = structure.pack(input_spec, args)
            # TF1 spreads a plain tuple over the arguments; anything else is one argument.
            if type(packed) is tuple:
                self.result = fn(*packed)
            else:
                self.result = fn(packed)

    def set_outputs(self, tensors: list) -> None:
        g = self.graph
        outputs = []
        for t in tensors:
            if isinstance(t, Operation):
                raise TypeError(f"The `{self.what}` function returned the operation {t.name}; it must return "
                                f"tensors.")
            outputs.append(g.capture(t))
        g.outputs = outputs

    def seal(self) -> None:
        self.graph.seal()

    def captured_inputs(self) -> list:
        """Outer tensors whose values the function needs (in ``graph.inputs`` order)."""
        return [outer for outer, inner in self.graph.captures if inner._op._type not in _EVALUATED_CAPTURES]

    def bind(self, compiled, values: dict):
        """``compiled`` with its captured values bound: a function of one flat element."""
        captured = tuple(None if inner._op._type in _EVALUATED_CAPTURES else values[outer]
                         for outer, inner in self.graph.captures)
        if not captured:
            return compiled
        return lambda element: compiled(element + captured)


def trace_map(fn, input_spec, what: str = "map"):
    """Traces a map function; returns ``(DatasetFunction, output structure of tensors)``."""
    f = DatasetFunction(fn, input_spec, what)
    result = f.result
    if isinstance(result, list):
        result = tuple(result)  # TF1: a returned list is a tuple of components
    with f.graph.as_default():
        result = structure.normalize_element(result, f"return value of the `{what}` function")
        f.set_outputs(structure.flatten(result))
    f.seal()
    out = structure.pack(result, f.graph.outputs)
    return f, out


def trace_predicate(fn, input_spec):
    """Traces a filter predicate, which must return a scalar bool tensor."""
    f = DatasetFunction(fn, input_spec, "filter")
    result = f.result
    with f.graph.as_default():
        if not isinstance(result, Tensor):
            from dflow.framework.constant_op import convert_to_tensor

            try:
                result = convert_to_tensor(result)
            except (TypeError, ValueError):
                result = None
        if result is None or result.dtype.name != "bool" or result.shape.ndims not in (None, 0):
            got = "a non-tensor" if result is None else \
                f"TensorSpec(shape={result.shape}, dtype=tf.{result.dtype.name})"
            raise ValueError(f"`predicate` return type must be convertible to a scalar boolean tensor. Was {got}.")
        f.set_outputs([result])
    f.seal()
    return f


def trace_dataset_fn(fn, input_spec, what: str):
    """Traces a ``flat_map``/``interleave`` function, which must return a Dataset.

    The graph's outputs are the returned dataset's graph inputs, so that one
    call of the compiled function gives what building that dataset needs.
    """
    from dflow.data.dataset_ops import DatasetV1

    f = DatasetFunction(fn, input_spec, what)
    ds = f.result
    if not isinstance(ds, DatasetV1):
        raise TypeError(f"`{what}` must return a `Dataset` object, got {type(ds).__name__}.")
    with f.graph.as_default():
        f.set_outputs(ds._graph_inputs())
    f.seal()
    return f, ds
