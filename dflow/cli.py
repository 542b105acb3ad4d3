"""The ``dflow`` command: start a cluster of TF1 tasks, join one, report the setup.

::

    dflow cluster --ps 1 --workers 2          # scheduler + named workers; prints the target
    dflow worker tcp://host:8786 --job worker --task 3 --gpus 1
    dflow info                                # versions, CuPy, GPUs
    dflow demo [--local | --scheduler ADDR]   # TF's Iris walk-through on a Dask cluster
    dflow serve EXPORT_DIR --model-name NAME  # TF Serving's REST API for a SavedModel (port 8501)
    dflow serve EXPORT_DIR --model-name NAME --replicas 2 --max-batch-size 32

``cluster``, ``worker`` and ``serve`` run until interrupted (Ctrl-C or SIGTERM), then
close their workers and scheduler cleanly.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import platform
import signal
import sys
import threading
import time


def _dashboard_arg(value: str) -> str | None:
    return None if value.lower() in ("", "none", "off", "no") else value


def _add_tls_arguments(parser) -> None:
    tls = parser.add_argument_group(
        "TLS", "With --tls-ca-file and --tls-cert, scheduler and workers listen on tls:// only and accept only "
               "peers holding a certificate the CA signed (Dask's Security; the same certificate serves "
               "scheduler, workers and clients). Sessions need it too: dflow.cluster.set_security(...) or "
               "DASK_DISTRIBUTED__COMM__TLS__CA_FILE/__CLIENT__CERT/__CLIENT__KEY.")
    tls.add_argument("--tls-ca-file", metavar="PEM", help="the CA certificate that signed the certificates")
    tls.add_argument("--tls-cert", metavar="PEM", help="the certificate (and key, unless --tls-key)")
    tls.add_argument("--tls-key", metavar="PEM", help="the certificate's private key")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dflow", description="dflow: TensorFlow 1.x graphs and sessions on Dask.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    cluster = commands.add_parser(
        "cluster", help="start a local scheduler and named ps/worker tasks; run until interrupted",
        description="Starts a Dask scheduler on 127.0.0.1 and one worker process per TF1 task, named "
                    "/job:ps/task:I and /job:worker/task:I, prints the target for tf.Session(target) and the "
                    "dashboard link, and runs until interrupted.")
    cluster.add_argument("--ps", type=int, default=1, help="parameter-server tasks (default 1)")
    cluster.add_argument("--workers", type=int, default=2, help="worker tasks (default 2)")
    cluster.add_argument("--gpus-per-worker", type=int, default=0, help="Dask GPU resource of each worker task")
    cluster.add_argument("--threads-per-worker", type=int, default=1, help="threads of each task (default 1)")
    cluster.add_argument("--dashboard-address", type=_dashboard_arg, default=":8787",
                         help="dashboard address (default :8787; 'none' disables it)")
    _add_tls_arguments(cluster)

    worker = commands.add_parser(
        "worker", help="join a running scheduler as one TF1 task; run until interrupted",
        description="Starts a Dask worker in this process named /job:JOB/task:TASK, which makes it serve that "
                    "task's devices, and joins it to SCHEDULER.")
    worker.add_argument("scheduler", help="the scheduler's address, tcp://host:port or host:port")
    worker.add_argument("--job", default="worker", help="the task's job (default worker)")
    worker.add_argument("--task", type=int, default=0, help="the task's index in its job (default 0)")
    worker.add_argument("--gpus", type=int, default=0, help="Dask GPU resource: the task's GPU devices")
    worker.add_argument("--nthreads", type=int, default=None, help="worker threads (default: CPU cores)")
    worker.add_argument("--listen", default=None, metavar="HOST:PORT",
                        help="where the worker listens (default: chosen by Dask)")
    worker.add_argument("--timeout", type=float, default=60.0, help="seconds to reach the scheduler (default 60)")
    _add_tls_arguments(worker)

    demo = commands.add_parser(
        "demo", help="train TF's Iris DNNClassifier walk-through on a local Dask cluster",
        description="Trains the DNNClassifier of TensorFlow's Iris walk-through (hidden units [10, 10], 1000 "
                    "steps of batch 32) on an embedded local Dask cluster (1 ps, 2 workers), then prints the test "
                    "accuracy and three predictions.")
    from dflow.demo import add_arguments

    add_arguments(demo)

    serve = commands.add_parser(
        "serve", help="serve a SavedModel with TF Serving's REST API; run until interrupted",
        description="Loads the highest version under EXPORT_DIR (its numeric subdirectories 1/, 2/, ..., or "
                    "EXPORT_DIR itself if it holds saved_model.pb) into a session, or one per Dask worker "
                    "(--replicas, --scheduler), and answers TF Serving's REST API: GET /v1/models/NAME, "
                    "GET /v1/models/NAME/metadata, POST /v1/models/NAME:predict (:classify, :regress). A higher "
                    "version appearing later is loaded and swapped in without dropping requests.")
    serve.add_argument("export_dir", help="the SavedModel directory, or a directory of numbered versions")
    serve.add_argument("--model-name", required=True, help="the model's name in the URLs")
    serve.add_argument("--port", type=int, default=8501, help="REST port (default 8501, TF Serving's; 0: any)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--max-request-bytes", type=int, default=16 * 1024 * 1024,
                       help="larger request bodies get 413 unread (default 16 MiB)")
    batching = serve.add_argument_group(
        "batching", "TF Serving's batching parameters: concurrent :predict requests whose inputs all have a "
                    "leading batch dimension are joined into one Session.run and split back.")
    batching.add_argument("--max-batch-size", type=int, default=0,
                          help="rows in a batch at most; 0 (default): no batching")
    batching.add_argument("--batch-timeout-micros", type=int, default=0,
                          help="how long a batch waits for more requests when a batch thread is free (default 0)")
    batching.add_argument("--num-batch-threads", type=int, default=os.cpu_count() or 1,
                          help="batches run at once (default: CPU cores)")
    batching.add_argument("--max-enqueued-batches", type=int, default=100,
                          help="batches waiting at most; beyond, requests get 503 (default 100)")
    serve.add_argument("--request-timeout-ms", type=float, default=0,
                       help="a request not answered within this gets 504 DEADLINE_EXCEEDED (default 0: no limit; "
                            "a request's X-Request-Deadline-Ms or grpc-timeout header may ask for less)")
    where = serve.add_mutually_exclusive_group()
    where.add_argument("--replicas", type=int, default=0, metavar="N",
                       help="serve from N replicas, one per worker of an embedded dflow.LocalCluster (default 0: "
                            "one session in this process)")
    where.add_argument("--scheduler", metavar="ADDR",
                       help="serve from one replica per worker of the Dask cluster at ADDR (tcp://host:port)")
    serve.add_argument("--file-system-poll-wait-seconds", type=float, default=1.0,
                       help="how often EXPORT_DIR is polled for a new version (default 1; 0: never)")

    info = commands.add_parser("info", help="print versions and whether CuPy and GPUs are available")
    info.add_argument("--cupy", action="store_true", help="import CuPy and ask it how many GPUs it sees")
    return parser


def _stop_event() -> threading.Event:
    """An event set by SIGINT or SIGTERM, so both end a command through its cleanup."""
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop


def _say(line: str = "") -> None:
    print(line, flush=True)


def _security(args):
    """The ``Security`` of ``--tls-*`` (None without them); SystemExit naming what is missing."""
    if not (args.tls_ca_file or args.tls_cert or args.tls_key):
        return None
    if not (args.tls_ca_file and args.tls_cert):
        raise SystemExit(f"dflow {args.command}: TLS needs both --tls-ca-file and --tls-cert (and --tls-key "
                         f"unless the certificate file holds the key)")
    for path in (args.tls_ca_file, args.tls_cert, args.tls_key):
        if path and not os.path.isfile(path):
            raise SystemExit(f"dflow {args.command}: no such file: {path}")
    from dflow.cluster.security import security_from_files

    return security_from_files(args.tls_ca_file, args.tls_cert, args.tls_key)


def run_cluster(args) -> int:
    from dflow.cluster.local_cluster import LocalCluster

    security = _security(args)
    stop = _stop_event()
    t0 = time.perf_counter()
    cluster = LocalCluster(ps=args.ps, workers=args.workers, gpus_per_worker=args.gpus_per_worker,
                           threads_per_worker=args.threads_per_worker, dashboard_address=args.dashboard_address,
                           security=security)
    try:
        _say(f"dflow cluster: {args.ps} ps and {args.workers} worker tasks started in "
             f"{time.perf_counter() - t0:.1f} s")
        _say(f"  target:    {cluster.target}    (tf.Session(target), or DFLOW_SCHEDULER for `dflow worker`)")
        if cluster.security is not None:
            _say("  TLS:       clients need the certificate: dflow.cluster.set_security(ca_file=..., cert=..., "
                 "key=...)")
        if cluster.dashboard_link:
            note = "" if importlib.util.find_spec("bokeh") else "    (pip install bokeh for the dashboard pages)"
            _say(f"  dashboard: {cluster.dashboard_link}{note}")
            _say(f"  dflow:     {cluster.dflow_link}    (TF1 sessions, placement, variables, queues, graph)")
        for name, address in cluster.worker_addresses.items():
            _say(f"  {name:<20} {address}")
        _say("Press Ctrl-C to stop.")
        while not stop.wait(0.5):
            pass
        _say("dflow cluster: stopping")
    finally:
        cluster.close()
    return 0


def run_worker(args) -> int:
    from dflow.cluster.server import Server
    from dflow.framework import errors

    security = _security(args)
    stop = _stop_event()
    spec = {"scheduler": [args.scheduler]}
    if args.listen:
        spec[args.job] = {args.task: args.listen}
    try:
        server = Server(spec, job_name=args.job, task_index=args.task, nthreads=args.nthreads, gpus=args.gpus,
                        timeout=args.timeout, security=security)
    except (errors.OpError, ValueError) as e:
        print(f"dflow worker: {e}", file=sys.stderr, flush=True)
        return 1
    try:
        _say(f"dflow worker: /job:{args.job}/task:{args.task} at {server.worker_address} joined {server.target}")
        while not stop.wait(0.5):
            if not server.is_running:
                _say("dflow worker: the worker closed (scheduler gone?)")
                return 1
        _say("dflow worker: stopping")
    finally:
        server.stop()
    return 0


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def run_info(args) -> int:
    from dflow.cluster.local_cluster import visible_gpus
    from dflow.platform.versions import DFLOW_VERSION, VERSION

    _say(f"dflow        {DFLOW_VERSION} (TensorFlow {VERSION} API)")
    for dist in ("dask", "distributed", "numpy", "bokeh"):
        _say(f"{dist:<12} {_version(dist)}")
    _say(f"python       {platform.python_version()}")
    cupy_dist = next((d for d in ("cupy", "cupy-cuda12x", "cupy-cuda11x") if _version(d) != "not installed"), None)
    has_cupy = importlib.util.find_spec("cupy") is not None
    _say(f"cupy         {_version(cupy_dist) if cupy_dist else ('installed' if has_cupy else 'not installed')}")
    gpus = visible_gpus()
    _say(f"GPUs         {'unknown (no nvidia-smi)' if gpus is None else len(gpus)}")
    if args.cupy:
        if not has_cupy:
            _say("cupy GPUs    - (CuPy is not installed)")
        else:
            try:
                import cupy

                _say(f"cupy GPUs    {cupy.cuda.runtime.getDeviceCount()}")
            except Exception as e:  # noqa: BLE001 - report any CUDA failure as text
                _say(f"cupy GPUs    0 ({type(e).__name__}: {e})")
    return 0


def run_demo(args) -> int:
    from dflow.demo import run

    run(args)
    return 0


def run_serve(args) -> int:
    from dflow.framework import errors
    from dflow.serving import BatchingParameters, ModelServer
    from dflow.serving.replicas import ReplicaSet

    stop = _stop_event()
    t0 = time.perf_counter()
    try:
        batching = None
        if args.max_batch_size:
            batching = BatchingParameters(args.max_batch_size, args.batch_timeout_micros, args.num_batch_threads,
                                          args.max_enqueued_batches)
        runner = None
        if args.replicas:
            runner = ReplicaSet.local(args.replicas)
        elif args.scheduler:
            runner = ReplicaSet.connect(args.scheduler)
        threads = 4 if runner is None else max(4, 2 * len(runner.up()))
        server = ModelServer(args.export_dir, args.model_name, port=args.port, host=args.host,
                             max_request_bytes=args.max_request_bytes, threads=threads, batching=batching,
                             request_timeout_ms=args.request_timeout_ms,
                             poll_seconds=args.file_system_poll_wait_seconds, runner=runner)
    except (errors.OpError, OSError, RuntimeError, ValueError) as e:
        message = e.message if isinstance(e, errors.OpError) else str(e)
        message = message.removeprefix("dflow serve: ")
        print(f"dflow serve: cannot serve {args.export_dir}: {message}", file=sys.stderr, flush=True)
        return 1
    versions = str(server.versions.latest.version)
    _say(f"dflow serve: model {args.model_name!r} version {versions} loaded in {time.perf_counter() - t0:.1f} s")
    _say(f"  REST: {server.url}/v1/models/{args.model_name}    (:predict, :classify, :regress, /metadata)")
    if runner is not None:
        _say(f"  replicas: {', '.join(r.address for r in runner.up())}")
    _say("Press Ctrl-C to stop.")
    server.serve_forever(stop)
    _say("dflow serve: stopped")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _build_parser().parse_args(argv)
    command = {"cluster": run_cluster, "worker": run_worker, "info": run_info, "demo": run_demo,
               "serve": run_serve}[args.command]
    return command(args)


if __name__ == "__main__":
    sys.exit(main())
