"""``tf.compat``'s string and type helpers (TF's ``python/util/compat.py``): ``as_bytes``, ``as_text``
(``as_str``), ``as_str_any``, ``path_to_str`` and the type tuples ``integral_types``, ``real_types``,
``complex_types``, ``bytes_or_text_types``. TF1 programs call them on data they read
(``tf.compat.as_str(f.read(name)).split()``)."""

from __future__ import annotations

import numbers

import numpy as np

from dflow._api import export_value, tf_export


@tf_export("compat.as_bytes")
def as_bytes(bytes_or_text, encoding: str = "utf-8") -> bytes:
    """``bytes_or_text`` as bytes: a ``str`` encoded with ``encoding``; a ``TypeError`` for other types."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


@tf_export("compat.as_text", "compat.as_str")
def as_text(bytes_or_text, encoding: str = "utf-8") -> str:
    """``bytes_or_text`` as ``str``: bytes decoded with ``encoding``; a ``TypeError`` for other types."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


@tf_export("compat.as_str_any")
def as_str_any(value) -> str:
    """``value`` as ``str``: bytes decoded as UTF-8, anything else through ``str()``."""
    if isinstance(value, bytes):
        return as_str(value)
    return str(value)


@tf_export("compat.path_to_str")
def path_to_str(path):
    """A path-like object (``os.PathLike``) as ``str``; other values unchanged."""
    if hasattr(path, "__fspath__"):
        path = as_str_any(path.__fspath__())
    return path


integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)
bytes_or_text_types = (bytes, str)
export_value("compat.integral_types", integral_types)
export_value("compat.real_types", real_types)
export_value("compat.complex_types", complex_types)
export_value("compat.bytes_or_text_types", bytes_or_text_types)
