"""TFRecord files: ``tf.io.TFRecordWriter``, ``tf.io.tf_record_iterator`` and their options.

A TFRecord file is a sequence of records, each::

    uint64 length (little-endian)
    uint32 masked CRC32C of those 8 length bytes
    byte   data[length]
    uint32 masked CRC32C of the data

optionally compressed as one ZLIB or GZIP stream. dflow writes the bytes TF
writes: the framing of ``dflow.summary.record_io``, and zlib with TF's
settings (level 6, 15 window bits, +16 for GZIP, memory level 9) with the
whole file as one stream; ``flush()`` is TF's ``Z_PARTIAL_FLUSH``.

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
from dflow.framework.file_io import as_bytes, local_path, os_error
from dflow.summary.crc32c import masked_crc32c
from dflow.summary.record_io import encode_record


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


@tf_export("io.TFRecordWriter", "python_io.TFRecordWriter")
class TFRecordWriter:
    """Writes records to a TFRecord file (created or truncated now), byte for byte as TF.

    ``options`` is a ``TFRecordOptions``, a ``TFRecordCompressionType`` or
    ``""``/``"ZLIB"``/``"GZIP"``. ``write`` takes bytes (or a str, as UTF-8).
    """

    def __init__(self, path, options=None):
        self._options = _as_options(options)
        self._compressor = self._options._compressor()
        p = local_path(path)
        try:
            self._file = open(p, "wb")
        except OSError as e:
            raise os_error(e, p) from None

    def _emit(self, data: bytes) -> None:
        if self._compressor is not None:
            data = self._compressor.compress(data)
        self._file.write(data)

    def write(self, record) -> None:
        """Appends one record holding ``record``."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        self._emit(encode_record(as_bytes(record)))

    def flush(self) -> None:
        """Pushes what was written to the file (a zlib partial flush when compressing)."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_PARTIAL_FLUSH))
        self._file.flush()

    def close(self) -> None:
        """Finishes the file; closing twice is allowed."""
        if self._file is not None:
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
    p = local_path(path)
    try:
        f = open(p, "rb")
    except OSError as e:
        raise os_error(e, p) from None
    if compression:
        return _Inflater(f, 31 if compression == "GZIP" else 15)
    return f


def next_record(stream, offset: int):
    """(payload, next offset) of the record at ``offset`` of ``stream``, or None at its end.

    A truncated or corrupted record is TF's ``DataLossError``."""
    header = stream.read(12)
    if len(header) < 12:
        return None
    length, length_crc = struct.unpack("<QI", header)
    if masked_crc32c(header[:8]) != length_crc:
        hint = " (Is this even a TFRecord file?)" if offset == 0 else ""
        raise errors.DataLossError(None, None, f"corrupted record at {offset}{hint}")
    body = stream.read(length + 4)
    if len(body) < length + 4:
        raise errors.DataLossError(None, None, f"truncated record at {offset}' failed with Read less bytes than "
                                               f"requested")
    data = body[:length]
    if masked_crc32c(data) != struct.unpack("<I", body[length:])[0]:
        raise errors.DataLossError(None, None, f"corrupted record at {offset + 12}")  # TF names the data's offset
    return data, offset + 16 + length


class RecordIterator:
    """The payloads of a TFRecord file, one per ``next``; the file opens now."""

    def __init__(self, path, compression: str = ""):
        self._stream = open_records(path, compression)
        self._offset = 0

    def __iter__(self):
        return self

    def __next__(self) -> bytes:
        got = None if self._stream is None else next_record(self._stream, self._offset)
        if got is None:
            self.close()
            raise StopIteration
        data, self._offset = got
        return data

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None


@tf_export("io.tf_record_iterator", "python_io.tf_record_iterator")
def tf_record_iterator(path, options=None) -> RecordIterator:
    """An iterator over the records (bytes) of the TFRecord file ``path``."""
    return RecordIterator(path, TFRecordOptions.get_compression_type_string(options))
