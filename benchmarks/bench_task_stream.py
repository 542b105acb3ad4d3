"""What reporting direct runs to Dask's task stream costs (issue #12).

Between-graph asynchronous training (``bench_cluster``'s seed network: two
client processes, one ps and two workers of a ``dflow.LocalCluster``), in
alternating rounds without and with the task stream watched (Dask's
task-stream plugin installed on the scheduler, as when the dashboard's Task
Stream page is open). Target: at most 3 % fewer steps/s while watched.

Run: ``python benchmarks/bench_task_stream.py [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_cluster import _train  # noqa: E402 - the between-graph trainer processes

import dflow as tf  # noqa: E402


def _set_watched(client, watched: bool) -> None:
    def toggle(dask_scheduler=None, on=watched):
        from distributed.diagnostics.task_stream import TaskStreamPlugin

        if on and TaskStreamPlugin.name not in dask_scheduler.plugins:
            dask_scheduler.add_plugin(TaskStreamPlugin(dask_scheduler))
        if not on and TaskStreamPlugin.name in dask_scheduler.plugins:
            dask_scheduler.remove_plugin(name=TaskStreamPlugin.name)

    client.run_on_scheduler(toggle)
    time.sleep(2.0)  # workers ask once a second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    off, on, spans = [], [], 0
    with tf.LocalCluster(ps=1, workers=2, dashboard_address=None) as cluster, cluster.client() as client:
        for _ in range(args.rounds):
            _set_watched(client, False)
            off.append(_train("dflow", "client", cluster.target))
            _set_watched(client, True)
            on.append(_train("dflow", "client", cluster.target))
        spans = client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.extensions["dflow"].spans_received)
    ratio = statistics.median(on) / statistics.median(off)
    print(f"{time.strftime('%Y-%m-%d')}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(f"steps/s unwatched: {[round(x) for x in off]} (median {statistics.median(off):.0f})")
    print(f"steps/s watched:   {[round(x) for x in on]} (median {statistics.median(on):.0f})")
    print(f"watched / unwatched: {ratio:.3f}; spans received by the scheduler: {spans}")


if __name__ == "__main__":
    main()
