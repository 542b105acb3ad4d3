"""``tf.io``: parsing ``tf.train.Example``, serialization, file and reader ops."""
