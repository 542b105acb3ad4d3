"""``tf.train.SessionManager``: create a session that is ready to train.

``prepare_session`` (the chief) creates a session and either restores the
latest checkpoint or runs the init op; ``wait_for_session`` (other workers)
creates a session and polls ``ready_op`` until someone else has initialised
the model; ``recover_session`` restores if it can and says whether it did.
Each then runs ``local_init_op`` once ``ready_for_local_init_op`` reports
nothing missing.

A model is *ready* when ``ready_op`` (normally
``tf.report_uninitialized_variables()``) returns an empty list of names.

Where dflow differs from TF1: ``wait_for_session`` never hangs. Its wait is
bounded by ``max_wait_secs`` (``DeadlineExceededError`` afterwards), every
readiness check runs with the remaining time as its ``timeout_in_ms``, and it
polls with a backoff that starts at half a second and grows to
``recovery_wait_secs`` instead of sleeping ``recovery_wait_secs`` between every
check, so a worker starts soon after the chief is done. It keeps one session
across checks (TF1 opens a new one per check); the session is replaced only
if a check fails with ``UnavailableError`` or ``AbortedError``.

And ``prepare_session`` does not roll a live model back. When a monitored session
re-creates itself after a lost worker (``recovering()``), and every variable is
still initialised on the cluster (the lost task held none of them), the chief goes
on with those values: restoring the checkpoint, as TF1 does, would undo every
update since it was written, the other replicas' acknowledged updates included
(tensorflow#7767). A lost parameter server leaves variables uninitialised, and
then the checkpoint is restored as in TF1.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time

import numpy as np

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.graph import get_default_graph
from dflow.sessions.config import RunOptions
from dflow.train.checkpoints import checkpoint_management

_log = logging.getLogger("dflow")

_FIRST_POLL_SECS = 0.5
_recovery = threading.local()


def is_recovering() -> bool:
    return getattr(_recovery, "on", False)


@contextlib.contextmanager
def recovering():
    """Marks the sessions this thread prepares as re-created after a failure (see the module docstring)."""
    previous = getattr(_recovery, "on", False)
    _recovery.on = True
    try:
        yield
    finally:
        _recovery.on = previous


def _maybe_name(obj) -> str:
    if obj is None:
        return "None"
    return getattr(obj, "name", None) or f"<no name for {type(obj).__name__}>"


def _new_session(target, graph, config):
    from dflow.sessions.session import Session

    return Session(target, graph=graph, config=config)


def _ready(op, sess, msg: str, options=None) -> tuple[bool, str | None]:
    """``(True, None)`` if ``op`` reports nothing uninitialised, else ``(False, why)``."""
    if op is None:
        return True, None
    try:
        ready_value = sess.run(op, options=options)
    except errors.FailedPreconditionError as e:
        if "uninitialized" not in str(e):
            _log.warning("%s : error [%s]", msg, e)
            raise
        return False, str(e)
    if ready_value is None:
        return True, None
    ready_value = np.asarray(ready_value)
    if ready_value.dtype == np.int32 or ready_value.size == 0:
        return True, None
    names = ", ".join(v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in ready_value.ravel())
    return False, "Variables not initialized: " + names


class _CountDownTimer:
    __slots__ = ("_start", "_duration")

    def __init__(self, duration_secs: float):
        self._start = time.monotonic()
        self._duration = duration_secs

    def secs_remaining(self) -> float:
        return max(0.0, self._duration - (time.monotonic() - self._start))


@tf_export("train.SessionManager")
class SessionManager:
    """Creates sessions, restoring from checkpoints or waiting for the chief (TF1's ``tf.train.SessionManager``).

    >>> import dflow as tf
    >>> v = tf.Variable(3.0)
    >>> sm = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables())
    >>> sess = sm.prepare_session("", init_op=tf.global_variables_initializer())
    >>> float(sess.run(v))
    3.0
    >>> sess.close()
    """

    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None, graph=None,
                 recovery_wait_secs=30, local_init_run_options=None, local_init_feed_dict=None):
        if graph is None:
            graph = get_default_graph()
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError(f"If you pass a ready_for_local_init_op you must also pass a local_init_op , "
                             f"ready_for_local_init_op [{ready_for_local_init_op}]")
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph
        self._recovery_wait_secs = recovery_wait_secs
        self._target = None
        self._topology_at_creation = 0  # the session's topology_version when _restore_checkpoint made it
        self._local_init_run_options = local_init_run_options
        self._local_init_feed_dict = local_init_feed_dict

    # -- restoring -----------------------------------------------------------------------------
    def _restore_checkpoint(self, master, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                            wait_for_checkpoint=False, max_wait_secs=7200, config=None):
        """A new session, and whether a checkpoint was restored into it."""
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and checkpoint_filename_with_path.")
        self._target = master
        sess = _new_session(self._target, self._graph, config)
        self._topology_at_creation = _topology_version(sess)
        try:
            # Global state only (ready_for_local_init_op's question where there is one): local variables,
            # which local_init_op sets up anew, are on the lost worker by design.
            probe = self._ready_for_local_init_op if self._ready_for_local_init_op is not None else self._ready_op
            if is_recovering() and probe is not None:
                ready, why = _ready(probe, sess, "Model lost state")
                if ready:
                    _log.info("Every variable is still initialised on the cluster: going on with their values "
                              "rather than restoring or re-initialising them.")
                    return sess, True
                _log.info("The model lost state (%s): restoring or re-initialising it.", why)
            if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
                return sess, False
            if checkpoint_filename_with_path:
                saver.restore(sess, checkpoint_filename_with_path)
                return sess, True
            wait_time = 0.0
            ckpt = checkpoint_management.get_checkpoint_state(checkpoint_dir)
            while not ckpt or not ckpt.model_checkpoint_path:
                if wait_for_checkpoint and wait_time < max_wait_secs:
                    _log.info("Waiting for checkpoint to be available.")
                    time.sleep(self._recovery_wait_secs)
                    wait_time += self._recovery_wait_secs
                    ckpt = checkpoint_management.get_checkpoint_state(checkpoint_dir)
                else:
                    return sess, False
            saver.restore(sess, ckpt.model_checkpoint_path)
            saver.recover_last_checkpoints(ckpt.all_model_checkpoint_paths)
            return sess, True
        except BaseException:
            _safe_close(sess)
            raise

    def prepare_session(self, master, init_op=None, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False, max_wait_secs=7200,
                        config=None, init_feed_dict=None, init_fn=None):
        """A session on ``master`` with the model restored from the latest checkpoint of
        ``checkpoint_dir`` (or ``checkpoint_filename_with_path``) or, failing that,
        initialised by ``init_op`` and ``init_fn(sess)``; then ``local_init_op``.

        RuntimeError if the model is still not ready afterwards."""
        sess, is_loaded_from_checkpoint = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir, checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs, config=config)
        try:
            if not is_loaded_from_checkpoint:
                if saver is not None and checkpoint_dir:
                    _log.info("No checkpoint to restore in %s: initialising the model (init_op%s).",
                              checkpoint_dir, ", init_fn" if init_fn else "")
                if init_op is None and not init_fn and self._local_init_op is None:
                    raise RuntimeError("Model is not initialized and no init_op or init_fn or local_init_op was "
                                       "given")
                if init_op is not None:
                    sess.run(init_op, feed_dict=init_feed_dict)
                if init_fn:
                    init_fn(sess)
            local_init_success, msg = self._try_run_local_init_op(sess)
            if not local_init_success:
                self._raise_not_ready(sess, f"Init operations did not make model ready for local_init.  Init op: "
                                            f"{_maybe_name(init_op)}, init fn: {init_fn}, error: {msg}")
            is_ready, msg = self._model_ready(sess)
            if not is_ready:
                self._raise_not_ready(sess, f"Init operations did not make model ready.  Init op: "
                                            f"{_maybe_name(init_op)}, init fn: {init_fn}, local_init_op: "
                                            f"{self._local_init_op}, error: {msg}")
        except BaseException:
            _safe_close(sess)
            raise
        return sess

    def _raise_not_ready(self, sess, message: str) -> None:
        """TF1's RuntimeError; but ``UnavailableError`` (which a monitored session recovers from) when the
        cluster lost a task while the session was prepared: a parameter server restarted empty after its
        variables were restored or initialised."""
        if _topology_version(sess) != self._topology_at_creation:
            raise errors.UnavailableError(None, None, f"A task of the cluster was lost while the session was "
                                                      f"being prepared. {message}")
        raise RuntimeError(message)

    def recover_session(self, master, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                        wait_for_checkpoint=False, max_wait_secs=7200, config=None):
        """``(sess, True)`` if a checkpoint was restored and the model is ready, else ``(sess, False)``."""
        sess, is_loaded_from_checkpoint = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir, checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs, config=config)
        local_init_success, msg = self._try_run_local_init_op(sess)
        if not is_loaded_from_checkpoint:
            return sess, False
        restoring_file = checkpoint_dir or checkpoint_filename_with_path
        if not local_init_success:
            _log.info("Restoring model from %s did not make model ready for local init: %s", restoring_file, msg)
            return sess, False
        is_ready, msg = self._model_ready(sess)
        if not is_ready:
            _log.info("Restoring model from %s did not make model ready: %s", restoring_file, msg)
            return sess, False
        _log.info("Restored model from %s", restoring_file)
        return sess, is_loaded_from_checkpoint

    # -- waiting ---------------------------------------------------------------------------------
    def wait_for_session(self, master, config=None, max_wait_secs=float("inf")):
        """A session on ``master`` once another process has made the model ready.

        ``DeadlineExceededError`` if it is not ready within ``max_wait_secs``."""
        self._target = master
        if max_wait_secs is None:
            max_wait_secs = float("inf")
        timer = _CountDownTimer(max_wait_secs)
        poll_secs = min(_FIRST_POLL_SECS, self._recovery_wait_secs)
        sess = None
        try:
            while True:
                if sess is None:
                    sess = _new_session(self._target, self._graph, config)
                remaining = timer.secs_remaining()
                options = None
                if math.isfinite(remaining):
                    options = RunOptions(timeout_in_ms=max(1, int(remaining * 1000)))
                not_ready_msg = not_ready_local_msg = None
                try:
                    local_init_success, not_ready_local_msg = self._try_run_local_init_op(sess, options)
                    if local_init_success:
                        is_ready, not_ready_msg = self._model_ready(sess, options)
                        if is_ready:
                            result, sess = sess, None
                            return result
                except (errors.UnavailableError, errors.AbortedError) as e:
                    not_ready_msg = f"{type(e).__name__}: {e}"
                    _safe_close(sess)
                    sess = None
                except errors.DeadlineExceededError as e:
                    not_ready_msg = str(e)
                remaining = timer.secs_remaining()
                if remaining <= 0:
                    raise errors.DeadlineExceededError(
                        None, None, f"Session was not ready after waiting {max_wait_secs:g} secs. "
                                    f"Ready_for_local_init_op: {not_ready_local_msg}, ready: {not_ready_msg}")
                _log.info("Waiting for model to be ready.  Ready_for_local_init_op:  %s, ready: %s",
                          not_ready_local_msg, not_ready_msg)
                time.sleep(min(poll_secs, remaining))
                poll_secs = min(2 * poll_secs, self._recovery_wait_secs)
        finally:
            if sess is not None:
                _safe_close(sess)

    # -- readiness ---------------------------------------------------------------------------------
    def _model_ready(self, sess, options=None):
        return _ready(self._ready_op, sess, "Model not ready", options)

    def _model_ready_for_local_init(self, sess, options=None):
        return _ready(self._ready_for_local_init_op, sess, "Model not ready for local init", options)

    def _try_run_local_init_op(self, sess, options=None):
        """``(True, None)`` once ``local_init_op`` ran (or there is none), else ``(False, why)``."""
        if self._local_init_op is None:
            return True, None
        is_ready_for_local_init, msg = self._model_ready_for_local_init(sess, options)
        if not is_ready_for_local_init:
            return False, msg
        _log.info("Running local_init_op.")
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict, options=self._local_init_run_options)
        _log.info("Done running local_init_op.")
        return True, None


def _topology_version(sess) -> int:
    """How often the session's cluster changed (a task lost or restarted); 0 for a local session."""
    return getattr(getattr(sess, "_runtime", None), "topology_version", 0)


def _safe_close(sess) -> None:
    try:
        sess.close()
    except Exception as e:  # noqa: BLE001 - closing a broken session must not hide the real error
        _log.debug("Ignored error closing a session: %s", e)
