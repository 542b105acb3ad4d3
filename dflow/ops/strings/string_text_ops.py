"""Element-wise string ops: ``tf.strings.join``/``reduce_join``/``unsorted_segment_join``, ``strip``,
``lower``/``upper``, ``length``, ``substr``, ``to_number``, ``regex_replace``/``regex_full_match`` and
``format``.

Strings are numpy object arrays of ``bytes``, as everywhere in dflow. Kernels
work on bytes as TF's do; the ``UTF8_CHAR`` unit and ``encoding="utf-8"``
decode first. Regular expressions are RE2's syntax: ``_compile_re2`` turns a
pattern into a Python ``re`` pattern where the two agree (``\\w``, ``\\d``, ``\\s``
and ``\\b`` ASCII, ``\\z``, POSIX classes, ``\\Q...\\E``) and rejects what RE2
rejects (backreferences, lookarounds) with TF's message.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, constant_value, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, broadcast_shapes
from dflow.ops._common import invalid_argument, same_as_input
from dflow.ops.debugging.summarize import summarize_v2
from dflow.ops.strings.string_ops import as_bytes, map_strings, string_input


def _object_array(items, shape) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out.reshape(shape)


def _check_unit(unit: str, op_type: str) -> str:
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"Attr 'unit' of '{op_type}' Op passed string '{unit}' not in: \"BYTE\", \"UTF8_CHAR\".")
    return unit


def _check_encoding(encoding: str, op_type: str) -> str:
    if encoding not in ("", "utf-8"):
        raise ValueError(f"Attr 'encoding' of '{op_type}' Op passed string '{encoding}' not in: \"\", \"utf-8\".")
    return encoding


# -- StringJoin ------------------------------------------------------------------------------


def _join_infer(op):
    shape = TensorShape([])
    for t in op._inputs:
        if t.shape.ndims != 0:
            shape = shape.merge_with(t.shape) if shape.ndims != 0 else t.shape
    return [(dtypes.string, shape)]


def _join_kernel(*inputs, separator):
    arrays = [np.asarray(x, dtype=object) for x in inputs]
    shape = next((a.shape for a in arrays if a.ndim), ())
    for a in arrays:
        if a.ndim and a.shape != shape:
            raise invalid_argument(f"Input shapes do not match: {list(shape)} vs. {list(a.shape)}")
    cols = [np.broadcast_to(a, shape).ravel() for a in arrays]
    sep = as_bytes(separator)
    items = [sep.join(as_bytes(c[i]) for c in cols) for i in range(int(np.prod(shape, dtype=np.int64)))]
    return _object_array(items, shape)


register("StringJoin", infer=_join_infer, kernel=_join_kernel, gpu=False)
not_differentiable("StringJoin")


@tf_export("strings.join", "string_join")
def string_join(inputs, separator="", name=None):
    """Joins ``inputs`` (string tensors of one shape, or scalars) element-wise with ``separator``.

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.join([["a", "b"], "x"], separator="-")).tolist()
    [b'a-x', b'b-x']
    """
    with name_scope(name, "StringJoin", inputs) as scope:
        xs = [string_input(x, "StringJoin", f"inputs_{i}") for i, x in enumerate(inputs)]
        return apply_op("StringJoin", xs, {"separator": separator}, name=scope).outputs[0]


# -- ReduceJoin --------------------------------------------------------------------------------


def _reduce_join_axes(op):
    x = op._inputs[0]
    axes = constant_value(op._inputs[1])
    if axes is None or x.shape.ndims is None:
        return None
    rank = x.shape.ndims
    out = []
    for a in np.asarray(axes).reshape(-1).tolist():
        if not -rank <= a < rank:
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise ValueError(f"Duplicate reduction dimension {out}")
    return out


def _reduce_join_infer(op):
    x = op._inputs[0]
    axes = _reduce_join_axes(op)
    keep = op._attrs["keep_dims"]
    if axes is None:
        if keep and x.shape.ndims is not None:
            return [(dtypes.string, TensorShape([None] * x.shape.ndims))]
        return [(dtypes.string, TensorShape(None))]
    dims = x.shape.as_list()
    shape = [1 if i in axes else d for i, d in enumerate(dims)] if keep else \
        [d for i, d in enumerate(dims) if i not in axes]
    return [(dtypes.string, TensorShape(shape))]


def _reduce_join_kernel(x, reduction_indices, keep_dims, separator):
    x = np.asarray(x, dtype=object)
    rank = x.ndim
    axes = [int(a) for a in np.asarray(reduction_indices).reshape(-1)]
    for a in axes:
        if not -rank <= a < rank:
            raise invalid_argument(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
    axes = [a % rank for a in axes]
    # The first listed axis varies fastest in each joined string, as TF's.
    kept = [i for i in range(rank) if i not in axes]
    moved = np.transpose(x, kept + axes[::-1])
    out_shape = moved.shape[:len(kept)]
    rows = moved.reshape(int(np.prod(out_shape, dtype=np.int64)), -1)
    sep = as_bytes(separator)
    out = _object_array([sep.join(as_bytes(v) for v in row) for row in rows], out_shape)
    if keep_dims:
        out = out.reshape([1 if i in axes else d for i, d in enumerate(x.shape)])
    return out


register("ReduceJoin", infer=_reduce_join_infer, kernel=_reduce_join_kernel, gpu=False)
not_differentiable("ReduceJoin")


@tf_export("strings.reduce_join", "reduce_join")
def reduce_join(inputs, axis=None, keep_dims=None, separator="", name=None, reduction_indices=None,
                keepdims=None):
    """Joins the strings of ``inputs`` along ``axis`` (all axes when None) with ``separator``.

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.reduce_join([["a", "b"], ["c", "d"]], 0, separator=",")).tolist()
    [b'a,c', b'b,d']
    """
    if axis is not None and reduction_indices is not None:
        raise ValueError("Cannot specify both 'axis' and 'reduction_indices'.")
    if keep_dims is not None and keepdims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'.")
    axis = reduction_indices if axis is None else axis
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(name, "ReduceJoin", [inputs, axis]):
        x = string_input(inputs, "ReduceJoin", "inputs")
        if axis is None and x.shape.ndims is None:  # every axis, last first, as TF's
            from dflow.ops.array.creation_ops import range as range_
            from dflow.ops.array.shape_ops import rank

            axes = range_(rank(x) - 1, -1, -1)
        elif axis is None:
            axes = convert_to_tensor(list(range(x.shape.ndims - 1, -1, -1)), dtype=dtypes.int32, name="Const")
        else:
            axes = convert_to_tensor(axis, dtype=dtypes.int32, name="reduction_indices")
        return apply_op("ReduceJoin", [x, axes], {"keep_dims": keep, "separator": separator},
                        name="ReduceJoin").outputs[0]


# -- UnsortedSegmentJoin ---------------------------------------------------------------------------


def _segment_join_infer(op):
    x, ids, num = op._inputs
    n = constant_value(num)
    lead = TensorShape([None if n is None else int(n)])
    if x.shape.ndims is None or ids.shape.ndims is None:
        return [(dtypes.string, TensorShape(None))]
    x.shape[:ids.shape.ndims].assert_is_compatible_with(ids.shape)
    return [(dtypes.string, lead.concatenate(x.shape[ids.shape.ndims:]))]


def _segment_join_kernel(x, segment_ids, num_segments, separator):
    x = np.asarray(x, dtype=object)
    ids = np.asarray(segment_ids).reshape(-1)
    n = int(num_segments)
    if np.any(ids < 0) or np.any(ids >= n):
        raise invalid_argument("segment_ids are not allowed to exceed num_segments or to have negative values.")
    inner = x.shape[np.ndim(segment_ids):]
    rows = x.reshape((ids.size, -1))
    width = rows.shape[1]
    parts: list = [[[] for _ in range(width)] for _ in range(n)]
    for r, s in enumerate(ids.tolist()):
        for c in range(width):
            parts[s][c].append(as_bytes(rows[r, c]))
    sep = as_bytes(separator)
    return _object_array([sep.join(p) for seg in parts for p in seg], (n, *inner))


register("UnsortedSegmentJoin", infer=_segment_join_infer, kernel=_segment_join_kernel, gpu=False)
not_differentiable("UnsortedSegmentJoin")


@tf_export("strings.unsorted_segment_join")
def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """Joins the strings of ``inputs`` that share a segment id; empty segments give ``""``."""
    with name_scope(name, "UnsortedSegmentJoin", [inputs, segment_ids, num_segments]) as scope:
        x = string_input(inputs, "UnsortedSegmentJoin", "inputs")
        ids = convert_to_tensor(segment_ids, name="segment_ids")
        num = convert_to_tensor(num_segments, name="num_segments")
        for t, arg in ((ids, "segment_ids"), (num, "num_segments")):
            if t.dtype not in (dtypes.int32, dtypes.int64):
                raise TypeError(f"Value passed to parameter '{arg}' has DataType {t.dtype.name} not in list of "
                                f"allowed values: int32, int64")
        return apply_op("UnsortedSegmentJoin", [x, ids, num], {"separator": separator}, name=scope).outputs[0]


# -- StringStrip, StringLower, StringUpper, StringLength -----------------------------------------------

_ASCII_SPACE = b" \t\n\v\f\r"


def _case_kernel(upper: bool):
    def kernel(x, encoding):
        if encoding:
            def fn(s):
                t = s.decode("utf-8", "surrogateescape")
                return (t.upper() if upper else t.lower()).encode("utf-8", "surrogateescape")
        else:
            fn = bytes.upper if upper else bytes.lower
        return map_strings(x, fn)

    return kernel


register("StringStrip", infer=same_as_input, kernel=lambda x: map_strings(x, lambda s: s.strip(_ASCII_SPACE)),
         gpu=False)
register("StringLower", infer=same_as_input, kernel=_case_kernel(False), gpu=False)
register("StringUpper", infer=same_as_input, kernel=_case_kernel(True), gpu=False)
for _type in ("StringStrip", "StringLower", "StringUpper"):
    not_differentiable(_type)


@tf_export("strings.strip", "string_strip")
def string_strip(input, name=None):  # noqa: A002 - TF1 argument name
    """Strips leading and trailing ASCII whitespace from each string."""
    with name_scope(name, "StringStrip", [input]) as scope:
        return apply_op("StringStrip", [string_input(input, "StringStrip")], name=scope).outputs[0]


def _change_case(op_type: str, input, encoding: str, name):  # noqa: A002
    with name_scope(name, op_type, [input]) as scope:
        x = string_input(input, op_type)
        return apply_op(op_type, [x], {"encoding": _check_encoding(encoding, op_type)}, name=scope).outputs[0]


@tf_export("strings.lower")
def lower(input, encoding="", name=None):  # noqa: A002
    """Lower-cases each string: ASCII letters only, or all of Unicode with ``encoding="utf-8"``."""
    return _change_case("StringLower", input, encoding, name)


@tf_export("strings.upper")
def upper(input, encoding="", name=None):  # noqa: A002
    """Upper-cases each string: ASCII letters only, or all of Unicode with ``encoding="utf-8"``."""
    return _change_case("StringUpper", input, encoding, name)


def utf8_char_starts(s: bytes) -> list:
    """Byte offsets where the UTF-8 characters of ``s`` start (every byte that is not a continuation
    byte, as TF counts ``UTF8_CHAR`` units, so invalid bytes count as one character each)."""
    return [i for i, b in enumerate(s) if b & 0xC0 != 0x80]


def _length_kernel(x, unit):
    fn = len if unit == "BYTE" else (lambda s: len(utf8_char_starts(s)))
    return map_strings(x, fn, np.int32)


register("StringLength", infer=lambda op: [(dtypes.int32, op._inputs[0].shape)], kernel=_length_kernel, gpu=False)
not_differentiable("StringLength")


@tf_export("strings.length")
def length(input, name=None, unit="BYTE"):  # noqa: A002
    """The int32 length of each string, in bytes or (``unit="UTF8_CHAR"``) UTF-8 characters."""
    with name_scope(name, "StringLength", [input]) as scope:
        x = string_input(input, "StringLength")
        return apply_op("StringLength", [x], {"unit": _check_unit(unit, "StringLength")}, name=scope).outputs[0]


# -- Substr ------------------------------------------------------------------------------------------


def _substr_infer(op):
    x, pos, n = op._inputs
    if pos.shape.ndims is not None and n.shape.ndims is not None and pos.shape.ndims != n.shape.ndims:
        raise ValueError(f"Shape must be rank {n.shape.ndims} but is rank {pos.shape.ndims}")
    pos.shape.assert_is_compatible_with(n.shape)
    return [(dtypes.string, broadcast_shapes(x.shape, pos.shape))]


def _substr_kernel(x, pos, length, unit):
    x = np.asarray(x, dtype=object)
    pos, n = np.asarray(pos), np.asarray(length)
    if pos.shape != n.shape:
        raise invalid_argument(f"pos and len should have the same shape, got: {list(pos.shape)} vs. "
                               f"{list(n.shape)}")
    shape = np.broadcast_shapes(x.shape, pos.shape)
    xs, ps, ns = (np.broadcast_to(a, shape).ravel() for a in (x, pos, n))
    items = []
    for i, (s, p, k) in enumerate(zip(xs, ps.tolist(), ns.tolist())):
        s = as_bytes(s)
        starts = list(range(len(s) + 1)) if unit == "BYTE" else utf8_char_starts(s) + [len(s)]
        size = len(starts) - 1
        if not -size <= p <= size:
            what = f"string b'{s.decode('utf-8', 'backslashreplace')}'" if unit == "BYTE" else "string"
            raise invalid_argument(f"pos {p} out of range for {what} at index {i}")
        p = p + size if p < 0 else p
        end = size if k < 0 else min(p + k, size)
        items.append(s[starts[p]:starts[max(end, p)]])
    return _object_array(items, shape)


register("Substr", infer=_substr_infer, kernel=_substr_kernel, gpu=False)
not_differentiable("Substr")


@tf_export("strings.substr", "substr")
def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002 - TF1 argument names
    """``len`` bytes (or UTF-8 characters) of each string from ``pos`` (negative: from the end).

    ``pos`` and ``len`` have one shape, broadcast against ``input``'s. A ``pos`` past the end
    of a string is an InvalidArgumentError; a ``len`` past it stops at the end.
    """
    with name_scope(name, "Substr", [input, pos, len]) as scope:
        x = string_input(input, "Substr")
        p = convert_to_tensor(pos, name="pos", preferred_dtype=dtypes.int32)
        n = convert_to_tensor(len, name="len", dtype=p.dtype)
        if p.dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"Value passed to parameter 'pos' has DataType {p.dtype.name} not in list of allowed "
                            f"values: int32, int64")
        return apply_op("Substr", [x, p, n], {"unit": _check_unit(unit, "Substr")}, name=scope).outputs[0]


# -- StringToNumber ------------------------------------------------------------------------------------

_FLOAT_TEXT = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|nan)|[+-]?0[xX][0-9a-fA-F]+",
                         re.IGNORECASE)
_INT_TEXT = re.compile(rb"-?\d+")
_INT_RANGE = {np.int32: (-2 ** 31, 2 ** 31 - 1), np.int64: (-2 ** 63, 2 ** 63 - 1)}


def _to_number_kernel(x, out_type):
    np_type = out_type.as_numpy_dtype

    def parse(s: bytes):
        text = s.strip(_ASCII_SPACE)
        if np_type in _INT_RANGE:
            lo, hi = _INT_RANGE[np_type]
            if _INT_TEXT.fullmatch(text) and lo <= int(text) <= hi:
                return int(text)
        elif _FLOAT_TEXT.fullmatch(text):
            if text.lower().lstrip(b"+-").startswith(b"0x"):
                value = float.fromhex(text.decode())
            else:
                value = text.decode()
            if text.lower().lstrip(b"+-") == b"nan":
                value = "nan"
            with np.errstate(over="ignore"):
                return np_type(value)
        raise invalid_argument(f"StringToNumberOp could not correctly convert string: "
                               f"{s.decode('utf-8', 'backslashreplace')}")

    return map_strings(x, parse, np_type)


register("StringToNumber", infer=lambda op: [(op._attrs["out_type"], op._inputs[0].shape)],
         kernel=_to_number_kernel, gpu=False)
not_differentiable("StringToNumber")


@tf_export("strings.to_number", "string_to_number")
def string_to_number(string_tensor=None, out_type=dtypes.float32, name=None, input=None):  # noqa: A002
    """Parses each string as a number of ``out_type`` (float32, float64, int32 or int64).

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.to_number(["1.5", " -2"])).tolist()
    [1.5, -2.0]
    """
    if input is not None:
        string_tensor = input
    out_type = dtypes.as_dtype(out_type)
    if out_type not in (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64):
        raise TypeError(f"Value passed to parameter 'out_type' has DataType {out_type.name} not in list of "
                        f"allowed values: float32, float64, int32, int64")
    with name_scope(name, "StringToNumber", [string_tensor]) as scope:
        x = string_input(string_tensor, "StringToNumber", "string_tensor")
        return apply_op("StringToNumber", [x], {"out_type": out_type}, name=scope).outputs[0]


# -- regular expressions (RE2 syntax) -----------------------------------------------------------------

_POSIX_CLASSES = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ", "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f",
}


class _RE2Error(Exception):
    pass


def _translate_re2(pattern: str) -> str:
    """An RE2 pattern as a Python ``re`` pattern (applied with ``re.ASCII``), or _RE2Error."""
    out = []
    i, n = 0, len(pattern)
    multiline = re.search(r"\(\?[a-zA-Z]*m", pattern) is not None
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                raise _RE2Error("trailing \\")
            e = pattern[i + 1]
            if e.isdigit() and e != "0":
                raise _RE2Error(f"invalid escape sequence: \\{e}")
            if e == "z":
                out.append("\\Z")
            elif e == "Z":
                raise _RE2Error("invalid escape sequence: \\Z")
            elif e in "pP":
                raise NotImplementedError("regex: Unicode classes (\\p, \\P) of RE2 are not supported by dflow")
            elif e == "C":
                raise NotImplementedError("regex: RE2's \\C (any byte) is not supported by dflow")
            elif e == "Q":
                end = pattern.find("\\E", i + 2)
                end = n if end < 0 else end
                out.append(re.escape(pattern[i + 2:end]))
                i = end + 2
                continue
            else:
                out.append(pattern[i:i + 2])
            i += 2
            continue
        if c == "[":
            j = i + 1
            out.append("[")
            if j < n and pattern[j] == "^":
                out.append("^")
                j += 1
            if j < n and pattern[j] == "]":
                out.append("\\]")
                j += 1
            while j < n and pattern[j] != "]":
                m = re.match(r"\[:(\^?)([a-z]+):\]", pattern[j:])
                if m:
                    if m.group(2) not in _POSIX_CLASSES:
                        raise _RE2Error(f"invalid character class range: {m.group(0)}")
                    if m.group(1):
                        raise NotImplementedError("regex: negated POSIX classes ([:^name:]) are not supported")
                    out.append(_POSIX_CLASSES[m.group(2)])
                    j += m.end()
                elif pattern[j] == "\\" and j + 1 < n:
                    out.append(pattern[j:j + 2])
                    j += 2
                elif pattern[j] == "[":
                    out.append("\\[")
                    j += 1
                else:
                    out.append(pattern[j])
                    j += 1
            if j >= n:
                raise _RE2Error(f"missing ]: {pattern[i:]}")
            out.append("]")
            i = j + 1
            continue
        if c == "$" and not multiline:
            out.append("\\Z")
            i += 1
            continue
        if pattern.startswith("(?", i):
            if pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
                raise _RE2Error(f"invalid perl operator: {pattern[i:i + 3]}")
            if pattern.startswith("(?P=", i):
                raise _RE2Error(f"invalid named capture group: {pattern[i:i + 4]}")
        out.append(c)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=256)
def compile_re2(pattern: bytes) -> re.Pattern:
    """``pattern`` (RE2 syntax, UTF-8) compiled for ``str`` subjects decoded with surrogateescape."""
    text = pattern.decode("utf-8", "surrogateescape")
    try:
        return re.compile(_translate_re2(text), re.ASCII)
    except (_RE2Error, re.error) as e:
        raise invalid_argument(f"Invalid pattern: {text}, error: {e}") from None


def _decode(s: bytes) -> str:
    return s.decode("utf-8", "surrogateescape")


def _rewrite_fn(rewrite: bytes, groups: int):
    """RE2's rewrite string (``\\0``-``\\9`` groups, ``\\\\`` a backslash) as a match -> str function."""
    parts: list = []
    text = _decode(rewrite)
    i = 0
    literal = []
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and (text[i + 1].isdigit() or text[i + 1] == "\\"):
            if text[i + 1] == "\\":
                literal.append("\\")
            else:
                k = int(text[i + 1])
                if k > groups:
                    return None  # RE2 refuses the rewrite: TF leaves the input unchanged
                parts.append("".join(literal))
                literal = []
                parts.append(k)
            i += 2
            continue
        if c == "\\":
            return None
        literal.append(c)
        i += 1
    parts.append("".join(literal))
    return lambda m: "".join(p if isinstance(p, str) else (m.group(p) or "") for p in parts)


def _regex_replace_kernel(x, pattern, rewrite, replace_global):
    regex = compile_re2(as_bytes(np.asarray(pattern, dtype=object).item()))
    repl = _rewrite_fn(as_bytes(np.asarray(rewrite, dtype=object).item()), regex.groups)
    if repl is None:
        return np.asarray(x, dtype=object).copy()
    count = 0 if replace_global else 1
    return map_strings(x, lambda s: regex.sub(repl, _decode(s), count=count).encode("utf-8", "surrogateescape"))


def _static_regex_replace_kernel(x, pattern, rewrite, replace_global):
    return _regex_replace_kernel(x, pattern, rewrite, replace_global)


def _full_match_kernel(x, pattern):
    regex = compile_re2(as_bytes(np.asarray(pattern, dtype=object).item()))
    return map_strings(x, lambda s: regex.fullmatch(_decode(s)) is not None, np.bool_)


def _bool_like_input(op):
    return [(dtypes.bool, op._inputs[0].shape)]


register("RegexReplace", infer=same_as_input, kernel=_regex_replace_kernel, gpu=False)
register("StaticRegexReplace", infer=same_as_input, kernel=_static_regex_replace_kernel, gpu=False)
register("RegexFullMatch", infer=_bool_like_input, kernel=_full_match_kernel, gpu=False)
register("StaticRegexFullMatch", infer=_bool_like_input, kernel=_full_match_kernel, gpu=False)
for _type in ("RegexReplace", "StaticRegexReplace", "RegexFullMatch", "StaticRegexFullMatch"):
    not_differentiable(_type)


def _is_python_string(v) -> bool:
    return isinstance(v, (str, bytes))


@tf_export("strings.regex_replace", "regex_replace")
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Replaces matches of the RE2 ``pattern`` in each string with ``rewrite`` (``\\1`` a group).

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.regex_replace(["hello world"], "o", "0")).tolist()
    [b'hell0 w0rld']
    """
    static = _is_python_string(pattern) and _is_python_string(rewrite)
    with name_scope(name, "StaticRegexReplace" if static else "RegexReplace", [input]) as scope:
        x = string_input(input, "RegexReplace")
        if static:
            return apply_op("StaticRegexReplace", [x],
                            {"pattern": as_bytes(pattern), "rewrite": as_bytes(rewrite),
                             "replace_global": bool(replace_global)}, name=scope).outputs[0]
        p = string_input(pattern, "RegexReplace", "pattern")
        r = string_input(rewrite, "RegexReplace", "rewrite")
        return apply_op("RegexReplace", [x, p, r], {"replace_global": bool(replace_global)}, name=scope).outputs[0]


@tf_export("strings.regex_full_match")
def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each whole string matches the RE2 ``pattern`` (bool)."""
    if _is_python_string(pattern):
        x = string_input(input, "StaticRegexFullMatch")
        return apply_op("StaticRegexFullMatch", [x], {"pattern": as_bytes(pattern)},
                        name=name or "StaticRegexFullMatch").outputs[0]
    x = string_input(input, "RegexFullMatch")
    p = string_input(pattern, "RegexFullMatch", "pattern")
    return apply_op("RegexFullMatch", [x, p], name=name or "RegexFullMatch").outputs[0]


# -- StringFormat ------------------------------------------------------------------------------------


def _format_kernel(*inputs, template, placeholder, summarize):
    pieces = template.split(placeholder)
    out = [pieces[0]]
    for value, piece in zip(inputs, pieces[1:]):
        out.append(summarize_v2(value, summarize))
        out.append(piece)
    return np.array("".join(out).encode("utf-8"), dtype=object)


register("StringFormat", infer=lambda op: [(dtypes.string, TensorShape([]))], kernel=_format_kernel, gpu=False)
not_differentiable("StringFormat")


@tf_export("strings.format")
def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """A scalar string: ``template`` with each ``placeholder`` replaced by one of ``inputs``,
    printed as ``tf.print`` does (the first and last ``summarize`` entries of each dimension).

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.format("x={}", tf.constant([1, 2])))
    b'x=[1 2]'
    """
    if isinstance(inputs, (list, tuple)):
        inputs = list(inputs)
    else:
        inputs = [inputs]
    expected = template.count(placeholder)
    if expected != len(inputs):
        raise ValueError(f"The template expects {expected} tensors, but the inputs only has {len(inputs)}. "
                         f"Please ensure the number of placeholders in template matches inputs length.")
    with name_scope(name, "StringFormat", inputs) as scope:
        xs = [convert_to_tensor(x) for x in inputs]
        return apply_op("StringFormat", xs, {"template": template, "placeholder": placeholder,
                                              "summarize": int(summarize)}, name=scope).outputs[0]

