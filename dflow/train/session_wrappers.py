"""The wrappers a monitored session stacks around a ``tf.Session``
(see ``monitored_session``): recovery from lost workers, the queue-runner
coordinator, and the hooks' calls around each run."""

from __future__ import annotations

import logging
import time

from dflow.framework import errors
from dflow.sessions.config import RunMetadata, RunOptions
from dflow.train import session_manager
from dflow.train.session_run_hook import SessionRunArgs, SessionRunContext, SessionRunValues

_log = logging.getLogger("dflow")

_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)


class StepContext:
    """What ``run_step_fn`` passes to its ``step_fn``."""

    def __init__(self, session, run_with_hooks_fn):
        self._session = session
        self._run_with_hooks_fn = run_with_hooks_fn

    @property
    def session(self):
        return self._session

    def run_with_hooks(self, *args, **kwargs):
        """``run`` with the hooks called, as ``MonitoredSession.run``."""
        return self._run_with_hooks_fn(*args, **kwargs)

    def request_stop(self):
        """Ends the step and the training loop (raises StopIteration, which the ``with`` swallows)."""
        raise StopIteration("step_fn has requested the iterations to stop.")


# -- the wrappers ---------------------------------------------------------------------------------
class _WrappedSession:
    """Forwards to a session; ``should_stop`` asks this wrapper, then the wrapped one."""

    def __init__(self, sess):
        self._sess = sess
        self._wrapped_is_stoppable = isinstance(self._sess, _WrappedSession)

    @property
    def graph(self):
        return self._sess.graph

    @property
    def sess_str(self):
        return self._sess.sess_str

    def should_stop(self) -> bool:
        if self._check_stop():
            return True
        if self._sess:
            return self._wrapped_is_stoppable and self._sess.should_stop()
        return True

    def _check_stop(self) -> bool:
        return False

    def close(self) -> None:
        if self._sess:
            try:
                self._sess.close()
            except _PREEMPTION_ERRORS as e:
                _log.error("An error occurred when attempting to close the session. This may be due to a "
                           "preemption in a connected worker or parameter server. Error: %s", e)
            finally:
                self._sess = None

    def run(self, *args, **kwargs):
        return self._sess.run(*args, **kwargs)

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        run_with_hooks = run_with_hooks or self.run
        return step_fn(StepContext(raw_session, run_with_hooks))


_RECOVERY_MSG = ("An error was raised. This may be due to a preemption in a connected worker or parameter server "
                 "(a lost Dask worker). The current session will be closed and a new session will be created, "
                 "restored from the latest checkpoint. Error: %s")

# TF1 retries forever. dflow retries at once, then with a growing pause (up to
# _MAX_RETRY_PAUSE_SECS), and gives up, re-raising the error, when runs and
# session creation have failed without a break for _RECOVERY_TIMEOUT_SECS.
_RECOVERY_TIMEOUT_SECS = 600.0
_FIRST_RETRY_PAUSE_SECS = 0.25
_MAX_RETRY_PAUSE_SECS = 10.0


class _RecoverableSession(_WrappedSession):
    """Re-creates the session (from the latest checkpoint) when a run raises AbortedError or UnavailableError."""

    def __init__(self, sess_creator):
        self._sess_creator = sess_creator
        self._failing_since = None
        self._retry_pause = 0.0
        super().__init__(self._create_session())

    def _close_for_recovery(self) -> None:
        """Closes the failed session; the queues its queue runners fed stay open (see
        ``_CoordinatedSession.close``), since the new session feeds the same ones."""
        with session_manager.recovering():
            self.close()

    def _note_failure(self, e) -> None:
        """Waits before the next attempt; re-raises ``e`` once failures have lasted too long."""
        now = time.monotonic()
        if self._failing_since is None:
            self._failing_since = now
        elif now - self._failing_since > _RECOVERY_TIMEOUT_SECS:
            _log.error("Giving up: sessions kept failing for %.0f secs. Last error: %s", now - self._failing_since, e)
            raise e
        if self._retry_pause:
            time.sleep(self._retry_pause)
        self._retry_pause = min(max(2 * self._retry_pause, _FIRST_RETRY_PAUSE_SECS), _MAX_RETRY_PAUSE_SECS)

    def _note_success(self) -> None:
        self._failing_since = None
        self._retry_pause = 0.0

    def _create_session(self):
        while True:
            try:
                if self._failing_since is None:  # the first session
                    return self._sess_creator.create_session()
                with session_manager.recovering():
                    sess = self._sess_creator.create_session()
                _log.warning("Recovered: a new session was created %.1f s after the first failure; it goes on "
                             "from the latest checkpoint, or from re-initialised variables where there was none "
                             "(see the lines above).", time.monotonic() - self._failing_since)
                return sess
            except _PREEMPTION_ERRORS as e:
                _log.info("An error was raised while a session was being created. This may be due to a preemption "
                          "of a connected worker or parameter server. A new session will be created. Error: %s", e)
                self._note_failure(e)

    def _check_stop(self) -> bool:
        try:
            if self._sess:
                return self._sess._check_stop()
            return True
        except _PREEMPTION_ERRORS as e:
            _log.info(_RECOVERY_MSG, e)
            self._close_for_recovery()
            self._note_failure(e)
            self._sess = self._create_session()
            return False
        except Exception:  # noqa: BLE001 - an error reported to the coordinator ends training
            return True

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                result = self._sess.run(fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)
            except _PREEMPTION_ERRORS as e:
                _log.info(_RECOVERY_MSG, e)
                self._close_for_recovery()
                self._sess = None
                self._note_failure(e)
            else:
                self._note_success()
                return result

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                    raw_session = self._sess_creator.tf_sess
                result = self._sess.run_step_fn(step_fn, raw_session, self._sess.run)
            except _PREEMPTION_ERRORS as e:
                _log.info(_RECOVERY_MSG, e)
                self._close_for_recovery()
                self._sess = None
                self._note_failure(e)
            else:
                self._note_success()
                return result


class _CoordinatedSession(_WrappedSession):
    """Stops and joins the coordinator's threads on close; an error they reported is raised by ``run``."""

    def __init__(self, sess, coord, stop_grace_period_secs=120):
        super().__init__(sess)
        self._coord = coord
        self._stop_grace_period_secs = stop_grace_period_secs

    def _check_stop(self) -> bool:
        self._coord.raise_requested_exception()
        return self._coord.should_stop()

    def close(self) -> None:
        if session_manager.is_recovering():
            # The session is replaced, not training over: TF1's queue runners would close their
            # queues now (a stop request cancels them), and on a cluster those queues outlive the
            # session: SyncReplicasOptimizer's token queue on the ps, closed, fails the new session.
            self._coord.keep_queues_open = True
        self._coord.request_stop()
        try:
            self._coord.join(stop_grace_period_secs=self._stop_grace_period_secs, ignore_live_threads=True)
        finally:
            try:
                _WrappedSession.close(self)
            except Exception as e:  # noqa: BLE001 - as TF1: closing must not mask the coordinator's error
                _log.debug("Ignored error closing the session: %s", e)

    def run(self, *args, **kwargs):
        try:
            return self._sess.run(*args, **kwargs)
        except _PREEMPTION_ERRORS:
            raise
        except Exception as original_exception:
            # A queue-runner thread's error explains this one better, if there is one.
            try:
                self._coord.raise_requested_exception()
            except _PREEMPTION_ERRORS:
                raise
            except Exception:
                raise original_exception from None
            raise


class _HookedSession(_WrappedSession):
    """Calls the hooks around each run, merging their fetches, feeds and options."""

    def __init__(self, sess, hooks):
        super().__init__(sess)
        self._hooks = hooks
        self._should_stop = False

    def _check_stop(self) -> bool:
        return self._should_stop

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        actual_fetches = {"caller": fetches}
        run_context = SessionRunContext(original_args=SessionRunArgs(fetches, feed_dict), session=self._sess)
        options = options or RunOptions()
        feed_dict = self._call_hook_before_run(run_context, actual_fetches, feed_dict, options)
        run_metadata = run_metadata or RunMetadata()
        outputs = _WrappedSession.run(self, fetches=actual_fetches, feed_dict=feed_dict, options=options,
                                      run_metadata=run_metadata)
        for hook in self._hooks:
            hook.after_run(run_context, SessionRunValues(results=outputs[hook] if hook in outputs else None,
                                                         options=options, run_metadata=run_metadata))
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def _call_hook_before_run(self, run_context, fetch_dict, user_feed_dict, options):
        hook_feeds = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is not None:
                if request.fetches is not None:
                    fetch_dict[hook] = request.fetches
                if request.feed_dict:
                    self._raise_if_feeds_intersects(hook_feeds, request.feed_dict, "Same tensor is fed by two hooks.")
                    hook_feeds.update(request.feed_dict)
                if request.options:
                    self._merge_run_options(options, request.options)
        if not hook_feeds:
            return user_feed_dict
        if not user_feed_dict:
            return hook_feeds
        self._raise_if_feeds_intersects(user_feed_dict, hook_feeds, "Same tensor is fed by a SessionRunHook and user.")
        hook_feeds.update(user_feed_dict)
        return hook_feeds

    @staticmethod
    def _raise_if_feeds_intersects(feeds1, feeds2, message) -> None:
        intersection = set(feeds1.keys()) & set(feeds2.keys())
        if intersection:
            raise RuntimeError(f"{message} Conflict(s): {list(intersection)}")

    @staticmethod
    def _merge_run_options(options, incoming_options) -> None:
        options.trace_level = max(options.trace_level, incoming_options.trace_level)
        options.timeout_in_ms = max(options.timeout_in_ms, incoming_options.timeout_in_ms)
        options.inter_op_thread_pool = max(options.inter_op_thread_pool, incoming_options.inter_op_thread_pool)
        options.output_partition_graphs = max(options.output_partition_graphs,
                                              incoming_options.output_partition_graphs)
        options.report_tensor_allocations_upon_oom = (options.report_tensor_allocations_upon_oom
                                                      or incoming_options.report_tensor_allocations_upon_oom)
