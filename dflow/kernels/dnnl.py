"""oneDNN 3.x's C API as ``ctypes`` declares it for ``_onednn``: the constants dflow uses (from
``dnnl_types.h``, stable across 3.x), the argument structure, the functions' signatures, and
where the library is found. No state: ``_onednn`` loads the library and runs it."""
from __future__ import annotations

import ctypes
import importlib.metadata
import os
import sys

# -- oneDNN 3.x's C API constants (dnnl_types.h; stable across 3.x) --------------------------
CPU = 1
F32 = 3
ANY = 1
TAGS = {(2, False): (22, 28), (2, True): (5, 28),  # (spatial rank, channels first): (data, filter)
         (3, False): (33, 38), (3, True): (6, 38)}
TAG_X = 2
TAG_AB, TAG_BA = 3, 14  # a matrix row-major, and column-major (a transposed view)
FORWARD_TRAINING = 64
FORWARD_INFERENCE = 96
POOL_MAX, POOL_AVG = 511, 1023  # the average excludes padding, as TF's AvgPool
DIRECT = 1
ELTWISE_RELU = 32
SCRATCHPAD_USER = 1
ARG_SRC, ARG_DST, ARG_WEIGHTS, ARG_BIAS = 1, 17, 33, 41
ARG_DIFF_SRC, ARG_DIFF_DST, ARG_DIFF_WEIGHTS = 129, 145, 161
ARG_WORKSPACE = 64
ARG_SCRATCHPAD = 80
Q_WEIGHTS_MD, Q_DIFF_WEIGHTS_MD, Q_WORKSPACE_MD, Q_SCRATCHPAD_MD, Q_IMPL = 131, 132, 135, 136, 8
MAX_DIMS = 12

P = ctypes.c_void_p
Dims = ctypes.c_int64 * MAX_DIMS


class Arg(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_int), ("memory", P)]


PP = ctypes.POINTER(P)
SIGNATURES = [
    ("dnnl_engine_create", ctypes.c_int, [PP, ctypes.c_int, ctypes.c_size_t]),
    ("dnnl_stream_create", ctypes.c_int, [PP, P, ctypes.c_uint]),
    ("dnnl_stream_wait", ctypes.c_int, [P]),
    ("dnnl_memory_desc_create_with_tag", ctypes.c_int, [PP, ctypes.c_int, Dims, ctypes.c_int, ctypes.c_int]),
    ("dnnl_memory_desc_create_with_strides", ctypes.c_int, [PP, ctypes.c_int, Dims, ctypes.c_int, Dims]),
    ("dnnl_memory_desc_destroy", ctypes.c_int, [P]),
    ("dnnl_memory_desc_get_size", ctypes.c_size_t, [P]),
    ("dnnl_memory_desc_equal", ctypes.c_int, [P, P]),
    ("dnnl_memory_create", ctypes.c_int, [PP, P, P, P]),
    ("dnnl_memory_destroy", ctypes.c_int, [P]),
    ("dnnl_memory_set_data_handle", ctypes.c_int, [P, P]),
    ("dnnl_primitive_attr_create", ctypes.c_int, [PP]),
    ("dnnl_primitive_attr_destroy", ctypes.c_int, [P]),
    ("dnnl_primitive_attr_set_scratchpad_mode", ctypes.c_int, [P, ctypes.c_int]),
    ("dnnl_primitive_attr_set_post_ops", ctypes.c_int, [P, P]),
    ("dnnl_post_ops_create", ctypes.c_int, [PP]),
    ("dnnl_post_ops_destroy", ctypes.c_int, [P]),
    ("dnnl_post_ops_append_eltwise", ctypes.c_int, [P, ctypes.c_int, ctypes.c_float, ctypes.c_float]),
    ("dnnl_convolution_forward_primitive_desc_create", ctypes.c_int,
     [PP, P, ctypes.c_int, ctypes.c_int, P, P, P, P, Dims, Dims, Dims, Dims, P]),
    ("dnnl_convolution_backward_data_primitive_desc_create", ctypes.c_int,
     [PP, P, ctypes.c_int, P, P, P, Dims, Dims, Dims, Dims, P, P]),
    ("dnnl_convolution_backward_weights_primitive_desc_create", ctypes.c_int,
     [PP, P, ctypes.c_int, P, P, P, P, Dims, Dims, Dims, Dims, P, P]),
    ("dnnl_pooling_forward_primitive_desc_create", ctypes.c_int,
     [PP, P, ctypes.c_int, ctypes.c_int, P, P, Dims, Dims, Dims, Dims, Dims, P]),
    ("dnnl_pooling_backward_primitive_desc_create", ctypes.c_int,
     [PP, P, ctypes.c_int, P, P, Dims, Dims, Dims, Dims, Dims, P, P]),
    ("dnnl_matmul_primitive_desc_create", ctypes.c_int, [PP, P, P, P, P, P, P]),
    ("dnnl_reorder_primitive_desc_create", ctypes.c_int, [PP, P, P, P, P, P]),
    ("dnnl_primitive_desc_query_md", P, [P, ctypes.c_int, ctypes.c_int]),
    ("dnnl_primitive_desc_query", ctypes.c_int, [P, ctypes.c_int, ctypes.c_int, P]),
    ("dnnl_primitive_desc_destroy", ctypes.c_int, [P]),
    ("dnnl_primitive_create", ctypes.c_int, [PP, P]),
    ("dnnl_primitive_destroy", ctypes.c_int, [P]),
    ("dnnl_primitive_execute", ctypes.c_int, [P, P, ctypes.c_int, P]),
]


def library_path():
    """The path of ``libdnnl.so.3``: ``$DFLOW_ONEDNN`` if set to a path, else where the
    ``onednn-cpu-gomp`` wheel put it, else the loader's search path."""
    setting = os.environ.get("DFLOW_ONEDNN", "")
    if setting:
        return setting
    for dist in ("onednn-cpu-gomp", "onednn"):
        try:
            files = importlib.metadata.distribution(dist).files or ()
        except importlib.metadata.PackageNotFoundError:
            continue
        for f in files:
            if f.name == "libdnnl.so.3":
                return str(f.locate())
    for prefix in (sys.prefix, sys.base_prefix):
        path = os.path.join(prefix, "lib", "libdnnl.so.3")
        if os.path.isfile(path):
            return path
    return "libdnnl.so.3"


def declare(lib) -> None:
    """Sets the result and argument types of ``lib``'s functions that dflow calls."""
    for name, restype, argtypes in SIGNATURES:
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
