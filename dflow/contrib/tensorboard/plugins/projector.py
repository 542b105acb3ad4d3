"""``tf.contrib.tensorboard.plugins.projector``: the configuration of TensorBoard's embedding projector.

``ProjectorConfig``, ``EmbeddingInfo`` and ``SpriteMetadata`` are TensorBoard's
``projector_config.proto`` messages (the same fields, bytes and text format);
``visualize_embeddings(summary_writer, config)`` writes the config in text
format to ``projector_config.pbtxt`` in the writer's log directory, as TF 1.15
does, where TensorBoard's projector reads it (the tensors themselves come from
the checkpoint the program saves there)::

    config = projector.ProjectorConfig()
    embedding = config.embeddings.add()
    embedding.tensor_name = embedding_var.name
    embedding.metadata_path = 'vocab.tsv'
    projector.visualize_embeddings(tf.summary.FileWriter(logdir), config)
"""

from __future__ import annotations

import os

from dflow._api import tf_export
from dflow.framework.files import gfile
from dflow.framework.protos.protobuf import Field, Message

PROJECTOR_FILENAME = "projector_config.pbtxt"


@tf_export("contrib.tensorboard.plugins.projector.SpriteMetadata")
class SpriteMetadata(Message):
    """The sprite image of an embedding: its path and the ``[width, height]`` of one image in it."""

    FIELDS = (Field(1, "image_path", "string"), Field(2, "single_image_dim", "uint32", "packed"))


@tf_export("contrib.tensorboard.plugins.projector.EmbeddingInfo")
class EmbeddingInfo(Message):
    """One embedding to show: the tensor's name (or ``tensor_path``, a TSV) and its metadata files."""

    FIELDS = (Field(1, "tensor_name", "string"), Field(2, "metadata_path", "string"),
              Field(3, "bookmarks_path", "string"), Field(4, "tensor_shape", "uint32", "packed"),
              Field(5, "sprite", SpriteMetadata), Field(6, "tensor_path", "string"))


@tf_export("contrib.tensorboard.plugins.projector.ProjectorConfig")
class ProjectorConfig(Message):
    """The projector's configuration: the checkpoint to read and the ``embeddings`` to show."""

    FIELDS = (Field(1, "model_checkpoint_path", "string"), Field(2, "embeddings", EmbeddingInfo, "repeated"),
              Field(3, "model_checkpoint_dir", "string"))


@tf_export("contrib.tensorboard.plugins.projector.visualize_embeddings")
def visualize_embeddings(summary_writer, config) -> None:
    """Writes ``config`` (a ``ProjectorConfig``) as text to ``projector_config.pbtxt`` in the log directory
    of ``summary_writer`` (a ``tf.summary.FileWriter``)."""
    logdir = summary_writer.get_logdir()
    if logdir is None:
        raise ValueError("Summary writer must have a logdir")
    with gfile.GFile(os.path.join(logdir, PROJECTOR_FILENAME), "w") as f:
        f.write(str(config))
