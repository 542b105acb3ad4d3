"""Secure clusters (issue 15): TLS between sessions, scheduler and workers, with certificates made here.

``LocalCluster(security=True)`` and ``dflow cluster --tls-*`` listen on
``tls://`` only; a session with the certificate runs graphs there, its direct
worker RPCs over TLS too, and one without it is refused.
"""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import dflow as tf
from dflow.cluster import security as dflow_security

from .test_cli import DFLOW, ROOT, _lines, _wait_for_line

pytest.importorskip("cryptography")  # Security.temporary() makes its certificate with it

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(120)]


def _graph(worker: str):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.arange(3, dtype=np.float32), name="v")
        with tf.device(worker):
            x = tf.placeholder(tf.float32, [3], name="x")
            y = v * 2.0 + x
    return g, v, x, y


def _run(target, config=None, worker="/job:worker/task:0"):
    """Runs ``v * 2 + x`` with ``v`` on the ps and the product on ``worker``: (result, the session's
    direct-run connection pools, their open comms and the addresses they reach)."""
    g, v, x, y = _graph(worker)
    with tf.Session(target, graph=g, config=config) as sess:
        sess.run(v.initializer)
        got = sess.run(y, {x: np.ones(3, np.float32)})
        runtime = sess._runtime
        pools = [loop.pool for _, loop in runtime._caller_loops]
        held = [(addr, c) for pool in pools for table in (pool.available, pool.occupied)
                for addr, cs in table.items() for c in cs]
        comms, addresses = [c for _, c in held], [addr for addr, _ in held]
    return got, pools, comms, addresses


@pytest.fixture(scope="module")
def secure_cluster():
    with tf.LocalCluster(ps=1, workers=1, dashboard_address=None, security=True) as cluster:
        yield cluster


def test_a_secure_local_cluster_listens_on_tls_only(secure_cluster):
    assert secure_cluster.target.startswith("tls://127.0.0.1:")
    assert all(a.startswith("tls://") for a in secure_cluster.worker_addresses.values())
    assert secure_cluster.security.require_encryption


@pytest.mark.parametrize("how", ["cluster", "target"])
def test_a_session_runs_over_tls_and_so_do_its_direct_worker_rpcs(secure_cluster, how):
    from distributed.comm.tcp import TLS

    target = secure_cluster if how == "cluster" else secure_cluster.target
    got, pools, comms, addresses = _run(target, tf.ConfigProto(operation_timeout_in_ms=30_000))
    np.testing.assert_array_equal(got, [1.0, 3.0, 5.0])
    # The direct-run path (worker RPCs from the session's own connection pool) used TLS.
    assert pools and all(p.connection_args.get("ssl_context") is not None for p in pools)
    assert comms and all(isinstance(c, TLS) for c in comms), comms
    assert addresses and all(a.startswith("tls://") for a in addresses)


def test_a_client_without_the_certificate_is_refused(secure_cluster):
    from distributed import Security
    from distributed.comm import connect

    target = secure_cluster.target
    config = tf.ConfigProto(operation_timeout_in_ms=5_000)
    t0 = time.monotonic()
    dflow_security.set_security(None, target)
    try:
        with pytest.raises(tf.errors.UnavailableError, match="needs this client's certificate"):
            _run(target, config)
        dflow_security.set_security(Security.temporary(), target)  # a certificate of another CA
        with pytest.raises(tf.errors.UnavailableError, match=target):
            _run(target, config)
    finally:
        dflow_security.set_security(secure_cluster.security, target)
    assert time.monotonic() - t0 < 20  # refused, not hung

    # The workers refuse such a client too: no plain-text or foreign-certificate side door.
    import asyncio

    worker = next(iter(secure_cluster.worker_addresses.values()))
    with pytest.raises(OSError):
        asyncio.run(connect(worker, timeout=5, **Security.temporary().get_connection_args("client")))
    with pytest.raises(OSError):
        asyncio.run(connect(worker.replace("tls://", "tcp://"), timeout=5))
    # ... and the cluster still serves the holder of its certificate.
    np.testing.assert_array_equal(_run(secure_cluster)[0], [1.0, 3.0, 5.0])


def test_a_server_joins_a_secure_cluster_over_tls(secure_cluster):
    server = tf.train.Server(secure_cluster.cluster_spec, job_name="worker", task_index=1, nthreads=1,
                             dashboard_address=None, timeout=30)
    try:
        assert server.worker_address.startswith("tls://")
        got = _run(secure_cluster.target, worker="/job:worker/task:1")[0]
        np.testing.assert_array_equal(got, [1.0, 3.0, 5.0])
    finally:
        server.stop()


def test_set_security_checks_its_arguments():
    with pytest.raises(ValueError, match="both needed"):
        dflow_security.set_security(ca_file="ca.pem")
    with pytest.raises(TypeError, match="security must be"):
        tf.LocalCluster(ps=1, workers=0, processes=False, dashboard_address=None, security="yes")


def test_dflow_cluster_with_tls_files(tmp_path):
    from distributed import Security

    sec = Security.temporary()  # PEM text of one self-signed certificate: it is its own CA
    ca, cert, key = tmp_path / "ca.pem", tmp_path / "cert.pem", tmp_path / "key.pem"
    ca.write_text(sec.tls_ca_file)
    cert.write_text(sec.tls_client_cert)
    key.write_text(sec.tls_client_key)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(DFLOW + ["cluster", "--ps", "1", "--workers", "1", "--dashboard-address", "none",
                                     "--tls-ca-file", str(ca), "--tls-cert", str(cert), "--tls-key", str(key)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
    try:
        out = _lines(proc)
        target = _wait_for_line(out, "target:", 90).split()[1]
        assert target.startswith("tls://127.0.0.1:")
        config = tf.ConfigProto(operation_timeout_in_ms=30_000)
        with pytest.raises(tf.errors.UnavailableError):
            _run(target, tf.ConfigProto(operation_timeout_in_ms=5_000))
        dflow_security.set_security(address=target, ca_file=str(ca), cert=str(cert), key=str(key))
        try:
            deadline = time.monotonic() + 60
            while True:  # the workers join a moment after the target is printed
                try:
                    got = _run(target, config)[0]
                    break
                except tf.errors.OpError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.5)
        finally:
            dflow_security.set_security(None, target)
        np.testing.assert_array_equal(got, [1.0, 3.0, 5.0])
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def test_dflow_cluster_tls_needs_ca_and_cert(tmp_path, capsys):
    from dflow.cli import main

    with pytest.raises(SystemExit, match="--tls-ca-file and --tls-cert"):
        main(["cluster", "--tls-cert", str(tmp_path / "c.pem")])
    with pytest.raises(SystemExit, match="no such file"):
        main(["cluster", "--tls-ca-file", str(tmp_path / "ca.pem"), "--tls-cert", str(tmp_path / "c.pem")])
    assert sys.modules.get("dflow.cli") is not None
