"""Variables, variable scopes and the global step."""

import threading

import numpy as np
import pytest

import dflow as tf


def op_names():
    return [op.name for op in tf.get_default_graph().get_operations()]


def test_variable_graph_structure_matches_tf1():
    v = tf.Variable([1.0, 2.0], name="v")
    assert op_names() == ["v/initial_value", "v", "v/Assign", "v/read"]
    assert v.name == "v:0" and v.op.name == "v" and v.op.type == "VariableV2"
    assert v.value().name == "v/read:0"
    assert v.initializer.name == "v/Assign"
    assert v.shape.as_list() == [2] and v.dtype == tf.float32
    assert repr(v) == "<tf.Variable 'v:0' shape=(2,) dtype=float32_ref>"
    assert tf.global_variables() == [v] and tf.trainable_variables() == [v]


def test_variable_from_callable_and_tensor():
    w = tf.Variable(lambda: tf.constant(3.0), name="w")
    assert "w/Initializer/Const" in op_names()
    u = tf.Variable(tf.zeros([2, 2]), name="u", trainable=False)
    assert tf.trainable_variables() == [w]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(w) == 3.0
        assert s.run(u).tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_uninitialized_read_is_failed_precondition_naming_variable():
    v = tf.Variable(1.0, name="lonely")
    with tf.Session() as s:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value lonely"):
            s.run(v + 1.0)
        assert s.run(tf.report_uninitialized_variables()).tolist() == [b"lonely"]
        assert not s.run(tf.is_variable_initialized(v))
        s.run(v.initializer)
        assert s.run(tf.report_uninitialized_variables()).tolist() == []
        assert s.run(v + 1.0) == 2.0


def test_assign_family_returns_new_values():
    v = tf.Variable([1.0, 2.0, 3.0], name="v")
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(v.assign([5.0, 6.0, 7.0])).tolist() == [5.0, 6.0, 7.0]
        assert s.run(tf.assign_add(v, [1.0, 1.0, 1.0])).tolist() == [6.0, 7.0, 8.0]
        assert s.run(v.assign_sub([6.0, 7.0, 8.0])).tolist() == [0.0, 0.0, 0.0]
        assert s.run(tf.scatter_update(v, [0, 2], [9.0, 8.0])).tolist() == [9.0, 0.0, 8.0]
        assert s.run(tf.scatter_add(v, [1, 1], [1.0, 2.0])).tolist() == [9.0, 3.0, 8.0]
        assert s.run(tf.scatter_sub(v, [0], [9.0])).tolist() == [0.0, 3.0, 8.0]
        assert s.run(v).tolist() == [0.0, 3.0, 8.0]


def test_wrong_shape_assign_is_an_error_and_keeps_the_old_value():
    v = tf.Variable([1.0, 2.0], name="v")
    with pytest.raises(ValueError, match=r"\(3,\).*\(2,\)|\(2,\).*\(3,\)"):
        v.assign([1.0, 2.0, 3.0])
    p = tf.placeholder(tf.float32)
    a = tf.assign(v, p)
    with tf.Session() as s:
        s.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"lhs shape= \[2\] rhs shape= \[3\]"):
            s.run(a, {p: [1.0, 2.0, 3.0]})
        assert s.run(v).tolist() == [1.0, 2.0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="not in"):
            s.run(tf.scatter_update(v, [5], [1.0]))
        assert s.run(v).tolist() == [1.0, 2.0]


def test_fetched_values_do_not_change_after_updates():
    v = tf.Variable([1.0, 2.0])
    with tf.Session() as s:
        s.run(v.initializer)
        before = s.run(v)
        s.run(v.assign_add([1.0, 1.0]))
        assert before.tolist() == [1.0, 2.0]
        before[0] = 100.0  # the caller owns what it fetched
        assert s.run(v).tolist() == [2.0, 3.0]


def test_local_sessions_do_not_share_variables():
    v = tf.Variable(0.0)
    inc = v.assign_add(1.0)
    with tf.Session() as s1, tf.Session() as s2:
        s1.run(v.initializer)
        s2.run(v.initializer)
        s1.run(inc)
        s1.run(inc)
        assert (s1.run(v), s2.run(v)) == (2.0, 0.0)


def test_concurrent_assign_add_loses_nothing():
    v = tf.Variable(0, dtype=tf.int64)
    inc = tf.assign_add(v, tf.constant(1, tf.int64))
    with tf.Session() as s:
        s.run(v.initializer)

        def work():
            for _ in range(200):
                s.run(inc)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert s.run(v) == 800


def test_variable_methods_load_eval_initialized_value():
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(v.initialized_value() * 2.0, name="w")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert w.eval(session=s).tolist() == [2.0, 4.0]
        v.load([7.0, 8.0], session=s)
        assert s.run(v.read_value()).tolist() == [7.0, 8.0]
        assert s.run(v[1]) == 8.0
        assert s.run(v * 2.0).tolist() == [14.0, 16.0]


def test_variable_operators_and_conversion():
    v = tf.Variable(3.0)
    t = tf.convert_to_tensor(v)
    assert t is v.value()
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run([v + 1.0, 1.0 - v, -v, v ** 2]) == [4.0, -2.0, -3.0, 9.0]


def test_variables_initializer_subsets():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    loc = tf.Variable(3.0, name="loc", collections=[tf.GraphKeys.LOCAL_VARIABLES], trainable=False)
    assert tf.local_variables() == [loc] and tf.global_variables() == [a, b]
    with tf.Session() as s:
        s.run(tf.variables_initializer([a]))
        assert s.run(tf.report_uninitialized_variables()).tolist() == [b"b", b"loc"]
        s.run(tf.local_variables_initializer())
        assert s.run(tf.report_uninitialized_variables()).tolist() == [b"b"]


# -- variable scopes -------------------------------------------------------------


def test_get_variable_names_follow_variable_scope_not_name_scope():
    with tf.name_scope("ns"):
        with tf.variable_scope("layer"):
            w = tf.get_variable("w", [2, 3])
            y = tf.identity(w)
    assert w.name == "layer/w:0"
    assert y.name == "ns/layer/Identity:0"
    assert w.shape.as_list() == [2, 3]


def test_reuse_rules():
    with tf.variable_scope("s"):
        w = tf.get_variable("w", [2])
    with pytest.raises(ValueError, match="Variable s/w already exists, disallowed"):
        with tf.variable_scope("s"):
            tf.get_variable("w", [2])
    with tf.variable_scope("s", reuse=True):
        assert tf.get_variable("w", [2]) is w
        with pytest.raises(ValueError, match="Variable s/nope does not exist"):
            tf.get_variable("nope", [2])
        with tf.variable_scope("inner"):
            assert tf.get_variable_scope().reuse is True  # inherited
    with tf.variable_scope("s", reuse=tf.AUTO_REUSE):
        assert tf.get_variable("w", [2]) is w
        fresh = tf.get_variable("fresh", [1])
    assert fresh.name == "s/fresh:0"
    with pytest.raises(ValueError, match="specified shape"):
        with tf.variable_scope("s", reuse=True):
            tf.get_variable("w", [3])


def test_scope_object_reentry_and_reuse_variables():
    with tf.variable_scope("model") as scope:
        w = tf.get_variable("w", [1])
        scope.reuse_variables()
        assert tf.get_variable("w", [1]) is w
    with tf.variable_scope(scope, reuse=True):
        assert tf.get_variable("w") is w
        # TF 2.15 compat.v1: re-entering a scope object opens a new name scope after its last component
        assert tf.identity(w).name == "model_1/Identity:0"
    with tf.variable_scope("outer"), tf.variable_scope(scope):
        assert tf.constant(1.0, name="d").name == "outer/model/d:0"


def test_reentering_scope_uniquifies_name_scope_only():
    with tf.variable_scope("foo"):
        a = tf.get_variable("a", [1])
        x = tf.identity(a)
    with tf.variable_scope("foo"):
        b = tf.get_variable("b", [1])
        y = tf.identity(b)
    assert (a.name, b.name) == ("foo/a:0", "foo/b:0")
    assert (x.name, y.name) == ("foo/Identity:0", "foo_1/Identity:0")


def test_default_name_scopes_are_uniquified():
    with tf.variable_scope(None, default_name="dense"):
        a = tf.get_variable("k", [1])
    with tf.variable_scope(None, default_name="dense"):
        b = tf.get_variable("k", [1])
    assert (a.name, b.name) == ("dense/k:0", "dense_1/k:0")


def test_scope_initializer_and_dtype_inherit():
    with tf.variable_scope("init", initializer=tf.constant_initializer(7.0)):
        v = tf.get_variable("v", [2])
        i = tf.get_variable("i", [2], dtype=tf.int32, initializer=tf.zeros_initializer())
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(v).tolist() == [7.0, 7.0]
        assert s.run(i).tolist() == [0, 0]


def test_get_variable_needs_a_full_shape():
    with pytest.raises(ValueError, match="must be fully defined"):
        tf.get_variable("v", [None, 2])


def test_regularizer_adds_loss():
    v = tf.get_variable("v", [2], initializer=tf.ones_initializer(),
                        regularizer=lambda w: tf.reduce_sum(w) * 0.5)
    (loss,) = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(loss) == 1.0


def test_global_step():
    assert tf.train.get_global_step() is None
    gs = tf.train.get_or_create_global_step()
    assert gs.name == "global_step:0" and gs.dtype == tf.int64 and not gs.trainable
    assert tf.train.get_or_create_global_step() is gs
    assert tf.train.get_global_step() is gs
    with pytest.raises(ValueError, match="already exists"):
        tf.train.create_global_step()
    with tf.Session() as s:
        s.run(gs.initializer)
        s.run(tf.assign_add(gs, 1))
        assert tf.train.global_step(s, gs) == 1
        assert isinstance(tf.train.global_step(s, gs), int)


def test_gradient_through_variables():
    w = tf.Variable([1.0, 2.0])
    loss = tf.reduce_sum(w * w)
    (g,) = tf.gradients(loss, [w])
    with tf.Session() as s:
        s.run(w.initializer)
        np.testing.assert_allclose(s.run(g), [2.0, 4.0])


def test_read_value_under_control_dependencies_sees_the_update():
    v = tf.Variable(1.0)
    update = v.assign_add(5.0)
    with tf.control_dependencies([update]):
        after = v.read_value()
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(after) == 6.0
    (g,) = tf.gradients(after * 3.0, [v])
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(g) == 3.0


def test_shared_name_reused_with_another_dtype_or_shape_is_invalid_argument():
    a = tf.Variable([1.0, 2.0], name="a", shared_name="common")
    b = tf.Variable([1, 2], name="b", shared_name="common")
    c = tf.Variable([1.0, 2.0, 3.0], name="c", shared_name="common")
    same = tf.Variable([5.0, 6.0], name="same", shared_name="common")
    with tf.Session() as s:
        s.run(a.initializer)
        assert s.run(same).tolist() == [1.0, 2.0]  # one value under one shared name
        with pytest.raises(tf.errors.InvalidArgumentError, match="shared_name must keep its dtype and shape"):
            s.run(b.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"float32 \(3,\)"):
            s.run(c)
        assert s.run(a).tolist() == [1.0, 2.0]


# -- VariableDef and SaveSliceInfoDef (TF 2.15, compat.v1 ref variables: /tmp/ref/vdef.py) --------------------

def test_variable_defs_name_the_variables_ops_as_tf():
    from dflow.ops.state.partitioned_variables import SaveSliceInfoDef
    from dflow.ops.state.variables import VariableDef

    v = tf.Variable([1.0, 2.0], name="v")
    assert v.to_proto() == VariableDef("v:0", "v/initial_value:0", "v/Assign", "v/read:0", trainable=True)
    with tf.name_scope("outer"):
        w = tf.Variable(3.0, name="w", trainable=False)
    assert w.to_proto(export_scope="outer") == VariableDef("w:0", "w/initial_value:0", "w/Assign", "w/read:0")
    assert w.to_proto(export_scope="other") is None
    part = list(tf.get_variable("p", [4, 2], partitioner=tf.fixed_size_partitioner(2)))[1]
    proto = part.to_proto()
    assert (proto.variable_name, proto.initial_value_name) == ("p/part_1:0", "p/part_1/Initializer/random_uniform:0")
    assert proto.save_slice_info_def == SaveSliceInfoDef("p", [4, 2], [2, 0], [2, 2])
    assert part._save_slice_info.to_proto() == proto.save_slice_info_def


def test_a_variable_from_its_def_is_the_same_variable():
    v = tf.Variable([1.0, 2.0], name="v")
    again = tf.Variable(variable_def=v.to_proto())
    assert (again.name, again.initializer.name, again.value().name, again.initial_value.name, again.trainable) == (
        "v:0", "v/Assign", "v/read:0", "v/initial_value:0", True)
    assert again not in tf.global_variables()  # as TF: no collections joined
    with tf.Session() as s:
        s.run(again.initializer)
        np.testing.assert_array_equal(s.run(v), [1.0, 2.0])
        s.run(again.assign_add([1.0, 1.0]))
        np.testing.assert_array_equal(s.run(v), [2.0, 3.0])  # one variable
    part = list(tf.get_variable("p", [4, 2], partitioner=tf.fixed_size_partitioner(2)))[1]
    assert tf.Variable.from_proto(part.to_proto())._save_slice_info.spec == "4 2 2,2:0,2"
    with pytest.raises(ValueError, match="mutually exclusive"):
        tf.Variable(1.0, variable_def=v.to_proto())
    with pytest.raises(ValueError, match="VariableV2"):
        bad = v.to_proto()
        bad.variable_name = "v/read:0"
        tf.Variable(variable_def=bad)


def test_variable_defs_under_an_import_scope(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable(5.0, name="v")
        proto = v.to_proto()
        tf.train.export_meta_graph(str(tmp_path / "m.meta"))
    with tf.Graph().as_default():
        tf.train.import_meta_graph(str(tmp_path / "m.meta"), import_scope="copy")
        again = tf.Variable.from_proto(proto, import_scope="copy")
        assert again.name == "copy/v:0"
        with tf.Session() as s:
            s.run(again.initializer)
            assert s.run(again) == 5.0


def test_writers_list_their_variables_first_as_tf1s_reference_inputs():
    """TF1's graph as programs read it (figures from TF 2.15 compat.v1): ``x/Assign``'s inputs are
    ``[x, initial value]``, so feeding ``inputs[1]`` sets a variable's initial value; an optimizer's
    ``Apply*`` takes the variable (and its slots) first; the kernels still get values only."""
    with tf.variable_scope("hidden1"):
        w = tf.get_variable("kernel", [3, 2])
    b = tf.Variable([1.0, 2.0], name="b")
    g = tf.get_default_graph()
    assign = g.get_operation_by_name("hidden1/kernel/Assign")
    assert [t.name for t in assign.inputs] == ["hidden1/kernel:0", "hidden1/kernel/Initializer/random_uniform:0"]
    assert [t.name for t in g.get_operation_by_name("b/read").inputs] == ["b:0"]
    loss = tf.reduce_sum(b * b) + tf.reduce_sum(w)
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    adam = g.get_operation_by_name("Adam/update_b/ApplyAdam")
    assert [t.name for t in adam.inputs[:4]] == ["b:0", "b/Adam:0", "b/Adam_1:0", "beta1_power/read:0"]
    assert len(adam.inputs) == 10  # as TF's: var, m, v, 2 powers, lr, beta1, beta2, epsilon, grad
    count = tf.count_up_to(tf.Variable(0, name="c"), 3)
    assert [t.name for t in count.op.inputs] == ["c:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer(), {assign.inputs[1]: np.full((3, 2), 0.5, np.float32)})
        np.testing.assert_allclose(sess.run(w), np.full((3, 2), 0.5))
        sess.run(train)
        assert sess.run(count) == 0
        np.testing.assert_allclose(sess.run(b), [0.9, 1.9], rtol=1e-5)
