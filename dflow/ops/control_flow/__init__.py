"""``tf.cond``, ``tf.while_loop``, functional ops, ``tf.py_func`` and batched functions."""
