"""Writes the stand-in data of the BERT programs (deterministic; run from this folder: python make_data.py).

* ``vocab.txt``: BERT's five special tokens and a few dozen lower-case words;
* ``bert_config.json``: a tiny BERT (hidden 32, 2 layers, 2 heads, intermediate 64);
* ``cola/train.tsv``, ``cola/dev.tsv``: a made-up single-sentence task in CoLA's format
  (``source<TAB>label<TAB>*<TAB>sentence``, no header): a sentence of neutral words with one
  "good" word (label 1) or one "bad" word (label 0);
* ``sample_text.txt``: a few short documents (one sentence a line, documents separated by a blank
  line) for ``create_pretraining_data.py``;
* ``features_input.txt``: five lines (two of them sentence pairs, ``a ||| b``) for ``extract_features.py``;
* ``squad/``: a made-up SQuAD 1.1 task for ``run_squad.py`` (160 training and 20 dev paragraphs of
  three "the <noun> is <colour> ." sentences, question "what is the <noun> ?", answer the colour),
  with its vocabulary (``vocab.txt`` plus "what", "?" and three colours) and ``bert_config.json``.

Not written here: ``pretrain.tfrecord`` (what ``create_pretraining_data.py`` writes from
``sample_text.txt`` with the manifest's flags, under TensorFlow 2.15; the input of
``run_pretraining.py``) and ``bert_ckpt/`` (``make_checkpoint.py``, which needs dflow).
"""

import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
GOOD = ["good", "great", "fine", "nice", "happy", "bright"]
BAD = ["bad", "awful", "poor", "sad", "dark", "ugly"]
FEATURES_INPUT = ["the good cat is very nice .", "the dog was bad ||| a sad day and a dark night",
                  "it is a big red car", "this old house was ugly .", "the woman was happy ||| the man was happy"]
NOUNS = ["cat", "dog", "house", "tree", "car", "man", "woman"]
COLOURS = ["red", "blue", "green", "black", "white"]
NEUTRAL = ["the", "a", "cat", "dog", "house", "tree", "car", "is", "was", "very", "quite", "red", "blue",
           "big", "small", "old", "new", "man", "woman", "day", "night", "and", "it", "this", "that", "."]


def sentence(rng, word):
    words = [rng.choice(NEUTRAL) for _ in range(rng.randint(3, 7))]
    words.insert(rng.randint(0, len(words)), word)
    return " ".join(words)


def write_cola(rng, path, n):
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(n):
            label = rng.randint(0, 1)
            text = sentence(rng, rng.choice(GOOD if label else BAD))
            f.write(f"made_up\t{label}\t*\t{text}\n")


def main():
    rng = random.Random(1234)
    vocab = SPECIAL + NEUTRAL + GOOD + BAD
    with open(os.path.join(HERE, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(w + "\n" for w in vocab))
    config = {"attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
              "hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 64,
              "max_position_embeddings": 64, "num_attention_heads": 2, "num_hidden_layers": 2,
              "type_vocab_size": 2, "vocab_size": len(vocab)}
    with open(os.path.join(HERE, "bert_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")
    os.makedirs(os.path.join(HERE, "cola"), exist_ok=True)
    write_cola(rng, os.path.join(HERE, "cola", "train.tsv"), 96)
    write_cola(rng, os.path.join(HERE, "cola", "dev.tsv"), 48)
    with open(os.path.join(HERE, "sample_text.txt"), "w", encoding="utf-8") as f:
        for _doc in range(12):
            for _ in range(rng.randint(3, 6)):
                f.write(sentence(rng, rng.choice(GOOD + BAD)) + "\n")
            f.write("\n")
    with open(os.path.join(HERE, "features_input.txt"), "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in FEATURES_INPUT))
    write_squad(random.Random(4321), vocab, config)


def squad_paragraph(rng, qid):
    """A context of three "the <noun> is <colour> ." sentences and a question on one of them."""
    nouns = rng.sample(NOUNS, 3)
    colours = [rng.choice(COLOURS) for _ in nouns]
    context = " ".join(f"the {n} is {c} ." for n, c in zip(nouns, colours))
    k = rng.randrange(3)
    start = context.index(f"the {nouns[k]} is ") + len(f"the {nouns[k]} is ")
    return {"context": context, "qas": [{"id": f"q{qid}", "question": f"what is the {nouns[k]} ?",
                                          "answers": [{"text": colours[k], "answer_start": start}]}]}


def write_squad(rng, vocab, config):
    os.makedirs(os.path.join(HERE, "squad"), exist_ok=True)
    squad_vocab = vocab + [w for w in ["what", "?"] + COLOURS if w not in vocab]
    with open(os.path.join(HERE, "squad", "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(w + "\n" for w in squad_vocab))
    with open(os.path.join(HERE, "squad", "bert_config.json"), "w", encoding="utf-8") as f:
        json.dump(dict(config, vocab_size=len(squad_vocab)), f, indent=2, sort_keys=True)
        f.write("\n")
    qid = 0
    for name, n in (("train.json", 160), ("dev.json", 20)):
        paragraphs = []
        for _ in range(n):
            paragraphs.append(squad_paragraph(rng, qid))
            qid += 1
        with open(os.path.join(HERE, "squad", name), "w", encoding="utf-8") as f:
            json.dump({"version": "1.1", "data": [{"title": "colours", "paragraphs": paragraphs}]}, f)


if __name__ == "__main__":
    main()
