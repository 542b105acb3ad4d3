"""``tf.debugging`` ops: assertions, ``tf.Print``/``tf.print`` and numerics checks."""
