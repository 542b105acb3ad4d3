"""``tf.image``: codecs, colour, cropping, resizing, boxes and quality measures."""
