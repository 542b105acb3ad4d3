"""``tf.distributions.Distribution``, the base class, and the reparameterization constants.

A distribution is built under a name scope (``"Normal/"``) that every method reuses: ``log_prob``
makes its ops under ``Normal/log_prob/``, ``sample`` under ``Normal/sample/``, as TF 1.15's do.
Subclasses implement the private hooks (``_log_prob``, ``_sample_n``, ``_mean``...); the public
methods convert the argument, open the scope and fall back between ``log_prob``/``prob``,
``cdf``/``log_cdf`` and ``stddev``/``variance`` as TF does.
"""

from __future__ import annotations

import contextlib

import numpy as np

from dflow._api import export_value, tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import TensorShape, as_shape, dimension_value
from dflow.ops.array.array_ops import concat
from dflow.ops.array.shape_ops import reshape, shape
from dflow.ops.array.shape_utils import broadcast_dynamic_shape, broadcast_static_shape
from dflow.ops.math import math_ops, unary_math_ops
from dflow.ops.math.reduction_ops import reduce_prod

__all__ = ["Distribution", "ReparameterizationType", "FULLY_REPARAMETERIZED", "NOT_REPARAMETERIZED"]


@tf_export("distributions.ReparameterizationType")
class ReparameterizationType:
    """Whether samples can be differentiated with respect to the parameters.

    The two instances are ``tf.distributions.FULLY_REPARAMETERIZED`` and
    ``tf.distributions.NOT_REPARAMETERIZED``; equality is identity.
    """

    def __init__(self, rep_type):
        self._rep_type = rep_type

    def __repr__(self):
        return f"<Reparameterization Type: {self._rep_type}>"

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")
export_value("distributions.FULLY_REPARAMETERIZED", FULLY_REPARAMETERIZED)
export_value("distributions.NOT_REPARAMETERIZED", NOT_REPARAMETERIZED)


def _convert_value(value, dtype):
    """``value`` as a tensor, preferring the distribution's dtype for Python numbers."""
    if isinstance(value, Tensor) or dtype is None:
        return convert_to_tensor(value, name="value")
    try:
        return convert_to_tensor(value, name="value", preferred_dtype=dtype)
    except (TypeError, ValueError):
        return convert_to_tensor(value, name="value")


@tf_export("distributions.Distribution")
class Distribution:
    """A batch of probability distributions (TF 1.15's ``tf.distributions.Distribution``).

    Subclasses pass ``dtype``, ``reparameterization_type``, ``validate_args``,
    ``allow_nan_stats``, ``parameters``, ``graph_parents`` and ``name`` (a name scope ending in
    ``/``, or a plain name that becomes one) and implement the underscore hooks.
    """

    def __init__(self, dtype, reparameterization_type, validate_args, allow_nan_stats, parameters=None,
                 graph_parents=None, name=None):
        graph_parents = [] if graph_parents is None else graph_parents
        for i, t in enumerate(graph_parents):
            if t is None or not isinstance(t, Tensor):
                raise ValueError(f"Graph parent item {i} is not a Tensor; {t}.")
        if not name or name[-1] != "/":  # not yet a name scope
            with name_scope(name or type(self).__name__) as name:
                pass
        self._dtype = dtype
        self._reparameterization_type = reparameterization_type
        self._allow_nan_stats = allow_nan_stats
        self._validate_args = validate_args
        self._parameters = parameters or {}
        self._graph_parents = graph_parents
        self._name = name

    @property
    def _parameters(self):
        return self._parameter_dict

    @_parameters.setter
    def _parameters(self, value):
        # Parameters come from locals(): drop self and __class__, as TF does.
        value = dict(value or {})
        value.pop("self", None)
        value.pop("__class__", None)
        self._parameter_dict = value

    @classmethod
    def param_shapes(cls, sample_shape, name="DistributionParamShapes"):
        """The shapes of the parameters that give samples of shape ``sample_shape``."""
        with name_scope(name, values=[sample_shape]):
            return cls._param_shapes(sample_shape)

    @classmethod
    def param_static_shapes(cls, sample_shape):
        """``param_shapes`` as ``TensorShape``s; ``sample_shape`` must be static."""
        if isinstance(sample_shape, TensorShape):
            if not sample_shape.is_fully_defined():
                raise ValueError("TensorShape sample_shape must be fully defined")
            sample_shape = sample_shape.as_list()
        params = cls.param_shapes(sample_shape)
        static = {}
        for name, shp in params.items():
            value = constant_value(shp)
            if value is None:
                raise ValueError("sample_shape must be a fully-defined TensorShape or list/tuple")
            static[name] = TensorShape(value)
        return static

    @staticmethod
    def _param_shapes(sample_shape):
        raise NotImplementedError("_param_shapes not implemented")

    @property
    def name(self):
        """The name scope of the distribution's ops (``"Normal/"``)."""
        return self._name

    @property
    def dtype(self):
        """The ``DType`` of the ``Tensor``s handled by this distribution."""
        return self._dtype

    @property
    def parameters(self):
        """The constructor arguments, as a dict."""
        return {k: v for k, v in self._parameters.items() if not k.startswith("__") and k != "self"}

    @property
    def reparameterization_type(self):
        """``FULLY_REPARAMETERIZED`` or ``NOT_REPARAMETERIZED``."""
        return self._reparameterization_type

    @property
    def allow_nan_stats(self):
        """Whether undefined statistics are NaN (True) or an error (False)."""
        return self._allow_nan_stats

    @property
    def validate_args(self):
        """Whether the parameters and arguments are checked at run time."""
        return self._validate_args

    def copy(self, **override_parameters_kwargs):
        """A new distribution of this type with the parameters, some overridden."""
        parameters = dict(self.parameters, **override_parameters_kwargs)
        return type(self)(**parameters)

    # -- shapes ------------------------------------------------------------------------------------

    def _batch_shape_tensor(self):
        raise NotImplementedError(f"batch_shape_tensor is not implemented: {type(self).__name__}")

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        """The batch shape as a 1-D int32 ``Tensor``."""
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return convert_to_tensor(self.batch_shape.as_list(), dtype=dtypes.int32, name="batch_shape")
            return self._batch_shape_tensor()

    def _batch_shape(self):
        return TensorShape(None)

    @property
    def batch_shape(self):
        """The static batch shape (a ``TensorShape``, possibly partly unknown)."""
        return as_shape(self._batch_shape())

    def _event_shape_tensor(self):
        raise NotImplementedError(f"event_shape_tensor is not implemented: {type(self).__name__}")

    def event_shape_tensor(self, name="event_shape_tensor"):
        """The event shape as a 1-D int32 ``Tensor``."""
        with self._name_scope(name):
            if self.event_shape.is_fully_defined():
                return convert_to_tensor(self.event_shape.as_list(), dtype=dtypes.int32, name="event_shape")
            return self._event_shape_tensor()

    def _event_shape(self):
        return TensorShape(None)

    @property
    def event_shape(self):
        """The static event shape (a ``TensorShape``, possibly partly unknown)."""
        return as_shape(self._event_shape())

    def is_scalar_event(self, name="is_scalar_event"):
        """Whether the event shape is ``[]``."""
        with self._name_scope(name):
            return convert_to_tensor(self._is_scalar_helper(self.event_shape, self.event_shape_tensor),
                                     name="is_scalar_event")

    def is_scalar_batch(self, name="is_scalar_batch"):
        """Whether the batch shape is ``[]``."""
        with self._name_scope(name):
            return convert_to_tensor(self._is_scalar_helper(self.batch_shape, self.batch_shape_tensor),
                                     name="is_scalar_batch")

    # -- sampling ----------------------------------------------------------------------------------

    def _sample_n(self, n, seed=None):
        raise NotImplementedError(f"sample_n is not implemented: {type(self).__name__}")

    def _call_sample_n(self, sample_shape, seed, name, **kwargs):
        with self._name_scope(name, values=[sample_shape]):
            sample_shape = convert_to_tensor(sample_shape, dtype=dtypes.int32, name="sample_shape")
            sample_shape, n = self._expand_sample_shape_to_vector(sample_shape, "sample_shape")
            samples = self._sample_n(n, seed, **kwargs)
            batch_event_shape = shape(samples)[1:]
            final_shape = concat([sample_shape, batch_event_shape], 0)
            samples = reshape(samples, final_shape)
            return self._set_sample_static_shape(samples, sample_shape)

    def sample(self, sample_shape=(), seed=None, name="sample"):
        """Samples of shape ``sample_shape + batch_shape + event_shape``."""
        return self._call_sample_n(sample_shape, seed, name)

    # -- densities ---------------------------------------------------------------------------------

    def _log_prob(self, value):
        raise NotImplementedError(f"log_prob is not implemented: {type(self).__name__}")

    def _prob(self, value):
        raise NotImplementedError(f"prob is not implemented: {type(self).__name__}")

    def _log_cdf(self, value):
        raise NotImplementedError(f"log_cdf is not implemented: {type(self).__name__}")

    def _cdf(self, value):
        raise NotImplementedError(f"cdf is not implemented: {type(self).__name__}")

    def _log_survival_function(self, value):
        raise NotImplementedError(f"log_survival_function is not implemented: {type(self).__name__}")

    def _survival_function(self, value):
        raise NotImplementedError(f"survival_function is not implemented: {type(self).__name__}")

    def _call_with_fallback(self, name, value, primary, fallback):
        with self._name_scope(name, values=[value]):
            value = _convert_value(value, self.dtype)
            try:
                return primary(value)
            except NotImplementedError as original_exception:
                try:
                    return fallback(value)
                except NotImplementedError:
                    raise original_exception from None

    def log_prob(self, value, name="log_prob"):
        """The log of the probability density/mass at ``value``."""
        return self._call_with_fallback(name, value, self._log_prob,
                                        lambda v: unary_math_ops.log(self._prob(v)))

    def prob(self, value, name="prob"):
        """The probability density/mass at ``value``."""
        return self._call_with_fallback(name, value, self._prob, lambda v: unary_math_ops.exp(self._log_prob(v)))

    def log_cdf(self, value, name="log_cdf"):
        """``log P[X <= value]``."""
        return self._call_with_fallback(name, value, self._log_cdf, lambda v: unary_math_ops.log(self._cdf(v)))

    def cdf(self, value, name="cdf"):
        """``P[X <= value]``."""
        return self._call_with_fallback(name, value, self._cdf, lambda v: unary_math_ops.exp(self._log_cdf(v)))

    def log_survival_function(self, value, name="log_survival_function"):
        """``log P[X > value]``."""
        return self._call_with_fallback(name, value, self._log_survival_function,
                                        lambda v: unary_math_ops.log1p(-self.cdf(v)))

    def survival_function(self, value, name="survival_function"):
        """``P[X > value]``."""
        return self._call_with_fallback(name, value, self._survival_function, lambda v: 1.0 - self.cdf(v))

    def _quantile(self, value):
        raise NotImplementedError(f"quantile is not implemented: {type(self).__name__}")

    def quantile(self, value, name="quantile"):
        """The ``x`` with ``P[X <= x] == value``."""
        with self._name_scope(name, values=[value]):
            return self._quantile(_convert_value(value, self.dtype))

    # -- statistics --------------------------------------------------------------------------------

    def _entropy(self):
        raise NotImplementedError(f"entropy is not implemented: {type(self).__name__}")

    def entropy(self, name="entropy"):
        """Shannon entropy in nats."""
        with self._name_scope(name):
            return self._entropy()

    def _mean(self):
        raise NotImplementedError(f"mean is not implemented: {type(self).__name__}")

    def mean(self, name="mean"):
        """The mean."""
        with self._name_scope(name):
            return self._mean()

    def _variance(self):
        raise NotImplementedError(f"variance is not implemented: {type(self).__name__}")

    def variance(self, name="variance"):
        """The variance, ``E[(X - E[X])**2]``."""
        with self._name_scope(name):
            try:
                return self._variance()
            except NotImplementedError as original_exception:
                try:
                    return unary_math_ops.square(self._stddev())
                except NotImplementedError:
                    raise original_exception from None

    def _stddev(self):
        raise NotImplementedError(f"stddev is not implemented: {type(self).__name__}")

    def stddev(self, name="stddev"):
        """The standard deviation."""
        with self._name_scope(name):
            try:
                return self._stddev()
            except NotImplementedError as original_exception:
                try:
                    return unary_math_ops.sqrt(self._variance())
                except NotImplementedError:
                    raise original_exception from None

    def _covariance(self):
        raise NotImplementedError(f"covariance is not implemented: {type(self).__name__}")

    def covariance(self, name="covariance"):
        """The covariance matrix of vector-valued events."""
        with self._name_scope(name):
            return self._covariance()

    def _mode(self):
        raise NotImplementedError(f"mode is not implemented: {type(self).__name__}")

    def mode(self, name="mode"):
        """The mode."""
        with self._name_scope(name):
            return self._mode()

    def _cross_entropy(self, other):
        from dflow.distributions import kullback_leibler

        return kullback_leibler.cross_entropy(self, other, allow_nan_stats=self.allow_nan_stats)

    def cross_entropy(self, other, name="cross_entropy"):
        """``H[self, other] = entropy(self) + KL(self || other)``."""
        with self._name_scope(name):
            return self._cross_entropy(other)

    def _kl_divergence(self, other):
        from dflow.distributions import kullback_leibler

        return kullback_leibler.kl_divergence(self, other, allow_nan_stats=self.allow_nan_stats)

    def kl_divergence(self, other, name="kl_divergence"):
        """``KL(self || other)``, from the registered ``RegisterKL`` function."""
        with self._name_scope(name):
            return self._kl_divergence(other)

    # -- printing and helpers ----------------------------------------------------------------------

    def __str__(self):
        batch = f", batch_shape={self.batch_shape}" if self.batch_shape.ndims is not None else ""
        event = f", event_shape={self.event_shape}" if self.event_shape.ndims is not None else ""
        return f'tfp.distributions.{type(self).__name__}("{self.name}"{batch}{event}, dtype={self.dtype.name})'

    def __repr__(self):
        return (f"<tfp.distributions.{type(self).__name__} '{self.name}' batch_shape={self.batch_shape} "
                f"event_shape={self.event_shape} dtype={self.dtype.name}>")

    @contextlib.contextmanager
    def _name_scope(self, name=None, values=None):
        with name_scope(self.name):
            with name_scope(name, values=([] if values is None else list(values)) + self._graph_parents) as scope:
                yield scope

    def _expand_sample_shape_to_vector(self, x, name):
        static = constant_value(x)
        if static is None:
            prod = reduce_prod(x)
        else:
            prod = np.prod(static, dtype=x.dtype.as_numpy_dtype)
        ndims = x.shape.ndims
        if ndims is None:
            x = reshape(x, [-1])  # a scalar becomes [1], a vector stays
        elif ndims == 0:
            if static is not None:
                x = convert_to_tensor(np.array([static], dtype=x.dtype.as_numpy_dtype), name=name)
            else:
                x = reshape(x, [1])
        elif ndims != 1:
            raise ValueError("Input is neither scalar nor vector.")
        return x, prod

    def _set_sample_static_shape(self, x, sample_shape):
        static = constant_value(sample_shape)
        sample_shape = TensorShape(None if static is None else [int(d) for d in static])
        ndims = x.shape.ndims
        sample_ndims = sample_shape.ndims
        batch_ndims = self.batch_shape.ndims
        event_ndims = self.event_shape.ndims
        if ndims is None and None not in (sample_ndims, batch_ndims, event_ndims):
            ndims = sample_ndims + batch_ndims + event_ndims
            x.set_shape([None] * ndims)
        if ndims is not None and sample_ndims is not None:
            x.set_shape(x.shape.merge_with(sample_shape.concatenate([None] * (ndims - sample_ndims))))
        if ndims is not None and event_ndims is not None:
            x.set_shape(x.shape.merge_with(TensorShape([None] * (ndims - event_ndims)).concatenate(self.event_shape)))
        if batch_ndims is not None:
            if ndims is not None:
                if sample_ndims is None and event_ndims is not None:
                    sample_ndims = ndims - batch_ndims - event_ndims
                elif event_ndims is None and sample_ndims is not None:
                    event_ndims = ndims - batch_ndims - sample_ndims
            if sample_ndims is not None and event_ndims is not None:
                full = TensorShape([None] * sample_ndims).concatenate(self.batch_shape)
                full = full.concatenate([None] * event_ndims)
                x.set_shape(x.shape.merge_with(full))
        return x

    def _is_scalar_helper(self, static_shape, dynamic_shape_fn):
        if static_shape.ndims is not None:
            return static_shape.ndims == 0
        shp = dynamic_shape_fn()
        if shp.shape.ndims is not None and dimension_value(shp.shape[0]) is not None:
            return shp.shape.as_list() == [0]
        return math_ops.equal(shape(shp)[0], 0)


class ScalarEventDistribution(Distribution):
    """A distribution of scalar events whose batch shape is its parameters' broadcast shape (Normal,
    Laplace, Uniform, StudentT, Gamma): subclasses name the parameters in ``_batch_params``."""

    def _batch_params(self) -> tuple:
        raise NotImplementedError

    def _batch_shape_tensor(self):
        *rest, last = (shape(p) for p in self._batch_params())
        for s in reversed(rest):  # right-nested, as TF writes StudentT's
            last = broadcast_dynamic_shape(s, last)
        return last

    def _batch_shape(self):
        out = TensorShape([])
        for p in self._batch_params():
            out = broadcast_static_shape(out, p.shape)
        return out

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return TensorShape([])
