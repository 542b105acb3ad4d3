"""examples/quickstart.py (the in-process tour the README shows): keep it working."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_quickstart_runs_and_recovers_the_weights():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "quickstart.py")], capture_output=True,
                         text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "fitted weights:" in out.stdout and "r^2 0.99" in out.stdout
