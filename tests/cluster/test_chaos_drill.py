"""The chaos drill (benchmarks/chaos_drill.py), short: a few dozen faults, and the zeros that matter."""

import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _drill_module():
    spec = importlib.util.spec_from_file_location("chaos_drill", os.path.join(ROOT, "benchmarks", "chaos_drill.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_a_short_chaos_drill_has_no_hang_no_corrupt_checkpoint_and_no_lost_update(tmp_path):
    drill = _drill_module()
    report = drill.run_drill(seconds_per_phase=15.0, phases=("async", "sync", "ensemble"), fault_every=2.0,
                             max_stall=0.5, ckpt_steps=10, members=3, deadline_ms=1000, seed=15,
                             workdir=str(tmp_path), log=lambda s: None)
    total = report["total"]
    assert total["faults"] >= 12, report
    assert total["hangs"] == 0, report
    assert total["corrupt_checkpoints"] == 0, report
    assert total["lost_acknowledged_updates"] == 0, report
    assert total["below_checkpoint"] == 0, report
    for phase in ("async", "sync"):
        r = report[phase]
        assert r["clients_finished"] == 2, (phase, r)
        assert r["kills"] >= 1 and r["recoveries"] >= 1, (phase, r)
        assert r["steps"] > 0 and r["leftover_tmp_files"] == 0, (phase, r)
    ensemble = report["ensemble"]
    assert ensemble["dequeued"] > 0 and ensemble["out_of_order"] == 0, ensemble
    # The aggregator's dequeues end within their deadline (plus a restart's worth), never hang.
    assert ensemble["max_wait_s"] < 1.0 + drill.HANG_SLACK_S, ensemble
