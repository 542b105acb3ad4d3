"""TF1's ``tf.gfile`` / ``tf.io.gfile`` API: ``GFile`` and the functions beside it.

Local paths (plain, or ``file://``) use the operating system directly; other
schemes go through fsspec (see ``file_io``, which also has the crash-safe
writes and the path and error helpers these functions share). ``file_io``
re-exports every name here, so ``file_io.exists`` and the like keep working.
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.files.file_io import (
    _as_str,
    as_bytes,
    is_local,
    open_file,
    os_error,
    split_path,
)


@tf_export("io.gfile.GFile", "gfile.GFile", "gfile.Open")
class GFile:
    """A file of TF's file system API (``tf.io.gfile.GFile``), local or through fsspec.

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

    def _open(self, mode: str):
        return open_file(self._name, mode)

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
        return stat(self._name).length

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


def is_file(path) -> bool:
    """Whether ``path`` is a file (not a directory)."""
    fs, p = split_path(path)
    return os.path.isfile(p) if fs is None else fs.isfile(p)


def mtime(path) -> float:
    """The modification time of ``path`` in seconds (``NotFoundError`` if missing)."""
    fs, p = split_path(path)
    if fs is None:
        try:
            return os.stat(p).st_mtime
        except OSError as e:
            raise os_error(e, p) from None
    return stat(path).mtime_nsec / 1e9


def glob_escape(path: str) -> str:
    """``path`` with ``glob``'s wildcards escaped (a literal path to extend into a pattern)."""
    return re.sub(r"([*?\[\\])", r"\\\1", path)


def _not_found(path: str) -> errors.NotFoundError:
    return errors.NotFoundError(None, None, f"{path}; No such file or directory")


@tf_export("io.gfile.exists", "gfile.Exists")
def exists(path) -> bool:
    """Whether ``path`` exists (a file or a directory)."""
    fs, p = split_path(path)
    return os.path.exists(p) if fs is None else fs.exists(p)


@tf_export("io.gfile.isdir", "gfile.IsDirectory")
def isdir(path) -> bool:
    """Whether ``path`` is a directory."""
    fs, p = split_path(path)
    return os.path.isdir(p) if fs is None else fs.isdir(p)


@tf_export("io.gfile.remove", "gfile.Remove")
def remove(path) -> None:
    """Deletes the file ``path`` (``NotFoundError`` if missing, ``FailedPreconditionError`` for a directory)."""
    fs, p = split_path(path)
    where = p if fs is None else _as_str(path)
    if os.path.isdir(p) if fs is None else fs.isdir(p):
        raise errors.FailedPreconditionError(None, None, f"{where}; Is a directory")
    try:
        if fs is None:
            os.remove(p)
        elif not fs.exists(p):  # object stores delete a missing key without complaint
            raise _not_found(where)
        else:
            fs.rm_file(p)
    except OSError as e:
        raise os_error(e, where) from None


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


class _LocalOps:
    exists, lexists, isdir, listdir, join = (staticmethod(os.path.exists), staticmethod(os.path.lexists),
                                             staticmethod(os.path.isdir), staticmethod(os.listdir),
                                             staticmethod(os.path.join))


class _FsspecOps:
    """The file system calls of ``glob`` on the URLs of one fsspec file system."""

    def __init__(self, fs):
        self.fs = fs
        self.exists = self.lexists = fs.exists
        self.isdir = fs.isdir

    def listdir(self, url: str) -> list:
        return _fs_listdir(self.fs, self.fs._strip_protocol(url))

    @staticmethod
    def join(directory: str, name: str) -> str:
        return posixpath.join(directory + "/" if directory.endswith(":/") else directory, name)


def _glob_one(pattern: str, ops) -> list:
    if not any(w in pattern for w in _WILDCARDS):
        return [pattern] if ops.exists(pattern) else []
    parts = pattern.split("/")
    first = next(i for i, part in enumerate(parts) if any(w in part for w in _WILDCARDS))
    base = "/".join(parts[:first]) or "/"  # "" before a leading "/" is the root
    found = [base] if first else [""]
    for part in parts[first:]:
        if any(w in part for w in _WILDCARDS):
            regex = _pattern_regex(part)
            found = [ops.join(d, name) if d else name for d in found if ops.isdir(d or ".")
                     for name in sorted(ops.listdir(d or ".")) if regex.match(name)]
        else:
            found = [p for p in (ops.join(d, _unescape(part)) if d else _unescape(part) for d in found)
                     if ops.lexists(p)]
    return found


@tf_export("io.gfile.glob", "gfile.Glob")
def glob(pattern) -> list:
    """The paths matching the pattern, or each pattern of an iterable, as TF matches them: ``*``,
    ``?``, ``[...]`` within one path component, ``\\`` escapes, hidden files included."""
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else list(pattern)
    out = []
    for p in patterns:
        fs, local = split_path(p)
        out.extend(_glob_one(local, _LocalOps) if fs is None else _glob_one(_as_str(p), _FsspecOps(fs)))
    return out


def _fs_parent_missing(fs, p: str) -> bool:
    parent = posixpath.dirname(p.rstrip("/"))
    return bool(parent.strip("/")) and not fs.isdir(parent)


@tf_export("io.gfile.mkdir", "gfile.MkDir")
def mkdir(path) -> None:
    """Creates the directory ``path``; its parent must exist (``NotFoundError`` otherwise)."""
    fs, p = split_path(path)
    try:
        if fs is None:
            os.mkdir(p)
        elif not fs.isdir(p):
            if _fs_parent_missing(fs, p):
                raise _not_found(_as_str(path))
            fs.mkdir(p, create_parents=False)
    except FileExistsError:
        pass  # TF's local file system lets this pass
    except OSError as e:
        raise os_error(e, p if fs is None else _as_str(path)) from None


@tf_export("io.gfile.makedirs", "gfile.MakeDirs")
def makedirs(path) -> None:
    """Creates ``path`` and its missing parents; succeeds if it exists already."""
    fs, p = split_path(path)
    if fs is not None:
        head = _as_str(path).rstrip("/")  # the URL, up to its first existing ancestor
        while "://" in head and not fs.exists(head):
            head = posixpath.dirname(head)
        if "://" in head and not fs.isdir(head):
            raise errors.FailedPreconditionError(None, None, f"{head} is not a directory")
        try:
            fs.makedirs(p, exist_ok=True)
        except OSError as e:
            raise os_error(e, _as_str(path)) from None
        return
    if os.path.isdir(p):  # the common case, in one stat
        return
    head = p.rstrip("/") or p
    while head and not os.path.exists(head) and os.path.dirname(head) != head:
        head = os.path.dirname(head)
    if head and os.path.exists(head) and not os.path.isdir(head):
        raise errors.FailedPreconditionError(None, None, f"{head} is not a directory")
    try:
        os.makedirs(p, exist_ok=True)
    except OSError as e:
        raise os_error(e, p) from None


def _shown(fs, p: str, path) -> str:
    return p if fs is None else _as_str(path)


@tf_export("io.gfile.copy", "gfile.Copy")
def copy(src, dst, overwrite: bool = False) -> None:
    """Copies the file ``src`` to ``dst`` (``AlreadyExistsError`` if ``dst`` exists, unless ``overwrite``)."""
    (sfs, s), (dfs, d) = split_path(src), split_path(dst)
    if not overwrite and exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    if isdir(dst):
        raise errors.FailedPreconditionError(None, None, f"{_shown(dfs, d, dst)}; Is a directory")
    if isdir(src):
        raise errors.FailedPreconditionError(None, None, f"{_shown(sfs, s, src)}; Is a directory")
    if sfs is None and dfs is None:
        try:
            shutil.copyfile(s, d)
        except OSError as e:
            raise os_error(e, e.filename or s) from None
        return
    if sfs is not None and sfs is dfs:
        if not sfs.exists(s):
            raise _not_found(_as_str(src))
        try:
            sfs.copy(s, d)
        except OSError as e:
            raise os_error(e, _as_str(src)) from None
        return
    with open_file(src, "rb") as fin, open_file(dst, "wb") as fout:
        shutil.copyfileobj(fin, fout, 1 << 20)


@tf_export("io.gfile.rename", "gfile.Rename")
def rename(src, dst, overwrite: bool = False) -> None:
    """Moves the file or directory ``src`` to ``dst`` (``AlreadyExistsError`` if ``dst`` exists, unless
    ``overwrite``)."""
    (sfs, s), (dfs, d) = split_path(src), split_path(dst)
    if not overwrite and exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    if not exists(src):
        raise _not_found(_shown(sfs, s, src))
    if isdir(dst) and not isdir(src):
        raise errors.FailedPreconditionError(None, None, f"{_shown(sfs, s, src)}; Is a directory")
    if sfs is not dfs and (sfs is None or dfs is None or sfs.protocol != dfs.protocol):
        raise errors.UnimplementedError(None, None, f"Renaming {_as_str(src)} to {_as_str(dst)}: "
                                                    f"renaming across file systems is not implemented")
    try:
        if sfs is None:
            os.replace(s, d)
        else:
            if overwrite and dfs.isdir(d):
                dfs.rm(d, recursive=True)
            sfs.mv(s, d, recursive=sfs.isdir(s))
    except OSError as e:
        raise os_error(e, _shown(sfs, s, src)) from None


@tf_export("io.gfile.rmtree", "gfile.DeleteRecursively")
def rmtree(path) -> None:
    """Deletes ``path`` and everything under it (a file too); ``NotFoundError`` if it does not exist."""
    fs, p = split_path(path)
    if fs is not None:
        if not fs.exists(p):
            raise errors.NotFoundError(None, None, f"{_as_str(path)} not found")
        try:
            fs.rm(p, recursive=True)
        except OSError as e:
            raise os_error(e, _as_str(path)) from None
        return
    if not os.path.lexists(p):
        raise errors.NotFoundError(None, None, f"{p} not found")
    try:
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        else:
            os.remove(p)
    except OSError as e:
        raise os_error(e, e.filename or p) from None


def _fs_listdir(fs, p: str) -> list:
    """The entry names of the directory ``p`` of ``fs`` (not the directory itself, as some list it)."""
    here = p.rstrip("/")
    names = []
    for entry in fs.ls(p, detail=False):
        entry = entry.rstrip("/")
        if entry != here:
            names.append(posixpath.basename(entry))
    return names


@tf_export("io.gfile.listdir", "gfile.ListDirectory")
def listdir(path) -> list:
    """The names of the entries of the directory ``path`` (``NotFoundError`` if it is not one)."""
    fs, p = split_path(path)
    if not (os.path.isdir(p) if fs is None else fs.isdir(p)):
        raise errors.NotFoundError(None, None, f"Could not find directory {_shown(fs, p, path)}")
    try:
        return os.listdir(p) if fs is None else _fs_listdir(fs, p)
    except OSError as e:
        raise os_error(e, _shown(fs, p, path)) from None


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
    is_dir = os.path.isdir if is_local(top) else isdir
    for item in listing:
        (subdirs if is_dir(join(top, item)) else files).append(item)
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


def _fs_mtime(info: dict) -> int:
    """Whole seconds of the modification time in an fsspec ``info`` (0 where it has none)."""
    for key in ("mtime", "LastModified", "last_modified", "updated", "modified", "created"):
        value = info.get(key)
        if isinstance(value, (int, float)):
            return int(value)
        if hasattr(value, "timestamp"):
            return int(value.timestamp())
    return 0


@tf_export("io.gfile.stat", "gfile.Stat")
def stat(path) -> FileStatistics:
    """The ``FileStatistics`` of ``path`` (``NotFoundError`` if missing)."""
    fs, p = split_path(path)
    if fs is not None:
        try:
            info = fs.info(p)
        except OSError as e:
            raise os_error(e, _as_str(path)) from None
        is_dir = info.get("type") == "directory"
        return FileStatistics(0 if is_dir else int(info.get("size") or 0), _fs_mtime(info) * 1_000_000_000, is_dir)
    try:
        st = os.stat(p)
    except OSError as e:
        raise os_error(e, p) from None
    return FileStatistics(st.st_size, int(st.st_mtime) * 1_000_000_000, os.path.isdir(p))


@tf_export("io.gfile.get_registered_schemes")
def get_registered_schemes() -> list:
    """The URI schemes gfile serves: ``""`` (plain local paths), ``"file"``, and every protocol fsspec
    knows (each works where its fsspec package is installed)."""
    try:
        import fsspec
        known = fsspec.available_protocols()
    except ImportError:
        known = []
    return ["", "file"] + [scheme for scheme in known if scheme != "file"]


# TF1 programs also reach these through ``from tensorflow.python.lib.io import file_io``.
for _name, _fn in (("file_exists", exists), ("recursive_create_dir", makedirs), ("create_dir", mkdir),
                   ("delete_recursively", rmtree), ("is_directory", isdir), ("list_directory", listdir),
                   ("get_matching_files", glob), ("rename", rename), ("copy", copy), ("stat", stat),
                   ("delete_file", remove), ("walk", walk)):
    tf_export(f"python.lib.io.file_io.{_name}")(_fn)
tf_export("python.lib.io.file_io.FileIO")(GFile)
del _name, _fn


@tf_export("python.lib.io.file_io.write_string_to_file")
def write_string_to_file(filename, file_content) -> None:
    """Writes ``file_content`` (``str`` or ``bytes``) to ``filename``, replacing it."""
    with GFile(_as_str(filename), mode="wb" if isinstance(file_content, bytes) else "w") as f:
        f.write(file_content)


@tf_export("python.lib.io.file_io.read_file_to_string")
def read_file_to_string(filename, binary_mode: bool = False):
    """The contents of ``filename``: ``bytes`` with ``binary_mode``, else ``str``."""
    with GFile(_as_str(filename), mode="rb" if binary_mode else "r") as f:
        return f.read()
