"""Initializers: TF1's names, values, distributions, seeds, and get_variable's use of them.

Expected names, configs and error types were read off TensorFlow's
``tf.compat.v1`` (the TF1.15 classes, which TF 2.x keeps unchanged).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dflow as tf
from dflow.ops.state.init_ops import _compute_fans
from tests.ops.harness import run

TRUNC = 0.87962566103423978  # std of a unit normal truncated to [-2, 2]


def init_value(init, shape, dtype=None):
    """The value ``init`` gives a variable of ``shape`` (and ``dtype``)."""
    t = init(shape) if dtype is None else init(shape, dtype=dtype)
    return run(t)


# -- public names -----------------------------------------------------------------------------------

TF1_NAMES = [
    ("zeros_initializer", "Zeros"), ("ones_initializer", "Ones"), ("constant_initializer", "Constant"),
    ("random_normal_initializer", "RandomNormal"), ("truncated_normal_initializer", "TruncatedNormal"),
    ("random_uniform_initializer", "RandomUniform"), ("uniform_unit_scaling_initializer", "UniformUnitScaling"),
    ("variance_scaling_initializer", "VarianceScaling"), ("glorot_uniform_initializer", "GlorotUniform"),
    ("glorot_normal_initializer", "GlorotNormal"), ("orthogonal_initializer", "Orthogonal"),
]
INITIALIZERS_NAMES = {
    "zeros": "Zeros", "ones": "Ones", "constant": "Constant", "random_normal": "RandomNormal",
    "random_uniform": "RandomUniform", "truncated_normal": "TruncatedNormal", "uniform_unit_scaling":
    "UniformUnitScaling", "variance_scaling": "VarianceScaling", "glorot_uniform": "GlorotUniform",
    "glorot_normal": "GlorotNormal", "orthogonal": "Orthogonal", "identity": "Identity",
}


@pytest.mark.parametrize("name,cls", TF1_NAMES)
def test_tf1_initializer_names_are_the_classes(name, cls):
    assert getattr(tf, name).__name__ == cls


def test_tf_initializers_namespace():
    for name, cls in INITIALIZERS_NAMES.items():
        assert getattr(tf.initializers, name).__name__ == cls
    assert tf.initializers.zeros is tf.zeros_initializer
    assert tf.initializers.glorot_uniform is tf.glorot_uniform_initializer
    for fn in ("he_normal", "he_uniform", "lecun_normal", "lecun_uniform"):
        assert isinstance(getattr(tf.initializers, fn)(), tf.variance_scaling_initializer)
    assert tf.initializers.global_variables is tf.global_variables_initializer
    assert tf.initializers.local_variables is tf.local_variables_initializer
    assert tf.initializers.variables is tf.variables_initializer
    assert tf.compat.v1.initializers.orthogonal is tf.orthogonal_initializer


def test_initializers_global_variables_runs_the_initializers():
    v = tf.get_variable("v", [2], initializer=tf.ones_initializer())
    with tf.Session() as s:
        s.run(tf.initializers.global_variables())
        assert s.run(v).tolist() == [1.0, 1.0]


# -- deterministic initializers ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,zero,one", [
    (tf.float32, 0.0, 1.0), (tf.float64, 0.0, 1.0), (tf.int32, 0, 1), (tf.int64, 0, 1), (tf.bool, False, True),
])
def test_zeros_and_ones(dtype, zero, one):
    z = init_value(tf.zeros_initializer(), [2, 3], dtype)
    o = init_value(tf.ones_initializer(dtype=dtype), [2, 3])
    assert z.dtype == dtype.as_numpy_dtype and o.dtype == dtype.as_numpy_dtype
    np.testing.assert_array_equal(z, np.full([2, 3], zero))
    np.testing.assert_array_equal(o, np.full([2, 3], one))


def test_zeros_of_a_large_shape_and_of_strings():
    np.testing.assert_array_equal(init_value(tf.zeros_initializer(), [100, 30]), np.zeros([100, 30], np.float32))
    assert init_value(tf.zeros_initializer(dtype=tf.string), [2]).tolist() == [b"", b""]


@pytest.mark.parametrize("value,shape,expected", [
    (3.0, [2, 2], [[3.0, 3.0], [3.0, 3.0]]),
    ([1, 2, 3, 4], [2, 2], [[1, 2], [3, 4]]),
    ((1, 2), [2], [1, 2]),
    ([1, 2, 3], [2, 3], [[1, 2, 3], [3, 3, 3]]),  # padded with the last element
    (np.arange(6).reshape(2, 3), [3, 2], [[0, 1], [2, 3], [4, 5]]),
])
def test_constant_values(value, shape, expected):
    got = init_value(tf.constant_initializer(value), shape)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.asarray(expected, np.float32))


def test_constant_dtypes_and_errors():
    got = init_value(tf.constant_initializer([1, 2]), [2], tf.int32)
    assert got.dtype == np.int32 and got.tolist() == [1, 2]
    with pytest.raises(TypeError, match="Invalid type for initial value"):
        tf.constant_initializer(object())
    with pytest.raises(TypeError, match="Expected Tensor's shape"):
        tf.constant_initializer([1, 2, 3, 4], verify_shape=True)([2, 2])
    # The call may override verify_shape.
    assert init_value(lambda s: tf.constant_initializer([1, 2, 3, 4], verify_shape=True)(s, verify_shape=False),
                      [2, 2]).shape == (2, 2)
    with pytest.raises((TypeError, ValueError), match="Too many elements"):
        tf.constant_initializer([1, 2, 3, 4])([3])
    with pytest.raises(TypeError):
        tf.constant_initializer(2.5)([2], dtype=tf.int32)


@pytest.mark.parametrize("shape,gain", [([3, 3], 1.0), ([2, 4], 0.5), ([4, 2], 3.0)])
def test_identity(shape, gain):
    got = init_value(tf.initializers.identity(gain=gain), shape)
    np.testing.assert_array_equal(got, gain * np.eye(*shape, dtype=np.float32))


def test_identity_errors():
    with pytest.raises(ValueError, match="2D"):
        tf.initializers.identity()([2, 2, 2])
    with pytest.raises(ValueError, match="floating point"):
        tf.initializers.identity(dtype=tf.int32)
    with pytest.raises(TypeError):
        tf.initializers.identity()([2, 2], dtype=tf.int32)


# -- random initializers: shapes, dtypes, moments ------------------------------------------------------

RANDOM_INITS = [
    lambda: tf.random_normal_initializer(),
    lambda: tf.truncated_normal_initializer(),
    lambda: tf.random_uniform_initializer(),
    lambda: tf.uniform_unit_scaling_initializer(),
    lambda: tf.variance_scaling_initializer(),
    lambda: tf.glorot_uniform_initializer(),
    lambda: tf.glorot_normal_initializer(),
    lambda: tf.orthogonal_initializer(),
    lambda: tf.initializers.he_normal(),
    lambda: tf.initializers.lecun_uniform(),
]


@pytest.mark.parametrize("make", RANDOM_INITS)
@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64])
def test_random_shapes_and_dtypes(make, dtype):
    t = make()([3, 4, 5], dtype=dtype)
    assert t.dtype == dtype and t.shape.as_list() == [3, 4, 5]
    value = run(t)
    assert value.dtype == dtype.as_numpy_dtype and value.shape == (3, 4, 5)
    assert np.all(np.isfinite(value))


BIG = [400, 500]


def test_random_normal_moments():
    x = init_value(tf.random_normal_initializer(mean=1.5, stddev=0.5, seed=1), BIG)
    assert abs(x.mean() - 1.5) < 0.01 and abs(x.std() - 0.5) < 0.01


def test_truncated_normal_moments_and_bounds():
    x = init_value(tf.truncated_normal_initializer(mean=-1.0, stddev=2.0, seed=1), BIG)
    assert abs(x.mean() + 1.0) < 0.02 and abs(x.std() - 2.0 * TRUNC) < 0.02
    assert x.min() >= -1.0 - 4.0 and x.max() <= -1.0 + 4.0


def test_random_uniform_moments_and_bounds():
    x = init_value(tf.random_uniform_initializer(-2.0, 6.0, seed=1), BIG)
    assert x.min() >= -2.0 and x.max() < 6.0
    assert abs(x.mean() - 2.0) < 0.05 and abs(x.std() - 8.0 / math.sqrt(12)) < 0.02
    # maxval defaults to 1 for floats
    y = init_value(tf.random_uniform_initializer(seed=1), BIG)
    assert y.min() >= 0.0 and y.max() < 1.0


def test_random_uniform_integers():
    x = init_value(tf.random_uniform_initializer(0, 10, seed=1), BIG, tf.int32)
    assert x.dtype == np.int32 and x.min() == 0 and x.max() == 9
    with pytest.raises(ValueError, match="maxval"):
        tf.random_uniform_initializer()([2], dtype=tf.int32)


@pytest.mark.parametrize("shape,factor", [([500, 400], 1.0), ([5, 5, 20, 400], 1.43), ([100000], 2.0)])
def test_uniform_unit_scaling_bound(shape, factor):
    limit = factor * math.sqrt(3.0 / max(1.0, float(np.prod(shape[:-1]))))
    x = init_value(tf.uniform_unit_scaling_initializer(factor=factor, seed=2), shape)
    assert np.abs(x).max() <= limit and np.abs(x).max() > 0.99 * limit
    assert abs(x.std() - limit / math.sqrt(3)) < 0.02 * limit


# -- variance scaling ------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,fans", [
    ([], (1, 1)), ([7], (7, 7)), ([3, 5], (3, 5)), ([3, 16, 32], (48, 96)), ([3, 3, 16, 32], (144, 288)),
    ([2, 3, 3, 4, 5], (72, 90)), (tf.TensorShape([4, 6]), (4, 6)),
])
def test_compute_fans(shape, fans):
    assert _compute_fans(shape) == fans


VS_SHAPE = [3, 3, 64, 96]  # fan_in 576, fan_out 864, fan_avg 720; 55296 values


@pytest.mark.parametrize("mode,n", [("fan_in", 576), ("fan_out", 864), ("fan_avg", 720)])
@pytest.mark.parametrize("distribution", ["truncated_normal", "normal", "untruncated_normal", "uniform"])
def test_variance_scaling_std_follows_tf_formula(mode, n, distribution):
    scale = 2.5
    x = init_value(tf.variance_scaling_initializer(scale, mode, distribution, seed=4), VS_SHAPE)
    target = math.sqrt(scale / n)
    assert abs(x.std() - target) < 0.02 * target
    assert abs(x.mean()) < 0.02 * target
    if distribution == "uniform":
        limit = math.sqrt(3.0 * scale / n)
        assert np.abs(x).max() <= limit and np.abs(x).max() > 0.99 * limit
    elif distribution in ("normal", "truncated_normal"):
        # truncated at two standard deviations of the underlying normal
        bound = 2 * target / TRUNC
        assert np.abs(x).max() <= bound * (1 + 1e-6) and np.abs(x).max() > 0.97 * bound
    else:
        assert np.abs(x).max() > 3 * target


def test_variance_scaling_builds_the_distributions_ops():
    ops = {d: tf.variance_scaling_initializer(distribution=d)([4, 4]).op.type
           for d in ("normal", "truncated_normal", "untruncated_normal", "uniform")}
    assert ops["normal"] == ops["truncated_normal"]
    assert tf.variance_scaling_initializer(distribution="untruncated_normal")([4, 4]).name.startswith("random_normal")
    assert tf.variance_scaling_initializer(distribution="uniform")([4, 4]).name.startswith("random_uniform")
    assert tf.variance_scaling_initializer()([4, 4]).name.startswith("truncated_normal")


def test_variance_scaling_small_fans_are_clamped_to_one():
    # n = max(1, fan): a scalar variable gets std sqrt(scale)
    x = run([tf.variance_scaling_initializer(4.0, distribution="untruncated_normal", seed=i)([]) for i in range(2000)])
    assert abs(np.std(x) - 2.0) < 0.15


@pytest.mark.parametrize("make,scale,mode,distribution", [
    (tf.glorot_uniform_initializer, 1.0, "fan_avg", "uniform"),
    (tf.glorot_normal_initializer, 1.0, "fan_avg", "truncated_normal"),
    (tf.initializers.he_normal, 2.0, "fan_in", "truncated_normal"),
    (tf.initializers.he_uniform, 2.0, "fan_in", "uniform"),
    (tf.initializers.lecun_normal, 1.0, "fan_in", "truncated_normal"),
    (tf.initializers.lecun_uniform, 1.0, "fan_in", "uniform"),
])
def test_named_variance_scalings(make, scale, mode, distribution):
    init = make(seed=7)
    assert (init.scale, init.mode, init.distribution, init.seed) == (scale, mode, distribution, 7)


def test_variance_scaling_argument_errors():
    with pytest.raises(ValueError, match="scale"):
        tf.variance_scaling_initializer(scale=0.0)
    with pytest.raises(ValueError, match="mode"):
        tf.variance_scaling_initializer(mode="fan_max")
    with pytest.raises(ValueError, match="distribution"):
        tf.variance_scaling_initializer(distribution="cauchy")
    assert tf.variance_scaling_initializer(distribution="UNIFORM").distribution == "uniform"


# -- orthogonal ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,gain", [([6, 4], 1.0), ([4, 6], 1.0), ([5, 5], 2.0), ([2, 3, 4], 0.5),
                                        ([2, 2, 3, 10], 1.5)])
def test_orthogonal_is_orthogonal_times_gain(shape, gain):
    x = init_value(tf.orthogonal_initializer(gain=gain, seed=3), shape, tf.float64)
    assert x.shape == tuple(shape)
    m = x.reshape(-1, shape[-1])
    small = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    np.testing.assert_allclose(small, gain**2 * np.eye(small.shape[0]), atol=1e-10)


def test_orthogonal_sign_correction_makes_r_diagonal_positive():
    # Q = A R^-1 with R's diagonal made positive: Q^T A is upper triangular with a positive diagonal.
    tf.set_random_seed(5)
    x = init_value(tf.orthogonal_initializer(seed=1), [8, 5], tf.float64)
    tf.reset_default_graph()
    tf.set_random_seed(5)
    a = run(tf.random_normal([8, 5], dtype=tf.float64, seed=1))
    r = x.T @ a
    np.testing.assert_allclose(np.tril(r, -1), 0, atol=1e-10)
    assert np.all(np.diag(r) > 0)


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="two-dimensional"):
        tf.orthogonal_initializer()([3])
    with pytest.raises(ValueError, match="floating point"):
        tf.orthogonal_initializer(dtype=tf.int32)


# -- seeds -------------------------------------------------------------------------------------------------

SEEDED = [
    lambda seed: tf.random_normal_initializer(seed=seed),
    lambda seed: tf.truncated_normal_initializer(seed=seed),
    lambda seed: tf.random_uniform_initializer(seed=seed),
    lambda seed: tf.uniform_unit_scaling_initializer(seed=seed),
    lambda seed: tf.variance_scaling_initializer(seed=seed),
    lambda seed: tf.glorot_uniform_initializer(seed=seed),
    lambda seed: tf.orthogonal_initializer(seed=seed),
]


@pytest.mark.parametrize("make", SEEDED)
def test_op_seed_repeats_across_sessions_and_graphs(make):
    def draw(seed):
        with tf.Graph().as_default():
            v = tf.get_variable("v", [6, 5], initializer=make(seed))
            with tf.Session() as s:
                s.run(v.initializer)
                return s.run(v)

    np.testing.assert_array_equal(draw(3), draw(3))
    assert not np.array_equal(draw(3), draw(4))


@pytest.mark.parametrize("make", SEEDED)
def test_graph_seed_makes_unseeded_initializers_repeatable(make):
    def draw():
        with tf.Graph().as_default():
            tf.set_random_seed(11)
            init = make(None)
            a = tf.get_variable("a", [6, 5], initializer=init)
            b = tf.get_variable("b", [6, 5], initializer=init)
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                return s.run([a, b])

    (a1, b1), (a2, b2) = draw(), draw()
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(b1, b2)
    assert not np.array_equal(a1, b1)  # successive unseeded ops differ, as in TF1


def test_same_op_seed_gives_same_values_to_two_variables():
    init = tf.random_normal_initializer(seed=9)
    a = tf.get_variable("a", [10], initializer=init)
    b = tf.get_variable("b", [10], initializer=init)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        va, vb = s.run([a, b])
    np.testing.assert_array_equal(va, vb)


def test_seed_reaches_the_random_op():
    t = tf.random_uniform_initializer(seed=17)([2])
    assert t.op.type == "RandomUniform" and t.op.get_attr("seed2") == 17


# -- get_variable ----------------------------------------------------------------------------------------

def test_get_variable_default_is_glorot_uniform():
    fan_in, fan_out = 300, 200
    w = tf.get_variable("w", [fan_in, fan_out])
    assert w.initial_value.name == "w/Initializer/random_uniform:0"
    with tf.Session() as s:
        s.run(w.initializer)
        x = s.run(w)
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    assert np.abs(x).max() <= limit and np.abs(x).max() > 0.99 * limit
    assert abs(x.std() - limit / math.sqrt(3)) < 0.02 * limit


@pytest.mark.parametrize("dtype,zero", [(tf.int32, 0), (tf.int64, 0), (tf.bool, False), (tf.string, b"")])
def test_get_variable_default_for_non_floats_is_zeros(dtype, zero):
    v = tf.get_variable("v", [3], dtype=dtype)
    assert v.initial_value.name == "v/Initializer/zeros:0"
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(v).tolist() == [zero] * 3


def test_get_variable_needs_an_initializer_for_complex():
    with pytest.raises(ValueError, match="An initializer for variable c"):
        tf.get_variable("c", [2], dtype=tf.complex64)


@pytest.mark.parametrize("init", [tf.zeros_initializer, tf.zeros_initializer()])
def test_get_variable_takes_an_initializer_class_or_instance(init):
    v = tf.get_variable("v", [2, 2], initializer=init)
    assert v.initial_value.name == "v/Initializer/zeros:0"
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(v).tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_initializer_classes_in_get_variable_and_variable_scope():
    with tf.variable_scope("layer", initializer=tf.ones_initializer):
        o = tf.get_variable("o", [2])
        i = tf.get_variable("i", [2], dtype=tf.int32)
    g = tf.get_variable("g", [30, 20], initializer=tf.glorot_uniform_initializer)
    r = tf.get_variable("r", [2], initializer=tf.random_normal_initializer)
    assert r.initial_value.name == "r/Initializer/random_normal:0"
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(o).tolist() == [1.0, 1.0]
        assert s.run(i).tolist() == [1, 1]
        assert np.abs(s.run(g)).max() <= math.sqrt(6.0 / 50)
    # Classes still construct normally.
    assert tf.zeros_initializer(dtype=tf.int32).dtype == tf.int32
    assert isinstance(tf.glorot_uniform_initializer(), tf.variance_scaling_initializer)


@pytest.mark.parametrize("init,shape,name", [
    (tf.zeros_initializer(), [2, 3], "zeros"),
    (tf.zeros_initializer(), [100, 30], "zeros"),
    (tf.ones_initializer(), [2, 3], "ones"),
    (tf.constant_initializer([1, 2, 3, 4]), [2, 3], "Const"),
    (tf.random_normal_initializer(1.0, 2.0), [2, 3], "random_normal"),
    (tf.truncated_normal_initializer(), [2, 3], "truncated_normal"),
    (tf.random_uniform_initializer(-1.0, 1.0), [2, 3], "random_uniform"),
    (tf.uniform_unit_scaling_initializer(), [2, 3], "random_uniform"),
    (tf.variance_scaling_initializer(), [2, 3], "truncated_normal"),
    (tf.variance_scaling_initializer(distribution="uniform"), [2, 3], "random_uniform"),
    (tf.variance_scaling_initializer(distribution="untruncated_normal"), [2, 3], "random_normal"),
    (tf.glorot_normal_initializer(), [2, 3], "truncated_normal"),
    (tf.orthogonal_initializer(), [2, 3], "mul_1"),
    (tf.orthogonal_initializer(gain=2.0), [4, 3], "mul_1"),
    (tf.initializers.identity(), [2, 3], "mul"),
])
def test_initializer_op_names_inside_get_variable(init, shape, name):
    v = tf.get_variable("w", shape, initializer=init)
    assert v.initial_value.name == f"w/Initializer/{name}:0"


def test_orthogonal_op_names_match_tf1():
    tf.get_variable("o", [2, 3], initializer=tf.orthogonal_initializer())
    names = {op.name for op in tf.get_default_graph().get_operations()}
    for n in ("random_normal", "Qr", "DiagPart", "Sign", "mul", "matrix_transpose/transpose", "Reshape", "mul_1"):
        assert f"o/Initializer/{n}" in names


@pytest.mark.parametrize("init", [
    tf.ones_initializer(), tf.constant_initializer([4, 5, 6]), tf.random_uniform_initializer(3, 7, seed=1),
])
@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_integer_variables_with_integer_initializers(init, dtype):
    v = tf.get_variable("v", [3], dtype=dtype, initializer=init)
    with tf.Session() as s:
        s.run(v.initializer)
        x = s.run(v)
    assert v.dtype == dtype and x.dtype == dtype.as_numpy_dtype
    assert np.all((x >= 1) & (x <= 6))


@pytest.mark.parametrize("make", [
    lambda: tf.random_normal_initializer(), lambda: tf.truncated_normal_initializer(),
    lambda: tf.variance_scaling_initializer(), lambda: tf.glorot_uniform_initializer(),
    lambda: tf.glorot_normal_initializer(),
])
def test_float_only_initializers_reject_integer_variables(make):
    with pytest.raises(TypeError):
        tf.get_variable("v", [3, 3], dtype=tf.int32, initializer=make())


@pytest.mark.parametrize("cls", [
    tf.random_normal_initializer, tf.truncated_normal_initializer, tf.uniform_unit_scaling_initializer,
    tf.variance_scaling_initializer, tf.glorot_uniform_initializer, tf.glorot_normal_initializer,
    tf.orthogonal_initializer,
])
def test_float_only_initializers_reject_integer_dtype_at_construction(cls):
    with pytest.raises(ValueError, match="floating point"):
        cls(dtype=tf.int32)


def test_constructor_dtype_is_the_default_and_call_dtype_wins():
    init = tf.random_normal_initializer(dtype=tf.float64)
    assert init([2]).dtype == tf.float64
    assert init([2], dtype=tf.float16).dtype == tf.float16
    assert tf.glorot_uniform_initializer(dtype=tf.float64)([2, 2]).dtype == tf.float64


# -- configs -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("init,config", [
    (tf.zeros_initializer(), {"dtype": "float32"}),
    (tf.ones_initializer(dtype=tf.int32), {"dtype": "int32"}),
    (tf.constant_initializer([1, 2], verify_shape=True), {"value": [1, 2], "dtype": "float32"}),
    (tf.random_uniform_initializer(), {"minval": 0.0, "maxval": None, "seed": None, "dtype": "float32"}),
    (tf.random_normal_initializer(1.0, 2.0, seed=3), {"mean": 1.0, "stddev": 2.0, "seed": 3, "dtype": "float32"}),
    (tf.truncated_normal_initializer(), {"mean": 0.0, "stddev": 1.0, "seed": None, "dtype": "float32"}),
    (tf.uniform_unit_scaling_initializer(), {"factor": 1.0, "seed": None, "dtype": "float32"}),
    (tf.variance_scaling_initializer(), {"scale": 1.0, "mode": "fan_in", "distribution": "truncated_normal",
                                         "seed": None, "dtype": "float32"}),
    (tf.initializers.he_normal(), {"scale": 2.0, "mode": "fan_in", "distribution": "truncated_normal",
                                   "seed": None, "dtype": "float32"}),
    (tf.glorot_uniform_initializer(seed=3), {"seed": 3, "dtype": "float32"}),
    (tf.glorot_normal_initializer(), {"seed": None, "dtype": "float32"}),
    (tf.orthogonal_initializer(), {"gain": 1.0, "seed": None, "dtype": "float32"}),
    (tf.initializers.identity(), {"gain": 1.0, "dtype": "float32"}),
])
def test_get_config_matches_tf1_and_round_trips(init, config):
    assert init.get_config() == config
    again = type(init).from_config(init.get_config())
    assert type(again) is type(init) and again.get_config() == config


def test_base_initializer_is_abstract():
    from dflow.ops.state.init_ops import Initializer

    with pytest.raises(NotImplementedError):
        Initializer()([2])
    assert Initializer().get_config() == {}
