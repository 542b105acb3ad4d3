"""``tf.nn``'s embeddings: ``embedding_lookup`` (and its sparse form), the candidate samplers and the
sampled losses over them (``nce_loss``, ``sampled_softmax_loss``)."""
