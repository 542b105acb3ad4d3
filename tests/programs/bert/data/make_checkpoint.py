"""Writes ``bert_ckpt/bert_model.ckpt``: the tiny BERT of ``bert_config.json`` with seeded random weights
(the init_checkpoint of ``extract_features.py``). Run from the repository root with dflow importable:
``PYTHONPATH=. .venv/bin/python tests/programs/bert/data/make_checkpoint.py``. The checkpoint is in
dflow's format (dflow reads only its own checkpoints); TF cannot run extract_features.py anyway
(``tf.contrib.layers.layer_norm``).
"""

import json
import os

import numpy as np

import dflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))


def shapes(config):
    h, i, v = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    out = {"bert/embeddings/word_embeddings": [v, h],
           "bert/embeddings/token_type_embeddings": [config["type_vocab_size"], h],
           "bert/embeddings/position_embeddings": [config["max_position_embeddings"], h],
           "bert/embeddings/LayerNorm/beta": [h], "bert/embeddings/LayerNorm/gamma": [h],
           "bert/pooler/dense/kernel": [h, h], "bert/pooler/dense/bias": [h]}
    for n in range(config["num_hidden_layers"]):
        p = f"bert/encoder/layer_{n}/"
        for part in ("query", "key", "value"):
            out[p + f"attention/self/{part}/kernel"] = [h, h]
            out[p + f"attention/self/{part}/bias"] = [h]
        out[p + "attention/output/dense/kernel"] = [h, h]
        out[p + "attention/output/dense/bias"] = [h]
        out[p + "intermediate/dense/kernel"] = [h, i]
        out[p + "intermediate/dense/bias"] = [i]
        out[p + "output/dense/kernel"] = [i, h]
        out[p + "output/dense/bias"] = [h]
        for ln in ("attention/output/LayerNorm", "output/LayerNorm"):
            out[p + ln + "/beta"] = [h]
            out[p + ln + "/gamma"] = [h]
    return out


def main():
    with open(os.path.join(HERE, "bert_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    rng = np.random.RandomState(20181011)
    with tf.Graph().as_default():
        variables = []
        for name, shape in sorted(shapes(config).items()):
            if name.endswith("gamma"):
                value = np.ones(shape, np.float32)
            elif name.endswith(("beta", "bias")):
                value = np.zeros(shape, np.float32)
            else:
                value = np.clip(rng.normal(0.0, 0.02, shape), -0.04, 0.04).astype(np.float32)
            variables.append(tf.Variable(value, name=name))
        saver = tf.train.Saver(variables)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            os.makedirs(os.path.join(HERE, "bert_ckpt"), exist_ok=True)
            saver.save(sess, os.path.join(HERE, "bert_ckpt", "bert_model.ckpt"), write_meta_graph=False)
    os.remove(os.path.join(HERE, "bert_ckpt", "checkpoint"))  # it names this machine's absolute path


if __name__ == "__main__":
    main()
