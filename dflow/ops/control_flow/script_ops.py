"""Python inside graphs: ``tf.py_func``, ``tf.numpy_function``, ``tf.py_function``.

As in TF1, the function is not in the graph: the op holds a token, and the
function sits in a registry of the process that built the graph. So the op
runs where that process runs it: a local session, or a partition of a task that
the session's own process serves on a cluster (a ``tf.train.Server``); placed
on another process's task, it fails naming the op and saying so. Graph files
(``export_meta_graph``) keep the token only, like TF1's.

Exceptions raised by the function map to TF1's classes: ``ValueError`` and
``TypeError`` to ``InvalidArgumentError``, ``StopIteration`` and ``IndexError``
to ``OutOfRangeError``, ``NotImplementedError`` to ``UnimplementedError``,
``MemoryError`` to ``ResourceExhaustedError``, others to ``UnknownError``.

>>> import numpy as np, dflow as tf
>>> y = tf.py_func(lambda a: np.sort(a), [tf.constant([3, 1, 2])], tf.int32)
>>> with tf.Session() as sess:
...     sess.run(y).tolist()
[1, 2, 3]
"""

from __future__ import annotations

import itertools
import threading
import weakref

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import get_default_graph, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import unknown_shape

_FUNCS: dict = {}  # token -> function, for the life of the graphs that use it
_COUNTER = itertools.count()
_LOCK = threading.Lock()

_ERROR_CLASSES = [(StopIteration, errors.OutOfRangeError), (IndexError, errors.OutOfRangeError),
                  (NotImplementedError, errors.UnimplementedError), (MemoryError, errors.ResourceExhaustedError),
                  (ValueError, errors.InvalidArgumentError), (TypeError, errors.InvalidArgumentError)]


class EagerValue(np.ndarray):
    """What ``tf.py_function`` hands its function: an array that also has TF2's ``.numpy()``."""

    def numpy(self) -> np.ndarray:
        return np.asarray(self)


def _register(func, graph) -> str:
    with _LOCK:
        token = f"pyfunc_{next(_COUNTER)}"
        _FUNCS[token] = func
    # The function lives as long as the graph, as TF1's FuncRegistry keeps it.
    weakref.finalize(graph, _FUNCS.pop, token, None)
    return token


def _py_func_infer(op):
    return [(dt, unknown_shape()) for dt in op._attrs["Tout"]]


def _py_func_make_kernel(op, resources):
    token, tout, eager = op._attrs["token"], op._attrs["Tout"], op._attrs["eager"]
    func = _FUNCS.get(token)
    if func is None:
        raise errors.InternalError(
            None, op, f"The Python function of {op.type} op '{op.name}' ({token}) is registered only in the process "
                      f"that built the graph, as in TF1; place the op on a device of this session's own process (a "
                      f"local session, or a task this process serves through tf.train.Server).")

    def kernel(*args):
        if eager:
            args = [np.asarray(a).view(EagerValue) for a in args]
        try:
            out = func(*args)
        except errors.OpError:
            raise
        except Exception as e:  # noqa: BLE001 - mapped to TF1's error classes, with the original as cause
            cls = next((c for t, c in _ERROR_CLASSES if isinstance(e, t)), errors.UnknownError)
            raise cls(None, None, f"{type(e).__name__}: {e}") from e
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        if len(outs) != len(tout):
            raise errors.InvalidArgumentError(None, None, f"{len(tout)} values expected from the Python function, "
                                                          f"got {len(outs)}")
        values = []
        for i, (v, dt) in enumerate(zip(outs, tout)):
            v = np.asarray(v)
            if dt is dtypes.string:
                if v.dtype.kind not in "OSU":
                    raise errors.InvalidArgumentError(None, None, f"{i}-th value returned by {token} is "
                                                                  f"{_c_name(v.dtype)}, but expects string")
                values.append(np.asarray(v, dtype=object))
            elif v.dtype != dt.as_numpy_dtype:  # as TF1: no silent casts (a Python float is a double)
                raise errors.InvalidArgumentError(None, None, f"{i}-th value returned by {token} is "
                                                              f"{_c_name(v.dtype)}, but expects {_c_name(dt)}")
            else:
                values.append(v)
        return values[0] if len(values) == 1 else tuple(values)

    return kernel


for _type in ("PyFunc", "PyFuncStateless", "EagerPyFunc"):
    register(_type, infer=_py_func_infer, make_kernel=_py_func_make_kernel, stateful=_type != "PyFuncStateless")
not_differentiable("PyFunc")
not_differentiable("PyFuncStateless")


def _c_name(dtype) -> str:
    """TF's C type names in py_func messages: float, double, int32, ..."""
    name = dtypes.as_dtype(dtype).name
    return {"float32": "float", "float64": "double", "float16": "half"}.get(name, name)


def _script_op(op_type: str, func, inp, Tout, name, eager: bool):  # noqa: N803 - TF1 argument name
    single = not isinstance(Tout, (list, tuple))
    tout = tuple(dtypes.as_dtype(t) for t in ([Tout] if single else Tout))
    with name_scope(name, op_type):
        inputs = [convert_to_tensor(x) for x in (inp or [])]
        token = _register(func, inputs[0].graph if inputs else get_default_graph())
        op = apply_op(op_type, inputs, {"token": token, "Tout": tout, "eager": eager}, name=op_type)
    if not tout:
        return op
    return op.outputs[0] if single else list(op.outputs)


@tf_export("py_func")
def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF1 argument name
    """Runs ``func`` on the numpy values of ``inp`` when the op runs; ``Tout`` gives the output dtype(s).

    One dtype gives one tensor, a list gives a list. The outputs have unknown static shapes
    (set them with ``Tensor.set_shape``). No gradient flows through.
    """
    return _script_op("PyFunc" if stateful else "PyFuncStateless", func, inp, Tout, name, eager=False)


@tf_export("numpy_function")
def numpy_function(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF1 argument name
    """``tf.py_func`` under its TF2 name: ``func`` gets and returns numpy arrays."""
    return _script_op("PyFunc" if stateful else "PyFuncStateless", func, inp, Tout, name, eager=False)


@tf_export("py_function")
def py_function(func, inp, Tout, name=None):  # noqa: N803 - TF1 argument name
    """Like ``py_func``, but ``func`` gets arrays that also answer ``.numpy()``, as TF2's eager tensors.

    dflow computes no gradient through it (TF records one with a tape): ``tf.gradients`` raises LookupError.
    """
    return _script_op("EagerPyFunc", func, inp, Tout, name, eager=True)

