"""tf.audio.encode_wav / decode_wav against TF 2.15's bytes, values and errors (/tmp/ref/imgsum.py, wav_err2.py)."""

import numpy as np
import pytest

import dflow as tf

# TF 2.15's encode_wav of [[0, 0.5], [-1, 1], [0.25, -0.3]] at 16 kHz
WAV = bytes([82, 73, 70, 70, 48, 0, 0, 0, 87, 65, 86, 69, 102, 109, 116, 32, 16, 0, 0, 0, 1, 0, 2, 0, 128, 62, 0, 0,
             0, 250, 0, 0, 4, 0, 16, 0, 100, 97, 116, 97, 12, 0, 0, 0, 0, 0, 0, 64, 0, 128, 255, 127, 0, 32, 154, 217])


def test_encode_and_decode_as_tf(sess):
    audio = np.array([[0.0, 0.5], [-1.0, 1.0], [0.25, -0.3]], np.float32)
    assert sess.run(tf.audio.encode_wav(audio, 16000)) == WAV
    decoded = tf.audio.decode_wav(WAV)
    assert decoded.audio.shape.as_list() == [None, None] and decoded.sample_rate.dtype == tf.int32
    values, rate = sess.run(decoded)
    assert values.tolist() == [[0.0, 0.5], [-1.0, 0.999969482421875], [0.25, -0.29998779296875]] and rate == 16000
    first = tf.audio.decode_wav(WAV, desired_channels=1, desired_samples=5)
    assert first.audio.shape.as_list() == [5, 1]
    assert sess.run(first.audio).tolist() == [[0.0], [-1.0], [0.25], [0.0], [0.0]]  # cut to 1 channel, padded
    mono = sess.run(tf.audio.encode_wav(audio[:, :1], 16000))
    assert sess.run(tf.audio.decode_wav(mono, desired_channels=3, desired_samples=2).audio).tolist() == [
        [0.0, 0.0, 0.0], [-1.0, -1.0, -1.0]]  # the last channel repeated


@pytest.mark.parametrize("data, message", [
    (b"RIFX" + WAV[4:], "Header mismatch: Expected RIFF but found RIFX"),
    (WAV[:20], "Data too short when trying to read string"),
    (WAV[:-2], "Data too short when trying to read string"),
    (WAV[:34] + b"\x08\x00" + WAV[36:], "Can only read 16-bit WAV files, but received 8"),
    (WAV[:36], "No data chunk found in WAV"),
])
def test_bad_files_are_tfs_errors(sess, data, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        sess.run(tf.audio.decode_wav(data))


def test_bad_encode_arguments(sess):
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.audio.encode_wav(np.zeros(3, np.float32), 100)
    too_low = r"sample_rate must be in \(0, 2\^32\), got: 18446744073709551615"  # TF prints -1 as a uint64
    with pytest.raises(tf.errors.InvalidArgumentError, match=too_low):
        sess.run(tf.audio.encode_wav(np.zeros((3, 2), np.float32), -1))
