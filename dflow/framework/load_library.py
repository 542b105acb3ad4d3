"""``tf.load_op_library``, ``tf.load_library`` and ``tf.load_file_system_library``: TF's loaders of
compiled extensions (custom op kernels, file systems) from shared libraries.

dflow's kernels are Python functions, so there is nothing a shared library
could register: each loader raises ``NotImplementedError`` saying how to add
an op instead (``docs/adding_an_op.md``). ``tf.OpError`` is exported here too:
TF1's top-level name for the base class of run-time errors.
"""

from __future__ import annotations

from dflow._api import export_value, tf_export
from dflow.framework import errors

export_value("OpError", errors.OpError)

_HOW = ("dflow has no compiled kernels to extend: register a Python op with dflow.framework.op_registry.register and "
        "tf_export its function (docs/adding_an_op.md), or wrap Python code with tf.py_func")


@tf_export("load_op_library")
def load_op_library(library_filename):
    """Refused: a TF custom-op library holds C++ kernels, which dflow cannot run."""
    raise NotImplementedError(f"load_op_library({library_filename!r}): {_HOW}")


@tf_export("load_library")
def load_library(library_location):
    """Refused: a TF kernel library holds C++ kernels, which dflow cannot run."""
    raise NotImplementedError(f"load_library({library_location!r}): {_HOW}")


@tf_export("load_file_system_library")
def load_file_system_library(library_filename):
    """Refused: TF file-system plugins are C++; dflow reads files with Python (and fsspec where it is used)."""
    raise NotImplementedError(f"load_file_system_library({library_filename!r}): dflow reads files through Python; "
                              "it cannot load TF file-system plugins")
