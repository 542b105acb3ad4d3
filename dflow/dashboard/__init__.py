"""dflow on the Dask dashboard.

Sessions on a cluster run their partitions directly on the workers (the
``dflow_run`` handler), not through the scheduler, so Dask's own pages would
not see them. This package tells the scheduler about them:

* workers record one span per partition they run (its op name, worker,
  thread, start and stop) while somebody watches the task stream, and send
  them in batches at most every 100 ms (``spans.py``); the scheduler adds
  them to Dask's task-stream plugin, so the dashboard's Task Stream and
  ``distributed.get_task_stream`` show the user's op names;
* the scheduler extension (``extension.py``) takes those batches and answers
  whether anybody watches, keeps what sessions report and serves ``/dflow``
  (HTML polling ``/dflow/json/...``, ``page.py``/``http.py``);
* ``/dflow-live`` is the same as a Bokeh document on Dask's dashboard server
  (``bokeh_app.py``), where Bokeh is installed.

Every scheduler that dflow starts (``dflow.LocalCluster``, ``dflow cluster``,
a ``tf.train.Server`` hosting one) loads it; any other Dask scheduler loads it
with ``dask scheduler --preload dflow.dashboard``. A scheduler without it
serves Dask's pages as before, and workers then record nothing.
"""

from __future__ import annotations

from dflow.dashboard import bokeh_app as _bokeh_app

# Dask builds its Bokeh dashboard when a scheduler starts: register /dflow-live before that
# (importing this module is what --preload dflow.dashboard does first).
_bokeh_app.register()


def install(scheduler):
    """Adds dflow's extension to a running (or starting) Dask ``scheduler``; returns it."""
    from dflow.dashboard.extension import DflowExtension

    ext = scheduler.extensions.get("dflow")
    return ext if ext is not None else DflowExtension(scheduler)


def dask_setup(scheduler):
    """``dask scheduler --preload dflow.dashboard``."""
    install(scheduler)
