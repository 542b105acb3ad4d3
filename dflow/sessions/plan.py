"""Planning a run: prune to what the fetches need, order, place, partition.

Each step is a pure function over the graph and plain data, tested alone:

* ``prune_to_fetches(fetch_tensors, targets, fed)`` walks back from the
  fetches through inputs and control inputs, stopping at fed tensors, and
  returns the needed ops in a topological order (a cycle is an error).
* ``partition_by_device(ops, placement, fed, outputs)`` groups ops into
  partitions: one per device, split further where needed so that the
  partitions themselves form a DAG (a value may go from CPU to GPU and back).

``build_plan`` chains them with the placer; sessions cache the result per
(fetches, feeds, targets) signature.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dflow.framework import errors
from dflow.framework.graph import Operation, Tensor
from dflow.ops.state.variables import variables_written_by


def prune_to_fetches(fetch_tensors, targets, fed, done=()) -> list:
    """The ops needed to compute ``fetch_tensors`` and run ``targets``, in order.

    A fed tensor cuts the graph: its op runs only if something else needs it. Ops in ``done``
    (a partial run's ops that already ran) are not run again: the run waits for nothing there.

    >>> import dflow as tf
    >>> g = tf.Graph()
    >>> with g.as_default():
    ...     a = tf.constant(1.0, name="a"); b = tf.constant(2.0, name="b")
    ...     c = tf.add(a, b, name="c"); d = tf.negative(b, name="d")
    >>> [op.name for op in prune_to_fetches([c], [], set())]
    ['a', 'b', 'c']
    >>> [op.name for op in prune_to_fetches([c], [], {a})]
    ['b', 'c']
    """
    order: list = []
    state: dict = dict.fromkeys(done, 2)  # op -> 1 (on the stack) or 2 (done)
    roots = [t._op for t in fetch_tensors if t not in fed] + list(targets)
    for root in roots:
        if root in state:
            continue
        stack = [(root, _deps(root, fed))]
        state[root] = 1
        while stack:
            op, it = stack[-1]
            for dep in it:
                s = state.get(dep)
                if s is None:
                    state[dep] = 1
                    stack.append((dep, _deps(dep, fed)))
                    break
                if s == 1:
                    cycle = [o.name for o, _ in stack[[o for o, _ in stack].index(dep):]]
                    raise errors.InvalidArgumentError(
                        None, dep, f"Graph is invalid, contains a cycle with {len(cycle)} nodes, including: "
                                   f"{', '.join(cycle)} (a tf.control_dependencies or _add_control_input loop)")
            else:
                stack.pop()
                state[op] = 2
                order.append(op)
    return order


def _deps(op: Operation, fed):
    for t in op._inputs:
        if t not in fed:
            yield t._op
    yield from _controls(op, fed)


def _controls(op: Operation, fed, ran=None) -> list:
    """``op``'s control inputs that a run waits for: a fed placeholder is
    replaced by its value, so waiting for it is waiting for nothing. With
    ``ran`` (the run's ops), only those: the others ran before (a partial run's)."""
    cs = op._control_inputs
    if not cs:
        return cs
    return [c for c in cs if not (c._type == "Placeholder" and c._outputs[0] in fed) and (ran is None or c in ran)]


@dataclass
class Partition:
    """Ops of one device that run as one task, in order.

    ``inputs`` are tensors it reads from feeds or other partitions;
    ``outputs`` are tensors that fetches or other partitions read from it.
    """

    device: str
    ops: list
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    upstream: list = field(default_factory=list)  # indices of partitions it waits for
    fusions: dict | None = None  # fused ops, found when its program is first compiled (sessions.fusion)
    # Ref variables (their VariableV2 ops) whose value the partition reads once more after its last op:
    # fetches that alias a variable's buffer (``alias_fetches``) come from there, after the run's updates.
    final_reads: list = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.ops[-1].name if self.ops else self.device


def partition_by_device(ops, placement: dict, fed, fetch_tensors, op_level: bool = False) -> list:
    """Groups ordered ``ops`` into partitions forming a DAG.

    An op's stage is the largest stage of its inputs, plus one where an input
    comes from another device; partitions are keyed by (device, stage), so
    every edge between partitions goes to a higher stage. With ``op_level``
    every op is its own partition (the debug lowering).

    Two kinds of op never make a value cross devices, since running them
    anywhere gives the same result (each cross-device edge is a network
    hop on a cluster, and a chain of them is a round trip each):

    * a constant read on other devices is copied into each partition that
      reads it (a name lookup there), rather than sent;
    * a ``NoOp`` that only orders things (a ``tf.group``, an optimizer's
      update op) runs on the device of its control inputs when they share
      one, so that ``apply updates -> NoOp -> global_step += 1`` on a
      parameter server stays one partition.
    """
    ran = set(ops)
    device = _effective_devices(ops, placement, fed, ran) if not op_level else placement
    copied = _copied_constants(ops, device, fed, fetch_tensors, ran) if not op_level else set()
    stage: dict = {}
    groups: dict = {}
    part_of: dict = {}
    for op in ops:
        if op in copied:
            continue
        dev = device[op]
        s = 0
        for t in op._inputs:
            if t in fed or t._op in copied:
                continue
            src = t._op
            s = max(s, stage[src] + (device[src] != dev))
        for c in _controls(op, fed, ran):
            s = max(s, stage[c] + (device[c] != dev))
        stage[op] = s
    if not op_level:
        _delay_stages(ops, stage, device, copied, fed, ran)
    for op in ops:
        if op in copied:
            continue
        dev = device[op]
        key = op if op_level else (dev, stage[op])
        part = groups.get(key)
        if part is None:
            part = groups[key] = Partition(dev, [])
        part.ops.append(op)
        part_of[op] = part
    if copied:
        for part in groups.values():
            consts = list(dict.fromkeys(t._op for op in part.ops for t in op._inputs
                                        if t._op in copied and t not in fed))
            part.ops[:0] = consts
    position = {op: i for i, op in enumerate(ops)}
    if op_level:
        parts = sorted(groups.values(), key=lambda p: position[p.ops[0]])
    else:
        parts = sorted(groups.values(), key=lambda p: (stage[_first_staged(p, copied)],
                                                        position[_first_staged(p, copied)]))
    index = {id(p): i for i, p in enumerate(parts)}
    for p in parts:
        seen_in, seen_up = set(), set()
        local = set(p.ops)
        for op in p.ops:
            for t in op._inputs:
                src = None if t in fed else (p if t._op in local else part_of[t._op])
                if src is not p and t not in seen_in:
                    seen_in.add(t)
                    p.inputs.append(t)
                    if src is not None and t not in src.outputs:
                        src.outputs.append(t)
                if src is not None and src is not p and index[id(src)] not in seen_up:
                    seen_up.add(index[id(src)])
                    p.upstream.append(index[id(src)])
            for c in _controls(op, fed, ran):
                src = part_of[c]
                if src is not p and index[id(src)] not in seen_up:
                    seen_up.add(index[id(src)])
                    p.upstream.append(index[id(src)])
    for t in fetch_tensors:
        if t not in fed:
            p = part_of[t._op]
            if t not in p.outputs:
                p.outputs.append(t)
    return parts


def _delay_stages(ops, stage: dict, device: dict, copied, fed, ran) -> None:
    """Moves an op whose readers are all on its own device to their earliest
    stage: work that waits for nothing (constants' shapes, fills) then joins
    the partition that uses it instead of being a partition of its own."""
    readers: dict = {}
    for op in ops:
        if op in copied:
            continue
        for t in op._inputs:
            if t not in fed and t._op not in copied:
                readers.setdefault(t._op, []).append(op)
        for c in _controls(op, fed, ran):
            readers.setdefault(c, []).append(op)
    for op in reversed(ops):
        if op in copied:
            continue
        rs = readers.get(op)
        if rs and all(device[r] == device[op] for r in rs):
            stage[op] = max(stage[op], min(stage[r] for r in rs))


def _first_staged(part, copied):
    for op in part.ops:
        if op not in copied:
            return op
    return part.ops[0]


def _effective_devices(ops, placement: dict, fed, ran) -> dict:
    """``placement``, with ordering-only NoOps moved to their control inputs' device."""
    device = dict(placement)
    for op in ops:
        cs = _controls(op, fed, ran)
        if op._type == "NoOp" and cs and not op._inputs:
            devs = {device[c] for c in cs}
            if len(devs) == 1:
                device[op] = devs.pop()
    return device


def _copied_constants(ops, device: dict, fed, fetch_tensors, ran) -> set:
    """Constants every reader can compute itself: read on another device, not
    fetched, not ordered by control edges (those keep their own partition)."""
    consts = {op for op in ops if op._type == "Const" and not op._control_inputs}
    if not consts:
        return consts
    keep = {t._op for t in fetch_tensors if t not in fed}
    cross = set()
    for op in ops:
        keep.update(c for c in _controls(op, fed, ran) if c in consts)
        for t in op._inputs:
            if t._op in consts and t not in fed and device[t._op] != device[op]:
                cross.add(t._op)
    return cross - keep


@dataclass
class Plan:
    """Everything a run of one signature needs, computed once and cached."""

    fetch_tensors: list
    targets: list
    fed: list
    ops: list
    placement: dict
    partitions: list
    programs: list = field(default_factory=list)
    # Where each fetch comes from: ("feed", i) or (partition index, output index).
    fetch_sources: list = field(default_factory=list)
    # Some op may block (queues, mutexes): runs need a RunContext.
    needs_context: bool = False


def check_feeds_cover_placeholders(ops) -> None:
    """A Placeholder the run needs but nobody fed: fail before running anything."""
    for op in ops:
        if op._type == "Placeholder":
            dtype, shape = op._attrs["dtype"], op._attrs["shape"]
            dims = "" if shape.ndims is None else " and shape [" + ",".join(
                "?" if d is None else str(d) for d in shape.as_list()) + "]"
            raise errors.InvalidArgumentError(
                None, op, f"You must feed a value for placeholder tensor '{op.name}' with dtype {dtype.name}{dims}"
                          f"\n\t [[node {op.name} (defined at {op.created_at()}) ]]")


def fetch_sources(fetch_tensors, fed_index: dict, partitions) -> list:
    """For each fetch: ``("feed", i)`` or ``(partition, output position)``."""
    where = {}
    for pi, p in enumerate(partitions):
        for oi, t in enumerate(p.outputs):
            where[t] = (pi, oi)
    return [("feed", fed_index[t]) if t in fed_index else where[t] for t in fetch_tensors]


# Ops that pass a ref variable's buffer on without copying it: a fetch made by a chain of them from
# ``v:0`` is the variable itself in TF1 (``v``, ``v/read``, ``tf.identity(v)``, ``v.read_value()``).
_FORWARDING = frozenset({"Identity", "_ReadVariable"})


def alias_fetches(fetch_tensors, ops, fed, resource_variables) -> dict:
    """``{fetch position: VariableV2 op}`` for the fetches that alias a ref variable this run updates.

    A TF1 ref variable's fetched value shares the variable's buffer and is copied when the run ends,
    so ``sess.run([train_op, global_step])`` gives the step after ``train_op``'s increment. Such a
    fetch is a chain of forwarding ops (``Identity``, ``read_value()``'s read) from the variable's
    ``v:0``; a resource variable's reads stay snapshots, as in TF1.

    >>> import dflow as tf
    >>> g = tf.Graph()
    >>> with g.as_default():
    ...     v = tf.Variable(0, name="v"); inc = tf.assign_add(v, 1)
    >>> ops = prune_to_fetches([inc, v.value()], [], set())
    >>> {i: op.name for i, op in alias_fetches([inc, v.value()], ops, set(), set()).items()}
    {1: 'v'}
    """
    updated = {var for op in ops for var in variables_written_by(op)}
    out = {}
    for i, t in enumerate(fetch_tensors):
        if t in fed:
            continue
        op = t._op
        while op._type in _FORWARDING and op._inputs and op._inputs[0] not in fed:
            op = op._inputs[0]._op
        if op._type == "VariableV2" and op in updated and op not in resource_variables:
            out[i] = op
    return out


def place_final_reads(aliases: dict, partitions: list, placement: dict, fetch_sources: list) -> None:
    """Serves each aliasing fetch from a read of its variable after the last partition of the
    variable's device that updates it (updates run where their variable lives), in place."""
    for i, var in aliases.items():
        device = placement[var]
        last = None
        for pi, p in enumerate(partitions):
            if p.device == device and any(var in variables_written_by(op) for op in p.ops):
                last = pi
        if last is None:  # updated elsewhere (a slot of an op on another device): keep the snapshot
            continue
        p = partitions[last]
        if var not in p.final_reads:
            p.final_reads.append(var)
        fetch_sources[i] = (last, len(p.outputs) + p.final_reads.index(var))


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)
