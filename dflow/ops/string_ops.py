"""String hashing ops: ``tf.strings.to_hash_bucket_fast`` and ``tf.strings.as_string``.

TF1 hashes strings into buckets with FarmHash's ``Fingerprint64``
(``farmhashna::Hash64``): ``to_hash_bucket_fast(s, n) == Fingerprint64(s) mod
n``. ``fingerprint64`` below is that function in pure Python (64-bit
arithmetic masked by hand), so bucket assignments equal TF1's exactly; the
feature columns (``categorical_column_with_hash_bucket``, vocabulary OOV
buckets, ``crossed_column``) are built on it. ``as_string`` turns integers
into their decimal strings, as TF1 does before hashing integer features.
"""

from __future__ import annotations

import functools

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.graph import name_scope
from dflow.ops.constant_op import convert_to_tensor
from dflow.ops.registry import apply_op, not_differentiable, register

# -- FarmHash Fingerprint64 (farmhashna::Hash64) ---------------------------------------

_M = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F
_KMUL = 0xC6A4A7935BD1E995  # FingerprintCat64's multiplier


def _fetch64(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 8], "little")


def _fetch32(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 4], "little")


def _rot(v: int, shift: int) -> int:
    return v if shift == 0 else ((v >> shift) | (v << (64 - shift))) & _M


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _hash_len16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _hash_len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_fetch64(s, 0) + _K2) & _M
        b = _fetch64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        a = _fetch32(s, 0)
        return _hash_len16((n + (a << 3)) & _M, _fetch32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _M) * _K2) & _M
    return _K2


def _hash_len17to32(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K1) & _M
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M
    d = (_fetch64(s, n - 16) * _K2) & _M
    return _hash_len16((_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M,
                       (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)


def _hash_len33to64(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K2) & _M
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M
    d = (_fetch64(s, n - 16) * _K2) & _M
    y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
    z = _hash_len16(y, (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)
    e = (_fetch64(s, 16) * mul) & _M
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & _M
    h = ((z + _fetch64(s, n - 24)) * mul) & _M
    return _hash_len16((_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M,
                       (e + _rot((f + a) & _M, 18) + g) & _M, mul)


def _weak_hash_len32_with_seeds(s: bytes, i: int, a: int, b: int) -> tuple:
    w, x, y, z = _fetch64(s, i), _fetch64(s, i + 8), _fetch64(s, i + 16), _fetch64(s, i + 24)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def _hash_long(s: bytes) -> int:
    n = len(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M
    z = (_shift_mix((y * _K2 + 113) & _M) * _K2) & _M
    v0 = v1 = w0 = w1 = 0
    x = (x * _K2 + _fetch64(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = n - 64
    i = 0
    while True:
        x = (_rot((x + y + v0 + _fetch64(s, i + 8)) & _M, 37) * _K1) & _M
        y = (_rot((y + v1 + _fetch64(s, i + 48)) & _M, 42) * _K1) & _M
        x ^= w1
        y = (y + v0 + _fetch64(s, i + 40)) & _M
        z = (_rot((z + w0) & _M, 33) * _K1) & _M
        v0, v1 = _weak_hash_len32_with_seeds(s, i, (v1 * _K1) & _M, (x + w0) & _M)
        w0, w1 = _weak_hash_len32_with_seeds(s, i + 32, (z + w1) & _M, (y + _fetch64(s, i + 16)) & _M)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w0 = (w0 + ((n - 1) & 63)) & _M
    v0 = (v0 + w0) & _M
    w0 = (w0 + v0) & _M
    x = (_rot((x + y + v0 + _fetch64(s, i + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v1 + _fetch64(s, i + 48)) & _M, 42) * mul) & _M
    x ^= (w1 * 9) & _M
    y = (y + v0 * 9 + _fetch64(s, i + 40)) & _M
    z = (_rot((z + w0) & _M, 33) * mul) & _M
    v0, v1 = _weak_hash_len32_with_seeds(s, i, (v1 * mul) & _M, (x + w0) & _M)
    w0, w1 = _weak_hash_len32_with_seeds(s, i + 32, (z + w1) & _M, (y + _fetch64(s, i + 16)) & _M)
    z, x = x, z
    return _hash_len16((_hash_len16(v0, w0, mul) + _shift_mix(y) * _K0 + z) & _M,
                       (_hash_len16(v1, w1, mul) + x) & _M, mul)


@functools.lru_cache(maxsize=65536)
def fingerprint64(s) -> int:
    """FarmHash ``Fingerprint64`` of ``s`` (bytes, or str encoded as UTF-8), an unsigned 64-bit int.

    >>> fingerprint64(b"hello")
    13009744463427800296
    """
    if isinstance(s, str):
        s = s.encode("utf-8")
    n = len(s)
    if n <= 16:
        return _hash_len0to16(s)
    if n <= 32:
        return _hash_len17to32(s)
    if n <= 64:
        return _hash_len33to64(s)
    return _hash_long(s)


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TF's ``FingerprintCat64``: combines two fingerprints (used by hashed feature crosses)."""
    result = (fp1 ^ _KMUL) & _M
    result ^= (_shift_mix((fp2 * _KMUL) & _M) * _KMUL) & _M
    result = (result * _KMUL) & _M
    result = (_shift_mix(result) * _KMUL) & _M
    return _shift_mix(result)


def as_bytes(value) -> bytes:
    """A string element as bytes (str is encoded as UTF-8)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, np.bytes_):
        return bytes(value)
    raise errors.InvalidArgumentError(None, None, f"Expected a string element, got {type(value).__name__}")


# -- StringToHashBucketFast ---------------------------------------------------------------


def _to_hash_bucket_infer(op):
    x = op._inputs[0]
    if x.dtype is not dtypes.string:
        raise TypeError(f"Input 'input' of 'StringToHashBucketFast' Op has type {x.dtype.name} that does not "
                        f"match expected type of string.")
    return [(dtypes.int64, x.shape)]


def _to_hash_bucket_kernel(x, num_buckets):
    flat = np.asarray(x, dtype=object).ravel()
    out = np.fromiter((fingerprint64(as_bytes(s)) % num_buckets for s in flat), dtype=np.int64, count=flat.size)
    return out.reshape(np.shape(x))


register("StringToHashBucketFast", infer=_to_hash_bucket_infer, kernel=_to_hash_bucket_kernel, gpu=False)
not_differentiable("StringToHashBucketFast")


@tf_export("strings.to_hash_bucket_fast", "string_to_hash_bucket_fast")
def string_to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002 - TF1 argument name
    """Hashes each string of ``input`` to ``Fingerprint64(s) mod num_buckets`` (int64), as TF1.

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     s.run(tf.strings.to_hash_bucket_fast(["hello", ""], 1000)).tolist()
    [296, 263]
    """
    if isinstance(num_buckets, bool) or not isinstance(num_buckets, (int, np.integer)):
        raise TypeError(f"Expected int for argument 'num_buckets' not {num_buckets!r}.")
    if num_buckets < 1:
        raise ValueError(f"Attr 'num_buckets' of 'StringToHashBucketFast' Op passed {num_buckets} less than "
                         f"minimum 1.")
    with name_scope(name, "StringToHashBucketFast", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        if x.dtype is not dtypes.string:
            raise TypeError(f"Input 'input' of 'StringToHashBucketFast' Op has type {x.dtype.name} that does not "
                            f"match expected type of string.")
        return apply_op("StringToHashBucketFast", [x], {"num_buckets": int(num_buckets)}, name=scope).outputs[0]


# -- AsString (integers and bools) ----------------------------------------------------------


def _as_string_infer(op):
    x = op._inputs[0]
    if not (x.dtype.is_integer or x.dtype.is_bool):
        raise TypeError(f"Value passed to parameter 'input' has DataType {x.dtype.name} not in list of allowed "
                        f"values: int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool (dflow's "
                        f"as_string formats integers and bools only)")
    return [(dtypes.string, x.shape)]


def _as_string_kernel(x):
    flat = np.asarray(x).ravel()
    if flat.dtype == np.bool_:
        items = [b"true" if v else b"false" for v in flat]
    else:
        items = [str(int(v)).encode() for v in flat]
    out = np.empty(flat.size, dtype=object)
    out[:] = items
    return out.reshape(np.shape(x))


register("AsString", infer=_as_string_infer, kernel=_as_string_kernel, gpu=False)
not_differentiable("AsString")


@tf_export("strings.as_string", "as_string", "dtypes.as_string")
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Formats each integer (or bool) of ``input`` as its decimal string, as TF1's ``as_string``.

    Float formatting options (``precision``, ``scientific``, ``shortest``) and padding
    (``width``, ``fill``) are not supported and raise NotImplementedError.
    """
    if precision != -1 or scientific or shortest or width != -1 or fill:
        raise NotImplementedError("dflow's tf.strings.as_string formats integers and bools only; precision, "
                                  "scientific, shortest, width and fill are not supported")
    with name_scope(name, "AsString", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        if x.dtype.is_floating or x.dtype.is_complex:
            raise NotImplementedError(f"dflow's tf.strings.as_string formats integers and bools only, got "
                                      f"{x.dtype.name}")
        return apply_op("AsString", [x], name=scope).outputs[0]
