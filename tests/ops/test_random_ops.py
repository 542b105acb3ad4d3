"""Random ops: TF1 seeding and session semantics, distributions, shapes, names, errors."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from dflow.ops.random.random_ops import DEFAULT_GRAPH_SEED
from tests.ops.harness import run

MAXINT32 = 2**31 - 1


# -- get_seed ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("graph_seed,op_seed,expected", [
    (None, None, (None, None)),
    (None, 5, (DEFAULT_GRAPH_SEED, 5)),
    (1, 5, (1, 5)),
    (1, None, (1, 2)),  # the op seed is the graph's op count (two ops below)
    (0, 0, (0, MAXINT32)),  # (0, 0) would mean "nondeterministic"
    (2**40, 2**35 + 3, (2**40 % MAXINT32, (2**35 + 3) % MAXINT32)),
])
def test_get_seed_follows_tf1(graph_seed, op_seed, expected):
    tf.constant(1)
    tf.constant(2)
    tf.set_random_seed(graph_seed)
    assert tf.get_seed(op_seed) == expected
    assert tf.random.get_seed(op_seed) == expected


def test_seed_attrs_on_the_op():
    assert tf.random_normal([2]).op.get_attr("seed") == 0
    y = tf.random_uniform([2], seed=9)
    assert (y.op.get_attr("seed"), y.op.get_attr("seed2")) == (DEFAULT_GRAPH_SEED, 9)


# -- session semantics --------------------------------------------------------------------------------

RANDOM_BUILDERS = [
    lambda seed: tf.random_normal([50], seed=seed),
    lambda seed: tf.random_uniform([50], seed=seed),
    lambda seed: tf.random_uniform([50], maxval=1000, dtype=tf.int64, seed=seed),
    lambda seed: tf.truncated_normal([50], seed=seed),
    lambda seed: tf.random_shuffle(np.arange(50), seed=seed),
    lambda seed: tf.multinomial(np.zeros([2, 10], np.float32), 50, seed=seed),
    lambda seed: tf.random_gamma([50], 2.0, seed=seed),
    lambda seed: tf.random_poisson(10.0, [50], seed=seed),
    lambda seed: tf.nn.dropout(tf.constant(np.ones(50, np.float32)), rate=0.5, seed=seed),
]


@pytest.mark.parametrize("build", RANDOM_BUILDERS)
def test_seeded_op_repeats_across_sessions_and_advances_within_one(build):
    tf.set_random_seed(42)
    y = build(None)
    with tf.Session() as s1:
        a1, a2 = s1.run(y), s1.run(y)
    with tf.Session() as s2:
        b1, b2 = s2.run(y), s2.run(y)
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)
    assert not np.array_equal(a1, a2)


@pytest.mark.parametrize("build", RANDOM_BUILDERS)
def test_unseeded_op_differs_between_sessions(build):
    y = build(None)
    assert not np.array_equal(run(y), run(y))


def test_op_seed_alone_is_deterministic_across_graphs():
    values = []
    for _ in range(2):
        with tf.Graph().as_default():
            tf.constant(0.0)  # a different op count does not matter with an explicit op seed
            values.append(run(tf.random_normal([5], seed=3)))
    np.testing.assert_array_equal(*values)


def test_graph_seed_gives_each_op_its_own_stream_reproducibly():
    def build():
        with tf.Graph().as_default() as g:
            tf.set_random_seed(7)
            a, b = tf.random_uniform([20]), tf.random_uniform([20])
            with tf.Session(graph=g) as s:
                return s.run([a, b])

    (a1, b1), (a2, b2) = build(), build()
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(b1, b2)
    assert not np.array_equal(a1, b1)


def test_one_fetch_of_an_op_twice_in_a_run_is_one_draw():
    y = tf.random_normal([10])
    a, b = run([y, y])
    np.testing.assert_array_equal(a, b)


# -- distributions ----------------------------------------------------------------------------------

N = 20000


def test_normal_moments():
    v = run(tf.random_normal([N], mean=2.0, stddev=3.0, dtype=tf.float64))
    assert v.dtype == np.float64
    assert abs(v.mean() - 2.0) < 0.1 and abs(v.std() - 3.0) < 0.1


def test_truncated_normal_bounds_and_moments():
    v = run(tf.truncated_normal([N], mean=-1.0, stddev=2.0))
    assert v.min() >= -1.0 - 4.0 and v.max() <= -1.0 + 4.0
    # The standard normal truncated to [-2, 2] has std 0.8796.
    assert abs(v.mean() + 1.0) < 0.05 and abs(v.std() - 2 * 0.8796) < 0.05


def test_uniform_float_and_int():
    v = run(tf.random_uniform([N], minval=-2.0, maxval=6.0))
    assert v.dtype == np.float32 and v.min() >= -2.0 and v.max() < 6.0 and abs(v.mean() - 2.0) < 0.1
    u = run(tf.random_uniform([N]))
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.02
    h = run(tf.random_uniform([N], dtype=tf.float16))
    assert h.dtype == np.float16 and h.max() < 1.0
    i = run(tf.random_uniform([N], minval=-3, maxval=4, dtype=tf.int32))
    assert i.dtype == np.int32 and set(np.unique(i).tolist()) == set(range(-3, 4))
    vec = run(tf.random_uniform([1000, 2], minval=[0.0, 10.0], maxval=[1.0, 11.0]))
    assert vec[:, 0].min() >= 0 and vec[:, 1].min() >= 10  # bounds broadcast as in TF


def test_shuffle_permutes_first_dimension():
    x = np.arange(60).reshape(20, 3)
    v = run(tf.random_shuffle(x))
    assert sorted(v.tolist()) == x.tolist() and not np.array_equal(v, x)
    assert run(tf.random_shuffle(3.0)) == 3.0
    assert sorted(run(tf.random_shuffle(["a", "b", "c"])).tolist()) == [b"a", b"b", b"c"]


def test_multinomial_frequencies():
    logits = np.array([np.log([0.1, 0.2, 0.7]), [0.0, 0.0, -np.inf]], np.float32)
    v = run(tf.multinomial(logits, N))
    assert v.dtype == np.int64 and v.shape == (2, N)
    np.testing.assert_allclose(np.bincount(v[0], minlength=3) / N, [0.1, 0.2, 0.7], atol=0.015)
    np.testing.assert_allclose(np.bincount(v[1], minlength=3) / N, [0.5, 0.5, 0.0], atol=0.015)
    c = run(tf.random.categorical([[-np.inf, 0.0]], 10, dtype=tf.int32))
    assert c.dtype == np.int32 and c.tolist() == [[1] * 10]
    # TF's figure: a row of all -inf logits gives num_classes.
    assert run(tf.multinomial([[-np.inf, -np.inf]], 3)).tolist() == [[2, 2, 2]]


def test_gamma_and_poisson_moments():
    g = run(tf.random_gamma([N], alpha=[2.0, 9.0], beta=3.0))
    assert g.shape == (N, 2) and g.min() > 0
    np.testing.assert_allclose(g.mean(axis=0), [2 / 3, 3.0], rtol=0.05)
    b = run(tf.random_gamma([N], alpha=2.0, beta=[[1.0], [4.0]]))
    assert b.shape == (N, 2, 1)
    np.testing.assert_allclose(b.mean(axis=0)[:, 0], [2.0, 0.5], rtol=0.05)
    assert np.isnan(run(tf.random_gamma([3], -1.0))).all()  # TF figure
    p = run(tf.random_poisson([1.0, 20.0], [N], dtype=tf.int64))
    assert p.dtype == np.int64 and p.shape == (N, 2)
    np.testing.assert_allclose(p.mean(axis=0), [1.0, 20.0], rtol=0.05)
    assert run(tf.random_poisson(-2.0, [3])).tolist() == [0.0, 0.0, 0.0]  # TF figure


# -- shapes, dtypes and names ------------------------------------------------------------------------

SHAPES = [  # (build, name, op type, dtype, static shape), names as TF1.15 graph mode gives them
    (lambda: tf.random_normal([2, 3]), "random_normal:0", "RandomStandardNormal", tf.float32, [2, 3]),
    (lambda: tf.random.normal([2, 3], mean=1.0), "random_normal:0", None, tf.float32, [2, 3]),
    (lambda: tf.random_uniform([4]), "random_uniform:0", "RandomUniform", tf.float32, [4]),
    (lambda: tf.random.uniform([4], maxval=5.0, dtype=tf.float64), "random_uniform:0", None, tf.float64, [4]),
    (lambda: tf.random_uniform([2, 3], maxval=5, dtype=tf.int32), "random_uniform:0", "RandomUniformInt",
     tf.int32, [2, 3]),
    (lambda: tf.truncated_normal([3], dtype=tf.float16), "truncated_normal:0", "TruncatedNormal", tf.float16, [3]),
    (lambda: tf.random.truncated_normal([3], stddev=0.1), "truncated_normal:0", None, tf.float32, [3]),
    (lambda: tf.random_shuffle(np.zeros([5, 2])), "RandomShuffle:0", "RandomShuffle", tf.float64, [5, 2]),
    (lambda: tf.random.shuffle([1, 2]), "RandomShuffle:0", "RandomShuffle", tf.int32, [2]),
    (lambda: tf.multinomial(np.zeros([2, 3], np.float32), 4), "multinomial/Multinomial:0", "Multinomial",
     tf.int64, [2, 4]),
    (lambda: tf.random.categorical(np.zeros([2, 3], np.float32), 4), "categorical/Multinomial:0", "Multinomial",
     tf.int64, [2, 4]),
    (lambda: tf.random_gamma([5], [1.0, 2.0]), "random_gamma:0", None, tf.float32, [5, 2]),
    (lambda: tf.random.gamma([5], [1.0, 2.0], beta=[[1.0], [2.0], [3.0]], dtype=tf.float64), "random_gamma:0",
     None, tf.float64, [5, 3, 2]),
    (lambda: tf.random_poisson([1.0, 2.0], [5]), "random_poisson/RandomPoissonV2:0", "RandomPoissonV2",
     tf.float32, [5, 2]),
    (lambda: tf.random.poisson(2.0, [5], dtype=tf.int32), "random_poisson/RandomPoissonV2:0", "RandomPoissonV2",
     tf.int32, [5]),
    (lambda: tf.random_normal(tf.TensorShape([2, 3]), name="w"), "w:0", None, tf.float32, [2, 3]),
    (lambda: tf.random_normal([]), "random_normal:0", None, tf.float32, []),
    (lambda: tf.random_normal(np.array([2, 3], np.int64)), "random_normal:0", None, tf.float32, [2, 3]),
    (lambda: tf.random_normal(tf.placeholder(tf.int32, [3])), "random_normal:0", None, tf.float32,
     [None, None, None]),
    (lambda: tf.multinomial(tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.int32, [])),
     "multinomial/Multinomial:0", None, tf.int64, [None, None]),
]


@pytest.mark.parametrize("build,name,op_type,dtype,shape", SHAPES)
def test_names_dtypes_static_shapes(build, name, op_type, dtype, shape):
    y = build()
    assert (y.name, y.dtype, y.shape.as_list()) == (name, dtype, shape)
    if op_type is not None:
        assert y.op.type == op_type
    if all(d is not None for d in shape):
        value = run(y)
        assert value.shape == tuple(shape) and value.dtype == dtype.as_numpy_dtype


def test_shape_tensor_is_fed_at_run_time():
    shape = tf.placeholder(tf.int32, [2])
    y = tf.random_uniform(shape, maxval=10, dtype=tf.int32)
    assert y.shape.as_list() == [None, None]
    assert run(y, {shape: [3, 4]}).shape == (3, 4)


# -- errors -------------------------------------------------------------------------------------------

ERRORS = [
    (lambda: tf.random_uniform([2], dtype=tf.int32), ValueError, "Must specify maxval for integer dtype tf.int32"),
    (lambda: tf.random_uniform([2], dtype=tf.bool), ValueError, "Invalid dtype"),
    (lambda: tf.random_uniform([2], maxval=2.5, dtype=tf.int32), TypeError, "Expected int32"),
    (lambda: tf.random_uniform([2], minval=[0, 10], maxval=[1, 11], dtype=tf.int32), ValueError,
     "minval must be a scalar"),
    (lambda: tf.random_normal([2], dtype=tf.int32), TypeError, "DataType int32 not in list of allowed values"),
    (lambda: tf.truncated_normal([2], dtype=tf.int32), TypeError, "DataType int32 not in list"),
    (lambda: tf.random_normal([-2]), ValueError, "Invalid value in tensor used for shape: -2"),
    (lambda: tf.random_normal([[2]]), ValueError, "Shape must be rank 1 but is rank 2"),
    (lambda: tf.random_normal([2.0]), TypeError, "parameter 'shape' has DataType float32"),
    (lambda: tf.multinomial([1.0, 2.0], 3), ValueError, "Shape must be rank 2 but is rank 1"),
    (lambda: tf.multinomial([[1.0, 2.0]], -1), ValueError, "must be non-negative but is -1"),
    (lambda: tf.multinomial([[1.0, 2.0]], 3, output_dtype=tf.float32), ValueError, "Invalid output dtype"),
    (lambda: tf.random_gamma([3], 1, dtype=tf.int32), ValueError, "floating dtype"),
    (lambda: tf.random_poisson(1.0, [3], dtype=tf.bool), TypeError, "DataType bool"),
]


@pytest.mark.parametrize("build,error,match", ERRORS)
def test_static_errors(build, error, match):
    with pytest.raises(error, match=match):
        build()


RUNTIME_ERRORS = [  # TF's runtime messages
    (lambda: tf.random_uniform([2], minval=3, maxval=3, dtype=tf.int32), "Need minval < maxval, got 3 >= 3"),
    (lambda: tf.random_normal(tf.placeholder_with_default([-2], [1])), "Dimension -2 must be >= 0"),
    (lambda: tf.multinomial(np.zeros([2, 0], np.float32), 5), "num_classes should be positive, got 0"),
]


@pytest.mark.parametrize("build,match", RUNTIME_ERRORS)
def test_runtime_errors_are_invalid_argument(build, match):
    y = build()
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        run(y)


def test_random_gamma_is_differentiable_in_alpha_as_tf_implicitly_reparameterises_it():
    """d mean(samples) / d alpha: 1 for Gamma(alpha, 1) (TF 2.15 compat.v1, 20 000 draws: 1.007,
    0.998, 1.0); through tf.distributions.Gamma(rate=2), mean over 3 alphas: 1/6 each."""
    a = tf.constant([0.5, 2.0, 7.0])
    g = tf.gradients(tf.reduce_mean(tf.random_gamma([20000], a, seed=1), 0), a)[0]
    d = tf.distributions.Gamma(concentration=a, rate=tf.constant(2.0))
    g2 = tf.gradients(tf.reduce_mean(d.sample(20000, seed=3)), a)[0]
    with tf.Session() as sess:
        got, got2 = sess.run([g, g2])
    np.testing.assert_allclose(got, [1.0, 1.0, 1.0], atol=0.03)
    np.testing.assert_allclose(got2, [1 / 6] * 3, atol=0.005)
