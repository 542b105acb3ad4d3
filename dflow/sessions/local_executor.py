"""Runs lowered task graphs in-process with Dask's local schedulers.

A plan of one partition (a run on one device, the common case) lowers to a
single task with no dependencies; it is called inline, which is what any
Dask scheduler does with such a graph, minus its ~60-300 µs of bookkeeping.
Plans of several partitions are lowered and given to ``dask.threaded.get``,
so that partitions of different devices overlap.
"""

from __future__ import annotations

import dask.threaded

from dflow.ops.state.resources import SessionResources
from dflow.placement.placer import LOCAL_CPU
from dflow.sessions.lowering import lower
from dflow.sessions.program import PartitionProgram, to_gpu, to_host


class LocalRuntime:
    """The devices of this process, the session's resources, and how to run a
    plan's partitions on them."""

    def __init__(self, num_threads: int = 0):
        self.num_threads = num_threads or None
        self._gpus = None
        self.resources = SessionResources()
        self.topology_version = 0  # the devices of this process never change

    def compile(self, partition, sources, partitions) -> PartitionProgram:
        return PartitionProgram(partition, sources, self.resources, _converter(partition, partitions, sources))

    def close(self) -> None:
        self.resources.clear()

    @property
    def default_device(self) -> str:
        return LOCAL_CPU

    def devices(self, want_gpu: bool = False) -> list:
        if want_gpu and self._gpus is None:
            self._gpus = _local_gpus()
        return [LOCAL_CPU] + (self._gpus or [])

    def describe_devices(self) -> str:
        return "\n".join(self.devices(True))

    def run_loop(self, partitions, programs, ctx, should_stop) -> bool:
        """In-process runs have no remote worker to loop on: the session loops (False)."""
        return False

    def run(self, partitions, programs, feeds: tuple, token: str, traced: bool = False, ctx=None) -> list:
        """Runs a planned step; returns each partition's tuple of outputs."""
        if len(programs) == 1:
            # The lowering of one partition is one task with no dependencies:
            # call it, as the scheduler would.
            program = programs[0]
            return [program.traced(ctx, feeds) if traced else program(ctx, feeds)]
        dsk, keys = lower(partitions, programs, feeds, token, traced, ctx)
        try:
            return list(dask.threaded.get(dsk, keys, num_workers=self.num_threads))
        except BaseException as e:
            if ctx is not None:  # wake partitions still blocked in other threads
                ctx.cancel(f"another part of the run failed: {type(e).__name__}")
            raise


def _converter(partition, partitions, sources):
    """The input conversion a partition needs, if any (host <-> GPU)."""
    if "GPU" in partition.device:
        return to_gpu
    from_gpu = any(src[0] == "up" and "GPU" in partitions[partition.upstream[src[1]]].device for src in sources)
    return to_host if from_gpu else None


def _local_gpus() -> list:
    try:
        import cupy
    except ImportError:
        return []
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # no driver, no device
        return []
    return [f"/job:localhost/replica:0/task:0/device:GPU:{i}" for i in range(n)]
