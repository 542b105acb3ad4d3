"""``tf.strings``: hashing, splitting, text formatting and Unicode."""
