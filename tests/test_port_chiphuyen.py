"""What chiphuyen/stanford-tensorflow-tutorials' programs (tests/programs/chiphuyen) needed from dflow.

* ``tf.compat.as_str`` / ``as_bytes`` / ``as_text`` / ``as_str_any`` / ``path_to_str`` and the type
  tuples (``word2vec_utils.read_data``: ``tf.compat.as_str(f.read(name)).split()``);
* ``tf.contrib.tensorboard.plugins.projector`` (``ProjectorConfig``, ``visualize_embeddings``), imported
  by the word2vec programs as ``from tensorflow.contrib.tensorboard.plugins import projector``.

Expected figures are TF 2.15.1's (``tf.compat`` and TensorBoard's ``projector_config_pb2``).
"""

import os
import pathlib

import numpy as np
import pytest

import dflow as tf


def test_compat_strings():
    assert tf.compat.as_str(b"anarchism originated as") == "anarchism originated as"
    assert tf.compat.as_text("caf\u00e9".encode("utf-8")) == "caf\u00e9"
    assert tf.compat.as_bytes("caf\u00e9") == b"caf\xc3\xa9"
    assert tf.compat.as_bytes(bytearray(b"ab")) == b"ab"
    assert tf.compat.as_bytes("\u00e9", encoding="latin-1") == b"\xe9"
    assert tf.compat.as_str_any(b"x") == "x" and tf.compat.as_str_any(12) == "12"
    assert tf.compat.path_to_str(pathlib.PurePosixPath("/a/b")) == "/a/b"
    assert tf.compat.path_to_str(7) == 7
    assert tf.compat.v1.compat.as_str is tf.compat.as_text
    with pytest.raises(TypeError, match="Expected binary or unicode string, got 3"):
        tf.compat.as_str(3)
    with pytest.raises(TypeError, match="Expected binary or unicode string"):
        tf.compat.as_bytes(memoryview(b"a"))  # TF's as_bytes takes bytes, bytearray and str only


def test_compat_type_tuples():
    assert isinstance(np.int64(3), tf.compat.integral_types)
    assert not isinstance(2.5, tf.compat.integral_types)
    assert isinstance(np.float32(1), tf.compat.real_types)
    assert isinstance(1j, tf.compat.complex_types)
    assert isinstance(b"x", tf.compat.bytes_or_text_types) and isinstance("x", tf.compat.bytes_or_text_types)


def _config(projector):
    config = projector.ProjectorConfig()
    embedding = config.embeddings.add()
    embedding.tensor_name = "embedding:0"
    embedding.metadata_path = "visualization/vocab_3000.tsv"
    return config


def test_projector_config_is_tensorboards_message():
    from dflow.contrib.tensorboard.plugins import projector

    assert tf.contrib.tensorboard.plugins.projector is projector
    config = _config(projector)
    # TF 2.15.1 / TensorBoard: projector_config_pb2.ProjectorConfig with the same fields
    assert config.SerializeToString() == (b"\x12+\n\x0bembedding:0\x12\x1cvisualization/vocab_3000.tsv")
    assert str(config) == ('embeddings {\n  tensor_name: "embedding:0"\n'
                           '  metadata_path: "visualization/vocab_3000.tsv"\n}\n')
    config.embeddings[0].sprite.image_path = "sprite.png"
    config.embeddings[0].sprite.single_image_dim.extend([28, 28])
    config.model_checkpoint_path = "model.ckpt-1"
    again = projector.ProjectorConfig.FromString(config.SerializeToString())
    assert again == config and list(again.embeddings[0].sprite.single_image_dim) == [28, 28]


def test_visualize_embeddings_writes_the_config(tmp_path):
    from dflow.contrib.tensorboard.plugins import projector

    with tf.Graph().as_default():
        writer = tf.summary.FileWriter(str(tmp_path))
        projector.visualize_embeddings(writer, _config(projector))
        writer.close()
    text = (tmp_path / "projector_config.pbtxt").read_text()
    assert text == 'embeddings {\n  tensor_name: "embedding:0"\n  metadata_path: "visualization/vocab_3000.tsv"\n}\n'
    assert os.path.exists(tmp_path)


def test_word2vec_read_data_style(tmp_path):
    """word2vec_utils.read_data: tokens of the first member of a zip file."""
    import zipfile

    path = tmp_path / "text8.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("text8", " anarchism originated as a term")
    with zipfile.ZipFile(path) as f:
        words = tf.compat.as_str(f.read(f.namelist()[0])).split()
    assert words == ["anarchism", "originated", "as", "a", "term"]
