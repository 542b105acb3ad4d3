"""``tf.contrib.training.HParams``: named hyperparameters, typed by their first value and overridden
from strings (``"learning_rate=0.3,layers=[2,3]"``), dicts or JSON, as TF 1.15's.

>>> import dflow as tf
>>> hparams = tf.contrib.training.HParams(learning_rate=0.1, num_hidden_units=100, activation="relu")
>>> hparams.parse("learning_rate=0.3,activation=tanh").values()
{'learning_rate': 0.3, 'num_hidden_units': 100, 'activation': 'tanh'}

``HParams`` protos (``hparam_def``, ``to_proto``) are not provided.
"""

from __future__ import annotations

import json
import numbers
import re

from dflow._api import tf_export

# A name, an optional index and a value or bracketed list, then the end or a comma.
PARAM_RE = re.compile(r"""
  (?P<name>[a-zA-Z][\w\.]*)      # variable name: "var" or "x"
  (\[\s*(?P<index>\d+)\s*\])?    # (optional) index: "1" or None
  \s*=\s*
  ((?P<val>[^,\[]*)              # single value: "a" or None
   |
   \[(?P<vals>[^\]]*)\])         # list of values: None or "1,2,3"
  ($|,\s*)""", re.VERBOSE)


def _parse_fail(name, var_type, value, values):
    raise ValueError(f"Could not parse hparam '{name}' of type '{var_type.__name__}' with value '{value}' in {values}")


def _reuse_fail(name, values):
    raise ValueError(f"Multiple assignments to variable '{name}' in {values}")


def _process_scalar_value(name, parse_fn, var_type, m_dict, values, results_dictionary):
    try:
        parsed_value = parse_fn(m_dict["val"])
    except ValueError:
        _parse_fail(name, var_type, m_dict["val"], values)
    if not m_dict["index"]:
        if name in results_dictionary:
            _reuse_fail(name, values)
        results_dictionary[name] = parsed_value
        return
    if name in results_dictionary:
        if not isinstance(results_dictionary.get(name), dict):
            _reuse_fail(name, values)
    else:
        results_dictionary[name] = {}
    index = int(m_dict["index"])
    if index in results_dictionary[name]:
        _reuse_fail(f"{name}[{index}]", values)
    results_dictionary[name][index] = parsed_value


def _process_list_value(name, parse_fn, var_type, m_dict, values, results_dictionary):
    if m_dict["index"] is not None:
        raise ValueError("Assignment of a list to a list index.")
    elements = [e for e in re.split("[ ,]", m_dict["vals"]) if e]
    if name in results_dictionary:
        _reuse_fail(name, values)
    try:
        results_dictionary[name] = [parse_fn(e) for e in elements]
    except ValueError:
        _parse_fail(name, var_type, m_dict["vals"], values)


def _cast_to_type_if_compatible(name, param_type, value):
    """``value`` as ``param_type``, refusing the casts TF refuses (float to int, number to bool or str, ...)."""
    fail_msg = f"Could not cast hparam '{name}' of type '{param_type}' from value {value!r}"
    if isinstance(value, param_type):
        return value
    if issubclass(param_type, type(None)):
        return value
    if issubclass(param_type, (str, bytes)) and not isinstance(value, (str, bytes)):
        raise ValueError(fail_msg)
    if issubclass(param_type, bool) != isinstance(value, bool):
        raise ValueError(fail_msg)
    if issubclass(param_type, numbers.Integral) and not isinstance(value, numbers.Integral):
        raise ValueError(fail_msg)
    if issubclass(param_type, numbers.Number) and not isinstance(value, numbers.Number):
        raise ValueError(fail_msg)
    return param_type(value)


def _bool_parser(name, values):
    def parse_bool(value):
        if value in ("true", "True"):
            return True
        if value in ("false", "False"):
            return False
        try:
            return bool(int(value))
        except ValueError:
            _parse_fail(name, bool, value, values)

    return parse_bool


@tf_export("contrib.training.parse_values")
def parse_values(values, type_map, ignore_unknown=False):
    """Parses ``"name=value,list=[1,2],arr[1]=3"`` into ``{name: value, list: [1, 2], arr: {1: 3}}``,
    each value parsed by ``type_map[name]`` (a bool also accepts ``true``/``false``/ints)."""
    results_dictionary: dict = {}
    pos = 0
    while pos < len(values):
        m = PARAM_RE.match(values, pos)
        if not m:
            raise ValueError(f"Malformed hyperparameter value: {values[pos:]}")
        pos = m.end()
        m_dict = m.groupdict()
        name = m_dict["name"]
        if name not in type_map:
            if ignore_unknown:
                continue
            raise ValueError(f"Unknown hyperparameter type for {name}")
        type_ = type_map[name]
        parse = _bool_parser(name, values) if type_ is bool else type_
        if m_dict["val"] is not None:
            _process_scalar_value(name, parse, type_, m_dict, values, results_dictionary)
        elif m_dict["vals"] is not None:
            _process_list_value(name, parse, type_, m_dict, values, results_dictionary)
        else:
            _parse_fail(name, type_, "", values)
    return results_dictionary


@tf_export("contrib.training.HParams")
class HParams:
    """Hyperparameters as attributes: ``HParams(learning_rate=0.1, layers=[32, 32])``.

    Each is typed by its initial value (a list by its first element); ``set_hparam``, ``parse``,
    ``parse_json`` and ``override_from_dict`` cast new values to that type (refusing a float for
    an int, a number for a string or bool).
    """

    _HAS_DYNAMIC_ATTRIBUTES = True

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        self._hparam_types: dict = {}
        self._model_structure = model_structure
        if hparam_def:
            raise NotImplementedError("HParams(hparam_def=...) reads an HParamDef protocol buffer, which dflow does "
                                      "not provide: pass the values as keyword arguments (or parse_json).")
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name, value):
        """Adds the hyperparameter ``name`` (typed by ``value``; a list must not be empty)."""
        if getattr(self, name, None) is not None:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError(f"Multi-valued hyperparameters cannot be empty: {name}")
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name, value):
        """Sets an existing hyperparameter, cast to its type (a list for a list-valued one)."""
        param_type, is_list = self._hparam_types[name]
        if isinstance(value, list):
            if not is_list:
                raise ValueError(f"Must not pass a list for single-valued parameter: {name}")
            setattr(self, name, [_cast_to_type_if_compatible(name, param_type, v) for v in value])
        else:
            if is_list:
                raise ValueError(f"Must pass a list for multi-valued parameter: {name}.")
            setattr(self, name, _cast_to_type_if_compatible(name, param_type, value))

    def del_hparam(self, name):
        if hasattr(self, name):
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values):
        """Overrides hyperparameters from ``"a=1,b=[2,3]"``; returns ``self``."""
        type_map = {name: param_type for name, (param_type, _) in self._hparam_types.items()}
        return self.override_from_dict(parse_values(values, type_map))

    def override_from_dict(self, values_dict):
        """Sets each ``name: value`` of the dict; returns ``self``. (An ``{index: value}`` dict, as
        ``parse`` gives for ``arr[1]=3``, sets those elements of a list-valued hyperparameter.)"""
        for name, value in values_dict.items():
            if isinstance(value, dict) and name in self._hparam_types and self._hparam_types[name][1]:
                current = list(getattr(self, name))
                for index, element in value.items():
                    current[index] = element
                value = current
            self.set_hparam(name, value)
        return self

    def set_from_map(self, values_map):
        """Deprecated: ``override_from_dict``."""
        return self.override_from_dict(values_dict=values_map)

    def set_model_structure(self, model_structure):
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys=False):
        """The hyperparameters (callables left out) as a JSON string."""
        def remove_callables(x):
            if isinstance(x, dict):
                return {k: remove_callables(v) for k, v in x.items() if not callable(v)}
            if isinstance(x, list):
                return [remove_callables(i) for i in x if not callable(i)]
            return x

        return json.dumps(remove_callables(self.values()), indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def parse_json(self, values_json):
        """Overrides hyperparameters from a JSON object string; returns ``self``."""
        return self.override_from_dict(json.loads(values_json))

    def values(self):
        """``{name: value}`` of every hyperparameter."""
        return {n: getattr(self, n) for n in self._hparam_types}

    def get(self, key, default=None):
        """The hyperparameter ``key``, or ``default`` (which must fit its type) when there is none."""
        if key in self._hparam_types:
            if default is not None:
                param_type, is_param_list = self._hparam_types[key]
                type_str = f"list<{param_type}>" if is_param_list else str(param_type)
                fail_msg = f"Hparam '{key}' of type '{type_str}' is incompatible with default={default}"
                if is_param_list != isinstance(default, list):
                    raise ValueError(fail_msg)
                try:
                    for value in (default if is_param_list else [default]):
                        _cast_to_type_if_compatible(key, param_type, value)
                except ValueError as e:
                    raise ValueError(f"{fail_msg}. {e}") from None
            return getattr(self, key)
        return default

    def __contains__(self, key):
        return key in self._hparam_types

    def __str__(self):
        return ",".join(f"{k}={v}" for k, v in self.values().items())

    def __repr__(self):
        return f"{type(self).__name__}({sorted(self.values().items())})"

    def to_proto(self, export_scope=None):
        raise NotImplementedError("HParams.to_proto is not provided by dflow: use to_json.")

    @staticmethod
    def from_proto(hparam_def, import_scope=None):
        raise NotImplementedError("HParams.from_proto is not provided by dflow: use parse_json.")
