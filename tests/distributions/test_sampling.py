"""tf.distributions sampling (shapes, moments), reparameterized gradients, validate_args errors,
names and the Distribution/KL machinery.

dflow's random streams are not TF's, so sample values are checked only statistically (fixed seeds,
loose tolerances); shapes, names, error classes and gradients follow TF 2.15 compat.v1.
"""

import numpy as np
import pytest

import dflow as tf

D = tf.distributions
N = 4000


def _run(t, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(t, feed_dict)


# (distribution factory, expected mean, expected stddev, tolerance on the mean in stddevs' units)
MOMENT_CASES = {
    "normal": (lambda: D.Normal([0., 3.], [1., 2.]), [0., 3.], [1., 2.]),
    "laplace": (lambda: D.Laplace([0., 3.], [1., 2.]), [0., 3.], [np.sqrt(2.), 2 * np.sqrt(2.)]),
    "uniform": (lambda: D.Uniform([0., 1.], [1., 3.]), [0.5, 2.], [1 / np.sqrt(12.), 2 / np.sqrt(12.)]),
    "studentt": (lambda: D.StudentT([5., 8.], [0., 1.], [1., 2.]), [0., 1.], [np.sqrt(5 / 3.), 2 * np.sqrt(8 / 6.)]),
    "gamma": (lambda: D.Gamma([2., 3.], [1., 2.]), [2., 1.5], [np.sqrt(2.), np.sqrt(3.) / 2]),
    "exponential": (lambda: D.Exponential([1., 2.]), [1., 0.5], [1., 0.5]),
    "beta": (lambda: D.Beta([2., 3.], [1.5, 4.]), [4 / 7., 3 / 7.], [0.23328474, 0.17496355]),
    "bernoulli": (lambda: D.Bernoulli(probs=[0.3, 0.8], dtype=tf.float32), [0.3, 0.8],
                  [np.sqrt(0.21), 0.4]),
}


@pytest.mark.parametrize("name", sorted(MOMENT_CASES))
def test_scalar_event_sample_shape_and_moments(name):
    make, mean, std = MOMENT_CASES[name]
    dist = make()
    s = dist.sample([N // 2, 2], seed=7)
    assert s.shape.as_list() == [N // 2, 2, 2]
    assert s.dtype == dist.dtype
    v = _run(s).reshape(N, 2)
    np.testing.assert_allclose(v.mean(0), mean, atol=5 * np.max(std) / np.sqrt(N))
    np.testing.assert_allclose(v.std(0), std, rtol=0.1)


def test_sample_scalar_shape_and_default():
    n = D.Normal(0., 1.)
    assert n.sample().shape.as_list() == []
    assert n.sample(5).shape.as_list() == [5]
    assert D.Normal([0., 1.], 1.).sample(3).shape.as_list() == [3, 2]
    n_t = tf.placeholder(tf.int32, [])
    s = n.sample(n_t, seed=1)
    assert _run(s, {n_t: 6}).shape == (6,)


def test_categorical_sample():
    probs = np.array([[0.1, 0.2, 0.7], [0.6, 0.3, 0.1]], np.float32)
    c = D.Categorical(probs=probs)
    s = c.sample(N, seed=3)
    assert s.shape.as_list() == [N, 2] and s.dtype == tf.int32
    v = _run(s)
    freq = np.stack([np.bincount(v[:, i], minlength=3) / N for i in range(2)])
    np.testing.assert_allclose(freq, probs, atol=0.03)
    assert D.Categorical(logits=[0., 1.], dtype=tf.int64).sample(2).dtype == tf.int64


def test_dirichlet_sample():
    d = D.Dirichlet([[1.5, 2., 3.], [1., 1., 1.]])
    s = d.sample(N, seed=5)
    assert s.shape.as_list() == [N, 2, 3]
    v = _run(s)
    np.testing.assert_allclose(v.sum(-1), 1., rtol=1e-5)
    np.testing.assert_allclose(v.mean(0), [[1.5 / 6.5, 2 / 6.5, 3 / 6.5], [1 / 3.] * 3], atol=0.02)


@pytest.mark.parametrize("make", [lambda: D.Multinomial(5., probs=[[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]]),
                                  lambda: D.DirichletMultinomial(5., [[1.5, 2., 3.], [6., 2., 2.]])])
def test_count_sample(make):
    dist = make()
    s = dist.sample(2000, seed=11)
    assert s.shape.as_list() == [2000, 2, 3]
    v, mean = _run([s, dist.mean()])
    np.testing.assert_allclose(v.sum(-1), 5.)
    assert (v == np.round(v)).all() and (v >= 0).all()
    np.testing.assert_allclose(v.mean(0), mean, atol=0.15)


def test_seeded_samples_repeat():
    a = _run(D.Normal(0., 1.).sample(4, seed=3))
    tf.reset_default_graph()
    tf.set_random_seed(1)
    b = _run(D.Normal(0., 1.).sample(4, seed=3))
    tf.reset_default_graph()
    tf.set_random_seed(1)
    c = _run(D.Normal(0., 1.).sample(4, seed=3))
    assert a.shape == (4,)
    np.testing.assert_array_equal(b, c)


# -- gradients ----------------------------------------------------------------------------


def test_normal_reparameterized_gradients():
    loc, scale = tf.constant(1.0), tf.constant(2.0)
    s = D.Normal(loc, scale).sample(N, seed=2)
    g = tf.gradients(tf.reduce_mean(s), [loc, scale])
    gl, gs, v = _run(g + [s])
    assert gl == pytest.approx(1.0)
    assert gs == pytest.approx(((v - 1.0) / 2.0).mean(), rel=1e-4)  # d(loc + scale*z)/dscale = z
    assert abs(gs) < 0.1


def test_uniform_laplace_exponential_gradients():
    low, high = tf.constant(1.0), tf.constant(3.0)
    g_u = tf.gradients(tf.reduce_mean(D.Uniform(low, high).sample(N, seed=1)), [low, high])
    loc, scale = tf.constant(0.5), tf.constant(2.0)
    g_l = tf.gradients(tf.reduce_mean(D.Laplace(loc, scale).sample(N, seed=1)), [loc, scale])
    rate = tf.constant(2.0)
    e = D.Exponential(rate).sample(N, seed=1)
    g_e = tf.gradients(tf.reduce_mean(e), [rate])
    gu_lo, gu_hi, gl_loc, gl_scale, ge, ev = _run(g_u + g_l + g_e + [e])
    assert gu_lo + gu_hi == pytest.approx(1.0)  # d mean/d low = 1 - E[u], d/d high = E[u]
    assert gu_hi == pytest.approx(0.5, abs=0.03)
    assert gl_loc == pytest.approx(1.0)
    assert abs(gl_scale) < 0.1
    assert ge == pytest.approx(-ev.mean() / 2.0, rel=1e-4)  # d(-log u / rate)/d rate = -x / rate
    assert ge == pytest.approx(-0.25, abs=0.03)


def test_gamma_sample_gradient_wrt_rate():
    rate = tf.constant(2.0)
    s = D.Gamma(3.0, rate).sample(N, seed=4)
    g = _run(tf.gradients(tf.reduce_mean(s), [rate])[0])
    assert g == pytest.approx(-3.0 / 4.0, abs=0.06)  # d(mean)/d rate = -concentration / rate**2


def test_log_prob_gradients():
    loc = tf.constant(0.5)
    g = _run(tf.gradients(D.Normal(loc, 2.0).log_prob(1.5), [loc])[0])
    assert g == pytest.approx(0.25)  # (x - loc) / scale**2


# -- validate_args ------------------------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda: D.Normal(0., -1., validate_args=True).mean(),
    lambda: D.Laplace(0., tf.constant(-1.) * tf.ones([]), validate_args=True).mean(),
    lambda: D.Uniform(2., 1., validate_args=True).mean(),
    lambda: D.Gamma(-1., 1., validate_args=True).mean(),
    lambda: D.Gamma(1., 1., validate_args=True).log_prob(-1.),
    lambda: D.Exponential(-2., validate_args=True).mean(),
    lambda: D.StudentT(-1., 0., 1., validate_args=True).mean(),
    lambda: D.Beta(-1., 2., validate_args=True).mean(),
    lambda: D.Beta(1., 2., validate_args=True).log_prob(1.5),
    lambda: D.Bernoulli(probs=1.5, validate_args=True).mean(),
    lambda: D.Bernoulli(probs=0.5, validate_args=True).log_prob(2),
    lambda: D.Categorical(probs=[0.3, 0.3], validate_args=True).probs,
    lambda: D.Categorical(probs=[0.5, 0.5], validate_args=True).log_prob(-1),
    lambda: D.Dirichlet([1., -1.], validate_args=True).mean(),
    lambda: D.Dirichlet([1., 1.], validate_args=True).log_prob([0.2, 0.2]),
    lambda: D.Multinomial(2.5, probs=[0.5, 0.5], validate_args=True).mean(),
    lambda: D.Multinomial(3., probs=[0.5, 0.5], validate_args=True).log_prob([1., 1.]),
    lambda: D.DirichletMultinomial(3., [1., 1.], validate_args=True).log_prob([1., 1.]),
])
def test_validate_args_raise_invalid_argument(make):
    # TF raises InvalidArgumentError, at graph construction when the values are static, else at run time.
    with pytest.raises(tf.errors.InvalidArgumentError):
        _run(make())


def test_validate_args_run_time_with_placeholder():
    scale = tf.placeholder(tf.float32, [None])
    m = D.Normal(0., scale, validate_args=True).mean()
    np.testing.assert_allclose(_run(m, {scale: [1., 2.]}), [0., 0.])
    with pytest.raises(tf.errors.InvalidArgumentError, match="x > 0"):
        _run(m, {scale: [1., -2.]})


def test_static_argument_errors():
    with pytest.raises(ValueError, match="Must pass probs or logits, but not both."):
        D.Bernoulli(logits=0., probs=0.5)
    with pytest.raises(ValueError, match="Must pass probs or logits, but not both."):
        D.Categorical()
    with pytest.raises(TypeError, match="logits must having floating type."):
        D.Bernoulli(logits=1)
    with pytest.raises(ValueError, match="at least 2 events"):
        D.Categorical(logits=[1.], validate_args=True)


# -- names, properties, KL registry ----------------------------------------------------------


def test_names_and_scopes():
    n = D.Normal(0., 1.)
    assert n.name == "Normal/"
    assert n.loc.name == "Normal/loc:0"
    assert n.log_prob(1.).name == "Normal/log_prob/sub:0"
    assert n.sample(3).name == "Normal/sample/Reshape:0"
    assert n.mean().name == "Normal/mean/mul:0"
    assert n.entropy().name == "Normal/entropy/add:0"
    assert D.Normal([0., 1.], 1., name="foo").log_prob(0.).name == "foo/log_prob/sub:0"
    assert D.Normal(0., 1.).stddev().name == "Normal_1/stddev/mul:0"
    b = D.Bernoulli(probs=0.3)
    assert (b.probs.name, b.logits.name, b.dtype) == ("Bernoulli/probs:0", "Bernoulli/logits/sub:0", tf.int32)
    assert str(n) == 'tfp.distributions.Normal("Normal/", batch_shape=(), event_shape=(), dtype=float32)'
    assert repr(n) == "<tfp.distributions.Normal 'Normal/' batch_shape=() event_shape=() dtype=float32>"


def test_properties_and_shapes():
    n = D.Normal([[0., 1., 2.]], [[1.], [2.]])
    assert n.batch_shape.as_list() == [2, 3] and n.event_shape.as_list() == []
    assert n.parameters == {"loc": [[0., 1., 2.]], "scale": [[1.], [2.]], "validate_args": False,
                            "allow_nan_stats": True, "name": "Normal"}
    assert n.validate_args is False and n.allow_nan_stats is True
    c = D.Categorical(logits=[[1., 2., 3.]])
    assert c.batch_shape.as_list() == [1] and c.event_shape.as_list() == []
    d = D.Dirichlet([[1., 2., 3.], [1., 1., 1.]])
    assert d.batch_shape.as_list() == [2] and d.event_shape.as_list() == [3]
    bs, es, ev, cev, scalar_b = _run([n.batch_shape_tensor(), d.event_shape_tensor(), c.event_size,
                                      c.event_shape_tensor(), n.is_scalar_batch()])
    assert list(bs) == [2, 3] and list(es) == [3] and ev == 3 and list(cev) == [] and not scalar_b
    p = tf.placeholder(tf.float32, [None, 4])
    dp = D.Dirichlet(p)
    assert dp.batch_shape.as_list() == [None] and dp.event_shape.as_list() == [4]
    assert list(_run(dp.batch_shape_tensor(), {p: np.ones((5, 4))})) == [5]
    assert D.Normal.param_static_shapes([3]) == {"loc": tf.TensorShape([3]), "scale": tf.TensorShape([3])}
    copy = n.copy(loc=5.)
    assert isinstance(copy, D.Normal) and copy.batch_shape.as_list() == [2, 1]


def test_reparameterization_types():
    assert repr(D.FULLY_REPARAMETERIZED) == "<Reparameterization Type: FULLY_REPARAMETERIZED>"
    assert D.FULLY_REPARAMETERIZED != D.NOT_REPARAMETERIZED
    assert isinstance(D.NOT_REPARAMETERIZED, D.ReparameterizationType)
    full = [D.Normal(0., 1.), D.Laplace(0., 1.), D.Uniform(), D.StudentT(3., 0., 1.), D.Gamma(1., 1.),
            D.Exponential(1.), D.Beta(1., 1.), D.Dirichlet([1., 1.])]
    not_full = [D.Bernoulli(probs=0.5), D.Categorical(probs=[0.5, 0.5]), D.Multinomial(2., probs=[0.5, 0.5]),
                D.DirichletMultinomial(2., [1., 1.])]
    assert all(d.reparameterization_type is D.FULLY_REPARAMETERIZED for d in full)
    assert all(d.reparameterization_type is D.NOT_REPARAMETERIZED for d in not_full)
    assert all(isinstance(d, D.Distribution) for d in full + not_full)


def test_kl_registry():
    with pytest.raises(NotImplementedError, match="No KL\\(distribution_a \\|\\| distribution_b\\) registered for "
                                                  "distribution_a type Normal and distribution_b type Laplace"):
        D.kl_divergence(D.Normal(0., 1.), D.Laplace(0., 1.))

    class MyNormal(D.Normal):
        pass

    @D.RegisterKL(MyNormal, D.Laplace)
    def _kl(a, b, name=None):
        return tf.constant(42.)

    with pytest.raises(ValueError, match="has already been registered"):
        D.RegisterKL(MyNormal, D.Laplace)(_kl)
    with pytest.raises(TypeError, match="kl_fn must be callable"):
        D.RegisterKL(MyNormal, MyNormal)(3)
    kl = D.kl_divergence(MyNormal(0., 1.), D.Laplace(0., 1.))
    inherited = MyNormal(0., 1.).kl_divergence(D.Normal(1., 1.))  # Normal's KL through the MRO
    cross = D.Normal(0., 1.).cross_entropy(D.Normal(1., 1.))
    assert kl.name.startswith("KullbackLeibler")
    v, inh, ce = _run([kl, inherited, cross])
    assert v == 42. and inh == pytest.approx(0.5)
    assert ce == pytest.approx(0.5 * np.log(2 * np.pi * np.e) + 0.5, rel=1e-6)


def test_kl_allow_nan_stats_false():
    a = D.Normal(0., tf.placeholder_with_default(1., []))
    kl = D.kl_divergence(a, D.Normal(0., 1.), allow_nan_stats=False)
    assert kl.name == "KullbackLeibler/checked_kl:0"
    assert _run(kl) == pytest.approx(0.)
    bad = D.kl_divergence(D.Normal(0., tf.placeholder_with_default(np.float32(np.nan), [])), D.Normal(0., 1.),
                          allow_nan_stats=False)
    with pytest.raises(tf.errors.InvalidArgumentError, match="returned NaN values"):
        _run(bad)


def test_not_implemented_methods():
    with pytest.raises(NotImplementedError, match="mode is not implemented: Uniform"):
        D.Uniform().mode()
    with pytest.raises(NotImplementedError, match="mean is not implemented: Categorical"):
        D.Categorical(probs=[0.5, 0.5]).mean()
