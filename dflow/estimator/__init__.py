"""``tf.estimator`` (TF1): ``Estimator``, ``EstimatorSpec``, ``ModeKeys``, ``RunConfig``,
``TrainSpec``/``EvalSpec``/``train_and_evaluate`` and ``tf.estimator.inputs.numpy_input_fn``.

The session-run hooks TF1 also exports under ``tf.estimator`` (``StopAtStepHook``,
``CheckpointSaverHook``, ...) are declared in ``dflow.train``.
"""

from dflow.estimator import inputs
from dflow.estimator.estimator import Estimator, WarmStartSettings
from dflow.estimator.model_fn import EstimatorSpec, ModeKeys
from dflow.estimator.run_config import RunConfig
from dflow.estimator.training import EvalSpec, TrainSpec, train_and_evaluate

__all__ = ["Estimator", "EstimatorSpec", "EvalSpec", "ModeKeys", "RunConfig", "TrainSpec", "WarmStartSettings",
           "inputs", "train_and_evaluate"]
# tf.estimator.DNNClassifier & co., tf.estimator.export.*, tf.estimator.tpu.* (= tf.contrib.tpu's TPUEstimator)
from dflow.estimator import canned, export, tpu_estimator  # noqa: E402, F401
