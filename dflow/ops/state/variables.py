"""Variables: ``tf.Variable`` and the state ops that read and update it.

A variable is a resource owned by a device. Its value lives in the
session's resources (``SessionResources.variable(key)``), keyed by
(container, shared name); a local session owns its values, as TF1's
DirectSession does. The graph holds, as in TF1:

* ``v`` (``VariableV2``): its output ``v:0`` is the variable's current value;
* ``v/read`` (``Identity``): what ops that use the variable consume;
* ``v/Assign``: the initializer, writing ``v/initial_value``.

Update ops (``Assign``, ``AssignAdd``, ``ScatterUpdate``, ...) name the
variable by its key rather than taking ``v:0`` as an input, so that
initializing a variable never first reads it; they are colocated with it.
Updates replace the stored array and hold the variable's lock, so
concurrent ``assign_add`` runs lose nothing.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors, mode, tensor_util
from dflow.framework import op_registry as _registry
from dflow.framework.constant_op import convert_to_tensor, register_tensor_conversion_function
from dflow.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    get_default_graph,
    name_scope,
)
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.framework.tensor import _VARIABLE_READ_TYPES
from dflow.framework.tensor_shape import TensorShape, as_shape
from dflow.ops.state import variable_defs
from dflow.ops.state.resources import update_in_place
from dflow.ops.state.variable_creators import VariableMeta
from dflow.ops.state.variable_defs import VariableDef  # noqa: F401 - where TF code may look for it


def _key(op: Operation) -> tuple:
    return (op._attrs["container"], op._attrs["shared_name"] or op.name)


def _state(op: Operation, var_op: Operation, resources):
    spec = (var_op._attrs["dtype"], var_op._attrs["shape"])
    return resources.variable(_key(var_op), var_op.name, spec)


# -- VariableV2: reading -----------------------------------------------------------


def _variable_infer(op):
    return [(op._attrs["dtype"], op._attrs["shape"])]


def _variable_kernel(op, resources):
    return _state(op, op, resources).read


register("VariableV2", infer=_variable_infer, make_kernel=_variable_kernel, stateful=True)
not_differentiable("VariableV2")


# -- updates ---------------------------------------------------------------------------


def _update_op(op_type: str, var_op: Operation, inputs: list, attrs: dict, name: str) -> Tensor:
    with colocate_with(var_op):
        return apply_op(op_type, inputs, {"var": var_op, **attrs}, name=name).outputs[0]


def _assign_infer(op):
    var, value = op._attrs["var"], op._inputs[0]
    shape = var.outputs[0].shape if op._attrs["validate_shape"] else value.shape
    if op._attrs["validate_shape"] and not shape.is_compatible_with(value.shape):
        raise ValueError(f"Shapes {shape} and {value.shape} are incompatible: cannot assign a value of shape "
                         f"{value.shape} to variable {var.name} of shape {shape}")
    return [(var._attrs["dtype"], shape)]


def _assign_kernel(op, resources):
    state = _state(op, op._attrs["var"], resources)
    validate = op._attrs["validate_shape"]
    return lambda value: state.assign(value, validate)


register("Assign", infer=_assign_infer, make_kernel=_assign_kernel, stateful=True)


def _same_shape_update_infer(op):
    var, delta = op._attrs["var"], op._inputs[0]
    shape = var.outputs[0].shape
    if not shape.is_compatible_with(delta.shape):
        raise ValueError(f"Shapes {shape} and {delta.shape} are incompatible: the update of variable {var.name} "
                         f"must have the variable's shape")
    return [(var._attrs["dtype"], shape)]


def _elementwise_update(fn):
    def make(op, resources):
        state = _state(op, op._attrs["var"], resources)

        def kernel(delta):
            def apply(value):
                if np.shape(delta) != value.shape:
                    raise errors.InvalidArgumentError(
                        None, None, f"Must have the same shape: variable {state.name} has shape "
                                    f"{list(value.shape)}, the update has shape {list(np.shape(delta))}")
                return fn(value, delta)

            return state.update(apply)

        return kernel

    return make


register("AssignAdd", infer=_same_shape_update_infer, make_kernel=_elementwise_update(lambda v, d: v + d),
         stateful=True)
register("AssignSub", infer=_same_shape_update_infer, make_kernel=_elementwise_update(lambda v, d: v - d),
         stateful=True)


def _scatter_infer(op):
    var, indices, updates = op._attrs["var"], op._inputs[0], op._inputs[1]
    if not indices.dtype.is_integer:
        raise TypeError(f"scatter indices must be int32 or int64, got {indices.dtype.name}")
    vshape = var.outputs[0].shape
    if vshape.ndims is not None and indices.shape.ndims is not None and updates.shape.ndims is not None:
        want = indices.shape.concatenate(vshape[1:])
        if not want.is_compatible_with(updates.shape):
            raise ValueError(f"Shapes {updates.shape} and {want} are incompatible: updates must have shape "
                             f"indices.shape + variable.shape[1:]")
    return [(var._attrs["dtype"], vshape)]


def _scatter(fn):
    def make(op, resources):
        state = _state(op, op._attrs["var"], resources)

        def kernel(indices, updates):
            def write(value):
                n = value.shape[0]
                if indices.size and (indices.min() < 0 or indices.max() >= n):
                    bad = indices[(indices < 0) | (indices >= n)].ravel()[0]
                    raise errors.InvalidArgumentError(
                        None, None, f"indices[...] = {bad} is not in [0, {n}) (variable {state.name})")
                fn(value, indices, updates)

            def apply(value):
                new = value.copy()
                write(new)
                return new

            # In place when nothing else holds the value (an embedding's sparse update, as TF1's).
            new = update_in_place([state], write)
            return new if new is not None else state.update(apply)

        return kernel

    return make


def _scatter_update(new, indices, updates):
    new[indices] = updates


register("ScatterUpdate", infer=_scatter_infer, make_kernel=_scatter(_scatter_update), stateful=True)
register("ScatterAdd", infer=_scatter_infer, make_kernel=_scatter(np.add.at), stateful=True)
register("ScatterSub", infer=_scatter_infer, make_kernel=_scatter(np.subtract.at), stateful=True)
register("ScatterMul", infer=_scatter_infer, make_kernel=_scatter(np.multiply.at), stateful=True)
for _t in ("Assign", "AssignAdd", "AssignSub", "ScatterUpdate", "ScatterAdd", "ScatterSub", "ScatterMul"):
    not_differentiable(_t)


def _initialized_kernel(op, resources):
    state = _state(op, op._attrs["var"], resources)
    return lambda: np.bool_(state.initialized)


register("IsVariableInitialized", infer=lambda op: [(dtypes.bool, TensorShape([]))],
         make_kernel=_initialized_kernel, stateful=True)




def _initialized_value_kernel(op, resources):
    state = _state(op, op._attrs["var"], resources)
    return lambda initial: state.read() if state.initialized else initial


def _read_kernel(op, resources):
    state = _state(op, op._attrs["var"], resources)
    return lambda _ref: state.read()


# A read that happens when the op runs (after its control inputs), not when
# the VariableV2 op ran: read_value() under control_dependencies sees updates.
register("_ReadVariable", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)],
         make_kernel=_read_kernel, stateful=True)


@gradient("_ReadVariable")
def _read_variable_grad(op, grad):
    return [grad]


register("_VariableInitializedValue", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)],
         make_kernel=_initialized_value_kernel, stateful=True)
not_differentiable("_VariableInitializedValue")


# -- reads ordered by control dependencies ------------------------------------------
# TF1's ``v/read`` aliases the buffer that AssignAdd updates in place, so a ref
# variable is read when the op consuming it runs. dflow's reads are snapshots
# taken when ``v/read`` runs; so an op created inside a ``control_dependencies``
# block whose controls (or their inputs) update a variable it reads gets a fresh
# ``_ReadVariable`` in place of that input, made in the block and so run after
# the updates. The rewrite is in the graph, so every runtime (partitions, direct
# cluster runs, queue-runner loops) orders the read the same way. A resource
# variable's snapshot keeps its value, as in TF1; ``value()`` and conversions of
# it inside such a block are fresh reads (TF1 makes a ReadVariableOp there).

_READ_TYPES = _VARIABLE_READ_TYPES


def _resource_variables(graph) -> set:
    return graph._attachments.setdefault("resource_variables", set())


def _ref_read_source(t: Tensor) -> Operation | None:
    """The ref VariableV2 op whose current value ``t`` stands for (``v:0``, or ``v/read``), else None."""
    op = t._op
    if op.type == "Identity" and op._inputs:
        op = op._inputs[0]._op
    if op.type != "VariableV2" or op in _resource_variables(op._graph):
        return None
    return op


def variables_written_by(op: Operation) -> tuple:
    """The ``VariableV2`` ops that ``op`` updates: the variable it names (``var``) and an optimizer's
    ``slots``; none for a read."""
    var = op._attrs.get("var")
    if var is None or op._type in _READ_TYPES:
        return ()
    return (var, *op._attrs.get("slots", ()))


def _variables_updated_by(ops) -> frozenset:
    """The variable ops that an update among ``ops`` or their ancestors writes."""
    found, seen, stack = set(), set(), list(ops)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        found.update(variables_written_by(op))
        stack.extend(t._op for t in op._inputs)
        stack.extend(op._control_inputs)
    return frozenset(found)


def _updated_under_controls(graph) -> set:
    out = set()
    for block in graph._control_stack:
        got = block.memo.get("updated_variables")
        if got is None:
            got = block.memo["updated_variables"] = _variables_updated_by(block.control_inputs)
        out |= got
    return out


def _fresh_read(var_op: Operation) -> Tensor:
    with name_scope("Read"):
        return _update_op("_ReadVariable", var_op, [var_op.outputs[0]], {}, "read")


def _reads_after_controls(graph, op_type: str, inputs: list) -> list:
    """``inputs`` with each read of a ref variable that the block's controls update made fresh."""
    if op_type in _READ_TYPES:
        return inputs
    out, updated = None, None
    for i, t in enumerate(inputs):
        var_op = _ref_read_source(t)
        if var_op is None:
            continue
        if updated is None:
            updated = _updated_under_controls(graph)
        if var_op in updated:
            if out is None:
                out = list(inputs)
            out[i] = _fresh_read(var_op)
    return inputs if out is None else out


_registry._CONTROLLED_INPUT_HOOK[:] = [_reads_after_controls]


# -- the Variable class --------------------------------------------------------------


@tf_export("Variable")
class Variable(metaclass=VariableMeta):
    """A TF1 variable: a value that persists across ``Session.run`` calls.

    >>> import dflow as tf
    >>> v = tf.Variable([1.0, 2.0], name="v")
    >>> with tf.Session() as sess:
    ...     sess.run(v.initializer)
    ...     sess.run(v.assign_add([1.0, 1.0]))
    array([2., 3.], dtype=float32)
    """

    def __init__(self, initial_value=None, trainable=None, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None, expected_shape=None,
                 import_scope=None, constraint=None, use_resource=None, synchronization=None, aggregation=None,
                 shape=None, container="", shared_name=None):
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            variable_defs.bind_from_def(self, variable_def, import_scope)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if trainable is None:
            trainable = True
        from_fn = callable(initial_value)
        graph = get_default_graph()
        # TF1 builds a variable in an init_scope: no control dependencies of the caller's.
        with control_dependencies(None), name_scope(name, "Variable", [] if from_fn else [initial_value]) as scope:
            if from_fn:
                with name_scope("Initializer"):
                    initial_value = initial_value()
            self._initial_value = convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
            value_shape = self._initial_value.shape
            if shape is not None:
                value_shape = as_shape(shape)
            elif not validate_shape:
                value_shape = TensorShape(None)
            if validate_shape and not value_shape.is_fully_defined():
                raise ValueError(f"initial_value must have a shape specified: {self._initial_value}")
            self._variable = apply_op(
                "VariableV2", [], {"shape": value_shape, "dtype": self._initial_value.dtype,
                                   "container": container, "shared_name": shared_name or ""}, name=scope).outputs[0]
            var_op = self._variable.op
            self._initializer_op = _update_op("Assign", var_op, [self._initial_value],
                                              {"validate_shape": validate_shape}, "Assign").op
            with colocate_with(var_op):
                self._snapshot = apply_op("Identity", [self._variable], name="read").outputs[0]
        if use_resource or (use_resource is None and mode.resource_variables_enabled()):
            _resource_variables(graph).add(var_op)
        self._trainable = trainable
        self._constraint = constraint
        self._save_slice_info = None
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        collections = list(collections)
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        graph.add_to_collections(collections, self)

    @classmethod
    def _from_graph(cls, var_op: Operation, initializer_op: Operation, snapshot: Tensor, initial_value: Tensor,
                    trainable: bool) -> Variable:
        """A Variable over ops that already exist (an imported meta graph); adds no ops and
        joins no collections (the importer restores those)."""
        self = cls.__new__(cls)
        self._bind_ops(var_op, initializer_op, snapshot, initial_value, trainable)
        return self

    def _bind_ops(self, var_op: Operation, initializer_op: Operation, snapshot: Tensor, initial_value: Tensor,
                  trainable: bool) -> None:
        if var_op.type != "VariableV2":
            raise TypeError(f"Variable._from_graph needs a VariableV2 op, got {var_op.name} ({var_op.type})")
        self._variable = var_op.outputs[0]
        self._initializer_op = initializer_op
        self._snapshot = snapshot
        self._initial_value = initial_value
        self._trainable = bool(trainable)
        self._constraint = None
        self._save_slice_info = None

    def to_proto(self, export_scope=None):
        """This variable's ``VariableDef`` (TF1's names of its ops); None when it is outside
        ``export_scope`` (``dflow/ops/state/variable_defs.py``)."""
        return variable_defs.variable_def(self, export_scope)

    @staticmethod
    def from_proto(variable_def, import_scope=None):
        # Not through the variable creators: TF's from_proto builds its RefVariable directly.
        return type.__call__(Variable, variable_def=variable_def, import_scope=import_scope)

    # -- identity ---------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._variable.name

    @property
    def op(self) -> Operation:
        return self._variable.op

    @property
    def graph(self):
        return self._variable.graph

    @property
    def device(self) -> str:
        return self._variable.device

    @property
    def dtype(self):
        return self._variable.dtype

    @property
    def shape(self) -> TensorShape:
        return self._variable.shape

    def get_shape(self) -> TensorShape:
        return self._variable.shape

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def constraint(self):
        return self._constraint

    @property
    def initializer(self) -> Operation:
        return self._initializer_op

    @property
    def initial_value(self) -> Tensor:
        return self._initial_value

    def _as_graph_element(self) -> Tensor:
        return self._variable

    def _gradient_tensor(self) -> Tensor:
        return self._variable

    def _ref(self) -> Tensor:
        return self._variable

    def value(self) -> Tensor:
        return self._value_here()

    def _value_here(self) -> Tensor:
        """The snapshot, or for a resource variable inside a block whose controls update it, a fresh read."""
        graph = self._variable._op._graph
        if graph._control_stack and self.op in _resource_variables(graph) and self.op in _updated_under_controls(graph):
            return _fresh_read(self.op)
        return self._snapshot

    def read_value(self) -> Tensor:
        """A fresh read of the variable (an Identity op named ``read``)."""
        with name_scope("Read"):
            return _update_op("_ReadVariable", self.op, [self._variable], {}, "read")

    def initialized_value(self) -> Tensor:
        """The value if initialized, else the initial value (for initializing other variables)."""
        with control_dependencies(None):
            return _update_op("_VariableInitializedValue", self.op, [self._initial_value], {}, "initialized_value")

    def eval(self, session=None):
        return self._variable.eval(session=session)

    def load(self, value, session=None) -> None:
        """Writes ``value`` into the variable without adding ops to the graph."""
        from dflow.framework.graph import get_default_session

        session = session or get_default_session()
        if session is None:
            raise ValueError("Either session argument should be provided or default session should be established")
        session.run(self._initializer_op, {self._initial_value: value})

    # -- updates ------------------------------------------------------------------------
    def assign(self, value, use_locking=None, name=None, read_value=True):
        return assign(self, value, name=name)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return assign_add(self, delta, name=name)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return assign_sub(self, delta, name=name)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        return scatter_update(self, sparse_delta.indices, sparse_delta.values, name=name)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        return scatter_add(self, sparse_delta.indices, sparse_delta.values, name=name)

    def _set_save_slice_info(self, save_slice_info) -> None:
        self._save_slice_info = save_slice_info

    def _get_save_slice_info(self):
        return self._save_slice_info

    def set_shape(self, shape) -> None:
        self._variable.set_shape(shape)
        self._snapshot.set_shape(shape)

    def __repr__(self):
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}_ref>"

    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other

    def __bool__(self):
        raise TypeError("Using a `tf.Variable` as a Python `bool` is not allowed; run it in a session.")

    def __iter__(self):
        raise TypeError(f"Variable {self.name} is not iterable; use tf.unstack on its value.")


VariableMeta.root = Variable  # the class whose instances go through the variable creators


def _delegate(dunder):
    def method(self, *args):
        return getattr(self._value_here(), dunder)(*args)

    method.__name__ = dunder
    return method


for _dunder in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
                "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__",
                "__rmatmul__", "__neg__", "__abs__", "__invert__", "__and__", "__rand__", "__or__", "__ror__",
                "__xor__", "__rxor__", "__lt__", "__le__", "__gt__", "__ge__", "__getitem__"):
    setattr(Variable, _dunder, _delegate(_dunder))
Variable.__array_priority__ = 100


def _variable_to_tensor(v, dtype=None, name=None, as_ref=False):
    t = v._variable if as_ref else v._value_here()
    if dtype is not None and dtypes.as_dtype(dtype) is not t.dtype:
        raise ValueError(f"Incompatible type conversion requested to type '{dtypes.as_dtype(dtype).name}' for "
                         f"variable of type '{t.dtype.name}'")
    return t


register_tensor_conversion_function(Variable, _variable_to_tensor)


# -- module-level update functions ---------------------------------------------------


def _var_op(ref, what: str) -> Operation:
    if isinstance(ref, Variable):
        return ref.op
    if isinstance(ref, Tensor) and ref.op.type == "VariableV2":
        return ref.op
    raise TypeError(f"{what} needs a tf.Variable as its first argument (ref), got {ref!r}")


def _dtype_of(var_op: Operation):
    return var_op._attrs["dtype"]


@tf_export("assign")
def assign(ref, value, validate_shape=None, use_locking=None, name=None) -> Tensor:
    """Writes ``value`` into variable ``ref``; returns the new value."""
    var_op = _var_op(ref, "tf.assign")
    value = convert_to_tensor(value, dtype=_dtype_of(var_op))
    with name_scope(name, "Assign", [value]) as scope:
        return _update_op("Assign", var_op, [value], {"validate_shape": validate_shape is not False}, scope)


@tf_export("assign_add")
def assign_add(ref, value, use_locking=None, name=None) -> Tensor:
    """Adds ``value`` to variable ``ref`` atomically; returns the new value."""
    var_op = _var_op(ref, "tf.assign_add")
    value = convert_to_tensor(value, dtype=_dtype_of(var_op))
    with name_scope(name, "AssignAdd", [value]) as scope:
        return _update_op("AssignAdd", var_op, [value], {}, scope)


@tf_export("assign_sub")
def assign_sub(ref, value, use_locking=None, name=None) -> Tensor:
    """Subtracts ``value`` from variable ``ref`` atomically; returns the new value."""
    var_op = _var_op(ref, "tf.assign_sub")
    value = convert_to_tensor(value, dtype=_dtype_of(var_op))
    with name_scope(name, "AssignSub", [value]) as scope:
        return _update_op("AssignSub", var_op, [value], {}, scope)


def _scatter_fn(op_type: str, public: str):
    def fn(ref, indices, updates, use_locking=True, name=None) -> Tensor:
        var_op = _var_op(ref, f"tf.{public}")
        indices = convert_to_tensor(indices)
        updates = convert_to_tensor(updates, dtype=_dtype_of(var_op))
        with name_scope(name, op_type, [indices, updates]) as scope:
            return _update_op(op_type, var_op, [indices, updates], {}, scope)

    fn.__name__ = public
    fn.__doc__ = f"``{public}(ref, indices, updates)``: sparse update of the rows ``indices`` of a variable."
    return tf_export(public)(fn)


scatter_update = _scatter_fn("ScatterUpdate", "scatter_update")
scatter_add = _scatter_fn("ScatterAdd", "scatter_add")
scatter_sub = _scatter_fn("ScatterSub", "scatter_sub")
scatter_mul = _scatter_fn("ScatterMul", "scatter_mul")


# -- collections and initialization ------------------------------------------------


@tf_export("global_variables", "all_variables")
def global_variables(scope=None) -> list:
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


@tf_export("trainable_variables")
def trainable_variables(scope=None) -> list:
    return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


@tf_export("local_variables")
def local_variables(scope=None) -> list:
    return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


@tf_export("model_variables")
def model_variables(scope=None) -> list:
    return get_default_graph().get_collection(GraphKeys.MODEL_VARIABLES, scope)


@tf_export("moving_average_variables")
def moving_average_variables(scope=None) -> list:
    return get_default_graph().get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


@tf_export("variables_initializer", "initialize_variables")
def variables_initializer(var_list, name="init") -> Operation:
    """An op that runs the initializers of ``var_list``."""
    from dflow.ops.control_flow.control_flow_ops import group, no_op

    if var_list:
        return group(*[v.initializer for v in var_list], name=name)
    return no_op(name=name)


@tf_export("global_variables_initializer", "initialize_all_variables")
def global_variables_initializer() -> Operation:
    return variables_initializer(global_variables())


@tf_export("local_variables_initializer", "initialize_local_variables")
def local_variables_initializer() -> Operation:
    return variables_initializer(local_variables())


@tf_export("is_variable_initialized")
def is_variable_initialized(variable) -> Tensor:
    """A bool tensor: has ``variable`` been initialized in this session?"""
    var_op = variable if isinstance(variable, Operation) else _var_op(variable, "tf.is_variable_initialized")
    return _update_op("IsVariableInitialized", var_op, [], {}, "IsVariableInitialized")


@tf_export("report_uninitialized_variables")
def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables") -> Tensor:
    """A 1-D string tensor with the names of the uninitialized variables of ``var_list``.

    Each variable is checked by an op colocated with it (on a cluster, on the
    worker that holds it), as TF1 does.
    """
    from dflow.framework.constant_op import constant
    from dflow.ops.array import array_ops
    from dflow.ops.math import math_ops

    if var_list is None:
        var_list = global_variables() + local_variables()
    var_ops = [_var_op(v, "tf.report_uninitialized_variables") for v in var_list]
    with control_dependencies(None), name_scope(name) as scope:
        if not var_ops:
            return constant(np.zeros(0, dtype=object), dtype=dtypes.string, name=scope)
        initialized = array_ops.stack([is_variable_initialized(op) for op in var_ops])
        names = constant([op.name for op in var_ops], dtype=dtypes.string)
        return array_ops.boolean_mask(names, math_ops.logical_not(initialized), name=scope)


tensor_util.register_tensor_like_type(Variable)  # tf.is_tensor(v) is True, as in TF
