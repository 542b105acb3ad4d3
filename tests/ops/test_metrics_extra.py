"""tf.metrics at thresholds, at k, per class and per element, against TF 2.15 (tensorflow.compat.v1).

Every figure, name and error was taken from the same graph run in TF 2.15.1 with
``tf.disable_eager_execution()`` (reference scripts under /tmp/ref/metrics): the value
before any update, then ``update_op`` and the value after each of two fed batches.
dflow never imports TensorFlow.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dflow as tf

NAN = float("nan")

LABELS = np.array([0, 1, 1, 0, 1, 0, 1, 1], np.int64)
PREDS = np.array([0.1, 0.8, 0.45, 0.3, 0.95, 0.6, 0.2, 0.7], np.float32)
W = np.array([1.0, 2.0, 0.5, 1.0, 0.0, 1.0, 3.0, 1.0], np.float32)
Y = np.array([1.0, 2.0, 3.0, 4.0, -1.0, 0.5, 2.0, 2.0], np.float32)
NORM = np.array([2.0, 0.0, 1.5, 4.0, 1.0, 2.0, 0.0, 3.0], np.float32)
CLS = np.array([0, 1, 2, 2, 1, 0, 1, 2], np.int64)
CLS_P = np.array([0, 2, 2, 1, 1, 0, 0, 2], np.int64)
SCORES = np.array([[0.1, 0.5, 0.2, 0.15, 0.05], [0.3, 0.1, 0.05, 0.4, 0.15], [0.05, 0.2, 0.35, 0.1, 0.3],
                   [0.6, 0.1, 0.1, 0.1, 0.1], [0.2, 0.2, 0.25, 0.05, 0.3], [0.1, 0.3, 0.2, 0.25, 0.15]], np.float32)
K1 = np.array([1, 0, 4, 0, 2, 7], np.int64)
K2 = np.array([[1, 2], [3, -1], [4, 2], [1, 1], [0, 9], [3, 1]], np.int64)
KW = np.array([1.0, 2.0, 0.5, 0.0, 1.0, 3.0], np.float32)
SP_IDX1 = np.array([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]], np.int64)
SP_VAL1 = np.array([1, 2, 3, 4, 2, 0], np.int64)
SP_IDX2 = np.array([[0, 0], [1, 0], [1, 1], [2, 0], [2, 1]], np.int64)
SP_VAL2 = np.array([1, 0, 9, 3, 1], np.int64)
TENS = np.arange(12, dtype=np.float32).reshape(4, 3) / 4.0 - 1.0
COS_L = np.array([[1, 0, 0], [0, 0.6, 0.8], [0.6, 0.8, 0], [0, 0, 1]], np.float32)
COS_P = np.array([[0.8, 0.6, 0], [0, 1, 0], [0.6, 0.8, 0], [0, 0.6, -0.8]], np.float32)




def ph(dtype, shape):
    return tf.placeholder(dtype, shape)


def halves(*arrays, n):
    return [[a[:n] for a in arrays], [a[n:] for a in arrays]]


# group -> (placeholders, two batches fed into them)
GROUPS = {
    "cls": (lambda: [ph(tf.int64, [None]), ph(tf.float32, [None]), ph(tf.float32, [None])],
            halves(LABELS, PREDS, W, n=4)),
    "reg": (lambda: [ph(tf.float32, [None]), ph(tf.float32, [None]), ph(tf.float32, [None]), ph(tf.float32, [None])],
            halves(Y, PREDS * 4, W, NORM, n=4)),
    "iou": (lambda: [ph(tf.int64, [None]), ph(tf.int64, [None]), ph(tf.float32, [None])],
            halves(CLS, CLS_P, W, n=4)),
    "k1": (lambda: [ph(tf.int64, [None]), ph(tf.float32, [None, 5]), ph(tf.float32, [None])],
           halves(K1, SCORES, KW, n=3)),
    "k2": (lambda: [ph(tf.int64, [None, 2]), ph(tf.float32, [None, 5]), ph(tf.float32, [None])],
           halves(K2, SCORES, KW, n=3)),
    "ksp": (lambda: [tf.sparse_placeholder(tf.int64, [None, 3]), ph(tf.float32, [None, 5]), ph(tf.float32, [None])],
            [[tf.SparseTensorValue(SP_IDX1, SP_VAL1, [3, 3]), SCORES[:3], KW[:3]],
             [tf.SparseTensorValue(SP_IDX2, SP_VAL2, [3, 2]), SCORES[3:], KW[3:]]]),
    "tens": (lambda: [ph(tf.float32, [2, 3]), ph(tf.float32, [2, 1])], halves(TENS, W[:4, None], n=2)),
    "cos": (lambda: [ph(tf.float32, [None, 3]), ph(tf.float32, [None, 3]), ph(tf.float32, [None, 1])],
            halves(COS_L, COS_P, W[:4, None], n=2)),
}

TH = [0.25, 0.5, 0.75]
CASES = [
    ("tp_at_thresholds", "cls", lambda tf, lab, p, w: tf.metrics.true_positives_at_thresholds(lab, p, TH)),
    ("fp_at_thresholds_w", "cls", lambda tf, lab, p, w: tf.metrics.false_positives_at_thresholds(lab, p, TH, w)),
    ("fn_at_thresholds_w", "cls", lambda tf, lab, p, w: tf.metrics.false_negatives_at_thresholds(lab, p, TH, w)),
    ("tn_at_thresholds", "cls", lambda tf, lab, p, w: tf.metrics.true_negatives_at_thresholds(lab, p, TH)),
    ("precision_at_thresholds", "cls", lambda tf, lab, p, w: tf.metrics.precision_at_thresholds(lab, p, TH)),
    ("precision_at_thresholds_w", "cls", lambda tf, lab, p, w: tf.metrics.precision_at_thresholds(lab, p, TH, w)),
    ("recall_at_thresholds", "cls", lambda tf, lab, p, w: tf.metrics.recall_at_thresholds(lab, p, TH)),
    ("recall_at_thresholds_w", "cls", lambda tf, lab, p, w: tf.metrics.recall_at_thresholds(lab, p, TH, w)),
    ("sens_at_spec", "cls", lambda tf, lab, p, w: tf.metrics.sensitivity_at_specificity(lab, p, 0.7)),
    ("sens_at_spec_w7", "cls", lambda tf, lab, p, w: tf.metrics.sensitivity_at_specificity(lab, p, 0.4, w,
                                                                                         num_thresholds=7)),
    ("spec_at_sens", "cls", lambda tf, lab, p, w: tf.metrics.specificity_at_sensitivity(lab, p, 0.7)),
    ("spec_at_sens_w7", "cls", lambda tf, lab, p, w: tf.metrics.specificity_at_sensitivity(lab, p, 0.5, w,
                                                                                         num_thresholds=7)),
    ("percentage_below", "cls", lambda tf, lab, p, w: tf.metrics.percentage_below(p, 0.5)),
    ("percentage_below_w", "cls", lambda tf, lab, p, w: tf.metrics.percentage_below(p, 0.5, w)),
    ("mean_relative_error", "reg", lambda tf, lab, p, w, n: tf.metrics.mean_relative_error(lab, p, n)),
    ("mean_relative_error_w", "reg", lambda tf, lab, p, w, n: tf.metrics.mean_relative_error(lab, p, n, w)),
    ("mean_iou", "iou", lambda tf, lab, p, w: tf.metrics.mean_iou(lab, p, 3)),
    ("mean_iou_w", "iou", lambda tf, lab, p, w: tf.metrics.mean_iou(lab, p, 4, w)),
    ("mean_per_class_accuracy", "iou", lambda tf, lab, p, w: tf.metrics.mean_per_class_accuracy(lab, p, 3)),
    ("mean_per_class_accuracy_w", "iou", lambda tf, lab, p, w: tf.metrics.mean_per_class_accuracy(lab, p, 4, w)),
    ("mean_tensor", "tens", lambda tf, v, w: tf.metrics.mean_tensor(v)),
    ("mean_tensor_w", "tens", lambda tf, v, w: tf.metrics.mean_tensor(v, w)),
    ("mean_cosine_distance", "cos", lambda tf, lab, p, w: tf.metrics.mean_cosine_distance(lab, p, 1)),
    ("mean_cosine_distance_w", "cos", lambda tf, lab, p, w: tf.metrics.mean_cosine_distance(lab, p, 1, w)),
    ("precision_at_k1", "k1", lambda tf, lab, p, w: tf.metrics.precision_at_k(lab, p, 2)),
    ("precision_at_k1_w", "k1", lambda tf, lab, p, w: tf.metrics.precision_at_k(lab, p, 3, weights=w)),
    ("precision_at_k2", "k2", lambda tf, lab, p, w: tf.metrics.precision_at_k(lab, p, 2)),
    ("precision_at_k2_class", "k2", lambda tf, lab, p, w: tf.metrics.precision_at_k(lab, p, 2, class_id=1)),
    ("precision_at_k2_class_w", "k2", lambda tf, lab, p, w: tf.metrics.precision_at_k(lab, p, 3, 2, w)),
    ("sparse_precision_at_k", "k2", lambda tf, lab, p, w: tf.metrics.sparse_precision_at_k(lab, p, 1)),
    ("precision_at_top_k", "k2", lambda tf, lab, p, w: tf.metrics.precision_at_top_k(
        lab, tf.nn.top_k(p, 2).indices, weights=w)),
    ("recall_at_k1", "k1", lambda tf, lab, p, w: tf.metrics.recall_at_k(lab, p, 2)),
    ("recall_at_k1_class", "k1", lambda tf, lab, p, w: tf.metrics.recall_at_k(lab, p, 2, class_id=0, weights=w)),
    ("recall_at_k2", "k2", lambda tf, lab, p, w: tf.metrics.recall_at_k(lab, p, 2)),
    ("recall_at_k2_w", "k2", lambda tf, lab, p, w: tf.metrics.recall_at_k(lab, p, 3, weights=w)),
    ("recall_at_k2_class", "k2", lambda tf, lab, p, w: tf.metrics.recall_at_k(lab, p, 2, class_id=3)),
    ("recall_at_top_k", "k2", lambda tf, lab, p, w: tf.metrics.recall_at_top_k(lab, tf.nn.top_k(p, 3).indices, k=3)),
    ("average_precision_at_k1", "k1", lambda tf, lab, p, w: tf.metrics.average_precision_at_k(lab, p, 3)),
    ("average_precision_at_k1_w", "k1", lambda tf, lab, p, w: tf.metrics.average_precision_at_k(lab, p, 2, w)),
    ("average_precision_at_k2", "k2", lambda tf, lab, p, w: tf.metrics.average_precision_at_k(lab, p, 3)),
    ("average_precision_at_k2_w", "k2", lambda tf, lab, p, w: tf.metrics.average_precision_at_k(lab, p, 1, w)),
    ("sparse_average_precision_at_k", "k2", lambda tf, lab, p, w: tf.metrics.sparse_average_precision_at_k(
        lab, p, 4)),
    ("precision_at_k_sparse", "ksp", lambda tf, lab, p, w: tf.metrics.precision_at_k(lab, p, 2)),
    ("precision_at_k_sparse_class_w", "ksp", lambda tf, lab, p, w: tf.metrics.precision_at_k(lab, p, 3, 2, w)),
    ("recall_at_k_sparse_w", "ksp", lambda tf, lab, p, w: tf.metrics.recall_at_k(lab, p, 2, weights=w)),
    ("recall_at_k_sparse_class", "ksp", lambda tf, lab, p, w: tf.metrics.recall_at_k(lab, p, 3, class_id=1)),
    ("average_precision_at_k_sparse", "ksp", lambda tf, lab, p, w: tf.metrics.average_precision_at_k(lab, p, 3)),
    ("average_precision_at_k_sparse_w", "ksp", lambda tf, lab, p, w: tf.metrics.average_precision_at_k(
        lab, p, 2, w, name="my_ap")),
]


# TF 2.15 figures: the value before any update, then update_op after each batch (the value
# read after it is equal; where update_op differs from the value, a tuple (update_op, value):
# mean_iou's confusion matrix, mean_per_class_accuracy's per-class accuracies).
STREAMS = {
    "tp_at_thresholds": [[0.0, 0.0, 0.0], [2.0, 1.0, 1.0], [4.0, 3.0, 2.0]],
    "fp_at_thresholds_w": [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 1.0, 0.0]],
    "fn_at_thresholds_w": [[0.0, 0.0, 0.0], [0.0, 0.5, 0.5], [3.0, 3.5, 4.5]],
    "tn_at_thresholds": [[0.0, 0.0, 0.0], [1.0, 2.0, 2.0], [1.0, 2.0, 3.0]],
    "precision_at_thresholds": [[0.0, 0.0, 0.0], [0.6666666865348816, 0.9999998807907104,
        0.9999998807907104], [0.6666666865348816, 0.75, 1.0]],
    "precision_at_thresholds_w": [[0.0, 0.0, 0.0], [0.7142857313156128, 1.0, 1.0], [0.6363636255264282, 0.75,
        1.0]],
    "recall_at_thresholds": [[0.0, 0.0, 0.0], [1.0, 0.5, 0.5], [0.800000011920929, 0.6000000238418579,
        0.4000000059604645]],
    "recall_at_thresholds_w": [[0.0, 0.0, 0.0], [1.0, 0.800000011920929, 0.800000011920929],
        [0.5384615659713745, 0.4615384638309479, 0.3076923191547394]],
    "sens_at_spec": [0.0, 1.0, 0.800000011920929],
    "sens_at_spec_w7": [0.0, 1.0, 1.0],
    "spec_at_sens": [0.0, 1.0, 1.0],
    "spec_at_sens_w7": [0.0, 1.0, 1.0],
    "percentage_below": [0.0, 0.75, 0.5],
    "percentage_below_w": [0.0, 0.5555555820465088, 0.5789473652839661],
    "mean_relative_error": [0.0, 0.44999998807907104, 0.9770833253860474],
    "mean_relative_error_w": [0.0, 0.31111112236976624, 0.2754386067390442],
    "mean_iou": [0.0, ([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 1.0]], 0.4444444477558136), ([[2.0, 0.0,
        0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 2.0]], 0.472222238779068)],
    "mean_iou_w": [0.0, ([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.5, 0.0], [0.0, 0.0, 0.0,
        0.0]], 0.380952388048172), ([[2.0, 0.0, 0.0, 0.0], [3.0, 0.0, 2.0, 0.0], [0.0, 1.0, 1.5, 0.0], [0.0, 0.0,
        0.0, 0.0]], 0.24444444477558136)],
    "mean_per_class_accuracy": [0.0, ([1.0, 0.0, 0.5], 0.5), ([1.0, 0.3333333432674408, 0.6666666865348816],
        0.6666666865348816)],
    "mean_per_class_accuracy_w": [0.0, ([1.0, 0.0, 0.3333333432674408, 0.0], 0.3333333432674408), ([1.0, 0.0,
        0.6000000238418579, 0.0], 0.4000000059604645)],
    "mean_tensor": [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[-1.0, -0.75, -0.5], [-0.25, 0.0, 0.25]], [[-0.25,
        0.0, 0.25], [0.5, 0.75, 1.0]]],
    "mean_tensor_w": [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[-1.0, -0.75, -0.5], [-0.25, 0.0, 0.25]], [[-0.5,
        -0.25, 0.0], [0.25, 0.5, 0.75]]],
    "mean_cosine_distance": [1.0, 0.2999999523162842, 0.5999999642372131],
    "mean_cosine_distance_w": [1.0, 0.3333333134651184, 0.6222221851348877],
    "precision_at_k1": [NAN, 0.5, 0.4166666666666667],
    "precision_at_k1_w": [NAN, 0.3333333333333333, 0.2],
    "precision_at_k2": [NAN, 0.8333333333333334, 0.6666666666666666],
    "precision_at_k2_class": [NAN, 1.0, 1.0],
    "precision_at_k2_class_w": [NAN, 1.0, 0.2727272727272727],
    "sparse_precision_at_k": [NAN, 1.0, 0.6666666666666666],
    "precision_at_top_k": [NAN, 0.7142857142857143, 0.7333333333333333],
    "recall_at_k1": [NAN, 1.0, 0.8333333333333334],
    "recall_at_k1_class": [NAN, 1.0, 1.0],
    "recall_at_k2": [NAN, 0.8333333333333334, 0.7272727272727273],
    "recall_at_k2_w": [NAN, 0.7142857142857143, 0.8],
    "recall_at_k2_class": [NAN, 1.0, 1.0],
    "recall_at_top_k": [NAN, 0.8333333333333334, 0.8181818181818182],
    "average_precision_at_k1": [0.0, 0.6666666666666666, NAN],
    "average_precision_at_k1_w": [0.0, 0.6428571428571429, NAN],
    "average_precision_at_k2": [0.0, 1.0, 0.7638888888888888],
    "average_precision_at_k2_w": [0.0, 1.0, 0.8666666666666667],
    "sparse_average_precision_at_k": [0.0, 1.0, 0.7638888888888888],
    "precision_at_k_sparse": [NAN, 0.8333333333333334, 0.6666666666666666],
    "precision_at_k_sparse_class_w": [NAN, 1.0, 0.2727272727272727],
    "recall_at_k_sparse_w": [NAN, 0.9090909090909091, 0.8148148148148148],
    "recall_at_k_sparse_class": [NAN, 1.0, 1.0],
    "average_precision_at_k_sparse": [0.0, 0.8888888888888888, 0.7222222222222222],
    "average_precision_at_k_sparse_w": [0.0, 1.0, 0.8666666666666667],
}

# TF 2.15 names: value, update_op, their dtypes and static shapes, the local variables. TF's
# resource-variable AssignAddVariableOp has no output; dflow's AssignAdd returns the new value.
NAMES = {
    "tp_at_thresholds": ["true_positives/Identity:0", "true_positives/AssignAdd:0", "float32", [3],
        "float32", [3], [["true_positives/true_positives:0", [3], "float32"]]],
    "fp_at_thresholds_w": ["false_positives/Identity:0", "false_positives/AssignAdd:0", "float32", [3],
        "float32", [3], [["false_positives/false_positives:0", [3], "float32"]]],
    "fn_at_thresholds_w": ["false_negatives/Identity:0", "false_negatives/AssignAdd:0", "float32", [3],
        "float32", [3], [["false_negatives/false_negatives:0", [3], "float32"]]],
    "tn_at_thresholds": ["true_negatives/Identity:0", "true_negatives/AssignAdd:0", "float32", [3],
        "float32", [3], [["true_negatives/true_negatives:0", [3], "float32"]]],
    "precision_at_thresholds": ["precision_at_thresholds/precision_value:0",
        "precision_at_thresholds/precision_update_op:0", "float32", [3], "float32", [3],
        [["precision_at_thresholds/true_positives:0", [3], "float32"], ["precision_at_thresholds/false_positives:0",
        [3], "float32"]]],
    "precision_at_thresholds_w": ["precision_at_thresholds/precision_value:0",
        "precision_at_thresholds/precision_update_op:0", "float32", [3], "float32", [3],
        [["precision_at_thresholds/true_positives:0", [3], "float32"], ["precision_at_thresholds/false_positives:0",
        [3], "float32"]]],
    "recall_at_thresholds": ["recall_at_thresholds/recall_value:0",
        "recall_at_thresholds/recall_update_op:0", "float32", [3], "float32", [3],
        [["recall_at_thresholds/true_positives:0", [3], "float32"], ["recall_at_thresholds/false_negatives:0", [3],
        "float32"]]],
    "recall_at_thresholds_w": ["recall_at_thresholds/recall_value:0",
        "recall_at_thresholds/recall_update_op:0", "float32", [3], "float32", [3],
        [["recall_at_thresholds/true_positives:0", [3], "float32"], ["recall_at_thresholds/false_negatives:0", [3],
        "float32"]]],
    "sens_at_spec": ["sensitivity_at_specificity/value:0", "sensitivity_at_specificity/update_op:0",
        "float32", [], "float32", [], [["sensitivity_at_specificity/true_positives:0", [200], "float32"],
        ["sensitivity_at_specificity/false_negatives:0", [200], "float32"],
        ["sensitivity_at_specificity/true_negatives:0", [200], "float32"],
        ["sensitivity_at_specificity/false_positives:0", [200], "float32"]]],
    "sens_at_spec_w7": ["sensitivity_at_specificity/value:0", "sensitivity_at_specificity/update_op:0",
        "float32", [], "float32", [], [["sensitivity_at_specificity/true_positives:0", [7], "float32"],
        ["sensitivity_at_specificity/false_negatives:0", [7], "float32"],
        ["sensitivity_at_specificity/true_negatives:0", [7], "float32"],
        ["sensitivity_at_specificity/false_positives:0", [7], "float32"]]],
    "spec_at_sens": ["specificity_at_sensitivity/value:0", "specificity_at_sensitivity/update_op:0",
        "float32", [], "float32", [], [["specificity_at_sensitivity/true_positives:0", [200], "float32"],
        ["specificity_at_sensitivity/false_negatives:0", [200], "float32"],
        ["specificity_at_sensitivity/true_negatives:0", [200], "float32"],
        ["specificity_at_sensitivity/false_positives:0", [200], "float32"]]],
    "spec_at_sens_w7": ["specificity_at_sensitivity/value:0", "specificity_at_sensitivity/update_op:0",
        "float32", [], "float32", [], [["specificity_at_sensitivity/true_positives:0", [7], "float32"],
        ["specificity_at_sensitivity/false_negatives:0", [7], "float32"],
        ["specificity_at_sensitivity/true_negatives:0", [7], "float32"],
        ["specificity_at_sensitivity/false_positives:0", [7], "float32"]]],
    "percentage_below": ["percentage_below_threshold/value:0", "percentage_below_threshold/update_op:0",
        "float32", [], "float32", [], [["percentage_below_threshold/total:0", [], "float32"],
        ["percentage_below_threshold/count:0", [], "float32"]]],
    "percentage_below_w": ["percentage_below_threshold/value:0", "percentage_below_threshold/update_op:0",
        "float32", [], "float32", [], [["percentage_below_threshold/total:0", [], "float32"],
        ["percentage_below_threshold/count:0", [], "float32"]]],
    "mean_relative_error": ["mean_relative_error/value:0", "mean_relative_error/update_op:0", "float32", [],
        "float32", [], [["mean_relative_error/total:0", [], "float32"], ["mean_relative_error/count:0", [],
        "float32"]]],
    "mean_relative_error_w": ["mean_relative_error/value:0", "mean_relative_error/update_op:0", "float32",
        [], "float32", [], [["mean_relative_error/total:0", [], "float32"], ["mean_relative_error/count:0", [],
        "float32"]]],
    "mean_iou": ["mean_iou/Select_1:0", "mean_iou/AssignAdd:0", "float32", [], "float64", [3, 3],
        [["mean_iou/total_confusion_matrix:0", [3, 3], "float64"]]],
    "mean_iou_w": ["mean_iou/Select_1:0", "mean_iou/AssignAdd:0", "float32", [], "float64", [4, 4],
        [["mean_iou/total_confusion_matrix:0", [4, 4], "float64"]]],
    "mean_per_class_accuracy": ["mean_accuracy/mean_accuracy:0", "mean_accuracy/update_op:0", "float32", [],
        "float32", [3], [["mean_accuracy/total:0", [3], "float32"], ["mean_accuracy/count:0", [3], "float32"]]],
    "mean_per_class_accuracy_w": ["mean_accuracy/mean_accuracy:0", "mean_accuracy/update_op:0", "float32",
        [], "float32", [4], [["mean_accuracy/total:0", [4], "float32"], ["mean_accuracy/count:0", [4], "float32"]]],
    "mean_tensor": ["mean/value:0", "mean/update_op:0", "float32", [2, 3], "float32", [2, 3],
        [["mean/total_tensor:0", [2, 3], "float32"], ["mean/count_tensor:0", [2, 3], "float32"]]],
    "mean_tensor_w": ["mean/value:0", "mean/update_op:0", "float32", [2, 3], "float32", [2, 3],
        [["mean/total_tensor:0", [2, 3], "float32"], ["mean/count_tensor:0", [2, 3], "float32"]]],
    "mean_cosine_distance": ["Sub:0", "Sub_1:0", "float32", [], "float32", [],
        [["mean_cosine_distance/total:0", [], "float32"], ["mean_cosine_distance/count:0", [], "float32"]]],
    "mean_cosine_distance_w": ["Sub:0", "Sub_1:0", "float32", [], "float32", [],
        [["mean_cosine_distance/total:0", [], "float32"], ["mean_cosine_distance/count:0", [], "float32"]]],
    "precision_at_k1": ["precision_at_2:0", "precision_at_2/update:0", "float64", [], "float64", [],
        [["precision_at_2/true_positive_at_2:0", [], "float64"], ["precision_at_2/false_positive_at_2:0", [],
        "float64"]]],
    "precision_at_k1_w": ["precision_at_3:0", "precision_at_3/update:0", "float64", [], "float64", [],
        [["precision_at_3/true_positive_at_3:0", [], "float64"], ["precision_at_3/false_positive_at_3:0", [],
        "float64"]]],
    "precision_at_k2": ["precision_at_2:0", "precision_at_2/update:0", "float64", [], "float64", [],
        [["precision_at_2/true_positive_at_2:0", [], "float64"], ["precision_at_2/false_positive_at_2:0", [],
        "float64"]]],
    "precision_at_k2_class": ["precision_at_2_class1:0", "precision_at_2_class1/update:0", "float64", [],
        "float64", [], [["precision_at_2_class1/true_positive_at_2_class1:0", [], "float64"],
        ["precision_at_2_class1/false_positive_at_2_class1:0", [], "float64"]]],
    "precision_at_k2_class_w": ["precision_at_3_class2:0", "precision_at_3_class2/update:0", "float64", [],
        "float64", [], [["precision_at_3_class2/true_positive_at_3_class2:0", [], "float64"],
        ["precision_at_3_class2/false_positive_at_3_class2:0", [], "float64"]]],
    "sparse_precision_at_k": ["precision_at_1:0", "precision_at_1/update:0", "float64", [], "float64", [],
        [["precision_at_1/true_positive_at_1:0", [], "float64"], ["precision_at_1/false_positive_at_1:0", [],
        "float64"]]],
    "precision_at_top_k": ["precision_at_k:0", "precision_at_k/update:0", "float64", [], "float64", [],
        [["precision_at_k/true_positive_at_k:0", [], "float64"], ["precision_at_k/false_positive_at_k:0", [],
        "float64"]]],
    "recall_at_k1": ["recall_at_2:0", "recall_at_2/update:0", "float64", [], "float64", [],
        [["recall_at_2/true_positive_at_2:0", [], "float64"], ["recall_at_2/false_negative_at_2:0", [], "float64"]]],
    "recall_at_k1_class": ["recall_at_2_class0:0", "recall_at_2_class0/update:0", "float64", [], "float64",
        [], [["recall_at_2_class0/true_positive_at_2_class0:0", [], "float64"],
        ["recall_at_2_class0/false_negative_at_2_class0:0", [], "float64"]]],
    "recall_at_k2": ["recall_at_2:0", "recall_at_2/update:0", "float64", [], "float64", [],
        [["recall_at_2/true_positive_at_2:0", [], "float64"], ["recall_at_2/false_negative_at_2:0", [], "float64"]]],
    "recall_at_k2_w": ["recall_at_3:0", "recall_at_3/update:0", "float64", [], "float64", [],
        [["recall_at_3/true_positive_at_3:0", [], "float64"], ["recall_at_3/false_negative_at_3:0", [], "float64"]]],
    "recall_at_k2_class": ["recall_at_2_class3:0", "recall_at_2_class3/update:0", "float64", [], "float64",
        [], [["recall_at_2_class3/true_positive_at_2_class3:0", [], "float64"],
        ["recall_at_2_class3/false_negative_at_2_class3:0", [], "float64"]]],
    "recall_at_top_k": ["recall_at_3:0", "recall_at_3/update:0", "float64", [], "float64", [],
        [["recall_at_3/true_positive_at_3:0", [], "float64"], ["recall_at_3/false_negative_at_3:0", [], "float64"]]],
    "average_precision_at_k1": ["average_precision_at_3/mean:0", "average_precision_at_3:0", "float64", [],
        "float64", [], [["average_precision_at_3/max_1:0", [], "float64"], ["average_precision_at_3/total:0", [],
        "float64"]]],
    "average_precision_at_k1_w": ["average_precision_at_2/mean:0", "average_precision_at_2:0", "float64", [],
        "float64", [], [["average_precision_at_2/max_1:0", [], "float64"], ["average_precision_at_2/total:0", [],
        "float64"]]],
    "average_precision_at_k2": ["average_precision_at_3/mean:0", "average_precision_at_3:0", "float64", [],
        "float64", [], [["average_precision_at_3/max_1:0", [], "float64"], ["average_precision_at_3/total:0", [],
        "float64"]]],
    "average_precision_at_k2_w": ["average_precision_at_1/mean:0", "average_precision_at_1:0", "float64", [],
        "float64", [], [["average_precision_at_1/max_1:0", [], "float64"], ["average_precision_at_1/total:0", [],
        "float64"]]],
    "sparse_average_precision_at_k": ["average_precision_at_4/mean:0", "average_precision_at_4:0", "float64",
        [], "float64", [], [["average_precision_at_4/max_1:0", [], "float64"], ["average_precision_at_4/total:0", [],
        "float64"]]],
    "precision_at_k_sparse": ["precision_at_2:0", "precision_at_2/update:0", "float64", [], "float64", [],
        [["precision_at_2/true_positive_at_2:0", [], "float64"], ["precision_at_2/false_positive_at_2:0", [],
        "float64"]]],
    "precision_at_k_sparse_class_w": ["precision_at_3_class2:0", "precision_at_3_class2/update:0", "float64",
        [], "float64", [], [["precision_at_3_class2/true_positive_at_3_class2:0", [], "float64"],
        ["precision_at_3_class2/false_positive_at_3_class2:0", [], "float64"]]],
    "recall_at_k_sparse_w": ["recall_at_2:0", "recall_at_2/update:0", "float64", [], "float64", [],
        [["recall_at_2/true_positive_at_2:0", [], "float64"], ["recall_at_2/false_negative_at_2:0", [], "float64"]]],
    "recall_at_k_sparse_class": ["recall_at_3_class1:0", "recall_at_3_class1/update:0", "float64", [],
        "float64", [], [["recall_at_3_class1/true_positive_at_3_class1:0", [], "float64"],
        ["recall_at_3_class1/false_negative_at_3_class1:0", [], "float64"]]],
    "average_precision_at_k_sparse": ["average_precision_at_3/mean:0", "average_precision_at_3:0", "float64",
        [], "float64", [], [["average_precision_at_3/max_1:0", [], "float64"], ["average_precision_at_3/total:0", [],
        "float64"]]],
    "average_precision_at_k_sparse_w": ["my_ap/mean:0", "my_ap:0", "float64", [], "float64", [],
        [["my_ap/max_1:0", [], "float64"], ["my_ap/total:0", [], "float64"]]],
}


def build(case):
    name, group, fn = case
    make, batches = GROUPS[group]
    phs = make()
    value, update = fn(tf, *phs)
    return phs, batches, value, update


def as_list(x):
    return np.asarray(x).tolist()


def close(got, want) -> bool:
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(close(g, w) for g, w in zip(got, want))
    if math.isnan(want):
        return math.isnan(got)
    return got == pytest.approx(want, rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_streamed_values_match_tf(case):
    phs, batches, value, update = build(case)
    want = STREAMS[case[0]]
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        assert close(as_list(s.run(value)), want[0])
        for batch, expected in zip(batches, want[1:]):
            feed = dict(zip(phs, batch))
            got_update = as_list(s.run(update, feed))
            got_value = as_list(s.run(value))
            expected_update, expected_value = expected if isinstance(expected, tuple) else (expected, expected)
            assert close(got_update, expected_update), (got_update, expected_update)
            assert close(got_value, expected_value), (got_value, expected_value)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_names_dtypes_shapes_and_variables_match_tf(case):
    _, _, value, update = build(case)
    value_name, update_name, value_dtype, value_shape, update_dtype, update_shape, variables = NAMES[case[0]]
    assert [value.name, update.name] == [value_name, update_name]
    assert [value.dtype.name, value.shape.as_list(), update.dtype.name, update.shape.as_list()] == [
        value_dtype, value_shape, update_dtype, update_shape]
    assert [[v.name, v.shape.as_list(), v.dtype.base_dtype.name] for v in tf.local_variables()] == variables
    assert tf.get_collection(tf.GraphKeys.METRIC_VARIABLES) == tf.local_variables()
    assert tf.global_variables() == [] and tf.trainable_variables() == []


def test_metrics_and_updates_collections():
    lab, p = tf.constant([1, 0], tf.int64), tf.constant([[0.2, 0.8], [0.6, 0.4]])
    kw = {"metrics_collections": ["mc"], "updates_collections": ["uc"]}
    tf.metrics.precision_at_thresholds(lab, p[:, 1], [0.5], **kw)
    tf.metrics.true_negatives_at_thresholds(lab, p[:, 1], [0.5], **kw)
    tf.metrics.mean_iou(lab, lab, 2, **kw)
    tf.metrics.recall_at_k(lab, p, 1, **kw)
    tf.metrics.average_precision_at_k(lab, p, 1, **kw)
    tf.metrics.mean_cosine_distance(p, p, 1, **kw)
    assert [t.name for t in tf.get_collection("mc")] == [
        "precision_at_thresholds/precision_value:0", "true_negatives/Identity:0", "mean_iou/Select_1:0",
        "recall_at_1:0", "average_precision_at_1/mean:0", "Sub:0"]
    assert [t.name for t in tf.get_collection("uc")] == [
        "precision_at_thresholds/precision_update_op:0", "true_negatives/AssignAdd:0", "mean_iou/AssignAdd:0",
        "recall_at_1/update:0", "average_precision_at_1:0", "Sub_1:0"]
    with pytest.raises(TypeError, match="'int' object is not iterable"):
        tf.metrics.mean_tensor([1.0], metrics_collections=1)


def test_reinitializing_local_variables_resets_the_metric():
    value, update = tf.metrics.recall_at_k(tf.constant([1, 0], tf.int64), tf.constant([[0.2, 0.8], [0.6, 0.4]]), 1)
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        assert s.run(update) == 1.0
        s.run(tf.local_variables_initializer())
        assert math.isnan(s.run(value))


# -- errors: TF 2.15's classes and messages --------------------------------------------------------

S = np.array([[0.1, 0.5, 0.2, 0.15, 0.05], [0.3, 0.1, 0.05, 0.4, 0.15]], np.float32)


def _update(out, feed=None):
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        return s.run(out[1], feed)


def test_graph_time_errors():
    c, i64 = tf.constant, tf.int64
    rank_msg = (r"Unexpected labels shape \(2, 1, 1\) for predictions shape \(2, 2\)\. Predictions rank should be the "
                r"same rank as labels rank or labels rank plus one")
    with pytest.raises(ValueError, match=rank_msg):
        tf.metrics.precision_at_k(c([[[1]], [[2]]], i64), c(S), 2)
    with pytest.raises(ValueError, match=rank_msg):
        tf.metrics.average_precision_at_k(c([[[1]], [[2]]], i64), c(S), 2)
    with pytest.raises(ValueError, match=r"Invalid k=0\. `k` should be >= 1\."):
        tf.metrics.average_precision_at_k(c([1, 2], i64), c(S), 0)
    with pytest.raises(ValueError, match="input must have last dimension >= k = 6 but is 5"):
        tf.metrics.precision_at_k(c([1, 2], i64), c(S), 6)
    with pytest.raises(TypeError, match="Types don't match"):
        tf.metrics.recall_at_k(c([1, 2]), c(S), 2)  # int32 labels against int64 top-k ids
    with pytest.raises(ValueError, match=r"Shapes \(4,\) and \(3,\) are incompatible"):
        tf.metrics.mean_iou(c([1, 2, 0]), c([1, 2, 0, 1]), 3)
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are incompatible"):
        tf.metrics.mean_per_class_accuracy(c([1, 2, 0]), c([1, 2]), 3)
    for fn in (tf.metrics.mean_iou, tf.metrics.mean_per_class_accuracy):
        with pytest.raises(TypeError, match="Expected int32, but got None of type 'NoneType'"):
            fn(c([1, 2, 0]), c([1, 2, 0]), None)
    with pytest.raises(ValueError, match=r"`specificity` must be in the range \[0, 1\]\. Currently, `specificity` "
                                         r"got 1\.5\."):
        tf.metrics.sensitivity_at_specificity(c([1, 0]), c([0.2, 0.6]), 1.5)
    with pytest.raises(ValueError, match=r"`sensitivity` must be in the range \[0, 1\]\. Currently, `sensitivity` "
                                         r"is -0\.5\."):
        tf.metrics.specificity_at_sensitivity(c([1, 0]), c([0.2, 0.6]), -0.5)
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are incompatible"):
        tf.metrics.precision_at_thresholds(c([1, 0, 1]), c([0.2, 0.6]), [0.5])
    with pytest.raises(ValueError, match=r"Cannot convert a partially known TensorShape \(None, 3\) to a Tensor\."):
        tf.metrics.mean_tensor(tf.placeholder(tf.float32, [None, 3]))
    with pytest.raises(ValueError, match=r"Shapes \(1, 3\) and \(1, 2\) are incompatible"):
        tf.metrics.mean_cosine_distance(c([[1.0, 0.0]]), c([[1.0, 0.0, 0.0]]), 1)
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are incompatible"):
        tf.metrics.mean_relative_error(c([1.0, 2.0]), c([1.0, 2.0]), c([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="weights can not be broadcast to values. Mismatch at dim 1"):
        tf.metrics.percentage_below(c([[1.0, 2.0]]), 1.5, weights=c([[1.0, 2.0, 3.0]]))


def test_run_time_errors():
    c, i64 = tf.constant, tf.int64
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"weights can not be broadcast to values\."):
        _update(tf.metrics.precision_at_k(c([1, 2], i64), c(S), 2, weights=c([[1.0], [2.0]])))
    lab, p = tf.placeholder(tf.int64, [None]), tf.placeholder(tf.int64, [None])
    out = tf.metrics.mean_iou(lab, p, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` out of bound"):
        _update(out, {lab: [1, 3, 0], p: [1, 2, 0]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` contains negative values"):
        _update(out, {lab: [1, -1, 0], p: [1, 2, 0]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"= 3 is not in \[0, 3\)"):
        _update(tf.metrics.mean_per_class_accuracy(c([1, 3, 0]), c([1, 2, 0]), 3))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"predictions must be in \[0, 1\]"):
        _update(tf.metrics.true_positives_at_thresholds(c([1, 0]), c([0.2, 1.6]), [0.5]))


def test_edge_cases_as_tf():
    c, i64 = tf.constant, tf.int64
    # TF1 checks k only in average_precision_at_k: k=0 elsewhere ranks nothing.
    assert math.isnan(_update(tf.metrics.precision_at_k(c([1, 2], i64), c(S), 0)))
    assert _update(tf.metrics.recall_at_k(c([1, 2], i64), c(S), 0)) == 0.0
    # precision_at_top_k without k names its scope precision_at_k
    value, update = tf.metrics.precision_at_top_k(c([1, 2], i64), c([[1, 2, 3], [0, 1, 2]]))
    assert value.name == "precision_at_k:0" and _update((value, update)) == pytest.approx(1 / 3)
    # a row whose labels are all -1 (padding) has no relevant label: its average precision is NaN
    assert math.isnan(_update(tf.metrics.average_precision_at_k(c([[1, -1], [-1, -1]], i64), c(S), 2)))


# -- more shapes: 3-D scores, unknown ranks, 2-D class ids, squeezed normalizers, ties ------------------

S3 = np.array([[[0.1, 0.5, 0.2, 0.2], [0.3, 0.1, 0.4, 0.2]], [[0.6, 0.1, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]]],
              np.float32)
L3 = np.array([[1, 2], [0, 0]], np.int64)
L3B = np.array([[[1, 3], [2, 0]], [[0, 1], [1, 2]]], np.int64)
W2 = np.array([[1.0, 2.0], [0.5, 1.0]], np.float32)
P2 = np.array([[1, 1], [0, 2]], np.int32)
TIE_L, TIE_P = np.array([1, 0, 1, 0, 1, 0]), np.array([0.3, 0.4, 0.6, 0.45, 0.9, 0.55], np.float32)
TP_L, TP_P = np.array([[1, 0], [1, 1]]), np.array([[0.3, 0.6], [0.7, 0.05]], np.float32)
W21 = np.array([[2.0], [0.5]], np.float32)

# name -> (placeholder specs, metric of the placeholders, fed batches, TF's update_op after each batch, then value)
MORE = {
    "p3d": ([(tf.int64, [None, 2]), (tf.float32, [None, 2, 4])], lambda a, b: tf.metrics.precision_at_k(a, b, 2),
            [[L3, S3], [L3[::-1], S3]], [0.375, 0.3125, 0.3125]),
    "r3d_w": ([(tf.int64, [None, 2, 2]), (tf.float32, [None, 2, 4]), (tf.float32, [None, 2])],
              lambda a, b, w: tf.metrics.recall_at_k(a, b, 1, weights=w),
              [[L3B, S3, W2], [L3B[::-1], S3, W2]], [0.3888888888888889, 0.3611111111111111, 0.3611111111111111]),
    "ap3d_w": ([(tf.int64, [None, 2, 2]), (tf.float32, [None, 2, 4]), (tf.float32, [None, 1])],
               lambda a, b, w: tf.metrics.average_precision_at_k(a, b, 2, weights=w),
               [[L3B, S3, W2[:, :1]], [L3B[::-1], S3, W2[:, 1:]]], [0.625, 0.4583333333333333, 0.4583333333333333]),
    "p_unknown_rank": ([(tf.int64, None), (tf.float32, None)], lambda a, b: tf.metrics.precision_at_k(a, b, 2),
                       [[L3, S3], [L3B, S3]], [0.375, 0.5, 0.5]),
    "r_unknown_rank_class": ([(tf.int64, None), (tf.float32, [None, 2, 4])],
                             lambda a, b: tf.metrics.recall_at_k(a, b, 2, class_id=1),
                             [[L3, S3], [L3B, S3]], [1.0, 0.5, 0.5]),
    "iou_2d_w": ([(tf.int32, [None, 2]), (tf.int32, [None, 2]), (tf.float32, [None, 2])],
                 lambda a, b, w: tf.metrics.mean_iou(a, b, 3, weights=w),
                 [[L3.astype(np.int32), P2, W2]], [[[0.5, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 2.0, 0.0]],
                                                   0.2222222238779068]),
    "pca_2d_w": ([(tf.int32, [None, 2]), (tf.int32, [None, 2]), (tf.float32, [None, 2])],
                 lambda a, b, w: tf.metrics.mean_per_class_accuracy(a, b, 3, weights=w),
                 [[L3.astype(np.int32), P2, W2]], [[0.3333333432674408, 1.0, 0.0], 0.4444444477558136]),
    "cos_dim0": ([(tf.float32, [2, 2]), (tf.float32, [2, 2])], lambda a, b: tf.metrics.mean_cosine_distance(a, b, 0),
                 [[np.array([[0.6, 1], [0.8, 0]], np.float32), np.array([[0, 0.6], [1, 0.8]], np.float32)]],
                 [0.2999999523162842, 0.2999999523162842]),
    "mre_squeezed": ([(tf.float32, [None]), (tf.float32, [None, 1]), (tf.float32, [None])],
                     lambda a, b, n: tf.metrics.mean_relative_error(a, b, n),
                     [[np.array([1.0, 2.0], np.float32), np.array([[1.5], [2.5]], np.float32),
                       np.array([2.0, 0.5], np.float32)]], [0.625, 0.625]),
    "sens_first_of_ties": ([(tf.int64, [None]), (tf.float32, [None])],
                           lambda a, b: tf.metrics.sensitivity_at_specificity(a, b, 0.5, num_thresholds=5),
                           [[TIE_L, TIE_P]], [0.6666666865348816, 0.6666666865348816]),
    "spec_last_of_ties": ([(tf.int64, [None]), (tf.float32, [None])],
                          lambda a, b: tf.metrics.specificity_at_sensitivity(a, b, 0.5, num_thresholds=5),
                          [[TIE_L, TIE_P]], [1.0, 1.0]),
    "tp_2d_w": ([(tf.int64, [None, 2]), (tf.float32, [None, 2]), (tf.float32, [None, 1])],
                lambda a, b, w: tf.metrics.true_positives_at_thresholds(a, b, [0.1, 0.5], weights=w),
                [[TP_L, TP_P, W21]], [[2.5, 0.5], [2.5, 0.5]]),
    "pb_2d_named": ([(tf.float32, [None, 2]), (tf.float32, [None, 1])],
                    lambda a, w: tf.metrics.percentage_below(a, 0.5, weights=w, name="pb"), [[TP_P, W21]], [0.5, 0.5]),
}


@pytest.mark.parametrize("name", MORE)
def test_more_shapes_match_tf(name):
    specs, fn, feeds, want = MORE[name]
    phs = [tf.placeholder(dtype, shape) for dtype, shape in specs]
    value, update = fn(*phs)
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        got = [as_list(s.run(update, dict(zip(phs, feed)))) for feed in feeds] + [as_list(s.run(value))]
    assert close(got, want)


def test_sparse_tensor_value_labels_as_tf():
    labels = tf.SparseTensorValue(SP_IDX1, SP_VAL1, [3, 3])  # TF's first "ksp" batch, fed constants
    assert _update(tf.metrics.precision_at_k(labels, SCORES[:3], 2)) == STREAMS["precision_at_k_sparse"][1]
    assert _update(tf.metrics.average_precision_at_k(labels, SCORES[:3], 3)) == pytest.approx(
        STREAMS["average_precision_at_k_sparse"][1])


def test_sparse_labels_of_unknown_rank_as_tf():
    labels, p = tf.sparse_placeholder(tf.int64), tf.placeholder(tf.float32, [None, 5])
    updates = [tf.metrics.precision_at_k(labels, p, 2)[1],
               tf.metrics.recall_at_k(labels, tf.placeholder_with_default(p, None), 2, class_id=1)[1],
               tf.metrics.average_precision_at_k(labels, p, 2)[1]]
    batches = [(tf.SparseTensorValue(SP_IDX1, SP_VAL1, [3, 3]), SCORES[:3]),
               (tf.SparseTensorValue(SP_IDX2, SP_VAL2, [3, 2]), SCORES[3:])]
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        got = [as_list(s.run(updates, {labels: lab, p: scores})) for lab, scores in batches]
    assert close(got, [[0.8333333333333334, 1.0, 1.0], [0.6666666666666666, 1.0, 0.75]])
