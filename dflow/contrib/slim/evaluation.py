"""``slim.evaluation``: TF 1.15's slim evaluation loop (``tf.contrib.training.evaluate_once`` underneath).

* ``evaluate_once(master, checkpoint_path, logdir, num_evals=1, eval_op=..., final_op=...)``: restores
  ``checkpoint_path`` (all global variables, or ``variables_to_restore``) in a ``MonitoredSession``,
  initializes the local variables (the metrics' accumulators), runs ``eval_op`` ``num_evals`` times,
  writes ``summary_op`` (default ``tf.summary.merge_all()``) to ``logdir`` at the checkpoint's global step
  and returns ``final_op``'s value;
* ``evaluation_loop(master, checkpoint_dir, logdir, ..., eval_interval_secs=60,
  max_number_of_evaluations=None, timeout=None)``: ``evaluate_once`` for each new checkpoint of
  ``checkpoint_dir`` (``tf.train.checkpoints_iterator``) until ``max_number_of_evaluations`` or
  ``timeout`` seconds without a new one; returns the last ``final_op`` value.

The evaluation counter is the local variable ``eval_step`` (collection ``eval_step``), as in TF.
"""

from __future__ import annotations

import logging
import time

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.graph import GraphKeys, control_dependencies, get_default_graph
from dflow.train.session_run_hook import SessionRunArgs, SessionRunHook
from dflow.train.training_loops import checkpoints_iterator, wait_for_new_checkpoint  # noqa: F401 - slim re-exported them

_logger = logging.getLogger("tensorflow")

_USE_DEFAULT = 0


def _get_or_create_eval_step():
    from dflow.ops.state.init_ops import zeros_initializer
    from dflow.ops.state.variable_scope import get_variable

    existing = get_default_graph().get_collection(GraphKeys.EVAL_STEP)
    if len(existing) == 1:
        return existing[0]
    if len(existing) > 1:
        raise ValueError("Multiple tensors added to tf.GraphKeys.EVAL_STEP")
    return get_variable(GraphKeys.EVAL_STEP, shape=[], dtype=dtypes.int64, initializer=zeros_initializer(),
                        trainable=False, collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.EVAL_STEP])


@tf_export("contrib.training.StopAfterNEvalsHook")
class StopAfterNEvalsHook(SessionRunHook):
    """Requests a stop once ``num_evals`` evaluation runs have completed."""

    def __init__(self, num_evals, log_progress=True):
        self._num_evals = num_evals
        self._evals_completed = None
        self._log_progress = log_progress
        self._log_frequency = 1 if (num_evals is None or num_evals < 20) else num_evals // 10

    def _set_evals_completed_tensor(self, updated_eval_step):
        self._evals_completed = updated_eval_step

    def before_run(self, run_context):
        return SessionRunArgs({"evals_completed": self._evals_completed})

    def after_run(self, run_context, run_values):
        evals_completed = run_values.results["evals_completed"]
        if self._log_progress:
            if self._num_evals is None:
                _logger.info("Evaluation [%d]", evals_completed)
            elif (evals_completed % self._log_frequency) == 0 or self._num_evals == evals_completed:
                _logger.info("Evaluation [%d/%d]", evals_completed, self._num_evals)
        if self._num_evals is not None and evals_completed >= self._num_evals:
            run_context.request_stop()


@tf_export("contrib.training.SummaryAtEndHook")
class SummaryAtEndHook(SessionRunHook):
    """Writes ``summary_op`` (default ``merge_all()``) to ``log_dir`` when the session ends."""

    def __init__(self, log_dir=None, summary_writer=None, summary_op=None, feed_dict=None):
        self._summary_op = summary_op
        self._replace_summary_op = summary_op is None
        self._feed_dict = feed_dict
        self._summary_writer = summary_writer
        self._log_dir = log_dir
        self._global_step = None
        if self._log_dir is None and self._summary_writer is None:
            raise ValueError("One of log_dir or summary_writer should be used.")

    def begin(self):
        from dflow.summary.summary_ops import merge_all
        from dflow.train.training_util import get_global_step

        if self._replace_summary_op:
            self._summary_op = merge_all()
        self._global_step = get_global_step()

    def after_create_session(self, session, coord):
        if self._summary_writer is None and self._log_dir:
            from dflow.summary import FileWriterCache

            self._summary_writer = FileWriterCache.get(self._log_dir)

    def end(self, session):
        if self._summary_op is None or self._summary_writer is None:
            return
        step = session.run(self._global_step) if self._global_step is not None else None
        summary = session.run(self._summary_op, self._feed_dict)
        self._summary_writer.add_summary(summary, step)
        self._summary_writer.flush()


def _latest_eval_step_value(update_ops):
    from dflow.ops.control_flow.control_flow_ops import identity

    if isinstance(update_ops, dict):
        update_ops = list(update_ops.values())
    with control_dependencies(update_ops):
        return identity(_get_or_create_eval_step().read_value())


def _prepare_eval_ops(eval_ops, hooks):
    """Adds the ``eval_step`` increment to ``eval_ops`` and gives the stop hooks its updated value."""
    from dflow.ops.state.variables import assign_add

    if eval_ops is None:
        return None
    update_eval_step = assign_add(_get_or_create_eval_step(), 1)
    if isinstance(eval_ops, dict):
        eval_ops = dict(eval_ops)
        eval_ops["update_eval_step"] = update_eval_step
    elif isinstance(eval_ops, (tuple, list)):
        eval_ops = list(eval_ops) + [update_eval_step]
    else:
        eval_ops = [eval_ops, update_eval_step]
    eval_step_value = _latest_eval_step_value(eval_ops)
    for h in hooks:
        if isinstance(h, StopAfterNEvalsHook):
            h._set_evals_completed_tensor(eval_step_value)
    return eval_ops


def _run_evaluation(checkpoint_path, master, scaffold, eval_ops, feed_dict, final_ops, final_ops_feed_dict, hooks,
                    config):
    from dflow.train.basic_session_run_hooks import FinalOpsHook
    from dflow.train.monitored_session import ChiefSessionCreator, MonitoredSession

    _logger.info("Starting evaluation at " + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    session_creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_filename_with_path=checkpoint_path,
                                          master=master, config=config)
    final_ops_hook = FinalOpsHook(final_ops, final_ops_feed_dict)
    with MonitoredSession(session_creator=session_creator, hooks=list(hooks) + [final_ops_hook]) as session:
        if eval_ops is not None:
            while not session.should_stop():
                session.run(eval_ops, feed_dict)
    _logger.info("Finished evaluation at " + time.strftime("%Y-%m-%d-%H:%M:%S", time.gmtime()))
    return final_ops_hook.final_ops_values


@tf_export("contrib.training.evaluate_once")
def evaluate_once_training(checkpoint_path, master="", scaffold=None, eval_ops=None, feed_dict=None, final_ops=None,
                           final_ops_feed_dict=None, hooks=None, config=None):
    """``tf.contrib.training.evaluate_once``: runs ``eval_ops`` until a hook stops, then ``final_ops``."""
    from dflow.train.monitored_session import Scaffold

    hooks = list(hooks or [])
    eval_ops = _prepare_eval_ops(eval_ops, hooks)
    return _run_evaluation(checkpoint_path, master, scaffold or Scaffold(), eval_ops, feed_dict, final_ops,
                           final_ops_feed_dict, hooks, config)


def _slim_hooks(num_evals, logdir, summary_op, summary_op_feed_dict, hooks):
    from dflow.summary.summary_ops import merge_all

    if summary_op is _USE_DEFAULT:
        summary_op = merge_all()
    all_hooks = [StopAfterNEvalsHook(num_evals)]
    if summary_op is not None:
        all_hooks.append(SummaryAtEndHook(log_dir=logdir, summary_op=summary_op, feed_dict=summary_op_feed_dict))
    if hooks is not None:
        all_hooks.extend(hooks)
    return all_hooks


def _scaffold(initial_op, initial_op_feed_dict, init_fn, variables_to_restore):
    from dflow.train.checkpoints.saver import Saver
    from dflow.train.monitored_session import Scaffold

    saver = Saver(variables_to_restore) if variables_to_restore is not None else None
    return Scaffold(init_op=initial_op, init_feed_dict=initial_op_feed_dict,
                    init_fn=(lambda _scaffold, sess: init_fn(sess)) if init_fn else None, saver=saver)


@tf_export("contrib.slim.evaluation.evaluate_once")
def evaluate_once(master, checkpoint_path, logdir, num_evals=1, initial_op=None, initial_op_feed_dict=None,
                  eval_op=None, eval_op_feed_dict=None, final_op=None, final_op_feed_dict=None,
                  summary_op=_USE_DEFAULT, summary_op_feed_dict=None, variables_to_restore=None, session_config=None,
                  hooks=None):
    """Evaluates the checkpoint ``checkpoint_path`` once: ``eval_op`` ``num_evals`` times, then ``final_op``."""
    all_hooks = _slim_hooks(num_evals, logdir, summary_op, summary_op_feed_dict, hooks)
    eval_ops = _prepare_eval_ops(eval_op, all_hooks)
    scaffold = _scaffold(initial_op, initial_op_feed_dict, None, variables_to_restore)
    return _run_evaluation(checkpoint_path, master, scaffold, eval_ops, eval_op_feed_dict, final_op,
                           final_op_feed_dict, all_hooks, session_config)


@tf_export("contrib.slim.evaluation.evaluation_loop")
def evaluation_loop(master, checkpoint_dir, logdir, num_evals=1, initial_op=None, initial_op_feed_dict=None,
                    init_fn=None, eval_op=None, eval_op_feed_dict=None, final_op=None, final_op_feed_dict=None,
                    summary_op=_USE_DEFAULT, summary_op_feed_dict=None, variables_to_restore=None,
                    eval_interval_secs=60, max_number_of_evaluations=None, session_config=None, timeout=None,
                    timeout_fn=None, hooks=None):
    """``evaluate_once`` on each new checkpoint of ``checkpoint_dir``; returns the last ``final_op`` value."""
    all_hooks = _slim_hooks(num_evals, logdir, summary_op, summary_op_feed_dict, hooks)
    eval_ops = _prepare_eval_ops(eval_op, all_hooks)
    scaffold = _scaffold(initial_op, initial_op_feed_dict, init_fn, variables_to_restore)
    final_ops_values = None
    num_evaluations = 0
    for checkpoint_path in checkpoints_iterator(checkpoint_dir, min_interval_secs=eval_interval_secs,
                                                timeout=timeout, timeout_fn=timeout_fn):
        final_ops_values = _run_evaluation(checkpoint_path, master, scaffold, eval_ops, eval_op_feed_dict, final_op,
                                           final_op_feed_dict, all_hooks, session_config)
        num_evaluations += 1
        if max_number_of_evaluations is not None and num_evaluations >= max_number_of_evaluations:
            return final_ops_values
    return final_ops_values
