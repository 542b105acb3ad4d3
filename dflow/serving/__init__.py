"""``dflow serve``: TF Serving's REST API for a SavedModel (``ModelServer``, ``Predictor``)."""

from dflow.serving.predictor import Predictor, RequestError, find_versions
from dflow.serving.server import DEFAULT_MAX_REQUEST_BYTES, ModelServer

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "ModelServer", "Predictor", "RequestError", "find_versions"]
