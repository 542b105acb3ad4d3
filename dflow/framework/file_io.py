"""Files: TF1's ``tf.gfile`` / ``tf.io.gfile`` API, and crash-safe writes.

**gfile.** ``GFile`` and the functions beside it (``exists``, ``glob``,
``makedirs``, ``rename``, ``walk``, ...) work on local paths (plain, or
``file://``) with TF1's semantics: a ``GFile`` opens lazily (a write-mode
file that is never written is never created); text mode reads ``n`` *bytes*
and decodes them as UTF-8; ``write`` takes ``str`` or ``bytes`` in either
mode; failures are TF's error classes (``NotFoundError``,
``AlreadyExistsError``, ``FailedPreconditionError``, ...) with TF's
messages. Other schemes (``gs://``, ``s3://``, ...) raise
``UnimplementedError``, as TF does for a scheme it has no file system for.

**Crash-safe writes.**

A file written with ``atomic_write`` (or committed by ``PendingFiles``) is,
at every instant, either absent, its old complete version, or its new
complete version: the bytes go to a hidden temporary file beside it
(``.<name>.<random>.tmp``), which is flushed and fsynced, then
``os.replace``d onto the final name, and the directory is fsynced so the
rename itself survives a power cut. A failure before the rename removes the
temporary file.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> atomic_write(os.path.join(d, "a.txt"), lambda f: f.write(b"hi"))
>>> open(os.path.join(d, "a.txt"), "rb").read()
b'hi'
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import re
import secrets
import shutil
from collections.abc import Callable

from dflow._api import tf_export
from dflow.framework import errors


def _temp_name(path: str) -> str:
    directory, base = os.path.split(path)
    return os.path.join(directory, f".{base}.{secrets.token_hex(6)}.tmp")


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

    def write(self, path: str, write: Callable) -> None:
        """Calls ``write(f)`` on a fresh temporary file beside ``path``, then fsyncs it."""
        path = os.fspath(path)
        tmp = _temp_name(path)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        self._pending.append((tmp, path))
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())

    def commit(self) -> None:
        directories = []
        for tmp, path in self._pending:
            os.replace(tmp, path)
            directory = os.path.dirname(os.path.abspath(path))
            if directory not in directories:
                directories.append(directory)
        self._pending = []
        for directory in directories:
            fsync_directory(directory)

    def discard(self) -> None:
        for tmp, _ in self._pending:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        self._pending = []

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


def local_path(path) -> str:
    """A local path from ``path`` (str, bytes or path-like; ``file://`` stripped)."""
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode("utf-8")
    if not isinstance(path, str):
        raise TypeError(f"Expected a path (str, bytes or os.PathLike), got {type(path).__name__}")
    scheme, sep, rest = path.partition("://")
    if sep and scheme and "/" not in scheme:
        if scheme == "file":
            return rest
        raise errors.UnimplementedError(None, None, f"File system scheme '{scheme}' not implemented (file: '{path}')")
    return path


def os_error(e: OSError, path: str) -> errors.OpError:
    """The TF error class and message for the ``OSError`` that ``path`` raised."""
    what = e.strerror or str(e)
    cls = {errno.ENOENT: errors.NotFoundError, errno.EEXIST: errors.AlreadyExistsError,
           errno.EACCES: errors.PermissionDeniedError, errno.EPERM: errors.PermissionDeniedError,
           errno.EISDIR: errors.FailedPreconditionError, errno.ENOTDIR: errors.FailedPreconditionError,
           errno.ENOTEMPTY: errors.FailedPreconditionError, errno.EINVAL: errors.InvalidArgumentError,
           errno.ENOSPC: errors.ResourceExhaustedError}.get(e.errno, errors.UnknownError)
    return cls(None, None, f"{path}; {what}")


def as_bytes(value, encoding: str = "utf-8") -> bytes:
    """``value`` (bytes-like or str) as bytes, with TF's ``TypeError`` for anything else."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


@tf_export("io.gfile.GFile", "gfile.GFile", "gfile.Open")
class GFile:
    """A file of TF's file system API (``tf.io.gfile.GFile``), on local paths.

    ``mode`` is ``r``, ``w``, ``a``, ``r+``, ``w+`` or ``a+``, with ``b`` for
    bytes. The file opens on the first read or write: reading a missing file
    raises ``NotFoundError`` then, and a write-mode file never written is never
    created. In text mode ``read(n)`` reads ``n`` bytes and decodes them.

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "x")
    >>> with GFile(p, "w") as f:
    ...     f.write("asdf\\n")
    >>> GFile(p).readlines()
    ['asdf\\n']
    """

    def __init__(self, name, mode: str = "r"):
        self._name = name
        self._mode = mode
        self._binary = "b" in mode
        bare = mode.replace("b", "")
        if bare not in ("r", "w", "a", "r+", "w+", "a+"):
            raise errors.InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._readable = bare in ("r", "r+", "a+", "w+")
        self._writable = bare in ("a", "w", "r+", "a+", "w+")
        self._append = "a" in bare
        self._reader = None
        self._writer = None

    @property
    def name(self):
        return self._name

    @property
    def mode(self) -> str:
        return self._mode

    @property
    def _path(self) -> str:
        return local_path(self._name)

    def _open(self, mode: str):
        path = self._path
        try:
            return open(path, mode)
        except OSError as e:
            raise os_error(e, path) from None

    def _preread_check(self):
        if self._reader is None:
            if not self._readable:
                raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
            self._reader = self._open("rb")
        return self._reader

    def _prewrite_check(self):
        if self._writer is None:
            if not self._writable:
                raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
            self._writer = self._open("ab" if self._append else "wb")
        return self._writer

    def _value(self, data: bytes):
        return data if self._binary else data.decode("utf-8")

    def size(self) -> int:
        return stat(self._path).length

    def write(self, file_content) -> None:
        """Appends ``file_content`` (str or bytes, in any mode)."""
        self._prewrite_check().write(as_bytes(file_content))

    def read(self, n: int = -1):
        """``n`` bytes (all that is left when -1) from the current position, decoded in text mode."""
        f = self._preread_check()
        return self._value(f.read(-1 if n is None or n < 0 else n))

    def seek(self, offset=None, whence: int = 0, position=None) -> None:
        f = self._preread_check()
        if offset is None and position is None:
            raise TypeError("seek(): offset argument required")
        if offset is not None and position is not None:
            raise TypeError("seek(): offset and position may not be set simultaneously.")
        offset = position if offset is None else offset
        if whence == 1:
            offset += f.tell()
        elif whence == 2:
            offset += self.size()
        elif whence != 0:
            raise errors.InvalidArgumentError(None, None, f"Invalid whence argument: {whence}. Valid values are 0, "
                                                          f"1, or 2.")
        f.seek(offset)

    def readline(self):
        """The next line, with its ``\\n``; empty at the end of the file."""
        return self._value(self._preread_check().readline())

    def readlines(self) -> list:
        return [self._value(line) for line in self._preread_check().readlines()]

    def tell(self) -> int:
        if self._readable:
            return self._preread_check().tell()
        return self._prewrite_check().tell()

    def __enter__(self) -> GFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration()
        return line

    next = __next__

    def flush(self) -> None:
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def seekable(self) -> bool:
        return True


@tf_export("gfile.FastGFile")
class FastGFile(GFile):
    """TF1's deprecated ``FastGFile``: the same as ``GFile``."""


class FileStatistics:
    """What ``stat`` returns: ``length`` in bytes, ``mtime_nsec`` (whole seconds, in ns) and ``is_directory``."""

    def __init__(self, length: int = 0, mtime_nsec: int = 0, is_directory: bool = False):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory

    def __repr__(self) -> str:
        return (f"FileStatistics(length={self.length}, mtime_nsec={self.mtime_nsec}, "
                f"is_directory={self.is_directory})")


@tf_export("io.gfile.exists", "gfile.Exists")
def exists(path) -> bool:
    """Whether ``path`` exists (a file or a directory)."""
    return os.path.exists(local_path(path))


@tf_export("io.gfile.isdir", "gfile.IsDirectory")
def isdir(path) -> bool:
    """Whether ``path`` is a directory."""
    return os.path.isdir(local_path(path))


@tf_export("io.gfile.remove", "gfile.Remove")
def remove(path) -> None:
    """Deletes the file ``path`` (``NotFoundError`` if missing, ``FailedPreconditionError`` for a directory)."""
    p = local_path(path)
    if os.path.isdir(p):
        raise errors.FailedPreconditionError(None, None, f"{p}; Is a directory")
    try:
        os.remove(p)
    except OSError as e:
        raise os_error(e, p) from None


_WILDCARDS = ("*", "?", "[", "\\")


def _pattern_regex(pattern: str):
    """TF's ``Match`` of one path component: ``*``, ``?``, ``[...]`` (``[^...]`` or ``[!...]``
    negated), ``\\c`` for a literal ``c``; nothing matches ``/``."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        elif c == "[" and "]" in pattern[i + 1:]:
            j = pattern.index("]", i + 2 if pattern[i + 1:i + 2] in ("^", "!") else i + 1)
            body = pattern[i + 1:j]
            negate = body[:1] in ("^", "!")
            body = body[1:] if negate else body
            out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]")
            i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


def _unescape(component: str) -> str:
    return re.sub(r"\\(.)", r"\1", component)


def _glob_one(pattern: str) -> list:
    if not any(w in pattern for w in _WILDCARDS):
        return [pattern] if os.path.exists(pattern) else []
    parts = pattern.split("/")
    first = next(i for i, part in enumerate(parts) if any(w in part for w in _WILDCARDS))
    base = "/".join(parts[:first]) or "/"  # "" before a leading "/" is the root
    found = [base] if first else [""]
    for part in parts[first:]:
        if any(w in part for w in _WILDCARDS):
            regex = _pattern_regex(part)
            found = [os.path.join(d, name) if d else name for d in found if os.path.isdir(d or ".")
                     for name in sorted(os.listdir(d or ".")) if regex.match(name)]
        else:
            found = [p for p in (os.path.join(d, _unescape(part)) if d else _unescape(part) for d in found)
                     if os.path.lexists(p)]
    return found


@tf_export("io.gfile.glob", "gfile.Glob")
def glob(pattern) -> list:
    """The paths matching the pattern, or each pattern of an iterable, as TF matches them: ``*``,
    ``?``, ``[...]`` within one path component, ``\\`` escapes, hidden files included."""
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else list(pattern)
    out = []
    for p in patterns:
        out.extend(_glob_one(local_path(p)))
    return out


@tf_export("io.gfile.mkdir", "gfile.MkDir")
def mkdir(path) -> None:
    """Creates the directory ``path``; its parent must exist (``NotFoundError`` otherwise)."""
    p = local_path(path)
    try:
        os.mkdir(p)
    except FileExistsError:
        pass  # TF's local file system lets this pass
    except OSError as e:
        raise os_error(e, p) from None


@tf_export("io.gfile.makedirs", "gfile.MakeDirs")
def makedirs(path) -> None:
    """Creates ``path`` and its missing parents; succeeds if it exists already."""
    p = local_path(path)
    head = p.rstrip("/") or p
    while head and not os.path.exists(head) and os.path.dirname(head) != head:
        head = os.path.dirname(head)
    if head and os.path.exists(head) and not os.path.isdir(head):
        raise errors.FailedPreconditionError(None, None, f"{head} is not a directory")
    try:
        os.makedirs(p, exist_ok=True)
    except OSError as e:
        raise os_error(e, p) from None


@tf_export("io.gfile.copy", "gfile.Copy")
def copy(src, dst, overwrite: bool = False) -> None:
    """Copies the file ``src`` to ``dst`` (``AlreadyExistsError`` if ``dst`` exists, unless ``overwrite``)."""
    s, d = local_path(src), local_path(dst)
    if not overwrite and os.path.exists(d):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    if os.path.isdir(d):
        raise errors.FailedPreconditionError(None, None, f"{d}; Is a directory")
    if os.path.isdir(s):
        raise errors.FailedPreconditionError(None, None, f"{s}; Is a directory")
    try:
        shutil.copyfile(s, d)
    except OSError as e:
        raise os_error(e, e.filename or s) from None


@tf_export("io.gfile.rename", "gfile.Rename")
def rename(src, dst, overwrite: bool = False) -> None:
    """Moves the file or directory ``src`` to ``dst`` (``AlreadyExistsError`` if ``dst`` exists, unless
    ``overwrite``)."""
    s, d = local_path(src), local_path(dst)
    if not overwrite and os.path.exists(d):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    if not os.path.exists(s):
        raise errors.NotFoundError(None, None, f"{s}; No such file or directory")
    if os.path.isdir(d) and not os.path.isdir(s):
        raise errors.FailedPreconditionError(None, None, f"{s}; Is a directory")
    try:
        os.replace(s, d)
    except OSError as e:
        raise os_error(e, s) from None


@tf_export("io.gfile.rmtree", "gfile.DeleteRecursively")
def rmtree(path) -> None:
    """Deletes ``path`` and everything under it (a file too); ``NotFoundError`` if it does not exist."""
    p = local_path(path)
    if not os.path.lexists(p):
        raise errors.NotFoundError(None, None, f"{p} not found")
    try:
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        else:
            os.remove(p)
    except OSError as e:
        raise os_error(e, e.filename or p) from None


@tf_export("io.gfile.listdir", "gfile.ListDirectory")
def listdir(path) -> list:
    """The names of the entries of the directory ``path`` (``NotFoundError`` if it is not one)."""
    p = local_path(path)
    if not os.path.isdir(p):
        raise errors.NotFoundError(None, None, f"Could not find directory {p}")
    try:
        return os.listdir(p)
    except OSError as e:
        raise os_error(e, p) from None


@tf_export("io.gfile.join")
def join(path, *paths) -> str:
    """Joins paths: with ``/`` for a URL-like path (``gs://...``), else as ``os.path.join``."""
    first = os.fspath(path)
    text = first.decode() if isinstance(first, bytes) else first
    if "://" in text[1:]:
        return posixpath.join(path, *paths)
    return os.path.join(path, *paths)


def _walk(top: str, topdown: bool, onerror):
    try:
        listing = listdir(top)
    except errors.NotFoundError as err:
        if onerror:
            onerror(err)
        return
    subdirs, files = [], []
    for item in listing:
        (subdirs if os.path.isdir(os.path.join(top, item)) else files).append(item)
    here = (top, subdirs, files)
    if topdown:
        yield here
    for subdir in subdirs:
        yield from _walk(join(top, subdir), topdown, onerror)
    if not topdown:
        yield here


@tf_export("io.gfile.walk")
def walk(top, topdown: bool = True, onerror=None):
    """Yields ``(directory, subdirectory names, file names)`` for ``top`` and each directory below it;
    a missing ``top`` yields nothing (or calls ``onerror``)."""
    top = os.fspath(top)
    return _walk(top.decode() if isinstance(top, bytes) else top, topdown, onerror)


@tf_export("gfile.Walk")
def walk_v1(top, in_order: bool = True):
    """TF1's ``gfile.Walk``: ``walk`` with ``in_order`` for ``topdown``."""
    return walk(top, in_order)


@tf_export("io.gfile.stat", "gfile.Stat")
def stat(path) -> FileStatistics:
    """The ``FileStatistics`` of ``path`` (``NotFoundError`` if missing)."""
    p = local_path(path)
    try:
        st = os.stat(p)
    except OSError as e:
        raise os_error(e, p) from None
    return FileStatistics(st.st_size, int(st.st_mtime) * 1_000_000_000, os.path.isdir(p))


@tf_export("io.gfile.get_registered_schemes")
def get_registered_schemes() -> list:
    """The URI schemes gfile serves: ``""`` (plain local paths) and ``"file"``."""
    return ["", "file"]
