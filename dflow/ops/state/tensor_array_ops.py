"""``tf.TensorArray``: TF1's graph-mode TensorArray as a value carried by its flow.

TF1 keeps a TensorArray's elements in a per-step resource named by a handle
and threads a float32 scalar ``flow`` through its ops to order them. dflow
keeps TF1's ops and graph (``TensorArrayV3`` makes the handle and the first
flow; ``TensorArrayWriteV3``, ``...ScatterV3`` and ``...SplitV3`` take a flow
and make the next; ``...ReadV3``, ``...GatherV3``, ``...ConcatV3`` and
``...SizeV3`` read one), but the flow's run-time value is the array itself, a
``TensorArrayValue`` (``tensor_array_state``). So a TensorArray is a pure
value: ``while_loop`` carries it as its flow, and gradients are ordinary
rules whose flow gradients carry ``TensorArrayGradient`` values (the
elements' gradients by index): a read's gradient puts the read value's
gradient at its index, a write's gradient takes it back out.

The flow's static dtype is float32, as in TF1; the handle is a string scalar
(TF1's is a resource), holding the array's name.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, control_dependencies, name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, as_shape
from dflow.framework.type_spec import TypeSpec
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array.index_args import kernel_int, kernel_ints
from dflow.ops.control_flow.control_flow_ops import identity
from dflow.ops.state import tensor_array_state as state

_SCALAR = TensorShape([])


def _register(op_type: str, infer, kernel) -> None:
    # Flows are Python values, not arrays: never folded at graph time, never moved to a GPU.
    register(op_type, infer=infer, kernel=kernel, gpu=False, foldable=False)


def _indices(v) -> list:
    return list(kernel_ints(v))


# -- TensorArrayV3: the handle and the first flow ---------------------------------------------------


def _create_infer(op):
    return [(dtypes.string, _SCALAR), (dtypes.float32, _SCALAR)]


def _create_kernel(size, *, dtype, element_shape, dynamic_size, clear_after_read, identical_element_shapes,
                   tensor_array_name):
    n = kernel_int(size)
    if n < 0:
        raise _invalid(f"Size should be >= 0, got {n}")
    spec = state.TensorArraySpec(tensor_array_name, dtype.as_numpy_dtype, dynamic_size, clear_after_read,
                                 identical_element_shapes, element_shape)
    return np.array(tensor_array_name.encode(), dtype=object), state.TensorArrayValue(spec, n)


_register("TensorArrayV3", _create_infer, _create_kernel)
not_differentiable("TensorArrayV3")


# -- TensorArrayGradV3: an empty array for the gradients of another --------------------------------


def _grad_kernel(handle, flow_in, *, source):
    value = flow_in
    spec = value.spec
    g = state.TensorArraySpec(f"{spec.name}@{source}", spec.dtype, spec.dynamic_size, False, False,
                              spec.element_shape)
    return np.array(g.name.encode(), dtype=object), state.TensorArrayValue(g, value.size)


_register("TensorArrayGradV3", _create_infer, _grad_kernel)
not_differentiable("TensorArrayGradV3")


# -- writes: TensorArrayWriteV3, TensorArrayScatterV3, TensorArraySplitV3 -------------------------


def _flow_infer(op):
    return [(dtypes.float32, _SCALAR)]


def _write_kernel(handle, index, value, flow_in):
    return flow_in.write_many([kernel_int(index)], [value])


def _scatter_kernel(handle, indices, value, flow_in):
    idx = _indices(indices)
    if len(idx) != value.shape[0]:
        raise _invalid(f"Expected len(indices) == values.shape[0], but saw: {len(idx)} vs. {value.shape[0]}")
    size = flow_in.size
    if not flow_in.spec.dynamic_size and idx and max(idx) >= size:
        raise _invalid(f"Max scatter index must be < array size ({max(idx)} vs. {size})")
    return flow_in.write_many(idx, list(value))


def _split_kernel(handle, value, lengths, flow_in):
    lens = _indices(lengths)
    if value.ndim == 0:
        raise _invalid("Expected value to be at least a vector, but received shape: []")
    if sum(lens) != value.shape[0]:
        raise _invalid(f"Expected sum of lengths to be equal to values.shape[0], but sum of lengths is {sum(lens)} "
                       f"and value's shape is: [{','.join(map(str, value.shape))}]")
    if not flow_in.spec.dynamic_size and len(lens) != flow_in.size:
        raise _invalid(f"TensorArray's size is not equal to the size of lengths ({flow_in.size} vs. {len(lens)}), "
                       f"and the TensorArray is not marked as dynamically resizeable")
    bounds = np.cumsum([0] + lens)
    return flow_in.write_many(range(len(lens)), [value[a:b] for a, b in zip(bounds[:-1], bounds[1:])])


for _t, _k in (("TensorArrayWriteV3", _write_kernel), ("TensorArrayScatterV3", _scatter_kernel),
               ("TensorArraySplitV3", _split_kernel)):
    _register(_t, _flow_infer, _k)


@gradient("TensorArrayWriteV3")
def _write_grad(op, grad):
    _, index, value, _ = op._inputs
    d_value = apply_op("TensorArrayGradRead", [grad, index, value]).outputs[0]
    return [None, None, d_value, grad]


@gradient("TensorArrayScatterV3")
def _scatter_grad(op, grad):
    _, indices, value, _ = op._inputs
    d_value = apply_op("TensorArrayGradGather", [grad, indices, value]).outputs[0]
    return [None, None, d_value, grad]


@gradient("TensorArraySplitV3")
def _split_grad(op, grad):
    _, value, lengths, _ = op._inputs
    d_value = apply_op("TensorArrayGradConcat", [grad, lengths, value]).outputs[0]
    return [None, d_value, None, grad]


# -- reads: TensorArrayReadV3, TensorArrayGatherV3, TensorArrayConcatV3, TensorArraySizeV3 ----------


def _read_infer(op):
    return [(op._attrs["dtype"], TensorShape(None))]


def _read_kernel(handle, index, flow_in, *, dtype):
    return flow_in.read_many([kernel_int(index)])[0]


def _gather_infer(op):
    return [(op._attrs["dtype"], TensorShape([None]).concatenate(op._attrs["element_shape"]))]


def _gather_kernel(handle, indices, flow_in, *, dtype, element_shape):
    return flow_in.stack(_indices(indices))


def _concat_infer(op):
    es = op._attrs["element_shape_except0"]
    return [(op._attrs["dtype"], TensorShape([None]).concatenate(es)), (dtypes.int64, TensorShape([None]))]


def _concat_kernel(handle, flow_in, *, dtype, element_shape_except0):
    return flow_in.concat()


def _size_infer(op):
    return [(dtypes.int32, _SCALAR)]


def _size_kernel(handle, flow_in):
    return np.int32(flow_in.size)


_register("TensorArrayReadV3", _read_infer, _read_kernel)
_register("TensorArrayGatherV3", _gather_infer, _gather_kernel)
_register("TensorArrayConcatV3", _concat_infer, _concat_kernel)
_register("TensorArraySizeV3", _size_infer, _size_kernel)
not_differentiable("TensorArraySizeV3")


@gradient("TensorArrayReadV3")
def _read_grad(op, grad):
    index = op._inputs[1]
    return [None, None, apply_op("TensorArrayGradOfRead", [index, grad]).outputs[0]]


@gradient("TensorArrayGatherV3")
def _gather_grad(op, grad):
    indices = op._inputs[1]
    return [None, None, apply_op("TensorArrayGradOfGather", [indices, grad]).outputs[0]]


@gradient("TensorArrayConcatV3")
def _concat_grad(op, grad, _):
    lengths = op._outputs[1]
    return [None, apply_op("TensorArrayGradOfConcat", [grad, lengths]).outputs[0]]


# -- TensorArrayCloseV3 ------------------------------------------------------------------------


register("TensorArrayCloseV3", infer=lambda op: [], kernel=lambda handle: None, gpu=False, foldable=False)


# -- gradient kernels: element gradients into a gradient flow, and back out --------------------------


def _of_read_kernel(index, grad):
    return state.gradient_of([kernel_int(index)], [grad])


def _of_gather_kernel(indices, grad):
    return state.gradient_of(_indices(indices), list(grad))


def _of_concat_kernel(grad, lengths):
    bounds = np.cumsum([0] + _indices(lengths))
    return state.gradient_of(range(len(bounds) - 1), [grad[a:b] for a, b in zip(bounds[:-1], bounds[1:])])


for _t, _k in (("TensorArrayGradOfRead", _of_read_kernel), ("TensorArrayGradOfGather", _of_gather_kernel),
               ("TensorArrayGradOfConcat", _of_concat_kernel)):
    _register(_t, _flow_infer, _k)
    not_differentiable(_t)


def _like_value_infer(op):
    value = op._inputs[2]
    return [(value.dtype, value.shape)]


def _element_grad(items: dict, i: int, like):
    g = items.get(i)
    return array_module(like).zeros_like(like) if g is None else g


def _grad_read_kernel(grad_flow, index, value):
    return _element_grad(state.grad_items(grad_flow), kernel_int(index), value)


def _grad_gather_kernel(grad_flow, indices, value):
    items = state.grad_items(grad_flow)
    xp = array_module(value)
    rows = [_element_grad(items, i, value[k]) for k, i in enumerate(_indices(indices))]
    return xp.stack(rows).astype(value.dtype, copy=False) if rows else xp.zeros_like(value)


def _grad_concat_kernel(grad_flow, lengths, value):
    items = state.grad_items(grad_flow)
    bounds = np.cumsum([0] + _indices(lengths))
    parts = [_element_grad(items, k, value[a:b]) for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))]
    xp = array_module(value)
    return xp.concatenate(parts).astype(value.dtype, copy=False) if parts else xp.zeros_like(value)


for _t, _k in (("TensorArrayGradRead", _grad_read_kernel), ("TensorArrayGradGather", _grad_gather_kernel),
               ("TensorArrayGradConcat", _grad_concat_kernel)):
    _register(_t, _like_value_infer, _k)
    not_differentiable(_t)


# -- the TensorArray class ---------------------------------------------------------------------


def _as_element_shape(shape) -> TensorShape:
    return TensorShape(None) if shape is None else as_shape(shape)


def _attr_shape(shape: TensorShape):
    """An element shape as an attr: a list with None for unknown dims, or None (unknown rank)."""
    return None if shape.ndims is None else shape.as_list()


@tf_export("TensorArray")
class TensorArray:
    """A list of tensors that graph code writes and reads by index (TF1's graph-mode TensorArray).

    Each write returns a new TensorArray whose ``flow`` carries the
    elements; keep using the returned object. It can be a ``while_loop``
    variable, and gradients flow through reads, writes, stack, unstack,
    gather, scatter, concat and split.

    >>> import dflow as tf
    >>> ta = tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(1, 2.0)
    >>> tf.Session().run(ta.stack())
    array([1., 2.], dtype=float32)
    """

    def __init__(self, dtype, size=None, dynamic_size: bool | None = None, clear_after_read: bool | None = None,
                 tensor_array_name: str | None = None, handle=None, flow=None, infer_shape: bool = True,
                 element_shape=None, colocate_with_first_write_call: bool = True, name: str | None = None):
        if clear_after_read is None:
            clear_after_read = True
        if handle is not None and tensor_array_name:
            raise ValueError("Cannot construct with both handle and tensor_array_name")
        if handle is not None and not isinstance(handle, Tensor):
            raise TypeError("Handle must be a Tensor")
        if handle is None and size is None:
            raise ValueError("Size must be provided if handle is not provided")
        if handle is not None and size is not None:
            raise ValueError("Cannot provide both a handle and size at the same time")
        if handle is not None and element_shape is not None:
            raise ValueError("Cannot provide both a handle and element_shape at the same time")
        if handle is not None and dynamic_size is not None:
            raise ValueError("Cannot provide both a handle and dynamic_size at the same time")
        if handle is not None and flow is None:
            raise ValueError("flow must not be None if handle is not None.")
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = bool(clear_after_read)
        self._colocate_with_first_write_call = colocate_with_first_write_call
        if element_shape is None:
            self._infer_shape = infer_shape
        else:
            self._infer_shape = True
        # Shared by every TensorArray derived from this one, as in TF1: a write's shape informs them all.
        self._element_shape = [_as_element_shape(element_shape)]
        if handle is not None:
            self._handle, self._flow, self._size = handle, flow, None
            return
        with name_scope(name, "TensorArray", [size] if isinstance(size, Tensor) else []) as scope:
            size_t = convert_to_tensor(size, dtype=dtypes.int32, name="size")
            array_name = tensor_array_name or scope.rstrip("/")
            op = apply_op("TensorArrayV3", [size_t], {
                "dtype": self._dtype, "element_shape": _attr_shape(self._element_shape[0]),
                "dynamic_size": self._dynamic_size, "clear_after_read": self._clear_after_read,
                "identical_element_shapes": self._infer_shape, "tensor_array_name": array_name},
                name=scope)
        self._handle, self._flow = op.outputs
        self._size = size_t

    # -- properties ---------------------------------------------------------------------------

    @property
    def dtype(self):
        """The dtype of the elements."""
        return self._dtype

    @property
    def handle(self) -> Tensor:
        """The array's handle (a string scalar naming it; TF1's is a resource)."""
        return self._handle

    @property
    def flow(self) -> Tensor:
        """The float32 scalar tensor whose value is the array's contents."""
        return self._flow

    @property
    def element_shape(self) -> TensorShape:
        """The static shape of the elements, as far as known."""
        return self._element_shape[0]

    @property
    def dynamic_size(self) -> bool:
        """Whether writes past the end grow the array."""
        return self._dynamic_size

    def _merge_element_shape(self, shape: TensorShape) -> None:
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self.element_shape} ")
        self._element_shape[0] = self.element_shape.merge_with(shape)

    def _with_flow(self, flow: Tensor) -> TensorArray:
        """This array with another flow (the result of a write, or a loop variable)."""
        ta = TensorArray.__new__(TensorArray)
        ta.__dict__.update(self.__dict__)
        ta._flow = flow
        return ta

    # -- reading ------------------------------------------------------------------------------

    def read(self, index, name: str | None = None) -> Tensor:
        """The element at ``index``."""
        index = convert_to_tensor(index, dtype=dtypes.int32, name="index")
        value = apply_op("TensorArrayReadV3", [self._handle, index, self._flow], {"dtype": self._dtype},
                         name=name or "TensorArrayReadV3").outputs[0]
        value.set_shape(self.element_shape)
        return value

    def gather(self, indices, name: str | None = None) -> Tensor:
        """The elements at ``indices``, stacked along a new axis 0."""
        indices = convert_to_tensor(indices, dtype=dtypes.int32, name="indices")
        return apply_op("TensorArrayGatherV3", [self._handle, indices, self._flow],
                        {"dtype": self._dtype, "element_shape": self.element_shape},
                        name=name or "TensorArrayGatherV3").outputs[0]

    def stack(self, name: str | None = None) -> Tensor:
        """All elements stacked along a new axis 0."""
        from dflow.ops.array.creation_ops import range as range_

        with name_scope(name, "TensorArrayStack", [self._handle]):
            value = self.gather(range_(0, self.size()), name=name)
            n = None if self._dynamic_size or self._size is None else constant_value(self._size)
            if n is not None:
                value.set_shape(TensorShape([int(n)]).concatenate(self.element_shape))
            return value

    def concat(self, name: str | None = None) -> Tensor:
        """All elements concatenated along axis 0 (each must be at least a vector)."""
        es = self.element_shape
        rest = es[1:] if es.ndims is not None and es.ndims >= 1 else TensorShape(None)
        value = apply_op("TensorArrayConcatV3", [self._handle, self._flow],
                         {"dtype": self._dtype, "element_shape_except0": rest},
                         name=name or "TensorArrayConcatV3").outputs[0]
        n = None if self._dynamic_size or self._size is None else constant_value(self._size)
        if n is not None and es.ndims is not None and es.ndims >= 1 and es[0].value is not None:
            value.set_shape(TensorShape([int(n) * es[0].value]).concatenate(rest))
        return value

    def size(self, name: str | None = None) -> Tensor:
        """The number of elements (a constant when the size is static and fixed)."""
        if not self._dynamic_size and self._size is not None:
            n = constant_value(self._size)
            if n is not None:
                return convert_to_tensor(int(n), dtype=dtypes.int32, name=name)
        return apply_op("TensorArraySizeV3", [self._handle, self._flow], name=name or "TensorArraySizeV3").outputs[0]

    # -- writing ------------------------------------------------------------------------------

    def write(self, index, value, name: str | None = None) -> TensorArray:
        """A TensorArray with ``value`` written at ``index`` (each index is written once)."""
        with name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            index = convert_to_tensor(index, dtype=dtypes.int32, name="index")
            value = self._convert_value(value)
            if self._infer_shape:
                self._merge_element_shape(value.shape)
            flow = apply_op("TensorArrayWriteV3", [self._handle, index, value, self._flow],
                            name="TensorArrayWriteV3").outputs[0]
        return self._with_flow(flow)

    def scatter(self, indices, value, name: str | None = None) -> TensorArray:
        """A TensorArray with row ``k`` of ``value`` written at ``indices[k]``."""
        with name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            indices = convert_to_tensor(indices, dtype=dtypes.int32, name="indices")
            value = self._convert_value(value)
            if self._infer_shape and value.shape.ndims is not None:
                self._merge_element_shape(value.shape[1:])
            flow = apply_op("TensorArrayScatterV3", [self._handle, indices, value, self._flow],
                            name="TensorArrayScatterV3").outputs[0]
        return self._with_flow(flow)

    def unstack(self, value, name: str | None = None) -> TensorArray:
        """A TensorArray with the rows of ``value`` written at 0, 1, ..."""
        from dflow.ops.array.creation_ops import range as range_
        from dflow.ops.array.shape_ops import shape

        with name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            value = self._convert_value(value)
            n = value.shape[0].value if value.shape.ndims else None
            num = n if n is not None else shape(value)[0]
            return self.scatter(range_(0, num), value, name=name)

    def split(self, value, lengths, name: str | None = None) -> TensorArray:
        """A TensorArray whose element ``k`` is the next ``lengths[k]`` rows of ``value``."""
        from dflow.ops.math.math_ops import cast

        with name_scope(name, "TensorArraySplit", [self._handle, value, lengths]):
            value = self._convert_value(value)
            lengths = cast(convert_to_tensor(lengths, name="lengths"), dtypes.int64)
            if self._infer_shape:
                lens = constant_value(lengths)
                if value.shape.ndims is not None and lens is not None and lens.size and lens.max() == lens.min():
                    self._merge_element_shape(TensorShape([int(lens[0])]).concatenate(value.shape[1:]))
            flow = apply_op("TensorArraySplitV3", [self._handle, value, lengths, self._flow],
                            name="TensorArraySplitV3").outputs[0]
        return self._with_flow(flow)

    def _convert_value(self, value) -> Tensor:
        if isinstance(value, Tensor):
            return value
        return convert_to_tensor(value, dtype=self._dtype, name="value")

    # -- the rest -----------------------------------------------------------------------------

    def identity(self) -> TensorArray:
        """This TensorArray with its flow passed through ``tf.identity``."""
        return self._with_flow(identity(self._flow))

    def grad(self, source: str, flow=None, name: str | None = None) -> TensorArray:
        """An empty TensorArray of this one's size, dtype and element shape, for ``source``'s gradients."""
        flow = self._flow if flow is None else flow
        with name_scope(name, "TensorArrayGrad", [self._handle]):
            g_handle, g_flow = apply_op("TensorArrayGradV3", [self._handle, flow], {"source": source},
                                        name="TensorArrayGradV3").outputs
            with control_dependencies([g_handle]):
                g_flow = identity(g_flow, name="gradient_flow")
        g = TensorArray(self._dtype, handle=g_handle, flow=g_flow, infer_shape=self._infer_shape)
        g._element_shape = self._element_shape
        g._dynamic_size = self._dynamic_size
        g._clear_after_read = False
        return g

    @property
    def _type_spec(self) -> TensorArraySpec:
        """What ``tf.type_spec_from_value`` gives for this array."""
        return TensorArraySpec(self.element_shape, self.dtype, self.dynamic_size, True)

    def close(self, name: str | None = None):
        """Closes the array (an op with no outputs; dflow frees elements with their last flow)."""
        return apply_op("TensorArrayCloseV3", [self._handle], name=name or "TensorArrayCloseV3")


def is_tensor_array(value) -> bool:
    """Whether ``value`` is a TensorArray (``while_loop`` carries those by their flow)."""
    return isinstance(value, TensorArray)


@tf_export("TensorArraySpec")
class TensorArraySpec(TypeSpec):
    """The element shape, dtype and growth rules of a ``TensorArray``."""

    def __init__(self, element_shape=None, dtype=dtypes.float32, dynamic_size=False, infer_shape=True):
        self._element_shape = as_shape(element_shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    @property
    def value_type(self):
        return TensorArray

    def _serialize(self) -> tuple:
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    def __repr__(self):
        return f"TensorArraySpec({self._element_shape!r}, tf.{self._dtype.name}, {self._dynamic_size}, " \
               f"{self._infer_shape})"
