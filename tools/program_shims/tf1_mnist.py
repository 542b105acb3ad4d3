"""TF 1.x's ``tensorflow.examples.tutorials.mnist.input_data`` for runs under TensorFlow 2.15.

TF 2 removed the module (with ``tf.contrib.learn``) that TF1 tutorials load MNIST with; the program
runner puts this one in its place when it runs a program under TF 2.15's ``compat.v1``, so both
sides read the same stand-in files the same way. It follows TF 1.15's
``contrib/learn/python/learn/datasets/mnist.py`` (Apache-2.0): the first ``validation_size``
training examples are the validation set, images are float32 in [0, 1] unless ``dtype=uint8``,
``next_batch`` shuffles at each epoch and wraps. Nothing is downloaded.
"""

import collections
import gzip
import os

import numpy

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])
FILES = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
         "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")


def _read32(stream):
    return int(numpy.frombuffer(stream.read(4), dtype=numpy.dtype(numpy.uint32).newbyteorder(">"))[0])


def extract_images(f):
    with gzip.GzipFile(fileobj=f) as stream:
        if _read32(stream) != 2051:
            raise ValueError(f"Invalid magic number in MNIST image file: {f.name}")
        n, rows, cols = _read32(stream), _read32(stream), _read32(stream)
        return numpy.frombuffer(stream.read(n * rows * cols), dtype=numpy.uint8).reshape(n, rows, cols, 1)


def dense_to_one_hot(labels_dense, num_classes):
    one_hot = numpy.zeros((labels_dense.shape[0], num_classes))
    one_hot.flat[numpy.arange(labels_dense.shape[0]) * num_classes + labels_dense.ravel()] = 1
    return one_hot


def extract_labels(f, one_hot=False, num_classes=10):
    with gzip.GzipFile(fileobj=f) as stream:
        if _read32(stream) != 2049:
            raise ValueError(f"Invalid magic number in MNIST label file: {f.name}")
        labels = numpy.frombuffer(stream.read(_read32(stream)), dtype=numpy.uint8)
        return dense_to_one_hot(labels, num_classes) if one_hot else labels


class DataSet:
    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype="float32", reshape=True, seed=None):
        numpy.random.seed(seed)
        dtype = getattr(dtype, "name", dtype)
        self._num_examples = images.shape[0]
        if reshape:
            images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
        if dtype == "float32":
            images = numpy.multiply(images.astype(numpy.float32), 1.0 / 255.0)
        self._images, self._labels = images, labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    images = property(lambda self: self._images)
    labels = property(lambda self: self._labels)
    num_examples = property(lambda self: self._num_examples)
    epochs_completed = property(lambda self: self._epochs_completed)

    def _shuffle(self):
        perm = numpy.arange(self._num_examples)
        numpy.random.shuffle(perm)
        self._images, self._labels = self._images[perm], self._labels[perm]

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size > self._num_examples:
            self._epochs_completed += 1
            rest = self._num_examples - start
            images_rest, labels_rest = self._images[start:], self._labels[start:]
            if shuffle:
                self._shuffle()
            self._index_in_epoch = batch_size - rest
            end = self._index_in_epoch
            return (numpy.concatenate((images_rest, self._images[:end]), axis=0),
                    numpy.concatenate((labels_rest, self._labels[:end]), axis=0))
        self._index_in_epoch += batch_size
        return self._images[start:self._index_in_epoch], self._labels[start:self._index_in_epoch]


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype="float32", reshape=True,
                   validation_size=5000, seed=None, source_url=None):
    paths = [os.path.join(train_dir, name) for name in FILES]
    for path in paths:
        if not os.path.isfile(path):
            raise OSError(f"MNIST file not found (nothing is downloaded): {path}")
    arrays = []
    for path, extract in zip(paths, (extract_images, extract_labels, extract_images, extract_labels)):
        with open(path, "rb") as f:
            arrays.append(extract(f) if extract is extract_images else extract(f, one_hot=one_hot))
    train_images, train_labels, test_images, test_labels = arrays
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    return Datasets(
        train=DataSet(train_images[validation_size:], train_labels[validation_size:], **options),
        validation=DataSet(train_images[:validation_size], train_labels[:validation_size], **options),
        test=DataSet(test_images, test_labels, **options))


def load_mnist(train_dir="MNIST-data"):
    return read_data_sets(train_dir)
