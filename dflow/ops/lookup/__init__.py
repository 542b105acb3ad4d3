"""``tf.lookup``: hash tables, vocabulary tables, and tables with OOV hash buckets."""
