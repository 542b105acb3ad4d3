"""The op registry: one ``OpDef`` per op type, and ``apply_op`` to build ops.

An op is one block of code in an ``ops/*.py`` module::

    def _add_infer(op):                       # static dtype and shape rule
        x, y = op.inputs
        return [(x.dtype, broadcast_shapes(x.shape, y.shape))]

    register("Add", infer=_add_infer, kernel=lambda x, y: x + y)

    @gradient("Add")                          # gradient rule (next to it)
    def _add_grad(op, grad): ...

    @tf_export("add", "math.add")             # the TF1 API function
    def add(x, y, name=None):
        x, y = binary_inputs(x, y, "Add")
        return apply_op("Add", [x, y], name=name).outputs[0]

Kernels receive input values (numpy arrays, or CuPy arrays on a GPU device)
positionally and the op's ``attrs`` as keyword arguments; they return one
value, or a tuple for multi-output ops, and never modify their inputs.
Kernels that keep per-session state (random numbers, variables), or that
pick an implementation from the op's dtypes once, are built per session by
``make_kernel(op, resources)`` instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.graph import Operation, Tensor, _graph_of, get_default_graph

_OPS: dict[str, OpDef] = {}


class OpDef:
    """What the runtime knows about an op type.

    ``infer(op)`` returns ``[(dtype, shape), ...]`` for the outputs.
    ``kernel(*inputs, **attrs)`` computes them; or ``make_kernel(op, resources)``
    returns a bound callable for stateful ops. ``gpu`` says whether the kernel
    also runs on CuPy arrays. ``foldable`` lets shape inference evaluate the op
    on constant inputs. ``uses_context`` kernels may block: they get the run's
    ``RunContext`` (deadlines, cancellation) as their first argument.
    ``grad`` is the gradient rule, if any.
    """

    __slots__ = ("type", "infer", "kernel", "make_kernel", "stateful", "gpu", "foldable", "grad",
                 "not_differentiable", "uses_context")

    def __init__(self, op_type, infer, kernel, make_kernel, stateful, gpu, foldable, uses_context=False):
        self.type = op_type
        self.infer = infer
        self.kernel = kernel
        self.make_kernel = make_kernel
        self.stateful = stateful
        self.gpu = gpu
        self.foldable = foldable
        self.grad = None
        self.not_differentiable = False
        self.uses_context = uses_context

    def bind(self, op: Operation, resources) -> Callable:
        """The callable that runs ``op``'s kernel on input values."""
        if self.make_kernel is not None:
            return self.make_kernel(op, resources)
        if op._attrs:
            return functools.partial(self.kernel, **op._attrs)
        return self.kernel

    def __repr__(self):
        return f"<OpDef {self.type}>"


def register(op_type: str, *, infer: Callable, kernel: Callable | None = None,
             make_kernel: Callable | None = None, stateful: bool = False, gpu: bool = True,
             foldable: bool | None = None, uses_context: bool = False) -> OpDef:
    """Registers op type ``op_type``; each type is registered once."""
    if op_type in _OPS:
        raise KeyError(f"Op type {op_type!r} is registered twice")
    if (kernel is None) == (make_kernel is None):
        raise ValueError(f"Op {op_type!r} needs exactly one of kernel= or make_kernel=")
    opdef = OpDef(op_type, infer, kernel, make_kernel, stateful, gpu,
                  (not stateful and make_kernel is None and not uses_context) if foldable is None else foldable,
                  uses_context)
    _OPS[op_type] = opdef
    return opdef


def get_opdef(op_type: str) -> OpDef:
    try:
        return _OPS[op_type]
    except KeyError:
        raise errors.NotFoundError(None, None, f"Op type not registered '{op_type}'") from None


def registered_op_types() -> list:
    return sorted(_OPS)


def gradient(op_type: str):
    """Decorator: registers ``fn(op, *output_grads) -> input grads`` for ``op_type``."""

    def deco(fn):
        opdef = get_opdef(op_type)
        if opdef.grad is not None:
            raise KeyError(f"Gradient for {op_type!r} is registered twice")
        opdef.grad = fn
        return fn

    return deco


def not_differentiable(op_type: str) -> None:
    """Declares that ``op_type`` has no gradient (gradients through it are None)."""
    get_opdef(op_type).not_differentiable = True


_NAMED_GRADIENTS: dict = {}


@tf_export("RegisterGradient")
class RegisterGradient:
    """``@tf.RegisterGradient("Name")``: a gradient rule usable with
    ``graph.gradient_override_map({"OpType": "Name"})``."""

    def __init__(self, op_type: str):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        if self._op_type in _NAMED_GRADIENTS:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'!")
        _NAMED_GRADIENTS[self._op_type] = fn
        return fn


@tf_export("NotDifferentiable", "no_gradient")
def NotDifferentiable(op_type: str) -> None:  # noqa: N802 - TF1 name
    """Declares that ops of ``op_type`` have no gradient."""
    not_differentiable(op_type)


def gradient_function(op: Operation):
    """The gradient rule for ``op`` (honouring gradient_override_map), None if not
    differentiable; LookupError naming the op if it has no rule."""
    name = op._gradient_type or op._type
    fn = _NAMED_GRADIENTS.get(name)
    if fn is not None:
        return fn
    opdef = _OPS.get(name)
    if opdef is not None:
        if opdef.not_differentiable:
            return None
        if opdef.grad is not None:
            return opdef.grad
    raise LookupError(f"No gradient defined for operation '{op.name}' (op type: {op.type}). "
                      f"Wrap it in tf.stop_gradient if no gradient should flow through it.")


def apply_op(op_type: str, inputs, attrs: dict | None = None, name: str | None = None,
             graph=None) -> Operation:
    """Creates an op of ``op_type`` in the inputs' graph (or the default graph).

    ``inputs`` must already be Tensors (API functions convert them with the
    dtype rules of their op). Returns the new Operation.
    """
    opdef = get_opdef(op_type)
    inputs = list(inputs)
    if graph is None:
        graph = _graph_of(inputs) if inputs else get_default_graph()
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"Input to op {op_type} must be a Tensor, got {type(t).__name__}")
    if name is None:
        name = op_type
    else:
        if not isinstance(name, str):
            raise TypeError(f"name must be a string, got {name!r}")
        graph._check_op_name(name.rstrip("/") or op_type)
    if graph._control_stack and _CONTROLLED_INPUT_HOOK:
        inputs = _CONTROLLED_INPUT_HOOK[0](graph, op_type, inputs)
    return graph._create_op(op_type, inputs, attrs or {}, name, opdef, _infer_with_context(opdef, op_type))


# ``variables`` installs one function here: inside a control_dependencies block,
# ``hook(graph, op_type, inputs) -> inputs`` may replace reads of a variable
# (TF1 ref semantics: a read sees the value when its consumer runs).
_CONTROLLED_INPUT_HOOK: list = []


def _infer_with_context(opdef: OpDef, op_type: str):
    def infer(op):
        try:
            specs = opdef.infer(op)
        except ValueError as e:
            shapes = ", ".join(_shape_str(t.shape) for t in op._inputs)
            raise ValueError(f"{e} for '{op.name}' (op: '{op_type}') with input shapes: {shapes}.") from None
        for dtype, _ in specs:
            if dtype in dtypes.UNIMPLEMENTED:
                raise NotImplementedError(f"{op_type} '{op.name}': {dtype} tensors: "
                                          f"{dtypes.UNIMPLEMENTED_REASONS[dtype]}")
        return specs

    return infer


def _shape_str(shape) -> str:
    if shape.ndims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


# -- constant folding for shape inference ------------------------------------------

_FOLD_LIMIT = 4096


def constant_value(tensor: Tensor):
    """The value of ``tensor`` if it is computable from constants alone, else None.

    Shape rules use it to resolve shape arguments (``reshape(x, [2, -1])``),
    as TF1's ``tensor_util.constant_value``.
    """
    op = tensor._op
    if op._type == "Const":
        return op._attrs["value"]
    opdef = op._opdef
    if not opdef.foldable:
        return None
    n = tensor.shape.num_elements()
    if n is None or n > _FOLD_LIMIT:
        return None  # only small, fully known values are worth folding
    fold = _FOLDERS.get(op._type)
    if fold is not None:
        return fold(tensor)
    values = []
    for t in op._inputs:
        v = constant_value(t)
        if v is None or np.size(v) > _FOLD_LIMIT:
            return None
        values.append(v)
    try:
        out = opdef.bind(op, None)(*values)
    except Exception:  # a bad constant is reported when the op runs
        return None
    if len(op._outputs) > 1:
        out = out[tensor._value_index]
    return np.asarray(out, dtype=tensor.dtype.as_numpy_dtype)


_FOLDERS: dict[str, Callable] = {}


def register_folder(op_type: str):
    """Decorator: a custom constant-folding rule (e.g. ``Shape`` from static shape)."""

    def deco(fn):
        _FOLDERS[op_type] = fn
        return fn

    return deco
