"""``slim.utils``: contrib.layers' helpers for the tensors that layers put in ``outputs_collections``."""

from dflow.contrib.layers import _collect_named_outputs as collect_named_outputs  # noqa: F401
from dflow.contrib.layers import get_tensor_aliases  # noqa: F401
from dflow.contrib.layers_extra import convert_collection_to_dict  # noqa: F401


def append_tensor_alias(tensor, alias):
    """Gives ``tensor`` one more alias (read by ``get_tensor_aliases``)."""
    from dflow.contrib.layers import _graph_aliases

    if alias[-1:] == "/":
        alias = alias[:-1]
    _graph_aliases(tensor.graph).setdefault(tensor, []).append(alias)
    return tensor
