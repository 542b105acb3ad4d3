"""``tf.image`` boxes: the non-max-suppression family, ``draw_bounding_boxes``
and ``sample_distorted_bounding_box``, as TF's CPU kernels compute them.

Non-max suppression is TF's greedy loop: candidates in a priority queue by
score (the lower index first among equal scores), each compared with the
boxes selected so far, newest first; soft-NMS (``soft_nms_sigma > 0``)
decays a candidate's score by ``exp(-0.5 * iou**2 / sigma)`` and puts it back
in the queue. ``non_max_suppression_padded`` is TF's tiled algorithm, which
selects the same boxes as the greedy loop (with its quirk that a selected box
with no positive coordinate counts as padding). ``combined_non_max_suppression``
runs the loop per class and keeps the best ``max_total_size`` per batch entry.

``sample_distorted_bounding_box`` draws crops as TF's kernel does (the same
rounding, retries and overlap test) from dflow's seeded generator, so its
crops are valid TF crops but not TF's exact draws.
"""

from __future__ import annotations

import heapq

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.graph import name_scope
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument
from dflow.ops._nn_util import with_rank
from dflow.ops.constant_op import convert_to_tensor
from dflow.ops.random_ops import seed_attrs, stateful_kernel
from dflow.ops.registry import apply_op, constant_value, not_differentiable, register
from dflow.ops.shape_ops import reshape
from dflow.ops.slicing_ops import slice as slice_

_F32 = np.float32


def _iou_matrix(boxes):
    """TF's ``IOU(boxes, i, j)`` for all pairs, in float32 (corners in any order)."""
    b = boxes.astype(_F32, copy=False)
    ymin, ymax = np.minimum(b[:, 0], b[:, 2]), np.maximum(b[:, 0], b[:, 2])
    xmin, xmax = np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 1], b[:, 3])
    area = (ymax - ymin) * (xmax - xmin)
    iy = np.maximum(np.minimum(ymax[:, None], ymax[None]) - np.maximum(ymin[:, None], ymin[None]), _F32(0))
    ix = np.maximum(np.minimum(xmax[:, None], xmax[None]) - np.maximum(xmin[:, None], xmin[None]), _F32(0))
    inter = iy * ix
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area[:, None] + area[None] - inter)
    iou = np.where((area[:, None] <= 0) | (area[None] <= 0), _F32(0), iou)
    return iou.astype(_F32)


def greedy_nms(similarity, scores, max_output_size: int, threshold, score_threshold, soft_nms_sigma=0.0):
    """TF's ``DoNonMaxSuppressionOp``: (selected indices, their scores)."""
    scores = np.asarray(scores)
    dtype = scores.dtype.type
    threshold, score_threshold = dtype(threshold), dtype(score_threshold)
    soft = soft_nms_sigma > 0
    scale = dtype(-0.5) / dtype(soft_nms_sigma) if soft else dtype(0)
    heap = [(-scores[i], i, 0) for i in range(len(scores)) if scores[i] > score_threshold]
    heapq.heapify(heap)
    selected, selected_scores = [], []
    while len(selected) < max_output_size and heap:
        neg, i, begin = heapq.heappop(heap)
        original = score = -neg
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = dtype(similarity(i, selected[j]))
            weight = dtype(np.exp(scale * sim * sim))
            score = dtype(score * (weight if soft or sim <= threshold else dtype(0)))
            if not soft and sim > threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            selected.append(i)
            selected_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(heap, (-score, i, len(selected)))
    return np.asarray(selected, np.int32), np.asarray(selected_scores, scores.dtype)


def _check_nms(boxes, scores, max_output_size, iou_threshold, op: str):
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise invalid_argument(f"{op}: boxes must be 2-D [num_boxes, 4], got {list(boxes.shape)}")
    if scores.shape != (boxes.shape[0],):
        raise invalid_argument(f"{op}: scores has incompatible shape {list(scores.shape)}")
    if np.ndim(max_output_size) != 0:
        raise invalid_argument(f"max_output_size must be 0-D, got shape {list(np.shape(max_output_size))}")
    if not 0 <= float(iou_threshold) <= 1:
        raise invalid_argument("iou_threshold must be in [0, 1]")
    return int(max_output_size)


def _nms_v3(boxes, scores, max_output_size, iou_threshold, score_threshold):
    n = _check_nms(boxes, scores, max_output_size, iou_threshold, "NonMaxSuppressionV3")
    iou = _iou_matrix(boxes)
    return greedy_nms(lambda i, j: iou[i, j], scores.astype(_F32), n, iou_threshold, score_threshold)[0]


def _nms_v5(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma,
            pad_to_max_output_size=False):
    n = _check_nms(boxes, scores, max_output_size, iou_threshold, "NonMaxSuppressionV5")
    if float(soft_nms_sigma) < 0:
        raise invalid_argument("soft_nms_sigma must be non-negative")
    iou = _iou_matrix(boxes)
    idx, sel = greedy_nms(lambda i, j: iou[i, j], scores, n, iou_threshold, score_threshold,
                          float(soft_nms_sigma))
    valid = np.int32(len(idx))
    if pad_to_max_output_size:
        idx = np.concatenate([idx, np.zeros(n - len(idx), np.int32)])
        sel = np.concatenate([sel, np.zeros(n - len(sel), sel.dtype)])
    return idx, sel.astype(scores.dtype), valid


def _nms_overlaps(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    if overlaps.ndim != 2 or overlaps.shape[0] != overlaps.shape[1]:
        raise invalid_argument(f"overlaps must be square, got {list(overlaps.shape)}")
    if scores.shape != (overlaps.shape[0],):
        raise invalid_argument(f"scores has incompatible shape {list(scores.shape)}")
    return greedy_nms(lambda i, j: overlaps[i, j], scores.astype(_F32), int(max_output_size), overlap_threshold,
                      score_threshold)[0]


def _nms_infer(op):
    with_rank(op._inputs[0].shape, 2)
    with_rank(op._inputs[1].shape, 1)
    return [(dtypes.int32, TensorShape([None]))]


def _nms_v5_infer(op):
    with_rank(op._inputs[0].shape, 2)
    scores = op._inputs[1]
    with_rank(scores.shape, 1)
    n = None
    if op._attrs["pad_to_max_output_size"]:
        v = constant_value(op._inputs[2])
        n = None if v is None else int(v)
    return [(dtypes.int32, TensorShape([n])), (scores.dtype, TensorShape([n])), (dtypes.int32, TensorShape([]))]


register("NonMaxSuppressionV3", infer=_nms_infer, kernel=_nms_v3, gpu=False)
register("NonMaxSuppressionV5", infer=_nms_v5_infer, kernel=_nms_v5, gpu=False)
register("NonMaxSuppressionWithOverlaps", infer=_nms_infer, kernel=_nms_overlaps, gpu=False)
for _t in ("NonMaxSuppressionV3", "NonMaxSuppressionV5", "NonMaxSuppressionWithOverlaps"):
    not_differentiable(_t)


def _nms_inputs(boxes, scores, max_output_size, threshold, score_threshold, threshold_name="iou_threshold"):
    boxes = convert_to_tensor(boxes, name="boxes")
    if boxes.dtype not in (dtypes.float16, dtypes.float32):
        boxes = convert_to_tensor(boxes, dtype=dtypes.float32)
    scores = convert_to_tensor(scores, dtype=boxes.dtype, name="scores")
    n = convert_to_tensor(max_output_size, dtype=dtypes.int32, name="max_output_size")
    threshold = convert_to_tensor(threshold, dtype=dtypes.float32, name=threshold_name)
    score_threshold = convert_to_tensor(score_threshold, dtype=dtypes.float32, name="score_threshold")
    return boxes, scores, n, threshold, score_threshold


@tf_export("image.non_max_suppression")
def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """Indices of at most ``max_output_size`` boxes, by score, none overlapping a better one by
    more than ``iou_threshold``."""
    with name_scope(name, "non_max_suppression"):
        inputs = _nms_inputs(boxes, scores, max_output_size, iou_threshold, score_threshold)
        return apply_op("NonMaxSuppressionV3", list(inputs)).outputs[0]


@tf_export("image.non_max_suppression_with_scores")
def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """``(selected_indices, selected_scores)``; Soft-NMS when ``soft_nms_sigma > 0``."""
    with name_scope(name, "non_max_suppression_with_scores"):
        inputs = list(_nms_inputs(boxes, scores, max_output_size, iou_threshold, score_threshold))
        sigma = convert_to_tensor(soft_nms_sigma, dtype=dtypes.float32, name="soft_nms_sigma")
        op = apply_op("NonMaxSuppressionV5", inputs + [sigma], {"pad_to_max_output_size": False})
        return op.outputs[0], op.outputs[1]


@tf_export("image.non_max_suppression_overlaps")
def non_max_suppression_with_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                      score_threshold=float("-inf"), name=None):
    """Greedy selection with a given ``[n, n]`` overlap matrix instead of IOU."""
    with name_scope(name, "non_max_suppression_overlaps"):
        overlaps = convert_to_tensor(overlaps, dtype=dtypes.float32, name="overlaps")
        _, scores, n, threshold, score_threshold = _nms_inputs(
            np.zeros((0, 4), np.float32), scores, max_output_size, overlap_threshold, score_threshold,
            "overlap_threshold")
        return apply_op("NonMaxSuppressionWithOverlaps", [overlaps, scores, n, threshold, score_threshold]).outputs[0]


# -- padded (TF's tiled algorithm) ----------------------------------------------------------------


def _nms_padded(boxes, scores, max_output_size, iou_threshold, score_threshold, sorted_input=False,
                canonicalized_coordinates=False):
    n = int(max_output_size)
    batch_shape = boxes.shape[:-2]
    num_boxes = boxes.shape[-2]
    boxes = boxes.reshape(-1, num_boxes, 4).astype(_F32)
    scores = scores.reshape(-1, num_boxes).astype(_F32)
    threshold = _F32(iou_threshold)
    if float(score_threshold) != float("-inf"):
        mask = scores > _F32(score_threshold)
        scores = scores * mask
        boxes = boxes * mask[..., None]
    if not canonicalized_coordinates and boxes.size:
        if not boxes[0, 0, 0] <= boxes[0, 0, 2]:
            boxes = boxes[..., [2, 1, 0, 3]]
        if not boxes[0, 0, 1] <= boxes[0, 0, 3]:
            boxes = boxes[..., [0, 3, 2, 1]]
    idx = np.zeros((boxes.shape[0], n), np.int32)
    valid = np.zeros(boxes.shape[0], np.int32)
    for b in range(boxes.shape[0]):
        order = np.arange(num_boxes) if sorted_input else np.argsort(-scores[b], kind="stable")
        bx = boxes[b][order]
        y1, x1, y2, x2 = bx[:, 0], bx[:, 1], bx[:, 2], bx[:, 3]
        area = (y2 - y1) * (x2 - x1)
        kept, out = [], []
        for i in range(num_boxes):
            if len(out) >= n:
                break
            if kept:
                k = np.asarray(kept)
                inter = (np.maximum(np.minimum(x2[i], x2[k]) - np.maximum(x1[i], x1[k]), 0)
                         * np.maximum(np.minimum(y2[i], y2[k]) - np.maximum(y1[i], y1[k]), 0))
                iou = inter / (area[i] + area[k] - inter + _F32(1e-8))
                if (iou > threshold).any():
                    continue
            kept.append(i)
            if (bx[i] > 0).any():  # TF counts a selected box only when a coordinate is positive
                out.append(i if sorted_input else int(order[i]))
        valid[b] = len(out)
        idx[b, :len(out)] = out
    return idx.reshape(*batch_shape, n), valid.reshape(batch_shape)


def _nms_padded_infer(op):
    boxes = op._inputs[0].shape
    v = constant_value(op._inputs[2])
    n = None if v is None else int(v)
    batch = boxes.as_list()[:-2] if boxes.ndims is not None else None
    if batch is None:
        return [(dtypes.int32, TensorShape(None)), (dtypes.int32, TensorShape(None))]
    return [(dtypes.int32, TensorShape(batch + [n])), (dtypes.int32, TensorShape(batch))]


register("_NonMaxSuppressionPadded", infer=_nms_padded_infer, kernel=_nms_padded, gpu=False)
not_differentiable("_NonMaxSuppressionPadded")


@tf_export("image.non_max_suppression_padded")
def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name=None, sorted_input=False,
                               canonicalized_coordinates=False, tile_size=512):
    """``(selected_indices, num_valid)``; with ``pad_to_max_output_size`` the indices are padded
    with zeros to ``max_output_size`` (and boxes may be batched ``[..., num_boxes, 4]``)."""
    with name_scope(name, "non_max_suppression_padded"):
        boxes = convert_to_tensor(boxes, name="boxes")
        if not pad_to_max_output_size and boxes.shape.ndims is not None and boxes.shape.ndims > 2:
            raise ValueError(f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must be True for "
                             "batched input")
        scores = convert_to_tensor(scores, name="scores")
        n = convert_to_tensor(max_output_size, dtype=dtypes.int32, name="max_output_size")
        threshold = convert_to_tensor(iou_threshold, dtype=dtypes.float32, name="iou_threshold")
        op = apply_op("_NonMaxSuppressionPadded", [boxes, scores, n, threshold],
                      {"score_threshold": float(score_threshold), "sorted_input": bool(sorted_input),
                       "canonicalized_coordinates": bool(canonicalized_coordinates)})
        idx, num_valid = op.outputs
        if not pad_to_max_output_size:
            idx = slice_(idx, [0], reshape(num_valid, [1]))
        return idx, num_valid


# -- combined ---------------------------------------------------------------------------------


def _combined_nms(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold, score_threshold,
                  pad_per_class=False, clip_boxes=True):
    if boxes.ndim != 4 or boxes.shape[3] != 4:
        raise invalid_argument(f"boxes must be 4-D [batch, num_boxes, q, 4], got {list(boxes.shape)}")
    if scores.ndim != 3 or scores.shape[:2] != boxes.shape[:2]:
        raise invalid_argument(f"scores must be 3-D [batch, num_boxes, num_classes], got {list(scores.shape)}")
    batch, _, q, _ = boxes.shape
    num_classes = scores.shape[2]
    if q not in (1, num_classes):
        raise invalid_argument("third dimension of boxes must be either 1 or num classes")
    per_class, total = int(max_output_size_per_class), int(max_total_size)
    if per_class <= 0 or total <= 0:
        raise invalid_argument("max_size_per_class and max_total_size must be > 0")
    if not 0 <= float(iou_threshold) <= 1:
        raise invalid_argument("iou_threshold must be in [0, 1]")
    per_batch = min(total, per_class * num_classes) if pad_per_class else total
    out_boxes = np.zeros((batch, per_batch, 4), _F32)
    out_scores = np.zeros((batch, per_batch), _F32)
    out_classes = np.zeros((batch, per_batch), _F32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        found = []
        for c in range(num_classes):
            cb = boxes[b, :, 0 if q == 1 else c].astype(_F32)
            iou = _iou_matrix(cb)
            idx, sc = greedy_nms(lambda i, j, iou=iou: iou[i, j], scores[b, :, c].astype(_F32), per_class,
                                 iou_threshold, score_threshold)
            found += [(-s, c, i, cb[i]) for i, s in zip(idx, sc)]
        found.sort(key=lambda r: r[0])  # by score; TF's std::sort leaves ties unordered
        k = min(len(found), per_batch)
        valid[b] = k
        for r, (neg, c, _, box) in enumerate(found[:k]):
            out_boxes[b, r] = np.clip(box, 0, 1) if clip_boxes else box
            out_scores[b, r], out_classes[b, r] = -neg, c
    return out_boxes, out_scores, out_classes, valid


def _combined_infer(op):
    boxes, scores = op._inputs[:2]
    with_rank(boxes.shape, 4)
    with_rank(scores.shape, 3)
    batch = boxes.shape.as_list()[0] if boxes.shape.ndims else None
    total = constant_value(op._inputs[3])
    per_class = constant_value(op._inputs[2])
    classes = scores.shape.as_list()[2] if scores.shape.ndims else None
    n = None if total is None else int(total)
    if op._attrs["pad_per_class"]:
        n = None if None in (n, per_class, classes) else min(n, int(per_class) * classes)
    return [(dtypes.float32, TensorShape([batch, n, 4])), (dtypes.float32, TensorShape([batch, n])),
            (dtypes.float32, TensorShape([batch, n])), (dtypes.int32, TensorShape([batch]))]


register("CombinedNonMaxSuppression", infer=_combined_infer, kernel=_combined_nms, gpu=False)
not_differentiable("CombinedNonMaxSuppression")


@tf_export("image.combined_non_max_suppression")
def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class=False, clip_boxes=True, name=None):
    """Per-class NMS over a batch: ``(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)``."""
    with name_scope(name, "combined_non_max_suppression"):
        iou_threshold = convert_to_tensor(iou_threshold, dtype=dtypes.float32, name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, dtype=dtypes.float32, name="score_threshold")
        boxes = convert_to_tensor(boxes, dtype=dtypes.float32, name="boxes")
        scores = convert_to_tensor(scores, dtype=dtypes.float32, name="scores")
        per_class = convert_to_tensor(max_output_size_per_class, dtype=dtypes.int32,
                                      name="max_output_size_per_class")
        total = convert_to_tensor(max_total_size, dtype=dtypes.int32, name="max_total_size")
        op = apply_op("CombinedNonMaxSuppression", [boxes, scores, per_class, total, iou_threshold, score_threshold],
                      {"pad_per_class": bool(pad_per_class), "clip_boxes": bool(clip_boxes)})
        return tuple(op.outputs)


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
