"""``tf.summary.FileWriter``: TensorBoard event files, and ``tf.train.summary_iterator`` to read them.

An event file is a TFRecord file of ``Event`` protocol buffers named
``events.out.tfevents.<seconds>.<hostname><suffix>``; its first event holds
``file_version: "brain.Event:2"``. Events are queued (up to ``max_queue``)
and written by the caller's thread; a background thread flushes the file
every ``flush_secs``. TF1 truncates an existing file of the same name (two
writers started in the same second); dflow keeps the old file and names the
new one ``...<hostname>.1<suffix>`` instead.

``add_graph`` writes a ``GraphDef`` of the graph's top-level ops (see
``dflow.summary.graph_def`` for what is and is not in it).
"""

from __future__ import annotations

import os
import socket
import threading
import time

import numpy as np

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.files import file_io
from dflow.framework.graph import Graph, get_default_graph
from dflow.framework.protos.summary_pb import (
    Event,
    SessionLog,
    SourceMetadata,
    Summary,
    TaggedRunMetadata,
    run_metadata_proto,
)
from dflow.summary import graph_def as _graph_def
from dflow.summary.record_io import encode_record, read_records

FILE_VERSION = "brain.Event:2"
WRITER_NAME = "dflow.summary"


def event_file_name(seconds: int, hostname: str, suffix: str = "") -> str:
    return f"events.out.tfevents.{int(seconds):010d}.{hostname}{suffix}"


class EventFileWriter:
    """Writes ``Event`` protos to a fresh event file in ``logdir``; thread-safe."""

    def __init__(self, logdir, max_queue: int = 10, flush_secs: float = 120, filename_suffix: str | None = None):
        self._logdir = os.fspath(logdir)
        self._max_queue = max(int(max_queue), 1)
        self._flush_secs = float(flush_secs)
        self._suffix = filename_suffix or ""
        self._lock = threading.RLock()
        self._closed = True
        self._file = None
        self._path = None
        self._pending: list[bytes] = []
        self._stop = threading.Event()
        self._thread = None
        self.reopen()

    def get_logdir(self) -> str:
        return self._logdir

    @property
    def path(self) -> str:
        """The file currently written."""
        return self._path

    def reopen(self) -> None:
        """Starts a new event file after ``close`` (a no-op while open)."""
        with self._lock:
            if not self._closed:
                return
            file_io.makedirs(self._logdir)
            seconds = int(time.time())
            host = socket.gethostname()
            n = 0
            while True:
                name = event_file_name(seconds, host if n == 0 else f"{host}.{n}", self._suffix)
                path = file_io.join(self._logdir, name)
                try:
                    self._file = file_io.open_file(path, "xb")  # kept open until close()
                    break
                except errors.AlreadyExistsError:
                    n += 1
            self._path = path
            self._closed = False
            first = Event(wall_time=float(seconds), file_version=FILE_VERSION,
                          source_metadata=SourceMetadata(writer=WRITER_NAME))
            self._file.write(encode_record(first.SerializeToString()))
            self._file.flush()
            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._flush_loop, args=(self._stop,),
                                            name=f"EventFileWriter({self._logdir})", daemon=True)
            self._thread.start()

    def _flush_loop(self, stop: threading.Event) -> None:
        while not stop.wait(self._flush_secs):
            self.flush()

    def add_event(self, event: Event) -> None:
        """Queues ``event``; written once ``max_queue`` events wait, or on ``flush``. Dropped after close."""
        if not isinstance(event, Event):
            raise TypeError(f"add_event expects a tf.Event, got {type(event).__name__}")
        record = encode_record(event.SerializeToString())
        with self._lock:
            if self._closed:
                return
            self._pending.append(record)
            if len(self._pending) >= self._max_queue:
                self._write_pending()

    def _write_pending(self) -> None:
        if self._pending:
            self._file.write(b"".join(self._pending))
            self._pending = []

    def flush(self) -> None:
        """Writes every queued event and flushes the file."""
        with self._lock:
            if self._closed:
                return
            self._write_pending()
            self._file.flush()

    def close(self) -> None:
        """Flushes and closes the file; ``reopen`` starts a new one."""
        with self._lock:
            if self._closed:
                return
            self._write_pending()
            self._file.flush()
            try:
                os.fsync(self._file.fileno())
            except OSError:
                pass
            self._file.close()
            self._file = None
            self._closed = True
            stop, thread = self._stop, self._thread
        stop.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join()


def _as_summary(summary) -> Summary:
    if isinstance(summary, Summary):
        return Summary.FromString(summary.SerializeToString())  # a copy: metadata may be stripped
    if isinstance(summary, np.ndarray) and summary.ndim == 0:
        summary = summary[()]
    if isinstance(summary, (bytes, bytearray, memoryview)):
        return Summary.FromString(bytes(summary))
    raise TypeError(f"add_summary expects a serialized Summary (bytes, as Session.run returns it) or a "
                    f"tf.Summary, got {type(summary).__name__}")


@tf_export("summary.FileWriter")
class FileWriter:
    """Writes summaries, session logs and the graph to an event file in ``logdir`` for TensorBoard."""

    def __init__(self, logdir, graph=None, max_queue: int = 10, flush_secs: float = 120, graph_def=None,
                 filename_suffix: str | None = None, session=None):
        if session is not None:
            raise NotImplementedError("FileWriter(session=...) (TF2 summary writer resources) is not supported "
                                      "by dflow; pass a logdir.")
        self.event_writer = EventFileWriter(logdir, max_queue, flush_secs, filename_suffix)
        self._seen_summary_tags: set[str] = set()
        self._run_metadata_tags: set[str] = set()
        self._closed = False
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        return False

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def _add_event(self, event: Event, step) -> None:
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None) -> None:
        """Adds a ``Summary`` (the bytes a summary op returns, or a ``tf.Summary``) at ``global_step``.

        As TF1, a value's metadata is written only the first time its tag is seen.
        """
        summary = _as_summary(summary)
        for value in summary.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
                continue
            self._seen_summary_tags.add(value.tag)
        self._add_event(Event(summary=summary), global_step)

    def add_session_log(self, session_log, global_step=None) -> None:
        """Adds a ``tf.SessionLog`` (START, STOP, CHECKPOINT) at ``global_step``."""
        if not isinstance(session_log, SessionLog):
            raise TypeError(f"add_session_log expects a tf.SessionLog, got {type(session_log).__name__}")
        self._add_event(Event(session_log=session_log), global_step)

    def add_event(self, event) -> None:
        """Adds an ``Event`` as it is (its wall time and step untouched)."""
        self.event_writer.add_event(event)

    def add_graph(self, graph, global_step=None, graph_def=None) -> None:
        """Writes a ``GraphDef`` of ``graph`` (a ``tf.Graph``, or the deprecated ``graph_def``)."""
        from dflow.framework.graph_io import GraphDef

        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        obj = graph if graph is not None else graph_def
        if isinstance(obj, Graph):
            proto = _graph_def.graph_def_from_graph(obj)
        elif isinstance(obj, GraphDef):
            proto = _graph_def.graph_def_from_dflow_graph_def(obj)
        else:
            raise TypeError("The passed graph must be an instance of `Graph` or the deprecated `GraphDef`")
        self._add_event(Event(graph_def=proto.SerializeToString()), global_step)

    def add_meta_graph(self, meta_graph_def, global_step=None) -> None:
        """Writes a ``tf.MetaGraphDef`` (``tf.train.export_meta_graph``'s) as TF's ``MetaGraphDef``
        protocol buffer: its tags and a ``GraphDef`` of its graph, which TensorBoard shows, and
        dflow's meta graph itself (in a field of its own).

        A dflow meta graph is known by what is written of it: a ``graph_def`` that is dflow's
        ``GraphDef``, a ``meta_info_def`` and ``SerializeToString`` (so that ``tf.summary``, below
        ``tf.train`` in dflow's layers, need not import ``dflow.train.meta_graph`` to check a type)."""
        from dflow.framework.graph_io import GraphDef

        if not (isinstance(getattr(meta_graph_def, "graph_def", None), GraphDef)
                and hasattr(meta_graph_def, "meta_info_def") and hasattr(meta_graph_def, "SerializeToString")):
            raise TypeError(f"meta_graph_def must be type MetaGraphDef, saw type: {type(meta_graph_def)}")
        proto = _graph_def.meta_graph_proto(meta_graph_def)
        self._add_event(Event(meta_graph_def=proto.SerializeToString()), global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None) -> None:
        """Writes the step stats of a traced run (``RunOptions(trace_level=FULL_TRACE)``) under
        ``tag``: TensorBoard's graph shows each op's compute time from them."""
        from dflow.sessions.config import RunMetadata

        if not isinstance(run_metadata, RunMetadata):
            raise TypeError(f"run_metadata must be a tf.RunMetadata, got {type(run_metadata).__name__}")
        if tag in self._run_metadata_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._run_metadata_tags.add(tag)
        tagged = TaggedRunMetadata(tag=tag, run_metadata=run_metadata_proto(run_metadata).SerializeToString())
        self._add_event(Event(tagged_run_metadata=tagged), global_step)

    def flush(self) -> None:
        """Writes every pending event to disk."""
        self.event_writer.flush()

    def close(self) -> None:
        """Flushes and closes the event file; later events are dropped until ``reopen``."""
        self.event_writer.close()
        self._closed = True

    def reopen(self) -> None:
        """Opens a new event file after ``close`` (a no-op while open)."""
        self.event_writer.reopen()
        self._closed = False


@tf_export("summary.FileWriterCache")
class FileWriterCache:
    """One shared ``FileWriter`` per log directory (holding the default graph when created)."""

    _cache: dict = {}
    _lock = threading.RLock()

    @staticmethod
    def clear() -> None:
        """Closes and forgets every cached writer."""
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache = {}

    @staticmethod
    def get(logdir) -> FileWriter:
        """The cached ``FileWriter`` of ``logdir``, created on first use."""
        with FileWriterCache._lock:
            writer = FileWriterCache._cache.get(logdir)
            if writer is None:
                writer = FileWriter(logdir, graph=get_default_graph())
                FileWriterCache._cache[logdir] = writer
            return writer


@tf_export("train.summary_iterator")
def summary_iterator(path):
    """Yields the ``tf.Event`` protos of the event file at ``path`` (CRCs checked).

    ``event.wall_time``, ``event.step``, ``event.file_version``,
    ``event.summary.value[i].tag`` / ``.simple_value`` / ``.histo`` ... read them.
    """
    for data in read_records(os.fspath(path)):
        yield Event.FromString(data)
