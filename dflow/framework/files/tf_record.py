"""TFRecord files: ``tf.io.TFRecordWriter``, ``tf.io.tf_record_iterator`` and their options.

A TFRecord file is a sequence of records, each::

    uint64 length (little-endian)
    uint32 masked CRC32C of those 8 length bytes
    byte   data[length]
    uint32 masked CRC32C of the data

optionally compressed as one ZLIB or GZIP stream. dflow writes the bytes TF
writes: that framing, and zlib with TF's settings (level 6, 15 window bits,
+16 for GZIP, memory level 9) with the whole file as one stream; ``flush()``
is TF's ``Z_PARTIAL_FLUSH``. Records are read, and written, about a megabyte
at a time, so that their CRCs are computed together in numpy lanes
(``crc32c_many``); a reader still yields every good record before the error
of a bad one, and a writer's file holds every record after ``flush()``.

>>> import os, tempfile
>>> p = os.path.join(tempfile.mkdtemp(), "r.tfrecord")
>>> with TFRecordWriter(p, "GZIP") as w:
...     w.write(b"abc")
>>> list(tf_record_iterator(p, TFRecordOptions("GZIP")))
[b'abc']
"""

from __future__ import annotations

import struct
import zlib

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.files.file_io import as_bytes, open_file
from dflow.kernels.crc32c import crc32c_many, mask, masked_crc32c


@tf_export("io.TFRecordCompressionType", "python_io.TFRecordCompressionType")
class TFRecordCompressionType:
    """The compression of a TFRecord file: ``NONE``, ``ZLIB`` or ``GZIP``."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


@tf_export("io.TFRecordOptions", "python_io.TFRecordOptions")
class TFRecordOptions:
    """How a TFRecord file is compressed: a compression type and zlib's settings (None: TF's defaults)."""

    compression_type_map = {TFRecordCompressionType.ZLIB: "ZLIB", TFRecordCompressionType.GZIP: "GZIP",
                            TFRecordCompressionType.NONE: ""}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None, output_buffer_size=None,
                 window_bits=None, compression_level=None, compression_method=None, mem_level=None,
                 compression_strategy=None):
        self.get_compression_type_string(compression_type)
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options) -> str:
        """``""``, ``"ZLIB"`` or ``"GZIP"`` for options, a compression type or its string."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if options in cls.compression_type_map:
            return cls.compression_type_map[options]
        if options in cls.compression_type_map.values():
            return options
        raise ValueError(f'Not a valid compression_type: "{options}"')

    def _compressor(self):
        """A zlib compressor with TF's settings, or None for no compression."""
        kind = self.get_compression_type_string(self)
        if not kind:
            return None
        wbits = self.window_bits if self.window_bits is not None else (31 if kind == "GZIP" else 15)
        return zlib.compressobj(
            -1 if self.compression_level is None else self.compression_level,
            zlib.DEFLATED if self.compression_method is None else self.compression_method, wbits,
            9 if self.mem_level is None else self.mem_level,
            zlib.Z_DEFAULT_STRATEGY if self.compression_strategy is None else self.compression_strategy)


def _as_options(options) -> TFRecordOptions:
    return options if isinstance(options, TFRecordOptions) else TFRecordOptions(compression_type=options)


_CHUNK = 1 << 20  # bytes read ahead (or written behind) whose records' CRCs are computed together


@tf_export("io.TFRecordWriter", "python_io.TFRecordWriter")
class TFRecordWriter:
    """Writes records to a TFRecord file (created or truncated now), byte for byte as TF.

    ``options`` is a ``TFRecordOptions``, a ``TFRecordCompressionType`` or
    ``""``/``"ZLIB"``/``"GZIP"``. ``write`` takes bytes (or a str, as UTF-8).
    """

    def __init__(self, path, options=None):
        self._options = _as_options(options)
        self._compressor = self._options._compressor()
        self._pending: list = []  # records written since the last drain: framed together, CRCs in one batch
        self._pending_bytes = 0
        self._file = open_file(path, "wb")

    def _drain(self) -> None:
        if not self._pending:
            return
        headers = [struct.pack("<Q", len(r)) for r in self._pending]
        header_crcs = crc32c_many(headers)
        data_crcs = crc32c_many(self._pending)
        data = b"".join(b"".join((h, struct.pack("<I", mask(hc)), r, struct.pack("<I", mask(dc))))
                        for h, hc, r, dc in zip(headers, header_crcs, self._pending, data_crcs))
        self._pending, self._pending_bytes = [], 0
        if self._compressor is not None:
            data = self._compressor.compress(data)
        self._file.write(data)

    def write(self, record) -> None:
        """Appends one record holding ``record``."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        record = as_bytes(record)
        self._pending.append(record)
        self._pending_bytes += len(record)
        if self._pending_bytes >= _CHUNK or len(self._pending) >= 4096:
            self._drain()

    def flush(self) -> None:
        """Pushes what was written to the file (a zlib partial flush when compressing)."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        self._drain()
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_PARTIAL_FLUSH))
        self._file.flush()

    def close(self) -> None:
        """Finishes the file; closing twice is allowed."""
        if self._file is not None:
            self._drain()
            if self._compressor is not None:
                self._file.write(self._compressor.flush())
            self._file.close()
            self._file = None

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Inflater:
    """A binary stream that inflates a ZLIB or GZIP file as it is read."""

    def __init__(self, f, wbits: int):
        self._f = f
        self._d = zlib.decompressobj(wbits)
        self._buf = b""

    def read(self, n: int) -> bytes:
        while len(self._buf) < n and not self._d.eof:
            chunk = self._f.read(1 << 16)
            try:
                self._buf += self._d.decompress(chunk) if chunk else self._d.flush()
            except zlib.error as e:
                code, _, what = str(e).partition(" while decompressing data: ")
                raise errors.DataLossError(None, None, f"inflate() failed with {code.lower()}: {what}") from None
            if not chunk:
                break
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def close(self) -> None:
        self._f.close()


def open_records(path, compression: str = ""):
    """A binary stream of the records of ``path`` (``NotFoundError`` if missing), inflated if compressed."""
    f = open_file(path, "rb")
    if compression:
        return _Inflater(f, 31 if compression == "GZIP" else 15)
    return f


def _corrupted(offset: int) -> errors.DataLossError:
    hint = " (Is this even a TFRecord file?)" if offset == 0 else ""
    return errors.DataLossError(None, None, f"corrupted record at {offset}{hint}")


def _truncated(offset: int) -> errors.DataLossError:
    return errors.DataLossError(None, None, f"truncated record at {offset}' failed with Read less bytes than requested")


def _complete_records(buf: bytes, offset: int, at_eof: bool) -> tuple:
    """The whole records at the start of ``buf`` (whose first byte is at file ``offset``).

    Returns ``([(offset, payload, stored data CRC)], bytes used, error or None)``; each length header
    is checked as it is read, since a corrupted one cannot say where its record ends."""
    records, pos, n = [], 0, len(buf)
    while n - pos >= 12:
        length, length_crc = struct.unpack_from("<QI", buf, pos)
        if masked_crc32c(buf[pos:pos + 8]) != length_crc:
            return records, pos, _corrupted(offset)
        end = pos + 16 + length
        if end > n:
            return records, pos, _truncated(offset) if at_eof else None
        records.append((offset, buf[pos + 12:end - 4], struct.unpack_from("<I", buf, end - 4)[0]))
        offset += 16 + length
        pos = end
    return records, pos, None  # a partial length header at the end of the file ends it, as in TF


def iter_records(stream):
    """Yields ``(offset, payload)`` for each record of a TFRecord stream, checking both CRCs.

    A truncated or corrupted record is TF's ``DataLossError``, raised after the records before it."""
    buf, offset, at_eof = b"", 0, False
    while True:
        records, used, error = _complete_records(buf, offset, at_eof)
        crcs = crc32c_many([data for _, data, _ in records])
        for (at, data, stored), crc in zip(records, crcs):
            if mask(crc) != stored:
                raise errors.DataLossError(None, None, f"corrupted record at {at + 12}")  # TF names the data's offset
            yield at, data
        if error is not None:
            raise error
        if records:
            offset = records[-1][0] + 16 + len(records[-1][1])
        if at_eof:
            return
        chunk = stream.read(_CHUNK if len(buf) - used < 12 else max(_CHUNK, _needed(buf, used)))
        at_eof = not chunk
        buf = buf[used:] + chunk


def _needed(buf: bytes, pos: int) -> int:
    """Bytes still missing from the record whose length header starts ``buf[pos:]``."""
    length = struct.unpack_from("<Q", buf, pos)[0]
    return pos + 16 + length - len(buf)


class RecordIterator:
    """The payloads of a TFRecord file, one per ``next``; the file opens now."""

    def __init__(self, path, compression: str = ""):
        self._stream = open_records(path, compression)
        self._records = iter_records(self._stream)

    def __iter__(self):
        return self

    def __next__(self) -> bytes:
        if self._stream is None:
            raise StopIteration
        try:
            return next(self._records)[1]
        except StopIteration:
            self.close()
            raise

    def close(self) -> None:
        if self._stream is not None:
            self._records.close()
            self._stream.close()
            self._stream = None


@tf_export("io.tf_record_iterator", "python_io.tf_record_iterator")
def tf_record_iterator(path, options=None) -> RecordIterator:
    """An iterator over the records (bytes) of the TFRecord file ``path``."""
    return RecordIterator(path, TFRecordOptions.get_compression_type_string(options))
