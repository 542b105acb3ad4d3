"""``tf.linalg``: products, factorizations, solvers, norms and the linear operators."""
