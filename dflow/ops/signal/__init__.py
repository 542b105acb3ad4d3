"""``tf.signal`` and ``tf.audio``: FFTs, framing, spectrograms, windows and WAV files."""
