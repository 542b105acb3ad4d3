"""``tf.metrics``: streaming metrics built from variables and update ops."""
