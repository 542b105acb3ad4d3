"""The hooks and helpers ``Estimator`` runs with: dataset initialization, the
evaluation step limit, the terminal progress bar, and eval-summary writing."""

from __future__ import annotations

import logging
import sys
import time

import numpy as np

from dflow.framework import graph as _graph
from dflow.train.session_run_hook import SessionRunArgs, SessionRunHook

_log = logging.getLogger("dflow")


def _is_dataset(obj) -> bool:
    from dflow.data.dataset_ops import DatasetV1

    return isinstance(obj, DatasetV1)


class _DatasetInitializerHook(SessionRunHook):
    """Runs the input iterator's initializer once the session exists (TF1's ``DatasetInitializerHook``)."""

    def __init__(self, iterator):
        self._iterator = iterator

    def begin(self):
        self._initializer = self._iterator.initializer

    def after_create_session(self, session, coord):
        del coord
        session.run(self._initializer)


def parse_input_fn_result(result):
    """``(features, labels, hooks)`` from what an ``input_fn`` returned (TF1's ``parse_input_fn_result``)."""
    hooks = []
    if _is_dataset(result):
        iterator = result.make_initializable_iterator()
        hooks.append(_DatasetInitializerHook(iterator))
        result = iterator.get_next()
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
        return result[0], result[1], hooks
    return result, None, hooks


def _has_dataset_or_queue_runner(hooks) -> bool:
    from dflow.framework.graph import GraphKeys

    if hooks or _graph.get_collection(GraphKeys.QUEUE_RUNNERS):
        return True
    return any(op.type in ("OneShotIterator", "IteratorV2") for op in _graph.get_default_graph().get_operations())


def _extract_batch_length(preds_evaluated) -> int:
    batch_length = None
    for key, value in preds_evaluated.items():
        value = np.asarray(value)
        if value.ndim == 0:
            raise ValueError(f"Prediction {key!r} is a scalar: with yield_single_examples=True every prediction "
                             "needs a batch dimension (or call predict(..., yield_single_examples=False)).")
        batch_length = batch_length or value.shape[0]
        if value.shape[0] != batch_length:
            raise ValueError(f"Batch length of predictions should be same. {key} has different batch length "
                             "than others.")
    return batch_length or 0


def _as_result_value(v):
    """A fetched metric value as TF1 returns it: numpy scalars stay numpy scalars."""
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return v[()]
    return v


def _write_dict_to_summary(output_dir, dictionary, current_global_step) -> None:
    """Scalar entries of ``dictionary`` as simple-value summaries in an event file under ``output_dir``."""
    from dflow.summary import FileWriter, Summary

    _log.info("Saving dict for global step %d: %s", current_global_step, _dict_to_str(dictionary))
    values = []
    for key in sorted(dictionary):
        if key == "global_step":
            continue
        v = np.asarray(dictionary[key])
        if v.ndim == 0 and v.dtype.kind in "biuf":
            values.append(Summary.Value(tag=key, simple_value=float(v)))
        else:
            _log.warning("Skipping summary for %s, must be a float, np.float32, np.int64, np.int32 or int.", key)
    with FileWriter(output_dir) as writer:
        writer.add_summary(Summary(value=values), current_global_step)


def _dict_to_str(dictionary) -> str:
    return ", ".join(f"{k} = {v}" for k, v in sorted(dictionary.items()) if not isinstance(v, bytes))


class _StopAfterNEvalsHook(SessionRunHook):
    """Stops evaluation after ``num_evals`` batches, logging ``Evaluation [i/N]`` about ten times."""

    def __init__(self, num_evals, log_progress=True):
        self._num_evals = num_evals
        self._evals_completed = 0
        self._log_progress = log_progress
        self._log_frequency = 1 if (num_evals is None or num_evals < 20) else int(np.floor(num_evals / 10.0))

    def after_run(self, run_context, run_values):
        del run_values
        self._evals_completed += 1
        if self._log_progress and self._num_evals is not None and (
                self._evals_completed % self._log_frequency == 0 or self._num_evals == self._evals_completed):
            _log.info("Evaluation [%d/%d]", self._evals_completed, self._num_evals)
        if self._num_evals is not None and self._evals_completed >= self._num_evals:
            run_context.request_stop()


class _ProgressBarHook(SessionRunHook):
    """A one-line ``\\r`` progress bar on ``stream``: step/total, loss and steps/sec, at most 10 redraws/sec."""

    _WIDTH = 30

    def __init__(self, loss, stream, last_step=None, num_steps=None):
        self._loss = loss
        self._stream = stream
        self._last_step = last_step
        self._num_steps = num_steps
        self._drawn = False

    def begin(self):
        from dflow.train.training_util import _get_or_create_global_step_read

        self._global_step = _get_or_create_global_step_read()  # the step the run started from
        self._last_draw = 0.0

    def after_create_session(self, session, coord):
        del coord
        self._start_step = int(session.run(self._global_step))
        self._start_time = time.time()
        self._total = self._last_step
        if self._total is None and self._num_steps is not None:
            self._total = self._start_step + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs({"loss": self._loss, "step": self._global_step})

    def after_run(self, run_context, run_values):
        now = time.time()
        if now - self._last_draw < 0.1:
            self._pending = run_values.results
            return
        self._draw(run_values.results, now)

    def _draw(self, results, now) -> None:
        self._last_draw = now
        self._pending = None
        step = int(results["step"]) + 1
        rate = (step - self._start_step) / max(now - self._start_time, 1e-9)
        if self._total:
            frac = min(1.0, step / self._total)
            filled = int(frac * self._WIDTH)
            bar = "[" + "=" * filled + (">" if filled < self._WIDTH else "") + " " * (self._WIDTH - filled - 1) + "]"
            head = f"{bar} {step}/{self._total}"
        else:
            head = f"step {step}"
        self._stream.write(f"\r{head} loss={float(results['loss']):.4g} {rate:.1f} steps/sec ")
        self._stream.flush()
        self._drawn = True

    def end(self, session):
        if getattr(self, "_pending", None) is not None:
            self._draw(self._pending, time.time())
        if self._drawn:
            self._stream.write("\n")
            self._stream.flush()


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


