"""Cluster tooling: ``dflow.LocalCluster``, ``tf.train.ClusterSpec``, ``tf.train.Server``
and the map from Dask workers to TF1 devices.

Importing this package does not import ``distributed``; making a cluster or a
server does.
"""

from dflow.cluster import cluster_spec, local_cluster, security, server  # noqa: F401
from dflow.cluster.cluster_spec import ClusterSpec
from dflow.cluster.local_cluster import LocalCluster
from dflow.cluster.security import set_security
from dflow.cluster.server import Server

__all__ = ["ClusterSpec", "LocalCluster", "Server", "set_security"]

# Imported after ``import dflow`` finished (``import dflow.cluster``), the exports
# above must still reach ``dflow.LocalCluster`` and ``dflow.train.*``; during
# ``import dflow`` itself, dflow's own ``populate`` call installs them.
_dflow = __import__("sys").modules.get("dflow")
if _dflow is not None and hasattr(_dflow, "compat"):
    from dflow import _api

    _api.populate(_dflow)
del _dflow
