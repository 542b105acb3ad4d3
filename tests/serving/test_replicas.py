"""Replicas on Dask workers: requests reach every replica; a killed replica's worker fails no request."""

import os
import signal
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from dflow.serving import BatchingParameters, ModelServer
from dflow.serving.replicas import ReplicaSet
from tests.serving.models import call, linear, linear_y, wait_for


@pytest.fixture(scope="module")
def replicated(tmp_path_factory):
    root = tmp_path_factory.mktemp("replicated")
    linear(root / "1")
    replicas = ReplicaSet.local(2, watch_seconds=0.2)
    batching = BatchingParameters(max_batch_size=32, num_batch_threads=2)
    with ModelServer(str(root), "lin", port=0, threads=4, batching=batching, runner=replicas,
                     poll_seconds=0.2) as server:
        yield server, replicas, root


def _ask_many(server, rows, scale=1.0):
    def ask(i):
        return call(f"{server.url}/v1/models/lin:predict", {"inputs": {"x": rows[i:i + 1].tolist()},
                                                            "output_filter": ["y"]})

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(ask, range(len(rows))))
    assert all(status == 200 for status, _ in answers), answers[:3]
    np.testing.assert_allclose([out["outputs"][0] for _, out in answers], linear_y(rows, scale), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.timeout(90)
def test_two_replicas_both_serve_and_both_load_a_new_version(replicated):
    server, replicas, root = replicated
    rows = np.random.RandomState(2).uniform(-2, 2, size=(30, 3)).astype(np.float32)
    _ask_many(server, rows)
    status, body = call(f"{server.url}/v1/models/lin")
    assert status == 200 and [r["state"] for r in body["replicas"]] == ["UP", "UP"]
    assert all(r["served"] > 0 for r in body["replicas"]), body["replicas"]  # requests reached both
    assert len({r["worker"] for r in body["replicas"]}) == 2

    linear(root / "2", scale=-1.0)
    wait_for(lambda: call(f"{server.url}/v1/models/lin")[1]["model_version_status"][0] == {
        "version": "2", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}})
    served = {r["worker"]: r["served"] for r in call(f"{server.url}/v1/models/lin")[1]["replicas"]}
    _ask_many(server, rows, scale=-1.0)
    after = {r["worker"]: r["served"] for r in call(f"{server.url}/v1/models/lin")[1]["replicas"]}
    assert all(after[w] > served[w] for w in served), (served, after)  # both replicas run version 2


@pytest.mark.timeout(60)
def test_scheduler_address_places_a_replica_per_worker_of_that_cluster(replicated, tmp_path):
    _, replicas, _ = replicated
    linear(tmp_path / "other" / "7", scale=3.0)
    attached = ReplicaSet.connect(replicas.client.scheduler.address)  # as --scheduler ADDR
    with ModelServer(str(tmp_path / "other"), "lin", port=0, runner=attached, poll_seconds=0) as server:
        _ask_many(server, np.eye(3, dtype=np.float32), scale=3.0)
        status = call(f"{server.url}/v1/models/lin")[1]["replicas"]
        assert sorted(r["worker"] for r in status) == sorted(r.address for r in replicas.up())
        assert [r["state"] for r in status] == ["UP", "UP"] and all(r["served"] for r in status), status
    with pytest.raises(OSError, match="cannot reach the Dask scheduler at --scheduler tcp://127.0.0.1:9"):
        ReplicaSet.connect("tcp://127.0.0.1:9", connect_timeout=0.5)


@pytest.mark.timeout(90)
def test_a_killed_replica_worker_fails_no_request_and_status_says_so(replicated):
    server, replicas, _ = replicated
    victim = replicas.up()[0].address
    pid = replicas.client.run(os.getpid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)
    rows = np.random.RandomState(3).uniform(-2, 2, size=(20, 3)).astype(np.float32)
    latest = call(f"{server.url}/v1/models/lin")[1]["model_version_status"][0]["version"]
    _ask_many(server, rows, scale=-1.0 if latest == "2" else 1.0)  # version 2 once the test before ran
    status, body = call(f"{server.url}/v1/models/lin")
    down = [r for r in body["replicas"] if r["worker"] == victim]
    assert status == 200 and down[0]["state"] == "DOWN" and down[0]["error"], body["replicas"]
    # the nanny restarts the worker; the watcher places a replica on it, which serves too
    wait_for(lambda: sum(r["state"] == "UP" for r in call(f"{server.url}/v1/models/lin")[1]["replicas"]) == 2)


@pytest.mark.timeout(90)
def test_cli_serves_from_replicas_and_refuses_a_bad_count(tmp_path):
    import subprocess
    import sys

    y, _ = linear(tmp_path / "m")
    command = [sys.executable, "-m", "dflow", "serve", str(tmp_path / "m"), "--model-name", "m", "--port", "0"]
    proc = subprocess.run(command + ["--replicas", "-1"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "--replicas must be an integer >= 1, got -1" in proc.stderr, proc.stderr
    proc = subprocess.Popen(command + ["--replicas", "1", "--max-batch-size", "4"], stdout=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        assert lines[2].startswith("  replicas: tcp://"), lines
        status, out = call(lines[1].split()[1] + ":predict", {"inputs": [[1, 2, 3], [-1, 0.5, 2]],
                                                              "output_filter": ["y"]})
        assert status == 200
        np.testing.assert_allclose(out["outputs"], y, rtol=1e-6)
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
