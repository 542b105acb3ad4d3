"""Per-graph names for unnamed layers and cells, as Keras' ``backend.unique_object_name`` gives them.

Both ``tf.layers`` (dflow/layers/) and the RNN cells of ``tf.nn.rnn_cell`` (dflow/ops/nn/rnn/) name
themselves from one counter per graph, so the counter lives below both.
"""

from __future__ import annotations

from dflow.framework.graph import get_default_graph


def unique_layer_name(base: str) -> str:
    """``base_1``, ``base_2``, ... per graph: Keras' ``unique_object_name`` (not zero-based), which
    names TF1's unnamed layers (their variable scopes are ``base``, ``base_1``, ...)."""
    counts = get_default_graph()._attachments.setdefault("layer_name_uids", {})
    counts[base] = counts.get(base, 0) + 1
    return f"{base}_{counts[base]}"
