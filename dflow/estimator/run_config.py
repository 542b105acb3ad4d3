"""``tf.estimator.RunConfig``: where and how an ``Estimator`` runs, as TF1 defines it.

The TF1 keywords and properties are kept, with TF1's defaults (a checkpoint
every 600 seconds unless ``save_checkpoints_steps`` is given, summaries every
100 steps, the last 5 checkpoints kept, ``loss`` logged every 100 steps).

**Clusters.** TF1 learns its cluster from the ``TF_CONFIG`` environment
variable; dflow honours it and adds two keywords:

* ``cluster=``: a ``dflow.LocalCluster``, a ``tf.train.ClusterSpec`` (or its
  dict) with a ``scheduler`` job, or a Dask scheduler address; ``master=``: a
  scheduler address. Sessions then run on that cluster (``master`` is the
  session target) and, when it has a ``ps`` job, the estimator places
  variables with ``tf.train.replica_device_setter`` on its ps tasks and the
  rest of the model on ``/job:worker/task:<task_id>``, as TF1's RunConfig does
  from ``TF_CONFIG``. This process is the chief (``task_type='worker'``,
  ``task_id=0``); ``train_and_evaluate`` starts one training process per
  worker task.
* ``TF_CONFIG`` (JSON): ``{"cluster": {"chief": [...], "worker": [...],
  "ps": [...], "scheduler": ["host:8786"]}, "task": {"type": "worker",
  "index": 1}}``. Supported: ``cluster`` with ``chief``/``worker``/``ps``/
  ``evaluator`` jobs plus dflow's ``scheduler`` job (the Dask scheduler to join;
  without one, ``$DFLOW_SCHEDULER``), ``task.type``/``task.index``, and
  ``environment: "cloud"`` (accepted, ignored). ``master`` is the scheduler's
  address; ``is_chief`` is true for the ``chief`` task, or for ``worker`` 0
  when the cluster has no ``chief`` job (TF1 requires a chief; dflow lets the
  first worker be it, like ``LocalCluster``, whose jobs are ``ps`` and
  ``worker``). ``rpc_layer``, ``session_master`` and the ``evaluator``'s own
  cluster are not used.
"""

from __future__ import annotations

import copy
import json
import os

from dflow._api import tf_export

__all__ = ["RunConfig", "TaskType"]

_USE_DEFAULT = object()
_TF_CONFIG_ENV = "TF_CONFIG"
_SAVE_CKPT_ERR = "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."

_DEFAULT_REPLACEABLE_PROPERTY = frozenset([
    "model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps", "save_checkpoints_secs",
    "session_config", "keep_checkpoint_max", "keep_checkpoint_every_n_hours", "log_step_count_steps",
    "train_distribute", "device_fn", "protocol", "eval_distribute", "experimental_distribute",
    "experimental_max_worker_delay_secs", "session_creation_timeout_secs", "checkpoint_save_graph_def",
])


class TaskType:
    """The TF1 task types of a ``TF_CONFIG``."""

    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


def _validate_non_negative(name, value, allow_none=True):
    if value is None:
        if not allow_none:
            raise ValueError(f"{name} must not be None")
        return
    if value < 0:
        raise ValueError(f"{name} must be >= 0, given: {value}")


def _scheduler_tasks(address: str) -> dict:
    """job -> number of tasks, from the names of the Dask workers of the scheduler at ``address``."""
    from distributed import Client

    from dflow.cluster.security import security_for
    from dflow.placement.device_map import parse_task_name

    with Client(address, timeout=30, security=security_for(address)) as client:
        names = [w.get("name") for w in client.scheduler_info().get("workers", {}).values()]
    jobs: dict = {}
    for n in names:
        parsed = parse_task_name(n)
        if parsed:
            jobs[parsed[0]] = max(jobs.get(parsed[0], 0), parsed[1] + 1)
    return jobs


@tf_export("estimator.RunConfig")
class RunConfig:
    """How an ``Estimator`` runs: model directory, seed, checkpoint and summary cadence, cluster.

    TF1's keywords, defaults and ``replace``; dflow's extras ``cluster`` and
    ``master`` name a Dask cluster to run on (see the module doc).

    >>> import dflow as tf
    >>> c = tf.estimator.RunConfig()
    >>> c.save_checkpoints_secs, c.save_checkpoints_steps, c.keep_checkpoint_max
    (600, None, 5)
    >>> c.replace(save_checkpoints_steps=10).save_checkpoints_secs is None
    True
    """

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_steps=_USE_DEFAULT, save_checkpoints_secs=_USE_DEFAULT, session_config=None,
                 keep_checkpoint_max=5, keep_checkpoint_every_n_hours=10000, log_step_count_steps=100,
                 train_distribute=None, device_fn=None, protocol=None, eval_distribute=None,
                 experimental_distribute=None, experimental_max_worker_delay_secs=None,
                 session_creation_timeout_secs=7200, checkpoint_save_graph_def=True, *, master=None, cluster=None):
        if save_checkpoints_secs is _USE_DEFAULT and save_checkpoints_steps is _USE_DEFAULT:
            save_checkpoints_steps, save_checkpoints_secs = None, 600
        elif save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_secs = None
        elif save_checkpoints_steps is _USE_DEFAULT:
            save_checkpoints_steps = None
        elif save_checkpoints_steps is not None and save_checkpoints_secs is not None:
            raise ValueError(_SAVE_CKPT_ERR)

        tf_config = json.loads(os.environ.get(_TF_CONFIG_ENV) or "{}")
        if tf_config:
            tf_model_dir = tf_config.get("model_dir")
            if model_dir and tf_model_dir and os.path.abspath(model_dir) != os.path.abspath(tf_model_dir):
                raise ValueError("`model_dir` provided in RunConfig construct, if set, must have the same value "
                                 f"as the model_dir in TF_CONFIG. model_dir: {model_dir}\n"
                                 f"TF_CONFIG[\"model_dir\"]: {tf_model_dir}.\n")
            model_dir = model_dir or tf_model_dir
        if model_dir == "":
            raise ValueError("model_dir should be non-empty")

        _validate_non_negative("save_summary_steps", save_summary_steps)
        _validate_non_negative("save_checkpoints_steps", save_checkpoints_steps)
        _validate_non_negative("save_checkpoints_secs", save_checkpoints_secs)
        _validate_non_negative("keep_checkpoint_max", keep_checkpoint_max)
        _validate_non_negative("keep_checkpoint_every_n_hours", keep_checkpoint_every_n_hours)
        _validate_non_negative("log_step_count_steps", log_step_count_steps)
        _validate_non_negative("session_creation_timeout_secs", session_creation_timeout_secs)
        if tf_random_seed is not None and not isinstance(tf_random_seed, int):
            raise TypeError(f"tf_random_seed must be integer, given: {tf_random_seed!r}")
        if device_fn is not None and not callable(device_fn):
            raise ValueError(f"device_fn must be callable with exactly one argument \"op\", given: {device_fn}")

        self._model_dir = model_dir
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = save_checkpoints_steps
        self._save_checkpoints_secs = save_checkpoints_secs
        self._session_config = session_config
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._log_step_count_steps = log_step_count_steps
        self._train_distribute = train_distribute
        self._eval_distribute = eval_distribute
        self._experimental_distribute = experimental_distribute
        self._device_fn = device_fn
        self._protocol = protocol
        self._experimental_max_worker_delay_secs = experimental_max_worker_delay_secs
        self._session_creation_timeout_secs = session_creation_timeout_secs
        self._checkpoint_save_graph_def = checkpoint_save_graph_def
        self._dflow_cluster = cluster
        self._dflow_master = master
        self._init_distributed_setting(tf_config, master, cluster)

    # -- cluster ------------------------------------------------------------------------------------
    def _init_distributed_setting(self, tf_config, master, cluster) -> None:
        from dflow.cluster.cluster_spec import ClusterSpec

        self._local_cluster = None
        self._evaluation_master = ""
        self._task_type, self._task_id = TaskType.WORKER, 0
        if cluster is not None or master is not None:
            jobs = {}
            if cluster is not None and hasattr(cluster, "cluster_spec") and hasattr(cluster, "target"):
                self._local_cluster = cluster
                spec = cluster.cluster_spec
                master = master or cluster.target
            elif isinstance(cluster, (ClusterSpec, dict)):
                from dflow.cluster.server import find_scheduler

                spec = ClusterSpec(cluster)
                master = master or find_scheduler(spec)
            else:
                master = master or cluster
                if not isinstance(master, str):
                    raise TypeError("RunConfig(cluster=...) takes a dflow.LocalCluster, a tf.train.ClusterSpec or "
                                    f"a Dask scheduler address, given: {cluster!r}")
                jobs = _scheduler_tasks(master)
                spec = ClusterSpec({job: [f"{job}{i}:0" for i in range(n)] for job, n in jobs.items()})
            self._cluster_spec = spec
            self._master = master if "://" in master else f"tcp://{master}"
            self._num_ps_replicas = spec.num_tasks("ps") if "ps" in spec.jobs else 0
            self._num_worker_replicas = max(1, sum(spec.num_tasks(j) for j in ("chief", "worker") if j in spec.jobs))
            self._is_chief = True
            self._global_id_in_cluster = 0
            return

        cluster_dict = tf_config.get("cluster") or {}
        task_env = tf_config.get("task") or {}
        self._cluster_spec = ClusterSpec(cluster_dict)
        if not cluster_dict:
            if task_env:
                self._task_type = task_env.get("type", TaskType.WORKER)
                self._task_id = int(task_env.get("index", 0))
            self._master = ""
            self._num_ps_replicas = 0
            self._num_worker_replicas = 1
            self._is_chief = True
            self._global_id_in_cluster = 0
            return
        if not task_env or "type" not in task_env:
            raise ValueError("If \"cluster\" is set in TF_CONFIG, it must have one \"task\" with a \"type\".")
        self._task_type = task_env["type"]
        self._task_id = int(task_env.get("index", 0))
        jobs = self._cluster_spec.jobs
        if self._task_type != TaskType.EVALUATOR and (self._task_type not in jobs
                                                      or self._task_id not in
                                                      self._cluster_spec.task_indices(self._task_type)):
            raise ValueError(f"{self._task_type}:{self._task_id} is not a task of the TF_CONFIG cluster {jobs}.")
        if TaskType.CHIEF in jobs and self._cluster_spec.num_tasks(TaskType.CHIEF) != 1:
            raise ValueError("If \"cluster\" is set in TF_CONFIG, it must have one \"chief\" node.")
        from dflow.cluster.server import find_scheduler

        self._master = "" if self._task_type == TaskType.EVALUATOR else find_scheduler(self._cluster_spec)
        self._num_ps_replicas = self._cluster_spec.num_tasks("ps") if "ps" in jobs else 0
        self._num_worker_replicas = sum(self._cluster_spec.num_tasks(j) for j in ("chief", "worker") if j in jobs)
        if TaskType.CHIEF in jobs:
            self._is_chief = self._task_type == TaskType.CHIEF
        else:
            self._is_chief = self._task_type == TaskType.WORKER and self._task_id == 0
        if self._task_type == TaskType.EVALUATOR:
            self._is_chief = False
        order = [j for j in (TaskType.CHIEF, TaskType.WORKER, TaskType.PS) if j in jobs]
        gid = 0
        for j in order:
            if j == self._task_type:
                gid += self._task_id
                break
            gid += self._cluster_spec.num_tasks(j)
        self._global_id_in_cluster = gid if self._task_type in order else None

    # -- TF1 properties -------------------------------------------------------------------------------
    @property
    def cluster_spec(self):
        return self._cluster_spec

    @property
    def evaluation_master(self) -> str:
        return self._evaluation_master

    @property
    def is_chief(self) -> bool:
        return self._is_chief

    @property
    def master(self) -> str:
        return self._master

    @property
    def num_ps_replicas(self) -> int:
        return self._num_ps_replicas

    @property
    def num_worker_replicas(self) -> int:
        return self._num_worker_replicas

    @property
    def task_id(self) -> int:
        return self._task_id

    @property
    def task_type(self) -> str:
        return self._task_type

    @property
    def global_id_in_cluster(self):
        return self._global_id_in_cluster

    @property
    def model_dir(self):
        return self._model_dir

    @property
    def tf_random_seed(self):
        return self._tf_random_seed

    @property
    def save_summary_steps(self):
        return self._save_summary_steps

    @property
    def save_checkpoints_secs(self):
        return self._save_checkpoints_secs

    @property
    def save_checkpoints_steps(self):
        return self._save_checkpoints_steps

    @property
    def session_config(self):
        return self._session_config

    @property
    def keep_checkpoint_max(self):
        return self._keep_checkpoint_max

    @property
    def keep_checkpoint_every_n_hours(self):
        return self._keep_checkpoint_every_n_hours

    @property
    def log_step_count_steps(self):
        return self._log_step_count_steps

    @property
    def train_distribute(self):
        return self._train_distribute

    @property
    def eval_distribute(self):
        return self._eval_distribute

    @property
    def experimental_distribute(self):
        return self._experimental_distribute

    @property
    def device_fn(self):
        return self._device_fn

    @property
    def protocol(self):
        return self._protocol

    @property
    def experimental_max_worker_delay_secs(self):
        return self._experimental_max_worker_delay_secs

    @property
    def session_creation_timeout_secs(self):
        return self._session_creation_timeout_secs

    @property
    def checkpoint_save_graph_def(self):
        return self._checkpoint_save_graph_def

    @property
    def service(self):
        return None

    # -- dflow extras ------------------------------------------------------------------------------------
    @property
    def cluster(self):
        """The ``cluster=`` given (a ``LocalCluster``, spec or address), or ``None``."""
        return self._dflow_cluster

    @property
    def is_distributed(self) -> bool:
        """Whether sessions run on a cluster (``cluster=``/``master=`` or a ``TF_CONFIG`` cluster)."""
        return bool(self._master)

    def replace(self, **kwargs) -> RunConfig:
        """A copy with the given TF1 properties replaced (``ValueError`` for any other name)."""
        for key in kwargs:
            if key not in _DEFAULT_REPLACEABLE_PROPERTY:
                raise ValueError(f"Replacing {key} is not supported. Allowed properties are "
                                 f"{sorted(_DEFAULT_REPLACEABLE_PROPERTY)}.")
        steps = kwargs.get("save_checkpoints_steps", self._save_checkpoints_steps)
        secs = kwargs.get("save_checkpoints_secs", self._save_checkpoints_secs)
        if "save_checkpoints_steps" in kwargs and "save_checkpoints_secs" not in kwargs and steps is not None:
            secs = None
        elif "save_checkpoints_secs" in kwargs and "save_checkpoints_steps" not in kwargs and secs is not None:
            steps = None
        if steps is not None and secs is not None:
            raise ValueError(_SAVE_CKPT_ERR)
        new = copy.copy(self)
        for key, value in kwargs.items():
            setattr(new, "_" + key, value)
        new._save_checkpoints_steps, new._save_checkpoints_secs = steps, secs
        if new._model_dir == "":
            raise ValueError("model_dir should be non-empty")
        return new

    def __repr__(self):
        props = ("model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
                 "save_checkpoints_secs", "keep_checkpoint_max", "keep_checkpoint_every_n_hours",
                 "log_step_count_steps", "master", "num_ps_replicas", "num_worker_replicas", "task_type", "task_id",
                 "is_chief")
        return "RunConfig(" + ", ".join(f"{p}={getattr(self, p)!r}" for p in props) + ")"
