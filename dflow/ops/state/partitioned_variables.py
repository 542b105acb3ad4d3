"""Partitioned variables: one logical variable stored as slices along one axis.

``tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(3))``
creates the variables ``emb/part_0`` ([4, 4]), ``emb/part_1`` and
``emb/part_2`` ([3, 4] each) and returns a ``PartitionedVariable`` over them,
as TF1 does: the first ``dim % n`` parts are one row longer. Each part knows
its place in the whole (``SaveSliceInfo``), so a ``Saver`` writes one
checkpoint entry ``emb`` of the full shape and restores it into any
partitioning. Converted to a tensor, a partitioned variable is the concat of
its parts (``emb/ConcatPartitions/concat`` then ``Identity`` named ``emb``);
``tf.nn.embedding_lookup`` gathers from the parts without concatenating.

On a cluster the parts are ordinary variables, so ``replica_device_setter``
spreads them over the parameter servers round-robin, which is what
partitioning is for.
"""

from __future__ import annotations

import math

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.graph import name_scope, prepend_name_scope, scope_prefix, strip_name_scope
from dflow.framework.tensor_shape import TensorShape, as_shape
from dflow.ops.state.variable_defs import SaveSliceInfoDef


class SaveSliceInfo:
    """Where a variable sits in the full variable it is a slice of (``tf.Variable.SaveSliceInfo``)."""

    def __init__(self, full_name=None, full_shape=None, var_offset=None, var_shape=None, save_slice_info_def=None,
                 import_scope=None):
        if save_slice_info_def is not None:
            d = save_slice_info_def
            full_name, full_shape, var_offset, var_shape = (prepend_name_scope(d.full_name, import_scope), d.full_shape,
                                                            d.var_offset, d.var_shape)
        self.full_name = full_name
        self.full_shape = list(full_shape)
        self.var_offset = list(var_offset)
        self.var_shape = list(var_shape)

    def to_proto(self, export_scope=None):
        """This slice's ``SaveSliceInfoDef``; None when the full variable is outside ``export_scope``."""
        if not self.full_name.startswith(scope_prefix(export_scope)):
            return None
        return SaveSliceInfoDef(strip_name_scope(self.full_name, export_scope), self.full_shape, self.var_offset,
                                self.var_shape)

    @property
    def spec(self) -> str:
        """TF's slice spec: the full shape, then ``offset,length`` per dimension (``"10 4 4,3:0,4"``)."""
        full = " ".join(str(d) for d in self.full_shape)
        sl = ":".join(f"{o},{n}" for o, n in zip(self.var_offset, self.var_shape))
        return f"{full} {sl}"

    @classmethod
    def from_spec(cls, full_name: str, spec: str) -> SaveSliceInfo:
        *full, sl = spec.split(" ")
        pairs = [p.split(",") for p in sl.split(":")]
        return cls(full_name, [int(d) for d in full], [int(o) for o, _ in pairs], [int(n) for _, n in pairs])

    def slices(self) -> tuple:
        """The numpy index of this slice in the full array."""
        return tuple(slice(o, o + n) for o, n in zip(self.var_offset, self.var_shape))

    def __repr__(self):
        return f"SaveSliceInfo({self.full_name!r}, {self.spec!r})"


class _PartitionInfo:
    """What an initializer of one part learns of the whole: ``full_shape`` and ``var_offset``."""

    def __init__(self, full_shape, var_offset):
        self.full_shape = list(full_shape)
        self.var_offset = list(var_offset)

    def single_offset(self, shape) -> int:
        axis = self.single_slice_dim(shape)
        return 0 if axis is None else self.var_offset[axis]

    def single_slice_dim(self, shape):
        for i, (full, part) in enumerate(zip(self.full_shape, shape)):
            if full != part:
                return i
        return None


@tf_export("PartitionedVariable")
class PartitionedVariable:
    """A variable stored as ``len(self)`` parts, sliced along one axis (TF1's ``PartitionedVariable``).

    Iterating gives the part variables; converting to a tensor concatenates them.
    """

    def __init__(self, name, shape, dtype, variable_list, partitions):
        if not isinstance(variable_list, (list, tuple)) or not variable_list:
            raise ValueError(f"variable_list must be a non-empty list of variables, got {variable_list!r}")
        shape = as_shape(shape)
        partitions = [int(p) for p in partitions]
        if len(partitions) != shape.ndims:
            raise ValueError(f"len(partitions) must equal the rank of the variable: partitions {partitions}, "
                             f"shape {shape}")
        if any(p < 1 for p in partitions):
            raise ValueError(f"partitions must all be >= 1, got {partitions}")
        if math.prod(partitions) != len(variable_list):
            raise ValueError(f"variable_list holds {len(variable_list)} variables but partitions {partitions} need "
                             f"{math.prod(partitions)}")
        for v in variable_list:
            if v._save_slice_info is None:
                raise ValueError(f"All variables must have a save_slice_info available: {v.name}")
        self._name = name
        self._shape = shape
        self._dtype = dtypes.as_dtype(dtype)
        self._variable_list = sorted(variable_list, key=lambda v: v._save_slice_info.var_offset)
        self._partitions = partitions
        self._as_tensor = None

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self) -> int:
        return len(self._variable_list)

    def __getitem__(self, i):
        return self._variable_list[i]

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)
    graph = property(lambda self: self._variable_list[0].graph)

    def get_shape(self) -> TensorShape:
        return self._shape

    def _get_variable_list(self) -> list:
        return list(self._variable_list)

    def _get_partitions(self) -> list:
        return list(self._partitions)

    def _partition_axes(self) -> list:
        axes = [i for i, p in enumerate(self._partitions) if p > 1]
        return axes or [0]

    def _concat(self):
        """The full value: one ``Identity`` named like the variable over the parts' concat."""
        from dflow.ops.array.array_ops import concat, identity

        if len(self._variable_list) == 1:
            with name_scope(None):
                return identity(self._variable_list[0], name=self._name)
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(f"Cannot concatenate along more than one dimension: {axes}. Multi-axis "
                                      f"partition concat is not supported")
        with name_scope(self._name + "/ConcatPartitions/"):
            concatenated = concat([v.value() for v in self._variable_list], axes[0])
        with name_scope(None):
            return identity(concatenated, name=self._name)

    def as_tensor(self):
        """The concatenated value (a new concat each call, as TF1)."""
        return self._concat()

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Assigns the slices of ``value`` to the parts; returns the group of assigns (or the parts' values)."""
        from dflow.framework.constant_op import convert_to_tensor
        from dflow.ops.array.array_ops import split
        from dflow.ops.control_flow.control_flow_ops import group

        value = convert_to_tensor(value, dtype=self._dtype)
        axis = self._partition_axes()[0]
        sizes = [v.shape.as_list()[axis] for v in self._variable_list]
        with name_scope(name, "PartitionedVariableAssign"):
            pieces = split(value, sizes, axis=axis) if len(sizes) > 1 else [value]
            assigns = [v.assign(p) for v, p in zip(self._variable_list, pieces)]
        if read_value:
            return assigns
        return group(*[a.op for a in assigns])

    def __repr__(self):
        return (f"<tf.PartitionedVariable '{self._name}' shape={self._shape} dtype={self._dtype.name} "
                f"partitions={self._partitions}>")


def _to_tensor(pv, dtype=None, name=None, as_ref=False):
    if as_ref:
        raise NotImplementedError(f"PartitionedVariable {pv.name} cannot be converted to a reference: assign to "
                                  f"its parts (iterate over it) or use its .assign()")
    t = pv.as_tensor()
    if dtype is not None and dtypes.as_dtype(dtype) is not t.dtype:
        raise ValueError(f"Incompatible type conversion requested to type '{dtypes.as_dtype(dtype).name}' for "
                         f"partitioned variable {pv.name} of type '{t.dtype.name}'")
    return t


def _element_size(dtype, bytes_per_string_element: int) -> int:
    dtype = dtypes.as_dtype(dtype)
    return bytes_per_string_element if dtype is dtypes.string else dtype.size


def _full_shape(shape, who: str) -> TensorShape:
    shape = as_shape(shape)
    if not shape.is_fully_defined():
        raise ValueError(f"{who}: shape is not fully defined: {shape}")
    return shape


@tf_export("variable_axis_size_partitioner")
def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16, max_shards=None):
    """A partitioner giving shards of at most ``max_shard_bytes`` along ``axis`` (at least one slice each)."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(f"Both max_shard_bytes and bytes_per_string_element must be positive. Currently, "
                         f"max_shard_bytes is {max_shard_bytes} and bytes_per_string_element is "
                         f"{bytes_per_string_element}")
    if max_shards is not None and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype, **_):
        shape = _full_shape(shape, "variable_axis_size_partitioner")
        dims = shape.as_list()
        bytes_per_slice = 1.0 * (shape.num_elements() / dims[axis]) * _element_size(dtype, bytes_per_string_element)
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(1.0 * dims[axis] / slices_per_shard))
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions = [1] * len(dims)
        partitions[axis] = axis_shards
        return partitions

    return _partitioner


@tf_export("min_max_variable_partitioner")
def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10, bytes_per_string_element=16):
    """A partitioner giving slices of at least ``min_slice_size`` bytes, at most ``max_partitions`` of them."""

    def _partitioner(shape, dtype, **_):
        shape = _full_shape(shape, "min_max_variable_partitioner")
        dims = shape.as_list()
        if axis >= len(dims):
            raise ValueError(f"Cannot partition variable along axis {axis} when shape is only {len(dims)}")
        total = shape.num_elements() * _element_size(dtype, bytes_per_string_element)
        partitions = [1] * len(dims)
        partitions[axis] = max(1, min(dims[axis], max_partitions, int(math.ceil(total / min_slice_size))))
        return partitions

    return _partitioner


@tf_export("fixed_size_partitioner")
def fixed_size_partitioner(num_shards, axis=0):
    """A partitioner giving ``num_shards`` parts along ``axis`` (fewer if the axis is shorter)."""

    def _partitioner(shape, **_):
        dims = _full_shape(shape, "fixed_size_partitioner").as_list()
        partitions = [1] * len(dims)
        partitions[axis] = min(num_shards, dims[axis])
        return partitions

    return _partitioner


def slice_layout(name: str, shape: TensorShape, partitions) -> list:
    """``[(offset, part shape)]`` of each part, TF1's way: the first ``dim % n`` parts one longer."""
    dims = shape.as_list()
    if not isinstance(partitions, (list, tuple)) or len(partitions) != len(dims):
        raise ValueError(f"Partitioner for variable {name} returned {partitions!r}: expected a list of "
                         f"{len(dims)} ints, one per dimension of shape {dims}")
    partitions = [int(p) for p in partitions]
    if any(p < 1 for p in partitions):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {partitions} (variable {name})")
    axes = [i for i, p in enumerate(partitions) if p > 1]
    if len(axes) > 1:
        raise ValueError(f"Can only slice a variable along one dimension: shape: {dims}, partitioning: "
                         f"{partitions} (variable {name})")
    if not axes:
        return [([0] * len(dims), dims)]
    axis = axes[0]
    n = partitions[axis]
    if n > dims[axis]:
        raise ValueError(f"Partitioner for variable {name} asks for {n} partitions of axis {axis}, which has only "
                         f"{dims[axis]} elements")
    layout, offset = [], 0
    for i in range(n):
        size = dims[axis] // n + (1 if i < dims[axis] % n else 0)
        part = list(dims)
        part[axis] = size
        off = [0] * len(dims)
        off[axis] = offset
        layout.append((off, part))
        offset += size
    return layout


@tf_export("create_partitioned_variables")
def create_partitioned_variables(shape, slicing, initializer, dtype=dtypes.float32, trainable=True, collections=None,
                                 name=None, reuse=None):
    """Deprecated TF1 helper: the part variables of ``shape`` sliced as ``slicing`` (a list of variables)."""
    from dflow.ops.state.variable_scope import get_variable_scope, variable_scope

    if len(shape) != len(slicing):
        raise ValueError(f"The 'shape' and 'slicing' of a partitioned Variable must have the length: shape: "
                         f"{shape}, slicing: {slicing}")
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")
    slicing = list(slicing)
    with variable_scope(name, "PartitionedVariable", reuse=reuse):
        pv = get_variable_scope().get_partitioned_variable(
            shape=shape, dtype=dtype, initializer=initializer, trainable=trainable, collections=collections,
            partitioner=lambda **_: slicing)
    return list(pv)


def _register() -> None:
    from dflow.framework.constant_op import register_tensor_conversion_function
    from dflow.ops.state.variables import Variable

    register_tensor_conversion_function(PartitionedVariable, _to_tensor)
    Variable.SaveSliceInfo = SaveSliceInfo


_register()
