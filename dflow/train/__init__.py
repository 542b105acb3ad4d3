"""``tf.train``: global step, optimizers, learning-rate schedules, Saver,
checkpoints and meta graphs (and, later, queue runners and monitored
sessions). Public names are installed by ``dflow._api`` from the
``train.*`` exports of the modules imported here."""

from dflow.ops.math import clip_ops as _clip_ops  # noqa: F401  (tf.clip_by_norm & co.)
from dflow.ops.state import accumulator_ops as _accumulator_ops  # noqa: F401  (tf.ConditionalAccumulator)
from dflow.ops.state import critical_section_ops as _critical_section_ops  # noqa: F401  (tf.CriticalSection)
from dflow.ops.state import data_flow_ops as _data_flow_ops  # noqa: F401  (tf.FIFOQueue & co.)
from dflow.train import basic_session_run_hooks as _basic_hooks  # noqa: F401  (tf.train.StopAtStepHook & co.)
from dflow.train import coordinator as _coordinator  # noqa: F401  (tf.train.Coordinator)
from dflow.train import (  # noqa: F401
    device_setter,
    learning_rate_decay,
    meta_graph,
    session_run_hook,
    training_util,
)
from dflow.train import input as _input  # noqa: F401  (tf.train.batch & co.)
from dflow.train import monitored_session as _monitored_session  # noqa: F401  (tf.train.MonitoredSession)
from dflow.train import queue_runner as _queue_runner  # noqa: F401  (tf.train.QueueRunner)
from dflow.train import session_manager as _session_manager  # noqa: F401  (tf.train.SessionManager)
from dflow.train import summary_hook as _summary_hook  # noqa: F401  (tf.train.SummarySaverHook)
from dflow.train import supervisor as _supervisor  # noqa: F401  (tf.train.Supervisor)
from dflow.train.checkpoints import checkpoint_management, checkpoint_utils, saver  # noqa: F401
from dflow.train.checkpoints import tracking as _tracking  # noqa: F401  (tf.train.Checkpoint, CheckpointManager)
from dflow.train.optimizers import (  # noqa: F401
    adadelta,
    adagrad,
    adam,
    ftrl,
    gradient_descent,
    momentum,
    optimizer,
    proximal_gradient_descent,
    rmsprop,
)
from dflow.train.optimizers import sync_replicas_optimizer as _sync_replicas  # noqa: F401  (tf.train.SyncReplicasOptimizer)
