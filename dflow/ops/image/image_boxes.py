"""``tf.image`` boxes: ``draw_bounding_boxes``, ``sample_distorted_bounding_box``
and ``generate_bounding_box_proposals``, as TF's kernels compute them.

``sample_distorted_bounding_box`` draws crops as TF's kernel does (the same
rounding, retries and overlap test) from dflow's seeded generator, so its
crops are valid TF crops but not TF's exact draws.
``generate_bounding_box_proposals`` has only a GPU kernel in TF; dflow runs
its steps on the host. Non-max suppression is in ``image_nms``.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument
from dflow.ops.nn._nn_util import with_rank
from dflow.ops.random.random_ops import seed_attrs, stateful_kernel

_F32 = np.float32


# -- drawing ------------------------------------------------------------------------------------

_DEFAULT_COLORS = [[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1],
                   [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]]


def _draw_bounding_boxes(images, boxes, colors=None):
    if images.ndim != 4:
        raise invalid_argument(f"The rank of the images should be 4, got {images.ndim}")
    batch, height, width, depth = images.shape
    if depth not in (1, 3, 4):
        raise invalid_argument("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)")
    if boxes.ndim != 3 or boxes.shape[0] != batch or boxes.shape[2] != 4:
        raise invalid_argument(f"boxes must be [batch, num_boxes, 4], got {list(boxes.shape)}")
    if colors is not None and colors.size:
        if colors.ndim != 2 or colors.shape[1] < depth:
            raise invalid_argument(f"colors must be [num_colors, >= depth], got {list(colors.shape)}")
        table = [list(row) for row in colors.astype(np.float32)]
    else:
        table = [list(row) for row in _DEFAULT_COLORS]
        if depth == 1:
            for row in table:
                row[0] = 1
    canvas = images.copy()
    for b in range(batch):
        for k in range(boxes.shape[1]):
            color = np.asarray(table[k % len(table)][:depth]).astype(images.dtype)
            y1, x1, y2, x2 = (_F32(v) for v in boxes[b, k])
            rmin, rmax = int(y1 * _F32(height - 1)), int(y2 * _F32(height - 1))
            cmin, cmax = int(x1 * _F32(width - 1)), int(x2 * _F32(width - 1))
            if rmin > rmax or cmin > cmax or rmin >= height or rmax < 0 or cmin >= width or cmax < 0:
                continue  # inverted or outside the image: TF skips it
            r0, r1 = max(rmin, 0), min(rmax, height - 1)
            c0, c1 = max(cmin, 0), min(cmax, width - 1)
            if rmin >= 0:
                canvas[b, rmin, c0:c1 + 1] = color
            if rmax < height:
                canvas[b, rmax, c0:c1 + 1] = color
            if cmin >= 0:
                canvas[b, r0:r1 + 1, cmin] = color
            if cmax < width:
                canvas[b, r0:r1 + 1, cmax] = color
    return canvas


register("DrawBoundingBoxes", infer=lambda op: [(op._inputs[0].dtype, with_rank(op._inputs[0].shape, 4))],
         kernel=_draw_bounding_boxes, gpu=False)
register("DrawBoundingBoxesV2", infer=lambda op: [(op._inputs[0].dtype, with_rank(op._inputs[0].shape, 4))],
         kernel=_draw_bounding_boxes, gpu=False)
not_differentiable("DrawBoundingBoxes")
not_differentiable("DrawBoundingBoxesV2")


@tf_export("image.draw_bounding_boxes")
def draw_bounding_boxes(images, boxes, name=None, colors=None):
    """Draws box outlines (normalised ``[y1, x1, y2, x2]``) on a batch; colours cycle through
    TF's table (or ``colors``), cast to the image dtype as TF does."""
    images = convert_to_tensor(images, name="images")
    if images.dtype not in (dtypes.float16, dtypes.float32):
        raise TypeError(f"Value passed to parameter 'images' has DataType {images.dtype.name} not in list of "
                        "allowed values: float32, half")
    boxes = convert_to_tensor(boxes, dtype=dtypes.float32, name="boxes")
    if colors is None:
        return apply_op("DrawBoundingBoxes", [images, boxes], name=name or "DrawBoundingBoxes").outputs[0]
    colors = convert_to_tensor(colors, dtype=dtypes.float32, name="colors")
    return apply_op("DrawBoundingBoxesV2", [images, boxes, colors], name=name or "DrawBoundingBoxesV2").outputs[0]


# -- sample_distorted_bounding_box -------------------------------------------------------------------


def _lrint(x) -> int:
    return int(np.rint(_F32(x)))


def _random_crop(rng, width, height, min_rel, max_rel, aspect):
    """TF's ``GenerateRandomCrop``: a crop ``(x, y, w, h)`` or None."""
    if max_rel <= 0 or aspect <= 0 or width <= 0 or height <= 0 or min_rel > max_rel:
        return None
    min_area = _F32(min_rel) * width * height
    max_area = _F32(max_rel) * width * height
    h = _lrint(np.sqrt(min_area / aspect))
    max_h = _lrint(np.sqrt(max_area / aspect))
    if _lrint(max_h * aspect) > width:
        max_h = int((width + 0.5 - 0.0000001) / aspect)
        if _lrint(max_h * aspect) > width:
            max_h -= 1
    max_h = min(max_h, height)
    h = min(h, max_h)
    if h < max_h:
        h += int(rng.integers(0, max_h - h + 1))
    w = _lrint(h * aspect)
    area = _F32(w * h)
    if area < min_area:
        h += 1
        w = _lrint(h * aspect)
        area = _F32(w * h)
    if area > max_area:
        h -= 1
        w = _lrint(h * aspect)
        area = _F32(w * h)
    if area < min_area or area > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = int(rng.integers(0, height - h)) if h < height else 0
    x = int(rng.integers(0, width - w)) if w < width else 0
    return x, y, w, h


def _covers(crop, boxes, min_covered) -> bool:
    x, y, w, h = crop
    if w * h < 1:
        return False
    for bx0, by0, bx1, by1 in boxes:
        area = (bx1 - bx0) * (by1 - by0)
        if area < 1:
            continue
        ix0, iy0, ix1, iy1 = max(x, bx0), max(y, by0), min(x + w, bx1), min(y + h, by1)
        inter = 0 if ix0 > ix1 or iy0 > iy1 else (ix1 - ix0) * (iy1 - iy0)
        if _F32(inter) / _F32(area) >= min_covered:
            return True
    return False


def _sample_distorted(rng, image_size, bounding_boxes, min_object_covered, aspect_ratio_range=(0.75, 1.33),
                      area_range=(0.05, 1.0), max_attempts=100, use_image_if_no_bounding_boxes=False):
    image_size = np.asarray(image_size).reshape(-1)
    if image_size.shape != (3,):
        raise invalid_argument(f"image_size must be 1-dimensional with 3 elements, got {list(image_size)}")
    height, width = int(image_size[0]), int(image_size[1])
    if bounding_boxes.ndim != 3 or bounding_boxes.shape[2] != 4:
        raise invalid_argument(f"input boxes must be 3-dimensional [batch, num_boxes, coords], got "
                               f"{list(bounding_boxes.shape)}")
    if float(min_object_covered) < 0:
        raise invalid_argument(f"Min object covered must be non-negative: {float(min_object_covered)}")
    flat = bounding_boxes.reshape(-1, 4).astype(_F32)
    if ((flat < 0) | (flat > 1)).any():
        raise invalid_argument("All bounding box coordinates must be in [0.0, 1.0]")
    boxes = [(int(b[1] * width), int(b[0] * height), int(b[3] * width), int(b[2] * height)) for b in flat]
    if not boxes:
        if not use_image_if_no_bounding_boxes:
            raise invalid_argument("No bounding boxes provided as input. One must enable "
                                   "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.")
        boxes = [(0, 0, width, height)]
    crop = None
    for _ in range(int(max_attempts)):
        aspect = _F32(rng.random(dtype=_F32)) * _F32(aspect_ratio_range[1] - aspect_ratio_range[0]) \
            + _F32(aspect_ratio_range[0])
        c = _random_crop(rng, width, height, area_range[0], area_range[1], aspect)
        if c is not None and _covers(c, boxes, _F32(min_object_covered)):
            crop = c
            break
    x, y, w, h = crop if crop is not None else (0, 0, width, height)
    dtype = image_size.dtype
    bbox = np.array([[[y / _F32(height), x / _F32(width), (y + h) / _F32(height), (x + w) / _F32(width)]]], _F32)
    return np.array([y, x, 0], dtype), np.array([h, w, -1], dtype), bbox


def _sample_infer(op):
    size = op._inputs[0]
    with_rank(size.shape, 1)
    with_rank(op._inputs[1].shape, 3)
    return [(size.dtype, TensorShape([3])), (size.dtype, TensorShape([3])), (dtypes.float32, TensorShape([1, 1, 4]))]


register("SampleDistortedBoundingBoxV2", infer=_sample_infer, make_kernel=stateful_kernel(_sample_distorted),
         stateful=True, gpu=False)
not_differentiable("SampleDistortedBoundingBoxV2")


@tf_export("image.sample_distorted_bounding_box")
def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """A random crop ``(begin, size, bboxes)`` covering at least ``min_object_covered`` of one box.

    ``begin`` and ``size`` feed ``tf.slice``; ``bboxes`` (``[1, 1, 4]``) feeds ``draw_bounding_boxes``.
    """
    with name_scope(name, "sample_distorted_bounding_box"):
        image_size = convert_to_tensor(image_size, name="image_size")
        if image_size.dtype not in (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64):
            raise TypeError(f"Value passed to parameter 'image_size' has DataType {image_size.dtype.name} not in "
                            "list of allowed values: uint8, int8, int16, int32, int64")
        boxes = convert_to_tensor(bounding_boxes, dtype=dtypes.float32, name="bounding_boxes")
        covered = convert_to_tensor(min_object_covered, dtype=dtypes.float32, name="min_object_covered")
        # TF passes seed/seed2 straight to the op; without either, the graph seed decides
        attrs = seed_attrs(None) if seed is None and seed2 is None else {"seed": int(seed or 0),
                                                                        "seed2": int(seed2 or 0)}
        attrs.update(aspect_ratio_range=tuple(float(v) for v in (aspect_ratio_range or (0.75, 1.33))),
                     area_range=tuple(float(v) for v in (area_range or (0.05, 1.0))),
                     max_attempts=int(max_attempts or 100),
                     use_image_if_no_bounding_boxes=bool(use_image_if_no_bounding_boxes))
        op = apply_op("SampleDistortedBoundingBoxV2", [image_size, boxes, covered], attrs)
        return tuple(op.outputs)


# -- generate_bounding_box_proposals ---------------------------------------------------------------

_BBOX_XFORM_CLIP = np.float32(np.log(1000.0 / 16.0))


def _nms_upright(boxes, threshold, limit):
    """TF's GPU NMS on ``[x1, y1, x2, y2]`` boxes already sorted by score: kept indices."""
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    kept = []
    for i in range(len(boxes)):
        if len(kept) >= limit:
            break
        ok = True
        for j in kept:
            if area[i] == 0 or area[j] == 0:
                continue
            w = max(min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0]), _F32(0))
            h = max(min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1]), _F32(0))
            inter = _F32(w * h)
            if inter > _F32((area[i] + area[j] - inter) * _F32(threshold)):
                ok = False
                break
        if ok:
            kept.append(i)
    return kept


def _generate_proposals(scores, bbox_deltas, image_info, anchors, nms_threshold, pre_nms_topn, min_size,
                        post_nms_topn=300):
    """TF's ``GenerateBoundingBoxProposals`` (a GPU-only kernel in TF), step for step on the host."""
    if scores.ndim != 4 or bbox_deltas.shape != scores.shape[:3] + (4 * scores.shape[3],):
        raise invalid_argument(f"bbox_deltas must be [num_images, height, width, 4 * num_anchors] for scores "
                               f"{list(scores.shape)}, got {list(bbox_deltas.shape)}")
    n, height, width, num_anchors = scores.shape
    if anchors.shape != (height, width, 4 * num_anchors):
        raise invalid_argument(f"anchors must be [height, width, 4 * num_anchors], got {list(anchors.shape)}")
    if image_info.shape != (n, 5):
        raise invalid_argument(f"image_info must be [num_images, 5], got {list(image_info.shape)}")
    total = height * width * num_anchors
    keep_n = min(total, int(pre_nms_topn))
    rois = np.zeros((n, post_nms_topn, 4), _F32)
    probs = np.zeros((n, post_nms_topn), _F32)
    flat_anchors = anchors.reshape(total, 4).astype(_F32)
    for b in range(n):
        s = scores[b].reshape(total).astype(_F32)
        order = np.argsort(-s, kind="stable")[:keep_n]
        a = flat_anchors[order]
        d = bbox_deltas[b].reshape(total, 4).astype(_F32)[order]
        dy, dx = d[:, 0], d[:, 1]
        dh, dw = np.minimum(d[:, 2], _BBOX_XFORM_CLIP), np.minimum(d[:, 3], _BBOX_XFORM_CLIP)
        w = a[:, 3] - a[:, 1]
        ctr_x = a[:, 1] + _F32(0.5) * w + w * dx
        pred_w = w * np.exp(dw)
        h = a[:, 2] - a[:, 0]
        ctr_y = a[:, 0] + _F32(0.5) * h + h * dy
        pred_h = h * np.exp(dh)
        img_h, img_w, scale = (_F32(v) for v in image_info[b, :3])
        x1 = np.clip(ctr_x - _F32(0.5) * pred_w, 0, img_w)
        x2 = np.clip(ctr_x + _F32(0.5) * pred_w, 0, img_w)
        y1 = np.clip(ctr_y - _F32(0.5) * pred_h, 0, img_h)
        y2 = np.clip(ctr_y + _F32(0.5) * pred_h, 0, img_h)
        keep = np.minimum(x2 - x1, y2 - y1) >= _F32(min_size) * scale
        boxes = np.stack([x1, y1, x2, y2], 1).astype(_F32)[keep]
        kept = _nms_upright(boxes, nms_threshold, post_nms_topn)
        rois[b, :len(kept)] = boxes[kept][:, [1, 0, 3, 2]]
        probs[b, :len(kept)] = s[order][keep][kept]
    return rois, probs


def _proposals_infer(op):
    scores = with_rank(op._inputs[0].shape, 4)
    with_rank(op._inputs[1].shape, 4)
    with_rank(op._inputs[2].shape, 2)
    with_rank(op._inputs[3].shape, 3)
    n, k = scores.as_list()[0], op._attrs["post_nms_topn"]
    return [(dtypes.float32, TensorShape([n, k, 4])), (dtypes.float32, TensorShape([n, k]))]


register("GenerateBoundingBoxProposals", infer=_proposals_infer, kernel=_generate_proposals, gpu=False)
not_differentiable("GenerateBoundingBoxProposals")


@tf_export("image.generate_bounding_box_proposals")
def generate_bounding_box_proposals(scores, bbox_deltas, image_info, anchors, nms_threshold=0.7, pre_nms_topn=6000,
                                    min_size=16, post_nms_topn=300, name=None):
    """Region proposals ``(rois, roi_probabilities)``: the ``pre_nms_topn`` best anchors, moved by
    ``bbox_deltas`` (``[dy, dx, dh, dw]``), clipped to the image, filtered by ``min_size`` and
    non-max suppressed; ``rois`` are ``[y1, x1, y2, x2]``, zero-padded to ``post_nms_topn``.

    ``anchors`` is ``[height, width, 4 * num_anchors]`` (the layout TF's kernel reads).
    TF 2.15 has this kernel on GPU only; dflow runs the same steps on the host.
    """
    inputs = [convert_to_tensor(v, dtype=dtypes.float32, name=n)
              for v, n in ((scores, "scores"), (bbox_deltas, "bbox_deltas"), (image_info, "image_info"),
                           (anchors, "anchors"), (nms_threshold, "nms_threshold"))]
    inputs.append(convert_to_tensor(pre_nms_topn, dtype=dtypes.int32, name="pre_nms_topn"))
    inputs.append(convert_to_tensor(min_size, dtype=dtypes.float32, name="min_size"))
    op = apply_op("GenerateBoundingBoxProposals", inputs, {"post_nms_topn": int(post_nms_topn)},
                  name=name or "GenerateBoundingBoxProposals")
    return op.outputs[0], op.outputs[1]
