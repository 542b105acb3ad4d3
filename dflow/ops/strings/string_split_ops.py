"""Splitting strings into tokens: ``tf.string_split`` and ``tf.strings.split`` (TF1's
``SparseTensor`` results), ``tf.strings.bytes_split`` and ``tf.strings.ngrams``.

TF1 returns a ``SparseTensor`` (``[rows, longest]``) from both splits, or a
``RaggedTensor`` with ``result_type="RaggedTensor"``, built as TF builds it: a
vector's split rows by their value row ids, a higher rank's as the split of
``RaggedTensor.from_tensor(input)``'s flat values. ``bytes_split`` of a
non-scalar is ragged too; of a scalar, and ``ngrams`` of a dense tensor, dense.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import SparseTensor
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument
from dflow.ops.strings.string_ops import as_bytes, string_input

_SPARSE_OUTPUTS = [(dtypes.int64, TensorShape([None, 2])), (dtypes.string, TensorShape([None])),
                   (dtypes.int64, TensorShape([2]))]
_WHITESPACE = b" \t\n\v\f\r"


def _check_result_type(result_type) -> None:
    if result_type not in ("SparseTensor", "RaggedTensor"):
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")


def _ragged_rows(sparse):
    """A split vector's ``SparseTensor`` as the RaggedTensor of its rows (TF's ``from_value_rowids``)."""
    from dflow.ops.ragged.ragged_tensor import RaggedTensor

    return RaggedTensor.from_value_rowids(sparse.values, sparse.indices[:, 0], nrows=sparse.dense_shape[0],
                                          validate=False)


def _ragged_split(x, split_vector):
    """``split_vector`` (a string vector -> its split ``SparseTensor``) over ``x`` of any rank >= 1, as
    a RaggedTensor with one more ragged dimension (TF: higher ranks through ``from_tensor``)."""
    from dflow.ops.ragged.ragged_tensor import RaggedTensor

    if x.shape.ndims == 1:
        return _ragged_rows(split_vector(x))
    outer = RaggedTensor.from_tensor(x)
    return outer.with_flat_values(_ragged_split(outer.flat_values, split_vector))


def _vector_input(op):
    x, sep = op._inputs[:2]
    if x.shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {x.shape.ndims}")
    if sep.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {sep.shape.ndims}")
    return _SPARSE_OUTPUTS


def _sparse_tokens(rows: list) -> tuple:
    """(indices, values, dense_shape) of a list of token lists."""
    indices = np.array([(r, i) for r, tokens in enumerate(rows) for i in range(len(tokens))], np.int64).reshape(-1, 2)
    values = np.empty(len(indices), dtype=object)
    values[:] = [t for tokens in rows for t in tokens]
    shape = np.array([len(rows), max((len(t) for t in rows), default=0)], np.int64)
    return indices, values, shape


def _split_v1_kernel(x, delimiter, skip_empty):
    delim = as_bytes(np.asarray(delimiter, dtype=object).item())
    rows = []
    for s in np.asarray(x, dtype=object).reshape(-1):
        s = as_bytes(s)
        if not s:
            tokens = []
        elif not delim:
            tokens = [s[i:i + 1] for i in range(len(s))]
        else:
            tokens = [s]
            for d in delim:
                tokens = [piece for t in tokens for piece in t.split(bytes([d]))]
            if skip_empty:
                tokens = [t for t in tokens if t]
        rows.append(tokens)
    return _sparse_tokens(rows)


def _split_v2_kernel(x, sep, maxsplit):
    sep = as_bytes(np.asarray(sep, dtype=object).item())
    limit = -1 if maxsplit < 0 else maxsplit
    rows = []
    for s in np.asarray(x, dtype=object).reshape(-1):
        s = as_bytes(s)
        rows.append(s.split(None, limit) if not sep else s.split(sep, limit))
    return _sparse_tokens(rows)


register("StringSplit", infer=_vector_input, kernel=_split_v1_kernel, gpu=False)
register("StringSplitV2", infer=_vector_input, kernel=_split_v2_kernel, gpu=False)
not_differentiable("StringSplit")
not_differentiable("StringSplitV2")


@tf_export("string_split")
def string_split(source, sep=None, skip_empty=True, delimiter=None, result_type="SparseTensor", name=None):
    """Splits each string of the vector ``source`` at any byte of ``delimiter`` (default ``" "``;
    ``""`` splits into bytes) into a ``SparseTensor`` ``[len(source), most tokens]``.

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.string_split(["a b", "c"])).values.tolist()
    [b'a', b'b', b'c']
    """
    if sep is not None and delimiter is not None:
        raise ValueError("Cannot specify both 'sep' and 'delimiter'")
    delimiter = sep if delimiter is None else delimiter
    if delimiter is None:
        delimiter = " "
    _check_result_type(result_type)
    with name_scope(name, "StringSplit", [source]):
        d = convert_to_tensor(delimiter, dtype=dtypes.string, name="delimiter")
        x = string_input(source, "StringSplit")
        op = apply_op("StringSplit", [x, d], {"skip_empty": bool(skip_empty)}, name="StringSplit")
        sparse = SparseTensor(*op.outputs)
        return _ragged_rows(sparse) if result_type == "RaggedTensor" else sparse


def _split_v2(x, sep, maxsplit):
    s = convert_to_tensor("" if sep is None else sep, dtype=dtypes.string)
    op = apply_op("StringSplitV2", [x, s], {"maxsplit": int(maxsplit)}, name="StringSplitV2")
    return SparseTensor(*op.outputs)


@tf_export("strings.split")
def split(input=None, sep=None, maxsplit=-1, result_type="SparseTensor", source=None, name=None):  # noqa: A002
    """Splits each string of ``input`` at ``sep`` (runs of ASCII whitespace when None) as
    Python's ``str.split``, into a ``SparseTensor`` with one more dimension than ``input``
    (a scalar is split as a vector of one).

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.split(["a b", "c"])).dense_shape.tolist()
    [2, 2]
    """
    from dflow.ops.array.array_ops import concat
    from dflow.ops.array.partition_ops import unravel_index
    from dflow.ops.array.shape_ops import reshape, shape, transpose
    from dflow.ops.math.math_ops import cast

    if input is not None and source is not None:
        raise ValueError("Cannot specify both 'input' and 'source'")
    input = source if input is None else input  # noqa: A001
    _check_result_type(result_type)
    with name_scope(name, "StringSplit", [input]):
        x = string_input(input, "StringSplitV2")
        rank = x.shape.ndims
        if rank is None:
            raise ValueError("strings.split: the rank of input must be known")
        if result_type == "RaggedTensor":
            with name_scope("StringSplit"):
                if rank == 0:
                    return _ragged_rows(_split_v2(reshape(x, [-1]), sep, maxsplit)).values
                return _ragged_split(x, lambda v: _split_v2(v, sep, maxsplit))
        if rank <= 1:
            return _split_v2(reshape(x, [-1]) if rank == 0 else x, sep, maxsplit)
        # N-D: split the flat strings, then spread each row index over input's leading dimensions.
        flat = _split_v2(reshape(x, [-1]), sep, maxsplit)
        dims = cast(shape(x), dtypes.int64)
        rows = transpose(unravel_index(flat.indices[:, 0], dims))
        indices = concat([rows, flat.indices[:, 1:]], 1)
        dense_shape = concat([dims, flat.dense_shape[1:]], 0)
        return SparseTensor(indices, flat.values, dense_shape)


@tf_export("strings.bytes_split")
def bytes_split(input, name=None):  # noqa: A002
    """The bytes of each string: a string vector for a scalar, a RaggedTensor (one more ragged
    dimension) for higher ranks.

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.bytes_split("abc")).tolist()
    [b'a', b'b', b'c']
    """
    from dflow.ops.array.shape_ops import reshape

    with name_scope(name, "StringsByteSplit", [input]):
        x = string_input(input, "StringsByteSplit")
        if x.shape.ndims is None:
            raise ValueError("input must have a statically-known rank.")
        d = convert_to_tensor("", dtype=dtypes.string, name="delimiter")
        if x.shape.ndims != 0:  # a RaggedTensor, as TF's
            return _ragged_split(x, lambda v: SparseTensor(*apply_op("StringSplit", [v, d], {"skip_empty": False},
                                                                     name="StringSplit").outputs))
        op = apply_op("StringSplit", [reshape(x, [1]), d], {"skip_empty": True}, name="StringSplit")
        return op.outputs[1]


def rows_of_last_dimension(x) -> tuple:
    """``(dims, flat, row_splits)``: ``x`` (rank >= 1) as the rows of its last dimension, int64 splits."""
    from dflow.ops.array.creation_ops import range as range_
    from dflow.ops.array.shape_ops import reshape, shape
    from dflow.ops.math.reduction_ops import reduce_prod

    dims = shape(x, out_type=dtypes.int64)
    rows = reduce_prod(dims[:-1])
    return dims, reshape(x, [-1]), range_(0, rows + 1, dtype=dtypes.int64) * dims[-1]


# -- StringNGrams ------------------------------------------------------------------------------------------


def _ngrams_infer(op):
    return [(dtypes.string, TensorShape([None])), (op._inputs[1].dtype, op._inputs[1].shape)]


def _ngrams_of_row(tokens: list, ngram_widths, separator, left_pad, right_pad, pad_width, preserve_short):
    """TF's ``StringNGramsOp`` for one row of tokens."""

    def pad_of(width: int) -> int:
        return min(width - 1 if pad_width < 0 else pad_width, width - 1)

    def create(count: int, width: int) -> list:
        pad = pad_of(width)
        out = []
        for k in range(count):
            left = max(0, pad - k)
            right = max(0, pad - (count - (k + 1)))
            n_tokens = width - (left + right)
            start = 0 if left > 0 else k - pad
            parts = [left_pad] * left + tokens[start:start + max(n_tokens, 0)] + [right_pad] * right
            out.append(separator.join(parts))
        return out

    grams: list = []
    for width in ngram_widths:
        count = max(0, len(tokens) + 2 * pad_of(width) - width + 1)
        grams += create(count, width)
    if preserve_short and not grams:
        grams = create(1, len(tokens) + 2 * pad_width)
    return grams


def _ngrams_kernel(data, data_splits, separator, ngram_widths, left_pad, right_pad, pad_width,
                   preserve_short_sequences):
    tokens = [as_bytes(v) for v in np.asarray(data, dtype=object).reshape(-1)]
    splits = np.asarray(data_splits).reshape(-1).tolist()
    if splits and (splits[0] != 0 or splits[-1] != len(tokens) or splits != sorted(splits)):
        raise invalid_argument(f"Invalid split values: {splits} for data of size {len(tokens)}")
    out, out_splits = [], [0]
    for a, b in zip(splits[:-1], splits[1:]):
        out += _ngrams_of_row(tokens[a:b], ngram_widths, separator, left_pad, right_pad, pad_width,
                              preserve_short_sequences)
        out_splits.append(len(out))
    values = np.empty(len(out), dtype=object)
    values[:] = out
    return values, np.array(out_splits, dtype=np.asarray(data_splits).dtype)


register("StringNGrams", infer=_ngrams_infer, kernel=_ngrams_kernel, gpu=False)
not_differentiable("StringNGrams")


@tf_export("strings.ngrams")
def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None, preserve_short_sequences=False,
           name=None):
    """The n-grams of the last dimension of the dense string tensor ``data``, joined with
    ``separator``; one row of n-grams per row of ``data`` (``[..., num_ngrams]``).

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.ngrams(["a", "b", "c"], 2)).tolist()
    [b'a b', b'b c']
    """
    from dflow.ops.array.array_ops import concat
    from dflow.ops.array.shape_ops import reshape

    widths = tuple(int(w) for w in (ngram_width if isinstance(ngram_width, (list, tuple)) else [ngram_width]))
    if any(w < 1 for w in widths):
        raise ValueError(f"All ngram_widths must be greater than 0. Got {list(widths)}")
    if pad_values is None:
        if padding_width is not None:
            raise ValueError("pad_values must be provided if padding_width is set.")
        left_pad = right_pad = b""
        pad_width = 0
    else:
        if isinstance(pad_values, (list, tuple)):
            if len(pad_values) < 2 or not all(isinstance(p, (str, bytes)) for p in pad_values[:2]):
                raise TypeError("pad_values must be a string, tuple of strings, or None.")
            left_pad, right_pad = (as_bytes(p) for p in pad_values[:2])  # as TF, extra values are ignored
        elif isinstance(pad_values, (str, bytes)):
            left_pad = right_pad = as_bytes(pad_values)
        else:
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        if padding_width is not None and padding_width < 1:
            raise ValueError("padding_width must be greater than 0.")
        pad_width = -1 if padding_width is None else int(padding_width)
    with name_scope(name, "StringNGrams", [data]):
        x = string_input(data, "StringNGrams", "data")
        if x.shape.ndims is None:
            raise NotImplementedError("strings.ngrams: dflow needs data of known rank")
        if x.shape.ndims == 0:
            raise ValueError("Data must have rank>0")
        shape, flat, splits = rows_of_last_dimension(x)
        op = apply_op("StringNGrams", [flat, splits],
                      {"separator": as_bytes(separator), "ngram_widths": widths, "left_pad": left_pad,
                       "right_pad": right_pad, "pad_width": pad_width,
                       "preserve_short_sequences": bool(preserve_short_sequences)}, name="StringNGrams")
        out = reshape(op.outputs[0], concat([shape[:-1], [-1]], 0))
        out.set_shape(x.shape[:-1].concatenate([None]))
        return out
