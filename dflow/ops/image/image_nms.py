"""``tf.image`` non-max suppression, as TF's CPU kernels compute it.

TF's greedy loop: candidates in a priority queue by score (the lower index
first among equal scores), each compared with the boxes selected so far,
newest first; soft-NMS (``soft_nms_sigma > 0``) decays a candidate's score by
``exp(-0.5 * iou**2 / sigma)`` and puts it back in the queue.
``non_max_suppression_padded`` is TF's tiled algorithm, which selects the same
boxes as the greedy loop (with its quirk that a selected box with no positive
coordinate counts as padding). ``combined_non_max_suppression`` runs the loop
per class and keeps the best ``max_total_size`` per batch entry.
"""

from __future__ import annotations

import heapq

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, constant_value, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument
from dflow.ops.array.shape_ops import reshape
from dflow.ops.array.slicing_ops import slice as slice_
from dflow.ops.nn._nn_util import with_rank

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
