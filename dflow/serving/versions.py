"""The versions of one served model, TF Serving's way: serve the latest, swap to a new one without dropping requests.

``ModelVersions`` keeps a ``Servable`` per version it has aspired to load,
each in one of TF Serving's states (``START``, ``LOADING``, ``AVAILABLE``,
``UNLOADING``, ``END``). ``poll()`` (the server calls it every
``--file-system-poll-wait-seconds``, off the IOLoop) looks for a numbered
directory above the served one, loads it through the runner while the old
version keeps serving, then swaps: new requests go to the new version, and
the old one moves to ``UNLOADING`` and is unloaded (``END``) once its last
in-flight request is answered. A version that fails to load ends in ``END``
with its error in the status, and the old version stays.

The runner holds the loaded sessions: ``LocalRunner`` (a ``Predictor`` per
version in this process) or ``dflow.serving.replicas.ReplicaSet`` (one per
Dask worker). Both have ``load(version, path) -> Signatures``,
``run(version, signature_key, feeds, output_keys, deadline)``,
``unload(version)``, ``status()`` and ``close()``.
"""

from __future__ import annotations

import logging
import os
import threading

from dflow.serving.predictor import Predictor, RequestError, Signatures, find_versions

_log = logging.getLogger("dflow")


class LocalRunner:
    """Each version's ``Predictor`` in this process (one ``Session`` per version, a run at a time)."""

    def __init__(self):
        self.predictors: dict[int, Predictor] = {}

    def load(self, version: int, path: str) -> Signatures:
        predictor = Predictor(path, version)
        self.predictors[version] = predictor
        return predictor

    def run(self, version: int, signature_key: str, feeds: dict, output_keys, deadline=None) -> dict:
        return self.predictors[version].run(signature_key, feeds, output_keys)

    def unload(self, version: int) -> None:
        predictor = self.predictors.pop(version, None)
        if predictor is not None:
            predictor.close()

    def status(self) -> list | None:
        return None

    def close(self) -> None:
        for version in list(self.predictors):
            self.unload(version)


class Servable:
    """One version of the model: its ``Signatures``, its state, and its requests in flight."""

    def __init__(self, version: int, path: str, runner):
        self.version, self.path, self.runner = version, path, runner
        self.state = "START"
        self.error = ""
        self.signatures: Signatures | None = None
        self.in_flight = 0

    def run(self, signature_key: str, feeds: dict, output_keys, deadline=None) -> dict:
        return self.runner.run(self.version, signature_key, feeds, output_keys, deadline)

    def status(self) -> dict:
        return {"version": str(self.version), "state": self.state,
                "status": {"error_code": "UNKNOWN" if self.error else "OK", "error_message": self.error}}


class ModelVersions:
    """The versions under ``export_dir``: loads the highest now, and each higher one ``poll()`` finds later."""

    def __init__(self, export_dir, runner, unload_executor):
        self.export_dir = os.fspath(export_dir)
        self.runner = runner
        self._unload_executor = unload_executor
        self._lock = threading.Lock()
        self.servables: dict[int, Servable] = {}
        self.latest: Servable | None = None
        versions = find_versions(self.export_dir)
        latest = max(versions)
        self._load(latest, versions[latest], raise_errors=True)

    def _load(self, version: int, path: str, raise_errors: bool = False) -> bool:
        servable = Servable(version, path, self.runner)
        with self._lock:
            self.servables[version] = servable
            servable.state = "LOADING"
        try:
            servable.signatures = self.runner.load(version, path)
        except Exception as e:  # noqa: BLE001 - a bad new version leaves the old one serving
            servable.state, servable.error = "END", f"{type(e).__name__}: {getattr(e, 'message', e)}"
            if raise_errors:
                raise
            _log.error("dflow serve: version %d at %s failed to load: %s", version, path, servable.error)
            return False
        with self._lock:
            old, self.latest = self.latest, servable
            servable.state = "AVAILABLE"
            if old is not None:
                old.state = "UNLOADING"
                idle = old.in_flight == 0
        if old is not None:
            _log.info("dflow serve: version %d available; version %d unloads once idle", version, old.version)
            if idle:
                self._unload(old)
        return True

    def poll(self) -> int | None:
        """Loads and swaps to the highest new version, if there is one; its number, else ``None``."""
        from dflow.saved_model.loader import maybe_saved_model_directory

        try:
            versions = find_versions(self.export_dir)
        except OSError as e:
            _log.warning("dflow serve: %s", e)
            return None
        newest = max(versions)
        if newest in self.servables or (self.latest is not None and newest < self.latest.version):
            return None
        if not maybe_saved_model_directory(versions[newest]):
            return None  # still being written: saved_model.pb is the writer's last file
        return newest if self._load(newest, versions[newest]) else None

    def acquire(self, version: int | None, name: str) -> Servable:
        """The servable for a request (the latest, or ``version``), counted in flight until ``release``."""
        with self._lock:
            servable = self.latest if version is None else self.servables.get(version)
            if servable is None or servable.state != "AVAILABLE":
                wanted = f"Latest({name})" if version is None else f"Specific({name}, {version})"
                raise RequestError(f"Servable not found for request: {wanted}", 404)
            servable.in_flight += 1
            return servable

    def release(self, servable: Servable) -> None:
        with self._lock:
            servable.in_flight -= 1
            idle = servable.in_flight == 0 and servable.state == "UNLOADING"
        if idle:
            self._unload_executor.submit(self._unload, servable)

    def _unload(self, servable: Servable) -> None:
        with self._lock:
            if servable.state != "UNLOADING" or servable.in_flight:
                return
        try:
            self.runner.unload(servable.version)
        finally:
            servable.state = "END"
        _log.info("dflow serve: version %d unloaded", servable.version)

    def status(self, version: int | None) -> list[dict]:
        with self._lock:
            chosen = [s for v, s in self.servables.items() if version is None or v == version]
        return [s.status() for s in sorted(chosen, key=lambda s: -s.version)]

    def close(self) -> None:
        self.runner.close()
