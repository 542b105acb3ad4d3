"""`dflow serve` throughput and latency (issue #16): replicas and batching, beside a Session.run floor and TensorFlow.

Two models: TF's Iris walk-through ``DNNClassifier`` (hidden units [10, 10],
exported with a raw serving input receiver; requests name its four features)
and a 784-512-512-10 MLP (``simple_save``). Each is served by ``ModelServer``
in this process in every configuration of ``--configs``: its session in this
process (``local``) or 1 or 2 replicas on an embedded ``LocalCluster``
(``r1``, ``r2``), each without and with request batching (``+b``:
``max_batch_size`` 32, ``batch_timeout_micros`` 0, a batch thread per
replica). The load generator is another process (this script with
``--drive``): ``--clients`` threads, each with a keep-alive connection,
posting one-instance ``:predict`` requests for ``--seconds`` (and at most
``--max-requests``).

Floors, one instance a run in a loop: ``Session.run`` of the loaded
SavedModel in dflow (``make_callable``), and, if ``--tf-python`` runs,
TensorFlow's own: the same MLP weights built in TF 1.x graph mode, saved with
TF's ``simple_save`` and loaded with TF's ``loader.load`` in a fresh session
(TensorFlow cannot read dflow's ``saved_model.pb``; for Iris the TF model is
the DNNClassifier's 4-10-10-3 network, without its feature columns and heads).

``--dispatch`` also times one replica call three ways: the ``actor_execute``
RPC the server uses, Dask's actor handle, and ``client.submit(...,
workers=[addr], pure=False)`` of a function that keeps the Predictor in a
worker-side cache.

Run: ``python benchmarks/bench_serving.py [--clients 8] [--seconds 4] [--dispatch]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_TF_PYTHON = "/tmp/tf/bin/python"
_IRIS_KEYS = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]
_MLP = [784, 512, 512, 10]


def _mlp_weights(sizes: list[int]) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32) for a, b in zip(sizes[:-1], sizes[1:])]


def _export_mlp(path: str) -> tuple[dict, str]:
    """simple_save of the MLP; the request body's instance and the signature name."""
    import dflow as tf

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, _MLP[0]], name="x")
        h = x
        weights = _mlp_weights(_MLP)
        for i, w in enumerate(weights):
            h = tf.matmul(h, tf.Variable(w, name=f"w{i}"))
            if i < len(weights) - 1:
                h = tf.nn.relu(h)
        y = tf.nn.softmax(h, name="probabilities")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.saved_model.simple_save(sess, path, {"x": x}, {"probabilities": y})
    instance = np.random.default_rng(1).standard_normal(_MLP[0]).round(4).tolist()
    return {"x": instance}, "serving_default"


def _export_iris(root: str) -> tuple[dict, str]:
    """TF's Iris DNNClassifier, briefly trained, exported under ``root/<timestamp>``."""
    import dflow as tf
    from dflow.datasets import iris

    (train_x, train_y), _ = iris.load_data()
    columns = [tf.feature_column.numeric_column(k) for k in _IRIS_KEYS]
    est = tf.estimator.DNNClassifier(feature_columns=columns, hidden_units=[10, 10], n_classes=3,
                                     model_dir=os.path.join(root, "..", "iris-model"))
    est.train(lambda: iris.train_input_fn(train_x, train_y, 32), steps=50)
    with tf.Graph().as_default():
        raw = {k: tf.placeholder(tf.float32, [None], name=k) for k in _IRIS_KEYS}
    est.export_saved_model(root, tf.estimator.export.build_raw_serving_input_receiver_fn(raw))
    return {"SepalLength": 5.9, "SepalWidth": 3.0, "PetalLength": 4.2, "PetalWidth": 1.5}, "predict"


def _summary(times: list, seconds: float) -> dict:
    ms = sorted(t * 1e3 for t in times)
    return {"qps": len(times) / seconds, "p50_ms": statistics.median(ms), "p99_ms": ms[int(0.99 * (len(ms) - 1))],
            "requests": len(times)}


def _floor(path: str, instance: dict, signature: str, seconds: float) -> dict:
    import dflow as tf

    with tf.Graph().as_default(), tf.Session() as sess:
        sig = tf.saved_model.loader.load(sess, ["serve"], path).signature_def[signature]
        names = sorted(instance)
        feeds = [sess.graph.get_tensor_by_name(sig.inputs[k].name) for k in names]
        fetches = [sess.graph.get_tensor_by_name(v.name) for _, v in sorted(sig.outputs.items())]
        run = sess.make_callable(fetches, feeds)
        values = [np.asarray([instance[k]], np.float32) for k in names]
        return _timed_loop(lambda: run(*values), seconds)


def _timed_loop(step, seconds: float) -> dict:
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return _summary(times, seconds)


_TF_FLOOR = r"""
import json, sys, tempfile, time, os
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
weights = [np.load(sys.argv[1])[k] for k in sorted(np.load(sys.argv[1]).files)]
seconds = float(sys.argv[2])
path = os.path.join(tempfile.mkdtemp(), "1")
with tf.Graph().as_default(), tf.Session() as sess:
    x = tf.placeholder(tf.float32, [None, weights[0].shape[0]], name="x")
    h = x
    for i, w in enumerate(weights):
        h = tf.matmul(h, tf.Variable(w))
        if i < len(weights) - 1:
            h = tf.nn.relu(h)
    y = tf.nn.softmax(h)
    sess.run(tf.global_variables_initializer())
    tf.saved_model.simple_save(sess, path, {"x": x}, {"probabilities": y})
with tf.Graph().as_default(), tf.Session() as sess:
    sig = tf.saved_model.loader.load(sess, ["serve"], path).signature_def["serving_default"]
    run = sess.make_callable(sig.outputs["probabilities"].name, [sig.inputs["x"].name])
    batch = np.random.default_rng(1).standard_normal((1, weights[0].shape[0])).astype(np.float32)
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        run(batch)
        times.append(time.perf_counter() - t0)
print(json.dumps({"times": times, "version": tf.__version__}))
"""


def _tf_floor(sizes: list[int], seconds: float, tmp: str, tf_python: str) -> dict | None:
    """TensorFlow's own Session.run loop of the same network (a subprocess), or None if it cannot run here."""
    if not os.path.exists(tf_python):
        return None
    weights = os.path.join(tmp, f"weights-{'-'.join(map(str, sizes))}.npz")
    np.savez(weights, **{f"w{i}": w for i, w in enumerate(_mlp_weights(sizes))})
    proc = subprocess.run([tf_python, "-c", _TF_FLOOR, weights, str(seconds)], capture_output=True, text=True,
                          timeout=seconds + 120, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    if proc.returncode != 0:
        print(f"  TensorFlow floor failed: {proc.stderr.strip().splitlines()[-1:]}")
        return None
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return {**_summary(out["times"], seconds), "version": out["version"]}


# -- the load generator (a process of its own) ---------------------------------------------------------------


def _drive(url: str, path: str, body: str, clients: int, seconds: float, max_requests: int) -> dict:
    host, port = url.split("//")[1].split(":")
    times: list = []
    failures: list = []
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds

    def client():
        conn = http.client.HTTPConnection(host, int(port), timeout=60)
        mine = []
        try:
            while time.perf_counter() < stop_at and len(times) + len(mine) < max_requests:
                t0 = time.perf_counter()
                conn.request("POST", path, body, {"Content-Type": "application/json"})
                reply = conn.getresponse()
                data = reply.read()
                if reply.status != 200:
                    failures.append(data[:200].decode(errors="replace"))
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
    return {"times": times, "elapsed": time.perf_counter() - start, "failures": failures[:3]}


def _load(url: str, name: str, body: dict, args) -> dict:
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--drive", url, f"/v1/models/{name}:predict",
                           json.dumps(body), "--clients", str(args.clients), "--seconds", str(args.seconds),
                           "--max-requests", str(args.max_requests)],
                          capture_output=True, text=True, timeout=args.seconds + 120)
    if proc.returncode != 0:
        raise RuntimeError(f"the load generator failed: {proc.stderr[-2000:]}")
    out = json.loads(proc.stdout)
    if out["failures"]:
        raise RuntimeError(f"requests failed: {out['failures']}")
    return _summary(out["times"], out["elapsed"])


# -- the runs -------------------------------------------------------------------------------------------------


def _serve(root: str, name: str, body: dict, config: str, args) -> dict:
    from dflow.serving import BatchingParameters, ModelServer
    from dflow.serving.replicas import ReplicaSet

    replicas = 0 if config.startswith("local") else int(config[1])
    runner = ReplicaSet.local(replicas) if replicas else None
    batching = (BatchingParameters(max_batch_size=32, batch_timeout_micros=0, num_batch_threads=max(1, replicas))
                if config.endswith("+b") else None)
    with ModelServer(root, name, port=0, threads=max(4, 2 * replicas), batching=batching, runner=runner,
                     poll_seconds=0) as server:
        result = _load(server.url, name, body, args)
        status = server.versions.runner.status()
        if status:
            result["served"] = [r["served"] for r in status]
        if server.batcher is not None:
            result["batches"] = server.batcher.batches
    return result


def _dispatch_costs(path: str, instance: dict, signature: str, calls: int = 300) -> dict:
    """Milliseconds per call of one replica: the server's actor_execute RPC, Dask's actor handle, client.submit."""
    from dflow.serving.replicas import ReplicaSet

    replicas = ReplicaSet.local(1)
    try:
        replica = replicas.up()[0]
        replicas.load(1, path)
        feeds = {k: np.asarray([v], np.float32) for k, v in instance.items()}
        outputs = ("probabilities",)
        client = replicas.client
        with client.as_current():
            handle = replica.future.result()

        def actor_handle_run():
            with client.as_current():  # the handle finds its client here (the set is not the default client)
                return handle.run(1, signature, feeds, outputs).result(timeout=30)

        def cached_run(path, feeds):
            from distributed import get_worker

            from dflow.serving.predictor import Predictor

            worker = get_worker()
            cache = worker.__dict__.setdefault("_bench_predictors", {})
            if path not in cache:
                cache[path] = Predictor(path, 1)
            return cache[path].run(signature, feeds, outputs)

        ways = {
            "actor_execute RPC (the server's)": lambda: replicas._call(replica, "run", (1, signature, feeds, outputs)),
            "Dask actor handle": actor_handle_run,
            "client.submit, worker-side cache": lambda: client.submit(
                cached_run, path, feeds, workers=[replica.address], pure=False).result(timeout=30),
        }
        out = {}
        for way, call in ways.items():
            for _ in range(20):
                call()
            t0 = time.perf_counter()
            for _ in range(calls):
                call()
            out[way] = (time.perf_counter() - t0) / calls * 1e3
        return out
    finally:
        replicas.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--configs", default="local,local+b,r1,r1+b,r2,r2+b",
                        help="comma-separated: local, r1, r2 (replicas), each optionally +b (batching)")
    parser.add_argument("--models", default="iris,mlp")
    parser.add_argument("--tf-python", default=_TF_PYTHON, help="a Python with TensorFlow, for its floor")
    parser.add_argument("--dispatch", action="store_true", help="also time one replica call three ways")
    parser.add_argument("--drive", nargs=3, metavar=("URL", "PATH", "BODY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive:
        print(json.dumps(_drive(*args.drive, args.clients, args.seconds, args.max_requests)))
        return
    import logging

    logging.getLogger("distributed").setLevel(logging.ERROR)
    print(f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, {platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}; {args.clients} client threads in another process, "
          f"{args.seconds:g} s per configuration", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            root = os.path.join(tmp, name)
            if name == "iris":
                body, signature = _export_iris(root)
                path = os.path.join(root, os.listdir(root)[0])
                sizes = [4, 10, 10, 3]
            else:
                body, signature = _export_mlp(os.path.join(root, "1"))
                path = os.path.join(root, "1")
                sizes = _MLP
            floor = _floor(path, body, signature, args.seconds)
            print(f"{name}: dflow Session.run loop {floor['qps']:8.0f} runs/s  p50 {floor['p50_ms']:.3f} ms  "
                  f"p99 {floor['p99_ms']:.3f} ms", flush=True)
            tf_floor = _tf_floor(sizes, args.seconds, tmp, args.tf_python)
            if tf_floor:
                print(f"{name}: TF {tf_floor['version']} Session.run loop {tf_floor['qps']:8.0f} runs/s  "
                      f"p50 {tf_floor['p50_ms']:.3f} ms  p99 {tf_floor['p99_ms']:.3f} ms", flush=True)
            request = {"signature_name": signature, "instances": [body]}
            served = {}
            for config in args.configs.split(","):
                served[config] = r = _serve(root, name, request, config, args)
                extra = "".join(f"  {k} {r[k]}" for k in ("served", "batches") if k in r)
                print(f"{name}: dflow serve {config:8s} {r['qps']:7.0f} QPS  p50 {r['p50_ms']:6.2f} ms  "
                      f"p99 {r['p99_ms']:6.2f} ms{extra}", flush=True)
            for batched in ("", "+b"):
                if f"r1{batched}" in served and f"r2{batched}" in served:
                    ratio = served[f"r2{batched}"]["qps"] / served[f"r1{batched}"]["qps"]
                    print(f"{name}: replica scaling r2/r1{batched}: {ratio:.2f}x", flush=True)
            if args.dispatch and name == "iris":
                for way, ms in _dispatch_costs(path, body, signature).items():
                    print(f"{name}: one replica call, {way}: {ms:.2f} ms", flush=True)


if __name__ == "__main__":
    main()
