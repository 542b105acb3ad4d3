"""Broadcasting between ragged and dense shapes, as TF 2.15's ``DynamicRaggedShape`` does it.

TF views a (ragged or dense) tensor of rank R as its number of rows and R-1
row partitions, one per dimension: uniform ones (every dense dimension, and a
ragged dimension built with a uniform row length) and ragged ones. Two shapes
broadcast dimension by dimension, right-aligned, the shorter one given leading
size-1 dimensions:

* the rows: equal counts, or one side has a single row;
* a partition: a uniform partition of length 1 broadcasts (its values are
  repeated along that dimension); otherwise both sides must give every row
  the same length (so a dense dimension meets a ragged one only where every
  row has that length). A ragged partition never broadcasts, even where its
  rows have length 1.

The result has ``max`` of the ragged ranks (each counted after padding the
shorter rank); its row partitions, and for each operand the index of the
source value behind each of the result's flat values, come from one kernel
(``RaggedBroadcastLayout``, computed at run time from the row splits and
shapes). The operands' flat values are gathered with those indices, so
gradients flow back to both of them; the dimensions inside the flat values
broadcast as dense tensors do. Incompatible shapes fail at run time with
``InvalidArgumentError`` ("Condition x == y did not hold element-wise:"), as
TF's assertions do.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dflow.framework import dtypes
from dflow.framework.constant_op import constant
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument
from dflow.ops.array import array_ops, gather_ops
from dflow.ops.ragged.ragged_tensor import RaggedTensor

# -- the static view of a shape ----------------------------------------------------------


@dataclass(frozen=True)
class _StaticShape:
    """A shape as TF's DynamicRaggedShape sees it at graph time.

    ``dims[0]`` is the number of rows; ``dims[i]`` for ``i >= 1`` is the
    length of the rows of partition ``i`` (None if unknown or ragged);
    ``uniform[i]`` says whether partition ``i`` is uniform (``uniform[0]`` is
    always True); the first ``num_row_partitions`` partitions are row splits.
    """

    dims: tuple
    uniform: tuple
    num_row_partitions: int

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def inner_rank(self) -> int:
        return self.rank - self.num_row_partitions


def _static_shape(value) -> _StaticShape:
    if not isinstance(value, RaggedTensor):
        return _StaticShape(tuple(value.shape.as_list()), (True,) * value.shape.ndims, 0)
    dims, uniform = [value.shape[0].value], [True]
    layer = value
    while isinstance(layer, RaggedTensor):
        if layer.uniform_row_length is None:
            dims.append(None)
            uniform.append(False)
        else:
            known = _constant_int(layer.uniform_row_length)
            dims.append(known)
            uniform.append(True)
        layer = layer.values
    inner = layer.shape.as_list()[1:]
    return _StaticShape(tuple(dims + inner), tuple(uniform + [True] * len(inner)), value.ragged_rank)


def _constant_int(t: Tensor):
    from dflow.framework.op_registry import constant_value

    known = constant_value(t)
    return None if known is None else int(known)


def _broadcast_dim(a, b):
    """The static size of a broadcast dimension (None where it is not known at graph time)."""
    if a == 1:
        return b
    if b == 1 or b is None:
        return a
    return b  # equal to a, or a is unknown (an incompatible a fails at run time)


def _padded(shape: _StaticShape, rank: int) -> _StaticShape:
    """``shape`` with leading size-1 (uniform) dimensions up to ``rank``."""
    missing = rank - shape.rank
    return _StaticShape((1,) * missing + shape.dims, (True,) * missing + shape.uniform, shape.num_row_partitions)


def broadcast_num_row_partitions(a: _StaticShape, b: _StaticShape) -> int:
    """TF's ``_get_broadcast_num_row_partitions``: the ragged rank of the broadcast shape."""
    if a.num_row_partitions == 0 and b.num_row_partitions == 0:
        return 0
    expanded_a = a.num_row_partitions + max(0, b.rank - a.rank)
    expanded_b = b.num_row_partitions + max(0, a.rank - b.rank)
    if a.num_row_partitions == 0:
        return expanded_b
    if b.num_row_partitions == 0:
        return expanded_a
    return max(expanded_a, expanded_b)


# -- the kernel --------------------------------------------------------------------------


def _layers(components: list, uniform: tuple, rank: int):
    """The rows and per-partition row lengths of one operand, padded to ``rank`` dimensions.

    ``components`` are the operand's nested row splits, then the shape of its
    flat values. Returns ``(nrows, [(lengths, is_uniform), ...])``.
    """
    *splits, flat_shape = components
    flat_shape = [int(d) for d in np.asarray(flat_shape).ravel()]
    parts = [(np.diff(np.asarray(s, dtype=np.int64)), u) for s, u in zip(splits, uniform)]
    nrows = len(splits[0]) - 1 if splits else flat_shape[0]
    count = flat_shape[0]
    for d in flat_shape[1:]:
        parts.append((np.full(count, d, dtype=np.int64), True))
        count *= d
    missing = rank - 1 - len(parts)
    if missing > 0:
        prefix = [(np.ones(1, np.int64), True)] * (missing - 1) + [(np.array([nrows], np.int64), True)]
        parts, nrows = prefix + parts, 1
    return nrows, parts


def _splits_text(lengths) -> str:
    return np.array2string(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))


def _broadcast_rows(na: int, nb: int):
    if na == nb:
        return na, np.arange(na), np.arange(nb)
    if na == 1:
        return nb, np.zeros(nb, np.int64), np.arange(nb)
    if nb == 1:
        return na, np.arange(na), np.zeros(na, np.int64)
    raise invalid_argument(f"Condition x == y did not hold element-wise:\nx (nrows of x) = \n[{na}]\n"
                           f"y (nrows of y) = \n[{nb}]\nCannot broadcast a shape with {na} rows and a shape with "
                           f"{nb} rows.")


def _broadcasts(lengths: np.ndarray, uniform: bool) -> bool:
    """Whether a partition broadcasts: uniform, with rows of length 1."""
    return uniform and lengths.size > 0 and lengths[0] == 1


def _next_gather(gather: np.ndarray, lengths: np.ndarray, rowids: np.ndarray, offsets: np.ndarray,
                 broadcast: bool) -> np.ndarray:
    starts = np.concatenate([[0], np.cumsum(lengths)])[:-1].astype(np.int64)
    source_rows = gather[rowids]
    return starts[source_rows] if broadcast else starts[source_rows] + offsets


def _layout_kernel(*inputs, a_splits, a_uniform, b_splits, b_uniform, rank, num_row_partitions, gather_a,
                   gather_b, Tsplits):  # noqa: N803 - TF-style attr name
    """The broadcast shape's row splits, and the gather indices of both operands at its flat values."""
    a_components, b_components = list(inputs[:a_splits + 1]), list(inputs[a_splits + 1:])
    na, a_parts = _layers(a_components, a_uniform, rank)
    nb, b_parts = _layers(b_components, b_uniform, rank)
    _, ga, gb = _broadcast_rows(na, nb)
    out_splits = []
    for k in range(num_row_partitions):
        (la_all, ua), (lb_all, ub) = a_parts[k], b_parts[k]
        la, lb = la_all[ga], lb_all[gb]
        a_bc, b_bc = _broadcasts(la_all, ua), _broadcasts(lb_all, ub)
        if a_bc:
            lc = lb
        elif b_bc:
            lc = la
        elif not np.array_equal(la, lb):
            raise invalid_argument(f"Condition x == y did not hold element-wise:\nx (row_splits of x, broadcast) = "
                                   f"\n{_splits_text(la)}\ny (row_splits of y, broadcast) = \n{_splits_text(lb)}")
        else:
            lc = la
        splits = np.concatenate([[0], np.cumsum(lc)]).astype(np.int64)
        rowids = np.repeat(np.arange(len(lc), dtype=np.int64), lc)
        offsets = np.arange(splits[-1], dtype=np.int64) - splits[:-1][rowids]
        ga = _next_gather(ga, la_all, rowids, offsets, a_bc)
        gb = _next_gather(gb, lb_all, rowids, offsets, b_bc)
        out_splits.append(splits.astype(Tsplits.as_numpy_dtype))
    gathers = ([ga.astype(Tsplits.as_numpy_dtype)] if gather_a else []) + \
              ([gb.astype(Tsplits.as_numpy_dtype)] if gather_b else [])
    return tuple(out_splits + gathers)


def _layout_infer(op):
    attrs = op._attrs
    n = attrs["num_row_partitions"] + int(attrs["gather_a"]) + int(attrs["gather_b"])
    return [(attrs["Tsplits"], TensorShape([None]))] * n


register("RaggedBroadcastLayout", infer=_layout_infer, kernel=_layout_kernel, gpu=False)
not_differentiable("RaggedBroadcastLayout")


# -- broadcasting two operands ---------------------------------------------------------------


def _components(value, splits_dtype) -> list:
    """The nested row splits and the flat values' shape of ``value`` (as TF's shape dtype)."""
    if isinstance(value, RaggedTensor):
        return list(value.nested_row_splits) + [array_ops.shape(value.flat_values, out_type=splits_dtype)]
    return [array_ops.shape(value, out_type=splits_dtype)]


def _ragged_uniform(value) -> tuple:
    return _static_shape(value).uniform[1:value.ragged_rank + 1] if isinstance(value, RaggedTensor) else ()


def _flat_with_inner_rank(value, shape: _StaticShape, inner_rank: int) -> Tensor:
    """The operand's flat values with their outer dimensions merged so that ``inner_rank`` remain."""
    flat = value.flat_values if isinstance(value, RaggedTensor) else value
    merged = shape.inner_rank - inner_rank
    if merged == 0:
        return flat
    inner = flat.shape.as_list()[merged + 1:]
    if None not in inner:
        return array_ops.reshape(flat, [-1] + inner)
    dynamic = array_ops.shape(flat)[merged + 1:]
    return array_ops.reshape(flat, array_ops.concat([constant([-1], dtypes.int32), dynamic], axis=0))


def _result_static(a: _StaticShape, b: _StaticShape, rank: int, num_row_partitions: int):
    """The broadcast shape's static row counts, row lengths and uniform flags, for the ragged dimensions."""
    a, b = _padded(a, rank), _padded(b, rank)
    nrows = [_broadcast_dim(a.dims[0], b.dims[0])]
    lengths, uniform = [], []
    for k in range(1, num_row_partitions + 1):
        both = a.uniform[k] and b.uniform[k]
        length = _broadcast_dim(a.dims[k], b.dims[k]) if both else None
        lengths.append(length)
        uniform.append(both)
        nrows.append(None if nrows[-1] is None or length is None else nrows[-1] * length)
    return nrows, lengths, uniform


def broadcast_binary_op(op, x, y, splits_dtype, name=None):
    """``op(x, y)`` with ``x`` and ``y`` (one of them ragged) broadcast to one ragged shape, as TF 2.15."""
    sx, sy = _static_shape(x), _static_shape(y)
    rank = max(sx.rank, sy.rank)
    num_row_partitions = broadcast_num_row_partitions(sx, sy)
    inner_rank = rank - num_row_partitions
    gather_x, gather_y = sx.rank >= inner_rank, sy.rank >= inner_rank
    cx, cy = _components(x, splits_dtype), _components(y, splits_dtype)
    attrs = {"a_splits": len(cx) - 1, "a_uniform": _ragged_uniform(x), "b_splits": len(cy) - 1,
             "b_uniform": _ragged_uniform(y), "rank": rank, "num_row_partitions": num_row_partitions,
             "gather_a": gather_x, "gather_b": gather_y, "Tsplits": splits_dtype}
    outputs = list(apply_op("RaggedBroadcastLayout", cx + cy, attrs).outputs)
    splits, gathers = outputs[:num_row_partitions], outputs[num_row_partitions:]
    x_flat = _flat_with_inner_rank(x, sx, inner_rank) if gather_x else x
    y_flat = _flat_with_inner_rank(y, sy, inner_rank) if gather_y else y
    if gather_x:
        x_flat = gather_ops.gather(x_flat, gathers.pop(0))
    if gather_y:
        y_flat = gather_ops.gather(y_flat, gathers.pop(0))
    result = op(x_flat, y_flat, name=name)
    nrows, lengths, uniform = _result_static(sx, sy, rank, num_row_partitions)
    for k in reversed(range(num_row_partitions)):
        if nrows[k] is not None:
            splits[k].set_shape([nrows[k] + 1])
        row_length = constant(lengths[k], splits_dtype) if uniform[k] and lengths[k] is not None else None
        result = RaggedTensor._from_splits(result, splits[k], validate=False, uniform_row_length=row_length)
    return result
