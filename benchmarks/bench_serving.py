"""`dflow serve` throughput and latency (issue #16), with a plain ``Session.run`` loop as the floor.

Two models, exported with ``tf.saved_model.simple_save``: the Iris network
(4-10-10-3, softmax) and a 784-512-512-10 MLP. The server runs in this process
(``ModelServer`` on its own thread, one replica, no batching yet); a load
generator of ``--clients`` threads, each with a keep-alive HTTP connection,
posts ``:predict`` requests of one instance for ``--seconds`` (bounded also by
``--max-requests``). The floor is the same prediction as a ``Session.run`` of
the loaded model in a loop (one instance per run), in the same process.

Run: ``python benchmarks/bench_serving.py [--clients 4] [--seconds 5]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import dflow as tf  # noqa: E402
from dflow.serving.server import ModelServer  # noqa: E402


def _export(path: str, sizes: list[int]) -> None:
    rng = np.random.default_rng(0)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, sizes[0]], name="x")
        h = x
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            w = tf.Variable((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32), name=f"w{i}")
            h = tf.matmul(h, w)
            if i < len(sizes) - 2:
                h = tf.nn.relu(h)
        y = tf.nn.softmax(h, name="probabilities")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.saved_model.simple_save(sess, path, {"x": x}, {"probabilities": y})


def _floor(path: str, instance: list, seconds: float) -> dict:
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], path)
        sig = meta.signature_def["serving_default"]
        x = sess.graph.get_tensor_by_name(sig.inputs["x"].name)
        y = sess.graph.get_tensor_by_name(sig.outputs["probabilities"].name)
        run = sess.make_callable(y, [x])
        batch = np.asarray([instance], np.float32)
        times = []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            t0 = time.perf_counter()
            run(batch)
            times.append(time.perf_counter() - t0)
    return _summary(times, seconds)


def _summary(times: list, seconds: float) -> dict:
    ms = sorted(t * 1e3 for t in times)
    return {"qps": len(times) / seconds, "p50_ms": statistics.median(ms), "p99_ms": ms[int(0.99 * (len(ms) - 1))],
            "requests": len(times)}


def _load(server: ModelServer, name: str, instance: list, clients: int, seconds: float, max_requests: int) -> dict:
    body = json.dumps({"instances": [{"x": instance}]})
    times: list = []
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds
    failures = []

    def client():
        conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
        mine = []
        try:
            while time.perf_counter() < stop_at and len(times) + len(mine) < max_requests:
                t0 = time.perf_counter()
                conn.request("POST", f"/v1/models/{name}:predict", body, {"Content-Type": "application/json"})
                reply = conn.getresponse()
                data = reply.read()
                if reply.status != 200:
                    failures.append(data[:200])
                    return
                mine.append(time.perf_counter() - t0)
        finally:
            conn.close()
            with lock:
                times.extend(mine)

    start = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 60)
    elapsed = time.perf_counter() - start
    if failures:
        raise RuntimeError(f"requests failed: {failures[:3]}")
    return _summary(times, elapsed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--max-requests", type=int, default=200_000)
    args = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}; {args.clients} clients, {args.seconds:g} s each")
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as tmp:
        for name, sizes in (("iris", [4, 10, 10, 3]), ("mlp", [784, 512, 512, 10])):
            path = os.path.join(tmp, name, "1")
            _export(path, sizes)
            instance = rng.standard_normal(sizes[0]).round(4).tolist()
            floor = _floor(path, instance, args.seconds)
            with ModelServer(os.path.join(tmp, name), name, port=0) as server:
                served = _load(server, name, instance, args.clients, args.seconds, args.max_requests)
            print(f"{name:5s} dflow serve: {served['qps']:8.0f} QPS  p50 {served['p50_ms']:6.2f} ms  "
                  f"p99 {served['p99_ms']:6.2f} ms | Session.run loop: {floor['qps']:8.0f} runs/s  "
                  f"p50 {floor['p50_ms']:6.3f} ms  p99 {floor['p99_ms']:6.3f} ms | served/floor "
                  f"{served['qps'] / floor['qps']:.3f}")


if __name__ == "__main__":
    main()
