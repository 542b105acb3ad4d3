"""``dflow serve``: TF Serving's REST API for a SavedModel (``ModelServer``, ``Predictor``, batching, versions)."""

from dflow.serving.batching import BatchingParameters
from dflow.serving.predictor import Predictor, RequestError, Signatures, find_versions
from dflow.serving.server import DEFAULT_MAX_REQUEST_BYTES, ModelServer

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "BatchingParameters", "ModelServer", "Predictor", "RequestError",
           "Signatures", "find_versions"]
