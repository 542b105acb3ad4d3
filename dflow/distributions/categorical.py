"""``tf.distributions.Bernoulli``, ``Categorical`` and ``Multinomial``: discrete distributions
given by ``logits`` or ``probs`` (exactly one of them), not reparameterized."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.distributions import distribution, kullback_leibler, util
from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.tensor_shape import TensorShape, dimension_value
from dflow.ops.array.array_ops import concat
from dflow.ops.array.creation_ops import one_hot, ones, ones_like, sequence_mask, zeros_like
from dflow.ops.array.select_ops import where
from dflow.ops.array.shape_ops import rank, reshape, shape, transpose
from dflow.ops.control_flow.control_flow_ops import identity, with_dependencies
from dflow.ops.control_flow.functional_ops import map_fn
from dflow.ops.debugging import check_ops
from dflow.ops.linalg.diag_ops import matrix_set_diag
from dflow.ops.linalg.linalg_ops import matmul
from dflow.ops.math import math_ops, unary_math_ops
from dflow.ops.math.reduction_ops import argmax, reduce_sum
from dflow.ops.nn.nn_activations import log_softmax, softmax, softplus
from dflow.ops.nn.nn_losses import sigmoid_cross_entropy_with_logits, sparse_softmax_cross_entropy_with_logits
from dflow.ops.random import random_ops


@tf_export("distributions.Bernoulli")
class Bernoulli(distribution.Distribution):
    """Bernoulli trials: 1 with probability ``probs`` (or ``sigmoid(logits)``), else 0."""

    def __init__(self, logits=None, probs=None, dtype=dtypes.int32, validate_args=False, allow_nan_stats=True,
                 name="Bernoulli"):
        parameters = dict(locals())
        with name_scope(name) as name:
            self._logits, self._probs = util.get_logits_and_probs(logits=logits, probs=probs,
                                                                  validate_args=validate_args, name=name)
        super().__init__(dtype=dtypes.as_dtype(dtype), reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._logits, self._probs], name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return {"logits": convert_to_tensor(sample_shape, dtype=dtypes.int32)}

    @property
    def logits(self):
        """Log-odds of drawing a 1."""
        return self._logits

    @property
    def probs(self):
        """Probability of drawing a 1."""
        return self._probs

    def _batch_shape_tensor(self):
        return shape(self._logits)

    def _batch_shape(self):
        return self._logits.shape

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return TensorShape([])

    def _sample_n(self, n, seed=None):
        new_shape = concat([[n], self.batch_shape_tensor()], 0)
        uniform = random_ops.random_uniform(new_shape, seed=seed, dtype=self.probs.dtype)
        return math_ops.cast(math_ops.less(uniform, self.probs), self.dtype)

    def _log_prob(self, event):
        if self.validate_args:
            event = util.embed_check_integer_casting_closed(event, target_dtype=dtypes.bool)
        event = math_ops.cast(event, self.logits.dtype)
        logits = self.logits
        if not (event.shape.is_fully_defined() and logits.shape.is_fully_defined()
                and event.shape == logits.shape):
            logits, event = ones_like(event) * logits, ones_like(logits) * event
        return -sigmoid_cross_entropy_with_logits(labels=event, logits=logits)

    def _entropy(self):
        return -self.logits * (unary_math_ops.sigmoid(self.logits) - 1) + softplus(-self.logits)

    def _mean(self):
        return identity(self.probs)

    def _variance(self):
        return self._mean() * (1.0 - self.probs)

    def _mode(self):
        return math_ops.cast(self.probs > 0.5, self.dtype)


@kullback_leibler.RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(a, b, name=None):
    with name_scope(name, "kl_bernoulli_bernoulli", values=[a.logits, b.logits]):
        delta_probs0 = softplus(-b.logits) - softplus(-a.logits)
        delta_probs1 = softplus(b.logits) - softplus(a.logits)
        return unary_math_ops.sigmoid(a.logits) * delta_probs0 + unary_math_ops.sigmoid(-a.logits) * delta_probs1


def _broadcast_cat_event_and_params(event, params, base_dtype):
    """``event`` and ``params`` broadcast so that ``params.shape[:-1] == event.shape``."""
    if event.dtype.is_integer:
        pass
    elif event.dtype.is_floating:
        event = math_ops.cast(event, dtype=dtypes.int32)
    else:
        raise TypeError(f"`value` should have integer `dtype` or `self.dtype` ({base_dtype})")
    shape_known_statically = (params.shape.ndims is not None and params.shape[:-1].is_fully_defined()
                              and event.shape.is_fully_defined())
    if not shape_known_statically or params.shape[:-1] != event.shape:
        params = params * ones_like(event[..., None], dtype=params.dtype)
        params_shape = shape(params)[:-1]
        event = event * ones(params_shape, dtype=event.dtype)
        if params.shape.ndims is not None:
            event.set_shape(TensorShape(params.shape[:-1]))
    return event, params


@tf_export("distributions.Categorical")
class Categorical(distribution.Distribution):
    """A draw of one class out of ``K``, by ``logits`` or ``probs`` of shape ``batch + [K]``."""

    def __init__(self, logits=None, probs=None, dtype=dtypes.int32, validate_args=False, allow_nan_stats=True,
                 name="Categorical"):
        parameters = dict(locals())
        with name_scope(name, values=[logits, probs]) as name:
            self._logits, self._probs = util.get_logits_and_probs(logits=logits, probs=probs,
                                                                  validate_args=validate_args, multidimensional=True,
                                                                  name=name)
            if validate_args:
                self._logits = util.embed_check_categorical_event_shape(self._logits)
            logits_shape_static = self._logits.shape.with_rank_at_least(1)
            if logits_shape_static.ndims is not None:
                self._batch_rank = convert_to_tensor(logits_shape_static.ndims - 1, dtype=dtypes.int32,
                                                     name="batch_rank")
            else:
                with name_scope("batch_rank"):
                    self._batch_rank = rank(self._logits) - 1
            logits_shape = shape(self._logits, name="logits_shape")
            if logits_shape_static.ndims is not None and dimension_value(logits_shape_static[-1]) is not None:
                self._event_size = convert_to_tensor(dimension_value(logits_shape_static[-1]), dtype=dtypes.int32,
                                                     name="event_size")
            else:
                with name_scope("event_size"):
                    self._event_size = logits_shape[self._batch_rank]
            if logits_shape_static.ndims is not None and logits_shape_static[:-1].is_fully_defined():
                self._batch_shape_val = constant(logits_shape_static[:-1].as_list(), dtype=dtypes.int32,
                                                 name="batch_shape")
            else:
                with name_scope("batch_shape"):
                    self._batch_shape_val = logits_shape[:-1]
        super().__init__(dtype=dtypes.as_dtype(dtype), reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._logits, self._probs], name=name)

    @property
    def event_size(self):
        """The number of classes, a scalar int32 ``Tensor``."""
        return self._event_size

    @property
    def logits(self):
        """Unnormalized log probabilities of the classes."""
        return self._logits

    @property
    def probs(self):
        """Probabilities of the classes."""
        return self._probs

    def _batch_shape_tensor(self):
        return identity(self._batch_shape_val)

    def _batch_shape(self):
        if self.logits.shape.ndims is None:
            return TensorShape(None)
        return self.logits.shape[:-1]

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return TensorShape([])

    def _sample_n(self, n, seed=None):
        if self.logits.shape.ndims == 2:
            logits_2d = self.logits
        else:
            logits_2d = reshape(self.logits, [-1, self.event_size])
        sample_dtype = dtypes.int64 if self.dtype.size > 4 else dtypes.int32
        draws = random_ops.multinomial(logits_2d, n, seed=seed, output_dtype=sample_dtype)
        draws = reshape(transpose(draws), concat([[n], self.batch_shape_tensor()], 0))
        return math_ops.cast(draws, self.dtype)

    def _cdf(self, k):
        k = convert_to_tensor(k, name="k")
        if self.validate_args:
            k = util.embed_check_integer_casting_closed(k, target_dtype=dtypes.int32)
        k, probs = _broadcast_cat_event_and_params(k, self.probs, base_dtype=self.dtype.base_dtype)
        batch_flattened_probs = reshape(probs, (-1, self._event_size))
        batch_flattened_k = reshape(k, [-1])
        to_sum_over = where(sequence_mask(batch_flattened_k, self._event_size), batch_flattened_probs,
                            zeros_like(batch_flattened_probs))
        batch_flattened_cdf = reduce_sum(to_sum_over, axis=-1)
        return reshape(batch_flattened_cdf, shape(k))

    def _log_prob(self, k):
        k = convert_to_tensor(k, name="k")
        if self.validate_args:
            k = util.embed_check_integer_casting_closed(k, target_dtype=dtypes.int32)
        k, logits = _broadcast_cat_event_and_params(k, self.logits, base_dtype=self.dtype.base_dtype)
        return -sparse_softmax_cross_entropy_with_logits(labels=k, logits=logits)

    def _entropy(self):
        return -reduce_sum(log_softmax(self.logits) * self.probs, axis=-1)

    def _mode(self):
        ret = math_ops.cast(argmax(self.logits, axis=self._batch_rank), self.dtype)
        ret.set_shape(self.batch_shape)
        return ret


@kullback_leibler.RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(a, b, name=None):
    with name_scope(name, "kl_categorical_categorical", values=[a.logits, b.logits]):
        delta_log_probs1 = log_softmax(a.logits) - log_softmax(b.logits)
        return reduce_sum(softmax(a.logits) * delta_log_probs1, axis=-1)


@tf_export("distributions.Multinomial")
class Multinomial(distribution.Distribution):
    """Counts of ``total_count`` categorical draws over ``K`` classes (events of shape ``[K]``)."""

    def __init__(self, total_count, logits=None, probs=None, validate_args=False, allow_nan_stats=True,
                 name="Multinomial"):
        parameters = dict(locals())
        with name_scope(name, values=[total_count, logits, probs]) as name:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            if validate_args:
                self._total_count = util.embed_check_nonnegative_integer_form(self._total_count)
            self._logits, self._probs = util.get_logits_and_probs(logits=logits, probs=probs, multidimensional=True,
                                                                  validate_args=validate_args, name=name)
            self._mean_val = self._total_count[..., None] * self._probs
        super().__init__(dtype=self._probs.dtype, reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._total_count, self._logits, self._probs], name=name)

    @property
    def total_count(self):
        """The number of draws."""
        return self._total_count

    @property
    def logits(self):
        """Unnormalized log probabilities of the classes."""
        return self._logits

    @property
    def probs(self):
        """Probabilities of the classes."""
        return self._probs

    def _batch_shape_tensor(self):
        return shape(self._mean_val)[:-1]

    def _batch_shape(self):
        return self._mean_val.shape.with_rank_at_least(1)[:-1]

    def _event_shape_tensor(self):
        return shape(self._mean_val)[-1:]

    def _event_shape(self):
        return self._mean_val.shape.with_rank_at_least(1)[-1:]

    def _sample_n(self, n, seed=None):
        n_draws = math_ops.cast(self.total_count, dtype=dtypes.int32)
        k = self.event_shape_tensor()[0]
        n_draws = ones_like(self.logits[..., 0], dtype=n_draws.dtype) * n_draws
        logits = ones_like(n_draws[..., None], dtype=self.logits.dtype) * self.logits
        flat_logits = reshape(logits, [-1, k])
        flat_ndraws = n * reshape(n_draws, [-1])

        def _sample_single(args):
            logits, n_draw = args[0], args[1]
            x = random_ops.multinomial(logits[None, ...], n_draw, seed)
            x = reshape(x, shape=[n, -1])
            return reduce_sum(one_hot(x, depth=k), axis=-2)

        x = map_fn(_sample_single, [flat_logits, flat_ndraws], dtype=self.dtype)
        x = transpose(x, perm=[1, 0, 2])
        final_shape = concat([[n], self.batch_shape_tensor(), [k]], 0)
        return reshape(x, final_shape)

    def _log_prob(self, counts):
        return self._log_unnormalized_prob(counts) - self._log_normalization(counts)

    def _log_unnormalized_prob(self, counts):
        counts = self._maybe_assert_valid_sample(counts)
        return reduce_sum(counts * log_softmax(self.logits), -1)

    def _log_normalization(self, counts):
        counts = self._maybe_assert_valid_sample(counts)
        return -util.log_combinations(self.total_count, counts)

    def _mean(self):
        return identity(self._mean_val)

    def _covariance(self):
        p = self.probs * ones_like(self.total_count)[..., None]
        return matrix_set_diag(-matmul(self._mean_val[..., None], p[..., None, :]), self._variance())

    def _variance(self):
        p = self.probs * ones_like(self.total_count)[..., None]
        return self._mean_val - self._mean_val * p

    def _maybe_assert_valid_sample(self, counts):
        if not self.validate_args:
            return counts
        counts = util.embed_check_nonnegative_integer_form(counts)
        return with_dependencies([check_ops.assert_equal(self.total_count, reduce_sum(counts, -1),
                                                         message="counts must sum to `self.total_count`")], counts)
