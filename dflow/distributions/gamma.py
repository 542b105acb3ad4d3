"""``tf.distributions.Gamma``, ``Exponential`` (a Gamma with concentration 1) and ``Beta``."""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.distributions import distribution, kullback_leibler, util
from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import control_dependencies, name_scope
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.array.array_ops import concat
from dflow.ops.array.creation_ops import fill, ones, ones_like
from dflow.ops.array.select_ops import where_v2
from dflow.ops.array.shape_ops import shape
from dflow.ops.control_flow.control_flow_ops import identity, with_dependencies
from dflow.ops.debugging import check_ops
from dflow.ops.math import math_ops, special_math_ops, unary_math_ops
from dflow.ops.math.math_extra_ops import xlogy
from dflow.ops.random import random_ops


def _nan_fill(dist):
    return fill(dist.batch_shape_tensor(), np.array(np.nan, dtype=dist.dtype.as_numpy_dtype), name="nan")


@tf_export("distributions.Gamma")
class Gamma(distribution.ScalarEventDistribution):
    """The Gamma distribution with shape ``concentration`` and inverse scale ``rate``."""

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True, name="Gamma"):
        parameters = dict(locals())
        with name_scope(name, values=[concentration, rate]) as name:
            checks = [check_ops.assert_positive(concentration), check_ops.assert_positive(rate)]
            with control_dependencies(checks if validate_args else []):
                self._concentration = identity(concentration, name="concentration")
                self._rate = identity(rate, name="rate")
                check_ops.assert_same_float_dtype([self._concentration, self._rate])
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         parameters=parameters, graph_parents=[self._concentration, self._rate], name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return dict(zip(("concentration", "rate"), [convert_to_tensor(sample_shape, dtype=dtypes.int32)] * 2))

    def _batch_params(self):
        return (self.concentration, self.rate)

    @property
    def concentration(self):
        """The shape parameter (alpha)."""
        return self._concentration

    @property
    def rate(self):
        """The inverse scale (beta)."""
        return self._rate

    def _sample_n(self, n, seed=None):
        # Differentiable in ``rate`` and, by TF's implicit reparameterisation, ``concentration``.
        return random_ops.random_gamma(shape=[n], alpha=self.concentration, beta=self.rate, dtype=self.dtype,
                                       seed=seed)

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _cdf(self, x):
        x = self._maybe_assert_valid_sample(x)
        rx = self.rate * x
        return special_math_ops.igamma(self.concentration * ones_like(rx), rx * ones_like(self.concentration))

    def _log_unnormalized_prob(self, x):
        x = self._maybe_assert_valid_sample(x)
        return xlogy(self.concentration - 1.0, x) - self.rate * x

    def _log_normalization(self):
        return special_math_ops.lgamma(self.concentration) - self.concentration * unary_math_ops.log(self.rate)

    def _entropy(self):
        return (self.concentration - unary_math_ops.log(self.rate) + special_math_ops.lgamma(self.concentration)
                + (1.0 - self.concentration) * special_math_ops.digamma(self.concentration))

    def _mean(self):
        return self.concentration / self.rate

    def _variance(self):
        return self.concentration / unary_math_ops.square(self.rate)

    def _stddev(self):
        return unary_math_ops.sqrt(self.concentration) / self.rate

    def _mode(self):
        mode = (self.concentration - 1.0) / self.rate
        if self.allow_nan_stats:
            return where_v2(self.concentration > 1.0, mode, _nan_fill(self))
        return with_dependencies([check_ops.assert_less(ones([], self.dtype), self.concentration,
                                                        message="mode not defined when any concentration <= 1")],
                                 mode)

    def _maybe_assert_valid_sample(self, x):
        check_ops.assert_same_float_dtype(tensors=[x], dtype=self.dtype)
        if not self.validate_args:
            return x
        return with_dependencies([check_ops.assert_positive(x)], x)


@kullback_leibler.RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(g0, g1, name=None):
    with name_scope(name, "kl_gamma_gamma", values=[g0.concentration, g0.rate, g1.concentration, g1.rate]):
        return ((g0.concentration - g1.concentration) * special_math_ops.digamma(g0.concentration)
                + special_math_ops.lgamma(g1.concentration) - special_math_ops.lgamma(g0.concentration)
                + g1.concentration * unary_math_ops.log(g0.rate) - g1.concentration * unary_math_ops.log(g1.rate)
                + g0.concentration * (g1.rate / g0.rate - 1.0))


@tf_export("distributions.Exponential")
class Exponential(Gamma):
    """The exponential distribution with rate ``rate``: ``Gamma(1, rate)``."""

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        parameters = dict(locals())
        with name_scope(name, values=[rate]) as name:
            self._rate = convert_to_tensor(rate, name="rate")
        super().__init__(concentration=ones([], dtype=self._rate.dtype), rate=self._rate,
                         allow_nan_stats=allow_nan_stats, validate_args=validate_args, name=name)
        self._parameters = parameters
        self._graph_parents += [self._rate]

    @staticmethod
    def _param_shapes(sample_shape):
        return {"rate": convert_to_tensor(sample_shape, dtype=dtypes.int32)}

    @property
    def rate(self):
        """The rate (inverse mean)."""
        return self._rate

    def _log_survival_function(self, value):
        return self._log_prob(value) - unary_math_ops.log(self._rate)

    def _sample_n(self, n, seed=None):
        shp = concat([[n], shape(self._rate)], 0)
        sampled = random_ops.random_uniform(shp, minval=np.finfo(self.dtype.as_numpy_dtype).tiny, maxval=1.0,
                                            seed=seed, dtype=self.dtype)
        return -unary_math_ops.log(sampled) / self._rate


@tf_export("distributions.Beta")
class Beta(distribution.Distribution):
    """The Beta distribution on ``(0, 1)`` with ``concentration1`` (alpha) and ``concentration0`` (beta)."""

    def __init__(self, concentration1=None, concentration0=None, validate_args=False, allow_nan_stats=True,
                 name="Beta"):
        parameters = dict(locals())
        with name_scope(name, values=[concentration1, concentration0]) as name:
            self._concentration1 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration1, name="concentration1"), validate_args)
            self._concentration0 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration0, name="concentration0"), validate_args)
            check_ops.assert_same_float_dtype([self._concentration1, self._concentration0])
            self._total_concentration = self._concentration1 + self._concentration0
        super().__init__(dtype=self._total_concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         parameters=parameters,
                         graph_parents=[self._concentration1, self._concentration0, self._total_concentration],
                         name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return dict(zip(["concentration1", "concentration0"],
                        [convert_to_tensor(sample_shape, dtype=dtypes.int32)] * 2))

    @property
    def concentration1(self):
        """Alpha: the weight of 1."""
        return self._concentration1

    @property
    def concentration0(self):
        """Beta: the weight of 0."""
        return self._concentration0

    @property
    def total_concentration(self):
        """``concentration1 + concentration0``."""
        return self._total_concentration

    def _batch_shape_tensor(self):
        return shape(self.total_concentration)

    def _batch_shape(self):
        return self.total_concentration.shape

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return TensorShape([])

    def _sample_n(self, n, seed=None):
        expanded_concentration1 = ones_like(self.total_concentration, dtype=self.dtype) * self.concentration1
        expanded_concentration0 = ones_like(self.total_concentration, dtype=self.dtype) * self.concentration0
        gamma1_sample = random_ops.random_gamma(shape=[n], alpha=expanded_concentration1, dtype=self.dtype, seed=seed)
        gamma2_sample = random_ops.random_gamma(shape=[n], alpha=expanded_concentration0, dtype=self.dtype,
                                                seed=util.gen_new_seed(seed, "beta"))
        return gamma1_sample / (gamma1_sample + gamma2_sample)

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x):
        return unary_math_ops.exp(self._log_prob(x))

    def _log_cdf(self, x):
        return unary_math_ops.log(self._cdf(x))

    def _cdf(self, x):
        ones_x = ones_like(x)
        tc = ones_like(self.total_concentration)
        return special_math_ops.betainc(self.concentration1 * tc * ones_x, self.concentration0 * tc * ones_x, x * tc)

    def _log_unnormalized_prob(self, x):
        x = self._maybe_assert_valid_sample(x)
        return xlogy(self.concentration1 - 1.0, x) + (self.concentration0 - 1.0) * unary_math_ops.log1p(-x)

    def _log_normalization(self):
        return (special_math_ops.lgamma(self.concentration1) + special_math_ops.lgamma(self.concentration0)
                - special_math_ops.lgamma(self.total_concentration))

    def _entropy(self):
        return (self._log_normalization()
                - (self.concentration1 - 1.0) * special_math_ops.digamma(self.concentration1)
                - (self.concentration0 - 1.0) * special_math_ops.digamma(self.concentration0)
                + (self.total_concentration - 2.0) * special_math_ops.digamma(self.total_concentration))

    def _mean(self):
        return self._concentration1 / self._total_concentration

    def _variance(self):
        return self._mean() * (1.0 - self._mean()) / (1.0 + self.total_concentration)

    def _mode(self):
        mode = (self.concentration1 - 1.0) / (self.total_concentration - 2.0)
        if self.allow_nan_stats:
            is_defined = math_ops.logical_and(self.concentration1 > 1.0, self.concentration0 > 1.0)
            return where_v2(is_defined, mode, _nan_fill(self))
        return with_dependencies([
            check_ops.assert_less(ones([], dtype=self.dtype), self.concentration1,
                                  message="Mode undefined for concentration1 <= 1."),
            check_ops.assert_less(ones([], dtype=self.dtype), self.concentration0,
                                  message="Mode undefined for concentration0 <= 1.")], mode)

    def _maybe_assert_valid_concentration(self, concentration, validate_args):
        if not validate_args:
            return concentration
        return with_dependencies([check_ops.assert_positive(concentration,
                                                            message="Concentration parameter must be positive.")],
                                 concentration)

    def _maybe_assert_valid_sample(self, x):
        if not self.validate_args:
            return x
        return with_dependencies([check_ops.assert_positive(x, message="sample must be positive"),
                                  check_ops.assert_less(x, ones([], self.dtype),
                                                        message="sample must be less than `1`.")], x)


@kullback_leibler.RegisterKL(Beta, Beta)
def _kl_beta_beta(d1, d2, name=None):
    def delta(fn, is_property=True):
        fn1 = getattr(d1, fn)
        fn2 = getattr(d2, fn)
        return (fn2 - fn1) if is_property else (fn2() - fn1())

    with name_scope(name, "kl_beta_beta", values=[d1.concentration1, d1.concentration0, d1.total_concentration,
                                                  d2.concentration1, d2.concentration0, d2.total_concentration]):
        return (delta("_log_normalization", is_property=False)
                - special_math_ops.digamma(d1.concentration1) * delta("concentration1")
                - special_math_ops.digamma(d1.concentration0) * delta("concentration0")
                + special_math_ops.digamma(d1.total_concentration) * delta("total_concentration"))
