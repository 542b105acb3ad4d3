"""``dflow demo``: the Iris walk-through, in-process in the suite and on a cluster in a slow test."""

import subprocess
import sys

import numpy as np
import pytest

from dflow.cli import main
from dflow.demo import EXPECTED


def _check(out: str):
    accuracy = float(out.split("Test set accuracy: ")[1].split()[0])
    assert accuracy >= 0.9
    lines = [line for line in out.splitlines() if line.startswith("Prediction is")]
    assert [line.split('expected "')[1].rstrip('"') for line in lines] == EXPECTED
    # The walk-through's three flowers are easy: each is predicted as expected.
    assert all(line.split('"')[1] == line.split('"')[-2] for line in lines)


def test_demo_runs_locally(capsys, tmp_path):
    import argparse

    from dflow.demo import add_arguments, run

    assert main(["demo", "--local", "--model-dir", str(tmp_path)]) == 0
    _check(capsys.readouterr().out)
    # The same run, for its figures: predictions are dicts whose probabilities sum to 1.
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    result = run(parser.parse_args(["--local", "--steps", "10", "--model-dir", str(tmp_path / "again")]))
    assert len(result["predictions"]) == 3
    for p in result["predictions"]:
        np.testing.assert_allclose(p["probabilities"].sum(), 1.0, rtol=1e-6)


@pytest.mark.slow
@pytest.mark.cluster
def test_demo_on_an_embedded_cluster_from_the_command_line():
    out = subprocess.run([sys.executable, "-m", "dflow.cli", "demo", "--dashboard-address", ":0"],
                         capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    # Issue 21: a cluster that shuts down on purpose logs no errors and no tracebacks.
    bad = [line for line in out.stderr.splitlines() if "ERROR" in line or "Traceback" in line]
    assert not bad, out.stderr[-4000:]
    assert "Dashboard: http://" in out.stdout
    assert "dflow page: http://" in out.stdout and "/dflow" in out.stdout
    _check(out.stdout)
