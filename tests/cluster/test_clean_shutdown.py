"""Issue 21: the main job, a LocalCluster script and ``dflow cluster`` end without error logs or tracebacks.

Each runs as a real subprocess, as a newcomer runs it; its stderr is the evidence.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from .test_cli import _lines, _wait_for_line

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = dict(os.environ, PYTHONUNBUFFERED="1")


def _assert_clean(stderr: str) -> None:
    bad = [line for line in stderr.splitlines() if " ERROR " in line or "- ERROR -" in line or "Traceback" in line]
    assert not bad, "stderr holds errors:\n" + stderr[-4000:]


def _run(args, cwd, timeout=240):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=ENV, cwd=cwd)


def test_demo_in_process_ends_clean_with_progress_and_predictions(tmp_path):
    out = _run([sys.executable, "-m", "dflow.cli", "demo", "--local", "--model-dir", str(tmp_path / "m")], ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    _assert_clean(out.stderr)
    assert out.stdout.rstrip().splitlines()[-3].startswith('Prediction is "Virginica"')
    # TF1's progress lines while it trains, before the summary; the first says "step = 1" (the step just taken).
    progress = [line for line in out.stdout.splitlines() if line.startswith("INFO:tensorflow:")]
    assert progress[0].startswith("INFO:tensorflow:loss = ") and progress[0].endswith(", step = 1")
    assert any(line.startswith("INFO:tensorflow:global_step/sec: ") for line in progress)
    assert out.stdout.index("INFO:tensorflow:loss") < out.stdout.index("Test set accuracy")


_SCRIPT = """
import dflow as tf


def main():
    with tf.LocalCluster(ps=1, workers=2, dashboard_address=None) as cluster:
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0)
        with tf.device("/job:worker/task:1"):
            y = v * 3.0
        with tf.Session(cluster.target) as sess:
            sess.run(v.initializer)
            print("value", sess.run(y))
    print("closed")


if __name__ == "__main__":
    main()
"""


@pytest.mark.cluster
def test_a_local_cluster_script_closes_clean(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(_SCRIPT)
    out = _run([sys.executable, str(script)], tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    _assert_clean(out.stderr)
    assert out.stdout.split() == ["value", "3.0", "closed"]


def test_an_unguarded_script_gets_one_clear_error_before_any_process_starts(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text(textwrap.dedent("""
        import dflow as tf
        with tf.LocalCluster(ps=1, workers=1, dashboard_address=None) as cluster:
            print("never")
    """))
    out = _run([sys.executable, str(script)], tmp_path, timeout=60)
    assert out.returncode == 1
    assert 'if __name__ == "__main__":' in out.stderr and "processes=False" in out.stderr
    assert out.stderr.count("Traceback") == 1 and "nanny" not in out.stderr.lower()


@pytest.mark.cluster
def test_dflow_cluster_stops_clean_on_ctrl_c():
    p = subprocess.Popen([sys.executable, "-m", "dflow.cli", "cluster", "--ps", "1", "--workers", "1",
                          "--dashboard-address", "none"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=ENV, cwd=ROOT)
    try:
        out = _lines(p)
        target = _wait_for_line(out, "target:", 90).split()[1]
        import dflow as tf

        with tf.Graph().as_default():
            x = tf.constant(2.0) * 4.0
            with tf.Session(target) as sess:
                assert sess.run(x) == 8.0
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        assert p.wait(60) == 0
        _assert_clean(p.stderr.read())
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(10)


@pytest.mark.cluster
def test_a_tf_train_server_script_is_quiet_and_clean(tmp_path):
    script = tmp_path / "server_job.py"
    script.write_text(textwrap.dedent("""
        import dflow as tf


        def main():
            server = tf.train.Server.create_local_server()
            with tf.Session(server.target) as sess:
                print("value", sess.run(tf.constant(2.0) * 3.0))
            print("done")


        if __name__ == "__main__":
            main()
    """))
    out = _run([sys.executable, str(script)], tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["value", "6.0", "done"]
    # No errors, and not Dask's start-up and shutdown INFO lines either.
    assert out.stderr.strip() == "", out.stderr[-3000:]


def test_estimator_training_logs_tf1_progress_lines_after_set_verbosity(tmp_path):
    script = tmp_path / "progress.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import dflow as tf

        tf.logging.set_verbosity(tf.logging.INFO)
        x = np.random.RandomState(0).rand(64, 2).astype(np.float32)
        y = (x.sum(1) > 1).astype(np.int32)
        est = tf.estimator.LinearClassifier([tf.feature_column.numeric_column("x", shape=[2])],
                                            config=tf.estimator.RunConfig(log_step_count_steps=5))
        est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=8, num_epochs=None, shuffle=True),
                  steps=12)
    """))
    out = _run([sys.executable, str(script)], tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = [line for line in out.stderr.splitlines() if "loss =" in line or "global_step/sec" in line]
    assert [line.split(" = ")[0] for line in lines if "loss =" in line] == ["INFO:tensorflow:loss"] * 3
    assert [line.rsplit("step = ", 1)[1].split()[0] for line in lines if "loss =" in line] == ["1", "6", "11"]
    assert any(line.startswith("INFO:tensorflow:global_step/sec: ") for line in lines)
    _assert_clean(out.stderr)
