"""TF1's SavedModel (``tf.saved_model``): export a session's graph, variables and signatures, load them back.

``signatures`` holds the constants, ``utils`` and ``signature_def_utils``;
``builder`` writes (``SavedModelBuilder``, ``simple_save``); ``loader`` reads
(``load``). See ``docs/porting.md`` for what is interchangeable with
TensorFlow's SavedModels.
"""

from dflow.saved_model import builder, loader, proto, signatures  # noqa: F401
