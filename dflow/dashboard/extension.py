"""The scheduler side of dflow's monitoring: direct runs' spans into Dask's task stream.

Workers ask ``dflow_watching`` about once a second (is Dask's task-stream
plugin installed, i.e. has a dashboard page or ``get_task_stream`` asked for
it?) and, while it is, send their spans with ``dflow_spans``. The spans go
into the plugin's buffer as the records of finished tasks Dask itself puts
there, so every consumer of the task stream (the dashboard's Task Stream and
Status pages, ``Client.get_task_stream``) shows them.
"""

from __future__ import annotations

from distributed.diagnostics.task_stream import TaskStreamPlugin


class DflowExtension:
    """Registered as ``scheduler.extensions["dflow"]``."""

    def __init__(self, scheduler):
        self.scheduler = scheduler
        self.spans_received = 0
        scheduler.handlers["dflow_spans"] = self.add_spans
        scheduler.handlers["dflow_watching"] = self.watching
        scheduler.extensions["dflow"] = self

    def _plugin(self) -> TaskStreamPlugin | None:
        return self.scheduler.plugins.get(TaskStreamPlugin.name)

    def watching(self, comm=None) -> bool:
        """Whether anybody watches the task stream (its plugin exists)."""
        return self._plugin() is not None

    def add_spans(self, comm=None, spans=()) -> int:
        """Appends finished partitions (dicts in the task-stream record format) to the task stream."""
        plugin = self._plugin()
        if plugin is None:
            return 0
        for span in spans:
            plugin.buffer.append(span)
            plugin.index += 1
        self.spans_received += len(spans)
        return len(spans)
