"""The pattern examples (examples/hyperparameter_search.py, ensemble.py, serving.py,
model_parallel.py) run against one shared LocalCluster, with tiny settings."""

import importlib.util
import pathlib
import time

import numpy as np
import pytest

import dflow as tf

pytestmark = pytest.mark.cluster

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(f"dflow_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def cluster():
    import dflow.cluster  # noqa: F401 - registers tf.LocalCluster

    with tf.LocalCluster(ps=1, workers=2, dashboard_address=None) as c:
        yield c


@pytest.fixture(autouse=True)
def clean_cluster_state(cluster):
    yield
    tf.Session.reset(cluster.target)


def test_hyperparameter_search_trains_one_model_per_worker_and_picks_the_lowest_loss(cluster, capsys):
    hp = load("hyperparameter_search")
    steps = 30
    result = hp.main(["--scheduler", cluster.target, "--workers", "2", "--steps", str(steps),
                      "--learning-rates", "0.3", "0.05", "--hidden", "5", "8"])
    models = result["models"]
    assert [(m["learning_rate"], m["hidden"]) for m in models] == [(0.3, 5), (0.3, 8), (0.05, 5), (0.05, 8)]
    assert result["best"] is min(models, key=lambda m: m["final_loss"])
    assert all(m["final_loss"] < m["initial_loss"] for m in models)
    for m in models:  # each model's ops ran on its own worker, and only there
        assert m["ran_on"] == [f"/job:worker/replica:0/task:{m['model'] % 2}/device:CPU:0"]
    out = capsys.readouterr().out
    assert f"best: model {result['best']['model']}" in out

    # Training side by side on the cluster gives what training the one model in-process gives.
    best = result["best"]
    xs, ys = hp.data()
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 1])
        y = tf.placeholder(tf.float32, [None, 1])
        loss, train_op = hp.build_model(x, y, best["learning_rate"], best["hidden"])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train_op, {x: xs, y: ys})
            local = sess.run(loss, {x: xs, y: ys})
    np.testing.assert_allclose(best["final_loss"], local, rtol=1e-5)


def test_ensemble_returns_within_its_deadline_without_a_crashed_model(cluster):
    ens = load("ensemble")
    start = time.monotonic()
    result = ens.main(["--scheduler", cluster.target, "--models", "3", "--crash-model", "1",
                       "--timeout-ms", "1500", "--batch", "8"])
    assert time.monotonic() - start < 10
    assert result["contributed"] == [0, 2] and result["missing"] == [1]
    assert 1.4 < result["seconds"] < 4.0          # it waited for model 1 until the deadline, no longer
    assert result["status"][1].startswith("crashed")
    want = np.mean([ens.numpy_predictions(k, result["x"]) for k in (0, 2)], axis=0)
    np.testing.assert_allclose(result["mean"], want, rtol=1e-5, atol=1e-6)


def test_ensemble_with_every_model_in_returns_before_the_deadline(cluster):
    ens = load("ensemble")
    result = ens.main(["--scheduler", cluster.target, "--models", "3", "--timeout-ms", "20000", "--batch", "4"])
    assert result["contributed"] == [0, 1, 2] and result["seconds"] < 10
    for k in range(3):
        np.testing.assert_allclose(result["predictions"][k], ens.numpy_predictions(k, result["x"]), rtol=1e-5,
                                   atol=1e-6)


def test_ensemble_tells_a_slow_model_it_came_too_late(cluster):
    ens = load("ensemble")
    result = ens.main(["--scheduler", cluster.target, "--models", "2", "--slow-model", "0", "--slow-ms", "1500",
                       "--timeout-ms", "500", "--batch", "4"])
    assert result["contributed"] == [1] and result["seconds"] < 1.4
    assert result["status"][0].startswith("too late")


@pytest.mark.slow
def test_ensemble_of_model_processes(cluster):
    # Three Python processes starting at once take several seconds on a small machine, and
    # the aggregator waits out its whole deadline for the crashed one: ~30 s.
    ens = load("ensemble")
    result = ens.main(["--scheduler", cluster.target, "--models", "3", "--crash-model", "2", "--processes",
                       "--timeout-ms", "30000", "--batch", "4"])
    assert result["contributed"] == [0, 1]
    assert "RuntimeError" in result["status"][2]


@pytest.mark.parametrize("sessions", ["shared", "per-thread"])
def test_serving_replicas_agree_and_serve_queries(cluster, sessions):
    serving = load("serving")
    result = serving.main(["--scheduler", cluster.target, "--workers", "2", "--hidden", "5", "--train-steps", "20",
                           "--queries", "16", "--batch", "32", "--threads-per-replica", "2", "--sessions", sessions])
    assert np.isfinite(result["train_loss"])
    first, *others = result["replica_predictions"]
    assert len(others) == 1
    for other in others:
        np.testing.assert_allclose(other, first, rtol=1e-6)
    np.testing.assert_allclose(first, result["expected"], rtol=1e-5, atol=1e-6)
    assert sorted(result["qps"]) == [1, 2] and all(q > 0 for q in result["qps"].values())


def test_model_parallel_equals_one_device(cluster):
    mp = load("model_parallel")
    result = mp.main(["--scheduler", cluster.target, "--workers", "2", "--steps", "3", "--units", "16",
                      "--rnn-units", "8", "--time-steps", "4", "--batch", "8"])
    for name, layers in (("mlp", 4), ("rnn", 3)):
        r = result[name]
        np.testing.assert_allclose(r["split"]["losses"], r["single"]["losses"], rtol=1e-5)
        np.testing.assert_allclose(r["split"]["outputs"], r["single"]["outputs"], rtol=1e-5, atol=1e-6)
        assert r["split"]["losses"][-1] < r["split"]["losses"][0]
        # The split network really is split: layer l's forward and backward ops ran on worker
        # l mod 2; the other network's on worker 0 only.
        for where in ("layers_on", "gradients_on"):
            assert r["split"][where] == {f"layer{i}": [f"/job:worker/task:{i % 2}"] for i in range(layers)}
            assert r["single"][where] == {f"layer{i}": ["/job:worker/task:0"] for i in range(layers)}
