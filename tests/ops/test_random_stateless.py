"""tf.random.stateless_* and tf.random.Generator against TensorFlow 2.15's own numbers.

dflow reproduces TF's Philox4x32-10 streams and its samplers, so the figures
below (read from TF, scripts under /tmp/ref/mathsig/) are matched value for
value: exactly for integers, to float rounding for floats.
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def run(fetches, init=False):
    with tf.Session() as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


TF = {
    ("u", "float32"): [0.8440604209899902, 0.19204533100128174, 0.9962232112884521, 0.16038739681243896,
                       0.27199018001556396, 0.6493459939956665, 0.10694444179534912],
    ("n", "float32"): [0.544110119342804, 0.20738030970096588, 0.0735643208026886, 0.04643455147743225,
                       -1.301589846611023, -0.9538565278053284, 0.8417285680770874],
    ("t", "float32"): [-0.17393383383750916, 1.6723546981811523, 0.3481701612472534, -1.7038906812667847,
                       0.6385190486907959, -1.309924602508545, -0.010434313677251339, -1.0422205924987793,
                       -0.7741751074790955],
    ("u", "float64"): [0.7524837538451801, 0.9697857725627486, 0.17592233912897481, 0.8555556648693279,
                       0.514811871731222, 0.6077450497806227, 0.8271102573257645],
    ("n", "float64"): [-0.1423118100189212, 0.7406072461585091, -1.469047669443883, 1.147747453689489,
                       -0.7218813856153005, -0.898217540706226, 0.6003592788009644],
    ("t", "float64"): [-0.33108455971554474, 0.027812399664981575, -0.3426617871510759, 0.7552056484940203,
                       -0.5822817890198345, -0.43863140118077787, -0.781986318355857, -0.48654446141312196,
                       0.33739661365430873],
    ("u", "float16"): [0.54296875, 0.2353515625, 0.060546875, 0.8935546875, 0.1435546875, 0.4423828125,
                       0.0888671875],
    ("n", "float16"): [0.5439453125, 0.2073974609375, 0.07354736328125, 0.04644775390625, -1.3017578125,
                       -0.95361328125, 0.841796875],
    ("t", "float16"): [-0.1739501953125, 1.671875, 0.34814453125, -1.7041015625, 0.638671875, -1.3095703125,
                       -0.01043701171875, -1.0419921875, -0.7744140625],
}


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.float16], ids=lambda d: d.name)
def test_uniform_normal_truncated_match_tf(dtype):
    with tf.Graph().as_default():
        u = tf.random.stateless_uniform([7], seed=[1, 2], dtype=dtype)
        n = tf.random.stateless_normal([7], seed=[1, 2], dtype=dtype)
        t = tf.random.stateless_truncated_normal([9], seed=[3, 4], dtype=dtype)
        assert u.name == "stateless_random_uniform:0" and n.name == "stateless_random_normal:0"
        assert u.shape.as_list() == [7] and t.dtype == dtype
        got = run({"u": u, "n": n, "t": t})
    tol = {tf.float16: 1e-3, tf.float32: 1e-6, tf.float64: 1e-14}[dtype]
    for key in ("u", "n", "t"):
        assert got[key].dtype == dtype.as_numpy_dtype
        np.testing.assert_allclose(got[key], TF[(key, dtype.name)], rtol=tol, atol=tol, err_msg=key)


def test_integers_categorical_and_seeds_match_tf():
    with tf.Graph().as_default():
        out = run({
            "i32": tf.random.stateless_uniform([6], seed=[5, 6], minval=-3, maxval=10, dtype=tf.int32),
            "i64": tf.random.stateless_uniform([6], seed=[5, 6], minval=-3, maxval=1000, dtype=tf.int64),
            "full_u32": tf.random.stateless_uniform([5], seed=[1, 2], dtype=tf.uint32, minval=None, maxval=None),
            "seed64": tf.random.stateless_uniform([3], seed=tf.constant([2**40 + 7, -5], tf.int64)),
            "cat": tf.random.stateless_categorical(tf.math.log([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]]), 6, seed=[7, 8]),
            "mult": tf.random.stateless_multinomial([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], 5, seed=[2, 3],
                                                    output_dtype=tf.int32),
            "split": tf.random.split([1, 2], 3), "fold": tf.random.fold_in([1, 2], 7),
            "split64": tf.random.split(tf.constant([1, 2], tf.int64)),
            "fold64": tf.random.fold_in(tf.constant([3, 4], tf.int64), tf.constant(9, tf.int64)),
        })
    want = {  # TF
        "i32": [9, 3, 6, 1, 7, 5], "i64": [41, 849, 380, 28, 701, 520],
        "full_u32": [1105988140, 1738052849, 3959391294, 370444179, 10670227],
        "cat": [[2, 2, 2, 1, 1, 0], [1, 1, 0, 0, 0, 0]], "mult": [[1, 1, 1, 0, 1], [2, 2, 2, 2, 0]],
        "split": [[1105988140, 1738052849], [-335576002, 370444179], [10670227, -246211131]],
        "fold": [1105988140, 7],
        "split64": [[7464880146280614444, 1591045637757961278], [-1057468755545501549, 2524363516007002203]],
        "fold64": [-2882898006462487541, 9],
    }
    for key, value in want.items():
        np.testing.assert_array_equal(out[key], value, err_msg=key)
    assert out["cat"].dtype == np.int64 and out["mult"].dtype == np.int32 and out["full_u32"].dtype == np.uint32
    np.testing.assert_allclose(out["seed64"], [0.10893285274505615, 0.44255077838897705, 0.9949245452880859])


def test_rejection_samplers_match_tf():
    with tf.Graph().as_default():
        out = run({
            "poisson_f32": tf.random.stateless_poisson([4, 3], seed=[1, 2], lam=[0.5, 4.0, 30.0]),
            "poisson_f64": tf.random.stateless_poisson([3, 3], seed=[3, 4], lam=tf.constant([2.0, 15.0, 200.0],
                                                                                           tf.float64),
                                                       dtype=tf.float64),
            "poisson_i32": tf.random.stateless_poisson([5], seed=[5, 6], lam=7.5, dtype=tf.int32),
            "gamma_f32": tf.random.stateless_gamma([4, 3], seed=[1, 2], alpha=[0.3, 1.0, 5.0]),
            "gamma_f64": tf.random.stateless_gamma([3, 2], seed=[7, 8], alpha=tf.constant([2.5, 0.7], tf.float64),
                                                   beta=tf.constant([1.0, 3.0], tf.float64), dtype=tf.float64),
            "binom": tf.random.stateless_binomial([4, 4], seed=[1, 2], counts=[5.0, 40.0, 100.0, 20.0],
                                                  probs=[0.3, 0.6, 0.2, 0.97]),
            "binom_i": tf.random.stateless_binomial([6], seed=[3, 9], counts=50, probs=0.5, output_dtype=tf.int64),
            "ptn": tf.random.stateless_parameterized_truncated_normal([6], seed=[1, 2], means=0.0, stddevs=1.0,
                                                                      minvals=-1.0, maxvals=1.0),
            "ptn2": tf.random.stateless_parameterized_truncated_normal(
                [2, 3], seed=[4, 2], means=[1.0, 2.0, 3.0], stddevs=[1.0, 0.5, 2.0], minvals=[0.0, 2.5, -10.0],
                maxvals=[5.0, 10.0, 0.0]),
        })
    exact = {  # TF
        "poisson_f32": [[3, 4, 23], [2, 7, 33], [1, 0, 30], [3, 6, 27]],
        "poisson_f64": [[3.0, 15.0, 189.0], [2.0, 9.0, 205.0], [0.0, 22.0, 211.0]],
        "poisson_i32": [4, 6, 9, 7, 6],
        "binom": [[3, 27, 15, 20], [2, 21, 22, 20], [2, 24, 20, 19], [2, 24, 18, 19]],
        "binom_i": [20, 24, 29, 24, 25, 25],
    }
    for key, value in exact.items():
        np.testing.assert_array_equal(out[key], value, err_msg=key)
    close = {  # TF
        "gamma_f32": [[0.0057749091647565365, 0.22994834184646606, 6.500456809997559],
                      [0.31249719858169556, 1.1978732347488403, 5.008545875549316],
                      [0.027091871947050095, 0.017336418852210045, 4.2423996925354],
                      [0.003847158746793866, 1.8682763576507568, 2.5542960166931152]],
        "gamma_f64": [[1.2252153517479334, 0.0871989555960267], [2.1666567275559676, 0.2520981999254011],
                      [1.4730169170995662, 0.2601052218942829]],
        "ptn": [0.6881208419799805, -0.6159093379974365, 0.9924464225769043, -0.6792252063751221,
                -0.12129712104797363, -0.8304636478424072],
        "ptn2": [[1.9998834133148193, 2.5128273963928223, -1.108083724975586],
                 [0.14017152786254883, 2.690535068511963, -1.7315568923950195]],
    }
    for key, value in close.items():
        np.testing.assert_allclose(out[key], value, rtol=1e-6, atol=1e-6, err_msg=key)
    assert out["poisson_f32"].dtype == np.int32 and out["binom"].dtype == np.int32


def test_gamma_gradient_matches_tf():
    with tf.Graph().as_default():
        a = tf.constant([0.5, 2.0, 7.0], tf.float64)
        g = tf.random.stateless_gamma([2, 3], seed=[1, 2], alpha=a, dtype=tf.float64)
        value, grad = run([g, tf.gradients(g, a)[0]])
    np.testing.assert_allclose(value, [[0.06695361, 3.33600669, 7.79681443],  # TF
                                       [0.62823545, 2.21828049, 6.31725877]], rtol=1e-7)
    np.testing.assert_allclose(grad, [1.891662241455093, 2.5318211479450228, 2.052768658793284], rtol=1e-9)  # TF


def test_same_seed_same_values_and_distributions():
    with tf.Graph().as_default():
        seed = tf.placeholder(tf.int32, [2])
        x = tf.random.stateless_normal([20000], seed=seed, mean=3.0, stddev=2.0)
        p = tf.random.stateless_poisson([20000], seed=seed, lam=3.5, dtype=tf.float32)
        b = tf.random.stateless_binomial([20000], seed=seed, counts=30.0, probs=0.4)
        with tf.Session() as sess:
            a1, p1, b1 = sess.run([x, p, b], {seed: [4, 5]})
            a2 = sess.run(x, {seed: [4, 5]})
            a3 = sess.run(x, {seed: [4, 6]})
    np.testing.assert_array_equal(a1, a2)
    assert not np.array_equal(a1, a3)
    assert abs(a1.mean() - 3.0) < 0.05 and abs(a1.std() - 2.0) < 0.05
    assert abs(p1.mean() - 3.5) < 0.06 and abs(p1.var() - 3.5) < 0.15
    assert abs(b1.mean() - 12.0) < 0.1 and abs(b1.var() - 7.2) < 0.3


def test_generator_matches_tf():
    with tf.Graph().as_default():
        gen = tf.random.Generator.from_seed(1234)
        n = gen.normal([5])
        u = gen.uniform([3])
        g77 = tf.random.Generator.from_seed(77)
        fetches = {"seeds": g77.make_seeds(2), "t": g77.truncated_normal([5], dtype=tf.float64),
                   "ui": g77.uniform([4], minval=-5, maxval=5, dtype=tf.int64),
                   "fi": g77.uniform_full_int([3], dtype=tf.int32),
                   "bin": g77.binomial([3, 2], counts=[10.0, 40.0], probs=[0.5, 0.3])}
        kc = tf.random.Generator.from_key_counter(key=5, counter=[7, 0], alg="philox").uniform([3], dtype=tf.float64)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            n1, n2 = sess.run(n), sess.run(n)
            state1 = sess.run(gen.state)
            u1 = sess.run(u)
            state2 = sess.run(gen.state)
            out = {k: sess.run(v) for k, v in fetches.items()}
            state77 = sess.run(g77.state)
            kc1 = sess.run(kc)
            state = sess.run([tf.random.create_rng_state(12345, "philox"), tf.random.create_rng_state([1, 2], 1)])
    np.testing.assert_allclose(n1, [0.9356608986854553, 1.0854305028915405, -0.937883734703064,  # TF
                                    -0.5061547160148621, 1.3169702291488647], rtol=1e-6)
    np.testing.assert_allclose(n2, [-1.049599051475525, 1.7438730001449585, -0.08444958925247192,  # TF
                                    0.43036046624183655, 1.9415148496627808], rtol=1e-5)
    np.testing.assert_allclose(u1, [0.021788835525512695, 0.043053388595581055, 0.90468430519104], rtol=1e-6)
    assert state1.tolist() == [3794, 0, 0] and state2.tolist() == [4562, 0, 0]  # TF
    np.testing.assert_array_equal(out["seeds"], [[7634460209262063191, 6920989615798299887], [0, 0]])  # TF
    np.testing.assert_allclose(out["t"], [0.027000133011570556, 0.7824464371977072, 0.498569883631328,  # TF
                                          -0.27614639578471056, 1.3399195433126692], rtol=1e-12)
    np.testing.assert_array_equal(out["ui"], [0, -3, 1, 3])  # TF
    np.testing.assert_array_equal(out["fi"], [-1170432009, 412206314, -2115994135])  # TF
    np.testing.assert_array_equal(out["bin"], [[5, 8], [4, 9], [2, 16]])  # TF
    assert state77.tolist() == [157261, 0, 0]  # TF
    np.testing.assert_allclose(kc1, [0.24902972606946205, 0.06461821457332251, 0.28107269389284184], rtol=1e-12)
    assert state[0].tolist() == [12345, 0, 0] and state[1].tolist() == [0, 1, 2]  # TF


def test_generator_skip_matches_tf():
    with tf.Graph().as_default():
        g = tf.random.Generator.from_seed(5)
        before = g.skip(3)
        n = g.normal([2])
        assert before.name == "RngReadAndSkip:0" and before.shape.as_list() == [3]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            old = sess.run(before)
            state = sess.run(g.state)
            values = sess.run(n)
    assert old.tolist() == [5, 0, 0] and state.tolist() == [773, 0, 0]  # TF
    np.testing.assert_allclose(values, [-1.6569936, 0.98407227], rtol=1e-6)  # TF


def test_global_generator_and_split():
    with tf.Graph().as_default():
        g = tf.random.get_global_generator()
        assert tf.random.get_global_generator() is g
        mine = tf.random.Generator.from_seed(3)
        tf.random.set_global_generator(mine)
        assert tf.random.get_global_generator() is mine
        children = mine.split(2)
        draws = [c.normal([3]) for c in children]
        a, b = run(draws, init=True)
        assert not np.array_equal(a, b)
        with pytest.raises(TypeError):
            tf.random.set_global_generator(3)
        with pytest.raises(NotImplementedError, match="Philox"):
            tf.random.Generator.from_seed(1, alg="threefry")


def test_bad_arguments():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="minval"):
            tf.random.stateless_uniform([2], seed=[1, 2], minval=1, dtype=tf.int32)
        with pytest.raises(ValueError):
            tf.random.stateless_uniform([2], seed=[1, 2, 3])
        bad = tf.random.stateless_uniform([2], seed=[1, 2], minval=5, maxval=5, dtype=tf.int32)
        with pytest.raises(tf.errors.InvalidArgumentError, match="minval < maxval"):
            run(bad)
        ptn = tf.random.stateless_parameterized_truncated_normal([2], seed=[1, 2], stddevs=-1.0)
        with pytest.raises(tf.errors.InvalidArgumentError, match="stddevs"):
            run(ptn)
        with pytest.raises(tf.errors.InvalidArgumentError, match="broadcasted shape"):
            run(tf.random.stateless_poisson([2, 3], seed=[1, 2], lam=[1.0, 2.0]))
