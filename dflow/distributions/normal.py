"""``tf.distributions.Normal``, ``Laplace``, ``Uniform`` and ``StudentT``: scalar-event
location-scale families, all fully reparameterized."""

from __future__ import annotations

import math

import numpy as np

from dflow._api import tf_export
from dflow.distributions import distribution, kullback_leibler, util
from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import control_dependencies, name_scope
from dflow.ops.array.array_ops import concat
from dflow.ops.array.creation_ops import fill, ones, ones_like, zeros, zeros_like
from dflow.ops.array.select_ops import where_v2
from dflow.ops.array.shape_ops import shape
from dflow.ops.array.shape_utils import broadcast_dynamic_shape
from dflow.ops.control_flow.control_flow_ops import identity, with_dependencies
from dflow.ops.debugging import check_ops
from dflow.ops.math import math_ops, special_math_ops, unary_math_ops
from dflow.ops.random import random_ops


def _same_shape_params(names, sample_shape):
    return dict(zip(names, [convert_to_tensor(sample_shape, dtype=dtypes.int32)] * len(names)))


def _nan_like(dist, name="nan"):
    return fill(dist.batch_shape_tensor(), np.array(np.nan, dtype=dist.dtype.as_numpy_dtype), name=name)


class _LocationScale(distribution.ScalarEventDistribution):
    """Normal and Laplace: a ``loc`` and a positive ``scale`` (checked with ``validate_args``), fully
    reparameterized."""

    def __init__(self, loc, scale, validate_args, allow_nan_stats, parameters, name):
        with name_scope(name, values=[loc, scale]) as name:
            with control_dependencies([check_ops.assert_positive(scale)] if validate_args else []):
                self._loc = identity(loc, name="loc")
                self._scale = identity(scale, name="scale")
                check_ops.assert_same_float_dtype([self._loc, self._scale])
        super().__init__(dtype=self._scale.dtype, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._loc, self._scale], name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return _same_shape_params(("loc", "scale"), sample_shape)

    def _batch_params(self):
        return (self.loc, self.scale)

    @property
    def loc(self):
        """The location (the mean, median and mode)."""
        return self._loc

    @property
    def scale(self):
        """The scale (a normal's standard deviation, a Laplace's ``stddev / sqrt(2)``)."""
        return self._scale


@tf_export("distributions.Normal")
class Normal(_LocationScale):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Normal"):
        parameters = dict(locals())
        super().__init__(loc, scale, validate_args, allow_nan_stats, parameters, name)

    def _sample_n(self, n, seed=None):
        shp = concat([[n], self.batch_shape_tensor()], 0)
        sampled = random_ops.random_normal(shape=shp, mean=0.0, stddev=1.0, dtype=self.loc.dtype, seed=seed)
        return sampled * self.scale + self.loc

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _log_cdf(self, x):
        return util.log_ndtr(self._z(x))

    def _cdf(self, x):
        return util.ndtr(self._z(x))

    def _log_survival_function(self, x):
        return util.log_ndtr(-self._z(x))

    def _survival_function(self, x):
        return util.ndtr(-self._z(x))

    def _log_unnormalized_prob(self, x):
        return -0.5 * unary_math_ops.square(self._z(x))

    def _log_normalization(self):
        return 0.5 * math.log(2.0 * math.pi) + unary_math_ops.log(self.scale)

    def _entropy(self):
        scale = self.scale * ones_like(self.loc)
        return 0.5 * math.log(2.0 * math.pi * math.e) + unary_math_ops.log(scale)

    def _mean(self):
        return self.loc * ones_like(self.scale)

    def _quantile(self, p):
        return self._inv_z(special_math_ops.ndtri(p))

    def _stddev(self):
        return self.scale * ones_like(self.loc)

    def _mode(self):
        return self._mean()

    def _z(self, x):
        with name_scope("standardize", values=[x]):
            return (x - self.loc) / self.scale

    def _inv_z(self, z):
        with name_scope("reconstruct", values=[z]):
            return z * self.scale + self.loc


@kullback_leibler.RegisterKL(Normal, Normal)
def _kl_normal_normal(n_a, n_b, name=None):
    with name_scope(name, "kl_normal_normal", [n_a.loc, n_b.loc]):
        one = constant(1, dtype=n_a.dtype)
        two = constant(2, dtype=n_a.dtype)
        half = constant(0.5, dtype=n_a.dtype)
        s_a_squared = unary_math_ops.square(n_a.scale)
        s_b_squared = unary_math_ops.square(n_b.scale)
        ratio = s_a_squared / s_b_squared
        return (math_ops.squared_difference(n_a.loc, n_b.loc) / (two * s_b_squared)
                + half * (ratio - one - unary_math_ops.log(ratio)))


@tf_export("distributions.Laplace")
class Laplace(_LocationScale):
    """The Laplace distribution, density ``exp(-|x - loc| / scale) / (2 scale)``."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Laplace"):
        parameters = dict(locals())
        super().__init__(loc, scale, validate_args, allow_nan_stats, parameters, name)

    def _sample_n(self, n, seed=None):
        shp = concat([[n], self.batch_shape_tensor()], 0)
        np_dtype = self.dtype.as_numpy_dtype
        uniform_samples = random_ops.random_uniform(shape=shp, minval=np.nextafter(np_dtype(-1.0), np_dtype(0.0)),
                                                    maxval=1.0, dtype=self.dtype, seed=seed)
        return self.loc - self.scale * unary_math_ops.sign(uniform_samples) * unary_math_ops.log1p(
            -unary_math_ops.abs(uniform_samples))

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x):
        return unary_math_ops.exp(self._log_prob(x))

    def _log_cdf(self, x):
        return util.log_cdf_laplace(self._z(x))

    def _log_survival_function(self, x):
        return util.log_cdf_laplace(-self._z(x))

    def _cdf(self, x):
        z = self._z(x)
        return 0.5 + 0.5 * unary_math_ops.sign(z) * (1.0 - unary_math_ops.exp(-unary_math_ops.abs(z)))

    def _log_unnormalized_prob(self, x):
        return -unary_math_ops.abs(self._z(x))

    def _log_normalization(self):
        return math.log(2.0) + unary_math_ops.log(self.scale)

    def _entropy(self):
        scale = self.scale + zeros_like(self.loc)
        return math.log(2.0) + 1.0 + unary_math_ops.log(scale)

    def _mean(self):
        return self.loc + zeros_like(self.scale)

    def _stddev(self):
        return math.sqrt(2.0) * self.scale + zeros_like(self.loc)

    def _median(self):
        return self._mean()

    def _mode(self):
        return self._mean()

    def _z(self, x):
        return (x - self.loc) / self.scale


@tf_export("distributions.Uniform")
class Uniform(distribution.ScalarEventDistribution):
    """The uniform distribution on ``[low, high)``."""

    def __init__(self, low=0.0, high=1.0, validate_args=False, allow_nan_stats=True, name="Uniform"):
        parameters = dict(locals())
        with name_scope(name, values=[low, high]) as name:
            checks = [check_ops.assert_less(low, high, message="uniform not defined when low >= high.")]
            with control_dependencies(checks if validate_args else []):
                self._low = identity(low, name="low")
                self._high = identity(high, name="high")
                check_ops.assert_same_float_dtype([self._low, self._high])
        super().__init__(dtype=self._low.dtype, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._low, self._high], name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return _same_shape_params(("low", "high"), sample_shape)

    def _batch_params(self):
        return (self.low, self.high)

    @property
    def low(self):
        """The lower bound (included)."""
        return self._low

    @property
    def high(self):
        """The upper bound (excluded)."""
        return self._high

    def range(self, name="range"):
        """``high - low``."""
        with self._name_scope(name):
            return self.high - self.low

    def _sample_n(self, n, seed=None):
        shp = concat([[n], self.batch_shape_tensor()], 0)
        samples = random_ops.random_uniform(shape=shp, dtype=self.dtype, seed=seed)
        return self.low + self.range() * samples

    def _prob(self, x):
        broadcasted_x = x * ones(self.batch_shape_tensor(), dtype=x.dtype)
        outside = math_ops.logical_or(broadcasted_x < self.low, broadcasted_x >= self.high)
        return where_v2(unary_math_ops.is_nan(broadcasted_x), broadcasted_x,
                        where_v2(outside, zeros_like(broadcasted_x), ones_like(broadcasted_x) / self.range()))

    def _cdf(self, x):
        broadcast_shape = broadcast_dynamic_shape(shape(x), self.batch_shape_tensor())
        zeros_t = zeros(broadcast_shape, dtype=self.dtype)
        ones_t = ones(broadcast_shape, dtype=self.dtype)
        broadcasted_x = x * ones_t
        result_if_not_big = where_v2(x < self.low, zeros_t, (broadcasted_x - self.low) / self.range())
        return where_v2(x >= self.high, ones_t, result_if_not_big)

    def _entropy(self):
        return unary_math_ops.log(self.range())

    def _mean(self):
        return (self.low + self.high) / 2.0

    def _variance(self):
        return unary_math_ops.square(self.range()) / 12.0

    def _stddev(self):
        return self.range() / math.sqrt(12.0)


@tf_export("distributions.StudentT")
class StudentT(distribution.ScalarEventDistribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``."""

    def __init__(self, df, loc, scale, validate_args=False, allow_nan_stats=True, name="StudentT"):
        parameters = dict(locals())
        with name_scope(name, values=[df, loc, scale]) as name:
            with control_dependencies([check_ops.assert_positive(df)] if validate_args else []):
                self._df = identity(df, name="df")
                self._loc = identity(loc, name="loc")
                self._scale = identity(scale, name="scale")
                check_ops.assert_same_float_dtype((self._df, self._loc, self._scale))
        super().__init__(dtype=self._scale.dtype, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._df, self._loc, self._scale], name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return _same_shape_params(("df", "loc", "scale"), sample_shape)

    def _batch_params(self):
        return (self.df, self.loc, self.scale)

    @property
    def df(self):
        """Degrees of freedom."""
        return self._df

    @property
    def loc(self):
        """The location."""
        return self._loc

    @property
    def scale(self):
        """The scale."""
        return self._scale

    def _sample_n(self, n, seed=None):
        shp = concat([[n], self.batch_shape_tensor()], 0)
        normal_sample = random_ops.random_normal(shp, dtype=self.dtype, seed=seed)
        df = self.df * ones(self.batch_shape_tensor(), dtype=self.dtype)
        gamma_sample = random_ops.random_gamma([n], 0.5 * df, beta=0.5, dtype=self.dtype,
                                               seed=util.gen_new_seed(seed, salt="student_t"))
        samples = normal_sample * unary_math_ops.rsqrt(gamma_sample / df)
        return samples * self.scale + self.loc

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _log_unnormalized_prob(self, x):
        y = (x - self.loc) / self.scale
        return -0.5 * (self.df + 1.0) * unary_math_ops.log1p(y ** 2.0 / self.df)

    def _log_normalization(self):
        return (unary_math_ops.log(unary_math_ops.abs(self.scale)) + 0.5 * unary_math_ops.log(self.df)
                + 0.5 * np.log(np.pi) + special_math_ops.lgamma(0.5 * self.df)
                - special_math_ops.lgamma(0.5 * (self.df + 1.0)))

    def _cdf(self, x):
        y = (x - self.loc) / unary_math_ops.abs(self.scale)
        x_t = self.df / (y ** 2.0 + self.df)
        neg_cdf = 0.5 * special_math_ops.betainc(0.5 * self.df, 0.5 * ones_like(self.df), x_t)
        return where_v2(math_ops.less(y, 0.0), neg_cdf, 1.0 - neg_cdf)

    def _entropy(self):
        v = ones(self.batch_shape_tensor(), dtype=self.dtype)[..., None]
        u = v * self.df[..., None]
        beta_arg = concat([u, v], -1) / 2.0
        return (unary_math_ops.log(unary_math_ops.abs(self.scale)) + 0.5 * unary_math_ops.log(self.df)
                + special_math_ops.lbeta(beta_arg) + 0.5 * (self.df + 1.0) * (
                    special_math_ops.digamma(0.5 * (self.df + 1.0)) - special_math_ops.digamma(0.5 * self.df)))

    def _mean(self):
        mean = self.loc * ones(self.batch_shape_tensor(), dtype=self.dtype)
        if self.allow_nan_stats:
            return where_v2(math_ops.greater(self.df, ones(self.batch_shape_tensor(), dtype=self.dtype)), mean,
                            _nan_like(self))
        return with_dependencies([check_ops.assert_less(ones([], dtype=self.dtype), self.df,
                                                        message="mean not defined for components of df <= 1")], mean)

    def _variance(self):
        denom = where_v2(math_ops.greater(self.df, 2.0), self.df - 2.0, ones_like(self.df))
        var = ones(self.batch_shape_tensor(), dtype=self.dtype) * unary_math_ops.square(self.scale) * self.df / denom
        inf = np.array(np.inf, dtype=self.dtype.as_numpy_dtype)
        two = fill(self.batch_shape_tensor(), np.array(2.0, dtype=self.dtype.as_numpy_dtype))
        result_where_defined = where_v2(self.df > two, var, fill(self.batch_shape_tensor(), inf, name="inf"))
        if self.allow_nan_stats:
            return where_v2(math_ops.greater(self.df, ones(self.batch_shape_tensor(), dtype=self.dtype)),
                            result_where_defined, _nan_like(self))
        return with_dependencies([check_ops.assert_less(ones([], dtype=self.dtype), self.df,
                                                        message="variance not defined for components of df <= 1")],
                                 result_where_defined)

    def _mode(self):
        return identity(self.loc)
