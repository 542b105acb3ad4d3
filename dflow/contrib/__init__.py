"""``tf.contrib``: the parts of TF1's contrib modules that ported programs reach for, built from ops and layers."""
