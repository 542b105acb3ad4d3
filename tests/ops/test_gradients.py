"""The tf.gradients driver: structure, naming, fan-out, stops, errors."""

import numpy as np
import pytest

import dflow as tf
from dflow.framework.op_registry import apply_op, register


def run(fetches, feed=None):
    with tf.Session() as s:
        return s.run(fetches, feed)


def test_fan_out_is_summed_and_names_live_under_gradients():
    x = tf.constant(3.0, name="x")
    y = x * x + x
    (g,) = tf.gradients(y, [x])
    assert run(g) == 7.0
    assert g.name.startswith("gradients/")
    assert any(op.name.startswith("gradients/mul_grad/") for op in tf.get_default_graph().get_operations())


def test_unconnected_gives_none_or_zeros():
    x = tf.constant(1.0)
    z = tf.constant(2.0)
    y = x * 2.0
    assert tf.gradients(y, [z]) == [None]
    (g,) = tf.gradients(y, [z], unconnected_gradients="zero")
    assert run(g) == 0.0


def test_stop_gradient_and_stop_gradients_argument():
    x = tf.constant(2.0)
    a = x * x
    y = tf.stop_gradient(a) + x
    assert run(tf.gradients(y, [x])[0]) == 1.0
    y2 = a + x
    assert run(tf.gradients(y2, [x], stop_gradients=[a])[0]) == 1.0


def test_grad_ys_and_several_ys():
    x = tf.constant([1.0, 2.0])
    y1 = x * 3.0
    y2 = x * x
    (g,) = tf.gradients([y1, y2], [x], grad_ys=[tf.constant([1.0, 0.0]), tf.constant([0.0, 1.0])])
    np.testing.assert_allclose(run(g), [3.0, 4.0])


def test_integer_ys_need_a_cast():
    x = tf.constant(1)
    with pytest.raises(TypeError, match="int32"):
        tf.gradients(x * 2, [x])


def test_missing_rule_names_op_and_type():
    register("TestNoGrad", infer=lambda op: [(op.inputs[0].dtype, op.inputs[0].shape)], kernel=lambda x: x)
    x = tf.constant(1.0)
    y = apply_op("TestNoGrad", [x], name="opaque").outputs[0]
    with pytest.raises(LookupError, match=r"No gradient defined for operation 'opaque' \(op type: TestNoGrad\)"):
        tf.gradients(y * 2.0, [x])


def test_gradient_override_map():
    x = tf.constant(3.0)
    g = tf.get_default_graph()
    with g.gradient_override_map({"Square": "Identity"}):
        y = tf.square(x)
    # Identity's rule passes the incoming gradient through unchanged.
    assert run(tf.gradients(y, [x])[0]) == 1.0


def test_mlp_gradients_match_finite_differences():
    from tests.ops.gradcheck import check_gradients

    rng = np.random.default_rng(0)
    xs = rng.normal(size=(4, 3))
    w1 = rng.normal(size=(3, 5))
    w2 = rng.normal(size=(5, 2))

    def net(x, a, b):
        return tf.nn.softmax(tf.matmul(tf.tanh(tf.matmul(x, a)), b))

    check_gradients(net, xs, w1, w2)


def test_register_gradient_with_override_map():
    @tf.RegisterGradient("TestDoubledIdentityGrad")
    def _doubled(op, grad):
        return [grad * 2.0]

    x = tf.constant(3.0)
    with tf.get_default_graph().gradient_override_map({"Identity": "TestDoubledIdentityGrad"}):
        y = tf.identity(x)
    plain = tf.identity(x)
    assert run(tf.gradients(y, [x])[0]) == 2.0
    assert run(tf.gradients(plain, [x])[0]) == 1.0
    with pytest.raises(KeyError, match="two gradient"):
        tf.RegisterGradient("TestDoubledIdentityGrad")(_doubled)


def test_colocate_gradients_with_ops_puts_each_gradient_on_its_forward_device():
    with tf.device("/job:worker/task:1"):
        w = tf.Variable(1.0, name="w")
        y = tf.multiply(w, 3.0, name="y")
    with tf.device("/job:worker/task:0"):
        z = tf.square(y, name="z")
    g, = tf.gradients(z, [w], colocate_gradients_with_ops=True)
    assert g.op.device == "/job:worker/task:1"
    dz = [op for op in tf.get_default_graph().get_operations() if op.name.startswith("gradients/z_grad/")]
    assert dz and all(op.device == "/job:worker/task:0" for op in dz)
    g2, = tf.gradients(z, [w])  # without it, gradients go where the device stack says
    assert g2.op.device == ""
