"""``tf.linalg.LinearOperator`` and its subclasses: Python objects over dense tensors."""
