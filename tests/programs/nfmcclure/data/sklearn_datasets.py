"""Stand-in for the two ``sklearn.datasets`` functions the cookbook uses (scikit-learn is not a
dependency of the corpus); the manifest points ``from sklearn import datasets`` here.

- ``load_iris()``: Fisher's Iris data (public domain) from ``iris.csv`` beside this module, with
  ``data`` (150 x 4: sepal length, sepal width, petal length, petal width) and ``target`` (0, 1, 2).
- ``make_circles(n_samples, shuffle, noise, random_state, factor)``: scikit-learn's algorithm (two
  concentric circles, Gaussian noise), drawing from numpy's global generator when no state is given.
"""

import os
import types

import numpy as np


def load_iris():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "iris.csv")
    table = np.loadtxt(path, delimiter=",", comments="#")
    return types.SimpleNamespace(data=table[:, :4], target=table[:, 4].astype(int),
                                 feature_names=["sepal length (cm)", "sepal width (cm)",
                                                "petal length (cm)", "petal width (cm)"],
                                 target_names=np.array(["setosa", "versicolor", "virginica"]))


def make_circles(n_samples=100, shuffle=True, noise=None, random_state=None, factor=0.8):
    rng = np.random.mtrand._rand if random_state is None else np.random.RandomState(random_state)
    n_out = n_samples // 2
    n_in = n_samples - n_out
    lin_out = np.linspace(0, 2 * np.pi, n_out, endpoint=False)
    lin_in = np.linspace(0, 2 * np.pi, n_in, endpoint=False)
    x = np.vstack([np.append(np.cos(lin_out), np.cos(lin_in) * factor),
                   np.append(np.sin(lin_out), np.sin(lin_in) * factor)]).T
    y = np.hstack([np.zeros(n_out, dtype=np.intp), np.ones(n_in, dtype=np.intp)])
    if shuffle:
        order = rng.permutation(n_samples)
        x, y = x[order], y[order]
    if noise is not None:
        x += rng.normal(scale=noise, size=x.shape)
    return x, y
