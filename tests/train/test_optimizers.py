"""Optimizers: trajectories against TF1 figures, slots, the global step, errors."""

import threading

import numpy as np
import pytest

import dflow as tf
from tests.train.tf1_optimizer_figures import ADAM_FLOAT64, EXPECTED

W0 = [[0.5, -1.0, 2.0], [1.5, 0.0, -0.25]]
B0 = [0.1, -0.2, 0.3]
GRADS_W = [[[-0.85, 0.56, -0.12], [0.45, 0.96, 0.08]], [[0.0, -0.86, -0.46], [0.0, 0.36, 0.61]],
           [[-0.24, -0.87, -0.42], [0.82, -0.57, -0.1]], [[0.86, -0.95, 0.2], [0.9, -0.54, 0.1]],
           [[0.82, -0.73, 0.05], [0.5, 0.34, -0.06]], [[-0.59, -0.02, -0.26], [-0.05, -0.27, 0.68]]]
GRADS_B = [[0.54, -0.37, 0.15], [-0.45, -0.09, -0.29], [0.31, 0.0, -0.08], [0.44, -0.17, 0.81],
           [-0.64, 0.48, -0.16], [-0.15, 0.27, 0.05]]

OPTIMIZERS = {
    "sgd": "tf.train.GradientDescentOptimizer(0.1)",
    "sgd_decayed": "tf.train.GradientDescentOptimizer(tf.train.exponential_decay(0.1, gs, 2, 0.5, staircase=True))",
    "momentum": "tf.train.MomentumOptimizer(0.1, 0.9)",
    "momentum_nesterov": "tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True)",
    "adam": "tf.train.AdamOptimizer(0.1)",
    "adam_hyper": "tf.train.AdamOptimizer(0.05, beta1=0.8, beta2=0.99, epsilon=1e-3)",
    "adagrad": "tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.5)",
    "rmsprop": "tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5, epsilon=1e-6)",
    "rmsprop_centered": "tf.train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.3, epsilon=1e-4, centered=True)",
    "adadelta": "tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6)",
    "ftrl": "tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.05, l2_regularization_strength=0.02)",
    "ftrl_v2": ("tf.train.FtrlOptimizer(0.2, learning_rate_power=-0.3, initial_accumulator_value=0.2, "
                "l1_regularization_strength=0.01, l2_regularization_strength=0.1, "
                "l2_shrinkage_regularization_strength=0.05, beta=0.1)"),
    "proximal": "tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=0.05, "
                "l2_regularization_strength=0.1)",
    "proximal_l2": "tf.train.ProximalGradientDescentOptimizer(0.1, l2_regularization_strength=0.5)",
}


def trajectory(tf, spec, dtype="float32", steps=(1, 6)):
    """Runs 6 apply_gradients steps, gradients fed; returns {step: {variable name: value}}.

    (Run as is with TensorFlow to produce ``tf1_optimizer_figures.py``.)
    """
    tf.reset_default_graph()
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(np.array(W0, dtype), name="w")
    b = tf.Variable(np.array(B0, dtype), name="b")
    frozen = tf.Variable(np.array([1.0, 2.0], dtype), name="frozen", trainable=False)
    gw = tf.placeholder(dtype, [2, 3], name="gw")
    gb = tf.placeholder(dtype, [3], name="gb")
    opt = eval(spec, {"tf": tf, "gs": gs})
    train = opt.apply_gradients([(gw, w), (gb, b), (None, frozen)], global_step=gs)
    out = {}
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for i in range(6):
            s.run(train, {gw: np.array(GRADS_W[i], dtype), gb: np.array(GRADS_B[i], dtype)})
            if i + 1 in steps:
                out[i + 1] = {v.name: s.run(v) for v in tf.global_variables()}
    return out


def assert_same_state(got: dict, expected: dict, dtype=np.float32):
    assert sorted(got) == sorted(expected)
    for name, want in expected.items():
        value = got[name]
        if name == "global_step:0":
            assert value == want and value.dtype == np.int64
            continue
        want_dtype = np.float32 if name.startswith("beta") else dtype
        assert value.dtype == want_dtype, name
        np.testing.assert_allclose(value, np.array(want, want_dtype), rtol=2e-6, atol=1e-7, err_msg=name)


@pytest.mark.parametrize("key", sorted(OPTIMIZERS))
def test_trajectory_matches_tf1(key):
    """Variables, slots (by TF1's names), Adam's powers and the global step after 1 and 6 steps."""
    got = trajectory(tf, OPTIMIZERS[key])
    for step, expected in EXPECTED[key].items():
        assert_same_state(got[step], expected)


def test_adam_float64_keeps_float64():
    got = trajectory(tf, "tf.train.AdamOptimizer(0.1)", dtype="float64", steps=(6,))
    assert_same_state(got[6], ADAM_FLOAT64, dtype=np.float64)


# -- graph structure -----------------------------------------------------------------------


def test_apply_gradients_builds_tf1_graph():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(np.zeros((2, 3), np.float32), name="w")
    b = tf.Variable(np.zeros(3, np.float32), name="b")
    opt = tf.train.AdamOptimizer(0.1)
    n0 = len(tf.get_default_graph().get_operations())
    train = opt.apply_gradients([(tf.zeros([2, 3]), w), (tf.ones([3]), b)], global_step=gs)
    ops = [(o.name, o.type) for o in tf.get_default_graph().get_operations()[n0:]]
    assert ops == [  # TF1's graph, op for op
        ("zeros", "Const"), ("ones", "Const"), ("beta1_power/initial_value", "Const"),
        ("beta1_power", "VariableV2"), ("beta1_power/Assign", "Assign"), ("beta1_power/read", "Identity"),
        ("beta2_power/initial_value", "Const"), ("beta2_power", "VariableV2"), ("beta2_power/Assign", "Assign"),
        ("beta2_power/read", "Identity"), ("w/Adam/Initializer/zeros", "Const"), ("w/Adam", "VariableV2"),
        ("w/Adam/Assign", "Assign"), ("w/Adam/read", "Identity"), ("w/Adam_1/Initializer/zeros", "Const"),
        ("w/Adam_1", "VariableV2"), ("w/Adam_1/Assign", "Assign"), ("w/Adam_1/read", "Identity"),
        ("b/Adam/Initializer/zeros", "Const"), ("b/Adam", "VariableV2"), ("b/Adam/Assign", "Assign"),
        ("b/Adam/read", "Identity"), ("b/Adam_1/Initializer/zeros", "Const"), ("b/Adam_1", "VariableV2"),
        ("b/Adam_1/Assign", "Assign"), ("b/Adam_1/read", "Identity"), ("Adam/learning_rate", "Const"),
        ("Adam/beta1", "Const"), ("Adam/beta2", "Const"), ("Adam/epsilon", "Const"),
        ("Adam/update_w/ApplyAdam", "ApplyAdam"), ("Adam/update_b/ApplyAdam", "ApplyAdam"), ("Adam/mul", "Mul"),
        ("Adam/Assign", "Assign"), ("Adam/mul_1", "Mul"), ("Adam/Assign_1", "Assign"), ("Adam/update", "NoOp"),
        ("Adam/value", "Const"), ("Adam", "AssignAdd")]
    assert train is tf.get_default_graph().get_operation_by_name("Adam")
    assert train.control_inputs == []
    assert [t.name for t in train.inputs] == ["global_step:0", "Adam/value:0"]  # TF's ref input first
    assert [c.name for c in train.inputs[1].op.control_inputs] == ["Adam/update"]
    update = tf.get_default_graph().get_operation_by_name("Adam/update")
    assert [c.name for c in update.control_inputs] == ["Adam/update_w/ApplyAdam", "Adam/update_b/ApplyAdam",
                                                      "Adam/Assign", "Adam/Assign_1"]
    # The powers live with the first variable by name (b), each update with its variable.
    g = tf.get_default_graph()
    assert g.get_operation_by_name("beta1_power").colocation_groups() == [b"loc:@b"]
    assert g.get_operation_by_name("Adam/update_w/ApplyAdam").colocation_groups() == [b"loc:@w"]
    assert g.get_operation_by_name("w/Adam_1").colocation_groups() == [b"loc:@w"]
    assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == [train]


def test_without_global_step_the_group_is_named_after_the_optimizer():
    w = tf.Variable([1.0], name="w")
    first = tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients([([1.0], w)])
    second = tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients([([1.0], w)], name="again")
    assert (first.name, first.type, second.name) == ("Momentum", "NoOp", "again")
    assert [c.name for c in first.control_inputs] == ["Momentum/update_w/ApplyMomentum"]
    assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == [first, second]


SLOTS = {  # TF1's get_slot_names() and variables() for variables w and b
    "sgd": ([], []),
    "momentum": (["momentum"], ["b/Momentum:0", "w/Momentum:0"]),
    "adam": (["m", "v"], ["b/Adam:0", "b/Adam_1:0", "beta1_power:0", "beta2_power:0", "w/Adam:0", "w/Adam_1:0"]),
    "adagrad": (["accumulator"], ["b/Adagrad:0", "w/Adagrad:0"]),
    "rmsprop": (["momentum", "rms"], ["b/RMSProp:0", "b/RMSProp_1:0", "w/RMSProp:0", "w/RMSProp_1:0"]),
    "rmsprop_centered": (["mg", "momentum", "rms"], ["b/RMSProp:0", "b/RMSProp_1:0", "b/RMSProp_2:0",
                                                    "w/RMSProp:0", "w/RMSProp_1:0", "w/RMSProp_2:0"]),
    "adadelta": (["accum", "accum_update"], ["b/Adadelta:0", "b/Adadelta_1:0", "w/Adadelta:0", "w/Adadelta_1:0"]),
    "ftrl": (["accum", "linear"], ["b/Ftrl:0", "b/Ftrl_1:0", "w/Ftrl:0", "w/Ftrl_1:0"]),
    "proximal": ([], []),
}


@pytest.mark.parametrize("key", sorted(SLOTS))
def test_slot_names_and_variables(key):
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(np.zeros((2, 3), np.float32), name="w")
    b = tf.Variable(np.zeros(3, np.float32), name="b")
    opt = eval(OPTIMIZERS[key], {"tf": tf, "gs": gs})
    opt.apply_gradients([(tf.zeros([2, 3]), w), (tf.ones([3]), b)])
    names, variables = SLOTS[key]
    assert opt.get_slot_names() == names
    assert [v.name for v in opt.variables()] == variables
    for name in names:
        slot = opt.get_slot(w, name)
        assert slot.name.startswith("w/") and slot.shape == w.shape and slot.dtype == w.dtype
        assert not slot.trainable and slot in tf.global_variables()
    assert opt.get_slot(w, "nope") is None and opt.get_slot(gs, names[0] if names else "x") is None


def test_slots_ignore_control_dependencies_and_name_scopes():
    w = tf.Variable([1.0, 2.0], name="w")
    with tf.name_scope("outer"), tf.control_dependencies([tf.no_op(name="first")]):
        opt = tf.train.AdamOptimizer()
        train = opt.apply_gradients([(tf.constant([1.0, 1.0]), w)])
    m = opt.get_slot(w, "m")
    assert (m.name, opt.get_slot(w, "v").name, train.name) == ("w/Adam:0", "w/Adam_1:0", "outer/Adam")
    # Non-slot variables take the name scope (TF1), slots do not; none waits for "first".
    assert [v.name for v in opt.variables()] == ["outer/beta1_power:0", "outer/beta2_power:0", "w/Adam:0",
                                                 "w/Adam_1:0"]
    for v in opt.variables():
        assert v.initializer.control_inputs == [] and v.op.control_inputs == []
    assert m.initializer.colocation_groups() == [b"loc:@w"]


def test_second_optimizer_gets_uniquified_slots():
    w = tf.Variable([1.0], name="w")
    a, b = tf.train.MomentumOptimizer(0.1, 0.9), tf.train.MomentumOptimizer(0.1, 0.9)
    a.apply_gradients([([1.0], w)])
    b.apply_gradients([([1.0], w)])
    assert (a.get_slot(w, "momentum").name, b.get_slot(w, "momentum").name) == ("w/Momentum:0", "w/Momentum_1:0")



def test_slots_of_a_variable_of_unknown_shape():
    w = tf.Variable(tf.ones([2, 2]), name="w", validate_shape=False)
    g = tf.placeholder(tf.float32)
    opt = tf.train.MomentumOptimizer(0.5, 0.5)
    train = opt.apply_gradients([(g, w)])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(2):
            s.run(train, {g: np.ones((2, 2), np.float32)})
        w_value, m_value = s.run([w, opt.get_slot(w, "momentum")])
    assert w_value.tolist() == [[-0.25] * 2] * 2 and m_value.tolist() == [[1.5] * 2] * 2

# -- semantics --------------------------------------------------------------------------------


def test_global_step_increments_once_per_apply():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable([1.0, 2.0], name="w")
    b = tf.Variable([3.0], name="b")
    train = tf.train.AdamOptimizer(0.1).apply_gradients([([1.0, 1.0], w), ([1.0], b)], global_step=gs)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for i in range(1, 4):
            s.run(train)
            assert s.run(gs) == i
        assert s.run("beta1_power:0") == np.float32(0.9) * np.float32(0.9) * np.float32(0.9) * np.float32(0.9)


def test_global_step_may_be_any_integer_variable():
    step = tf.Variable(10, name="my_step", trainable=False)
    w = tf.Variable([1.0], name="w")
    train = tf.train.GradientDescentOptimizer(1.0).apply_gradients([([1.0], w)], global_step=step)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train)
        assert s.run(step) == 11 and s.run(step).dtype == np.int32


def test_learning_rate_may_be_a_fed_tensor():
    lr = tf.placeholder(tf.float32, [], name="lr")
    w = tf.Variable([1.0, 2.0], name="w")
    train = tf.train.MomentumOptimizer(lr, 0.5).apply_gradients([(tf.constant([1.0, -1.0]), w)])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train, {lr: 0.5})
        s.run(train, {lr: 0.25})
        # accum: 1 then 1.5; w: 1 - 0.5 - 0.375
        np.testing.assert_array_equal(s.run(w), np.array([0.125, 2.875], np.float32))


def test_learning_rate_of_another_dtype_is_cast():
    w = tf.Variable(np.array([1.0, 2.0]), name="w")  # float64
    train = tf.train.GradientDescentOptimizer(tf.constant(0.5, tf.float32)).apply_gradients(
        [(np.array([2.0, 2.0]), w)])
    with tf.Session() as s:
        s.run(w.initializer)
        s.run(train)
        got = s.run(w)
    assert got.dtype == np.float64 and got.tolist() == [0.0, 1.0]


def test_none_gradients_are_skipped_and_variables_left_untouched():
    w = tf.Variable([1.0], name="w")
    b = tf.Variable([5.0], name="b")
    opt = tf.train.MomentumOptimizer(1.0, 0.0)
    train = opt.apply_gradients([(tf.constant([2.0]), w), (None, b)])
    assert opt.get_slot(b, "momentum") is None
    assert [op.name for op in train.control_inputs] == ["Momentum/update_w/ApplyMomentum"]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train)
        assert s.run([w, b]) == [np.float32(-1.0), np.float32(5.0)]


def test_all_none_gradients_raise():
    w = tf.Variable([1.0], name="w")
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        tf.train.GradientDescentOptimizer(0.1).apply_gradients([(None, w)])
    with pytest.raises(ValueError, match="No variables provided"):
        tf.train.GradientDescentOptimizer(0.1).apply_gradients([])


def test_compute_gradients_defaults_to_trainable_variables():
    w = tf.Variable(3.0, name="w")
    b = tf.Variable(1.0, name="b")
    frozen = tf.Variable(5.0, name="frozen", trainable=False)
    extra = tf.Variable(7.0, name="extra", trainable=False)
    tf.add_to_collection(tf.GraphKeys.TRAINABLE_RESOURCE_VARIABLES, extra)
    opt = tf.train.GradientDescentOptimizer(0.5)
    grads_and_vars = opt.compute_gradients(tf.identity(w))  # d/dw = 1, no gradient for b or extra
    assert [v for _, v in grads_and_vars] == [w, b, extra]
    assert [g is None for g, _ in grads_and_vars] == [False, True, True]
    train = opt.apply_gradients(grads_and_vars)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train)
        assert s.run([w, b, frozen, extra]) == [2.5, 1.0, 5.0, 7.0]


def test_minimize_without_gradients_raises():
    tf.Variable(1.0, name="w")
    with pytest.raises(ValueError, match="No gradients provided for any variable, check your graph"):
        tf.train.GradientDescentOptimizer(0.1).minimize(tf.constant(2.0))


def test_compute_gradients_argument_errors():
    w = tf.Variable(1.0, name="w")
    opt = tf.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match="gate_gradients must be one of"):
        opt.compute_gradients(tf.identity(w), gate_gradients=7)
    with pytest.raises(ValueError, match="Invalid type"):
        opt.compute_gradients(tf.constant(1))
    with pytest.raises(ValueError, match="No variables to optimize"):
        opt.compute_gradients(tf.identity(w), var_list=[])
    with pytest.raises(NotImplementedError, match="unsupported type"):
        opt.compute_gradients(tf.identity(w), var_list=["w"])
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        tf.train.Optimizer(False, "")
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="learning_rate_power"):
        tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5)


def test_gate_graph_and_callable_loss():
    w = tf.Variable(2.0, name="w")
    opt = tf.train.GradientDescentOptimizer(0.5)
    ((g, v),) = opt.compute_gradients(lambda: tf.identity(w), var_list=[w], gate_gradients=opt.GATE_GRAPH)
    assert v is w
    with tf.Session() as s:
        s.run(w.initializer)
        assert s.run(g) == 1.0


def test_constraint_is_applied_after_the_update():
    w = tf.Variable([0.5, 0.5], name="w", constraint=lambda x: tf.clip_by_value(x, 0.0, 1.0))
    train = tf.train.GradientDescentOptimizer(1.0).apply_gradients([(tf.constant([1.0, -1.0]), w)])
    with tf.Session() as s:
        s.run(w.initializer)
        s.run(train)
        assert s.run(w).tolist() == [0.0, 1.0]


def test_gradient_shape_and_dtype_errors():
    w = tf.Variable([1.0, 2.0], name="w")
    opt = tf.train.MomentumOptimizer(0.1, 0.9)
    with pytest.raises(ValueError, match="var and grad do not have the same shape"):
        opt.apply_gradients([(tf.constant([1.0, 2.0, 3.0]), w)])
    with pytest.raises(TypeError, match="Input 'grad' of 'ApplyMomentum' Op has type float64"):
        opt.apply_gradients([(tf.constant([1.0, 2.0], tf.float64), w)])
    g = tf.placeholder(tf.float32, None)
    train = opt.apply_gradients([(g, w)])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match="var and grad do not have the same shape"):
            s.run(train, {g: [1.0, 2.0, 3.0]})
        assert s.run(w).tolist() == [1.0, 2.0]


def test_failed_step_changes_nothing():
    """An uninitialized slot fails the step before the variable or other slots change."""
    w = tf.Variable([1.0, 2.0], name="w")
    opt = tf.train.AdamOptimizer(0.1)
    train = opt.apply_gradients([(tf.constant([1.0, 1.0]), w)])
    with tf.Session() as s:
        s.run([w.initializer, opt.get_slot(w, "m").initializer] + [v.initializer for v in opt.variables()
                                                                     if "power" in v.name])
        with pytest.raises(tf.errors.FailedPreconditionError, match="w/Adam_1"):
            s.run(train)
        assert s.run(w).tolist() == [1.0, 2.0]
        assert s.run(opt.get_slot(w, "m")).tolist() == [0.0, 0.0]


def test_concurrent_steps_are_atomic():
    """Runs from several threads never interleave inside one step (variable and slot together)."""
    w = tf.Variable(np.zeros(1000, np.float32), name="w")
    train = tf.train.MomentumOptimizer(1.0, 0.5).apply_gradients([(tf.ones([1000]), w)])
    n_threads, n_steps = 4, 25
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())

        def work():
            for _ in range(n_steps):
                s.run(train)

        threads = [threading.Thread(target=work) for _ in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        got = s.run(w)
    accum, want = np.float32(0), np.float32(0)
    for _ in range(n_threads * n_steps):
        accum = accum * np.float32(0.5) + np.float32(1)
        want = want - accum
    np.testing.assert_array_equal(got, np.full(1000, want, np.float32))


def test_apply_op_output_is_the_new_value():
    w = tf.Variable([1.0, 2.0], name="w")
    train = tf.train.GradientDescentOptimizer(0.5).apply_gradients([([2.0, 2.0], w)])
    new_value = train.control_inputs[0].outputs[0]
    with tf.Session() as s:
        s.run(w.initializer)
        assert s.run(new_value).tolist() == [0.0, 1.0]


# -- minimize through tf.gradients --------------------------------------------------------------


def test_minimize_quadratic_with_gradient_descent():
    target = np.array([1.0, -2.0, 3.0], np.float32)
    w = tf.Variable(np.zeros(3, np.float32), name="w")
    loss = tf.reduce_sum(tf.square(w - target))
    gs = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=gs)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(train)
        # Each step halves the distance to the target: w = target * (1 - 0.5 ** 3).
        np.testing.assert_allclose(s.run(w), target * np.float32(0.875), rtol=1e-6)
        assert s.run(gs) == 3


MINIMIZE_TF1 = {  # linear regression, 5 steps: losses before each step, final w, b and loss (TF1)
    "adam": ("tf.train.AdamOptimizer(0.1)", [4.731875, 3.75, 2.9841588, 2.4313776, 2.077613],
             [0.5540705, 0.280446, -0.1857548], [0.44201434], 1.8932906),
    "momentum": ("tf.train.MomentumOptimizer(0.05, 0.9)", [4.731875, 3.2142854, 1.855643, 1.8413935, 2.7397585],
                 [0.7068794, 1.2796174, -0.5448534], [0.3049309], 3.2770958),
}


@pytest.mark.parametrize("key", sorted(MINIMIZE_TF1))
def test_minimize_linear_regression_matches_tf1(key):
    spec, losses, w_want, b_want, final_loss = MINIMIZE_TF1[key]
    x = [[1.0, 2.0, -1.0], [0.5, -1.0, 2.0], [-1.5, 0.0, 1.0], [2.0, 1.0, 0.5]]
    y = [[1.0], [-2.0], [0.5], [3.0]]
    w = tf.Variable([[0.1], [-0.2], [0.3]], name="w")
    b = tf.Variable([0.0], name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(x), w) + b - tf.constant(y)))
    gs = tf.train.get_or_create_global_step()
    train = eval(spec, {"tf": tf}).minimize(loss, global_step=gs)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = [s.run([train, loss])[1] for _ in range(5)]
        np.testing.assert_allclose(got, losses, rtol=1e-5)
        np.testing.assert_allclose(s.run(w).ravel(), w_want, rtol=1e-5)
        np.testing.assert_allclose(s.run(b), b_want, rtol=1e-5)
        np.testing.assert_allclose(s.run(loss), final_loss, rtol=1e-5)
        assert s.run(gs) == 5
