"""``tf.flags.tf_decorator``: TF's introspectable decorators.

TF1's ``tf.flags`` module re-exports absl's flags and, by the way it was
written, its ``tf_decorator`` helper: ``make_decorator(target, wrapper)``
returns ``wrapper`` carrying ``target``'s name, doc and signature, and a
``TFDecorator`` record that ``unwrap`` follows back to the target::

    def logged(fn):
        def wrapper(*args, **kwargs):
            print("calling", fn.__name__)
            return fn(*args, **kwargs)
        return make_decorator(fn, wrapper)

    unwrap(logged(f)) == ([<TFDecorator 'logged'>], f)
"""

from __future__ import annotations

import inspect
from typing import Any, Dict  # noqa: UP035 - TF re-exports typing.Dict itself

from dflow._api import tf_export

_NS = ("flags.tf_decorator", "app.flags.tf_decorator")
tf_export(*(f"{ns}.Any" for ns in _NS))(Any)
tf_export(*(f"{ns}.Dict" for ns in _NS))(Dict)  # noqa: UP006


def _exported(name: str):
    return tf_export(*(f"{ns}.{name}" for ns in _NS))


@_exported("fullargspec_to_signature")
def fullargspec_to_signature(fullargspec: inspect.FullArgSpec) -> inspect.Signature:
    """The ``inspect.Signature`` equivalent to an ``inspect.FullArgSpec``."""
    defaults = {}
    if fullargspec.defaults:
        defaults.update(zip(fullargspec.args[-len(fullargspec.defaults):], fullargspec.defaults))
    defaults.update(fullargspec.kwonlydefaults or {})
    P = inspect.Parameter
    params = [P(a, P.POSITIONAL_OR_KEYWORD, default=defaults.get(a, P.empty)) for a in fullargspec.args]
    if fullargspec.varargs is not None:
        params.append(P(fullargspec.varargs, P.VAR_POSITIONAL))
    params += [P(a, P.KEYWORD_ONLY, default=defaults.get(a, P.empty)) for a in fullargspec.kwonlyargs]
    if fullargspec.varkw is not None:
        params.append(P(fullargspec.varkw, P.VAR_KEYWORD))
    return inspect.Signature(params)


@_exported("TFDecorator")
class TFDecorator:
    """Records a decorator's name and doc and the target it wraps; calling it calls the target."""

    def __init__(self, decorator_name, target, decorator_doc="", decorator_argspec=None):
        self._decorated_target = target
        self._decorator_name = decorator_name
        self._decorator_doc = decorator_doc
        self._decorator_argspec = decorator_argspec
        for attr in ("__name__", "__qualname__"):
            if hasattr(target, attr):
                setattr(self, attr, getattr(target, attr))
        self.__doc__ = decorator_doc or getattr(target, "__doc__", None) or ""
        if decorator_argspec:
            self.__signature__ = fullargspec_to_signature(decorator_argspec)
        elif callable(target):
            try:
                self.__signature__ = inspect.signature(target)
            except (TypeError, ValueError):
                pass

    def __get__(self, instance, owner):
        return self._decorated_target.__get__(instance, owner)

    def __call__(self, *args, **kwargs):
        return self._decorated_target(*args, **kwargs)

    def __repr__(self):
        return f"<TFDecorator {self._decorator_name!r} of {self._decorated_target!r}>"

    @property
    def decorated_target(self):
        return self._decorated_target

    @decorated_target.setter
    def decorated_target(self, target):
        self._decorated_target = target

    @property
    def decorator_name(self):
        return self._decorator_name

    @property
    def decorator_doc(self):
        return self._decorator_doc

    @property
    def decorator_argspec(self):
        return self._decorator_argspec


def _decorator_of(obj):
    d = getattr(obj, "_tf_decorator", None)
    return d if isinstance(d, TFDecorator) else None


@_exported("make_decorator")
def make_decorator(target, decorator_func, decorator_name=None, decorator_doc="", decorator_argspec=None):
    """Returns ``decorator_func`` dressed as ``target`` (name, doc, signature) with a ``TFDecorator`` record."""
    if decorator_name is None:
        decorator_name = inspect.currentframe().f_back.f_code.co_name
    record = TFDecorator(decorator_name, target, decorator_doc, decorator_argspec)
    decorator_func._tf_decorator = record
    for attr in ("__name__", "__qualname__", "__module__"):
        if hasattr(target, attr):
            setattr(decorator_func, attr, getattr(target, attr))
    for key, value in getattr(target, "__dict__", {}).items():
        decorator_func.__dict__.setdefault(key, value)
    if hasattr(target, "__doc__"):
        decorator_func.__doc__ = record.__doc__
    decorator_func.__wrapped__ = target
    decorator_func.__original_wrapped__ = target
    if hasattr(record, "__signature__"):
        decorator_func.__signature__ = record.__signature__
    return decorator_func


@_exported("unwrap")
def unwrap(maybe_tf_decorator):
    """``(decorators, target)``: the ``TFDecorator`` records, outermost first, and the undecorated callable."""
    decorators = []
    cur = maybe_tf_decorator
    while True:
        record = cur if isinstance(cur, TFDecorator) else _decorator_of(cur)
        if record is None:
            return decorators, cur
        decorators.append(record)
        cur = record.decorated_target


@_exported("rewrap")
def rewrap(decorator_func, previous_target, new_target):
    """Replaces ``previous_target`` by ``new_target`` inside a chain built by ``make_decorator``."""
    cur, innermost, record = decorator_func, None, None
    while _decorator_of(cur) is not None:
        innermost, record = cur, _decorator_of(cur)
        if record.decorated_target is previous_target:
            break
        cur = record.decorated_target
    if innermost is None:
        if decorator_func is not previous_target:
            raise ValueError("rewrap: decorator_func is neither a tf_decorator nor previous_target")
        return new_target
    record.decorated_target = new_target
    getattr(innermost, "__func__", innermost).__wrapped__ = new_target
    return decorator_func
