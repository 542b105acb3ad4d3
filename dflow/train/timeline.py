"""Chrome traces of a traced run's step stats, as TF's ``tensorflow/python/client/timeline.py``
writes them (``Timeline(step_stats).generate_chrome_trace_format(show_dataflow, show_memory)``):
an ``Allocators`` process, per device a ``Compute`` and a ``Tensors`` process, op lanes, dataflow
arrows, tensor objects and memory counters. ``tf.train.ProfilerHook`` writes them.
"""

from __future__ import annotations

import json
import re

from dflow._api import tf_export


def chrome_trace(step_stats, show_dataflow: bool = True, show_memory: bool = False) -> dict:
    """A Chrome trace (``{"traceEvents": [...]}``) of ``RunMetadata.step_stats``, as TF's
    ``Timeline(step_stats).generate_chrome_trace_format(show_dataflow, show_memory)`` makes it."""
    return _Timeline(step_stats).trace(show_dataflow, show_memory)


@tf_export("python.client.timeline.Timeline")
class Timeline:
    """TF's ``tensorflow.python.client.timeline.Timeline`` (``from tensorflow.python.client import
    timeline``): ``generate_chrome_trace_format`` is the trace of :func:`chrome_trace` as TF's JSON text."""

    def __init__(self, step_stats, graph=None):
        self._step_stats = step_stats
        self._graph = graph

    def generate_chrome_trace_format(self, show_dataflow: bool = True, show_memory: bool = False) -> str:
        trace = chrome_trace(self._step_stats, show_dataflow=show_dataflow, show_memory=show_memory)
        return json.dumps(trace, indent=4, separators=(",", ": "))


def _event(ph: str, category: str, name: str, pid: int, tid: int, ts: int, **more) -> dict:
    return {"ph": ph, "cat": category, "name": name, "pid": pid, "tid": tid, "ts": ts, **more}


def _parse_op_label(label: str) -> tuple[str, list]:
    """``(op type, input names)`` of a ``"name = Op(in0, in1)"`` timeline label."""
    match = re.match(r"(.*) = (.*)\((.*)\)", label)
    if match is None:
        return "unknown", []
    _, op, inputs = match.groups()
    return op, inputs.split(", ") if inputs else []


class _TensorTracker:
    """One output tensor of a trace: where and when it was made, its bytes and its readers' times."""

    def __init__(self, name: str, object_id: int, create_time: int, pid: int, allocator: str, num_bytes: int):
        self.name, self.object_id, self.create_time, self.pid = name, object_id, create_time, pid
        self.allocator, self.num_bytes = allocator, num_bytes
        self.unref_times: list = []


class _Timeline:
    """TF's ``tensorflow/python/client/timeline.py`` ``Timeline``, over dflow's step stats."""

    def __init__(self, step_stats):
        self._step_stats = step_stats
        self._metadata: list = []
        self._events: list = []
        self._next_pid = 0
        self._device_pids: dict = {}
        self._tensor_pids: dict = {}
        self._tensors: dict = {}  # tensor name -> _TensorTracker
        self._flow_starts: dict = {}  # tensor name -> (time, pid, tid)
        self._next_flow_id = 0
        self._lanes: dict = {}  # id(node stats) -> lane (TF's thread_id)

    def trace(self, show_dataflow: bool, show_memory: bool) -> dict:
        self._allocate_pids()
        self._assign_lanes()
        self._analyze_tensors(show_memory)
        self._show_compute(show_dataflow)
        if show_memory:
            self._show_memory_counters()
        return {"traceEvents": self._metadata + self._events}

    def _emit_pid(self, name: str) -> int:
        pid = self._next_pid
        self._next_pid += 1
        self._metadata.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}})
        return pid

    def _allocate_pids(self) -> None:
        self._allocators_pid = self._emit_pid("Allocators")
        for dev in self._step_stats.dev_stats:
            self._device_pids[dev.device] = self._emit_pid(dev.device + " Compute")
            self._tensor_pids[dev.device] = self._emit_pid(dev.device + " Tensors")

    def _assign_lanes(self) -> None:
        """Per device, each op in the first lane free when it starts (TF's non-overlapping lanes)."""
        for dev in self._step_stats.dev_stats:
            lanes = [0]
            for ns in dev.node_stats:
                end = ns.all_start_micros + ns.all_end_rel_micros
                lane = next((i for i, busy_until in enumerate(lanes) if ns.all_start_micros > busy_until), None)
                if lane is None:
                    lane = len(lanes)
                    lanes.append(end)
                else:
                    lanes[lane] = end
                self._lanes[id(ns)] = lane

    def _analyze_tensors(self, show_memory: bool) -> None:
        for dev in self._step_stats.dev_stats:
            device_pid, tensors_pid = self._device_pids[dev.device], self._tensor_pids[dev.device]
            for ns in dev.node_stats:
                tid = self._lanes[id(ns)]
                start, end = ns.all_start_micros, ns.all_start_micros + ns.all_end_rel_micros
                for index, output in enumerate(getattr(ns, "output", ())):
                    name = f"{ns.node_name}:{index}" if index else ns.node_name
                    allocation = output.tensor_description.allocation_description
                    tensor = _TensorTracker(name, len(self._tensors), start, tensors_pid,
                                            allocation.allocator_name, allocation.requested_bytes)
                    self._tensors[name] = tensor
                    tensor.unref_times.append(end)
                    self._flow_starts[name] = (end, device_pid, tid)
                    if show_memory:
                        self._events.append(_event("N", "Tensor", name, tensors_pid, tid, start, id=tensor.object_id))
                        snapshot = {"tensor_description": _tensor_description_text(output.tensor_description)}
                        self._events.append(_event("O", "Tensor", name, tensors_pid, tid, end - 1,
                                                   id=tensor.object_id, args={"snapshot": snapshot}))

    def _show_compute(self, show_dataflow: bool) -> None:
        for dev in self._step_stats.dev_stats:
            device_pid = self._device_pids[dev.device]
            for ns in dev.node_stats:
                tid = self._lanes[id(ns)]
                start, end = ns.all_start_micros, ns.all_start_micros + ns.all_end_rel_micros
                op, inputs = _parse_op_label(ns.timeline_label)
                args = {"name": ns.node_name, "op": op}
                args.update((f"input{i}", name) for i, name in enumerate(inputs))
                self._events.append(_event("X", "Op", op, device_pid, tid, start, dur=ns.all_end_rel_micros,
                                           args=args))
                for name in inputs:
                    if name not in self._tensors and name.rfind("/_") > 0:  # a Send/Recv's suffix
                        name = name[:name.rfind("/_")]
                    tensor = self._tensors.get(name)
                    if tensor is None:
                        continue
                    tensor.unref_times.append(end - 1)
                    created, create_pid, create_tid = self._flow_starts[name]
                    if show_dataflow and (create_pid != device_pid or create_tid != tid):
                        flow_id, self._next_flow_id = self._next_flow_id, self._next_flow_id + 1
                        self._events.append(_event("s", "DataFlow", name, create_pid, create_tid, created, id=flow_id))
                        self._events.append(_event("t", "DataFlow", name, device_pid, tid, start, id=flow_id))

    def _show_memory_counters(self) -> None:
        """Each tensor's deletion after its last reader, then per allocator a counter of its bytes in use."""
        allocations: dict = {}
        for name, tensor in self._tensors.items():
            last_unref = max(tensor.unref_times)
            self._events.append(_event("D", "Tensor", name, tensor.pid, 0, last_unref, id=tensor.object_id))
            allocs = allocations.setdefault(tensor.allocator, [])
            allocs.append((tensor.create_time, tensor.num_bytes, name))
            allocs.append((last_unref, -tensor.num_bytes, name))
        for allocator, allocs in allocations.items():
            allocs.sort()
            total = 0
            for when, num_bytes, _ in allocs:
                total += num_bytes
                self._events.append(_event("C", "Memory", allocator, self._allocators_pid, 0, when,
                                           args={allocator: total}))


def _tensor_description_text(desc) -> str:
    """A ``TensorDescription`` in protobuf's text format, without quotes (TF's tensor snapshot)."""
    from dflow.framework.tensor import datatype_name

    lines = [f"dtype: {datatype_name(desc.dtype)}"] if desc.dtype else []
    if desc.HasField("shape"):
        lines.append("shape {")
        for d in desc.shape.dim:
            lines += ["  dim {", f"    size: {d.size}", "  }"]
        lines.append("}")
    if desc.HasField("allocation_description"):
        lines.append("allocation_description {")
        for f, v in desc.allocation_description.ListFields():
            lines.append(f"  {f.name}: {('true' if v else 'false') if f.kind == 'bool' else v}")
        lines.append("}")
    return "".join(line + "\n" for line in lines)
