"""``tf.resource_loader``: paths of data files next to the calling module, and of dflow's own files.

>>> tf.resource_loader.get_path_to_datafile("vocab.txt")   # doctest: +SKIP
'/home/me/project/vocab.txt'          # beside the module that called it
"""

from __future__ import annotations

import os
import sys

from dflow._api import tf_export


def package_root() -> str:
    """The directory of the ``dflow`` package (TF's counterpart: the ``tensorflow`` directory)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _caller_dir(depth: int = 2) -> str:
    return os.path.dirname(os.path.abspath(sys._getframe(depth).f_code.co_filename))


@tf_export("resource_loader.get_data_files_path")
def get_data_files_path() -> str:
    """The directory of the module that calls this."""
    return _caller_dir()


@tf_export("resource_loader.get_path_to_datafile")
def get_path_to_datafile(path: str) -> str:
    """``path`` joined to the directory of the module that calls this."""
    return os.path.join(_caller_dir(), path)


@tf_export("resource_loader.get_root_dir_with_all_resources")
def get_root_dir_with_all_resources() -> str:
    """The Bazel runfiles repository directory above the calling module, or else the module's directory."""
    script_dir = _caller_dir()
    directories = [script_dir]
    while True:
        candidate = directories[-1]
        if ".runfiles" in os.path.basename(candidate):
            return directories[-2] if len(directories) > 1 else script_dir
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return script_dir
        directories.append(parent)


@tf_export("resource_loader.load_resource")
def load_resource(path: str) -> bytes:
    """The bytes of ``path``, relative to dflow's package directory (TF: relative to ``tensorflow/``)."""
    with open(os.path.join(package_root(), path), "rb") as f:
        return f.read()


@tf_export("resource_loader.readahead_file_path")
def readahead_file_path(path: str, readahead="128M") -> str:
    """``path`` itself: TF's readahead file systems have no dflow counterpart (local reads need none)."""
    return path
