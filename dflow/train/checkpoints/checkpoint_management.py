"""The ``checkpoint`` state file: which checkpoints of a directory exist and which is the latest.

Written in TF1's text format, so TF1 tools and dflow read each other's::

    model_checkpoint_path: "model.ckpt-200"
    all_model_checkpoint_paths: "model.ckpt-100"
    all_model_checkpoint_paths: "model.ckpt-200"

Relative paths are relative to the directory holding the file. The file is
replaced atomically and only after the checkpoint it names is complete on
disk, so ``latest_checkpoint`` never returns a half-written checkpoint.

>>> import tempfile
>>> d = tempfile.mkdtemp()
>>> update_checkpoint_state(d, d + "/model.ckpt-1")
>>> get_checkpoint_state(d).model_checkpoint_path == d + "/model.ckpt-1"
True
"""

from __future__ import annotations

import logging
import os
import re

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.files import file_io
from dflow.framework.files.file_io import atomic_write_bytes
from dflow.train.checkpoints import checkpoint_format

_log = logging.getLogger("dflow")


class CheckpointState:
    """TF1's ``CheckpointState`` proto: the latest checkpoint and those still kept."""

    def __init__(self, model_checkpoint_path: str = "", all_model_checkpoint_paths=(),
                 all_model_checkpoint_timestamps=(), last_preserved_timestamp: float = 0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def to_text(self) -> str:
        lines = [f"model_checkpoint_path: {_quote(self.model_checkpoint_path)}"]
        lines += [f"all_model_checkpoint_paths: {_quote(p)}" for p in self.all_model_checkpoint_paths]
        lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in self.all_model_checkpoint_timestamps]
        if self.last_preserved_timestamp:
            lines.append(f"last_preserved_timestamp: {self.last_preserved_timestamp!r}")
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str) -> CheckpointState:
        """Parses TF1's text format; ValueError on anything malformed."""
        state = cls()
        for lineno, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = _FIELD.match(line)
            if m is None:
                raise ValueError(f"line {lineno}: cannot parse {line!r}")
            key, value = m.group(1), m.group(2)
            if key in ("model_checkpoint_path", "all_model_checkpoint_paths"):
                path = _unquote(value)
                if key == "model_checkpoint_path":
                    state.model_checkpoint_path = path
                else:
                    state.all_model_checkpoint_paths.append(path)
            elif key in ("all_model_checkpoint_timestamps", "last_preserved_timestamp"):
                if key == "last_preserved_timestamp":
                    state.last_preserved_timestamp = float(value)
                else:
                    state.all_model_checkpoint_timestamps.append(float(value))
            else:
                raise ValueError(f"line {lineno}: unknown field {key!r}")
        return state

    def __eq__(self, other):
        return isinstance(other, CheckpointState) and self.to_text() == other.to_text()

    __hash__ = None

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        return f"CheckpointState({self.model_checkpoint_path!r}, {self.all_model_checkpoint_paths!r})"


_FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*?)\s*$")
_ESCAPES = {"n": b"\n", "r": b"\r", "t": b"\t", '"': b'"', "'": b"'", "\\": b"\\", "a": b"\a", "b": b"\b",
            "f": b"\f", "v": b"\v", "?": b"?"}


def _quote(path: str) -> str:
    """A protobuf text-format string literal (C escapes, non-ASCII bytes in octal, as TF writes)."""
    out = []
    for byte in path.encode("utf-8"):
        c = chr(byte)
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif 0x20 <= byte < 0x7F:
            out.append(c)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _unquote(literal: str) -> str:
    if len(literal) < 2 or literal[0] not in "\"'" or literal[-1] != literal[0]:
        raise ValueError(f"expected a quoted string, got {literal!r}")
    body, out, i = literal[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        nxt = body[i + 1:i + 2]
        if nxt in _ESCAPES:
            out += _ESCAPES[nxt]
            i += 2
        elif nxt and nxt in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1:])
            out.append(int(m.group(0), 8) & 0xFF)
            i += 1 + len(m.group(0))
        elif nxt in ("x", "X"):
            m = re.match(r"[0-9A-Fa-f]{1,2}", body[i + 2:])
            if m is None:
                raise ValueError(f"bad \\x escape in {literal!r}")
            out.append(int(m.group(0), 16))
            i += 2 + len(m.group(0))
        else:
            raise ValueError(f"bad escape in {literal!r}")
    return out.decode("utf-8")


def _state_filename(save_dir: str, latest_filename: str | None) -> str:
    return file_io.join(save_dir, latest_filename or "checkpoint")


@tf_export("train.generate_checkpoint_state_proto")
def generate_checkpoint_state_proto(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None,
                                    last_preserved_timestamp=None) -> CheckpointState:
    """A ``CheckpointState``; the latest path is appended to the list if it is not last."""
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    timestamps = list(all_model_checkpoint_timestamps or [])
    if timestamps and len(timestamps) != len(paths):
        raise ValueError(f"Checkpoint timestamps, if provided, must match checkpoint paths (got paths {paths} and "
                         f"timestamps {timestamps})")
    # Relative paths are written relative to a relative save_dir, as TF1 does.
    save_dir = os.fspath(save_dir)
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    return CheckpointState(model_checkpoint_path, paths, timestamps, last_preserved_timestamp or 0.0)


@tf_export("train.update_checkpoint_state")
def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None, latest_filename=None,
                            all_model_checkpoint_timestamps=None, last_preserved_timestamp=None) -> None:
    """Atomically rewrites the state file of ``save_dir`` (``checkpoint`` unless ``latest_filename``)."""
    update_checkpoint_state_internal(save_dir, model_checkpoint_path, all_model_checkpoint_paths, latest_filename,
                                     save_relative_paths=False,
                                     all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
                                     last_preserved_timestamp=last_preserved_timestamp)


def update_checkpoint_state_internal(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                                     latest_filename=None, save_relative_paths=False,
                                     all_model_checkpoint_timestamps=None, last_preserved_timestamp=None) -> None:
    save_dir = os.fspath(save_dir) or "."
    state_file = _state_filename(save_dir, latest_filename)
    if save_relative_paths:
        rel = lambda p: os.path.relpath(p, save_dir) if os.path.isabs(p) else p
        model_checkpoint_path = rel(model_checkpoint_path)
        all_model_checkpoint_paths = [rel(p) for p in all_model_checkpoint_paths or []]
    state = generate_checkpoint_state_proto(save_dir, model_checkpoint_path, all_model_checkpoint_paths,
                                            all_model_checkpoint_timestamps, last_preserved_timestamp)
    if os.path.abspath(os.path.join(save_dir, state.model_checkpoint_path)) == os.path.abspath(state_file):
        raise RuntimeError(f"Save path '{model_checkpoint_path}' conflicts with path used for checkpoint state.  "
                           f"Please use a different save path.")
    atomic_write_bytes(state_file, state.to_text().encode("utf-8"))


@tf_export("train.get_checkpoint_state")
def get_checkpoint_state(checkpoint_dir, latest_filename=None) -> CheckpointState | None:
    """The ``CheckpointState`` of ``checkpoint_dir``, paths made absolute-or-joined; None if there is none."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    path = _state_filename(checkpoint_dir, latest_filename)
    try:
        with file_io.open_file(path, "rb") as f:
            text = f.read().decode("utf-8")
    except errors.NotFoundError:
        return None
    except (errors.OpError, UnicodeDecodeError) as e:
        _log.warning("%s: %s; checkpoint state ignored", path, e)
        return None
    try:
        state = CheckpointState.from_text(text)
    except ValueError as e:
        _log.warning("%s: %s; checkpoint state ignored", path, e)
        return None
    if not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}")
    join = lambda p: p if os.path.isabs(p) or not file_io.is_local(p) else file_io.join(checkpoint_dir, p)
    state.model_checkpoint_path = join(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [join(p) for p in state.all_model_checkpoint_paths]
    return state


@tf_export("train.checkpoint_exists")
def checkpoint_exists(checkpoint_prefix) -> bool:
    """Whether a checkpoint (its index file) exists at ``checkpoint_prefix``."""
    return file_io.is_file(checkpoint_format.index_filename(os.fspath(checkpoint_prefix)))


@tf_export("train.latest_checkpoint")
def latest_checkpoint(checkpoint_dir, latest_filename=None) -> str | None:
    """The prefix of the newest complete checkpoint in ``checkpoint_dir``, or None.

    >>> latest_checkpoint("/nonexistent") is None
    True
    """
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        if checkpoint_exists(state.model_checkpoint_path):
            return state.model_checkpoint_path
        _log.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
    return None


@tf_export("train.get_checkpoint_mtimes")
def get_checkpoint_mtimes(checkpoint_prefixes) -> list:
    """The modification times of the checkpoints that exist among ``checkpoint_prefixes``."""
    mtimes = []
    for prefix in checkpoint_prefixes:
        try:
            mtimes.append(file_io.mtime(checkpoint_format.index_filename(os.fspath(prefix))))
        except errors.OpError:
            continue
    return mtimes


@tf_export("train.remove_checkpoint")
def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=2, meta_graph_suffix="meta") -> None:
    """Deletes the files of a checkpoint (index, data, meta graph); missing files are fine."""
    prefix = os.fspath(checkpoint_prefix)
    paths = [meta_graph_filename(prefix, meta_graph_suffix), checkpoint_format.index_filename(prefix)]
    paths += file_io.glob(file_io.glob_escape(prefix) + ".data-?????-of-?????")
    for path in paths:
        try:
            file_io.remove(path)
        except errors.NotFoundError:
            pass
        except errors.OpError as e:
            _log.warning("Ignoring: %s", e)


def meta_graph_filename(checkpoint_filename: str, meta_graph_suffix: str = "meta") -> str:
    """``model.ckpt-123`` → ``model.ckpt-123.meta`` (a ``-?????-of-?????`` shard suffix is dropped)."""
    basename = re.sub(r"-[\d\?]+-of-\d+$", "", checkpoint_filename)
    return f"{basename}.{meta_graph_suffix}"
