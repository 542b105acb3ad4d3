"""``tf.contrib.learn``'s pieces that ported programs still touch: ``ModeKeys`` and the MNIST reader
``datasets.mnist.read_data_sets`` (``datasets.load_dataset("mnist")``; also at TF 1's module path
``tf.contrib.learn.python.learn.datasets.mnist``).

dflow fetches nothing from the network: ``read_data_sets(train_dir)`` reads the four standard
files (``train-images-idx3-ubyte.gz``, ``train-labels-idx1-ubyte.gz``, ``t10k-images-idx3-ubyte.gz``,
``t10k-labels-idx1-ubyte.gz``: gzip-compressed IDX) from ``train_dir`` and raises a
``FileNotFoundError`` saying what to do when they are not there. As TF 1.15's, it returns
``Datasets(train, validation, test)``: the first ``validation_size`` (5000) training examples are
the validation set; images are ``float32`` in ``[0, 1]`` (or ``uint8``), flattened to
``rows * cols`` unless ``reshape=False``; labels are ints or one-hot rows.
"""

from __future__ import annotations

import collections
import csv
import gzip
import os

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes


@tf_export("contrib.learn.ModeKeys")
class ModeKeys:
    """The modes of a ``contrib.learn`` model function: ``TRAIN``, ``EVAL`` and ``INFER``."""

    TRAIN = "train"
    EVAL = "eval"
    INFER = "infer"


Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])
tf_export("contrib.learn.datasets.base.Datasets")(Datasets)
Dataset = collections.namedtuple("Dataset", ["data", "target"])
tf_export("contrib.learn.datasets.base.Dataset")(Dataset)


@tf_export("contrib.learn.datasets.base.load_csv_with_header")
def load_csv_with_header(filename, target_dtype, features_dtype, target_column=-1):
    """A CSV file whose first row is ``n_samples,n_features,...`` as a ``Dataset(data, target)``; the
    ``target_column`` of each row is its target (TF 1.15's ``base.load_csv_with_header``)."""
    with open(filename, newline="") as f:
        rows = csv.reader(f)
        header = next(rows)
        n_samples, n_features = int(header[0]), int(header[1])
        data = np.zeros((n_samples, n_features), dtype=features_dtype)
        target = np.zeros((n_samples,), dtype=target_dtype)
        for i, row in enumerate(rows):
            target[i] = np.asarray(row.pop(target_column), dtype=target_dtype)
            data[i] = np.asarray(row, dtype=features_dtype)
    return Dataset(data=data, target=target)


@tf_export("contrib.learn.datasets.base.load_csv_without_header")
def load_csv_without_header(filename, target_dtype, features_dtype, target_column=-1):
    """A headerless CSV file as a ``Dataset(data, target)``; the ``target_column`` of each row is its
    target (TF 1.15's ``base.load_csv_without_header``)."""
    data, target = [], []
    with open(filename, newline="") as f:
        for row in csv.reader(f):
            target.append(row.pop(target_column))
            data.append(np.asarray(row, dtype=features_dtype))
    return Dataset(data=np.array(data), target=np.array(target, dtype=target_dtype))

TRAIN_IMAGES = "train-images-idx3-ubyte.gz"
TRAIN_LABELS = "train-labels-idx1-ubyte.gz"
TEST_IMAGES = "t10k-images-idx3-ubyte.gz"
TEST_LABELS = "t10k-labels-idx1-ubyte.gz"
_MNIST_FILES = (TRAIN_IMAGES, TRAIN_LABELS, TEST_IMAGES, TEST_LABELS)


def _no_network(what: str, directory=None) -> str:
    where = (f"put {', '.join(_MNIST_FILES)} (gzip-compressed IDX, as published) in {directory!r}" if directory
             else "load the data yourself")
    return (f"{what}: dflow fetches nothing from the network (TF 1.15 downloaded it). To use it, {where}; or "
            f"load it as numpy arrays (numpy.load, tf.keras.datasets.*.load_data() with the file already cached "
            f"under ~/.keras/datasets) and feed the arrays or use tf.data.Dataset.from_tensor_slices.")


def _read32(bytestream) -> int:
    return int(np.frombuffer(bytestream.read(4), dtype=np.dtype(np.uint32).newbyteorder(">"))[0])


@tf_export("contrib.learn.datasets.mnist.extract_images", "contrib.learn.python.learn.datasets.mnist.extract_images")
def extract_images(f):
    """The images of a gzip IDX file object (magic 2051) as a ``uint8`` array ``[index, y, x, 1]``."""
    with gzip.GzipFile(fileobj=f) as bytestream:
        magic = _read32(bytestream)
        if magic != 2051:
            raise ValueError(f"Invalid magic number {magic} in MNIST image file: {getattr(f, 'name', f)}")
        num_images, rows, cols = _read32(bytestream), _read32(bytestream), _read32(bytestream)
        buf = bytestream.read(rows * cols * num_images)
        data = np.frombuffer(buf, dtype=np.uint8)
        return data.reshape(num_images, rows, cols, 1)


@tf_export("contrib.learn.datasets.mnist.dense_to_one_hot",
           "contrib.learn.python.learn.datasets.mnist.dense_to_one_hot")
def dense_to_one_hot(labels_dense, num_classes):
    """Class indices ``[n]`` as one-hot rows ``[n, num_classes]``."""
    num_labels = labels_dense.shape[0]
    index_offset = np.arange(num_labels) * num_classes
    labels_one_hot = np.zeros((num_labels, num_classes))
    labels_one_hot.flat[index_offset + labels_dense.ravel()] = 1
    return labels_one_hot


@tf_export("contrib.learn.datasets.mnist.extract_labels", "contrib.learn.python.learn.datasets.mnist.extract_labels")
def extract_labels(f, one_hot=False, num_classes=10):
    """The labels of a gzip IDX file object (magic 2049): ``uint8 [index]``, or one-hot rows."""
    with gzip.GzipFile(fileobj=f) as bytestream:
        magic = _read32(bytestream)
        if magic != 2049:
            raise ValueError(f"Invalid magic number {magic} in MNIST label file: {getattr(f, 'name', f)}")
        num_items = _read32(bytestream)
        labels = np.frombuffer(bytestream.read(num_items), dtype=np.uint8)
        return dense_to_one_hot(labels, num_classes) if one_hot else labels


@tf_export("contrib.learn.datasets.mnist.DataSet", "contrib.learn.python.learn.datasets.mnist.DataSet")
class DataSet:
    """Images and labels held in memory, served in (shuffled) mini-batches by ``next_batch``."""

    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype=dtypes.float32, reshape=True,
                 seed=None):
        self._rng = np.random.RandomState(seed)
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype not in (dtypes.uint8, dtypes.float32):
            raise TypeError(f"Invalid image dtype {dtype!r}, expected uint8 or float32")
        if fake_data:
            self._num_examples = 10000
            self.one_hot = one_hot
        else:
            if images.shape[0] != labels.shape[0]:
                raise ValueError(f"images.shape: {images.shape} labels.shape: {labels.shape}")
            self._num_examples = images.shape[0]
            if reshape:
                if images.shape[3] != 1:
                    raise ValueError(f"reshape needs images of depth 1, got shape {images.shape}")
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == dtypes.float32:
                images = np.multiply(images.astype(np.float32), 1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    images = property(lambda self: self._images)
    labels = property(lambda self: self._labels)
    num_examples = property(lambda self: self._num_examples)
    epochs_completed = property(lambda self: self._epochs_completed)

    def _shuffle(self) -> None:
        perm = np.arange(self._num_examples)
        self._rng.shuffle(perm)
        self._images = self._images[perm]
        self._labels = self._labels[perm]

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """The next ``batch_size`` examples ``(images, labels)``; an epoch's end wraps into the next
        (reshuffled) epoch, as TF 1.15's."""
        if fake_data:
            fake_image = [1] * 784
            fake_label = [1] + [0] * 9 if self.one_hot else 0
            return [fake_image for _ in range(batch_size)], [fake_label for _ in range(batch_size)]
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size > self._num_examples:
            self._epochs_completed += 1
            rest_num_examples = self._num_examples - start
            images_rest_part = self._images[start:self._num_examples]
            labels_rest_part = self._labels[start:self._num_examples]
            if shuffle:
                self._shuffle()
            start = 0
            self._index_in_epoch = batch_size - rest_num_examples
            end = self._index_in_epoch
            return (np.concatenate((images_rest_part, self._images[start:end]), axis=0),
                    np.concatenate((labels_rest_part, self._labels[start:end]), axis=0))
        self._index_in_epoch += batch_size
        end = self._index_in_epoch
        return self._images[start:end], self._labels[start:end]


@tf_export("contrib.learn.datasets.mnist.read_data_sets", "contrib.learn.python.learn.datasets.mnist.read_data_sets")
def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=dtypes.float32, reshape=True,
                   validation_size=5000, seed=None, source_url=None):
    """MNIST from the four gzip IDX files in ``train_dir``: ``Datasets(train, validation, test)``.

    Nothing is downloaded (``source_url`` is ignored): a missing file raises ``FileNotFoundError``.
    """
    if fake_data:
        def fake():
            return DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)

        return Datasets(train=fake(), validation=fake(), test=fake())
    paths = [os.path.join(str(train_dir), name) for name in _MNIST_FILES]
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        raise FileNotFoundError(_no_network(f"MNIST files not found ({', '.join(missing)})", train_dir))
    with open(paths[0], "rb") as f:
        train_images = extract_images(f)
    with open(paths[1], "rb") as f:
        train_labels = extract_labels(f, one_hot=one_hot)
    with open(paths[2], "rb") as f:
        test_images = extract_images(f)
    with open(paths[3], "rb") as f:
        test_labels = extract_labels(f, one_hot=one_hot)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(f"Validation size should be between 0 and {len(train_images)}. Received: {validation_size}.")
    validation_images = train_images[:validation_size]
    validation_labels = train_labels[:validation_size]
    train_images = train_images[validation_size:]
    train_labels = train_labels[validation_size:]
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    return Datasets(train=DataSet(train_images, train_labels, **options),
                    validation=DataSet(validation_images, validation_labels, **options),
                    test=DataSet(test_images, test_labels, **options))


@tf_export("contrib.learn.datasets.mnist.load_mnist", "contrib.learn.python.learn.datasets.mnist.load_mnist")
def load_mnist(train_dir="MNIST-data"):
    """``read_data_sets(train_dir)``."""
    return read_data_sets(train_dir)


_KNOWN_DATASETS = ("iris", "boston", "dbpedia", "mnist", "sst")


@tf_export("contrib.learn.datasets.load_dataset")
def load_dataset(name, size="small", test_with_fake_data=False):
    """``"mnist"``: ``read_data_sets("MNIST-data")`` (the files must be in ``./MNIST-data``); the
    other TF 1.15 data sets (``iris``, ``boston``, ``dbpedia``, ``sst``) are not provided."""
    if name not in _KNOWN_DATASETS:
        raise ValueError(f"Name of dataset is not valid: {name}")
    if name == "mnist":
        return load_mnist()
    raise NotImplementedError(_no_network(f"tf.contrib.learn.datasets.load_dataset({name!r}) is not provided"))
