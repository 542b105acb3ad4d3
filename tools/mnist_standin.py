"""MNIST-shaped stand-in data made from real handwriting, for the program corpus (no network).

The source is the UCI "Optical Recognition of Handwritten Digits" test set as scikit-learn ships it
(``tests/programs/data/digits.csv.gz``: 1 797 digits written by 13 people, 8x8 pixels of 0..16, the
label in the last column; CC BY 4.0, E. Alpaydin and C. Kaynak, 1998). Each 8x8 digit is scaled
up bilinearly to a 20x20 box and centred in a 28x28 frame, as MNIST's digits are, then drawn a few
times with a small random rotation (up to 12 degrees), scale (0.9-1.1) and shift (up to 2 pixels),
which gives MNIST's four gzip-compressed IDX files:

- ``train-images-idx3-ubyte.gz`` / ``train-labels-idx1-ubyte.gz``: 10 000 digits from the first
  1 500 written digits (TF1's ``read_data_sets`` keeps the first 5 000 as its validation set);
- ``t10k-images-idx3-ubyte.gz`` / ``t10k-labels-idx1-ubyte.gz``: 1 000 digits from the other 297,
  so no test digit is a redrawing of a training one.

The result depends only on the seed: the same bytes on every machine. ``python tools/mnist_standin.py
DIR`` writes the files into DIR; ``ensure(DIR)`` does it once and reuses them.
"""

from __future__ import annotations

import gzip
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DIGITS = os.path.join(os.path.dirname(HERE), "tests", "programs", "data", "digits.csv.gz")
FILES = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
         "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")
N_TRAIN, N_TEST, SPLIT, SEED = 10_000, 1_000, 1_500, 20261207


def load_digits(path: str = DIGITS):
    """The 1 797 8x8 digits as ``float64`` images in [0, 1] and their ``uint8`` labels."""
    table = np.loadtxt(path, delimiter=",", dtype=np.float64)
    return table[:, :64].reshape(-1, 8, 8) / 16.0, table[:, 64].astype(np.uint8)


def _bilinear(images: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """Sample ``images`` [n, h, w] at real coordinates ``ys``, ``xs`` [n, H, W]; zero outside."""
    n, h, w = images.shape
    padded = np.zeros((n, h + 2, w + 2))
    padded[:, 1:-1, 1:-1] = images
    ys, xs = np.clip(ys + 1, 0, h + 0.999), np.clip(xs + 1, 0, w + 0.999)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, h + 1), np.minimum(x0 + 1, w + 1)
    fy, fx = ys - y0, xs - x0
    idx = np.arange(n)[:, None, None]
    return ((1 - fy) * (1 - fx) * padded[idx, y0, x0] + (1 - fy) * fx * padded[idx, y0, x1]
            + fy * (1 - fx) * padded[idx, y1, x0] + fy * fx * padded[idx, y1, x1])


def draw(images: np.ndarray, count: int, rng: np.random.Generator):
    """``count`` 28x28 ``uint8`` drawings of randomly chosen ``images`` and the indices chosen."""
    pick = rng.integers(0, len(images), size=count)
    angle = np.deg2rad(rng.uniform(-12, 12, size=count))
    scale = rng.uniform(0.9, 1.1, size=count)
    shift = rng.uniform(-2, 2, size=(count, 2))
    grid = np.arange(28, dtype=np.float64) - 13.5
    gy, gx = np.meshgrid(grid, grid, indexing="ij")
    gy, gx = gy[None] - shift[:, 0, None, None], gx[None] - shift[:, 1, None, None]
    cos, sin = np.cos(angle)[:, None, None], np.sin(angle)[:, None, None]
    # Output pixel -> 20x20 box coordinates (rotate and scale back) -> 8x8 source pixel centres.
    by, bx = (cos * gy + sin * gx) / scale[:, None, None], (-sin * gy + cos * gx) / scale[:, None, None]
    sy, sx = (by + 10) * 8 / 20 - 0.5, (bx + 10) * 8 / 20 - 0.5
    out = _bilinear(images[pick], sy, sx)
    return np.clip(out * 255.0 + 0.5, 0, 255).astype(np.uint8), pick


def _write_idx(path: str, array: np.ndarray) -> None:
    magic = 2051 if array.ndim == 3 else 2049
    with gzip.GzipFile(path, "wb", mtime=0) as f:
        f.write(struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in array.shape))
        f.write(array.astype(np.uint8).tobytes())


def write(directory: str) -> None:
    """Write the four files into ``directory`` (made if missing)."""
    images, labels = load_digits()
    rng = np.random.default_rng(SEED)
    train, train_pick = draw(images[:SPLIT], N_TRAIN, rng)
    test, test_pick = draw(images[SPLIT:], N_TEST, rng)
    os.makedirs(directory, exist_ok=True)
    for name, array in zip(FILES, (train, labels[:SPLIT][train_pick], test, labels[SPLIT:][test_pick])):
        tmp = os.path.join(directory, name + ".tmp")
        _write_idx(tmp, array)
        os.replace(tmp, os.path.join(directory, name))


def ensure(directory: str) -> str:
    """Write the files into ``directory`` unless all four are there; returns ``directory``."""
    if not all(os.path.isfile(os.path.join(directory, name)) for name in FILES):
        write(directory)
    return directory


if __name__ == "__main__":
    write(sys.argv[1] if len(sys.argv) > 1 else "MNIST_data")
