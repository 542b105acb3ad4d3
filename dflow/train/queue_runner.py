"""``tf.train.QueueRunner``: Python threads that keep a queue filled.

Each enqueue op runs in a loop in its own thread, on one session, until the
queue it reads from runs dry (``OutOfRangeError``) or a ``Coordinator``
asks for a stop. The last thread to see the end closes the queue, so that
its consumers drain it and then get ``OutOfRangeError`` themselves. With a
coordinator, one more thread cancels pending enqueues when a stop is
requested; errors go to the coordinator (``coord.join`` re-raises them),
otherwise to ``exceptions_raised``.

Every enqueue op runs with ``Session.make_callable`` (its plan built once),
in dflow's thread-safe local sessions, as TF1's runners do.
"""

from __future__ import annotations

import logging
import threading
import weakref

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.graph import (
    GraphKeys,
    add_to_collection,
    get_collection,
    get_default_graph,
    get_default_session,
    prepend_name_scope,
    scope_prefix,
    strip_name_scope,
)

_log = logging.getLogger("dflow")


class QueueRunnerDef:
    """What a ``QueueRunner`` is, by graph names (TF1's ``QueueRunnerDef`` proto): the queue,
    its enqueue ops, close and cancel ops, and the error codes that mean the input ran dry.
    Meta graphs store the ``QUEUE_RUNNERS`` collection as these."""

    _FIELDS = ("queue_name", "enqueue_op_name", "close_op_name", "cancel_op_name", "queue_closed_exception_types")

    def __init__(self, queue_name: str = "", enqueue_op_name=(), close_op_name: str = "", cancel_op_name: str = "",
                 queue_closed_exception_types=()):
        self.queue_name = queue_name
        self.enqueue_op_name = list(enqueue_op_name)
        self.close_op_name = close_op_name
        self.cancel_op_name = cancel_op_name
        self.queue_closed_exception_types = list(queue_closed_exception_types)

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self._FIELDS}

    @classmethod
    def from_dict(cls, d: dict) -> QueueRunnerDef:
        """The ``QueueRunnerDef`` of ``to_dict``'s output; ``ValueError`` naming the field for anything
        else (a meta graph file is input)."""
        if not isinstance(d, dict) or not set(d) <= set(cls._FIELDS):
            raise ValueError(f"Not a QueueRunnerDef: {d!r:.200}")
        for key in ("queue_name", "close_op_name", "cancel_op_name"):
            if not isinstance(d.get(key, ""), str):
                raise ValueError(f"QueueRunnerDef field {key} must be a string, got {d[key]!r:.100}")
        names = d.get("enqueue_op_name", [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError(f"QueueRunnerDef field enqueue_op_name must be a list of strings, got {names!r:.100}")
        codes = d.get("queue_closed_exception_types", [])
        if not isinstance(codes, list) or not all(type(c) is int and c in errors._BY_CODE for c in codes):
            raise ValueError(f"QueueRunnerDef field queue_closed_exception_types must be a list of error codes, "
                             f"got {codes!r:.100}")
        return cls(**d)

    def renamed(self, rename) -> QueueRunnerDef:
        """A copy with every graph name passed through ``rename`` (import/export scopes)."""
        return QueueRunnerDef(rename(self.queue_name), [rename(n) for n in self.enqueue_op_name],
                              rename(self.close_op_name) if self.close_op_name else "",
                              rename(self.cancel_op_name) if self.cancel_op_name else "",
                              self.queue_closed_exception_types)

    def __eq__(self, other):
        return isinstance(other, QueueRunnerDef) and self.to_dict() == other.to_dict()

    __hash__ = None

    def __repr__(self):
        return f"QueueRunnerDef({self.to_dict()})"


@tf_export("train.QueueRunner", "train.queue_runner.QueueRunner")
class QueueRunner:
    """Holds enqueue ops for ``queue``, each to be run in a loop in its own thread.

    >>> import dflow as tf
    >>> q = tf.FIFOQueue(10, tf.float32)
    >>> qr = tf.train.QueueRunner(q, [q.enqueue(1.0)] * 2)
    >>> with tf.Session() as sess:
    ...     coord = tf.train.Coordinator()
    ...     threads = qr.create_threads(sess, coord=coord, start=True)
    ...     print(sess.run(q.dequeue()))
    ...     coord.request_stop(); coord.join(threads)
    1.0
    """

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        if queue_runner_def is not None:
            if queue or enqueue_ops:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope)
        else:
            if not queue or not enqueue_ops:
                raise ValueError("Must provide queue and enqueue_ops.")
            if queue_closed_exception_types is not None:
                if (not isinstance(queue_closed_exception_types, tuple) or not queue_closed_exception_types
                        or not all(isinstance(t, type) and issubclass(t, errors.OpError)
                                   for t in queue_closed_exception_types)):
                    raise TypeError(f"queue_closed_exception_types, when provided, must be a tuple of tf.error "
                                    f"types, but saw: {queue_closed_exception_types}")
            self._queue = queue
            self._enqueue_ops = list(enqueue_ops)
            self._close_op = close_op if close_op is not None else queue.close()
            self._cancel_op = cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
            self._queue_closed_exception_types = tuple(queue_closed_exception_types or (errors.OutOfRangeError,))
        self._lock = threading.Lock()
        self._runs_per_session: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._exceptions_raised: list = []

    def _init_from_proto(self, queue_runner_def, import_scope) -> None:
        """TF1's: the queue (its op, by name), enqueue, close and cancel ops of the default graph."""
        if not isinstance(queue_runner_def, QueueRunnerDef):
            raise TypeError(f"queue_runner_def must be a QueueRunnerDef, got {type(queue_runner_def).__name__}")
        graph = get_default_graph()
        element = lambda name: graph.as_graph_element(prepend_name_scope(name, import_scope))  # noqa: E731
        self._queue = element(queue_runner_def.queue_name)
        self._enqueue_ops = [element(n) for n in queue_runner_def.enqueue_op_name]
        self._close_op = element(queue_runner_def.close_op_name)
        self._cancel_op = element(queue_runner_def.cancel_op_name)
        self._queue_closed_exception_types = tuple(
            errors.exception_type_from_error_code(c) for c in queue_runner_def.queue_closed_exception_types) or (
            errors.OutOfRangeError,)

    def to_proto(self, export_scope=None):
        """This runner's ``QueueRunnerDef``; None when its queue is outside ``export_scope``."""
        if not self._queue.name.startswith(scope_prefix(export_scope)):
            return None
        strip = lambda name: strip_name_scope(name, export_scope)  # noqa: E731
        return QueueRunnerDef(strip(self._queue.name), [strip(op.name) for op in self._enqueue_ops],
                              strip(self._close_op.name), strip(self._cancel_op.name),
                              [t.error_code for t in self._queue_closed_exception_types])

    @staticmethod
    def from_proto(queue_runner_def, import_scope=None):
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)

    @property
    def queue(self):
        return self._queue

    @property
    def enqueue_ops(self) -> list:
        return self._enqueue_ops

    @property
    def close_op(self):
        return self._close_op

    @property
    def cancel_op(self):
        return self._cancel_op

    @property
    def queue_closed_exception_types(self) -> tuple:
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self) -> list:
        """Exceptions of threads created without a coordinator."""
        return self._exceptions_raised

    @property
    def name(self) -> str:
        return self._queue.name

    def _run(self, sess, enqueue_op, coord=None) -> None:
        decremented = False
        try:
            run_loop = getattr(sess, "_run_loop", None)
            if run_loop is None:  # not a dflow session: run it from here
                enqueue = sess.make_callable(enqueue_op)

                def run_loop(_, should_stop):
                    while not should_stop():
                        enqueue()

            try:
                run_loop(enqueue_op, lambda: bool(coord and coord.should_stop()))
            except self._queue_closed_exception_types:
                # The input ran dry: the last thread to see it closes the queue.
                with self._lock:
                    self._runs_per_session[sess] -= 1
                    decremented = True
                    if self._runs_per_session[sess] == 0:
                        try:
                            sess.run(self._close_op)
                        except Exception as e:  # noqa: BLE001 - a closed session, say
                            _log.debug("Ignored exception: %s", e)
        except Exception as e:
            if coord:
                coord.request_stop(e)
            else:
                _log.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, cancel_op, coord) -> None:
        coord.wait_for_stop()
        if getattr(coord, "keep_queues_open", False) or _stopped_by_a_lost_task(coord):
            # A monitored session replaces the failed session and its new runners feed this queue; on
            # a cluster the queue outlives the session (SyncReplicasOptimizer's token queue on the ps),
            # and closing it, as TF1 does, would fail the new session.
            return
        try:
            sess.run(cancel_op)
        except Exception as e:  # noqa: BLE001 - a closed session, say
            _log.debug("Ignored exception: %s", e)

    def create_threads(self, sess, coord=None, daemon=False, start=False) -> list:
        """One thread per enqueue op (plus, with ``coord``, one that cancels the
        queue's pending enqueues on a stop request). Returns [] if this runner's
        threads for ``sess`` are still running."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord),
                                    name=f"QueueRunnerThread-{self.name}-{op.name}")
                   for op in self._enqueue_ops]
        if coord:
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, self._cancel_op, coord),
                                            name=f"QueueRunnerThread-{self.name}-close_on_stop"))
        for t in threads:
            if coord:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return threads


@tf_export("train.add_queue_runner", "train.queue_runner.add_queue_runner")
def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS) -> None:
    """Adds ``qr`` to a graph collection (started by ``start_queue_runners``)."""
    add_to_collection(collection, qr)


@tf_export("train.start_queue_runners", "train.queue_runner.start_queue_runners")
def start_queue_runners(sess=None, coord=None, daemon=True, start=True, collection=GraphKeys.QUEUE_RUNNERS) -> list:
    """Creates (and starts) the threads of every queue runner in ``collection``."""
    if sess is None:
        sess = get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. Use `with "
                             "sess.as_default()` or pass an explicit session to tf.start_queue_runners(sess=sess)")
    from dflow.sessions.session import BaseSession

    if not isinstance(sess, BaseSession):
        if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession"):
            return []
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {sess.__class__}")
    with sess.graph.as_default():
        runners = get_collection(collection)
        if not runners:
            _log.warning("`tf.train.start_queue_runners()` was called when no queue runners were defined. You can "
                         "safely remove the call to this deprecated function.")
        threads = []
        for qr in runners:
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


def _stopped_by_a_lost_task(coord) -> bool:
    """Whether ``coord`` was stopped by ``UnavailableError``/``AbortedError`` (a lost worker or ps)."""
    exc = getattr(coord, "_exc_info_to_raise", None)
    exc = exc[1] if isinstance(exc, tuple) else exc
    return isinstance(exc, (errors.UnavailableError, errors.AbortedError))
