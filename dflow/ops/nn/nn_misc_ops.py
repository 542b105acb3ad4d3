"""``tf.nn`` odds and ends: ``approx_max_k``/``approx_min_k`` and the quantized ops.

``approx_max_k`` is exact here (as TF's CPU kernel is): ``top_k`` along the
reduction dimension. The ``quantized_*`` ops work on TF's quantized dtypes
(``quint8``, ``qint32``), which dflow does not have; they raise
``NotImplementedError`` saying so.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.ops.array import array_ops
from dflow.ops.math import math_ops
from dflow.ops.math.sort_ops import top_k


def _approx_k(operand, k, reduction_dimension, name, is_max: bool, scope_name: str) -> tuple:
    with name_scope(name, scope_name, [operand]):
        x = convert_to_tensor(operand, name="operand")
        rank = x.shape.ndims
        if rank is None:
            raise ValueError(f"{scope_name}: dflow needs an operand of known rank")
        if not -rank <= reduction_dimension < rank:
            raise ValueError(f"reduction_dimension {reduction_dimension} is out of range for an operand of rank "
                             f"{rank}")
        dim = reduction_dimension % rank
        perm = list(range(rank))
        perm[dim], perm[-1] = perm[-1], perm[dim]
        moved = x if dim == rank - 1 else array_ops.transpose(x, perm)
        values, indices = top_k(moved if is_max else math_ops.negative(moved), k)
        if not is_max:
            values = math_ops.negative(values)
        if dim != rank - 1:
            values, indices = array_ops.transpose(values, perm), array_ops.transpose(indices, perm)
        return values, indices


@tf_export("math.approx_max_k", "nn.approx_max_k")
def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None) -> tuple:
    """``(values, indices)`` of the ``k`` largest entries along ``reduction_dimension`` (exact here)."""
    return _approx_k(operand, k, reduction_dimension, name, True, "ApproxTopK")


@tf_export("math.approx_min_k", "nn.approx_min_k")
def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None) -> tuple:
    """``(values, indices)`` of the ``k`` smallest entries along ``reduction_dimension`` (exact here)."""
    return _approx_k(operand, k, reduction_dimension, name, False, "ApproxTopK")


def _quantized(name: str):
    def fn(*args, **kwargs) -> Tensor:
        raise NotImplementedError(f"tf.nn.{name}: quantized dtypes (quint8, qint8, qint32) are not supported by "
                                  f"dflow; use the float op instead")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"TF1's ``{name}`` on quantized tensors (not supported: raises NotImplementedError)."
    return tf_export(f"nn.{name}")(fn)


quantized_avg_pool = _quantized("quantized_avg_pool")
quantized_conv2d = _quantized("quantized_conv2d")
quantized_max_pool = _quantized("quantized_max_pool")
quantized_relu_x = _quantized("quantized_relu_x")
