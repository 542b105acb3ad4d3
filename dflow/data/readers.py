"""File-reading datasets: ``tf.data.TextLineDataset``, ``TFRecordDataset``, ``FixedLengthRecordDataset``.

The file names are a string tensor (a scalar or a vector), read when the
iterator is initialized; files are opened one after the other, lazily, as
the pipeline reaches them.

>>> import dflow as tf, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
>>> _ = open(path, "w").write("x,1\\ny,2\\n")
>>> nxt = tf.data.make_one_shot_iterator(tf.data.TextLineDataset(path)).get_next()
>>> with tf.Session() as sess:
...     [sess.run(nxt), sess.run(nxt)]
[b'x,1', b'y,2']
"""

from __future__ import annotations

import gzip
import io
import zlib

import numpy as np

from dflow._api import tf_export
from dflow.data import structure
from dflow.data.dataset_ops import DatasetV1
from dflow.data.pipeline import Stage
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.files.file_io import split_path, stat
from dflow.framework.files.tf_record import RecordIterator, open_records
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import constant_value

_COMPRESSION = ("", "GZIP", "ZLIB")


def _strings(value) -> list:
    arr = np.asarray(value, dtype=object)
    return [v.decode() if isinstance(v, bytes) else str(v) for v in arr.ravel().tolist()]


def _open(name: str, compression: str, buffer_size: int):
    fs, path = split_path(name)  # local files open directly; other schemes through fsspec
    try:
        if compression == "GZIP":
            return gzip.open(path, "rb") if fs is None else fs.open(path, "rb", compression="gzip")
        if compression == "ZLIB":
            with open(path, "rb") if fs is None else fs.open(path, "rb") as f:
                return io.BytesIO(zlib.decompress(f.read()))
        if fs is not None:
            return fs.open(path, "rb")
        return open(path, "rb", buffering=buffer_size if buffer_size > 0 else -1)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{name}; No such file or directory") from None
    except zlib.error as e:
        raise errors.DataLossError(None, None, f"{name}: not valid ZLIB data ({e})") from None
    except OSError as e:
        raise errors.UnknownError(None, None, f"{name}: {e}") from None


class FileRecordIterator(Stage):
    """The records of each file in turn, or interleaved over ``cycle`` open files.

    ``read(name)`` returns an iterator of one file's records (bytes). With
    ``cycle > 1`` the order is TF's interleave (``num_parallel_reads``): one
    record from each open file in turn; a file that ends frees its slot, which
    the next file takes when the turn comes back to it.
    """

    def __init__(self, filenames: list, read, cycle: int = 1):
        self.filenames = filenames
        self.read = read
        self.next_file = 0
        self.slots: list = [None] * max(1, cycle)
        self.turn = 0

    def __next__(self):
        slots = self.slots
        while self.next_file < len(self.filenames) or any(s is not None for s in slots):
            current = slots[self.turn]
            if current is None:
                if self.next_file < len(self.filenames):
                    name = self.filenames[self.next_file]
                    self.next_file += 1
                    slots[self.turn] = iter(self.read(name))
                else:
                    self.turn = (self.turn + 1) % len(slots)
                continue
            try:
                record = next(current, None)
            except Exception:
                slots[self.turn] = None
                raise
            if record is None:
                slots[self.turn] = None
            self.turn = (self.turn + 1) % len(slots)
            if record is not None:
                return (record,)
        raise StopIteration

    def close(self) -> None:
        for s in self.slots:
            close = getattr(s, "close", None)
            if close is not None:
                close()
        self.slots = [None] * len(self.slots)


def _text_lines(name: str, compression: str, buffer_size: int):
    """The lines of one file, without their ``\\n`` or ``\\r\\n``."""
    with _open(name, compression, buffer_size) as f:
        while True:
            try:
                line = f.readline()
            except (OSError, EOFError, zlib.error) as e:
                raise errors.DataLossError(None, None, f"{name}: {e}") from None
            if not line:
                return
            if line.endswith(b"\n"):
                line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
            yield line


def _filenames_tensor(filenames) -> Tensor:
    """``filenames`` as a string tensor of any rank (flattened when read), as TF1 checks it."""
    t = filenames if isinstance(filenames, Tensor) else convert_to_tensor(filenames, name="filenames")
    if t.dtype != dtypes.string:
        raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got `tf.{t.dtype.name}` "
                        f"elements.")
    return t


class _FileDataset(DatasetV1):
    """A dataset of the records of files: scalar strings, read by ``_reader(compression)``."""

    def __init__(self, filenames, compression_type=None, num_parallel_reads=None):
        self._filenames = _filenames_tensor(filenames)
        if isinstance(compression_type, Tensor):
            self._compression = compression_type
        else:
            self._compression = (compression_type or "").upper()
            if self._compression not in _COMPRESSION:
                raise ValueError(f"Unsupported compression_type {compression_type!r}: use '', 'GZIP' or 'ZLIB'.")
        self._cycle = 1 if num_parallel_reads is None else int(num_parallel_reads)
        if self._cycle == -1:  # AUTOTUNE: TF picks a cycle; files in turn keep dflow's order reproducible
            self._cycle = 1
        if self._cycle < 1:
            raise ValueError(f"num_parallel_reads must be a positive integer or AUTOTUNE, got {num_parallel_reads}")
        super().__init__(structure.ComponentSpec(dtypes.string, []))

    def _tensors(self):
        return [self._filenames] + ([self._compression] if isinstance(self._compression, Tensor) else [])

    def _reader(self, compression: str):
        raise NotImplementedError  # pragma: no cover - each dataset defines it

    def _build(self, ctx):
        names = _strings(ctx.value(self._filenames))
        compression = self._compression
        if isinstance(compression, Tensor):
            compression = _strings(ctx.value(compression))[0].upper()
            if compression not in _COMPRESSION:
                raise errors.InvalidArgumentError(None, None, f"Unsupported compression_type {compression!r}.")
        read, cycle = self._reader(compression), self._cycle
        return lambda: FileRecordIterator(names, read, cycle)


@tf_export("data.TextLineDataset")
class TextLineDataset(_FileDataset):
    """The lines of one or more text files, as scalar strings (TF1's ``tf.data.TextLineDataset``).

    ``filenames`` is a string, a list of strings, or a string tensor;
    ``compression_type`` is ``""`` (or None), ``"GZIP"`` or ``"ZLIB"``;
    ``buffer_size`` is the read buffer in bytes. Skip a header with
    ``.skip(1)``.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        self._buffer_size = 0 if buffer_size is None else int(buffer_size)
        super().__init__(filenames, compression_type, num_parallel_reads)

    def _reader(self, compression: str):
        buffer_size = self._buffer_size
        return lambda name: _text_lines(name, compression, buffer_size)


@tf_export("data.TFRecordDataset")
class TFRecordDataset(_FileDataset):
    """The records of one or more TFRecord files, as scalar strings (TF1's ``tf.data.TFRecordDataset``).

    ``compression_type`` is ``""`` (or None), ``"GZIP"`` or ``"ZLIB"``; with
    ``num_parallel_reads`` files are read that many at a time, their records
    interleaved one by one in TF's order. A corrupted or truncated record is a
    ``DataLossError``.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        super().__init__(filenames, compression_type, num_parallel_reads)

    def _reader(self, compression: str):
        return lambda name: RecordIterator(name, compression)


def _fixed_length_records(name: str, record_bytes: int, header_bytes: int, footer_bytes: int, compression: str):
    """The records of one file of fixed-length records between a header and a footer."""

    def not_whole(body: int, cls):
        return cls(None, None, f"Excluding the header ({header_bytes} bytes) and footer ({footer_bytes} bytes), "
                               f'input file "{name}" has body length {body} bytes, which is not an exact multiple '
                               f"of the record length ({record_bytes} bytes).")

    if not compression:  # TF checks an uncompressed file's size before reading it
        size = stat(name).length
        if (size - header_bytes - footer_bytes) % record_bytes:
            raise not_whole(size - header_bytes - footer_bytes, errors.InvalidArgumentError)
    stream = open_records(name, compression)
    try:
        total = len(stream.read(header_bytes))
        buf = b""
        while True:
            chunk = stream.read(max(1 << 16, record_bytes))
            total += len(chunk)
            buf += chunk
            whole = max(0, len(buf) - footer_bytes) // record_bytes * record_bytes
            for i in range(0, whole, record_bytes):
                yield buf[i:i + record_bytes]
            buf = buf[whole:]
            if not chunk:
                break
        if len(buf) > footer_bytes:
            raise not_whole(total - header_bytes - footer_bytes, errors.DataLossError)
    finally:
        stream.close()


@tf_export("data.FixedLengthRecordDataset")
class FixedLengthRecordDataset(_FileDataset):
    """Records of ``record_bytes`` bytes from one or more files, after ``header_bytes`` and before
    ``footer_bytes`` of each (TF1's ``tf.data.FixedLengthRecordDataset``).

    An uncompressed file whose body is not a whole number of records is an
    ``InvalidArgumentError`` before any of its records; a compressed one gives
    its whole records, then a ``DataLossError``.
    """

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None, name=None):
        self._sizes = {}
        for arg, value, low in (("record_bytes", record_bytes, 1), ("header_bytes", header_bytes, 0),
                                ("footer_bytes", footer_bytes, 0)):
            if isinstance(value, Tensor):
                value = constant_value(value)
                if value is None:
                    raise NotImplementedError(f"FixedLengthRecordDataset: a fed {arg} is not supported; pass an int")
            value = int(0 if value is None else value)
            if value < low:
                raise ValueError(f"FixedLengthRecordDataset: {arg} must be >= {low}, got {value}")
            self._sizes[arg] = value
        super().__init__(filenames, compression_type, num_parallel_reads)

    def _reader(self, compression: str):
        sizes = self._sizes
        return lambda name: _fixed_length_records(name, sizes["record_bytes"], sizes["header_bytes"],
                                                  sizes["footer_bytes"], compression)
