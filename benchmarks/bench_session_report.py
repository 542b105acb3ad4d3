"""What reporting sessions to the ``/dflow`` page costs a run (issue #12).

One client trains a small between-graph model (a ps and a worker of a
``dflow.LocalCluster``) and alternates rounds with the session's reporter
off (the runtime's path for a scheduler without dflow's extension) and on
(a run adds its time to a ring; at most once a second a report goes out
from the Dask client's event loop). Target: no difference beyond noise.

Run: ``python benchmarks/bench_session_report.py [--rounds 5] [--steps 1500]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import dflow as tf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=1500)
    args = parser.parse_args()
    off, on = [], []
    with tf.LocalCluster(ps=1, workers=1, dashboard_address=None) as cluster, tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:0")):
            w = tf.Variable(tf.zeros([16, 1]), name="w")
            x = tf.placeholder(tf.float32, [None, 16])
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
            train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        feed = {x: [[1.0] * 16] * 8}
        with tf.Session(cluster.target) as sess:
            sess.run(w.initializer)
            runtime = sess._runtime
            assert runtime.reporter is not None, "the scheduler has no dflow extension"
            for _ in range(200):
                sess.run(train, feed)
            for _ in range(args.rounds):
                for reporting, out in ((False, off), (True, on)):
                    runtime._dashboard = reporting
                    t0 = time.perf_counter()
                    for _ in range(args.steps):
                        sess.run(train, feed)
                    out.append(args.steps / (time.perf_counter() - t0))
            sent = runtime.reporter.sent
            reporter = runtime.reporter
            n = 100_000
            t0 = time.perf_counter()
            for _ in range(n):
                reporter.ran(None, 0.001)
            per_call_us = (time.perf_counter() - t0) / n * 1e6
    ratio = statistics.median(on) / statistics.median(off)
    print(f"{time.strftime('%Y-%m-%d')}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(f"steps/s reporter off: {[round(x) for x in off]} (median {statistics.median(off):.0f})")
    print(f"steps/s reporter on:  {[round(x) for x in on]} (median {statistics.median(on):.0f})")
    print(f"on / off: {ratio:.3f}; reports delivered: {sent}; SessionReporter.ran: {per_call_us:.2f} us a run")


if __name__ == "__main__":
    main()
