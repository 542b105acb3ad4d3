"""``tf.estimator.ModeKeys`` and ``tf.estimator.EstimatorSpec``, as TF1 defines them.

A ``model_fn`` returns an ``EstimatorSpec`` describing what the estimator runs
in each mode: ``train_op`` and ``loss`` in TRAIN, ``loss`` and
``eval_metric_ops`` in EVAL, ``predictions`` in PREDICT. The constructor
checks the spec as TF1 does and raises ``ValueError``/``TypeError`` naming the
missing or malformed field.
"""

from __future__ import annotations

import collections

from dflow._api import tf_export
from dflow.framework import graph as _graph
from dflow.framework.tensor import Operation, Tensor

__all__ = ["EstimatorSpec", "ModeKeys"]


@tf_export("estimator.ModeKeys")
class ModeKeys:
    """The three modes a ``model_fn`` is called in: ``'train'``, ``'eval'``, ``'infer'``."""

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


_ALL_MODES = (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT)


def _check_graph(value, what: str) -> None:
    """TF1 requires every tensor of the spec to live in the default graph."""
    g = getattr(value, "graph", None)
    if g is not None and g is not _graph.get_default_graph():
        raise ValueError(f"{what} must be from the default graph. Possible causes of this error include: \n\n"
                         f"1) {what} was created outside the context of the default graph."
                         f"\n\n2) The object passed through to EstimatorSpec was not created in the most recent "
                         f"call to \"model_fn\".\n\n{what} = {value}")


def _validate_loss(loss):
    from dflow.ops.array import array_ops

    if not isinstance(loss, Tensor):
        raise TypeError(f"loss must be Tensor, given: {loss}")
    _check_graph(loss, "loss")
    shape = loss.shape
    if shape.ndims is not None and not (shape.ndims == 0 or shape.as_list() == [1]):
        raise ValueError(f"Loss must be scalar, given: {loss}")
    if shape.ndims != 0:
        loss = array_ops.reshape(loss, [])
    return loss


def _validate_predictions(predictions):
    if isinstance(predictions, dict):
        for k, v in predictions.items():
            if not isinstance(v, Tensor):
                raise TypeError(f"predictions must be Tensor or dict of Tensor, given: {v} for key: {k}")
            _check_graph(v, "prediction values")
    elif isinstance(predictions, Tensor):
        _check_graph(predictions, "prediction values")
    else:
        raise TypeError(f"predictions must be Tensor or dict of Tensor, given: {predictions}")


def _validate_metrics(eval_metric_ops) -> dict:
    if eval_metric_ops is None:
        return {}
    if not isinstance(eval_metric_ops, dict):
        raise TypeError(f"eval_metric_ops must be a dict, given: {eval_metric_ops}")
    for key, value in eval_metric_ops.items():
        if not isinstance(value, tuple) or len(value) != 2:
            raise TypeError("Values of eval_metric_ops must be (metric_value, update_op) tuples, "
                            f"given: {value} for key: {key}")
        for part in value:
            _check_graph(part, "eval_metric_ops")
    return dict(eval_metric_ops)


def _validate_hooks(hooks, what: str) -> tuple:
    from dflow.train.session_run_hook import SessionRunHook

    hooks = tuple(hooks or ())
    for h in hooks:
        if not isinstance(h, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {h} (in {what})")
    return hooks


@tf_export("estimator.EstimatorSpec")
class EstimatorSpec(collections.namedtuple("EstimatorSpec", [
        "mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs", "training_chief_hooks",
        "training_hooks", "scaffold", "evaluation_hooks", "prediction_hooks"])):
    """Ops and objects returned from a ``model_fn`` and passed to an ``Estimator``.

    TRAIN needs ``loss`` and ``train_op``; EVAL needs ``loss``; PREDICT needs
    ``predictions`` (a tensor or a dict of tensors). ``loss`` must be a scalar
    (shape ``[1]`` is reshaped); ``eval_metric_ops`` maps names to
    ``(value, update_op)`` pairs such as those ``tf.metrics.*`` return.

    >>> import dflow as tf
    >>> tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=tf.constant(0.5)).mode
    'eval'
    """

    __slots__ = ()

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None, export_outputs=None,
                training_chief_hooks=None, training_hooks=None, scaffold=None, evaluation_hooks=None,
                prediction_hooks=None):
        from dflow.train.monitored_session import Scaffold

        if mode not in _ALL_MODES:
            raise ValueError(f"mode={mode!r} unrecognized. Expected one of {list(_ALL_MODES)}")
        if train_op is None:
            if mode == ModeKeys.TRAIN:
                raise ValueError("Missing train_op.")
        else:
            if not isinstance(train_op, (Tensor, Operation)):
                raise TypeError(f"train_op must be Operation or Tensor, given: {train_op}")
            _check_graph(train_op, "train_op")
        if loss is None:
            if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
                raise ValueError("Missing loss.")
        else:
            loss = _validate_loss(loss)
        if predictions is None:
            if mode == ModeKeys.PREDICT:
                raise ValueError("Missing predictions.")
            predictions = {}
        else:
            _validate_predictions(predictions)
        eval_metric_ops = _validate_metrics(eval_metric_ops)
        if export_outputs is not None and not isinstance(export_outputs, dict):
            raise TypeError(f"export_outputs must be dict, given: {export_outputs}")
        training_chief_hooks = _validate_hooks(training_chief_hooks, "training_chief_hooks")
        training_hooks = _validate_hooks(training_hooks, "training_hooks")
        evaluation_hooks = _validate_hooks(evaluation_hooks, "evaluation_hooks")
        prediction_hooks = _validate_hooks(prediction_hooks, "prediction_hooks")
        if scaffold is None:
            scaffold = Scaffold()
        elif not isinstance(scaffold, Scaffold):
            raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold}")
        return super().__new__(cls, mode=mode, predictions=predictions, loss=loss, train_op=train_op,
                               eval_metric_ops=eval_metric_ops, export_outputs=export_outputs,
                               training_chief_hooks=training_chief_hooks, training_hooks=training_hooks,
                               scaffold=scaffold, evaluation_hooks=evaluation_hooks,
                               prediction_hooks=prediction_hooks)

    def _replace(self, **kwds):
        if "mode" in kwds and self.mode != kwds["mode"]:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        new_fields = map(kwds.pop, self._fields, list(self))
        return EstimatorSpec(*new_fields)
