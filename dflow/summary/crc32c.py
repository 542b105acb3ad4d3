"""CRC32C (Castagnoli), in pure Python, and TFRecord's masked form of it.

TFRecord files check each length and each payload with a *masked* CRC32C
(the CRC rotated right by 15 bits plus a constant), so that a CRC stored
inside checksummed data does not checksum to something trivial.

>>> hex(crc32c(b"123456789"))
'0xe3069283'
"""

from __future__ import annotations

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
    data = memoryview(bytes(data)).cast("B")
    c = crc ^ 0xFFFFFFFF
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
    return c ^ 0xFFFFFFFF


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
