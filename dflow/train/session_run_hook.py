"""``tf.train.SessionRunHook``: the hook API of monitored sessions.

A hook sees the life of a monitored session: ``begin`` before the graph is
finalized, ``after_create_session`` once the session exists, ``before_run``
and ``after_run`` around each ``run`` (``before_run`` may return
``SessionRunArgs`` to add fetches, feeds and options to that run), and
``end`` when the session closes normally. ``run_context.request_stop()``
asks the monitored session to stop after the current step.
"""

from __future__ import annotations

import collections

from dflow._api import tf_export


@tf_export("train.SessionRunHook", "estimator.SessionRunHook")
class SessionRunHook:
    """The base of every hook: each method does nothing until overridden."""

    def begin(self):
        """Called once before the session is created; the graph may still change."""

    def after_create_session(self, session, coord):  # noqa: ARG002 - the TF1 signature
        """Called once the session exists (variables initialised or restored)."""

    def before_run(self, run_context):  # noqa: ARG002 - the TF1 signature
        """Called before each ``run``; may return ``SessionRunArgs`` (or None)."""
        return None

    def after_run(self, run_context, run_values):  # noqa: ARG002 - the TF1 signature
        """Called after each successful ``run`` with the results of this hook's fetches."""

    def end(self, session):  # noqa: ARG002 - the TF1 signature
        """Called when the monitored session ends normally (not after an error)."""


@tf_export("train.SessionRunArgs", "estimator.SessionRunArgs")
class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a run: fetches (any nest), a feed dict and ``RunOptions``."""

    __slots__ = ()

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


@tf_export("train.SessionRunValues", "estimator.SessionRunValues")
class SessionRunValues(collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])):
    """What ``after_run`` gets: the results of the hook's fetches, the options and the run metadata."""

    __slots__ = ()


@tf_export("train.SessionRunContext", "estimator.SessionRunContext")
class SessionRunContext:
    """The run a hook is called for: the caller's ``SessionRunArgs``, the session, and a stop switch."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self):
        return self._original_args

    @property
    def session(self):
        return self._session

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def request_stop(self) -> None:
        """Asks the monitored session to stop once this step is done."""
        self._stop_requested = True
