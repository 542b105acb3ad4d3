"""``tf.sparse``: ops on ``SparseTensor``."""
