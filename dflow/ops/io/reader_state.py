"""The state of a TF1 reader: its current work item, counters, and the records of each kind.

A reader (``dflow/ops/io/io_ops.py``) is a session resource, as a queue is. Its
ops call ``read``, ``read_up_to``, ``reset``, ``serialize``/``restore`` under
the reader's lock, as TF1's ``ReaderBase`` does:

* with no work in progress, a read dequeues the next work item (a file name)
  from the queue, waiting as a dequeue does; a closed, empty queue ends the
  read with the queue's ``OutOfRangeError``;
* each kind turns a work item into records ``(key, value, last)``; ``last``
  marks a record that also ends its work item (a whole file, an identity
  item), which TF1 counts as finished at once;
* ``read_up_to`` returns at most the records of one work item;
* a work item that cannot be opened is dropped with its error; the next read
  moves on to the next item.
"""

from __future__ import annotations

import threading

from dflow.framework import dtypes, errors
from dflow.framework.files.file_io import os_error, stat
from dflow.framework.files.tf_record import iter_records, open_records
from dflow.framework.protos.protobuf import Field, Message


class ReaderBaseState(Message):
    """tensorflow/core/framework/reader_base.proto: what ``serialize_state`` returns."""

    FIELDS = (Field(1, "work_started", "int64"), Field(2, "work_finished", "int64"),
              Field(3, "num_records_produced", "int64"), Field(4, "current_work", "bytes"))


def _tf_records(work: bytes, compression: str):
    stream = open_records(work, compression)
    try:
        for offset, data in iter_records(stream):
            yield work + b":%d" % offset, data, False
    finally:
        stream.close()


def _text_lines(work: bytes, skip_header_lines: int):
    with open_records(work) as f:
        for number, line in enumerate(f, start=1):
            if line.endswith(b"\n"):
                line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
            if number > skip_header_lines:
                yield work + b":%d" % number, line, False


def _whole_file(work: bytes):
    with open_records(work) as f:
        try:
            data = f.read()
        except OSError as e:
            raise os_error(e, work.decode()) from None
    yield work, data, True


def _fixed_length(work: bytes, record_bytes: int, header_bytes: int, footer_bytes: int, hop_bytes: int,
                  encoding: str):
    name = work
    if encoding:
        stream = open_records(name, encoding)
        try:
            body = stream.read(1 << 62)[header_bytes:]
        finally:
            stream.close()
        body = body[:max(0, len(body) - footer_bytes)]
        size, read = len(body), lambda pos: body[pos:pos + record_bytes]
        close = None
    else:
        size = stat(name).length - header_bytes - footer_bytes
        f = open_records(name)
        close = f.close

        def read(pos):
            f.seek(header_bytes + pos)
            return f.read(record_bytes)
    step = hop_bytes or record_bytes
    try:
        number, pos = 0, 0
        while pos + record_bytes <= size:
            yield work + b":%d" % number, read(pos), False
            number, pos = number + 1, pos + step
    finally:
        if close is not None:
            close()


def _identity(work: bytes):
    yield work, work, True


_KINDS = {
    "TFRecordReaderV2": lambda a: lambda w: _tf_records(w, a["compression_type"]),
    "TextLineReaderV2": lambda a: lambda w: _text_lines(w, a["skip_header_lines"]),
    "WholeFileReaderV2": lambda a: _whole_file,
    "FixedLengthRecordReaderV2": lambda a: lambda w: _fixed_length(w, a["record_bytes"], a["header_bytes"],
                                                                    a["footer_bytes"], a["hop_bytes"], a["encoding"]),
    "IdentityReaderV2": lambda a: _identity,
}


class ReaderState:
    """One reader's progress: ``records(work)`` yields ``(key, value, last)`` per record of a work item."""

    def __init__(self, kind: str, name: str, attrs: dict):
        self.kind = kind
        self.name = name
        self.records = _KINDS[kind](attrs)
        self.serializable = kind == "IdentityReaderV2"
        self._lock = threading.Lock()
        self._clear()

    def _clear(self) -> None:
        self.work = b""
        self.source = None
        self.work_started = self.work_finished = self.produced = 0

    def _next_work(self, ctx, queue) -> None:
        if len(queue.dtypes) != 1:
            raise errors.InvalidArgumentError(None, None, "Expected single component queue")
        if queue.dtypes[0] != dtypes.string:
            raise errors.InvalidArgumentError(None, None, "Expected queue with single string component")
        work = queue.dequeue(ctx)[0]
        work = work.item() if hasattr(work, "item") else work
        self.work = work.encode() if isinstance(work, str) else bytes(work)
        self.source = self.records(self.work)
        self.work_started += 1

    def _finish_work(self) -> None:
        self.source = None
        self.work_finished += 1

    def _next(self, ctx, queue):
        """The next record ``(key, value, last)`` of the current work item, or None at its end."""
        if self.source is None:
            self._next_work(ctx, queue)
        try:
            return next(self.source, None)
        except Exception:
            self.source = None  # a work item that failed is dropped; the next read moves on
            raise

    def read(self, ctx, queue) -> tuple:
        with self._lock:
            while True:
                rec = self._next(ctx, queue)
                if rec is None:
                    self._finish_work()
                    continue
                self.produced += 1
                if rec[2]:
                    self._finish_work()
                return rec[0], rec[1]

    def read_up_to(self, ctx, queue, n: int) -> tuple:
        with self._lock:
            keys, values = [], []
            while len(keys) < n:
                rec = self._next(ctx, queue)
                if rec is None:
                    self._finish_work()
                    if keys:
                        break
                    continue
                keys.append(rec[0])
                values.append(rec[1])
                self.produced += 1
                if rec[2]:
                    self._finish_work()
                    break
            return keys, values

    def reset(self) -> None:
        with self._lock:
            self._clear()

    def serialize(self) -> bytes:
        if not self.serializable:
            raise errors.UnimplementedError(None, None, "Reader SerializeState")
        with self._lock:
            return ReaderBaseState(work_started=self.work_started, work_finished=self.work_finished,
                                   num_records_produced=self.produced, current_work=self.work).SerializeToString()

    def restore(self, state: bytes) -> None:
        if not self.serializable:
            raise errors.UnimplementedError(None, None, "Reader RestoreState")
        kind = self.kind[:-2]
        try:
            s = ReaderBaseState.FromString(state)
        except ValueError:
            raise errors.InvalidArgumentError(None, None, f"Could not parse state for {kind} '{self.name}': "
                                                          f"{state.decode(errors='replace')}") from None
        for field in ("work_started", "work_finished", "num_records_produced"):
            if getattr(s, field) < 0:
                raise errors.InvalidArgumentError(None, None, f"Unexpected negative {field} for {kind} "
                                                              f"'{self.name}'")
        if s.work_finished > s.work_started:
            raise errors.InvalidArgumentError(None, None, f"Inconsistent work started vs. finished for {kind} "
                                                          f"'{self.name}': {s.work_started} vs. {s.work_finished}")
        with self._lock:
            self.work_started, self.work_finished = s.work_started, s.work_finished
            self.produced, self.work = s.num_records_produced, s.current_work
            self.source = self.records(self.work) if s.work_started > s.work_finished else None
