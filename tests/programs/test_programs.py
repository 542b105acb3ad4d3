"""The corpus of public TF1 programs, each run as its user would after ``import dflow as tf``.

Every program of ``tests/programs/*/manifest.json`` runs in its own process through
``tools/run_programs.py`` (the manifest's changes, the one-line port, the MNIST stand-in), must exit
cleanly, and its final metric must be within the manifest's tolerance of the figure TensorFlow 2.15
recorded in ``expected.json`` (or within ``bounds`` where TF 2 cannot run it: ``tf.contrib``).
The quick ones run in CI; the rest are marked ``slow`` and ``corpus`` (``-m corpus`` runs them).
"""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _runner():
    spec = importlib.util.spec_from_file_location("run_programs", os.path.join(ROOT, "tools", "run_programs.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("run_programs", module)
    spec.loader.exec_module(module)
    return module


runner = _runner()
PROGRAMS = runner.load_programs(HERE)


def _param(program):
    marks = [] if program.quick else [pytest.mark.slow, pytest.mark.corpus]
    if program.entry.get("known_failure"):  # a row of docs/porting.md; passing would be news
        marks.append(pytest.mark.xfail(reason=program.entry["known_failure"], strict=True))
    return pytest.param(program, id=program.name, marks=marks)


def test_the_corpus_is_real():
    """At least 120 programs from 6 sources, each with its license, source URL and expected figure."""
    sources = {p.source for p in PROGRAMS}
    assert len(PROGRAMS) >= 120 and len(sources) >= 6, (len(PROGRAMS), sorted(sources))
    for program in PROGRAMS:
        assert os.path.isfile(os.path.join(program.folder, "LICENSE")), program.folder
        with open(os.path.join(program.folder, program.entry["file"]), encoding="utf-8") as f:
            head = f.read(600)
        assert program.entry["url"] in head and "License:" in head, program.name
        expected = runner.expected_figures(program.folder).get(program.entry["name"])
        assert (expected is not None) if program.tf_runs else bool(program.entry.get("bounds")), program.name


def test_the_port_changes_only_import_lines_and_the_manifests_changes():
    for program in PROGRAMS:
        with open(os.path.join(program.folder, program.entry["file"]), encoding="utf-8") as f:
            original = runner.apply_changes(program, f.read()).splitlines()
        ported = runner.program_text(program).splitlines()
        assert len(original) == len(ported)
        for old, new in zip(original, ported):
            if old != new:
                assert old.lstrip().startswith(("import tensorflow", "from tensorflow")), (program.name, old)
                assert "dflow" in new


def test_a_change_that_does_not_match_once_is_refused():
    program = runner.Program(HERE, {"name": "x", "changes": [["a", "b"]]}, "test")
    with pytest.raises(ValueError, match="matches 2 times"):
        runner.apply_changes(program, "a a")


@pytest.mark.parametrize("program", [_param(p) for p in PROGRAMS])
def test_program(program):
    result = runner.run(program)
    assert result.rc == 0, f"{program.name} exited {result.rc}:\n{result.tail}"
    expected = runner.expected_figures(program.folder).get(program.entry["name"], {}).get("metric")
    assert runner.matches(program, result.metric, expected), (
        f"{program.name}: dflow's metric {result.metric} is not within {program.entry.get('tolerance')} of "
        f"TensorFlow's {expected} (bounds {program.entry.get('bounds')}):\n{result.tail[-1500:]}")
