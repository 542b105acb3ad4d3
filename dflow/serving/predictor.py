"""TF Serving's request formats (``Signatures``) and one loaded SavedModel version (``Predictor``).

``Signatures`` holds a ``signature_def`` map and turns TF Serving's REST
request bodies (parsed JSON) into ``Job``s: ``predict`` in the row
(``instances``) and columnar (``inputs``) formats, ``classify`` and
``regress`` from JSON ``tf.Example``s; a job says what to run (signature,
feeds as arrays, outputs) and how to answer from the outputs. Keeping the two
halves apart lets the server join jobs into batches and run them anywhere.

A ``Predictor`` is ``Signatures`` plus the ``serve`` meta graph loaded into
its own graph and ``Session``: ``run`` runs a job's feeds, and ``predict``,
``classify``, ``regress`` answer a body in one call. The server holds one per
version (``versions.LocalRunner``), or each Dask worker does
(``replicas.ReplicaActor``).

Bad requests raise ``RequestError`` (HTTP 400) with TF Serving's wording where
it has one, naming the input.
"""

from __future__ import annotations

import base64
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dflow.saved_model.signatures import (
    CLASSIFY_METHOD_NAME,
    DEFAULT_SERVING_SIGNATURE_DEF_KEY,
    REGRESS_METHOD_NAME,
    SERVING,
)


class RequestError(ValueError):
    """A request the model cannot answer: TF Serving's ``{"error": ...}`` with an HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def find_versions(export_dir: str) -> dict[int, str]:
    """``{version: path}`` of ``export_dir``: its numeric subdirectories, or ``{1: export_dir}`` if it is a model.

    ``OSError`` if it holds neither (naming what was looked for).
    """
    from dflow.saved_model.loader import maybe_saved_model_directory

    export_dir = os.fspath(export_dir)
    if not os.path.isdir(export_dir):
        raise OSError(f"dflow serve: export directory does not exist: {export_dir}")
    versions = {int(name): os.path.join(export_dir, name) for name in os.listdir(export_dir)
                if name.isdigit() and os.path.isdir(os.path.join(export_dir, name))}
    if versions:
        return versions
    if maybe_saved_model_directory(export_dir):
        return {1: export_dir}
    raise OSError(f"dflow serve: no servable in {export_dir}: it holds neither saved_model.pb (or .pbtxt) nor "
                  f"numeric version subdirectories (1/, 2/, ...)")


# -- JSON <-> numpy -------------------------------------------------------------------------------------------


def _np_dtype(info):
    from dflow.framework import dtypes

    return dtypes.as_dtype(info.dtype)


def _bytes_of(value, where: str):
    if isinstance(value, dict):
        if set(value) != {"b64"} or not isinstance(value["b64"], str):
            raise RequestError(f"{where}: expected a string or {{\"b64\": ...}}, got the object {value}")
        try:
            return base64.b64decode(value["b64"], validate=True)
        except ValueError as e:
            raise RequestError(f"{where}: invalid base64 ({e})") from None
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, list):
        return [_bytes_of(v, where) for v in value]
    raise RequestError(f"{where}: expected a string, got {type(value).__name__} {value!r}")


def _has_bool(value) -> bool:
    if isinstance(value, list):
        return any(_has_bool(v) for v in value)
    return isinstance(value, bool)


def _shape_of(info):
    shape = info.tensor_shape
    if shape.unknown_rank:
        return None
    return [d.size for d in shape.dim]


def to_array(value, info, name: str) -> np.ndarray:
    """The JSON ``value`` of input ``name`` as an array of the dtype and shape its ``TensorInfo`` gives."""
    dtype = _np_dtype(info)
    where = f"input '{name}'"
    try:
        if dtype.name == "string":
            array = np.array(_bytes_of(value, where), dtype=object)
        else:
            raw = np.asarray(value)
            if raw.dtype.kind not in "biuf":
                raise RequestError(f"{where}: expected numbers of type {dtype.name}, got {value!r:.80}")
            if dtype.is_integer and raw.dtype.kind == "f":
                raise RequestError(f"{where}: expected integers of type {dtype.name}, got floats")
            if dtype.is_bool and raw.dtype.kind != "b":
                raise RequestError(f"{where}: expected true/false, got {value!r:.80}")
            if not dtype.is_bool and (raw.dtype.kind == "b" or _has_bool(value)):
                raise RequestError(f"{where}: expected numbers of type {dtype.name}, got true/false")
            array = raw.astype(dtype.as_numpy_dtype)
    except ValueError as e:
        if isinstance(e, RequestError):
            raise
        raise RequestError(f"{where}: not a {dtype.name} tensor: {e}") from None
    want = _shape_of(info)
    if want is not None and (array.ndim != len(want) or any(w not in (-1, g) for w, g in zip(want, array.shape))):
        shown = [None if d == -1 else d for d in want]
        raise RequestError(f"{where}: expected shape {shown}, got {list(array.shape)}")
    return array


def _json_value(array: np.ndarray):
    if array.dtype == object or array.dtype.kind == "S":
        def conv(v):
            if isinstance(v, list):
                return [conv(x) for x in v]
            if isinstance(v, bytes):
                try:
                    return v.decode("utf-8")
                except UnicodeDecodeError:
                    return {"b64": base64.b64encode(v).decode("ascii")}
            return v
        return conv(array.tolist())
    if array.dtype in (np.float32, np.float16):
        # the shortest decimal that reads back as the same float32, as TF Serving writes floats
        return np.array([float(str(v)) for v in array.ravel()], np.float64).reshape(array.shape).tolist()
    return array.tolist()


# -- the Predictor --------------------------------------------------------------------------------------------


@dataclass
class Job:
    """One request, parsed: what to run (signature, feeds, outputs) and how to answer with the outputs.

    ``rows`` is the leading dimension shared by every feed when each input
    of the signature has a batch dimension (``None`` first), else ``None``:
    only such jobs are concatenated with others into one run.
    """

    signature_key: str
    feeds: dict
    output_keys: tuple
    reply: Callable[[dict], dict]
    rows: int | None = None


def _batch_rows(sig, feeds: dict) -> int | None:
    sizes = set()
    for name, array in feeds.items():
        shape = _shape_of(sig.inputs[name])
        if not shape or shape[0] != -1 or np.ndim(array) == 0:
            return None
        sizes.add(np.shape(array)[0])
    return sizes.pop() if len(sizes) == 1 else None


class Signatures:
    """TF Serving's request formats for a ``signature_def`` map: requests in, ``Job``s out; replies from outputs.

    ``prepare(method, body)`` parses a ``:predict``, ``:classify`` or
    ``:regress`` body into a ``Job`` (``RequestError`` naming what is wrong);
    whoever runs it (a ``Predictor`` here, or a replica on a Dask worker)
    hands the outputs to ``job.reply``.
    """

    def __init__(self, signature_def: dict, version: int):
        self.signatures = dict(signature_def)
        self.version = int(version)

    # -- metadata

    def metadata(self) -> dict:
        """TF Serving's ``metadata.signature_def`` JSON (the ``SignatureDefMap`` proto's JSON form)."""
        from dflow.framework.tensor import datatype_name

        def info_json(info):
            shape = info.tensor_shape
            out = {"dtype": datatype_name(info.dtype),
                   "tensor_shape": {"dim": [{"size": str(d.size), "name": d.name} for d in shape.dim],
                                    "unknown_rank": bool(shape.unknown_rank)}}
            if info.WhichOneof("encoding") == "coo_sparse":
                sp = info.coo_sparse
                out["coo_sparse"] = {"values_tensor_name": sp.values_tensor_name,
                                     "indices_tensor_name": sp.indices_tensor_name,
                                     "dense_shape_tensor_name": sp.dense_shape_tensor_name}
            else:
                out["name"] = info.name
            return out

        return {"signature_def": {key: {"inputs": {k: info_json(v) for k, v in sorted(sig.inputs.items())},
                                        "outputs": {k: info_json(v) for k, v in sorted(sig.outputs.items())},
                                        "method_name": sig.method_name}
                                  for key, sig in sorted(self.signatures.items())}}

    def signature(self, name):
        name = name or DEFAULT_SERVING_SIGNATURE_DEF_KEY
        if not isinstance(name, str):
            raise RequestError(f"'signature_name' must be a string, got {name!r}")
        if name not in self.signatures:
            raise RequestError(f"Serving signature name: \"{name}\" not found in signature def")
        return name, self.signatures[name]

    def prepare(self, method: str, body: dict) -> Job:
        """The ``Job`` of a ``predict``, ``classify`` or ``regress`` request body."""
        if method not in ("predict", "classify", "regress"):
            raise RequestError(f"unknown method '{method}': expected predict, classify or regress", 404)
        return getattr(self, "_" + method)(body)

    @staticmethod
    def _job(key: str, sig, feeds: dict, output_filter, reply) -> Job:
        for name in sig.inputs:
            if name not in feeds:
                raise RequestError(f"input '{name}' is missing from the request (the signature's inputs: "
                                   f"{sorted(sig.inputs)})")
        if output_filter:
            if not isinstance(output_filter, list) or not all(isinstance(k, str) for k in output_filter):
                raise RequestError(f"output_filter: expected a list of output names, got {output_filter!r:.80}")
            unknown = sorted(set(output_filter) - set(sig.outputs))
            if unknown:
                raise RequestError(f"output_filter: unknown outputs {unknown} (the signature's outputs: "
                                   f"{sorted(sig.outputs)})")
        outputs = tuple(sorted(k for k in sig.outputs if not output_filter or k in output_filter))
        return Job(key, feeds, outputs, reply, _batch_rows(sig, feeds))

    def _predict(self, body: dict) -> Job:
        """``{"instances": [...]}`` → ``{"predictions": [...]}``; ``{"inputs": ...}`` → ``{"outputs": ...}``."""
        key, sig = self.signature(body.get("signature_name"))
        has_rows, has_cols = "instances" in body, "inputs" in body
        if has_rows == has_cols:
            raise RequestError("JSON Value: the request must hold exactly one of 'instances' (row format) or "
                               "'inputs' (columnar format)")
        names = sorted(sig.inputs)
        output_filter = body.get("output_filter")
        if has_rows:
            feeds = self._rows(body["instances"], sig, names)
            return self._job(key, sig, feeds, output_filter, lambda out: {"predictions": self._rows_out(out)})
        value = body["inputs"]
        if isinstance(value, dict) and not (set(value) == {"b64"} and len(names) == 1):
            unknown = sorted(set(value) - set(names))
            if unknown:
                raise RequestError(f"input '{unknown[0]}' is not an input of the signature (its inputs: {names})")
            feeds = {k: to_array(v, sig.inputs[k], k) for k, v in value.items()}
        elif len(names) == 1:
            feeds = {names[0]: to_array(value, sig.inputs[names[0]], names[0])}
        else:
            raise RequestError(f"'inputs' must be an object naming the signature's inputs {names}")
        return self._job(key, sig, feeds, output_filter, _columns_out)

    @staticmethod
    def _rows(instances, sig, names) -> dict:
        if not isinstance(instances, list) or not instances:
            raise RequestError("'instances' must be a non-empty list")
        columns = {k: [] for k in names}
        for i, row in enumerate(instances):
            if isinstance(row, dict) and not (set(row) == {"b64"} and len(names) == 1):
                unknown = sorted(set(row) - set(names))
                missing = sorted(set(names) - set(row))
                if unknown or missing:
                    what = (f"does not have named input: {missing[0]}" if missing
                            else f"has input '{unknown[0]}' the signature does not have (its inputs: {names})")
                    raise RequestError(f"Failed to process element: {i} of 'instances' list. JSON object: {what}")
                for k in names:
                    columns[k].append(row[k])
            elif len(names) == 1:
                columns[names[0]].append(row)
            else:
                raise RequestError(f"Failed to process element: {i} of 'instances' list. The signature has "
                                   f"inputs {names}: each instance must be an object naming them")
        return {k: to_array(v, sig.inputs[k], k) for k, v in columns.items()}

    @staticmethod
    def _rows_out(out: dict) -> list:
        sizes = {k: (np.shape(v)[0] if np.ndim(v) else None) for k, v in out.items()}
        batch = {s for s in sizes.values()}
        if len(batch) != 1 or None in batch:
            raise RequestError(f"Output tensors must have the same batch size (0th dimension) for the row "
                               f"format; got {sizes}: use the columnar format ('inputs')")
        values = {k: _json_value(np.asarray(v)) for k, v in out.items()}
        if len(values) == 1:
            return next(iter(values.values()))
        n = batch.pop()
        return [{k: values[k][i] for k in sorted(values)} for i in range(n)]

    # -- classify and regress

    def _examples(self, body: dict, method: str):
        key, sig = self.signature(body.get("signature_name"))
        if sig.method_name != method:
            kind = "classification" if method == CLASSIFY_METHOD_NAME else "regression"
            raise RequestError(f"Expected {kind} signature method_name to be {method}. Was: {sig.method_name}")
        examples = body.get("examples")
        if not isinstance(examples, list) or not examples:
            raise RequestError("'examples' must be a non-empty list of objects")
        context = body.get("context") or {}
        if not isinstance(context, dict):
            raise RequestError("'context' must be an object")
        serialized = []
        for i, example in enumerate(examples):
            if not isinstance(example, dict):
                raise RequestError(f"Failed to process element: {i} of 'examples' list: expected an object")
            shared = sorted(set(context) & set(example))
            if shared:  # TF Serving: context features must not appear in the examples
                raise RequestError(f"Failed to process element: {i} of 'examples' list: feature '{shared[0]}' is "
                                   f"also in 'context'")
            serialized.append(_example_bytes({**context, **example}, f"example {i}"))
        (input_name,) = sig.inputs
        return key, sig, {input_name: np.array(serialized, dtype=object)}

    def _classify(self, body: dict) -> Job:
        """TF Serving's classify: ``{"examples": [...]}`` → ``{"result": [[[label, score], ...], ...]}``."""
        key, sig, feeds = self._examples(body, CLASSIFY_METHOD_NAME)
        return self._job(key, sig, feeds, None, _classify_out)

    def _regress(self, body: dict) -> Job:
        """TF Serving's regress: ``{"examples": [...]}`` → ``{"result": [value, ...]}``."""
        key, sig, feeds = self._examples(body, REGRESS_METHOD_NAME)
        return self._job(key, sig, feeds, None,
                         lambda out: {"result": np.asarray(out["outputs"]).reshape(-1).astype(float).tolist()})


def _columns_out(out: dict) -> dict:
    if len(out) == 1:
        return {"outputs": _json_value(next(iter(out.values())))}
    return {"outputs": {k: _json_value(v) for k, v in sorted(out.items())}}


def _classify_out(out: dict) -> dict:
    scores, classes = out.get("scores"), out.get("classes")
    result = []
    for i in range(np.shape(scores if scores is not None else classes)[0]):
        s = np.asarray(scores[i]).reshape(-1).tolist() if scores is not None else None
        c = _json_value(np.asarray(classes[i]).reshape(-1)) if classes is not None else None
        result.append([[c[j] if c is not None else "", float(s[j]) if s is not None else 0.0]
                       for j in range(len(s if s is not None else c))])
    return {"result": result}


def read_signatures(export_dir: str, version: int, tags=(SERVING,)) -> Signatures:
    """The ``Signatures`` of a SavedModel read from its ``saved_model.pb`` alone (no session, no variables)."""
    from dflow.saved_model.loader import read_meta_graph

    return Signatures(read_meta_graph(export_dir, list(tags)).signature_def, version)


class Predictor(Signatures):
    """One SavedModel version loaded into its own graph and ``Session``; thread-safe (one run at a time).

    >>> p = Predictor("export/linear/1", 1)                        # doctest: +SKIP
    >>> p.predict({"instances": [[1.0, 2.0, 3.0]]})                # doctest: +SKIP
    {'predictions': [...]}
    """

    def __init__(self, export_dir: str, version: int, tags=(SERVING,)):
        from dflow.framework.graph import Graph
        from dflow.saved_model import loader
        from dflow.sessions.session import Session

        self.export_dir = os.fspath(export_dir)
        self.graph = Graph()
        self.session = Session(graph=self.graph)
        try:
            meta_graph = loader.load(self.session, list(tags), self.export_dir)
        except BaseException:
            self.session.close()
            raise
        super().__init__(meta_graph.signature_def, version)
        self.meta_graph = meta_graph
        self._lock = threading.Lock()
        self.runs = 0  # Session.runs made, for tests and status

    def close(self) -> None:
        self.session.close()

    def run(self, signature_key: str, feeds: dict, output_keys) -> dict:
        """``{output: array}`` of one ``Session.run`` of signature ``signature_key`` on ``{input: array}``."""
        from dflow.framework import errors

        sig = self.signatures[signature_key]
        feed_dict = {sig.inputs[k].name: v for k, v in feeds.items()}
        fetches = {k: sig.outputs[k].name for k in output_keys}
        with self._lock:
            self.runs += 1
            try:
                return self.session.run(fetches, feed_dict)
            except (errors.InvalidArgumentError, errors.OutOfRangeError) as e:
                raise RequestError(str(e.message if hasattr(e, "message") else e)) from None

    def answer(self, method: str, body: dict) -> dict:
        """The reply to one request body, run here: ``prepare``, ``run``, ``reply``."""
        job = self.prepare(method, body)
        return job.reply(self.run(job.signature_key, job.feeds, job.output_keys))

    def predict(self, body: dict) -> dict:
        return self.answer("predict", body)

    def classify(self, body: dict) -> dict:
        return self.answer("classify", body)

    def regress(self, body: dict) -> dict:
        return self.answer("regress", body)


def _example_bytes(features: dict, where: str) -> bytes:
    """A serialized ``tf.train.Example`` of JSON features, as TF Serving builds them.

    Integers give an ``int64_list``, numbers with a fraction a ``float_list``,
    strings and ``{"b64": ...}`` a ``bytes_list``; a value or a list of them.
    """
    from dflow.framework.protos.example_pb import BytesList, Example, Feature, Features, FloatList, Int64List

    feature = {}
    for key, value in features.items():
        values = value if isinstance(value, list) else [value]
        if not values:
            feature[key] = Feature(float_list=FloatList(value=[]))
        elif all(isinstance(v, (str, dict)) for v in values):
            feature[key] = Feature(bytes_list=BytesList(value=_bytes_of(values, f"{where} feature '{key}'")))
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            feature[key] = Feature(int64_list=Int64List(value=values))
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            feature[key] = Feature(float_list=FloatList(value=[float(v) for v in values]))
        else:
            raise RequestError(f"{where} feature '{key}': expected numbers or strings (one type), got {value!r:.80}")
    return Example(features=Features(feature=feature)).SerializeToString()
