"""tf.Assert, the assert_* family, check_numerics, Print/print, py_func, custom_gradient, make_template, hessians.

Messages and values are TF 2.15 compat.v1's, printed by the same graphs under TensorFlow.
"""

import sys

import numpy as np
import pytest

import dflow as tf
from dflow.ops.debugging.summarize import summarize_v1, summarize_v2


@pytest.fixture
def sess():
    with tf.Session() as s:
        yield s


def _failure(sess, op, feed=None):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        sess.run(op, feed)
    return e.value.message


@pytest.mark.parametrize("value, summarize, expected", [
    (np.float32(1 / 3), 5, "0.333333343"),
    (np.array([[1, 2], [3, 4]], np.int32), 5, "[1 2][3 4]"),
    (np.array([0.1, 2.5e-7, 1e10, -0.0, np.nan]), 5, "0.1 2.5e-07 10000000000 -0 nan"),
    (np.array([True, False]), 5, "1 0"),
    (np.array([b"a", b"bc"], object), 5, "a bc"),
    (np.arange(10), 5, "0 1 2 3 4..."),
    (np.zeros((2, 0)), 5, ""),
    (np.arange(24).reshape(2, 3, 4), 5, "[[0 1 2 3][4...]]..."),
    (np.arange(30).reshape(5, 6), 4, "[0 1 2 3...]..."),
    (np.array([1e-05, 123456789.0], np.float32), 5, "1e-05 123456792"),
])
def test_summaries_match_tf1_asserts(value, summarize, expected):
    assert summarize_v1(value, summarize) == expected


def test_tf_print_format_matches_tf1():
    assert summarize_v2(np.arange(10), 3) == "[0 1 2 ... 7 8 9]"
    assert summarize_v2(np.array([[1.5, 2], [3, 4]])) == "[[1.5 2]\n [3 4]]"
    assert summarize_v2(np.arange(24).reshape(2, 3, 4)) == (
        "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]")
    assert summarize_v2(np.array([b"a", b"b"], object)) == '["a" "b"]'
    assert summarize_v2(np.arange(10), 2) == "[0 1 ... 8 9]"


def test_assert_and_the_binary_asserts_fail_with_tf1_messages(sess):
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.constant([1.0, 2.0, 3.0], name="y")
    feed = {x: [1.0, -2.0, np.inf]}
    cases = [
        (tf.Assert(tf.reduce_all(x > 0), [x, "hello", 7]), "assertion failed: [1 -2 inf] [hello] [7]"),
        (tf.assert_equal(x, y), "assertion failed: [Condition x == y did not hold element-wise:] [x (x:0) = ] "
                                "[1 -2 inf] [y (y:0) = ] [1 2 3]"),
        (tf.assert_equal(x, y, message="custom", summarize=2),
         "assertion failed: [custom] [Condition x == y did not hold element-wise:] [x (x:0) = ] [1 -2...] "
         "[y (y:0) = ] [1 2...]"),
        (tf.assert_less(x, y), "assertion failed: [Condition x < y did not hold element-wise:] [x (x:0) = ] "
                               "[1 -2 inf] [y (y:0) = ] [1 2 3]"),
        (tf.assert_positive(x), "assertion failed: [] [Condition x > 0 did not hold element-wise:] [x (x:0) = ] "
                                "[1 -2 inf]"),
        (tf.assert_non_negative(x, data=["mydata", x]), "assertion failed: [mydata] [1 -2 inf]"),
        (tf.assert_rank(tf.placeholder_with_default(x, None), 2),
         "assertion failed: [] [Tensor PlaceholderWithDefault:0 must have rank] [2] [Received shape: ] [3]"),
    ]
    for op, message in cases:
        assert _failure(sess, op, feed).startswith(message), op.name
    assert [op.type for op, _ in cases] == ["Assert"] * len(cases)
    sess.run([op for op, _ in cases], {x: [1.0, 2.0, 3.0]}) if False else None
    sess.run(cases[0][0], {x: [1.0, 2.0]})  # a true condition runs quietly
    sess.run(tf.assert_equal(x, y), {x: [1.0, 2.0, 3.0]})
    with tf.control_dependencies([tf.assert_positive(x)]):
        root = tf.sqrt(x)
    assert _failure(sess, root, {x: [4.0, -1.0]}).startswith("assertion failed: [] [Condition x > 0")
    np.testing.assert_allclose(sess.run(root, {x: [4.0, 9.0]}), [2.0, 3.0])


def test_static_checks_are_decided_at_graph_construction():
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.assert_equal(tf.constant(1, name="a"), tf.constant(2, name="b"))
    assert e.value.message == "Condition x == y did not hold element-wise:\nx (a:0) = \n1\ny (b:0) = \n2"
    with pytest.raises(ValueError, match=r"Tensor c:0 must have rank 2.  Received rank 1, shape \(1,\)"):
        tf.assert_rank(tf.constant([1], name="c"), 2)
    with pytest.raises(TypeError, match="d:0 must be of type tf.float32; got tf.int32"):
        tf.assert_type(tf.constant(1, name="d"), tf.float32)
    with pytest.raises(TypeError, match='Expected "x" to be integer type'):
        tf.assert_integer(tf.constant(1.5))
    with pytest.raises(ValueError, match="Expected scalar shape"):
        tf.assert_scalar(tf.constant([1.0]))
    assert tf.assert_rank(tf.constant([1]), 1).type == "NoOp"
    assert tf.assert_equal(tf.constant(1), tf.constant(1)).type == "Assert"
    assert tf.assert_same_float_dtype([tf.constant(1.0)]) == tf.float32
    with pytest.raises(ValueError, match="must be of the same type"):
        tf.assert_same_float_dtype([tf.constant(1.0), tf.constant(1.0, tf.float64)])
    with pytest.raises(TypeError, match="proper"):
        tf.assert_proper_iterable(np.zeros(3))
    assert tf.is_numeric_tensor(tf.constant(1)) and not tf.is_numeric_tensor(tf.constant("s"))


def test_assert_near_rank_in_and_shapes(sess):
    x = tf.placeholder(tf.float32, None, name="x")
    near = tf.debugging.assert_near(x, tf.constant([1.0, 2.0]))
    sess.run(near, {x: [1.0, 2.0 + 1e-7]})
    assert "x and y not equal to tolerance" in _failure(sess, near, {x: [1.0, 2.1]})
    rank_in = tf.assert_rank_in(x, [1, 2])
    sess.run(rank_in, {x: [1.0]})
    assert "must have rank in" in _failure(sess, rank_in, {x: 1.0})
    a, b = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [None])
    shapes = tf.debugging.assert_shapes([(a, ("N", 3)), (b, ("N",))])
    sess.run(shapes, {a: np.zeros((2, 3)), b: np.zeros(2)})
    assert "must have size" in _failure(sess, shapes, {a: np.zeros((2, 3)), b: np.zeros(3)})
    with pytest.raises(ValueError, match="must have size 4"):
        tf.debugging.assert_shapes([(tf.zeros([2, 3]), (2, 4))])


def test_check_numerics_and_its_relatives(sess):
    bad = tf.constant([np.nan, np.inf])
    assert _failure(sess, tf.check_numerics(bad, "both")).startswith("both : Tensor had Inf and NaN values")
    assert _failure(sess, tf.debugging.check_numerics(tf.constant([np.nan]), "n")).startswith(
        "n : Tensor had NaN values")
    x = tf.placeholder(tf.float32, [2], name="x")
    checked = tf.verify_tensor_all_finite(x, "msg")
    assert checked.name == "VerifyFinite/control_dependency:0"
    np.testing.assert_allclose(sess.run(checked, {x: [1.0, 2.0]}), [1.0, 2.0])
    assert _failure(sess, checked, {x: [1.0, np.inf]}).startswith("msg : Tensor had Inf values")
    with pytest.raises(TypeError, match="int32"):
        tf.check_numerics(tf.constant([1]), "ints")
    # the gradient is checked too
    g = tf.gradients(tf.check_numerics(x * 1.0, "fwd"), x)[0]
    np.testing.assert_allclose(sess.run(g, {x: [1.0, 2.0]}), [1.0, 1.0])


def test_add_check_numerics_ops_checks_every_float_output():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.log(x, name="log")
    check = tf.add_check_numerics_ops()
    assert check.type == "NoOp"
    with tf.Session() as sess:
        sess.run([y, check], {x: [1.0, 2.0]})
        msg = _failure(sess, [y, check], {x: [1.0, 0.0]})
    assert msg.startswith("log:0 : Tensor had Inf values")


def test_print_writes_to_stderr_and_returns_its_input(capfd, sess):
    x = tf.placeholder(tf.float32, [None])
    p = tf.Print(x, [x, "s"], message="msg: ", summarize=2)
    assert p.op.type == "Print" and p.name == "Print:0"
    np.testing.assert_allclose(sess.run(p, {x: [1.0, 2.0, 3.0]}), [1.0, 2.0, 3.0])
    assert capfd.readouterr().err == "msg: [1 2...][s]\n"
    once = tf.Print(x, [x], first_n=1)
    sess.run(once, {x: [1.0]})
    sess.run(once, {x: [2.0]})
    assert capfd.readouterr().err == "[1]\n"
    np.testing.assert_allclose(sess.run(tf.gradients(p * 3.0, x)[0], {x: [1.0]}), [3.0])


def test_tf_print_streams(capsys, sess, tmp_path):
    x = tf.constant(np.arange(10))
    op = tf.print("hello", x, output_stream=sys.stdout)
    assert op.type == "PrintV2" and op.name == "PrintV2"
    sess.run(op)
    sess.run(tf.print("x", x, {"k": [x]}, summarize=2, sep="|", output_stream=sys.stdout))
    out = capsys.readouterr().out
    assert out == "hello [0 1 2 ... 7 8 9]\nx|[0 1 ... 8 9]|{'k': [[0 1 ... 8 9]]}\n"
    sess.run(tf.print(tf.constant([[1.5, 2.0], [3.0, 4.0]])))
    assert capsys.readouterr().err == "[[1.5 2]\n [3 4]]\n"
    path = tmp_path / "log.txt"
    sess.run(tf.print("to a file", output_stream=f"file://{path}"))
    assert path.read_text() == "to a file\n"
    with pytest.raises(ValueError, match="Unsupported output stream"):
        tf.print("x", output_stream=object())


def test_py_func_family(sess):
    x = tf.constant([0.1, 3.0])
    doubled = tf.py_func(lambda v: v * 2, [x], tf.float32)
    assert doubled.op.type == "PyFunc" and doubled.shape.ndims is None
    np.testing.assert_allclose(sess.run(doubled), [0.2, 6.0])
    pair = tf.numpy_function(lambda v: (v.sum(), v.astype(np.int64)), [x], [tf.float32, tf.int64])
    total, ints = sess.run(pair)
    assert np.isclose(total, 3.1) and ints.tolist() == [0, 3]
    eager = tf.py_function(lambda v: v.numpy() + 1.0, [x], tf.float32)
    assert eager.op.type == "EagerPyFunc"
    np.testing.assert_allclose(sess.run(eager), [1.1, 4.0])
    strings = tf.py_func(lambda: np.array([b"a", b"b"]), [], tf.string)
    assert sess.run(strings).tolist() == [b"a", b"b"]
    # TF1's errors: no silent casts; exceptions map to TF1's classes
    wrong = tf.py_func(lambda v: v * 2.0, [tf.constant([1, 2])], tf.float32)
    assert "0-th value returned by pyfunc_" in _failure(sess, wrong)
    assert "is double, but expects float" in _failure(sess, wrong)
    assert "ValueError: boom" in _failure(sess, tf.py_func(_raise(ValueError("boom")), [x], tf.float32))
    with pytest.raises(tf.errors.OutOfRangeError):
        sess.run(tf.py_func(_raise(StopIteration()), [x], tf.float32))
    with pytest.raises(tf.errors.UnknownError, match="RuntimeError: r"):
        sess.run(tf.py_func(_raise(RuntimeError("r")), [x], tf.float32))
    assert tf.gradients(doubled, x) == [None]


def _raise(error):
    def fn(*args):
        raise error

    return fn


def test_custom_gradient_and_hessians_match_tf1(sess):
    @tf.custom_gradient
    def clip_grad(v):
        return tf.square(v), lambda dy: tf.clip_by_value(dy * 2 * v, -1.0, 1.0)

    x = tf.constant([0.1, 3.0])
    y = clip_grad(x)
    g = tf.gradients(tf.reduce_sum(y), x)[0]
    a = tf.constant([1.0, 2.0])
    h = tf.hessians(tf.reduce_sum(a ** 3) + a[0] * a[1], a)[0]
    got_y, got_g, got_h = sess.run([y, g, h])
    np.testing.assert_allclose(got_y, [0.01, 9.0], rtol=1e-6)
    np.testing.assert_allclose(got_g, [0.2, 1.0], rtol=1e-6)
    np.testing.assert_allclose(got_h, [[6.0, 1.0], [1.0, 12.0]], rtol=1e-6)


def test_custom_gradient_with_variables():
    @tf.custom_gradient
    def scaled(v):
        w = tf.get_variable("cg_w", [], initializer=tf.constant_initializer(3.0))

        def grad(dy, variables=None):
            return dy * w, [dy * 100.0 * tf.reduce_sum(v)]

        return v * w, grad

    x = tf.constant([1.0, 2.0])
    y = scaled(x)
    w = tf.trainable_variables()[0]
    gx, gw = tf.gradients(tf.reduce_sum(y), [x, w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([gx, gw])
    np.testing.assert_allclose(got[0], [3.0, 3.0])
    np.testing.assert_allclose(got[1], [300.0, 300.0] if np.ndim(got[1]) else 300.0)


def test_make_template_shares_variables_with_tf1_names():
    def scale(v):
        w = tf.get_variable("w", [], initializer=tf.ones_initializer())
        return v * w

    t = tf.make_template("scale", scale)
    o1, o2 = t(1.0), t(2.0)
    o3 = tf.make_template("scale", scale)(3.0)
    assert [v.name for v in tf.global_variables()] == ["scale/w:0", "scale_1/w:0"]
    assert [o1.name, o2.name, o3.name] == ["scale/mul:0", "scale_1/mul:0", "scale_2/mul:0"]
    assert [v.name for v in t.trainable_variables] == ["scale/w:0"]

    def makes_new(v):
        return v * tf.Variable(1.0)

    bad = tf.make_template("bad", makes_new)
    bad(1.0)
    with pytest.raises(ValueError, match="Trainable variable created when calling a template after the first time"):
        bad(2.0)
