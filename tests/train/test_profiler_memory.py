"""Memory in traced runs: each op's outputs (dtype, shape, bytes) and allocations in
``RunMetadata.step_stats``, their protocol buffer, and ``tf.train.ProfilerHook(show_memory=True)``.

Expected figures are TF 2.15's ``tf.compat.v1`` (``/tmp/ref/profmem``): the same graphs run with
``RunOptions(trace_level=FULL_TRACE)`` (TF's CPU allocator is ``mklcpu`` in its oneDNN build; dflow
names it ``cpu``, as TF's plain CPU allocator is named), the bytes TF serializes for the same
``RunMetadata``, and the Chrome trace TF's ``Timeline`` makes of the same step stats.
"""

import json
import os
import re

import numpy as np
import pytest

import dflow as tf
from dflow.dashboard.report import trace_doc
from dflow.framework.protos import summary_pb as proto
from dflow.framework.protos.summary_pb import (
    AllocationDescription,
    AllocationRecord,
    AllocatorMemoryUsed,
    NodeOutput,
    RunMetadataProto,
    TensorDescription,
    TensorShapeProto,
    run_metadata_proto,
)
from dflow.sessions import fusion, overlap
from dflow.sessions.config import DeviceStepStats, NodeExecStats, RunMetadata
from dflow.sessions.session import _node_memory, allocator_name
from dflow.train.timeline import chrome_trace

FULL_TRACE = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
DT_FLOAT, DT_INT32, DT_STRING, DT_INT64, DT_BOOL = 1, 3, 7, 9, 10
CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
GPU = "/job:localhost/replica:0/task:0/device:GPU:0"


def _traced(fetches, feed=None, init=None):
    """``{op name: NodeExecStats}`` of one traced run (after running ``init`` untraced)."""
    md = tf.RunMetadata()
    with tf.Session() as sess:
        if init is not None:
            sess.run(init)
        sess.run(fetches, feed, options=FULL_TRACE, run_metadata=md)
    return {n.node_name: n for d in md.step_stats.dev_stats for n in d.node_stats}


def _outputs(node):
    """``[(slot, dtype, shape, requested_bytes, allocated_bytes, allocator)]`` of an op's stats."""
    out = []
    for o in node.output:
        td = o.tensor_description
        a = td.allocation_description
        out.append((o.slot, td.dtype, [d.size for d in td.shape.dim], a.requested_bytes, a.allocated_bytes,
                    a.allocator_name))
    return out


def _memory(node):
    return [(m.allocator_name, m.total_bytes, m.peak_bytes, m.live_bytes) for m in node.memory]


def _graph():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    c = tf.constant([[1.0, 2.0, 3.0]], name="c")
    y = tf.add(x, c, name="y")
    z = tf.reduce_sum(y, name="z")
    i = tf.cast(y, tf.int64, name="i")
    k = tf.placeholder(tf.int32, [None], name="k")
    u, ui = tf.unique(k, name="u")
    s = tf.as_string(k, name="s")
    b = tf.less(z, 100.0, name="b")
    v = tf.Variable(tf.zeros([4]), name="v")
    aa = tf.assign_add(v, tf.ones([4]), name="aa")
    feed = {x: [[1, 2, 3], [4, 5, 6]], k: [3, 1, 3]}
    return [z, i, u, ui, s, b, aa], feed, v.initializer


# -- step stats of a traced run ------------------------------------------------------------------
def test_traced_run_records_each_outputs_dtype_shape_and_bytes():
    fetches, feed, init = _graph()
    stats = _traced(fetches, feed, init)
    # TF: y [(0, DT_FLOAT, [2, 3], 24, 24)], z [(0, DT_FLOAT, [], 4, 4)], i [(0, DT_INT64, [2, 3], 48, 48)],
    # u [(0, DT_INT32, [2], 8, 8), (1, DT_INT32, [3], 12, 12)], s [(0, DT_STRING, [3], 72, 72)] (24 bytes a
    # string), b [(0, DT_BOOL, [], 1, 1)]; a constant's and a variable's buffer is not allocated by the run:
    # c [(0, DT_FLOAT, [1, 3], 12, 0)], aa [(0, DT_FLOAT, [4], 16, 0)].
    assert _outputs(stats["y"]) == [(0, DT_FLOAT, [2, 3], 24, 24, "cpu")]
    assert _outputs(stats["z"]) == [(0, DT_FLOAT, [], 4, 4, "cpu")]
    assert _outputs(stats["i"]) == [(0, DT_INT64, [2, 3], 48, 48, "cpu")]
    assert _outputs(stats["u"]) == [(0, DT_INT32, [2], 8, 8, "cpu"), (1, DT_INT32, [3], 12, 12, "cpu")]
    assert _outputs(stats["s"]) == [(0, DT_STRING, [3], 72, 72, "cpu")]
    assert _outputs(stats["b"]) == [(0, DT_BOOL, [], 1, 1, "cpu")]
    assert _outputs(stats["c"]) == [(0, DT_FLOAT, [1, 3], 12, 0, "cpu")]
    assert _outputs(stats["aa"]) == [(0, DT_FLOAT, [4], 16, 0, "cpu")]
    assert all(n.output for n in stats.values())


def test_traced_run_records_what_each_op_allocated():
    fetches, feed, init = _graph()
    stats = _traced(fetches, feed, init)
    # TF: memory (total, peak, live) y (24, 24, 24), z (4, 4, 4), i (48, 48, 48), u (20, 20, 20),
    # s (72, 72, 72), b (1, 1, 1); none for the constant c and the variable's update aa.
    want = {"y": 24, "z": 4, "i": 48, "u": 20, "s": 72, "b": 1}
    for name, n in want.items():
        assert _memory(stats[name]) == [("cpu", n, n, n)], name
        (record,) = stats[name].memory[0].allocation_records
        assert (record.alloc_micros, record.alloc_bytes) == (stats[name].all_start_micros, n)
    assert _memory(stats["c"]) == [] and _memory(stats["aa"]) == []


def test_an_output_passed_on_is_not_allocated_again():
    x = tf.placeholder(tf.float32, [5], name="x")
    y = tf.square(x, name="y")
    same = tf.identity(y, name="same")
    stats = _traced(same, {x: np.arange(5, dtype=np.float32)})
    assert _outputs(stats["same"]) == [(0, DT_FLOAT, [5], 20, 20, "cpu")]
    assert _memory(stats["same"]) == [] and _memory(stats["y"]) == [("cpu", 20, 20, 20)]


def test_labels_name_output_slots_and_control_inputs():
    # TF: "su = AddV2(su/y, u:1)", "ReadVariableOp = ReadVariableOp(v, ^AssignAddVariableOp)"
    k = tf.placeholder(tf.int32, [None], name="k")
    _, idx = tf.unique(k, name="u")
    one = tf.constant(1, name="one")
    with tf.control_dependencies([tf.no_op(name="first")]):
        su = tf.add(idx, one, name="su")
    stats = _traced(su, {k: [3, 1, 3]})
    assert stats["su"].timeline_label == "su = Add(u:1, one, ^first)"
    assert stats["first"].output == [] and stats["first"].memory == []
    assert _outputs(stats["su"]) == [(0, DT_INT32, [3], 12, 12, "cpu")]


def test_an_untraced_run_leaves_the_run_metadata_empty():
    fetches, feed, init = _graph()
    with tf.Session() as sess:
        sess.run(init)
        for options in (None, tf.RunOptions(trace_level=tf.RunOptions.NO_TRACE)):
            md = tf.RunMetadata()
            sess.run(fetches, feed, options=options, run_metadata=md)
            assert md.step_stats.dev_stats == []
    assert NodeExecStats().output == [] and NodeExecStats().memory == []


def test_an_op_run_beside_a_loop_records_its_outputs(monkeypatch):
    monkeypatch.setattr(overlap, "LARGE", 1)  # the small product runs beside the loop too
    # A background thread of this test's own, ended with it: tests/sessions/test_overlap.py times how
    # soon a new one starts its op.
    monkeypatch.setattr(overlap, "_executor", None)
    i0, x0 = tf.constant(0), tf.constant(np.ones((2, 2), np.float32))
    _, x = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0), [i0, x0], name="loop")
    product = tf.matmul(tf.ones([3, 4]), tf.ones([4, 5]), name="product")
    with tf.control_dependencies([x]):
        out = tf.identity(product)
    md = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run([x, out], options=FULL_TRACE, run_metadata=md)
        (plan,) = sess._plans.values()
        assert any("_bg.submit(_timed, " in p.source for p in plan.programs)  # the traced program's
    overlap.background().shutdown()
    stats = {n.node_name: n for d in md.step_stats.dev_stats for n in d.node_stats}
    assert _outputs(stats["product"]) == [(0, DT_FLOAT, [3, 5], 60, 60, "cpu")]
    assert _memory(stats["product"]) == [("cpu", 60, 60, 60)]


def test_a_fused_op_records_its_last_ops_outputs(monkeypatch):
    monkeypatch.setattr(fusion, "FUSED_ELEMENTS", 1)
    monkeypatch.setenv("DFLOW_FUSE_OPS", "1")
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    w = tf.constant(np.ones((3, 2), np.float32), name="w")
    y = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), tf.constant([1.0, -1.0])), name="y")
    stats = _traced(y, {x: np.ones((4, 3), np.float32)})
    assert stats["y"].timeline_label.split(" = ")[1].startswith("_FusedMatMul(")
    assert _outputs(stats["y"]) == [(0, DT_FLOAT, [4, 2], 32, 32, "cpu")]


def test_allocator_names_are_tfs():
    assert allocator_name(CPU, False) == "cpu"
    assert allocator_name("/job:worker/replica:0/task:1/device:GPU:1", True) == "GPU_1_bfc"
    assert allocator_name(GPU, False) == "cpu"  # a value in host memory on a GPU device
    op = tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), name="m").op
    outputs, memory = _node_memory(op, GPU, [((2, 2), 16, True, False)], 7, proto)
    assert _outputs(NodeExecStats(output=outputs)) == [(0, DT_FLOAT, [2, 2], 16, 16, "GPU_0_bfc")]
    assert [(m.allocator_name, m.live_bytes) for m in memory] == [("GPU_0_bfc", 16)]


def test_the_dashboards_trace_reads_the_records_with_outputs():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.square(x, name="y")
    parts = [type("P", (), {"ops": [x.op, y.op], "device": CPU})()]
    doc = trace_doc(0.0, parts, [[(1, 0, 3_000_000, (((2,), 8, False, False),))]])
    assert doc["slowest"] == [{"name": "y", "type": "Square", "device": CPU, "ms": 3.0}]
    assert doc["span_ms"] == 3.0


# -- the protocol buffer -------------------------------------------------------------------------
# TF 2.15: config_pb2.RunMetadata of _fixed_step_stats() (its protobuf classes), SerializeToString().
TF_RUN_METADATA = bytes.fromhex(
    "0adf030a80020a2c2f6a6f623a6c6f63616c686f73742f7265706c6963613a302f7461736b3a302f6465766963653a435055"
    "3a30122b0a01611064200a280a3a131a110801120412020802220708081a03637075420b61203d20436f6e73742829125b0a"
    "016210732014281432110a036370751014181420143204087310143a151a1308031204120208022209080810081a03637075"
    "3a1708011a1308031204120208032209080c100c1a03637075420d62203d20556e6971756528612912460a01631078200528"
    "0532110a036370751004180420043204087810043a111a0f080112002209080410041a03637075421563203d204164645632"
    "28623a312c20612c205e62290ad9010a2c2f6a6f623a6c6f63616c686f73742f7265706c6963613a302f7461736b3a302f64"
    "65766963653a4750553a3012570a0164108c01201e281e32180a094750555f305f6266631024182420243205088c0110243a"
    "1f1a1d080112081202080312020803220f082410241a094750555f305f626663421064203d204d61744d756c28632c206229"
    "12500a016510af012005280532160a0363707510d80118d80120d801320608af0110d8013a1b1a1908071208120208031202"
    "0803220b08d80110d8011a03637075420f65203d204173537472696e67286429")


def _node(name, start, dur, label, outs, mem):
    outputs = []
    for slot, (dtype, shape, requested, allocated, alloc) in enumerate(outs):
        allocation = AllocationDescription(requested_bytes=requested, allocated_bytes=allocated, allocator_name=alloc)
        shape_proto = TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in shape])
        outputs.append(NodeOutput(slot=slot, tensor_description=TensorDescription(
            dtype=dtype, shape=shape_proto, allocation_description=allocation)))
    memory = [AllocatorMemoryUsed(allocator_name=a, total_bytes=n, peak_bytes=n, live_bytes=n,
                                  allocation_records=[AllocationRecord(alloc_micros=start, alloc_bytes=n)])
              for a, n in mem]
    return NodeExecStats(node_name=name, all_start_micros=start, op_end_rel_micros=dur, all_end_rel_micros=dur,
                         timeline_label=label, output=outputs, memory=memory)


def _fixed_step_stats():
    """Two devices; ``c`` overlaps ``b`` (a second lane); ``d`` on the GPU reads ``c`` and ``b``."""
    md = RunMetadata()
    cpu, gpu = DeviceStepStats(device=CPU), DeviceStepStats(device=GPU)
    cpu.node_stats = [
        _node("a", 100, 10, "a = Const()", [(DT_FLOAT, [2], 8, 0, "cpu")], []),
        _node("b", 115, 20, "b = Unique(a)", [(DT_INT32, [2], 8, 8, "cpu"), (DT_INT32, [3], 12, 12, "cpu")],
              [("cpu", 20)]),
        _node("c", 120, 5, "c = AddV2(b:1, a, ^b)", [(DT_FLOAT, [], 4, 4, "cpu")], [("cpu", 4)])]
    gpu.node_stats = [
        _node("d", 140, 30, "d = MatMul(c, b)", [(DT_FLOAT, [3, 3], 36, 36, "GPU_0_bfc")], [("GPU_0_bfc", 36)]),
        _node("e", 175, 5, "e = AsString(d)", [(DT_STRING, [3, 3], 216, 216, "cpu")], [("cpu", 216)])]
    md.step_stats.dev_stats = [cpu, gpu]
    return md


def test_run_metadata_serializes_outputs_and_memory_with_tfs_field_numbers():
    data = run_metadata_proto(_fixed_step_stats()).SerializeToString()
    assert data == TF_RUN_METADATA
    (cpu, gpu) = RunMetadataProto.FromString(TF_RUN_METADATA).step_stats.dev_stats
    b = cpu.node_stats[1]
    assert [(o.slot, o.tensor_description.allocation_description.allocated_bytes) for o in b.output] == [
        (0, 8), (1, 12)]
    assert [(m.allocator_name, m.live_bytes) for m in b.memory] == [("cpu", 20)]
    assert gpu.node_stats[0].output[0].tensor_description.allocation_description.allocator_name == "GPU_0_bfc"


def test_a_traced_runs_metadata_reads_back_from_an_event_file(tmp_path):
    fetches, feed, init = _graph()
    md = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(init)
        sess.run(fetches, feed, options=FULL_TRACE, run_metadata=md)
    with tf.summary.FileWriter(str(tmp_path)) as w:
        w.add_run_metadata(md, "step1")
    (path,) = [os.path.join(tmp_path, f) for f in os.listdir(tmp_path)]
    tagged = [e.tagged_run_metadata for e in tf.train.summary_iterator(path) if e.HasField("tagged_run_metadata")]
    back = {n.node_name: n for d in RunMetadataProto.FromString(tagged[0].run_metadata).step_stats.dev_stats
            for n in d.node_stats}
    assert _outputs(back["u"]) == [(0, DT_INT32, [2], 8, 8, "cpu"), (1, DT_INT32, [3], 12, 12, "cpu")]
    assert _outputs(back["c"]) == [(0, DT_FLOAT, [1, 3], 12, 0, "cpu")]
    assert _memory(back["s"]) == [("cpu", 72, 72, 72)]


# -- the Chrome trace ----------------------------------------------------------------------------
def _events(lines):
    return [json.loads(line) for line in lines]


# TF 2.15: timeline.Timeline(step_stats).generate_chrome_trace_format(show_dataflow=True, show_memory=...)
# of _fixed_step_stats(), one event a line.
TF_TRACE_WITH_MEMORY = _events((
    '{"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "Allocators"}}',
    '{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "/job:localhost/replica:0/task:0/devi'
    'ce:CPU:0 Compute"}}',
    '{"name": "process_name", "ph": "M", "pid": 2, "args": {"name": "/job:localhost/replica:0/task:0/devi'
    'ce:CPU:0 Tensors"}}',
    '{"name": "process_name", "ph": "M", "pid": 3, "args": {"name": "/job:localhost/replica:0/task:0/devi'
    'ce:GPU:0 Compute"}}',
    '{"name": "process_name", "ph": "M", "pid": 4, "args": {"name": "/job:localhost/replica:0/task:0/devi'
    'ce:GPU:0 Tensors"}}',
    '{"ph": "N", "cat": "Tensor", "name": "a", "pid": 2, "tid": 0, "ts": 100, "id": 0}',
    '{"ph": "O", "cat": "Tensor", "name": "a", "pid": 2, "tid": 0, "ts": 109, "id": 0, "args": {"snapshot'
    '": {"tensor_description": "dtype: DT_FLOAT\\nshape {\\n  dim {\\n    size: 2\\n  }\\n}\\nallocation_'
    'description {\\n  requested_bytes: 8\\n  allocator_name: cpu\\n}\\n"}}}',
    '{"ph": "N", "cat": "Tensor", "name": "b", "pid": 2, "tid": 0, "ts": 115, "id": 1}',
    '{"ph": "O", "cat": "Tensor", "name": "b", "pid": 2, "tid": 0, "ts": 134, "id": 1, "args": {"snapshot'
    '": {"tensor_description": "dtype: DT_INT32\\nshape {\\n  dim {\\n    size: 2\\n  }\\n}\\nallocation_'
    'description {\\n  requested_bytes: 8\\n  allocated_bytes: 8\\n  allocator_name: cpu\\n}\\n"}}}',
    '{"ph": "N", "cat": "Tensor", "name": "b:1", "pid": 2, "tid": 0, "ts": 115, "id": 2}',
    '{"ph": "O", "cat": "Tensor", "name": "b:1", "pid": 2, "tid": 0, "ts": 134, "id": 2, "args": {"snapsh'
    'ot": {"tensor_description": "dtype: DT_INT32\\nshape {\\n  dim {\\n    size: 3\\n  }\\n}\\nallocatio'
    'n_description {\\n  requested_bytes: 12\\n  allocated_bytes: 12\\n  allocator_name: cpu\\n}\\n"}}}',
    '{"ph": "N", "cat": "Tensor", "name": "c", "pid": 2, "tid": 1, "ts": 120, "id": 3}',
    '{"ph": "O", "cat": "Tensor", "name": "c", "pid": 2, "tid": 1, "ts": 124, "id": 3, "args": {"snapshot'
    '": {"tensor_description": "dtype: DT_FLOAT\\nshape {\\n}\\nallocation_description {\\n  requested_by'
    'tes: 4\\n  allocated_bytes: 4\\n  allocator_name: cpu\\n}\\n"}}}',
    '{"ph": "N", "cat": "Tensor", "name": "d", "pid": 4, "tid": 0, "ts": 140, "id": 4}',
    '{"ph": "O", "cat": "Tensor", "name": "d", "pid": 4, "tid": 0, "ts": 169, "id": 4, "args": {"snapshot'
    '": {"tensor_description": "dtype: DT_FLOAT\\nshape {\\n  dim {\\n    size: 3\\n  }\\n  dim {\\n    s'
    'ize: 3\\n  }\\n}\\nallocation_description {\\n  requested_bytes: 36\\n  allocated_bytes: 36\\n  allo'
    'cator_name: GPU_0_bfc\\n}\\n"}}}',
    '{"ph": "N", "cat": "Tensor", "name": "e", "pid": 4, "tid": 0, "ts": 175, "id": 5}',
    '{"ph": "O", "cat": "Tensor", "name": "e", "pid": 4, "tid": 0, "ts": 179, "id": 5, "args": {"snapshot'
    '": {"tensor_description": "dtype: DT_STRING\\nshape {\\n  dim {\\n    size: 3\\n  }\\n  dim {\\n    '
    'size: 3\\n  }\\n}\\nallocation_description {\\n  requested_bytes: 216\\n  allocated_bytes: 216\\n  a'
    'llocator_name: cpu\\n}\\n"}}}',
    '{"ph": "X", "cat": "Op", "name": "Const", "pid": 1, "tid": 0, "ts": 100, "dur": 10, "args": {"name":'
    ' "a", "op": "Const"}}',
    '{"ph": "X", "cat": "Op", "name": "Unique", "pid": 1, "tid": 0, "ts": 115, "dur": 20, "args": {"name"'
    ': "b", "op": "Unique", "input0": "a"}}',
    '{"ph": "X", "cat": "Op", "name": "AddV2", "pid": 1, "tid": 1, "ts": 120, "dur": 5, "args": {"name": '
    '"c", "op": "AddV2", "input0": "b:1", "input1": "a", "input2": "^b"}}',
    '{"ph": "s", "cat": "DataFlow", "name": "b:1", "pid": 1, "tid": 0, "ts": 135, "id": 0}',
    '{"ph": "t", "cat": "DataFlow", "name": "b:1", "pid": 1, "tid": 1, "ts": 120, "id": 0}',
    '{"ph": "s", "cat": "DataFlow", "name": "a", "pid": 1, "tid": 0, "ts": 110, "id": 1}',
    '{"ph": "t", "cat": "DataFlow", "name": "a", "pid": 1, "tid": 1, "ts": 120, "id": 1}',
    '{"ph": "X", "cat": "Op", "name": "MatMul", "pid": 3, "tid": 0, "ts": 140, "dur": 30, "args": {"name"'
    ': "d", "op": "MatMul", "input0": "c", "input1": "b"}}',
    '{"ph": "s", "cat": "DataFlow", "name": "c", "pid": 1, "tid": 1, "ts": 125, "id": 2}',
    '{"ph": "t", "cat": "DataFlow", "name": "c", "pid": 3, "tid": 0, "ts": 140, "id": 2}',
    '{"ph": "s", "cat": "DataFlow", "name": "b", "pid": 1, "tid": 0, "ts": 135, "id": 3}',
    '{"ph": "t", "cat": "DataFlow", "name": "b", "pid": 3, "tid": 0, "ts": 140, "id": 3}',
    '{"ph": "X", "cat": "Op", "name": "AsString", "pid": 3, "tid": 0, "ts": 175, "dur": 5, "args": {"name'
    '": "e", "op": "AsString", "input0": "d"}}',
    '{"ph": "D", "cat": "Tensor", "name": "a", "pid": 2, "tid": 0, "ts": 134, "id": 0}',
    '{"ph": "D", "cat": "Tensor", "name": "b", "pid": 2, "tid": 0, "ts": 169, "id": 1}',
    '{"ph": "D", "cat": "Tensor", "name": "b:1", "pid": 2, "tid": 0, "ts": 135, "id": 2}',
    '{"ph": "D", "cat": "Tensor", "name": "c", "pid": 2, "tid": 0, "ts": 169, "id": 3}',
    '{"ph": "D", "cat": "Tensor", "name": "d", "pid": 4, "tid": 0, "ts": 179, "id": 4}',
    '{"ph": "D", "cat": "Tensor", "name": "e", "pid": 4, "tid": 0, "ts": 180, "id": 5}',
    '{"ph": "C", "cat": "Memory", "name": "cpu", "pid": 0, "tid": 0, "ts": 100, "args": {"cpu": 8}}',
    '{"ph": "C", "cat": "Memory", "name": "cpu", "pid": 0, "tid": 0, "ts": 115, "args": {"cpu": 16}}',
    '{"ph": "C", "cat": "Memory", "name": "cpu", "pid": 0, "tid": 0, "ts": 115, "args": {"cpu": 28}}',
    '{"ph": "C", "cat": "Memory", "name": "cpu", "pid": 0, "tid": 0, "ts": 120, "args": {"cpu": 32}}',
    '{"ph": "C", "cat": "Memory", "name": "cpu", "pid": 0, "tid": 0, "ts": 134, "args": {"cpu": 24}}',
    '{"ph": "C", "cat": "Memory", "name": "cpu", "pid": 0, "tid": 0, "ts": 135, "args": {"cpu": 12}}',
    '{"ph": "C", "cat": "Memory", "name": "cpu", "pid": 0, "tid": 0, "ts": 169, "args": {"cpu": 4}}',
    '{"ph": "C", "cat": "Memory", "name": "cpu", "pid": 0, "tid": 0, "ts": 169, "args": {"cpu": 0}}',
    '{"ph": "C", "cat": "Memory", "name": "cpu", "pid": 0, "tid": 0, "ts": 175, "args": {"cpu": 216}}',
    '{"ph": "C", "cat": "Memory", "name": "cpu", "pid": 0, "tid": 0, "ts": 180, "args": {"cpu": 0}}',
    '{"ph": "C", "cat": "Memory", "name": "GPU_0_bfc", "pid": 0, "tid": 0, "ts": 140, "args": {"GPU_0_bfc'
    '": 36}}',
    '{"ph": "C", "cat": "Memory", "name": "GPU_0_bfc", "pid": 0, "tid": 0, "ts": 179, "args": {"GPU_0_bfc'
    '": 0}}',
))

TF_TRACE = _events((
    '{"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "Allocators"}}',
    '{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "/job:localhost/replica:0/task:0/devi'
    'ce:CPU:0 Compute"}}',
    '{"name": "process_name", "ph": "M", "pid": 2, "args": {"name": "/job:localhost/replica:0/task:0/devi'
    'ce:CPU:0 Tensors"}}',
    '{"name": "process_name", "ph": "M", "pid": 3, "args": {"name": "/job:localhost/replica:0/task:0/devi'
    'ce:GPU:0 Compute"}}',
    '{"name": "process_name", "ph": "M", "pid": 4, "args": {"name": "/job:localhost/replica:0/task:0/devi'
    'ce:GPU:0 Tensors"}}',
    '{"ph": "X", "cat": "Op", "name": "Const", "pid": 1, "tid": 0, "ts": 100, "dur": 10, "args": {"name":'
    ' "a", "op": "Const"}}',
    '{"ph": "X", "cat": "Op", "name": "Unique", "pid": 1, "tid": 0, "ts": 115, "dur": 20, "args": {"name"'
    ': "b", "op": "Unique", "input0": "a"}}',
    '{"ph": "X", "cat": "Op", "name": "AddV2", "pid": 1, "tid": 1, "ts": 120, "dur": 5, "args": {"name": '
    '"c", "op": "AddV2", "input0": "b:1", "input1": "a", "input2": "^b"}}',
    '{"ph": "s", "cat": "DataFlow", "name": "b:1", "pid": 1, "tid": 0, "ts": 135, "id": 0}',
    '{"ph": "t", "cat": "DataFlow", "name": "b:1", "pid": 1, "tid": 1, "ts": 120, "id": 0}',
    '{"ph": "s", "cat": "DataFlow", "name": "a", "pid": 1, "tid": 0, "ts": 110, "id": 1}',
    '{"ph": "t", "cat": "DataFlow", "name": "a", "pid": 1, "tid": 1, "ts": 120, "id": 1}',
    '{"ph": "X", "cat": "Op", "name": "MatMul", "pid": 3, "tid": 0, "ts": 140, "dur": 30, "args": {"name"'
    ': "d", "op": "MatMul", "input0": "c", "input1": "b"}}',
    '{"ph": "s", "cat": "DataFlow", "name": "c", "pid": 1, "tid": 1, "ts": 125, "id": 2}',
    '{"ph": "t", "cat": "DataFlow", "name": "c", "pid": 3, "tid": 0, "ts": 140, "id": 2}',
    '{"ph": "s", "cat": "DataFlow", "name": "b", "pid": 1, "tid": 0, "ts": 135, "id": 3}',
    '{"ph": "t", "cat": "DataFlow", "name": "b", "pid": 3, "tid": 0, "ts": 140, "id": 3}',
    '{"ph": "X", "cat": "Op", "name": "AsString", "pid": 3, "tid": 0, "ts": 175, "dur": 5, "args": {"name'
    '": "e", "op": "AsString", "input0": "d"}}',
))


@pytest.mark.parametrize("show_memory, want", [(True, TF_TRACE_WITH_MEMORY), (False, TF_TRACE)])
def test_chrome_trace_is_tfs_timeline(show_memory, want):
    got = chrome_trace(_fixed_step_stats().step_stats, show_dataflow=True, show_memory=show_memory)
    assert json.dumps(got["traceEvents"]) == json.dumps(want)  # the same events, keys in the same order


def test_chrome_trace_without_dataflow_has_no_arrows():
    events = chrome_trace(_fixed_step_stats().step_stats, show_dataflow=False)["traceEvents"]
    assert [e for e in TF_TRACE if e["ph"] not in "st"] == events


def _hook_trace(tmp_path, show_memory):
    fetches, feed, _ = _graph()
    gs = tf.train.get_or_create_global_step()
    inc = tf.assign_add(gs, 1, name="inc")
    hook = tf.train.ProfilerHook(save_steps=1, output_dir=str(tmp_path), show_memory=show_memory)
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        for _ in range(2):
            sess.run(fetches + [inc], feed)
    assert sorted(os.listdir(tmp_path)) == ["timeline-2.json"]  # TF: the second run's
    return json.loads((tmp_path / "timeline-2.json").read_text())["traceEvents"]


def test_profiler_hook_show_memory_writes_tensor_objects_and_memory_counters(tmp_path):
    events = _hook_trace(tmp_path, show_memory=True)
    processes = [e["args"]["name"] for e in events if e["ph"] == "M"]
    assert processes == ["Allocators", CPU + " Compute", CPU + " Tensors"]
    snapshots = {e["name"]: e["args"]["snapshot"]["tensor_description"] for e in events if e["ph"] == "O"}
    assert snapshots["u:1"] == ("dtype: DT_INT32\nshape {\n  dim {\n    size: 3\n  }\n}\nallocation_description {\n"
                                "  requested_bytes: 12\n  allocated_bytes: 12\n  allocator_name: cpu\n}\n")
    assert snapshots["s"].startswith("dtype: DT_STRING\n") and "requested_bytes: 72\n" in snapshots["s"]
    assert "  requested_bytes: 24\n  allocated_bytes: 24\n" in snapshots["y"]
    for ph in "NOD":  # each output a tensor object: created, described, deleted
        assert {e["name"] for e in events if e["ph"] == ph} == set(snapshots)
    assert {"y", "z", "i", "u", "u:1", "s", "b", "c", "aa", "inc"} <= set(snapshots)
    counters = [e for e in events if e["ph"] == "C"]
    assert {(e["cat"], e["name"], e["pid"], tuple(e["args"])) for e in counters} == {("Memory", "cpu", 0, ("cpu",))}
    values = [e["args"]["cpu"] for e in counters]
    # TF's counter: +bytes when a tensor is made, -bytes after its last reader, in time order (ops of the
    # same microsecond may take a tensor off before it is put on, as in TF's timeline).
    steps = [v1 - v0 for v0, v1 in zip([0] + values, values)]
    sizes = [int(re.search(r"requested_bytes: (\d+)", t).group(1)) for t in snapshots.values()]
    assert sorted(d for d in steps if d > 0) == sorted(n for n in sizes if n)
    assert sorted(-d for d in steps if d < 0) == sorted(n for n in sizes if n)
    assert values[-1] == 0
    assert [e["ts"] for e in counters] == sorted(e["ts"] for e in counters)


def test_profiler_hook_without_show_memory_has_no_memory_events(tmp_path):
    events = _hook_trace(tmp_path, show_memory=False)
    assert {e["ph"] for e in events} == {"M", "X"}  # one lane, one device: no arrows either
    ops = {e["args"]["name"]: e for e in events if e["ph"] == "X"}
    assert ops["u"]["name"] == "Unique" and ops["u"]["args"]["input0"] == "k"
