"""Training ops update large variables in place when nothing else holds their value
(``resources.update_in_place``), and otherwise replace it, with the same results either way."""

import threading

import numpy as np
import pytest

import dflow as tf
from dflow.ops.state.resources import IN_PLACE_ELEMENTS, VariableState

SHAPE = (IN_PLACE_ELEMENTS // 64, 64)

OPTIMIZERS = {
    "adam": lambda: tf.train.AdamOptimizer(0.01),
    "gradient_descent": lambda: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    "nesterov": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
}


def _model(make_optimizer):
    rng = np.random.default_rng(0)
    w = tf.Variable(rng.standard_normal(SHAPE).astype(np.float32), name="w")
    x = tf.constant(rng.standard_normal((8, SHAPE[0])).astype(np.float32))
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w) - 1.0))
    return w, make_optimizer().minimize(loss)


def _state(sess, name):
    return sess._runtime.resources.variable(("", name), name)


def _address(state):
    return state.value.__array_interface__["data"][0]


def _steps(make_optimizer, hold: bool, steps: int = 3):
    """The variable after ``steps`` training steps, and whether each step kept its array; ``hold``
    keeps a reference to each step's value (the state is then never the sole owner)."""
    with tf.Graph().as_default():
        w, train = _model(make_optimizer)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)  # the first update replaces the initial value, which the graph's constant holds
            state = _state(sess, "w")
            held, kept = [], []
            for _ in range(steps):
                before = _address(state)
                if hold:
                    held.append(state.value)
                sess.run(train)
                kept.append(_address(state) == before)
            return sess.run(w), held, kept


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_in_place_and_replacing_updates_agree_bit_for_bit(name):
    in_place, _, kept = _steps(OPTIMIZERS[name], hold=False)
    replaced, held, kept_held = _steps(OPTIMIZERS[name], hold=True)
    assert kept == [True] * 3  # one array, written step after step
    assert kept_held == [False] * 3  # a held value is never written: each step made a new one
    np.testing.assert_array_equal(in_place, replaced)
    assert len({h.tobytes() for h in held}) == 3  # and the held values kept what they were


def test_a_fetched_value_is_a_snapshot_that_later_steps_leave_alone():
    with tf.Graph().as_default():
        w, train = _model(OPTIMIZERS["adam"])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            before = sess.run(w)
            copy = before.copy()
            sess.run(train)
            np.testing.assert_array_equal(before, copy)
            assert not np.array_equal(sess.run(w), copy)


def test_readers_in_other_threads_never_see_a_half_written_update():
    """Each step adds one to every element; a reader racing the updates must see arrays whose
    elements all agree (a torn read would mix two steps)."""
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros(4 * IN_PLACE_ELEMENTS, np.float32))
        train = tf.train.GradientDescentOptimizer(1.0).apply_gradients([(tf.fill([4 * IN_PLACE_ELEMENTS], -1.0), v)])
        read = tf.identity(v) + 0.0  # a computed copy: the reader's reference is dropped each run
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            stop, torn, reads = threading.Event(), [], [0]

            def reader():
                while not stop.is_set():
                    value = sess.run(read)
                    reads[0] += 1
                    if value.min() != value.max():
                        torn.append((value.min(), value.max()))

            thread = threading.Thread(target=reader)
            thread.start()
            try:
                for _ in range(200):
                    sess.run(train)
            finally:
                stop.set()
                thread.join()
            assert reads[0] > 0 and not torn
            assert sess.run(v)[0] == 200.0


def test_sole_owner_sees_views_callers_and_foreign_memory():
    state = VariableState("v")
    state.value = np.zeros(IN_PLACE_ELEMENTS, np.float32)
    assert state.sole_owner()
    held = state.value
    assert not state.sole_owner()
    del held
    view = state.value[:10]
    assert not state.sole_owner()
    del view
    assert state.sole_owner()
    state.value = np.zeros(2 * IN_PLACE_ELEMENTS, np.float32)[::2]  # a view: its base may be seen elsewhere
    assert not state.sole_owner()


def test_a_failing_in_place_update_changes_nothing():
    with tf.Graph().as_default():
        v = tf.Variable(np.ones(IN_PLACE_ELEMENTS, np.float32))
        g = tf.placeholder(tf.float32, [None])
        train = tf.train.AdamOptimizer(0.1).apply_gradients([(g, v)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.InvalidArgumentError, match="same shape"):
                sess.run(train, {g: np.ones(IN_PLACE_ELEMENTS - 1, np.float32)})
            np.testing.assert_array_equal(sess.run(v), 1.0)
            sess.run(train, {g: np.ones(IN_PLACE_ELEMENTS, np.float32)})
            assert sess.run(v)[0] < 1.0


def test_an_embeddings_sparse_update_writes_only_its_rows_in_place():
    rows = IN_PLACE_ELEMENTS // 16
    with tf.Graph().as_default():
        emb = tf.Variable(np.ones((rows, 16), np.float32), name="w")
        ids = tf.constant([3, 7, 3])
        loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, ids))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)  # ScatterSub of the rows
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)  # replaces the initial value, which the graph's constant holds
            state = _state(sess, "w")
            before, held = _address(state), state.value
            sess.run(train)  # held: a new array
            assert _address(state) != before and held[3, 0] == 0.0
            del held
            before = _address(state)
            sess.run(train)  # in place
            assert _address(state) == before
            got = sess.run(emb)
    want = np.ones((rows, 16), np.float32)
    want[3] -= 3 * 2 * 0.5  # row 3 is looked up twice a step: its two rows of gradient both apply
    want[7] -= 3 * 0.5
    np.testing.assert_array_equal(got, want)
