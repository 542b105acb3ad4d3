"""``tf.random``: stateful, stateless (Philox, as TF's) and ``Generator`` random numbers."""
