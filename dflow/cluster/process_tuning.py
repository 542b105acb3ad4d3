"""What a process that runs dflow kernels sets up: its allocator and its BLAS threads.

**Allocator.** Training kernels make megabytes of temporaries every step
(activations, gradients), and cluster messages bring megabytes of tensors.
In a thread other than the main one (a cluster session runs its in-process
partitions on the Dask client's event loop thread) glibc serves them from a
per-thread heap that it grows and shrinks around each allocation, so every
step pays fresh page faults: the 784-512-512-10 MLP's gradients took 8-9 ms
there against 5 ms in the main thread. ``tune_allocator`` keeps 16 MiB of
slack at the top of the heaps (``M_TOP_PAD``) and pins the mmap threshold at
32 MiB, glibc's own adaptive maximum (setting the pad alone freezes the
threshold at 128 KiB, and two-worker MLP training fell from 84 to 57
steps/s; with both it rose to 102). It also lets 256 MiB of free memory stay
at the top of a heap before glibc gives it back (``M_TRIM_THRESHOLD``; glibc's
default is 128 KiB): a step that frees and again allocates tens of megabytes
(an LSTM language model's 700 x 10 000 logits and their gradients) otherwise
pays the page faults anew each time, 1 500 - 1 800 a step and 18 - 20 ms of
system time in a 100 - 125 ms step, against 3 faults with it. TF1's allocator
keeps what it took, too. It runs once per process; a ``MALLOC_TOP_PAD_``,
``MALLOC_MMAP_THRESHOLD_`` or ``MALLOC_TRIM_THRESHOLD_`` in the environment is
the user's choice and wins (Dask's nanny sets the last for its workers).

**BLAS threads.** numpy's BLAS starts a thread per core in every process,
and its idle threads spin. Several task processes on one host (a ps and two
workers on a laptop) then fight for the cores: the MLP's two-worker
asynchronous training ran 17 steps/s with two BLAS threads per process on 2
cores and 77 with one. TF1 sizes its pools with
``ConfigProto.intra_op_parallelism_threads``; dflow does the same for the
process's BLAS and OpenMP pools (through ``threadpoolctl``), and a
``tf.train.Server`` whose config leaves it at 0 gets its share of the
host's cores: the cores divided by the cluster spec's compute tasks (those
outside the ``ps`` and ``scheduler`` jobs) on its host.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading

TOP_PAD_BYTES = 16 << 20
MMAP_THRESHOLD_BYTES = 32 << 20  # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit
TRIM_THRESHOLD_BYTES = 256 << 20
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3  # glibc's malloc.h
_LOCK = threading.Lock()
_allocator_tuned: bool | None = None
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0", ""}


def tune_allocator() -> bool:
    """Sets glibc's heap slack (``M_TOP_PAD``) and mmap threshold, once per process; whether they are set."""
    global _allocator_tuned
    with _LOCK:
        if _allocator_tuned is None:
            _allocator_tuned = _set_heap_options()
        return _allocator_tuned


def _set_heap_options() -> bool:
    if not sys.platform.startswith("linux") or any(
            os.environ.get(name) is not None for name in ("MALLOC_TOP_PAD_", "MALLOC_MMAP_THRESHOLD_")):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    # Setting any of these freezes glibc's otherwise adaptive mmap threshold at its
    # 128 KiB start: pin it at the adaptive maximum instead, or every buffer of a
    # few MiB (a message's tensors) would be fresh pages from the OS.
    if mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) != 1 or mallopt(_M_TOP_PAD, TOP_PAD_BYTES) != 1:
        return False
    return os.environ.get("MALLOC_TRIM_THRESHOLD_") is not None or mallopt(_M_TRIM_THRESHOLD,
                                                                           TRIM_THRESHOLD_BYTES) == 1


def cpu_count() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def set_compute_threads(n: int):
    """Sizes this process's BLAS and OpenMP thread pools to ``n`` threads (process-wide).

    Returns what ``restore_compute_threads`` takes to put back the sizes before."""
    if n < 1:
        raise ValueError(f"intra_op_parallelism_threads must be positive to size the pools, got {n}")
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=int(n))


def restore_compute_threads(limits) -> None:
    """Puts back the pool sizes from before ``set_compute_threads`` returned ``limits`` (None: nothing)."""
    if limits is not None:
        limits.restore_original_limits()


def compute_threads() -> int | None:
    """The threads of this process's BLAS pool (the largest, when several are loaded)."""
    from threadpoolctl import threadpool_info

    counts = [pool["num_threads"] for pool in threadpool_info() if pool.get("user_api") == "blas"]
    return max(counts) if counts else None


def _host(address: str) -> str:
    """The host of ``[proto://]host[:port]`` ("local" for this machine's names)."""
    host = address.rsplit("://", 1)[-1]
    if host.startswith("["):  # [v6]:port
        host = host[1:host.index("]")]
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    host = host.lower()
    return "local" if host in _LOCAL_HOSTS or host == _own_hostname() else host


def _own_hostname() -> str:
    import socket

    return socket.gethostname().lower()


def host_share(cluster_spec, job: str, task: int, cores: int | None = None) -> int | None:
    """The BLAS threads a task of ``cluster_spec`` gets by default: its host's cores
    divided by the compute tasks (outside ``ps`` and ``scheduler``) on that host;
    None when it is the only one (the library's own default stands)."""
    from dflow.cluster.cluster_spec import SCHEDULER_JOB

    cores = cores or cpu_count()
    try:
        own = _host(cluster_spec.task_address(job, task))
    except (KeyError, ValueError):
        return None
    sharing = sum(1 for j in cluster_spec.jobs if j not in ("ps", SCHEDULER_JOB)
                  for t in cluster_spec.task_indices(j) if _host(cluster_spec.task_address(j, t)) == own)
    if sharing <= 1:
        return None
    return max(1, cores // sharing)
