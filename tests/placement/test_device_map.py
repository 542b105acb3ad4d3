"""map_devices on literal scheduler data: named, unnamed and mixed five-worker clusters."""

import pytest

from dflow.cluster.cluster_spec import ClusterSpec
from dflow.placement.device_map import (
    describe_mapping,
    full_device_names,
    logical_task_order,
    map_devices,
    parse_task_name,
    resources_for_device,
    worker_for_device,
)

A = [f"tcp://10.0.0.{i}:4000" for i in range(5)]


def tasks_of(mapping):
    return {address: entry["tasks"] for address, entry in mapping.items()}


def test_named_workers_serve_their_tasks_with_their_gpus():
    infos = [
        (A[3], "/job:worker/task:1", {"GPU": 1}),
        (A[0], "/job:ps/task:0", {}),
        (A[4], "/job:worker/task:2", {}),
        (A[1], "/job:ps/replica:0/task:1", {}),
        (A[2], "/job:worker/task:0", {"GPU": 2.0}),
    ]
    m = map_devices(infos)
    assert m[A[2]] == {"name": "/job:worker/task:0", "gpus": 2, "tasks": ["/job:worker/replica:0/task:0"],
                       "devices": ["/job:worker/replica:0/task:0/device:CPU:0",
                                   "/job:worker/replica:0/task:0/device:GPU:0",
                                   "/job:worker/replica:0/task:0/device:GPU:1"]}
    assert full_device_names(m) == [
        "/job:ps/replica:0/task:0/device:CPU:0",
        "/job:ps/replica:0/task:1/device:CPU:0",
        "/job:worker/replica:0/task:0/device:CPU:0",
        "/job:worker/replica:0/task:0/device:GPU:0",
        "/job:worker/replica:0/task:0/device:GPU:1",
        "/job:worker/replica:0/task:1/device:CPU:0",
        "/job:worker/replica:0/task:1/device:GPU:0",
        "/job:worker/replica:0/task:2/device:CPU:0",
    ]
    # A named cluster serves what its names say, whatever cluster spec is passed.
    assert map_devices(infos, {"ps": 1, "worker": 9}) == m


def test_unnamed_workers_get_ps_first_then_workers_in_sorted_order():
    # Dask's LocalCluster names workers 0..n-1; "10" sorts after "9" (numbers compare as numbers).
    infos = [(f"tcp://h:{p}", name, {}) for p, name in [(5, 10), (1, 9), (4, 2), (3, 0), (2, 1)]]
    m = map_devices(infos)
    assert tasks_of(m) == {
        "tcp://h:3": ["/job:ps/replica:0/task:0"],
        "tcp://h:2": ["/job:worker/replica:0/task:0"],
        "tcp://h:4": ["/job:worker/replica:0/task:1"],
        "tcp://h:1": ["/job:worker/replica:0/task:2"],
        "tcp://h:5": ["/job:worker/replica:0/task:3"],
    }


def test_unnamed_workers_wrap_around_a_larger_cluster_spec():
    infos = [(a, a, {}) for a in reversed(A)]  # `dask worker` names a worker by its address
    m = map_devices(infos, ClusterSpec({"ps": ["p0:1", "p1:1"], "worker": ["w:1"] * 4, "scheduler": ["s:1"]}))
    assert tasks_of(m) == {
        A[0]: ["/job:ps/replica:0/task:0", "/job:worker/replica:0/task:3"],
        A[1]: ["/job:ps/replica:0/task:1"],
        A[2]: ["/job:worker/replica:0/task:0"],
        A[3]: ["/job:worker/replica:0/task:1"],
        A[4]: ["/job:worker/replica:0/task:2"],
    }
    assert worker_for_device(m, "/job:worker/replica:0/task:3/device:CPU:0") == A[0]


def test_one_unnamed_worker_serves_both_default_tasks():
    m = map_devices([("tcp://h:1", None, {"GPU": 1})])
    assert full_device_names(m) == [
        "/job:ps/replica:0/task:0/device:CPU:0", "/job:ps/replica:0/task:0/device:GPU:0",
        "/job:worker/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:GPU:0"]
    assert worker_for_device(m, "/job:ps") == "tcp://h:1"


def test_mixed_cluster_unnamed_workers_take_only_the_tasks_nobody_is_named_for():
    infos = [
        (A[0], "/job:ps/task:0", {}),
        (A[1], "/job:worker/task:0", {"GPU": 1}),
        (A[2], "extra-b", {}),
        (A[3], "extra-a", {"GPU": 1}),
        (A[4], "extra-c", {}),
    ]
    # No spec: plain workers take the next worker tasks nobody is named for, in name order.
    assert tasks_of(map_devices(infos)) == {
        A[0]: ["/job:ps/replica:0/task:0"], A[1]: ["/job:worker/replica:0/task:0"],
        A[3]: ["/job:worker/replica:0/task:1"], A[2]: ["/job:worker/replica:0/task:2"],
        A[4]: ["/job:worker/replica:0/task:3"]}
    m = map_devices(infos, {"ps": 1, "worker": 4})
    assert tasks_of(m) == {
        A[0]: ["/job:ps/replica:0/task:0"],
        A[1]: ["/job:worker/replica:0/task:0"],
        A[3]: ["/job:worker/replica:0/task:1"],  # extra-a sorts first
        A[2]: ["/job:worker/replica:0/task:2"],
        A[4]: ["/job:worker/replica:0/task:3"],
    }
    assert worker_for_device(m, "/job:worker/task:1/device:GPU:0") == A[3]


def test_worker_for_device_errors_name_the_cluster_devices():
    m = map_devices([(A[0], "/job:ps/task:0", {}), (A[1], "/job:worker/task:0", {}), (A[2], "/job:worker/task:1", {})])
    assert worker_for_device(m, "/job:worker/replica:0/task:1/device:CPU:0") == A[2]
    assert worker_for_device(m, "/job:ps/task:0/cpu:0") == A[0]
    with pytest.raises(ValueError, match=r"No Dask worker serves device '/job:worker/task:5'.*"
                                         r"/job:ps/replica:0/task:0/device:CPU:0"):
        worker_for_device(m, "/job:worker/task:5")
    with pytest.raises(ValueError, match="No Dask worker serves"):
        worker_for_device(m, "/job:ps/task:0/device:GPU:0")
    with pytest.raises(ValueError, match="matches devices on 2 workers"):
        worker_for_device(m, "/job:worker")


def test_two_workers_named_for_one_task_is_an_error():
    with pytest.raises(ValueError, match=r"Two Dask workers serve /job:ps/task:0: .*\.1:4000.* and .*\.0:4000"):
        map_devices([(A[0], "/job:ps/task:0", {}), (A[1], "/job:ps/replica:0/task:0", {})])


def test_helpers():
    assert parse_task_name("/job:ps/task:12") == ("ps", 12)
    assert [parse_task_name(n) for n in (None, 3, "worker-1", "/job:ps", "/job:ps/task:x")] == [None] * 5
    assert logical_task_order(ClusterSpec({"worker": {3: "a", 1: "b"}, "ps": ["c"], "evaluator": ["d"]})) == [
        ("ps", 0), ("evaluator", 0), ("worker", 1), ("worker", 3)]
    assert resources_for_device("/job:worker/task:0/device:GPU:1") == {"GPU": 1}
    assert resources_for_device("/job:worker/task:0/device:CPU:0") == {}


def test_plain_workers_fill_the_tasks_named_workers_leave():
    # dask worker --name /job:ps/task:0 beside one plain dask worker: the plain one is worker:0.
    assert tasks_of(map_devices([(A[0], "/job:ps/task:0", {}), (A[1], A[1], {})])) == {
        A[0]: ["/job:ps/replica:0/task:0"], A[1]: ["/job:worker/replica:0/task:0"]}
    # ... and beside a named worker:0, it is the ps.
    assert tasks_of(map_devices([(A[0], "/job:worker/task:0", {}), (A[1], A[1], {})])) == {
        A[0]: ["/job:worker/replica:0/task:0"], A[1]: ["/job:ps/replica:0/task:0"]}
    # Gaps are filled first: named ps:1 and worker:1 leave ps:0 and worker:0.
    m = map_devices([(A[0], "/job:ps/task:1", {}), (A[1], "/job:worker/task:1", {}), (A[2], None, {}),
                     (A[3], None, {})])
    assert tasks_of(m) == {A[0]: ["/job:ps/replica:0/task:1"], A[1]: ["/job:worker/replica:0/task:1"],
                           A[2]: ["/job:ps/replica:0/task:0"], A[3]: ["/job:worker/replica:0/task:0"]}
    assert f"{A[2]} (unnamed): /job:ps/replica:0/task:0" in describe_mapping(m).splitlines()
