"""tf.app, tf.flags and tf.logging, against TF 2.15's compat.v1 (/tmp/ref/utils/app_ref.py, log_ref*.py)."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap

import pytest

import dflow as tf


def _run_script(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                          timeout=60)


def test_flags_are_absl_flags_under_both_names():
    import absl.flags

    assert tf.flags.FLAGS is tf.app.flags.FLAGS
    assert tf.flags.DEFINE_integer is tf.app.flags.DEFINE_integer
    assert tf.flags.FlagValues is absl.flags.FlagValues
    assert tf.flags.DEFINE_enum is absl.flags.DEFINE_enum
    assert tf.compat.v1.flags.mark_flag_as_required is absl.flags.mark_flag_as_required
    decorators, target = tf.flags.tf_decorator.unwrap(tf.flags.DEFINE_string)
    assert target is absl.flags.DEFINE_string and len(decorators) == 1


def test_define_accepts_tf_old_keyword_names_and_shares_absl_registry():
    import absl.flags

    tf.flags.DEFINE_string(flag_name="dflow_test_mode", default_value="train", docstring="m")
    holder = tf.app.flags.DEFINE_integer("dflow_test_steps", 7, "n")
    try:
        assert absl.flags.FLAGS["dflow_test_mode"].default == "train"
        assert holder.name == "dflow_test_steps"
        assert "dflow_test_steps" in tf.flags.FLAGS
    finally:
        for name in ("dflow_test_mode", "dflow_test_steps"):
            delattr(absl.flags.FLAGS, name)


def test_app_run_parses_known_flags_keeps_unknown_and_exits_with_main_result():
    # TF: argv ['prog', '--unknown=1', 'pos'] steps 5 mode eval, exit 3
    out = _run_script("""
        import dflow as tf
        tf.app.flags.DEFINE_integer("steps", 7, "n")
        tf.flags.DEFINE_string(flag_name="mode", default_value="train", docstring="m")
        FLAGS = tf.flags.FLAGS
        def main(argv):
            print("argv", argv, "steps", FLAGS.steps, "mode", FLAGS.mode)
            return 3
        tf.app.run(main, argv=["prog", "--steps=5", "--unknown=1", "pos", "--mode", "eval"])
    """)
    assert out.returncode == 3, out.stderr
    assert out.stdout.strip() == "argv ['prog', '--unknown=1', 'pos'] steps 5 mode eval"
    assert "Use of the keyword argument names (flag_name, default_value, docstring) is deprecated" in out.stderr


def test_app_run_defaults_to_main_of_main_module_and_sys_argv():
    out = _run_script("""
        import dflow as tf
        tf.flags.DEFINE_float("lr", 0.1, "lr")
        def main(argv):
            print(tf.flags.FLAGS.lr, argv[1:])
        tf.app.run()
    """, "--lr=0.5", "extra")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0.5 ['extra']"


def test_reading_flags_before_parsing_parses_sys_argv():
    # TF: "0.1 False" without arguments, "0.5 True" with --lr=0.5 --flagb
    code = """
        import dflow as tf
        tf.flags.DEFINE_boolean("flagb", False, "b")
        tf.flags.DEFINE_float("lr", 0.1, "lr")
        print(tf.flags.FLAGS.lr, tf.flags.FLAGS.flagb)
    """
    assert _run_script(code).stdout.strip() == "0.1 False"
    assert _run_script(code, "--lr=0.5", "--flagb").stdout.strip() == "0.5 True"


def test_logging_levels_and_logger_name():
    assert (tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR, tf.logging.FATAL) == \
        (10, 20, 30, 40, 50)
    assert tf.get_logger() is logging.getLogger("tensorflow")


@pytest.fixture
def tf_records(caplog):
    old = tf.logging.get_verbosity()
    old_dflow = logging.getLogger("dflow").level
    caplog.set_level(logging.DEBUG)
    yield caplog
    tf.logging.set_verbosity(old)
    logging.getLogger("dflow").setLevel(old_dflow)


def _lines(caplog):
    return [f"{r.levelname}:{r.name}:{r.getMessage()}" for r in caplog.records if r.name == "tensorflow"]


def test_logging_functions_and_verbosity(tf_records):
    tf.logging.set_verbosity(tf.logging.INFO)
    assert tf.logging.get_verbosity() == 20
    tf.logging.info("hi %d", 3)
    tf.logging.debug("hidden")
    tf.logging.log_if(tf.logging.ERROR, "if %s", False, "no")
    tf.logging.log_if(tf.logging.ERROR, "if %s", True, "yes")
    tf.logging.vlog(tf.logging.DEBUG, "vlog hidden")
    tf.logging.TaskLevelStatusMessage("status")
    tf.logging.warn("w")
    tf.logging.fatal("f")
    tf.logging.set_verbosity(tf.logging.ERROR)
    tf.logging.warning("hidden")
    tf.logging.error("shown %s", "x")
    assert _lines(tf_records) == ["INFO:tensorflow:hi 3", "ERROR:tensorflow:if yes", "ERROR:tensorflow:status",
                                  "WARNING:tensorflow:w", "CRITICAL:tensorflow:f", "ERROR:tensorflow:shown x"]
    assert {r.filename for r in tf_records.records if r.name == "tensorflow"} == {"test_platform.py"}


def test_log_every_n_and_first_n_count_per_call_site(tf_records):
    tf.logging.set_verbosity(tf.logging.INFO)

    def every():
        for i in range(7):
            tf.logging.log_every_n(tf.logging.INFO, "every %d", 3, i)

    def first():
        for i in range(5):
            tf.logging.log_first_n(tf.logging.WARN, "first %d", 2, i)

    every()
    first()
    assert _lines(tf_records) == ["INFO:tensorflow:every 0", "INFO:tensorflow:every 3", "INFO:tensorflow:every 6",
                                  "WARNING:tensorflow:first 0", "WARNING:tensorflow:first 1"]


def test_set_verbosity_reaches_dflow_library_logger(tf_records):
    tf.logging.set_verbosity(tf.logging.INFO)
    logging.getLogger("dflow").info("loss = 1.0, step = 1")
    tf.logging.set_verbosity(tf.logging.WARN)
    logging.getLogger("dflow").info("hidden")
    assert [r.getMessage() for r in tf_records.records if r.name == "dflow"] == ["loss = 1.0, step = 1"]
    tf.logging.flush()


def test_tf_decorator_make_decorator_and_rewrap():
    def target(a, b=2):
        """Adds."""
        return a + b

    def wrapper(*args, **kwargs):
        return wrapper.__wrapped__(*args, **kwargs) * 10

    td = tf.flags.tf_decorator
    wrapped = td.make_decorator(target, wrapper, "times_ten")
    assert wrapped(1) == 30 and wrapped.__name__ == "target" and wrapped.__doc__ == "Adds."
    assert str(__import__("inspect").signature(wrapped)) == "(a, b=2)"
    decorators, inner = td.unwrap(wrapped)
    assert inner is target and decorators[0].decorator_name == "times_ten"
    td.rewrap(wrapped, target, lambda a, b=2: a - b)
    assert wrapped(5) == 30
    spec = __import__("inspect").getfullargspec(target)
    assert str(td.fullargspec_to_signature(spec)) == "(a, b=2)"


def test_default_handler_prints_tf_and_dflow_messages_like_tf():
    # TF 2.15 prints "INFO:tensorflow:hi 3" on stderr with no logging configured
    out = _run_script("""
        import logging
        import dflow as tf
        tf.logging.set_verbosity(tf.logging.INFO)
        tf.logging.info("hi %d", 3)
        logging.getLogger("dflow").info("loss = 0.5, step = 1")
        tf.logging.debug("hidden")
    """)
    assert out.returncode == 0
    assert out.stderr.splitlines() == ["INFO:tensorflow:hi 3", "INFO:tensorflow:loss = 0.5, step = 1"]
