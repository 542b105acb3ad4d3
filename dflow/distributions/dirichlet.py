"""``tf.distributions.Dirichlet`` and ``DirichletMultinomial``: vector events over ``K`` classes."""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.distributions import distribution, kullback_leibler, util
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.ops.array.array_ops import concat
from dflow.ops.array.creation_ops import fill, one_hot, ones
from dflow.ops.array.select_ops import where_v2
from dflow.ops.array.shape_ops import reshape, shape
from dflow.ops.control_flow.control_flow_ops import with_dependencies
from dflow.ops.debugging import check_ops
from dflow.ops.linalg.diag_ops import matrix_set_diag
from dflow.ops.linalg.linalg_ops import matmul
from dflow.ops.math import math_ops, special_math_ops, unary_math_ops
from dflow.ops.math.math_extra_ops import xlogy
from dflow.ops.math.reduction_ops import reduce_all, reduce_sum
from dflow.ops.random import random_ops


@tf_export("distributions.Dirichlet")
class Dirichlet(distribution.Distribution):
    """The Dirichlet distribution on the ``K - 1`` simplex, by ``concentration`` of shape ``batch + [K]``."""

    def __init__(self, concentration, validate_args=False, allow_nan_stats=True, name="Dirichlet"):
        parameters = dict(locals())
        with name_scope(name, values=[concentration]) as name:
            self._concentration = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration, name="concentration"), validate_args)
            self._total_concentration = reduce_sum(self._concentration, -1)
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         parameters=parameters, graph_parents=[self._concentration, self._total_concentration],
                         name=name)

    @property
    def concentration(self):
        """The concentration parameters, one per class."""
        return self._concentration

    @property
    def total_concentration(self):
        """The sum of the concentrations over the last axis."""
        return self._total_concentration

    def _batch_shape_tensor(self):
        return shape(self.total_concentration)

    def _batch_shape(self):
        return self.total_concentration.shape

    def _event_shape_tensor(self):
        return shape(self.concentration)[-1:]

    def _event_shape(self):
        return self.concentration.shape.with_rank_at_least(1)[-1:]

    def _sample_n(self, n, seed=None):
        gamma_sample = random_ops.random_gamma(shape=[n], alpha=self.concentration, dtype=self.dtype, seed=seed)
        return gamma_sample / reduce_sum(gamma_sample, -1, keepdims=True)

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x):
        return unary_math_ops.exp(self._log_prob(x))

    def _log_unnormalized_prob(self, x):
        x = self._maybe_assert_valid_sample(x)
        return reduce_sum(xlogy(self.concentration - 1.0, x), -1)

    def _log_normalization(self):
        return special_math_ops.lbeta(self.concentration)

    def _entropy(self):
        k = math_ops.cast(self.event_shape_tensor()[0], self.dtype)
        return (self._log_normalization()
                + (self.total_concentration - k) * special_math_ops.digamma(self.total_concentration)
                - reduce_sum((self.concentration - 1.0) * special_math_ops.digamma(self.concentration), axis=-1))

    def _mean(self):
        return self.concentration / self.total_concentration[..., None]

    def _covariance(self):
        x = self._variance_scale_term() * self._mean()
        return matrix_set_diag(-matmul(x[..., None], x[..., None, :]), self._variance())

    def _variance(self):
        scale = self._variance_scale_term()
        x = scale * self._mean()
        return x * (scale - x)

    def _variance_scale_term(self):
        return unary_math_ops.rsqrt(1.0 + self.total_concentration[..., None])

    def _mode(self):
        k = math_ops.cast(self.event_shape_tensor()[0], self.dtype)
        mode = (self.concentration - 1.0) / (self.total_concentration[..., None] - k)
        if self.allow_nan_stats:
            nan = fill(shape(mode), np.array(np.nan, dtype=self.dtype.as_numpy_dtype), name="nan")
            return where_v2(reduce_all(self.concentration > 1.0, axis=-1, keepdims=True), mode, nan)
        return with_dependencies([check_ops.assert_less(ones([], self.dtype), self.concentration,
                                                        message="Mode undefined when any concentration <= 1")], mode)

    def _maybe_assert_valid_concentration(self, concentration, validate_args):
        if not validate_args:
            return concentration
        return with_dependencies([
            check_ops.assert_positive(concentration, message="Concentration parameter must be positive."),
            check_ops.assert_rank_at_least(concentration, 1, message="Concentration parameter must have >=1 "
                                                                     "dimensions."),
            check_ops.assert_less(1, shape(concentration)[-1], message="Concentration parameter must have "
                                                                       "event_size >= 2.")], concentration)

    def _maybe_assert_valid_sample(self, x):
        if not self.validate_args:
            return x
        return with_dependencies([
            check_ops.assert_positive(x, message="samples must be positive"),
            check_ops.assert_near(ones([], dtype=self.dtype), reduce_sum(x, -1),
                                  message="sample last-dimension must sum to `1`")], x)


@kullback_leibler.RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(d1, d2, name=None):
    with name_scope(name, "kl_dirichlet_dirichlet", values=[d1.concentration, d2.concentration]):
        digamma_sum_d1 = special_math_ops.digamma(reduce_sum(d1.concentration, axis=-1, keepdims=True))
        digamma_diff = special_math_ops.digamma(d1.concentration) - digamma_sum_d1
        concentration_diff = d1.concentration - d2.concentration
        return (reduce_sum(concentration_diff * digamma_diff, axis=-1) - special_math_ops.lbeta(d1.concentration)
                + special_math_ops.lbeta(d2.concentration))


@tf_export("distributions.DirichletMultinomial")
class DirichletMultinomial(distribution.Distribution):
    """Counts of ``total_count`` draws whose class probabilities are themselves Dirichlet."""

    def __init__(self, total_count, concentration, validate_args=False, allow_nan_stats=True,
                 name="DirichletMultinomial"):
        parameters = dict(locals())
        with name_scope(name, values=[total_count, concentration]) as name:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            if validate_args:
                self._total_count = util.embed_check_nonnegative_integer_form(self._total_count)
            self._concentration = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration, name="concentration"), validate_args)
            self._total_concentration = reduce_sum(self._concentration, -1)
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats, reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         parameters=parameters, graph_parents=[self._total_count, self._concentration], name=name)

    @property
    def total_count(self):
        """The number of draws."""
        return self._total_count

    @property
    def concentration(self):
        """The Dirichlet concentration, one per class."""
        return self._concentration

    @property
    def total_concentration(self):
        """The sum of the concentrations over the last axis."""
        return self._total_concentration

    def _batch_shape_tensor(self):
        return shape(self.total_concentration)

    def _batch_shape(self):
        return self.total_concentration.shape

    def _event_shape_tensor(self):
        return shape(self.concentration)[-1:]

    def _event_shape(self):
        return self.concentration.shape.with_rank_at_least(1)[-1:]

    def _sample_n(self, n, seed=None):
        n_draws = math_ops.cast(self.total_count, dtype=dtypes.int32)
        k = self.event_shape_tensor()[0]
        unnormalized_logits = reshape(unary_math_ops.log(random_ops.random_gamma(
            shape=[n], alpha=self.concentration, dtype=self.dtype, seed=seed)), shape=[-1, k])
        draws = random_ops.multinomial(logits=unnormalized_logits, num_samples=n_draws,
                                       seed=util.gen_new_seed(seed, salt="dirichlet_multinomial"))
        x = reduce_sum(one_hot(draws, depth=k), -2)
        final_shape = concat([[n], self.batch_shape_tensor(), [k]], 0)
        x = reshape(x, final_shape)
        return math_ops.cast(x, self.dtype)

    def _log_prob(self, counts):
        counts = self._maybe_assert_valid_sample(counts)
        ordered_prob = special_math_ops.lbeta(self.concentration + counts) - special_math_ops.lbeta(self.concentration)
        return ordered_prob + util.log_combinations(self.total_count, counts)

    def _prob(self, counts):
        return unary_math_ops.exp(self._log_prob(counts))

    def _mean(self):
        return self.total_count * (self.concentration / self.total_concentration[..., None])

    def _covariance(self):
        x = self._variance_scale_term() * self._mean()
        return matrix_set_diag(-matmul(x[..., None], x[..., None, :]), self._variance())

    def _variance(self):
        scale = self._variance_scale_term()
        x = scale * self._mean()
        return x * (self.total_count * scale - x)

    def _variance_scale_term(self):
        c0 = self.total_concentration[..., None]
        return unary_math_ops.sqrt((1.0 + c0 / self.total_count) / (1.0 + c0))

    def _maybe_assert_valid_concentration(self, concentration, validate_args):
        if not validate_args:
            return concentration
        concentration = util.embed_check_categorical_event_shape(concentration)
        return with_dependencies([check_ops.assert_positive(concentration,
                                                            message="Concentration parameter must be positive.")],
                                 concentration)

    def _maybe_assert_valid_sample(self, counts):
        if not self.validate_args:
            return counts
        counts = util.embed_check_nonnegative_integer_form(counts)
        return with_dependencies([check_ops.assert_equal(
            self.total_count, reduce_sum(counts, -1),
            message="counts last-dimension must sum to `self.total_count`")], counts)
