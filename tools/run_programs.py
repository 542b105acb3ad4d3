#!/usr/bin/env python
"""Run the corpus of public TF1 programs (``tests/programs/``) under dflow, and under TensorFlow.

Each folder of ``tests/programs/`` holds the programs of one public source, copied unchanged below
a header that names their source and license, and a ``manifest.json``::

    {"source": "owner/repo", "url": "https://github.com/owner/repo", "license": "MIT",
     "programs": [{"name": "mnist_softmax", "file": "mnist_softmax.py",
                   "url": "https://github.com/owner/repo/blob/<commit>/path/mnist_softmax.py",
                   "changes": [["training_epochs = 25", "training_epochs = 2"]],
                   "mnist": "MNIST_data", "files": ["data/zoo.csv"], "args": [],
                   "metric": "Accuracy:\\s*([-+0-9.eE]+)", "tolerance": {"abs": 0.05},
                   "quick": true, "timeout": 300, "tf": true}]}

- ``changes`` are the only edits made before a run (data loading and step counts): each pair is an
  exact text replacement that must match once. The port itself is the one TF1 users make: the
  ``tensorflow`` of each import line becomes ``dflow``.
- ``modules`` are the program's own Python modules in the same folder (``utils.py``,
  ``modeling.py``): copied beside it and ported the same way (a pair ``[path in the source folder,
  path in the working folder]`` keeps a package's folder: ``autoencoder_models/Autoencoder.py``);
  ``module_changes`` maps a module's file (in the source folder) to its changes.
- ``mnist`` is the folder (relative to the program's working folder) where the program reads
  MNIST; the stand-in of ``tools/mnist_standin.py`` is put there. ``files`` are copied from the
  source folder into the working folder: a path (the same relative path in both), or a pair
  ``[path in the source folder, path in the working folder]``; a folder is copied whole.
- ``metric`` is a regular expression whose first group, in the last line of the program's output
  that matches, is the program's final metric (a loss, an accuracy or a printed checksum).
  ``tolerance`` (``abs`` and/or ``rel``) is how far dflow's may be from TensorFlow's.
- ``known_failure``: why dflow cannot run the program yet (a row of ``docs/porting.md``); the
  tests expect it to fail.
- ``tf`` is ``true``, or the reason TensorFlow 2.15 cannot run the program (``tf.contrib`` is gone
  from TF 2); such a program is checked against ``bounds`` (``{"min": .., "max": ..}``) instead.

TensorFlow's figures are kept in each folder's ``expected.json`` with the command that recorded them
(``--tf PYTHON --record``). Under ``--tf`` the programs run under TensorFlow 2.15's ``compat.v1``
(``import tensorflow`` gives ``tf.compat.v1`` with v2 behaviour off, see ``program_shims/``), side
by side with dflow, one after the other, so the time ratio compares like with like.

    python tools/run_programs.py                      # every program, against expected.json
    python tools/run_programs.py --quick aymericdamien # the quick ones of one source
    python tools/run_programs.py --tf /tmp/tf/bin/python --record
    python tools/run_programs.py --show linear_regression   # the ported program text
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROGRAMS = os.path.join(ROOT, "tests", "programs")
SHIMS = os.path.join(HERE, "program_shims")
sys.path.insert(0, HERE)
import mnist_standin  # noqa: E402

_IMPORT = re.compile(r"^(\s*)(import|from)(\s+)tensorflow\b", re.M)
_COMPAT_IMPORT = re.compile(r"^(\s*)import\s+tensorflow\.compat\.v1\s+as\s+(\w+)", re.M)
_BARE_IMPORT = re.compile(r"^(\s*)import\s+tensorflow\s*$", re.M)  # the program then says tensorflow.x


@dataclasses.dataclass
class Program:
    folder: str            # the source's folder under tests/programs
    entry: dict            # its manifest entry
    source: str            # owner/repo

    @property
    def name(self) -> str:
        return f"{os.path.basename(self.folder)}/{self.entry['name']}"

    @property
    def quick(self) -> bool:
        return bool(self.entry.get("quick", False))

    @property
    def tf_runs(self) -> bool:
        return self.entry.get("tf", True) is True

    @property
    def timeout(self) -> float:
        return float(self.entry.get("timeout", 300))


@dataclasses.dataclass
class Result:
    rc: int | None
    seconds: float
    metric: float | None
    tail: str

    @property
    def ok(self) -> bool:
        return self.rc == 0


def load_programs(root: str = PROGRAMS, select=()) -> list[Program]:
    """Every program of every ``manifest.json`` under ``root``; ``select`` keeps those whose name
    (``source/name``) or folder matches one of its items."""
    programs = []
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder, "manifest.json")
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
        for entry in manifest["programs"]:
            programs.append(Program(os.path.join(root, folder), entry, manifest["source"]))
    if select:
        programs = [p for p in programs if any(s in (p.name, os.path.basename(p.folder), p.entry["name"])
                                               for s in select)]
    return programs


def expected_figures(folder: str) -> dict:
    path = os.path.join(folder, "expected.json")
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f).get("programs", {})


def apply_changes(program: Program, text: str, module: str | None = None) -> str:
    """The program's text (or its ``module``'s) with the manifest's changes made; each must match
    exactly once."""
    changes = program.entry.get("module_changes", {}).get(module, ()) if module else program.entry.get("changes", ())
    for old, new in changes:
        count = text.count(old)
        if count != 1:
            raise ValueError(f"{program.name}: the change {old!r} -> {new!r} matches {count} times, not once")
        text = text.replace(old, new)
    return text


def port_to_dflow(text: str) -> str:
    """The one-line port: each ``import tensorflow...``/``from tensorflow...`` names dflow instead."""
    text = _COMPAT_IMPORT.sub(r"\1import dflow as \2", text)
    text = _BARE_IMPORT.sub(r"\1import dflow as tensorflow", text)
    return _IMPORT.sub(r"\1\2\3dflow", text)


def program_text(program: Program, under_tf: bool = False) -> str:
    with open(os.path.join(program.folder, program.entry["file"]), encoding="utf-8") as f:
        text = apply_changes(program, f.read())
    return text if under_tf else port_to_dflow(text)


def _mnist_cache() -> str:
    base = os.environ.get("DFLOW_PROGRAMS_CACHE") or os.path.join(tempfile.gettempdir(), "dflow-programs-cache")
    return mnist_standin.ensure(os.path.join(base, "mnist-standin-v1"))


def prepare(program: Program, workdir: str, under_tf: bool) -> str:
    """Fill ``workdir`` with the program (ported unless ``under_tf``), its files and its data;
    returns the program's path there."""
    for item in program.entry.get("files", ()):
        rel_source, rel_target = (item, item) if isinstance(item, str) else item
        target = os.path.join(workdir, rel_target)
        os.makedirs(os.path.dirname(target) or workdir, exist_ok=True)
        source = os.path.join(program.folder, rel_source)
        (shutil.copytree if os.path.isdir(source) else shutil.copy)(source, target)
    for module in program.entry.get("modules", ()):
        module, rel_target = (module, os.path.basename(module)) if isinstance(module, str) else module
        with open(os.path.join(program.folder, module), encoding="utf-8") as f:
            text = apply_changes(program, f.read(), module)
        target = os.path.join(workdir, rel_target)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            f.write(text if under_tf else port_to_dflow(text))
    if "mnist" in program.entry:
        target = os.path.join(workdir, program.entry["mnist"])
        os.makedirs(target, exist_ok=True)
        cache = _mnist_cache()
        for name in mnist_standin.FILES:
            shutil.copy(os.path.join(cache, name), os.path.join(target, name))
    path = os.path.join(workdir, os.path.basename(program.entry["file"]))
    with open(path, "w", encoding="utf-8") as f:
        f.write(program_text(program, under_tf))
    return path


def parse_metric(program: Program, output: str) -> float | None:
    pattern = program.entry.get("metric")
    if not pattern:
        return None
    found = None
    for line in output.splitlines():
        match = re.search(pattern, line)
        if match:
            found = match
    if found is None:
        return None
    try:
        return float(found.group(1).strip("[](),'\""))
    except ValueError:
        return None


def run(program: Program, python: str = sys.executable, under_tf: bool = False) -> Result:
    """Run one program in a fresh working folder; its exit status, wall time, metric and output tail."""
    with tempfile.TemporaryDirectory(prefix="dflow-program-") as workdir:
        path = prepare(program, workdir, under_tf)
        env = dict(os.environ, MPLBACKEND="Agg", PYTHONHASHSEED="0", PYTHONUNBUFFERED="1",
                   PYTHONDONTWRITEBYTECODE="1", TF_CPP_MIN_LOG_LEVEL="2", HOME=workdir)
        env["PYTHONPATH"] = os.pathsep.join(
            [SHIMS] if under_tf else [ROOT] + [p for p in [os.environ.get("PYTHONPATH")] if p])
        if under_tf:
            env["DFLOW_PROGRAMS_TF_SHIM"] = "1"
        command = [python, path] + [str(a) for a in program.entry.get("args", ())]
        start = time.perf_counter()
        try:
            proc = subprocess.run(command, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=program.timeout)
        except subprocess.TimeoutExpired as e:
            output = (e.stdout or b"").decode("utf-8", "replace")
            return Result(None, time.perf_counter() - start, None, output[-3000:] + "\n[timed out]")
        seconds = time.perf_counter() - start
        output = proc.stdout.decode("utf-8", "replace")
        return Result(proc.returncode, seconds, parse_metric(program, output), output[-3000:])


def matches(program: Program, metric: float | None, expected: float | None) -> bool:
    """Whether dflow's ``metric`` is within the manifest's tolerance of TF's ``expected`` (or, for a
    program TF cannot run, within its ``bounds``)."""
    if metric is None or not math.isfinite(metric):
        return False
    if not program.tf_runs or expected is None:
        bounds = program.entry.get("bounds")
        if not bounds:
            return False
        return bounds.get("min", -math.inf) <= metric <= bounds.get("max", math.inf)
    tol = program.entry.get("tolerance", {})
    return abs(metric - expected) <= tol.get("abs", 0.0) + tol.get("rel", 0.0) * abs(expected)


def _fmt(value, spec=".4g"):
    return "-" if value is None else format(value, spec)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("select", nargs="*", help="sources (folders) or programs (source/name or name)")
    parser.add_argument("--tf", metavar="PYTHON", help="also run each program under this Python's TensorFlow")
    parser.add_argument("--record", action="store_true", help="with --tf: write TF's figures to expected.json")
    parser.add_argument("--quick", action="store_true", help="only the programs marked quick")
    parser.add_argument("--json", metavar="FILE", help="write every result and the summary to FILE")
    parser.add_argument("--show", metavar="NAME", help="print a program as dflow runs it, and exit")
    parser.add_argument("--verbose", "-v", action="store_true", help="print the output tail of failures")
    args = parser.parse_args(argv)

    if args.show:
        for program in load_programs(select=[args.show]):
            print(program_text(program))
        return 0
    programs = [p for p in load_programs(select=args.select) if p.quick or not args.quick]
    rows, recorded = [], {}
    print(f"{'program':55} {'dflow':>6} {'s':>7} {'metric':>10} {'tf':>6} {'s':>7} {'metric':>10}  match")
    for program in programs:
        expected = expected_figures(program.folder).get(program.entry["name"], {})
        mine = run(program)
        theirs = run(program, args.tf, under_tf=True) if args.tf and program.tf_runs else None
        tf_metric = theirs.metric if theirs is not None else expected.get("metric")
        tf_seconds = theirs.seconds if theirs is not None else expected.get("seconds")
        ok = mine.ok and matches(program, mine.metric, tf_metric)
        if theirs is not None and theirs.ok:
            recorded.setdefault(program.folder, {})[program.entry["name"]] = {
                "metric": theirs.metric, "seconds": round(theirs.seconds, 2)}
        rows.append(dict(name=program.name, rc=mine.rc, seconds=round(mine.seconds, 2), metric=mine.metric,
                         tf_rc=None if theirs is None else theirs.rc, tf_seconds=tf_seconds,
                         tf_metric=tf_metric, match=ok))
        tf_rc = "-" if theirs is None else str(theirs.rc)
        print(f"{program.name:55} {str(mine.rc):>6} {mine.seconds:7.1f} {_fmt(mine.metric):>10} {tf_rc:>6} "
              f"{_fmt(tf_seconds, '.1f'):>7} {_fmt(tf_metric):>10}  {'yes' if ok else 'NO'}", flush=True)
        if args.verbose and not ok:
            print("    " + "\n    ".join(mine.tail.splitlines()[-25:]))
            if theirs is not None and not theirs.ok:
                print("    [tf] " + "\n    [tf] ".join(theirs.tail.splitlines()[-15:]))
    timed = [r for r in rows if r["rc"] == 0 and r["tf_seconds"]]
    summary = {
        "programs": len(rows), "run": sum(r["rc"] == 0 for r in rows), "match": sum(r["match"] for r in rows),
        "time_ratio": (round(sum(r["seconds"] for r in timed) / sum(r["tf_seconds"] for r in timed), 3)
                       if timed else None),
        "timed_programs": len(timed),
    }
    print(json.dumps(summary))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"summary": summary, "results": rows}, f, indent=1)
    if args.record and args.tf:
        version = subprocess.run([args.tf, "-c", "import tensorflow as t; print(t.__version__)"],
                                 capture_output=True, text=True).stdout.strip()
        for folder, figures in recorded.items():
            path = os.path.join(folder, "expected.json")
            old = expected_figures(folder)
            old.update(figures)
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"recorded_with": f"python tools/run_programs.py --tf PYTHON --record "
                                            f"{os.path.basename(folder)}",
                           "tensorflow": version, "date": datetime.date.today().isoformat(),
                           "programs": dict(sorted(old.items()))}, f, indent=1)
                f.write("\n")
    return 0 if summary["match"] == summary["programs"] else 1


if __name__ == "__main__":
    sys.exit(main())
