"""``tf.math``: element-wise math, reductions, special functions, segments, sorting and sets."""
