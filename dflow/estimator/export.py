"""``tf.estimator.export``: serving input receivers, export outputs, and ``Estimator.export_saved_model``.

A ``serving_input_receiver_fn`` builds the serving graph's inputs: the
``receiver_tensors`` clients feed (a string placeholder of serialized
``tf.Example``s for ``build_parsing_serving_input_receiver_fn``, or raw
placeholders) and the ``features`` handed to ``model_fn``. Each
``ExportOutput`` of the ``EstimatorSpec`` becomes one signature, as TF1's
Estimator exports them (a classification signature needs a single string
input; signatures the receiver cannot feed are left out with a warning).
"""

from __future__ import annotations

import logging
import os
import shutil
import time

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.graph import Tensor
from dflow.saved_model import signatures as sig_lib

_log = logging.getLogger("dflow")

DEFAULT_KEY = sig_lib.DEFAULT_SERVING_SIGNATURE_DEF_KEY
_SINGLE_FEATURE_DEFAULT_NAME = "feature"
_SINGLE_RECEIVER_DEFAULT_NAME = "input"


# -- export outputs ----------------------------------------------------------------------------------------------


@tf_export("estimator.export.ExportOutput")
class ExportOutput:
    """One output signature of an exported model (base of the ``*Output`` classes)."""

    def as_signature_def(self, receiver_tensors):
        raise NotImplementedError("ExportOutput.as_signature_def: implemented by its subclasses")


def _single_string_input(receiver_tensors, what: str) -> Tensor:
    if len(receiver_tensors) != 1 or list(receiver_tensors.values())[0].dtype != dtypes.string:
        raise ValueError(f"{what} signatures can only accept a single tensor input of type tf.string. Please check "
                         f"to make sure that you have structured the serving_input_receiver_fn so that it creates a "
                         f"single string placeholder. If your model function expects multiple inputs, then use "
                         f"`tf.io.parse_example()` to parse the string into multiple tensors.\n "
                         f"Received: {receiver_tensors}")
    return list(receiver_tensors.values())[0]


@tf_export("estimator.export.ClassificationOutput")
class ClassificationOutput(ExportOutput):
    """Class scores (float32 ``[batch, n]``) and/or class names (string) for a classify signature."""

    def __init__(self, scores=None, classes=None):
        if scores is not None and not (isinstance(scores, Tensor) and scores.dtype == dtypes.float32):
            raise ValueError(f"Classification scores must be a float32 Tensor; got {scores}")
        if classes is not None and not (isinstance(classes, Tensor) and classes.dtype == dtypes.string):
            raise ValueError(f"Classification classes must be a string Tensor; got {classes}")
        if scores is None and classes is None:
            raise ValueError("Cannot create a ClassificationOutput with empty arguments. At least one of `scores` "
                             "and `classes` must be defined.")
        self._scores, self._classes = scores, classes

    @property
    def scores(self):
        return self._scores

    @property
    def classes(self):
        return self._classes

    def as_signature_def(self, receiver_tensors):
        examples = _single_string_input(receiver_tensors, "Classification")
        return sig_lib.classification_signature_def(examples, self._classes, self._scores)


@tf_export("estimator.export.RegressionOutput")
class RegressionOutput(ExportOutput):
    """One float32 value per example for a regress signature."""

    def __init__(self, value):
        if not (isinstance(value, Tensor) and value.dtype == dtypes.float32):
            raise ValueError(f"Regression output value must be a float32 Tensor; got {value}")
        self._value = value

    @property
    def value(self):
        return self._value

    def as_signature_def(self, receiver_tensors):
        examples = _single_string_input(receiver_tensors, "Regression")
        return sig_lib.regression_signature_def(examples, self._value)


@tf_export("estimator.export.PredictOutput")
class PredictOutput(ExportOutput):
    """Any named tensors (a dict, or one tensor named ``output``) for a predict signature."""

    def __init__(self, outputs):
        if not isinstance(outputs, dict):
            outputs = {"output": outputs}
        for key, value in outputs.items():
            if not isinstance(key, str):
                raise ValueError(f"Prediction output key must be a string; got {key}.")
            if not isinstance(value, Tensor):
                raise ValueError(f"Prediction output value must be a Tensor; got {value}.")
        self._outputs = dict(outputs)

    @property
    def outputs(self):
        return self._outputs

    def as_signature_def(self, receiver_tensors):
        return sig_lib.predict_signature_def(receiver_tensors, self._outputs)


def get_export_outputs(export_outputs, predictions) -> dict:
    """``export_outputs`` with a ``serving_default`` entry, as TF's ``EstimatorSpec`` completes them."""
    if export_outputs is None:
        export_outputs = {DEFAULT_KEY: PredictOutput(predictions)}
    if not isinstance(export_outputs, dict):
        raise TypeError(f"export_outputs must be dict, given: {export_outputs}")
    for value in export_outputs.values():
        if not isinstance(value, ExportOutput):
            raise TypeError(f"Values in export_outputs must be ExportOutput objects. Given: {export_outputs}")
    export_outputs = dict(export_outputs)
    if len(export_outputs) == 1:
        (key, value), = export_outputs.items()
        export_outputs.setdefault(DEFAULT_KEY, value)
    elif DEFAULT_KEY not in export_outputs:
        raise ValueError("Multiple export_outputs were provided, but none of them is specified as the default.  "
                         "Do this by naming one of them with signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY.")
    return export_outputs


# -- serving input receivers -------------------------------------------------------------------------------------


def _as_dict(tensors, default_name: str, what: str) -> dict:
    from dflow.framework.composite import SparseTensor

    if tensors is None:
        raise ValueError(f"{what} must be defined.")
    if not isinstance(tensors, dict):
        tensors = {default_name: tensors}
    for name, t in tensors.items():
        if not isinstance(name, str):
            raise ValueError(f"{what} keys must be strings: {name}.")
        if not isinstance(t, (Tensor, SparseTensor)):
            raise ValueError(f"{what} must be a Tensor, SparseTensor, or RaggedTensor.")
    return dict(tensors)


@tf_export("estimator.export.ServingInputReceiver")
class ServingInputReceiver:
    """What a ``serving_input_receiver_fn`` returns: ``features`` for ``model_fn``, ``receiver_tensors`` to feed."""

    def __init__(self, features, receiver_tensors, receiver_tensors_alternatives=None):
        self.features = _as_dict(features, _SINGLE_FEATURE_DEFAULT_NAME, "features")
        self.receiver_tensors = _as_dict(receiver_tensors, _SINGLE_RECEIVER_DEFAULT_NAME, "receiver_tensors")
        alternatives = {}
        for name, tensors in (receiver_tensors_alternatives or {}).items():
            alternatives[name] = _as_dict(tensors, _SINGLE_RECEIVER_DEFAULT_NAME, "receiver_tensors")
        self.receiver_tensors_alternatives = alternatives or None


@tf_export("estimator.export.TensorServingInputReceiver")
class TensorServingInputReceiver(ServingInputReceiver):
    """A receiver whose ``features`` is one tensor handed to ``model_fn`` as is (not a dict)."""

    def __init__(self, features, receiver_tensors, receiver_tensors_alternatives=None):
        super().__init__({_SINGLE_FEATURE_DEFAULT_NAME: features}, receiver_tensors, receiver_tensors_alternatives)
        self.features = features


@tf_export("estimator.export.build_raw_serving_input_receiver_fn")
def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A receiver fn feeding ``features`` (``{name: tensor}``) directly: one placeholder per feature."""
    from dflow.framework.constant_op import placeholder
    from dflow.framework.tensor_shape import TensorShape

    if not isinstance(features, dict):
        features = {_SINGLE_FEATURE_DEFAULT_NAME: features}

    def serving_input_receiver_fn():
        receiver_tensors = {}
        for name, t in features.items():
            dims = t.shape.as_list() if t.shape.ndims is not None else None
            if dims:
                dims[0] = default_batch_size
            receiver_tensors[name] = placeholder(t.dtype, TensorShape(dims), name=t.op.name)
        return ServingInputReceiver(receiver_tensors, dict(receiver_tensors))

    return serving_input_receiver_fn


@tf_export("estimator.export.build_parsing_serving_input_receiver_fn")
def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A receiver fn taking serialized ``tf.Example``s (``examples``) parsed with ``feature_spec``."""
    from dflow.framework.constant_op import placeholder
    from dflow.ops.io.example_parsing import parse_example

    def serving_input_receiver_fn():
        serialized = placeholder(dtypes.string, [default_batch_size], name="input_example_tensor")
        features = parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})

    return serving_input_receiver_fn


# -- export ------------------------------------------------------------------------------------------------------


def build_all_signature_defs(receiver_tensors, export_outputs, receiver_tensors_alternatives=None) -> dict:
    """The valid signatures of ``export_outputs`` for the receiver (and its alternatives, ``alt:key``)."""
    from dflow.saved_model.signatures import is_valid_signature

    signatures, excluded = {}, {}
    receivers = [(None, receiver_tensors)] + sorted((receiver_tensors_alternatives or {}).items())
    for alt, tensors in receivers:
        for key, output in export_outputs.items():
            name = key if alt is None else f"{alt}:{key}"
            try:
                signatures[name] = output.as_signature_def(tensors)
            except ValueError as e:
                excluded[name] = str(e)
    for name, why in sorted(excluded.items()):
        _log.warning("Export includes no signature %r: %s", name, why.splitlines()[0])
    valid = {k: v for k, v in signatures.items() if is_valid_signature(v)}
    if DEFAULT_KEY not in valid:
        _log.warning("Export includes no default signature!")
    return valid


def get_timestamped_export_dir(export_dir_base) -> str:
    """``export_dir_base/<seconds since the epoch>``, a directory that does not exist yet."""
    export_dir_base = os.fspath(export_dir_base)
    if isinstance(export_dir_base, bytes):
        export_dir_base = export_dir_base.decode("utf-8")
    from dflow.framework.files import file_io

    fs, base = file_io.split_path(export_dir_base)  # fs: None for a local path, else its fsspec file system
    for _ in range(10):
        stamp = str(int(time.time()))
        if fs is None and not os.path.exists(os.path.join(export_dir_base, stamp)):
            return os.path.join(export_dir_base, stamp)
        if fs is not None and not fs.exists(f"{base.rstrip('/')}/{stamp}"):
            return f"{export_dir_base.rstrip('/')}/{stamp}"
        time.sleep(1)
    raise RuntimeError("Failed to obtain a unique export directory name after 10 attempts.")


def export_saved_model(estimator, export_dir_base, serving_input_receiver_fn, assets_extra=None, as_text=False,
                       checkpoint_path=None, strip_default_attrs=True) -> bytes:
    """Writes the estimator's PREDICT graph and latest (or given) checkpoint as a SavedModel."""
    from dflow.estimator.model_fn import ModeKeys
    from dflow.framework import graph as graph_lib
    from dflow.saved_model.builder import SavedModelBuilder
    from dflow.sessions.session import Session
    from dflow.train.checkpoints.saver import Saver
    from dflow.train.monitored_session import Scaffold

    if serving_input_receiver_fn is None:
        raise ValueError("An input_receiver_fn must be defined.")
    checkpoint_path = checkpoint_path or estimator.latest_checkpoint()
    if not checkpoint_path:
        raise ValueError(f"Couldn't find trained model at {estimator.model_dir}.")
    export_dir = get_timestamped_export_dir(export_dir_base)
    graph = graph_lib.Graph()
    with graph.as_default():
        if estimator.config.tf_random_seed is not None:
            graph_lib.set_random_seed(estimator.config.tf_random_seed)
        receiver = serving_input_receiver_fn()
        estimator._create_and_assert_global_step(graph)
        spec = estimator._call_model_fn(receiver.features, None, ModeKeys.PREDICT, estimator.config)
        export_outputs = get_export_outputs(spec.export_outputs, spec.predictions)
        signature_def_map = build_all_signature_defs(receiver.receiver_tensors, export_outputs,
                                                     receiver.receiver_tensors_alternatives)
        scaffold = spec.scaffold
        saver = (scaffold.saver if scaffold is not None else None) or Saver(sharded=True)
        local_init_op = (scaffold.local_init_op if scaffold is not None else None) or \
            Scaffold.default_local_init_op()
        with Session(graph=graph) as sess:
            saver.restore(sess, checkpoint_path)
            builder = SavedModelBuilder(export_dir)
            builder.add_meta_graph_and_variables(
                sess, [sig_lib.SERVING], signature_def_map=signature_def_map,
                assets_collection=graph.get_collection("asset_filepaths"), main_op=local_init_op,
                strip_default_attrs=strip_default_attrs, saver=saver)
    if assets_extra:
        extra_dir = os.path.join(builder._stage(), "assets.extra")
        for dest, source in assets_extra.items():
            target = os.path.join(extra_dir, dest)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
    builder.save(as_text)
    return export_dir.encode("utf-8")
