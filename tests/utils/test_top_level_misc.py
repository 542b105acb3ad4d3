"""TF1 top-level helpers against TF 2.15 compat.v1 graph mode (/tmp/ref/utils/misc_ref.py, repeat_ref.py)."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.gradcheck import check_gradients


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def test_is_tensor_and_static_values():
    c = tf.constant([1, 2])
    v = tf.Variable(1.0, name="v")
    st = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    assert [tf.is_tensor(x) for x in (c, v, st, np.zeros(2), 1)] == [True, True, True, False, False]
    assert [tf.is_symbolic_tensor(x) for x in (c, v, st)] == [True, False, False]
    p = tf.placeholder(tf.float32, [None, 3])
    assert tf.get_static_value(c).tolist() == [1, 2]
    assert tf.get_static_value(p) is None and tf.get_static_value(5) == 5
    assert tf.get_static_value(tf.shape(p)) is None


def test_ensure_shape_and_broadcast_shapes():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    e = tf.ensure_shape(x, [2, None])
    assert (e.name, e.op.type, e.shape.as_list()) == ("EnsureShape:0", "EnsureShape", [2, 3])
    with pytest.raises(ValueError, match=r"\[2,4\] and \[\?,3\]"):
        tf.ensure_shape(x, [2, 4])
    bd = tf.broadcast_dynamic_shape(tf.constant([2, 1, 3]), tf.constant([4, 1]))
    assert (bd.name, bd.op.type, bd.dtype, bd.shape.as_list()) == ("BroadcastArgs:0", "BroadcastArgs", tf.int32, [3])
    assert tf.broadcast_dynamic_shape(tf.constant([2, 3], tf.int64), tf.constant([1], tf.int64)).dtype == tf.int64
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1, 3]), tf.TensorShape([4, 1])).as_list() == [2, 4, 3]
    assert tf.broadcast_static_shape(tf.TensorShape([None, 1]), tf.TensorShape([3])).as_list() == [None, 3]
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting\. Two shapes are compatible if for "
                                         r"each dimension pair they are either equal or one of them is 1\. "
                                         r"Received: \(2,\) and \(3,\)\."):
        tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))
    assert repr(tf.dimension_at_index(tf.TensorShape([2, None]), 0)) == "Dimension(2)"
    assert repr(tf.dimension_at_index(tf.TensorShape(None), 3)) == "Dimension(None)"
    (g,) = tf.gradients(e * 2.0, x)
    with tf.Session() as s:
        assert s.run(e, {x: np.zeros((2, 3))}).shape == (2, 3)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Shape of tensor x \[3,3\] is not compatible with expected shape \[2,\?\]\."):
            s.run(e, {x: np.zeros((3, 3))})
        assert s.run(bd).tolist() == [2, 4, 3]
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs\. \[3\]"):
            s.run(tf.broadcast_dynamic_shape(tf.constant([2]), tf.constant([3])))
        assert s.run(g, {x: np.zeros((2, 3))}).tolist() == [[2.0] * 3] * 2


def test_repeat_names_shapes_values_and_gradient():
    x = tf.constant([[1., 2.], [3., 4.]])
    got = []
    for reps, axis in [([1, 2], 0), (2, 0), (2, None), ([1, 2, 0, 1], None), (tf.placeholder(tf.int32, [2]), 1),
                       (3, 1)]:
        with tf.name_scope(None):
            r = tf.repeat(x, reps, axis=axis)
        got.append((r.name, r.shape.as_list()))
    assert got == [("Repeat/boolean_mask/GatherV2:0", [None, 2]), ("Repeat_1/Reshape_1:0", [4, 2]),
                   ("Repeat_2/Reshape_1:0", [8]), ("Repeat_3/boolean_mask/GatherV2:0", [None]),
                   ("Repeat_4/Reshape:0", [2, None]), ("Repeat_5/Reshape_1:0", [2, 6])]
    p = tf.placeholder(tf.float32, [None, 2])
    assert tf.repeat(p, 2, axis=1).shape.as_list() == [None, 4] and tf.repeat(p, 2, axis=0).shape.as_list() == [None, 2]
    fr = tf.constant([1.0, 2.0, 3.0])
    (gr,) = tf.gradients(tf.repeat(fr, [2, 0, 1]) * tf.constant([1.0, 2.0, 3.0]), fr)
    with tf.Session() as s:
        assert s.run(tf.repeat(tf.constant([[1, 2], [3, 4]]), [1, 2], axis=0)).tolist() == [[1, 2], [3, 4], [3, 4]]
        assert s.run(tf.repeat(tf.constant([[1, 2], [3, 4]]), 2)).tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
        assert s.run(gr).tolist() == [3.0, 0.0, 3.0]  # TF
        with pytest.raises(tf.errors.InvalidArgumentError, match="repeats must have 1 element or as many"):
            s.run(tf.repeat(fr, [1, 2]))
    rng = np.random.default_rng(0)
    check_gradients(lambda t: tf.repeat(t, [1, 3, 0], axis=1), rng.standard_normal((2, 3)))
    check_gradients(lambda t: tf.repeat(t, 2), rng.standard_normal((2, 2)))


def test_switch_case_parallel_stack_batch_gather_guarantee_const_timestamp():
    bi = tf.placeholder(tf.int32, [])
    sc = tf.switch_case(bi, [lambda: tf.constant(10), lambda: tf.constant(20)], default=lambda: tf.constant(-1))
    sc2 = tf.switch_case(bi, {1: lambda: tf.constant(20), 0: lambda: tf.constant(10)}, name="sw")
    assert (sc.name, sc2.name) == ("switch_case/indexed_case/Identity:0", "sw/indexed_case/Identity:0")
    with pytest.raises(ValueError, match=r"branch indices \(keys\) must form contiguous range of \[0 to 2\) but "
                                         r"found \{0,2\}"):
        tf.switch_case(bi, {0: lambda: tf.constant(10), 2: lambda: tf.constant(30)})
    ps = tf.parallel_stack([tf.constant([1, 2]), tf.constant([3, 4])])
    assert (ps.name, ps.op.type, ps.shape.as_list()) == ("parallel_stack/ParallelConcat:0", "ParallelConcat", [2, 2])
    with pytest.raises(ValueError, match="shape attr must be fully defined"):
        p = tf.placeholder(tf.float32, [None, 2])
        tf.parallel_stack([p, p])
    bg = tf.batch_gather(tf.constant([[1, 2, 3], [4, 5, 6]]), tf.constant([[2, 0], [1, 1]]))
    assert (bg.name, bg.shape.as_list()) == ("BatchGather/Reshape_3:0", [2, 2])
    fr = tf.constant([1.0, 2.0])
    gc = tf.guarantee_const(fr)
    assert (gc.name, gc.op.type) == ("GuaranteeConst:0", "GuaranteeConst")
    with pytest.raises(LookupError, match="GuaranteeConst"):
        tf.gradients(gc, fr)
    ts = tf.timestamp()
    assert (ts.name, ts.dtype, ts.shape.as_list()) == ("Timestamp:0", tf.float64, [])
    with tf.Session() as s:
        assert [s.run(sc, {bi: i}) for i in (0, 1, 5, -1)] == [10, 20, -1, -1]
        assert [s.run(sc2, {bi: i}) for i in (0, 1, 2)] == [10, 20, 20]
        assert s.run(ps).tolist() == [[1, 2], [3, 4]] and s.run(bg).tolist() == [[3, 1], [5, 5]]
        t0 = s.run(ts)
        assert isinstance(t0, np.float64) and s.run(ts) >= t0


def test_gradient_helpers_and_enums():
    xx = tf.constant(3.0)
    gpt = tf.grad_pass_through(lambda t: t * t)(xx)
    rc = tf.recompute_grad(lambda t: t * t * t)(xx)
    assert (tf.AggregationMethod.ADD_N, tf.AggregationMethod.DEFAULT, tf.AggregationMethod.EXPERIMENTAL_TREE,
            tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N) == (0, 0, 1, 2)
    assert str(tf.UnconnectedGradients.NONE) == "UnconnectedGradients.NONE" and tf.UnconnectedGradients.NONE.value \
        == "none" and tf.UnconnectedGradients("zero") is tf.UnconnectedGradients.ZERO
    assert [a.name for a in tf.VariableAggregation] == ["NONE", "SUM", "MEAN", "ONLY_FIRST_REPLICA"]
    assert tf.VariableAggregation.ONLY_FIRST_TOWER is tf.VariableAggregation.ONLY_FIRST_REPLICA
    assert [(a.name, a.value) for a in tf.VariableSynchronization] == [("AUTO", 0), ("NONE", 1), ("ON_WRITE", 2),
                                                                      ("ON_READ", 3)]
    (zero,) = tf.gradients(tf.constant(1.0), xx, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert tf.NoGradient is tf.no_gradient
    with tf.Session() as s:
        assert s.run(gpt) == 9.0 and s.run(tf.gradients(gpt, xx)) == [1.0]  # TF
        assert s.run(rc) == 27.0 and s.run(tf.gradients(rc, xx)) == [27.0]  # TF
        assert s.run(zero) == 0.0


def test_recompute_grad_reuses_variables():
    def layer(t):
        w = tf.get_variable("w", [], initializer=tf.constant_initializer(2.0))
        return tf.tanh(w * t)

    x = tf.constant([0.5, -1.0])
    y = tf.recompute_grad(layer)(x)
    assert len(tf.trainable_variables()) == 1
    w = tf.trainable_variables()[0]
    gx, gw = tf.gradients(tf.reduce_sum(y), [x, w])
    assert len(tf.trainable_variables()) == 1  # the backward rerun reused w
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        d = 1 - np.tanh(2.0 * np.array([0.5, -1.0])) ** 2
        np.testing.assert_allclose(s.run(gx), 2.0 * d, rtol=1e-6)
        np.testing.assert_allclose(s.run(gw), np.sum(d * [0.5, -1.0]), rtol=1e-6)


def test_variable_helpers():
    v = tf.Variable(1.0, name="v")
    avi = tf.assert_variables_initialized([v])
    assert (avi.name, avi.op.type, avi.dtype) == ("Rank:0", "Rank", tf.int32)
    cnt = tf.Variable(0, name="cnt")
    cu = tf.count_up_to(cnt, 2)
    assert (cu.name, cu.dtype) == ("CountUpTo:0", tf.int32)
    with tf.Session() as s:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value v"):
            s.run(avi)
        s.run(tf.global_variables_initializer())
        s.run(avi)
        assert [s.run(cu), s.run(cu)] == [0, 1]
        with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 2"):
            s.run(cu)
    with tf.Graph().as_default():
        assert tf.assert_variables_initialized() is None


def test_type_specs():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    ts = tf.TensorSpec([None, 3], tf.float32, name="t")
    assert repr(ts) == "TensorSpec(shape=(None, 3), dtype=tf.float32, name='t')"
    assert ts.is_compatible_with(x) and ts.is_compatible_with(tf.TensorSpec([2, 3]))
    assert not ts.is_compatible_with(tf.TensorSpec([2, 3], tf.int32)) and not ts.is_compatible_with(
        tf.TensorSpec([2]))
    assert ts == tf.TensorSpec([None, 3], tf.float32, "t") and ts != tf.TensorSpec([None, 3], tf.float32)
    assert repr(tf.TensorSpec.from_tensor(x)) == "TensorSpec(shape=(None, 3), dtype=tf.float32, name='x')"
    assert repr(tf.SparseTensorSpec([2, 2], tf.float32)) == "SparseTensorSpec(TensorShape([2, 2]), tf.float32)"
    assert repr(tf.IndexedSlicesSpec([2, 3])) == ("IndexedSlicesSpec(TensorShape([2, 3]), tf.float32, tf.int64, None, "
                                                  "TensorShape([None]))")
    assert repr(tf.TensorArraySpec([2], tf.float32)) == "TensorArraySpec(TensorShape([2]), tf.float32, False, True)"
    assert repr(tf.type_spec_from_value(tf.constant([1, 2]))) == "TensorSpec(shape=(2,), dtype=tf.int32, name=None)"
    st = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    assert repr(tf.type_spec_from_value(st)) == "SparseTensorSpec(TensorShape([2, 2]), tf.float32)"
    assert tf.TensorSpec([None, 3]).most_specific_compatible_type(tf.TensorSpec([2, 3])) == tf.TensorSpec([None, 3])
    assert isinstance(ts, tf.TypeSpec)


def test_scopes_container_and_behaviour_switches():
    with tf.container("exp"):
        vc = tf.Variable(2.0, name="vc")
        q = tf.FIFOQueue(2, tf.float32)
    assert vc.op.get_attr("container") == "exp" and q.queue_ref.op.get_attr("container") == "exp"
    assert tf.Variable(1.0).op.get_attr("container") == ""
    with tf.op_scope([tf.constant(1)], "myscope", "default") as scope:
        assert scope == "myscope/"
    with tf.name_scope("outer"):
        pred = tf.placeholder(tf.bool, [])

        made = []

        def branch():
            with tf.init_scope():  # lifted into the outer graph, out of the control dependencies, same name scope
                made.append(tf.constant(5.0, name="made"))
                assert tf.get_default_graph() is g0
            return tf.constant(1.0)

        g0 = tf.get_default_graph()
        with tf.control_dependencies([tf.no_op(name="ctl")]):
            tf.cond(pred, branch, branch)
    assert [t.name for t in made] == ["outer/cond/made:0", "outer/cond/made_1:0"]
    assert all(t.graph is g0 and t.op.control_inputs == [] for t in made)
    assert tf.control_flow_v2_enabled() is True
    tf.disable_control_flow_v2()
    tf.enable_control_flow_v2()
    assert tf.executing_eagerly_outside_functions() is False
    with pytest.raises(NotImplementedError, match="no eager mode"):
        tf.enable_v2_behavior()
    with pytest.raises(NotImplementedError, match="tf.equal"):
        tf.enable_tensor_equality()
    tf.disable_tensor_equality()
    from dflow.ops.state.variables import _resource_variables

    assert tf.resource_variables_enabled() is False
    tf.enable_resource_variables()
    try:
        assert tf.resource_variables_enabled() is True
        rv = tf.Variable(1.0)
        assert rv.op in _resource_variables(rv.op.graph)
        assert tf.Variable(1.0, use_resource=False).op not in _resource_variables(rv.op.graph)
    finally:
        tf.disable_resource_variables()
    assert tf.Variable(1.0).op not in _resource_variables(tf.get_default_graph())
    with pytest.raises(NotImplementedError, match="dimension_value"):
        tf.enable_v2_tensorshape()
    tf.disable_v2_tensorshape()
    assert type(tf.TensorShape([2, None])[0]) is tf.Dimension


def test_tensor_protos_byte_for_byte():
    tp = tf.make_tensor_proto(np.array([[1.5, 2.0]], np.float32))
    assert tp.SerializeToString().hex() == "08011208120208011202080222080000c03f00000040" and tp.dtype == 1
    assert tf.make_tensor_proto([1, 2, 3]).SerializeToString().hex() == "0803120412020803220c010000000200000003000000"
    assert tf.make_tensor_proto(5.0, shape=[2]).SerializeToString().hex() == "08011204120208022a040000a040"
    assert tf.make_tensor_proto(b"ab").SerializeToString().hex() == "0807120042026162"
    assert tf.make_tensor_proto([1, 2], dtype=tf.int64).SerializeToString().hex() == \
        "0809120412020802221001000000000000000200000000000000"
    assert tf.make_ndarray(tp).tolist() == [[1.5, 2.0]]
    assert tf.make_ndarray(tf.make_tensor_proto(5.0, shape=[2])).tolist() == [5.0, 5.0]
    assert tf.make_ndarray(tf.make_tensor_proto([b"a", b"b"])).tolist() == [b"a", b"b"]
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(3,\), but got \(2,\)\."):
        tf.make_tensor_proto([1, 2], shape=[3], verify_shape=True)
    for value in (np.array([1 + 2j, 3j], np.complex64), np.array([True, False]), np.array([0.5], np.float16),
                  np.arange(6, dtype=np.uint8).reshape(2, 3), np.array(7, np.int64), np.array([1.0, 2.0])):
        back = tf.make_ndarray(tf.make_tensor_proto(value))
        assert back.dtype == value.dtype and back.tolist() == value.tolist()


def test_extension_loaders_are_refused_and_op_error_is_exported():
    assert tf.OpError is tf.errors.OpError
    for loader in (tf.load_op_library, tf.load_library, tf.load_file_system_library):
        with pytest.raises(NotImplementedError, match="libfoo.so"):
            loader("libfoo.so")
