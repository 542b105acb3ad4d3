"""``tensorflow.examples``: the pieces of TF 1.x's tutorial package that programs import."""
