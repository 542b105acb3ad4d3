"""``tf.contrib.tensor_forest.python``: see ``tensor_forest``."""
