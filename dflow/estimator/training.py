"""``tf.estimator.train_and_evaluate``, ``TrainSpec`` and ``EvalSpec``, as TF1 runs them.

**Locally** (no cluster) it trains to ``train_spec.max_steps`` and evaluates
after every checkpoint the training saves, at most once per
``eval_spec.throttle_secs``, and after the final one; it returns the last
evaluation's metrics and the exporters' results, as TF1's local mode.

**On a cluster named by ``RunConfig(cluster=...)``/``master=``** (a
``dflow.LocalCluster``, a scheduler address, a ``ClusterSpec``) it trains
data-parallel, between-graph: one training process per ``worker`` task of the
cluster (spawned with ``subprocess``), task ``i`` building its own graph with
``replica_device_setter`` (variables on the ps tasks, the rest on
``/job:worker/task:i``) and a ``MonitoredTrainingSession(is_chief=(i == 0))``
that saves checkpoints into ``model_dir``. A task no Dask worker serves yet
is started in its process as ``tf.train.Server(spec, job_name="worker",
task_index=i)``. When every process has finished, this process evaluates
the final checkpoint and runs the exporters. The estimator (with its
``model_fn``) and the specs travel to the processes with ``cloudpickle``.

**With a ``TF_CONFIG`` cluster**, this process is the task ``TF_CONFIG``
names: ``ps`` serves (``tf.train.Server(...).join()``, never returns),
``chief``/``worker`` start their ``tf.train.Server`` when no worker serves
their task yet and train (returning ``(None, None)`` as TF1), ``evaluator``
evaluates each new checkpoint until the training reaches ``max_steps``.
"""

from __future__ import annotations

import abc
import logging
import os
import subprocess
import sys
import tempfile
import time

from dflow._api import tf_export
from dflow.estimator.estimator import Estimator, _get_replica_device_setter
from dflow.estimator.run_config import RunConfig, TaskType, _scheduler_tasks
from dflow.train.basic_session_run_hooks import CheckpointSaverListener, SecondOrStepTimer
from dflow.train.session_run_hook import SessionRunHook

__all__ = ["EvalSpec", "Exporter", "TrainSpec", "train_and_evaluate"]

_log = logging.getLogger("dflow")


def _validate_hooks(hooks) -> tuple:
    hooks = tuple(hooks or [])
    for h in hooks:
        if not isinstance(h, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {h}")
    return hooks


@tf_export("estimator.Exporter")
class Exporter(abc.ABC):
    """Exports a trained model after an evaluation (subclass it: ``name`` and ``export``)."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """Directory name under ``model_dir/export``."""

    @abc.abstractmethod
    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        """Exports ``checkpoint_path`` of ``estimator`` to ``export_path``; returns what to report."""


@tf_export("estimator.TrainSpec")
class TrainSpec:
    """What ``train_and_evaluate`` trains: ``input_fn``, up to ``max_steps`` (``None``: until the input ends)."""

    def __init__(self, input_fn, max_steps=None, hooks=None, saving_listeners=None):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        self.input_fn = input_fn
        self.max_steps = max_steps
        self.hooks = _validate_hooks(hooks)
        listeners = tuple(saving_listeners or [])
        for lst in listeners:
            if not isinstance(lst, CheckpointSaverListener):
                raise TypeError(f"All saving_listeners must be `CheckpointSaverListener` instances, given: {lst}")
        self.saving_listeners = listeners

    def __repr__(self):
        return f"TrainSpec(input_fn={self.input_fn!r}, max_steps={self.max_steps!r}, hooks={self.hooks!r})"


@tf_export("estimator.EvalSpec")
class EvalSpec:
    """What and how often ``train_and_evaluate`` evaluates (TF1's defaults: 100 steps, throttle 600 s)."""

    def __init__(self, input_fn, steps=100, name=None, hooks=None, exporters=None, start_delay_secs=120,
                 throttle_secs=600):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name}")
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        if exporters is None:
            exporters = ()
        elif isinstance(exporters, Exporter):
            exporters = (exporters,)
        exporters = tuple(exporters)
        names = set()
        for e in exporters:
            if not isinstance(e, Exporter):
                raise TypeError(f"`exporters` must be an Exporter, an iterable of Exporter, or `None`, found {e}.")
            if not e.name or not e.name.strip():
                raise ValueError(f"An Exporter cannot have a name that is `None` or empty. Name: {e.name}")
            if e.name in names:
                raise ValueError(f"`exporters` must have unique names. Such a name cannot be `None`. {e.name} "
                                 "has been used more than once.")
            names.add(e.name)
        self.input_fn = input_fn
        self.steps = steps
        self.name = name
        self.hooks = _validate_hooks(hooks)
        self.exporters = exporters
        self.start_delay_secs = start_delay_secs
        self.throttle_secs = throttle_secs

    def __repr__(self):
        return (f"EvalSpec(input_fn={self.input_fn!r}, steps={self.steps!r}, name={self.name!r}, "
                f"throttle_secs={self.throttle_secs!r})")


class _Evaluator:
    """Evaluates the latest checkpoint once per new checkpoint, then runs the exporters."""

    def __init__(self, estimator, eval_spec, max_training_steps):
        self._estimator = estimator
        self._eval_spec = eval_spec
        self._max_training_steps = max_training_steps
        self._previous_ckpt_path = None
        self._last_warning_time = 0.0

    def evaluate_and_export(self):
        """``(metrics or None, export_results)`` for the latest checkpoint; ``None`` when it is not new."""
        latest = self._estimator.latest_checkpoint()
        if not latest:
            _log.info("Estimator is not trained yet. Will start an evaluation when a checkpoint is ready.")
            return None, []
        if latest == self._previous_ckpt_path:
            _log.info("No new checkpoint ready for evaluation. Skip the current evaluation pass as evaluation "
                      "results are expected to be same for the same checkpoint.")
            return None, []
        metrics = self._estimator.evaluate(self._eval_spec.input_fn, steps=self._eval_spec.steps,
                                           hooks=self._eval_spec.hooks, checkpoint_path=latest,
                                           name=self._eval_spec.name)
        if not metrics or "global_step" not in metrics:
            raise RuntimeError("Internal error: `Estimator.evaluate` should never return empty metrics or metrics "
                               "without global_step.")
        is_final = self._max_training_steps is not None and metrics["global_step"] >= self._max_training_steps
        export_results = []
        for exporter in self._eval_spec.exporters:
            export_path = os.path.join(self._estimator.model_dir, "export", exporter.name)
            export_results.append(exporter.export(self._estimator, export_path, latest, metrics, is_final))
        self._previous_ckpt_path = latest
        return metrics, export_results


class _NewCheckpointListenerForEvaluate(CheckpointSaverListener):
    """Evaluates after each checkpoint save, at most once per ``throttle_secs``, and after the last one."""

    def __init__(self, evaluator, eval_throttle_secs):
        self._evaluator = evaluator
        self._eval_throttle_secs = eval_throttle_secs
        self.eval_result, self.export_results = None, None

    def begin(self):
        self._timer = SecondOrStepTimer(every_secs=self._eval_throttle_secs)
        self._is_first_run = True

    def after_save(self, session, global_step_value):
        del session
        if self._is_first_run:
            self._is_first_run = False
            return False
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)
        else:
            _log.info("Skip the current checkpoint eval due to throttle secs (%s secs).", self._eval_throttle_secs)
        return False

    def end(self, session, global_step_value):
        del session
        if global_step_value != self._timer.last_triggered_step():
            self._evaluate(global_step_value)

    def _evaluate(self, global_step_value):
        self._timer.update_last_triggered_step(global_step_value)
        metrics, exports = self._evaluator.evaluate_and_export()
        if metrics is None:
            raise RuntimeError("There was no new checkpoint after the training.")
        self.eval_result, self.export_results = metrics, exports


def _check_args(estimator, train_spec, eval_spec) -> None:
    if not isinstance(estimator, Estimator):
        raise TypeError(f"`estimator` must have type `tf.estimator.Estimator`. Got: {type(estimator)}")
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(f"`train_spec` must have type `tf.estimator.TrainSpec`. Got: {type(train_spec)}")
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(f"`eval_spec` must have type `tf.estimator.EvalSpec`. Got: {type(eval_spec)}")


@tf_export("estimator.train_and_evaluate")
def train_and_evaluate(estimator, train_spec, eval_spec):
    """Trains and evaluates ``estimator``: locally, on a dflow cluster, or as a ``TF_CONFIG`` task.

    Returns ``(eval_result, export_results)`` (see the module doc for the
    cluster modes).
    """
    _check_args(estimator, train_spec, eval_spec)
    config = estimator.config
    if config.cluster is not None or (config.is_distributed and not os.environ.get("TF_CONFIG")):
        return _run_on_cluster(estimator, train_spec, eval_spec)
    if config.cluster_spec and config.cluster_spec.jobs:
        return _run_tf_config_task(estimator, train_spec, eval_spec)
    return _run_local(estimator, train_spec, eval_spec)


def _run_local(estimator, train_spec, eval_spec):
    config = estimator.config
    _log.info("Running training and evaluation locally (non-distributed).")
    _log.info("Start train and evaluate loop. The evaluate will happen after every checkpoint. Checkpoint "
              "frequency is determined based on RunConfig arguments: save_checkpoints_steps %s or "
              "save_checkpoints_secs %s.", config.save_checkpoints_steps, config.save_checkpoints_secs)
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    listener = _NewCheckpointListenerForEvaluate(evaluator, eval_spec.throttle_secs)
    estimator.train(input_fn=train_spec.input_fn, max_steps=train_spec.max_steps, hooks=list(train_spec.hooks),
                    saving_listeners=[listener] + list(train_spec.saving_listeners))
    if listener.eval_result is None:
        # max_steps was already reached: TF1 evaluates nothing and returns no metrics.
        return None, listener.export_results or []
    return listener.eval_result, listener.export_results


# -- data-parallel on a dflow cluster ------------------------------------------------------------------------
_CONFIG_KEYS = ("tf_random_seed", "save_summary_steps", "save_checkpoints_steps", "save_checkpoints_secs",
                "session_config", "keep_checkpoint_max", "keep_checkpoint_every_n_hours", "log_step_count_steps",
                "device_fn", "session_creation_timeout_secs", "checkpoint_save_graph_def")


def _task_estimator(estimator, spec_dict, master, task_index):
    """A copy of ``estimator`` configured as worker ``task_index`` of the cluster (picklable: no LocalCluster)."""
    import copy

    config = estimator.config
    kwargs = {k: getattr(config, k) for k in _CONFIG_KEYS}
    if kwargs["save_checkpoints_steps"] is not None:
        kwargs.pop("save_checkpoints_secs")
    else:
        kwargs.pop("save_checkpoints_steps")
    task_config = RunConfig(model_dir=estimator.model_dir, master=master, cluster=spec_dict, **kwargs)
    task_config._task_type, task_config._task_id = TaskType.WORKER, task_index
    task_config._is_chief = task_index == 0
    task_config._global_id_in_cluster = task_index
    task_config._dflow_cluster = None
    est = copy.copy(estimator)
    est._config = task_config
    est._device_fn = task_config.device_fn or _get_replica_device_setter(task_config)
    return est


def _run_on_cluster(estimator, train_spec, eval_spec):
    import cloudpickle

    config = estimator.config
    spec = config.cluster_spec
    if "worker" not in spec.jobs or spec.num_tasks("worker") == 0:
        raise ValueError(f"train_and_evaluate on a cluster needs a 'worker' job; the cluster has jobs {spec.jobs}.")
    num_workers = spec.num_tasks("worker")
    served = {"worker": num_workers} if hasattr(config.cluster, "cluster_spec") else _scheduler_tasks(config.master)
    spec_dict = spec.as_dict()
    if "scheduler" not in spec_dict:
        spec_dict["scheduler"] = [config.master.split("://", 1)[-1]]
    _log.info("Training data-parallel on %s: %d worker task(s), %d ps task(s); model_dir %s.", config.master,
              num_workers, config.num_ps_replicas, estimator.model_dir)
    workdir = tempfile.mkdtemp(prefix="dflow-train-and-evaluate-")
    procs = []
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([p for p in sys.path if p] + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("TF_CONFIG", None)
    try:
        for i in range(num_workers):
            payload = {"estimator": _task_estimator(estimator, spec_dict, config.master, i),
                       "input_fn": train_spec.input_fn, "max_steps": train_spec.max_steps,
                       "hooks": list(train_spec.hooks), "saving_listeners": list(train_spec.saving_listeners),
                       "start_server": i >= served.get("worker", 0), "spec": spec_dict, "task_index": i}
            path = os.path.join(workdir, f"worker{i}.pkl")
            try:
                data = cloudpickle.dumps(payload)
            except Exception as e:
                raise TypeError("train_and_evaluate on a cluster sends the estimator, its model_fn, params and the "
                                f"TrainSpec (input_fn, hooks) to each worker process with cloudpickle; they could "
                                f"not be pickled: {e}") from e
            with open(path, "wb") as f:
                f.write(data)
            procs.append((i, subprocess.Popen(
                [sys.executable, "-c", "from dflow.estimator.training import _worker_main; _worker_main()", path],
                env=env)))
        failed = []
        for i, p in procs:
            rc = p.wait()
            if rc != 0:
                failed.append((i, rc))
        for i, _ in procs:
            err = os.path.join(workdir, f"worker{i}.pkl.error")
            if os.path.exists(err):
                with open(err) as f:
                    failed_msg = f.read()
                raise RuntimeError(f"Training process of /job:worker/task:{i} failed:\n{failed_msg}")
        if failed:
            raise RuntimeError(f"Training processes exited with errors (task, exit code): {failed}")
    finally:
        for _, p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for name in os.listdir(workdir):
            os.remove(os.path.join(workdir, name))
        os.rmdir(workdir)
    _log.info("Distributed training finished; evaluating the final checkpoint on the chief.")
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    return evaluator.evaluate_and_export()


def _worker_main() -> None:
    """Entry point of a training process started by ``_run_on_cluster`` (argv[1]: the payload file)."""
    import traceback

    import cloudpickle

    path = sys.argv[1]
    with open(path, "rb") as f:
        payload = cloudpickle.loads(f.read())
    task = payload["task_index"]
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"[worker {task}] %(levelname)s:dflow:%(message)s"))
    logger = logging.getLogger("dflow")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logging.getLogger("distributed").setLevel(logging.WARNING)
    server = None
    try:  # every tf.* name the model_fn uses is installed: importing this module ran dflow/__init__.py
        from dflow.cluster.server import Server

        if payload["start_server"]:
            server = Server(payload["spec"], job_name="worker", task_index=task, dashboard_address=None)
            payload["estimator"]._config._task_in_process = True
        payload["estimator"].train(payload["input_fn"], hooks=payload["hooks"], max_steps=payload["max_steps"],
                                   saving_listeners=payload["saving_listeners"] or None)
    except BaseException:
        with open(path + ".error", "w") as f:
            f.write(traceback.format_exc())
        sys.exit(1)
    finally:
        if server is not None:
            server.stop()


# -- TF_CONFIG tasks ------------------------------------------------------------------------------------------
def _run_tf_config_task(estimator, train_spec, eval_spec):
    from dflow.cluster.server import Server

    config = estimator.config
    task_type, task_id = config.task_type, config.task_id
    if task_type == TaskType.PS:
        _log.info("Starting ps task %d; it serves until stopped.", task_id)
        Server(config.cluster_spec, job_name=TaskType.PS, task_index=task_id).join()
        return None, None
    if task_type == TaskType.EVALUATOR:
        return _run_evaluator(estimator, train_spec, eval_spec)
    if task_type not in (TaskType.CHIEF, TaskType.WORKER):
        raise ValueError(f"Task type {task_type!r} is not supported by train_and_evaluate. Supported task types "
                         f"are {[TaskType.CHIEF, TaskType.WORKER, TaskType.PS, TaskType.EVALUATOR]}.")
    served = _scheduler_tasks(config.master)
    server = None
    if task_id >= served.get(task_type, 0):
        server = Server(config.cluster_spec, job_name=task_type, task_index=task_id)
        estimator._config._task_in_process = True
    try:
        if not config.is_chief and eval_spec.start_delay_secs:
            # TF1 staggers the non-chief workers' start.
            time.sleep(min(eval_spec.start_delay_secs, 5 * (config.global_id_in_cluster or 0)))
        estimator.train(train_spec.input_fn, hooks=list(train_spec.hooks), max_steps=train_spec.max_steps,
                        saving_listeners=list(train_spec.saving_listeners) or None)
    finally:
        if server is not None:
            server.stop()
    return None, None


def _run_evaluator(estimator, train_spec, eval_spec):
    start_delay = eval_spec.start_delay_secs
    if start_delay:
        _log.info("Waiting %f secs before starting eval.", start_delay)
        time.sleep(start_delay)
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    result, exports = None, []
    while True:
        start = time.time()
        metrics, exported = evaluator.evaluate_and_export()
        if metrics is not None:
            result, exports = metrics, exported
            if train_spec.max_steps is not None and metrics["global_step"] >= train_spec.max_steps:
                _log.info("Exiting evaluation, global_step=%s >= train max_steps=%s", metrics["global_step"],
                          train_spec.max_steps)
                return result, exports
        delay = eval_spec.throttle_secs - (time.time() - start)
        if delay > 0:
            _log.info("Waiting %f secs before starting next eval run.", delay)
            time.sleep(delay)
