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
passes the limit). Session runs happen on a thread pool, one ``Predictor``
per loaded version, so the IOLoop keeps accepting requests.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from concurrent.futures import ThreadPoolExecutor

import tornado.httpserver
import tornado.netutil
import tornado.web

from dflow.serving.predictor import Predictor, RequestError, find_versions

_log = logging.getLogger("dflow")

DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024
_MODEL = r"/v1/models/([^/:]+)(?:/versions/([^/:]+))?"


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

    def predictors(self, name: str, version: str | None) -> list[Predictor]:
        if name != self.server.model_name:
            raise RequestError(f"Servable not found for request: "
                               f"{'Latest(' + name if version is None else 'Specific(' + name + ', ' + version})",
                               404)
        if version is None:
            return list(self.server.predictors.values())
        if not version.isdigit() or int(version) not in self.server.predictors:
            raise RequestError(f"Servable not found for request: Specific({name}, {version})", 404)
        return [self.server.predictors[int(version)]]


class StatusHandler(_Handler):
    def get(self, name, version):
        try:
            predictors = self.predictors(name, version)
        except RequestError as e:
            return self.reply(e.status, {"error": str(e)})
        return self.reply(200, {"model_version_status": [
            {"version": str(p.version), "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}
            for p in sorted(predictors, key=lambda p: -p.version)]})


class MetadataHandler(_Handler):
    def get(self, name, version):
        try:
            predictor = max(self.predictors(name, version), key=lambda p: p.version)
        except RequestError as e:
            return self.reply(e.status, {"error": str(e)})
        return self.reply(200, {"model_spec": {"name": name, "signature_name": "", "version": str(predictor.version)},
                                "metadata": {"signature_def": predictor.metadata()}})


@tornado.web.stream_request_body
class RunHandler(_Handler):
    """``:predict``, ``:classify`` and ``:regress``; the body is streamed so oversized ones are refused unread."""

    def prepare(self):
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

    async def post(self, name, version, method):
        if self._too_big:
            return
        try:
            predictor = max(self.predictors(name, version), key=lambda p: p.version)
            try:
                body = json.loads(b"".join(self._chunks))
            except (ValueError, UnicodeDecodeError) as e:
                raise RequestError(f"JSON Parse error: {e}") from None
            if not isinstance(body, dict):
                raise RequestError("JSON Value: the request body must be a JSON object")
            run = getattr(predictor, method)
            result = await asyncio.get_running_loop().run_in_executor(self.server.executor, run, body)
        except RequestError as e:
            return self.reply(e.status, {"error": str(e)})
        except Exception as e:  # noqa: BLE001 - a failed run is the client's answer, not the server's end
            _log.exception("dflow serve: %s of %s failed", method, name)
            return self.reply(500, {"error": f"{type(e).__name__}: {e}"})
        return self.reply(200, result)


class NotFoundHandler(_Handler):
    def prepare(self):
        self.reply(404, {"error": f"Malformed request: {self.request.method} {self.request.path}"})


class ModelServer:
    """Serves the highest version under ``export_dir`` as model ``model_name`` on ``host:port`` (0: any free port).

    ``start()`` loads the model (raising the loader's error if files are
    missing) and runs the IOLoop on a thread; ``serve_forever()`` runs it on
    the calling thread instead. ``stop()`` closes the server and sessions.
    """

    def __init__(self, export_dir, model_name: str, port: int = 8501, host: str = "127.0.0.1",
                 max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES, threads: int = 4):
        if not model_name or "/" in model_name or ":" in model_name:
            raise ValueError(f"dflow serve: --model-name must be a non-empty name without '/' or ':', "
                             f"got {model_name!r}")
        self.model_name = model_name
        self.host = host
        self.max_request_bytes = int(max_request_bytes)
        versions = find_versions(export_dir)
        latest = max(versions)
        self.predictors: dict[int, Predictor] = {latest: Predictor(versions[latest], latest)}
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="dflow-serve")
        self._sockets = tornado.netutil.bind_sockets(port, host)
        self.port = self._sockets[0].getsockname()[1]
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._http: tornado.httpserver.HTTPServer | None = None
        self._started = threading.Event()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _app(self) -> tornado.web.Application:
        args = {"server": self}
        return tornado.web.Application([
            (_MODEL + r"/metadata", MetadataHandler, args),
            (_MODEL + r":(predict|classify|regress)", RunHandler, args),
            (_MODEL, StatusHandler, args),
        ], default_handler_class=NotFoundHandler, default_handler_args=args)

    async def _serve(self, stop: asyncio.Event):
        # tornado's own body limit stays above ours, so RunHandler answers 413 instead of a dropped connection
        self._http = tornado.httpserver.HTTPServer(self._app(), max_body_size=max(self.max_request_bytes, 1) * 2
                                                   + (1 << 20))
        self._http.add_sockets(self._sockets)
        self._started.set()
        await stop.wait()
        self._http.stop()
        await self._http.close_all_connections()

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
        for predictor in self.predictors.values():
            predictor.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
