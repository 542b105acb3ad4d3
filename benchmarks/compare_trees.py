"""Two source trees of dflow side by side: the same benchmarks run against each, in alternation.

For a change that should not move the figures (a refactor, a new layout), run the "before" and
"after" trees in one session, A B A B ..., so that a noisy neighbour or a warming CPU hits both
alike; each figure's median over the rounds is printed with the ratio after/before.

    git worktree add /tmp/before <commit>
    python benchmarks/compare_trees.py /tmp/before . --rounds 5

It runs each tree's own ``benchmarks/bench_session.py`` and ``benchmarks/bench_training.py`` (their
figures must build the same graphs in both), each in a fresh process with ``PYTHONPATH`` set to
that tree, and times ``import dflow`` in a fresh process too.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time

BENCHMARKS = ("bench_session.py", "bench_training.py")
ROW = re.compile(r"^(\S[\w ()/.,=-]*?)\s+(-?\d+(?:\.\d+)?|nan)\s*$")


def run_figures(tree: pathlib.Path, script: str) -> dict:
    """The dflow column of one benchmark run against ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, str(tree / "benchmarks" / script)], env=env, cwd=tree,
                         capture_output=True, text=True, check=True).stdout
    figures = {}
    for line in out.splitlines():
        m = ROW.match(line)
        if m and m.group(2) != "nan":
            figures[f"{script[6:-3]}: {m.group(1).strip()}"] = float(m.group(2))
    return figures


def import_ms(tree: pathlib.Path, repeat: int = 5) -> float:
    """Median wall time of ``python -c 'import dflow'`` against ``tree``, in ms."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import dflow"], env=env, cwd=tree, check=True)
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=pathlib.Path)
    ap.add_argument("after", type=pathlib.Path)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    samples: dict = {name: {} for name in trees}
    for r in range(args.rounds):
        for name, tree in (trees.items() if r % 2 == 0 else reversed(trees.items())):
            figures = {"import dflow (ms)": import_ms(tree)}
            for script in BENCHMARKS:
                figures.update(run_figures(tree, script))
            for k, v in figures.items():
                samples[name].setdefault(k, []).append(v)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print(f"{'figure (median of ' + str(args.rounds) + ' rounds)':58s}{'before':>10s}{'after':>10s}{'ratio':>8s}")
    for k in samples["before"]:
        b, a = statistics.median(samples["before"][k]), statistics.median(samples["after"].get(k, [float("nan")]))
        print(f"{k:58s}{b:10.2f}{a:10.2f}{a / b if b else float('nan'):8.3f}")


if __name__ == "__main__":
    main()
