"""The ``/dflow`` page and its JSON twins, served by the scheduler's HTTP server.

Routes (added to the running scheduler's tornado application, beside Dask's
own pages; a scheduler started without a dashboard still serves them on its
HTTP port):

* ``/dflow``: the live page (``page.py``: HTML and JavaScript that polls the
  JSON below about once a second; no Bokeh server application is needed);
* ``/dflow/json/sessions``, ``/dflow/json/session/<id>``;
* ``/dflow/json/placement``;
* ``/dflow/json/variables``, ``/dflow/json/variables/<name>``;
* ``/dflow/json/queues``;
* ``/dflow/json/graph[?session=ID&search=substr&limit=N]``.

An unknown session or variable is a 404 with ``{"error": message}``. Every
answer is read from snapshots (the extension's dicts, the workers' copies of
their resource tables): a page request never takes a lock that a run needs.

Where Dask allows it, ``/dflow`` is also linked from the navigation bar of
Dask's own pages (``distributed.dashboard.scheduler.template_variables``).
"""

from __future__ import annotations

import json
import logging
import math

from tornado import web

_log = logging.getLogger("dflow.dashboard")


def _clean(obj):
    """JSON without NaN or infinities (which browsers' JSON.parse rejects)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


class _Handler(web.RequestHandler):
    def initialize(self, ext):
        self.ext = ext

    def send(self, obj, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.write(json.dumps(_clean(obj)))

    def not_found(self, message: str) -> None:
        self.send({"error": message}, 404)


class PageHandler(_Handler):
    def get(self):
        from dflow.dashboard.page import PAGE

        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.write(PAGE)


class SessionsHandler(_Handler):
    def get(self):
        self.send({"sessions": self.ext.session_rows()})


class SessionHandler(_Handler):
    def get(self, sid):
        detail = self.ext.session_detail(sid)
        if detail is None:
            return self.not_found(f"No session {sid!r} reported to this scheduler in the last "
                                  f"{self.ext_keep_minutes()} minutes; known: {sorted(self.ext.sessions) or 'none'}.")
        self.send(detail)

    def ext_keep_minutes(self) -> int:
        from dflow.dashboard.extension import SESSION_KEEP_S

        return int(SESSION_KEEP_S // 60)


class PlacementHandler(_Handler):
    def get(self):
        self.send({"devices": self.ext.placement_rows()})


class VariablesHandler(_Handler):
    async def get(self, name=None):
        variables, _ = await self.ext.resources()
        if name is None:
            return self.send({"variables": variables})
        rows = [v for v in variables if name in (v["name"], v["shared_name"])]
        if not rows:
            return self.not_found(f"No variable named {name!r} on the workers of this cluster "
                                  f"({len(variables)} variables).")
        self.send({"variables": rows})


class QueuesHandler(_Handler):
    async def get(self):
        _, queues = await self.ext.resources()
        self.send({"queues": queues})


class GraphHandler(_Handler):
    def get(self):
        sid = self.get_argument("session", None) or None
        search = self.get_argument("search", None) or None
        try:
            limit = int(self.get_argument("limit", "2000"))
        except ValueError:
            return self.send({"error": f"limit must be an integer, got {self.get_argument('limit')!r}"}, 400)
        graph = self.ext.graph(sid, search, max(limit, 0))
        if graph is None:
            return self.not_found(f"No session {sid!r} reported a graph to this scheduler; known: "
                                  f"{sorted(self.ext.sessions) or 'none'}.")
        self.send(graph)


class JsonNotFound(_Handler):
    def get(self, what):
        self.not_found(f"No dflow JSON endpoint {what!r}: try sessions, session/<id>, placement, variables, "
                       f"variables/<name>, queues or graph.")


def routes(ext) -> list:
    kw = {"ext": ext}
    return [(r"/dflow/?", PageHandler, kw),
            (r"/dflow/json/sessions/?", SessionsHandler, kw),
            (r"/dflow/json/session/([^/]+)/?", SessionHandler, kw),
            (r"/dflow/json/placement/?", PlacementHandler, kw),
            (r"/dflow/json/variables/?", VariablesHandler, kw),
            (r"/dflow/json/variables/(.+)", VariablesHandler, kw),
            (r"/dflow/json/queues/?", QueuesHandler, kw),
            (r"/dflow/json/graph/?", GraphHandler, kw),
            (r"/dflow/json/(.*)", JsonNotFound, kw)]


def add_routes(scheduler, ext) -> bool:
    """Adds the routes to ``scheduler``'s HTTP server (and a navigation link); whether it has one."""
    app = getattr(scheduler, "http_application", None)
    if app is None:
        return False
    prefix = (getattr(scheduler, "http_prefix", None) or "").rstrip("/")
    app.add_handlers(r".*", [(prefix + pattern, handler, kw) for pattern, handler, kw in routes(ext)])
    _add_nav_link(scheduler)
    return True


def _add_nav_link(scheduler) -> None:
    """Dask's pages draw their navigation bar from ``template_variables(scheduler)["pages"]``
    (memoized per scheduler): adding ``dflow`` there links ``/dflow`` from every page."""
    try:
        from distributed.dashboard.scheduler import template_variables

        pages = template_variables(scheduler)["pages"]
        if "dflow" not in pages:
            pages.append("dflow")
    except Exception as e:  # noqa: BLE001 - no Bokeh, or another distributed: no link, the page still works
        _log.debug("no dflow link in Dask's navigation bar: %s", e)
