"""Make the small stand-in data of the tensorflow/models programs (deterministic, seeded; no network).

    python tests/programs/tf_models/data/make_data.py

- ``iris_training.csv`` / ``iris_test.csv``: Fisher's iris (``/work/shared/data/iris.csv``, public
  domain) split 120/30 as TF's download is, in its format (a header ``N,4,setosa,versicolor,virginica``).
- ``imports-85.data``: 205 made-up cars in the 26 columns of UCI's automobile data set (``?`` for a
  missing value, in a few rows): the price grows with the curb weight, the make and the body style,
  plus noise, so the regressions have something to learn.
- ``cifar10_data/cifar-10-batches-bin/``: CIFAR-10's binary format (a label byte, then 32x32x3 bytes,
  channel-major), ``data_batch_1..5.bin`` with 10 images each and ``test_batch.bin`` with 20: each
  class is a colour (10 distinct hues) on a gradient, with a lighter square at a random place and noise.
- ``ptb_data/ptb.{train,valid,test}.txt``: PTB's format (one sentence a line, words between spaces)
  from a small made-up grammar of 60 words: 4 000 / 400 / 150 words, so the language model can learn
  which word class follows which.
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
IRIS = os.environ.get("IRIS_CSV", "/work/shared/data/iris.csv")


def iris():
    table = np.loadtxt(IRIS, delimiter=",", comments="#")
    order = np.random.RandomState(0).permutation(len(table))
    for name, rows in (("iris_training.csv", order[:120]), ("iris_test.csv", order[120:])):
        with open(os.path.join(HERE, name), "w") as f:
            f.write("%d,4,setosa,versicolor,virginica\n" % len(rows))
            for r in table[rows]:
                f.write("%s,%s,%s,%s,%d\n" % (r[0], r[1], r[2], r[3], int(r[4])))


MAKES = {"alfa-romero": 3000, "audi": 6000, "bmw": 9000, "chevrolet": -1500, "dodge": -1000, "honda": 0,
         "isuzu": -500, "jaguar": 12000, "mazda": 0, "mercedes-benz": 11000, "mitsubishi": -500,
         "nissan": 0, "peugot": 1500, "plymouth": -1000, "porsche": 14000, "saab": 3000, "subaru": -500,
         "toyota": 0, "volkswagen": 500, "volvo": 3500}
BODIES = {"hardtop": 2000, "wagon": 500, "sedan": 0, "hatchback": -1000, "convertible": 4000}


def automobile():
    rng = np.random.RandomState(85)
    makes, bodies = sorted(MAKES), sorted(BODIES)
    with open(os.path.join(HERE, "imports-85.data"), "w") as f:
        for i in range(205):
            make, body = makes[rng.randint(len(makes))], bodies[rng.randint(len(bodies))]
            weight = int(rng.uniform(1500, 4000))
            highway = int(round(58 - weight / 110.0 + rng.normal(0, 2)))
            city = highway - int(rng.randint(3, 8))
            size = int(60 + weight / 30.0 + rng.normal(0, 10))
            power = int(size * 0.8 + rng.normal(0, 8))
            price = int(max(5000, 4000 + 9.0 * (weight - 1500) + MAKES[make] + BODIES[body] + rng.normal(0, 1500)))
            losses = "?" if rng.rand() < 0.1 else str(int(rng.uniform(65, 256)))
            row = [str(rng.randint(-2, 4)), losses, make, "gas" if rng.rand() < 0.9 else "diesel",
                   "std" if rng.rand() < 0.8 else "turbo", "four" if rng.rand() < 0.55 else "two", body,
                   "fwd" if rng.rand() < 0.6 else "rwd", "front", "%.1f" % rng.uniform(86, 120),
                   "%.1f" % rng.uniform(141, 208), "%.1f" % rng.uniform(60, 72), "%.1f" % rng.uniform(47, 60),
                   str(weight), "ohc", "four" if size < 150 else "six", str(size), "mpfi",
                   "%.2f" % rng.uniform(2.5, 4.0), "%.2f" % rng.uniform(2.1, 4.2), "%.1f" % rng.uniform(7, 23),
                   str(power), str(int(rng.uniform(4150, 6600))), str(city), str(highway),
                   "?" if rng.rand() < 0.02 else str(price)]
            f.write(",".join(row) + "\n")


HUES = np.array([[230, 40, 40], [40, 200, 40], [40, 60, 230], [230, 220, 40], [220, 40, 220],
                 [40, 220, 220], [240, 140, 30], [120, 40, 200], [130, 130, 130], [120, 80, 40]], np.float64)


def cifar10():
    rng = np.random.RandomState(10)
    folder = os.path.join(HERE, "cifar10_data", "cifar-10-batches-bin")
    os.makedirs(folder, exist_ok=True)
    ramp = np.linspace(0.6, 1.2, 32)[:, None, None]
    for name, count in [("data_batch_%d.bin" % i, 10) for i in range(1, 6)] + [("test_batch.bin", 20)]:
        records = []
        for j in range(count):
            label = (j + rng.randint(10)) % 10 if name != "test_batch.bin" else j % 10
            image = HUES[label][None, None, :] * ramp * np.ones((32, 32, 1))
            y, x = rng.randint(0, 20, size=2)
            image[y:y + 12, x:x + 12] = np.minimum(255, image[y:y + 12, x:x + 12] * 1.3 + 20)
            image = np.clip(image + rng.normal(0, 12, image.shape), 0, 255).astype(np.uint8)
            records.append(bytes([label]) + image.transpose(2, 0, 1).tobytes())
        with open(os.path.join(folder, name), "wb") as f:
            f.write(b"".join(records))


WORDS = {"det": ["the", "a", "every", "no", "some"],
         "adj": ["big", "small", "red", "old", "new", "quiet", "happy", "cold"],
         "noun": ["cat", "dog", "bank", "market", "company", "price", "year", "share", "board", "trader",
                  "stock", "rate"],
         "verb": ["sees", "buys", "sells", "likes", "moves", "raises", "cuts", "holds", "watches"],
         "adv": ["today", "again", "slowly", "quickly", "later"],
         "prep": ["in", "on", "near", "after"],
         "num": ["N", "<unk>", "$", "million", "percent", "shares", "points"]}


def _sentence(rng):
    pick = lambda kind: WORDS[kind][rng.randint(len(WORDS[kind]))]
    words = [pick("det")] + ([pick("adj")] if rng.rand() < 0.5 else []) + [pick("noun"), pick("verb"), pick("det"),
                                                                          pick("noun")]
    if rng.rand() < 0.4:
        words += [pick("prep"), pick("det"), pick("noun")]
    if rng.rand() < 0.3:
        words += ["by", "N", pick("num")]
    if rng.rand() < 0.3:
        words.append(pick("adv"))
    return words


def ptb():
    rng = np.random.RandomState(1)
    folder = os.path.join(HERE, "ptb_data")
    os.makedirs(folder, exist_ok=True)
    for name, count in (("ptb.train.txt", 4000), ("ptb.valid.txt", 400), ("ptb.test.txt", 150)):
        lines, n = [], 0
        while n < count:
            words = _sentence(rng)
            lines.append(" " + " ".join(words) + " \n")
            n += len(words) + 1
        with open(os.path.join(folder, name), "w") as f:
            f.write("".join(lines))


if __name__ == "__main__":
    iris()
    automobile()
    cifar10()
    ptb()
