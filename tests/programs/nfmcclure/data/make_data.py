"""Makes the small stand-in data files of this folder (deterministic: fixed seeds). The cookbook
downloads its data (UCI Boston housing, the low-birth-weight study, ...) or loads it from
scikit-learn; the corpus runs without network and without scikit-learn, so the manifest points
the programs at these files instead. Run from anywhere: ``python data/make_data.py``.

- ``iris.csv``: Fisher's Iris data (public domain), copied from ``/work/shared/data/iris.csv``
  (read by ``sklearn_datasets.py``, the stand-in for ``sklearn.datasets``).
- ``housing.data``: 250 synthetic rows in the layout of UCI's Boston housing file (14
  space-separated columns, CRIM ... LSTAT, MEDV), MEDV driven by RM and LSTAT.
- ``birth_weight_id.csv``: 189 synthetic rows with the header ID,LOW,AGE,LWT,RACE,SMOKE,PTL,HT,UI,BWT
  (the low-birth-weight study's lowbwt.dat layout, which ``07_improving_linear_regression`` indexes).
"""

import os
import shutil

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def iris():
    source = "/work/shared/data/iris.csv"
    if os.path.isfile(source):
        shutil.copy(source, os.path.join(HERE, "iris.csv"))


def housing(rows=250):
    rng = np.random.RandomState(506)
    crim = rng.exponential(3.5, rows)
    zn = rng.choice([0.0, 0.0, 0.0, 12.5, 25.0, 80.0], rows)
    indus = rng.uniform(0.5, 27.7, rows)
    chas = (rng.uniform(size=rows) < 0.07).astype(float)
    nox = rng.uniform(0.385, 0.871, rows)
    rm = rng.normal(6.28, 0.7, rows)
    age = rng.uniform(3.0, 100.0, rows)
    dis = rng.uniform(1.1, 12.1, rows)
    rad = rng.choice([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 24.0], rows)
    tax = rng.uniform(187.0, 711.0, rows)
    ptratio = rng.uniform(12.6, 22.0, rows)
    b = rng.uniform(0.32, 396.9, rows)
    lstat = np.clip(30.0 - 3.5 * (rm - 6.28) + rng.normal(0, 6, rows) - 15, 1.7, 38.0)
    medv = np.clip(22.5 + 8.0 * (rm - 6.28) - 0.6 * (lstat - 12.6) - 0.3 * crim
                   + rng.normal(0, 3, rows), 5.0, 50.0)
    table = np.column_stack([crim, zn, indus, chas, nox, rm, age, dis, rad, tax, ptratio, b, lstat, medv])
    formats = ["%8.5f", "%6.1f", "%6.2f", "%3d", "%7.4f", "%6.3f", "%6.1f", "%7.4f", "%3d", "%6.1f",
               "%5.1f", "%7.2f", "%6.2f", "%5.1f"]
    with open(os.path.join(HERE, "housing.data"), "w") as f:
        for row in table:
            f.write(" " + " ".join(fmt % v for fmt, v in zip(formats, row)) + "\n")


def birth_weight(rows=189):
    rng = np.random.RandomState(189)
    age = rng.randint(14, 46, rows)
    lwt = rng.randint(80, 251, rows)
    race = rng.choice([1, 2, 3], rows, p=[0.5, 0.14, 0.36])
    smoke = (rng.uniform(size=rows) < 0.39).astype(int)
    ptl = rng.choice([0, 0, 0, 0, 0, 0, 1, 2], rows)
    ht = (rng.uniform(size=rows) < 0.06).astype(int)
    ui = (rng.uniform(size=rows) < 0.15).astype(int)
    bwt = (3300 - 280 * smoke - 450 * ht - 420 * ui - 200 * ptl + 4 * (lwt - 130)
           - 150 * (race != 1) + rng.normal(0, 550, rows)).round().astype(int)
    bwt = np.clip(bwt, 709, 4990)
    low = (bwt < 2500).astype(int)
    columns = [low, age, lwt, race, smoke, ptl, ht, ui, bwt]
    header = ["LOW", "AGE", "LWT", "RACE", "SMOKE", "PTL", "HT", "UI", "BWT"]
    with open(os.path.join(HERE, "birth_weight_id.csv"), "w") as f:
        f.write(",".join(["ID"] + header) + "\n")
        for r in range(rows):
            f.write(",".join(["%.1f" % (r + 4)] + ["%.1f" % c[r] for c in columns]) + "\n")


if __name__ == "__main__":
    iris()
    housing()
    birth_weight()
