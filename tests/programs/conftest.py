# The copied programs (a source's own unit tests among them, such as bert/modeling_test.py) are not
# pytest modules of this project: test_programs.py runs each of them through tools/run_programs.py.
collect_ignore_glob = ["*/*.py", "*/*/*.py"]
