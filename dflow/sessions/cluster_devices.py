"""The devices of a Dask cluster as a session sees them: ``ClusterDevices``.

The cluster's workers serve TF1 tasks: a worker named ``/job:ps/task:0``
serves that task (``dflow.placement.device_map`` also maps plain, unnamed Dask
workers in a stable order). A session places its ops on those devices and
sends each partition to the worker serving its device.

Workers come and go. A device seen once stays placeable: while the worker
that served it is lost (a nanny restarting it), a run that needs it waits
for it, bounded by ``operation_timeout_in_ms``, and then fails with
``UnavailableError`` naming the device. What this process saw of a cluster
outlives its sessions, and the scheduler's dflow extension remembers lost
tasks for a process that never saw them. Every change of the device map
bumps ``topology_version``, which makes the session re-plan.
"""

from __future__ import annotations

import logging
import time

from dflow.framework import errors

DEVICE_WAIT_S = 60.0  # default wait for a lost task's worker to come back
POLL_S = 0.25
_BROKEN_S = 5.0  # how long a worker whose connection broke stays off the map while the scheduler still lists it

_logger = logging.getLogger("dflow.cluster")
_logged_mappings: dict = {}  # scheduler address -> the mapping last logged for it
_devices_seen: dict = {}  # scheduler address -> every device this process saw it offer


def _log_mapping_once(address: str, mapping: dict) -> None:
    """Logs which worker serves which task, once per cluster and process (again when it changes)."""
    from dflow.placement.device_map import describe_mapping

    text = describe_mapping(mapping)
    if _logged_mappings.get(address) != text:
        _logged_mappings[address] = text
        _logger.info("TF1 tasks of the Dask cluster at %s:\n%s", address, text)


class ClusterDevices:
    """Which worker of the cluster ``client`` reaches serves which device, kept current."""

    def __init__(self, client, config):
        from dflow.framework.device_spec import DeviceSpec

        self.client = client
        self.topology_version = 0  # bumped when the device map changes: cached plans are stale
        self._filters = [DeviceSpec.from_string(f) for f in (config.device_filters or [])]
        # How long a run waits for a lost task's worker to come back (a nanny restarting it).
        self._device_wait_s = (config.operation_timeout_in_ms / 1000.0 if config.operation_timeout_in_ms
                               else DEVICE_WAIT_S)
        self._known_devices = self._departed_devices()
        # Workers whose connection broke under a run, kept off the device map for a few seconds while
        # the scheduler has not yet noticed they are gone (the next run then waits for the new process).
        self._broken: dict = {}
        self._mapping: dict | None = None  # address -> what map_devices says it serves
        # Which devices each worker address served, kept after it is gone: a lost worker is
        # named by its devices even when another thread already re-mapped the cluster.
        self._served_by: dict = {}
        self.refresh_devices()
        if self._filters:
            self._wait_for_filtered_devices(self._device_wait_s)

    def refresh_devices(self) -> None:
        from dflow.placement.device_map import full_device_names, map_devices

        workers = self._workers()
        now = time.monotonic()
        self._broken = {a: t for a, t in self._broken.items() if a in workers and now - t < _BROKEN_S}
        workers = {a: w for a, w in workers.items() if a not in self._broken}
        if not workers:
            raise errors.UnavailableError(None, None, f"The Dask cluster at {self.client.scheduler.address} has "
                                                      f"no workers.")
        infos = [(addr, w.get("name"), w.get("resources") or {}) for addr, w in workers.items()]
        old, self._mapping = self._mapping, map_devices(infos)
        if old is not None and {a: e["devices"] for a, e in old.items()} != \
                {a: e["devices"] for a, e in self._mapping.items()}:
            self.topology_version += 1  # a task lost or back on a new process: cached plans are stale
        _log_mapping_once(self.client.scheduler.address, self._mapping)
        self._devices = [d for d in full_device_names(self._mapping)
                         if not self._filters or any(_matches(f, d) for f in self._filters)]
        # Devices seen once stay placeable: while a lost worker restarts, runs that need it
        # wait for it (bounded) rather than fail placement. What this process saw of the
        # cluster outlives the session, so a session re-created after the loss knows too.
        seen = _devices_seen.setdefault(self.client.scheduler.address, [])
        seen[:] = dict.fromkeys(seen + self._devices)
        self._known_devices = list(dict.fromkeys(self._known_devices + seen))
        for device in self._devices:
            address = self._address_of(device)
            if address is not None:
                self._served_by.setdefault(address, set()).add(device)

    def _departed_devices(self) -> list:
        """The devices of tasks whose workers the scheduler lost lately and that none serves now
        (its dflow extension keeps them, see ``DflowExtension.departed_devices``); ``[]`` for a
        scheduler without the extension."""
        try:
            return list(self.client.sync(self.client.scheduler.dflow_departed_devices))
        except Exception:  # noqa: BLE001 - no such handler: a plain Dask scheduler
            return []

    def _wait_for_device(self, device: str, op):
        """The address of the worker serving ``device``, waiting up to ``_device_wait_s`` for a
        lost one to come back; ``UnavailableError`` naming the device when it does not."""
        deadline = time.monotonic() + self._device_wait_s
        announced = False
        while True:
            self.refresh_devices()
            worker = self._address_of(device)
            if worker is not None:
                if announced:
                    _logger.info("%s is served again, by the Dask worker at %s.", device, worker)
                return worker
            if time.monotonic() >= deadline:
                raise errors.UnavailableError(
                    None, op, f"No worker serves {device}: it was lost and has not come back within "
                              f"{self._device_wait_s:g} s (ConfigProto.operation_timeout_in_ms sets the wait); the "
                              f"cluster has {', '.join(self._devices) or 'no devices'}.")
            if not announced:
                announced = True
                _logger.info("Waiting up to %g s for a worker to serve %s again (it was lost).",
                             self._device_wait_s, device)
            time.sleep(POLL_S)

    def _wait_for_filtered_devices(self, timeout_s: float) -> None:
        """``ConfigProto.device_filters`` name the tasks a session needs: as
        TF1's CreateSession, wait for each to have a worker, but not forever
        (a restarting parameter server comes back within seconds)."""
        deadline = time.monotonic() + timeout_s
        while True:
            missing = [f for f in self._filters if not any(_matches(f, d) for d in self._devices)]
            if not missing:
                return
            if time.monotonic() >= deadline:
                raise errors.UnavailableError(
                    None, None, f"No worker of the Dask cluster at {self.client.scheduler.address} serves "
                                f"{', '.join(f.to_string() for f in missing)} (named by ConfigProto.device_filters) "
                                f"after waiting {timeout_s:g} s; it has {', '.join(self._devices) or 'no devices'}.")
            time.sleep(POLL_S)
            self.refresh_devices()

    def devices(self, want_gpu: bool = False) -> list:
        return list(self._known_devices)

    def describe_devices(self) -> str:
        """Which Dask worker (address, name) serves which TF1 task: for logs and placement errors."""
        from dflow.placement.device_map import describe_mapping

        return f"Dask cluster at {self.client.scheduler.address}:\n{describe_mapping(self._mapping)}"

    @property
    def default_device(self) -> str:
        """Where ops with no device run: this process's task (a ``tf.train.Server``),
        else ``/job:worker/task:0``, else the first device that is not a ps."""
        local = _local_workers()
        cpus = [d for d in self._devices if d.endswith("/device:CPU:0")]
        for name in cpus:
            if self._address_of(name) in local:
                return name
        for name in cpus:
            if name.startswith("/job:worker/replica:0/task:0/"):
                return name
        for name in cpus:
            if not name.startswith("/job:ps/"):
                return name
        return self._devices[0]

    def worker_of(self, device: str) -> str:
        from dflow.placement.device_map import worker_for_device

        return worker_for_device(self._mapping, device)

    def _check_alive(self, addresses) -> None:
        """UnavailableError naming the device if a worker this run needs is gone.

        The device map is refreshed and ``topology_version`` bumped, so that the
        session re-plans its next runs onto the workers serving the devices now
        (a restarted worker has a new address and none of the old state)."""
        alive = set(self._workers()) - set(self._broken)
        lost = sorted({a for a in addresses if a not in alive})
        if not lost:
            return
        served = self._served_by
        self.topology_version += 1
        try:
            self.refresh_devices()
        except errors.UnavailableError:
            pass
        devices = ", ".join(sorted({d for a in lost for d in served.get(a, {a})}))
        raise errors.UnavailableError(
            None, None, f"Lost the Dask worker(s) serving {devices} ({', '.join(lost)}): the variables and queues "
                        f"they held are gone. Re-initialize them or restore from a checkpoint; the next run is "
                        f"planned on the workers serving those devices now.")

    def _workers(self) -> dict:
        """The scheduler's current workers (address -> info), fetched now.

        ``Client.scheduler_info`` may answer from a cache without workers when
        the client is driven from another thread; ask the scheduler directly."""
        return self.client.sync(self.client.scheduler.identity, n_workers=-1)["workers"]

    def _address_of(self, device: str):
        try:
            return self.worker_of(device)
        except ValueError:
            return None


def _matches(spec, device: str) -> bool:
    """Whether the full device name ``device`` is one the partial ``spec`` names."""
    from dflow.framework.device_spec import DeviceSpec

    return spec.is_subset_of(DeviceSpec.from_string(device))


def _local_workers() -> set:
    """Addresses of the Dask workers running in this process (``tf.train.Server``)."""
    import sys

    if "distributed" not in sys.modules:
        return set()
    from distributed import Worker

    return {w.address for w in list(Worker._instances) if w.address}
