"""TF1's file ops and queue-based readers.

``tf.read_file``, ``tf.write_file``, ``tf.matching_files`` and
``tf.train.match_filenames_once`` read and write whole files; the readers
(``tf.TFRecordReader``, ``tf.TextLineReader``, ``tf.WholeFileReader``,
``tf.FixedLengthRecordReader``, ``tf.IdentityReader``) take their work (file
names) from a queue, usually ``tf.train.string_input_producer``'s::

    queue = tf.train.string_input_producer(["a.tfrecord"], num_epochs=1)
    key, value = tf.TFRecordReader().read(queue)   # b"a.tfrecord:0", the record

A reader is a session resource, as a queue is: its op (``TFRecordReaderV2``,
...) outputs a handle, ``b"<container>:<name>"`` (TF1's is a ``resource``
tensor), and ``ReaderReadV2``, ``ReaderReadUpToV2``, ``ReaderResetV2``, ...
take it as their first input. The state lives in ``dflow/ops/io/reader_state.py``.
"""

from __future__ import annotations

import os
import posixpath

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.files.file_io import as_bytes, glob, makedirs, open_file
from dflow.framework.files.tf_record import TFRecordOptions
from dflow.framework.graph import GraphKeys, Tensor, colocate_with, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.io.reader_state import ReaderState
from dflow.ops.state.data_flow_ops import _queue_lookup, named_resource_kernel, resource_key

_SCALAR, _VECTOR = TensorShape([]), TensorShape([None])


def _string(value) -> str:
    value = value.item() if isinstance(value, np.ndarray) else value
    return value.decode() if isinstance(value, bytes) else str(value)


# -- whole files -----------------------------------------------------------------------------


def _read_file_kernel(filename):
    with open_file(_string(filename), "rb") as f:
        return np.array(f.read(), dtype=object)


def _write_file_kernel(filename, contents):
    path = _string(filename)
    directory = posixpath.dirname(path) if "://" in path else os.path.dirname(path)
    if directory and ("://" in directory or "://" not in path):
        makedirs(directory)
    with open_file(path, "wb") as f:
        f.write(as_bytes(contents.item() if isinstance(contents, np.ndarray) else contents))


def _matching_files_kernel(pattern):
    patterns = [_string(p) for p in np.asarray(pattern, dtype=object).ravel()]
    found = sorted(m for p in patterns for m in glob(p))
    out = np.empty(len(found), dtype=object)
    out[:] = [m.encode() for m in found]
    return out


def _scalar_inputs_infer(op):
    for t in op.inputs:
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims}")
    return [(dtypes.string, _SCALAR)] if op.type == "ReadFile" else []


def _matching_files_infer(op):
    if op.inputs[0].shape.ndims not in (None, 0, 1):
        raise ValueError(f"Shape must be at most rank 1 but is rank {op.inputs[0].shape.ndims}")
    return [(dtypes.string, _VECTOR)]


register("ReadFile", infer=_scalar_inputs_infer, kernel=_read_file_kernel, stateful=True, gpu=False)
register("WriteFile", infer=_scalar_inputs_infer, kernel=_write_file_kernel, stateful=True,
         gpu=False)
register("MatchingFiles", infer=_matching_files_infer, kernel=_matching_files_kernel, stateful=True, gpu=False)
for _t in ("ReadFile", "WriteFile", "MatchingFiles"):
    not_differentiable(_t)


@tf_export("io.read_file", "read_file")
def read_file(filename, name=None) -> Tensor:
    """The contents of the file ``filename`` (a scalar string), read when the op runs."""
    filename = convert_to_tensor(filename, dtype=dtypes.string, name="filename")
    return apply_op("ReadFile", [filename], name=name or "ReadFile").outputs[0]


@tf_export("io.write_file", "write_file")
def write_file(filename, contents, name=None):
    """An op that writes ``contents`` to ``filename``, creating its directory if needed."""
    filename = convert_to_tensor(filename, dtype=dtypes.string, name="filename")
    contents = convert_to_tensor(contents, dtype=dtypes.string, name="contents")
    return apply_op("WriteFile", [filename, contents], name=name or "WriteFile")


@tf_export("io.matching_files", "matching_files")
def matching_files(pattern, name=None) -> Tensor:
    """The sorted file names matching the glob ``pattern`` (a scalar or a vector of patterns)."""
    pattern = convert_to_tensor(pattern, dtype=dtypes.string, name="pattern")
    return apply_op("MatchingFiles", [pattern], name=name or "MatchingFiles").outputs[0]


@tf_export("io.match_filenames_once", "train.match_filenames_once")
def match_filenames_once(pattern, name=None):
    """A local variable holding the files matching ``pattern``, matched once when initialized
    (run ``tf.local_variables_initializer()``)."""
    from dflow.ops.state.variables import Variable

    with name_scope(name, "matching_filenames", [pattern]) as name:
        return Variable(matching_files(pattern), name=name, trainable=False, validate_shape=False,
                        collections=[GraphKeys.LOCAL_VARIABLES])


# -- readers ----------------------------------------------------------------------------------

_READER_TYPES = ("TFRecordReaderV2", "TextLineReaderV2", "WholeFileReaderV2", "FixedLengthRecordReaderV2",
                 "IdentityReaderV2")


def _new_reader(op, name: str) -> ReaderState:
    return ReaderState(op.type, op.name, op._attrs)


def _check_shared_reader(state: ReaderState, op, name: str) -> None:
    if state.kind != op.type:
        raise errors.InvalidArgumentError(None, None, f"Shared reader '{name}' is a {state.kind[:-2]}, but op "
                                                      f"{op.name} asks for a {op.type[:-2]} of that name")


_reader_kernel = named_resource_kernel("reader", _new_reader, _check_shared_reader)
for _t in _READER_TYPES:
    register(_t, infer=lambda op: [(dtypes.string, _SCALAR)], make_kernel=_reader_kernel, stateful=True, gpu=False)
    not_differentiable(_t)


def _reader_lookup(resources):
    return lambda handle: resources.resource(resource_key("reader", handle))


def _strings(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _read_kernel(op, resources):
    reader, queue = _reader_lookup(resources), _queue_lookup(resources)

    def kernel(ctx, reader_handle, queue_handle):
        key, value = reader(reader_handle).read(ctx, queue(queue_handle))
        return np.array(key, dtype=object), np.array(value, dtype=object)

    return kernel


def _read_up_to_kernel(op, resources):
    reader, queue = _reader_lookup(resources), _queue_lookup(resources)

    def kernel(ctx, reader_handle, queue_handle, num_records):
        n = int(num_records)
        if n <= 0:
            raise errors.InvalidArgumentError(None, None, f"num_records must be > 0, got {n}")
        keys, values = reader(reader_handle).read_up_to(ctx, queue(queue_handle), n)
        return _strings(keys), _strings(values)

    return kernel


def _reader_method_kernel(method):
    def make(op, resources):
        reader = _reader_lookup(resources)
        return lambda handle, *args: method(reader(handle), *args)

    return make


def _restore(state, value):
    state.restore(bytes(value.item() if isinstance(value, np.ndarray) else value))


register("ReaderReadV2", infer=lambda op: [(dtypes.string, _SCALAR)] * 2, make_kernel=_read_kernel, stateful=True,
         gpu=False, uses_context=True)
register("ReaderReadUpToV2", infer=lambda op: [(dtypes.string, _VECTOR)] * 2, make_kernel=_read_up_to_kernel,
         stateful=True, gpu=False, uses_context=True)
register("ReaderNumRecordsProducedV2", infer=lambda op: [(dtypes.int64, _SCALAR)],
         make_kernel=_reader_method_kernel(lambda r: np.int64(r.produced)), stateful=True, gpu=False)
register("ReaderNumWorkUnitsCompletedV2", infer=lambda op: [(dtypes.int64, _SCALAR)],
         make_kernel=_reader_method_kernel(lambda r: np.int64(r.work_finished)), stateful=True, gpu=False)
register("ReaderSerializeStateV2", infer=lambda op: [(dtypes.string, _SCALAR)],
         make_kernel=_reader_method_kernel(lambda r: np.array(r.serialize(), dtype=object)), stateful=True,
         gpu=False)
register("ReaderRestoreStateV2", infer=lambda op: [], make_kernel=_reader_method_kernel(_restore), stateful=True,
         gpu=False)
register("ReaderResetV2", infer=lambda op: [], make_kernel=_reader_method_kernel(lambda r: r.reset()),
         stateful=True, gpu=False)
for _t in ("ReaderReadV2", "ReaderReadUpToV2", "ReaderNumRecordsProducedV2", "ReaderNumWorkUnitsCompletedV2",
           "ReaderSerializeStateV2", "ReaderRestoreStateV2", "ReaderResetV2"):
    not_differentiable(_t)


def _queue_ref(queue) -> Tensor:
    return queue if isinstance(queue, Tensor) else queue.queue_ref


@tf_export("ReaderBase")
class ReaderBase:
    """The base of the readers: each ``read`` returns the next ``(key, value)`` record, taking a
    new work item (a file name) from ``queue`` when the current one is done."""

    def __init__(self, reader_ref: Tensor, supports_serialize: bool = False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self) -> Tensor:
        return self._reader_ref

    @property
    def supports_serialize(self) -> bool:
        return self._supports_serialize

    def _apply(self, op_type: str, inputs: list, name):
        with colocate_with(self._reader_ref.op):
            return apply_op(op_type, [self._reader_ref, *inputs], name=name or op_type)

    def read(self, queue, name=None):
        """The next record: ``(key, value)`` scalar strings."""
        return tuple(self._apply("ReaderReadV2", [_queue_ref(queue)], name).outputs)

    def read_up_to(self, queue, num_records, name=None):
        """Up to ``num_records`` records of the current work item: ``(keys, values)`` vectors."""
        n = convert_to_tensor(num_records, dtype=dtypes.int64, name="num_records")
        return tuple(self._apply("ReaderReadUpToV2", [_queue_ref(queue), n], name).outputs)

    def num_records_produced(self, name=None) -> Tensor:
        return self._apply("ReaderNumRecordsProducedV2", [], name).outputs[0]

    def num_work_units_completed(self, name=None) -> Tensor:
        return self._apply("ReaderNumWorkUnitsCompletedV2", [], name).outputs[0]

    def serialize_state(self, name=None) -> Tensor:
        """The reader's state as a string (``UnimplementedError`` for readers that cannot)."""
        return self._apply("ReaderSerializeStateV2", [], name).outputs[0]

    def restore_state(self, state, name=None):
        state = convert_to_tensor(state, dtype=dtypes.string, name="state")
        return self._apply("ReaderRestoreStateV2", [state], name)

    def reset(self, name=None):
        """Forgets the work in progress and zeroes the counters."""
        return self._apply("ReaderResetV2", [], name)


def _make_reader(op_type: str, name, attrs: dict) -> Tensor:
    attrs = {"container": "", "shared_name": "", **attrs}
    return apply_op(op_type, [], attrs, name=name or op_type).outputs[0]


@tf_export("TFRecordReader")
class TFRecordReader(ReaderBase):
    """Reads the records of TFRecord files; keys are ``b"<file>:<offset>"``."""

    def __init__(self, name=None, options=None):
        compression = TFRecordOptions.get_compression_type_string(options)
        super().__init__(_make_reader("TFRecordReaderV2", name, {"compression_type": compression}))


@tf_export("TextLineReader")
class TextLineReader(ReaderBase):
    """Reads the lines of text files (without ``\\n`` or ``\\r\\n``), after ``skip_header_lines`` of each;
    keys are ``b"<file>:<line number>"``, counting from 1."""

    def __init__(self, skip_header_lines=None, name=None):
        skip = int(skip_header_lines or 0)
        super().__init__(_make_reader("TextLineReaderV2", name, {"skip_header_lines": skip}))


@tf_export("WholeFileReader")
class WholeFileReader(ReaderBase):
    """Reads each file as one record: the key is the file name, the value its contents."""

    def __init__(self, name=None):
        super().__init__(_make_reader("WholeFileReaderV2", name, {}))


@tf_export("FixedLengthRecordReader")
class FixedLengthRecordReader(ReaderBase):
    """Reads records of ``record_bytes`` bytes between ``header_bytes`` and ``footer_bytes`` of each file,
    one every ``hop_bytes`` (default: ``record_bytes``); ``encoding`` is ``""``, ``"ZLIB"`` or ``"GZIP"``.
    A partial final record is skipped, as TF1 does. Keys are ``b"<file>:<record number>"``."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None, name=None, encoding=None):
        attrs = {"record_bytes": int(record_bytes), "header_bytes": int(header_bytes or 0),
                 "footer_bytes": int(footer_bytes or 0), "hop_bytes": int(hop_bytes or 0),
                 "encoding": TFRecordOptions.get_compression_type_string(encoding)}
        if attrs["record_bytes"] <= 0:
            raise ValueError(f"FixedLengthRecordReader: record_bytes must be > 0, got {record_bytes}")
        for arg in ("header_bytes", "footer_bytes", "hop_bytes"):
            if attrs[arg] < 0:
                raise ValueError(f"FixedLengthRecordReader: {arg} must be >= 0, got {attrs[arg]}")
        super().__init__(_make_reader("FixedLengthRecordReaderV2", name, attrs))


@tf_export("IdentityReader")
class IdentityReader(ReaderBase):
    """Outputs each work item as both key and value; its state can be serialized and restored."""

    def __init__(self, name=None):
        super().__init__(_make_reader("IdentityReaderV2", name, {}), supports_serialize=True)


@tf_export("LMDBReader")
class LMDBReader(ReaderBase):
    """TF1's reader of LMDB databases; not available in dflow."""

    def __init__(self, name=None, options=None):
        raise NotImplementedError("LMDBReader: reading LMDB databases needs the LMDB library, which dflow does not "
                                  "depend on; convert the data to TFRecord files and use tf.TFRecordReader")
