"""ProximalAdagrad, AdagradDA, noisy_linear_cosine_decay, checkpoints_iterator and basic_train_loop,
against TF 2.15 compat.v1 (/tmp/ref/utils/train_extras_ref.py)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import dflow as tf


def _run(make_opt, steps=3):
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        w = tf.Variable([1.0, -2.0, 0.5], name="w")
        x = tf.constant([0.3, -1.2, 2.0])
        loss = tf.reduce_sum(tf.square(w * x - 1.0))
        opt = make_opt(gs)
        train = opt.minimize(loss, global_step=gs)
        slots = [opt.get_slot(w, n).op.name for n in sorted(opt.get_slot_names())]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            out = []
            for _ in range(steps):
                s.run(train)
                out.append(s.run(w))
        return slots, np.array(out)


@pytest.mark.parametrize("make_opt, slots, want", [
    (lambda gs: tf.train.ProximalAdagradOptimizer(0.5), ["w/ProximalAdagrad"],
     [[1.3994388580322266, -1.5021998882293701, 0.5], [1.6754751205444336, -1.2543388605117798, 0.5],
      [1.8893660306930542, -1.105408787727356, 0.5]]),
    (lambda gs: tf.train.ProximalAdagradOptimizer(0.5, initial_accumulator_value=0.2, l1_regularization_strength=0.1,
                                                  l2_regularization_strength=0.2), ["w/ProximalAdagrad"],
     [[1.0840907096862793, -1.4469330310821533, 0.31725597381591797],
      [1.1368087530136108, -1.1720466613769531, 0.7158565521240234],
      [1.1731929779052734, -1.010135531425476, 0.3065207004547119]]),
    (lambda gs: tf.train.AdagradDAOptimizer(0.5, gs), ["w/AdagradDA", "w/AdagradDA_1"],
     [[0.3994388282299042, 0.49780017137527466, -0.0], [0.636157214641571, -0.046369459480047226, 0.4984447658061981],
      [0.8059526085853577, -0.2451881468296051, 0.4999927580356598]]),
    (lambda gs: tf.train.AdagradDAOptimizer(0.5, gs, initial_gradient_squared_accumulator_value=0.2,
                                            l1_regularization_strength=0.1, l2_regularization_strength=0.2),
     ["w/AdagradDA", "w/AdagradDA_1"],
     [[0.22424212098121643, 0.4670981168746948, -0.0], [0.37831100821495056, -0.017637500539422035, 0.4497124254703522],
      [0.47099074721336365, -0.20733073353767395, 0.4720737636089325]]),
])
def test_optimizers_as_tf(make_opt, slots, want):
    got_slots, got = _run(make_opt)
    assert got_slots == slots
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_optimizer_argument_checks():
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        tf.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="initial_gradient_squared_accumulator_value must be positive"):
        tf.train.AdagradDAOptimizer(0.1, None, initial_gradient_squared_accumulator_value=0.0)


def test_noisy_linear_cosine_decay():
    with tf.Graph().as_default():
        lr = tf.train.noisy_linear_cosine_decay(0.1, 3, 10, initial_variance=0.0)
        lr2 = tf.train.noisy_linear_cosine_decay(0.1, tf.constant(20), 10, initial_variance=0.0, num_periods=1.5,
                                                 alpha=0.1, beta=0.01)
        noisy = tf.train.noisy_linear_cosine_decay(0.1, 0, 10, initial_variance=1.0)
        assert (lr.name, lr.dtype) == ("NoisyLinearCosineDecay:0", tf.float32)
        with tf.Session() as s:
            np.testing.assert_allclose(s.run([lr, lr2]), [0.055672478, 0.001], rtol=1e-6)  # TF
            draws = np.array([s.run(noisy) for _ in range(400)])
        # at step 0: 0.1 * ((1 + N(0, 1)) * 1 + 0.001)
        assert abs(draws.mean() - 0.1001) < 0.02 and abs(draws.std() - 0.1) < 0.02


def test_checkpoints_iterator_yields_each_new_checkpoint(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        saver = tf.train.Saver()
        with tf.Session() as s:
            s.run(v.initializer)
            first = saver.save(s, str(tmp_path / "m"), global_step=1)
            it = tf.train.checkpoints_iterator(str(tmp_path), timeout=3)
            assert next(it) == first
            later = threading.Timer(0.3, lambda: saver.save(s, str(tmp_path / "m"), global_step=2))
            later.start()
            assert next(it).endswith("m-2")
            later.join()
            it2 = tf.train.checkpoints_iterator(str(tmp_path), timeout=0.5)
            assert next(it2).endswith("m-2")
            with pytest.raises(StopIteration):  # nothing new within the timeout
                next(it2)
    calls = []
    it = tf.train.checkpoints_iterator(str(tmp_path / "empty"), timeout=0.2,
                                       timeout_fn=lambda: calls.append(1) or len(calls) >= 2)
    assert list(it) == [] and len(calls) == 2


def test_basic_train_loop_runs_until_the_supervisor_stops(tmp_path):
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        inc = tf.assign_add(step, 1)
        sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)
        seen = []

        def train_step(sess, scale, offset=0):
            seen.append(sess.run(inc) * scale + offset)
            if len(seen) == 3:
                sv.request_stop()

        tf.train.basic_train_loop(sv, train_step, args=[10], kwargs={"offset": 1})
    assert seen == [11, 21, 31]
