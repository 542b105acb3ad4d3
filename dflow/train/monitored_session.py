"""Monitored sessions: ``tf.train.MonitoredSession``, ``MonitoredTrainingSession`` and friends.

A monitored session is a stack of wrappers around a ``tf.Session``, as in TF1::

    MonitoredSession
      └─ _RecoverableSession    re-creates the session after AbortedError / UnavailableError
          └─ _CoordinatedSession  a Coordinator for the queue-runner threads
              └─ _HookedSession    calls the hooks' before_run / after_run around each run
                  └─ tf.Session

Creating one calls every hook's ``begin``, finalizes the ``Scaffold`` (filling
in the default init, ready and local-init ops and a saver, then finalizing
the graph), creates the session through a ``SessionCreator`` (the chief
restores the latest checkpoint or initialises; a worker waits for the
chief), starts the queue runners of the ``QUEUE_RUNNERS`` collection and
calls every hook's ``after_create_session``.

When a run fails with ``AbortedError`` or ``UnavailableError`` (a lost Dask
worker or parameter server), ``MonitoredSession`` closes the session, creates
a new one through its creator, which restores the latest checkpoint, and
runs the step again, so training goes on from the last checkpoint. Unlike
TF1, which retries forever, it gives up (re-raising the error) once runs and
session creation have kept failing for ten minutes without a success.
``SingularMonitoredSession`` does not recover.

Leaving a ``with`` block normally, or through ``OutOfRangeError`` or
``StopIteration`` (the input is exhausted; the block ends quietly), calls the
hooks' ``end``; any other exception skips it. The session is closed and the
graph un-finalized (if it was not finalized before) either way.
"""

from __future__ import annotations

import abc
import inspect
import logging
import threading

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.graph import GraphKeys, add_to_collection, get_collection, get_default_graph
from dflow.train import basic_session_run_hooks, coordinator, queue_runner
from dflow.train import session_manager as sm
from dflow.train.session_wrappers import (  # noqa: F401 - the recovery settings live there
    _PREEMPTION_ERRORS,
    StepContext,
    _CoordinatedSession,
    _HookedSession,
    _RecoverableSession,
)

_log = logging.getLogger("dflow")

USE_DEFAULT = object()


def _get_saver_or_default():
    """The one saver of the ``SAVERS`` collection, or a new ``Saver`` added to it."""
    from dflow.train.checkpoints.saver import Saver

    savers = get_collection(GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please indicate which one to "
                               f"use by passing it to the constructor.")
        return savers[0]
    saver = Saver(sharded=True, allow_empty=True)
    add_to_collection(GraphKeys.SAVERS, saver)
    return saver


def _default_summary_op():
    """``tf.summary.merge_all()`` when ``dflow.summary`` exists; otherwise None."""
    try:
        from dflow.summary import merge_all
    except ImportError as e:
        if get_collection(GraphKeys.SUMMARIES):
            basic_session_run_hooks._warn_no_summary("The scaffold's summary_op", e)
        return None
    return merge_all()


@tf_export("train.Scaffold")
class Scaffold:
    """The ops and saver a monitored session needs to create, initialise and save the model.

    Anything not given is taken, at ``finalize()``, from its graph collection
    (``INIT_OP``, ``READY_OP``, ``READY_FOR_LOCAL_INIT_OP``, ``LOCAL_INIT_OP``,
    ``SUMMARY_OP``, ``SAVERS``) or built as TF1 builds it and added there:
    ``init_op`` initialises the global variables, ``ready_op`` is
    ``report_uninitialized_variables()``, ``ready_for_local_init_op`` reports
    the uninitialised global variables, ``local_init_op`` initialises the
    local variables and tables, ``summary_op`` is ``tf.summary.merge_all()``
    and the saver saves every saveable variable. ``init_fn(scaffold, sess)``
    is called after ``init_op`` when the model is not restored.
    """

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None, ready_for_local_init_op=None,
                 local_init_op=None, summary_op=None, saver=None, copy_from_scaffold=None,
                 local_init_feed_dict=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            coalesce = lambda a, b: a if a is not None else b
            init_op = coalesce(init_op, copy_from_scaffold.init_op)
            init_feed_dict = coalesce(init_feed_dict, copy_from_scaffold.init_feed_dict)
            init_fn = coalesce(init_fn, copy_from_scaffold._user_init_fn)
            ready_op = coalesce(ready_op, copy_from_scaffold.ready_op)
            ready_for_local_init_op = coalesce(ready_for_local_init_op, copy_from_scaffold.ready_for_local_init_op)
            local_init_op = coalesce(local_init_op, copy_from_scaffold.local_init_op)
            local_init_feed_dict = coalesce(local_init_feed_dict, copy_from_scaffold.local_init_feed_dict)
            summary_op = coalesce(summary_op, copy_from_scaffold.summary_op)
            saver = coalesce(saver, copy_from_scaffold.saver)
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._local_init_feed_dict = local_init_feed_dict
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self) -> Scaffold:
        """Fills in the missing ops (see the class doc) and finalizes the default graph."""
        from dflow.ops.control_flow.control_flow_ops import group
        from dflow.ops.state import variables

        if self._init_op is None:
            def default_init_op():
                return group(variables.global_variables_initializer(), *get_collection("saved_model_initializers"))

            self._init_op = Scaffold.get_or_default("init_op", GraphKeys.INIT_OP, default_init_op)
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default("ready_op", GraphKeys.READY_OP,
                                                     variables.report_uninitialized_variables)
        if self._ready_for_local_init_op is None:
            def default_ready_for_local_init_op():
                return variables.report_uninitialized_variables(variables.global_variables())

            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op", GraphKeys.READY_FOR_LOCAL_INIT_OP, default_ready_for_local_init_op)
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default("local_init_op", GraphKeys.LOCAL_INIT_OP,
                                                          Scaffold.default_local_init_op)
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default("summary_op", GraphKeys.SUMMARY_OP, _default_summary_op)
        if self._saver is None:
            self._saver = _get_saver_or_default()
        self._saver.build()
        graph = get_default_graph()
        if not graph.finalized:
            graph.finalize()
            _log.info("Graph was finalized.")
        return self

    @property
    def init_fn(self):
        return self._init_fn

    @property
    def init_op(self):
        return self._init_op

    @property
    def ready_op(self):
        return self._ready_op

    @property
    def ready_for_local_init_op(self):
        return self._ready_for_local_init_op

    @property
    def local_init_op(self):
        return self._local_init_op

    @property
    def local_init_feed_dict(self):
        return self._local_init_feed_dict

    @property
    def summary_op(self):
        return self._summary_op

    @property
    def saver(self):
        return self._saver

    @property
    def init_feed_dict(self):
        return self._init_feed_dict

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The one element of ``collection_key``, or ``default_constructor()`` (added to it unless None)."""
        elements = get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(f'More than one item in the collection "{collection_key}". Please indicate which '
                                   f"one to use by passing it to the tf.Scaffold constructor as:  "
                                   f"tf.Scaffold({arg_name}=item to use)")
            return elements[0]
        op = default_constructor()
        if op is not None:
            add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op():
        """Initialises the local variables and the ``TABLE_INITIALIZERS`` collection."""
        from dflow.ops.control_flow.control_flow_ops import group
        from dflow.ops.state import variables

        return group(variables.local_variables_initializer(), *get_collection(GraphKeys.TABLE_INITIALIZERS))


# -- session creators ---------------------------------------------------------------------------
@tf_export("train.SessionCreator")
class SessionCreator(metaclass=abc.ABCMeta):
    """Something that creates a ready ``tf.Session`` (``create_session()``)."""

    @abc.abstractmethod
    def create_session(self):
        raise NotImplementedError(f"create_session is not implemented for {self}.")


class _ScaffoldSessionCreator(SessionCreator):
    """A creator whose ``SessionManager`` checks readiness with its scaffold's ops."""

    _scaffold: Scaffold
    _session_manager = None

    def _get_session_manager(self):
        if self._session_manager is None:
            self._session_manager = sm.SessionManager(
                local_init_op=self._scaffold.local_init_op, local_init_feed_dict=self._scaffold.local_init_feed_dict,
                ready_op=self._scaffold.ready_op, ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=get_default_graph())
        return self._session_manager


@tf_export("train.ChiefSessionCreator")
class ChiefSessionCreator(_ScaffoldSessionCreator):
    """Creates a session that restores the latest checkpoint of ``checkpoint_dir``
    (or ``checkpoint_filename_with_path``) or else initialises the model."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master = master
        self._config = config

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master, saver=self._scaffold.saver, checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path, config=self._config,
            init_op=self._scaffold.init_op, init_feed_dict=self._scaffold.init_feed_dict,
            init_fn=self._scaffold.init_fn)


@tf_export("train.WorkerSessionCreator")
class WorkerSessionCreator(_ScaffoldSessionCreator):
    """Creates a session once the chief has made the model ready; ``DeadlineExceededError``
    after ``max_wait_secs`` (see ``SessionManager.wait_for_session``)."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master = master
        self._config = config
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().wait_for_session(self._master, config=self._config,
                                                            max_wait_secs=self._max_wait_secs)


# -- MonitoredTrainingSession ---------------------------------------------------------------------
_warned_no_summary_hook = threading.Event()


def _summary_saver_hook(scaffold, save_steps, save_secs, output_dir):
    """``tf.train.SummarySaverHook`` (it writes with ``tf.summary``), or None (warned once) where it is missing."""
    try:
        from dflow.train.summary_hook import SummarySaverHook
    except ImportError as e:
        if not _warned_no_summary_hook.is_set():
            _warned_no_summary_hook.set()
            _log.warning("Summaries are not saved: tf.summary is not available in this dflow (%s)", e)
        return None
    return SummarySaverHook(save_steps=save_steps, save_secs=save_secs, output_dir=output_dir, scaffold=scaffold)


@tf_export("train.MonitoredTrainingSession")
def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None, hooks=None,  # noqa: N802
                             chief_only_hooks=None, save_checkpoint_secs=USE_DEFAULT,
                             save_summaries_steps=USE_DEFAULT, save_summaries_secs=USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100, max_wait_secs=7200,
                             save_checkpoint_steps=USE_DEFAULT, summary_dir=None, save_graph_def=True):
    """A ``MonitoredSession`` set up for training, as TF1 builds it.

    The chief (``is_chief=True``) restores the latest checkpoint of
    ``checkpoint_dir`` or initialises the model, and runs the standard hooks:
    ``StepCounterHook`` every ``log_step_count_steps`` and summaries every
    ``save_summaries_steps`` (default 100) into ``summary_dir`` (default
    ``checkpoint_dir``), and a ``CheckpointSaverHook`` every
    ``save_checkpoint_secs`` (default 600) or ``save_checkpoint_steps``, then
    ``chief_only_hooks`` and ``hooks``. Other workers wait up to
    ``max_wait_secs`` for the chief and run ``hooks`` only.

    >>> import tempfile
    >>> import dflow as tf
    >>> step = tf.train.get_or_create_global_step()
    >>> train = tf.assign_add(step, 1)
    >>> d = tempfile.mkdtemp()
    >>> with tf.train.MonitoredTrainingSession(checkpoint_dir=d,
    ...         hooks=[tf.train.StopAtStepHook(last_step=3)]) as sess:
    ...     while not sess.should_stop():
    ...         _ = sess.run(train)
    >>> tf.train.latest_checkpoint(d) == d + "/model.ckpt-3"
    True
    """
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None

    scaffold = scaffold or Scaffold()
    if not is_chief:
        session_creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config,
                                               max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=session_creator, hooks=hooks or [],
                                stop_grace_period_secs=stop_grace_period_secs)

    all_hooks = []
    if chief_only_hooks:
        all_hooks.extend(chief_only_hooks)
    session_creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master,
                                          config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(basic_session_run_hooks.StepCounterHook(output_dir=summary_dir,
                                                                     every_n_steps=log_step_count_steps))
        if (save_summaries_steps and save_summaries_steps > 0) or (save_summaries_secs and save_summaries_secs > 0):
            hook = _summary_saver_hook(scaffold, save_summaries_steps, save_summaries_secs, summary_dir)
            if hook is not None:
                all_hooks.append(hook)
    if checkpoint_dir and ((save_checkpoint_secs and save_checkpoint_secs > 0)
                           or (save_checkpoint_steps and save_checkpoint_steps > 0)):
        all_hooks.append(basic_session_run_hooks.CheckpointSaverHook(
            checkpoint_dir, save_steps=save_checkpoint_steps, save_secs=save_checkpoint_secs, scaffold=scaffold,
            save_graph_def=save_graph_def))
    if hooks:
        all_hooks.extend(hooks)
    return MonitoredSession(session_creator=session_creator, hooks=all_hooks,
                            stop_grace_period_secs=stop_grace_period_secs)


# -- the monitored sessions -------------------------------------------------------------------------
def _step_fn_args(step_fn) -> tuple:
    try:
        return tuple(inspect.getfullargspec(step_fn).args)
    except TypeError:
        return ()


class _MonitoredSession:
    """What ``MonitoredSession`` and ``SingularMonitoredSession`` share."""

    def __init__(self, session_creator, hooks, should_recover, stop_grace_period_secs=120):
        self._graph_was_finalized = get_default_graph().finalized
        self._hooks = list(hooks or [])
        for h in self._hooks:
            h.begin()
        self._coordinated_creator = self._CoordinatedSessionCreator(
            session_creator=session_creator or ChiefSessionCreator(), hooks=self._hooks,
            stop_grace_period_secs=stop_grace_period_secs)
        try:
            if should_recover:
                self._sess = _RecoverableSession(self._coordinated_creator)
            else:
                self._sess = self._coordinated_creator.create_session()
        except BaseException:
            if not self._graph_was_finalized:
                get_default_graph()._unsafe_unfinalize()
            raise

    @property
    def graph(self):
        """The graph this session runs (None once closed)."""
        sess = self._tf_sess()
        return None if sess is None else sess.graph

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs ``fetches`` as ``Session.run`` does, with the hooks' fetches and feeds added."""
        if self._sess is None:
            raise RuntimeError("Run called on a closed MonitoredSession.")
        return self._sess.run(fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)

    def run_step_fn(self, step_fn):
        """Calls ``step_fn(step_context)`` with a ``StepContext`` (its ``session`` is the raw
        session; ``run_with_hooks`` runs with the hooks); returns what it returns."""
        args = _step_fn_args(step_fn)
        if args != ("step_context",) and args != ("self", "step_context"):
            raise ValueError(f"`step_fn` may either have one `step_context` argument, or `self` and "
                             f"`step_context` arguments if it's an instance method. Got {args} instead.")
        if self._sess is None:
            raise RuntimeError("run_step_fn called on a closed MonitoredSession.")
        return self._sess.run_step_fn(step_fn, self._tf_sess(), run_with_hooks=None)

    StepContext = StepContext

    def should_stop(self) -> bool:
        return self._sess is None or self._sess.should_stop()

    def close(self) -> None:
        self._close_internal()

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type is not None and issubclass(exception_type, (errors.OutOfRangeError, StopIteration)):
            exception_type = None
        self._close_internal(exception_type)
        return exception_type is None

    class _CoordinatedSessionCreator:
        """Creates the raw session, starts queue runners and calls ``after_create_session``."""

        def __init__(self, session_creator, hooks, stop_grace_period_secs):
            self._session_creator = session_creator
            self._hooks = hooks
            self.coord = None
            self.tf_sess = None
            self._stop_grace_period_secs = stop_grace_period_secs

        def create_session(self):
            self.tf_sess = self._session_creator.create_session()
            self.coord = coordinator.Coordinator(clean_stop_exception_types=[])
            if get_collection(GraphKeys.QUEUE_RUNNERS):
                queue_runner.start_queue_runners(sess=self.tf_sess, coord=self.coord)
            for hook in self._hooks:
                hook.after_create_session(self.tf_sess, self.coord)
            return _CoordinatedSession(_HookedSession(self.tf_sess, self._hooks), self.coord,
                                       self._stop_grace_period_secs)

    def _close_internal(self, exception_type=None) -> None:
        try:
            if not exception_type:
                for h in self._hooks:
                    h.end(self._coordinated_creator.tf_sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._sess.close()
            finally:
                self._sess = None
                self._coordinated_creator.tf_sess = None
                self._coordinated_creator.coord = None
                if not self._graph_was_finalized:
                    get_default_graph()._unsafe_unfinalize()

    def _is_closed(self) -> bool:
        return self._coordinated_creator.tf_sess is None

    def _tf_sess(self):
        return self._coordinated_creator.tf_sess


@tf_export("train.MonitoredSession")
class MonitoredSession(_MonitoredSession):
    """A session that runs hooks, starts queue runners and recovers from lost workers.

    >>> import dflow as tf
    >>> step = tf.train.get_or_create_global_step()
    >>> train = tf.assign_add(step, 1)
    >>> with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(num_steps=3)]) as sess:
    ...     while not sess.should_stop():
    ...         last = sess.run(train)
    >>> int(last)
    3
    """

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(session_creator, hooks, should_recover=True, stop_grace_period_secs=stop_grace_period_secs)


@tf_export("train.SingularMonitoredSession")
class SingularMonitoredSession(_MonitoredSession):
    """A monitored chief session that does not recover from errors; ``raw_session()`` is its ``tf.Session``."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        session_creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config,
                                              checkpoint_dir=checkpoint_dir,
                                              checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(session_creator, hooks, should_recover=False, stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self):
        """The underlying ``tf.Session``."""
        return self._tf_sess()
