import contextlib
import json
import os
import subprocess
import sys
import time

import pytest

import dflow.cluster  # noqa: F401 - until dflow/__init__.py imports it

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def local_cluster():
    """One ``LocalCluster(ps=1, workers=2)`` of worker processes, shared by the tests that only look."""
    from dflow.cluster import LocalCluster

    with LocalCluster(ps=1, workers=2, dashboard_address=None) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def cluster_client(local_cluster):
    with local_cluster.client() as client:
        yield client


def scheduler_workers(client) -> dict:
    """name -> (address, resources, nthreads) of every worker the scheduler knows."""
    workers = client.scheduler_info(n_workers=-1)["workers"]
    return {w["name"]: (address, w.get("resources") or {}, w["nthreads"]) for address, w in workers.items()}


@contextlib.contextmanager
def dask_cli_cluster(tmp_path, worker_names):
    """``dask scheduler`` and one ``dask worker`` per name (``None``: a plain worker), as real processes.

    Yields the scheduler's address once every worker has joined.
    """
    from distributed import Client

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    scheduler_file = str(tmp_path / "scheduler.json")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env, "cwd": ROOT}
    procs = [subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", scheduler_file], **quiet)]
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(scheduler_file):
            assert time.monotonic() < deadline, "dask scheduler did not start"
            time.sleep(0.1)
        for name in worker_names:
            named = [] if name is None else ["--name", name]
            procs.append(subprocess.Popen([sys.executable, "-m", "dask", "worker", "--scheduler-file", scheduler_file,
                                           "--nthreads", "1", "--no-dashboard", *named], **quiet))
        while True:  # the scheduler may be midway through writing the file
            try:
                with open(scheduler_file) as f:
                    target = json.load(f)["address"]
                break
            except (ValueError, KeyError):
                assert time.monotonic() < deadline, "dask scheduler wrote no scheduler file"
                time.sleep(0.1)
        with Client(target, timeout=30) as client:
            client.wait_for_workers(len(worker_names), timeout=60)
        yield target
    finally:
        for p in procs[::-1]:
            p.terminate()
        for p in procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
