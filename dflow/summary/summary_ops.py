"""TF1's summary ops: ``tf.summary.scalar``, ``histogram``, ``text``,
``tensor_summary``, ``merge`` and ``merge_all``.

Each op outputs a serialized ``Summary`` protocol buffer as a ``tf.string``
scalar, byte for byte what TF1's kernel of the same name produces, and is
added to ``tf.GraphKeys.SUMMARIES`` (or the given ``collections``). Tags
follow TF1: the summary's name is cleaned (characters other than
``[-/\\w.]`` become ``_``, leading slashes go), opens a name scope, and the
scope (without its trailing slash) is the tag; a ``family`` prefixes both.
"""

from __future__ import annotations

import contextlib
import re
import sys

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import GraphKeys, Tensor, get_default_graph, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.protos.summary_pb import HistogramProto, Summary, SummaryMetadata
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import to_host
from dflow.ops.io.serialization_ops import tensor_proto

_REAL_DTYPES = frozenset((dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16,
                          dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.uint32,
                          dtypes.uint64))

# -- tags and scopes (tensorflow/python/ops/summary_op_util.py) --------------------------

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def clean_tag(name):
    """TF1's tag cleaning: invalid characters become ``_``; leading slashes are removed."""
    if name is not None:
        name = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    return name


@contextlib.contextmanager
def summary_scope(name, family=None, default_name=None, values=None):
    """Yields ``(tag, scope)`` for a summary op, as TF1's ``summary_op_util.summary_scope``."""
    name = clean_tag(name)
    family = clean_tag(family)
    scope_base_name = name if family is None else f"{family}/{name}"
    with name_scope(scope_base_name, default_name, values) as scope:
        tag = scope.rstrip("/") if family is None else f"{family}/{scope.rstrip('/')}"
        yield tag, scope


def _graph_values(value):
    """``values=`` for the summary's name scope: the tensor (to find its graph), if it is one."""
    return [value] if isinstance(value, Tensor) else None


def _collect(val: Tensor, collections, default_collections) -> None:
    if collections is None:
        collections = default_collections
    for key in collections:
        val.graph.add_to_collection(key, val)


def _string_scalar(data: bytes):
    return np.array(data, dtype=object)


def _summary_infer(op):
    return [(dtypes.string, TensorShape([]))]


def _shape_str(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


# -- ScalarSummary -----------------------------------------------------------------------

def _scalar_kernel(values, *, tag):
    values = to_host(values)
    if values.ndim != 0:
        raise errors.InvalidArgumentError(
            None, None, f"tags and values are not the same shape: [] != {_shape_str(values.shape)} (tag '{tag}')")
    s = Summary(value=[Summary.Value(tag=tag, simple_value=float(values))])
    return _string_scalar(s.SerializeToString())


register("ScalarSummary", infer=_summary_infer, kernel=_scalar_kernel, gpu=False, foldable=False)


def _check_dtype(tensor: Tensor, allowed, what: str, op_type: str) -> None:
    if tensor.dtype not in allowed:
        names = ", ".join(sorted(d.name for d in allowed))
        raise TypeError(f"Value passed to parameter '{what}' of {op_type} has DataType {tensor.dtype.name} "
                        f"not in list of allowed values: {names}")


@tf_export("summary.scalar")
def scalar(name, tensor, collections=None, family=None):
    """A ``Summary`` with one ``simple_value``: the value of the real-valued scalar ``tensor``.

    A non-scalar ``tensor`` fails when the op runs (InvalidArgumentError naming it), as in TF1.
    """
    with summary_scope(name, family, values=_graph_values(tensor)) as (tag, scope):
        tensor = convert_to_tensor(tensor, name="values")
        _check_dtype(tensor, _REAL_DTYPES, "values", "ScalarSummary")
        val = apply_op("ScalarSummary", [tensor], {"tag": tag}, name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


# -- HistogramSummary (tensorflow/core/lib/histogram/histogram.cc) ------------------------

_DBL_MAX = sys.float_info.max


def _default_bucket_limits() -> np.ndarray:
    """TF's default histogram buckets: ±1e-12 growing by 10% up to 1e20, ±DBL_MAX, and 0."""
    buckets = []
    v = 1.0e-12
    while v < 1.0e20:
        buckets.append(v)
        v *= 1.1
    buckets.append(_DBL_MAX)
    neg = [-b for b in reversed(buckets)]
    return np.array(neg + [0.0] + buckets, dtype=np.float64)


DEFAULT_BUCKET_LIMITS = _default_bucket_limits()
DEFAULT_BUCKET_LIMITS.setflags(write=False)


def histogram_proto(values, bucket_limits=DEFAULT_BUCKET_LIMITS) -> HistogramProto:
    """The ``HistogramProto`` TF1 builds for ``values`` (finite numbers), empty runs of buckets merged.

    Bucket ``i`` counts values in ``[limit[i-1], limit[i])``; ``sum`` and
    ``sum_squares`` accumulate in order, in double precision, as TF's
    ``Histogram::Add`` does.
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    limits = np.asarray(bucket_limits, dtype=np.float64)
    counts = np.bincount(np.searchsorted(limits, x, side="right"), minlength=len(limits)).astype(np.float64)
    h = HistogramProto()
    if x.size:
        h.min = float(x.min())
        h.max = float(x.max())
        h.num = float(x.size)
        h.sum = float(np.cumsum(x)[-1])
        h.sum_squares = float(np.cumsum(x * x)[-1])
    else:
        h.min = float(limits[-1])
        h.max = -_DBL_MAX
    limit_out, count_out = h.bucket_limit, h.bucket
    i, n = 0, len(counts)
    while i < n:
        end, count = limits[i], counts[i]
        i += 1
        if count <= 0.0:
            while i < n and counts[i] <= 0.0:  # collapse a run of empty buckets into one
                end, count = limits[i], counts[i]
                i += 1
        limit_out.append(float(end))
        count_out.append(float(count))
    if not limit_out:
        limit_out.append(_DBL_MAX)
        count_out.append(0.0)
    return h


def _histogram_make_kernel(op, resources):
    name = op.name

    def kernel(values, *, tag):
        x = to_host(values).astype(np.float64).ravel()
        bad = ~np.isfinite(x)
        if bad.any():
            first = x[int(np.argmax(bad))]
            what = "Nan" if np.isnan(first) else "Infinity"
            raise errors.InvalidArgumentError(None, None, f"{what} in summary histogram for: {name}")
        s = Summary(value=[Summary.Value(tag=tag, histo=histogram_proto(x))])
        return _string_scalar(s.SerializeToString())

    return lambda values: kernel(values, **op._attrs)


register("HistogramSummary", infer=_summary_infer, make_kernel=_histogram_make_kernel, gpu=False, foldable=False)


@tf_export("summary.histogram")
def histogram(name, values, collections=None, family=None):
    """A ``Summary`` with a histogram of ``values`` (any shape) over TF's default buckets.

    NaN or infinite values fail at run time with InvalidArgumentError, as in TF1.
    """
    with summary_scope(name, family, values=_graph_values(values)) as (tag, scope):
        values = convert_to_tensor(values, name="values")
        _check_dtype(values, _REAL_DTYPES, "values", "HistogramSummary")
        val = apply_op("HistogramSummary", [values], {"tag": tag}, name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


# -- TensorSummaryV2 ---------------------------------------------------------------------

def _tensor_summary_make_kernel(op, resources):
    dtype = op._inputs[0].dtype
    attrs = op._attrs

    def kernel(tensor):
        v = Summary.Value(tag=attrs["tag"], tensor=tensor_proto(tensor, dtype))
        v.metadata = SummaryMetadata.FromString(attrs["serialized_summary_metadata"])
        return _string_scalar(Summary(value=[v]).SerializeToString())

    return kernel


register("TensorSummaryV2", infer=_summary_infer, make_kernel=_tensor_summary_make_kernel, gpu=False,
         foldable=False)


@tf_export("summary.tensor_summary")
def tensor_summary(name, tensor, summary_description=None, collections=None, summary_metadata=None,
                   family=None, display_name=None):
    """A ``Summary`` holding the whole value of ``tensor`` as a ``TensorProto``."""
    if summary_metadata is None:
        summary_metadata = SummaryMetadata()
    elif not isinstance(summary_metadata, SummaryMetadata):
        raise TypeError(f"summary_metadata must be a tf.SummaryMetadata, got {type(summary_metadata).__name__}")
    else:
        summary_metadata = SummaryMetadata.FromString(summary_metadata.SerializeToString())
    if summary_description is not None:
        summary_metadata.summary_description = summary_description
    if display_name is not None:
        summary_metadata.display_name = display_name
    serialized = summary_metadata.SerializeToString()
    with summary_scope(name, family, values=_graph_values(tensor)) as (tag, scope):
        tensor = convert_to_tensor(tensor, name="tensor")
        val = apply_op("TensorSummaryV2", [tensor], {"tag": tag, "serialized_summary_metadata": serialized},
                       name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


@tf_export("summary.text")
def text(name, tensor, collections=None):
    """A text summary (TensorBoard's Text tab): a ``tf.string`` tensor of any shape."""
    if not isinstance(tensor, Tensor):
        tensor = convert_to_tensor(tensor, dtype=dtypes.string)
    if tensor.dtype is not dtypes.string:
        raise ValueError(f"Expected tensor {tensor.name} to have dtype string, got {tensor.dtype!r}")
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name=name, tensor=tensor, summary_metadata=metadata, collections=collections)


# -- MergeSummary ------------------------------------------------------------------------

def _merge_kernel(*inputs):
    out = Summary()
    tags = set()
    for x in inputs:
        for data in np.asarray(to_host(x), dtype=object).ravel().tolist():
            try:
                s = Summary.FromString(data)
            except ValueError:
                raise errors.InvalidArgumentError(None, None, "Could not parse one of the summary inputs") from None
            for v in s.value:
                if v.tag and v.tag in tags:
                    raise errors.InvalidArgumentError(None, None,
                                                      f"Duplicate tag {v.tag} found in summary inputs ")
                tags.add(v.tag)
                out.value.append(v)
    return _string_scalar(out.SerializeToString())


register("MergeSummary", infer=_summary_infer, kernel=_merge_kernel, gpu=False, foldable=False)


@tf_export("summary.merge")
def merge(inputs, collections=None, name=None):
    """One ``Summary`` holding every value of the serialized summaries ``inputs``.

    A tag that appears twice fails at run time (InvalidArgumentError).
    """
    inputs = [convert_to_tensor(x, dtype=dtypes.string) for x in inputs]
    with name_scope(name, "Merge", inputs):
        val = apply_op("MergeSummary", inputs, name=name).outputs[0]
        _collect(val, collections, [])
    return val


@tf_export("summary.merge_all")
def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """``merge`` of every summary in collection ``key`` (filtered by ``scope``); None if there is none."""
    summary_ops = get_default_graph().get_collection(key, scope=scope)
    if not summary_ops:
        return None
    return merge(summary_ops, name=name)


# -- ImageSummary and AudioSummaryV2 (tensorflow/core/kernels/summary_image_op.cc, summary_audio_op.cc) ------

_IMAGE_DTYPES = (dtypes.uint8, dtypes.float32, dtypes.float16, dtypes.float64)
_BAD_COLOR = (255, 0, 0, 255)  # TF's default: opaque red for pixels with a non-finite value


def _normalized_image(image: np.ndarray, bad_color) -> np.ndarray:
    """TF's ``NormalizeFloatImage``: finite values scaled so the largest is 255 (all >= 0), or
    shifted so 0 is 128 and scaled by 127 over the largest magnitude (any < 0), in the input's
    dtype, truncated to uint8; a pixel with a non-finite channel takes ``bad_color``."""
    t = image.dtype.type
    finite = np.isfinite(image).all(axis=-1)
    values = image[finite]
    low, high = (values.min(), values.max()) if values.size else (t(np.inf), t(-np.inf))
    if low < 0:
        biggest = max(abs(low), abs(high))
        scale, offset = (t(0) if biggest < 1e-6 else t(127) / biggest), t(128)
    else:
        scale, offset = (t(0) if high < 1e-6 else t(255) / high), t(0)
    with np.errstate(invalid="ignore", over="ignore"):
        out = (image * scale + offset).astype(np.uint8)
    out[~finite] = np.asarray(bad_color, np.uint8)[:image.shape[-1]]
    return out


def _image_kernel(tensor, *, tag, max_images, bad_color):
    from dflow.ops.image.image_png import encode_png_array

    t = to_host(tensor)
    if t.ndim != 4 or t.shape[-1] not in (1, 3, 4):
        raise errors.InvalidArgumentError(
            None, None, f"Tensor must be 4-D with last dim 1, 3, or 4, not {_shape_str(t.shape)}")
    values = []
    for i in range(min(t.shape[0], max_images)):
        image = t[i] if t.dtype == np.uint8 else _normalized_image(t[i], bad_color)
        h, w, c = image.shape
        values.append(Summary.Value(
            tag=f"{tag}/image" if max_images == 1 else f"{tag}/image/{i}",
            image=Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=encode_png_array(image))))
    return _string_scalar(Summary(value=values).SerializeToString())


def _audio_kernel(tensor, sample_rate, *, tag, max_outputs):
    from dflow.ops.signal.audio_ops import encode_wav_bytes

    t = to_host(tensor)
    if t.ndim not in (2, 3):
        raise errors.InvalidArgumentError(None, None, f"Tensor must be 3-D or 2-D, got: {_shape_str(t.shape)}")
    rate = float(to_host(sample_rate))
    if rate <= 0:
        raise errors.InvalidArgumentError(None, None, f"sample_rate must be > 0 (tag '{tag}'), got {rate}")
    clips = t if t.ndim == 3 else t[:, :, None]
    values = []
    for i in range(min(clips.shape[0], max_outputs)):
        frames, channels = clips[i].shape
        values.append(Summary.Value(
            tag=f"{tag}/audio" if max_outputs == 1 else f"{tag}/audio/{i}",
            audio=Summary.Audio(sample_rate=rate, num_channels=channels, length_frames=frames,
                                encoded_audio_string=encode_wav_bytes(clips[i], int(rate)), content_type="audio/wav")))
    return _string_scalar(Summary(value=values).SerializeToString())


register("ImageSummary", infer=_summary_infer, kernel=_image_kernel, gpu=False, foldable=False)
register("AudioSummaryV2", infer=_summary_infer, kernel=_audio_kernel, gpu=False, foldable=False)
not_differentiable("ImageSummary")
not_differentiable("AudioSummaryV2")


def _check_max_outputs(max_outputs) -> int:
    if not isinstance(max_outputs, (int, np.integer)) or isinstance(max_outputs, bool) or max_outputs < 1:
        raise ValueError(f"max_outputs must be a positive integer, got {max_outputs!r}")
    return int(max_outputs)


@tf_export("summary.image")
def image(name, tensor, max_outputs=3, collections=None, family=None):
    """A ``Summary`` of up to ``max_outputs`` images of ``tensor``, as PNGs.

    ``tensor`` is ``[batch, height, width, channels]`` with 1, 3 or 4 channels; the tags are
    ``name/image/i`` (``name/image`` when ``max_outputs`` is 1). uint8 pixels are written as
    they are; float pixels are scaled to 0 - 255 per image, as TF1 does (non-finite pixels red).
    """
    max_outputs = _check_max_outputs(max_outputs)
    with summary_scope(name, family, values=_graph_values(tensor)) as (tag, scope):
        tensor = convert_to_tensor(tensor, name="tensor")
        _check_dtype(tensor, _IMAGE_DTYPES, "tensor", "ImageSummary")
        val = apply_op("ImageSummary", [tensor], {"tag": tag, "max_images": max_outputs,
                                                  "bad_color": _BAD_COLOR}, name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


@tf_export("summary.audio")
def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """A ``Summary`` of up to ``max_outputs`` clips of ``tensor``, as 16-bit WAV files.

    ``tensor`` is float ``[batch, frames, channels]`` or ``[batch, frames]`` at ``sample_rate``
    Hz; the tags are ``name/audio/i`` (``name/audio`` when ``max_outputs`` is 1).
    """
    max_outputs = _check_max_outputs(max_outputs)
    with summary_scope(name, family=family, values=_graph_values(tensor)) as (tag, scope):
        tensor = convert_to_tensor(tensor, dtype=dtypes.float32, name="tensor")
        rate = convert_to_tensor(sample_rate, dtype=dtypes.float32, name="sample_rate")
        val = apply_op("AudioSummaryV2", [tensor, rate], {"tag": tag, "max_outputs": max_outputs},
                       name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val

for _t in ("ScalarSummary", "HistogramSummary", "TensorSummaryV2", "MergeSummary"):
    not_differentiable(_t)
