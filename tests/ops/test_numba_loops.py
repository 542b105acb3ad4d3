"""The compiled loops (``dflow/kernels/numba_loops.py``) give what the numpy kernels give, bit for bit.

Adam and ReluGrad run on Numba from ``_numba.ELEMENTS`` elements; each case here runs the
same update both ways (the numpy kernels under ``_numba.disabled()``) and compares the bits.
The numpy kernels themselves are checked against TF's figures in ``tests/train/test_optimizers.py``
and ``tests/ops/test_nn_activations*.py``. Skipped where Numba is not installed.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import dflow as tf
from dflow.kernels import blas as _blas
from dflow.kernels import numba_loops as _numba
from dflow.ops.nn.nn_activations import _relu_grad
from dflow.train.optimizers.adam import _apply_adam, _apply_adam_in_place

pytestmark = pytest.mark.skipif(not _numba.available(), reason=f"Numba not used: {_numba.why_not()}")


def _adam_case(dtype, size, seed=0, special=False):
    rng = np.random.default_rng(seed)
    var = rng.standard_normal(size).astype(dtype)
    m = (rng.standard_normal(size) * 0.1).astype(dtype)
    v = np.abs(rng.standard_normal(size) * 0.01).astype(dtype)
    grad = rng.standard_normal(size).astype(dtype)
    if special:  # zeros, infinities and nans: the loop must do what numpy's calls do with them
        grad[:4] = [0, np.inf, -np.inf, np.nan]
        v[4:8] = 0
        grad[4:8] = 0
        m[8] = np.nan
    t = np.dtype(dtype).type
    scalars = (t(0.9 ** 3), t(0.999 ** 3), t(1e-3), t(0.9), t(0.999), t(1e-8 if not special else 0))
    return var, m, v, grad, scalars


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("size, special", [(1 << 10, False), (3 * 1031, True), (100_003, False),
                                           ((_blas.PARALLEL_ELEMENTS * 3) // 2 + 7, False)])
def test_adam_equals_the_numpy_kernel_bit_for_bit(dtype, nesterov, size, special):
    var, m, v, grad, scalars = _adam_case(dtype, size, special=special)
    with _numba.disabled(), np.errstate(divide="ignore", invalid="ignore"):
        want = [a.copy() for a in (var, m, v)]
        _apply_adam_in_place(*want, *scalars, grad, nesterov)
    assert _numba.usable(var, m, v, grad)
    got = [a.copy() for a in (var, m, v)]
    _apply_adam_in_place(*got, *scalars, grad, nesterov)
    for g, w in zip(got, want):
        assert g.dtype == dtype
        np.testing.assert_array_equal(g.view(f"u{g.itemsize}"), w.view(f"u{w.itemsize}"))
    fresh = _apply_adam(var, m, v, *scalars, grad, nesterov)  # new arrays, the inputs untouched
    for f, g in zip(fresh, got):
        np.testing.assert_array_equal(f.view(f"u{f.itemsize}"), g.view(f"u{g.itemsize}"))
    np.testing.assert_array_equal(var, _adam_case(dtype, size, special=special)[0])


def test_adam_training_step_matches_on_both_kernels():
    """A model's whole Adam step (variables updated in place in a session) on either kernel."""
    def train(steps=3):
        g = tf.Graph()
        with g.as_default():
            tf.set_random_seed(3)
            x = tf.constant(np.random.default_rng(1).standard_normal((16, 300)).astype(np.float32))
            h = tf.layers.dense(x, 200, activation=tf.nn.relu)
            loss = tf.reduce_mean(tf.square(tf.layers.dense(h, 1)))
            step = tf.train.AdamOptimizer(0.01).minimize(loss)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(steps):
                    sess.run(step)
                return sess.run(tf.trainable_variables())
    compiled = train()
    with _numba.disabled():
        numpy_ = train()
    assert compiled[0].size >= _numba.ELEMENTS
    for a, b in zip(compiled, numpy_):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 28, 28, 32), (1024,), (3, 1001)])
def test_relu_grad_equals_the_numpy_kernel_bit_for_bit(dtype, shape):
    rng = np.random.default_rng(2)
    g = rng.standard_normal(shape).astype(dtype)
    x = rng.standard_normal(shape).astype(dtype)
    flat_g, flat_x = g.reshape(-1), x.reshape(-1)
    flat_g[:6] = [np.nan, np.inf, -np.inf, -1.5, 2.0, np.nan]
    flat_x[:6] = [-1.0, 0.0, -2.0, -0.0, np.nan, 3.0]  # nan * 0 and inf * 0 are nan; -1.5 * 0 is -0
    with _numba.disabled(), np.errstate(invalid="ignore"):
        want = _relu_grad(g, x)
    got = _relu_grad(g, x)
    assert _numba.usable(g, x) and got.shape == shape and got.dtype == dtype
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))
    flat = got.reshape(-1)
    assert np.isnan(flat[[0, 1, 2, 5]]).all() and np.signbit(flat[3]) and flat[4] == 0


def test_what_the_loops_take():
    big = np.ones(_numba.ELEMENTS, np.float32)
    assert _numba.usable(big, big)
    assert not _numba.usable(big[: _numba.ELEMENTS - 1])  # small: numpy
    assert not _numba.usable(big.astype(np.float16))
    assert not _numba.usable(big.astype(np.int32))
    assert not _numba.usable(big, big.astype(np.float64))  # mixed dtypes
    assert not _numba.usable(np.ones((64, 64), np.float32).T[:, ::2].copy(order="F"))
    assert not _numba.usable(np.ones(2 * _numba.ELEMENTS, np.float32)[::2])  # strided
    with _numba.disabled():
        assert not _numba.usable(big) and not _numba.available()
    assert _numba.usable(big)


def test_switched_off_runs_the_numpy_kernels():
    code = ("import numpy as np, dflow as tf; from dflow.kernels import numba_loops as _numba\n"
            "v = tf.Variable(np.ones(5000, np.float32)); loss = tf.reduce_sum(tf.nn.relu(v) * 2.0)\n"
            "step = tf.train.AdamOptimizer(0.1).minimize(loss)\n"
            "s = tf.Session(); s.run(tf.global_variables_initializer()); s.run(step)\n"
            "print(s.run(v)[0], _numba.why_not(), 'numba' in __import__('sys').modules)")
    env = dict(os.environ, DFLOW_NUMBA="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0.90000004", "DFLOW_NUMBA", "turns", "it", "off", "False"]


def test_without_a_writable_cache_the_loops_compile_in_the_process(monkeypatch):
    """Numba's ``cache=True`` raises where no cache directory can be written (a read-only
    install and home); ``kernel`` then compiles without the cache."""
    numba = _numba._load()
    calls = []

    def njit(**options):
        calls.append(options)
        if options.get("cache"):
            raise RuntimeError("cannot cache function: no locator available")
        return numba.njit(**options)

    def loop(a, out):
        for i in range(a.shape[0]):
            out[i] = a[i] * 2

    monkeypatch.setattr(_numba, "_module", type("numba", (), {"njit": staticmethod(njit)}))
    fn = _numba.kernel(loop)
    a = np.arange(5, dtype=np.float32)
    out = np.empty_like(a)
    fn(a, out)
    np.testing.assert_array_equal(out, a * 2)
    assert [c.get("cache", False) for c in calls] == [True, False]
    _numba._compiled.pop(loop)
