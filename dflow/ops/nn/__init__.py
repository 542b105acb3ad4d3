"""``tf.nn`` and ``tf.losses``: activations, convolutions, pooling, normalization, embeddings, losses."""
