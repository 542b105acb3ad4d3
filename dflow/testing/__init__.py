"""``tf.test``: ``TestCase`` (``testcase``) and the test and benchmark functions (``testing``).

It sits above ``train``, ``sessions`` and ``cluster``, which its helpers use
(sessions for ``TestCase``, local clusters, benchmark traces); the gradient
checker (``tf.test.compute_gradient``) is in ``dflow.ops.gradients.gradient_checker``.
"""
