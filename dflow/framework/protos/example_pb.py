"""``tf.train.Example`` and ``tf.train.SequenceExample``: TF's example protos, by hand.

tensorflow/core/example/feature.proto and example.proto as
``dflow.framework.protos.protobuf`` messages, with the generated-protobuf API
(``SerializeToString``, ``FromString``, ``ParseFromString``, ``CopyFrom``,
map access that creates entries, ``.add()`` on repeated messages)::

    ex = Example()
    ex.features.feature["label"].int64_list.value.append(3)
    Example.FromString(ex.SerializeToString()) == ex     # True

Bytes are TF's, except for the order of a map's entries: dflow writes them
in insertion order (as TF's C++ protobuf does for ``decode_json_example``),
and in key order with ``SerializeToString(deterministic=True)``, byte for
byte as TF; TF's Python protobuf (upb) writes its hash table's order by
default. Every order parses to the same message.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.protos.protobuf import Field, Message


@tf_export("train.BytesList")
class BytesList(Message):
    FIELDS = (Field(1, "value", "bytes", "repeated"),)


@tf_export("train.FloatList")
class FloatList(Message):
    FIELDS = (Field(1, "value", "float", "packed"),)


@tf_export("train.Int64List")
class Int64List(Message):
    FIELDS = (Field(1, "value", "int64", "packed"),)


@tf_export("train.Feature")
class Feature(Message):
    FIELDS = (Field(1, "bytes_list", BytesList, "oneof:kind"), Field(2, "float_list", FloatList, "oneof:kind"),
              Field(3, "int64_list", Int64List, "oneof:kind"))


@tf_export("train.Features")
class Features(Message):
    FIELDS = (Field(1, "feature", Feature, "map"),)


@tf_export("train.FeatureList")
class FeatureList(Message):
    FIELDS = (Field(1, "feature", Feature, "repeated"),)


@tf_export("train.FeatureLists")
class FeatureLists(Message):
    FIELDS = (Field(1, "feature_list", FeatureList, "map"),)


@tf_export("train.Example")
class Example(Message):
    FIELDS = (Field(1, "features", Features),)


@tf_export("train.SequenceExample")
class SequenceExample(Message):
    FIELDS = (Field(1, "context", Features), Field(2, "feature_lists", FeatureLists))
