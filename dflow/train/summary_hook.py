"""``tf.train.SummarySaverHook``: runs the summary op every N steps or seconds and writes it.

TF1 semantics: the first run after the session starts always fetches the
summaries and writes a ``SessionLog.START`` event; after that the summary
op is added to a run's fetches when the timer says a step is due, and the
result is written at the exact global step (read again after that run).
With a ``scaffold`` the hook uses ``scaffold.summary_op``.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.protos.summary_pb import SessionLog
from dflow.summary.writer import FileWriterCache
from dflow.train import training_util
from dflow.train.basic_session_run_hooks import SecondOrStepTimer
from dflow.train.session_run_hook import SessionRunArgs, SessionRunHook


@tf_export("train.SummarySaverHook", "estimator.SummarySaverHook")
class SummarySaverHook(SessionRunHook):
    """Saves summaries every ``save_steps`` steps or ``save_secs`` seconds.

    Give exactly one of ``scaffold`` (its ``summary_op`` is used) and
    ``summary_op`` (a tensor or a list of them), and a ``summary_writer`` or
    an ``output_dir`` (whose cached ``FileWriter`` is used).
    """

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None, scaffold=None,
                 summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._next_step = None
        self._request_summary = False
        self._global_step_tensor = None

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step_tensor = training_util._get_or_create_global_step_read()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use SummarySaverHook.")

    def before_run(self, run_context):
        self._request_summary = self._next_step is None or self._timer.should_trigger_for_step(self._next_step)
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary:
            summary_op = self._get_summary_op()
            if summary_op is not None:
                requests["summary"] = summary_op
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        if not self._summary_writer:
            return
        global_step = int(run_values.results["global_step"]) + 1
        if self._next_step is None or self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
        if self._next_step is None:
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", ()):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        if self._summary_writer:
            self._summary_writer.flush()

    def _get_summary_op(self):
        summary_op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        if summary_op is None:
            return None
        if not isinstance(summary_op, list):
            return [summary_op]
        return summary_op
