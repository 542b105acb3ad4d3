"""TF1's loop helpers: ``tf.train.checkpoints_iterator`` (evaluate each new checkpoint as it appears) and
``tf.train.basic_train_loop`` (train under a ``Supervisor`` until it says stop)."""

from __future__ import annotations

import logging
import time

from dflow._api import tf_export
from dflow.framework import errors
from dflow.train.checkpoints.checkpoint_management import latest_checkpoint

_log = logging.getLogger("tensorflow")


def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1, timeout=None):
    """The newest checkpoint in ``checkpoint_dir`` once it is not ``last_checkpoint``; None after ``timeout`` s."""
    _log.info("Waiting for new checkpoint at %s", checkpoint_dir)
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is None or path == last_checkpoint:
            if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
                return None
            time.sleep(seconds_to_sleep)
        else:
            _log.info("Found new checkpoint at %s", path)
            return path


@tf_export("train.checkpoints_iterator")
def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new checkpoint path of ``checkpoint_dir``, at most one per ``min_interval_secs``.

    Waits (polling each second) for the next one; after ``timeout`` seconds
    without one it stops, unless ``timeout_fn()`` returns False (keep waiting).
    """
    checkpoint_path = None
    while True:
        new_path = wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, timeout=timeout)
        if new_path is None:
            if not timeout_fn:
                _log.info("Timed-out waiting for a checkpoint.")
                return
            if timeout_fn():
                return
            continue
        start = time.time()
        checkpoint_path = new_path
        yield checkpoint_path
        wait = start + min_interval_secs - time.time()
        if wait > 0:
            time.sleep(wait)


@tf_export("train.basic_train_loop")
def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master=""):
    """Calls ``train_step_fn(sess, *args, **kwargs)`` in ``supervisor.managed_session(master)`` until it should stop.

    An ``AbortedError`` (a task of the cluster restarted) starts a new session and carries on, as in TF1.
    """
    args = [] if args is None else args
    kwargs = {} if kwargs is None else kwargs
    should_retry = True
    while should_retry:
        try:
            should_retry = False
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
        except errors.AbortedError:
            should_retry = True
