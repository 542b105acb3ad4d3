"""CRC32C (Castagnoli), in pure Python, and TFRecord's masked form of it.

TFRecord files check each length and each payload with a *masked* CRC32C
(the CRC rotated right by 15 bits plus a constant), so that a CRC stored
inside checksummed data does not checksum to something trivial.

>>> hex(crc32c(b"123456789"))
'0xe3069283'
"""

from __future__ import annotations

import functools

import numpy as np

_POLY = 0x82F63B78  # the Castagnoli polynomial, bit-reversed


def _make_tables() -> list:
    """Slicing-by-4 tables: ``tables[0]`` is the classic byte table."""
    t0 = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        t0.append(c)
    tables = [t0]
    for _ in range(3):
        prev = tables[-1]
        tables.append([(prev[i] >> 8) ^ t0[prev[i] & 0xFF] for i in range(256)])
    return tables


_T0, _T1, _T2, _T3 = _make_tables()


def crc32c(data: bytes, crc: int = 0) -> int:
    """The CRC32C of ``data``, continuing from ``crc`` (the CRC of earlier bytes)."""
    data = bytes(data)
    if len(data) >= _LANES_FROM:
        return _crc32c_lanes(data, crc ^ 0xFFFFFFFF) ^ 0xFFFFFFFF
    return _update(memoryview(data).cast("B"), crc ^ 0xFFFFFFFF) ^ 0xFFFFFFFF


def _update(data, c: int) -> int:
    """The CRC register after ``data``, from register ``c`` (no pre- or post-inversion)."""
    n = len(data)
    i = 0
    end4 = n - n % 4
    t0, t1, t2, t3 = _T0, _T1, _T2, _T3
    while i < end4:
        c ^= data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)
        c = t3[c & 0xFF] ^ t2[(c >> 8) & 0xFF] ^ t1[(c >> 16) & 0xFF] ^ t0[c >> 24]
        i += 4
    while i < n:
        c = t0[(c ^ data[i]) & 0xFF] ^ (c >> 8)
        i += 1
    return c


# -- long inputs: many lanes at once in numpy ----------------------------------------------
#
# The CRC register is linear over GF(2): after ``b`` bytes, the register started at ``s`` is
# ``run(0, b) ^ shift(s, len(b))``, where ``shift(s, L)`` (the register after L zero bytes) is a
# linear map of ``s``. So a long input cut into K lanes of L bytes is processed as K registers
# from zero in lockstep (one numpy step per 4 bytes of every lane), then folded in order:
# ``s = shift(s, L) ^ lane_k``, with ``shift`` as four byte tables.

_LANES_FROM = 512
_NP_TABLES = [np.array(t, dtype=np.uint32) for t in (_T0, _T1, _T2, _T3)]


def _run_lanes(words: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Registers after each lane's little-endian words (``words[j]`` holds word j of every lane)."""
    t0, t1, t2, t3 = _NP_TABLES
    c = start.copy()
    for w in words:
        c ^= w
        c = t3[c & 0xFF] ^ t2[(c >> 8) & 0xFF] ^ t1[(c >> 16) & 0xFF] ^ t0[c >> 24]
    return c


@functools.lru_cache(maxsize=32)
def _shift_tables(length: int) -> tuple:
    """Byte tables of the linear map ``register -> register after `length` zero bytes``."""
    basis = _run_lanes(np.zeros((length // 4, 32), dtype=np.uint32), np.uint32(1) << np.arange(32, dtype=np.uint32))
    basis = [int(b) for b in basis]
    tables = []
    for p in range(4):
        table = [0] * 256
        for v in range(1, 256):
            low = (v & -v).bit_length() - 1
            table[v] = table[v & (v - 1)] ^ basis[8 * p + low]
        tables.append(table)
    return tuple(tables)


def _crc32c_lanes(data: bytes, c: int) -> int:
    n = len(data)
    length = 1 << max(4, (n.bit_length() - 1) // 2)  # lanes of a power-of-two length near sqrt(n): cached shifts
    lanes = n // length
    body = np.frombuffer(data, dtype=np.uint8, count=lanes * length).reshape(lanes, length)
    words = body.view("<u4").T.astype(np.uint32)
    runs = _run_lanes(words, np.zeros(lanes, dtype=np.uint32)).tolist()
    s0, s1, s2, s3 = _shift_tables(length)
    for r in runs:
        c = s0[c & 0xFF] ^ s1[(c >> 8) & 0xFF] ^ s2[(c >> 16) & 0xFF] ^ s3[c >> 24] ^ r
    return _update(memoryview(data)[lanes * length:].cast("B"), c)


_MASK_DELTA = 0xA282EAD8


def mask(crc: int) -> int:
    """TFRecord's masking of a CRC: rotate right by 15 bits, add a constant."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    """The inverse of ``mask``."""
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """The masked CRC32C that TFRecord stores after a length and after a payload."""
    return mask(crc32c(data))


# -- many short inputs at once: one numpy lane per input ------------------------------------

_MANY_BUDGET = 1 << 22  # bytes of one padded batch


def crc32c_many(items: list) -> list:
    """The CRC32C of each of ``items`` (bytes), computed side by side in numpy lanes.

    Inputs are sorted by length, longest first, so at word step ``j`` the lanes still
    running are a prefix of the batch; each takes its last 1-3 bytes from the byte table.
    Long inputs go through ``crc32c`` one by one (its lanes split them)."""
    out = [0] * len(items)
    order = sorted(range(len(items)), key=lambda i: -len(items[i]))
    start = 0
    while start < len(order) and len(items[order[start]]) > 1 << 14:
        out[order[start]] = crc32c(items[order[start]])
        start += 1
    while start < len(order):
        longest = max(4, len(items[order[start]]))
        stop = min(len(order), start + max(1, _MANY_BUDGET // longest))
        group = order[start:stop]
        for i, crc in zip(group, _crc32c_group([items[i] for i in group])):
            out[i] = crc
        start = stop
    return out


def _crc32c_group(items: list) -> list:
    """CRC32C of ``items``, sorted longest first, in lockstep lanes."""
    t0, t1, t2, t3 = _NP_TABLES
    n = len(items)
    lengths = np.fromiter((len(x) for x in items), dtype=np.int64, count=n)
    width = (int(lengths[0]) + 3) // 4 * 4 if n else 0
    padded = np.zeros((n, width), dtype=np.uint8)
    for i, x in enumerate(items):
        padded[i, :len(x)] = np.frombuffer(x, dtype=np.uint8)
    words = padded.view("<u4").T.copy()
    full = lengths // 4
    active = np.searchsorted(-full, -np.arange(width // 4), side="left")  # lanes with a whole word at step j
    c = np.full(n, 0xFFFFFFFF, dtype=np.uint32)
    for j, m in enumerate(active.tolist()):
        if m == 0:
            break
        x = c[:m] ^ words[j, :m]
        c[:m] = t3[x & 0xFF] ^ t2[(x >> 8) & 0xFF] ^ t1[(x >> 16) & 0xFF] ^ t0[x >> 24]
    rest = lengths % 4
    for t in range(3):
        idx = np.nonzero(rest > t)[0]
        if not len(idx):
            break
        b = padded[idx, full[idx] * 4 + t].astype(np.uint32)
        c[idx] = t0[(c[idx] ^ b) & 0xFF] ^ (c[idx] >> 8)
    return (c ^ np.uint32(0xFFFFFFFF)).tolist()
