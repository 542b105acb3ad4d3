"""Convolutions through oneDNN (``dflow/kernels/onednn.py``) give what dflow's numpy kernels give.

Every case runs the same graph twice, on oneDNN and on the numpy kernels (``_onednn.disabled``),
and compares the forward pass and both gradients; the numpy kernels themselves are checked
against TF's figures in ``test_conv_ops.py`` and ``test_conv_variants.py``. Skipped where
oneDNN is not installed (not Linux x86-64).
"""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import dflow as tf
from dflow.kernels import blas as _blas
from dflow.kernels import dnnl as _dnnl
from dflow.kernels import onednn as _onednn

pytestmark = pytest.mark.skipif(not _onednn.available(), reason=f"oneDNN not used: {_onednn.why_not()}")


# (name, input shape, filter shape, strides, padding, dilations, data_format)
CASES = [
    ("same_5x5", (4, 14, 14, 8), (5, 5, 8, 16), 1, "SAME", 1, "NHWC"),
    ("valid_3x3", (3, 9, 11, 5), (3, 3, 5, 7), 1, "VALID", 1, "NHWC"),
    ("one_channel", (4, 28, 28, 1), (5, 5, 1, 32), 1, "SAME", 1, "NHWC"),
    ("stride_2_same_odd", (2, 13, 10, 3), (3, 3, 3, 4), 2, "SAME", 1, "NHWC"),
    # VALID with rows left over after the last window (oneDNN's right padding is negative)
    ("stride_3_valid_leftover", (2, 14, 15, 3), (4, 2, 3, 6), [1, 3, 2, 1], "VALID", 1, "NHWC"),
    ("dilated", (2, 15, 12, 4), (3, 3, 4, 5), 1, "SAME", [1, 2, 3, 1], "NHWC"),
    ("explicit", (2, 7, 8, 3), (3, 2, 3, 4), [1, 2, 1, 1], [[0, 0], [1, 2], [0, 3], [0, 0]], 1, "NHWC"),
    ("kernel_as_input", (2, 5, 5, 3), (5, 5, 3, 2), 1, "VALID", 1, "NHWC"),
    ("nchw", (3, 6, 10, 9), (3, 3, 6, 4), [1, 1, 2, 1], "SAME", 1, "NCHW"),
    ("grouped", (2, 9, 9, 8), (3, 3, 4, 6), 1, "SAME", 1, "NHWC"),  # two groups of 4 -> 3 channels
    ("grouped_nchw_strided", (2, 12, 7, 9), (2, 3, 3, 8), [1, 1, 2, 1], "VALID", 1, "NCHW"),
    ("conv3d", (2, 5, 6, 7, 3), (2, 3, 3, 3, 4), [1, 1, 2, 1, 1], "SAME", 1, "NDHWC"),
    ("conv3d_ncdhw", (2, 3, 5, 6, 4), (3, 2, 2, 3, 2), 1, "VALID", 1, "NCDHW"),
]


def _graph(case, fused=False):
    _, x_shape, w_shape, strides, padding, dilations, data_format = case
    rng = np.random.default_rng(len(x_shape) * 7 + w_shape[0])
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(rng.standard_normal(x_shape).astype(np.float32))
        w = tf.constant(rng.standard_normal(w_shape).astype(np.float32))
        conv = tf.nn.conv2d if len(x_shape) == 4 else tf.nn.conv3d
        if len(x_shape) == 5 and not isinstance(strides, list):
            strides = [1] * 5
        kwargs = {} if dilations == 1 else {"dilations": dilations}
        if isinstance(strides, int):
            strides = [1, strides, strides, 1] if data_format == "NHWC" else [1, 1, strides, strides]
        y = conv(x, w, strides, padding, data_format=data_format, **kwargs)
        if fused:
            b = tf.constant(rng.standard_normal(w_shape[-1]).astype(np.float32))
            y = tf.nn.relu(tf.nn.bias_add(y, b, data_format=data_format))
        target = tf.reduce_sum(y * tf.constant(rng.standard_normal(y.shape.as_list()).astype(np.float32)))
        fetches = [y, *tf.gradients(target, [x, w])]
    return g, fetches


def _run(case, numpy_kernels=False, fused=False):
    g, fetches = _graph(case, fused)
    with tf.Session(graph=g) as sess:
        if numpy_kernels:
            with _onednn.disabled():
                return sess.run(fetches)
        return sess.run(fetches)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_the_numpy_kernels(case):
    want = _run(case, numpy_kernels=True)
    got = _run(case)
    kinds = {"forward", "backward_data", "backward_weights"}
    ran = {key[0] for key, conv in _onednn._cache.items()
           if key[0] in kinds and key[1] == case[1] and conv is not _onednn._UNSUPPORTED}
    assert ran == kinds  # oneDNN ran all three
    for name, a, b in zip(("output", "input gradient", "filter gradient"), got, want):
        assert a.shape == b.shape and a.dtype == b.dtype == np.float32, name
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5 * np.abs(b).max(), err_msg=name)


@pytest.mark.parametrize("case", [CASES[0], CASES[8]], ids=["nhwc", "nchw"])
def test_fused_bias_and_relu(case):
    got, want = _run(case, fused=True), _run(case, numpy_kernels=True, fused=True)
    assert (got[0] >= 0).all() and (got[0] == 0).any()
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5 * np.abs(b).max())


def test_repeatable_and_safe_from_several_threads():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 12, 12, 16)).astype(np.float32)
    w = rng.standard_normal((3, 3, 16, 24)).astype(np.float32)
    dy = rng.standard_normal((8, 12, 12, 24)).astype(np.float32)
    geometry = ((1, 1), (1, 1), [(1, 1), (1, 1)], False)
    want = (_onednn.conv_forward(x, w, dy.shape, *geometry), _onednn.conv_backward_data(w, dy, x.shape, *geometry),
            _onednn.conv_backward_filter(x, dy, w.shape, *geometry))
    failures = []

    def work():
        for _ in range(10):
            got = (_onednn.conv_forward(x, w, dy.shape, *geometry),
                   _onednn.conv_backward_data(w, dy, x.shape, *geometry),
                   _onednn.conv_backward_filter(x, dy, w.shape, *geometry))
            failures.extend(i for i, (a, b) in enumerate(zip(got, want)) if not np.array_equal(a, b))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    # each thread ran the primitives on memory objects of its own (threads may share a primitive)
    conv = _onednn._primitives("forward", x.shape, w.shape, dy.shape, *geometry)
    assert {t.ident for t in threads} <= {thread for thread, _ in conv.main._bound}


@pytest.mark.parametrize("env, want", [({}, ("PASSIVE", "30000")),
                                       ({"OMP_WAIT_POLICY": "ACTIVE"}, ("ACTIVE", None)),
                                       ({"GOMP_SPINCOUNT": "0"}, (None, "0"))])
def test_openmp_threads_spin_briefly_unless_the_user_says(env, want):
    code = ("import os; from dflow.kernels import onednn as _onednn; assert _onednn.available()\n"
            "print(os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))")
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    out = subprocess.run([sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == [str(v) for v in want]


def test_what_it_does_not_run_falls_back():
    x64 = np.ones((1, 4, 4, 2))
    assert _onednn.conv_forward(x64, np.ones((2, 2, 2, 3)), (1, 3, 3, 3), (1, 1), (1, 1), [(0, 0)] * 2,
                                False) is None
    with _onednn.disabled():
        assert not _onednn.available()
        x = np.ones((1, 4, 4, 2), np.float32)
        assert _onednn.conv_forward(x, np.ones((2, 2, 2, 3), np.float32), (1, 3, 3, 3), (1, 1), (1, 1),
                                    [(0, 0)] * 2, False) is None
    assert _onednn.available()
    assert _onednn.implementation("forward", (64, 14, 14, 32), (5, 5, 32, 64), (64, 14, 14, 64), (1, 1), (1, 1),
                                  [(2, 2), (2, 2)], False)


@pytest.mark.parametrize("setting, why", [("0", "DFLOW_ONEDNN turns it off"),
                                          ("/nonexistent/libdnnl.so.3", "was not loaded")])
def test_switched_off_or_missing_runs_the_numpy_kernels(setting, why):
    code = ("import numpy as np, dflow as tf; from dflow.kernels import onednn as _onednn\n"
            "x = tf.constant(np.ones((1, 5, 5, 2), np.float32)); w = tf.constant(np.ones((3, 3, 2, 1), np.float32))\n"
            "print(tf.Session().run(tf.nn.conv2d(x, w, 1, 'SAME'))[0, :, :, 0].sum(), _onednn.why_not())")
    env = dict(os.environ, DFLOW_ONEDNN=setting)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.startswith("338.0 ") and why in out


# (name, input shape, window, strides, padding, data_format)
POOLS = [
    ("tiles_2x2", (4, 28, 28, 8), 2, 2, "VALID", "NHWC"),
    ("same_3x3_stride_2", (3, 11, 10, 5), 3, 2, "SAME", "NHWC"),
    ("valid_leftover", (2, 9, 8, 3), [1, 3, 2, 1], [1, 2, 3, 1], "VALID", "NHWC"),
    ("overlapping", (2, 7, 7, 4), 3, 1, "SAME", "NHWC"),
    ("nchw", (2, 6, 9, 8), [1, 1, 3, 3], [1, 1, 2, 2], "SAME", "NCHW"),
    ("pool3d", (2, 5, 6, 7, 3), [1, 2, 3, 2, 1], [1, 2, 2, 1, 1], "SAME", "NDHWC"),
]


def _pool_run(case, average, numpy_kernels=False):
    _, shape, window, strides, padding, data_format = case
    rng = np.random.default_rng(3)
    x_value = rng.standard_normal(shape).astype(np.float32)
    x_value.reshape(-1)[::7] = 0.5  # ties: each window's first maximum takes its gradient
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(x_value)
        pool = (tf.nn.avg_pool if average else tf.nn.max_pool) if len(shape) == 4 else (
            tf.nn.avg_pool3d if average else tf.nn.max_pool3d)
        y = pool(x, window, strides, padding, data_format=data_format)
        dx, = tf.gradients(tf.reduce_sum(y * tf.constant(rng.standard_normal(y.shape.as_list()).astype(np.float32))),
                           [x])
        with tf.Session() as sess:
            if numpy_kernels:
                with _onednn.disabled():
                    return sess.run([y, dx])
            return sess.run([y, dx])


@pytest.mark.parametrize("average", [False, True], ids=["max", "avg"])
@pytest.mark.parametrize("case", POOLS, ids=[c[0] for c in POOLS])
def test_pooling_matches_the_numpy_kernels(case, average):
    want = _pool_run(case, average, numpy_kernels=True)
    got = _pool_run(case, average)
    ran = {key[0] for key, p in _onednn._cache.items()
           if key[0].startswith("pool") and key[1] == case[1] and p is not _onednn._UNSUPPORTED}
    # a max pool's forward pass is the gradient's, which keeps its workspace (test below)
    assert ran == ({"pool", "pool_backward"} if average else {"pool_backward"})
    (y, dx), (y_want, dx_want) = got, want
    assert y.dtype == dx.dtype == np.float32 and y.shape == y_want.shape and dx.shape == dx_want.shape
    if average:
        np.testing.assert_allclose(y, y_want, rtol=1e-6, atol=1e-6)
    else:  # the maxima, and the elements their gradients go to, are exact
        np.testing.assert_array_equal(y, y_want)
        np.testing.assert_array_equal(dx != 0, dx_want != 0)
    # an element in several windows sums their gradients in another order
    np.testing.assert_allclose(dx, dx_want, rtol=1e-6, atol=1e-6)


def test_a_max_pool_keeps_its_workspace_for_its_gradient(monkeypatch):
    runs = []
    run = _onednn._Primitive.run

    def counted(self, arrays):
        runs.append(set(arrays))
        return run(self, arrays)

    monkeypatch.setattr(_onednn._Primitive, "run", counted)
    _pool_run(POOLS[0], average=False)
    with_workspace = [r for r in runs if _dnnl.ARG_WORKSPACE in r]
    # once to record each window's maximum, once to read it: the gradient runs no forward pass
    assert [_dnnl.ARG_SRC in r for r in with_workspace] == [True, False]
    assert not _onednn._workspaces  # let go with the pool's output


def test_a_fed_pool_output_gets_the_forward_pass_again():
    rng = np.random.default_rng(4)
    x_value = rng.standard_normal((2, 8, 8, 3)).astype(np.float32)
    x_value[0, :2, :2, 0] = 1.5  # a tie: the first maximum takes the gradient
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(x_value)
        y = tf.nn.max_pool(x, 2, 2, "VALID")
        dx, = tf.gradients(tf.reduce_sum(y * np.arange(1, 97, dtype=np.float32).reshape(2, 4, 4, 3)), [x])
        with tf.Session() as sess:
            y_value = sess.run(y)
            got = sess.run(dx, {y: y_value})  # MaxPool is cut: no workspace of its own
            with _onednn.disabled():
                want = sess.run(dx, {y: y_value})
    np.testing.assert_array_equal(got, want)
    assert got[0, 0, 0, 0] == 1 and got[0, 0, 1, 0] == got[0, 1, 0, 0] == got[0, 1, 1, 0] == 0


@pytest.mark.parametrize("transpose_a, transpose_b", [(False, False), (True, False), (False, True), (True, True)])
def test_large_products_match_numpy(transpose_a, transpose_b):
    rng = np.random.default_rng(5)
    m, k, n = 128, 1100, 1000  # 141 M multiply-adds: over _blas.BLOCKED_PRODUCT, so oneDNN's
    a = rng.standard_normal((k, m) if transpose_a else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if transpose_b else (k, n)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        product = tf.matmul(tf.constant(a), tf.constant(b), transpose_a=transpose_a, transpose_b=transpose_b)
        fused = tf.nn.relu(tf.nn.bias_add(product, tf.constant(bias)))
        with tf.Session() as sess:
            got = sess.run([product, fused])
    want = (a.T if transpose_a else a) @ (b.T if transpose_b else b)
    assert any(key[:4] == ("matmul", m, k, n) for key in _onednn._cache)
    np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got[1], np.maximum(want + bias, 0), rtol=1e-5, atol=1e-4)


def test_thin_products_go_to_onednn():
    """A dense layer's weight gradient at batch 1 (3136 x 1 x 1024): OpenBLAS took 5 - 8 ms."""
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((1, 3136)).astype(np.float32), rng.standard_normal((1, 1024)).astype(np.float32)
    _onednn._cache.clear()
    got = _blas.matmul(a.T, b)
    assert any(key[:4] == ("matmul", 3136, 1, 1024) for key in _onednn._cache)
    np.testing.assert_array_equal(got, a.T * b)  # one product per element: exact
    small = _blas.matmul(a[:, :100].T, b[:, :100])  # a small output stays on numpy
    assert not any(key[:4] == ("matmul", 100, 1, 100) for key in _onednn._cache)
    np.testing.assert_array_equal(small, a[:, :100].T * b[:, :100])


def test_mid_sized_products_join_the_layers_on_onednn(monkeypatch):
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((64, 1024)).astype(np.float32), rng.standard_normal((1024, 256)).astype(np.float32)
    assert _blas.SERIAL_PRODUCT <= 64 * 1024 * 256 < _blas.BLOCKED_PRODUCT
    monkeypatch.setattr(_onednn, "_layers_on_teams", False)
    _onednn._cache.clear()
    want = _blas.matmul(a, b)  # OpenBLAS, where no layer has run on a team
    assert not any(key[0] == "matmul" for key in _onednn._cache)
    if _blas._threads() > 1:  # a convolution on a team of threads turns the switch
        x = tf.constant(rng.standard_normal((2, 8, 8, 3)).astype(np.float32))
        tf.Session().run(tf.nn.conv2d(x, tf.constant(np.ones((3, 3, 3, 4), np.float32)), 1, "SAME"))
        assert _onednn.layers_on_teams()
    monkeypatch.setattr(_onednn, "_layers_on_teams", True)
    got = _blas.matmul(a, b)
    assert any(key[:4] == ("matmul", 64, 1024, 256) for key in _onednn._cache)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_one_thread_here_gives_the_same_values():
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((256, 512)).astype(np.float32), rng.standard_normal((512, 128)).astype(np.float32)
    x = rng.standard_normal((4, 10, 10, 16)).astype(np.float32)
    w = rng.standard_normal((3, 3, 16, 8)).astype(np.float32)
    geometry = ((1, 1), (1, 1), [(1, 1), (1, 1)], False)

    def compute():
        return _onednn.matmul(a, b), _onednn.conv_forward(x, w, (4, 10, 10, 8), *geometry)

    want = compute()
    got = []

    def alone():
        _onednn.one_thread_here()
        got.extend(compute())

    t = threading.Thread(target=alone)
    t.start()
    t.join()
    for a_, b_ in zip(got, want):
        np.testing.assert_allclose(a_, b_, rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_a_forked_child_runs_convolutions():
    # libgomp's team does not survive fork(): a child that ran oneDNN's parallel regions hung.
    code = """
import os, numpy as np
from dflow.kernels import onednn as _onednn
x = np.random.rand(8, 14, 14, 32).astype(np.float32); w = np.random.rand(5, 5, 32, 64).astype(np.float32)
geometry = ((1, 1), (1, 1), [(2, 2), (2, 2)], False)
y = _onednn.conv_forward(x, w, (8, 14, 14, 64), *geometry)
pid = os.fork()
if pid == 0:
    y2 = _onednn.conv_forward(x, w, (8, 14, 14, 64), *geometry)
    os._exit(0 if y2 is not None and np.allclose(y, y2, rtol=1e-5, atol=1e-4) else 3)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "0"


@pytest.mark.parametrize("multiplier, strides, padding, data_format", [
    (1, [1, 1, 1, 1], "SAME", "NHWC"), (3, [1, 2, 2, 1], "VALID", "NHWC"), (2, [1, 1, 1, 2], "SAME", "NCHW")])
def test_depthwise_matches_the_numpy_kernels(multiplier, strides, padding, data_format):
    # A depthwise convolution is a grouped one (one group per input channel): conv_ops hands
    # oneDNN the filter [kh, kw, C, M] read as [kh, kw, 1, C * M].
    rng = np.random.default_rng(multiplier)
    shape = (2, 11, 10, 6) if data_format == "NHWC" else (2, 6, 11, 10)
    x_value = rng.standard_normal(shape).astype(np.float32)
    w_value = rng.standard_normal((3, 3, 6, multiplier)).astype(np.float32)

    def run(numpy_kernels):
        g = tf.Graph()
        with g.as_default():
            x, w = tf.constant(x_value), tf.constant(w_value)
            y = tf.nn.depthwise_conv2d(x, w, strides, padding, data_format=data_format)
            r = tf.constant(rng.standard_normal(y.shape.as_list()).astype(np.float32))
            fetches = [y, *tf.gradients(tf.reduce_sum(y * r), [x, w])]
            with tf.Session() as sess:
                if numpy_kernels:
                    with _onednn.disabled():
                        return sess.run(fetches)
                return sess.run(fetches)

    state = rng.bit_generator.state
    want = run(True)
    rng.bit_generator.state = state
    got = run(False)
    kinds = {"forward", "backward_data", "backward_weights"}
    assert {key[0] for key, conv in _onednn._cache.items()
            if key[0] in kinds and key[1] == shape and conv is not _onednn._UNSUPPORTED} == kinds
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5 * np.abs(b).max())
