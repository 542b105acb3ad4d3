"""Process loss heals: a killed task's worker comes back under its task name, sessions wait
(bounded) for it instead of failing placement, and ``MonitoredTrainingSession`` restores the
latest checkpoint onto the returned parameter server (issue 15)."""

import logging
import os
import time

import psutil
import pytest

import dflow as tf
from dflow.sessions import cluster_devices


def _pid_of(cluster, task: str) -> int:
    with cluster.client() as client:
        names = {a: w["name"] for a, w in client.scheduler_info(n_workers=-1)["workers"].items()}
        pids = client.run(os.getpid)
    return next(p for a, p in pids.items() if names.get(a) == task)


def _wait_for_task(cluster, task: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while task not in cluster.worker_addresses:
        assert time.monotonic() < deadline, f"{task} did not come back"
        time.sleep(0.2)


def _model():
    with tf.device("/job:ps/task:0"):
        gs = tf.train.get_or_create_global_step()
        w = tf.Variable(0.0, name="w")
    with tf.device("/job:worker/task:0"):
        loss = tf.square(w - 3.0)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    return gs, w, train


@pytest.fixture(scope="module")
def healing_cluster():
    """Worker processes under nannies: a killed one is restarted under its task name."""
    with tf.LocalCluster(ps=1, workers=1, dashboard_address=None) as cluster:
        yield cluster


@pytest.mark.timeout(120)
def test_monitored_training_session_restores_onto_the_restarted_ps(healing_cluster, tmp_path, caplog):
    """The issue's drill: SIGKILL the ps while MonitoredTrainingSession trains with a checkpoint
    directory; the session waits for the nanny's new ps, restores the latest checkpoint there and
    finishes; the global step never goes below the last checkpoint."""
    ckpt = str(tmp_path)
    with tf.Graph().as_default():
        gs, w, train = _model()
        steps, killed_at, last_saved = [], None, None
        with caplog.at_level(logging.INFO, logger="dflow"), tf.train.MonitoredTrainingSession(
                master=healing_cluster.target, is_chief=True, checkpoint_dir=ckpt, save_checkpoint_steps=5,
                save_checkpoint_secs=None, hooks=[tf.train.StopAtStepHook(last_step=30)]) as sess:
            while not sess.should_stop():
                _, step = sess.run([train, gs])
                steps.append(int(step))
                if step == 12 and killed_at is None:
                    last_saved = int(tf.train.latest_checkpoint(ckpt).rsplit("-", 1)[1])
                    killed_at = len(steps)
                    psutil.Process(_pid_of(healing_cluster, "/job:ps/task:0")).kill()
    assert last_saved == 10
    after = steps[killed_at:]
    assert after, "no step ran after the ps was killed"
    assert min(after) >= last_saved and after[0] <= 13  # progress since the checkpoint is the only loss
    assert steps[-1] >= 29
    assert tf.train.latest_checkpoint(ckpt).endswith("-30")
    assert "Restoring parameters from" in caplog.text and "Recovered: a new session was created" in caplog.text
    # The restored w trained on from its checkpointed value: 30 steps of w <- w - 0.2 (w - 3), minus the
    # 2 or 3 lost steps repeated, is the same 30 steps.
    with tf.Graph().as_default():
        w2 = tf.Variable(0.0, name="w")
        saver = tf.train.Saver({"w": w2})
        with tf.Session() as s:
            saver.restore(s, tf.train.latest_checkpoint(ckpt))
            assert s.run(w2) == pytest.approx(3.0 * (1 - 0.8 ** 30), rel=1e-5)


@pytest.mark.timeout(120)
def test_a_chief_without_a_checkpoint_reinitialises_and_says_so(healing_cluster, tmp_path, caplog):
    _wait_for_task(healing_cluster, "/job:ps/task:0")
    with tf.Graph().as_default():
        gs, w, train = _model()
        steps = []
        with caplog.at_level(logging.INFO, logger="dflow"), tf.train.MonitoredTrainingSession(
                master=healing_cluster.target, is_chief=True, checkpoint_dir=str(tmp_path / "none"),
                save_checkpoint_steps=None, save_checkpoint_secs=None, save_summaries_steps=None,
                hooks=[tf.train.StopAtStepHook(last_step=8)]) as sess:
            while not sess.should_stop():
                steps.append(int(sess.run([train, gs])[1]))
                if steps[-1] == 5 and steps.count(5) == 1:
                    psutil.Process(_pid_of(healing_cluster, "/job:ps/task:0")).kill()
    assert caplog.text.count("No checkpoint to restore in") == 2  # at the start and after the loss
    assert "Recovered" in caplog.text
    restart = next(i for i in range(1, len(steps)) if steps[i] < steps[i - 1])
    assert steps[restart] == 1 and steps[-1] >= 7


@pytest.mark.timeout(60)
def test_a_new_session_waits_for_a_lost_task_and_names_it_when_it_stays_away(monkeypatch):
    """In-process workers have no nanny: a closed ps stays away. A session (of a process that saw
    the ps) waits for it up to operation_timeout_in_ms and then names it; a task the cluster never
    had is still the placer's immediate error."""
    with tf.LocalCluster(ps=1, workers=1, processes=False, dashboard_address=None) as cluster:
        with tf.Graph().as_default():
            with tf.device("/job:ps/task:0"):
                v = tf.Variable(1.0, name="v")
            with tf.Session(cluster.target) as sess:
                sess.run(v.initializer)
            ps = cluster._live().workers["/job:ps/task:0"]
            cluster._live().sync(ps.close)
            _wait_gone(cluster, "/job:ps/task:0")
            # The scheduler's dflow extension remembers the lost task for a process that never saw it.
            monkeypatch.setattr(cluster_devices, "_devices_seen", {})
            config = tf.ConfigProto(operation_timeout_in_ms=1500)
            with tf.Session(cluster.target, config=config) as sess:
                start = time.monotonic()
                with pytest.raises(tf.errors.UnavailableError, match=r"/job:ps/replica:0/task:0.*within 1\.5 s"):
                    sess.run(v.initializer)
                assert 1.4 < time.monotonic() - start < 10
            with tf.device("/job:ps/task:7"):
                never = tf.constant(1.0, name="never")
            with tf.Session(cluster.target, config=config) as sess:
                start = time.monotonic()
                with pytest.raises(tf.errors.InvalidArgumentError, match="/job:ps/task:7"):
                    sess.run(never)
                assert time.monotonic() - start < 1.0


def _wait_gone(cluster, task: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    with cluster.client() as client:
        while any(w["name"] == task for w in client.scheduler_info(n_workers=-1)["workers"].values()):
            assert time.monotonic() < deadline
            time.sleep(0.1)


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_dask_cli_worker_under_a_nanny_comes_back_under_its_task_name(tmp_path):
    """`dask worker --name /job:ps/task:0` runs under a nanny by default: killed, it is restarted
    under the same name, and the session's next runs wait for it and go on there."""
    from distributed import Client

    from tests.cluster.conftest import dask_cli_cluster

    with dask_cli_cluster(tmp_path, ["/job:ps/task:0", "/job:worker/task:0"]) as target:
        with tf.Graph().as_default():
            gs, w, train = _model()
            init = tf.global_variables_initializer()
            with tf.Session(target) as sess:
                sess.run(init)
                sess.run(train)
                with Client(target, timeout=30) as client:
                    names = {a: i["name"] for a, i in client.scheduler_info(n_workers=-1)["workers"].items()}
                    pids = client.run(os.getpid)
                psutil.Process(next(p for a, p in pids.items() if names[a] == "/job:ps/task:0")).kill()
                with pytest.raises(tf.errors.UnavailableError, match="/job:ps/replica:0/task:0"):
                    for _ in range(200):
                        sess.run(train)
                        time.sleep(0.05)
                sess.run(init)  # waits for the restarted ps: its variables are new
                sess.run(train)
                assert sess.run(gs) == 1
                with Client(target, timeout=30) as client:
                    assert "/job:ps/task:0" in {i["name"] for i in client.scheduler_info(n_workers=-1)["workers"]
                                                .values()}


@pytest.mark.timeout(120)
def test_a_lost_worker_task_does_not_roll_the_live_model_back(healing_cluster, tmp_path, caplog):
    """The worker task dies, the ps keeps every variable: the chief's new session goes on with the live
    values (TF1 restores the checkpoint here, undoing every update since it was written)."""
    _wait_for_task(healing_cluster, "/job:ps/task:0")
    tf.Session.reset(healing_cluster.target)
    with tf.Graph().as_default():
        gs, w, train = _model()
        steps = []
        with caplog.at_level(logging.INFO, logger="dflow"), tf.train.MonitoredTrainingSession(
                master=healing_cluster.target, is_chief=True, checkpoint_dir=str(tmp_path), save_checkpoint_steps=10,
                save_checkpoint_secs=None, hooks=[tf.train.StopAtStepHook(last_step=25)]) as sess:
            while not sess.should_stop():
                steps.append(int(sess.run([train, gs])[1]))
                if steps[-1] == 15 and steps.count(15) == 1:
                    psutil.Process(_pid_of(healing_cluster, "/job:worker/task:0")).kill()
    assert steps == sorted(steps) and steps[-1] >= 24, steps  # never back to the checkpoint of step 10
    assert "Every variable is still initialised on the cluster" in caplog.text
    assert "Restoring parameters" not in caplog.text


@pytest.mark.timeout(120)
def test_a_ps_lost_while_the_session_is_prepared_is_unavailable_not_a_runtime_error(healing_cluster):
    """The ps restarts empty between the init op and the readiness check: TF1's RuntimeError ("Init
    operations did not make model ready") would end a monitored session; UnavailableError makes it
    recover."""
    _wait_for_task(healing_cluster, "/job:ps/task:0")
    with tf.Graph().as_default():
        gs, w, train = _model()
        init = tf.global_variables_initializer()
        with tf.device("/job:ps/task:0"):
            probe = tf.identity(1.0, name="probe")
        manager = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables())

        def lose_the_ps(sess):
            psutil.Process(_pid_of(healing_cluster, "/job:ps/task:0")).kill()
            deadline = time.monotonic() + 60
            while True:  # the session finds the ps gone, then runs on its restarted, empty process
                try:
                    sess.run(probe)
                    return
                except tf.errors.UnavailableError:
                    assert time.monotonic() < deadline
                    time.sleep(0.1)

        with pytest.raises(tf.errors.UnavailableError, match="lost while the session was being prepared"):
            manager.prepare_session(healing_cluster.target, init_op=init, init_fn=lose_the_ps)
