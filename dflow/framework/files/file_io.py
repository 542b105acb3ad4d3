"""Files: paths of any scheme, crash-safe writes, and (re-exported from ``gfile``) TF1's
``tf.gfile`` / ``tf.io.gfile`` API.

**gfile** (``dflow/framework/files/gfile.py``). ``GFile`` and the functions beside it (``exists``, ``glob``,
``makedirs``, ``rename``, ``walk``, ...) work on local paths (plain, or
``file://``) with TF1's semantics: a ``GFile`` opens lazily (a write-mode
file that is never written is never created); text mode reads ``n`` *bytes*
and decodes them as UTF-8; ``write`` takes ``str`` or ``bytes`` in either
mode; failures are TF's error classes (``NotFoundError``,
``AlreadyExistsError``, ``FailedPreconditionError``, ...) with TF's
messages. Paths with another scheme (``memory://``, ``s3://``, ``gs://``,
``hdfs://``, ...) go through fsspec (``fsspec.core.url_to_fs``) and work
wherever that scheme's fsspec package is installed; its errors become the same
TF error classes. A scheme fsspec does not know, or whose package is missing,
raises ``UnimplementedError``, as TF does for a scheme it has no file system
for. Local paths never touch fsspec.

**Crash-safe writes.**

A file written with ``atomic_write`` (or committed by ``PendingFiles``) is,
at every instant, either absent, its old complete version, or its new
complete version: the bytes go to a hidden temporary file beside it
(``.<name>.~<host>-<pid>-<random>.tmp``), which is flushed and fsynced, then
``os.replace``d onto the final name, and the directory is fsynced so the
rename itself survives a power cut. A failure before the rename removes the
temporary file; the temporary files of a writer that was killed are removed by
the next ``Saver.save`` in that directory (``remove_stale_temp_files``). On an
fsspec file system (object stores have no rename) the bytes are kept in memory
and stored with one ``pipe_file`` at commit, which object stores make visible
whole or not at all.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> atomic_write(os.path.join(d, "a.txt"), lambda f: f.write(b"hi"))
>>> open(os.path.join(d, "a.txt"), "rb").read()
b'hi'
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import secrets
from collections.abc import Callable

from dflow.framework import compat_util, errors


def _host_tag() -> str:
    import hashlib
    import socket

    return hashlib.sha1(socket.gethostname().encode()).hexdigest()[:6]


_HOST_TAG = _host_tag()
# ``.<name>.~<host>-<pid>-<random>.tmp``: whose temporary file it is, so that one a killed
# writer left behind can be told from one another process is writing now.
_TEMP_FILE = re.compile(r"^\..+\.~([0-9a-f]{6})-(\d+)-[0-9a-f]+\.tmp$")


def _temp_name(path: str) -> str:
    directory, base = os.path.split(path)
    return os.path.join(directory, f".{base}.~{_HOST_TAG}-{os.getpid()}-{secrets.token_hex(4)}.tmp")


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, as another user's
        return True
    return True


def remove_stale_temp_files(directory) -> list:
    """Removes the temporary files that writers on this host left in ``directory`` when they died
    before renaming them into place (SIGKILL, an out-of-memory kill, a power cut); returns their
    names. A file of a live process, or of another host (which this one cannot ask), is kept."""
    directory = os.fspath(directory) or "."
    if os.name == "nt" or not is_local(directory):
        return []  # os.kill(pid, 0) would end the process on Windows; object stores have no temp files
    try:
        names = os.listdir(local_path(directory))
    except OSError:
        return []
    removed = []
    for name in names:
        m = _TEMP_FILE.match(name)
        if m is None or m.group(1) != _HOST_TAG or _process_exists(int(m.group(2))):
            continue
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(local_path(directory), name))
            removed.append(name)
    return removed


def fsync_directory(directory: str) -> None:
    """Makes renames in ``directory`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return  # Windows: directories cannot be opened; NTFS journals renames.
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class PendingFiles:
    """Files written to temporary names now and renamed into place together by ``commit``.

    Used as a context manager, an exception discards every temporary file.
    ``commit`` renames in the order the files were written, so a reader
    never sees a later file without the earlier ones (a checkpoint's data
    file is in place before its index).
    """

    def __init__(self):
        self._pending: list[tuple[str, str]] = []
        self._remote: list[tuple[object, str, str, bytes]] = []  # (fs, its path, the URL, the bytes)

    def write(self, path: str, write: Callable) -> None:
        """Calls ``write(f)`` on a fresh temporary file beside ``path``, then fsyncs it."""
        path = os.fspath(path)
        fs, fs_path = split_path(path)
        if fs is not None:
            buffer = io.BytesIO()
            write(buffer)
            self._remote.append((fs, fs_path, _as_str(path), buffer.getvalue()))
            return
        tmp = _temp_name(path)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
            self._pending.append((tmp, path))
            with os.fdopen(fd, "wb") as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
        except OSError as e:  # disk full is ResourceExhaustedError naming the file, as TF's
            raise os_error(e, path) from None

    def commit(self) -> None:
        directories = []
        for tmp, path in self._pending:
            try:
                os.replace(tmp, path)
            except OSError as e:
                raise os_error(e, path) from None
            directory = os.path.dirname(os.path.abspath(path))
            if directory not in directories:
                directories.append(directory)
        self._pending = []
        for directory in directories:
            fsync_directory(directory)
        for fs, fs_path, url, data in self._remote:
            try:
                fs.pipe_file(fs_path, data)
            except OSError as e:
                raise os_error(e, url) from None
        self._remote = []

    def discard(self) -> None:
        for tmp, _ in self._pending:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        self._pending = []
        self._remote = []

    def __enter__(self) -> PendingFiles:
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is not None:
            self.discard()
        return False


def atomic_write(path, write: Callable) -> None:
    """Writes ``path`` through ``write(binary_file)`` so that it is never seen half-written."""
    with PendingFiles() as files:
        files.write(path, write)
        files.commit()


def atomic_write_bytes(path, data: bytes) -> None:
    atomic_write(path, lambda f: f.write(data))


# -- tf.gfile / tf.io.gfile -------------------------------------------------------------


def _as_str(path) -> str:
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode("utf-8")
    if not isinstance(path, str):
        raise TypeError(f"Expected a path (str, bytes or os.PathLike), got {type(path).__name__}")
    return path


def _scheme(path: str) -> str:
    """The scheme of ``path`` (``""`` for a plain path)."""
    scheme, sep, _ = path.partition("://")
    return scheme if sep and scheme and "/" not in scheme else ""


def split_path(path) -> tuple:
    """``(None, local path)`` for a plain or ``file://`` path, else ``(fsspec file system, its path)``."""
    path = _as_str(path)
    if "://" not in path:
        return None, path
    scheme = _scheme(path)
    if not scheme:
        return None, path
    if scheme == "file":
        return None, path[len("file://"):]
    try:
        import fsspec.core
        return fsspec.core.url_to_fs(path)  # fsspec caches the file system instances
    except (ImportError, ValueError) as e:  # unknown protocol, or its package is not installed
        raise errors.UnimplementedError(None, None, f"File system scheme '{scheme}' not implemented "
                                                    f"(file: '{path}')") from e


def is_local(path) -> bool:
    """Whether ``path`` is on the local file system (no scheme, or ``file://``)."""
    return _scheme(_as_str(path)) in ("", "file")


def local_path(path) -> str:
    """A local path from ``path`` (str, bytes or path-like; ``file://`` stripped); ``UnimplementedError``
    for a path of another file system, for the few callers that need a real local file."""
    path = _as_str(path)
    scheme = _scheme(path)
    if scheme == "file":
        return path[len("file://"):]
    if scheme:
        raise errors.UnimplementedError(None, None, f"File system scheme '{scheme}' not implemented (file: '{path}')")
    return path


_CLASS_ERRORS = ((FileNotFoundError, errors.NotFoundError, "No such file or directory"),
                 (FileExistsError, errors.AlreadyExistsError, "File exists"),
                 (PermissionError, errors.PermissionDeniedError, "Permission denied"),
                 (IsADirectoryError, errors.FailedPreconditionError, "Is a directory"),
                 (NotADirectoryError, errors.FailedPreconditionError, "Not a directory"))


def os_error(e: OSError, path: str) -> errors.OpError:
    """The TF error class and message for the ``OSError`` that ``path`` raised (fsspec's too, which
    often carry a class but no errno)."""
    what = e.strerror
    cls = {errno.ENOENT: errors.NotFoundError, errno.EEXIST: errors.AlreadyExistsError,
           errno.EACCES: errors.PermissionDeniedError, errno.EPERM: errors.PermissionDeniedError,
           errno.EISDIR: errors.FailedPreconditionError, errno.ENOTDIR: errors.FailedPreconditionError,
           errno.ENOTEMPTY: errors.FailedPreconditionError, errno.EINVAL: errors.InvalidArgumentError,
           errno.ENOSPC: errors.ResourceExhaustedError}.get(e.errno)
    if cls is None:
        cls = errors.UnknownError
        for os_cls, tf_cls, text in _CLASS_ERRORS:
            if isinstance(e, os_cls):
                cls, what = tf_cls, what or text
                break
    return cls(None, None, f"{path}; {what or str(e)}")


def open_file(path, mode: str = "rb"):
    """``path`` opened in binary ``mode`` (local, or through fsspec), with TF's errors."""
    fs, p = split_path(path)
    try:
        if fs is None:
            return open(p, mode)  # noqa: SIM115 - the caller closes it
        if "r" in mode and fs.isdir(p):
            raise IsADirectoryError(errno.EISDIR, "Is a directory")
        return fs.open(p, mode)
    except OSError as e:
        raise os_error(e, p if fs is None else _as_str(path)) from None
    except NotImplementedError as e:  # a mode this file system lacks (object stores cannot append)
        raise errors.UnimplementedError(None, None, f"{_as_str(path)}; mode {mode!r}: "
                                                    f"{e or 'not supported by its file system'}") from None


def as_bytes(value, encoding: str = "utf-8") -> bytes:
    """``tf.compat.as_bytes``, which also takes a ``memoryview`` (a record's buffer)."""
    return bytes(value) if isinstance(value, memoryview) else compat_util.as_bytes(value, encoding)


# TF1's gfile API lives in gfile.py; every name stays reachable as file_io.<name>.
from dflow.framework.files.gfile import (  # noqa: E402, F401
    FastGFile,
    FileStatistics,
    GFile,
    _fs_listdir,
    _fs_mtime,
    _fs_parent_missing,
    _FsspecOps,
    _glob_one,
    _LocalOps,
    _not_found,
    _pattern_regex,
    _shown,
    _unescape,
    _walk,
    copy,
    exists,
    get_registered_schemes,
    glob,
    glob_escape,
    is_file,
    isdir,
    join,
    listdir,
    makedirs,
    mkdir,
    mtime,
    remove,
    rename,
    rmtree,
    stat,
    walk,
    walk_v1,
)
