"""``tf.contrib.distributions``: TF 1.15's namespace re-exported ``tf.distributions``' classes and added
its own; dflow has

* the ``tf.distributions`` objects (``Bernoulli``, ``Beta``, ``Categorical``, ``Dirichlet``,
  ``DirichletMultinomial``, ``Exponential``, ``Gamma``, ``Laplace``, ``Multinomial``, ``Normal``,
  ``StudentT``, ``Uniform``, ``Distribution``, ``kl_divergence``, ``RegisterKL``,
  ``ReparameterizationType``, ``FULLY_REPARAMETERIZED``, ``NOT_REPARAMETERIZED``);
* ``MultivariateNormalDiag(loc, scale_diag, scale_identity_multiplier)``: independent normals over the
  last axis (event shape ``[k]``), with ``log_prob``, ``prob``, ``sample``, ``mean``, ``mode``,
  ``stddev``, ``variance``, ``covariance``, ``entropy`` and the KL divergence between two of them;
* ``NormalWithSoftplusScale(loc, scale)``: ``Normal(loc, softplus(scale))``.

The other names of TF 1.15's ``tf.contrib.distributions`` (``MultivariateNormalTriL``, ``Poisson``,
``TransformedDistribution``, ``bijectors``, ...) raise ``NotImplementedError`` naming them.
"""

from __future__ import annotations

import math

from dflow._api import tf_export
from dflow.distributions import distribution, kullback_leibler
from dflow.distributions.categorical import Bernoulli, Categorical, Multinomial
from dflow.distributions.dirichlet import Dirichlet, DirichletMultinomial
from dflow.distributions.gamma import Beta, Exponential, Gamma
from dflow.distributions.normal import Laplace, Normal, StudentT, Uniform
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.array.array_ops import concat
from dflow.ops.array.shape_ops import shape
from dflow.ops.control_flow.control_flow_ops import identity
from dflow.ops.math import reduction_ops, unary_math_ops

_CORE = {
    "Bernoulli": Bernoulli, "Beta": Beta, "Categorical": Categorical, "Dirichlet": Dirichlet,
    "DirichletMultinomial": DirichletMultinomial, "Exponential": Exponential, "Gamma": Gamma, "Laplace": Laplace,
    "Multinomial": Multinomial, "Normal": Normal, "StudentT": StudentT, "Uniform": Uniform,
    "Distribution": distribution.Distribution, "ReparameterizationType": distribution.ReparameterizationType,
    "FULLY_REPARAMETERIZED": distribution.FULLY_REPARAMETERIZED,
    "NOT_REPARAMETERIZED": distribution.NOT_REPARAMETERIZED,
    "kl_divergence": kullback_leibler.kl_divergence, "RegisterKL": kullback_leibler.RegisterKL,
}
for _name, _obj in _CORE.items():
    tf_export(f"contrib.distributions.{_name}")(_obj)
del _name, _obj

FULLY_REPARAMETERIZED = distribution.FULLY_REPARAMETERIZED
NOT_REPARAMETERIZED = distribution.NOT_REPARAMETERIZED
kl_divergence = kullback_leibler.kl_divergence
RegisterKL = kullback_leibler.RegisterKL
Distribution = distribution.Distribution
ReparameterizationType = distribution.ReparameterizationType


def _broadcast_static(a: TensorShape, b: TensorShape) -> TensorShape:
    from dflow.ops.array.shape_utils import broadcast_static_shape

    return broadcast_static_shape(a, b)


@tf_export("contrib.distributions.MultivariateNormalDiag")
class MultivariateNormalDiag(distribution.Distribution):
    """The multivariate normal with mean ``loc`` and covariance ``diag(scale)²`` over the last axis, where
    ``scale = scale_diag (+ scale_identity_multiplier)`` (the identity when both are None)."""

    def __init__(self, loc=None, scale_diag=None, scale_identity_multiplier=None, validate_args=False,
                 allow_nan_stats=True, name="MultivariateNormalDiag"):
        from dflow.ops.array.creation_ops import ones_like

        parameters = dict(locals())
        with name_scope(name, values=[loc, scale_diag, scale_identity_multiplier]) as name:
            if loc is None and scale_diag is None:
                raise ValueError("Must specify one or both of `loc`, `scale_diag`.")
            if loc is not None:
                loc = identity(convert_to_tensor(loc), name="loc")
            dtype = (loc if loc is not None else convert_to_tensor(scale_diag)).dtype.base_dtype
            with name_scope("scale"):
                if scale_diag is None:
                    scale = ones_like(loc)
                else:
                    scale = convert_to_tensor(scale_diag, dtype=dtype)
                if scale_identity_multiplier is not None:
                    scale = scale + convert_to_tensor(scale_identity_multiplier, dtype=dtype)
                scale = identity(scale, name="scale_diag")
            if loc is None:
                from dflow.ops.array.creation_ops import zeros_like

                loc = identity(zeros_like(scale), name="loc")
        self._loc = loc
        self._scale_diag = scale
        super().__init__(dtype=dtype, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[loc, scale], name=name)

    @property
    def loc(self):
        return self._loc

    @property
    def scale_diag(self):
        """The diagonal of the scale matrix (the standard deviations)."""
        return self._scale_diag

    @property
    def scale(self):
        """The scale matrix as a ``LinearOperatorDiag``."""
        from dflow.ops.linear_operators.linear_operator_basic import LinearOperatorDiag

        return LinearOperatorDiag(self._scale_diag, is_non_singular=True)

    def _batch_shape(self):
        return _broadcast_static(self._loc.shape[:-1], self._scale_diag.shape[:-1])

    def _batch_shape_tensor(self):
        from dflow.ops.array.shape_utils import broadcast_dynamic_shape

        return broadcast_dynamic_shape(shape(self._loc)[:-1], shape(self._scale_diag)[:-1])

    def _event_shape(self):
        return _broadcast_static(self._loc.shape[-1:], self._scale_diag.shape[-1:])

    def _event_shape_tensor(self):
        from dflow.ops.array.shape_utils import broadcast_dynamic_shape

        return broadcast_dynamic_shape(shape(self._loc)[-1:], shape(self._scale_diag)[-1:])

    def _full(self, x):
        from dflow.ops.array.creation_ops import zeros_like

        return x + zeros_like(self._loc + self._scale_diag)

    def _sample_n(self, n, seed=None):
        from dflow.ops.random import random_ops

        shp = concat([[n], self.batch_shape_tensor(), self.event_shape_tensor()], 0)
        z = random_ops.random_normal(shape=shp, mean=0.0, stddev=1.0, dtype=self.dtype, seed=seed)
        return z * self._scale_diag + self._loc

    def _log_abs_det(self):
        return reduction_ops.reduce_sum(unary_math_ops.log(unary_math_ops.abs(self._scale_diag)), axis=-1)

    def _event_size(self):
        from dflow.ops.math.math_ops import cast

        k = self.event_shape.as_list()[0] if self.event_shape.is_fully_defined() else None
        if k is not None:
            return float(k)
        return cast(self.event_shape_tensor()[0], self.dtype)

    def _log_prob(self, x):
        x = convert_to_tensor(x, dtype=self.dtype)
        z = (x - self._loc) / self._scale_diag
        return (-0.5 * reduction_ops.reduce_sum(unary_math_ops.square(z), axis=-1)
                - 0.5 * self._event_size() * math.log(2.0 * math.pi) - self._log_abs_det())

    def _prob(self, x):
        return unary_math_ops.exp(self._log_prob(x))

    def _entropy(self):
        from dflow.ops.array.creation_ops import zeros

        ent = 0.5 * self._event_size() * (1.0 + math.log(2.0 * math.pi)) + self._log_abs_det()
        return ent + zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _mean(self):
        return self._full(self._loc)

    def _mode(self):
        return self._mean()

    def _stddev(self):
        return self._full(unary_math_ops.abs(self._scale_diag))

    def _variance(self):
        return self._full(unary_math_ops.square(self._scale_diag))

    def _covariance(self):
        from dflow.ops.linalg.diag_ops import matrix_diag

        return matrix_diag(self._variance())


@kullback_leibler.RegisterKL(MultivariateNormalDiag, MultivariateNormalDiag)
def _kl_mvn_diag(a, b, name=None):
    with name_scope(name, "kl_mvn_diag", [a.loc, b.loc]):
        var_ratio = unary_math_ops.square(a.scale_diag / b.scale_diag)
        diff = (a.loc - b.loc) / b.scale_diag
        return 0.5 * reduction_ops.reduce_sum(var_ratio + unary_math_ops.square(diff) - 1.0
                                              - unary_math_ops.log(var_ratio), axis=-1)


@tf_export("contrib.distributions.NormalWithSoftplusScale")
class NormalWithSoftplusScale(Normal):
    """``Normal(loc, softplus(scale))``."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="NormalWithSoftplusScale"):
        from dflow.ops.nn.nn_activations import softplus

        parameters = dict(locals())
        with name_scope(name, values=[scale]) as name_:
            super().__init__(loc=loc, scale=softplus(scale, name="softplus_scale"), validate_args=validate_args,
                             allow_nan_stats=allow_nan_stats, name=name_)
        self._parameters = parameters


_NOT_PROVIDED = (
    "Binomial", "Chi2", "Deterministic", "ExpRelaxedOneHotCategorical", "Geometric", "HalfNormal", "Independent",
    "InverseGamma", "Kumaraswamy", "Logistic", "Mixture", "MixtureSameFamily", "MultivariateNormalDiagPlusLowRank",
    "MultivariateNormalFullCovariance", "MultivariateNormalTriL", "MultivariateNormalLinearOperator",
    "NegativeBinomial", "OneHotCategorical", "Poisson", "QuantizedDistribution", "RelaxedBernoulli",
    "RelaxedOneHotCategorical", "TransformedDistribution", "VectorDiffeomixture", "Wishart", "bijectors",
)


def __getattr__(name):
    if name in _NOT_PROVIDED:
        raise NotImplementedError(f"tf.contrib.distributions.{name} is not implemented in dflow")
    raise AttributeError(f"module 'dflow.contrib.distributions' has no attribute {name!r}")
