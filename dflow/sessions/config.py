"""TF1's session configuration and run metadata, with their field names.

``ConfigProto``, ``GPUOptions``, ``GraphOptions``, ``RunOptions`` and
``RunMetadata`` are plain objects standing in for TF1's protocol buffers:
unknown fields are a ValueError (as protobuf raises), known ones keep TF1's
names and defaults.
"""

from __future__ import annotations

from dflow._api import tf_export


class _Message:
    """A minimal protobuf-like message: declared fields, defaults, equality."""

    _fields: dict = {}

    def __init__(self, **kwargs):
        for name, default in self._fields.items():
            setattr(self, name, default() if callable(default) else default)
        for k, v in kwargs.items():
            if k not in self._fields:
                raise ValueError(f'Protocol message {type(self).__name__} has no "{k}" field.')
            setattr(self, k, v)

    def CopyFrom(self, other) -> None:  # noqa: N802 - protobuf API
        for name in self._fields:
            setattr(self, name, getattr(other, name))

    def __eq__(self, other):
        return type(other) is type(self) and all(getattr(self, f) == getattr(other, f) for f in self._fields)

    def __repr__(self):
        changed = []
        for name, default in self._fields.items():
            v = getattr(self, name)
            if not callable(default) and v != default:
                changed.append(f"{name}={v!r}")
        return f"{type(self).__name__}({', '.join(changed)})"


@tf_export("GPUOptions")
class GPUOptions(_Message):
    _fields = {"per_process_gpu_memory_fraction": 0.0, "allow_growth": False, "allocator_type": "",
               "visible_device_list": "", "deferred_deletion_bytes": 0, "polling_active_delay_usecs": 0,
               "force_gpu_compatible": False}


@tf_export("OptimizerOptions")
class OptimizerOptions(_Message):
    L1 = 0
    L0 = -1
    DEFAULT = 0
    OFF = 1
    ON_1 = 2
    ON_2 = 3
    _fields = {"do_common_subexpression_elimination": False, "do_constant_folding": False,
               "opt_level": 0, "global_jit_level": 0, "do_function_inlining": False}


@tf_export("core.protobuf.rewriter_config_pb2.AutoParallelOptions")
class AutoParallelOptions(_Message):
    _fields = {"enable": False, "num_replicas": 0}


@tf_export("core.protobuf.rewriter_config_pb2.RewriterConfig")
class RewriterConfig(_Message):
    """TF1's Grappler settings (``GraphOptions.rewrite_options``): kept and reported; dflow has no graph
    optimizer, so they change nothing. The toggles are ``DEFAULT``/``ON``/``OFF``/``AGGRESSIVE``."""

    DEFAULT = 0
    ON = 1
    OFF = 2
    AGGRESSIVE = 3
    _fields = {"layout_optimizer": 0, "constant_folding": 0, "shape_optimization": 0, "remapping": 0,
               "arithmetic_optimization": 0, "dependency_optimization": 0, "loop_optimization": 0,
               "function_optimization": 0, "debug_stripper": 0, "disable_model_pruning": False,
               "scoped_allocator_optimization": 0, "pin_to_host_optimization": 0,
               "implementation_selector": 0, "auto_mixed_precision": 0, "disable_meta_optimizer": False,
               "meta_optimizer_iterations": 0, "min_graph_nodes": 0, "memory_optimization": 0,
               "memory_optimizer_target_node_name_scope": "", "auto_parallel": AutoParallelOptions,
               "optimizers": list, "custom_optimizers": list}


@tf_export("GraphOptions")
class GraphOptions(_Message):
    _fields = {"optimizer_options": OptimizerOptions, "enable_bfloat16_sendrecv": False,
               "infer_shapes": False, "place_pruned_graph": False, "build_cost_model": 0,
               "timeline_step": 0, "rewrite_options": None}


@tf_export("ConfigProto")
class ConfigProto(_Message):
    """Session options. dflow acts on ``allow_soft_placement``,
    ``log_device_placement``, ``operation_timeout_in_ms``, ``device_filters``,
    ``inter_op_parallelism_threads`` (threads of the local Dask scheduler) and
    ``intra_op_parallelism_threads`` (threads of the process's BLAS and OpenMP
    pools; unlike TF1's per-session pools they are the process's, so the last
    session or server that sets them wins); the rest are accepted for
    compatibility."""

    _fields = {"device_count": dict, "intra_op_parallelism_threads": 0, "inter_op_parallelism_threads": 0,
               "use_per_session_threads": False, "session_inter_op_thread_pool": list,
               "placement_period": 0, "device_filters": list, "gpu_options": GPUOptions,
               "allow_soft_placement": False, "log_device_placement": False, "graph_options": GraphOptions,
               "operation_timeout_in_ms": 0, "rpc_options": None, "cluster_def": None,
               "isolate_session_state": False, "experimental": None}


# What a session created without a config starts from: tf.config's process-wide settings
# (set_soft_device_placement, threading.set_*_parallelism_threads), as TF's context config.
SESSION_DEFAULTS: dict = {}


def default_session_config() -> ConfigProto:
    """A ``ConfigProto`` holding the process-wide settings made through ``tf.config``."""
    return ConfigProto(**SESSION_DEFAULTS)


@tf_export("RunOptions")
class RunOptions(_Message):
    """Per-run options: ``trace_level`` (FULL_TRACE fills RunMetadata.step_stats)
    and ``timeout_in_ms``."""

    NO_TRACE = 0
    SOFTWARE_TRACE = 1
    HARDWARE_TRACE = 2
    FULL_TRACE = 3
    _fields = {"trace_level": 0, "timeout_in_ms": 0, "inter_op_thread_pool": 0,
               "output_partition_graphs": False, "debug_options": None,
               "report_tensor_allocations_upon_oom": False, "experimental": None}


class NodeExecStats(_Message):
    """Timing of one op: absolute start (µs since the epoch) and relative times; in a traced run
    also its ``output`` (``NodeOutput`` messages: dtype, shape, bytes) and ``memory``
    (``AllocatorMemoryUsed`` messages), as ``dflow.framework.protos.summary_pb`` defines them."""

    _fields = {"node_name": "", "all_start_micros": 0, "op_start_rel_micros": 0, "op_end_rel_micros": 0,
               "all_end_rel_micros": 0, "memory": list, "output": list, "timeline_label": "",
               "scheduled_micros": 0, "thread_id": 0,
               "all_start_nanos": 0, "op_start_rel_nanos": 0, "op_end_rel_nanos": 0,
               "all_end_rel_nanos": 0}


class DeviceStepStats(_Message):
    _fields = {"device": "", "node_stats": list, "thread_names": dict}


class StepStats(_Message):
    _fields = {"dev_stats": list}


@tf_export("RunMetadata")
class RunMetadata(_Message):
    """Filled by ``Session.run``: ``step_stats`` (with FULL_TRACE) and
    ``partition_graphs`` (with ``output_partition_graphs``)."""

    _fields = {"step_stats": StepStats, "cost_graph": None, "partition_graphs": list,
               "function_graphs": list}

    def Clear(self) -> None:  # noqa: N802 - protobuf API
        self.__init__()
