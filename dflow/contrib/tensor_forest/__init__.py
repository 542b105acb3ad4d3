"""``tf.contrib.tensor_forest``: TF's online random forests (``python.tensor_forest.ForestHParams``,
``RandomForestGraphs``) are not built in dflow; making one raises ``NotImplementedError`` naming it."""
