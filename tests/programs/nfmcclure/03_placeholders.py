# Source: https://github.com/nfmcclure/tensorflow_cookbook/blob/1cd9096ee55235bdd0f712e6e8a370329f612434/01_Introduction/03_Using_Variables_and_Placeholders/03_placeholders.py
# License: MIT (see LICENSE in this folder). Copied unchanged below this header; tools/run_programs.py
# makes the changes listed in manifest.json (data loading, step counts) and the port to dflow.
# Placeholders
#----------------------------------
#
# This function introduces how to 
# use placeholders in TensorFlow

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import ops
ops.reset_default_graph()

# Using Placeholders
sess = tf.Session()

x = tf.placeholder(tf.float32, shape=(4, 4))
y = tf.identity(x)

rand_array = np.random.rand(4, 4)

merged = tf.summary.merge_all()
writer = tf.summary.FileWriter("/tmp/variable_logs", sess.graph)

print(sess.run(y, feed_dict={x: rand_array}))