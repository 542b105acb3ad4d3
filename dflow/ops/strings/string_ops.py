"""String hashing ops: ``tf.strings.to_hash_bucket_fast`` (and ``_strong``, the deprecated
``to_hash_bucket``), ``tf.fingerprint`` and ``tf.strings.as_string``.

TF1 hashes strings into buckets with FarmHash's ``Fingerprint64``
(``farmhashna::Hash64``): ``to_hash_bucket_fast(s, n) == Fingerprint64(s) mod
n``. ``fingerprint64`` (``dflow/kernels/strings.py``) is that function in pure Python (64-bit
arithmetic masked by hand), so bucket assignments equal TF1's exactly; the
feature columns (``categorical_column_with_hash_bucket``, vocabulary OOV
buckets, ``crossed_column``) are built on it. ``to_hash_bucket`` uses TF's
older ``Hash64`` and ``to_hash_bucket_strong`` SipHash-2-4, both also in pure
Python. ``as_string`` formats numbers with C's printf rules, as TF1 (integers
become their decimal strings before integer features are hashed).
"""

from __future__ import annotations

import functools

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.kernels.strings import _M, as_bytes, fingerprint64, fingerprint_cat64, hash64, siphash24  # noqa: F401

# -- StringToHashBucketFast, StringToHashBucket, StringToHashBucketStrong ----------------------------


def string_input(value, op_type: str, arg: str = "input"):
    """``value`` as a string Tensor, or TF's TypeError naming ``op_type`` and ``arg``."""
    x = convert_to_tensor(value, name=arg, preferred_dtype=dtypes.string)
    if x.dtype is not dtypes.string:
        raise TypeError(f"Input '{arg}' of '{op_type}' Op has type {x.dtype.name} that does not match expected "
                        f"type of string.")
    return x


def map_strings(x, fn, dtype=object):
    """``fn(bytes)`` applied to every element of the string array ``x``, as an array of ``dtype``."""
    flat = np.asarray(x, dtype=object).ravel()
    if dtype is object:
        out = np.empty(flat.size, dtype=object)
        out[:] = [fn(as_bytes(v)) for v in flat]
    else:
        out = np.fromiter((fn(as_bytes(v)) for v in flat), dtype=dtype, count=flat.size)
    return out.reshape(np.shape(x))


def _to_hash_bucket_infer(op):
    return [(dtypes.int64, op._inputs[0].shape)]


def _hash_bucket_kernel(hash_fn):
    def kernel(x, num_buckets, key=None):
        if key is not None and len(key) != 2:
            raise errors.InvalidArgumentError(None, None, f"Key must have 2 elements, got {len(key)}")
        h = hash_fn if key is None else functools.partial(siphash24, key)
        return map_strings(x, lambda s: h(s) % num_buckets, np.int64)

    return kernel


for _type, _fn in (("StringToHashBucketFast", fingerprint64), ("StringToHashBucket", hash64),
                   ("StringToHashBucketStrong", siphash24)):
    register(_type, infer=_to_hash_bucket_infer, kernel=_hash_bucket_kernel(_fn), gpu=False)
    not_differentiable(_type)


def _hash_bucket(op_type: str, arg: str, input, num_buckets, name, attrs=None):  # noqa: A002
    if isinstance(num_buckets, bool) or not isinstance(num_buckets, (int, np.integer)):
        raise TypeError(f"Expected int for argument 'num_buckets' not {num_buckets!r}.")
    if num_buckets < 1:
        raise ValueError(f"Attr 'num_buckets' of '{op_type}' Op passed {num_buckets} less than minimum 1.")
    with name_scope(name, op_type, [input]) as scope:
        x = string_input(input, op_type, arg)
        return apply_op(op_type, [x], {"num_buckets": int(num_buckets), **(attrs or {})}, name=scope).outputs[0]


@tf_export("strings.to_hash_bucket_fast", "string_to_hash_bucket_fast")
def string_to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002 - TF1 argument name
    """Hashes each string of ``input`` to ``Fingerprint64(s) mod num_buckets`` (int64), as TF1.

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.to_hash_bucket_fast(["hello", ""], 1000)).tolist()
    [296, 263]
    """
    return _hash_bucket("StringToHashBucketFast", "input", input, num_buckets, name)


@tf_export("strings.to_hash_bucket", "string_to_hash_bucket")
def string_to_hash_bucket(string_tensor=None, num_buckets=None, name=None, input=None):  # noqa: A002
    """Hashes each string to ``Hash64(s) mod num_buckets`` with TF's older ``Hash64`` (deprecated in TF1
    in favour of ``to_hash_bucket_fast``, whose buckets differ)."""
    if input is not None:
        string_tensor = input
    return _hash_bucket("StringToHashBucket", "string_tensor", string_tensor, num_buckets, name)


@tf_export("strings.to_hash_bucket_strong", "string_to_hash_bucket_strong")
def string_to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """Hashes each string to ``SipHash-2-4(key, s) mod num_buckets``; ``key`` is two ints."""
    key = tuple(int(k) & _M for k in key)
    return _hash_bucket("StringToHashBucketStrong", "input", input, num_buckets, name, {"key": key})


# -- Fingerprint ---------------------------------------------------------------------------------


def _fingerprint_infer(op):
    x = op._inputs[0]
    if x.shape.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    return [(dtypes.uint8, x.shape[:1].concatenate([8]))]


def _fingerprint_kernel(data, method):
    method = as_bytes(np.asarray(method, dtype=object).item())
    if method != b"farmhash64":
        raise errors.InvalidArgumentError(None, None, f"Unsupported fingerprint method is used: {method.decode()}")
    data = np.asarray(data)
    rows = data.shape[0]
    if data.dtype == object:
        # Each string is fingerprinted, then each row's fingerprints (8 little-endian bytes each).
        prints = map_strings(data, fingerprint64, np.uint64).reshape(rows, -1)
        if prints.shape[1] == 1:
            out = prints[:, 0]
        else:
            out = np.fromiter((fingerprint64(r.astype("<u8").tobytes()) for r in prints), np.uint64, count=rows)
    else:
        flat = np.ascontiguousarray(data.reshape(rows, -1)).astype(data.dtype.newbyteorder("<"))
        out = np.fromiter((fingerprint64(r.tobytes()) for r in flat), np.uint64, count=rows)
    return out.astype("<u8").view(np.uint8).reshape(rows, 8)


register("Fingerprint", infer=_fingerprint_infer, kernel=_fingerprint_kernel, gpu=False)
not_differentiable("Fingerprint")


@tf_export("fingerprint")
def fingerprint(data, method="farmhash64", name=None):
    """A uint8 ``[batch, 8]`` fingerprint of each row ``data[i]`` (FarmHash ``Fingerprint64``,
    little-endian), portable across platforms as TF's: a row of strings is fingerprinted
    string by string, then over the concatenated fingerprints."""
    with name_scope(name, "Fingerprint", [data]) as scope:
        x = convert_to_tensor(data, name="data")
        m = convert_to_tensor(method, dtype=dtypes.string, name="method")
        return apply_op("Fingerprint", [x, m], name=scope).outputs[0]


# -- AsString ------------------------------------------------------------------------------------------


def _as_string_infer(op):
    x = op._inputs[0]
    if not (x.dtype.is_integer or x.dtype.is_bool or x.dtype.is_floating or x.dtype.is_complex
            or x.dtype is dtypes.string):
        raise TypeError(f"Value passed to parameter 'input' has DataType {x.dtype.name} not in list of allowed "
                        f"values: float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, float16, "
                        f"uint32, uint64, complex64, complex128, bool, variant, string")
    return [(dtypes.string, x.shape)]


def _printf_format(kind: str, precision, scientific, shortest, width, fill) -> str:
    """TF's ``AsStringOp`` printf format (Python's ``%`` follows C's printf), or InvalidArgumentError."""
    if len(fill) > 1:
        raise errors.InvalidArgumentError(None, None, "Fill string must be one or fewer characters")
    if scientific and shortest:
        raise errors.InvalidArgumentError(None, None, "Cannot select both scientific and shortest notation")
    if fill and fill not in " +-0#":
        raise errors.InvalidArgumentError(None, None, f'Fill argument not supported: "{fill}"')
    if kind in "iu":
        if precision > -1:
            raise errors.InvalidArgumentError(None, None, f"precision not supported for datatype {kind}")
        if scientific or shortest:
            raise errors.InvalidArgumentError(None, None, f"scientific and shortest format not supported for "
                                                          f"datatype {kind}")
    fmt = "%" + fill + (str(width) if width > -1 else "") + (f".{precision}" if precision > -1 else "")
    if kind in "iu":
        return fmt + "d"
    return fmt + ("g" if shortest else "e" if scientific else "f")


def _as_string_kernel(x, precision, scientific, shortest, width, fill):
    x = np.asarray(x)
    if x.dtype == object:
        return x.copy()
    if x.dtype == np.bool_:
        items = [b"true" if v else b"false" for v in x.ravel()]
    else:
        kind = x.dtype.kind
        try:
            fmt = _printf_format(kind, precision, scientific, shortest, width, fill)
        except errors.InvalidArgumentError as e:
            name = dtypes.as_dtype(x.dtype).name
            raise errors.InvalidArgumentError(None, None, e.message.replace(f"datatype {kind}",
                                                                            f"datatype {name}")) from None
        # C's printf pads inf and nan with spaces, not zeros.
        special = fmt.replace("%0", "%", 1) if fill == "0" else fmt

        def one(v) -> str:
            v = int(v) if kind in "iu" else float(v)
            return (fmt if kind in "iu" or np.isfinite(v) else special) % v

        if kind == "c":
            items = [f"({one(v.real)},{one(v.imag)})".encode() for v in x.ravel()]
        else:
            items = [one(v).encode() for v in x.ravel()]
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out.reshape(x.shape)


register("AsString", infer=_as_string_infer, kernel=_as_string_kernel, gpu=False)
not_differentiable("AsString")


@tf_export("strings.as_string", "as_string", "dtypes.as_string")
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Formats each number (or bool) of ``input`` as a string with C's printf rules, as TF1:
    ``%f`` (``%e`` when ``scientific``, ``%g`` when ``shortest``) with ``precision`` digits, padded to
    ``width`` with ``fill`` (one of `` +-0#``, a printf flag); complex numbers as ``(re,im)``.

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.as_string([1.5, 0.25], precision=2)).tolist()
    [b'1.50', b'0.25']
    """
    with name_scope(name, "AsString", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        return apply_op("AsString", [x], {"precision": int(precision), "scientific": bool(scientific),
                                          "shortest": bool(shortest), "width": int(width), "fill": fill},
                        name=scope).outputs[0]
