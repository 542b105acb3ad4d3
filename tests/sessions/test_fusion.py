"""Fused ops (dflow.sessions.fusion): a product, its bias add and its activation run as one op.

Each case builds a graph once and runs it in a fused session and in one with fusion off
(``DFLOW_FUSE_OPS=0``): the values agree (to the last bit where BLAS does not split the
product's inner dimension), and the fused session's trace shows the fused op where TF's does."""

import numpy as np
import pytest

import dflow as tf
from dflow.sessions import fusion
from dflow.sessions import plan as planning
from dflow.sessions.fusion import find_fusions, fused_kernel

RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def fuse_small_outputs(monkeypatch):
    """The small test products take the fused path too (by default, outputs under
    ``FUSED_ELEMENTS`` run the ops one by one)."""
    monkeypatch.setattr(fusion, "FUSED_ELEMENTS", 1)


def _rand(*shape, dtype=np.float32):
    return (RNG.random(shape) - 0.5).astype(dtype)


def _run(fetches, feed=None, fuse=True, monkeypatch=None, init=False):
    """``(values, {op name: traced type})`` of one run in a new session."""
    monkeypatch.setenv("DFLOW_FUSE_OPS", "1" if fuse else "0")
    with tf.Session() as s:
        if init:
            s.run(tf.global_variables_initializer())
        md = tf.RunMetadata()
        out = s.run(fetches, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
    types = {n.node_name: n.timeline_label.split(" = ")[1].split("(")[0]
             for d in md.step_stats.dev_stats for n in d.node_stats}
    return out, types


def _both(fetches, monkeypatch, feed=None, init=False):
    fused, fused_types = _run(fetches, feed, True, monkeypatch, init)
    plain, plain_types = _run(fetches, feed, False, monkeypatch, init)
    return fused, plain, fused_types, plain_types


def test_dense_layer_with_relu_is_one_fused_matmul(monkeypatch):
    tf.set_random_seed(1)  # both sessions initialize the same variables
    x = tf.placeholder(tf.float32, [None, 6])
    y = tf.layers.dense(x, 5, activation=tf.nn.relu, bias_initializer=tf.random_uniform_initializer(-1, 1))
    feed = {x: _rand(7, 6)}
    fused, plain, ft, pt = _both(y, monkeypatch, feed, init=True)
    np.testing.assert_array_equal(fused, plain)  # a 6-deep product: BLAS does not split it
    assert (fused > 0).any() and (fused == 0).any()
    assert ft["dense/Relu"] == "_FusedMatMul"
    assert "dense/MatMul" not in ft and "dense/BiasAdd" not in ft
    assert pt["dense/MatMul"] == "MatMul" and pt["dense/BiasAdd"] == "BiasAdd" and pt["dense/Relu"] == "Relu"


@pytest.mark.parametrize("bias_first", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_matmul_plus_a_bias_row(monkeypatch, bias_first, transpose_b, dtype):
    a = tf.constant(_rand(9, 4, dtype=dtype.as_numpy_dtype))
    b = tf.constant(_rand(*((3, 4) if transpose_b else (4, 3)), dtype=dtype.as_numpy_dtype))
    bias = tf.constant(_rand(3, dtype=dtype.as_numpy_dtype))
    product = tf.matmul(a, b, transpose_b=transpose_b)
    y = tf.add(bias, product, name="logits") if bias_first else tf.add(product, bias, name="logits")
    fused, plain, ft, _ = _both(y, monkeypatch)
    np.testing.assert_array_equal(fused, plain)
    assert fused.dtype == dtype.as_numpy_dtype
    assert ft["logits"] == "_FusedMatMul"


def test_large_product_in_blocks_agrees_with_the_ops_one_by_one(monkeypatch):
    # 700 x 128 x 2 000: products this large go in blocks over threads, each adding its bias columns.
    x = tf.constant(_rand(700, 128))
    w = tf.constant(_rand(128, 2000))
    b = tf.constant(_rand(2000))
    y = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b), name="out")
    fused, plain, ft, _ = _both(y, monkeypatch)
    np.testing.assert_allclose(fused, plain, rtol=1e-6, atol=1e-6)
    assert ft["out"] == "_FusedMatMul"


@pytest.mark.parametrize("channels", [1, 8])
def test_conv2d_bias_relu_is_one_fused_conv(monkeypatch, channels):
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, 12, 12, channels])
    y = tf.layers.conv2d(x, 16, 3, padding="same", activation=tf.nn.relu,
                         bias_initializer=tf.random_uniform_initializer(-1, 1))
    feed = {x: _rand(32, 12, 12, channels)}
    fused, plain, ft, pt = _both(y, monkeypatch, feed, init=True)
    np.testing.assert_allclose(fused, plain, rtol=1e-6, atol=1e-6)
    assert (fused == 0).any()
    assert ft["conv2d/Relu"] == "_FusedConv2D" and "conv2d/Conv2D" not in ft
    assert pt["conv2d/Conv2D"] == "Conv2D"


def test_bias_without_activation_and_grouped_convolution(monkeypatch):
    x = tf.constant(_rand(4, 9, 9, 6))
    w = tf.constant(_rand(3, 3, 2, 6))  # three groups of two channels
    y = tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 2, 2, 1], "VALID"), tf.constant(_rand(6)), name="out")
    fused, plain, ft, _ = _both(y, monkeypatch)
    np.testing.assert_allclose(fused, plain, rtol=1e-6, atol=1e-6)
    assert ft["out"] == "_FusedConv2D"


def test_training_a_small_cnn_gives_the_same_losses(monkeypatch):
    tf.set_random_seed(3)
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    labels = tf.placeholder(tf.int64, [None])
    h = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu)
    h = tf.layers.dense(tf.layers.flatten(h), 16, activation=tf.nn.relu)
    logits = tf.layers.dense(h, 3)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    feed = {x: _rand(16, 8, 8, 1), labels: RNG.integers(0, 3, 16)}
    losses = {}
    for fuse in ("1", "0"):
        monkeypatch.setenv("DFLOW_FUSE_OPS", fuse)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            losses[fuse] = [s.run([loss, train], feed)[0] for _ in range(5)]
    np.testing.assert_allclose(losses["1"], losses["0"], rtol=1e-5)
    assert losses["1"][-1] < losses["1"][0]


# -- what is not fused ---------------------------------------------------------------------------


def _plan_fusions(fetches, fed=()):
    """``({last op's name: Fusion}, partition)`` of the one partition of a plan for ``fetches``
    (tensors, or ops to run)."""
    tensors = [f for f in fetches if isinstance(f, tf.Tensor)]
    targets = [f for f in fetches if not isinstance(f, tf.Tensor)]
    ops = planning.prune_to_fetches(tensors, targets, set(fed))
    parts = planning.partition_by_device(ops, {op: "/device:CPU:0" for op in ops}, set(fed), tensors)
    assert len(parts) == 1
    return {parts[0].ops[i].name: f for i, f in find_fusions(parts[0]).items()}, parts[0]


def _chain():
    a = tf.constant(_rand(3, 4))
    w = tf.constant(_rand(4, 5))
    product = tf.matmul(a, w, name="product")
    biased = tf.nn.bias_add(product, tf.constant(_rand(5)), name="biased")
    return product, biased, tf.nn.relu(biased, name="relu")


def test_what_is_fused_and_what_is_not():
    product, biased, relu = _chain()
    (fusion,) = _plan_fusions([relu])[0].values()
    assert len(fusion.positions) == 3 and list(_plan_fusions([relu])[0]) == ["relu"]
    # A fetched product or bias op must exist as it is: the chain stops before it.
    assert _plan_fusions([relu, product])[0] == {}
    assert list(_plan_fusions([relu, biased])[0]) == ["biased"]
    # A fed product cuts the graph; a product read twice is not the bias op's alone.
    assert _plan_fusions([relu], fed=[product])[0] == {}
    twice = tf.add(product, product, name="twice")
    assert _plan_fusions([relu, twice])[0] == {}


def test_control_edges_keep_ops_in_their_place():
    product, biased, relu = _chain()
    with tf.control_dependencies([product.op]):
        after = tf.no_op(name="after_product")
    assert _plan_fusions([relu, after])[0] == {}
    with tf.control_dependencies([biased.op]):
        after_bias = tf.no_op(name="after_bias")
    # The bias op may end a fused chain (it runs in its place), but not move into the Relu's.
    assert list(_plan_fusions([relu, after_bias])[0]) == ["biased"]


def test_biases_that_are_not_a_row_of_the_product_are_not_fused():
    a = tf.constant(_rand(3, 4))
    w = tf.constant(_rand(4, 5))
    assert _plan_fusions([tf.matmul(a, w) + tf.constant(_rand(3, 5))])[0] == {}  # a matrix
    assert _plan_fusions([tf.matmul(a, w) + 1.0])[0] == {}  # a scalar
    ints = tf.matmul(tf.constant(np.ones((2, 2), np.int32)), tf.constant(np.ones((2, 2), np.int32)))
    assert _plan_fusions([ints + tf.constant([1, 2])])[0] == {}  # not a float product
    x = tf.constant(_rand(1, 3, 5, 5))
    nchw = tf.nn.conv2d(x, tf.constant(_rand(3, 3, 3, 2)), [1, 1, 1, 1], "SAME", data_format="NCHW")
    assert _plan_fusions([tf.nn.bias_add(nchw, tf.constant(_rand(2)), data_format="NCHW")])[0] == {}


def test_gpu_partitions_are_not_fused():
    _, _, relu = _chain()
    fusions, part = _plan_fusions([relu])
    assert fusions
    part.device, part.fusions = "/job:worker/task:0/device:GPU:0", None
    assert find_fusions(part) == {}


def test_fusion_can_be_turned_off(monkeypatch):
    _, _, relu = _chain()
    monkeypatch.setenv("DFLOW_FUSE_OPS", "0")
    _, types = _run(relu, monkeypatch=monkeypatch, fuse=False)
    assert types["relu"] == "Relu" and types["product"] == "MatMul"


# -- errors and inputs the fused kernel does not take --------------------------------------------


def test_a_product_error_names_the_product_op(monkeypatch):
    x = tf.placeholder(tf.float32, [None, None])
    y = tf.nn.relu(tf.matmul(x, tf.constant(_rand(4, 3)), name="product") + tf.constant(_rand(3)), name="act")
    for fuse in ("1", "0"):
        monkeypatch.setenv("DFLOW_FUSE_OPS", fuse)
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible") as info:
                s.run(y, {x: np.ones((2, 5), np.float32)})
            assert info.value.op.name == "product"
            assert s.run(y, {x: np.ones((2, 4), np.float32)}).shape == (2, 3)  # nothing left behind


def test_inputs_other_than_numpy_arrays_run_the_ops_one_by_one():
    product, biased, relu = _chain()
    fusions, part = _plan_fusions([relu])
    (position, fusion), = find_fusions(part).items()
    kernels = [op._opdef.bind(op, None) for op in part.ops]
    errors = []
    kernel = fused_kernel(fusion, part.ops, kernels, lambda e, op: errors.append(op.name) or e)
    a, w, bias = (part.ops[[op.outputs[0] for op in part.ops].index(t)].get_attr("value") for t in fusion.inputs)
    expected = np.maximum(a @ w + bias, 0)
    np.testing.assert_array_equal(kernel(a, w, bias), expected)
    class Sub(np.ndarray):  # not a numpy array as such: the fused kernel leaves it to the ops
        pass

    np.testing.assert_array_equal(np.asarray(kernel(a.view(Sub), w, bias)), expected)
    with pytest.raises(ValueError):
        kernel(a.view(Sub), w, np.ones(7, np.float32))  # the bias op's own error
    assert errors == ["biased"]


def test_small_outputs_run_the_ops_one_by_one(monkeypatch):
    monkeypatch.setattr(fusion, "FUSED_ELEMENTS", 64)
    _, _, relu = _chain()  # a 3 x 5 output
    _, part = _plan_fusions([relu])
    (fusion_,) = find_fusions(part).values()
    calls = []
    kernels = [op._opdef.bind(op, None) for op in part.ops]
    head = kernels[fusion_.positions[0]]
    kernels[fusion_.positions[0]] = lambda a, b, **fused: calls.append(sorted(fused)) or head(a, b, **fused)
    kernel = fused_kernel(fusion_, part.ops, kernels, lambda e, op: e)
    a, w, bias = (np.asarray(t.op.get_attr("value")) for t in fusion_.inputs)
    np.testing.assert_array_equal(kernel(a, w, bias), np.maximum(a @ w + bias, 0))
    big = np.tile(a, (10, 1))  # 30 x 5 = 150 elements: fused
    np.testing.assert_array_equal(kernel(big, w, bias), np.maximum(big @ w + bias, 0))
    assert calls == [[], ["bias", "finish"]]


def test_products_of_unknown_width_are_not_fused(monkeypatch):
    x = tf.placeholder(tf.float32, [None, 4])
    w = tf.placeholder(tf.float32, [4, None])
    b = tf.placeholder(tf.float32, [None])
    y = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b), name="out")
    assert _plan_fusions([y])[0] == {}
    feed = {x: np.ones((2, 4), np.float32), w: np.ones((4, 3), np.float32), b: np.arange(3, dtype=np.float32)}
    out, types = _run(y, feed, True, monkeypatch)
    np.testing.assert_array_equal(out, [[4, 5, 6], [4, 5, 6]])
    assert types["out"] == "Relu"


def test_chains_in_a_loop_body_are_fused_too(monkeypatch):
    from dflow.sessions import program

    calls = []
    make = program.fused_kernel

    def counted(fusion_, ops, kernels, attribute):
        kernel = make(fusion_, ops, kernels, attribute)

        def run(*args):
            calls.append(ops[fusion_.positions[-1]].type)
            return kernel(*args)

        return run

    monkeypatch.setattr(program, "fused_kernel", counted)
    w = tf.constant(_rand(64, 64) * 0.2)
    b = tf.constant(_rand(64))

    def body(i, x):
        return i + 1, tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b))

    _, y = tf.while_loop(lambda i, x: i < 5, body, [tf.constant(0), tf.constant(_rand(64, 64))])
    fused, plain, _, _ = _both(y, monkeypatch)
    np.testing.assert_allclose(fused, plain, rtol=1e-6, atol=1e-7)
    assert (fused > 0).any()
    assert calls == ["Relu"] * 5  # the body's chain, once a step; none with fusion off


@pytest.mark.parametrize("activation", [tf.nn.relu, tf.nn.relu6, tf.nn.elu, tf.nn.tanh, tf.nn.sigmoid,
                                        lambda x: tf.nn.leaky_relu(x, 0.3)])
def test_every_fused_activation_gives_its_ops_values(monkeypatch, activation):
    x = tf.constant(_rand(300, 16) * 20)  # 300 x 24 outputs: the fused path, values past relu6's 6
    y = activation(tf.nn.bias_add(tf.matmul(x, tf.constant(_rand(16, 24))), tf.constant(_rand(24) * 10)))
    fused, plain, ft, _ = _both(y, monkeypatch)
    np.testing.assert_array_equal(fused, plain)  # a 16-deep product: BLAS does not split it
    assert ft[y.op.name] == "_FusedMatMul"
