"""PNG, BMP and GIF codecs in numpy and zlib, with TF's (libpng, giflib) rules.

``decode_png`` reads every PNG colour type (gray, gray+alpha, RGB, RGBA,
palette), bit depths 1 to 16, interlaced or not, and converts to the
requested channels as TF's libpng setup does: palettes and ``tRNS`` expand to
RGB(A), low gray depths scale to 8 bits, alpha is stripped or added (opaque),
RGB becomes gray with libpng's truncating ``0.299/0.587`` weights, 16-bit
samples keep their high byte for uint8 output and 8-bit samples are repeated
(``v * 257``) for uint16 output. ``encode_png`` writes 8- or 16-bit
gray/GA/RGB/RGBA images with the "Sub" filter. ``decode_bmp`` reads TF's
uncompressed 8/24/32-bit bitmaps, and ``decode_gif`` decodes LZW frames and
composites them on one canvas as TF does (transparent pixels keep the
previous frame; disposal methods are ignored).

Bytes are Python ``bytes``; these are host-only kernels.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from dflow.ops._common import invalid_argument

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
_SAMPLES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


# -- PNG decoding ------------------------------------------------------------------------------------


def _chunks(data: bytes):
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = data[pos + 8 + length:pos + 12 + length]
        if len(body) != length or len(crc) != 4:
            raise invalid_argument("Invalid PNG data: truncated chunk")
        if struct.unpack(">I", crc)[0] != zlib.crc32(kind + body) & 0xFFFFFFFF:
            raise invalid_argument(f"Invalid PNG data: CRC error in chunk {kind.decode('latin-1')}")
        yield kind, body
        if kind == b"IEND":
            return
        pos += 12 + length


def _unfilter(raw: bytes, width: int, height: int, bits_per_pixel: int) -> np.ndarray:
    """The scanlines of one (sub-)image, unfiltered: ``[height, row_bytes]`` uint8."""
    row_bytes = (width * bits_per_pixel + 7) // 8
    bpp = max(1, bits_per_pixel // 8)
    need = height * (row_bytes + 1)
    if len(raw) < need:
        raise invalid_argument("Invalid PNG data: not enough image data")
    rows = np.frombuffer(raw, np.uint8, need).reshape(height, row_bytes + 1)
    out = np.zeros((height, row_bytes), np.uint8)
    prev = np.zeros(row_bytes, np.int32)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:].astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 1:
            cur = _sub_unfilter(line, bpp)
        elif kind == 2:
            cur = (line + prev) & 0xFF
        elif kind in (3, 4):
            cur = _sequential_unfilter(line.tolist(), prev.tolist(), bpp, kind)
        else:
            raise invalid_argument(f"Invalid PNG data: bad filter type {kind}")
        out[y] = cur
        prev = np.asarray(cur, np.int32)
    return out


def _sub_unfilter(line, bpp):
    n = len(line)
    pad = (-n) % bpp
    grid = np.concatenate([line, np.zeros(pad, np.int32)]).reshape(-1, bpp)
    return (np.cumsum(grid, axis=0) & 0xFF).reshape(-1)[:n]


def _sequential_unfilter(line, prev, bpp, kind):
    cur = [0] * len(line)
    for i, v in enumerate(line):
        a = cur[i - bpp] if i >= bpp else 0
        b = prev[i]
        if kind == 3:
            cur[i] = (v + ((a + b) >> 1)) & 0xFF
        else:
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            cur[i] = (v + pred) & 0xFF
    return cur


def _samples(rows: np.ndarray, width: int, depth: int, nsamples: int) -> np.ndarray:
    """Unpacked samples ``[height, width, nsamples]`` (uint8 or uint16)."""
    h = rows.shape[0]
    if depth == 16:
        return rows.reshape(h, -1)[:, :width * nsamples * 2].reshape(h, width, nsamples, 2).astype(np.uint16) \
            .dot(np.array([256, 1], np.uint16)).astype(np.uint16)
    if depth == 8:
        return rows[:, :width * nsamples].reshape(h, width, nsamples)
    bits = np.unpackbits(rows, axis=1)[:, :width * depth].reshape(h, width, depth)
    weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.uint8)
    return (bits * weights).sum(axis=2).astype(np.uint8)[:, :, None]


def _read_png(data: bytes):
    """``(samples [h, w, n], color_type, bit_depth, palette, trns)`` of a PNG."""
    if not data.startswith(PNG_SIGNATURE):
        raise invalid_argument("Invalid PNG data, size " + str(len(data)))
    header, palette, trns, idat = None, None, None, []
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat.append(body)
    if header is None or not idat:
        raise invalid_argument("Invalid PNG data: missing IHDR or IDAT")
    width, height, depth, color, _, _, interlace = header
    if color not in _SAMPLES or depth not in (1, 2, 4, 8, 16):
        raise invalid_argument(f"Invalid PNG data: color type {color} with bit depth {depth}")
    if color == 3 and palette is None:
        raise invalid_argument("Invalid PNG data: palette image without PLTE")
    try:
        raw = zlib.decompress(b"".join(idat))
    except zlib.error as e:
        raise invalid_argument(f"Invalid PNG data: {e}") from None
    n = _SAMPLES[color]
    bits = depth * n
    dtype = np.uint16 if depth == 16 else np.uint8
    if interlace == 0:
        samples = _samples(_unfilter(raw, width, height, bits), width, depth, n)
    else:
        samples = np.zeros((height, width, n), dtype)
        pos = 0
        for x0, y0, dx, dy in _ADAM7:
            pw, ph = (width - x0 + dx - 1) // dx, (height - y0 + dy - 1) // dy
            if pw <= 0 or ph <= 0:
                continue
            size = ph * ((pw * bits + 7) // 8 + 1)
            samples[y0::dy, x0::dx] = _samples(_unfilter(raw[pos:pos + size], pw, ph, bits), pw, depth, n)
            pos += size
    return samples, color, depth, palette, trns


def decode_png_array(data: bytes, channels: int = 0, dtype=np.uint8) -> np.ndarray:
    """A PNG as ``[height, width, channels]`` with TF's channel and depth conversions."""
    samples, color, depth, palette, trns = _read_png(data)
    if channels not in (0, 1, 3, 4):
        raise invalid_argument(f"`channels` must be 0, 1, 3 or 4 but got {channels}")
    has_trns = trns is not None
    if channels == 0:
        channels = (4 if has_trns else 3) if color == 3 else _SAMPLES[color]
    # expand palettes and low gray depths to 8 bits; the tRNS chunk becomes alpha
    alpha = None
    if color == 3:
        idx = samples[:, :, 0]
        if idx.max(initial=0) >= len(palette):
            raise invalid_argument("Invalid PNG data: palette index out of range")
        rgb = palette[idx]
        if has_trns:
            table = np.full(len(palette), 255, np.uint8)
            t = np.frombuffer(trns, np.uint8)[:len(palette)]
            table[:len(t)] = t
            alpha = table[idx][:, :, None]
        values, max_value, is_gray = rgb, 255, False
    else:
        is_gray = color in (0, 4)
        n_color = 1 if is_gray else 3
        values = samples[:, :, :n_color]
        max_value = (1 << depth) - 1
        if color in (4, 6):
            alpha = samples[:, :, n_color:]
        elif has_trns:
            key = np.frombuffer(trns, ">u2")[:n_color].astype(values.dtype)
            alpha = np.where((values == key).all(axis=2, keepdims=True), 0, max_value).astype(values.dtype)
        if depth < 8:
            values = (values.astype(np.uint16) * 255 // max_value).astype(np.uint8)
            if alpha is not None:
                alpha = (alpha.astype(np.uint16) * 255 // max_value).astype(np.uint8)
            max_value = 255
    want_alpha = channels % 2 == 0
    if channels < 3 and not is_gray:
        values = _rgb_to_gray(values)
    elif channels >= 3 and is_gray:
        values = np.repeat(values, 3, axis=2)
    if want_alpha:
        # libpng's filler is (1 << bit_depth) - 1 at the file's depth: 1 for a 1-bit image, as TF gives
        filler = (1 << depth) - 1
        alpha = alpha if alpha is not None else np.full(values.shape[:2] + (1,), filler, values.dtype)
        values = np.concatenate([values, alpha.astype(values.dtype)], axis=2)
    if np.dtype(dtype) == np.uint8:
        return (values >> 8).astype(np.uint8) if values.dtype == np.uint16 else values.astype(np.uint8)
    if values.dtype == np.uint8:
        return values.astype(np.uint16) * 257
    return values.astype(np.uint16)


_GRAY_R, _GRAY_G = 29900 * 32768 // 100000, 58700 * 32768 // 100000
_GRAY_B = 32768 - _GRAY_R - _GRAY_G


def _rgb_to_gray(rgb):
    """libpng's ``png_do_rgb_to_gray`` without gamma: truncating for 8 bits, rounding for 16."""
    r, g, b = (rgb[:, :, i].astype(np.int64) for i in range(3))
    mix = _GRAY_R * r + _GRAY_G * g + _GRAY_B * b
    gray = (mix + 16384) >> 15 if rgb.dtype == np.uint16 else mix >> 15
    gray = np.where((r == g) & (r == b), r, gray)
    return gray.astype(rgb.dtype)[:, :, None]


# -- PNG encoding --------------------------------------------------------------------------------------


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def encode_png_array(image: np.ndarray, compression: int = -1) -> bytes:
    """PNG bytes of a ``[height, width, channels]`` uint8/uint16 image (1 to 4 channels)."""
    if image.ndim != 3:
        raise invalid_argument(f"image must be 3-dimensional{list(image.shape)}")
    height, width, channels = image.shape
    if channels not in (1, 2, 3, 4):
        raise invalid_argument(f"image must have 1, 2, 3, or 4 channels, got {channels}")
    if not -1 <= compression <= 9:
        raise invalid_argument(f"compression should be in [-1,9], got {compression}")
    depth = 16 if image.dtype == np.uint16 else 8
    color = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    data = image.astype(">u2").view(np.uint8) if depth == 16 else image.astype(np.uint8)
    rows = data.reshape(height, -1).astype(np.int16)
    bpp = channels * depth // 8
    filtered = rows.copy()
    filtered[:, bpp:] -= rows[:, :-bpp]  # the "Sub" filter
    lines = np.concatenate([np.ones((height, 1), np.uint8), (filtered & 0xFF).astype(np.uint8)], axis=1)
    header = struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, 0)
    return (PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(lines.tobytes(), compression))
            + _chunk(b"IEND", b""))


# -- BMP --------------------------------------------------------------------------------------------------


def decode_bmp_array(data: bytes, channels: int = 0) -> np.ndarray:
    """TF's ``DecodeBmp``: uncompressed 8-, 24- or 32-bit bitmaps, as gray, RGB or RGBA."""
    if len(data) < 54 or data[:2] != b"BM":
        raise invalid_argument("Malformed BMP file: header too short" if len(data) < 54 else "Invalid BMP data")
    offset, = struct.unpack("<i", data[10:14])
    width, height = struct.unpack("<ii", data[18:26])
    bpp, = struct.unpack("<H", data[28:30])
    file_channels = bpp // 8
    if channels and channels != file_channels:
        raise invalid_argument(f"channels attribute {channels} does not match bits per pixel from file "
                               f"{file_channels}")
    channels = file_channels
    if channels not in (1, 3, 4):
        raise invalid_argument(f"Number of channels must be 1, 3 or 4, was {channels}")
    if width <= 0 or height == 0:
        raise invalid_argument(f"BMP width and height must be positive, got {width} x {height}")
    row_size = (channels * width + 3) // 4 * 4
    abs_h = abs(height)
    if offset < 0 or offset + row_size * abs_h > len(data):
        raise invalid_argument("Malformed BMP file: not enough pixel data")
    pixels = np.frombuffer(data, np.uint8, row_size * abs_h, offset).reshape(abs_h, row_size)
    pixels = pixels[:, :width * channels].reshape(abs_h, width, channels)
    if height > 0:  # rows are stored bottom-up unless the height is negative
        pixels = pixels[::-1]
    if channels >= 3:
        pixels = pixels[:, :, [2, 1, 0, 3][:channels]]  # BGR(A) to RGB(A)
    return np.ascontiguousarray(pixels)


# -- GIF ---------------------------------------------------------------------------------------------------


def _lzw_decode(data: bytes, min_code_size: int, count: int) -> np.ndarray:
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    out = bytearray()
    table = [bytes([i]) for i in range(clear)] + [b"", b""]
    size = min_code_size + 1
    prev = None
    bitbuf = nbits = 0
    for byte in data:
        bitbuf |= byte << nbits
        nbits += 8
        while nbits >= size:
            code = bitbuf & ((1 << size) - 1)
            bitbuf >>= size
            nbits -= size
            if code == clear:
                table = table[:end + 1]
                size, prev = min_code_size + 1, None
                continue
            if code == end:
                return np.frombuffer(bytes(out[:count]), np.uint8)
            if prev is None:
                entry = table[code] if code < len(table) else b""
            elif code < len(table):
                entry = table[code]
                table.append(prev + entry[:1])
            elif code == len(table):
                entry = prev + prev[:1]
                table.append(entry)
            else:
                raise invalid_argument("Invalid GIF data: bad LZW code")
            out += entry
            prev = entry
            if len(table) == (1 << size) and size < 12:
                size += 1
            if len(out) >= count:
                return np.frombuffer(bytes(out[:count]), np.uint8)
    return np.frombuffer(bytes(out[:count]).ljust(count, b"\0"), np.uint8)


def _sub_blocks(data: bytes, pos: int):
    parts = []
    while pos < len(data):
        n = data[pos]
        pos += 1
        if n == 0:
            break
        parts.append(data[pos:pos + n])
        pos += n
    return b"".join(parts), pos


def _deinterlace(pixels: np.ndarray, h: int) -> np.ndarray:
    order = [y for start, step in ((0, 8), (4, 8), (2, 4), (1, 2)) for y in range(start, h, step)]
    out = np.empty_like(pixels)
    out[order] = pixels
    return out


def decode_gif_array(data: bytes) -> np.ndarray:
    """TF's ``DecodeGif``: ``[frames, height, width, 3]`` uint8."""
    if data[:6] not in (b"GIF87a", b"GIF89a"):
        raise invalid_argument("Invalid GIF data (not a GIF file)")
    width, height, flags = struct.unpack("<HHB", data[6:11])
    pos = 13
    global_map = None
    if flags & 0x80:
        n = 2 << (flags & 7)
        global_map = np.frombuffer(data, np.uint8, 3 * n, pos).reshape(n, 3)
        pos += 3 * n
    frames, transparent = [], -1
    canvas = np.zeros((height, width, 3), np.uint8)
    while pos < len(data):
        block = data[pos]
        pos += 1
        if block == 0x3B:
            break
        if block == 0x21:
            label = data[pos]
            body, pos = _sub_blocks(data, pos + 1)
            if label == 0xF9 and len(body) >= 4:
                transparent = body[3] if body[0] & 1 else -1
            continue
        if block != 0x2C:
            raise invalid_argument(f"Invalid GIF data: unexpected block {block:#x}")
        left, top, w, h, iflags = struct.unpack("<HHHHB", data[pos:pos + 9])
        pos += 9
        cmap = global_map
        if iflags & 0x80:
            n = 2 << (iflags & 7)
            cmap = np.frombuffer(data, np.uint8, 3 * n, pos).reshape(n, 3)
            pos += 3 * n
        if cmap is None:
            raise invalid_argument("missing color map")
        min_code = data[pos]
        body, pos = _sub_blocks(data, pos + 1)
        pixels = _lzw_decode(body, min_code, w * h).reshape(h, w)
        if iflags & 0x40:
            pixels = _deinterlace(pixels, h)
        frame = canvas.copy() if frames else np.zeros((height, width, 3), np.uint8)
        y0, y1 = max(top, 0), min(top + h, height)
        x0, x1 = max(left, 0), min(left + w, width)
        region = pixels[y0 - top:y1 - top, x0 - left:x1 - left].astype(np.int64)
        keep = region == transparent
        if (region[~keep] >= len(cmap)).any():
            raise invalid_argument(f"found color index {int(region[~keep].max())} outside of color map range "
                                   f"{len(cmap)}")
        colors = cmap[np.where(keep, 0, np.minimum(region, len(cmap) - 1))]
        frame[y0:y1, x0:x1] = np.where(keep[:, :, None], frame[y0:y1, x0:x1], colors)
        frames.append(frame)
        canvas = frame
        transparent = -1
    if not frames:
        raise invalid_argument("Gif file has no frames")
    return np.stack(frames)
