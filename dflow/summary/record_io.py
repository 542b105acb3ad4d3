"""TFRecord framing, as TensorFlow's event files use it.

Each record is::

    uint64 length (little-endian)
    uint32 masked CRC32C of those 8 length bytes
    byte   data[length]
    uint32 masked CRC32C of the data
"""

from __future__ import annotations

import struct

from dflow.framework import errors
from dflow.framework.files import file_io
from dflow.kernels.crc32c import masked_crc32c


def encode_record(data: bytes) -> bytes:
    """The bytes of one TFRecord holding ``data``."""
    data = bytes(data)
    header = struct.pack("<Q", len(data))
    return b"".join((header, struct.pack("<I", masked_crc32c(header)), data,
                     struct.pack("<I", masked_crc32c(data))))


def iter_records(f, path: str = "<stream>"):
    """Yields the payload of each record in the binary file ``f``, checking both CRCs.

    A truncated final record (a writer still appending) ends the iteration,
    as TF1's reader does; a CRC mismatch is a ``DataLossError``.
    """
    while True:
        header = f.read(12)
        if len(header) < 12:
            return
        length, length_crc = struct.unpack("<QI", header)
        if masked_crc32c(header[:8]) != length_crc:
            raise errors.DataLossError(None, None, f"corrupted record at length header in {path}")
        data = f.read(length)
        footer = f.read(4)
        if len(data) < length or len(footer) < 4:
            return
        if masked_crc32c(data) != struct.unpack("<I", footer)[0]:
            raise errors.DataLossError(None, None, f"corrupted record: data CRC mismatch in {path}")
        yield data


def read_records(path: str):
    """Yields the payload of each record of the TFRecord file at ``path``."""
    with file_io.open_file(path, "rb") as f:
        yield from iter_records(f, path)
