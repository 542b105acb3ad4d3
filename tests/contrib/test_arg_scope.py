"""tf.contrib.framework: arg_scope, add_arg_scope and the variable helpers (TF 1.15's semantics)."""

import pytest

import dflow as tf

arg_scope = tf.contrib.framework.arg_scope
add_arg_scope = tf.contrib.framework.add_arg_scope


@add_arg_scope
def func_a(x, a=1, b=2, c=3):
    return (x, a, b, c)


@add_arg_scope
def func_b(x, a=10, d=4):
    return (x, a, d)


def plain(x, a=1):
    return x


def test_defaults_without_scope():
    assert func_a(0) == (0, 1, 2, 3)


def test_scope_sets_defaults_for_listed_functions_only():
    with arg_scope([func_a], a=5):
        assert func_a(0) == (0, 5, 2, 3)
        assert func_b(0) == (0, 10, 4)


def test_call_keywords_override_scope():
    with arg_scope([func_a, func_b], a=5):
        assert func_a(0, a=7) == (0, 7, 2, 3)
        assert func_b(0) == (0, 5, 4)


def test_nested_scopes_merge_and_inner_wins():
    with arg_scope([func_a], a=5, b=6):
        with arg_scope([func_a], b=8, c=9):
            assert func_a(0) == (0, 5, 8, 9)
        assert func_a(0) == (0, 5, 6, 3)
    assert func_a(0) == (0, 1, 2, 3)


def test_reuse_a_yielded_scope():
    with arg_scope([func_a], a=5) as sc:
        pass
    assert func_a(0) == (0, 1, 2, 3)
    with arg_scope(sc):
        assert func_a(0) == (0, 5, 2, 3)


def test_reuse_scope_with_kwargs_is_value_error():
    with pytest.raises(ValueError):
        with arg_scope({}, a=1):
            pass


def test_undecorated_function_is_value_error():
    with pytest.raises(ValueError, match="not decorated with @add_arg_scope"):
        with arg_scope([plain], a=1):
            pass


def test_non_list_is_type_error():
    with pytest.raises(TypeError):
        with arg_scope(func_a, a=1):
            pass


def test_arg_scoped_arguments_and_has_arg_scope():
    assert tuple(tf.contrib.framework.arg_scoped_arguments(func_a)) == ("a", "b", "c")
    assert tf.contrib.framework.has_arg_scope(func_a)
    assert not tf.contrib.framework.has_arg_scope(plain)
    args = tf.contrib.framework.arg_scoped_arguments(tf.contrib.layers.fully_connected)
    assert "activation_fn" in args and "weights_initializer" in args and "scope" in args


def test_arg_scope_on_contrib_layers():
    layers = tf.contrib.layers
    x = tf.placeholder(tf.float32, [None, 3])
    with arg_scope([layers.fully_connected], activation_fn=None, biases_initializer=None):
        y = layers.fully_connected(x, 2)
        z = layers.fully_connected(x, 2, activation_fn=tf.nn.relu)
    assert y.op.type == "MatMul"
    assert z.op.type == "Relu"
    assert [v.name for v in tf.global_variables()] == ["fully_connected/weights:0", "fully_connected_1/weights:0"]


def test_linear_is_a_partial_that_arg_scope_reaches():
    layers = tf.contrib.layers
    x = tf.placeholder(tf.float32, [None, 3])
    with arg_scope([layers.fully_connected], biases_initializer=None):
        y = layers.linear(x, 2)
    assert y.op.type == "MatMul"


def test_model_variable_collections():
    v = tf.contrib.framework.model_variable("w", shape=[2], initializer=tf.zeros_initializer())
    assert v.name == "w:0"
    assert v in tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)
    assert v in tf.global_variables() and v in tf.trainable_variables()
    u = tf.contrib.framework.variable("u", shape=[2], trainable=False)
    assert u not in tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)
    assert u not in tf.trainable_variables()


def test_model_variable_under_arg_scope():
    with arg_scope([tf.contrib.framework.model_variable], trainable=False):
        v = tf.contrib.framework.model_variable("w", shape=[2])
    assert v not in tf.trainable_variables()


def test_get_variables_filters():
    fw = tf.contrib.framework
    with tf.variable_scope("a"):
        wa = fw.model_variable("weights", shape=[1])
        ba = fw.variable("biases", shape=[1])
    with tf.variable_scope("b"):
        wb = fw.model_variable("weights", shape=[1])
    assert fw.get_variables("a") == [wa, ba]
    assert fw.get_variables(suffix="weights") == [wa, wb]
    assert fw.get_model_variables() == [wa, wb]
    assert fw.get_variables_by_name("weights") == [wa, wb]
    assert fw.get_variables_to_restore(exclude=["b"]) == [wa, ba]
    assert fw.get_variables_to_restore(include=["b"]) == [wb]
    assert fw.get_unique_variable("a/biases") is ba
    with pytest.raises(TypeError):
        fw.get_variables_to_restore(include="a")


def test_global_step_helpers():
    fw = tf.contrib.framework
    assert fw.get_global_step() is None
    gs = fw.get_or_create_global_step()
    assert fw.get_global_step() is gs
    assert fw.get_or_create_global_step is tf.train.get_or_create_global_step
