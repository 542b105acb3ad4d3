"""Convolutions, pooling and large products through oneDNN, the kernels TF 2.15's CPU build
runs them on.

dflow's own convolution (``conv_ops``: im2col and OpenBLAS products) runs a 5 x 5, 32 -> 64
channel layer at about a third of oneDNN's speed: OpenBLAS is slow for products only 64
columns wide, and im2col copies 25 times the input. oneDNN's direct kernels (``brgconv``,
AVX-512 where the CPU has it) read the input in place. The library comes from Intel's
``onednn-cpu-gomp`` wheel (one shared library, OpenMP threads from the system's libgomp) and
is reached through its C API with ``ctypes`` (declared in ``_dnnl``); where it is missing (not Linux x86-64, or
``DFLOW_ONEDNN=0``), or a case is outside what it runs here, ``available()``/the entry points
say so (``None``) and the numpy kernels run.

What runs here, float32 only:

* ``conv_forward`` (with the fused bias and ReLU of ``dflow.sessions.fusion``),
  ``conv_backward_data`` and ``conv_backward_filter``: 2-D and 3-D, grouped (depthwise
  convolutions are grouped ones: ``conv_ops``) or not, channels-last
  or channels-first (TF's filters are always ``[*window, in, out]``), any strides, dilations
  and paddings;
* ``pool_forward`` and ``pool_backward``: max and average (over the unpadded elements) pools;
* ``matmul``: two matrices, either a transposed view, with a bias row and ReLU.

Each distinct case's primitives are built once and cached; each thread keeps its own memory
objects for a primitive, and a call sets their data pointers and makes its scratch buffer, so
concurrent calls from several threads are safe (oneDNN's primitives are stateless once created;
each thread has its own stream). A primitive is built
for the calling thread's OpenMP team (``_team``): the BLAS pool's size, or one thread in a
forked child (libgomp's team does not survive ``fork()``) and where ``one_thread_here`` says.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
import weakref
from collections import OrderedDict

import numpy as np

from dflow.kernels import dnnl as api

_lib = None
_omp_set_num_threads = None
_why_not = None  # why oneDNN is not used, once looked for
_lock = threading.Lock()
_engine = None
_streams = threading.local()


_OFF = ("0", "off", "false", "no")
SPIN_COUNT = 30_000  # libgomp's GOMP_SPINCOUNT, unless the user sets it or OMP_WAIT_POLICY


def _load():
    global _lib, _why_not, _engine, _omp_set_num_threads
    if _lib is not None or _why_not is not None:
        return _lib
    with _lock:
        if _lib is not None or _why_not is not None:
            return _lib
        if os.environ.get("DFLOW_ONEDNN", "").lower() in _OFF:
            _why_not = "DFLOW_ONEDNN turns it off"
            return None
        if not (sys.platform.startswith("linux") and np.dtype(np.intp).itemsize == 8):
            _why_not = "oneDNN's wheel is used on 64-bit Linux only"
            return None
        # libgomp's threads by default spin about 3 ms after each parallel region and hold a core
        # that the step's next ops (on dflow's threads, or OpenBLAS's) need: the CNN of
        # benchmarks/bench_models.py's first-layer filter gradient took 2.8 ms instead of 0.8.
        # Not spinning at all, each call wakes the sleeping team (a small pool's gradient: 280 us
        # against 55 on one thread). So: a short spin (30 000 turns, tens of microseconds), then
        # sleep. Read when libgomp loads; a user's own setting of either wins.
        if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
            os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
            os.environ["GOMP_SPINCOUNT"] = str(SPIN_COUNT)
        try:
            lib = ctypes.CDLL(api.library_path())
        except OSError as e:
            _why_not = f"libdnnl.so.3 was not loaded ({e}); install onednn-cpu-gomp"
            return None
        api.declare(lib)
        try:  # the OpenMP runtime libdnnl runs on, loaded with it
            omp = ctypes.CDLL("libgomp.so.1").omp_set_num_threads
            omp.argtypes, omp.restype = [ctypes.c_int], None
        except (OSError, AttributeError) as e:
            _why_not = f"libgomp.so.1 not found beside libdnnl.so.3 ({e})"
            return None
        engine = api.P()
        if lib.dnnl_engine_create(ctypes.byref(engine), api.CPU, 0) != 0:
            _why_not = "oneDNN has no CPU engine"
            return None
        _engine, _omp_set_num_threads, _lib = engine, omp, lib
        return lib


_enabled = threading.local()


def available() -> bool:
    """Whether oneDNN runs this thread's kernels (loading it on the first call)."""
    return getattr(_enabled, "on", True) and _load() is not None


@contextlib.contextmanager
def disabled():
    """Within it, this thread's kernels run on dflow's numpy and OpenBLAS code (tests, benchmarks)."""
    before = getattr(_enabled, "on", True)
    _enabled.on = False
    try:
        yield
    finally:
        _enabled.on = before


def why_not() -> str | None:
    """Why oneDNN is not used (``None`` when it is)."""
    _load()
    return _why_not


class OneDNNError(RuntimeError):
    """A oneDNN call failed (status code and the call's name)."""


def _check(status: int, what: str):
    if status != 0:
        raise OneDNNError(f"oneDNN {what} failed with status {status}")


def _stream():
    """This thread's stream."""
    s = getattr(_streams, "stream", None)
    if s is None:
        s = api.P()
        _check(_lib.dnnl_stream_create(ctypes.byref(s), _engine, 1), "stream creation")
        _streams.stream = s
    return s


def pool_threads() -> int:
    """The BLAS pool's size, which oneDNN's teams follow. ``dflow/kernels/blas.py`` installs its own
    count here when it is imported: blas routes products to oneDNN, so oneDNN does not import blas."""
    return 1


def _team() -> int:
    """The size of the calling thread's OpenMP team, set as its OpenMP setting: the BLAS pool's
    (``pool_threads``, blas's ``_threads``: the session's ``intra_op_parallelism_threads``, a Dask
    worker's one thread, ...), or one (``one_thread_here``, a forked child). oneDNN sizes a
    primitive's work for the team when it builds it, so the size is part of the cache's key."""
    threads = 1 if _forked or getattr(_streams, "alone", False) else pool_threads()
    if threads != getattr(_streams, "threads", None):
        _omp_set_num_threads(threads)
        _streams.threads = threads
    return threads


_forked = False  # a forked child of a process that ran oneDNN: libgomp's team is gone


def _after_fork_in_child() -> None:
    # libgomp does not survive fork(): a parallel region in the child waits for the parent's
    # threads for ever. Primitives built for a team of one run no parallel region.
    global _forked
    _forked = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def one_thread_here() -> None:
    """The calling thread's oneDNN calls run on it alone, with no OpenMP team: for a thread
    that runs beside others (``dflow.sessions.overlap``'s, beside a loop that holds a core),
    where a team's static shares would wait for a busy core (the LSTM LM's softmax-layer
    products beside its loop: 5 % slower with a team of two)."""
    _streams.alone = True


def _md(dims, tag):
    m = api.P()
    _check(_lib.dnnl_memory_desc_create_with_tag(ctypes.byref(m), len(dims), api.Dims(*dims), api.F32, tag),
           "memory descriptor creation")
    return m


class _Primitive:
    """A primitive and what a call needs besides its arrays: the descriptors of its
    arguments (by oneDNN argument number), and the size of its scratch buffer.

    Each thread that runs it keeps its own memory objects for each set of arguments (a call sets
    their data pointers: one C call an array instead of a creation and a destruction, about 15 us
    less a call), so threads may run one primitive at once."""

    def __init__(self, pd, mds: dict, owned_mds=()):
        self.pd = pd
        self.prim = api.P()
        _check(_lib.dnnl_primitive_create(ctypes.byref(self.prim), pd), "primitive creation")
        self.mds = mds
        self._owned = list(owned_mds)
        scratch = _lib.dnnl_primitive_desc_query_md(pd, api.Q_SCRATCHPAD_MD, 0)
        self.scratch_md = scratch
        self.scratch_bytes = _lib.dnnl_memory_desc_get_size(scratch) if scratch else 0
        self._bound: dict = {}  # (thread, argument numbers) -> (api.Arg array, memory objects)

    def impl(self) -> str:
        s = ctypes.c_char_p()
        _check(_lib.dnnl_primitive_desc_query(self.pd, api.Q_IMPL, 0, ctypes.cast(ctypes.pointer(s), api.P)),
               "implementation query")
        return s.value.decode()

    def _bind(self, key):
        """The calling thread's ``api.Arg`` array and memory objects for the arguments ``key[1]``
        (and the scratch buffer, last), made on its first call with them."""
        numbers = list(key[1]) + ([api.ARG_SCRATCHPAD] if self.scratch_bytes else [])
        args = (api.Arg * len(numbers))()
        mems = []
        try:
            for i, arg in enumerate(numbers):
                m = api.P()
                md = self.scratch_md if arg == api.ARG_SCRATCHPAD else self.mds[arg]
                _check(_lib.dnnl_memory_create(ctypes.byref(m), md, _engine, None), "memory creation")
                mems.append(m)
                args[i].arg, args[i].memory = arg, m
        except Exception:
            for m in mems:
                _lib.dnnl_memory_destroy(m)
            raise
        bound = self._bound[key] = (args, tuple(mems), ctypes.cast(args, api.P))
        return bound

    def run(self, arrays: dict):
        """Execute with ``{argument: array}`` (each array laid out as its descriptor says)."""
        key = (threading.get_ident(), tuple(arrays))
        bound = self._bound.get(key)
        if bound is None:
            bound = self._bind(key)
        _, mems, pointer = bound
        set_handle = _lib.dnnl_memory_set_data_handle
        failed = 0
        for m, a in zip(mems, arrays.values()):
            failed |= set_handle(m, a.ctypes.data)
        scratch = None
        if self.scratch_bytes:  # a buffer per call: calls may run at once
            scratch = np.empty(self.scratch_bytes, np.uint8)
            failed |= set_handle(mems[-1], scratch.ctypes.data)
        _check(failed, "setting a memory's data")
        stream = _stream()
        _check(_lib.dnnl_primitive_execute(self.prim, stream, len(mems), pointer), "execution")
        _check(_lib.dnnl_stream_wait(stream), "stream wait")

    def __del__(self):  # pragma: no cover - the cache keeps primitives for the process's life
        lib = _lib
        if lib is None:
            return
        for _, mems, _ in self._bound.values():
            for m in mems:
                lib.dnnl_memory_destroy(m)
        lib.dnnl_primitive_destroy(self.prim)
        lib.dnnl_primitive_desc_destroy(self.pd)
        for m in self._owned:
            lib.dnnl_memory_desc_destroy(m)


def _reorder(src_md, dst_md) -> _Primitive:
    pd = api.P()
    attr = _attr(relu=False)  # a scratch buffer of the call's own, as every primitive here
    try:
        _check(_lib.dnnl_reorder_primitive_desc_create(ctypes.byref(pd), src_md, _engine, dst_md, _engine, attr),
               "reorder creation")
    finally:
        _lib.dnnl_primitive_attr_destroy(attr)
    return _Primitive(pd, {api.ARG_SRC: src_md, api.ARG_DST: dst_md})


def _attr(relu: bool):
    attr = api.P()
    _check(_lib.dnnl_primitive_attr_create(ctypes.byref(attr)), "attribute creation")
    _check(_lib.dnnl_primitive_attr_set_scratchpad_mode(attr, api.SCRATCHPAD_USER), "scratchpad mode")
    if relu:
        post = api.P()
        _check(_lib.dnnl_post_ops_create(ctypes.byref(post)), "post-op creation")
        _check(_lib.dnnl_post_ops_append_eltwise(post, api.ELTWISE_RELU, 0.0, 0.0), "ReLU post-op")
        _check(_lib.dnnl_primitive_attr_set_post_ops(attr, post), "post-ops")
        _lib.dnnl_post_ops_destroy(post)
    return attr


class _Geometry:
    """One convolution's shapes in oneDNN's terms: logical dims ``[n, c, *spatial]``,
    filters ``[out, in, *window]``, and the window arithmetic (dilations count from 0)."""

    def __init__(self, x_shape, w_shape, y_shape, strides, dilations, pads, channels_first):
        rank = len(w_shape) - 2
        self.tags = api.TAGS[(rank, channels_first)]
        self.src = [x_shape[0], x_shape[1], *x_shape[2:]] if channels_first else [x_shape[0], x_shape[-1],
                                                                                   *x_shape[1:-1]]
        self.dst = [y_shape[0], y_shape[1], *y_shape[2:]] if channels_first else [y_shape[0], y_shape[-1],
                                                                                   *y_shape[1:-1]]
        window, ci, co = list(w_shape[:-2]), w_shape[-2], w_shape[-1]
        self.groups = self.src[1] // ci if ci else 1
        if self.groups == 1:
            self.weights = [co, ci, *window]
            self.weight_strides = None
        else:  # [groups, out per group, in per group, *window]: TF's [*window, in, out] as it lies
            self.weights = [self.groups, co // self.groups, ci, *window]
            inner = ci * co
            steps = []
            for k in reversed(window):
                steps.insert(0, inner)
                inner *= k
            self.weight_strides = [co // self.groups, 1, co, *steps]
        self.strides = api.Dims(*strides)
        self.dilations = api.Dims(*(d - 1 for d in dilations))
        self.pad_l = api.Dims(*(b for b, _ in pads))
        # oneDNN's right padding is what makes its output size exact (TF may pad less).
        self.pad_r = api.Dims(*((o - 1) * s + (k - 1) * d + 1 - i - b for o, s, k, d, i, (b, _) in zip(
            self.dst[2:], strides, window, dilations, self.src[2:], pads)))

    def descriptors(self):
        data, filt = self.tags
        if self.weight_strides is None:
            w_plain = _md(self.weights, filt)
        else:
            w_plain = api.P()
            _check(_lib.dnnl_memory_desc_create_with_strides(ctypes.byref(w_plain), len(self.weights),
                                                             api.Dims(*self.weights), api.F32,
                                                             api.Dims(*self.weight_strides)),
                   "memory descriptor creation")
        return _md(self.src, data), w_plain, _md(self.weights, api.ANY), _md(self.dst, data)


class _Conv:
    """A geometry's primitives for one kind of call, with the filter's reorders."""

    def __init__(self, kind: str, g: _Geometry, bias: bool, relu: bool):
        self._hint = None  # a gradient's forward descriptor (oneDNN's hint), destroyed with this
        src, w_plain, w_any, dst = g.descriptors()
        owned = [src, w_plain, w_any, dst]
        attr = _attr(relu)
        try:
            fwd = api.P()
            bias_md = _md([g.dst[1]], api.TAG_X) if bias else None
            if bias_md is not None:
                owned.append(bias_md)
            _check(_lib.dnnl_convolution_forward_primitive_desc_create(
                ctypes.byref(fwd), _engine, api.FORWARD_TRAINING, api.DIRECT, src, w_any, bias_md, dst, g.strides,
                g.dilations, g.pad_l, g.pad_r, attr if kind == "forward" else None), "convolution descriptor")
            if kind == "forward":
                w_md = _lib.dnnl_primitive_desc_query_md(fwd, api.Q_WEIGHTS_MD, 0)
                mds = {api.ARG_SRC: src, api.ARG_WEIGHTS: w_md, api.ARG_DST: dst}
                if bias_md is not None:
                    mds[api.ARG_BIAS] = bias_md
                self.main = _Primitive(fwd, mds, owned)
            else:
                pd = api.P()
                if kind == "backward_data":
                    _check(_lib.dnnl_convolution_backward_data_primitive_desc_create(
                        ctypes.byref(pd), _engine, api.DIRECT, src, w_any, dst, g.strides, g.dilations, g.pad_l,
                        g.pad_r, fwd, attr), "input gradient descriptor")
                    w_md = _lib.dnnl_primitive_desc_query_md(pd, api.Q_WEIGHTS_MD, 0)
                    mds = {api.ARG_DIFF_DST: dst, api.ARG_WEIGHTS: w_md, api.ARG_DIFF_SRC: src}
                else:
                    _check(_lib.dnnl_convolution_backward_weights_primitive_desc_create(
                        ctypes.byref(pd), _engine, api.DIRECT, src, w_any, None, dst, g.strides, g.dilations,
                        g.pad_l, g.pad_r, fwd, attr), "filter gradient descriptor")
                    w_md = _lib.dnnl_primitive_desc_query_md(pd, api.Q_DIFF_WEIGHTS_MD, 0)
                    mds = {api.ARG_SRC: src, api.ARG_DIFF_DST: dst, api.ARG_DIFF_WEIGHTS: w_md}
                self.main = _Primitive(pd, mds, owned)
                self._hint = fwd  # the forward descriptor the gradient's refers to
        finally:
            _lib.dnnl_primitive_attr_destroy(attr)
        self.w_elements = _lib.dnnl_memory_desc_get_size(w_md) // 4
        self.w_plain = _lib.dnnl_memory_desc_equal(w_md, w_plain) == 1
        if not self.w_plain:
            self.reorder = _reorder(w_plain, w_md) if kind != "backward_weights" else _reorder(w_md, w_plain)

    def __del__(self):  # pragma: no cover - see _Primitive.__del__
        if _lib is not None and self._hint is not None:
            _lib.dnnl_primitive_desc_destroy(self._hint)

    def filter_in(self, w):
        """The filter in the layout the primitive reads."""
        if self.w_plain:
            return w
        out = np.empty(self.w_elements, np.float32)
        self.reorder.run({api.ARG_SRC: w, api.ARG_DST: out})
        return out


_CACHE_SIZE = 64
_cache: OrderedDict = OrderedDict()
_UNSUPPORTED = object()


def _cached(key, build):
    """The primitives of ``key`` for the calling thread's team (``build()`` on the first call),
    or None where oneDNN has no kernel for the case (the numpy kernels run it)."""
    global _layers_on_teams
    team = _team()
    key = (*key, team)
    if team > 1 and not _layers_on_teams and key[0] != "matmul":
        _layers_on_teams = True
    with _lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return None if found is _UNSUPPORTED else found
    try:
        found = build()
    except OneDNNError:
        found = _UNSUPPORTED
    with _lock:
        _cache[key] = found
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return None if found is _UNSUPPORTED else found


_layers_on_teams = False  # a convolution or pool has run on a team of threads in this process


def layers_on_teams() -> bool:
    """Whether a convolution or pool has run here on a team of OpenMP threads. Mid-sized float32
    products then run on oneDNN too (``blas.matmul``): OpenBLAS's own threads spin on after a
    product, and the team's next kernels wait for the core they hold (the benchmarks' CNN at batch 8:
    a 14 x 14 x 64 max pool took 3.1 ms in the step, the 8 x 3136 x 1024 layer 3.5)."""
    return _layers_on_teams


def _primitives(kind, x_shape, w_shape, y_shape, strides, dilations, pads, channels_first, bias=False,
                relu=False):
    key = (kind, x_shape, w_shape, y_shape, tuple(strides), tuple(dilations), tuple(pads), channels_first, bias,
           relu)
    return _cached(key, lambda: _Conv(kind, _Geometry(x_shape, w_shape, y_shape, strides, dilations, pads,
                                                      channels_first), bias, relu))


def _relu(finish) -> bool:
    """Whether a fused op's ``finish`` (``dflow.sessions.fusion``) is the ReLU, which oneDNN applies
    as a post-op; any other ``finish`` runs on the result (``_finished``)."""
    return getattr(finish, "eltwise", None) == "relu"


def _finished(out, finish):
    if finish is not None and not _relu(finish):
        finish(out)
    return out


def usable(*arrays) -> bool:
    """Whether oneDNN can take these arrays here: non-empty float32 numpy arrays, oneDNN loaded and
    not ``disabled()`` on this thread."""
    return all(type(a) is np.ndarray and a.dtype == np.float32 and a.size for a in arrays) and available()


def _c(a):
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def conv_forward(x, w, y_shape, strides, dilations, pads, channels_first, bias=None, finish=None):
    """``x`` convolved with ``w`` (``[*window, in, out]``), plus ``bias`` and a fused op's
    ``finish`` if given, as a new array of ``y_shape``; ``None`` where oneDNN does not run this case.

    ``pads`` is ``[(before, after)]`` per spatial dimension; ``strides`` and ``dilations`` are
    spatial only. ``x`` and the result are channels-first if ``channels_first``."""
    if not usable(x, w) or (bias is not None and not usable(bias)):
        return None
    conv = _primitives("forward", x.shape, w.shape, tuple(y_shape), strides, dilations, pads, channels_first,
                       bias is not None, _relu(finish))
    if conv is None:
        return None
    y = np.empty(y_shape, np.float32)
    args = {api.ARG_SRC: _c(x), api.ARG_WEIGHTS: conv.filter_in(_c(w)), api.ARG_DST: y}
    if bias is not None:
        args[api.ARG_BIAS] = _c(bias)
    conv.main.run(args)
    return _finished(y, finish)


def conv_backward_data(w, dy, x_shape, strides, dilations, pads, channels_first):
    """The gradient of a convolution's input (of ``x_shape``) from its output's, ``dy``; ``None``
    where oneDNN does not run this case."""
    if not usable(w, dy):
        return None
    conv = _primitives("backward_data", tuple(x_shape), w.shape, dy.shape, strides, dilations, pads,
                       channels_first)
    if conv is None:
        return None
    dx = np.empty(x_shape, np.float32)
    conv.main.run({api.ARG_DIFF_DST: _c(dy), api.ARG_WEIGHTS: conv.filter_in(_c(w)), api.ARG_DIFF_SRC: dx})
    return dx


def conv_backward_filter(x, dy, w_shape, strides, dilations, pads, channels_first):
    """The gradient of a convolution's filter (of ``w_shape``) from its output's, ``dy``; ``None``
    where oneDNN does not run this case."""
    if not usable(x, dy):
        return None
    conv = _primitives("backward_weights", x.shape, tuple(w_shape), dy.shape, strides, dilations, pads,
                       channels_first)
    if conv is None:
        return None
    dw = np.empty(w_shape, np.float32)
    if conv.w_plain:
        conv.main.run({api.ARG_SRC: _c(x), api.ARG_DIFF_DST: _c(dy), api.ARG_DIFF_WEIGHTS: dw})
    else:
        blocked = np.empty(conv.w_elements, np.float32)
        conv.main.run({api.ARG_SRC: _c(x), api.ARG_DIFF_DST: _c(dy), api.ARG_DIFF_WEIGHTS: blocked})
        conv.reorder.run({api.ARG_SRC: blocked, api.ARG_DST: dw})
    return dw


def implementation(kind, x_shape, w_shape, y_shape, strides, dilations, pads, channels_first) -> str | None:
    """The name of the oneDNN kernel that runs a case (``brgconv:avx512_core``, ...), or ``None``."""
    if not available():
        return None
    conv = _primitives(kind, tuple(x_shape), tuple(w_shape), tuple(y_shape), strides, dilations, pads,
                       channels_first)
    return None if conv is None else conv.main.impl()


# -- pooling ------------------------------------------------------------------------------------


class _Pool:
    """A pooling geometry's primitives: the forward pass, or the gradient (for the maximum, with
    the forward pass that records each window's first maximum in oneDNN's workspace)."""

    def __init__(self, backward: bool, x_shape, y_shape, ksize, strides, pads, channels_first, average):
        rank = len(x_shape) - 2
        tag = api.TAGS[(rank, channels_first)][0]
        g = _Geometry(x_shape, (*ksize, x_shape[1 if channels_first else -1], 1), y_shape, strides,
                      (1,) * rank, pads, channels_first)
        src, dst = _md(g.src, tag), _md(g.dst, tag)
        owned = [src, dst]
        alg = api.POOL_AVG if average else api.POOL_MAX
        kernel, no_dilation = api.Dims(*ksize), api.Dims(*([0] * rank))
        attr = _attr(relu=False)
        try:
            fwd = api.P()
            _check(_lib.dnnl_pooling_forward_primitive_desc_create(
                ctypes.byref(fwd), _engine, api.FORWARD_TRAINING if backward else api.FORWARD_INFERENCE, alg, src, dst,
                g.strides, kernel, no_dilation, g.pad_l, g.pad_r, attr), "pooling descriptor")
            if not backward:
                self.main = _Primitive(fwd, {api.ARG_SRC: src, api.ARG_DST: dst}, owned)
                return
            ws = _lib.dnnl_primitive_desc_query_md(fwd, api.Q_WORKSPACE_MD, 0)
            self.ws_bytes = _lib.dnnl_memory_desc_get_size(ws) if ws else 0
            bwd = api.P()
            _check(_lib.dnnl_pooling_backward_primitive_desc_create(
                ctypes.byref(bwd), _engine, alg, src, dst, g.strides, kernel, no_dilation, g.pad_l, g.pad_r, fwd,
                attr), "pooling gradient descriptor")
            mds = {api.ARG_DIFF_DST: dst, api.ARG_DIFF_SRC: src}
            if self.ws_bytes:
                mds[api.ARG_WORKSPACE] = ws
                self.fwd = _Primitive(fwd, {api.ARG_SRC: src, api.ARG_DST: dst, api.ARG_WORKSPACE: ws})
            else:
                _lib.dnnl_primitive_desc_destroy(fwd)
            self.main = _Primitive(bwd, mds, owned)
        finally:
            _lib.dnnl_primitive_attr_destroy(attr)


def _pool_primitives(backward, x_shape, y_shape, ksize, strides, pads, channels_first, average):
    key = ("pool_backward" if backward else "pool", tuple(x_shape), tuple(y_shape), tuple(ksize), tuple(strides),
           tuple(pads), channels_first, average)
    return _cached(key, lambda: _Pool(backward, tuple(x_shape), tuple(y_shape), ksize, strides, pads,
                                      channels_first, average))


def pool_forward(x, y_shape, ksize, strides, pads, channels_first, average, keep_workspace=False):
    """The max or average (over the window's unpadded elements) pool of ``x`` as a new array of
    ``y_shape``; ``None`` where oneDNN does not run this case. ``ksize``, ``strides`` and
    ``pads`` (``[(before, after)]``) are spatial only.

    With ``keep_workspace`` (a max pool whose gradient the graph computes), the forward pass
    records each window's first maximum, as TF's oneDNN build does, and keeps it with the
    result for ``pool_backward`` while the result lives."""
    if not usable(x) or 0 in y_shape:
        return None
    keep = keep_workspace and not average
    pool = _pool_primitives(keep, x.shape, y_shape, ksize, strides, pads, channels_first, average)
    if pool is None:
        return None
    y = np.empty(y_shape, np.float32)
    if keep and pool.ws_bytes:
        ws = np.empty(pool.ws_bytes, np.uint8)
        pool.fwd.run({api.ARG_SRC: _c(x), api.ARG_DST: y, api.ARG_WORKSPACE: ws})
        _keep_workspace(x, y, pool, ws)
        return y
    pool.main.run({api.ARG_SRC: _c(x), api.ARG_DST: y})
    return y


# id(y) -> (x's weakref, y's weakref, primitives, workspace): a max pool's record of each window's
# first maximum, kept from its forward pass for its gradient until y is freed
_workspaces: dict = {}


def _keep_workspace(x, y, pool, ws):
    key = id(y)

    def forget(ref):
        if _workspaces.get(key, (None, None))[1] is ref:
            _workspaces.pop(key, None)

    _workspaces[key] = (weakref.ref(x), weakref.ref(y, forget), pool, ws)


def pool_backward(x, dy, ksize, strides, pads, channels_first, average, y=None):
    """The gradient of a pool's input from its output's, ``dy``: each window's gradient to its
    first maximum (scan order) in ``x``, or spread over its unpadded elements (``x`` is then
    only its shape); ``None`` where oneDNN does not run this case. A max pool's workspace comes
    from ``pool_forward`` where ``y`` is the very array it made from this ``x`` with these
    primitives; else the forward pass runs again to make it."""
    if not (usable(dy) if average else usable(x, dy)):
        return None
    x_shape = x if average else x.shape
    pool = _pool_primitives(True, x_shape, dy.shape, ksize, strides, pads, channels_first, average)
    if pool is None:
        return None
    args = {api.ARG_DIFF_DST: _c(dy), api.ARG_DIFF_SRC: np.empty(x_shape, np.float32)}
    if pool.ws_bytes:
        kept = _workspaces.get(id(y)) if y is not None else None
        if kept is not None and kept[0]() is x and kept[1]() is y and kept[2] is pool:
            args[api.ARG_WORKSPACE] = kept[3]
        else:
            args[api.ARG_WORKSPACE] = np.empty(pool.ws_bytes, np.uint8)
            pool.fwd.run({api.ARG_SRC: _c(x), api.ARG_DST: np.empty(dy.shape, np.float32),
                          api.ARG_WORKSPACE: args[api.ARG_WORKSPACE]})
    pool.main.run(args)
    return args[api.ARG_DIFF_SRC]


# -- matrix products ------------------------------------------------------------------------------


class _MatMul:
    def __init__(self, m, k, n, a_tag, b_tag, bias, relu):
        a, b, c = _md([m, k], a_tag), _md([k, n], b_tag), _md([m, n], api.TAG_AB)
        owned = [a, b, c]
        bias_md = _md([1, n], api.TAG_AB) if bias else None
        if bias_md is not None:
            owned.append(bias_md)
        attr = _attr(relu)
        try:
            pd = api.P()
            _check(_lib.dnnl_matmul_primitive_desc_create(ctypes.byref(pd), _engine, a, b, bias_md, c, attr),
                   "matmul descriptor")
        finally:
            _lib.dnnl_primitive_attr_destroy(attr)
        mds = {api.ARG_SRC: a, api.ARG_WEIGHTS: b, api.ARG_DST: c}
        if bias_md is not None:
            mds[api.ARG_BIAS] = bias_md
        self.main = _Primitive(pd, mds, owned)


def _matrix(a):
    """``(array, tag)``: ``a`` as oneDNN reads it, in place when row- or column-major."""
    if a.flags.c_contiguous:
        return a, api.TAG_AB
    if a.flags.f_contiguous:
        return a, api.TAG_BA
    return np.ascontiguousarray(a), api.TAG_AB


def matmul(a, b, bias=None, finish=None):
    """``a @ b`` of two float32 matrices (either may be a transposed view), plus ``bias`` (a row)
    and a fused op's ``finish`` if given, as a new array; ``None`` where oneDNN does not run this case."""
    if not usable(a, b) or (bias is not None and not usable(bias)):
        return None
    (a, a_tag), (b, b_tag) = _matrix(a), _matrix(b)
    (m, k), n = a.shape, b.shape[1]
    relu = _relu(finish)
    product = _cached(("matmul", m, k, n, a_tag, b_tag, bias is not None, relu),
                      lambda: _MatMul(m, k, n, a_tag, b_tag, bias is not None, relu))
    if product is None:
        return None
    out = np.empty((m, n), np.float32)
    args = {api.ARG_SRC: a, api.ARG_WEIGHTS: b, api.ARG_DST: out}
    if bias is not None:
        args[api.ARG_BIAS] = _c(bias)
    product.main.run(args)
    return _finished(out, finish)
