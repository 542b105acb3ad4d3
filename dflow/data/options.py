"""``tf.data.Options`` (and ``ThreadingOptions``, ``OptimizationOptions``, ``DistributeOptions``),
``tf.data.DatasetSpec``, ``tf.data.NumpyIterator`` and the cardinality constants.

Options attach to a dataset with ``dataset.with_options(options)`` and are
read back, merged along the pipeline, with ``dataset.options()``. dflow's
input pipelines are Python iterators with no graph rewrites or private
thread pools, so the options are kept and reported but do not change how a
pipeline runs. ``dataset.as_numpy_iterator()`` works in graph mode here: it
runs the dataset in a private session and yields numpy values.
"""

from __future__ import annotations

import copy
import logging

from dflow._api import export_value, tf_export
from dflow.framework import nest
from dflow.framework.tensor_shape import as_shape
from dflow.framework.type_spec import TensorSpec, TypeSpec

_log = logging.getLogger("tensorflow")

INFINITE = -1
UNKNOWN = -2
export_value("data.INFINITE_CARDINALITY", INFINITE)
export_value("data.UNKNOWN_CARDINALITY", UNKNOWN)


class _OptionsBase:
    """Options with declared fields (default None = unset); unknown fields are an AttributeError, as in TF."""

    _FIELDS: dict = {}

    def __init__(self):
        object.__setattr__(self, "_values", {})

    def __getattr__(self, name):
        fields = type(self)._FIELDS
        if name in fields:
            value = self._values.get(name)
            if value is None and isinstance(fields[name], type):
                value = fields[name]()
                self._values[name] = value
            return value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        if name not in type(self)._FIELDS:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        kind = type(self)._FIELDS[name]
        if isinstance(kind, type) and value is not None and not isinstance(value, kind):
            raise TypeError(f"Property '{name}' must be of type {kind.__name__}, got {type(value).__name__}")
        self._values[name] = value

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in type(self)._FIELDS)

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __repr__(self):
        set_fields = ", ".join(f"{k}={v!r}" for k, v in self._values.items() if v is not None)
        return f"{type(self).__name__}({set_fields})"

    def _merge(self, other):
        """A copy of ``self`` with ``other``'s set values on top (nested options merged field by field)."""
        out = copy.deepcopy(self)
        for name, theirs in other._values.items():
            if theirs is None:
                continue
            mine = out._values.get(name)
            if isinstance(theirs, _OptionsBase):
                out._values[name] = mine._merge(theirs) if mine is not None else copy.deepcopy(theirs)
            else:
                if mine is not None and mine != theirs:
                    _log.warning("Changing the value of option %s from %r to %r.", name, mine, theirs)
                out._values[name] = theirs
        return out


@tf_export("data.ThreadingOptions", "data.experimental.ThreadingOptions")
class ThreadingOptions(_OptionsBase):
    """``max_intra_op_parallelism`` and ``private_threadpool_size`` of a pipeline."""

    _FIELDS = {"max_intra_op_parallelism": None, "private_threadpool_size": None}


@tf_export("data.experimental.OptimizationOptions")
class OptimizationOptions(_OptionsBase):
    """Static optimizations of a pipeline (dflow applies none; the values are kept)."""

    _FIELDS = {name: None for name in (
        "apply_default_optimizations", "filter_fusion", "filter_parallelization", "inject_prefetch",
        "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion", "map_parallelization",
        "noop_elimination", "parallel_batch", "shuffle_and_repeat_fusion", "warm_start", "autotune",
        "autotune_buffers", "autotune_cpu_budget", "autotune_ram_budget")}


@tf_export("data.experimental.DistributeOptions")
class DistributeOptions(_OptionsBase):
    """How a pipeline is sharded across workers (``auto_shard_policy``, ``num_devices``)."""

    _FIELDS = {"auto_shard_policy": None, "num_devices": None}


@tf_export("data.Options")
class Options(_OptionsBase):
    """Options of a dataset pipeline; set fields, then ``dataset.with_options(options)``.

    >>> options = tf.data.Options()
    >>> options.experimental_deterministic = False
    >>> options.threading.private_threadpool_size = 4
    """

    _FIELDS = {"deterministic": None, "experimental_deterministic": None,
               "experimental_distribute": DistributeOptions, "experimental_optimization": OptimizationOptions,
               "experimental_slack": None, "experimental_threading": ThreadingOptions,
               "threading": ThreadingOptions, "experimental_external_state_policy": None,
               "experimental_symbolic_checkpoint": None, "experimental_warm_start": None,
               "autotune": None}

    def merge(self, options) -> Options:
        """These options with ``options``' set values on top (a warning where both set one differently)."""
        if not isinstance(options, Options):
            raise TypeError(f"Options.merge() needs a tf.data.Options, got {type(options).__name__}")
        return self._merge(options)


def dataset_options(dataset) -> Options:
    """The options of ``dataset``: those of its inputs, merged, then its own."""
    merged = Options()
    for child in dataset._children():
        merged = merged.merge(dataset_options(child))
    own = getattr(dataset, "_options", None)
    return merged.merge(own) if own is not None else merged


def with_options(dataset, options):
    """A dataset that is ``dataset`` with ``options`` merged into its own."""
    if not isinstance(options, Options):
        raise TypeError(f"with_options() needs a tf.data.Options, got {type(options).__name__}")
    out = copy.copy(dataset)
    own = getattr(dataset, "_options", None)
    out._options = own.merge(options) if own is not None else options
    return out


# -- NumpyIterator ----------------------------------------------------------------------------


@tf_export("data.NumpyIterator")
class NumpyIterator:
    """Iterates over a dataset's elements as numpy values (``dataset.as_numpy_iterator()``).

    The elements come from a one-shot iterator run in a private session on
    the dataset's graph; the session closes when the data ends (or ``close()``).
    """

    def __init__(self, dataset):
        from dflow.data.iterator_ops import make_one_shot_iterator
        from dflow.framework.graph import get_default_graph
        from dflow.sessions.session import Session

        inputs = dataset._graph_inputs()
        graph = inputs[0].graph if inputs else get_default_graph()
        with graph.as_default():
            self._next = make_one_shot_iterator(dataset).get_next()
        self._session = Session(graph=graph)

    def __iter__(self):
        return self

    def __next__(self):
        from dflow.framework import errors

        if self._session is None:
            raise StopIteration
        try:
            return self._session.run(self._next)
        except errors.OutOfRangeError:
            self.close()
            raise StopIteration from None

    next = __next__

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def __del__(self):
        self.close()

    def __repr__(self):
        return f"<{type(self).__name__} over {nest.flatten(self._next)[0].graph!r}>"


# -- DatasetSpec ------------------------------------------------------------------------------


def _as_type_spec(component):
    if isinstance(component, TypeSpec):
        return component
    return TensorSpec(component.shape, component.dtype)


@tf_export("data.DatasetSpec", "data.experimental.DatasetStructure")
class DatasetSpec(TypeSpec):
    """The type of a dataset: its ``element_spec`` (and the shape of a batch of datasets, usually ``[]``)."""

    def __init__(self, element_spec, dataset_shape=()):
        from dflow.data import structure

        self._element_spec = structure.map_components(_as_type_spec, element_spec)
        self._dataset_shape = as_shape(dataset_shape)

    @property
    def element_spec(self):
        return self._element_spec

    @property
    def value_type(self):
        from dflow.data.dataset_ops import DatasetV1

        return DatasetV1

    def _serialize(self) -> tuple:
        return (self._element_spec, self._dataset_shape)

    @staticmethod
    def from_value(value) -> DatasetSpec:
        return DatasetSpec(value.element_spec)

    def __repr__(self):
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"
