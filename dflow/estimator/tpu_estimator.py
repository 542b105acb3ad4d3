"""``tf.estimator.tpu`` (``tf.contrib.tpu``): ``TPUEstimator`` as TF 1.15 runs it without a TPU.

With ``use_tpu=False`` TF 1.15's ``TPUEstimator`` is an ``Estimator`` on CPU/GPU, and so is
dflow's (``use_tpu=True`` raises ``NotImplementedError``: dflow has no TPU):

* ``input_fn(params)`` and ``model_fn(features, labels, mode, params)`` get ``params["batch_size"]``,
  the global batch size of the mode (``train_batch_size``, ``eval_batch_size`` or
  ``predict_batch_size``); the ``model_fn`` also gets ``params["use_tpu"]``. ``batch_size`` and
  ``use_tpu`` are reserved keys of ``params``;
* the ``model_fn`` returns a ``TPUEstimatorSpec`` (or an ``EstimatorSpec``): its
  ``eval_metrics = (metric_fn, tensors)`` becomes ``eval_metric_ops = metric_fn(*tensors)``
  (``metric_fn(**tensors)`` for a dict), ``scaffold_fn()`` the ``Scaffold``, and ``host_call``'s
  ops run with every training step (the CPU host call of TF 1.15);
* ``RunConfig`` is ``tf.estimator.RunConfig`` with a ``tpu_config`` (``TPUConfig``); its
  ``master``/``cluster`` name TPU hosts, so they are kept aside, not given to dflow's Dask
  ``RunConfig``.
"""

from __future__ import annotations

import collections

from dflow._api import tf_export
from dflow.estimator.estimator import Estimator, fn_args
from dflow.estimator.model_fn import EstimatorSpec, ModeKeys
from dflow.estimator.run_config import RunConfig as _RunConfig
from dflow.train.session_run_hook import SessionRunArgs, SessionRunHook

__all__ = ["InputPipelineConfig", "RunConfig", "TPUConfig", "TPUEstimator", "TPUEstimatorSpec"]

_BATCH_SIZE_KEY = "batch_size"
_USE_TPU_KEY = "use_tpu"
_RESERVED_PARAMS_KEYS = (_BATCH_SIZE_KEY, _USE_TPU_KEY, "context")


@tf_export("estimator.tpu.InputPipelineConfig", "contrib.tpu.InputPipelineConfig")
class InputPipelineConfig:
    """How a TPU job feeds its shards (only recorded: dflow runs the ``input_fn`` once, as on CPU)."""

    PER_SHARD_V1 = 1
    PER_HOST_V1 = 2
    PER_HOST_V2 = 3
    BROADCAST = 4
    SLICED = 5


@tf_export("estimator.tpu.TPUConfig", "contrib.tpu.TPUConfig")
class TPUConfig(collections.namedtuple("TPUConfig", [
        "iterations_per_loop", "num_shards", "num_cores_per_replica", "per_host_input_for_training",
        "tpu_job_name", "initial_infeed_sleep_secs", "input_partition_dims", "eval_training_input_configuration",
        "experimental_host_call_every_n_steps"])):
    """The TPU settings of a ``tf.estimator.tpu.RunConfig`` (validated as TF 1.15 does, otherwise unused)."""

    __slots__ = ()

    def __new__(cls, iterations_per_loop=2, num_shards=None, num_cores_per_replica=None,
                per_host_input_for_training=True, tpu_job_name=None, initial_infeed_sleep_secs=None,
                input_partition_dims=None, eval_training_input_configuration=InputPipelineConfig.PER_HOST_V1,
                experimental_host_call_every_n_steps=1):
        if iterations_per_loop is None or iterations_per_loop < 1:
            raise ValueError(f"iterations_per_loop must be positive, given: {iterations_per_loop}")
        if num_shards is not None and num_shards < 1:
            raise ValueError(f"num_shards must be positive, given: {num_shards}")
        if initial_infeed_sleep_secs is not None and initial_infeed_sleep_secs < 0:
            raise ValueError(f"initial_infeed_sleep_secs must be non-negative, given: {initial_infeed_sleep_secs}")
        if per_host_input_for_training is True:
            per_host_input_for_training = InputPipelineConfig.PER_HOST_V1
        elif per_host_input_for_training is False:
            per_host_input_for_training = InputPipelineConfig.PER_SHARD_V1
        return super().__new__(cls, iterations_per_loop, num_shards, num_cores_per_replica,
                               per_host_input_for_training, tpu_job_name, initial_infeed_sleep_secs,
                               input_partition_dims, eval_training_input_configuration,
                               experimental_host_call_every_n_steps)


@tf_export("estimator.tpu.RunConfig", "contrib.tpu.RunConfig")
class RunConfig(_RunConfig):
    """``tf.estimator.RunConfig`` plus ``tpu_config`` and the TPU ``master``/``cluster``/``evaluation_master``."""

    def __init__(self, tpu_config=None, evaluation_master=None, master=None, cluster=None, **kwargs):
        super().__init__(**kwargs)
        self._tpu_config = tpu_config or TPUConfig()
        self._tpu_master = master
        self._tpu_cluster = cluster
        self._tpu_evaluation_master = evaluation_master

    @property
    def tpu_config(self) -> TPUConfig:
        return self._tpu_config

    @property
    def cluster(self):
        return self._tpu_cluster

    def replace(self, **kwargs):
        tpu_config = kwargs.pop("tpu_config", None)
        new = super().replace(**kwargs)
        if tpu_config is not None:
            new._tpu_config = tpu_config
        return new


class _HostCallHook(SessionRunHook):
    """Runs the ops of a CPU ``host_call`` with every training step."""

    def __init__(self, ops):
        self._ops = ops

    def before_run(self, run_context):
        return SessionRunArgs(self._ops)


def _call_host_fn(fn_and_tensors):
    fn, tensors = fn_and_tensors
    if isinstance(tensors, dict):
        return fn(**tensors)
    return fn(*tensors)


@tf_export("estimator.tpu.TPUEstimatorSpec", "contrib.tpu.TPUEstimatorSpec")
class TPUEstimatorSpec(collections.namedtuple("TPUEstimatorSpec", [
        "mode", "predictions", "loss", "train_op", "eval_metrics", "export_outputs", "scaffold_fn", "host_call",
        "training_hooks", "evaluation_hooks", "prediction_hooks"])):
    """What a ``TPUEstimator``'s ``model_fn`` returns: an ``EstimatorSpec`` whose metrics and scaffold are
    functions (``eval_metrics=(metric_fn, tensors)``, ``scaffold_fn``), run on the host."""

    __slots__ = ()

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metrics=None, export_outputs=None,
                scaffold_fn=None, host_call=None, training_hooks=None, evaluation_hooks=None, prediction_hooks=None):
        for what, value in (("eval_metrics", eval_metrics), ("host_call", host_call)):
            if value is not None:
                if not isinstance(value, (tuple, list)) or len(value) != 2 or not callable(value[0]):
                    raise ValueError(f"{what} must be a (function, tensors) tuple, given: {value}")
                if not isinstance(value[1], (tuple, list, dict)):
                    raise ValueError(f"the tensors of {what} must be a list, tuple or dict, given: {value[1]}")
        return super().__new__(cls, mode=mode, predictions=predictions, loss=loss, train_op=train_op,
                               eval_metrics=eval_metrics, export_outputs=export_outputs, scaffold_fn=scaffold_fn,
                               host_call=host_call, training_hooks=list(training_hooks or []),
                               evaluation_hooks=list(evaluation_hooks or []),
                               prediction_hooks=list(prediction_hooks or []))

    def as_estimator_spec(self) -> EstimatorSpec:
        """The ``EstimatorSpec`` the CPU runs: metrics, scaffold and host call made on the host."""
        eval_metric_ops = _call_host_fn(self.eval_metrics) if self.eval_metrics is not None else None
        hooks = []
        if self.host_call is not None:
            ops = _call_host_fn(self.host_call)
            hooks.append(_HostCallHook(ops))
        scaffold = self.scaffold_fn() if self.scaffold_fn else None
        return EstimatorSpec(mode=self.mode, predictions=self.predictions, loss=self.loss, train_op=self.train_op,
                             eval_metric_ops=eval_metric_ops, export_outputs=self.export_outputs,
                             scaffold=scaffold, training_hooks=self.training_hooks + hooks,
                             evaluation_hooks=self.evaluation_hooks, prediction_hooks=self.prediction_hooks)


@tf_export("estimator.tpu.TPUEstimator", "contrib.tpu.TPUEstimator")
class TPUEstimator(Estimator):
    """An ``Estimator`` whose ``input_fn``/``model_fn`` get ``params["batch_size"]`` and whose ``model_fn``
    may return a ``TPUEstimatorSpec``; with ``use_tpu=False`` (the only mode dflow runs) it trains,
    evaluates and predicts on the CPU as TF 1.15's did."""

    def __init__(self, model_fn=None, model_dir=None, config=None, params=None, use_tpu=True,
                 train_batch_size=None, eval_batch_size=None, predict_batch_size=None, batch_axis=None,
                 eval_on_tpu=True, export_to_tpu=True, export_to_cpu=True, warm_start_from=None,
                 embedding_config_spec=None, export_saved_model_api_version=None):
        if config is None or not isinstance(config, RunConfig):
            raise ValueError("`config` must be provided with type `tpu_config.RunConfig`")
        if params is not None and any(k in params for k in _RESERVED_PARAMS_KEYS):
            raise ValueError(f"{list(_RESERVED_PARAMS_KEYS)} are reserved keys but existed in params {params}.")
        if use_tpu:
            raise NotImplementedError("tf.estimator.tpu.TPUEstimator(use_tpu=True): dflow has no TPU support; "
                                      "pass use_tpu=False to run on CPU as TF 1.15 does")
        if embedding_config_spec is not None:
            raise NotImplementedError("tf.estimator.tpu.TPUEstimator(embedding_config_spec=...): TPU embeddings")
        for what, size in (("train_batch_size", train_batch_size), ("eval_batch_size", eval_batch_size),
                           ("predict_batch_size", predict_batch_size)):
            if size is not None and (not isinstance(size, int) or size < 1):
                raise ValueError(f"`{what}` must be a positive integer, given: {size}")
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config, params=params,
                         warm_start_from=warm_start_from)
        self._use_tpu = use_tpu
        self._batch_sizes = {ModeKeys.TRAIN: train_batch_size, ModeKeys.EVAL: eval_batch_size,
                             ModeKeys.PREDICT: predict_batch_size}

    def _params_for(self, mode) -> dict:
        params = self.params
        params[_BATCH_SIZE_KEY] = self._batch_sizes.get(mode)
        return params

    def _call_input_fn(self, input_fn, mode):
        args = set(fn_args(input_fn))
        if "params" not in args:
            raise ValueError(f"input_fn ({input_fn}) does not include params argument, required by TPUEstimator "
                             "to pass batch size as params['batch_size']")
        kwargs = {"params": self._params_for(mode)}
        if "mode" in args:
            kwargs["mode"] = mode
        if "config" in args:
            kwargs["config"] = self.config
        return input_fn(**kwargs)

    def _model_fn_params(self, mode) -> dict:
        params = self._params_for(mode)
        params[_USE_TPU_KEY] = self._use_tpu
        return params

    def _as_estimator_spec(self, result):
        if isinstance(result, TPUEstimatorSpec):
            return result.as_estimator_spec()
        if not isinstance(result, EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec or a TPUEstimatorSpec.")
        return result
