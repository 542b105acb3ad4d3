"""Running large independent ops beside a loop (TF's inter-op parallelism, where it pays).

A ``tf.while_loop`` (``While``, ``Scan``) or its gradient (``WhileGrad``, ``ScanGrad``) runs
its steps one after another on the calling thread, mostly in Python: one core. TF1 runs the
graph's other ready ops on the other core meanwhile. A language model's gradient of its
softmax weights (700 x 10 000 x 128) and of their bias do not depend on the loop's gradient,
but a program in order would run them after it.

When a partition's program is compiled, each op that

* comes after such a loop in the program, does not depend on it, and reads only values made
  before it or constants (and waits by control edges only for ops before it);
* is one of ``KERNELS``: products and reductions whose kernels run numpy and BLAS, nothing
  that blocks, runs a sub-program or has state;
* has an input or output of ``LARGE`` elements or more (static shapes),

is started on a background thread just before the loop and joined where it stood. The
background ops of a program run one after another, in program order, on one thread shared by
all programs (``dflow-overlap``). A background op's error is raised where it is joined, as its
own. The values it reads stay referenced until it ends, so an in-place update in between
copies instead (``resources.update_in_place``). ``DFLOW_OVERLAP=0`` turns it off.
"""

from __future__ import annotations

import os
import threading
import time

LOOPS = ("While", "WhileGrad", "Scan", "ScanGrad")
KERNELS = ("MatMul", "BatchMatMulV2", "SumToShape", "BiasAddGrad", "Sum", "L2Loss", "Conv2D",
           "Conv2DBackpropInput", "Conv2DBackpropFilter")
LARGE = 1 << 20  # elements: work of a millisecond or more, against ~50 us to hand an op over

_lock = threading.Lock()
_executor = None


def enabled() -> bool:
    return os.environ.get("DFLOW_OVERLAP", "1") != "0"


def background():
    """The one thread that runs background ops (made on first use, and anew in a forked child)."""
    global _executor
    with _lock:
        if _executor is None:
            from concurrent.futures import ThreadPoolExecutor

            from dflow.kernels import onednn as _onednn

            _executor = ThreadPoolExecutor(1, thread_name_prefix="dflow-overlap",
                                           initializer=_onednn.one_thread_here)
        return _executor


def _after_fork_in_child() -> None:
    global _executor, _lock
    _executor, _lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _large(op) -> bool:
    for t in (*op._inputs, *op._outputs):
        n = t.shape.num_elements()
        if n is not None and n >= LARGE:
            return True
    return False


def plan_overlap(partition, steps: list, fusions: dict) -> dict:
    """``{loop position: [positions of the ops to start before it]}`` for ``partition``'s program,
    whose statements are ``steps`` (``program._statements``: None for an op absorbed into one of
    ``fusions``). Fused ops and GPU partitions stay as they are."""
    ops = partition.ops
    if not enabled() or "GPU" in (partition.device or "").upper() or not any(op._type in LOOPS for op in ops):
        return {}
    made_at: dict = {}
    for i, step in enumerate(steps):
        if step is not None:
            for t in step[1]:
                made_at[t] = i
    position = {op: i for i, op in enumerate(ops)}
    started: dict = {}
    taken = set()
    for loop, op in enumerate(ops):
        if op._type not in LOOPS or steps[loop] is None:
            continue
        for s in range(loop + 1, len(ops)):
            other = ops[s]
            step = steps[s]
            if (s in taken or step is None or s in fusions or other._type not in KERNELS
                    or other._opdef.stateful or other._opdef.uses_context):
                continue
            if any(made_at.get(t, -1) >= loop and t._op._type != "Const" for t in step[0]):
                continue  # reads the loop's outputs, or a value made after the loop started
            if any(position.get(c, -1) >= loop for c in other._control_inputs):
                continue
            if not _large(other):
                continue
            started.setdefault(loop, []).append(s)
            taken.add(s)
    return started


def timed(position: int, stats: list, describe, kernel, *args):
    """``kernel(*args)``, its start, end and ``describe(outputs, args)`` (``program.describe_*``)
    appended to a traced run's ``stats``."""
    start = time.time_ns()
    out = kernel(*args)
    end = time.time_ns()
    stats.append((position, start, end, describe(out, args)))
    return out
