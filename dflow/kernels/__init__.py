"""Array kernels: pure array code, below the graph.

Everything in this package takes arrays and returns arrays. It imports nothing
from dflow's graph layer (``framework``, ``ops``, ``sessions``, ...), so it can
be read, tested and benchmarked on plain numpy values.

* ``onednn`` and ``dnnl``: convolutions, pooling and products on oneDNN (TF's CPU
  kernels), with ``blas`` routing products between oneDNN and numpy's BLAS;
* ``numba_loops``: fused loops (Adam, ReluGrad) compiled with Numba;
* ``philox``: TF's counter-based random numbers, bit for bit;
* ``special`` and ``bessel``: special functions numpy lacks;
* ``crc32c``: the checksum of TFRecord files and event files.

The interface op blocks use
---------------------------
A kernel of an op block (``dflow/ops/...``) receives the arrays of its inputs.
It asks this package which array module they live in and computes with that
module, so one kernel serves numpy (CPU devices) and CuPy (GPU devices)::

    from dflow.kernels import array_module

    def _relu_kernel(x):
        xp = array_module(x)      # numpy, or cupy for a CuPy array
        return xp.maximum(x, 0)

``array_module`` is where another backend plugs in: an array type whose module
is not numpy's names its module here. ``to_host`` brings any such array back
to numpy where a kernel needs host memory (encoding a summary, a protobuf).
Specialised kernels (``onednn``, ``numba_loops``) say themselves whether they
apply (``usable(...)``/``why_not()``); an op block tries them first and falls
back to its ``array_module`` code.
"""

from __future__ import annotations

import sys

import numpy as np


def array_module(*arrays):
    """numpy, or cupy when any argument is a CuPy array (found without importing cupy).

    >>> array_module(np.zeros(2)) is np
    True
    """
    for a in arrays:
        if type(a).__module__.startswith("cupy"):
            return sys.modules["cupy"]
    return np


def to_host(array) -> np.ndarray:
    """``array`` as a numpy array: a CuPy array is copied from its GPU, anything else goes through ``np.asarray``."""
    if type(array).__module__.startswith("cupy"):
        return array.get()
    return np.asarray(array)
