"""The training-step kernels made faster for benchmarks/bench_models.py (issue #18), against
TF 2.15 figures (compat.v1, CPU; scripts under /tmp/ref/bench/): products and convolutions in
blocks over threads, the BLAS thread switch, Adam and sparse softmax cross-entropy block by
block, MaxPoolGrad's masked routing, and the gradient that skips a zero ``backprop`` input.

Integer-valued float64 operands keep the TF checksums exact."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from dflow.kernels import blas as _blas
from dflow.kernels import onednn as _onednn
from dflow.train.optimizers.adam import _apply_adam


def checksums(a) -> list:
    a = np.asarray(a, np.float64)
    return [a.sum(), (a * a).sum(), (a * ((np.arange(a.size) % 13) - 6).reshape(a.shape)).sum()]


@pytest.fixture
def blocks(monkeypatch):
    """Records the blocks each parallel run hands out; products from 8 M multiply-adds go in
    blocks (the test shapes' size)."""
    monkeypatch.setattr(_blas, "BLOCKED_PRODUCT", 1 << 23)
    return _spy_blocks(monkeypatch)


def _spy_blocks(monkeypatch) -> list:
    """The number of blocks of each ``_run_blocks`` call from now on."""
    seen = []
    run = _blas._run_blocks

    def spy(parts, body, threads):
        seen.append(len(parts))
        return run(parts, body, threads)

    monkeypatch.setattr(_blas, "_run_blocks", spy)
    return seen


# Conv2D, its input and filter gradients: y, dx, dw checksums (sum, sum of squares, weighted).
CONV_CASES = {
    "same_s1": (((8, 16, 16, 16), [1, 1, 1, 1], "SAME"),
                [-59.0, 164443361.0, -2017.0, 14.0, 2746286.0, 0.0, 161.0, 4315707.0, 692.0]),
    "valid_s2": (((32, 17, 17, 16), [1, 2, 2, 1], "VALID"),
                 [9.0, 60191401.0, 2544.0, 7.0, 10615921.0, -8346.0, 9.0, 454176281.0, -1190.0]),
    "same_s2": (((32, 16, 16, 16), [1, 2, 2, 1], "SAME"),
                [-8.0, 164472178.0, 2580.0, 5.0, 9817491.0, -182.0, 92.0, 4541722.0, -940.0]),
}


@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_conv_in_batch_blocks_matches_tf(case, blocks):
    (shape, strides, padding), want = CONV_CASES[case]
    x = (((np.arange(int(np.prod(shape))) * 7) % 11) - 5).reshape(shape).astype(np.float64)
    w = (((np.arange(3 * 3 * 16 * 32) * 5) % 7) - 3).reshape(3, 3, 16, 32).astype(np.float64)
    with tf.Graph().as_default():
        xt, wt = tf.constant(x), tf.constant(w)
        y = tf.nn.conv2d(xt, wt, strides, padding)
        r = (((np.arange(y.shape.num_elements()) * 3) % 5) - 2).reshape(y.shape.as_list()).astype(np.float64)
        dx, dw = tf.gradients(tf.reduce_sum(y * r), [xt, wt])
        with tf.Session() as sess:
            got = sess.run([y, dx, dw])
    assert [v for a in got for v in checksums(a)] == want
    if _blas._threads() > 1:  # the three kernels each ran in blocks of the batch
        assert len(blocks) == 3 and all(n > 1 for n in blocks)


MATMUL_CASES = {  # (m, k, n, transpose_a, transpose_b): checksums of the product
    "tall": ((1000, 96, 128, False, False), [35.0, 51466701.0, 468.0]),
    "wide": ((70, 128, 1200, False, True), [71.0, 96201727.0, -102.0]),
    "small": ((20, 256, 512, True, False), [38.0, 38771816.0, 791.0]),
}


@pytest.mark.parametrize("case", sorted(MATMUL_CASES))
def test_matmul_blocks_and_single_thread_products_match_tf(case, blocks):
    (m, k, n, ta, tb), want = MATMUL_CASES[case]
    a = (((np.arange(m * k) * 7) % 11) - 5).reshape((k, m) if ta else (m, k)).astype(np.float64)
    b = (((np.arange(k * n) * 5) % 7) - 3).reshape((n, k) if tb else (k, n)).astype(np.float64)
    with tf.Graph().as_default():
        y = tf.matmul(tf.constant(a), tf.constant(b), transpose_a=ta, transpose_b=tb)
        with tf.Session() as sess:
            assert checksums(sess.run(y)) == want
    if _blas._threads() > 1:
        assert (len(blocks) == 1) == (case != "small")


def test_blas_threads_restored_after_products_and_errors():
    threads = _blas._threads()
    a = np.ones((20, 256), np.float32)
    _blas.matmul(a, np.ones((256, 512), np.float32))  # a small product: one thread, then back
    with pytest.raises(ValueError):
        with _blas._SerialBlas():
            raise ValueError("inside")
    assert _blas._threads() == threads and _blas._in_flight == 0
    with tf.Graph().as_default():
        y = tf.matmul(tf.placeholder(tf.float32, [None, None]), tf.ones([256, 512]))
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible"):
            sess.run(y, {y.op.inputs[0]: np.ones((20, 255), np.float32)})
    assert _blas._in_flight == 0


def test_over_elements_covers_every_element_once():
    for size, block in ((0, 4), (10, 4), (12, 4), (3, 8)):
        seen = np.zeros(size, int)

        def body(span, seen=seen):
            seen[span] += 1

        _blas.over_elements(size, body, block)
        assert seen.tolist() == [1] * size


def test_adam_in_blocks_is_tf_arithmetic_exactly():
    # 7 x 14 287 = 100 009 elements: four blocks, the last one short; TF1's order of operations.
    rng = np.random.default_rng(0)
    var, m, v, grad = (rng.normal(size=(7, 14287)).astype(np.float32) for _ in range(4))
    v = np.abs(v)
    scalars = [np.float32(s) for s in (0.9 ** 3, 0.999 ** 3, 1e-3, 0.9, 0.999, 1e-8)]
    b1p, b2p, lr, b1, b2, eps = scalars
    alpha = lr * np.sqrt(1 - b2p) / (1 - b1p)
    want_m = m + (grad - m) * (1 - b1)
    want_v = v + (np.square(grad) - v) * (1 - b2)
    for nesterov, step in ((False, want_m * alpha), (True, (grad * (1 - b1) + b1 * want_m) * alpha)):
        got = _apply_adam(var, m, v, *scalars, grad, nesterov)
        for g, w in zip(got, (var - step / (np.sqrt(want_v) + eps), want_m, want_v)):
            assert g.shape == var.shape and np.array_equal(g, w)


def test_sparse_xent_in_row_blocks_matches_tf():
    logits = ((((np.arange(50 * 3000) * 7) % 23) - 11) / 4.0).reshape(50, 3000)
    labels = (np.arange(50) * 37) % 3000
    with tf.Graph().as_default() as g:
        lt = tf.constant(logits)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=lt)
        grad, = tf.gradients(tf.reduce_sum(loss * np.arange(50.0)), [lt])
        with tf.Session() as sess:
            lv, gv = sess.run([loss, grad])
        # tf.gradients fills the unused backprop output's gradient with zeros: TF1's IsZero
        # skips the softmax that the second-order term would need.
        assert sorted({op.type for op in g.get_operations() if "Softmax" in op.type}) == [
            "SparseSoftmaxCrossEntropyWithLogits"]
    np.testing.assert_allclose(lv[:5], [11.876200241938388, 10.127096538061735, 8.37607040112107,
                                        6.62692996545559, 10.625856292986041], rtol=1e-14)
    assert lv.sum() == pytest.approx(456.81963441185155, rel=1e-14)
    assert abs(gv.sum()) < 1e-11
    assert (gv * gv).sum() == pytest.approx(40435.29986751698, rel=1e-13)
    assert gv[3, labels[3]] == pytest.approx(-2.9960273332199616, rel=1e-14)
    assert gv[7, 11] == pytest.approx(0.002069823237256757, rel=1e-12)


@pytest.mark.parametrize("value, want", [(np.inf, [0.0, 0.0, 0.0, np.inf]), (np.nan, [0.0, 0.0, 0.0, np.nan]),
                                         (-2.0, [0.0, 0.0, 0.0, -2.0])])
def test_max_pool_grad_routes_only_to_the_maximum(value, want):
    x = np.array([[[[1.0], [2.0]], [[3.0], [4.0]]]], np.float32)
    with tf.Graph().as_default():
        xt = tf.constant(x)
        y = tf.nn.max_pool(xt, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        d, = tf.gradients(y, [xt], grad_ys=[tf.constant(np.full((1, 1, 1, 1), value, np.float32))])
        with tf.Session() as sess:
            got = sess.run(d).ravel()
    np.testing.assert_array_equal(got, want)
    assert not np.signbit(got[:3]).any()  # +0.0 where TF gives +0.0


def test_blocks_run_without_a_free_helper_and_stop_at_the_first_error():
    if _blas._threads() < 2:
        pytest.skip("one BLAS thread: no helpers")
    import threading

    release = threading.Event()
    pool = _blas._helpers(1)
    busy = pool.submit(release.wait, 10)  # the only helper is taken
    try:
        seen = []
        _blas._run_blocks(list(range(6)), seen.append, 2)  # the calling thread does them all
        assert sorted(seen) == list(range(6))

        def body(block):
            if block == 2:
                raise ValueError("block 2")
            seen.append(block)

        seen.clear()
        with pytest.raises(ValueError, match="block 2"):
            _blas._run_blocks(list(range(6)), body, 2)
        assert seen == [0, 1] and _blas._in_flight == 0
    finally:
        release.set()
        busy.result()


def _product_in_child(queue):
    a = np.arange(1000 * 96, dtype=np.float64).reshape(1000, 96) % 7
    b = np.arange(96 * 128, dtype=np.float64).reshape(96, 128) % 5
    queue.put(bool(np.array_equal(_blas._parallel(a, b, 2), a @ b)))


def test_a_forked_child_gets_its_own_helpers():
    import multiprocessing

    if _blas._threads() < 2 or "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs fork and two BLAS threads")
    _blas.matmul(np.ones((1000, 96)), np.ones((96, 2048)))  # blocks: the parent's pool exists
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_product_in_child, args=(queue,))
    child.start()
    try:
        assert queue.get(timeout=20) is True  # the parent's helper thread does not exist there
    finally:
        child.join(5)
        if child.is_alive():
            child.kill()


def test_small_product_with_a_transposed_operand():
    rng = np.random.default_rng(1)
    g, w = rng.normal(size=(20, 512)), rng.normal(size=(256, 512))
    assert _blas._swapped_is_faster(g, w.T) and not _blas._swapped_is_faster(w, g.T)
    got = _blas.matmul(g, w.T)
    assert got.flags.c_contiguous
    np.testing.assert_allclose(got, g @ w.T, rtol=1e-12)


@pytest.fixture
def shares(monkeypatch):
    """Element-wise chains from 1 000 elements go in shares over two threads; records the shares."""
    _blas._threads()  # finds the BLAS thread switch, which the patched _threads below would not
    monkeypatch.setattr(_blas, "PARALLEL_ELEMENTS", 1000)
    monkeypatch.setattr(_blas, "_PARALLEL_SUB_ELEMENTS", 300)
    monkeypatch.setattr(_blas, "_threads", lambda: 2)
    return _spy_blocks(monkeypatch)


def test_over_elements_in_shares_covers_every_element_once(shares):
    for size, block, unit in ((999, 4, 1), (1000, 4, 1), (5003, 64, 1), (30, 2, 100), (3, 1, 400)):
        seen = np.zeros(size, int)

        def body(span, seen=seen):
            seen[span] += 1

        _blas.over_elements(size, body, block, unit)
        assert seen.tolist() == [1] * size
    assert shares == [4, 4, 4, 3]  # the first stayed on the calling thread; the last has three units


def test_adam_xent_and_pooling_in_shares_equal_one_thread_exactly(monkeypatch):
    rng = np.random.default_rng(1)
    _blas._threads()  # finds the BLAS thread switch, which the patched _threads below would not
    monkeypatch.setattr(_blas, "PARALLEL_ELEMENTS", 1 << 40)
    monkeypatch.setattr(_blas, "_PARALLEL_SUB_ELEMENTS", 300)
    monkeypatch.setattr(_blas, "_threads", lambda: 2)
    seen = _spy_blocks(monkeypatch)
    monkeypatch.setattr(_onednn, "available", lambda: False)  # pooling on the numpy kernels, in shares
    var, m, v, grad = (rng.normal(size=(61, 33)).astype(np.float32) for _ in range(4))
    v = np.abs(v)
    scalars = [np.float32(s) for s in (0.9 ** 3, 0.999 ** 3, 1e-3, 0.9, 0.999, 1e-8)]
    from dflow.ops.nn import nn_losses, pool_ops

    logits = rng.normal(size=(37, 53)).astype(np.float32)
    labels = rng.integers(0, 53, 37)
    x = rng.normal(size=(9, 7, 6, 3)).astype(np.float32)
    tiled = rng.normal(size=(9, 8, 6, 3)).astype(np.float32)  # 2 x 2 windows of stride 2 cover it exactly
    tiled[0, :2, :2] = 5.0  # ties: the window's first maximum takes the gradient
    args = ([1, 2, 2, 1], [1, 2, 2, 1], "SAME", "NHWC")

    def compute():
        y = pool_ops._max_pool(x, *args)
        g = rng.normal(size=y.shape).astype(np.float32)
        y_tiled = pool_ops._max_pool(tiled, *args)
        g_tiled = rng.normal(size=y_tiled.shape).astype(np.float32)
        return (_apply_adam(var, m, v, *scalars, grad, False), nn_losses._sparse_softmax_xent(logits, labels),
                y, pool_ops._avg_pool(x, *args), pool_ops._max_pool_grad(x, y, g, *args),
                pool_ops._max_pool_grad(tiled, y_tiled, g_tiled, *args))

    state = rng.bit_generator.state
    want = compute()
    assert not seen
    monkeypatch.setattr(_blas, "PARALLEL_ELEMENTS", 1000)
    rng.bit_generator.state = state
    got = compute()
    assert len(seen) == 7  # Adam, the cross-entropy, the four poolings and the tiled gradient went in shares
    for w, g in zip(want, got):
        for a, b in zip(w if isinstance(w, tuple) else [w], g if isinstance(g, tuple) else [g]):
            assert a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)
    with pytest.raises(tf.errors.InvalidArgumentError):  # a wrong gradient shape is named for the whole batch
        pool_ops._max_pool_grad(x, got[2], np.ones((9, 4, 3, 2), np.float32), *args)


@pytest.mark.parametrize("a_shape, b", [((40, 50), (50,)), ((40, 50), (40, 1)), ((40, 5, 10), (1, 5, 1)),
                                        ((40, 50), "python int"), ((40, 50), "float64 scalar")])
def test_element_wise_in_shares_equals_the_ufunc(shares, a_shape, b):
    rng = np.random.default_rng(2)
    a = rng.normal(size=a_shape).astype(np.float32)
    b = {"python int": 3, "float64 scalar": np.float64(0.5)}.get(b) if isinstance(b, str) else \
        rng.normal(size=b).astype(np.float32)
    for ufunc in (np.add, np.subtract, np.multiply, np.maximum):
        want, got = ufunc(a, b), _blas.in_shares(ufunc, a, b)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        got = _blas.in_shares(ufunc, b, a)
        assert np.array_equal(got, ufunc(b, a))
    assert len(shares) == 8
    # what does not go in shares: strings, small operands, a leading axis of one
    assert _blas.in_shares(np.add, np.array(["a"] * 2000, object), "b")[0] == "ab"
    assert _blas.in_shares(np.add, np.ones((1, 2000)), 1.0).shape == (1, 2000)
    assert len(shares) == 8


def test_bias_add_and_relu_and_its_gradient_in_shares_equal_one_thread(shares):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(16, 6, 5, 4)).astype(np.float32)
    bias = rng.normal(size=4).astype(np.float32)
    g = rng.normal(size=x.shape).astype(np.float32)
    g[0, 0, 0, :2] = np.nan
    with tf.Graph().as_default():
        xt = tf.placeholder(tf.float32, [None, 6, 5, 4])
        y = tf.nn.relu(tf.nn.bias_add(xt, bias))
        yc = tf.nn.bias_add(tf.transpose(xt, [0, 3, 1, 2]), bias, data_format="NCHW")
        dx, = tf.gradients(y, [xt], grad_ys=[tf.constant(g)])
        with tf.Session() as sess:
            got = sess.run([y, yc, dx], {xt: x})
    assert len(shares) >= 4  # the bias adds, the relu and its gradient
    want_y = np.maximum(x + bias, 0)
    assert np.array_equal(got[0], want_y)
    assert np.array_equal(got[1], np.transpose(x, [0, 3, 1, 2]) + bias.reshape(-1, 1, 1))
    assert np.array_equal(got[2], g * (x + bias > 0), equal_nan=True)


@pytest.mark.parametrize("case", ["ties", "negative_zero", "inf_nan_grad", "float16", "nchw", "pool3d"])
def test_max_pool_grad_of_tiling_windows_equals_the_general_kernel(case):
    """The 2 x 2 / stride 2 fast path (views of the reshaped input) routes each window's gradient
    exactly as the general kernel does: to its first maximum, +0.0 elsewhere, inf and nan kept."""
    from dflow.ops.nn import pool_ops

    rng = np.random.default_rng(3)
    shape, k, fmt, dtype = (4, 6, 8, 5), [1, 2, 2, 1], "NHWC", np.float32
    if case == "nchw":
        shape, k, fmt = (4, 5, 6, 8), [1, 1, 2, 2], "NCHW"
    if case == "pool3d":
        shape, k, fmt = (2, 4, 6, 2, 3), [1, 2, 3, 2, 1], "NDHWC"
    if case == "float16":
        dtype = np.float16
    x = rng.normal(size=shape).astype(dtype)
    if case == "ties":
        x = rng.integers(0, 2, size=shape).astype(dtype)  # most windows hold their maximum twice or more
    y = pool_ops._max_pool(x, k, k, "VALID", fmt)
    g = rng.normal(size=y.shape).astype(dtype)
    if case == "negative_zero":
        g = -np.abs(g)
    if case == "inf_nan_grad":
        g.flat[::7] = np.inf
        g.flat[3::11] = np.nan
    dims, ks, ss, geometry = pool_ops._pool_geometry(x.shape, k, k, "VALID", fmt)
    assert pool_ops._tiles(x, dims, ks, ss, geometry)
    fast = pool_ops._max_pool_grad(x, y, g, k, k, "VALID", fmt)
    general = pool_ops._max_pool_grad_of(x, y, g, k, k, "VALID", fmt)
    assert fast.dtype == general.dtype == dtype and fast.shape == general.shape == x.shape
    np.testing.assert_array_equal(fast, general)
    assert np.array_equal(np.signbit(fast), np.signbit(general))


def test_leading_axis_sums_by_product_match_float64_sums_and_step_aside_otherwise():
    rng = np.random.default_rng(4)
    for shape, k in [((64, 28, 28, 32), 3), ((700, 1000), 1), ((20, 60, 70), 2)]:
        a = rng.normal(size=shape).astype(np.float32)
        got = _blas.sum_leading_axes(a, k)
        want = a.astype(np.float64).sum(axis=tuple(range(k)))
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)
    big = rng.normal(size=(400, 300))
    np.testing.assert_allclose(_blas.sum_leading_axes(big, 1), big.sum(0), rtol=1e-12, atol=1e-11)
    assert _blas.sum_leading_axes(big.astype(np.int64), 1) is None  # integers: numpy's exact sum
    assert _blas.sum_leading_axes(big.T, 1) is None  # not contiguous
    assert _blas.sum_leading_axes(big[:10], 1) is None  # small: one numpy call is as fast
    with tf.Session() as sess:  # the ops that use it: a bias's gradient, and a broadcast add's
        x = tf.constant(rng.normal(size=(300, 400)).astype(np.float32))
        b = tf.constant(np.zeros(400, np.float32))
        g_bias, g_add = sess.run(tf.gradients(tf.reduce_sum(tf.nn.bias_add(x, b) * x), [b])
                                 + tf.gradients(tf.reduce_sum((x + b) * x), [b]))
    want = np.asarray(x.op.get_attr("value"), np.float64).sum(0)
    np.testing.assert_allclose(g_bias, want, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(g_add, want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_biased_product_in_every_layout_and_its_fallbacks(monkeypatch, dtype):
    # The bias inside the BLAS call (beta = 1) for C-ordered, transposed and strided operands and a
    # strided output; numpy's product and add for small outputs, other dtypes, or no BLAS symbol.
    monkeypatch.setattr(_blas, "BIAS_IN_PRODUCT", 1)
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(37, 23)).astype(dtype), rng.normal(size=(23, 41)).astype(dtype)
    bias = rng.normal(size=41).astype(dtype)
    want = a.astype(np.float64) @ b + bias
    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}
    wide = np.zeros((37, 50), dtype)
    for lhs in (a, np.asfortranarray(a), np.ascontiguousarray(a.T).T):
        for rhs in (b, np.asfortranarray(b), np.repeat(b, 2, axis=1)[:, ::2]):
            out = np.full((37, 41), np.nan, dtype)
            _blas.biased_product(lhs, rhs, out, bias)
            np.testing.assert_allclose(out, want, **tol)
            _blas.biased_product(lhs, rhs, wide[:, 3:44], bias)  # rows of the output are 50 apart
            np.testing.assert_allclose(wide[:, 3:44], want, **tol)
    assert not wide[:, :3].any() and not wide[:, 44:].any()
    with pytest.raises(ValueError, match="inner dimensions"):
        _blas.biased_product(a, b[:5], np.empty((37, 41), dtype), bias)
    ints = _blas.matmul(np.ones((3, 4), np.int32), np.ones((4, 5), np.int32), np.arange(5, dtype=np.int32))
    np.testing.assert_array_equal(ints, np.full((3, 5), 4) + np.arange(5))
    monkeypatch.setattr(_blas, "_gemm", {})  # no OpenBLAS symbol: numpy's product, then the add
    out = np.empty((37, 41), dtype)
    _blas.biased_product(a, b, out, bias)
    np.testing.assert_allclose(out, want, **tol)
    relu = _blas.matmul(a, b, bias, finish=lambda block: np.maximum(block, 0, out=block))
    np.testing.assert_allclose(relu, np.maximum(want, 0), **tol)
