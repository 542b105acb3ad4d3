"""``tf.distributions``: TF 1.15's probability distributions on dflow's ops.

``Bernoulli``, ``Beta``, ``Categorical``, ``Dirichlet``, ``DirichletMultinomial``,
``Exponential``, ``Gamma``, ``Laplace``, ``Multinomial``, ``Normal``, ``StudentT`` and
``Uniform``, their ``Distribution`` base class, ``kl_divergence`` with ``RegisterKL`` and the
``ReparameterizationType`` constants. Each distribution is a batch of parameterizations
(``batch_shape``) over events of ``event_shape``; methods build graph ops under the
distribution's name scope (``Normal/log_prob/...``) with TF's formulas.

Samples use dflow's random streams, not TF's, so a seed gives other values than TF's.
Reparameterized samples (``FULLY_REPARAMETERIZED``) differentiate through ``tf.gradients``; the
Gamma-based ones (``Gamma``, ``Beta``, ``Dirichlet``, ``StudentT``'s ``df``) reach the Gamma
concentration through ``RandomGamma``'s implicit gradient, as TF's.
"""

from dflow.distributions import categorical, dirichlet, gamma, normal
from dflow.distributions.categorical import Bernoulli, Categorical, Multinomial
from dflow.distributions.dirichlet import Dirichlet, DirichletMultinomial
from dflow.distributions.distribution import (
                                              FULLY_REPARAMETERIZED,
                                              NOT_REPARAMETERIZED,
                                              Distribution,
                                              ReparameterizationType,
)
from dflow.distributions.gamma import Beta, Exponential, Gamma
from dflow.distributions.kullback_leibler import RegisterKL, kl_divergence
from dflow.distributions.normal import Laplace, Normal, StudentT, Uniform

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "DirichletMultinomial", "Distribution", "Exponential",
           "FULLY_REPARAMETERIZED", "Gamma", "Laplace", "Multinomial", "NOT_REPARAMETERIZED", "Normal", "RegisterKL",
           "ReparameterizationType", "StudentT", "Uniform", "categorical", "dirichlet", "gamma", "kl_divergence",
           "normal"]
