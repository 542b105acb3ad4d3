"""SavedModel's constants, ``tf.saved_model.utils`` and ``tf.saved_model.signature_def_utils``.

Tags (``tag_constants``), signature keys and method names
(``signature_constants``) and file names (``constants``) are TensorFlow's
strings. ``build_tensor_info`` records a tensor's name, dtype and static
shape in a ``TensorInfo``; the signature builders check their tensors as
TensorFlow does (classification inputs are strings, regression outputs
floats, ...).
"""

from __future__ import annotations

from dflow._api import export_value, tf_export
from dflow.framework import dtypes
from dflow.saved_model.proto import SignatureDef, TensorInfo

# -- constants (tag_constants, signature_constants, constants) -------------------------------------------------

TAGS = {"SERVING": "serve", "TRAINING": "train", "GPU": "gpu", "TPU": "tpu"}
SIGNATURES = {
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY": "serving_default",
    "CLASSIFY_INPUTS": "inputs", "CLASSIFY_METHOD_NAME": "tensorflow/serving/classify",
    "CLASSIFY_OUTPUT_CLASSES": "classes", "CLASSIFY_OUTPUT_SCORES": "scores",
    "PREDICT_INPUTS": "inputs", "PREDICT_METHOD_NAME": "tensorflow/serving/predict", "PREDICT_OUTPUTS": "outputs",
    "REGRESS_INPUTS": "inputs", "REGRESS_METHOD_NAME": "tensorflow/serving/regress", "REGRESS_OUTPUTS": "outputs",
}
FILES = {
    "ASSETS_DIRECTORY": "assets", "ASSETS_KEY": "saved_model_assets", "DEBUG_DIRECTORY": "debug",
    "DEBUG_INFO_FILENAME_PB": "saved_model_debug_info.pb", "LEGACY_INIT_OP_KEY": "legacy_init_op",
    "MAIN_OP_KEY": "saved_model_main_op", "SAVED_MODEL_FILENAME_PB": "saved_model.pb",
    "SAVED_MODEL_FILENAME_PBTXT": "saved_model.pbtxt", "SAVED_MODEL_SCHEMA_VERSION": 1,
    "VARIABLES_DIRECTORY": "variables", "VARIABLES_FILENAME": "variables",
}
for _module, _values in (("tag_constants", TAGS), ("signature_constants", SIGNATURES), ("constants", FILES)):
    for _name, _value in _values.items():
        export_value(f"saved_model.{_module}.{_name}", _value)
        export_value(f"saved_model.{_name}", _value)

SERVING, TRAINING = TAGS["SERVING"], TAGS["TRAINING"]
DEFAULT_SERVING_SIGNATURE_DEF_KEY = SIGNATURES["DEFAULT_SERVING_SIGNATURE_DEF_KEY"]
PREDICT_METHOD_NAME = SIGNATURES["PREDICT_METHOD_NAME"]
CLASSIFY_METHOD_NAME = SIGNATURES["CLASSIFY_METHOD_NAME"]
REGRESS_METHOD_NAME = SIGNATURES["REGRESS_METHOD_NAME"]


# -- utils -----------------------------------------------------------------------------------------------------


def _shape_proto(shape, out) -> None:
    dims = shape.as_list() if shape.ndims is not None else None
    if dims is None:
        out.unknown_rank = True
        return
    out.SetInParent()
    for d in dims:
        out.dim.add(size=-1 if d is None else int(d))


@tf_export("saved_model.utils.build_tensor_info", "saved_model.build_tensor_info")
def build_tensor_info(tensor) -> TensorInfo:
    """The ``TensorInfo`` of a tensor or ``SparseTensor``: name(s), dtype, static shape."""
    from dflow.framework.composite import SparseTensor
    from dflow.framework.graph import Tensor

    if isinstance(tensor, SparseTensor):
        info = TensorInfo(dtype=tensor.dtype.as_datatype_enum)
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
        info.tensor_shape.unknown_rank = True
        from dflow.framework.tensor_shape import TensorShape

        static = getattr(tensor, "shape", None)
        if isinstance(static, TensorShape) and static.ndims is not None:
            info.tensor_shape.unknown_rank = False
            _shape_proto(static, info.tensor_shape)
        return info
    if not isinstance(tensor, Tensor):
        raise TypeError(f"build_tensor_info: expected a Tensor or SparseTensor, got {type(tensor).__name__} "
                        f"({tensor!r}).")
    info = TensorInfo(name=tensor.name, dtype=tensor.dtype.as_datatype_enum)
    _shape_proto(tensor.shape, info.tensor_shape)
    return info


@tf_export("saved_model.utils.get_tensor_from_tensor_info", "saved_model.get_tensor_from_tensor_info")
def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The tensor (or ``SparseTensor``) of ``graph`` (default: the default graph) a ``TensorInfo`` names."""
    from dflow.framework.composite import SparseTensor
    from dflow.framework.graph import get_default_graph, scope_prefix

    graph = graph or get_default_graph()
    prefix = scope_prefix(import_scope)

    def get(name):
        return graph.get_tensor_by_name(prefix + name)

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return get(tensor_info.name)
    if encoding == "coo_sparse":
        sp = tensor_info.coo_sparse
        return SparseTensor(get(sp.indices_tensor_name), get(sp.values_tensor_name), get(sp.dense_shape_tensor_name))
    raise ValueError(f"Invalid TensorInfo.encoding: {encoding}")


# -- signature_def_utils ---------------------------------------------------------------------------------------


@tf_export("saved_model.signature_def_utils.build_signature_def", "saved_model.build_signature_def")
def build_signature_def(inputs=None, outputs=None, method_name=None, defaults=None) -> SignatureDef:
    """A ``SignatureDef`` of ``{key: TensorInfo}`` inputs and outputs and a method name."""
    sig = SignatureDef()
    for field, infos in (("inputs", inputs), ("outputs", outputs)):
        for key, info in (infos or {}).items():
            getattr(sig, field)[key].CopyFrom(info)
    if method_name is not None:
        sig.method_name = method_name
    if defaults:
        from dflow.framework.tensor_util import make_tensor_proto

        for key, value in defaults.items():
            sig.defaults[key].CopyFrom(make_tensor_proto(value))
    return sig


def _infos(tensors: dict) -> dict:
    return {key: build_tensor_info(t) for key, t in tensors.items()}


@tf_export("saved_model.signature_def_utils.predict_signature_def", "saved_model.predict_signature_def")
def predict_signature_def(inputs, outputs) -> SignatureDef:
    """A predict signature: ``{key: tensor}`` inputs and outputs, method ``tensorflow/serving/predict``."""
    if not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def(_infos(inputs), _infos(outputs), PREDICT_METHOD_NAME)


@tf_export("saved_model.signature_def_utils.classification_signature_def",
           "saved_model.classification_signature_def")
def classification_signature_def(examples, classes, scores) -> SignatureDef:
    """A classify signature: serialized ``tf.Example`` strings in, string ``classes`` and/or float ``scores`` out."""
    if examples is None:
        raise ValueError("Classification `examples` cannot be None.")
    if examples.dtype != dtypes.string:
        raise ValueError(f"Classification input tensors must be of type string. Found tensors of type "
                         f"{examples.dtype.as_datatype_enum}")
    if classes is None and scores is None:
        raise ValueError("Classification `classes` and `scores` cannot both be None.")
    outputs = {}
    if classes is not None:
        if classes.dtype != dtypes.string:
            raise ValueError(f"Classification classes must be of type string Tensor. Found tensors of type "
                             f"{classes.dtype.as_datatype_enum}.`")
        outputs[SIGNATURES["CLASSIFY_OUTPUT_CLASSES"]] = classes
    if scores is not None:
        if scores.dtype != dtypes.float32:
            raise ValueError(f"Classification scores must be a float32 Tensor. Found tensors of type "
                             f"{scores.dtype.as_datatype_enum}")
        outputs[SIGNATURES["CLASSIFY_OUTPUT_SCORES"]] = scores
    return build_signature_def({SIGNATURES["CLASSIFY_INPUTS"]: build_tensor_info(examples)}, _infos(outputs),
                               CLASSIFY_METHOD_NAME)


@tf_export("saved_model.signature_def_utils.regression_signature_def", "saved_model.regression_signature_def")
def regression_signature_def(examples, predictions) -> SignatureDef:
    """A regress signature: serialized ``tf.Example`` strings in, float ``outputs`` out."""
    if examples is None:
        raise ValueError("Regression `examples` cannot be None.")
    if examples.dtype != dtypes.string:
        raise ValueError(f"Regression input tensors must be of type string. Found tensors of type "
                         f"{examples.dtype.as_datatype_enum}")
    if predictions is None:
        raise ValueError("Regression `predictions` cannot be None.")
    if predictions.dtype != dtypes.float32:
        raise ValueError(f"Regression output tensors must be of type float. Found tensors with type "
                         f"{predictions.dtype.as_datatype_enum}.")
    return build_signature_def({SIGNATURES["REGRESS_INPUTS"]: build_tensor_info(examples)},
                               {SIGNATURES["REGRESS_OUTPUTS"]: build_tensor_info(predictions)}, REGRESS_METHOD_NAME)


def _valid_classify(sig) -> bool:
    if set(sig.inputs) != {"inputs"} or sig.inputs["inputs"].dtype != dtypes.string.as_datatype_enum:
        return False
    keys = set(sig.outputs)
    if not keys or keys - {"classes", "scores"}:
        return False
    if "classes" in sig.outputs and sig.outputs["classes"].dtype != dtypes.string.as_datatype_enum:
        return False
    return "scores" not in sig.outputs or sig.outputs["scores"].dtype == dtypes.float32.as_datatype_enum


def _valid_regress(sig) -> bool:
    return (set(sig.inputs) == {"inputs"} and sig.inputs["inputs"].dtype == dtypes.string.as_datatype_enum
            and set(sig.outputs) == {"outputs"} and sig.outputs["outputs"].dtype == dtypes.float32.as_datatype_enum)


@tf_export("saved_model.signature_def_utils.is_valid_signature", "saved_model.is_valid_signature")
def is_valid_signature(signature_def) -> bool:
    """Whether a ``SignatureDef`` is well-formed for its method (TF Serving's checks)."""
    if signature_def is None or not signature_def.method_name:
        return False
    method = signature_def.method_name
    if method == PREDICT_METHOD_NAME:
        return bool(signature_def.inputs) and bool(signature_def.outputs)
    if method == CLASSIFY_METHOD_NAME:
        return _valid_classify(signature_def)
    if method == REGRESS_METHOD_NAME:
        return _valid_regress(signature_def)
    return False
