"""``slim.queues``: ``QueueRunners(session)``, a context that runs the graph's queue runners while it is open."""

from __future__ import annotations

import contextlib

from dflow.framework.graph import GraphKeys


@contextlib.contextmanager
def QueueRunners(session):  # noqa: N802 - TF-slim's name
    """Starts the ``QUEUE_RUNNERS`` of ``session``'s graph; stops and joins them on exit."""
    from dflow.train.coordinator import Coordinator

    with session.graph.as_default():
        coord = Coordinator()
        threads = []
        for qr in session.graph.get_collection(GraphKeys.QUEUE_RUNNERS):
            threads.extend(qr.create_threads(session, coord=coord, daemon=True, start=True))
        try:
            yield
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=120)
