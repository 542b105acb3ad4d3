"""tf.distributions figures (statistics, densities, CDFs, KL) against TF 2.15 compat.v1's.

The expected numbers live in tf_reference.py; each was computed by TF 2.15's
``tf.compat.v1.distributions`` for the same distributions and arguments as ``_cases`` below.
"""

import numpy as np
import pytest

import dflow as tf
from tests.distributions.tf_reference import EXPECTED

METHODS = ["mean", "stddev", "variance", "mode", "entropy", "log_prob", "prob", "cdf", "log_cdf",
           "survival_function", "log_survival_function"]
VALUE_METHODS = set(METHODS[5:])


def _cases(D):
    return {
        "normal": (D.Normal([0., 1.], [1., 2.]), [0.5, -1.5]),
        "laplace": (D.Laplace([0., 1.], [1., 2.]), [0.5, -1.5]),
        "uniform": (D.Uniform([0., 1.], [1., 3.]), [0.5, 2.5]),
        "studentt": (D.StudentT([3., 5.], [0., 1.], [1., 2.]), [0.5, -1.5]),
        "gamma": (D.Gamma([2., 3.], [1., 2.]), [0.5, 1.5]),
        "exp": (D.Exponential([1., 2.]), [0.5, 1.5]),
        "beta": (D.Beta([2., 3.], [1.5, 4.]), [0.25, 0.6]),
        "bern": (D.Bernoulli(probs=[0.3, 0.8]), [1, 0]),
        "bernl": (D.Bernoulli(logits=[-0.5, 1.2]), [1, 0]),
        "cat": (D.Categorical(logits=[[1., 2., 3.], [0., 0., 1.]]), [2, 0]),
        "catp": (D.Categorical(probs=[0.2, 0.5, 0.3]), [1, 2]),
        "dir": (D.Dirichlet([1.5, 2., 3.]), [0.2, 0.3, 0.5]),
        "dm": (D.DirichletMultinomial(5., [1.5, 2., 3.]), [1., 1., 3.]),
        "mult": (D.Multinomial(5., probs=[0.2, 0.3, 0.5]), [1., 1., 3.]),
        "multl": (D.Multinomial([4., 5.], logits=[[0., 1., 2.], [1., 1., 0.]]), [[1., 1., 2.], [2., 2., 1.]]),
    }


def _kl_cases(D):
    return {
        "normal": (D.Normal([0., 1.], [1., 2.]), D.Normal(0.5, 1.5)),
        "bern": (D.Bernoulli(probs=[0.3, 0.8]), D.Bernoulli(probs=0.5)),
        "cat": (D.Categorical(logits=[[1., 2., 3.], [0., 0., 1.]]), D.Categorical(probs=[0.2, 0.5, 0.3])),
        "gamma": (D.Gamma([2., 3.], [1., 2.]), D.Gamma(1.5, 1.)),
        "exp": (D.Exponential([1., 2.]), D.Exponential(1.5)),
        "beta": (D.Beta([2., 3.], [1.5, 4.]), D.Beta(1., 2.)),
        "dir": (D.Dirichlet([1.5, 2., 3.]), D.Dirichlet([1., 1., 1.])),
        "exp_gamma": (D.Exponential([1., 2.]), D.Gamma(2., 1.)),  # found through Exponential's MRO
    }


@pytest.fixture(scope="module")
def computed():
    """Every figure of _cases and _kl_cases, built in one graph and run in one session call."""
    graph = tf.Graph()
    out, tensors = {}, {}
    with graph.as_default():
        for key, (dist, x) in _cases(tf.distributions).items():
            out[f"{key}.shapes"] = [str(dist.batch_shape), str(dist.event_shape), dist.dtype.name,
                                    str(dist.reparameterization_type)]
            for m in METHODS:
                try:
                    fn = getattr(dist, m)
                    tensors[f"{key}.{m}"] = fn(x) if m in VALUE_METHODS else fn()
                except NotImplementedError:
                    out[f"{key}.{m}"] = "NotImplemented"
        for key, (a, b) in _kl_cases(tf.distributions).items():
            tensors[f"kl.{key}"] = tf.distributions.kl_divergence(a, b)
        with tf.Session(graph=graph) as sess:
            values = sess.run(tensors)
    out.update({k: np.asarray(v) for k, v in values.items()})
    return out


@pytest.mark.filterwarnings("ignore:divide by zero encountered in log")  # Categorical log_cdf(0) = -inf
@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tf(computed, key):
    expected, got = EXPECTED[key], computed[key]
    if isinstance(expected, str) or key.endswith(".shapes"):
        assert got == expected
    else:
        np.testing.assert_allclose(got, np.asarray(expected, dtype=np.float64), rtol=2e-5, atol=1e-6)
        assert got.dtype in (np.float32, np.int32), got.dtype


def test_nan_and_inf_statistics():
    D = tf.distributions
    with tf.Session() as sess:
        t = D.StudentT([0.5, 1.5, 3.], 0., 1.)
        g = D.Gamma([0.5, 2.], 1.)
        b = D.Beta([0.5, 2.], [2., 2.])
        mean, var, gmode, bmode = sess.run([t.mean(), t.variance(), g.mode(), b.mode()])
    # TF 2.15 compat.v1 figures
    np.testing.assert_allclose(mean, [np.nan, 0., 0.])
    np.testing.assert_allclose(var, [np.nan, np.inf, 3.])
    np.testing.assert_allclose(gmode, [np.nan, 1.])
    np.testing.assert_allclose(bmode, [np.nan, 0.5])


def test_allow_nan_stats_false_raises():
    D = tf.distributions
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(D.StudentT(tf.constant([0.5, 3.]) + tf.zeros([2]), 0., 1., allow_nan_stats=False).mean())
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(D.Gamma(tf.placeholder_with_default([0.5], [1]), 1., allow_nan_stats=False).mode())


def test_normal_tails():
    # TF 2.15 compat.v1 figures: log_ndtr's asymptotic series below -10 (float32)
    n = tf.distributions.Normal(0., 1.)
    with tf.Session() as sess:
        got = sess.run(n.log_cdf([-20., -8., 3., 7.]))
        n64 = tf.distributions.Normal(tf.constant(0., tf.float64), tf.constant(1., tf.float64))
        got64 = sess.run(n64.log_cdf([-30., 10.]))
    np.testing.assert_allclose(got, [-203.91716, -35.013435, -0.001350838, -1.2798112e-12], rtol=1e-5)
    np.testing.assert_allclose(got64, [-454.321244, -7.61985302e-24], rtol=1e-6)


def test_mixed_float_dtypes_raise_value_error():
    with pytest.raises(ValueError, match="must be of the same type"):
        tf.distributions.Normal(tf.constant(0., tf.float64), 1.)
