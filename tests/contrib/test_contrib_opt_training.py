"""tf.contrib.opt, tf.contrib.training.HParams and tf.contrib.learn: TF 1.15's behaviour, checked against numpy."""

import gzip
import os
import struct

import numpy as np
import pytest

import dflow as tf

opt = tf.contrib.opt


def names(variables):
    return [v.op.name for v in variables]


# -- opt ---------------------------------------------------------------------------------------------


def adam_np(w, g, m, v, t, lr=0.1, b1=0.9, b2=0.999, eps=1e-8):
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    return w - lr_t * m / (np.sqrt(v) + eps), m, v


def test_adamw_steps_match_numpy():
    w0 = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    w = tf.Variable(w0, name="w")
    b = tf.Variable([1.0, 1.0], name="b")
    x = np.array([[1.0, 2.0]], np.float32)
    loss = tf.reduce_sum(tf.square(tf.matmul(tf.constant(x), w) + b))
    optimizer = opt.AdamWOptimizer(weight_decay=0.01, learning_rate=0.1)
    train = optimizer.apply_gradients(optimizer.compute_gradients(loss), decay_var_list=[w])
    assert train.name == "AdamW"
    assert sorted(names(tf.global_variables())) == ["b", "b/AdamW", "b/AdamW_1", "beta1_power", "beta2_power",
                                                   "w", "w/AdamW", "w/AdamW_1"]
    wn, bn = w0.astype(np.float64), np.ones(2)
    mw = vw = np.zeros_like(wn)
    mb = vb = np.zeros_like(bn)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for t in (1, 2):
            r = x @ wn + bn
            gw, gb = x.T @ (2 * r), (2 * r).sum(0)
            wn, mw, vw = adam_np(wn * (1 - 0.01), gw, mw, vw, t)
            bn, mb, vb = adam_np(bn, gb, mb, vb, t)  # not in decay_var_list
            sess.run(train)
            np.testing.assert_allclose(sess.run(w), wn, rtol=1e-5)
            np.testing.assert_allclose(sess.run(b), bn, rtol=1e-5)


def test_minimize_decay_var_list_is_reset_as_in_tf():
    w = tf.Variable([1.0], name="w")
    b = tf.Variable([1.0], name="b")
    train = opt.MomentumWOptimizer(0.5, learning_rate=0.0, momentum=0.9).minimize(tf.reduce_sum(w + b),
                                                                                  decay_var_list=[w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run([w, b]) == [[0.5], [0.5]]  # TF 1.15's apply_gradients reset the list: both decay


def test_momentumw_and_extend_with_decoupled_weight_decay():
    w = tf.Variable([1.0, 2.0], name="w")
    train = opt.MomentumWOptimizer(weight_decay=0.1, learning_rate=0.5, momentum=0.9).minimize(tf.reduce_sum(w))
    SGDW = opt.extend_with_decoupled_weight_decay(tf.train.GradientDescentOptimizer)
    u = tf.Variable([4.0], name="u")
    train2 = SGDW(weight_decay=0.5, learning_rate=1.0).minimize(tf.reduce_sum(u))
    assert "w/MomentumW" in names(tf.global_variables())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([train, train2])
        np.testing.assert_allclose(sess.run(w), [1.0 * 0.9 - 0.5, 2.0 * 0.9 - 0.5])
        np.testing.assert_allclose(sess.run(u), [4.0 * 0.5 - 1.0])


def test_adamw_sparse_decays_only_gathered_rows():
    emb = tf.Variable(np.ones((4, 2), np.float32), name="emb")
    loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, [1, 1, 3]))
    train = opt.AdamWOptimizer(weight_decay=0.5, learning_rate=0.0).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(emb), [[1, 1], [0.5, 0.5], [1, 1], [0.5, 0.5]])


def test_lazy_adam_touches_only_gathered_rows():
    init = np.arange(10, dtype=np.float32).reshape(5, 2)
    emb = tf.Variable(init, name="emb")
    ids = tf.placeholder(tf.int32, [None])
    loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(emb, ids)))
    optimizer = opt.LazyAdamOptimizer(learning_rate=0.1)
    train = optimizer.minimize(loss)
    m, v = optimizer.get_slot(emb, "m"), optimizer.get_slot(emb, "v")
    assert m.op.name == "emb/Adam" and v.op.name == "emb/Adam_1"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {ids: [1, 3, 3]})
        w1, m1, v1 = sess.run([emb, m, v])
        # rows 1 and 3 moved; the gradient of the repeated row 3 is summed
        g = np.zeros_like(init)
        g[1] = 2 * init[1]
        g[3] = 2 * 2 * init[3]
        expected, em, ev = adam_np(init, g, 0, 0, 1)
        for r in (1, 3):
            np.testing.assert_allclose(w1[r], expected[r], rtol=1e-5)
            np.testing.assert_allclose(m1[r], em[r], rtol=1e-5)
        for r in (0, 2, 4):
            np.testing.assert_array_equal(w1[r], init[r])
            np.testing.assert_array_equal(m1[r], 0)
        sess.run(train, {ids: [0]})
        w2, m2, v2 = sess.run([emb, m, v])
        # the second step leaves rows 1 and 3 and their moments exactly as they were (no decay)
        np.testing.assert_array_equal(w2[[1, 3]], w1[[1, 3]])
        np.testing.assert_array_equal(m2[[1, 3]], m1[[1, 3]])
        np.testing.assert_array_equal(v2[[1, 3]], v1[[1, 3]])
        assert not np.allclose(w2[0], init[0])


def test_lazy_adam_dense_is_adam():
    w = tf.Variable([1.0, -1.0], name="w")
    train = opt.LazyAdamOptimizer(0.1).minimize(tf.reduce_sum(tf.square(w)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        expected, _, _ = adam_np(np.array([1.0, -1.0]), np.array([2.0, -2.0]), 0, 0, 1)
        np.testing.assert_allclose(sess.run(w), expected, rtol=1e-5)


def test_moving_average_optimizer_swapping_saver(tmp_path):
    w = tf.Variable([1.0, 2.0], name="w")
    step = tf.train.get_or_create_global_step()
    optimizer = opt.MovingAverageOptimizer(tf.train.GradientDescentOptimizer(1.0), average_decay=0.5)
    with pytest.raises(RuntimeError, match="swapping_saver"):
        optimizer.swapping_saver()
    train = optimizer.minimize(tf.reduce_sum(w), global_step=step)
    assert train.name == "train_with_avg"
    avg = [v for v in tf.global_variables() if v.op.name == "w/ExponentialMovingAverage"]
    assert len(avg) == 1
    saver = optimizer.swapping_saver()
    path = str(tmp_path / "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)  # w: [0, 1]; average: 0.5 * [1, 2] + 0.5 * [0, 1]
        sess.run(train)  # w: [-1, 0]; average: 0.5 * [0.5, 1.5] + 0.5 * [-1, 0]
        np.testing.assert_allclose(sess.run(avg[0]), [-0.25, 0.75])
        saver.save(sess, path)
    reader = tf.train.load_checkpoint(path)
    np.testing.assert_allclose(reader.get_tensor("w"), [-0.25, 0.75])
    np.testing.assert_allclose(reader.get_tensor("w/ExponentialMovingAverage"), [-1.0, 0.0])
    tf.reset_default_graph()
    w2 = tf.Variable([0.0, 0.0], name="w")
    with tf.Session() as sess:
        tf.train.Saver([w2]).restore(sess, path)
        np.testing.assert_allclose(sess.run(w2), [-0.25, 0.75])


def test_scipy_optimizer_interface_not_provided():
    with pytest.raises(NotImplementedError, match="ScipyOptimizerInterface"):
        opt.ScipyOptimizerInterface(tf.constant(1.0))


# -- HParams -----------------------------------------------------------------------------------------


def test_hparams_docs_examples():
    hparams = tf.contrib.training.HParams(learning_rate=0.1, num_hidden_units=100, activation="relu")
    assert hparams.activation == "relu"
    hparams.parse("learning_rate=0.3,num_hidden_units=200, activation=tanh")
    assert hparams.values() == {"learning_rate": 0.3, "num_hidden_units": 200, "activation": "tanh"}
    hparams.set_hparam("learning_rate", 1)  # an int for a float is fine
    assert hparams.learning_rate == 1.0 and isinstance(hparams.learning_rate, float)
    with pytest.raises(ValueError, match="Could not cast"):
        hparams.set_hparam("num_hidden_units", 2.5)
    with pytest.raises(ValueError, match="Could not parse"):
        hparams.parse("num_hidden_units=abc")
    with pytest.raises(ValueError, match="Unknown hyperparameter"):
        hparams.parse("dropout=0.2")
    hparams.add_hparam("layers", [32, 16])
    with pytest.raises(ValueError, match="reserved"):
        hparams.add_hparam("layers", [1])
    with pytest.raises(ValueError, match="reserved"):
        hparams.add_hparam("parse", 1)
    hparams.parse("layers=[64, 8,4]")
    assert hparams.layers == [64, 8, 4]
    with pytest.raises(ValueError, match="Must pass a list"):
        hparams.set_hparam("layers", 3)
    assert "layers" in hparams and "nope" not in hparams
    assert hparams.get("nope", 7) == 7 and hparams.get("layers") == [64, 8, 4]


def test_hparams_bools_json_and_dict():
    hparams = tf.contrib.training.HParams(use_bn=False, rate=0.5, name="x", sizes=[1.0, 2.0])
    for text, value in (("use_bn=true", True), ("use_bn=False", False), ("use_bn=1", True)):
        assert hparams.parse(text).use_bn is value
    with pytest.raises(ValueError):
        hparams.set_hparam("use_bn", 1)
    with pytest.raises(ValueError, match="Multiple assignments"):
        hparams.parse("rate=0.1,rate=0.2")
    hparams.override_from_dict({"rate": 0.25, "sizes": [3, 4]})
    assert hparams.sizes == [3.0, 4.0]
    js = hparams.to_json(sort_keys=True)
    assert js == '{"name": "x", "rate": 0.25, "sizes": [3.0, 4.0], "use_bn": true}'
    other = tf.contrib.training.HParams(use_bn=False, rate=0.5, name="y", sizes=[0.0])
    assert other.parse_json(js).values() == hparams.values()
    assert str(tf.contrib.training.HParams(a=1, b="c")) == "a=1,b=c"
    assert repr(tf.contrib.training.HParams(b=2, a=1)) == "HParams([('a', 1), ('b', 2)])"


def test_parse_values_indexed_and_lists():
    parse_values = tf.contrib.training.parse_values
    assert parse_values("x=1,b=2.0,c=a,arr[1]=10,arr[3]=5", {"x": int, "b": float, "c": str, "arr": int}) == {
        "x": 1, "b": 2.0, "c": "a", "arr": {1: 10, 3: 5}}
    assert parse_values("arr=[1,2,3]", {"arr": int}) == {"arr": [1, 2, 3]}
    assert parse_values("zz=1,x=2", {"x": int}, ignore_unknown=True) == {"x": 2}
    with pytest.raises(ValueError, match="Malformed"):
        parse_values("x", {"x": int})
    hparams = tf.contrib.training.HParams(arr=[1, 2, 3])
    assert hparams.parse("arr[1]=10").arr == [1, 10, 3]


# -- learn -------------------------------------------------------------------------------------------


def write_idx(path, array, magic):
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">I", magic))
        for d in array.shape:
            f.write(struct.pack(">I", d))
        f.write(array.astype(np.uint8).tobytes())


def make_mnist(directory, n_train=12, n_test=3):
    rng = np.random.RandomState(0)
    images = {"train": rng.randint(0, 256, (n_train, 4, 3)), "t10k": rng.randint(0, 256, (n_test, 4, 3))}
    labels = {"train": np.arange(n_train) % 10, "t10k": np.arange(n_test) % 10}
    for split in ("train", "t10k"):
        write_idx(os.path.join(directory, f"{split}-images-idx3-ubyte.gz"), images[split], 2051)
        write_idx(os.path.join(directory, f"{split}-labels-idx1-ubyte.gz"), labels[split], 2049)
    return images, labels


def test_mnist_reader_on_tiny_idx_files(tmp_path):
    images, labels = make_mnist(str(tmp_path))
    mnist = tf.contrib.learn.datasets.mnist.read_data_sets(str(tmp_path), validation_size=4, seed=1)
    assert mnist.train.num_examples == 8 and mnist.validation.num_examples == 4 and mnist.test.num_examples == 3
    assert mnist.train.images.shape == (8, 12) and mnist.train.images.dtype == np.float32
    np.testing.assert_allclose(mnist.validation.images, images["train"][:4].reshape(4, 12) / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(mnist.validation.labels, labels["train"][:4])
    assert mnist.test.labels.dtype == np.uint8
    # next_batch: a shuffled epoch, then it wraps into the next
    seen = []
    for _ in range(4):
        x, y = mnist.train.next_batch(3)
        assert x.shape == (3, 12) and y.shape == (3,)
        seen.extend(y.tolist())
    assert sorted(seen[:8]) == sorted(labels["train"][4:].tolist())
    assert mnist.train.epochs_completed == 1
    raw = tf.contrib.learn.datasets.mnist.read_data_sets(str(tmp_path), one_hot=True, reshape=False,
                                                         dtype=tf.uint8, validation_size=0)
    assert raw.train.images.shape == (12, 4, 3, 1) and raw.train.images.dtype == np.uint8
    np.testing.assert_array_equal(raw.train.images[..., 0], images["train"])
    assert raw.train.labels.shape == (12, 10)
    np.testing.assert_array_equal(raw.train.labels.argmax(1), labels["train"])
    with pytest.raises(ValueError, match="Validation size"):
        tf.contrib.learn.datasets.mnist.read_data_sets(str(tmp_path), validation_size=13)
    with pytest.raises(TypeError, match="Invalid image dtype"):
        tf.contrib.learn.datasets.mnist.read_data_sets(str(tmp_path), dtype=tf.int32, validation_size=0)


def test_mnist_without_files_says_what_to_do(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="fetches nothing from the network") as e:
        tf.contrib.learn.datasets.mnist.read_data_sets(str(tmp_path / "MNIST_data"), one_hot=True)
    assert "train-images-idx3-ubyte.gz" in str(e.value) and "numpy" in str(e.value)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match="MNIST-data"):
        tf.contrib.learn.datasets.load_dataset("mnist")
    with pytest.raises(NotImplementedError, match="fetches nothing"):
        tf.contrib.learn.datasets.load_dataset("iris")
    with pytest.raises(ValueError, match="not valid"):
        tf.contrib.learn.datasets.load_dataset("cifar")
    os.mkdir("MNIST-data")
    make_mnist("MNIST-data", n_train=6000)
    assert tf.contrib.learn.datasets.load_dataset("mnist").train.num_examples == 1000


def test_fake_data_and_mode_keys():
    fake = tf.contrib.learn.datasets.mnist.read_data_sets("unused", fake_data=True, one_hot=True)
    x, y = fake.train.next_batch(2, fake_data=True)
    assert len(x) == 2 and len(x[0]) == 784 and y[0] == [1] + [0] * 9
    assert (tf.contrib.learn.ModeKeys.TRAIN, tf.contrib.learn.ModeKeys.EVAL, tf.contrib.learn.ModeKeys.INFER) == (
        "train", "eval", "infer")
