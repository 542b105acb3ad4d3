"""The standard hooks of monitored sessions (TF1's ``basic_session_run_hooks``).

``StopAtStepHook`` ends training at a global step, ``CheckpointSaverHook``
saves every N steps or seconds, ``LoggingTensorHook`` and ``StepCounterHook``
log to the ``"dflow"`` logger (TF1's ``INFO:tensorflow:`` lines),
``NanTensorHook`` stops on a NaN loss, ``FinalOpsHook`` evaluates tensors at
the end, ``FeedFnHook`` feeds every run, ``GlobalStepWaiterHook`` delays a
worker and ``ProfilerHook`` writes Chrome traces of sampled steps.

Hooks that follow the global step fetch it with each run and, only when a
trigger may be due, read it once more to get the exact value (as TF1 does):
the value fetched beside a train op may be from before or after its update.

Summaries (``SummarySaverHook``, ``StepCounterHook``'s ``global_step/sec``
events) go through ``dflow.summary``, imported when first needed.
"""

from __future__ import annotations

import json
import logging
import os
import time

import numpy as np

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.files import file_io
from dflow.framework.graph import GraphKeys, get_collection, get_default_graph
from dflow.train import training_util
from dflow.train.session_run_hook import SessionRunArgs, SessionRunHook
from dflow.train.timeline import chrome_trace

_log = logging.getLogger("dflow")

_warned_no_summary = False


def _warn_no_summary(what: str, err: Exception) -> None:
    global _warned_no_summary
    if not _warned_no_summary:
        _warned_no_summary = True
        _log.warning("%s skipped: tf.summary is not available in this dflow (%s)", what, err)


def _summary_writer(output_dir, what: str):
    """The cached ``tf.summary.FileWriter`` of ``output_dir``, or None (warned once) without ``dflow.summary``."""
    try:
        from dflow.summary import FileWriterCache
    except ImportError as e:
        _warn_no_summary(what, e)
        return None
    return FileWriterCache.get(output_dir)


def _global_step_tensor(hook_name: str):
    """The global step's value as the run read it (TF's ``_get_or_create_global_step_read``)."""
    step = training_util._get_or_create_global_step_read()
    if step is None:
        raise RuntimeError(f"Global step should be created to use {hook_name}.")
    return step


class _HookTimer:
    """Decides when a hook fires: ``should_trigger_for_step`` / ``update_last_triggered_step``."""

    def reset(self) -> None:
        """Forgets the last trigger."""

    def should_trigger_for_step(self, step) -> bool:
        raise NotImplementedError

    def update_last_triggered_step(self, step):
        raise NotImplementedError

    def last_triggered_step(self):
        raise NotImplementedError


@tf_export("train.SecondOrStepTimer", "estimator.SecondOrStepTimer")
class SecondOrStepTimer(_HookTimer):
    """Triggers every ``every_secs`` seconds or every ``every_steps`` steps (exactly one of them).

    >>> t = SecondOrStepTimer(every_steps=3)
    >>> [s for s in range(8) if t.should_trigger_for_step(s) and t.update_last_triggered_step(s)]
    [0, 3, 6]
    """

    def __init__(self, every_secs=None, every_steps=None):
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if self._every_secs is None and self._every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if self._every_secs is not None and self._every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self) -> None:
        self._last_triggered_step = None
        self._last_triggered_time = None

    def should_trigger_for_step(self, step) -> bool:
        """True at the first step, and once ``every_steps`` steps or ``every_secs`` seconds have passed."""
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None and time.time() >= self._last_triggered_time + self._every_secs:
            return True
        if self._every_steps is not None and step >= self._last_triggered_step + self._every_steps:
            return True
        return False

    def update_last_triggered_step(self, step):
        """Records a trigger at ``step``; returns ``(elapsed_secs, elapsed_steps)`` since the last one
        (``(None, None)`` the first time)."""
        now = time.time()
        if self._last_triggered_time is None:
            elapsed = (None, None)
        else:
            elapsed = (now - self._last_triggered_time, step - self._last_triggered_step)
        self._last_triggered_time = now
        self._last_triggered_step = step
        return elapsed

    def last_triggered_step(self):
        return self._last_triggered_step


class NeverTriggerTimer(_HookTimer):
    """A timer that never fires (``LoggingTensorHook(at_end=True)`` alone)."""

    def should_trigger_for_step(self, step) -> bool:  # noqa: ARG002 - the timer interface
        return False

    def update_last_triggered_step(self, step):  # noqa: ARG002 - the timer interface
        return None, None

    def last_triggered_step(self):
        return None


def _as_graph_element(obj):
    """``obj`` (a tensor of the default graph, or a name: ``"x"`` means ``"x:0"``) as a graph element."""
    graph = get_default_graph()
    if not isinstance(obj, str):
        if getattr(obj, "graph", None) is not graph:
            raise ValueError(f"Passed {obj} should have graph attribute that is equal to current graph {graph}.")
        return obj
    if ":" in obj:
        return graph.as_graph_element(obj)
    element = graph.as_graph_element(obj + ":0")
    try:
        graph.as_graph_element(obj + ":1")
    except (KeyError, ValueError):
        pass
    else:
        raise ValueError(f"Name {obj} is ambiguous, as this `Operation` has multiple outputs (at least 2).")
    return element


@tf_export("train.LoggingTensorHook", "estimator.LoggingTensorHook")
class LoggingTensorHook(SessionRunHook):
    """Logs tensors every ``every_n_iter`` runs or ``every_n_secs`` seconds, and/or ``at_end``.

    ``tensors``: a list of tensors or names (logged under their names) or a
    dict ``{tag: tensor}`` (logged in sorted tag order). Lines look like TF1's:
    ``loss = 0.25, step = 3 (0.012 sec)``; ``formatter(values_dict)``
    replaces the default line.
    """

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, dict):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors.keys())
        self._tensors = tensors
        self._formatter = formatter
        self._timer = (NeverTriggerTimer() if only_log_at_end
                       else SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter))
        self._log_at_end = at_end
        self._should_trigger = False

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, tensor_values) -> None:
        elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
        with np.printoptions(suppress=True):
            if self._formatter:
                _log.info("%s", self._formatter(tensor_values))
                return
            line = ", ".join(f"{tag} = {tensor_values[tag]!s}" for tag in self._tag_order)
        if elapsed_secs is not None:
            _log.info("%s (%.3f sec)", line, elapsed_secs)
        else:
            _log.info("%s", line)

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


@tf_export("train.StopAtStepHook", "estimator.StopAtStepHook")
class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches ``last_step``, or ``num_steps``
    past its value when the session was created (exactly one of them)."""

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self):
        self._global_step_tensor = _global_step_tensor("StopAtStepHook")

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = int(session.run(self._global_step_tensor)) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 >= self._last_step:
            # The fetched value may predate this run's update: read it again to be sure.
            if run_context.session.run(self._global_step_tensor) >= self._last_step:
                run_context.request_stop()


@tf_export("train.CheckpointSaverListener", "estimator.CheckpointSaverListener")
class CheckpointSaverListener:
    """Called around every save of a ``CheckpointSaverHook``; ``after_save`` returning True stops training."""

    def begin(self):
        """Called once when the hook begins."""

    def before_save(self, session, global_step_value):
        """Called before each checkpoint is written."""

    def after_save(self, session, global_step_value):
        """Called after each checkpoint is written; True requests a stop."""

    def end(self, session, global_step_value):
        """Called once when the session ends, after the last save."""


@tf_export("train.CheckpointSaverHook", "estimator.CheckpointSaverHook")
class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint every ``save_secs`` seconds or ``save_steps`` steps, when the session
    is created and at its end (as TF1: ``model.ckpt-0``, every N steps, and the last step).

    The saver is ``saver``, the ``scaffold``'s, or the one in the ``SAVERS``
    collection. ``save_graph_def`` also writes ``graph.pbtxt`` (dflow's JSON
    graph) and each checkpoint's ``.meta`` file.
    """

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None, save_graph_def=True):
        _log.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        # As TF1: assume a run may have advanced the step by a lot, so the step is
        # re-read after every run before deciding not to save.
        self._steps_per_run = 1000000
        self._save_graph_def = save_graph_def

    def _set_steps_per_run(self, steps_per_run):
        self._steps_per_run = steps_per_run

    def begin(self):
        self._summary_writer = _summary_writer(self._checkpoint_dir, "The graph summary of CheckpointSaverHook")
        self._global_step_tensor = _global_step_tensor("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        global_step = int(session.run(self._global_step_tensor))
        graph = get_default_graph()
        if self._save_graph_def:
            from dflow.framework.graph_io import UnserializableGraphError, write_graph

            try:
                write_graph(graph, self._checkpoint_dir, "graph.pbtxt")
            except UnserializableGraphError as e:
                _log.warning("graph.pbtxt not written: %s", e)
        if self._summary_writer is not None and hasattr(self._summary_writer, "add_graph"):
            self._summary_writer.add_graph(graph)
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        last_step = int(session.run(self._global_step_tensor))
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session, step) -> bool:
        """Saves; True if a listener asked to stop."""
        _log.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(session, step)
        _log.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver().save(session, self._save_path, global_step=step, write_meta_graph=self._save_graph_def)
        _log.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                _log.info("A CheckpointSaverListener requested that training be stopped. listener: %s", listener)
                should_stop = True
        return should_stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = get_collection(GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(f"No items in collection {GraphKeys.SAVERS}. Please add a saver to the collection "
                               f"or provide a saver or scaffold.")
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please indicate which one to "
                               f"use by passing it to the constructor.")
        self._saver = savers[0]
        return self._saver


@tf_export("train.StepCounterHook", "estimator.StepCounterHook")
class StepCounterHook(SessionRunHook):
    """Logs ``global_step/sec: N`` every ``every_n_steps`` steps or ``every_n_secs`` seconds
    (and writes it as a summary to ``output_dir`` or ``summary_writer``)."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None, summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step = None
        self._steps_per_run = 1
        self._warned_not_increasing = 0

    def _set_steps_per_run(self, steps_per_run):
        self._steps_per_run = steps_per_run

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = _summary_writer(self._output_dir, "The global_step/sec summary")
        self._global_step_tensor = _global_step_tensor("StepCounterHook")
        self._summary_tag = training_util.get_global_step().op.name + "/sec"  # global_step/sec

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def _log_and_record(self, elapsed_steps, elapsed_time, global_step) -> None:
        steps_per_sec = elapsed_steps / elapsed_time if elapsed_time > 0 else float("inf")
        if self._summary_writer is not None:
            try:
                from dflow.summary import Summary
            except ImportError as e:
                _warn_no_summary("The global_step/sec summary", e)
            else:
                summary = Summary(value=[Summary.Value(tag=self._summary_tag, simple_value=steps_per_sec)])
                self._summary_writer.add_summary(summary, global_step)
        _log.info("%s: %g", self._summary_tag, steps_per_sec)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(global_step)
                if elapsed_time is not None:
                    self._log_and_record(elapsed_steps, elapsed_time, global_step)
        if stale_global_step == self._last_global_step and self._warned_not_increasing < 5:
            self._warned_not_increasing += 1
            _log.warning("It seems that global step (tf.train.get_global_step) has not been increased. Current "
                         "value (could be stable): %s vs previous value: %s. You could increase the global step by "
                         "passing tf.train.get_global_step() to Optimizer.apply_gradients or Optimizer.minimize.",
                         stale_global_step, self._last_global_step)
        self._last_global_step = stale_global_step


@tf_export("train.NanLossDuringTrainingError", "estimator.NanLossDuringTrainingError")
class NanLossDuringTrainingError(RuntimeError):
    """Raised by ``NanTensorHook`` when the loss is NaN."""

    def __str__(self):
        return "NaN loss during training."


@tf_export("train.NanTensorHook", "estimator.NanTensorHook")
class NanTensorHook(SessionRunHook):
    """Fetches ``loss_tensor`` with every run; on NaN raises ``NanLossDuringTrainingError``
    (or, with ``fail_on_nan_loss=False``, logs a warning and requests a stop)."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        if np.any(np.isnan(run_values.results)):
            failure_message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                _log.error(failure_message)
                raise NanLossDuringTrainingError
            _log.warning(failure_message)
            run_context.request_stop()


@tf_export("train.GlobalStepWaiterHook", "estimator.GlobalStepWaiterHook")
class GlobalStepWaiterHook(SessionRunHook):
    """Holds the first run back until the global step reaches ``wait_until_step``
    (a worker that should start once the chief has trained a while)."""

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._worker_is_started = False
        self._global_step_tensor = _global_step_tensor("_GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        _log.info("Waiting for global step %d before starting training.", self._wait_until_step)
        last_logged_step = 0
        while True:
            current_step = run_context.session.run(self._global_step_tensor)
            if current_step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if current_step - last_logged_step > 1000:
                _log.info("Waiting for global step %d before starting training. Current step is %d.",
                          self._wait_until_step, current_step)
                last_logged_step = current_step
            time.sleep(0.5)


@tf_export("train.FinalOpsHook", "estimator.FinalOpsHook")
class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` (any fetch structure) when the session ends; see ``final_ops_values``."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is not None:
            try:
                self._final_ops_values = session.run(self._final_ops, feed_dict=self._final_ops_feed_dict)
            except (errors.OutOfRangeError, StopIteration):
                _log.warning("An OutOfRangeError or StopIteration exception is raised by the code in FinalOpsHook. "
                             "This typically means the Ops running by the FinalOpsHook have a dependency back to "
                             "some input source, which should not happen: they should only read variables.")
                raise


@tf_export("train.FeedFnHook", "estimator.FeedFnHook")
class FeedFnHook(SessionRunHook):
    """Adds ``feed_fn()`` (a feed dict) to every run."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


@tf_export("train.ProfilerHook", "estimator.ProfilerHook")
class ProfilerHook(SessionRunHook):
    """Traces one run every ``save_steps`` steps or ``save_secs`` seconds (never the first)
    and writes it to ``output_dir/timeline-<step>.json`` in Chrome's trace format
    (open it at chrome://tracing or in Perfetto).

    The trace is TF's ``Timeline`` of the run's step stats: an ``Allocators`` process, and per
    device a ``Compute`` process (one event per op, in lanes where ops overlap) and a ``Tensors``
    process. ``show_dataflow`` draws arrows from an op to the ops of other lanes or devices that
    read its outputs; ``show_memory`` adds each output tensor as an object (created, described,
    deleted after its last reader) and each allocator's bytes in use as a counter.
    """

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True, show_memory=False):
        self._output_dir = output_dir
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._show_dataflow = show_dataflow
        self._show_memory = show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._next_step = None
        self._global_step_tensor = _global_step_tensor("ProfilerHook")

    def before_run(self, run_context):
        from dflow.sessions.config import RunOptions

        self._request_summary = self._next_step is not None and self._timer.should_trigger_for_step(self._next_step)
        opts = RunOptions(trace_level=RunOptions.FULL_TRACE) if self._request_summary else None
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=opts)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results["global_step"]
        if self._next_step is None:
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
            self._timer.update_last_triggered_step(global_step)
            self._save(global_step, self._output_file.format(global_step), run_values.run_metadata.step_stats)
        self._next_step = global_step + 1

    def _save(self, step, save_path, step_stats) -> None:
        _log.info("Saving timeline for %d into '%s'.", step, save_path)
        if self._output_dir:
            file_io.makedirs(self._output_dir)
        trace = chrome_trace(step_stats, show_dataflow=self._show_dataflow, show_memory=self._show_memory)
        with file_io.open_file(save_path, "wb") as f:
            f.write(json.dumps(trace, indent=4, separators=(",", ": ")).encode("utf-8"))
