"""The graph IR: ``Graph`` (its elements, ``Operation`` and ``Tensor``, live in
``tensor.py``), and the per-thread default graph and session.

A ``Graph`` is a list of ``Operation`` nodes in creation order.

The graph owns naming (unique names, name scopes), the device stack, the
control-dependency stack and collections. It runs nothing: sessions do.
"""

from __future__ import annotations

import contextlib
import re
import threading

from dflow.framework.device_spec import DeviceSpec, merge_device
from dflow.framework.tensor import NodeDef, Operation, Tensor, _as_operation, _user_frames  # noqa: F401

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\-/>]*$")


class GraphKeys:
    """Standard collection names, as ``tf.GraphKeys``."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"


class _ControlDependencies:
    """One ``control_dependencies`` block: its ops, and ops created inside it."""

    __slots__ = ("control_inputs", "seen", "memo")

    def __init__(self, control_inputs):
        self.control_inputs = control_inputs
        self.seen = set()
        self.memo = {}  # facts about the block that layers above compute once (the variables it updates)


class Graph:
    """A TF1 dataflow graph: operations, naming, devices and collections.

    >>> import dflow as tf
    >>> g = tf.Graph()
    >>> with g.as_default():
    ...     c = tf.constant(1.0)
    >>> c.graph is g
    True
    """

    def __init__(self):
        self._ops = []
        self._ops_by_name = {}
        self._names_in_use = {}
        self._name_stack = ""
        self._device_stack = []
        self._colocation_stack = []
        self._control_stack = []
        self._collections = {}
        self._finalized = False
        self._seed = None
        self._version = 0
        self._structure_version = 0
        self._unfeedable = set()
        self._unfetchable = set()
        self._lock = threading.RLock()
        self._gradient_override_map = {}
        # Per-graph attachments of other layers (variable stores, ...).
        self._attachments = {}

    # -- basic access --------------------------------------------------------
    @property
    def version(self) -> int:
        return self._version

    def _version_of_structure(self) -> int:
        """Changes when an existing op gains a control input (plans must be rebuilt)."""
        return self._structure_version

    @property
    def finalized(self) -> bool:
        return self._finalized

    @property
    def seed(self):
        return self._seed

    @seed.setter
    def seed(self, seed) -> None:
        self._seed = seed

    @property
    def building_function(self) -> bool:
        return False

    @property
    def _last_id(self) -> int:
        return len(self._ops)

    def finalize(self) -> None:
        """Makes the graph read-only: creating an op afterwards raises RuntimeError."""
        self._finalized = True

    def _unsafe_unfinalize(self) -> None:
        self._finalized = False

    def get_operations(self) -> list:
        return list(self._ops)

    def as_graph_def(self, from_version=None, add_shapes: bool = False):
        """A serializable description of this graph: a ``GraphDef`` (JSON; see ``graph_io``)."""
        from dflow.framework import graph_io

        return graph_io.as_graph_def(self)

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name: str) -> Tensor:
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj, allow_tensor: bool = True, allow_operation: bool = True):
        """Resolves a Tensor, Operation or name to an element of this graph."""
        if allow_tensor and allow_operation:
            types_str = "Tensor or Operation"
        elif allow_tensor:
            types_str = "Tensor"
        else:
            types_str = "Operation"
        conv = getattr(obj, "_as_graph_element", None)
        if conv is not None and callable(conv):
            obj = conv()
        if isinstance(obj, str):
            if ":" in obj and allow_tensor:
                op_name, _, out = obj.rpartition(":")
                try:
                    out_n = int(out)
                except ValueError:
                    raise ValueError(f"The name {obj!r} looks a like a Tensor name, but is not a valid one. "
                                     f"Tensor names must be of the form \"<op_name>:<output_index>\".") from None
                op = self._ops_by_name.get(op_name)
                if op is None:
                    raise KeyError(f"The name {obj!r} refers to a Tensor which does not exist. "
                                   f"The operation, {op_name!r}, does not exist in this graph.")
                if out_n >= len(op._outputs):
                    raise KeyError(f"The name {obj!r} refers to a Tensor which does not exist. The operation, "
                                   f"{op_name!r}, exists but only has {len(op._outputs)} outputs.")
                return op._outputs[out_n]
            if ":" in obj:
                raise ValueError(f"Name {obj!r} appears to refer to a Tensor, not a {types_str}.")
            op = self._ops_by_name.get(obj)
            if op is None:
                raise KeyError(f"The name {obj!r} refers to an Operation not in the graph.")
            if not allow_operation:
                raise ValueError(f"The name {obj!r} refers to an Operation, not a {types_str}. Tensor names "
                                 f"must be of the form \"<op_name>:<output_index>\".")
            return op
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj!r} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {types_str}.")

    # -- op creation -----------------------------------------------------------
    def _create_op(self, op_type: str, inputs, attrs: dict, name: str, opdef, infer) -> Operation:
        """Creates, infers and registers an op (used by ``dflow.framework.op_registry.apply_op``)."""
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        for t in inputs:
            if t._op._graph is not self:
                raise ValueError(f"{t} must be from the same graph as the other inputs of {op_type} "
                                 f"(it belongs to another tf.Graph).")
        if attrs.get("container") == "" and getattr(self, "_container", ""):
            attrs = {**attrs, "container": self._container}  # tf.container: stateful ops without their own
        with self._lock:
            if name.endswith("/"):
                # A name scope string names the op exactly (TF1's ``name=scope``).
                name = name[:-1]
                if name in self._ops_by_name:
                    raise ValueError(f"Duplicate node name in graph: '{name}'")
                self._names_in_use.setdefault(name.lower(), 1)
            else:
                name = self.unique_name(name)
            op = Operation(self, op_type, name, inputs, attrs, opdef)
            if self._gradient_override_map:
                op._gradient_type = self._gradient_override_map.get(op_type)
            specs = infer(op)
            op._outputs = tuple(Tensor(op, i, dt, shp) for i, (dt, shp) in enumerate(specs))
            self._apply_control_dependencies(op)
            self._apply_device_and_colocation(op)
            op._traceback = _user_frames()
            op._id = len(self._ops)
            self._ops.append(op)
            self._ops_by_name[name] = op
            for t in op._inputs:
                t._consumers.append(op)
            self._version += 1
        # Op-creation observers of this thread (a recording tf.GradientTape, a tf.function trace).
        observers = getattr(_local, "op_observers", None)
        if observers:
            for observe in list(observers):
                observe(op)
        return op

    def _apply_control_dependencies(self, op: Operation) -> None:
        if not self._control_stack:
            return
        input_ids = {t._op._id for t in op._inputs}
        data_ops = {t._op for t in op._inputs}
        for block in self._control_stack:
            if not (input_ids & block.seen):
                for c in block.control_inputs:
                    if c not in data_ops and c not in op._control_inputs:
                        op._control_inputs.append(c)
        # The op gets its id when registered; record the next id as seen.
        next_id = len(self._ops)
        for block in self._control_stack:
            block.seen.add(next_id)

    def _apply_device_and_colocation(self, op: Operation) -> None:
        if self._colocation_stack:
            target = self._colocation_stack[-1]
            op._colocation_groups = target._colocation_groups or (target._name,)
            op._device = target._device
            return
        device = ""
        for item in reversed(self._device_stack):
            if item is None:
                break
            if callable(item):
                op._device = device
                result = item(op)
                device = result.to_string() if isinstance(result, DeviceSpec) else (result or "")
            else:
                device = merge_device(device, item)
        op._device = device

    # -- naming ------------------------------------------------------------------
    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """TF1's uniquifying: ``Add``, ``Add_1``, ...; scoped by the name stack."""
        if self._name_stack:
            name = f"{self._name_stack}/{name}"
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = key
            while key in self._names_in_use:
                key = f"{base}_{i}"
                i += 1
            if mark_as_used:
                self._names_in_use[key] = 1
            name = f"{name}_{i - 1}"
        return name

    def get_name_scope(self) -> str:
        return self._name_stack

    @contextlib.contextmanager
    def name_scope(self, name):
        """Opens a name scope; ``"scope/"`` re-enters, ``None`` or ``""`` resets to the root."""
        if name:
            if isinstance(name, Tensor) or not isinstance(name, str):
                raise TypeError(f"name_scope expects a string name, got {name!r}")
            if not _VALID_SCOPE_NAME.match(name):
                raise ValueError(f"'{name}' is not a valid scope name")
        old = self._name_stack
        if not name:
            new = ""
        elif name.endswith("/"):
            new = name[:-1]
        else:
            new = self.unique_name(name)
        self._name_stack = new
        try:
            yield f"{new}/" if new else ""
        finally:
            self._name_stack = old

    @contextlib.contextmanager
    def container(self, container_name: str):
        """Stateful ops created inside (variables, queues) get resource container ``container_name``."""
        old = getattr(self, "_container", "")
        self._container = container_name
        try:
            yield container_name
        finally:
            self._container = old

    def _check_op_name(self, name: str) -> None:
        if not _VALID_OP_NAME.match(name):
            raise ValueError(f"'{name}' is not a valid node name")

    # -- devices -----------------------------------------------------------------
    @contextlib.contextmanager
    def device(self, device_name_or_function):
        """Requests a device (string, DeviceSpec or function of the op) for new ops."""
        if device_name_or_function is None or callable(device_name_or_function):
            item = device_name_or_function
        elif isinstance(device_name_or_function, DeviceSpec):
            item = device_name_or_function.to_string()
        elif isinstance(device_name_or_function, str):
            item = DeviceSpec.from_string(device_name_or_function).to_string()
        else:
            raise TypeError(f"tf.device expects a device string, DeviceSpec or function, "
                            f"got {device_name_or_function!r}")
        self._device_stack.append(item)
        try:
            yield
        finally:
            self._device_stack.pop()

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing: bool = False):
        """Places ops created inside on the same device as ``op`` (or its tensor's op)."""
        if op is None:
            saved, self._colocation_stack = self._colocation_stack, []
            try:
                yield
            finally:
                self._colocation_stack = saved
            return
        op = _as_operation(op)
        saved_devices = None
        if ignore_existing:
            saved_devices, self._device_stack = self._device_stack, []
        self._colocation_stack.append(op)
        try:
            yield
        finally:
            self._colocation_stack.pop()
            if saved_devices is not None:
                self._device_stack = saved_devices

    # -- control dependencies ----------------------------------------------------
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside run only after ``control_inputs``; ``None`` clears."""
        if control_inputs is None:
            saved, self._control_stack = self._control_stack, []
            try:
                yield
            finally:
                self._control_stack = saved
            return
        ops = []
        for c in control_inputs:
            op = _as_operation(c)
            if op._graph is not self:
                raise ValueError(f"Control input {op.name} must be from the same graph as the ops it controls.")
            if op not in ops:
                ops.append(op)
        block = _ControlDependencies(ops)
        self._control_stack.append(block)
        try:
            yield
        finally:
            self._control_stack.remove(block)

    # -- collections -------------------------------------------------------------
    def add_to_collection(self, name: str, value) -> None:
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value) -> None:
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name: str) -> list:
        with self._lock:
            return self._collections.setdefault(name, [])

    def get_collection(self, name: str, scope: str | None = None) -> list:
        with self._lock:
            coll = self._collections.get(name, [])
            if scope is None:
                return list(coll)
            regex = re.compile(scope)
            return [item for item in coll if hasattr(item, "name") and regex.match(item.name)]

    def get_all_collection_keys(self) -> list:
        return [k for k, v in self._collections.items() if v]

    def clear_collection(self, name: str) -> None:
        self._collections.pop(name, None)

    # -- feeding and fetching ----------------------------------------------------
    def prevent_feeding(self, tensor: Tensor) -> None:
        self._unfeedable.add(tensor)

    def is_feedable(self, tensor: Tensor) -> bool:
        return tensor not in self._unfeedable

    def prevent_fetching(self, op: Operation) -> None:
        self._unfetchable.add(op)

    def is_fetchable(self, tensor_or_op) -> bool:
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op not in self._unfetchable

    # -- defaults ----------------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self):
        """Makes this the default graph of the current thread inside the block."""
        _graph_stack().append(self)
        try:
            yield self
        finally:
            _graph_stack().pop()

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: dict):
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    def __repr__(self):
        return f"<dflow.Graph with {len(self._ops)} ops at {id(self):#x}>"


# -- the default graph and default session, per thread ---------------------------

_global_default_graph = None
_local = threading.local()


def _graph_stack() -> list:
    stack = getattr(_local, "graphs", None)
    if stack is None:
        stack = _local.graphs = []
    return stack


def get_default_graph() -> Graph:
    """The innermost ``as_default`` graph of this thread, or the global one."""
    stack = _graph_stack()
    if stack:
        return stack[-1]
    global _global_default_graph
    if _global_default_graph is None:
        _global_default_graph = Graph()
    return _global_default_graph


def reset_default_graph() -> None:
    """Replaces the global default graph; raises inside a nested graph block."""
    if _graph_stack():
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If you need a "
                             "cleared graph, exit the nesting and create a new graph.")
    global _global_default_graph
    _global_default_graph = Graph()


def _session_stack() -> list:
    stack = getattr(_local, "sessions", None)
    if stack is None:
        stack = _local.sessions = []
    return stack


def op_observers() -> list:
    """This thread's op-creation observers: callables ``observe(op)`` that ``Graph._create_op`` calls
    with each op it creates, in any graph, after the op is registered. ``tf.GradientTape`` records
    the ops made while it is recording this way (TF's tape stack is per thread too); add and remove
    your own callable, never replace the list."""
    observers = getattr(_local, "op_observers", None)
    if observers is None:
        observers = _local.op_observers = []
    return observers


def get_default_session():
    """The innermost session entered with ``as_default`` (or ``with``), or None."""
    stack = _session_stack()
    return stack[-1] if stack else None


def _run_with_default_session(fetch, feed_dict, session, what: str):
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError(
                f"Cannot evaluate {what} using `{'eval' if what == 'tensor' else 'run'}()`: No default session "
                f"is registered. Use `with sess.as_default()` or pass an explicit session to "
                f"`{'eval' if what == 'tensor' else 'run'}(session=sess)`")
        if session.graph is not fetch.graph:
            raise ValueError(f"Cannot use the default session to evaluate {what}: the {what}'s graph is "
                             f"different from the session's graph. Pass an explicit session to "
                             f"`eval(session=sess)`.")
    elif session.graph is not fetch.graph:
        raise ValueError(f"Cannot use the given session to evaluate {what}: the {what}'s graph is different "
                         f"from the session's graph.")
    return session.run(fetch, feed_dict)


def name_scope(name, default_name=None, values=None):
    """``tf.name_scope(name, default_name=None, values=None)`` on the right graph."""
    if values:
        graph = _graph_of(values)
    else:
        graph = get_default_graph()
    n = name if name is not None else default_name
    if n is None and name is None and default_name is None:
        n = None
    return _graph_scope(graph, n)


def scope_prefix(scope) -> str:
    """``"scope/"`` for an import or export scope given as ``"scope"`` or ``"scope/"``; ``""`` for None."""
    return scope.rstrip("/") + "/" if scope else ""


def prepend_name_scope(name: str, import_scope) -> str:
    """``name`` under ``import_scope`` (TF's ``ops.prepend_name_scope``)."""
    return scope_prefix(import_scope) + name


def strip_name_scope(name: str, export_scope) -> str:
    """``name`` without the leading ``export_scope`` (TF's ``ops.strip_name_scope``); as it is when
    it is not under that scope."""
    prefix = scope_prefix(export_scope)
    return name[len(prefix):] if prefix and name.startswith(prefix) else name


@contextlib.contextmanager
def _graph_scope(graph: Graph, name):
    if graph is get_default_graph():
        with graph.name_scope(name) as scope:
            yield scope
    else:
        with graph.as_default(), graph.name_scope(name) as scope:
            yield scope


def _graph_of(values) -> Graph:
    """The graph that tensors in ``values`` share; ValueError if they differ."""
    default = get_default_graph()
    if default.building_function:
        # Inside a traced function (a cond branch, a loop body) ops go to the
        # function's graph, which captures the outer tensors they use.
        return default
    graph = None
    first = None
    for v in values:
        if isinstance(v, (Tensor, Operation)) or hasattr(v, "graph") and isinstance(v.graph, Graph):
            g = v.graph
            if graph is None:
                graph, first = g, v
            elif g is not graph:
                raise ValueError(f"{v} must be from the same graph as {first}.")
    return graph if graph is not None else get_default_graph()


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function):
    return get_default_graph().device(device_name_or_function)


def colocate_with(op, ignore_existing: bool = False):
    return get_default_graph().colocate_with(op, ignore_existing)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


def set_random_seed(seed) -> None:
    """Sets the graph-level random seed of the default graph."""
    get_default_graph().seed = seed
