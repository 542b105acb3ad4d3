"""Make the small stand-in data of the chiphuyen programs (deterministic: run it again, get the same bytes).

    python tests/programs/chiphuyen/data/make_data.py

- ``text8.zip``: stands in for Matt Mahoney's text8 (31 MB, downloaded by ``word2vec_utils.py`` and
  ``process_data.py``). One member, ``text8``: 30 000 lower-case words on one line, separated by
  spaces as text8 is. The words are made-up syllable words; each 12-word "sentence" keeps to one of
  40 topics (its 30 words, drawn with Zipf weights) and a few very common words ("the", "of", ...)
  are mixed in, so that skip-gram pairs carry information and the NCE loss falls as training goes.
- ``trump_tweets.txt``: stands in for the course's ``examples/data/trump_tweets.txt`` (``11_char_rnn.py``):
  400 short generated lines of English words (a fixed word list, no real tweets), one a line.
- ``friday.jpg``: stands in for ``2017/examples/data/friday.jpg`` (``09_tfrecord_example.py``): a 48x64
  RGB JPEG of smooth colour gradients.
- ``birth_life_2010.txt`` (the course's own file, copied unchanged) and ``heart.csv`` (its first 60
  rows, copied unchanged) are not made here.
"""

import io
import os
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261207


def _words(rng, n):
    syllables = ["ka", "to", "ri", "mu", "sen", "la", "po", "di", "ne", "zo", "ba", "ki", "ru", "fa",
                 "go", "mi", "te", "sa", "lo", "ve", "an", "or", "el", "us"]
    out = set()
    while len(out) < n:
        k = rng.integers(2, 4)
        out.add("".join(rng.choice(syllables, size=k)))
    return sorted(out)


def make_text8(rng):
    vocab = _words(rng, 1200)
    rng.shuffle(vocab)
    common = ["the", "of", "and", "one", "in", "a", "to", "zero", "nine", "two"]
    topics = [vocab[i * 30:(i + 1) * 30] for i in range(40)]
    zipf = 1.0 / np.arange(1, 31)
    zipf /= zipf.sum()
    words = []
    while len(words) < 30000:
        topic = topics[rng.integers(0, len(topics))]
        for _ in range(12):
            if rng.random() < 0.25:
                words.append(common[rng.integers(0, len(common))])
            else:
                words.append(topic[rng.choice(30, p=zipf)])
    text = " " + " ".join(words[:30000])
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        info = zipfile.ZipInfo("text8", date_time=(2026, 12, 7, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, text)
    with open(os.path.join(HERE, "text8.zip"), "wb") as f:
        f.write(buffer.getvalue())


def make_tweets(rng):
    words = ("great people america jobs today thank you big news country will be very strong "
             "make again together vote win best new tremendous deal fake media state border "
             "economy record numbers tonight rally crowd incredible honor meeting president").split()
    lines = []
    for _ in range(400):
        n = rng.integers(8, 20)
        line = " ".join(rng.choice(words, size=n))
        line = line[0].upper() + line[1:] + rng.choice([".", "!", "!!", "?"])
        if rng.random() < 0.3:
            line = "@" + rng.choice(words) + " " + line
        lines.append(line)
    with open(os.path.join(HERE, "trump_tweets.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def make_friday():
    from PIL import Image
    y, x = np.mgrid[0:48, 0:64]
    image = np.stack([x * 4, y * 5, (x + y) * 2], axis=-1).astype(np.uint8)
    Image.fromarray(image).save(os.path.join(HERE, "friday.jpg"), quality=90)


if __name__ == "__main__":
    rng = np.random.default_rng(SEED)
    make_text8(rng)
    make_tweets(rng)
    make_friday()
