"""Parsing ops on string tensors: ``tf.io.decode_csv``.

``DecodeCSV`` takes ``[records, *record_defaults]`` and returns one tensor
per column, each of the records' shape. It parses as TF1 does: fields
split on ``field_delim``; with ``use_quote_delim`` a field may be quoted
(``"a,b"``) with ``""`` for a quote inside; an empty field (or one equal to
``na_value``) takes its column's default, and a column whose default is
empty is required.

>>> import dflow as tf
>>> a, b = tf.io.decode_csv(["1,x", "2,"], record_defaults=[[0], ["none"]])
>>> with tf.Session() as sess:
...     sess.run([a, b])
[array([1, 2], dtype=int32), array([b'x', b'none'], dtype=object)]
"""

from __future__ import annotations

import re

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import apply_op, not_differentiable, register

_ALLOWED = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)
_INT = re.compile(rb"\s*-?[0-9]+\s*\Z")
_QUOTE, _LF, _CR = 34, 10, 13
_TYPE_WORD = {dtypes.float32: "float", dtypes.float64: "double", dtypes.int32: "int32", dtypes.int64: "int64"}
_INT_RANGE = {dtypes.int32: (-(1 << 31), (1 << 31) - 1), dtypes.int64: (-(1 << 63), (1 << 63) - 1)}


def _bad(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _split_quoted(rec: bytes, delim: int, quote: bool) -> list:
    """TF1's field splitter for records with quotes or line breaks."""
    n, i, out = len(rec), 0, []
    while i < n:
        if quote and rec[i] == _QUOTE:
            field = bytearray()
            i += 1
            while i < n - 1 and not (rec[i] == _QUOTE and rec[i + 1] == delim):
                if rec[i] != _QUOTE:
                    field.append(rec[i])
                    i += 1
                elif rec[i + 1] != _QUOTE:
                    raise _bad("Quote inside a string has to be escaped by another quote")
                else:
                    field.append(_QUOTE)
                    i += 2
            if i >= n or rec[i] != _QUOTE:
                raise _bad("Quoted field has to end with quote followed by delim or end")
            i += 2
            out.append(bytes(field))
        else:
            j = i
            while j < n and rec[j] != delim:
                c = rec[j]
                if (quote and c == _QUOTE) or c == _LF or c == _CR:
                    raise _bad("Unquoted fields cannot have quotes/CRLFs inside")
                j += 1
            out.append(rec[i:j])
            i = j + 1
    if rec[-1] == delim:
        out.append(b"")
    return out


def _fields(rec: bytes, delim: bytes, quote: bool) -> list:
    if not rec:
        return []
    if (not quote or b'"' not in rec) and b"\n" not in rec and b"\r" not in rec:
        return rec.split(delim)
    return _split_quoted(rec, delim[0], quote)


def _parse(field: bytes, dtype, column: int, record: int):
    if dtype is dtypes.string:
        return field
    if dtype.is_integer:
        if _INT.match(field):
            v = int(field)
            lo, hi = _INT_RANGE[dtype]
            if lo <= v <= hi:
                return v
    elif b"_" not in field:
        try:
            return float(field)
        except ValueError:
            pass
    raise _bad(f"Field {column} in record {record} is not a valid {_TYPE_WORD[dtype]}: "
               f"{field.decode(errors='replace')}")


def _decode_csv_kernel(records, *defaults, out_types, field_delim, use_quote_delim, na_value, select_cols):
    recs = np.asarray(records, dtype=object)
    shape = recs.shape
    delim, na = field_delim.encode(), na_value.encode()
    n_out = len(out_types)
    fills = []
    for c, d in enumerate(defaults):
        d = np.asarray(d, dtype=object if out_types[c] is dtypes.string else None)
        if d.size > 1:
            raise _bad(f"Shape of a default must be a length-0 or length-1 vector, or a scalar; default {c} has "
                       f"{d.size} elements.")
        fills.append(d.ravel()[0] if d.size else None)
    columns: list = [[] for _ in range(n_out)]
    want = n_out if select_cols is None else select_cols[-1] + 1
    for r, rec in enumerate(recs.ravel().tolist()):
        if isinstance(rec, str):
            rec = rec.encode()
        fields = _fields(rec, delim, use_quote_delim)
        short = len(fields) < want if select_cols is not None else len(fields) != want
        if short:
            raise _bad(f"Expect {want} fields but have {len(fields)} in record {r}")
        if select_cols is not None:
            fields = [fields[i] for i in select_cols]
        for c in range(n_out):
            field = fields[c]
            if not field or field == na:
                if fills[c] is None:
                    raise _bad(f"Field {c} is required but missing in record {r}!")
                columns[c].append(fills[c])
            else:
                columns[c].append(_parse(field, out_types[c], c, r))
    out = []
    for c, dtype in enumerate(out_types):
        if dtype is dtypes.string:
            col = np.empty(len(columns[c]), dtype=object)
            col[:] = columns[c]
        else:
            col = np.asarray(columns[c], dtype=dtype.as_numpy_dtype)
        out.append(col.reshape(shape))
    return out[0] if n_out == 1 else tuple(out)


def _decode_csv_infer(op):
    records = op._inputs[0]
    for d in op._inputs[1:]:
        n = d.shape.num_elements()
        if (d.shape.ndims is not None and d.shape.ndims > 1) or (n is not None and n > 1):
            raise ValueError("Shape of a default must be a length-0 or length-1 vector, or a scalar.")
    return [(t, records.shape) for t in op._attrs["out_types"]]


register("DecodeCSV", infer=_decode_csv_infer, kernel=_decode_csv_kernel, gpu=False)
not_differentiable("DecodeCSV")


def _default_tensor(value, i: int) -> Tensor:
    if isinstance(value, (list, tuple)) and len(value) == 1 and isinstance(value[0], Tensor):
        value = value[0]  # [tensor]: TF1 packs it into a one-element default
    t = value if isinstance(value, Tensor) else convert_to_tensor(value, name=f"record_defaults_{i}")
    if t.dtype not in _ALLOWED:
        raise TypeError(f"Value passed to parameter 'record_defaults' has DataType {t.dtype.name} not in list of "
                        f"allowed values: float32, float64, int32, int64, string")
    return t


@tf_export("io.decode_csv", "decode_csv")
def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="",
               select_cols=None) -> list:
    """Converts CSV records (a string tensor) to one tensor per column.

    ``record_defaults`` has one entry per column: a one-element list or
    scalar giving the column's dtype (float32, float64, int32, int64 or
    string) and the value of an empty field, or an empty tensor of that
    dtype for a required column. ``select_cols`` (strictly increasing
    indices) reads only those columns. Each result has the shape of
    ``records``.
    """
    records = convert_to_tensor(records, dtype=dtypes.string, name="records")
    if not isinstance(record_defaults, (list, tuple)):
        raise TypeError(f"record_defaults must be a list, got {record_defaults!r}")
    defaults = [_default_tensor(v, i) for i, v in enumerate(record_defaults)]
    if not defaults:
        raise ValueError("record_defaults must name at least one column.")
    if not isinstance(field_delim, str) or len(field_delim.encode()) != 1:
        raise ValueError(f"field_delim should be only 1 char, got {field_delim!r}")
    if select_cols is not None:
        select_cols = tuple(int(c) for c in select_cols)
        if any(b <= a for a, b in zip(select_cols, select_cols[1:])):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    attrs = {"out_types": tuple(d.dtype for d in defaults), "field_delim": field_delim,
             "use_quote_delim": bool(use_quote_delim), "na_value": na_value or "", "select_cols": select_cols}
    op = apply_op("DecodeCSV", [records, *defaults], attrs, name=name or "DecodeCSV")
    return list(op.outputs)

