"""Diagonals: eye, matrix_diag, matrix_diag_part, matrix_set_diag.

The matrix ops are TF1.15's ``MatrixDiagV2`` family restricted to one
diagonal ``k`` (TF1.15 also accepts a band ``k = (lo, hi)``, which dflow
does not implement). ``tf.eye`` is one ``Eye`` kernel where TF1 fills ones
into a diagonal; its result keeps TF1's name, ``eye/diag`` (square) or
``eye/set_diag``.
"""

from __future__ import annotations

import numbers

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array.index_args import (
    dims_str,
    index_arg,
    kernel_int,
    kernel_ints,
    merge_shapes,
    shape_from_tensor,
    split_index_args,
    with_rank_at_least,
)


def _single_k(k) -> int | Tensor:
    """``k`` as one diagonal; a band ``(lo, hi)`` with ``lo < hi`` is not implemented."""
    if isinstance(k, (list, tuple, np.ndarray)) and np.ndim(k) == 1:
        if len(k) == 2 and k[0] == k[1]:
            return k[0]
        raise NotImplementedError(f"dflow implements one diagonal k, not the band k = {tuple(k)}")
    return k


# -- Eye ---------------------------------------------------------------------------------------------


def _eye_infer(op):
    rows, _ = index_arg(op, "num_rows", 0)
    cols, _ = index_arg(op, "num_columns", 1)
    batch, t = index_arg(op, "batch_shape", 2)
    batch = TensorShape(batch.tolist()) if batch is not None else shape_from_tensor(t)
    out = batch.concatenate([None if rows is None else int(rows), None if cols is None else int(cols)])
    return [(op._attrs["dtype"], out)]


def _eye_kernel(num_rows, num_columns, batch_shape, dtype):
    n, m = kernel_int(num_rows), kernel_int(num_columns)
    if n < 0 or m < 0:
        raise _invalid(f"num_rows and num_columns must be non-negative integer values, got {n} and {m}")
    e = np.eye(n, m, dtype=dtype.as_numpy_dtype)
    batch = kernel_ints(batch_shape)
    return np.broadcast_to(e, batch + (n, m)) if batch else e


register("Eye", infer=_eye_infer, kernel=_eye_kernel)
not_differentiable("Eye")


@tf_export("eye", "linalg.eye")
def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """An identity matrix (or a batch of them); rectangular with ``num_columns``.

    >>> import dflow as tf
    >>> tf.eye(2, 3, batch_shape=[4]).shape
    TensorShape([4, 2, 3])
    """
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        square = num_columns is None
        num_columns = num_rows if square else num_columns
        for n in (num_rows, num_columns):
            if not isinstance(n, Tensor):
                if not isinstance(n, numbers.Integral) or isinstance(n, bool):
                    raise TypeError("num_rows and num_columns must be positive integer values.")
                if n < 0:
                    raise ValueError("num_rows and num_columns must be non-negative integer values.")
        args = {"num_rows": num_rows, "num_columns": num_columns,
                "batch_shape": [] if batch_shape is None else batch_shape}
        inputs, attrs = split_index_args(args, scalars=("num_rows", "num_columns"))
        return apply_op("Eye", inputs, {**attrs, "dtype": dtype}, name="diag" if square else "set_diag").outputs[0]


# -- MatrixDiagV2, MatrixDiagPartV2, MatrixSetDiagV2 (one diagonal) ------------------------------------


def _diag_matrix_size(length, k, rows, cols):
    """The output matrix size of MatrixDiagV2 for a diagonal of ``length`` at ``k``.

    -1 rows or columns are the smallest that fit, as in TF1.15; None is unknown.
    """
    if length is None:
        return (None if rows == -1 else rows), (None if cols == -1 else cols)
    min_rows, min_cols = length + max(-k, 0), length + max(k, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if min(rows + min(k, 0), cols - max(k, 0)) != length:
        raise ValueError(f"The diagonal of length {length} at k = {k} does not fit a [{rows},{cols}] matrix")
    return rows, cols


def _matrix_diag_infer(op):
    d = op._inputs[0]
    s = with_rank_at_least(d.shape, 1)
    k, rows, cols = (index_arg(op, name, i)[0] for i, name in enumerate(("k", "num_rows", "num_cols"), 2))
    if s.ndims is None:
        return [(d.dtype, TensorShape(None))]
    if k is None or rows is None or cols is None:
        return [(d.dtype, s[:-1].concatenate([None, None]))]
    r, c = _diag_matrix_size(s[-1].value, int(k), int(rows), int(cols))
    return [(d.dtype, s[:-1].concatenate([r, c]))]


def _diag_coords(xp, length: int, k: int):
    i = xp.arange(length)
    return i + max(-k, 0), i + max(k, 0)


def _matrix_diag_kernel(diagonal, padding_value, k, num_rows, num_cols):
    k, rows, cols = (v if type(v) is int else kernel_int(v) for v in (k, num_rows, num_cols))
    length = diagonal.shape[-1]
    try:
        rows, cols = _diag_matrix_size(length, k, rows, cols)
    except ValueError as e:
        raise _invalid(str(e)) from None
    xp = array_module(diagonal)
    out = xp.full(diagonal.shape[:-1] + (rows, cols), padding_value, dtype=diagonal.dtype)
    r, c = _diag_coords(xp, length, k)
    out[..., r, c] = diagonal
    return out


register("MatrixDiagV2", infer=_matrix_diag_infer, kernel=_matrix_diag_kernel)


def _k_arg(op, position: int):
    """Diagonal ``k`` of a diag op as an int, or the tensor that holds it."""
    k, t = index_arg(op, "k", position)
    return int(k) if t is None else t


@gradient("MatrixDiagV2")
def _matrix_diag_grad(op, grad):
    """The diagonal of ``grad``; TF1 gives ``padding_value`` no gradient."""
    out = matrix_diag_part(grad, k=_k_arg(op, 2))
    out.set_shape(op._inputs[0].shape)
    return [out] + [None] * (len(op._inputs) - 1)


@tf_export("matrix_diag", "linalg.diag")
def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0):
    """Batched matrices with ``diagonal`` on diagonal ``k`` and ``padding_value`` elsewhere.

    >>> import dflow as tf
    >>> tf.linalg.diag([[1, 2], [3, 4]]).shape
    TensorShape([2, 2, 2])
    """
    with name_scope(name, "diag", [diagonal]) as scope:
        d = convert_to_tensor(diagonal, name="diagonal")
        if d.dtype is dtypes.bool:
            padding_value = bool(padding_value)
        pad = convert_to_tensor(padding_value, dtype=d.dtype, name="padding_value")
        inputs, attrs = split_index_args({"k": _single_k(k), "num_rows": num_rows, "num_cols": num_cols},
                                         scalars=("k", "num_rows", "num_cols"))
        return apply_op("MatrixDiagV2", [d, pad, *inputs], attrs, name=scope).outputs[0]


def _diag_length(m, n, k):
    return None if m is None or n is None else min(m + min(k, 0), n - max(k, 0))


def _matrix_diag_part_infer(op):
    x = op._inputs[0]
    s = with_rank_at_least(x.shape, 2)
    k, _ = index_arg(op, "k", 1)
    if s.ndims is None:
        return [(x.dtype, TensorShape(None))]
    m, n = s[-2].value, s[-1].value
    length = None if k is None else _diag_length(m, n, int(k))
    if length is not None and length <= 0:
        raise ValueError(f"The diagonal k = {int(k)} is outside a [{m},{n}] matrix")
    return [(x.dtype, s[:-2].concatenate([length]))]


def _matrix_diag_part_kernel(input, k):  # noqa: A002 - TF1 argument name
    k = k if type(k) is int else kernel_int(k)
    m, n = input.shape[-2:]
    length = _diag_length(m, n, k)
    if length <= 0:
        raise _invalid(f"The diagonal k = {k} is outside a [{m},{n}] matrix")
    r, c = _diag_coords(array_module(input), length, k)
    return input[..., r, c]


register("MatrixDiagPartV2", infer=_matrix_diag_part_infer, kernel=_matrix_diag_part_kernel)


@gradient("MatrixDiagPartV2")
def _matrix_diag_part_grad(op, grad):
    """``grad`` on the diagonal of zero matrices of the input's shape."""
    x = op._inputs[0]
    k = _k_arg(op, 1)
    matrix = x.shape[-2:]
    if matrix.is_fully_defined():
        rows, cols = matrix.as_list()
        out = matrix_diag(grad, k=k, num_rows=rows, num_cols=cols)
    else:
        from dflow.ops.array.creation_ops import zeros_like

        out = matrix_set_diag(zeros_like(x), grad, k=k)
    out.set_shape(x.shape)
    return [out] + [None] * (len(op._inputs) - 1)


@tf_export("matrix_diag_part", "linalg.diag_part")
def matrix_diag_part(input, name="diag_part", k=0, padding_value=0):  # noqa: A002 - TF1 argument name
    """Diagonal ``k`` of each innermost matrix of ``input``.

    ``padding_value`` only matters for bands of diagonals, which dflow does not implement.
    """
    del padding_value
    with name_scope(name, "diag_part", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        inputs, attrs = split_index_args({"k": _single_k(k)}, scalars=("k",))
        return apply_op("MatrixDiagPartV2", [x, *inputs], attrs, name=scope).outputs[0]


def _matrix_set_diag_infer(op):
    x, d = op._inputs[:2]
    s = with_rank_at_least(x.shape, 2)
    ds = with_rank_at_least(d.shape, 1)
    k, _ = index_arg(op, "k", 2)
    if s.ndims is not None and ds.ndims is not None:
        length = None if k is None else _diag_length(s[-2].value, s[-1].value, int(k))
        if length is not None and ds[-1].value is not None and length != ds[-1].value:
            raise ValueError(f"Dimensions must be equal, but are {length} and {ds[-1].value}")
        s = merge_shapes(s[:-2], ds[:-1]).concatenate(s[-2:])  # the diagonal can tell the batch shape
    return [(x.dtype, s)]


def _matrix_set_diag_kernel(input, diagonal, k):  # noqa: A002 - TF1 argument name
    k = k if type(k) is int else kernel_int(k)
    m, n = input.shape[-2:]
    length = _diag_length(m, n, k)
    expected = input.shape[:-2] + (length,)
    if diagonal.shape != expected:
        raise _invalid(f"Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] is "
                       f"not equal to the longests diagonal in range [lower_diag_index:upper_diag_index].\n"
                       f"Input shape: {dims_str(input.shape)}\nDiagonal shape: {dims_str(diagonal.shape)}\n"
                       f"Expected diagonal shape: {dims_str(expected)}")
    xp = array_module(input)
    out = input.copy()
    r, c = _diag_coords(xp, length, k)
    out[..., r, c] = diagonal
    return out


register("MatrixSetDiagV2", infer=_matrix_set_diag_infer, kernel=_matrix_set_diag_kernel)


@gradient("MatrixSetDiagV2")
def _matrix_set_diag_grad(op, grad):
    """``grad`` with its diagonal zeroed for the input; the diagonal for ``diagonal``."""
    from dflow.ops.array.creation_ops import zeros_like

    x, diagonal = op._inputs[:2]
    k = _k_arg(op, 2)
    grad_input = matrix_set_diag(grad, zeros_like(diagonal), k=k)
    grad_diagonal = matrix_diag_part(grad, k=k)
    grad_diagonal.set_shape(diagonal.shape)
    return [grad_input, grad_diagonal] + [None] * (len(op._inputs) - 2)


@tf_export("matrix_set_diag", "linalg.set_diag")
def matrix_set_diag(input, diagonal, name="set_diag", k=0):  # noqa: A002 - TF1 argument name
    """``input`` with diagonal ``k`` of each innermost matrix replaced by ``diagonal``."""
    with name_scope(name, "set_diag", [input, diagonal]) as scope:
        x = convert_to_tensor(input, name="input")
        d = convert_to_tensor(diagonal, dtype=x.dtype, name="diagonal")
        inputs, attrs = split_index_args({"k": _single_k(k)}, scalars=("k",))
        return apply_op("MatrixSetDiagV2", [x, d, *inputs], attrs, name=scope).outputs[0]
