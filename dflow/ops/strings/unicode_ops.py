"""Unicode ops: ``tf.strings.unicode_decode`` (``_with_offsets``), ``unicode_split`` (``_with_offsets``),
``unicode_encode``, ``unicode_transcode`` and ``unicode_script``.

The kernels are TF's ops: ``UnicodeDecode`` gives ``row_splits`` and the code
points of all strings (and ``UnicodeDecodeWithOffsets`` each one's byte
offset), ``UnicodeEncode`` the reverse. Decode and split give a dense vector
for a scalar and a ``RaggedTensor`` (one more, ragged, dimension) for inputs
of rank 1 and more, as TF's; ``unicode_encode`` takes a dense code point
tensor (one string per row of its last dimension) or a RaggedTensor.

Decoding uses Python's codecs, whose ``replace`` error handling substitutes
one replacement character per maximal ill-formed subsequence, as ICU does
for TF (checked against TF 2.15 for UTF-8, UTF-16-BE and UTF-32-BE).
``unicode_script`` needs ICU's script property table, which neither numpy
nor Python's ``unicodedata`` carries: it raises NotImplementedError.
"""

from __future__ import annotations

import codecs

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument
from dflow.ops.strings.string_ops import as_bytes, map_strings, string_input

_OUTPUT_ENCODINGS = ("UTF-8", "UTF-16-BE", "UTF-32-BE")
_ERRORS = ("strict", "replace", "ignore")
_OPEN, _CLOSE = "\ud800", "\udbff"  # lone surrogates: a decoder never produces them from valid input


def _mark_error(exc):
    """Codec error handler: writes the ill-formed span as ``<OPEN>start,end<CLOSE>`` into the text."""
    return f"{_OPEN}{exc.start},{exc.end}{_CLOSE}", exc.end


codecs.register_error("dflow.unicode_mark", _mark_error)


def _check_attrs(op_type: str, errors: str, encoding: str | None = None) -> None:
    if errors not in _ERRORS:
        raise ValueError(f"Attr 'errors' of '{op_type}' Op passed string '{errors}' not in: \"strict\", "
                         f"\"replace\", \"ignore\".")
    if encoding is not None and encoding not in _OUTPUT_ENCODINGS:
        raise ValueError(f"Attr 'output_encoding' of '{op_type}' Op passed string '{encoding}' not in: "
                         f"\"UTF-8\", \"UTF-16-BE\", \"UTF-32-BE\".")


def _codec(encoding: str) -> str:
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        raise invalid_argument(f"Could not create converter for input encoding: {encoding}") from None


def decode_code_points(s: bytes, encoding: str, errors: str, replacement_char: int,
                       replace_control_characters: bool) -> tuple:
    """(code points, byte offsets) of ``s`` decoded from ``encoding`` with TF's error rules."""
    codec = _codec(encoding)
    text = s.decode(codec, "dflow.unicode_mark")
    bom = len(codecs.lookup(codec).encode("")[0])  # codecs with a byte order mark write it for any text
    points, offsets = [], []
    pos = i = 0
    while i < len(text):
        ch = text[i]
        if ch == _OPEN:
            close = text.index(_CLOSE, i)
            start, pos = (int(v) for v in text[i + 1:close].split(","))
            i = close + 1
            if errors == "strict":
                raise invalid_argument("Invalid formatting on input string")
            if errors == "replace":
                points.append(replacement_char)
                offsets.append(start)
            continue
        cp = ord(ch)
        if replace_control_characters and cp < 0x20:
            cp = replacement_char
        points.append(cp)
        offsets.append(pos)
        pos += len(ch.encode(codec)) - bom
        i += 1
    return points, offsets


def _valid_scalar(cp: int) -> bool:
    return 0 <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF


def encode_code_points(points, encoding: str, errors: str, replacement_char: int) -> bytes:
    """``points`` encoded as ``encoding`` with TF's rules for invalid code points."""
    chars = []
    for cp in points:
        cp = int(cp)
        if not _valid_scalar(cp):
            if errors == "strict":
                raise invalid_argument("Code point is out of range for Unicode, or a noncharacter.")
            if errors == "replace":
                cp = replacement_char
            elif 0xD800 <= cp <= 0xDFFF:
                cp = 0xFFFD  # ICU writes a lone surrogate it was given as its substitute
            else:
                continue
        chars.append(chr(cp) if _valid_scalar(cp) else "\ufffd")
    return "".join(chars).encode(encoding.lower())


# -- UnicodeDecode / UnicodeDecodeWithOffsets ----------------------------------------------------------------


def _decode_infer(op):
    n = op._inputs[0].shape.num_elements()
    outs = [(dtypes.int64, TensorShape([None if n is None else n + 1])), (dtypes.int32, TensorShape([None]))]
    if op._type == "UnicodeDecodeWithOffsets":
        outs.append((dtypes.int64, TensorShape([None])))
    return outs


def _decode_rows(x, input_encoding, errors, replacement_char, replace_control_characters):
    splits, points, offsets = [0], [], []
    for s in np.asarray(x, dtype=object).reshape(-1):
        p, o = decode_code_points(as_bytes(s), input_encoding, errors, replacement_char, replace_control_characters)
        points += p
        offsets += o
        splits.append(len(points))
    return np.array(splits, np.int64), np.array(points, np.int32), np.array(offsets, np.int64)


def _decode_kernel(x, **attrs):
    return _decode_rows(x, **attrs)[:2]


register("UnicodeDecode", infer=_decode_infer, kernel=_decode_kernel, gpu=False)
register("UnicodeDecodeWithOffsets", infer=_decode_infer, kernel=_decode_rows, gpu=False)
not_differentiable("UnicodeDecode")
not_differentiable("UnicodeDecodeWithOffsets")


def _decode(op_type: str, input, input_encoding, errors, replacement_char, replace_control_characters, name):  # noqa: A002
    """``(rank, input, outputs)``: the op's row splits, code points (and offsets) of the strings of
    ``input``, flattened when its rank is above 1 (TF's ``_unicode_decode``)."""
    from dflow.ops.array.shape_ops import reshape

    _check_attrs(op_type, errors)
    with name_scope(name, op_type, [input]):
        x = string_input(input, op_type)
        rank = x.shape.ndims
        if rank is None:
            raise ValueError("Rank of `input` must be statically known.")
        outs = apply_op(op_type, [reshape(x, [-1]) if rank > 1 else x],
                        {"input_encoding": input_encoding, "errors": errors, "replacement_char": int(replacement_char),
                         "replace_control_characters": bool(replace_control_characters)}, name=op_type).outputs
        return rank, x, outs


def _rows(rank: int, x, splits, values):
    """``values`` cut into the rows of the strings of ``x``: a RaggedTensor for rank >= 1 (with
    ``x``'s dense dimensions as uniform outer ones), the values themselves for a scalar."""
    if rank == 0:
        return values
    from dflow.ops.ragged.ragged_tensor import RaggedTensor

    rows = RaggedTensor.from_row_splits(values, splits, validate=False)
    if rank > 1:
        rows = RaggedTensor.from_tensor(x, ragged_rank=rank - 1).with_flat_values(rows)
    return rows


@tf_export("strings.unicode_decode")
def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
    """The int32 code points of each string of ``input`` decoded from ``input_encoding``: a vector
    for a scalar, a RaggedTensor with one more (ragged) dimension otherwise.

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.unicode_decode("aé", "UTF-8")).tolist()
    [97, 233]
    """
    rank, x, outs = _decode("UnicodeDecode", input, input_encoding, errors, replacement_char,
                            replace_control_characters, name)
    return _rows(rank, x, outs[0], outs[1])


@tf_export("strings.unicode_decode_with_offsets")
def unicode_decode_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                                replace_control_characters=False, name=None):
    """``(code points, byte offsets)`` of each string of ``input`` (int32, int64; ragged for rank >= 1)."""
    rank, x, outs = _decode("UnicodeDecodeWithOffsets", input, input_encoding, errors, replacement_char,
                            replace_control_characters, name)
    return _rows(rank, x, outs[0], outs[1]), _rows(rank, x, outs[0], outs[2])


# -- UnicodeEncode --------------------------------------------------------------------------------------------


def _encode_kernel(input_values, input_splits, output_encoding, errors, replacement_char):
    values = np.asarray(input_values).reshape(-1)
    splits = np.asarray(input_splits).reshape(-1).tolist()
    out = np.empty(max(len(splits) - 1, 0), dtype=object)
    out[:] = [encode_code_points(values[a:b], output_encoding, errors, replacement_char)
              for a, b in zip(splits[:-1], splits[1:])]
    return out


register("UnicodeEncode", infer=lambda op: [(dtypes.string, TensorShape([None]))], kernel=_encode_kernel,
         gpu=False)
not_differentiable("UnicodeEncode")


def _encode_rows(values, splits, output_encoding, errors, replacement_char):
    return apply_op("UnicodeEncode", [values, splits],
                    {"output_encoding": output_encoding, "errors": errors,
                     "replacement_char": int(replacement_char)}, name="UnicodeEncode").outputs[0]


@tf_export("strings.unicode_encode")
def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Encodes each row of the last dimension of the int32 code point tensor ``input`` (or of a
    RaggedTensor's innermost rows) as one string of ``output_encoding`` (UTF-8, UTF-16-BE or
    UTF-32-BE): rank N in, rank N-1 out.

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.unicode_encode([104, 233], "UTF-8"))
    b'h\\xc3\\xa9'
    """
    from dflow.ops.array.shape_ops import reshape
    from dflow.ops.strings.string_split_ops import rows_of_last_dimension

    _check_attrs("UnicodeEncode", errors, output_encoding)
    with name_scope(name, "UnicodeEncode", [input]):
        if getattr(input, "_is_ragged", False):  # TF's three cases for a RaggedTensor of code points
            if input.flat_values.shape.ndims is not None and input.flat_values.shape.ndims > 1:
                return input.with_flat_values(unicode_encode(input.flat_values, output_encoding, errors,
                                                             replacement_char))
            if input.ragged_rank == 1:
                return _encode_rows(input.values, input.row_splits, output_encoding, errors, replacement_char)
            return input.with_values(unicode_encode(input.values, output_encoding, errors, replacement_char))
        x = convert_to_tensor(input, dtype=dtypes.int32, name="input")
        if x.shape.ndims is None:
            raise ValueError("Rank of input_tensor must be statically known.")
        if x.shape.ndims == 0:
            raise ValueError("input_tensor's rank must be at least 1.")
        dims, flat, splits = rows_of_last_dimension(x)
        out = _encode_rows(flat, splits, output_encoding, errors, replacement_char)
        out = reshape(out, dims[:-1])
        out.set_shape(x.shape[:-1])
        return out


# -- UnicodeTranscode -----------------------------------------------------------------------------------------


def _transcode_kernel(x, input_encoding, output_encoding, errors, replacement_char, replace_control_characters):
    def one(s: bytes) -> bytes:
        points, _ = decode_code_points(s, input_encoding, errors, replacement_char, replace_control_characters)
        return encode_code_points(points, output_encoding, "replace", replacement_char)

    return map_strings(x, one)


register("UnicodeTranscode", infer=lambda op: [(dtypes.string, op._inputs[0].shape)], kernel=_transcode_kernel,
         gpu=False)
not_differentiable("UnicodeTranscode")


@tf_export("strings.unicode_transcode")
def unicode_transcode(input, input_encoding, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                      replace_control_characters=False, name=None):
    """Re-encodes each string of ``input`` from ``input_encoding`` to ``output_encoding``."""
    _check_attrs("UnicodeTranscode", errors, output_encoding)
    with name_scope(name, "UnicodeTranscode", [input]) as scope:
        x = string_input(input, "UnicodeTranscode")
        return apply_op("UnicodeTranscode", [x],
                        {"input_encoding": input_encoding, "output_encoding": output_encoding, "errors": errors,
                         "replacement_char": int(replacement_char),
                         "replace_control_characters": bool(replace_control_characters)}, name=scope).outputs[0]


# -- unicode_split -----------------------------------------------------------------------------------------------


def _split(input, input_encoding, errors, replacement_char, name, default_name, with_offsets):  # noqa: A002
    from dflow.ops.array.creation_ops import range as range_
    from dflow.ops.array.shape_ops import size

    _check_attrs("UnicodeEncode", errors, input_encoding)
    with name_scope(name, default_name, [input]):
        rank, x, outs = _decode("UnicodeDecodeWithOffsets", input, input_encoding, errors, replacement_char, False,
                                None)
        splits, points = outs[0], outs[1]
        # One string per code point, re-encoded in the input's encoding (as TF does).
        chars = _encode_rows(points, range_(0, size(points, out_type=dtypes.int64) + 1, 1, dtype=dtypes.int64),
                             input_encoding, errors, replacement_char)
        chars = _rows(rank, x, splits, chars)
        return (chars, _rows(rank, x, splits, outs[2])) if with_offsets else chars


@tf_export("strings.unicode_split")
def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """The characters of each string of ``input``, one string each (ragged for rank >= 1).

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.unicode_split("aé", "UTF-8")).tolist()
    [b'a', b'\\xc3\\xa9']
    """
    return _split(input, input_encoding, errors, replacement_char, name, "UnicodeSplit", False)


@tf_export("strings.unicode_split_with_offsets")
def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                               name=None):
    """``(characters, byte offsets)`` of each string of ``input`` (ragged for rank >= 1)."""
    return _split(input, input_encoding, errors, replacement_char, name, "UnicodeSplitWithOffsets", True)


@tf_export("strings.unicode_script")
def unicode_script(input, name=None):  # noqa: A002
    """ICU's script code of each code point: not available in dflow."""
    raise NotImplementedError("strings.unicode_script: needs ICU's Unicode script property table, which dflow's "
                              "dependencies (numpy, Python's unicodedata) do not carry")
