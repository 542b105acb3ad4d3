"""String hashing ops: ``tf.strings.to_hash_bucket_fast`` (and ``_strong``, the deprecated
``to_hash_bucket``), ``tf.fingerprint`` and ``tf.strings.as_string``.

TF1 hashes strings into buckets with FarmHash's ``Fingerprint64``
(``farmhashna::Hash64``): ``to_hash_bucket_fast(s, n) == Fingerprint64(s) mod
n``. ``fingerprint64`` below is that function in pure Python (64-bit
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


def hash64(s: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TensorFlow's own ``Hash64`` (``tensorflow/core/lib/hash/hash.cc``, a MurmurHash64A
    variant): what the deprecated ``tf.string_to_hash_bucket`` buckets by.

    >>> hash64(b"hello") % 1000
    938
    """
    n = len(s)
    h = (seed ^ (n * _KMUL)) & _M
    end = n - n % 8
    for i in range(0, end, 8):
        k = (_fetch64(s, i) * _KMUL) & _M
        k ^= k >> 47
        h ^= (k * _KMUL) & _M
        h = (h * _KMUL) & _M
    if n % 8:
        h ^= int.from_bytes(s[end:], "little")
        h = (h * _KMUL) & _M
    h ^= h >> 47
    h = (h * _KMUL) & _M
    return h ^ (h >> 47)


def _sip_round(v0: int, v1: int, v2: int, v3: int) -> tuple:
    v0 = (v0 + v1) & _M
    v1 = _rotl(v1, 13) ^ v0
    v0 = _rotl(v0, 32)
    v2 = (v2 + v3) & _M
    v3 = _rotl(v3, 16) ^ v2
    v0 = (v0 + v3) & _M
    v3 = _rotl(v3, 21) ^ v0
    v2 = (v2 + v1) & _M
    v1 = _rotl(v1, 17) ^ v2
    v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def _rotl(v: int, shift: int) -> int:
    return ((v << shift) | (v >> (64 - shift))) & _M


def siphash24(key: tuple, s: bytes) -> int:
    """SipHash-2-4 of ``s`` under the 128-bit ``key`` (two uint64 words), as TF's
    ``StrongKeyedHash`` (highwayhash's ``SipHash``) behind ``to_hash_bucket_strong``."""
    k0, k1 = (int(k) & _M for k in key)
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573
    n = len(s)
    end = n - n % 8
    for i in range(0, end + 8, 8):
        m = _fetch64(s, i) if i < end else int.from_bytes(s[end:], "little") | ((n & 0xFF) << 56)
        v3 ^= m
        v0, v1, v2, v3 = _sip_round(*_sip_round(v0, v1, v2, v3))
        v0 ^= m
    v2 ^= 0xFF
    for _ in range(4):
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def as_bytes(value) -> bytes:
    """A string element as bytes (str is encoded as UTF-8)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, np.bytes_):
        return bytes(value)
    raise errors.InvalidArgumentError(None, None, f"Expected a string element, got {type(value).__name__}")


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
