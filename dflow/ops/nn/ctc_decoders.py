"""CTC decoding and label helpers: ``ctc_greedy_decoder``, ``ctc_beam_search_decoder``
(and ``_v2``), ``collapse_repeated``, ``ctc_unique_labels``.

The decoder ops (``CTCGreedyDecoder``, ``CTCBeamSearchDecoder``) return, as
TF's do, the decoded sequences as sparse components (indices, values and
shape, int64) plus log probabilities. The API functions wrap each decoded
sequence in a ``tf.SparseTensor``.

The beam search is TF's prefix beam search (``ctc_beam_search.h``): each
beam keeps the log probabilities of its prefix ending in a blank and in its
last label; ``merge_repeated`` only merges repeated labels of the final
beams, as TF does.
"""

from __future__ import annotations

import heapq

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import SparseTensor
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument
from dflow.ops.array.index_args import host
from dflow.ops.nn._nn_util import FLOATS, as_tensor

_SPARSE_PARTS = [(dtypes.int64, TensorShape([None, 2])), (dtypes.int64, TensorShape([None])),
                 (dtypes.int64, TensorShape([2]))]


def _decoder_inputs(inputs, sequence_length):
    x = as_tensor(inputs, "inputs", FLOATS)
    seq = as_tensor(sequence_length, "sequence_length", (dtypes.int32,))
    if x.shape.ndims is not None and x.shape.ndims != 3:
        raise ValueError(f"Shape must be rank 3 but is rank {x.shape.ndims}")
    if seq.shape.ndims is not None and seq.shape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {seq.shape.ndims}")
    return x, seq


def _check_lengths(x, seq):
    steps, batch = x.shape[0], x.shape[1]
    if seq.shape[0] != batch:
        raise invalid_argument(f"len(sequence_length) != batch_size.  len(sequence_length):  {seq.shape[0]} "
                               f"batch_size: {batch}")
    for b, n in enumerate(seq.tolist()):
        if not 0 <= n <= steps:
            raise invalid_argument(f"sequence_length({b}) <= {steps}")


def _sparse_parts(sequences, xp):
    """Sparse (indices, values, shape) of a list of int sequences, one per batch entry."""
    indices = [(b, i) for b, s in enumerate(sequences) for i in range(len(s))]
    values = [v for s in sequences for v in s]
    longest = max((len(s) for s in sequences), default=0)
    return (xp.asarray(np.array(indices, np.int64).reshape(-1, 2)), xp.asarray(np.array(values, np.int64)),
            xp.asarray(np.array([len(sequences), longest], np.int64)))


def _decoded(indices: Tensor, values: Tensor, shape: Tensor) -> SparseTensor:
    return SparseTensor(indices, values, shape)


# -- greedy ------------------------------------------------------------------------------------------


def _greedy_infer(op):
    x = op._inputs[0]
    batch = x.shape[1] if x.shape.ndims == 3 else None
    return _SPARSE_PARTS + [(x.dtype, TensorShape([batch, 1]))]


def _greedy(inputs, sequence_length, merge_repeated, blank_index):
    xp = array_module(inputs)
    x, seq = np.asarray(host(inputs)), np.asarray(host(sequence_length))
    _check_lengths(x, seq)
    classes = x.shape[2]
    blank = blank_index % classes if blank_index is not None else classes - 1
    sequences, scores = [], np.zeros((x.shape[1], 1), x.dtype)
    for b, n in enumerate(seq.tolist()):
        best = x[:n, b].argmax(axis=1)
        scores[b, 0] = -x[:n, b].max(axis=1).sum() if n else 0
        out, prev = [], -1
        for c in best.tolist():
            if c != blank and not (merge_repeated and c == prev):
                out.append(c)
            prev = c
        sequences.append(out)
    return (*_sparse_parts(sequences, xp), xp.asarray(scores))


register("CTCGreedyDecoder", infer=_greedy_infer, kernel=_greedy, gpu=False)
not_differentiable("CTCGreedyDecoder")


@tf_export("nn.ctc_greedy_decoder")
def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None) -> tuple:
    """Best path decoding: ``([decoded], neg_sum_logits)``, the argmax class of each frame
    with repeats merged (if ``merge_repeated``) and blanks removed.

    The blank is the last class unless ``blank_index`` says otherwise.
    """
    x, seq = _decoder_inputs(inputs, sequence_length)
    if blank_index is not None and blank_index < 0 and x.shape.ndims == 3 and x.shape[2].value is not None:
        blank_index += x.shape[2].value
    attrs = {"merge_repeated": bool(merge_repeated), "blank_index": None if blank_index is None else int(blank_index)}
    indices, values, shape, log_probability = apply_op("CTCGreedyDecoder", [x, seq], attrs).outputs
    return [_decoded(indices, values, shape)], log_probability


# -- beam search ------------------------------------------------------------------------------------


def _logaddexp(a, b):
    return float(np.logaddexp(a, b))


def _beam_search(log_probs, blank, beam_width):
    """TF's prefix beam search over ``log_probs`` ``[T, C]``: beams as ``{prefix: (p_blank, p_label)}``."""
    neg_inf = -np.inf
    beams = {(): (0.0, neg_inf)}
    classes = log_probs.shape[1]
    labels = [c for c in range(classes) if c != blank]
    for y in log_probs.tolist():
        new: dict = {}
        for prefix, (pb, pl) in beams.items():
            total = _logaddexp(pb, pl)
            label = pl + y[prefix[-1]] if prefix else neg_inf
            new[prefix] = [total + y[blank], label]
        for prefix, (pb, pl) in beams.items():
            total = _logaddexp(pb, pl)
            last = prefix[-1] if prefix else -1
            for c in labels:
                child = prefix + (c,)
                previous = pb if c == last else total
                score = previous + y[c]
                if child in new:
                    if child in beams:  # TF: an active child adds its parent's mass before emitting
                        cpl = beams[child][1]
                        new[child][1] = _logaddexp(cpl, previous) + y[c]
                    continue
                new[child] = [neg_inf, score]
        scored = [(_logaddexp(pb, pl), prefix) for prefix, (pb, pl) in new.items()]
        best = heapq.nlargest(beam_width, scored, key=lambda s: s[0])
        beams = {prefix: tuple(new[prefix]) for _, prefix in best}
    return sorted(((_logaddexp(pb, pl), prefix) for prefix, (pb, pl) in beams.items()), key=lambda s: -s[0])


def _merge(prefix, merge_repeated):
    out, prev = [], -1
    for c in prefix:
        if not merge_repeated or c != prev:
            out.append(c)
        prev = c
    return out


def _beam_infer(op):
    x = op._inputs[0]
    paths = op._attrs["top_paths"]
    batch = x.shape[1] if x.shape.ndims == 3 else None
    parts = [_SPARSE_PARTS[0]] * paths + [_SPARSE_PARTS[1]] * paths + [_SPARSE_PARTS[2]] * paths
    return parts + [(x.dtype, TensorShape([batch, paths]))]


def _beam_decoder(inputs, sequence_length, beam_width, top_paths, merge_repeated):
    xp = array_module(inputs)
    x, seq = np.asarray(host(inputs)), np.asarray(host(sequence_length))
    _check_lengths(x, seq)
    blank = x.shape[2] - 1
    xf = x.astype(np.float64)
    shifted = xf - xf.max(axis=2, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=2, keepdims=True))
    paths = [[] for _ in range(top_paths)]
    scores = np.zeros((x.shape[1], top_paths), x.dtype)
    for b, n in enumerate(seq.tolist()):
        beams = _beam_search(log_probs[:n, b], blank, beam_width)
        if len(beams) < top_paths:
            raise invalid_argument("Less leaves in the beam search than requested.")
        for p in range(top_paths):
            scores[b, p], prefix = beams[p]
            paths[p].append(_merge(prefix, merge_repeated))
    parts = [_sparse_parts(seqs, xp) for seqs in paths]
    return (*[p[0] for p in parts], *[p[1] for p in parts], *[p[2] for p in parts], xp.asarray(scores))


register("CTCBeamSearchDecoder", infer=_beam_infer, kernel=_beam_decoder, gpu=False)
not_differentiable("CTCBeamSearchDecoder")


@tf_export("nn.ctc_beam_search_decoder")
def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1, merge_repeated=True) -> tuple:
    """Beam search decoding: ``(decoded, log_probabilities)`` with ``top_paths`` decoded sequences.

    ``log_probabilities`` is ``[batch, top_paths]``; the blank is the last class.
    """
    if top_paths > beam_width:
        raise ValueError("top_paths must be <= beam_width")
    if top_paths < 1 or beam_width < 1:
        raise ValueError("beam_width and top_paths must be positive")
    x, seq = _decoder_inputs(inputs, sequence_length)
    attrs = {"beam_width": int(beam_width), "top_paths": int(top_paths), "merge_repeated": bool(merge_repeated)}
    outputs = apply_op("CTCBeamSearchDecoder", [x, seq], attrs).outputs
    k = int(top_paths)
    decoded = [_decoded(outputs[i], outputs[k + i], outputs[2 * k + i]) for i in range(k)]
    return decoded, outputs[-1]


@tf_export("nn.ctc_beam_search_decoder_v2")
def ctc_beam_search_decoder_v2(inputs, sequence_length, beam_width=100, top_paths=1) -> tuple:
    """``ctc_beam_search_decoder`` without merging repeated labels (TF2's version)."""
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths, merge_repeated=False)


# -- label helpers --------------------------------------------------------------------------------------


def _collapse_repeated(labels, seq_length):
    xp = array_module(labels)
    lab, seq = np.asarray(host(labels)), np.asarray(host(seq_length))
    if lab.ndim != 2:
        raise invalid_argument(f"labels must be 2-D, got shape {list(lab.shape)}")
    rows = []
    for b in range(lab.shape[0]):
        row = lab[b, :max(int(seq[b]), 0)]
        keep = np.concatenate([[True], row[1:] != row[:-1]]) if len(row) else np.zeros(0, bool)
        rows.append(row[keep])
    longest = max((len(r) for r in rows), default=0)
    out = np.zeros((lab.shape[0], longest), lab.dtype)
    for b, r in enumerate(rows):
        out[b, :len(r)] = r
    return xp.asarray(out), xp.asarray(np.array([len(r) for r in rows], seq.dtype))


register("_CollapseRepeated", infer=lambda op: [(op._inputs[0].dtype, TensorShape([op._inputs[0].shape[0]
                                                                                    if op._inputs[0].shape.ndims
                                                                                    else None, None])),
                                                 (op._inputs[1].dtype, op._inputs[1].shape)],
         kernel=_collapse_repeated, gpu=False)
not_differentiable("_CollapseRepeated")


@tf_export("nn.collapse_repeated")
def collapse_repeated(labels, seq_length, name=None) -> tuple:
    """Merges runs of repeated labels: ``(collapsed_labels, new_seq_length)``, padded with 0."""
    with name_scope(name, "collapse_repeated_labels", [labels, seq_length]) as scope:
        labels = convert_to_tensor(labels, name="labels")
        seq_length = convert_to_tensor(seq_length, name="seq_length")
        if labels.shape.ndims is not None and labels.shape.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {labels.shape.ndims}")
        op = apply_op("_CollapseRepeated", [labels, seq_length], name=scope)
        return op.outputs[0], op.outputs[1]


def _unique_labels(labels):
    xp = array_module(labels)
    lab = np.asarray(host(labels))
    if lab.ndim != 2:
        raise invalid_argument(f"labels must be 2-D, got shape {list(lab.shape)}")
    values = np.zeros(lab.shape, np.int64)
    idx = np.zeros(lab.shape, lab.dtype)
    for b, row in enumerate(lab):
        seen: dict = {}
        for i, v in enumerate(row.tolist()):
            idx[b, i] = seen.setdefault(v, len(seen))
        values[b, :len(seen)] = list(seen)
    return xp.asarray(values), xp.asarray(idx)


register("_CTCUniqueLabels", infer=lambda op: [(dtypes.int64, op._inputs[0].shape),
                                               (op._inputs[0].dtype, op._inputs[0].shape)],
         kernel=_unique_labels, gpu=False)
not_differentiable("_CTCUniqueLabels")


@tf_export("nn.ctc_unique_labels")
def ctc_unique_labels(labels, name=None) -> tuple:
    """Per batch row, the unique labels in order of appearance (int64, padded with 0) and each label's index."""
    with name_scope(name, "ctc_unique_labels", [labels]) as scope:
        labels = convert_to_tensor(labels, name="labels")
        if labels.shape.ndims is not None and labels.shape.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {labels.shape.ndims}")
        op = apply_op("_CTCUniqueLabels", [labels], name=scope)
        return op.outputs[0], op.outputs[1]
