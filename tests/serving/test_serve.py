"""``dflow serve``: TF Serving's REST API for SavedModels (status, metadata, predict, classify, bad input)."""

import base64
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import dflow as tf
from dflow.serving import ModelServer
from tests.serving.models import X as _X
from tests.serving.models import call as _call
from tests.serving.models import linear as _linear
from tests.serving.models import linear_y


@pytest.fixture(scope="module")
def linear(tmp_path_factory):
    root = tmp_path_factory.mktemp("linear")
    _linear(root / "1")
    expected = _linear(root / "3")  # the highest version is served
    with ModelServer(str(root), "lin", port=0, max_request_bytes=4096) as server:
        yield server, expected


def test_status_and_metadata(linear):
    server, _ = linear
    base = f"{server.url}/v1/models/lin"
    ok = {"version": "3", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}
    assert _call(base) == (200, {"model_version_status": [ok]})
    assert _call(base + "/versions/3") == (200, {"model_version_status": [ok]})
    status, meta = _call(base + "/metadata")
    assert status == 200 and meta["model_spec"] == {"name": "lin", "signature_name": "", "version": "3"}
    sig = meta["metadata"]["signature_def"]["signature_def"]["serving_default"]
    assert sig["method_name"] == "tensorflow/serving/predict"
    assert sig["inputs"] == {"x": {"dtype": "DT_FLOAT", "name": "x:0", "tensor_shape": {
        "dim": [{"size": "-1", "name": ""}, {"size": "3", "name": ""}], "unknown_rank": False}}}
    assert sorted(sig["outputs"]) == ["y", "z"] and sig["outputs"]["z"]["name"] == "z:0"


def test_predict_row_and_columnar(linear):
    server, (y, z) = linear
    base = f"{server.url}/v1/models/lin"
    status, out = _call(base + ":predict", {"instances": _X.tolist()})
    assert status == 200 and len(out["predictions"]) == 2
    np.testing.assert_allclose([p["y"] for p in out["predictions"]], y, rtol=1e-6)
    np.testing.assert_allclose([p["z"] for p in out["predictions"]], z, rtol=1e-6)
    status, rows = _call(base + "/versions/3:predict", {"signature_name": "serving_default",
                                                        "instances": [{"x": r} for r in _X.tolist()]})
    assert (status, rows) == (200, out)
    status, cols = _call(base + ":predict", {"inputs": {"x": _X.tolist()}})
    assert status == 200
    np.testing.assert_allclose(cols["outputs"]["y"], y, rtol=1e-6)
    np.testing.assert_allclose(cols["outputs"]["z"], z, rtol=1e-6)
    status, one = _call(base + ":predict", {"inputs": _X.tolist(), "output_filter": ["z"]})
    assert status == 200
    np.testing.assert_allclose(one["outputs"], z, rtol=1e-6)  # one output: the value itself, as TF Serving
    # float32 outputs are written as their shortest decimal (TF Serving's): reading back gives the float32 exactly
    status, raw = _call(base + ":predict", {"inputs": _X.tolist(), "output_filter": ["y"]})
    assert np.array_equal(np.float32(raw["outputs"]), y)
    assert [[repr(v) for v in r] for r in raw["outputs"]] == [[str(v) for v in r] for r in y]


@pytest.mark.parametrize("body, status, words", [
    (b"{not json", 400, "JSON Parse error"),
    (b"[1, 2]", 400, "must be a JSON object"),
    ({"signature_name": "nope", "instances": [[1, 2, 3]]}, 400, 'Serving signature name: "nope" not found'),
    ({"instances": [{"q": [1, 2, 3]}]}, 400, "does not have named input: x"),
    ({"inputs": {"x": _X.tolist(), "q": 1}}, 400, "input 'q' is not an input"),
    ({"instances": [[1, 2]]}, 400, "input 'x': expected shape [None, 3], got [1, 2]"),
    ({"instances": [[1, 2, 3], [1, 2]]}, 400, "input 'x'"),
    ({"instances": [["a", "b", "c"]]}, 400, "input 'x': expected numbers of type float32"),
    ({"instances": [[1, True, 3]]}, 400, "input 'x': expected numbers of type float32, got true/false"),
    ({"instances": []}, 400, "'instances' must be a non-empty list"),
    ({"instances": [[1, 2, 3]], "inputs": {"x": [[1, 2, 3]]}}, 400, "exactly one of 'instances'"),
    ({"examples": [{"x": 1.0}]}, 400, "Expected classification signature method_name"),
])
def test_bad_requests(linear, body, status, words):
    server, _ = linear
    url = f"{server.url}/v1/models/lin:" + ("classify" if isinstance(body, dict) and "examples" in body
                                             else "predict")
    got_status, got = _call(url, raw=body if isinstance(body, bytes) else json.dumps(body).encode())
    assert got_status == status and words in got["error"], got


def test_not_found_and_too_large(linear):
    server, _ = linear
    assert _call(f"{server.url}/v1/models/other") == (404, {"error": "Servable not found for request: Latest(other)"})
    assert _call(f"{server.url}/v1/models/lin/versions/1:predict", {"instances": [[1, 2, 3]]}) == (
        404, {"error": "Servable not found for request: Specific(lin, 1)"})  # only the highest version is loaded
    assert _call(f"{server.url}/v2/whatever")[0] == 404
    status, body = _call(f"{server.url}/v1/models/lin:predict", raw=b"[" + b"1," * 3000 + b"1]")
    assert status == 413 and "over the limit of 4096 bytes" in body["error"]
    assert _call(f"{server.url}/v1/models/lin:predict", {"instances": _X.tolist()})[0] == 200  # still serving


_IRIS_KEYS = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]
_ROWS = {"SepalLength": [5.1, 5.9, 6.9], "SepalWidth": [3.3, 3.0, 3.1], "PetalLength": [1.7, 4.2, 5.4],
         "PetalWidth": [0.5, 1.5, 2.1]}


def _example_bytes(row: dict) -> bytes:
    feature = {k: tf.train.Feature(float_list=tf.train.FloatList(value=[v])) for k, v in row.items()}
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def test_iris_dnn_classifier_classify_and_predict(tmp_path):
    from dflow.datasets import iris

    (train_x, train_y), _ = iris.load_data()
    columns = [tf.feature_column.numeric_column(k) for k in _IRIS_KEYS]
    est = tf.estimator.DNNClassifier(feature_columns=columns, hidden_units=[10], n_classes=3,
                                     model_dir=str(tmp_path / "model"))
    est.train(lambda: iris.train_input_fn(train_x, train_y, 32), steps=20)
    expected = list(est.predict(lambda: iris.eval_input_fn(_ROWS, None, 3)))
    spec = tf.feature_column.make_parse_example_spec(columns)
    parsing = est.export_saved_model(str(tmp_path / "parsing"),
                                     tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
    with tf.Graph().as_default():
        raw = {k: tf.placeholder(tf.float32, [None], name=k) for k in _IRIS_KEYS}
    est.export_saved_model(str(tmp_path / "raw"), tf.estimator.export.build_raw_serving_input_receiver_fn(raw))
    probabilities = [p["probabilities"].tolist() for p in expected]

    examples = [{k: _ROWS[k][i] for k in _IRIS_KEYS} for i in range(3)]
    with ModelServer(os.path.dirname(parsing.decode()), "iris", port=0) as server:
        status, out = _call(f"{server.url}/v1/models/iris:classify", {"examples": examples})
        assert status == 200 and len(out["result"]) == 3
        assert [[c for c, _ in r] for r in out["result"]] == [["0", "1", "2"]] * 3
        np.testing.assert_allclose([[s for _, s in r] for r in out["result"]], probabilities, rtol=1e-5)
        # context features are shared by every example
        status, ctx = _call(f"{server.url}/v1/models/iris:classify", {
            "context": {"SepalLength": 5.1}, "examples": [{k: _ROWS[k][0] for k in _IRIS_KEYS[1:]}]})
        assert status == 200 and [[c for c, _ in r] for r in ctx["result"]] == [["0", "1", "2"]]
        np.testing.assert_allclose([[s for _, s in r] for r in ctx["result"]], probabilities[:1], rtol=1e-5)
        # the "predict" signature takes the serialized tf.Examples themselves: bytes travel as {"b64": ...}
        status, pred = _call(f"{server.url}/v1/models/iris:predict", {"signature_name": "predict", "instances": [
            {"b64": base64.b64encode(_example_bytes(e)).decode()} for e in examples]})
        assert status == 200 and [p["class_ids"] for p in pred["predictions"]] == [
            p["class_ids"].tolist() for p in expected]
        np.testing.assert_allclose([p["probabilities"] for p in pred["predictions"]], probabilities, rtol=1e-5)
        status, err = _call(f"{server.url}/v1/models/iris:regress", {"examples": examples})
        assert status == 400 and "Expected regression signature" in err["error"]

    with ModelServer(str(tmp_path / "raw"), "iris", port=0) as server:
        status, out = _call(f"{server.url}/v1/models/iris:predict", {"signature_name": "predict",
                                                                     "instances": examples})
        assert status == 200
        np.testing.assert_allclose([p["probabilities"] for p in out["predictions"]], probabilities, rtol=1e-5)
        assert [p["classes"] for p in out["predictions"]] == [[str(p["class_ids"][0])] for p in expected]
        status, err = _call(f"{server.url}/v1/models/iris:predict", {"signature_name": "predict",
                                                                     "inputs": {"SepalLength": [1.0]}})
        assert status == 400 and "input 'PetalLength' is missing" in err["error"]


def test_cli_serve_and_missing_files(tmp_path):
    _linear(tmp_path / "m")
    os.remove(next(p for p in (tmp_path / "m" / "variables").iterdir() if p.name.endswith(".index")))
    proc = subprocess.run([sys.executable, "-m", "dflow", "serve", str(tmp_path / "m"), "--model-name", "m",
                           "--port", "0"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "dflow serve: cannot serve" in proc.stderr and "variables.index" in proc.stderr, proc.stderr
    proc = subprocess.run([sys.executable, "-m", "dflow", "serve", str(tmp_path / "empty"), "--model-name", "m"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "export directory does not exist" in proc.stderr


def _regressor(export_dir):
    """A regress signature over serialized tf.Examples: outputs = 2 x + 1 (feature "x", one float)."""
    with tf.Graph().as_default(), tf.Session() as sess:
        examples = tf.placeholder(tf.string, [None], name="tf_example")
        x = tf.parse_example(examples, {"x": tf.FixedLenFeature([1], tf.float32)})["x"]
        y = tf.identity(2.0 * x + 1.0, name="y")
        builder = tf.saved_model.builder.SavedModelBuilder(str(export_dir))
        builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={
            "serving_default": tf.saved_model.regression_signature_def(examples, y)})
        builder.save()


def test_regress_and_chunked_body_over_the_limit(tmp_path):
    import http.client

    _regressor(tmp_path / "r")
    with ModelServer(str(tmp_path / "r"), "r", port=0, max_request_bytes=2048) as server:
        url = f"{server.url}/v1/models/r:regress"
        assert _call(url, {"examples": [{"x": 1.5}, {"x": -2.0}]}) == (200, {"result": [4.0, -3.0]})
        status, err = _call(url, {"examples": [{"x": 1}]})  # an integer is an int64_list, as in TF Serving
        assert status == 400 and "x" in err["error"]
        status, err = _call(url, {"context": {"x": 1.0}, "examples": [{"x": 2.0}]})
        assert status == 400 and "feature 'x' is also in 'context'" in err["error"]
        status, err = _call(f"{server.url}/v1/models/r:classify", {"examples": [{"x": 1.5}]})
        assert status == 400 and "Expected classification signature" in err["error"]
        conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
        conn.putrequest("POST", "/v1/models/r:regress")
        conn.putheader("Transfer-Encoding", "chunked")
        conn.endheaders()
        for _ in range(5):  # no Content-Length: refused once the chunks pass the limit
            conn.send(b"200\r\n" + b" " * 512 + b"\r\n")
        conn.send(b"0\r\n\r\n")
        response = conn.getresponse()
        assert response.status == 413 and "over the limit of 2048 bytes" in json.loads(response.read())["error"]
        conn.close()


def test_cli_serves_until_interrupted(tmp_path):
    import signal

    y, _ = _linear(tmp_path / "m")
    proc = subprocess.Popen([sys.executable, "-m", "dflow", "serve", str(tmp_path / "m"), "--model-name", "m",
                             "--port", "0", "--max-batch-size", "8", "--request-timeout-ms", "5000"],
                            stdout=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline() for _ in range(2)]
        assert "model 'm' version 1 loaded" in lines[0], lines
        base = lines[1].split()[1]
        status, out = _call(base + ":predict", {"inputs": _X.tolist(), "output_filter": ["y"]})
        assert status == 200
        np.testing.assert_allclose(out["outputs"], y, rtol=1e-6)
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0


def test_concurrent_requests_all_answered(linear):
    from concurrent.futures import ThreadPoolExecutor

    server, _ = linear
    rows = np.random.RandomState(0).uniform(-2, 2, size=(24, 3)).astype(np.float32)
    direct = linear_y(rows)

    def ask(i):
        return _call(f"{server.url}/v1/models/lin:predict", {"inputs": rows[i:i + 1].tolist(),
                                                             "output_filter": ["y"]})

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(ask, range(len(rows))))
    assert all(status == 200 for status, _ in answers)
    np.testing.assert_allclose([out["outputs"][0] for _, out in answers], direct, rtol=1e-5, atol=1e-6)
