"""``tf.train.Supervisor``: TF1's older training manager, as its scripts use it.

It gathers what ``MonitoredTrainingSession`` later took over: the init, ready
and local-init ops, a ``Saver`` checkpointing every ``save_model_secs`` into
``logdir``, a summary writer recording the merged summaries and
``global_step/sec`` every ``save_summaries_secs``, the queue runners, and a
``Coordinator`` that stops them. A chief initializes or restores the model; a
non-chief waits for it. It finalizes the graph.

>>> import dflow as tf
>>> step = tf.train.get_or_create_global_step()
>>> train = tf.assign_add(step, 1)
>>> sv = tf.train.Supervisor(logdir=None)
>>> with sv.managed_session() as sess:
...     while not sv.should_stop() and sess.run(step) < 3:
...         _ = sess.run(train)
"""

from __future__ import annotations

import contextlib
import logging
import os
import time

from dflow._api import tf_export
from dflow.framework.graph import GraphKeys, get_default_graph
from dflow.train.coordinator import Coordinator, LooperThread

_logger = logging.getLogger("tensorflow")


@tf_export("train.Supervisor")
class Supervisor:
    """Initializes or restores a model, runs checkpoint, summary and queue-runner services, and stops them."""

    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT, is_chief=True,
                 init_op=USE_DEFAULT, init_feed_dict=None, local_init_op=USE_DEFAULT, logdir=None,
                 summary_op=USE_DEFAULT, saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120, checkpoint_basename="model.ckpt",
                 session_manager=None, summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        graph = get_default_graph() if graph is None else graph
        with graph.as_default():
            self._init_ops(ready_op, ready_for_local_init_op, init_op, local_init_op)
            self._init_saver_and_summaries(saver, summary_op, global_step)
        self._graph = graph
        self._init_feed_dict = init_feed_dict
        self._is_chief = is_chief
        self._coord = Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._local_init_run_options = local_init_run_options
        self._logdir = self._save_path = self._summary_writer = None
        self._save_summaries_secs = self._save_model_secs = None
        self._graph_added_to_summary = False
        if is_chief:  # only the chief writes checkpoints and events
            self._logdir = logdir
            self._save_summaries_secs = save_summaries_secs
            self._save_model_secs = save_model_secs
            if logdir:
                self._save_path = os.path.join(logdir, checkpoint_basename)
            if summary_writer is Supervisor.USE_DEFAULT:
                if logdir:
                    from dflow.summary import FileWriter

                    self._summary_writer = FileWriter(logdir)
            else:
                self._summary_writer = summary_writer
        if session_manager is None:
            from dflow.train.session_manager import SessionManager

            session_manager = SessionManager(local_init_op=self._local_init_op, ready_op=self._ready_op,
                                             ready_for_local_init_op=self._ready_for_local_init_op, graph=graph,
                                             recovery_wait_secs=recovery_wait_secs,
                                             local_init_run_options=local_init_run_options)
        self._session_manager = session_manager
        self._verify_setup()
        graph.finalize()

    # -- construction (TF1's defaults, each taken from its collection first) ----------------------------
    @staticmethod
    def _first_in_collection(key):
        items = get_default_graph().get_collection(key)
        if len(items) > 1:
            _logger.info("Found %d %s operations. Returning the first one.", len(items), key)
        return items[0] if items else None

    def _init_ops(self, ready_op, ready_for_local_init_op, init_op, local_init_op) -> None:
        from dflow.framework.graph import add_to_collection
        from dflow.ops.control_flow.control_flow_ops import group
        from dflow.ops.lookup.lookup_ops import tables_initializer
        from dflow.ops.state.variables import (
            global_variables_initializer,
            local_variables_initializer,
            report_uninitialized_variables,
        )

        if ready_op is Supervisor.USE_DEFAULT:
            ready_op = self._first_in_collection(GraphKeys.READY_OP)
            if ready_op is None:
                ready_op = report_uninitialized_variables()
                add_to_collection(GraphKeys.READY_OP, ready_op)
        self._ready_op = ready_op
        if ready_for_local_init_op is Supervisor.USE_DEFAULT:
            ready_for_local_init_op = self._first_in_collection(GraphKeys.READY_FOR_LOCAL_INIT_OP)
        self._ready_for_local_init_op = ready_for_local_init_op
        if init_op is Supervisor.USE_DEFAULT:
            init_op = self._first_in_collection(GraphKeys.INIT_OP)
            if init_op is None:
                init_op = global_variables_initializer()
                add_to_collection(GraphKeys.INIT_OP, init_op)
        self._init_op = init_op
        if local_init_op is Supervisor.USE_DEFAULT:
            local_init_op = self._first_in_collection(GraphKeys.LOCAL_INIT_OP)
            if local_init_op is None:
                local_init_op = group(local_variables_initializer(), tables_initializer())
                add_to_collection(GraphKeys.LOCAL_INIT_OP, local_init_op)
        self._local_init_op = local_init_op

    def _init_saver_and_summaries(self, saver, summary_op, global_step) -> None:
        from dflow.framework.graph import add_to_collection
        from dflow.ops.state.variables import global_variables
        from dflow.summary.summary_ops import merge_all
        from dflow.train.checkpoints.saver import Saver

        if saver is Supervisor.USE_DEFAULT:
            saver = self._first_in_collection(GraphKeys.SAVERS)
            if saver is None and global_variables():
                saver = Saver()
                add_to_collection(GraphKeys.SAVERS, saver)
        self._saver = saver
        if summary_op is Supervisor.USE_DEFAULT:
            summary_op = self._first_in_collection(GraphKeys.SUMMARY_OP)
            if summary_op is None:
                summary_op = merge_all()
                if summary_op is not None:
                    add_to_collection(GraphKeys.SUMMARY_OP, summary_op)
        self._summary_op = summary_op
        if global_step is Supervisor.USE_DEFAULT:
            global_step = self._first_in_collection(GraphKeys.GLOBAL_STEP)
            if global_step is None:
                global_step = self._default_global_step_tensor()
                if global_step is not None:
                    add_to_collection(GraphKeys.GLOBAL_STEP, global_step)
        self._global_step = global_step

    @staticmethod
    def _default_global_step_tensor():
        try:
            gs = get_default_graph().get_tensor_by_name("global_step:0")
        except (KeyError, ValueError):
            return None
        if gs.dtype.base_dtype.name in ("int32", "int64"):
            return gs
        _logger.warning("Found 'global_step' is not an int type: %s", gs.dtype)
        return None

    def _verify_setup(self) -> None:
        if not self._is_chief:
            for op in self._graph.get_operations():
                if op.type in ("Variable", "VariableV2") and not op.device:
                    raise ValueError(f"When using replicas, all Variables must have their device set: {op}")

    # -- properties ------------------------------------------------------------------------------------
    is_chief = property(lambda self: self._is_chief)
    session_manager = property(lambda self: self._session_manager)
    coord = property(lambda self: self._coord)
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)
    global_step = property(lambda self: self._global_step)
    saver = property(lambda self: self._saver)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_path = property(lambda self: self._save_path)

    # -- sessions and services -------------------------------------------------------------------------
    def _write_graph(self) -> None:
        if self._logdir:
            from dflow.framework.graph_io import write_graph

            write_graph(self._graph.as_graph_def(), self._logdir, "graph.pbtxt")
        if self._summary_writer and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._graph_added_to_summary = True

    def start_standard_services(self, sess) -> list:
        """Starts the summary, step-counter and checkpoint threads (chief only; needs a ``logdir``)."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. Because only chief supervisors "
                               "can write events.")
        if not self._logdir:
            _logger.warning("Standard services need a 'logdir' passed to the SessionManager")
            return []
        from dflow.summary import SessionLog
        from dflow.train.training_util import global_step as step_of

        if self._global_step is not None and self._summary_writer:
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START),
                                                 step_of(sess, self._global_step))
        threads = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(_SummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(_StepCounterThread(self, sess))
        if self._saver and self._save_model_secs:
            threads.append(_CheckpointThread(self, sess))
        for t in threads:
            t.start()
        return threads

    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False, max_wait_secs=7200,
                                    start_standard_services=True):
        """A session ready to train: the chief initializes or restores from ``logdir``; others wait for it."""
        self._coord.clear_stop()
        if self._summary_writer:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self._init_op, saver=self._saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs, config=config,
                init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                _logger.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config, max_wait_secs=max_wait_secs)
        if start_standard_services:
            _logger.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def start_queue_runners(self, sess, queue_runners=None) -> list:
        """Starts the graph's (or the given) queue runners under this supervisor's coordinator."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None) -> LooperThread:
        """Calls ``target(*args, **kwargs)`` every ``timer_interval_secs`` in a thread until a stop is requested."""
        looper = LooperThread(self._coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False) -> None:
        """Requests a stop and joins the services (within ``stop_grace_secs``), closing the summary writer."""
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer:
                from dflow.summary import SessionLog

                self._summary_writer.add_session_log(SessionLog(status=SessionLog.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex=None) -> None:
        self._coord.request_stop(ex=ex)

    def should_stop(self) -> bool:
        return self._coord.should_stop()

    def stop_on_exception(self):
        return self._coord.stop_on_exception()

    def wait_for_stop(self) -> None:
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary, global_step=None) -> None:
        """Writes a summary computed by the caller (at the current global step by default)."""
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self._global_step is not None:
            from dflow.train.training_util import global_step as step_of

            global_step = step_of(sess, self._global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True, close_summary_writer=True):
        """A session for a ``with`` block; an exception inside stops the services, and
        ``OutOfRangeError`` (the end of the input) ends the block quietly, as in TF1."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(master=master, config=config,
                                                    start_standard_services=start_standard_services)
            yield sess
        except Exception as e:  # noqa: BLE001 - the coordinator re-raises what is not a clean stop
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    with contextlib.suppress(Exception):
                        sess.close()

    # TF1's CamelCase aliases
    PrepareSession = prepare_or_wait_for_session
    StartQueueRunners = start_queue_runners
    StartStandardServices = start_standard_services
    Stop = stop
    RequestStop = request_stop
    Loop = loop
    ShouldStop = should_stop
    StopOnException = stop_on_exception
    WaitForStop = wait_for_stop
    SummaryComputed = summary_computed


class _SummaryThread(LooperThread):
    def __init__(self, sv: Supervisor, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        if self._sv.global_step is not None:
            summary, step = self._sess.run([self._sv.summary_op, self._sv.global_step])
        else:
            summary, step = self._sess.run(self._sv.summary_op), None
        if self._sv.summary_writer:
            _logger.info("Recording summary at step %s.", step)
            self._sv.summary_writer.add_summary(summary, step)


class _StepCounterThread(LooperThread):
    def __init__(self, sv: Supervisor, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess
        self._tag = f"{sv.global_step.op.name}/sec"
        self._last_time, self._last_step = 0.0, 0

    def start_loop(self):
        from dflow.train.training_util import global_step as step_of

        self._last_time, self._last_step = time.time(), step_of(self._sess, self._sv.global_step)

    def run_loop(self):
        from dflow.summary import Summary
        from dflow.train.training_util import global_step as step_of

        step = step_of(self._sess, self._sv.global_step)
        now = time.time()
        elapsed, added = now - self._last_time, step - self._last_step
        self._last_time, self._last_step = now, step
        rate = added / elapsed if elapsed > 0 else float("inf")
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(Summary(value=[Summary.Value(tag=self._tag, simple_value=rate)]),
                                                step)
        _logger.info("%s: %g", self._tag, rate)


class _CheckpointThread(LooperThread):
    def __init__(self, sv: Supervisor, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        _logger.info("Saving checkpoint to path %s", self._sv.save_path)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer and self._sv.global_step is not None:
            from dflow.summary import SessionLog
            from dflow.train.training_util import global_step as step_of

            self._sv.summary_writer.add_session_log(
                SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._sv.save_path),
                step_of(self._sess, self._sv.global_step))
