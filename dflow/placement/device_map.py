"""Which Dask worker serves which TF1 task, and the devices each one offers.

A session on a cluster target sees Dask workers, each an ``(address, name,
resources)`` triple from the scheduler; a TF1 graph asks for devices such as
``/job:ps/task:0`` and ``/job:worker/task:1/device:GPU:0``. ``map_devices``
joins the two. It is a pure function of plain data:

1. **Named workers.** A worker whose name is a TF1 task, ``/job:J/task:T``
   (``/job:J/replica:0/task:T`` is accepted too), serves that task. This is
   how ``dflow cluster``, ``dflow worker``, ``dflow.LocalCluster`` and
   ``tf.train.Server`` name their workers.
2. **Unnamed workers** (any plain Dask cluster) serve the *logical tasks*
   that no named worker serves, in a stable order, so that a script written
   for ``/job:ps/task:0`` and ``/job:worker/task:i`` runs unchanged:

   * the logical tasks are those of ``cluster`` (a ``ClusterSpec`` or a dict
     job -> number of tasks) or, by default, the ``ps`` tasks up to the
     highest one a worker is named for (at least ``ps:0``), then ``worker``
     tasks from ``worker:0`` on: as many as it takes for every unnamed worker
     to serve one task that no named worker serves (and ``worker:0`` at least).
     With ``n`` plain workers that is ``ps: 1`` and ``worker: n - 1``; beside a
     worker named ``/job:ps/task:0``, one plain worker serves ``worker:0``;
   * they are ordered with the ``ps`` tasks first, then the other jobs by
     name, each job by task index (a ``scheduler`` job is no task: skipped);
   * the unnamed workers are sorted by name, then address (numbers inside
     names and addresses compare as numbers: ``2`` before ``10``);
   * the ``k``-th logical task without a named worker goes to unnamed worker
     ``k mod n``. With three plain workers that is ``ps:0`` on the first,
     ``worker:0`` and ``worker:1`` on the next two; with one, both tasks share it.

The mapping depends on the cluster alone, never on a graph, so every session
on one cluster agrees where ``/job:ps/task:0`` (and the state it holds) lives.

A task with no worker has no devices: placing an op there is the placer's
clear error, never a task that waits forever in Dask's ``no-worker`` state.

Each served task offers ``/job:J/replica:0/task:T/device:CPU:0`` and one
``.../device:GPU:i`` per unit of the worker's ``GPU`` resource.

>>> m = map_devices([("tcp://h:1", "/job:ps/task:0", {}), ("tcp://h:2", "/job:worker/task:0", {"GPU": 1})])
>>> full_device_names(m)  # doctest: +NORMALIZE_WHITESPACE
['/job:ps/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0',
 '/job:worker/replica:0/task:0/device:GPU:0']
>>> worker_for_device(m, "/job:worker/task:0/device:GPU:0")
'tcp://h:2'
"""

from __future__ import annotations

import re

from dflow.framework.device_spec import DeviceSpec

_TASK_NAME = re.compile(r"^/job:([^/:]+)(?:/replica:(\d+))?/task:(\d+)/?$")
_DIGITS = re.compile(r"(\d+)")
_NOT_A_TASK_JOB = "scheduler"


def parse_task_name(name) -> tuple[str, int] | None:
    """``"/job:ps/task:0"`` -> ``("ps", 0)``; ``None`` for any other worker name.

    >>> parse_task_name("/job:worker/replica:0/task:3"), parse_task_name("tcp://10.0.0.1:4000")
    (('worker', 3), None)
    """
    if not isinstance(name, str):
        return None
    m = _TASK_NAME.match(name)
    if not m:
        return None
    return m.group(1), int(m.group(3))


def task_prefix(job: str, task: int) -> str:
    """The full name of a task: ``/job:J/replica:0/task:T``."""
    return f"/job:{job}/replica:0/task:{task}"


def worker_name(job: str, task: int) -> str:
    """The Dask worker name that makes a worker serve a task: ``/job:J/task:T``."""
    return f"/job:{job}/task:{task}"


def logical_task_order(cluster) -> list[tuple[str, int]]:
    """The tasks of ``cluster``, ``ps`` first, then other jobs by name, each by index.

    ``cluster`` is a ``ClusterSpec``, or a dict job -> number of tasks, or job
    -> list/dict of addresses.

    >>> logical_task_order({"worker": 2, "ps": 1, "chief": 1})
    [('ps', 0), ('chief', 0), ('worker', 0), ('worker', 1)]
    """
    jobs = _jobs_and_indices(cluster)
    order = sorted(jobs, key=lambda j: (j != "ps", j))
    return [(job, t) for job in order if job != _NOT_A_TASK_JOB for t in jobs[job]]


def _jobs_and_indices(cluster) -> dict:
    if hasattr(cluster, "task_indices") and hasattr(cluster, "jobs"):
        return {job: cluster.task_indices(job) for job in cluster.jobs}
    out = {}
    for job, tasks in dict(cluster).items():
        if isinstance(tasks, int):
            out[job] = list(range(tasks))
        elif isinstance(tasks, dict):
            out[job] = sorted(int(i) for i in tasks)
        else:
            out[job] = list(range(len(tasks)))
    return out


def _natural_key(text: str) -> list:
    return [int(part) if i % 2 else part for i, part in enumerate(_DIGITS.split(text))]


def _worker_sort_key(info) -> tuple:
    address, name, _ = info
    return (_natural_key("" if name is None else str(name)), _natural_key(str(address)))


def _gpu_count(resources) -> int:
    return int(float((resources or {}).get("GPU", 0)))


def map_devices(worker_infos, cluster=None) -> dict:
    """Maps each Dask worker to the TF1 tasks it serves and their devices.

    Parameters
    ----------
    worker_infos : iterable of (address, name, resources)
        The scheduler's workers, e.g. ``[(a, w["name"], w["resources"]) for a, w
        in client.scheduler_info(n_workers=-1)["workers"].items()]``.
    cluster : ClusterSpec or dict, optional
        The logical tasks that unnamed workers serve (see the module docstring).

    Returns
    -------
    dict
        address -> ``{"name": ..., "gpus": n, "tasks": [task prefixes],
        "devices": [full device names]}``, for every worker (a worker that
        serves nothing has empty lists).

    Raises
    ------
    ValueError
        When two workers are named for the same task.

    >>> m = map_devices([("tcp://h:2", 1, {}), ("tcp://h:1", 0, {})])
    >>> m["tcp://h:1"]["tasks"], m["tcp://h:2"]["tasks"]
    (['/job:ps/replica:0/task:0'], ['/job:worker/replica:0/task:0'])
    """
    infos = sorted(((a, n, dict(r or {})) for a, n, r in worker_infos), key=_worker_sort_key)
    mapping = {a: {"name": n, "gpus": _gpu_count(r), "tasks": [], "devices": []} for a, n, r in infos}

    served: dict[tuple[str, int], str] = {}
    unnamed = []
    for address, name, _ in infos:
        task = parse_task_name(name)
        if task is None:
            unnamed.append(address)
        elif task in served:
            raise ValueError(f"Two Dask workers serve {worker_name(*task)}: {served[task]} "
                             f"(named {mapping[served[task]]['name']!r}) and {address} (named {name!r}). "
                             f"Give each worker a different /job:J/task:T name.")
        else:
            served[task] = address

    if unnamed:
        if cluster is None:
            free = _default_free_tasks(served, len(unnamed))
        else:
            free = [t for t in logical_task_order(cluster) if t not in served]
        for k, task in enumerate(free):
            served[task] = unnamed[k % len(unnamed)]

    for (job, index), address in sorted(served.items(), key=lambda kv: (kv[0][0] != "ps", kv[0])):
        entry = mapping[address]
        prefix = task_prefix(job, index)
        entry["tasks"].append(prefix)
        entry["devices"].append(f"{prefix}/device:CPU:0")
        entry["devices"].extend(f"{prefix}/device:GPU:{i}" for i in range(entry["gpus"]))
    return mapping


def _default_free_tasks(served, n_unnamed: int) -> list[tuple[str, int]]:
    """The default logical tasks that ``n_unnamed`` plain workers serve beside the named ones.

    >>> _default_free_tasks({("ps", 0): "a"}, 1), _default_free_tasks({}, 3)
    ([('worker', 0)], [('ps', 0), ('worker', 0), ('worker', 1)])
    """
    ps_tasks = 1 + max((t for j, t in served if j == "ps"), default=0)
    free = [("ps", t) for t in range(ps_tasks) if ("ps", t) not in served]
    index = 0
    while index == 0 or len(free) < n_unnamed:
        if ("worker", index) not in served:
            free.append(("worker", index))
        index += 1
    return free


def describe_mapping(mapping: dict) -> str:
    """One line per worker: its address, its Dask name and the TF1 tasks it serves.

    >>> print(describe_mapping(map_devices([("tcp://h:1", "/job:ps/task:0", {}), ("tcp://h:2", None, {})])))
    tcp://h:2 (unnamed): /job:worker/replica:0/task:0
    tcp://h:1 (named '/job:ps/task:0'): /job:ps/replica:0/task:0
    """
    lines = []
    for address, entry in mapping.items():
        name = entry["name"]
        named = f"named {name!r}" if parse_task_name(name) is not None else "unnamed"
        lines.append(f"{address} ({named}): {', '.join(entry['tasks']) or 'no task'}")
    return "\n".join(lines)


def full_device_names(mapping: dict) -> list[str]:
    """Every device the mapping offers: ps tasks first, then other jobs by name, by task.

    >>> full_device_names(map_devices([("tcp://h:1", "/job:worker/task:1", {})]))
    ['/job:worker/replica:0/task:1/device:CPU:0']
    """
    names = [d for entry in mapping.values() for d in entry["devices"]]
    return sorted(names, key=_device_sort_key)


def _device_sort_key(device: str) -> tuple:
    spec = DeviceSpec.from_string(device)
    return (spec.job != "ps", spec.job or "", spec.task or 0, spec.device_type != "CPU",
            spec.device_type or "", spec.device_index or 0)


def worker_for_device(mapping: dict, device: str) -> str:
    """The address of the worker that serves ``device`` (a full or partial device name).

    A partial name must still single out one worker (``"/job:ps"`` does when
    one worker serves every ps task).

    >>> m = map_devices([("tcp://h:1", "/job:ps/task:0", {})])
    >>> worker_for_device(m, "/job:ps/replica:0/task:0/device:CPU:0")
    'tcp://h:1'
    """
    for address, entry in mapping.items():
        if device in entry["devices"]:  # the placer's full names: no parsing
            return address
    wanted = DeviceSpec.from_string(device)
    workers = set()
    for address, entry in mapping.items():
        if any(wanted.is_subset_of(DeviceSpec.from_string(d)) for d in entry["devices"]):
            workers.add(address)
    if len(workers) == 1:
        return workers.pop()
    available = ", ".join(full_device_names(mapping)) or "none"
    if not workers:
        raise ValueError(f"No Dask worker serves device {device!r}. Name a worker after its task "
                         f"(`dflow worker SCHEDULER --job J --task T`, or `--name /job:J/task:T` for "
                         f"`dask worker`). Devices of this cluster: {available}.")
    raise ValueError(f"Device {device!r} matches devices on {len(workers)} workers ({', '.join(sorted(workers))}); "
                     f"give its job and task. Devices of this cluster: {available}.")


def resources_for_device(device: str) -> dict:
    """The Dask resources a task on ``device`` needs: ``{"GPU": 1}`` on a GPU, else ``{}``."""
    return {"GPU": 1} if DeviceSpec.from_string(device).device_type == "GPU" else {}
