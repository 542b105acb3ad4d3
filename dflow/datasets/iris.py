"""Fisher's Iris data in the files and split of TensorFlow's getting-started walk-through.

``iris_training.csv`` (120 rows) and ``iris_test.csv`` (30 rows) are TF's
``download.tensorflow.org/data/iris_{training,test}.csv``: a header line
``120,4,setosa,versicolor,virginica`` (rows, features, class names), then
sepal length, sepal width, petal length, petal width (cm) and the species id
(0 setosa, 1 versicolor, 2 virginica). The rows and their order are TF's;
the values are those of dflow's copy of the public-domain data set
(``shared/data/iris.csv``, Fisher's published measurements), which differ
from TF's files in two training rows where TF used the UCI copy's
transcription errors: samples 35 and 38 read ``4.9,3.1,1.5,0.2`` and
``4.9,3.6,1.4,0.1`` here (lines 77 and 87 of ``iris_training.csv``) where
TF's file repeats ``4.9,3.1,1.5,0.1``. The test file is identical to TF's.

``load_data()`` mirrors the walk-through's ``iris_data.py`` without pandas::

    (train_x, train_y), (test_x, test_y) = dflow.datasets.iris.load_data()
    train_x["SepalLength"]        # float64 array of 120 values; train_y: int64 array
"""

from __future__ import annotations

import os

import numpy as np

CSV_COLUMN_NAMES = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth", "Species"]
SPECIES = ["Setosa", "Versicolor", "Virginica"]

_HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN_PATH = os.path.join(_HERE, "iris_training.csv")
TEST_PATH = os.path.join(_HERE, "iris_test.csv")


def _read(path: str, y_name: str):
    with open(path) as f:
        header = f.readline().strip().split(",")
        data = np.loadtxt(f, delimiter=",", ndmin=2)
    if len(data) != int(header[0]):
        raise ValueError(f"{path}: the header announces {header[0]} rows, the file has {len(data)}")
    features = {name: data[:, i].copy() for i, name in enumerate(CSV_COLUMN_NAMES[:-1])}
    labels = data[:, -1].astype(np.int64)
    if y_name != CSV_COLUMN_NAMES[-1]:
        raise ValueError(f"y_name must be {CSV_COLUMN_NAMES[-1]!r}, got {y_name!r}")
    return features, labels


def load_data(y_name: str = "Species"):
    """``(train_x, train_y), (test_x, test_y)``: dicts of float64 feature arrays keyed
    ``SepalLength``, ``SepalWidth``, ``PetalLength``, ``PetalWidth``, and int64 label arrays.

    >>> from dflow.datasets import iris
    >>> (train_x, train_y), (test_x, test_y) = iris.load_data()
    >>> len(train_y), len(test_y), sorted(train_x)[0]
    (120, 30, 'PetalLength')
    """
    return _read(TRAIN_PATH, y_name), _read(TEST_PATH, y_name)


def train_input_fn(features, labels, batch_size):
    """The walk-through's training input: a shuffled (buffer 1000), repeated dataset of batches."""
    from dflow.data.dataset_ops import DatasetV1 as Dataset

    dataset = Dataset.from_tensor_slices((dict(features), labels))
    return dataset.shuffle(1000).repeat().batch(batch_size)


def eval_input_fn(features, labels, batch_size):
    """The walk-through's evaluation (``labels`` given) or prediction (``labels=None``) input."""
    from dflow.data.dataset_ops import DatasetV1 as Dataset

    features = dict(features)
    inputs = features if labels is None else (features, labels)
    if batch_size is None:
        raise ValueError("batch_size must not be None")
    return Dataset.from_tensor_slices(inputs).batch(batch_size)
