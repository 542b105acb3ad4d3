"""``tf.train.Coordinator``: stop a group of threads together and report their errors.

Threads loop ``while not coord.should_stop()``; any of them (or the main
thread) calls ``coord.request_stop(ex)`` to end them all, and
``coord.join(threads)`` waits for them and re-raises the first exception
reported, as TF1's coordinator does. ``OutOfRangeError`` (the end of the
input) counts as a clean stop unless ``clean_stop_exception_types`` says
otherwise.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time

from dflow._api import tf_export
from dflow.framework import errors

_log = logging.getLogger("dflow")


@tf_export("train.Coordinator")
class Coordinator:
    """Coordinates the termination of a set of threads.

    >>> import threading
    >>> import dflow as tf
    >>> coord = tf.train.Coordinator()
    >>> def work():
    ...     with coord.stop_on_exception():
    ...         raise ValueError("boom")
    >>> t = threading.Thread(target=work); t.start()
    >>> try:
    ...     coord.join([t])
    ... except ValueError as e:
    ...     print(e)
    boom
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads: set = set()
        # Set by a monitored session that replaces a failed session: queue runners then leave
        # their queues open on stop, for the new session's runners to feed.
        self.keep_queues_open = False

    def _filter_exception(self, ex):
        ex2 = ex[1] if isinstance(ex, tuple) else ex
        if isinstance(ex2, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex=None) -> None:
        """Asks every thread to stop; ``ex`` (an exception or ``sys.exc_info()``) is
        reported by ``join``. After ``join``, a reported exception is raised here."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    raise ex[1]
                if ex is not None:
                    raise ex
            if not self._stop_event.is_set():
                if ex is not None and self._exc_info_to_raise is None:
                    if isinstance(ex, tuple):
                        _log.info("Error reported to Coordinator: %s", ex[1], exc_info=ex)
                        self._exc_info_to_raise = ex
                    else:
                        _log.info("Error reported to Coordinator: %s, %s", type(ex), ex)
                        self._exc_info_to_raise = (type(ex), ex, ex.__traceback__)
                    if (len(self._exc_info_to_raise) != 3 or not self._exc_info_to_raise[0]
                            or not self._exc_info_to_raise[1]):
                        try:
                            raise ValueError(f"ex must be a tuple or sys.exc_info must return the current "
                                             f"exception: {self._exc_info_to_raise}")
                        except ValueError:
                            self._exc_info_to_raise = sys.exc_info()
                self._stop_event.set()

    def clear_stop(self) -> None:
        """Clears the stop request (and a reported exception), so threads may start again."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self) -> bool:
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A block whose exception, if any, is reported with ``request_stop``."""
        try:
            yield
        except BaseException:
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None) -> bool:
        """Waits until a stop is requested (or ``timeout`` seconds); True if it was."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread) -> None:
        """Adds ``thread`` to those ``join()`` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False) -> None:
        """Waits for ``threads`` (and registered ones) to end once a stop is requested;
        re-raises the first reported exception, or RuntimeError naming threads still
        running after ``stop_grace_period_secs`` (unless ``ignore_live_threads``)."""
        with self._lock:
            threads = self._registered_threads if threads is None else self._registered_threads.union(threads)
            threads = list(threads)
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        stop_wait_secs = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(stop_wait_secs)
            stop_grace_period_secs -= stop_wait_secs
            stop_wait_secs = max(min(2 * stop_wait_secs, stop_grace_period_secs), 0.001)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]
            if stragglers:
                if ignore_live_threads:
                    _log.info("Coordinator stopped with threads still running: %s", " ".join(stragglers))
                else:
                    raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(stragglers)}")

    @property
    def joined(self) -> bool:
        return self._joined

    def raise_requested_exception(self) -> None:
        """Raises the exception reported with ``request_stop``, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]


@tf_export("train.LooperThread")
class LooperThread(threading.Thread):
    """A daemon thread that calls ``target`` (or ``run_loop``) until a stop request.

    It calls it every ``timer_interval_secs`` if given, else back to back."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None) -> LooperThread:
        """Starts and returns a LooperThread calling ``target(*args, **kwargs)``."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(next_timer_time - time.time()):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once when the thread starts."""

    def stop_loop(self):
        """Called once when the thread stops."""

    def run_loop(self):
        """Called at each iteration (calls ``target``)."""
        if self._target:
            self._target(*self._args, **self._kwargs)
