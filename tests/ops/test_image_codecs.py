"""PNG, BMP, GIF and JPEG codecs and decode_image against TF 2.15's decodings of the same
files (JPEG within a few levels: Pillow's libjpeg DCT differs from TF's).

The case table below is run under TF 2.15 (compat.v1) to give EXPECTED (the
scripts are kept under /tmp/ref/image/); the test runs the same table under dflow.
"""

from __future__ import annotations

import base64

import numpy as np
import pytest

import dflow as tf
from tests.ops.image_harness import tf_case_test

# image files written by /tmp/ref/image/make_codec_data.py (hand-made PNGs of every colour type, depth,
# filter and interlace; Pillow's BMP, GIF and JPEG), base64
DATA = {
    'rgb8': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFCAIAAADpOgqxAAAAaklEQVR4nAFfAKD/AAoUHltRtw1MoUdSGG1csP2gLQHsfYRh0Mn9'
        '2Kidr1x0xKc2q04Cv/VuczACFvKmX4UaLyEjm7JIA7J+1l0OoYuZGlUNoissipIE3wSBIIKEcYKFpqH5J0f0BlYqV+yqASlhCc5A'
        '5gAAAABJRU5ErkJggg=='
    ),
    'rgba8': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFCAYAAABmWJ3mAAAAiElEQVR4nAF9AIL/ADCKL26grCgIxKGB32l8S6JIE+BUMlK77QFI'
        'JqciL1B40v/uZagXVb1gzRw1mBC8+T0Cdl6jzDAtds8tbYLg2zj5RU2PUnG7yu4rA1M7Sl4rer7lEwi0lfDRckCJEAtleehtIgQj'
        'L3LeTEQdEXAe1IVt2GRCJ6TCpngExkGoNTcQb71UiQAAAABJRU5ErkJggg=='
    ),
    'gray8': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFCAAAAABDM8I6AAAALElEQVR4nGPwZO9d5POfsbagteXpPaa1tp7SS2Ywb/9tnN64gEW1'
        '6WYb7wkACiIPYMy69IIAAAAASUVORK5CYII='
    ),
    'ga8': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFCAQAAADMUVVtAAAATElEQVR4nAFBAL7/APzS9oGeph54ydpyLgFvL+qu4gYZVsfL6s8C'
        'UnsTnJoWpKDa3vs0A2H7GhsM9d993q2AVwQ10yubaUCmU9Cj1zlQpyDfZhUeVQAAAABJRU5ErkJggg=='
    ),
    'rgb16': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFEAIAAAC5qtbyAAAAxElEQVR4nAG5AEb/ADwYbp0/S/nnE3M8LSZOKZQtgKjBxwnvlV+m'
        '++cB3rrnNZyFBQHUsJDpCj9gina6As44FIi+wBe1rfLSS/MNMCzFMkfnbaKi88ACMjsiAl14ezaoYBohl5p5bz+UP+hutvzqeSvP'
        '55EWtKuoACPnA0LanSwNkx1N2C3Fj2UYYN1ETTO1RKnWcYb2pNGk1GK4MDE+pQS9a9PwQlc6qcxsOosOPfr/tYeAfxaEqGaniSbl'
        'hEcuxkowJIp4nFe7QdJFIAAAAABJRU5ErkJggg=='
    ),
    'gray16': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFEAAAAAATox55AAAATElEQVR4nAFBAL7/AOzgSFntw7HOHp2XGQF8xVhunYPvALu1ZqYC'
        'KigQsSZMbxBiUJX3A386WINGLmsplDm+6wS5WanLX1Bc5ukuHdvaQB1+YjIKwwAAAABJRU5ErkJggg=='
    ),
    'rgba16': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFEAYAAAA2yEGlAAABAElEQVR4nAH1AAr/AA7T9ujv57h+iJ30S41vcPQIusvVUJ8YOvVi'
        'p2c9gleGeTQDn7pSW8YLS81BXwI3IgFU9atqBEGsHEA/03plpZU24Ircadi4WxSMsnRwiSKGT5d/7xq06vCJox0cld/sDykCCY+O'
        'uCPKYrcnHJ0Q5A04KitzUF/Z/FgrRrBGslUSDZtnpERFmC7Cowa4xRrEBuA6A0tra5pIaqJpCRKLJ/SkjYLX5GLUScC1jC50A6xK'
        '4caeHiE8r8I3LGGhMVUibz2JDAQ/QQTBtaJpyuL5aGFG2vMeqngrL6OajZFiQStDa3YfembfVDPMb4OoH1zAmhsWbkrpTm8e853g'
        'twAAAABJRU5ErkJggg=='
    ),
    'gray1': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFAQAAAABOI6BLAAAAEklEQVR4nGOQYJzAFMHcw/IFAAlKAosHqgbpAAAAAElFTkSuQmCC'
    ),
    'gray2': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFAgAAAAAJg9qbAAAAF0lEQVR4nGNocGCsDWbyncDsJMuy4yIAHX8EYG6lPRwAAAAASUVO'
        'RK5CYII='
    ),
    'gray4': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFBAAAAACGwy87AAAAHUlEQVR4nGNIqF3NeGZCLBPLaVZmjyt3WVYdrwEAS8YIBpi4f2AA'
        'AAAASUVORK5CYII='
    ),
    'palette': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFCAMAAABRhm3UAAAAFVBMVEWv0Z/KTWofXrpcSGJwDbg/5w4VCPQQYxR1AAAAJUlEQVR4'
        'nAXBgQEAIAjDsK2D/w8W1ER0qmWw9cjojIPC3XJJ8AFePgYlAqX+xAAAAABJRU5ErkJggg=='
    ),
    'palette4': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFBAMAAACUdoDVAAAAFVBMVEWv0Z/KTWofXrpcSGJwDbg/5w4VCPQQYxR1AAAAHElEQVR4'
        'nGNQNQlgVDHiZ9L5fZBZSuY0iwiDKgAp5wQ7r3Ae9QAAAABJRU5ErkJggg=='
    ),
    'palette_trns': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFCAMAAABRhm3UAAAAFVBMVEWv0Z/KTWofXrpcSGJwDbg/5w4VCPQQYxR1AAAABHRSTlMA'
        'gP8eO429CwAAACVJREFUeJwFwYEBACAIw7Ctg/8PFtREdKplsPXI6IyDwt1ySfABXj4GJQKl/sQAAAAASUVORK5CYII='
    ),
    'gray_trns': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFCAAAAABDM8I6AAAAAnRSTlMASXmTNAwAAAAsSURBVHicY/Bk713k85+xtqC15ek9prW2'
        'ntJLZjBv/22c3riARbXpZhvvCQAKIg9gzLr0ggAAAABJRU5ErkJggg=='
    ),
    'rgb_trns': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFCAIAAADpOgqxAAAABnRSTlMACgAUAB7FNin/AAAAaklEQVR4nAFfAKD/AAoUHltRtw1M'
        'oUdSGG1csP2gLQHsfYRh0Mn92Kidr1x0xKc2q04Cv/VuczACFvKmX4UaLyEjm7JIA7J+1l0OoYuZGlUNoissipIE3wSBIIKEcYKF'
        'pqH5J0f0BlYqV+yqASlhCc5A5gAAAABJRU5ErkJggg=='
    ),
    'rgb16_trns': (
        'iVBORw0KGgoAAAANSUhEUgAAAAYAAAAFEAIAAAC5qtbyAAAABnRSTlMD6AfQC7jGhhbdAAAAxElEQVR4nAG5AEb/ADwYbp0/S/nn'
        'E3M8LSZOKZQtgKjBxwnvlV+m++cB3rrnNZyFBQHUsJDpCj9gina6As44FIi+wBe1rfLSS/MNMCzFMkfnbaKi88ACMjsiAl14ezao'
        'YBohl5p5bz+UP+hutvzqeSvP55EWtKuoACPnA0LanSwNkx1N2C3Fj2UYYN1ETTO1RKnWcYb2pNGk1GK4MDE+pQS9a9PwQlc6qcxs'
        'OosOPfr/tYeAfxaEqGaniSblhEcuxkowJIp4nFe7QdJFIAAAAABJRU5ErkJggg=='
    ),
    'interlaced_rgb': (
        'iVBORw0KGgoAAAANSUhEUgAAAA0AAAALCAIAAAFc16CgAAABzklEQVR4nAHDATz+AO3SCpxEhgHPWCafnPEBmsdbJOaGAuXi90Q/'
        'XQKgbyortKWLH58dPT8DDYx5fuqslyvuBDSqMZ4HEOs58QB4p0fLIavsI1EEBuSEYOfO9TUD/6I20wyhrqgIINpeADE+z5udbaL9'
        'DFFssuHjcBWhiK4dQAGPLQtvSjJQshj+z0fCD9KJyBsr0a0AFKxmAwrO2rET5cJwzHJkcmQmAeQJy/oPcBeqmXvVuyiYmSTJfwLi'
        'mxCV88EVWwpItrjDT6sIvaoDu+4SiYk8vPzDBo1g0Efng7QaBCgOwqnr/uSrYCD9BWiOwyBNKwDH8OKpNiuTlcDOHNlsjEsKCMEB'
        'wwdxTTkv40iqjxlcxfuVRxS0R6c0OCVAcuvb1PB+kh1hOPKG0R5rAgnfqvhIlXfZtDd27bRFUqce/abyH6J41458CDVhV1FTGW0c'
        '1+VWKwOo9e5ErbTYQCtXfpMGSgreVdq0z+Z05UmO9f1PKs51l/S9DoGZ2ycER7Xlt8rXqMtAyQO1mOqq6G4TYnieGr5hhF8T4E/9'
        '9v3cH8llYj6ZAOpFTtYJnAog6h66gDSemmEGp/7AdH7yayjfzX2fFkEepRUjIYmIHN4B2Iapx4MyAAAAAElFTkSuQmCC'
    ),
    'interlaced_gray2': (
        'iVBORw0KGgoAAAANSUhEUgAAAA0AAAALAgAAAAG8bnCKAAAAT0lEQVR4nAFEALv/AFABQAFAArACVgOABGQAWASUqABSXAHdWwDh'
        'wAFnyQI0AAPvSgTaBAC5UAH1NjClAmYKlAADsY0hrwQYdkAAAJeyP8CN6RSojF8m8AAAAABJRU5ErkJggg=='
    ),
    'bmp24': (
        'Qk2aAAAAAAAAADYAAAAoAAAABgAAAAUAAAABABgAAAAAAGQAAADEDgAAxA4AAAAAAAAAAAAA0deIckhEE06gWnWZEbum/RIrAABP'
        'twfwqMDf+BtHtYW747KD8AEAAPJyq099wJsXYGtZRhu5io71LAAAhH3sTU1N9SVKUdTn+JhbRkORAAAeFAq3UVuhTA0YUkewXG0t'
        'oP0AAA=='
    ),
    'bmp32': (
        'Qk2uAAAAAAAAADYAAAAoAAAABgAAAAUAAAABACAAAAAAAHgAAADEDgAAxA4AAAAAAAAAAAAA4azVs/5OI8LSk5OwXmv58iAPs5jX'
        'Eysyb32y1UAK17HXddAr+oSMduyEIqIRV5zxSoS+7pWjp8MG0aN8OvFoQchkpwVdWyX8pyZIIh92d/SEZHacQbmN/HbVWpRvkWrR'
        'L4owbiisoAiBocTfS3xpouATSFS7UjLt'
    ),
    'bmp24_topdown': (
        'Qk2aAAAAAAAAADYAAAAoAAAABgAAAPv///8BABgAAAAAAGQAAADEDgAAxA4AAAAAAAAAAAAAHhQKt1FboUwNGFJHsFxtLaD9AACE'
        'fexNTU31JUpR1Of4mFtGQ5EAAPJyq099wJsXYGtZRhu5io71LAAAT7cH8KjA3/gbR7WFu+Oyg/ABAADR14hySEQTTqBadZkRu6b9'
        'EisAAA=='
    ),
    'gif': (
        'R0lGODlhCQAIAIIAAAD/ADzDHniHPLRLWvoFfQAAAAAAAAAAACH/C05FVFNDQVBFMi4wAwEAAAAh+QQABQAAACwAAAAACQAIAAAI'
        'MgAHAAAQQKBBAQEEDDg4QCEAAhAVLgQwACKBggoDPIxYUKDDhhIbCgSQUYAAgglPBggIACH5BAEFAAUALAMAAgADAAQAggD/ADzD'
        'HniHPLRLWtItaQAAAAAAAAAAAAgLAAEEGECgoEGDAQEAIfkEAQUABQAsAwADAAMABACCAP8APMMeeIc8qlVVtEtaAAAAAAAAAAAA'
        'CAsAAwAIMKCgQYMBAQA7'
    ),
    'gif_single': (
        'R0lGODdhCQAIAIIAAAD/ADzDHniHPLRLWvoFfQAAAAAAAAAAACwAAAAACQAIAAAIMgAHAAAQQKBBAQEEDDg4QCEAAhAVLgQwACKB'
        'ggoDPIxYUKDDhhIbCgSQUYAAgglPBggIADs='
    ),
    'jpeg_rgb': (
        '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMU'
        'FRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU'
        'FBQUFBQUFBT/wAARCAAQABgDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF'
        'BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW'
        'V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi'
        '4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAEC'
        'AxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVm'
        'Z2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq'
        '8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDz/wCG3wS/1X+j+navpzwV8KrfS0i8yHdKRlYgOT/gP/r1vSR6B8N9BGq6tdxaXpyyRxfa'
        '5Y2Yu7dESMKWY8E8A4AY4wCR8xfGb9qi919LjQNCtZtM06ZDDcaejg3N5G753Ty7T5QKAZiQknewYurDHPjuMcTm1aWXcKQVWW0q'
        'z/hw78v/AD8kvL3FeLbabOfJ+F62OpPHY2aoYaLtKpPRd7RW85W2hFOXe257Z8Uvj/4d+FkF3Z2KQazq9k8kdxESy2unsE4Mjhf3'
        'r7yq+WhzkOpZGwCV8deHvAGqeMLyC41L95syIokTbHECc4UfkMnJOBknFFTh/DbLcQniM6lLEYiWspyer8l0SWySSSVl0uevPifK'
        '8tthsqwEKlNbzrKTnJ9XywnGMF2j7ztq5Ns//9k='
    ),
    'jpeg_gray': (
        '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAUDBAQEAwUEBAQFBQUGBwwIBwcHBw8LCwkMEQ8SEhEPERETFhwXExQaFRERGCEYGh0d'
        'Hx8fExciJCIeJBweHx7/wAALCAAQABgBAREA/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF'
        'BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW'
        'V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi'
        '4+Tl5ufo6erx8vP09fb3+Pn6/9oACAEBAAA/APIvB3gj7n7n9K9n8HeCPufuf0r1OHSNG8LeHbrxD4hu4dO0uxi824uJfuoOgAA5'
        'ZiSAFAJYkAAkgVz/AIO8Efc/c/pR8Tvil4N+FG7SvJ/t3xQnlN/ZEDmPy0fndLLtZY/lGQuC53IdoVtw+ZfFOseMvihrkGq+Lr77'
        'T9n3rZ2sUYjt7RHbcVjQfgNzFnIVQzNtFf/Z'
    ),
}
FILES = {k: base64.b64decode("".join(v)) for k, v in DATA.items()}
PNGS = [k for k in DATA if not k.startswith(("bmp", "gif", "jpeg"))]
IMG8 = (np.arange(4 * 5 * 3) * 13 % 256).astype(np.uint8).reshape(4, 5, 3)


def cases(tf):
    out = {}
    for k in PNGS:
        for ch in (0, 1, 3, 4):
            out[f"png_{k}_c{ch}"] = tf.image.decode_png(FILES[k], channels=ch)
        out[f"png_{k}_u16"] = tf.image.decode_png(FILES[k], dtype=tf.uint16)
    for k in ("bmp24", "bmp32", "bmp24_topdown"):
        out[k] = tf.image.decode_bmp(FILES[k])
    out["gif"] = tf.io.decode_gif(FILES["gif"])
    out["gif_single"] = tf.image.decode_gif(FILES["gif_single"])
    out["image_png"] = tf.image.decode_image(FILES["rgba8"])
    out["image_png16_float"] = tf.image.decode_image(FILES["rgb16"], dtype=tf.float32)
    out["image_png_u16"] = tf.image.decode_image(FILES["gray8"], dtype=tf.uint16)
    out["image_gif"] = tf.io.decode_image(FILES["gif"])
    out["image_gif_first"] = tf.io.decode_image(FILES["gif"], expand_animations=False)
    out["image_bmp_float"] = tf.image.decode_image(FILES["bmp24"], dtype=tf.float32)
    out["image_bmp_int16"] = tf.image.decode_image(FILES["bmp24"], dtype=tf.int16)
    out["png_roundtrip"] = tf.image.decode_png(tf.image.encode_png(IMG8))
    out["png_roundtrip16"] = tf.image.decode_png(tf.io.encode_png(tf.constant(IMG8[..., :2].astype(np.uint16) * 250)),
                                                 dtype=tf.uint16)
    out["is_jpeg"] = tf.stack([tf.image.is_jpeg(FILES["jpeg_rgb"]), tf.io.is_jpeg(FILES["rgb8"])])
    return out


def jpeg_cases(tf):
    out = {
        "jpeg_rgb": tf.image.decode_jpeg(FILES["jpeg_rgb"]),
        "jpeg_rgb_gray": tf.image.decode_jpeg(FILES["jpeg_rgb"], channels=1),
        "jpeg_gray": tf.io.decode_jpeg(FILES["jpeg_gray"]),
        "jpeg_gray_rgb": tf.image.decode_jpeg(FILES["jpeg_gray"], channels=3),
        "jpeg_ratio2": tf.image.decode_jpeg(FILES["jpeg_rgb"], ratio=2),
        "jpeg_crop": tf.image.decode_and_crop_jpeg(FILES["jpeg_rgb"], [3, 4, 6, 10]),
        "jpeg_shape": tf.image.extract_jpeg_shape(FILES["jpeg_rgb"]),
        "jpeg_shape_gray": tf.io.extract_jpeg_shape(FILES["jpeg_gray"], output_type=tf.int64),
        "image_jpeg": tf.image.decode_image(FILES["jpeg_rgb"]),
        "jpeg_roundtrip": tf.image.decode_jpeg(tf.image.encode_jpeg(tf.image.decode_jpeg(FILES["jpeg_rgb"]),
                                                                    quality=100)),
        "adjust_jpeg_quality": tf.image.adjust_jpeg_quality(tf.image.decode_jpeg(FILES["jpeg_rgb"]), 100),
    }
    return out


NAMES_DIFFER = set()
TOLERANCE = {}


EXPECTED = {
    'png_rgb8_c0': ('DecodePng:0', [None, None, None], 'uint8', [5, 6, 3],
        [10, 20, 30, 91, 81, 183, 13, 76, 161, 71, 82, 24, 109, 92, 176, 253, 160, 45, 236, 125, 132, 77, 77, 77,
         74, 37, 245, 231, 212, 81, 91, 152, 248, 145, 67, 70, 171, 114, 242, 192, 125, 79, 96, 23, 155, 70, 89,
         107, 138, 185, 27, 44, 245, 142, 7, 183, 79, 192, 168, 240, 27, 248, 223, 133, 181, 71, 178, 227, 187, 1,
         240, 131, 136, 215, 209, 68, 72, 114, 160, 78, 19, 153, 117, 90, 166, 187, 17, 43, 18, 253]),
    'png_rgb8_c1': ('DecodePng_1:0', [None, None, 1], 'uint8', [5, 6, 1],
        [18, 95, 66, 72, 106, 174, 158, 77, 71, 202, 144, 90, 145, 139, 59, 85, 152, 173, 118, 183, 179, 154, 207,
         156, 190, 75, 95, 124, 161, 52]),
    'png_rgb8_c3': ('DecodePng_2:0', [None, None, 3], 'uint8', [5, 6, 3],
        [10, 20, 30, 91, 81, 183, 13, 76, 161, 71, 82, 24, 109, 92, 176, 253, 160, 45, 236, 125, 132, 77, 77, 77,
         74, 37, 245, 231, 212, 81, 91, 152, 248, 145, 67, 70, 171, 114, 242, 192, 125, 79, 96, 23, 155, 70, 89,
         107, 138, 185, 27, 44, 245, 142, 7, 183, 79, 192, 168, 240, 27, 248, 223, 133, 181, 71, 178, 227, 187, 1,
         240, 131, 136, 215, 209, 68, 72, 114, 160, 78, 19, 153, 117, 90, 166, 187, 17, 43, 18, 253]),
    'png_rgb8_c4': ('DecodePng_3:0', [None, None, 4], 'uint8', [5, 6, 4],
        [10, 20, 30, 255, 91, 81, 183, 255, 13, 76, 161, 255, 71, 82, 24, 255, 109, 92, 176, 255, 253, 160, 45, 255,
         236, 125, 132, 255, 77, 77, 77, 255, 74, 37, 245, 255, 231, 212, 81, 255, 91, 152, 248, 255, 145, 67, 70,
         255, 171, 114, 242, 255, 192, 125, 79, 255, 96, 23, 155, 255, 70, 89, 107, 255, 138, 185, 27, 255, 44, 245,
         142, 255, 7, 183, 79, 255, 192, 168, 240, 255, 27, 248, 223, 255, 133, 181, 71, 255, 178, 227, 187, 255, 1,
         240, 131, 255, 136, 215, 209, 255, 68, 72, 114, 255, 160, 78, 19, 255, 153, 117, 90, 255, 166, 187, 17,
         255, 43, 18, 253, 255]),
    'png_rgb8_u16': ('DecodePng_4:0', [None, None, None], 'uint16', [5, 6, 3],
        [2570, 5140, 7710, 23387, 20817, 47031, 3341, 19532, 41377, 18247, 21074, 6168, 28013, 23644, 45232, 65021,
         41120, 11565, 60652, 32125, 33924, 19789, 19789, 19789, 19018, 9509, 62965, 59367, 54484, 20817, 23387,
         39064, 63736, 37265, 17219, 17990, 43947, 29298, 62194, 49344, 32125, 20303, 24672, 5911, 39835, 17990,
         22873, 27499, 35466, 47545, 6939, 11308, 62965, 36494, 1799, 47031, 20303, 49344, 43176, 61680, 6939,
         63736, 57311, 34181, 46517, 18247, 45746, 58339, 48059, 257, 61680, 33667, 34952, 55255, 53713, 17476,
         18504, 29298, 41120, 20046, 4883, 39321, 30069, 23130, 42662, 48059, 4369, 11051, 4626, 65021]),
    'png_rgba8_c0': ('DecodePng_5:0', [None, None, None], 'uint8', [5, 6, 4],
        [48, 138, 47, 110, 160, 172, 40, 8, 196, 161, 129, 223, 105, 124, 75, 162, 72, 19, 224, 84, 50, 82, 187,
         237, 72, 38, 167, 34, 119, 118, 31, 244, 118, 100, 132, 156, 141, 185, 65, 252, 90, 213, 118, 148, 106,
         145, 111, 209, 190, 132, 74, 238, 167, 163, 149, 195, 163, 209, 6, 124, 104, 241, 58, 65, 167, 100, 200, 5,
         37, 91, 93, 252, 178, 125, 111, 213, 215, 10, 64, 177, 208, 117, 215, 43, 140, 132, 250, 118, 34, 132, 236,
         162, 156, 87, 17, 241, 213, 172, 225, 179, 35, 78, 254, 194, 147, 147, 210, 176, 249, 107, 94, 242, 179,
         15, 32, 152, 43, 19, 215, 50]),
    'png_rgba8_c1': ('DecodePng_6:0', [None, None, 1], 'uint8', [5, 6, 1],
        [100, 153, 167, 112, 58, 84, 62, 108, 109, 158, 165, 129, 142, 162, 172, 179, 131, 75, 139, 77, 155, 147,
         114, 99, 190, 85, 154, 147, 65, 48]),
    'png_rgba8_c3': ('DecodePng_7:0', [None, None, 3], 'uint8', [5, 6, 3],
        [48, 138, 47, 160, 172, 40, 196, 161, 129, 105, 124, 75, 72, 19, 224, 50, 82, 187, 72, 38, 167, 119, 118,
         31, 118, 100, 132, 141, 185, 65, 90, 213, 118, 106, 145, 111, 190, 132, 74, 167, 163, 149, 163, 209, 6,
         104, 241, 58, 167, 100, 200, 37, 91, 93, 178, 125, 111, 215, 10, 64, 208, 117, 215, 140, 132, 250, 34, 132,
         236, 156, 87, 17, 213, 172, 225, 35, 78, 254, 147, 147, 210, 249, 107, 94, 179, 15, 32, 43, 19, 215]),
    'png_rgba8_c4': ('DecodePng_8:0', [None, None, 4], 'uint8', [5, 6, 4],
        [48, 138, 47, 110, 160, 172, 40, 8, 196, 161, 129, 223, 105, 124, 75, 162, 72, 19, 224, 84, 50, 82, 187,
         237, 72, 38, 167, 34, 119, 118, 31, 244, 118, 100, 132, 156, 141, 185, 65, 252, 90, 213, 118, 148, 106,
         145, 111, 209, 190, 132, 74, 238, 167, 163, 149, 195, 163, 209, 6, 124, 104, 241, 58, 65, 167, 100, 200, 5,
         37, 91, 93, 252, 178, 125, 111, 213, 215, 10, 64, 177, 208, 117, 215, 43, 140, 132, 250, 118, 34, 132, 236,
         162, 156, 87, 17, 241, 213, 172, 225, 179, 35, 78, 254, 194, 147, 147, 210, 176, 249, 107, 94, 242, 179,
         15, 32, 152, 43, 19, 215, 50]),
    'png_rgba8_u16': ('DecodePng_9:0', [None, None, None], 'uint16', [5, 6, 4],
        [12336, 35466, 12079, 28270, 41120, 44204, 10280, 2056, 50372, 41377, 33153, 57311, 26985, 31868, 19275,
         41634, 18504, 4883, 57568, 21588, 12850, 21074, 48059, 60909, 18504, 9766, 42919, 8738, 30583, 30326, 7967,
         62708, 30326, 25700, 33924, 40092, 36237, 47545, 16705, 64764, 23130, 54741, 30326, 38036, 27242, 37265,
         28527, 53713, 48830, 33924, 19018, 61166, 42919, 41891, 38293, 50115, 41891, 53713, 1542, 31868, 26728,
         61937, 14906, 16705, 42919, 25700, 51400, 1285, 9509, 23387, 23901, 64764, 45746, 32125, 28527, 54741,
         55255, 2570, 16448, 45489, 53456, 30069, 55255, 11051, 35980, 33924, 64250, 30326, 8738, 33924, 60652,
         41634, 40092, 22359, 4369, 61937, 54741, 44204, 57825, 46003, 8995, 20046, 65278, 49858, 37779, 37779,
         53970, 45232, 63993, 27499, 24158, 62194, 46003, 3855, 8224, 39064, 11051, 4883, 55255, 12850]),
    'png_gray8_c0': ('DecodePng_10:0', [None, None, None], 'uint8', [5, 6, 1],
        [73, 7, 141, 162, 76, 255, 125, 237, 114, 246, 219, 185, 42, 42, 187, 17, 127, 81, 204, 118, 203, 213, 43,
         222, 241, 248, 209, 91, 56, 166]),
    'png_gray8_c1': ('DecodePng_11:0', [None, None, 1], 'uint8', [5, 6, 1],
        [73, 7, 141, 162, 76, 255, 125, 237, 114, 246, 219, 185, 42, 42, 187, 17, 127, 81, 204, 118, 203, 213, 43,
         222, 241, 248, 209, 91, 56, 166]),
    'png_gray8_c3': ('DecodePng_12:0', [None, None, 3], 'uint8', [5, 6, 3],
        [73, 73, 73, 7, 7, 7, 141, 141, 141, 162, 162, 162, 76, 76, 76, 255, 255, 255, 125, 125, 125, 237, 237, 237,
         114, 114, 114, 246, 246, 246, 219, 219, 219, 185, 185, 185, 42, 42, 42, 42, 42, 42, 187, 187, 187, 17, 17,
         17, 127, 127, 127, 81, 81, 81, 204, 204, 204, 118, 118, 118, 203, 203, 203, 213, 213, 213, 43, 43, 43, 222,
         222, 222, 241, 241, 241, 248, 248, 248, 209, 209, 209, 91, 91, 91, 56, 56, 56, 166, 166, 166]),
    'png_gray8_c4': ('DecodePng_13:0', [None, None, 4], 'uint8', [5, 6, 4],
        [73, 73, 73, 255, 7, 7, 7, 255, 141, 141, 141, 255, 162, 162, 162, 255, 76, 76, 76, 255, 255, 255, 255, 255,
         125, 125, 125, 255, 237, 237, 237, 255, 114, 114, 114, 255, 246, 246, 246, 255, 219, 219, 219, 255, 185,
         185, 185, 255, 42, 42, 42, 255, 42, 42, 42, 255, 187, 187, 187, 255, 17, 17, 17, 255, 127, 127, 127, 255,
         81, 81, 81, 255, 204, 204, 204, 255, 118, 118, 118, 255, 203, 203, 203, 255, 213, 213, 213, 255, 43, 43,
         43, 255, 222, 222, 222, 255, 241, 241, 241, 255, 248, 248, 248, 255, 209, 209, 209, 255, 91, 91, 91, 255,
         56, 56, 56, 255, 166, 166, 166, 255]),
    'png_gray8_u16': ('DecodePng_14:0', [None, None, None], 'uint16', [5, 6, 1],
        [18761, 1799, 36237, 41634, 19532, 65535, 32125, 60909, 29298, 63222, 56283, 47545, 10794, 10794, 48059,
         4369, 32639, 20817, 52428, 30326, 52171, 54741, 11051, 57054, 61937, 63736, 53713, 23387, 14392, 42662]),
    'png_ga8_c0': ('DecodePng_15:0', [None, None, None], 'uint8', [5, 6, 2],
        [252, 210, 246, 129, 158, 166, 30, 120, 201, 218, 114, 46, 111, 47, 89, 221, 59, 227, 84, 57, 27, 4, 5, 211,
         193, 170, 108, 121, 213, 249, 248, 217, 245, 226, 0, 7, 193, 80, 176, 127, 206, 177, 194, 66, 185, 63, 220,
         122, 246, 35, 33, 235, 138, 43, 48, 126, 0, 33, 215, 120]),
    'png_ga8_c1': ('DecodePng_16:0', [None, None, 1], 'uint8', [5, 6, 1],
        [252, 246, 158, 30, 201, 114, 111, 89, 59, 84, 27, 5, 193, 108, 213, 248, 245, 0, 193, 176, 206, 194, 185,
         220, 246, 33, 138, 48, 0, 215]),
    'png_ga8_c3': ('DecodePng_17:0', [None, None, 3], 'uint8', [5, 6, 3],
        [252, 252, 252, 246, 246, 246, 158, 158, 158, 30, 30, 30, 201, 201, 201, 114, 114, 114, 111, 111, 111, 89,
         89, 89, 59, 59, 59, 84, 84, 84, 27, 27, 27, 5, 5, 5, 193, 193, 193, 108, 108, 108, 213, 213, 213, 248, 248,
         248, 245, 245, 245, 0, 0, 0, 193, 193, 193, 176, 176, 176, 206, 206, 206, 194, 194, 194, 185, 185, 185,
         220, 220, 220, 246, 246, 246, 33, 33, 33, 138, 138, 138, 48, 48, 48, 0, 0, 0, 215, 215, 215]),
    'png_ga8_c4': ('DecodePng_18:0', [None, None, 4], 'uint8', [5, 6, 4],
        [252, 252, 252, 210, 246, 246, 246, 129, 158, 158, 158, 166, 30, 30, 30, 120, 201, 201, 201, 218, 114, 114,
         114, 46, 111, 111, 111, 47, 89, 89, 89, 221, 59, 59, 59, 227, 84, 84, 84, 57, 27, 27, 27, 4, 5, 5, 5, 211,
         193, 193, 193, 170, 108, 108, 108, 121, 213, 213, 213, 249, 248, 248, 248, 217, 245, 245, 245, 226, 0, 0,
         0, 7, 193, 193, 193, 80, 176, 176, 176, 127, 206, 206, 206, 177, 194, 194, 194, 66, 185, 185, 185, 63, 220,
         220, 220, 122, 246, 246, 246, 35, 33, 33, 33, 235, 138, 138, 138, 43, 48, 48, 48, 126, 0, 0, 0, 33, 215,
         215, 215, 120]),
    'png_ga8_u16': ('DecodePng_19:0', [None, None, None], 'uint16', [5, 6, 2],
        [64764, 53970, 63222, 33153, 40606, 42662, 7710, 30840, 51657, 56026, 29298, 11822, 28527, 12079, 22873,
         56797, 15163, 58339, 21588, 14649, 6939, 1028, 1285, 54227, 49601, 43690, 27756, 31097, 54741, 63993,
         63736, 55769, 62965, 58082, 0, 1799, 49601, 20560, 45232, 32639, 52942, 45489, 49858, 16962, 47545, 16191,
         56540, 31354, 63222, 8995, 8481, 60395, 35466, 11051, 12336, 32382, 0, 8481, 55255, 30840]),
    'png_rgb16_c0': ('DecodePng_20:0', [None, None, None], 'uint8', [5, 6, 3],
        [60, 110, 63, 249, 19, 60, 38, 41, 45, 168, 199, 239, 95, 251, 1, 186, 53, 133, 212, 144, 10, 52, 6, 12,
         108, 142, 204, 33, 128, 23, 46, 172, 73, 21, 78, 60, 6, 178, 103, 175, 174, 38, 3, 7, 11, 96, 238, 19, 167,
         123, 218, 201, 246, 95, 69, 246, 64, 151, 170, 248, 178, 184, 197, 188, 23, 66, 55, 237, 50, 226, 33, 134,
         2, 201, 130, 127, 118, 50, 165, 112, 231, 50, 45, 234, 217, 19, 110, 16, 93, 170]),
    'png_rgb16_c1': ('DecodePng_21:0', [None, None, 1], 'uint8', [5, 6, 1],
        [90, 92, 41, 194, 176, 102, 149, 20, 139, 88, 123, 59, 118, 158, 7, 171, 147, 215, 172, 173, 184, 77, 161,
         102, 133, 113, 142, 68, 89, 79]),
    'png_rgb16_c3': ('DecodePng_22:0', [None, None, 3], 'uint8', [5, 6, 3],
        [60, 110, 63, 249, 19, 60, 38, 41, 45, 168, 199, 239, 95, 251, 1, 186, 53, 133, 212, 144, 10, 52, 6, 12,
         108, 142, 204, 33, 128, 23, 46, 172, 73, 21, 78, 60, 6, 178, 103, 175, 174, 38, 3, 7, 11, 96, 238, 19, 167,
         123, 218, 201, 246, 95, 69, 246, 64, 151, 170, 248, 178, 184, 197, 188, 23, 66, 55, 237, 50, 226, 33, 134,
         2, 201, 130, 127, 118, 50, 165, 112, 231, 50, 45, 234, 217, 19, 110, 16, 93, 170]),
    'png_rgb16_c4': ('DecodePng_23:0', [None, None, 4], 'uint8', [5, 6, 4],
        [60, 110, 63, 255, 249, 19, 60, 255, 38, 41, 45, 255, 168, 199, 239, 255, 95, 251, 1, 255, 186, 53, 133,
         255, 212, 144, 10, 255, 52, 6, 12, 255, 108, 142, 204, 255, 33, 128, 23, 255, 46, 172, 73, 255, 21, 78, 60,
         255, 6, 178, 103, 255, 175, 174, 38, 255, 3, 7, 11, 255, 96, 238, 19, 255, 167, 123, 218, 255, 201, 246,
         95, 255, 69, 246, 64, 255, 151, 170, 248, 255, 178, 184, 197, 255, 188, 23, 66, 255, 55, 237, 50, 255, 226,
         33, 134, 255, 2, 201, 130, 255, 127, 118, 50, 255, 165, 112, 231, 255, 50, 45, 234, 255, 217, 19, 110, 255,
         16, 93, 170, 255]),
    'png_rgb16_u16': ('DecodePng_24:0', [None, None, None], 'uint16', [5, 6, 3],
        [15384, 28317, 16203, 63975, 4979, 15405, 9806, 10644, 11648, 43201, 50953, 61333, 24486, 64487, 478, 47847,
         13724, 34053, 54448, 37097, 2623, 13370, 1699, 3085, 27726, 36449, 52260, 8699, 32819, 5911, 11819, 44280,
         18782, 5528, 20122, 15390, 1771, 45803, 26551, 44912, 44547, 9774, 1000, 2000, 3000, 24803, 61161, 4865,
         42838, 31711, 55924, 51523, 63130, 24325, 17743, 63137, 16622, 38828, 43647, 63517, 45794, 47236, 50615,
         48279, 5983, 17101, 14188, 60784, 12916, 57871, 8630, 34529, 698, 51601, 33349, 32611, 30443, 12968, 42473,
         28906, 59198, 12822, 11630, 60068, 55711, 4949, 28347, 4146, 24038, 43627]),
    'png_gray16_c0': ('DecodePng_25:0', [None, None, None], 'uint8', [5, 6, 1],
        [236, 72, 237, 177, 30, 151, 124, 212, 113, 96, 27, 129, 166, 228, 151, 207, 125, 22, 210, 51, 171, 40, 230,
         60, 139, 220, 59, 132, 207, 89]),
    'png_gray16_c1': ('DecodePng_26:0', [None, None, 1], 'uint8', [5, 6, 1],
        [236, 72, 237, 177, 30, 151, 124, 212, 113, 96, 27, 129, 166, 228, 151, 207, 125, 22, 210, 51, 171, 40, 230,
         60, 139, 220, 59, 132, 207, 89]),
    'png_gray16_c3': ('DecodePng_27:0', [None, None, 3], 'uint8', [5, 6, 3],
        [236, 236, 236, 72, 72, 72, 237, 237, 237, 177, 177, 177, 30, 30, 30, 151, 151, 151, 124, 124, 124, 212,
         212, 212, 113, 113, 113, 96, 96, 96, 27, 27, 27, 129, 129, 129, 166, 166, 166, 228, 228, 228, 151, 151,
         151, 207, 207, 207, 125, 125, 125, 22, 22, 22, 210, 210, 210, 51, 51, 51, 171, 171, 171, 40, 40, 40, 230,
         230, 230, 60, 60, 60, 139, 139, 139, 220, 220, 220, 59, 59, 59, 132, 132, 132, 207, 207, 207, 89, 89, 89]),
    'png_gray16_c4': ('DecodePng_28:0', [None, None, 4], 'uint8', [5, 6, 4],
        [236, 236, 236, 255, 72, 72, 72, 255, 237, 237, 237, 255, 177, 177, 177, 255, 30, 30, 30, 255, 151, 151,
         151, 255, 124, 124, 124, 255, 212, 212, 212, 255, 113, 113, 113, 255, 96, 96, 96, 255, 27, 27, 27, 255,
         129, 129, 129, 255, 166, 166, 166, 255, 228, 228, 228, 255, 151, 151, 151, 255, 207, 207, 207, 255, 125,
         125, 125, 255, 22, 22, 22, 255, 210, 210, 210, 255, 51, 51, 51, 255, 171, 171, 171, 255, 40, 40, 40, 255,
         230, 230, 230, 255, 60, 60, 60, 255, 139, 139, 139, 255, 220, 220, 220, 255, 59, 59, 59, 255, 132, 132,
         132, 255, 207, 207, 207, 255, 89, 89, 89, 255]),
    'png_gray16_u16': ('DecodePng_29:0', [None, None, None], 'uint16', [5, 6, 1],
        [60640, 18521, 60867, 45518, 7837, 38681, 31941, 54323, 29110, 24758, 7019, 33041, 42733, 58596, 38658,
         53190, 32187, 5640, 53936, 13133, 43861, 10422, 59121, 15463, 35593, 56532, 15140, 33851, 53097, 22850]),
    'png_rgba16_c0': ('DecodePng_30:0', [None, None, None], 'uint8', [5, 6, 4],
        [14, 246, 239, 184, 136, 244, 141, 112, 8, 203, 80, 24, 245, 167, 61, 87, 121, 3, 186, 91, 11, 205, 95, 55,
         84, 171, 4, 172, 148, 126, 105, 65, 116, 90, 65, 156, 0, 206, 202, 34, 151, 189, 126, 18, 58, 217, 93, 33,
         93, 57, 39, 14, 187, 27, 77, 121, 159, 170, 26, 244, 70, 20, 31, 47, 254, 1, 22, 212, 64, 158, 33, 1, 121,
         135, 91, 169, 163, 220, 72, 30, 120, 37, 122, 62, 141, 31, 150, 252, 227, 76, 24, 20, 50, 202, 139, 147,
         184, 139, 16, 18, 154, 68, 86, 5, 34, 80, 29, 171, 132, 123, 136, 27, 73, 207, 228, 151, 81, 143, 255, 5]),
    'png_rgba16_c1': ('DecodePng_31:0', [None, None, 1], 'uint8', [5, 6, 1],
        [176, 200, 131, 178, 59, 134, 126, 130, 95, 144, 171, 155, 65, 81, 150, 36, 79, 116, 126, 186, 71, 77, 116,
         150, 138, 96, 60, 127, 169, 137]),
    'png_rgba16_c3': ('DecodePng_32:0', [None, None, 3], 'uint8', [5, 6, 3],
        [14, 246, 239, 136, 244, 141, 8, 203, 80, 245, 167, 61, 121, 3, 186, 11, 205, 95, 84, 171, 4, 148, 126, 105,
         116, 90, 65, 0, 206, 202, 151, 189, 126, 58, 217, 93, 93, 57, 39, 187, 27, 77, 159, 170, 26, 70, 20, 31,
         254, 1, 22, 64, 158, 33, 121, 135, 91, 163, 220, 72, 120, 37, 122, 141, 31, 150, 227, 76, 24, 50, 202, 139,
         184, 139, 16, 154, 68, 86, 34, 80, 29, 132, 123, 136, 73, 207, 228, 81, 143, 255]),
    'png_rgba16_c4': ('DecodePng_33:0', [None, None, 4], 'uint8', [5, 6, 4],
        [14, 246, 239, 184, 136, 244, 141, 112, 8, 203, 80, 24, 245, 167, 61, 87, 121, 3, 186, 91, 11, 205, 95, 55,
         84, 171, 4, 172, 148, 126, 105, 65, 116, 90, 65, 156, 0, 206, 202, 34, 151, 189, 126, 18, 58, 217, 93, 33,
         93, 57, 39, 14, 187, 27, 77, 121, 159, 170, 26, 244, 70, 20, 31, 47, 254, 1, 22, 212, 64, 158, 33, 1, 121,
         135, 91, 169, 163, 220, 72, 30, 120, 37, 122, 62, 141, 31, 150, 252, 227, 76, 24, 20, 50, 202, 139, 147,
         184, 139, 16, 18, 154, 68, 86, 5, 34, 80, 29, 171, 132, 123, 136, 27, 73, 207, 228, 151, 81, 143, 255, 5]),
    'png_rgba16_u16': ('DecodePng_34:0', [None, None, None], 'uint16', [5, 6, 4],
        [3795, 63208, 61415, 47230, 34973, 62539, 36207, 28916, 2234, 52181, 20639, 6202, 62818, 42855, 15746,
         22406, 31028, 927, 47698, 23494, 2891, 52545, 24322, 14114, 21749, 43882, 1089, 44060, 37940, 32484, 27110,
         16722, 29886, 23117, 16798, 40038, 112, 52925, 51904, 8885, 38895, 48599, 32426, 4670, 14860, 55660, 23958,
         8551, 23940, 14626, 9995, 3795, 47952, 7156, 19955, 31100, 40753, 43692, 6810, 62609, 17952, 5231, 8146,
         12112, 65171, 284, 5848, 54497, 16580, 40582, 8604, 417, 31149, 34731, 23407, 43474, 41872, 56566, 18517,
         7721, 30788, 9637, 31287, 16105, 36262, 7990, 38501, 64570, 58301, 19672, 6357, 5358, 13041, 51921, 35829,
         37843, 47342, 35692, 4113, 4764, 39655, 17420, 22251, 1351, 8712, 20539, 7557, 43898, 33925, 31609, 35067,
         7092, 18821, 53003, 58474, 38806, 20761, 36773, 65408, 1504]),
    'png_gray1_c0': ('DecodePng_35:0', [None, None, None], 'uint8', [5, 6, 1],
        [0, 0, 0, 255, 255, 0, 255, 0, 0, 255, 0, 0, 255, 255, 255, 0, 255, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255,
         0, 255]),
    'png_gray1_c1': ('DecodePng_36:0', [None, None, 1], 'uint8', [5, 6, 1],
        [0, 0, 0, 255, 255, 0, 255, 0, 0, 255, 0, 0, 255, 255, 255, 0, 255, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255,
         0, 255]),
    'png_gray1_c3': ('DecodePng_37:0', [None, None, 3], 'uint8', [5, 6, 3],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 0, 0, 0, 255, 255, 255, 0, 0, 0, 0, 0, 0, 255,
         255, 255, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 255, 255, 255, 0, 0, 0,
         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
         255, 255, 0, 0, 0, 255, 255, 255]),
    'png_gray1_c4': ('DecodePng_38:0', [None, None, 4], 'uint8', [5, 6, 4],
        [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 255, 255, 255, 1, 255, 255, 255, 1, 0, 0, 0, 1, 255, 255, 255, 1, 0, 0,
         0, 1, 0, 0, 0, 1, 255, 255, 255, 1, 0, 0, 0, 1, 0, 0, 0, 1, 255, 255, 255, 1, 255, 255, 255, 1, 255, 255,
         255, 1, 0, 0, 0, 1, 255, 255, 255, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0,
         1, 0, 0, 0, 1, 255, 255, 255, 1, 255, 255, 255, 1, 255, 255, 255, 1, 255, 255, 255, 1, 0, 0, 0, 1, 255,
         255, 255, 1]),
    'png_gray1_u16': ('DecodePng_39:0', [None, None, None], 'uint16', [5, 6, 1],
        [0, 0, 0, 65535, 65535, 0, 65535, 0, 0, 65535, 0, 0, 65535, 65535, 65535, 0, 65535, 0, 0, 0, 0, 0, 0, 0,
         65535, 65535, 65535, 65535, 0, 65535]),
    'png_gray2_c0': ('DecodePng_40:0', [None, None, None], 'uint8', [5, 6, 1],
        [170, 0, 0, 0, 85, 0, 85, 255, 255, 85, 255, 85, 255, 0, 170, 170, 85, 170, 170, 170, 85, 255, 170, 170, 85,
         85, 255, 255, 0, 255]),
    'png_gray2_c1': ('DecodePng_41:0', [None, None, 1], 'uint8', [5, 6, 1],
        [170, 0, 0, 0, 85, 0, 85, 255, 255, 85, 255, 85, 255, 0, 170, 170, 85, 170, 170, 170, 85, 255, 170, 170, 85,
         85, 255, 255, 0, 255]),
    'png_gray2_c3': ('DecodePng_42:0', [None, None, 3], 'uint8', [5, 6, 3],
        [170, 170, 170, 0, 0, 0, 0, 0, 0, 0, 0, 0, 85, 85, 85, 0, 0, 0, 85, 85, 85, 255, 255, 255, 255, 255, 255,
         85, 85, 85, 255, 255, 255, 85, 85, 85, 255, 255, 255, 0, 0, 0, 170, 170, 170, 170, 170, 170, 85, 85, 85,
         170, 170, 170, 170, 170, 170, 170, 170, 170, 85, 85, 85, 255, 255, 255, 170, 170, 170, 170, 170, 170, 85,
         85, 85, 85, 85, 85, 255, 255, 255, 255, 255, 255, 0, 0, 0, 255, 255, 255]),
    'png_gray2_c4': ('DecodePng_43:0', [None, None, 4], 'uint8', [5, 6, 4],
        [170, 170, 170, 3, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 3, 85, 85, 85, 3, 0, 0, 0, 3, 85, 85, 85, 3, 255, 255,
         255, 3, 255, 255, 255, 3, 85, 85, 85, 3, 255, 255, 255, 3, 85, 85, 85, 3, 255, 255, 255, 3, 0, 0, 0, 3,
         170, 170, 170, 3, 170, 170, 170, 3, 85, 85, 85, 3, 170, 170, 170, 3, 170, 170, 170, 3, 170, 170, 170, 3,
         85, 85, 85, 3, 255, 255, 255, 3, 170, 170, 170, 3, 170, 170, 170, 3, 85, 85, 85, 3, 85, 85, 85, 3, 255,
         255, 255, 3, 255, 255, 255, 3, 0, 0, 0, 3, 255, 255, 255, 3]),
    'png_gray2_u16': ('DecodePng_44:0', [None, None, None], 'uint16', [5, 6, 1],
        [43690, 0, 0, 0, 21845, 0, 21845, 65535, 65535, 21845, 65535, 21845, 65535, 0, 43690, 43690, 21845, 43690,
         43690, 43690, 21845, 65535, 43690, 43690, 21845, 21845, 65535, 65535, 0, 65535]),
    'png_gray4_c0': ('DecodePng_45:0', [None, None, None], 'uint8', [5, 6, 1],
        [102, 0, 119, 221, 170, 187, 204, 204, 85, 204, 187, 153, 221, 0, 34, 119, 187, 238, 187, 0, 51, 255, 85,
         187, 85, 170, 0, 102, 136, 34]),
    'png_gray4_c1': ('DecodePng_46:0', [None, None, 1], 'uint8', [5, 6, 1],
        [102, 0, 119, 221, 170, 187, 204, 204, 85, 204, 187, 153, 221, 0, 34, 119, 187, 238, 187, 0, 51, 255, 85,
         187, 85, 170, 0, 102, 136, 34]),
    'png_gray4_c3': ('DecodePng_47:0', [None, None, 3], 'uint8', [5, 6, 3],
        [102, 102, 102, 0, 0, 0, 119, 119, 119, 221, 221, 221, 170, 170, 170, 187, 187, 187, 204, 204, 204, 204,
         204, 204, 85, 85, 85, 204, 204, 204, 187, 187, 187, 153, 153, 153, 221, 221, 221, 0, 0, 0, 34, 34, 34, 119,
         119, 119, 187, 187, 187, 238, 238, 238, 187, 187, 187, 0, 0, 0, 51, 51, 51, 255, 255, 255, 85, 85, 85, 187,
         187, 187, 85, 85, 85, 170, 170, 170, 0, 0, 0, 102, 102, 102, 136, 136, 136, 34, 34, 34]),
    'png_gray4_c4': ('DecodePng_48:0', [None, None, 4], 'uint8', [5, 6, 4],
        [102, 102, 102, 15, 0, 0, 0, 15, 119, 119, 119, 15, 221, 221, 221, 15, 170, 170, 170, 15, 187, 187, 187, 15,
         204, 204, 204, 15, 204, 204, 204, 15, 85, 85, 85, 15, 204, 204, 204, 15, 187, 187, 187, 15, 153, 153, 153,
         15, 221, 221, 221, 15, 0, 0, 0, 15, 34, 34, 34, 15, 119, 119, 119, 15, 187, 187, 187, 15, 238, 238, 238,
         15, 187, 187, 187, 15, 0, 0, 0, 15, 51, 51, 51, 15, 255, 255, 255, 15, 85, 85, 85, 15, 187, 187, 187, 15,
         85, 85, 85, 15, 170, 170, 170, 15, 0, 0, 0, 15, 102, 102, 102, 15, 136, 136, 136, 15, 34, 34, 34, 15]),
    'png_gray4_u16': ('DecodePng_49:0', [None, None, None], 'uint16', [5, 6, 1],
        [26214, 0, 30583, 56797, 43690, 48059, 52428, 52428, 21845, 52428, 48059, 39321, 56797, 0, 8738, 30583,
         48059, 61166, 48059, 0, 13107, 65535, 21845, 48059, 21845, 43690, 0, 26214, 34952, 8738]),
    'png_palette_c0': ('DecodePng_50:0', [None, None, None], 'uint8', [5, 6, 3],
        [31, 94, 186, 63, 231, 14, 92, 72, 98, 112, 13, 184, 63, 231, 14, 175, 209, 159, 31, 94, 186, 112, 13, 184,
         63, 231, 14, 21, 8, 244, 21, 8, 244, 63, 231, 14, 63, 231, 14, 175, 209, 159, 63, 231, 14, 202, 77, 106,
         31, 94, 186, 21, 8, 244, 112, 13, 184, 31, 94, 186, 21, 8, 244, 63, 231, 14, 202, 77, 106, 175, 209, 159,
         63, 231, 14, 21, 8, 244, 21, 8, 244, 63, 231, 14, 92, 72, 98, 63, 231, 14]),
    'png_palette_c1': ('DecodePng_51:0', [None, None, 1], 'uint8', [5, 6, 1],
        [85, 156, 80, 62, 156, 193, 85, 62, 156, 38, 38, 156, 156, 193, 156, 117, 85, 38, 62, 85, 38, 156, 117, 193,
         156, 38, 38, 156, 80, 156]),
    'png_palette_c3': ('DecodePng_52:0', [None, None, 3], 'uint8', [5, 6, 3],
        [31, 94, 186, 63, 231, 14, 92, 72, 98, 112, 13, 184, 63, 231, 14, 175, 209, 159, 31, 94, 186, 112, 13, 184,
         63, 231, 14, 21, 8, 244, 21, 8, 244, 63, 231, 14, 63, 231, 14, 175, 209, 159, 63, 231, 14, 202, 77, 106,
         31, 94, 186, 21, 8, 244, 112, 13, 184, 31, 94, 186, 21, 8, 244, 63, 231, 14, 202, 77, 106, 175, 209, 159,
         63, 231, 14, 21, 8, 244, 21, 8, 244, 63, 231, 14, 92, 72, 98, 63, 231, 14]),
    'png_palette_c4': ('DecodePng_53:0', [None, None, 4], 'uint8', [5, 6, 4],
        [31, 94, 186, 255, 63, 231, 14, 255, 92, 72, 98, 255, 112, 13, 184, 255, 63, 231, 14, 255, 175, 209, 159,
         255, 31, 94, 186, 255, 112, 13, 184, 255, 63, 231, 14, 255, 21, 8, 244, 255, 21, 8, 244, 255, 63, 231, 14,
         255, 63, 231, 14, 255, 175, 209, 159, 255, 63, 231, 14, 255, 202, 77, 106, 255, 31, 94, 186, 255, 21, 8,
         244, 255, 112, 13, 184, 255, 31, 94, 186, 255, 21, 8, 244, 255, 63, 231, 14, 255, 202, 77, 106, 255, 175,
         209, 159, 255, 63, 231, 14, 255, 21, 8, 244, 255, 21, 8, 244, 255, 63, 231, 14, 255, 92, 72, 98, 255, 63,
         231, 14, 255]),
    'png_palette_u16': ('DecodePng_54:0', [None, None, None], 'uint16', [5, 6, 3],
        [7967, 24158, 47802, 16191, 59367, 3598, 23644, 18504, 25186, 28784, 3341, 47288, 16191, 59367, 3598, 44975,
         53713, 40863, 7967, 24158, 47802, 28784, 3341, 47288, 16191, 59367, 3598, 5397, 2056, 62708, 5397, 2056,
         62708, 16191, 59367, 3598, 16191, 59367, 3598, 44975, 53713, 40863, 16191, 59367, 3598, 51914, 19789,
         27242, 7967, 24158, 47802, 5397, 2056, 62708, 28784, 3341, 47288, 7967, 24158, 47802, 5397, 2056, 62708,
         16191, 59367, 3598, 51914, 19789, 27242, 44975, 53713, 40863, 16191, 59367, 3598, 5397, 2056, 62708, 5397,
         2056, 62708, 16191, 59367, 3598, 23644, 18504, 25186, 16191, 59367, 3598]),
    'png_palette4_c0': ('DecodePng_55:0', [None, None, None], 'uint8', [5, 6, 3],
        [31, 94, 186, 63, 231, 14, 92, 72, 98, 112, 13, 184, 63, 231, 14, 175, 209, 159, 31, 94, 186, 112, 13, 184,
         63, 231, 14, 21, 8, 244, 21, 8, 244, 63, 231, 14, 63, 231, 14, 175, 209, 159, 63, 231, 14, 202, 77, 106,
         31, 94, 186, 21, 8, 244, 112, 13, 184, 31, 94, 186, 21, 8, 244, 63, 231, 14, 202, 77, 106, 175, 209, 159,
         63, 231, 14, 21, 8, 244, 21, 8, 244, 63, 231, 14, 92, 72, 98, 63, 231, 14]),
    'png_palette4_c1': ('DecodePng_56:0', [None, None, 1], 'uint8', [5, 6, 1],
        [85, 156, 80, 62, 156, 193, 85, 62, 156, 38, 38, 156, 156, 193, 156, 117, 85, 38, 62, 85, 38, 156, 117, 193,
         156, 38, 38, 156, 80, 156]),
    'png_palette4_c3': ('DecodePng_57:0', [None, None, 3], 'uint8', [5, 6, 3],
        [31, 94, 186, 63, 231, 14, 92, 72, 98, 112, 13, 184, 63, 231, 14, 175, 209, 159, 31, 94, 186, 112, 13, 184,
         63, 231, 14, 21, 8, 244, 21, 8, 244, 63, 231, 14, 63, 231, 14, 175, 209, 159, 63, 231, 14, 202, 77, 106,
         31, 94, 186, 21, 8, 244, 112, 13, 184, 31, 94, 186, 21, 8, 244, 63, 231, 14, 202, 77, 106, 175, 209, 159,
         63, 231, 14, 21, 8, 244, 21, 8, 244, 63, 231, 14, 92, 72, 98, 63, 231, 14]),
    'png_palette4_c4': ('DecodePng_58:0', [None, None, 4], 'uint8', [5, 6, 4],
        [31, 94, 186, 15, 63, 231, 14, 15, 92, 72, 98, 15, 112, 13, 184, 15, 63, 231, 14, 15, 175, 209, 159, 15, 31,
         94, 186, 15, 112, 13, 184, 15, 63, 231, 14, 15, 21, 8, 244, 15, 21, 8, 244, 15, 63, 231, 14, 15, 63, 231,
         14, 15, 175, 209, 159, 15, 63, 231, 14, 15, 202, 77, 106, 15, 31, 94, 186, 15, 21, 8, 244, 15, 112, 13,
         184, 15, 31, 94, 186, 15, 21, 8, 244, 15, 63, 231, 14, 15, 202, 77, 106, 15, 175, 209, 159, 15, 63, 231,
         14, 15, 21, 8, 244, 15, 21, 8, 244, 15, 63, 231, 14, 15, 92, 72, 98, 15, 63, 231, 14, 15]),
    'png_palette4_u16': ('DecodePng_59:0', [None, None, None], 'uint16', [5, 6, 3],
        [7967, 24158, 47802, 16191, 59367, 3598, 23644, 18504, 25186, 28784, 3341, 47288, 16191, 59367, 3598, 44975,
         53713, 40863, 7967, 24158, 47802, 28784, 3341, 47288, 16191, 59367, 3598, 5397, 2056, 62708, 5397, 2056,
         62708, 16191, 59367, 3598, 16191, 59367, 3598, 44975, 53713, 40863, 16191, 59367, 3598, 51914, 19789,
         27242, 7967, 24158, 47802, 5397, 2056, 62708, 28784, 3341, 47288, 7967, 24158, 47802, 5397, 2056, 62708,
         16191, 59367, 3598, 51914, 19789, 27242, 44975, 53713, 40863, 16191, 59367, 3598, 5397, 2056, 62708, 5397,
         2056, 62708, 16191, 59367, 3598, 23644, 18504, 25186, 16191, 59367, 3598]),
    'png_palette_trns_c0': ('DecodePng_60:0', [None, None, None], 'uint8', [5, 6, 4],
        [31, 94, 186, 255, 63, 231, 14, 255, 92, 72, 98, 30, 112, 13, 184, 255, 63, 231, 14, 255, 175, 209, 159, 0,
         31, 94, 186, 255, 112, 13, 184, 255, 63, 231, 14, 255, 21, 8, 244, 255, 21, 8, 244, 255, 63, 231, 14, 255,
         63, 231, 14, 255, 175, 209, 159, 0, 63, 231, 14, 255, 202, 77, 106, 128, 31, 94, 186, 255, 21, 8, 244, 255,
         112, 13, 184, 255, 31, 94, 186, 255, 21, 8, 244, 255, 63, 231, 14, 255, 202, 77, 106, 128, 175, 209, 159,
         0, 63, 231, 14, 255, 21, 8, 244, 255, 21, 8, 244, 255, 63, 231, 14, 255, 92, 72, 98, 30, 63, 231, 14,
         255]),
    'png_palette_trns_c1': ('DecodePng_61:0', [None, None, 1], 'uint8', [5, 6, 1],
        [85, 156, 80, 62, 156, 193, 85, 62, 156, 38, 38, 156, 156, 193, 156, 117, 85, 38, 62, 85, 38, 156, 117, 193,
         156, 38, 38, 156, 80, 156]),
    'png_palette_trns_c3': ('DecodePng_62:0', [None, None, 3], 'uint8', [5, 6, 3],
        [31, 94, 186, 63, 231, 14, 92, 72, 98, 112, 13, 184, 63, 231, 14, 175, 209, 159, 31, 94, 186, 112, 13, 184,
         63, 231, 14, 21, 8, 244, 21, 8, 244, 63, 231, 14, 63, 231, 14, 175, 209, 159, 63, 231, 14, 202, 77, 106,
         31, 94, 186, 21, 8, 244, 112, 13, 184, 31, 94, 186, 21, 8, 244, 63, 231, 14, 202, 77, 106, 175, 209, 159,
         63, 231, 14, 21, 8, 244, 21, 8, 244, 63, 231, 14, 92, 72, 98, 63, 231, 14]),
    'png_palette_trns_c4': ('DecodePng_63:0', [None, None, 4], 'uint8', [5, 6, 4],
        [31, 94, 186, 255, 63, 231, 14, 255, 92, 72, 98, 30, 112, 13, 184, 255, 63, 231, 14, 255, 175, 209, 159, 0,
         31, 94, 186, 255, 112, 13, 184, 255, 63, 231, 14, 255, 21, 8, 244, 255, 21, 8, 244, 255, 63, 231, 14, 255,
         63, 231, 14, 255, 175, 209, 159, 0, 63, 231, 14, 255, 202, 77, 106, 128, 31, 94, 186, 255, 21, 8, 244, 255,
         112, 13, 184, 255, 31, 94, 186, 255, 21, 8, 244, 255, 63, 231, 14, 255, 202, 77, 106, 128, 175, 209, 159,
         0, 63, 231, 14, 255, 21, 8, 244, 255, 21, 8, 244, 255, 63, 231, 14, 255, 92, 72, 98, 30, 63, 231, 14,
         255]),
    'png_palette_trns_u16': ('DecodePng_64:0', [None, None, None], 'uint16', [5, 6, 4],
        [7967, 24158, 47802, 65535, 16191, 59367, 3598, 65535, 23644, 18504, 25186, 7710, 28784, 3341, 47288, 65535,
         16191, 59367, 3598, 65535, 44975, 53713, 40863, 0, 7967, 24158, 47802, 65535, 28784, 3341, 47288, 65535,
         16191, 59367, 3598, 65535, 5397, 2056, 62708, 65535, 5397, 2056, 62708, 65535, 16191, 59367, 3598, 65535,
         16191, 59367, 3598, 65535, 44975, 53713, 40863, 0, 16191, 59367, 3598, 65535, 51914, 19789, 27242, 32896,
         7967, 24158, 47802, 65535, 5397, 2056, 62708, 65535, 28784, 3341, 47288, 65535, 7967, 24158, 47802, 65535,
         5397, 2056, 62708, 65535, 16191, 59367, 3598, 65535, 51914, 19789, 27242, 32896, 44975, 53713, 40863, 0,
         16191, 59367, 3598, 65535, 5397, 2056, 62708, 65535, 5397, 2056, 62708, 65535, 16191, 59367, 3598, 65535,
         23644, 18504, 25186, 7710, 16191, 59367, 3598, 65535]),
    'png_gray_trns_c0': ('DecodePng_65:0', [None, None, None], 'uint8', [5, 6, 1],
        [73, 7, 141, 162, 76, 255, 125, 237, 114, 246, 219, 185, 42, 42, 187, 17, 127, 81, 204, 118, 203, 213, 43,
         222, 241, 248, 209, 91, 56, 166]),
    'png_gray_trns_c1': ('DecodePng_66:0', [None, None, 1], 'uint8', [5, 6, 1],
        [73, 7, 141, 162, 76, 255, 125, 237, 114, 246, 219, 185, 42, 42, 187, 17, 127, 81, 204, 118, 203, 213, 43,
         222, 241, 248, 209, 91, 56, 166]),
    'png_gray_trns_c3': ('DecodePng_67:0', [None, None, 3], 'uint8', [5, 6, 3],
        [73, 73, 73, 7, 7, 7, 141, 141, 141, 162, 162, 162, 76, 76, 76, 255, 255, 255, 125, 125, 125, 237, 237, 237,
         114, 114, 114, 246, 246, 246, 219, 219, 219, 185, 185, 185, 42, 42, 42, 42, 42, 42, 187, 187, 187, 17, 17,
         17, 127, 127, 127, 81, 81, 81, 204, 204, 204, 118, 118, 118, 203, 203, 203, 213, 213, 213, 43, 43, 43, 222,
         222, 222, 241, 241, 241, 248, 248, 248, 209, 209, 209, 91, 91, 91, 56, 56, 56, 166, 166, 166]),
    'png_gray_trns_c4': ('DecodePng_68:0', [None, None, 4], 'uint8', [5, 6, 4],
        [73, 73, 73, 0, 7, 7, 7, 255, 141, 141, 141, 255, 162, 162, 162, 255, 76, 76, 76, 255, 255, 255, 255, 255,
         125, 125, 125, 255, 237, 237, 237, 255, 114, 114, 114, 255, 246, 246, 246, 255, 219, 219, 219, 255, 185,
         185, 185, 255, 42, 42, 42, 255, 42, 42, 42, 255, 187, 187, 187, 255, 17, 17, 17, 255, 127, 127, 127, 255,
         81, 81, 81, 255, 204, 204, 204, 255, 118, 118, 118, 255, 203, 203, 203, 255, 213, 213, 213, 255, 43, 43,
         43, 255, 222, 222, 222, 255, 241, 241, 241, 255, 248, 248, 248, 255, 209, 209, 209, 255, 91, 91, 91, 255,
         56, 56, 56, 255, 166, 166, 166, 255]),
    'png_gray_trns_u16': ('DecodePng_69:0', [None, None, None], 'uint16', [5, 6, 1],
        [18761, 1799, 36237, 41634, 19532, 65535, 32125, 60909, 29298, 63222, 56283, 47545, 10794, 10794, 48059,
         4369, 32639, 20817, 52428, 30326, 52171, 54741, 11051, 57054, 61937, 63736, 53713, 23387, 14392, 42662]),
    'png_rgb_trns_c0': ('DecodePng_70:0', [None, None, None], 'uint8', [5, 6, 3],
        [10, 20, 30, 91, 81, 183, 13, 76, 161, 71, 82, 24, 109, 92, 176, 253, 160, 45, 236, 125, 132, 77, 77, 77,
         74, 37, 245, 231, 212, 81, 91, 152, 248, 145, 67, 70, 171, 114, 242, 192, 125, 79, 96, 23, 155, 70, 89,
         107, 138, 185, 27, 44, 245, 142, 7, 183, 79, 192, 168, 240, 27, 248, 223, 133, 181, 71, 178, 227, 187, 1,
         240, 131, 136, 215, 209, 68, 72, 114, 160, 78, 19, 153, 117, 90, 166, 187, 17, 43, 18, 253]),
    'png_rgb_trns_c1': ('DecodePng_71:0', [None, None, 1], 'uint8', [5, 6, 1],
        [18, 95, 66, 72, 106, 174, 158, 77, 71, 202, 144, 90, 145, 139, 59, 85, 152, 173, 118, 183, 179, 154, 207,
         156, 190, 75, 95, 124, 161, 52]),
    'png_rgb_trns_c3': ('DecodePng_72:0', [None, None, 3], 'uint8', [5, 6, 3],
        [10, 20, 30, 91, 81, 183, 13, 76, 161, 71, 82, 24, 109, 92, 176, 253, 160, 45, 236, 125, 132, 77, 77, 77,
         74, 37, 245, 231, 212, 81, 91, 152, 248, 145, 67, 70, 171, 114, 242, 192, 125, 79, 96, 23, 155, 70, 89,
         107, 138, 185, 27, 44, 245, 142, 7, 183, 79, 192, 168, 240, 27, 248, 223, 133, 181, 71, 178, 227, 187, 1,
         240, 131, 136, 215, 209, 68, 72, 114, 160, 78, 19, 153, 117, 90, 166, 187, 17, 43, 18, 253]),
    'png_rgb_trns_c4': ('DecodePng_73:0', [None, None, 4], 'uint8', [5, 6, 4],
        [10, 20, 30, 0, 91, 81, 183, 255, 13, 76, 161, 255, 71, 82, 24, 255, 109, 92, 176, 255, 253, 160, 45, 255,
         236, 125, 132, 255, 77, 77, 77, 255, 74, 37, 245, 255, 231, 212, 81, 255, 91, 152, 248, 255, 145, 67, 70,
         255, 171, 114, 242, 255, 192, 125, 79, 255, 96, 23, 155, 255, 70, 89, 107, 255, 138, 185, 27, 255, 44, 245,
         142, 255, 7, 183, 79, 255, 192, 168, 240, 255, 27, 248, 223, 255, 133, 181, 71, 255, 178, 227, 187, 255, 1,
         240, 131, 255, 136, 215, 209, 255, 68, 72, 114, 255, 160, 78, 19, 255, 153, 117, 90, 255, 166, 187, 17,
         255, 43, 18, 253, 255]),
    'png_rgb_trns_u16': ('DecodePng_74:0', [None, None, None], 'uint16', [5, 6, 3],
        [2570, 5140, 7710, 23387, 20817, 47031, 3341, 19532, 41377, 18247, 21074, 6168, 28013, 23644, 45232, 65021,
         41120, 11565, 60652, 32125, 33924, 19789, 19789, 19789, 19018, 9509, 62965, 59367, 54484, 20817, 23387,
         39064, 63736, 37265, 17219, 17990, 43947, 29298, 62194, 49344, 32125, 20303, 24672, 5911, 39835, 17990,
         22873, 27499, 35466, 47545, 6939, 11308, 62965, 36494, 1799, 47031, 20303, 49344, 43176, 61680, 6939,
         63736, 57311, 34181, 46517, 18247, 45746, 58339, 48059, 257, 61680, 33667, 34952, 55255, 53713, 17476,
         18504, 29298, 41120, 20046, 4883, 39321, 30069, 23130, 42662, 48059, 4369, 11051, 4626, 65021]),
    'png_rgb16_trns_c0': ('DecodePng_75:0', [None, None, None], 'uint8', [5, 6, 3],
        [60, 110, 63, 249, 19, 60, 38, 41, 45, 168, 199, 239, 95, 251, 1, 186, 53, 133, 212, 144, 10, 52, 6, 12,
         108, 142, 204, 33, 128, 23, 46, 172, 73, 21, 78, 60, 6, 178, 103, 175, 174, 38, 3, 7, 11, 96, 238, 19, 167,
         123, 218, 201, 246, 95, 69, 246, 64, 151, 170, 248, 178, 184, 197, 188, 23, 66, 55, 237, 50, 226, 33, 134,
         2, 201, 130, 127, 118, 50, 165, 112, 231, 50, 45, 234, 217, 19, 110, 16, 93, 170]),
    'png_rgb16_trns_c1': ('DecodePng_76:0', [None, None, 1], 'uint8', [5, 6, 1],
        [90, 92, 41, 194, 176, 102, 149, 20, 139, 88, 123, 59, 118, 158, 7, 171, 147, 215, 172, 173, 184, 77, 161,
         102, 133, 113, 142, 68, 89, 79]),
    'png_rgb16_trns_c3': ('DecodePng_77:0', [None, None, 3], 'uint8', [5, 6, 3],
        [60, 110, 63, 249, 19, 60, 38, 41, 45, 168, 199, 239, 95, 251, 1, 186, 53, 133, 212, 144, 10, 52, 6, 12,
         108, 142, 204, 33, 128, 23, 46, 172, 73, 21, 78, 60, 6, 178, 103, 175, 174, 38, 3, 7, 11, 96, 238, 19, 167,
         123, 218, 201, 246, 95, 69, 246, 64, 151, 170, 248, 178, 184, 197, 188, 23, 66, 55, 237, 50, 226, 33, 134,
         2, 201, 130, 127, 118, 50, 165, 112, 231, 50, 45, 234, 217, 19, 110, 16, 93, 170]),
    'png_rgb16_trns_c4': ('DecodePng_78:0', [None, None, 4], 'uint8', [5, 6, 4],
        [60, 110, 63, 255, 249, 19, 60, 255, 38, 41, 45, 255, 168, 199, 239, 255, 95, 251, 1, 255, 186, 53, 133,
         255, 212, 144, 10, 255, 52, 6, 12, 255, 108, 142, 204, 255, 33, 128, 23, 255, 46, 172, 73, 255, 21, 78, 60,
         255, 6, 178, 103, 255, 175, 174, 38, 255, 3, 7, 11, 0, 96, 238, 19, 255, 167, 123, 218, 255, 201, 246, 95,
         255, 69, 246, 64, 255, 151, 170, 248, 255, 178, 184, 197, 255, 188, 23, 66, 255, 55, 237, 50, 255, 226, 33,
         134, 255, 2, 201, 130, 255, 127, 118, 50, 255, 165, 112, 231, 255, 50, 45, 234, 255, 217, 19, 110, 255, 16,
         93, 170, 255]),
    'png_rgb16_trns_u16': ('DecodePng_79:0', [None, None, None], 'uint16', [5, 6, 3],
        [15384, 28317, 16203, 63975, 4979, 15405, 9806, 10644, 11648, 43201, 50953, 61333, 24486, 64487, 478, 47847,
         13724, 34053, 54448, 37097, 2623, 13370, 1699, 3085, 27726, 36449, 52260, 8699, 32819, 5911, 11819, 44280,
         18782, 5528, 20122, 15390, 1771, 45803, 26551, 44912, 44547, 9774, 1000, 2000, 3000, 24803, 61161, 4865,
         42838, 31711, 55924, 51523, 63130, 24325, 17743, 63137, 16622, 38828, 43647, 63517, 45794, 47236, 50615,
         48279, 5983, 17101, 14188, 60784, 12916, 57871, 8630, 34529, 698, 51601, 33349, 32611, 30443, 12968, 42473,
         28906, 59198, 12822, 11630, 60068, 55711, 4949, 28347, 4146, 24038, 43627]),
    'png_interlaced_rgb_c0': ('DecodePng_80:0', [None, None, None], 'uint8', [11, 13, 3],
        [237, 210, 10, 20, 172, 102, 13, 140, 121, 3, 10, 206, 154, 199, 91, 218, 177, 19, 132, 48, 232, 229, 194,
         112, 156, 68, 134, 204, 114, 100, 217, 67, 98, 114, 100, 38, 190, 173, 225, 195, 7, 113, 16, 64, 160, 243,
         136, 74, 130, 161, 166, 71, 156, 59, 142, 176, 239, 213, 87, 35, 13, 124, 99, 127, 103, 62, 83, 87, 188,
         229, 116, 29, 29, 102, 163, 238, 132, 14, 6, 228, 132, 228, 9, 203, 102, 203, 82, 222, 24, 59, 91, 0, 85,
         245, 194, 212, 90, 162, 139, 112, 151, 143, 45, 174, 44, 152, 47, 40, 219, 86, 52, 188, 248, 167, 251, 48,
         146, 204, 230, 27, 8, 136, 53, 106, 97, 254, 185, 23, 147, 251, 225, 141, 53, 206, 236, 123, 73, 66, 175,
         244, 58, 13, 227, 70, 136, 184, 19, 54, 199, 54, 138, 130, 122, 211, 218, 57, 160, 111, 42, 198, 164, 219,
         65, 54, 170, 115, 11, 252, 43, 180, 165, 10, 29, 222, 34, 55, 248, 184, 77, 71, 139, 31, 159, 91, 126, 211,
         111, 124, 83, 196, 181, 81, 29, 61, 63, 14, 104, 251, 79, 37, 76, 52, 131, 208, 205, 203, 68, 234, 32, 114,
         109, 204, 137, 40, 89, 75, 223, 139, 139, 4, 172, 101, 149, 220, 10, 218, 104, 20, 111, 131, 200, 58, 137,
         167, 49, 62, 207, 30, 64, 127, 155, 157, 109, 209, 174, 249, 162, 253, 12, 41, 97, 174, 81, 108, 178, 118,
         228, 218, 225, 227, 112, 56, 248, 189, 21, 161, 136, 1, 138, 161, 174, 29, 64, 85, 29, 224, 12, 231, 35,
         180, 178, 16, 150, 206, 197, 101, 10, 111, 77, 58, 156, 138, 178, 233, 249, 112, 74, 136, 234, 93, 117, 57,
         7, 208, 54, 240, 142, 49, 85, 209, 111, 238, 207, 88, 38, 70, 78, 65, 120, 167, 71, 122, 153, 125, 127,
         169, 82, 13, 12, 221, 203, 33, 171, 150, 94, 226, 110, 244, 23, 222, 236, 128, 236, 35, 81, 254, 215, 171,
         2, 236, 62, 234, 69, 78, 214, 9, 156, 10, 32, 234, 30, 186, 128, 52, 158, 154, 97, 6, 167, 254, 192, 116,
         126, 242, 107, 40, 223, 205, 125, 159, 22, 65, 30, 165, 21, 35, 33, 137, 136, 28, 143, 45, 11, 199, 240,
         226, 254, 119, 61, 169, 54, 43, 78, 41, 85, 147, 149, 192, 76, 248, 156, 206, 28, 217, 14, 7, 110, 108,
         140, 75, 151, 207, 137, 10, 8, 193, 194, 160, 54]),
    'png_interlaced_rgb_c1': ('DecodePng_81:0', [None, None, 1], 'uint8', [11, 13, 1],
        [195, 118, 99, 30, 173, 171, 94, 195, 101, 139, 115, 97, 184, 75, 60, 160, 152, 119, 173, 118, 87, 105, 97,
         139, 87, 150, 150, 96, 159, 87, 36, 211, 137, 138, 120, 77, 121, 220, 119, 199, 88, 117, 85, 223, 163, 87,
         202, 145, 150, 139, 131, 197, 117, 180, 70, 69, 137, 45, 70, 108, 77, 125, 115, 174, 51, 93, 54, 116, 188,
         101, 167, 72, 164, 113, 174, 128, 132, 116, 74, 61, 150, 193, 198, 89, 107, 193, 213, 183, 116, 99, 76, 67,
         143, 160, 188, 48, 74, 172, 148, 188, 69, 121, 80, 154, 117, 74, 141, 140, 146, 36, 99, 125, 178, 219, 100,
         221, 146, 119, 87, 48, 132, 125, 51, 201, 191, 166, 133, 55, 30, 123, 70, 226, 152, 87, 57, 153, 186, 102,
         20, 123, 182, 29, 158]),
    'png_interlaced_rgb_c3': ('DecodePng_82:0', [None, None, 3], 'uint8', [11, 13, 3],
        [237, 210, 10, 20, 172, 102, 13, 140, 121, 3, 10, 206, 154, 199, 91, 218, 177, 19, 132, 48, 232, 229, 194,
         112, 156, 68, 134, 204, 114, 100, 217, 67, 98, 114, 100, 38, 190, 173, 225, 195, 7, 113, 16, 64, 160, 243,
         136, 74, 130, 161, 166, 71, 156, 59, 142, 176, 239, 213, 87, 35, 13, 124, 99, 127, 103, 62, 83, 87, 188,
         229, 116, 29, 29, 102, 163, 238, 132, 14, 6, 228, 132, 228, 9, 203, 102, 203, 82, 222, 24, 59, 91, 0, 85,
         245, 194, 212, 90, 162, 139, 112, 151, 143, 45, 174, 44, 152, 47, 40, 219, 86, 52, 188, 248, 167, 251, 48,
         146, 204, 230, 27, 8, 136, 53, 106, 97, 254, 185, 23, 147, 251, 225, 141, 53, 206, 236, 123, 73, 66, 175,
         244, 58, 13, 227, 70, 136, 184, 19, 54, 199, 54, 138, 130, 122, 211, 218, 57, 160, 111, 42, 198, 164, 219,
         65, 54, 170, 115, 11, 252, 43, 180, 165, 10, 29, 222, 34, 55, 248, 184, 77, 71, 139, 31, 159, 91, 126, 211,
         111, 124, 83, 196, 181, 81, 29, 61, 63, 14, 104, 251, 79, 37, 76, 52, 131, 208, 205, 203, 68, 234, 32, 114,
         109, 204, 137, 40, 89, 75, 223, 139, 139, 4, 172, 101, 149, 220, 10, 218, 104, 20, 111, 131, 200, 58, 137,
         167, 49, 62, 207, 30, 64, 127, 155, 157, 109, 209, 174, 249, 162, 253, 12, 41, 97, 174, 81, 108, 178, 118,
         228, 218, 225, 227, 112, 56, 248, 189, 21, 161, 136, 1, 138, 161, 174, 29, 64, 85, 29, 224, 12, 231, 35,
         180, 178, 16, 150, 206, 197, 101, 10, 111, 77, 58, 156, 138, 178, 233, 249, 112, 74, 136, 234, 93, 117, 57,
         7, 208, 54, 240, 142, 49, 85, 209, 111, 238, 207, 88, 38, 70, 78, 65, 120, 167, 71, 122, 153, 125, 127,
         169, 82, 13, 12, 221, 203, 33, 171, 150, 94, 226, 110, 244, 23, 222, 236, 128, 236, 35, 81, 254, 215, 171,
         2, 236, 62, 234, 69, 78, 214, 9, 156, 10, 32, 234, 30, 186, 128, 52, 158, 154, 97, 6, 167, 254, 192, 116,
         126, 242, 107, 40, 223, 205, 125, 159, 22, 65, 30, 165, 21, 35, 33, 137, 136, 28, 143, 45, 11, 199, 240,
         226, 254, 119, 61, 169, 54, 43, 78, 41, 85, 147, 149, 192, 76, 248, 156, 206, 28, 217, 14, 7, 110, 108,
         140, 75, 151, 207, 137, 10, 8, 193, 194, 160, 54]),
    'png_interlaced_rgb_c4': ('DecodePng_83:0', [None, None, 4], 'uint8', [11, 13, 4],
        [237, 210, 10, 255, 20, 172, 102, 255, 13, 140, 121, 255, 3, 10, 206, 255, 154, 199, 91, 255, 218, 177, 19,
         255, 132, 48, 232, 255, 229, 194, 112, 255, 156, 68, 134, 255, 204, 114, 100, 255, 217, 67, 98, 255, 114,
         100, 38, 255, 190, 173, 225, 255, 195, 7, 113, 255, 16, 64, 160, 255, 243, 136, 74, 255, 130, 161, 166,
         255, 71, 156, 59, 255, 142, 176, 239, 255, 213, 87, 35, 255, 13, 124, 99, 255, 127, 103, 62, 255, 83, 87,
         188, 255, 229, 116, 29, 255, 29, 102, 163, 255, 238, 132, 14, 255, 6, 228, 132, 255, 228, 9, 203, 255, 102,
         203, 82, 255, 222, 24, 59, 255, 91, 0, 85, 255, 245, 194, 212, 255, 90, 162, 139, 255, 112, 151, 143, 255,
         45, 174, 44, 255, 152, 47, 40, 255, 219, 86, 52, 255, 188, 248, 167, 255, 251, 48, 146, 255, 204, 230, 27,
         255, 8, 136, 53, 255, 106, 97, 254, 255, 185, 23, 147, 255, 251, 225, 141, 255, 53, 206, 236, 255, 123, 73,
         66, 255, 175, 244, 58, 255, 13, 227, 70, 255, 136, 184, 19, 255, 54, 199, 54, 255, 138, 130, 122, 255, 211,
         218, 57, 255, 160, 111, 42, 255, 198, 164, 219, 255, 65, 54, 170, 255, 115, 11, 252, 255, 43, 180, 165,
         255, 10, 29, 222, 255, 34, 55, 248, 255, 184, 77, 71, 255, 139, 31, 159, 255, 91, 126, 211, 255, 111, 124,
         83, 255, 196, 181, 81, 255, 29, 61, 63, 255, 14, 104, 251, 255, 79, 37, 76, 255, 52, 131, 208, 255, 205,
         203, 68, 255, 234, 32, 114, 255, 109, 204, 137, 255, 40, 89, 75, 255, 223, 139, 139, 255, 4, 172, 101, 255,
         149, 220, 10, 255, 218, 104, 20, 255, 111, 131, 200, 255, 58, 137, 167, 255, 49, 62, 207, 255, 30, 64, 127,
         255, 155, 157, 109, 255, 209, 174, 249, 255, 162, 253, 12, 255, 41, 97, 174, 255, 81, 108, 178, 255, 118,
         228, 218, 255, 225, 227, 112, 255, 56, 248, 189, 255, 21, 161, 136, 255, 1, 138, 161, 255, 174, 29, 64,
         255, 85, 29, 224, 255, 12, 231, 35, 255, 180, 178, 16, 255, 150, 206, 197, 255, 101, 10, 111, 255, 77, 58,
         156, 255, 138, 178, 233, 255, 249, 112, 74, 255, 136, 234, 93, 255, 117, 57, 7, 255, 208, 54, 240, 255,
         142, 49, 85, 255, 209, 111, 238, 255, 207, 88, 38, 255, 70, 78, 65, 255, 120, 167, 71, 255, 122, 153, 125,
         255, 127, 169, 82, 255, 13, 12, 221, 255, 203, 33, 171, 255, 150, 94, 226, 255, 110, 244, 23, 255, 222,
         236, 128, 255, 236, 35, 81, 255, 254, 215, 171, 255, 2, 236, 62, 255, 234, 69, 78, 255, 214, 9, 156, 255,
         10, 32, 234, 255, 30, 186, 128, 255, 52, 158, 154, 255, 97, 6, 167, 255, 254, 192, 116, 255, 126, 242, 107,
         255, 40, 223, 205, 255, 125, 159, 22, 255, 65, 30, 165, 255, 21, 35, 33, 255, 137, 136, 28, 255, 143, 45,
         11, 255, 199, 240, 226, 255, 254, 119, 61, 255, 169, 54, 43, 255, 78, 41, 85, 255, 147, 149, 192, 255, 76,
         248, 156, 255, 206, 28, 217, 255, 14, 7, 110, 255, 108, 140, 75, 255, 151, 207, 137, 255, 10, 8, 193, 255,
         194, 160, 54, 255]),
    'png_interlaced_rgb_u16': ('DecodePng_84:0', [None, None, None], 'uint16', [11, 13, 3],
        [60909, 53970, 2570, 5140, 44204, 26214, 3341, 35980, 31097, 771, 2570, 52942, 39578, 51143, 23387, 56026,
         45489, 4883, 33924, 12336, 59624, 58853, 49858, 28784, 40092, 17476, 34438, 52428, 29298, 25700, 55769,
         17219, 25186, 29298, 25700, 9766, 48830, 44461, 57825, 50115, 1799, 29041, 4112, 16448, 41120, 62451,
         34952, 19018, 33410, 41377, 42662, 18247, 40092, 15163, 36494, 45232, 61423, 54741, 22359, 8995, 3341,
         31868, 25443, 32639, 26471, 15934, 21331, 22359, 48316, 58853, 29812, 7453, 7453, 26214, 41891, 61166,
         33924, 3598, 1542, 58596, 33924, 58596, 2313, 52171, 26214, 52171, 21074, 57054, 6168, 15163, 23387, 0,
         21845, 62965, 49858, 54484, 23130, 41634, 35723, 28784, 38807, 36751, 11565, 44718, 11308, 39064, 12079,
         10280, 56283, 22102, 13364, 48316, 63736, 42919, 64507, 12336, 37522, 52428, 59110, 6939, 2056, 34952,
         13621, 27242, 24929, 65278, 47545, 5911, 37779, 64507, 57825, 36237, 13621, 52942, 60652, 31611, 18761,
         16962, 44975, 62708, 14906, 3341, 58339, 17990, 34952, 47288, 4883, 13878, 51143, 13878, 35466, 33410,
         31354, 54227, 56026, 14649, 41120, 28527, 10794, 50886, 42148, 56283, 16705, 13878, 43690, 29555, 2827,
         64764, 11051, 46260, 42405, 2570, 7453, 57054, 8738, 14135, 63736, 47288, 19789, 18247, 35723, 7967, 40863,
         23387, 32382, 54227, 28527, 31868, 21331, 50372, 46517, 20817, 7453, 15677, 16191, 3598, 26728, 64507,
         20303, 9509, 19532, 13364, 33667, 53456, 52685, 52171, 17476, 60138, 8224, 29298, 28013, 52428, 35209,
         10280, 22873, 19275, 57311, 35723, 35723, 1028, 44204, 25957, 38293, 56540, 2570, 56026, 26728, 5140,
         28527, 33667, 51400, 14906, 35209, 42919, 12593, 15934, 53199, 7710, 16448, 32639, 39835, 40349, 28013,
         53713, 44718, 63993, 41634, 65021, 3084, 10537, 24929, 44718, 20817, 27756, 45746, 30326, 58596, 56026,
         57825, 58339, 28784, 14392, 63736, 48573, 5397, 41377, 34952, 257, 35466, 41377, 44718, 7453, 16448, 21845,
         7453, 57568, 3084, 59367, 8995, 46260, 45746, 4112, 38550, 52942, 50629, 25957, 2570, 28527, 19789, 14906,
         40092, 35466, 45746, 59881, 63993, 28784, 19018, 34952, 60138, 23901, 30069, 14649, 1799, 53456, 13878,
         61680, 36494, 12593, 21845, 53713, 28527, 61166, 53199, 22616, 9766, 17990, 20046, 16705, 30840, 42919,
         18247, 31354, 39321, 32125, 32639, 43433, 21074, 3341, 3084, 56797, 52171, 8481, 43947, 38550, 24158,
         58082, 28270, 62708, 5911, 57054, 60652, 32896, 60652, 8995, 20817, 65278, 55255, 43947, 514, 60652, 15934,
         60138, 17733, 20046, 54998, 2313, 40092, 2570, 8224, 60138, 7710, 47802, 32896, 13364, 40606, 39578, 24929,
         1542, 42919, 65278, 49344, 29812, 32382, 62194, 27499, 10280, 57311, 52685, 32125, 40863, 5654, 16705,
         7710, 42405, 5397, 8995, 8481, 35209, 34952, 7196, 36751, 11565, 2827, 51143, 61680, 58082, 65278, 30583,
         15677, 43433, 13878, 11051, 20046, 10537, 21845, 37779, 38293, 49344, 19532, 63736, 40092, 52942, 7196,
         55769, 3598, 1799, 28270, 27756, 35980, 19275, 38807, 53199, 35209, 2570, 2056, 49601, 49858, 41120,
         13878]),
    'png_interlaced_gray2_c0': ('DecodePng_85:0', [None, None, None], 'uint8', [11, 13, 1],
        [85, 255, 170, 170, 85, 0, 0, 85, 85, 255, 0, 0, 0, 255, 255, 85, 85, 0, 170, 170, 255, 85, 85, 170, 255, 0,
         170, 85, 85, 170, 85, 85, 0, 255, 0, 0, 255, 255, 255, 85, 85, 170, 255, 0, 255, 85, 85, 255, 170, 255,
         255, 0, 85, 170, 255, 85, 85, 170, 170, 255, 85, 0, 85, 255, 170, 255, 85, 255, 170, 0, 85, 85, 170, 170,
         170, 0, 255, 0, 85, 0, 85, 255, 0, 255, 170, 0, 85, 170, 85, 0, 255, 255, 255, 85, 170, 170, 0, 255, 0,
         255, 170, 0, 255, 0, 85, 0, 85, 85, 255, 85, 85, 170, 0, 85, 170, 0, 255, 170, 85, 85, 255, 170, 255, 0,
         170, 0, 255, 255, 255, 255, 255, 170, 85, 255, 255, 170, 85, 85, 0, 85, 255, 85, 170]),
    'png_interlaced_gray2_c1': ('DecodePng_86:0', [None, None, 1], 'uint8', [11, 13, 1],
        [85, 255, 170, 170, 85, 0, 0, 85, 85, 255, 0, 0, 0, 255, 255, 85, 85, 0, 170, 170, 255, 85, 85, 170, 255, 0,
         170, 85, 85, 170, 85, 85, 0, 255, 0, 0, 255, 255, 255, 85, 85, 170, 255, 0, 255, 85, 85, 255, 170, 255,
         255, 0, 85, 170, 255, 85, 85, 170, 170, 255, 85, 0, 85, 255, 170, 255, 85, 255, 170, 0, 85, 85, 170, 170,
         170, 0, 255, 0, 85, 0, 85, 255, 0, 255, 170, 0, 85, 170, 85, 0, 255, 255, 255, 85, 170, 170, 0, 255, 0,
         255, 170, 0, 255, 0, 85, 0, 85, 85, 255, 85, 85, 170, 0, 85, 170, 0, 255, 170, 85, 85, 255, 170, 255, 0,
         170, 0, 255, 255, 255, 255, 255, 170, 85, 255, 255, 170, 85, 85, 0, 85, 255, 85, 170]),
    'png_interlaced_gray2_c3': ('DecodePng_87:0', [None, None, 3], 'uint8', [11, 13, 3],
        [85, 85, 85, 255, 255, 255, 170, 170, 170, 170, 170, 170, 85, 85, 85, 0, 0, 0, 0, 0, 0, 85, 85, 85, 85, 85,
         85, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 85, 85, 85, 85, 85, 85, 0, 0,
         0, 170, 170, 170, 170, 170, 170, 255, 255, 255, 85, 85, 85, 85, 85, 85, 170, 170, 170, 255, 255, 255, 0, 0,
         0, 170, 170, 170, 85, 85, 85, 85, 85, 85, 170, 170, 170, 85, 85, 85, 85, 85, 85, 0, 0, 0, 255, 255, 255, 0,
         0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 85, 85, 85, 85, 85, 85, 170, 170, 170, 255,
         255, 255, 0, 0, 0, 255, 255, 255, 85, 85, 85, 85, 85, 85, 255, 255, 255, 170, 170, 170, 255, 255, 255, 255,
         255, 255, 0, 0, 0, 85, 85, 85, 170, 170, 170, 255, 255, 255, 85, 85, 85, 85, 85, 85, 170, 170, 170, 170,
         170, 170, 255, 255, 255, 85, 85, 85, 0, 0, 0, 85, 85, 85, 255, 255, 255, 170, 170, 170, 255, 255, 255, 85,
         85, 85, 255, 255, 255, 170, 170, 170, 0, 0, 0, 85, 85, 85, 85, 85, 85, 170, 170, 170, 170, 170, 170, 170,
         170, 170, 0, 0, 0, 255, 255, 255, 0, 0, 0, 85, 85, 85, 0, 0, 0, 85, 85, 85, 255, 255, 255, 0, 0, 0, 255,
         255, 255, 170, 170, 170, 0, 0, 0, 85, 85, 85, 170, 170, 170, 85, 85, 85, 0, 0, 0, 255, 255, 255, 255, 255,
         255, 255, 255, 255, 85, 85, 85, 170, 170, 170, 170, 170, 170, 0, 0, 0, 255, 255, 255, 0, 0, 0, 255, 255,
         255, 170, 170, 170, 0, 0, 0, 255, 255, 255, 0, 0, 0, 85, 85, 85, 0, 0, 0, 85, 85, 85, 85, 85, 85, 255, 255,
         255, 85, 85, 85, 85, 85, 85, 170, 170, 170, 0, 0, 0, 85, 85, 85, 170, 170, 170, 0, 0, 0, 255, 255, 255,
         170, 170, 170, 85, 85, 85, 85, 85, 85, 255, 255, 255, 170, 170, 170, 255, 255, 255, 0, 0, 0, 170, 170, 170,
         0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 170, 170, 170, 85, 85,
         85, 255, 255, 255, 255, 255, 255, 170, 170, 170, 85, 85, 85, 85, 85, 85, 0, 0, 0, 85, 85, 85, 255, 255,
         255, 85, 85, 85, 170, 170, 170]),
    'png_interlaced_gray2_c4': ('DecodePng_88:0', [None, None, 4], 'uint8', [11, 13, 4],
        [85, 85, 85, 3, 255, 255, 255, 3, 170, 170, 170, 3, 170, 170, 170, 3, 85, 85, 85, 3, 0, 0, 0, 3, 0, 0, 0, 3,
         85, 85, 85, 3, 85, 85, 85, 3, 255, 255, 255, 3, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 3, 255, 255, 255, 3, 255,
         255, 255, 3, 85, 85, 85, 3, 85, 85, 85, 3, 0, 0, 0, 3, 170, 170, 170, 3, 170, 170, 170, 3, 255, 255, 255,
         3, 85, 85, 85, 3, 85, 85, 85, 3, 170, 170, 170, 3, 255, 255, 255, 3, 0, 0, 0, 3, 170, 170, 170, 3, 85, 85,
         85, 3, 85, 85, 85, 3, 170, 170, 170, 3, 85, 85, 85, 3, 85, 85, 85, 3, 0, 0, 0, 3, 255, 255, 255, 3, 0, 0,
         0, 3, 0, 0, 0, 3, 255, 255, 255, 3, 255, 255, 255, 3, 255, 255, 255, 3, 85, 85, 85, 3, 85, 85, 85, 3, 170,
         170, 170, 3, 255, 255, 255, 3, 0, 0, 0, 3, 255, 255, 255, 3, 85, 85, 85, 3, 85, 85, 85, 3, 255, 255, 255,
         3, 170, 170, 170, 3, 255, 255, 255, 3, 255, 255, 255, 3, 0, 0, 0, 3, 85, 85, 85, 3, 170, 170, 170, 3, 255,
         255, 255, 3, 85, 85, 85, 3, 85, 85, 85, 3, 170, 170, 170, 3, 170, 170, 170, 3, 255, 255, 255, 3, 85, 85,
         85, 3, 0, 0, 0, 3, 85, 85, 85, 3, 255, 255, 255, 3, 170, 170, 170, 3, 255, 255, 255, 3, 85, 85, 85, 3, 255,
         255, 255, 3, 170, 170, 170, 3, 0, 0, 0, 3, 85, 85, 85, 3, 85, 85, 85, 3, 170, 170, 170, 3, 170, 170, 170,
         3, 170, 170, 170, 3, 0, 0, 0, 3, 255, 255, 255, 3, 0, 0, 0, 3, 85, 85, 85, 3, 0, 0, 0, 3, 85, 85, 85, 3,
         255, 255, 255, 3, 0, 0, 0, 3, 255, 255, 255, 3, 170, 170, 170, 3, 0, 0, 0, 3, 85, 85, 85, 3, 170, 170, 170,
         3, 85, 85, 85, 3, 0, 0, 0, 3, 255, 255, 255, 3, 255, 255, 255, 3, 255, 255, 255, 3, 85, 85, 85, 3, 170,
         170, 170, 3, 170, 170, 170, 3, 0, 0, 0, 3, 255, 255, 255, 3, 0, 0, 0, 3, 255, 255, 255, 3, 170, 170, 170,
         3, 0, 0, 0, 3, 255, 255, 255, 3, 0, 0, 0, 3, 85, 85, 85, 3, 0, 0, 0, 3, 85, 85, 85, 3, 85, 85, 85, 3, 255,
         255, 255, 3, 85, 85, 85, 3, 85, 85, 85, 3, 170, 170, 170, 3, 0, 0, 0, 3, 85, 85, 85, 3, 170, 170, 170, 3,
         0, 0, 0, 3, 255, 255, 255, 3, 170, 170, 170, 3, 85, 85, 85, 3, 85, 85, 85, 3, 255, 255, 255, 3, 170, 170,
         170, 3, 255, 255, 255, 3, 0, 0, 0, 3, 170, 170, 170, 3, 0, 0, 0, 3, 255, 255, 255, 3, 255, 255, 255, 3,
         255, 255, 255, 3, 255, 255, 255, 3, 255, 255, 255, 3, 170, 170, 170, 3, 85, 85, 85, 3, 255, 255, 255, 3,
         255, 255, 255, 3, 170, 170, 170, 3, 85, 85, 85, 3, 85, 85, 85, 3, 0, 0, 0, 3, 85, 85, 85, 3, 255, 255, 255,
         3, 85, 85, 85, 3, 170, 170, 170, 3]),
    'png_interlaced_gray2_u16': ('DecodePng_89:0', [None, None, None], 'uint16', [11, 13, 1],
        [21845, 65535, 43690, 43690, 21845, 0, 0, 21845, 21845, 65535, 0, 0, 0, 65535, 65535, 21845, 21845, 0,
         43690, 43690, 65535, 21845, 21845, 43690, 65535, 0, 43690, 21845, 21845, 43690, 21845, 21845, 0, 65535, 0,
         0, 65535, 65535, 65535, 21845, 21845, 43690, 65535, 0, 65535, 21845, 21845, 65535, 43690, 65535, 65535, 0,
         21845, 43690, 65535, 21845, 21845, 43690, 43690, 65535, 21845, 0, 21845, 65535, 43690, 65535, 21845, 65535,
         43690, 0, 21845, 21845, 43690, 43690, 43690, 0, 65535, 0, 21845, 0, 21845, 65535, 0, 65535, 43690, 0,
         21845, 43690, 21845, 0, 65535, 65535, 65535, 21845, 43690, 43690, 0, 65535, 0, 65535, 43690, 0, 65535, 0,
         21845, 0, 21845, 21845, 65535, 21845, 21845, 43690, 0, 21845, 43690, 0, 65535, 43690, 21845, 21845, 65535,
         43690, 65535, 0, 43690, 0, 65535, 65535, 65535, 65535, 65535, 43690, 21845, 65535, 65535, 43690, 21845,
         21845, 0, 21845, 65535, 21845, 43690]),
    'bmp24': ('DecodeBmp:0', [None, None, None], 'uint8', [5, 6, 3],
        [10, 20, 30, 91, 81, 183, 13, 76, 161, 71, 82, 24, 109, 92, 176, 253, 160, 45, 236, 125, 132, 77, 77, 77,
         74, 37, 245, 231, 212, 81, 91, 152, 248, 145, 67, 70, 171, 114, 242, 192, 125, 79, 96, 23, 155, 70, 89,
         107, 138, 185, 27, 44, 245, 142, 7, 183, 79, 192, 168, 240, 27, 248, 223, 133, 181, 71, 178, 227, 187, 1,
         240, 131, 136, 215, 209, 68, 72, 114, 160, 78, 19, 153, 117, 90, 166, 187, 17, 43, 18, 253]),
    'bmp32': ('DecodeBmp_1:0', [None, None, None], 'uint8', [5, 6, 4],
        [48, 138, 47, 110, 160, 172, 40, 8, 196, 161, 129, 223, 105, 124, 75, 162, 72, 19, 224, 84, 50, 82, 187,
         237, 72, 38, 167, 34, 119, 118, 31, 244, 118, 100, 132, 156, 141, 185, 65, 252, 90, 213, 118, 148, 106,
         145, 111, 209, 190, 132, 74, 238, 167, 163, 149, 195, 163, 209, 6, 124, 104, 241, 58, 65, 167, 100, 200, 5,
         37, 91, 93, 252, 178, 125, 111, 213, 215, 10, 64, 177, 208, 117, 215, 43, 140, 132, 250, 118, 34, 132, 236,
         162, 156, 87, 17, 241, 213, 172, 225, 179, 35, 78, 254, 194, 147, 147, 210, 176, 249, 107, 94, 242, 179,
         15, 32, 152, 43, 19, 215, 50]),
    'bmp24_topdown': ('DecodeBmp_2:0', [None, None, None], 'uint8', [5, 6, 3],
        [10, 20, 30, 91, 81, 183, 13, 76, 161, 71, 82, 24, 109, 92, 176, 253, 160, 45, 236, 125, 132, 77, 77, 77,
         74, 37, 245, 231, 212, 81, 91, 152, 248, 145, 67, 70, 171, 114, 242, 192, 125, 79, 96, 23, 155, 70, 89,
         107, 138, 185, 27, 44, 245, 142, 7, 183, 79, 192, 168, 240, 27, 248, 223, 133, 181, 71, 178, 227, 187, 1,
         240, 131, 136, 215, 209, 68, 72, 114, 160, 78, 19, 153, 117, 90, 166, 187, 17, 43, 18, 253]),
    'gif': ('DecodeGif:0', [None, None, None, 3], 'uint8', [3, 8, 9, 3],
        [180, 75, 90, 0, 255, 0, 0, 255, 0, 60, 195, 30, 180, 75, 90, 0, 255, 0, 180, 75, 90, 0, 255, 0, 180, 75,
         90, 120, 135, 60, 60, 195, 30, 120, 135, 60, 180, 75, 90, 180, 75, 90, 0, 255, 0, 180, 75, 90, 120, 135,
         60, 180, 75, 90, 120, 135, 60, 180, 75, 90, 0, 255, 0, 250, 5, 125, 250, 5, 125, 250, 5, 125, 120, 135, 60,
         180, 75, 90, 180, 75, 90, 180, 75, 90, 0, 255, 0, 180, 75, 90, 250, 5, 125, 250, 5, 125, 250, 5, 125, 60,
         195, 30, 180, 75, 90, 120, 135, 60, 180, 75, 90, 60, 195, 30, 0, 255, 0, 250, 5, 125, 250, 5, 125, 250, 5,
         125, 120, 135, 60, 60, 195, 30, 180, 75, 90, 180, 75, 90, 0, 255, 0, 120, 135, 60, 180, 75, 90, 0, 255, 0,
         180, 75, 90, 120, 135, 60, 120, 135, 60, 180, 75, 90, 180, 75, 90, 180, 75, 90, 120, 135, 60, 180, 75, 90,
         0, 255, 0, 0, 255, 0, 120, 135, 60, 180, 75, 90, 60, 195, 30, 120, 135, 60, 120, 135, 60, 0, 255, 0, 60,
         195, 30, 60, 195, 30, 120, 135, 60, 120, 135, 60, 0, 255, 0, 60, 195, 30, 180, 75, 90, 0, 255, 0, 0, 255,
         0, 60, 195, 30, 180, 75, 90, 0, 255, 0, 180, 75, 90, 0, 255, 0, 180, 75, 90, 120, 135, 60, 60, 195, 30,
         120, 135, 60, 180, 75, 90, 180, 75, 90, 0, 255, 0, 180, 75, 90, 120, 135, 60, 180, 75, 90, 120, 135, 60,
         180, 75, 90, 0, 255, 0, 0, 255, 0, 60, 195, 30, 180, 75, 90, 120, 135, 60, 180, 75, 90, 180, 75, 90, 180,
         75, 90, 0, 255, 0, 180, 75, 90, 210, 45, 105, 210, 45, 105, 210, 45, 105, 60, 195, 30, 180, 75, 90, 120,
         135, 60, 180, 75, 90, 60, 195, 30, 0, 255, 0, 210, 45, 105, 210, 45, 105, 210, 45, 105, 120, 135, 60, 60,
         195, 30, 180, 75, 90, 180, 75, 90, 0, 255, 0, 120, 135, 60, 210, 45, 105, 210, 45, 105, 210, 45, 105, 120,
         135, 60, 120, 135, 60, 180, 75, 90, 180, 75, 90, 180, 75, 90, 120, 135, 60, 180, 75, 90, 0, 255, 0, 0, 255,
         0, 120, 135, 60, 180, 75, 90, 60, 195, 30, 120, 135, 60, 120, 135, 60, 0, 255, 0, 60, 195, 30, 60, 195, 30,
         120, 135, 60, 120, 135, 60, 0, 255, 0, 60, 195, 30, 180, 75, 90, 0, 255, 0, 0, 255, 0, 60, 195, 30, 180,
         75, 90, 0, 255, 0, 180, 75, 90, 0, 255, 0, 180, 75, 90, 120, 135, 60, 60, 195, 30, 120, 135, 60, 180, 75,
         90, 180, 75, 90, 0, 255, 0, 180, 75, 90, 120, 135, 60, 180, 75, 90, 120, 135, 60, 180, 75, 90, 0, 255, 0,
         0, 255, 0, 60, 195, 30, 180, 75, 90, 120, 135, 60, 180, 75, 90, 180, 75, 90, 180, 75, 90, 0, 255, 0, 180,
         75, 90, 60, 195, 30, 0, 255, 0, 60, 195, 30, 60, 195, 30, 180, 75, 90, 120, 135, 60, 180, 75, 90, 60, 195,
         30, 0, 255, 0, 170, 85, 85, 170, 85, 85, 170, 85, 85, 120, 135, 60, 60, 195, 30, 180, 75, 90, 180, 75, 90,
         0, 255, 0, 120, 135, 60, 170, 85, 85, 170, 85, 85, 170, 85, 85, 120, 135, 60, 120, 135, 60, 180, 75, 90,
         180, 75, 90, 180, 75, 90, 120, 135, 60, 170, 85, 85, 170, 85, 85, 170, 85, 85, 120, 135, 60, 180, 75, 90,
         60, 195, 30, 120, 135, 60, 120, 135, 60, 0, 255, 0, 60, 195, 30, 60, 195, 30, 120, 135, 60, 120, 135, 60,
         0, 255, 0, 60, 195, 30]),
    'gif_single': ('DecodeGif_1:0', [None, None, None, 3], 'uint8', [1, 8, 9, 3],
        [180, 75, 90, 0, 255, 0, 0, 255, 0, 60, 195, 30, 180, 75, 90, 0, 255, 0, 180, 75, 90, 0, 255, 0, 180, 75,
         90, 120, 135, 60, 60, 195, 30, 120, 135, 60, 180, 75, 90, 180, 75, 90, 0, 255, 0, 180, 75, 90, 120, 135,
         60, 180, 75, 90, 120, 135, 60, 180, 75, 90, 0, 255, 0, 250, 5, 125, 250, 5, 125, 250, 5, 125, 120, 135, 60,
         180, 75, 90, 180, 75, 90, 180, 75, 90, 0, 255, 0, 180, 75, 90, 250, 5, 125, 250, 5, 125, 250, 5, 125, 60,
         195, 30, 180, 75, 90, 120, 135, 60, 180, 75, 90, 60, 195, 30, 0, 255, 0, 250, 5, 125, 250, 5, 125, 250, 5,
         125, 120, 135, 60, 60, 195, 30, 180, 75, 90, 180, 75, 90, 0, 255, 0, 120, 135, 60, 180, 75, 90, 0, 255, 0,
         180, 75, 90, 120, 135, 60, 120, 135, 60, 180, 75, 90, 180, 75, 90, 180, 75, 90, 120, 135, 60, 180, 75, 90,
         0, 255, 0, 0, 255, 0, 120, 135, 60, 180, 75, 90, 60, 195, 30, 120, 135, 60, 120, 135, 60, 0, 255, 0, 60,
         195, 30, 60, 195, 30, 120, 135, 60, 120, 135, 60, 0, 255, 0, 60, 195, 30]),
    'image_png': ('decode_image/DecodeImage:0', None, 'uint8', [5, 6, 4],
        [48, 138, 47, 110, 160, 172, 40, 8, 196, 161, 129, 223, 105, 124, 75, 162, 72, 19, 224, 84, 50, 82, 187,
         237, 72, 38, 167, 34, 119, 118, 31, 244, 118, 100, 132, 156, 141, 185, 65, 252, 90, 213, 118, 148, 106,
         145, 111, 209, 190, 132, 74, 238, 167, 163, 149, 195, 163, 209, 6, 124, 104, 241, 58, 65, 167, 100, 200, 5,
         37, 91, 93, 252, 178, 125, 111, 213, 215, 10, 64, 177, 208, 117, 215, 43, 140, 132, 250, 118, 34, 132, 236,
         162, 156, 87, 17, 241, 213, 172, 225, 179, 35, 78, 254, 194, 147, 147, 210, 176, 249, 107, 94, 242, 179,
         15, 32, 152, 43, 19, 215, 50]),
    'image_png16_float': ('decode_image_1/DecodeImage:0', None, 'float32', [5, 6, 3],
        [0.23474479, 0.43208972, 0.24724193, 0.97619593, 0.07597467, 0.23506524, 0.14962997, 0.16241702, 0.17773709,
         0.659205, 0.77749294, 0.9358816, 0.3736324, 0.98400855, 0.00729381, 0.7300984, 0.20941481, 0.5196155,
         0.83082324, 0.56606394, 0.04002441, 0.20401312, 0.02592508, 0.04707408, 0.42307165, 0.55617607, 0.7974365,
         0.13273823, 0.5007858, 0.09019608, 0.18034638, 0.6756695, 0.28659496, 0.08435187, 0.30704203, 0.23483634,
         0.02702373, 0.698909, 0.40514228, 0.68531317, 0.67974365, 0.14914168, 0.01525902, 0.03051804, 0.04577707,
         0.37846953, 0.93325704, 0.07423514, 0.65366596, 0.48387885, 0.8533455, 0.78619057, 0.9633021, 0.3711757,
         0.27074084, 0.9634089, 0.25363547, 0.5924773, 0.6660105, 0.9692073, 0.69877166, 0.7207752, 0.7723354,
         0.73669034, 0.09129473, 0.26094455, 0.216495, 0.92750436, 0.19708553, 0.88305485, 0.13168536, 0.5268788,
         0.0106508, 0.7873808, 0.5088731, 0.49761197, 0.4645304, 0.197879, 0.64809644, 0.4410773, 0.90330356,
         0.19565117, 0.17746243, 0.91657895, 0.8500954, 0.0755169, 0.43254748, 0.06326391, 0.36679637, 0.6657053]),
    'image_png_u16': ('decode_image_2/DecodeImage:0', None, 'uint16', [5, 6, 1],
        [18761, 1799, 36237, 41634, 19532, 65535, 32125, 60909, 29298, 63222, 56283, 47545, 10794, 10794, 48059,
         4369, 32639, 20817, 52428, 30326, 52171, 54741, 11051, 57054, 61937, 63736, 53713, 23387, 14392, 42662]),
    'image_gif': ('decode_image_3/DecodeImage:0', None, 'uint8', [3, 8, 9, 3],
        [180, 75, 90, 0, 255, 0, 0, 255, 0, 60, 195, 30, 180, 75, 90, 0, 255, 0, 180, 75, 90, 0, 255, 0, 180, 75,
         90, 120, 135, 60, 60, 195, 30, 120, 135, 60, 180, 75, 90, 180, 75, 90, 0, 255, 0, 180, 75, 90, 120, 135,
         60, 180, 75, 90, 120, 135, 60, 180, 75, 90, 0, 255, 0, 250, 5, 125, 250, 5, 125, 250, 5, 125, 120, 135, 60,
         180, 75, 90, 180, 75, 90, 180, 75, 90, 0, 255, 0, 180, 75, 90, 250, 5, 125, 250, 5, 125, 250, 5, 125, 60,
         195, 30, 180, 75, 90, 120, 135, 60, 180, 75, 90, 60, 195, 30, 0, 255, 0, 250, 5, 125, 250, 5, 125, 250, 5,
         125, 120, 135, 60, 60, 195, 30, 180, 75, 90, 180, 75, 90, 0, 255, 0, 120, 135, 60, 180, 75, 90, 0, 255, 0,
         180, 75, 90, 120, 135, 60, 120, 135, 60, 180, 75, 90, 180, 75, 90, 180, 75, 90, 120, 135, 60, 180, 75, 90,
         0, 255, 0, 0, 255, 0, 120, 135, 60, 180, 75, 90, 60, 195, 30, 120, 135, 60, 120, 135, 60, 0, 255, 0, 60,
         195, 30, 60, 195, 30, 120, 135, 60, 120, 135, 60, 0, 255, 0, 60, 195, 30, 180, 75, 90, 0, 255, 0, 0, 255,
         0, 60, 195, 30, 180, 75, 90, 0, 255, 0, 180, 75, 90, 0, 255, 0, 180, 75, 90, 120, 135, 60, 60, 195, 30,
         120, 135, 60, 180, 75, 90, 180, 75, 90, 0, 255, 0, 180, 75, 90, 120, 135, 60, 180, 75, 90, 120, 135, 60,
         180, 75, 90, 0, 255, 0, 0, 255, 0, 60, 195, 30, 180, 75, 90, 120, 135, 60, 180, 75, 90, 180, 75, 90, 180,
         75, 90, 0, 255, 0, 180, 75, 90, 210, 45, 105, 210, 45, 105, 210, 45, 105, 60, 195, 30, 180, 75, 90, 120,
         135, 60, 180, 75, 90, 60, 195, 30, 0, 255, 0, 210, 45, 105, 210, 45, 105, 210, 45, 105, 120, 135, 60, 60,
         195, 30, 180, 75, 90, 180, 75, 90, 0, 255, 0, 120, 135, 60, 210, 45, 105, 210, 45, 105, 210, 45, 105, 120,
         135, 60, 120, 135, 60, 180, 75, 90, 180, 75, 90, 180, 75, 90, 120, 135, 60, 180, 75, 90, 0, 255, 0, 0, 255,
         0, 120, 135, 60, 180, 75, 90, 60, 195, 30, 120, 135, 60, 120, 135, 60, 0, 255, 0, 60, 195, 30, 60, 195, 30,
         120, 135, 60, 120, 135, 60, 0, 255, 0, 60, 195, 30, 180, 75, 90, 0, 255, 0, 0, 255, 0, 60, 195, 30, 180,
         75, 90, 0, 255, 0, 180, 75, 90, 0, 255, 0, 180, 75, 90, 120, 135, 60, 60, 195, 30, 120, 135, 60, 180, 75,
         90, 180, 75, 90, 0, 255, 0, 180, 75, 90, 120, 135, 60, 180, 75, 90, 120, 135, 60, 180, 75, 90, 0, 255, 0,
         0, 255, 0, 60, 195, 30, 180, 75, 90, 120, 135, 60, 180, 75, 90, 180, 75, 90, 180, 75, 90, 0, 255, 0, 180,
         75, 90, 60, 195, 30, 0, 255, 0, 60, 195, 30, 60, 195, 30, 180, 75, 90, 120, 135, 60, 180, 75, 90, 60, 195,
         30, 0, 255, 0, 170, 85, 85, 170, 85, 85, 170, 85, 85, 120, 135, 60, 60, 195, 30, 180, 75, 90, 180, 75, 90,
         0, 255, 0, 120, 135, 60, 170, 85, 85, 170, 85, 85, 170, 85, 85, 120, 135, 60, 120, 135, 60, 180, 75, 90,
         180, 75, 90, 180, 75, 90, 120, 135, 60, 170, 85, 85, 170, 85, 85, 170, 85, 85, 120, 135, 60, 180, 75, 90,
         60, 195, 30, 120, 135, 60, 120, 135, 60, 0, 255, 0, 60, 195, 30, 60, 195, 30, 120, 135, 60, 120, 135, 60,
         0, 255, 0, 60, 195, 30]),
    'image_gif_first': ('decode_image_4/DecodeImage:0', [None, None, None], 'uint8', [8, 9, 3],
        [180, 75, 90, 0, 255, 0, 0, 255, 0, 60, 195, 30, 180, 75, 90, 0, 255, 0, 180, 75, 90, 0, 255, 0, 180, 75,
         90, 120, 135, 60, 60, 195, 30, 120, 135, 60, 180, 75, 90, 180, 75, 90, 0, 255, 0, 180, 75, 90, 120, 135,
         60, 180, 75, 90, 120, 135, 60, 180, 75, 90, 0, 255, 0, 250, 5, 125, 250, 5, 125, 250, 5, 125, 120, 135, 60,
         180, 75, 90, 180, 75, 90, 180, 75, 90, 0, 255, 0, 180, 75, 90, 250, 5, 125, 250, 5, 125, 250, 5, 125, 60,
         195, 30, 180, 75, 90, 120, 135, 60, 180, 75, 90, 60, 195, 30, 0, 255, 0, 250, 5, 125, 250, 5, 125, 250, 5,
         125, 120, 135, 60, 60, 195, 30, 180, 75, 90, 180, 75, 90, 0, 255, 0, 120, 135, 60, 180, 75, 90, 0, 255, 0,
         180, 75, 90, 120, 135, 60, 120, 135, 60, 180, 75, 90, 180, 75, 90, 180, 75, 90, 120, 135, 60, 180, 75, 90,
         0, 255, 0, 0, 255, 0, 120, 135, 60, 180, 75, 90, 60, 195, 30, 120, 135, 60, 120, 135, 60, 0, 255, 0, 60,
         195, 30, 60, 195, 30, 120, 135, 60, 120, 135, 60, 0, 255, 0, 60, 195, 30]),
    'image_bmp_float': ('decode_image_5/DecodeImage:0', None, 'float32', [5, 6, 3],
        [0.03921569, 0.07843138, 0.11764707, 0.35686275, 0.31764707, 0.7176471, 0.0509804, 0.29803923, 0.6313726,
         0.2784314, 0.32156864, 0.09411766, 0.427451, 0.36078432, 0.6901961, 0.9921569, 0.627451, 0.1764706,
         0.92549026, 0.4901961, 0.5176471, 0.3019608, 0.3019608, 0.3019608, 0.2901961, 0.14509805, 0.9607844,
         0.9058824, 0.8313726, 0.31764707, 0.35686275, 0.59607846, 0.9725491, 0.5686275, 0.2627451, 0.27450982,
         0.67058825, 0.44705886, 0.9490197, 0.75294125, 0.4901961, 0.30980393, 0.37647063, 0.09019608, 0.60784316,
         0.27450982, 0.34901962, 0.41960788, 0.5411765, 0.7254902, 0.10588236, 0.17254902, 0.9607844, 0.5568628,
         0.02745098, 0.7176471, 0.30980393, 0.75294125, 0.65882355, 0.94117653, 0.10588236, 0.9725491, 0.8745099,
         0.52156866, 0.70980394, 0.2784314, 0.69803923, 0.89019614, 0.73333335, 0.00392157, 0.94117653, 0.5137255,
         0.53333336, 0.8431373, 0.8196079, 0.26666668, 0.28235295, 0.44705886, 0.627451, 0.30588236, 0.07450981,
         0.6, 0.45882356, 0.3529412, 0.6509804, 0.73333335, 0.06666667, 0.16862746, 0.07058824, 0.9921569]),
    'image_bmp_int16': ('decode_image_6/convert_image:0', None, 'int16', [5, 6, 3],
        [1280, 2560, 3840, 11648, 10368, 23424, 1664, 9728, 20608, 9088, 10496, 3072, 13952, 11776, 22528, 32384,
         20480, 5760, 30208, 16000, 16896, 9856, 9856, 9856, 9472, 4736, 31360, 29568, 27136, 10368, 11648, 19456,
         31744, 18560, 8576, 8960, 21888, 14592, 30976, 24576, 16000, 10112, 12288, 2944, 19840, 8960, 11392, 13696,
         17664, 23680, 3456, 5632, 31360, 18176, 896, 23424, 10112, 24576, 21504, 30720, 3456, 31744, 28544, 17024,
         23168, 9088, 22784, 29056, 23936, 128, 30720, 16768, 17408, 27520, 26752, 8704, 9216, 14592, 20480, 9984,
         2432, 19584, 14976, 11520, 21248, 23936, 2176, 5504, 2304, 32384]),
    'png_roundtrip': ('DecodePng_90:0', [None, None, None], 'uint8', [4, 5, 3],
        [0, 13, 26, 39, 52, 65, 78, 91, 104, 117, 130, 143, 156, 169, 182, 195, 208, 221, 234, 247, 4, 17, 30, 43,
         56, 69, 82, 95, 108, 121, 134, 147, 160, 173, 186, 199, 212, 225, 238, 251, 8, 21, 34, 47, 60, 73, 86, 99,
         112, 125, 138, 151, 164, 177, 190, 203, 216, 229, 242, 255]),
    'png_roundtrip16': ('DecodePng_91:0', [None, None, None], 'uint16', [4, 5, 2],
        [0, 3250, 9750, 13000, 19500, 22750, 29250, 32500, 39000, 42250, 48750, 52000, 58500, 61750, 4250, 7500,
         14000, 17250, 23750, 27000, 33500, 36750, 43250, 46500, 53000, 56250, 62750, 2000, 8500, 11750, 18250,
         21500, 28000, 31250, 37750, 41000, 47500, 50750, 57250, 60500]),
    'is_jpeg': ('stack:0', [2], 'bool', [2],
        [True, False]),
}


test_matches_tf = tf_case_test(cases, EXPECTED, NAMES_DIFFER, TOLERANCE)


EXPECTED_JPEG = {
    'jpeg_rgb': ('DecodeJpeg:0', [None, None, None], 'uint8', [16, 24, 3],
        [0, 40, 91, 11, 49, 98, 19, 55, 105, 26, 62, 112, 33, 73, 124, 36, 83, 129, 39, 93, 131, 48, 102, 138, 58,
         105, 149, 72, 112, 163, 92, 123, 178, 91, 123, 180, 96, 135, 192, 98, 141, 192, 110, 157, 201, 115, 160,
         202, 133, 169, 221, 132, 172, 224, 139, 187, 236, 150, 204, 204, 166, 216, 119, 157, 205, 43, 171, 212, 20,
         183, 223, 13, 13, 50, 102, 22, 59, 111, 31, 67, 117, 38, 74, 124, 44, 84, 135, 49, 93, 140, 52, 104, 144,
         61, 113, 153, 76, 123, 167, 81, 123, 173, 88, 123, 179, 106, 141, 197, 109, 146, 201, 117, 159, 209, 120,
         163, 206, 130, 172, 212, 144, 178, 216, 156, 192, 218, 159, 203, 202, 170, 218, 170, 152, 202, 79, 179,
         220, 53, 196, 225, 39, 203, 225, 29, 27, 63, 113, 36, 72, 124, 43, 78, 132, 51, 87, 139, 59, 97, 144, 64,
         105, 151, 70, 114, 163, 76, 122, 172, 85, 133, 179, 91, 137, 186, 99, 140, 194, 118, 155, 210, 120, 156,
         208, 132, 166, 214, 137, 174, 218, 154, 189, 221, 164, 193, 207, 171, 200, 170, 164, 199, 99, 168, 208, 60,
         173, 219, 48, 197, 228, 47, 226, 224, 54, 242, 225, 60, 39, 75, 125, 46, 84, 133, 50, 94, 143, 57, 101,
         150, 70, 107, 159, 79, 115, 167, 85, 122, 175, 92, 132, 184, 94, 140, 189, 104, 150, 200, 121, 162, 218,
         122, 159, 214, 134, 170, 220, 143, 179, 211, 157, 196, 203, 162, 200, 179, 177, 211, 161, 172, 207, 107,
         179, 215, 47, 190, 217, 28, 221, 229, 66, 232, 210, 73, 255, 211, 104, 148, 61, 0, 52, 86, 134, 55, 98,
         143, 49, 111, 150, 59, 118, 162, 80, 119, 178, 94, 123, 183, 101, 133, 182, 108, 142, 188, 113, 153, 204,
         119, 158, 215, 135, 166, 230, 137, 169, 228, 148, 189, 235, 155, 200, 205, 162, 211, 146, 158, 207, 90,
         169, 216, 62, 172, 220, 36, 181, 229, 21, 218, 232, 51, 255, 208, 112, 154, 34, 0, 196, 31, 29, 218, 32,
         45, 61, 99, 146, 63, 110, 154, 61, 123, 162, 70, 129, 171, 94, 131, 186, 106, 135, 191, 112, 145, 190, 118,
         155, 199, 123, 163, 214, 131, 171, 222, 144, 174, 224, 159, 192, 223, 157, 199, 195, 161, 210, 155, 161,
         211, 88, 169, 215, 47, 185, 226, 36, 205, 230, 40, 231, 229, 58, 255, 221, 103, 163, 39, 3, 195, 29, 49,
         217, 41, 90, 213, 30, 96, 67, 115, 161, 76, 123, 169, 84, 130, 180, 94, 136, 184, 109, 144, 186, 117, 150,
         191, 121, 159, 204, 127, 170, 215, 130, 177, 223, 144, 188, 225, 156, 193, 211, 169, 205, 177, 161, 206,
         105, 169, 215, 67, 176, 217, 50, 196, 226, 53, 213, 225, 65, 253, 217, 95, 156, 41, 0, 189, 25, 16, 215,
         33, 48, 192, 30, 67, 173, 70, 123, 77, 6, 66, 78, 126, 172, 88, 134, 183, 99, 138, 195, 109, 145, 197, 122,
         156, 194, 129, 163, 198, 132, 170, 215, 139, 182, 217, 150, 194, 207, 160, 204, 187, 170, 212, 162, 161,
         203, 103, 168, 214, 46, 188, 218, 32, 222, 222, 62, 241, 213, 80, 255, 209, 108, 151, 46, 0, 201, 30, 49,
         217, 26, 77, 206, 46, 92, 184, 74, 121, 58, 19, 72, 40, 39, 96, 96, 134, 181, 107, 147, 198, 111, 153, 211,
         110, 151, 205, 136, 169, 212, 145, 177, 215, 146, 177, 223, 161, 194, 209, 174, 211, 159, 148, 191, 83,
         168, 219, 66, 173, 224, 41, 186, 230, 29, 225, 227, 55, 255, 205, 106, 162, 31, 0, 193, 29, 20, 206, 28,
         50, 209, 39, 88, 186, 57, 114, 68, 11, 62, 44, 36, 87, 31, 46, 101, 32, 61, 117, 120, 151, 198, 116, 152,
         202, 115, 162, 218, 135, 182, 234, 136, 176, 211, 156, 189, 206, 169, 200, 194, 183, 213, 163, 161, 195,
         82, 176, 214, 51, 185, 226, 28, 200, 226, 29, 234, 231, 66, 255, 211, 98, 172, 34, 0, 208, 30, 42, 206, 26,
         65, 210, 49, 103, 177, 58, 116, 75, 10, 68, 37, 43, 95, 18, 60, 110, 23, 65, 115, 37, 81, 128, 132, 156,
         200, 139, 173, 219, 125, 174, 230, 137, 191, 237, 142, 193, 212, 163, 208, 175, 165, 201, 93, 171, 206, 50,
         184, 222, 51, 201, 232, 51, 218, 229, 49, 253, 222, 80, 140, 42, 0, 183, 31, 26, 216, 26, 52, 212, 37, 78,
         178, 73, 114, 62, 9, 53, 54, 32, 81, 42, 45, 96, 37, 60, 110, 36, 73, 118, 45, 87, 125, 39, 84, 117, 135,
         167, 206, 147, 183, 215, 143, 191, 211, 154, 209, 204, 169, 225, 186, 148, 199, 104, 172, 210, 37, 205,
         227, 31, 215, 217, 54, 236, 212, 76, 255, 208, 96, 152, 50, 0, 191, 35, 46, 211, 35, 84, 206, 39, 95, 183,
         62, 115, 57, 18, 62, 28, 42, 81, 28, 62, 107, 26, 67, 113, 35, 66, 113, 56, 85, 129, 49, 87, 123, 63, 107,
         136, 141, 187, 223, 155, 200, 206, 163, 206, 153, 154, 200, 101, 148, 206, 68, 177, 230, 62, 198, 234, 38,
         222, 218, 48, 255, 203, 115, 164, 36, 7, 201, 28, 34, 211, 24, 55, 212, 41, 86, 186, 53, 106, 78, 10, 61,
         50, 30, 79, 31, 48, 91, 24, 63, 104, 27, 75, 121, 38, 82, 129, 66, 89, 141, 67, 89, 138, 69, 104, 144, 68,
         112, 147, 159, 207, 183, 175, 220, 165, 170, 207, 91, 172, 208, 48, 193, 232, 51, 202, 226, 44, 237, 221,
         64, 255, 209, 102, 172, 39, 8, 196, 24, 48, 213, 28, 85, 215, 44, 114, 180, 54, 115, 84, 14, 68, 31, 29,
         76, 32, 66, 111, 28, 69, 113, 36, 83, 127, 37, 88, 135, 47, 93, 142, 66, 96, 150, 71, 96, 150, 86, 120,
         166, 82, 121, 164, 162, 199, 57, 169, 205, 53, 178, 211, 36, 203, 227, 45, 221, 228, 52, 254, 211, 80, 161,
         39, 0, 203, 34, 31, 204, 22, 34, 208, 48, 76, 165, 66, 110, 63, 10, 62, 51, 31, 84, 41, 48, 100, 34, 65,
         109, 27, 69, 111, 43, 79, 127, 49, 85, 135, 49, 89, 138, 67, 110, 161, 63, 110, 164, 77, 120, 175, 91, 126,
         180, 102, 134, 185, 184, 217, 16, 193, 226, 23, 205, 234, 32, 215, 231, 37, 246, 236, 63, 141, 67, 0, 204,
         30, 31, 237, 17, 65, 245, 37, 71, 208, 55, 85, 72, 15, 50, 39, 44, 86, 23, 56, 107, 23, 71, 120, 30, 77,
         119, 47, 90, 132, 56, 89, 140, 67, 98, 152, 77, 110, 161, 74, 115, 167, 75, 130, 186, 84, 136, 193, 97,
         132, 190, 118, 144, 201]),
    'jpeg_rgb_gray': ('DecodeJpeg_1:0', [None, None, 1], 'uint8', [16, 24, 1],
        [34, 43, 50, 57, 67, 74, 81, 90, 96, 106, 120, 120, 130, 134, 148, 151, 164, 166, 178, 188, 190, 172, 178,
         187, 45, 54, 62, 69, 78, 85, 93, 102, 114, 116, 119, 137, 141, 152, 155, 164, 172, 184, 190, 198, 173, 189,
         195, 196, 58, 67, 74, 82, 91, 98, 106, 114, 124, 129, 134, 150, 151, 161, 168, 182, 186, 188, 177, 179,
         186, 198, 205, 211, 70, 78, 86, 93, 102, 110, 117, 126, 132, 142, 156, 154, 165, 172, 185, 186, 195, 185,
         185, 187, 208, 201, 219, 76, 81, 90, 97, 105, 114, 121, 129, 137, 147, 153, 164, 166, 182, 187, 189, 179,
         184, 185, 191, 207, 215, 66, 80, 89, 93, 101, 109, 116, 126, 133, 140, 149, 157, 165, 171, 186, 186, 189,
         182, 182, 192, 201, 210, 223, 72, 81, 99, 92, 106, 114, 122, 129, 138, 145, 153, 162, 168, 179, 184, 191,
         181, 184, 186, 197, 203, 214, 69, 73, 89, 83, 107, 34, 117, 126, 133, 140, 150, 157, 164, 173, 182, 189,
         194, 179, 181, 188, 204, 206, 214, 72, 83, 89, 99, 112, 37, 46, 128, 141, 147, 145, 164, 172, 173, 186,
         194, 166, 186, 188, 194, 207, 216, 65, 77, 84, 95, 102, 34, 44, 48, 59, 147, 147, 154, 174, 168, 181, 190,
         198, 172, 184, 191, 196, 213, 215, 71, 85, 84, 103, 100, 36, 47, 53, 58, 73, 154, 168, 166, 180, 180, 191,
         178, 178, 191, 202, 205, 215, 64, 76, 86, 94, 109, 30, 44, 50, 59, 67, 79, 74, 162, 176, 179, 192, 204,
         173, 179, 198, 198, 204, 213, 73, 83, 93, 95, 104, 35, 42, 57, 60, 62, 81, 80, 97, 177, 187, 187, 175, 173,
         195, 201, 200, 214, 71, 80, 83, 97, 99, 36, 42, 48, 56, 66, 74, 88, 88, 98, 103, 190, 200, 183, 179, 200,
         198, 208, 217, 75, 78, 90, 103, 99, 41, 35, 61, 62, 74, 78, 85, 93, 95, 115, 114, 172, 177, 181, 199, 206,
         209, 70, 84, 78, 99, 101, 32, 43, 52, 61, 61, 74, 80, 83, 103, 102, 113, 122, 130, 184, 193, 202, 204, 219,
         77, 82, 88, 103, 104, 36, 47, 52, 62, 68, 82, 85, 95, 106, 109, 120, 127, 128, 143]),
    'jpeg_gray': ('DecodeJpeg_2:0', [None, None, None], 'uint8', [16, 24, 1],
        [0, 6, 15, 24, 31, 39, 49, 56, 63, 70, 80, 88, 95, 104, 113, 120, 125, 133, 145, 156, 162, 166, 182, 180,
         11, 18, 27, 36, 43, 51, 61, 68, 75, 82, 92, 100, 107, 116, 125, 132, 142, 155, 158, 155, 181, 166, 180,
         204, 24, 30, 40, 48, 56, 64, 74, 80, 88, 95, 104, 113, 120, 128, 138, 145, 149, 161, 160, 176, 183, 201,
         211, 196, 35, 42, 51, 59, 67, 75, 85, 91, 99, 106, 116, 124, 131, 140, 149, 156, 172, 164, 187, 187, 198,
         190, 213, 215, 47, 54, 64, 72, 79, 88, 97, 104, 112, 118, 128, 136, 144, 152, 162, 168, 165, 188, 191, 208,
         213, 216, 234, 232, 59, 65, 75, 83, 91, 99, 108, 115, 123, 130, 139, 147, 155, 163, 173, 179, 186, 196,
         208, 199, 211, 233, 228, 242, 71, 78, 87, 96, 103, 111, 121, 128, 136, 142, 152, 160, 168, 176, 185, 192,
         200, 208, 221, 223, 238, 247, 246, 0, 83, 90, 99, 108, 115, 124, 133, 140, 148, 154, 164, 172, 180, 188,
         197, 204, 209, 222, 222, 239, 246, 242, 5, 13, 95, 102, 112, 120, 127, 136, 145, 152, 157, 167, 176, 188,
         191, 200, 203, 215, 222, 233, 242, 246, 1, 2, 16, 24, 107, 114, 124, 132, 139, 148, 157, 164, 174, 181,
         181, 196, 195, 213, 225, 225, 233, 242, 255, 3, 2, 21, 26, 36, 120, 127, 136, 144, 152, 160, 170, 176, 181,
         194, 198, 217, 219, 223, 224, 240, 255, 0, 0, 22, 17, 30, 51, 42, 131, 138, 147, 156, 163, 172, 181, 188,
         199, 193, 212, 215, 225, 237, 237, 255, 0, 30, 19, 31, 35, 49, 39, 60, 144, 150, 160, 168, 176, 184, 193,
         200, 201, 235, 224, 233, 243, 243, 1, 4, 27, 17, 34, 34, 51, 50, 66, 74, 155, 161, 171, 179, 187, 195, 205,
         211, 230, 220, 230, 249, 241, 4, 18, 17, 27, 33, 42, 60, 56, 68, 69, 85, 167, 174, 184, 192, 199, 208, 217,
         224, 232, 239, 255, 7, 1, 21, 23, 26, 38, 59, 48, 64, 74, 79, 93, 94, 179, 186, 196, 204, 211, 220, 229,
         236, 247, 255, 6, 7, 23, 27, 31, 47, 50, 59, 69, 74, 86, 90, 96, 108]),
    'jpeg_gray_rgb': ('DecodeJpeg_3:0', [None, None, 3], 'uint8', [16, 24, 3],
        [0, 0, 0, 6, 6, 6, 15, 15, 15, 24, 24, 24, 31, 31, 31, 39, 39, 39, 49, 49, 49, 56, 56, 56, 63, 63, 63, 70,
         70, 70, 80, 80, 80, 88, 88, 88, 95, 95, 95, 104, 104, 104, 113, 113, 113, 120, 120, 120, 125, 125, 125,
         133, 133, 133, 145, 145, 145, 156, 156, 156, 162, 162, 162, 166, 166, 166, 182, 182, 182, 180, 180, 180,
         11, 11, 11, 18, 18, 18, 27, 27, 27, 36, 36, 36, 43, 43, 43, 51, 51, 51, 61, 61, 61, 68, 68, 68, 75, 75, 75,
         82, 82, 82, 92, 92, 92, 100, 100, 100, 107, 107, 107, 116, 116, 116, 125, 125, 125, 132, 132, 132, 142,
         142, 142, 155, 155, 155, 158, 158, 158, 155, 155, 155, 181, 181, 181, 166, 166, 166, 180, 180, 180, 204,
         204, 204, 24, 24, 24, 30, 30, 30, 40, 40, 40, 48, 48, 48, 56, 56, 56, 64, 64, 64, 74, 74, 74, 80, 80, 80,
         88, 88, 88, 95, 95, 95, 104, 104, 104, 113, 113, 113, 120, 120, 120, 128, 128, 128, 138, 138, 138, 145,
         145, 145, 149, 149, 149, 161, 161, 161, 160, 160, 160, 176, 176, 176, 183, 183, 183, 201, 201, 201, 211,
         211, 211, 196, 196, 196, 35, 35, 35, 42, 42, 42, 51, 51, 51, 59, 59, 59, 67, 67, 67, 75, 75, 75, 85, 85,
         85, 91, 91, 91, 99, 99, 99, 106, 106, 106, 116, 116, 116, 124, 124, 124, 131, 131, 131, 140, 140, 140, 149,
         149, 149, 156, 156, 156, 172, 172, 172, 164, 164, 164, 187, 187, 187, 187, 187, 187, 198, 198, 198, 190,
         190, 190, 213, 213, 213, 215, 215, 215, 47, 47, 47, 54, 54, 54, 64, 64, 64, 72, 72, 72, 79, 79, 79, 88, 88,
         88, 97, 97, 97, 104, 104, 104, 112, 112, 112, 118, 118, 118, 128, 128, 128, 136, 136, 136, 144, 144, 144,
         152, 152, 152, 162, 162, 162, 168, 168, 168, 165, 165, 165, 188, 188, 188, 191, 191, 191, 208, 208, 208,
         213, 213, 213, 216, 216, 216, 234, 234, 234, 232, 232, 232, 59, 59, 59, 65, 65, 65, 75, 75, 75, 83, 83, 83,
         91, 91, 91, 99, 99, 99, 108, 108, 108, 115, 115, 115, 123, 123, 123, 130, 130, 130, 139, 139, 139, 147,
         147, 147, 155, 155, 155, 163, 163, 163, 173, 173, 173, 179, 179, 179, 186, 186, 186, 196, 196, 196, 208,
         208, 208, 199, 199, 199, 211, 211, 211, 233, 233, 233, 228, 228, 228, 242, 242, 242, 71, 71, 71, 78, 78,
         78, 87, 87, 87, 96, 96, 96, 103, 103, 103, 111, 111, 111, 121, 121, 121, 128, 128, 128, 136, 136, 136, 142,
         142, 142, 152, 152, 152, 160, 160, 160, 168, 168, 168, 176, 176, 176, 185, 185, 185, 192, 192, 192, 200,
         200, 200, 208, 208, 208, 221, 221, 221, 223, 223, 223, 238, 238, 238, 247, 247, 247, 246, 246, 246, 0, 0,
         0, 83, 83, 83, 90, 90, 90, 99, 99, 99, 108, 108, 108, 115, 115, 115, 124, 124, 124, 133, 133, 133, 140,
         140, 140, 148, 148, 148, 154, 154, 154, 164, 164, 164, 172, 172, 172, 180, 180, 180, 188, 188, 188, 197,
         197, 197, 204, 204, 204, 209, 209, 209, 222, 222, 222, 222, 222, 222, 239, 239, 239, 246, 246, 246, 242,
         242, 242, 5, 5, 5, 13, 13, 13, 95, 95, 95, 102, 102, 102, 112, 112, 112, 120, 120, 120, 127, 127, 127, 136,
         136, 136, 145, 145, 145, 152, 152, 152, 157, 157, 157, 167, 167, 167, 176, 176, 176, 188, 188, 188, 191,
         191, 191, 200, 200, 200, 203, 203, 203, 215, 215, 215, 222, 222, 222, 233, 233, 233, 242, 242, 242, 246,
         246, 246, 1, 1, 1, 2, 2, 2, 16, 16, 16, 24, 24, 24, 107, 107, 107, 114, 114, 114, 124, 124, 124, 132, 132,
         132, 139, 139, 139, 148, 148, 148, 157, 157, 157, 164, 164, 164, 174, 174, 174, 181, 181, 181, 181, 181,
         181, 196, 196, 196, 195, 195, 195, 213, 213, 213, 225, 225, 225, 225, 225, 225, 233, 233, 233, 242, 242,
         242, 255, 255, 255, 3, 3, 3, 2, 2, 2, 21, 21, 21, 26, 26, 26, 36, 36, 36, 120, 120, 120, 127, 127, 127,
         136, 136, 136, 144, 144, 144, 152, 152, 152, 160, 160, 160, 170, 170, 170, 176, 176, 176, 181, 181, 181,
         194, 194, 194, 198, 198, 198, 217, 217, 217, 219, 219, 219, 223, 223, 223, 224, 224, 224, 240, 240, 240,
         255, 255, 255, 0, 0, 0, 0, 0, 0, 22, 22, 22, 17, 17, 17, 30, 30, 30, 51, 51, 51, 42, 42, 42, 131, 131, 131,
         138, 138, 138, 147, 147, 147, 156, 156, 156, 163, 163, 163, 172, 172, 172, 181, 181, 181, 188, 188, 188,
         199, 199, 199, 193, 193, 193, 212, 212, 212, 215, 215, 215, 225, 225, 225, 237, 237, 237, 237, 237, 237,
         255, 255, 255, 0, 0, 0, 30, 30, 30, 19, 19, 19, 31, 31, 31, 35, 35, 35, 49, 49, 49, 39, 39, 39, 60, 60, 60,
         144, 144, 144, 150, 150, 150, 160, 160, 160, 168, 168, 168, 176, 176, 176, 184, 184, 184, 193, 193, 193,
         200, 200, 200, 201, 201, 201, 235, 235, 235, 224, 224, 224, 233, 233, 233, 243, 243, 243, 243, 243, 243, 1,
         1, 1, 4, 4, 4, 27, 27, 27, 17, 17, 17, 34, 34, 34, 34, 34, 34, 51, 51, 51, 50, 50, 50, 66, 66, 66, 74, 74,
         74, 155, 155, 155, 161, 161, 161, 171, 171, 171, 179, 179, 179, 187, 187, 187, 195, 195, 195, 205, 205,
         205, 211, 211, 211, 230, 230, 230, 220, 220, 220, 230, 230, 230, 249, 249, 249, 241, 241, 241, 4, 4, 4, 18,
         18, 18, 17, 17, 17, 27, 27, 27, 33, 33, 33, 42, 42, 42, 60, 60, 60, 56, 56, 56, 68, 68, 68, 69, 69, 69, 85,
         85, 85, 167, 167, 167, 174, 174, 174, 184, 184, 184, 192, 192, 192, 199, 199, 199, 208, 208, 208, 217, 217,
         217, 224, 224, 224, 232, 232, 232, 239, 239, 239, 255, 255, 255, 7, 7, 7, 1, 1, 1, 21, 21, 21, 23, 23, 23,
         26, 26, 26, 38, 38, 38, 59, 59, 59, 48, 48, 48, 64, 64, 64, 74, 74, 74, 79, 79, 79, 93, 93, 93, 94, 94, 94,
         179, 179, 179, 186, 186, 186, 196, 196, 196, 204, 204, 204, 211, 211, 211, 220, 220, 220, 229, 229, 229,
         236, 236, 236, 247, 247, 247, 255, 255, 255, 6, 6, 6, 7, 7, 7, 23, 23, 23, 27, 27, 27, 31, 31, 31, 47, 47,
         47, 50, 50, 50, 59, 59, 59, 69, 69, 69, 74, 74, 74, 86, 86, 86, 90, 90, 90, 96, 96, 96, 108, 108, 108]),
    'jpeg_ratio2': ('DecodeJpeg_4:0', [None, None, None], 'uint8', [8, 12, 3],
        [10, 50, 101, 31, 65, 113, 41, 82, 134, 47, 106, 138, 73, 115, 163, 97, 126, 184, 104, 147, 202, 117, 165,
         205, 143, 176, 230, 146, 200, 247, 164, 213, 69, 187, 227, 17, 37, 73, 123, 53, 88, 144, 69, 108, 151, 81,
         121, 180, 91, 142, 185, 113, 155, 213, 136, 167, 214, 151, 186, 228, 172, 198, 185, 184, 214, 20, 188, 236,
         38, 220, 183, 33, 63, 97, 145, 47, 128, 157, 99, 123, 197, 115, 145, 183, 121, 162, 218, 148, 171, 239,
         147, 197, 234, 163, 217, 71, 177, 232, 7, 195, 251, 20, 211, 67, 59, 248, 11, 79, 74, 127, 171, 103, 135,
         194, 121, 155, 183, 126, 172, 221, 141, 190, 233, 164, 200, 188, 173, 221, 25, 196, 231, 41, 202, 188, 57,
         230, 6, 56, 237, 28, 68, 61, 43, 101, 111, 145, 193, 115, 164, 223, 148, 178, 216, 164, 191, 238, 171, 206,
         78, 174, 236, 5, 205, 244, 31, 225, 63, 42, 248, 11, 67, 179, 33, 98, 8, 51, 102, 23, 66, 121, 144, 167,
         208, 131, 191, 251, 150, 205, 199, 184, 218, 7, 193, 235, 39, 208, 191, 26, 208, 18, 62, 246, 20, 83, 59,
         47, 83, 20, 61, 107, 41, 72, 119, 49, 93, 120, 147, 201, 235, 171, 206, 76, 170, 235, 31, 212, 238, 27,
         217, 64, 66, 255, 3, 89, 186, 31, 88, 20, 47, 94, 22, 71, 112, 30, 88, 134, 79, 88, 143, 74, 118, 157, 182,
         215, 14, 201, 230, 26, 213, 189, 27, 232, 7, 63, 234, 32, 58, 55, 47, 86, 14, 61, 115, 29, 77, 115, 57, 87,
         141, 69, 105, 155, 67, 128, 185, 107, 133, 190]),
    'jpeg_crop': ('DecodeAndCropJpeg:0', [6, 10, None], 'uint8', [6, 10, 3],
        [70, 107, 159, 79, 115, 167, 85, 122, 175, 92, 132, 184, 94, 140, 189, 104, 150, 200, 121, 162, 218, 122,
         159, 214, 134, 170, 220, 143, 177, 222, 80, 119, 178, 94, 123, 183, 101, 133, 182, 108, 142, 188, 113, 153,
         204, 119, 158, 215, 135, 166, 230, 137, 169, 228, 148, 189, 235, 151, 196, 235, 94, 131, 186, 106, 135,
         191, 112, 145, 190, 118, 155, 199, 123, 163, 214, 131, 171, 222, 144, 174, 224, 159, 192, 223, 157, 199,
         195, 157, 206, 185, 109, 144, 186, 117, 150, 191, 121, 159, 204, 127, 170, 215, 130, 177, 223, 144, 188,
         225, 156, 193, 211, 169, 205, 177, 161, 206, 105, 166, 214, 76, 122, 156, 194, 129, 163, 198, 132, 170,
         215, 139, 182, 217, 150, 194, 207, 160, 204, 187, 170, 212, 162, 161, 203, 103, 168, 214, 46, 178, 225, 23,
         136, 169, 212, 145, 177, 215, 146, 177, 223, 161, 194, 209, 174, 211, 159, 148, 191, 83, 168, 219, 66, 173,
         224, 41, 186, 230, 29, 201, 244, 33]),
    'jpeg_shape': ('ExtractJpegShape:0', [3], 'int32', [3],
        [16, 24, 3]),
    'jpeg_shape_gray': ('ExtractJpegShape_1:0', [3], 'int64', [3],
        [16, 24, 1]),
    'image_jpeg': ('decode_image/DecodeImage:0', None, 'uint8', [16, 24, 3],
        [0, 40, 91, 11, 49, 98, 19, 55, 105, 26, 62, 112, 33, 73, 124, 36, 83, 129, 39, 93, 131, 48, 102, 138, 58,
         105, 149, 72, 112, 163, 92, 123, 178, 91, 123, 180, 96, 135, 192, 98, 141, 192, 110, 157, 201, 115, 160,
         202, 133, 169, 221, 132, 172, 224, 139, 187, 236, 150, 204, 204, 166, 216, 119, 157, 205, 43, 171, 212, 20,
         183, 223, 13, 13, 50, 102, 22, 59, 111, 31, 67, 117, 38, 74, 124, 44, 84, 135, 49, 93, 140, 52, 104, 144,
         61, 113, 153, 76, 123, 167, 81, 123, 173, 88, 123, 179, 106, 141, 197, 109, 146, 201, 117, 159, 209, 120,
         163, 206, 130, 172, 212, 144, 178, 216, 156, 192, 218, 159, 203, 202, 170, 218, 170, 152, 202, 79, 179,
         220, 53, 196, 225, 39, 203, 225, 29, 27, 63, 113, 36, 72, 124, 43, 78, 132, 51, 87, 139, 59, 97, 144, 64,
         105, 151, 70, 114, 163, 76, 122, 172, 85, 133, 179, 91, 137, 186, 99, 140, 194, 118, 155, 210, 120, 156,
         208, 132, 166, 214, 137, 174, 218, 154, 189, 221, 164, 193, 207, 171, 200, 170, 164, 199, 99, 168, 208, 60,
         173, 219, 48, 197, 228, 47, 226, 224, 54, 242, 225, 60, 39, 75, 125, 46, 84, 133, 50, 94, 143, 57, 101,
         150, 70, 107, 159, 79, 115, 167, 85, 122, 175, 92, 132, 184, 94, 140, 189, 104, 150, 200, 121, 162, 218,
         122, 159, 214, 134, 170, 220, 143, 179, 211, 157, 196, 203, 162, 200, 179, 177, 211, 161, 172, 207, 107,
         179, 215, 47, 190, 217, 28, 221, 229, 66, 232, 210, 73, 255, 211, 104, 148, 61, 0, 52, 86, 134, 55, 98,
         143, 49, 111, 150, 59, 118, 162, 80, 119, 178, 94, 123, 183, 101, 133, 182, 108, 142, 188, 113, 153, 204,
         119, 158, 215, 135, 166, 230, 137, 169, 228, 148, 189, 235, 155, 200, 205, 162, 211, 146, 158, 207, 90,
         169, 216, 62, 172, 220, 36, 181, 229, 21, 218, 232, 51, 255, 208, 112, 154, 34, 0, 196, 31, 29, 218, 32,
         45, 61, 99, 146, 63, 110, 154, 61, 123, 162, 70, 129, 171, 94, 131, 186, 106, 135, 191, 112, 145, 190, 118,
         155, 199, 123, 163, 214, 131, 171, 222, 144, 174, 224, 159, 192, 223, 157, 199, 195, 161, 210, 155, 161,
         211, 88, 169, 215, 47, 185, 226, 36, 205, 230, 40, 231, 229, 58, 255, 221, 103, 163, 39, 3, 195, 29, 49,
         217, 41, 90, 213, 30, 96, 67, 115, 161, 76, 123, 169, 84, 130, 180, 94, 136, 184, 109, 144, 186, 117, 150,
         191, 121, 159, 204, 127, 170, 215, 130, 177, 223, 144, 188, 225, 156, 193, 211, 169, 205, 177, 161, 206,
         105, 169, 215, 67, 176, 217, 50, 196, 226, 53, 213, 225, 65, 253, 217, 95, 156, 41, 0, 189, 25, 16, 215,
         33, 48, 192, 30, 67, 173, 70, 123, 77, 6, 66, 78, 126, 172, 88, 134, 183, 99, 138, 195, 109, 145, 197, 122,
         156, 194, 129, 163, 198, 132, 170, 215, 139, 182, 217, 150, 194, 207, 160, 204, 187, 170, 212, 162, 161,
         203, 103, 168, 214, 46, 188, 218, 32, 222, 222, 62, 241, 213, 80, 255, 209, 108, 151, 46, 0, 201, 30, 49,
         217, 26, 77, 206, 46, 92, 184, 74, 121, 58, 19, 72, 40, 39, 96, 96, 134, 181, 107, 147, 198, 111, 153, 211,
         110, 151, 205, 136, 169, 212, 145, 177, 215, 146, 177, 223, 161, 194, 209, 174, 211, 159, 148, 191, 83,
         168, 219, 66, 173, 224, 41, 186, 230, 29, 225, 227, 55, 255, 205, 106, 162, 31, 0, 193, 29, 20, 206, 28,
         50, 209, 39, 88, 186, 57, 114, 68, 11, 62, 44, 36, 87, 31, 46, 101, 32, 61, 117, 120, 151, 198, 116, 152,
         202, 115, 162, 218, 135, 182, 234, 136, 176, 211, 156, 189, 206, 169, 200, 194, 183, 213, 163, 161, 195,
         82, 176, 214, 51, 185, 226, 28, 200, 226, 29, 234, 231, 66, 255, 211, 98, 172, 34, 0, 208, 30, 42, 206, 26,
         65, 210, 49, 103, 177, 58, 116, 75, 10, 68, 37, 43, 95, 18, 60, 110, 23, 65, 115, 37, 81, 128, 132, 156,
         200, 139, 173, 219, 125, 174, 230, 137, 191, 237, 142, 193, 212, 163, 208, 175, 165, 201, 93, 171, 206, 50,
         184, 222, 51, 201, 232, 51, 218, 229, 49, 253, 222, 80, 140, 42, 0, 183, 31, 26, 216, 26, 52, 212, 37, 78,
         178, 73, 114, 62, 9, 53, 54, 32, 81, 42, 45, 96, 37, 60, 110, 36, 73, 118, 45, 87, 125, 39, 84, 117, 135,
         167, 206, 147, 183, 215, 143, 191, 211, 154, 209, 204, 169, 225, 186, 148, 199, 104, 172, 210, 37, 205,
         227, 31, 215, 217, 54, 236, 212, 76, 255, 208, 96, 152, 50, 0, 191, 35, 46, 211, 35, 84, 206, 39, 95, 183,
         62, 115, 57, 18, 62, 28, 42, 81, 28, 62, 107, 26, 67, 113, 35, 66, 113, 56, 85, 129, 49, 87, 123, 63, 107,
         136, 141, 187, 223, 155, 200, 206, 163, 206, 153, 154, 200, 101, 148, 206, 68, 177, 230, 62, 198, 234, 38,
         222, 218, 48, 255, 203, 115, 164, 36, 7, 201, 28, 34, 211, 24, 55, 212, 41, 86, 186, 53, 106, 78, 10, 61,
         50, 30, 79, 31, 48, 91, 24, 63, 104, 27, 75, 121, 38, 82, 129, 66, 89, 141, 67, 89, 138, 69, 104, 144, 68,
         112, 147, 159, 207, 183, 175, 220, 165, 170, 207, 91, 172, 208, 48, 193, 232, 51, 202, 226, 44, 237, 221,
         64, 255, 209, 102, 172, 39, 8, 196, 24, 48, 213, 28, 85, 215, 44, 114, 180, 54, 115, 84, 14, 68, 31, 29,
         76, 32, 66, 111, 28, 69, 113, 36, 83, 127, 37, 88, 135, 47, 93, 142, 66, 96, 150, 71, 96, 150, 86, 120,
         166, 82, 121, 164, 162, 199, 57, 169, 205, 53, 178, 211, 36, 203, 227, 45, 221, 228, 52, 254, 211, 80, 161,
         39, 0, 203, 34, 31, 204, 22, 34, 208, 48, 76, 165, 66, 110, 63, 10, 62, 51, 31, 84, 41, 48, 100, 34, 65,
         109, 27, 69, 111, 43, 79, 127, 49, 85, 135, 49, 89, 138, 67, 110, 161, 63, 110, 164, 77, 120, 175, 91, 126,
         180, 102, 134, 185, 184, 217, 16, 193, 226, 23, 205, 234, 32, 215, 231, 37, 246, 236, 63, 141, 67, 0, 204,
         30, 31, 237, 17, 65, 245, 37, 71, 208, 55, 85, 72, 15, 50, 39, 44, 86, 23, 56, 107, 23, 71, 120, 30, 77,
         119, 47, 90, 132, 56, 89, 140, 67, 98, 152, 77, 110, 161, 74, 115, 167, 75, 130, 186, 84, 136, 193, 97,
         132, 190, 118, 144, 201]),
    'jpeg_roundtrip': ('DecodeJpeg_6:0', [None, None, None], 'uint8', [16, 24, 3],
        [0, 36, 95, 0, 44, 103, 7, 52, 111, 17, 59, 117, 26, 71, 128, 33, 80, 132, 37, 89, 136, 47, 100, 142, 50,
         101, 146, 64, 111, 157, 82, 122, 173, 83, 123, 174, 92, 134, 182, 96, 140, 185, 108, 156, 196, 115, 159,
         196, 137, 175, 212, 147, 184, 210, 151, 195, 198, 165, 212, 170, 174, 218, 107, 159, 199, 40, 180, 214, 29,
         190, 221, 21, 0, 48, 106, 10, 56, 115, 20, 65, 124, 28, 73, 130, 37, 82, 137, 44, 91, 143, 51, 102, 149,
         60, 111, 156, 71, 119, 165, 74, 120, 169, 81, 122, 174, 100, 140, 191, 105, 147, 195, 115, 158, 201, 118,
         164, 198, 129, 173, 200, 152, 189, 208, 153, 189, 189, 180, 221, 191, 169, 211, 139, 166, 205, 80, 188,
         220, 59, 203, 222, 45, 211, 225, 41, 15, 62, 114, 24, 71, 125, 33, 78, 137, 41, 86, 143, 51, 97, 149, 58,
         106, 155, 67, 114, 166, 75, 123, 172, 83, 129, 178, 87, 133, 183, 97, 138, 192, 114, 154, 206, 116, 157,
         203, 126, 168, 206, 134, 178, 203, 153, 193, 201, 160, 194, 180, 181, 213, 164, 161, 192, 98, 181, 212, 82,
         183, 210, 55, 214, 226, 64, 230, 219, 65, 242, 221, 70, 29, 75, 125, 36, 83, 135, 43, 93, 146, 53, 100,
         154, 63, 109, 161, 74, 117, 168, 82, 125, 176, 89, 135, 185, 91, 137, 187, 104, 147, 198, 120, 161, 217,
         119, 159, 210, 132, 171, 210, 140, 183, 202, 156, 199, 192, 162, 204, 168, 186, 223, 156, 166, 199, 95,
         185, 210, 67, 188, 202, 45, 231, 225, 77, 236, 207, 77, 255, 206, 99, 140, 66, 0, 43, 86, 139, 49, 97, 146,
         53, 107, 153, 63, 115, 163, 79, 120, 174, 90, 127, 182, 97, 137, 186, 103, 147, 194, 108, 154, 204, 116,
         159, 212, 131, 168, 223, 135, 172, 217, 150, 192, 216, 157, 203, 192, 165, 211, 149, 160, 205, 102, 165,
         209, 72, 187, 225, 64, 189, 211, 40, 235, 226, 73, 255, 201, 98, 140, 45, 0, 166, 39, 7, 185, 43, 29, 57,
         98, 152, 62, 108, 158, 66, 120, 164, 75, 128, 172, 93, 133, 184, 104, 140, 192, 109, 150, 194, 117, 160,
         202, 121, 165, 210, 131, 174, 217, 140, 178, 214, 158, 195, 211, 159, 202, 183, 165, 209, 150, 169, 207,
         104, 176, 210, 72, 192, 220, 60, 208, 218, 57, 244, 226, 80, 255, 213, 104, 142, 41, 0, 163, 33, 20, 191,
         50, 67, 185, 40, 73, 69, 112, 163, 76, 122, 172, 85, 131, 180, 95, 139, 184, 106, 148, 190, 116, 155, 196,
         123, 165, 205, 131, 175, 212, 133, 178, 211, 148, 191, 210, 158, 198, 197, 168, 208, 173, 163, 205, 121,
         172, 210, 91, 185, 213, 76, 209, 221, 77, 227, 217, 83, 255, 214, 106, 139, 44, 0, 162, 34, 5, 191, 51, 50,
         168, 39, 61, 166, 65, 105, 78, 0, 41, 81, 125, 174, 91, 135, 184, 99, 140, 192, 108, 149, 195, 121, 160,
         199, 130, 169, 202, 137, 178, 208, 147, 188, 208, 154, 196, 194, 163, 206, 179, 173, 214, 158, 164, 203,
         112, 175, 208, 77, 195, 213, 67, 228, 220, 87, 248, 212, 98, 255, 206, 117, 142, 46, 0, 175, 42, 35, 182,
         38, 61, 177, 52, 84, 173, 78, 120, 59, 7, 56, 55, 25, 79, 94, 132, 177, 103, 144, 190, 114, 157, 208, 109,
         151, 199, 132, 170, 207, 148, 183, 211, 148, 184, 200, 164, 202, 189, 180, 219, 162, 155, 196, 100, 175,
         216, 86, 189, 222, 73, 203, 220, 62, 238, 222, 83, 255, 200, 109, 147, 41, 0, 163, 38, 16, 174, 41, 46,
         181, 52, 82, 167, 62, 105, 68, 9, 55, 50, 26, 74, 40, 42, 91, 40, 56, 107, 109, 146, 188, 120, 162, 204,
         105, 152, 196, 144, 189, 228, 135, 176, 198, 158, 196, 197, 169, 203, 178, 181, 212, 152, 170, 203, 99,
         191, 219, 83, 193, 214, 57, 210, 214, 57, 249, 225, 89, 255, 207, 109, 158, 43, 0, 183, 44, 39, 174, 37,
         57, 181, 59, 96, 157, 64, 111, 69, 10, 64, 49, 36, 89, 33, 51, 101, 27, 59, 106, 38, 79, 125, 127, 165,
         201, 127, 170, 204, 137, 186, 218, 133, 184, 201, 147, 198, 189, 156, 202, 156, 163, 198, 104, 176, 202,
         77, 200, 219, 78, 218, 223, 77, 248, 233, 92, 255, 219, 105, 138, 45, 0, 162, 36, 11, 192, 43, 49, 188, 48,
         75, 171, 76, 110, 64, 6, 47, 58, 28, 78, 47, 44, 97, 35, 55, 105, 39, 73, 119, 44, 86, 128, 35, 80, 119,
         127, 168, 188, 148, 192, 203, 134, 183, 179, 165, 218, 190, 167, 221, 161, 154, 199, 104, 174, 202, 66,
         206, 214, 66, 223, 209, 74, 253, 214, 97, 255, 194, 101, 150, 51, 0, 179, 47, 35, 193, 50, 68, 182, 47, 80,
         174, 69, 112, 64, 13, 56, 45, 36, 81, 39, 52, 104, 32, 62, 114, 33, 66, 117, 51, 89, 136, 42, 85, 127, 63,
         108, 147, 152, 194, 192, 156, 200, 177, 170, 216, 154, 146, 193, 97, 154, 205, 78, 180, 218, 71, 205, 220,
         65, 232, 210, 75, 255, 202, 114, 148, 40, 0, 183, 43, 28, 184, 34, 45, 192, 54, 79, 174, 60, 94, 86, 10,
         48, 54, 17, 58, 40, 41, 85, 31, 58, 105, 37, 75, 124, 41, 81, 133, 57, 90, 143, 56, 89, 140, 69, 107, 154,
         69, 112, 155, 166, 207, 151, 178, 220, 144, 165, 205, 90, 167, 204, 62, 197, 229, 70, 207, 216, 61, 247,
         219, 86, 255, 199, 103, 160, 43, 0, 178, 35, 29, 182, 32, 59, 200, 61, 103, 155, 48, 92, 88, 19, 63, 40,
         14, 53, 51, 59, 98, 37, 65, 112, 39, 81, 129, 39, 85, 135, 49, 92, 145, 63, 98, 154, 67, 99, 156, 87, 123,
         175, 82, 120, 169, 168, 205, 66, 166, 202, 54, 180, 211, 47, 205, 224, 55, 222, 222, 66, 254, 213, 89, 150,
         47, 0, 186, 45, 15, 188, 31, 26, 195, 50, 63, 172, 67, 97, 68, 0, 35, 71, 34, 77, 36, 28, 69, 44, 58, 95,
         28, 56, 96, 44, 76, 125, 49, 86, 138, 50, 90, 142, 69, 110, 166, 69, 109, 170, 80, 118, 181, 92, 126, 187,
         104, 136, 193, 182, 217, 37, 194, 225, 43, 205, 232, 41, 219, 228, 47, 247, 231, 76, 136, 69, 0, 183, 43,
         7, 210, 34, 37, 222, 46, 59, 200, 54, 77, 89, 6, 36, 66, 32, 67, 43, 41, 81, 34, 56, 97, 34, 66, 104, 41,
         79, 118, 56, 89, 140, 60, 95, 149, 74, 109, 163, 75, 114, 171, 84, 128, 191, 94, 135, 201, 101, 135, 198,
         117, 147, 209]),
    'adjust_jpeg_quality': ('adjust_jpeg_quality/Identity_1:0', [None, None, None], 'uint8', [16, 24, 3],
        [0, 36, 95, 0, 44, 103, 7, 52, 111, 17, 59, 117, 26, 71, 128, 33, 80, 132, 37, 89, 136, 47, 100, 142, 50,
         101, 146, 64, 111, 157, 82, 122, 173, 83, 123, 174, 92, 134, 182, 96, 140, 185, 108, 156, 196, 115, 159,
         196, 137, 175, 212, 147, 184, 210, 151, 195, 198, 165, 212, 170, 174, 218, 107, 159, 199, 40, 180, 214, 29,
         190, 221, 21, 0, 48, 106, 10, 56, 115, 20, 65, 124, 28, 73, 130, 37, 82, 137, 44, 91, 143, 51, 102, 149,
         60, 111, 156, 71, 119, 165, 74, 120, 169, 81, 122, 174, 100, 140, 191, 105, 147, 195, 115, 158, 201, 118,
         164, 198, 129, 173, 200, 152, 189, 208, 153, 189, 189, 180, 221, 191, 169, 211, 139, 166, 205, 80, 188,
         220, 59, 203, 222, 45, 211, 225, 41, 15, 62, 114, 24, 71, 125, 33, 78, 137, 41, 86, 143, 51, 97, 149, 58,
         106, 155, 67, 114, 166, 75, 123, 172, 83, 129, 178, 87, 133, 183, 97, 138, 192, 114, 154, 206, 116, 157,
         203, 126, 168, 206, 134, 178, 203, 153, 193, 201, 160, 194, 180, 181, 213, 164, 161, 192, 98, 181, 212, 82,
         183, 210, 55, 214, 226, 64, 230, 219, 65, 242, 221, 70, 29, 75, 125, 36, 83, 135, 43, 93, 146, 53, 100,
         154, 63, 109, 161, 74, 117, 168, 82, 125, 176, 89, 135, 185, 91, 137, 187, 104, 147, 198, 120, 161, 217,
         119, 159, 210, 132, 171, 210, 140, 183, 202, 156, 199, 192, 162, 204, 168, 186, 223, 156, 166, 199, 95,
         185, 210, 67, 188, 202, 45, 231, 225, 77, 236, 207, 77, 255, 206, 99, 140, 66, 0, 43, 86, 139, 49, 97, 146,
         53, 107, 153, 63, 115, 163, 79, 120, 174, 90, 127, 182, 97, 137, 186, 103, 147, 194, 108, 154, 204, 116,
         159, 212, 131, 168, 223, 135, 172, 217, 150, 192, 216, 157, 203, 192, 165, 211, 149, 160, 205, 102, 165,
         209, 72, 187, 225, 64, 189, 211, 40, 235, 226, 73, 255, 201, 98, 140, 45, 0, 166, 39, 7, 185, 43, 29, 57,
         98, 152, 62, 108, 158, 66, 120, 164, 75, 128, 172, 93, 133, 184, 104, 140, 192, 109, 150, 194, 117, 160,
         202, 121, 165, 210, 131, 174, 217, 140, 178, 214, 158, 195, 211, 159, 202, 183, 165, 209, 150, 169, 207,
         104, 176, 210, 72, 192, 220, 60, 208, 218, 57, 244, 226, 80, 255, 213, 104, 142, 41, 0, 163, 33, 20, 191,
         50, 67, 185, 40, 73, 69, 112, 163, 76, 122, 172, 85, 131, 180, 95, 139, 184, 106, 148, 190, 116, 155, 196,
         123, 165, 205, 131, 175, 212, 133, 178, 211, 148, 191, 210, 158, 198, 197, 168, 208, 173, 163, 205, 121,
         172, 210, 91, 185, 213, 76, 209, 221, 77, 227, 217, 83, 255, 214, 106, 139, 44, 0, 162, 34, 5, 191, 51, 50,
         168, 39, 61, 166, 65, 105, 78, 0, 41, 81, 125, 174, 91, 135, 184, 99, 140, 192, 108, 149, 195, 121, 160,
         199, 130, 169, 202, 137, 178, 208, 147, 188, 208, 154, 196, 194, 163, 206, 179, 173, 214, 158, 164, 203,
         112, 175, 208, 77, 195, 213, 67, 228, 220, 87, 248, 212, 98, 255, 206, 117, 142, 46, 0, 175, 42, 35, 182,
         38, 61, 177, 52, 84, 173, 78, 120, 59, 7, 56, 55, 25, 79, 94, 132, 177, 103, 144, 190, 114, 157, 208, 109,
         151, 199, 132, 170, 207, 148, 183, 211, 148, 184, 200, 164, 202, 189, 180, 219, 162, 155, 196, 100, 175,
         216, 86, 189, 222, 73, 203, 220, 62, 238, 222, 83, 255, 200, 109, 147, 41, 0, 163, 38, 16, 174, 41, 46,
         181, 52, 82, 167, 62, 105, 68, 9, 55, 50, 26, 74, 40, 42, 91, 40, 56, 107, 109, 146, 188, 120, 162, 204,
         105, 152, 196, 144, 189, 228, 135, 176, 198, 158, 196, 197, 169, 203, 178, 181, 212, 152, 170, 203, 99,
         191, 219, 83, 193, 214, 57, 210, 214, 57, 249, 225, 89, 255, 207, 109, 158, 43, 0, 183, 44, 39, 174, 37,
         57, 181, 59, 96, 157, 64, 111, 69, 10, 64, 49, 36, 89, 33, 51, 101, 27, 59, 106, 38, 79, 125, 127, 165,
         201, 127, 170, 204, 137, 186, 218, 133, 184, 201, 147, 198, 189, 156, 202, 156, 163, 198, 104, 176, 202,
         77, 200, 219, 78, 218, 223, 77, 248, 233, 92, 255, 219, 105, 138, 45, 0, 162, 36, 11, 192, 43, 49, 188, 48,
         75, 171, 76, 110, 64, 6, 47, 58, 28, 78, 47, 44, 97, 35, 55, 105, 39, 73, 119, 44, 86, 128, 35, 80, 119,
         127, 168, 188, 148, 192, 203, 134, 183, 179, 165, 218, 190, 167, 221, 161, 154, 199, 104, 174, 202, 66,
         206, 214, 66, 223, 209, 74, 253, 214, 97, 255, 194, 101, 150, 51, 0, 179, 47, 35, 193, 50, 68, 182, 47, 80,
         174, 69, 112, 64, 13, 56, 45, 36, 81, 39, 52, 104, 32, 62, 114, 33, 66, 117, 51, 89, 136, 42, 85, 127, 63,
         108, 147, 152, 194, 192, 156, 200, 177, 170, 216, 154, 146, 193, 97, 154, 205, 78, 180, 218, 71, 205, 220,
         65, 232, 210, 75, 255, 202, 114, 148, 40, 0, 183, 43, 28, 184, 34, 45, 192, 54, 79, 174, 60, 94, 86, 10,
         48, 54, 17, 58, 40, 41, 85, 31, 58, 105, 37, 75, 124, 41, 81, 133, 57, 90, 143, 56, 89, 140, 69, 107, 154,
         69, 112, 155, 166, 207, 151, 178, 220, 144, 165, 205, 90, 167, 204, 62, 197, 229, 70, 207, 216, 61, 247,
         219, 86, 255, 199, 103, 160, 43, 0, 178, 35, 29, 182, 32, 59, 200, 61, 103, 155, 48, 92, 88, 19, 63, 40,
         14, 53, 51, 59, 98, 37, 65, 112, 39, 81, 129, 39, 85, 135, 49, 92, 145, 63, 98, 154, 67, 99, 156, 87, 123,
         175, 82, 120, 169, 168, 205, 66, 166, 202, 54, 180, 211, 47, 205, 224, 55, 222, 222, 66, 254, 213, 89, 150,
         47, 0, 186, 45, 15, 188, 31, 26, 195, 50, 63, 172, 67, 97, 68, 0, 35, 71, 34, 77, 36, 28, 69, 44, 58, 95,
         28, 56, 96, 44, 76, 125, 49, 86, 138, 50, 90, 142, 69, 110, 166, 69, 109, 170, 80, 118, 181, 92, 126, 187,
         104, 136, 193, 182, 217, 37, 194, 225, 43, 205, 232, 41, 219, 228, 47, 247, 231, 76, 136, 69, 0, 183, 43,
         7, 210, 34, 37, 222, 46, 59, 200, 54, 77, 89, 6, 36, 66, 32, 67, 43, 41, 81, 34, 56, 97, 34, 66, 104, 41,
         79, 118, 56, 89, 140, 60, 95, 149, 74, 109, 163, 75, 114, 171, 84, 128, 191, 94, 135, 201, 101, 135, 198,
         117, 147, 209]),
}


def test_png_errors_are_invalid_argument():
    bad_crc = bytearray(FILES["rgb8"])
    bad_crc[20] ^= 1
    cases = [(b"not a png", "Invalid PNG data"), (bytes(bad_crc), "CRC error"),
             (FILES["rgb8"][:60], "truncated|missing IHDR or IDAT|not enough")]
    with tf.Session() as sess:
        for data, match in cases:
            with pytest.raises(tf.errors.InvalidArgumentError, match=match):
                sess.run(tf.image.decode_png(data))
        with pytest.raises(tf.errors.InvalidArgumentError, match="must be 0, 1, 3 or 4"):
            sess.run(tf.image.decode_png(FILES["rgb8"], channels=2))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown image file format"):
            sess.run(tf.image.decode_image(b"????"))
        with pytest.raises(tf.errors.InvalidArgumentError, match="does not match bits per pixel"):
            sess.run(tf.image.decode_bmp(FILES["bmp24"], channels=4))
    with pytest.raises(TypeError, match="uint8, uint16"):
        tf.image.encode_png(np.zeros((2, 2, 1), np.float32))


def test_encode_png_compression_levels_round_trip():
    x = (np.arange(30 * 20 * 4) % 251).astype(np.uint8).reshape(30, 20, 4)
    with tf.Session() as sess:
        for level in (-1, 0, 9):
            data = sess.run(tf.image.encode_png(x, compression=level))
            assert data.startswith(b"\x89PNG")
            np.testing.assert_array_equal(sess.run(tf.image.decode_png(data)), x)


JPEG_TOLERANCE = {"jpeg_crop": (32, 3.0), "jpeg_roundtrip": (48, 6.0), "adjust_jpeg_quality": (48, 6.0)}


def _pil_or_skip():
    return pytest.importorskip("PIL")


@pytest.mark.parametrize("key", sorted(EXPECTED_JPEG))
def test_jpeg_matches_tf(key):
    _pil_or_skip()
    g = tf.Graph()
    with g.as_default():
        t = jpeg_cases(tf)[key]
        with tf.Session() as sess:
            got = np.asarray(sess.run(t))
    name, static, dtype, shape, values = EXPECTED_JPEG[key]
    assert t.name == name and got.dtype == np.dtype(dtype) and list(got.shape) == shape
    if static is not None:
        assert t.shape.is_compatible_with(static)
    # Pillow decodes with libjpeg's accurate DCT, TF with the fast one: a few levels apart at most. TF's
    # cropped decode differs from its full decode at the crop's edge, and re-encoding this image (with wrapped
    # colour edges) moves pixels by tens of levels in TF too: those keys are compared loosely.
    worst, mean = JPEG_TOLERANCE.get(key, (4, 1.5))
    diff = np.abs(got.ravel().astype(int) - np.asarray(values))
    assert diff.max() <= worst and diff.mean() < mean


def test_encode_jpeg_options_and_shapes():
    _pil_or_skip()
    x = np.tile(np.arange(32, dtype=np.uint8)[:, None, None] * 8, (1, 24, 3))
    with tf.Session() as sess:
        hi, lo, gray, prog = sess.run([tf.image.encode_jpeg(x, quality=95), tf.image.encode_jpeg(x, quality=10),
                                       tf.image.encode_jpeg(x[..., :1], format="grayscale"),
                                       tf.image.encode_jpeg(x, progressive=True, chroma_downsampling=False)])
        assert len(lo) < len(hi)
        assert list(sess.run(tf.image.extract_jpeg_shape(gray))) == [32, 24, 1]
        for data in (hi, prog):
            assert np.abs(sess.run(tf.image.decode_jpeg(data)).astype(int) - x).max() <= 8
        with pytest.raises(tf.errors.InvalidArgumentError, match="crop window"):
            sess.run(tf.image.decode_and_crop_jpeg(hi, [30, 0, 5, 5]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid JPEG data"):
            sess.run(tf.image.decode_jpeg(FILES["rgb8"]))


def test_random_jpeg_quality_is_seeded():
    _pil_or_skip()
    tf.set_random_seed(2)
    x = tf.image.decode_jpeg(FILES["jpeg_rgb"])
    y = tf.image.random_jpeg_quality(tf.image.convert_image_dtype(x, tf.float32), 20, 60)
    with tf.Session() as s1:
        a = s1.run(y)
    with tf.Session() as s2:
        b = s2.run(y)
    np.testing.assert_array_equal(a, b)
    assert a.dtype == np.float32 and a.shape == (16, 24, 3)
    with pytest.raises(ValueError, match="must be less than"):
        tf.image.random_jpeg_quality(x, 50, 50)


def test_jpeg_without_pillow_raises_not_implemented(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(NotImplementedError, match=r"pip install dflow\[image\]"):
        tf.image.decode_jpeg(FILES["jpeg_rgb"])
    y = tf.image.decode_image(FILES["jpeg_rgb"])  # the format is known only when it runs
    with tf.Session() as sess:
        with pytest.raises(tf.errors.UnimplementedError, match=r"pip install dflow\[image\]"):
            sess.run(y)


def test_jpeg_density_xmp_and_truncated_recovery():
    _pil_or_skip()
    import io as _io

    import PIL.Image
    x = (np.arange(32 * 24 * 3) % 256).astype(np.uint8).reshape(32, 24, 3)
    with tf.Session() as sess:
        data = sess.run(tf.image.encode_jpeg(x, density_unit="cm", x_density=100, y_density=50,
                                             xmp_metadata="<x:xmpmeta/>"))
        info = PIL.Image.open(_io.BytesIO(data)).info
        assert info["dpi"] == (254, 127) and "xmp" in info
        cut = data[:len(data) * 2 // 3]
        assert list(sess.run(tf.shape(tf.image.decode_jpeg(cut, try_recover_truncated=True)))) == [32, 24, 3]
        with pytest.raises(tf.errors.InvalidArgumentError, match="truncated"):
            sess.run(tf.image.decode_jpeg(cut))
