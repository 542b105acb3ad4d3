"""Read-ahead: a training step's variable reads come back with the previous step's update.

A between-graph training step on a parameter server is three partitions:
read the variables on the ps, compute the gradients on the worker, apply
them on the ps. The call that runs the apply names the read partition, and
the ps runs it right after the apply and returns its outputs in the same
reply (``worker_state._read_ahead``). The next run of the same plan takes
them instead of calling the ps (``ReadAhead.take``) when

* it is the next cluster run of this process: no run of any session or
  thread came between (``RUNS`` numbers them), so nothing this process did
  or saw since is missed; and
* they are at most ``dflow.cluster.read-ahead`` old (default 10 ms).

Only partitions made solely of variable reads qualify (``pure_read``), and
only the last partition of their device that depends on them reads them
again (``source``): in synchronous training, the one that ends with the
token dequeue, so the values come after the chief's update.
"""

from __future__ import annotations

import itertools
import time

RUNS = itertools.count(1)  # numbers every cluster run of this process

# Op types a read-ahead partition may hold: reading variables has no effect, so reading
# them once more after a step's update (and not using the values) changes nothing.
_PURE_READ_OPS = frozenset({"VariableV2", "Variable", "_ReadVariable", "Identity", "Const"})


def pure_read(partition) -> bool:
    """Whether a partition only reads variables: no inputs, nothing upstream, outputs to return."""
    return (not partition.inputs and not partition.upstream and bool(partition.outputs)
            and all(op.type in _PURE_READ_OPS for op in partition.ops))


def source(partitions, i: int):
    """The pure-read partition that partition ``i`` may read again after it runs (the read-ahead):
    one of its device that it depends on, when no later partition of that device depends on it
    too; None when there is none."""
    device = partitions[i].device
    later = [j for j in range(i + 1, len(partitions)) if partitions[j].device == device]
    for r in range(i):
        if (partitions[r].device == device and pure_read(partitions[r]) and _depends_on(partitions, i, r)
                and not any(_depends_on(partitions, j, r) for j in later)):
            return r
    return None


def _depends_on(partitions, j: int, r: int) -> bool:
    stack, seen = list(partitions[j].upstream), set()
    while stack:
        u = stack.pop()
        if u == r:
            return True
        if u not in seen:
            seen.add(u)
            stack.extend(partitions[u].upstream)
    return False


def window() -> float:
    """Seconds a read-ahead stays usable: ``dflow.cluster.read-ahead`` (a duration, default
    10ms; 0 or False turns read-ahead off)."""
    import dask
    from dask.utils import parse_timedelta

    setting = dask.config.get("dflow.cluster.read-ahead", "10ms")
    if setting is False or setting is None:
        return 0.0
    try:
        return float(parse_timedelta(setting, default="ms"))
    except (TypeError, ValueError, KeyError):
        raise ValueError(f"dask config dflow.cluster.read-ahead must be a duration such as '10ms' or False, "
                         f"got {setting!r}") from None


class ReadAhead:
    """A session's read-aheads: the outputs of read partitions that came with an earlier reply."""

    def __init__(self):
        self.window_s = window()
        self._values: dict = {}  # read partition key -> (its outputs, when they came, the run that asked)
        self._misses: dict = {}  # read partition key -> read-aheads not used in a row
        self.used = 0  # runs that took their reads from the previous run's reply

    def keep(self, key: str, values, seq: int) -> None:
        self._values[key] = (values, time.monotonic(), seq)

    def take(self, key: str, seq: int):
        """The outputs that the previous run read ahead for the read partition ``key``, when they
        may stand for reading now: that run was this process's latest cluster run before this
        one (no run of this process, in any thread, came between to change or observe the
        variables) and they came back less than the read-ahead window ago. None otherwise."""
        entry = self._values.pop(key, None)
        if entry is None:
            return None
        values, at, asked_by = entry
        if asked_by == seq - 1 and time.monotonic() - at <= self.window_s:
            self._misses[key] = 0
            self.used += 1
            return values
        self._misses[key] = self._misses.get(key, 0) + 1
        return None

    def wants(self, key: str, seq: int) -> bool:
        """Whether to ask for a read-ahead of ``key``: yes unless the last two went unused (the
        program does other work between its steps), and then once in 64 runs to look again."""
        return self._misses.get(key, 0) < 2 or seq % 64 == 0
