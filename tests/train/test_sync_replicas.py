"""tf.train.SyncReplicasOptimizer: TF1's graph, replicas as threads sharing one
session while the chief's queue runner aggregates, backup replicas, stale
gradients, and prompt failure of a step that can never complete
(tensorflow#5022). Expected figures come from TF 2.15's tf.compat.v1 running
the same threads."""

import threading
import time

import numpy as np
import pytest

import dflow as tf

X = np.array([[1.0, 2.0], [3.0, -1.0], [5.0, 0.5]], np.float32)  # replica i's data
LR = 0.1


def wait_until(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the test's threads"
        time.sleep(0.005)


def build(replicas_to_aggregate, total_num_replicas, linear=False, name="sync_replicas"):
    """w (2,), b () and a per-replica loss; returns (opt, train_op, global_step, w, b, x)."""
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable([0.5, -0.5], name="w")
    b = tf.Variable(1.0, name="b")
    x = tf.placeholder(tf.float32, [2], name="x")
    if linear:  # d/dw = x, d/db = 1: gradients that do not depend on the variables
        loss = tf.reduce_sum(w * x) + b
    else:  # d/dw = w - x, d/db = 2 * sum(x)
        loss = 0.5 * tf.reduce_sum(tf.square(w - x)) + 2.0 * b * tf.reduce_sum(x)
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR), replicas_to_aggregate,
                                         total_num_replicas=total_num_replicas, name=name)
    train = opt.minimize(loss, global_step=gs)
    return opt, train, gs, w, b, x


def start(opt, is_chief=True, num_tokens=-1, config=None):
    """A session with variables initialised and the hook run; returns (sess, coord, hook)."""
    hook = opt.make_session_run_hook(is_chief, num_tokens=num_tokens)
    hook.begin()
    sess = tf.Session(config=config)
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    coord = tf.train.Coordinator()
    hook.after_create_session(sess, coord)
    return sess, coord, hook


def stop(sess, coord):
    """Stops the chief's thread (blocked in take_grad: closing the session cancels it)."""
    coord.request_stop()
    sess.close()
    coord.join(stop_grace_period_secs=10)


def accumulator_states(sess, opt):
    from dflow.ops.state.data_flow_ops import resource_key

    out = []
    for acc, _ in opt._accumulator_list:
        handle = sess.run(acc.accumulator_ref)
        out.append(sess._runtime.resources.resource(resource_key("accumulator", handle)))
    return out


def chief_waits_in_take(states) -> bool:
    """True once the chief's sync thread is blocked in some take_grad: no update is half done."""
    return any(len(s._takes) for s in states)


# -- graph ------------------------------------------------------------------------------------


def test_graph_is_tf1s():
    opt, train, gs, w, b, x = build(3, 3)
    init_tokens = opt.get_init_tokens_op(num_tokens=0)
    graph = tf.get_default_graph()
    ops = {op.name: op for op in graph.get_operations()}
    types = {name: op.type for name, op in ops.items()}
    expected = {
        "NoOp": "NoOp", "sync_rep_local_step": "VariableV2", "Assign": "Assign",
        "sync_replicas/conditional_accumulator": "ResourceConditionalAccumulator",
        "sync_replicas/conditional_accumulator_1": "ResourceConditionalAccumulator",
        "sync_replicas/ResourceAccumulatorApplyGradient": "ResourceAccumulatorApplyGradient",
        "sync_replicas/ResourceAccumulatorApplyGradient_1": "ResourceAccumulatorApplyGradient",
        "sync_replicas/ResourceAccumulatorTakeGradient/num_required": "Const",
        "sync_replicas/ResourceAccumulatorTakeGradient": "ResourceAccumulatorTakeGradient",
        "sync_replicas/ResourceAccumulatorTakeGradient_1": "ResourceAccumulatorTakeGradient",
        "GradientDescent/update_w/ApplyGradientDescent": "ApplyGradientDescent",
        "GradientDescent/update_b/ApplyGradientDescent": "ApplyGradientDescent",
        "GradientDescent": "AssignAdd",
        "sync_token_q": "FIFOQueueV2", "sync_token_q_Dequeue": "QueueDequeueV2", "Assign_1": "Assign",
        "Fill": "Fill", "sync_token_q_EnqueueMany": "QueueEnqueueManyV2",
        "sync_replicas/SetGlobalStep": "ResourceAccumulatorSetGlobalStep",
        "sync_replicas/SetGlobalStep_1": "ResourceAccumulatorSetGlobalStep",
        "sync_replicas/group_deps": "NoOp", "no_init_tokens": "NoOp",
    }
    assert {k: types.get(k) for k in expected} == expected
    acc_w, acc_b = ops["sync_replicas/conditional_accumulator"], ops["sync_replicas/conditional_accumulator_1"]
    assert acc_w.get_attr("shared_name") == "w:0/grad_accum" and acc_b.get_attr("shared_name") == "b:0/grad_accum"
    assert acc_w.get_attr("shape").as_list() == [2] and acc_b.get_attr("shape").as_list() == []
    assert ops["sync_token_q"].get_attr("shared_name") == "sync_token_q"
    assert ops["sync_replicas/ResourceAccumulatorTakeGradient/num_required"].get_attr("value") == 3
    # the train op: wait for a token after pushing every gradient, then record it as the local step
    assert train.op is ops["Assign_1"] and train.dtype == tf.int64
    assert sorted(c.name for c in ops["sync_token_q_Dequeue"].control_inputs) == [
        "sync_replicas/ResourceAccumulatorApplyGradient", "sync_replicas/ResourceAccumulatorApplyGradient_1"]
    apply_w = ops["sync_replicas/ResourceAccumulatorApplyGradient"]
    assert apply_w.inputs[1].name == "sync_rep_local_step/read:0"
    # the optimizer applies the aggregated gradients
    assert ops["GradientDescent/update_w/ApplyGradientDescent"].inputs[-1].name == \
        "sync_replicas/ResourceAccumulatorTakeGradient:0"
    # local step: a local, untrainable int64 variable beside the replica's NoOp
    local_step = opt._local_step
    assert local_step in tf.local_variables() and local_step not in tf.global_variables()
    assert local_step not in tf.trainable_variables() and local_step.dtype == tf.int64
    assert ops["sync_rep_local_step"].colocation_groups() == [b"loc:@NoOp"]
    assert opt.local_step_init_op.op is ops["Assign"]
    assert sorted(c.name for c in opt.chief_init_op.control_inputs) == [
        "Assign", "sync_replicas/SetGlobalStep", "sync_replicas/SetGlobalStep_1"]
    qr = opt.get_chief_queue_runner()
    assert qr.queue is opt._sync_token_queue and [op.name for op in qr.enqueue_ops] == ["sync_token_q_EnqueueMany"]
    assert init_tokens.name == "no_init_tokens"
    assert opt.get_init_tokens_op().type == "QueueEnqueueManyV2"
    assert opt.ready_for_local_init_op.dtype == tf.string
    assert opt.get_slot_names() == [] and opt.variables() == []


def test_accumulators_follow_their_variables_devices():
    gs = tf.train.get_or_create_global_step()
    with tf.device("/job:ps/task:1"):
        v = tf.Variable([1.0], name="v")
    with tf.device("/job:worker/task:0"):
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2)
        opt.minimize(tf.reduce_sum(v), global_step=gs)
    acc = opt._accumulator_list[0][0]
    assert acc.accumulator_ref.op.device == "/job:ps/task:1/device:CPU:*"
    assert opt._accumulator_list[0][1] == v.device
    graph = tf.get_default_graph()
    assert graph.get_operation_by_name("sync_rep_local_step").device == "/job:worker/task:0"


def test_misuse_errors_as_tf1():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable([1.0], name="w")
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 3, total_num_replicas=1)
    with pytest.raises(ValueError, match="Should be called after apply_gradients"):
        opt.get_chief_queue_runner()
    with pytest.raises(ValueError, match="should be called after apply_gradients"):
        opt.get_init_tokens_op()
    with pytest.raises(ValueError, match="apply_gradient should be called before using the hook"):
        opt.make_session_run_hook(True).begin()
    with pytest.raises(ValueError, match="Must supply at least one variable"):
        opt.apply_gradients([], global_step=gs)
    with pytest.raises(ValueError, match="Global step is required to check staleness"):
        opt.apply_gradients([(tf.constant([1.0]), w)])
    opt.apply_gradients([(tf.constant([1.0]), w)], global_step=gs)
    with pytest.raises(ValueError, match=r"Too few tokens to finish the first step: 1 \(given\) vs 2 \(needed\)"):
        opt.get_init_tokens_op(num_tokens=1)
    assert opt.get_init_tokens_op(num_tokens=2).type == "QueueEnqueueManyV2"


def test_hook_checks_that_the_model_is_initialised():
    opt, train, gs, w, b, x = build(1, 1)
    hook = opt.make_session_run_hook(is_chief=False)
    hook.begin()
    with tf.Session() as sess:
        with pytest.raises(RuntimeError, match="Init operations did not make model ready.*Init op: Assign.*"
                                               "Variables not initialized: global_step, w, b"):
            hook.after_create_session(sess, tf.train.Coordinator())


# -- synchronous training ---------------------------------------------------------------------------


def test_three_replicas_apply_the_mean_of_their_gradients():
    """3 replicas in lockstep, 4 steps: each step applies the mean of the 3 gradients
    once. TF1 (the same threads): w = [1.35975, -0.15609999], b = -1.8, global step 4."""
    opt, train, gs, w, b, x = build(3, 3)
    sess, coord, hook = start(opt, num_tokens=0)
    steps, barrier, tokens, errors = 4, threading.Barrier(3), [[], [], []], []

    def replica(i):
        try:
            for _ in range(steps):
                tokens[i].append(int(sess.run(train, {x: X[i]})))
                barrier.wait(10)
        except Exception as e:  # noqa: BLE001 - handed to the test
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=replica, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    # every train op returns after the step it contributed to was applied
    assert tokens == [[1, 2, 3, 4]] * 3
    w_val, b_val, gs_val = sess.run([w, b, gs])
    assert gs_val == 4
    np.testing.assert_allclose(w_val, np.array([1.35975, -0.15609999], np.float32), rtol=1e-6)
    assert b_val == pytest.approx(-1.8, rel=1e-6)
    assert sess.run(opt._sync_token_queue.size()) == 0  # TF1: 0 tokens left
    states = accumulator_states(sess, opt)
    assert [s.global_step for s in states] == [4, 4] and [s.num_accumulated() for s in states] == [0, 0]
    stop(sess, coord)

    # The same as plain gradient descent on the averaged gradient.
    with tf.Graph().as_default():
        w2 = tf.Variable([0.5, -0.5])
        b2 = tf.Variable(1.0)
        xs = tf.constant(X)
        mean_grad_w = tf.reduce_mean(w2 - xs, axis=0)
        mean_grad_b = tf.reduce_mean(2.0 * tf.reduce_sum(xs, axis=1))
        step = tf.train.GradientDescentOptimizer(LR).apply_gradients([(mean_grad_w, w2), (mean_grad_b, b2)])
        with tf.Session() as s2:
            s2.run(tf.global_variables_initializer())
            for _ in range(steps):
                s2.run(step)
            np.testing.assert_allclose(s2.run(w2), w_val, rtol=1e-6)
            assert s2.run(b2) == pytest.approx(b_val, rel=1e-6)


def test_stale_gradients_are_dropped():
    opt, train, gs, w, b, x = build(2, 2)
    sess, coord, hook = start(opt, num_tokens=0)
    graph = tf.get_default_graph()
    apply_w = graph.get_operation_by_name("sync_replicas/ResourceAccumulatorApplyGradient")
    states = accumulator_states(sess, opt)
    out = []
    t = threading.Thread(target=lambda: out.append(sess.run(train, {x: X[0]})))
    t.start()
    wait_until(lambda: states[0].num_accumulated() == 1)
    assert int(sess.run(train, {x: X[1]})) == 1  # the second gradient completes step 0
    t.join(10)
    assert out == [1] and sess.run(gs) == 1
    assert [s.global_step for s in states] == [1, 1]
    sess.run(opt._local_step.assign(0))  # a replica still at step 0: its gradient is stale
    sess.run(apply_w, {x: X[2]})
    assert states[0].num_accumulated() == 0
    sess.run(opt._local_step.assign(1))
    sess.run(apply_w, {x: X[2]})
    assert states[0].num_accumulated() == 1
    stop(sess, coord)


def test_backup_replica_training_completes_when_one_replica_stops():
    """2 of 3 replicas aggregated per step; replica 2 stops after one train op, the
    others go on. Each step's update is exactly one learning rate times the (common)
    gradient, and stale gradients from the default initial tokens are dropped."""
    opt, train, gs, w, b, x = build(2, 3, linear=True)
    sess, coord, hook = start(opt)  # default tokens: replicas_to_aggregate of them
    states = accumulator_states(sess, opt)
    target, errors, done = 8, [], threading.Event()

    def replica(i, max_steps):
        try:
            for _ in range(max_steps):
                if done.is_set() or sess.run(gs) >= target:
                    return
                sess.run(train, {x: X[0]})
        except tf.errors.OutOfRangeError:
            pass  # the token queue closed at the end
        except Exception as e:  # noqa: BLE001 - handed to the test
            errors.append(e)

    threads = [threading.Thread(target=replica, args=(i, 1 if i == 2 else 1000)) for i in range(3)]
    for t in threads:
        t.start()
    wait_until(lambda: sess.run(gs) >= target, timeout=30)
    done.set()
    for t in threads:
        t.join(10)
    assert not errors and not any(t.is_alive() for t in threads)
    assert opt._tokens_per_step == 3
    wait_until(lambda: chief_waits_in_take(states))  # no update half done
    w_val, b_val, gs_val = sess.run([w, b, gs])
    expect_w, expect_b = np.array([0.5, -0.5], np.float32), np.float32(1.0)
    for _ in range(gs_val):
        expect_w = expect_w - np.float32(LR) * X[0]
        expect_b = expect_b - np.float32(LR) * np.float32(1.0)
    np.testing.assert_allclose(w_val, expect_w, rtol=1e-6)
    assert b_val == pytest.approx(expect_b, rel=1e-6)
    assert [s.global_step for s in states] == [gs_val, gs_val]
    stop(sess, coord)


# -- steps that can never complete (tensorflow#5022) ---------------------------------------------------


def test_a_dead_replica_fails_the_step_promptly_with_operation_timeout():
    """3 of 3 needed; replica 2 takes its token and dies, so a step can never get its
    third gradient. TF1 hangs forever; here the chief's take_grad fails after
    operation_timeout_in_ms, naming the accumulator and the count, the coordinator
    raises it, the token queue closes so the other replicas stop, and the
    accumulators keep the gradients that arrived."""
    opt, train, gs, w, b, x = build(3, 3)
    timeout_ms = 400
    sess, coord, hook = start(opt, num_tokens=0, config=tf.ConfigProto(operation_timeout_in_ms=timeout_ms))
    states = accumulator_states(sess, opt)
    barrier = threading.Barrier(3)
    outcomes = {}

    def replica(i):
        try:
            for k in range(1000):
                sess.run(train, {x: X[i]})
                if k <= 2:
                    barrier.wait(10)  # three full steps together: each replica holds a token of step 3
                if k == 2 and i == 2:
                    outcomes[i] = "stopped"
                    return  # dies holding its token
        except Exception as e:  # noqa: BLE001 - handed to the test
            outcomes[i] = e

    start_time = time.monotonic()
    threads = [threading.Thread(target=replica, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    with pytest.raises(tf.errors.DeadlineExceededError) as info:
        coord.join(stop_grace_period_secs=10)
    for t in threads:
        t.join(10)
    elapsed = time.monotonic() - start_time
    assert elapsed < 5.0, elapsed  # not forever: about one operation timeout after the last step
    msg = str(info.value)
    assert "ConditionalAccumulator '" in msg and "/grad_accum'" in msg
    assert "2 of the 3 gradients needed for step 3 arrived" in msg
    assert f"operation_timeout_in_ms = {timeout_ms}" in msg
    assert outcomes[2] == "stopped"
    for i in (0, 1):  # the survivors ended too: the token queue was closed, or their own dequeue timed out
        assert isinstance(outcomes[i], (tf.errors.OutOfRangeError, tf.errors.DeadlineExceededError)), outcomes[i]
    assert sess.run(gs) == 3
    assert [s.num_accumulated() for s in states] == [2, 2]  # nothing taken by the failed step
    assert [s.global_step for s in states] == [3, 3]
    sess.close()


def test_replicas_without_a_chief_fail_on_the_token_queue_with_operation_timeout():
    opt, train, gs, w, b, x = build(2, 2)
    sess, coord, hook = start(opt, is_chief=False, config=tf.ConfigProto(operation_timeout_in_ms=200))
    start_time = time.monotonic()
    with pytest.raises(tf.errors.DeadlineExceededError, match="FIFOQueue 'sync_token_q'.*operation_timeout_in_ms"):
        sess.run(train, {x: X[0]})
    assert time.monotonic() - start_time < 3.0
    sess.close()


def test_run_timeout_bounds_a_replica_step():
    opt, train, gs, w, b, x = build(2, 2)
    sess, coord, hook = start(opt, num_tokens=0)
    with pytest.raises(tf.errors.DeadlineExceededError, match="sync_token_q"):
        sess.run(train, {x: X[0]}, options=tf.RunOptions(timeout_in_ms=150))
    # the gradient went in; a second replica completes the step
    assert int(sess.run(train, {x: X[1]})) == 1
    assert sess.run(gs) == 1
    stop(sess, coord)


# -- extras ------------------------------------------------------------------------------------------


def test_variable_averages_run_after_the_tokens_are_pushed():
    class Averages:
        def __init__(self):
            self.applied = None

        def apply(self, var_list):
            self.applied = var_list
            return tf.no_op(name="averages")

    gs = tf.train.get_or_create_global_step()
    w = tf.Variable([1.0], name="w")
    averages = Averages()
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 1, variable_averages=averages,
                                         variables_to_average=[w])
    opt.minimize(tf.reduce_sum(w), global_step=gs)
    assert averages.applied == [w]
    sync_op = opt.get_chief_queue_runner().enqueue_ops[0]
    assert sync_op.name == "averages"
    assert [c.name for c in sync_op.control_inputs] == ["sync_token_q_EnqueueMany"]


# Closing a monitored session joins the coordinator's threads before it closes the
# session; the chief's thread is blocked in take_grad until the close cancels it, and
# then reports the CancelledError to the already joined coordinator, which re-raises it
# in that thread (TF1 does the same, after its 120 s default grace period).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_monitored_training_session_with_the_hook():
    opt, train, gs, w, b, x = build(1, 1, linear=True)
    hook = opt.make_session_run_hook(is_chief=True, num_tokens=0)
    with tf.train.MonitoredTrainingSession(is_chief=True, hooks=[hook], stop_grace_period_secs=0.2) as sess:
        for k in range(1, 4):
            assert int(sess.run(train, {x: X[1]})) == k
        np.testing.assert_allclose(sess.run(w), np.array([0.5, -0.5], np.float32) - 3 * np.float32(LR) * X[1],
                                   rtol=1e-6)
    for t in threading.enumerate():  # let the chief's thread end inside this test
        if t.name.startswith("QueueRunnerThread-sync_token_q"):
            t.join(10)
            assert not t.is_alive()
