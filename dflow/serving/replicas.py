"""Model replicas on Dask workers: ``ReplicaSet``, the runner behind ``dflow serve --replicas N | --scheduler ADDR``.

A replica is a ``ReplicaActor`` (a Dask actor) on one worker, holding a
``Predictor`` (graph and ``Session``) per loaded version. The server parses
requests itself (the signatures come from ``saved_model.pb`` alone), forms
batches, and sends each run's feeds to one replica: the one with the fewest
runs outstanding. A call goes straight to the worker (the worker's
``actor_execute`` RPC, about a millisecond; ``client.submit`` through the
scheduler costs several, see benchmarks/RESULTS.md), and is not Dask's actor
handle on purpose: that handle, on a lost worker, waits for the actor to be
recomputed, which for an actor pinned to a dead worker is forever.

A call that fails because its worker is gone (the connection breaks or is
refused: Dask retries a refused connection until the client's
``connect_timeout``, 3 s by default) marks the replica ``DOWN`` and is retried
on another replica; with none left up the request gets 503 (UNAVAILABLE).
A watcher thread asks the
scheduler for its workers every ``watch_seconds``: replicas of departed
workers go ``DOWN`` before a request finds out, and each new worker (one that
joined, or a nanny's restart of a killed one) gets a replica with every
loaded version.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid

from dflow.serving.batching import deadline_exceeded
from dflow.serving.predictor import Predictor, RequestError, Signatures, read_signatures

_log = logging.getLogger("dflow")


class ReplicaActor:
    """Lives on a worker: the ``Predictor`` of each loaded version of one model."""

    def __init__(self):
        self.predictors: dict[int, Predictor] = {}

    def load(self, version: int, path: str) -> int:
        if version not in self.predictors:
            self.predictors[version] = Predictor(path, version)
        return version

    def run(self, version: int, signature_key: str, feeds: dict, output_keys) -> dict:
        predictor = self.predictors.get(version)
        if predictor is None:
            raise RequestError(f"UNAVAILABLE: version {version} is not loaded on this replica", 503)
        return predictor.run(signature_key, feeds, output_keys)

    def unload(self, version: int) -> None:
        predictor = self.predictors.pop(version, None)
        if predictor is not None:
            predictor.close()


class Replica:
    """The server's view of one replica: where it is, whether it is up, how busy it is."""

    def __init__(self, address: str, future):
        self.address, self.future, self.key = address, future, future.key
        self.state, self.error = "UP", ""
        self.outstanding = 0
        self.served = 0

    def status(self) -> dict:
        return {"worker": self.address, "state": self.state, "outstanding": self.outstanding,
                "served": self.served, "error": self.error}


def _worker_addresses(dask_scheduler=None) -> list:
    return sorted(dask_scheduler.workers)


class ReplicaSet:
    """A replica of the model on every worker of the Dask cluster that ``client`` reaches.

    ``ReplicaSet.local(n)`` starts an embedded ``dflow.LocalCluster`` of
    ``n`` worker processes (closed with the set); ``ReplicaSet.connect(addr)``
    uses an existing cluster's scheduler.
    """

    def __init__(self, client, cluster=None, watch_seconds: float = 0.5):
        self.client, self._cluster = client, cluster
        self.replicas: list[Replica] = []
        self.versions: dict[int, str] = {}
        self._lock = threading.Lock()
        self._placing = threading.Lock()
        self._closed = threading.Event()
        self.refresh()
        if not self.up():
            self.close()
            raise RuntimeError(f"dflow serve: the Dask cluster at {client.scheduler.address} has no worker to "
                               f"place a replica on")
        self._watcher = threading.Thread(target=self._watch, args=(watch_seconds,), name="dflow-serve-replicas",
                                         daemon=True)
        self._watcher.start()

    @classmethod
    def local(cls, replicas: int, connect_timeout: float = 3.0, **kwargs) -> ReplicaSet:
        from dflow.cluster.local_cluster import LocalCluster

        if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 1:
            raise ValueError(f"dflow serve: --replicas must be an integer >= 1, got {replicas!r}")
        cluster = LocalCluster(ps=0, workers=replicas, dashboard_address=None)
        try:
            client = cluster.client(direct_to_workers=True, set_as_default=False, timeout=connect_timeout)
        except BaseException:
            cluster.close()
            raise
        return cls(client, cluster, **kwargs)

    @classmethod
    def connect(cls, address: str, connect_timeout: float = 5.0, **kwargs) -> ReplicaSet:
        import distributed

        from dflow.cluster.security import security_for

        try:
            client = distributed.Client(address, timeout=connect_timeout, set_as_default=False, direct_to_workers=True,
                                        security=security_for(address))
        except (OSError, TimeoutError) as e:
            raise OSError(f"dflow serve: cannot reach the Dask scheduler at --scheduler {address}: {e}") from None
        return cls(client, **kwargs)

    # -- placement

    def up(self) -> list[Replica]:
        with self._lock:
            return [r for r in self.replicas if r.state == "UP"]

    def refresh(self) -> None:
        """Marks replicas of departed workers ``DOWN`` and places one on each worker without one."""
        with self._placing:
            workers = set(self.client.run_on_scheduler(_worker_addresses))
            for replica in self.up():
                if replica.address not in workers:
                    self._down(replica, "its worker left the cluster")
            have = {r.address for r in self.up()}
            for address in sorted(workers - have):
                try:
                    self._place(address)
                except Exception as e:  # noqa: BLE001 - a worker that cannot take a replica stays without one
                    _log.warning("dflow serve: no replica on worker %s: %s", address, e)

    def _place(self, address: str) -> None:
        future = self.client.submit(ReplicaActor, actor=True, workers=[address], allow_other_workers=False,
                                    key=f"dflow-serve-replica-{uuid.uuid4().hex}")
        future.result(timeout=60)
        replica = Replica(address, future)
        for version, path in sorted(self.versions.items()):
            self._call(replica, "load", (version, path), timeout=120)
        with self._lock:
            self.replicas.append(replica)
        _log.info("dflow serve: replica on worker %s", address)

    def _down(self, replica: Replica, why: str) -> None:
        with self._lock:
            if replica.state != "UP":
                return
            replica.state, replica.error = "DOWN", why
            future, replica.future = replica.future, None
        _log.warning("dflow serve: replica on worker %s is down: %s", replica.address, why)
        if future is not None:
            future.release()

    def _watch(self, seconds: float) -> None:
        while not self._closed.wait(seconds):
            try:
                self.refresh()
            except Exception as e:  # noqa: BLE001 - the scheduler may be gone for a moment; keep watching
                if not self._closed.is_set():
                    _log.warning("dflow serve: cannot list the cluster's workers: %s", e)

    # -- calls

    async def _actor_execute(self, replica: Replica, function: str, args: tuple):
        from distributed.protocol import to_serialize

        reply = await self.client.rpc(replica.address).actor_execute(
            actor=replica.key, function=function, args=[to_serialize(a) for a in args], kwargs={})
        if reply["status"] != "OK":
            error = reply["exception"]
            if isinstance(error, OSError):  # the model's own, not a lost worker's: not retried elsewhere
                raise RuntimeError(f"on worker {replica.address}: {type(error).__name__}: {error}") from error
            raise error
        return reply["result"]

    def _call(self, replica: Replica, function: str, args: tuple, timeout: float | None = None):
        return self.client.sync(self._actor_execute, replica, function, args, callback_timeout=timeout)

    def _on_every(self, function: str, args: tuple) -> None:
        """Calls ``function`` on every replica up; a replica whose worker is gone goes ``DOWN``."""
        async def each(replica):
            try:
                await self._actor_execute(replica, function, args)
            except OSError as e:
                self._down(replica, f"{type(e).__name__}: {e}")

        async def all_of(replicas):
            await asyncio.gather(*(each(r) for r in replicas))

        self.client.sync(all_of, self.up())

    # -- the runner interface (see dflow.serving.versions)

    def load(self, version: int, path: str) -> Signatures:
        signatures = read_signatures(path, version)
        with self._placing:  # a replica placed meanwhile loads this version too
            try:
                self._on_every("load", (version, path))
            except BaseException:
                self._on_every("unload", (version,))  # from the replicas where it did load
                raise
            self.versions[version] = path
        if not self.up():
            raise RuntimeError(f"no replica is up to load version {version}")
        return signatures

    def run(self, version: int, signature_key: str, feeds: dict, output_keys, deadline=None) -> dict:
        """Runs on the least busy replica; a replica whose worker died is marked ``DOWN`` and another tried."""
        tried: set = set()
        while True:
            with self._lock:
                candidates = [r for r in self.replicas if r.state == "UP" and id(r) not in tried]
                if not candidates:
                    raise RequestError(f"UNAVAILABLE: no replica of the model is up ({len(self.replicas)} placed, "
                                       f"{len(tried)} failed for this request)", 503)
                replica = min(candidates, key=lambda r: (r.outstanding, r.served))
                replica.outstanding += 1
            tried.add(id(replica))
            timeout = None if deadline is None else max(deadline - time.monotonic(), 1e-3)
            try:
                out = self._call(replica, "run", (version, signature_key, feeds, tuple(output_keys)), timeout)
            except TimeoutError:
                raise deadline_exceeded(f"the replica on {replica.address} did not answer before the request's "
                                        f"deadline") from None
            except OSError as e:  # the connection broke or was refused: its worker is gone
                self._down(replica, f"{type(e).__name__}: {e}")
                continue
            finally:
                with self._lock:
                    replica.outstanding -= 1
            with self._lock:
                replica.served += 1
            return out

    def unload(self, version: int) -> None:
        with self._placing:
            self.versions.pop(version, None)
            self._on_every("unload", (version,))

    def status(self) -> list[dict]:
        with self._lock:
            return [r.status() for r in self.replicas]

    def close(self) -> None:
        self._closed.set()
        try:
            self.client.close()
        finally:
            if self._cluster is not None:
                self._cluster.close()
