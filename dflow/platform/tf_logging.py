"""``tf.logging`` and ``tf.get_logger``: TF1's logging functions on Python's logging.

Messages go to the logger named ``"tensorflow"``, as in TF, so handlers and
levels that scripts set on ``logging.getLogger("tensorflow")`` keep working.
As in TF, the first use adds a stderr handler to that logger unless the root
logger already has one (an interactive shell logs to stdout at INFO).
dflow's own library messages (hooks' ``loss = ...``, checkpoints, queue
runners) go to the ``"dflow"`` logger; where TF1 prints them through
``tf.logging``, ``set_verbosity`` sets both loggers' level and the default
handler serves both, so ``tf.logging.set_verbosity(tf.logging.INFO)`` shows
training progress as it does in TF1::

    tf.logging.set_verbosity(tf.logging.INFO)
    tf.logging.info("step %d", 10)      # INFO:tensorflow:step 10
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from logging import DEBUG, ERROR, FATAL, INFO, WARN

from dflow._api import export_value, tf_export

for _name, _level in (("DEBUG", DEBUG), ("ERROR", ERROR), ("FATAL", FATAL), ("INFO", INFO), ("WARN", WARN)):
    export_value(f"logging.{_name}", _level)

LOGGER_NAME = "tensorflow"
_LIBRARY_LOGGER = "dflow"
_logger = None
_logger_lock = threading.Lock()
_log_counter_per_token: dict = {}
_SKIPPED_FILES = {os.path.normcase(logging.__file__), os.path.normcase(__file__)}


def _caller_frame():
    """The innermost frame outside this module and ``logging``: the user's call site."""
    f = sys._getframe(1)
    while f is not None and os.path.normcase(f.f_code.co_filename) in _SKIPPED_FILES:
        f = f.f_back
    return f


def _find_caller(stack_info=False, stacklevel=1):
    """``Logger.findCaller`` that reports the user's line, not this module's wrappers."""
    f = _caller_frame()
    if f is None:
        return "(unknown file)", 0, "(unknown function)", None
    sinfo = None
    if stack_info:
        import traceback

        sinfo = "Stack (most recent call last):\n" + "".join(traceback.format_stack(f)).rstrip("\n")
    return f.f_code.co_filename, f.f_lineno, f.f_code.co_name, sinfo


@tf_export("get_logger")
def get_logger() -> logging.Logger:
    """The ``"tensorflow"`` logger that ``tf.logging`` writes to (configured on first use as in TF)."""
    global _logger
    if _logger is not None:
        return _logger
    with _logger_lock:
        if _logger is not None:
            return _logger
        logger = logging.getLogger(LOGGER_NAME)
        logger.findCaller = _find_caller
        if not logging.getLogger().handlers:
            interactive = hasattr(sys, "ps1") or bool(sys.flags.interactive)
            if interactive:
                logger.setLevel(INFO)
            handler = logging.StreamHandler(sys.stdout if interactive else sys.stderr)
            # TF's BASIC_FORMAT with its logger name: dflow's library lines (the hooks' ``loss = ...``)
            # read as TF1's do, ``INFO:tensorflow:loss = 0.25, step = 3``.
            handler.setFormatter(logging.Formatter("%(levelname)s:tensorflow:%(message)s", None))
            logger.addHandler(handler)
            library = logging.getLogger(_LIBRARY_LOGGER)
            if not library.handlers:
                library.addHandler(handler)
        _logger = logger
        return _logger


@tf_export("logging.log")
def log(level, msg, *args, **kwargs):
    """Logs ``msg % args`` at ``level``."""
    get_logger().log(level, msg, *args, **kwargs)


@tf_export("logging.debug")
def debug(msg, *args, **kwargs):
    """Logs at DEBUG."""
    get_logger().debug(msg, *args, **kwargs)


@tf_export("logging.info")
def info(msg, *args, **kwargs):
    """Logs at INFO."""
    get_logger().info(msg, *args, **kwargs)


@tf_export("logging.warning")
def warning(msg, *args, **kwargs):
    """Logs at WARN."""
    get_logger().warning(msg, *args, **kwargs)


@tf_export("logging.warn")
def warn(msg, *args, **kwargs):
    """Logs at WARN (TF1's older spelling)."""
    get_logger().warning(msg, *args, **kwargs)


@tf_export("logging.error")
def error(msg, *args, **kwargs):
    """Logs at ERROR."""
    get_logger().error(msg, *args, **kwargs)


@tf_export("logging.fatal")
def fatal(msg, *args, **kwargs):
    """Logs at FATAL (does not exit, as in TF)."""
    get_logger().fatal(msg, *args, **kwargs)


@tf_export("logging.vlog")
def vlog(level, msg, *args, **kwargs):
    """Logs at ``level`` (TF1's verbose log: the level is a logging level)."""
    get_logger().log(level, msg, *args, **kwargs)


@tf_export("logging.TaskLevelStatusMessage")
def TaskLevelStatusMessage(msg):  # noqa: N802 - TF1's name
    """Logs a task status message (at ERROR, as TF does)."""
    error(msg)


@tf_export("logging.flush")
def flush():
    """Flushes the handlers of the ``tensorflow`` logger and its ancestors.

    TF's own ``flush`` raises ``NotImplementedError``; flushing is what the name promises.
    """
    logger = get_logger()
    while logger is not None:
        for handler in logger.handlers:
            handler.flush()
        logger = logger.parent if logger.propagate else None


def _next_count(token) -> int:
    _log_counter_per_token[token] = _log_counter_per_token.get(token, -1) + 1
    return _log_counter_per_token[token]


def _call_site() -> tuple:
    f = _caller_frame()
    return ("<unknown>", 0) if f is None else (f.f_code.co_filename, f.f_lineno)


@tf_export("logging.log_if")
def log_if(level, msg, condition, *args):
    """Logs ``msg % args`` at ``level`` when ``condition`` holds."""
    if condition:
        vlog(level, msg, *args)


@tf_export("logging.log_every_n")
def log_every_n(level, msg, n, *args):
    """Logs the 1st, (n+1)th, (2n+1)th... time this line is reached."""
    log_if(level, msg, not (_next_count(_call_site()) % n), *args)


@tf_export("logging.log_first_n")
def log_first_n(level, msg, n, *args):
    """Logs only the first ``n`` times this line is reached."""
    log_if(level, msg, _next_count(_call_site()) < n, *args)


@tf_export("logging.get_verbosity")
def get_verbosity() -> int:
    """The ``tensorflow`` logger's effective level."""
    return get_logger().getEffectiveLevel()


@tf_export("logging.set_verbosity")
def set_verbosity(v) -> None:
    """Sets the level of the ``tensorflow`` logger and of dflow's library logger."""
    get_logger().setLevel(v)
    logging.getLogger(_LIBRARY_LOGGER).setLevel(v)
