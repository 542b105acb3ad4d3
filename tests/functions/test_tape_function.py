"""tf.GradientTape and tf.function in graph mode; expected values, names and errors are TF 2.15's
(tf.compat.v1 after disable_eager_execution, printed by the same programs)."""

import numpy as np
import pytest

import dflow as tf

NON_PERSISTENT = "A non-persistent GradientTape can only be used to compute one set of gradients"


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# -- GradientTape: tensors -------------------------------------------------------------------


def test_quadratic_value_names_and_single_use(sess):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x + 2.0 * x
    g = tape.gradient(y, x)
    assert g.name == "AddN:0"
    names = [o.name for o in tf.get_default_graph().get_operations()]
    assert {"gradient_tape/mul/Mul", "gradient_tape/mul/Mul_1", "gradient_tape/mul_1/Mul_1"} <= set(names)
    close(sess.run(g), 8.0)
    with pytest.raises(RuntimeError, match=NON_PERSISTENT):
        tape.gradient(y, x)


def test_only_watched_and_recorded_paths(sess):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None  # not watched
    with tf.GradientTape() as tape:
        y = x * x
        tape.watch(x)
    assert tape.gradient(y, x) is None  # watched after the op was made
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    z = y * 3.0
    assert tape.gradient(z, x) is None  # z's op made outside the block
    zero = tape.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert zero.name.startswith("zeros_like")
    close(sess.run(zero), 0.0)
    close(sess.run(tape.gradient(z, x, unconnected_gradients="zero")), 0.0)
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'bogus'"):
        tape.gradient(z, x, unconnected_gradients="bogus")
    close(sess.run(tape.gradient(x, x)), 1.0)
    w = x * 4.0
    c = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y2 = w * x
        y3 = x * c
        k = c * 5.0
    close(sess.run(tape.gradient(y2, x)), 12.0)
    assert tape.gradient(y2, w) is None and tape.gradient(y3, c) is None and tape.gradient(k, c) is None
    close(sess.run(tape.gradient(y3, y3)), 1.0)
    close(sess.run(tape.gradient(c, c)), 1.0)


def test_integer_and_none_targets():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        yi = tf.cast(x, tf.int32) * 2
    assert tape.gradient(yi, x) is None
    with pytest.raises(TypeError, match="Argument `target` should be a list or nested structure"):
        tape.gradient(None, x)


def test_nested_targets_sources_and_output_gradients(sess):
    a, b = tf.constant([1.0, 2.0]), tf.constant(5.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y1 = tf.reduce_sum(a * a) * b
        y2 = a * b
    r = sess.run(tape.gradient([y1, y2], {"a": a, "bb": [b, (a,)]}))
    close(r["a"], [15.0, 25.0])
    close(r["bb"][0], 8.0)
    close(r["bb"][1][0], [15.0, 25.0])
    r = sess.run(tape.gradient({"p": y1, "q": y2}, [a, b], output_gradients={"p": 2.0, "q": tf.constant([1.0, -1.0])}))
    close(r[0], [25.0, 35.0])
    close(r[1], 9.0)
    a2 = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(a2)
        p, q = a2 * 3.0, a2 * a2
    close(sess.run(tape.gradient([p, q], a2, output_gradients=[2.0])), 10.0)  # missing: ones
    close(sess.run(tape.gradient([p, q], a2, output_gradients=[2.0, 1.0, 5.0])), 10.0)  # extra: ignored


def test_stop_recording_reset_and_errors(sess):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tape.stop_recording():
            y = x * x
        y3 = x * y
    assert tape.gradient(y, x) is None
    close(sess.run(tape.gradient(y3, x)), 9.0)
    with pytest.raises(ValueError, match="Tape is not recording."):
        with tape.stop_recording():
            pass
    with pytest.raises(RuntimeError, match="Trying to stop recording a tape which is not recording."):
        with tf.GradientTape().stop_recording():
            pass
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        tape.watch(x)
        y4 = y * x
    close(sess.run(tape.gradient(y4, x)), 9.0)
    with pytest.raises(ValueError, match="Tape is not recording."):
        tape.reset()
    t = tf.GradientTape()
    with t:
        with pytest.raises(ValueError, match="Tape is still recording, This can happen if you try to re-enter"):
            with t:
                pass
    with pytest.raises(ValueError, match="Passed in object abc of type 'str', not tf.Tensor or tf.Variable"):
        with tf.GradientTape() as t:
            t.watch("abc")
    assert tf.GradientTape().watched_variables() == ()


def test_gradient_inside_the_block(sess):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        g = tape.gradient(y, x)  # a non-persistent tape stops recording here
        y5 = y * 2
    close(sess.run(g), 6.0)
    with pytest.raises(RuntimeError, match=NON_PERSISTENT):
        tape.gradient(y5, x)
    with tf.GradientTape(persistent=True) as tp:
        tp.watch(x)
        y = x * x
        g = tp.gradient(y, x)  # TF warns; the gradient ops are recorded
        g2 = g * x
    close(sess.run([g, tp.gradient(g2, x)]), [6.0, 12.0])


def test_nested_tapes_second_derivative(sess):
    x = tf.constant(1.5)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = x ** 3 + tf.sin(x)
        dy = t1.gradient(y, x)
    d2y = t2.gradient(dy, x)
    close(sess.run([y, dy, d2y]), [4.372495, 6.8207374, 8.002505])
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            y = x ** 3
        assert t1.gradient(y, x) is None


def test_while_loop_inside_the_tape(sess):
    v = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(v)
        _, r = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * v + 1.0), [tf.constant(0), tf.ones([2])])
        loss = tf.reduce_sum(r)
    gv = t.gradient(loss, v)
    r_val, g_val = sess.run([r, gv])
    close(r_val, [4.0, 15.0])
    close(g_val, [6.0, 17.0])


# -- GradientTape: variables -----------------------------------------------------------------


def test_matmul_relu_network_with_variables(sess):
    W = tf.Variable([[0.5, -1.0, 0.25], [1.5, 0.75, -0.5]], name="W")
    b = tf.Variable([0.1, -0.2, 0.3], name="b")
    nt = tf.Variable(2.0, trainable=False, name="nt")
    X = tf.constant([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]])
    with tf.GradientTape(persistent=True) as tape:
        h = tf.nn.relu(tf.matmul(X, W) + b)
        loss = tf.reduce_sum(h * h) * nt
    assert [v.name for v in tape.watched_variables()] == ["W:0", "b:0"]
    gW, gb, gnt = tape.gradient(loss, [W, b, nt])
    assert gnt is None  # not trainable: not watched
    sess.run(tf.global_variables_initializer())
    close(sess.run(loss), 30.157497)
    close(sess.run(gW), [[13.0, -3.4999998, 0.87000006], [29.5, 4.75, -2.03]])
    close(sess.run(gb), [15.799999, 5.8999996, 2.9])


def test_watch_accessed_variables_false_and_explicit_watch(sess):
    W = tf.Variable([[0.5, -1.0, 0.25], [1.5, 0.75, -0.5]], name="W")
    b = tf.Variable([0.1, -0.2, 0.3], name="b")
    nt = tf.Variable(2.0, trainable=False, name="nt")
    with tf.GradientTape(watch_accessed_variables=False, persistent=True) as tape:
        tape.watch(b)
        loss2 = tf.reduce_sum(W * 2.0) + tf.reduce_sum(b * b)
    assert [v.name for v in tape.watched_variables()] == ["b:0"]
    gW, gb = tape.gradient(loss2, [W, b])
    assert gW is None
    with tf.GradientTape() as tape:
        tape.watch(nt)
        l3 = nt * nt
    assert [v.name for v in tape.watched_variables()] == ["nt:0"]
    g = tape.gradient(l3, nt)
    assert [v.name for v in tape.watched_variables()] == ["nt:0"]  # kept after the tape is used up
    sess.run(tf.global_variables_initializer())
    close(sess.run(gb), [0.2, -0.4, 0.6])
    close(sess.run(g), 4.0)


def test_variables_created_inside_and_accesses(sess):
    with tf.GradientTape() as tape:
        v = tf.Variable(3.0, name="inside")
        assert tape.watched_variables() == ()  # creating is no access
        l4 = v * v
    assert [x.name for x in tape.watched_variables()] == ["inside:0"]
    g = tape.gradient(l4, v)
    with tf.GradientTape() as tape:
        gv = tf.get_variable("gv", initializer=tf.constant([1.0, 2.0]))
        l5 = tf.reduce_sum(gv ** 3)
    assert [x.name for x in tape.watched_variables()] == ["gv:0"]
    g5 = tape.gradient(l5, gv)
    E = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3), name="E")
    with tf.GradientTape() as tape:
        l7 = tf.reduce_sum(tf.gather(E, [0, 2, 2]))
    g7 = tape.gradient(l7, E)
    with tf.GradientTape() as tape:
        l8 = tf.reduce_sum(tf.nn.embedding_lookup(E, [0, 2, 2]))
    assert isinstance(tape.gradient(l8, E), tf.IndexedSlices)  # sparse rows, as TF's
    V2, V3 = tf.Variable(1.0, name="V2"), tf.Variable(1.0, name="V3")
    with tf.GradientTape() as tape:
        V2.assign(3.0)
    assert [x.name for x in tape.watched_variables()] == ["V2:0"]
    with tf.GradientTape() as tape:
        r = V3.read_value()
    assert [x.name for x in tape.watched_variables()] == ["V3:0"]
    g3 = tape.gradient(r, V3)
    A, B = tf.Variable(1.0, name="A"), tf.Variable(2.0, name="B")
    with tf.GradientTape() as tape:
        tape.watch(B)
        tape.watch(A)
    assert [x.name for x in tape.watched_variables()] == ["A:0", "B:0"]  # order of construction
    sess.run(tf.global_variables_initializer())
    close(sess.run(g), 6.0)
    close(sess.run(g5), [3.0, 12.0])
    close(sess.run(tf.convert_to_tensor(g7)), [[1, 1, 1], [0, 0, 0], [2, 2, 2], [0, 0, 0]])
    close(sess.run(g3), 1.0)


# -- jacobian and batch_jacobian ---------------------------------------------------------------


def test_jacobian(sess):
    a = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(a)
        f = tf.stack([a[0] * a[1], tf.sin(a[2]), a[0] ** 2 * a[2]])
        f2 = tf.reshape(a * a, [3, 1]) * tf.constant([[1.0, 2.0]])
        c = tf.constant([5.0, 6.0])
        cf = c * 2.0
    expected = [[2.0, 1.0, 0.0], [0.0, 0.0, -0.9899925], [6.0, 0.0, 1.0]]
    J = t.jacobian(f, a)
    assert J.shape == (3, 3)
    close(sess.run(J), expected)
    close(sess.run(t.jacobian(f, a, experimental_use_pfor=False)), expected)
    J2 = t.jacobian(f2, [a, {"k": a}])
    assert J2[0].shape == (3, 2, 3)
    j2 = [[[2.0, 0, 0], [4.0, 0, 0]], [[0, 4.0, 0], [0, 8.0, 0]], [[0, 0, 6.0], [0, 0, 12.0]]]
    r = sess.run(J2)
    close(r[0], j2)
    close(r[1]["k"], j2)
    assert t.jacobian(cf, a) is None and t.jacobian(f, c) is None
    Jz = t.jacobian(cf, a, unconnected_gradients="zero")
    assert Jz.shape == (2, 3)
    close(sess.run(Jz), np.zeros((2, 3)))
    with tf.GradientTape() as t:
        t.watch(a)
        f = a * a
    close(sess.run(t.jacobian(f, a)), np.diag([2.0, 4.0, 6.0]))
    with pytest.raises(RuntimeError, match=NON_PERSISTENT):
        t.gradient(f, a)


def test_batch_jacobian(sess):
    xb = tf.constant([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]])
    with tf.GradientTape(persistent=True) as t:
        t.watch(xb)
        yb = tf.stack([xb[:, 0] * xb[:, 1], xb[:, 0] ** 2, tf.exp(xb[:, 1])], axis=1)
        yb3 = tf.reshape(yb, [3, 3, 1]) * 2.0
        cz = tf.constant(np.ones((3, 2), np.float32)) * 2.0
    bj = [[[2.0, 1.0], [2.0, 0.0], [0.0, 7.389056]], [[4.0, 3.0], [6.0, 0.0], [0.0, 54.59815]],
          [[-1.0, 0.5], [1.0, 0.0], [0.0, 0.36787945]]]
    BJ = t.batch_jacobian(yb, xb)
    assert BJ.shape == (3, 3, 2)
    close(sess.run(BJ), bj)
    BJ3 = t.batch_jacobian(yb3, xb, experimental_use_pfor=False)
    assert BJ3.shape == (3, 3, 1, 2)
    close(sess.run(BJ3), 2.0 * np.array(bj)[:, :, None, :])
    BJn = t.batch_jacobian(cz, xb)  # unconnected: zeros, as TF
    assert BJn.shape == (3, 2, 2)
    close(sess.run(BJn), np.zeros((3, 2, 2)))
    with pytest.raises(ValueError, match=r"Need first dimension of target shape \(\(3, 3\)\) and source shape "
                                         r"\(\(4, 2\)\) to match."):
        t.batch_jacobian(yb, tf.ones([4, 2]))
    with pytest.raises(ValueError, match=r"Shape \(2,\) must have rank at least 2"):
        t.batch_jacobian(xb[0], xb[0])


# -- tf.function -----------------------------------------------------------------------------


def test_function_values_python_args_and_gradients(sess):
    @tf.function
    def f(x, y=2.0):
        return x * y + 1.0

    x = tf.constant([1.0, 2.0])
    assert f.__name__ == "f" and f.python_function is not None
    r = f(x)
    assert r.name == "f/add:0"
    close(sess.run(r), [3.0, 5.0])
    close(sess.run(f(x, 3.0)), [4.0, 7.0])
    close(sess.run(f(x, y=tf.constant(0.5))), [1.5, 2.0])
    close(sess.run(f(2.0, 3.0)), 7.0)
    close(sess.run(tf.gradients(f(x, tf.constant(4.0)), x)[0]), [4.0, 4.0])
    close(sess.run(f(np.array([1.0, 2.0]))), [3.0, 5.0])

    @tf.function
    def h(d):
        return {"s": d["a"] + d["b"][0], "p": (d["a"] * d["b"][1],)}

    out = sess.run(h({"a": x, "b": [x, tf.constant(3.0)]}))
    close(out["s"], [2.0, 4.0])
    close(out["p"][0], [3.0, 6.0])
    plain = tf.function(lambda v: v * v)
    close(sess.run(plain(x)), [1.0, 4.0])

    class M:
        def __init__(self):
            self.k = tf.constant(10.0)

        @tf.function
        def call(self, v):
            return v + self.k

    close(sess.run(M().call(x)), [11.0, 12.0])

    @tf.function
    def rl(v):
        return [v, 2.0, None]

    r = rl(x)
    assert r[2] is None and isinstance(r[1], tf.Tensor) and r[1].dtype == tf.float32
    assert tf.function(lambda v: None)(x) is None
    assert tf.function(lambda v: 3)(x).dtype == tf.int32
    for kw in [dict(experimental_relax_shapes=True), dict(reduce_retracing=True), dict(jit_compile=True),
               dict(experimental_compile=True), dict(autograph=False), dict(experimental_follow_type_hints=True)]:
        close(sess.run(tf.function(lambda a: a * 2.0, **kw)(x)), [2.0, 4.0])


def test_function_input_signature():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def sig(x):
        return x * 2.0

    x = tf.constant([1.0, 2.0])
    assert sig.input_signature == (tf.TensorSpec([None], tf.float32),)
    with tf.Session() as sess:
        close(sess.run(sig(x)), [2.0, 4.0])
        close(sess.run(sig([1.0, 2.0])), [2.0, 4.0])
        close(sess.run(sig(np.array([1.0], np.float64))), [2.0])
        close(sess.run(sig(x=x)), [2.0, 4.0])
    spec = "for signature: (x: TensorSpec(shape=(None,), dtype=tf.float32, name=None))."
    with pytest.raises(TypeError, match=r"Binding inputs to tf.function failed due to `Can not cast TensorSpec\("
                                        r"shape=\(2,\), dtype=tf.int32, name=None\) to TensorSpec\(shape=\(None,\), "
                                        r"dtype=tf.float32, name=None\)`. Received args: \(<tf.Tensor") as e:
        sig(tf.constant([1, 2]))
    assert str(e.value).endswith(spec)
    with pytest.raises(TypeError, match=r"Can not cast TensorSpec\(shape=\(1, 1\), dtype=tf.float32"):
        sig(tf.constant([[1.0]]))
    with pytest.raises(TypeError, match="failed due to `too many positional arguments`"):
        sig(x, x)
    with pytest.raises(TypeError, match="failed due to `missing a required argument: 'x'`. Received args: \\(\\) "
                                        "and kwargs: {}"):
        sig()
    with pytest.raises(TypeError, match="failed due to `Expected float32, but got abc of type 'str'.`"):
        tf.function(lambda a: a, input_signature=[tf.TensorSpec([2])])("abc")
    with pytest.raises(TypeError, match=r"input_signature must be a possibly nested sequence of TensorSpec objects, "
                                        r"got invalid args \[1\] with types \[<class 'int'>\]."):
        tf.function(lambda a: a, input_signature=[[1]])
    with pytest.raises(TypeError, match="input_signature must be either a tuple or a list, got"):
        tf.function(lambda a: a, input_signature=tf.TensorSpec([None]))
    with pytest.raises(TypeError, match="input_signature missing type constraint for b"):
        tf.function(lambda a, b: a, input_signature=[tf.TensorSpec([2])])
    tf.function(lambda a: a, input_signature=[tf.TensorSpec([2])])(tf.placeholder(tf.float32, [None]))


def test_function_tensor_as_bool_is_a_type_error():
    @tf.function
    def cond_f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(TypeError, match="as a Python `bool` is not allowed.*no AutoGraph"):
        cond_f(tf.constant(-3.0))


def test_function_variable_rules(sess):
    x = tf.constant([1.0, 2.0])

    @tf.function
    def fv(v):
        return v * tf.Variable(3.0, name="fv_var")

    with pytest.raises(ValueError, match="tf.function only supports singleton tf.Variables created on the first call"):
        fv(x)
    assert [v.name for v in tf.global_variables()] == ["fv_var:0"]  # as TF: made before the check fails

    class Lazy:
        def __init__(self):
            self.v = None

        @tf.function
        def __call__(self, v):
            if self.v is None:
                self.v = tf.Variable(2.0, name="lazy")
            return v * self.v

    lazy = Lazy()
    a, b, c = lazy(x), lazy(x * 2.0), lazy(tf.constant(1.0))
    assert [v.name for v in tf.global_variables()] == ["fv_var:0", "lazy:0"]

    @tf.function
    def fc(v, make):
        if make:
            return v * tf.Variable(1.0, name="late")
        return v

    fc(x, False)
    with pytest.raises(ValueError, match="Creating variables on a non-first call to a function decorated with "
                                         "tf.function."):
        fc(x, True)

    @tf.function
    def fg(v):
        with tf.variable_scope("scope", reuse=tf.AUTO_REUSE):
            w = tf.get_variable("w", initializer=tf.constant([[1.0], [2.0]]))
        return tf.matmul(v, w)

    r1, r2 = fg(tf.constant([[1.0, 2.0]])), fg(tf.constant([[2.0, 4.0]]))
    assert [v.name for v in tf.global_variables()][-1] == "scope/w:0"
    sess.run(tf.global_variables_initializer())
    ra, rb, rc = sess.run([a, b, c])
    close(ra, [2.0, 4.0])
    close(rb, [4.0, 8.0])
    close(rc, 2.0)
    close(sess.run([r1, r2]), [[[5.0]], [[10.0]]])


def test_function_side_effects_and_tape(sess):
    w = tf.Variable([1.0, -1.0], name="w")

    @tf.function
    def step(d):
        w.assign_add(d)
        w.assign(w.read_value() * 2.0)
        return w.read_value() + 1.0

    r = step(tf.constant([1.0, 1.0]))
    sess.run(w.initializer)
    close(sess.run(r), [5.0, 1.0])
    close(sess.run(w), [4.0, 0.0])
    sess.run(w.initializer)
    x = tf.constant([1.0, 2.0])

    @tf.function
    def q(v):
        return tf.reduce_sum(v * v * w)

    with tf.GradientTape() as t:
        t.watch(x)
        y = q(x)
    assert [v.name for v in t.watched_variables()] == ["w:0"]
    gx, gw = sess.run(t.gradient(y, [x, w]))
    close(gx, [2.0, -4.0])
    close(gw, [1.0, 4.0])


def test_get_concrete_function(sess):
    @tf.function
    def fk(a, b):
        return {"sum": a + b, "diff": a - b}

    cf = fk.get_concrete_function(tf.TensorSpec([2], tf.float32), tf.TensorSpec([2], tf.float32))
    assert [t.name for t in cf.inputs] == ["a:0", "b:0"]
    assert set(cf.structured_outputs) == {"sum", "diff"} and len(cf.outputs) == 2
    assert cf.structured_input_signature == ((tf.TensorSpec([2], tf.float32, "a"),
                                              tf.TensorSpec([2], tf.float32, "b")), {})
    r = sess.run(cf(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])))
    close(r["sum"], [4.0, 6.0])
    close(r["diff"], [-2.0, -2.0])
    with pytest.raises(TypeError, match=r"Can not cast TensorSpec\(shape=\(3,\), dtype=tf.float32, name=None\) to "
                                        r"TensorSpec\(shape=\(2,\), dtype=tf.float32, name=None\)"):
        cf(tf.constant([1.0, 2.0, 3.0]), tf.constant([3.0, 4.0, 5.0]))
    x = tf.constant([[1.0, 2.0]])
    cf2 = fk.get_concrete_function(x, x)
    assert [t.shape for t in cf2.inputs[:2]] == [(1, 2), (1, 2)]
