"""Issue 12: what the /dflow page keeps and reads, without a cluster (fast)."""

import types

import numpy as np

import dflow as tf
from dflow.dashboard import extension
from dflow.dashboard.extension import DflowExtension
from dflow.dashboard.report import graph_doc, trace_doc
from dflow.framework import dtypes
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.state.queue_state import QueueState
from dflow.ops.state.resources import SessionResources

PS, W0 = "/job:ps/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0"


def fake_scheduler():
    return types.SimpleNamespace(handlers={}, stream_handlers={}, extensions={}, workers={}, plugins={},
                                 add_plugin=lambda plugin, name=None: None)


def two_partitions():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        b = tf.add(a, 2.0, name="b")
        tf.multiply(b, 3.0, name="c")
    ops = {op.name: op for op in g.get_operations()}
    first = types.SimpleNamespace(ops=[ops["a"]], device=PS, name="a", upstream=[])
    second = types.SimpleNamespace(ops=[ops["b/y"], ops["b"], ops["c/y"], ops["c"]], device=W0, name="c",
                                   upstream=[0])
    return [first, second]


def test_graph_doc_marks_the_edges_between_devices_as_cut():
    doc = graph_doc(two_partitions())
    assert doc["ops"] == 5 and doc["cut_edges"] == 1
    assert sorted(e[:2] for e in doc["edges"] if e[2]) == [["a", "b"]]
    assert {n["name"]: n["device"] for n in doc["nodes"]}["c"] == W0
    assert [p["ops"] for p in doc["partitions"]] == [1, 4]


def test_trace_doc_lists_the_slowest_ops_first():
    parts = two_partitions()
    doc = trace_doc(0.0, parts, [[(0, 0, 2_000_000)], [(1, 2_000_000, 2_500_000), (3, 2_500_000, 5_000_000)]])
    assert [(o["name"], o["ms"]) for o in doc["slowest"]] == [("c", 2.5), ("a", 2.0), ("b", 0.5)]
    assert doc["span_ms"] == 5.0 and doc["ops_traced"] == 3


def test_sessions_keep_a_history_search_their_graph_and_are_pruned(monkeypatch):
    ext = DflowExtension(fake_scheduler())
    assert "dflow_session_report" in ext.scheduler.handlers and ext.scheduler.extensions["dflow"] is ext
    report = {"id": "s1", "host": "h", "pid": 7, "started": 0.0, "runs": 10, "errors": 0, "last_error": None,
              "closed": False, "steps_per_s": 10.0, "step_times": [(1.0, 0.1), (2.0, 0.3)],
              "graph": graph_doc(two_partitions())}
    assert ext.session_report(report=report)
    ext.session_report(report=dict(report, runs=25, steps_per_s=15.0, step_times=[], graph=None,
                                   errors=1, last_error="UnavailableError: gone"))
    (row,) = ext.session_rows()
    assert (row["runs"], row["steps_per_s"], row["graph_ops"], row["cut_edges"], row["graph_version"]) == \
        (25, 15.0, 5, 1, 1)
    assert row["active"] and row["step_ms"] == 200.0 and row["last_error"] == "UnavailableError: gone"
    detail = ext.session_detail("s1")
    assert [h["steps_per_s"] for h in detail["history"]] == [10.0, 15.0] and len(detail["step_times"]) == 2
    assert ext.session_detail("nope") is None and ext.graph("nope") is None
    found = ext.graph("s1", search="B")  # any case
    assert [n["name"] for n in found["nodes"]] == ["b/y", "b"] and found["matched"] == 2
    assert found["edges"] == [{"from": "b/y", "to": "b", "cut": False}]  # the edges between matched ops
    assert ext.graph()["session"] == "s1" and len(ext.graph(limit=2)["nodes"]) == 2

    monkeypatch.setattr(extension, "MAX_SESSIONS", 3)
    for i in range(5):
        ext.session_report(report=dict(report, id=f"n{i}", graph=None))
    assert sorted(ext.sessions) == ["n2", "n3", "n4"]
    monkeypatch.setattr(extension, "SESSION_KEEP_S", -1.0)
    ext.session_report(report=dict(report, id="last", graph=None))
    assert list(ext.sessions) == []  # even the one reporting now is older than -1 s


def test_resource_snapshots_read_variables_and_queues_without_their_locks():
    res = SessionResources()
    with res.binding(PS):
        var = res.variable(("", "v"), "v", (dtypes.float32, TensorShape([2])))
    res.variable(("", "u"), "u")  # made outside a binding: no device, uninitialized
    q = res.resource(("queue", "", "q"), lambda: QueueState("q", [dtypes.int32], [TensorShape([])], 4), W0)
    var.assign(np.array([1.0, 2.0], np.float32))
    var.update(lambda v: v + 1)
    q._enqueue_elements(None, [(np.int32(1),), (np.int32(2),)])
    with var.lock, q._cond:  # a run holding both locks does not stop a snapshot
        snap = res.snapshot()
    v, u = sorted(snap["variables"], key=lambda r: r["name"], reverse=True)
    assert (v["dtype"], v["shape"], v["bytes"], v["updates"], v["device"]) == ("float32", [2], 8, 2, PS)
    assert v["updated"] is not None and v["initialized"]
    assert (u["initialized"], u["device"], u["updates"], u["bytes"]) == (False, None, 0, 0)
    (row,) = snap["queues"]
    assert (row["name"], row["size"], row["capacity"], row["closed"], row["device"]) == ("q", 2, 4, False, W0)
    res.clear_containers()
    assert res.snapshot()["queues"] == [] and not res.snapshot()["variables"][0]["initialized"]
