"""dflow: TensorFlow 1.x graphs and sessions, run on Dask.

``import dflow as tf`` and write TF1 code::

    import dflow as tf
    x = tf.placeholder(tf.float32, [None])
    y = x * 2.0
    with tf.Session() as sess:
        print(sess.run(y, {x: [1.0, 2.0]}))

Every public name is declared next to its definition with ``tf_export``
(see ``dflow/_api.py``); this module imports the pieces and installs them.
"""

from __future__ import annotations

import sys as _sys
import warnings as _warnings

from dflow import _api
from dflow._api import export_value as _export
from dflow.framework import dtypes as _dtypes
from dflow.framework import composite as _composite  # noqa: F401 - tf.SparseTensor, tf.IndexedSlices
from dflow.framework import errors as errors
from dflow.framework.protos import example_pb as _example_pb  # noqa: F401 - tf.train.Example, tf.train.Feature, ...
from dflow.framework.files import file_io as _file_io  # noqa: F401 - tf.gfile.*, tf.io.gfile.*
from dflow.framework import graph as _graph
from dflow.framework import mode as _mode  # noqa: F401
from dflow.framework import tensor_shape as _tensor_shape
from dflow.ops.array import array_ops as _array_ops  # noqa: F401

# Op modules register their ops and public functions on import.
from dflow.framework import constant_op as _constant_op  # noqa: F401
from dflow.ops.control_flow import control_flow_ops as _control_flow_ops  # noqa: F401
from dflow.ops.gradients import gradients_impl as _gradients_impl  # noqa: F401
from dflow.ops.linalg import linalg_ops as _linalg_ops  # noqa: F401
from dflow.ops.linalg import linalg_extra as _linalg_extra  # noqa: F401 - tf.linalg.expm, lu, pinv, ...
from dflow.ops.linalg import linalg_tridiagonal as _linalg_tridiagonal  # noqa: F401 - tf.linalg.tridiagonal_*, eigh_tridiagonal
from dflow.ops.nn import losses_ops as _losses_ops  # noqa: F401 - tf.losses.*
from dflow.ops.math import math_ops as _math_ops  # noqa: F401
from dflow.ops.math import math_extra_ops as _math_extra_ops  # noqa: F401 - tf.math.xlogy, tf.complex, tf.confusion_matrix, ...
from dflow.ops.math import special_math_ops as _special_math_ops  # noqa: F401 - tf.lgamma, tf.math.special.*, ...
from dflow.ops.signal import fft_ops as _fft_ops  # noqa: F401 - tf.signal.fft*, tf.spectral.*
from dflow.ops.signal import signal_ops as _signal_ops  # noqa: F401 - tf.signal.frame, stft, dct, mfccs, windows, ...
from dflow.ops.metrics import metrics_ops as _metrics_ops  # noqa: F401 - tf.metrics.*
from dflow.ops.metrics import metrics_extra as _metrics_extra  # noqa: F401 - tf.metrics at thresholds, per class
from dflow.ops.metrics import metrics_at_k as _metrics_at_k  # noqa: F401 - tf.metrics.precision_at_k, recall_at_k, ...
from dflow.ops.nn import nn_ops as _nn_ops  # noqa: F401
from dflow.ops.nn import nn_reshape_ops as _nn_reshape_ops  # noqa: F401
from dflow.ops.nn import conv_variants as _conv_variants  # noqa: F401 - tf.nn.conv1d/3d, *_transpose, depthwise, separable
from dflow.ops.nn import pool_variants as _pool_variants  # noqa: F401 - tf.nn.max_pool1d/3d, pool, max_pool_with_argmax
from dflow.ops.nn import patches_ops as _patches_ops  # noqa: F401 - tf.extract_image_patches, tf.extract_volume_patches
from dflow.ops.nn import nn_norm_extra as _nn_norm_extra  # noqa: F401
from dflow.ops.nn import nn_losses_extra as _nn_losses_extra  # noqa: F401
from dflow.ops.nn import nn_misc_ops as _nn_misc_ops  # noqa: F401
from dflow.ops.nn import ctc_ops as _ctc_ops  # noqa: F401
from dflow.ops.nn import ctc_decoders as _ctc_decoders  # noqa: F401
from dflow.ops.nn import nn_morphology as _nn_morphology  # noqa: F401
from dflow.ops.nn import fractional_pool_ops as _fractional_pool_ops  # noqa: F401
from dflow.ops.array import operators as _operators  # noqa: F401
from dflow.ops.random import random_ops as _random_ops  # noqa: F401
from dflow.ops.random import stateless_random_ops as _stateless_random_ops  # noqa: F401 - tf.random.stateless_*, fold_in, split
from dflow.ops.random import random_generator as _random_generator  # noqa: F401 - tf.random.Generator
from dflow.ops.math import counting_ops as _counting_ops  # noqa: F401 - tf.bincount, tf.histogram_fixed_width, tf.searchsorted
from dflow.ops.array import partition_ops as _partition_ops  # noqa: F401 - tf.dynamic_partition/stitch, tf.roll, ...
from dflow.ops.array import scatter_ops as _scatter_ops  # noqa: F401 - tf.tensor_scatter_nd_*, tf.scatter_nd_*, tf.scatter_div/min/max
from dflow.ops.math import segment_ops as _segment_ops  # noqa: F401 - tf.segment_*, tf.unsorted_segment_*, tf.sparse.segment_*
from dflow.ops.sparse import sparse_ops as _sparse_ops  # noqa: F401 - tf.sparse.* (build, convert, rearrange)
from dflow.ops.sparse import sparse_array_ops as _sparse_array_ops  # noqa: F401 - tf.sparse.from_dense/transpose/retain/...
from dflow.ops.sparse import sparse_math_ops as _sparse_math_ops  # noqa: F401 - tf.sparse.add/maximum/reduce_*/softmax
from dflow.ops.sparse import sparse_matmul_ops as _sparse_matmul_ops  # noqa: F401 - tf.sparse.sparse_dense_matmul, tf.sparse_matmul
from dflow.ops.sparse import sparse_feature_ops as _sparse_feature_ops  # noqa: F401 - tf.sparse.bincount/cross, tf.edit_distance
from dflow.ops.embedding import embedding_ops as _embedding_ops  # noqa: F401 - tf.nn.embedding_lookup(_sparse), safe_embedding_lookup_sparse
from dflow.ops.embedding import candidate_sampling_ops as _candidate_sampling_ops  # noqa: F401 - tf.nn.*_candidate_sampler, compute_accidental_hits
from dflow.ops.embedding import sampled_losses as _sampled_losses  # noqa: F401 - tf.nn.nce_loss, tf.nn.sampled_softmax_loss
from dflow.ops.state import sparse_accumulator as _sparse_accumulator  # noqa: F401 - tf.SparseConditionalAccumulator
from dflow.ops.state import tensor_array_ops as _tensor_array_ops  # noqa: F401 - tf.TensorArray
from dflow.ops.strings import string_ops as _string_ops  # noqa: F401 - tf.strings.to_hash_bucket*, tf.fingerprint
from dflow.ops.strings import string_text_ops as _string_text_ops  # noqa: F401 - tf.strings.join/substr/regex_*/format/...
from dflow.ops.strings import string_split_ops as _string_split_ops  # noqa: F401 - tf.string_split, tf.strings.split/ngrams
from dflow.ops.strings import unicode_ops as _unicode_ops  # noqa: F401 - tf.strings.unicode_*
from dflow.ops.lookup import lookup_tables as _lookup_tables  # noqa: F401 - tf.lookup.*
from dflow.ops.math import bitwise_ops as _bitwise_ops  # noqa: F401 - tf.bitwise.*
from dflow.ops.math import set_ops as _set_ops  # noqa: F401 - tf.sets.*
from dflow.ops.state import variable_scope as _variable_scope  # noqa: F401
from dflow.ops.state import variables as _variables  # noqa: F401
from dflow.ops.state import partitioned_variables as _partitioned_variables  # noqa: F401 - tf.fixed_size_partitioner, ...
from dflow.framework.device_spec import DeviceSpec
from dflow.sessions import session as _session  # noqa: F401
from dflow import train  # noqa: F401, E402 - tf.train.*
from dflow import data  # noqa: F401, E402 - tf.data.*, tf.io.decode_csv
from dflow import cluster  # noqa: F401, E402 - tf.LocalCluster, tf.train.ClusterSpec, tf.train.Server
from dflow import feature_column  # noqa: F401, E402 - tf.feature_column.*, tf.tables_initializer
from dflow import summary  # noqa: F401, E402 - tf.summary.*
from dflow.framework.files import tf_record as _tf_record  # noqa: F401, E402 - tf.io.TFRecordWriter, tf.python_io.*
from dflow import estimator  # noqa: F401, E402 - tf.estimator.*
from dflow import saved_model  # noqa: F401, E402 - tf.saved_model.*
from dflow import layers  # noqa: F401, E402 - tf.layers.*
from dflow.ops import ragged  # noqa: F401, E402 - tf.RaggedTensor, tf.RaggedTensorSpec, tf.ragged.*
from dflow import debugging  # noqa: F401, E402 - tf.debugging.*, tf.assert_*, tf.Print, tf.print
from dflow import distributions  # noqa: F401, E402 - tf.distributions.*
from dflow.ops.gradients import custom_gradient as _custom_gradient  # noqa: F401, E402 - tf.custom_gradient, tf.hessians
from dflow.ops.control_flow import script_ops as _script_ops  # noqa: F401, E402 - tf.py_func, tf.numpy_function
from dflow.ops.state import template as _template  # noqa: F401, E402 - tf.make_template
from dflow.ops.rnn import rnn_cell_impl as _rnn_cell_impl  # noqa: F401, E402 - tf.nn.rnn_cell.*
from dflow.platform import app as _platform_app  # noqa: F401, E402 - tf.app.run, tf.flags, tf.app.flags
from dflow.platform import tf_logging as _tf_logging  # noqa: F401, E402 - tf.logging.*, tf.get_logger
from dflow.testing import testcase as _testcase  # noqa: F401, E402 - tf.test.TestCase
from dflow.testing import testing as _testing  # noqa: F401, E402 - tf.test.*
from dflow.ops.gradients import gradient_checker as _gradient_checker  # noqa: F401, E402 - tf.test.compute_gradient(_error)
from dflow.ops.image import image_ops as _image_ops  # noqa: F401, E402 - tf.image.*
from dflow.ops.image import image_color as _image_color  # noqa: F401, E402 - tf.image colour conversions and adjustments
from dflow.ops.rnn import rnn_cells as _rnn_cells  # noqa: F401, E402 - tf.nn.rnn_cell.*
from dflow.ops.rnn import rnn_cell_wrappers as _rnn_cell_wrappers  # noqa: F401, E402 - tf.nn.rnn_cell.*Wrapper
from dflow.ops.rnn import rnn as _rnn  # noqa: F401, E402 - tf.nn.dynamic_rnn, tf.nn.static_rnn, ...
from dflow.ops.image import image_resize as _image_resize  # noqa: F401, E402 - tf.image.resize*
from dflow.ops.image import image_crop as _image_crop  # noqa: F401, E402 - tf.image.crop_and_resize, extract_glimpse
from dflow.ops.image import image_nms as _image_nms  # noqa: F401, E402 - tf.image.*non_max_suppression*
from dflow.ops.image import image_boxes as _image_boxes  # noqa: F401, E402 - tf.image draw/sample boxes, proposals
from dflow.ops.image import image_quality as _image_quality  # noqa: F401, E402 - tf.image.psnr, ssim
from dflow.ops.io import example_parsing as _example_parsing  # noqa: F401, E402 - tf.io.parse_example, ...
from dflow.ops.io import serialization_ops as _serialization_ops  # noqa: F401, E402 - tf.io.decode_raw, ...
from dflow.feature_column import parse_spec as _parse_spec  # noqa: F401, E402 - make_parse_example_spec
from dflow.ops.io import io_ops as _io_ops  # noqa: F401, E402 - tf.read_file, tf.matching_files, tf.TFRecordReader, ...
from dflow.framework import tf_nest as _tf_nest  # noqa: F401, E402 - tf.nest.*
from dflow.framework import graph_util as _graph_util  # noqa: F401, E402 - tf.graph_util.*
from dflow.platform import versions as _versions  # noqa: F401, E402 - tf.version.*, tf.VERSION
from dflow.platform import resource_loader as _resource_loader  # noqa: F401, E402 - tf.resource_loader.*
from dflow.sessions import tf_config as _tf_config  # noqa: F401, E402 - tf.config.*
from dflow.ops.signal import audio_ops as _audio_ops  # noqa: F401, E402 - tf.audio.encode_wav/decode_wav
from dflow.ops.image import image_codecs as _image_codecs  # noqa: F401, E402 - tf.image/tf.io decode_*/encode_*
from dflow.framework import tensor_util as _tensor_util  # noqa: F401, E402 - tf.is_tensor, tf.make_tensor_proto, ...
from dflow.ops.array import shape_utils as _shape_utils  # noqa: F401, E402 - tf.ensure_shape, tf.broadcast_*_shape
from dflow.ops.array import array_extras as _array_extras  # noqa: F401, E402 - tf.repeat, tf.switch_case, ...
from dflow.ops.gradients import gradient_utils as _gradient_utils  # noqa: F401, E402 - tf.recompute_grad, tf.AggregationMethod, ...
from dflow.ops.state import variable_utils as _variable_utils  # noqa: F401, E402 - tf.count_up_to, tf.VariableAggregation, ...
from dflow.framework import type_spec as _type_spec  # noqa: F401, E402 - tf.TensorSpec, tf.TypeSpec, ...
from dflow.train import moving_averages as _moving_averages  # noqa: F401, E402 - tf.train.ExponentialMovingAverage
from dflow.train.optimizers import proximal_adagrad as _proximal_adagrad  # noqa: F401, E402 - tf.train.ProximalAdagradOptimizer, AdagradDAOptimizer
from dflow.train import training_loops as _training_loops  # noqa: F401, E402 - tf.train.checkpoints_iterator, basic_train_loop
from dflow.train.checkpoints import warm_starting as _warm_starting  # noqa: F401, E402 - tf.train.warm_start, VocabInfo
from dflow.framework import load_library as _load_library  # noqa: F401, E402 - tf.load_op_library (refused), tf.OpError
from dflow.framework import compat_util as _compat_util  # noqa: F401, E402 - tf.compat.as_bytes, as_str, as_text, ...
from dflow.ops.array import fake_quant_ops as _fake_quant_ops  # noqa: F401, E402 - tf.fake_quant_*, tf.quantization.fake_quant_*
from dflow.ops.state import session_ops as _session_ops  # noqa: F401, E402 - tf.get_session_handle, tf.get_session_tensor, ...
from dflow.functions import module as _module  # noqa: F401, E402 - tf.Module, tf.variable_creator_scope
from dflow.ops.linear_operators import linear_operator as _linear_operator  # noqa: F401, E402 - tf.linalg.LinearOperator*
from dflow.ops.random import index_shuffle as _index_shuffle  # noqa: F401, E402 - tf.random_index_shuffle
from dflow.functions import function as _function  # noqa: F401, E402 - tf.function
from dflow.functions import tape as _tape  # noqa: F401, E402 - tf.GradientTape
from dflow.functions import wrap_function as _wrap_function  # noqa: F401, E402 - tf.wrap_function
from dflow.data import optional_ops as _optional_ops  # noqa: F401, E402 - tf.OptionalSpec, Optional
from dflow.ops.control_flow import batch_ops as _batch_ops  # noqa: F401, E402 - tf.nondifferentiable_batch_function
from dflow.ops.nn import sdca_ops as _sdca_ops  # noqa: F401, E402 - tf.train.sdca_fprint, sdca_shrink_l1
from dflow.ops.ragged import ragged_fill_ops as _ragged_fill_ops  # noqa: F401, E402 - tf.ragged_fill_empty_rows
from dflow.ops.array import quantize_ops as _quantize_ops  # noqa: F401, E402 - tf.quantize*, tf.dequantize, tf.quantized_concat

# TF1 programs read tf.__version__ as TF's (StrictVersion(tf.__version__) checks, .startswith("1.")): the
# TF1 API version dflow implements, like tf.VERSION; dflow's own release is platform.versions.DFLOW_VERSION.
__version__ = _versions.VERSION

# TF1 kernels return inf/nan quietly; numpy warns. Silence numpy's RuntimeWarnings
# raised inside op kernels and partition programs only.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"dflow\.(ops|train|partition)")

for _name in ("Graph", "Tensor", "Operation", "GraphKeys", "get_default_graph", "reset_default_graph",
              "name_scope", "control_dependencies", "device", "colocate_with", "add_to_collection",
              "add_to_collections", "get_collection", "get_collection_ref", "set_random_seed"):
    _export(_name, getattr(_graph, _name))
    # TF1 programs reach the graph through ``from tensorflow.python.framework import ops``
    # (``ops.reset_default_graph()``): that module's graph names.
    _export(f"python.framework.ops.{_name}", getattr(_graph, _name))
_export("python.framework.ops.convert_to_tensor", _constant_op.convert_to_tensor)
_export("random.set_random_seed", _graph.set_random_seed)
_export("compat.v1.set_random_seed", _graph.set_random_seed)
_export("DeviceSpec", DeviceSpec)
for _name in ("TensorShape", "Dimension", "dimension_value"):
    _export(_name, getattr(_tensor_shape, _name))
_export("compat.dimension_value", _tensor_shape.dimension_value)
for _d in _dtypes.ALL:
    _export(_d.name, _d)
    _export(f"dtypes.{_d.name}", _d)
_export("half", _dtypes.half)
_export("double", _dtypes.double)
_export("DType", _dtypes.DType)
_export("as_dtype", _dtypes.as_dtype)
_export("dtypes.as_dtype", _dtypes.as_dtype)
_export("dtypes.DType", _dtypes.DType)

from dflow.contrib import aliases as _contrib_aliases  # noqa: E402 - tf.contrib.layers regularizers, tf.contrib.rnn

_contrib_aliases.register_contrib_rnn()

_api.populate(_sys.modules[__name__])
ragged.install_dispatch(_sys.modules[__name__])  # tf.add, tf.reduce_sum, ... take RaggedTensors
compat = _sys.modules[__name__ + ".compat"]
compat.v1 = _sys.modules[__name__]  # TF1 code written for tf.compat.v1 runs too
del _name, _d
