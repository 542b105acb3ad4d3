"""``cache``: elements kept after the first complete pass.

In memory (``filename=""``) the cache lives as long as the iterator's
initialization: the first epoch reads upstream and records; once it has
seen the end, later epochs (``cache().repeat()``) replay the record. A pass
abandoned early, or broken by an error, records nothing.

With a filename the record is written, after a complete pass, to
``<filename>.cache.npz`` (numpy's format, loaded with ``allow_pickle=False``,
so reading a cache runs no code), through a temporary name and a rename;
every later pass, in any session or process, reads the file instead of the
upstream.
"""

from __future__ import annotations

import numpy as np

from dflow.data.pipeline import ListIterator, Stage
from dflow.framework import errors
from dflow.framework.files import file_io


def cache_path(filename: str) -> str:
    return f"{filename}.cache.npz"


class CacheSource:
    def __init__(self, up_source, filename: str, np_dtypes: list):
        self.up_source = up_source
        self.filename = filename
        self.np_dtypes = np_dtypes
        self.elements = None

    def __call__(self):
        if self.elements is None and self.filename and file_io.exists(cache_path(self.filename)):
            self.elements = read_cache(cache_path(self.filename), self.np_dtypes)
        if self.elements is not None:
            return ListIterator(self.elements)
        return _RecordingIterator(self.up_source(), self)

    def commit(self, elements: list) -> None:
        if self.filename:
            write_cache(cache_path(self.filename), elements, len(self.np_dtypes))
        self.elements = elements


class _RecordingIterator(Stage):
    def __init__(self, up, source: CacheSource):
        self.up = up
        self.source = source
        self.record: list | None = []

    def __next__(self):
        try:
            element = next(self.up)
        except StopIteration:
            if self.record is not None:
                self.source.commit(self.record)
                self.record = None
            raise
        except Exception:
            self.record = None  # an incomplete pass is not a cache
            raise
        if self.record is not None:
            self.record.append(element)
        return element


# -- the file format: per component, the flattened values and each element's shape ----------


def write_cache(path: str, elements: list, n_components: int) -> None:
    arrays = {"n": np.asarray(len(elements), np.int64)}
    for c in range(n_components):
        values = [np.asarray(e[c]) for e in elements]
        arrays[f"rank{c}"] = np.asarray([v.ndim for v in values], np.int64)
        arrays[f"dims{c}"] = np.asarray([d for v in values for d in v.shape], np.int64)
        if values and values[0].dtype == object:
            flat = [b for v in values for b in v.ravel().tolist()]
            arrays[f"lengths{c}"] = np.asarray([len(b) for b in flat], np.int64)
            arrays[f"bytes{c}"] = np.frombuffer(b"".join(flat), np.uint8)
        else:
            arrays[f"data{c}"] = np.concatenate([v.ravel() for v in values]) if values else np.zeros(0)
    try:
        file_io.atomic_write(path, lambda f: np.savez(f, **arrays))
    except (OSError, errors.OpError) as e:
        raise errors.UnknownError(None, None, f"Failed to write the dataset cache {path}: {e}") from None


def read_cache(path: str, np_dtypes: list) -> list:
    try:
        with file_io.open_file(path, "rb") as f, np.load(f, allow_pickle=False) as z:
            n = int(z["n"])
            columns = [_read_component(z, c, n, dt) for c, dt in enumerate(np_dtypes)]
    except (OSError, errors.OpError, KeyError, ValueError) as e:
        raise errors.DataLossError(None, None, f"The dataset cache {path} is unreadable ({e}); delete it to "
                                               f"rebuild it.") from None
    return list(zip(*columns)) if columns else [() for _ in range(n)]


def _read_component(z, c: int, n: int, np_dtype) -> list:
    ranks, dims = z[f"rank{c}"], z[f"dims{c}"].tolist()
    shapes, k = [], 0
    for r in ranks.tolist():
        shapes.append(tuple(dims[k:k + r]))
        k += r
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    if np_dtype is np.object_:
        lengths = z[f"lengths{c}"].tolist()
        raw = z[f"bytes{c}"].tobytes()
        strings, pos = [], 0
        for length in lengths:
            strings.append(raw[pos:pos + length])
            pos += length
        flat = np.empty(len(strings), dtype=object)
        flat[:] = strings
    else:
        flat = z[f"data{c}"].astype(np_dtype, copy=False)
    out, pos = [], 0
    for shape, size in zip(shapes, sizes):
        v = flat[pos:pos + size].reshape(shape)
        pos += size
        out.append(v if shape or np_dtype is np.object_ else v[()])
    if np_dtype is np.object_:
        out = [v.item() if v.ndim == 0 else v for v in out]
    return out
