"""``tf.image``/``tf.io`` codecs: PNG, BMP and GIF by hand (``image_png``), JPEG
through Pillow, and ``decode_image`` that dispatches on the file's magic bytes.

JPEG needs a real codec. Pillow is an optional dependency (``pip install
dflow[image]``), imported when a JPEG op runs; without it those ops raise
``NotImplementedError`` naming the install command when they are built
(``decode_image``, which learns the format when it runs, raises TF's
``UnimplementedError`` with the same message). Pillow drives the same
libjpeg(-turbo) as TF, but with its accurate integer DCT (TF's default is the
fast one) and always with fancy upsampling, so decoded pixels may differ from
TF's by a few levels; ``dct_method``, ``fancy_upscaling`` and
``acceptable_fraction`` are accepted and have no effect (``try_recover_truncated``
uses Pillow's truncated-image loading, which fills the missing rows).
Encoded bytes are valid JPEGs of the requested quality, subsampling,
progressiveness, density (``cm`` written as dots per inch) and XMP metadata,
not TF's bytes.
"""

from __future__ import annotations

import io
import threading

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, constant_value, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels.strings import scalar_bytes as as_bytes
from dflow.ops._common import invalid_argument
from dflow.ops.image.image_ops import convert_image_dtype
from dflow.ops.image.image_png import (
    PNG_SIGNATURE,
    decode_bmp_array,
    decode_gif_array,
    decode_png_array,
    encode_png_array,
)
from dflow.ops.nn._nn_util import with_rank
from dflow.ops.random.random_ops import random_uniform

_JPEG_MAGIC = b"\xff\xd8\xff"


def _pillow(op: str):
    try:
        from PIL import Image
    except ImportError:
        raise NotImplementedError(f"{op}: JPEG needs Pillow, an optional dependency: pip install dflow[image]") \
            from None
    return Image


def _string(t, name: str):
    t = convert_to_tensor(t, dtype=dtypes.string, name=name)
    with_rank(t.shape, 0)
    return t


def _image_infer(rank: int, dtype_attr: str | None = None, fixed_dtype=dtypes.uint8):
    def infer(op):
        channels = op._attrs.get("channels", 0) or None
        dtype = op._attrs[dtype_attr] if dtype_attr else fixed_dtype
        return [(dtype, TensorShape([None] * (rank - 1) + [channels]))]

    return infer


# -- PNG, BMP, GIF ---------------------------------------------------------------------------------


def _decode_png(contents, channels=0, dtype=dtypes.uint8):
    return decode_png_array(as_bytes(contents), channels, dtype.as_numpy_dtype)


def _encode_png(image, compression=-1):
    return np.array(encode_png_array(np.asarray(image), compression), dtype=object)


register("DecodePng", infer=_image_infer(3, "dtype"), kernel=_decode_png, gpu=False)
register("EncodePng", infer=lambda op: [(dtypes.string, TensorShape([]))], kernel=_encode_png, gpu=False)
register("DecodeBmp", infer=_image_infer(3), kernel=lambda c, channels=0: decode_bmp_array(as_bytes(c), channels),
         gpu=False)
register("DecodeGif", infer=lambda op: [(dtypes.uint8, TensorShape([None, None, None, 3]))],
         kernel=lambda c: decode_gif_array(as_bytes(c)), gpu=False)


@tf_export("image.decode_png", "io.decode_png")
def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """A PNG string to ``[height, width, channels]`` uint8 or uint16 (0 channels: as stored)."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.uint8, dtypes.uint16):
        raise TypeError(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: uint8, "
                        "uint16")
    return apply_op("DecodePng", [_string(contents, "contents")], {"channels": int(channels), "dtype": dtype},
                    name=name or "DecodePng").outputs[0]


@tf_export("image.encode_png", "io.encode_png")
def encode_png(image, compression=-1, name=None):
    """A ``[height, width, channels]`` uint8/uint16 image to a PNG string."""
    image = convert_to_tensor(image, name="image")
    if image.dtype not in (dtypes.uint8, dtypes.uint16):
        raise TypeError(f"Value passed to parameter 'image' has DataType {image.dtype.name} not in list of allowed "
                        "values: uint8, uint16")
    with_rank(image.shape, 3)
    return apply_op("EncodePng", [image], {"compression": int(compression)}, name=name or "EncodePng").outputs[0]


@tf_export("image.decode_bmp", "io.decode_bmp")
def decode_bmp(contents, channels=0, name=None):
    """A BMP string to ``[height, width, channels]`` uint8."""
    return apply_op("DecodeBmp", [_string(contents, "contents")], {"channels": int(channels)},
                    name=name or "DecodeBmp").outputs[0]


@tf_export("image.decode_gif", "io.decode_gif")
def decode_gif(contents, name=None):
    """A GIF string to ``[num_frames, height, width, 3]`` uint8."""
    return apply_op("DecodeGif", [_string(contents, "contents")], name=name or "DecodeGif").outputs[0]


# -- JPEG ---------------------------------------------------------------------------------------------


def _open_jpeg(data: bytes, op: str):
    image_mod = _pillow(op)
    if not data.startswith(_JPEG_MAGIC):
        raise invalid_argument("Invalid JPEG data or crop window, data size " + str(len(data)))
    try:
        img = image_mod.open(io.BytesIO(data))
        if img.format != "JPEG":
            raise ValueError(img.format)
    except Exception as e:
        raise invalid_argument(f"Invalid JPEG data or crop window, data size {len(data)}: {e}") from None
    return img


_TRUNCATED_LOCK = threading.Lock()


def _jpeg_pixels(data: bytes, channels: int, ratio: int, op: str, try_recover_truncated: bool = False) -> np.ndarray:
    if channels not in (0, 1, 3):
        raise invalid_argument(f"channels must be 0, 1, or 3, got {channels}")
    if ratio not in (1, 2, 4, 8):
        raise invalid_argument(f"ratio must be 1, 2, 4, or 8, got {ratio}")
    img = _open_jpeg(data, op)
    mode = {1: "L", 3: "RGB"}.get(channels) or ("L" if img.mode == "L" else "RGB")
    w, h = img.size
    img.draft(mode, ((w + ratio - 1) // ratio, (h + ratio - 1) // ratio))  # libjpeg's own scaling and colour
    try:
        if try_recover_truncated:
            from PIL import ImageFile
            with _TRUNCATED_LOCK:  # Pillow's switch is global
                saved, ImageFile.LOAD_TRUNCATED_IMAGES = ImageFile.LOAD_TRUNCATED_IMAGES, True
                try:
                    img.load()
                finally:
                    ImageFile.LOAD_TRUNCATED_IMAGES = saved
        img = img.convert(mode)
    except Exception as e:
        raise invalid_argument(f"Invalid JPEG data, size {len(data)}: {e}") from None
    pixels = np.asarray(img, np.uint8)
    return pixels[:, :, None] if pixels.ndim == 2 else pixels


def _decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                 acceptable_fraction=1.0, dct_method=""):
    return _jpeg_pixels(as_bytes(contents), channels, ratio, "DecodeJpeg", try_recover_truncated)


def _decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                          try_recover_truncated=False, acceptable_fraction=1.0, dct_method=""):
    pixels = _jpeg_pixels(as_bytes(contents), channels, ratio, "DecodeAndCropJpeg", try_recover_truncated)
    window = np.asarray(crop_window).reshape(-1)
    if window.shape != (4,):
        raise invalid_argument(f"crop_window must be shape [4], got {list(window.shape)}")
    y, x, h, w = (int(v) for v in window)
    if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > pixels.shape[0] or x + w > pixels.shape[1]:
        raise invalid_argument(f"Invalid JPEG data or crop window, crop window {[y, x, h, w]} for an image of "
                               f"{pixels.shape[0]} x {pixels.shape[1]}")
    return np.ascontiguousarray(pixels[y:y + h, x:x + w])


def _encode_jpeg_bytes(image, quality, fmt="", progressive=False, optimize_size=False, chroma_downsampling=True,
                       density_unit="in", x_density=300, y_density=300, xmp_metadata="", op="EncodeJpeg"):
    image_mod = _pillow(op)
    image = np.asarray(image)
    if image.ndim != 3 or image.shape[2] not in (1, 3):
        raise invalid_argument(f"image must be 3-dimensional with 1 or 3 channels, got shape {list(image.shape)}")
    if not 0 <= int(quality) <= 100:
        raise invalid_argument(f"quality must be in [0,100], got {int(quality)}")
    channels = {"grayscale": 1, "rgb": 3}.get(fmt, image.shape[2])
    if fmt and channels != image.shape[2]:
        raise invalid_argument(f"format {fmt!r} needs {channels} channels, got {image.shape[2]}")
    img = image_mod.fromarray(image[:, :, 0] if channels == 1 else image, "L" if channels == 1 else "RGB")
    kwargs = {"quality": int(quality), "progressive": bool(progressive), "optimize": bool(optimize_size),
              "subsampling": 2 if chroma_downsampling else 0}
    if density_unit == "in":
        kwargs["dpi"] = (int(x_density), int(y_density))
    elif density_unit == "cm":  # Pillow writes JFIF densities per inch
        kwargs["dpi"] = (round(int(x_density) * 2.54), round(int(y_density) * 2.54))
    else:
        raise invalid_argument(f"density_unit must be 'in' or 'cm', got {density_unit!r}")
    if xmp_metadata:
        kwargs["xmp"] = xmp_metadata.encode() if isinstance(xmp_metadata, str) else bytes(xmp_metadata)
    buf = io.BytesIO()
    img.save(buf, format="JPEG", **kwargs)
    return np.array(buf.getvalue(), dtype=object)


def _encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002 - TF attr
                 chroma_downsampling=True, density_unit="in", x_density=300, y_density=300, xmp_metadata=""):
    return _encode_jpeg_bytes(image, quality, format, progressive, optimize_size, chroma_downsampling, density_unit,
                              x_density, y_density, xmp_metadata)


def _encode_jpeg_variable_quality(image, quality):
    return _encode_jpeg_bytes(image, int(quality), op="EncodeJpegVariableQuality")


def _extract_jpeg_shape(contents, output_type=dtypes.int32):
    img = _open_jpeg(as_bytes(contents), "ExtractJpegShape")
    channels = {"L": 1, "RGB": 3, "YCbCr": 3, "CMYK": 4}.get(img.mode, len(img.getbands()))
    return np.array([img.size[1], img.size[0], channels], output_type.as_numpy_dtype)


def _is_jpeg(contents):
    return np.array(as_bytes(contents)[:3] == _JPEG_MAGIC)


register("DecodeJpeg", infer=_image_infer(3), kernel=_decode_jpeg, gpu=False)
def _crop_infer(op):
    window = constant_value(op._inputs[1])
    hw = [None, None] if window is None else [int(window[2]), int(window[3])]
    return [(dtypes.uint8, TensorShape(hw + [op._attrs["channels"] or None]))]


register("DecodeAndCropJpeg", infer=_crop_infer, kernel=_decode_and_crop_jpeg, gpu=False)
register("EncodeJpeg", infer=lambda op: [(dtypes.string, TensorShape([]))], kernel=_encode_jpeg, gpu=False)
register("EncodeJpegVariableQuality", infer=lambda op: [(dtypes.string, TensorShape([]))],
         kernel=_encode_jpeg_variable_quality, gpu=False)
register("ExtractJpegShape", infer=lambda op: [(op._attrs["output_type"], TensorShape([3]))],
         kernel=_extract_jpeg_shape, gpu=False)
register("_IsJpeg", infer=lambda op: [(dtypes.bool, TensorShape([]))], kernel=_is_jpeg, gpu=False)


def _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method):
    if dct_method not in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
        raise ValueError(f"dct_method must be one of '', 'INTEGER_FAST', 'INTEGER_ACCURATE', got {dct_method!r}")
    return {"channels": int(channels), "ratio": int(ratio), "fancy_upscaling": bool(fancy_upscaling),
            "try_recover_truncated": bool(try_recover_truncated),
            "acceptable_fraction": float(acceptable_fraction), "dct_method": dct_method}


@tf_export("image.decode_jpeg", "io.decode_jpeg")
def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    """A JPEG string to ``[height / ratio, width / ratio, channels]`` uint8 (needs Pillow)."""
    _pillow("decode_jpeg")
    attrs = _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method)
    return apply_op("DecodeJpeg", [_string(contents, "contents")], attrs, name=name or "DecodeJpeg").outputs[0]


@tf_export("image.decode_and_crop_jpeg", "io.decode_and_crop_jpeg")
def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """Decodes a JPEG and crops ``crop_window = [y, x, height, width]`` (needs Pillow)."""
    _pillow("decode_and_crop_jpeg")
    attrs = _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method)
    window = convert_to_tensor(crop_window, dtype=dtypes.int32, name="crop_window")
    return apply_op("DecodeAndCropJpeg", [_string(contents, "contents"), window], attrs,
                    name=name or "DecodeAndCropJpeg").outputs[0]


@tf_export("image.encode_jpeg", "io.encode_jpeg")
def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002 - TF name
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300, xmp_metadata="",
                name=None):
    """A ``[height, width, 1 or 3]`` uint8 image to a JPEG string (needs Pillow)."""
    _pillow("encode_jpeg")
    image = convert_to_tensor(image, dtype=dtypes.uint8, name="image")
    with_rank(image.shape, 3)
    if format not in ("", "grayscale", "rgb"):
        raise ValueError(f"format must be '', 'grayscale' or 'rgb', got {format!r}")
    attrs = {"format": format, "quality": int(quality), "progressive": bool(progressive),
             "optimize_size": bool(optimize_size), "chroma_downsampling": bool(chroma_downsampling),
             "density_unit": density_unit, "x_density": int(x_density), "y_density": int(y_density),
             "xmp_metadata": xmp_metadata}
    return apply_op("EncodeJpeg", [image], attrs, name=name or "EncodeJpeg").outputs[0]


@tf_export("image.extract_jpeg_shape", "io.extract_jpeg_shape")
def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None):
    """``[height, width, channels]`` of a JPEG, read from its header (needs Pillow)."""
    _pillow("extract_jpeg_shape")
    output_type = dtypes.as_dtype(output_type)
    return apply_op("ExtractJpegShape", [_string(contents, "contents")], {"output_type": output_type},
                    name=name or "ExtractJpegShape").outputs[0]


@tf_export("image.is_jpeg", "io.is_jpeg")
def is_jpeg(contents, name=None):
    """Whether a string starts with JPEG's magic bytes ``FF D8 FF``."""
    with name_scope(name, "is_jpeg"):
        return apply_op("_IsJpeg", [_string(contents, "contents")]).outputs[0]


@tf_export("image.adjust_jpeg_quality")
def adjust_jpeg_quality(image, jpeg_quality, name=None):
    """Re-encodes the image as a JPEG of ``jpeg_quality`` (0 to 100) and decodes it back (needs Pillow)."""
    _pillow("adjust_jpeg_quality")
    with name_scope(name, "adjust_jpeg_quality", [image]):
        image = convert_to_tensor(image, name="image")
        channels = image.shape.as_list()[-1] if image.shape.ndims else None
        orig_dtype = image.dtype
        image = convert_image_dtype(image, dtypes.uint8, saturate=True)
        quality = convert_to_tensor(jpeg_quality, dtype=dtypes.int32, name="jpeg_quality")
        encoded = apply_op("EncodeJpegVariableQuality", [image, quality]).outputs[0]
        decoded = decode_jpeg(encoded, channels=channels or 0)
        return convert_image_dtype(decoded, orig_dtype, saturate=True)


@tf_export("image.random_jpeg_quality")
def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """``adjust_jpeg_quality`` with a quality drawn uniformly from [min, max)."""
    if min_jpeg_quality < 0 or max_jpeg_quality < 0 or min_jpeg_quality > 100 or max_jpeg_quality > 100:
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    quality = random_uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed, dtype=dtypes.int32)
    return adjust_jpeg_quality(image, quality)


# -- decode_image -------------------------------------------------------------------------------------


def _decode_image(contents, channels=0, dtype=dtypes.uint8, expand_animations=True):
    data = as_bytes(contents)
    if data.startswith(_JPEG_MAGIC):
        pixels = _jpeg_pixels(data, channels, 1, "DecodeImage")
    elif data.startswith(PNG_SIGNATURE):
        pixels = decode_png_array(data, channels, np.uint8 if dtype == dtypes.uint8 else np.uint16)
    elif data.startswith(b"GIF8"):
        if channels not in (0, 3):
            raise invalid_argument(f"channels must be 0 or 3 for GIF, got {channels}")
        pixels = decode_gif_array(data)
        if not expand_animations:
            pixels = pixels[0]
    elif data.startswith(b"BM"):
        pixels = decode_bmp_array(data, channels)
    else:
        raise invalid_argument("Unknown image file format. One of JPEG, PNG, GIF, BMP required.")
    if dtype == dtypes.uint8:
        return pixels.astype(np.uint8)
    if dtype == dtypes.uint16:  # PNG widens in libpng (v * 257); the others as convert_image_dtype (v * 256)
        return pixels if pixels.dtype == np.uint16 else pixels.astype(np.uint16) * 256
    scale = 65535.0 if pixels.dtype == np.uint16 else 255.0
    return (pixels.astype(np.float32) * np.float32(1 / scale)).astype(np.float32)


register("DecodeImage", infer=lambda op: [(op._attrs["dtype"], TensorShape(None))], kernel=_decode_image, gpu=False)
for _t in ("DecodePng", "EncodePng", "DecodeBmp", "DecodeGif", "DecodeJpeg", "DecodeAndCropJpeg", "EncodeJpeg",
           "EncodeJpegVariableQuality", "ExtractJpegShape", "_IsJpeg", "DecodeImage"):
    not_differentiable(_t)


@tf_export("image.decode_image", "io.decode_image")
def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None, expand_animations=True):
    """Decodes a JPEG, PNG, GIF or BMP string by its magic bytes (GIFs are 4-D unless
    ``expand_animations=False``); other dtypes than uint8/uint16/float32 are converted."""
    with name_scope(name, "decode_image"):
        dtype = dtypes.as_dtype(dtype)
        attrs = {"channels": int(channels or 0), "expand_animations": bool(expand_animations)}
        contents = _string(contents, "contents")
        if dtype not in (dtypes.float32, dtypes.uint8, dtypes.uint16):
            out = apply_op("DecodeImage", [contents], {**attrs, "dtype": dtypes.uint16}).outputs[0]
            return convert_image_dtype(out, dtype)
        return apply_op("DecodeImage", [contents], {**attrs, "dtype": dtype}).outputs[0]
