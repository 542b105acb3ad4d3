"""``tf.variable_scope`` and ``tf.get_variable``: variables shared by name.

Each graph has a variable store (full name → Variable) and a stack of
``VariableScope``s. ``get_variable("w")`` inside ``variable_scope("layer")``
names the variable ``layer/w`` whatever the current name scope; with
``reuse=True`` it must already exist, with ``reuse=False`` it must not, and
with ``tf.AUTO_REUSE`` either. Opening a variable scope also opens a name
scope of the same name (uniquified on re-entry: ``layer_1/``), as in TF1.
"""

from __future__ import annotations

import contextlib
import enum
import functools

from dflow._api import export_value, tf_export
from dflow.framework import dtypes, mode
from dflow.framework.graph import GraphKeys, _graph_of, control_dependencies, get_default_graph, name_scope
from dflow.framework.tensor_shape import TensorShape, as_shape


class _ReuseMode(enum.Enum):
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE
export_value("AUTO_REUSE", AUTO_REUSE)


@tf_export("VariableScope")
class VariableScope:
    """The defaults (reuse, initializer, regularizer, dtype) of a variable scope."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None, caching_device=None, partitioner=None,
                 custom_getter=None, name_scope="", dtype=dtypes.float32, use_resource=None, constraint=None):
        self._name = name
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtypes.as_dtype(dtype)
        self._use_resource = use_resource
        self._constraint = constraint

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    regularizer = property(lambda self: self._regularizer)
    dtype = property(lambda self: self._dtype)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    constraint = property(lambda self: self._constraint)
    use_resource = property(lambda self: self._use_resource)

    def reuse_variables(self) -> None:
        """Turns reuse on for this scope (and the scopes opened inside it)."""
        self._reuse = True

    def set_initializer(self, initializer) -> None:
        self._initializer = initializer

    def set_regularizer(self, regularizer) -> None:
        self._regularizer = regularizer

    def set_dtype(self, dtype) -> None:
        self._dtype = dtypes.as_dtype(dtype)

    def set_caching_device(self, caching_device) -> None:
        self._caching_device = caching_device

    def set_partitioner(self, partitioner) -> None:
        self._partitioner = partitioner

    def get_variable(self, name, shape=None, dtype=None, initializer=None, regularizer=None, reuse=None,
                     trainable=None, collections=None, caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None, **kwargs):
        if name is None:  # create_partitioned_variables: the variable is the scope itself
            full_name = self._name
        else:
            full_name = f"{self._name}/{name}" if self._name else name
        if reuse is None or reuse is False:
            reuse = self._reuse if reuse is None else reuse
        if self._reuse is True or self._reuse is AUTO_REUSE:
            reuse = self._reuse
        getter = _store().get_variable
        custom = custom_getter or self._custom_getter
        kw = dict(shape=shape, dtype=dtypes.as_dtype(dtype) if dtype is not None else self._dtype,
                  initializer=initializer if initializer is not None else self._initializer,
                  regularizer=regularizer if regularizer is not None else self._regularizer,
                  reuse=reuse, trainable=trainable, collections=collections, validate_shape=validate_shape,
                  constraint=constraint if constraint is not None else self._constraint,
                  use_resource=use_resource if use_resource is not None else self._use_resource,
                  partitioner=partitioner if partitioner is not None else self._partitioner)
        # Variable names depend on the variable scope only, not on the current name scope.
        with name_scope(None):
            if custom is not None:
                return custom(getter, full_name, **kw, **kwargs)
            return getter(full_name, **kw)

    def get_partitioned_variable(self, name=None, shape=None, dtype=None, initializer=None, regularizer=None,
                                 reuse=None, trainable=None, collections=None, partitioner=None, **kwargs):
        """``get_variable`` that always returns a ``PartitionedVariable`` (``partitioner`` or the scope's)."""
        partitioner = partitioner if partitioner is not None else self._partitioner
        if partitioner is None:
            raise ValueError("No partitioner was specified")
        return self.get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                                 reuse=reuse, trainable=trainable, collections=collections, partitioner=partitioner,
                                 **kwargs)


class _VariableStore:
    """The variables ``get_variable`` created in one graph, by full name."""

    def __init__(self):
        self.vars: dict = {}
        self.partitioned: dict = {}  # full name -> PartitionedVariable
        self.scope_counts: dict = {}

    def get_variable(self, name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None,
                     reuse=None, trainable=None, collections=None, validate_shape=True, constraint=None,
                     use_resource=None, partitioner=None, partition_info=None, **_):
        from dflow.framework.graph import Tensor
        from dflow.ops.state.variables import Variable

        dtype = dtypes.as_dtype(dtype)
        is_scalar = isinstance(shape, (list, tuple)) and not shape
        if partitioner is not None and not is_scalar:
            return self._get_partitioned_variable(
                name, shape, dtype, initializer, regularizer, reuse, trainable, collections, validate_shape,
                constraint, use_resource, partitioner)
        if name in self.partitioned and reuse is True:
            # TF1 lets a reusing scope fetch a partitioned variable without naming its partitioner.
            return self._get_partitioned_variable(
                name, shape, dtype, initializer, regularizer, reuse, trainable, collections, validate_shape,
                constraint, use_resource, None)
        shape = TensorShape(None) if shape is None else as_shape(shape)
        if name in self.partitioned:
            raise ValueError(f"No partitioner was provided, but a partitioned version of the variable was found: "
                             f"{name}/part_0. Perhaps a variable of the same name was already created with "
                             f"partitioning?")
        if name in self.vars:
            if reuse is not True and reuse is not AUTO_REUSE:
                v = self.vars[name]
                raise ValueError(f"Variable {name} already exists, disallowed. Did you mean to set reuse=True or "
                                 f"reuse=tf.AUTO_REUSE in VarScope? Originally defined at: {v.op.created_at()}")
            v = self.vars[name]
            if shape.ndims is not None and not shape.is_compatible_with(v.shape):
                raise ValueError(f"Trying to share variable {name}, but specified shape {shape} and found shape "
                                 f"{v.shape}.")
            if dtype is not v.dtype:
                raise ValueError(f"Trying to share variable {name}, but specified dtype {dtype.name} and found "
                                 f"dtype {v.dtype.name}.")
            return v
        if reuse is True:
            raise ValueError(f"Variable {name} does not exist, or was not created with tf.get_variable(). Did you "
                             f"mean to set reuse=tf.AUTO_REUSE in VarScope?")
        if initializer is None:
            initializer = _default_initializer(name, dtype)
        elif isinstance(initializer, type):
            initializer = initializer()  # TF1 accepts an initializer class (tf.zeros_initializer)
        if isinstance(initializer, Tensor) or not callable(initializer):
            if shape.ndims is not None and isinstance(initializer, Tensor):
                raise ValueError("If initializer is a constant, do not specify shape.")
            initial_value, var_shape = initializer, None
        else:
            if not shape.is_fully_defined():
                raise ValueError(f"Shape of a new variable ({name}) must be fully defined, but instead was {shape}.")
            # As TF: a partial of the initializer, and the shape, are what a variable creator
            # (tf.variable_creator_scope) sees; a value initializer comes with shape None.
            initial_value = functools.partial(initializer, shape.as_list(), dtype=dtype, partition_info=partition_info)
            var_shape = shape

        graph = _outermost_graph()
        with graph.as_default(), name_scope(None), control_dependencies(None):
            # What a creator returns is what the store keeps and hands out on reuse, as in TF.
            v = Variable(initial_value=initial_value, trainable=True if trainable is None else trainable,
                         collections=collections, validate_shape=validate_shape, name=name,
                         dtype=dtype if not isinstance(initial_value, Tensor) else None, constraint=constraint,
                         use_resource=mode.resource_variables_enabled() if use_resource is None else use_resource,
                         shape=var_shape)
            self.vars[name] = v
            if regularizer is not None:
                with name_scope(f"{name}/Regularizer/"):
                    loss = regularizer(v)
                if loss is not None:
                    graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return v

    def _get_partitioned_variable(self, name, shape, dtype, initializer, regularizer, reuse, trainable, collections,
                                  validate_shape, constraint, use_resource, partitioner):
        from dflow.framework.constant_op import convert_to_tensor
        from dflow.framework.graph import Tensor
        from dflow.ops.array.array_ops import slice as slice_
        from dflow.ops.state import partitioned_variables as pv

        if isinstance(initializer, type):
            initializer = initializer()
        given_value = initializer is not None and (isinstance(initializer, Tensor) or not callable(initializer))
        if given_value:
            initializer = convert_to_tensor(initializer, dtype=dtype)
            if shape is not None:
                raise ValueError("If initializer is a constant, do not specify shape.")
            shape = initializer.shape
        shape = TensorShape(None) if shape is None else as_shape(shape)
        if name in self.partitioned:
            existing = self.partitioned[name]
            if reuse is not True and reuse is not AUTO_REUSE:
                raise ValueError(f"Partitioned variable with name {name} already exists. Did you mean to set "
                                 f"reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
            if not shape.is_compatible_with(existing.shape):
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified shape {shape} and "
                                 f"found shape {existing.shape}.")
            if dtype is not existing.dtype:
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified dtype {dtype.name} "
                                 f"and found dtype {existing.dtype.name}.")
            partitions = None if partitioner is None else list(partitioner(shape=existing.shape, dtype=dtype))
            if partitions is not None and partitions != existing._get_partitions():
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified partitions "
                                 f"{partitions} and found partitions {existing._get_partitions()}.")
            return existing
        if reuse is True:
            raise ValueError(f"PartitionedVariable {name} does not exist, or was not created with "
                             f"tf.get_variable(). Did you mean to set reuse=False or reuse=tf.AUTO_REUSE in "
                             f"VarScope?")
        if name in self.vars:
            raise ValueError(f"A partitioner was provided, but an unpartitioned version of the variable was found: "
                             f"{name}. Perhaps a variable of the same name was already created without "
                             f"partitioning?")
        if not shape.is_fully_defined():
            raise ValueError(f"Shape of a new partitioned variable ({name}) must be fully defined, but instead was "
                             f"{shape}.")
        partitions = list(partitioner(shape=shape, dtype=dtype))
        layout = pv.slice_layout(name, shape, partitions)
        parts = []
        for i, (offset, part_shape) in enumerate(layout):
            part_name = f"{name}/part_{i}"
            if part_name in self.vars:
                raise ValueError(f"Variable {part_name} already exists, disallowed. Did you mean to set reuse=True "
                                 f"or reuse=tf.AUTO_REUSE in VarScope?")
            with name_scope(part_name + "/PartitionedInitializer/") if given_value else contextlib.nullcontext():
                init = slice_(initializer, offset, part_shape) if given_value else initializer
            v = self.get_variable(part_name, shape=None if given_value else part_shape, dtype=dtype,
                                  initializer=init, regularizer=regularizer, reuse=False, trainable=trainable,
                                  collections=collections, validate_shape=validate_shape, constraint=constraint,
                                  use_resource=use_resource,
                                  partition_info=pv._PartitionInfo(shape.as_list(), offset))
            v._save_slice_info = pv.SaveSliceInfo(name, shape.as_list(), offset, part_shape)
            parts.append(v)
        result = pv.PartitionedVariable(name, shape, dtype, parts, partitions)
        self.partitioned[name] = result
        return result


def _default_initializer(name, dtype):
    from dflow.ops.state import init_ops

    if dtype.is_floating:
        return init_ops.glorot_uniform_initializer()
    if dtype.is_integer or dtype.is_bool or dtype is dtypes.string:
        return init_ops.zeros_initializer()
    raise ValueError(f"An initializer for variable {name} of {dtype.name} is required")


def _outermost_graph(graph=None):
    """The graph that holds variables: a loop body or cond branch (a FuncGraph) creates
    and scopes its variables in the graph enclosing it, as TF's ``init_scope`` does."""
    graph = graph if graph is not None else get_default_graph()
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph
    return graph


def _store() -> _VariableStore:
    att = _outermost_graph()._attachments
    store = att.get("variable_store")
    if store is None:
        store = att["variable_store"] = _VariableStore()
    return store


def _scope_stack() -> list:
    att = _outermost_graph()._attachments
    stack = att.get("variable_scope_stack")
    if stack is None:
        stack = att["variable_scope_stack"] = [VariableScope(False)]
    return stack


@tf_export("get_variable_scope")
def get_variable_scope() -> VariableScope:
    """The current variable scope of the default graph."""
    return _scope_stack()[-1]


@tf_export("get_variable")
def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None, collections=None,
                 caching_device=None, partitioner=None, validate_shape=True, use_resource=None, custom_getter=None,
                 constraint=None, **kwargs):
    """Gets an existing variable of this scope, or creates a new one (see ``variable_scope``)."""
    return get_variable_scope().get_variable(
        name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer, trainable=trainable,
        collections=collections, caching_device=caching_device, partitioner=partitioner,
        validate_shape=validate_shape, use_resource=use_resource, custom_getter=custom_getter, constraint=constraint,
        **kwargs)


@tf_export("get_local_variable")
def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=False,
                       collections=None, **kwargs):
    """``get_variable`` for a non-trainable variable in LOCAL_VARIABLES."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                        trainable=trainable, collections=collections, **kwargs)


@tf_export("variable_scope")
@contextlib.contextmanager
def variable_scope(name_or_scope=None, default_name=None, values=None, initializer=None, regularizer=None,
                   caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                   use_resource=None, constraint=None, auxiliary_name_scope=True):
    """Opens a variable scope (and a name scope of the same name).

    >>> import dflow as tf
    >>> with tf.variable_scope("layer"):
    ...     w = tf.get_variable("w", [2])
    >>> with tf.variable_scope("layer", reuse=True):
    ...     tf.get_variable("w") is w
    True
    """
    if name_or_scope is None and default_name is None:
        raise TypeError("If default_name is None then name_or_scope is required")
    if reuse is False:
        reuse = None  # False does not switch off reuse inherited from a parent scope (TF1)
    graph = _graph_of(values) if values else get_default_graph()
    with graph.as_default():
        stack = _scope_stack()
        parent = stack[-1]
        counts = _store().scope_counts
        if isinstance(name_or_scope, VariableScope):
            base = name_or_scope
            full_name = base.name
            # TF1 opens a new name scope after the scope's last component: "scale" again is "scale_1/".
            ns_name = base.name.split("/")[-1]
        else:
            if name_or_scope is None:
                prefix = f"{parent.name}/{default_name}" if parent.name else default_name
                short = default_name
                if counts.get(prefix, 0):
                    idx = 1
                    while counts.get(f"{prefix}_{idx}", 0):
                        idx += 1
                    short = f"{default_name}_{idx}"
            else:
                short = name_or_scope
            base = parent
            full_name = f"{parent.name}/{short}" if parent.name else short
            # With a default name, TF1 uniquifies the name scope by itself: the variable scope
            # "scale_1" may sit in name scope "scale_2/" when other "scale" name scopes exist.
            ns_name = short if name_or_scope is not None else default_name
        counts[full_name] = counts.get(full_name, 0) + 1
        # As TF1: leaving a named scope forgets the default names used inside it (so "rnn" entered
        # again names a new cell "rnn/basic_lstm_cell" again); leaving a scope object restores them.
        saved_counts = dict(counts) if isinstance(name_or_scope, VariableScope) else None
        new_reuse = reuse if reuse is not None else (base.reuse if isinstance(name_or_scope, VariableScope)
                                                     else parent.reuse)
        if parent.reuse is True and new_reuse is not AUTO_REUSE:
            new_reuse = True
        if auxiliary_name_scope and ns_name:
            ns_ctx = name_scope(ns_name)
        else:  # TF1 keeps the current name scope (the root scope re-entered opens none)
            ns_ctx = contextlib.nullcontext(get_default_graph().get_name_scope())
        with ns_ctx as ns:
            scope = VariableScope(
                new_reuse, name=full_name,
                initializer=initializer if initializer is not None else base.initializer,
                regularizer=regularizer if regularizer is not None else base.regularizer,
                caching_device=caching_device or base.caching_device, partitioner=partitioner or base.partitioner,
                custom_getter=custom_getter or base.custom_getter,
                # A scope object entered again keeps its original name scope, whatever name scope it opens.
                name_scope=(name_or_scope.original_name_scope if isinstance(name_or_scope, VariableScope)
                            else ns if ns.endswith("/") or not ns else f"{ns}/"),
                dtype=dtype if dtype is not None else base.dtype,
                use_resource=use_resource if use_resource is not None else base.use_resource,
                constraint=constraint if constraint is not None else base.constraint)
            stack.append(scope)
            try:
                yield scope
            finally:
                stack.pop()
                if saved_counts is not None:
                    counts.clear()
                    counts.update(saved_counts)
                else:
                    inner = full_name + "/"
                    for k in counts:
                        if k.startswith(inner):
                            counts[k] = 0


@tf_export("variable_op_scope")
def variable_op_scope(values, name_or_scope, default_name=None, **kwargs):
    """Deprecated TF1 spelling of ``variable_scope(name_or_scope, default_name, values)``."""
    return variable_scope(name_or_scope, default_name=default_name, values=values, **kwargs)


@tf_export("no_regularizer")
def no_regularizer(_):
    """A regularizer that adds no loss (to switch off a scope's regularizer)."""
    return None


from dflow.ops.state import init_ops as _init_ops  # noqa: E402, F401 - registers tf.*_initializer
