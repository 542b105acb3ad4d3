"""``tf.estimator.Estimator``: train, evaluate and predict a ``model_fn``, as TF1's estimator does.

Each call builds a fresh graph: the random seed from the ``RunConfig``, the
global step, the features and labels from ``input_fn`` (a ``tf.data.Dataset``
of ``(features, labels)`` or of features, or a ``(features, labels)`` tuple of
tensors), then ``model_fn`` in the call's mode.

* ``train`` runs a ``MonitoredTrainingSession`` on ``model_dir``: it resumes
  from the latest checkpoint there, saves checkpoints as the config says,
  stops at ``steps``/``max_steps`` or when the input is exhausted, and logs
  ``loss = ..., step = ... (... sec)`` and ``global_step/sec: ...`` to the
  ``"dflow"`` logger every ``log_step_count_steps`` steps, as TF1 logs them.
  When stderr is a terminal it also draws a one-line progress bar there.
* ``evaluate`` restores a checkpoint, runs the ``eval_metric_ops`` update ops
  over the input (or ``steps`` batches) and returns the metric values, the
  mean ``loss`` over batches and ``global_step``; the values are also written
  as summaries to ``model_dir/eval`` (``eval_<name>``).
* ``predict`` restores a checkpoint and yields one dict per example.

``evaluate`` and ``predict`` without any checkpoint raise ``ValueError``
naming ``model_dir`` (TF 1.15's estimator would evaluate a freshly
initialised model instead; dflow makes that mistake an error). They run in
this process from the checkpoint files, also when the config names a cluster.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import logging
import os
import sys
import tempfile
import time

import numpy as np

from dflow._api import tf_export
from dflow.estimator.model_fn import EstimatorSpec, ModeKeys
from dflow.estimator.run_config import RunConfig
from dflow.estimator.run_hooks import (
    _as_result_value,
    _extract_batch_length,
    _has_dataset_or_queue_runner,
    _ProgressBarHook,
    _stderr_is_terminal,
    _StopAfterNEvalsHook,
    _write_dict_to_summary,
    parse_input_fn_result,
)
from dflow.framework import errors
from dflow.framework import graph as _graph
from dflow.framework.files import file_io
from dflow.train.session_run_hook import SessionRunHook

__all__ = ["Estimator", "WarmStartSettings"]

_log = logging.getLogger("dflow")

LOSS_METRIC_KEY = "loss"
AVERAGE_LOSS_METRIC_KEY = "average_loss"
_VALID_MODEL_FN_ARGS = frozenset(["features", "labels", "mode", "params", "self", "config"])
_INPUT_JOB = "input"


# -- helpers ----------------------------------------------------------------------------------------------
def fn_args(fn) -> tuple:
    """The argument names of ``fn`` (a function, bound method, ``functools.partial`` or callable object).

    Arguments a ``functools.partial`` already binds are left out, as in TF1.
    """
    if isinstance(fn, functools.partial):
        bound = set(fn.keywords or {})
        args = fn_args(fn.func)[len(fn.args):]
        return tuple(a for a in args if a not in bound)
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)) and callable(fn):
        fn = fn.__call__
    params = inspect.signature(fn).parameters
    return tuple(name for name, p in params.items()
                 if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def _verify_model_fn_args(model_fn, params) -> None:
    args = set(fn_args(model_fn))
    if "features" not in args:
        raise ValueError(f"model_fn ({model_fn}) must include features argument.")
    if params is not None and "params" not in args:
        raise ValueError(f"model_fn ({model_fn}) does not include params argument, but params ({params}) is "
                         "passed to Estimator.")
    if params is None and "params" in args:
        _log.warning("Estimator's model_fn (%s) includes params argument, but params are not passed to "
                     "Estimator.", model_fn)
    non_valid = sorted(args - _VALID_MODEL_FN_ARGS)
    if non_valid:
        raise ValueError(f"model_fn ({model_fn}) has following not expected args: {non_valid}")


def _check_hooks_type(hooks) -> list:
    hooks = list(hooks or [])
    for h in hooks:
        if not isinstance(h, SessionRunHook):
            raise TypeError(f"Hooks must be a SessionRunHook, given: {h}")
    return hooks


def _check_listeners_type(listeners) -> list:
    from dflow.train.basic_session_run_hooks import CheckpointSaverListener

    listeners = list(listeners or [])
    for lst in listeners:
        if not isinstance(lst, CheckpointSaverListener):
            raise TypeError(f"saving_listeners must be a list of CheckpointSaverListener, given: {lst}")
    return listeners


@tf_export("estimator.WarmStartSettings")
class WarmStartSettings:
    """Which variables to initialise from ``ckpt_to_initialize_from`` when training starts without a checkpoint.

    ``vars_to_warm_start`` is a regular expression over the trainable
    variables' names (default ``'.*'``), a list of regular expressions or
    variables (over all global variables), or None (only the variables given a
    ``VocabInfo``); ``var_name_to_vocab_info`` remaps vocabulary-indexed
    variables (``tf.train.VocabInfo``); ``var_name_to_prev_var_name`` renames
    variables to their checkpoint names. The estimator applies them with
    ``tf.train.warm_start``.
    """

    def __init__(self, ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
                 var_name_to_prev_var_name=None):
        if not ckpt_to_initialize_from:
            raise ValueError("`ckpt_to_initialize_from` MUST be set in WarmStartSettings")
        self.ckpt_to_initialize_from = ckpt_to_initialize_from
        self.vars_to_warm_start = vars_to_warm_start
        self.var_name_to_vocab_info = var_name_to_vocab_info or {}
        self.var_name_to_prev_var_name = var_name_to_prev_var_name or {}


def _default_warm_start_settings(path: str) -> WarmStartSettings:
    """TF's reading of ``warm_start_from=path``: a SavedModel directory warm-starts from its
    variables, anything else is a checkpoint (or a directory of them)."""
    variables = os.path.join(path, "variables", "variables")
    if os.path.exists(variables + ".index"):
        _log.info("Warm-starting from a SavedModel")
        return WarmStartSettings(variables)
    return WarmStartSettings(path)


def _warm_start(settings: WarmStartSettings) -> None:
    from dflow.train.checkpoints.warm_starting import warm_start

    warm_start(settings.ckpt_to_initialize_from, settings.vars_to_warm_start, settings.var_name_to_vocab_info,
               settings.var_name_to_prev_var_name)


def _get_replica_device_setter(config: RunConfig):
    from dflow.train.device_setter import STANDARD_PS_OPS, replica_device_setter

    worker_device = f"/job:{config.task_type}/task:{config.task_id}" if config.task_type else "/job:worker"
    if config.num_ps_replicas > 0:
        return replica_device_setter(ps_tasks=config.num_ps_replicas, worker_device=worker_device,
                                     merge_devices=True, ps_ops=list(STANDARD_PS_OPS), cluster=config.cluster_spec)
    return None


# -- the estimator -------------------------------------------------------------------------------------------
@tf_export("estimator.Estimator")
class Estimator:
    """Trains, evaluates and predicts with a ``model_fn`` (TF1's ``tf.estimator.Estimator``).

    ``model_fn(features, labels, mode, params, config)`` (``features`` is
    required; the others are optional) returns an ``EstimatorSpec``.
    ``model_dir`` (or ``config.model_dir``) holds checkpoints and summaries; a
    temporary directory is made (and logged) when neither is given.

    >>> import dflow as tf
    >>> def model_fn(features, labels, mode):
    ...     w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
    ...     pred = features * w
    ...     loss = tf.reduce_mean(tf.square(pred - labels))
    ...     step = tf.train.get_global_step()
    ...     train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    ...     return tf.estimator.EstimatorSpec(mode, predictions={"y": pred}, loss=loss, train_op=train)
    >>> est = tf.estimator.Estimator(model_fn)  # doctest: +SKIP
    >>> est.train(lambda: (tf.constant([1.0, 2.0]), tf.constant([2.0, 4.0])), steps=50)  # doctest: +SKIP
    """

    def __init__(self, model_fn, model_dir=None, config=None, params=None, warm_start_from=None):
        if config is None:
            config = RunConfig()
            _log.info("Using default config.")
        elif not isinstance(config, RunConfig):
            raise ValueError(f"config must be an instance of `RunConfig`, but provided {config}.")
        if model_dir is not None and config.model_dir is not None and \
                os.path.abspath(model_dir) != os.path.abspath(config.model_dir):
            raise ValueError("model_dir are set both in constructor and `RunConfig`, but with different values. In "
                             f"constructor: '{model_dir}', in `RunConfig`: '{config.model_dir}' ")
        model_dir = model_dir if model_dir is not None else config.model_dir
        if model_dir is None:
            model_dir = tempfile.mkdtemp()
            _log.warning("Using temporary folder as model directory: %s", model_dir)
        model_dir = os.fspath(model_dir)
        self._config = config.replace(model_dir=model_dir)
        _log.info("Using config: %s", self._config)
        self._model_dir = model_dir
        self._session_config = self._config.session_config
        self._device_fn = self._config.device_fn or (
            _get_replica_device_setter(self._config) if self._config.is_distributed else None)
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        _verify_model_fn_args(model_fn, params)
        self._model_fn = model_fn
        self._params = copy.deepcopy(params or {})
        if isinstance(warm_start_from, (str, os.PathLike)):
            warm_start_from = _default_warm_start_settings(os.fspath(warm_start_from))
        elif warm_start_from is not None and not isinstance(warm_start_from, WarmStartSettings):
            raise ValueError("warm_start_from must be a string or a WarmStartSettings, instead got "
                             f"{type(warm_start_from)}")
        self._warm_start_settings = warm_start_from

    # -- properties ------------------------------------------------------------------------------------
    @property
    def model_dir(self) -> str:
        return self._model_dir

    @property
    def config(self) -> RunConfig:
        return copy.deepcopy(self._config) if self._config.cluster is None else self._config

    @property
    def params(self) -> dict:
        return copy.deepcopy(self._params)

    @property
    def model_fn(self):
        """The ``model_fn`` bound to this estimator's config: ``model_fn(features, labels, mode, config)``."""
        def public_model_fn(features, labels, mode, config):
            return self._call_model_fn(features, labels, mode, config)

        return public_model_fn

    def latest_checkpoint(self):
        """The path of the latest checkpoint in ``model_dir``, or ``None``."""
        from dflow.train.checkpoints.checkpoint_management import latest_checkpoint

        return latest_checkpoint(self.model_dir)

    def _check_checkpoint_available(self) -> None:
        if not self.latest_checkpoint():
            raise ValueError(f"Could not find trained model in model_dir: {self.model_dir}.")

    def get_variable_names(self) -> list:
        """The names of the variables in the latest checkpoint of ``model_dir``."""
        from dflow.train.checkpoints.checkpoint_utils import list_variables

        self._check_checkpoint_available()
        return [name for name, _ in list_variables(self.model_dir)]

    def get_variable_value(self, name):
        """The value of variable ``name`` in the latest checkpoint of ``model_dir``."""
        from dflow.train.checkpoints.checkpoint_utils import load_variable

        self._check_checkpoint_available()
        return load_variable(self.model_dir, name)

    # -- building blocks (TF1's private methods, which subclasses and canned estimators use) --------------
    def _create_global_step(self, graph):
        from dflow.train.training_util import create_global_step

        return create_global_step(graph)

    def _create_and_assert_global_step(self, graph):
        from dflow.framework import dtypes
        from dflow.train.training_util import get_global_step

        step = self._create_global_step(graph)
        if step is not get_global_step(graph):
            raise AssertionError("_create_global_step must create the graph's global step")
        if step.dtype.base_dtype != dtypes.int64:
            raise AssertionError(f"the global step must be int64, got {step.dtype}")
        return step

    def _call_input_fn(self, input_fn, mode):
        args = set(fn_args(input_fn))
        kwargs = {}
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = self.config
        return input_fn(**kwargs)

    def _get_features_and_labels_from_input_fn(self, input_fn, mode):
        return parse_input_fn_result(self._call_input_fn(input_fn, mode))

    def _get_features_from_input_fn(self, input_fn, mode):
        features, _, hooks = parse_input_fn_result(self._call_input_fn(input_fn, mode))
        if not _has_dataset_or_queue_runner(hooks):
            _log.warning("Input graph does not use tf.data.Dataset or contain a QueueRunner. That means predict "
                         "yields forever. This is probably a mistake.")
        return features, hooks

    def _call_model_fn(self, features, labels, mode, config):
        args = set(fn_args(self._model_fn))
        kwargs = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self._model_fn_params(mode)
        if "config" in args:
            kwargs["config"] = config
        _log.info("Calling model_fn.")
        result = self._model_fn(features=features, **kwargs)
        _log.info("Done calling model_fn.")
        return self._as_estimator_spec(result)

    def _model_fn_params(self, mode) -> dict:
        """The ``params`` the model function gets in ``mode`` (a subclass may add to them)."""
        return self.params

    def _as_estimator_spec(self, result) -> EstimatorSpec:
        """The model function's ``result`` as an ``EstimatorSpec`` (a subclass may convert its own)."""
        if not isinstance(result, EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec.")
        return result

    def _global_step_of_checkpoint(self, checkpoint_path=None) -> int:
        from dflow.framework.graph import GraphKeys
        from dflow.train.checkpoints.checkpoint_utils import load_variable

        path = checkpoint_path or self.latest_checkpoint()
        if not path:
            return 0
        try:
            return int(load_variable(path, GraphKeys.GLOBAL_STEP))
        except (ValueError, KeyError, errors.NotFoundError):
            return 0

    # -- train ----------------------------------------------------------------------------------------
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Trains for ``steps`` more steps, up to global step ``max_steps``, or until the input ends; returns self."""
        from dflow.train.basic_session_run_hooks import StopAtStepHook

        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        if max_steps is not None:
            start_step = self._global_step_of_checkpoint()
            if max_steps <= start_step:
                _log.info("Skipping training since max_steps has already saved.")
                return self
        hooks = _check_hooks_type(hooks)
        if steps is not None or max_steps is not None:
            hooks.append(StopAtStepHook(steps, max_steps))
        saving_listeners = _check_listeners_type(saving_listeners)
        loss = self._train_model(input_fn, hooks, saving_listeners, steps=steps, max_steps=max_steps)
        _log.info("Loss for final step: %s.", loss)
        return self

    def _input_server(self):
        """On a cluster whose worker task runs in another process: an in-process task for the input pipeline.

        dflow's ``tf.data`` pipelines are Python objects that only the process
        which built them can run, so the input ops go to ``/job:input/task:<id>``,
        served by a ``tf.train.Server`` in this process for the length of the
        call (TF1 runs them on the worker task of the training process itself).
        """
        from dflow.cluster.cluster_spec import strip_protocol
        from dflow.cluster.server import Server

        if not self._config.is_distributed or getattr(self._config, "_task_in_process", False):
            return None
        task = self._config.global_id_in_cluster or 0
        return Server({"scheduler": [strip_protocol(self._config.master)]}, job_name=_INPUT_JOB, task_index=task,
                      nthreads=1, dashboard_address=None)

    def _train_model(self, input_fn, hooks, saving_listeners, steps=None, max_steps=None):
        graph = _graph.Graph()
        server = self._input_server()
        try:
            with graph.as_default(), graph.device(self._device_fn):
                if self._config.tf_random_seed is not None:
                    _graph.set_random_seed(self._config.tf_random_seed)
                self._create_and_assert_global_step(graph)
                input_device = (graph.device(f"/job:{_INPUT_JOB}/task:{server.server_def.task_index}")
                                if server is not None else contextlib.nullcontext())
                with input_device:
                    features, labels, input_hooks = self._get_features_and_labels_from_input_fn(
                        input_fn, ModeKeys.TRAIN)
                spec = self._call_model_fn(features, labels, ModeKeys.TRAIN, self.config)
                return self._train_with_estimator_spec(spec, list(hooks) + input_hooks, saving_listeners,
                                                       steps=steps, max_steps=max_steps)
        finally:
            if server is not None:
                server.stop()

    def _train_with_estimator_spec(self, spec, worker_hooks, saving_listeners, steps=None, max_steps=None):
        from dflow.framework.graph import GraphKeys
        from dflow.summary import summary_ops
        from dflow.train import basic_session_run_hooks as hooks_lib
        from dflow.train.checkpoints.saver import Saver
        from dflow.train.monitored_session import MonitoredTrainingSession
        from dflow.train.training_util import get_global_step

        if self._warm_start_settings is not None:
            _warm_start(self._warm_start_settings)
        global_step = get_global_step()
        if not any(getattr(x, "op", x).name == "loss" for x in _graph.get_collection(GraphKeys.SUMMARIES)):
            summary_ops.scalar("loss", spec.loss)
        worker_hooks = list(worker_hooks)
        worker_hooks.append(hooks_lib.NanTensorHook(spec.loss))
        if self._config.log_step_count_steps is not None and self._config.log_step_count_steps > 0:
            worker_hooks.append(hooks_lib.LoggingTensorHook({"loss": spec.loss, "step": global_step},
                                                            every_n_iter=self._config.log_step_count_steps))
        worker_hooks.extend(spec.training_hooks)
        if self._config.is_chief and _stderr_is_terminal():
            worker_hooks.append(_ProgressBarHook(spec.loss, sys.stderr, last_step=max_steps, num_steps=steps))

        scaffold = spec.scaffold
        if not (scaffold.saver or _graph.get_collection(GraphKeys.SAVERS)):
            _graph.add_to_collection(GraphKeys.SAVERS, Saver(
                sharded=True, max_to_keep=self._config.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=self._config.keep_checkpoint_every_n_hours, defer_build=True,
                save_relative_paths=True))

        chief_hooks = []
        all_hooks = worker_hooks + list(spec.training_chief_hooks)
        saver_hooks = [h for h in all_hooks if isinstance(h, hooks_lib.CheckpointSaverHook)]
        if self._config.save_checkpoints_secs or self._config.save_checkpoints_steps:
            if not saver_hooks:
                chief_hooks = [hooks_lib.CheckpointSaverHook(
                    self._model_dir, save_secs=self._config.save_checkpoints_secs,
                    save_steps=self._config.save_checkpoints_steps, scaffold=scaffold, listeners=saving_listeners,
                    save_graph_def=self._config.checkpoint_save_graph_def)]
                saver_hooks = [chief_hooks[0]]
        if saving_listeners:
            if not saver_hooks:
                raise ValueError("There should be a CheckpointSaverHook to use saving_listeners. Please set one of "
                                 "the RunConfig.save_checkpoints_steps or RunConfig.save_checkpoints_secs.")
            if saver_hooks[0] not in chief_hooks:
                saver_hooks[0]._listeners.extend(saving_listeners)

        loss = None
        any_step_done = False
        with MonitoredTrainingSession(
                master=self._config.master, is_chief=self._config.is_chief, checkpoint_dir=self._model_dir,
                scaffold=scaffold, hooks=worker_hooks,
                chief_only_hooks=tuple(chief_hooks) + tuple(spec.training_chief_hooks), save_checkpoint_secs=0,
                save_summaries_steps=self._config.save_summary_steps, config=self._session_config,
                max_wait_secs=self._config.session_creation_timeout_secs,
                log_step_count_steps=self._config.log_step_count_steps,
                save_graph_def=self._config.checkpoint_save_graph_def) as mon_sess:
            while not mon_sess.should_stop():
                _, loss = mon_sess.run([spec.train_op, spec.loss])
                any_step_done = True
        if not any_step_done:
            _log.warning("Training with estimator made no steps. Perhaps input is empty or misspecified.")
        return loss

    # -- evaluate -------------------------------------------------------------------------------------
    def eval_dir(self, name=None) -> str:
        """Where ``evaluate(name=...)`` writes its summaries: ``model_dir/eval`` or ``model_dir/eval_<name>``."""
        return file_io.join(self._model_dir, "eval" if not name else "eval_" + name)

    def _resolve_checkpoint(self, checkpoint_path, what: str) -> str:
        from dflow.train.checkpoints.checkpoint_management import latest_checkpoint

        if checkpoint_path:
            if file_io.isdir(checkpoint_path):
                resolved = latest_checkpoint(checkpoint_path)
                if not resolved:
                    raise ValueError(f"Could not find a checkpoint in {checkpoint_path} to {what}.")
                return resolved
            return checkpoint_path
        resolved = self.latest_checkpoint()
        if not resolved:
            # TF 1.15 goes on with freshly initialised variables (BERT's extract_features relies on it: its
            # model_fn restores the weights with init_from_checkpoint).
            _log.info("Could not find trained model in model_dir: %s, running initialization to %s.",
                      self._model_dir, what)
        return resolved

    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Evaluates the model of the latest checkpoint (or ``checkpoint_path``) on ``input_fn``.

        Runs ``steps`` batches or until the input is exhausted; returns a dict
        of the ``eval_metric_ops`` values plus ``loss`` (the mean loss over
        batches) and ``global_step``.
        """
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        hooks = _check_hooks_type(hooks)
        checkpoint_path = self._resolve_checkpoint(checkpoint_path, "evaluate")
        graph = _graph.Graph()
        with graph.as_default(), graph.device(self._config.device_fn):
            scaffold, update_op, eval_dict, all_hooks = self._evaluate_build_graph(input_fn, hooks)
            return self._evaluate_run(checkpoint_path, scaffold, update_op, eval_dict, all_hooks, steps, name)

    def _evaluate_build_graph(self, input_fn, hooks):
        from dflow.ops.control_flow import control_flow_ops
        from dflow.ops.metrics import metrics_ops

        if self._config.tf_random_seed is not None:
            _graph.set_random_seed(self._config.tf_random_seed)
        global_step = self._create_and_assert_global_step(_graph.get_default_graph())
        features, labels, input_hooks = self._get_features_and_labels_from_input_fn(input_fn, ModeKeys.EVAL)
        spec = self._call_model_fn(features, labels, ModeKeys.EVAL, self.config)
        if LOSS_METRIC_KEY in spec.eval_metric_ops:
            raise ValueError(f"Metric with name \"{LOSS_METRIC_KEY}\" is not allowed, because Estimator already "
                             "defines a default metric with the same name.")
        metric_ops = dict(spec.eval_metric_ops)
        metric_ops[LOSS_METRIC_KEY] = metrics_ops.mean(spec.loss)
        update_ops = [metric_ops[k][1] for k in sorted(metric_ops)]
        update_op = control_flow_ops.group(*update_ops)
        eval_dict = {k: v[0] for k, v in metric_ops.items()}
        if "global_step" in eval_dict:
            raise ValueError("Metric with name `global_step` is not allowed, because Estimator already defines a "
                             "default metric with the same name.")
        eval_dict["global_step"] = global_step
        all_hooks = list(input_hooks) + list(hooks) + list(spec.evaluation_hooks)
        return spec.scaffold, update_op, eval_dict, all_hooks

    def _evaluate_run(self, checkpoint_path, scaffold, update_op, eval_dict, all_hooks, steps, name):
        from dflow.train.basic_session_run_hooks import FinalOpsHook
        from dflow.train.monitored_session import ChiefSessionCreator, MonitoredSession

        final_ops_hook = FinalOpsHook(eval_dict)
        hooks = [_StopAfterNEvalsHook(num_evals=steps)] + list(all_hooks) + [final_ops_hook]
        _log.info("Starting evaluation at %s", time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime()))
        creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_filename_with_path=checkpoint_path,
                                      master=self._config.evaluation_master, config=self._session_config)
        with MonitoredSession(session_creator=creator, hooks=hooks) as session:
            while not session.should_stop():
                session.run(update_op)
        _log.info("Finished evaluation at %s", time.strftime("%Y-%m-%d-%H:%M:%S", time.localtime()))
        results = {k: _as_result_value(v) for k, v in final_ops_hook.final_ops_values.items()}
        results["global_step"] = np.int64(results["global_step"])
        _write_dict_to_summary(self.eval_dir(name), results, int(results["global_step"]))
        return results

    # -- predict ------------------------------------------------------------------------------------------
    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None, yield_single_examples=True):
        """Yields the predictions of the model of the latest checkpoint: one dict per example.

        With ``yield_single_examples=False``, one dict (or array) per batch.
        """
        from dflow.train.monitored_session import ChiefSessionCreator, MonitoredSession

        hooks = _check_hooks_type(hooks)
        checkpoint_path = self._resolve_checkpoint(checkpoint_path, "predict")
        graph = _graph.Graph()
        with graph.as_default(), graph.device(self._config.device_fn):
            if self._config.tf_random_seed is not None:
                _graph.set_random_seed(self._config.tf_random_seed)
            self._create_and_assert_global_step(graph)
            features, input_hooks = self._get_features_from_input_fn(input_fn, ModeKeys.PREDICT)
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT, self.config)
            predictions = self._extract_keys(spec.predictions, predict_keys)
            all_hooks = list(input_hooks) + list(hooks) + list(spec.prediction_hooks)
            creator = ChiefSessionCreator(scaffold=spec.scaffold, checkpoint_filename_with_path=checkpoint_path,
                                          master=self._config.evaluation_master, config=self._session_config)
            with MonitoredSession(session_creator=creator, hooks=all_hooks) as mon_sess:
                while not mon_sess.should_stop():
                    preds = mon_sess.run(predictions)
                    if not yield_single_examples:
                        yield preds
                    elif not isinstance(predictions, dict):
                        yield from preds
                    else:
                        for i in range(_extract_batch_length(preds)):
                            yield {key: value[i] for key, value in preds.items()}

    def export_saved_model(self, export_dir_base, serving_input_receiver_fn, assets_extra=None, as_text=False,
                           checkpoint_path=None, experimental_mode=None):
        """Exports the PREDICT graph and the latest checkpoint as a SavedModel under
        ``export_dir_base/<timestamp>``; returns that directory (bytes). See ``tf.estimator.export``."""
        from dflow.estimator.export import export_saved_model

        if experimental_mode not in (None, ModeKeys.PREDICT):
            raise NotImplementedError(f"export_saved_model: experimental_mode={experimental_mode!r}: dflow exports "
                                      f"the PREDICT graph only.")
        return export_saved_model(self, export_dir_base, serving_input_receiver_fn, assets_extra, as_text,
                                  checkpoint_path)

    def export_savedmodel(self, export_dir_base, serving_input_receiver_fn, assets_extra=None, as_text=False,
                          checkpoint_path=None, strip_default_attrs=False):
        """TF1's older name of ``export_saved_model``."""
        from dflow.estimator.export import export_saved_model

        return export_saved_model(self, export_dir_base, serving_input_receiver_fn, assets_extra, as_text,
                                  checkpoint_path, strip_default_attrs)

    @staticmethod
    def _extract_keys(predictions, predict_keys):
        if not predict_keys:
            return predictions
        if isinstance(predict_keys, str):
            predict_keys = [predict_keys]
        if not isinstance(predictions, dict):
            raise ValueError("predict_keys argument is not valid in case of non-dict predictions.")
        existing = predictions.keys()
        out = {k: v for k, v in predictions.items() if k in predict_keys}
        if not out:
            raise ValueError(f"Expected to run at least one output from {list(existing)}, provided {predict_keys}.")
        return out
