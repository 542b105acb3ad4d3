"""Element-wise chains compiled into one loop by Numba: the kernels where numpy's one pass per
operation costs most.

An Adam update is a dozen numpy calls (TF1's ``m += (grad - m) * (1 - beta1)``, and so on).
Even in cache-sized blocks (``training_ops.in_blocks``) each call is a pass over its operands,
and two threads running blocks of short calls hand the GIL to each other: the update of the
3136 x 1024 kernel of ``benchmarks/bench_models.py``'s CNN took 7 ms and 12 ms of CPU in two
threads. Eigen, which TF runs it on, makes it one loop; Numba does the same here (1.7 ms, 3 ms
of CPU), with the GIL released, so the BLAS pool's threads (``_blas.over_elements``) each run
one call over their share.

The loops keep TF1's arithmetic in its order, in the variable's dtype (no fused multiply-adds,
no reassociation: Numba's default, not ``fastmath``), so their results equal the numpy
kernels' bit for bit; the tests check it. Numba is a dependency of dflow; where it is missing
or ``DFLOW_NUMBA=0``, ``kernel`` returns ``None`` and the numpy kernels run. Each loop is
compiled on its first use, for each dtype, and kept in Numba's on-disk cache (``cache=True``):
about 0.5 s once, then a few milliseconds in each new process.

What runs here: numpy float32 and float64 arrays, C-contiguous, of at least ``ELEMENTS``
elements (below that numpy's calls cost little and the numpy kernels run).
"""
from __future__ import annotations

import contextlib
import os
import threading

import numpy as np

from dflow.kernels import blas as _blas

ELEMENTS = 1 << 10  # arrays this large or larger go through the compiled loops

_OFF = ("0", "off", "false", "no")
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_lock = threading.Lock()
_module = None  # numba, once imported
_why_not = None  # why Numba is not used, once looked for
_compiled: dict = {}
_enabled = True


def _load():
    global _module, _why_not
    if _module is not None or _why_not is not None:
        return _module
    with _lock:
        if _module is None and _why_not is None:
            if os.environ.get("DFLOW_NUMBA", "").lower() in _OFF:
                _why_not = "DFLOW_NUMBA turns it off"
            else:
                try:
                    import numba
                except ImportError as e:  # a platform without Numba's wheels: numpy runs
                    _why_not = f"numba was not imported ({e}); install numba"
                else:
                    _module = numba
    return _module


def available() -> bool:
    """Whether the compiled loops run the kernels (importing Numba on the first call)."""
    return _enabled and _load() is not None


@contextlib.contextmanager
def disabled():
    """Within it, the kernels run on numpy in the whole process (tests, benchmarks; unlike
    ``_onednn.disabled``, which is the calling thread's: a session may run kernels on others)."""
    global _enabled
    before, _enabled = _enabled, False
    try:
        yield
    finally:
        _enabled = before


def why_not() -> str | None:
    """Why the compiled loops are not used (``None`` when they are)."""
    _load()
    return _why_not


def usable(*arrays) -> bool:
    """Whether ``arrays`` (one dtype, one size) go through the compiled loops here."""
    first = arrays[0]
    if type(first) is not np.ndarray or first.dtype not in _FLOATS or first.size < ELEMENTS:
        return False
    for a in arrays:
        if type(a) is not np.ndarray or a.dtype != first.dtype or a.size != first.size or not a.flags.c_contiguous:
            return False
    return available()



def kernel(loop):
    """``loop`` (a function of this module) compiled, the GIL released in it."""
    fn = _compiled.get(loop)
    if fn is None:
        with _lock:
            fn = _compiled.get(loop)
            if fn is None:
                njit = _module.njit
                # error_model="numpy": x / 0 gives inf or nan, as numpy's and TF's kernels
                try:
                    fn = njit(nogil=True, cache=True, error_model="numpy")(loop)
                except RuntimeError:  # no writable cache directory: compile in each process
                    fn = njit(nogil=True, error_model="numpy")(loop)
                _compiled[loop] = fn
    return fn


def run(loop, arrays, scalars=()) -> None:
    """``kernel(loop)(*flat arrays, *scalars)`` over shares of the arrays (all of one size, C
    order) on the BLAS pool's threads when large (``_blas.over_elements``): one call per share.
    ``scalars`` are converted to the arrays' dtype, so the loop computes in it (flags, ``bool``s,
    stay as they are)."""
    fn = kernel(loop)
    flat = [a.reshape(-1) for a in arrays]
    cast = arrays[0].dtype.type
    scalars = tuple(s if type(s) is bool else cast(s) for s in scalars)
    size = flat[0].size
    _blas.over_elements(size, lambda span: fn(*(a[span] for a in flat), *scalars), block=size)


# -- the loops (module-level functions, so that Numba can cache them) -------------------------

def adam_loop(var, m, v, grad, alpha, one_minus_beta1, one_minus_beta2, beta1, epsilon, nesterov):
    """TF1's ``ApplyAdam`` (``training_ops.cc``), element by element, in place. (Four arrays:
    with separate outputs, LLVM's checks that no two overlap outnumber its limit, and the loop
    runs unvectorized, 2.1 against 0.8 ns an element.)"""
    for i in range(var.shape[0]):
        g = grad[i]
        m_i = m[i] + (g - m[i]) * one_minus_beta1
        v_i = v[i] + (g * g - v[i]) * one_minus_beta2
        if nesterov:
            step = (g * one_minus_beta1 + beta1 * m_i) * alpha
        else:
            step = m_i * alpha
        m[i] = m_i
        v[i] = v_i
        var[i] = var[i] - step / (np.sqrt(v_i) + epsilon)


def relu_grad_loop(g, x, out, zero):
    """``g * (x > 0)``: ``g`` where ``x > 0``, else ``g * 0`` (nan for an infinite or nan ``g``, as TF)."""
    for i in range(g.shape[0]):
        out[i] = g[i] if x[i] > 0 else g[i] * zero
