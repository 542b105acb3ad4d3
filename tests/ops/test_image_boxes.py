"""tf.image non-max suppression (greedy, soft, overlaps, padded, combined), draw_bounding_boxes,
sample_distorted_bounding_box and generate_bounding_box_proposals against TF 2.15 figures and TF's rules.

The case table below is run under TF 2.15 (compat.v1) to give EXPECTED (the
scripts are kept under /tmp/ref/image/); the test runs the same table under dflow.
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.image_harness import tf_case_test

rs = np.random.RandomState(7)
_c = rs.uniform(0, 1, (12, 2)).astype(np.float32)
_s = rs.uniform(0.05, 0.4, (12, 2)).astype(np.float32)
BOXES = np.concatenate([_c, _c + _s], 1)[:, [0, 1, 2, 3]]
BOXES[3] = BOXES[3][[2, 3, 0, 1]]  # corners given max first
SCORES = rs.permutation(12).astype(np.float32) / 12 + 0.01
OVERLAPS = rs.uniform(0, 1, (12, 12)).astype(np.float32)
CB = rs.uniform(-0.1, 1.0, (2, 8, 1, 4)).astype(np.float32)
CB[..., 2:] = CB[..., :2] + rs.uniform(0.1, 0.5, (2, 8, 1, 2)).astype(np.float32)
CS = (rs.permutation(2 * 8 * 3).reshape(2, 8, 3).astype(np.float32) + 1) / 50
CBQ = np.repeat(CB, 3, axis=2) + rs.uniform(-0.05, 0.05, (2, 8, 3, 4)).astype(np.float32)
IMG = np.full((2, 6, 7, 3), 0.25, np.float32)
DRAW_BOXES = np.array([[[0.1, 0.2, 0.6, 0.9], [0.5, -0.2, 1.3, 0.4], [0.8, 0.8, 0.2, 0.9]],
                       [[0.0, 0.0, 1.0, 1.0], [0.3, 0.3, 0.35, 0.36], [-0.5, -0.5, -0.1, 0.5]]], np.float32)


def cases(tf):
    pad = tf.image.non_max_suppression_padded
    cb = tf.constant(BOXES)
    out = {
        "nms": tf.image.non_max_suppression(BOXES, SCORES, 6, 0.3),
        "nms_threshold": tf.image.non_max_suppression(BOXES, SCORES, 10, 0.1, score_threshold=0.4),
        "nms_all": tf.image.non_max_suppression(BOXES, SCORES, 20, 0.9),
        "nms_overlaps": tf.image.non_max_suppression_overlaps(OVERLAPS, SCORES, 5, 0.6),
        "nms_padded_idx": pad(cb, SCORES, 5, 0.3)[0],
        "nms_padded_pad": pad(cb, SCORES, 9, 0.2, pad_to_max_output_size=True)[0],
        "nms_padded_valid": pad(cb, SCORES, 9, 0.2, pad_to_max_output_size=True)[1],
        "nms_padded_batch": pad(tf.constant(np.stack([BOXES, BOXES[::-1]])), np.stack([SCORES, SCORES]), 4, 0.3,
                                pad_to_max_output_size=True)[0],
        "nms_padded_threshold": pad(cb, SCORES, 8, 0.3, score_threshold=0.5, pad_to_max_output_size=True)[0],
    }
    idx, sc = tf.image.non_max_suppression_with_scores(BOXES, SCORES, 8, 0.3)
    out.update(nms_scores_idx=idx, nms_scores=sc)
    idx, sc = tf.image.non_max_suppression_with_scores(BOXES, SCORES, 8, 1.0, score_threshold=0.2,
                                                       soft_nms_sigma=0.5)
    out.update(soft_nms_idx=idx, soft_nms_scores=sc)
    for key, kw in (("combined", {}), ("combined_pad", {"pad_per_class": True}),
                    ("combined_noclip", {"clip_boxes": False, "score_threshold": 0.3})):
        r = tf.image.combined_non_max_suppression(CB, CS, 2, 5, 0.4, **kw)
        for name, t in zip(("boxes", "scores", "classes", "valid"), r):
            out[f"{key}_{name}"] = t
    r = tf.image.combined_non_max_suppression(CBQ, CS, 3, 7, 0.3, pad_per_class=True)
    for name, t in zip(("boxes", "scores", "classes", "valid"), r):
        out[f"combined_q_{name}"] = t
    out["draw"] = tf.image.draw_bounding_boxes(IMG, DRAW_BOXES)
    out["draw_gray"] = tf.image.draw_bounding_boxes(IMG[..., :1], DRAW_BOXES)
    colors = [[0.5, 0.6, 0.7, 1], [0.1, 0.2, 0.3, 1]]
    out["draw_colors"] = tf.image.draw_bounding_boxes(IMG, DRAW_BOXES, colors=colors)
    return out


NAMES_DIFFER = {"nms_padded_idx", "nms_padded_pad", "nms_padded_valid", "nms_padded_batch", "nms_padded_threshold"}
TOLERANCE = {}


EXPECTED = {
    'nms': ('non_max_suppression/NonMaxSuppressionV3:0', [None], 'int32', [6],
        [0, 8, 5, 7, 3, 1]),
    'nms_threshold': ('non_max_suppression_1/NonMaxSuppressionV3:0', [None], 'int32', [5],
        [0, 8, 5, 7, 3]),
    'nms_all': ('non_max_suppression_2/NonMaxSuppressionV3:0', [None], 'int32', [12],
        [0, 8, 5, 7, 3, 4, 6, 1, 9, 10, 11, 2]),
    'nms_overlaps': ('non_max_suppression_overlaps/NonMaxSuppressionWithOverlaps:0', [None], 'int32', [5],
        [0, 5, 7, 4, 10]),
    'nms_padded_idx': ('non_max_suppression_padded/strided_slice:0', [None], 'int32', [5],
        [0, 8, 5, 7, 3]),
    'nms_padded_pad': ('non_max_suppression_padded_1/Reshape:0', [9], 'int32', [9],
        [0, 8, 5, 7, 3, 6, 1, 9, 2]),
    'nms_padded_valid': ('non_max_suppression_padded_2/PartitionedCall:1', [], 'int32', [],
        [9]),
    'nms_padded_batch': ('non_max_suppression_padded_3/Reshape:0', [2, 4], 'int32', [2, 4],
        [0, 8, 5, 7, 0, 8, 5, 3]),
    'nms_padded_threshold': ('non_max_suppression_padded_4/Reshape:0', [8], 'int32', [8],
        [0, 8, 5, 7, 3, 0, 0, 0]),
    'nms_scores_idx': ('non_max_suppression_with_scores/NonMaxSuppressionV5:0', [None], 'int32', [8],
        [0, 8, 5, 7, 3, 1, 9, 10]),
    'nms_scores': ('non_max_suppression_with_scores/NonMaxSuppressionV5:1', [None], 'float32', [8],
        [0.9266667, 0.8433333, 0.76, 0.6766667, 0.5933333, 0.34333333, 0.26, 0.17666668]),
    'soft_nms_idx': ('non_max_suppression_with_scores_1/NonMaxSuppressionV5:0', [None], 'int32', [8],
        [0, 8, 5, 7, 3, 4, 6, 1]),
    'soft_nms_scores': ('non_max_suppression_with_scores_1/NonMaxSuppressionV5:1', [None], 'float32', [8],
        [0.9266667, 0.8433333, 0.76, 0.6766667, 0.5933333, 0.45293954, 0.38619837, 0.33750844]),
    'combined_boxes': ('combined_non_max_suppression/CombinedNonMaxSuppression:0', [2, 5, 4], 'float32', [2, 5, 4],
        [0.65339446, 0.7985834, 0.8193852, 1.0, 0.23842005, 0.17103301, 0.5005271, 0.3350464, 0.7271489, 0.0,
         0.97549886, 0.2124179, 0.36708808, 0.55300105, 0.5987079, 0.6768141, 0.7271489, 0.0, 0.97549886, 0.2124179,
         0.00928227, 0.61087954, 0.40185076, 0.9203627, 0.21831009, 0.46456775, 0.5303922, 0.58183575, 0.98374164,
         0.02728545, 1.0, 0.16380218, 0.49689484, 0.40335876, 0.6339276, 0.54578245, 0.00928227, 0.61087954,
         0.40185076, 0.9203627]),
    'combined_scores': ('combined_non_max_suppression/CombinedNonMaxSuppression:1', [2, 5], 'float32', [2, 5],
        [0.96, 0.94, 0.88, 0.8, 0.78, 0.92, 0.9, 0.86, 0.82, 0.72]),
    'combined_classes': ('combined_non_max_suppression/CombinedNonMaxSuppression:2', [2, 5], 'float32', [2, 5],
        [2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 0.0, 0.0, 2.0, 1.0]),
    'combined_valid': ('combined_non_max_suppression/CombinedNonMaxSuppression:3', [2], 'int32', [2],
        [5, 5]),
    'combined_pad_boxes': (
        'combined_non_max_suppression_1/CombinedNonMaxSuppression:0',
        [2, 5, 4], 'float32', [2, 5, 4],
        [0.65339446, 0.7985834, 0.8193852, 1.0, 0.23842005, 0.17103301, 0.5005271, 0.3350464, 0.7271489, 0.0,
         0.97549886, 0.2124179, 0.36708808, 0.55300105, 0.5987079, 0.6768141, 0.7271489, 0.0, 0.97549886, 0.2124179,
         0.00928227, 0.61087954, 0.40185076, 0.9203627, 0.21831009, 0.46456775, 0.5303922, 0.58183575, 0.98374164,
         0.02728545, 1.0, 0.16380218, 0.49689484, 0.40335876, 0.6339276, 0.54578245, 0.00928227, 0.61087954,
         0.40185076, 0.9203627]),
    'combined_pad_scores': ('combined_non_max_suppression_1/CombinedNonMaxSuppression:1', [2, 5], 'float32', [2, 5],
        [0.96, 0.94, 0.88, 0.8, 0.78, 0.92, 0.9, 0.86, 0.82, 0.72]),
    'combined_pad_classes': ('combined_non_max_suppression_1/CombinedNonMaxSuppression:2', [2, 5], 'float32', [2, 5],
        [2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 0.0, 0.0, 2.0, 1.0]),
    'combined_pad_valid': ('combined_non_max_suppression_1/CombinedNonMaxSuppression:3', [2], 'int32', [2],
        [5, 5]),
    'combined_noclip_boxes': (
        'combined_non_max_suppression_2/CombinedNonMaxSuppression:0',
        [2, 5, 4], 'float32', [2, 5, 4],
        [0.65339446, 0.7985834, 0.8193852, 1.2097274, 0.23842005, 0.17103301, 0.5005271, 0.3350464, 0.7271489,
         -0.03216814, 0.97549886, 0.2124179, 0.36708808, 0.55300105, 0.5987079, 0.6768141, 0.7271489, -0.03216814,
         0.97549886, 0.2124179, 0.00928227, 0.61087954, 0.40185076, 0.9203627, 0.21831009, 0.46456775, 0.5303922,
         0.58183575, 0.98374164, 0.02728545, 1.463113, 0.16380218, 0.49689484, 0.40335876, 0.6339276, 0.54578245,
         0.00928227, 0.61087954, 0.40185076, 0.9203627]),
    'combined_noclip_scores': (
        'combined_non_max_suppression_2/CombinedNonMaxSuppression:1',
        [2, 5], 'float32', [2, 5],
        [0.96, 0.94, 0.88, 0.8, 0.78, 0.92, 0.9, 0.86, 0.82, 0.72]),
    'combined_noclip_classes': (
        'combined_non_max_suppression_2/CombinedNonMaxSuppression:2',
        [2, 5], 'float32', [2, 5],
        [2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 0.0, 0.0, 2.0, 1.0]),
    'combined_noclip_valid': ('combined_non_max_suppression_2/CombinedNonMaxSuppression:3', [2], 'int32', [2],
        [5, 5]),
    'combined_q_boxes': (
        'combined_non_max_suppression_3/CombinedNonMaxSuppression:0',
        [2, 7, 4], 'float32', [2, 7, 4],
        [0.6955324, 0.8401035, 0.86376256, 1.0, 0.251007, 0.17113154, 0.52201784, 0.3274294, 0.7087536, 0.00712956,
         0.9779292, 0.16632122, 0.843507, 0.56805307, 1.0, 1.0, 0.35703295, 0.53866726, 0.59473836, 0.6542683,
         0.74456, 0.0, 0.95978636, 0.25769305, 0.821854, 0.63417447, 0.9847323, 1.0, 0.0, 0.5682983, 0.37525272,
         0.950239, 0.18206386, 0.43943593, 0.51758677, 0.55350995, 0.9813975, 0.0, 1.0, 0.14948164, 0.53629,
         0.37378415, 0.6093089, 0.59187025, 0.0, 0.61130697, 0.38854086, 0.8792534, 0.47437042, 0.27106753,
         0.72169954, 0.39009014, 0.22465827, 0.43693164, 0.53788465, 0.6254382]),
    'combined_q_scores': ('combined_non_max_suppression_3/CombinedNonMaxSuppression:1', [2, 7], 'float32', [2, 7],
        [0.96, 0.94, 0.88, 0.84, 0.8, 0.78, 0.76, 0.92, 0.9, 0.86, 0.82, 0.72, 0.7, 0.68]),
    'combined_q_classes': ('combined_non_max_suppression_3/CombinedNonMaxSuppression:2', [2, 7], 'float32', [2, 7],
        [2.0, 0.0, 0.0, 0.0, 1.0, 2.0, 2.0, 2.0, 0.0, 0.0, 2.0, 1.0, 2.0, 1.0]),
    'combined_q_valid': ('combined_non_max_suppression_3/CombinedNonMaxSuppression:3', [2], 'int32', [2],
        [7, 7]),
    'draw': ('DrawBoundingBoxes:0', [2, 6, 7, 3], 'float32', [2, 6, 7, 3],
        [0.25, 0.25, 0.25, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.25, 0.25,
         0.25, 0.25, 0.25, 0.25, 1.0, 1.0, 0.0, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 1.0, 1.0, 0.0,
         0.25, 0.25, 0.25, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 1.0,
         1.0, 0.0, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0,
         1.0, 1.0, 0.0, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.0, 0.0, 1.0, 0.25, 0.25, 0.25, 0.25,
         0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.0, 0.0, 1.0, 0.25,
         0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0,
         0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
         1.0, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.25, 0.25, 0.25,
         0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.25,
         0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 1.0, 1.0, 0.0, 1.0,
         1.0, 0.0, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 1.0,
         1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0,
         1.0, 0.0]),
    'draw_gray': ('DrawBoundingBoxes_1:0', [2, 6, 7, 1], 'float32', [2, 6, 7, 1],
        [0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 0.25, 0.25, 1.0, 0.25, 0.25, 0.25, 1.0, 0.25, 1.0, 1.0, 1.0, 0.25, 0.25,
         1.0, 0.25, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 0.25, 0.25, 0.25, 1.0, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 1.0,
         0.25, 0.25, 0.25, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.25, 0.25, 0.25, 1.0, 1.0, 0.25,
         0.25, 0.25, 0.25, 0.25, 1.0, 1.0, 0.25, 0.25, 0.25, 0.25, 0.25, 1.0, 1.0, 0.25, 0.25, 0.25, 0.25, 0.25,
         1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
    'draw_colors': ('DrawBoundingBoxesV2:0', [2, 6, 7, 3], 'float32', [2, 6, 7, 3],
        [0.25, 0.25, 0.25, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.25, 0.25,
         0.25, 0.25, 0.25, 0.25, 0.5, 0.6, 0.7, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.5, 0.6, 0.7,
         0.25, 0.25, 0.25, 0.1, 0.2, 0.3, 0.1, 0.2, 0.3, 0.1, 0.2, 0.3, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.5,
         0.6, 0.7, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.5, 0.6, 0.7, 0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7,
         0.5, 0.6, 0.7, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.1, 0.2, 0.3, 0.25, 0.25, 0.25, 0.25,
         0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.1, 0.2, 0.3, 0.25,
         0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.5, 0.6,
         0.7, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.1, 0.2, 0.3, 0.1, 0.2,
         0.3, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.25, 0.25, 0.25,
         0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.25,
         0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.5, 0.6, 0.7, 0.5,
         0.6, 0.7, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.5,
         0.6, 0.7, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.5, 0.6, 0.7, 0.5,
         0.6, 0.7]),
}


test_matches_tf = tf_case_test(cases, EXPECTED, NAMES_DIFFER, TOLERANCE)


def test_sample_distorted_bounding_box_draws_valid_seeded_crops():
    boxes = np.array([[[0.2, 0.3, 0.6, 0.8], [0.1, 0.1, 0.3, 0.2]]], np.float32)
    begin, size, bbox = tf.image.sample_distorted_bounding_box([40, 60, 3], boxes, seed=4, min_object_covered=0.5,
                                                               area_range=(0.1, 0.9))
    assert begin.name == "sample_distorted_bounding_box/SampleDistortedBoundingBoxV2:0"
    assert begin.shape.as_list() == [3] and bbox.shape.as_list() == [1, 1, 4] and begin.dtype == tf.int32
    image = tf.zeros([40, 60, 3])
    crop = tf.slice(image, begin, size)
    with tf.Session() as s1:
        draws = [s1.run([begin, size, bbox, tf.shape(crop)]) for _ in range(20)]
    with tf.Session() as s2:
        again = s2.run([begin, size])
    np.testing.assert_array_equal(again[0], draws[0][0])
    assert len({tuple(d[1]) for d in draws}) > 1  # it is random
    for b, s, bb, shape in draws:
        y, x, h, w = b[0], b[1], s[0], s[1]
        assert b[2] == 0 and s[2] == -1 and list(shape) == [h, w, 3]
        assert 0 <= y and y + h <= 40 and 0 <= x and x + w <= 60
        area = h * w / (40 * 60)
        assert 0.1 - 0.01 <= area <= 0.9 + 0.01 or (h, w) == (40, 60)
        np.testing.assert_allclose(bb[0, 0], [y / 40, x / 60, (y + h) / 40, (x + w) / 60], rtol=1e-6)
        # at least half of one box is inside the crop
        covered = []
        for y0, x0, y1, x1 in [(8, 18, 24, 48), (4, 6, 12, 12)]:
            iy = max(0, min(y + h, y1) - max(y, y0))
            ix = max(0, min(x + w, x1) - max(x, x0))
            covered.append(iy * ix / ((y1 - y0) * (x1 - x0)))
        assert max(covered) >= 0.5 or (h, w) == (40, 60)


def test_sample_distorted_bounding_box_errors():
    with pytest.raises(TypeError, match="image_size"):
        tf.image.sample_distorted_bounding_box(tf.constant([4.0, 4.0, 3.0]), np.zeros((1, 1, 4), np.float32))
    begin = tf.image.sample_distorted_bounding_box([4, 4, 3], tf.zeros([1, 0, 4]))[0]
    bad = tf.image.sample_distorted_bounding_box([4, 4, 3], [[[0.0, 0.0, 1.5, 1.0]]])[0]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="No bounding boxes provided"):
            sess.run(begin)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"must be in \[0.0, 1.0\]"):
            sess.run(bad)
    whole = tf.image.sample_distorted_bounding_box([4, 5, 3], tf.zeros([1, 0, 4]), seed=1,
                                                   use_image_if_no_bounding_boxes=True, min_object_covered=1.0)
    with tf.Session() as sess:
        b, s, _ = sess.run(whole)
    assert 0 <= b[0] and b[0] + s[0] <= 4


@pytest.mark.parametrize("build,error,match", [
    (lambda: tf.image.non_max_suppression(BOXES[0], SCORES, 3), ValueError, "Shape must be rank 2"),
    (lambda: tf.image.non_max_suppression_padded(tf.constant(np.stack([BOXES, BOXES])), np.stack([SCORES, SCORES]),
                                                 3), ValueError, "must be True for batched input"),
    (lambda: tf.image.draw_bounding_boxes(IMG.astype(np.uint8), DRAW_BOXES), TypeError, "not in list of allowed"),
])
def test_bad_arguments_raise_tf_errors(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_bad_iou_threshold_fails_at_run_time():
    y = tf.image.non_max_suppression(BOXES, SCORES, 3, iou_threshold=1.5)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"iou_threshold must be in \[0, 1\]"):
            sess.run(y)


def test_generate_bounding_box_proposals_by_hand():
    # TF 2.15 has no CPU kernel for this op, so the figures are worked out by hand from its GPU kernel's steps.
    scores = np.array([[[[0.9, 0.1], [0.8, 0.7]], [[0.3, 0.6], [0.2, 0.95]]]], np.float32)
    anchors = np.zeros((2, 2, 8), np.float32)
    for h in range(2):
        for w in range(2):
            anchors[h, w] = [h * 10, w * 10, h * 10 + 20, w * 10 + 20, h * 10, w * 10, h * 10 + 10, w * 10 + 40]
    deltas = np.zeros((1, 2, 2, 8), np.float32)
    deltas[0, 1, 1, 4:] = [0.1, 0.0, 0.0, 0.0]  # the best box moves down by a tenth of its height
    rois, probs = tf.image.generate_bounding_box_proposals(scores, deltas, [[30.0, 40.0, 1.0, 0.0, 0.0]], anchors,
                                                           nms_threshold=0.5, pre_nms_topn=10, min_size=5,
                                                           post_nms_topn=6)
    assert rois.shape.as_list() == [1, 6, 4] and probs.shape.as_list() == [1, 6]
    with tf.Session() as sess:
        r, p = sess.run([rois, probs])
    # (h1,w1,a1) clipped at x=40; (h1,w0,a1) overlaps it by IoU 0.63 > 0.5 and is suppressed; (h1,w1,a0) and
    # (h0,w0,a1) fall after the 0.3 box; padding fills the rest
    np.testing.assert_allclose(r[0], [[11, 10, 21, 40], [0, 0, 20, 20], [0, 10, 20, 30], [0, 10, 10, 40],
                                      [10, 0, 30, 20], [10, 10, 30, 30]], atol=1e-5)
    np.testing.assert_allclose(p[0], [0.95, 0.9, 0.8, 0.7, 0.3, 0.2], atol=1e-6)
    small = tf.image.generate_bounding_box_proposals(scores, deltas, [[30.0, 40.0, 1.0, 0.0, 0.0]], anchors,
                                                     min_size=15, post_nms_topn=3)[1]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(small)[0], [0.9, 0.8, 0.3], atol=1e-6)  # min side >= 15 only
        with pytest.raises(tf.errors.InvalidArgumentError, match="anchors must be"):
            sess.run(tf.image.generate_bounding_box_proposals(scores, deltas, [[30.0, 40.0, 1.0, 0.0, 0.0]],
                                                              anchors[:1])[0])
