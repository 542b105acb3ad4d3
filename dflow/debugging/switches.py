"""Process-wide debugging switches of ``tf.debugging``: device-placement logging, traceback filtering and
eager numeric checks, plus the ``is_finite``/``is_inf``/``is_nan`` spellings.

``set_log_device_placement(True)`` makes sessions created without a config
log where each op runs (``ConfigProto.log_device_placement``). dflow does not
filter its frames out of tracebacks, so filtering reports False and cannot
be turned on. ``enable_check_numerics`` instruments every op TF2 runs
eagerly or in ``tf.function``s; dflow has neither — use ``tf.check_numerics``
or ``tf.add_check_numerics_ops()`` on a graph.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.ops.math.unary_math_ops import is_finite, is_inf, is_nan
from dflow.sessions.config import SESSION_DEFAULTS

tf_export("debugging.is_finite")(is_finite)
tf_export("debugging.is_inf")(is_inf)
tf_export("debugging.is_nan")(is_nan)


@tf_export("debugging.set_log_device_placement")
def set_log_device_placement(enabled) -> None:
    """Sessions created from now on without a config log each op's device (as ``log_device_placement``)."""
    SESSION_DEFAULTS["log_device_placement"] = bool(enabled)


@tf_export("debugging.get_log_device_placement")
def get_log_device_placement() -> bool:
    """Whether sessions created without a config log each op's device."""
    return bool(SESSION_DEFAULTS.get("log_device_placement", False))


@tf_export("debugging.is_traceback_filtering_enabled")
def is_traceback_filtering_enabled() -> bool:
    """False: dflow leaves its own frames in tracebacks (errors name the op and where it was created)."""
    return False


@tf_export("debugging.disable_traceback_filtering")
def disable_traceback_filtering() -> None:
    """Tracebacks are already unfiltered in dflow; nothing to switch."""
    return None


@tf_export("debugging.enable_traceback_filtering")
def enable_traceback_filtering() -> None:
    """Refused: dflow does not filter tracebacks."""
    raise NotImplementedError("debugging.enable_traceback_filtering: dflow does not filter its frames out of "
                              "tracebacks; its errors name the failing op and the line that created it")


@tf_export("debugging.enable_check_numerics")
def enable_check_numerics(stack_height_limit=30, path_length_limit=50) -> None:
    """Refused: it instruments eager and ``tf.function`` execution, which dflow does not have."""
    raise NotImplementedError("debugging.enable_check_numerics: dflow runs TF1 graphs; check tensors with "
                              "tf.debugging.check_numerics(t, message) or add tf.add_check_numerics_ops() to the "
                              "graph")


@tf_export("debugging.disable_check_numerics")
def disable_check_numerics() -> None:
    """Numeric checks are never on in dflow unless the graph has ``CheckNumerics`` ops; nothing to switch."""
    return None
