"""``tf.summary.get_summary_description``, ``all_v2_summary_ops`` and ``initialize``.

dflow writes TF1 summaries (``tf.summary.FileWriter``); it has no TF2-style
summary writers, so there are no v2 summary ops to list and ``initialize``
finds no writer, as TF does when none was created.
"""

from __future__ import annotations

import json

from dflow._api import tf_export
from dflow.framework.graph import get_default_graph
from dflow.framework.protos.summary_pb import SummaryDescription

_SUMMARY_V2_COLLECTION = "_SUMMARY_V2"


@tf_export("summary.get_summary_description")
def get_summary_description(node_def) -> SummaryDescription:
    """The ``SummaryDescription`` of a ``TensorSummary`` node (its ``description`` attr, JSON)."""
    if node_def.op != "TensorSummary":
        raise ValueError(f"Can't get_summary_description on {node_def.op}")
    value = node_def.attr.get("description", b"")
    description = getattr(value, "s", value)  # an AttrValue of a tf.NodeDef
    if isinstance(description, bytes):
        description = description.decode("utf-8")
    fields = json.loads(description) if description else {}
    return SummaryDescription(type_hint=fields.get("typeHint", fields.get("type_hint", "")))


@tf_export("summary.all_v2_summary_ops")
def all_v2_summary_ops() -> list:
    """The TF2-style summary ops of the default graph: none in dflow (its summaries are TF1's)."""
    return get_default_graph().get_collection(_SUMMARY_V2_COLLECTION)


@tf_export("summary.initialize")
def initialize(graph=None, session=None) -> None:
    """Initializes TF2-style summary writers: ``RuntimeError``, since dflow has none (use ``tf.summary.FileWriter``)."""
    raise RuntimeError("No default tf.contrib.summary.SummaryWriter found: dflow has no TF2-style summary writers; "
                       "write summaries with tf.summary.FileWriter(logdir).add_summary(...)")
