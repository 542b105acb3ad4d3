"""TF1's ``VariableDef`` and ``SaveSliceInfoDef``: a variable by the names of its ops.

``Variable.to_proto`` writes one, ``Variable(variable_def=...)`` (``Variable.from_proto``)
finds the ops again in the default graph, under an import scope, and
``SaveSliceInfo.to_proto`` / ``SaveSliceInfo(save_slice_info_def=...)`` do the same for a part
of a partitioned variable. The records are plain Python objects with TF's field names (dflow
has no protobuf runtime); names are TF 2.15's (``v:0``, ``v/Assign``, ``v/read:0``,
``v/initial_value:0``).
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.graph import Tensor, get_default_graph, prepend_name_scope, scope_prefix, strip_name_scope


class _Record:
    """Equality and repr by fields (a protobuf message's)."""

    def __eq__(self, other):
        return type(other) is type(self) and vars(self) == vars(other)

    __hash__ = None

    def __repr__(self):
        return f"{type(self).__name__}({vars(self)})"


class SaveSliceInfoDef(_Record):
    """``full_name``, ``full_shape``, ``var_offset`` and ``var_shape`` of a variable that is a slice
    of a partitioned one."""

    def __init__(self, full_name: str = "", full_shape=(), var_offset=(), var_shape=()):
        self.full_name = full_name
        self.full_shape = [int(d) for d in full_shape]
        self.var_offset = [int(d) for d in var_offset]
        self.var_shape = [int(d) for d in var_shape]


@tf_export("core.framework.variable_pb2.VariableDef")
class VariableDef(_Record):
    """The names of a variable's tensor, initial value, initializer op and read snapshot, its
    ``SaveSliceInfoDef`` and ``trainable``."""

    def __init__(self, variable_name: str = "", initial_value_name: str = "", initializer_name: str = "",
                 snapshot_name: str = "", save_slice_info_def=None, is_resource: bool = False,
                 trainable: bool = False, synchronization: int = 0, aggregation: int = 0):
        self.variable_name = variable_name
        self.initial_value_name = initial_value_name
        self.initializer_name = initializer_name
        self.snapshot_name = snapshot_name
        self.save_slice_info_def = save_slice_info_def
        self.is_resource = is_resource
        self.trainable = trainable
        self.synchronization = synchronization
        self.aggregation = aggregation


def variable_def(var, export_scope=None):
    """``var``'s ``VariableDef``; None when it is outside ``export_scope``."""
    if not var._variable.name.startswith(scope_prefix(export_scope)):
        return None
    strip = lambda name: strip_name_scope(name, export_scope)  # noqa: E731
    info = var._save_slice_info.to_proto(export_scope) if var._save_slice_info is not None else None
    initial = strip(var._initial_value.name) if var._initial_value is not None else ""
    return VariableDef(strip(var._variable.name), initial, strip(var._initializer_op.name), strip(var._snapshot.name),
                       info, trainable=var._trainable)


def bind_from_def(var, definition, import_scope) -> None:
    """Makes ``var`` the variable over the ops ``definition`` names in the default graph (under
    ``import_scope``): no ops are added and no collections joined, as TF1's ``_init_from_proto``."""
    from dflow.ops.state.partitioned_variables import SaveSliceInfo

    if not isinstance(definition, VariableDef):
        raise TypeError(f"variable_def must be a VariableDef, got {type(definition).__name__}")
    graph = get_default_graph()
    find = lambda name: graph.as_graph_element(prepend_name_scope(name, import_scope))  # noqa: E731
    tensor = find(definition.variable_name)
    if not isinstance(tensor, Tensor) or tensor.op.type != "VariableV2":
        raise ValueError(f"variable_def.variable_name {definition.variable_name!r} does not name the output of a "
                         f"VariableV2 op")
    initial_value = find(definition.initial_value_name) if definition.initial_value_name else None
    var._bind_ops(tensor.op, find(definition.initializer_name), find(definition.snapshot_name), initial_value,
                  definition.trainable)
    if definition.save_slice_info_def is not None:
        var._save_slice_info = SaveSliceInfo(save_slice_info_def=definition.save_slice_info_def,
                                             import_scope=import_scope)
