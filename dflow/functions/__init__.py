"""``tf.function``, ``tf.wrap_function``, ``tf.GradientTape`` and ``tf.Module``: APIs built on ops."""
