"""``tf.contrib.seq2seq``: TF 1.15's sequence-to-sequence decoding library, built from dflow's ops.

Helpers (``helper``), ``BasicDecoder`` and ``dynamic_decode`` (``decoder``), attention mechanisms and
``AttentionWrapper`` (``attention_wrapper``), ``BeamSearchDecoder``, ``tile_batch`` and ``gather_tree``
(``beam_search_decoder``) and ``sequence_loss`` (``loss``). Variable names, shapes and semantics follow
TF 1.15's ``tensorflow/contrib/seq2seq`` (``decoder/attention_wrapper/bahdanau_attention/attention_v``,
``memory_layer/kernel``, ...), so checkpoints of TF1 seq2seq models restore.

Not provided: ``InferenceHelper``, ``ScheduledOutputTrainingHelper``, the monotonic attentions
(``BahdanauMonotonicAttention``, ``LuongMonotonicAttention``, ``monotonic_attention``, ``safe_cumprod``).
"""

from dflow.contrib.seq2seq import attention_wrapper as attention_wrapper  # noqa: F401
from dflow.contrib.seq2seq import beam_search_decoder as beam_search_decoder  # noqa: F401
from dflow.contrib.seq2seq import decoder as decoder  # noqa: F401
from dflow.contrib.seq2seq import helper as helper  # noqa: F401
from dflow.contrib.seq2seq import loss as loss  # noqa: F401
