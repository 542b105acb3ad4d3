"""``from tensorflow.examples.tutorials.mnist import input_data``: TF1's MNIST reader.

``input_data.read_data_sets("MNIST_data/", one_hot=True)`` reads the four gzip IDX files from the
folder, as TF 1.15's did once it had downloaded them; dflow downloads nothing, so the files must be
there (a missing one raises ``FileNotFoundError`` saying so). See ``tf.contrib.learn.datasets.mnist``.
"""

from dflow.contrib.learn import DataSet, Datasets, dense_to_one_hot, extract_images, extract_labels, read_data_sets

__all__ = ["DataSet", "Datasets", "dense_to_one_hot", "extract_images", "extract_labels", "read_data_sets"]
