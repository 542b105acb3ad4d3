"""String kernels: the hash functions TF buckets and fingerprints strings with, bit for bit.

* ``fingerprint64``: FarmHash's ``Fingerprint64`` (``farmhashna::Hash64``), behind
  ``tf.strings.to_hash_bucket_fast``, ``tf.fingerprint``, hashed feature columns and lookup
  tables' OOV buckets; ``fingerprint_cat64`` combines two (hashed feature crosses);
* ``hash64``: TF's own ``Hash64``, behind the deprecated ``tf.string_to_hash_bucket``;
* ``siphash24``: SipHash-2-4, behind ``tf.strings.to_hash_bucket_strong``;
* ``as_bytes``: a string element as bytes.

All in pure Python, with 64-bit arithmetic masked by hand.
"""

from __future__ import annotations

import functools

import numpy as np

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
    raise TypeError(f"Expected a string element, got {type(value).__name__}")  # InvalidArgumentError in a run


def scalar_bytes(value) -> bytes:
    """The bytes of a scalar string value as a kernel receives it (a 0-d array, str or bytes): an encoded
    image or sound file."""
    value = value.item() if isinstance(value, np.ndarray) else value
    return value.encode() if isinstance(value, str) else bytes(value)
