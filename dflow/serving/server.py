"""TF Serving's REST API on tornado: ``ModelServer``.

Routes (TF Serving's)::

    GET  /v1/models/NAME[/versions/N]                 model_version_status
    GET  /v1/models/NAME[/versions/N]/metadata        signature_def map
    POST /v1/models/NAME[/versions/N]:predict         {"instances": [...]} or {"inputs": ...}
    POST /v1/models/NAME[/versions/N]:classify        {"examples": [...], "context": {...}}
    POST /v1/models/NAME[/versions/N]:regress

Errors are ``{"error": "..."}``: 400 for a bad request, 404 for an unknown
model, version or path, 413 for a body over ``max_request_bytes`` (refused
from its ``Content-Length`` before it is read, or as soon as a chunked body
passes the limit), 503 when the batch queue is full or no replica is up, 504
(``DEADLINE_EXCEEDED``) when a request's deadline passes before its answer.

A request's deadline is the least of the server's ``request_timeout_ms`` and
its own header: ``X-Request-Deadline-Ms: 250`` (milliseconds from arrival)
or gRPC's ``grpc-timeout: 250m`` (TF Serving's gRPC clients set it; units
``H M S m u n``). TF Serving's REST API has no deadline of its own.

Runs happen on a thread pool (or a ``Batcher``'s consumers), against the
servable ``ModelVersions`` hands out, so the IOLoop keeps accepting requests
while sessions run, and a new version swaps in between requests.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import tornado.httpserver
import tornado.ioloop
import tornado.netutil
import tornado.web

from dflow.serving.batching import Batcher, BatchingParameters, deadline_exceeded
from dflow.serving.predictor import RequestError
from dflow.serving.versions import LocalRunner, ModelVersions

_log = logging.getLogger("dflow")

DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024
_MODEL = r"/v1/models/([^/:]+)(?:/versions/([^/:]+))?"


def _timeout_seconds(headers) -> float | None:
    """The request's own timeout from ``X-Request-Deadline-Ms`` or gRPC's ``grpc-timeout`` header, else ``None``."""
    value = headers.get("X-Request-Deadline-Ms")
    if value is not None:
        try:
            ms = float(value)
        except ValueError:
            ms = -1.0
        if not ms > 0 or ms == float("inf"):
            raise RequestError(f"header X-Request-Deadline-Ms: expected a positive number of milliseconds, "
                               f"got {value!r}")
        return ms / 1e3
    value = headers.get("grpc-timeout")
    if value is not None:
        units = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
        if not (2 <= len(value) <= 9 and value[:-1].isdigit() and value[-1] in units and int(value[:-1]) > 0):
            raise RequestError(f"header grpc-timeout: expected 1 to 8 digits and a unit (H, M, S, m, u, n), "
                               f"e.g. 250m, got {value!r}")
        return int(value[:-1]) * units[value[-1]]
    return None


class _Handler(tornado.web.RequestHandler):
    def initialize(self, server: ModelServer):
        self.server = server

    def set_default_headers(self):
        self.set_header("Content-Type", "application/json")

    def reply(self, status: int, body: dict) -> None:
        self.set_status(status)
        self.finish(json.dumps(body, indent=None, allow_nan=True) + "\n")

    def write_error(self, status_code, **kwargs):
        self.finish(json.dumps({"error": self._reason}) + "\n")

    def version(self, name: str, version: str | None) -> int | None:
        """The version a URL names (``None``: the latest); 404 for another model or a version that is no number."""
        if name != self.server.model_name:
            raise RequestError(f"Servable not found for request: "
                               f"{'Latest(' + name if version is None else 'Specific(' + name + ', ' + version})",
                               404)
        if version is None:
            return None
        if not version.isdigit():
            raise RequestError(f"Servable not found for request: Specific({name}, {version})", 404)
        return int(version)


class StatusHandler(_Handler):
    def get(self, name, version):
        try:
            number = self.version(name, version)
            status = self.server.versions.status(number)
            if not status:
                raise RequestError(f"Servable not found for request: Specific({name}, {version})", 404)
        except RequestError as e:
            return self.reply(e.status, {"error": str(e)})
        body = {"model_version_status": status}
        replicas = self.server.versions.runner.status()
        if replicas is not None:
            body["replicas"] = replicas
        return self.reply(200, body)


class MetadataHandler(_Handler):
    def get(self, name, version):
        try:
            servable = self.server.versions.acquire(self.version(name, version), name)
        except RequestError as e:
            return self.reply(e.status, {"error": str(e)})
        try:
            metadata = servable.signatures.metadata()
        finally:
            self.server.versions.release(servable)
        return self.reply(200, {"model_spec": {"name": name, "signature_name": "", "version": str(servable.version)},
                                "metadata": {"signature_def": metadata}})


@tornado.web.stream_request_body
class RunHandler(_Handler):
    """``:predict``, ``:classify`` and ``:regress``; the body is streamed so oversized ones are refused unread."""

    def prepare(self):
        self._arrived = time.monotonic()
        self._chunks, self._size, self._too_big = [], 0, False
        length = self.request.headers.get("Content-Length")
        if length is not None and length.isdigit() and int(length) > self.server.max_request_bytes:
            self._refuse()

    def _refuse(self):
        self._too_big = True
        self.reply(413, {"error": f"Request body of {self.request.headers.get('Content-Length', 'over')} bytes is "
                                  f"over the limit of {self.server.max_request_bytes} bytes (--max-request-bytes)"})

    def data_received(self, chunk):
        if self._too_big:
            return
        self._size += len(chunk)
        if self._size > self.server.max_request_bytes:
            self._chunks = []
            self._refuse()
            return
        self._chunks.append(chunk)

    def _deadline(self) -> float | None:
        timeouts = [t for t in (_timeout_seconds(self.request.headers), self.server.request_timeout) if t]
        return self._arrived + min(timeouts) if timeouts else None

    async def post(self, name, version, method):
        if self._too_big:
            return
        try:
            deadline = self._deadline()
            servable = self.server.versions.acquire(self.version(name, version), name)
        except RequestError as e:
            return self.reply(e.status, {"error": str(e)})
        try:
            try:
                body = json.loads(b"".join(self._chunks))
            except (ValueError, UnicodeDecodeError) as e:
                raise RequestError(f"JSON Parse error: {e}") from None
            if not isinstance(body, dict):
                raise RequestError("JSON Value: the request body must be a JSON object")
            job = servable.signatures.prepare(method, body)
            outputs = await self.server.dispatch(servable, job, deadline)
            result = job.reply(outputs)
        except RequestError as e:
            return self.reply(e.status, {"error": str(e)})
        except Exception as e:  # noqa: BLE001 - a failed run is the client's answer, not the server's end
            _log.exception("dflow serve: %s of %s failed", method, name)
            return self.reply(500, {"error": f"{type(e).__name__}: {e}"})
        finally:
            self.server.versions.release(servable)
        return self.reply(200, result)


class NotFoundHandler(_Handler):
    def prepare(self):
        self.reply(404, {"error": f"Malformed request: {self.request.method} {self.request.path}"})


class ModelServer:
    """Serves the highest version under ``export_dir`` as model ``model_name`` on ``host:port`` (0: any free port).

    ``start()`` loads the model (raising the loader's error if files are
    missing) and runs the IOLoop on a thread; ``serve_forever()`` runs it on
    the calling thread instead. ``stop()`` closes the server and sessions.

    ``batching`` (a ``BatchingParameters``) joins concurrent ``:predict``
    requests into one run; ``request_timeout_ms`` caps every request's wait
    (504 past it; a request's own ``X-Request-Deadline-Ms`` or
    ``grpc-timeout`` header may ask for less); ``poll_seconds`` is how often
    a new version is looked for (0: never); ``runner`` holds the sessions
    (default ``LocalRunner()``, this process; ``replicas.ReplicaSet``: Dask
    workers).
    """

    def __init__(self, export_dir, model_name: str, port: int = 8501, host: str = "127.0.0.1",
                 max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES, threads: int = 4,
                 batching: BatchingParameters | None = None, request_timeout_ms: float = 0,
                 poll_seconds: float = 1.0, runner=None):
        runner = runner if runner is not None else LocalRunner()
        try:
            _check_arguments(model_name, request_timeout_ms, poll_seconds)
        except ValueError:
            runner.close()
            raise
        self.model_name = model_name
        self.host = host
        self.max_request_bytes = int(max_request_bytes)
        self.request_timeout = request_timeout_ms / 1e3 if request_timeout_ms else None
        self.poll_seconds = float(poll_seconds)
        self.batching = batching
        threads = threads + (batching.num_batch_threads if batching else 0)
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="dflow-serve")
        self._loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dflow-serve-load")
        try:
            self.versions = ModelVersions(export_dir, runner, self._loader)
        except BaseException:
            runner.close()
            raise
        self.batcher = Batcher(batching, self.executor) if batching else None
        try:
            self._sockets = tornado.netutil.bind_sockets(port, host)
        except BaseException:
            self.versions.close()
            raise
        self.port = self._sockets[0].getsockname()[1]
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._http: tornado.httpserver.HTTPServer | None = None
        self._started = threading.Event()
        self._polling = False

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def predictors(self) -> dict:
        """``{version: Predictor}`` of the versions loaded in this process (with the default runner)."""
        return dict(getattr(self.versions.runner, "predictors", {}))

    async def dispatch(self, servable, job, deadline: float | None) -> dict:
        """``job``'s outputs, run on ``servable`` in a batch or alone; 504 once ``deadline`` passes."""
        if self.batcher is not None and self.batcher.accepts(job):
            future = self.batcher.submit(servable, job, deadline)
        else:
            future = asyncio.get_running_loop().run_in_executor(self.executor, _run_one, servable, job, deadline)
        if deadline is None:
            return await future
        try:
            return await asyncio.wait_for(future, max(deadline - time.monotonic(), 0))
        except asyncio.TimeoutError:
            raise deadline_exceeded("the request's deadline passed before its answer was ready") from None

    def _app(self) -> tornado.web.Application:
        args = {"server": self}
        return tornado.web.Application([
            (_MODEL + r"/metadata", MetadataHandler, args),
            (_MODEL + r":(predict|classify|regress)", RunHandler, args),
            (_MODEL, StatusHandler, args),
        ], default_handler_class=NotFoundHandler, default_handler_args=args)

    async def _poll(self):
        if self._polling:
            return
        self._polling = True
        try:
            await asyncio.get_running_loop().run_in_executor(self._loader, self.versions.poll)
        except Exception:  # noqa: BLE001 - the watcher keeps watching
            _log.exception("dflow serve: looking for new versions failed")
        finally:
            self._polling = False

    async def _serve(self, stop: asyncio.Event):
        # tornado's own body limit stays above ours, so RunHandler answers 413 instead of a dropped connection
        self._http = tornado.httpserver.HTTPServer(self._app(), max_body_size=max(self.max_request_bytes, 1) * 2
                                                   + (1 << 20))
        self._http.add_sockets(self._sockets)
        if self.batcher is not None:
            self.batcher.start()
        watcher = None
        if self.poll_seconds > 0:
            watcher = tornado.ioloop.PeriodicCallback(self._poll, self.poll_seconds * 1e3)
            watcher.start()
        self._started.set()
        await stop.wait()
        if watcher is not None:
            watcher.stop()
        self._http.stop()
        await self._http.close_all_connections()
        if self.batcher is not None:
            await self.batcher.stop()

    def _run(self):
        self._loop = asyncio.new_event_loop()
        self._stop = asyncio.Event()
        try:
            self._loop.run_until_complete(self._serve(self._stop))
        finally:
            self._loop.close()

    def start(self) -> ModelServer:
        self._thread = threading.Thread(target=self._run, name="dflow-serve", daemon=True)
        self._thread.start()
        self._started.wait(30)
        return self

    def serve_forever(self, stop: threading.Event) -> None:
        """Serves on a thread until ``stop`` is set, then stops."""
        self.start()
        try:
            while not stop.wait(0.5):
                pass
        finally:
            self.stop()

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(10)
        for sock in self._sockets:
            sock.close()
        self.executor.shutdown(wait=False)
        self._loader.shutdown(wait=True)
        self.versions.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def _check_arguments(model_name, request_timeout_ms, poll_seconds) -> None:
    if not model_name or "/" in model_name or ":" in model_name:
        raise ValueError(f"--model-name must be a non-empty name without '/' or ':', got {model_name!r}")
    if not request_timeout_ms >= 0:
        raise ValueError(f"--request-timeout-ms must be >= 0 (0: none), got {request_timeout_ms!r}")
    if not poll_seconds >= 0:
        raise ValueError(f"--file-system-poll-wait-seconds must be >= 0 (0: never), got {poll_seconds!r}")


def _run_one(servable, job, deadline):
    """Runs one job in an executor thread, unless its deadline passed while it waited for the thread."""
    if deadline is not None and time.monotonic() >= deadline:
        raise deadline_exceeded("the request's deadline passed before it ran")
    return servable.run(job.signature_key, job.feeds, job.output_keys, deadline)
