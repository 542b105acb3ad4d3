"""TF1's SavedModel (``tf.saved_model``): constants, signatures, builder, loader, Estimator export.

Figures marked "TF" were produced by ``tf.compat.v1.saved_model`` (tensorflow-cpu 2.15.1, graph
mode); the tests never import TensorFlow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dflow as tf

sm = tf.saved_model
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# -- constants and signatures --------------------------------------------------------------------------------


def test_constants_match_tf():
    # TF: tf.compat.v1.saved_model.{tag_constants,signature_constants,constants}
    assert (sm.tag_constants.SERVING, sm.tag_constants.TRAINING, sm.tag_constants.GPU,
            sm.tag_constants.TPU) == ("serve", "train", "gpu", "tpu")
    sc = sm.signature_constants
    assert sc.DEFAULT_SERVING_SIGNATURE_DEF_KEY == "serving_default"
    assert (sc.PREDICT_METHOD_NAME, sc.CLASSIFY_METHOD_NAME, sc.REGRESS_METHOD_NAME) == (
        "tensorflow/serving/predict", "tensorflow/serving/classify", "tensorflow/serving/regress")
    assert (sc.PREDICT_INPUTS, sc.PREDICT_OUTPUTS, sc.CLASSIFY_INPUTS, sc.CLASSIFY_OUTPUT_CLASSES,
            sc.CLASSIFY_OUTPUT_SCORES, sc.REGRESS_INPUTS, sc.REGRESS_OUTPUTS) == (
        "inputs", "outputs", "inputs", "classes", "scores", "inputs", "outputs")
    c = sm.constants
    assert (c.SAVED_MODEL_FILENAME_PB, c.SAVED_MODEL_FILENAME_PBTXT, c.VARIABLES_DIRECTORY, c.VARIABLES_FILENAME,
            c.ASSETS_DIRECTORY, c.ASSETS_KEY, c.MAIN_OP_KEY, c.LEGACY_INIT_OP_KEY, c.SAVED_MODEL_SCHEMA_VERSION) == (
        "saved_model.pb", "saved_model.pbtxt", "variables", "variables", "assets", "saved_model_assets",
        "saved_model_main_op", "legacy_init_op", 1)
    assert sm.SERVING == "serve" and sm.DEFAULT_SERVING_SIGNATURE_DEF_KEY == "serving_default"
    assert sm.Builder is sm.builder.SavedModelBuilder and sm.load is sm.loader.load


def test_build_tensor_info_matches_tf_bytes():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        info = sm.utils.build_tensor_info(x)
        # TF: the same TensorInfo's SerializeToString() and str()
        assert info.SerializeToString() == (b"\n\x03x:0\x10\x01\x1a\x11\x12\x0b\x08\xff\xff\xff\xff\xff\xff\xff\xff"
                                            b"\xff\x01\x12\x02\x08\x03")
        assert str(info) == ('name: "x:0"\ndtype: DT_FLOAT\ntensor_shape {\n  dim {\n    size: -1\n  }\n'
                             '  dim {\n    size: 3\n  }\n}\n')
        assert isinstance(info, tf.TensorInfo)
        assert tf.TensorInfo.FromString(info.SerializeToString()) == info
        assert sm.utils.get_tensor_from_tensor_info(info) is x
        u = sm.utils.build_tensor_info(tf.placeholder(tf.int64, None, name="u"))
        assert str(u) == 'name: "u:0"\ndtype: DT_INT64\ntensor_shape {\n  unknown_rank: true\n}\n'  # TF
        sp = tf.sparse_placeholder(tf.float32, name="sp")
        info = sm.utils.build_tensor_info(sp)
        assert info.WhichOneof("encoding") == "coo_sparse"
        assert (info.coo_sparse.values_tensor_name, info.coo_sparse.indices_tensor_name,
                info.coo_sparse.dense_shape_tensor_name) == ("sp/values:0", "sp/indices:0", "sp/shape:0")  # TF
        back = sm.utils.get_tensor_from_tensor_info(info)
        assert back.values is sp.values and back.indices is sp.indices
        with pytest.raises(TypeError, match="build_tensor_info"):
            sm.utils.build_tensor_info(3)


def test_signature_defs_match_tf():
    sdu = sm.signature_def_utils
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.identity(x * 2, name="y")
        ex = tf.placeholder(tf.string, [None], name="ex")
        cls = tf.placeholder(tf.string, [None, 3], name="cls")
        sc = tf.placeholder(tf.float32, [None, 3], name="sc")
        r = tf.placeholder(tf.float32, [None, 1], name="r")
        s = sdu.predict_signature_def({"x": x}, {"y": y})
        dims = ('    tensor_shape {\n      dim {\n        size: -1\n      }\n      dim {\n        size: 3\n      }\n'
                '    }\n')
        assert str(s) == ('inputs {\n  key: "x"\n  value {\n    name: "x:0"\n    dtype: DT_FLOAT\n' + dims + '  }\n}\n'
                          'outputs {\n  key: "y"\n  value {\n    name: "y:0"\n    dtype: DT_FLOAT\n' + dims + '  }\n}\n'
                          'method_name: "tensorflow/serving/predict"\n')  # TF
        c = sdu.classification_signature_def(ex, cls, sc)
        assert sorted(c.outputs) == ["classes", "scores"] and list(c.inputs) == ["inputs"]
        assert c.method_name == "tensorflow/serving/classify" and c.outputs["scores"].name == "sc:0"
        g = sdu.regression_signature_def(ex, r)
        assert (list(g.inputs), list(g.outputs), g.method_name) == (["inputs"], ["outputs"],
                                                                    "tensorflow/serving/regress")
        assert sdu.is_valid_signature(s) and sdu.is_valid_signature(c) and sdu.is_valid_signature(g)  # TF: True
        assert not sdu.is_valid_signature(sdu.build_signature_def())
        assert not sdu.is_valid_signature(sdu.build_signature_def({"a": sm.utils.build_tensor_info(x)},
                                                                  {"b": sm.utils.build_tensor_info(y)}, "m"))
        b = sdu.build_signature_def({"a": sm.utils.build_tensor_info(x)}, {"b": sm.utils.build_tensor_info(y)}, "m")
        assert (b.inputs["a"].name, b.outputs["b"].name, b.method_name) == ("x:0", "y:0", "m")
        assert str(sdu.build_signature_def()) == ""  # TF
        # TF's errors, word for word
        cases = [(lambda: sdu.predict_signature_def(None, {"y": y}), "Prediction `inputs` cannot be None or empty."),
                 (lambda: sdu.predict_signature_def({}, {"y": y}), "Prediction `inputs` cannot be None or empty."),
                 (lambda: sdu.predict_signature_def({"x": x}, None), "Prediction `outputs` cannot be None or empty."),
                 (lambda: sdu.classification_signature_def(x, cls, sc),
                  "Classification input tensors must be of type string. Found tensors of type 1"),
                 (lambda: sdu.classification_signature_def(ex, None, None),
                  "Classification `classes` and `scores` cannot both be None."),
                 (lambda: sdu.classification_signature_def(ex, sc, None),
                  "Classification classes must be of type string Tensor. Found tensors of type 1.`"),
                 (lambda: sdu.regression_signature_def(ex, None), "Regression `predictions` cannot be None."),
                 (lambda: sdu.regression_signature_def(ex, cls),
                  "Regression output tensors must be of type float. Found tensors with type 7.")]
        for fn, message in cases:
            with pytest.raises(ValueError) as e:
                fn()
            assert str(e.value) == message


# -- builder and loader --------------------------------------------------------------------------------------

_X = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]], np.float32)


def _train_model(sess):
    """A small trained model: y = relu(x w + b), with a few SGD steps taken."""
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2), name="w")
    b = tf.Variable(np.array([0.1, -0.2], np.float32), name="b")
    y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
    loss = tf.reduce_sum(tf.square(y - 1.0))
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train, {x: _X})
    return x, y


_LOAD_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import dflow as tf
    export_dir, tags, key, x = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, tags, export_dir)
        sig = meta.signature_def[key]
        feeds = {sess.graph.get_tensor_by_name(sig.inputs[k].name): np.asarray(v, np.float32) for k, v in x.items()}
        out = sess.run({k: v.name for k, v in sig.outputs.items()}, feeds)
        print(json.dumps({"out": {k: np.asarray(v).tolist() for k, v in out.items()},
                          "tags": list(meta.meta_info_def.tags), "method": sig.method_name},
                         default=lambda b: b.decode()))
""")


def _load_in_subprocess(export_dir, tags, key, inputs) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", _LOAD_SCRIPT, str(export_dir), json.dumps(tags), key,
                           json.dumps({k: np.asarray(v).tolist() for k, v in inputs.items()})],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_simple_save_round_trip_in_another_process(tmp_path):
    export_dir = tmp_path / "model"
    with tf.Graph().as_default(), tf.Session() as sess:
        x, y = _train_model(sess)
        expected = sess.run(y, {x: _X})
        tf.saved_model.simple_save(sess, str(export_dir), inputs={"x": x}, outputs={"y": y})
    assert sorted(os.listdir(export_dir)) == ["saved_model.pb", "variables"]
    assert sorted(os.listdir(export_dir / "variables")) == ["variables.data-00000-of-00001", "variables.index"]
    assert [p for p in os.listdir(tmp_path) if p != "model"] == []  # the staging directory is gone
    assert tf.saved_model.maybe_saved_model_directory(str(export_dir))
    assert tf.saved_model.contains_saved_model(str(export_dir))
    assert not tf.saved_model.loader.maybe_saved_model_directory(str(tmp_path))
    got = _load_in_subprocess(export_dir, ["serve"], "serving_default", {"x": _X})
    assert got["tags"] == ["serve"] and got["method"] == "tensorflow/serving/predict"
    np.testing.assert_allclose(got["out"]["y"], expected, rtol=1e-6)


def test_builder_two_meta_graphs_text_and_init_ops(tmp_path):
    export_dir = str(tmp_path / "m")
    sdu = sm.signature_def_utils
    with tf.Graph().as_default(), tf.Session() as sess:
        x, y = _train_model(sess)
        counter = tf.Variable(0.0, name="counter", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        main = tf.group(tf.assign(counter, 7.0), name="my_main_op")
        expected = sess.run(y, {x: _X})
        builder = sm.builder.SavedModelBuilder(export_dir)
        with pytest.raises(AssertionError, match="has not been saved yet"):
            builder.add_meta_graph(["x"])
        builder.add_meta_graph_and_variables(sess, [sm.tag_constants.SERVING],
                                             signature_def_map={"predict": sdu.predict_signature_def({"x": x},
                                                                                                    {"y": y})},
                                             main_op=main, strip_default_attrs=True)
        with pytest.raises(AssertionError, match="already been saved"):
            builder.add_meta_graph_and_variables(sess, ["train"])
        builder.add_meta_graph([sm.tag_constants.TRAINING, sm.tag_constants.GPU],
                               signature_def_map={"double": sdu.predict_signature_def({"in": x}, {"out": y * 2.0})})
        path = builder.save(as_text=True)
    assert path == os.path.join(export_dir, "saved_model.pbtxt").encode()
    assert sorted(os.listdir(export_dir)) == ["saved_model.pbtxt", "variables"]
    with tf.Graph().as_default() as g, tf.Session() as sess:
        meta = sm.loader.load(sess, ["gpu", "train"], export_dir, import_scope="imported")
        sig = meta.signature_def["double"]
        assert set(meta.meta_info_def.tags) == {"train", "gpu"} and list(meta.signature_def) == ["double"]
        out = sess.run("imported/" + sig.outputs["out"].name, {"imported/" + sig.inputs["in"].name: _X})
        np.testing.assert_allclose(out, expected * 2.0, rtol=1e-6)
        assert sess.run(g.get_tensor_by_name("imported/counter:0")) == 7.0  # the main op ran
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = sm.loader.load(sess, ["serve"], export_dir)
        assert list(meta.signature_def) == ["predict"]
        with tf.Graph().as_default():  # the meta graph load returns is one tf.train.import_meta_graph takes
            saver = tf.train.import_meta_graph(meta)
            assert saver is not None and sorted(v.op.name for v in tf.global_variables()) == ["b", "w"]
        with pytest.raises(RuntimeError) as e:
            sm.loader.load(sess, ["foo"], export_dir)
        # TF's message (its tag-sets printed as Python sets)
        assert str(e.value).startswith("MetaGraphDef associated with tags 'foo' could not be found in SavedModel, "
                                       "with available tags '[{'serve'}, {")


def test_bad_export_and_missing_files(tmp_path):
    with tf.Graph().as_default(), tf.Session() as sess:
        x, y = _train_model(sess)
        (tmp_path / "full").mkdir()
        (tmp_path / "full" / "f").write_text("x")
        with pytest.raises(AssertionError) as e:
            tf.saved_model.simple_save(sess, str(tmp_path / "full"), {"x": x}, {"y": y})
        assert str(e.value) == (f"Export directory {tmp_path / 'full'} already exists, and isn't empty. Please "
                                f"choose a different export directory, or delete all the contents of the specified "
                                f"directory.")  # TF
        (tmp_path / "empty").mkdir()
        tf.saved_model.simple_save(sess, str(tmp_path / "empty"), {"x": x}, {"y": y})  # an empty dir is fine
        with pytest.raises(KeyError, match="reserved for initialization"):
            b = sm.builder.SavedModelBuilder(str(tmp_path / "k"))
            b.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={
                "__saved_model_init_op": sm.predict_signature_def({"x": x}, {"y": y})})
        with pytest.raises(TypeError, match="must be a SignatureDef"):
            b.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={"a": {"x": x}})
        b = sm.builder.SavedModelBuilder(str(tmp_path / "dropped"))
        b.add_meta_graph_and_variables(sess, ["serve"])
        assert any(p.startswith(".dropped.tmp-") for p in os.listdir(tmp_path))
        del b  # never saved: its staging directory goes, and no export_dir appears
        assert not [p for p in os.listdir(tmp_path) if "dropped" in p]
    d = tmp_path / "empty"
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(OSError) as e:
            sm.loader.load(sess, ["serve"], str(tmp_path / "nothing"))
        assert str(e.value) == (f"SavedModel file does not exist at: {tmp_path / 'nothing'}/"
                                "{saved_model.pbtxt|saved_model.pb}")  # TF
    os.remove(d / "variables" / "variables.data-00000-of-00001")
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.NotFoundError, match="variables.data-00000-of-00001"):
            sm.loader.load(sess, ["serve"], str(d))
    (d / "saved_model.pb").write_bytes(b"\x12\x03abc")
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(OSError, match="Cannot parse file .*saved_model.pb"):
            sm.loader.load(sess, ["serve"], str(d))


# -- Estimator.export_saved_model ----------------------------------------------------------------------------


def _structure(sig) -> tuple:
    def infos(m):
        return {k: (v.name, v.dtype, [d.size for d in v.tensor_shape.dim]) for k, v in sorted(m.items())}
    return sig.method_name, infos(sig.inputs), infos(sig.outputs)


# TF: tf.compat.v1.estimator.DNNClassifier(hidden_units=[10], n_classes=3) on the Iris columns, exported
# with build_parsing_serving_input_receiver_fn(make_parse_example_spec(columns)), then loaded.
_TF_CLASSIFY = ("tensorflow/serving/classify", {"inputs": ("input_example_tensor:0", 7, [-1])},
                {"classes": ("dnn/head/Tile:0", 7, [-1, 3]),
                 "scores": ("dnn/head/predictions/probabilities:0", 1, [-1, 3])})
_TF_PREDICT_OUTPUTS = {"all_class_ids": ("dnn/head/predictions/Tile:0", 3, [-1, 3]),
                       "all_classes": ("dnn/head/predictions/Tile_1:0", 7, [-1, 3]),
                       "class_ids": ("dnn/head/predictions/ExpandDims_2:0", 9, [-1, 1]),
                       "classes": ("dnn/head/predictions/str_classes:0", 7, [-1, 1]),
                       "logits": ("dnn/logits/BiasAdd:0", 1, [-1, 3]),
                       "probabilities": ("dnn/head/predictions/probabilities:0", 1, [-1, 3])}
_IRIS_KEYS = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]


def _example(row: dict) -> bytes:
    feature = {k: tf.train.Feature(float_list=tf.train.FloatList(value=[v])) for k, v in row.items()}
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def test_estimator_export_iris_dnn_classifier(tmp_path):
    from dflow.datasets import iris

    (train_x, train_y), _ = iris.load_data()
    columns = [tf.feature_column.numeric_column(k) for k in _IRIS_KEYS]
    est = tf.estimator.DNNClassifier(feature_columns=columns, hidden_units=[10], n_classes=3,
                                     model_dir=str(tmp_path / "model"))
    with pytest.raises(ValueError, match="Couldn't find trained model at"):
        est.export_saved_model(str(tmp_path / "export"), lambda: None)
    est.train(lambda: iris.train_input_fn(train_x, train_y, 32), steps=30)
    spec = tf.feature_column.make_parse_example_spec(columns)
    export_dir = est.export_saved_model(str(tmp_path / "export"),
                                        tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
    assert isinstance(export_dir, bytes) and os.path.basename(export_dir).isdigit()  # a timestamp, as TF
    rows = {"SepalLength": [5.1, 5.9, 6.9], "SepalWidth": [3.3, 3.0, 3.1], "PetalLength": [1.7, 4.2, 5.4],
            "PetalWidth": [0.5, 1.5, 2.1]}
    expected = list(est.predict(lambda: iris.eval_input_fn(rows, None, 3)))
    examples = [_example({k: rows[k][i] for k in _IRIS_KEYS}) for i in range(3)]
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], export_dir.decode())
        assert sorted(meta.signature_def) == ["classification", "predict", "serving_default"]  # TF
        assert _structure(meta.signature_def["serving_default"]) == _TF_CLASSIFY
        assert _structure(meta.signature_def["classification"]) == _TF_CLASSIFY
        predict = meta.signature_def["predict"]
        assert _structure(predict) == ("tensorflow/serving/predict",
                                       {"examples": ("input_example_tensor:0", 7, [-1])}, _TF_PREDICT_OUTPUTS)
        classify = meta.signature_def["serving_default"]
        scores, classes = sess.run([classify.outputs["scores"].name, classify.outputs["classes"].name],
                                   {classify.inputs["inputs"].name: examples})
        out = sess.run({k: v.name for k, v in predict.outputs.items()}, {predict.inputs["examples"].name: examples})
    np.testing.assert_allclose(scores, [p["probabilities"] for p in expected], rtol=1e-5)
    assert classes.tolist() == [[b"0", b"1", b"2"]] * 3
    np.testing.assert_array_equal(out["class_ids"], [p["class_ids"] for p in expected])
    np.testing.assert_allclose(out["logits"], [p["logits"] for p in expected], rtol=1e-5)

    # raw placeholders: the classification signatures need one string input, so only "predict" is exported (TF)
    with tf.Graph().as_default():
        raw = {k: tf.placeholder(tf.float32, [None], name=k) for k in _IRIS_KEYS}
    (tmp_path / "notes.txt").write_text("hello")
    raw_dir = est.export_savedmodel(str(tmp_path / "export"),
                                    tf.estimator.export.build_raw_serving_input_receiver_fn(raw),
                                    assets_extra={"docs/notes.txt": str(tmp_path / "notes.txt")})
    assert (tmp_path / "export" / raw_dir.decode() / "assets.extra" / "docs" / "notes.txt").read_text() == "hello"
    assert raw_dir != export_dir and sorted(os.listdir(tmp_path / "export")) == sorted(
        [os.path.basename(export_dir).decode(), os.path.basename(raw_dir).decode()])
    got = _load_in_subprocess(raw_dir.decode(), ["serve"], "predict", {k: np.float32(rows[k]) for k in _IRIS_KEYS})
    assert got["method"] == "tensorflow/serving/predict"
    np.testing.assert_allclose(got["out"]["probabilities"], [p["probabilities"] for p in expected], rtol=1e-5)


def test_export_outputs_and_receivers():
    exp = tf.estimator.export
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        s = tf.placeholder(tf.string, [None], name="s")
        with pytest.raises(ValueError, match="scores must be a float32 Tensor"):
            exp.ClassificationOutput(scores=s)
        with pytest.raises(ValueError, match="At least one of `scores`"):
            exp.ClassificationOutput()
        with pytest.raises(ValueError, match="single tensor input of type tf.string"):
            exp.ClassificationOutput(scores=x).as_signature_def({"x": x})
        assert exp.RegressionOutput(x).as_signature_def({"e": s}).method_name == "tensorflow/serving/regress"
        p = exp.PredictOutput(x)
        assert list(p.outputs) == ["output"] and p.as_signature_def({"x": x}).outputs["output"].name == "x:0"
        r = exp.ServingInputReceiver(x, s)
        assert list(r.features) == ["feature"] and list(r.receiver_tensors) == ["input"]  # TF's default keys
        t = exp.TensorServingInputReceiver(x, {"x": x})
        assert t.features is x
        from dflow.estimator.export import get_export_outputs

        outs = get_export_outputs({"a": p}, None)
        assert outs["serving_default"] is p
        with pytest.raises(ValueError, match="none of them is specified as the default"):
            get_export_outputs({"a": p, "b": p}, None)


def test_assets_method_name_updater_and_foreign_saved_models(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    export_dir = str(tmp_path / "m")
    with tf.Graph().as_default(), tf.Session() as sess:
        x, y = _train_model(sess)
        asset = tf.constant(str(vocab), name="vocab_path")
        seen = tf.Variable(b"", name="seen", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        init = tf.group(tf.assign(seen, asset), name="init_seen")
        builder = sm.builder.SavedModelBuilder(export_dir)
        builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={
            "serving_default": sm.predict_signature_def({"x": x}, {"y": y})}, assets_collection=[asset],
            legacy_init_op=init)
        builder.save()
    assert os.listdir(os.path.join(export_dir, "assets")) == ["vocab.txt"]
    with tf.Graph().as_default() as g, tf.Session() as sess:
        meta = sm.loader.load(sess, ["serve"], export_dir)
        assert [(a.filename, a.tensor_info.name) for a in meta.asset_file_def] == [("vocab.txt", "vocab_path:0")]
        # the init op ran with the asset's path inside the SavedModel fed, as TF's loader does
        assert sess.run(g.get_tensor_by_name("seen:0")) == os.path.join(export_dir, "assets", "vocab.txt").encode()
    updater = sm.signature_def_utils.MethodNameUpdater(export_dir)
    with pytest.raises(ValueError, match="does not have a signature_def with key: 'nope'"):
        updater.replace_method_name("nope", "m")
    with pytest.raises(ValueError, match="could not be found in SavedModel"):
        updater.replace_method_name("serving_default", "m", tags="train")
    updater.replace_method_name("serving_default", "tensorflow/serving/regress", tags=["serve"])
    updater.save()
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = sm.loader.load(sess, ["serve"], export_dir)
        assert meta.signature_def["serving_default"].method_name == "tensorflow/serving/regress"
    # a SavedModel TensorFlow wrote (no dflow graph inside) is refused, naming the file
    foreign = tmp_path / "tf"
    foreign.mkdir()
    from dflow.saved_model.proto import MetaGraphDef, SavedModel

    m = SavedModel(saved_model_schema_version=1, meta_graphs=[MetaGraphDef()])
    m.meta_graphs[0].meta_info_def.tags.append("serve")
    (foreign / "saved_model.pb").write_bytes(m.SerializeToString())
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(OSError, match="Cannot parse file .*saved_model.pb: a meta graph holds no dflow graph"):
            sm.loader.load(sess, ["serve"], str(foreign))
    with pytest.raises(NotImplementedError, match="object-based SavedModel"):
        sm.save(None, str(tmp_path / "v2"))


# TF: DNNRegressor / binary DNNClassifier (hidden_units=[4], columns "a" and "b") exported with the parsing
# receiver fn: (model, signature key) -> (method, inputs, outputs).
_TF_REG_AND_BINARY = {('bin', 'classification'): ('tensorflow/serving/classify',
                                                  {'inputs': ('input_example_tensor:0', 7, [-1])},
                                                  {'classes': ('dnn/head/Tile:0', 7, [-1, 2]),
                                                   'scores': ('dnn/head/predictions/probabilities:0', 1, [-1, 2])}),
                      ('bin', 'predict'): ('tensorflow/serving/predict',
                                           {'examples': ('input_example_tensor:0', 7, [-1])},
                                           {'all_class_ids': ('dnn/head/predictions/Tile:0', 3, [-1, 2]),
                                            'all_classes': ('dnn/head/predictions/Tile_1:0', 7, [-1, 2]),
                                            'class_ids': ('dnn/head/predictions/ExpandDims:0', 9, [-1, 1]),
                                            'classes': ('dnn/head/predictions/str_classes:0', 7, [-1, 1]),
                                            'logistic': ('dnn/head/predictions/logistic:0', 1, [-1, 1]),
                                            'logits': ('dnn/logits/BiasAdd:0', 1, [-1, 1]),
                                            'probabilities': ('dnn/head/predictions/probabilities:0', 1, [-1, 2])}),
                      ('bin', 'regression'): ('tensorflow/serving/regress',
                                              {'inputs': ('input_example_tensor:0', 7, [-1])},
                                              {'outputs': ('dnn/head/predictions/logistic:0', 1, [-1, 1])}),
                      ('bin', 'serving_default'): ('tensorflow/serving/classify',
                                                   {'inputs': ('input_example_tensor:0', 7, [-1])},
                                                   {'classes': ('dnn/head/Tile:0', 7, [-1, 2]),
                                                    'scores': ('dnn/head/predictions/probabilities:0', 1, [-1, 2])}),
                      ('reg', 'predict'): ('tensorflow/serving/predict',
                                           {'examples': ('input_example_tensor:0', 7, [-1])},
                                           {'predictions': ('dnn/logits/BiasAdd:0', 1, [-1, 1])}),
                      ('reg', 'regression'): ('tensorflow/serving/regress',
                                              {'inputs': ('input_example_tensor:0', 7, [-1])},
                                              {'outputs': ('dnn/logits/BiasAdd:0', 1, [-1, 1])}),
                      ('reg', 'serving_default'): ('tensorflow/serving/regress',
                                                   {'inputs': ('input_example_tensor:0', 7, [-1])},
                                                   {'outputs': ('dnn/logits/BiasAdd:0', 1, [-1, 1])})}


def test_estimator_export_regressor_and_binary_signatures_match_tf(tmp_path):
    columns = [tf.feature_column.numeric_column(k) for k in ("a", "b")]
    features = {k: np.random.RandomState(i).rand(8).astype(np.float32) for i, k in enumerate(("a", "b"))}
    got = {}
    for name, est, labels in [
            ("reg", tf.estimator.DNNRegressor(feature_columns=columns, hidden_units=[4], model_dir=str(tmp_path / "r")),
             np.arange(8, dtype=np.float32)),
            ("bin", tf.estimator.DNNClassifier(feature_columns=columns, hidden_units=[4],
                                               model_dir=str(tmp_path / "b")), np.arange(8) % 2)]:
        est.train(lambda labels=labels: tf.data.Dataset.from_tensor_slices((features, labels)).batch(8), steps=1)
        receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(
            tf.feature_column.make_parse_example_spec(columns))
        path = est.export_saved_model(str(tmp_path / ("export_" + name)), receiver)
        with tf.Graph().as_default(), tf.Session() as sess:
            meta = tf.saved_model.loader.load(sess, ["serve"], path)
            got.update({(name, key): _structure(sig) for key, sig in meta.signature_def.items()})
    assert got == _TF_REG_AND_BINARY


def test_saved_models_on_another_file_system(tmp_path):
    # fsspec's in-memory file system stands for s3:// or gs://: built locally, uploaded by save(),
    # downloaded by load() (the assets too, which the init op reads from the copy).
    import fsspec

    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    url = "memory://dflow-tests/saved/m"
    with tf.Graph().as_default(), tf.Session() as sess:
        x, y = _train_model(sess)
        asset = tf.constant(str(vocab), name="vocab_path")
        seen = tf.Variable(b"", name="seen", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        builder = sm.builder.SavedModelBuilder(url)
        builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={
            "serving_default": sm.predict_signature_def({"x": x}, {"y": y})}, assets_collection=[asset],
            legacy_init_op=tf.group(tf.assign(seen, asset)))
        assert builder.save() == (url + "/saved_model.pb").encode()
        want = sess.run(y, {x: _X})
    try:
        fs = fsspec.filesystem("memory")
        assert sorted(p.split("/saved/m/")[1] for p in fs.find("/dflow-tests/saved/m")) == [
            "assets/vocab.txt", "saved_model.pb", "variables/variables.data-00000-of-00001",
            "variables/variables.index"]
        assert sm.loader.maybe_saved_model_directory(url)
        assert not sm.loader.maybe_saved_model_directory("memory://dflow-tests/saved/none")
        with tf.Graph().as_default() as g, tf.Session() as sess:
            sm.loader.load(sess, ["serve"], url)
            np.testing.assert_array_equal(sess.run("y:0", {"x:0": _X}), want)
            copy = sess.run(g.get_tensor_by_name("seen:0")).decode()
            assert open(copy).read() == "a\nb\n" and not copy.startswith("memory:")
        with pytest.raises(AssertionError, match="already exists, and isn't empty"):
            sm.builder.SavedModelBuilder(url)
        with pytest.raises(OSError, match="SavedModel file does not exist"):
            sm.loader.load(tf.Session(graph=tf.Graph()), ["serve"], "memory://dflow-tests/saved/none")
    finally:
        fsspec.filesystem("memory").rm("/dflow-tests", recursive=True)


def test_estimator_exports_to_another_file_system(tmp_path):
    import fsspec

    from dflow.datasets import iris

    (train_x, train_y), _ = iris.load_data()
    columns = [tf.feature_column.numeric_column(k) for k in _IRIS_KEYS]
    est = tf.estimator.DNNClassifier(feature_columns=columns, hidden_units=[4], n_classes=3,
                                     model_dir=str(tmp_path / "model"))
    est.train(lambda: iris.train_input_fn(train_x, train_y, 32), steps=5)
    spec = tf.feature_column.make_parse_example_spec(columns)
    try:
        export_dir = est.export_saved_model("memory://dflow-tests/export",
                                            tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
        base, stamp = export_dir.decode().rsplit("/", 1)
        assert base == "memory://dflow-tests/export" and stamp.isdigit()
        assert tf.saved_model.loader.maybe_saved_model_directory(export_dir.decode())
        with tf.Graph().as_default(), tf.Session() as sess:
            meta = tf.saved_model.loader.load(sess, ["serve"], export_dir.decode())
            assert sorted(meta.signature_def) == ["classification", "predict", "serving_default"]
    finally:
        fsspec.filesystem("memory").rm("/dflow-tests", recursive=True)
