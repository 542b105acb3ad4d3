"""Stand-in data for the aymericdamien programs (no network): ``python make_data.py`` rewrites it.

``images/``: the image folder ``build_an_image_dataset.py`` reads in its 'folder' mode, one
sub-folder per class (sorted names give the class ids): ``horizontal/`` holds 24 32x32 RGB JPEGs of
horizontal stripes, ``vertical/`` 24 of vertical stripes, each with a random stripe period, phase,
colour and noise (seeded, so the same pixels every time).
"""

import os

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SIZE, PER_CLASS, SEED = 32, 24, 20261207


def stripes(rng, vertical):
    period = rng.uniform(4.0, 9.0)
    phase = rng.uniform(0, period)
    axis = np.arange(SIZE, dtype=np.float64)
    wave = 0.5 + 0.5 * np.sin(2 * np.pi * (axis + phase) / period)
    grid = np.tile(wave[None, :], (SIZE, 1)) if vertical else np.tile(wave[:, None], (1, SIZE))
    colour = rng.uniform(0.4, 1.0, size=3)
    image = grid[:, :, None] * colour[None, None, :] + rng.normal(0, 0.05, size=(SIZE, SIZE, 3))
    return (np.clip(image, 0, 1) * 255).astype(np.uint8)


def main():
    rng = np.random.default_rng(SEED)
    for name, vertical in (("horizontal", False), ("vertical", True)):
        folder = os.path.join(HERE, "images", name)
        os.makedirs(folder, exist_ok=True)
        for i in range(PER_CLASS):
            Image.fromarray(stripes(rng, vertical)).save(os.path.join(folder, f"{i:02d}.jpg"), quality=90)


if __name__ == "__main__":
    main()
