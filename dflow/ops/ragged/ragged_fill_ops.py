"""TF's raw ``RaggedFillEmptyRows`` and ``RaggedFillEmptyRowsGrad`` ops: ``tf.ragged_fill_empty_rows`` and
``tf.ragged_fill_empty_rows_grad``.

``RaggedFillEmptyRows`` takes a ragged tensor in value-rowids form (``value_rowids``, ``values``, ``nrows``)
and gives one where each empty row holds ``default_value``: its value rowids and values (rows in order, the
values of a row in their input order), an indicator of the rows that were empty, and ``reverse_index_map``,
where each input value went in the output. Its gradient is ``RaggedFillEmptyRowsGrad``: the output gradient
gathered back to the input values, and the rest summed, one after another, as the default value's gradient.
"""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument
from dflow.ops.array.index_args import host
from dflow.ops.math._math_common import convert_input, convert_pair

_FillResult = collections.namedtuple(
    "RaggedFillEmptyRows", ["output_value_rowids", "output_values", "empty_row_indicator", "reverse_index_map"])
_GradResult = collections.namedtuple("RaggedFillEmptyRowsGrad", ["d_values", "d_default_value"])


def _rank_error(t: Tensor, rank: int) -> None:
    if t.shape.ndims is not None and t.shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {t.shape.ndims}")


def _length(*tensors: Tensor):
    """The one known length of these vectors (None if unknown); ValueError if two differ, as TF's shape fn."""
    known = [t.shape[0] for t in tensors if t.shape.ndims == 1 and t.shape[0] is not None]
    if len(set(known)) > 1:
        raise ValueError(f"Dimensions must be equal, but are {known[0]} and {known[1]}")
    return known[0] if known else None


def _fill_infer(op):
    value_rowids, values, nrows, default_value = op._inputs
    for t, rank in ((value_rowids, 1), (values, 1), (nrows, 0), (default_value, 0)):
        _rank_error(t, rank)
    n = _length(value_rowids, values)
    unknown = TensorShape([None])
    return [(dtypes.int64, unknown), (values.dtype, unknown), (dtypes.bool, unknown), (dtypes.int64, TensorShape([n]))]


def _fill(value_rowids, values, nrows, default_value):
    """Kernel: TF's FillEmptyRows on rank-1 indices; the values are ordered by row (stably) when they are not."""
    value_rowids, values = np.asarray(host(value_rowids)), host(values)
    nrows = int(host(nrows))
    if value_rowids.ndim != 1 or np.ndim(values) != 1 or value_rowids.shape[0] != np.shape(values)[0]:
        raise invalid_argument(f"value_rowids and values must be vectors of one length, got shapes "
                               f"{list(value_rowids.shape)} and {list(np.shape(values))}")
    if nrows < 0:
        raise invalid_argument(f"Expected shape dimensions to be non-negative, got {nrows}")
    bad = np.flatnonzero((value_rowids < 0) | (value_rowids >= nrows))
    if bad.size:
        i = int(bad[0])
        raise invalid_argument(f"indices({i}, 0) is invalid: {value_rowids[i]} >= {nrows}")
    values = np.asarray(values)
    if nrows == 0:  # TF gives its empty rowids the shape of rank-1 sparse indices
        return (np.zeros((0, 1), np.int64), values[:0].copy(), np.zeros(0, bool), np.zeros(0, np.int64))
    counts = np.bincount(value_rowids, minlength=nrows)
    empty = counts == 0
    out_counts = np.where(empty, 1, counts)
    starts = np.concatenate([[0], np.cumsum(out_counts)[:-1]]).astype(np.int64)
    order = np.argsort(value_rowids, kind="stable")
    # The output position of each input value: its row's start plus its rank among the row's values.
    first_of_row = np.concatenate([[0], np.cumsum(counts)[:-1]])
    sorted_rows = value_rowids[order]
    reverse = np.empty(value_rowids.shape[0], np.int64)
    reverse[order] = starts[sorted_rows] + np.arange(order.size) - first_of_row[sorted_rows]
    total = int(out_counts.sum())
    out_values = np.empty(total, values.dtype)
    out_values[starts[empty]] = np.asarray(default_value, values.dtype)
    out_values[reverse] = values
    out_rowids = np.repeat(np.arange(nrows, dtype=np.int64), out_counts)
    return out_rowids, out_values, empty, reverse


register("RaggedFillEmptyRows", infer=_fill_infer, kernel=_fill, gpu=False)


def _grad_infer(op):
    reverse_index_map, grad_values = op._inputs
    _rank_error(reverse_index_map, 1)
    _rank_error(grad_values, 1)
    n = reverse_index_map.shape[0] if reverse_index_map.shape.ndims == 1 else None
    return [(grad_values.dtype, TensorShape([n])), (grad_values.dtype, TensorShape([]))]


def _fill_grad_kernel(reverse_index_map, grad_values):
    """Kernel: ``d_values = grad_values[reverse_index_map]``; ``d_default_value`` sums the other entries of
    ``grad_values`` in order, in their own dtype, as TF's loop does."""
    reverse, grad = np.asarray(host(reverse_index_map)), np.asarray(host(grad_values))
    if reverse.ndim != 1 or grad.ndim != 1:
        raise invalid_argument(f"reverse_index_map and grad_values must be vectors, got shapes "
                               f"{list(reverse.shape)} and {list(grad.shape)}")
    bad = np.flatnonzero((reverse < 0) | (reverse >= grad.shape[0]))
    if bad.size:
        raise invalid_argument(f"Elements in reverse index must be in [0, {grad.shape[0]}) but got "
                               f"{reverse[bad[0]]}")
    visited = np.zeros(grad.shape[0], bool)
    visited[reverse] = True
    rest = grad[~visited]
    d_default = np.add.accumulate(rest)[-1] if rest.size else np.zeros((), grad.dtype)
    return grad[reverse], np.asarray(d_default, grad.dtype)


register("RaggedFillEmptyRowsGrad", infer=_grad_infer, kernel=_fill_grad_kernel, gpu=False)


@gradient("RaggedFillEmptyRows")
def _ragged_fill_empty_rows_grad(op, unused_grad_rowids, grad_values, unused_grad_indicator, unused_grad_map):
    """TF's rule: ``RaggedFillEmptyRowsGrad`` of the values' gradient; none for the rowids and nrows."""
    d_values, d_default = apply_op("RaggedFillEmptyRowsGrad", [op.outputs[3], grad_values]).outputs
    return [None, d_values, None, d_default]


@tf_export("ragged_fill_empty_rows")
def ragged_fill_empty_rows(value_rowids, values, nrows, default_value, name=None):
    """Fills the empty rows of a value-rowids ragged tensor with ``default_value`` (TF's raw op).

    Returns the namedtuple ``(output_value_rowids, output_values, empty_row_indicator, reverse_index_map)``.
    """
    with name_scope(name, "RaggedFillEmptyRows") as scope:
        value_rowids = convert_input(value_rowids, "value_rowids", dtypes.int64, "RaggedFillEmptyRows")
        values, default_value = convert_pair(values, default_value, "RaggedFillEmptyRows", "values", "default_value")
        nrows = convert_input(nrows, "nrows", dtypes.int64, "RaggedFillEmptyRows")
        op = apply_op("RaggedFillEmptyRows", [value_rowids, values, nrows, default_value], name=scope)
    return _FillResult(*op.outputs)


@tf_export("ragged_fill_empty_rows_grad")
def ragged_fill_empty_rows_grad(reverse_index_map, grad_values, name=None):
    """The gradient of ``ragged_fill_empty_rows`` for its values and default value (TF's raw op).

    Returns the namedtuple ``(d_values, d_default_value)``.
    """
    with name_scope(name, "RaggedFillEmptyRowsGrad") as scope:
        reverse_index_map = convert_input(reverse_index_map, "reverse_index_map", dtypes.int64,
                                          "RaggedFillEmptyRowsGrad")
        grad_values = convert_input(grad_values, "grad_values", None, "RaggedFillEmptyRowsGrad")
        op = apply_op("RaggedFillEmptyRowsGrad", [reverse_index_map, grad_values], name=scope)
    return _GradResult(*op.outputs)
