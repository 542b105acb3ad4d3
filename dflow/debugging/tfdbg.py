"""``from tensorflow.python import debug as tf_debug``: TF1's debugger (tfdbg) namespace.

TF1 programs import it unconditionally and wrap their session only when asked (``--debug``), so
the namespace is here: the tensor filter ``has_inf_or_nan`` works; the interactive debugger's
session wrappers and hooks (a curses/readline CLI, or a TensorBoard debugger backend over gRPC)
are not built and raise ``NotImplementedError`` naming themselves.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export


@tf_export("python.debug.has_inf_or_nan")
def has_inf_or_nan(datum, tensor) -> bool:
    """tfdbg's filter: whether ``tensor`` (a dumped value) is floating point and holds an inf or a nan."""
    del datum  # TF's DebugTensorDatum: unused, as in TF
    if tensor is None or not hasattr(tensor, "dtype"):
        return False  # an uninitialized tensor, or a value that is not an array
    if np.issubdtype(tensor.dtype, np.floating) or np.issubdtype(tensor.dtype, np.complexfloating):
        return bool(np.any(np.isnan(tensor)) or np.any(np.isinf(tensor)))
    return False


def _not_built(name: str):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            f"tf_debug.{name} (TF1's interactive debugger, tfdbg) is not implemented in dflow; run without it, "
            f"or inspect tensors with tf.Print / tf.debugging.check_numerics / RunOptions tracing.")

    return type(name, (), {"__init__": __init__, "__doc__": f"tfdbg's ``{name}``: not implemented in dflow."})


for _name in ("LocalCLIDebugWrapperSession", "TensorBoardDebugWrapperSession", "DumpingDebugWrapperSession",
              "LocalCLIDebugHook", "DumpingDebugHook", "TensorBoardDebugHook", "GrpcDebugWrapperSession",
              "GrpcDebugHook"):
    tf_export(f"python.debug.{_name}")(_not_built(_name))
del _name
