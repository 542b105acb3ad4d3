"""``tf.gradients``: the driver, custom gradients and the gradient checker."""
