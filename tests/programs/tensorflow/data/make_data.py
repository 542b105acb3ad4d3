"""Stand-in data for the tensorflow/tensorflow example programs (deterministic, seeded).

    python data/make_data.py      # from tests/programs/tensorflow, with the repository's venv

- ``imports-85.data``: a 205-row stand-in for UCI's automobile data (same 26 columns, same value
  kinds, '?' for some unknowns); price follows curb-weight, highway-mpg, make and body style.
- ``train.tfrecords``: what ``convert_to_records.py`` writes for MNIST (``tf.train.Example``s of
  ``height``, ``width``, ``depth``, ``label``, ``image_raw``), for 120 training digits of the MNIST
  stand-in (``tools/mnist_standin.py``); written with dflow's ``TFRecordWriter``.
- ``abalone_train.csv`` / ``abalone_test.csv`` / ``abalone_predict.csv``: 300 / 100 / 7 rows in
  the form of TF's abalone files (7 shell measurements, then the age in rings), the age growing
  with the shell's size and weight.
- ``text8.zip``: a stand-in for text8 (one line of lowercase words, zipped as ``text8``): 24 000
  words of pseudo-English, sentences of function words and the words of one of 24 topics, so that
  words of a topic share contexts; about 800 distinct words.
"""

import gzip
import os
import sys
import tempfile
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))

MAKES = ["alfa-romero", "audi", "bmw", "chevrolet", "dodge", "honda", "isuzu", "jaguar", "mazda",
         "mercedes-benz", "mitsubishi", "nissan", "peugot", "plymouth", "porsche", "saab", "subaru",
         "toyota", "volkswagen", "volvo"]
LUXURY = {"audi": 4.0, "bmw": 9.0, "jaguar": 14.0, "mercedes-benz": 13.0, "porsche": 15.0, "volvo": 3.0,
          "saab": 2.0}
BODIES = ["hardtop", "wagon", "sedan", "hatchback", "convertible"]
BODY_PRICE = {"hardtop": 2.0, "wagon": 0.5, "sedan": 0.0, "hatchback": -1.0, "convertible": 4.0}


def imports85(rng, rows=205):
    lines = []
    for _ in range(rows):
        make = MAKES[rng.integers(len(MAKES))]
        body = BODIES[rng.integers(len(BODIES))]
        weight = float(np.clip(rng.normal(2550, 520), 1480, 4070).round())
        hwy = float(np.clip(round(60 - weight / 100 + rng.normal(0, 2.5)), 16, 54))
        city = hwy - 6
        size = round(weight / 22 + rng.normal(0, 8))
        hp = round(size * 0.85 + rng.normal(0, 10))
        price = 1000 * (-9.0 + weight / 190 - 0.08 * hwy + LUXURY.get(make, 0.0) + BODY_PRICE[body]
                        + rng.normal(0, 1.5))
        price = max(5118.0, round(price))
        losses = "?" if rng.random() < 0.2 else str(int(rng.integers(65, 256)))
        doors = "?" if rng.random() < 0.01 else ("two" if rng.random() < 0.45 else "four")
        row = [str(int(rng.integers(-2, 4))), losses, make, "gas" if rng.random() < 0.9 else "diesel",
               "std" if rng.random() < 0.8 else "turbo", doors, body,
               ["fwd", "rwd", "4wd"][rng.integers(3)], "front",
               f"{rng.normal(98.8, 6):.1f}", f"{weight / 15 + rng.normal(0, 4):.1f}",
               f"{rng.normal(65.9, 2):.1f}", f"{rng.normal(53.7, 2.4):.1f}", str(int(weight)),
               ["ohc", "ohcv", "dohc", "l", "rotor"][rng.integers(5)],
               ["four", "six", "five", "eight"][rng.integers(4)], str(size),
               ["mpfi", "2bbl", "idi", "1bbl"][rng.integers(4)],
               "?" if rng.random() < 0.02 else f"{rng.normal(3.33, 0.27):.2f}",
               "?" if rng.random() < 0.02 else f"{rng.normal(3.26, 0.31):.2f}",
               f"{rng.normal(10.1, 1.5):.1f}", str(hp), str(int(rng.integers(42, 66)) * 100),
               str(int(city)), str(int(hwy)), "?" if rng.random() < 0.02 else str(int(price))]
        lines.append(",".join(row))
    return "\n".join(lines) + "\n"


def abalone(rng, rows):
    """Rows of ``length,diameter,height,whole,shucked,viscera,shell,rings`` (rings: an int)."""
    lines = []
    for _ in range(rows):
        size = rng.beta(5, 2)
        length = 0.075 + 0.74 * size
        diameter = length * rng.normal(0.79, 0.03)
        height = max(0.01, length * rng.normal(0.27, 0.04))
        whole = max(0.002, 2.6 * length ** 3 * rng.normal(1, 0.12))
        shucked = whole * rng.normal(0.43, 0.04)
        viscera = whole * rng.normal(0.22, 0.03)
        shell = whole * rng.normal(0.29, 0.04)
        rings = int(np.clip(round(3 + 11 * size + 9 * shell + rng.normal(0, 1.8)), 1, 29))
        lines.append(",".join(f"{v:.4f}" for v in (length, diameter, height, whole, shucked, viscera, shell))
                     + f",{rings}")
    return "\n".join(lines) + "\n"


def train_tfrecords(path, first=5000, count=120):
    """Digits ``first..first+count`` of the stand-in's training file (after TF1's 5 000 validation
    digits), as ``convert_to_records.py`` converts them."""
    sys.path[:0] = [ROOT, os.path.join(ROOT, "tools")]
    import mnist_standin

    import dflow as tf

    with tempfile.TemporaryDirectory() as tmp:
        mnist_standin.write(tmp)
        with gzip.open(os.path.join(tmp, mnist_standin.FILES[0])) as f:
            images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28, 1)
        with gzip.open(os.path.join(tmp, mnist_standin.FILES[1])) as f:
            labels = np.frombuffer(f.read(), np.uint8, offset=8)
    with tf.python_io.TFRecordWriter(path) as writer:
        for index in range(first, first + count):
            def int64(v):
                return tf.train.Feature(int64_list=tf.train.Int64List(value=[v]))
            example = tf.train.Example(features=tf.train.Features(feature={
                "height": int64(28), "width": int64(28), "depth": int64(1), "label": int64(int(labels[index])),
                "image_raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[images[index].tobytes()]))}))
            writer.write(example.SerializeToString())


FUNCTION_WORDS = ["the", "of", "and", "in", "a", "to", "is", "was", "for", "as", "by", "with", "on",
                  "that", "from", "it", "his", "at", "are", "an"]
SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vi", "so", "pe", "da", "gu", "fo", "ri", "an", "el",
             "om", "ul", "ys", "be", "co"]


def text8(rng, words=24000, topics=24, per_topic=32):
    """Pseudo-English in text8's form: lowercase words separated by single spaces."""
    vocab = set(FUNCTION_WORDS)
    topic_words = []
    for _ in range(topics):
        group = []
        while len(group) < per_topic:
            w = "".join(SYLLABLES[i] for i in rng.integers(len(SYLLABLES), size=int(rng.integers(2, 4))))
            if w not in vocab:
                vocab.add(w)
                group.append(w)
        topic_words.append(group)
    out = []
    while len(out) < words:
        group = topic_words[rng.integers(topics)]
        weights = 1.0 / np.arange(1, per_topic + 1)  # Zipf-like within a topic
        for _ in range(int(rng.integers(6, 14))):
            if rng.random() < 0.4:
                out.append(FUNCTION_WORDS[min(int(rng.exponential(3.0)), len(FUNCTION_WORDS) - 1)])
            else:
                out.append(group[rng.choice(per_topic, p=weights / weights.sum())])
    return " " + " ".join(out[:words])


def main():
    rng = np.random.default_rng(85)
    with open(os.path.join(HERE, "imports-85.data"), "w", encoding="utf-8") as f:
        f.write(imports85(rng))
    for name, rows in (("abalone_train.csv", 300), ("abalone_test.csv", 100), ("abalone_predict.csv", 7)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
            f.write(abalone(np.random.default_rng(len(name) * 1000 + rows), rows))
    with zipfile.ZipFile(os.path.join(HERE, "text8.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        info = zipfile.ZipInfo("text8", date_time=(2006, 9, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, text8(np.random.default_rng(8)))
    train_tfrecords(os.path.join(HERE, "train.tfrecords"))


if __name__ == "__main__":
    main()
