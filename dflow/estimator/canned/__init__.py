"""TF1's canned estimators: ``DNNClassifier``/``DNNRegressor``, ``LinearClassifier``/
``LinearRegressor`` and ``DNNLinearCombinedClassifier``/``DNNLinearCombinedRegressor``
(``tf.estimator.*``), with the heads of ``head.py``."""

from dflow.estimator.canned.dnn import DNNClassifier, DNNRegressor
from dflow.estimator.canned.dnn_linear_combined import DNNLinearCombinedClassifier, DNNLinearCombinedRegressor
from dflow.estimator.canned.linear import LinearClassifier, LinearRegressor

__all__ = ["DNNClassifier", "DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor",
           "DNNRegressor", "LinearClassifier", "LinearRegressor"]
