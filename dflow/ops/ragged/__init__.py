"""``tf.RaggedTensor``, ``tf.RaggedTensorSpec`` and the ``tf.ragged`` namespace.

Importing this package registers the ragged ops (``RaggedRange``,
``RaggedTensorToTensor``, ``RaggedTensorToSparse``), installs
``RaggedTensor``'s Python operators and exports the public names;
``install_dispatch(dflow)`` makes dflow's element-wise functions and
reductions accept RaggedTensors.
"""

from dflow.ops.ragged import ragged_kernels, ragged_math, ragged_ops, ragged_tensor_value  # noqa: F401
from dflow.ops.ragged.ragged_concat_ops import stack
from dflow.ops.ragged.ragged_math import install_dispatch
from dflow.ops.ragged.ragged_ops import (
    boolean_mask,
    constant,
    constant_value,
    cross,
    cross_hashed,
    map_flat_values,
    placeholder,
    ragged_range,
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
    stack_dynamic_partitions,
)
from dflow.ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec, is_ragged
from dflow.ops.ragged.ragged_tensor_value import RaggedTensorValue

__all__ = ["RaggedTensor", "RaggedTensorSpec", "RaggedTensorValue", "boolean_mask", "constant", "constant_value",
           "cross", "cross_hashed", "install_dispatch", "is_ragged", "map_flat_values", "placeholder",
           "ragged_range", "row_splits_to_segment_ids", "segment_ids_to_row_splits", "stack",
           "stack_dynamic_partitions"]
