"""The allocator and BLAS-thread settings of processes that run kernels."""

import json
import subprocess
import sys

import pytest

from dflow.cluster import ClusterSpec, process_tuning


def test_host_share_divides_the_cores_among_the_compute_tasks_of_a_host():
    spec = ClusterSpec({"scheduler": ["127.0.0.1:8786"], "ps": ["127.0.0.1:0"],
                        "worker": ["127.0.0.1:0", "localhost:2223", "node7:2222", "node7:2223", "node9:2222"]})
    # worker 0 and 1 share this machine ("127.0.0.1" and "localhost" are one host); the ps does not count
    assert process_tuning.host_share(spec, "worker", 0, cores=8) == 4
    assert process_tuning.host_share(spec, "worker", 1, cores=8) == 4
    assert process_tuning.host_share(spec, "ps", 0, cores=8) == 4
    assert process_tuning.host_share(spec, "worker", 2, cores=6) == 3
    assert process_tuning.host_share(spec, "worker", 2, cores=1) == 1  # never below one thread
    # alone on its host, or not in the spec: the library's own default stands
    assert process_tuning.host_share(spec, "worker", 4, cores=8) is None
    assert process_tuning.host_share(spec, "worker", 9, cores=8) is None
    v6 = ClusterSpec({"worker": ["[::1]:2222", "[::1]:2223", "[fe80::2]:2222"]})
    assert process_tuning.host_share(v6, "worker", 0, cores=8) == 4
    assert process_tuning.host_share(v6, "worker", 2, cores=8) is None


_PROBE = """
import json, sys
import dflow as tf
from dflow.cluster import process_tuning as pt
out = {"tuned": pt.tune_allocator(), "again": pt.tune_allocator(), "before": pt.compute_threads()}
sess = tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=1))
out["in_session"] = pt.compute_threads()
out["value"] = float(sess.run(tf.reduce_sum(tf.matmul(tf.ones([64, 64]), tf.ones([64, 64])))))
sess.close()
out["after_close"] = pt.compute_threads()
try:
    pt.set_compute_threads(0)
except ValueError as e:
    out["error"] = str(e)
import resource
import numpy as np
np.ones(6 << 20, np.float32)  # 24 MiB: from the heap (under the mmap threshold), then freed
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):
    np.ones(6 << 20, np.float32)
out["faults"] = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(json.dumps(out))
"""


def _probe(env_extra):
    import os

    env = dict(os.environ, OPENBLAS_NUM_THREADS="2", **env_extra)
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_session_sizes_the_blas_pool_from_intra_op_threads_and_gives_it_back_on_close():
    out = _probe({})
    assert out["tuned"] is True and out["again"] is True
    assert out["before"] == 2 and out["in_session"] == 1 and out["after_close"] == 2
    assert out["value"] == 64.0 * 64 * 64
    assert "intra_op_parallelism_threads must be positive" in out["error"]
    # the user's own MALLOC_TOP_PAD_ wins over dflow's
    assert _probe({"MALLOC_TOP_PAD_": "131072"})["tuned"] is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_memory_a_step_frees_stays_for_the_next_step_unless_the_user_says_otherwise():
    # Five allocations of 24 MiB, each freed: with dflow's trim threshold the pages stay
    # mapped; with glibc's (the user's MALLOC_TRIM_THRESHOLD_ wins) each one faults anew.
    assert _probe({})["faults"] < 100
    assert _probe({"MALLOC_TRIM_THRESHOLD_": "131072"})["faults"] > 1000


_PRELOAD_PROBE = """
import json
from dflow.cluster.local_cluster import _compute_threads_preload
from dflow.cluster import process_tuning as pt
before = pt.compute_threads()
scope = {}
exec(_compute_threads_preload(1), scope)  # as Dask runs a preload given as text
scope["dask_setup"](None)
print(json.dumps({"before": before, "after": pt.compute_threads(), "cores": pt.cpu_count()}))
"""


def test_a_local_cluster_worker_task_takes_its_share_of_the_cores_over_dasks_one_thread():
    import os

    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")  # what Dask's Nanny gives its worker processes
    out = subprocess.run([sys.executable, "-c", _PRELOAD_PROBE], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["before"] == 1 and got["after"] == got["cores"]
