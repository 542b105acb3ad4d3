"""tf.layers against TF 2.15's compat.v1.layers (with TF1 behaviour: ``disable_v2_behavior``).

The cases live in layer_cases.py; /tmp/ref/layers/layers_ref.py ran ``describe`` over them in
TF and printed EXPECTED: output op names, static shapes and value fingerprints, the variables
(all, trainable), UPDATE_OPS, REGULARIZATION_LOSSES and the moving statistics after one run of
the updates."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.layers.layer_cases import arr, build_cases, cnn_losses, describe, renorm_steps

EXPECTED = {"batch_norm": {"losses": [],
                "moving": [["batch_normalization/moving_mean:0", [[2], -0.0111, -0.0111]],
                           ["batch_normalization/moving_variance:0", [[2], 2.1403, 1.6461]],
                           ["batch_normalization_1/moving_mean:0", [[3], 0.0006, 0.0007]],
                           ["batch_normalization_1/moving_variance:0", [[3], 2.9849, 1.1244]],
                           ["batch_normalization_2/moving_mean:0", [[2], -0.0556, 0.0211]],
                           ["batch_normalization_2/moving_variance:0", [[2], 2.5331, 1.959]],
                           ["batch_normalization_3/moving_mean:0", [[3], 0.6, 0.2248]],
                           ["batch_normalization_3/moving_variance:0", [[3], 6.0, 2.2483]],
                           ["batch_normalization_4/moving_mean:0", [[2], -0.0011, 0.0004]],
                           ["batch_normalization_4/moving_variance:0", [[2], 2.0125, 1.5501]]],
                "names": None,
                "outputs": {"fused": ["batch_normalization/FusedBatchNormV3", [3, 2, 3, 2],
                                      [[3, 2, 3, 2], 0.0, -0.0801]],
                            "infer": ["batch_normalization_3/batchnorm/add_1", [5, 3], [[5, 3], -1.9087, 1.232]],
                            "nchw": ["batch_normalization_4/FusedBatchNormV3", [3, 2, 3, 2],
                                     [[3, 2, 3, 2], 0.0, -0.0732]],
                            "plain": ["batch_normalization_1/batchnorm/add_1", [5, 3], [[5, 3], 7.5, 3.045]],
                            "unfused": ["batch_normalization_2/batchnorm/add_1", [3, 2, 3, 2],
                                        [[3, 2, 3, 2], 0.0, -0.0732]]},
                "trainable": ["batch_normalization/gamma:0", "batch_normalization/beta:0",
                              "batch_normalization_1/gamma:0", "batch_normalization_1/beta:0",
                              "batch_normalization_2/gamma:0", "batch_normalization_2/beta:0",
                              "batch_normalization_3/gamma:0", "batch_normalization_3/beta:0",
                              "batch_normalization_4/gamma:0"],
                "updates": ["batch_normalization/AssignMovingAvg", "batch_normalization/AssignMovingAvg_1",
                            "batch_normalization_1/AssignMovingAvg", "batch_normalization_1/AssignMovingAvg_1",
                            "batch_normalization_2/AssignMovingAvg", "batch_normalization_2/AssignMovingAvg_1",
                            "batch_normalization_4/AssignMovingAvg", "batch_normalization_4/AssignMovingAvg_1"],
                "variables": ["batch_normalization/gamma:0", "batch_normalization/beta:0",
                              "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0",
                              "batch_normalization_1/gamma:0", "batch_normalization_1/beta:0",
                              "batch_normalization_1/moving_mean:0", "batch_normalization_1/moving_variance:0",
                              "batch_normalization_2/gamma:0", "batch_normalization_2/beta:0",
                              "batch_normalization_2/moving_mean:0", "batch_normalization_2/moving_variance:0",
                              "batch_normalization_3/gamma:0", "batch_normalization_3/beta:0",
                              "batch_normalization_3/moving_mean:0", "batch_normalization_3/moving_variance:0",
                              "batch_normalization_4/gamma:0", "batch_normalization_4/moving_mean:0",
                              "batch_normalization_4/moving_variance:0"]},
 "batch_norm_adjustment": {'losses': [],
                           'moving': [['batch_normalization/moving_mean:0', [[3], 0.03, 0.0356]],
                                      ['batch_normalization/moving_variance:0', [[3], 2.2452, 1.1385]],
                                      ['batch_normalization_1/moving_mean:0', [[3], 0.0, 0.0]],
                                      ['batch_normalization_1/moving_variance:0', [[3], 3.0, 1.1242]],
                                      ['batch_normalization_2/moving_mean:0', [[2], 0.0, 0.0]],
                                      ['batch_normalization_2/moving_variance:0', [[2], 2.0, 1.5403]],
                                      ['an/moving_mean:0', [[2], -0.0011, -0.0011]],
                                      ['an/moving_variance:0', [[2], 2.0121, 1.5494]]],
                           'names': None,
                           'outputs': {'a': ['batch_normalization/batchnorm/add_1', [5, 3], [[5, 3], 1.0, -0.6909]],
                                       'ai': ['batch_normalization_1/batchnorm/add_1', [5, 3],
                                              [[5, 3], 0.2999, 2.0367]],
                                       'an': ['an/batchnorm/add_1', [3, 2, 3, 2], [[3, 2, 3, 2], 18.0, -0.332]],
                                       'at': ['batch_normalization_2/batchnorm/add_1', [3, 2, 3, 2],
                                              [[3, 2, 3, 2], -1.999, -0.1858]]},
                           'trainable': ['batch_normalization/gamma:0', 'batch_normalization/beta:0',
                                         'batch_normalization_1/gamma:0', 'batch_normalization_1/beta:0',
                                         'batch_normalization_2/gamma:0', 'an/beta:0'],
                           'updates': ['batch_normalization/AssignMovingAvg', 'batch_normalization/AssignMovingAvg_1',
                                       'batch_normalization_2/cond_4/Merge', 'batch_normalization_2/cond_5/Merge',
                                       'an/cond_4/Merge', 'an/cond_5/Merge'],
                           'variables': ['batch_normalization/gamma:0', 'batch_normalization/beta:0',
                                         'batch_normalization/moving_mean:0', 'batch_normalization/moving_variance:0',
                                         'batch_normalization_1/gamma:0', 'batch_normalization_1/beta:0',
                                         'batch_normalization_1/moving_mean:0',
                                         'batch_normalization_1/moving_variance:0', 'batch_normalization_2/gamma:0',
                                         'batch_normalization_2/moving_mean:0',
                                         'batch_normalization_2/moving_variance:0', 'an/beta:0', 'an/moving_mean:0',
                                         'an/moving_variance:0']},
 "batch_norm_renorm": {'losses': [],
                       'moving': [['batch_normalization/moving_mean:0', [[3], 0.56, 0.3393]],
                                  ['batch_normalization/moving_variance:0', [[3], 3.949, 1.8676]],
                                  ['batch_normalization/moving_stddev:0', [[3], 3.4233, 1.4464]],
                                  ['batch_normalization/renorm_mean:0', [[3], 0.475, 0.3399]],
                                  ['batch_normalization/renorm_stddev:0', [[3], 3.2185, 1.4106]],
                                  ['bn4/moving_mean:0', [[2], -0.0011, -0.0011]],
                                  ['bn4/moving_variance:0', [[2], 2.0087, 1.5469]],
                                  ['bn4/moving_stddev:0', [[2], 2.0054, 1.5443]],
                                  ['bn4/renorm_mean:0', [[2], -0.0011, -0.0011]],
                                  ['bn4/renorm_stddev:0', [[2], 2.0054, 1.5443]],
                                  ['bnt/moving_mean:0', [[3], 0.0005, 0.0034]],
                                  ['bnt/moving_variance:0', [[3], 2.9809, 1.1252]],
                                  ['bnt/moving_stddev:0', [[3], 2.9919, 1.1252]],
                                  ['bnt/renorm_mean:0', [[3], 0.015, 0.1027]],
                                  ['bnt/renorm_stddev:0', [[3], 2.7583, 1.1563]],
                                  ['bnoff/moving_mean:0', [[3], 0.9, 0.3372]],
                                  ['bnoff/moving_variance:0', [[3], 3.0, 1.1242]],
                                  ['bnoff/moving_stddev:0', [[3], 3.0, 1.1242]],
                                  ['bnoff/renorm_mean:0', [[3], 0.9, 0.3372]],
                                  ['bnoff/renorm_stddev:0', [[3], 3.0, 1.1242]]],
                       'names': None,
                       'outputs': {'t': ['bnt/batchnorm/add_1', [6, 3], [[6, 3], 0.3, 1.4563]],
                                   'u': ['bnoff/batchnorm/add_1', [6, 3], [[6, 3], -5.0975, 1.6108]],
                                   'y': ['batch_normalization/batchnorm/add_1', [6, 3], [[6, 3], -0.6, 1.5669]],
                                   'z': ['bn4/batchnorm/add_1', [3, 2, 3, 2], [[3, 2, 3, 2], -2.0, -0.1859]]},
                       'trainable': ['batch_normalization/gamma:0', 'batch_normalization/beta:0', 'bn4/gamma:0',
                                     'bn4/beta:0', 'bnt/gamma:0', 'bnt/beta:0', 'bnoff/gamma:0', 'bnoff/beta:0'],
                       'updates': ['batch_normalization/AssignMovingAvg_2', 'batch_normalization/AssignNewValue',
                                   'bn4/AssignMovingAvg_2', 'bn4/AssignNewValue', 'bnt/cond_6/Merge',
                                   'bnt/cond_7/Merge', 'bnoff/cond_6/Merge', 'bnoff/cond_7/Merge'],
                       'variables': ['batch_normalization/gamma:0', 'batch_normalization/beta:0',
                                     'batch_normalization/moving_mean:0', 'batch_normalization/moving_variance:0',
                                     'batch_normalization/moving_stddev:0', 'batch_normalization/renorm_mean:0',
                                     'batch_normalization/renorm_stddev:0', 'bn4/gamma:0', 'bn4/beta:0',
                                     'bn4/moving_mean:0', 'bn4/moving_variance:0', 'bn4/moving_stddev:0',
                                     'bn4/renorm_mean:0', 'bn4/renorm_stddev:0', 'bnt/gamma:0', 'bnt/beta:0',
                                     'bnt/moving_mean:0', 'bnt/moving_variance:0', 'bnt/moving_stddev:0',
                                     'bnt/renorm_mean:0', 'bnt/renorm_stddev:0', 'bnoff/gamma:0', 'bnoff/beta:0',
                                     'bnoff/moving_mean:0', 'bnoff/moving_variance:0', 'bnoff/moving_stddev:0',
                                     'bnoff/renorm_mean:0', 'bnoff/renorm_stddev:0']},
 "batch_norm_virtual": {'losses': [],
                        'moving': [['batch_normalization/moving_mean:0', [[1, 1, 4], -0.0333, 0.1248]],
                                   ['batch_normalization/moving_variance:0', [[1, 1, 4], 2.54, 0.1378]],
                                   ['batch_normalization_1/moving_mean:0', [[1, 1, 1, 1, 3], 0.0, 0.0016]],
                                   ['batch_normalization_1/moving_variance:0', [[1, 1, 1, 1, 3], 2.9789, 1.1159]],
                                   ['batch_normalization_2/moving_mean:0', [[1, 1, 4], 0.0, 0.0]],
                                   ['batch_normalization_2/moving_variance:0', [[1, 1, 4], 8.0, 0.2683]],
                                   ['vt/moving_mean:0', [[1, 1, 4], -0.0007, 0.0025]],
                                   ['vt/moving_variance:0', [[1, 1, 4], 3.9391, 0.1278]],
                                   ['vt/moving_stddev:0', [[1, 1, 4], 3.9715, 0.131]],
                                   ['vt/renorm_mean:0', [[1, 1, 4], -0.0007, 0.0025]],
                                   ['vt/renorm_stddev:0', [[1, 1, 4], 3.9715, 0.131]]],
                        'names': None,
                        'outputs': {'v': ['batch_normalization/Reshape_1', [6, 4], [[6, 4], 0.0, 1.0357]],
                                    'v4': ['batch_normalization_1/Reshape_1', [4, 2, 2, 3],
                                           [[4, 2, 2, 3], 0.0, 0.5053]],
                                    'vi': ['batch_normalization_2/Reshape_1', [6, 4], [[6, 4], -0.2828, -1.2655]],
                                    'vt': ['vt/Reshape_1', [6, 4], [[6, 4], -0.4, -3.0547]]},
                        'trainable': ['batch_normalization/gamma:0', 'batch_normalization/beta:0',
                                      'batch_normalization_1/gamma:0', 'batch_normalization_1/beta:0',
                                      'batch_normalization_2/gamma:0', 'batch_normalization_2/beta:0', 'vt/gamma:0',
                                      'vt/beta:0'],
                        'updates': ['batch_normalization/AssignMovingAvg', 'batch_normalization/AssignMovingAvg_1',
                                    'batch_normalization_1/AssignMovingAvg',
                                    'batch_normalization_1/AssignMovingAvg_1', 'vt/cond_6/Merge', 'vt/cond_7/Merge'],
                        'variables': ['batch_normalization/gamma:0', 'batch_normalization/beta:0',
                                      'batch_normalization/moving_mean:0', 'batch_normalization/moving_variance:0',
                                      'batch_normalization_1/gamma:0', 'batch_normalization_1/beta:0',
                                      'batch_normalization_1/moving_mean:0',
                                      'batch_normalization_1/moving_variance:0', 'batch_normalization_2/gamma:0',
                                      'batch_normalization_2/beta:0', 'batch_normalization_2/moving_mean:0',
                                      'batch_normalization_2/moving_variance:0', 'vt/gamma:0', 'vt/beta:0',
                                      'vt/moving_mean:0', 'vt/moving_variance:0', 'vt/moving_stddev:0',
                                      'vt/renorm_mean:0', 'vt/renorm_stddev:0']},
 "batch_norm_training_tensor": {"losses": [],
                                "moving": [["bn/moving_mean:0", [[3], 0.0, 0.0319]],
                                           ["bn/moving_variance:0", [[3], 2.6602, 0.9912]],
                                           ["bn2/moving_mean:0", [[3], 0.0, 0.0]],
                                           ["bn2/moving_variance:0", [[3], 3.0, 1.1242]]],
                                "names": None,
                                "outputs": {"y": ["bn/cond/Merge", [4, 2, 2, 3], [[4, 2, 2, 3], -0.0, -2.1453]],
                                            "z": ["bn2/batchnorm/add_1", [4, 3], [[4, 3], 0.1, -0.6206]]},
                                "trainable": ["bn/gamma:0", "bn/beta:0", "bn2/gamma:0", "bn2/beta:0"],
                                "updates": ["bn/AssignMovingAvg", "bn/AssignMovingAvg_1", "bn2/cond_2/Merge",
                                            "bn2/cond_3/Merge"],
                                "variables": ["bn/gamma:0", "bn/beta:0", "bn/moving_mean:0", "bn/moving_variance:0",
                                              "bn2/gamma:0", "bn2/beta:0", "bn2/moving_mean:0",
                                              "bn2/moving_variance:0"]},
 "cnn": {"losses": [],
         "moving": [],
         "names": None,
         "outputs": {"a": ["average_pooling2d/AvgPool", [2, 3, 2, 4], [[2, 3, 2, 4], 10.21, -0.8109]],
                     "c": ["conv2d/Relu", [2, 3, 4, 4], [[2, 3, 4, 4], 22.15, 0.0754]],
                     "d": ["dense/BiasAdd", [2, 2], [[2, 2], 0.725, -0.1627]],
                     "f": ["flatten/Reshape", [2, 24], [[2, 24], 29.75, -0.7113]],
                     "p": ["max_pooling2d/MaxPool", [2, 2, 3, 4], [[2, 2, 3, 4], 29.75, -0.7113]]},
         "trainable": ["conv2d/kernel:0", "conv2d/bias:0", "dense/kernel:0", "dense/bias:0"],
         "updates": [],
         "variables": ["conv2d/kernel:0", "conv2d/bias:0", "dense/kernel:0", "dense/bias:0"]},
 "conv_1d_3d": {"losses": [],
                "moving": [],
                "names": None,
                "outputs": {"a1": ["average_pooling1d/Squeeze", [2, 4, 2], [[2, 4, 2], 0.6133, -0.1374]],
                            "a3": ["average_pooling3d/AvgPool3D", [1, 2, 2, 2, 3],
                                   [[1, 2, 2, 2, 3], 0.1475, 0.4714]],
                            "c1": ["conv1d/BiasAdd", [2, 9, 2], [[2, 9, 2], 1.26, 0.0581]],
                            "c1b": ["conv1d_1/BiasAdd", [2, 4, 2], [[2, 4, 2], 0.36, 0.2912]],
                            "c3": ["conv3d/BiasAdd", [1, 4, 3, 4, 3], [[1, 4, 3, 4, 3], -0.16, 0.3561]],
                            "p1": ["max_pooling1d/Squeeze", [2, 4, 2], [[2, 4, 2], 2.54, -0.1924]],
                            "p3": ["max_pooling3d/MaxPool3D", [1, 3, 2, 3, 3], [[1, 3, 2, 3, 3], 19.28, 0.7224]]},
                "trainable": ["conv1d/kernel:0", "conv1d/bias:0", "conv1d_1/kernel:0", "conv1d_1/bias:0",
                              "conv3d/kernel:0", "conv3d/bias:0"],
                "updates": [],
                "variables": ["conv1d/kernel:0", "conv1d/bias:0", "conv1d_1/kernel:0", "conv1d_1/bias:0",
                              "conv3d/kernel:0", "conv3d/bias:0"]},
 "dense": {"losses": [],
           "moving": [],
           "names": None,
           "outputs": {"y": ["dense/Relu", [4, 2], [[4, 2], 1.35, 0.321]],
                       "z": ["dense_1/BiasAdd", [4, 3], [[4, 3], 0.222, -0.0052]]},
           "trainable": ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0"],
           "updates": [],
           "variables": ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0"]},
 "dense_rank3": {"losses": [],
                 "moving": [],
                 "names": None,
                 "outputs": {"y": ["dense/Tensordot", [2, 3, 5], [[2, 3, 5], 0.15, 0.0905]]},
                 "trainable": ["dense/kernel:0"],
                 "updates": [],
                 "variables": ["dense/kernel:0"]},
 "dense_reuse": {"losses": [],
                 "moving": [],
                 "names": None,
                 "outputs": {"a": ["net/fc/BiasAdd", [4, 2], [[4, 2], 0.13, 0.2711]],
                             "b": ["net_1/fc/BiasAdd", [4, 2], [[4, 2], 0.26, 0.5421]],
                             "c": ["fc/BiasAdd", [4, 2], [[4, 2], -0.39, -0.1678]],
                             "d": ["fc_1/BiasAdd", [4, 2], [[4, 2], -0.39, -0.1678]]},
                 "trainable": ["net/fc/kernel:0", "net/fc/bias:0", "fc/kernel:0", "fc/bias:0"],
                 "updates": [],
                 "variables": ["net/fc/kernel:0", "net/fc/bias:0", "fc/kernel:0", "fc/bias:0"]},
 "dropout": {"losses": [],
             "moving": [],
             "names": None,
             "outputs": {"layer_off": ["dropout_1/Identity", [4, 3], [[4, 3], -0.5, -0.7035]],
                         "off": ["dropout/Identity", [4, 3], [[4, 3], -0.5, -0.7035]],
                         "zero": ["dropout_2/Identity", [4, 3], [[4, 3], -0.5, -0.7035]]},
             "trainable": [],
             "updates": [],
             "variables": []},
 "layer_object": {"losses": [],
                  "moving": [],
                  "names": ["shared", "dense_1", "shared", "dense", ["shared/kernel:0", "shared/bias:0"],
                            ["shared/kernel:0", "shared/bias:0"], "shared/kernel:0", "shared/bias:0"],
                  "outputs": {"y1": ["shared/BiasAdd", [4, 2], [[4, 2], 0.13, 0.2711]],
                              "y2": ["shared/BiasAdd_1", [4, 2], [[4, 2], -0.67, -0.028]],
                              "y3": ["dense/BiasAdd", [4, 2], [[4, 2], 0.13, 0.2711]]},
                  "trainable": ["shared/kernel:0", "shared/bias:0", "dense/kernel:0", "dense/bias:0"],
                  "updates": [],
                  "variables": ["shared/kernel:0", "shared/bias:0", "dense/kernel:0", "dense/bias:0"]},
 "not_trainable": {"losses": [],
                   "moving": [],
                   "names": [[], ["dense/kernel:0", "dense/bias:0"]],
                   "outputs": {"y": ["dense/BiasAdd", [4, 2], [[4, 2], 0.13, 0.2711]]},
                   "trainable": [],
                   "updates": [],
                   "variables": ["dense/kernel:0", "dense/bias:0"]},
 "regularized": {"losses": [["dense/kernel/Regularizer/mul_1:0", 0.0068], ["dense/bias/Regularizer/Sum:0", 1.0]],
                 "moving": [],
                 "names": None,
                 "outputs": {"y": ["dense/BiasAdd", [4, 2], [[4, 2], -3.87, -0.4681]]},
                 "trainable": ["dense/kernel:0", "dense/bias:0"],
                 "updates": [],
                 "variables": ["dense/kernel:0", "dense/bias:0"]},
 "separable": {"losses": [],
               "moving": [],
               "names": None,
               "outputs": {"s1": ["separable_conv1d/Squeeze", [2, 4, 2], [[2, 4, 2], 0.519, -0.0379]],
                           "s2": ["separable_conv2d/BiasAdd", [2, 5, 6, 4], [[2, 5, 6, 4], -0.051, -1.6256]]},
               "trainable": ["separable_conv2d/depthwise_kernel:0", "separable_conv2d/pointwise_kernel:0",
                             "separable_conv2d/bias:0", "separable_conv1d/depthwise_kernel:0",
                             "separable_conv1d/pointwise_kernel:0", "separable_conv1d/bias:0"],
               "updates": [],
               "variables": ["separable_conv2d/depthwise_kernel:0", "separable_conv2d/pointwise_kernel:0",
                             "separable_conv2d/bias:0", "separable_conv1d/depthwise_kernel:0",
                             "separable_conv1d/pointwise_kernel:0", "separable_conv1d/bias:0"]},
 "transposes": {"losses": [],
                "moving": [],
                "names": None,
                "outputs": {"t3": ["conv3d_transpose/BiasAdd", [1, 4, 6, 4, 2], [[1, 4, 6, 4, 2], 0.44, 2.6853]],
                            "t_same": ["conv2d_transpose/BiasAdd", [2, 6, 8, 2], [[2, 6, 8, 2], 5.0, 2.1421]],
                            "t_valid": ["conv2d_transpose_1/BiasAdd", [2, 6, 6, 2], [[2, 6, 6, 2], 0.1, 0.2232]]},
                "trainable": ["conv2d_transpose/kernel:0", "conv2d_transpose/bias:0", "conv2d_transpose_1/kernel:0",
                              "conv2d_transpose_1/bias:0", "conv3d_transpose/kernel:0", "conv3d_transpose/bias:0"],
                "updates": [],
                "variables": ["conv2d_transpose/kernel:0", "conv2d_transpose/bias:0", "conv2d_transpose_1/kernel:0",
                              "conv2d_transpose_1/bias:0", "conv3d_transpose/kernel:0",
                              "conv3d_transpose/bias:0"]}}


def _close(got, want, path="") -> None:
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), path
        for k in want:
            _close(got[k], want[k], f"{path}/{k}")
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), f"{path}: {got} != {want}"
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{path}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-4, abs=2e-3), path
    else:
        assert got == want, path


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_matches_tf(case):
    _close(describe(tf, build_cases(tf)[case]), EXPECTED[case], case)


def test_every_case_has_tf_figures():
    assert sorted(build_cases(tf)) == sorted(EXPECTED)


# -- defaults, reuse and scopes ---------------------------------------------------------------------


def test_default_initializers_are_glorot_uniform_and_zeros():
    with tf.Graph().as_default():
        layer = tf.layers.Dense(40)
        layer(tf.zeros([2, 60]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            kernel, bias = sess.run([layer.kernel, layer.bias])
    limit = np.sqrt(6 / (60 + 40))
    assert np.abs(kernel).max() <= limit and np.abs(kernel).max() > 0.9 * limit
    assert abs(kernel.mean()) < 0.02 and kernel.std() == pytest.approx(limit / np.sqrt(3), rel=0.1)
    np.testing.assert_array_equal(bias, np.zeros(40, np.float32))


def test_variable_scope_initializer_is_the_kernel_default():
    with tf.Graph().as_default():
        with tf.variable_scope("s", initializer=tf.constant_initializer(0.25)):
            y = tf.layers.dense(tf.ones([1, 3]), 2)
        assert [v.name for v in tf.global_variables()] == ["s/dense/kernel:0", "s/dense/bias:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(y), [[0.75, 0.75]])


def test_layer_names_as_tf():
    with tf.Graph().as_default():
        names = [tf.layers.Conv2D(2, 3).name, tf.layers.MaxPooling2D(2, 2).name,
                 tf.layers.BatchNormalization().name, tf.layers.SeparableConv2D(3, 2).name,
                 tf.layers.Conv2DTranspose(2, 2).name, tf.layers.Conv2D(2, 3).name]
    assert names == ["conv2d_1", "max_pooling2d_1", "batch_normalization_1", "separable_conv2d_1",
                     "conv2d_transpose_1", "conv2d_2"]


def test_reusing_a_layer_reuses_its_variables():
    with tf.Graph().as_default():
        x = tf.constant(arr([4, 3]))
        layer = tf.layers.Conv1D(2, 2)
        a, b = layer(tf.reshape(x, [1, 4, 3])), layer(tf.reshape(x, [1, 4, 3]) + 1.0)
        assert (a.op.name, b.op.name) == ("conv1d/BiasAdd", "conv1d/BiasAdd_1")
        assert [v.name for v in tf.global_variables()] == ["conv1d/kernel:0", "conv1d/bias:0"]
        assert layer.count_params() == 2 * 3 * 2 + 2


ERRORS = [
    (lambda: tf.layers.dense(tf.placeholder(tf.float32, [2, None]), 2),
     "The last dimension of the inputs to a Dense layer should be defined. Found None."),
    (lambda: [tf.layers.dense(tf.zeros([4, 3]), 2, name="fc") for _ in range(2)],
     "Variable fc/kernel already exists, disallowed"),
    (lambda: [layer(tf.zeros([4, n])) for layer in [tf.layers.Dense(2)] for n in (3, 4)],
     'Input 0 of layer "dense_1" is incompatible with the layer: expected axis -1 of input shape to have value 3, '
     r"but received input with shape \(4, 4\)"),
    (lambda: tf.layers.dense(tf.zeros([4]), 2), "expected min_ndim=2, found ndim=1"),
    (lambda: tf.layers.conv2d(tf.zeros([1, 4, 4]), 2, 3), "expected min_ndim=4, found ndim=3"),
    (lambda: tf.layers.max_pooling2d(tf.zeros([1, 4, 4]), 2, 2), "expected ndim=4, found ndim=3"),
    (lambda: tf.layers.Dense(2).scope_name, 'No name available for layer scope because the layer "dense_1" has '
                                            "not been used yet"),
]


@pytest.mark.parametrize("build,match", ERRORS)
def test_errors_as_tf(build, match):
    with tf.Graph().as_default(), pytest.raises(ValueError, match=match):
        build()


# Per step: output, input gradient, then gamma, beta, moving_mean, moving_variance, moving_stddev,
# renorm_mean, renorm_stddev; last, the output with training false (TF 2.15, renorm_steps).
RENORM_STEPS = [[[[8, 3], -7.5185, -1.7493], [[8, 3], -0.0, 0.6712], [[3], 3.0623, 1.3262], [[3], -0.04, 0.0174],
  [[3], -0.4699, -0.1412], [[3], 3.2399, 1.0624], [[3], 3.1142, 1.0956], [[3], -0.3759, -0.1129],
  [[3], 3.0914, 1.1013]],
 [[[8, 3], 2.856, 0.9516], [[8, 3], 0.0, 0.7473], [[3], 3.0724, 1.342], [[3], -0.08, 0.0348], [[3], -0.0323, 0.1493],
  [[3], 3.8021, 1.0689], [[3], 3.3633, 1.1077], [[3], -0.0634, 0.1082], [[3], 3.2998, 1.1087]],
 [[[8, 3], -5.7946, -1.7922], [[8, 3], -0.0, 0.74], [[3], 2.7227, 1.3491], [[3], -0.12, 0.0522],
  [[3], -0.4888, -0.2221], [[3], 3.5696, 0.9254], [[3], 3.2583, 1.0338], [[3], -0.4161, -0.1725],
  [[3], 3.2412, 1.0492]],
 [[8, 3], -3.652, -2.9966]]


def test_batch_norm_renorm_trains_as_tf():
    _close(renorm_steps(tf), RENORM_STEPS)


BATCH_NORM_ERRORS = [
    (dict(renorm=True, renorm_clipping={"rmax": 2.0, "max": 1.0}),
     r"Received invalid keys for `renorm_clipping` argument: \{'rmax': 2.0, 'max': 1.0\}. "
     r"Supported values: \['rmax', 'rmin', 'dmax'\]."),
    (dict(virtual_batch_size=0), "`virtual_batch_size` must be a positive integer that divides the true batch size "
                                 "of the input tensor. Received: virtual_batch_size=0"),
    (dict(virtual_batch_size=2, axis=0), r"When using `virtual_batch_size`, the batch dimension must be 0 and thus "
                                         r"axis cannot include 0. Received axis=\[0\]"),
    (dict(virtual_batch_size=2, adjustment=lambda shape: (1.0, 0.0)),
     "When using `virtual_batch_size`, adjustment cannot be specified"),
]


@pytest.mark.parametrize("kwargs,match", BATCH_NORM_ERRORS)
def test_batch_norm_option_errors_as_tf(kwargs, match):
    with tf.Graph().as_default(), pytest.raises(ValueError, match=match):
        tf.layers.batch_normalization(tf.zeros([4, 3]), training=True, **kwargs)


def test_float16_batch_norm_computes_in_float32_as_tf():
    x = (np.arange(15).reshape(5, 3) * 0.37 % 1.3).astype(np.float16) * 40
    with tf.Graph().as_default():
        y = tf.layers.batch_normalization(tf.constant(x), training=True)
        assert y.dtype == tf.float16
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(y)
    want = np.array([[-1.733, -0.939, 0.3152], [1.182, -1.386, -0.1842], [0.683, 1.221, -0.6826],
                     [0.1838, 0.775, -1.182], [-0.3157, 0.329, 1.733]], np.float16)  # TF 2.15's bits
    np.testing.assert_array_equal(out, want)


def test_virtual_batch_size_that_does_not_divide_the_batch_fails_at_run_time():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.layers.batch_normalization(x, training=True, virtual_batch_size=4)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(y, {x: np.ones([8, 3], np.float32)}).shape == (8, 3)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Reshape"):
                sess.run(y, {x: np.ones([6, 3], np.float32)})


# -- training as a tensor, update ops, regularization, dropout -------------------------------------


@pytest.mark.parametrize("fused", [None, False])
def test_batch_norm_training_tensor_false_uses_and_keeps_the_moving_statistics(fused):
    x = arr([4, 2, 2, 3]) * 2.0
    with tf.Graph().as_default():
        training = tf.placeholder(tf.bool, [])
        y = tf.layers.batch_normalization(tf.constant(x), training=training, fused=fused,
                                          moving_mean_initializer=tf.constant_initializer(0.5),
                                          moving_variance_initializer=tf.constant_initializer(4.0))
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        mean, variance = [v for v in tf.global_variables() if "moving" in v.name]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out, _ = sess.run([y, updates], {training: False})
            np.testing.assert_allclose(out, (x - 0.5) / np.sqrt(4.0 + 1e-3), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(sess.run([mean, variance]), [[0.5] * 3, [4.0] * 3], rtol=1e-6)
            sess.run(updates, {training: True})
            np.testing.assert_allclose(sess.run(mean), 0.5 - (0.5 - x.reshape(-1, 3).mean(0)) * 0.01, rtol=1e-5)


def test_train_op_with_update_ops_dependency():
    x = arr([6, 3], 2)
    with tf.Graph().as_default():
        h = tf.layers.batch_normalization(tf.constant(x), training=True, momentum=0.5)
        loss = tf.reduce_sum(tf.layers.dense(h, 1, kernel_initializer=tf.ones_initializer()))
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        mean = [v for v in tf.global_variables() if v.name.endswith("moving_mean:0")][0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            np.testing.assert_allclose(sess.run(mean), x.mean(0) * 0.5, rtol=1e-5, atol=1e-7)


def test_regularization_losses_sum_into_get_regularization_loss():
    with tf.Graph().as_default():
        tf.layers.dense(tf.zeros([2, 3]), 2, kernel_initializer=tf.ones_initializer(),
                        kernel_regularizer=lambda w: 0.5 * tf.reduce_sum(w))
        tf.layers.conv2d(tf.zeros([1, 3, 3, 1]), 1, 2, kernel_initializer=tf.ones_initializer(),
                         kernel_regularizer=lambda w: tf.reduce_sum(w))
        total = tf.losses.get_regularization_loss()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(total) == pytest.approx(0.5 * 6 + 4)


def test_dropout_training_zeroes_and_scales():
    with tf.Graph().as_default():
        x = tf.ones([200, 50])
        training = tf.placeholder_with_default(False, [])
        y = tf.layers.dropout(x, 0.25, training=training, seed=3)
        with tf.Session() as sess:
            on, off = sess.run(y, {training: True}), sess.run(y)
    assert set(np.unique(on)) <= {0.0, np.float32(1 / 0.75)}
    assert (on == 0).mean() == pytest.approx(0.25, abs=0.02)
    np.testing.assert_array_equal(off, np.ones([200, 50], np.float32))


def test_layer_trainable_flag_and_weight_lists():
    with tf.Graph().as_default():
        bn = tf.layers.BatchNormalization()
        bn(tf.zeros([2, 3]), training=True)
        assert [v.name for v in bn.trainable_weights] == ["batch_normalization/gamma:0", "batch_normalization/beta:0"]
        assert [v.name for v in bn.non_trainable_weights] == ["batch_normalization/moving_mean:0",
                                                              "batch_normalization/moving_variance:0"]
        assert len(bn.updates) == 2 and len(bn.variables) == 4
        bn.trainable = False
        assert bn.trainable_weights == [] and len(bn.non_trainable_weights) == 4


# -- a tiny CNN, trained -------------------------------------------------------------------------------


def test_tiny_cnn_trains_as_tf():
    # TF 2.15 (compat.v1, disable_v2_behavior) on the same graph, data and constant initial weights.
    losses = cnn_losses(tf)
    assert losses == pytest.approx([2.04641, 0.06304, 0.02552, 0.01759], rel=1e-4)
    assert losses[0] > losses[1] > losses[2] > losses[3]


@pytest.mark.parametrize("build", [
    lambda x, fmt: tf.layers.conv2d(x, 3, [3, 2], strides=(2, 1), padding="same", data_format=fmt,
                                    kernel_initializer=tf.constant_initializer(arr([3, 2, 2, 3])),
                                    bias_initializer=tf.constant_initializer(0.5)),
    lambda x, fmt: tf.layers.conv2d_transpose(x, 3, 2, strides=2, data_format=fmt,
                                              kernel_initializer=tf.constant_initializer(arr([2, 2, 3, 2]))),
    lambda x, fmt: tf.layers.separable_conv2d(x, 3, 2, data_format=fmt, depth_multiplier=2,
                                              depthwise_initializer=tf.constant_initializer(arr([2, 2, 2, 2])),
                                              pointwise_initializer=tf.constant_initializer(arr([1, 1, 4, 3], 1))),
    lambda x, fmt: tf.layers.max_pooling2d(x, 2, 1, data_format=fmt),
    lambda x, fmt: tf.layers.average_pooling2d(x, 3, 2, padding="same", data_format=fmt),
    lambda x, fmt: tf.layers.flatten(x, data_format=fmt),
    lambda x, fmt: tf.layers.batch_normalization(x, axis=1 if fmt == "channels_first" else -1, training=True),
])
def test_channels_first_layers_are_channels_last_transposed(build):
    x = arr([2, 5, 4, 2], 3)
    results = []
    for fmt, value in (("channels_last", x), ("channels_first", x.transpose(0, 3, 1, 2))):
        with tf.Graph().as_default():
            y = build(tf.constant(value), fmt)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                results.append(sess.run(y))
    last, first = results
    if last.ndim == 4:
        first = first.transpose(0, 2, 3, 1)
    np.testing.assert_allclose(first, last, rtol=1e-5, atol=1e-6)


def test_auto_reuse_shares_variables_as_tf():
    with tf.Graph().as_default():
        x = tf.zeros([2, 3])
        for _ in range(3):
            y = tf.layers.dense(x, 2, name="fc", reuse=tf.AUTO_REUSE)
        with tf.variable_scope("m", reuse=tf.AUTO_REUSE):
            for _ in range(2):
                tf.layers.conv2d(tf.zeros([1, 4, 4, 1]), 2, 2, name="c")
        # TF 2.15 (compat.v1, disable_v2_behavior) gives the same names.
        assert [v.name for v in tf.global_variables()] == ["fc/kernel:0", "fc/bias:0", "m/c/kernel:0", "m/c/bias:0"]
        assert y.op.name == "fc_2/BiasAdd"


def test_subclassed_layer_and_activity_regularizer_as_tf():
    from tests.layers.subclass_case import run

    outs, variables, trainable, y, z, a, loss_names, losses, count, layer_losses, updates = run(tf)
    # TF 2.15 (compat.v1, disable_v2_behavior):
    assert outs == [[[2.0, 4.0]], [[2.0, 4.0]], [[3.0]]]
    assert (variables, trainable) == (["scale/w:0", "scale/count:0"], ["scale/w:0"])
    assert (y, z, a) == ("scale/mul", "scale/mul_1", "dense/BiasAdd")
    assert loss_names == ["scale/w/Regularizer/Sum:0", "dense/ActivityRegularizer/truediv:0"]
    assert losses == pytest.approx([4.0, 1.5]) and count == 1.0
    assert (layer_losses, updates) == (["dense/ActivityRegularizer/truediv:0"], ["scale/AssignAdd"])


def test_get_and_set_weights_use_the_default_session():
    with tf.Graph().as_default():
        layer = tf.layers.Dense(2)
        y = layer(tf.ones([1, 3]))
        with pytest.raises(ValueError, match="needs a default session"):
            layer.get_weights()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            layer.set_weights([np.ones([3, 2]), np.array([1.0, 2.0])])
            kernel, bias = layer.get_weights()
            np.testing.assert_array_equal(sess.run(y), [[4.0, 5.0]])
        np.testing.assert_array_equal(bias, [1.0, 2.0])
        with pytest.raises(ValueError, match="expecting 2 weights"):
            layer.set_weights([kernel])


def test_float64_batch_norm_takes_the_plain_path_as_tf():
    x = np.arange(24.0).reshape(2, 3, 2, 2)
    with tf.Graph().as_default():
        y = tf.layers.batch_normalization(tf.constant(x), training=True)
        assert (y.op.name, y.dtype) == ("batch_normalization/batchnorm/add_1", tf.float64)
        assert [v.dtype.base_dtype for v in tf.global_variables()] == [tf.float64] * 4
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
            # TF 2.15: [1.46666666, 1.46666666]
            np.testing.assert_allclose(sess.run(tf.global_variables()[3]), [1.46666666] * 2, rtol=1e-8)
        # TF1's layer falls back to the plain path even with fused=True (TF 2.15 as well):
        for value, axis in ((x, -1), (np.zeros([2, 3], np.float32), -1), (np.zeros([2, 3, 4, 5], np.float32), 2)):
            y = tf.layers.batch_normalization(tf.constant(value), axis=axis, fused=True)
            assert y.op.name.endswith("batchnorm/add_1")
