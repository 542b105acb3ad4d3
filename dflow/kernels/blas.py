"""Matrix products and batch-parallel kernels with threads sized to their work, as TF1's cost
model sizes its Eigen pool.

numpy's OpenBLAS splits every product above ~262 K multiply-adds statically over all its
threads, which then wait for each other. A product of a few million (an LSTM step at batch
20: 20 × 256 × 512) gains nothing from a second thread on an idle machine (54 against 58 µs);
when other processes share the cores, a thread the OS holds back stalls the whole product:
the same product then took 0.6 - 2.5 ms instead of 57 µs, and the 140 such products of a
PTB-small training step dominated it (a 5 × 5 convolution's 25 per-tap products: 183 against
20 ms). So:

* ``matmul`` runs products under ``SERIAL_PRODUCT`` multiply-adds on the calling thread alone;
* products from ``BLOCKED_PRODUCT`` (and ``over_batch`` kernels from ``SERIAL_PRODUCT``) are
  cut into blocks that the calling thread and the pool's other threads take in turn, each
  block one single-threaded BLAS call: a thread held back delays one block, not the product
  (64 × 3136 × 1024: 2.6 ms against 3.5 on one thread and OpenBLAS's 1.8 - 9.3; a 5 × 5
  convolution's input gradient on a busy machine: 20 ms against OpenBLAS's 183);
* products between keep OpenBLAS's threads, whose ~1 ms calls the hand-off to the pool would
  cost more than it saves (256 × 784 × 512: 1.0 ms in OpenBLAS's two threads at best, 1.5 in
  blocks, 1.3 on one thread; the MLP of bench_training.py went from 4.6 to 6.9 ms a step on
  one thread).

The pool's size is the BLAS pool's (``intra_op_parallelism_threads``, OPENBLAS_NUM_THREADS).
The single-thread switch is OpenBLAS's ``openblas_set_num_threads_local`` override (or
``openblas_set_num_threads`` where that is missing), process-wide: a count of the regions in
flight keeps it on until the last one ends, so concurrent runs cannot leave it set. Other BLAS
libraries and CuPy arrays multiply as ``a @ b``.
"""

from __future__ import annotations

import ctypes
import os
import threading

import numpy as np

from dflow.kernels import onednn as _onednn

SERIAL_PRODUCT = 1 << 23  # multiply-adds: one thread below (the measured crossover: 5 - 16 M on 2 cores)
BLOCKED_PRODUCT = 1 << 27  # from here products go in blocks over threads (they won from ~200 M)
# Products of an inner dimension this thin (a dense layer's weight gradient at batch 1 or 2) with
# outputs of _THIN_OUTPUT elements or more go to oneDNN too: OpenBLAS took 5 - 8 ms for the CNN's
# 3136 x 1 x 1024 one at batch 1 (numpy's broadcast product 2), oneDNN 0.9.
THIN_PRODUCT = 2
_THIN_OUTPUT = 1 << 18
_OPENBLAS_SERIAL = 1 << 18  # OpenBLAS itself runs products up to 4 × 65536 multiply-adds on one thread

_lock = threading.Lock()
_in_flight = 0
_saved = 0
_switch = None  # (set(n) -> previous) once looked up; False where there is no OpenBLAS to switch
_get_threads = None
_pool = None
_pool_size = 0
_BLOCKS_PER_THREAD = 2


_openblas_found = None  # [threadpoolctl's controller of numpy's OpenBLAS, or None] once looked up


def _openblas():
    """threadpoolctl's controller of the OpenBLAS that numpy uses, or None (looked up once)."""
    global _openblas_found
    if _openblas_found is None:
        lib = None
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            pass
        else:
            lib = next((c for c in ThreadpoolController().lib_controllers if c.internal_api == "openblas"), None)
        _openblas_found = [lib]
    return _openblas_found[0]


def _find_switch():
    """``(set(n) -> previous n, get() -> n)`` for the OpenBLAS that numpy uses, or (False, None)."""
    lib = _openblas()
    if lib is not None:
        get, put = lib.get_num_threads, lib.set_num_threads
        # OpenBLAS's own C functions where threadpoolctl finds them: 0.2 us a call against its
        # wrappers' 3 (a small product switches twice), and no wrapper that ignores a thread other
        # than the first one to set a limit (threadpoolctl 3.8; our count of regions serializes).
        if getattr(lib, "threading_layer", None) != "openmp" and hasattr(lib, "_get_symbol"):
            c_get, c_put = lib._get_symbol("openblas_get_num_threads"), lib._get_symbol("openblas_set_num_threads")
            if c_get is not None and c_put is not None:
                c_get.argtypes, c_get.restype = [], ctypes.c_int
                c_put.argtypes, c_put.restype = [ctypes.c_int], None
                get, put = c_get, c_put
        local = getattr(lib.dynlib, "openblas_set_num_threads_local", None)
        if local is not None:
            local.argtypes, local.restype = [ctypes.c_int], ctypes.c_int
            return local, get

        def switch(n, get=get, put=put):
            previous = get()
            put(n)
            return previous

        return switch, get
    return False, None


# -- products with a bias: C = bias, then C += A @ B in the one BLAS call (beta = 1) -------------------

_gemm = None  # {dtype: cblas_?gemm} once looked up
# Outputs of at least this many elements take the bias inside the product. A smaller one stays in
# cache for the add, and the call through ctypes costs more than numpy's own (a 20 x 512 LSTM
# step: 89 against 82 us with numpy's product and add).
BIAS_IN_PRODUCT = 1 << 17
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112


def _find_gemm() -> dict:
    """OpenBLAS's ``cblas_sgemm``/``cblas_dgemm`` with 64-bit integers (the ``64_``-suffixed symbols
    of numpy's own OpenBLAS: ``scipy_cblas_sgemm64_`` in numpy 2's wheels, ``cblas_sgemm64_`` in
    older ones), per dtype; empty where there are none. Symbols without the suffix are not used:
    their integer width cannot be told from outside."""
    lib = _openblas()
    found: dict = {}
    if lib is None:
        return found
    i64, ptr = ctypes.c_int64, ctypes.c_void_p
    for dtype, scalar, letter in ((np.dtype(np.float32), ctypes.c_float, "s"),
                                  (np.dtype(np.float64), ctypes.c_double, "d")):
        for prefix in ("scipy_", ""):
            fn = getattr(lib.dynlib, f"{prefix}cblas_{letter}gemm64_", None)
            if fn is not None:
                fn.argtypes = [i64, i64, i64, i64, i64, i64, scalar, ptr, i64, ptr, i64, scalar, ptr, i64]
                fn.restype = None
                found[dtype] = fn
                break
    return found


def _layout(m):
    """``(transpose flag, leading dimension)`` of a 2-D numpy matrix for a row-major BLAS call, or
    None when neither of its axes has unit stride."""
    it = m.itemsize
    s0, s1 = m.strides
    if s1 == it and s0 % it == 0 and s0 >= m.shape[1] * it:
        return _NO_TRANS, s0 // it
    if s0 == it and s1 % it == 0 and s1 >= m.shape[0] * it:
        return _TRANS, s1 // it
    return None


def biased_product(a, b, out, bias=None) -> None:
    """``out[...] = a @ b + bias`` for numpy matrices (``bias`` a row, or None): the bias is written
    first and the product added to it in the same BLAS call (``beta = 1``), where numpy's OpenBLAS
    has one and the dtypes agree; else a product and an add. The output is then not read and
    written once more (a language model's 700 x 10 000 logits plus their bias: 16.3 against
    9.6 ms, the product alone 9.5). Rounding may differ from the product-then-add in the last
    bit where BLAS splits the inner dimension, as TF's fused ``MatMul`` + ``BiasAdd`` does."""
    global _gemm
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"matmul: inner dimensions differ: {a.shape} and {b.shape}")
    if bias is not None and out.size >= BIAS_IN_PRODUCT and a.shape[1]:
        if _gemm is None:
            _gemm = _find_gemm()
        fn = _gemm.get(out.dtype)
        if (fn is not None and a.dtype == b.dtype == out.dtype and out.strides[1] == out.itemsize
                and out.strides[0] >= out.shape[1] * out.itemsize):
            la, lb = _layout(a), _layout(b)
            if la is not None and lb is not None:
                out[...] = bias
                m, n = out.shape
                fn(_ROW_MAJOR, la[0], lb[0], m, n, a.shape[1], 1.0, a.ctypes.data, la[1], b.ctypes.data, lb[1],
                   1.0, out.ctypes.data, out.strides[0] // out.itemsize)
                return
    np.matmul(a, b, out=out)
    if bias is not None:
        np.add(out, bias, out=out)


def add_and_finish(out, bias, finish):
    """``out`` plus ``bias`` (in place), then ``finish(out)``."""
    if bias is not None:
        np.add(out, bias, out=out)
    if finish is not None:
        finish(out)
    return out


class _SerialBlas:
    """Context: OpenBLAS runs on the calling thread alone while any is entered (process-wide)."""

    __slots__ = ("switched",)

    def __enter__(self):
        global _in_flight, _saved
        self.switched = _threads() > 1  # also finds the switch; nothing to do for a pool of one
        if self.switched:
            with _lock:
                if _in_flight == 0:
                    _saved = _switch(1)
                _in_flight += 1

    def __exit__(self, *exc):
        global _in_flight
        if self.switched:
            with _lock:
                _in_flight -= 1
                if _in_flight == 0:
                    _switch(_saved)


def _threads() -> int:
    """The BLAS pool's size as configured (``intra_op_parallelism_threads``, OPENBLAS_NUM_THREADS)."""
    global _switch, _get_threads
    if _switch is None:
        _switch, _get_threads = _find_switch()
    return _get_threads() if _switch else 1


# oneDNN's teams follow the pool (looked up at each call, so a test's patched _threads counts too).
_onednn.pool_threads = lambda: _threads()


def _run_blocks(blocks: list, body, threads: int) -> None:
    """``body(block)`` for each block, taken in turn by the calling thread and ``threads - 1``
    helpers (a thread the OS holds back delays one block, not the others), BLAS single-threaded.

    The calling thread never waits for a helper that has not started (busy with another run's
    blocks): it takes the blocks itself and withdraws the helper's task. The first error stops
    the hand-out and is raised."""
    pending = iter(blocks)
    take = threading.Lock()
    failed: list = []

    def work():
        while not failed:
            with take:
                block = next(pending, None)
            if block is None:
                return
            try:
                body(block)
            except BaseException as e:
                failed.append(e)
                raise

    pool = _helpers(threads - 1)
    with _SerialBlas():
        helpers = [pool.submit(work) for _ in range(min(threads, len(blocks)) - 1)]
        try:
            work()
        finally:
            for h in helpers:
                if not h.cancel():
                    h.exception()  # waits; its error, if any, is in failed
    if failed:
        raise failed[0]


def _splits(n: int, parts: int) -> list:
    step = -(-n // max(1, min(n, parts)))
    return [slice(i, i + step) for i in range(0, n, step)]


def _parallel(a, b, threads: int, bias=None, finish=None):
    """``a @ b`` in row or column blocks (along its longer side), each one BLAS call; ``bias`` (a
    row) added and ``finish`` applied to each block in place, as it is made."""
    out = np.empty((a.shape[0], b.shape[1]), dtype=np.result_type(a, b))
    parts = _BLOCKS_PER_THREAD * threads
    if out.shape[0] >= out.shape[1]:
        blocks = [(rows, slice(None)) for rows in _splits(out.shape[0], parts)]
    else:
        blocks = [(slice(None), cols) for cols in _splits(out.shape[1], parts)]

    def body(block):
        rows, cols = block
        part = out[rows, cols]
        biased_product(a[rows], b[:, cols], part, None if bias is None else bias[cols])
        if finish is not None:
            finish(part)

    _run_blocks(blocks, body, threads)
    return out


def in_blocks(a, b):
    """``a @ b`` of two numpy matrices in blocks over the BLAS pool's threads, each block on one
    BLAS thread, whatever its size: after a product on OpenBLAS's own threads they spin on for a
    while and take a core from the kernels that follow."""
    threads = _threads()
    return _parallel(a, b, threads) if threads > 1 else a @ b


def over_batch(n: int, work: int, body) -> None:
    """``body(rows)`` over blocks of ``range(n)`` (a batch) that together cover it: in parallel over
    the BLAS pool's threads when ``work`` (multiply-adds) is large, else once with all rows.

    For kernels whose batch elements are independent (a convolution's im2col, products and
    scatters): each block's memory traffic runs in parallel too, not only its products. Small
    work runs on the calling thread with BLAS single-threaded, as ``matmul``'s small products."""
    threads = _threads() if work > _OPENBLAS_SERIAL else 1
    if threads <= 1:
        body(slice(0, n))
    elif work < SERIAL_PRODUCT or n == 1:
        with _SerialBlas():
            body(slice(0, n))
    else:
        _run_blocks(_splits(n, _BLOCKS_PER_THREAD * threads), body, threads)


PARALLEL_ELEMENTS = 1 << 20  # element-wise chains over at least this many elements use the BLAS pool's threads
_PARALLEL_SUB_ELEMENTS = 1 << 17  # and each thread's share goes in blocks of about this many


def over_elements(size: int, body, block: int = 1 << 15, unit: int = 1) -> None:
    """``body(span)`` over slices of ``range(size)`` that cover it, each unit ``unit`` elements
    (a row of a matrix, say): an element-wise chain of numpy calls then runs each step on a block
    that stays in cache instead of streaming whole arrays through memory once per step (an Adam
    update of 3.2 M floats: 17.7 -> 10.9 ms).

    Small work goes in blocks of ``block`` units on the calling thread. From
    ``PARALLEL_ELEMENTS`` elements, the units go in ``_BLOCKS_PER_THREAD`` shares per thread of
    the BLAS pool (``_run_blocks``: a helper the OS holds back costs nothing, the calling thread
    takes its share), each in blocks of about ``_PARALLEL_SUB_ELEMENTS``: blocks of a dozen
    short numpy calls in two threads mostly hand the GIL to each other (an Adam update: 11.5
    against 9.7 ms in one), blocks four times larger do not (a 700 x 10 000 sparse softmax
    cross-entropy: 7.6-8.3 against 12.7-14.3 ms on an idle 2-core machine)."""
    if size == 0:
        body(slice(0, 0))
        return
    threads = _threads() if size * unit >= PARALLEL_ELEMENTS else 1
    if threads <= 1:
        for start in range(0, size, block):
            body(slice(start, start + block))
        return
    sub = max(block, _PARALLEL_SUB_ELEMENTS // unit, 1)

    def share(span):
        for start in range(span.start, min(span.stop, size), sub):
            body(slice(start, min(start + sub, span.stop)))

    _run_blocks(_splits(size, _BLOCKS_PER_THREAD * threads), share, threads)


def in_shares(ufunc, *operands):
    """``ufunc(*operands)``, over shares of the result's first axis on the BLAS pool's threads
    when an operand has ``PARALLEL_ELEMENTS`` or more numeric elements (a language model's
    700 x 10 000 logits plus their bias: 5.3 ms in one thread); else one call. Operands that
    span the first axis are sliced, the others (scalars, broadcast rows) go whole."""
    for o in operands:  # the common case first, cheaply: no operand that large
        if type(o) is np.ndarray and o.size >= PARALLEL_ELEMENTS:
            break
    else:
        return ufunc(*operands)
    arrays = [o for o in operands if type(o) is np.ndarray]
    if (any(type(o) is not np.ndarray and not np.isscalar(o) for o in operands)
            or any(a.dtype.kind not in "biuf" for a in arrays)):
        return ufunc(*operands)  # CuPy arrays, strings, objects, subclasses: as they are
    shape = np.broadcast_shapes(*(np.shape(o) for o in operands))
    size = int(np.prod(shape))
    if size < PARALLEL_ELEMENTS or shape[0] < 2 or _threads() <= 1:
        return ufunc(*operands)
    # The result dtype as numpy resolves it for these operands (Python scalars stay weak).
    dtype = ufunc(*(o.reshape(-1)[:1] if isinstance(o, np.ndarray) else o for o in operands)).dtype
    out = np.empty(shape, dtype)
    spans = [isinstance(o, np.ndarray) and o.ndim == len(shape) and o.shape[0] == shape[0] for o in operands]

    def body(rows):
        ufunc(*(o[rows] if span else o for o, span in zip(operands, spans)), out=out[rows])

    over_elements(shape[0], body, block=shape[0], unit=size // shape[0])
    return out


def ufunc_kernel(ufunc):
    """The ``make_kernel`` of an op that runs ``ufunc``: the ufunc itself when the op's output
    has a static size under ``PARALLEL_ELEMENTS`` (a small step's ops pay no Python wrapper),
    else ``in_shares`` around it."""
    import functools

    def make_kernel(op, resources):
        n = op.outputs[0].shape.num_elements()
        if n is not None and n < PARALLEL_ELEMENTS:
            return ufunc
        return functools.partial(in_shares, ufunc)

    return make_kernel


SUM_BY_PRODUCT = 1 << 16  # leading-axis sums of at least this many elements go through BLAS


def sum_leading_axes(a, k: int):
    """``a.sum(axis=tuple(range(k)))`` as one product ``ones @ a`` (rows by columns), for a
    contiguous float32 or float64 numpy array of ``SUM_BY_PRODUCT`` elements or more; else None.

    numpy sums along a leading axis one row after another, 32 or 64 columns a call: a BiasAdd
    gradient of 64 x 28 x 28 x 32 took 1.4 ms, the product 0.22 ms on one thread, and BLAS's
    blocked sums are the more accurate (3e-4 against 5e-3 off the float64 sum, on 50 176 rows)."""
    if (type(a) is not np.ndarray or a.dtype not in _SUMMABLE or a.size < SUM_BY_PRODUCT or not 0 < k < a.ndim
            or not a.flags.c_contiguous):
        return None
    rows = int(np.prod(a.shape[:k]))
    table = a.reshape(rows, -1)
    # On the calling thread: OpenBLAS's own threads would spin on after the product, taking a core
    # from the step's next kernels (the CNN's step went from 80 to 120 ms).
    with _SerialBlas():
        return (np.ones((1, rows), a.dtype) @ table).reshape(a.shape[k:])


_SUMMABLE = (np.dtype(np.float32), np.dtype(np.float64))


def _helpers(n: int):
    global _pool, _pool_size
    with _lock:
        if _pool_size < n:
            from concurrent.futures import ThreadPoolExecutor

            _pool, _pool_size = ThreadPoolExecutor(n, thread_name_prefix="dflow-blas"), n
        return _pool


def _after_fork_in_child() -> None:
    """A forked child has none of the parent's threads: a new pool and lock on first use, and
    BLAS's thread count as configured if the fork came inside a single-thread region."""
    global _pool, _pool_size, _lock, _in_flight
    _pool, _pool_size, _lock = None, 0, threading.Lock()
    if _in_flight and _switch:
        _switch(_saved)
    _in_flight = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _swapped_is_faster(a, b) -> bool:
    """Whether ``(b.T @ a.T).T`` beats ``a @ b`` on one thread: ``b`` a transposed matrix (a
    gradient's ``grad @ w.T``) and ``a`` the shorter side. OpenBLAS's small-M kernel reads a
    transposed ``b`` slowly: 20 × 512 @ (256 × 512).T took 173 µs, swapped 97 (the LSTM's
    backward step, 70 times a training step)."""
    return (b.flags.f_contiguous and not b.flags.c_contiguous and a.flags.c_contiguous
            and a.shape[0] < b.shape[1] and a.shape[1] >= 128)


def matmul(a, b, bias=None, finish=None):
    """``a @ b``: a product of two matrices on one BLAS thread when small, in blocks over the
    pool's threads when large, OpenBLAS's own threads between; anything else (batches,
    vectors, CuPy) as numpy's ``@``.

    ``bias`` (a row, for a numpy product of two matrices) is added to every row and ``finish``
    (an in-place function of a block, an activation) applied to the result: block by block
    while each is fresh, with the bias added inside the product (``biased_product``). They are
    a fused op's (``dflow.sessions.fusion``)."""
    matrices = type(a) is np.ndarray and a.ndim == 2 and type(b) is np.ndarray and b.ndim == 2
    if matrices:
        work = a.shape[0] * a.shape[1] * b.shape[1]
        if ((work >= BLOCKED_PRODUCT or (a.shape[1] <= THIN_PRODUCT and work >= THIN_PRODUCT * _THIN_OUTPUT)
             or (work >= SERIAL_PRODUCT and _onednn.layers_on_teams()))
                and a.dtype == b.dtype == np.float32 and a.shape[1] == b.shape[0]
                and (bias is None or type(bias) is np.ndarray)):
            # oneDNN's products (TF's) from here: the CNN's 64 x 3136 x 1024 dense layer 2.1 ms against
            # 3.5 in blocks. Smaller ones stay on OpenBLAS (256 x 512 x 512 took 1.26 ms against 0.72,
            # and a transposed operand up to 2.4 times as long, oneDNN 3.2) unless thin, or once
            # layers run on oneDNN's teams (_onednn.layers_on_teams).
            out = _onednn.matmul(a, b, bias, finish)
            if out is not None:
                return out
        if work > _OPENBLAS_SERIAL and a.shape[1] == b.shape[0] and (work < SERIAL_PRODUCT or work >= BLOCKED_PRODUCT):
            threads = _threads()
            if threads > 1:
                if work < SERIAL_PRODUCT:
                    with _SerialBlas():
                        if _swapped_is_faster(a, b):
                            out = np.ascontiguousarray((b.T @ a.T).T)
                            return out if bias is None and finish is None else add_and_finish(out, bias, finish)
                        if bias is None and finish is None:
                            return a @ b
                        return add_and_finish(_biased(a, b, bias), None, finish)
                return _parallel(a, b, threads, bias, finish)
    if bias is None and finish is None:
        return a @ b
    if matrices and type(bias) is np.ndarray:
        return add_and_finish(_biased(a, b, bias), None, finish)
    return add_and_finish(a @ b, bias, finish)


def _biased(a, b, bias):
    out = np.empty((a.shape[0], b.shape[1]), dtype=np.result_type(a, b))
    biased_product(a, b, out, bias)
    return out
