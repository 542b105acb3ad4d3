"""``tf.audio``: 16-bit PCM WAV files, as TF's ``wav_io`` reads and writes them.

``encode_wav`` clamps float samples to [-1, 1] and writes ``round(x * 32768)`` (at most
32767) as little-endian int16 in a 44-byte RIFF/WAVE header; ``decode_wav`` reads such a
file back as ``int16 / 32768`` floats. As TF, only 16-bit PCM is read (a format chunk of 16
or 18 bytes, other chunks skipped), with TF's error messages; ``desired_channels`` takes the
first channels or repeats the last one, ``desired_samples`` cuts or pads with zeros.
``tf.summary.audio`` writes these bytes too.
"""

from __future__ import annotations

import collections
import struct

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels.strings import scalar_bytes as as_bytes
from dflow.ops._common import invalid_argument

_INT16_SCALE = 32768.0
_DecodeWav = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])  # what TF's op wrapper returns


def encode_wav_bytes(audio: np.ndarray, sample_rate: int) -> bytes:
    """A WAV file of ``audio`` (float, ``[frames, channels]``) at ``sample_rate`` (TF's bytes)."""
    if not 0 < sample_rate < 1 << 32:
        raise invalid_argument(f"sample_rate must be in (0, 2^32), got: {sample_rate % (1 << 64)}")
    frames, channels = audio.shape
    samples = np.clip(np.round(np.clip(audio.astype(np.float32), -1.0, 1.0) * np.float32(_INT16_SCALE)),
                      -32768, 32767).astype("<i2")
    data = samples.tobytes()
    block = 2 * channels
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16, 1, channels,
                         sample_rate, sample_rate * block, block, 16, b"data", len(data))
    return header + data


def _read(data: bytes, offset: int, n: int) -> int:
    if offset + n > len(data):
        raise invalid_argument("Data too short when trying to read string")
    return offset + n


def decode_wav_bytes(data: bytes, desired_channels: int = -1, desired_samples: int = -1) -> tuple:
    """``(float32 [samples, channels], sample rate)`` of a 16-bit PCM WAV file (TF's checks)."""
    end = _read(data, 0, 12)
    riff, _, wave = struct.unpack("<4sI4s", data[:end])
    if riff != b"RIFF":
        raise invalid_argument(f"Header mismatch: Expected RIFF but found {riff.decode('latin-1')}")
    if wave != b"WAVE":
        raise invalid_argument(f"Header mismatch: Expected WAVE but found {wave.decode('latin-1')}")
    offset, end = end, _read(data, end, 8)
    fmt, size = struct.unpack("<4sI", data[offset:end])
    if fmt != b"fmt ":
        raise invalid_argument(f"Header mismatch: Expected fmt  but found {fmt.decode('latin-1')}")
    if size not in (16, 18):
        raise invalid_argument(f"Bad format chunk size for WAV: Expected 16 or 18, but got{size}")
    offset, end = end, _read(data, end, 16)
    audio_format, channels, rate, per_second, per_sample, bits = struct.unpack("<HHIIHH", data[offset:end])
    if audio_format != 1:
        raise invalid_argument(f"Bad audio format for WAV: Expected 1 (PCM), but got{audio_format}")
    if channels < 1:
        raise invalid_argument(f"Bad number of channels for WAV file: {channels}")
    if bits != 16:
        raise invalid_argument(f"Can only read 16-bit WAV files, but received {bits}")
    if per_sample != (bits * channels + 7) // 8:
        raise invalid_argument(f"Bad bytes per sample in WAV header: Expected {(bits * channels + 7) // 8} but got "
                               f"{per_sample}")
    if per_second != per_sample * rate:
        raise invalid_argument(f"Bad bytes per second in WAV header: Expected {per_sample * rate} but got "
                               f"{per_second}")
    offset = end + (2 if size == 18 else 0)
    samples = None
    while offset < len(data):
        end = _read(data, offset, 8)
        chunk, chunk_size = struct.unpack("<4sI", data[offset:end])
        if chunk == b"data":
            if samples is not None:
                raise invalid_argument("More than one data chunk found in WAV")
            count = chunk_size // per_sample
            stop = _read(data, end, 2 * count * channels)
            samples = np.frombuffer(data[end:stop], "<i2").reshape(count, channels)
            offset = end + chunk_size
        else:
            offset = end + chunk_size
    if samples is None:
        raise invalid_argument("No data chunk found in WAV")
    values = samples.astype(np.float32) / np.float32(_INT16_SCALE)
    out_samples = len(values) if desired_samples == -1 else desired_samples
    out_channels = channels if desired_channels == -1 else desired_channels
    out = np.zeros((out_samples, out_channels), np.float32)
    n = min(out_samples, len(values))
    source = np.minimum(np.arange(out_channels), channels - 1)
    out[:n] = values[:n, source]
    return out, np.int32(rate)


# -- ops ----------------------------------------------------------------------------------------------------------


def _encode_infer(op):
    audio, rate = op._inputs
    if audio.shape.ndims is not None and audio.shape.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {audio.shape.ndims} for '{op.name}' (op: 'EncodeWav') "
                         f"with input shapes: {audio.shape}, {rate.shape}.")
    if rate.shape.ndims is not None and rate.shape.ndims != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {rate.shape.ndims} for '{op.name}' (op: 'EncodeWav')")
    return [(dtypes.string, TensorShape([]))]


def _encode_kernel(audio, sample_rate):
    audio = np.asarray(audio)
    if audio.ndim != 2:
        raise invalid_argument(f"audio must be 2-dimensional {list(audio.shape)}")
    return np.array(encode_wav_bytes(audio, int(sample_rate)), dtype=object)


def _decode_infer(op):
    a = op._attrs
    samples = None if a["desired_samples"] == -1 else a["desired_samples"]
    channels = None if a["desired_channels"] == -1 else a["desired_channels"]
    return [(dtypes.float32, TensorShape([samples, channels])), (dtypes.int32, TensorShape([]))]


def _decode_kernel(contents, desired_channels, desired_samples):
    return decode_wav_bytes(as_bytes(contents), desired_channels, desired_samples)


register("EncodeWav", infer=_encode_infer, kernel=_encode_kernel, gpu=False)
register("DecodeWav", infer=_decode_infer, kernel=_decode_kernel, gpu=False)
not_differentiable("EncodeWav")
not_differentiable("DecodeWav")


@tf_export("audio.encode_wav")
def encode_wav(audio, sample_rate, name=None) -> Tensor:
    """A 16-bit PCM WAV file (a string scalar) of float ``audio`` (``[frames, channels]``)."""
    with name_scope(name, "EncodeWav", [audio, sample_rate]) as scope:
        audio = convert_to_tensor(audio, dtype=dtypes.float32, name="audio")
        rate = convert_to_tensor(sample_rate, dtype=dtypes.int32, name="sample_rate")
        return apply_op("EncodeWav", [audio, rate], name=scope).outputs[0]


@tf_export("audio.decode_wav")
def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """``(audio, sample_rate)`` of a 16-bit PCM WAV file.

    ``audio`` is float32 ``[samples, channels]`` in [-1, 1); ``sample_rate`` an int32 scalar.
    """
    with name_scope(name, "DecodeWav", [contents]) as scope:
        contents = convert_to_tensor(contents, dtype=dtypes.string, name="contents")
        op = apply_op("DecodeWav", [contents], {"desired_channels": int(desired_channels),
                                                "desired_samples": int(desired_samples)}, name=scope)
        return _DecodeWav(op.outputs[0], op.outputs[1])
