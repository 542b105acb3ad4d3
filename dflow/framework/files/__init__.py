"""Files: ``tf.gfile``/``tf.io.gfile`` (local and fsspec paths) and TFRecord files, as TF's ``lib/io``."""
