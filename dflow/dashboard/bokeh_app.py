"""``/dflow-live``: the dflow page as a Bokeh document on the Dask dashboard, beside Dask's own.

Dask builds its dashboard's Bokeh server from ``distributed.dashboard.scheduler.applications``
when the scheduler starts, so the app is registered when ``dflow.dashboard`` is imported: by the
``--preload dflow.dashboard`` flag (Dask imports preloads before it starts its HTTP server), by
the schedulers dflow starts, and by ``tf.train.Server``. It shows the same tables as ``/dflow``
(read from the scheduler extension's state, refreshed once a second) and a steps/s plot of the
most recent session; the variables and queues are the snapshot the previous refresh asked the
workers for, so a refresh never waits on a worker.
"""

from __future__ import annotations

import asyncio
import time

PATH = "/dflow-live"
_REFRESH_MS = 1000

_SESSION_COLUMNS = ["id", "host", "state", "runs", "steps_per_s", "step_ms", "graph_ops", "partitions", "cut_edges",
                    "errors", "last_error"]
_PLACEMENT_COLUMNS = ["device", "worker", "worker_name", "host", "memory_mib", "state", "ops", "partitions"]
_VARIABLE_COLUMNS = ["name", "dtype", "shape", "device", "bytes", "updates", "last_update_s_ago"]
_QUEUE_COLUMNS = ["name", "kind", "device", "size", "capacity", "closed", "blocked_consumers"]


def register() -> bool:
    """Adds the app to Dask's dashboard applications (before a scheduler starts); False without Bokeh."""
    try:
        from distributed.dashboard.scheduler import applications
    except ImportError:  # no bokeh: Dask serves no Bokeh pages either
        return False
    applications.setdefault(PATH, dflow_doc)
    return True


def _session_data(ext) -> dict:
    rows = ext.session_rows()
    return {c: [("running" if r["active"] else "closed" if r["closed"] else "idle") if c == "state"
                else ("" if r.get(c) is None else r.get(c)) for r in rows] for c in _SESSION_COLUMNS}


def _placement_data(ext) -> dict:
    rows = ext.placement_rows()
    out: dict = {c: [] for c in _PLACEMENT_COLUMNS}
    for r in rows:
        for c in _PLACEMENT_COLUMNS:
            if c == "memory_mib":
                out[c].append("" if r["memory"] is None else round(r["memory"] / 2**20, 1))
            elif c == "state":
                out[c].append("alive" if r["alive"] else "lost")
            else:
                out[c].append(r[c])
    return out


def _resource_data(rows: list, columns: list) -> dict:
    now = time.time()
    out: dict = {c: [] for c in columns}
    for r in rows:
        for c in columns:
            if c == "last_update_s_ago":
                t = r.get("updated")
                out[c].append("" if not t else round(now - t, 1))
            elif c == "shape":
                shape = r.get("shape")
                out[c].append("?" if shape is None else str(list(shape)))
            else:
                value = r.get(c)
                out[c].append("" if value is None else value)
    return out


def _history(ext) -> dict:
    rows = ext.session_rows()
    if not rows:
        return {"t": [], "steps_per_s": []}
    detail = ext.session_detail(rows[0]["id"]) or {}
    now = time.time()
    points = [(h["time"] - now, h["steps_per_s"]) for h in detail.get("history", ()) if h["steps_per_s"] is not None]
    return {"t": [p[0] for p in points], "steps_per_s": [p[1] for p in points]}


def dflow_doc(scheduler, extra, doc) -> None:
    """The Bokeh document of ``/dflow-live`` (Dask calls it once per page view)."""
    from bokeh.layouts import column
    from bokeh.models import ColumnDataSource, DataTable, Div, TableColumn
    from bokeh.plotting import figure

    from dflow.dashboard import install

    ext = install(scheduler)
    state = {"variables": [], "queues": [], "pending": None}

    def table(data: dict, title: str, height: int = 160):
        source = ColumnDataSource(data)
        columns = [TableColumn(field=c, title=c.replace("_", " ")) for c in data]
        return source, column(Div(text=f"<h3>{title}</h3>"),
                              DataTable(source=source, columns=columns, height=height, width=1100,
                                        index_position=None, name=f"dflow-{title.split()[0].lower()}"))

    sessions, sessions_box = table(_session_data(ext), "Sessions")
    placement, placement_box = table(_placement_data(ext), "Placement")
    variables, variables_box = table(_resource_data([], _VARIABLE_COLUMNS), "Variables")
    queues, queues_box = table(_resource_data([], _QUEUE_COLUMNS), "Queues and accumulators")
    history = ColumnDataSource(_history(ext))
    plot = figure(height=220, width=1100, title="steps/s of the most recent session (seconds before now)",
                  x_axis_label="s", y_axis_label="steps/s", tools="", toolbar_location=None)
    plot.line("t", "steps_per_s", source=history, line_width=2)

    async def fetch_resources():
        try:
            state["variables"], state["queues"] = await ext.resources()
        finally:
            state["pending"] = None

    def refresh():
        sessions.data = _session_data(ext)
        placement.data = _placement_data(ext)
        history.data = _history(ext)
        variables.data = _resource_data(state["variables"], _VARIABLE_COLUMNS)
        queues.data = _resource_data(state["queues"], _QUEUE_COLUMNS)
        if state["pending"] is None:  # ask the workers for the next refresh; never wait for them here
            state["pending"] = asyncio.ensure_future(fetch_resources())

    doc.title = "dflow"
    doc.add_root(column(Div(text="<h2>dflow</h2><p>TF1 sessions, devices, variables and queues on this cluster "
                                 "(the same as <a href='/dflow'>/dflow</a>, which also draws the graph).</p>"),
                        sessions_box, plot, placement_box, variables_box, queues_box))
    doc.add_periodic_callback(refresh, _REFRESH_MS)
    refresh()
