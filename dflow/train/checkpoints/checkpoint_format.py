"""Writing and reading the files of one checkpoint: ``<prefix>.index`` and its data file.

The layout is described in ``dflow.train.checkpoints.saver``. This module knows only
files and arrays: ``write_checkpoint(prefix, tensors)`` writes both files
crash-safely, and ``CheckpointReader(prefix)`` reads them back, checking
every byte it returns (``DataLossError`` for anything truncated, corrupt
or not written by dflow). Nothing here can execute code from a file: the
index is JSON and tensors are raw bytes given to ``np.frombuffer`` with a
dtype taken from a fixed list.

>>> import os, tempfile, numpy as np
>>> from dflow.framework import dtypes
>>> prefix = os.path.join(tempfile.mkdtemp(), "model")
>>> write_checkpoint(prefix, [("w", dtypes.float32, np.ones(2, np.float32))])
>>> CheckpointReader(prefix).get_tensor("w")
array([1., 1.], dtype=float32)
"""

from __future__ import annotations

import json
import math
import os
import struct
import zlib

import numpy as np

from dflow.framework import dtypes, errors
from dflow.framework.array_codec import as_bytes, string_array, unpack_strings
from dflow.framework.files.file_io import PendingFiles, open_file, stat

FORMAT = "dflow-checkpoint"
VERSION = 1
ALIGNMENT = 64  # each tensor starts at a multiple of this offset in the data file

_DTYPES = {d.name: d for d in dtypes.ALL}
# TF1's DataType names, for debug_string.
_TF_TYPE_NAMES = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}


def index_filename(prefix: str) -> str:
    return f"{prefix}.index"


def data_filename(prefix: str) -> str:
    return f"{prefix}.data-00000-of-00001"


def as_checkpoint_value(value, dtype) -> np.ndarray:
    """``value`` (what ``Session.run`` returned) as the array a checkpoint stores for ``dtype``."""
    if dtype is dtypes.string:
        arr = np.asarray(value, dtype=object)
        flat = [as_bytes(x) for x in arr.reshape(-1)]
        return string_array(flat, arr.shape)
    return np.asarray(value, dtype=dtype.as_numpy_dtype)


# -- writing ------------------------------------------------------------------------------


def _write_tensor(f, arr: np.ndarray, dtype) -> tuple[int, int]:
    """Writes the bytes of ``arr`` to ``f``; returns ``(length, crc32)``."""
    if dtype is dtypes.string:
        crc, length = 0, 0
        for item in arr.reshape(-1):
            head = struct.pack("<Q", len(item))
            f.write(head)
            f.write(item)
            crc = zlib.crc32(item, zlib.crc32(head, crc))
            length += 8 + len(item)
        return length, crc
    le = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).reshape(-1).view(np.uint8)
    f.write(le)
    return le.nbytes, zlib.crc32(le)


def write_checkpoint(prefix: str, tensors, also=()) -> None:
    """Writes ``[(name, dtype, value), ...]`` as the checkpoint ``prefix``.

    Both files, and the ``also`` files (``[(path, bytes)]``: the meta graph),
    go to temporary names first and are renamed into place only once all are
    written; the data file is renamed before the index, so an index on disk
    always describes a complete data file. A failure while writing (a full
    disk: ``ResourceExhaustedError`` naming the file) leaves any previous
    checkpoint at ``prefix`` as it was.
    """
    entries: dict = {}
    size = [0]

    def write_data(f):
        offset = 0
        for name, dtype, value in tensors:
            arr = as_checkpoint_value(value, dtype)
            pad = -offset % ALIGNMENT
            if pad:
                f.write(b"\0" * pad)
                offset += pad
            length, crc = _write_tensor(f, arr, dtype)
            entries[name] = {"dtype": dtype.name, "shape": list(arr.shape), "offset": offset, "length": length,
                             "crc32": crc}
            offset += length
        size[0] = offset

    with PendingFiles() as files:
        files.write(data_filename(prefix), write_data)
        index = {"format": FORMAT, "version": VERSION, "byte_order": "little", "string_encoding": "u64-length-prefixed",
                 "data_files": 1, "data_size": size[0], "tensors": dict(sorted(entries.items()))}
        files.write(index_filename(prefix), lambda f: f.write(json.dumps(index, indent=1).encode("utf-8")))
        for path, data in also:
            files.write(path, lambda f, data=data: f.write(data))
        files.commit()


# -- reading ------------------------------------------------------------------------------


def _corrupt(path: str, what: str) -> errors.DataLossError:
    return errors.DataLossError(None, None, f"Checkpoint {path} is corrupt or not a dflow checkpoint: {what}")


def _is_count(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2 ** 63


class CheckpointReader:
    """Reads the tensors of checkpoint ``prefix`` (``tf.train.NewCheckpointReader``).

    Raises ``NotFoundError`` if there is no checkpoint at ``prefix`` and
    ``DataLossError`` if its files are truncated, corrupt, or not dflow's.
    """

    def __init__(self, prefix):
        prefix = os.fspath(prefix)
        self._prefix = prefix
        index_path = index_filename(prefix)
        try:
            with open_file(index_path, "rb") as f:
                raw = f.read()
        except errors.NotFoundError:
            raise errors.NotFoundError(
                None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for "
                            f"{prefix} (no file {index_path})") from None
        except errors.FailedPreconditionError:
            raise errors.NotFoundError(None, None, f"{index_path} is a directory, not a checkpoint index") from None
        self._entries = self._parse_index(index_path, raw)
        self._data_path = data_filename(prefix)
        try:
            actual = stat(self._data_path).length
        except errors.OpError:
            raise errors.DataLossError(None, None, f"Checkpoint {prefix} is incomplete: its data file "
                                                   f"{self._data_path} is missing.") from None
        if actual < self._data_size:
            raise _corrupt(prefix, f"the data file is truncated ({actual} of {self._data_size} bytes)")

    def _parse_index(self, path: str, raw: bytes) -> dict:
        try:
            index = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise _corrupt(path, "the index is not JSON (TensorFlow's own checkpoints cannot be read by dflow)") \
                from None
        if not isinstance(index, dict) or index.get("format") != FORMAT:
            raise _corrupt(path, f"the index does not declare format {FORMAT!r}")
        if not isinstance(index.get("version"), int) or index["version"] > VERSION:
            raise _corrupt(path, f"format version {index.get('version')!r} is newer than this dflow reads ({VERSION})")
        tensors, size = index.get("tensors"), index.get("data_size")
        if not isinstance(tensors, dict) or not _is_count(size):
            raise _corrupt(path, "the index has no tensor table")
        self._data_size = size
        entries = {}
        for name, e in tensors.items():
            if not isinstance(e, dict) or not isinstance(e.get("dtype"), str) or e["dtype"] not in _DTYPES \
                    or not isinstance(e.get("shape"), list) \
                    or not all(_is_count(d) for d in e["shape"]) \
                    or not all(_is_count(e.get(k)) for k in ("offset", "length", "crc32")):
                raise _corrupt(path, f"the entry of tensor {name!r} is malformed")
            dtype = _DTYPES[e["dtype"]]
            if e["offset"] + e["length"] > size:
                raise _corrupt(path, f"tensor {name!r} lies beyond the end of the data")
            n = math.prod(e["shape"])  # exact: a crafted shape must not wrap around
            if dtype is not dtypes.string and e["length"] != n * dtype.size:
                raise _corrupt(path, f"tensor {name!r} has {e['length']} bytes for shape {e['shape']}")
            entries[name] = (dtype, tuple(e["shape"]), e["offset"], e["length"], e["crc32"])
        return entries

    # -- TF1's CheckpointReader API ------------------------------------------------------
    def has_tensor(self, tensor_str: str) -> bool:
        return tensor_str in self._entries

    def get_variable_to_shape_map(self) -> dict:
        return {name: list(e[1]) for name, e in self._entries.items()}

    def get_variable_to_dtype_map(self) -> dict:
        return {name: e[0] for name, e in self._entries.items()}

    def get_tensor(self, tensor_str: str) -> np.ndarray:
        """The value of ``tensor_str``; ``NotFoundError`` if the checkpoint has no such tensor."""
        return self.get_tensors([tensor_str])[0]

    def get_tensors(self, names, writable: bool = True) -> list:
        """The values of ``names``, read with one open of the data file.

        ``writable=False`` returns read-only arrays without copying them
        (what ``Saver.restore`` feeds, as variables keep read-only values)."""
        for name in names:
            if name not in self._entries:
                raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint {self._prefix}")
        with open_file(self._data_path, "rb") as f:
            return [self._read(f, name, writable) for name in names]

    def debug_string(self) -> bytes:
        lines = []
        for name in sorted(self._entries):
            dtype, shape = self._entries[name][:2]
            tf_name = _TF_TYPE_NAMES.get(dtype.name, dtype.name.upper())
            lines.append(f"{name} (DT_{tf_name}) [{','.join(str(d) for d in shape)}]\n")
        return "".join(lines).encode("utf-8")

    def _read(self, f, name: str, writable: bool = True) -> np.ndarray:
        dtype, shape, offset, length, crc = self._entries[name]
        f.seek(offset)
        buf = f.read(length)
        if len(buf) != length:
            raise _corrupt(self._prefix, f"tensor {name!r} is truncated ({len(buf)} of {length} bytes)")
        if zlib.crc32(buf) != crc:
            raise _corrupt(self._prefix, f"tensor {name!r} fails its CRC32 check")
        if dtype is dtypes.string:
            try:
                values = unpack_strings(buf, int(np.prod(shape, dtype=np.int64)))
            except ValueError as e:
                raise _corrupt(self._prefix, f"string tensor {name!r}: {e}") from None
            return string_array(values, shape)
        le = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
        arr = np.frombuffer(buf, dtype=le).reshape(shape)
        native = le.newbyteorder("=")
        if writable or native != le:
            return arr.astype(native)
        return arr

    def __repr__(self):
        return f"<CheckpointReader {self._prefix!r} with {len(self._entries)} tensors>"
