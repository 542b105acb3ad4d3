"""Graph elements: ``Operation`` (a node) and ``Tensor`` (an edge).

An operation has a ``type`` (a key of the op registry), ``inputs`` (Tensors
produced by earlier operations), ``control_inputs`` (Operations that must run
first), ``attrs`` (the keyword arguments of its kernel), a requested
``device`` string and ``outputs``. A ``Tensor`` is output ``value_index`` of
``op``, named ``"<op name>:<value_index>"``, with a dtype and a static shape.
Both belong to a ``Graph`` (``graph.py``), which creates them.
"""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING

from dflow._api import tf_export
from dflow.framework import dtypes as _dtypes
from dflow.framework.device_spec import DeviceSpec
from dflow.framework.protos.protobuf import Field, Message
from dflow.framework.tensor_shape import TensorShape, as_shape

if TYPE_CHECKING:
    from dflow.framework.graph import Graph

_DFLOW_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_frames(limit: int = 6) -> tuple:
    """The innermost call sites outside dflow: where the user created an op."""
    frames = []
    f = sys._getframe(2)
    while f is not None and len(frames) < limit:
        fn = f.f_code.co_filename
        if not fn.startswith(_DFLOW_DIR):
            frames.append((fn, f.f_lineno, f.f_code.co_name))
        f = f.f_back
    return tuple(frames)


class Tensor:
    """Output ``value_index`` of operation ``op``: an edge of the graph.

    ``name`` is ``"<op name>:<value_index>"``. Tensors have no value until a
    session runs them; ``bool(t)``, ``iter(t)`` and ``len(t)`` raise
    ``TypeError`` as in TF1.

    >>> import dflow as tf
    >>> tf.constant([1.0, 2.0]).name
    'Const:0'
    """

    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_consumers", "__weakref__")
    # numpy defers binary operators to us: np.ones(2) + t builds an op.
    __array_priority__ = 100

    def __init__(self, op: Operation, value_index: int, dtype, shape=None):
        self._op = op
        self._value_index = value_index
        self._dtype = _dtypes.as_dtype(dtype)
        self._shape = as_shape(shape) if shape is not None else TensorShape(None)
        self._consumers = []

    @property
    def op(self) -> Operation:
        return self._op

    @property
    def value_index(self) -> int:
        return self._value_index

    @property
    def dtype(self):
        return self._dtype

    @property
    def graph(self) -> Graph:
        return self._op._graph

    @property
    def name(self) -> str:
        return f"{self._op._name}:{self._value_index}"

    @property
    def device(self) -> str:
        return self._op.device

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape) -> None:
        """Refines the static shape; raises ValueError if incompatible."""
        shape = as_shape(shape)
        if not self._shape.is_compatible_with(shape):
            raise ValueError(
                f"Tensor's shape {self._shape} is not compatible with supplied shape {shape}")
        self._shape = self._shape.merge_with(shape)

    def consumers(self) -> list:
        return list(self._consumers)

    def eval(self, feed_dict=None, session=None):
        """Runs this tensor in ``session`` (or the default session)."""
        return _default_session_run(self, feed_dict, session, "tensor")

    def _as_node_def_input(self) -> str:
        return self._op._name if self._value_index == 0 else self.name

    # TF1 forbids Python truth and iteration on symbolic tensors.
    def __bool__(self):
        raise TypeError(
            "Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is not None:` instead of "
            "`if t:` to test if a tensor is defined, and use TensorFlow ops such as tf.cond to execute "
            "subgraphs conditioned on the value of a tensor.")

    def __iter__(self):
        raise TypeError(
            f"Tensor objects are only iterable when eager execution is enabled. To iterate over "
            f"this tensor use tf.map_fn or tf.unstack. ({self.name})")

    def __len__(self):
        raise TypeError(
            f"len is not well defined for symbolic Tensors. ({self.name}) Please call `x.shape` rather "
            f"than `len(x)` for shape information.")

    def __array__(self, *args, **kwargs):
        raise NotImplementedError(
            f"Cannot convert a symbolic Tensor ({self.name}) to a numpy array. Run it in a Session first.")

    def __index__(self):
        raise TypeError(f"Cannot use symbolic Tensor {self.name} as a Python index; run it first.")

    __hash__ = object.__hash__

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self):
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self._dtype.name})'

    def __reduce__(self):
        raise TypeError(f"Tensor {self.name} is a symbolic graph edge and cannot be pickled.")


# dflow's own reads of a variable carry it as their ``var`` attr, as its writers do (see
# ``Operation.inputs``); they are not writers.
_VARIABLE_READ_TYPES = frozenset({"_ReadVariable", "_VariableInitializedValue"})


class Operation:
    """A node of the graph: one op of registered ``type``.

    Attributes: ``name`` (unique in the graph), ``type``, ``inputs``,
    ``outputs``, ``control_inputs``, ``device`` (the requested, possibly
    partial device string), ``graph``, and ``attrs``: the keyword arguments
    its kernel receives. ``traceback`` holds where the user created it.
    """

    __slots__ = ("_graph", "_type", "_name", "_inputs", "_outputs", "_control_inputs", "_attrs",
                 "_device", "_id", "_traceback", "_colocation_groups", "_opdef", "_gradient_type", "__weakref__")

    def __init__(self, graph: Graph, op_type: str, name: str, inputs, attrs, opdef):
        self._graph = graph
        self._type = op_type
        self._name = name
        self._inputs = tuple(inputs)
        self._outputs = ()
        self._control_inputs = []
        self._attrs = attrs
        self._device = ""
        self._id = -1
        self._traceback = ()
        self._colocation_groups = ()
        self._opdef = opdef
        self._gradient_type = None  # set by gradient_override_map

    @property
    def name(self) -> str:
        return self._name

    @property
    def type(self) -> str:
        return self._type

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def inputs(self) -> list:
        """The op's input tensors, as TF lists them: an op that writes variables (``Assign``,
        ``AssignAdd``, ``ScatterUpdate``, ``CountUpTo``, an optimizer's ``Apply*``) takes them
        first, as TF1's reference inputs, so ``x/Assign``'s inputs are ``[x, initial value]`` and
        ``ApplyAdam``'s ``[var, m, v, beta1_power, ...]``. Those edges are references: the op writes
        the variable's buffer, it does not wait for its value, and its kernel gets only the rest."""
        return self._ref_inputs() + list(self._inputs)

    def _ref_inputs(self) -> list:
        """The variables this op writes, as the tensors of their ``VariableV2`` ops (see ``inputs``)."""
        var = self._attrs.get("var")
        if not isinstance(var, Operation) or self._type in _VARIABLE_READ_TYPES:
            return []
        return [v._outputs[0] for v in (var, *self._attrs.get("slots", ())) if v._outputs]

    @property
    def outputs(self) -> list:
        return list(self._outputs)

    @property
    def control_inputs(self) -> list:
        return list(self._control_inputs)

    @property
    def device(self) -> str:
        return self._device

    @property
    def attrs(self) -> dict:
        return dict(self._attrs)

    @property
    def traceback(self) -> tuple:
        return self._traceback

    @property
    def node_def(self) -> NodeDef:
        """The ``NodeDef`` protocol buffer of this op (what ``Graph.as_graph_def()`` holds for it)."""
        from dflow.framework.graph_io import node_def_of_operation

        return node_def_of_operation(self)

    def get_attr(self, name: str):
        if name == "_class":
            return [f"loc:@{g}" for g in self._colocation_groups]
        try:
            return self._attrs[name]
        except KeyError:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.") from None

    def values(self) -> tuple:
        return self._outputs

    def colocation_groups(self) -> list:
        return [f"loc:@{g}".encode() for g in (self._colocation_groups or (self._name,))]

    def run(self, feed_dict=None, session=None) -> None:
        """Runs this operation in ``session`` (or the default session)."""
        _default_session_run(self, feed_dict, session, "operation")

    def _set_device(self, device) -> None:
        self._device = device.to_string() if isinstance(device, DeviceSpec) else (device or "")

    def _add_control_input(self, op: Operation) -> None:
        if not isinstance(op, Operation):
            raise TypeError(f"op must be an Operation: {op!r}")
        if op._graph is not self._graph:
            raise ValueError(f"{op.name} must be from the same graph as {self.name}.")
        if op not in self._control_inputs:
            self._control_inputs.append(op)
            # Cached plans depend on control edges added after creation.
            self._graph._structure_version += 1

    def _add_control_inputs(self, ops) -> None:
        for op in ops:
            self._add_control_input(op)

    def created_at(self) -> str:
        """``file:line`` of the user code that created this op, or ``<unknown>``."""
        if not self._traceback:
            return "<unknown>"
        fn, line, func = self._traceback[0]
        return f"{fn}:{line} in {func}"

    def __repr__(self):
        return f"<tf.Operation '{self._name}' type={self._type}>"

    def __str__(self):
        return str(self.node_def)

    def __reduce__(self):
        raise TypeError(f"Operation {self._name} is a graph node and cannot be pickled.")


def _as_operation(obj) -> Operation:
    if isinstance(obj, Operation):
        return obj
    if isinstance(obj, Tensor):
        return obj.op
    conv = getattr(obj, "_as_graph_element", None)
    if conv is not None:
        return _as_operation(conv())
    op = getattr(obj, "op", None)
    if isinstance(op, Operation):
        return op
    raise TypeError(f"Can not convert a {type(obj).__name__} into an Operation or Tensor.")


def _default_session_run(fetch, feed_dict, session, what: str):
    from dflow.framework.graph import _run_with_default_session

    return _run_with_default_session(fetch, feed_dict, session, what)


# -- protocol buffers: tensor_shape.proto, tensor.proto, attr_value.proto, node_def.proto -----------------
# Defined here, beside the graph elements they describe, so that ``Operation.node_def`` and the
# ``GraphDef`` of ``graph_io`` share one ``NodeDef`` class.

_DT_NAMES = {0: "INVALID", 1: "FLOAT", 2: "DOUBLE", 3: "INT32", 4: "UINT8", 5: "INT16", 6: "INT8", 7: "STRING",
             8: "COMPLEX64", 9: "INT64", 10: "BOOL", 11: "QINT8", 12: "QUINT8", 13: "QINT32", 14: "BFLOAT16",
             15: "QINT16", 16: "QUINT16", 17: "UINT16", 18: "COMPLEX128", 19: "HALF", 20: "RESOURCE",
             21: "VARIANT", 22: "UINT32", 23: "UINT64"}


def datatype_name(enum: int) -> str:
    """TensorFlow's ``DataType`` name of an enum value (``1`` → ``"DT_FLOAT"``, ``101`` → ``"DT_FLOAT_REF"``)."""
    if enum in _DT_NAMES:
        return "DT_" + _DT_NAMES[enum]
    if enum - 100 in _DT_NAMES and enum > 100:
        return f"DT_{_DT_NAMES[enum - 100]}_REF"
    return str(enum)


def enum_text(text: str, indent: int, field: str, name_of) -> str:
    """Protobuf text ``text`` of a message at ``indent`` with the enum ``field``'s numbers written as names."""
    pad = "  " * indent
    pattern = re.compile(rf"^{pad}{field}: (-?\d+)$", re.MULTILINE)
    return pattern.sub(lambda m: f"{pad}{field}: {name_of(int(m.group(1)))}", text)


class TensorShapeProto(Message):
    """A tensor's shape (TF's ``TensorShapeProto``): its dims (-1 for an unknown size), or ``unknown_rank``."""

    class Dim(Message):
        FIELDS = (Field(1, "size", "int64"), Field(2, "name", "string"))

    FIELDS = (Field(2, "dim", Dim, "repeated"), Field(3, "unknown_rank", "bool"))


class TensorProto(Message):
    """A tensor's value (TF's ``TensorProto``): dtype, shape, and its values as raw bytes or typed lists."""

    FIELDS = (
        Field(1, "dtype", "enum"),
        Field(2, "tensor_shape", TensorShapeProto),
        Field(3, "version_number", "int32"),
        Field(4, "tensor_content", "bytes"),
        Field(13, "half_val", "int32", "packed"),
        Field(5, "float_val", "float", "packed"),
        Field(6, "double_val", "double", "packed"),
        Field(7, "int_val", "int32", "packed"),
        Field(8, "string_val", "bytes", "repeated"),
        Field(9, "scomplex_val", "float", "packed"),
        Field(10, "int64_val", "int64", "packed"),
        Field(11, "bool_val", "bool", "packed"),
        Field(12, "dcomplex_val", "double", "packed"),
        Field(16, "uint32_val", "uint32", "packed"),
        Field(17, "uint64_val", "uint64", "packed"),
    )

    def _text(self, indent: int) -> str:
        return enum_text(super()._text(indent), indent, "dtype", datatype_name)


@tf_export("NameAttrList")
class NameAttrList(Message):
    """A function name and its attrs (TF's ``NameAttrList``): an ``AttrValue``'s ``func``."""


@tf_export("AttrValue")
class AttrValue(Message):
    """The value of an op attr (TF's ``AttrValue``): one of ``s``, ``i``, ``f``, ``b``, ``type``, ``shape``,
    ``tensor``, ``list``, ``func`` or ``placeholder``.

    >>> AttrValue(type=1).SerializeToString()
    b'0\\x01'
    """

    class ListValue(Message):
        FIELDS = (
            Field(2, "s", "bytes", "repeated"),
            Field(3, "i", "int64", "packed"),
            Field(4, "f", "float", "packed"),
            Field(5, "b", "bool", "packed"),
            Field(6, "type", "enum", "packed"),
            Field(7, "shape", TensorShapeProto, "repeated"),
            Field(8, "tensor", TensorProto, "repeated"),
            Field(9, "func", NameAttrList, "repeated"),
        )

        def _text(self, indent: int) -> str:
            return enum_text(super()._text(indent), indent, "type", datatype_name)

    FIELDS = (
        Field(1, "list", ListValue, "oneof:value"),
        Field(2, "s", "bytes", "oneof:value"),
        Field(3, "i", "int64", "oneof:value"),
        Field(4, "f", "float", "oneof:value"),
        Field(5, "b", "bool", "oneof:value"),
        Field(6, "type", "enum", "oneof:value"),
        Field(7, "shape", TensorShapeProto, "oneof:value"),
        Field(8, "tensor", TensorProto, "oneof:value"),
        Field(9, "placeholder", "string", "oneof:value"),
        Field(10, "func", NameAttrList, "oneof:value"),
    )

    def _text(self, indent: int) -> str:
        return enum_text(super()._text(indent), indent, "type", datatype_name)


NameAttrList._set_fields((Field(1, "name", "string"), Field(2, "attr", AttrValue, "map")))


@tf_export("NodeDef")
class NodeDef(Message):
    """A node of a ``GraphDef`` (TF's ``NodeDef``): name, op type, inputs (``"op"``, ``"op:1"``,
    ``"^control"``), requested device and attrs (a map of ``AttrValue``).

    ``Graph.as_graph_def().node`` and ``Operation.node_def`` hold these. A node
    made from a dflow op also remembers that op's own record (attrs that have no
    ``AttrValue`` form, output shapes), used by ``tf.import_graph_def`` while the
    node is not edited; it is not part of the message's fields or bytes.
    """

    class ExperimentalDebugInfo(Message):
        FIELDS = (Field(1, "original_node_names", "string", "repeated"),
                  Field(2, "original_func_names", "string", "repeated"))

    FIELDS = (
        Field(1, "name", "string"),
        Field(2, "op", "string"),
        Field(3, "input", "string", "repeated"),
        Field(4, "device", "string"),
        Field(5, "attr", AttrValue, "map"),
        Field(6, "experimental_debug_info", ExperimentalDebugInfo),
    )

    # -- the dflow record this node was made from: (record, bytes of the node then, {attr: bytes then}) --
    @property
    def _dflow(self):
        return self.__dict__.get("_dflow_source")

    def _set_dflow(self, source) -> None:
        object.__setattr__(self, "_dflow_source", source)

    def Clear(self) -> None:  # noqa: N802 - protobuf name
        super().Clear()
        self._set_dflow(None)

    def ParseFromString(self, data: bytes) -> int:  # noqa: N802 - protobuf name
        self._set_dflow(None)
        return super().ParseFromString(data)

    def CopyFrom(self, other) -> None:  # noqa: N802 - protobuf name
        super().CopyFrom(other)
        self._set_dflow(other._dflow)

    def MergeFrom(self, other) -> None:  # noqa: N802 - protobuf name
        super().MergeFrom(other)
        if self._dflow is None:
            self._set_dflow(other._dflow)

    def __reduce__(self):
        return _node_def_from_bytes, (self.SerializeToString(), self._dflow)


def _node_def_from_bytes(data: bytes, source) -> NodeDef:
    node = NodeDef.FromString(data)
    node._set_dflow(source)
    return node
