"""Training ops: one stateful op per (variable, optimizer) step, as TF1's ``ApplyAdam`` & co.

An apply op names the variable it trains by ``attrs["var"]`` (the VariableV2
op) and the optimizer's slot variables for it by ``attrs["slots"]``, as the
other update ops of ``dflow.ops.state.variables`` do; its inputs are the gradient
and the hyperparameters (scalars of the variable's dtype), so a learning rate
may be any tensor, a decay schedule or a placeholder. Its output is the
variable's new value.

The kernel is a numpy function of the current values and the inputs that
returns fresh arrays for the variable and each slot, in TF1's exact order of
float operations. It runs holding the variable's lock, then each slot's lock
in turn (the same order everywhere, so two ops never deadlock), and commits
the new values together only once all are computed: a failing step changes
nothing. Each optimizer module registers its op next to its class::

    def _apply_momentum(var, accum, lr, grad, momentum, use_nesterov):
        accum = accum * momentum + grad
        return var - accum * lr, accum

    register_apply_op("ApplyMomentum", ("lr", "grad", "momentum"), ("accum",), _apply_momentum)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import numpy as np

from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, colocate_with
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.kernels.blas import over_elements
from dflow.ops.array.index_args import host
from dflow.ops.state.resources import update_in_place
from dflow.ops.state.variables import _state


def in_blocks(step: Callable, *arrays) -> None:
    """``step(*blocks)`` over aligned blocks of ``arrays`` (numpy arrays of one size, as flat
    views) small enough to stay in cache, in shares over the BLAS pool's threads when large
    (``_blas.over_elements``): an update's chain of numpy calls then passes through memory once."""
    flat = [a.reshape(-1) for a in arrays]
    over_elements(arrays[0].size, lambda span: step(*(a[span] for a in flat)))


def register_apply_op(op_type: str, inputs: tuple, slots: tuple, update: Callable, grad: str = "grad",
                      in_place: Callable | None = None) -> None:
    """Registers ``op_type``: ``update(var, *slot_values, *inputs, **attrs) -> (var, *slots)``.

    ``inputs`` names the op's inputs in order (TF1's names); ``grad`` is the
    one with the variable's shape, every other input is a scalar.

    ``in_place(var, *slot_values, *inputs, **attrs)``, where given, writes the same new values
    into the arrays it is given, bit for bit: the kernel uses it for large float variables
    that nothing else holds (``resources.update_in_place``), as TF1 updates in place.
    """
    grad_index = inputs.index(grad)
    scalar_positions = tuple(i for i in range(len(inputs)) if i != grad_index)

    def infer(op):
        var = op._attrs["var"]
        dtype, shape = var._attrs["dtype"], var.outputs[0].shape
        for name, t in zip(inputs, op._inputs):
            if t.dtype is not dtype:
                raise TypeError(f"Input '{name}' of '{op_type}' Op has type {t.dtype.name} that does not match "
                                f"type {dtype.name} of argument 'var'.")
            want = shape if name == grad else TensorShape([])
            if not want.is_compatible_with(t.shape):
                what = "var and grad do not have the same shape" if name == grad else f"{name} is not a scalar"
                raise ValueError(f"Shapes {want} and {t.shape} are incompatible: {what}")
        for slot in op._attrs["slots"]:
            if not shape.is_compatible_with(slot.outputs[0].shape):
                raise ValueError(f"Shapes {shape} and {slot.outputs[0].shape} are incompatible: var and slot "
                                 f"{slot.name} do not have the same shape")
        return [(dtype, shape)]

    def make_kernel(op, resources):
        attrs = {k: v for k, v in op._attrs.items() if k not in ("var", "slots")}
        names = [v.name for v in (op._attrs["var"], *op._attrs["slots"])]

        def check(values, args):
            # A training-step hot path: checks are plain attribute compares.
            shape = values[0].shape
            for k in range(1, len(values)):
                if values[k].shape != shape:
                    raise errors.InvalidArgumentError(
                        None, None, f"var and {names[k]} do not have the same shape {list(shape)} "
                                    f"{list(values[k].shape)}")
            if args[grad_index].shape != shape:
                raise errors.InvalidArgumentError(
                    None, None, f"var and {inputs[grad_index]} do not have the same shape {list(shape)} "
                                f"{list(args[grad_index].shape)} (variable {names[0]})")
            for i in scalar_positions:
                if np.ndim(args[i]) != 0:
                    raise errors.InvalidArgumentError(
                        None, None, f"{inputs[i]} is not a scalar: {list(np.shape(args[i]))}")

        def compute(values, args):
            check(values, args)
            return update(*values, *args, **attrs) if attrs else update(*values, *args)

        def write(values, args):
            check(values, args)
            in_place(*values, *args, **attrs)

        float_var = op._attrs["var"]._attrs["dtype"].is_floating
        return _bind_states(op, resources, compute, write if in_place is not None and float_var else None,
                            grad_index)

    register(op_type, infer=infer, make_kernel=make_kernel, stateful=True)
    not_differentiable(op_type)
    _GRAD_INDEX[op_type] = grad_index
    if op_type in SPARSE_TWINS:
        _register_sparse_twin(op_type, grad_index, update)


def _bind_states(op, resources, compute: Callable, write: Callable | None = None, grad_index: int = 0) -> Callable:
    """The kernel of an apply op: ``compute(values, args)`` under the variable's and slots' locks;
    with ``write``, ``write(values, args)`` in place instead where ``update_in_place`` can."""
    states = [_state(op, v, resources) for v in (op._attrs["var"], *op._attrs["slots"])]
    if len(states) == 1:
        (state,) = states

        def fresh(*args):
            return state.update(lambda value: compute((value,), args)[0])
    else:
        def fresh(*args):
            return update_together(states, lambda *values: compute(values, args))

    if write is None:
        return fresh

    def kernel(*args):
        grad = args[grad_index]
        if type(grad) is np.ndarray and grad.dtype == getattr(states[0].value, "dtype", None):
            new = update_in_place(states, lambda *values: write(values, args))
            if new is not None:
                return new
        return fresh(*args)

    return kernel


# -- sparse twins: TF1's SparseApply* ops update only the rows a sparse gradient touches ----------------

# The apply ops TF1 has a ``Sparse`` twin of (Adam and GradientDescent have none: TF1's
# optimizers update those densely, or by ScatterSub).
SPARSE_TWINS = frozenset({"ApplyAdagrad", "ApplyMomentum", "ApplyFtrl", "ApplyFtrlV2", "ApplyRMSProp",
                          "ApplyCenteredRMSProp", "ApplyAdadelta", "ApplyProximalGradientDescent",
                          "ApplyProximalAdagrad", "ApplyAdagradDA"})
_GRAD_INDEX: dict = {}


def _register_sparse_twin(op_type: str, grad_index: int, update: Callable) -> None:
    """``Sparse<op_type>``: inputs as ``op_type``'s with ``indices`` after the gradient rows; the
    update runs on those rows of the variable and its slots (one row after another when indices
    repeat, as TF1's kernels do)."""
    sparse_type = "Sparse" + op_type

    def infer(op):
        var = op._attrs["var"]
        dtype, shape = var._attrs["dtype"], var.outputs[0].shape
        grad, indices = op._inputs[grad_index], op._inputs[grad_index + 1]
        if indices.dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"Input 'indices' of '{sparse_type}' Op must be int32 or int64, got {indices.dtype.name}")
        for t in op._inputs[:grad_index + 1] + op._inputs[grad_index + 2:]:
            if t.dtype is not dtype:
                raise TypeError(f"Inputs of '{sparse_type}' Op must have type {dtype.name} of argument 'var', got "
                                f"{t.dtype.name}")
        if shape.ndims is not None and grad.shape.ndims is not None:
            want = TensorShape([None]).concatenate(shape[1:])
            if not want.is_compatible_with(grad.shape):
                raise ValueError(f"var and grad do not have the same shape beyond the first dimension: {shape} vs "
                                 f"{grad.shape}")
        return [(dtype, shape)]

    def make_kernel(op, resources):
        attrs = {k: v for k, v in op._attrs.items() if k not in ("var", "slots")}

        def compute(values, args):
            args = list(args)
            indices = np.asarray(host(args.pop(grad_index + 1))).reshape(-1).astype(np.int64)
            grad = args[grad_index]
            rows = values[0].shape[0]
            bad = np.flatnonzero((indices < 0) | (indices >= rows))
            if bad.size:
                i = int(bad[0])
                raise errors.InvalidArgumentError(None, None, f"indices[{i}] = {indices[i]} is not in [0, {rows})")
            if grad.shape[:1] != indices.shape or grad.shape[1:] != values[0].shape[1:]:
                raise errors.InvalidArgumentError(
                    None, None, f"grad must be [{indices.size}] + var.shape[1:] = "
                                f"{[indices.size] + list(values[0].shape[1:])}, got {list(grad.shape)}")
            new = [v.copy() for v in values]
            xp = array_module(values[0])
            batches = [indices] if np.unique(indices).size == indices.size else [indices[k:k + 1] for k in
                                                                                  range(indices.size)]
            start = 0
            for rows_at in batches:
                rows_at = xp.asarray(rows_at)  # on the variable's device (a GPU variable takes CuPy indices)
                part = list(args)
                part[grad_index] = grad[start:start + rows_at.size]
                start += rows_at.size
                out = update(*(v[rows_at] for v in new), *part, **attrs)
                for v, o in zip(new, out):
                    v[rows_at] = o
            return new

        return _bind_states(op, resources, compute)

    register(sparse_type, infer=infer, make_kernel=make_kernel, stateful=True)
    not_differentiable(sparse_type)


_SPARSE_ROWS: list = []  # the IndexedSlices gradient an optimizer is applying sparsely, while it does


@contextlib.contextmanager
def sparse_rows(grad):
    """Within: ``apply_training_op`` given ``grad.values`` as the gradient builds the op's ``Sparse``
    twin with ``grad.indices`` (or, for an op without one, the dense op on the densified gradient)."""
    _SPARSE_ROWS.append(grad)
    try:
        yield
    finally:
        _SPARSE_ROWS.pop()


def update_together(states: list, compute: Callable):
    """Atomically replaces the values of ``states`` with ``compute(*values)``.

    Holds each state's lock, in order, while all new values are computed, and
    commits them only once all are; returns the first new value. (No closures
    over the values: a reference cycle would keep them alive until the garbage
    collector ran, and an update in place would then never find them free.)
    """
    locked = []
    try:
        for s in states:
            s.lock.acquire()
            locked.append(s)
        new = compute(*[s.value if s.value is not None else s.read() for s in states])
        first = states[0].replace(new[0])
        for s, value in zip(states[1:], new[1:]):
            s.replace(value)
        return first
    finally:
        for s in reversed(locked):
            s.lock.release()


def apply_training_op(op_type: str, var, slots: list, inputs: list, attrs: dict | None = None) -> Tensor:
    """Creates ``op_type`` updating ``var`` and ``slots`` (Variables), colocated with ``var``."""
    var_op = var.op
    if _SPARSE_ROWS and op_type in _GRAD_INDEX and inputs[_GRAD_INDEX[op_type]] is _SPARSE_ROWS[-1].values:
        grad, i = _SPARSE_ROWS[-1], _GRAD_INDEX[op_type]
        inputs = list(inputs)
        if op_type in SPARSE_TWINS:
            op_type = "Sparse" + op_type
            inputs.insert(i + 1, grad.indices)
        else:
            inputs[i] = convert_to_tensor(grad)
    with colocate_with(var_op):
        op = apply_op(op_type, inputs, {"var": var_op, "slots": tuple(s.op for s in slots), **(attrs or {})},
                      name=op_type)
    return op.outputs[0]
