"""Matrix products with BLAS threads sized to their work, as TF1's cost model sizes its Eigen pool.

numpy's OpenBLAS splits every product above ~262 K multiply-adds over all its
threads. A product of a few million (an LSTM step at batch 20: 20 × 256 × 512)
gains nothing from a second thread on an idle machine (54 against 58 µs), and
when other processes share the cores the threads wait for each other: the
same product then took 0.6 - 2.5 ms instead of 57 µs, and the 140 such
products of a PTB-small training step dominated it. ``matmul`` runs products
under ``SMALL_PRODUCT`` multiply-adds on the calling thread alone; larger
ones keep the pool (two threads: 2.1 against 3.8 ms for 64 × 3136 × 1024).

The switch is OpenBLAS's ``openblas_set_num_threads_local`` override (or
``openblas_set_num_threads`` where that is missing), process-wide: a count
of the small products in flight keeps it on until the last one ends, so
concurrent runs cannot leave it set. Other BLAS libraries and CuPy arrays
multiply as ``a @ b``.
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

SMALL_PRODUCT = 1 << 23  # multiply-adds: 1 thread below (measured crossover 5 - 16 M on 2 cores)
_OPENBLAS_SERIAL = 1 << 18  # OpenBLAS itself runs products up to 4 × 65536 multiply-adds on one thread

_lock = threading.Lock()
_in_flight = 0
_saved = 0
_switch = None  # (set(n) -> previous) once looked up; False where there is no OpenBLAS to switch


def _find_switch():
    """``set(n) -> previous n`` for the OpenBLAS that numpy uses, or False."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return False
    for lib in ThreadpoolController().lib_controllers:
        if lib.internal_api != "openblas":
            continue
        local = getattr(lib.dynlib, "openblas_set_num_threads_local", None)
        if local is not None:
            local.argtypes, local.restype = [ctypes.c_int], ctypes.c_int
            return local

        def switch(n, lib=lib):
            previous = lib.get_num_threads()
            lib.set_num_threads(n)
            return previous

        return switch
    return False


def _serial(a, b):
    global _in_flight, _saved, _switch
    if _switch is None:
        _switch = _find_switch()
    if not _switch:
        return a @ b
    with _lock:
        if _in_flight == 0:
            _saved = _switch(1)
        _in_flight += 1
    try:
        return a @ b
    finally:
        with _lock:
            _in_flight -= 1
            if _in_flight == 0:
                _switch(_saved)


def matmul(a, b):
    """``a @ b`` of two matrices, on one BLAS thread when the product is small."""
    if type(a) is np.ndarray and a.ndim == 2 and b.ndim == 2:
        work = a.shape[0] * a.shape[1] * b.shape[1]
        if _OPENBLAS_SERIAL < work < SMALL_PRODUCT:
            return _serial(a, b)
    return a @ b
