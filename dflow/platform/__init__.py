"""TF1's platform helpers: ``tf.app``, ``tf.flags``, ``tf.logging``, ``tf.test`` and friends."""
