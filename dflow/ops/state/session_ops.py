"""TF1's persistent session tensors (``tf.get_session_handle`` & co., TF's ``session_ops.py``).

``GetSessionHandle`` keeps its input's value in the session and outputs a string handle
``"<op name>;<id>;<device>"`` (``id`` counts the session's handles from 0, as TF's
``SessionState``). Fetching it gives a ``TensorHandle``; feeding the handle string to the
placeholder of ``get_session_tensor`` makes ``GetSessionTensor`` output the stored value in a
later run, and ``DeleteSessionTensor`` frees it. Feeding the ``TensorHandle`` object itself
for any tensor feeds the stored value (TF's direct handle feed).

The values live in a ``HandleStore``: one resource of the session's ``SessionResources``, so a
local session frees them when it closes. On a cluster target the store is the resources of the
worker whose device the handle names (``get_session_tensor`` pins its ops there), as for
variables: a handle stays readable in later runs of the session, but the store is the
worker's, shared by the sessions on that cluster, and ``close()`` does not free it
(``delete``, the automatic clean-up and ``Session.reset`` do).
"""

from __future__ import annotations

import itertools
import sys
import threading
import weakref

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import placeholder
from dflow.framework.device_spec import DeviceSpec
from dflow.framework.graph import Tensor, colocate_with, device
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.state.resources import SessionResources, _frozen
from dflow.placement.placer import LOCAL_CPU

STORE_KEY = ("session_tensor_handles",)  # the store's key in a SessionResources
HANDLE_OP_TYPES = ("GetSessionHandle",)  # fetching their output gives a TensorHandle (TF also has the V2 op,
# whose output is a resource tensor; dflow has no resource tensors)
_DEAD_HANDLES_THRESHOLD = 10  # TF's BaseSession._DEAD_HANDLES_THRESHOLD


class HandleStore:
    """A session's persistent tensors: handle string -> (value, dtype)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._tensors: dict = {}

    def put(self, op_name: str, device: str, value, dtype) -> str:
        value = _frozen(value)  # no caller can write into the stored value through a fetch or feed
        with self._lock:
            handle = f"{op_name};{next(self._ids)};{device}"
            self._tensors[handle] = (value, dtype)
        return handle

    def get(self, handle: str) -> tuple:
        entry = self._tensors.get(handle)
        if entry is None:
            raise errors.InvalidArgumentError(None, None,
                                              f"The tensor with handle '{handle}' is not in the session store.")
        return entry

    def delete(self, handle: str, missing_ok: bool = False) -> None:
        with self._lock:
            found = self._tensors.pop(handle, None) is not None
        if not found and not missing_ok:
            raise errors.InvalidArgumentError(
                None, None, f"Failed to delete a tensor with handle '{handle}' in the session store.")

    def __len__(self) -> int:
        return len(self._tensors)


def _store(resources) -> HandleStore:
    return resources.resource(STORE_KEY, HandleStore)


def _handle_string(value) -> str:
    """The handle string of a handle value: a str, bytes, 0-d array of either, or TensorHandle."""
    if isinstance(value, TensorHandle):
        return value.handle
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise errors.InvalidArgumentError(
                None, None, f"A tensor handle must be a scalar string, got a tensor of shape {list(value.shape)}")
        value = value.item()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


# -- the kernels ------------------------------------------------------------------------------


def _get_handle_kernel(op, resources):
    store = _store(resources)
    device = getattr(resources, "bound_device", lambda: None)() or LOCAL_CPU
    name, dtype = op.name, op._attrs["T"]

    def kernel(value):
        return np.array(store.put(name, device, value, dtype).encode(), dtype=object)

    return kernel


def _get_tensor_kernel(op, resources):
    store = _store(resources)
    name, want = op.name, op._attrs["dtype"]

    def kernel(handle):
        value, dtype = store.get(_handle_string(handle))
        if dtype is not want:
            raise errors.InternalError(None, None, f"Output 0 of type {dtype.name} does not match declared output "
                                                   f"type {want.name} for node {{{{node {name}}}}}")
        return value

    return kernel


def _delete_tensor_kernel(op, resources):
    store = _store(resources)
    return lambda handle: store.delete(_handle_string(handle))


register("GetSessionHandle", infer=lambda op: [(dtypes.string, TensorShape([]))], make_kernel=_get_handle_kernel,
         stateful=True, gpu=False)
register("GetSessionTensor", infer=lambda op: [(op._attrs["dtype"], TensorShape(None))],
         make_kernel=_get_tensor_kernel, stateful=True, gpu=False)
register("DeleteSessionTensor", infer=lambda op: [], make_kernel=_delete_tensor_kernel, stateful=True, gpu=False)
for _t in ("GetSessionHandle", "GetSessionTensor", "DeleteSessionTensor"):
    not_differentiable(_t)


# -- the Python API ---------------------------------------------------------------------------


def _device_of(handle) -> str:
    """The canonical device name a handle ends with (TF's ``TensorHandle._get_device_name``);
    ValueError for one that is not a device."""
    return DeviceSpec.from_string(_handle_string(handle).split(";")[-1]).to_string()


@tf_export("get_session_handle")
def get_session_handle(data, name=None) -> Tensor:
    """Returns the handle of `data`, which a run keeps in the session for later runs.

    Running the returned scalar string tensor stores the value of ``data`` in the session and
    gives a ``TensorHandle``; ``get_session_tensor`` reads the value back in a later run::

        h = sess.run(tf.get_session_handle(tf.multiply(a, b)))
        p, x = tf.get_session_tensor(h.handle, tf.float32)
        sess.run(x * 10, feed_dict={p: h.handle})

    Raises TypeError if ``data`` is not a Tensor.
    """
    if not isinstance(data, Tensor):
        raise TypeError("`data` must be of type Tensor.")
    with colocate_with(data):
        return apply_op("GetSessionHandle", [data], {"T": data.dtype}, name=name).outputs[0]


@tf_export("get_session_tensor")
def get_session_tensor(handle, dtype, name=None) -> tuple:
    """Returns a placeholder for a tensor handle and the `dtype` tensor stored under the handle fed to it.

    ``handle`` (a handle string or ``TensorHandle``) only gives the device the ops are placed
    on; the handle to read is the one fed to the returned placeholder. Returns
    ``(holder, tensor)``.
    """
    dtype = dtypes.as_dtype(dtype)
    with device(_device_of(handle)):
        holder = placeholder(dtypes.string)
        tensor = apply_op("GetSessionTensor", [holder], {"dtype": dtype}, name=name).outputs[0]
    return holder, tensor


@tf_export("delete_session_tensor")
def delete_session_tensor(handle, name=None) -> tuple:
    """Returns a placeholder for a tensor handle and the op that deletes the tensor stored under it.

    ``handle`` (a handle string or ``TensorHandle``) gives the device the ops are placed on.
    Returns ``(holder, deleter)``; running ``deleter`` with a handle fed to ``holder`` frees the
    stored tensor (InvalidArgumentError if the session holds none under that handle).
    """
    with device(_device_of(handle)):
        holder = placeholder(dtypes.string)
        deleter = apply_op("DeleteSessionTensor", [holder], {}, name=name)
    return holder, deleter


def _get_handle_reader(graph, handle: str, dtype) -> tuple:
    """``(holder, reader)`` reading a handle of this device and dtype, made once per graph (TF's)."""
    readers = graph._attachments.setdefault("session_handle_readers", {})
    key = (TensorHandle._get_reader_key(handle), dtype)
    result = readers.get(key)
    if result is None:
        with graph.as_default(), graph.device(_device_of(handle)):
            holder = placeholder(dtypes.string)
            reader = apply_op("GetSessionTensor", [holder], {"dtype": dtype}, name=None).outputs[0]
        result = readers[key] = (holder, reader)
    return result


def _get_handle_deleter(graph, deleter_key: int, handle: str) -> tuple:
    """``(holder, deleter)`` number ``deleter_key`` of this graph (TF's: made once, reused)."""
    deleters = graph._attachments.setdefault("session_handle_deleters", {})
    result = deleters.get(deleter_key)
    if result is None:
        with graph.as_default(), graph.device(_device_of(handle)):
            holder = placeholder(dtypes.string)
            deleter = apply_op("DeleteSessionTensor", [holder], {}, name=None)
        result = deleters[deleter_key] = (holder, deleter)
    return result


class TensorHandle:
    """A handle for a tensor kept in a session, as ``sess.run(tf.get_session_handle(t))`` returns it.

    Its string form (``handle``, ``str(h)``) is ``"<op name>;<id>;<device>"``. When the last
    reference to a handle goes, its tensor is deleted (in batches of 10, as TF), unless
    ``get_raw_handle`` or ``delete`` was called.
    """

    def __init__(self, handle, dtype, session):
        self._handle = handle.decode() if isinstance(handle, bytes) else str(handle)
        self._dtype = dtypes.as_dtype(dtype)
        self._session = session
        self._auto_gc_enabled = True

    def __del__(self):
        if getattr(self, "_auto_gc_enabled", False) and not sys.is_finalizing():
            _register_dead_handle(self._session, self._handle)

    def __str__(self):
        return self._handle

    @property
    def handle(self) -> str:
        """The string representation of this handle."""
        return self._handle

    def eval(self):
        """The value of the tensor this handle names, read by a run of its session."""
        if not self._auto_gc_enabled:
            raise TypeError(f"Persistent tensor {self._handle} may have already been deleted.")
        holder, reader = _get_handle_reader(self._session.graph, self._handle, self._dtype)
        return self._session.run(reader, feed_dict={holder: self._handle})

    def delete(self) -> None:
        """Deletes the tensor this handle names from its session (TypeError on a second call)."""
        if not self._auto_gc_enabled:
            raise TypeError(f"Persistent tensor {self._handle} may have already been deleted.")
        self._auto_gc_enabled = False
        holder, deleter = _get_handle_deleter(self._session.graph, 0, self._handle)
        self._session.run(deleter, feed_dict={holder: self._handle})

    def get_raw_handle(self) -> str:
        """The handle string; the tensor is then no longer deleted with this object (the caller manages it)."""
        self._auto_gc_enabled = False
        return self._handle

    @staticmethod
    def _get_device_name(handle) -> str:
        """The device name encoded in the handle."""
        return _device_of(handle)

    @staticmethod
    def _get_reader_key(handle) -> str:
        """The graph key of a handle's reader: its op name and device."""
        parts = str(handle).split(";")
        return parts[0] + ";" + parts[-1]


# -- what sessions call -------------------------------------------------------------------------

_dead_handles: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # session -> handles no object holds
_dead_lock = threading.Lock()


def _local_store(session) -> HandleStore | None:
    """The store of an in-process session (None for a cluster session, whose stores are on workers)."""
    resources = getattr(session._runtime, "resources", None)
    return _store(resources) if isinstance(resources, SessionResources) else None


def _register_dead_handle(session, handle: str) -> None:
    """Notes a handle whose last ``TensorHandle`` went; deletes the dead ones every tenth (TF's GC).

    In-process, the tensors are dropped from the store directly; on a cluster, a run of
    deleters (as TF) frees them where they are kept."""
    with _dead_lock:
        dead = _dead_handles.setdefault(session, [])
        dead.append(handle)
        if len(dead) < _DEAD_HANDLES_THRESHOLD:
            return
        _dead_handles[session] = []
    if session._closed:
        return  # closing freed them
    store = _local_store(session)
    if store is not None:
        for h in dead:
            store.delete(h, missing_ok=True)
        return
    feeds, fetches = {}, []
    for key, h in enumerate(dead):
        holder, deleter = _get_handle_deleter(session.graph, key, h)
        feeds[holder] = h
        fetches.append(deleter)
    session.run(fetches, feed_dict=feeds)


def wrap_fetched_handles(session, plan, values: list) -> list:
    """``values`` (of ``plan.fetch_tensors``) with each ``GetSessionHandle`` output made a ``TensorHandle``."""
    out = list(values)
    for i, t in enumerate(plan.fetch_tensors):
        if t.op.type in HANDLE_OP_TYPES:
            out[i] = TensorHandle(values[i], t.op.inputs[0].dtype, session)
    return out


def fetches_handles(fetch_tensors) -> bool:
    """Whether a run of ``fetch_tensors`` fetches a tensor handle."""
    return any(t.op.type in HANDLE_OP_TYPES for t in fetch_tensors)


def fed_handle_value(session, tensor: Tensor, handle: TensorHandle):
    """The value to feed for ``tensor`` when a ``TensorHandle`` is fed (TF's direct handle feed):
    the tensor ``session`` keeps under the handle. InvalidArgumentError when the session has
    none under it or it is not of ``tensor``'s dtype. Its shape is not checked (as TF)."""
    store = _local_store(session)
    if store is not None:
        value, dtype = store.get(handle.handle)
    else:  # a cluster session: a run reads it from the worker that keeps it
        holder, reader = _get_handle_reader(session.graph, handle.handle, handle._dtype)
        value = np.asarray(session.run(reader, feed_dict={holder: handle.handle}), dtype=handle._dtype._np)
        dtype = handle._dtype
    if dtype is not tensor.dtype:
        raise errors.InvalidArgumentError(
            None, None, f"Cannot feed the tensor handle '{handle.handle}' for Tensor '{tensor.name}': "
                        f"expects {tensor.dtype.name} but {dtype.name} is provided")
    return value
