"""``tf.train.ClusterSpec``: the jobs and tasks of a cluster, by address.

A cluster spec is plain data: job name -> {task index -> "host:port"}. It
behaves as TF1's (same constructors, accessors, errors, ``as_dict`` and
equality); ``as_cluster_def`` returns a small ``ClusterDef`` object in place
of TF1's protocol buffer, and ``ClusterSpec`` accepts it back.

dflow adds one convention: a job named ``scheduler`` holds the address of the
Dask scheduler that the other tasks join (``dflow.LocalCluster().cluster_spec``
has one, and ``tf.train.Server`` looks for it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dflow._api import tf_export

SCHEDULER_JOB = "scheduler"


@tf_export("train.JobDef")
@dataclass
class JobDef:
    """One job of a ``ClusterDef``: its name and task index -> address."""

    name: str = ""
    tasks: dict = field(default_factory=dict)


@tf_export("train.ClusterDef")
@dataclass
class ClusterDef:
    """TF1's ``ClusterDef`` message as plain data: a list of ``JobDef`` sorted by name.

    >>> ClusterSpec({"ps": ["a:1"]}).as_cluster_def()
    ClusterDef(job=[JobDef(name='ps', tasks={0: 'a:1'})])
    """

    job: list = field(default_factory=list)
    # dflow's addition: the Dask scheduler's address, carried from a ClusterSpec (not a TF1 field).
    scheduler: str | None = field(default=None, repr=False, compare=False)


@tf_export("train.ClusterSpec")
class ClusterSpec:
    """Represents a cluster as a set of tasks, organised into jobs.

    Built from a dict mapping each job name to a list of addresses, or to a
    dict from task index to address (a sparse job), or from a ``ClusterDef``
    or another ``ClusterSpec``.

    dflow's one addition: ``scheduler``, the address of the Dask scheduler
    the tasks are workers of (``dflow.LocalCluster.cluster_spec`` sets it).
    It is not a TF1 job, so ``jobs``, ``as_dict()`` and equality ignore it;
    ``tf.train.Server`` joins it. A ``ClusterSpec`` built from another keeps it.

    >>> cluster = ClusterSpec({"ps": ["ps0:2222"], "worker": {1: "w1:2222"}})
    >>> cluster.task_address("worker", 1), cluster.num_tasks("worker"), cluster.job_tasks("worker")
    ('w1:2222', 1, [None, 'w1:2222'])
    """

    __hash__ = None  # mutable-looking and compared by value, as in TF1

    def __init__(self, cluster, *, scheduler: str | None = None):
        if scheduler is None and isinstance(cluster, (ClusterSpec, ClusterDef)):
            scheduler = cluster.scheduler
        self.scheduler = scheduler
        if isinstance(cluster, dict):
            self._cluster_spec = {}
            for job_name, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    job_tasks = dict(enumerate(tasks))
                elif isinstance(tasks, dict):
                    job_tasks = {int(i): task for i, task in tasks.items()}
                else:
                    raise TypeError(f"The tasks for job {job_name!r} must be a list or a dictionary from integers "
                                    f"to strings.")
                self._cluster_spec[job_name] = job_tasks
            self._cluster_def = self._make_cluster_def()
        elif isinstance(cluster, (ClusterDef, ClusterSpec)):
            cluster_def = cluster if isinstance(cluster, ClusterDef) else cluster.as_cluster_def()
            self._cluster_spec = {job.name: dict(job.tasks) for job in cluster_def.job}
            self._cluster_def = self._make_cluster_def()
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to lists of network "
                            "addresses, or a `ClusterDef` protocol buffer")

    def _make_cluster_def(self) -> ClusterDef:
        jobs = []
        for job_name, tasks in sorted(self._cluster_spec.items(), key=lambda kv: str(kv[0])):
            if not isinstance(job_name, (str, bytes)):
                raise TypeError(f"Job name {job_name!r} must be bytes or unicode")
            for address in tasks.values():
                if not isinstance(address, (str, bytes)):
                    raise TypeError(f"Task address {address!r} must be bytes or unicode")
            jobs.append(JobDef(_as_str(job_name), {i: _as_str(a) for i, a in sorted(tasks.items())}))
        return ClusterDef(jobs, scheduler=self.scheduler)

    def __bool__(self):
        return bool(self._cluster_spec)

    def __eq__(self, other):
        # As TF1: compares the job -> {index: address} dict, so two specs with the
        # same tasks are equal whatever order or form (list or dict) built them.
        if isinstance(other, ClusterSpec):
            other = other._cluster_spec
        return self._cluster_spec == other

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        key_values = self.as_dict()
        items = [f"{k!r}: {key_values[k]!r}" for k in sorted(key_values)]
        return "ClusterSpec({" + ", ".join(items) + "})"

    def as_dict(self) -> dict:
        """Job name -> list of addresses (dense task indices) or {index: address} (sparse)."""
        ret = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                ret[job] = {}
            elif max(indices) + 1 == len(indices):
                ret[job] = self.job_tasks(job)
            else:
                ret[job] = {i: self.task_address(job, i) for i in indices}
        return ret

    def as_cluster_def(self) -> ClusterDef:
        """The cluster as a ``ClusterDef`` (jobs sorted by name)."""
        return self._cluster_def

    @property
    def jobs(self) -> list:
        """The job names, in the order they were given."""
        return list(self._cluster_spec)

    def _job(self, job_name):
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def num_tasks(self, job_name) -> int:
        """How many tasks ``job_name`` defines."""
        return len(self._job(job_name))

    def task_indices(self, job_name) -> list:
        """The sorted task indices of ``job_name``."""
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index) -> str:
        """The address of task ``task_index`` of ``job_name``."""
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def job_tasks(self, job_name) -> list:
        """Addresses indexed by task; ``None`` where a sparse job has no such task."""
        job = self._job(job_name)
        ret = [None] * (max(job) + 1 if job else 0)
        for i, task in job.items():
            ret[i] = task
        return ret


def _as_str(s) -> str:
    return s.decode() if isinstance(s, bytes) else s


def normalize_address(address: str, protocol: str = "tcp") -> str:
    """``"host:port"`` -> ``"tcp://host:port"``; an address with a protocol is kept.

    >>> normalize_address("127.0.0.1:8786"), normalize_address("tls://h:1")
    ('tcp://127.0.0.1:8786', 'tls://h:1')
    """
    address = _as_str(address).strip()
    if "://" in address:
        return address
    return f"{protocol}://{address}"


def strip_protocol(address: str) -> str:
    """``"tcp://host:port"`` -> ``"host:port"`` (the TF1 spelling of an address)."""
    return address.split("://", 1)[-1]
