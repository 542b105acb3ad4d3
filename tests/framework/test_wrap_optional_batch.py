"""tf.wrap_function, tf.OptionalSpec / tf.data.experimental.Optional and tf.nondifferentiable_batch_function.

Expected values, names and error classes are TF 2.15's (tf.compat.v1, graph mode).
"""

import threading

import numpy as np
import pytest

import dflow as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


# -- wrap_function ------------------------------------------------------------------------------------


def _f_get_variable(x):
    v = tf.get_variable("v", shape=[], initializer=tf.constant_initializer(2.0))
    return {"y": x * v + 1.0, "z": [x + 3.0]}


def test_wrap_function_creates_variables_once_and_calls_into_the_graph():
    wf = tf.wrap_function(_f_get_variable, [tf.TensorSpec([None], tf.float32, name="x")])
    assert wf.graph.name == "wrapped_function"
    assert wf.inputs[0].name == "x:0" and len(wf.outputs) == 2
    assert sorted(wf.structured_outputs) == ["y", "z"] and isinstance(wf.structured_outputs["z"], list)
    assert [v.name for v in wf.variables] == ["v:0"] and [v.name for v in wf.trainable_variables] == ["v:0"]
    assert [v.name for v in tf.global_variables()] == ["v:0"]
    assert repr(wf.structured_input_signature) == "((TensorSpec(shape=(None,), dtype=tf.float32, name='x'),), {})"
    x = tf.placeholder(tf.float32, [None], name="xin")
    out = wf(x)
    assert out["y"].name == "StatefulPartitionedCall:0" and out["z"][0].name == "StatefulPartitionedCall:1"
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(out, {x: [1.0, 2.0]})
        sess.run(tf.global_variables_initializer())
        got = sess.run(out, {x: [1.0, 2.0]})
    np.testing.assert_array_equal(got["y"], [3.0, 5.0])
    np.testing.assert_array_equal(got["z"][0], [4.0, 5.0])


def _f_assign(x, do_add):
    v = tf.Variable(5.0, name="va" if do_add else "vs")
    op = v.assign_add(x) if do_add else v.assign_sub(x)
    with tf.control_dependencies([op]):
        return v.read_value()


def test_wrap_function_python_arguments_and_assignments():
    with tf.name_scope("outer"):  # the function graph starts a fresh name stack
        f_add = tf.wrap_function(_f_assign, [tf.TensorSpec((), tf.float32), True])
    f_sub = tf.wrap_function(_f_assign, [tf.TensorSpec((), tf.float32), False], name="sub")
    assert (f_add.graph.name, f_sub.graph.name) == ("wrapped_function", "wrapped_function_sub")
    assert [v.name for v in f_add.variables] == ["va:0"] and [v.name for v in f_sub.variables] == ["vs:0"]
    assert repr(f_add.structured_input_signature) == \
        "((TensorSpec(shape=(), dtype=tf.float32, name='tensor_0'), True), {})"
    a, b, a2 = f_add(1.0), f_sub(tf.constant(1.0)), f_add(2)
    assert a.op.type == "StatefulPartitionedCall" and a.shape == tf.TensorShape([])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert [sess.run(a), sess.run(a), sess.run(b), sess.run(a2)] == [6.0, 7.0, 4.0, 9.0]


def test_wrap_function_call_errors():
    f_add = tf.wrap_function(_f_assign, [tf.TensorSpec((), tf.float32), True])
    with pytest.raises(NotImplementedError, match="Keyword arguments are not supported"):
        f_add(x=1.0)
    with pytest.raises(ValueError, match="Signature specifies 1 arguments, got: 0"):
        f_add()
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype int32"):
        f_add(tf.constant(1, tf.int32))
    with pytest.raises(ValueError, match=r"Expected shape \(\), but got shape \(2,\)"):
        f_add(tf.constant([1.0, 2.0]))
    with pytest.raises(TypeError):
        f_add("a")
    with pytest.raises(TypeError, match="found return value of type Operation"):
        tf.wrap_function(lambda x: tf.no_op(name="myop"), [tf.TensorSpec([], tf.float32)])


def test_wrap_function_nested_signature():
    def h(d, t):
        return {"s": d["a"] + t[0], "p": d["b"] * t[1], "n": None}

    wh = tf.wrap_function(h, [{"a": tf.TensorSpec([], tf.float32), "b": tf.TensorSpec([], tf.float32)},
                              (tf.TensorSpec([], tf.float32, name="t0"), tf.TensorSpec([], tf.float32))])
    assert [t.name for t in wh.inputs] == ["Placeholder:0", "Placeholder_1:0", "t0:0", "Placeholder_2:0"]
    assert [t.name for t in wh.outputs] == ["mul:0", "add:0"]  # flattened by sorted key: n, p, s
    assert wh.structured_outputs["n"] is None
    (args, kwargs) = wh.structured_input_signature
    assert [args[0]["a"].name, args[0]["b"].name, args[1][0].name, args[1][1].name] == \
        ["tensor_0_a", "tensor_0_b", "t0", "tensor_1_1"]
    out = wh(1.0, 2.0, 3.0, 4.0)  # flat tensors (TF 2.15's own call of a nested signature fails)
    assert out["n"] is None
    assert tf.Session().run({"s": out["s"], "p": out["p"]}) == {"s": 4.0, "p": 8.0}


def _k(x):
    y = tf.add(x, 1.0, name="y")
    z = tf.multiply(y, 2.0, name="z")
    return tf.square(z, name="w")


def test_prune():
    wk = tf.wrap_function(_k, [tf.TensorSpec([None], tf.float32, name="x")])
    g = wk.graph
    pr = wk.prune(feeds=g.get_tensor_by_name("y:0"), fetches=[g.get_tensor_by_name("w:0"), "z:0"])
    assert pr.graph.name == "pruned" and pr.structured_input_signature is None
    assert [t.name for t in pr.inputs] == ["y:0"] and [t.name for t in pr.outputs] == ["w:0", "z:0"]
    assert [t.name for t in pr.structured_outputs] == ["w:0", "z:0"]
    pr2 = wk.prune(wk.inputs, {"out": "z:0", "op": g.get_operation_by_name("w")}, name="pp")
    assert pr2.graph.name == "pp" and [t.name for t in pr2.inputs] == ["x:0"]
    assert pr2.structured_outputs["op"] is None and pr2.structured_outputs["out"].name == "z:0"
    assert [o.name for o in pr2.graph.control_outputs] == ["w"]
    xx = tf.constant([1.0, 2.0])
    r1, r2, r3 = pr(xx), pr2(xx), pr(y=xx)
    assert r1[0].op.type == "PartitionedCall" and r2["op"] is None
    with tf.Session() as sess:
        got = sess.run([r1, r2["out"], r3])
    np.testing.assert_array_equal(got[0][0], [4.0, 16.0])
    np.testing.assert_array_equal(got[0][1], [2.0, 4.0])
    np.testing.assert_array_equal(got[1], [4.0, 6.0])
    np.testing.assert_array_equal(got[2][0], [4.0, 16.0])


def test_prune_errors():
    wk = tf.wrap_function(_k, [tf.TensorSpec([None], tf.float32, name="x")])
    pr = wk.prune(feeds=wk.graph.get_tensor_by_name("y:0"), fetches="z:0")
    with pytest.raises(ValueError, match="Signature specifies 1 arguments, got: 0"):
        pr()
    with pytest.raises(TypeError, match=r"expected argument #0\(zero-based\) to be a Tensor; got float"):
        pr(2.0)
    with pytest.raises(TypeError, match="Can not convert a float into a Tensor or Operation"):
        wk.prune(feeds=[1.0], fetches="z:0")
    with pytest.raises(KeyError, match="nothere"):
        wk.prune(feeds=[], fetches="nothere:0")
    outer = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="is not an element of this graph"):
        wk.prune(feeds=[outer], fetches="z:0")
    with pytest.raises(ValueError, match="Can only prune function whose feeds and fetches from graph"):
        wk.prune(feeds=wk.inputs, fetches=outer)


def test_prune_keeps_variables():
    def vv(x):
        v = tf.get_variable("vv", shape=[], initializer=tf.constant_initializer(3.0))
        return tf.identity(x * v, name="out")

    wv = tf.wrap_function(vv, [tf.TensorSpec([], tf.float32)])
    pv = wv.prune(wv.inputs, wv.outputs)
    assert [v.name for v in pv.variables] == ["vv:0"]
    out = pv(tf.constant(2.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(out) == [6.0]


def test_wrap_function_gradients():
    wk = tf.wrap_function(_k, [tf.TensorSpec([None], tf.float32, name="x")])
    x = tf.constant([1.0, 2.0])
    (gx,) = tf.gradients(wk(x), x)

    def m(x):
        w = tf.get_variable("mw", shape=[2], initializer=tf.constant_initializer([2.0, 3.0]))
        return tf.reduce_sum(x * w)

    wm = tf.wrap_function(m, [tf.TensorSpec([2], tf.float32)])
    ym = wm(x)
    gm = tf.gradients(ym, [x, wm.variables[0]])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(gx), [16.0, 24.0])
        got = sess.run(gm)
        assert sess.run(ym) == 8.0
    np.testing.assert_array_equal(got[0], [2.0, 3.0])
    np.testing.assert_array_equal(got[1], [1.0, 2.0])


# -- Optional and OptionalSpec -------------------------------------------------------------------------


def test_optional_from_value_and_empty():
    Opt = tf.data.experimental.Optional  # noqa: N806
    o = Opt.from_value({"a": tf.constant(1), "b": (tf.constant([1.0, 2.0]), tf.constant("s"))})
    spec_text = ("{'a': TensorSpec(shape=(), dtype=tf.int32, name=None), 'b': (TensorSpec(shape=(2,), "
                 "dtype=tf.float32, name=None), TensorSpec(shape=(), dtype=tf.string, name=None))}")
    assert repr(o.element_spec) == spec_text
    assert repr(o._type_spec) == f"OptionalSpec({spec_text},)"
    assert o._variant_tensor.name == "optional:0" and o._variant_tensor.dtype.name == "variant"
    hv, gv = o.has_value(), o.get_value()
    assert hv.name == "OptionalHasValue:0" and hv.dtype == tf.bool
    assert [gv["a"].name, gv["b"][0].name, gv["b"][1].name] == \
        ["OptionalGetValue:0", "OptionalGetValue:1", "OptionalGetValue:2"]
    assert gv["b"][0].shape == tf.TensorShape([2])
    e = Opt.empty(tf.TensorSpec([None, 2], tf.float32))
    assert e._variant_tensor.name == "OptionalNone:0"
    assert repr(e._type_spec) == "OptionalSpec(TensorSpec(shape=(None, 2), dtype=tf.float32, name=None),)"
    with tf.Session() as sess:
        has, value, empty_has = sess.run([hv, gv, e.has_value()])
        assert has and not empty_has
        assert value["a"] == 1 and value["b"][1] == b"s"
        np.testing.assert_array_equal(value["b"][0], [1.0, 2.0])
        with pytest.raises(tf.errors.InvalidArgumentError, match="The given optional does not have a value."):
            sess.run(e.get_value())


def test_optional_spec():
    S = tf.OptionalSpec  # noqa: N806
    assert tf.data.experimental.OptionalStructure is S
    sp = S(tf.TensorSpec([2], tf.float32))
    assert repr(sp) == "OptionalSpec(TensorSpec(shape=(2,), dtype=tf.float32, name=None),)"
    assert sp.value_type is tf.data.experimental.Optional
    assert sp == S(tf.TensorSpec([2], tf.float32)) and sp != S(tf.TensorSpec([3], tf.float32))
    assert hash(sp) == hash(S(tf.TensorSpec([2], tf.float32)))
    assert sp.is_compatible_with(S(tf.TensorSpec([None], tf.float32)))
    assert S(tf.TensorSpec([None], tf.float32)).is_compatible_with(sp)
    assert not sp.is_compatible_with(S(tf.TensorSpec([2], tf.int32)))
    assert not sp.is_compatible_with(tf.TensorSpec([2], tf.float32))
    o2 = tf.data.experimental.Optional.from_value(tf.constant([1.0, 2.0]))
    assert sp.is_compatible_with(o2) and S.from_value(o2) == sp
    assert repr(sp.most_specific_compatible_type(S(tf.TensorSpec([3], tf.float32)))) == \
        "OptionalSpec(TensorSpec(shape=(None,), dtype=tf.float32, name=None),)"
    assert repr(S({"a": tf.TensorSpec([], tf.int32)})) == \
        "OptionalSpec({'a': TensorSpec(shape=(), dtype=tf.int32, name=None)},)"


def test_get_next_as_optional():
    it = tf.data.make_initializable_iterator(tf.data.Dataset.range(2))
    opt = tf.data.experimental.get_next_as_optional(it)
    assert opt._variant_tensor.name == "IteratorGetNextAsOptional:0"
    assert repr(opt._type_spec) == "OptionalSpec(TensorSpec(shape=(), dtype=tf.int64, name=None),)"
    hv, gv = opt.has_value(), opt.get_value()
    assert gv.dtype == tf.int64 and gv.shape == tf.TensorShape([])
    with tf.Session() as sess:
        sess.run(it.initializer)
        assert [bool(sess.run(hv)) for _ in range(3)] == [True, True, False]
        sess.run(it.initializer)
        has, value = sess.run([hv, gv])
        assert has and value == 0
        assert sess.run(gv) == 1
        with pytest.raises(tf.errors.InvalidArgumentError, match="The given optional does not have a value."):
            sess.run(gv)


# -- nondifferentiable_batch_function ----------------------------------------------------------------------


def _counting(calls: list):
    def record(x):
        calls.append(x.shape)
        return x

    return record


def _run_threads(fn, n: int) -> dict:
    results, failures = {}, []

    def worker(i):
        try:
            results[i] = fn(i)
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not failures, failures
    return results


def _two_output_function(max_batch_size, timeout_micros, calls):
    @tf.nondifferentiable_batch_function(1, max_batch_size, timeout_micros)
    def f(a, b):
        a = tf.py_func(_counting(calls), [a], tf.float32, stateful=True)
        return a * 2.0 + b, tf.reduce_sum(b, axis=1)

    return f


def test_batch_function_op_and_single_call():
    calls = []
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.float32, [None, 2], name="y")
    out = _two_output_function(4, 1000, calls)(x, y)
    op = out[0].op
    assert [o.name for o in out] == ["batch/BatchFunction:0", "batch/BatchFunction:1"]
    assert op.type == "BatchFunction" and out[0].shape.ndims is None
    assert [(o.name, o.type) for o in tf.get_default_graph().get_operations()] == \
        [("x", "Placeholder"), ("y", "Placeholder"), ("batch/BatchFunction", "BatchFunction")]
    assert op.get_attr("shared_name") == "batch/" and op.get_attr("max_batch_size") == 4
    with tf.Session() as sess:
        a, b = sess.run(out, {x: [[1, 2]], y: [[3, 4]]})
        np.testing.assert_array_equal(a, [[5.0, 8.0]])
        np.testing.assert_array_equal(b, [7.0])
        assert calls == [(1, 2)]
        empty = sess.run(out, {x: np.ones([0, 2]), y: np.ones([0, 2])})  # TF: shape (0,), no call
        assert [e.shape for e in empty] == [(0,), (0,)] and calls == [(1, 2)]


def test_batch_function_batches_concurrent_runs():
    calls = []
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32, [None, 2])
    # The batch closes when the 4th caller arrives; the long timeout only guards a slow machine.
    out = _two_output_function(4, 30_000_000, calls)(x, y)
    rows_out = _two_output_function(6, 30_000_000, calls)(x, y)  # callers of 1, 2 and 3 rows fill it
    with tf.Session() as sess:
        res = _run_threads(lambda i: sess.run(out, {x: [[i, i]], y: [[i, 10 * i]]}), 4)
        assert calls == [(4, 2)]  # the function ran once, on all four rows
        for i in range(4):
            np.testing.assert_array_equal(res[i][0], [[3.0 * i, 12.0 * i]])
            np.testing.assert_array_equal(res[i][1], [11.0 * i])
        calls.clear()
        res = _run_threads(lambda i: sess.run(rows_out, {x: np.full([i + 1, 2], i, np.float32),
                                                         y: np.ones([i + 1, 2], np.float32)}), 3)
        assert calls == [(6, 2)]
        for i in range(3):
            np.testing.assert_array_equal(res[i][0], np.full([i + 1, 2], 2.0 * i + 1.0))
            np.testing.assert_array_equal(res[i][1], np.full([i + 1], 2.0))


def test_batch_function_pads_to_allowed_sizes_and_splits():
    calls = []

    @tf.nondifferentiable_batch_function(1, 8, 1000, allowed_batch_sizes=[2, 8])
    def g(a):
        return tf.py_func(_counting(calls), [a], tf.float32, stateful=True) + 1.0

    @tf.nondifferentiable_batch_function(1, 8, 1000, allowed_batch_sizes=[1, 2])
    def g2(a):
        return tf.py_func(_counting(calls), [a], tf.float32, stateful=True) + 1.0

    z = tf.placeholder(tf.float32, [None])
    gz, g2z = g(z), g2(z)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(gz, {z: [1.0, 2.0, 3.0]}), [2.0, 3.0, 4.0])
        np.testing.assert_array_equal(sess.run(gz, {z: [1.0]}), [2.0])
        assert calls == [(8,), (2,)]
        calls.clear()
        np.testing.assert_array_equal(sess.run(g2z, {z: [1.0, 2.0, 3.0]}), [2.0, 3.0, 4.0])
        assert calls == [(2,), (1,)]  # split into executions of at most 2 rows


@pytest.mark.parametrize("args, kwargs, message", [
    ((1, 4, 1000), {"allowed_batch_sizes": [4, 2]}, "allowed_batch_sizes entries must be monotonically increasing"),
    ((1, 4, 1000), {"allowed_batch_sizes": [1, 2], "enable_large_batch_splitting": False},
     "final entry in allowed_batch_sizes must equal max_batch_size when enable_large_batch_splitting is False"),
    ((1, 0, 1000), {}, "input_batch_size_limit must be positive; was 0"),
    ((1, 4, -1), {}, "batch_timeout_micros must be non-negative; was -1"),
    ((1, 4, 1000), {"max_enqueued_batches": 0}, "max_enqueued_batches must be positive; was 0"),
])
def test_batch_function_attr_errors(args, kwargs, message):
    @tf.nondifferentiable_batch_function(*args, **kwargs)
    def bad(a):
        return a + 1.0

    z = tf.placeholder(tf.float32, [None])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            sess.run(bad(z), {z: [1.0]})


def test_batch_function_accepts_what_tf_accepts():
    @tf.nondifferentiable_batch_function(0, 4, 1000, allowed_batch_sizes=[1, 2])
    def ok(a):
        return {"k": a + 1.0}

    z = tf.placeholder(tf.float32, [None])
    out = ok(z)
    assert list(out) == ["k"]
    c = tf.constant(10.0)

    @tf.nondifferentiable_batch_function(1, 4, 1000)
    def cap(a):
        return a + c

    oc = cap(z)
    assert [t.name for t in oc.op.inputs] == ["Placeholder:0", "Const:0"]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out["k"], {z: [1.0]}), [2.0])
        np.testing.assert_array_equal(sess.run(oc, {z: [1.0, 2.0]}), [11.0, 12.0])


def test_batch_function_input_and_output_errors():
    calls = []
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32, [None, 2])
    out = _two_output_function(4, 1000, calls)(x, y)

    @tf.nondifferentiable_batch_function(1, 4, 1000)
    def one(a):
        return a * 3.0

    @tf.nondifferentiable_batch_function(1, 4, 1000)
    def red(a):
        return tf.reduce_sum(a)

    @tf.nondifferentiable_batch_function(1, 4, 1000)
    def nothing(a):
        return None

    z = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match="are supposed to be Tensors; found 1.0"):
        one(1.0)
    with pytest.raises(AttributeError):  # what TF 2.15 raises first (it reads 1.0.dtype)
        one(1.0)
    with pytest.raises(ValueError, match="Attr 'Tout' of 'BatchFunction' Op passed list of length 0"):
        nothing(z)
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        one(z, z)
    with pytest.raises(TypeError, match="unexpected keyword argument 'a'"):
        one(a=z)
    scalar, reduced = one(tf.constant(1.0)), red(z)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Task size 6 is larger than maximum input batch "
                                                                 "size 4"):
            sess.run(out, {x: np.ones([6, 2]), y: np.ones([6, 2])})
        with pytest.raises(tf.errors.InvalidArgumentError, match="must have equal 0th-dimension size"):
            sess.run(out, {x: np.ones([2, 2]), y: np.ones([3, 2])})
        with pytest.raises(tf.errors.InvalidArgumentError, match="must have at least one dimension"):
            sess.run(scalar)
        with pytest.raises(tf.errors.FailedPreconditionError, match="Batched output tensor has 0 dimensions"):
            sess.run(reduced, {z: [1.0, 2.0]})
    assert calls == []


def test_batch_function_has_no_gradient():
    @tf.nondifferentiable_batch_function(1, 4, 1000)
    def one(a):
        return a * 3.0

    z = tf.placeholder(tf.float32, [None])
    with pytest.raises(LookupError, match="No gradient defined for operation 'batch/BatchFunction' "
                                          r"\(op type: BatchFunction\)"):
        tf.gradients(one(z), z)
